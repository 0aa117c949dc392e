/* dr_fast.c - the drmemtrace codec's fast variant (model variant 6, levels
 * 1-3).  A trace repeats whole stretches of records (a loop, a call, a run
 * of idle markers), so a chunk is a sequence of runs, copies of the records
 * a distance back, each followed by one literal record.  A literal's type
 * and size are predicted by the place it takes after its instruction, its
 * address by its kind: an instruction's PC by its predecessor's last
 * successor or fall-through, a memory address by its (PC, slot)'s last
 * address and stride, a marker's value by that marker's last one.  What is
 * not predicted goes to byte streams that the container's back-end (zstd)
 * codes; nothing is arithmetic-coded, and a run decodes as a copy.  Encoder
 * and decoder are one template (`enc`, a constant in each instance).
 * Spec: drmemtrace.md, "Fast variant". */
#include "dr_fast.h"

#include "../common/compiler.h"

static const char *const fs_names[DRF_NSTREAMS] = { NULL, "seq", "dist", "type", "pc", "addr", "val", "enc" };

const char *drf_stream_name(unsigned id) { return id < DRF_NSTREAMS ? fs_names[id] : NULL; }

#ifdef DRF_STATS /* tuning only: the encoder's choices */
#include <stdio.h>
static unsigned long long st_ev[64];
#define ST(k) (enc ? (void)st_ev[k]++ : (void)0)
__attribute__((destructor)) static void st_print(void)
{
    static const char *nm[] = { "lit", "T0", "T1", "T2", "T3", "i0", "i1", "i2", "i3", "m0", "m1", "m2", "m3",
                                "e0", "e1", "e2", "e3", "v0", "v1", "v2", "v3" };
    for (unsigned k = 0; k < 64; k++)
        if (st_ev[k]) fprintf(stderr, "%s=%llu ", k < sizeof nm / sizeof nm[0] ? nm[k] : "?", st_ev[k]);
    fprintf(stderr, "\n");
}
#else
#define ST(k) ((void)0)
#endif

#define CTX_RECS 4  /* records hashed to find an earlier occurrence of the context */
#define BACK_MAX 32 /* records a literal looks back for its instruction */
#define TB_MIN 10   /* the tables' bits: by the chunk's records, within these */
#define TB_MAX 16
#define MT_MAX 20 /* the encoder's table of contexts */
#define TS2_BITS 12
#define NVAL 128  /* value states: 64 record types, 64 marker types */
#define DRF_WINDOW ((size_t)1 << 20) /* a chain's records kept for runs (drmemtrace.md, "Fast variant") */

/* A PC's last successor (tagged, direct mapped: a collision forgets). */
typedef struct { uint64_t pc, succ; } fpc;
/* A (PC, slot)'s or a value kind's last value and its last change. */
typedef struct { uint64_t last, step; } fval;

struct drf_model {
    fpc *pc;
    fval *mem;
    uint32_t *ts;   /* predicted type | size << 16, by place */
    uint32_t ts2[1 << TS2_BITS]; /* the same by the record before's type and size */
    unsigned tb;    /* the tables have 2^tb entries (cleared at each chunk) */
    fval val[NVAL]; /* by record type, markers by marker type */
    uint64_t glast; /* the last memory address */
    /* Chains: live = the model holds a chain's state, which the next
     * chained chunk goes on from: the tables and the window, the last hn
     * records (of wcap), where the chunk is placed after them. */
    int live;
    uint8_t *win;
    size_t hn, wcap;
    uint32_t *mt; /* the encoder's table of contexts in a chain, by window position */
};

static inline unsigned bitlen(uint64_t v) { return v ? 64 - (unsigned)__builtin_clzll(v) : 0; }
static inline uint32_t hsh(uint64_t x, unsigned bits) { return (uint32_t)((x * 0x9E3779B97F4A7C15ull) >> (64 - bits)); }

void drf_model_free(struct drf_model *m)
{
    if (!m) return;
    trz_big_release(m->win, m->wcap * DR_REC);
    free(m->pc), free(m->mem), free(m->ts), free(m->mt), free(m);
}

