/* drmemtrace.c - the drmemtrace codec: DynamoRIO's offline trace records
 * (12 bytes: type, size, addr), id 7.  A chunk is read as events (an
 * instruction with its encodings and memory records, a marker and its
 * repeats, a thread record, or any record as it is) and every decision is
 * range-coded in context from the models: the next PC from the control
 * flow, per-PC static facts (dr_facts.h), a branch predictor, per-(PC,
 * slot) address strides, encoding bytes by their x86 fields.  Encoder and
 * decoder are one template, dr_code, instantiated for each direction.
 * Spec: drmemtrace.md. */
#include "dr_facts.h"
#ifdef DR_STATS /* model tuning only: the bits each part costs */
#include <math.h>
enum { F_EV, F_PC, F_TAKEN, F_ENC, F_BT, F_STATIC, F_TYPE, F_PAT, F_ADDR_HIT, F_ADDR_MISS, F_ADDR_NEW, F_MARKER,
       F_MVAL, F_RUN, F_OTHER, F_RAW, F_MATCH, F_N };
static const char *const dr_fname[F_N] = { "event", "pc", "taken", "enc", "bt", "static", "type", "pattern",
                                           "addr_hit", "addr_miss", "addr_new", "mtype", "mval", "run", "other",
                                           "raw", "match" };
double dr_bits[F_N], *dr_cost;
uint64_t dr_n[F_N];
#define RC_DIR_COST(enc, p, bit) \
    ((enc) && dr_cost ? (void)(*dr_cost += -log2((bit) ? 1 - (p) / 65536.0 : (p) / 65536.0)) : (void)0)
#define RC_DIR_COST_N(enc, n) ((enc) && dr_cost ? (void)(*dr_cost += (n)) : (void)0)
#define FIELD(f) (dr_cost = &dr_bits[f], dr_n[f] += (enc == 1))
void dr_stats_print(void);
__attribute__((destructor)) void dr_stats_print(void)
{
    double t = 0;
    for (int f = 0; f < F_N; f++) t += dr_bits[f];
    for (int f = 0; f < F_N; f++)
        if (dr_n[f])
            fprintf(stderr, "  %-10s %9llu events %10.0f bytes %5.1f%% %7.3f bits/event\n", dr_fname[f],
                    (unsigned long long)dr_n[f], dr_bits[f] / 8, 100 * dr_bits[f] / t, dr_bits[f] / dr_n[f]);
}
#else
#define FIELD(f) ((void)0)
#endif
#include "../common/rc_dir.h"
#include "../common/rc_mix.h"

enum { S_MODEL, S_NSTREAMS };
#define DR_VARIANT 0      /* stream 0's model variant: a chunk on its own */
#define DR_VARIANT_KNOW 1 /* the same, starting from the member's facts */
#define DR_VARIANT_MATCH 2      /* variant 0 with the match model */
#define DR_VARIANT_MATCH_KNOW 3 /* variant 1 with the match model */
#define DR_VARIANT_MATCH_MB 4      /* variant 2 with the match table's size stated (8 direct bits) */
#define DR_VARIANT_MATCH_MB_KNOW 5 /* variant 3 likewise */
#define DR_MB_MIN 10 /* the match table's bits a stated size may take */
#define DR_MB_MAX 22

/* What each level spends (indexed by level 1..19): whether the match model
 * runs, and its table's size in bits more (or fewer) than the chunk's
 * default (drmemtrace.md, "Levels" and "Design notes").  Levels 1 and 2
 * code without it (faster where traces seldom repeat), 3 to 11 as the
 * default always did, the strong ones with a table twice as big. */
typedef struct {
    uint8_t match; /* the match model */
    int8_t mb_add; /* its table: bits added to the default size */
} dr_level;
static const dr_level dr_levels[20] = {
    [1] = { 0, 0 },  [2] = { 0, 0 },  [3] = { 1, 0 },  [4] = { 1, 0 },  [5] = { 1, 0 },
    [6] = { 1, 0 },  [7] = { 1, 0 },  [8] = { 1, 0 },  [9] = { 1, 0 },  [10] = { 1, 0 },
    [11] = { 1, 0 }, [12] = { 1, 1 }, [13] = { 1, 1 }, [14] = { 1, 1 }, [15] = { 1, 1 },
    [16] = { 1, 1 }, [17] = { 1, 1 }, [18] = { 1, 1 }, [19] = { 1, 1 },
};

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
    int16_t str[4096];
} dr_model;

/* ---- tables ---------------------------------------------------------------- */

static unsigned clampu(int x, int lo, int hi) { return (unsigned)(x < lo ? lo : x > hi ? hi : x); }

#define T_DYN ((size_t)sizeof(dr_pcdyn) << m->dyn_bits)
#define T_SLOT ((size_t)sizeof(dr_slot) << m->slot_bits)
#define T_BYTES ((size_t)sizeof(rc_cnt) << m->byte_bits)
#define T_BR ((size_t)4 * sizeof(rc_prob) << m->br_bits)
#define T_MT ((size_t)sizeof(uint32_t) << m->mt_bits)

static void model_free(dr_model *m)
{
    if (!m) return;
    facts_free(&m->facts);
    if (m->dyn) trz_big_free(m->dyn, T_DYN);
    if (m->slot) trz_big_free(m->slot, T_SLOT);
    if (m->bytes) trz_big_free(m->bytes, T_BYTES);
    if (m->bim) trz_big_free(m->bim, T_BR);
    if (m->mtab) trz_big_free(m->mtab, T_MT);
    if (m->evk) trz_big_free(m->evk, m->nrec);
    free(m);
}

/* Every small model at its start. */
static void model_init_small(dr_model *m)
{
    /* every count state at 1/2: those from ev to bw as one run (the
     * integer models among them are then set as rc_prob) */
    rc_cnt_fill(&m->ev[0][0], (size_t)((uint8_t *)&m->bw - (uint8_t *)&m->ev[0][0]) / sizeof(rc_cnt));
    rc_init(&m->pc_d[0].len[0][0], sizeof m->pc_d / (sizeof(rc_prob)));
    rc_init(&m->bt_d[0].len[0][0], sizeof m->bt_d / (sizeof(rc_prob)));
    rc_init(&m->mk_d[0].len[0][0], sizeof m->mk_d / (sizeof(rc_prob)));
    rc_init(&m->mem_d[0].len[0][0], sizeof m->mem_d / (sizeof(rc_prob)));
    rc_init(&m->mem_n[0].len[0][0], sizeof m->mem_n / (sizeof(rc_prob)));
    rc_init(&m->raw_d.len[0][0], sizeof m->raw_d / (sizeof(rc_prob)));
    rc_init(&m->run_n[0].len[0][0], sizeof m->run_n / (sizeof(rc_prob)));
    rc_init(&m->k_gap.len[0][0], sizeof m->k_gap / (sizeof(rc_prob)));
    rc_init(&m->k_tgt.len[0][0], sizeof m->k_tgt / (sizeof(rc_prob)));
    for (int k = 0; k < 5; k++) m->bw[k] = 1 << 14;
    for (int k = 0; k < DRX_NFIELD * 4; k++)
        for (int j = 0; j < NBC; j++) m->ew[k][j] = 65536 / 3;
    rc_stretch_init(m->str);
    m->prev_ev = EV_RAW;
    m->gen = 1;
}

/* Tables for a chunk of nrec records: sizes grow with the chunk and are
 * part of the format (drmemtrace.md); the big ones come from the block
 * pool, which keeps them from one chunk to the next. */
/* The bit length of n. */
static int bits_of(uint64_t n)
{
    int L = 0;
    while (L < 40 && (n >> L)) L++;
    return L;
}

/* The match table's default size in bits for a chunk of nrec records. */
static unsigned mb_default(uint64_t nrec) { return clampu(bits_of(nrec) - 2, 10, 19); }

/* mb: the match table's size in bits (0: no match model). */
static dr_model *model_new(uint64_t nrec, unsigned mb)
{
    dr_model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    int L = bits_of(nrec);
    m->dyn_bits = clampu(L - 4, 10, 16);
    m->slot_bits = clampu(L - 3, 10, 16);
    m->byte_bits = clampu(L + 3, 16, 21);
    m->br_bits = clampu(L - 3, 10, 16);
    m->mt_bits = mb;
    int match = mb != 0;
    m->match = match;
    if (match) {
        m->mtab = trz_big_malloc(T_MT);
        m->nrec = (size_t)nrec;
        m->evk = trz_big_malloc(m->nrec);
        if (!m->mtab || !m->evk) { model_free(m); return NULL; }
        memset(m->mtab, 0, T_MT);
    }
    m->dyn = trz_big_malloc(T_DYN);
    m->slot = trz_big_malloc(T_SLOT);
    m->bytes = trz_big_malloc(T_BYTES);
    m->bim = trz_big_malloc(T_BR);
    if (!m->dyn || !m->slot || !m->bytes || !m->bim || facts_init(&m->facts)) { model_free(m); return NULL; }
    memset(m->dyn, 0, T_DYN);
    memset(m->slot, 0, T_SLOT);
    m->gs = m->bim + ((size_t)1 << m->br_bits);
    m->gl = m->gs + ((size_t)1 << m->br_bits);
    m->loc = m->gl + ((size_t)1 << m->br_bits);
    rc_cnt_fill(m->bytes, (size_t)1 << m->byte_bits);
    rc_init(m->bim, (size_t)4 << m->br_bits);
    model_init_small(m);
    return m;
}

