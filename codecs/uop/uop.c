/* uop.c - codec for UPenn (CIS 501) micro-op text traces: 14 whitespace
 * separated fields per line.  The column layout is learned per chunk, lines
 * are parsed into typed fields and predicted from PC-keyed models; any line
 * that does not re-render byte for byte is escaped verbatim.  See uop.md. */
#include "../codec.h"
#include "../common/compiler.h"
#include "uop_fmt.h"
#include "uop_cm.h"
#include "uop_dict.h"
#include "uop_know.h"

/* ---- streams ------------------------------------------------------------ */

enum {
    S_HDR, S_ESC, S_CTL, S_FLOW, S_MASK, S_LEN, S_TGT, S_REG, S_CHR, S_IMM,
    S_OPC, S_STR, S_ADDR, S_COUNT
};

static const char *const stream_names[UOP_S_ALL] = {
    "header", "escapes", "ctl", "flow", "tmask", "insn_len", "target",
    "regs", "chars", "imm", "opcode", "strings", "addr",
    "cm_version", "cm_ctl", "cm_static", "cm_addr",
};

static const char *uop_stream_name(unsigned id)
{
    return id < UOP_S_ALL ? stream_names[id] : NULL;
}

/* ctl byte per modelled line */
#define CTL_FLOW_MASK 3u   /* j<3: flow kind (first+j)%3; 3: explicit */
enum { F_NEW = 0, F_CONT = 1, F_REP = 2 };
#define CTL_TMISS 4u       /* static tuple differs: mask byte in S_MASK */
#define CTL_BMISS 8u       /* branch outcome differs from prediction */
#define CTL_ASHIFT 4       /* address code in bits 4..6 */
#define CTL_MAC 0x80u      /* macro-op index coded in S_OPC */

/* tuple mask bits */
enum { TM_LEN = 1, TM_TGT = 2, TM_S1 = 4, TM_S2 = 8, TM_D = 16, TM_CHR = 32, TM_IMM = 64, TM_MIC = 128 };

/* address codes */
enum { A_STRIDE = 0, A_LAST = 1, A_DLAST = 2, A_DGLOB = 3, A_RECENT = 4, A_GOFF = 5 };
#define RECENT_N 4

/* target kinds */
enum { T_ZERO = 0, T_FTIMM = 1, T_DPC = 2, T_RAS = 3 };

/* ---- model state -------------------------------------------------------- */

typedef struct {
    uint64_t pc, tgt, last;
    int64_t u, ftl, s[3], imm, stride, goff;
    uint32_t op[2];
    uint8_t ch[3], immu, ctr, next;
    uint8_t known;       /* fresh, filled from the group's fact */
    /* decoder: the entry's last line as rendered (its rlen bytes in the
     * render cache, 0: none), where its address column lies, its branch
     * character */
    uint8_t rlen, raoff, ralen, rch1, rdig;
} ent_t;

/* Template per (macro-op, uop index): the static fields last seen with it,
 * the starting guess for a PC seen for the first time. */
typedef struct {
    int64_t u, ftl, s[3], imm, goff;
    uint64_t tgt;
    uint32_t mac, mic;
    uint8_t ch[3], immu, tkind, next, used;
    const void *owner;   /* decoder: the entry whose line wrote it last */
} tmpl_t;

#define TMPL_BITS 12
#define RAS_N 16

/* The blocks of the streams variant's tables, kept from chunk to chunk. */
enum { MB_TAB, MB_USED, MB_TMPL, MB_AR0, MB_AR1, MB_N };

typedef struct {
    uop_block blk[MB_N];
    ent_t *tab;          /* not cleared: a claim sets every field read after it */
    uint8_t *used;       /* per entry of tab: 1 once claimed */
    tmpl_t *tmpl;
    uint32_t tmask;
    uop_dict dict[2];
    uop_t prev;          /* the previous modelled line */
    ent_t *pe;           /* its entry */
    tmpl_t *pt;          /* its template */
    uint64_t glob;       /* last non-zero memory address */
    uint64_t recent[RECENT_N];
    uint64_t ras[RAS_N];
    unsigned rsp;
    uint8_t stored;      /* the current instruction had a store micro-op */
    const trz_know *know; /* the member's facts, or NULL */
} model_t;

/* m ready for a chunk of nlines lines, its tables in the blocks the chunk
 * before left where they fit.  0, or -1 on no memory. */
static int model_init(model_t *m, uint64_t nlines, const trz_know *know)
{
    uop_block blk[MB_N];
    memcpy(blk, m->blk, sizeof blk);
    memset(m, 0, sizeof *m);
    memcpy(m->blk, blk, sizeof blk);
    unsigned bits = 10;
    while (bits < 16 && ((uint64_t)1 << bits) < nlines * 2) bits++;
    m->tmask = (1u << bits) - 1;
    m->tab = uop_block_get(&m->blk[MB_TAB], ((size_t)1 << bits) * sizeof(ent_t), 0);
    m->used = uop_block_get(&m->blk[MB_USED], (size_t)1 << bits, 1);
    m->tmpl = uop_block_get(&m->blk[MB_TMPL], ((size_t)1 << TMPL_BITS) * sizeof(tmpl_t), 1);
    m->dict[0].arena = uop_block_arena(&m->blk[MB_AR0], ARENA_MAX);
    m->dict[1].arena = uop_block_arena(&m->blk[MB_AR1], ARENA_MAX);
    if (!m->tab || !m->used || !m->tmpl || !m->dict[0].arena || !m->dict[1].arena) return -1;
    m->prev.ch[0] = m->prev.ch[1] = m->prev.ch[2] = '-';
    m->know = know;
    if (know) uk_dicts(m->dict, know);
    return 0;
}

