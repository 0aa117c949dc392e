/* drfile_walk.c - the drmemtrace file layer's walker (drfile.md): a
 * container in, its records out.  Each kind's framing (zip members, gzip
 * members, lz4 frames, snappy chunks) is read by its head and after
 * steps; the streams inside are decoded (inflate, liblz4, libsnappy) into
 * the records handed out. */
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>

#include "drfile_int.h"

/* Framing of n bytes at the current place, taken (and reported) whole. */
static int frame(drw *w, uint64_t n)
{
    uint64_t off = din_off(w->in);
    if (drf_din_skip(w->in, n)) {
        w->lossy = 1; /* cut short: what is there is framing too */
        n = din_off(w->in) - off;
        w->state = W_REST;
    }
    if (w->in->err) return TRZ_ERR_IO;
    if (n && w->ev) w->ev->framing(w->ctx, off, n);
    return TRZ_OK;
}

void drf_walk_stream(drw *w, int type)
{
    w->stype = type;
    w->s_off = din_off(w->in);
    w->s_recs = 0;
    w->state = W_STREAM;
    if (w->ev) w->ev->begin(w->ctx, w);
}

static void stream_end(drw *w, int ok)
{
    w->end_pending = 1;
    w->end_ok = ok;
    w->end_at = din_off(w->in);
    w->state = ok ? W_AFTER : W_REST;
    if (!ok) w->lossy = 1;
}

int drf_walk_deflate(drw *w)
{
    if (w->zinit) { /* one inflater for every member: kept, reset */
        if (inflateReset(&w->z) != Z_OK) return TRZ_ERR_NOMEM;
    } else {
        memset(&w->z, 0, sizeof w->z);
        if (inflateInit2(&w->z, -15) != Z_OK) return TRZ_ERR_NOMEM;
        w->zinit = 1;
    }
    drf_walk_stream(w, ST_DEFLATE);
    return TRZ_OK;
}

/* zip: a local header, then its member's data; anything else (the central
 * directory first of all) ends the members.  Headers only say where the
 * data lies: what is rebuilt is checked byte for byte, so a header that
 * lies costs ratio, never bytes. */
static int zip_head(drw *w)
{
    din *in = w->in;
    size_t av = drf_din_fill(in, 30);
    const uint8_t *p = din_ptr(in);
    if (in->err) return TRZ_ERR_IO;
    if (av < 30 || le32(p) != 0x04034b50u) { w->state = W_REST; return TRZ_OK; }
    unsigned flags = le16(p + 6), method = le16(p + 8), nlen = le16(p + 26), xlen = le16(p + 28);
    uint64_t csize = le32(p + 18), usize = le32(p + 22);
    size_t hl = 30 + (size_t)nlen + xlen;
    av = drf_din_fill(in, hl);
    p = din_ptr(in);
    if (in->err) return TRZ_ERR_IO;
    if (av < hl) { w->state = W_REST; w->lossy = 1; return TRZ_OK; }
    w->z64 = 0;
    for (size_t x = 30 + nlen; x + 4 <= hl;) { /* the zip64 extra field: 64-bit sizes */
        unsigned id = le16(p + x), len = le16(p + x + 2);
        if (x + 4 + len > hl) break;
        if (id == 1) {
            size_t v = x + 4;
            w->z64 = 1;
            if (usize == 0xffffffffu && v + 8 <= x + 4 + len) usize = le64(p + v), v += 8;
            if (csize == 0xffffffffu && v + 8 <= x + 4 + len) csize = le64(p + v);
        }
        x += 4 + len;
    }
    (void)usize;
    int rc = frame(w, hl);
    if (rc || w->state == W_REST) return rc;
    w->zdd = flags & 8;
    w->s_par[0] = (uint8_t)(flags >> 1 & 3); /* deflate: 1 maximum (-8, -9), 2 fast (-1, -2) */
    if (method == 8 && !(flags & 1)) return drf_walk_deflate(w);
    if (method == 0 && !(flags & 1) && !w->zdd) {
        w->left = csize;
        drf_walk_stream(w, ST_STORED);
        return TRZ_OK;
    }
    w->lossy = 1; /* encrypted, or a method trz does not decode: kept, no records */
    if (w->zdd) { w->state = W_REST; return TRZ_OK; }
    return frame(w, csize);
}

