/* uop_cm.c - the uop codec's context model (variant 1): every field of a
 * line is coded as decisions of the shared range coder in the contexts that
 * decide it.  Flow, static-field checks, branch outcomes and targets go to
 * one range-coded stream, the fields of instructions seen for the first
 * time to a second, memory addresses to a third.  The model is written
 * once (cm_line) and inlined into the encoder's and the decoder's loops,
 * each with the direction a constant.  Spec: uop.md, "Context model". */
#include "uop_cm.h"
#include "uop_rc.h"

#ifdef UOP_STATS
long uop_st[8];
double uop_cost[32];
int uop_field;
static const char *fname[32] = {"flow","same","branch","target","azero","asym","arec","adelta","mac","mic","chars","s1","s2","d","imm","ftl","str","x"};
#define FLD(i) (uop_field = (i))
#else
#define FLD(i) ((void)0)
#endif

/* ---- constants ------------------------------------------------------------- */

enum { F_NEW = 0, F_CONT = 1, F_REP = 2, F_EXPL = 3 };
enum { K_ZERO = 0, K_FTIMM = 1, K_RAS = 2, K_LAST = 3, K_IND = 4, K_EXPL = 5 };
enum { A_STRIDE = 0, A_LAST = 1, A_RB = 2, A_FOL = 3, A_RECENT = 4, A_DLAST = 5, A_DRB = 6, A_DGLOB = 7 };

#define RECENT_N 8
#define RAS_N 16
#define TMPL_BITS 12
#define DICT_MAX 4096
#define DICT_HASH (DICT_MAX * 2)
#define ARENA_MAX (DICT_MAX * 256)
#define CS_LIM 60
#define NREG 64
#define RCTX_BITS 14 /* register-value contexts: 2^14 blocks of a 6-bit tree */

/* ---- state ------------------------------------------------------------------ */

typedef struct {
    uint64_t pc, tgt, last;
    int64_t imm, u, ftl, stride, s[3];
    uint32_t op[2];
    uint16_t lh;            /* local branch history */
    uint8_t ch[3], immu, used;
    uint8_t nh;             /* flow kinds that followed this entry, 2 bits each */
    uint8_t ah;             /* address symbols of the last two visits */
    uint8_t alen;           /* bit length of the last address delta (0: a hit) */
    uint8_t th;             /* target kind of the last visit */
    uint8_t mru;            /* way 0 of a set: the way used last */
} cent;

typedef struct {
    int64_t u, ftl, s[3], imm;
    uint32_t mac, mic;
    uint8_t ch[3], immu, used;
} ctmpl;

typedef struct {
    uint8_t *arena;
    uint32_t off[DICT_MAX];
    uint8_t len[DICT_MAX];
    uint16_t hash[DICT_HASH]; /* index + 1, encoder only */
    uint32_t n, used;
} cdict;

/* The static fields of a (pc, u) entry. */
typedef struct {
    int64_t ftl, s[3], imm;
    uint32_t op[2];
    uint8_t ch[3], immu;
} cstat;

typedef struct {
    /* tables */
    cent *tab;
    uint32_t emask;
    ctmpl *tmpl;
    uint64_t *fol;          /* per (pc, u, last address): the address after it */
    uint32_t fmask;
    uint64_t *itab;         /* indirect targets by (pc, path) */
    uint32_t imask;
    rc_prob *bl, *bg, *bs; /* branch: local, global, short global */
    uint32_t bmask;
    u_cs *rctx;             /* register values */
    cdict dict[2];
    uint32_t succ[DICT_MAX];   /* macro-op that followed a macro-op, + 1 */
    uint32_t micof[DICT_MAX];  /* last micro-op of a macro-op, + 1 */
    uint8_t micch[DICT_MAX][4];/* chars last seen with a micro-op ([3] = seen) */
    int64_t lenof[DICT_MAX];   /* last length of a macro-op */
    /* history */
    uop_t prev;
    cent *pe;
    uint64_t glob, recent[RECENT_N], ras[RAS_N], rb[NREG];
    uint64_t gh, path;
    unsigned rsp;
    uint8_t stored;
    /* contexts: ctl */
    rc_prob flow[64][4];
    rc_prob same[2];
    u_mixw bw[64];
    rc_prob tk[4 * 8][8];
    rc_prob tlen[RC_ULEN], tbits[RC_UBITS];
    rc_prob xlen[2][RC_ULEN], xbits[2][RC_UBITS];
    /* contexts: static */
    u_cs hit[8][16];           /* [field][context] */
    u_cs snew[2][4];
    rc_prob sidx[2][DICT_MAX];
    u_cs slen[2][256], sbyte[2][256][256];
    rc_prob chr[3][256];
    rc_prob ilen[64][RC_ULEN], ibits[RC_UBITS];
    u_cs ispec[2];
    u_cs flen[256][16];
    rc_prob llen[RC_ULEN], lbits[RC_UBITS];
    rc_prob rlen[RC_ULEN], rbits[RC_UBITS];
    /* contexts: address */
    rc_prob az[16];
    rc_prob asym[2 * 64][8];
    rc_prob arec[8][RECENT_N];
    rc_prob alen[3][24][RC_ULEN], abits[3][RC_UBITS];
    u_stretch_t st;
} cm_t;

