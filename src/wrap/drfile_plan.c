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

/* Streams a worker checks (with several threads): deflate, and lz4 frames
 * trz can rebuild.  Snappy blocks (64 KiB at most) stay on the walk. */
static int pooled(const trz_drplan *p, const drw *w)
{
    return p->pool && (w->stype == ST_DEFLATE || (w->stype == ST_LZ4 && drf_lz4_ok(w)));
}

static void ev_begin(void *ctx, const drw *w)
{
    trz_drplan *p = ctx;
    drop o;
    if (pooled(p, w)) return;
    drf_first_try(w, &o);
    if (o.code) {
        int rc = drf_try_start(&p->chk, &o, w->s_off);
        if (rc) p->rc = rc;
    }
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
        done = drf_retries(c, w, &o, end);
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
    drf_first_try(&w, &t);
    t.off = j->o.off, t.n_in = j->o.n_in, t.n_out = j->o.n_out;
    c->budget = UINT64_MAX; /* the walk's first try has no budget */
    int done = drf_retry(c, &w, &t, j->o.off, j->end, j->o.n_in);
    j->eno = errno;
    if (done) j->o = t;
    else if (!c->rc) done = drf_retries(c, &w, &j->o, j->end), j->eno = errno;
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
    drf_chk_free(&c);
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
    drf_chk_free(&p->chk);
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
