/* bus_cm.h - arithmetic coding of bus-trace addresses for the modelled
 * paths of the BYU and PEL codecs: the address model's code (addrmodel.h)
 * and its miss payloads, each bit with an adaptive probability chosen by
 * context (cm.h).  Used the same way by encoder and decoder. */
#ifndef TRZ_BUS_CM_H
#define TRZ_BUS_CM_H

#include "addrmodel.h"
#include "cm.h"
#include <zstd.h>

#define BUS_NB 12    /* buckets of an address code, see bus_cb */
#define BUS_DIFF (AM_MISS + 1) /* code: a reference and the bits that differ */
#define BUS_XMAX 8   /* bit differences up to which a difference beats near and page codes */
#define BUS_XMAX1 2  /* the same without mixing (a weaker model of the differing bits) */
#define BUS_TRIE 16  /* address-prefix table: 2^16 slots */
#define BUS_W0 30000 /* initial mixer weight (16.16) with three inputs */

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
    cm_p other[AM_NCLS][BUS_NB][4];         /* near, page, difference, whole address */
    cm_p pg[AM_NCLS][16];                   /* recent-page index */
    cm_p xhi[AM_NCLS][2];                   /* a difference in bits 16-31?, by "code before was a miss" */
    cm_gamma near[AM_NCLS];
    cm_p pgoff[AM_NCLS][64 * 65];
    cm_p miss[AM_NCLS][4][256];           /* whole address: bytes 3..0 */
    cm_p xref[AM_NCLS][BUS_NB][32];       /* reference index by the class's previous bucket */
    cm_p xbit[AM_NCLS][32][2][4][2];      /* by bit, reference bit, differences so far (<= 3), last bit differed */
    cm_p xbit2[AM_NCLS][32][2][16];       /* by bit, reference bit, the 3 address bits above */
    cm_p trie[1 << BUS_TRIE];             /* by the address bits above and the reference bit (hashed) */
    int32_t xw[AM_NCLS][32][CM_MAXIN];
    uint8_t last[AM_NCLS];  /* bucket of the last code per class */
    uint8_t last2[AM_NCLS]; /* bucket of the code before that */
    uint8_t lastany;        /* bucket of the last code of any class */
} bus_acm;

