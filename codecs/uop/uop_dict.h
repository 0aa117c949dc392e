/* uop_dict.h - the dictionary of mnemonic strings both uop variants keep:
 * strings in one arena, numbered in order of first use (the decoder adds
 * them as it reads them; the encoder looks them up, by open hashing). */
#ifndef TRZ_UOP_DICT_H
#define TRZ_UOP_DICT_H
#include <stdint.h>
#include <string.h>

#define DICT_MAX 4096
#define DICT_HASH (DICT_MAX * 2)
#define ARENA_MAX (DICT_MAX * 256)

typedef struct {
    uint8_t *arena;
    uint32_t off[DICT_MAX];
    uint8_t len[DICT_MAX];
    uint16_t hash[DICT_HASH]; /* index + 1 */
    uint32_t n, used;
} uop_dict;

static inline uint32_t hash_str(const uint8_t *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 16777619u;
    return h ^ (h >> 15);
}

/* Append a string (both sides).  Returns its index or -1. */
static inline int dict_add(uop_dict *d, const uint8_t *s, size_t n)
{
    if (d->n >= DICT_MAX || n > 255 || d->used + n > ARENA_MAX) return -1;
    memcpy(d->arena + d->used, s, n);
    d->off[d->n] = d->used;
    d->len[d->n] = (uint8_t)n;
    d->used += (uint32_t)n;
    return (int)d->n++;
}

/* Encoder lookup: index, or -1 if absent (*slot = where to insert). */
static inline int dict_find(const uop_dict *d, const uint8_t *s, size_t n, uint32_t *slot)
{
    uint32_t h = hash_str(s, n) & (DICT_HASH - 1);
    for (;;) {
        unsigned v = d->hash[h];
        if (!v) { *slot = h; return -1; }
        v--;
        if (d->len[v] == n && memcmp(d->arena + d->off[v], s, n) == 0) return (int)v;
        h = (h + 1) & (DICT_HASH - 1);
    }
}

/* Append a string and index it for dict_find (a string it holds already
 * stays found at its first index).  Returns its index or -1. */
static inline int dict_put(uop_dict *d, const uint8_t *s, size_t n)
{
    uint32_t slot = 0;
    int old = dict_find(d, s, n, &slot);
    int r = dict_add(d, s, n);
    if (r >= 0 && old < 0) d->hash[slot] = (uint16_t)(r + 1);
    return r;
}
#endif
