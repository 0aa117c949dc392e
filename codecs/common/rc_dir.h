/* rc_dir.h - rc.h / rc_model.h's coding functions with the direction a
 * compile-time constant: each takes `enc` (1 in the encoder's instance of
 * an always-inlined model, 0 in the decoder's), so one model function
 * serves both loops with the direction folded in.  Encoding codes the
 * value given and returns it; decoding ignores it and returns the value
 * read.  enc = 2 is a third instance: the value is known to both sides, so
 * nothing is coded, but the probabilities adapt as if it had been.
 * enc = 3 is a fourth: nothing is coded and nothing adapts (a replay that
 * only moves a model's own state along, as fast as it can).
 * The bits are those of the runtime-direction functions of rc.h and
 * rc_model.h.  Also: count-based states for sparse contexts.  Spec:
 * coder.md, section 8.
 *
 * Tuning builds may define RC_DIR_COST(enc, p, bit) and RC_DIR_COST_N(enc,
 * n) before including this header, to add up the cost of each decision
 * and of n direct bits. */
#ifndef TRZ_RC_DIR_H
#define TRZ_RC_DIR_H

#include "rc_model.h"

#ifndef RC_DIR_COST
#define RC_DIR_COST(enc, p, bit) ((void)0)
#endif
#ifndef RC_DIR_COST_N
#define RC_DIR_COST_N(enc, n) ((void)0)
#endif

/* ---- decisions and binarisations ----------------------------------------- */

/* Code bit with P(0) = p / 65536 (1..65535), no update. */
TRZ_FORCE_INLINE int rcd_code(rc *c, const int enc, uint32_t p, int bit)
{
    if (enc >= 2) return bit != 0;
    RC_DIR_COST(enc, p, bit);
    return enc ? rc_enc_code(c, p, bit != 0) : rc_dec_code(c, p);
}

/* A shift-updated probability (rc_prob), shift s. */
TRZ_FORCE_INLINE int rcd_bit_s(rc *c, const int enc, rc_prob *pp, int bit, const int s)
{
    if (enc == 3) return bit != 0;
    uint32_t p = *pp;
    bit = rcd_code(c, enc, p, bit);
    *pp = (rc_prob)rc_adapt(p, bit, s);
    return bit;
}
TRZ_FORCE_INLINE int rcd_bit(rc *c, const int enc, rc_prob *pp, int bit) { return rcd_bit_s(c, enc, pp, bit, RC_SHIFT); }

/* A two-rate probability (rc_prob2). */
TRZ_FORCE_INLINE int rcd_bit2(rc *c, const int enc, rc_prob2 *pp, int bit)
{
    if (enc == 3) return bit != 0;
    uint32_t v = *pp, f = v & 0xFFFF, s = v >> 16;
    bit = rcd_code(c, enc, (f + s) >> 1, bit);
    *pp = rc_adapt(s, bit, RC_SLOW) << 16 | rc_adapt(f, bit, RC_FAST);
    return bit;
}

/* n (0..32) equiprobable bits, most significant first. */
TRZ_FORCE_INLINE uint32_t rcd_direct(rc *c, const int enc, uint32_t v, int n)
{
    if (enc >= 2) return (uint32_t)(v & (uint32_t)(((uint64_t)1 << n) - 1));
    RC_DIR_COST_N(enc, n);
    return rc_direct_k(c, enc, v, n);
}

TRZ_FORCE_INLINE uint64_t rcd_direct64(rc *c, const int enc, uint64_t v)
{
    uint64_t hi = rcd_direct(c, enc, (uint32_t)(v >> 32), 32);
    return hi << 32 | rcd_direct(c, enc, (uint32_t)v, 32);
}

