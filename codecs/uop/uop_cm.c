/* uop_cm.c - the uop codec's context model (variant 1): every field of a
 * line is coded as decisions of the shared range coder in the contexts that
 * decide it.  Flow, static-field checks, branch outcomes and targets go to
 * one range-coded stream, the fields of instructions seen for the first
 * time to a second, memory addresses to a third.  The model is written
 * once (cm_line, in named steps: line_flow, line_entry, line_branch,
 * line_target, line_addr, line_after) and inlined into the encoder's and
 * the decoder's loops, each with the direction a constant; the knowledge
 * stream codes its entries with the same coder of static fields
 * (code_static).  Set-up is in uop_cm_model.c, learn in uop_learn.c, what
 * they share in uop_cm_int.h.  Spec: uop.md, "Context model". */
#include "uop_cm_int.h"

#ifdef UOP_STATS
long uop_st[8];
double uop_cost[32];
double uop_micc[4096];
long uop_micn[4096];
int uop_field;
static const char *fname[32] = {"flow","same","branch","target","azero","ahit","akind","adelta","mac","mic","chars","s1","s2","d","imm","ftl","str","x"};
#define FLD(i) (uop_field = (i))
#else
#define FLD(i) ((void)0)
#endif

/* ---- the model of one line --------------------------------------------------- */

typedef struct {
    rc ctl, stat, addr;
} cm_rc;

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

TRZ_FORCE_INLINE int static_same(const cm_t *m, const cent *e, const uop_t *x)
{
    return (int64_t)(x->ft - x->pc) == e->ftl && x->s[0] == e->s[0] && x->s[1] == e->s[1] && x->s[2] == e->s[2] &&
           x->imm == e->imm && x->immu == e->immu && x->ch[0] == e->ch[0] && ch_cls(x->ch[1]) == e->ch[1] &&
           x->ch[2] == e->ch[2] && same_str(&m->dict[0], e->op[0], x->sp[0], x->sl[0]) &&
           same_str(&m->dict[1], e->op[1], x->sp[1], x->sl[1]);
}

/* A fresh entry from the group's facts about (pc, u): its address fact as
 * its last address; and when it has an entry fact whose strings the
 * dictionaries hold, its static fields and, if the instruction has a
 * micro-op after this one, three "next micro-op" flow kinds (1 returned). */
static int fact_fill(const cm_t *m, cent *e, uint64_t pc, int64_t u)
{
    e->last = uk_addr(m->know, pc, u);
    uk_static v;
    if (!uk_entry(m->know, m->dict, pc, u, &v)) return 0;
    e->op[0] = v.op[0];
    e->op[1] = v.op[1];
    memcpy(e->ch, v.ch, 3);
    e->immu = v.immu;
    e->ftl = v.ftl;
    memcpy(e->s, v.s, sizeof e->s);
    e->imm = v.imm;
    if (uk_more(m->know, pc, u)) e->nh = F_CONT << 4 | F_CONT << 2 | F_CONT;
    return 1;
}

/* The recent addresses: the last address of each of the RECENT_N most
 * recently used 64-byte blocks, most recent first. */
TRZ_FORCE_INLINE void recent_push(cm_t *m, uint64_t a)
{
    int i = 0;
    while (i < RECENT_N - 1 && (m->recent[i] ^ a) >> 6) i++;
    for (; i > 0; i--) m->recent[i] = m->recent[i - 1];
    m->recent[0] = a;
}

/* The match model after a line (key, address, flow kind and branch): the
 * line joins the history; a match that held (the line's key and address
 * were the match's line's) goes on to the next line, else one is looked
 * for by the context of the last MC_N lines. */
