/* addrmodel.h - the address predictor shared by the BYU and PEL
 * Pentium bus codecs.  Both traces are bus requests: instruction fetches that
 * walk code, data reads and writes that follow per-instruction strides.
 * Encoder and decoder call the same functions in the same order. */
#ifndef TRZ_ADDRMODEL_H
#define TRZ_ADDRMODEL_H

#include "../codec.h"
#include "../common/compiler.h"
#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#define AM_MTF_SSE2 1 /* am_mtf16 on vectors */
#else
#define AM_MTF_SSE2 0
#endif

/* The per-record calls are inlined (TRZ_FORCE_INLINE) into the decoder's loop so
 * that the table slots they share are found once (6% of lackey's decoding
 * time). */

#define AM_NCLS 4       /* fetch, read, write, other */
#define AM_RC 16        /* recent-address cache entries per class */
#define AM_PG 16        /* recent 4 KiB pages per class */
#define AM_KMAX 7       /* positions after a fetch tracked per code address */
#define AM_PCBITS 16    /* code-address table: 2^16 entries */
#define AM_SLOTBITS 16  /* per-(fetch, position) data slots: 2^16 entries */
#define AM_O2BITS 18    /* (last two addresses) -> next address table */
#define AM_NCAND 6      /* direct candidates before the recent cache */
/* address codes: 0..AM_NCAND-1 candidates, then the recent cache, then a
 * near miss (delta from the base follows), then a recent page (offset
 * follows), then a miss (whole address follows) */
#define AM_NEAR (AM_NCAND + AM_RC)
#define AM_PAGE (AM_NEAR + 1)
#define AM_MISS (AM_PAGE + AM_PG)
#define AM_NEAR_MAX 4096 /* |delta| below this is a near miss */
_Static_assert(AM_RC == 16 && AM_PG == 16, "am_mtf16 keeps lists of 16");

enum { AM_FETCH = 0, AM_READ = 1, AM_WRITE = 2, AM_OTHER = 3 };

typedef struct am_cls {
    uint32_t last, stride;
    uint32_t rc[AM_RC]; /* most recent first */
    uint32_t pg[AM_PG]; /* page numbers, most recent first */
} am_cls;

/* Per-processor state: bounded (<= 256 allocated lazily by the codec). */
typedef struct am_proc {
    am_cls cls[AM_NCLS];
    uint32_t pc;   /* address of the last fetch */
    uint32_t step; /* bytes the last fetch covered (fall-through distance) */
    uint32_t k;    /* records since the last fetch */
    uint32_t a1, a2; /* the last two addresses, any class */
    uint32_t cpc;    /* the last fetch that was not a glitch (am_glitch) */
    uint32_t rep;    /* 1: the last fetch repeated the address of the one before */
} am_proc;

typedef struct am_pcent {
    uint32_t succ; /* fetch address that followed this one */
    uint32_t lc;   /* bucket of the code that coded it (modelled paths) */
} am_pcent;

typedef struct am_slot {
    uint32_t last, stride;
    uint32_t lc;   /* bucket of the code that coded last (modelled paths) */
} am_slot;

typedef struct am_model {
    am_pcent *pct;
    am_slot *slot;
    uint32_t *o2; /* address that followed the last two addresses */
    int pcbits, slotbits, o2bits;
    int pccap, slotcap, o2cap; /* the tables' sizes as made (am_table) */
} am_model;

/* Tables shrink for small chunks (zeroing them would dominate): bits =
 * the bit length of nrec, clamped to [8, max]. */
static inline int am_bits(uint64_t nrec, int max)
{
    int b = 1;
    while (b < max && (nrec >> (b - 1)) > 1) b++;
    return b < 8 ? 8 : b;
}

/* A table of 2^bits entries of esz bytes, zeroed: t when its 2^*cap
 * entries (made for a chunk before) are enough, else a new one (t given
 * back).  Tables so live in a codec's model from chunk to chunk, sized by
 * each chunk.  NULL on no memory (*cap = 0). */
