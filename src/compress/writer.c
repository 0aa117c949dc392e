/* writer.c - the compress room: trz_compress and its context.  Choose the
 * codec by probing the first chunk, cut the input into chunks at record
 * (or line) boundaries, encode chunks on a ring of worker threads, and
 * write header, chunks, index and footer in order (the bytes themselves
 * are the format room's).  Only `write` is needed on the output, so
 * compressing into a pipe works.  Compressed input (gzip, zstd) is
 * unwrapped first (unwrap.c). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#include "../format/format.h"
#include "unwrap.h"

struct trz_cctx {
    int level, threads, backend, unwrap, verify;
    uint64_t chunk_bytes, chunk_records;
    const trz_codec *forced; /* NULL = auto */
    const trz_codec *chosen;
    int byte_order;
    trz_progress_fn progress;
    void *progress_ctx;
    char err[256];
};

trz_cctx *trz_cctx_create(void)
{
    trz_cctx *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->level = TRZ_LEVEL_DEFAULT;
    c->threads = 1;
    c->backend = TRZ_BACKEND_ZSTD;
    c->unwrap = 1;
    c->verify = 1;
    c->chunk_bytes = TRZ_DEFAULT_CHUNK_RAW;
    return c;
}

void trz_cctx_free(trz_cctx *c) { free(c); }

int trz_cctx_set(trz_cctx *c, trz_cparam p, int64_t v)
{
    switch (p) {
    case TRZ_C_LEVEL:
        if (v < TRZ_LEVEL_MIN || v > TRZ_LEVEL_MAX) return TRZ_ERR_PARAM;
        c->level = (int)v;
        return TRZ_OK;
    case TRZ_C_THREADS:
        if (v < 0 || v > 256) return TRZ_ERR_PARAM;
        c->threads = v == 0 ? trz_ncpus() : (int)v;
        return TRZ_OK;
    case TRZ_C_BACKEND:
        if (v != TRZ_BACKEND_ZSTD && v != TRZ_BACKEND_GZIP) return TRZ_ERR_PARAM;
        c->backend = (int)v;
        return TRZ_OK;
    case TRZ_C_CHUNK_BYTES:
        if (v < TRZ_MIN_CHUNK_RAW || v > TRZ_MAX_CHUNK_RAW) return TRZ_ERR_PARAM;
        c->chunk_bytes = (uint64_t)v;
        return TRZ_OK;
    case TRZ_C_CHUNK_RECORDS:
        if (v < 0 || v > 0xffffffffLL) return TRZ_ERR_PARAM;
        c->chunk_records = (uint64_t)v;
        return TRZ_OK;
    case TRZ_C_UNWRAP:
        c->unwrap = v != 0;
        return TRZ_OK;
    case TRZ_C_VERIFY:
        c->verify = v != 0;
        return TRZ_OK;
    }
    return TRZ_ERR_PARAM;
}

int trz_cctx_set_format(trz_cctx *c, const char *name)
{
    if (!name || strcmp(name, "auto") == 0) { c->forced = NULL; return TRZ_OK; }
    const trz_codec *k = trz_codec_by_name(name);
    if (!k) return TRZ_ERR_PARAM;
    c->forced = k;
    return TRZ_OK;
}

void trz_cctx_set_progress(trz_cctx *c, trz_progress_fn fn, void *ctx)
{
    c->progress = fn;
    c->progress_ctx = ctx;
}

const char *trz_cctx_format(const trz_cctx *c) { return c->chosen ? c->chosen->name : "raw"; }
int trz_cctx_byte_order(const trz_cctx *c) { return c->byte_order; }
const char *trz_cctx_error(const trz_cctx *c) { return c->err; }

/* ---- state of one compression ---- */
typedef trz_index_entry index_entry;

typedef struct wstate {
    trz_cctx *c;
    const trz_io *out;
    trz_src src;
    uint64_t written, records, bytes;
    index_entry *index;
    size_t nindex, capindex;
    /* pending input: carry from the previous cut plus new reads */
    uint8_t *pend;
    size_t pend_len, pend_cap;
    /* chunk buffers come back here after their batch, so the pages are
     * touched once per run rather than once per chunk */
    uint8_t *spare[257];
    size_t nspare;
    int eof, prev_nl;
    trz_zctx *z[256];
} wstate;

static int fail(wstate *w, int rc, const char *what)
{
    snprintf(w->c->err, sizeof w->c->err, "%s: %s", what, rc == TRZ_ERR_IO ? strerror(errno) : trz_strerror(rc));
    return rc;
}