/* ---- helpers ---------------------------------------------------------------- */

static inline uint64_t hmix(uint64_t a, uint64_t b)
{
    uint64_t h = (a ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2))) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29) ^ (h >> 41);
}

static inline uint32_t hash_key(uint64_t pc, int64_t u)
{
    return rc_hash(pc ^ (uint64_t)u * 0xD6E8FEB86659FD93ull);
}

static inline uint32_t hash_str(const uint8_t *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 16777619u;
    return h ^ (h >> 15);
}

static int dict_add(cdict *d, const uint8_t *s, size_t n)
{
    if (d->n >= DICT_MAX || n > 255 || d->used + n > ARENA_MAX) return -1;
    memcpy(d->arena + d->used, s, n);
    d->off[d->n] = d->used;
    d->len[d->n] = (uint8_t)n;
    d->used += (uint32_t)n;
    return (int)d->n++;
}

static int dict_find(const cdict *d, const uint8_t *s, size_t n, uint32_t *slot)
{
    uint32_t h = hash_str(s, n) & (DICT_HASH - 1);
    for (;;) {
        unsigned v = d->hash[h];
        if (!v) { *slot = h; return -1; }
        v--;
        if (d->len[v] == n && memcmp(d->arena + d->off[v], s, n) == 0) return (int)v;
        h = (h + 1) & (DICT_HASH - 1);
    }
}

static inline int is_tn(uint8_t c) { return c == 'T' || c == 'N'; }
static inline uint8_t ch_cls(uint8_t c) { return is_tn(c) ? 'T' : c; }
static inline unsigned br_ctx(uint8_t c) { return c == '-' ? 0 : c == 'T' ? 1 : c == 'N' ? 2 : 3; }
static inline unsigned ls_ctx(uint8_t c) { return c == '-' ? 0 : c == 'L' ? 1 : c == 'S' ? 2 : 3; }

static inline uint64_t ras_top(const cm_t *m) { return m->ras[(m->rsp - 1) & (RAS_N - 1)]; }

static inline ctmpl *tmpl_of(const cm_t *m, uint32_t mac, int64_t u)
{
    return &m->tmpl[hash_key(mac, u) >> (32 - TMPL_BITS)];
}

static int bits_for(uint64_t n, int lo, int hi)
{
    int b = lo;
    while (b < hi && ((uint64_t)1 << b) < n) b++;
    return b;
}

/* ---- set-up ----------------------------------------------------------------- */

static void cm_free(cm_t *m)
{
    if (!m) return;
    trz_big_free(m->tab, ((size_t)m->emask + 1) * sizeof(cent));
    trz_big_free(m->tmpl, ((size_t)1 << TMPL_BITS) * sizeof(ctmpl));
    trz_big_free(m->fol, ((size_t)m->fmask + 1) * sizeof(uint64_t));
    trz_big_free(m->itab, ((size_t)m->imask + 1) * sizeof(uint64_t));
    trz_big_free(m->bl, ((size_t)m->bmask + 1) * 3 * sizeof(rc_prob));
    trz_big_free(m->rctx, ((size_t)64 << RCTX_BITS) * sizeof(u_cs));
    trz_big_free(m->dict[0].arena, ARENA_MAX);
    trz_big_free(m->dict[1].arena, ARENA_MAX);
    trz_big_free(m, sizeof *m);
}