/* The tables for a chunk of nrec records, as from nothing. */
static struct drf_model *fmodel_fit(struct drf_model **pm, uint64_t nrec)
{
    struct drf_model *m = *pm;
    if (!m) {
        m = calloc(1, sizeof *m);
        if (!m) return NULL;
        m->pc = malloc(sizeof *m->pc << TB_MAX);
        m->mem = malloc(sizeof *m->mem << TB_MAX);
        m->ts = malloc(sizeof *m->ts << TB_MAX);
        if (!m->pc || !m->mem || !m->ts) {
            drf_model_free(m);
            return NULL;
        }
        *pm = m;
    }
    unsigned b = bitlen(nrec) + 1;
    m->tb = b < TB_MIN ? TB_MIN : b > TB_MAX ? TB_MAX : b;
    memset(m->pc, 0, sizeof *m->pc << m->tb);
    memset(m->mem, 0, sizeof *m->mem << m->tb);
    memset(m->ts, 0, sizeof *m->ts << m->tb);
    memset(m->val, 0, sizeof m->val);
    memset(m->ts2, 0, sizeof m->ts2);
    m->glast = 0;
    m->hn = 0;
    m->live = 0;
    return m;
}

void drf_model_reset(struct drf_model *m)
{
    if (m) m->live = 0;
}

/* Room for a chained chunk of nrec records after the window: where it
 * goes, or NULL if out of memory.  The buffer only grows (to the window
 * and the largest chunk). */
static uint8_t *chain_begin(struct drf_model *m, size_t nrec)
{
    if (m->hn + nrec > m->wcap) {
        size_t cap = m->hn + nrec;
        uint8_t *w = trz_big_malloc(cap * DR_REC);
        if (!w) return NULL;
        if (m->hn) memcpy(w, m->win, m->hn * DR_REC);
        trz_big_release(m->win, m->wcap * DR_REC);
        m->win = w;
        m->wcap = cap;
    }
    return m->win + m->hn * DR_REC;
}

/* After a chained chunk of nrec records: the window keeps the last
 * DRF_WINDOW records; the encoder's positions move with them. */
static void chain_end(struct drf_model *m, size_t nrec)
{
    size_t total = m->hn + nrec, keep = total < DRF_WINDOW ? total : DRF_WINDOW, drop = total - keep;
    if (drop) {
        memmove(m->win, m->win + drop * DR_REC, keep * DR_REC);
        if (m->mt)
            for (size_t k = 0; k < ((size_t)1 << MT_MAX); k++) m->mt[k] = m->mt[k] > drop ? m->mt[k] - (uint32_t)drop : 0;
    }
    m->hn = keep;
    m->live = 1;
}

/* ---- records and streams ----------------------------------------------------- */

static inline unsigned rtype(const uint8_t *p) { return trz_ld_le16(p); }
static inline unsigned rsize(const uint8_t *p) { return trz_ld_le16(p + 2); }
static inline uint64_t raddr(const uint8_t *p) { return trz_ld_le64(p + 4); }

typedef struct {
    trz_buf *w;             /* encoder: the streams, by id */
    trz_rd r[DRF_NSTREAMS]; /* decoder */
} fio;

TRZ_FORCE_INLINE void put8(fio *io, int s, unsigned v) { trz_put_u8(&io->w[s], (uint8_t)v); }
TRZ_FORCE_INLINE void putv(fio *io, int s, uint64_t v) { trz_put_uvarint(&io->w[s], v); }
TRZ_FORCE_INLINE unsigned get8(fio *io, int s) { return trz_get_u8(&io->r[s]); }
TRZ_FORCE_INLINE uint64_t getv(fio *io, int s) { return trz_get_uvarint(&io->r[s]); }

/* ---- one literal record ------------------------------------------------------- */

/* Where a literal stands: the last instruction record within BACK_MAX
 * records before it (pc and len 0 without one), the records since it (k)
 * and the memory records among them (slot), and the type of the record
 * before.  Read from the records, so a run leaves nothing to update. */
typedef struct {
    uint64_t pc;
    unsigned len, k, slot, ptype;
    uint32_t pts; /* the record before's type | size << 16 */
} fctx;

