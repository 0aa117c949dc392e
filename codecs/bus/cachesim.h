/* cachesim.h - a small set-associative LRU cache simulator for the BYU
 * codec's time contexts.  Simulated traces (valgrind-style tools add a
 * penalty to the time of a request that misses in a modelled cache) and
 * real ones alike spend their time on cache misses, and "would this request
 * miss in cache X" predicts the time far better than "was this line seen
 * lately" once the right X is known.  The encoder tries a bank of cache
 * geometries on a prefix of the chunk and names the one that best explains
 * the times (cs_pick); encoder and decoder then simulate that one. */
#ifndef TRZ_CACHESIM_H
#define TRZ_CACHESIM_H

#include "../codec.h"
#include "addrmodel.h" /* am_mtf_hits, am_mtf_vec: the vector move-to-front steps */

#define CS_WAYS_MAX 16
#define CS_LINES_MAX (1u << 20) /* sets * ways per cache: bounds a hostile geometry to 8 MiB (split) */
#define CS_PAD 3 /* entries after the last set: cs_lru's vectors reach that far */

/* A geometry: 2^lline-byte lines, 2^lsets sets of `ways` lines, and split =
 * 1 for separate instruction and data caches (fetches use the first). */
typedef struct cs_geom {
    uint8_t lline, lsets, ways, split;
} cs_geom;

typedef struct cs_cache {
    cs_geom g;
    uint32_t *tag; /* [split + 1][sets][ways]: line + 1 (0 = empty), most recent first */
    uint32_t *itag; /* where the instruction side starts: tag + sets * ways when split, else tag */
    size_t n;      /* entries in tag */
    uint32_t smask; /* sets - 1 */
} cs_cache;

/* 1 when g is a geometry a decoder accepts. */
static inline int cs_valid(cs_geom g)
{
    return g.lline >= 2 && g.lline <= 12 && g.lsets <= 16 && g.ways >= 1 && g.ways <= CS_WAYS_MAX && g.split <= 1 &&
           ((size_t)g.ways << g.lsets) <= CS_LINES_MAX;
}

/* Returns 0, or -1 on no memory (g must be valid). */
static inline int cs_open(cs_cache *c, cs_geom g)
{
    c->g = g;
    c->n = ((size_t)g.ways << g.lsets) * (g.split + 1u) + CS_PAD;
    c->tag = trz_big_calloc(c->n * sizeof *c->tag);
    if (!c->tag) return -1;
    c->itag = c->tag + (g.split ? (size_t)g.ways << g.lsets : 0);
    c->smask = (1u << g.lsets) - 1;
    return 0;
}

static inline void cs_close(cs_cache *c)
{
    if (c->tag) trz_big_free(c->tag, c->n * sizeof *c->tag);
    c->tag = c->itag = NULL;
}

/* One set of w lines, most recent first: make v the most recent (evicting
 * the least recent when v is not there).  Returns v's position before, w
 * when it was not there.  With SSE2 the search and the shift are compares
 * and blends over (w + 3) / 4 vectors: the scalar loops end where the branch
 * predictor cannot guess (a set's hits land at any depth), which was most of
 * the simulator's time.  The vectors may reach 3 entries past the set; they
 * get their own values back (the tables have CS_PAD entries of slack). */
static inline unsigned cs_lru(uint32_t *t, unsigned w, uint32_t v)
{
    if (t[0] == v) return 0; /* the line used last: most accesses */
#if AM_MTF_SSE2
    __m128i x[CS_WAYS_MAX / 4], vv = _mm_set1_epi32((int)v);
    unsigned nv = (w + 3) / 4, hit = 0;
    for (unsigned k = 0; k < nv; k++) {
        x[k] = _mm_loadu_si128((const __m128i *)(t + 4 * k));
        hit |= am_mtf_hits(x[k], vv) << 4 * k;
    }
    hit &= (2u << (w - 1)) - 1;
    unsigned pos = hit ? trz_ctz32(hit) : w;
    __m128i lim = _mm_set1_epi32((int)(pos < w ? pos + 1 : w)); /* lanes below lim move down one */
    __m128i carry = _mm_cvtsi32_si128((int)v);
    for (unsigned k = 0; k < nv; k++) {
        _mm_storeu_si128((__m128i *)(t + 4 * k), am_mtf_vec(x[k], carry, lim, (int)(4 * k)));
        carry = _mm_srli_si128(x[k], 12);
    }
    return pos;
#else
    unsigned i = 0;
    while (i < w && t[i] != v) i++;
    unsigned pos = i;
    if (i == w) i--;
    for (; i > 0; i--) t[i] = t[i - 1];
    t[0] = v;
    return pos;
#endif
}

