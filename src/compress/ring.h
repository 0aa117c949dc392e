/* ring.h - the writer's chunks in flight (ring.c): jobs that worker
 * threads encode while writer.c reads ahead and writes the finished ones
 * out in order. */
#ifndef TRZ_RING_H
#define TRZ_RING_H

#include <pthread.h>

#include "../format/format.h"
#include "cctx.h"

/* Chunks in flight: a ring of jobs that worker threads encode in
 * submission order while the main thread reads ahead and writes finished
 * chunks out in order.  No batch barrier: a worker that finishes takes the
 * next queued chunk at once, and reading overlaps encoding. */
typedef struct ring {
    trz_chunk_job job[256];
    trz_know kview[256];    /* each job's view of the knowledge */
    trz_buf kstream[256];   /* each job's knowledge stream */
    uint8_t *buf[256];  /* each job's input buffer */
    uint8_t done[256];
    size_t q;           /* slots in use: one per thread and one read ahead */
    size_t head, take, tail; /* next to write out, next to encode, next to fill */
    int stop;           /* no more jobs will come (end or error) */
    int pipe;           /* a chain's pipeline: the caller codes each chunk's
                           records (trz_chunk_model), one worker finishes it
                           (trz_chunk_finish), each slot with a zctx of its own */
    int nworkers;
    pthread_t tid[256];
    pthread_mutex_t mu;
    pthread_cond_t work_cv, done_cv;
    trz_zctx **z;       /* the back-end contexts: one per worker, or per slot in a pipeline */
    struct worker_arg { struct ring *r; int id; } wa[256];
} ring;

/* A ring with no workers yet; z: the writer's back-end contexts. */
void ring_init(ring *r, trz_zctx **z);
/* Start n worker threads; if none starts, jobs are encoded inline. */
void ring_start(ring *r, int n);
/* Queue the job in the tail slot; without workers, encode it here. */
void ring_submit(ring *r);
/* A chain's chunk in the tail slot, its records coded here with codec's
 * model while the worker finishes the chunk before (ring.c). */
void pipe_submit(ring *r, const trz_codec *codec);
/* Wait until the job in slot is done (at once without workers). */
void ring_wait(ring *r, size_t slot);
/* Stop the workers and wait for them (jobs not started are dropped). */
void ring_stop(ring *r);
/* The lock and conditions given back (after ring_stop). */
void ring_destroy(ring *r);

#endif
