/* uop_rc.h - the uop context model's coding layer over the shared range
 * coder (../common/rc.h, whose byte format it keeps): every function takes
 * `enc`, a compile-time constant at each call site of the always-inlined
 * model, so the per-line loop has one direction folded in (coder.md,
 * "The direction").  Encoding codes the value given and returns it;
 * decoding ignores it and returns the value read.
 *
 * Two kinds of probability: the shared coder's shift-updated rc_prob
 * (busy contexts) and a count state (sparse contexts: a new instruction's
 * fields), whose step is 1/(n + 1.5) over its first n updates, so a context
 * seen twice already predicts well.  A small logistic mixer combines the
 * branch predictors.  Spec: uop.md, "Context model". */
#ifndef TRZ_UOP_RC_H
#define TRZ_UOP_RC_H

#include "../common/rc_model.h"

#if defined(__GNUC__)
#define U_HOT static inline __attribute__((always_inline))
#else
#define U_HOT static inline
#endif

static inline void u_prefetch(const void *p)
{
#if defined(__GNUC__)
    __builtin_prefetch(p, 1);
#else
    (void)p;
#endif
}

/* ---- one decision -------------------------------------------------------- */

#ifdef UOP_STATS
#include <math.h>
extern double uop_cost[32];
extern int uop_field;
#endif
U_HOT int u_code(rc *c, const int enc, uint32_t p0, int bit)
{
#ifdef UOP_STATS
    if (enc) uop_cost[uop_field] += -log2(bit ? 1 - p0 / 65536.0 : p0 / 65536.0);
#endif
    return enc ? rc_enc_code(c, p0, bit) : rc_dec_code(c, p0);
}

/* Shift probability (rc_prob, P(0) * 65536), step 2^-s. */
U_HOT int u_bit_s(rc *c, const int enc, rc_prob *p, int bit, const int s)
{
    uint32_t v = *p;
    bit = u_code(c, enc, v, bit);
    *p = (rc_prob)rc_adapt(v, bit, s);
    return bit;
}
#define u_bit(c, enc, p, bit) u_bit_s(c, enc, p, bit, 4)

/* Count state: bits 31..10 P(0) * 2^22, bits 5..0 the updates seen n (up
 * to a limit).  Update step R[n] / 65536 with R[n] = 131072 / (2n + 3). */
typedef uint32_t u_cs;
#define U_CS0 ((u_cs)1 << 31)

static const uint16_t u_cs_rate[64] = {
    43690, 26214, 18724, 14563, 11915, 10082, 8738, 7710, 6898, 6241, 5698, 5242, 4854, 4519, 4228, 3971,
    3744, 3542, 3360, 3196, 3048, 2912, 2788, 2674, 2570, 2473, 2383, 2299, 2221, 2148, 2080, 2016,
    1956, 1899, 1846, 1795, 1747, 1702, 1659, 1618, 1579, 1542, 1506, 1472, 1440, 1409, 1379, 1351,
    1323, 1297, 1272, 1248, 1224, 1202, 1180, 1159, 1139, 1120, 1101, 1083, 1065, 1048, 1032, 1016
};

U_HOT uint32_t u_cs_p(u_cs s)
{
    uint32_t p = s >> 16;
    return p < 32 ? 32 : p > 65504 ? 65504 : p;
}

U_HOT void u_cs_upd(u_cs *sp, int bit, const unsigned limit)
{
    u_cs s = *sp;
    uint32_t q = s >> 10, n = s & 63;
    if (bit) q -= (uint32_t)(((uint64_t)q * u_cs_rate[n]) >> 16);
    else q += (uint32_t)(((uint64_t)((1u << 22) - q) * u_cs_rate[n]) >> 16);
    n += n < limit;
    *sp = q << 10 | n;
}

U_HOT int u_cbit(rc *c, const int enc, u_cs *s, int bit, const unsigned limit)
{
    bit = u_code(c, enc, u_cs_p(*s), bit);
    u_cs_upd(s, bit, limit);
    return bit;
}

static inline void u_cs_fill(u_cs *p, size_t n)
{
    if (!n) return;
    p[0] = U_CS0;
    for (size_t have = 1; have < n; have *= 2) /* doubling copies */
        memcpy(p + have, p, (have < n - have ? have : n - have) * sizeof *p);
}

/* ---- binarisations ---------------------------------------------------------- */

/* n (0..32) equiprobable bits, most significant first. */
U_HOT uint32_t u_direct(rc *c, const int enc, uint32_t v, int n)
{
    uint32_t r = 0;
#ifdef UOP_STATS
    if (enc) uop_cost[uop_field] += n;
#endif
    for (int i = n - 1; i >= 0; i--) {
        c->range >>= 1;
        if (!enc) {
            uint32_t b = c->code >= c->range;
            c->code -= c->range & (0 - b);
            r = r << 1 | b;
            rc_dec_norm(c);
        } else {
            c->low += c->range & (0 - (uint64_t)((v >> i) & 1));
            rc_enc_norm(c);
        }
    }
    return enc ? (uint32_t)(v & (uint32_t)(((uint64_t)1 << n) - 1)) : r;
}

U_HOT uint64_t u_direct64(rc *c, const int enc, uint64_t v)
{
    uint64_t hi = u_direct(c, enc, (uint32_t)(v >> 32), 32);
    return hi << 32 | u_direct(c, enc, (uint32_t)v, 32);
}