static int zip_after(drw *w)
{
    w->state = W_HEAD;
    if (!w->zdd) return TRZ_OK;
    size_t av = drf_din_fill(w->in, 24);
    if (w->in->err) return TRZ_ERR_IO;
    size_t n = (av >= 4 && le32(din_ptr(w->in)) == 0x08074b50u) ? 4 : 0;
    n += w->z64 ? 20 : 12;
    if (av < n) n = av, w->lossy = 1;
    return frame(w, n);
}

/* gzip: members of header, raw deflate, CRC-32 and length; anything after
 * the last member is kept. */
int drf_gz_header_len(const uint8_t *p, size_t av, size_t *hl)
{
    if (av < 10 || p[0] != 0x1f || p[1] != 0x8b || p[2] != 8 || (p[3] & 0xe0)) return -1;
    size_t n = 10;
    unsigned flg = p[3];
    if (flg & 4) {
        if (av < n + 2) return -1;
        n += 2 + le16(p + n);
    }
    for (unsigned bit = 8; bit <= 16; bit <<= 1) /* the name, then the comment, each ending in a zero */
        if (flg & bit) {
            while (n < av && p[n]) n++;
            if (n >= av) return -1;
            n++;
        }
    if (flg & 2) n += 2;
    if (n > av) return -1;
    *hl = n;
    return 0;
}

static int gz_head(drw *w)
{
    size_t av = drf_din_fill(w->in, DIN_CAP), hl;
    if (w->in->err) return TRZ_ERR_IO;
    if (drf_gz_header_len(din_ptr(w->in), av, &hl)) {
        if (av) w->lossy = 1;
        w->state = W_REST;
        return TRZ_OK;
    }
    uint8_t xfl = din_ptr(w->in)[8]; /* 2: GNU gzip -9 (or zlib's 9), 4: -1 */
    int rc = frame(w, hl);
    if (rc) return rc;
    w->s_par[0] = xfl;
    return drf_walk_deflate(w);
}

static int gz_after(drw *w)
{
    size_t av = drf_din_fill(w->in, 8);
    if (w->in->err) return TRZ_ERR_IO;
    w->state = W_HEAD;
    if (av < 8) w->lossy = 1;
    return frame(w, MIN(av, 8));
}

/* lz4: frames, and skippable frames (kept). */
static int lz4_head(drw *w)
{
    size_t av = drf_din_fill(w->in, 8);
    const uint8_t *p = din_ptr(w->in);
    if (w->in->err) return TRZ_ERR_IO;
    if (av >= 4 && le32(p) == 0x184D2204u) {
        w->s_par[0] = av > 4 ? p[4] : 0;
        w->s_par[1] = av > 5 ? p[5] : 0;
        if (!w->lz && LZ4F_isError(LZ4F_createDecompressionContext(&w->lz, LZ4F_VERSION))) return TRZ_ERR_NOMEM;
        drf_walk_stream(w, ST_LZ4);
        return TRZ_OK;
    }
    if (av >= 8 && (le32(p) & 0xfffffff0u) == 0x184D2A50u) return frame(w, 8 + (uint64_t)le32(p + 4));
    if (av) w->lossy = 1;
    w->state = W_REST;
    return TRZ_OK;
}

static int lz4_after(drw *w)
{
    w->state = W_HEAD;
    return TRZ_OK;
}

/* snappy framing: chunks of type, 24-bit length and body.  A data chunk
 * is decoded whole here (its block is at most 64 KiB), its bytes taken,
 * and the block handed out as the stream's records. */
