/* drfile_plan.c - the drmemtrace file layer's plan (drfile.md), the first
 * pass over a seekable input: its records found by the walker and, stream
 * by stream, the settings that rebuild each exactly (checked against the
 * file, other settings retried within a budget), or the stream kept as it
 * is; then the body written.  With several threads, each deflate or lz4
 * stream is checked on a worker thread, read again from the file, while
 * the walk goes on. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drfile_int.h"

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

/* What checks streams: the plan's own (one thread), or a worker's. */
typedef struct drchk {
    const trz_io *io;
    int rc;             /* the first failure (I/O, memory) */
    drrb rb;            /* the stream being checked */
    int rb_on;
    din cmp;            /* the original bytes the rebuilder's output is compared with */
    din src;            /* a stream read again (its buffer kept from one to the next) */
    uint8_t *buf;       /* its records, 64 KiB */
    drw r;              /* its walker (the inflater kept, reset) */
    uint64_t budget;    /* bytes of retries left */
} drchk;

static void chk_free(drchk *c)
{
    drf_din_free(&c->cmp);
    drf_din_free(&c->src);
    drf_walk_free(&c->r);
    free(c->buf);
    c->buf = NULL;
}

typedef struct drpool drpool;

struct trz_drplan {
    int kind;
    drop *ops;
    size_t nops, cap;
    uint64_t size, hash, records, rhash, body;
    uint64_t kept, kept_records; /* streams kept as they are: their bytes, their records */
    int rc;             /* the first failure (I/O, memory) */
    drchk chk;          /* streams checked as they are read (all, with one thread) */
    drpool *pool;       /* with several threads: deflate and lz4 streams checked there */
};

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
        l->count += o->count; /* o is one block, or (joining a worker's results) several */
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
static int try_start(drchk *c, const drop *o, uint64_t off)
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

static int lz4_ok(const drw *w)
{
    uint8_t f = w->s_par[0], bd = w->s_par[1];
    return (f & 0xc3) == 0x40 && !(bd & 0x8f) && (bd >> 4) >= 4;
}

/* Streams a worker checks (with several threads): deflate, and lz4 frames
 * trz can rebuild.  Snappy blocks (64 KiB at most) stay on the walk. */
static int pooled(const trz_drplan *p, const drw *w)
{
    return p->pool && (w->stype == ST_DEFLATE || (w->stype == ST_LZ4 && lz4_ok(w)));
}

/* The settings a stream is tried with first (no budget), 0 when none. */
static void first_try(const drw *w, drop *o)
{
    memset(o, 0, sizeof *o);
    if (w->stype == ST_DEFLATE) {
        o->code = OP_DEFLATE;
        memcpy(o->p, deflate_tries[0], 4);
    } else if (w->stype == ST_LZ4 && lz4_ok(w)) {
        lz4_try(w, 0, o);
    } else if (w->stype == ST_SNAPPY) {
        o->code = OP_SNAPPY;
        o->p[0] = w->s_par[0] < 2;
        o->block = w->blk_len;
        o->count = 1;
    }
    if (o->code == OP_SNAPPY && !o->block) o->code = 0; /* an empty block: kept */
}

static void ev_begin(void *ctx, const drw *w)
{
    trz_drplan *p = ctx;
    drop o;
    if (pooled(p, w)) return;
    first_try(w, &o);
    if (o.code) {
        int rc = try_start(&p->chk, &o, w->s_off);
        if (rc) p->rc = rc;
    }
}

/* Retry a stream [off, end) with settings o: decode it again from the
 * file and rebuild; 1 when every byte came back. */
static int retry(drchk *p, const drw *w, const drop *o, uint64_t off, uint64_t end, uint64_t n_in)
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
    if (!rc) rc = try_start(p, o, off);
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

