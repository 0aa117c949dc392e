/* rst.c - the RST (SPARC trace, 24-byte records) codec: per-CPU models
 * predict every field (CPU interleaving, PC, instruction word, flags, EA,
 * PAVADIFF), only misses are stored, each kind in its own stream.  Encoder
 * and decoder are one template (`enc`, a constant in each of the two
 * instances) so the models cannot diverge, yet neither pays for the other.
 * This is model variant 0 and its entry points; the codec's table, which
 * chooses between it and variant 1 (rst_v1.c), is in rst_codec.c. */
#include "rst_int.h"
#include "sparc.h"

#include "../common/compiler.h"

enum { /* stream ids (on disk: never renumber) */
    S_RTYPE, S_EV0, S_CPUX, S_ICODE, S_PCD, S_IW, S_FL, S_EAD_MEM, S_EAD_CTI, S_EA_RAW,
    S_PVCODE, S_PVCTX, S_PVFL, S_PVPA, S_OHDR, S_OA, S_OB, S_TEXT, S_UNK, S_EV1, S_TLB, S_NSTREAMS
};

static const char *const stream_names[S_NSTREAMS] = {
    "rtype_other", "event", "cpu_raw", "instr_code", "pc_delta", "iword_miss", "flags_miss",
    "ea_delta_mem", "ea_delta_cti", "ea_raw", "pv_code", "pv_ctx", "pv_flags", "pv_pa_raw",
    "other_hdr", "other_a", "other_b", "text", "unknown", "event_mem", "tlb_code"
};

/* Table sizes and shapes are part of the stream format (rst.md). */
#define MAXCPU 1024
#define RAS_N 16
#define EA_BITS 16
#define IC_BITS 18
#define BC_BITS 16
#define JT_BITS 14
#define TD_BITS 14
#define PT_BITS 15

/* Stream space is checked once per block of BLK record steps instead of per
 * byte: one step (a record, or a PAVADIFF with its paired INSTR) adds at most
 * STEP_MAX bytes to any one stream.  Decoder input tails are copied into
 * buffers with TAIL_PAD spare bytes so unchecked reads stay in bounds. */
#define BLK 32
#define STEP_MAX 23
#define BLK_MAX (BLK * STEP_MAX)
#define TAIL_PAD 1024
_Static_assert(BLK_MAX <= TAIL_PAD, "padding must cover one block of reads");

/* EA candidate sets ("paths") */
enum { P_MEM, P_CTI, P_INV };

typedef struct { uint64_t last; int64_t stride; } ea_ent;
typedef struct { uint64_t key, val; } pt_ent;
typedef struct { uint64_t tag, data; } tlb_ent;

typedef struct cpu_st {
    uint64_t pred_pc, last_pc, pend_tgt, inv_ea, last_mea;
    uint64_t pv_pc, pv_ea;
    uint32_t trap_key, ras_top, runlen, next, eah;
    uint32_t hdr; /* bytes 0..3 of its INSTR records without flags and notused3 */
    uint16_t pv_ictx, pv_dctx, pv_nu13;
    uint8_t pv_ev, last_flags, last_nu3, annul_next, pend_valid;
    uint64_t ras[RAS_N];
    uint64_t regbase[32];
} cpu_st;

/* Stream cursors: the encoder writes, the decoder reads.  Kept in a local
 * of the record loop so byte stores to records cannot alias them. */
typedef struct io {
    uint8_t *p[S_NSTREAMS];
    int err;
} io;

typedef struct rst_v0_model {
    int oom;
    unsigned cur, run;
    cpu_st *curc; /* state of CPU `cur` */
    int untaken_mode;
    uint64_t last_memea; /* EA of the last INSTR if it was a valid memory op */
    int last_memea_ok;
    ea_ent *eat;
    uint32_t *icache;   /* without knowledge */
    rst_ic_ent *ick;    /* with knowledge, instead of icache */
    const trz_know *know;
    uint8_t *bctr;
    uint64_t *jt;
    pt_ent *pt;
    tlb_ent *tlbd; /* TLB data by tag */
    uint8_t ftab[C_NCLASS * 4];
    uint8_t cls[SPARC_CLS_N]; /* class by iw >> 19 (JMPL before the RET check) */
    uint8_t evtab[256];   /* event byte -> code | pair << 2 | kind << 4 | invalid << 7 */
    cpu_st *cpu[MAXCPU];
    cpu_st dummy;
    uint8_t lastrec[256][RST_REC];
} model;

/* ---- stream I/O (bounds come from the block checks in the driver) ------- */

TRZ_FORCE_INLINE void put8(io *s, int k, unsigned v) { *s->p[k]++ = (uint8_t)v; }
TRZ_FORCE_INLINE unsigned get8(io *s, int k) { return *s->p[k]++; }

TRZ_FORCE_INLINE void putuv(io *s, int k, uint64_t v)
{
    uint8_t *q = s->p[k];
    while (v >= 0x80) { *q++ = (uint8_t)(v | 0x80); v >>= 7; }
    *q++ = (uint8_t)v;
    s->p[k] = q;
}
/* LEB128, at most 10 bytes (longer is corrupt). */
TRZ_FORCE_INLINE uint64_t getuv(io *s, int k)
{
    const uint8_t *q = s->p[k];
    uint64_t v = *q++;
    if (v >= 0x80) {
        v &= 0x7f;
        for (int sh = 7;; sh += 7) {
            uint64_t b = *q++;
            v |= (b & 0x7f) << sh;
            if (!(b & 0x80)) break;
            if (sh >= 63) { s->err = 1; break; }
        }
    }
    s->p[k] = (uint8_t *)q;
    return v;
}
/* Fixed-width BE value of n bytes (big-endian keeps high bytes together for zstd). */
TRZ_FORCE_INLINE void putbe(io *s, int k, uint64_t v, int n)
{
    uint8_t *q = s->p[k];
    for (int i = n - 1; i >= 0; i--) { q[i] = (uint8_t)v; v >>= 8; }
    s->p[k] = q + n;
}
TRZ_FORCE_INLINE uint64_t getbe(io *s, int k, int n)
{
    const uint8_t *q = s->p[k];
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | q[i];
    s->p[k] += n;
    return v;
}

