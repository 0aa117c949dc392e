/* mem.h - large blocks: chunks, streams and model tables of megabytes, on
 * transparent huge pages where the kernel offers them, and kept for reuse
 * from one chunk to the next (mem.c). */
#ifndef TRZ_MEM_H
#define TRZ_MEM_H

#include <stddef.h>

/* Buffers of megabytes (chunks, streams, model tables) are asked for on
 * transparent huge pages where the kernel offers them: touching fresh memory
 * then costs one page fault per 2 MiB instead of 512, which on some machines
 * is most of a chunk's decoding time.
 * A block of n bytes from trz_big_malloc or trz_big_calloc goes back with
 * trz_big_free(p, n) when the next chunk will want one of the same size
 * (model tables: it is kept for reuse, and trz_big_trim, at the end of a
 * compression or a reader, gives the kept blocks back), or with
 * trz_big_release(p, n) to give its pages back now; never with free().
 * trz_big_realloc grows a buffer on the C heap: those are freed with free(). */
void *trz_big_malloc(size_t n);
void *trz_big_calloc(size_t n);
void *trz_big_realloc(void *p, size_t n);
void trz_big_free(void *p, size_t n);
void trz_big_release(void *p, size_t n);
void trz_big_trim(void);
/* A block filled from its start and seldom whole (an arena of strings):
 * on small pages, so that only what is used is resident (a huge page is
 * 2 MiB as soon as one byte of it is touched).  Given back with
 * trz_big_release(p, n), never kept for reuse. */
void *trz_big_malloc_sparse(size_t n);

#endif
