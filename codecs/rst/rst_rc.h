/* rst_rc.h - the RST codec's coding layer over the shared range coder
 * (../common/rc.h, whose byte format it keeps): decisions whose direction is
 * a compile-time constant (`enc`, 1 in the encoder's instance of the model,
 * 0 in the decoder's), count-based probabilities for sparse contexts, a
 * two-input logistic mixer, bit trees and integers.  Every function codes
 * the value given when encoding and returns it; decoding ignores it and
 * returns the value read.  Spec: rst.md, "Coding primitives". */
#ifndef TRZ_RST_RC_H
#define TRZ_RST_RC_H

#include "../common/rc_model.h"

#if defined(__GNUC__)
#define R_HOT static inline __attribute__((always_inline))
#define R_LIKELY(x) __builtin_expect(!!(x), 1)
#define R_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define R_HOT static inline
#define R_LIKELY(x) (x)
#define R_UNLIKELY(x) (x)
#endif

/* Tuning builds (-DRST_STATS) add the ideal cost of every decision the
 * encoder codes to the field it belongs to (rst_stat_field). */
#ifdef RST_STATS
#include <math.h>
enum { ST_KIND, ST_CPU, ST_PC, ST_IW, ST_BT, ST_FL, ST_EAM_HIT, ST_EAM_DELTA, ST_EA_CTI, ST_EA_INV,
       ST_PVHAS, ST_PV, ST_OTHER, ST_TLB, ST_MM, ST_FAST, ST_N };
extern double rst_stat_cost[ST_N];
extern uint64_t rst_stat_count[ST_N];
extern int rst_stat_field;
extern double rst_pc_cost[65536];
extern uint64_t rst_pc_pc[65536], rst_pc_n[65536];
extern uint32_t rst_pc_iw[65536];
extern unsigned rst_pc_cur;
#define RSTAT(f) (rst_stat_field = (f))
#define RSTAT_COUNT(f) (rst_stat_count[f]++)
#else
#define RSTAT(f) ((void)0)
#define RSTAT_COUNT(f) ((void)0)
#endif

/* Code bit with P(0) = p / 65536 (1..65535), no update.  enc = 2 is a
 * third instance of a model: the value is known to both sides (predicted
 * by another model and confirmed), so nothing is coded, but the model
 * learns as if it had been. */
R_HOT int r_code(rc *c, const int enc, uint32_t p, int bit)
{
    if (enc == 2) return bit != 0;
#ifdef RST_STATS
    if (enc) rst_stat_cost[rst_stat_field] += -log2((bit ? 65536.0 - p : (double)p) / 65536.0);
    if (enc && (rst_stat_field == ST_EAM_HIT || rst_stat_field == ST_EAM_DELTA)) rst_pc_cost[rst_pc_cur] += -log2((bit ? 65536.0 - p : (double)p) / 65536.0);
#endif
    return enc ? rc_enc_code(c, p, bit != 0) : rc_dec_code(c, p);
}

/* A shift-updated probability (rc_prob), shift s. */
R_HOT int r_bit_s(rc *c, const int enc, rc_prob *pp, int bit, const int s)
{
    uint32_t p = *pp;
    bit = r_code(c, enc, p, bit);
    *pp = (rc_prob)rc_adapt(p, bit, s);
    return bit;
}
R_HOT int r_bit(rc *c, const int enc, rc_prob *pp, int bit) { return r_bit_s(c, enc, pp, bit, RC_SHIFT); }

/* A two-rate probability (rc_prob2): the mean of a fast and a slow half. */
R_HOT int r_bit2(rc *c, const int enc, rc_prob2 *pp, int bit)
{
    uint32_t v = *pp, f = v & 0xFFFF, s = v >> 16;
    bit = r_code(c, enc, (f + s) >> 1, bit);
    *pp = rc_adapt(s, bit, RC_SLOW) << 16 | rc_adapt(f, bit, RC_FAST);
    return bit;
}

/* n (0..32) equiprobable bits, most significant first. */
R_HOT uint32_t r_direct(rc *c, const int enc, uint32_t v, int n)
{
    if (enc == 2) return n == 32 ? v : v & ((1u << n) - 1);
#ifdef RST_STATS
    if (enc) rst_stat_cost[rst_stat_field] += n;
    if (enc && (rst_stat_field == ST_EAM_HIT || rst_stat_field == ST_EAM_DELTA)) rst_pc_cost[rst_pc_cur] += n;
#endif
    uint32_t r = 0;
    for (int i = n - 1; i >= 0; i--) {
        c->range >>= 1;
        if (enc) {
            c->low += c->range & (0 - (uint64_t)((v >> i) & 1));
            rc_enc_norm(c);
        } else {
            uint32_t b = c->code >= c->range;
            c->code -= c->range & (0 - b);
            r = r << 1 | b;
            rc_dec_norm(c);
        }
    }
    return enc ? (n == 32 ? v : v & ((1u << n) - 1)) : r;
}