/* Look addr up (instr = 1: the instruction cache when split) and make its
 * line the most recent of its set.  Returns 1 on a hit. */
static inline int cs_access(cs_cache *c, int instr, uint32_t addr)
{
    uint32_t line = addr >> c->g.lline, w = c->g.ways;
    return cs_lru((instr ? c->itag : c->tag) + (size_t)(line & c->smask) * w, w, line + 1) < w;
}

/* ---- choosing a geometry (encoder) ---------------------------------------- */

#define CS_LL0 5    /* line sizes tried: 32 and 64 bytes */
#define CS_NLL 2
#define CS_LS0 6    /* sets tried: 2^6 .. 2^13 */
#define CS_NLS 8
#define CS_DEPTH 8  /* ways tried: 1, 2, 4, 8 (one LRU stack of depth 8 answers all four) */
#define CS_NW 4
#define CS_NB 9     /* time buckets: bit length of min(time, 255) */
#define CS_NSTK (CS_NLL * CS_NLS * 3) /* LRU stacks simulated */
#define CS_NCFG (CS_NLL * CS_NLS * 2 * CS_NW)

/* What the candidate geometries would have made of the times: per LRU
 * stack, counts of time bucket by (time context, depth of the hit), from
 * which the counts by (time context, miss) of each way count follow. */
typedef struct cs_pick_state {
    uint32_t *stk[CS_NLL][CS_NLS][3]; /* LRU stacks [sets][CS_DEPTH] (line + 1) of a unified cache, and
                                         of the data and instruction sides of a split one; carved from mem */
    uint32_t *mem;
    size_t memn;
    uint32_t (*hist)[CS_DEPTH + 1][CS_NB]; /* [CS_NSTK * nctx][depth (CS_DEPTH = not found)][bucket] */
    uint32_t (*base)[2][CS_NB];       /* the same for the caller's own miss guess */
    unsigned nctx;
} cs_pick_state;

static inline void cs_pick_free(cs_pick_state *p)
{
    if (p->mem) trz_big_free(p->mem, p->memn * sizeof *p->mem);
    free(p->hist);
    free(p->base);
}

/* nctx: the caller's time contexts (without the miss bit).  0 or -1. */
static inline int cs_pick_init(cs_pick_state *p, unsigned nctx)
{
    memset(p, 0, sizeof *p);
    p->nctx = nctx;
    p->memn = (size_t)CS_NLL * 3 * CS_DEPTH * (((size_t)1 << (CS_LS0 + CS_NLS)) - ((size_t)1 << CS_LS0));
    p->mem = trz_big_calloc(p->memn * sizeof *p->mem); /* 3 MiB, reused from the pool by the next chunk */
    p->hist = calloc((size_t)CS_NSTK * nctx, sizeof *p->hist);
    p->base = calloc(nctx, sizeof *p->base);
    if (p->mem) {
        uint32_t *q = p->mem;
        for (int a = 0; a < CS_NLL; a++)
            for (int b = 0; b < CS_NLS; b++)
                for (int s = 0; s < 3; s++) {
                    p->stk[a][b][s] = q;
                    q += (size_t)CS_DEPTH << (CS_LS0 + b);
                }
    }
    if (!p->mem || !p->hist || !p->base) {
        cs_pick_free(p);
        return -1;
    }
    return 0;
}

static inline unsigned cs_bucket(uint32_t t)
{
    unsigned b = 0;
    for (t = t < 255 ? t : 255; t; t >>= 1) b++;
    return b;
}

/* One request: instr = a fetch, ctx < nctx its time context, guess the
 * caller's own miss bit. */
