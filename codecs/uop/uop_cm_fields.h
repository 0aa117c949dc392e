/* uop_cm_fields.h - the uop context model's coder of first-seen fields
 * (uop.md, "Context model"): hashed contexts mixed per nibble, the new
 * dictionary strings and an entry's static fields (code_static), inlined
 * into the line model (uop_cm.c) and the knowledge stream (uop_cm_know.c),
 * each with the direction a constant. */
#ifndef TRZ_UOP_CM_FIELDS_H
#define TRZ_UOP_CM_FIELDS_H

#include "uop_cm_int.h"

#ifdef UOP_STATS
extern long uop_st[8];
__attribute__((unused)) static const char *fname[32] = {"flow","same","branch","target","azero","ahit","akind","adelta","mac","mic","chars","s1","s2","d","imm","ftl","str","x"};
#define FLD(i) (uop_field = (i))
#else
#define FLD(i) ((void)0)
#endif

static inline int same_str(const uop_dict *d, uint32_t i, const uint8_t *s, size_t n)
{
    return i < d->n && d->len[i] == n && memcmp(d->arena + d->off[i], s, n) == 0;
}

/* ---- first-seen fields: hashed contexts, mixed ----------------------------------
 * A symbol of n bits is coded most significant bit first, four bits (a
 * nibble) at a time: each of k contexts (32-bit hashes) picks for the
 * nibble a slot of 16 count states (one cache line) by its hash and the
 * bits coded before; the k predictions of each bit are mixed with weights
 * per field and bit position. */

static inline uint32_t H2(uint64_t a, uint64_t b) { return (uint32_t)(hmix(a, b) >> 32); }
static inline uint32_t H3(uint64_t a, uint64_t b, uint64_t c) { return (uint32_t)(hmix(hmix(a, b), c) >> 32); }
static inline uint32_t H4(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    return (uint32_t)(hmix(hmix(hmix(a, b), c), d) >> 32);
}

TRZ_FORCE_INLINE u_cs *slot_of(const cm_t *m, uint32_t h, uint32_t prefix)
{
    uint32_t x = h + prefix * 0x9E3779B1u;
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    x *= 0x297A2D39u;
    x ^= x >> 15;
    return m->ht + ((size_t)(x >> m->hshift) << 4);
}

/* m->str[rc_p12(u_cs_p(s))]: the clamped P(0) shifted down 4 bits is
 * the state's top 12 bits clamped to 2..4094, so one table lookup. */
TRZ_FORCE_INLINE int cs_stretch(const cm_t *m, u_cs s) { return m->cstr[s >> 20]; }

TRZ_FORCE_INLINE uint32_t cm_sym(cm_t *m, rc *c, const int enc, unsigned f, const uint32_t *h, int k, int n, uint32_t v)
{
    uint32_t done = 1;
    int i = n;
    while (i > 0) {
        int nb = i >= 4 ? 4 : i;
        u_cs *sl[U_MIXN];
        for (int j = 0; j < k; j++) sl[j] = slot_of(m, h[j], done);
        uint32_t node = 1;
        for (int b = 0; b < nb; b++) {
            i--;
            int st[U_MIXN];
            for (int j = 0; j < k; j++) st[j] = cs_stretch(m, sl[j][node]);
            u_mixw *w = &m->sw[f][n - 1 - i < 15 ? n - 1 - i : 15];
            int bit = u_mix_bit(c, enc, w, st, k, enc ? (int)(v >> i) & 1 : 0, 3);
            for (int j = 0; j < k; j++) rc_cnt_update(&sl[j][node], bit, CS_LIM);
            node = node << 1 | (uint32_t)bit;
            done = done << 1 | (uint32_t)bit;
        }
    }
    return done - (1u << n);
}

/* A new dictionary string: its length, then each byte in the context of
 * the one before; appended to dictionary k.  Returns its index or -1. */
TRZ_FORCE_INLINE int code_newstr(cm_t *m, rc *c, const int enc, int k, const uint8_t *s, size_t n)
{
    int fsave = 0;
#ifdef UOP_STATS
    fsave = uop_field;
#endif
    FLD(16);
    uint8_t buf[256];
    uint32_t hl = H2(0x5A, (uint64_t)k);
    size_t len = cm_sym(m, c, enc, SF_STRLEN, &hl, 1, 8, (uint32_t)n);
    unsigned pb = 0;
    for (size_t j = 0; j < len; j++) {
        uint32_t hb[2] = { H3(0x5B, (uint64_t)k, pb), H2(0x5C, (uint64_t)k) };
        buf[j] = (uint8_t)cm_sym(m, c, enc, SF_STRB, hb, 2, 8, enc ? s[j] : 0);
        pb = buf[j];
    }
    FLD(fsave);
    (void)fsave;
    return dict_put(&m->dict[k], buf, len);
}

