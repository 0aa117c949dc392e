/* cs_rc.h - the ChampSim codec's coding layer over the shared range coder
 * (../common/rc.h, whose byte format it keeps): decisions with a
 * compile-time direction, count-based probabilities for sparse contexts,
 * logistic mixing, bit trees and the integer binarisation of addresses.
 *
 * Every modelled decision of the codec goes through the functions here, so
 * the models are written once for both directions: each takes `enc`, a
 * compile-time constant at every call site of the always-inlined model
 * code; encoding codes the given value and returns it, decoding ignores it
 * and returns the decoded one.  No global state (but the tuning statistics
 * of CS_STATS builds). */
#ifndef TRZ_CS_RC_H
#define TRZ_CS_RC_H

#include "../common/rc_model.h"
#ifdef CS_STATS
#include <math.h>
extern double *cs_cost; /* bits spent, accumulated per field by the model */
#endif

#if defined(__GNUC__)
#define CS_HOT static inline __attribute__((always_inline))
#define CS_LIKELY(x) __builtin_expect(!!(x), 1)
#else
#define CS_HOT static inline
#define CS_LIKELY(x) (x)
#endif

typedef rc cs_rc;
typedef rc_prob cs_p; /* P(bit = 0) * 65536, shift-updated */
#define CS_P_HALF ((cs_p)RC_P0)

/* ---- one binary decision ------------------------------------------------ */

/* Code `bit` with P(0) = p / 65536, p in [1, 65535]; no model update. */
CS_HOT int cs_code_bit(cs_rc *c, const int enc, uint32_t p, int bit)
{
#ifdef CS_STATS
    if (enc && cs_cost) {
        double q = p / 65536.0;
        *cs_cost += -log2(bit ? 1 - q : q);
    }
#endif
    return enc ? rc_enc_code(c, p, bit) : rc_dec_code(c, p);
}

/* A decision with a shift-updated probability (step 2^-rate). */
CS_HOT int cs_bit(cs_rc *c, const int enc, cs_p *pp, int bit, const int rate)
{
    uint32_t p = *pp;
    bit = cs_code_bit(c, enc, p, bit);
    *pp = (cs_p)rc_adapt(p, bit, rate);
    return bit;
}

#define CS_RATE RC_SHIFT /* default adaptation */

/* n equiprobable bits (n <= 32), most significant first. */
static inline uint32_t cs_direct(cs_rc *c, const int enc, uint32_t v, int n)
{
#ifdef CS_STATS
    if (enc && cs_cost) *cs_cost += n;
#endif
    (void)enc;
    return rc_direct(c, v, n);
}

static inline uint64_t cs_direct64(cs_rc *c, const int enc, uint64_t v)
{
    uint64_t hi = cs_direct(c, enc, (uint32_t)(v >> 32), 32);
    return hi << 32 | cs_direct(c, enc, (uint32_t)v, 32);
}

/* A symbol of n bits through a bit tree of 2^n probabilities (index 1..). */
CS_HOT uint32_t cs_tree(cs_rc *c, const int enc, cs_p *t, uint32_t v, int n, const int rate)
{
    uint32_t m = 1;
    for (int i = n - 1; i >= 0; i--) m = m << 1 | (uint32_t)cs_bit(c, enc, &t[m], (int)(v >> i & 1), rate);
    return m - (1u << n);
}

static inline void cs_p_fill(cs_p *p, size_t n)
{
    if (!n) return;
    p[0] = CS_P_HALF;
    for (size_t have = 1; have < n; have *= 2) memcpy(p + have, p, (have < n - have ? have : n - have) * sizeof *p);
}

/* ---- adaptive-rate probabilities for sparse contexts ------------------------ */

/* A state: bits 31..10 = P(bit = 0) * 2^22, bits 5..0 = updates seen n.
 * Update step 2 / (2n + 3) (a count-based estimate while n is small, then
 * an exponential average over about `limit` events).  Contexts that see a
 * handful of events (a new instruction's fields) learn from the first. */
typedef uint32_t cs_a;
#define CS_A_HALF ((cs_a)1 << 31)

/* 65536 * 2 / (2n + 3) */
static const uint16_t cs_a_rate[64] = {
    43690, 26214, 18724, 14563, 11915, 10082, 8738, 7710, 6898, 6241, 5698, 5242, 4854, 4519, 4228, 3971,
    3744, 3542, 3360, 3196, 3048, 2912, 2788, 2674, 2570, 2473, 2383, 2299, 2221, 2148, 2080, 2016,
    1956, 1899, 1846, 1795, 1747, 1702, 1659, 1618, 1579, 1542, 1506, 1472, 1440, 1409, 1379, 1351,
    1323, 1297, 1272, 1248, 1224, 1202, 1180, 1159, 1139, 1120, 1101, 1083, 1065, 1048, 1032, 1016
};

