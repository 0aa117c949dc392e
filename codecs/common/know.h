/* know.h - the fact store as codecs read it: its layout and the lookup
 * (trz_know_get, declared in codec.h with the view it reads, trz_know).
 * The container owns the store (src/format/know.c: creating it, adding
 * facts, clearing and growing it, and the knowledge stream that states a
 * chunk's facts) and builds on this header; nothing here knows of it.
 *
 * Facts live in blocks that never move, so that a reader's pointers stay
 * good while the one writer adds; a fixed-size open-addressed hash maps
 * keys to them.  The writer writes a fact's key and value before it
 * publishes the hash slot (release), and readers load slots with acquire,
 * so a reader on another thread never sees a fact half-written; a view's n
 * hides the facts added after it was taken. */
#ifndef TRZ_CODECS_KNOW_H
#define TRZ_CODECS_KNOW_H

#include "../codec.h"

/* Limits a store enforces (with codec.h's TRZ_KNOW_MAX_FACTS); a knowledge
 * stream that would pass one is damage (a writer stops adding facts at
 * them, so it never writes one). */
#define TRZ_KNOW_MAX_BYTES (16u << 20) /* the values of one store */
#define TRZ_KNOW_MAX_VALUE 255

#define TRZ_KNOW_FBLK 4096  /* facts per block */
#define TRZ_KNOW_NFBLK (TRZ_KNOW_MAX_FACTS / TRZ_KNOW_FBLK)
#define TRZ_KNOW_VBLK 65536 /* value bytes per block */
#define TRZ_KNOW_NVBLK (TRZ_KNOW_MAX_BYTES / TRZ_KNOW_VBLK + 4) /* room for the ends of blocks left unused */

typedef struct trz_kfblock {
    uint64_t key[TRZ_KNOW_FBLK];
    uint32_t off[TRZ_KNOW_FBLK];
    uint8_t len[TRZ_KNOW_FBLK];
} trz_kfblock;

/* The hash grows by rehashing into a new table, and a view keeps the table
 * it was taken with (which holds every fact it sees). */
struct trz_kstore {
    trz_kfblock *f[TRZ_KNOW_NFBLK];
    uint8_t *v[TRZ_KNOW_NVBLK];
    uint32_t *slot;  /* the current table: fact index + 1; 0 = empty */
    uint32_t mask;   /* its slots - 1 */
    uint32_t **old;  /* tables retired by growth, freed by a clear */
    size_t nold;
    uint32_t n;      /* facts */
    uint32_t bytes;  /* where the next value goes: block * TRZ_KNOW_VBLK + position */
    uint32_t vsum;   /* the values' lengths, summed: the limit counts these */
};

/* The first slot a key's probe looks at, in a table of mask + 1 slots. */
static inline uint32_t trz_kstore_slot(uint64_t key, uint32_t mask)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static inline uint64_t trz_kstore_key(const struct trz_kstore *s, uint32_t i)
{
    return s->f[i / TRZ_KNOW_FBLK]->key[i % TRZ_KNOW_FBLK];
}

/* The fact index of key in table t (mask m), or UINT32_MAX; *at: its slot,
 * or the empty one that ends the probe. */
static inline uint32_t trz_kstore_find(const struct trz_kstore *s, const uint32_t *t, uint32_t m, uint64_t key,
                                       uint32_t *at)
{
    uint32_t h = trz_kstore_slot(key, m);
    for (;;) {
        uint32_t v = __atomic_load_n(&t[h], __ATOMIC_ACQUIRE);
        if (!v) { *at = h; return UINT32_MAX; }
        if (trz_kstore_key(s, v - 1) == key) { *at = h; return v - 1; }
        h = (h + 1) & m;
    }
}

#endif
