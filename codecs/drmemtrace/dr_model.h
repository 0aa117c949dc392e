/* dr_model.h - the drmemtrace codec's model (drmemtrace.md, "Model
 * state"): its state and tables, and the coding steps that both the event
 * coder (dr_event.c) and the knowledge stream (dr_know.c) use: the
 * encoding bytes, memory patterns, signed integers.  Each step is an
 * always-inlined template of the direction `enc` (../common/rc_dir.h): 1
 * encode, 0 decode, 3 replay (nothing coded, nothing adapts).  The model's
 * making and the facts' value form are in dr_model.c. */
#ifndef TRZ_DR_MODEL_H
#define TRZ_DR_MODEL_H

#include "dr_facts.h"
#ifdef DR_STATS /* model tuning only: the bits each part costs (dr_event.c prints them) */
#include <math.h>
enum { F_EV, F_PC, F_TAKEN, F_ENC, F_BT, F_STATIC, F_TYPE, F_PAT, F_ADDR_HIT, F_ADDR_MISS, F_ADDR_NEW, F_MARKER,
       F_MVAL, F_RUN, F_OTHER, F_RAW, F_MATCH, F_N };
extern double dr_bits[F_N], *dr_cost;
extern uint64_t dr_n[F_N];
#define RC_DIR_COST(enc, p, bit) \
    ((enc) && dr_cost ? (void)(*dr_cost += -log2((bit) ? 1 - (p) / 65536.0 : (p) / 65536.0)) : (void)0)
#define RC_DIR_COST_N(enc, n) ((enc) && dr_cost ? (void)(*dr_cost += (n)) : (void)0)
#define FIELD(f) (dr_cost = &dr_bits[f], dr_n[f] += (enc == 1))
#else
#define FIELD(f) ((void)0)
#endif
#include "../common/rc_dir.h"
#include "../common/rc_mix.h"

#define RAS_N 32
#define NTHREADS 16
#define KSTACK 4
#define CLIM 60   /* count-state limit of the decisions */
#define NRECENT 12 /* recent addresses */
#define NBLK 24    /* recent branch targets */
#define MM_CTX 3   /* events hashed for the match model's context */
#define MM_HIT_N (12 * EV_N * 3 * 256 * 2) /* the hit decision's contexts */

/* Events, the first symbol of each step. */
enum { EV_INSTR, EV_INSTR_ENC, EV_MARKER, EV_OTHER, EV_RAW, EV_N };

/* Classes of the previous instruction, for contexts. */
enum { PC_NONE, PC_PLAIN, PC_DJUMP, PC_IND, PC_CNT, PC_CT, PC_CALL, PC_RET, PC_N };

/* Dynamic state of one PC (tagged, direct mapped; a collision forgets). */
typedef struct {
    uint64_t pc;
    uint64_t last_tgt; /* last successor of an indirect branch */
    uint32_t enc_gen;  /* drmemtrace chunk (+1) whose encodings it had */
    uint32_t fidx;     /* its fact's place in the chunk's table + 1 (0: not looked up): saves a lookup */
    uint16_t lhist;    /* local branch history */
    uint8_t valid, nev; /* nev: the event that followed it last time, + 1 */
    uint8_t mhist;     /* the match model's last outcomes when it predicted this PC */
} dr_pcdyn;

/* Dynamic state of one (PC, memory slot). */
typedef struct {
    uint64_t last, stride;
    uint32_t tag;
    uint8_t valid, hist, dcls, pad;
} dr_slot;

/* One software thread's control flow. */
typedef struct {
    uint64_t tid, pid;
    uint64_t pc, fall;  /* the last instruction's PC and pc + length */
    uint64_t nexp;      /* the PC predicted next, when nexp_ok */
    uint64_t ctgt;      /* a version-4 conditional's target (0: unknown), when pend */
    uint64_t bt_val;    /* the last BRANCH_TARGET, when bt_pend */
    uint64_t ras[RAS_N];
    uint64_t kst[KSTACK];
    unsigned ras_top, ktop;
    uint8_t nexp_ok, pend, bt_pend, pclass, phist, have, used, pad;
    uint32_t lru;
} dr_flow;

