/* bus_match.h - the match model of the bus codecs' mixing variant in a
 * chain (byu.md and pbus.md, "Chains"): the chain's last BUS_MT_N records,
 * found again by a hash of the last two; once its guess has been right
 * BUS_MT_MIN records in a row, one bit says "the record is the guessed
 * one".  One copy for both codecs, records of rs bytes (12 BYU, 6 PEL);
 * each codec hashes its own record (its fields' byte order). */
#ifndef TRZ_BUS_MATCH_H
#define TRZ_BUS_MATCH_H

#include "bus_cm.h"

#define BUS_MT_BITS 20
#define BUS_MT_N (1u << BUS_MT_BITS)
#define BUS_MT_NONE UINT32_MAX
#define BUS_MT_MIN 16 /* records a guess must have got right in a row before it is coded */

typedef struct bus_match {
    uint8_t *hist;  /* record i of the chain at [(i % BUS_MT_N) * rs] */
    uint32_t *tab;  /* hash of two records -> the index after them, 0 = none */
    uint32_t n;     /* records in the history */
    uint32_t ptr;   /* the index of the record predicted next, or BUS_MT_NONE */
    uint32_t len;   /* records predicted right in a row */
    uint32_t last;  /* hash of the last record */
    cm_p hit[8];    /* "the predicted record" by the bit length of len / BUS_MT_MIN, at most 7 */
} bus_match;

/* As a fresh model: nothing seen (the tables, once made, are kept). */
static inline void bus_match_reset(bus_match *t)
{
    t->n = t->len = t->last = 0;
    t->ptr = BUS_MT_NONE;
    cm_init_probs(t->hit, 8);
    if (t->tab) memset(t->tab, 0, (size_t)BUS_MT_N * sizeof *t->tab);
}

/* The history and the table, made at the chain's first chunk (the table
 * zeroed, as bus_match_reset leaves it); -1 if out of memory. */
static inline int bus_match_alloc(bus_match *t, size_t rs)
{
    if (!t->hist && !(t->hist = trz_big_malloc((size_t)BUS_MT_N * rs))) return -1;
    if (!t->tab && !(t->tab = trz_big_calloc((size_t)BUS_MT_N * sizeof *t->tab))) return -1;
    return 0;
}

static inline void bus_match_free(bus_match *t, size_t rs)
{
    if (t->hist) trz_big_free(t->hist, (size_t)BUS_MT_N * rs);
    if (t->tab) trz_big_free(t->tab, (size_t)BUS_MT_N * sizeof *t->tab);
    t->hist = NULL;
    t->tab = NULL;
}

/* The guess, once it has been right BUS_MT_MIN records in a row: a bit
 * "the record is the one predicted" (r then receives it).  1 when it was. */
static inline int bus_match_guess(bus_match *t, cm_coder *c, uint8_t *r, size_t rs)
{
    if (t->ptr == BUS_MT_NONE || t->len < BUS_MT_MIN) return 0;
    const uint8_t *g = t->hist + (size_t)(t->ptr & (BUS_MT_N - 1)) * rs;
    unsigned b = 0;
    for (uint32_t l = t->len / BUS_MT_MIN; l > 1 && b < 7; l >>= 1) b++;
    if (!cm_bit(c, &t->hit[b], !c->dec && memcmp(r, g, rs) == 0)) return 0;
    memcpy(r, g, rs);
    return 1;
}

/* The table's index for the record of hash hr after the one of hash last. */
static inline uint32_t bus_match_key(uint32_t hr, uint32_t last)
{
    return cm_mix32(hr ^ last * 0x2545F491u) >> (32 - BUS_MT_BITS);
}

/* The guess for the record after record n - 1 (the n-th, from 0), given
 * whether the last guess was right (hit) and the key of the last two. */
static inline void bus_match_follow(uint32_t *ptr, uint32_t *len, int hit, const uint32_t *tab, uint32_t key, uint32_t n)
{
    if (hit) {
        ++*ptr;
        ++*len;
    } else {
        *len = 0;
        *ptr = tab[key] ? tab[key] : BUS_MT_NONE;
    }
    if (*ptr != BUS_MT_NONE && n - *ptr >= BUS_MT_N) *ptr = BUS_MT_NONE; /* out of the window */
}

/* After each record r (hr: its hash): r into the history, and the guess
 * for the next record: the one after the guess goes on while it is right
 * (a guess not yet coded is checked against r), else the one after the
 * last time the last two records came. */
static inline void bus_match_next(bus_match *t, const uint8_t *r, size_t rs, uint32_t hr)
{
    int hit = t->ptr != BUS_MT_NONE && memcmp(r, t->hist + (size_t)(t->ptr & (BUS_MT_N - 1)) * rs, rs) == 0;
    memcpy(t->hist + (size_t)(t->n & (BUS_MT_N - 1)) * rs, r, rs);
    t->n++;
    uint32_t h = bus_match_key(hr, t->last);
    t->last = hr;
    bus_match_follow(&t->ptr, &t->len, hit, t->tab, h, t->n);
    t->tab[h] = t->n;
}

/* A stream-path chunk's records fed to the model (byu.md, *Chains*,
 * *Feed*): each into the history, and into the table at every
 * BUS_MT_FEED-th index only (a repeat is then found again within that many
 * records, for a quarter of the table's cache misses); no guess is made,
 * and the next coded record starts from none. */
#define BUS_MT_FEED 4
static inline void bus_match_feed(bus_match *t, const uint8_t *r, uint64_t nrec, size_t rs,
                                  uint32_t (*hash)(const uint8_t *))
{
    t->ptr = BUS_MT_NONE;
    t->len = 0;
    for (uint64_t i = 0; i < nrec; i++, r += rs) {
        uint32_t hr = hash(r);
        memcpy(t->hist + (size_t)(t->n & (BUS_MT_N - 1)) * rs, r, rs);
        t->n++;
        if (!(t->n & (BUS_MT_FEED - 1))) t->tab[bus_match_key(hr, t->last)] = t->n;
        t->last = hr;
    }
}

/* Encoder: how many of the n records at r (rs bytes each) the match model
 * as it stands would predict if they came next, without changing it: its
 * guess followed while right (into r's own records), and after a miss the
 * table as it stands: r's records are not added to it, so a repeat inside r
 * is found only by a guess that runs into it;
 * hash is the codec's record hash (as given to bus_match_next).  0 before
 * the model is made. */
static inline uint64_t bus_match_foresee(const bus_match *t, const uint8_t *r, uint64_t n, size_t rs,
                                         uint32_t (*hash)(const uint8_t *))
{
    if (!t->hist || !t->tab) return 0;
    const uint8_t *r0 = r; /* record t->n + j, once the guess reaches r's own: r0 + j * rs */
    uint32_t ptr = t->ptr, len = t->len, last = t->last, vn = t->n;
    uint64_t pred = 0;
    for (uint64_t i = 0; i < n; i++, r += rs) {
        const uint8_t *g = ptr == BUS_MT_NONE ? NULL
                           : ptr < t->n   ? t->hist + (size_t)(ptr & (BUS_MT_N - 1)) * rs
                                          : r0 + (size_t)(ptr - t->n) * rs;
        int hit = g && memcmp(r, g, rs) == 0;
        pred += hit && len >= BUS_MT_MIN;
        uint32_t hr = hash(r);
        uint32_t h = bus_match_key(hr, last);
        last = hr;
        bus_match_follow(&ptr, &len, hit, t->tab, h, ++vn);
    }
    return pred;
}

#endif
