/* cm.h - the context-mixing layer of the modelled bus paths: adaptive bit
 * probabilities, a logistic mixer of several context predictions, and
 * binarisations (bit trees, mixed bit trees, Elias-gamma numbers), coded
 * on the shared range coder (../common/rc.h, specified in coder.md).
 * One cm_coder does both directions, so a model is written once and the
 * encoder and decoder cannot drift apart.  Streams of the coder used
 * before are decoded through cm_legacy.h, the same model above it.  No
 * global mutable state. */
#ifndef TRZ_CM_H
#define TRZ_CM_H

#include "../codec.h"
#include "../common/rc.h"
#include "../common/rc_mix.h"
#include "cm_legacy.h"

/* A probability: bits 31..10 = P(bit = 1) in 22 bits, bits 5..0 = the
 * number of updates seen (saturating at CM_LIMIT), bits 9..6 = a check of
 * the context in hashed tables (cm_hslot), else 0.  The step size is
 * 1 / (n + 1.5): fast learning first, then an average over ~CM_LIMIT bits. */
typedef uint32_t cm_p;
#define CM_P0 ((cm_p)1 << 31) /* P = 1/2, n = 0 */
#define CM_LIMIT 60
#define CM_NMASK 63u
#define CM_CHK 0x3c0u
#define CM_LR 6 /* mixer learning rate, about 0.006 */

typedef struct cm_coder {
    rc rc;             /* the coder (and, for legacy, the input) */
    int dec;           /* 1 = decoding */
    int legacy;        /* decoder: 1 = the stream is the legacy coder's (cm_legacy.h) */
    cm_legacy old;     /* legacy: its state */
    int mix;           /* 0 = cm_mix uses its first input alone (faster) */
    int dry;           /* encoder: 1 = mixed decisions only add their cost to dry_cost, nothing is coded or learnt */
    uint32_t dry_cost; /* bits * 256 */
    uint32_t dry_stop; /* dry: a model may stop once dry_cost reaches this */
    cm_p fresh;        /* dry: stands in for hashed slots another context holds */
    uint16_t rate[CM_LIMIT + 1]; /* 65536 / (n + 1.5), computed per coder (no globals) */
    int16_t str[4096]; /* stretch: 12-bit probability -> logit * 256 */
    uint16_t *apm;     /* refinement row (CM_APM_N entries) of the next mixed decision, or NULL */
#ifdef CM_STATS /* model tuning only: bits spent per field */
    int field;
    double cost[16];
#endif
} cm_coder;
#ifdef CM_STATS
#include <math.h>
#define CM_FIELD(c, f) ((c)->field = (f))
#else
#define CM_FIELD(c, f) ((void)0)
#endif

/* A 32-bit mixing function for hashed contexts. */
static inline uint32_t cm_mix32(uint32_t h)
{
    h *= 0x9E3779B1u;
    h ^= h >> 16;
    return h * 0x85EBCA6Bu;
}

static inline void cm_rates(cm_coder *c)
{
    for (int n = 0; n <= CM_LIMIT; n++) c->rate[n] = (uint16_t)(131072 / (2 * n + 3));
    rc_stretch_init(c->str);
}

static inline void cm_enc_init(cm_coder *c, trz_buf *out)
{
    memset(c, 0, sizeof *c);
    rc_enc_init(&c->rc, out);
    cm_rates(c);
}

/* Start decoding in[0..n): a stream of the shared coder, or of the legacy
 * one (legacy = 1). */
static inline void cm_dec_init(cm_coder *c, const uint8_t *in, size_t n, int legacy)
{
    memset(c, 0, sizeof *c);
    rc_dec_init(&c->rc, in, n);
    c->dec = 1;
    c->legacy = legacy;
    if (legacy) cm_legacy_init(&c->old, &c->rc);
    cm_rates(c);
}

/* Encoder: finish the stream (rc_enc_flush).  0, or -1 on no memory. */
static inline int cm_enc_flush(cm_coder *c) { return rc_enc_flush(&c->rc); }

/* Decoder: 1 when the stream was well formed and consumed exactly. */
static inline int cm_dec_ok(const cm_coder *c)
{
    return c->legacy ? cm_legacy_ok(&c->rc) : rc_dec_ok(&c->rc);
}

/* Decoder: 1 once it read further than a well-formed stream makes it (a
 * model's loop may stop there). */