TRZ_FORCE_INLINE void match_next(cm_t *m, uint32_t key, uint64_t addr, uint8_t ctl, int held)
{
    uint32_t s = (uint32_t)m->mpos & MH_MASK;
    m->mh_addr[s] = addr;
    m->mh_key[s] = key;
    m->mh_ctl[s] = ctl;
    m->mpos++;
    memmove(m->mctx + 1, m->mctx, (MC_N - 1) * sizeof m->mctx[0]);
    m->mctx[0] = (uint32_t)(hmix(key, addr) >> 32);
    uint64_t hh = m->mctx[0];
    for (int i = 1; i < MC_N; i++) hh = hmix(hh, m->mctx[i]);
    uint32_t h = (uint32_t)(hh >> 32) >> (32 - MT_BITS);
    if (held) {
        m->mptr++;
        m->mlen++;
    } else {
        m->mlen = 0;
        uint64_t p = m->mt[h]; /* a position (of a line before this one), 0 none */
        if (p && m->mpos - p < MH_MASK) {
            m->mptr = p;
            m->mlen = 1;
        }
    }
    m->mt[h] = (uint32_t)m->mpos;
}

/* 1. flow: the kind of successor in the context of the kinds that followed
 * the previous line's entry; in a match (mlc, its length class; mctl, its
 * line's flow kind and branch), first the kind of the match's line.  Sets
 * x->u and x->pc; returns the kind. */
TRZ_FORCE_INLINE unsigned line_flow(cm_t *m, cm_rc *r, const int enc, uop_t *x, unsigned mlc, unsigned mctl)
{
    const uop_t *p = &m->prev;
    cent *pe = m->pe;
    uint64_t npc = p->ch[1] == 'T' ? p->tgt : p->ft;
    unsigned kind = 0;
    if (enc) {
        if (x->u == 1 && x->pc == npc) kind = F_NEW;
        else if ((uint64_t)x->u == (uint64_t)p->u + 1 && x->pc == p->pc) kind = F_CONT;
        else if (x->u == 1 && x->pc == p->pc) kind = F_REP;
        else kind = F_EXPL;
    }
    FLD(0);
    {
        /* the kind that followed the previous entry last time, else a tree;
         * first, in a match, the kind of the match's line */
        unsigned fc = pe ? pe->nh : 0, pk = fc & 3;
        if (mlc && (mctl & 3) != pk && rcd_bit(&r->ctl, enc, &m->mflow[mlc][0], enc ? kind == (mctl & 3) : 0))
            kind = mctl & 3;
        else if (!rcd_bit(&r->ctl, enc, &m->flow1[fc], enc ? kind != pk : 0)) kind = pk;
        else kind = rcd_tree(&r->ctl, enc, m->flow[fc], 2, kind);
    }
    switch (kind) {
    case F_NEW: x->u = 1; x->pc = npc; break;
    case F_CONT: x->u = (int64_t)((uint64_t)p->u + 1); x->pc = p->pc; break;
    case F_REP: x->u = 1; x->pc = p->pc; break;
    default:
        x->u = (int64_t)(1 + (uint64_t)rcd_sint(&r->ctl, enc, m->xlen[0], m->xbits[0], (int64_t)((uint64_t)x->u - 1)));
        x->pc = npc + (uint64_t)rcd_sint(&r->ctl, enc, m->xlen[1], m->xbits[1], (int64_t)(x->pc - npc));
    }
    if (pe) pe->nh = (uint8_t)((pe->nh << 2 | kind) & 63);
    return kind;
}

/* 2. the entry of (x->pc, x->u), its hash key, and its static fields into
 * x; *fresh when the entry is new.  NULL on a corrupt stream. */
