/* backend.c - the entropy back-ends that code each stream: zstd (default),
 * zlib deflate, LZMA2 (raw members at levels >= TRZ_XZ_LEVEL, when smaller
 * than zstd), or stored when none makes the stream smaller.
 * zstd frames are written without magic, content size or checksum: the
 * stream table holds the sizes and the chunk's XXH3 covers the data. */
#define ZSTD_STATIC_LINKING_ONLY /* for ZSTD_c_format / ZSTD_f_zstd1_magicless */
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "format.h"

struct trz_zctx {
    ZSTD_CCtx *c;
    ZSTD_CCtx *t; /* codecs' trials (trz_backend_size), made when first wanted */
    ZSTD_DCtx *d;
    uint8_t *scratch[3]; /* reused across chunks: see trz_zctx_scratch */
    size_t scratch_cap[3];
    trz_buf streams[TRZ_MAX_STREAMS]; /* see trz_zctx_streams */
};

trz_buf *trz_zctx_streams(trz_zctx *z)
{
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
        z->streams[i].n = 0;
        z->streams[i].oom = 0;
    }
    return z->streams;
}

trz_buf *trz_zctx_filled(trz_zctx *z) { return z->streams; }

uint8_t *trz_zctx_scratch(trz_zctx *z, int which, size_t n)
{
    if (n > z->scratch_cap[which] || !z->scratch[which]) {
        size_t want = n + n / 4; /* sizes vary from chunk to chunk: room to grow, not a new buffer each time */
        if (want < n) want = n;
        trz_big_release(z->scratch[which], z->scratch_cap[which]);
        z->scratch[which] = trz_big_malloc(want);
        z->scratch_cap[which] = z->scratch[which] ? want : 0;
    }
    return z->scratch[which];
}

/* zstd's match tables at the default level are tens of MiB per context:
 * on huge pages they cost a few dozen page faults instead of thousands, and
 * the faults of several workers' contexts no longer queue in the kernel. */
#define ZHDR 64 /* before each block: its size, for trz_big_release; keeps zstd's 64-byte alignment */
static void *zalloc_big(void *opaque, size_t n)
{
    (void)opaque;
    if (n > (size_t)-1 - ZHDR) return NULL;
    uint8_t *p = trz_big_malloc(n + ZHDR);
    if (!p) return NULL;
    memcpy(p, &n, sizeof n);
    return p + ZHDR;
}

static void zfree_big(void *opaque, void *p)
{
    (void)opaque;
    if (!p) return;
    size_t n;
    uint8_t *b = (uint8_t *)p - ZHDR;
    memcpy(&n, b, sizeof n);
    trz_big_release(b, n + ZHDR);
}

static const ZSTD_customMem big_mem = { zalloc_big, zfree_big, NULL };

trz_zctx *trz_zctx_create(void)
{
    trz_zctx *z = calloc(1, sizeof *z);
    if (!z) return NULL;
    z->d = ZSTD_createDCtx();
    if (!z->d) { trz_zctx_free(z); return NULL; }
    if (ZSTD_isError(ZSTD_DCtx_setParameter(z->d, ZSTD_d_format, ZSTD_f_zstd1_magicless)) ||
        /* streams of a chunk are at most 2 * 256 MiB: a window up to 2^30 is legitimate */
        ZSTD_isError(ZSTD_DCtx_setParameter(z->d, ZSTD_d_windowLogMax, 30))) {
        trz_zctx_free(z);
        return NULL;
    }
    return z;
}

void trz_zctx_free(trz_zctx *z)
{
    if (!z) return;
    ZSTD_freeCCtx(z->c);
    ZSTD_freeCCtx(z->t);
    ZSTD_freeDCtx(z->d);
    for (int i = 0; i < 3; i++) trz_big_release(z->scratch[i], z->scratch_cap[i]);
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(z->streams[i].p);
    free(z);
}

void trz_zctx_release(trz_zctx *z, int what)
{
    if (what == TRZ_RELEASE_PACKER) {
        ZSTD_freeCCtx(z->c);
        z->c = NULL;
    } else if (what == TRZ_RELEASE_TRIALS) {
        ZSTD_freeCCtx(z->t);
        z->t = NULL;
        trz_zctx_release(z, TRZ_SCRATCH_TRIAL);
    } else {
        trz_big_release(z->scratch[what], z->scratch_cap[what]);
        z->scratch[what] = NULL;
        z->scratch_cap[what] = 0;
    }
}

