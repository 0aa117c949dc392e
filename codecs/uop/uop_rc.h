/* uop_rc.h - the uop context model's coding layer over the shared range
 * coder (../common/rc.h, whose byte format it keeps): the direction-constant
 * coding functions of ../common/rc_dir.h (coder.md, "The direction"), a
 * count state whose probability is kept away from 0 and 1 (sparse
 * contexts: a new instruction's fields) and a small logistic mixer of the
 * branch predictors.  Spec: uop.md, "Context model". */
#ifndef TRZ_UOP_RC_H
#define TRZ_UOP_RC_H

#include "../common/rc_model.h"
#include "../common/compiler.h"

#ifdef UOP_STATS
#include <math.h>
extern double uop_cost[32];
extern int uop_field;
#define RC_DIR_COST(enc, p, bit) \
    ((enc) ? (void)(uop_cost[uop_field] += -log2((bit) ? 1 - (p) / 65536.0 : (p) / 65536.0)) : (void)0)
#define RC_DIR_COST_N(enc, n) ((enc) ? (void)(uop_cost[uop_field] += (n)) : (void)0)
#endif
#include "../common/rc_dir.h"
#include "../common/rc_mix.h"

static inline void u_prefetch(const void *p)
{
#if defined(__GNUC__)
    __builtin_prefetch(p, 1);
#else
    (void)p;
#endif
}

/* ---- count states -------------------------------------------------------- */

/* rc_dir.h's count state, its P(0) clamped to 32..65504: coded alone a
 * state seen a few times never costs more than 11 bits. */
typedef rc_cnt u_cs;
#define U_PLO 32
#define U_PHI 65504

TRZ_FORCE_INLINE uint32_t u_cs_p(u_cs s) { return rc_cnt_pc(s, U_PLO, U_PHI); }

TRZ_FORCE_INLINE int u_cbit(rc *c, const int enc, u_cs *s, int bit, const unsigned limit)
{
    return rcd_cbit_c(c, enc, s, bit, limit, U_PLO, U_PHI);
}

TRZ_FORCE_INLINE uint32_t u_ctree(rc *c, const int enc, u_cs *t, int n, uint32_t v, const unsigned limit)
{
    return rcd_ctree_c(c, enc, t, n, v, limit, U_PLO, U_PHI);
}

/* ---- logistic mixing (12-bit probabilities, logits * 256) ------------------ */

#define U_MIXN 4
typedef struct {
    int32_t w[U_MIXN];
} u_mixw;

/* Code a bit with P(1) = squash(sum w_i st_i); then learn. */
TRZ_FORCE_INLINE int u_mix_bit(rc *c, const int enc, u_mixw *w, const int *st, int n, int bit, int lr)
{
    int64_t dot = 0;
    for (int i = 0; i < n; i++) dot += (int64_t)w->w[i] * st[i];
    int p12 = rc_squash((int)(dot >> 16));
    bit = rcd_code(c, enc, (uint32_t)(4096 - p12) << 4, bit);
    int err = ((bit << 12) - p12) * lr;
    for (int i = 0; i < n; i++) {
        int32_t v = w->w[i] + ((st[i] * err) >> 10);
        w->w[i] = v > (1 << 22) ? 1 << 22 : v < -(1 << 22) ? -(1 << 22) : v;
    }
    return bit;
}

#endif