#define NBC 5 /* contexts of an encoding byte */
typedef RC_INT(16) dr_sint16;
typedef RC_INT(64) dr_sint64;

typedef struct {
    dr_facts facts;
    const trz_know *know; /* the member's facts (carried knowledge), or NULL */
    int oom;              /* a fact from know did not fit in memory */
    dr_pcdyn *dyn;
    dr_slot *slot;
    rc_cnt *bytes;
    rc_prob *bim, *gs, *gl, *loc;
    unsigned dyn_bits, slot_bits, byte_bits, br_bits;
    uint64_t nrec_made; /* the record count its sizes were made for */
    dr_flow fl; /* the running thread */
    dr_flow thr[NTHREADS];
    uint32_t lru;
    uint32_t gen; /* drmemtrace chunk ordinal + 1: encodings restart */
    uint64_t ghist;
    uint64_t last_addr;   /* the last memory address */
    uint64_t blk[NBLK];       /* PCs reached by a branch lately, most recent first */
    uint64_t recent[NRECENT]; /* the last distinct addresses, most recent first */
    uint64_t regval[17];  /* address - displacement of the last access through each base register */
    uint8_t regok[17];
    uint64_t mlast[64];   /* last value of each marker type */
    uint64_t olast[8];    /* last value of each other record type */
    uint16_t osize[8];
    uint64_t tids[8];     /* recent thread ids, most recent first */
    uint64_t rawlast;
    uint16_t rawtype;
    unsigned prev_ev, prev_sub;
    dr_pcdyn *pdyn; /* the last instruction's dynamic state, for the event after it */
    uint8_t prev_enc[16];
    /* small models */
    rc_cnt ev[EV_N * 48 * 8][8];
    rc_cnt pc_hit[PC_N * 4 * 2], pc_rep[PC_N], tgt_hit[4 * 2];
    dr_sint64 pc_d[PC_N], bt_d[4], mk_d[64], mem_d[4], mem_n[4], raw_d;
    rc_cnt enc_same[2], bt_mid[2], st_same[4 * 2], len_same[2], pat_same[2];
    rc_cnt typ[1040][16], lenT[16][16], nmemT[512][64], mtypT[512][64], msizT[512][16];
    rc_cnt end[3 * 16];
    rc_cnt blk_idx[2][32], rec_idx[2][16], mhit[8 * 4], mlast_hit[4], mprev_hit[4], mrip[2], mreg[4], mbase[4][4];
    rc_cnt mk_type[2][64][64], mk_esc[2], mk_sp[64], mk_same[64], run[64], oth_t[8][8], oth_sz[8], oth_a[8][2];
    dr_sint64 run_n[2], k_gap, k_tgt;
    rc_cnt tid_idx[16], raw_t[2], raw_tt[64], raw_sz[16];
    rc_cnt k_gap_eq[2], k_has_enc[2], k_len_enc[2], k_nopat[2], k_has_t[16]; /* the knowledge stream's */
    rc_cnt mm_hit[MM_HIT_N], mm_a[4], mm_ad[2];
    int32_t bw[5], ew[DRX_NFIELD * 4][NBC];
    unsigned prev_opid;
    /* the match model (variants 2 and 3): where the last MM_CTX events'
     * context was seen before, the event that followed it */
    int match;       /* on in this chunk's variant */
    uint32_t *mtab;  /* context hash -> record index + 1 of the event after it */
    uint8_t *evk;    /* per record: 1 an event coded, 2 an event copied, starts here */
    size_t nrec;
    unsigned mt_bits;
    size_t mp;       /* record index + 1 of the event predicted next, 0: none */
    uint32_t mlen;   /* events predicted right in a row */
    uint64_t mfp[MM_CTX]; /* the last events' fingerprints, most recent first */
    /* a chain (drmemtrace.md, "Chains"): the table's entries are the
     * chain's record numbers + 1 (mod 2^32), and the window holds the last
     * records before the chunk, the chunk coded after them */
    int chain;
    uint8_t *win;    /* hn records of the window, then the chunk's (chain only) */
    size_t wcap;     /* records win and evk hold (chain only) */
    size_t hn, hmax; /* records in the window, at most */
    uint64_t gpos;   /* the chain's record number of win's first record */
    int16_t str[4096];
} dr_model;

