/* pbus.c - codec for PEL Pentium bus traces (6-byte records: big-endian
 * address, byte-enable byte, control byte).  The control byte is predicted
 * like BYU's request kind, the address per transaction class (addrmodel.h),
 * the byte enables from type and address alignment; at levels >= 6 a chunk
 * may instead be arithmetic-coded (cm.h).  The variants and the level table
 * are at the end.  Format: codecs/bus/pbus.md. */
#include "../codec.h"
#include "hot.h"
#include "addrmodel.h"
#include "bus_cm.h"
#include "bus_match.h"
#include "lean.h"
#include "pbus_fmt.h"

enum { S_CTL, S_FCODE, S_DCODE, S_FDELTA, S_DDELTA, S_BECODE, S_BE, S_FNEAR, S_DNEAR, S_MODE, S_COUNT, S_CM = 15 };
/* Stream path models, named by stream S_MODE (absent = M_CYCLE); the lean
 * ones code addresses with lean.h, their codes beside the kinds in S_CTL. */
enum { M_CYCLE, M_EXACT, M_EXACT_ILV, M_LEAN_CYCLE, M_LEAN_EXACT };
#define M_LAST M_LEAN_EXACT /* modes above are another version's */
#define M_FEED 16 /* added to the mode: in a chain, the chunk's records go on into the match model */
#define LN_BE 8 /* lean cycle model: code bit "the byte enables follow in S_BE" */
#define K_ESC 255    /* exact model: kind id escape, the kind follows in becode */
#define MODE_SAMPLE 65536 /* records of a chunk's prefix that choose the model */
#define LN_MODE_SAMPLE 16384 /* the same for the lean models (the fast levels) */

static const char *const stream_names[S_COUNT] = {
    "ctl", "fetchcode", "datacode", "fetchmiss", "datamiss", "becode", "be", "fetchnear", "datanear", "mode",
};

typedef struct pbus_state {
    am_model am;
    am_proc proc;
    ln_model ln;        /* the lean models' tables (instead of am's) */
    uint8_t be[16 * 8]; /* last byte enables per (type, address & 7) */
    int mode;           /* stream path: M_CYCLE, M_EXACT or M_EXACT_ILV */
    /* exact model: kinds (control byte, run length 0-8) get ids in order of
     * first appearance (<= 255 of them), so that repeated sequences stay
     * repeats for the back-end */
    uint8_t kid[256][9]; /* kind -> id + 1, 0 = none yet */
    uint16_t kinds[K_ESC]; /* id -> control byte | length << 8 */
    unsigned nkinds;
    ln_proc lp;         /* the lean models' processor state between chunks */
    unsigned live;      /* ST_*: what holds a chain's state (codec.h, "Chains") */
} pbus_state;

/* pbus_state.live: in a chain, the state that the chunk before left (the
 * processor, byte enables and kinds), and which address model's tables
 * and which arithmetic models (the range or mix model, its hashed tables,
 * the fast model) hold it; 0 outside a chain or before its first chunk,
 * so that a state begun afresh never keeps a model of an earlier one. */
#define ST_LIVE 1
#define ST_AM 2
#define ST_LN 4
#define ST_CM 8
#define ST_HX 16
#define ST_FM 32
#define ST_MT 64 /* the match model (pbus_model.match): with ST_CM, or started alone by a feed */

/* Levels (codec.h, "Levels"): the variant, and the knobs its encoder reads. */
typedef struct pbus_level {
    uint8_t variant;  /* index into pbus_variants */
    uint8_t all_refs; /* the mixed model tries every reference (bus_set_refs) */
} pbus_level;
TRZ_LEVEL_ROW(pbus_level);

typedef struct pbus_cm pbus_cm; /* the range and mix variants' model (below) */
typedef struct pbus_fm pbus_fm; /* range-fast's */

/* The codec's model (trz_model): the state every variant keeps, and each
 * arithmetic variant's tables, made at its first chunk. */
typedef struct pbus_model {
    const pbus_level *lv; /* the level's row (row 0 when decoding) */
    pbus_state st;
    cm_coder coder;
    pbus_cm *cm;
    pbus_fm *fm;
    bus_match match; /* the chain's match model: its own, so that a fed stream-path chunk needs none of cm's tables */
    /* Encoder in a chain: the model its trials code with (made at the
     * first trial), so that they leave the chain's state alone. */
    struct pbus_model *trial;
} pbus_model;

static unsigned ctl_class(uint8_t ctl)
{
    switch (ctl >> 4) {
    case 8: case 9: return AM_FETCH;
    case 12: case 13: return AM_READ;
    case 14: case 15: return AM_WRITE;
    default: return AM_OTHER;
    }
}

/* The exact model (codecs/bus/pbus.md): byte enables whose requested bytes
 * (zero bits) form one run, at an 8-byte-aligned address, are the run's
 * first byte and length.  Traces made at instruction grain (a tool's, or
 * BYU traces converted) then show the byte addresses and access sizes the
 * program used: fetches step by the instruction's length and data by its
 * element size, where bus cycles hide both.  Sets *off and *len and
 * returns 1 for such byte enables. */
static int be_run(uint8_t be, unsigned *off, unsigned *len)
{
    uint32_t req = (uint8_t)~be;
    if (!req) return 0;
    unsigned o = trz_ctz32(req);
    uint32_t r = req >> o;
    if (r & (r + 1)) return 0; /* requested bytes not contiguous */
    *off = o;
    *len = trz_popcount32(r);
    return 1;
}

/* Exact model: gives kind (ctl, len) the next id, while ids remain. */
static void kind_add(pbus_state *s, uint8_t ctl, unsigned len)
{
    if (s->nkinds < K_ESC) {
        s->kinds[s->nkinds++] = (uint16_t)(ctl | len << 8);
        s->kid[ctl][len] = (uint8_t)s->nkinds;
    }
}

/* s ready for a chunk of nrec records, with the lean models' tables or
 * addrmodel.h's, kept in s from the chunk before where they fit.  In a
 * chain (chain = 1) whose state s holds, the chunk starts from that state
 * instead, the tables as the chain's first chunk sized them.  0, or -1 on
 * no memory. */
