/* uop_cm_know.c - the uop context model's knowledge stream (uop.md,
 * "Knowledge stream"), range-coded: the counts, the chunk's new strings,
 * its new entries (their static fields coded as a fresh entry's in a chunk,
 * code_static of uop_cm_fields.h) and its address facts. */
#include "uop_cm.h"
#include "uop_cm_fields.h"

/* ---- the knowledge stream (uop.md, "Knowledge stream") -----------------------
 * One range-coded stream: the counts; the chunk's new strings of each
 * dictionary; its new entries by increasing (pc, u), each one's static fields
 * coded as a fresh entry's in a chunk (code_static) with the entry before
 * standing for the previous line; then its address facts, each address
 * against the base register that the entry's fact names. */
#define KNOW_VARIANT 0
#define KNOW_HT 128 /* the hashed contexts are sized as for this many lines a fact */

typedef struct {
    rc_prob nextu, u1, ulen[RC_ULEN], ubits[RC_UBITS], glen[RC_ULEN], gbits[RC_UBITS];
    rc_prob asame, aulen[2][RC_ULEN], aubits[RC_UBITS], aglen[RC_ULEN], agbits[RC_UBITS];
    rc_prob alen[8][RC_ULEN], abits[RC_UBITS];
} kmodel;

/* Whether the encoder's facts are ones this layout states: strings at their
 * dictionaries' next indices, entries whose values code_static gives back,
 * address facts of 8 bytes; the counts set.  0 if not. */
static int know_fits(const cm_t *m, const trz_fact *f, size_t n, uint32_t nstr[2], uint32_t *ne, uint32_t *na)
{
    size_t i = 0;
    for (int j = 0; j < 2; j++) {
        nstr[j] = 0;
        while (i < n && m->dict[j].n + nstr[j] < UK_STR_MAX && f[i].key == uk_str(j, m->dict[j].n + nstr[j])) {
            nstr[j]++;
            i++;
        }
    }
    size_t e0 = i;
    for (; i < n && !(f[i].key & UK_ADDR); i++) {
        const uint8_t *v = f[i].val;
        uint64_t k = f[i].key;
        if (uk_key(k >> 8, (int64_t)(k & 255)) != k || f[i].len != UK_ENTRY_LEN ||
            trz_ld_le16(v) >= m->dict[0].n + nstr[0] || trz_ld_le16(v + 2) >= m->dict[1].n + nstr[1] || v[5] == 'N' ||
            v[7] > 1)
            return 0;
    }
    *ne = (uint32_t)(i - e0);
    size_t a0 = i;
    for (; i < n; i++) {
        uint64_t k = f[i].key & ~UK_ADDR;
        if (!(f[i].key & UK_ADDR) || uk_key(k >> 8, (int64_t)(k & 255)) != k || f[i].len != UK_ADDR_LEN) return 0;
    }
    *na = (uint32_t)(n - a0);
    return n <= TRZ_KNOW_MAX_FACTS;
}

/* Whether the instruction has another micro-op (SF_KSAME), and whether
 * the next one executed is at its fall-through (SF_KSEQ): mixed from the
 * previous entry's macro-op, micro-op and chars. */
TRZ_FORCE_INLINE int key_bit(cm_t *m, rc *c, const int enc, unsigned f, const uop_t *pv, int bit)
{
    uint32_t h[2] = { H4(60 + f, pv->op[0], (uint64_t)pv->u, pv->op[1]), H4(62 + f, pv->op[1], pv->ch[1], pv->ch[2]) };
    return (int)cm_sym(m, c, enc, f, h, 2, 1, (uint32_t)bit);
}

/* The new strings, nstr[j] of dictionary j, each at its next index. */
static int know_strs(cm_t *m, rc *c, const int enc, const trz_fact *f, const uint32_t nstr[2], trz_know_add_fn add,
                     void *ctx)
{
    size_t i = 0;
    for (int j = 0; j < 2; j++)
        for (uint32_t t = 0; t < nstr[j]; t++, i++) {
            int r = code_newstr(m, c, enc, j, enc ? f[i].val : NULL, enc ? f[i].len : 0);
            if (r < 0 || m->dict[j].len[r] == 0 || rc_dec_bad(c)) return -1;
            if (!enc) add(ctx, uk_str(j, (uint32_t)r), m->dict[j].arena + m->dict[j].off[r], m->dict[j].len[r]);
        }
    return 0;
}

