/* cs_model.c - the ChampSim codec's range-coded model: its tables made,
 * sized at the chunk (champsim.md) and cleared, and the smaller model of a
 * knowledge stream.  Once a chunk, so out of the coder's file. */
#include "cs_model.h"

/* Table sizes are part of the stream format (champsim.md). */
/* Table sizes are powers of two that grow with the chunk's record count n
 * (L = the bit length of n), up to these (a 16 MiB chunk of 64-byte
 * records, L = 19, reaches them all):
 *   PC entries (2-way sets)      2^clamp(L, 8, 16)
 *   (PC, slot) memory entries    2^clamp(L, 8, 16)
 *   static-field contexts        2^clamp(L + 4, 12, 20) states (trees of 256)
 *   fall-through length contexts 2^clamp(L - 4, 4, 12) (trees of 16)
 *   each branch-outcome table    2^clamp(L - 4, 8, 14)
 *   match table                  2^clamp(L, 8, 18) */
#ifndef MT_MAX
#define MT_MAX 18
#endif

static cs_sizes table_sizes(uint64_t nrec)
{
    int L = 0;
    while (L < 40 && (nrec >> L)) L++;
#define CLAMP(x, lo, hi) ((unsigned)((x) < (lo) ? (lo) : (x) > (hi) ? (hi) : (x)))
    cs_sizes z = { CLAMP(L, 8, 16), CLAMP(L, 8, 16), CLAMP(L + 4, 12, 20), CLAMP(L - 4, 4, 12), CLAMP(L - 4, 8, 14),
                   CLAMP(L, 8, MT_MAX) };
#undef CLAMP
    return z;
}

void cs_smodel_init(cs_smodel *s, size_t n)
{
    rc_cnt_fill((rc_cnt *)(void *)s, n * sizeof *s / sizeof(rc_cnt));
}

/* The small models' probabilities at 1/2, the state empty. */
static void model_init_small(cs_model *m)
{
    rc_cnt_fill(m->ip_hit, sizeof m->ip_hit / sizeof(rc_cnt));
    cs_p_fill(m->ip_mhit, sizeof m->ip_mhit / sizeof(cs_p));
    cs_smodel_init(m->ip_delta, sizeof m->ip_delta / sizeof m->ip_delta[0]);
    rc_cnt_fill(m->sig_hit, sizeof m->sig_hit / sizeof(rc_cnt));
    rc_cnt_fill(m->run2, sizeof m->run2 / sizeof(rc_cnt));
    cs_p_fill(m->btdyn, sizeof m->btdyn / sizeof(cs_p));
    cs_p_fill(m->mem_eq, sizeof m->mem_eq / sizeof(cs_p));
    cs_p_fill(m->mem_eqidx, sizeof m->mem_eqidx / sizeof(cs_p));
    rc_cnt_fill(m->mem_hit, sizeof m->mem_hit / sizeof(rc_cnt));
    rc_cnt_fill(&m->md.len[0][0], sizeof m->md.len / sizeof(rc_cnt));
    rc_cnt_fill(&m->md.base[0][0], sizeof m->md.base / sizeof(rc_cnt));
    rc_cnt_fill(&m->md.mant[0][0], sizeof m->md.mant / sizeof(rc_cnt));
    rc_cnt_fill(&m->md.low[0][0], sizeof m->md.low / sizeof(rc_cnt));
    rc_cnt_fill(m->md.sign, sizeof m->md.sign / sizeof(rc_cnt));
    rc_cnt_fill(m->brm, sizeof m->brm / sizeof(rc_cnt));
    for (int k = 0; k < B_NSET; k++) cs_mixw_init(&m->bw[k], B_NIN, 1 << 14);
    for (int k = 0; k < 11 * 4; k++) m->sw[k][0] = m->sw[k][1] = m->sw[k][2] = 21845;
    for (int k = 0; k < 4; k++) cs_mixw_init(&m->lw[k], 3, 1 << 15);
    cs_p_fill(m->ex_same, sizeof m->ex_same / sizeof(cs_p));
    cs_p_fill(&m->ex_byte[0][0], sizeof m->ex_byte / sizeof(cs_p));
    cs_mixtab_init(&m->mx);
    m->mptr = SIZE_MAX;
}