static cm_t *cm_new(uint64_t nlines)
{
    cm_t *m = trz_big_calloc(sizeof *m);
    if (!m) return NULL;
    int eb = bits_for(nlines * 2, 10, 17);
    m->emask = (1u << eb) - 1;
    m->fmask = (1u << bits_for(nlines, 10, 17)) - 1;
    m->imask = (1u << bits_for(nlines / 4, 8, 14)) - 1;
    m->bmask = (1u << bits_for(nlines / 2, 10, 16)) - 1;
    m->tab = trz_big_calloc(((size_t)m->emask + 1) * sizeof(cent));
    m->tmpl = trz_big_calloc(((size_t)1 << TMPL_BITS) * sizeof(ctmpl));
    m->fol = trz_big_calloc(((size_t)m->fmask + 1) * sizeof(uint64_t));
    m->itab = trz_big_calloc(((size_t)m->imask + 1) * sizeof(uint64_t));
    m->bl = trz_big_malloc(((size_t)m->bmask + 1) * 3 * sizeof(rc_prob));
    m->rctx = trz_big_malloc(((size_t)64 << RCTX_BITS) * sizeof(u_cs));
    m->dict[0].arena = trz_big_malloc(ARENA_MAX);
    m->dict[1].arena = trz_big_malloc(ARENA_MAX);
    if (!m->tab || !m->tmpl || !m->fol || !m->itab || !m->bl || !m->rctx || !m->dict[0].arena ||
        !m->dict[1].arena) {
        cm_free(m);
        return NULL;
    }
    m->bg = m->bl + m->bmask + 1;
    m->bs = m->bg + m->bmask + 1;
    rc_init(m->bl, ((size_t)m->bmask + 1) * 3);
    u_cs_fill(m->rctx, (size_t)64 << RCTX_BITS);
    m->prev.ch[0] = m->prev.ch[1] = m->prev.ch[2] = '-';
    rc_init(&m->flow[0][0], sizeof m->flow / sizeof(rc_prob));
    rc_init(m->same, 2);
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < U_MIXN; j++) m->bw[i].w[j] = 22000;
    rc_init(&m->tk[0][0], sizeof m->tk / sizeof(rc_prob));
    rc_init(m->tlen, RC_ULEN);
    rc_init(m->tbits, RC_UBITS);
    rc_init(&m->xlen[0][0], sizeof m->xlen / sizeof(rc_prob));
    rc_init(&m->xbits[0][0], sizeof m->xbits / sizeof(rc_prob));
    u_cs_fill(&m->hit[0][0], sizeof m->hit / sizeof(u_cs));
    u_cs_fill(&m->snew[0][0], sizeof m->snew / sizeof(u_cs));
    rc_init(&m->sidx[0][0], sizeof m->sidx / sizeof(rc_prob));
    u_cs_fill(&m->slen[0][0], sizeof m->slen / sizeof(u_cs));
    u_cs_fill(&m->sbyte[0][0][0], sizeof m->sbyte / sizeof(u_cs));
    rc_init(&m->chr[0][0], sizeof m->chr / sizeof(rc_prob));
    rc_init(&m->ilen[0][0], sizeof m->ilen / sizeof(rc_prob));
    rc_init(m->ibits, RC_UBITS);
    u_cs_fill(m->ispec, 2);
    u_cs_fill(&m->flen[0][0], sizeof m->flen / sizeof(u_cs));
    rc_init(m->llen, RC_ULEN);
    rc_init(m->lbits, RC_UBITS);
    rc_init(m->rlen, RC_ULEN);
    rc_init(m->rbits, RC_UBITS);
    rc_init(m->az, 16);
    rc_init(&m->asym[0][0], sizeof m->asym / sizeof(rc_prob));
    rc_init(&m->arec[0][0], sizeof m->arec / sizeof(rc_prob));
    rc_init(&m->alen[0][0][0], sizeof m->alen / sizeof(rc_prob));
    rc_init(&m->abits[0][0], sizeof m->abits / sizeof(rc_prob));
    u_stretch_init(&m->st);
    return m;
}

/* ---- the model of one line --------------------------------------------------- */

typedef struct {
    rc ctl, stat, addr;
} cm_rc;

static inline int same_str(const cdict *d, uint32_t i, const uint8_t *s, size_t n)
{
    return i < d->n && d->len[i] == n && memcmp(d->arena + d->off[i], s, n) == 0;
}

/* A dictionary string: "new" in the context of the dictionary's size, then
 * either its index through a frequency tree or the new string's bytes. */