static inline void *am_table(void *t, int *cap, int bits, size_t esz)
{
    if (t && *cap >= bits) return memset(t, 0, ((size_t)1 << bits) * esz);
    if (t) trz_big_free(t, ((size_t)1 << *cap) * esz);
    t = trz_big_calloc(((size_t)1 << bits) * esz);
    *cap = t ? bits : 0;
    return t;
}

/* The tables for a chunk of nrec records, zeroed (kept from the chunk
 * before where they fit).  0, or -1 on no memory (am_free frees the rest). */
static inline int am_init(am_model *m, uint64_t nrec)
{
    m->pcbits = am_bits(nrec, AM_PCBITS);
    m->slotbits = am_bits(nrec, AM_SLOTBITS);
    m->o2bits = am_bits(nrec, AM_O2BITS);
    m->pct = am_table(m->pct, &m->pccap, m->pcbits, sizeof *m->pct);
    m->slot = am_table(m->slot, &m->slotcap, m->slotbits, sizeof *m->slot);
    m->o2 = am_table(m->o2, &m->o2cap, m->o2bits, sizeof *m->o2);
    return m->pct && m->slot && m->o2 ? 0 : -1;
}

/* Gives the tables back (with the model). */
static inline void am_free(am_model *m)
{
    if (m->pct) trz_big_free(m->pct, ((size_t)1 << m->pccap) * sizeof *m->pct);
    if (m->slot) trz_big_free(m->slot, ((size_t)1 << m->slotcap) * sizeof *m->slot);
    if (m->o2) trz_big_free(m->o2, ((size_t)1 << m->o2cap) * sizeof *m->o2);
    m->pct = NULL;
    m->slot = NULL;
    m->o2 = NULL;
}

static inline uint32_t am_hash(uint32_t x, int bits)
{
    return (x * 0x9E3779B1u) >> (32 - bits);
}

static inline uint32_t *am_o2(am_model *m, const am_proc *p)
{
    return &m->o2[am_hash(p->a1 ^ (p->a2 * 0x2545F491u + (p->a2 >> 15)), m->o2bits)];
}

static inline am_pcent *am_pc(am_model *m, const am_proc *p)
{
    return &m->pct[am_hash(p->pc, m->pcbits)];
}

static inline am_slot *am_dslot(am_model *m, const am_proc *p)
{
    uint32_t k = p->k > AM_KMAX ? AM_KMAX : p->k;
    return &m->slot[am_hash(p->pc ^ (k * 0x5bd1e995u), m->slotbits)];
}

/* ---- addresses ----------------------------------------------------------- */

/* Base for a miss delta: the slot's last address for data, the last fetch
 * for code. */
static inline uint32_t am_base(am_model *m, const am_proc *p, unsigned c)
{
    return c == AM_FETCH ? p->pc : am_dslot(m, p)->last;
}

/* Candidate addresses for the next record of class c, in code order. */
static inline void am_cands(am_model *m, const am_proc *p, unsigned c, uint32_t cand[AM_NCAND])
{
    const am_cls *q = &p->cls[c];
    if (c == AM_FETCH) {
        cand[0] = am_pc(m, p)->succ;
        cand[1] = p->pc + p->step;
        cand[2] = p->pc;
        cand[3] = p->cpc + p->step;
        cand[4] = p->pc - p->step;
        cand[5] = *am_o2(m, p);
    } else {
        const am_slot *s = am_dslot(m, p);
        cand[0] = s->last + s->stride;
        cand[1] = s->last;
        cand[2] = q->last + q->stride;
        cand[3] = q->last;
        cand[4] = s->last - s->stride;
        cand[5] = *am_o2(m, p);
    }
}

#if AM_MTF_SSE2
/* Lanes j <= i of x take the entry before them (carry: the lane before x). */
static inline __m128i am_mtf_vec(__m128i x, __m128i carry, __m128i lim, int base)
{
    __m128i up = _mm_or_si128(_mm_slli_si128(x, 4), carry);
    __m128i move = _mm_cmpgt_epi32(lim, _mm_add_epi32(_mm_set1_epi32(base), _mm_setr_epi32(0, 1, 2, 3)));
    return _mm_or_si128(_mm_and_si128(move, up), _mm_andnot_si128(move, x));
}

static inline unsigned am_mtf_hits(__m128i x, __m128i v)
{
    return (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(x, v)));
}

