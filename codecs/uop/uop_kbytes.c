/* uop_kbytes.c - the uop codec's knowledge stream in bytes, for the fast
 * levels (uop.md, "Knowledge stream, byte form"): a seek's replay of its
 * group's facts and a sequential reader's every chunk then cost no range
 * decoding; the back-end (zstd) codes the sections.
 *
 * Entry facts are mostly the next micro-op of the same instruction or the
 * first of the next instruction, and a program has few distinct static
 * shapes (strings, chars, length, registers) next to many immediates, so
 * an entry is a key code, the place of its shape in a list of recent
 * shapes, and its immediate apart. */
#include "uop_cm.h"
#include "uop_know.h"

#define KB_TAG 0x81     /* the range-coded form starts with 0 or 1 (the coder's first byte) */
#define KB_SHAPES 255   /* recent shapes; index 255 names a new one */
#define KB_SHAPE 16     /* bytes 0..15 of an entry fact; 16..23 are the immediate */
#define KB_MAX (1u << 19) /* facts in one stream at most (the container's store limit) */
#define KB_ENTRY_MIN (1ull << 21) /* uk_key(UK_PC_MIN, 1) and above; strings below */

enum { KC_NEXT = 0, KC_FALL = 1, KC_GAP = 2 };

typedef struct {
    uint8_t s[KB_SHAPES][KB_SHAPE];
    unsigned n;
} kb_list;

/* Put shape s in front; it was at q (n or more: not in the list). */
static void kb_front(kb_list *l, const uint8_t *s, unsigned q)
{
    uint8_t t[KB_SHAPE];
    memcpy(t, s, KB_SHAPE);
    if (q >= l->n) q = l->n < KB_SHAPES ? l->n++ : KB_SHAPES - 1;
    memmove(l->s[1], l->s[0], (size_t)q * KB_SHAPE);
    memcpy(l->s[0], t, KB_SHAPE);
}

/* The key after an entry of key pk whose value is pv: its fall-through's
 * first micro-op, or 0 when the length is not positive. */
static uint64_t kb_fall(uint64_t pk, const uint8_t *pv)
{
    int16_t ftl = (int16_t)trz_ld_le16(pv + 8);
    uint64_t pc = (pk >> 8) + (uint64_t)(int64_t)ftl;
    return ftl > 0 && pc < UK_PC_LIM ? pc << 8 | 1 : 0;
}

/* The prediction of an address fact's address, as the range-coded form
 * makes it: the base register's last address less immediate plus this
 * entry's immediate, else the address before.  *r: the register. */
static uint64_t kb_pred(const trz_know *k, uint64_t key, const uint64_t *kb, uint64_t prev, unsigned *r, int64_t *imm)
{
    uk_static v;
    *r = uk_addr_base(k, key & ~UK_ADDR, &v);
    *imm = v.imm;
    return kb[*r] ? kb[*r] + (uint64_t)*imm : prev;
}

