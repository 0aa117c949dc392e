/* ahead.c - the chunk queue: fetch chunks (through the index or
 * sequentially), decode them here or on decode-ahead threads, and serve
 * them in order with the checks that span two chunks. */
#include <pthread.h>

#include "reader.h"

/* The memory of the chunks in flight.  A chunk's decoding holds its stored
 * bytes, its decoded bytes and its decompressed streams, sizes its header
 * declares.  Each decode-ahead thread used to take the next chunk whatever
 * those came to, so a hostile archive whose chunks each declare the most
 * (about 1 GiB) cost a GiB per thread.  Now a chunk is decoded ahead only
 * while the chunks in flight (queued, decoding, decoded, and the one being
 * served) fit TRZ_DECODE_BUDGET together, what one chunk at the limits
 * needs; until then it waits, fetched (Q_HELD), and nothing is fetched
 * after it.  A chunk larger than that is decoded alone.  A chunk of the
 * default 16 MiB takes some tens of MiB, so a dozen or more fit: as many
 * threads as before decode them.  Buffers kept from chunk to chunk count in
 * the chunk that takes them; with threads, those above a thread's share of
 * the budget are given back instead of kept, so that what is kept does not
 * grow with the threads either. */
static uint64_t stream_bytes(const trz_chunk_hdr *h)
{
    uint64_t n = 0;
    for (unsigned k = 0; k < h->nstreams; k++)
        if (h->backend[k] != TRZ_BACKEND_STORE) n += h->rsize[k];
    return n;
}

static uint64_t chunk_cost(const dchunk *d)
{
    uint64_t data = d->data && d->cap >= d->h.raw ? d->cap : d->h.raw;
    return d->raw_cap + data + stream_bytes(&d->h);
}

static int fits(const trz_reader *r, uint64_t cost)
{
    return r->inflight == 0 || r->inflight + cost <= TRZ_DECODE_BUDGET;
}

static void decode_one(trz_reader *r, dchunk *d, trz_zctx *z)
{
    if (!d->data || d->cap < d->h.raw) { /* fresh pages fault in: keep buffers */
        trz_big_release(d->data, d->cap);
        d->data = trz_big_malloc(d->h.raw);
        d->cap = d->data ? d->h.raw : 0;
    }
    d->len = d->h.raw;
    d->codec = trz_codec_by_id(d->h.codec);
    d->byte_order = d->h.byte_order;
    d->flags = d->h.flags;
    if (d->krc) { d->rc = d->krc; return; } /* its knowledge is lost: d->err says which */
    d->err[0] = 0;
    if (!d->data) { d->rc = TRZ_ERR_NOMEM; snprintf(d->err, sizeof d->err, "out of memory"); return; }
    if (d->mchain) {
        rd_chain_decode(r, d, z);
    } else {
        d->rc = trz_chunk_decode(&d->h, d->raw, d->raw_len, d->data, z, d->mknow ? &d->kview : NULL, NULL, d->err,
                                 sizeof d->err);
        __atomic_add_fetch(&r->decoded, 1, __ATOMIC_RELAXED);
    }
    if (r->keep_max && stream_bytes(&d->h) > r->keep_max) trz_zctx_release(z, TRZ_SCRATCH_STREAMS);
    /* a text member's record count is its line starts: count them */
    if (d->rc == TRZ_OK && d->mcodec && d->mcodec->record_size == 0) {
        uint64_t lines = trz_count_lines(d->data, d->len, d->flags & TRZ_CHUNK_MIDLINE);
        if (lines != d->h.nrec) {
            d->rc = TRZ_ERR_CORRUPT;
            snprintf(d->err, sizeof d->err, "it holds %llu line starts where its header says %lu",
                     (unsigned long long)lines, (unsigned long)d->h.nrec);
        }
    }
}

/* Through the index: the chunks of a member of version 5 fetched in order
 * from its first take the member hash on; at its last, the hash must be
 * the one its index states (each chunk stood where it says, so only
 * chunks of another archive put in their place can fail it).  1, or the
 * damage. */