U_HOT int code_str(cm_t *m, rc *c, const int enc, int k, const uint8_t *s, size_t n, uint32_t *idx)
{
    cdict *d = &m->dict[k];
    int i = 0;
    uint32_t slot = 0;
    if (enc) i = dict_find(d, s, n, &slot);
    int isnew = u_cbit(c, enc, &m->snew[k][d->n < 16 ? 0 : d->n < 128 ? 1 : 2], i < 0, CS_LIM);
    if (!isnew) {
        uint32_t v = u_tree(c, enc, m->sidx[k], 12, (uint32_t)i);
        if (v >= d->n) return -1;
        *idx = v;
        return 0;
    }
    uint8_t buf[256];
    int fsave = 0;
#ifdef UOP_STATS
    fsave = uop_field;
#endif
    FLD(16);
    size_t len = u_ctree(c, enc, m->slen[k], 8, (uint32_t)n, CS_LIM);
    unsigned pb = 0;
    for (size_t j = 0; j < len; j++) {
        buf[j] = (uint8_t)u_ctree(c, enc, m->sbyte[k][pb], 8, enc ? s[j] : 0, CS_LIM);
        pb = buf[j];
    }
    FLD(fsave);
    (void)fsave;
    int r = dict_add(d, buf, len);
    if (r < 0) return -1;
    if (enc) d->hash[slot] = (uint16_t)(r + 1);
    *idx = (uint32_t)r;
    return 0;
}

/* A register number: v + 1 in 0..62 through a 6-bit tree in the context of
 * (which register, micro-op, the register before it); 63 escapes to an
 * integer. */
U_HOT int64_t code_reg(cm_t *m, rc *c, const int enc, int i, uint32_t mic, int64_t before, int64_t v)
{
    uint32_t h = (uint32_t)(hmix(hmix((uint64_t)i + 1, mic), (uint64_t)before) >> 32) >> (32 - RCTX_BITS);
    u_cs *t = m->rctx + ((size_t)h << 6);
    uint32_t sym = enc ? (v >= -1 && v < 62 ? (uint32_t)(v + 1) : 63) : 0;
    sym = u_ctree(c, enc, t, 6, sym, CS_LIM);
    if (sym < 63) return (int64_t)sym - 1;
    return u_sint(c, enc, m->rlen, m->rbits, v);
}

/* Static fields of an entry, coded against predictions: a hit bit per field
 * in the context of the prediction's origin g (0: the template of the
 * macro-op at this micro-op index, 1: weaker guesses, 2: the entry's own
 * fields, which changed), the value on a miss.  e holds the predictions of
 * group 2 on entry and the fields on return. */