static int sz_head(drw *w)
{
    din *in = w->in;
    size_t av = drf_din_fill(in, 4);
    const uint8_t *p = din_ptr(in);
    if (in->err) return TRZ_ERR_IO;
    if (av < 4) {
        if (av) w->lossy = 1;
        w->state = W_REST;
        return TRZ_OK;
    }
    unsigned t = p[0];
    size_t len = le32(p) >> 8;
    if (t >= 0x80) return frame(w, 4 + (uint64_t)len); /* stream identifier, padding, skippable */
    if (t > 3) { w->lossy = 1; w->state = W_REST; return TRZ_OK; }
    size_t crc = t < 2 ? 4 : 0;
    if (len < crc || len - crc > snappy_max_compressed_length(SNAPPY_BLOCK_MAX)) { w->lossy = 1; return frame(w, 4 + (uint64_t)len); }
    av = drf_din_fill(in, 4 + len);
    p = din_ptr(in);
    if (in->err) return TRZ_ERR_IO;
    if (av < 4 + len) { w->lossy = 1; w->state = W_REST; return TRZ_OK; }
    const char *data = (const char *)p + 4 + crc;
    size_t dlen = len - crc, ul = dlen;
    if (!w->blk && !(w->blk = malloc(SNAPPY_BLOCK_MAX))) return TRZ_ERR_NOMEM;
    if (t == 0 || t == 2) {
        if (snappy_uncompressed_length(data, dlen, &ul) != SNAPPY_OK || ul > SNAPPY_BLOCK_MAX ||
            snappy_uncompress(data, dlen, (char *)w->blk, &ul) != SNAPPY_OK) {
            w->lossy = 1;
            return frame(w, 4 + len);
        }
    } else {
        if (dlen > SNAPPY_BLOCK_MAX) { w->lossy = 1; return frame(w, 4 + len); }
        memcpy(w->blk, data, dlen);
    }
    if (crc && snappy_mask(drf_crc32c(w->blk, ul)) != le32(p + 4)) w->lossy = 1; /* records as they are; not rebuilt */
    w->s_par[0] = (uint8_t)t;
    w->blk_len = ul;
    w->blk_at = 0;
    drf_walk_stream(w, ST_SNAPPY);
    din_take(in, 4 + len);
    return TRZ_OK;
}

/* A stream alone (a retry of the plan): no framing around it. */
static int bare_head(drw *w) { w->state = W_DONE; return TRZ_OK; }

typedef struct drkind {
    int id;
    int (*head)(drw *w);  /* at the start of an element: framing and a stream's start */
    int (*after)(drw *w); /* after a stream: its trailer */
} drkind;

static const drkind kinds[] = {
    { TRZ_DRF_ZIP, zip_head, zip_after },
    { TRZ_DRF_GZIP, gz_head, gz_after },
    { TRZ_DRF_LZ4, lz4_head, lz4_after },
    { TRZ_DRF_SNAPPY, sz_head, lz4_after },
    { 0, bare_head, bare_head },
};

static const drkind *kind_of(int id)
{
    size_t i = 0;
    while (kinds[i].id && kinds[i].id != id) i++;
    return &kinds[i];
}

