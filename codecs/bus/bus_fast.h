/* bus_fast.h - the fast arithmetic-coded path of the BYU and PEL codecs
 * (the range-fast variant: levels 6 to 11, the default included):
 * the model (prediction slots, the address code and its payloads) coded on
 * the shared range coder (../common/rc.h), one adaptive probability per
 * decision, no mixing.  Spec: byu.md and pbus.md, "stream version 7".
 *
 * Speed comes from few decisions per record, each coded once with one
 * probability; strength from what those decisions ask: bus traffic repeats
 * per instruction, so most fields are first guessed from what the same
 * instruction did last time (bf_slot), at the cost of one decision. */
#ifndef TRZ_BUS_FAST_H
#define TRZ_BUS_FAST_H

#include "addrmodel.h"
#include "../common/rc_model.h"

/* ---- coder calls ----------------------------------------------------------- */

/* Probabilities with a count: P(0) in bits 0..15 (rc.h's convention), the
 * updates seen in bits 16..23.  The step is 1 / (n + 1.5) of the error up
 * to BF_LIMIT updates: a context's first bits set its odds at once, as a
 * frequency count would, and busy contexts average over ~BF_LIMIT bits.
 * On sdsu that coded 6% smaller than rc_bit2's fixed two rates. */
typedef uint32_t bf_p;
#define BF_P0 32768u
#define BF_LIMIT 60
static const uint16_t bf_rate[BF_LIMIT + 1] = { /* 65536 / (n + 1.5) */
    43690, 26214, 18724, 14563, 11915, 10082, 8738, 7710, 6898, 6241, 5698, 5242, 4854, 4519, 4228, 3971, 3744, 3542, 3360, 3196, 3048, 2912, 2788, 2674, 2570, 2473, 2383, 2299, 2221, 2148, 2080, 2016, 1956, 1899, 1846, 1795, 1747, 1702, 1659, 1618, 1579, 1542, 1506, 1472, 1440, 1409, 1379, 1351, 1323, 1297, 1272, 1248, 1224, 1202, 1180, 1159, 1139, 1120, 1101, 1083, 1065 };

TRZ_FORCE_INLINE int bf_bit(rc *c, bf_p *p, int bit)
{
    uint32_t v = *p, pr = v & 0xFFFF, n = v >> 16;
    bit = rc_bit_p(c, pr, bit);
    int32_t err = (bit ? 32 : 65504) - (int32_t)pr; /* P(0) stays in 32..65504: never 0 or 1 */
    pr = (uint32_t)((int32_t)pr + (int32_t)(((int64_t)err * bf_rate[n]) >> 16)); /* 64 bits: no overflow to think about */
    *p = (n + (n < BF_LIMIT)) << 16 | pr;
    return bit;
}
#ifdef BF_STATS /* model tuning only: bytes spent per field */
#include <math.h>
static double bf_cost[16], bf_n[16];
static int bf_field;
static inline int bf_bit_st(rc *c, bf_p *p, int bit)
{
    double p0 = (*p & 0xFFFF) / 65536.0;
    bit = bf_bit(c, p, bit);
    bf_cost[bf_field] -= log2(bit ? 1 - p0 : p0);
    bf_n[bf_field]++;
    return bit;
}
#define BF_BIT bf_bit_st
#define BF_FIELD(f) (bf_field = (f))
__attribute__((destructor)) static void bf_report(void)
{
    for (int i = 0; i < 8; i++)
        if (bf_cost[i] > 0) fprintf(stderr, "f%d %.0f B %.0f k  ", i, bf_cost[i] / 8, bf_n[i] / 1000);
    fprintf(stderr, "\n");
}
#else
#define BF_BIT bf_bit
#define BF_FIELD(f) ((void)0)
#endif

static inline void bf_init(bf_p *p, size_t n)
{
    if (!n) return;
    p[0] = BF_P0;
    size_t have = 1; /* doubling copies: the tables are set up per chunk */
    while (have < n) {
        size_t k = have < n - have ? have : n - have;
        memcpy(p + have, p, k * sizeof *p);
        have += k;
    }
}