U_HOT int code_static(cm_t *m, rc *c, const int enc, int fresh, cent *e, const uop_t *x)
{
    const uop_t *p = &m->prev;
    int samepc = p->pc == e->pc && e->u > 1;
    /* macro-op */
    uint32_t pm;
    unsigned mc;
    if (!fresh) pm = e->op[0], mc = 4;
    else if (samepc) pm = p->op[0], mc = 0;
    else if (m->succ[p->op[0] & (DICT_MAX - 1)]) pm = m->succ[p->op[0] & (DICT_MAX - 1)] - 1, mc = 1;
    else pm = p->op[0], mc = 2;
    FLD(8);
    int h = u_cbit(c, enc, &m->hit[0][mc], enc ? same_str(&m->dict[0], pm, x->sp[0], x->sl[0]) : 0, CS_LIM);
    if (h) {
        if (pm >= m->dict[0].n) return -1;
        e->op[0] = pm;
    } else if (code_str(m, c, enc, 0, x->sp[0], x->sl[0], &e->op[0])) return -1;
    uint32_t mac = e->op[0];

    /* predictions of the other fields */
    unsigned g = 2;
    if (fresh) {
        const ctmpl *t = tmpl_of(m, mac, e->u);
        if (t->used && t->mac == mac && t->u == e->u) {
            g = 0;
            e->op[1] = t->mic;
            memcpy(e->ch, t->ch, 3);
            memcpy(e->s, t->s, sizeof e->s);
            e->imm = t->imm;
            e->immu = t->immu;
            e->ftl = samepc ? (int64_t)(p->ft - p->pc) : t->ftl;
        } else {
            g = 1;
            e->op[1] = m->micof[mac] ? m->micof[mac] - 1 : p->op[1];
            memcpy(e->ch, p->ch, 3);
            e->ch[1] = ch_cls(e->ch[1]);
            memcpy(e->s, p->s, sizeof e->s);
            e->imm = 0;
            e->immu = 0;
            e->ftl = samepc ? (int64_t)(p->ft - p->pc) : m->lenof[mac];
        }
    }
    unsigned gs = g * 2 + (unsigned)samepc;
    /* micro-op */
    FLD(9);
    h = u_cbit(c, enc, &m->hit[1][gs], enc ? same_str(&m->dict[1], e->op[1], x->sp[1], x->sl[1]) : 0, CS_LIM);
    if (h) {
        if (e->op[1] >= m->dict[1].n) return -1;
    } else if (code_str(m, c, enc, 1, x->sp[1], x->sl[1], &e->op[1])) return -1;
    uint32_t mic = e->op[1];
    /* chars (the branch column as a class: T and N alike) */
    if (g == 1 && m->micch[mic][3]) memcpy(e->ch, m->micch[mic], 3);
    FLD(10);
    h = u_cbit(c, enc, &m->hit[2][gs],
               enc ? x->ch[0] == e->ch[0] && ch_cls(x->ch[1]) == e->ch[1] && x->ch[2] == e->ch[2] : 0, CS_LIM);
    if (!h)
        for (int i = 0; i < 3; i++) {
            uint8_t v = (uint8_t)u_tree(c, enc, m->chr[i], 8, enc ? x->ch[i] : 0);
            e->ch[i] = i == 1 ? ch_cls(v) : v;
        }
    /* registers */
    int64_t before = p->s[2];
    for (int i = 0; i < 3; i++) {
        FLD(11 + i);
        h = u_cbit(c, enc, &m->hit[3 + i][gs], enc ? x->s[i] == e->s[i] : 0, CS_LIM);
        if (!h) e->s[i] = code_reg(m, c, enc, i, mic, before, x->s[i]);
        before = e->s[i];
    }
    /* immediate */
    FLD(14);
    h = u_cbit(c, enc, &m->hit[6][gs], enc ? x->imm == e->imm && x->immu == e->immu : 0, CS_LIM);
    if (!h) {
        int spec = u_cbit(c, enc, &m->ispec[0], enc ? x->immu || x->imm == INT64_MIN : 0, CS_LIM);
        if (spec) {
            e->immu = (uint8_t)u_cbit(c, enc, &m->ispec[1], enc ? x->immu : 0, CS_LIM);
            e->imm = (int64_t)u_direct64(c, enc, (uint64_t)x->imm);
        } else {
            e->immu = 0;
            e->imm = u_sint(c, enc, m->ilen[mic & 63], m->ibits, x->imm);
            if (e->imm == INT64_MIN) return -1;
        }
    }
    /* length (fall-through - pc) */
    FLD(15);
    h = u_cbit(c, enc, &m->hit[7][gs], enc ? (int64_t)(x->ft - x->pc) == e->ftl : 0, CS_LIM);
    if (!h) {
        int64_t v = enc ? (int64_t)(x->ft - x->pc) : 0;
        uint32_t sym = u_ctree(c, enc, m->flen[mac & 255], 4, enc ? (v >= 1 && v <= 15 ? (uint32_t)v : 0) : 0, CS_LIM);
        e->ftl = sym ? (int64_t)sym : u_sint(c, enc, m->llen, m->lbits, v);
    }
    return 0;
}

U_HOT int static_same(const cm_t *m, const cent *e, const uop_t *x)
{
    return (int64_t)(x->ft - x->pc) == e->ftl && x->s[0] == e->s[0] && x->s[1] == e->s[1] && x->s[2] == e->s[2] &&
           x->imm == e->imm && x->immu == e->immu && x->ch[0] == e->ch[0] && ch_cls(x->ch[1]) == e->ch[1] &&
           x->ch[2] == e->ch[2] && same_str(&m->dict[0], e->op[0], x->sp[0], x->sl[0]) &&
           same_str(&m->dict[1], e->op[1], x->sp[1], x->sl[1]);
}

U_HOT void recent_push(cm_t *m, uint64_t a)
{
    int i = 0;
    while (i < RECENT_N - 1 && m->recent[i] != a) i++;
    for (; i > 0; i--) m->recent[i] = m->recent[i - 1];
    m->recent[0] = a;
}