static int64_t stream_read(drw *w, uint8_t *dst, size_t n)
{
    din *in = w->in;
    size_t made = 0;
    if (w->stype == ST_STORED) {
        while (made < n && w->left) {
            size_t av = drf_din_fill(in, 1);
            if (in->err) return TRZ_ERR_IO;
            if (av == 0) { w->lossy = 1; w->left = 0; break; } /* cut short: what is there is the member */
            size_t k = (size_t)MIN(MIN((uint64_t)av, (uint64_t)(n - made)), w->left);
            memcpy(dst + made, din_ptr(in), k);
            din_take(in, k);
            made += k;
            w->left -= k;
        }
        if (!w->left) stream_end(w, 1);
        return (int64_t)made;
    }
    if (w->stype == ST_SNAPPY) {
        size_t k = MIN(n, w->blk_len - w->blk_at);
        memcpy(dst, w->blk + w->blk_at, k);
        w->blk_at += k;
        if (w->blk_at == w->blk_len) stream_end(w, 1);
        return (int64_t)k;
    }
    int stuck = 0;
    while (made == 0) {
        size_t av = drf_din_fill(in, 1);
        if (in->err) return TRZ_ERR_IO;
        if (av == 0) { stream_end(w, 0); break; } /* cut short */
        if (w->stype == ST_DEFLATE) {
            w->z.next_in = (Bytef *)din_ptr(in);
            w->z.avail_in = (uInt)av; /* at most DIN_CAP */
            w->z.next_out = dst;
            w->z.avail_out = (uInt)MIN(n, 1u << 30);
            int rc = inflate(&w->z, Z_NO_FLUSH);
            size_t used = av - w->z.avail_in;
            made = (size_t)(w->z.next_out - dst);
            din_take(in, used);
            if (rc == Z_STREAM_END) stream_end(w, 1);
            else if (rc == Z_MEM_ERROR) return TRZ_ERR_NOMEM;
            else if (rc != Z_OK && rc != Z_BUF_ERROR) stream_end(w, 0);
            else if (!used && !made && ++stuck > 1) stream_end(w, 0);
            if (w->state != W_STREAM) break;
        } else {
            size_t src = av, out = n;
            size_t r = LZ4F_decompress(w->lz, dst, &out, din_ptr(in), &src, NULL);
            din_take(in, src);
            made = out;
            if (LZ4F_isError(r)) {
                LZ4F_resetDecompressionContext(w->lz);
                stream_end(w, 0);
                break;
            }
            if (r == 0) { stream_end(w, 1); break; }
            if (!src && !out && ++stuck > 1) { stream_end(w, 0); break; }
        }
    }
    return (int64_t)made;
}

/* Take the rest of the file as framing. */
static int rest(drw *w)
{
    din *in = w->in;
    uint64_t off = din_off(in);
    if (w->kind == TRZ_DRF_ZIP) { /* what normally follows the members: the central directory */
        size_t av = drf_din_fill(in, 4);
        uint32_t sig = av >= 4 ? le32(din_ptr(in)) : 0;
        if (av && sig != 0x02014b50u && sig != 0x06054b50u && sig != 0x06064b50u) w->lossy = 1;
    } else if (drf_din_fill(in, 1)) {
        w->lossy = 1;
    }
    for (;;) {
        size_t av = drf_din_fill(in, DIN_CAP);
        if (in->err) return TRZ_ERR_IO;
        if (av == 0) break;
        din_take(in, av);
    }
    if (w->ev && din_off(in) > off) w->ev->framing(w->ctx, off, din_off(in) - off);
    w->state = W_DONE;
    return TRZ_OK;
}

int64_t drf_walk_read(drw *w, uint8_t *dst, size_t n)
{
    const drkind *k = kind_of(w->kind);
    for (;;) {
        if (w->end_pending) {
            w->end_pending = 0;
            if (w->ev) w->ev->end(w->ctx, w, w->end_at, w->end_ok);
        }
        int rc = TRZ_OK;
        switch (w->state) {
        case W_HEAD: rc = k->head(w); break;
        case W_AFTER: rc = k->after(w); break;
        case W_REST: rc = rest(w); break;
        case W_DONE: return 0;
        case W_STREAM: {
            int64_t got = stream_read(w, dst, n);
            if (got < 0) return got;
            w->s_recs += (uint64_t)got;
            if (got > 0) return got;
            break;
        }
        }
        if (rc) return rc;
    }
}

void drf_walk_init(drw *w, din *in, int kind, const drw_ev *ev, void *ctx)
{
    memset(w, 0, sizeof *w);
    w->in = in;
    w->kind = kind;
    w->ev = ev;
    w->ctx = ctx;
}

void drf_walk_free(drw *w)
{
    if (w->zinit) inflateEnd(&w->z);
    if (w->lz) LZ4F_freeDecompressionContext(w->lz);
    free(w->blk);
    w->zinit = 0;
    w->lz = NULL;
    w->blk = NULL;
}