static inline int cm_dec_bad(const cm_coder *c)
{
    return c->legacy ? cm_legacy_bad(&c->rc) : rc_dec_bad(&c->rc);
}

static inline void cm_update(cm_coder *c, cm_p *p, int bit)
{
    uint32_t n = *p & CM_NMASK;
    int32_t pr = (int32_t)(*p >> 10);
    int32_t err = (bit << 22) - pr;
    int32_t d = (int32_t)(((int64_t)err * c->rate[n]) >> 16);
    *p = (uint32_t)(pr + d) << 10 | (*p & CM_CHK) | (n < CM_LIMIT ? n + 1 : n);
}

/* The slot for hash h in a table of 2^hbits slots that many contexts share.
 * Bits 9..6 keep 4 more bits of the hash: a slot last used by another
 * context starts again from 1/2 instead of lending it wrong statistics. */
#define CM_HAT(hx, hbits, h) (&(hx)[(h) >> (32 - (hbits))]) /* the slot of hash h */
#define CM_HCHK(h) (((h) & 15) << 6)                        /* its check bits */

static inline cm_p *cm_hslot(cm_p *hx, int hbits, uint32_t h)
{
    cm_p *p = CM_HAT(hx, hbits, h);
    if ((*p & CM_CHK) != CM_HCHK(h)) *p = CM_P0 | CM_HCHK(h);
    return p;
}

/* cm_hslot for a model that may run dry: then a slot another context holds
 * is not taken over (that would change the model) but read as fresh. */
static inline cm_p *cm_hget(cm_coder *c, cm_p *hx, int hbits, uint32_t h)
{
    if (!c->dry) return cm_hslot(hx, hbits, h);
    cm_p *p = CM_HAT(hx, hbits, h);
    c->fresh = CM_P0;
    return (*p & CM_CHK) == CM_HCHK(h) ? p : &c->fresh;
}

/* Cost of coding bit with P(1) = p16 / 65536, in 1/256 bits (log2 with a
 * linear mantissa: within 0.09 bits, enough to rank choices). */
static inline uint32_t cm_cost(uint32_t p16, int bit)
{
    uint32_t q = bit ? p16 : 65536 - p16, e = 0; /* 1 .. 65535 */
    while (q >> (e + 1)) e++;
    return (16u << 8) - (e << 8 | ((q << (31 - e)) >> 23 & 255));
}

/* Ask for the slot of hash h ahead of cm_hslot: the table is far larger
 * than the caches, and a model that knows its next contexts early has
 * them fetched while it codes the current bit. */
static inline void cm_hpre(const cm_p *hx, int hbits, uint32_t h)
{
#if defined(__GNUC__)
    __builtin_prefetch(CM_HAT(hx, hbits, h), 1);
#else
    (void)hx, (void)hbits, (void)h;
#endif
}

/* Code one bit with P(1) = p16 / 65536, 0 < p16 < 65536: on rc.h as a
 * decision with P(0) = 65536 - p16 (rc.h's convention), itself in
 * 1..65535.  Encoding: returns bit; decoding: ignores bit and returns the
 * decoded one.  Only the decoder can meet a legacy stream: the encoder's
 * path tests the direction alone, as rc_bit_p does. */
static inline int cm_code(cm_coder *c, uint32_t p16, int bit)
{
    if (!c->dec) bit = rc_enc_code(&c->rc, 65536 - p16, bit != 0);
    else if (TRZ_LIKELY(!c->legacy)) bit = rc_dec_code(&c->rc, 65536 - p16);
    else bit = cm_legacy_code(&c->old, &c->rc, p16);
#ifdef CM_STATS
    c->cost[c->field] -= log2(bit ? p16 / 65536.0 : 1 - p16 / 65536.0);
#endif
    return bit;
}

/* Code one bit with probability *p and update it. */
static inline int cm_bit(cm_coder *c, cm_p *p, int bit)
{
    bit = cm_code(c, (*p >> 16) | 1, bit); /* P(1) never 0 */
    cm_update(c, p, bit);
    return bit;
}

/* Mixing: n (<= CM_MAXIN) slots predict one bit; their logits are summed
 * with weights w (16.16 fixed point, chosen by the caller's context), the
 * bit is coded with the squashed sum, then the slots and the weights learn
 * (weights by gradient descent on coding cost).  Mixing lets contexts be
 * combined without splitting the statistics over their product. */
