/* cs_fast_know.c - the ChampSim codec's knowledge stream in bytes, which
 * the fast levels write (champsim.md, "Knowledge stream, byte form"): no
 * range decoding, so that a seek's replay of its group's facts costs as
 * little as the fast variant's records. */
#include "champsim_int.h"
#include "cs_fast.h"

/* ---- knowledge in bytes (champsim.md, "Knowledge stream, byte form") -----
 * A chunk's new facts at the fast levels: per fact a flags byte and the
 * place of its static fields (its shape) in a list of recent shapes, then
 * the gaps between keys, the new shapes and the successors, each section
 * apart, for the back-end.  Sequential instructions make most gaps the
 * previous fact's length, and a program has few distinct shapes. */
#define KSHAPES 255 /* recent shapes; index 255 names a new one */

/* A shape in two words (zero past its width), so that the encoder's
 * search compares words. */
typedef struct { uint64_t w[2]; } kshape;

typedef struct {
    kshape s[KSHAPES];
    unsigned n;
} kshapes;

/* Put shape s in front; it was at q (n or more: not in the list). */
static void kshape_front(kshapes *k, kshape s, unsigned q)
{
    if (q >= k->n) q = k->n < KSHAPES ? k->n++ : KSHAPES - 1;
    memmove(&k->s[1], &k->s[0], (size_t)q * sizeof k->s[0]);
    k->s[0] = s;
}

static unsigned shape_width(const cs_layout *L) { return L->ndreg + 4 + 4; }

static kshape shape_of(const cs_layout *L, const uint8_t *v)
{
    uint8_t s[16] = { 0 };
    unsigned w = 0;
    for (unsigned k = 0; k < 8; k++)
        if (k < L->ndreg || k >= 4) s[w++] = v[k];
    memcpy(s + w, v + 8, 4); /* ib, bt, mask, len */
    kshape k;
    memcpy(k.w, s, 16);
    return k;
}

static inline unsigned kshape_hash(kshape s) { return h32(s.w[0] ^ s.w[1] * 0x2545F4914F6CDD1Dull) >> 20; }

int csf_know_encode(const trz_fact *f, size_t n, trz_buf *out, const cs_layout *L)
{
    unsigned sw = shape_width(L);
    trz_buf fl = { 0 }, g = { 0 }, sh = { 0 }, t = { 0 };
    kshapes *ks = calloc(1, sizeof *ks);
    /* how many listed shapes hash to each value: a new shape is seen to be
     * new without a search of the list */
    uint8_t *listed = calloc(4096, 1);
    int rc = ks && listed && !trz_buf_reserve(&fl, 2 * n) ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    uint64_t prev = 0;
    unsigned plen = 0;
    for (size_t i = 0; i < n && rc == TRZ_CODEC_OK; i++) {
        const uint8_t *v = f[i].val;
        for (unsigned k = L->ndreg; k < 4; k++)
            if (v[k]) rc = TRZ_CODEC_UNSUPPORTED; /* no such register: no shape holds it */
        kshape s = shape_of(L, v);
        uint64_t gap = f[i].key - prev;
        int eq = i && gap == plen;
        int has_t = f[i].len == CS_FACT_T;
        unsigned q = ks->n, hs = kshape_hash(s);
        if (listed[hs])
            for (q = 0; q < ks->n && ((ks->s[q].w[0] ^ s.w[0]) | (ks->s[q].w[1] ^ s.w[1])); q++) {}
        fl.p[fl.n++] = (uint8_t)(eq | has_t << 1);
        fl.p[fl.n++] = (uint8_t)(q < ks->n ? q : KSHAPES);
        if (q >= ks->n) {
            trz_put_bytes(&sh, s.w, sw);
            if (ks->n == KSHAPES) listed[kshape_hash(ks->s[KSHAPES - 1])]--; /* falls off the end */
            listed[hs]++;
        }
        kshape_front(ks, s, q);
        if (!eq) trz_put_uvarint(&g, i ? gap - 1 : gap);
        if (has_t) trz_put_uvarint(&t, trz_ld_le64(v + 12));
        prev = f[i].key;
        plen = v[11];
    }
    if (rc == TRZ_CODEC_OK) {
        trz_put_u8(out, CSF_KNOW_BYTES);
        trz_put_uvarint(out, n);
        trz_put_uvarint(out, g.n);
        trz_put_bytes(out, fl.p, fl.n);
        trz_put_bytes(out, g.p, g.n);
        trz_put_bytes(out, sh.p, sh.n);
        trz_put_bytes(out, t.p, t.n);
    }
    if (fl.oom || g.oom || sh.oom || t.oom || out->oom) rc = TRZ_CODEC_NOMEM;
    free(fl.p), free(g.p), free(sh.p), free(t.p), free(ks), free(listed);
    return rc;
}

