/* drfile.c - the drmemtrace file layer (drfile.md): DynamoRIO's containers
 * (.zip of chunk members, .gz, .lz4 frames, .sz snappy framing) walked into
 * the record stream they hold, and the recipe that rebuilds each file byte
 * for byte from those records: deflate, lz4 and snappy streams re-encoded
 * with the settings found (and checked) at compression time, framing and
 * whatever cannot be rebuilt kept as it is.  One walker serves the plan
 * (first pass), the records (second pass, or a pipe) and the retries; one
 * rebuilder serves the checks at compression and the restore. */
#include <errno.h>
#include <lz4frame.h>
#include <pthread.h>
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../common/common.h"
#include "drfile.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* ---- the containers' names ---- */
const char *trz_drfile_name(int kind)
{
    switch (kind) {
    case TRZ_DRF_GZIP: return "gzip";
    case TRZ_DRF_ZIP: return "zip";
    case TRZ_DRF_LZ4: return "lz4";
    case TRZ_DRF_SNAPPY: return "snappy";
    }
    return NULL;
}

const char *trz_drfile_suffix(int kind)
{
    switch (kind) {
    case TRZ_DRF_GZIP: return ".gz";
    case TRZ_DRF_ZIP: return ".zip";
    case TRZ_DRF_LZ4: return ".lz4";
    case TRZ_DRF_SNAPPY: return ".sz";
    }
    return NULL;
}

/* ---- buffered input with an absolute position ----
 * Several of these may read one seekable io (the walker, the comparison,
 * the body writer): each seeks to its own place before every read. */
#define DIN_CAP (256u << 10)

typedef struct din {
    const trz_io *io;
    int64_t (*pull)(void *ctx, void *b, size_t n); /* a pipe: read through this instead */
    void *pctx;
    uint8_t *b;
    size_t len, at;   /* b[at..len) not yet taken */
    uint64_t pos;     /* offset of b[len] */
    uint64_t limit;   /* no reads at or past this offset (a window of io) */
    int eof, err;
    XXH3_state_t *h;  /* when set: every byte taken, in order */
    uint64_t taken;
} din;

static int din_init(din *d, const trz_io *io, uint64_t off)
{
    memset(d, 0, sizeof *d);
    d->io = io;
    d->pos = off;
    d->limit = UINT64_MAX;
    d->b = malloc(DIN_CAP);
    return d->b ? 0 : -1;
}

static void din_free(din *d)
{
    free(d->b);
    if (d->h) XXH3_freeState(d->h);
    d->b = NULL;
    d->h = NULL;
}

static uint64_t din_off(const din *d) { return d->pos - (d->len - d->at); }
static size_t din_avail(const din *d) { return d->len - d->at; }
static const uint8_t *din_ptr(const din *d) { return d->b + d->at; }

/* At least n bytes (n <= DIN_CAP) ready, unless the input ends first. */
static size_t din_fill(din *d, size_t n)
{
    if (din_avail(d) >= n || d->eof || d->err) return din_avail(d);
    size_t have = din_avail(d);
    memmove(d->b, d->b + d->at, have);
    d->len = have;
    d->at = 0;
    while (d->len < n && !d->eof) {
        size_t want = DIN_CAP - d->len;
        if (d->limit != UINT64_MAX) want = (size_t)MIN((uint64_t)want, d->limit > d->pos ? d->limit - d->pos : 0);
        if (want == 0) { d->eof = 1; break; }
        if (!d->pull && d->io->seek && d->io->seek(d->io->opaque, d->pos) != 0) { d->err = 1; break; }
        int64_t r = d->pull ? d->pull(d->pctx, d->b + d->len, want) : d->io->read(d->io->opaque, d->b + d->len, want);
        if (r < 0) { d->err = 1; break; }
        if (r == 0) { d->eof = 1; break; }
        d->len += (size_t)r;
        d->pos += (uint64_t)r;
    }
    return din_avail(d);
}

/* Read from off on.  What the buffer holds is used again: a plan's
 * operations come in file order, most a few bytes after the last, and a
 * fresh read of the buffer for each would make a zip of many small members
 * cost its size times their number. */
static void din_seek(din *d, uint64_t off)
{
    uint64_t start = d->pos - d->len;
    if (off >= start && off <= d->pos) {
        d->at = (size_t)(off - start);
        return;
    }
    d->pos = off;
    d->at = d->len = 0;
    d->eof = 0;
}

static void din_take(din *d, size_t n)
{
    if (d->h) XXH3_64bits_update(d->h, d->b + d->at, n);
    d->at += n;
    d->taken += n;
}

/* Pass over n bytes: without reading them when the input can seek. */
static int din_skip(din *d, uint64_t n)
{
    if (n <= din_avail(d)) { din_take(d, (size_t)n); return 0; }
    if (!d->h && !d->pull && d->io->seek) {
        d->pos = din_off(d) + n;
        d->at = d->len = 0;
        return 0;
    }
    while (n) {
        size_t av = din_fill(d, (size_t)MIN(n, (uint64_t)DIN_CAP));
        if (av == 0) return -1;
        size_t k = (size_t)MIN((uint64_t)av, n);
        din_take(d, k);
        n -= k;
    }
    return 0;
}

/* ---- CRC-32C (Castagnoli), masked as snappy's framing stores it ---- */
static uint32_t crc32c_table[256];

static void crc32c_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        crc32c_table[i] = c;
    }
}

static uint32_t crc32c(const uint8_t *p, size_t n)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, crc32c_init);
    const uint32_t *t = crc32c_table;
    uint32_t c = 0xffffffffu;
    while (n--) c = t[(c ^ *p++) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static uint32_t snappy_mask(uint32_t c) { return ((c >> 15) | (c << 17)) + 0xa282ead8u; }

/* ---- the walker: a container in, its records out ----
 * It reports to an optional listener what each stretch of the file is:
 * framing (kept as it is), and the start and end of each stream whose
 * decoded bytes are records.  A stream's end is reported after all its
 * records were handed out and before any of the next stream's. */
enum { ST_STORED = 1, ST_DEFLATE, ST_LZ4, ST_SNAPPY };
enum { W_HEAD, W_STREAM, W_AFTER, W_REST, W_DONE };
#define SNAPPY_BLOCK_MAX 65536u

typedef struct drw drw;
typedef struct drw_ev {
    void (*framing)(void *ctx, uint64_t off, uint64_t len);
    void (*begin)(void *ctx, const drw *w);
    void (*end)(void *ctx, const drw *w, uint64_t end, int ok);
} drw_ev;

struct drw {
    din *in;
    int kind, state;
    int stype;             /* the current stream */
    uint64_t s_off, s_recs;
    uint8_t s_par[2];      /* lz4: FLG, BD; snappy: chunk type */
    uint64_t left;         /* stored: bytes to go */
    int zdd, z64;          /* zip: a data descriptor follows; zip64 sizes */
    z_stream z;
    int zinit;
    LZ4F_dctx *lz;
    uint8_t *blk;          /* snappy: the chunk's block */
    size_t blk_len, blk_at;
    int end_pending, end_ok;
    uint64_t end_at;
    int lossy;             /* some of the file did not become records */
    const drw_ev *ev;
    void *ctx;
};

/* Framing of n bytes at the current place, taken (and reported) whole. */
static int frame(drw *w, uint64_t n)
{
    uint64_t off = din_off(w->in);
    if (din_skip(w->in, n)) {
        w->lossy = 1; /* cut short: what is there is framing too */
        n = din_off(w->in) - off;
        w->state = W_REST;
    }
    if (w->in->err) return TRZ_ERR_IO;
    if (n && w->ev) w->ev->framing(w->ctx, off, n);
    return TRZ_OK;
}

static void stream_begin(drw *w, int type)
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

static int begin_deflate(drw *w)
{
    if (w->zinit) { /* one inflater for every member: kept, reset */
        if (inflateReset(&w->z) != Z_OK) return TRZ_ERR_NOMEM;
    } else {
        memset(&w->z, 0, sizeof w->z);
        if (inflateInit2(&w->z, -15) != Z_OK) return TRZ_ERR_NOMEM;
        w->zinit = 1;
    }
    stream_begin(w, ST_DEFLATE);
    return TRZ_OK;
}

static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }
static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