/* An n-bit symbol through a bit tree of 2^n two-rate probabilities (node 1
 * the root; entry 0 unused). */
TRZ_FORCE_INLINE uint32_t bf_tree(rc *c, bf_p *t, int n, uint32_t v)
{
    uint32_t m = 1;
    for (int i = n - 1; i >= 0; i--) m = m << 1 | (uint32_t)BF_BIT(c, &t[m], (int)(v >> i) & 1);
    return m - (1u << n);
}

/* ---- prediction slots ----------------------------------------------------------- */

/* The same code address, so many records after its fetch, issues the same
 * kind of request, whose address the same candidate predicts, taking about
 * the same time.  A slot per (code address, records since its fetch,
 * repeated fetch) keeps what came last time; a field is then first a "the
 * same again" decision in the context of how the guess went the last two
 * times (hist), and only when that fails the value itself. */
typedef struct bf_slot {
    uint8_t kind; /* kind id (BYU) or control byte (PEL) */
    uint8_t code; /* address code (< 64) | class << 6 */
    uint8_t q;    /* time quotient (BYU) */
    uint8_t hist; /* the last two guesses' hits: kind bits 0-1, code 2-3, time 4-5 */
} bf_slot;

#define BF_SLOTBITS 16 /* slots at most 2^16 (256 KiB): about one per code position of a chunk */

/* A chunk's slot table: 2^bits slots. */
typedef struct bf_slots {
    bf_slot *t;
    int bits;
    int cap; /* t's size as made (am_table) */
} bf_slots;

/* Slots for a chunk of nrec records (fewer for small chunks: zeroing them
 * would dominate), zeroed, kept from the chunk before where they fit; 0,
 * or -1 when out of memory. */
static inline int bf_slots_open(bf_slots *s, uint64_t nrec)
{
    s->bits = am_bits(nrec, BF_SLOTBITS);
    s->t = am_table(s->t, &s->cap, s->bits, sizeof *s->t);
    return s->t ? 0 : -1;
}

/* Gives the slots back (with the model). */
static inline void bf_slots_free(bf_slots *s)
{
    if (s->t) trz_big_free(s->t, ((size_t)1 << s->cap) * sizeof *s->t);
    s->t = NULL;
}

/* The slot of the record processor p issues next. */
static inline bf_slot *bf_slot_at(const bf_slots *s, const am_proc *p)
{
    uint32_t h = p->pc * 0x2545F491u ^ (p->k > 7 ? 7 : p->k) * 0x68E31DA4u ^ p->rep * 0x1B873593u;
    h ^= h >> 15;
    return &s->t[(h * 0x2C1B3C6Du) >> (32 - s->bits)];
}

/* Field f's 2 bits of hist. */
static inline unsigned bf_h(const bf_slot *s, int f) { return (unsigned)(s->hist >> (2 * f)) & 3; }

/* Record whether field f's guess hit. */
static inline void bf_hit(bf_slot *s, int f, int hit)
{
    unsigned sh = 2u * (unsigned)f, h = ((unsigned)(s->hist >> sh) << 1 | (unsigned)hit) & 3;
    s->hist = (uint8_t)((s->hist & ~(3u << sh)) | h << sh);
}

/* ---- the address model -------------------------------------------------------- */

#define BF_NB 12              /* buckets of an address code (bf_cb) */
#define BF_DIFF (AM_MISS + 1) /* code: a reference and the bits that differ from it */
#define BF_XMAX 4             /* differing bits up to which a difference beats near, page and miss codes */
_Static_assert(BF_DIFF < 64, "a slot keeps the code in 6 bits");

/* Code buckets for contexts: candidates alone, recent-cache hits in two
 * groups, near, page, whole address, difference. */
static inline unsigned bf_cb(unsigned code)
{
    if (code < AM_NCAND) return code;
    if (code < AM_NCAND + 4) return AM_NCAND;
    if (code < AM_NEAR) return AM_NCAND + 1;
    if (code == AM_NEAR) return AM_NCAND + 2;
    if (code < AM_MISS) return AM_NCAND + 3;
    return code == AM_MISS ? AM_NCAND + 4 : AM_NCAND + 5;
}