/* An n-bit symbol through a bit tree t[1 .. 2^n - 1], shift s. */
TRZ_FORCE_INLINE uint32_t rcd_tree_s(rc *c, const int enc, rc_prob *t, int n, uint32_t v, const int s)
{
    if (enc == 3) return (uint32_t)(v & (uint32_t)(((uint64_t)1 << n) - 1));
    uint32_t m = 1;
    for (int i = n - 1; i >= 0; i--) m = m << 1 | (uint32_t)rcd_bit_s(c, enc, &t[m], (int)(v >> i) & 1, s);
    return m - (1u << n);
}
TRZ_FORCE_INLINE uint32_t rcd_tree(rc *c, const int enc, rc_prob *t, int n, uint32_t v)
{
    return rcd_tree_s(c, enc, t, n, v, RC_SHIFT);
}

/* Reverse tree: least significant bit first. */
TRZ_FORCE_INLINE uint32_t rcd_rtree(rc *c, const int enc, rc_prob *t, int n, uint32_t v)
{
    uint32_t m = 1, r = 0;
    for (int i = 0; i < n; i++) {
        uint32_t b = (uint32_t)rcd_bit(c, enc, &t[m], (int)(v >> i) & 1);
        m = m << 1 | b;
        r |= b << i;
    }
    return r;
}

/* ---- integers: rc_model.h's rc_ulen / rc_ulow / rc_uint / rc_sint -------- */

TRZ_FORCE_INLINE int rcd_ulen(rc *c, const int enc, rc_prob *len, rc_prob *bits, int L)
{
    int l = (int)rcd_tree(c, enc, len, 6, (uint32_t)(L < 63 ? L : 63));
    if (l == 63) l += rcd_bit(c, enc, &bits[1], L == 64);
    return l;
}

TRZ_FORCE_INLINE uint64_t rcd_ulow(rc *c, const int enc, rc_prob *bits, int L, uint64_t v)
{
    int m = L - 1, k = m < RC_ITOP ? m : RC_ITOP, d = m - k;
    uint64_t r = 1;
    r = r << k | rcd_tree(c, enc, bits + (L << RC_ITOP), k, (uint32_t)(v >> d));
    int a = d < RC_IALIGN ? d : RC_IALIGN;
    d -= a;
    if (d > 32) {
        r = r << (d - 32) | rcd_direct(c, enc, (uint32_t)(v >> (a + 32)), d - 32);
        d = 32;
    }
    r = r << d | rcd_direct(c, enc, (uint32_t)(v >> a), d);
    return r << a | rcd_rtree(c, enc, bits + (65 << RC_ITOP), a, (uint32_t)v);
}

TRZ_FORCE_INLINE uint64_t rcd_uint(rc *c, const int enc, rc_prob *len, rc_prob *bits, uint64_t v)
{
    if (enc == 3) return v;
    int L = rcd_ulen(c, enc, len, bits, enc ? rc_bitlen64(v) : 0);
    return L <= 1 ? (uint64_t)L : rcd_ulow(c, enc, bits, L, v);
}

TRZ_FORCE_INLINE int64_t rcd_sint(rc *c, const int enc, rc_prob *len, rc_prob *bits, int64_t v)
{
    if (enc == 3) return v;
    uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int L = rcd_ulen(c, enc, len, bits, enc ? rc_bitlen64(a) : 0);
    if (L == 0) return 0;
    int neg = rcd_bit(c, enc, &bits[L << RC_ITOP], v < 0);
    a = L == 1 ? 1 : rcd_ulow(c, enc, bits, L, a);
    return neg ? -(int64_t)(a - 1) - 1 : (int64_t)a; /* -2^63 without overflow */
}

/* An integer model: a length tree per context and one bits block. */
#define RC_INT(nctx) struct { rc_prob len[nctx][RC_ULEN]; rc_prob bits[RC_UBITS]; }

/* ---- count-based states for sparse contexts ------------------------------ */

/* Bits 31..10: P(0) * 2^22; bits 5..0: the updates seen n.  The step is
 * 2 / (2n + 3) while n < limit: a context that sees a few events (a new
 * instruction's) learns from the first, a busy one averages over ~limit. */
