/* byu_int.h - what the BYU codec's files share (byu.md): the streams, the
 * state of a chunk and the model, the helpers every path's record loop
 * inlines, and the functions one file gives another. */
#ifndef TRZ_BYU_INT_H
#define TRZ_BYU_INT_H

#include "../codec.h"
#include "hot.h"
#include "addrmodel.h"
#include "bus_cm.h"
#include "bus_match.h"
#include "cachesim.h"
#include "lean.h"

/* The helpers below, defined here for the files that inline them: plain
 * static functions, so the compiler weighs inlining them as it would in
 * one file (an inline keyword would change what it inlines). */
#if defined(__GNUC__)
#define BYU_HELPER static __attribute__((unused))
#else
#define BYU_HELPER static inline
#endif

#define T_FRESH 2         /* time contexts split by "line not seen lately" */
#define T_ESC 255         /* time byte: escape, value follows in timeraw */
#define LINE_BITS 12      /* 64-byte lines seen recently (direct mapped) */
#define K_ESC 255         /* kind byte: escape, the three bytes follow */
#define K_HBITS 10        /* kind dictionary hash: 1024 slots, <= 255 used */
#define CS_SAMPLE 65536   /* records of a chunk's prefix that choose the cache */
#define CS_MIN 1024       /* smaller chunks keep line_fresh: too few times to tell caches apart */
#define T_NCTX (AM_NCLS * AM_NCLS * T_FRESH)
#define LN_TCTX (2 * T_FRESH) /* the lean model's time contexts: fetch or not, and fresh */
enum {
    S_PROC, S_RUNLEN, S_KIND, S_REQ, S_SIZE, S_ATTR,
    S_FCODE, S_DCODE, S_FDELTA, S_DDELTA, S_TRAW, S_FNEAR, S_DNEAR, S_CACHE, S_LAYOUT, S_CM, S_TIME0 = 16,
    S_COUNT = S_TIME0 + T_NCTX
};
/* S_LAYOUT: the stream path's layout byte (byu.c) */
#define L_ILV 1   /* layout flag: address codes interleaved with the kinds */
#define L_GROUP 2 /* layout flag: the streams g_stream (byu.c) grouped by processor */
#define L_LEAN 4  /* layout flag: the lean model (its codes always beside the kinds) */
#define L_FEED 8  /* layout flag: in a chain, the chunk's records go on into the match model (byu_cm.c) */

#define KC 8           /* kind ids as contexts: capped at KC - 1 */
#define TB_N 20        /* time buckets: min(q / 2, 19) of the last time */
#define TQ_ESC 127     /* time quotient: escape */
#define TQ_MAX (TQ_ESC * 8 - 1) /* times from here take the escape */
#define W0 22000       /* initial mixer weight (16.16) with three inputs */
#define TRW0 40000     /* the same with two inputs */

typedef struct byu_state {
    am_model am;
    am_proc *procs[256];
    ln_model ln;                      /* the lean model's tables (instead of am's) */
    ln_proc *lprocs[256];
    int lean;                         /* decoder: the chunk uses the lean model */
    uint32_t *lines;
    cs_cache cache;                   /* stream path: the simulated cache, when the chunk names one */
    int ilv;                          /* decoder: address codes interleaved with the kinds in S_KIND */
    struct byu_groups *grp;           /* decoder: streams grouped by processor, or NULL */
    uint32_t kinds[K_ESC];            /* dictionary: id -> kind */
    uint32_t kinfo[256];              /* id -> kind | its class << 24; UINT32_MAX past the known ids */
    uint16_t khash[1 << K_HBITS];     /* kind hash -> id + 1 */
    unsigned nkinds;
    unsigned prevcls;
    unsigned live;                    /* ST_*: what holds a chain's state (codec.h, "Chains") */
} byu_state;

/* byu_state.live: in a chain, the state that the chunk before left (the
 * processors, kinds, lines, prevcls and the cache), and which address
 * model's tables hold it; 0 outside a chain or before its first chunk. */
#define ST_LIVE 1
#define ST_AM 2
#define ST_LN 4

/* Levels (codec.h, "Levels"): the variant, and the knobs its encoder reads. */
typedef struct byu_level {
    uint8_t variant;    /* index into byu_variants */
    uint8_t cache_sets; /* the stream path picks the cache on 1/2^cache_sets of its sets (pick_cache) */
    uint8_t all_refs;   /* the mixed model tries every reference (bus_set_refs) */
} byu_level;
TRZ_LEVEL_ROW(byu_level);

typedef struct byu_cm byu_cm; /* the range and mix variants' model (below) */
typedef struct byu_fm byu_fm; /* range-fast's */

