/* know.c - the knowledge store and the knowledge stream (FORMAT.md,
 * "Knowledge").  A store is append-only between restarts: facts go into
 * arrays in the order they are added and a fixed-size open-addressed hash
 * maps keys to them.  The one thread that adds writes a fact's key and value
 * before it publishes the hash slot (release), and readers load slots with
 * acquire, so a reader on another thread never sees a fact half-written;
 * a view's n hides the facts added after it was taken.  Nothing moves once
 * written, so readers need no lock. */
#include <stdlib.h>

#include "know.h"
#include "format.h"

/* The store's layout and its lookup are the codecs' (codecs/common/know.h);
 * here: creating, growing, adding to and clearing it.  Old tables are
 * freed when the store is cleared, when no view of it is left. */
#define FBLK TRZ_KNOW_FBLK
#define NFBLK TRZ_KNOW_NFBLK
#define VBLK TRZ_KNOW_VBLK
#define NVBLK TRZ_KNOW_NVBLK
#define MIN_SLOTS 4096

typedef trz_kfblock fblock;

static inline uint64_t key_at(const trz_kstore *s, uint32_t i) { return trz_kstore_key(s, i); }

trz_kstore *trz_kstore_create(void)
{
    trz_kstore *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->slot = calloc(MIN_SLOTS, sizeof *s->slot);
    if (!s->slot) { free(s); return NULL; }
    s->mask = MIN_SLOTS - 1;
    return s;
}

static void free_old(trz_kstore *s)
{
    for (size_t i = 0; i < s->nold; i++) free(s->old[i]);
    free(s->old);
    s->old = NULL;
    s->nold = 0;
}

void trz_kstore_free(trz_kstore *s)
{
    if (!s) return;
    for (size_t i = 0; i < NFBLK; i++) free(s->f[i]);
    for (size_t i = 0; i < NVBLK; i++) free(s->v[i]);
    free_old(s);
    free(s->slot);
    free(s);
}

void trz_kstore_clear(trz_kstore *s)
{
    free_old(s);
    if (s->mask + 1 > MIN_SLOTS) { /* back to a small table: a new group may know less */
        uint32_t *t = calloc(MIN_SLOTS, sizeof *t);
        if (t) {
            free(s->slot);
            s->slot = t;
            s->mask = MIN_SLOTS - 1;
        }
    }
    if (s->mask + 1 == MIN_SLOTS) memset(s->slot, 0, MIN_SLOTS * sizeof *s->slot);
    else memset(s->slot, 0, ((size_t)s->mask + 1) * sizeof *s->slot);
    s->n = 0;
    s->bytes = 0;
    s->vsum = 0;
}

uint32_t trz_kstore_count(const trz_kstore *s) { return s->n; }

trz_know trz_kstore_view(const trz_kstore *s, uint32_t n)
{
    trz_know k = { s, n, s->slot, s->mask };
    return k;
}

static uint32_t find(const trz_kstore *s, uint64_t key, uint32_t *at)
{
    return trz_kstore_find(s, s->slot, s->mask, key, at);
}

/* A table twice the size with every fact; the old one stays for the views
 * that have it.  -1 when out of memory. */
static int grow(trz_kstore *s)
{
    uint32_t nm = 2 * (s->mask + 1) - 1;
    uint32_t *t = calloc((size_t)nm + 1, sizeof *t);
    uint32_t **o = realloc(s->old, (s->nold + 1) * sizeof *o);
    if (o) s->old = o;
    if (!t || !o) { free(t); return -1; }
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t h = trz_kstore_slot(key_at(s, i), nm);
        while (t[h]) h = (h + 1) & nm;
        t[h] = i + 1;
    }
    s->old[s->nold++] = s->slot;
    __atomic_store_n(&s->slot, t, __ATOMIC_RELEASE);
    s->mask = nm;
    return 0;
}

/* Add a fact the store lacks (at: the empty slot find gave); 0, or -1 at a
 * limit or out of memory. */