static inline void bus_acm_init(bus_acm *m)
{
    cm_init_probs(&m->code[0][0][0][0], sizeof m->code / sizeof(cm_p));
    cm_init_probs(&m->code2[0][0][0][0], sizeof m->code2 / sizeof(cm_p));
    cm_init_probs(&m->code3[0][0][0][0], sizeof m->code3 / sizeof(cm_p));
    cm_init_weights(&m->cw[0][0], AM_NCLS * 8, BUS_W0);
    cm_init_probs(&m->rc[0][0][0], sizeof m->rc / sizeof(cm_p));
    cm_init_probs(&m->other[0][0][0], sizeof m->other / sizeof(cm_p));
    cm_init_probs(&m->pg[0][0], sizeof m->pg / sizeof(cm_p));
    cm_init_probs(&m->xhi[0][0], sizeof m->xhi / sizeof(cm_p));
    for (int i = 0; i < AM_NCLS; i++) cm_gamma_init(&m->near[i]);
    cm_init_probs(&m->pgoff[0][0], sizeof m->pgoff / sizeof(cm_p));
    cm_init_probs(&m->miss[0][0][0], sizeof m->miss / sizeof(cm_p));
    cm_init_probs(&m->xref[0][0][0], sizeof m->xref / sizeof(cm_p));
    cm_init_probs(&m->xbit[0][0][0][0][0], sizeof m->xbit / sizeof(cm_p));
    cm_init_probs(&m->xbit2[0][0][0][0], sizeof m->xbit2 / sizeof(cm_p));
    cm_init_probs(m->trie, sizeof m->trie / sizeof(cm_p));
    cm_init_weights(&m->xw[0][0], AM_NCLS * 32, BUS_W0);
    memset(m->last, 0, sizeof m->last);
    memset(m->last2, 0, sizeof m->last2);
    m->lastany = 0;
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
 * differing bits (the lowest index on ties) when at most BUS_XMAX bits
 * differ; else the near, page or miss code of addrmodel.h. */
static inline unsigned bus_pick(am_model *am, const am_proc *p, unsigned cls, uint32_t addr, unsigned *xr,
                                unsigned xmax)
{
    unsigned code = am_code(am, p, cls, addr);
    if (code < AM_NEAR) return code;
    unsigned best = 33;
    for (unsigned i = 0; i < AM_NEAR; i++) {
        unsigned n = (unsigned)__builtin_popcount(addr ^ am_decode(am, p, cls, i));
        if (n < best) {
            best = n;
            *xr = i;
        }
    }
    return best <= xmax ? BUS_DIFF : code;
}

/* Which of candidates 0, 1, 2 coincide: the encoder takes the lowest
 * index, so equal candidates change the odds of the codes. */
static inline unsigned bus_eq(am_model *am, const am_proc *p, unsigned cls)
{
    uint32_t k[AM_NCAND];
    am_cands(am, p, cls, k);
    return (k[0] == k[1]) | (k[0] == k[2]) << 1 | (k[1] == k[2]) << 2;
}

/* The 32 bits of addr ^ ref, most significant first, each mixed from three
 * predictions: local (differences so far), the address bits just above, and
 * a hashed table of address prefixes (a binary trie of the addresses seen). */
static inline uint32_t bus_xor(cm_coder *c, bus_acm *m, unsigned cls, uint32_t ref, uint32_t addr)
{
    uint32_t x = addr ^ ref, v = 0;
    unsigned nf = 0, lf = 0;
    int top = cm_bit(c, &m->xhi[cls][m->last2[cls] == AM_NCAND + 4], x >> 16 != 0) ? 31 : 15;
    for (int i = top; i >= 0; i--) {
        uint32_t above = (v ^ ref) >> i >> 1; /* the address bits above bit i */
        unsigned rb = ref >> i & 1, a3 = i < 29 ? (above & 7) : (above & 7) | 8;
        cm_p *ps[3] = { &m->xbit[cls][i][rb][nf][lf], NULL, NULL };
        if (c->mix) {
            uint32_t h = (above | 1u << (31 - i)) * 0x9E3779B1u ^ (uint32_t)(i * 2 + rb) * 0x85EBCA6Bu;
            ps[1] = &m->xbit2[cls][i][rb][a3];
            ps[2] = &m->trie[(h ^ h >> 15) & ((1u << BUS_TRIE) - 1)];
        }
        unsigned b = (unsigned)cm_mix(c, ps, 3, m->xw[cls][i], (int)(x >> i) & 1);
        v |= (uint32_t)b << i;
        if (b && nf < 3) nf++;
        lf = b;
    }
    return v ^ ref;
}

/* Code the address of a class-c record of processor p.  Encoding: addr is
 * the record's; decoding: addr is ignored.  ext (0..63) is a context from
 * the caller (its record kinds).  Returns the address, or sets *bad on a
 * corrupt code. */
static inline uint32_t bus_addr(cm_coder *c, bus_acm *m, am_model *am, am_proc *p, unsigned cls, uint32_t addr,
                                unsigned ext, int *bad)
{
    unsigned code = 0, xr = 0;
    if (!c->dec) code = bus_pick(am, p, cls, addr, &xr, c->mix ? BUS_XMAX : BUS_XMAX1);
    cm_p *ts[3] = { m->code[cls][m->last[cls]][m->lastany], NULL, m->code3[cls][m->last[cls]][m->last2[cls]] };
    if (c->mix) ts[1] = m->code2[cls][bus_eq(am, p, cls)][ext & 63]; /* candidates cost table lookups */
    unsigned g = cm_mtree(c, ts, 3, m->cw[cls], 3, code < AM_NCAND ? code : code < AM_NEAR ? 6 : 7);
    if (g == 6) code = AM_NCAND + cm_tree(c, m->rc[cls][m->last[cls]], 4, code - AM_NCAND);
    else if (g == 7) {
        unsigned o = code == AM_NEAR ? 0 : code < AM_MISS ? 1 : code == BUS_DIFF ? 2 : 3;
        o = cm_tree(c, m->other[cls][m->last[cls]], 2, o);
        if (o == 0) code = AM_NEAR;
        else if (o == 1) code = AM_PAGE + cm_tree(c, m->pg[cls], 4, code - AM_PAGE);
        else code = o == 2 ? BUS_DIFF : AM_MISS;
    } else code = g;
    m->last2[cls] = m->last[cls];
    m->last[cls] = m->lastany = (uint8_t)bus_cb(code);
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
    xr = cm_tree(c, m->xref[cls][m->last2[cls]], 5, xr); /* BUS_DIFF */
    if (xr >= AM_NEAR) {
        *bad = 1;
        return 0;
    }
    CM_FIELD(c, 6);
    return bus_xor(c, m, cls, am_decode(am, p, cls, xr), addr);
}

/* Bytes the streams of an encoding would cost after the back-end (zstd
 * at the chunk's level, stored when that does not shrink them). */
static inline size_t bus_zsize(const trz_buf *st, int level)
{
    size_t total = 0;
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
        if (!st[i].n) continue;
        size_t bound = ZSTD_compressBound(st[i].n);
        void *z = malloc(bound);
        size_t zn = z ? ZSTD_compress(z, bound, st[i].p, st[i].n, level) : st[i].n;
        free(z);
        total += ZSTD_isError(zn) || zn > st[i].n ? st[i].n : zn;
    }
    return total;
}

#define BUS_SAMPLE 65536 /* records of a chunk's prefix that pick its path */

/* The modelled path does not win everywhere: traces with long exact
 * repeats (loops with synthetic timing) suit the back-end's match finder
 * better.  Encode a prefix of the chunk both ways and compare.  Returns
 * 1 = arithmetic path, 0 = stream path, < 0 = error code. */
static inline int bus_pick_cm(const trz_enc_args *a, size_t rs, int (*zs)(const trz_enc_args *),
                              int (*cm)(const trz_enc_args *))
{
    trz_buf *st = calloc(TRZ_MAX_STREAMS, sizeof *st);
    if (!st) return TRZ_CODEC_NOMEM;
    trz_enc_args b = *a;
    b.nrec = a->nrec < BUS_SAMPLE ? a->nrec : BUS_SAMPLE;
    b.len = b.nrec * rs;
    b.streams = st;
    int rc = zs(&b);
    size_t zsz = rc == TRZ_CODEC_OK ? bus_zsize(st, a->level) : 0;
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(st[i].p);
    memset(st, 0, TRZ_MAX_STREAMS * sizeof *st);
    if (rc == TRZ_CODEC_OK) rc = cm(&b);
    size_t csz = bus_zsize(st, a->level);
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(st[i].p);
    free(st);
    return rc != TRZ_CODEC_OK ? rc : csz < zsz;
}

#endif