static inline unsigned clampu(int x, int lo, int hi) { return (unsigned)(x < lo ? lo : x > hi ? hi : x); }

/* dr_model.c: a chunk's model (mb: the match table's size in bits, 0: no
 * match model), a knowledge stream's, and the match table's default size
 * for a chunk of nrec records. */
dr_model *dr_model_new(uint64_t nrec, unsigned mb, int chain);
/* A chain's chunk of nrec records: the buffer it is coded in (the window
 * before it), or NULL when out of memory; dr_chain_end keeps the last
 * records as the window for the next one. */
uint8_t *dr_chain_begin(dr_model *m, size_t nrec);
void dr_chain_end(dr_model *m, size_t nrec);
void dr_model_free(dr_model *m);
/* Free m before making the model of a chunk of nrec records (mb, chain):
 * its big blocks are kept for that model when it has the same sizes, and
 * given back at once when not. */
void dr_model_drop(dr_model *m, uint64_t nrec, unsigned mb, int chain);
dr_model *dr_model_new_know(uint64_t n);
void dr_model_free_know(dr_model *m);
unsigned dr_mb_default(uint64_t nrec);

static inline uint32_t h32(uint64_t x) { return (uint32_t)((x * 0x9E3779B97F4A7C15ull) >> 32); }

TRZ_FORCE_INLINE dr_pcdyn *dyn_get(dr_model *m, uint64_t pc)
{
    dr_pcdyn *d = &m->dyn[h32(pc) >> (32 - m->dyn_bits)];
    if (!d->valid || d->pc != pc) {
        memset(d, 0, sizeof *d);
        d->pc = pc;
        d->valid = 1;
    }
    return d;
}

TRZ_FORCE_INLINE dr_pcdyn *dyn_find(dr_model *m, uint64_t pc)
{
    dr_pcdyn *d = &m->dyn[h32(pc) >> (32 - m->dyn_bits)];
    return d->valid && d->pc == pc ? d : NULL;
}

TRZ_FORCE_INLINE dr_slot *slot_get(dr_model *m, uint64_t pc, unsigned s)
{
    uint64_t k = pc * 37 + s;
    uint32_t h = h32(k);
    dr_slot *e = &m->slot[h >> (32 - m->slot_bits)];
    uint32_t tag = (uint32_t)(k ^ (k >> 32)) | 1;
    if (e->tag != tag) {
        memset(e, 0, sizeof *e);
        e->tag = tag;
    }
    return e;
}

/* ---- small helpers ------------------------------------------------------------ */

/* Instruction types as a 4-bit symbol: 48 and 49 are one (the taken bit
 * follows), 15 = another value; and back (dr_model.c). */
extern const uint8_t dr_type_sym[DR_NTYPES], dr_sym_type[11];

static inline unsigned tclass(unsigned t) { return t == DR_UNTAKEN ? DR_TAKEN : t; }

static inline void put_rec(uint8_t *p, unsigned t, unsigned sz, uint64_t a)
{
    trz_st_le16(p, (uint16_t)t);
    trz_st_le16(p + 2, (uint16_t)sz);
    trz_st_le64(p + 4, a);
}

TRZ_FORCE_INLINE int64_t code_sint(rc *c, const int enc, dr_sint64 *s, unsigned ctx, int64_t v)
{
    return rcd_sint(c, enc, s->len[ctx & 63], s->bits, v);
}