static void model_free(model_t *m)
{
    for (int i = 0; i < MB_N; i++) uop_block_free(&m->blk[i]);
}

/* At a chunk's end: the previous line's strings point into the chunk's
 * bytes, gone by the next chunk (the model reads their indices only). */
static void chain_keep(model_t *m)
{
    m->prev.sp[0] = m->prev.sp[1] = NULL;
    m->prev.sl[0] = m->prev.sl[1] = 0;
}

/* Levels (codec.h, "Levels"): the variant, and the form of the knowledge
 * stream (know_encode). */
typedef struct uop_level {
    uint8_t variant;    /* index into uop_variants */
    uint8_t know_range; /* 1: range-coded; 0: the byte form, which the fast levels' readers decode
                           without a range coder */
} uop_level;
TRZ_LEVEL_ROW(uop_level);

/* The codec's model (trz_model): each variant's state, kept from chunk to
 * chunk (each chunk sets up what it uses). */
typedef struct uop_model {
    const uop_level *lv;        /* the level's row (row 0 when decoding) */
    model_t zs;                 /* the streams variant's */
    uop_block rtext;            /* its decoder's render cache (dec_run) */
    uop_cm *cm;                 /* the range variant's, made at its first chunk */
    /* In a chain (codec.h, "Chains"): 1 while the variant's state is the
     * chain's so far, so the next chunk of that variant goes on from it; 0
     * after a reset and once a chunk of the other variant was coded, so the
     * next one starts it as at a group's first chunk (uop.md, "Chains"). */
    uint8_t zs_live, cm_live;
    uint8_t line[UOP_MAX_LINE]; /* scratch: a line rendered */
} uop_model;

static inline uint32_t hash_key(uint64_t pc, int64_t u)
{
    uint64_t h = (pc ^ ((uint64_t)u << 56) ^ (uint64_t)u) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(h >> 40);
}

static inline int is_tn(uint8_t c) { return c == 'T' || c == 'N'; }

static inline uint8_t tgt_kind(uint64_t tgt, uint64_t ft, int64_t imm)
{
    return tgt == 0 ? T_ZERO : tgt == ft + (uint64_t)imm ? T_FTIMM : T_DPC;
}

static inline tmpl_t *tmpl_of(const model_t *m, uint32_t mac, int64_t u)
{
    return &m->tmpl[hash_key(mac, u) >> (24 - TMPL_BITS) & ((1u << TMPL_BITS) - 1)];
}

/* A claimed entry from the group's facts (uop.md, "Knowledge"): its
 * address fact as its last address and, with an entry fact, its static
 * fields and the flow kind likely to follow it. */
static void know_fill(const model_t *m, ent_t *e)
{
    uk_static v;
    e->last = uk_addr(m->know, e->pc, e->u);
    if (!uk_entry(m->know, m->dict, e->pc, e->u, &v)) return;
    e->known = 1;
    e->op[0] = v.op[0];
    e->op[1] = v.op[1];
    e->ftl = v.ftl;
    for (int i = 0; i < 3; i++) e->s[i] = v.s[i];
    e->imm = v.imm;
    e->immu = v.immu;
    memcpy(e->ch, v.ch, 3);
    e->next = uk_more(m->know, e->pc, e->u) ? F_CONT : F_NEW;
}

/* Claim e for (pc, u). */
static void entry_claim(model_t *m, ent_t *e, uint64_t pc, int64_t u)
{
    m->used[e - m->tab] = 1;
    e->pc = pc;
    e->u = u;
    e->rlen = 0;
    e->op[0] = m->prev.op[0]; /* a later micro-op shares the macro-op */
    e->last = 0;
    e->stride = 0;
    e->goff = 0;
    e->known = 0;
    if (m->know) know_fill(m, e);
}

/* Look up / claim the entry for (pc, u); *fresh = 1 when claimed. */
static inline ent_t *entry_get(model_t *m, uint64_t pc, int64_t u, int *fresh)
{
    uint32_t i = hash_key(pc, u) & m->tmask;
    ent_t *e = &m->tab[i];
    *fresh = !(m->used[i] && e->pc == pc && e->u == u);
    if (*fresh) entry_claim(m, e, pc, u);
    return e;
}

/* Fill a fresh entry's static fields (except the target, which depends on
 * the final length and immediate) from the template of its macro-op, or from
 * the previous line when the macro-op was never seen at this uop index. */
static const tmpl_t *entry_fill(model_t *m, ent_t *e)
{
    const uop_t *p = &m->prev;
    const tmpl_t *t = tmpl_of(m, e->op[0], e->u);
    int same_insn = p->pc == e->pc && e->u > 1, has = t->used && t->mac == e->op[0] && t->u == e->u;
    if (e->known) { /* the fact holds the static fields; the template still guesses the target */
        e->goff = has ? t->goff : 0;
        return has ? t : NULL;
    }
    if (!has) {
        e->ftl = (int64_t)(p->ft - p->pc);
        memcpy(e->s, p->s, sizeof e->s);
        e->imm = p->imm;
        e->immu = p->immu;
        e->op[1] = p->op[1];
        memcpy(e->ch, p->ch, 3);
        e->next = F_NEW;
        return NULL;
    }
    e->ftl = same_insn ? (int64_t)(p->ft - p->pc) : t->ftl;
    memcpy(e->s, t->s, sizeof e->s);
    e->imm = t->imm;
    e->immu = t->immu;
    e->op[1] = t->mic;
    memcpy(e->ch, t->ch, 3);
    e->next = t->next;
    e->goff = t->goff;
    return t;
}

static inline uint64_t fresh_tgt(const tmpl_t *t, uint64_t ft, int64_t imm)
{
    if (!t) return 0;
    return t->tkind == T_ZERO ? 0 : t->tkind == T_FTIMM ? ft + (uint64_t)imm : t->tgt;
}