/* Both directions: the encoder stores v and returns it, the decoder reads. */
TRZ_FORCE_INLINE unsigned io8(io *s, int k, unsigned v, const int enc)
{
    if (enc) { put8(s, k, v); return v; }
    return get8(s, k);
}
TRZ_FORCE_INLINE uint64_t iouv(io *s, int k, uint64_t v, const int enc)
{
    if (enc) { putuv(s, k, v); return v; }
    return getuv(s, k);
}
TRZ_FORCE_INLINE uint64_t iobe(io *s, int k, uint64_t v, int n, const int enc)
{
    if (enc) { putbe(s, k, v, n); return v; }
    return getbe(s, k, n);
}
TRZ_FORCE_INLINE void iobytes(io *s, int k, uint8_t *p, size_t n, const int enc)
{
    if (enc) memcpy(s->p[k], p, n);
    else memcpy(p, s->p[k], n);
    s->p[k] += n;
}

/* ---- hashing and model state ------------------------------------------------ */

static inline uint64_t hash64(uint64_t x, int bits)
{
    return (x * 0x9E3779B97F4A7C15ull) >> (64 - bits);
}
/* Table index of a PC that keeps neighbours in one cache line: the word
 * number with its higher bits folded in by XOR. */
static inline uint64_t pcidx(uint64_t pc, int bits)
{
    uint64_t w = pc >> 2;
    return (w ^ (w >> bits)) & ((1ull << bits) - 1);
}

static TRZ_NOINLINE cpu_st *new_cpu(model *m, unsigned id)
{
    cpu_st *c = calloc(1, sizeof *c);
    if (!c) { m->oom = 1; return &m->dummy; }
    c->next = (id + 1) & (MAXCPU - 1);
    c->runlen = 1;
    c->eah = (uint32_t)hash64(id, EA_BITS);
    c->hdr = (uint32_t)RT_INSTR << 24 | ((id & 0x3f) << 2 | id >> 8) << 8 | ((id >> 6) & 3) << 6;
    m->cpu[id] = c;
    return c;
}
TRZ_FORCE_INLINE cpu_st *get_cpu(model *m, unsigned id)
{
    id &= MAXCPU - 1;
    return m->cpu[id] ? m->cpu[id] : new_cpu(m, id);
}

/* ---- INSTR ----------------------------------------------------------------- */

TRZ_FORCE_INLINE unsigned classify(const model *m, uint32_t iw) { return sparc_classify(m->cls, iw); }

/* Target of a CTI from its displacement, or (indirect) from history. */
TRZ_FORCE_INLINE uint64_t cti_target(const cpu_st *c, const ea_ent *e, uint32_t iw, unsigned cls, uint64_t pc)
{
    switch (cls) {
    case C_CALL: case C_BCOND: case C_BA: case C_BN: return sparc_direct_target(iw, cls, pc);
    case C_RET: return c->ras[c->ras_top % RAS_N];
    default: return e->last;
    }
}

/* What an EA candidate depends on. */
typedef struct {
    const cpu_st *c;
    const ea_ent *e;
    uint64_t pc, simm, tgt, unt;
    unsigned rs1;
    int path, bt;
} ea_ctx;

/* Candidate j (0..3) of the EA, computed only when asked for: the decoder
 * needs one, the encoder stops at the first match. */
TRZ_FORCE_INLINE uint64_t ea_cand(const ea_ctx *x, int j)
{
    switch (x->path) {
    case P_MEM:
        return j == 0 ? x->e->last + (uint64_t)x->e->stride : j == 1 ? x->c->regbase[x->rs1] + x->simm
             : j == 2 ? x->e->last : x->c->last_mea;
    case P_CTI:
        return j == 0 ? (x->bt ? x->tgt : x->unt) : j == 1 ? x->e->last
             : j == 2 ? (x->bt ? x->unt : x->tgt) : x->pc + 4;
    default:
        return j == 0 ? x->c->inv_ea : j == 1 ? x->pc + 8 : j == 2 ? x->e->last : 0;
    }
}

/* EA code: 0..2 = candidate, 7 = candidate 3, 3/4/6 = zigzag varint delta
 * from candidate 0/1/3 in the path's delta stream, 5 = raw BE64. */