/* zip: a local header, then its member's data; anything else (the central
 * directory first of all) ends the members.  Headers only say where the
 * data lies: what is rebuilt is checked byte for byte, so a header that
 * lies costs ratio, never bytes. */
static int zip_head(drw *w)
{
    din *in = w->in;
    size_t av = din_fill(in, 30);
    const uint8_t *p = din_ptr(in);
    if (in->err) return TRZ_ERR_IO;
    if (av < 30 || le32(p) != 0x04034b50u) { w->state = W_REST; return TRZ_OK; }
    unsigned flags = le16(p + 6), method = le16(p + 8), nlen = le16(p + 26), xlen = le16(p + 28);
    uint64_t csize = le32(p + 18), usize = le32(p + 22);
    size_t hl = 30 + (size_t)nlen + xlen;
    av = din_fill(in, hl);
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
    if (method == 8 && !(flags & 1)) return begin_deflate(w);
    if (method == 0 && !(flags & 1) && !w->zdd) {
        w->left = csize;
        stream_begin(w, ST_STORED);
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
    size_t av = din_fill(w->in, 24);
    if (w->in->err) return TRZ_ERR_IO;
    size_t n = (av >= 4 && le32(din_ptr(w->in)) == 0x08074b50u) ? 4 : 0;
    n += w->z64 ? 20 : 12;
    if (av < n) n = av, w->lossy = 1;
    return frame(w, n);
}

/* gzip: members of header, raw deflate, CRC-32 and length; anything after
 * the last member is kept. */
static int gz_header_len(const uint8_t *p, size_t av, size_t *hl)
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
    size_t av = din_fill(w->in, DIN_CAP), hl;
    if (w->in->err) return TRZ_ERR_IO;
    if (gz_header_len(din_ptr(w->in), av, &hl)) {
        if (av) w->lossy = 1;
        w->state = W_REST;
        return TRZ_OK;
    }
    int rc = frame(w, hl);
    return rc ? rc : begin_deflate(w);
}

static int gz_after(drw *w)
{
    size_t av = din_fill(w->in, 8);
    if (w->in->err) return TRZ_ERR_IO;
    w->state = W_HEAD;
    if (av < 8) w->lossy = 1;
    return frame(w, MIN(av, 8));
}

/* lz4: frames, and skippable frames (kept). */
static int lz4_head(drw *w)
{
    size_t av = din_fill(w->in, 8);
    const uint8_t *p = din_ptr(w->in);
    if (w->in->err) return TRZ_ERR_IO;
    if (av >= 4 && le32(p) == 0x184D2204u) {
        w->s_par[0] = av > 4 ? p[4] : 0;
        w->s_par[1] = av > 5 ? p[5] : 0;
        if (!w->lz && LZ4F_isError(LZ4F_createDecompressionContext(&w->lz, LZ4F_VERSION))) return TRZ_ERR_NOMEM;
        stream_begin(w, ST_LZ4);
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
    size_t av = din_fill(in, 4);
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
    av = din_fill(in, 4 + len);
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
    if (crc && snappy_mask(crc32c(w->blk, ul)) != le32(p + 4)) w->lossy = 1; /* records as they are; not rebuilt */
    w->s_par[0] = (uint8_t)t;
    w->blk_len = ul;
    w->blk_at = 0;
    stream_begin(w, ST_SNAPPY);
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
            size_t av = din_fill(in, 1);
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
        size_t av = din_fill(in, 1);
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
        size_t av = din_fill(in, 4);
        uint32_t sig = av >= 4 ? le32(din_ptr(in)) : 0;
        if (av && sig != 0x02014b50u && sig != 0x06054b50u && sig != 0x06064b50u) w->lossy = 1;
    } else if (din_fill(in, 1)) {
        w->lossy = 1;
    }
    for (;;) {
        size_t av = din_fill(in, DIN_CAP);
        if (in->err) return TRZ_ERR_IO;
        if (av == 0) break;
        din_take(in, av);
    }
    if (w->ev && din_off(in) > off) w->ev->framing(w->ctx, off, din_off(in) - off);
    w->state = W_DONE;
    return TRZ_OK;
}

static int64_t drw_read(drw *w, uint8_t *dst, size_t n)
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

static void drw_init(drw *w, din *in, int kind, const drw_ev *ev, void *ctx)
{
    memset(w, 0, sizeof *w);
    w->in = in;
    w->kind = kind;
    w->ev = ev;
    w->ctx = ctx;
}

static void drw_free(drw *w)
{
    if (w->zinit) inflateEnd(&w->z);
    if (w->lz) LZ4F_freeDecompressionContext(w->lz);
    free(w->blk);
    w->zinit = 0;
    w->lz = NULL;
    w->blk = NULL;
}

/* ---- recipe operations (FORMAT.md, "Restore block") ---- */
enum { OP_BYTES = 1, OP_COPY = 2, OP_DEFLATE = 3, OP_LZ4 = 4, OP_SNAPPY = 5 };

typedef struct drop {
    uint8_t code;
    uint8_t p[4];        /* deflate: level, window bits, memLevel, strategy; lz4: level, FLG, BD; snappy: with CRC */
    uint64_t off;        /* where its bytes begin in the original file */
    uint64_t n_in, n_out;
    uint64_t feed;       /* lz4: bytes per update call */
    uint64_t block, count; /* snappy */
    uint32_t check;
} drop;

