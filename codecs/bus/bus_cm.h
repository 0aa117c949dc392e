/* bus_cm.h - arithmetic coding of bus-trace addresses for the modelled
 * paths of the BYU and PEL codecs: the address model's code (addrmodel.h)
 * and its miss payloads, each bit with an adaptive probability chosen by
 * context (cm.h).  Used the same way by encoder and decoder. */
#ifndef TRZ_BUS_CM_H
#define TRZ_BUS_CM_H

#include "addrmodel.h"
#include "cm.h"
#include "bus_fast.h"

#define BUS_NB 12    /* buckets of an address code, see bus_cb */
#define BUS_DIFF (AM_MISS + 1) /* code: a reference and the bits that differ */
#define BUS_XMAX 32  /* bit differences up to which a difference beats near, page and miss codes: always */
#define BUS_XMAX1 4  /* the same without mixing (a weaker model of the differing bits) */
#define BUS_TRIE 20  /* address-prefix table (mixing only): at most 2^20 slots */
#define BUS_XRW0 40000 /* initial weights of the reference index (two inputs) */
#define BUS_W0 30000 /* initial mixer weight (16.16) with three inputs */
#define BUS_NTRY 4   /* references the encoder tries in full (bus_best_ref), unless told all */
#define BUS_HXMAX 23 /* hashed contexts: at most 2^23 slots (32 MiB) */

/* Address codes on this path are those of addrmodel.h plus BUS_DIFF: "a
 * reference (a candidate or recent address) and the bits that differ from
 * it": bus noise sets or clears a few address bits, and small strides flip
 * low bits, so most misses are a few bits from an address the model holds. */
typedef struct bus_acm {
    /* the group of a code: 0-5 a candidate, 6 a recent address, 7 other */
    cm_p code[AM_NCLS][BUS_NB][BUS_NB][8];  /* by the class's last bucket and the last bucket of any class */
    cm_p code2[AM_NCLS][8][64][8];          /* by candidate equalities and the caller's context */
    cm_p code3[AM_NCLS][BUS_NB][BUS_NB][8]; /* by the class's last two buckets */
    int32_t cw[AM_NCLS][8][CM_MAXIN];       /* mixer weights per tree node */
    cm_p rc[AM_NCLS][BUS_NB][16];           /* recent-address index by the class's last bucket */
    int32_t rcw[AM_NCLS][16][CM_MAXIN];     /* its mixer weights (with hashed contexts) */
    cm_p other[AM_NCLS][BUS_NB][4];         /* near, page, difference, whole address */
    cm_p pg[AM_NCLS][16];                   /* recent-page index */
    cm_p xhi[AM_NCLS][2];                   /* a difference in bits 16-31?, by "code before was a miss" */
    cm_gamma near[AM_NCLS];
    cm_p pgoff[AM_NCLS][64 * 65];
    cm_p miss[AM_NCLS][4][256];           /* whole address: bytes 3..0 */
    cm_p xref[AM_NCLS][BUS_NB][32];       /* reference index by the class's previous bucket */
    cm_p xbit[AM_NCLS][32][2][4][2];      /* by bit, reference bit, differences so far (<= 3), last bit differed */
    cm_p xbit2[AM_NCLS][32][2][16];       /* by bit, reference bit, the 3 address bits above */
    int32_t xw[AM_NCLS][32][CM_MAXIN];
    int32_t xrw[AM_NCLS][32][CM_MAXIN];   /* mixer weights of the reference index */
    cm_p *hx;  /* mixing only: hashed contexts of the code address (bus_pck) */
    int hbits; /* hx has 2^hbits slots */
    cm_p *trie; /* mixing only: by the address bits above and the reference bit (hashed) */
    int tbits;  /* trie has 2^tbits slots */
    uint8_t last[AM_NCLS];  /* bucket of the last code per class */
    uint8_t last2[AM_NCLS]; /* bucket of the code before that */
    uint8_t lastany;        /* bucket of the last code of any class */
    uint8_t xrc;            /* the last reference index, capped at 4 */
    uint8_t xtry, xwin;     /* encoder: references to try, and within how many differing bits of the fewest */
    cm_p xhi2[AM_NCLS][5][2][2];          /* "bits 16-31 differ" by reference index, its upper half = a1's, = a2's */
    int32_t xhw[AM_NCLS][CM_MAXIN];       /* mixer weights of that decision */
    cm_p xprev[AM_NCLS * 32 * 32];        /* by bit, reference bit, the last two addresses' bits, prefix matches */
    uint16_t apc[AM_NCLS][BUS_NB][8 * CM_APM_N]; /* refinement of the group by the class's last bucket */
    uint16_t apx[AM_NCLS][32][4][CM_APM_N];      /* of a difference bit by bit and differences so far */
    /* hx's and trie's blocks, kept from chunk to chunk (bus_hx_open): 2^hcap
     * and 2^tcap slots; bus_acm_init leaves them */
    cm_p *hkeep, *tkeep;
    int hcap, tcap;
} bus_acm;