#define MAX_TRIES 32

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
static int retries(drchk *c, const drw *w, drop *o, uint64_t end)
{
    drop tries[MAX_TRIES];
    size_t ntries = 0;
    if (w->stype == ST_DEFLATE) ntries = deflate_candidates(w, tries);
    else if (w->stype == ST_LZ4 && lz4_ok(w))
        for (size_t i = 1; i < sizeof lz4_tries / sizeof lz4_tries[0]; i++) {
            lz4_try(w, (int)i, &tries[ntries]);
            ntries++;
        }
    c->budget = 4 * o->n_in + (16u << 20);
    for (size_t i = 0; i < ntries && c->budget && !c->rc; i++) {
        drop t = tries[i];
        t.off = o->off, t.n_in = o->n_in, t.n_out = o->n_out;
        if (retry(c, w, &t, o->off, end, o->n_in)) { *o = t; return 1; }
    }
    return 0;
}

/* Streams of fewer record bytes are checked on the walk (with threads too):
 * handing one over costs more than checking it (a zip of 150,000 members
 * of 99 record bytes, each handed over, took 2.6 times the CPU of one
 * thread on 4; checked on the walk, 1.1-1.3 times, the second inflate). */
#define POOL_MIN (16u << 10)

static void pool_submit(trz_drplan *p, const drw *w, const drop *o, uint64_t end);
static void pool_here(trz_drplan *p, const drw *w, const drop *o, uint64_t end);

static void kept_op(trz_drplan *p, drop *o)
{
    o->code = OP_BYTES; /* kept as it is, standing for its records */
    p->kept += o->n_out;
    p->kept_records += o->n_in;
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
    if (ok && pooled(p, w)) {
        if (o.n_in >= POOL_MIN) pool_submit(p, w, &o, end);
        else pool_here(p, w, &o, end);
        return;
    }
    drchk *c = &p->chk;
    int done = 0;
    if (c->rb_on) {
        done = ok && drf_rb_finish(&c->rb) == 0 && c->rb.made == o.n_out && c->rb.fed == o.n_in;
        drop t = c->rb.op;
        drf_rb_free(&c->rb);
        c->rb_on = 0;
        if (done) {
            t.off = o.off;
            t.n_in = o.n_in;
            t.n_out = o.n_out;
            o = t;
        }
    }
    if (ok && !done && !p->rc) {
        done = retries(c, w, &o, end);
        if (c->rc) p->rc = c->rc;
    }
    if (!done) kept_op(p, &o);
    add_op(p, &o);
}

/* ---- several threads: streams checked by workers ----
 * The walk goes on in the calling thread (inflating, hashing the records);
 * at each deflate or lz4 stream's end, the stream becomes a job, its place
 * in the plan held by an OP_JOB operation, and the walk waits while N jobs
 * are in flight.  A worker does what the walk would have done, the first
 * settings and then the retries, but reads the stream again from the file
 * (inflating it once more: a sixth or so of re-deflating it).  Each stream
 * has its own budget, so what a worker decides is what the walk decides,
 * and the plan is the same for every N. */
enum { OP_JOB = 0x80 }; /* never written: replaced by the job's operation */

/* One input read from several threads: a view of it per thread, with its
 * own position; each read seeks there and reads under a lock. */
typedef struct lockio {
    trz_io io;
    pthread_mutex_t *mu;
    const trz_io *in;
    uint64_t pos;
} lockio;

static int64_t lk_read(void *opaque, void *b, size_t n)
{
    lockio *l = opaque;
    pthread_mutex_lock(l->mu);
    int64_t r = l->in->seek(l->in->opaque, l->pos) == 0 ? l->in->read(l->in->opaque, b, n) : -1;
    pthread_mutex_unlock(l->mu);
    if (r > 0) l->pos += (uint64_t)r;
    return r;
}

static int lk_seek(void *opaque, uint64_t off)
{
    ((lockio *)opaque)->pos = off;
    return 0;
}

static void lockio_init(lockio *l, pthread_mutex_t *mu, const trz_io *in)
{
    memset(l, 0, sizeof *l);
    l->io.opaque = l;
    l->io.read = lk_read;
    l->io.seek = lk_seek;
    l->mu = mu;
    l->in = in;
}

