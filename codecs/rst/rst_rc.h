/* rst_rc.h - the RST codec's coding layer over the shared range coder
 * (../common/rc.h, whose byte format it keeps): the direction-constant
 * coding functions of ../common/rc_dir.h, decisions coded together
 * (r_multi) and the tuning statistics.  Spec: rst.md, "Coding
 * primitives". */
#ifndef TRZ_RST_RC_H
#define TRZ_RST_RC_H

#include "../common/rc_model.h"

/* Tuning builds (-DRST_STATS) add the ideal cost of every decision the
 * encoder codes to the field it belongs to (rst_stat_field). */
#ifdef RST_STATS
#include <math.h>
enum { ST_KIND, ST_CPU, ST_PC, ST_IW, ST_BT, ST_FL, ST_EAM_HIT, ST_EAM_DELTA, ST_EA_CTI, ST_EA_INV,
       ST_PVHAS, ST_PV, ST_OTHER, ST_TLB, ST_MM, ST_FAST, ST_KGAP, ST_KIW, ST_N };
extern double rst_stat_cost[ST_N];
extern uint64_t rst_stat_count[ST_N];
extern int rst_stat_field;
extern double rst_pc_cost[65536];
extern uint64_t rst_pc_pc[65536], rst_pc_n[65536];
extern uint32_t rst_pc_iw[65536];
extern unsigned rst_pc_cur;
extern uint32_t rst_pc_k[65536][8];
#define RSTAT(f) (rst_stat_field = (f))
#define RSTAT_COUNT(f) (rst_stat_count[f]++)
static inline void rst_stat_add(double bits)
{
    rst_stat_cost[rst_stat_field] += bits;
    if (rst_stat_field == ST_EAM_HIT || rst_stat_field == ST_EAM_DELTA) rst_pc_cost[rst_pc_cur] += bits;
}
#define RC_DIR_COST(enc, p, bit) \
    ((enc) ? rst_stat_add(-log2(((bit) ? 65536.0 - (p) : (double)(p)) / 65536.0)) : (void)0)
#define RC_DIR_COST_N(enc, n) ((enc) ? rst_stat_add(n) : (void)0)
#else
#define RSTAT(f) ((void)0)
#define RSTAT_COUNT(f) ((void)0)
#endif

#include "../common/rc_dir.h"
#include "../common/rc_mix.h"

/* ---- sure decisions (model variant 2) ------------------------------------ */

/* A shift-4 probability stops 15/65536 short of certainty, so a decision
 * that never misses still costs 1/3000 bit, some 7 of them a record: a
 * trace of one loop pays that floor and little else.  In variant 2 a
 * decision whose P(0) is at least R_SAT_MIN (for a multi: every member's) is
 * coded instead with its site's estimate of how often such sure decisions
 * miss, 32-bit and adapted at 1/1024 (rst.md, "Sure decisions"). */
typedef uint32_t r_sat; /* P(miss) * 2^32 */
#define R_SAT_MIN 65504u
#define R_SAT0 (1u << 20) /* 2^-12: where a shift-4 probability stops */
#define R_SAT_SHIFT 10

TRZ_FORCE_INLINE uint32_t r_sat_p(r_sat q)
{
    uint32_t m = (q >> 16) + 1;
    return 65536 - (m > 65535 ? 65535 : m);
}
TRZ_FORCE_INLINE void r_sat_update(r_sat *q, int miss)
{
    if (miss) *q += ~*q >> R_SAT_SHIFT;
    else *q -= *q >> R_SAT_SHIFT;
}

/* bit(p), or with sat (may be NULL) when p is sure; p adapts either way. */
TRZ_FORCE_INLINE int r_bit_sat(rc *c, const int enc, rc_prob *pp, r_sat *sat, int bit)
{
    uint32_t p = *pp;
    if (sat && p >= R_SAT_MIN) {
        bit = rcd_code(c, enc, r_sat_p(*sat), bit);
        r_sat_update(sat, bit);
    } else {
        bit = rcd_code(c, enc, p, bit);
    }
    *pp = (rc_prob)rc_adapt(p, bit, RC_SHIFT);
    return bit;
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
 * Returns it.  Probabilities are 16-bit, products kept to 32 bits.  sat
 * (may be NULL): the site's state for the first decision when every
 * member is sure. */
TRZ_FORCE_INLINE int r_multi_s(rc *c, const int enc, rc_prob *const *pp, int n, int fail, r_sat *sat)
{
    uint64_t suf[9];
    suf[n] = (uint64_t)1 << 32;
    for (int i = n - 1; i >= 0; i--) suf[i] = (suf[i + 1] * *pp[i]) >> 16;
    uint32_t pall = (uint32_t)(suf[0] >> 16);
    pall = pall < 1 ? 1 : pall > 65535 ? 65535 : pall;
    if (sat) /* every member sure: the site's own estimate */
        for (int i = 0; i < n && sat; i++)
            if (*pp[i] < R_SAT_MIN) sat = NULL;
    if (sat) pall = r_sat_p(*sat);
    int any = rcd_code(c, enc, pall, fail < n);
    if (sat) r_sat_update(sat, any);
    if (any == 0) {
        for (int i = 0; i < n; i++) *pp[i] = (rc_prob)rc_adapt(*pp[i], 0, RC_SHIFT);
        return n;
    }
    for (int i = 0; i < n - 1; i++) {
        uint64_t one = (uint64_t)1 << 32, den = one - suf[i];
        uint64_t num = ((uint64_t)*pp[i] * (one - suf[i + 1])) >> 16; /* 32-bit fraction */
        uint64_t q = den ? (num << 16) / den : 32768;
        uint32_t qh = q < 1 ? 1 : q > 65535 ? 65535 : (uint32_t)q;
        int miss = rcd_code(c, enc, qh, fail == i);
        *pp[i] = (rc_prob)rc_adapt(*pp[i], miss, RC_SHIFT);
        if (miss) return i;
    }
    *pp[n - 1] = (rc_prob)rc_adapt(*pp[n - 1], 1, RC_SHIFT);
    return n - 1;
}
TRZ_FORCE_INLINE int r_multi(rc *c, const int enc, rc_prob *const *pp, int n, int fail)
{
    return r_multi_s(c, enc, pp, n, fail, NULL);
}

/* How a decision that r_multi may have settled is coded by its own model:
 * Q_ANY itself, Q_HIT / Q_MISS already known (and its probability adapted). */
enum { Q_ANY, Q_HIT, Q_MISS };
#define Q_OF(fail, i) ((fail) > (i) ? Q_HIT : (fail) == (i) ? Q_MISS : Q_ANY)

#endif