static int st_open(pbus_state *s, uint64_t nrec, int lean, int chain)
{
    unsigned need = lean ? ST_LN : ST_AM;
    if (chain && s->live) {
        if (!(s->live & need)) { /* the chain's first chunk with this model */
            if ((lean ? ln_init(&s->ln, nrec) : am_init(&s->am, nrec)) != 0) return -1;
            s->live |= need;
        }
        return 0;
    }
    am_model am = s->am;
    ln_model ln = s->ln;
    memset(s, 0, sizeof *s);
    s->am = am;
    s->ln = ln;
    s->proc.step = 8;
    ln_proc_init(&s->lp);
    if ((lean ? ln_init(&s->ln, nrec) : am_init(&s->am, nrec)) != 0) return -1;
    s->live = chain ? ST_LIVE | need : 0;
    return 0;
}

/* After a chunk: its state kept for a chain's next one (keep), or the
 * chain's state ended (a chunk that fails ends it: the container drops
 * the chain then). */
static void st_close(pbus_state *s, int keep)
{
    if (!keep) s->live = 0;
}

/* Gives back all that s holds (with the model). */
static void st_free(pbus_state *s)
{
    am_free(&s->am);
    ln_free(&s->ln);
}

/* ---- encoder ------------------------------------------------------------- */

TRZ_FORCE_INLINE void enc_record(pbus_state *s, trz_buf *st, const uint8_t *r)
{
    am_proc *p = &s->proc;
    uint8_t ctl = r[5];
    unsigned c = ctl_class(ctl), off = 0, len = 0;
    uint32_t addr = trz_ld_be32(r), step = 8;
    if (s->mode == M_CYCLE) trz_put_u8(&st[S_CTL], ctl); /* as is: repeats of control sequences stay repeats */
    else {
        if ((addr & 7) != 0 || !be_run(r[4], &off, &len)) len = 0; /* byte enables follow whole */
        uint8_t id = s->kid[ctl][len];
        trz_put_u8(&st[S_CTL], (uint8_t)(id ? id - 1 : K_ESC));
        if (!id) {
            trz_put_u8(&st[S_BECODE], ctl);
            trz_put_u8(&st[S_BECODE], (uint8_t)len);
            kind_add(s, ctl, len);
        }
        if (!len) trz_put_u8(&st[S_BE], r[4]);
        else step = len;
        addr += off; /* the first requested byte */
    }
    unsigned code = am_code(&s->am, p, c, addr);
    trz_put_u8(&st[c == AM_FETCH ? S_FCODE : S_DCODE], (uint8_t)code);
    if (code >= AM_NEAR)
        am_put_miss(&st[c == AM_FETCH ? S_FDELTA : S_DDELTA], &st[c == AM_FETCH ? S_FNEAR : S_DNEAR], code, addr,
                 am_base(&s->am, p, c));
    if (s->mode == M_CYCLE) {
        uint8_t *bp = &s->be[(ctl >> 4) * 8 + (addr & 7)];
        trz_put_u8(&st[S_BECODE], r[4] != *bp);
        if (r[4] != *bp) trz_put_u8(&st[S_BE], r[4]);
        *bp = r[4];
    }
    am_update(&s->am, p, c, addr, step);
}

/* The stream path with model mode (M_EXACT: M_EXACT_ILV where the
 * interleaved layout compresses smaller at back-end level zl; a fast
 * level, as for BYU: comparing at level 9 found under 1% more on three
 * tool-made traces, for the cost of compressing the streams twice more). */
static int match_feed(pbus_model *m, const uint8_t *r, uint64_t nrec);

TRZ_HOT_CLONES static int zs_encode_mode(const trz_enc_args *a, pbus_model *m, int mode, int zl, int feed)
{
    pbus_state *s = &m->st;
    int rc = st_open(s, a->nrec, 0, a->chain) != 0 ? TRZ_CODEC_NOMEM : TRZ_CODEC_OK;
    feed = feed && a->chain;
    s->mode = mode;
    for (uint64_t i = 0; rc == TRZ_CODEC_OK && i < a->nrec; i++)
        enc_record(s, a->streams, a->in + i * 6);
    if (rc == TRZ_CODEC_OK && mode == M_EXACT) {
        int ilv = bus_interleave(a, a->streams, S_CTL, S_FCODE, S_DCODE, a->in, 6, 5, ctl_class, zl);
        if (ilv < 0) rc = TRZ_CODEC_NOMEM;
        trz_put_u8(&a->streams[S_MODE], ilv == 1 ? M_EXACT_ILV : M_EXACT);
    }
    if (rc == TRZ_CODEC_OK && feed) { /* the cycle model's mode byte is absent: then M_FEED alone */
        trz_buf *b = &a->streams[S_MODE];
        if (b->n) b->p[0] |= M_FEED;
        else trz_put_u8(b, M_FEED | M_CYCLE);
    }
    for (int i = 0; rc == TRZ_CODEC_OK && i < S_COUNT; i++)
        if (a->streams[i].oom) rc = TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK && feed && match_feed(m, a->in, a->nrec) != 0) rc = TRZ_CODEC_NOMEM;
    st_close(s, a->chain && rc == TRZ_CODEC_OK);
    return rc;
}

/* Encoder: the model the trials of a chunk code with.  m itself outside
 * a chain, or at its first chunk (m holds no chain's state yet: a trial
 * codes as a chunk alone, which leaves none, and a path that gives up
 * leaves none either, so the chunk starts from a fresh model whichever
 * path codes it); else pbus_model.trial, made at the first such chunk.
 * NULL on no memory. */
static pbus_model *pbus_trial_model(pbus_model *m, int chain)
{
    if (!chain || !m->st.live) return m;
    if (!m->trial && (m->trial = calloc(1, sizeof *m->trial))) m->trial->lv = m->lv;
    return m->trial;
}

/* A stream-path model tried on a chunk's prefix (bus_trial's arg). */
typedef struct pbus_try {
    pbus_model *m;
    int mode; /* zs_encode_mode's; ln_encode_mode's exact */
} pbus_try;

/* zs_encode_mode as bus_trial calls it. */
static int zs_encode_cb_mode(const trz_enc_args *a, const void *arg)
{
    const pbus_try *t = arg;
    return zs_encode_mode(a, t->m, t->mode, BUS_LAYOUT_ZLEVEL, 0);
}

/* Encoder: the model that codes the chunk's prefix smaller after the
 * back-end (at a fast level).  The cycle model wins where cycle addresses
 * are regular and the byte runs within them are not (the exact model's
 * addresses would scatter); on bus captures the two come out close.
 * Returns the mode or a negative error code. */
