/* unwrap.c - an input source that reads a trace straight, or through gzip,
 * zstd, xz or bzip2 when its first bytes say it is such a file (trace
 * collections ship as .xz, users keep traces as .gz), so that the archive
 * holds the trace itself.  Concatenated streams (cat a.gz b.gz) are read
 * whole; input cut short is an error.  A zip, lz4 or snappy container read
 * from a pipe gives its records through the drmemtrace file layer (from a
 * file, compress.c keeps what restores the container as well). */
#include <bzlib.h>
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>

#include "drfile.h"
#include "unwrap.h"

#define INBUF (1u << 17)

const char *trz_wrap_name(int wrap)
{
    static const char *const names[] = { NULL, "gzip", "zstd", "xz", "bzip2", "zip", "lz4", "snappy" };
    return wrap > 0 && wrap < 8 ? names[wrap] : NULL;
}

/* The wrapper the first n bytes at p name. */
static int sniff(const uint8_t *p, size_t n)
{
    if (n >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8) return TRZ_WRAP_GZIP;
    if (n >= 4 && trz_ld_le32(p) == 0xFD2FB528u) return TRZ_WRAP_ZSTD;
    if (n >= 6 && memcmp(p, "\xFD" "7zXZ\0", 6) == 0) return TRZ_WRAP_XZ;
    if (n >= 4 && memcmp(p, "BZh", 3) == 0 && p[3] >= '1' && p[3] <= '9') return TRZ_WRAP_BZIP2;
    return trz_drfile_magic(p, n);
}

/* The raw input for the file layer: the peeked bytes, then the rest. */
static int64_t src_pull(void *ctx, void *dst, size_t n)
{
    trz_src *s = ctx;
    if (s->in_pos < s->in_len) {
        size_t k = s->in_len - s->in_pos < n ? s->in_len - s->in_pos : n;
        memcpy(dst, s->in + s->in_pos, k);
        s->in_pos += k;
        return (int64_t)k;
    }
    return s->in_eof ? 0 : s->io->read(s->io->opaque, dst, n);
}

static int dec_open(trz_src *s)
{
    switch (s->wrap) {
    case TRZ_WRAP_ZIP:
    case TRZ_WRAP_LZ4:
    case TRZ_WRAP_SNAPPY:
        s->dec = trz_drsrc_open(s->wrap, s->io, src_pull, s);
        return s->dec ? TRZ_OK : TRZ_ERR_NOMEM;
    case TRZ_WRAP_GZIP: {
        z_stream *z = calloc(1, sizeof *z);
        if (!z) return TRZ_ERR_NOMEM;
        s->dec = z;
        return inflateInit2(z, 15 + 16) == Z_OK ? TRZ_OK : TRZ_ERR_NOMEM;
    }
    case TRZ_WRAP_ZSTD: {
        ZSTD_DStream *d = ZSTD_createDStream();
        if (!d) return TRZ_ERR_NOMEM;
        s->dec = d;
        ZSTD_initDStream(d);
        return TRZ_OK;
    }
    case TRZ_WRAP_XZ: {
        lzma_stream *x = calloc(1, sizeof *x);
        if (!x) return TRZ_ERR_NOMEM;
        s->dec = x;
        *x = (lzma_stream)LZMA_STREAM_INIT;
        /* concatenated .xz streams and their padding, as xz -dc reads them */
        return lzma_stream_decoder(x, UINT64_MAX, LZMA_CONCATENATED) == LZMA_OK ? TRZ_OK : TRZ_ERR_NOMEM;
    }
    case TRZ_WRAP_BZIP2: {
        bz_stream *b = calloc(1, sizeof *b);
        if (!b) return TRZ_ERR_NOMEM;
        s->dec = b;
        return BZ2_bzDecompressInit(b, 0, 0) == BZ_OK ? TRZ_OK : TRZ_ERR_NOMEM;
    }
    }
    return TRZ_OK;
}

