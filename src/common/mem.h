/* mem.h - large blocks: chunks, streams and model tables of megabytes, on
 * transparent huge pages where the kernel offers them, and kept for reuse
 * from one chunk to the next (mem.c). */
#ifndef TRZ_MEM_H
#define TRZ_MEM_H

#include <stddef.h>

/* Buffers of megabytes (chunks, streams, model tables) are asked for on
 * transparent huge pages where the kernel offers them: touching fresh memory
 * then costs one page fault per 2 MiB instead of 512, which on some machines
 * is most of a chunk's decoding time.  Free them with free(), or, for a
 * block of n bytes that the next chunk will want again (model tables),
 * with trz_big_free(p, n): the block is kept for reuse (trz_big_trim, at
 * the end of a compression or a reader, gives the kept blocks back). */
void *trz_big_malloc(size_t n);
void *trz_big_calloc(size_t n);
void *trz_big_realloc(void *p, size_t n);
void trz_big_free(void *p, size_t n);
void trz_big_trim(void);

#endif