TRZ_FORCE_INLINE uint64_t ea_io(io *s, const ea_ctx *x, unsigned *code, uint64_t ea, const int enc)
{
    int ds = x->path == P_MEM ? S_EAD_MEM : S_EAD_CTI;
    if (enc) {
        if (ea == ea_cand(x, 0)) *code = 0;
        else if (ea == ea_cand(x, 1)) *code = 1;
        else if (ea == ea_cand(x, 2)) *code = 2;
        else if (ea == ea_cand(x, 3)) *code = 7;
        else {
            static const uint8_t dcode[3] = { 3, 4, 6 }, dcand[3] = { 0, 1, 3 };
            uint64_t best = ~0ull;
            int bi = 0;
            for (int i = 0; i < 3; i++) {
                uint64_t z = trz_zigzag((int64_t)(ea - ea_cand(x, dcand[i])));
                if (z < best) { best = z; bi = i; }
            }
            if (best < (1ull << 42)) { *code = dcode[bi]; putuv(s, ds, best); }
            else { *code = 5; putbe(s, S_EA_RAW, ea, 8); }
        }
        return ea;
    }
    /* by code: the candidate (bits 1..0), a delta follows (bit 2) */
    static const uint8_t use[8] = { 0, 1, 2, 4 | 0, 4 | 1, 0, 4 | 3, 3 };
    if (*code == 5) return getbe(s, S_EA_RAW, 8);
    unsigned u = use[*code];
    ea = ea_cand(x, (int)(u & 3));
    if (u & 4) ea += (uint64_t)trz_unzigzag(getuv(s, ds));
    return ea;
}

/* Delay-slot flow by (class, taken bit): bit 0 the target follows the delay
 * slot (always-taken DCTIs, taken BCOND), bit 1 the a-bit annuls the delay
 * slot (BA, BN, untaken BCOND). */
#define FLOW(c, bt) ((((TAKEN_MASK >> (c)) & 1) | ((c) == C_BCOND && (bt))) | \
                     (((ANNUL_MASK >> (c)) & 1) | ((c) == C_BCOND && !(bt))) << 1)
#define FLOW2(c) FLOW(c, 0), FLOW(c, 1)
static const uint8_t flow_tab[C_NCLASS * 2] = {
    FLOW2(0), FLOW2(1), FLOW2(2), FLOW2(3), FLOW2(4), FLOW2(5), FLOW2(6), FLOW2(7), FLOW2(8), FLOW2(9)
};
_Static_assert(C_NCLASS == 10, "flow_tab and cls_dcti list every class");

/* Next-PC state after the instruction (delay slots: a taken DCTI's target
 * becomes the PC after the next one). */
TRZ_FORCE_INLINE void pc_update(cpu_st *c, unsigned cls, uint32_t iw, unsigned f, uint64_t pc, uint64_t ea, uint64_t tgt)
{
    unsigned ev = (f >> 6) & 1, flow = flow_tab[cls * 2 + ((f >> 2) & 1)];
    uint64_t np = c->pend_valid ? c->pend_tgt : pc + 4;
    if (cls == C_DONE && ev) np = ea;
    /* taken DCTI: the target follows the delay slot (pend_tgt is only
     * read while pend_valid, so it is written unconditionally) */
    c->pend_valid = (uint8_t)(flow & 1);
    c->pend_tgt = ev ? ea : tgt;
    c->pred_pc = np;
    c->annul_next = (uint8_t)((iw >> 29) & (flow >> 1) & 1);
    c->last_pc = pc;
    c->trap_key &= 0 - ((f >> 5) & 1u); /* kept only while the trap bit is set */
}

/* Jump-table entry for the CPU's last PC, or for the trap it just took. */
TRZ_FORCE_INLINE uint64_t *jt_slot(model *m, const cpu_st *c)
{
    uint64_t key = c->trap_key ? (0xF000000000000000ull | c->trap_key) : c->last_pc;
    return &m->jt[hash64(key, JT_BITS)];
}

/* PC: 0 = predicted flow, 1 = jump table (after last PC / trap type),
 * 2 = the other fall-through, 3 = delta.  The table is only touched on a
 * miss of the predicted flow. */
TRZ_FORCE_INLINE uint64_t pc_io(model *m, io *s, cpu_st *c, const uint8_t *r, unsigned *pcc, const int enc)
{
    uint64_t p0 = c->pred_pc, lp = c->last_pc, pc = p0;
    if (enc) {
        pc = trz_ld_be64(r + 8);
        *pcc = 0;
        if (pc != p0) {
            uint64_t *jte = jt_slot(m, c);
            *pcc = pc == *jte ? 1 : pc == (p0 == lp + 4 ? lp + 8 : lp + 4) ? 2 : 3;
            if (*pcc == 3) putuv(s, S_PCD, trz_zigzag((int64_t)(pc - p0)));
            *jte = pc;
        }
    } else if (TRZ_UNLIKELY(*pcc)) {
        uint64_t *jte = jt_slot(m, c);
        if (*pcc == 1) pc = *jte;
        else if (*pcc == 2) pc = p0 == lp + 4 ? lp + 8 : lp + 4;
        else pc = p0 + (uint64_t)trz_unzigzag(getuv(s, S_PCD));
        *jte = pc;
    }
    return pc;
}

/* The I-cache word of pc, to read and write (with knowledge: the PC's). */
TRZ_FORCE_INLINE uint32_t *ic_at(model *m, uint64_t pc)
{
    size_t i = pcidx(pc, IC_BITS);
    if (!m->ick) return &m->icache[i];
    rst_ic_ent *e = &m->ick[i];
    if (e->tag != rst_ic_tag(pc)) rst_ic_fill(m->know, e, pc);
    return &e->iw;
}

/* Instruction word from the PC-indexed cache; a miss is stored. */
TRZ_FORCE_INLINE uint32_t iw_io(model *m, io *s, uint64_t pc, const uint8_t *r, unsigned *iwm, const int enc)
{
    uint32_t *ice = ic_at(m, pc), iw;
    if (enc) {
        iw = trz_ld_be32(r + 4);
        *iwm = iw != *ice;
        if (*iwm) { putbe(s, S_IW, iw, 4); *ice = iw; }
    } else if (TRZ_UNLIKELY(*iwm)) {
        iw = (uint32_t)getbe(s, S_IW, 4);
        *ice = iw;
    } else {
        iw = *ice;
    }
    return iw;
}