static int member_hash(trz_reader *r, const dchunk *d)
{
    const rchunk *c = &r->chunks[d->no];
    if (!c->mplaced) return 1;
    if (c->mfirst) r->ih = 0, r->ih_ok = 1;
    else if (r->ih_next != d->no) r->ih_ok = 0; /* after a seek: not the whole member */
    r->ih = trz_member_hash_step(r->ih, d->h.xxh, d->h.raw, d->h.nrec);
    r->ih_next = d->no + 1;
    if (!c->mlast || !r->ih_ok || r->ih == c->mhash) return 1;
    r->ih_ok = 0;
    rd_err(r, TRZ_ERR_CORRUPT, "chunk %llu: member hash mismatch: the member's chunks are not those it was written with",
           (unsigned long long)d->no);
    if (!r->salvage) return TRZ_ERR_CORRUPT;
    uint64_t f = d->no - c->mno;
    const rchunk *m = &r->chunks[f];
    trz_lost_range l = { f, m->first_record, c->first_record + c->nrec - m->first_record, m->first_byte,
                         c->first_byte + c->raw - m->first_byte };
    int rc = rd_note_range(r, l, m->offset, c->offset + c->stored, TRZ_LOST_UNPLACED);
    return rc ? rc : 1;
}

/* Fetch the next chunk's stored bytes into queue slot d.  1 = fetched,
 * 0 = no more chunks, < 0 = error.  In salvage mode a chunk whose header is
 * damaged is noted as lost and skipped. */
static int fetch_one(trz_reader *r, dchunk *d)
{
    for (;;) {
        int rc;
        if (r->seekable) {
            if (r->next_chunk >= r->nchunks) return 0;
            rc = rd_idx_fetch(r, r->next_chunk++, d);
            if (rc < 0 && r->salvage) { /* header damaged: skip, with the index's numbers */
                rd_know_lost(r);
                rd_chain_lost(r);
                r->knext = r->next_chunk;
                d->no = r->next_chunk - 1;
                d->first_record = r->chunks[d->no].first_record;
                d->h.nrec = r->chunks[d->no].nrec;
                d->h.raw = r->chunks[d->no].raw;
                d->kprior = TRZ_LOST_DAMAGED;
                if (rd_add_lost(r, d)) return rd_err(r, TRZ_ERR_NOMEM, "out of memory");
                continue;
            }
        } else {
            rc = rd_seq_fetch(r, d);
        }
        if (rc > 0 && r->seekable && (rc = member_hash(r, d)) < 0) return rc;
        if (rc > 0 && d->mchain) rd_chain_fetched(r, d);
        if (rc > 0 && (rc = rd_know_fetched(r, d)) == TRZ_OK) rc = 1;
        else if (rc == TRZ_ERR_NOMEM) rc = rd_err(r, rc, "chunk %llu: out of memory", (unsigned long long)d->no);
        return rc < 0 ? rc : rc > 0;
    }
}

/* Fetch the next chunk into the queue's tail, to be decoded.  1 = queued;
 * else what fetching ended with (0 = no more chunks, < 0 = error), kept
 * until the chunks queued before it have been served. */
static int queue_next(trz_reader *r)
{
    if (r->fetch_end) return r->fetch_rc;
    size_t slot = (r->qhead + r->qlen) % MAXQ;
    dchunk *d = &r->q[slot];
    int rc = fetch_one(r, d);
    if (rc <= 0) {
        r->fetch_end = 1;
        r->fetch_rc = rc;
        return rc;
    }
    d->cost = chunk_cost(d);
    int go = fits(r, d->cost);
    if (go) r->inflight += d->cost;
    r->held = !go;
    if (r->nworkers) pthread_mutex_lock(&r->mu);
    r->qstate[slot] = go ? Q_PENDING : Q_HELD;
    r->qlen++;
    if (r->nworkers) {
        if (go) pthread_cond_signal(&r->work_cv);
        pthread_mutex_unlock(&r->mu);
    }
    return 1;
}

/* The caller is done with the chunk it was served: its memory no longer
 * counts, and the chunk held at the queue's tail may go if it now fits.
 * Buffers above keep_max are given back here rather than passed on. */