static int pick_mode(const trz_enc_args *a, pbus_model *m)
{
    if (!(m = pbus_trial_model(m, a->chain))) return TRZ_CODEC_NOMEM;
    static const int modes[2] = { M_CYCLE, M_EXACT };
    size_t sz[2];
    for (int i = 0; i < 2; i++) {
        pbus_try t = { m, modes[i] };
        int rc = bus_trial(a, 6, MODE_SAMPLE, zs_encode_cb_mode, &t, BUS_LAYOUT_ZLEVEL, &sz[i]);
        if (rc != TRZ_CODEC_OK) return rc;
    }
    return sz[1] < sz[0] ? M_EXACT : M_CYCLE;
}

/* The streams variant: the stream path with the model that codes the
 * chunk's prefix smaller; written where a variant above finds it smaller. */
static int zs_encode_feed(const trz_enc_args *a, trz_model *tm, int feed)
{
    if (a->len != a->nrec * 6) return TRZ_CODEC_UNSUPPORTED;
    pbus_model *m = (pbus_model *)tm;
    int mode = pick_mode(a, m);
    return mode < 0 ? mode : zs_encode_mode(a, m, mode, BUS_LAYOUT_ZLEVEL, feed);
}

static int zs_encode(const trz_enc_args *a, trz_model *tm) { return zs_encode_feed(a, tm, 0); }

/* ---- the lean models (lean.h) --------------------------------------------- */

/* Encoder: the chunk with the lean cycle model (exact = 0) or the lean
 * exact model: each record's kind byte (the control byte, or the exact
 * model's kind id) and address code side by side in S_CTL; in the cycle
 * model the code's bit LN_BE says the byte enables differ from the table's
 * and follow in S_BE.  The state lives in locals (stores through the
 * streams' bytes would reload every field after them). */
TRZ_HOT_CLONES static int ln_encode_mode(const trz_enc_args *a, pbus_model *m, int exact)
{
    trz_buf *st = a->streams;
    pbus_state *s = &m->st;
    int rc = st_open(s, a->nrec, 1, a->chain) != 0 || trz_buf_reserve(&st[S_CTL], 2 * a->nrec) != 0
                 ? TRZ_CODEC_NOMEM
                 : TRZ_CODEC_OK;
    uint8_t *kc = rc == TRZ_CODEC_OK ? st[S_CTL].p + st[S_CTL].n : NULL;
    if (kc) st[S_CTL].n += 2 * a->nrec;
    uint32_t *succ = s->ln.succ;
    ln_slot *slot = s->ln.slot;
    const unsigned sh = 32u - (unsigned)s->ln.bits;
    uint32_t pc = s->lp.pc, step = s->lp.step, k = s->lp.k, last[AM_NCLS], stride[AM_NCLS];
    memcpy(last, s->lp.last, sizeof last);
    memcpy(stride, s->lp.stride, sizeof stride);
    const uint8_t *r = a->in, *end = a->in + (kc ? a->nrec * 6 : 0);
    for (; r < end; r += 6, kc += 2) {
        uint8_t ctl = r[5], be = r[4];
        unsigned c = ctl_class(ctl), off = 0, len = 0, code;
        uint32_t addr = trz_ld_be32(r), fstep = 8;
        if (exact) {
            if ((addr & 7) != 0 || !be_run(be, &off, &len)) len = 0; /* byte enables follow whole */
            uint8_t id = s->kid[ctl][len];
            kc[0] = (uint8_t)(id ? id - 1 : K_ESC);
            if (!id) {
                trz_put_u8(&st[S_BECODE], ctl);
                trz_put_u8(&st[S_BECODE], (uint8_t)len);
                kind_add(s, ctl, len);
            }
            if (!len) trz_put_u8(&st[S_BE], be);
            else fstep = len;
            addr += off; /* the first requested byte */
        } else kc[0] = ctl;
        if (c == AM_FETCH) {
            uint32_t *sp = &succ[(pc * 0x9E3779B1u) >> sh], ft = pc + step;
            code = addr == ft ? 0 : addr == *sp ? 1 : addr == pc ? 2
                 : addr - pc + LN_NEAR_MAX < 2u * LN_NEAR_MAX ? LN_NEAR : LN_FAR;
            if (code >= LN_NEAR) ln_put_miss(&st[S_FDELTA], &st[S_FNEAR], code, addr, pc);
            if (addr != ft) *sp = addr;
            pc = addr;
            step = fstep;
            k = 0;
        } else {
            ln_slot *sl = &slot[((pc ^ k * 0x5bd1e995u) * 0x9E3779B1u) >> sh];
            const uint32_t sla = sl->last;
            code = addr == sla + sl->stride ? 0 : addr == sla ? 1 : addr == last[c] + stride[c] ? 2
                 : addr == last[c] ? 3 : addr - sla + LN_NEAR_MAX < 2u * LN_NEAR_MAX ? LN_NEAR : LN_FAR;
            if (code >= LN_NEAR) ln_put_miss(&st[S_DDELTA], &st[S_DNEAR], code, addr, sla);
            sl->stride = addr - sla;
            sl->last = addr;
            k += k < LN_KMAX;
        }
        stride[c] = addr - last[c];
        last[c] = addr;
        if (!exact) {
            uint8_t *bp = &s->be[(ctl >> 4) * 8 + (addr & 7)];
            if (be != *bp) {
                code |= LN_BE;
                trz_put_u8(&st[S_BE], be);
                *bp = be;
            }
        }
        kc[1] = (uint8_t)code;
    }
    s->lp.pc = pc, s->lp.step = step, s->lp.k = k; /* for a chain's next chunk */
    memcpy(s->lp.last, last, sizeof last);
    memcpy(s->lp.stride, stride, sizeof stride);
    trz_put_u8(&st[S_MODE], exact ? M_LEAN_EXACT : M_LEAN_CYCLE);
    for (int i = 0; rc == TRZ_CODEC_OK && i < S_COUNT; i++)
        if (st[i].oom) rc = TRZ_CODEC_NOMEM;
    st_close(s, a->chain && rc == TRZ_CODEC_OK);
    return rc;
}

/* ln_encode_mode as bus_trial calls it (mode: exact). */
static int ln_encode_cb(const trz_enc_args *a, const void *arg)
{
    const pbus_try *t = arg;
    return ln_encode_mode(a, t->m, t->mode);
}

/* The streams-lean variant: the lean model whose prefix sizes smaller (as
 * pick_mode). */
