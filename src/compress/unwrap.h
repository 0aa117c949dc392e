/* unwrap.h - input source that transparently decompresses gzip or zstd. */
#ifndef TRZ_UNWRAP_H
#define TRZ_UNWRAP_H
#include "../common/common.h"

typedef struct trz_src {
    const trz_io *io;
    uint8_t *in;
    size_t in_len, in_pos;
    int in_eof, member_done;
    void *gz; /* z_stream* */
    void *zs; /* ZSTD_DStream* */
    const char *kind; /* NULL, "gzip" or "zstd" */
} trz_src;

int trz_src_open(trz_src *s, const trz_io *io, int unwrap);
/* Fill up to n bytes; returns fewer only at the end.  Negative on error. */
int64_t trz_src_read(trz_src *s, uint8_t *dst, size_t n);
void trz_src_close(trz_src *s);
#endif
