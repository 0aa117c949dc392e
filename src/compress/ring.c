/* ring.c - the writer's chunks in flight: a ring of jobs that worker
 * threads encode in submission order while the writer (writer.c) reads
 * ahead and writes finished chunks out in order.  No batch barrier: a
 * worker that finishes takes the next queued chunk at once, and reading
 * overlaps encoding. */
#include "ring.h"

typedef struct worker_arg worker_arg;

/* ---- lanes: a chain's groups coded at once ----
 * Each chunk of a chain has two steps: coding its records with the lane's
 * encoder model (trz_chunk_model), then packing and the self-check with
 * the lane's decoder model (trz_chunk_finish).  Within a lane, each step
 * runs in the chunks' order; a chunk's records may be coded while the
 * chunk before is still being finished, and are coded again, from a reset
 * model, when that one went out raw (FORMAT.md "Chains": the chain starts
 * afresh after it).  Groups start from reset models, so the lanes are
 * independent and the archive is the one a single thread writes.  The
 * workers take the oldest step that may run. */

/* Whether job s (a sequence number) of lane l is finished: a lane's
 * chunks finish in order. */
static int fin(const ring *r, int l, uint64_t s)
{
    return s == RING_NONE || r->lane[l].fin > s;
}

/* The oldest step a worker may take: 1 code the records of job *seq, 2
 * finish it, 0 none yet.  (r->take: the oldest job not finished; the
 * writer reuses a slot only after its job is written.) */
static int lane_step(const ring *r, uint64_t *seq)
{
    for (uint64_t s = r->take; s < r->tail; s++) {
        size_t i = s % r->q;
        if (r->busy[i] || r->stage[i] == 2) continue;
        int l = r->lane_of[i];
        uint64_t p = r->pseq[i];
        int ok = fin(r, l, p); /* the decoder's model is past the chunk before */
        if (r->stage[i] == 0 && !ok) { /* the encoder's is, and coded it for good */
            size_t pi = p % r->q;
            ok = r->stage[pi] == 1 && fin(r, l, r->pseq[pi]);
        }
        if (ok) {
            *seq = s;
            return r->stage[i] + 1;
        }
    }
    return 0;
}

static void lane_worker(ring *r)
{
    pthread_mutex_lock(&r->mu);
    for (;;) {
        uint64_t s = 0;
        int step = 0;
        while (!r->stop && !(step = lane_step(r, &s))) pthread_cond_wait(&r->work_cv, &r->mu);
        if (r->stop) break;
        size_t i = s % r->q;
        trz_chunk_job *j = &r->job[i];
        int l = r->lane_of[i];
        uint64_t p = r->pseq[i];
        r->busy[i] = 1;
        if (step == 1) {
            int restart = (j->flags & TRZ_CHUNK_RESTART) != 0, done = fin(r, l, p);
            int reset = j->model && (restart || (done && p != RING_NONE && r->lane[l].fell));
            r->spec[i] = !done && !restart;
            pthread_mutex_unlock(&r->mu);
            if (reset) trz_model_reset(j->codec, j->model);
            trz_chunk_model(j, r->z[r->zi[i]]);
            pthread_mutex_lock(&r->mu);
            /* coded while the chunk before was finished, which went out raw */
            int again = r->spec[i] && fin(r, l, p) && r->lane[l].fell;
            r->stage[i] = again ? 0 : 1;
        } else {
            pthread_mutex_unlock(&r->mu);
            trz_chunk_finish(j, r->z[r->zi[i]]);
            pthread_mutex_lock(&r->mu);
            r->stage[i] = 2;
            r->done[i] = 1;
            r->lane[l].fin = s + 1;
            r->lane[l].fell = j->fell_back;
            /* the next chunk of the lane, if coded before this one went raw */
            for (uint64_t t = s + 1; j->fell_back && t < r->tail; t++) {
                size_t k = t % r->q;
                if (r->pseq[k] == s && r->stage[k] == 1 && r->spec[k] && !r->busy[k]) r->stage[k] = 0;
            }
            while (r->take < r->tail && r->stage[r->take % r->q] == 2) r->take++;
            pthread_cond_broadcast(&r->done_cv);
        }
        r->busy[i] = 0;
        pthread_cond_broadcast(&r->work_cv);
    }
    pthread_mutex_unlock(&r->mu);
}