static int ln_encode(const trz_enc_args *a, trz_model *tm)
{
    if (a->len != a->nrec * 6) return TRZ_CODEC_UNSUPPORTED;
    pbus_model *m = (pbus_model *)tm, *tr = pbus_trial_model(m, a->chain);
    if (!tr) return TRZ_CODEC_NOMEM;
    size_t sz[2];
    for (int i = 0; i < 2; i++) {
        pbus_try t = { tr, i };
        int rc = bus_trial(a, 6, LN_MODE_SAMPLE, ln_encode_cb, &t, BUS_LAYOUT_ZLEVEL, &sz[i]);
        if (rc != TRZ_CODEC_OK) return rc;
    }
    return ln_encode_mode(a, m, sz[1] < sz[0]);
}

/* ---- decoder ------------------------------------------------------------- */

TRZ_FORCE_INLINE int dec_record(pbus_state *s, trz_rd *rd, uint8_t *out)
{
    am_proc *p = &s->proc;
    uint8_t ctl, be = 0;
    unsigned len = 0;
    if (s->mode == M_CYCLE) ctl = trz_get_u8(&rd[S_CTL]);
    else {
        unsigned id = trz_get_u8(&rd[S_CTL]), kind;
        if (id < s->nkinds) kind = s->kinds[id];
        else if (id == K_ESC) {
            kind = trz_get_u8(&rd[S_BECODE]);
            kind |= (unsigned)trz_get_u8(&rd[S_BECODE]) << 8;
            if (kind >> 8 > 8 || s->kid[kind & 255][kind >> 8]) return -1; /* a known kind must use its id */
            kind_add(s, (uint8_t)kind, kind >> 8);
        } else return -1;
        ctl = (uint8_t)kind;
        len = kind >> 8;
        if (!len) be = trz_get_u8(&rd[S_BE]);
    }

    unsigned c = ctl_class(ctl);
    unsigned code = trz_get_u8(&rd[s->mode == M_EXACT_ILV ? S_CTL : c == AM_FETCH ? S_FCODE : S_DCODE]);
    uint32_t addr, bus, step = 8;
    if (code < AM_NEAR) addr = am_decode(&s->am, p, c, code);
    else if (code <= AM_MISS) {
        if (am_get_miss(&rd[c == AM_FETCH ? S_FDELTA : S_DDELTA], &rd[c == AM_FETCH ? S_FNEAR : S_DNEAR], code, p, c,
                        am_base(&s->am, p, c), &addr) != 0)
            return -1;
    } else return -1;
    bus = addr;
    if (s->mode == M_CYCLE) {
        uint8_t *bp = &s->be[(ctl >> 4) * 8 + (addr & 7)];
        uint8_t bc = trz_get_u8(&rd[S_BECODE]);
        if (bc > 1) return -1;
        if (bc) *bp = trz_get_u8(&rd[S_BE]);
        be = *bp;
    } else if (len) {
        unsigned off = addr & 7;
        if (off + len > 8) return -1; /* a run within the 8-byte cycle */
        be = (uint8_t)~(((1u << len) - 1) << off);
        bus = addr - off;
        step = len;
    }
    am_update(&s->am, p, c, addr, step);
    trz_st_be32(out, bus);
    out[4] = be;
    out[5] = ctl;
    return 0;
}

/* Decoder of the lean models (ln_encode_mode); rd as zs_decode sets them
 * up. */
TRZ_HOT_CLONES static int ln_decode(pbus_state *s, trz_rd *rd, const trz_dec_args *a)
{
    const int exact = s->mode == M_LEAN_EXACT;
    if (trz_rd_left(&rd[S_CTL]) != 2 * a->nrec) return TRZ_CODEC_CORRUPT; /* a kind and a code a record */
    const uint8_t *kc = rd[S_CTL].p;
    uint32_t *succ = s->ln.succ;
    ln_slot *slot = s->ln.slot;
    const unsigned sh = 32u - (unsigned)s->ln.bits;
    uint32_t pc = s->lp.pc, step = s->lp.step, k = s->lp.k, last[AM_NCLS], stride[AM_NCLS];
    memcpy(last, s->lp.last, sizeof last);
    memcpy(stride, s->lp.stride, sizeof stride);
    uint8_t *out = a->out, *end = a->out + a->nrec * 6;
    for (; out < end; out += 6, kc += 2) {
        uint8_t ctl, be = 0;
        unsigned len = 0, code = kc[1];
        if (exact) {
            unsigned id = kc[0], kind;
            if (id < s->nkinds) kind = s->kinds[id];
            else if (id == K_ESC) {
                kind = trz_get_u8(&rd[S_BECODE]);
                kind |= (unsigned)trz_get_u8(&rd[S_BECODE]) << 8;
                if (kind >> 8 > 8 || s->kid[kind & 255][kind >> 8]) return TRZ_CODEC_CORRUPT; /* a known kind must use its id */
                kind_add(s, (uint8_t)kind, kind >> 8);
            } else return TRZ_CODEC_CORRUPT;
            ctl = (uint8_t)kind;
            len = kind >> 8;
            if (!len) be = trz_get_u8(&rd[S_BE]);
        } else ctl = kc[0];
        unsigned c = ctl_class(ctl), cd = code & ~(unsigned)(exact ? 0 : LN_BE);
        uint32_t addr;
        if (c == AM_FETCH) {
            uint32_t *sp = &succ[(pc * 0x9E3779B1u) >> sh], ft = pc + step;
            if (cd == 0) addr = ft;
            else if (cd == 1) addr = *sp;
            else if (cd == 2) addr = pc;
            else {
                const uint32_t cand[4] = { 0, 0, 0, 0 };
                if ((cd != LN_NEAR && cd != LN_FAR) || ln_addr(cand, c, cd, pc, &rd[S_FDELTA], &rd[S_FNEAR], &addr) != 0)
                    return TRZ_CODEC_CORRUPT;
            }
            if (addr != ft) *sp = addr;
            pc = addr;
            k = 0;
        } else {
            ln_slot *sl = &slot[((pc ^ k * 0x5bd1e995u) * 0x9E3779B1u) >> sh];
            const uint32_t sla = sl->last, cand[4] = { sla + sl->stride, sla, last[c] + stride[c], last[c] };
            if (cd < 4) addr = cand[cd];
            else if (cd >= LN_NCODE || ln_addr(cand, c, cd, sla, &rd[S_DDELTA], &rd[S_DNEAR], &addr) != 0)
                return TRZ_CODEC_CORRUPT;
            sl->stride = addr - sla;
            sl->last = addr;
            k += k < LN_KMAX;
        }
        stride[c] = addr - last[c];
        last[c] = addr;
        uint32_t bus = addr;
        if (!exact) {
            uint8_t *bp = &s->be[(ctl >> 4) * 8 + (addr & 7)];
            if (code & LN_BE) {
                uint8_t nb = trz_get_u8(&rd[S_BE]);
                if (nb == *bp) return TRZ_CODEC_CORRUPT; /* the same byte goes without the bit */
                *bp = nb;
            }
            be = *bp;
            if (c == AM_FETCH) step = 8;
        } else {
            if (len) {
                unsigned off = addr & 7;
                if (off + len > 8) return TRZ_CODEC_CORRUPT; /* a run within the 8-byte cycle */
                be = (uint8_t)~(((1u << len) - 1) << off);
                bus = addr - off;
            }
            if (c == AM_FETCH) step = len ? len : 8;
        }
        trz_st_be32(out, bus);
        out[4] = be;
        out[5] = ctl;
    }
    s->lp.pc = pc, s->lp.step = step, s->lp.k = k; /* for a chain's next chunk */
    memcpy(s->lp.last, last, sizeof last);
    memcpy(s->lp.stride, stride, sizeof stride);
    rd[S_CTL].p = kc;
    return TRZ_CODEC_OK;
}