/* An operation's header (all but a bytes operation's bytes) into b. */
static size_t op_put(const drop *o, uint8_t *b)
{
    trz_buf t = { b, 0, 64, 0 };
    trz_put_u8(&t, o->code);
    switch (o->code) {
    case OP_BYTES: trz_put_uvarint(&t, o->n_out); trz_put_uvarint(&t, o->n_in); break;
    case OP_COPY: trz_put_uvarint(&t, o->n_in); break;
    case OP_DEFLATE:
        trz_put_bytes(&t, o->p, 4);
        trz_put_uvarint(&t, o->n_in);
        trz_put_uvarint(&t, o->n_out);
        trz_put_le32(&t, o->check);
        break;
    case OP_LZ4:
        trz_put_bytes(&t, o->p, 3);
        trz_put_uvarint(&t, o->feed);
        trz_put_uvarint(&t, o->n_in);
        trz_put_uvarint(&t, o->n_out);
        trz_put_le32(&t, o->check);
        break;
    case OP_SNAPPY:
        trz_put_u8(&t, o->p[0]);
        trz_put_uvarint(&t, o->block);
        trz_put_uvarint(&t, o->count);
        trz_put_uvarint(&t, o->n_out);
        trz_put_le32(&t, o->check);
        break;
    }
    return t.n;
}

/* Parse an operation's header from the k bytes at b: its length, or 0 when
 * damaged, or -1 for an operation this version does not know. */
static int op_get(const uint8_t *b, size_t k, drop *o)
{
    trz_rd r;
    trz_rd_init(&r, b, k);
    memset(o, 0, sizeof *o);
    o->code = trz_get_u8(&r);
    switch (o->code) {
    case OP_BYTES: o->n_out = trz_get_uvarint(&r); o->n_in = trz_get_uvarint(&r); break;
    case OP_COPY: o->n_in = o->n_out = trz_get_uvarint(&r); break;
    case OP_DEFLATE:
        for (int i = 0; i < 4; i++) o->p[i] = trz_get_u8(&r);
        o->n_in = trz_get_uvarint(&r);
        o->n_out = trz_get_uvarint(&r);
        o->check = trz_get_le32(&r);
        if (o->p[0] < 1 || o->p[0] > 9 || o->p[1] < 9 || o->p[1] > 15 || o->p[2] < 1 || o->p[2] > 9 || o->p[3] > 4)
            return 0;
        break;
    case OP_LZ4:
        for (int i = 0; i < 3; i++) o->p[i] = trz_get_u8(&r);
        o->feed = trz_get_uvarint(&r);
        o->n_in = trz_get_uvarint(&r);
        o->n_out = trz_get_uvarint(&r);
        o->check = trz_get_le32(&r);
        /* FLG: version 01, no dictionary, reserved bit clear; BD: a block size 4..7, reserved bits clear */
        if ((o->p[1] & 0xc3) != 0x40 || (o->p[2] & 0x8f) || (o->p[2] >> 4) < 4 || o->feed < 1 || o->feed > (8u << 20))
            return 0;
        break;
    case OP_SNAPPY:
        o->p[0] = trz_get_u8(&r);
        o->block = trz_get_uvarint(&r);
        o->count = trz_get_uvarint(&r);
        o->n_out = trz_get_uvarint(&r);
        o->check = trz_get_le32(&r);
        if (o->p[0] > 1 || o->block < 1 || o->block > SNAPPY_BLOCK_MAX || o->count < 1 ||
            o->count > UINT64_MAX / o->block)
            return 0;
        o->n_in = o->block * o->count;
        break;
    default: return -1;
    }
    return r.err ? 0 : (int)(r.p - b);
}

/* ---- the rebuilder: records in, a stream's original bytes out ----
 * The same code checks a stream at compression time and rebuilds it at
 * restore time, so what was checked is what comes back. */
typedef int (*drsink)(void *ctx, const uint8_t *p, size_t n); /* 0, or -1 to stop */

typedef struct drrb {
    drop op;
    drsink sink;
    void *sctx;
    z_stream z;
    int zinit;
    LZ4F_cctx *lc;
    uint8_t *in;        /* lz4: input gathered to the feed size; snappy: the block */
    size_t in_len;
    uint8_t *out;
    size_t outcap;
    uint64_t fed, made;
    XXH3_state_t *h;
    int stop, fail;     /* the sink stopped it; the library failed */
} drrb;

static int rb_emit(drrb *b, const uint8_t *p, size_t n)
{
    if (b->stop) return -1;
    if (!n) return 0;
    XXH3_64bits_update(b->h, p, n);
    b->made += n;
    if (b->sink(b->sctx, p, n)) b->stop = 1;
    return b->stop ? -1 : 0;
}

static void lz4_prefs(const drop *o, LZ4F_preferences_t *pr)
{
    memset(pr, 0, sizeof *pr);
    pr->frameInfo.blockSizeID = (LZ4F_blockSizeID_t)(o->p[2] >> 4);
    pr->frameInfo.blockMode = (o->p[1] & 0x20) ? LZ4F_blockIndependent : LZ4F_blockLinked;
    pr->frameInfo.blockChecksumFlag = (o->p[1] & 0x10) ? LZ4F_blockChecksumEnabled : LZ4F_noBlockChecksum;
    pr->frameInfo.contentSize = (o->p[1] & 0x08) ? o->n_in : 0;
    pr->frameInfo.contentChecksumFlag = (o->p[1] & 0x04) ? LZ4F_contentChecksumEnabled : LZ4F_noContentChecksum;
    pr->compressionLevel = (int8_t)o->p[0];
}

static void rb_free(drrb *b)
{
    if (b->zinit) deflateEnd(&b->z);
    if (b->lc) LZ4F_freeCompressionContext(b->lc);
    if (b->h) XXH3_freeState(b->h);
    free(b->in);
    free(b->out);
    memset(b, 0, sizeof *b);
}

static int rb_start(drrb *b, const drop *o, drsink sink, void *ctx)
{
    memset(b, 0, sizeof *b);
    b->op = *o;
    b->sink = sink;
    b->sctx = ctx;
    if (!(b->h = XXH3_createState()) || XXH3_64bits_reset(b->h) != XXH_OK) return TRZ_ERR_NOMEM;
    if (o->code == OP_DEFLATE) {
        b->outcap = 1u << 16;
        if (!(b->out = malloc(b->outcap))) return TRZ_ERR_NOMEM;
        if (deflateInit2(&b->z, o->p[0], Z_DEFLATED, -(int)o->p[1], o->p[2], o->p[3]) != Z_OK) return TRZ_ERR_NOMEM;
        b->zinit = 1;
        return TRZ_OK;
    }
    if (o->code == OP_LZ4) {
        LZ4F_preferences_t pr;
        lz4_prefs(o, &pr);
        if (LZ4F_isError(LZ4F_createCompressionContext(&b->lc, LZ4F_VERSION))) return TRZ_ERR_NOMEM;
        b->outcap = LZ4F_compressBound((size_t)o->feed, &pr) + LZ4F_HEADER_SIZE_MAX;
        if (!(b->in = malloc((size_t)o->feed)) || !(b->out = malloc(b->outcap))) return TRZ_ERR_NOMEM;
        size_t r = LZ4F_compressBegin(b->lc, b->out, b->outcap, &pr);
        if (LZ4F_isError(r)) { b->fail = 1; return TRZ_OK; } /* settings liblz4 refuses: no match */
        rb_emit(b, b->out, r);
        return TRZ_OK;
    }
    b->outcap = snappy_max_compressed_length((size_t)o->block) + 8;
    if (!(b->in = malloc((size_t)o->block)) || !(b->out = malloc(b->outcap))) return TRZ_ERR_NOMEM;
    return TRZ_OK;
}