static int insert(trz_kstore *s, uint64_t key, const uint8_t *val, size_t len, uint32_t at)
{
    if (s->n >= TRZ_KNOW_MAX_FACTS || s->vsum + len > TRZ_KNOW_MAX_BYTES) return -1;
    uint32_t off = s->bytes;
    if (off % VBLK + len > VBLK) off = (off / VBLK + 1) * VBLK; /* values never straddle blocks */
    if (!s->v[off / VBLK] && !(s->v[off / VBLK] = malloc(VBLK))) return -1;
    uint32_t i = s->n;
    if (!s->f[i / FBLK] && !(s->f[i / FBLK] = malloc(sizeof(fblock)))) return -1;
    if (2 * ((size_t)i + 1) > (size_t)s->mask + 1) { /* keep the load at most 1/2 */
        if (grow(s)) return -1;
        find(s, key, &at);
    }
    fblock *b = s->f[i / FBLK];
    b->key[i % FBLK] = key;
    b->off[i % FBLK] = off;
    b->len[i % FBLK] = (uint8_t)len;
    memcpy(s->v[off / VBLK] + off % VBLK, val, len);
    s->bytes = off + (uint32_t)len;
    s->vsum += (uint32_t)len;
    s->n = i + 1;
    __atomic_store_n(&s->slot[at], i + 1, __ATOMIC_RELEASE);
    return 0;
}

void trz_kstore_truncate(trz_kstore *s, uint32_t n)
{
    /* the facts after the n-th were added last (a growth rehashes in order),
     * into slots that were empty: no earlier key's probe runs through them,
     * so emptying them again leaves every other lookup as it was, even a
     * concurrent one */
    if (n >= s->n) return;
    uint32_t first = s->f[n / FBLK]->off[n % FBLK];
    for (uint32_t i = s->n; i-- > n;) {
        s->vsum -= s->f[i / FBLK]->len[i % FBLK];
        uint32_t h = trz_kstore_slot(key_at(s, i), s->mask);
        while (__atomic_load_n(&s->slot[h], __ATOMIC_RELAXED) != i + 1) h = (h + 1) & s->mask;
        __atomic_store_n(&s->slot[h], 0, __ATOMIC_RELEASE);
    }
    s->n = n;
    s->bytes = first;
}

/* ---- a chunk's new facts ---- */

void trz_kdelta_reset(trz_kdelta *d, trz_kstore *s)
{
    d->n = d->nbytes = 0;
    d->oom = d->full = 0;
    d->s = s;
}

void trz_kdelta_free(trz_kdelta *d)
{
    free(d->key);
    free(d->off);
    free(d->len);
    free(d->bytes);
    memset(d, 0, sizeof *d);
}

static int note(trz_kdelta *d, uint64_t key, const uint8_t *val, size_t len)
{
    if (d->n == d->cap) {
        size_t nc = d->cap ? 2 * d->cap : 1024;
        uint64_t *k = realloc(d->key, nc * sizeof *k);
        if (k) d->key = k;
        uint32_t *o = realloc(d->off, nc * sizeof *o);
        if (o) d->off = o;
        uint8_t *l = realloc(d->len, nc);
        if (l) d->len = l;
        if (!k || !o || !l) return -1;
        d->cap = nc;
    }
    if (d->nbytes + len > d->capbytes) {
        size_t nc = d->capbytes ? 2 * d->capbytes : 16384;
        while (nc < d->nbytes + len) nc *= 2;
        uint8_t *b = realloc(d->bytes, nc);
        if (!b) return -1;
        d->bytes = b;
        d->capbytes = nc;
    }
    d->key[d->n] = key;
    d->off[d->n] = (uint32_t)d->nbytes;
    d->len[d->n] = (uint8_t)len;
    memcpy(d->bytes + d->nbytes, val, len);
    d->nbytes += len;
    d->n++;
    return 0;
}

void trz_kdelta_add(void *ctx, uint64_t key, const void *val, size_t len)
{
    trz_kdelta *d = ctx;
    if (d->oom || d->full || len == 0 || len > TRZ_KNOW_MAX_VALUE) return;
    uint32_t at;
    if (find(d->s, key, &at) != UINT32_MAX) return;
    if (insert(d->s, key, val, len, at)) { d->full = 1; return; }
    if (note(d, key, val, len)) d->oom = 1;
}

static int by_key(const uint32_t *a, const uint32_t *b, const uint64_t *key)
{
    uint64_t x = key[*a], y = key[*b];
    return x < y ? -1 : x > y;
}