/* One line.  Encoding: x holds the parsed line.  Decoding: x is filled
 * (string pointers excepted).  Returns 0, or -1 on a corrupt stream. */
U_HOT int cm_line(cm_t *m, cm_rc *r, const int enc, uop_t *x)
{
    const uop_t *p = &m->prev;
    cent *pe = m->pe;

    /* 1. flow: the kind of successor in the context of the kinds that
     * followed the previous line's entry */
    uint64_t npc = p->ch[1] == 'T' ? p->tgt : p->ft;
    unsigned kind = 0;
    if (enc) {
        if (x->u == 1 && x->pc == npc) kind = F_NEW;
        else if ((uint64_t)x->u == (uint64_t)p->u + 1 && x->pc == p->pc) kind = F_CONT;
        else if (x->u == 1 && x->pc == p->pc) kind = F_REP;
        else kind = F_EXPL;
    }
    FLD(0);
    kind = u_tree(&r->ctl, enc, m->flow[pe ? pe->nh : 0], 2, kind);
    switch (kind) {
    case F_NEW: x->u = 1; x->pc = npc; break;
    case F_CONT: x->u = (int64_t)((uint64_t)p->u + 1); x->pc = p->pc; break;
    case F_REP: x->u = 1; x->pc = p->pc; break;
    default:
        x->u = (int64_t)(1 + (uint64_t)u_sint(&r->ctl, enc, m->xlen[0], m->xbits[0], (int64_t)((uint64_t)x->u - 1)));
        x->pc = npc + (uint64_t)u_sint(&r->ctl, enc, m->xlen[1], m->xbits[1], (int64_t)(x->pc - npc));
    }
    if (pe) pe->nh = (uint8_t)((pe->nh << 2 | kind) & 63);

    /* 2. the entry and its static fields */
    cent *set = &m->tab[hash_key(x->pc, x->u) & m->emask & ~1u], *e = set;
    int fresh = 0;
    if (set[0].used && set[0].pc == x->pc && set[0].u == x->u) set[0].mru = 0;
    else if (set[1].used && set[1].pc == x->pc && set[1].u == x->u) e = &set[1], set[0].mru = 1;
    else {
        fresh = 1;
        e = &set[set[0].mru ^ 1];
        set[0].mru ^= 1;
    }
#ifdef UOP_STATS
    if (enc) { extern long uop_st[8]; uop_st[0]++; uop_st[1] += fresh; uop_st[3] += fresh && e->used; if (fresh && e->used && uop_st[3] < 5) fprintf(stderr, "evict %lx %ld by %lx %ld mask %x\n", e->pc, e->u, x->pc, x->u, m->emask); if (!fresh) uop_st[2] += !static_same(m, e, x); }
#endif
    if (fresh) {
        uint8_t mru = set[0].mru;
        memset(e, 0, sizeof *e);
        set[0].mru = mru;
        e->used = 1;
        e->pc = x->pc;
        e->u = x->u;
        e->th = 6;
        if (code_static(m, &r->stat, enc, 1, e, x)) return -1;
    } else {
        FLD(1);
        int miss = u_bit_s(&r->ctl, enc, &m->same[0], enc ? !static_same(m, e, x) : 0, 5);
        if (miss && code_static(m, &r->stat, enc, 0, e, x)) return -1;
    }
    x->ft = x->pc + (uint64_t)e->ftl;
    memcpy(x->s, e->s, sizeof x->s);
    x->imm = e->imm;
    x->immu = e->immu;
    x->ch[0] = e->ch[0];
    x->ch[2] = e->ch[2];
    x->op[0] = e->op[0];
    x->op[1] = e->op[1];

    /* 3. branch outcome: local and global histories, mixed */
    if (e->ch[1] == 'T') {
        uint32_t k = hash_key(x->pc, x->u);
        uint32_t il = (uint32_t)(hmix(k, e->lh & 0x3FF) >> 20) & m->bmask;
        uint32_t ig = (uint32_t)(hmix(k, m->gh & 0xFFFF) >> 24) & m->bmask;
        uint32_t is = (uint32_t)(hmix(k ^ 0x55, m->gh & 0x3F) >> 28) & m->bmask;
        int st[3] = { m->st.s[u_p12(m->bl[il])], m->st.s[u_p12(m->bg[ig])], m->st.s[u_p12(m->bs[is])] };
        u_mixw *w = &m->bw[(e->lh & 7) << 3 | (m->gh & 7)];
        FLD(2);
        int t = u_mix_bit(&r->ctl, enc, w, st, 3, enc ? x->ch[1] == 'T' : 0, 6);
        m->bl[il] = (rc_prob)rc_adapt(m->bl[il], t, 4);
        m->bg[ig] = (rc_prob)rc_adapt(m->bg[ig], t, 4);
        m->bs[is] = (rc_prob)rc_adapt(m->bs[is], t, 4);
        e->lh = (uint16_t)(e->lh << 1 | t);
        m->gh = m->gh << 1 | (uint64_t)t;
        x->ch[1] = t ? 'T' : 'N';
    } else x->ch[1] = e->ch[1];

    /* 4. target */
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
        tk = u_tree(&r->ctl, enc, m->tk[br_ctx(x->ch[1]) * 8 + e->th], 3, tk);
        switch (tk) {
        case K_ZERO: x->tgt = 0; break;
        case K_FTIMM: x->tgt = fti; break;
        case K_RAS: if (!m->rsp) return -1; x->tgt = ras_top(m); break;
        case K_LAST: if (fresh) return -1; x->tgt = e->tgt; break;
        case K_IND: x->tgt = m->itab[ii]; break;
        case K_EXPL: x->tgt = x->pc + (uint64_t)u_sint(&r->ctl, enc, m->tlen, m->tbits, (int64_t)(x->tgt - x->pc)); break;
        default: return -1;
        }
        e->th = (uint8_t)tk;
        e->tgt = x->tgt;
        if (tk >= K_RAS) {
            m->itab[ii] = x->tgt;
            m->path = (m->path << 16 | (x->tgt & 0xFFFF)) & 0xFFFFFFFFFFFFull;
        }
    }

    /* 5. address */
    {
        unsigned zc = ls_ctx(x->ch[2]) * 4 + (e->last != 0) * 2 + (unsigned)fresh;
        FLD(4);
        int nz = u_bit(&r->addr, enc, &m->az[zc], enc ? x->addr != 0 : 0);
        if (!nz) x->addr = 0;
        else {
            unsigned ri = (unsigned)((uint64_t)x->s[0] & (NREG - 1));
            uint64_t cst = e->last + (uint64_t)e->stride, crb = m->rb[ri] + (uint64_t)x->imm;
            uint32_t fi = (uint32_t)(hmix(hash_key(x->pc, x->u), e->last) >> 32) & m->fmask;
            uint64_t cfo = m->fol[fi];
            unsigned sym = 0, ri2 = 0;
            int64_t d = 0;
            if (enc) {
                uint64_t a = x->addr;
                if (e->last && a == cst) sym = A_STRIDE;
                else if (e->last && a == e->last) sym = A_LAST;
                else if (a == crb) sym = A_RB;
                else if (a == cfo) sym = A_FOL;
                else {
                    sym = 8;
                    for (unsigned i = 0; i < RECENT_N; i++)
                        if (a == m->recent[i]) { sym = A_RECENT; ri2 = i; break; }
                    if (sym == 8) {
                        int64_t d1 = (int64_t)(a - e->last), d2 = (int64_t)(a - crb), d3 = (int64_t)(a - m->glob);
                        uint64_t m1 = d1 < 0 ? 0 - (uint64_t)d1 : (uint64_t)d1;
                        uint64_t m2 = d2 < 0 ? 0 - (uint64_t)d2 : (uint64_t)d2;
                        uint64_t m3 = d3 < 0 ? 0 - (uint64_t)d3 : (uint64_t)d3;
                        if (!e->last) m1 = UINT64_MAX;
                        if (m1 <= m2 && m1 <= m3) sym = A_DLAST, d = d1;
                        else if (m2 <= m3) sym = A_DRB, d = d2;
                        else sym = A_DGLOB, d = d3;
                    }
                }
            }
            unsigned sc = fresh ? 64 + ls_ctx(x->ch[2]) : e->ah;
            FLD(5);
            sym = u_tree(&r->addr, enc, m->asym[sc], 3, sym);
            uint64_t a;
            switch (sym) {
            case A_STRIDE: a = cst; break;
            case A_LAST: a = e->last; break;
            case A_RB: a = crb; break;
            case A_FOL: a = cfo; break;
            case A_RECENT:
                FLD(6);
                ri2 = u_tree(&r->addr, enc, m->arec[0], 3, ri2);
                a = m->recent[ri2];
                break;
            default: {
                unsigned dk = sym - A_DLAST;
                unsigned lc = e->alen < 23 ? e->alen : 23;
                FLD(7);
                d = u_sint(&r->addr, enc, m->alen[dk][lc], m->abits[dk], d);
                a = (sym == A_DLAST ? e->last : sym == A_DRB ? crb : m->glob) + (uint64_t)d;
            }
            }
            x->addr = a;
            e->ah = (uint8_t)((e->ah << 3 | sym) & 63);
            uint64_t ad = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
            e->alen = (uint8_t)(sym >= A_DLAST ? rc_bitlen64(ad) : 0);
            m->fol[fi] = a;
            e->stride = (int64_t)(a - e->last);
            e->last = a;
            m->rb[ri] = a - (uint64_t)x->imm;
            m->glob = a;
            recent_push(m, a);
        }
    }

    /* 6. the rest of the model */
    m->stored = (uint8_t)((x->u > 1 && x->pc == p->pc ? m->stored : 0) | (x->ch[2] == 'S'));
    if (x->ch[1] == 'T') {
        if (m->rsp && x->tgt == ras_top(m)) m->rsp--;
        else if (m->stored) m->ras[m->rsp++ & (RAS_N - 1)] = x->ft;
    }
    ctmpl *t = tmpl_of(m, x->op[0], x->u);
    t->used = 1;
    t->mac = x->op[0];
    t->u = x->u;
    t->ftl = e->ftl;
    memcpy(t->s, x->s, sizeof t->s);
    t->imm = x->imm;
    t->immu = x->immu;
    t->mic = x->op[1];
    memcpy(t->ch, e->ch, 3);
    if (x->u == 1) m->succ[p->op[0] & (DICT_MAX - 1)] = x->op[0] + 1;
    m->micof[x->op[0]] = x->op[1] + 1;
    memcpy(m->micch[x->op[1]], e->ch, 3);
    m->micch[x->op[1]][3] = 1;
    m->lenof[x->op[0]] = e->ftl;
    m->prev = *x;
    m->pe = e;
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