TRZ_FORCE_INLINE void ctx_of(const uint8_t *out, size_t i, fctx *c)
{
    c->pc = 0, c->len = 0, c->k = 0, c->slot = 0;
    c->pts = i ? trz_ld_le32(out + (i - 1) * DR_REC) : 0xFFFF;
    c->ptype = c->pts & 0xFFFF;
    size_t lim = i > BACK_MAX ? i - BACK_MAX : 0;
    for (size_t j = i; j > lim; j--) {
        const uint8_t *p = out + (j - 1) * DR_REC;
        unsigned t = rtype(p);
        if (dr_is_instr(t)) {
            c->pc = raddr(p);
            c->len = rsize(p);
            return;
        }
        c->k++;
        c->slot += dr_is_mem(t);
    }
}

/* The header byte of a literal: how its type and size and its address are
 * coded (drmemtrace.md, "Fast variant"). */
enum { T_PRED, T_DIST, T_NEW, T_PREV };
enum { A_C0, A_C1, A_C2, A_NEW };

/* The first of the three candidates that is v (A_NEW: none). */
static inline unsigned pick(uint64_t v, uint64_t c0, uint64_t c1, uint64_t c2)
{
    return v == c0 ? A_C0 : v == c1 ? A_C1 : v == c2 ? A_C2 : A_NEW;
}

/* Code record *rec (the encoder's; the decoder fills it), R the record at
 * the run's distance (NULL without one), out the records before it.
 * 0, or -1 on damage. */