static inline unsigned bitlen(uint64_t v) { return v ? 64 - (unsigned)__builtin_clzll(v) : 0; }

/* ---- static facts (dr_model.c) --------------------------------------------
 * A fact's value (drmemtrace.md, "Knowledge"): type, length, memory count
 * (DR_NOPAT: none kept), encoding length, the encoding, the pattern (type,
 * size), and a direct target the encoding does not give. */
#define DR_FACT_HDR 5
#define DR_FACT_MAX (DR_FACT_HDR + 15 + 3 * DR_MAXMEM + 8)

/* The encoding's static fields a fact keeps: opcode id, memory operand's
 * base register and displacement, a direct branch's target. */
void dr_fact_from_enc(dr_fact *f, const uint8_t *b, unsigned n);
/* The value of a fact; returns its length.  tgt: 0 for none. */
size_t dr_fact_pack(uint8_t *v, unsigned type, unsigned len, unsigned nmem, const uint8_t *eb, unsigned elen,
                 const uint32_t *pat, uint64_t tgt);
/* A fact's fields from its value, or 0 when the bytes are none the learn
 * step writes (the PC then has no fact). */
int dr_fact_unpack(const uint8_t *v, size_t n, unsigned *type, unsigned *len, unsigned *nmem, uint8_t *eb,
                unsigned *elen, uint32_t *pat, uint64_t *tgt);
/* The fact of pc: the chunk's, else the member's (copied into the chunk's
 * table on first use), else NULL. */
const dr_fact *dr_fact_get(dr_model *m, uint64_t pc);

/* dr_fact_get through the PC's dynamic state, which remembers where its fact
 * is (d: the PC's, or NULL). */
static inline const dr_fact *fact_at(dr_model *m, dr_pcdyn *d, uint64_t pc)
{
    if (d && d->fidx) return &m->facts.f[d->fidx - 1];
    const dr_fact *f = dr_fact_get(m, pc);
    if (f && d) d->fidx = (uint32_t)(f - m->facts.f) + 1;
    return f;
}

/* ---- the encoding bytes ------------------------------------------------------ */

/* One byte through a mix of three contexts of count states: the two bytes
 * before it at its place, its x86 field with the opcode, its field with the
 * byte before. */
TRZ_FORCE_INLINE unsigned code_byte(dr_model *m, rc *c, const int enc, const uint8_t *b, unsigned k, const drx_info *x,
                          unsigned v)
{
    if (enc == 3) return v & 255;
    unsigned p1 = k ? b[k - 1] : 256, p2 = k > 1 ? b[k - 2] : 256;
    unsigned opid = x->field >= DRX_MODRM ? x->opid : 0, modrm = x->field >= DRX_SIB ? x->modrm : 0;
    uint64_t fp = (uint64_t)x->field << 28 | (uint64_t)x->pos << 24;
    uint32_t hh[NBC];
    hh[0] = h32((uint64_t)k << 20 | p1 << 10 | p2);
    hh[1] = h32(0x100000000ull | fp | (uint64_t)opid << 8 | modrm);
    hh[2] = h32(0x200000000ull | fp | p1 << 12 | (x->field == DRX_OP || x->field == DRX_MODRM ? (x->opid >> 3 & 0xFF) : 0));
    /* the instruction before: opcode sequences (compare, then branch) */
    hh[3] = h32(0x300000000ull | fp | (uint64_t)m->prev_opid << 8 | (x->field >= DRX_MODRM ? (x->opid >> 3 & 0xFF) : p1));
    hh[4] = h32(0x400000000ull | fp | (uint64_t)opid << 16 | modrm << 8 | (x->field >= DRX_DISP ? p1 : 0) | (uint64_t)x->rexw << 40);
    unsigned sh = 32 - m->byte_bits + 8;
    rc_cnt *t[NBC];
    for (int j = 0; j < NBC; j++) t[j] = m->bytes + ((size_t)(hh[j] >> sh) << 8);
    unsigned node = 1;
    for (int i = 7; i >= 0; i--) {
        int st[NBC];
        for (int j = 0; j < NBC; j++) st[j] = m->str[4095 - (t[j][node] >> 20)];
        unsigned n0 = t[0][node] & 63;
        int32_t *w = m->ew[x->field * 4 + (n0 > 3 ? 3 : n0)];
        int64_t dot = 0;
        for (int j = 0; j < NBC; j++) dot += (int64_t)w[j] * st[j];
        int p = rc_squash((int)(dot >> 16));
        if (p < 1) p = 1;
        if (p > 4095) p = 4095;
        int bit = rcd_code(c, enc, (uint32_t)(4096 - p) << 4, (int)(v >> i & 1));
        int err = ((bit << 12) - p) * 8;
        for (int j = 0; j < NBC; j++) {
            int32_t nw = w[j] + ((st[j] * err) >> 10);
            w[j] = nw > (1 << 24) ? 1 << 24 : nw < -(1 << 24) ? -(1 << 24) : nw;
            rc_cnt_update(&t[j][node], bit, 30);
        }
        node = node << 1 | (unsigned)bit;
    }
    return node & 255;
}