/* Flags byte + notused3, learned per (class, annul expected, taken
 * predicted); the branch counter exists for BCOND only.  Returns byte 1,
 * sets *nu3. */
TRZ_FORCE_INLINE unsigned flags_io(model *m, io *s, cpu_st *c, uint64_t pc, unsigned cls, const uint8_t *r,
                      unsigned *fm, unsigned *nu3, const int enc)
{
    uint8_t *bc = cls == C_BCOND ? &m->bctr[pcidx(pc, BC_BITS)] : NULL;
    unsigned btp = bc && *bc >= 2;
    uint8_t *ft = &m->ftab[cls * 4 + c->annul_next * 2u + btp];
    unsigned f = (*ft & ~0x18u) | (c->last_flags & 0x18u), n = c->last_nu3;
    if (enc) {
        *fm = r[1] != f || (r[3] & 0x3fu) != n;
        f = r[1];
        n = r[3] & 0x3fu;
        if (*fm) { put8(s, S_FL, f); put8(s, S_FL, n); }
    } else if (TRZ_UNLIKELY(*fm)) {
        f = get8(s, S_FL);
        n = get8(s, S_FL);
        if (n > 0x3f) s->err = 1;
    }
    *ft = (uint8_t)f;
    c->last_flags = (uint8_t)f;
    c->last_nu3 = (uint8_t)n;
    if (bc) *bc = (uint8_t)((f & 4) ? (*bc < 3 ? *bc + 1 : 3) : (*bc ? *bc - 1 : 0));
    *nu3 = n;
    return f;
}

/* 1 for the DCTI classes: a load, not a shift by the class */
#define DCTI_OF(c) ((DCTI_MASK >> (c)) & 1)
static const uint8_t cls_dcti[C_NCLASS] = {
    DCTI_OF(0), DCTI_OF(1), DCTI_OF(2), DCTI_OF(3), DCTI_OF(4), DCTI_OF(5), DCTI_OF(6), DCTI_OF(7), DCTI_OF(8), DCTI_OF(9)
};

/* The EA candidate set of this instruction (see ea_cand). */
TRZ_FORCE_INLINE void ea_setup(const model *m, ea_ctx *x, unsigned cls, uint32_t iw, unsigned f)
{
    if (f & 0x40) {
        x->path = cls == C_MEM || cls == C_ALU ? P_MEM : P_CTI;
        if (x->path == P_MEM) {
            x->rs1 = (iw >> 14) & 31;
            x->simm = sext(iw & 0x1fff, 13) & (0 - (uint64_t)((iw >> 13) & 1)); /* simm13 if i = 1 */
        } else {
            x->tgt = cti_target(x->c, x->e, iw, cls, x->pc);
            x->unt = m->untaken_mode ? x->tgt : x->pc + 8;
        }
    } else if (cls_dcti[cls]) {
        x->tgt = cti_target(x->c, x->e, iw, cls, x->pc);
    }
}

/* Model updates after the EA is known. */
TRZ_FORCE_INLINE void ea_update(model *m, cpu_st *c, ea_ent *e, const ea_ctx *x, unsigned cls, unsigned f, uint64_t ea)
{
    m->last_memea_ok = x->path == P_MEM && cls == C_MEM;
    m->last_memea = ea;
    if (f & 0x40) {
        if (x->path == P_MEM) {
            e->stride = (int64_t)(ea - e->last);
            c->regbase[x->rs1] = ea - x->simm;
            c->last_mea = ea;
        } else if ((cls == C_BCOND || cls == C_BN) && !(f & 4)) {
            if (ea == x->pc + 8) m->untaken_mode = 0;
            else if (ea == x->tgt) m->untaken_mode = 1;
        }
        e->last = ea;
    } else {
        c->inv_ea = ea;
    }
}

/* One INSTR of CPU m->cur (whose state is m->curc).  The decoder takes the
 * per-field codes from the instr_code byte, the encoder assembles it. */
TRZ_FORCE_INLINE void instr_t(model *m, io *s, uint8_t *r, const int enc)
{
    cpu_st *c = m->curc;
    unsigned code = enc ? 0 : get8(s, S_ICODE);
    if (!enc) s->err |= code >> 7;
    unsigned pcc = code & 3, iwm = (code >> 2) & 1, fm = (code >> 3) & 1, eac = (code >> 4) & 7, nu3;

    uint64_t pc = pc_io(m, s, c, r, &pcc, enc);
    uint32_t iw = iw_io(m, s, pc, r, &iwm, enc);
    unsigned cls = classify(m, iw);
    unsigned f = flags_io(m, s, c, pc, cls, r, &fm, &nu3, enc);

    ea_ent *e = &m->eat[pcidx(pc, EA_BITS) ^ c->eah];
    ea_ctx x = { c, e, pc, 0, 0, 0, 0, P_INV, (f >> 2) & 1 };
    ea_setup(m, &x, cls, iw, f);
    uint64_t ea = ea_io(s, &x, &eac, enc ? trz_ld_be64(r + 16) : 0, enc);
    ea_update(m, c, e, &x, cls, f, ea);

    /* return-address stack: CALL or JMPL writing %o7 push, RET pops */
    _Static_assert(C_JMPL == C_CALL + 1 && C_RET == C_CALL + 2, "CALL, JMPL, RET are a range");
    if (cls - C_CALL <= C_RET - C_CALL) { /* CALL, JMPL, RET: one test for the common rest */
        if (cls == C_CALL || (cls == C_JMPL && ((iw >> 25) & 31) == 15)) c->ras[++c->ras_top % RAS_N] = pc + 8;
        else if (cls == C_RET) c->ras_top--;
    }
    pc_update(c, cls, iw, f, pc, ea, x.tgt);
    m->run += !(f & 2);

    if (enc) {
        put8(s, S_ICODE, pcc | iwm << 2 | fm << 3 | eac << 4);
    } else {
        rst_put_instr(r, c->hdr, f, nu3, iw, pc, ea);
    }
}