R_HOT uint64_t r_direct64(rc *c, const int enc, uint64_t v)
{
    uint64_t hi = r_direct(c, enc, (uint32_t)(v >> 32), 32);
    return hi << 32 | r_direct(c, enc, (uint32_t)v, 32);
}

/* An n-bit symbol through a bit tree t[1 .. 2^n - 1]. */
R_HOT uint32_t r_tree(rc *c, const int enc, rc_prob *t, int n, uint32_t v)
{
    uint32_t m = 1;
    for (int i = n - 1; i >= 0; i--) m = m << 1 | (uint32_t)r_bit(c, enc, &t[m], (int)(v >> i) & 1);
    return m - (1u << n);
}

/* ---- several predictions as one decision --------------------------------- */

/* n (1..8) decisions whose likely outcome is 0 ("hit"), with probabilities
 * *pp[0..n), coded as one decision "all hit" with P = the product of the
 * P(0)s (common case: one decision instead of n), and when not all hit, the
 * first miss by the conditional probabilities: at i (all before hit),
 * P(hit) = p_i (1 - S_{i+1}) / (1 - S_i) with S_i the product of p_i..p_n-1,
 * the last one then a sure miss.  That is the same code as the n decisions
 * one by one, up to rounding.  Each probability adapts as if coded alone
 * (shift 4) up to and including the first miss; the caller codes what
 * follows a miss.  Encoding: fail = the index of the first miss, n for none.
 * Returns it.  Probabilities are 16-bit, products kept to 32 bits. */
R_HOT int r_multi(rc *c, const int enc, rc_prob *const *pp, int n, int fail)
{
    uint64_t suf[9];
    suf[n] = (uint64_t)1 << 32;
    for (int i = n - 1; i >= 0; i--) suf[i] = (suf[i + 1] * *pp[i]) >> 16;
    uint32_t pall = (uint32_t)(suf[0] >> 16);
    pall = pall < 1 ? 1 : pall > 65535 ? 65535 : pall;
    if (r_code(c, enc, pall, fail < n) == 0) {
        for (int i = 0; i < n; i++) *pp[i] = (rc_prob)rc_adapt(*pp[i], 0, RC_SHIFT);
        return n;
    }
    for (int i = 0; i < n - 1; i++) {
        uint64_t one = (uint64_t)1 << 32, den = one - suf[i];
        uint64_t num = ((uint64_t)*pp[i] * (one - suf[i + 1])) >> 16; /* 32-bit fraction */
        uint64_t q = den ? (num << 16) / den : 32768;
        uint32_t qh = q < 1 ? 1 : q > 65535 ? 65535 : (uint32_t)q;
        int miss = r_code(c, enc, qh, fail == i);
        *pp[i] = (rc_prob)rc_adapt(*pp[i], miss, RC_SHIFT);
        if (miss) return i;
    }
    *pp[n - 1] = (rc_prob)rc_adapt(*pp[n - 1], 1, RC_SHIFT);
    return n - 1;
}

/* How a decision that r_multi may have settled is coded by its own model:
 * Q_ANY itself, Q_HIT / Q_MISS already known (and its probability adapted). */
enum { Q_ANY, Q_HIT, Q_MISS };
#define Q_OF(fail, i) ((fail) > (i) ? Q_HIT : (fail) == (i) ? Q_MISS : Q_ANY)

/* ---- count-based states for sparse contexts ------------------------------ */

/* bits 31..10: P(0) * 2^22; bits 5..0: updates seen n.  The step is
 * 2 / (2n + 3) while n < limit: a context that sees a few events (a new
 * instruction's) learns from the first, a busy one averages over ~limit. */
typedef uint32_t r_cnt;
#define R_CNT0 ((r_cnt)1 << 31)

static const uint16_t r_cnt_rate[64] = { /* 65536 * 2 / (2n + 3) */
    43690, 26214, 18724, 14563, 11915, 10082, 8738, 7710, 6898, 6241, 5698, 5242, 4854, 4519, 4228, 3971,
    3744, 3542, 3360, 3196, 3048, 2912, 2788, 2674, 2570, 2473, 2383, 2299, 2221, 2148, 2080, 2016,
    1956, 1899, 1846, 1795, 1747, 1702, 1659, 1618, 1579, 1542, 1506, 1472, 1440, 1409, 1379, 1351,
    1323, 1297, 1272, 1248, 1224, 1202, 1180, 1159, 1139, 1120, 1101, 1083, 1065, 1048, 1032, 1016
};

R_HOT uint32_t r_cnt_p(r_cnt s) /* P(0) in 16 bits, 1..65535 */
{
    uint32_t p = s >> 16;
    return p ? p : 1;
}

