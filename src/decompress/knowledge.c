/* knowledge.c - the reader's side of carried knowledge (FORMAT.md,
 * "Knowledge"): each chunk's new facts are applied as the chunk is fetched,
 * in chunk order, before anything decodes it; a chunk reached by a seek
 * first has the knowledge of its group's earlier chunks replayed, reading
 * only their knowledge streams.  A chunk whose group lost a knowledge
 * stream cannot be decoded: it is reported, and what follows the group's
 * next restart decodes again. */
#include "reader.h"
#include "../format/know.h"

/* Release d's hold on its store. */
static void unhold(trz_reader *r, dchunk *d)
{
    if (d->mknow && d->kview.s && d->kstore >= 0) {
        r->kref[d->kstore]--;
        d->kstore = -1;
    }
}

void rd_know_done(trz_reader *r, dchunk *d) { unhold(r, d); }

void rd_know_lost(trz_reader *r) { r->kvalid = 0; }

void rd_know_free(trz_reader *r)
{
    trz_kstore_free(r->ks[0]);
    trz_kstore_free(r->ks[1]);
    r->ks[0] = r->ks[1] = NULL;
    free(r->ktmp.p);
    memset(&r->ktmp, 0, sizeof r->ktmp);
    trz_zctx_free(r->kz);
    r->kz = NULL;
    rd_dchunk_free(&r->kfetch);
    r->kvalid = 0;
}

/* Start the knowledge afresh, in a store no queued chunk reads. */
static int restart(trz_reader *r, uint64_t group)
{
    int next = r->nworkers ? r->kcur ^ 1 : r->kcur;
    if (r->nworkers) {
        pthread_mutex_lock(&r->mu);
        while (r->kref[next] > 0) pthread_cond_wait(&r->done_cv, &r->mu);
        pthread_mutex_unlock(&r->mu);
    }
    if (!r->ks[next] && !(r->ks[next] = trz_kstore_create())) return TRZ_ERR_NOMEM;
    trz_kstore_clear(r->ks[next]);
    r->kcur = next;
    r->kvalid = 1;
    r->kgroup = group;
    return TRZ_OK;
}

/* Apply chunk number no's knowledge stream (its stored bytes in d). */
static int apply(trz_reader *r, dchunk *d, uint64_t no)
{
    if (!r->kz && !(r->kz = trz_zctx_create())) return TRZ_ERR_NOMEM;
    int rc = trz_chunk_know(&d->h, d->raw, d->raw_len, d->mcodec, r->kz, &r->ktmp, r->ks[r->kcur]);
    if (rc == TRZ_ERR_NOMEM) return rc;
    if (rc) {
        r->kvalid = 0;
        r->klost = no;
        r->klost_rc = rc;
    }
    r->knext = no + 1;
    return TRZ_OK;
}

/* Through the index: make the store hold the knowledge of chunks g..n-1,
 * g being the restart that begins n's group. */
static int replay(trz_reader *r, uint64_t n)
{
    uint64_t g = n;
    while (g > 0 && !(r->chunks[g].flags & TRZ_CHUNK_RESTART) && !r->chunks[g].mfirst) g--;
    uint64_t from = g;
    if (r->kvalid && r->kgroup == g && r->knext <= n) from = r->knext;
    else if (restart(r, g)) return TRZ_ERR_NOMEM;
    for (uint64_t j = from; j < n && r->kvalid; j++) {
        int rc = rd_idx_fetch(r, j, &r->kfetch);
        if (rc < 0) {
            r->kvalid = 0;
            r->klost = j;
            r->klost_rc = rc;
            break;
        }
        if ((rc = apply(r, &r->kfetch, j))) return rc;
    }
    r->knext = n;
    return TRZ_OK;
}

int rd_know_fetched(trz_reader *r, dchunk *d)
{
    d->krc = TRZ_OK;
    d->kprior = TRZ_LOST_DAMAGED;
    d->kstore = -1;
    d->kview = (trz_know){ NULL, 0, NULL, 0 };
    if (!d->mknow) return TRZ_OK;
    int rc;
    if (d->h.flags & TRZ_CHUNK_RESTART) {
        if ((rc = restart(r, d->no))) return rc;
    } else if (r->seekable && r->knext != d->no && (rc = replay(r, d->no))) {
        return rc;
    }
    if (!r->kvalid) {
        d->krc = TRZ_ERR_CORRUPT;
        d->kprior = TRZ_LOST_KNOWLEDGE;
        if (r->seekable)
            snprintf(d->err, sizeof d->err, "the knowledge it builds on is lost (chunk %llu: %s)",
                     (unsigned long long)r->klost, trz_strerror(r->klost_rc));
        else
            snprintf(d->err, sizeof d->err, "the knowledge it builds on is lost with earlier damage");
        r->knext = d->no + 1;
        return TRZ_OK;
    }
    if ((rc = apply(r, d, d->no))) return rc;
    if (!r->kvalid) {
        d->krc = r->klost_rc;
        if (d->krc == TRZ_ERR_CHECKSUM) snprintf(d->err, sizeof d->err, "stored data checksum mismatch");
        else snprintf(d->err, sizeof d->err, "damaged knowledge stream (%s)", trz_strerror(r->klost_rc));
        return TRZ_OK;
    }
    d->kview = trz_kstore_view(r->ks[r->kcur], trz_kstore_count(r->ks[r->kcur]));
    d->kstore = r->kcur;
    if (r->nworkers) pthread_mutex_lock(&r->mu);
    r->kref[r->kcur]++;
    if (r->nworkers) pthread_mutex_unlock(&r->mu);
    return TRZ_OK;
}