/* ---- CPU interleaving ------------------------------------------------------ */

/* Valid event bytes: kind 0 codes 0..2; kind 1 codes 0..2 with or without
 * the pair bit; kind 2 code 0. */
#define EV_VALID ((1ull << 0x00) | (1ull << 0x01) | (1ull << 0x02) | (1ull << 0x10) | (1ull << 0x11) | \
                  (1ull << 0x12) | (1ull << 0x14) | (1ull << 0x15) | (1ull << 0x16) | (1ull << 0x20))

/* One event byte per record (a paired INSTR has none): bits 5..4 kind
 * (0 INSTR, 1 PAVADIFF, 2 other: rtype in S_RTYPE), for kinds 0/1 bits 1..0
 * the CPU code (0 = predicted, 1 = the other choice, 2 = raw le16 in S_CPUX)
 * and bit 2 "PAVADIFF paired with the next INSTR".  The predicted CPU stays
 * while its run of executed (non-annulled) INSTRs is shorter than its last
 * run, or an annulled delay slot is due; else it is the CPU that followed it
 * last time.  The byte goes to S_EV1 when that CPU's next instruction (from
 * the I-cache) is a memory op, else S_EV0: PAVADIFFs come before memory ops.
 * Returns the kind; sets the record's CPU, pair bit and rtype. */
TRZ_FORCE_INLINE unsigned ev_t(model *m, io *s, const uint8_t *r, int have_next, unsigned *cpu, unsigned *pair,
                  unsigned *rtype, const int enc)
{
    cpu_st *cc = m->curc;
    unsigned cur = m->cur, nx = cc->next;
    int stay = (m->run < cc->runlen) | cc->annul_next; /* no branch: unpredictable */
    unsigned p = stay ? cur : nx, alt = stay ? nx : cur;
    const cpu_st *pcs = m->cpu[p];
    unsigned mem = pcs && (*ic_at(m, pcs->pred_pc) >> 30) == 3;
    unsigned rt, kind, code = 0, actual = 0;
    if (enc) {
        rt = r[0];
        kind = rt == RT_INSTR ? 0 : rt == RT_PAVADIFF ? 1 : 2;
        *pair = 0;
        if (kind == 0) actual = rst_instr_cpu(r);
        if (kind == 1) {
            actual = rst_pv_cpu(r);
            *pair = have_next && r[24] == RT_INSTR && rst_instr_cpu(r + 24) == actual;
        }
        if (kind < 2) code = actual == p ? 0 : actual == alt ? 1 : 2;
        put8(s, mem ? S_EV1 : S_EV0, code | *pair << 2 | kind << 4);
        if (code == 2) { put8(s, S_CPUX, actual & 0xff); put8(s, S_CPUX, actual >> 8); }
        if (kind == 2) put8(s, S_RTYPE, rt);
    } else {
        /* Both streams' next bytes are loaded before the context (a slow
         * chain of loads) is known.  In bounds: an event stream advances one
         * byte a step, far less than the margin its cursor has at a block
         * start (BLK_MAX bytes, or the tail padding). */
        unsigned b0 = s->p[S_EV0][0], b1 = s->p[S_EV1][0];
        unsigned b = m->evtab[mem ? b1 : b0];
        s->p[S_EV0] += !mem;
        s->p[S_EV1] += mem;
        s->err |= b >> 7;
        code = b & 3;
        kind = (b >> 4) & 3;
        *pair = (b >> 2) & 1;
        rt = 0;
        if (kind == 2) {
            rt = get8(s, S_RTYPE);
            if (rt == RT_INSTR || rt == RT_PAVADIFF) s->err = 1;
        }
        if (code == 0) actual = p;
        else if (code == 1) actual = alt;
        else {
            actual = get8(s, S_CPUX);
            actual |= get8(s, S_CPUX) << 8;
            if (actual >= MAXCPU) { s->err = 1; actual = 0; }
        }
    }
    if (kind < 2 && actual != cur) {
        cc->runlen = m->run;
        cc->next = actual;
        m->cur = actual;
        m->curc = get_cpu(m, actual);
        m->run = 0;
    }
    *cpu = actual;
    *rtype = rt;
    return kind;
}

/* ---- PAVADIFF ---------------------------------------------------------------- */

static inline uint64_t pt_key(unsigned ctx, uint64_t va) { return ((va >> 13) ^ (uint64_t)ctx << 48) + 1; }
TRZ_FORCE_INLINE pt_ent *pt_slot(model *m, unsigned ctx, uint64_t va)
{
    uint64_t v = va >> 13; /* neighbouring pages share cache lines */
    return &m->pt[(v ^ (v >> PT_BITS) ^ hash64(ctx, PT_BITS)) & ((1u << PT_BITS) - 1)];
}