int csf_know_decode(const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx, const cs_layout *L)
{
    unsigned sw = shape_width(L);
    trz_rd r;
    trz_rd_init(&r, p, n);
    if (trz_get_u8(&r) != CSF_KNOW_BYTES) return TRZ_CODEC_UNSUPPORTED;
    uint64_t count = trz_get_uvarint(&r), glen = trz_get_uvarint(&r);
    if (r.err || count == 0 || count > TRZ_KNOW_MAX_FACTS || count > trz_rd_left(&r) / 2) return TRZ_CODEC_CORRUPT;
    const uint8_t *fl = trz_get_bytes(&r, 2 * (size_t)count);
    if (glen > trz_rd_left(&r)) return TRZ_CODEC_CORRUPT;
    trz_rd g;
    trz_rd_init(&g, trz_get_bytes(&r, (size_t)glen), (size_t)glen);
    /* the new shapes, then the successors */
    size_t nnew = 0;
    for (size_t i = 0; i < count; i++) nnew += fl[2 * i + 1] == KSHAPES;
    if (nnew > trz_rd_left(&r) / sw) return TRZ_CODEC_CORRUPT;
    const uint8_t *sp = trz_get_bytes(&r, nnew * sw);
    kshapes *ks = calloc(1, sizeof *ks);
    if (!ks) return TRZ_CODEC_NOMEM;
    uint64_t key = 0;
    unsigned plen = 0;
    int rc = TRZ_CODEC_OK;
    for (size_t i = 0; i < count && rc == TRZ_CODEC_OK; i++) {
        unsigned f = fl[2 * i], q = fl[2 * i + 1];
        if (f > 3 || (i == 0 && (f & 1)) || (q < KSHAPES && q >= ks->n)) { rc = TRZ_CODEC_CORRUPT; break; }
        uint64_t gap = (f & 1) ? plen : i ? trz_get_uvarint(&g) + 1 : trz_get_uvarint(&g);
        if (i && (gap == 0 || key + gap < key)) { rc = TRZ_CODEC_CORRUPT; break; }
        key += gap;
        kshape ksh = { { 0, 0 } };
        if (q == KSHAPES) {
            memcpy(ksh.w, sp, sw);
            sp += sw;
        } else {
            ksh = ks->s[q];
        }
        kshape_front(ks, ksh, q);
        uint8_t s[16];
        memcpy(s, ksh.w, 16);
        uint8_t v[CS_FACT_T];
        memset(v, 0, sizeof v);
        unsigned w = 0;
        for (unsigned k = 0; k < 8; k++)
            if (k < L->ndreg || k >= 4) v[k] = s[w++];
        memcpy(v + 8, s + w, 4);
        if (f & 2) trz_st_le64(v + 12, trz_get_uvarint(&r));
        plen = v[11];
        if (g.err || r.err) rc = TRZ_CODEC_CORRUPT;
        else add(ctx, key, v, (f & 2) ? CS_FACT_T : CS_FACT);
    }
    if (rc == TRZ_CODEC_OK && (trz_rd_left(&g) || trz_rd_left(&r))) rc = TRZ_CODEC_CORRUPT;
    free(ks);
    return rc;
}