typedef struct drjob {
    int stype, kind;
    uint8_t s_par[2];
    uint64_t end;
    drop o;  /* in: off, n_in, n_out; out: the operation, OP_BYTES when kept */
    int rc;  /* a failure (I/O, memory), and errno with it */
    int eno;
} drjob;

#define POOL_MAX 64

struct drpool {
    pthread_mutex_t mu, iomu;
    pthread_cond_t work, done;
    pthread_t th[POOL_MAX];
    int nth;
    drjob *jobs;  /* every stream's job, in file order: a result each stays */
    size_t njobs, cap, next, finished;
    int quit, failed;
    const trz_io *io;
    lockio view;  /* the walk's */
};

static void job_run(drchk *c, drjob *j)
{
    drw w;
    drop t;
    memset(&w, 0, sizeof w);
    w.stype = j->stype;
    w.kind = j->kind;
    memcpy(w.s_par, j->s_par, 2);
    c->rc = TRZ_OK;
    first_try(&w, &t);
    t.off = j->o.off, t.n_in = j->o.n_in, t.n_out = j->o.n_out;
    c->budget = UINT64_MAX; /* the walk's first try has no budget */
    int done = retry(c, &w, &t, j->o.off, j->end, j->o.n_in);
    j->eno = errno;
    if (done) j->o = t;
    else if (!c->rc) done = retries(c, &w, &j->o, j->end), j->eno = errno;
    if (!done) j->o.code = OP_BYTES;
    j->rc = c->rc;
}

static void *pool_worker(void *arg)
{
    drpool *q = arg;
    lockio view;
    drchk c;
    memset(&c, 0, sizeof c);
    lockio_init(&view, &q->iomu, q->io);
    c.io = &view.io;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->quit && q->next == q->njobs) pthread_cond_wait(&q->work, &q->mu);
        if (q->next == q->njobs) break;
        size_t i = q->next++;
        drjob j = q->jobs[i];
        int skip = q->failed; /* after a failure the plan is not used: no more work */
        pthread_mutex_unlock(&q->mu);
        if (!skip) job_run(&c, &j);
        pthread_mutex_lock(&q->mu);
        q->jobs[i] = j;
        q->finished++;
        if (j.rc) q->failed = 1;
        pthread_cond_signal(&q->done);
    }
    pthread_mutex_unlock(&q->mu);
    chk_free(&c);
    return NULL;
}

/* n threads, or none (NULL: the walk checks every stream itself, which
 * makes the same plan). */
static drpool *pool_new(const trz_io *io, int n)
{
    drpool *q = calloc(1, sizeof *q);
    if (!q) return NULL;
    q->io = io;
    pthread_mutex_init(&q->mu, NULL);
    pthread_mutex_init(&q->iomu, NULL);
    pthread_cond_init(&q->work, NULL);
    pthread_cond_init(&q->done, NULL);
    lockio_init(&q->view, &q->iomu, io);
    for (int i = 0; i < n && i < POOL_MAX; i++) {
        if (pthread_create(&q->th[i], NULL, pool_worker, q)) break;
        q->nth++;
    }
    if (q->nth) return q;
    pthread_mutex_destroy(&q->mu);
    pthread_mutex_destroy(&q->iomu);
    pthread_cond_destroy(&q->work);
    pthread_cond_destroy(&q->done);
    free(q);
    return NULL;
}

static drjob job_of(const drw *w, const drop *o, uint64_t end)
{
    drjob j = { .stype = w->stype, .kind = w->kind, .end = end, .o = *o };
    memcpy(j.s_par, w->s_par, 2);
    return j;
}

/* A small stream checked as a worker would check it, on the walk. */
static void pool_here(trz_drplan *p, const drw *w, const drop *o, uint64_t end)
{
    drjob j = job_of(w, o, end);
    job_run(&p->chk, &j);
    if (j.rc) { p->rc = j.rc; return; }
    if (j.o.code == OP_BYTES) kept_op(p, &j.o);
    add_op(p, &j.o);
}