/* One snappy framing chunk of the gathered block: compressed when that is
 * shorter, as DynamoRIO's writer decides. */
static void rb_snappy_chunk(drrb *b)
{
    size_t n = b->in_len, clen = b->outcap - 8, crc = b->op.p[0] ? 4 : 0;
    uint8_t h[8];
    if (snappy_compress((const char *)b->in, n, (char *)b->out + 8, &clen) != SNAPPY_OK) { b->fail = 1; return; }
    int packed = clen < n;
    size_t dlen = packed ? clen : n;
    uint32_t type = (packed ? 0 : 1) + (crc ? 0 : 2);
    trz_st_le32(h, (uint32_t)((dlen + crc) << 8) | type); /* the type, then the 24-bit length */
    if (crc) trz_st_le32(h + 4, snappy_mask(crc32c(b->in, n)));
    if (rb_emit(b, h, 4 + crc) == 0) rb_emit(b, packed ? b->out + 8 : b->in, dlen);
    b->in_len = 0;
}

static int rb_feed(drrb *b, const uint8_t *p, size_t n)
{
    b->fed += n;
    while (n && !b->stop && !b->fail) {
        if (b->op.code == OP_DEFLATE) {
            b->z.next_in = (Bytef *)p;
            b->z.avail_in = (uInt)MIN(n, 1u << 30);
            size_t given = b->z.avail_in;
            while (b->z.avail_in && !b->stop) {
                b->z.next_out = b->out;
                b->z.avail_out = (uInt)b->outcap;
                if (deflate(&b->z, Z_NO_FLUSH) == Z_STREAM_ERROR) { b->fail = 1; break; }
                rb_emit(b, b->out, b->outcap - b->z.avail_out);
            }
            p += given;
            n -= given;
            continue;
        }
        size_t want = (size_t)(b->op.code == OP_LZ4 ? b->op.feed : b->op.block);
        size_t k = MIN(n, want - b->in_len);
        memcpy(b->in + b->in_len, p, k);
        b->in_len += k;
        p += k;
        n -= k;
        if (b->in_len < want) break;
        if (b->op.code == OP_SNAPPY) {
            rb_snappy_chunk(b);
            continue;
        }
        size_t r = LZ4F_compressUpdate(b->lc, b->out, b->outcap, b->in, b->in_len, NULL);
        b->in_len = 0;
        if (LZ4F_isError(r)) b->fail = 1;
        else rb_emit(b, b->out, r);
    }
    return b->stop || b->fail ? -1 : 0;
}

/* The stream's last bytes; 0 when it came out whole. */
static int rb_finish(drrb *b)
{
    if (b->stop || b->fail) return -1;
    if (b->op.code == OP_DEFLATE) {
        int rc;
        do {
            b->z.next_out = b->out;
            b->z.avail_out = (uInt)b->outcap;
            rc = deflate(&b->z, Z_FINISH);
            if (rc == Z_STREAM_ERROR) { b->fail = 1; break; }
            rb_emit(b, b->out, b->outcap - b->z.avail_out);
        } while (rc == Z_OK && !b->stop);
    } else if (b->op.code == OP_LZ4) {
        size_t r = b->in_len ? LZ4F_compressUpdate(b->lc, b->out, b->outcap, b->in, b->in_len, NULL) : 0;
        if (LZ4F_isError(r)) b->fail = 1;
        else if (rb_emit(b, b->out, r) == 0) {
            r = LZ4F_compressEnd(b->lc, b->out, b->outcap, NULL);
            if (LZ4F_isError(r)) b->fail = 1;
            else rb_emit(b, b->out, r);
        }
    } else if (b->in_len) {
        b->fail = 1; /* a snappy run is whole blocks */
    }
    return b->stop || b->fail ? -1 : 0;
}

/* ---- the plan ---- */
/* The settings tried, the first ones first: DynamoRIO's writers, then the
 * other zlib levels (Python's zipfile, zlib's gzip), then other memLevels. */
static const uint8_t deflate_tries[][4] = {
    { 6, 15, 8, 0 }, { 9, 15, 8, 0 }, { 1, 15, 8, 0 }, { 5, 15, 8, 0 }, { 4, 15, 8, 0 }, { 3, 15, 8, 0 },
    { 2, 15, 8, 0 }, { 7, 15, 8, 0 }, { 8, 15, 8, 0 }, { 6, 15, 9, 0 }, { 9, 15, 9, 0 }, { 1, 15, 9, 0 },
};
/* lz4: (level, bytes per update call); 0 = the frame's block size.
 * DynamoRIO's lz4_ostream_t hands liblz4 1 MiB at a time at level 0; the
 * lz4 tool a block at a time; 8 MiB stands for a frame made in one call
 * (LZ4F_compressFrame) of up to that size. */
static const struct { int8_t level; uint32_t feed; } lz4_tries[] = {
    { 0, 1u << 20 }, { 0, 0 }, { 0, (1u << 20) - 1 }, { 9, 1u << 20 }, { 9, 0 }, { 0, 8u << 20 },
};

struct trz_drplan {
    int kind;
    drop *ops;
    size_t nops, cap;
    uint64_t size, hash, records, rhash, body;
    const trz_io *io;
    int rc;             /* the first failure (I/O, memory) */
    /* the stream being read */
    drrb rb;
    int rb_on;
    din cmp;            /* the original bytes the rebuilder's output is compared with */
    uint64_t budget;    /* bytes of retries left */
};

static int cmp_sink(void *ctx, const uint8_t *p, size_t n)
{
    din *d = ctx;
    while (n) {
        size_t av = din_fill(d, MIN(n, DIN_CAP));
        if (av == 0) return -1;
        size_t k = MIN(av, n);
        if (memcmp(din_ptr(d), p, k) != 0) return -1;
        din_take(d, k);
        p += k;
        n -= k;
    }
    return 0;
}