static inline void bus_acm_init(bus_acm *m)
{
    cm_init_probs(&m->code[0][0][0][0], sizeof m->code / sizeof(cm_p));
    cm_init_probs(&m->code2[0][0][0][0], sizeof m->code2 / sizeof(cm_p));
    cm_init_probs(&m->code3[0][0][0][0], sizeof m->code3 / sizeof(cm_p));
    cm_init_weights(&m->cw[0][0], AM_NCLS * 8, BUS_W0);
    cm_init_probs(&m->rc[0][0][0], sizeof m->rc / sizeof(cm_p));
    cm_init_weights(&m->rcw[0][0], AM_NCLS * 16, BUS_W0);
    cm_init_probs(&m->other[0][0][0], sizeof m->other / sizeof(cm_p));
    cm_init_probs(&m->pg[0][0], sizeof m->pg / sizeof(cm_p));
    cm_init_probs(&m->xhi[0][0], sizeof m->xhi / sizeof(cm_p));
    for (int i = 0; i < AM_NCLS; i++) cm_gamma_init(&m->near[i]);
    cm_init_probs(&m->pgoff[0][0], sizeof m->pgoff / sizeof(cm_p));
    cm_init_probs(&m->miss[0][0][0], sizeof m->miss / sizeof(cm_p));
    cm_init_probs(&m->xref[0][0][0], sizeof m->xref / sizeof(cm_p));
    cm_init_probs(&m->xbit[0][0][0][0][0], sizeof m->xbit / sizeof(cm_p));
    cm_init_probs(&m->xbit2[0][0][0][0], sizeof m->xbit2 / sizeof(cm_p));
    cm_init_weights(&m->xw[0][0], AM_NCLS * 32, BUS_W0);
    cm_init_weights(&m->xrw[0][0], AM_NCLS * 32, BUS_XRW0);
    memset(m->last, 0, sizeof m->last);
    memset(m->last2, 0, sizeof m->last2);
    m->lastany = m->xrc = 0;
    m->xtry = BUS_NTRY;
    m->xwin = 2;
    m->hx = m->trie = NULL;
    m->hbits = m->tbits = 0;
    cm_apm_init(&m->apc[0][0][0], AM_NCLS * BUS_NB * 8);
    cm_apm_init(&m->apx[0][0][0][0], AM_NCLS * 32 * 4);
    cm_init_probs(m->xprev, sizeof m->xprev / sizeof(cm_p));
    cm_init_probs(&m->xhi2[0][0][0][0], sizeof m->xhi2 / sizeof(cm_p));
    cm_init_weights(m->xhw, AM_NCLS, BUS_W0);
}

/* The hashed tables for mixing, sized to the chunk so that small chunks
 * stay cheap: hx 2^(bit length of nrec + 6) slots (2^12 .. 2^BUS_HXMAX),
 * trie 2^(bit length + 3) (2^12 .. 2^BUS_TRIE), in the blocks kept from the
 * chunk before where they fit.  Returns 0, or -1 on no memory. */
static inline int bus_hx_open(bus_acm *m, uint64_t nrec)
{
    int b = am_bits(nrec, BUS_HXMAX) + 6, t = am_bits(nrec, BUS_TRIE) + 3;
    m->hbits = b < 12 ? 12 : b > BUS_HXMAX ? BUS_HXMAX : b;
    m->tbits = t < 12 ? 12 : t > BUS_TRIE ? BUS_TRIE : t;
    if (m->hkeep && m->hcap < m->hbits) {
        trz_big_free(m->hkeep, ((size_t)1 << m->hcap) * sizeof *m->hkeep);
        m->hkeep = NULL;
    }
    if (m->tkeep && m->tcap < m->tbits) {
        trz_big_free(m->tkeep, ((size_t)1 << m->tcap) * sizeof *m->tkeep);
        m->tkeep = NULL;
    }
    if (!m->hkeep && (m->hkeep = trz_big_malloc(((size_t)1 << m->hbits) * sizeof *m->hx))) m->hcap = m->hbits;
    if (!m->tkeep && (m->tkeep = trz_big_malloc(((size_t)1 << m->tbits) * sizeof *m->trie))) m->tcap = m->tbits;
    m->hx = m->hkeep;
    m->trie = m->tkeep;
    if (!m->hx || !m->trie) return -1;
    cm_init_probs(m->hx, (size_t)1 << m->hbits);
    cm_init_probs(m->trie, (size_t)1 << m->tbits);
    return 0;
}

/* Gives hx's and trie's blocks back (with the model). */
static inline void bus_hx_free(bus_acm *m)
{
    if (m->hkeep) trz_big_free(m->hkeep, ((size_t)1 << m->hcap) * sizeof *m->hkeep);
    if (m->tkeep) trz_big_free(m->tkeep, ((size_t)1 << m->tcap) * sizeof *m->tkeep);
    m->hkeep = m->tkeep = m->hx = m->trie = NULL;
}

/* Seed of a hashed context: the last fetch address (the instruction
 * stream position), whether it was fetched twice in a row, records since
 * it, and salt (the rest of the context).  Bus traffic repeats per
 * instruction: the same code line is followed by the same kinds of
 * requests, times and address behaviour. */
static inline uint32_t bus_pck(const am_proc *p, uint32_t salt)
{
    uint32_t h = p->pc * 0x2545F491u ^ (p->k > 7 ? 7 : p->k) * 0x68E31DA4u ^ salt * 0xB5297A4Du ^ p->rep * 0x1B873593u;
    h ^= h >> 15;
    return h * 0x2C1B3C6Du;
}

/* Code buckets for contexts: candidates alone, recent-cache hits in two
 * groups, near, page, whole address, difference. */
static inline unsigned bus_cb(unsigned code)
{
    if (code < AM_NCAND) return code;
    if (code < AM_NCAND + 4) return AM_NCAND;
    if (code < AM_NEAR) return AM_NCAND + 1;
    if (code == AM_NEAR) return AM_NCAND + 2;
    if (code < AM_MISS) return AM_NCAND + 3;
    return code == AM_MISS ? AM_NCAND + 4 : AM_NCAND + 5;
}