TRZ_HOT_CLONES static int zs_decode(const trz_dec_args *a, trz_model *tm)
{
    if (a->nrec > a->len / 6 || a->len != a->nrec * 6) return TRZ_CODEC_CORRUPT;
    for (int i = S_COUNT; i < TRZ_MAX_STREAMS; i++)
        if (a->stream_len[i]) return TRZ_CODEC_CORRUPT;
    trz_rd rd[S_COUNT];
    for (int i = 0; i < S_COUNT; i++)
        trz_rd_init(&rd[i], a->stream[i], a->stream[i] ? a->stream_len[i] : 0);
    int mode = M_CYCLE, feed = 0; /* the chunk names its model in S_MODE, one byte (the cycle model when empty) */
    if (trz_rd_left(&rd[S_MODE])) {
        mode = trz_get_u8(&rd[S_MODE]);
        feed = mode >= M_FEED && mode <= (M_FEED | M_LAST);
        if (feed) mode -= M_FEED;
        if (mode > M_LAST) return TRZ_CODEC_UNSUPPORTED; /* another version's model */
        if ((mode == M_CYCLE && !feed) || trz_rd_left(&rd[S_MODE]) || (feed && !a->chain)) return TRZ_CODEC_CORRUPT;
    }
    int lean = mode >= M_LEAN_CYCLE;
    pbus_state *s = &((pbus_model *)tm)->st;
    int rc = st_open(s, a->nrec, lean, a->chain) != 0 ? TRZ_CODEC_NOMEM : TRZ_CODEC_OK;
    s->mode = mode;
    if (rc == TRZ_CODEC_OK && lean) rc = ln_decode(s, rd, a);
    for (uint64_t i = 0; rc == TRZ_CODEC_OK && !lean && i < a->nrec; i++)
        if (dec_record(s, rd, a->out + i * 6) != 0) rc = TRZ_CODEC_CORRUPT;
    for (int i = 0; rc == TRZ_CODEC_OK && i < S_COUNT; i++)
        if (rd[i].err || trz_rd_left(&rd[i]) != 0) rc = TRZ_CODEC_CORRUPT;
    if (rc == TRZ_CODEC_OK && feed && match_feed((pbus_model *)tm, a->out, a->nrec) != 0) rc = TRZ_CODEC_NOMEM;
    st_close(s, a->chain && rc == TRZ_CODEC_OK);
    return rc;
}

/* ---- arithmetic-coded path: the range and mix variants ------------------------ */

/* Variant 6 in a chain: the match model (bus_match.h). */

struct pbus_cm {
    bus_acm a;
    cm_p ctl[16][16][256]; /* by the types of the last two records */
    cm_p ctl2[16][16][4][256]; /* by the types of the last two records and the one before, coarsely */
    cm_p ctl3[16][BUS_NB][256]; /* by the last type and its address code bucket */
    int32_t cw[256][CM_MAXIN];
    cm_p besame[16 * 8];   /* by (type, address & 7) */
    cm_p be[16][256];      /* by type */
    uint16_t apc[16][256 * CM_APM_N]; /* refinement of the control byte by the last type */
    uint8_t t1, t2, t3;    /* types (ctl >> 4) of the last three records */
    /* the match model (pbus_model.match): on (mt) for variant 6 in a chain */
    int mt;
    bus_match *match;
};

static void cm_model_init(pbus_cm *m)
{
    bus_acm_init(&m->a);
    cm_init_probs(&m->ctl[0][0][0], sizeof m->ctl / sizeof(cm_p));
    cm_init_probs(&m->ctl2[0][0][0][0], sizeof m->ctl2 / sizeof(cm_p));
    cm_init_probs(&m->ctl3[0][0][0], sizeof m->ctl3 / sizeof(cm_p));
    cm_init_weights(m->cw, 256, CM_W0 * 3 / 2);
    cm_init_probs(m->besame, sizeof m->besame / sizeof(cm_p));
    cm_init_probs(&m->be[0][0], sizeof m->be / sizeof(cm_p));
    m->t1 = m->t2 = m->t3 = 0;
    cm_apm_init(&m->apc[0][0], 16 * 256);
}

static int mt_guess(pbus_cm *m, cm_coder *c, uint8_t *r) { return bus_match_guess(m->match, c, r, 6); }

/* A record's hash, by which the match model finds it again. */
static uint32_t mt_hash(const uint8_t *r)
{
    return cm_mix32(trz_ld_be32(r) * 0x9E3779B1u ^ (uint32_t)(r[4] | r[5] << 8) * 0x85EBCA6Bu);
}

/* After each record r: the match model's history and guess. */
static void mt_next(pbus_cm *m, const uint8_t *r) { bus_match_next(m->match, r, 6, mt_hash(r)); }

static int cm_fields(pbus_state *s, pbus_cm *m, cm_coder *c, uint8_t *r);