static void dec_close(trz_src *s)
{
    if (!s->dec) return;
    switch (s->wrap) {
    case TRZ_WRAP_GZIP: inflateEnd(s->dec); free(s->dec); break;
    case TRZ_WRAP_ZSTD: ZSTD_freeDStream(s->dec); break;
    case TRZ_WRAP_XZ: lzma_end(s->dec); free(s->dec); break;
    case TRZ_WRAP_BZIP2: BZ2_bzDecompressEnd(s->dec); free(s->dec); break;
    default: trz_drsrc_close(s->dec); break;
    }
    s->dec = NULL;
}

int trz_src_open(trz_src *s, const trz_io *io, int unwrap)
{
    memset(s, 0, sizeof *s);
    s->io = io;
    s->in = malloc(INBUF);
    if (!s->in) return TRZ_ERR_NOMEM;
    /* Peek at the magic; the peeked bytes are served first either way. */
    while (s->in_len < 10) { /* snappy's stream identifier is the longest magic */
        int64_t r = io->read(io->opaque, s->in + s->in_len, INBUF - s->in_len);
        if (r < 0) return TRZ_ERR_IO;
        if (r == 0) { s->in_eof = 1; break; }
        s->in_len += (size_t)r;
    }
    s->wrap = unwrap ? sniff(s->in, s->in_len) : TRZ_WRAP_NONE;
    s->kind = trz_wrap_name(s->wrap);
    return dec_open(s);
}

void trz_src_close(trz_src *s)
{
    dec_close(s);
    free(s->in);
    memset(s, 0, sizeof *s);
}

static int refill(trz_src *s)
{
    if (s->in_pos < s->in_len || s->in_eof) return 0;
    int64_t r = s->io->read(s->io->opaque, s->in, INBUF);
    if (r < 0) return TRZ_ERR_IO;
    s->in_pos = 0;
    s->in_len = (size_t)r;
    if (r == 0) s->in_eof = 1;
    return 0;
}

/* One step of the decompressor over the input buffered so far: bytes made,
 * or a negative trz_result.  member_done says the input may end here. */
static int64_t gz_step(trz_src *s, uint8_t *dst, size_t n)
{
    z_stream *z = s->dec;
    z->next_in = s->in + s->in_pos;
    z->avail_in = (uInt)(s->in_len - s->in_pos);
    z->next_out = dst;
    z->avail_out = n > (1u << 30) ? (1u << 30) : (uInt)n;
    int rc = inflate(z, Z_NO_FLUSH);
    size_t made = (size_t)(z->next_out - dst);
    s->in_pos = (size_t)(z->next_in - s->in);
    if (rc == Z_STREAM_END) {
        s->member_done = 1;
        inflateReset(z); /* gzip members may follow, as `cat a.gz b.gz` makes */
    } else if (rc == Z_OK || rc == Z_BUF_ERROR) {
        s->member_done = 0;
    } else {
        return TRZ_ERR_CORRUPT;
    }
    return (int64_t)made;
}

static int64_t zs_step(trz_src *s, uint8_t *dst, size_t n)
{
    ZSTD_inBuffer in = { s->in, s->in_len, s->in_pos };
    ZSTD_outBuffer out = { dst, n, 0 };
    size_t r = ZSTD_decompressStream(s->dec, &out, &in);
    if (ZSTD_isError(r)) return TRZ_ERR_CORRUPT;
    s->in_pos = in.pos;
    s->member_done = (r == 0);
    return (int64_t)out.pos;
}

static int64_t xz_step(trz_src *s, uint8_t *dst, size_t n)
{
    lzma_stream *x = s->dec;
    x->next_in = s->in + s->in_pos;
    x->avail_in = s->in_len - s->in_pos;
    x->next_out = dst;
    x->avail_out = n;
    /* at the end of the input, FINISH: the concatenated decoder only then
     * knows that no stream follows */
    int end = s->in_eof && x->avail_in == 0;
    lzma_ret rc = lzma_code(x, end ? LZMA_FINISH : LZMA_RUN);
    size_t made = (size_t)(x->next_out - dst);
    s->in_pos = (size_t)(x->next_in - s->in);
    if (rc == LZMA_STREAM_END) s->member_done = 1;
    else if (rc == LZMA_OK || (rc == LZMA_BUF_ERROR && !end)) s->member_done = 0;
    else if (rc == LZMA_MEM_ERROR) return TRZ_ERR_NOMEM;
    else return end && rc == LZMA_BUF_ERROR ? TRZ_ERR_TRUNCATED : TRZ_ERR_CORRUPT;
    return (int64_t)made;
}