typedef uint32_t rc_cnt;
#define RC_CNT0 ((rc_cnt)1 << 31)

static const uint16_t rc_cnt_rate[64] = { /* 65536 * 2 / (2n + 3) */
    43690, 26214, 18724, 14563, 11915, 10082, 8738, 7710, 6898, 6241, 5698, 5242, 4854, 4519, 4228, 3971,
    3744, 3542, 3360, 3196, 3048, 2912, 2788, 2674, 2570, 2473, 2383, 2299, 2221, 2148, 2080, 2016,
    1956, 1899, 1846, 1795, 1747, 1702, 1659, 1618, 1579, 1542, 1506, 1472, 1440, 1409, 1379, 1351,
    1323, 1297, 1272, 1248, 1224, 1202, 1180, 1159, 1139, 1120, 1101, 1083, 1065, 1048, 1032, 1016
};

/* P(0) in 16 bits, clamped to lo..hi (a model may keep it further from 0
 * and 1 than 1..65535). */
TRZ_FORCE_INLINE uint32_t rc_cnt_pc(rc_cnt s, const uint32_t lo, const uint32_t hi)
{
    uint32_t p = s >> 16;
    return p < lo ? lo : p > hi ? hi : p;
}
TRZ_FORCE_INLINE uint32_t rc_cnt_p(rc_cnt s) { return rc_cnt_pc(s, 1, 65535); }

TRZ_FORCE_INLINE void rc_cnt_update(rc_cnt *sp, int bit, const unsigned limit)
{
    rc_cnt s = *sp;
    uint32_t q = s >> 10, n = s & 63;
    if (bit) q -= (uint32_t)(((uint64_t)q * rc_cnt_rate[n]) >> 16);
    else q += (uint32_t)(((uint64_t)((1u << 22) - q) * rc_cnt_rate[n]) >> 16);
    n += n < limit;
    *sp = q << 10 | n;
}

/* A decision and an n-bit tree t[1 .. 2^n - 1] of count states, P(0)
 * clamped to lo..hi; rcd_cbit / rcd_ctree: 1..65535. */
TRZ_FORCE_INLINE int rcd_cbit_c(rc *c, const int enc, rc_cnt *sp, int bit, const unsigned limit, const uint32_t lo,
                      const uint32_t hi)
{
    if (enc == 3) return bit != 0;
    bit = rcd_code(c, enc, rc_cnt_pc(*sp, lo, hi), bit);
    rc_cnt_update(sp, bit, limit);
    return bit;
}

TRZ_FORCE_INLINE uint32_t rcd_ctree_c(rc *c, const int enc, rc_cnt *t, int n, uint32_t v, const unsigned limit,
                            const uint32_t lo, const uint32_t hi)
{
    if (enc == 3) return (uint32_t)(v & (uint32_t)(((uint64_t)1 << n) - 1));
    uint32_t m = 1;
    for (int i = n - 1; i >= 0; i--)
        m = m << 1 | (uint32_t)rcd_cbit_c(c, enc, &t[m], (int)(v >> i) & 1, limit, lo, hi);
    return m - (1u << n);
}

TRZ_FORCE_INLINE int rcd_cbit(rc *c, const int enc, rc_cnt *sp, int bit, const unsigned limit)
{
    return rcd_cbit_c(c, enc, sp, bit, limit, 1, 65535);
}
TRZ_FORCE_INLINE uint32_t rcd_ctree(rc *c, const int enc, rc_cnt *t, int n, uint32_t v, const unsigned limit)
{
    return rcd_ctree_c(c, enc, t, n, v, limit, 1, 65535);
}

/* Every state fresh, by doubling copies (few calls for megabytes). */
static inline void rc_cnt_fill(rc_cnt *p, size_t n)
{
    if (!n) return;
    p[0] = RC_CNT0;
    for (size_t have = 1; have < n; have *= 2) memcpy(p + have, p, (have < n - have ? have : n - have) * sizeof *p);
}

#endif
