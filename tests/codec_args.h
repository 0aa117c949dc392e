/* codec_args.h - trz_enc_args for tests that drive a codec without the
 * container: codec trials are sized as the container sizes them with its
 * default back-end (a one-shot zstd frame at the level asked for). */
#ifndef TRZ_TEST_CODEC_ARGS_H
#define TRZ_TEST_CODEC_ARGS_H

#include <stdlib.h>
#include <string.h>
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

#define TEST_ENC_ARGS(in, len, nrec, bo, level, streams) { in, len, nrec, bo, level, streams, test_packed_size, NULL, NULL, NULL, 0 }

/* A model kept across chunks: encoding chunk b after chunk a with one
 * model, reset between them, writes what a fresh model writes for b, and
 * one decoder's model, reset between them, decodes both.  1 if so. */
static inline int test_model_reuse(const trz_codec *c, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
                            int level, int bo)
{
    size_t rs = c->record_size ? c->record_size : 1;
    trz_buf s1[TRZ_MAX_STREAMS], s2[TRZ_MAX_STREAMS], s3[TRZ_MAX_STREAMS];
    memset(s1, 0, sizeof s1), memset(s2, 0, sizeof s2), memset(s3, 0, sizeof s3);
    trz_model *m = NULL, *d = NULL;
    int ok = trz_model_create(c, level, 0, &m) == TRZ_CODEC_OK && trz_model_create(c, 0, 0, &d) == TRZ_CODEC_OK;
    trz_enc_args ea = TEST_ENC_ARGS(a, alen, alen / rs, bo, level, s1);
    trz_enc_args eb = TEST_ENC_ARGS(b, blen, blen / rs, bo, level, s2);
    trz_enc_args fb = TEST_ENC_ARGS(b, blen, blen / rs, bo, level, s3);
    ok = ok && trz_codec_encode(c, &ea, m) == TRZ_CODEC_OK;
    trz_model_reset(c, m);
    ok = ok && trz_codec_encode(c, &eb, m) == TRZ_CODEC_OK && trz_codec_encode(c, &fb, NULL) == TRZ_CODEC_OK;
    for (int i = 0; ok && i < TRZ_MAX_STREAMS; i++)
        ok = s2[i].n == s3[i].n && (!s2[i].n || memcmp(s2[i].p, s3[i].p, s2[i].n) == 0);
    uint8_t *out = malloc((alen > blen ? alen : blen) + 1);
    for (int k = 0; ok && k < 2; k++) {
        trz_buf *s = k ? s2 : s1;
        const uint8_t *sp[TRZ_MAX_STREAMS];
        size_t sl[TRZ_MAX_STREAMS];
        for (int i = 0; i < TRZ_MAX_STREAMS; i++) { sp[i] = s[i].n ? s[i].p : NULL; sl[i] = s[i].n; }
        size_t len = k ? blen : alen;
        trz_dec_args da = { sp, sl, out, len, len / rs, bo, NULL, 0 };
        ok = out && trz_codec_decode(c, &da, d) == TRZ_CODEC_OK && memcmp(out, k ? b : a, len) == 0;
        trz_model_reset(c, d);
    }
    free(out);
    trz_model_free(c, m);
    trz_model_free(c, d);
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(s1[i].p), free(s2[i].p), free(s3[i].p);
    return ok;
}

#endif