/* One record, both directions: r holds the record (encoding) or receives
 * it (decoding).  A record the match model predicts is that bit alone:
 * the models below neither code nor learn it. */
static int cm_record(pbus_state *s, pbus_cm *m, cm_coder *c, uint8_t *r)
{
    if (!m->mt) return cm_fields(s, m, c, r);
    int rc = mt_guess(m, c, r) ? TRZ_CODEC_OK : cm_fields(s, m, c, r);
    if (rc == TRZ_CODEC_OK) mt_next(m, r);
    return rc;
}

/* The record's fields through the models. */
static int cm_fields(pbus_state *s, pbus_cm *m, cm_coder *c, uint8_t *r)
{
    am_proc *p = &s->proc;
    CM_FIELD(c, 1);
    cm_p *ts[3] = { m->ctl[m->t1][m->t2], m->ctl2[m->t1][m->t2][m->t3 >> 2], m->ctl3[m->t1][m->a.lastany] };
    uint32_t sd[3] = { 0, 0, 0 };
    if (c->mix) {
        sd[0] = bus_pck(p, 100 + m->t1);
        sd[1] = bus_pck(p, 0x20000 + m->t1 * 256 + m->t2 * 16 + m->t3);
        sd[2] = bus_ack2(p->a1, p->a2, 0x100 + m->t1);
    }
    uint8_t ctl = r[5] = (uint8_t)cm_mtree_ha(c, ts, 3, m->a.hx, m->a.hbits, sd, 3, m->cw, 8, r[5],
                                              m->apc[m->t1]);
    CM_FIELD(c, 2);
    unsigned cls = ctl_class(ctl);
    int bad = 0;
    unsigned ext = (unsigned)(ctl >> 4) << 2 | (m->t1 >> 2); /* this type, the last one coarsely */
    uint32_t addr = bus_addr(c, &m->a, &s->am, p, cls, trz_ld_be32(r), ext, &bad);
    if (bad) return TRZ_CODEC_CORRUPT;
    am_update(&s->am, p, cls, addr, 8);
    trz_st_be32(r, addr);
    CM_FIELD(c, 5);
    unsigned bi = (ctl >> 4) * 8 + (addr & 7);
    uint8_t *bp = &s->be[bi];
    if (cm_bit(c, &m->besame[bi], r[4] == *bp)) r[4] = *bp;
    else if ((r[4] = (uint8_t)cm_tree(c, m->be[ctl >> 4], 8, r[4])) == *bp) return TRZ_CODEC_CORRUPT;
    *bp = r[4];
    m->t3 = m->t2;
    m->t2 = m->t1;
    m->t1 = (uint8_t)(ctl >> 4);
    return TRZ_CODEC_OK;
}

/* ---- fast model (bus_fast.h): the range-fast variant ------------------------- */

/* The same fields as above: the control byte first guessed from the
 * record's slot (bf_slot), then the address (bf_addr) and the byte enables
 * with one probability per decision. */
struct pbus_fm {
    bf_acm a;
    bf_slots slots;
    bf_p csame[4][16][16];  /* "the slot's control byte again" by its hist and the last two types */
    bf_p ctl[16][16][256];  /* the control byte by the types of the last two records */
    bf_p besame[16 * 8];    /* byte enables as last time, by (type, address & 7) */
    bf_p be[16][256];       /* by type */
    uint8_t t1, t2;         /* types (ctl >> 4) of the last two records */
};

/* The state and the fast model ready for a chunk of nrec records; in a
 * chain (chain = 1), the chain's where it holds it.  0, or -1 on no
 * memory. */
static int fm_open(pbus_model *mm, uint64_t nrec, int chain)
{
    if (st_open(&mm->st, nrec, 0, chain) != 0) return -1;
    if (!mm->fm && !(mm->fm = trz_big_calloc(sizeof *mm->fm))) return -1;
    if (chain && (mm->st.live & ST_FM)) return 0;
    if (chain) mm->st.live |= ST_FM;
    pbus_fm *m = mm->fm;
    if (bf_slots_open(&m->slots, nrec)) return -1;
    bf_acm_init(&m->a);
    bf_init(&m->csame[0][0][0], sizeof m->csame / sizeof(bf_p));
    bf_init(&m->ctl[0][0][0], sizeof m->ctl / sizeof(bf_p));
    bf_init(m->besame, sizeof m->besame / sizeof(bf_p));
    bf_init(&m->be[0][0], sizeof m->be / sizeof(bf_p));
    m->t1 = m->t2 = 0;
    return 0;
}

TRZ_FORCE_INLINE int fm_record(pbus_state *s, pbus_fm *m, rc *c, uint8_t *r)
{
    am_proc *p = &s->proc;
    bf_slot *sl = bf_slot_at(&m->slots, p);
    int hit = BF_BIT(c, &m->csame[bf_h(sl, 0)][m->t1][m->t2], r[5] == sl->kind);
    bf_hit(sl, 0, hit);
    if (hit) r[5] = sl->kind;
    else {
        r[5] = (uint8_t)bf_tree(c, m->ctl[m->t1][m->t2], 8, r[5]);
        if (r[5] == sl->kind) return TRZ_CODEC_CORRUPT; /* the slot's byte uses the guess */
        sl->kind = r[5];
    }
    uint8_t ctl = r[5];
    unsigned cls = ctl_class(ctl);
    int bad = 0;
    uint32_t addr = bf_addr(c, &m->a, &s->am, p, sl, cls, trz_ld_be32(r), &bad);
    if (bad) return TRZ_CODEC_CORRUPT;
    am_update(&s->am, p, cls, addr, 8);
    trz_st_be32(r, addr);
    unsigned bi = (ctl >> 4) * 8 + (addr & 7);
    uint8_t *bp = &s->be[bi];
    if (BF_BIT(c, &m->besame[bi], r[4] == *bp)) r[4] = *bp;
    else if ((r[4] = (uint8_t)bf_tree(c, m->be[ctl >> 4], 8, r[4])) == *bp) return TRZ_CODEC_CORRUPT;
    *bp = r[4];
    m->t2 = m->t1;
    m->t1 = (uint8_t)(ctl >> 4);
    return TRZ_CODEC_OK;
}

BUS_FAST_LOOPS(fm_enc_loop, fm_dec_loop, fm_record, 6, pbus_state, pbus_fm)

/* ---- the arithmetic variants -------------------------------------------------- */

