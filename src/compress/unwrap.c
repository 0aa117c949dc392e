/* unwrap.c - an input source that reads a trace straight, or through gzip
 * or zstd when the input is such a file (users keep traces as .trace.gz),
 * so the archive holds the uncompressed trace. */
#include <errno.h>
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>

#include "unwrap.h"

#define INBUF (1u << 17)

int trz_src_open(trz_src *s, const trz_io *io, int unwrap)
{
    memset(s, 0, sizeof *s);
    s->io = io;
    s->in = malloc(INBUF);
    if (!s->in) return TRZ_ERR_NOMEM;
    /* Peek at the magic; the peeked bytes are served first either way. */
    while (s->in_len < 4) {
        int64_t r = io->read(io->opaque, s->in + s->in_len, INBUF - s->in_len);
        if (r < 0) return TRZ_ERR_IO;
        if (r == 0) { s->in_eof = 1; break; }
        s->in_len += (size_t)r;
    }
    if (!unwrap || s->in_len < 4) return TRZ_OK;
    if (s->in[0] == 0x1f && s->in[1] == 0x8b && s->in[2] == 8) {
        z_stream *z = calloc(1, sizeof *z);
        if (!z) return TRZ_ERR_NOMEM;
        if (inflateInit2(z, 15 + 16) != Z_OK) { free(z); return TRZ_ERR_NOMEM; }
        s->gz = z;
        s->kind = "gzip";
    } else if (trz_ld_le32(s->in) == 0xFD2FB528u) {
        ZSTD_DStream *d = ZSTD_createDStream();
        if (!d) return TRZ_ERR_NOMEM;
        ZSTD_initDStream(d);
        s->zs = d;
        s->kind = "zstd";
    }
    return TRZ_OK;
}

void trz_src_close(trz_src *s)
{
    if (s->gz) { inflateEnd(s->gz); free(s->gz); }
    if (s->zs) ZSTD_freeDStream(s->zs);
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

/* One step of gzip: returns bytes produced, or a negative trz_result. */
static int64_t gz_step(trz_src *s, uint8_t *dst, size_t n)
{
    z_stream *z = s->gz;
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
    size_t r = ZSTD_decompressStream(s->zs, &out, &in);
    if (ZSTD_isError(r)) return TRZ_ERR_CORRUPT;
    s->in_pos = in.pos;
    s->member_done = (r == 0);
    return (int64_t)out.pos;
}

int64_t trz_src_read(trz_src *s, uint8_t *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        if (!s->gz && !s->zs) {
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
        if (s->in_pos == s->in_len && s->in_eof) {
            if (!s->member_done) return TRZ_ERR_TRUNCATED; /* compressed input cut short */
            break;
        }
        int64_t made = s->gz ? gz_step(s, dst + got, n - got) : zs_step(s, dst + got, n - got);
        if (made < 0) return made;
        got += (size_t)made;
    }
    return (int64_t)got;
}