/* The entries: (pc, u) from the one before, then the static fields. */
static int know_entries(cm_t *m, rc *c, const int enc, kmodel *km, const trz_fact *f, uint32_t ne,
                        trz_know_add_fn add, void *ctx)
{
    uop_t *pv = &m->prev;
    uint32_t nd[2] = { m->dict[0].n, m->dict[1].n };
    for (uint32_t t = 0; t < ne; t++) {
        uint64_t key = enc ? f[t].key : 0, pc = key >> 8, u = key & 255;
        FLD(17);
        if (t == 0) {
            pc = rcd_direct64(c, enc, pc);
            u = rcd_direct(c, enc, (uint32_t)u, 8);
        } else if (key_bit(m, c, enc, SF_KSAME, pv, pc == pv->pc)) {
            pc = pv->pc;
            if (rcd_bit(c, enc, &km->nextu, u == (uint64_t)pv->u + 1)) u = (uint64_t)pv->u + 1;
            else u = (uint64_t)pv->u + 2 + rcd_uint(c, enc, km->ulen, km->ubits, u - (uint64_t)pv->u - 2);
            if (u <= (uint64_t)pv->u) return -1;
        } else {
            uint64_t seq = pv->ft, ppc = pv->pc;
            if (seq > ppc && key_bit(m, c, enc, SF_KSEQ, pv, pc == seq)) pc = seq;
            else pc = ppc + 1 + rcd_uint(c, enc, km->glen, km->gbits, pc - ppc - 1);
            if (rcd_bit(c, enc, &km->u1, u == 1)) u = 1;
            else u = rcd_direct(c, enc, (uint32_t)u, 8);
            if (pc <= ppc) return -1;
        }
        if (u > 255 || uk_key(pc, (int64_t)u) == 0) return -1;
        key = pc << 8 | u;
        uop_t x;
        memset(&x, 0, sizeof x);
        cent e;
        memset(&e, 0, sizeof e);
        if (enc) {
            uk_static v;
            uk_get(&v, f[t].val);
            for (int j = 0; j < 2; j++) {
                x.sp[j] = m->dict[j].arena + m->dict[j].off[v.op[j]];
                x.sl[j] = m->dict[j].len[v.op[j]];
            }
            memcpy(x.ch, v.ch, 3);
            for (int j = 0; j < 3; j++) x.s[j] = v.s[j];
            x.imm = v.imm;
            x.immu = v.immu;
            x.pc = pc;
            x.u = (int64_t)u;
            x.ft = pc + (uint64_t)(int64_t)v.ftl;
        }
        /* an entry's strings are stated before it, never inside it */
        if (code_static(m, c, enc, 1, &e, &x, pc, (int64_t)u) || rc_dec_bad(c) || m->dict[0].n != nd[0] ||
            m->dict[1].n != nd[1])
            return -1;
        memcpy(m->micch[e.op[1]], e.ch, 3);
        m->micch[e.op[1]][3] = 1;
        if (!enc) {
            uk_static v = { { e.op[0], e.op[1] }, { e.ch[0], e.ch[1], e.ch[2] }, e.immu, e.ftl,
                            { e.s[0], e.s[1], e.s[2] }, e.imm };
            uint8_t val[UK_ENTRY_LEN];
            uk_put(val, &v);
            add(ctx, key, val, UK_ENTRY_LEN);
        }
        if (u == 1) m->hmac = pv->op[0];
        pv->pc = pc;
        pv->u = (int64_t)u;
        pv->ft = pc + (uint64_t)(int64_t)e.ftl;
        for (int j = 0; j < 3; j++) pv->s[j] = e.s[j];
        pv->imm = e.imm;
        pv->immu = e.immu;
        pv->op[0] = e.op[0];
        pv->op[1] = e.op[1];
        memcpy(pv->ch, e.ch, 3);
    }
    return 0;
}

/* The address facts: (pc, u) from the one before; the address less the
 * prediction from the base register of the entry's fact (the last address
 * less immediate seen with that register, else the address before). */