static int zstd_setup(trz_zctx *z, int level, size_t n)
{
    if (!z->c) {
        z->c = ZSTD_createCCtx_advanced(big_mem); /* given back by trz_zctx_release */
        if (!z->c) return -1;
    }
    ZSTD_CCtx_reset(z->c, ZSTD_reset_session_and_parameters);
    if (ZSTD_isError(ZSTD_CCtx_setParameter(z->c, ZSTD_c_compressionLevel, level)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(z->c, ZSTD_c_format, ZSTD_f_zstd1_magicless)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(z->c, ZSTD_c_contentSizeFlag, 0)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(z->c, ZSTD_c_checksumFlag, 0)) ||
        ZSTD_isError(ZSTD_CCtx_setParameter(z->c, ZSTD_c_dictIDFlag, 0)))
        return -1;
    /* Trace streams repeat over long distances (loops re-run): at the
     * strong levels let matches reach across the whole stream. */
    if (level >= 16 && n > (8u << 20)) {
        int wlog = 23;
        while (wlog < 27 && ((size_t)1 << wlog) < n) wlog++;
        ZSTD_CCtx_setParameter(z->c, ZSTD_c_windowLog, wlog);
        ZSTD_CCtx_setParameter(z->c, ZSTD_c_enableLongDistanceMatching, 1);
    }
    return 0;
}

int trz_backend_compress(trz_zctx *z, int backend, int level, const uint8_t *src, size_t n, trz_buf *dst)
{
    size_t start = dst->n;
    if (n == 0) return TRZ_BACKEND_STORE;
    if (backend == TRZ_BACKEND_ZSTD) {
        size_t bound = ZSTD_compressBound(n);
        if (trz_buf_reserve(dst, bound)) return TRZ_ERR_NOMEM;
        if (zstd_setup(z, level, n)) return TRZ_ERR_CODEC;
        size_t r = ZSTD_compress2(z->c, dst->p + start, bound, src, n);
        if (ZSTD_isError(r)) return TRZ_ERR_CODEC;
        if (r < n) { dst->n = start + r; return TRZ_BACKEND_ZSTD; }
    } else if (backend == TRZ_BACKEND_GZIP) {
        uLong bound = compressBound((uLong)n);
        if ((size_t)bound != bound || n > 0xffffffffu) return TRZ_ERR_LIMIT;
        if (trz_buf_reserve(dst, bound)) return TRZ_ERR_NOMEM;
        uLongf out = bound;
        int zl = level > 9 ? 9 : level < 1 ? 1 : level;
        if (compress2(dst->p + start, &out, src, (uLong)n, zl) != Z_OK) return TRZ_ERR_CODEC;
        if (out < n) { dst->n = start + out; return TRZ_BACKEND_GZIP; }
    } else if (backend != TRZ_BACKEND_STORE) {
        return TRZ_ERR_PARAM;
    }
    dst->n = start;
    trz_put_bytes(dst, src, n);
    return dst->oom ? TRZ_ERR_NOMEM : TRZ_BACKEND_STORE;
}

size_t trz_backend_size(trz_zctx *z, int backend, int level, const uint8_t *src, size_t n)
{
    if (n == 0) return 0;
    if (backend == TRZ_BACKEND_GZIP) {
        uLong bound = compressBound((uLong)n);
        uint8_t *dst = (size_t)bound == bound ? trz_zctx_scratch(z, TRZ_SCRATCH_TRIAL, bound) : NULL;
        uLongf out = bound;
        int zl = level > 9 ? 9 : level < 1 ? 1 : level;
        if (!dst || n > 0xffffffffu || compress2(dst, &out, src, (uLong)n, zl) != Z_OK || out > n) return n;
        return out;
    }
    /* a one-shot zstd frame at the level: what the codecs' trials have
     * always compared (a context of its own: the frame parameters of
     * trz_backend_compress stay as they are) */
    size_t bound = ZSTD_compressBound(n);
    uint8_t *dst = trz_zctx_scratch(z, TRZ_SCRATCH_TRIAL, bound);
    if (!z->t) z->t = ZSTD_createCCtx_advanced(big_mem);
    size_t r = dst && z->t ? ZSTD_compressCCtx(z->t, dst, bound, src, n, level) : n;
    return ZSTD_isError(r) || r > n ? n : r;
}

