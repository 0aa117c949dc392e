/* cs_rc.h - the ChampSim codec's coding layer over the shared range coder
 * (../common/rc.h, whose byte format it keeps): decisions with a
 * compile-time direction, count-based probabilities for sparse contexts,
 * logistic mixing and the integer binarisation of addresses.
 *
 * Every modelled decision of the codec goes through ../common/rc_dir.h's
 * functions or the ones here, so the models are written once for both
 * directions: each takes `enc`, a compile-time constant at every call site
 * of the always-inlined model code.  No global state (but the tuning
 * statistics of CS_STATS builds). */
#ifndef TRZ_CS_RC_H
#define TRZ_CS_RC_H

#include "../common/rc_model.h"
#ifdef CS_STATS
#include <math.h>
extern double *cs_cost; /* bits spent, accumulated per field by the model */
#define RC_DIR_COST(enc, p, bit) \
    ((enc) && cs_cost ? (void)(*cs_cost += -log2((bit) ? 1 - (p) / 65536.0 : (p) / 65536.0)) : (void)0)
#define RC_DIR_COST_N(enc, n) ((enc) && cs_cost ? (void)(*cs_cost += (n)) : (void)0)
#endif
#include "../common/rc_dir.h"
#include "../common/rc_mix.h"

typedef rc cs_rc;
typedef rc_prob cs_p; /* P(bit = 0) * 65536, shift-updated */
#define CS_P_HALF ((cs_p)RC_P0)

static inline void cs_p_fill(cs_p *p, size_t n)
{
    if (!n) return;
    p[0] = CS_P_HALF;
    for (size_t have = 1; have < n; have *= 2) memcpy(p + have, p, (have < n - have ? have : n - have) * sizeof *p);
}

/* ---- count states (rc_dir.h's rc_cnt) for sparse contexts ------------------ */

/* The cost of v through an n-bit tree of count states, in 1/256 bit
 * (rc_model.h's cost scale). */
static inline uint32_t cs_atree_cost(const rc_cnt *t, int n, uint32_t v)
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

/* ---- logistic mixing ------------------------------------------------------ */

/* The stretch table (rc_mix.h), per coder set: no globals. */
typedef struct {
    int16_t str[4096];
} cs_mixtab;

static inline void cs_mixtab_init(cs_mixtab *t) { rc_stretch_init(t->str); }

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
TRZ_FORCE_INLINE int cs_mix_dot(const cs_mixw *w, const int *st, int n)
{
    int64_t dot = 0;
    for (int i = 0; i < n; i++) dot += (int64_t)w->w[i] * st[i];
    int d = (int)(dot >> 16);
    return rc_squash(d);
}

/* Weights stay within +-256 (16.16): no overflow however long a chunk. */
static inline int32_t cs_wclamp(int32_t w) { return w > (1 << 24) ? 1 << 24 : w < -(1 << 24) ? -(1 << 24) : w; }

/* Move the weights toward the inputs that were right: err = bit - p. */
TRZ_FORCE_INLINE void cs_mix_learn(cs_mixw *w, const int *st, int n, int p12, int bit, int lr)
{
    int err = ((bit << 12) - p12) * lr;
    for (int i = 0; i < n; i++) w->w[i] = cs_wclamp(w->w[i] + ((st[i] * err) >> 10));
}

/* Code a bit with P(1) = p12 / 4096. */
TRZ_FORCE_INLINE int cs_code_bit12(cs_rc *c, const int enc, int p12, int bit)
{
    uint32_t p0 = (uint32_t)(4096 - p12) << 4; /* P(0) * 65536 */
    return rcd_code(c, enc, p0, bit);
}

/* 12-bit P(1) of an adaptive state. */
static inline int cs_a_p12(rc_cnt s)
{
    int p0 = (int)(s >> 20); /* P(0) in 12 bits */
    int p1 = 4096 - p0;
    return p1 < 1 ? 1 : p1 > 4095 ? 4095 : p1;
}

/* ---- integers: bucket (bit length) + low bits --------------------------- */

/* Model of an unsigned 64-bit number: its bit length L (0..64) through a
 * 7-bit tree, then below the leading 1 the next CS_UMANT bits in the
 * context of L, the rest direct. */
#define CS_UMANT 2
#define CS_ILIMIT 30
typedef struct {
    rc_cnt len[128];
    rc_cnt mant[65][1 << CS_UMANT];
} cs_umodel;

static inline unsigned cs_bitlen(uint64_t v) { return v ? 64 - (unsigned)__builtin_clzll(v) : 0; }

/* The general form: bit length through lenT (128), the CS_UMANT bits below
 * the leading 1 through mantT[L] (65 x 2^CS_UMANT), the lowest 3 bits (when
 * at least 3 bits remain) through the 3-bit tree lowT (8; NULL: direct),
 * the bits between direct. */
static inline uint64_t cs_uint_x(cs_rc *c, const int enc, rc_cnt *lenT, rc_cnt (*mantT)[1 << CS_UMANT], rc_cnt *lowT,
                                 uint64_t v)
{
    unsigned L = rcd_ctree(c, enc, lenT, 7, enc ? cs_bitlen(v) : 0, CS_ILIMIT);
    if (L > 64) { c->overrun = 1u << 20; return 0; } /* not a length the encoder writes: damaged */
    if (L <= 1) return L;
    unsigned rest = L - 1;
    unsigned k = rest < CS_UMANT ? rest : CS_UMANT;
    uint64_t r = 1;
    uint32_t node = 1;
    for (unsigned i = 0; i < k; i++) {
        int b = enc ? (int)(v >> (rest - 1 - i) & 1) : 0;
        b = rcd_cbit(c, enc, &mantT[L][node], b, CS_ILIMIT);
        node = node << 1 | (uint32_t)b;
        r = r << 1 | (uint64_t)b;
    }
    unsigned d = rest - k;
    unsigned low = lowT && d >= 3 ? 3 : 0;
    d -= low;
    if (d > 32) {
        r = r << 32 | rcd_direct(c, enc, (uint32_t)(v >> (d - 32 + low)), 32);
        d -= 32;
    }
    if (d) r = r << d | rcd_direct(c, enc, (uint32_t)((v >> low) & ((1ull << d) - 1)), (int)d);
    if (low) r = r << 3 | rcd_ctree(c, enc, lowT, 3, (uint32_t)(v & 7), CS_ILIMIT);
    return r;
}

static inline uint64_t cs_uint(cs_rc *c, const int enc, cs_umodel *m, uint64_t v)
{
    return cs_uint_x(c, enc, m->len, m->mant, NULL, v);
}

/* Signed: one sign bit (for v != 0), then the magnitude. */
typedef struct {
    rc_cnt sign;
    cs_umodel u;
} cs_smodel;

static inline int64_t cs_sint(cs_rc *c, const int enc, cs_smodel *m, int64_t v)
{
    uint64_t mag = enc ? (v < 0 ? 0 - (uint64_t)v : (uint64_t)v) : 0;
    mag = cs_uint(c, enc, &m->u, mag);
    if (!mag) return 0;
    int neg = rcd_cbit(c, enc, &m->sign, v < 0, CS_ILIMIT);
    return neg ? (int64_t)(0 - mag) : (int64_t)mag;
}

#endif