#define CM_MAXIN 9
#define CM_APM_N 33   /* refinement: points on the stretched probability axis */
#define CM_APM_RATE 6 /* refinement step: 1/64 of the error */
#define CM_W0 (1 << 14) /* initial weight: 0.25 */
static inline int cm_mix(cm_coder *c, cm_p *const *ps, int n, int32_t *w, int bit)
{
    if (!c->mix) return cm_bit(c, ps[0], bit);
    int st[CM_MAXIN];
    int64_t dot = 0;
    for (int i = 0; i < n; i++) {
        st[i] = c->str[*ps[i] >> 20];
        dot += (int64_t)w[i] * st[i];
    }
    int pr = rc_squash((int)(dot >> 16));
    uint32_t p16 = (uint32_t)pr << 4;
    uint16_t *a = c->apm;
    int j = 0, fr = 0;
    if (a) { /* refine: what the mixer's output turned out to mean here */
        int sx = c->str[pr] + 2048; /* 1..4095: j <= 31 */
        j = sx >> 7;
        fr = sx & 127;
        int pa = (a[j] * (128 - fr) + a[j + 1] * fr) >> 7;
        int pf = ((pr << 4) + 3 * pa) >> 2;
        p16 = (uint32_t)(pf < 1 ? 1 : pf > 65535 ? 65535 : pf);
    }
    if (c->dry) {
        c->dry_cost += cm_cost(p16, bit);
        return bit;
    }
    bit = cm_code(c, p16, bit);
    if (a) {
        int tg = bit ? 65535 : 0;
        a[j] = (uint16_t)(a[j] + (((tg - a[j]) * (128 - fr)) >> (7 + CM_APM_RATE)));
        a[j + 1] = (uint16_t)(a[j + 1] + (((tg - a[j + 1]) * fr) >> (7 + CM_APM_RATE)));
    }
    int err = ((bit << 12) - pr) * CM_LR;
    for (int i = 0; i < n; i++) {
        w[i] += (st[i] * err + 0x2000) >> 14;
        cm_update(c, ps[i], bit);
    }
    return bit;
}

/* An nbits-bit symbol through n bit trees (one per context set, each
 * 2^nbits slots as in cm_tree) mixed with the weight sets w[node]. */
static inline uint32_t cm_mtree(cm_coder *c, cm_p *const *t, int n, int32_t (*w)[CM_MAXIN], int nbits, uint32_t v)
{
    cm_p *ps[CM_MAXIN];
    uint32_t node = 1;
    int k = c->mix ? n : 1; /* unmixed: t[1..] may be NULL */
    for (int i = nbits - 1; i >= 0; i--) {
        for (int j = 0; j < k; j++) ps[j] = &t[j][node];
        node = node << 1 | (uint32_t)cm_mix(c, ps, n, w[node], (int)(v >> i) & 1);
    }
    return node - (1u << nbits);
}

/* Copies the first unit bytes of dst over the rest of n units, doubling
 * the copied run each time: the models' tables are tens of MiB, set up per
 * chunk, and element loops cost that many compares in instrumented
 * (fuzzing) builds. */
static inline void cm_fill(void *dst, size_t unit, size_t n)
{
    unsigned char *d = dst;
    size_t have = unit, total = unit * n;
    while (have < total) {
        size_t k = have < total - have ? have : total - have;
        memcpy(d + have, d, k);
        have += k;
    }
}

/* Refinement rows (an adaptive probability map): row entry j starts at
 * squash((j - 16) * 128) in 16 bits, so a fresh row passes the mixer's
 * output through unchanged. */
static inline void cm_apm_init(uint16_t *a, size_t rows)
{
    if (!rows) return;
    for (int j = 0; j < CM_APM_N; j++) a[j] = (uint16_t)(rc_squash((j - 16) * 128) * 16);
    cm_fill(a, CM_APM_N * sizeof *a, rows);
}

/* cm_mtree with nh more inputs, one per seed: for seed j and tree node
 * `node`, the slot cm_hslot(hx, hbits, mix32(seed[j] + node)).  Sparse
 * contexts (a code address, say) then cost slots only for the nodes they
 * visit, not a whole tree each.  apm (or NULL): refinement rows, CM_APM_N
 * entries per node.  Unmixed, only t[0] is used. */