/* The indexes of d's facts by increasing key (a shell sort: deltas are
 * thousands of facts, sorted once each). */
static void sort_idx(uint32_t *ix, size_t n, const uint64_t *key)
{
    static const size_t gaps[] = { 8929, 3905, 1750, 701, 301, 132, 57, 23, 10, 4, 1 };
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        size_t h = gaps[g];
        for (size_t i = h; i < n; i++) {
            uint32_t t = ix[i];
            size_t j = i;
            while (j >= h && by_key(&ix[j - h], &t, key) > 0) {
                ix[j] = ix[j - h];
                j -= h;
            }
            ix[j] = t;
        }
    }
}

/* The container's layout: after its layout byte, the count, the keys (the
 * first, then each gap less one), the lengths, then the values by column:
 * byte j of every value that has one, j = 0, 1, ... (fields of the same
 * kind lie together for the back-end). */
static void write_generic(const trz_kdelta *d, const uint32_t *ix, trz_buf *out)
{
    size_t maxlen = 0;
    for (size_t i = 0; i < d->n; i++)
        if (d->len[i] > maxlen) maxlen = d->len[i];
    trz_put_u8(out, TRZ_KNOW_GENERIC);
    trz_put_uvarint(out, d->n);
    uint64_t prev = 0;
    for (size_t i = 0; i < d->n; i++) {
        uint64_t k = d->key[ix[i]];
        trz_put_uvarint(out, i ? k - prev - 1 : k);
        prev = k;
    }
    for (size_t i = 0; i < d->n; i++) trz_put_u8(out, d->len[ix[i]]);
    for (size_t j = 0; j < maxlen; j++)
        for (size_t i = 0; i < d->n; i++)
            if (d->len[ix[i]] > j) trz_put_u8(out, d->bytes[d->off[ix[i]] + j]);
}

/* know_decode's add while the encoder checks its stream: each fact must be
 * the next one written, byte for byte. */
typedef struct kcheck { const trz_kdelta *d; const uint32_t *ix; size_t i; int bad; } kcheck;

static void check_add(void *ctx, uint64_t key, const void *val, size_t len)
{
    kcheck *c = ctx;
    if (c->bad || c->i >= c->d->n) { c->bad = 1; return; }
    uint32_t j = c->ix[c->i++];
    if (c->d->key[j] != key || c->d->len[j] != len || memcmp(c->d->bytes + c->d->off[j], val, len) != 0) c->bad = 1;
}

int trz_kdelta_write(trz_kdelta *d, const trz_codec *c, trz_know before, int level, trz_buf *out)
{
    out->n = 0;
    if (d->oom) return TRZ_ERR_NOMEM;
    if (d->n == 0) return TRZ_OK;
    uint32_t *ix = malloc(d->n * sizeof *ix);
    trz_fact *f = c->know_encode ? malloc(d->n * sizeof *f) : NULL;
    if (!ix || (c->know_encode && !f)) { free(ix); free(f); return TRZ_ERR_NOMEM; }
    for (size_t i = 0; i < d->n; i++) ix[i] = (uint32_t)i;
    sort_idx(ix, d->n, d->key);
    int done = 0;
    if (f) {
        for (size_t i = 0; i < d->n; i++) f[i] = (trz_fact){ d->key[ix[i]], d->bytes + d->off[ix[i]], d->len[ix[i]] };
        trz_put_u8(out, TRZ_KNOW_CODEC);
        int rc = c->know_encode(&before, f, d->n, level, out);
        if (rc == TRZ_CODEC_NOMEM || out->oom) { free(ix); free(f); return TRZ_ERR_NOMEM; }
        /* the codec's layout must give back exactly these facts, or the
         * container's carries them */
        kcheck k = { d, ix, 0, 0 };
        if (rc == TRZ_CODEC_OK && c->know_decode(&before, out->p + 1, out->n - 1, check_add, &k) == TRZ_CODEC_OK &&
            !k.bad && k.i == d->n)
            done = 1;
        else
            out->n = 0;
    }
    if (!done) write_generic(d, ix, out);
    free(ix);
    free(f);
    return out->oom ? TRZ_ERR_NOMEM : TRZ_OK;
}