TRZ_FORCE_INLINE int code_literal(struct drf_model *m, fio *io, const int enc, uint8_t *rec, const uint8_t *R,
                                  const uint8_t *out, size_t i)
{
    fctx c;
    ctx_of(out, i, &c);
    unsigned tb = m->tb;
    uint32_t *ts = &m->ts[hsh(c.pc * 0x100000001B3ull ^ (uint64_t)c.k << 56 ^ (uint64_t)c.ptype << 40, tb)];
    uint32_t *ts2 = &m->ts2[hsh(c.pts, TS2_BITS)];
    unsigned t, sz, hdr = 0;
    uint64_t a;
    /* 1. type and size: the place's last, the record at the distance's, or new */
    if (enc) {
        t = rtype(rec), sz = rsize(rec), a = raddr(rec);
        uint32_t ws = t | (uint32_t)sz << 16;
        if (ws == *ts) hdr = T_PRED;
        else if (R && ws == trz_ld_le32(R)) hdr = T_DIST;
        else if (ws == *ts2) hdr = T_PREV;
        else {
            hdr = T_NEW;
            putv(io, DRF_TYPE, t);
            putv(io, DRF_TYPE, sz);
        }
    } else {
        hdr = get8(io, DRF_SEQ);
        a = 0;
        unsigned tc = hdr & 3;
        if (tc == T_PRED) t = *ts & 0xFFFF, sz = *ts >> 16;
        else if (tc == T_DIST && R) t = rtype(R), sz = rsize(R);
        else if (tc == T_PREV) t = *ts2 & 0xFFFF, sz = *ts2 >> 16;
        else if (tc == T_NEW) {
            uint64_t t64 = getv(io, DRF_TYPE), s64 = getv(io, DRF_TYPE);
            if (t64 > 0xFFFF || s64 > 0xFFFF) return -1;
            t = (unsigned)t64, sz = (unsigned)s64;
        } else
            return -1;
        if (hdr >> 4) return -1; /* reserved bits */
    }
    *ts = t | (uint32_t)sz << 16;
    *ts2 = *ts;
    /* 2. the address field by the record's kind */
    unsigned ac = enc ? 0 : hdr >> 2 & 3;
    uint64_t ft = c.pc + c.len; /* fall-through of the instruction before */
    if (dr_is_instr(t)) {
        /* the PC: the last successor of the instruction before, its
         * fall-through, the last branch-target marker's value */
        fpc *e = &m->pc[hsh(c.pc, tb)];
        uint64_t c0 = e->pc == c.pc ? e->succ : ft;
        uint64_t c2 = m->val[64 + DRM_BRANCH_TARGET].last;
        if (enc) {
            ac = pick(a, c0, ft, c2);
            if (ac == A_NEW) putv(io, DRF_PC, trz_zigzag((int64_t)(a - ft)));
        } else {
            a = ac == A_C0 ? c0 : ac == A_C1 ? ft : ac == A_C2 ? c2 : ft + (uint64_t)trz_unzigzag(getv(io, DRF_PC));
        }
        e->pc = c.pc;
        e->succ = a;
    } else if (dr_is_mem(t)) {
        /* (PC, slot): last + stride, last; the record at the distance's */
        fval *s = &m->mem[hsh(c.pc ^ (uint64_t)(c.slot + 1) * 0xD6E8FEB86659FD93ull, tb)];
        uint64_t c2 = R ? raddr(R) : 0, base = s->last ? s->last : m->glast;
        if (enc) {
            ac = pick(a, s->last + s->step, s->last, c2);
            if (ac == A_NEW) putv(io, DRF_ADDR, trz_zigzag((int64_t)(a - base)));
        } else {
            a = ac == A_C0   ? s->last + s->step
                : ac == A_C1 ? s->last
                : ac == A_C2 ? c2
                             : base + (uint64_t)trz_unzigzag(getv(io, DRF_ADDR));
        }
        s->step = a - s->last;
        s->last = a;
        m->glast = a;
    } else if (t == DR_ENCODING) {
        /* the bytes: size of them (A_C0) when the rest are zero, else 8 */
        unsigned nb = sz < 8 ? sz : 8;
        if (enc) {
            ac = nb < 8 && a >> (8 * nb) ? A_C1 : A_C0;
            uint8_t b[8];
            trz_st_le64(b, a);
            trz_put_bytes(&io->w[DRF_ENC], b, ac == A_C0 ? nb : 8);
        } else {
            if (ac > A_C1) return -1;
            const uint8_t *b = trz_get_bytes(&io->r[DRF_ENC], ac == A_C0 ? nb : 8);
            if (!b) return -1;
            uint8_t w[8] = { 0 };
            memcpy(w, b, ac == A_C0 ? nb : 8);
            a = trz_ld_le64(w);
        }
    } else {
        /* a marker by its marker type, others by their type: the last
         * value, last + the last change, and for a branch target the last
         * successor of the instruction after the last one (the branch),
         * else its fall-through (a kernel event's) */
        fval *v = &m->val[t == DR_MARKER ? 64 + (sz & 63) : t & 63];
        uint64_t c2 = ft;
        if (t == DR_MARKER && sz == DRM_BRANCH_TARGET) {
            const fpc *e = &m->pc[hsh(ft, tb)];
            if (e->pc == ft) c2 = e->succ;
        }
        if (enc) {
            ac = pick(a, v->last, v->last + v->step, c2);
            if (ac == A_NEW) putv(io, DRF_VAL, trz_zigzag((int64_t)(a - v->last)));
        } else {
            a = ac == A_C0   ? v->last
                : ac == A_C1 ? v->last + v->step
                : ac == A_C2 ? c2
                             : v->last + (uint64_t)trz_unzigzag(getv(io, DRF_VAL));
        }
        v->step = a - v->last;
        v->last = a;
    }
    ST(0);
    ST(1 + (hdr & 3));
    ST(5 + 4 * (dr_is_instr(t) ? 0 : dr_is_mem(t) ? 1 : t == DR_ENCODING ? 2 : 3) + ac);
    if (enc) {
        put8(io, DRF_SEQ, hdr | ac << 2);
    } else {
        trz_st_le16(rec, (uint16_t)t);
        trz_st_le16(rec + 2, (uint16_t)sz);
        trz_st_le64(rec + 4, a);
    }
    return 0;
}

/* ---- the chunk ------------------------------------------------------------------ */

static inline uint64_t rec_fp(const uint8_t *p)
{
    uint64_t h = trz_ld_le64(p) * 0x9E3779B97F4A7C15ull + (uint64_t)trz_ld_le32(p + 8) * 0xC2B2AE3D27D4EB4Full;
    return h ^ (h >> 29);
}

TRZ_FORCE_INLINE int same_rec(const uint8_t *a, const uint8_t *b)
{
    return ((trz_ld_le64(a) ^ trz_ld_le64(b)) | (trz_ld_le32(a + 8) ^ trz_ld_le32(b + 8))) == 0;
}

/* The encoder's search for earlier occurrences: a hash of the last CTX_RECS
 * records gives the position that followed them last time. */
typedef struct {
    uint32_t *t;
    unsigned bits;
    uint64_t fp[CTX_RECS];
} fmatch;

/* Record i has been passed: the position stored for its context before
 * (0: none); the place then holds i + 1. */
