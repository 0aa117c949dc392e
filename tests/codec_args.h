/* codec_args.h - trz_enc_args for tests that drive a codec without the
 * container: codec trials are sized as the container sizes them with its
 * default back-end (a one-shot zstd frame at the level asked for). */
#ifndef TRZ_TEST_CODEC_ARGS_H
#define TRZ_TEST_CODEC_ARGS_H

#include <stdlib.h>
#include <zstd.h>

#include "../codecs/codec.h"

static size_t test_packed_size(void *packer, const void *p, size_t n, int level)
{
    (void)packer;
    if (n == 0) return 0;
    size_t cap = ZSTD_compressBound(n);
    void *z = malloc(cap);
    size_t r = z ? ZSTD_compress(z, cap, p, n, level) : n;
    free(z);
    return ZSTD_isError(r) || r > n ? n : r;
}

#define TEST_ENC_ARGS(in, len, nrec, bo, level, streams) { in, len, nrec, bo, level, streams, test_packed_size, NULL, NULL, NULL }

#endif