/* Encoder: the code for addr.  A candidate or recent address when one
 * matches; else a difference from the reference *xr with the fewest
 * differing bits (see the score below; the lowest index on ties) when at
 * most xmax bits differ; else the near, page or miss code of addrmodel.h. */
static inline unsigned bus_pick(am_model *am, const am_proc *p, unsigned cls, uint32_t addr, unsigned *xr,
                                unsigned xmax, int mix)
{
    unsigned code = am_code(am, p, cls, addr);
    if (code < AM_NEAR) return code;
    unsigned best = ~0u, bn = 33;
    for (unsigned i = 0; i < AM_NEAR; i++) {
        unsigned n = trz_popcount32(addr ^ am_decode(am, p, cls, i));
        /* mixed: a recent address must save 2 bits (3 past the first four)
         * to beat a candidate, whose index the model predicts better */
        unsigned sc = 4 * n + (mix && i >= AM_NCAND ? 8 : 0) + (mix && i >= AM_NCAND + 4 ? 4 : 0);
        if (sc < best) {
            best = sc;
            bn = n;
            *xr = i;
        }
    }
    return bn <= xmax ? BUS_DIFF : code;
}

/* Which of candidates 0, 1, 2 coincide: the encoder takes the lowest
 * index, so equal candidates change the odds of the codes. */
static inline unsigned bus_eq(const uint32_t k[AM_NCAND])
{
    return (k[0] == k[1]) | (k[0] == k[2]) << 1 | (k[1] == k[2]) << 2;
}

/* Seed of a hashed context from an exact address: what followed the same
 * address before (bus traffic repeats per address as well as per
 * instruction). */
static inline uint32_t bus_ack(uint32_t addr, uint32_t salt)
{
    return cm_mix32(addr * 0x2545F491u + salt * 0x68E31DA4u) * 0x1B873593u;
}

/* The same from the last two addresses (a2's lowest 3 bits dropped). */
static inline uint32_t bus_ack2(uint32_t a1, uint32_t a2, uint32_t salt)
{
    return cm_mix32(a1 * 0x2545F491u + salt * 0x68E31DA4u + (a2 >> 3) * 0x1B873593u) * 0x9E3779B1u;
}

/* The hashes of bit i's hashed contexts (bus_xor): the bits above it (a
 * prefix of the address, above), its local state, and the prefix with the
 * class's last address or with the reference. */
static inline uint32_t bus_xh_prefix(uint32_t above, int i, unsigned rb)
{
    return (above | 1u << (31 - i)) * 0x9E3779B1u ^ (uint32_t)(i * 2 + rb) * 0x85EBCA6Bu;
}

static inline uint32_t bus_xh_local(const am_proc *p, unsigned cls, int i, unsigned rb, unsigned nf, unsigned xrc)
{
    return bus_pck(p, 1000 + cls * 1024 + (unsigned)i * 32 + rb * 16 + nf * 4 + xrc) * 0x9E3779B1u;
}

static inline uint32_t bus_xh_addr(uint32_t h, uint32_t addr, unsigned salt)
{
    return cm_mix32(h ^ (addr * 0x2545F491u + salt)) * 0x68E31DA4u;
}

/* Ask for bit i's hashed slots while the bit above it is coded, taking
 * that bit to equal the reference's, as most do (v: the bits coded so far,
 * zero below them).  Asking two bits ahead measured no better. */
static inline void bus_xpf(const bus_acm *m, const am_proc *p, unsigned cls, uint32_t ref, uint32_t v, int i,
                           unsigned nf)
{
    unsigned rb = ref >> i & 1;
    uint32_t h = bus_xh_prefix((v ^ ref) >> i >> 1, i, rb);
    cm_hpre(m->hx, m->hbits, bus_xh_local(p, cls, i, rb, nf, m->xrc));
    cm_hpre(m->hx, m->hbits, bus_pck(p, h) * 0x85EBCA6Bu);
    cm_hpre(m->hx, m->hbits, bus_xh_addr(h, p->cls[cls].last, cls));
    cm_hpre(m->hx, m->hbits, bus_xh_addr(h, ref, cls + 8));
    cm_hpre(m->trie, m->tbits, cm_mix32(h));
}

/* The 32 bits of addr ^ ref, most significant first, each mixed from eight
 * predictions: local (differences so far), the address bits just above, a
 * hashed table of address prefixes (a binary trie of the addresses seen),
 * the first and third again per code address (bus_pck), the bits of the
 * last two addresses, and the prefix after the class's last address and
 * after this reference (the same address tends to be followed, or glitched,
 * the same way again).  Whether bits 16-31 differ at all is decided first,
 * by the reference index, its upper half and the reference itself. */