int uop_cm_encode(const trz_enc_args *a, uint64_t nlines, const layout_t *lay)
{
    cm_t *m = cm_new(nlines);
    uint8_t *buf = malloc(UOP_MAX_LINE);
    if (!m || !buf) {
        cm_free(m);
        free(buf);
        return TRZ_CODEC_NOMEM;
    }
    trz_buf *st = a->streams;
    trz_put_u8(&st[UOP_S_CMVER], UOP_CM_VERSION);
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
        int ok = n < UOP_MAX_LINE && uop_parse(lay, p, n, &x) == 0 && strings_fit(m);
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
    free(buf);
    cm_free(m);
#ifdef UOP_STATS
    for (int i = 0; i < 18; i++) fprintf(stderr, "%s %.0f  ", fname[i], uop_cost[i] / 8);
    memset(uop_cost, 0, sizeof uop_cost);
    fprintf(stderr, "evictions %ld lines %ld fresh %ld miss %ld | ctl %zu stat %zu addr %zu\n", uop_st[3], uop_st[0], uop_st[1], uop_st[2], st[UOP_S_CMCTL].n, st[UOP_S_CMSTAT].n, st[UOP_S_CMADDR].n);
    memset(uop_st, 0, sizeof uop_st);
#endif
    if (!rc_ok || p < end) return TRZ_CODEC_NOMEM;
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

int uop_cm_decode(const trz_dec_args *a, trz_rd *hdr, trz_rd *esc, const layout_t *lay, uint64_t nlines,
                  uint64_t nesc)
{
    if (a->stream_len[UOP_S_CMVER] != 1 || a->stream[UOP_S_CMVER][0] != UOP_CM_VERSION)
        return TRZ_CODEC_UNSUPPORTED;
    (void)hdr;
    cm_t *m = cm_new(nlines);
    uint8_t *buf = malloc(UOP_MAX_LINE);
    if (!m || !buf) {
        cm_free(m);
        free(buf);
        return TRZ_CODEC_NOMEM;
    }
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
    free(buf);
    cm_free(m);
    return rv == 0 ? TRZ_CODEC_OK : TRZ_CODEC_CORRUPT;
}