int trz_backend_under(trz_zctx *z, int backend, int level, const uint8_t *src, size_t n, size_t cap)
{
    if (n == 0) return 1;
    if (cap == 0) return 0;
    /* the output buffer is cap bytes: each back-end stops at the block or
     * the output that overflows it, so a trial the model wins by far ends
     * early */
    uint8_t *dst = trz_zctx_scratch(z, TRZ_SCRATCH_TRIAL, cap);
    if (!dst) return -1;
    if (backend == TRZ_BACKEND_GZIP) {
        z_stream s;
        memset(&s, 0, sizeof s);
        int zl = level > 9 ? 9 : level < 1 ? 1 : level;
        if (deflateInit(&s, zl) != Z_OK) return -1;
        int rc = Z_OK;
        size_t done = 0;
        s.next_out = dst;
        s.avail_out = cap > 0xffffffffu ? 0xffffffffu : (uInt)cap;
        while (rc == Z_OK && s.avail_out) {
            size_t step = n - done > (1u << 30) ? 1u << 30 : n - done;
            s.next_in = (Bytef *)(uintptr_t)(src + done);
            s.avail_in = (uInt)step;
            rc = deflate(&s, done + step == n ? Z_FINISH : Z_NO_FLUSH);
            done += step - s.avail_in;
        }
        deflateEnd(&s);
        return rc == Z_STREAM_END;
    }
    if (!z->t) z->t = ZSTD_createCCtx_advanced(big_mem);
    if (!z->t) return -1;
    size_t r = ZSTD_compressCCtx(z->t, dst, cap, src, n, level);
    if (!ZSTD_isError(r)) return 1;
    return ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall ? 0 : -1;
}

/* ---- back-end 3: a raw LZMA2 stream after its one-byte dictionary size ---- */

/* The filter of a stream whose first byte is prop (LZMA2's dictionary-size
 * byte, as xz's filter properties state it); -1 when the byte is not one or
 * names a dictionary over TRZ_XZ_DICT_MAX (an allocation the stream would
 * make us do). */
static int xz_filter(uint8_t prop, lzma_options_lzma *opt, lzma_filter f[2])
{
    if (prop > 40) return -1;
    uint32_t dict = prop == 40 ? UINT32_MAX : (2u | (prop & 1u)) << (prop / 2 + 11);
    if (dict > TRZ_XZ_DICT_MAX) return -1;
    memset(opt, 0, sizeof *opt);
    if (lzma_lzma_preset(opt, 0)) return -1;
    opt->dict_size = dict;
    f[0] = (lzma_filter){ LZMA_FILTER_LZMA2, opt };
    f[1] = (lzma_filter){ LZMA_VLI_UNKNOWN, NULL };
    return 0;
}

int trz_backend_try_xz(trz_zctx *z, int level, const uint8_t *src, size_t n, trz_buf *dst, size_t at, int be)
{
    size_t have = dst->n - at; /* what the back-end chosen so far wrote */
    if (n < 2 || have < 3) return be;
    lzma_options_lzma opt;
    /* xz's default preset; its strongest at the strong levels.  The
     * dictionary needs to reach no further than the stream (the encoder's
     * tables are about 11 times the dictionary: 4 MiB keeps a default
     * compression under the writer's memory bound) */
    int strong = level >= TRZ_XZ_STRONG_LEVEL;
    if (lzma_lzma_preset(&opt, strong ? 9u | LZMA_PRESET_EXTREME : 6u)) return be;
    uint32_t cap = strong ? TRZ_XZ_DICT_MAX : TRZ_XZ_DICT_MAX / 2, dict = 1u << 12;
    while (dict < n && dict < cap) dict <<= 1;
    opt.dict_size = dict;
    lzma_filter f[2] = { { LZMA_FILTER_LZMA2, &opt }, { LZMA_VLI_UNKNOWN, NULL } };
    uint8_t prop[1];
    if (lzma_properties_encode(&f[0], prop) != LZMA_OK) return be;
    /* it must beat what is there by a byte at least */
    uint8_t *out = trz_zctx_scratch(z, TRZ_SCRATCH_TRIAL, have - 1);
    size_t pos = 0;
    if (!out || lzma_raw_buffer_encode(f, NULL, src, n, out, &pos, have - 2) != LZMA_OK) return be;
    dst->n = at;
    trz_put_bytes(dst, prop, 1);
    trz_put_bytes(dst, out, pos);
    return dst->oom ? TRZ_ERR_NOMEM : TRZ_BACKEND_XZ;
}