static inline uint32_t bus_xor(cm_coder *c, bus_acm *m, const am_proc *p, unsigned cls, uint32_t ref, uint32_t addr)
{
    uint32_t x = addr ^ ref, v = 0;
    unsigned nf = 0, lf = 0;
    cm_p *hs[4] = { &m->xhi[cls][m->last2[cls] == AM_NCAND + 4], NULL, NULL, NULL };
    if (c->mix) {
        hs[1] = cm_hget(c, m->hx, m->hbits, cm_mix32(bus_pck(p, 0xB0000 + cls * 32 + m->xrc)));
        hs[2] = &m->xhi2[cls][m->xrc][(ref >> 16) == (p->a1 >> 16)][(ref >> 16) == (p->a2 >> 16)];
        hs[3] = cm_hget(c, m->hx, m->hbits, bus_ack(ref, cls));
    }
    int top = cm_mix(c, hs, c->mix ? 4 : 1, m->xhw[cls], x >> 16 != 0) ? 31 : 15;
    for (int i = top; i >= 0; i--) {
        if (c->dry && c->dry_cost >= c->dry_stop) break; /* already dearer than another reference */
        uint32_t above = (v ^ ref) >> i >> 1; /* the address bits above bit i */
        unsigned rb = ref >> i & 1, a3 = i < 29 ? (above & 7) : (above & 7) | 8;
        cm_p *ps[8] = { &m->xbit[cls][i][rb][nf][lf], NULL, NULL, NULL, NULL, NULL, NULL, NULL };
        if (c->mix) {
            uint32_t h = bus_xh_prefix(above, i, rb);
            ps[1] = &m->xbit2[cls][i][rb][a3];
            ps[2] = cm_hget(c, m->trie, m->tbits, cm_mix32(h));
            ps[3] = cm_hget(c, m->hx, m->hbits, bus_xh_local(p, cls, i, rb, nf, m->xrc));
            ps[4] = cm_hget(c, m->hx, m->hbits, bus_pck(p, h) * 0x85EBCA6Bu);
            if (i > 0) bus_xpf(m, p, cls, ref, v, i - 1, nf);
            /* the last two addresses of any kind: captures mix the halves
             * of consecutive bus addresses, so a prefix that matched one of
             * them so far tends to go on matching it */
            uint32_t p1 = p->a1, p2 = p->a2;
            unsigned m1 = (uint32_t)((uint64_t)p1 >> i >> 1) == above, m2 = (uint32_t)((uint64_t)p2 >> i >> 1) == above;
            unsigned xi = (((((cls * 32u + (unsigned)i) * 2 + rb) * 2 + (p1 >> i & 1)) * 2 + (p2 >> i & 1)) * 2 + m1) * 2 + m2;
            ps[5] = &m->xprev[xi];
            ps[6] = cm_hget(c, m->hx, m->hbits, bus_xh_addr(h, p->cls[cls].last, cls));
            ps[7] = cm_hget(c, m->hx, m->hbits, bus_xh_addr(h, ref, cls + 8));
        }
        c->apm = m->apx[cls][i][nf];
        unsigned b = (unsigned)cm_mix(c, ps, c->mix ? 8 : 1, m->xw[cls][i], (int)(x >> i) & 1);
        c->apm = NULL;
        v |= (uint32_t)b << i;
        if (b && nf < 3) nf++;
        lf = b;
    }
    return v ^ ref;
}

/* Encoder: how hard bus_best_ref looks: every reference (all, the mixed
 * levels: about 2x slower encoding) or BUS_NTRY of them. */
static inline void bus_set_refs(bus_acm *m, int all)
{
    m->xtry = all ? AM_NEAR : BUS_NTRY;
    m->xwin = all ? 32 : 2;
}

/* Encoder, mixed models: of the references at most xwin differing bits
 * worse than the best (up to xtry of them, fewest differences first),
 * the one whose index (tree tx, seed sx) and difference bits the model
 * codes cheapest as it stands, by dry runs of both.  Counting differing
 * bits ties often, and the bits' costs differ with the reference. */
static inline unsigned bus_best_ref(cm_coder *c, bus_acm *m, am_model *am, const am_proc *p, unsigned cls,
                                    uint32_t addr, unsigned xr, cm_p *const *tx, const uint32_t *sx)
{
    uint32_t r[AM_NEAR], bc = UINT32_MAX;
    unsigned n[AM_NEAR], cand[AM_NEAR], nt = 0, lo = 33, best = xr;
    uint8_t xrc = m->xrc;
    for (unsigned i = 0; i < AM_NEAR; i++) {
        r[i] = am_decode(am, p, cls, i);
        unsigned j = 0;
        while (r[j] != r[i]) j++;
        n[i] = j < i ? 99 : trz_popcount32(addr ^ r[i]); /* 99: the same reference at a lower index */
        if (n[i] < lo) lo = n[i];
    }
    for (unsigned d = lo; d <= lo + m->xwin && d <= 32; d++)
        for (unsigned i = 0; i < AM_NEAR && nt < m->xtry; i++)
            if (n[i] == d) cand[nt++] = i;
    if (nt < 2) return nt ? cand[0] : xr; /* nothing to weigh */
    c->dry = 1;
    c->dry_stop = UINT32_MAX;
    for (unsigned k = 0; k < nt; k++) {
        unsigned i = cand[k];
        c->dry_cost = 0;
        m->xrc = xrc;
        cm_mtree_h(c, tx, 1, m->hx, m->hbits, sx, 1, m->xrw[cls], 5, i);
        m->xrc = (uint8_t)(i < 4 ? i : 4);
        if (c->dry_cost < bc) bus_xor(c, m, p, cls, r[i], addr);
        if (c->dry_cost < bc) {
            bc = c->dry_stop = c->dry_cost;
            best = i;
        }
    }
    c->dry = 0;
    m->xrc = xrc;
    return best;
}

/* Code the address of a class-c record of processor p.  Encoding: addr is
 * the record's; decoding: addr is ignored.  ext is context from the caller:
 * bits 0-5 its record kinds, the bits above anything else it knows (the
 * last time bucket for byu).  Returns the address, or sets *bad on a
 * corrupt code. */
