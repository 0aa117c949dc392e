/* rst.c - the RST (SPARC trace, 24-byte records) codec: per-CPU models
 * predict every field (CPU interleaving, PC, instruction word, flags, EA,
 * PAVADIFF), only misses are stored, each kind in its own stream.  Encoder
 * and decoder share one code path (m->enc) so the models cannot diverge. */
#include "rst_int.h"

enum { /* stream ids (on disk: never renumber) */
    S_RTYPE, S_EV0, S_CPUX, S_ICODE, S_PCD, S_IW, S_FL, S_EAD_MEM, S_EAD_CTI, S_EA_RAW,
    S_PVCODE, S_PVCTX, S_PVFL, S_PVPA, S_OHDR, S_OA, S_OB, S_TEXT, S_UNK, S_EV1, S_NSTREAMS
};

static const char *const stream_names[S_NSTREAMS] = {
    "rtype_other", "event", "cpu_raw", "instr_code", "pc_delta", "iword_miss", "flags_miss",
    "ea_delta_mem", "ea_delta_cti", "ea_raw", "pv_code", "pv_ctx", "pv_flags", "pv_pa_raw",
    "other_hdr", "other_a", "other_b", "text", "unknown", "event_mem"
};

#define MAXCPU 1024
#define RAS_N 16
#define EA_BITS 16
#define IC_BITS 18
#define BC_BITS 16
#define JT_BITS 14
#define PT_BITS 15

/* instruction classes from the opcode */
enum { C_ALU, C_MEM, C_BCOND, C_BA, C_BN, C_CALL, C_JMPL, C_RET, C_DONE, C_TCC, C_NCLASS };

typedef struct { uint64_t last; int64_t stride; } ea_ent;
typedef struct { uint64_t key, val; } pt_ent;

typedef struct cpu_st {
    uint64_t pred_pc, last_pc, pend_tgt, inv_ea, last_mea;
    uint64_t ras[RAS_N];
    uint64_t regbase[32];
    uint64_t pv_pc, pv_ea;
    uint32_t trap_key, ras_top, runlen, next;
    uint16_t pv_ictx, pv_dctx, pv_nu13;
    uint8_t pv_ev, last_flags, last_nu3, annul_next, pend_valid;
} cpu_st;

typedef struct model {
    int enc, oom;
    trz_buf *out;
    trz_rd in[S_NSTREAMS];
    cpu_st *cpu[MAXCPU];
    cpu_st dummy;
    unsigned cur, run;
    int untaken_mode;
    uint64_t last_memea; /* EA of the last INSTR if it was a valid memory op */
    int last_memea_ok;
    ea_ent *eat;
    uint32_t *icache;
    uint8_t *bctr;
    uint64_t *jt;
    pt_ent *pt;
    uint8_t ftab[C_NCLASS * 4];
    uint8_t lastrec[256][RST_REC];
} model;

/* ---- stream I/O shared by both directions --------------------------------- */

static inline unsigned io_u8(model *m, int s, unsigned v)
{
    if (m->enc) { trz_put_u8(&m->out[s], (uint8_t)v); return v; }
    return trz_get_u8(&m->in[s]);
}
static inline uint64_t io_uv(model *m, int s, uint64_t v)
{
    if (m->enc) { trz_put_uvarint(&m->out[s], v); return v; }
    return trz_get_uvarint(&m->in[s]);
}
static inline void io_bytes(model *m, int s, uint8_t *p, size_t n)
{
    if (m->enc) { trz_put_bytes(&m->out[s], p, n); return; }
    const uint8_t *q = trz_get_bytes(&m->in[s], n);
    if (q) memcpy(p, q, n);
    else memset(p, 0, n);
}
/* Fixed-width BE value of n bytes (big-endian keeps high bytes together for zstd). */
static inline uint64_t io_be(model *m, int s, uint64_t v, int n)
{
    uint8_t t[8];
    for (int i = n - 1; i >= 0; i--) { t[i] = (uint8_t)v; v >>= 8; }
    io_bytes(m, s, t, (size_t)n);
    for (int i = 0; i < n; i++) v = v << 8 | t[i];
    return v;
}
static inline void set_err(model *m) { m->in[0].err = 1; }

static inline uint64_t hash64(uint64_t x, int bits)
{
    return (x * 0x9E3779B97F4A7C15ull) >> (64 - bits);
}