static int xz_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t raw_len)
{
    lzma_options_lzma opt;
    lzma_filter f[2];
    if (n < 1 || xz_filter(src[0], &opt, f)) return TRZ_ERR_CORRUPT;
    size_t in = 1, out = 0;
    if (lzma_raw_buffer_decode(f, NULL, src, &in, n, dst, &out, raw_len) != LZMA_OK || in != n || out != raw_len)
        return TRZ_ERR_CORRUPT;
    return TRZ_OK;
}

static size_t xz_head(const uint8_t *src, size_t n, uint8_t *dst, size_t want)
{
    lzma_options_lzma opt;
    lzma_filter f[2];
    lzma_stream s = LZMA_STREAM_INIT;
    if (n < 1 || xz_filter(src[0], &opt, f) || lzma_raw_decoder(&s, f) != LZMA_OK) return 0;
    s.next_in = src + 1;
    s.avail_in = n - 1;
    s.next_out = dst;
    s.avail_out = want;
    while (s.avail_out && lzma_code(&s, LZMA_RUN) == LZMA_OK && s.avail_in) {}
    size_t got = want - s.avail_out;
    lzma_end(&s);
    return got;
}

int trz_backend_decompress(trz_zctx *z, int backend, const uint8_t *src, size_t n, uint8_t *dst, size_t raw_len)
{
    switch (backend) {
    case TRZ_BACKEND_STORE:
        if (n != raw_len) return TRZ_ERR_CORRUPT;
        if (n) memcpy(dst, src, n);
        return TRZ_OK;
    case TRZ_BACKEND_ZSTD: {
        size_t r = ZSTD_decompressDCtx(z->d, dst, raw_len, src, n);
        if (ZSTD_isError(r) || r != raw_len) return TRZ_ERR_CORRUPT;
        return TRZ_OK;
    }
    case TRZ_BACKEND_GZIP: {
        uLongf out = (uLongf)raw_len;
        uLong in = (uLong)n;
        if (raw_len > 0xffffffffu || n > 0xffffffffu) return TRZ_ERR_LIMIT;
        int rc = uncompress2(dst, &out, src, &in);
        if (rc != Z_OK || out != raw_len || in != n) return TRZ_ERR_CORRUPT;
        return TRZ_OK;
    }
    case TRZ_BACKEND_XZ:
        return xz_decode(src, n, dst, raw_len);
    default:
        return TRZ_ERR_UNSUPPORTED;
    }
}

size_t trz_backend_head(trz_zctx *z, int backend, const uint8_t *src, size_t n, uint8_t *dst, size_t want)
{
    if (backend == TRZ_BACKEND_STORE) {
        size_t k = n < want ? n : want;
        if (k) memcpy(dst, src, k);
        return k;
    }
    if (backend == TRZ_BACKEND_ZSTD) {
        /* a frame decoded as a stream stops once the first bytes are out */
        ZSTD_inBuffer in = { src, n, 0 };
        ZSTD_outBuffer out = { dst, want, 0 };
        size_t r = 1;
        while (out.pos < want && in.pos < n && r != 0) {
            size_t before = in.pos + out.pos;
            r = ZSTD_decompressStream(z->d, &out, &in);
            if (ZSTD_isError(r) || in.pos + out.pos == before) break;
        }
        ZSTD_DCtx_reset(z->d, ZSTD_reset_session_only);
        return out.pos;
    }
    if (backend == TRZ_BACKEND_GZIP && n <= 0xffffffffu) {
        z_stream s;
        memset(&s, 0, sizeof s);
        if (inflateInit(&s) != Z_OK) return 0;
        s.next_in = (Bytef *)(uintptr_t)src;
        s.avail_in = (uInt)n;
        s.next_out = dst;
        s.avail_out = (uInt)want;
        (void)inflate(&s, Z_SYNC_FLUSH);
        size_t got = want - s.avail_out;
        inflateEnd(&s);
        return got;
    }
    if (backend == TRZ_BACKEND_XZ) return xz_head(src, n, dst, want);
    return 0;
}