TRZ_FORCE_INLINE cent *line_entry(cm_t *m, cm_rc *r, const int enc, uop_t *x, uint32_t key, int *fresh)
{
    uint32_t tag = key | 1;
    cent *set = &m->tab[(key >> 7) & m->emask & ~1u], *e = set;
    *fresh = 0;
    if (set[0].tag == tag) set[0].mru = 0;
    else if (set[1].tag == tag) e = &set[1], set[0].mru = 1;
    else {
        *fresh = 1;
        e = &set[set[0].mru ^ 1];
        set[0].mru ^= 1;
    }
#ifdef UOP_STATS
    if (enc) { uop_st[0]++; uop_st[1] += *fresh; uop_st[3] += *fresh && e->tag; if (!*fresh) uop_st[2] += !static_same(m, e, x); }
#endif
    if (*fresh) {
        uint8_t mru = set[0].mru;
        memset(e, 0, sizeof *e);
        set[0].mru = mru;
        e->tag = tag;
        e->th = 6;
        /* an entry the member knows starts from its fact: one bit if it holds */
        if (m->know && fact_fill(m, e, x->pc, x->u)) {
            FLD(1);
            int miss = rcd_bit_s(&r->ctl, enc, &m->same[1], enc ? !static_same(m, e, x) : 0, 5);
            if (miss && code_static(m, &r->stat, enc, 1, e, x, x->pc, x->u)) return NULL;
        } else if (code_static(m, &r->stat, enc, 1, e, x, x->pc, x->u))
            return NULL;
        memcpy(m->micch[e->op[1]], e->ch, 3);
        m->micch[e->op[1]][3] = 1;
    } else {
        FLD(1);
        int miss = rcd_bit_s(&r->ctl, enc, &m->same[0], enc ? !static_same(m, e, x) : 0, 5);
        if (miss && code_static(m, &r->stat, enc, 0, e, x, x->pc, x->u)) return NULL;
    }
    x->ft = x->pc + (uint64_t)e->ftl;
    x->s[0] = e->s[0];
    x->s[1] = e->s[1];
    x->s[2] = e->s[2];
    x->imm = e->imm;
    x->immu = e->immu;
    x->ch[0] = e->ch[0];
    x->ch[2] = e->ch[2];
    x->op[0] = e->op[0];
    x->op[1] = e->op[1];
    return e;
}

/* 3. branch outcome: local and global histories, mixed; in a match, the
 * match's outcome too, with weights by its length. */
TRZ_FORCE_INLINE void line_branch(cm_t *m, cm_rc *r, const int enc, uop_t *x, cent *e, unsigned mlc, unsigned mctl)
{
    if (e->ch[1] == 'T') {
        uint32_t k = hash_key(x->pc, x->u);
        uint32_t il = (uint32_t)(hmix(k, e->lh & 0x3FF) >> 20) & m->bmask;
        uint32_t ig = (uint32_t)(hmix(k, m->gh & 0xFFFF) >> 24) & m->bmask;
        uint32_t is = (uint32_t)(hmix(k ^ 0x55, m->gh & 0x3F) >> 28) & m->bmask;
        int st[4] = { m->str[rc_p12(m->bl[il])], m->str[rc_p12(m->bg[ig])], m->str[rc_p12(m->bs[is])], 0 };
        u_mixw *w = &m->bw[(e->lh & 7) << 3 | (m->gh & 7)];
        rc_prob *mb = &m->mbr[mlc][mctl >> 2 & 1];
        if (mlc) {
            st[3] = m->str[rc_p12(*mb)];
            w = &m->mbw[mlc];
        }
        FLD(2);
        int t = u_mix_bit(&r->ctl, enc, w, st, mlc ? 4 : 3, enc ? x->ch[1] == 'T' : 0, 6);
        if (mlc) *mb = (rc_prob)rc_adapt(*mb, t, 4);
        m->bl[il] = (rc_prob)rc_adapt(m->bl[il], t, 4);
        m->bg[ig] = (rc_prob)rc_adapt(m->bg[ig], t, 4);
        m->bs[is] = (rc_prob)rc_adapt(m->bs[is], t, 4);
        e->lh = (uint16_t)(e->lh << 1 | t);
        m->gh = m->gh << 1 | (uint64_t)t;
        x->ch[1] = t ? 'T' : 'N';
    } else x->ch[1] = e->ch[1];
}

/* 4. target: its kind (zero, fall-through + imm, the return stack, the
 * entry's last, the indirect table, explicit) in the context of the
 * entry's last kind.  0, or -1 on a corrupt stream. */