static void release_cur(trz_reader *r)
{
    r->inflight -= r->cur.cost;
    r->cur.cost = 0;
    if (r->keep_max && r->cur.cap > r->keep_max) {
        trz_big_release(r->cur.data, r->cur.cap);
        r->cur.data = NULL;
        r->cur.cap = 0;
    }
    if (r->keep_max && r->cur.raw_cap > r->keep_max) {
        free(r->cur.raw);
        r->cur.raw = NULL;
        r->cur.raw_cap = 0;
    }
    size_t slot = (r->qhead + r->qlen + MAXQ - 1) % MAXQ;
    if (!r->held || !r->qlen || (r->qlen > 1 && !fits(r, r->q[slot].cost))) return; /* alone, it goes */
    r->inflight += r->q[slot].cost;
    r->held = 0;
    if (r->nworkers) pthread_mutex_lock(&r->mu);
    r->qstate[slot] = Q_PENDING;
    if (r->nworkers) {
        pthread_cond_signal(&r->work_cv);
        pthread_mutex_unlock(&r->mu);
    }
}

/* With the queue empty: what ended fetching, and fetching may start again
 * (after a seek, or in a following member). */
static int fetch_end_rc(trz_reader *r)
{
    int rc = r->fetch_rc;
    r->fetch_end = 0;
    r->fetch_rc = 0;
    return rc;
}

static trz_zctx *zctx_at(trz_reader *r, int i)
{
    if (!r->z[i]) r->z[i] = trz_zctx_create();
    return r->z[i];
}

/* ---- decode-ahead workers ---- */
/* The queue slot a worker decodes next (under the mutex), or MAXQ: the
 * first pending chunk that stands alone, or that is of a chain and next
 * on its lane, the lane standing at it (rd_chain_ready). */
static size_t pick(const trz_reader *r)
{
    unsigned blocked = 0; /* lanes with an earlier chunk not decoded yet */
    for (size_t i = 0; i < r->qlen; i++) {
        size_t slot = (r->qhead + i) % MAXQ;
        const dchunk *d = &r->q[slot];
        int st = r->qstate[slot];
        if (!d->mchain) {
            if (st == Q_PENDING) return slot;
            continue;
        }
        if (st == Q_PENDING && !(blocked >> d->lane & 1) && rd_chain_ready(r, d)) return slot;
        if (st != Q_DONE) blocked |= 1u << d->lane;
    }
    return MAXQ;
}