CS_HOT int cs_abit(cs_rc *c, const int enc, cs_a *sp, int bit, const unsigned limit)
{
    cs_a s = *sp;
    uint32_t p22 = s >> 10, p16 = p22 >> 6;
    bit = cs_code_bit(c, enc, p16 ? p16 : 1, bit);
    unsigned n = s & 63;
    if (bit) p22 -= (uint32_t)(((uint64_t)p22 * cs_a_rate[n]) >> 16);
    else p22 += (uint32_t)(((uint64_t)((1u << 22) - p22) * cs_a_rate[n]) >> 16);
    n += n < limit;
    *sp = p22 << 10 | n;
    return bit;
}

CS_HOT uint32_t cs_atree(cs_rc *c, const int enc, cs_a *t, uint32_t v, int n, const unsigned limit)
{
    uint32_t m = 1;
    for (int i = n - 1; i >= 0; i--) m = m << 1 | (uint32_t)cs_abit(c, enc, &t[m], (int)(v >> i & 1), limit);
    return m - (1u << n);
}

/* The cost of v through an n-bit tree of count states, in 1/256 bit
 * (rc_model.h's cost scale). */
static inline uint32_t cs_atree_cost(const cs_a *t, int n, uint32_t v)
{
    uint32_t m = 1, cost = 0;
    for (int i = n - 1; i >= 0; i--) {
        int b = (int)(v >> i) & 1;
        uint32_t p = t[m] >> 16;
        cost += rc_cost(p ? p : 1, b);
        m = m << 1 | (uint32_t)b;
    }
    return cost;
}

/* Every state at 1/2, by doubling copies (few calls for megabytes). */
static inline void cs_a_fill(cs_a *p, size_t n)
{
    if (!n) return;
    p[0] = CS_A_HALF;
    for (size_t have = 1; have < n; have *= 2) memcpy(p + have, p, (have < n - have ? have : n - have) * sizeof *p);
}

/* ---- logistic mixing ------------------------------------------------------ */

/* stretch(p) = ln(p / (1 - p)) and squash, its inverse, in fixed point:
 * probabilities in 12 bits (P(1) * 4096), logits * 256 clamped to +-2047
 * (the lpaq1 functions).  Tables are per coder set, no globals. */
typedef struct {
    int16_t str[4096];
} cs_mixtab;

static inline int cs_squash(int d)
{
    static const int16_t t[33] = { 1,    2,    3,    6,    10,   16,   27,   45,   73,   120,  194,
                                   310,  488,  747,  1101, 1546, 2047, 2549, 2994, 3348, 3607, 3785,
                                   3901, 3975, 4022, 4050, 4068, 4079, 4085, 4089, 4092, 4093, 4094 };
    if (d > 2047) return 4095;
    if (d < -2047) return 1;
    int w = d & 127;
    d = (d >> 7) + 16;
    return (t[d] * (128 - w) + t[d + 1] * w + 64) >> 7;
}

static inline void cs_mixtab_init(cs_mixtab *t)
{
    int pi = 0;
    for (int x = -2047; x <= 2047; x++) {
        int v = cs_squash(x);
        for (int i = pi; i <= v; i++) t->str[i] = (int16_t)x;
        pi = v + 1;
    }
    for (int i = pi; i < 4096; i++) t->str[i] = 2047;
}

/* A mixer of n inputs: weights in 16.16 fixed point. */
#define CS_MIX_MAX 8
typedef struct {
    int32_t w[CS_MIX_MAX];
} cs_mixw;

static inline void cs_mixw_init(cs_mixw *w, int n, int32_t v)
{
    for (int i = 0; i < CS_MIX_MAX; i++) w->w[i] = i < n ? v : 0;
}

/* P(1) in 12 bits from stretched inputs st[0..n). */
CS_HOT int cs_mix_dot(const cs_mixw *w, const int *st, int n)
{
    int64_t dot = 0;
    for (int i = 0; i < n; i++) dot += (int64_t)w->w[i] * st[i];
    int d = (int)(dot >> 16);
    return cs_squash(d);
}

/* Weights stay within +-256 (16.16): no overflow however long a chunk. */
static inline int32_t cs_wclamp(int32_t w) { return w > (1 << 24) ? 1 << 24 : w < -(1 << 24) ? -(1 << 24) : w; }

/* Move the weights toward the inputs that were right: err = bit - p. */
CS_HOT void cs_mix_learn(cs_mixw *w, const int *st, int n, int p12, int bit, int lr)
{
    int err = ((bit << 12) - p12) * lr;
    for (int i = 0; i < n; i++) w->w[i] = cs_wclamp(w->w[i] + ((st[i] * err) >> 10));
}