/* An instruction's encoding, byte by byte, each followed by whether it was
 * the last (in the context of the length the x86 fields give).  Returns
 * the length, 1..15. */
/* A relative branch's displacement (imm bytes n at b + k): one of the
 * recent branch targets (NBLK: none). */
TRZ_FORCE_INLINE int code_rel(dr_model *m, rc *c, const int enc, uint8_t *b, unsigned k, unsigned n, unsigned len, uint64_t pc,
                    unsigned call)
{
    uint64_t next = pc + k + n;
    unsigned j = NBLK;
    if (enc && k + n <= len)
        for (unsigned q = 0; q < NBLK && j == NBLK; q++) {
            uint64_t rel = m->blk[q] - next;
            if (m->blk[q] && (n == 1 ? (uint8_t)rel == b[k] : (uint32_t)rel == trz_ld_le32(b + k))) j = q;
        }
    j = rcd_ctree(c, enc, m->blk_idx[call], 5, j, CLIM);
    if (j >= NBLK) return 0;
    uint64_t rel = m->blk[j] - next;
    for (unsigned q = 0; q < n; q++) b[k + q] = (uint8_t)(rel >> 8 * q);
    return 1;
}

/* Move v to the front of the n-entry most-recent-first list t (the last
 * entry drops out when v is new). */
static inline void mtf_u64(uint64_t *t, unsigned n, uint64_t v)
{
    uint64_t up = v;
    for (unsigned j = 0; j < n; j++) {
        uint64_t x = t[j];
        t[j] = up;
        if (x == v) break;
        up = x;
    }
}

/* Move pc to the front of the recent branch targets. */
TRZ_FORCE_INLINE void blk_use(dr_model *m, uint64_t pc) { mtf_u64(m->blk, NBLK, pc); }

static inline int rel_branch(unsigned opid)
{
    unsigned map = opid >> 11, op = opid >> 3 & 0xFF;
    if (map == 0) return (op >= 0x70 && op <= 0x7F) || (op >= 0xE0 && op <= 0xE3) || op == 0xEB || op == 0xE9 ? 1 : op == 0xE8 ? 2 : 0;
    return map == 1 && op >= 0x80 && op <= 0x8F;
}

/* An instruction's encoding at pc, byte by byte, each followed by whether
 * it was the last (in the context of the length the x86 fields give); a
 * relative branch's displacement may instead name a recent target.
 * Returns the length, 1..15. */