static int know_addrs(rc *c, const int enc, kmodel *km, const trz_know *k, const trz_fact *f, uint32_t na,
                      trz_know_add_fn add, void *ctx)
{
    uint64_t kb[UK_NBASE] = { 0 }, prev = 0, ppc = 0, pu = 0;
    for (uint32_t t = 0; t < na; t++) {
        uint64_t key = enc ? f[t].key & ~UK_ADDR : 0, pc = key >> 8, u = key & 255;
        FLD(17);
        if (t == 0) {
            pc = rcd_direct64(c, enc, pc);
            u = rcd_direct(c, enc, (uint32_t)u, 8);
        } else if (rcd_bit(c, enc, &km->asame, pc == ppc)) {
            pc = ppc;
            u = pu + 1 + rcd_uint(c, enc, km->aulen[0], km->aubits, u - pu - 1);
            if (u <= pu) return -1;
        } else {
            pc = ppc + 1 + rcd_uint(c, enc, km->aglen, km->agbits, pc - ppc - 1);
            u = 1 + rcd_uint(c, enc, km->aulen[1], km->aubits, u - 1);
            if (pc <= ppc || u == 0) return -1;
        }
        if (u > 255 || uk_key(pc, (int64_t)u) == 0 || rc_dec_bad(c)) return -1;
        ppc = pc;
        pu = u;
        key = pc << 8 | u;
        uk_static v;
        unsigned ri = uk_addr_base(k, key, &v);
        uint64_t pred = kb[ri] ? kb[ri] + (uint64_t)v.imm : prev;
        uint64_t a = enc ? trz_ld_le64(f[t].val) : 0;
        FLD(7);
        a = pred + (uint64_t)rcd_sint(c, enc, km->alen[(kb[ri] != 0) * 4 + ls_ctx(v.ch[2])], km->abits,
                                      (int64_t)(a - pred));
        kb[ri] = a - (uint64_t)v.imm;
        prev = a;
        if (!enc) {
            uint8_t val[UK_ADDR_LEN];
            trz_st_le64(val, a);
            add(ctx, key | UK_ADDR, val, UK_ADDR_LEN);
        }
    }
    return 0;
}

TRZ_FORCE_INLINE int know_code(const trz_know *k, const trz_fact *f, size_t n, trz_buf *out, const uint8_t *p, size_t plen,
                     trz_know_add_fn add, void *ctx, const int enc)
{
    rc c;
    if (enc) rc_enc_init(&c, out);
    else rc_dec_init(&c, p, plen);
    uint32_t nstr[2] = { 0, 0 }, ne = 0, na = 0;
    cm_t *m = NULL;
    if (enc) {
        size_t nent = 0; /* the model's size, as the decoder will know it */
        for (size_t i = 0; i < n; i++) nent += f[i].key >= (uint64_t)UK_PC_MIN << 8 && !(f[i].key & UK_ADDR);
        if (!(m = uop_cm_open(NULL, (uint64_t)nent * KNOW_HT, k, 1, 0))) return TRZ_CODEC_NOMEM;
        if (!know_fits(m, f, n, nstr, &ne, &na)) {
            uop_cm_free(m);
            return TRZ_CODEC_UNSUPPORTED;
        }
    }
    if (rcd_direct(&c, enc, KNOW_VARIANT, 8) != KNOW_VARIANT) return TRZ_CODEC_UNSUPPORTED;
    for (int j = 0; j < 2; j++) nstr[j] = rcd_direct(&c, enc, nstr[j], 12);
    ne = rcd_direct(&c, enc, ne, 20);
    na = rcd_direct(&c, enc, na, 20);
    if (!enc) {
        if (ne + na > TRZ_KNOW_MAX_FACTS || nstr[0] + nstr[1] + ne + na == 0) return TRZ_CODEC_CORRUPT;
        if (!(m = uop_cm_open(NULL, (uint64_t)ne * KNOW_HT, k, 1, 0))) return TRZ_CODEC_NOMEM;
        if (m->dict[0].n + nstr[0] > UK_STR_MAX || m->dict[1].n + nstr[1] > UK_STR_MAX) {
            uop_cm_free(m);
            return TRZ_CODEC_CORRUPT;
        }
    }
    kmodel km;
    rc_init(&km.nextu, sizeof km / sizeof(rc_prob));
    size_t ns = (size_t)nstr[0] + nstr[1];
    int bad = know_strs(m, &c, enc, f, nstr, add, ctx) || know_entries(m, &c, enc, &km, enc ? f + ns : NULL, ne, add, ctx) ||
              know_addrs(&c, enc, &km, k, enc ? f + ns + ne : NULL, na, add, ctx);
    int ret;
    if (enc) ret = bad ? TRZ_CODEC_UNSUPPORTED : rc_enc_flush(&c) == 0 && !out->oom ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    else ret = !bad && rc_dec_ok(&c) ? TRZ_CODEC_OK : TRZ_CODEC_CORRUPT;
#ifdef UOP_STATS
    if (enc) {
        for (int q = 0; q < 18; q++) fprintf(stderr, "%s %.0f  ", fname[q], uop_cost[q] / 8);
        fprintf(stderr, "\n");
        memset(uop_cost, 0, sizeof uop_cost);
    }
#endif
    uop_cm_free(m);
    return ret;
}

int uop_cm_know_encode(const trz_know *k, const trz_fact *f, size_t n, trz_buf *out)
{
    return know_code(k, f, n, out, NULL, 0, NULL, NULL, 1);
}

int uop_cm_know_decode(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx)
{
    if (n && p[0] != 0 && p[0] != 1) return uop_know_bytes_decode(k, p, n, add, ctx);
    return know_code(k, NULL, 0, NULL, p, n, add, ctx, 0);
}