static cpu_st *get_cpu(model *m, unsigned id)
{
    id &= MAXCPU - 1;
    cpu_st *c = m->cpu[id];
    if (c) return c;
    c = calloc(1, sizeof *c);
    if (!c) { m->oom = 1; return &m->dummy; }
    c->next = (id + 1) & (MAXCPU - 1);
    c->runlen = 1;
    m->cpu[id] = c;
    return c;
}

/* ---- CPU interleaving ------------------------------------------------------ */

/* ---- INSTR ----------------------------------------------------------------- */

static int classify(uint32_t iw)
{
    unsigned op = iw >> 30;
    if (op == 3) return C_MEM;
    if (op == 1) return C_CALL;
    if (op == 2) {
        unsigned op3 = (iw >> 19) & 63;
        if (op3 == 0x38) {
            unsigned rd = (iw >> 25) & 31, rs1 = (iw >> 14) & 31;
            if (rd == 0 && (rs1 == 31 || rs1 == 15) && (iw & 0x3fff) == 0x2008) return C_RET;
            return C_JMPL;
        }
        if (op3 == 0x39) return C_RET;
        if (op3 == 0x3e) return C_DONE;
        if (op3 == 0x3a) return C_TCC;
        return C_ALU;
    }
    unsigned op2 = (iw >> 22) & 7;
    if (op2 == 3) return C_BCOND; /* BPr */
    if (op2 == 1 || op2 == 2 || op2 == 5 || op2 == 6) {
        unsigned cond = (iw >> 25) & 15;
        return cond == 8 ? C_BA : cond == 0 ? C_BN : C_BCOND;
    }
    return C_ALU;
}

static inline uint64_t sext(uint64_t v, int bits)
{
    return (uint64_t)((int64_t)(v << (64 - bits)) >> (64 - bits));
}

/* Target of a CTI from its displacement, or (indirect) from history. */
static uint64_t cti_target(const cpu_st *c, const ea_ent *e, uint32_t iw, int cls, uint64_t pc)
{
    unsigned op2 = (iw >> 22) & 7;
    switch (cls) {
    case C_CALL: return pc + 4 * sext(iw & 0x3fffffff, 30);
    case C_BCOND: case C_BA: case C_BN:
        if (op2 == 2 || op2 == 6) return pc + 4 * sext(iw & 0x3fffff, 22);
        if (op2 == 3) return pc + 4 * sext(((iw >> 6) & 0xc000) | (iw & 0x3fff), 16);
        return pc + 4 * sext(iw & 0x7ffff, 19);
    case C_RET: return c->ras[c->ras_top % RAS_N];
    default: return e->last;
    }
}

static inline int is_dcti(int cls) { return cls >= C_BCOND && cls <= C_RET; }

/* Choose/decode the EA code: 0..2 = candidate, 3/4/6 = varint delta from
 * candidate 0/1/3, 5 = raw 64-bit, 7 = candidate 3 (the CPU's last memory EA). */
static uint64_t ea_io(model *m, unsigned *code, const uint64_t cand[4], int ds, uint64_t ea)
{
    static const uint8_t dcode[3] = { 3, 4, 6 }, dbase[8] = { 0, 0, 0, 0, 1, 0, 3, 0 };
    if (m->enc) {
        unsigned c;
        if (ea == cand[0]) c = 0;
        else if (ea == cand[1]) c = 1;
        else if (ea == cand[2]) c = 2;
        else if (ea == cand[3]) c = 7;
        else {
            uint64_t z[3], best = ~0ull;
            int bi = 0;
            for (int i = 0; i < 3; i++) {
                z[i] = trz_zigzag((int64_t)(ea - cand[i == 2 ? 3 : i]));
                if (z[i] < best) { best = z[i]; bi = i; }
            }
            if (best < (1ull << 42)) { c = dcode[bi]; trz_put_uvarint(&m->out[ds], best); }
            else { c = 5; io_be(m, S_EA_RAW, ea, 8); }
        }
        *code = c;
        return ea;
    }
    switch (*code) {
    case 0: case 1: case 2: return cand[*code];
    case 7: return cand[3];
    case 3: case 4: case 6: return cand[dbase[*code]] + (uint64_t)trz_get_svarint(&m->in[ds]);
    default: return io_be(m, S_EA_RAW, 0, 8);
    }
}

