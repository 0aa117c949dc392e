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
#define RING_LANES 4
#define RING_NONE UINT64_MAX
#define RING_LANE_BUDGET ((uint64_t)256 << 20) /* input read ahead for lanes */

typedef struct ring {
    trz_chunk_job job[256];
    trz_know kview[256];    /* each job's view of the knowledge */
    trz_buf kstream[256];   /* each job's knowledge stream */
    uint8_t *buf[256];  /* each job's input buffer */
    uint8_t done[256];
    size_t q;           /* slots in use: one per thread and one read ahead (lanes: ring.c) */
    size_t head, take, tail; /* next to write out, next to encode (lanes: the
                                oldest not finished), next to fill */
    int stop;           /* no more jobs will come (end or error) */
    /* chains (ring.c, "lanes"): a member's groups go to lanes in turn,
     * each with the models of its own (the encoder's, the self-check's)
     * and two back-end contexts; a lane codes its chunks in order, so the
     * archive is the one a single thread writes */
    int lanes;          /* 0: chunks that stand alone */
    uint64_t groups;    /* the groups begun so far */
    trz_model *em[RING_LANES], *dm[RING_LANES];
    struct ring_lane { uint64_t last, fin; unsigned n; int fell; } lane[RING_LANES];
    uint64_t pseq[256];  /* the job before in the lane (RING_NONE: none) */
    uint8_t lane_of[256], zi[256], stage[256], busy[256], spec[256];
    int nworkers;
    pthread_t tid[256];
    pthread_mutex_t mu;
    pthread_cond_t work_cv, done_cv;
    trz_zctx **z;       /* the back-end contexts: one per worker, or two per lane */
    struct worker_arg { struct ring *r; int id; } wa[256];
} ring;

/* A ring with no workers yet; z: the writer's back-end contexts. */
void ring_init(ring *r, trz_zctx **z);
/* Start n worker threads; if none starts, jobs are encoded inline. */
void ring_start(ring *r, int n);
/* Queue the job in the tail slot; without workers, encode it here. */
void ring_submit(ring *r);
/* The models (for a chain, a pair per lane), the back-end contexts and
 * the slots, then the workers (nthreads > 1); -1 when out of memory. */
int ring_setup(ring *r, const trz_codec *k, int level, int verify, int chain, int nthreads, uint64_t group_bytes,
               size_t chunk_bytes);
/* Wait until the job in slot is done (at once without workers). */
void ring_wait(ring *r, size_t slot);
/* Stop the workers and wait for them (jobs not started are dropped). */
void ring_stop(ring *r);
/* The lock and conditions given back (after ring_stop). */
void ring_destroy(ring *r);

#endif