static void *ring_worker(void *v)
{
    worker_arg *a = v;
    ring *r = a->r;
    if (r->lanes) {
        lane_worker(r);
        return NULL;
    }
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->stop && r->take == r->tail) pthread_cond_wait(&r->work_cv, &r->mu);
        if (r->take == r->tail) break; /* stopped and nothing queued */
        size_t slot = r->take++ % r->q;
        pthread_mutex_unlock(&r->mu);
        trz_chunk_encode(&r->job[slot], r->z[a->id]); /* worker i owns back-end context i */
        pthread_mutex_lock(&r->mu);
        r->done[slot] = 1;
        pthread_cond_broadcast(&r->done_cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* Slots for lanes: a group's chunks for each lane but one, read ahead so
 * that the lanes work at once, within RING_LANE_BUDGET. */
static size_t lane_slots(int lanes, uint64_t group_bytes, size_t chunk_bytes)
{
    uint64_t per = chunk_bytes ? (group_bytes + chunk_bytes - 1) / chunk_bytes : 1;
    uint64_t q = (uint64_t)(lanes - 1) * per + (uint64_t)lanes + 2;
    uint64_t cap = chunk_bytes ? RING_LANE_BUDGET / chunk_bytes : 3;
    if (q > cap) q = cap;
    return q < 3 ? 3 : q > 256 ? 256 : (size_t)q;
}

int ring_setup(ring *r, const trz_codec *k, int level, int verify, int chain, int nthreads, uint64_t group_bytes,
               size_t chunk_bytes)
{
    /* a chain's groups are coded in lanes, a pair of models each, and a
     * lane keeps two threads busy (one chunk's records coded while the one
     * before is checked): one lane for two threads, as many as the memory
     * of a group read ahead allows.  (-T2 in two lanes, measured: uop
     * 15% faster, ChampSim 7% slower, 1.8-2.7 times the memory.) */
    int lanes = (nthreads + 1) / 2;
    r->lanes = chain ? (lanes < RING_LANES ? lanes : RING_LANES) : 0;
    for (int l = 0; l < r->lanes; l++)
        if (trz_model_create(k, level, 0, &r->em[l]) != TRZ_CODEC_OK ||
            (verify && trz_model_create(k, 0, 0, &r->dm[l]) != TRZ_CODEC_OK))
            return -1;
    /* one thread: a chunk's self-check runs before the next chunk is
     * coded, so the decoder may read the encoder's history window */
    if (nthreads == 1 && r->lanes) trz_model_share(k, r->dm[0], r->em[0]);
    size_t nz = r->lanes && nthreads > 1 ? 2 * (size_t)r->lanes : (size_t)nthreads;
    r->q = nthreads == 1 ? 1 : r->lanes ? lane_slots(r->lanes, group_bytes, chunk_bytes) : (size_t)nthreads + 1;
    for (size_t i = 0; i < nz; i++)
        if (!(r->z[i] = trz_zctx_create())) return -1;
    if (nthreads > 1) ring_start(r, nthreads);
    return 0;
}

void ring_init(ring *r, trz_zctx **z)
{
    r->z = z;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->work_cv, NULL);
    pthread_cond_init(&r->done_cv, NULL);
}

void ring_start(ring *r, int n)
{
    for (int i = 0; i < n; i++) {
        r->wa[i].r = r;
        r->wa[i].id = i;
        if (pthread_create(&r->tid[r->nworkers], NULL, ring_worker, &r->wa[i]) != 0) break;
        r->nworkers++;
    }
    if (r->nworkers == 0) r->q = 1; /* no thread started: encode inline */
}

void ring_wait(ring *r, size_t slot)
{
    if (!r->nworkers) return;
    pthread_mutex_lock(&r->mu);
    while (!r->done[slot]) pthread_cond_wait(&r->done_cv, &r->mu);
    pthread_mutex_unlock(&r->mu);
}

/* Queue the job in the tail slot; without workers, encode it here (a
 * chain's model reset where its group starts). */
void ring_submit(ring *r)
{
    size_t slot = r->tail % r->q;
    trz_chunk_job *j = &r->job[slot];
    if (!r->nworkers) {
        if (j->model && (j->flags & TRZ_CHUNK_RESTART)) trz_model_reset(j->codec, j->model);
        trz_chunk_encode(j, r->z[0]);
        r->done[slot] = 1;
        r->tail++;
        return;
    }
    pthread_mutex_lock(&r->mu);
    if (r->lanes) {
        int l = (int)((r->groups ? r->groups - 1 : 0) % (uint64_t)r->lanes);
        struct ring_lane *ln = &r->lane[l];
        r->lane_of[slot] = (uint8_t)l;
        r->pseq[slot] = ln->last ? ln->last - 1 : RING_NONE;
        r->zi[slot] = (uint8_t)(2 * l + (ln->n++ & 1)); /* the chunk before may still hold the other */
        r->stage[slot] = r->busy[slot] = r->spec[slot] = 0;
        ln->last = r->tail + 1;
    }
    r->tail++;
    pthread_cond_broadcast(&r->work_cv);
    pthread_mutex_unlock(&r->mu);
}

/* Stop the workers and wait for them: at the end nothing is queued; after
 * an error the jobs not yet started are dropped, the running ones finish. */
void ring_stop(ring *r)
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

void ring_destroy(ring *r)
{
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->work_cv);
    pthread_cond_destroy(&r->done_cv);
}
