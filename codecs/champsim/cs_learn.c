/* cs_learn.c - the ChampSim codec's trz_codec.learn: the facts a chunk
 * teaches (champsim.md, "Knowledge"), which the record model starts from. */
#include "cs_model.h"

/* trz_codec.learn: a fact for each ip the member does not know yet, its
 * fall-through length and taken successor from the records after it in
 * the chunk (as the model would learn them). */
typedef struct lfact {
    uint64_t ip, target;
    uint8_t regs[8], ib, bt, mm, len;
    uint8_t used, known, has_t; /* known: the member has a fact for it already */
    uint32_t first;             /* record of first use: new facts go out in that order */
} lfact;

typedef struct ltab { lfact *t; size_t cap, n; } ltab;

static lfact *ltab_slot(lfact *t, size_t cap, uint64_t ip)
{
    size_t h = (size_t)h32(ip) & (cap - 1);
    while (t[h].used && t[h].ip != ip) h = (h + 1) & (cap - 1);
    return &t[h];
}

static int ltab_grow(ltab *lt)
{
    size_t nc = lt->cap ? 2 * lt->cap : 4096;
    lfact *nt = calloc(nc, sizeof *nt);
    if (!nt) return -1;
    for (size_t j = 0; j < lt->cap; j++)
        if (lt->t[j].used) *ltab_slot(nt, nc, lt->t[j].ip) = lt->t[j];
    free(lt->t);
    lt->t = nt;
    lt->cap = nc;
    return 0;
}

static int by_first(const void *a, const void *b)
{
    const lfact *x = *(const lfact *const *)a, *y = *(const lfact *const *)b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* What instruction e led to, ip next: its fall-through length, or its
 * first taken successor. */
static void learn_after(lfact *e, uint64_t ip)
{
    uint64_t d = ip - e->ip;
    if (!e->bt) {
        if (!e->len && d >= 1 && d < 256) e->len = (uint8_t)d;
    } else if (!e->has_t && cs_kind(e->regs) != CS_K_RET) {
        e->target = d;
        e->has_t = 1;
    }
}

/* Nothing left to learn about e. */
static int learn_done(const lfact *e)
{
    return e->known || (!e->bt ? e->len != 0 : e->has_t || cs_kind(e->regs) == CS_K_RET);
}

#define LEARN_DONE 8192

TRZ_FORCE_INLINE int cs_learn_impl(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, trz_know_add_fn add,
                         void *ctx, const cs_layout *L)
{
    if (len % L->size || nrec != len / L->size) return TRZ_CODEC_UNSUPPORTED;
    ltab lt = { NULL, 0, 0 };
    /* ips with nothing left to learn, direct-mapped: most records skip the
     * table (which misses the cache), and what follows them teaches nothing */
    uint64_t *done = calloc(LEARN_DONE, sizeof *done);
    if (!done || ltab_grow(&lt)) { free(done); return TRZ_CODEC_NOMEM; }
    lfact *prev = NULL;
    size_t nnew = 0;
    for (size_t i = 0; i < nrec; i++) {
        const uint8_t *p = in + i * L->size;
        uint64_t ip = trz_ld_le64(p);
        if (prev && !prev->known) { /* what the previous instruction led to */
            learn_after(prev, ip);
            if (learn_done(prev)) done[h32(prev->ip) & (LEARN_DONE - 1)] = prev->ip + 1;
        }
        if (done[h32(ip) & (LEARN_DONE - 1)] == ip + 1) { /* ip + 1: 0 stays empty */
            prev = NULL;
            continue;
        }
        if (2 * (lt.n + 1) > lt.cap && ltab_grow(&lt)) { free(lt.t); free(done); return TRZ_CODEC_NOMEM; }
        lfact *e = ltab_slot(lt.t, lt.cap, ip);
        if (!e->used) {
            size_t n;
            e->used = 1;
            e->ip = ip;
            e->first = (uint32_t)i;
            e->known = trz_know_get(k, ip, &n) != NULL;
            lt.n++;
            if (!e->known) {
                cs_rec r;
                cs_unpack(L, p, &r);
                memcpy(e->regs, r.regs, 8);
                e->ib = r.ib;
                unsigned kind = cs_kind(r.regs);
                /* a taken bit coded per record is no static field */
                e->bt = (kind == CS_K_COND || kind == CS_K_OTHER) && r.bt <= 1 ? 0 : r.bt;
                e->mm = r.mm;
                nnew++;
            }
            if (e->known) done[h32(ip) & (LEARN_DONE - 1)] = ip + 1;
        }
        prev = e;
    }
    free(done);
    lfact **nw = malloc((nnew ? nnew : 1) * sizeof *nw);
    if (!nw) { free(lt.t); return TRZ_CODEC_NOMEM; }
    size_t m = 0;
    for (size_t j = 0; j < lt.cap; j++)
        if (lt.t[j].used && !lt.t[j].known) nw[m++] = &lt.t[j];
    qsort(nw, m, sizeof *nw, by_first);
    for (size_t j = 0; j < m; j++) {
        uint8_t f[CS_FACT_T];
        memcpy(f, nw[j]->regs, 8);
        f[8] = nw[j]->ib;
        f[9] = nw[j]->bt;
        f[10] = nw[j]->mm;
        f[11] = nw[j]->len;
        trz_st_le64(f + 12, nw[j]->target);
        add(ctx, nw[j]->ip, f, nw[j]->has_t ? CS_FACT_T : CS_FACT);
    }
    free(nw);
    free(lt.t);
    return TRZ_CODEC_OK;
}

int cs_learn64(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, int bo, trz_know_add_fn add,
              void *ctx)
{
    (void)bo;
    return cs_learn_impl(k, in, len, nrec, add, ctx, &cs_layout64);
}
int cs_learn96(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, int bo, trz_know_add_fn add,
              void *ctx)
{
    (void)bo;
    return cs_learn_impl(k, in, len, nrec, add, ctx, &cs_layout96);
}