/* Flow: the next line is micro-op 1 at the fall-through / taken target
 * (F_NEW), the next micro-op of the same instruction (F_CONT), or micro-op 1
 * of the same instruction again (F_REP, x86 rep prefixes).  Each entry
 * remembers which one followed it last time. */
static inline void flow_cand(const model_t *m, unsigned kind, int64_t *u, uint64_t *pc)
{
    const uop_t *p = &m->prev;
    if (kind == F_CONT) { *u = (int64_t)((uint64_t)p->u + 1); *pc = p->pc; }
    else if (kind == F_REP) { *u = 1; *pc = p->pc; }
    else { *u = 1; *pc = p->ch[1] == 'T' ? p->tgt : p->ft; }
}

static inline unsigned flow_first(const model_t *m) { return m->pe ? m->pe->next : F_NEW; }

static inline void flow_learn(model_t *m, unsigned kind)
{
    if (m->pe) m->pe->next = (uint8_t)kind;
    if (m->pt) m->pt->next = (uint8_t)kind;
}

static inline uint64_t new_pc_pred(const model_t *m)
{
    return m->prev.ch[1] == 'T' ? m->prev.tgt : m->prev.ft;
}

static inline uint8_t ctr_pred(uint8_t ctr) { return ctr >= 2 ? 'T' : 'N'; }
static inline uint8_t ctr_upd(uint8_t ctr, uint8_t br)
{
    if (br == 'T') return ctr < 3 ? ctr + 1 : 3;
    return ctr > 0 ? ctr - 1 : 0;
}

/* Return-address stack: an instruction that stores and then branches taken
 * is a call (it pushed its fall-through); a return's target is the top. */
static inline uint64_t ras_top(const model_t *m) { return m->ras[(m->rsp - 1) & (RAS_N - 1)]; }

static void recent_push(model_t *m, uint64_t a)
{
    if (m->recent[0] == a) return;
    memmove(m->recent + 1, m->recent, (RECENT_N - 1) * sizeof m->recent[0]);
    m->recent[0] = a;
}

/* After a line: address predictor, branch counter, RAS, template, globals.
 * same (decoder only): the line's static fields are its entry's of its
 * line before, so a template that line wrote differs only in what varies. */
TRZ_FORCE_INLINE void post_line(model_t *m, ent_t *e, const uop_t *x, int same)
{
    e->stride = (int64_t)(x->addr - e->last);
    e->last = x->addr;
    e->goff = (int64_t)(x->addr - m->glob);
    if (x->addr) {
        m->glob = x->addr;
        recent_push(m, x->addr);
    }
    if (is_tn(x->ch[1])) e->ctr = ctr_upd(e->ctr, x->ch[1]);
    m->stored = (uint8_t)((x->u > 1 && x->pc == m->prev.pc ? m->stored : 0) | (x->ch[2] == 'S'));
    if (x->ch[1] == 'T') {
        if (x->tgt == ras_top(m) && m->rsp) m->rsp--;
        else if (m->stored) m->ras[m->rsp++ & (RAS_N - 1)] = x->ft;
    }
    tmpl_t *t = tmpl_of(m, x->op[0], x->u);
    if (same && t->owner == e) {
        t->ch[1] = x->ch[1];
        goto rest;
    }
    t->owner = e;
    t->used = 1;
    t->mac = x->op[0];
    t->u = x->u;
    t->ftl = (int64_t)(x->ft - x->pc);
    memcpy(t->s, x->s, sizeof t->s);
    t->imm = x->imm;
    t->immu = x->immu;
    t->mic = x->op[1];
    memcpy(t->ch, x->ch, 3);
    t->tkind = tgt_kind(x->tgt, x->ft, x->imm);
    t->tgt = x->tgt;
rest:
    t->next = e->next;
    t->goff = e->goff;
    m->prev = *x;
    m->pe = e;
    m->pt = t;
}

/* Immediate: zigzag + 1; 0 escapes to [form byte][raw uvarint] for values
 * printed unsigned (above INT64_MAX) and for INT64_MIN. */
static void put_imm(trz_buf *b, const uop_t *x)
{
    if (x->immu || x->imm == INT64_MIN) {
        trz_put_u8(b, 0);
        trz_put_u8(b, x->immu);
        trz_put_uvarint(b, (uint64_t)x->imm);
    } else trz_put_uvarint(b, trz_zigzag(x->imm) + 1);
}

static int get_imm(trz_rd *r, ent_t *e)
{
    uint64_t v = trz_get_uvarint(r);
    if (v) { e->imm = trz_unzigzag(v - 1); e->immu = 0; return 0; }
    uint8_t f = trz_get_u8(r);
    if (f > 1) return -1;
    e->immu = f;
    e->imm = (int64_t)trz_get_uvarint(r);
    return 0;
}

/* ---- encoder ------------------------------------------------------------ */

typedef struct {
    const trz_enc_args *a;
    model_t *m;
    layout_t lay;
} enc_t;

static void put_str_field(enc_t *c, int k, const uint8_t *s, size_t n, uint32_t *idx)
{
    uop_dict *d = &c->m->dict[k];
    uint32_t slot = 0; /* set by dict_find; some -O levels cannot see it */
    int i = dict_find(d, s, n, &slot);
    if (i < 0) {
        i = dict_add(d, s, n);
        d->hash[slot] = (uint16_t)(i + 1);
        trz_put_u8(&c->a->streams[S_STR], (uint8_t)n);
        trz_put_bytes(&c->a->streams[S_STR], s, n);
    }
    trz_put_uvarint(&c->a->streams[S_OPC], (uint64_t)i);
    *idx = (uint32_t)i;
}