static void pool_submit(trz_drplan *p, const drw *w, const drop *o, uint64_t end)
{
    drpool *q = p->pool;
    drjob j = job_of(w, o, end);
    drop ph = { .code = OP_JOB, .off = o->off, .n_in = o->n_in, .n_out = o->n_out };
    pthread_mutex_lock(&q->mu);
    while (!q->failed && q->njobs - q->finished >= (size_t)q->nth) pthread_cond_wait(&q->done, &q->mu);
    int more = !q->failed;
    if (more && q->njobs == q->cap) {
        size_t nc = q->cap ? 2 * q->cap : 64;
        drjob *nj = realloc(q->jobs, nc * sizeof *nj);
        if (nj) q->jobs = nj, q->cap = nc;
        else more = 0, p->rc = TRZ_ERR_NOMEM;
    }
    if (more) {
        ph.count = q->njobs;
        q->jobs[q->njobs++] = j;
        pthread_cond_signal(&q->work);
    }
    pthread_mutex_unlock(&q->mu);
    if (more) add_op(p, &ph);
    else if (!p->rc) p->rc = TRZ_ERR_IO; /* stands for the job's failure, which pool_end reports */
}

/* Wait for the jobs and end the threads; then the first failure in file
 * order (errno as the worker saw it), or each OP_JOB replaced by its
 * job's operation and the plan's operations joined again as the walk
 * joins them. */
static int pool_end(trz_drplan *p)
{
    drpool *q = p->pool;
    pthread_mutex_lock(&q->mu);
    q->quit = 1;
    pthread_cond_broadcast(&q->work);
    pthread_mutex_unlock(&q->mu);
    for (int i = 0; i < q->nth; i++) pthread_join(q->th[i], NULL);
    int rc = TRZ_OK;
    for (size_t i = 0; i < q->njobs && !rc; i++)
        if (q->jobs[i].rc) rc = q->jobs[i].rc, errno = q->jobs[i].eno;
    if (!rc && !p->rc) {
        drop *old = p->ops;
        size_t n = p->nops;
        p->ops = NULL;
        p->nops = p->cap = 0;
        for (size_t i = 0; i < n && !p->rc; i++) {
            drop o = old[i];
            if (o.code == OP_JOB) {
                o = q->jobs[o.count].o;
                if (o.code == OP_BYTES) kept_op(p, &o);
            }
            add_op(p, &o);
        }
        free(old);
    }
    pthread_mutex_destroy(&q->mu);
    pthread_mutex_destroy(&q->iomu);
    pthread_cond_destroy(&q->work);
    pthread_cond_destroy(&q->done);
    free(q->jobs);
    free(q);
    p->pool = NULL;
    return rc;
}

static const drw_ev plan_ev = { ev_framing, ev_begin, ev_end };

static uint64_t op_size(const drop *o)
{
    uint8_t b[64];
    return drf_op_put(o, b) + (o->code == OP_BYTES ? o->n_out : 0);
}

/* Each rebuilt operation's check: the XXH3 of the original bytes it gives
 * back (the same bytes, since they were compared). */
static int plan_checks(trz_drplan *p, const trz_io *io)
{
    din d;
    if (drf_din_init(&d, io, 0)) return TRZ_ERR_NOMEM;
    XXH3_state_t *h = XXH3_createState();
    int rc = h ? TRZ_OK : TRZ_ERR_NOMEM;
    for (size_t i = 0; i < p->nops && !rc; i++) {
        drop *o = &p->ops[i];
        if (o->code != OP_DEFLATE && o->code != OP_LZ4 && o->code != OP_SNAPPY && o->code != OP_GZDEF) continue;
        drf_din_seek(&d, o->off);
        XXH3_64bits_reset(h);
        for (uint64_t left = o->n_out; left && !rc;) {
            size_t av = drf_din_fill(&d, (size_t)MIN(left, (uint64_t)DIN_CAP));
            if (av == 0) { rc = TRZ_ERR_IO; break; }
            size_t k = (size_t)MIN((uint64_t)av, left);
            XXH3_64bits_update(h, din_ptr(&d), k);
            din_take(&d, k);
            left -= k;
        }
        o->check = (uint32_t)XXH3_64bits_digest(h);
    }
    if (h) XXH3_freeState(h);
    drf_din_free(&d);
    return rc;
}