/* Bit j set when t[j] == v, for the 16 entries at t. */
static inline unsigned am_hits16(const uint32_t *t, uint32_t v)
{
    const __m128i *q = (const __m128i *)t;
    __m128i vv = _mm_set1_epi32((int)v);
    return am_mtf_hits(_mm_loadu_si128(q), vv) | am_mtf_hits(_mm_loadu_si128(q + 1), vv) << 4 |
           am_mtf_hits(_mm_loadu_si128(q + 2), vv) << 8 | am_mtf_hits(_mm_loadu_si128(q + 3), vv) << 12;
}
#endif

/* Index of the first entry of t[16] equal to v, or 16. */
static inline unsigned am_find16(const uint32_t *t, uint32_t v)
{
#if AM_MTF_SSE2
    unsigned hit = am_hits16(t, v);
    return hit ? trz_ctz32(hit) : 16;
#else
    unsigned i = 0;
    while (i < 16 && t[i] != v) i++;
    return i;
#endif
}

/* Code for addr (encoder): a candidate, a recent-cache index, or AM_MISS. */
static inline unsigned am_code(am_model *m, const am_proc *p, unsigned c, uint32_t addr)
{
    uint32_t cand[AM_NCAND];
    am_cands(m, p, c, cand);
    for (unsigned i = 0; i < AM_NCAND; i++)
        if (cand[i] == addr) return i;
    unsigned i = am_find16(p->cls[c].rc, addr);
    if (i < AM_RC) return AM_NCAND + i;
    uint32_t d = addr - am_base(m, p, c) + AM_NEAR_MAX;
    if (d < 2 * AM_NEAR_MAX) return AM_NEAR;
    i = am_find16(p->cls[c].pg, addr >> 12);
    return i < AM_PG ? AM_PAGE + i : AM_MISS;
}

/* Candidate i alone (decoder): must match am_cands. */
static inline uint32_t am_cand(am_model *m, const am_proc *p, unsigned c, unsigned i)
{
    const am_cls *q = &p->cls[c];
    if (i == 5) return *am_o2(m, p);
    if (c == AM_FETCH) {
        switch (i) {
        case 0: return am_pc(m, p)->succ;
        case 1: return p->pc + p->step;
        case 2: return p->pc;
        case 3: return p->cpc + p->step;
        default: return p->pc - p->step;
        }
    }
    switch (i) {
    case 0: { const am_slot *s = am_dslot(m, p); return s->last + s->stride; }
    case 1: return am_dslot(m, p)->last;
    case 2: return q->last + q->stride;
    case 3: return q->last;
    default: { const am_slot *s = am_dslot(m, p); return s->last - s->stride; }
    }
}

/* Address for a code below AM_NEAR (decoder). */
TRZ_FORCE_INLINE uint32_t am_decode(am_model *m, const am_proc *p, unsigned c, unsigned code)
{
    if (code < AM_NCAND) return am_cand(m, p, c, code);
    return p->cls[c].rc[code - AM_NCAND];
}

/* Page number for a code in [AM_PAGE, AM_MISS) (decoder). */
static inline uint32_t am_page(const am_proc *p, unsigned c, unsigned code)
{
    return p->cls[c].pg[code - AM_PAGE];
}

/* Move v to the front of a 16-entry most-recent-first list (the last
 * entry drops out when v is new).  The scalar search ends at a point the
 * branch predictor cannot guess (code walks give new addresses, loops old
 * ones) and calls memmove: with SSE2 (every x86-64) four compares find v
 * and four blends shift the list, branch-free.  On lackey that removed 1.5
 * of 2.5 mispredictions per record, and the memmove calls. */