R_HOT void r_cnt_update(r_cnt *sp, int bit, const unsigned limit)
{
    r_cnt s = *sp;
    uint32_t q = s >> 10, n = s & 63;
    if (bit) q -= (uint32_t)(((uint64_t)q * r_cnt_rate[n]) >> 16);
    else q += (uint32_t)(((uint64_t)((1u << 22) - q) * r_cnt_rate[n]) >> 16);
    n += n < limit;
    *sp = q << 10 | n;
}

R_HOT int r_cbit(rc *c, const int enc, r_cnt *sp, int bit, const unsigned limit)
{
    bit = r_code(c, enc, r_cnt_p(*sp), bit);
    r_cnt_update(sp, bit, limit);
    return bit;
}

R_HOT uint32_t r_ctree(rc *c, const int enc, r_cnt *t, int n, uint32_t v, const unsigned limit)
{
    uint32_t m = 1;
    for (int i = n - 1; i >= 0; i--) m = m << 1 | (uint32_t)r_cbit(c, enc, &t[m], (int)(v >> i) & 1, limit);
    return m - (1u << n);
}

static inline void r_fill16(uint16_t *p, size_t n, uint16_t v)
{
    for (size_t i = 0; i < n; i++) p[i] = v;
}
static inline void r_fill32(uint32_t *p, size_t n, uint32_t v)
{
    for (size_t i = 0; i < n; i++) p[i] = v;
}

/* ---- logistic mixing of two predictions --------------------------------- */

/* stretch(p) = ln(p / (1 - p)) and squash, its inverse: probabilities of a
 * 1 in 12 bits, logits * 256 clamped to +-2047 (lpaq1's functions). */
static inline int r_squash(int d)
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

static inline void r_stretch_init(int16_t str[4096])
{
    int pi = 0;
    for (int x = -2047; x <= 2047; x++) {
        int v = r_squash(x);
        for (int i = pi; i <= v; i++) str[i] = (int16_t)x;
        pi = v + 1;
    }
    for (int i = pi; i < 4096; i++) str[i] = 2047;
}

/* ---- integers ------------------------------------------------------------ */

/* As rc_model.h's rc_uint / rc_sint (coder.md section 4), the direction a
 * constant: the bit length through the 6-bit tree `len` the caller picks by
 * context, the 3 bits below the leading one through bits[L << 3], the
 * lowest 4 through the reverse tree at bits[65 << 3], the rest direct. */
R_HOT int r_ulen(rc *c, const int enc, rc_prob *len, rc_prob *bits, int L)
{
    int l = (int)r_tree(c, enc, len, 6, (uint32_t)(L < 63 ? L : 63));
    if (l == 63) l += r_bit(c, enc, &bits[1], L == 64);
    return l;
}

R_HOT uint32_t r_rtree(rc *c, const int enc, rc_prob *t, int n, uint32_t v)
{
    uint32_t m = 1, r = 0;
    for (int i = 0; i < n; i++) {
        uint32_t b = (uint32_t)r_bit(c, enc, &t[m], (int)(v >> i) & 1);
        m = m << 1 | b;
        r |= b << i;
    }
    return r;
}

R_HOT uint64_t r_ulow(rc *c, const int enc, rc_prob *bits, int L, uint64_t v)
{
    int m = L - 1, k = m < RC_ITOP ? m : RC_ITOP, d = m - k;
    uint64_t r = 1;
    r = r << k | r_tree(c, enc, bits + (L << RC_ITOP), k, (uint32_t)(v >> d));
    int a = d < RC_IALIGN ? d : RC_IALIGN;
    d -= a;
    if (d > 32) {
        r = r << (d - 32) | r_direct(c, enc, (uint32_t)(v >> (a + 32)), d - 32);
        d = 32;
    }
    r = r << d | r_direct(c, enc, (uint32_t)(v >> a), d);
    return r << a | r_rtree(c, enc, bits + (65 << RC_ITOP), a, (uint32_t)v);
}

R_HOT uint64_t r_uint(rc *c, const int enc, rc_prob *len, rc_prob *bits, uint64_t v)
{
    int L = r_ulen(c, enc, len, bits, enc ? rc_bitlen64(v) : 0);
    return L <= 1 ? (uint64_t)L : r_ulow(c, enc, bits, L, v);
}

R_HOT int64_t r_sint(rc *c, const int enc, rc_prob *len, rc_prob *bits, int64_t v)
{
    uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int L = r_ulen(c, enc, len, bits, enc ? rc_bitlen64(a) : 0);
    if (L == 0) return 0;
    int neg = r_bit(c, enc, &bits[L << RC_ITOP], v < 0);
    a = L == 1 ? 1 : r_ulow(c, enc, bits, L, a);
    return neg ? -(int64_t)(a - 1) - 1 : (int64_t)a;
}

/* An integer model: a length tree per context and one bits block. */
#define R_INT(nctx) struct { rc_prob len[nctx][RC_ULEN]; rc_prob bits[RC_UBITS]; }

#endif