/* Dictionary room for two more strings (else the line is escaped). */
static int strings_fit(const model_t *m)
{
    for (int k = 0; k < 2; k++)
        if (m->dict[k].n + 2 > DICT_MAX || m->dict[k].used + 512 > ARENA_MAX) return 0;
    return 1;
}

static int same_str(const uop_dict *d, uint32_t i, const uint8_t *s, size_t n)
{
    return i < d->n && d->len[i] == n && memcmp(d->arena + d->off[i], s, n) == 0;
}

static void enc_target(enc_t *c, ent_t *e, const uop_t *x)
{
    trz_buf *t = &c->a->streams[S_TGT];
    uint8_t k = tgt_kind(x->tgt, x->ft, x->imm);
    if (k == T_DPC && x->tgt == ras_top(c->m)) k = T_RAS;
    trz_put_u8(t, k);
    if (k == T_DPC) trz_put_svarint(t, (int64_t)(x->tgt - x->pc));
    e->tgt = x->tgt;
}

/* Static tuple: returns the mask of fields that differ and writes them. */
static unsigned enc_tuple(enc_t *c, ent_t *e, const tmpl_t *t, int fresh, const uop_t *x, int *bmiss)
{
    trz_buf *st = c->a->streams;
    unsigned mask = 0;
    int64_t ftl = (int64_t)(x->ft - x->pc);
    if (fresh) e->tgt = fresh_tgt(t, x->ft, x->imm);
    if (ftl != e->ftl) mask |= TM_LEN;
    if (x->tgt != e->tgt) mask |= TM_TGT;
    if (x->s[0] != e->s[0]) mask |= TM_S1;
    if (x->s[1] != e->s[1]) mask |= TM_S2;
    if (x->s[2] != e->s[2]) mask |= TM_D;
    if (x->ch[0] != e->ch[0] || x->ch[2] != e->ch[2] ||
        !(x->ch[1] == e->ch[1] || (is_tn(x->ch[1]) && is_tn(e->ch[1]))))
        mask |= TM_CHR;
    if (x->imm != e->imm || x->immu != e->immu) mask |= TM_IMM;
    if (!same_str(&c->m->dict[1], e->op[1], x->sp[1], x->sl[1])) mask |= TM_MIC;
    if (mask) trz_put_u8(&st[S_MASK], (uint8_t)mask);
    if (mask & TM_LEN) { trz_put_svarint(&st[S_LEN], ftl); e->ftl = ftl; }
    if (mask & TM_IMM) { put_imm(&st[S_IMM], x); e->imm = x->imm; e->immu = x->immu; }
    for (int i = 0; i < 3; i++)
        if (mask & (TM_S1 << i)) { trz_put_svarint(&st[S_REG], x->s[i]); e->s[i] = x->s[i]; }
    if (mask & TM_CHR) {
        trz_put_bytes(&st[S_CHR], x->ch, 3);
        memcpy(e->ch, x->ch, 3);
        e->ctr = x->ch[1] == 'T' ? 2 : 1;
    } else if (fresh) e->ctr = x->tgt <= x->pc ? 2 : 1; /* backward taken */
    if (mask & TM_MIC) put_str_field(c, 1, x->sp[1], x->sl[1], &e->op[1]);
    if (mask & TM_TGT) enc_target(c, e, x);
    /* the outcome is coded against the counter unless the chars are new */
    *bmiss = !(mask & TM_CHR) && is_tn(x->ch[1]) && x->ch[1] != ctr_pred(e->ctr);
    return mask;
}

static unsigned enc_addr(enc_t *c, const ent_t *e, const uop_t *x)
{
    trz_buf *s = &c->a->streams[S_ADDR];
    uint64_t a = x->addr;
    if (a == e->last + (uint64_t)e->stride) return A_STRIDE;
    if (a == e->last) return A_LAST;
    if (a == c->m->glob + (uint64_t)e->goff) return A_GOFF;
    for (int i = 0; i < RECENT_N; i++)
        if (a == c->m->recent[i]) { trz_put_u8(s, (uint8_t)i); return A_RECENT; }
    int64_t d1 = (int64_t)(a - e->last), d2 = (int64_t)(a - c->m->glob);
    if (trz_zigzag(d1) <= trz_zigzag(d2)) { trz_put_svarint(s, d1); return A_DLAST; }
    trz_put_svarint(s, d2);
    return A_DGLOB;
}

static void enc_line(enc_t *c, uop_t *x)
{
    model_t *m = c->m;
    trz_buf *st = c->a->streams;
    int64_t pu;
    uint64_t ppc;
    unsigned ctl, first = flow_first(m);
    for (ctl = 0; ctl < 3; ctl++) {
        flow_cand(m, (first + ctl) % 3, &pu, &ppc);
        if (pu == x->u && ppc == x->pc) break;
    }
    if (ctl == 3) {
        trz_put_svarint(&st[S_FLOW], (int64_t)((uint64_t)x->u - 1));
        trz_put_svarint(&st[S_FLOW], (int64_t)(x->pc - new_pc_pred(m)));
    } else flow_learn(m, (first + ctl) % 3);
    int fresh, bmiss;
    ent_t *e = entry_get(m, x->pc, x->u, &fresh);
    if (!same_str(&m->dict[0], e->op[0], x->sp[0], x->sl[0])) {
        ctl |= CTL_MAC;
        put_str_field(c, 0, x->sp[0], x->sl[0], &e->op[0]);
    }
    const tmpl_t *t = fresh ? entry_fill(m, e) : NULL;
    if (enc_tuple(c, e, t, fresh, x, &bmiss)) ctl |= CTL_TMISS;
    if (bmiss) ctl |= CTL_BMISS;
    x->op[0] = e->op[0];
    x->op[1] = e->op[1];
    ctl |= enc_addr(c, e, x) << CTL_ASHIFT;
    trz_put_u8(&st[S_CTL], (uint8_t)ctl);
    post_line(m, e, x, 0);
}