TRZ_FORCE_INLINE int line_target(cm_t *m, cm_rc *r, const int enc, uop_t *x, cent *e, int fresh)
{
    uint64_t fti = x->ft + (uint64_t)x->imm;
    uint32_t ii = (uint32_t)(hmix(hash_key(x->pc, x->u), m->path) >> 32) & m->imask;
    unsigned tk = 0;
    if (enc) {
        uint64_t t = x->tgt;
        tk = t == 0 ? K_ZERO : t == fti ? K_FTIMM : (m->rsp && t == ras_top(m)) ? K_RAS
           : (!fresh && t == e->tgt) ? K_LAST : t == m->itab[ii] ? K_IND : K_EXPL;
    }
    FLD(3);
    unsigned tc = br_ctx(x->ch[1]) * 8 + e->th;
    if (e->th < 6 && !rcd_bit(&r->ctl, enc, &m->tk1[tc], enc ? tk != e->th : 0)) tk = e->th;
    else tk = rcd_tree(&r->ctl, enc, m->tk[tc], 3, tk);
    switch (tk) {
    case K_ZERO: x->tgt = 0; break;
    case K_FTIMM: x->tgt = fti; break;
    case K_RAS: if (!m->rsp) return -1; x->tgt = ras_top(m); break;
    case K_LAST: if (fresh) return -1; x->tgt = e->tgt; break;
    case K_IND: x->tgt = m->itab[ii]; break;
    case K_EXPL: x->tgt = x->pc + (uint64_t)rcd_sint(&r->ctl, enc, m->tlen, m->tbits, (int64_t)(x->tgt - x->pc)); break;
    default: return -1;
    }
    e->th = (uint8_t)tk;
    e->tgt = x->tgt;
    if (tk >= K_RAS) {
        m->itab[ii] = x->tgt;
        m->path = (m->path << 16 | (x->tgt & 0xFFFF)) & 0xFFFFFFFFFFFFull;
    }
    return 0;
}

/* 5. what every address teaches, however it was coded: which candidates
 * gave it (cand, valid), the length of its delta (alen, 0 for none), the
 * follower, stride and last address, the register base, the recent list. */
TRZ_FORCE_INLINE void addr_learn(cm_t *m, const uop_t *x, cent *e, const uint64_t *cand, const int *valid, uint32_t fi,
                                 unsigned ri, uint64_t a, uint8_t alen)
{
    for (int i = 0; i < 4; i++) e->ahc[i] = (uint8_t)(e->ahc[i] << 1 | (valid[i] && a == cand[i]));
    e->alen = alen;
    m->fol[fi] = a;
    int64_t sd = (int64_t)(a - e->last);
    e->stride = sd >= INT32_MIN && sd <= INT32_MAX ? (int32_t)sd : 0;
    e->last = a;
    m->rb[ri] = a - (uint64_t)x->imm;
    m->glob = a;
    recent_push(m, a);
}

/* 5a. the match's address: the entry learns as from a hit. */
TRZ_FORCE_INLINE void addr_match(cm_t *m, uop_t *x, cent *e, uint64_t mpred)
{
    uint64_t a = mpred;
    x->addr = a;
    uint32_t fi = (uint32_t)(hmix(hash_key(x->pc, x->u), e->last) >> 32) & m->fmask;
    unsigned ri = (unsigned)((uint64_t)x->s[0] & (NREG - 1));
    uint64_t cand[4] = { e->last + (uint64_t)e->stride, e->last, m->fol[fi], m->rb[ri] + (uint64_t)x->imm };
    int valid[4] = { e->last != 0, e->last != 0 && e->stride != 0, m->fol[fi] != 0, 1 };
    addr_learn(m, x, e, cand, valid, fi, ri, a, 0);
}

/* 5b. an address no candidate gave: its kind (0 a recent address, 1 last
 * + delta, 2 register base + imm + delta, 3 a recent address + delta),
 * then the recent address, the delta or both.  a: the encoder's address;
 * base: the register base + imm (cand[3]); *d: the delta coded. */