static void ras_update(cpu_st *c, int cls, uint32_t iw, uint64_t pc)
{
    unsigned rd = (iw >> 25) & 31;
    if (cls == C_CALL || (cls == C_JMPL && rd == 15)) c->ras[++c->ras_top % RAS_N] = pc + 8;
    else if (cls == C_RET) c->ras_top--;
}

static void pc_update(cpu_st *c, int cls, uint32_t iw, uint8_t f, uint64_t pc, uint64_t ea, uint64_t tgt)
{
    int bt = (f >> 2) & 1, taken = cls == C_BCOND ? bt : (cls == C_BA || cls == C_CALL || cls == C_JMPL || cls == C_RET);
    uint64_t np = pc + 4;
    if (c->pend_valid) { np = c->pend_tgt; c->pend_valid = 0; }
    if (is_dcti(cls) && taken) {
        c->pend_valid = 1;
        c->pend_tgt = (f & 0x40) ? ea : tgt;
    }
    if (cls == C_DONE && (f & 0x40)) { np = ea; c->pend_valid = 0; }
    c->pred_pc = np;
    int abit = (iw >> 29) & 1;
    c->annul_next = abit && (cls == C_BA || cls == C_BN || (cls == C_BCOND && !bt));
    c->last_pc = pc;
    if (!(f & 0x20)) c->trap_key = 0;
}

/* One event byte per record (a paired INSTR has none): bits 5..4 kind
 * (0 INSTR, 1 PAVADIFF, 2 other: rtype in S_RTYPE), for kinds 0/1 bits 1..0
 * the CPU code (0 = predicted, 1 = the other choice, 2 = raw le16 in S_CPUX)
 * and bit 2 "PAVADIFF paired with the next INSTR".  The predicted CPU stays
 * while its run of executed (non-annulled) INSTRs is shorter than its last
 * run, or an annulled delay slot is due; else it is the CPU that followed it
 * last time.  The byte goes to S_EV1 when that CPU's next instruction (from
 * the I-cache) is a memory op, else S_EV0: PAVADIFFs come before memory ops. */
static unsigned ev_io(model *m, const uint8_t *r, int have_next, unsigned *cpu, unsigned *pair)
{
    cpu_st *cc = get_cpu(m, m->cur);
    unsigned p = (m->run < cc->runlen || cc->annul_next) ? m->cur : cc->next;
    unsigned alt = p == m->cur ? cc->next : m->cur;
    const cpu_st *pc = m->cpu[p];
    int s = pc && classify(m->icache[hash64(pc->pred_pc >> 2, IC_BITS)]) == C_MEM ? S_EV1 : S_EV0;
    unsigned rt, kind, code = 0, actual = 0;
    if (m->enc) {
        rt = r[0];
        kind = rt == RT_INSTR ? 0 : rt == RT_PAVADIFF ? 1 : 2;
        if (kind == 0) actual = rst_instr_cpu(r);
        if (kind == 1) {
            actual = rst_pv_cpu(r);
            *pair = have_next && r[24] == RT_INSTR && rst_instr_cpu(r + 24) == actual;
        }
        if (kind < 2) code = actual == p ? 0 : actual == alt ? 1 : 2;
        trz_put_u8(&m->out[s], (uint8_t)(code | *pair << 2 | kind << 4));
        if (code == 2) trz_put_le16(&m->out[S_CPUX], (uint16_t)actual);
        if (kind == 2) trz_put_u8(&m->out[S_RTYPE], (uint8_t)rt);
    } else {
        unsigned b = trz_get_u8(&m->in[s]);
        code = b & 3;
        kind = b >> 4;
        *pair = (b >> 2) & 1;
        if (code == 3 || kind > 2 || (b & 8) || (*pair && kind != 1) || (kind == 2 && code)) set_err(m);
        rt = kind == 0 ? RT_INSTR : kind == 1 ? RT_PAVADIFF : trz_get_u8(&m->in[S_RTYPE]);
        if (kind == 2 && (rt == RT_INSTR || rt == RT_PAVADIFF)) set_err(m);
        actual = code == 0 ? p : code == 1 ? alt : trz_get_le16(&m->in[S_CPUX]);
        if (actual >= MAXCPU) { set_err(m); actual = 0; }
    }
    if (kind < 2 && actual != m->cur) {
        cc->runlen = m->run;
        cc->next = actual;
        m->cur = actual;
        m->run = 0;
    }
    *cpu = actual;
    return rt;
}