typedef struct bf_acm {
    /* group: 0-5 a candidate, 6 recent, 7 other; by the slot's code bucket,
     * its guesses' hits and the class's last bucket */
    bf_p grp[AM_NCLS][BF_NB + 1][4][BF_NB][8];
    bf_p rc[AM_NCLS][BF_NB][16];         /* recent-address index by the class's last bucket */
    bf_p other[AM_NCLS][BF_NB][4];       /* near, page, difference, whole address */
    bf_p pg[AM_NCLS][16];                /* recent-page index */
    rc_prob nlen[AM_NCLS][RC_ULEN];      /* near: zigzag delta from the base */
    rc_prob nbits[AM_NCLS][RC_UBITS];
    bf_p pgoff[AM_NCLS][64 * 65];        /* page offset: 6 bits, then 6 more by the first */
    bf_p miss[AM_NCLS][4][256];          /* whole address: bytes 3..0 */
    bf_p xref[AM_NCLS][BF_NB][32];       /* difference: reference index by the class's bucket before last */
    bf_p xhi[AM_NCLS][2];                /* bits 16-31 differ?, by "the code before was a miss" */
    bf_p xbit[AM_NCLS][32][2][4][2];     /* by bit, reference bit, differences so far (<= 3), last bit differed */
    uint8_t last[AM_NCLS], last2[AM_NCLS], lastany;
} bf_acm;

static inline void bf_acm_init(bf_acm *m)
{
    bf_init(&m->grp[0][0][0][0][0], sizeof m->grp / sizeof(bf_p));
    bf_init(&m->rc[0][0][0], sizeof m->rc / sizeof(bf_p));
    bf_init(&m->other[0][0][0], sizeof m->other / sizeof(bf_p));
    bf_init(&m->pg[0][0], sizeof m->pg / sizeof(bf_p));
    rc_init(&m->nlen[0][0], sizeof m->nlen / sizeof(rc_prob));
    rc_init(&m->nbits[0][0], sizeof m->nbits / sizeof(rc_prob));
    bf_init(&m->pgoff[0][0], sizeof m->pgoff / sizeof(bf_p));
    bf_init(&m->miss[0][0][0], sizeof m->miss / sizeof(bf_p));
    bf_init(&m->xref[0][0][0], sizeof m->xref / sizeof(bf_p));
    bf_init(&m->xhi[0][0], sizeof m->xhi / sizeof(bf_p));
    bf_init(&m->xbit[0][0][0][0][0], sizeof m->xbit / sizeof(bf_p));
    memset(m->last, 0, sizeof m->last);
    memset(m->last2, 0, sizeof m->last2);
    m->lastany = 0;
}

/* Encoder's choice: the code for addr.  A candidate or recent address when
 * one matches; else a difference from the reference with the fewest
 * differing bits (the lowest index on ties) when at most BF_XMAX differ;
 * else the near, page or miss code of addrmodel.h. */
static inline unsigned bf_pick(am_model *am, const am_proc *p, unsigned cls, uint32_t addr, unsigned *xr)
{
    unsigned code = am_code(am, p, cls, addr);
    if (code < AM_NEAR) return code;
    unsigned bn = 33;
    for (unsigned i = 0; i < AM_NEAR; i++) {
        unsigned n = trz_popcount32(addr ^ am_decode(am, p, cls, i));
        if (n < bn) {
            bn = n;
            *xr = i;
        }
    }
    return bn <= BF_XMAX ? BF_DIFF : code;
}

/* The bits of addr ^ ref, most significant first: whether bits 16-31
 * differ at all, then each bit by its position, the reference's bit (bus
 * noise sets lines: a 0 turns 1), how many differed so far and whether the
 * bit above did. */
