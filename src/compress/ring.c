/* ring.c - the writer's chunks in flight: a ring of jobs that worker
 * threads encode in submission order while the writer (writer.c) reads
 * ahead and writes finished chunks out in order.  No batch barrier: a
 * worker that finishes takes the next queued chunk at once, and reading
 * overlaps encoding. */
#include "ring.h"

typedef struct worker_arg worker_arg;

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
        if (r->pipe) trz_chunk_finish(&r->job[slot], r->z[slot]);
        else trz_chunk_encode(&r->job[slot], r->z[a->id]); /* worker i owns back-end context i */
        pthread_mutex_lock(&r->mu);
        r->done[slot] = 1;
        pthread_cond_broadcast(&r->done_cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
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
    if (r->nworkers == 0) r->q = 1, r->pipe = 0; /* no thread started: encode inline */
}

void ring_wait(ring *r, size_t slot)
{
    if (!r->nworkers) return;
    pthread_mutex_lock(&r->mu);
    while (!r->done[slot]) pthread_cond_wait(&r->done_cv, &r->mu);
    pthread_mutex_unlock(&r->mu);
}

/* Queue the job in the tail slot; without workers, encode it here. */
void ring_submit(ring *r)
{
    size_t slot = r->tail % r->q;
    if (!r->nworkers) {
        trz_chunk_encode(&r->job[slot], r->z[0]);
        r->done[slot] = 1;
        r->tail++;
        return;
    }
    pthread_mutex_lock(&r->mu);
    r->tail++;
    pthread_cond_signal(&r->work_cv);
    pthread_mutex_unlock(&r->mu);
}

/* A chunk of a chain, with a worker: its records are coded here while the
 * worker finishes the chunk before (packs, checks it with the decoder's
 * model); then it waits for that chunk, and when it went out raw (so the
 * chain starts afresh after it, FORMAT.md "Chains") codes this one again
 * from a reset model.  The archive is the one a single thread writes. */
void pipe_submit(ring *r, const trz_codec *codec)
{
    size_t slot = r->tail % r->q;
    trz_chunk_job *j = &r->job[slot];
    trz_chunk_model(j, r->z[slot]);
    if (r->tail > r->head) {
        size_t prev = (r->tail - 1) % r->q;
        pthread_mutex_lock(&r->mu);
        while (!r->done[prev]) pthread_cond_wait(&r->done_cv, &r->mu);
        int again = r->job[prev].fell_back;
        pthread_mutex_unlock(&r->mu);
        if (again && j->model) {
            trz_model_reset(codec, j->model);
            trz_chunk_model(j, r->z[slot]);
        }
    }
    pthread_mutex_lock(&r->mu);
    r->tail++;
    pthread_cond_signal(&r->work_cv);
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
