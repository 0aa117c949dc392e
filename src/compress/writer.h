/* writer.h - the writer's entry points beyond trz.h, for trz_compress
 * (compress.c), which reads its input straight into the writer's pending
 * buffer. */
#ifndef TRZ_WRITER_H
#define TRZ_WRITER_H

#include "cctx.h"

/* A writer on c itself (its results and messages land in c), for
 * trz_compress; wrap is what the input was unwrapped from. */
int trz_writer_open_shared(trz_writer **w, trz_cctx *c, const trz_io *out, int wrap);
/* Room in the pending buffer (*p, the returned size), to fill directly;
 * then trz_writer_commit(w, n) for the n bytes put there. */
size_t trz_writer_room(trz_writer *w, uint8_t **p);
int trz_writer_commit(trz_writer *w, size_t n);
/* Write a restore block of `size` bytes right after the member header,
 * through fn (called once, when the header is written; it returns 0 or
 * -1 and calls emit, which does the same, as often as it likes). */
void trz_writer_set_restore(trz_writer *w, int kind, uint64_t size,
                            int (*fn)(void *ctx, int (*emit)(void *, const void *, size_t), void *ectx), void *ctx);

#endif