static void add_op(trz_drplan *p, const drop *o)
{
    drop *l = p->nops ? &p->ops[p->nops - 1] : NULL;
    if (l && l->code == OP_BYTES && o->code == OP_BYTES && l->off + l->n_out == o->off) {
        l->n_out += o->n_out;
        l->n_in += o->n_in;
        return;
    }
    if (l && l->code == OP_SNAPPY && o->code == OP_SNAPPY && l->p[0] == o->p[0] && l->block == o->block &&
        l->off + l->n_out == o->off) {
        l->count++;
        l->n_in += o->n_in;
        l->n_out += o->n_out;
        return;
    }
    if (o->code == OP_BYTES && !o->n_out && !o->n_in) return;
    if (p->nops == p->cap) {
        size_t nc = p->cap ? 2 * p->cap : 16;
        drop *no = realloc(p->ops, nc * sizeof *no);
        if (!no) { p->rc = TRZ_ERR_NOMEM; return; }
        p->ops = no;
        p->cap = nc;
    }
    p->ops[p->nops++] = *o;
}

static void ev_framing(void *ctx, uint64_t off, uint64_t len)
{
    drop o = { .code = OP_BYTES, .off = off, .n_out = len };
    add_op(ctx, &o);
}

/* Start rebuilding the stream under way with o, comparing with the file. */
static int try_start(trz_drplan *p, const drop *o, uint64_t off)
{
    if (!p->cmp.b && din_init(&p->cmp, p->io, off)) return TRZ_ERR_NOMEM;
    din_seek(&p->cmp, off);
    int rc = rb_start(&p->rb, o, cmp_sink, &p->cmp);
    p->rb_on = rc == TRZ_OK;
    return rc;
}

static void lz4_try(const drw *w, int i, drop *o)
{
    static const uint32_t bsize[8] = { 0, 0, 0, 0, 64u << 10, 256u << 10, 1u << 20, 4u << 20 };
    memset(o, 0, sizeof *o);
    o->code = OP_LZ4;
    o->p[0] = (uint8_t)lz4_tries[i].level;
    o->p[1] = w->s_par[0];
    o->p[2] = w->s_par[1];
    o->feed = lz4_tries[i].feed ? lz4_tries[i].feed : bsize[(w->s_par[1] >> 4) & 7];
}

static int lz4_ok(const drw *w)
{
    uint8_t f = w->s_par[0], bd = w->s_par[1];
    return (f & 0xc3) == 0x40 && !(bd & 0x8f) && (bd >> 4) >= 4;
}

static void ev_begin(void *ctx, const drw *w)
{
    trz_drplan *p = ctx;
    drop o;
    memset(&o, 0, sizeof o);
    if (w->stype == ST_DEFLATE) {
        o.code = OP_DEFLATE;
        memcpy(o.p, deflate_tries[0], 4);
    } else if (w->stype == ST_LZ4 && lz4_ok(w)) {
        lz4_try(w, 0, &o);
    } else if (w->stype == ST_SNAPPY) {
        o.code = OP_SNAPPY;
        o.p[0] = w->s_par[0] < 2;
        o.block = w->blk_len;
        o.count = 1;
    }
    if (o.code == OP_SNAPPY && !o.block) o.code = 0; /* an empty block: kept */
    if (o.code) {
        int rc = try_start(p, &o, w->s_off);
        if (rc) p->rc = rc;
    }
}

/* Retry a stream [off, end) with settings o: decode it again from the
 * file and rebuild; 1 when every byte came back. */
static int retry(trz_drplan *p, const drw *w, const drop *o, uint64_t off, uint64_t end, uint64_t n_in)
{
    din src;
    drw r;
    uint8_t *buf = malloc(1u << 16);
    if (!buf || din_init(&src, p->io, off)) { free(buf); p->rc = TRZ_ERR_NOMEM; return 0; }
    src.limit = end;
    drw_init(&r, &src, 0, NULL, NULL);
    int ok = 0, rc = TRZ_OK;
    if (w->stype == ST_DEFLATE) rc = begin_deflate(&r);
    else if (LZ4F_isError(LZ4F_createDecompressionContext(&r.lz, LZ4F_VERSION))) rc = TRZ_ERR_NOMEM;
    else stream_begin(&r, ST_LZ4);
    if (!rc) rc = try_start(p, o, off);
    while (!rc) {
        int64_t k = drw_read(&r, buf, 1u << 16);
        if (k < 0) { rc = (int)k; break; }
        if (k == 0) break;
        p->budget -= MIN(p->budget, (uint64_t)k);
        if (rb_feed(&p->rb, buf, (size_t)k) || !p->budget) break;
    }
    if (rc) p->rc = rc;
    else ok = r.end_ok && rb_finish(&p->rb) == 0 && p->rb.made == end - off && p->rb.fed == n_in;
    rb_free(&p->rb);
    p->rb_on = 0;
    drw_free(&r);
    din_free(&src);
    free(buf);
    return ok;
}

static void ev_end(void *ctx, const drw *w, uint64_t end, int ok)
{
    trz_drplan *p = ctx;
    drop o = { .off = w->s_off, .n_in = w->s_recs, .n_out = end - w->s_off };
    if (w->stype == ST_STORED) {
        o.code = OP_COPY;
        add_op(p, &o);
        return;
    }
    int done = 0;
    if (p->rb_on) {
        done = ok && rb_finish(&p->rb) == 0 && p->rb.made == o.n_out && p->rb.fed == o.n_in;
        drop t = p->rb.op;
        rb_free(&p->rb);
        p->rb_on = 0;
        if (done) {
            t.off = o.off;
            t.n_in = o.n_in;
            t.n_out = o.n_out;
            o = t;
        }
    }
    /* other settings: each read again from the file, within a budget */
    size_t ntries = w->stype == ST_DEFLATE ? sizeof deflate_tries / sizeof deflate_tries[0]
                  : w->stype == ST_LZ4 && lz4_ok(w) ? sizeof lz4_tries / sizeof lz4_tries[0] : 0;
    p->budget = 4 * o.n_in + (16u << 20);
    for (size_t i = 1; i < ntries && ok && !done && p->budget && !p->rc; i++) {
        drop t = o;
        if (w->stype == ST_DEFLATE) {
            t.code = OP_DEFLATE;
            memcpy(t.p, deflate_tries[i], 4);
        } else {
            lz4_try(w, (int)i, &t);
            t.off = o.off, t.n_in = o.n_in, t.n_out = o.n_out;
        }
        if (retry(p, w, &t, o.off, end, o.n_in)) { o = t; done = 1; }
    }
    if (!done) o.code = OP_BYTES; /* kept as it is, standing for its records */
    add_op(p, &o);
}

static const drw_ev plan_ev = { ev_framing, ev_begin, ev_end };

static uint64_t op_size(const drop *o)
{
    uint8_t b[64];
    return op_put(o, b) + (o->code == OP_BYTES ? o->n_out : 0);
}

/* Each rebuilt operation's check: the XXH3 of the original bytes it gives
 * back (the same bytes, since they were compared). */