static void put_escape(enc_t *c, uint64_t gap, const uint8_t *p, size_t n)
{
    trz_buf *s = &c->a->streams[S_ESC];
    trz_put_uvarint(s, gap);
    trz_put_uvarint(s, n);
    trz_put_bytes(s, p, n);
}

/* The streams variant's encoder (with the model's streams state). */
static int zs_encode_with(const trz_enc_args *a, uop_model *um)
{
    enc_t cc, *c = &cc;
    uint8_t *buf = um->line;
    const uint8_t *p = a->in, *end = a->in + a->len;
    uint64_t nlines = 0;
    for (const uint8_t *q = p; q < end; nlines++) {
        const uint8_t *nl = memchr(q, '\n', (size_t)(end - q));
        q = nl ? nl + 1 : end;
    }
    c->m = &um->zs;
    int go_on = a->chain && um->zs_live;
    um->zs_live = um->cm_live = 0;
    if (!go_on && model_init(c->m, nlines, a->know) != 0) return TRZ_CODEC_NOMEM;
    c->a = a;
    layout_learn(&c->lay, a->in, a->len);
    uint64_t nesc = 0, since = 0;
    while (p < end) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        const uint8_t *le = nl ? nl + 1 : end;
        size_t n = (size_t)(le - p);
        uop_t x;
        int ok = n < UOP_MAX_LINE && uop_parse(&c->lay, p, n, &x) == 0 && strings_fit(c->m);
        if (ok) {
            size_t r = uop_render(&c->lay, &x, buf);
            ok = r == n && memcmp(buf, p, n) == 0;
        }
        if (ok) { enc_line(c, &x); since++; }
        else { put_escape(c, since, p, n); since = 0; nesc++; }
        p = le;
    }
    trz_buf *h = &a->streams[S_HDR];
    layout_write(&c->lay, h);
    trz_put_uvarint(h, nlines);
    trz_put_uvarint(h, nesc);
    for (int i = 0; i < S_COUNT; i++)
        if (a->streams[i].oom) return TRZ_CODEC_NOMEM;
    chain_keep(c->m);
    um->zs_live = (uint8_t)(a->chain != 0);
    return TRZ_CODEC_OK;
}

/* Chunks below this size are encoded both ways and the smaller kept: there
 * the context model's tables have little to learn from.  Above it the
 * context model is always smaller (uop.md, design notes). */
#define UOP_TRY_BOTH (256u << 10)

static size_t streams_size(const trz_enc_args *a, const trz_buf *s, uint64_t coded)
{
    size_t n = 0;
    for (unsigned i = 0; i < UOP_S_ALL; i++) {
        if (!s[i].n) continue;
        if (coded >> i & 1) n += s[i].n;
        else n += a->packed_size ? a->packed_size(a->packer, s[i].p, s[i].n, a->level) : s[i].n;
    }
    return n;
}

static int zs_encode(const trz_enc_args *a, trz_model *tm) { return zs_encode_with(a, (uop_model *)tm); }

/* The range variant's encoder: the context model, or below UOP_TRY_BOTH the
 * streams variant where that comes out smaller. */
static int cm_encode(const trz_enc_args *a, trz_model *tm)
{
    uop_model *um = (uop_model *)tm;
    uint64_t nlines = 0;
    const uint8_t *end = a->in + a->len;
    for (const uint8_t *q = a->in; q < end; nlines++) {
        const uint8_t *nl = memchr(q, '\n', (size_t)(end - q));
        q = nl ? nl + 1 : end;
    }
    layout_t lay;
    layout_learn(&lay, a->in, a->len);
    uint64_t coded = 0;
    trz_enc_args b = *a;
    b.coded = &coded;
    int go_on = a->chain && um->cm_live;
    um->cm_live = 0;
    int rc = uop_cm_encode(&b, &um->cm, go_on, um->line, nlines, &lay);
    if (rc != TRZ_CODEC_OK || a->len >= UOP_TRY_BOTH) {
        if (a->coded) *a->coded |= coded;
        um->cm_live = (uint8_t)(rc == TRZ_CODEC_OK && a->chain);
        um->zs_live = 0;
        return rc;
    }
    /* a trial of the streams variant; in a chain it goes on from that
     * variant's state, as its decoder would */
    trz_buf alt[TRZ_MAX_STREAMS];
    memset(alt, 0, sizeof alt);
    b.streams = alt;
    b.coded = NULL;
    int rz = zs_encode_with(&b, um);
    int zs = rz == TRZ_CODEC_OK && streams_size(a, alt, 0) < streams_size(a, a->streams, coded);
    if (zs) {
        for (unsigned i = 0; i < TRZ_MAX_STREAMS; i++) {
            trz_buf t = a->streams[i];
            a->streams[i] = alt[i];
            alt[i] = t;
        }
        coded = 0;
    }
    /* the chain goes on with the variant kept; the other starts afresh */
    um->zs_live = (uint8_t)(zs && a->chain); /* zs: rz was TRZ_CODEC_OK */
    um->cm_live = (uint8_t)(!zs && a->chain);
    for (unsigned i = 0; i < TRZ_MAX_STREAMS; i++) free(alt[i].p);
    if (a->coded) *a->coded |= coded;
    return TRZ_CODEC_OK;
}

/* ---- decoder ------------------------------------------------------------ */

/* The render cache: a line whose entry kept its static fields and its
 * branch outcome differs from the entry's last one only in the address
 * column, so the decoder copies that line and renders the column alone
 * (most lines: rendering all 14 columns was most of the decoding time). */