static inline uint32_t match_insert(fmatch *mt, const uint8_t *in, size_t i)
{
    for (int k = CTX_RECS - 1; k > 0; k--) mt->fp[k] = mt->fp[k - 1];
    mt->fp[0] = rec_fp(in + i * DR_REC);
    uint64_t key = ((mt->fp[0] * 31 + mt->fp[1]) * 31 + mt->fp[2]) * 31 + mt->fp[3];
    uint32_t *s = &mt->t[hsh(key, mt->bits)], old = *s;
    *s = (uint32_t)(i + 1);
    return old;
}

/* Records from i on that equal those dist back, at most cap. */
static inline size_t run_len(const uint8_t *in, size_t i, size_t n, size_t dist, size_t cap)
{
    size_t k = 0;
    while (i + k < n && k < cap && same_rec(in + (i + k) * DR_REC, in + (i + k - dist) * DR_REC)) k++;
    return k;
}

/* Records i0..i1 of in (those before i0: the chain's window). */
static void encode_recs(struct drf_model *m, fio *io, fmatch *mt, const uint8_t *in, size_t i0, size_t n)
{
    for (size_t k = i0 > CTX_RECS ? i0 - CTX_RECS : 0; k < i0; k++) { /* the window's last records: the context */
        memmove(&mt->fp[1], &mt->fp[0], (CTX_RECS - 1) * sizeof mt->fp[0]);
        mt->fp[0] = rec_fp(in + k * DR_REC);
    }
    size_t i = i0, dist = 0;
    uint32_t cand = 0; /* the position the last literal's context was followed by before */
    for (;;) {
        /* the distance for the next run: the one in use, or the context's
         * when it repeats further */
        unsigned sw = 0;
        if (i < n && cand && cand < i && i - cand != dist) {
            size_t d2 = i - cand;
            size_t l1 = dist ? run_len(in, i, n, dist, 64) : 0;
            size_t l2 = run_len(in, i, n, d2, 64);
            if (l2 > l1) {
                sw = 1;
                dist = d2;
            }
        }
        size_t run = 0;
        if (dist)
            while (i < n && same_rec(in + i * DR_REC, in + (i - dist) * DR_REC)) {
                match_insert(mt, in, i);
                i++;
                run++;
            }
        putv(io, DRF_SEQ, (uint64_t)run << 1 | sw);
        if (sw) putv(io, DRF_DIST, dist);
        if (i == n) break;
        uint8_t rec[DR_REC];
        memcpy(rec, in + i * DR_REC, DR_REC);
        code_literal(m, io, 1, rec, dist ? in + (i - dist) * DR_REC : NULL, in, i);
        cand = match_insert(mt, in, i);
        i++;
    }
}

int drf_encode(const trz_enc_args *a, struct drf_model **pm)
{
    size_t n = (size_t)a->nrec;
    if (a->nrec >= UINT32_MAX - DRF_WINDOW) return TRZ_CODEC_UNSUPPORTED; /* positions are 32-bit */
    int go_on = a->chain && *pm && (*pm)->live;
    struct drf_model *m = go_on ? *pm : fmodel_fit(pm, a->nrec);
    if (!m) return TRZ_CODEC_NOMEM;
    m->live = 0; /* until the chunk is coded */
    unsigned mb = bitlen(a->nrec) + 1;
    fmatch mt = { NULL, mb < TB_MIN ? TB_MIN : mb > MT_MAX ? MT_MAX : mb, { 0 } };
    if (a->chain) { /* kept for the chain's next chunk */
        mt.bits = MT_MAX;
        if (!m->mt) m->mt = malloc(sizeof *m->mt << MT_MAX);
        if (m->mt && !go_on) memset(m->mt, 0, sizeof *m->mt << MT_MAX);
        mt.t = m->mt;
    } else {
        mt.t = calloc((size_t)1 << mt.bits, sizeof *mt.t);
    }
    uint8_t *w = a->chain && mt.t ? chain_begin(m, n) : NULL;
    if (!mt.t || (a->chain && !w)) {
        if (!a->chain) free(mt.t);
        return TRZ_CODEC_NOMEM;
    }
    fio io;
    io.w = a->streams;
    put8(&io, DRF_SEQ, !a->chain ? (a->know ? DRF_VARIANT_KNOW : DRF_VARIANT) : go_on ? DRF_VARIANT_CHAINED : DRF_VARIANT_CHAIN);
    if (a->chain) {
        memcpy(w, a->in, a->len);
        encode_recs(m, &io, &mt, m->win, m->hn, m->hn + n);
    } else {
        encode_recs(m, &io, &mt, a->in, 0, n);
        free(mt.t);
    }
    for (int s = 0; s < DRF_NSTREAMS; s++)
        if (a->streams[s].oom) return TRZ_CODEC_NOMEM;
    if (a->chain) chain_end(m, n);
    return TRZ_CODEC_OK;
}

