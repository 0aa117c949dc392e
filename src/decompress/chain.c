/* chain.c - the reader's side of chains (FORMAT.md, "Chains"): a chunk
 * of a chain decodes with the model its group's earlier chunks left, so
 * chunks of chains are decoded in order, on the caller's thread, with one
 * model kept from chunk to chunk.  A chunk reached by a seek first has its
 * group's earlier chunks decoded (through the index, into a buffer of the
 * reader's, handed to no one).  A chunk whose chain broke cannot be
 * decoded: it is reported, and what follows the next group start decodes
 * again. */
#include "reader.h"

void rd_chain_lost(trz_reader *r) { r->cvalid = 0; }

void rd_chain_free(trz_reader *r)
{
    if (r->ccodec) trz_model_free(r->ccodec, r->cmodel);
    r->cmodel = NULL;
    r->ccodec = NULL;
    r->cvalid = r->cbroken = 0;
    rd_dchunk_free(&r->cfetch);
}

/* The first chunk of chunk n's group, through the index. */
static uint64_t group_of(const trz_reader *r, uint64_t n)
{
    while (n > 0 && !(r->chunks[n].flags & TRZ_CHUNK_RESTART) && !r->chunks[n].mfirst) n--;
    return n;
}

/* Decode d (its stored bytes fetched) into d->data with the chain's
 * model, and move the chain past it. */
static int step(trz_reader *r, dchunk *d, trz_zctx *z)
{
    if (d->h.flags & TRZ_CHUNK_RESTART) trz_model_reset(r->ccodec, r->cmodel);
    int own = d->h.codec == r->ccodec->id;
    int rc = trz_chunk_decode(&d->h, d->raw, d->raw_len, d->data, z, NULL, own ? r->cmodel : NULL, d->err,
                              sizeof d->err);
    __atomic_add_fetch(&r->decoded, 1, __ATOMIC_RELAXED);
    /* a chunk stored with another codec (raw: the guard, a partial record)
     * leaves the next one starting afresh, as the writer's did */
    if (!own) trz_model_reset(r->ccodec, r->cmodel);
    r->cvalid = rc == TRZ_OK;
    r->cnext = d->no + 1;
    return rc;
}

/* Bring the chain to chunk n from the first chunk of its group, g:
 * decode chunks g..n-1 into the reader's own buffer. */
static int replay(trz_reader *r, uint64_t g, uint64_t n, trz_zctx *z, char *err, size_t errlen)
{
    dchunk *f = &r->cfetch;
    for (uint64_t i = g; i < n; i++) {
        int rc = rd_idx_fetch(r, i, f);
        if (rc < 0) {
            snprintf(err, errlen, "chunk %llu of its chain is damaged (%.60s)", (unsigned long long)i, r->err);
            r->cbad = i, r->cbad_rc = rc;
            return rc;
        }
        if (f->cap < f->h.raw) {
            trz_big_release(f->data, f->cap);
            f->data = trz_big_malloc(f->h.raw);
            f->cap = f->data ? f->h.raw : 0;
            if (!f->data) { snprintf(err, errlen, "out of memory"); return TRZ_ERR_NOMEM; }
        }
        f->err[0] = 0;
        if ((rc = step(r, f, z))) {
            snprintf(err, errlen, "chunk %llu of its chain is damaged (%.60s)", (unsigned long long)i, f->err);
            r->cbad = i, r->cbad_rc = rc;
            return rc;
        }
    }
    return TRZ_OK;
}

void rd_chain_decode(trz_reader *r, dchunk *d, trz_zctx *z)
{
    d->err[0] = 0;
    if (!r->cmodel || r->ccodec != d->mcodec) {
        if (r->ccodec) trz_model_free(r->ccodec, r->cmodel);
        r->cmodel = NULL;
        r->ccodec = d->mcodec;
        r->cvalid = r->cbroken = 0;
        if (trz_model_create(d->mcodec, 0, 0, &r->cmodel) != TRZ_CODEC_OK) {
            r->ccodec = NULL;
            d->rc = TRZ_ERR_NOMEM;
            snprintf(d->err, sizeof d->err, "out of memory");
            return;
        }
    }
    int start = (d->h.flags & TRZ_CHUNK_RESTART) != 0;
    if (!start && !(r->cvalid && d->numbers_ok && r->cnext == d->no)) {
        /* not where the chain stands (a seek, or a loss before it): only
         * the index can bring it there */
        if (!r->seekable || !d->numbers_ok) {
            d->rc = TRZ_ERR_CORRUPT;
            snprintf(d->err, sizeof d->err, "the chain it continues is lost with earlier damage");
            return;
        }
        uint64_t g = group_of(r, d->no);
        if (r->cbroken && r->cgroup == g && r->cbad < d->no) {
            d->rc = r->cbad_rc;
            snprintf(d->err, sizeof d->err, "the chain it continues is lost (chunk %llu is damaged)",
                     (unsigned long long)r->cbad);
            return;
        }
        r->cbroken = 0;
        r->cgroup = g;
        int rc = replay(r, g, d->no, z, d->err, sizeof d->err);
        if (rc) {
            r->cbroken = 1;
            r->cvalid = 0;
            d->rc = rc == TRZ_ERR_NOMEM ? rc : TRZ_ERR_CORRUPT;
            return;
        }
    }
    if (start) r->cgroup = d->no, r->cbroken = 0;
    d->rc = step(r, d, z);
    if (d->rc && d->numbers_ok) {
        r->cbroken = 1;
        r->cbad = d->no;
        r->cbad_rc = d->rc;
        if (!r->seekable) r->cgroup = d->no; /* (sequential: only the next start resumes) */
    }
}