static int plan_checks(trz_drplan *p)
{
    din d;
    if (din_init(&d, p->io, 0)) return TRZ_ERR_NOMEM;
    XXH3_state_t *h = XXH3_createState();
    int rc = h ? TRZ_OK : TRZ_ERR_NOMEM;
    for (size_t i = 0; i < p->nops && !rc; i++) {
        drop *o = &p->ops[i];
        if (o->code != OP_DEFLATE && o->code != OP_LZ4 && o->code != OP_SNAPPY) continue;
        din_seek(&d, o->off);
        XXH3_64bits_reset(h);
        for (uint64_t left = o->n_out; left && !rc;) {
            size_t av = din_fill(&d, (size_t)MIN(left, (uint64_t)DIN_CAP));
            if (av == 0) { rc = TRZ_ERR_IO; break; }
            size_t k = (size_t)MIN((uint64_t)av, left);
            XXH3_64bits_update(h, din_ptr(&d), k);
            din_take(&d, k);
            left -= k;
        }
        o->check = (uint32_t)XXH3_64bits_digest(h);
    }
    if (h) XXH3_freeState(h);
    din_free(&d);
    return rc;
}

int trz_drplan_make(trz_drplan **out, const trz_io *io, int kind, char *err, size_t errlen)
{
    trz_drplan *p = *out = calloc(1, sizeof *p);
    if (!p) return TRZ_ERR_NOMEM;
    p->kind = kind;
    p->io = io;
    din in;
    drw w;
    memset(&in, 0, sizeof in);
    uint8_t *buf = malloc(1u << 20);
    XXH3_state_t *rh = XXH3_createState();
    int rc = buf && rh && din_init(&in, io, 0) == 0 ? TRZ_OK : TRZ_ERR_NOMEM;
    if (!rc && (!(in.h = XXH3_createState()) || XXH3_64bits_reset(in.h) != XXH_OK)) rc = TRZ_ERR_NOMEM;
    if (!rc) XXH3_64bits_reset(rh);
    drw_init(&w, &in, kind, &plan_ev, p);
    while (!rc && !p->rc) {
        int64_t k = drw_read(&w, buf, 1u << 20);
        if (k < 0) { rc = (int)k; break; }
        if (k == 0) break;
        XXH3_64bits_update(rh, buf, (size_t)k);
        p->records += (uint64_t)k;
        if (p->rb_on) rb_feed(&p->rb, buf, (size_t)k);
    }
    if (!rc) rc = p->rc;
    if (!rc) {
        p->size = in.taken;
        p->hash = XXH3_64bits_digest(in.h);
        p->rhash = XXH3_64bits_digest(rh);
        rc = plan_checks(p);
    }
    for (size_t i = 0; i < p->nops; i++) p->body += op_size(&p->ops[i]);
    if (p->rb_on) rb_free(&p->rb);
    drw_free(&w);
    if (in.b) din_free(&in);
    din_free(&p->cmp);
    if (rh) XXH3_freeState(rh);
    free(buf);
    if (rc && err) snprintf(err, errlen, "reading the %s file: %s", trz_drfile_name(kind),
                            rc == TRZ_ERR_IO ? strerror(errno) : trz_strerror(rc));
    return rc;
}

void trz_drplan_free(trz_drplan *p)
{
    if (!p) return;
    free(p->ops);
    free(p);
}

void trz_drplan_totals(const trz_drplan *p, uint64_t *size, uint64_t *hash, uint64_t *records, uint64_t *rhash,
                       uint64_t *body)
{
    *size = p->size;
    *hash = p->hash;
    *records = p->records;
    *rhash = p->rhash;
    *body = p->body;
}

/* The body goes out in pieces of up to 64 KiB, not an operation's few
 * bytes at a time: a zip's members are three operations each. */
typedef struct gather {
    int (*emit)(void *, const void *, size_t);
    void *ctx;
    uint8_t *b;
    size_t n;
} gather;
#define GATHER_CAP (64u << 10)

static int gather_flush(gather *g)
{
    size_t n = g->n;
    g->n = 0;
    return n && g->emit(g->ctx, g->b, n) ? -1 : 0;
}

static int gather_put(gather *g, const uint8_t *p, size_t n)
{
    if (n > GATHER_CAP - g->n && gather_flush(g)) return -1;
    if (n >= GATHER_CAP) return g->emit(g->ctx, p, n) ? -1 : 0;
    memcpy(g->b + g->n, p, n);
    g->n += n;
    return 0;
}

int trz_drplan_write(const trz_drplan *p, const trz_io *io, int (*emit)(void *, const void *, size_t), void *ctx)
{
    din d;
    gather g = { emit, ctx, malloc(GATHER_CAP), 0 };
    if (!g.b || din_init(&d, io, 0)) { free(g.b); return TRZ_ERR_NOMEM; }
    int rc = TRZ_OK;
    for (size_t i = 0; i < p->nops && !rc; i++) {
        const drop *o = &p->ops[i];
        uint8_t h[64];
        if (gather_put(&g, h, op_put(o, h))) { rc = TRZ_ERR_IO; break; }
        if (o->code != OP_BYTES) continue;
        din_seek(&d, o->off);
        for (uint64_t left = o->n_out; left && !rc;) {
            size_t av = din_fill(&d, (size_t)MIN(left, (uint64_t)DIN_CAP));
            if (av == 0) { rc = TRZ_ERR_IO; break; } /* the file changed under us */
            size_t k = (size_t)MIN((uint64_t)av, left);
            if (gather_put(&g, din_ptr(&d), k)) rc = TRZ_ERR_IO;
            din_take(&d, k);
            left -= k;
        }
    }
    if (!rc && gather_flush(&g)) rc = TRZ_ERR_IO;
    din_free(&d);
    free(g.b);
    return rc;
}

/* ---- the records of a container ---- */
struct trz_drsrc {
    din in;
    drw w;
    XXH3_state_t *rh;
    uint64_t records;
};

trz_drsrc *trz_drsrc_open(int kind, const trz_io *io, int64_t (*pull)(void *, void *, size_t), void *ctx)
{
    trz_drsrc *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    if (din_init(&s->in, io, 0) || !(s->in.h = XXH3_createState()) || !(s->rh = XXH3_createState())) {
        trz_drsrc_close(s);
        return NULL;
    }
    s->in.pull = pull;
    s->in.pctx = ctx;
    XXH3_64bits_reset(s->in.h);
    XXH3_64bits_reset(s->rh);
    drw_init(&s->w, &s->in, kind, NULL, NULL);
    return s;
}

int64_t trz_drsrc_read(trz_drsrc *s, uint8_t *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        int64_t k = drw_read(&s->w, dst + got, n - got);
        if (k < 0) return k;
        if (k == 0) break;
        XXH3_64bits_update(s->rh, dst + got, (size_t)k);
        got += (size_t)k;
    }
    s->records += got;
    return (int64_t)got;
}

