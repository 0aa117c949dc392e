/* chain.c - the reader's side of chains (FORMAT.md, "Chains"): a chunk
 * of a chain decodes with the model its group's earlier chunks left, so
 * the chunks of one group are decoded in order, with one model kept from
 * chunk to chunk: a lane.  Groups take the lanes in turn, so that with
 * decode-ahead threads the next group decodes while this one is served.  A
 * chunk reached by a seek first has its group's earlier chunks decoded
 * (through the index, into a buffer of its lane's, handed to no one; on
 * the caller's thread).  A chunk whose chain broke cannot be decoded: it is
 * reported, and what follows the next group start decodes again. */
#include "reader.h"

/* Fetching runs ahead of decoding (decode-ahead threads): a loss, or the
 * next member's header, is met while earlier chunks of a chain are still to
 * be decoded.  So a loss does not clear the lanes, which those chunks
 * need; it starts an epoch, and a chain continues only from a chunk of its
 * own epoch. */
void rd_chain_lost(trz_reader *r)
{
    r->chain_epoch++;
}

void rd_chain_free(trz_reader *r)
{
    for (int i = 0; i < MAXLANE; i++) {
        clane *l = &r->lane[i];
        if (l->ccodec) trz_model_free(l->ccodec, l->cmodel);
        l->cmodel = NULL;
        l->ccodec = NULL;
        l->cvalid = l->cbroken = 0;
        rd_dchunk_free(&l->cfetch);
    }
}

static int starts_group(const dchunk *d)
{
    return (d->h.flags & TRZ_CHUNK_RESTART) != 0;
}

void rd_chain_fetched(trz_reader *r, dchunk *d)
{
    /* (a group stays on its lane to its end, even when the thread count
     * changes on the way) */
    int nl = r->threads < 2 ? 1 : r->threads < MAXLANE ? r->threads : MAXLANE;
    if (starts_group(d) || d->mfirst) r->flane = (r->flane + 1) % nl;
    d->lane = r->flane;
    d->cepoch = r->chain_epoch;
}

/* Whether lane l stands just before d: the chunk before it, decoded with no
 * loss fetched in between. */
static int stands_at(const clane *l, const dchunk *d)
{
    return l->cvalid && d->numbers_ok && l->cnext == d->no && l->cepoch == d->cepoch;
}

int rd_chain_ready(const trz_reader *r, const dchunk *d)
{
    const clane *l = &r->lane[d->lane];
    if (l->busy) return 0;
    if (starts_group(d)) return 1;
    return l->cmodel && l->ccodec == d->mcodec && stands_at(l, d);
}

/* Where the chain that chunk n continues begins, through the index: its
 * group's first chunk, or the chunk after the last one stored with another
 * codec than the member's (the models start afresh after it). */
static uint64_t group_of(const trz_reader *r, uint64_t n)
{
    while (n > 0 && !(r->chunks[n].flags & TRZ_CHUNK_RESTART) && !r->chunks[n].mfirst &&
           r->chunks[n - 1].codec == r->chunks[n - 1].mcodec)
        n--;
    return n;
}

/* Decode d (its stored bytes fetched) into d->data with lane l's model,
 * and move the chain past it; fresh: the models start afresh at d. */
static int step(trz_reader *r, clane *l, dchunk *d, trz_zctx *z, int fresh)
{
    if (fresh || starts_group(d)) trz_model_reset(l->ccodec, l->cmodel);
    int own = d->h.codec == l->ccodec->id;
    int rc = trz_chunk_decode(&d->h, d->raw, d->raw_len, d->data, z, NULL, own ? l->cmodel : NULL, d->err,
                              sizeof d->err);
    __atomic_add_fetch(&r->decoded, 1, __ATOMIC_RELAXED);
    /* a chunk stored with another codec (raw: the guard, a partial record)
     * decodes on its own and leaves the next one starting afresh, as the
     * writer's did, whether or not its own bytes were intact */
    if (!own) trz_model_reset(l->ccodec, l->cmodel);
    l->cvalid = rc == TRZ_OK || !own;
    l->cnext = d->no + 1;
    return rc;
}