/* One PA-VA value: 0 = same as last, 1 = page table, 2 = raw. */
TRZ_FORCE_INLINE uint64_t pa_io(io *s, unsigned *code, uint64_t last, const pt_ent *pe, uint64_t key, uint64_t v, const int enc)
{
    int tok = pe && pe->key == key;
    if (enc) {
        *code = v == last ? 0 : (tok && v == pe->val) ? 1 : 2;
        if (*code == 2) putbe(s, S_PVPA, v, 8);
        return v;
    }
    if (*code == 0) return last;
    if (*code == 1) {
        if (!tok) s->err = 1;
        return tok ? pe->val : 0;
    }
    if (*code == 2) return getbe(s, S_PVPA, 8);
    s->err = 1;
    return 0;
}

/* A PAVADIFF usually precedes the INSTR it applies to on the same CPU: such a
 * pair is coded INSTR first, so the PA-VA values can be looked up by the
 * instruction's own PC and EA pages. Returns 1 when r[24..47] was consumed. */
TRZ_FORCE_INLINE int pv_t(model *m, io *s, uint8_t *r, int have_next, unsigned cpu, unsigned pair, const int enc)
{
    if (pair && !have_next) { s->err = 1; pair = 0; }
    if (pair) instr_t(m, s, r + 24, enc);
    cpu_st *c = m->curc;
    unsigned code = enc ? 0 : get8(s, S_PVCODE);
    if (!enc && (code & 0xc0)) s->err = 1;

    unsigned ev = c->pv_ev, nu13 = c->pv_nu13, ictx = c->pv_ictx, dctx = c->pv_dctx;
    if (enc) {
        unsigned rev = r[1] >> 7, rnu13 = (unsigned)(r[2] & 0x1f) << 8 | r[3];
        unsigned rictx = trz_ld_be16(r + 4), rdctx = trz_ld_be16(r + 6);
        code |= (rev != ev || rnu13 != nu13) << 5;
        code |= (rictx != ictx || rdctx != dctx) << 4;
        ev = rev, nu13 = rnu13, ictx = rictx, dctx = rdctx;
    }
    if (code & 0x20) {
        ev = io8(s, S_PVFL, ev, enc);
        nu13 = (unsigned)iobe(s, S_PVFL, nu13, 2, enc);
        if (ev > 1 || nu13 > 0x1fff) s->err = 1;
    }
    if (code & 0x10) {
        ictx = (unsigned)iobe(s, S_PVCTX, ictx, 2, enc);
        dctx = (unsigned)iobe(s, S_PVCTX, dctx, 2, enc);
    }
    uint64_t kpc = pair ? c->last_pc : c->pred_pc;
    int eok = pair && m->last_memea_ok;
    uint64_t kea = m->last_memea;
    pt_ent *pp = pt_slot(m, ictx, kpc), *pe = eok ? pt_slot(m, dctx, kea) : NULL;
    unsigned pcode = code & 3, ecode = (code >> 2) & 3;
    uint64_t pcpa = pa_io(s, &pcode, c->pv_pc, pp, pt_key(ictx, kpc), enc ? trz_ld_be64(r + 8) : 0, enc);
    uint64_t eapa = pa_io(s, &ecode, c->pv_ea, pe, pt_key(dctx, kea), enc ? trz_ld_be64(r + 16) : 0, enc);
    if (enc) put8(s, S_PVCODE, code | pcode | ecode << 2);

    pp->key = pt_key(ictx, kpc);
    pp->val = pcpa;
    if (pe && ev) { pe->key = pt_key(dctx, kea); pe->val = eapa; }
    c->pv_ev = (uint8_t)ev;
    c->pv_nu13 = (uint16_t)nu13;
    c->pv_ictx = (uint16_t)ictx;
    c->pv_dctx = (uint16_t)dctx;
    c->pv_pc = pcpa;
    c->pv_ea = eapa;
    if (!enc) {
        rst_put_pavadiff(r, ev, cpu, nu13, ictx, dctx, pcpa, eapa);
    }
    return (int)pair;
}

/* ---- other record types -------------------------------------------------- */

/* TLB data word: a TLB dump lists the same mappings CPU after CPU, so the
 * data last seen with this tag is a good guess.  When the table holds the
 * tag, a code byte in S_TLB says 1 = that entry's data, 0 = raw BE64 in
 * S_OB; else the data is raw (no code byte: chunks whose TLB records never
 * repeat pay nothing). */
TRZ_FORCE_INLINE uint64_t tlb_data(model *m, io *s, uint64_t tag, uint64_t v, const int enc)
{
    tlb_ent *e = &m->tlbd[hash64(tag, TD_BITS)];
    unsigned hit = 0;
    if (e->tag == tag) {
        hit = io8(s, S_TLB, enc ? e->data == v : 0, enc);
        if (!enc && hit > 1) s->err = 1;
    }
    if (!enc) v = hit ? e->data : getbe(s, S_OB, 8);
    else if (!hit) putbe(s, S_OB, v, 8);
    e->tag = tag;
    e->data = v;
    return v;
}

/* Known types: bytes 1..7 as a 56-bit delta from the last record of the same
 * rtype, then the two 64-bit words as deltas.  Text and unknown types: raw. */