TRZ_FORCE_INLINE uint64_t addr_miss(cm_t *m, cm_rc *r, const int enc, const uop_t *x, cent *e, int fresh, uint64_t a,
                                    uint64_t base, int64_t *d)
{
    unsigned ri2 = 0, k = 0;
    if (enc) {
        k = 4;
        for (unsigned i = 0; i < RECENT_N; i++)
            if (a == m->recent[i]) { k = 0; ri2 = i; break; }
        if (k) {
            int64_t d1 = (int64_t)(a - e->last), d2 = (int64_t)(a - base);
            int b1 = e->last ? rc_bitlen64(d1 < 0 ? 0 - (uint64_t)d1 : (uint64_t)d1) : 99;
            int b2 = rc_bitlen64(d2 < 0 ? 0 - (uint64_t)d2 : (uint64_t)d2), b3 = 99;
            int64_t d3 = 0;
            for (unsigned i = 0; i < RECENT_N; i++) {
                int64_t dd = (int64_t)(a - m->recent[i]);
                int bb = rc_bitlen64(dd < 0 ? 0 - (uint64_t)dd : (uint64_t)dd) + 3;
                if (bb < b3) b3 = bb, d3 = dd, ri2 = i;
            }
            if (b1 <= b2 && b1 <= b3) k = 1, *d = d1;
            else if (b2 <= b3) k = 2, *d = d2;
            else k = 3, *d = d3;
        }
    }
    FLD(6);
    k = rcd_tree(&r->addr, enc, m->akind[(ls_ctx(x->ch[2]) * 2 + (unsigned)fresh) * 5 + e->ak], 2, k);
    e->ak = (uint8_t)(k + 1);
    if (k == 0 || k == 3) ri2 = rcd_tree(&r->addr, enc, m->arec[k == 3], 4, ri2);
    if (k == 0) return m->recent[ri2];
    unsigned dk = k - 1;
    unsigned lc = e->alen < 23 ? e->alen : 23;
    FLD(7);
    *d = rcd_sint(&r->addr, enc, m->alen[dk][lc], m->abits[dk], *d);
    return (k == 1 ? e->last : k == 2 ? base : m->recent[ri2]) + (uint64_t)*d;
}

/* 5c. the candidates in turn (stride, last, follower, register base +
 * imm), each a hit bit in the context of its own record at this entry,
 * skipping values already refused; then addr_miss. */
TRZ_FORCE_INLINE void addr_coded(cm_t *m, cm_rc *r, const int enc, uop_t *x, cent *e, int fresh)
{
    unsigned ri = (unsigned)((uint64_t)x->s[0] & (NREG - 1));
    uint32_t fi = (uint32_t)(hmix(hash_key(x->pc, x->u), e->last) >> 32) & m->fmask;
    uint64_t cand[4] = { e->last + (uint64_t)e->stride, e->last, m->fol[fi], m->rb[ri] + (uint64_t)x->imm };
    int valid[4] = { e->last != 0, e->last != 0 && e->stride != 0, m->fol[fi] != 0, 1 };
    uint64_t a = enc ? x->addr : 0;
    int sym = 4;
    FLD(5);
    for (int i = 0; i < 4; i++) {
        if (!valid[i]) continue;
        for (int j = 0; j < i; j++)
            if (valid[j] && cand[j] == cand[i]) valid[i] = 0;
        if (!valid[i]) continue;
        unsigned cx = (e->ahc[i] & 15) | (e->ahc[0] & 3) << 4 | (unsigned)fresh << 6;
        uint32_t k = hash_key(x->pc, x->u);
        rc_prob *q[3] = { &m->ahit[i][cx],
                          &m->ap[(uint32_t)(hmix(k + (uint64_t)i, e->ahc[i] & 63) >> 32) & m->apmask],
                          &m->ap[(uint32_t)(hmix(0x77 + (uint64_t)i, (m->gh & 0xFF) << 8 | (e->ahc[i] & 3)) >> 32) & m->apmask] };
        int st[3] = { m->str[rc_p12(*q[0])], m->str[rc_p12(*q[1])], m->str[rc_p12(*q[2])] };
        int hb = u_mix_bit(&r->addr, enc, &m->aw[i][e->ahc[i] & 3], st, 3, enc ? a == cand[i] : 0, 4);
        for (int j = 0; j < 3; j++) *q[j] = (rc_prob)rc_adapt(*q[j], hb, 4);
        if (hb) {
            sym = i;
            a = cand[i];
            break;
        }
    }
    int64_t d = 0;
    if (sym == 4) a = addr_miss(m, r, enc, x, e, fresh, a, cand[3], &d);
    x->addr = a;
    uint64_t ad = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
    addr_learn(m, x, e, cand, valid, fi, ri, a, (uint8_t)rc_bitlen64(ad));
}