static void instr_io(model *m, uint8_t *r, unsigned cpu)
{
    cpu_st *c = get_cpu(m, cpu);
    unsigned code = m->enc ? 0 : trz_get_u8(&m->in[S_ICODE]);
    if (code & 0x80) set_err(m);

    /* PC: 0 = predicted flow, 1 = jump table (after last PC / trap type), 2 = other fall-through, 3 = delta */
    uint64_t key = c->trap_key ? (0xF000000000000000ull | c->trap_key) : c->last_pc;
    uint64_t *jte = &m->jt[hash64(key, JT_BITS)];
    uint64_t p0 = c->pred_pc, p1 = *jte, p2 = p0 == c->last_pc + 4 ? c->last_pc + 8 : c->last_pc + 4;
    uint64_t pc;
    unsigned pcc;
    if (m->enc) {
        pc = trz_ld_be64(r + 8);
        pcc = pc == p0 ? 0 : pc == p1 ? 1 : pc == p2 ? 2 : 3;
        if (pcc == 3) trz_put_svarint(&m->out[S_PCD], (int64_t)(pc - p0));
    } else {
        pcc = code & 3;
        pc = pcc == 0 ? p0 : pcc == 1 ? p1 : pcc == 2 ? p2 : p0 + (uint64_t)trz_get_svarint(&m->in[S_PCD]);
    }
    if (pcc) *jte = pc;

    /* instruction word: PC-indexed cache */
    uint32_t *ice = &m->icache[hash64(pc >> 2, IC_BITS)];
    uint32_t iw;
    unsigned iwm;
    if (m->enc) {
        iw = trz_ld_be32(r + 4);
        iwm = iw != *ice;
        if (iwm) io_be(m, S_IW, iw, 4);
    } else {
        iwm = (code >> 2) & 1;
        iw = iwm ? (uint32_t)io_be(m, S_IW, 0, 4) : *ice;
    }
    *ice = iw;
    int cls = classify(iw);

    /* flags byte + notused3: learned per (class, annul expected, taken predicted) */
    uint8_t *bc = &m->bctr[hash64(pc >> 2, BC_BITS)];
    unsigned btp = cls == C_BCOND && *bc >= 2;
    uint8_t *ft = &m->ftab[cls * 4 + c->annul_next * 2 + btp];
    uint8_t pf = (uint8_t)((*ft & ~0x18) | (c->last_flags & 0x18)), pn = c->last_nu3, f, nu3;
    unsigned fm;
    if (m->enc) {
        f = r[1];
        nu3 = r[3] & 0x3f;
        fm = f != pf || nu3 != pn;
        if (fm) { trz_put_u8(&m->out[S_FL], f); trz_put_u8(&m->out[S_FL], nu3); }
    } else {
        fm = (code >> 3) & 1;
        f = fm ? trz_get_u8(&m->in[S_FL]) : pf;
        nu3 = fm ? trz_get_u8(&m->in[S_FL]) : pn;
        if (nu3 > 0x3f) set_err(m);
    }
    *ft = f;
    c->last_flags = f;
    c->last_nu3 = nu3;
    if (cls == C_BCOND) *bc = (uint8_t)((f & 4) ? (*bc < 3 ? *bc + 1 : 3) : (*bc ? *bc - 1 : 0));

    /* EA */
    ea_ent *e = &m->eat[hash64((pc >> 2) ^ (uint64_t)cpu << 52, EA_BITS)];
    uint64_t cand[4], tgt = 0;
    int mem = 0, ds = S_EAD_CTI;
    unsigned rs1 = (iw >> 14) & 31;
    uint64_t simm = (iw & 0x2000) ? sext(iw & 0x1fff, 13) : 0;
    if (f & 0x40) {
        if (cls == C_MEM || cls == C_ALU) {
            mem = 1;
            ds = S_EAD_MEM;
            cand[0] = e->last + (uint64_t)e->stride;
            cand[1] = c->regbase[rs1] + simm;
            cand[2] = e->last;
            cand[3] = c->last_mea;
        } else {
            tgt = cti_target(c, e, iw, cls, pc);
            uint64_t unt = m->untaken_mode ? tgt : pc + 8;
            cand[0] = (f & 4) ? tgt : unt;
            cand[1] = e->last;
            cand[2] = (f & 4) ? unt : tgt;
            cand[3] = pc + 4;
        }
    } else {
        cand[0] = c->inv_ea;
        cand[1] = pc + 8;
        cand[2] = e->last;
        cand[3] = 0;
        if (is_dcti(cls)) tgt = cti_target(c, e, iw, cls, pc);
    }
    unsigned eac = (code >> 4) & 7;
    uint64_t ea = ea_io(m, &eac, cand, ds, m->enc ? trz_ld_be64(r + 16) : 0);

    /* update */
    m->last_memea_ok = mem && cls == C_MEM;
    m->last_memea = ea;
    if (f & 0x40) {
        if (mem) {
            e->stride = (int64_t)(ea - e->last);
            c->regbase[rs1] = ea - simm;
            c->last_mea = ea;
        } else if ((cls == C_BCOND || cls == C_BN) && !(f & 4)) {
            if (ea == pc + 8) m->untaken_mode = 0;
            else if (ea == tgt) m->untaken_mode = 1;
        }
        e->last = ea;
    } else {
        c->inv_ea = ea;
    }
    ras_update(c, cls, iw, pc);
    pc_update(c, cls, iw, f, pc, ea, tgt);
    m->run += !(f & 2);

    if (m->enc) {
        trz_put_u8(&m->out[S_ICODE], (uint8_t)(pcc | iwm << 2 | fm << 3 | eac << 4));
    } else {
        r[0] = RT_INSTR;
        r[1] = f;
        r[2] = (uint8_t)((cpu & 0x3f) << 2 | (cpu >> 8));
        r[3] = (uint8_t)(((cpu >> 6) & 3) << 6 | nu3);
        trz_st_be32(r + 4, iw);
        trz_st_be64(r + 8, pc);
        trz_st_be64(r + 16, ea);
    }
}