static int64_t bz_step(trz_src *s, uint8_t *dst, size_t n)
{
    bz_stream *b = s->dec;
    if (s->member_done && s->in_pos < s->in_len) { /* another stream follows (cat a.bz2 b.bz2) */
        BZ2_bzDecompressEnd(b);
        memset(b, 0, sizeof *b);
        if (BZ2_bzDecompressInit(b, 0, 0) != BZ_OK) return TRZ_ERR_NOMEM;
        s->member_done = 0;
    }
    b->next_in = (char *)(s->in + s->in_pos);
    b->avail_in = (unsigned)(s->in_len - s->in_pos);
    b->next_out = (char *)dst;
    b->avail_out = n > (1u << 30) ? (1u << 30) : (unsigned)n;
    int rc = BZ2_bzDecompress(b);
    size_t made = (size_t)((uint8_t *)b->next_out - dst);
    s->in_pos = (size_t)((uint8_t *)b->next_in - s->in);
    if (rc == BZ_STREAM_END) s->member_done = 1;
    else if (rc == BZ_OK) s->member_done = 0;
    else if (rc == BZ_MEM_ERROR) return TRZ_ERR_NOMEM;
    else return TRZ_ERR_CORRUPT;
    return (int64_t)made;
}

/* A container of the file layer: its records; what did not become records
 * (damage, members it cannot decode) makes the read fail, since from a
 * pipe nothing else keeps those bytes. */
static int64_t dr_read(trz_src *s, uint8_t *dst, size_t n)
{
    int64_t got = trz_drsrc_read(s->dec, dst, n);
    if (got >= 0 && (size_t)got < n) {
        uint64_t a, b, c, d;
        int lossy;
        trz_drsrc_totals(s->dec, &a, &b, &c, &d, &lossy);
        if (lossy) {
            s->why = "damaged, or holding data trz cannot unwrap from a pipe (give the file by name to keep it "
                     "exactly)";
            return TRZ_ERR_CORRUPT;
        }
    }
    return got;
}

int64_t trz_src_read(trz_src *s, uint8_t *dst, size_t n)
{
    if (s->wrap >= TRZ_WRAP_ZIP) return dr_read(s, dst, n);
    size_t got = 0;
    while (got < n) {
        if (!s->wrap) {
            if (s->in_pos < s->in_len) { /* peeked bytes first */
                size_t k = s->in_len - s->in_pos;
                if (k > n - got) k = n - got;
                memcpy(dst + got, s->in + s->in_pos, k);
                s->in_pos += k;
                got += k;
                continue;
            }
            if (s->in_eof) break;
            int64_t r = s->io->read(s->io->opaque, dst + got, n - got);
            if (r < 0) return TRZ_ERR_IO;
            if (r == 0) { s->in_eof = 1; break; }
            got += (size_t)r;
            continue;
        }
        int rc = refill(s);
        if (rc) return rc;
        if (s->in_pos == s->in_len && s->in_eof && (s->member_done || s->wrap != TRZ_WRAP_XZ)) {
            if (!s->member_done) return TRZ_ERR_TRUNCATED; /* compressed input cut short */
            break;
        }
        int64_t made = s->wrap == TRZ_WRAP_GZIP ? gz_step(s, dst + got, n - got)
                     : s->wrap == TRZ_WRAP_ZSTD ? zs_step(s, dst + got, n - got)
                     : s->wrap == TRZ_WRAP_XZ ? xz_step(s, dst + got, n - got)
                                              : bz_step(s, dst + got, n - got);
        if (made < 0) return made;
        got += (size_t)made;
    }
    return (int64_t)got;
}