/* 5. address: zero or not; then the match's address (chains), or the
 * candidates (addr_coded); then the match model moves on. */
TRZ_FORCE_INLINE void line_addr(cm_t *m, cm_rc *r, const int enc, uop_t *x, cent *e, uint32_t key, unsigned kind,
                                unsigned mon, unsigned mlc, int fresh)
{
    /* the match model's line, when its key is this line's */
    int mact = 0;
    uint64_t mpred = 0;
    if (mon) {
        uint32_t sl = (uint32_t)m->mptr & MH_MASK;
        if (m->mh_key[sl] == key) {
            mact = 1;
            mpred = m->mh_addr[sl];
        } else m->mlen = 0;
    }
    unsigned zc = ls_ctx(x->ch[2]) * 4 + (e->last != 0) * 2 + (unsigned)fresh;
    FLD(4);
    int nz = mact && mlc ? rcd_bit(&r->addr, enc, &m->maz[mlc][mpred != 0][ls_ctx(x->ch[2])], enc ? x->addr != 0 : 0)
                  : rcd_bit(&r->addr, enc, &m->az[zc], enc ? x->addr != 0 : 0);
    if (!nz) x->addr = 0;
    else if (mact && mlc && mpred && !(e->last && (mpred == e->last + (uint64_t)e->stride || mpred == e->last)) && /* else the candidates say it for less */
             rcd_bit(&r->addr, enc, &m->mhit[mlc][ls_ctx(x->ch[2])], enc ? x->addr == mpred : 0))
        addr_match(m, x, e, mpred);
    else
        addr_coded(m, r, enc, x, e, fresh);
    if (m->mh_addr) match_next(m, key, x->addr, (uint8_t)(kind | (x->ch[1] == 'T') << 2), mact && x->addr == mpred);
}

/* 6. the rest of the model: the return stack, the macro-op before, the
 * entry of the likeliest next line (ahead of its use), the line itself. */
TRZ_FORCE_INLINE void line_after(cm_t *m, const uop_t *x, cent *e)
{
    const uop_t *p = &m->prev;
    m->stored = (uint8_t)((x->u > 1 && x->pc == p->pc ? m->stored : 0) | (x->ch[2] == 'S'));
    if (x->ch[1] == 'T') {
        if (m->rsp && x->tgt == ras_top(m)) m->rsp--;
        else if (m->stored) m->ras[m->rsp++ & (RAS_N - 1)] = x->ft;
    }
    if (x->u == 1) m->hmac = p->op[0];
    {
        unsigned nk = e->nh & 3;
        m->npc = nk == F_NEW ? (x->ch[1] == 'T' ? x->tgt : x->ft) : x->pc;
        m->nu = nk == F_CONT ? (int64_t)((uint64_t)x->u + 1) : 1;
        m->nkey = hash_key(m->npc, m->nu);
        u_prefetch(&m->tab[(m->nkey >> 7) & m->emask & ~1u]);
    }
    m->prev = *x;
    m->pe = e;
}

/* One line, in the steps above.  Encoding: x holds the parsed line.
 * Decoding: x is filled (string pointers excepted).  Returns 0, or -1 on a
 * corrupt stream. */
TRZ_FORCE_INLINE int cm_line(cm_t *m, cm_rc *r, const int enc, uop_t *x)
{
    /* the match model's next line (chains): its flow kind and branch */
    unsigned mlc = 0, mctl = 0, mon = m->mh_addr && m->mlen;
    if (mon && m->mlen >= ML_MIN) {
        mlc = (unsigned)rc_bitlen64(m->mlen);
        mlc = mlc < ML_N ? mlc : ML_N - 1;
        mctl = m->mh_ctl[(uint32_t)m->mptr & MH_MASK];
    }
    unsigned kind = line_flow(m, r, enc, x, mlc, mctl);
    uint32_t key = x->pc == m->npc && x->u == m->nu ? m->nkey : hash_key(x->pc, x->u);
    int fresh;
    cent *e = line_entry(m, r, enc, x, key, &fresh);
    if (!e) return -1;
    line_branch(m, r, enc, x, e, mlc, mctl);
    if (line_target(m, r, enc, x, e, fresh)) return -1;
    line_addr(m, r, enc, x, e, key, kind, mon, mlc, fresh);
    line_after(m, x, e);
    return 0;
}