#define RC_W 128 /* bytes kept per entry; longer lines are always rendered */

typedef struct {
    trz_rd r[S_COUNT];
    model_t *m;
    layout_t lay;
    uint8_t *rtext; /* RC_W bytes per entry of m->tab */
} dec_t;

static int get_str_field(dec_t *c, int k, uint32_t *idx)
{
    uop_dict *d = &c->m->dict[k];
    uint64_t i = trz_get_uvarint(&c->r[S_OPC]);
    if (i == d->n) {
        trz_rd *s = &c->r[S_STR];
        uint8_t n = trz_get_u8(s);
        const uint8_t *b = trz_get_bytes(s, n);
        if (!b || dict_add(d, b, n) < 0) return -1;
    } else if (i > d->n) return -1;
    *idx = (uint32_t)i;
    return 0;
}

static int dec_target(dec_t *c, ent_t *e, const uop_t *x)
{
    trz_rd *t = &c->r[S_TGT];
    switch (trz_get_u8(t)) {
    case T_ZERO: e->tgt = 0; break;
    case T_FTIMM: e->tgt = x->ft + (uint64_t)e->imm; break;
    case T_RAS: e->tgt = ras_top(c->m); break;
    case T_DPC: e->tgt = x->pc + (uint64_t)trz_get_svarint(t); break;
    default: return -1;
    }
    return 0;
}

/* Mirror of enc_tuple; returns the mask or -1. */
static int dec_tuple(dec_t *c, ent_t *e, const tmpl_t *t, int fresh, unsigned ctl, uop_t *x)
{
    unsigned mask = 0;
    if (ctl & CTL_TMISS) {
        mask = trz_get_u8(&c->r[S_MASK]);
        if (!mask) return -1;
    }
    if (mask) { /* most lines: none of the fields differ */
        if (mask & TM_LEN) e->ftl = trz_get_svarint(&c->r[S_LEN]);
        if ((mask & TM_IMM) && get_imm(&c->r[S_IMM], e)) return -1;
        for (int i = 0; i < 3; i++)
            if (mask & (TM_S1 << i)) e->s[i] = trz_get_svarint(&c->r[S_REG]);
    }
    x->ft = x->pc + (uint64_t)e->ftl;
    if (fresh) e->tgt = fresh_tgt(t, x->ft, e->imm);
    if (mask) {
        if (mask & TM_CHR) {
            const uint8_t *b = trz_get_bytes(&c->r[S_CHR], 3);
            if (!b) return -1;
            memcpy(e->ch, b, 3);
            e->ctr = b[1] == 'T' ? 2 : 1;
        }
        if ((mask & TM_MIC) && get_str_field(c, 1, &e->op[1])) return -1;
        if ((mask & TM_TGT) && dec_target(c, e, x)) return -1;
    }
    if (fresh && !(mask & TM_CHR)) e->ctr = e->tgt <= x->pc ? 2 : 1;
    return (int)mask;
}

static int dec_addr(dec_t *c, const ent_t *e, unsigned code, uint64_t *a)
{
    trz_rd *s = &c->r[S_ADDR];
    switch (code) {
    case A_STRIDE: *a = e->last + (uint64_t)e->stride; break;
    case A_LAST: *a = e->last; break;
    case A_GOFF: *a = c->m->glob + (uint64_t)e->goff; break;
    case A_DLAST: *a = e->last + (uint64_t)trz_get_svarint(s); break;
    case A_DGLOB: *a = c->m->glob + (uint64_t)trz_get_svarint(s); break;
    case A_RECENT: {
        uint8_t i = trz_get_u8(s);
        if (i >= RECENT_N) return -1;
        *a = c->m->recent[i];
        break;
    }
    default: return -1;
    }
    return 0;
}

/* Decode one line into x; *ep: its entry; *same: its static fields are
 * the entry's of the line before (the render cache may serve it). */
static int dec_line(dec_t *c, uop_t *x, ent_t **ep, int *same)
{
    model_t *m = c->m;
    unsigned ctl = trz_get_u8(&c->r[S_CTL]);
    unsigned fl = ctl & CTL_FLOW_MASK;
    if (fl < 3) {
        unsigned kind = (flow_first(m) + fl) % 3;
        flow_cand(m, kind, &x->u, &x->pc);
        flow_learn(m, kind);
    } else {
        x->u = (int64_t)((uint64_t)trz_get_svarint(&c->r[S_FLOW]) + 1);
        x->pc = new_pc_pred(m) + (uint64_t)trz_get_svarint(&c->r[S_FLOW]);
    }
    int fresh;
    ent_t *e = entry_get(m, x->pc, x->u, &fresh);
    if ((ctl & CTL_MAC) && get_str_field(c, 0, &e->op[0])) return -1;
    const tmpl_t *t = fresh ? entry_fill(m, e) : NULL;
    int mask = dec_tuple(c, e, t, fresh, ctl, x);
    if (mask < 0) return -1;
    *ep = e;
    int sm = !fresh && !mask && !(ctl & CTL_MAC);
    *same = sm;
    x->ft = x->pc + (uint64_t)e->ftl;
    x->tgt = e->tgt;
    memcpy(x->s, e->s, sizeof x->s);
    x->imm = e->imm;
    x->immu = e->immu;
    memcpy(x->ch, e->ch, 3);
    x->op[0] = e->op[0];
    x->op[1] = e->op[1];
    if (is_tn(e->ch[1]) && !(mask & TM_CHR)) {
        uint8_t pr = ctr_pred(e->ctr);
        x->ch[1] = (ctl & CTL_BMISS) ? (pr == 'T' ? 'N' : 'T') : pr;
    } else if (ctl & CTL_BMISS) return -1;
    if (dec_addr(c, e, (ctl >> CTL_ASHIFT) & 7, &x->addr)) return -1;
    for (int k = 0; k < 2; k++) {
        if (x->op[k] >= m->dict[k].n) return -1;
        x->sp[k] = m->dict[k].arena + m->dict[k].off[x->op[k]];
        x->sl[k] = m->dict[k].len[x->op[k]];
    }
    post_line(m, e, x, sm);
    return 0;
}

