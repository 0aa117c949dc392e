/* uop_learn.c - the uop codec's learn (trz_codec.learn; uop.md,
 * "Knowledge"): the facts a chunk teaches, found by a scan of its lines;
 * the knowledge stream that carries them is in uop_cm.c. */
#include "uop_cm.h"
#include "uop_cm_int.h"

/* ---- learn: the facts a chunk teaches (uop.md, "Knowledge") ------------------
 * A scan: each line's (pc, u) from its first two tokens; the first line of
 * each (pc, u) in the chunk is parsed with the chunk's layout when the group
 * has no entry fact for it (it states one, and its strings when new) or
 * only an entry fact (it states its address, when not 0): an address is
 * stated only for code that runs in more than one chunk, where it may pay. */

/* The (pc, u) keys of a chunk, each with a pending address: the first one
 * of a key the group knows without its address, until a second line checks
 * it. */
typedef struct {
    uint64_t key, addr;
} kslot;

typedef struct {
    kslot *t;
    size_t cap, n;
} kset;

/* A key's first slot: neighbouring instructions in neighbouring slots, so
 * that the lines of a stretch of code probe a few cache lines. */
static inline size_t kset_slot(uint64_t key, size_t cap)
{
    return (size_t)((key >> 6) ^ (key >> 26) * 0x9E3779B1u) & (cap - 1);
}

/* The slot of key (non-zero), *first set when it was not in the set before;
 * NULL when out of memory. */
static kslot *kset_add(kset *s, uint64_t key, int *first)
{
    if (2 * (s->n + 1) > s->cap) {
        size_t nc = s->cap ? 2 * s->cap : 8192;
        kslot *t = calloc(nc, sizeof *t);
        if (!t) return NULL;
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->t[i].key) continue;
            size_t h = kset_slot(s->t[i].key, nc);
            while (t[h].key) h = (h + 1) & (nc - 1);
            t[h] = s->t[i];
        }
        free(s->t);
        s->t = t;
        s->cap = nc;
    }
    size_t h = kset_slot(key, s->cap);
    while (s->t[h].key) {
        if (s->t[h].key == key) {
            *first = 0;
            return &s->t[h];
        }
        h = (h + 1) & (s->cap - 1);
    }
    s->t[h].key = key;
    s->n++;
    *first = 1;
    return &s->t[h];
}

static inline int ws_byte(uint8_t c) { return c == ' ' || (c >= 9 && c <= 13 && c != '\n'); }

/* Hex digits' values + 1; 0 for other bytes. */
static const uint8_t hex1[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
    ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

/* The key of a line's (pc, u) from its first two tokens (decimal, hex with
 * an optional 0x), or 0. */
static uint64_t quick_key(const uint8_t *p, const uint8_t *e)
{
    while (p < e && ws_byte(*p)) p++;
    uint64_t u = 0;
    int nd = 0;
    for (; p < e && *p >= '0' && *p <= '9' && nd < 4; p++, nd++) u = u * 10 + (uint64_t)(*p - '0');
    if (!nd || p == e || !ws_byte(*p)) return 0;
    while (p < e && ws_byte(*p)) p++;
    if (e - p >= 2 && p[0] == '0' && p[1] == 'x') p += 2;
    const uint8_t *q = p, *qe = e - p > 17 ? p + 17 : e;
    uint64_t pc = 0;
    for (unsigned v; q < qe && (v = hex1[*q]) != 0; q++) pc = pc << 4 | (v - 1);
    if (q == p || q - p > 16) return 0;
    return uk_key(pc, (int64_t)u);
}

/* The index of a line's string in the group's dictionary d[j], stating it
 * when new; -1 when the group has no room for it. */
static int learn_str(uop_dict *d, int j, const uint8_t *s, size_t n, trz_know_add_fn add, void *ctx)
{
    uint32_t slot = 0;
    int i = dict_find(&d[j], s, n, &slot);
    if (i >= 0) return i;
    if (n == 0 || d[j].n >= UK_STR_MAX || (i = dict_put(&d[j], s, n)) < 0) return -1;
    add(ctx, uk_str(j, (uint32_t)i), s, n);
    return i;
}

/* A parsed line's entry fact, and its strings when new to the group. */
static void learn_entry(uop_dict *d, const uop_t *x, uint64_t key, trz_know_add_fn add, void *ctx)
{
    int mac = learn_str(d, 0, x->sp[0], x->sl[0], add, ctx);
    int mic = mac < 0 ? -1 : learn_str(d, 1, x->sp[1], x->sl[1], add, ctx);
    if (mic < 0) return;
    uk_static v = { { (uint16_t)mac, (uint16_t)mic }, { x->ch[0], ch_cls(x->ch[1]), x->ch[2] }, x->immu,
                    (int16_t)(int64_t)(x->ft - x->pc), { (int16_t)x->s[0], (int16_t)x->s[1], (int16_t)x->s[2] }, x->imm };
    uint8_t f[UK_ENTRY_LEN];
    uk_put(f, &v);
    add(ctx, key, f, UK_ENTRY_LEN);
}

int uop_cm_learn(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, int byte_order, trz_know_add_fn add,
                 void *ctx)
{
    (void)nrec;
    (void)byte_order;
    layout_t lay;
    layout_learn(&lay, in, len);
    uop_dict *d = calloc(2, sizeof *d);
    kset seen = { NULL, 0, 0 };
    int rc = TRZ_CODEC_NOMEM;
    if (!d || !(d[0].arena = trz_big_malloc_sparse(ARENA_MAX)) || !(d[1].arena = trz_big_malloc_sparse(ARENA_MAX))) goto out;
    uk_dicts(d, k);
    const uint8_t *p = in, *end = in + len;
    while (p < end) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        const uint8_t *le = nl ? nl + 1 : end;
        size_t n = (size_t)(le - p), fl;
        uint64_t key = quick_key(p, le);
        const uint8_t *line = p;
        p = le;
        if (!key) continue;
        int first;
        kslot *ks = kset_add(&seen, key, &first);
        if (!ks) goto out;
        if (!first && !ks->addr) continue;
        int known = first ? trz_know_get(k, key, &fl) != NULL : 1;
        uop_t x;
        if ((first && known && trz_know_get(k, key | UK_ADDR, &fl)) || n >= UOP_MAX_LINE ||
            uop_parse(&lay, line, n, &x) || !fits(&x) || uk_key(x.pc, x.u) != key) {
            ks->addr = 0;
            continue;
        }
        if (!known) learn_entry(d, &x, key, add, ctx);
        else if (first) ks->addr = x.addr;
        else {
            /* an address that repeats may again in later chunks */
            if (x.addr == ks->addr) {
                uint8_t f[UK_ADDR_LEN];
                trz_st_le64(f, ks->addr);
                add(ctx, key | UK_ADDR, f, UK_ADDR_LEN);
            }
            ks->addr = 0;
        }
    }
    rc = TRZ_CODEC_OK;
out:
    if (d) {
        trz_big_release(d[0].arena, ARENA_MAX);
        trz_big_release(d[1].arena, ARENA_MAX);
    }
    free(d);
    free(seen.t);
    return rc;
}
