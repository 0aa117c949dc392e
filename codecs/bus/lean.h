/* lean.h - the lean address model of the BYU and PEL codecs (byu.md, "Lean
 * model"): a few candidates kept with a few loads and stores a record, a
 * code byte saying which one hit, and what none predicted left to the
 * back-end as a delta or the whole address.  It replaces addrmodel.h's
 * move-to-front lists, whose upkeep was most of the stream path's decoding
 * time; on traces that loop it also leaves the back-end more exact repeats. */
#ifndef TRZ_LEAN_H
#define TRZ_LEAN_H

#include "addrmodel.h" /* AM_FETCH .. AM_OTHER, am_bits */

#define LN_NCAND 4      /* codes 0-3: candidates (a fetch has three: code 3 is corrupt there) */
#define LN_NEAR 4       /* code: the delta from the base follows */
#define LN_FAR 5        /* code: the whole address follows */
#define LN_NCODE 6
#define LN_NEAR_MAX 65536 /* |delta| below this is a near miss */
#define LN_KMAX 7       /* positions after a fetch that have slots of their own */
#define LN_MAXBITS 16   /* table index bits at most */

/* Per processor. */
typedef struct ln_proc {
    uint32_t pc;   /* the last fetch */
    uint32_t step; /* its size: the fall-through distance */
    uint32_t k;    /* records since it, up to LN_KMAX */
    uint32_t last[AM_NCLS], stride[AM_NCLS];
} ln_proc;

/* Per (fetch, position after it): a data access's last address and stride. */
typedef struct ln_slot {
    uint32_t last, stride;
} ln_slot;

/* Shared by a chunk's processors. */
typedef struct ln_model {
    uint32_t *succ; /* by fetch address: the last fetch after it that was not its fall-through */
    ln_slot *slot;  /* by (fetch address, k) */
    int bits;
    int succcap, slotcap; /* the tables' sizes as made (am_table) */
} ln_model;

static inline void ln_proc_init(ln_proc *p)
{
    memset(p, 0, sizeof *p);
    p->step = 8;
}

/* Tables of 2^bits entries, bits = the bit length of nrec clamped to
 * [8, LN_MAXBITS]: small chunks do not pay for zeroing big tables.  Kept
 * from the chunk before where they fit (am_table). */
static inline int ln_init(ln_model *m, uint64_t nrec)
{
    m->bits = am_bits(nrec, LN_MAXBITS);
    m->succ = am_table(m->succ, &m->succcap, m->bits, sizeof *m->succ);
    m->slot = am_table(m->slot, &m->slotcap, m->bits, sizeof *m->slot);
    return m->succ && m->slot ? 0 : -1;
}

/* Gives the tables back (with the model). */
static inline void ln_free(ln_model *m)
{
    if (m->succ) trz_big_free(m->succ, ((size_t)1 << m->succcap) * sizeof *m->succ);
    if (m->slot) trz_big_free(m->slot, ((size_t)1 << m->slotcap) * sizeof *m->slot);
    m->succ = NULL;
    m->slot = NULL;
}

static inline uint32_t *ln_succ(const ln_model *m, const ln_proc *p)
{
    return &m->succ[(p->pc * 0x9E3779B1u) >> (32 - m->bits)];
}

static inline ln_slot *ln_slot_at(const ln_model *m, const ln_proc *p)
{
    return &m->slot[((p->pc ^ p->k * 0x5bd1e995u) * 0x9E3779B1u) >> (32 - m->bits)];
}

/* A fetch's candidates: the fall-through, the last jump from here, the
 * same address again.  Data: the slot's next stride, its last address, the
 * class's next stride, the class's last address. */
TRZ_FORCE_INLINE void ln_cands(const ln_model *m, const ln_proc *p, unsigned c, uint32_t cand[LN_NCAND], ln_slot **s)
{
    if (c == AM_FETCH) {
        cand[0] = p->pc + p->step;
        cand[1] = *ln_succ(m, p);
        cand[2] = p->pc;
        cand[3] = p->pc + p->step; /* not a code of its own: code 0 comes first */
        *s = NULL;
    } else {
        ln_slot *q = *s = ln_slot_at(m, p);
        cand[0] = q->last + q->stride;
        cand[1] = q->last;
        cand[2] = p->last[c] + p->stride[c];
        cand[3] = p->last[c];
    }
}

/* The update after a class-c address; s: ln_cands's slot. */
TRZ_FORCE_INLINE void ln_update(const ln_model *m, ln_proc *p, ln_slot *s, unsigned c, uint32_t addr, uint32_t step)
{
    if (c == AM_FETCH) {
        if (addr != p->pc + p->step) *ln_succ(m, p) = addr;
        p->pc = addr;
        p->step = step;
        p->k = 0;
    } else {
        s->stride = addr - s->last;
        s->last = addr;
        p->k += p->k < LN_KMAX;
    }
    p->stride[c] = addr - p->last[c];
    p->last[c] = addr;
}

/* Encoder: the code of addr (the lowest candidate that matches), its base
 * for a near miss in *base. */
TRZ_FORCE_INLINE unsigned ln_code(const uint32_t cand[LN_NCAND], unsigned c, uint32_t addr, uint32_t base)
{
    unsigned n = c == AM_FETCH ? 3 : LN_NCAND;
    for (unsigned i = 0; i < n; i++)
        if (cand[i] == addr) return i;
    return addr - base + LN_NEAR_MAX < 2u * LN_NEAR_MAX ? LN_NEAR : LN_FAR;
}

/* The base of a near miss: the last fetch for a fetch, the slot's last
 * address for data. */
static inline uint32_t ln_base(const ln_proc *p, const ln_slot *s, unsigned c)
{
    return c == AM_FETCH ? p->pc : s->last;
}

/* Encoder: a miss's payload, the zigzag delta as a varint (nb) or the whole
 * address (fb, LE32). */
static inline void ln_put_miss(trz_buf *fb, trz_buf *nb, unsigned code, uint32_t addr, uint32_t base)
{
    if (code == LN_NEAR) {
        uint32_t d = addr - base;
        trz_put_uvarint(nb, (d << 1) ^ (0u - (d >> 31)));
    } else trz_put_le32(fb, addr);
}

/* Decoder: the address of code (< LN_NCODE; the caller rejects others).
 * Returns -1 on a corrupt payload or a code a fetch has not. */
TRZ_FORCE_INLINE int ln_addr(const uint32_t cand[LN_NCAND], unsigned c, unsigned code, uint32_t base, trz_rd *fr, trz_rd *nr,
                   uint32_t *addr)
{
    if (code < LN_NCAND) {
        *addr = cand[code];
        return c == AM_FETCH && code == 3 ? -1 : 0;
    }
    if (code == LN_FAR) {
        *addr = trz_get_le32(fr);
        return 0;
    }
    uint64_t z = trz_get_uvarint(nr);
    if (z >= 2 * LN_NEAR_MAX) return -1;
    *addr = base + ((uint32_t)(z >> 1) ^ (0u - (uint32_t)(z & 1)));
    return 0;
}

#endif