/* The codec's model (trz_model): the state every variant keeps, and each
 * arithmetic variant's tables, made at its first chunk. */
typedef struct byu_model {
    const byu_level *lv; /* the level's row (row 0 when decoding) */
    byu_state st;
    cm_coder coder;
    byu_cm *cm;
    byu_fm *fm;
    /* In a chain: cm's and fm's tables hold the chain's state (hx: cm's
     * hashed tables too); 0 otherwise. */
    uint8_t cm_live, hx_live, fm_live;
    /* The chain's match model (byu.md, *Chains*): its own, so that a fed
     * stream-path chunk needs none of cm's tables; mt_live as the flags
     * above (it goes with cm's state, and a feed starts it alone). */
    bus_match match;
    uint8_t mt_live;
    /* Encoder in a chain: the model its trials code with (made at the
     * first trial), so that they leave the chain's state alone. */
    struct byu_model *trial;
} byu_model;

BYU_HELPER unsigned req_class(uint8_t req)
{
    switch (req) {
    case 0x00: return AM_FETCH;
    case 0x01: return AM_READ;
    case 0x02: case 0x03: return AM_WRITE;
    default: return AM_OTHER;
    }
}

BYU_HELPER am_proc *st_proc(byu_state *s, uint8_t proc)
{
    if (!s->procs[proc]) {
        s->procs[proc] = calloc(1, sizeof(am_proc));
        if (s->procs[proc]) s->procs[proc]->step = 8;
    }
    return s->procs[proc];
}

/* Kinds (reqtype, size, attr) get ids in order of first appearance: the
 * ids stay stable, so repeated kind sequences stay repeats for the
 * back-end.  Returns the slot for kind k (holding 0 or its id + 1). */
BYU_HELPER uint16_t *kind_slot(byu_state *s, uint32_t k)
{
    uint32_t h = am_hash(k, K_HBITS);
    for (;;) {
        uint16_t *e = &s->khash[h];
        if (*e == 0 || s->kinds[*e - 1] == k) return e;
        h = (h + 1) & ((1u << K_HBITS) - 1); /* never full: <= 255 of 1024 used */
    }
}

BYU_HELPER void kind_add(byu_state *s, uint32_t k)
{
    uint16_t *e = kind_slot(s, k);
    if (*e == 0 && s->nkinds < K_ESC) {
        s->kinfo[s->nkinds] = k | req_class((uint8_t)k) << 24;
        s->kinds[s->nkinds++] = k;
        *e = (uint16_t)s->nkinds;
    }
}

BYU_HELPER uint32_t rec_tup(const uint8_t *r)
{
    return (uint32_t)r[4] | (uint32_t)r[5] << 8 | (uint32_t)r[6] << 16;
}

/* The encoder's choices for a chunk's stream path. */
typedef struct zs_opts {
    byu_model *m;
    int cache; /* 1: time contexts from the cache g */
    cs_geom g;
    int lean;  /* 1: the lean model */
    int feed;  /* 1: L_FEED (a chain's stream-path chunk at a level that writes the match model) */
} zs_opts;

/* byu.c: the chunk's state, the cache choice and the stream paths */
int st_open(byu_state *s, uint64_t nrec, int lean, int chain);
int st_cache(byu_state *s, int named, cs_geom g);
void st_close(byu_state *s, int keep);
void st_free(byu_state *s);
int pick_cache(const trz_enc_args *a, cs_geom *g, unsigned sets);
int byu_zs_encode_opt(const trz_enc_args *a, const void *opts);
int zs_encode(const trz_enc_args *a, trz_model *tm);
int lean_encode(const trz_enc_args *a, trz_model *tm);
int zs_decode_chunk(const trz_dec_args *a, trz_model *tm);

/* byu_cm.c: the arithmetic-coded paths */
int fm_encode(const trz_enc_args *a, trz_model *tm);
int mix_encode(const trz_enc_args *a, trz_model *tm);
int cm_decode_chunk(const trz_dec_args *a, trz_model *tm);
int fm_decode_chunk(const trz_dec_args *a, trz_model *tm);
void byu_arith_free(byu_model *m);

/* A record's hash, by which the match model finds it again (the feed in
 * byu.c, the mixed model in byu_cm.c). */
static inline uint32_t byu_mt_hash(const uint8_t *r)
{
    return cm_mix32(trz_ld_le32(r) * 0x9E3779B1u ^ trz_ld_le32(r + 4) * 0x85EBCA6Bu ^ trz_ld_le32(r + 8));
}

#endif