/* ---- PAVADIFF ---------------------------------------------------------------- */

static pt_ent *pt_slot(model *m, unsigned ctx, uint64_t va)
{
    return &m->pt[hash64((va >> 13) ^ (uint64_t)ctx << 48, PT_BITS)];
}
static inline uint64_t pt_key(unsigned ctx, uint64_t va) { return ((va >> 13) ^ (uint64_t)ctx << 48) + 1; }

/* One PA-VA value: 0 = same as last, 1 = page table, 2 = raw. */
static uint64_t pa_io(model *m, unsigned *code, uint64_t last, const pt_ent *pe, uint64_t key, uint64_t v)
{
    int tok = pe && pe->key == key;
    if (m->enc) {
        *code = v == last ? 0 : (tok && v == pe->val) ? 1 : 2;
        if (*code == 2) io_be(m, S_PVPA, v, 8);
        return v;
    }
    if (*code == 0) return last;
    if (*code == 1) {
        if (!tok) set_err(m);
        return tok ? pe->val : 0;
    }
    if (*code == 2) return io_be(m, S_PVPA, 0, 8);
    set_err(m);
    return 0;
}

/* A PAVADIFF usually precedes the INSTR it applies to on the same CPU: such a
 * pair is coded INSTR first, so the PA-VA values can be looked up by the
 * instruction's own PC and EA pages. Returns 1 when r[24..47] was consumed. */