static void *worker(void *arg)
{
    const struct wref *w = arg;
    trz_reader *r = w->r;
    int id = w->id;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        size_t slot = MAXQ;
        while (!r->stop) {
            slot = pick(r);
            if (slot != MAXQ) break;
            pthread_cond_wait(&r->work_cv, &r->mu);
        }
        if (r->stop) break;
        dchunk *d = &r->q[slot];
        r->qstate[slot] = Q_DECODING;
        if (d->mchain) r->lane[d->lane].busy = 1;
        pthread_mutex_unlock(&r->mu);
        decode_one(r, d, r->z[id]);
        pthread_mutex_lock(&r->mu);
        rd_know_done(r, d);
        if (d->mchain) r->lane[d->lane].busy = 0;
        r->qstate[slot] = Q_DONE;
        pthread_cond_broadcast(&r->done_cv);
        if (d->mchain) pthread_cond_broadcast(&r->work_cv); /* its lane's next chunk may go now */
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* Start the workers; 0 = running, else fall back to one thread. */
static int pool_start(trz_reader *r)
{
    if (!r->sync_ready) {
        if (pthread_mutex_init(&r->mu, NULL)) return -1;
        if (pthread_cond_init(&r->work_cv, NULL)) { pthread_mutex_destroy(&r->mu); return -1; }
        if (pthread_cond_init(&r->done_cv, NULL)) {
            pthread_cond_destroy(&r->work_cv);
            pthread_mutex_destroy(&r->mu);
            return -1;
        }
        r->sync_ready = 1;
    }
    int want = r->threads;
    for (int i = 0; i < want; i++)
        if (!zctx_at(r, i)) return -1;
    r->stop = 0;
    r->keep_max = TRZ_DECODE_BUDGET / ((uint64_t)want + 2); /* the chunks of the queue and the one served */
    for (int i = 0; i < want; i++) {
        r->wref[i].r = r;
        r->wref[i].id = i;
        if (pthread_create(&r->tid[i], NULL, worker, &r->wref[i]) != 0) break;
        r->nworkers++;
    }
    return r->nworkers ? 0 : -1;
}

/* Let the workers finish the chunk each is decoding, then end them.  Chunks
 * fetched but not decoded stay pending, for one thread or a new pool. */
void rd_pool_stop(trz_reader *r)
{
    if (!r->nworkers) return;
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_broadcast(&r->work_cv);
    pthread_mutex_unlock(&r->mu);
    for (int i = 0; i < r->nworkers; i++) pthread_join(r->tid[i], NULL);
    r->nworkers = 0;
    r->stop = 0;
    r->keep_max = 0;
}

/* Keep the workers fed: fetch chunks until threads + 1 are queued, or one
 * waits for memory.  Through the index the next chunk's stored and decoded
 * sizes are known before its bytes are read: it is not read before they
 * fit. */
static void fetch_ahead(trz_reader *r)
{
    size_t want = (size_t)r->nworkers + 1;
    /* chains: a group's chunks decode one after another, so the workers
     * are busy only when the queue reaches into the groups that follow:
     * twice as deep (with 2 threads and groups of 8 chunks, the next
     * group is 5 chunks on when its turn comes) */
    if (r->qlen && r->q[(r->qhead + r->qlen - 1) % MAXQ].mchain) want *= 2;
    if (want > MAXQ) want = MAXQ;
    while (r->qlen < want && !r->held) {
        if (r->seekable && r->next_chunk < r->nchunks) {
            const rchunk *c = &r->chunks[r->next_chunk];
            if (!fits(r, (uint64_t)c->stored + c->raw)) break;
        }
        if (queue_next(r) <= 0) break;
    }
}

/* Several threads: wait for the head of the queue, refilling it as it goes.
 * 1 = the head is decoded, 0 = end, < 0 = error (fetching). */
static int wait_head(trz_reader *r)
{
    if (!r->nworkers && pool_start(r) != 0) return -2; /* no threads: decode here */
    fetch_ahead(r);
    if (r->qlen == 0) return fetch_end_rc(r);
    pthread_mutex_lock(&r->mu);
    dchunk *d = &r->q[r->qhead];
    if (d->mchain && r->qstate[r->qhead] == Q_PENDING && !r->lane[d->lane].busy) {
        /* the head, of a chain, not taken by a worker (its lane did not
         * stand at it: a replay through the index, or a broken chain to
         * report): here */
        r->qstate[r->qhead] = Q_DECODING;
        r->lane[d->lane].busy = 1;
        pthread_mutex_unlock(&r->mu);
        trz_zctx *z = zctx_at(r, r->nworkers);
        if (z) decode_one(r, d, z);
        else d->rc = TRZ_ERR_NOMEM, snprintf(d->err, sizeof d->err, "out of memory");
        pthread_mutex_lock(&r->mu);
        r->lane[d->lane].busy = 0;
        r->qstate[r->qhead] = Q_DONE;
        pthread_cond_broadcast(&r->work_cv);
    }
    while (r->qstate[r->qhead] != Q_DONE) pthread_cond_wait(&r->done_cv, &r->mu);
    pthread_mutex_unlock(&r->mu);
    return 1;
}

/* Make r->cur the next decoded chunk.  1 = have one, 0 = end, <0 error. */
int rd_next_chunk(trz_reader *r)
{
    if (r->failed) return r->failed;
    for (;;) {
        release_cur(r);
        int rc = -2;
        if (r->threads >= 2) rc = wait_head(r);
        if (rc == -2) { /* one thread: fetch and decode here, when reached */
            rc = r->qlen ? 1 : r->fetch_end ? fetch_end_rc(r) : queue_next(r);
            if (rc > 0 && r->qstate[r->qhead] == Q_HELD) { /* left by a pool that stopped: it is the last */
                r->inflight += r->q[r->qhead].cost;
                r->held = 0;
                r->qstate[r->qhead] = Q_PENDING;
            }
            if (rc > 0 && r->qstate[r->qhead] == Q_PENDING) {
                if (!zctx_at(r, 0)) return r->failed = rd_err(r, TRZ_ERR_NOMEM, "out of memory");
                dchunk *d = &r->q[r->qhead];
                if (!d->data && r->cur.data) {
                    /* the caller is done with the current chunk's bytes (a
                     * view lasts until the next call): one buffer serves
                     * every chunk, and the next one's pages are already in */
                    d->data = r->cur.data, d->cap = r->cur.cap;
                    r->cur.data = NULL, r->cur.cap = 0;
                }
                decode_one(r, d, r->z[0]);
                rd_know_done(r, d);
                r->qstate[r->qhead] = Q_DONE;
            }
            if (rc <= 0 && r->fetch_end) fetch_end_rc(r);
        }
        if (rc < 0) return r->failed = rc;
        if (rc == 0) return 0;
        /* the buffers of the chunk just consumed go to the slot the next
         * fetch fills, so that a few buffers circulate (fresh ones cost
         * page faults, and kept ones memory) */
        dchunk spare = { .data = r->cur.data, .cap = r->cur.cap, .raw = r->cur.raw, .raw_cap = r->cur.raw_cap };
        if (r->nworkers) pthread_mutex_lock(&r->mu);
        r->cur = r->q[r->qhead];
        memset(&r->q[r->qhead], 0, sizeof r->q[r->qhead]);
        r->qstate[r->qhead] = Q_FREE;
        r->qhead = (r->qhead + 1) % MAXQ;
        r->qlen--;
        dchunk *tail = &r->q[(r->qhead + r->qlen) % MAXQ];
        if (!tail->data && !tail->raw) {
            tail->data = spare.data, tail->cap = spare.cap;
            tail->raw = spare.raw, tail->raw_cap = spare.raw_cap;
        } else {
            rd_dchunk_free(&spare);
        }
        if (r->nworkers) pthread_mutex_unlock(&r->mu);
        if (r->nworkers) fetch_ahead(r); /* the workers go on while the caller uses this one */
        r->cur_pos = 0;
        r->have_cur = 1;
        if (r->cur.rc) {
            r->have_cur = 0; /* its bytes are not to be handed out, even when nothing follows */
            if (r->salvage) {
                if (rd_add_lost(r, &r->cur)) return r->failed = rd_err(r, TRZ_ERR_NOMEM, "out of memory");
                continue;
            }
            return r->failed = rd_err(r, r->cur.rc, "chunk %llu: %s", (unsigned long long)r->cur.no, r->cur.err);
        }
        /* a text chunk starts mid-line exactly when the one before it in the
         * member did not end a line (the member's first: checked at fetch) */
        const dchunk *c = &r->cur;
        if (c->mcodec && c->mcodec->record_size == 0 && !c->mfirst && r->prev_valid && c->numbers_ok &&
            c->no == r->prev_no + 1 && ((c->flags & TRZ_CHUNK_MIDLINE) != 0) == r->prev_nl) {
            r->have_cur = 0;
            return r->failed = rd_err(r, TRZ_ERR_CORRUPT, "chunk %llu: its mid-line flag disagrees with the end of "
                                    "chunk %llu", (unsigned long long)c->no, (unsigned long long)r->prev_no);
        }
        r->prev_valid = c->numbers_ok;
        r->prev_no = c->no;
        if (c->len) r->prev_nl = c->data[c->len - 1] == '\n';
        r->cur_rec_pos = 0;
        r->cur_rec_n = 0;
        return 1;
    }
}

/* Whether a chunk follows the current one: 1 (or an error fetching it,
 * reported when it is reached), 0 at the end.  Fetches it into the queue
 * when none is there yet, as reading on would. */
int rd_more_chunks(trz_reader *r)
{
    if (r->failed || r->qlen) return 1;
    if (r->fetch_end) return r->fetch_rc != 0;
    return queue_next(r) != 0;
}

void rd_drop_queue(trz_reader *r)
{
    rd_pool_stop(r);
    r->prev_valid = 0;
    r->inflight = r->cur.cost = 0;
    r->held = 0;
    r->kref[0] = r->kref[1] = 0; /* nothing queued reads a store any more */
    for (size_t i = 0; i < MAXQ; i++) {
        rd_dchunk_free(&r->q[i]);
        r->qstate[i] = Q_FREE;
    }
    r->qhead = r->qlen = 0;
    r->fetch_end = 0;
    r->fetch_rc = 0;
}