static inline uint32_t bus_addr(cm_coder *c, bus_acm *m, am_model *am, am_proc *p, unsigned cls, uint32_t addr,
                                unsigned ext, int *bad)
{
    unsigned code = 0, xr = 0;
    if (!c->dec) code = bus_pick(am, p, cls, addr, &xr, c->mix ? BUS_XMAX : BUS_XMAX1, c->mix);
    cm_p *ts[3] = { m->code[cls][m->last[cls]][m->lastany], NULL, m->code3[cls][m->last[cls]][m->last2[cls]] };
    uint32_t sd[6] = { 0, 0, 0, 0, 0, 0 }, *lcp = NULL;
    if (c->mix) { /* candidates cost table lookups */
        uint32_t k[AM_NCAND];
        am_cands(am, p, cls, k);
        lcp = cls == AM_FETCH ? &am_pc(am, p)->lc : &am_dslot(am, p)->lc;
        ts[1] = m->code2[cls][bus_eq(k)][ext & 63];
        sd[0] = bus_pck(p, 1 + cls * 16 + m->last[cls]);
        sd[1] = bus_pck(p, 0x30000 + cls * 256 + m->lastany * 16 + m->last2[cls]);
        sd[2] = bus_pck(p, 0x40000 + cls * 256 + *lcp);
        sd[3] = bus_pck(p, 0x80000 + cls + (ext >> 6) * 16);
        /* the class's last address; the first and the order-2 candidates */
        sd[4] = bus_ack(p->cls[cls].last, cls + 16);
        sd[5] = bus_ack(k[0] + k[5] * 0x85EBCA6Bu, cls + 24);
    }
    unsigned g = cm_mtree_ha(c, ts, 3, m->hx, m->hbits, sd, 6, m->cw[cls], 3,
                            code < AM_NCAND ? code : code < AM_NEAR ? 6 : 7, m->apc[cls][m->last[cls]]);
    if (g == 6) {
        cm_p *tr[1] = { m->rc[cls][m->last[cls]] };
        uint32_t sr[2] = { c->mix ? bus_pck(p, 0xE0000 + cls) : 0, c->mix ? bus_ack(p->cls[cls].last, cls + 32) : 0 };
        code = AM_NCAND + cm_mtree_h(c, tr, 1, m->hx, m->hbits, sr, 2, m->rcw[cls], 4, code - AM_NCAND);
    }
    else if (g == 7) {
        unsigned o = code == AM_NEAR ? 0 : code < AM_MISS ? 1 : code == BUS_DIFF ? 2 : 3;
        o = cm_tree(c, m->other[cls][m->last[cls]], 2, o);
        if (o == 0) code = AM_NEAR;
        else if (o == 1) code = AM_PAGE + cm_tree(c, m->pg[cls], 4, code - AM_PAGE);
        else code = o == 2 ? BUS_DIFF : AM_MISS;
    } else code = g;
    m->last2[cls] = m->last[cls];
    m->last[cls] = m->lastany = (uint8_t)bus_cb(code);
    if (lcp) *lcp = bus_cb(code);
    CM_FIELD(c, 3 + (cls != AM_FETCH));
    if (code < AM_NEAR) return am_decode(am, p, cls, code);
    if (code == AM_NEAR) {
        uint32_t base = am_base(am, p, cls);
        int32_t d = (int32_t)(addr - base);
        uint32_t z = ((uint32_t)d << 1) ^ (uint32_t)(d >> 31);
        z = cm_gamma_code(c, &m->near[cls], z);
        if (z >= 2 * AM_NEAR_MAX) *bad = 1;
        return base + ((z >> 1) ^ (0u - (z & 1)));
    }
    if (code < AM_MISS) {
        cm_p *t = m->pgoff[cls];
        uint32_t hi = cm_tree(c, t, 6, (addr >> 6) & 63);
        uint32_t lo = cm_tree(c, t + 64 + hi * 64, 6, addr & 63);
        return am_page(p, cls, code) << 12 | hi << 6 | lo;
    }
    if (code == AM_MISS) {
        uint32_t v = 0;
        for (int i = 3; i >= 0; i--) v = v << 8 | cm_tree(c, m->miss[cls][i], 8, (addr >> (8 * i)) & 255);
        return v;
    }
    cm_p *tx[1] = { m->xref[cls][m->last2[cls]] }; /* BUS_DIFF */
    uint32_t sx = c->mix ? bus_pck(p, 3000 + cls) : 0;
    if (!c->dec && c->mix) xr = bus_best_ref(c, m, am, p, cls, addr, xr, tx, &sx);
    xr = cm_mtree_h(c, tx, 1, m->hx, m->hbits, &sx, 1, m->xrw[cls], 5, xr);
    if (xr >= AM_NEAR) {
        *bad = 1;
        return 0;
    }
    m->xrc = (uint8_t)(xr < 4 ? xr : 4);
    CM_FIELD(c, 6);
    return bus_xor(c, m, p, cls, am_decode(am, p, cls, xr), addr);
}

/* Bytes n bytes at p would cost after the container's back-end at level. */
static inline size_t bus_zsize1(const trz_enc_args *a, const void *p, size_t n, int level)
{
    return a->packed_size(a->packer, p, n, level);
}

/* The same for all the streams of an encoding. */
static inline size_t bus_zsize(const trz_enc_args *a, const trz_buf *st, int level)
{
    size_t total = 0;
    for (int i = 0; i < TRZ_MAX_STREAMS; i++)
        if (st[i].n) total += bus_zsize1(a, st[i].p, st[i].n, level);
    return total;
}