TRZ_FORCE_INLINE void other_t(model *m, io *s, uint8_t *r, unsigned rt, const int enc)
{
    if (!enc) r[0] = (uint8_t)rt;
    if (rt == RT_HEADER || rt == RT_STRDESC || rt == RT_STRCONT) { iobytes(s, S_TEXT, r + 1, 23, enc); return; }
    if (!rst_known_rtype(rt)) { iobytes(s, S_UNK, r + 1, 23, enc); return; }
    uint8_t *l = m->lastrec[rt];
    const uint64_t M56 = (1ull << 56) - 1;
    uint64_t lh = trz_ld_be64(l) & M56, h = enc ? trz_ld_be64(r) & M56 : 0;
    uint64_t d = iouv(s, S_OHDR, trz_zigzag((int64_t)sext((h - lh) & M56, 56)), enc);
    h = (lh + (uint64_t)trz_unzigzag(d)) & M56;
    /* word a as a delta (tags, PCs, times drift); word b raw BE (TLB data,
     * npc, values: unrelated numbers whose shared high bytes zstd finds) */
    uint64_t la = trz_ld_be64(l + 8);
    uint64_t a = iouv(s, S_OA, enc ? trz_zigzag((int64_t)(trz_ld_be64(r + 8) - la)) : 0, enc);
    a = la + (uint64_t)trz_unzigzag(a);
    uint64_t b = rt == RT_TLB ? tlb_data(m, s, a, enc ? trz_ld_be64(r + 16) : 0, enc)
                              : iobe(s, S_OB, enc ? trz_ld_be64(r + 16) : 0, 8, enc);
    if (!enc) {
        rst_put_words(r, rt, h, a, b);
    }
    memcpy(l, r, RST_REC);
    if (rt == RT_TRAP) {
        int cpu = rst_rec_cpu(r);
        get_cpu(m, (unsigned)cpu)->trap_key = 0x10000u | (trz_ld_be16(r + 2) & 0x3ff);
    }
}

/* ---- driver ---------------------------------------------------------------- */

model *rst_v0_new(int know)
{
    model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->eat = trz_big_calloc(((size_t)1 << EA_BITS) * sizeof *m->eat);
    if (know) m->ick = trz_big_calloc(((size_t)1 << IC_BITS) * sizeof *m->ick);
    else m->icache = trz_big_calloc(((size_t)1 << IC_BITS) * sizeof *m->icache);
    m->bctr = trz_big_calloc((size_t)1 << BC_BITS);
    m->jt = trz_big_calloc(((size_t)1 << JT_BITS) * sizeof *m->jt);
    m->pt = trz_big_calloc(((size_t)1 << PT_BITS) * sizeof *m->pt);
    m->tlbd = trz_big_calloc(((size_t)1 << TD_BITS) * sizeof *m->tlbd);
    if (!m->eat || (!m->icache && !m->ick) || !m->bctr || !m->jt || !m->pt || !m->tlbd) m->oom = 1;
    sparc_cls_init(m->cls);
    for (unsigned b = 0; b < 256; b++) {
        unsigned kind = (b >> 4) & 3;
        kind -= kind == 3; /* invalid anyway: decode as "other" */
        m->evtab[b] = (uint8_t)((b & 7) | kind << 4 | (b >= 64 || !((EV_VALID >> b) & 1)) << 7);
    }
    m->curc = get_cpu(m, 0);
    return m;
}

void rst_v0_free(model *m)
{
    if (!m) return;
    for (int i = 0; i < MAXCPU; i++) free(m->cpu[i]);
    trz_big_free(m->eat, ((size_t)1 << EA_BITS) * sizeof *m->eat);
    trz_big_free(m->icache, ((size_t)1 << IC_BITS) * sizeof *m->icache);
    trz_big_free(m->ick, ((size_t)1 << IC_BITS) * sizeof *m->ick);
    trz_big_free(m->bctr, (size_t)1 << BC_BITS);
    trz_big_free(m->jt, ((size_t)1 << JT_BITS) * sizeof *m->jt);
    trz_big_free(m->pt, ((size_t)1 << PT_BITS) * sizeof *m->pt);
    trz_big_free(m->tlbd, ((size_t)1 << TD_BITS) * sizeof *m->tlbd);
    free(m);
}

/* Code up to BLK record steps from record *i of a canonical (BE) chunk; in
 * decode mode fill them.  The caller has made room for BLK_MAX bytes per
 * stream. */
TRZ_FORCE_INLINE void run_blk(model *m, io *s, uint8_t *buf, size_t *i, size_t nrec, const int enc)
{
    size_t iend = nrec - *i > BLK ? *i + BLK : nrec;
    while (*i < iend) {
        uint8_t *r = buf + *i * RST_REC;
        int have_next = *i + 1 < nrec;
        unsigned cpu, pair, rt, kind = ev_t(m, s, r, have_next, &cpu, &pair, &rt, enc);
        if (kind == 0) instr_t(m, s, r, enc);
        else if (kind == 1) *i += (size_t)pv_t(m, s, r, have_next, cpu, pair, enc);
        else other_t(m, s, r, rt, enc);
        ++*i;
    }
}

/* Encoder: grow every stream to hold one more block, cursors kept in io. */
static TRZ_NOINLINE void enc_run(model *m, const uint8_t *buf, size_t nrec, trz_buf *out)
{
    io s = { { 0 }, 0 };
    int started = 0; /* s.p[] valid */
    for (size_t i = 0; i < nrec;) {
        for (int k = 0; k < S_NSTREAMS; k++) {
            if (started) out[k].n = (size_t)(s.p[k] - out[k].p);
            if (trz_buf_reserve(&out[k], BLK_MAX) != 0) { m->oom = 1; return; }
        }
        for (int k = 0; k < S_NSTREAMS; k++) s.p[k] = out[k].p + out[k].n;
        started = 1;
        /* the encoder only reads records: the cast serves the shared template */
        run_blk(m, &s, (uint8_t *)(uintptr_t)buf, &i, nrec, 1);
    }
    if (started)
        for (int k = 0; k < S_NSTREAMS; k++) out[k].n = (size_t)(s.p[k] - out[k].p);
}

