/* drfile.c - the drmemtrace file layer (drfile.md): DynamoRIO's containers
 * (.zip of chunk members, .gz, .lz4 frames, .sz snappy framing) walked into
 * the record stream they hold, and the recipe that rebuilds each file byte
 * for byte from those records: deflate, lz4 and snappy streams re-encoded
 * with the settings found (and checked) at compression time, framing and
 * whatever cannot be rebuilt kept as it is.  One walker (drfile_walk.c)
 * serves the plan (drfile_plan.c, first pass), the records (second pass,
 * or a pipe: here) and the retries; one rebuilder (drfile_rebuild.c)
 * serves the checks at compression and the restore (here).  This file
 * also names and recognises the containers and describes a recipe. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drfile_int.h"

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
    if (drf_din_init(&s->in, io, 0) || !(s->in.h = XXH3_createState()) || !(s->rh = XXH3_createState())) {
        trz_drsrc_close(s);
        return NULL;
    }
    s->in.pull = pull;
    s->in.pctx = ctx;
    XXH3_64bits_reset(s->in.h);
    XXH3_64bits_reset(s->rh);
    drf_walk_init(&s->w, &s->in, kind, NULL, NULL);
    return s;
}

int64_t trz_drsrc_read(trz_drsrc *s, uint8_t *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        int64_t k = drf_walk_read(&s->w, dst + got, n - got);
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
    drf_walk_free(&s->w);
    drf_din_free(&s->in);
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
    if (drf_gather_put(&o->g, p, n)) { o->ioerr = 1; return -1; }
    XXH3_64bits_update(o->h, p, n);
    o->n += n;
    return 0;
}

static const char *op_name(int code)
{
    static const char *const n[] = { "?", "kept bytes", "stored bytes", "deflate", "lz4 frame", "snappy chunks",
                                     "gzip deflate" };
    return code >= OP_BYTES && code <= OP_GZDEF ? n[code] : n[0];
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

static int rb_sink_feed(void *ctx, const uint8_t *p, size_t n) { return drf_rb_feed(ctx, p, n); }

int trz_drfile_restore(const trz_io *body, uint64_t body_len, uint64_t size, uint64_t hash, uint64_t records,
                       trz_drview_fn view, void *vctx, const trz_io *out, char *err, size_t errlen)
{
    din d;
    *err = 0;
    if (drf_din_init(&d, body, 0)) return RERR(TRZ_ERR_NOMEM, "out of memory");
    d.limit = body_len;
    rin r = { view, vctx, NULL, 0, 0 };
    rout o = { out, XXH3_createState(), 0, size, 0, 0, { rout_emit, NULL, malloc(GATHER_CAP), 0 } };
    o.g.ctx = &o;
    int rc = o.h && o.g.b ? TRZ_OK : RERR(TRZ_ERR_NOMEM, "out of memory");
    if (o.h) XXH3_64bits_reset(o.h);
    uint64_t in_total = 0;
    for (size_t step = 1; !rc && din_off(&d) < body_len; step++) {
        drop op;
        size_t av = drf_din_fill(&d, 64);
        int hl = av ? drf_op_get(din_ptr(&d), av, &op) : 0;
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
                size_t k = drf_din_fill(&d, (size_t)MIN(left, (uint64_t)DIN_CAP));
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
            rc = drf_rb_start(&b, &op, rout_write, &o);
            if (!rc) rc = take_records(&r, op.n_in, rb_sink_feed, &b, &ended);
            if (!rc && drf_rb_finish(&b)) rc = 1;
            differs = rc == 1 || (!rc && (b.made != op.n_out || (uint32_t)XXH3_64bits_digest(b.h) != op.check));
            drf_rb_free(&b);
        }
        if (o.ioerr) rc = RERR(TRZ_ERR_IO, "write error: %s", strerror(errno));
        else if (o.full) rc = RERR(TRZ_ERR_CHECKSUM, "the restored file would be longer than the original");
        else if (differs)
            rc = RERR(TRZ_ERR_CHECKSUM, "step %zu (%s, %llu bytes): the rebuilt bytes differ from the original's "
                      "(this %s differs from the one that compressed; trz -dc gives the records)", step,
                      op_name(op.code), (unsigned long long)op.n_out,
                      op.code == OP_DEFLATE ? "zlib" : op.code == OP_LZ4 ? "liblz4"
                      : op.code == OP_GZDEF ? "trz's gzip encoder" : "libsnappy");
        else if (ended) rc = RERR(TRZ_ERR_CORRUPT, "the archive's records end before its restore data does");
        else if (rc == TRZ_ERR_TRUNCATED) rc = RERR(rc, "the restore data is cut short");
        else if (rc == TRZ_ERR_IO) rc = RERR(rc, "reading the restore data: %s", strerror(errno));
        else if (rc) rc = RERR(rc, "%s", trz_strerror(rc));
    }
    if (!rc && drf_gather_flush(&o.g)) rc = RERR(TRZ_ERR_IO, "write error: %s", strerror(errno));
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
    drf_din_free(&d);
    return rc;
}

int trz_drfile_describe(const trz_io *body, uint64_t body_len, int kind, char *how, size_t cap, uint64_t *kept)
{
    din d;
    *kept = 0;
    snprintf(how, cap, "?");
    if (drf_din_init(&d, body, 0)) return TRZ_ERR_NOMEM;
    d.limit = body_len;
    uint64_t n[7] = { 0 }, kept_in = 0;
    unsigned levels = 0, lz4levels = 0, gzlevels[GZD_FLAVOURS] = { 0 };
    int rc = TRZ_OK;
    while (din_off(&d) < body_len) {
        drop op;
        size_t av = drf_din_fill(&d, 64);
        int hl = av ? drf_op_get(din_ptr(&d), av, &op) : 0;
        if (hl <= 0) { rc = hl < 0 ? TRZ_ERR_UNSUPPORTED : TRZ_ERR_CORRUPT; break; }
        din_take(&d, (size_t)hl);
        n[op.code] += op.code == OP_SNAPPY ? op.count : 1;
        if (op.code == OP_DEFLATE) levels |= 1u << op.p[0];
        if (op.code == OP_GZDEF) gzlevels[op.p[0]] |= 1u << op.p[1];
        if (op.code == OP_LZ4) lz4levels |= 1u << ((int8_t)op.p[0] & 15);
        if (op.code == OP_BYTES) {
            *kept += op.n_out;
            kept_in += op.n_in;
            if (op.n_out > body_len - din_off(&d) || drf_din_skip(&d, op.n_out)) { rc = TRZ_ERR_CORRUPT; break; }
        }
    }
    drf_din_free(&d);
    if (rc) {
        snprintf(how, cap, rc == TRZ_ERR_UNSUPPORTED ? "restore data of a newer trz" : "restore data damaged");
        return rc;
    }
    uint64_t rebuilt = n[OP_COPY] + n[OP_DEFLATE] + n[OP_LZ4] + n[OP_SNAPPY] + n[OP_GZDEF];
    if (!rebuilt) {
        snprintf(how, cap, "kept as is");
        return TRZ_OK;
    }
    /* the deflate encoders: "deflate 6" (zlib), "GNU gzip 9", "Info-ZIP 6" */
    static const char *const enc[1 + GZD_FLAVOURS] = { "deflate", "GNU gzip", "GNU gzip --rsyncable", "Info-ZIP" };
    unsigned masks[1 + GZD_FLAVOURS] = { kind == TRZ_DRF_LZ4 ? lz4levels : levels };
    for (int f = 0; f < GZD_FLAVOURS; f++) masks[1 + f] = gzlevels[f];
    char lv[160] = "";
    size_t k = 0;
    for (int e = 0; e < (kind == TRZ_DRF_LZ4 ? 1 : 1 + GZD_FLAVOURS); e++) {
        if (!masks[e]) continue;
        if (kind != TRZ_DRF_LZ4) k += (size_t)snprintf(lv + k, sizeof lv - k, "%s%s ", k ? ", " : "", enc[e]);
        for (unsigned i = 0, first = 1; i < 16 && k < sizeof lv; i++)
            if (masks[e] >> i & 1) k += (size_t)snprintf(lv + k, sizeof lv - k, "%s%u", first ? "" : "/", i), first = 0;
    }
    const char *pre = kept_in ? "partly rebuilt" : "rebuilt";
    unsigned long long m = (unsigned long long)(n[OP_COPY] + n[OP_DEFLATE] + n[OP_GZDEF]);
    switch (kind) {
    case TRZ_DRF_ZIP:
        k = (size_t)snprintf(how, cap, "%s: zip, ", pre);
        if (n[OP_DEFLATE] + n[OP_GZDEF]) k += (size_t)snprintf(how + k, k < cap ? cap - k : 0, "%s, ", lv);
        if (n[OP_COPY]) k += (size_t)snprintf(how + k, k < cap ? cap - k : 0, "%llu stored, ", (unsigned long long)n[OP_COPY]);
        snprintf(how + k, k < cap ? cap - k : 0, "%llu member%s", m, m == 1 ? "" : "s");
        break;
    case TRZ_DRF_GZIP:
        snprintf(how, cap, "%s: gzip, %s%s", pre, lv, n[OP_DEFLATE] + n[OP_GZDEF] > 1 ? ", several members" : "");
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
    if (drf_gz_header_len(p, n, &hl)) return 0;
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