TRZ_FORCE_INLINE unsigned code_enc(dr_model *m, rc *c, const int enc, uint8_t *b, unsigned len, uint64_t pc)
{
    unsigned k = 0;
    for (;;) {
        drx_info x;
        drx_parse(b, k, &x);
        unsigned rb = x.field == DRX_IMM && x.pos == 0 && (x.imm_n == 1 || x.imm_n == 4) && x.len == k + x.imm_n
                          ? rel_branch(x.opid) : 0;
        if (rb && code_rel(m, c, enc, b, k, x.imm_n, len, pc, rb - 1)) {
            k += x.imm_n;
        } else {
            b[k] = (uint8_t)code_byte(m, c, enc, b, k, &x, b[k]);
            k++;
        }
        if (k >= 15) break;
        drx_parse(b, k, &x);
        unsigned pr = x.len == k ? 1 : x.len > k ? 2 : 0;
        if (rcd_cbit(c, enc, &m->end[pr * 16 + k], k == len, CLIM)) break;
    }
    return k;
}

/* Sizes as a 4-bit symbol: 0, powers of two 1..8192 (1..14), 15 another. */
static inline unsigned size_sym(unsigned z)
{
    if (z == 0) return 0;
    if (z & (z - 1) || z > 8192) return 15;
    return 1 + (unsigned)__builtin_ctz(z);
}

TRZ_FORCE_INLINE unsigned code_size(rc *c, const int enc, rc_cnt *t, unsigned z)
{
    unsigned s = rcd_ctree(c, enc, t, 4, size_sym(z), CLIM);
    if (s == 0) return 0;
    if (s < 15) return 1u << (s - 1);
    return rcd_direct(c, enc, z, 16);
}

/* A memory pattern: the count, then each record's type and size. */
TRZ_FORCE_INLINE unsigned code_pattern(dr_model *m, rc *c, const int enc, unsigned ctx, uint32_t *pat, unsigned n)
{
    n = rcd_ctree(c, enc, m->nmemT[ctx & 511], 6, n, CLIM);
    if (n > DR_MAXMEM) return ~0u;
    unsigned pt = 64;
    for (unsigned s = 0; s < n; s++) {
        unsigned t = enc ? pat[s] >> 16 : 0, z = enc ? pat[s] & 0xFFFF : 0;
        uint32_t h = h32((uint64_t)ctx << 16 | s << 8 | pt);
        t = rcd_ctree(c, enc, m->mtypT[h >> 23], 6, t, CLIM);
        if (!dr_is_mem(t)) return ~0u;
        z = code_size(c, enc, m->msizT[h32((uint64_t)ctx << 16 | s << 8 | t | 0x1000000) >> 23], z);
        pat[s] = t << 16 | z;
        pt = t;
    }
    return n;
}

/* ---- events (dr_event.c) ------------------------------------------------- */

/* What the match model predicted when the event was not its copy: the
 * predicted instruction's PC and addresses (an interpreter's loop over new
 * objects repeats its accesses at other places). */
typedef struct {
    uint64_t pc;
    unsigned nmem;     /* 0: no hint */
    int have_d;        /* d is set: this event's first differing address */
    int64_t d;
    const uint8_t *mem; /* the predicted memory records */
} dr_hint;

typedef struct {
    unsigned kind, nenc, bt_mid, nmem, run;
    size_t instr; /* index of the instruction record */
} dr_event;

/* Encoder: the event at record i (dr_event.kind EV_*), looking at records
 * before nrec only. */
void dr_parse_event(const uint8_t *in, size_t i, size_t nrec, dr_event *ev);

/* A chunk's records, i to nrec of the buffer (the records before i: a
 * chain's window), coded (dr_code_enc: in -> c) or decoded (dr_code_dec:
 * c -> out): 0, -1 for damage (or, encoding, records the parse and the
 * replay disagree on), -2 out of memory. */
int dr_code_enc(dr_model *m, rc *c, const uint8_t *in, size_t i, size_t nrec);
int dr_code_dec(dr_model *m, rc *c, uint8_t *out, size_t i, size_t nrec);

/* dr_know.c: the codec's learn, know_encode and know_decode. */
int dr_learn(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, int bo, trz_know_add_fn add, void *ctx);
int dr_know_encode(const trz_know *k, const trz_fact *f, size_t n, int level, trz_buf *out);
int dr_know_decode(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx);

#endif
