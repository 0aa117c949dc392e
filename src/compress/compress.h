/* compress.h - what the files of the compress room share: the settings
 * (trz_cctx), and the writer's internal entry points that trz_compress
 * uses to read its input straight into the writer's pending buffer. */
#ifndef TRZ_COMPRESS_H
#define TRZ_COMPRESS_H

#include "../format/format.h"
#include "../wrap/unwrap.h"

struct trz_cctx {
    int level, threads, backend, unwrap, verify;
    uint64_t chunk_bytes, chunk_records;
    uint64_t restart_bytes; /* 0: no carried knowledge */
    const trz_codec *forced; /* NULL = auto */
    const trz_codec *chosen;
    const trz_codec *detected; /* what auto-detection picks */
    int forced_fits;           /* the forced codec's probe recognises the input */
    int byte_order, wrap;
    trz_progress_fn progress;
    void *progress_ctx;
    char err[256];
};

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
