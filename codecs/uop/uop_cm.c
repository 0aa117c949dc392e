/* uop_cm.c - the uop codec's context model (variant 1): every field of a
 * line is coded as decisions of the shared range coder in the contexts that
 * decide it.  Flow, static-field checks, branch outcomes and targets go to
 * one range-coded stream, the fields of instructions seen for the first
 * time to a second, memory addresses to a third.  The model is written
 * once (cm_line, in named steps: line_flow, line_entry, line_branch,
 * line_target, line_addr, line_after) and inlined into the encoder's and
 * the decoder's loops, each with the direction a constant; the coder of
 * first-seen fields is uop_cm_fields.h, which the knowledge stream
 * (uop_cm_know.c) shares.  Set-up is in uop_cm_model.c, learn in
 * uop_learn.c, what they share in uop_cm_int.h.  Spec: uop.md, "Context model". */
#include "uop_cm.h"
#include "uop_cm_fields.h"

#ifdef UOP_STATS
long uop_st[8];
double uop_cost[32];
double uop_micc[4096];
long uop_micn[4096];
int uop_field;
#endif

/* ---- the model of one line --------------------------------------------------- */

typedef struct {
    rc ctl, stat, addr;
} cm_rc;


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