/* Decoder input: each stream is read in place while at least BLK_MAX bytes
 * are left at a block start; its last bytes are then moved to a tail buffer
 * with TAIL_PAD spare zero bytes, where a block that reads past the end
 * stays in bounds and is caught at the next block start. */
#define TAIL_SIZE (BLK_MAX + TAIL_PAD)
typedef struct rst_v0_in {
    const uint8_t *end[S_NSTREAMS], *lim[S_NSTREAMS];
    int tailed[S_NSTREAMS];
    uint8_t *tail[S_NSTREAMS]; /* TAIL_SIZE bytes each, separate blocks (ASan sees overruns) */
} dec_in;

void rst_v0_in_free(dec_in *d)
{
    if (!d) return;
    for (int k = 0; k < S_NSTREAMS; k++) free(d->tail[k]);
    free(d);
}

dec_in *rst_v0_in_new(void)
{
    dec_in *d = calloc(1, sizeof *d);
    int nomem = !d;
    for (int k = 0; k < S_NSTREAMS && !nomem; k++) nomem = !(d->tail[k] = malloc(TAIL_SIZE));
    if (nomem) { rst_v0_in_free(d); return NULL; }
    return d;
}

/* Move stream k's unread bytes [p, end) to its tail buffer; returns the new cursor. */
static uint8_t *move_tail(dec_in *d, int k, const uint8_t *p, size_t n)
{
    if (n) memcpy(d->tail[k], p, n);
    memset(d->tail[k] + n, 0, TAIL_SIZE - n);
    d->end[k] = d->tail[k] + n;
    d->lim[k] = d->end[k];
    d->tailed[k] = 1;
    return d->tail[k];
}

/* At a block start: 0 when every stream can take a block, else -1 (a
 * stream read past its end). */
TRZ_FORCE_INLINE int dec_check(dec_in *d, io *s)
{
    for (int k = 0; k < S_NSTREAMS; k++) {
        if (s->p[k] <= d->lim[k]) continue;
        if (d->tailed[k]) return -1;
        s->p[k] = move_tail(d, k, s->p[k], (size_t)(d->end[k] - s->p[k]));
    }
    return 0;
}

static TRZ_NOINLINE void dec_run(model *m, uint8_t *buf, size_t nrec, dec_in *d, io *sp)
{
    io s = *sp;
    for (size_t i = 0; i < nrec && !s.err;) {
        if (dec_check(d, &s)) { s.err = 1; break; }
        run_blk(m, &s, buf, &i, nrec, 0);
    }
    if (!s.err && dec_check(d, &s)) s.err = 1;
    *sp = s;
}

/* Variant 0 (trz 0.9): byte streams for the back-end.  Levels 1-5 write
 * it, and from level 6 a chunk where it beats variant 1 (rst_v1.c). */
int rst_v0_encode(const trz_enc_args *a, model *m)
{
    if (a->len % RST_REC || a->nrec != a->len / RST_REC) return TRZ_CODEC_UNSUPPORTED;
    m->know = a->know;
    uint8_t *canon;
    const uint8_t *src = rst_canon_input(a, &canon);
    int rc = TRZ_CODEC_NOMEM;
    if (!m->oom && src) {
        enc_run(m, src, a->nrec, a->streams);
        rc = TRZ_CODEC_OK;
        if (m->oom) rc = TRZ_CODEC_NOMEM;
        for (int s = 0; s < S_NSTREAMS; s++) if (a->streams[s].oom) rc = TRZ_CODEC_NOMEM;
    }
    trz_big_free(canon, a->len); /* the next chunk copies again */
    return rc;
}

int rst_v0_decode(const trz_dec_args *a, model *m, dec_in *d)
{
    if (a->len % RST_REC || a->nrec != a->len / RST_REC) return TRZ_CODEC_CORRUPT;
    for (int s = S_NSTREAMS; s < TRZ_MAX_STREAMS; s++) if (a->stream_len[s]) return TRZ_CODEC_CORRUPT;
    if (m->oom) return TRZ_CODEC_NOMEM;
    m->know = a->know;
    io s = { { 0 }, 0 };
    for (int k = 0; k < S_NSTREAMS; k++) {
        size_t n = a->stream[k] ? a->stream_len[k] : 0;
        d->tailed[k] = 0;
        if (n > BLK_MAX) {
            s.p[k] = (uint8_t *)(uintptr_t)a->stream[k]; /* only read */
            d->end[k] = a->stream[k] + n;
            d->lim[k] = d->end[k] - BLK_MAX;
        } else {
            s.p[k] = move_tail(d, k, a->stream[k], n);
        }
    }
    dec_run(m, a->out, a->nrec, d, &s);
    int rc = TRZ_CODEC_OK;
    for (int k = 0; k < S_NSTREAMS; k++)
        if (s.err || s.p[k] != d->end[k]) rc = TRZ_CODEC_CORRUPT;
    if (m->oom) rc = TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK) rst_uncanon_output(a);
    return rc;
}

int rst_v0_knows(const model *m) { return m->ick != NULL; }

const char *rst_v0_stream_name(unsigned id) { return id < S_NSTREAMS ? stream_names[id] : NULL; }