static int pv_io(model *m, uint8_t *r, int have_next, unsigned cpu, unsigned pair)
{
    if (pair && !have_next) { set_err(m); pair = 0; }
    if (pair) instr_io(m, r + 24, cpu);
    cpu_st *c = get_cpu(m, cpu);
    unsigned code = m->enc ? 0 : trz_get_u8(&m->in[S_PVCODE]);
    if (code & 0xc0) set_err(m);

    unsigned ev, nu13, ictx, dctx;
    if (m->enc) {
        ev = r[1] >> 7;
        nu13 = (unsigned)(r[2] & 0x1f) << 8 | r[3];
        ictx = trz_ld_be16(r + 4);
        dctx = trz_ld_be16(r + 6);
        code |= (ev != c->pv_ev || nu13 != c->pv_nu13) << 5;
        code |= (ictx != c->pv_ictx || dctx != c->pv_dctx) << 4;
    } else {
        ev = c->pv_ev;
        nu13 = c->pv_nu13;
        ictx = c->pv_ictx;
        dctx = c->pv_dctx;
    }
    if (code & 0x20) {
        ev = io_u8(m, S_PVFL, ev);
        nu13 = (unsigned)io_be(m, S_PVFL, nu13, 2);
        if (ev > 1 || nu13 > 0x1fff) set_err(m);
    }
    if (code & 0x10) {
        ictx = (unsigned)io_be(m, S_PVCTX, ictx, 2);
        dctx = (unsigned)io_be(m, S_PVCTX, dctx, 2);
    }
    uint64_t kpc = pair ? c->last_pc : c->pred_pc;
    int eok = pair && m->last_memea_ok;
    uint64_t kea = m->last_memea;
    pt_ent *pp = pt_slot(m, ictx, kpc), *pe = eok ? pt_slot(m, dctx, kea) : NULL;
    unsigned pcode = code & 3, ecode = (code >> 2) & 3;
    uint64_t pcpa = pa_io(m, &pcode, c->pv_pc, pp, pt_key(ictx, kpc), m->enc ? trz_ld_be64(r + 8) : 0);
    uint64_t eapa = pa_io(m, &ecode, c->pv_ea, pe, pt_key(dctx, kea), m->enc ? trz_ld_be64(r + 16) : 0);
    if (m->enc) trz_put_u8(&m->out[S_PVCODE], (uint8_t)(code | pcode | ecode << 2));

    pp->key = pt_key(ictx, kpc);
    pp->val = pcpa;
    if (pe && ev) { pe->key = pt_key(dctx, kea); pe->val = eapa; }
    c->pv_ev = (uint8_t)ev;
    c->pv_nu13 = (uint16_t)nu13;
    c->pv_ictx = (uint16_t)ictx;
    c->pv_dctx = (uint16_t)dctx;
    c->pv_pc = pcpa;
    c->pv_ea = eapa;
    if (!m->enc) {
        r[0] = RT_PAVADIFF;
        r[1] = (uint8_t)(ev << 7 | (cpu & 0x7f));
        r[2] = (uint8_t)((cpu >> 7) << 5 | nu13 >> 8);
        r[3] = (uint8_t)nu13;
        trz_st_be16(r + 4, (uint16_t)ictx);
        trz_st_be16(r + 6, (uint16_t)dctx);
        trz_st_be64(r + 8, pcpa);
        trz_st_be64(r + 16, eapa);
    }
    return (int)pair;
}

/* ---- other record types -------------------------------------------------- */

/* Known types: bytes 1..7 as a 56-bit delta from the last record of the same
 * rtype, then the two 64-bit words as deltas.  Text and unknown types: raw. */
static void other_io(model *m, uint8_t *r)
{
    unsigned rt = r[0];
    if (rt == RT_HEADER || rt == RT_STRDESC || rt == RT_STRCONT) { io_bytes(m, S_TEXT, r + 1, 23); return; }
    if (!rst_known_rtype(rt)) { io_bytes(m, S_UNK, r + 1, 23); return; }
    uint8_t *l = m->lastrec[rt];
    const uint64_t M56 = (1ull << 56) - 1;
    uint64_t lh = trz_ld_be64(l) & M56, h = 0;
    if (m->enc) h = trz_ld_be64(r) & M56;
    uint64_t d = io_uv(m, S_OHDR, trz_zigzag((int64_t)sext((h - lh) & M56, 56)));
    h = (lh + (uint64_t)trz_unzigzag(d)) & M56;
    /* word a as a delta (tags, PCs, times drift); word b raw BE (TLB data,
     * npc, values: unrelated numbers whose shared high bytes zstd finds) */
    uint64_t a = io_uv(m, S_OA, trz_zigzag((int64_t)(trz_ld_be64(r + 8) - trz_ld_be64(l + 8))));
    uint64_t b = io_be(m, S_OB, trz_ld_be64(r + 16), 8);
    if (!m->enc) {
        trz_st_be64(r, h | (uint64_t)rt << 56);
        trz_st_be64(r + 8, trz_ld_be64(l + 8) + (uint64_t)trz_unzigzag(a));
        trz_st_be64(r + 16, b);
    }
    memcpy(l, r, RST_REC);
    if (rt == RT_TRAP) {
        int cpu = rst_rec_cpu(r);
        get_cpu(m, (unsigned)cpu)->trap_key = 0x10000u | (trz_ld_be16(r + 2) & 0x3ff);
    }
}

/* ---- driver ---------------------------------------------------------------- */