int trz_drplan_make(trz_drplan **out, const trz_io *io, int kind, int threads, char *err, size_t errlen)
{
    trz_drplan *p = *out = calloc(1, sizeof *p);
    if (!p) return TRZ_ERR_NOMEM;
    p->kind = kind;
    /* with threads the walk reads through its view of the input */
    const trz_io *wio = io;
    if (threads > 1 && io->seek && (p->pool = pool_new(io, threads))) wio = &p->pool->view.io;
    p->chk.io = wio;
    din in;
    drw w;
    memset(&in, 0, sizeof in);
    uint8_t *buf = malloc(1u << 20);
    XXH3_state_t *rh = XXH3_createState();
    int rc = buf && rh && drf_din_init(&in, wio, 0) == 0 ? TRZ_OK : TRZ_ERR_NOMEM;
    if (!rc && (!(in.h = XXH3_createState()) || XXH3_64bits_reset(in.h) != XXH_OK)) rc = TRZ_ERR_NOMEM;
    if (!rc) XXH3_64bits_reset(rh);
    drf_walk_init(&w, &in, kind, &plan_ev, p);
    while (!rc && !p->rc) {
        int64_t k = drf_walk_read(&w, buf, 1u << 20);
        if (k < 0) { rc = (int)k; break; }
        if (k == 0) break;
        XXH3_64bits_update(rh, buf, (size_t)k);
        p->records += (uint64_t)k;
        if (p->chk.rb_on) drf_rb_feed(&p->chk.rb, buf, (size_t)k);
    }
    if (p->pool) { /* a stream's failure comes before the walk's, which is further on */
        int jrc = pool_end(p);
        if (jrc) rc = jrc;
    }
    if (!rc) rc = p->rc;
    if (!rc) {
        p->size = in.taken;
        p->hash = XXH3_64bits_digest(in.h);
        p->rhash = XXH3_64bits_digest(rh);
        rc = plan_checks(p, io);
    }
    for (size_t i = 0; i < p->nops; i++) p->body += op_size(&p->ops[i]);
    if (p->chk.rb_on) drf_rb_free(&p->chk.rb);
    drf_walk_free(&w);
    if (in.b) drf_din_free(&in);
    chk_free(&p->chk);
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

void trz_drplan_kept(const trz_drplan *p, uint64_t *kept, uint64_t *records)
{
    *kept = p->kept;
    *records = p->kept_records;
}

int trz_drplan_write(const trz_drplan *p, const trz_io *io, int (*emit)(void *, const void *, size_t), void *ctx)
{
    din d;
    gather g = { emit, ctx, malloc(GATHER_CAP), 0 };
    if (!g.b || drf_din_init(&d, io, 0)) { free(g.b); return TRZ_ERR_NOMEM; }
    int rc = TRZ_OK;
    for (size_t i = 0; i < p->nops && !rc; i++) {
        const drop *o = &p->ops[i];
        uint8_t h[64];
        if (drf_gather_put(&g, h, drf_op_put(o, h))) { rc = TRZ_ERR_IO; break; }
        if (o->code != OP_BYTES) continue;
        drf_din_seek(&d, o->off);
        for (uint64_t left = o->n_out; left && !rc;) {
            size_t av = drf_din_fill(&d, (size_t)MIN(left, (uint64_t)DIN_CAP));
            if (av == 0) { rc = TRZ_ERR_IO; break; } /* the file changed under us */
            size_t k = (size_t)MIN((uint64_t)av, left);
            if (drf_gather_put(&g, din_ptr(&d), k)) rc = TRZ_ERR_IO;
            din_take(&d, k);
            left -= k;
        }
    }
    if (!rc && drf_gather_flush(&g)) rc = TRZ_ERR_IO;
    drf_din_free(&d);
    free(g.b);
    return rc;
}
