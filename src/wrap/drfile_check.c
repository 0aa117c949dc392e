/* drfile_check.c - the drmemtrace file layer's check of one stream
 * (drfile.md): the settings that rebuild it exactly, tried first as its
 * walk suggests, then others within a budget, every rebuilt byte compared
 * with the file's.  The plan (drfile_plan.c) runs it as it walks, or hands
 * streams to workers that run it on streams read again. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drfile_int.h"

#define MAX_TRIES 32 /* settings a stream may be retried with */

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

void drf_chk_free(drchk *c)
{
    drf_din_free(&c->cmp);
    drf_din_free(&c->src);
    drf_walk_free(&c->r);
    free(c->buf);
    c->buf = NULL;
}

static int cmp_sink(void *ctx, const uint8_t *p, size_t n)
{
    din *d = ctx;
    while (n) {
        size_t av = drf_din_fill(d, MIN(n, DIN_CAP));
        if (av == 0) return -1;
        size_t k = MIN(av, n);
        if (memcmp(din_ptr(d), p, k) != 0) return -1;
        din_take(d, k);
        p += k;
        n -= k;
    }
    return 0;
}

/* Start rebuilding the stream under way with o, comparing with the file. */
int drf_try_start(drchk *c, const drop *o, uint64_t off)
{
    if (!c->cmp.b && drf_din_init(&c->cmp, c->io, off)) return TRZ_ERR_NOMEM;
    drf_din_seek(&c->cmp, off);
    int rc = drf_rb_start(&c->rb, o, cmp_sink, &c->cmp);
    c->rb_on = rc == TRZ_OK;
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

int drf_lz4_ok(const drw *w)
{
    uint8_t f = w->s_par[0], bd = w->s_par[1];
    return (f & 0xc3) == 0x40 && !(bd & 0x8f) && (bd >> 4) >= 4;
}

/* The settings a stream is tried with first (no budget), 0 when none. */
void drf_first_try(const drw *w, drop *o)
{
    memset(o, 0, sizeof *o);
    if (w->stype == ST_DEFLATE) {
        o->code = OP_DEFLATE;
        memcpy(o->p, deflate_tries[0], 4);
    } else if (w->stype == ST_LZ4 && drf_lz4_ok(w)) {
        lz4_try(w, 0, o);
    } else if (w->stype == ST_SNAPPY) {
        o->code = OP_SNAPPY;
        o->p[0] = w->s_par[0] < 2;
        o->block = w->blk_len;
        o->count = 1;
    }
    if (o->code == OP_SNAPPY && !o->block) o->code = 0; /* an empty block: kept */
}

/* Retry a stream [off, end) with settings o: decode it again from the
 * file and rebuild; 1 when every byte came back. */
int drf_retry(drchk *p, const drw *w, const drop *o, uint64_t off, uint64_t end, uint64_t n_in)
{
    if ((!p->buf && !(p->buf = malloc(1u << 16))) || (!p->src.b && drf_din_init(&p->src, p->io, off))) {
        p->rc = TRZ_ERR_NOMEM;
        return 0;
    }
    /* the stream alone, as a fresh input; the buffers kept (a zip of many
     * small members would cost its members times their allocation) */
    din *src = &p->src;
    uint8_t *b = src->b, *buf = p->buf;
    memset(src, 0, sizeof *src);
    src->b = b;
    src->io = p->io;
    src->pos = off;
    src->limit = end;
    drw *r = &p->r;
    z_stream z = r->z; /* in place: zlib's state points back at it */
    int zinit = r->zinit;
    if (r->lz) LZ4F_freeDecompressionContext(r->lz); /* the last stream's, but not its inflater */
    free(r->blk);
    drf_walk_init(r, src, 0, NULL, NULL);
    r->z = z;
    r->zinit = zinit;
    int ok = 0, rc = TRZ_OK;
    if (w->stype == ST_DEFLATE) rc = drf_walk_deflate(r);
    else if (LZ4F_isError(LZ4F_createDecompressionContext(&r->lz, LZ4F_VERSION))) rc = TRZ_ERR_NOMEM;
    else drf_walk_stream(r, ST_LZ4);
    if (!rc) rc = drf_try_start(p, o, off);
    while (!rc) {
        int64_t k = drf_walk_read(r, buf, 1u << 16);
        if (k < 0) { rc = (int)k; break; }
        if (k == 0) break;
        p->budget -= MIN(p->budget, (uint64_t)k);
        if (drf_rb_feed(&p->rb, buf, (size_t)k) || !p->budget) break;
    }
    if (rc) p->rc = rc;
    else ok = r->end_ok && drf_rb_finish(&p->rb) == 0 && p->rb.made == end - off && p->rb.fed == n_in;
    drf_rb_free(&p->rb);
    p->rb_on = 0;
    return ok;
}

/* GNU gzip's and Info-ZIP's levels in the order tried: first those the
 * member's header names (`named` of them), then the others.  gzip's XFL:
 * 4 is -1, 2 is -9, 0 the others; zip's flag bits 1-2: 2 (or 3) -1 and
 * -2, 1 -8 and -9, 0 the others. */
typedef struct level_order {
    uint8_t lv[9];
    size_t named;
} level_order;

static level_order family_levels(int kind, unsigned hint)
{
    static const level_order gz[3] = { { { 6, 2, 3, 4, 5, 7, 8, 9, 1 }, 7 }, { { 1, 6, 9, 2, 3, 4, 5, 7, 8 }, 1 },
                                       { { 9, 6, 1, 2, 3, 4, 5, 7, 8 }, 1 } };
    static const level_order iz[3] = { { { 6, 3, 4, 5, 7, 1, 2, 8, 9 }, 5 }, { { 1, 2, 6, 9, 3, 4, 5, 7, 8 }, 2 },
                                       { { 9, 8, 6, 1, 2, 3, 4, 5, 7 }, 2 } };
    if (kind == TRZ_DRF_GZIP) return gz[hint == 4 ? 1 : hint == 2 ? 2 : 0];
    return iz[hint >= 2 ? 1 : hint == 1 ? 2 : 0];
}

/* The deflate settings a stream is retried with, after zlib's level 6:
 * the levels of the container's own tool its header names (GNU gzip for a
 * gzip member, Info-ZIP's zip for a zip member), zlib's other settings,
 * the tool's other levels, then GNU gzip --rsyncable.  A wrong one fails
 * at the stream's first block. */
static size_t deflate_candidates(const drw *w, drop *t)
{
    size_t n = 0;
    int fl = w->kind == TRZ_DRF_GZIP ? GZD_GNU : GZD_INFOZIP;
    level_order lo = family_levels(w->kind, w->s_par[0]);
    memset(t, 0, MAX_TRIES * sizeof *t);
    for (size_t i = 0; i < lo.named; i++) t[n].code = OP_GZDEF, t[n].p[0] = (uint8_t)fl, t[n++].p[1] = lo.lv[i];
    for (size_t i = 1; i < sizeof deflate_tries / sizeof deflate_tries[0]; i++)
        t[n].code = OP_DEFLATE, memcpy(t[n++].p, deflate_tries[i], 4);
    for (size_t i = lo.named; i < 9; i++) t[n].code = OP_GZDEF, t[n].p[0] = (uint8_t)fl, t[n++].p[1] = lo.lv[i];
    if (fl == GZD_GNU)
        for (size_t i = 0; i < 9; i++) t[n].code = OP_GZDEF, t[n].p[0] = GZD_GNU_RSYNC, t[n++].p[1] = lo.lv[i];
    return n; /* at most 9 + 11 + 9 */
}

/* The stream's other settings after its first failed, each read again
 * from the file, within a budget of the stream's own (4 bytes a record
 * byte, and 16 MiB): 1 when one rebuilt it (then *o is that one). */
int drf_retries(drchk *c, const drw *w, drop *o, uint64_t end)
{
    drop tries[MAX_TRIES];
    size_t ntries = 0;
    if (w->stype == ST_DEFLATE) ntries = deflate_candidates(w, tries);
    else if (w->stype == ST_LZ4 && drf_lz4_ok(w))
        for (size_t i = 1; i < sizeof lz4_tries / sizeof lz4_tries[0]; i++) {
            lz4_try(w, (int)i, &tries[ntries]);
            ntries++;
        }
    c->budget = 4 * o->n_in + (16u << 20);
    for (size_t i = 0; i < ntries && c->budget && !c->rc; i++) {
        drop t = tries[i];
        t.off = o->off, t.n_in = o->n_in, t.n_out = o->n_out;
        if (drf_retry(c, w, &t, o->off, end, o->n_in)) { *o = t; return 1; }
    }
    return 0;
}