static int dec_escape(dec_t *c, uint8_t **o, uint8_t *oe)
{
    trz_rd *s = &c->r[S_ESC];
    uint64_t n = trz_get_uvarint(s);
    if (s->err || n > (uint64_t)(oe - *o)) return -1;
    const uint8_t *b = trz_get_bytes(s, (size_t)n);
    if (!b) return -1;
    memcpy(*o, b, (size_t)n);
    *o += n;
    return 0;
}

/* Both variants' chunks start alike: the readers of streams 0..12, none
 * present from stream `last` on, then the header (the layout, the line and
 * escape counts).  0, or -1 when corrupt. */
static int dec_head(dec_t *c, const trz_dec_args *a, int last, uint64_t *nlines, uint64_t *nesc)
{
    memset(c, 0, sizeof *c);
    for (int k = 0; k < S_COUNT; k++)
        trz_rd_init(&c->r[k], a->stream[k] ? a->stream[k] : (const uint8_t *)"", a->stream[k] ? a->stream_len[k] : 0);
    for (int k = last; k < TRZ_MAX_STREAMS; k++)
        if (a->stream_len[k]) return -1;
    trz_rd *h = &c->r[S_HDR];
    if (layout_read(&c->lay, h) != 0) return -1;
    *nlines = trz_get_uvarint(h);
    *nesc = trz_get_uvarint(h);
    if (h->err || *nlines > a->len || *nesc > *nlines) return -1;
    return 0;
}

/* The streams variant's lines.  0, -1 when corrupt, -2 on no memory. */
static int dec_run(dec_t *c, const trz_dec_args *a, uop_model *um, uint64_t nlines, uint64_t nesc)
{
    uint8_t *buf = um->line;
    c->m = &um->zs;
    int go_on = a->chain && um->zs_live;
    um->zs_live = um->cm_live = 0;
    if (!go_on && model_init(c->m, nlines, a->know) != 0) return -2;
    /* read only past rlen, whose bytes later lines overwrite */
    c->rtext = uop_block_get(&um->rtext, ((size_t)c->m->tmask + 1) * RC_W, 0);
    if (!c->rtext) return -2;
    if (go_on) /* the lines cached were rendered with the chunk before's layout */
        for (size_t i = 0; i <= c->m->tmask; i++) c->m->tab[i].rlen = 0;
    uint8_t *o = a->out, *oe = a->out + a->len;
    uint64_t next_esc = nesc ? trz_get_uvarint(&c->r[S_ESC]) : UINT64_MAX;
    for (uint64_t i = 0; i < nlines; i++) {
        if (next_esc == 0) {
            if (dec_escape(c, &o, oe)) return -1;
            next_esc = --nesc ? trz_get_uvarint(&c->r[S_ESC]) : UINT64_MAX;
            continue;
        }
        next_esc--;
        uop_t x;
        ent_t *e;
        int same;
        if (dec_line(c, &x, &e, &same)) return -1;
        size_t left = (size_t)(oe - o);
        uint8_t *rt = c->rtext + (size_t)(e - c->m->tab) * RC_W;
        if (same && e->rlen && e->rch1 == x.ch[1] && left >= UOP_MAX_LINE) {
            unsigned nd = uop_hex_digits(x.addr);
            if (nd == e->rdig && !(c->lay.c[9].flags & UF_LEFT)) {
                /* right-aligned, as many digits: only they change */
                size_t end = (size_t)e->raoff + e->ralen;
                if (end >= 16) uop_patch_hex(rt + end, x.addr, nd, c->lay.c[9].flags & UF_UPPER);
                else uop_put_hex(rt + end, x.addr, nd, c->lay.c[9].flags & UF_UPPER);
                memcpy(o, rt, RC_W);
                o += e->rlen;
                goto next;
            }
            /* the column is rendered past the line's copy, then moved in */
            size_t n = uop_render_col_addr(&c->lay, x.addr, o + RC_W);
            if (n == e->ralen) {
                uint8_t col[64];
                memcpy(col, o + RC_W, 64); /* n <= sep + width + 2 + 16 < 64 */
                memcpy(o, rt, RC_W);
                memcpy(o + e->raoff, col, n);
                memcpy(rt + e->raoff, col, n);
                e->rdig = (uint8_t)nd;
                o += e->rlen;
                goto next;
            }
        }
        {
            uint8_t *w = left >= UOP_MAX_LINE ? o : buf;
            size_t aoff, alen, n = uop_render_addr(&c->lay, &x, w, &aoff, &alen);
            if (n > left) return -1;
            if (w == buf) memcpy(o, buf, n);
            o += n;
            e->rlen = 0;
            if (n <= RC_W && alen < 64) {
                memcpy(rt, w, n);
                e->rlen = (uint8_t)n;
                e->raoff = (uint8_t)aoff;
                e->ralen = (uint8_t)alen;
                e->rch1 = x.ch[1];
                e->rdig = (uint8_t)uop_hex_digits(x.addr);
            }
        }
    next:
        if ((i & 1023) == 0)
            for (int k = 0; k < S_COUNT; k++)
                if (c->r[k].err) return -1;
    }
    for (int k = 0; k < S_COUNT; k++)
        if (c->r[k].err) return -1;
    if (o != oe || nesc != 0) return -1;
    chain_keep(c->m);
    um->zs_live = (uint8_t)(a->chain != 0);
    return 0;
}