/* The model of a knowledge stream of n facts: the encoding-byte table and
 * the small models only, on the C heap (given back after the stream, not
 * kept with the chunk models' blocks). */
static dr_model *model_new_know(uint64_t n)
{
    dr_model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    int L = 0;
    while (L < 40 && (n >> L)) L++;
    m->byte_bits = clampu(L + 4, 16, 21);
    m->bytes = malloc(T_BYTES);
    if (!m->bytes) { free(m); return NULL; }
    rc_cnt_fill(m->bytes, (size_t)1 << m->byte_bits);
    model_init_small(m);
    return m;
}

static void model_free_know(dr_model *m)
{
    if (!m) return;
    free(m->bytes);
    free(m);
}


static inline uint32_t h32(uint64_t x) { return (uint32_t)((x * 0x9E3779B97F4A7C15ull) >> 32); }

RC_HOT dr_pcdyn *dyn_get(dr_model *m, uint64_t pc)
{
    dr_pcdyn *d = &m->dyn[h32(pc) >> (32 - m->dyn_bits)];
    if (!d->valid || d->pc != pc) {
        memset(d, 0, sizeof *d);
        d->pc = pc;
        d->valid = 1;
    }
    return d;
}

RC_HOT dr_pcdyn *dyn_find(dr_model *m, uint64_t pc)
{
    dr_pcdyn *d = &m->dyn[h32(pc) >> (32 - m->dyn_bits)];
    return d->valid && d->pc == pc ? d : NULL;
}

RC_HOT dr_slot *slot_get(dr_model *m, uint64_t pc, unsigned s)
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

static inline unsigned instr_class(unsigned t, int taken)
{
    switch (t) {
    case DR_DJUMP: return PC_DJUMP;
    case DR_IJUMP: case DR_ICALL: return PC_IND;
    case DR_CJUMP: case DR_TAKEN: case DR_UNTAKEN: return taken ? PC_CT : PC_CNT;
    case DR_DCALL: return PC_CALL;
    case DR_RET: return PC_RET;
    default: return PC_PLAIN;
    }
}

/* Instruction types as a 4-bit symbol: 48 and 49 are one (the taken bit
 * follows), 15 = another value. */
static const uint8_t type_sym[DR_NTYPES] = {
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 0, 1, 2, 3, 4, 5, 6, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    7, 8, 9, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 10, 10,
};
static const uint8_t sym_type[11] = { 10, 11, 12, 13, 14, 15, 16, 29, 30, 31, 48 };

static inline unsigned tclass(unsigned t) { return t == DR_UNTAKEN ? DR_TAKEN : t; }

static inline void put_rec(uint8_t *p, unsigned t, unsigned sz, uint64_t a)
{
    trz_st_le16(p, (uint16_t)t);
    trz_st_le16(p + 2, (uint16_t)sz);
    trz_st_le64(p + 4, a);
}

RC_HOT int64_t code_sint(rc *c, const int enc, dr_sint64 *s, unsigned ctx, int64_t v)
{
    return rcd_sint(c, enc, s->len[ctx & 63], s->bits, v);
}

static inline unsigned bitlen(uint64_t v) { return v ? 64 - (unsigned)__builtin_clzll(v) : 0; }

/* The encoding's static fields a fact keeps: opcode id, memory operand's
 * base register and displacement, a direct branch's target. */
static void fact_from_enc(dr_fact *f, const uint8_t *b, unsigned n)
{
    drx_info x;
    drx_parse(b, n, &x);
    f->opid = (uint16_t)(x.opid | 0x8000);
    f->mbase = 255;
    f->mdisp = 0;
    if (x.has_modrm && x.modrm >> 6 != 3) {
        unsigned rm = x.modrm & 7;
        if (x.riprel) f->mbase = 16;
        else if (rm != 4) f->mbase = (uint8_t)rm;
        else if (x.modrm >> 6 != 0 || 1) {
            unsigned sibo = (unsigned)x.disp_off - 1;
            if (sibo < n && (b[sibo] >> 3 & 7) == 4 && (b[sibo] & 7) != 5) f->mbase = b[sibo] & 7;
        }
        int32_t d = 0;
        if (x.disp_n == 1 && x.disp_off < n) d = (int8_t)b[x.disp_off];
        else if (x.disp_n == 4 && x.disp_off + 4u <= n) d = (int32_t)trz_ld_le32(b + x.disp_off);
        f->mdisp = d;
    }
    unsigned t = f->type;
    if ((t == DR_DJUMP || t == DR_CJUMP || t == DR_DCALL || t == DR_TAKEN) && x.imm_off + x.imm_n == n && n == f->len) {
        int64_t rel = x.imm_n == 1 ? (int8_t)b[x.imm_off] : x.imm_n == 4 ? (int32_t)trz_ld_le32(b + x.imm_off) : 0;
        if (x.imm_n == 1 || x.imm_n == 4) f->target = f->pc + f->len + (uint64_t)rel;
    }
}

/* ---- carried knowledge: an instruction's static facts by its PC ----------
 * A fact's value (drmemtrace.md, "Knowledge"): type, length, memory count
 * (DR_NOPAT: none kept), encoding length, the encoding, the pattern (type,
 * size), and a direct target the encoding does not give. */
#define DR_FACT_HDR 5
#define DR_FACT_MAX (DR_FACT_HDR + 15 + 3 * DR_MAXMEM + 8)

/* The value of a fact; returns its length.  tgt: 0 for none. */
static size_t fact_pack(uint8_t *v, unsigned type, unsigned len, unsigned nmem, const uint8_t *eb, unsigned elen,
                        const uint32_t *pat, uint64_t tgt)
{
    v[0] = (uint8_t)type;
    trz_st_le16(v + 1, (uint16_t)len);
    v[3] = (uint8_t)nmem;
    v[4] = (uint8_t)elen;
    size_t n = DR_FACT_HDR;
    memcpy(v + n, eb, elen);
    n += elen;
    for (unsigned s = 0; nmem != DR_NOPAT && s < nmem; s++, n += 3) {
        v[n] = (uint8_t)(pat[s] >> 16);
        trz_st_le16(v + n + 1, (uint16_t)pat[s]);
    }
    if (tgt) trz_st_le64(v + n, tgt), n += 8;
    return n;
}

/* A fact's fields from its value, or 0 when the bytes are none the learn
 * step writes (the PC then has no fact). */
static int fact_unpack(const uint8_t *v, size_t n, unsigned *type, unsigned *len, unsigned *nmem, uint8_t *eb,
                       unsigned *elen, uint32_t *pat, uint64_t *tgt)
{
    if (n < DR_FACT_HDR) return 0;
    *type = v[0];
    *len = trz_ld_le16(v + 1);
    *nmem = v[3];
    *elen = v[4];
    unsigned np = *nmem == DR_NOPAT ? 0 : *nmem;
    if (*type >= DR_NTYPES || type_sym[*type] > 10 || *type == DR_UNTAKEN || np > DR_MAXMEM || *elen > 15) return 0;
    size_t want = DR_FACT_HDR + *elen + 3 * (size_t)np;
    if (n != want && n != want + 8) return 0;
    memset(eb, 0, 16);
    memcpy(eb, v + DR_FACT_HDR, *elen);
    for (unsigned s = 0; s < np; s++) {
        const uint8_t *q = v + DR_FACT_HDR + *elen + 3 * s;
        if (!dr_is_mem(q[0])) return 0;
        pat[s] = (uint32_t)q[0] << 16 | trz_ld_le16(q + 1);
    }
    *tgt = n == want + 8 ? trz_ld_le64(v + want) : 0;
    return 1;
}

/* The fact of pc: the chunk's, else the member's (copied into the chunk's
 * table on first use), else NULL. */
static const dr_fact *fact_get(dr_model *m, uint64_t pc)
{
    const dr_fact *f = facts_find(&m->facts, pc);
    if (f || !m->know) return f;
    size_t n;
    const uint8_t *v = trz_know_get(m->know, pc, &n);
    dr_fact nf;
    uint32_t pat[DR_MAXMEM];
    unsigned type, len, nmem, elen;
    uint64_t tgt;
    memset(&nf, 0, sizeof nf);
    if (!v || !fact_unpack(v, n, &type, &len, &nmem, nf.enc, &elen, pat, &tgt)) return NULL;
    nf.pc = pc;
    nf.type = (uint8_t)type;
    nf.len = (uint16_t)len;
    nf.nmem = (uint8_t)nmem;
    nf.mbase = 255;
    if (elen) {
        nf.enc_n = (uint8_t)elen;
        fact_from_enc(&nf, nf.enc, elen);
    }
    if (tgt) nf.target = tgt;
    int rc = facts_add(&m->facts, &nf, pat);
    if (rc < 0) m->oom = 1;
    return rc ? NULL : &m->facts.f[m->facts.n - 1];
}

/* fact_get through the PC's dynamic state, which remembers where its fact
 * is (d: the PC's, or NULL). */
static inline const dr_fact *fact_at(dr_model *m, dr_pcdyn *d, uint64_t pc)
{
    if (d && d->fidx) return &m->facts.f[d->fidx - 1];
    const dr_fact *f = fact_get(m, pc);
    if (f && d) d->fidx = (uint32_t)(f - m->facts.f) + 1;
    return f;
}

/* ---- the encoding bytes ------------------------------------------------------ */

/* One byte through a mix of three contexts of count states: the two bytes
 * before it at its place, its x86 field with the opcode, its field with the
 * byte before. */
