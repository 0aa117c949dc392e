/* cm.h - a small adaptive binary arithmetic coder for the modelled codec
 * paths: a carry-less 32-bit range coder (lpaq style) driven by adaptive
 * bit probabilities, plus binarisations (bit trees, Elias-gamma numbers).
 * One cm_coder does both directions, so a model is written once and the
 * encoder and decoder cannot drift apart.  No global mutable state. */
#ifndef TRZ_CM_H
#define TRZ_CM_H

#include "codec.h"

/* A probability: bits 31..10 = P(bit = 1) in 22 bits, bits 9..0 = the
 * number of updates seen (saturating at CM_LIMIT).  The step size is
 * 1 / (n + 1.5): fast learning first, then an average over ~CM_LIMIT bits. */
typedef uint32_t cm_p;
#define CM_P0 ((cm_p)1 << 31) /* P = 1/2, n = 0 */
#define CM_LIMIT 60

/* 65536 / (n + 1.5), n = 0..CM_LIMIT, computed once per coder (no globals). */
typedef struct cm_coder {
    uint32_t x1, x2, x;  /* interval [x1, x2]; x = decoder's code value */
    int dec;             /* 1 = decoding */
    trz_buf *out;        /* encoder output */
    const uint8_t *in, *end; /* decoder input */
    uint32_t overrun;    /* bytes the decoder wanted past the end */
    uint16_t rate[CM_LIMIT + 1];
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

static inline void cm_rates(cm_coder *c)
{
    for (int n = 0; n <= CM_LIMIT; n++) c->rate[n] = (uint16_t)(131072 / (2 * n + 3));
}

static inline void cm_enc_init(cm_coder *c, trz_buf *out)
{
    memset(c, 0, sizeof *c);
    c->x2 = 0xffffffffu;
    c->out = out;
    cm_rates(c);
}

static inline uint8_t cm_in(cm_coder *c)
{
    if (c->in < c->end) return *c->in++;
    c->overrun++;
    return 0;
}

static inline void cm_dec_init(cm_coder *c, const uint8_t *in, size_t n)
{
    memset(c, 0, sizeof *c);
    c->x2 = 0xffffffffu;
    c->dec = 1;
    c->in = in;
    c->end = in + n;
    cm_rates(c);
    for (int i = 0; i < 4; i++) c->x = c->x << 8 | cm_in(c);
}

/* Encoder: write the 4 bytes that pin a value inside the final interval.
 * The decoder reads exactly as many bytes as the encoder wrote. */
static inline void cm_enc_flush(cm_coder *c)
{
    trz_put_le32(c->out, 0); /* placeholder, overwritten big-endian below */
    if (!c->out->oom) trz_st_be32(c->out->p + c->out->n - 4, c->x1);
}

/* Decoder: 1 when the input was consumed exactly. */
static inline int cm_dec_ok(const cm_coder *c)
{
    return c->overrun == 0 && c->in == c->end;
}

static inline void cm_update(cm_coder *c, cm_p *p, int bit)
{
    uint32_t n = *p & 1023;
    int32_t pr = (int32_t)(*p >> 10);
    int32_t err = (bit << 22) - pr;
    int32_t d = (int32_t)(((int64_t)err * c->rate[n]) >> 16);
    *p = (uint32_t)(pr + d) << 10 | (n < CM_LIMIT ? n + 1 : n);
}

/* Code one bit with probability *p and update it.  Encoding: returns bit;
 * decoding: ignores bit and returns the decoded one. */
static inline int cm_bit(cm_coder *c, cm_p *p, int bit)
{
    uint32_t p16 = (*p >> 16) | 1; /* P(1) in (0, 65536), never 0 */
    uint32_t r = c->x2 - c->x1;
    uint32_t xmid = c->x1 + (r >> 16) * p16 + (((r & 0xffff) * p16) >> 16);
    if (c->dec) bit = c->x <= xmid;
#ifdef CM_STATS
    c->cost[c->field] -= log2(bit ? p16 / 65536.0 : 1 - p16 / 65536.0);
#endif
    if (bit) c->x2 = xmid;
    else c->x1 = xmid + 1;
    cm_update(c, p, bit);
    while (((c->x1 ^ c->x2) & 0xff000000u) == 0) {
        if (c->dec) c->x = c->x << 8 | cm_in(c);
        else trz_put_u8(c->out, (uint8_t)(c->x2 >> 24));
        c->x1 <<= 8;
        c->x2 = c->x2 << 8 | 255;
    }
    return bit;
}

/* A bit with probability 1/2 and no model (for nearly random bits). */
static inline int cm_raw_bit(cm_coder *c, int bit)
{
    cm_p p = CM_P0;
    return cm_bit(c, &p, bit);
}

static inline void cm_init_probs(cm_p *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = CM_P0;
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