/* ---- encoder ------------------------------------------------------------------ */

static int strings_fit(const cm_t *m)
{
    for (int k = 0; k < 2; k++)
        if (m->dict[k].n + 2 > DICT_MAX || m->dict[k].used + 512 > ARENA_MAX) return 0;
    return 1;
}

static void put_escape(trz_buf *s, uint64_t gap, const uint8_t *p, size_t n)
{
    trz_put_uvarint(s, gap);
    trz_put_uvarint(s, n);
    trz_put_bytes(s, p, n);
}

int uop_cm_encode(const trz_enc_args *a, uop_cm **mp, int go_on, uint8_t *buf, uint64_t nlines, const layout_t *lay)
{
    cm_t *m = *mp = go_on && *mp ? *mp : uop_cm_open(*mp, nlines, a->know, 0, a->chain);
    if (!m) return TRZ_CODEC_NOMEM;
    trz_buf *st = a->streams;
    trz_put_u8(&st[UOP_S_CMVER], a->chain ? UOP_CM_VERSION_CHAIN : a->know ? UOP_CM_VERSION_KNOW : UOP_CM_VERSION);
    cm_rc r;
    rc_enc_init(&r.ctl, &st[UOP_S_CMCTL]);
    rc_enc_init(&r.stat, &st[UOP_S_CMSTAT]);
    rc_enc_init(&r.addr, &st[UOP_S_CMADDR]);
    const uint8_t *p = a->in, *end = a->in + a->len;
    uint64_t nesc = 0, since = 0;
    while (p < end) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        const uint8_t *le = nl ? nl + 1 : end;
        size_t n = (size_t)(le - p);
        uop_t x;
        int ok = n < UOP_MAX_LINE && uop_parse(lay, p, n, &x) == 0 && strings_fit(m) && fits(&x);
        if (ok) {
            size_t rn = uop_render(lay, &x, buf);
            ok = rn == n && memcmp(buf, p, n) == 0;
        }
        if (ok) {
            if (cm_line(m, &r, 1, &x)) { ok = 0; break; } /* cannot happen: the encoder's values are valid */
            since++;
        } else {
            put_escape(&st[UOP_S_ESC], since, p, n);
            since = 0;
            nesc++;
        }
        p = le;
    }
    int rc_ok = rc_enc_flush(&r.ctl) == 0 && rc_enc_flush(&r.stat) == 0 && rc_enc_flush(&r.addr) == 0;
    trz_buf *h = &st[UOP_S_HDR];
    layout_write(lay, h);
    trz_put_uvarint(h, nlines);
    trz_put_uvarint(h, nesc);
    trz_mark_coded(a, UOP_S_CMCTL);
    trz_mark_coded(a, UOP_S_CMSTAT);
    trz_mark_coded(a, UOP_S_CMADDR);
#ifdef UOP_STATS
    for (int i = 0; i < 18; i++) fprintf(stderr, "%s %.0f  ", fname[i], uop_cost[i] / 8);
    for (unsigned i = 0; i < m->dict[1].n; i++)
        if (uop_micc[i] > 800) fprintf(stderr, "\n  imm %.*s: n %ld bytes %.0f", m->dict[1].len[i], m->dict[1].arena + m->dict[1].off[i], uop_micn[i], uop_micc[i] / 8);
    memset(uop_micc, 0, sizeof uop_micc);
    memset(uop_micn, 0, sizeof uop_micn);
    memset(uop_cost, 0, sizeof uop_cost);
    fprintf(stderr, "evictions %ld lines %ld fresh %ld miss %ld | ctl %zu stat %zu addr %zu\n", uop_st[3], uop_st[0], uop_st[1], uop_st[2], st[UOP_S_CMCTL].n, st[UOP_S_CMSTAT].n, st[UOP_S_CMADDR].n);
    memset(uop_st, 0, sizeof uop_st);