BUS_CM_LOOPS(cm_enc_loop, cm_dec_loop, cm_record, 6, pbus_state, pbus_cm)

/* The state and the range or mix model ready for a chunk of nrec records;
 * in a chain (chain = 1), the chain's where it holds it.  0, or -1 on no
 * memory. */
static int cm_open(pbus_model *m, uint64_t nrec, int mix, int chain)
{
    if (st_open(&m->st, nrec, 0, chain) != 0) return -1;
    if (!m->cm && !(m->cm = trz_big_calloc(sizeof *m->cm))) return -1;
    if (!chain || !(m->st.live & ST_CM)) {
        cm_model_init(m->cm);
        if (!chain || !(m->st.live & ST_MT)) bus_match_reset(&m->match); /* unless a feed started it */
        m->st.live = (m->st.live | (chain ? ST_CM | ST_MT : 0)) & ~(unsigned)ST_HX;
    }
    pbus_cm *cm = m->cm;
    cm->match = &m->match;
    cm->mt = chain && mix;
    if (cm->mt) { /* made at the first chunk: tab zeroed, as bus_match_reset leaves it */
        if (bus_match_alloc(&m->match, 6)) return -1;
    }
    if (!mix || (chain && (m->st.live & ST_HX))) return 0;
    if (chain) m->st.live |= ST_HX;
    return bus_hx_open(&m->cm->a, nrec);
}

/* M_FEED (pbus.md, *Chains*): a stream-path chunk's records r go on into
 * the chain's match model, which starts empty at the chain's first such
 * chunk (or first mixed one); st_open leaves ST_MT clear at the chunk that
 * starts the chain's state.  0, or -1 on no memory. */
static int match_feed(pbus_model *m, const uint8_t *r, uint64_t nrec)
{
    if (bus_match_alloc(&m->match, 6)) return -1;
    if (!(m->st.live & ST_MT)) {
        bus_match_reset(&m->match);
        m->st.live |= ST_MT;
    }
    bus_match_feed(&m->match, r, nrec, 6, mt_hash);
    return 0;
}

/* Encode with the mixed model (mix) or the unmixed one (the trial's);
 * stop: as in BUS_CM_LOOPS. */
static int cm_encode_to(const trz_enc_args *a, pbus_model *m, int mix, size_t stop)
{
    int rc = cm_open(m, a->nrec, mix, a->chain) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK) {
        bus_set_refs(&m->cm->a, mix && m->lv->all_refs);
        trz_buf *out = &a->streams[S_CM];
        bus_cm_head(out, mix ? BUS_CM_MIX_RC : BUS_CM_VERSION, a->nrec); /* unmixed: a trial's */
        cm_enc_init(&m->coder, out);
        m->coder.mix = mix;
        rc = cm_enc_loop(&m->st, m->cm, &m->coder, a, out, stop);
    }
    st_close(&m->st, a->chain && rc == TRZ_CODEC_OK);
    return rc;
}

/* cm_encode_to as bus_pick_cm calls it: arg is the model. */
static int cm_trial(const trz_enc_args *a, const void *arg, int mix, size_t stop)
{
    return cm_encode_to(a, (pbus_model *)arg, mix, stop);
}

/* Decoder of the range and mix variants (the version byte says which model
 * and which coder). */
static int cm_decode(const trz_dec_args *a, trz_model *tm)
{
    if (a->nrec > a->len / 6 || a->len != a->nrec * 6) return TRZ_CODEC_CORRUPT;
    pbus_model *m = (pbus_model *)tm;
    unsigned ver;
    trz_rd hd;
    int rc = bus_cm_open_stream(a, S_CM, &ver, &hd);
    if (rc != TRZ_CODEC_OK) return rc;
    rc = bus_cm_dec_start(&m->coder, ver, hd.p, trz_rd_left(&hd));
    if (rc != TRZ_CODEC_OK) return rc;
    rc = cm_open(m, a->nrec, m->coder.mix, a->chain) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK) rc = cm_dec_loop(&m->st, m->cm, &m->coder, a);
    st_close(&m->st, a->chain && rc == TRZ_CODEC_OK);
    return rc;
}

/* zs_encode as bus_trial calls it (arg: the model). */
static int zs_encode_cb(const trz_enc_args *a, const void *arg) { return zs_encode(a, (trz_model *)arg); }

/* range-fast: the fast model, unless the stream path (its cheap choices)
 * codes the chunk's prefix smaller; then the stream path. */
/* In a chain, fm_enc_loop's test on the chunk's prefix as a trial of its
 * own, coded with the trials' model t as a chunk alone: the chunk is then
 * coded from the chain's state with the path it chose.  TRZ_CODEC_OK,
 * BUS_FAST_NOGAIN or an error code. */
static int fm_trial(const trz_enc_args *a, pbus_model *t, size_t zsz)
{
    trz_buf out = { 0 };
    trz_enc_args b = bus_prefix(a, 6, BUS_SAMPLE, NULL);
    int r = fm_open(t, b.nrec, 0) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (r == TRZ_CODEC_OK) r = fm_enc_loop(&t->st, t->fm, &b, &out, zsz);
    free(out.p);
    return r;
}

static int fm_encode(const trz_enc_args *a, trz_model *tm)
{
    if (a->len != a->nrec * 6) return TRZ_CODEC_UNSUPPORTED;
    pbus_model *m = (pbus_model *)tm, *t = pbus_trial_model(m, a->chain);
    if (!t) return TRZ_CODEC_NOMEM;
    int r;
    size_t zsz = bus_fast_target(a, 6, zs_encode_cb, t, &r);
    if (r != TRZ_CODEC_OK) return r;
    if (t != m) {
        r = fm_trial(a, t, zsz);
        if (r != TRZ_CODEC_OK) return r == BUS_FAST_NOGAIN ? zs_encode(a, tm) : r;
        zsz = SIZE_MAX; /* chosen: the loop below goes on to the end */
    }
    r = fm_open(m, a->nrec, a->chain) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (r == TRZ_CODEC_OK) {
        trz_buf *out = &a->streams[S_CM];
        bus_cm_head(out, BUS_CM_FAST, a->nrec);
        r = fm_enc_loop(&m->st, m->fm, a, out, zsz);
        if (r == BUS_FAST_NOGAIN) out->n = 0;
    }
    st_close(&m->st, a->chain && r == TRZ_CODEC_OK);
    return r == BUS_FAST_NOGAIN ? zs_encode(a, tm) : r;
}