TRZ_FORCE_INLINE uint32_t cm_mtree_ha(cm_coder *c, cm_p *const *t, int n, cm_p *hx, int hbits, const uint32_t *seed,
                                     int nh, int32_t (*w)[CM_MAXIN], int nbits, uint32_t v, uint16_t *apm)
{
    if (!c->mix) return cm_mtree(c, t, n, w, nbits, v);
    cm_p *ps[CM_MAXIN];
    uint32_t node = 1;
    /* the hashed slots of the next two levels, before they are needed */
    for (uint32_t k = 1; k < 4 && k < 1u << nbits; k++)
        for (int j = 0; j < nh; j++) cm_hpre(hx, hbits, cm_mix32(seed[j] + k));
    for (int i = nbits - 1; i >= 0; i--) {
        c->apm = apm ? apm + node * CM_APM_N : NULL;
        for (int j = 0; j < n; j++) ps[j] = &t[j][node];
        for (int j = 0; j < nh; j++) ps[n + j] = cm_hget(c, hx, hbits, cm_mix32(seed[j] + node));
        if (i > 1)
            for (uint32_t k = 4 * node; k < 4 * node + 4; k++)
                for (int j = 0; j < nh; j++) cm_hpre(hx, hbits, cm_mix32(seed[j] + k));
        node = node << 1 | (uint32_t)cm_mix(c, ps, n + nh, w[node], (int)(v >> i) & 1);
    }
    c->apm = NULL;
    return node - (1u << nbits);
}

static inline uint32_t cm_mtree_h(cm_coder *c, cm_p *const *t, int n, cm_p *hx, int hbits, const uint32_t *seed,
                                  int nh, int32_t (*w)[CM_MAXIN], int nbits, uint32_t v)
{
    return cm_mtree_ha(c, t, n, hx, hbits, seed, nh, w, nbits, v, NULL);
}

static inline void cm_init_weights(int32_t (*w)[CM_MAXIN], size_t n, int32_t w0)
{
    if (!n) return;
    for (int j = 0; j < CM_MAXIN; j++) w[0][j] = w0;
    cm_fill(w, sizeof w[0], n);
}

/* A bit with probability 1/2 and no model (for nearly random bits). */
static inline int cm_raw_bit(cm_coder *c, int bit)
{
    cm_p p = CM_P0;
    return cm_bit(c, &p, bit);
}

static inline void cm_init_probs(cm_p *p, size_t n)
{
    if (!n) return;
    p[0] = CM_P0;
    cm_fill(p, sizeof *p, n);
}

/* An nbits-bit symbol, most significant bit first, through a binary tree of
 * 2^nbits probabilities (node 1 is the root; entry 0 unused). */
static inline uint32_t cm_tree(cm_coder *c, cm_p *t, int nbits, uint32_t v)
{
    uint32_t node = 1;
    for (int i = nbits - 1; i >= 0; i--) node = node << 1 | (uint32_t)cm_bit(c, &t[node], (int)(v >> i) & 1);
    return node - (1u << nbits);
}

/* Elias-gamma-like number: the bit length L (0..32) of v through a 6-bit
 * tree, then the bits below the leading one: the top CM_GTOP of them
 * through a tree per L, the rest with one probability per (L, position).
 * Table layout: cm_gamma_size entries. */
#define CM_GTOP 3
typedef struct cm_gamma {
    cm_p len[64];
    cm_p top[33][1 << CM_GTOP];
    cm_p low[33][32];
} cm_gamma;

static inline void cm_gamma_init(cm_gamma *g)
{
    cm_init_probs(&g->len[0], sizeof *g / sizeof(cm_p));
}

static inline uint32_t cm_gamma_code(cm_coder *c, cm_gamma *g, uint32_t v)
{
    int len = 0;
    if (!c->dec) while (len < 32 && (v >> len)) len++;
    len = (int)cm_tree(c, g->len, 6, (uint32_t)len);
    if (len > 32) len = 32; /* only on corrupt input: keep the loop bounded */
    if (len <= 1) return (uint32_t)len;
    int m = len - 1; /* bits below the leading one */
    int top = m < CM_GTOP ? m : CM_GTOP;
    uint32_t node = 1;
    for (int i = 0; i < top; i++)
        node = node << 1 | (uint32_t)cm_bit(c, &g->top[len][node], (int)(v >> (m - 1 - i)) & 1);
    uint32_t r = node; /* the leading one and the top bits */
    for (int i = m - top - 1; i >= 0; i--) r = r << 1 | (uint32_t)cm_bit(c, &g->low[len][i], (int)(v >> i) & 1);
    return r;
}

#endif