#endif
    if (!rc_ok || p < end) return TRZ_CODEC_NOMEM;
    m->prev.sp[0] = m->prev.sp[1] = NULL; /* into the chunk's bytes: gone by a chain's next chunk */
    return TRZ_CODEC_OK;
}

/* ---- decoder ------------------------------------------------------------------ */

static int dec_escape(trz_rd *s, uint8_t **o, uint8_t *oe)
{
    uint64_t n = trz_get_uvarint(s);
    if (s->err || n > (uint64_t)(oe - *o)) return -1;
    const uint8_t *b = trz_get_bytes(s, (size_t)n);
    if (!b) return -1;
    memcpy(*o, b, (size_t)n);
    *o += n;
    return 0;
}

int uop_cm_decode(const trz_dec_args *a, uop_cm **mp, int go_on, uint8_t *buf, trz_rd *hdr, trz_rd *esc,
                  const layout_t *lay, uint64_t nlines, uint64_t nesc)
{
    /* version 2 decodes with the member's facts; version 1 without, also in
     * a member with knowledge (where join puts it, as a group of its own) */
    int ver = a->stream_len[UOP_S_CMVER] == 1 ? a->stream[UOP_S_CMVER][0] : 0;
    if (a->chain ? ver != UOP_CM_VERSION_CHAIN : ver != UOP_CM_VERSION && !(ver == UOP_CM_VERSION_KNOW && a->know))
        return TRZ_CODEC_UNSUPPORTED;
    (void)hdr;
    cm_t *m = *mp = go_on && *mp ? *mp : uop_cm_open(*mp, nlines, ver == UOP_CM_VERSION_KNOW ? a->know : NULL, 0, a->chain);
    if (!m) return TRZ_CODEC_NOMEM;
    cm_rc r;
    rc_dec_init(&r.ctl, a->stream[UOP_S_CMCTL], a->stream_len[UOP_S_CMCTL]);
    rc_dec_init(&r.stat, a->stream[UOP_S_CMSTAT], a->stream_len[UOP_S_CMSTAT]);
    rc_dec_init(&r.addr, a->stream[UOP_S_CMADDR], a->stream_len[UOP_S_CMADDR]);
    uint8_t *o = a->out, *oe = a->out + a->len;
    int rv = 0;
    uint64_t next_esc = nesc ? trz_get_uvarint(esc) : UINT64_MAX;
    for (uint64_t i = 0; i < nlines; i++) {
        if (next_esc == 0) {
            if (dec_escape(esc, &o, oe)) { rv = -1; break; }
            next_esc = --nesc ? trz_get_uvarint(esc) : UINT64_MAX;
            continue;
        }
        next_esc--;
        uop_t x;
        if (cm_line(m, &r, 0, &x)) { rv = -1; break; }
        for (int k = 0; k < 2; k++) {
            x.sp[k] = m->dict[k].arena + m->dict[k].off[x.op[k]];
            x.sl[k] = m->dict[k].len[x.op[k]];
        }
        size_t left = (size_t)(oe - o);
        if (left >= UOP_MAX_LINE) o += uop_render(lay, &x, o);
        else {
            size_t n = uop_render(lay, &x, buf);
            if (n > left) { rv = -1; break; }
            memcpy(o, buf, n);
            o += n;
        }
        if ((i & 1023) == 0 && (rc_dec_bad(&r.ctl) || rc_dec_bad(&r.stat) || rc_dec_bad(&r.addr) || esc->err)) {
            rv = -1;
            break;
        }
    }
    if (!rv && (esc->err || o != oe || nesc != 0 || !rc_dec_ok(&r.ctl) || !rc_dec_ok(&r.stat) ||
                !rc_dec_ok(&r.addr)))
        rv = -1;
    return rv == 0 ? TRZ_CODEC_OK : TRZ_CODEC_CORRUPT;
}

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