static int fm_decode(const trz_dec_args *a, trz_model *tm)
{
    if (a->nrec > a->len / 6 || a->len != a->nrec * 6) return TRZ_CODEC_CORRUPT;
    pbus_model *m = (pbus_model *)tm;
    unsigned ver;
    trz_rd hd;
    int rc = bus_cm_open_stream(a, S_CM, &ver, &hd);
    if (rc != TRZ_CODEC_OK) return rc;
    rc = fm_open(m, a->nrec, a->chain) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK) rc = fm_dec_loop(&m->st, m->fm, a, hd.p, trz_rd_left(&hd));
    st_close(&m->st, a->chain && rc == TRZ_CODEC_OK);
    return rc;
}

/* mix: the mixed model where a trial on the chunk's prefix finds it
 * smaller than the stream path (bus_pick_cm), else the stream path. */
static int mix_encode(const trz_enc_args *a, trz_model *tm)
{
    if (a->len != a->nrec * 6) return TRZ_CODEC_UNSUPPORTED;
    pbus_model *m = (pbus_model *)tm, *t = pbus_trial_model(m, a->chain); /* t: the trials' */
    if (!t) return TRZ_CODEC_NOMEM;
    /* in a chain, what its match model would predict of the chunk */
    uint64_t seen = a->chain && (m->st.live & ST_MT) ? bus_match_foresee(&m->match, a->in, a->nrec, 6, mt_hash) : 0;
    int pick = bus_pick_cm(a, 6, zs_encode_cb, t, cm_trial, t, seen);
    return pick < 0 ? pick : pick ? cm_encode_to(a, m, 1, SIZE_MAX) : zs_encode_feed(a, tm, 1);
}

/* ---- the variants, the levels, the model ---------------------------------------- */

/* Variant ids: the arithmetic path's are its stream's version byte
 * (BUS_CM_*); the stream paths have none on disk (S_MODE's M_LEAN_* tell
 * the lean ones), 0 and 1 here. */
enum { V_STREAMS, V_LEAN, V_RANGE, V_MIX_LEGACY, V_FAST, V_MIX };
static const trz_variant pbus_variants[] = {
    [V_STREAMS] = { 0, "streams", 0, 0, zs_encode, zs_decode },
    [V_LEAN] = { 1, "streams-lean", 1, 5, ln_encode, zs_decode },
    [V_RANGE] = { BUS_CM_VERSION, "range", 0, 0, NULL, cm_decode },
    [V_MIX_LEGACY] = { BUS_CM_MIXED, "mix", 0, 0, NULL, cm_decode },
    [V_FAST] = { BUS_CM_FAST, "range-fast", 6, 11, fm_encode, fm_decode },
    [V_MIX] = { BUS_CM_MIX_RC, "mix", 12, 19, mix_encode, cm_decode },
};

#define LEAN { V_LEAN, 0 }
#define FAST { V_FAST, 0 }
#define MIX { V_MIX, 1 }
static const pbus_level pbus_levels[TRZ_LEVEL_MAX + 1] = {
    LEAN, LEAN, LEAN, LEAN, LEAN, LEAN,             /* 0 (as 1), 1-5 */
    FAST, FAST, FAST, FAST, FAST, FAST,             /* 6-11 */
    MIX, MIX, MIX, MIX, MIX, MIX, MIX, MIX,         /* 12-19 */
};
#undef LEAN
#undef FAST
#undef MIX

/* The variant of a chunk: the arithmetic path's by its version byte, the
 * stream paths' by the model S_MODE names (the cycle model when absent). */
static int pbus_variant_of(const size_t *len, const uint8_t *const *head)
{
    if (len[S_CM]) {
        unsigned v = bus_cm_version_of(len, head, S_CM);
        return v == BUS_CM_FAST     ? V_FAST
               : v == BUS_CM_MIX_RC ? V_MIX
               : v == BUS_CM_MIXED  ? V_MIX_LEGACY
               : v == BUS_CM_VERSION ? V_RANGE
                                     : -1;
    }
    unsigned mode = len[S_MODE] ? head[S_MODE][0] & ~(unsigned)M_FEED : M_CYCLE;
    return mode == M_LEAN_CYCLE || mode == M_LEAN_EXACT ? V_LEAN : V_STREAMS;
}

static trz_model *pbus_model_create(int level, int know)
{
    (void)know;
    pbus_model *m = calloc(1, sizeof *m);
    if (m) m->lv = &pbus_levels[level ? trz_level_clamp(level) : 0];
    return (trz_model *)m;
}

/* Each chunk sets up what it uses (st_open, cm_open, fm_open): outside a
 * chain nothing carries over but the tables' memory; in a chain, what the
 * live flags name.  A reset ends the chain's state. */
static void pbus_model_reset(trz_model *tm)
{
    st_close(&((pbus_model *)tm)->st, 0);
}

static void pbus_model_free(trz_model *tm)
{
    pbus_model *m = (pbus_model *)tm;
    if (!m) return;
    pbus_model_free((trz_model *)m->trial);
    st_free(&m->st);
    if (m->cm) {
        bus_hx_free(&m->cm->a);
        trz_big_free(m->cm, sizeof *m->cm);
    }
    bus_match_free(&m->match, 6);
    if (m->fm) {
        bf_slots_free(&m->fm->slots);
        trz_big_free(m->fm, sizeof *m->fm);
    }
    free(m);
}

static const char *pbus_stream_name(unsigned id)
{
    return id < S_COUNT ? stream_names[id] : id == S_CM ? "cm" : NULL;
}

const trz_codec trz_codec_pbus = {
    .id = TRZ_CODEC_PBUS,
    .name = "pbus",
    .record_size = 6,
    .description = "PEL Pentium bus trace (6-byte records, big-endian address)",
    .probe = pbus_probe,
    .variants = pbus_variants,
    .nvariants = sizeof pbus_variants / sizeof pbus_variants[0],
    .variant_of = pbus_variant_of,
    .levels = pbus_levels,
    .level_size = sizeof(pbus_level),
    .model_create = pbus_model_create,
    .model_reset = pbus_model_reset,
    .model_free = pbus_model_free,
    .chains = 1,
    .chain_bytes = 64u << 20, /* a seek decodes at most 64 MiB (bench/notes/2026-11-29-chains.md) */
    .stream_name = pbus_stream_name,
    .dump_record = pbus_dump,
    .convert = pbus_convert,
};
