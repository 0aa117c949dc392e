/* know.c - the lookup codecs make in the fact store (know.h): the fact
 * under a key, as a view of the store sees it.  Nothing moves once
 * written, so readers need no lock. */
#include "know.h"

const uint8_t *trz_know_get(const trz_know *k, uint64_t key, size_t *len)
{
    if (!k || !k->s) return NULL;
    const struct trz_kstore *s = k->s;
    uint32_t at, i = trz_kstore_find(s, k->slot, k->mask, key, &at);
    if (i == UINT32_MAX || i >= k->n) return NULL;
    const trz_kfblock *b = s->f[i / TRZ_KNOW_FBLK];
    uint32_t off = b->off[i % TRZ_KNOW_FBLK];
    *len = b->len[i % TRZ_KNOW_FBLK];
    return s->v[off / TRZ_KNOW_VBLK] + off % TRZ_KNOW_VBLK;
}