void trz_drsrc_totals(const trz_drsrc *s, uint64_t *size, uint64_t *hash, uint64_t *records, uint64_t *rhash,
                      int *lossy)
{
    *size = s->in.taken;
    *hash = XXH3_64bits_digest(s->in.h);
    *records = s->records;
    *rhash = XXH3_64bits_digest(s->rh);
    *lossy = s->w.lossy;
}

void trz_drsrc_close(trz_drsrc *s)
{
    if (!s) return;
    drw_free(&s->w);
    din_free(&s->in);
    if (s->rh) XXH3_freeState(s->rh);
    free(s);
}

/* ---- restoring ---- */
typedef struct rin { /* the records, handed out in pieces */
    trz_drview_fn view;
    void *ctx;
    const uint8_t *p;
    size_t n;
    uint64_t used;
} rin;

static int64_t rin_get(rin *r, const uint8_t **p, uint64_t max)
{
    if (r->n == 0) {
        const void *v;
        int64_t g = r->view(r->ctx, &v, SIZE_MAX);
        if (g <= 0) return g;
        r->p = v;
        r->n = (size_t)g;
    }
    size_t k = (size_t)MIN((uint64_t)r->n, max);
    *p = r->p;
    r->p += k;
    r->n -= k;
    r->used += k;
    return (int64_t)k;
}

typedef struct rout { /* the original file, as it is written */
    const trz_io *io;
    XXH3_state_t *h;
    uint64_t n, size;
    int full, ioerr;
    gather g; /* written in pieces of 64 KiB, not a member's few bytes at a time */
} rout;

static int rout_emit(void *ctx, const void *p, size_t n)
{
    rout *o = ctx;
    if (o->io->write(o->io->opaque, p, n) != (int64_t)n) { o->ioerr = 1; return -1; }
    return 0;
}

static int rout_write(void *ctx, const uint8_t *p, size_t n)
{
    rout *o = ctx;
    if (n > o->size - o->n) { o->full = 1; return -1; } /* longer than the original: wrong already */
    if (gather_put(&o->g, p, n)) { o->ioerr = 1; return -1; }
    XXH3_64bits_update(o->h, p, n);
    o->n += n;
    return 0;
}

static const char *op_name(int code)
{
    static const char *const n[] = { "?", "kept bytes", "stored bytes", "deflate", "lz4 frame", "snappy chunks" };
    return code >= OP_BYTES && code <= OP_SNAPPY ? n[code] : n[0];
}

#define RERR(rc_, ...) (snprintf(err, errlen, __VA_ARGS__), (rc_))

/* Feed n record bytes to sink (NULL: pass over them). */
static int take_records(rin *r, uint64_t n, int (*sink)(void *, const uint8_t *, size_t), void *ctx, int *ended)
{
    while (n) {
        const uint8_t *p;
        int64_t g = rin_get(r, &p, n);
        if (g < 0) return (int)g;
        if (g == 0) { *ended = 1; return TRZ_ERR_CORRUPT; }
        if (sink && sink(ctx, p, (size_t)g)) return 1;
        n -= (uint64_t)g;
    }
    return TRZ_OK;
}

static int rb_sink_feed(void *ctx, const uint8_t *p, size_t n) { return rb_feed(ctx, p, n); }

int trz_drfile_restore(const trz_io *body, uint64_t body_len, uint64_t size, uint64_t hash, uint64_t records,
                       trz_drview_fn view, void *vctx, const trz_io *out, char *err, size_t errlen)
{
    din d;
    *err = 0;
    if (din_init(&d, body, 0)) return RERR(TRZ_ERR_NOMEM, "out of memory");
    d.limit = body_len;
    rin r = { view, vctx, NULL, 0, 0 };
    rout o = { out, XXH3_createState(), 0, size, 0, 0, { rout_emit, NULL, malloc(GATHER_CAP), 0 } };
    o.g.ctx = &o;
    int rc = o.h && o.g.b ? TRZ_OK : RERR(TRZ_ERR_NOMEM, "out of memory");
    if (o.h) XXH3_64bits_reset(o.h);
    uint64_t in_total = 0;
    for (size_t step = 1; !rc && din_off(&d) < body_len; step++) {
        drop op;
        size_t av = din_fill(&d, 64);
        int hl = av ? op_get(din_ptr(&d), av, &op) : 0;
        if (d.err) { rc = RERR(TRZ_ERR_IO, "reading the restore data: %s", strerror(errno)); break; }
        if (hl < 0) {
            rc = RERR(TRZ_ERR_UNSUPPORTED, "the restore data uses step kind %u, which this trz does not know "
                      "(a newer trz wrote it)", din_ptr(&d)[0]);
            break;
        }
        if (hl == 0 || op.n_in > records - in_total ||
            (op.code == OP_BYTES && op.n_out > body_len - din_off(&d) - (uint64_t)hl)) {
            rc = RERR(TRZ_ERR_CORRUPT, "the restore data is damaged (step %zu)", step);
            break;
        }
        din_take(&d, (size_t)hl);
        in_total += op.n_in;
        int ended = 0, differs = 0;
        if (op.code == OP_BYTES) {
            for (uint64_t left = op.n_out; left;) {
                size_t k = din_fill(&d, (size_t)MIN(left, (uint64_t)DIN_CAP));
                if (k == 0) { rc = d.err ? TRZ_ERR_IO : TRZ_ERR_TRUNCATED; break; }
                k = (size_t)MIN((uint64_t)k, left);
                if (rout_write(&o, din_ptr(&d), k)) break;
                din_take(&d, k);
                left -= k;
            }
            if (!rc && !o.full && !o.ioerr) rc = take_records(&r, op.n_in, NULL, NULL, &ended);
        } else if (op.code == OP_COPY) {
            rc = take_records(&r, op.n_in, rout_write, &o, &ended);
        } else {
            drrb b;
            rc = rb_start(&b, &op, rout_write, &o);
            if (!rc) rc = take_records(&r, op.n_in, rb_sink_feed, &b, &ended);
            if (!rc && rb_finish(&b)) rc = 1;
            differs = rc == 1 || (!rc && (b.made != op.n_out || (uint32_t)XXH3_64bits_digest(b.h) != op.check));
            rb_free(&b);
        }
        if (o.ioerr) rc = RERR(TRZ_ERR_IO, "write error: %s", strerror(errno));
        else if (o.full) rc = RERR(TRZ_ERR_CHECKSUM, "the restored file would be longer than the original");
        else if (differs)
            rc = RERR(TRZ_ERR_CHECKSUM, "step %zu (%s, %llu bytes): the rebuilt bytes differ from the original's "
                      "(this %s differs from the one that compressed; trz -dc gives the records)", step,
                      op_name(op.code), (unsigned long long)op.n_out,
                      op.code == OP_DEFLATE ? "zlib" : op.code == OP_LZ4 ? "liblz4" : "libsnappy");
        else if (ended) rc = RERR(TRZ_ERR_CORRUPT, "the archive's records end before its restore data does");
        else if (rc == TRZ_ERR_TRUNCATED) rc = RERR(rc, "the restore data is cut short");
        else if (rc == TRZ_ERR_IO) rc = RERR(rc, "reading the restore data: %s", strerror(errno));
        else if (rc) rc = RERR(rc, "%s", trz_strerror(rc));
    }
    if (!rc && gather_flush(&o.g)) rc = RERR(TRZ_ERR_IO, "write error: %s", strerror(errno));
    if (!rc) {
        const uint8_t *p;
        int64_t g = rin_get(&r, &p, 1);
        if (g < 0) rc = RERR((int)g, "%s", trz_strerror((int)g));
        else if (g > 0 || in_total != records)
            rc = RERR(TRZ_ERR_CORRUPT, "the restore data does not use all of the archive's records");
        else if (o.n != size || XXH3_64bits_digest(o.h) != hash)
            rc = RERR(TRZ_ERR_CHECKSUM, "the restored file does not match the original's size and checksum");
    }
    if (o.h) XXH3_freeState(o.h);
    free(o.g.b);
    din_free(&d);
    return rc;
}