static int emit(wstate *w, const void *p, size_t n)
{
    if (n == 0) return TRZ_OK;
    if (w->out->write(w->out->opaque, p, n) != (int64_t)n) return fail(w, TRZ_ERR_IO, "write");
    w->written += n;
    return TRZ_OK;
}

/* Top up the pending buffer to `want` bytes unless the input ends. */
static int fill(wstate *w, size_t want)
{
    if (w->pend_cap < want) {
        uint8_t *np = trz_big_realloc(w->pend, want);
        if (!np) return fail(w, TRZ_ERR_NOMEM, "input buffer");
        w->pend = np;
        w->pend_cap = want;
    }
    if (w->pend_len < want && !w->eof) {
        int64_t r = trz_src_read(&w->src, w->pend + w->pend_len, want - w->pend_len);
        if (r < 0) return fail(w, (int)r, w->src.kind ? "reading compressed input" : "read");
        w->pend_len += (size_t)r;
        if (w->pend_len < want) w->eof = 1;
    }
    return TRZ_OK;
}

static void choose_codec(wstate *w)
{
    trz_cctx *c = w->c;
    c->byte_order = TRZ_BO_NONE;
    if (c->forced) {
        c->chosen = c->forced;
        if (c->forced->probe) c->forced->probe(w->pend, w->pend_len, &c->byte_order);
        return;
    }
    const trz_codec *best = &trz_codec_raw;
    int best_score = 0, best_bo = TRZ_BO_NONE;
    size_t n = w->pend_len < (1u << 20) ? w->pend_len : (1u << 20);
    for (size_t i = 0; trz_codec_at(i); i++) {
        const trz_codec *k = trz_codec_at(i);
        int bo = TRZ_BO_NONE;
        int s = k->probe && n ? k->probe(w->pend, n, &bo) : 0;
        if (s > best_score) { best = k; best_score = s; best_bo = bo; }
    }
    /* A weak guess costs more than the raw codec would on a misfit. */
    if (best_score < 50) { best = &trz_codec_raw; best_bo = TRZ_BO_NONE; }
    c->chosen = best;
    c->byte_order = best_bo;
}

static int write_header(wstate *w)
{
    uint8_t h[TRZ_FILE_HDR_FIXED + 4];
    const trz_file_hdr f = { w->c->chosen->id, (uint8_t)w->c->byte_order, (uint8_t)w->c->level,
                             (uint8_t)w->c->backend, w->c->chosen->record_size, (uint32_t)w->c->chunk_bytes };
    return emit(w, h, trz_file_hdr_write(h, &f));
}

/* Decide how many pending bytes the next chunk takes. */
static size_t cut(wstate *w, const trz_codec *k, int *is_tail)
{
    size_t len = w->pend_len;
    *is_tail = 0;
    if (len > w->c->chunk_bytes) len = (size_t)w->c->chunk_bytes;
    if (k->record_size > 1) {
        size_t rs = k->record_size;
        size_t take = len - len % rs;
        if (w->c->chunk_records && take / rs > w->c->chunk_records) take = (size_t)w->c->chunk_records * rs;
        if (take == 0 && w->eof && w->pend_len > 0) { *is_tail = 1; return w->pend_len; }
        return take;
    }
    if (k->record_size == 0) {
        size_t take = len;
        if (!(w->eof && len == w->pend_len)) { /* more follows: end on a newline if one is there */
            size_t l = len;
            while (l > 0 && w->pend[l - 1] != '\n') l--;
            if (l > 0) take = l;
        }
        if (w->c->chunk_records) {
            uint64_t lines = trz_count_lines(w->pend, take, !w->prev_nl);
            if (lines > w->c->chunk_records)
                take = trz_line_offset(w->pend, take, !w->prev_nl, w->c->chunk_records);
        }
        return take;
    }
    if (w->c->chunk_records && len > w->c->chunk_records) len = (size_t)w->c->chunk_records;
    return len;
}

/* Chunks in flight: a ring of jobs that worker threads encode in
 * submission order while the main thread reads ahead and writes finished
 * chunks out in order.  No batch barrier: a worker that finishes takes the
 * next queued chunk at once, and reading overlaps encoding. */