/* The tables of m (m->z, and the block m->pc of T_ALL bytes), fresh. */
static void model_clear(cs_model *m)
{
    cs_sizes z = m->z;
    uint8_t *big = (uint8_t *)(void *)m->pc, *ring = m->ring;
    unsigned ring_bits = m->ring_bits;
    uint32_t L_ring = m->L_ring;
    memset(m, 0, sizeof *m);
    m->z = z;
    m->ring = ring;
    m->ring_bits = ring_bits;
    m->L_ring = L_ring;
    m->pv.kind = CS_NKIND;
    memset(big, 0, T_PC + T_MEM + T_MT);
    m->pc = (cs_pc *)(void *)big;
    m->mem = (cs_mem *)(void *)(big + T_PC);
    m->mt = (uint32_t *)(void *)(big + T_PC + T_MEM);
    uint8_t *q = big + T_PC + T_MEM + T_MT;
    m->sig = (rc_cnt *)(void *)q;
    m->lent = (rc_cnt *)(void *)(q + T_SIG);
    m->bim = (rc_cnt *)(void *)(q + T_SIG + T_LEN);
    m->runpc = (rc_cnt *)(void *)(q + T_SIG + T_LEN + T_BIM);
    rc_cnt_fill(m->sig, (T_SIG + T_LEN + 2 * T_BIM) / sizeof(rc_cnt));
    q += T_SIG + T_LEN + 2 * T_BIM;
    m->gs = (cs_p *)(void *)q;
    m->gl = (cs_p *)(void *)(q + T_BRP);
    m->loc = (cs_p *)(void *)(q + 2 * T_BRP);
    cs_p_fill(m->gs, 3 * T_BRP / sizeof(cs_p));
    model_init_small(m);
}

/* Tables for one chunk, fresh; NULL if out of memory. */
static cs_model *model_new(uint64_t nrec)
{
    cs_model *m = malloc(sizeof *m);
    if (!m) return NULL;
    memset(m, 0, sizeof *m);
    m->z = table_sizes(nrec);
    uint8_t *big = trz_big_malloc(T_ALL);
    if (!big) { free(m); return NULL; }
    m->pc = (cs_pc *)(void *)big;
    model_clear(m);
    return m;
}

void cs_range_free(cs_model *m)
{
    if (!m) return;
    trz_big_free(m->pc, T_ALL);
    free(m);
}

/* The range-coded variants' part for a chunk of nrec records in *pm: table
 * sizes follow the record count (champsim.md), so a part of other sizes is
 * made again; one of the same sizes is cleared, if it has coded since.
 * NULL if out of memory. */
cs_model *cs_range_fit(cs_model **pm, uint64_t nrec)
{
    cs_model *m = *pm;
    cs_sizes z = table_sizes(nrec);
    if (m && memcmp(&m->z, &z, sizeof z) == 0) {
        if (m->used) model_clear(m);
    } else {
        cs_range_free(m);
        *pm = m = model_new(nrec);
    }
    if (m) m->used = 1;
    return m;
}

void cs_ring_free(cs_ring *ring)
{
    if (ring->p) trz_big_free(ring->p, (size_t)ring->size << ring->bits);
    ring->p = NULL;
}

/* The part for a chunk of a chain: at the chain's first chunk (not live),
 * fitted to its record count as a chunk alone, on the ring of 2^ring_bits
 * records of rsize bytes (made here, except by a decoder on an encoder's
 * lent ring, which the encoder made for the same chunk); later chunks go
 * on with it as it is.  NULL if out of memory (or a lent ring that does
 * not fit). */
cs_model *cs_range_chain(cs_model **pm, uint64_t nrec, unsigned ring_bits, uint32_t rsize, cs_ring *ring, int enc)
{
    cs_model *m = *pm;
    if (m && m->live) return m;
    if (!(m = cs_range_fit(pm, nrec))) return NULL;
    if (!ring->p || ring->bits != ring_bits || ring->size != rsize) {
        if (ring->lent && !enc) return NULL;
        cs_ring_free(ring);
        if (!(ring->p = trz_big_malloc((size_t)rsize << ring_bits))) return NULL;
        ring->bits = ring_bits;
        ring->size = rsize;
    }
    m->ring = ring->p;
    m->ring_bits = ring_bits;
    m->L_ring = rsize;
    m->ring_write = !(ring->lent && enc);
    m->chained = m->live = 1;
    return m;
}

/* The model of a knowledge stream of n facts: only the tables the static
 * fields and the fall-through length use, on the C heap (given back after
 * the stream, not kept with the chunk models' blocks). */
cs_model *cs_know_model_new(uint64_t n)
{
    cs_model *m = malloc(sizeof *m);
    if (!m) return NULL;
    memset(m, 0, sizeof *m);
    m->z = table_sizes(n);
    m->sig = malloc(T_SIG + T_LEN);
    if (!m->sig) { free(m); return NULL; }
    m->lent = (rc_cnt *)(void *)((uint8_t *)m->sig + T_SIG);
    rc_cnt_fill(m->sig, (T_SIG + T_LEN) / sizeof(rc_cnt));
    model_init_small(m);
    return m;
}

void cs_know_model_free(cs_model *m)
{
    if (!m) return;
    free(m->sig);
    free(m);
}