#define BUS_LAYOUT_ZLEVEL 1 /* back-end level that compares stream layouts (fast; the gap shows there too) */

/* Encoder, after a chunk's records on the stream path: interleave each
 * record's address code (streams sf for fetches, sd for the rest) with its
 * one-byte kind in stream sk when the back-end at zlevel makes that smaller
 * (zlevel 0: always).  Traces with long exact repeats (loops traced by a
 * tool) give the back-end longer matches that way; noisy captures do
 * better with each kind of symbol in its own stream.  Record i (rs bytes at
 * in) is a fetch when its byte at cls_off maps to AM_FETCH under cls.
 * Returns 1 when the streams were interleaved (sk holds kind, code, kind,
 * code, ...; sf and sd are empty), 0 when kept, -1 on no memory. */
static inline int bus_interleave(const trz_enc_args *a, trz_buf *st, int sk, int sf, int sd, const uint8_t *in,
                                 size_t rs, size_t cls_off, unsigned (*cls)(uint8_t), int zlevel)
{
    size_t n = st[sk].n;
    if (n == 0) return 0;
    uint8_t *m = malloc(2 * n);
    int rc = m ? 0 : -1;
    if (rc == 0) {
        const uint8_t *f = st[sf].p, *d = st[sd].p;
        for (size_t i = 0; i < n; i++) {
            m[2 * i] = st[sk].p[i];
            m[2 * i + 1] = cls(in[i * rs + cls_off]) == AM_FETCH ? *f++ : *d++;
        }
        if (!zlevel || bus_zsize1(a, m, 2 * n, zlevel) < bus_zsize1(a, st[sk].p, n, zlevel) +
                                                            bus_zsize1(a, st[sf].p, st[sf].n, zlevel) +
                                                            bus_zsize1(a, st[sd].p, st[sd].n, zlevel)) {
            st[sk].n = st[sf].n = st[sd].n = 0;
            trz_put_bytes(&st[sk], m, 2 * n);
            rc = 1;
        }
    }
    free(m);
    return rc;
}

/* The first min(nrec, limit) records of a's chunk of rs-byte records, to
 * be coded into streams st, as a chunk alone (a trial, whose model is
 * never a chain's). */
static inline trz_enc_args bus_prefix(const trz_enc_args *a, size_t rs, uint64_t limit, trz_buf *st)
{
    trz_enc_args b = *a;
    b.chain = 0;
    b.nrec = a->nrec < limit ? a->nrec : limit;
    b.len = b.nrec * rs;
    b.streams = st;
    return b;
}

/* Encoder trials: the first min(nrec, limit) records of a chunk of rs-byte
 * records coded by enc (with arg) into scratch streams; *size = the bytes
 * they come to after the back-end at zlevel (0 when enc fails).  Returns
 * enc's code, or TRZ_CODEC_NOMEM. */
static inline int bus_trial(const trz_enc_args *a, size_t rs, uint64_t limit,
                            int (*enc)(const trz_enc_args *, const void *), const void *arg, int zlevel, size_t *size)
{
    trz_buf *st = calloc(TRZ_MAX_STREAMS, sizeof *st);
    *size = 0;
    if (!st) return TRZ_CODEC_NOMEM;
    trz_enc_args b = bus_prefix(a, rs, limit, st);
    int rc = enc(&b, arg);
    if (rc == TRZ_CODEC_OK) *size = bus_zsize(a, st, zlevel);
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(st[i].p);
    free(st);
    return rc;
}

#define BUS_SAMPLE 65536 /* records of a chunk's prefix that pick its path */

/* The modelled path does not win everywhere: traces with long exact
 * repeats (loops with synthetic timing) suit the back-end's match finder
 * better.  Encode a prefix of the chunk both ways and compare.  The
 * arithmetic coder's bytes are counted as they are (the back-end does not
 * shrink them), so that cm, given a stop, can give up as soon as its output
 * reaches the stream path's size: the answer is then known, and on such
 * traces most of the modelled trial is saved.  The trial runs the unmixed
 * model (much faster); the mixed one codes some 20% smaller, so when the
 * unmixed model comes within a quarter above the stream path the mixed one
 * decides.  cm(b, cm_arg, mix, stop) codes b, mixed or not.  Returns 1 =
 * arithmetic path, 0 = stream path, < 0 = error code. */
static inline int bus_pick_cm(const trz_enc_args *a, size_t rs, int (*zs)(const trz_enc_args *, const void *),
                              const void *zs_arg, int (*cm)(const trz_enc_args *, const void *, int, size_t),
                              const void *cm_arg, uint64_t foreseen)
{
    /* foreseen: the chunk's records the chain's match model would predict
       (bus_match_foresee), which the trials, coding from zero, cannot see */
    if (foreseen && foreseen >= a->nrec - a->nrec / 16) return 1;
    size_t zsz;
    int rc = bus_trial(a, rs, BUS_SAMPLE, zs, zs_arg, a->level, &zsz);
    if (rc != TRZ_CODEC_OK) return rc;
    if (foreseen) /* the mixed model codes only the rest: weigh the trial as if the prefix were that share */
        zsz = (size_t)((uint64_t)zsz * a->nrec / (a->nrec - foreseen));
    trz_buf *st = calloc(TRZ_MAX_STREAMS, sizeof *st);
    if (!st) return TRZ_CODEC_NOMEM;
    trz_enc_args b = bus_prefix(a, rs, BUS_SAMPLE, st);
    size_t slack = zsz / 4, csz = 0;
    for (int mix = 0; mix < 2; mix++) {
        rc = cm(&b, cm_arg, mix, mix ? zsz : zsz + slack);
        csz = 0;
        for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
            csz += st[i].n;
            free(st[i].p);
            st[i] = (trz_buf){ 0 };
        }
        if (rc != TRZ_CODEC_OK || csz < zsz || csz >= zsz + slack) break;
    }
    free(st);
    return rc != TRZ_CODEC_OK ? rc : csz < zsz;
}