/* A dictionary string: its index (the dictionary's size for a new one) as
 * a 12-bit symbol in the contexts h, then a new string (code_newstr). */
TRZ_FORCE_INLINE int code_str(cm_t *m, rc *c, const int enc, int k, unsigned f, const uint32_t *h, const uint8_t *s,
                   size_t n, uint32_t *idx)
{
    uop_dict *d = &m->dict[k];
    int i = 0;
    uint32_t slot = 0;
    if (enc) {
        i = dict_find(d, s, n, &slot);
        if (i < 0) i = (int)d->n;
    }
    uint32_t v = cm_sym(m, c, enc, f, h, 4, 12, (uint32_t)i);
    if (v < d->n) {
        *idx = v;
        return 0;
    }
    if (v > d->n) return -1;
    int r = code_newstr(m, c, enc, k, s, n);
    if (r < 0) return -1;
    *idx = (uint32_t)r;
    return 0;
}

/* Static fields of an entry: the macro-op (a hit bit when the line is a
 * later micro-op of the previous line's instruction), the micro-op, the
 * chars (a hit bit against those last seen with the micro-op), registers,
 * immediate and length, each in contexts of the fields before it and of
 * the previous line. */
TRZ_FORCE_INLINE int code_static(cm_t *m, rc *c, const int enc, int fresh, cent *e, const uop_t *x, uint64_t pc, int64_t xu)
{
    const uop_t *p = &m->prev;
    int samepc = p->pc == pc && xu > 1;
    uint32_t pmac = p->op[0], pmic = p->op[1];
    uint64_t u = (uint64_t)xu;
    uint32_t h[4];
    /* macro-op */
    int hit = 0;
    FLD(8);
    if (samepc) hit = u_cbit(c, enc, &m->hit[0][fresh], enc ? same_str(&m->dict[0], pmac, x->sp[0], x->sl[0]) : 0, CS_LIM);
    if (hit) {
        if (pmac >= m->dict[0].n) return -1;
        e->op[0] = (uint16_t)pmac;
    } else {
        h[0] = H2(1, (uint64_t)samepc);
        h[1] = H3(2, pmac, (uint64_t)samepc);
        h[2] = H4(3, pmac, m->hmac, (uint64_t)samepc);
        h[3] = H3(4, pmic, p->ch[1]);
        uint32_t v;
        if (code_str(m, c, enc, 0, SF_MAC, h, x->sp[0], x->sl[0], &v)) return -1;
        e->op[0] = (uint16_t)v;
    }
    uint32_t mac = e->op[0];
    /* micro-op */
    FLD(9);
    h[0] = H3(5, mac, u);
    h[1] = H4(6, mac, u, samepc ? pmic : 0xFFFF);
    h[2] = H3(7, u, pmic);
    h[3] = H2(8, mac);
    uint32_t mic;
    if (code_str(m, c, enc, 1, SF_MIC, h, x->sp[1], x->sl[1], &mic)) return -1;
    e->op[1] = (uint16_t)mic;
    /* chars */
    FLD(10);
    uint8_t pch[3] = { '-', '-', '-' };
    if (m->micch[mic][3]) memcpy(pch, m->micch[mic], 3);
    u_cs *hc = slot_of(m, H3(9, mic, mac), 0);
    hit = u_cbit(c, enc, &hc[1], enc ? x->ch[0] == pch[0] && ch_cls(x->ch[1]) == pch[1] && x->ch[2] == pch[2] : 0,
                 CS_LIM);
    if (hit) memcpy(e->ch, pch, 3);
    else {
        unsigned before = 0;
        for (int i = 0; i < 3; i++) {
            h[0] = H3(10 + (uint64_t)i, mic, before);
            h[1] = H4(13 + (uint64_t)i, mac, u, before);
            h[2] = H3(16 + (uint64_t)i, pch[i], mic);
            uint8_t v = (uint8_t)cm_sym(m, c, enc, SF_CH0 + (unsigned)i, h, 3, 8, enc ? x->ch[i] : 0);
            e->ch[i] = i == 1 ? ch_cls(v) : v;
            before = before << 8 | v;
        }
    }
    /* registers: v + 1 in 0..62, 63 escapes to an integer */
    for (int i = 0; i < 3; i++) {
        FLD(11 + i);
        uint64_t f = 20 + (uint64_t)i * 4;
        h[0] = H4(f, mic, mac, u);
        h[1] = i == 0 ? H3(f + 1, mic, (uint64_t)p->s[2]) : i == 1 ? H3(f + 1, mic, (uint64_t)e->s[0])
                      : H4(f + 1, mic, (uint64_t)e->s[0], (uint64_t)e->s[1]);
        h[2] = H4(f + 2, mac, u, samepc ? (uint64_t)p->s[i] : 0xFFFF);
        h[3] = H4(f + 3, mic, (uint64_t)p->s[0], (uint64_t)p->s[2]);
        int64_t v = enc ? x->s[i] : 0;
        uint32_t sym = cm_sym(m, c, enc, SF_R0 + (unsigned)i, h, 4, 6, enc ? (v >= -1 && v < 62 ? (uint32_t)(v + 1) : 63) : 0);
        v = sym < 63 ? (int64_t)sym - 1 : rcd_sint(c, enc, m->rlen, m->rbits, v);
        if (v < INT16_MIN || v > INT16_MAX) return -1;
        e->s[i] = (int16_t)v;
    }
#ifdef UOP_STATS
    double c0 = uop_cost[14];
#endif
    /* immediate: the bit length of |imm| (65: printed unsigned or INT64_MIN),
     * the sign, the 12 bits below the leading one in context, the rest direct */
    FLD(14);
    {
        int64_t v = enc ? x->imm : 0;
        uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
        uint32_t L = enc ? (x->immu || v == INT64_MIN ? 65 : (uint32_t)rc_bitlen64(a)) : 0;
        unsigned pl = samepc ? (unsigned)rc_bitlen64(p->imm < 0 ? 0 - (uint64_t)p->imm : (uint64_t)p->imm) : 99;
        h[0] = H4(40, mic, mac, u);
        h[1] = H4(41, mic, (uint64_t)e->s[0], (uint64_t)e->s[1]);
        h[2] = H4(42, mac, u, pl);
        h[3] = H3(43, mic, (uint64_t)e->s[2]);
        L = cm_sym(m, c, enc, SF_IL, h, 4, 7, L);
        if (L > 65) return -1;
        if (L == 65) {
            e->immu = (uint8_t)u_cbit(c, enc, &m->ispec[1], enc ? x->immu : 0, CS_LIM);
            e->imm = (int64_t)rcd_direct64(c, enc, (uint64_t)v);
            if (!e->immu && e->imm != INT64_MIN) return -1;
        } else {
            e->immu = 0;
            if (L == 0) e->imm = 0;
            else {
                h[0] = H3(44, mic, L);
                h[1] = H4(45, mac, u, L);
                int neg = (int)cm_sym(m, c, enc, SF_IS, h, 2, 1, v < 0);
                int mb = (int)L - 1, top = mb < 12 ? mb : 12;
                uint64_t r = 1;
                if (top) r = r << top | cm_sym(m, c, enc, SF_IM, h, 2, top, (uint32_t)(a >> (mb - top)));
                int d = mb - top;
                if (d > 32) r = r << (d - 32) | rcd_direct(c, enc, (uint32_t)(a >> 32), d - 32), d = 32;
                if (d) r = r << d | rcd_direct(c, enc, (uint32_t)a, d);
                if (neg && r == 0) return -1;
                e->imm = neg ? (int64_t)(0 - r) : (int64_t)r;
                if (e->imm == INT64_MIN) return -1;
            }
        }
    }
#ifdef UOP_STATS
    if (enc) { extern double uop_micc[DICT_MAX]; extern long uop_micn[DICT_MAX]; uop_micc[mic] += uop_cost[14] - c0; uop_micn[mic]++; }
#endif
    /* length: 1..15, 0 escapes to an integer */
    FLD(15);
    {
        int64_t v = enc ? (int64_t)(x->ft - x->pc) : 0;
        unsigned il = (unsigned)rc_bitlen64(e->imm < 0 ? 0 - (uint64_t)e->imm : (uint64_t)e->imm);
        unsigned rx = (e->s[0] >= 8) | (e->s[1] >= 8) << 1 | (e->s[2] >= 8) << 2;
        h[0] = H4(50, mac, mic, u);
        h[1] = H4(51, mac, il, rx);
        h[2] = H3(52, mac, samepc ? (uint64_t)(p->ft - p->pc) : 99);
        h[3] = H4(53, mic, il, e->ch[2]);
        uint32_t sym = cm_sym(m, c, enc, SF_FT, h, 4, 4, enc ? (v >= 1 && v <= 15 ? (uint32_t)v : 0) : 0);
        v = sym ? (int64_t)sym : rcd_sint(c, enc, m->llen, m->lbits, v);
        if (v < INT16_MIN || v > INT16_MAX) return -1;
        e->ftl = (int16_t)v;
    }
    return 0;
}

#endif