static model *model_new(void)
{
    model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->eat = calloc((size_t)1 << EA_BITS, sizeof *m->eat);
    m->icache = calloc((size_t)1 << IC_BITS, sizeof *m->icache);
    m->bctr = calloc((size_t)1 << BC_BITS, 1);
    m->jt = calloc((size_t)1 << JT_BITS, sizeof *m->jt);
    m->pt = calloc((size_t)1 << PT_BITS, sizeof *m->pt);
    if (!m->eat || !m->icache || !m->bctr || !m->jt || !m->pt) m->oom = 1;
    return m;
}

static void model_free(model *m)
{
    if (!m) return;
    for (int i = 0; i < MAXCPU; i++) free(m->cpu[i]);
    free(m->eat);
    free(m->icache);
    free(m->bctr);
    free(m->jt);
    free(m->pt);
    free(m);
}

/* Code all records of a canonical (BE) chunk; in decode mode fill it. */
static void run_records(model *m, uint8_t *buf, size_t nrec)
{
    for (size_t i = 0; i < nrec; i++) {
        uint8_t *r = buf + i * RST_REC;
        unsigned cpu = 0, pair = 0, rt = ev_io(m, r, i + 1 < nrec, &cpu, &pair);
        r[0] = (uint8_t)rt;
        if (rt == RT_INSTR) {
            instr_io(m, r, cpu);
        } else if (rt == RT_PAVADIFF) {
            i += (size_t)pv_io(m, r, i + 1 < nrec, cpu, pair);
        } else {
            other_io(m, r);
        }
        if (!m->enc && (i & 4095) == 0 && m->in[0].err) return;
    }
}

static int rst_encode(const trz_enc_args *a)
{
    if (a->len % RST_REC || a->nrec != a->len / RST_REC) return TRZ_CODEC_UNSUPPORTED;
    model *m = model_new();
    uint8_t *canon = malloc(a->len ? a->len : 1);
    int rc = TRZ_CODEC_NOMEM;
    if (m && !m->oom && canon) {
        for (size_t off = 0; off < a->len; off += RST_REC) {
            if (a->byte_order == TRZ_BO_LITTLE) rst_to_canon(canon + off, a->in + off);
            else memcpy(canon + off, a->in + off, RST_REC);
        }
        m->enc = 1;
        m->out = a->streams;
        run_records(m, canon, a->nrec);
        rc = TRZ_CODEC_OK;
        if (m->oom) rc = TRZ_CODEC_NOMEM;
        for (int s = 0; s < S_NSTREAMS; s++) if (a->streams[s].oom) rc = TRZ_CODEC_NOMEM;
    }
    free(canon);
    model_free(m);
    return rc;
}

static int rst_decode(const trz_dec_args *a)
{
    if (a->len % RST_REC || a->nrec != a->len / RST_REC) return TRZ_CODEC_CORRUPT;
    for (int s = S_NSTREAMS; s < TRZ_MAX_STREAMS; s++) if (a->stream_len[s]) return TRZ_CODEC_CORRUPT;
    model *m = model_new();
    if (!m || m->oom) { model_free(m); return TRZ_CODEC_NOMEM; }
    for (int s = 0; s < S_NSTREAMS; s++) trz_rd_init(&m->in[s], a->stream[s], a->stream[s] ? a->stream_len[s] : 0);
    run_records(m, a->out, a->nrec);
    int rc = TRZ_CODEC_OK;
    for (int s = 0; s < S_NSTREAMS; s++)
        if (m->in[s].err || trz_rd_left(&m->in[s])) rc = TRZ_CODEC_CORRUPT;
    if (m->oom) rc = TRZ_CODEC_NOMEM;
    model_free(m);
    if (rc == TRZ_CODEC_OK && a->byte_order == TRZ_BO_LITTLE) {
        uint8_t t[RST_REC];
        for (size_t off = 0; off < a->len; off += RST_REC) {
            rst_from_canon(t, a->out + off);
            memcpy(a->out + off, t, RST_REC);
        }
    }
    return rc;
}

static const char *rst_stream_name(unsigned id) { return id < S_NSTREAMS ? stream_names[id] : NULL; }

const trz_codec trz_codec_rst = {
    .id = TRZ_CODEC_RST,
    .name = "rst",
    .record_size = RST_REC,
    .description = "SPARC RST traces (24-byte records, rstf 2.x)",
    .probe = rst_probe,
    .encode_chunk = rst_encode,
    .decode_chunk = rst_decode,
    .stream_name = rst_stream_name,
    .dump_record = rst_dump,
    .cpus_seen = rst_cpus_seen,
};