/* ---- the arithmetic path's stream, shared by BYU and PEL ---------------- */

/* The first byte of the stream, its version, names the model and the coder
 * under it.  Versions 4 and 6 are on the coder of cm_legacy.h: decoded, no
 * longer written (the unmixed model now runs only in the encoder's trials,
 * whose streams are never kept). */
#define BUS_CM_VERSION 4    /* single contexts, legacy coder */
#define BUS_CM_MIXED 6      /* the same, mixed, legacy coder (5 was an earlier mixed model) */
#define BUS_CM_FAST 7       /* the fast model of bus_fast.h on the shared coder (rc.h) */
#define BUS_CM_MIX_RC 8     /* the mixed model (as 6) on the shared coder */

#define BUS_FAST_NOGAIN 1 /* a fast encoder loop: the prefix did not beat the stream path */
/* The last byte of a stream on the shared coder (versions 7 and 8), after
 * the coder's: the coder leaves out a final zero byte and its last byte
 * often decides nothing, so a stream cut by a byte could otherwise decode. */
#define BUS_RC_END 0xA7
/* The fast model must code the prefix 1/32 (3%) smaller than the stream
 * path to be used: the stream path decodes several times faster, and on
 * data neither predicts (random bytes) both come to about its size. */
#define BUS_FAST_GAIN 32

/* Encoder: an arithmetic-path stream's head: the version byte (BUS_CM_*)
 * and the record count (which catches a wrong one). */
static inline void bus_cm_head(trz_buf *out, unsigned ver, uint64_t nrec)
{
    trz_put_u8(out, (uint8_t)ver);
    trz_put_uvarint(out, nrec);
}

/* Decoder: a chunk on the arithmetic path holds stream `stream` alone.
 * Sets *ver to its version byte and hd past its head; TRZ_CODEC_OK, or
 * TRZ_CODEC_CORRUPT (another stream, another record count). */
static inline int bus_cm_open_stream(const trz_dec_args *a, int stream, unsigned *ver, trz_rd *hd)
{
    for (int i = 0; i < TRZ_MAX_STREAMS; i++)
        if (i != stream && a->stream_len[i]) return TRZ_CODEC_CORRUPT;
    trz_rd_init(hd, a->stream[stream], a->stream_len[stream]);
    *ver = trz_get_u8(hd);
    return trz_get_uvarint(hd) != a->nrec || hd->err ? TRZ_CODEC_CORRUPT : TRZ_CODEC_OK;
}

/* Decoder: c ready for the arithmetic path's stream of version ver (4, 6
 * or BUS_CM_MIX_RC), in[0..n) its bytes past the head.  TRZ_CODEC_OK, or
 * TRZ_CODEC_CORRUPT for a stream of the shared coder without its end. */
static inline int bus_cm_dec_start(cm_coder *c, unsigned ver, const uint8_t *in, size_t n)
{
    int legacy = ver != BUS_CM_MIX_RC;
    if (!legacy && (n == 0 || in[n - 1] != BUS_RC_END)) return TRZ_CODEC_CORRUPT;
    cm_dec_init(c, in, legacy ? n : n - 1, legacy);
    c->mix = ver != BUS_CM_VERSION;
    return TRZ_CODEC_OK;
}

/* For variant_of, a chunk whose stream `stream` (the arithmetic path's) is
 * present: its version byte, which names the variant, or BUS_CM_MIXED
 * when another stream is present too (that variant's decoder finds it
 * damaged before it reads the version). */
static inline unsigned bus_cm_version_of(const size_t *len, const uint8_t *const *head, int stream)
{
    for (int i = 0; i < TRZ_MAX_STREAMS; i++)
        if (i != stream && len[i]) return BUS_CM_MIXED;
    return head[stream][0];
}

/* The record loops of a codec's arithmetic paths over a chunk's RS-byte
 * records, with record(state, model, coder, record bytes), which serves
 * both directions (the coder knows which).  S and M: the codec's state and
 * model types.  The stream's head is written (bus_cm_head) or read
 * (bus_cm_open_stream) by the caller; the loops end with the coder's
 * flush and its checks.
 *
 * BUS_CM_LOOPS, the mixing coder (cm.h), set up by the caller (cm_enc_init
 * and whether it mixes, or bus_cm_dec_start): the encoder gives up once its
 * output reaches stop bytes (a trial, whose output is then only a size;
 * SIZE_MAX never stops), and ends the stream with BUS_RC_END.  The record
 * function is written once for both coders under cm.h: the legacy one
 * only decodes, so the encoder's path is the shared coder's alone, and the
 * decoder's tests which one per decision (a branch that never changes in a
 * chunk; measured in byu.md's design notes).
 *
 * BUS_FAST_LOOPS, the fast model (bus_fast.h) on the shared coder, record
 * inlined: the coder is then a local whose direction the compiler knows,
 * and each loop keeps only its direction's code (coder.md, design notes).
 * The encoder stops with BUS_FAST_NOGAIN once the first BUS_SAMPLE records
 * (or all) took more than zsz less 1/BUS_FAST_GAIN of it; then
 * BUS_RC_END. */