int uop_know_bytes_encode(const trz_know *k, const trz_fact *f, size_t n, trz_buf *out)
{
    /* the classes, in key order: strings of dictionary 0, of 1, entries, addresses */
    size_t i = 0, ns[2] = { 0, 0 };
    uint32_t i0[2] = { 0, 0 };
    for (int j = 0; j < 2; j++)
        for (; i < n && f[i].key < KB_ENTRY_MIN && (f[i].key >> 20) == (uint64_t)j; i++) {
            uint64_t x = f[i].key >> 8;
            if ((f[i].key & 255) || (ns[j] && x != ((uint64_t)j << 12 | (i0[j] + ns[j]))) || f[i].len == 0 ||
                f[i].len > 255)
                return TRZ_CODEC_UNSUPPORTED;
            if (!ns[j]) i0[j] = (uint32_t)(x & 0xFFF);
            ns[j]++;
        }
    size_t e0 = i;
    for (; i < n && f[i].key < UK_ADDR; i++)
        if (f[i].key < KB_ENTRY_MIN || f[i].len != UK_ENTRY_LEN) return TRZ_CODEC_UNSUPPORTED;
    size_t a0 = i;
    for (; i < n; i++)
        if (f[i].len != UK_ADDR_LEN) return TRZ_CODEC_UNSUPPORTED;
    if (n > KB_MAX || i0[0] + ns[0] > UK_STR_MAX || i0[1] + ns[1] > UK_STR_MAX) return TRZ_CODEC_UNSUPPORTED;
    size_t ne = a0 - e0, na = n - a0;

    trz_buf lens = { 0 }, str = { 0 }, kc = { 0 }, q = { 0 }, gap = { 0 }, shp = { 0 }, imm = { 0 }, ag = { 0 },
            ad = { 0 };
    kb_list *l = calloc(1, sizeof *l);
    int rc = l ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    for (size_t t = 0; t < e0 && rc == TRZ_CODEC_OK; t++) {
        trz_put_u8(&lens, (uint8_t)f[t].len);
        trz_put_bytes(&str, f[t].val, f[t].len);
    }
    for (size_t t = e0; t < a0 && rc == TRZ_CODEC_OK; t++) {
        uint64_t key = f[t].key, pk = t > e0 ? f[t - 1].key : 0;
        if (t > e0 && key == pk + 1) trz_put_u8(&kc, KC_NEXT);
        else if (t > e0 && key == kb_fall(pk, f[t - 1].val)) trz_put_u8(&kc, KC_FALL);
        else {
            trz_put_u8(&kc, KC_GAP);
            trz_put_uvarint(&gap, t > e0 ? key - pk - 1 : key);
        }
        const uint8_t *s = f[t].val;
        unsigned x = 0;
        while (x < l->n && memcmp(l->s[x], s, KB_SHAPE) != 0) x++;
        trz_put_u8(&q, (uint8_t)(x < l->n ? x : KB_SHAPES));
        if (x >= l->n) trz_put_bytes(&shp, s, KB_SHAPE);
        kb_front(l, s, x);
        trz_put_svarint(&imm, (int64_t)trz_ld_le64(s + 16));
    }
    uint64_t kb[UK_NBASE] = { 0 }, prev = 0;
    for (size_t t = a0; t < n && rc == TRZ_CODEC_OK; t++) {
        uint64_t key = f[t].key, a = trz_ld_le64(f[t].val);
        trz_put_uvarint(&ag, t > a0 ? key - f[t - 1].key - 1 : key - UK_ADDR);
        unsigned r;
        int64_t im;
        uint64_t pred = kb_pred(k, key, kb, prev, &r, &im);
        trz_put_svarint(&ad, (int64_t)(a - pred));
        kb[r] = a - (uint64_t)im;
        prev = a;
    }
    /* new shapes by column: byte j of every new shape, j = 0..15 */
    if (rc == TRZ_CODEC_OK && shp.n && !shp.oom) {
        size_t ns_new = shp.n / KB_SHAPE;
        uint8_t *col = malloc(shp.n);
        if (!col) rc = TRZ_CODEC_NOMEM;
        else {
            for (size_t t = 0; t < ns_new; t++)
                for (unsigned j = 0; j < KB_SHAPE; j++) col[j * ns_new + t] = shp.p[t * KB_SHAPE + j];
            memcpy(shp.p, col, shp.n);
            free(col);
        }
    }
    if (rc == TRZ_CODEC_OK) {
        trz_put_u8(out, KB_TAG);
        trz_put_uvarint(out, ns[0]);
        trz_put_uvarint(out, i0[0]);
        trz_put_uvarint(out, ns[1]);
        trz_put_uvarint(out, i0[1]);
        trz_put_uvarint(out, ne);
        trz_put_uvarint(out, na);
        trz_put_uvarint(out, gap.n);
        trz_put_uvarint(out, imm.n);
        trz_put_uvarint(out, ag.n);
        trz_buf *sec[] = { &lens, &str, &kc, &q, &gap, &shp, &imm, &ag, &ad };
        for (size_t s = 0; s < sizeof sec / sizeof sec[0]; s++) trz_put_bytes(out, sec[s]->p, sec[s]->n);
    }
    trz_buf *all[] = { &lens, &str, &kc, &q, &gap, &shp, &imm, &ag, &ad };
    for (size_t s = 0; s < sizeof all / sizeof all[0]; s++) {
        if (all[s]->oom) rc = TRZ_CODEC_NOMEM;
        free(all[s]->p);
    }
    free(l);
    return rc == TRZ_CODEC_OK && out->oom ? TRZ_CODEC_NOMEM : rc;
}