/* Insert a decoded fact: keys strictly increasing and new to the store,
 * within its limits; otherwise the stream is damage. */
typedef struct kins { trz_kstore *s; uint64_t prev; size_t n; int bad; } kins;

static void ins_add(void *ctx, uint64_t key, const void *val, size_t len)
{
    kins *c = ctx;
    uint32_t at;
    if (c->bad || (c->n && key <= c->prev) || len == 0 || len > TRZ_KNOW_MAX_VALUE ||
        find(c->s, key, &at) != UINT32_MAX || insert(c->s, key, val, len, at)) {
        c->bad = 1;
        return;
    }
    c->prev = key;
    c->n++;
}

static int apply_generic(trz_kstore *s, const uint8_t *p, size_t n)
{
    trz_rd r;
    trz_rd_init(&r, p, n);
    uint64_t f = trz_get_uvarint(&r);
    /* every fact takes at least a key byte, a length byte and a value byte */
    if (r.err || f == 0 || f > trz_rd_left(&r) / 3 || f > TRZ_KNOW_MAX_FACTS - s->n) return TRZ_ERR_CORRUPT;
    const uint8_t *keys = r.p;
    for (uint64_t i = 0; i < f; i++) (void)trz_get_uvarint(&r);
    if (r.err || trz_rd_left(&r) < f) return TRZ_ERR_CORRUPT;
    const uint8_t *lens = r.p;
    size_t total = 0, maxlen = 0;
    for (uint64_t i = 0; i < f; i++) {
        if (lens[i] == 0) return TRZ_ERR_CORRUPT;
        total += lens[i];
        if (lens[i] > maxlen) maxlen = lens[i];
    }
    if (trz_rd_left(&r) - f != total || total > TRZ_KNOW_MAX_BYTES) return TRZ_ERR_CORRUPT;
    /* the values back from columns: fact i's byte j follows byte j of every
     * earlier fact with more than j bytes */
    uint8_t *vals = malloc(total);
    size_t *offs = malloc(f * sizeof *offs);
    if (!vals || !offs) { free(vals); free(offs); return TRZ_ERR_NOMEM; }
    size_t off = 0;
    for (uint64_t i = 0; i < f; i++) { offs[i] = off; off += lens[i]; }
    const uint8_t *col = lens + f;
    for (size_t j = 0; j < maxlen; j++)
        for (uint64_t i = 0; i < f; i++)
            if (lens[i] > j) vals[offs[i] + j] = *col++;
    trz_rd kr;
    trz_rd_init(&kr, keys, (size_t)(lens - keys));
    kins c = { s, 0, 0, 0 };
    uint64_t prev = 0;
    for (uint64_t i = 0; i < f && !c.bad; i++) {
        uint64_t g = trz_get_uvarint(&kr);
        if (i && g >= UINT64_MAX - prev) { c.bad = 1; break; }
        uint64_t k = i ? prev + g + 1 : g;
        prev = k;
        ins_add(&c, k, vals + offs[i], lens[i]);
    }
    free(vals);
    free(offs);
    return c.bad ? TRZ_ERR_CORRUPT : TRZ_OK;
}

int trz_know_apply(trz_kstore *s, const trz_codec *c, const uint8_t *p, size_t n)
{
    if (n < 2) return TRZ_ERR_CORRUPT;
    if (p[0] == TRZ_KNOW_GENERIC) return apply_generic(s, p + 1, n - 1);
    if (p[0] != TRZ_KNOW_CODEC) return TRZ_ERR_UNSUPPORTED;
    if (!c || !c->know_decode) return TRZ_ERR_CORRUPT;
    trz_know before = trz_kstore_view(s, s->n);
    kins k = { s, 0, 0, 0 };
    int rc = c->know_decode(&before, p + 1, n - 1, ins_add, &k);
    if (rc == TRZ_CODEC_NOMEM) return TRZ_ERR_NOMEM;
    if (rc == TRZ_CODEC_UNSUPPORTED) return TRZ_ERR_UNSUPPORTED;
    return rc != TRZ_CODEC_OK || k.bad || k.n == 0 ? TRZ_ERR_CORRUPT : TRZ_OK;
}