/* Bring lane l's chain to chunk n from the first chunk of its group, g:
 * decode chunks g..n-1 into the lane's own buffer. */
static int replay(trz_reader *r, clane *l, uint64_t g, uint64_t n, trz_zctx *z, char *err, size_t errlen)
{
    dchunk *f = &l->cfetch;
    for (uint64_t i = g; i < n; i++) {
        int rc = rd_idx_fetch(r, i, f);
        if (rc < 0) {
            snprintf(err, errlen, "chunk %llu of its chain is damaged (%.60s)", (unsigned long long)i, r->err);
            l->cbad = i, l->cbad_rc = rc;
            return rc;
        }
        if (f->cap < f->h.raw) {
            trz_big_release(f->data, f->cap);
            f->data = trz_big_malloc(f->h.raw);
            f->cap = f->data ? f->h.raw : 0;
            if (!f->data) { snprintf(err, errlen, "out of memory"); return TRZ_ERR_NOMEM; }
        }
        f->err[0] = 0;
        if ((rc = step(r, l, f, z, i == g))) {
            snprintf(err, errlen, "chunk %llu of its chain is damaged (%.60s)", (unsigned long long)i, f->err);
            l->cbad = i, l->cbad_rc = rc;
            return rc;
        }
    }
    return TRZ_OK;
}

void rd_chain_decode(trz_reader *r, dchunk *d, trz_zctx *z)
{
    clane *l = &r->lane[d->lane >= 0 && d->lane < MAXLANE ? d->lane : 0];
    d->err[0] = 0;
    if (!l->cmodel || l->ccodec != d->mcodec) {
        if (l->ccodec) trz_model_free(l->ccodec, l->cmodel);
        l->cmodel = NULL;
        l->ccodec = d->mcodec;
        l->cvalid = l->cbroken = 0;
        if (trz_model_create(d->mcodec, 0, 0, &l->cmodel) != TRZ_CODEC_OK) {
            l->ccodec = NULL;
            d->rc = TRZ_ERR_NOMEM;
            snprintf(d->err, sizeof d->err, "out of memory");
            return;
        }
    }
    /* a chunk stored with another codec decodes on its own, wherever the chain stands */
    int own = d->h.codec == d->mcodec->id;
    int start = starts_group(d), fresh = 0;
    if (!start && own && !stands_at(l, d)) {
        /* not where the chain stands (a seek, or a loss before it): only
         * the index can bring it there */
        if (!r->seekable || !d->numbers_ok) {
            d->rc = TRZ_ERR_CORRUPT;
            d->kprior = TRZ_LOST_CHAIN;
            snprintf(d->err, sizeof d->err, "the chain it continues is lost with earlier damage");
            return;
        }
        uint64_t g = group_of(r, d->no);
        if (l->cbroken && l->cgroup == g && l->cbad < d->no) {
            d->rc = l->cbad_rc;
            d->kprior = TRZ_LOST_CHAIN;
            snprintf(d->err, sizeof d->err, "the chain it continues is lost (chunk %llu is damaged)",
                     (unsigned long long)l->cbad);
            return;
        }
        l->cbroken = 0;
        l->cgroup = g;
        fresh = g == d->no; /* right after a chunk stored raw */
        int rc = fresh ? TRZ_OK : replay(r, l, g, d->no, z, d->err, sizeof d->err);
        if (rc) {
            l->cbroken = 1;
            l->cvalid = 0;
            d->rc = rc == TRZ_ERR_NOMEM ? rc : TRZ_ERR_CORRUPT;
            if (rc != TRZ_ERR_NOMEM) d->kprior = TRZ_LOST_CHAIN;
            return;
        }
    }
    if (start) l->cgroup = d->no, l->cbroken = 0;
    d->rc = step(r, l, d, z, fresh);
    l->cepoch = d->cepoch;
    if (d->rc && d->numbers_ok) {
        l->cbroken = 1;
        l->cbad = d->no;
        l->cbad_rc = d->rc;
        if (!r->seekable) l->cgroup = d->no; /* (sequential: only the next start resumes) */
    }
}