RC_HOT unsigned code_byte(dr_model *m, rc *c, const int enc, const uint8_t *b, unsigned k, const drx_info *x,
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
RC_HOT int code_rel(dr_model *m, rc *c, const int enc, uint8_t *b, unsigned k, unsigned n, unsigned len, uint64_t pc,
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
RC_HOT void blk_use(dr_model *m, uint64_t pc) { mtf_u64(m->blk, NBLK, pc); }

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
RC_HOT unsigned code_enc(dr_model *m, rc *c, const int enc, uint8_t *b, unsigned len, uint64_t pc)
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

/* ---- branches -------------------------------------------------------------- */

/* A conditional branch's outcome: a mix of a per-PC counter, gshare over
 * 12 and 32 outcomes and the PC's local history. */
RC_HOT int code_taken(dr_model *m, rc *c, const int enc, uint64_t pc, dr_pcdyn *d, int bit)
{
    if (enc == 3) { /* a replay: the histories move, the predictors stay */
        bit = bit != 0;
        m->ghist = m->ghist << 1 | (unsigned)bit;
        d->lhist = (uint16_t)(d->lhist << 1 | (unsigned)bit);
        return bit;
    }
    unsigned sh = 32 - m->br_bits;
    rc_prob *pb = &m->bim[h32(pc) >> sh];
    rc_prob *pg = &m->gs[h32(pc ^ (m->ghist & 0xFFF) << 40) >> sh];
    rc_prob *pl = &m->gl[h32(pc * 0x2545F4914F6CDD1Dull ^ (m->ghist & 0xFFFFFFFFull)) >> sh];
    rc_prob *po = &m->loc[h32(pc ^ (uint64_t)d->lhist << 44) >> sh];
    int st[5] = { m->str[rc_p12(*pb)], m->str[rc_p12(*pg)], m->str[rc_p12(*pl)], m->str[rc_p12(*po)], 256 };
    int64_t dot = 0;
    for (int k = 0; k < 5; k++) dot += (int64_t)m->bw[k] * st[k];
    int p = rc_squash((int)(dot >> 16));
    if (p < 1) p = 1;
    if (p > 4095) p = 4095;
    bit = rcd_code(c, enc, (uint32_t)(4096 - p) << 4, bit);
    int err = ((bit << 12) - p) * 6;
    for (int k = 0; k < 5; k++) {
        int32_t w = m->bw[k] + ((st[k] * err) >> 10);
        m->bw[k] = w > (1 << 24) ? 1 << 24 : w < -(1 << 24) ? -(1 << 24) : w;
    }
    *pb = (rc_prob)rc_adapt(*pb, bit, 4);
    *pg = (rc_prob)rc_adapt(*pg, bit, 4);
    *pl = (rc_prob)rc_adapt(*pl, bit, 4);
    *po = (rc_prob)rc_adapt(*po, bit, 4);
    m->ghist = m->ghist << 1 | (unsigned)bit;
    d->lhist = (uint16_t)(d->lhist << 1 | (unsigned)bit);
    return bit;
}

/* The target an indirect branch at pc will most likely take: the return
 * stack's top for a return, else its last target.  *kind: 1 return, 2
 * other indirect, 0 none. */
RC_HOT uint64_t bt_predict(dr_model *m, uint64_t pc, unsigned *kind)
{
    const dr_fact *f = fact_at(m, dyn_find(m, pc), pc);
    *kind = 0;
    if (!f) return 0;
    if (f->type == DR_RET && m->fl.ras_top) {
        *kind = 1;
        return m->fl.ras[(m->fl.ras_top - 1) % RAS_N];
    }
    if (f->type == DR_IJUMP || f->type == DR_ICALL) {
        const dr_pcdyn *d = dyn_find(m, pc);
        if (d && d->last_tgt) {
            *kind = 2;
            return d->last_tgt;
        }
    }
    return 0;
}

/* A BRANCH_TARGET value for the branch at pc. */
RC_HOT uint64_t code_bt(dr_model *m, rc *c, const int enc, uint64_t pc, uint64_t v)
{
    unsigned kind;
    uint64_t pred = bt_predict(m, pc, &kind);
    if (kind && rcd_cbit(c, enc, &m->tgt_hit[kind], v == pred, CLIM)) return pred;
    uint64_t base = kind ? pred : pc;
    return base + (uint64_t)code_sint(c, enc, &m->bt_d[kind], 0, (int64_t)(v - base));
}

/* ---- flow ------------------------------------------------------------------- */

/* The running thread becomes tid: its flow is saved, tid's restored (or a
 * fresh one). */
static void thread_switch(dr_model *m, uint64_t tid)
{
    if (m->fl.used && m->fl.tid == tid) return;
    dr_flow *free_slot = NULL, *old = NULL;
    if (m->fl.used) { /* save */
        for (int k = 0; k < NTHREADS && !free_slot; k++)
            if (m->thr[k].used && m->thr[k].tid == m->fl.tid) free_slot = &m->thr[k];
        for (int k = 0; k < NTHREADS && !free_slot; k++)
            if (!m->thr[k].used) free_slot = &m->thr[k];
        if (!free_slot) {
            free_slot = &m->thr[0];
            for (int k = 1; k < NTHREADS; k++)
                if (m->thr[k].lru < free_slot->lru) free_slot = &m->thr[k];
        }
        m->fl.lru = ++m->lru;
        *free_slot = m->fl;
    }
    for (int k = 0; k < NTHREADS; k++)
        if (m->thr[k].used && m->thr[k].tid == tid) old = &m->thr[k];
    if (old) {
        m->fl = *old;
        old->used = 0;
    } else {
        memset(&m->fl, 0, sizeof m->fl);
        m->fl.tid = tid;
    }
    m->fl.used = 1;
}

/* ---- the record loop ------------------------------------------------------ */

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

/* Encoder: the event at record i (dr_event.kind EV_*). */
static void parse_event(const uint8_t *in, size_t i, size_t nrec, dr_event *ev)
{
    memset(ev, 0, sizeof *ev);
    const uint8_t *p = in + i * DR_REC;
    unsigned t = trz_ld_le16(p);
    if (t == DR_ENCODING) {
        size_t j = i;
        unsigned L = 0, n = 0, ok = 1;
        while (j < nrec && trz_ld_le16(in + j * DR_REC) == DR_ENCODING && n < 2) {
            const uint8_t *q = in + j * DR_REC;
            unsigned sz = trz_ld_le16(q + 2);
            if (sz < 1 || sz > 8 || (n == 0 && sz != 8 && j + 1 < nrec && trz_ld_le16(q + DR_REC) == DR_ENCODING))
                ok = 0;
            for (unsigned k = sz; k < 8 && ok; k++) ok = q[4 + k] == 0;
            L += sz;
            n++;
            j++;
            if (sz < 8) break;
        }
        unsigned btm = 0;
        if (ok && j < nrec && trz_ld_le16(in + j * DR_REC) == DR_MARKER &&
            trz_ld_le16(in + j * DR_REC + 2) == DRM_BRANCH_TARGET)
            btm = 1, j++;
        if (ok && j < nrec && L <= 15 && dr_is_instr(trz_ld_le16(in + j * DR_REC)) &&
            trz_ld_le16(in + j * DR_REC + 2) == L && (n == 1 || trz_ld_le16(in + i * DR_REC + 2) == 8)) {
            ev->kind = EV_INSTR_ENC;
            ev->nenc = n;
            ev->bt_mid = btm;
            ev->instr = j;
        } else {
            ev->kind = EV_RAW;
            return;
        }
    } else if (dr_is_instr(t)) {
        ev->kind = EV_INSTR;
        ev->instr = i;
    } else if (t == DR_MARKER) {
        ev->kind = EV_MARKER;
        size_t j = i + 1;
        while (j < nrec && memcmp(in + j * DR_REC, p, DR_REC) == 0) j++;
        ev->run = (unsigned)(j - i - 1);
        return;
    } else if (t >= DR_THREAD && t <= DR_FOOTER) {
        ev->kind = EV_OTHER;
        return;
    } else {
        ev->kind = EV_RAW;
        return;
    }
    size_t k = ev->instr + 1;
    while (k < nrec && ev->nmem < DR_MAXMEM && dr_is_mem(trz_ld_le16(in + k * DR_REC))) k++, ev->nmem++;
}

/* Sizes as a 4-bit symbol: 0, powers of two 1..8192 (1..14), 15 another. */
static inline unsigned size_sym(unsigned z)
{
    if (z == 0) return 0;
    if (z & (z - 1) || z > 8192) return 15;
    return 1 + (unsigned)__builtin_ctz(z);
}

RC_HOT unsigned code_size(rc *c, const int enc, rc_cnt *t, unsigned z)
{
    unsigned s = rcd_ctree(c, enc, t, 4, size_sym(z), CLIM);
    if (s == 0) return 0;
    if (s < 15) return 1u << (s - 1);
    return rcd_direct(c, enc, z, 16);
}

/* A memory pattern: the count, then each record's type and size. */
RC_HOT unsigned code_pattern(dr_model *m, rc *c, const int enc, unsigned ctx, uint32_t *pat, unsigned n)
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

/* An address the last accesses touched: its place among them (NRECENT:
 * none). */
RC_HOT int code_recent(dr_model *m, rc *c, const int enc, unsigned ctx, uint64_t *a)
{
    unsigned j = NRECENT;
    if (enc)
        for (unsigned q = 0; q < NRECENT; q++)
            if (m->recent[q] == *a) { j = q; break; }
    j = rcd_ctree(c, enc, m->rec_idx[ctx], 4, j, CLIM);
    if (j >= NRECENT) return 0;
    *a = m->recent[j];
    return 1;
}

/* Move a to the front of the recent addresses. */
RC_HOT void recent_use(dr_model *m, uint64_t a) { mtf_u64(m->recent, NRECENT, a); }

/* A memory address of slot s of the instruction at pc (fact f, or NULL). */
/* The match's address for slot s: its own, or shifted as this event's
 * first other address was.  Returns 1 when a is it. */
RC_HOT int code_mhint(dr_model *m, rc *c, const int enc, dr_hint *h, unsigned s, unsigned ctx, uint64_t *a)
{
    uint64_t ma = trz_ld_le64(h->mem + s * DR_REC + 4);
    if (rcd_cbit(c, enc, &m->mm_a[ctx * 2 + h->have_d], *a == ma, CLIM)) {
        *a = ma;
        return 1;
    }
    if (h->have_d && ma + (uint64_t)h->d != ma &&
        rcd_cbit(c, enc, &m->mm_ad[ctx], *a == ma + (uint64_t)h->d, CLIM)) {
        *a = ma + (uint64_t)h->d;
        return 1;
    }
    return 0;
}

RC_HOT uint64_t code_addr(dr_model *m, rc *c, const int enc, uint64_t pc, unsigned len, const dr_fact *f, unsigned s,
                          uint64_t a, dr_hint *h)
{
    dr_slot *e = slot_get(m, pc, s);
    int hinted = h && s < h->nmem && h->pc == pc;
    uint64_t ha = hinted ? trz_ld_le64(h->mem + s * DR_REC + 4) : 0;
    if (e->valid) {
        FIELD(F_ADDR_HIT);
        uint64_t pr = e->last + e->stride;
        unsigned ctx = (e->hist & 3) * 2 + (e->stride != 0);
        if (rcd_cbit(c, enc, &m->mhit[ctx], a == pr, CLIM)) {
            a = pr;
            e->hist = (uint8_t)(e->hist << 1 | 1);
        } else if (hinted && ha != pr && code_mhint(m, c, enc, h, s, 0, &a)) {
            e->hist = (uint8_t)(e->hist << 1);
        } else {
            e->hist = (uint8_t)(e->hist << 1);
            FIELD(F_ADDR_MISS);
            uint64_t rp = f && f->mbase < 16 && m->regok[f->mbase] ? m->regval[f->mbase] + (uint64_t)(int64_t)f->mdisp : pr;
            uint64_t pv = e->last - e->stride; /* the address before: accesses that alternate */
            if (e->stride && rcd_cbit(c, enc, &m->mprev_hit[e->hist >> 1 & 3], a == pv, CLIM)) {
                a = pv;
            } else if (e->stride && rcd_cbit(c, enc, &m->mlast_hit[e->hist >> 1 & 3], a == e->last, CLIM)) {
                a = e->last;
            } else if (rp != pr && rp != e->last && rp != pv && rcd_cbit(c, enc, &m->mreg[2 + (f->mbase == 4)], a == rp, CLIM)) {
                a = rp; /* through the base register, as its last access left it */
            } else if (code_recent(m, c, enc, 0, &a)) {
            } else {
                /* a delta: from the match's address when there is one (the
                 * same structure elsewhere), else from the last */
                uint64_t b = hinted ? ha : e->last;
                a = b + (uint64_t)code_sint(c, enc, &m->mem_d[hinted], e->dcls, (int64_t)(a - b));
                e->dcls = (uint8_t)bitlen((int64_t)(a - e->last) < 0 ? e->last - a : a - e->last);
            }
        }
        e->stride = a - e->last;
    } else {
        /* a first access: rip-relative, or through a base register, or
         * near one of the bases */
        int done = 0;
        FIELD(F_ADDR_NEW);
        if (hinted && code_mhint(m, c, enc, h, s, 1, &a)) {
            done = 1;
        } else if (f && f->mbase == 16 && s == 0) {
            uint64_t pr = pc + len + (uint64_t)(int64_t)f->mdisp;
            if (rcd_cbit(c, enc, &m->mrip[0], a == pr, CLIM)) a = pr, done = 1;
        } else if (f && f->mbase < 16 && m->regok[f->mbase]) {
            uint64_t pr = m->regval[f->mbase] + (uint64_t)(int64_t)f->mdisp;
            if (rcd_cbit(c, enc, &m->mreg[s != 0], a == pr, CLIM)) a = pr, done = 1;
        }
        if (!done && code_recent(m, c, enc, 1, &a)) done = 1;
        if (!done && hinted) {
            a = ha + (uint64_t)code_sint(c, enc, &m->mem_n[3], 0, (int64_t)(a - ha));
        } else if (!done) {
            uint64_t base[3] = { m->last_addr, m->regok[4] ? m->regval[4] : m->last_addr, pc };
            unsigned j = 0;
            if (enc) {
                uint64_t best = UINT64_MAX;
                for (unsigned q = 0; q < 3; q++) {
                    uint64_t d = a - base[q], ad = (int64_t)d < 0 ? 0 - d : d;
                    if (ad < best) best = ad, j = q;
                }
            }
            j = rcd_ctree(c, enc, m->mbase[f && f->mbase != 255 ? 1 + (f->mbase == 4) : 0], 2, j, CLIM);
            if (j > 2) j = 2;
            a = base[j] + (uint64_t)code_sint(c, enc, &m->mem_n[j], 0, (int64_t)(a - base[j]));
        }
        e->valid = 1;
        e->stride = 0;
    }
    e->last = a;
    if (hinted && !h->have_d && a != ha) h->have_d = 1, h->d = (int64_t)(a - ha);
    /* the base register's value as this access shows it */
    if (f && s == 0 && f->mbase < 16) {
        m->regval[f->mbase] = a - (uint64_t)(int64_t)f->mdisp;
        m->regok[f->mbase] = 1;
    } else if (!f || f->mbase == 255) {
        m->regval[4] = a; /* a push, pop, call or return: the stack */
        m->regok[4] = 1;
    }
    m->last_addr = a;
    recent_use(m, a);
    return a;
}

/* A marker's value, from the last one of its type and what its type says. */
RC_HOT uint64_t code_mval(dr_model *m, rc *c, const int enc, unsigned mt, uint64_t v)
{
    unsigned k = mt & 63;
    uint64_t sp = 0;
    int have = 0;
    if (mt == DRM_KERNEL_EVENT || mt == DRM_KERNEL_XFER) have = m->fl.nexp_ok, sp = m->fl.nexp;
    else if (mt == DRM_VERSION) have = 1, sp = m->olast[DR_HEADER - DR_THREAD];
    else if (mt == DRM_CHUNK_FOOTER) have = 1, sp = m->gen - 1;
    if (have && rcd_cbit(c, enc, &m->mk_sp[k], v == sp, CLIM)) return sp;
    if (rcd_cbit(c, enc, &m->mk_same[k], v == m->mlast[k], CLIM)) return m->mlast[k];
    return m->mlast[k] + (uint64_t)code_sint(c, enc, &m->mk_d[k], 0, (int64_t)(v - m->mlast[k]));
}

/* After an instruction: the PC predicted next and the return stack. */
RC_HOT void flow_after(dr_model *m, const dr_fact *f, unsigned type, uint64_t pc, unsigned len, dr_pcdyn *d)
{
    dr_flow *fl = &m->fl;
    uint64_t fall = pc + len;
    fl->pc = pc;
    fl->fall = fall;
    fl->have = 1;
    fl->pend = 0;
    fl->nexp_ok = 1;
    fl->nexp = fall;
    uint64_t tgt = f ? f->target : 0;
    switch (type) {
    case DR_DCALL:
        fl->ras[fl->ras_top++ % RAS_N] = fall;
        /* fall through */
    case DR_DJUMP: case DR_TAKEN:
        fl->nexp = tgt;
        fl->nexp_ok = tgt != 0;
        break;
    case DR_CJUMP:
        fl->pend = 1;
        fl->ctgt = tgt;
        fl->nexp_ok = 0;
        break;
    case DR_ICALL:
        fl->ras[fl->ras_top++ % RAS_N] = fall;
        /* fall through */
    case DR_IJUMP: case DR_RET:
        if (type == DR_RET && fl->ras_top) {
            fl->ras_top--;
            fl->nexp = fl->ras[fl->ras_top % RAS_N];
        } else {
            fl->nexp = d->last_tgt;
            fl->nexp_ok = d->last_tgt != 0;
        }
        if (fl->bt_pend) fl->nexp = fl->bt_val, fl->nexp_ok = 1;
        break;
    default:
        break;
    }
    fl->bt_pend = 0;
    fl->pclass = (uint8_t)instr_class(type, type == DR_TAKEN);
}

/* What the previous instruction's successor teaches: a direct branch's
 * target (a static fact), an indirect branch's last target. */
RC_HOT void learn_successor(dr_model *m, uint64_t pc)
{
    dr_flow *fl = &m->fl;
    if (!fl->have || pc == fl->fall) return;
    unsigned cl = fl->pclass;
    if (cl == PC_DJUMP || cl == PC_CT || cl == PC_CALL) {
        const dr_fact *pf = fact_at(m, dyn_find(m, fl->pc), fl->pc);
        if (pf) facts_fill_target(&m->facts, pf, pc);
    } else if (cl == PC_IND || cl == PC_RET) {
        dr_pcdyn *d = dyn_get(m, fl->pc);
        d->last_tgt = pc;
    }
}

/* One event at record i (of nrec): returns the records it took, -1 for
 * damage, -2 out of memory.  enc 3 replays an event both sides know (the
 * match model's copy): nothing is coded, and the models' state moves
 * along as if it had been, their probabilities left as they are. */
RC_HOT long code_event(dr_model *m, rc *c, const int enc, const uint8_t *in, uint8_t *out, size_t i, size_t nrec,
                       dr_hint *hint, const dr_event *pev)
{
    uint32_t pat[DR_MAXMEM];
    uint64_t addrs[DR_MAXMEM];
    {
        dr_event ev;
        if (enc == 3) ev = *pev; /* a replay: the copy's parse, shifted to record i */
        else if (enc) parse_event(in, i, nrec, &ev);
        else memset(&ev, 0, sizeof ev);
        /* 1. the event */
        dr_flow *fl = &m->fl;
        unsigned seen = 0;
        if (fl->nexp_ok) {
            const dr_pcdyn *d = dyn_find(m, fl->nexp);
            seen = d && d->enc_gen == m->gen;
        }
        /* what followed the last instruction the last time it ran (a
         * system call's markers, an indirect branch's target marker) */
        unsigned nev = m->pdyn && m->pdyn->nev <= EV_N && m->pdyn->pc == fl->pc ? m->pdyn->nev : 0;
        unsigned ectx = ((m->prev_ev * 48 + m->prev_sub) * 4 + (nev < 4 ? nev : 3)) * 2 + seen;
        FIELD(F_EV);
        unsigned kind = rcd_ctree(c, enc, m->ev[ectx], 3, enc ? ev.kind : 0, CLIM);
        if (kind >= EV_N) return -1;
        if (m->pdyn) m->pdyn->nev = (uint8_t)(kind + 1);
        m->pdyn = NULL;
        if (kind == EV_MARKER) {
            const uint8_t *p = enc ? in + i * DR_REC : NULL;
            unsigned mt = enc ? trz_ld_le16(p + 2) : 0;
            uint64_t v = enc ? trz_ld_le64(p + 4) : 0;
            FIELD(F_MARKER);
        unsigned pk = m->prev_ev == EV_MARKER ? m->prev_sub : 47;
            unsigned sym = rcd_ctree(c, enc, m->mk_type[m->prev_ev == EV_MARKER][pk], 6, mt < 63 ? mt : 63, CLIM);
            mt = sym < 63 ? sym : rcd_direct(c, enc, mt, 16);
            if (mt == DRM_BRANCH_TARGET) {
                FIELD(F_BT);
                v = code_bt(m, c, enc, fl->nexp_ok ? fl->nexp : fl->fall, v);
                fl->bt_pend = 1;
                fl->bt_val = v;
            } else {
                FIELD(F_MVAL);
                v = code_mval(m, c, enc, mt, v);
            }
            unsigned run = 0;
            FIELD(F_RUN);
            if (rcd_cbit(c, enc, &m->run[mt & 63], enc && ev.run, CLIM)) {
                run = 1 + (unsigned)rcd_uint(c, enc, m->run_n[0].len[mt == DRM_CORE_IDLE], m->run_n[0].bits,
                                             enc ? ev.run - 1 : 0);
                if (run == 0 || run >= nrec - i) return -1;
            }
            if (!enc)
                for (unsigned k = 0; k <= run; k++) put_rec(out + (i + k) * DR_REC, DR_MARKER, mt, v);
            m->mlast[mt & 63] = v;
            if (mt == DRM_CHUNK_FOOTER) m->gen++;
            if (mt == DRM_KERNEL_EVENT) fl->kst[fl->ktop++ % KSTACK] = v;
            if (mt == DRM_KERNEL_XFER && fl->ktop) {
                fl->ktop--;
                fl->nexp = fl->kst[fl->ktop % KSTACK];
                fl->nexp_ok = 1;
                fl->pend = 0;
            }
            m->prev_ev = EV_MARKER;
            m->prev_sub = mt < 47 ? mt : 47;
            return 1 + (long)run;
        }
        if (kind == EV_OTHER) {
            const uint8_t *p = enc ? in + i * DR_REC : NULL;
            unsigned t = enc ? trz_ld_le16(p) - DR_THREAD : 0, sz = enc ? trz_ld_le16(p + 2) : 0;
            uint64_t v = enc ? trz_ld_le64(p + 4) : 0;
            FIELD(F_OTHER);
            t = rcd_ctree(c, enc, m->oth_t[m->prev_ev == EV_OTHER ? m->prev_sub : 7], 3, t, CLIM);
            if (t > 4) return -1;
            if (!rcd_cbit(c, enc, &m->oth_sz[t], sz == m->osize[t], CLIM)) sz = rcd_direct(c, enc, sz, 16);
            else sz = m->osize[t];
            unsigned ty = DR_THREAD + t;
            if (ty == DR_THREAD) {
                unsigned j = 8;
                if (enc)
                    for (unsigned q = 0; q < 8 && j == 8; q++)
                        if (m->tids[q] == v && v) j = q;
                j = rcd_ctree(c, enc, m->tid_idx, 4, j, CLIM);
                if (j > 8) return -1;
                v = j < 8 ? m->tids[j] : rcd_direct64(c, enc, v);
                if (j == 8) j = 7;
                for (; j > 0; j--) m->tids[j] = m->tids[j - 1];
                m->tids[0] = v;
                thread_switch(m, v);
            } else {
                uint64_t pr = ty == DR_THREAD_EXIT ? fl->tid : ty == DR_PID && fl->pid ? fl->pid : m->olast[t];
                if (!rcd_cbit(c, enc, &m->oth_a[t][ty == DR_PID && fl->pid], v == pr, CLIM))
                    v = rcd_direct64(c, enc, v);
                else
                    v = pr;
                if (ty == DR_PID) m->fl.pid = v;
            }
            if (!enc) put_rec(out + i * DR_REC, ty, sz, v);
            m->olast[t] = v;
            m->osize[t] = (uint16_t)sz;
            m->prev_ev = EV_OTHER;
            m->prev_sub = t;
            return 1;
        }
        if (kind == EV_RAW) {
            const uint8_t *p = enc ? in + i * DR_REC : NULL;
            unsigned t = enc ? trz_ld_le16(p) : 0, sz = enc ? trz_ld_le16(p + 2) : 0;
            uint64_t v = enc ? trz_ld_le64(p + 4) : 0;
            FIELD(F_RAW);
            if (rcd_cbit(c, enc, &m->raw_t[0], t < 64, CLIM)) t = rcd_ctree(c, enc, m->raw_tt, 6, t, CLIM);
            else t = rcd_direct(c, enc, t, 16);
            sz = code_size(c, enc, m->raw_sz, sz);
            uint64_t base = dr_is_mem(t) ? m->last_addr : m->rawlast;
            v = base + (uint64_t)code_sint(c, enc, &m->raw_d, t == DR_ENCODING, (int64_t)(v - base));
            if (!enc) put_rec(out + i * DR_REC, t, sz, v);
            m->rawlast = v;
            if (dr_is_mem(t)) m->last_addr = v;
            m->prev_ev = EV_RAW;
            m->prev_sub = 47;
            return 1;
        }
        /* an instruction: 2. its PC */
        const uint8_t *ip = enc ? in + ev.instr * DR_REC : NULL;
        uint64_t pc = enc ? trz_ld_le64(ip + 4) : 0;
        if (fl->pend) { /* a version-4 conditional branch: taken? */
            dr_pcdyn *pd = dyn_get(m, fl->pc);
            FIELD(F_TAKEN);
            int tk = code_taken(m, c, enc, fl->pc, pd, enc && pc != fl->fall);
            fl->nexp = tk ? fl->ctgt : fl->fall;
            fl->nexp_ok = !tk || fl->ctgt;
            fl->pclass = tk ? PC_CT : PC_CNT;
            fl->pend = 0;
        }
        {
            unsigned ctx = (fl->pclass * 4 + (fl->phist & 3)) * 2 + fl->bt_pend;
            int hit = 0;
            FIELD(F_PC);
            if (fl->nexp_ok) {
                hit = rcd_cbit(c, enc, &m->pc_hit[ctx], pc == fl->nexp, CLIM);
                fl->phist = (uint8_t)(fl->phist << 1 | (unsigned)hit);
            }
            if (hit) {
                pc = fl->nexp;
            } else if (fl->have && (!fl->nexp_ok || fl->pc != fl->nexp) &&
                       rcd_cbit(c, enc, &m->pc_rep[fl->pclass], pc == fl->pc, CLIM)) {
                pc = fl->pc;
            } else {
                uint64_t base = fl->nexp_ok ? fl->nexp : fl->fall;
                pc = base + (uint64_t)code_sint(c, enc, &m->pc_d[fl->pclass], 0, (int64_t)(pc - base));
            }
        }
        learn_successor(m, pc);
        if (fl->have && pc != fl->fall) blk_use(m, pc);
        /* 3. encodings */
        dr_pcdyn *d = dyn_get(m, pc);
        const dr_fact *f = fact_at(m, d, pc);
        uint8_t eb[16] = { 0 };
        unsigned elen = 0, btm = 0;
        uint64_t btv = 0;
        if (kind == EV_INSTR_ENC) {
            if (enc) {
                for (unsigned k = 0; k < ev.nenc; k++) memcpy(eb + 8 * k, in + (i + k) * DR_REC + 4, 8);
                elen = trz_ld_le16(ip + 2);
            }
            int same = 0;
            FIELD(F_ENC);
            if (enc == 3) { /* a replay: the bytes are the records' */
            } else if (f && f->enc_n)
                same = rcd_cbit(c, enc, &m->enc_same[0], enc && elen == f->enc_n && !memcmp(eb, f->enc, elen), CLIM);
            if (enc == 3) {
            } else if (same) {
                elen = f->enc_n;
                memcpy(eb, f->enc, 16);
            } else {
                elen = code_enc(m, c, enc, eb, elen, pc);
            }
            FIELD(F_BT);
            btm = rcd_cbit(c, enc, &m->bt_mid[0], enc && ev.bt_mid, CLIM);
            if (btm) {
                btv = code_bt(m, c, enc, pc, enc ? trz_ld_le64(in + (ev.instr - 1) * DR_REC + 4) : 0);
                fl->bt_pend = 1;
                fl->bt_val = btv;
            }
            d->enc_gen = m->gen;
            memcpy(m->prev_enc, eb, 16);
            drx_info px;
            drx_parse(eb, elen, &px);
            m->prev_opid = px.opid;
        }
        /* 4. type, length, memory pattern */
        unsigned type = enc ? trz_ld_le16(ip) : 0, len = enc ? trz_ld_le16(ip + 2) : 0, nmem = enc ? ev.nmem : 0;
        if (enc)
            for (unsigned s = 0; s < nmem; s++) {
                const uint8_t *q = in + (ev.instr + 1 + s) * DR_REC;
                pat[s] = (uint32_t)trz_ld_le16(q) << 16 | trz_ld_le16(q + 2);
            }
        unsigned otype = type; /* the encoder's: the taken bit comes from it */
        int rep = fl->have && pc == fl->pc;
        unsigned fpid = f ? f->opid : 0;
        int same = 0;
        if (enc == 3) { /* a replay: type, length and pattern are the records' (nothing to code) */
            type = tclass(type);
        } else if (f) {
            int eq = 0;
            if (enc) {
                eq = tclass(type) == tclass(f->type) && len == f->len && f->nmem != DR_NOPAT && nmem == f->nmem &&
                     !memcmp(pat, facts_pattern(&m->facts, f), nmem * sizeof *pat);
            }
            FIELD(F_STATIC);
            same = rcd_cbit(c, enc, &m->st_same[rep * 4 + (type_sym[f->type] == 10) + 2 * (kind == EV_INSTR_ENC)],
                            eq, CLIM);
        }
        if (enc == 3) {
        } else if (same) {
            if (f->nmem == DR_NOPAT) return -1; /* the encoder says "same" only with a pattern */
            type = f->type;
            len = f->len;
            nmem = f->nmem;
            memcpy(pat, facts_pattern(&m->facts, f), nmem * sizeof *pat);
        } else {
            drx_info xi;
            unsigned opid = fpid;
            if (kind == EV_INSTR_ENC) {
                drx_parse(eb, elen, &xi);
                opid = xi.opid | 0x8000;
            }
            unsigned tctx = opid ? (h32((uint64_t)opid << 1 | (unsigned)rep) >> 22) : 1024 + fl->pclass * 2 + (unsigned)rep;
            FIELD(F_TYPE);
            unsigned sym = rcd_ctree(c, enc, m->typ[tctx], 4, enc ? type_sym[type < DR_NTYPES ? type : 0] : 0, CLIM);
            if (sym > 10) return -1; /* not a symbol the encoder writes */
            type = sym_type[sym];
            if (kind == EV_INSTR_ENC) {
                len = elen;
            } else if (f && rcd_cbit(c, enc, &m->len_same[0], len == f->len, CLIM)) {
                len = f->len;
            } else {
                unsigned ls = rcd_ctree(c, enc, m->lenT[type_sym[type]], 4, len < 16 ? len : 0, CLIM);
                len = ls ? ls : rcd_direct(c, enc, len, 16);
            }
            FIELD(F_PAT);
            if (f && f->nmem != DR_NOPAT &&
                rcd_cbit(c, enc, &m->pat_same[0], enc && nmem == f->nmem &&
                         !memcmp(pat, facts_pattern(&m->facts, f), nmem * sizeof *pat), CLIM)) {
                nmem = f->nmem;
                memcpy(pat, facts_pattern(&m->facts, f), nmem * sizeof *pat);
            } else {
                nmem = code_pattern(m, c, enc, opid ? h32(opid) >> 23 : type_sym[type], pat, nmem);
                if (nmem > DR_MAXMEM) return -1;
            }
        }
        FIELD(F_TAKEN);
        if (tclass(type) == DR_TAKEN) type = code_taken(m, c, enc, pc, d, otype == DR_TAKEN) ? DR_TAKEN : DR_UNTAKEN;
        /* the learn step: a PC's first instruction record states its facts */
        if (!f) {
            dr_fact nf;
            memset(&nf, 0, sizeof nf);
            nf.pc = pc;
            nf.type = (uint8_t)tclass(type);
            nf.len = (uint16_t)len;
            nf.nmem = (uint8_t)nmem;
            nf.mbase = 255;
            if (kind == EV_INSTR_ENC) {
                nf.enc_n = (uint8_t)elen;
                memcpy(nf.enc, eb, 16);
                fact_from_enc(&nf, eb, elen);
            }
            if (facts_add(&m->facts, &nf, pat) < 0) return -2;
            f = facts_find(&m->facts, pc);
            if (f) d->fidx = (uint32_t)(f - m->facts.f) + 1;
        }
        /* 5. addresses */
        size_t nr = (kind == EV_INSTR_ENC ? elen > 8 ? 2 : 1 : 0) + btm + 1 + nmem;
        if (nr > nrec - i) return -1;
        for (unsigned s = 0; s < nmem; s++) {
            uint64_t a = enc ? trz_ld_le64(in + (ev.instr + 1 + s) * DR_REC + 4) : 0;
            addrs[s] = code_addr(m, c, enc, pc, len, f, s, a, hint);
        }
        if (!enc) {
            uint8_t *o = out + i * DR_REC;
            if (kind == EV_INSTR_ENC) {
                for (unsigned k = 0; k * 8 < elen; k++, o += DR_REC) {
                    unsigned n = elen - 8 * k < 8 ? elen - 8 * k : 8;
                    trz_st_le16(o, DR_ENCODING);
                    trz_st_le16(o + 2, (uint16_t)n);
                    memset(o + 4, 0, 8);
                    memcpy(o + 4, eb + 8 * k, n);
                }
                if (btm) put_rec(o, DR_MARKER, DRM_BRANCH_TARGET, btv), o += DR_REC;
            }
            put_rec(o, type, len, pc);
            o += DR_REC;
            for (unsigned s = 0; s < nmem; s++, o += DR_REC) put_rec(o, pat[s] >> 16, pat[s] & 0xFFFF, addrs[s]);
        }
        flow_after(m, f, type, pc, len, d);
        m->prev_ev = kind;
        m->prev_sub = fl->pclass;
        m->pdyn = d;
        return (long)nr;
    }
}

/* Each direction's instance of code_event a function of its own: the
 * record loop stays small, and each instance gets the registers to itself. */
#define DR_EV_ARGS dr_model *m, rc *c, const uint8_t *in, uint8_t *out, size_t i, size_t nrec, dr_hint *hint
static __attribute__((noinline)) long event_enc(DR_EV_ARGS) { return code_event(m, c, 1, in, out, i, nrec, hint, NULL); }
static __attribute__((noinline)) long event_dec(DR_EV_ARGS) { return code_event(m, c, 0, in, out, i, nrec, hint, NULL); }
/* A replay of the event parse_event found at the predicted record, now at
 * record i (its fields shifted there). */
static __attribute__((noinline)) long event_replay(dr_model *m, const uint8_t *buf, size_t i, size_t nrec,
                                                   const dr_event *pe, size_t mp)
{
    dr_event ev = *pe;
    ev.instr = ev.instr - mp + i;
    return code_event(m, NULL, 3, buf, NULL, i, nrec, NULL, &ev);
}

/* The records of the event parse_event found at record i. */
static inline size_t event_records(const dr_event *ev, size_t i)
{
    if (ev->kind <= EV_INSTR_ENC) return ev->instr - i + 1 + ev->nmem;
    return ev->kind == EV_MARKER ? 1 + (size_t)ev->run : 1;
}

/* An event's fingerprint: its records' bytes (the first 40) and count. */
static inline uint64_t event_fp(const uint8_t *p, size_t n)
{
    uint64_t h = n * 0x9E3779B97F4A7C15ull;
    for (size_t j = 0; j < n && j < 40; j++, p += DR_REC) {
        h = (h ^ trz_ld_le64(p + 4)) * 0xC2B2AE3D27D4EB4Full;
        h = (h ^ trz_ld_le32(p) ^ h >> 29) * 0x9E3779B97F4A7C15ull;
    }
    return h;
}

/* The chunk's events.  With the match model, each event is first offered
 * as a copy of the one that followed the last occurrence of the current
 * context (one decision, in the context of the run of right predictions,
 * the predicted event's kind and whether the flow agrees with it); a copy
 * is replayed through the models so they stay as if it had been coded. */
RC_HOT int dr_code(dr_model *m, rc *c, const int enc, const uint8_t *in, uint8_t *out, size_t nrec)
{
    const uint8_t *buf = enc ? in : out;
    size_t i = 0;
    unsigned nev = 0;
    while (i < nrec) {
        if (!enc && !(++nev & 1023) && rc_dec_bad(c)) return -1;
        if (m->oom) return -2;
        long n;
        int hit = 0;
        size_t pn = 0;
        dr_hint hint = { 0, 0, 0, 0, NULL };
        if (m->mp) {
            size_t mp = m->mp - 1;
            dr_event pe;
            parse_event(buf, mp, i, &pe);
            pn = event_records(&pe, mp);
            unsigned agree = 2;
            dr_pcdyn *pd = NULL;
            if (pe.kind <= EV_INSTR_ENC) {
                uint64_t ppc = trz_ld_le64(buf + pe.instr * DR_REC + 4);
                agree = m->fl.nexp_ok && ppc == m->fl.nexp;
                pd = dyn_get(m, ppc);
            }
            unsigned ml = m->mlen < 2048 ? bitlen(m->mlen) : 11;
            FIELD(F_MATCH);
            hit = rcd_cbit(c, enc, &m->mm_hit[(((ml * EV_N + pe.kind) * 3 + agree) * 256 + (pd ? pd->mhist : 0)) * 2 + (m->evk[mp] == 1)],
                           enc && pn <= nrec - i && !memcmp(in + i * DR_REC, in + mp * DR_REC, pn * DR_REC), CLIM);
            if (pd) pd->mhist = (uint8_t)(pd->mhist << 1 | (unsigned)hit);
            if (!hit && pe.kind <= EV_INSTR_ENC && pe.nmem) {
                hint.pc = trz_ld_le64(buf + pe.instr * DR_REC + 4);
                hint.nmem = pe.nmem;
                hint.mem = buf + (pe.instr + 1) * DR_REC;
            }
            if (hit) {
                if (pn > nrec - i) return -1;
                if (!enc) memcpy(out + i * DR_REC, out + mp * DR_REC, pn * DR_REC);
                n = event_replay(m, buf, i, i + pn, &pe, mp);
                if (n != (long)pn) return n < 0 ? (int)n : -1;
            }
            m->mp += pn;
            /* the next prediction's records, while this event is coded */
            if (!hit) __builtin_prefetch(buf + (m->mp - 1) * DR_REC);
        }
        if (!hit) {
            n = enc ? event_enc(m, c, in, out, i, nrec, &hint) : event_dec(m, c, in, out, i, nrec, &hint);
            if (n < 0) return (int)n;
        }
        if (m->match) {
            /* the context now ends with this event: where was it last? */
            for (unsigned k = MM_CTX - 1; k > 0; k--) m->mfp[k] = m->mfp[k - 1];
            m->mfp[0] = event_fp(buf + i * DR_REC, (size_t)n);
            uint64_t key = m->mfp[0];
            for (unsigned k = 1; k < MM_CTX; k++) key = key * 31 + m->mfp[k];
            uint32_t *slot = &m->mtab[(key * 0x9E3779B97F4A7C15ull) >> (64 - m->mt_bits)];
            if (hit) {
                m->mlen++;
            } else {
                m->mlen = 0;
                size_t p = *slot; /* a candidate stands when the event before it is this one */
                if (p && p - 1 >= (size_t)n && p - 1 <= i &&
                    !memcmp(buf + (p - 1 - (size_t)n) * DR_REC, buf + i * DR_REC, (size_t)n * DR_REC))
                    m->mp = p;
            }
            *slot = (uint32_t)(i + (size_t)n + 1);
            m->evk[i] = (uint8_t)(1 + hit);
        }
        i += (size_t)n;
    }
    return 0;
}

/* ---- carried knowledge: learning and the knowledge stream -------------- */

/* trz_codec.learn: a fact for each PC of the chunk the member does not
 * know yet: its first instruction record's type, length and memory
 * pattern, the first encoding seen with it, and for a direct branch whose
 * encoding does not give its target, the first taken successor. */
typedef struct {
    uint64_t pc, tgt;
    uint32_t rec, enc; /* its first instruction record; the first ENCODING of an event with encodings */
    uint8_t used, known, elen, nmem;
    uint16_t len;
} dr_lfact; /* small: a chunk's PCs each have one while it is scanned */

typedef struct { dr_lfact *t; size_t cap, n; } dr_ltab;

static dr_lfact *ltab_slot(dr_lfact *t, size_t cap, uint64_t pc)
{
    size_t h = (size_t)h32(pc) & (cap - 1);
    while (t[h].used && t[h].pc != pc) h = (h + 1) & (cap - 1);
    return &t[h];
}

static int ltab_grow(dr_ltab *lt)
{
    size_t nc = lt->cap ? 2 * lt->cap : 4096;
    dr_lfact *nt = calloc(nc, sizeof *nt);
    if (!nt) return -1;
    for (size_t j = 0; j < lt->cap; j++)
        if (lt->t[j].used) *ltab_slot(nt, nc, lt->t[j].pc) = lt->t[j];
    free(lt->t);
    lt->t = nt;
    lt->cap = nc;
    return 0;
}

static int dr_learn(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, int bo, trz_know_add_fn add,
                    void *ctx)
{
    (void)bo;
    if (len % DR_REC || nrec != len / DR_REC) return TRZ_CODEC_UNSUPPORTED;
    dr_ltab lt = { NULL, 0, 0 };
    if (ltab_grow(&lt)) return TRZ_CODEC_NOMEM;
    uint64_t prev_pc = 0;
    int prev_new = 0; /* the last instruction's fact is new and may take a target */
    size_t i = 0;
    while (i < nrec) {
        dr_event ev;
        parse_event(in, i, (size_t)nrec, &ev);
        if (ev.kind != EV_INSTR && ev.kind != EV_INSTR_ENC) {
            prev_new = 0;
            i += ev.kind == EV_MARKER ? 1 + ev.run : 1;
            continue;
        }
        const uint8_t *ip = in + ev.instr * DR_REC;
        uint64_t pc = trz_ld_le64(ip + 4);
        unsigned type = tclass(trz_ld_le16(ip)), ilen = trz_ld_le16(ip + 2);
        if (prev_new) { /* a direct branch's successor other than its fall-through */
            dr_lfact *p = ltab_slot(lt.t, lt.cap, prev_pc);
            if (!p->tgt && pc != prev_pc + p->len) p->tgt = pc;
        }
        if (2 * (lt.n + 1) > lt.cap && ltab_grow(&lt)) { free(lt.t); return TRZ_CODEC_NOMEM; }
        dr_lfact *e = ltab_slot(lt.t, lt.cap, pc);
        if (!e->used) {
            size_t n;
            e->used = 1;
            e->pc = pc;
            e->known = trz_know_get(k, pc, &n) != NULL;
            lt.n++;
            e->rec = (uint32_t)ev.instr;
            e->len = (uint16_t)ilen;
            e->nmem = (uint8_t)ev.nmem;
        }
        if (!e->known && !e->elen && ev.kind == EV_INSTR_ENC) {
            e->elen = (uint8_t)ilen;
            e->enc = (uint32_t)i;
        }
        prev_pc = pc;
        prev_new = !e->known && (type == DR_DJUMP || type == DR_CJUMP || type == DR_DCALL || type == DR_TAKEN);
        i = ev.instr + 1 + ev.nmem;
    }
    for (size_t j = 0; j < lt.cap; j++) {
        dr_lfact *e = &lt.t[j];
        if (!e->used || e->known) continue;
        unsigned type = tclass(trz_ld_le16(in + (size_t)e->rec * DR_REC));
        uint8_t eb[16] = { 0 };
        uint32_t pat[DR_MAXMEM];
        for (unsigned q = 0; q * 8 < e->elen; q++) memcpy(eb + 8 * q, in + ((size_t)e->enc + q) * DR_REC + 4, 8);
        for (unsigned s = 0; s < e->nmem; s++) {
            const uint8_t *q = in + ((size_t)e->rec + 1 + s) * DR_REC;
            pat[s] = (uint32_t)trz_ld_le16(q) << 16 | trz_ld_le16(q + 2);
        }
        if (e->elen) { /* a target the encoding gives is not stated again */
            dr_fact f;
            memset(&f, 0, sizeof f);
            f.pc = e->pc;
            f.type = (uint8_t)type;
            f.len = e->len;
            fact_from_enc(&f, eb, e->elen);
            if (f.target) e->tgt = 0;
        }
        uint8_t v[DR_FACT_MAX];
        add(ctx, e->pc, v, fact_pack(v, type, e->len, e->nmem, eb, e->elen, pat, e->tgt));
    }
    free(lt.t);
    return TRZ_CODEC_OK;
}

/* The knowledge stream (drmemtrace.md, "Knowledge stream"): a chunk's new
 * facts by increasing PC, range-coded: the first PC direct, then each as
 * the previous fact's fall-through or its distance; the encoding with the
 * record model's byte model; type, length and pattern as a record with no
 * fact codes them; a stated target as its distance from the fall-through. */
#define DR_KNOW_VARIANT 0
#define DR_KNOW_MAX_FACTS (1u << 19) /* a stream never holds more (the container's store limit) */

static int dr_know_code(const trz_fact *f, size_t n, trz_buf *out, const uint8_t *p, size_t plen, trz_know_add_fn add,
                        void *ctx, const int enc)
{
    rc c;
    if (enc) rc_enc_init(&c, out);
    else rc_dec_init(&c, p, plen);
    if (rcd_direct(&c, enc, DR_KNOW_VARIANT, 8) != DR_KNOW_VARIANT) return TRZ_CODEC_UNSUPPORTED;
    uint64_t count = rcd_direct(&c, enc, (uint32_t)n, 32);
    if (!enc && (count == 0 || count > DR_KNOW_MAX_FACTS)) return TRZ_CODEC_CORRUPT;
    dr_model *m = model_new_know(count);
    if (!m) return TRZ_CODEC_NOMEM;
    uint64_t pc = 0, next = 0;
    unsigned prev_enc = 0;
    int rc = TRZ_CODEC_OK;
    for (uint64_t i = 0; i < count && rc == TRZ_CODEC_OK; i++) {
        unsigned type = 0, len = 0, nmem = 0, elen = 0;
        uint8_t eb[16] = { 0 };
        uint32_t pat[DR_MAXMEM];
        uint64_t tgt = 0;
        if (enc) fact_unpack(f[i].val, f[i].len, &type, &len, &nmem, eb, &elen, pat, &tgt);
        /* the PC */
        uint64_t key = enc ? f[i].key : 0;
        if (i == 0) pc = rcd_direct64(&c, enc, key);
        else if (rcd_cbit(&c, enc, &m->k_gap_eq[prev_enc], key == next, CLIM)) pc = next;
        else pc = next + (uint64_t)code_sint(&c, enc, &m->k_gap, 0, (int64_t)(key - next));
        /* the encoding */
        unsigned opid = 0;
        if (rcd_cbit(&c, enc, &m->k_has_enc[prev_enc], elen != 0, CLIM)) {
            elen = code_enc(m, &c, enc, eb, elen, pc);
            drx_info x;
            drx_parse(eb, elen, &x);
            m->prev_opid = x.opid;
            opid = x.opid | 0x8000;
        } else {
            elen = 0;
        }
        prev_enc = elen != 0;
        /* type, length and pattern */
        unsigned tctx = opid ? h32((uint64_t)opid << 1) >> 22 : 1024;
        unsigned sym = rcd_ctree(&c, enc, m->typ[tctx], 4, type_sym[type], CLIM);
        if (sym > 10) { rc = TRZ_CODEC_CORRUPT; break; }
        type = sym_type[sym];
        if (elen && rcd_cbit(&c, enc, &m->k_len_enc[0], len == elen, CLIM)) {
            len = elen;
        } else {
            unsigned ls = rcd_ctree(&c, enc, m->lenT[sym], 4, len < 16 ? len : 0, CLIM);
            len = ls ? ls : rcd_direct(&c, enc, len, 16);
        }
        if (rcd_cbit(&c, enc, &m->k_nopat[0], nmem == DR_NOPAT, CLIM)) {
            nmem = DR_NOPAT;
        } else {
            nmem = code_pattern(m, &c, enc, opid ? h32(opid) >> 23 : sym, pat, nmem);
            if (nmem > DR_MAXMEM) { rc = TRZ_CODEC_CORRUPT; break; }
        }
        /* a target the encoding does not give */
        next = pc + len;
        if (rcd_cbit(&c, enc, &m->k_has_t[sym], tgt != 0, CLIM)) {
            tgt = next + (uint64_t)code_sint(&c, enc, &m->k_tgt, 0, (int64_t)(tgt - next));
            if (!tgt) { rc = TRZ_CODEC_CORRUPT; break; }
        }
        if (!enc) {
            if (rc_dec_bad(&c)) { rc = TRZ_CODEC_CORRUPT; break; }
            uint8_t v[DR_FACT_MAX];
            add(ctx, pc, v, fact_pack(v, type, len, nmem, eb, elen, pat, tgt));
        }
    }
    if (enc) rc_enc_flush(&c);
    else if (rc == TRZ_CODEC_OK && !rc_dec_ok(&c)) rc = TRZ_CODEC_CORRUPT;
    model_free_know(m);
    return rc;
}

static int dr_know_encode(const trz_know *k, const trz_fact *f, size_t n, int level, trz_buf *out)
{
    (void)k;
    (void)level; /* one form at every level */
    for (size_t i = 0; i < n; i++) { /* only facts learn writes */
        unsigned type, len, nmem, elen;
        uint8_t eb[16];
        uint32_t pat[DR_MAXMEM];
        uint64_t tgt;
        if (!fact_unpack(f[i].val, f[i].len, &type, &len, &nmem, eb, &elen, pat, &tgt) || (i && f[i].key <= f[i - 1].key))
            return TRZ_CODEC_UNSUPPORTED;
    }
    if (!n || n > DR_KNOW_MAX_FACTS) return TRZ_CODEC_UNSUPPORTED;
    return dr_know_code(f, n, out, NULL, 0, NULL, NULL, 1);
}

static int dr_know_decode(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx)
{
    (void)k;
    return dr_know_code(NULL, 0, NULL, p, n, add, ctx, 0);
}

/* ---- the codec ------------------------------------------------------------ */

static int dr_encode(const trz_enc_args *a)
{
    if (a->len % DR_REC || a->nrec != a->len / DR_REC) return TRZ_CODEC_UNSUPPORTED;
    if (!a->nrec) return TRZ_CODEC_OK;
    const dr_level *lv = &dr_levels[a->level < 1 ? 1 : a->level > 19 ? 19 : a->level];
    unsigned mb = 0, v = DR_VARIANT;
    if (lv->match) {
        mb = mb_default(a->nrec);
        v = DR_VARIANT_MATCH;
        if (lv->mb_add) {
            mb = clampu((int)mb + lv->mb_add, DR_MB_MIN, DR_MB_MAX);
            v = DR_VARIANT_MATCH_MB;
        }
    }
    dr_model *m = model_new(a->nrec, mb);
    if (!m) return TRZ_CODEC_NOMEM;
    m->know = a->know;
    rc c;
    rc_enc_init(&c, &a->streams[S_MODEL]);
    rcd_direct(&c, 1, v + (a->know != NULL), 8);
    if (v == DR_VARIANT_MATCH_MB) rcd_direct(&c, 1, mb, 8);
    int rc = dr_code(m, &c, 1, a->in, NULL, (size_t)a->nrec);
    rc_enc_flush(&c);
    trz_mark_coded(a, S_MODEL);
    model_free(m);
    if (rc == -2) return TRZ_CODEC_NOMEM;
    if (rc) return TRZ_CODEC_UNSUPPORTED;
    return a->streams[S_MODEL].oom ? TRZ_CODEC_NOMEM : TRZ_CODEC_OK;
}

static int dr_decode(const trz_dec_args *a)
{
    if (a->len % DR_REC || a->nrec != a->len / DR_REC) return TRZ_CODEC_CORRUPT;
    for (int k = S_NSTREAMS; k < TRZ_MAX_STREAMS; k++)
        if (a->stream_len[k]) return TRZ_CODEC_CORRUPT;
    if (!a->nrec) return a->stream_len[S_MODEL] ? TRZ_CODEC_CORRUPT : TRZ_CODEC_OK;
    rc c;
    rc_dec_init(&c, a->stream[S_MODEL], a->stream_len[S_MODEL]);
    /* variants 0 and 1 (no match model) are what trz 0.11 to 0.13 wrote,
     * 2 and 3 what 0.14 wrote; the odd ones carry knowledge */
    unsigned v = rcd_direct(&c, 0, 0, 8);
    if (v > DR_VARIANT_MATCH_MB_KNOW || (v & 1) != (a->know != NULL)) return TRZ_CODEC_UNSUPPORTED;
    unsigned mb = v >= DR_VARIANT_MATCH_MB ? rcd_direct(&c, 0, 0, 8) : v >= DR_VARIANT_MATCH ? mb_default(a->nrec) : 0;
    if (v >= DR_VARIANT_MATCH_MB && (mb < DR_MB_MIN || mb > DR_MB_MAX)) return TRZ_CODEC_CORRUPT;
    dr_model *m = model_new(a->nrec, mb);
    if (!m) return TRZ_CODEC_NOMEM;
    m->know = a->know;
    int rc = dr_code(m, &c, 0, NULL, a->out, (size_t)a->nrec);
    model_free(m);
    if (rc == -2) return TRZ_CODEC_NOMEM;
    if (rc || !rc_dec_ok(&c)) return TRZ_CODEC_CORRUPT;
    return TRZ_CODEC_OK;
}

static const char *dr_stream_name(unsigned id) { return id == S_MODEL ? "model" : NULL; }

/* For listings: "range" (variants 0 and 1), "range-match" (2 to 5, with
 * the match model), from stream 0's first 8 direct bits. */
static const char *dr_variant(const size_t *len, const uint8_t (*head)[TRZ_VARIANT_HEAD])
{
    if (!len[S_MODEL]) return "-";
    rc c;
    rc_dec_init(&c, head[S_MODEL], len[S_MODEL] < TRZ_VARIANT_HEAD ? len[S_MODEL] : TRZ_VARIANT_HEAD);
    unsigned v = rcd_direct(&c, 0, 0, 8);
    return v <= DR_VARIANT_KNOW ? "range" : v <= DR_VARIANT_MATCH_MB_KNOW ? "range-match" : "?";
}

const trz_codec trz_codec_drmemtrace = {
    .id = TRZ_CODEC_DRMEMTRACE,
    .name = "drmemtrace",
    .record_size = DR_REC,
    .description = "DynamoRIO drmemtrace offline traces, 12-byte records",
    .probe = dr_probe,
    .encode_chunk = dr_encode,
    .decode_chunk = dr_decode,
    .stream_name = dr_stream_name,
    .variant = dr_variant,
    .dump_record = dr_dump,
    .convert = dr_convert,
    .learn = dr_learn,
    .know_encode = dr_know_encode,
    .know_decode = dr_know_decode,
};