/* Records i.. as copies of those dist back: where the run overlaps itself,
 * the copied part repeats with period dist, so each piece may be as long
 * as all copied so far. */
static inline void copy_run(uint8_t *out, size_t i, size_t dist, size_t run)
{
    size_t src = i - dist, done = 0;
    while (done < run) {
        size_t k = run - done < dist + done ? run - done : dist + done;
        memcpy(out + (i + done) * DR_REC, out + src * DR_REC, k * DR_REC);
        done += k;
    }
}

/* Records i0..n of out (those before i0: the chain's window). */
static int decode_recs(struct drf_model *m, fio *io, uint8_t *out, size_t i0, size_t n)
{
    size_t i = i0, dist = 0;
    for (;;) {
        uint64_t v = getv(io, DRF_SEQ);
        uint64_t run = v >> 1;
        if (v & 1) {
            uint64_t d = getv(io, DRF_DIST);
            if (d == 0 || d > i) return TRZ_CODEC_CORRUPT;
            dist = (size_t)d;
        }
        if (run > n - i || (run && !dist) || io->r[DRF_SEQ].err) return TRZ_CODEC_CORRUPT;
        if (run) {
            copy_run(out, i, dist, (size_t)run);
            i += (size_t)run;
        }
        if (i == n) break;
        if (code_literal(m, io, 0, out + i * DR_REC, dist ? out + (i - dist) * DR_REC : NULL, out, i))
            return TRZ_CODEC_CORRUPT;
        i++;
    }
    for (int s = 1; s < DRF_NSTREAMS; s++)
        if (io->r[s].err || io->r[s].p != io->r[s].end) return TRZ_CODEC_CORRUPT;
    return TRZ_CODEC_OK;
}

int drf_decode(const trz_dec_args *a, struct drf_model **pm)
{
    size_t n = (size_t)a->nrec;
    for (int k = DRF_NSTREAMS; k < TRZ_MAX_STREAMS; k++)
        if (a->stream_len[k]) return TRZ_CODEC_CORRUPT;
    if (a->stream_len[0]) return TRZ_CODEC_CORRUPT;
    fio io;
    io.w = NULL;
    for (int s = 0; s < DRF_NSTREAMS; s++) trz_rd_init(&io.r[s], a->stream[s], a->stream_len[s]);
    unsigned variant = get8(&io, DRF_SEQ);
    if (io.r[DRF_SEQ].err) return TRZ_CODEC_CORRUPT;
    if (!a->chain ? variant != (a->know ? DRF_VARIANT_KNOW : DRF_VARIANT)
                  : a->know || (variant != DRF_VARIANT_CHAIN && variant != DRF_VARIANT_CHAINED))
        return TRZ_CODEC_UNSUPPORTED;
    /* a chunk of no records has no streams */
    if (!n || a->nrec >= UINT32_MAX - DRF_WINDOW) return TRZ_CODEC_CORRUPT;
    int go_on = variant == DRF_VARIANT_CHAINED;
    if (go_on && !(*pm && (*pm)->live)) return TRZ_CODEC_CORRUPT; /* no chain to go on with */
    struct drf_model *m = go_on ? *pm : fmodel_fit(pm, a->nrec);
    if (!m) return TRZ_CODEC_NOMEM;
    m->live = 0; /* until the chunk has decoded */
    if (!a->chain) return decode_recs(m, &io, a->out, 0, n);
    uint8_t *w = chain_begin(m, n);
    if (!w) return TRZ_CODEC_NOMEM;
    int rc = decode_recs(m, &io, m->win, m->hn, m->hn + n);
    if (rc) return rc;
    memcpy(a->out, w, a->len);
    chain_end(m, n);
    return TRZ_CODEC_OK;
}