/* n-bit symbol through a tree of shift probabilities t[1 .. 2^n - 1]. */
U_HOT uint32_t u_tree(rc *c, const int enc, rc_prob *t, int n, uint32_t v)
{
    uint32_t m = 1;
    for (int i = n - 1; i >= 0; i--) m = m << 1 | (uint32_t)u_bit(c, enc, &t[m], (int)(v >> i) & 1);
    return m - (1u << n);
}

/* The same through count states. */
U_HOT uint32_t u_ctree(rc *c, const int enc, u_cs *t, int n, uint32_t v, const unsigned limit)
{
    uint32_t m = 1;
    for (int i = n - 1; i >= 0; i--) m = m << 1 | (uint32_t)u_cbit(c, enc, &t[m], (int)(v >> i) & 1, limit);
    return m - (1u << n);
}

/* Reverse tree (least significant bit first). */
U_HOT uint32_t u_rtree(rc *c, const int enc, rc_prob *t, int n, uint32_t v)
{
    uint32_t m = 1, r = 0;
    for (int i = 0; i < n; i++) {
        uint32_t b = (uint32_t)u_bit(c, enc, &t[m], (int)(v >> i) & 1);
        m = m << 1 | b;
        r |= b << i;
    }
    return r;
}

/* ---- integers: bit length in context, then the bits below the leading one --
 * The layout of rc_model.h's rc_sint (coder.md section 4): a length tree
 * `len` (RC_ULEN probabilities) chosen by the caller's context, a `bits`
 * block (RC_UBITS) holding the sign per length, the top RC_ITOP bits per
 * length and the RC_IALIGN low bits; the bits between are direct. */
U_HOT int u_len(rc *c, const int enc, rc_prob *len, rc_prob *bits, int L)
{
    int l = (int)u_tree(c, enc, len, 6, (uint32_t)(L < 63 ? L : 63));
    if (l == 63) l += u_bit(c, enc, &bits[1], L == 64);
    return l;
}

U_HOT uint64_t u_low(rc *c, const int enc, rc_prob *bits, int L, uint64_t v)
{
    int m = L - 1, k = m < RC_ITOP ? m : RC_ITOP, d = m - k;
    uint64_t r = 1;
    r = r << k | u_tree(c, enc, bits + (L << RC_ITOP), k, (uint32_t)(v >> d));
    int a = d < RC_IALIGN ? d : RC_IALIGN;
    d -= a;
    if (d > 32) {
        r = r << (d - 32) | u_direct(c, enc, (uint32_t)(v >> (a + 32)), d - 32);
        d = 32;
    }
    r = r << d | u_direct(c, enc, (uint32_t)(v >> a), d);
    return r << a | u_rtree(c, enc, bits + (65 << RC_ITOP), a, (uint32_t)v);
}

U_HOT uint64_t u_uint(rc *c, const int enc, rc_prob *len, rc_prob *bits, uint64_t v)
{
    int L = u_len(c, enc, len, bits, enc ? rc_bitlen64(v) : 0);
    return L <= 1 ? (uint64_t)L : u_low(c, enc, bits, L, v);
}

U_HOT int64_t u_sint(rc *c, const int enc, rc_prob *len, rc_prob *bits, int64_t v)
{
    uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int L = u_len(c, enc, len, bits, enc ? rc_bitlen64(a) : 0);
    if (L == 0) return 0;
    int neg = u_bit(c, enc, &bits[L << RC_ITOP], v < 0);
    a = L == 1 ? 1 : u_low(c, enc, bits, L, a);
    return neg ? -(int64_t)(a - 1) - 1 : (int64_t)a;
}

/* Cost estimate of u_sint in 1/256 bit (the encoder's choice of a base). */
static inline uint32_t u_sint_cost(const rc_prob *len, const rc_prob *bits, int64_t v)
{
    return rc_sint_cost(len, bits, v);
}

/* ---- logistic mixing (12-bit probabilities, logits * 256) ------------------ */

static inline int u_squash(int d)
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

typedef struct {
    int16_t s[4096]; /* stretch: the least x with squash(x) >= i */
} u_stretch_t;

static inline void u_stretch_init(u_stretch_t *t)
{
    int pi = 0;
    for (int x = -2047; x <= 2047; x++) {
        int v = u_squash(x);
        for (int i = pi; i <= v; i++) t->s[i] = (int16_t)x;
        pi = v + 1;
    }
    for (int i = pi; i < 4096; i++) t->s[i] = 2047;
}

/* P(1) in 12 bits of a shift probability / count state. */
U_HOT int u_p12(uint32_t p0_16)
{
    int p1 = 4096 - (int)(p0_16 >> 4);
    return p1 < 1 ? 1 : p1 > 4095 ? 4095 : p1;
}

#define U_MIXN 4
typedef struct {
    int32_t w[U_MIXN];
} u_mixw;

/* Code a bit with P(1) = squash(sum w_i st_i); then learn. */
U_HOT int u_mix_bit(rc *c, const int enc, u_mixw *w, const int *st, int n, int bit, int lr)
{
    int64_t dot = 0;
    for (int i = 0; i < n; i++) dot += (int64_t)w->w[i] * st[i];
    int p12 = u_squash((int)(dot >> 16));
    bit = u_code(c, enc, (uint32_t)(4096 - p12) << 4, bit);
    int err = ((bit << 12) - p12) * lr;
    for (int i = 0; i < n; i++) {
        int32_t v = w->w[i] + ((st[i] * err) >> 10);
        w->w[i] = v > (1 << 22) ? 1 << 22 : v < -(1 << 22) ? -(1 << 22) : v;
    }
    return bit;
}

#endif