TRZ_FORCE_INLINE uint32_t bf_xor(rc *c, bf_acm *m, unsigned cls, uint32_t ref, uint32_t addr)
{
    uint32_t x = addr ^ ref, v = 0;
    unsigned nf = 0, lf = 0;
    int top = BF_BIT(c, &m->xhi[cls][m->last2[cls] == AM_NCAND + 4], x >> 16 != 0) ? 31 : 15;
    for (int i = top; i >= 0; i--) {
        unsigned b = (unsigned)BF_BIT(c, &m->xbit[cls][i][ref >> i & 1][nf][lf], (int)(x >> i) & 1);
        v |= (uint32_t)b << i;
        nf += b & (nf < 3);
        lf = b;
    }
    return v ^ ref;
}

/* Code the address of a class-cls record of processor p, with its slot sl
 * (encoding: addr is the record's; decoding: ignored).  Returns the
 * address, or sets *bad on a corrupt code. */
TRZ_FORCE_INLINE uint32_t bf_addr(rc *c, bf_acm *m, am_model *am, am_proc *p, bf_slot *sl, unsigned cls, uint32_t addr,
                           int *bad)
{
    BF_FIELD(3);
    unsigned code = 0, xr = 0, lb = m->last[cls];
    if (!c->dec) code = bf_pick(am, p, cls, addr, &xr);
    /* the group in the context of the slot's code (its bucket, or 12 when
     * the slot's record had another class) and how the slot's guesses went */
    unsigned gb = sl->code >> 6 == cls ? bf_cb(sl->code & 63) : BF_NB;
    unsigned hit = code == (sl->code & 63u) && gb < BF_NB;
    unsigned g = bf_tree(c, m->grp[cls][gb][bf_h(sl, 1)][lb], 3, code < AM_NCAND ? code : code < AM_NEAR ? 6 : 7);
    if (g == 6) code = AM_NCAND + bf_tree(c, m->rc[cls][lb], 4, code - AM_NCAND);
    else if (g == 7) {
        unsigned o = code == AM_NEAR ? 0 : code < AM_MISS ? 1 : code == BF_DIFF ? 2 : 3;
        o = bf_tree(c, m->other[cls][lb], 2, o);
        if (o == 0) code = AM_NEAR;
        else if (o == 1) code = AM_PAGE + bf_tree(c, m->pg[cls], 4, code - AM_PAGE);
        else code = o == 2 ? BF_DIFF : AM_MISS;
    } else code = g;
    if (c->dec) hit = code == (sl->code & 63u) && gb < BF_NB;
    bf_hit(sl, 1, (int)hit);
    sl->code = (uint8_t)(cls << 6 | code);
    m->last2[cls] = m->last[cls];
    m->last[cls] = m->lastany = (uint8_t)bf_cb(code);
    BF_FIELD(4);
    if (code < AM_NEAR) return am_decode(am, p, cls, code);
    if (code == AM_NEAR) {
        uint32_t base = am_base(am, p, cls);
        int32_t d = (int32_t)(addr - base);
        uint64_t z = rc_uint(c, m->nlen[cls], m->nbits[cls], ((uint32_t)d << 1) ^ (uint32_t)(d >> 31));
        if (z >= 2 * AM_NEAR_MAX) *bad = 1;
        return base + (((uint32_t)z >> 1) ^ (0u - ((uint32_t)z & 1)));
    }
    if (code < AM_MISS) {
        bf_p *po = m->pgoff[cls];
        uint32_t hi = bf_tree(c, po, 6, (addr >> 6) & 63);
        uint32_t lo = bf_tree(c, po + 64 + hi * 64, 6, addr & 63);
        return am_page(p, cls, code) << 12 | hi << 6 | lo;
    }
    if (code == AM_MISS) {
        uint32_t v = 0;
        for (int i = 3; i >= 0; i--) v = v << 8 | bf_tree(c, m->miss[cls][i], 8, (addr >> (8 * i)) & 255);
        return v;
    }
    BF_FIELD(5);
    xr = bf_tree(c, m->xref[cls][m->last2[cls]], 5, xr);
    if (xr >= AM_NEAR) {
        *bad = 1;
        return 0;
    }
    return bf_xor(c, m, cls, am_decode(am, p, cls, xr), addr);
}

#endif