int trz_drfile_describe(const trz_io *body, uint64_t body_len, int kind, char *how, size_t cap, uint64_t *kept)
{
    din d;
    *kept = 0;
    snprintf(how, cap, "?");
    if (din_init(&d, body, 0)) return TRZ_ERR_NOMEM;
    d.limit = body_len;
    uint64_t n[6] = { 0 }, kept_in = 0;
    unsigned levels = 0, lz4levels = 0;
    int rc = TRZ_OK;
    while (din_off(&d) < body_len) {
        drop op;
        size_t av = din_fill(&d, 64);
        int hl = av ? op_get(din_ptr(&d), av, &op) : 0;
        if (hl <= 0) { rc = hl < 0 ? TRZ_ERR_UNSUPPORTED : TRZ_ERR_CORRUPT; break; }
        din_take(&d, (size_t)hl);
        n[op.code] += op.code == OP_SNAPPY ? op.count : 1;
        if (op.code == OP_DEFLATE) levels |= 1u << op.p[0];
        if (op.code == OP_LZ4) lz4levels |= 1u << ((int8_t)op.p[0] & 15);
        if (op.code == OP_BYTES) {
            *kept += op.n_out;
            kept_in += op.n_in;
            if (op.n_out > body_len - din_off(&d) || din_skip(&d, op.n_out)) { rc = TRZ_ERR_CORRUPT; break; }
        }
    }
    din_free(&d);
    if (rc) {
        snprintf(how, cap, rc == TRZ_ERR_UNSUPPORTED ? "restore data of a newer trz" : "restore data damaged");
        return rc;
    }
    uint64_t rebuilt = n[OP_COPY] + n[OP_DEFLATE] + n[OP_LZ4] + n[OP_SNAPPY];
    if (!rebuilt) {
        snprintf(how, cap, "kept as is");
        return TRZ_OK;
    }
    char lv[64] = "";
    size_t k = 0;
    for (unsigned i = 0; i < 16; i++)
        if ((kind == TRZ_DRF_LZ4 ? lz4levels : levels) >> i & 1)
            k += (size_t)snprintf(lv + k, sizeof lv - k, "%s%u", k ? "/" : "", i);
    const char *pre = kept_in ? "partly rebuilt" : "rebuilt";
    unsigned long long m = (unsigned long long)(n[OP_COPY] + n[OP_DEFLATE]);
    switch (kind) {
    case TRZ_DRF_ZIP:
        k = (size_t)snprintf(how, cap, "%s: zip, ", pre);
        if (n[OP_DEFLATE]) k += (size_t)snprintf(how + k, k < cap ? cap - k : 0, "deflate %s, ", lv);
        if (n[OP_COPY]) k += (size_t)snprintf(how + k, k < cap ? cap - k : 0, "%llu stored, ", (unsigned long long)n[OP_COPY]);
        snprintf(how + k, k < cap ? cap - k : 0, "%llu member%s", m, m == 1 ? "" : "s");
        break;
    case TRZ_DRF_GZIP:
        snprintf(how, cap, "%s: gzip, deflate %s%s", pre, lv, n[OP_DEFLATE] > 1 ? ", several members" : "");
        break;
    case TRZ_DRF_LZ4:
        snprintf(how, cap, "%s: lz4, level %s, %llu frame%s", pre, lv, (unsigned long long)n[OP_LZ4],
                 n[OP_LZ4] == 1 ? "" : "s");
        break;
    default:
        snprintf(how, cap, "%s: snappy, %llu chunk%s", pre, (unsigned long long)n[OP_SNAPPY], n[OP_SNAPPY] == 1 ? "" : "s");
        break;
    }
    if (kept_in) {
        size_t l = strlen(how);
        snprintf(how + l, l < cap ? cap - l : 0, "; streams of %llu record bytes kept as is", (unsigned long long)kept_in);
    }
    return TRZ_OK;
}

/* ---- recognising a container ---- */
int trz_drfile_magic(const uint8_t *p, size_t n)
{
    if (n >= 4 && p[0] == 'P' && p[1] == 'K' && ((p[2] == 3 && p[3] == 4) || (p[2] == 5 && p[3] == 6)))
        return TRZ_DRF_ZIP;
    if (n >= 4 && le32(p) == 0x184D2204u) return TRZ_DRF_LZ4;
    if (n >= 10 && memcmp(p, "\xff\x06\x00\x00sNaPpY", 10) == 0) return TRZ_DRF_SNAPPY;
    return 0;
}

/* A drmemtrace record stream starts with a HEADER record (type 25, size 0,
 * the version) followed by a MARKER (28) or, in version 1, a THREAD (22). */
static int drmem_start(const uint8_t *p, size_t n)
{
    if (n < 14 || le16(p) != 25 || le16(p + 2) != 0) return 0;
    uint64_t version = le64(p + 4);
    unsigned next = le16(p + 12);
    return version >= 1 && version < 256 && (next == 28 || next == 22);
}

int trz_drfile_kind(const uint8_t *p, size_t n)
{
    int k = trz_drfile_magic(p, n);
    if (k) return k;
    size_t hl;
    if (gz_header_len(p, n, &hl)) return 0;
    z_stream z;
    uint8_t out[16];
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK) return 0;
    z.next_in = (Bytef *)(p + hl);
    z.avail_in = (uInt)MIN(n - hl, 1u << 30);
    z.next_out = out;
    z.avail_out = sizeof out;
    inflate(&z, Z_SYNC_FLUSH);
    size_t got = sizeof out - z.avail_out;
    inflateEnd(&z);
    return drmem_start(out, got) ? TRZ_DRF_GZIP : 0;
}