int uop_know_bytes_decode(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx)
{
    trz_rd r;
    trz_rd_init(&r, p, n);
    if (trz_get_u8(&r) != KB_TAG) return TRZ_CODEC_UNSUPPORTED;
    uint64_t h[9];
    for (int j = 0; j < 9; j++) h[j] = trz_get_uvarint(&r);
    uint64_t ns[2] = { h[0], h[2] }, i0[2] = { h[1], h[3] }, ne = h[4], na = h[5], glen = h[6], mlen = h[7],
             aglen = h[8];
    /* every count is checked against the bytes left before anything is
     * allocated or read by it */
    for (int j = 0; j < 6; j++) /* each alone first: their sums cannot wrap */
        if (h[j] > KB_MAX) return TRZ_CODEC_CORRUPT;
    if (r.err || ns[0] + ns[1] + ne + na == 0 || ns[0] + ns[1] + ne + na > KB_MAX || i0[0] + ns[0] > UK_STR_MAX ||
        i0[1] + ns[1] > UK_STR_MAX || ns[0] + ns[1] + 2 * ne > trz_rd_left(&r))
        return TRZ_CODEC_CORRUPT;
    const uint8_t *lens = trz_get_bytes(&r, (size_t)(ns[0] + ns[1]));
    size_t sbytes = 0;
    for (uint64_t t = 0; t < ns[0] + ns[1]; t++) {
        if (lens[t] == 0) return TRZ_CODEC_CORRUPT;
        sbytes += lens[t];
    }
    const uint8_t *str = trz_get_bytes(&r, sbytes);
    const uint8_t *kc = trz_get_bytes(&r, (size_t)ne), *qs = trz_get_bytes(&r, (size_t)ne);
    if (r.err || glen > trz_rd_left(&r)) return TRZ_CODEC_CORRUPT;
    trz_rd g;
    trz_rd_init(&g, trz_get_bytes(&r, (size_t)glen), (size_t)glen);
    size_t nnew = 0;
    for (uint64_t t = 0; t < ne; t++) nnew += qs[t] == KB_SHAPES;
    if (nnew > trz_rd_left(&r) / KB_SHAPE) return TRZ_CODEC_CORRUPT;
    const uint8_t *sp = trz_get_bytes(&r, nnew * KB_SHAPE); /* by column */
    size_t inew = 0;
    if (r.err || mlen > trz_rd_left(&r)) return TRZ_CODEC_CORRUPT;
    trz_rd m;
    trz_rd_init(&m, trz_get_bytes(&r, (size_t)mlen), (size_t)mlen);
    if (r.err || aglen > trz_rd_left(&r)) return TRZ_CODEC_CORRUPT;
    trz_rd ag;
    trz_rd_init(&ag, trz_get_bytes(&r, (size_t)aglen), (size_t)aglen);

    for (int j = 0, t = 0; j < 2; j++)
        for (uint64_t s = 0; s < ns[j]; s++, t++) {
            add(ctx, uk_str(j, (uint32_t)(i0[j] + s)), str, lens[t]);
            str += lens[t];
        }
    kb_list *l = calloc(1, sizeof *l);
    if (!l) return TRZ_CODEC_NOMEM;
    int rc = TRZ_CODEC_OK;
    uint64_t key = 0;
    uint8_t v[UK_ENTRY_LEN];
    for (uint64_t t = 0; t < ne; t++) {
        uint64_t pk = key;
        if (kc[t] == KC_NEXT && t) key = pk + 1;
        else if (kc[t] == KC_FALL && t) key = kb_fall(pk, v);
        else if (kc[t] == KC_GAP) {
            uint64_t d = trz_get_uvarint(&g);
            key = t ? pk + 1 + d : d;
            if (t && key <= pk) key = 0; /* wrapped */
        } else key = 0;
        unsigned x = qs[t];
        if (g.err || key < KB_ENTRY_MIN || key >= UK_ADDR || (t && key <= pk) || (x < KB_SHAPES && x >= l->n)) {
            rc = TRZ_CODEC_CORRUPT;
            break;
        }
        uint8_t sn[KB_SHAPE];
        if (x == KB_SHAPES) {
            for (unsigned j = 0; j < KB_SHAPE; j++) sn[j] = sp[j * nnew + inew];
            inew++;
        }
        kb_front(l, x == KB_SHAPES ? sn : l->s[x], x);
        memcpy(v, l->s[0], KB_SHAPE);
        trz_st_le64(v + 16, (uint64_t)trz_get_svarint(&m));
        if (m.err) {
            rc = TRZ_CODEC_CORRUPT;
            break;
        }
        add(ctx, key, v, UK_ENTRY_LEN);
    }
    free(l);
    uint64_t kb[UK_NBASE] = { 0 }, prev = 0;
    key = 0;
    for (uint64_t t = 0; t < na && rc == TRZ_CODEC_OK; t++) {
        uint64_t d = trz_get_uvarint(&ag), pk = key;
        key = t ? pk + 1 + d : UK_ADDR + d;
        if (ag.err || key < UK_ADDR || (t && key <= pk)) {
            rc = TRZ_CODEC_CORRUPT;
            break;
        }
        unsigned rg;
        int64_t im;
        uint64_t a = kb_pred(k, key, kb, prev, &rg, &im) + (uint64_t)trz_get_svarint(&r);
        if (r.err) {
            rc = TRZ_CODEC_CORRUPT;
            break;
        }
        kb[rg] = a - (uint64_t)im;
        prev = a;
        uint8_t av[UK_ADDR_LEN];
        trz_st_le64(av, a);
        add(ctx, key, av, UK_ADDR_LEN);
    }
    if (rc == TRZ_CODEC_OK && (trz_rd_left(&g) || trz_rd_left(&m) || trz_rd_left(&ag) || trz_rd_left(&r)))
        rc = TRZ_CODEC_CORRUPT;
    return rc;
}