static inline void cs_pick_add(cs_pick_state *p, int instr, uint32_t addr, uint32_t time, unsigned ctx, int guess)
{
    unsigned tb = cs_bucket(time);
    p->base[ctx][guess][tb]++;
    for (int a = 0; a < CS_NLL; a++) {
        uint32_t v = (addr >> (CS_LL0 + a)) + 1; /* s = 0: unified; 1: split (instr picks the side) */
        for (int b = 0; b < CS_NLS; b++)
            for (int s = 0; s < 2; s++) {
                unsigned k = s ? 1u + (instr != 0) : 0; /* stack: unified, split data, split instructions */
                uint32_t *t = p->stk[a][b][k] + (size_t)((v - 1) & ((1u << (CS_LS0 + b)) - 1)) * CS_DEPTH;
                unsigned pos = cs_lru(t, CS_DEPTH, v); /* a hit in a cache of more than pos ways */
                p->hist[((unsigned)(a * CS_NLS + b) * 3 + k) * p->nctx + ctx][pos][tb]++;
            }
    }
}

/* log2(n) for n >= 1, to about 0.015 (no libm): the exponent from the
 * bit length, the mantissa m in [1, 2) through a cubic fit of log2(m). */
static inline double cs_log2(uint32_t n)
{
    int e = 31;
    while (!(n >> e)) e--;
    double m = (double)n / (double)(1u << e) - 1.0;
    return e + m * (1.4425449 + m * (-0.7181452 + m * 0.2757950));
}

/* Bits an adaptive coder would need for the time buckets given these
 * counts (the empirical conditional entropy). */
static inline double cs_cost(uint32_t (*h)[2][CS_NB], unsigned nctx)
{
    double bits = 0;
    for (unsigned c = 0; c < nctx; c++)
        for (int m = 0; m < 2; m++) {
            uint32_t n = 0;
            for (int b = 0; b < CS_NB; b++) n += h[c][m][b];
            if (!n) continue;
            double ln = cs_log2(n);
            for (int b = 0; b < CS_NB; b++)
                if (h[c][m][b]) bits += h[c][m][b] * (ln - cs_log2(h[c][m][b]));
        }
    return bits;
}

/* The best geometry, or 0 when none beats the caller's guess by 10% and
 * minbits bits (then the caller keeps its guess: the estimate ignores what
 * more streams cost the back-end, and a small gain can be a loss). */
static inline int cs_pick_best(const cs_pick_state *p, cs_geom *g, double minbits)
{
    double best = cs_cost(p->base, p->nctx);
    uint32_t (*h)[2][CS_NB] = malloc((size_t)p->nctx * sizeof *h);
    if (!h) return 0; /* keep the caller's guess */
    double need = best * 0.9 < best - minbits ? best * 0.9 : best - minbits;
    int found = 0;
    for (unsigned cfg = 0; cfg < CS_NCFG; cfg++) {
        unsigned w = cfg % CS_NW, s = cfg / CS_NW % 2, ab = cfg / CS_NW / 2; /* ab = a * CS_NLS + b */
        memset(h, 0, (size_t)p->nctx * sizeof *h);
        for (unsigned side = 0; side < 1 + s; side++) { /* split: both stacks of the pair */
            uint32_t (*q)[CS_DEPTH + 1][CS_NB] = p->hist + (size_t)(ab * 3 + s + side) * p->nctx;
            for (unsigned c = 0; c < p->nctx; c++)
                for (unsigned d = 0; d <= CS_DEPTH; d++)
                    for (int k = 0; k < CS_NB; k++) h[c][d >= (1u << w)][k] += q[c][d][k];
        }
        double bits = cs_cost(h, p->nctx);
        if (bits < need && (!found || bits < best)) {
            g->lline = (uint8_t)(CS_LL0 + ab / CS_NLS);
            g->lsets = (uint8_t)(CS_LS0 + ab % CS_NLS);
            g->ways = (uint8_t)(1u << w);
            g->split = (uint8_t)s;
            best = bits;
            found = 1;
        }
    }
    free(h);
    return found;
}

#endif