typedef struct ring {
    trz_chunk_job job[256];
    uint8_t *buf[256];  /* each job's input buffer */
    uint8_t done[256];
    size_t q;           /* slots in use: one per thread and one read ahead */
    size_t head, take, tail; /* next to write out, next to encode, next to fill */
    int stop;           /* no more jobs will come (end or error) */
    int nworkers;
    pthread_t tid[256];
    pthread_mutex_t mu;
    pthread_cond_t work_cv, done_cv;
    wstate *w;
} ring;

typedef struct worker_arg { ring *r; int id; } worker_arg;

static void *ring_worker(void *v)
{
    worker_arg *a = v;
    ring *r = a->r;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->stop && r->take == r->tail) pthread_cond_wait(&r->work_cv, &r->mu);
        if (r->take == r->tail) break; /* stopped and nothing queued */
        size_t slot = r->take++ % r->q;
        pthread_mutex_unlock(&r->mu);
        trz_chunk_encode(&r->job[slot], r->w->z[a->id]); /* worker i owns back-end context i */
        pthread_mutex_lock(&r->mu);
        r->done[slot] = 1;
        pthread_cond_broadcast(&r->done_cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* Write out the oldest job once it is done and recycle its slot. */
static int ring_finish(ring *r)
{
    wstate *w = r->w;
    size_t slot = r->head % r->q;
    if (r->nworkers) {
        pthread_mutex_lock(&r->mu);
        while (!r->done[slot]) pthread_cond_wait(&r->done_cv, &r->mu);
        pthread_mutex_unlock(&r->mu);
    }
    trz_chunk_job *j = &r->job[slot];
    int rc = TRZ_OK;
    if (j->result) {
        snprintf(w->c->err, sizeof w->c->err, "chunk %zu: %s", w->nindex, j->err);
        rc = j->result;
    } else if (w->nindex == w->capindex) {
        size_t nc = w->capindex ? 2 * w->capindex : 64;
        index_entry *ni = realloc(w->index, nc * sizeof *ni);
        if (!ni) rc = fail(w, TRZ_ERR_NOMEM, "index");
        else w->index = ni, w->capindex = nc;
    }
    if (rc == TRZ_OK) {
        index_entry *e = &w->index[w->nindex++];
        e->offset = w->written;
        e->first_record = w->records;
        e->first_byte = w->bytes;
        e->nrec = j->nrec;
        e->raw = (uint32_t)j->raw_len;
        e->stored = (uint32_t)j->out.n;
        e->codec = j->out.p[4];
        e->flags = j->flags;
        rc = emit(w, j->out.p, j->out.n);
        w->records += j->nrec;
        w->bytes += j->raw_len;
        if (rc == TRZ_OK && w->c->progress) w->c->progress(w->c->progress_ctx, w->bytes, w->written);
    }
    j->out.n = 0; /* its memory serves the slot's next chunk */
    /* (no buffer of its own when one thread encoded it in the pending one) */
    if (r->buf[slot] && w->nspare < sizeof w->spare / sizeof w->spare[0]) w->spare[w->nspare++] = r->buf[slot];
    else free(r->buf[slot]);
    r->buf[slot] = NULL;
    r->done[slot] = 0;
    r->head++;
    return rc;
}

/* Queue the job in the tail slot; without workers, encode it here. */
static void ring_submit(ring *r)
{
    size_t slot = r->tail % r->q;
    if (!r->nworkers) {
        trz_chunk_encode(&r->job[slot], r->w->z[0]);
        r->done[slot] = 1;
        r->tail++;
        return;
    }
    pthread_mutex_lock(&r->mu);
    r->tail++;
    pthread_cond_signal(&r->work_cv);
    pthread_mutex_unlock(&r->mu);
}

/* Stop the workers and wait for them: at the end nothing is queued; after
 * an error the jobs not yet started are dropped, the running ones finish. */
static void ring_stop(ring *r)
{
    if (!r->nworkers) return;
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    r->tail = r->take; /* on an error, what was not started is dropped */
    pthread_cond_broadcast(&r->work_cv);
    pthread_mutex_unlock(&r->mu);
    for (int i = 0; i < r->nworkers; i++) pthread_join(r->tid[i], NULL);
    r->nworkers = 0;
}

static int write_index(wstate *w)
{
    trz_buf ix = { 0 };
    int rc = trz_index_write(&ix, w->index, w->nindex, w->written);
    if (rc == TRZ_OK) rc = emit(w, ix.p, ix.n);
    else fail(w, rc, "index");
    free(ix.p);
    return rc;
}

int trz_compress(trz_cctx *c, const trz_io *in, const trz_io *out)
{
    wstate *w = calloc(1, sizeof *w);
    ring *r = calloc(1, sizeof *r);
    worker_arg wa[256];
    int rc = TRZ_OK;
    c->err[0] = 0;
    if (!w || !r) { free(w); free(r); snprintf(c->err, sizeof c->err, "out of memory"); return TRZ_ERR_NOMEM; }
    w->c = c;
    w->out = out;
    w->prev_nl = 1;
    r->w = w;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->work_cv, NULL);
    pthread_cond_init(&r->done_cv, NULL);
    rc = trz_src_open(&w->src, in, c->unwrap);
    if (rc) { fail(w, rc, "read"); goto done; }
    if ((rc = fill(w, (size_t)c->chunk_bytes))) goto done;
    choose_codec(w);
    if ((rc = write_header(w))) goto done;

    int nthreads = c->threads < 1 ? 1 : c->threads > 128 ? 128 : c->threads;
    r->q = nthreads == 1 ? 1 : (size_t)nthreads + 1;
    for (int i = 0; i < nthreads; i++)
        if (!(w->z[i] = trz_zctx_create())) { rc = fail(w, TRZ_ERR_NOMEM, "back-end context"); goto done; }
    if (nthreads > 1) {
        for (int i = 0; i < nthreads; i++) {
            wa[i].r = r;
            wa[i].id = i;
            if (pthread_create(&r->tid[r->nworkers], NULL, ring_worker, &wa[i]) != 0) break;
            r->nworkers++;
        }
        if (r->nworkers == 0) r->q = 1; /* no thread started: encode inline */
    }
    while (w->pend_len > 0) {
        if (r->tail - r->head == r->q && (rc = ring_finish(r))) goto done;
        int is_tail;
        const trz_codec *k = c->chosen;
        size_t take = cut(w, k, &is_tail);
        size_t slot = r->tail % r->q;
        trz_chunk_job *j = &r->job[slot];
        trz_buf keep = j->out;
        memset(j, 0, sizeof *j);
        j->out.p = keep.p;
        j->out.cap = keep.cap;
        uint8_t *chunk = w->pend;
        size_t rest = w->pend_len - take;
        if (r->nworkers) {
            /* the chunk keeps the pending buffer; what follows the cut moves to a fresh one */
            uint8_t *next = w->nspare ? w->spare[--w->nspare] : trz_big_malloc(w->pend_cap);
            if (!next) { rc = fail(w, TRZ_ERR_NOMEM, "chunk buffer"); goto done; }
            memcpy(next, chunk + take, rest);
            w->pend = next;
            r->buf[slot] = chunk;
        }
        j->codec = is_tail ? &trz_codec_raw : k;
        j->raw = chunk;
        j->raw_len = take;
        j->byte_order = is_tail ? TRZ_BO_NONE : c->byte_order;
        j->level = c->level;
        j->backend = c->backend;
        j->verify = c->verify;
        if (k->record_size == 0) {
            j->flags = w->prev_nl ? 0 : TRZ_CHUNK_MIDLINE;
            j->nrec = (uint32_t)trz_count_lines(chunk, take, !w->prev_nl);
            w->prev_nl = take > 0 && chunk[take - 1] == '\n';
        } else {
            j->nrec = is_tail ? 0 : (uint32_t)(take / k->record_size);
        }
        ring_submit(r);
        /* one thread: the chunk is encoded by now, and its buffer takes what
         * follows the cut (a second buffer would be fresh pages to fault in) */
        if (!r->nworkers) memmove(chunk, chunk + take, rest);
        w->pend_len = rest;
        if ((rc = fill(w, (size_t)c->chunk_bytes))) goto done;
    }
    while (r->head < r->tail)
        if ((rc = ring_finish(r))) goto done;
    rc = write_index(w);
done:
    ring_stop(r);
    for (size_t i = 0; i < 256; i++) {
        free(r->buf[i]);
        free(r->job[i].out.p);
        trz_zctx_free(w->z[i]);
    }
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->work_cv);
    pthread_cond_destroy(&r->done_cv);
    trz_src_close(&w->src);
    free(w->pend);
    for (size_t i = 0; i < w->nspare; i++) free(w->spare[i]);
    free(w->index);
    free(w);
    free(r);
    trz_big_trim(); /* the model tables kept for the next chunk */
    return rc;
}