#ifdef CM_STATS
#define BUS_CM_STATS(c) \
    for (int i = 0; i < 12; i++) fprintf(stderr, "field %d: %.0f bytes\n", i, (c)->cost[i] / 8);
#else
#define BUS_CM_STATS(c)
#endif
#define BUS_CM_LOOPS(enc_name, dec_name, record, RS, S, M)                                                 \
    static int enc_name(S *s, M *m, cm_coder *c, const trz_enc_args *a, trz_buf *out, size_t stop)        \
    {                                                                                                      \
        int rc = TRZ_CODEC_OK;                                                                             \
        for (uint64_t i = 0; rc == TRZ_CODEC_OK && i < a->nrec && out->n < stop; i++) {                   \
            uint8_t r[16];                                                                                 \
            memcpy(r, a->in + i * (RS), (RS));                                                             \
            rc = record(s, m, c, r);                                                                       \
        }                                                                                                  \
        cm_enc_flush(c);                                                                                   \
        trz_put_u8(out, BUS_RC_END);                                                                       \
        BUS_CM_STATS(c)                                                                                    \
        return rc == TRZ_CODEC_OK && out->oom ? TRZ_CODEC_NOMEM : rc;                                      \
    }                                                                                                      \
    static int dec_name(S *s, M *m, cm_coder *c, const trz_dec_args *a)                                   \
    {                                                                                                      \
        int rc = TRZ_CODEC_OK;                                                                             \
        /* stop a short stream once it is read past any valid end, not after                               \
         * nrec records of made-up bits */                                                                 \
        for (uint64_t i = 0; rc == TRZ_CODEC_OK && !cm_dec_bad(c) && i < a->nrec; i++) {                   \
            uint8_t r[16] = { 0 };                                                                         \
            rc = record(s, m, c, r);                                                                       \
            memcpy(a->out + i * (RS), r, (RS));                                                            \
        }                                                                                                  \
        return rc == TRZ_CODEC_OK && !cm_dec_ok(c) ? TRZ_CODEC_CORRUPT : rc;                               \
    }

#define BUS_FAST_LOOPS(enc_name, dec_name, record, RS, S, M)                                               \
    static int enc_name(S *s, M *m, const trz_enc_args *a, trz_buf *out, size_t zsz)                      \
    {                                                                                                      \
        size_t head = out->n;                                                                              \
        uint64_t check = a->nrec < BUS_SAMPLE ? a->nrec : BUS_SAMPLE;                                      \
        int res = TRZ_CODEC_OK;                                                                            \
        rc c;                                                                                              \
        rc_enc_init(&c, out);                                                                              \
        for (uint64_t i = 0; res == TRZ_CODEC_OK && i < a->nrec; i++) {                                   \
            uint8_t r[16];                                                                                 \
            memcpy(r, a->in + i * (RS), (RS));                                                             \
            res = record(s, m, &c, r);                                                                     \
            if (i + 1 == check && out->n - head >= zsz - zsz / BUS_FAST_GAIN) res = BUS_FAST_NOGAIN;       \
        }                                                                                                  \
        if (rc_enc_flush(&c) != 0 && res == TRZ_CODEC_OK) res = TRZ_CODEC_NOMEM;                           \
        trz_put_u8(out, BUS_RC_END);                                                                       \
        return res;                                                                                        \
    }                                                                                                      \
    static int dec_name(S *s, M *m, const trz_dec_args *a, const uint8_t *in, size_t n)                   \
    {                                                                                                      \
        if (n == 0 || in[n - 1] != BUS_RC_END) return TRZ_CODEC_CORRUPT;                                   \
        int res = TRZ_CODEC_OK;                                                                            \
        rc c;                                                                                              \
        rc_dec_init(&c, in, n - 1);                                                                        \
        /* a valid stream is never read past its end: stop a short one there */                           \
        for (uint64_t i = 0; res == TRZ_CODEC_OK && !rc_dec_bad(&c) && i < a->nrec; i++) {                \
            uint8_t r[16] = { 0 };                                                                         \
            res = record(s, m, &c, r);                                                                     \
            memcpy(a->out + i * (RS), r, (RS));                                                            \
        }                                                                                                  \
        return res == TRZ_CODEC_OK && !rc_dec_ok(&c) ? TRZ_CODEC_CORRUPT : res;                            \
    }

/* Encoder, the fast levels of the arithmetic path: zsz, what the stream
 * path (zs with zs_arg, the cheap choices) makes of the chunk's first
 * BUS_SAMPLE records, capped at their raw size (data neither path shrinks,
 * random bytes: the faster one).  The fast model is used unless it does
 * not beat that (BUS_FAST_NOGAIN from its loop), as on traces with long
 * exact repeats; the fast model's prefix is not coded twice: its loop
 * stops there.  Returns the size, or SIZE_MAX with *rc the error. */
static inline size_t bus_fast_target(const trz_enc_args *a, size_t rs, int (*zs)(const trz_enc_args *, const void *),
                                     const void *zs_arg, int *rc)
{
    size_t zsz;
    *rc = bus_trial(a, rs, BUS_SAMPLE, zs, zs_arg, a->level, &zsz);
    if (*rc != TRZ_CODEC_OK) return SIZE_MAX;
    size_t raw = (size_t)(a->nrec < BUS_SAMPLE ? a->nrec : BUS_SAMPLE) * rs;
    return zsz > raw ? raw : zsz;
}

#endif