/* Code a bit with P(1) = p12 / 4096. */
CS_HOT int cs_code_bit12(cs_rc *c, const int enc, int p12, int bit)
{
    uint32_t p0 = (uint32_t)(4096 - p12) << 4; /* P(0) * 65536 */
    return cs_code_bit(c, enc, p0, bit);
}

/* 12-bit P(1) of an adaptive state. */
static inline int cs_a_p12(cs_a s)
{
    int p0 = (int)(s >> 20); /* P(0) in 12 bits */
    int p1 = 4096 - p0;
    return p1 < 1 ? 1 : p1 > 4095 ? 4095 : p1;
}
static inline int cs_p_p12(cs_p s)
{
    int p1 = 4096 - (s >> 4);
    return p1 < 1 ? 1 : p1 > 4095 ? 4095 : p1;
}

/* Update an adaptive state with a bit coded elsewhere. */
CS_HOT void cs_a_update(cs_a *sp, int bit, const unsigned limit)
{
    cs_a s = *sp;
    unsigned n = s & 63;
    uint32_t p22 = s >> 10;
    if (bit) p22 -= (uint32_t)(((uint64_t)p22 * cs_a_rate[n]) >> 16);
    else p22 += (uint32_t)(((uint64_t)((1u << 22) - p22) * cs_a_rate[n]) >> 16);
    n += n < limit;
    *sp = p22 << 10 | n;
}

/* ---- integers: bucket (bit length) + low bits --------------------------- */

/* Model of an unsigned 64-bit number: its bit length L (0..64) through a
 * 7-bit tree, then below the leading 1 the next CS_UMANT bits in the
 * context of L, the rest direct. */
#define CS_UMANT 2
#define CS_ILIMIT 30
typedef struct {
    cs_a len[128];
    cs_a mant[65][1 << CS_UMANT];
} cs_umodel;

static inline unsigned cs_bitlen(uint64_t v) { return v ? 64 - (unsigned)__builtin_clzll(v) : 0; }

/* The general form: bit length through lenT (128), the CS_UMANT bits below
 * the leading 1 through mantT[L] (65 x 2^CS_UMANT), the lowest 3 bits (when
 * at least 3 bits remain) through the 3-bit tree lowT (8; NULL: direct),
 * the bits between direct. */
static inline uint64_t cs_uint_x(cs_rc *c, const int enc, cs_a *lenT, cs_a (*mantT)[1 << CS_UMANT], cs_a *lowT,
                                 uint64_t v)
{
    unsigned L = cs_atree(c, enc, lenT, enc ? cs_bitlen(v) : 0, 7, CS_ILIMIT);
    if (L > 64) { c->overrun = 1u << 20; return 0; } /* not a length the encoder writes: damaged */
    if (L <= 1) return L;
    unsigned rest = L - 1;
    unsigned k = rest < CS_UMANT ? rest : CS_UMANT;
    uint64_t r = 1;
    uint32_t node = 1;
    for (unsigned i = 0; i < k; i++) {
        int b = enc ? (int)(v >> (rest - 1 - i) & 1) : 0;
        b = cs_abit(c, enc, &mantT[L][node], b, CS_ILIMIT);
        node = node << 1 | (uint32_t)b;
        r = r << 1 | (uint64_t)b;
    }
    unsigned d = rest - k;
    unsigned low = lowT && d >= 3 ? 3 : 0;
    d -= low;
    if (d > 32) {
        r = r << 32 | cs_direct(c, enc, (uint32_t)(v >> (d - 32 + low)), 32);
        d -= 32;
    }
    if (d) r = r << d | cs_direct(c, enc, (uint32_t)((v >> low) & ((1ull << d) - 1)), (int)d);
    if (low) r = r << 3 | cs_atree(c, enc, lowT, (uint32_t)(v & 7), 3, CS_ILIMIT);
    return r;
}

static inline uint64_t cs_uint(cs_rc *c, const int enc, cs_umodel *m, uint64_t v)
{
    return cs_uint_x(c, enc, m->len, m->mant, NULL, v);
}

/* Signed: one sign bit (for v != 0), then the magnitude. */
typedef struct {
    cs_a sign;
    cs_umodel u;
} cs_smodel;

static inline int64_t cs_sint(cs_rc *c, const int enc, cs_smodel *m, int64_t v)
{
    uint64_t mag = enc ? (v < 0 ? 0 - (uint64_t)v : (uint64_t)v) : 0;
    mag = cs_uint(c, enc, &m->u, mag);
    if (!mag) return 0;
    int neg = cs_abit(c, enc, &m->sign, v < 0, CS_ILIMIT);
    return neg ? (int64_t)(0 - mag) : (int64_t)mag;
}

#endif