static int zs_decode(const trz_dec_args *a, trz_model *tm)
{
    dec_t c;
    uint64_t nlines, nesc;
    int rc = dec_head(&c, a, S_COUNT, &nlines, &nesc);
    if (rc == 0) rc = dec_run(&c, a, (uop_model *)tm, nlines, nesc);
    return rc == 0 ? TRZ_CODEC_OK : rc == -2 ? TRZ_CODEC_NOMEM : TRZ_CODEC_CORRUPT;
}

static int cm_decode(const trz_dec_args *a, trz_model *tm)
{
    uop_model *um = (uop_model *)tm;
    dec_t c;
    uint64_t nlines, nesc;
    if (dec_head(&c, a, UOP_S_ALL, &nlines, &nesc) != 0) return TRZ_CODEC_CORRUPT;
    for (int k = 2; k < S_COUNT; k++)
        if (a->stream_len[k]) return TRZ_CODEC_CORRUPT;
    trz_rd *h = &c.r[S_HDR];
    if (h->p != h->end) return TRZ_CODEC_CORRUPT;
    int go_on = a->chain && um->cm_live;
    um->zs_live = um->cm_live = 0;
    int rc = uop_cm_decode(a, &um->cm, go_on, um->line, h, &c.r[S_ESC], &c.lay, nlines, nesc);
    um->cm_live = (uint8_t)(rc == TRZ_CODEC_OK && a->chain);
    return rc;
}

/* ---- probe -------------------------------------------------------------- */

/* Score by the share of the first lines that parse as 14-field uop lines. */
static int uop_probe(const uint8_t *buf, size_t len, int *byte_order)
{
    *byte_order = TRZ_BO_NONE;
    const uint8_t *p = buf, *end = buf + len;
    int good = 0, all = 0;
    while (p < end && all < 64) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) break;
        all++;
        good += uop_looks_like(p, (size_t)(nl - p));
        p = nl + 1;
    }
    if (!all) return 0;
    return good * 4 >= all * 3 ? 90 : good * 2 >= all ? 50 : 0;
}

/* ---- variants, levels, model ------------------------------------------------ */

/* Variant ids: the range variant's is its version byte (stream 13;
 * UOP_CM_VERSION_KNOW is the same model with the member's facts); the
 * streams variant has none on disk (stream 13 absent), 0 here. */
enum { V_STREAMS, V_RANGE };
static const trz_variant uop_variants[] = {
    [V_STREAMS] = { 0, "streams", 1, 5, zs_encode, zs_decode },
    [V_RANGE] = { UOP_CM_VERSION, "range", 6, 19, cm_encode, cm_decode },
};

/* Levels from 6 write the range variant; below it the streams variant,
 * which decodes about 40% faster at about 1.7x the size. */
#define ZS { V_STREAMS, 0 }
#define CM { V_RANGE, 1 }
static const uop_level uop_levels[TRZ_LEVEL_MAX + 1] = {
    ZS, ZS, ZS, ZS, ZS, ZS,                 /* 0 (as 1), 1-5 */
    CM, CM, CM, CM, CM, CM, CM, CM, CM, CM, /* 6-15 */
    CM, CM, CM, CM,                         /* 16-19 */
};
#undef ZS
#undef CM

/* The range variant's chunks hold stream 13. */
static int uop_variant_of(const size_t *len, const uint8_t *const *head)
{
    return len[UOP_S_CMVER] || head[UOP_S_CMVER] ? V_RANGE : V_STREAMS;
}

static trz_model *uop_model_create(int level, int know)
{
    (void)know;
    uop_model *m = calloc(1, sizeof *m);
    if (m) m->lv = &uop_levels[level ? trz_level_clamp(level) : 0];
    return (trz_model *)m;
}

/* A chunk that stands alone sets up what it uses (model_init, the context
 * model's uop_cm_open): nothing carries over but the tables' memory.  After a
 * reset a chain's next chunk does the same, whichever its variant. */
static void uop_model_reset(trz_model *tm)
{
    uop_model *m = (uop_model *)tm;
    m->zs_live = m->cm_live = 0;
}

static void uop_model_free(trz_model *tm)
{
    uop_model *m = (uop_model *)tm;
    if (!m) return;
    model_free(&m->zs);
    uop_block_free(&m->rtext);
    uop_cm_free(m->cm);
    free(m);
}

/* The knowledge stream in the form the level's row names. */
static int uop_know_encode(const trz_know *k, const trz_fact *f, size_t n, int level, trz_buf *out)
{
    if (!uop_levels[trz_level_clamp(level)].know_range) return uop_know_bytes_encode(k, f, n, out);
    return uop_cm_know_encode(k, f, n, out);
}

const trz_codec trz_codec_uop = {
    .id = TRZ_CODEC_UOP,
    .name = "uop",
    .record_size = 0,
    .description = "UPenn CIS501 x86 micro-op text trace",
    .probe = uop_probe,
    .variants = uop_variants,
    .nvariants = sizeof uop_variants / sizeof uop_variants[0],
    .variant_of = uop_variant_of,
    .levels = uop_levels,
    .level_size = sizeof(uop_level),
    .model_create = uop_model_create,
    .model_reset = uop_model_reset,
    .model_free = uop_model_free,
    .chains = 1,
    .chain_bytes = 64u << 20, /* a seek decodes at most 64 MiB (bench/notes/2026-11-29-chains.md) */
    .stream_name = uop_stream_name,
    .dump_record = NULL,
    .learn = uop_cm_learn,
    .know_encode = uop_know_encode,
    .know_decode = uop_cm_know_decode,
};