static inline void am_mtf16(uint32_t *t, uint32_t v)
{
#if AM_MTF_SSE2
    if (t[0] == v) return; /* the same page again: most of the calls for pages */
    __m128i *q = (__m128i *)t;
    __m128i x0 = _mm_loadu_si128(q), x1 = _mm_loadu_si128(q + 1);
    __m128i x2 = _mm_loadu_si128(q + 2), x3 = _mm_loadu_si128(q + 3);
    unsigned hit = am_hits16(t, v);
    __m128i lim = _mm_set1_epi32(hit ? (int)trz_ctz32(hit) + 1 : 16); /* lanes below lim move up */
    _mm_storeu_si128(q, am_mtf_vec(x0, _mm_cvtsi32_si128((int)v), lim, 0));
    _mm_storeu_si128(q + 1, am_mtf_vec(x1, _mm_srli_si128(x0, 12), lim, 4));
    _mm_storeu_si128(q + 2, am_mtf_vec(x2, _mm_srli_si128(x1, 12), lim, 8));
    _mm_storeu_si128(q + 3, am_mtf_vec(x3, _mm_srli_si128(x2, 12), lim, 12));
#else
    unsigned i = am_find16(t, v);
    if (i == 16) i = 15; /* not there: the last entry drops out */
    memmove(t + 1, t, i * sizeof t[0]);
    t[0] = v;
#endif
}

/* A fetch of the last fetch or its fall-through with a few more address
 * bits set (not only bits 3-4, a short forward jump).  Real captures have
 * noisy address lines that read as 1; the fetches after such a glitch go on
 * from the clean address, hence candidate 3 = cpc + step. */
static inline int am_glitch(const am_proc *p, uint32_t addr)
{
    /* & rather than &&: the tests' outcomes follow the code's jumps, which
     * branch prediction cannot (a third of lackey's mispredictions). */
    const uint32_t b[2] = { p->pc, p->pc + p->step };
    int g = 0;
    for (int i = 0; i < 2; i++) {
        uint32_t x = addr ^ b[i];
        g |= ((addr & b[i]) == b[i]) & (trz_popcount32(x) <= 6) & ((x & ~0x18u) != 0);
    }
    return g;
}

/* After the address of a class-c record is known; step = bytes it covers. */
TRZ_FORCE_INLINE void am_update(am_model *m, am_proc *p, unsigned c, uint32_t addr, uint32_t step)
{
    am_cls *q = &p->cls[c];
    *am_o2(m, p) = addr;
    p->a2 = p->a1;
    p->a1 = addr;
    if (c == AM_FETCH) {
        am_pc(m, p)->succ = addr;
        uint32_t keep = 0u - (uint32_t)am_glitch(p, addr); /* a select, not a branch */
        p->cpc = (p->cpc & keep) | (addr & ~keep);
        p->rep = addr == p->pc;
        p->pc = addr;
        p->step = step;
        p->k = 0;
    } else {
        am_slot *s = am_dslot(m, p);
        s->stride = addr - s->last;
        s->last = addr;
        if (p->k < 0xffffffffu) p->k++;
    }
    q->stride = addr - q->last;
    q->last = addr;
    am_mtf16(q->rc, addr);
    am_mtf16(q->pg, addr >> 12);
}

/* A near miss stores the zigzag delta from the base as a varint (in its
 * own stream), a page hit the 12-bit offset (2 bytes LE), a miss the whole
 * address (4 bytes LE): absolute values let the back-end match repeats. */
static inline void am_put_miss(trz_buf *b, trz_buf *nb, unsigned code, uint32_t addr, uint32_t base)
{
    if (code == AM_MISS) trz_put_le32(b, addr);
    else if (code == AM_NEAR) trz_put_uvarint(nb, trz_zigzag((int32_t)(addr - base)) & 0xffffffffu);
    else trz_put_le16(b, (uint16_t)(addr & 0xfff));
}

/* Returns 0 and sets *addr, or -1 on a corrupt value. */
static inline int am_get_miss(trz_rd *r, trz_rd *nr, unsigned code, const am_proc *p, unsigned c, uint32_t base,
                              uint32_t *addr)
{
    if (code == AM_MISS) *addr = trz_get_le32(r);
    else if (code == AM_NEAR) {
        uint64_t z = trz_get_uvarint(nr);
        if (z >= 2 * AM_NEAR_MAX) return -1;
        *addr = base + (uint32_t)trz_unzigzag(z);
    } else {
        uint16_t off = trz_get_le16(r);
        if (off > 0xfff) return -1;
        *addr = am_page(p, c, code) << 12 | off;
    }
    return 0;
}

#endif
