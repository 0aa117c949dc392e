/* gen_samples.c - writes trz's small synthetic sample traces into argv[1].
 * Every record comes from tiny simulated programs driven by fixed-seed PRNGs,
 * so the output is byte-identical on every run and machine; no real trace is used.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "champsim_gen.h"
#include "drmemtrace_gen.h"

/* ---- PRNG: splitmix64, one stream per generator ------------------------ */
typedef struct { uint64_t s; } rng_t;
static uint64_t rnext(rng_t *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint32_t rbelow(rng_t *r, uint32_t n) { return (uint32_t)(rnext(r) % n); }
static int rpct(rng_t *r, int pct) { return (int)rbelow(r, 1000) < pct * 10; }
static int rpermil(rng_t *r, int pm) { return (int)rbelow(r, 1000) < pm; }
static uint64_t mix64(uint64_t x)
{
    rng_t t = { x };
    return rnext(&t);
}

static FILE *open_out(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) { perror(path); exit(1); }
    return f;
}
static void close_out(FILE *f)
{
    if (ferror(f) || fclose(f) != 0) { perror("write"); exit(1); }
}

/* ======================================================================== */
/* RST                                                                      */
/* ======================================================================== */

/* Field writers.  put_int stores a whole integer in the trace's byte order.
 * put_bits stores a bit field inside a region of bit fields: big-endian
 * allocates from the region's most significant bit down, little-endian from
 * its least significant bit up (rst-records.md), so `off` counts from the
 * first-declared field in both. */
static void put_int(uint8_t *r, int le, int at, int len, uint64_t v)
{
    for (int i = 0; i < len; i++) {
        uint8_t b = (uint8_t)(v >> (8 * i));
        r[le ? at + i : at + len - 1 - i] = b;
    }
}
static uint64_t get_int(const uint8_t *r, int le, int at, int len)
{
    uint64_t v = 0;
    for (int i = 0; i < len; i++)
        v |= (uint64_t)r[le ? at + i : at + len - 1 - i] << (8 * i);
    return v;
}
static void put_bits(uint8_t *r, int le, int at, int len, int off, int w, uint64_t v)
{
    int sh = le ? off : len * 8 - off - w;
    uint64_t m = ((1ull << w) - 1) << sh;
    uint64_t reg = get_int(r, le, at, len);
    reg = (reg & ~m) | ((v << sh) & m);
    put_int(r, le, at, len, reg);
}

typedef struct {
    FILE *f;
    int le;
    long nrec;
} rstw_t;

static void rst_emit(rstw_t *w, const uint8_t *r)
{
    fwrite(r, 1, 24, w->f);
    w->nrec++;
}
static void rst_header(rstw_t *w)
{
    uint8_t r[24] = { 2, 2, 13, '%' };
    memcpy(r + 4, "RST Header v2.13", 16);
    rst_emit(w, r);
}
static void rst_string(rstw_t *w, const char *s)
{
    uint8_t r[24] = { 14 };
    strncpy((char *)r + 1, s, 22); /* byte 23 stays NUL */
    rst_emit(w, r);
}

enum { IF_EA = 1, IF_BT = 5, IF_AN = 6, IF_PR = 4 }; /* bit offsets in instr flags */

static void rst_instr(rstw_t *w, int cpu, uint32_t word, uint64_t pc, uint64_t ea,
                      int ea_valid, int bt, int an, int pr)
{
    uint8_t r[24] = { 3 };
    put_bits(r, w->le, 1, 3, 1, 1, (uint64_t)ea_valid);
    put_bits(r, w->le, 1, 3, 4, 1, (uint64_t)pr);
    put_bits(r, w->le, 1, 3, 5, 1, (uint64_t)bt);
    put_bits(r, w->le, 1, 3, 6, 1, (uint64_t)an);
    put_bits(r, w->le, 1, 3, 8, 6, (uint64_t)cpu & 0x3f);
    put_bits(r, w->le, 1, 3, 14, 4, (uint64_t)cpu >> 6);
    put_int(r, w->le, 4, 4, word);
    put_int(r, w->le, 8, 8, pc);
    put_int(r, w->le, 16, 8, ea);
    rst_emit(w, r);
}
static void rst_pavadiff(rstw_t *w, int cpu, int ea_valid, int ictx, int dctx,
                         uint64_t pcd, uint64_t ead)
{
    uint8_t r[24] = { 19 };
    put_bits(r, w->le, 1, 3, 0, 1, (uint64_t)ea_valid);
    put_bits(r, w->le, 1, 3, 1, 7, (uint64_t)cpu & 0x7f);
    put_bits(r, w->le, 1, 3, 8, 3, (uint64_t)cpu >> 7);
    put_int(r, w->le, 4, 2, (uint64_t)ictx);
    put_int(r, w->le, 6, 2, (uint64_t)dctx);
    put_int(r, w->le, 8, 8, pcd);
    put_int(r, w->le, 16, 8, ead);
    rst_emit(w, r);
}
static void rst_trap(rstw_t *w, int cpu, int async, int tl, int ttype, int pstate,
                     int syscall, uint64_t pc, uint64_t npc)
{
    uint8_t r[24] = { 7 };
    put_bits(r, w->le, 1, 3, 0, 1, (uint64_t)async);
    put_bits(r, w->le, 1, 3, 4, 4, (uint64_t)tl);
    put_bits(r, w->le, 1, 3, 8, 6, (uint64_t)cpu & 0x3f);
    put_bits(r, w->le, 1, 3, 14, 10, (uint64_t)ttype);
    put_int(r, w->le, 4, 2, (uint64_t)pstate);
    put_bits(r, w->le, 6, 2, 0, 4, (uint64_t)cpu >> 6);
    put_bits(r, w->le, 6, 2, 4, 12, (uint64_t)syscall);
    put_int(r, w->le, 8, 8, pc);
    put_int(r, w->le, 16, 8, npc);
    rst_emit(w, r);
}
static void rst_tlb(rstw_t *w, int cpu, int isdata, int index, int tlbno,
                    uint64_t tag, uint64_t data)
{
    uint8_t r[24] = { 5 };
    put_bits(r, w->le, 1, 1, 1, 1, (uint64_t)isdata);
    put_int(r, w->le, 2, 2, (uint64_t)index);
    put_bits(r, w->le, 4, 2, 0, 2, (uint64_t)tlbno);
    put_bits(r, w->le, 4, 2, 2, 6, (uint64_t)cpu & 0x3f);
    put_bits(r, w->le, 4, 2, 8, 4, (uint64_t)cpu >> 6);
    put_int(r, w->le, 8, 8, tag);
    put_int(r, w->le, 16, 8, data);
    rst_emit(w, r);
}
static void rst_regval(rstw_t *w, int cpu, int regid, uint64_t val)
{
    uint8_t r[24] = { 9 };
    put_bits(r, w->le, 1, 1, 0, 1, 1); /* postInstr */
    put_bits(r, w->le, 1, 1, 1, 7, (uint64_t)cpu & 0x7f);
    r[2] = 1; /* regtype[0]: integer register */
    r[4] = (uint8_t)regid;
    put_bits(r, w->le, 6, 2, 0, 3, (uint64_t)cpu >> 7);
    put_int(r, w->le, 8, 8, val);
    rst_emit(w, r);
}

/* ---- a tiny SPARC V9 assembler (two passes for forward labels) ---------- */
enum { G0, G1, G2, G3, G4, G5, G6, G7, O0, O1, O2, O3, O4, O5, SP, O7,
       L0, L1, L2, L3, L4, L5, L6, L7, I0, I1, I2, I3, I4, I5, FP, I7 };
enum { OP_ADD = 0x00, OP_AND = 0x01, OP_OR = 0x02, OP_XOR = 0x03, OP_SUB = 0x04,
       OP_ADDCC = 0x10, OP_SUBCC = 0x14, OP_SLLX = 0x25, OP_JMPL = 0x38,
       OP_SAVE = 0x3c, OP_RESTORE = 0x3d, OP_RETRY = 0x3e };
enum { M_LDUW = 0x00, M_STW = 0x04, M_LDX = 0x0b, M_STX = 0x0e };
enum { C_N = 0, C_E = 1, C_LE = 2, C_L = 3, C_A = 8, C_NE = 9, C_G = 10, C_GE = 11 };

#define UTEXT 0x100000000ull
#define KTEXT 0xfffffffff0000000ull
#define CODEWORDS 0x1200
typedef struct { uint64_t base; uint32_t w[CODEWORDS]; } seg_t;
static seg_t useg = { UTEXT, { 0 } }, kseg = { KTEXT, { 0 } };
static seg_t *aseg;
static uint64_t here;
static uint64_t lab[32];

static void org(seg_t *s, uint64_t at) { aseg = s; here = at; }
static void label(int id) { lab[id] = here; }
static void emit(uint32_t w)
{
    aseg->w[(here - aseg->base) / 4] = w;
    here += 4;
}
static void ai(int op3, int rs1, int simm, int rd)
{
    emit(2u << 30 | (uint32_t)rd << 25 | (uint32_t)op3 << 19 | (uint32_t)rs1 << 14 |
         1u << 13 | ((uint32_t)simm & 0x1fff));
}
static void ar(int op3, int rs1, int rs2, int rd)
{
    emit(2u << 30 | (uint32_t)rd << 25 | (uint32_t)op3 << 19 | (uint32_t)rs1 << 14 | (uint32_t)rs2);
}
static void mem(int op3, int rs1, int simm, int rd)
{
    emit(3u << 30 | (uint32_t)rd << 25 | (uint32_t)op3 << 19 | (uint32_t)rs1 << 14 |
         1u << 13 | ((uint32_t)simm & 0x1fff));
}
static void sethi(uint32_t v, int rd) { emit((uint32_t)rd << 25 | 4u << 22 | (v >> 10)); }
static void nop(void) { emit(0x01000000u); }
static void bicc(int cond, int a, int l)
{
    int64_t d = (int64_t)(lab[l] - here) / 4;
    emit((uint32_t)a << 29 | (uint32_t)cond << 25 | 2u << 22 | ((uint32_t)d & 0x3fffff));
}
static void bpcc(int cond, int a, int l) /* %xcc, predict taken */
{
    int64_t d = (int64_t)(lab[l] - here) / 4;
    emit((uint32_t)a << 29 | (uint32_t)cond << 25 | 1u << 22 | 2u << 20 | 1u << 19 |
         ((uint32_t)d & 0x7ffff));
}
static void call(int l)
{
    int64_t d = (int64_t)(lab[l] - here) / 4;
    emit(1u << 30 | ((uint32_t)d & 0x3fffffff));
}

enum { LB_OUTER, LB_L1, LB_L2, LB_L3, LB_SKIP, LB_FUNC, LB_F1, LB_LEAF,
       LB_KH, LB_K1, LB_TT60 };
#define TT60_PC (KTEXT + 0x60 * 32)

static void assemble(void)
{
    for (int pass = 0; pass < 2; pass++) {
        org(&useg, UTEXT + 0x2140);
        label(LB_OUTER);
        ar(OP_OR, G0, I0, L0);          /* A pointer */
        sethi(0x40000, L4);
        ar(OP_ADD, L0, L4, L4);         /* B = A + 256K */
        ai(OP_OR, G0, 48, L1);
        ar(OP_OR, G0, G0, L3);
        label(LB_L1);                   /* sum A[i] (stride 8), store to B (stride 4) */
        mem(M_LDX, L0, 0, L2);
        ar(OP_ADD, L3, L2, L3);
        mem(M_STW, L4, 0, L3);
        ai(OP_ADD, L0, 8, L0);
        ai(OP_SUBCC, L1, 1, L1);
        bpcc(C_NE, 0, LB_L1);
        ai(OP_ADD, L4, 4, L4);
        ar(OP_OR, G0, I0, L0);
        ai(OP_OR, G0, 24, L1);
        label(LB_L2);                   /* struct field walk, stride 16 */
        mem(M_LDUW, L0, 4, L2);
        ar(OP_XOR, L2, L3, L3);
        mem(M_STX, L0, 8, L3);
        ai(OP_SUBCC, L1, 1, L1);
        bicc(C_NE, 0, LB_L2);
        ai(OP_ADD, L0, 16, L0);
        ai(OP_OR, G0, 20, L1);
        label(LB_L3);                   /* linked-list chase */
        mem(M_LDX, I1, 8, L2);
        ar(OP_ADD, L3, L2, L3);
        mem(M_LDX, I1, 0, I1);
        ai(OP_SUBCC, L1, 1, L1);
        bicc(C_NE, 1, LB_L3);           /* annulled slot on loop exit */
        ai(OP_ADD, L5, 1, L5);
        ar(OP_OR, G0, L3, O0);
        call(LB_FUNC);
        ai(OP_OR, G0, 6, O1);
        ar(OP_ADD, O0, L3, L3);
        call(LB_LEAF);
        ar(OP_OR, G0, L5, O1);
        ai(OP_AND, O0, 1, L2);
        ai(OP_SUBCC, L2, 0, G0);
        bicc(C_E, 0, LB_SKIP);          /* data-dependent */
        nop();
        mem(M_STX, SP, 2223, L3);
        label(LB_SKIP);
        ai(OP_ADD, I0, 256, I0);        /* slide the array window */
        ai(OP_SUBCC, I2, 1, I2);
        bicc(C_G, 0, LB_OUTER);
        nop();
        ai(OP_OR, G0, 1000, I2);
        bpcc(C_A, 1, LB_OUTER);
        nop();
        org(&useg, UTEXT + 0x2480);
        label(LB_FUNC);
        ai(OP_SAVE, SP, -176, SP);
        ai(OP_ADD, SP, 2223, L0);
        ar(OP_OR, G0, I1, L1);
        label(LB_F1);                   /* spill to the stack frame */
        mem(M_STX, L0, 0, I0);
        ar(OP_ADD, I0, L1, I0);
        ai(OP_SUBCC, L1, 1, L1);
        bicc(C_NE, 0, LB_F1);
        ai(OP_ADD, L0, 8, L0);
        mem(M_LDX, FP, 2039, L2);
        ai(OP_JMPL, I7, 8, G0);         /* ret */
        ar(OP_RESTORE, I0, G0, O0);
        label(LB_LEAF);
        ar(OP_ADD, O0, O1, O0);
        ai(OP_JMPL, O7, 8, G0);         /* retl */
        ai(OP_SUB, O0, 1, O0);

        org(&kseg, TT60_PC);            /* interrupt vector trap table slot */
        mem(M_LDX, G7, 0, G1);
        ai(OP_ADD, G1, 1, G1);
        mem(M_STX, G7, 0, G1);
        ai(OP_OR, G0, 5, G4);
        bpcc(C_A, 0, LB_KH);
        ai(OP_ADD, G7, 64, G5);
        org(&kseg, KTEXT + 0x4000);
        label(LB_KH);
        label(LB_K1);
        mem(M_LDX, G5, 0, G1);
        ai(OP_ADD, G5, 8, G5);
        ai(OP_SUBCC, G4, 1, G4);
        bicc(C_NE, 0, LB_K1);
        ar(OP_ADD, G2, G1, G2);
        emit(2u << 30 | 1u << 25 | (uint32_t)OP_RETRY << 19);
    }
}

/* ---- per-CPU simulation ------------------------------------------------- */
#define LIST_NODES 2048
#define NWIN 16
typedef struct {
    int id, ctx;
    uint64_t pc, npc;
    uint64_t g[8], o[8], l[8], i[8];
    uint64_t wl[NWIN][8], wi[NWIN][8];
    int wdepth;
    int zf, nf; /* condition codes (icc and xcc agree for these small values) */
    int tzf, tnf; /* saved across a trap, as TSTATE saves CCR */
    int annul, priv;
    uint64_t tpc, tnpc;
    uint64_t listbase;
    uint32_t next[LIST_NODES];
    long until_irq;
    uint64_t last_pcd, last_ead;
    int last_ictx, last_dctx, have_pava;
    uint64_t seen[4096]; /* pages that already had a TLB fill */
} cpu_t;

static uint64_t *reg(cpu_t *c, int r)
{
    static uint64_t zero;
    if (r == 0) { zero = 0; return &zero; }
    if (r < 8) return &c->g[r];
    if (r < 16) return &c->o[r - 8];
    if (r < 24) return &c->l[r - 16];
    return &c->i[r - 24];
}

static uint64_t load_val(cpu_t *c, uint64_t a)
{
    if (a >= c->listbase && a < c->listbase + LIST_NODES * 32ull) {
        uint64_t n = (a - c->listbase) / 32, f = (a - c->listbase) % 32;
        if (f == 0) return c->listbase + 32ull * c->next[n];
    }
    return mix64(a ^ 0x5a5a) & 0xffff;
}

#define HEAP 0x100800000ull
static uint64_t pa_of(uint64_t va, int ctx)
{
    if (va >= KTEXT) return 0x400000ull + (va - KTEXT); /* nucleus: linear */
    if (va >= HEAP && va < HEAP + 0x1000000ull) {          /* heap on 4 MB pages */
        uint64_t fr = mix64((va >> 22) ^ ((uint64_t)ctx << 32)) % 0x800;
        return fr << 22 | (va & 0x3fffff);
    }
    uint64_t fr = mix64((va >> 13) ^ ((uint64_t)ctx << 40) ^ 77) % 0x100000;
    return fr << 13 | (va & 0x1fff);
}

typedef struct {
    uint32_t w;
    uint64_t pc, ea;
    int ea_valid, is_mem, bt, an, pr, ldreg;
    uint64_t ldval;
} ev_t;

static int cond_true(cpu_t *c, int cond)
{
    switch (cond) {
    case C_A: return 1;
    case C_N: return 0;
    case C_E: return c->zf;
    case C_NE: return !c->zf;
    case C_G: return !c->zf && !c->nf;
    case C_LE: return c->zf || c->nf;
    case C_GE: return !c->nf;
    case C_L: return c->nf;
    }
    return 0;
}

static void step(cpu_t *c, ev_t *e)
{
    seg_t *s = c->pc >= KTEXT ? &kseg : &useg;
    uint32_t w = s->w[(c->pc - s->base) / 4];
    uint64_t npc2 = c->npc + 4;
    memset(e, 0, sizeof *e);
    e->w = w;
    e->pc = c->pc;
    e->pr = c->priv;
    e->ldreg = -1;
    if (c->annul) { /* annulled delay slot: recorded, not executed */
        c->annul = 0;
        e->an = 1;
        c->pc = c->npc;
        c->npc = npc2;
        return;
    }
    int op = (int)(w >> 30), rd = (int)(w >> 25) & 31, op3 = (int)(w >> 19) & 63;
    int rs1 = (int)(w >> 14) & 31;
    int64_t simm = (int64_t)((int32_t)(w << 19) >> 19);
    uint64_t src2 = (w >> 13 & 1) ? (uint64_t)simm : *reg(c, (int)w & 31);
    if (op == 0) {
        int op2 = (int)(w >> 22) & 7, a = (int)(w >> 29) & 1, cond = (int)(w >> 25) & 15;
        if (op2 == 4) {
            *reg(c, rd) = (uint64_t)(w & 0x3fffff) << 10;
        } else {
            int64_t d = op2 == 1 ? (int64_t)((int32_t)(w << 13) >> 13)
                                 : (int64_t)((int32_t)(w << 10) >> 10);
            uint64_t tgt = c->pc + (uint64_t)(d * 4);
            int t = cond_true(c, cond);
            e->ea_valid = 1;
            if (t) {
                e->bt = 1;
                e->ea = tgt;
                npc2 = tgt;
                if (cond == C_A && a) c->annul = 1;
            } else {
                e->ea = c->pc + 8;
                if (a) c->annul = 1;
            }
        }
    } else if (op == 1) {
        int64_t d = (int64_t)((int32_t)(w << 2) >> 2);
        npc2 = c->pc + (uint64_t)(d * 4);
        *reg(c, O7) = c->pc;
        e->ea_valid = e->bt = 1;
        e->ea = npc2;
    } else if (op == 2) {
        uint64_t a = *reg(c, rs1), r = 0;
        switch (op3) {
        case OP_ADD: r = a + src2; break;
        case OP_AND: r = a & src2; break;
        case OP_OR: r = a | src2; break;
        case OP_XOR: r = a ^ src2; break;
        case OP_SUB: r = a - src2; break;
        case OP_SUBCC:
            r = a - src2;
            c->zf = r == 0;
            c->nf = (int64_t)r < 0;
            break;
        case OP_JMPL:
            npc2 = a + src2;
            r = c->pc;
            e->ea_valid = e->bt = 1;
            e->ea = npc2;
            break;
        case OP_SAVE:
            r = a + src2;
            memcpy(c->wl[c->wdepth], c->l, sizeof c->l);
            memcpy(c->wi[c->wdepth], c->i, sizeof c->i);
            c->wdepth = (c->wdepth + 1) % NWIN;
            memcpy(c->i, c->o, sizeof c->o);
            memset(c->l, 0, sizeof c->l);
            memset(c->o, 0, sizeof c->o);
            break;
        case OP_RESTORE:
            r = a + src2;
            memcpy(c->o, c->i, sizeof c->i);
            c->wdepth = (c->wdepth + NWIN - 1) % NWIN;
            memcpy(c->l, c->wl[c->wdepth], sizeof c->l);
            memcpy(c->i, c->wi[c->wdepth], sizeof c->i);
            break;
        case OP_RETRY:
            c->zf = c->tzf;
            c->nf = c->tnf;
            e->ea_valid = e->bt = 1;
            e->ea = c->tpc;
            c->pc = c->tpc;
            c->npc = c->tnpc;
            c->priv = 0;
            return;
        }
        if (op3 != OP_RETRY) *reg(c, rd) = r;
    } else { /* loads and stores */
        uint64_t ea = *reg(c, rs1) + src2;
        e->ea_valid = e->is_mem = 1;
        e->ea = ea;
        if (op3 == M_LDX || op3 == M_LDUW) {
            uint64_t v = load_val(c, ea);
            *reg(c, rd) = v;
            e->ldreg = rd;
            e->ldval = v;
        }
    }
    c->pc = c->npc;
    c->npc = npc2;
}

static void cpu_init(cpu_t *c, int id, int ctx, rng_t *r)
{
    memset(c, 0, sizeof *c);
    c->id = id;
    c->ctx = ctx;
    c->pc = lab[LB_OUTER];
    c->npc = c->pc + 4;
    c->i[0] = HEAP + 0x100000ull * (uint64_t)(id & 7);
    c->listbase = 0x102000000ull + 0x20000ull * (uint64_t)(id & 7);
    uint32_t order[LIST_NODES];
    for (uint32_t k = 0; k < LIST_NODES; k++) order[k] = k;
    for (uint32_t k = LIST_NODES - 1; k > 0; k--) {
        uint32_t j = rbelow(r, k + 1), t = order[k];
        order[k] = order[j];
        order[j] = t;
    }
    for (uint32_t k = 0; k < LIST_NODES; k++) c->next[order[k]] = order[(k + 1) % LIST_NODES];
    c->i[1] = c->listbase + 32ull * order[0];
    c->i[2] = 1000;
    uint64_t stk = 0xffffffff7ff00000ull - 0x20000ull * (uint64_t)(id & 7);
    c->o[6] = stk - 0x800 - 2047;
    c->i[6] = stk - 0x400 - 2047;
    c->g[7] = 0xfffffffff0400000ull + 0x2000ull * (uint64_t)(id & 7);
    c->until_irq = 1500 + rbelow(r, 2500);
}

static int seen_page(cpu_t *c, uint64_t page)
{
    uint64_t key = page + 1;
    uint32_t h = (uint32_t)(mix64(page) & 4095);
    while (c->seen[h]) {
        if (c->seen[h] == key) return 1;
        h = (h + 1) & 4095;
    }
    c->seen[h] = key;
    return 0;
}

/* Runs one instruction of CPU c, with the records that go with it. */
static void cpu_turn(rstw_t *w, cpu_t *c, rng_t *r)
{
    if (--c->until_irq <= 0 && !c->priv && !c->annul && c->npc == c->pc + 4) {
        rst_trap(w, c->id, 1, 1, 0x60, 0x016, 0, c->pc, c->npc);
        c->tpc = c->pc;
        c->tnpc = c->npc;
        c->tzf = c->zf;
        c->tnf = c->nf;
        c->pc = TT60_PC;
        c->npc = c->pc + 4;
        c->priv = 1;
        c->until_irq = 1500 + rbelow(r, 2500);
    }
    ev_t e;
    step(c, &e);
    int ictx = e.pc >= KTEXT ? 0 : c->ctx;
    int dctx = e.is_mem && e.ea >= KTEXT ? 0 : c->ctx;
    uint64_t pcd = pa_of(e.pc, ictx) - e.pc;
    uint64_t ead = e.is_mem ? pa_of(e.ea, dctx) - e.ea : 0;
    if (!c->have_pava || pcd != c->last_pcd || ictx != c->last_ictx ||
        (e.is_mem && (ead != c->last_ead || dctx != c->last_dctx))) {
        /* a first touch of a page sometimes shows its TLB fill */
        uint64_t va = e.is_mem ? e.ea : e.pc;
        int big = va >= HEAP && va < HEAP + 0x1000000ull;
        uint64_t page = va >> (big ? 22 : 13);
        if (!seen_page(c, page ^ (uint64_t)e.is_mem << 63) && rpct(r, 60)) {
            int cx = e.is_mem ? dctx : ictx;
            uint64_t pa = pa_of(va, cx);
            uint64_t data = 1ull << 63 | (big ? 3ull << 61 : 0) |
                            (pa & ~(big ? 0x3fffffull : 0x1fffull)) | 0x30 |
                            (e.is_mem ? 2 : 0) | (va >= KTEXT ? 4 : 0);
            rst_tlb(w, c->id, e.is_mem, (int)rbelow(r, 512), (int)rbelow(r, 3),
                    (uint64_t)cx << 48 | (va >> 22), data);
        }
        rst_pavadiff(w, c->id, e.is_mem, ictx, dctx, pcd, ead);
        c->have_pava = 1;
        c->last_pcd = pcd;
        c->last_ictx = ictx;
        if (e.is_mem) {
            c->last_ead = ead;
            c->last_dctx = dctx;
        }
    }
    rst_instr(w, c->id, e.w, e.pc, e.ea, e.ea_valid, e.bt, e.an, e.pr);
    if (e.ldreg >= 0 && rpermil(r, 8)) rst_regval(w, c->id, e.ldreg, e.ldval);
}

static void gen_rst(const char *dir, const char *name, int le, int ncpu, long nrec,
                    uint64_t seed, const char *desc)
{
    rstw_t w = { open_out(dir, name), le, 0 };
    rng_t r = { seed };
    static cpu_t cpus[4];
    char s[32];
    rst_header(&w);
    rst_string(&w, "trz gen_samples");
    rst_string(&w, desc);
    snprintf(s, sizeof s, "ncpus=%d", ncpu);
    rst_string(&w, s);
    for (int k = 0; k < ncpu; k++) cpu_init(&cpus[k], k, 0x1a3 + k / 2, &r);
    int cur = 0;
    while (w.nrec < nrec) {
        /* mostly two instructions per CPU per turn, sometimes a longer run */
        int run = rpct(&r, 85) ? 2 : 1 + (int)rbelow(&r, 12);
        for (int k = 0; k < run && w.nrec < nrec; k++) cpu_turn(&w, &cpus[cur], &r);
        cur = (cur + 1) % ncpu;
    }
    close_out(w.f);
}

/* ======================================================================== */
/* Bus reference streams (BYU and PEL Pentium bus)                          */
/* ======================================================================== */

enum { K_FETCH, K_READ, K_WRITE, K_READINV, K_DEFER, K_IOR, K_IOW, K_WB };
typedef struct { uint32_t addr; uint8_t kind, size; } ref_t;
typedef struct { ref_t *v; size_t n, cap; } refs_t;

static void addref(refs_t *q, int kind, uint32_t addr, int size)
{
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 4096;
        q->v = realloc(q->v, q->cap * sizeof *q->v);
        if (!q->v) { perror("realloc"); exit(1); }
    }
    q->v[q->n++] = (ref_t){ addr, (uint8_t)kind, (uint8_t)size };
}

/* Fetch the qwords of code [from, to), with data references hooked at
 * given offsets by the caller (see run_loop). */
static void fetch_range(refs_t *q, rng_t *r, uint32_t from, uint32_t to)
{
    for (uint32_t a = from; a < to; a += 8) {
        addref(q, K_FETCH, a, 8);
        if (rpct(r, 3)) addref(q, K_FETCH, a, 8); /* re-fetch after a stall */
    }
}

/* A process with loops over strided arrays, a pointer chase, calls and
 * stack traffic; `p` picks different code and data addresses. */
static void bus_program(refs_t *q, rng_t *r, int p, size_t want, int dsize4)
{
    uint32_t code = 0x0010a000u + 0x11c000u * (uint32_t)p;
    uint32_t arr = 0x01800000u + 0x200000u * (uint32_t)p;
    uint32_t lst = 0x02400000u + 0x100000u * (uint32_t)p;
    uint32_t sp = 0x0ffe7f00u - 0x10000u * (uint32_t)p;
    uint32_t node = lst + 16 * rbelow(r, 8192);
    uint32_t window = 0;
    int dsz = dsize4 ? 4 : 8;
    while (q->n < want) {
        /* loop 1: a[i] += b[i*stride] */
        int stride = (int[]){ 4, 8, 16, 8 }[rbelow(r, 4)];
        int n1 = 24 + (int)rbelow(r, 40);
        fetch_range(q, r, code, code + 0x18);
        for (int i = 0; i < n1; i++) {
            uint32_t body = code + 0x18;
            fetch_range(q, r, body, body + 0x10);
            addref(q, K_READ, arr + window + (uint32_t)(i * stride), dsz);
            fetch_range(q, r, body + 0x10, body + 0x20);
            addref(q, K_READ, arr + 0x40000 + window + (uint32_t)(i * 8), 8);
            addref(q, K_WRITE, arr + 0x80000 + window + (uint32_t)(i * dsz), dsz);
            fetch_range(q, r, body + 0x20, body + 0x28);
        }
        window = (window + 0x200) & 0x3ffff;
        /* call: push, body, pop, return */
        uint32_t fn = code + 0x800 + 0x100 * rbelow(r, 3);
        fetch_range(q, r, code + 0x48, code + 0x50);
        for (int k = 0; k < 3; k++) { sp -= 8; addref(q, K_WRITE, sp, 8); }
        fetch_range(q, r, fn, fn + 0x30);
        int n2 = 4 + (int)rbelow(r, 12);
        for (int i = 0; i < n2; i++) {
            fetch_range(q, r, fn + 0x30, fn + 0x48);
            addref(q, K_READ, sp + 0x20 + 8u * (uint32_t)(i & 3), 8);
            if (rpct(r, 50)) addref(q, K_WRITE, sp - 8u * (uint32_t)(i & 3) - 8, 8);
        }
        for (int k = 0; k < 3; k++) { addref(q, K_READ, sp, 8); sp += 8; }
        fetch_range(q, r, fn + 0x48, fn + 0x58);
        fetch_range(q, r, code + 0x50, code + 0x60);
        /* pointer chase through a list scattered over 128 KB */
        int n3 = 10 + (int)rbelow(r, 30);
        for (int i = 0; i < n3; i++) {
            fetch_range(q, r, code + 0x60, code + 0x78);
            addref(q, K_READ, node, 8);
            if (rpct(r, 2)) addref(q, K_DEFER, node, 8);
            if (rpct(r, 20)) addref(q, K_READINV, node + 8, 8);
            node = lst + 16 * (uint32_t)(mix64(node) % 8192);
        }
        /* line fills and rare device I/O */
        if (rpct(r, 30)) addref(q, K_READ, (arr + 0x100000 + 32 * rbelow(r, 4096)), 32);
        if (rpct(r, 10)) addref(q, K_READ, (arr + 0x180000 + 16 * rbelow(r, 4096)), 16);
        if (rpct(r, 5)) addref(q, K_WB, (arr + 32 * rbelow(r, 8192)), 32);
        if (rpct(r, 4)) addref(q, rpct(r, 50) ? K_IOR : K_IOW, 0x3f8u + rbelow(r, 8), 1);
        if (rpct(r, 2)) addref(q, K_IOR, 0xcfcu, 4);
        fetch_range(q, r, code + 0x78, code + 0x88);
    }
}

static uint32_t bus_time(rng_t *r, int kind)
{
    static const uint32_t m8[] = { 112, 120, 128, 136, 144, 152 };
    int u = (int)rbelow(r, 100);
    switch (kind) {
    case K_WRITE: case K_DEFER:
        if (u < 80) return u < 45 ? 8 : 7;
        break;
    case K_IOR: case K_IOW:
        return 400 + rbelow(r, 1600);
    }
    if (u < 55) return m8[rbelow(r, 6)];
    if (u < 85) return 112 + rbelow(r, 42);
    if (u < 95) return 7 + rbelow(r, 2);
    return 160 + rbelow(r, 300);
}

static void gen_byu(const char *dir, const char *name, size_t nrec, uint64_t seed)
{
    static const uint8_t rq[] = { 0x00, 0x01, 0x03, 0x02, 0x20, 0x10, 0x11, 0x03 };
    static const uint8_t at[] = { 0, 3, 3, 1, 0, 0, 0, 3 };
    rng_t r = { seed };
    refs_t q[2] = { { 0 } };
    bus_program(&q[0], &r, 0, nrec, 0);
    bus_program(&q[1], &r, 1, nrec, 0);
    FILE *f = open_out(dir, name);
    size_t pos[2] = { 0, 0 };
    int p = 0;
    long left = 0;
    for (size_t n = 0; n < nrec; n++) {
        if (left-- <= 0) { /* the two processors take the bus in runs */
            p = (int)rbelow(&r, 100) < 55 ? 0 : 1;
            left = 1 + (long)rbelow(&r, 40);
        }
        ref_t e = q[p].v[pos[p]++];
        uint8_t b[12];
        uint32_t t = n == 0 ? 0xffffffffu : bus_time(&r, e.kind);
        uint8_t attr = at[e.kind];
        if (rpct(&r, 2)) attr = (uint8_t)rbelow(&r, 4);
        for (int i = 0; i < 4; i++) b[i] = (uint8_t)(e.addr >> (8 * i));
        b[4] = rq[e.kind];
        b[5] = e.size;
        b[6] = attr;
        b[7] = (uint8_t)p;
        for (int i = 0; i < 4; i++) b[8 + i] = (uint8_t)(t >> (8 * i));
        fwrite(b, 1, 12, f);
    }
    fwrite("\x00\x01", 1, 2, f); /* trailing partial record, as real traces have */
    close_out(f);
    free(q[0].v);
    free(q[1].v);
}

static void gen_pbus(const char *dir, const char *name, size_t nrec, uint64_t seed)
{
    rng_t r = { seed };
    refs_t q = { 0 };
    bus_program(&q, &r, 0, nrec, 1);
    FILE *f = open_out(dir, name);
    for (size_t n = 0; n < nrec; n++) {
        ref_t e = q.v[n];
        int size = e.size > 8 ? 8 : e.size; /* a burst shows as its first qword */
        uint32_t a = e.addr & ~7u;
        int off = (int)(e.addr & 7);
        if (off + size > 8) off = 8 - size;
        uint8_t be = (uint8_t)~(((1u << size) - 1) << off);
        int ty;
        switch (e.kind) {
        case K_FETCH: ty = rpct(&r, 4) ? 9 : 8; break;
        case K_READ: case K_READINV: case K_DEFER:
            ty = e.addr >= 0x02400000u && rpct(&r, 10) ? 13 : 12; break;
        case K_WRITE: ty = 15; break;
        case K_WB: ty = 14; break;
        case K_IOR: ty = 5; break;
        default: ty = 7; break;
        }
        int low = ty >= 12 && rpct(&r, 6) ? (rpct(&r, 70) ? 1 : 4) : 0;
        uint8_t b[6] = { (uint8_t)(a >> 24), (uint8_t)(a >> 16), (uint8_t)(a >> 8),
                         (uint8_t)a, be, (uint8_t)(ty << 4 | low) };
        fwrite(b, 1, 6, f);
    }
    close_out(f);
    free(q.v);
}

/* ======================================================================== */
/* UPenn micro-op text traces                                               */
/* ======================================================================== */

enum { R_AX = 0, R_CX = 1, R_DX = 2, R_BX = 3, R_SP = 4, R_BP = 5, R_SI = 6, R_DI = 7,
       R_R8 = 8, R_R12 = 12, R_R13 = 13, R_FLAGS = 44, R_TMP = 45 };
enum { CT_NONE, CT_JCC, CT_JMP, CT_CALL, CT_RET };

typedef struct { int s1, s2, d; char fl, ls; long imm; const char *name; } uop_t;
typedef struct insn {
    uint64_t pc;
    int len, n, ct;
    int bias, memk; /* taken per mille; address kind: 1 frame, 2 table, 3 heap */
    uint64_t mbase;
    const char *mac;
    uop_t u[3];
    struct insn *tgt;
} insn_t;

static insn_t icode[1024];
static int nicode;
static uint64_t ipc;

static insn_t *X(int len, const char *mac, int ct)
{
    insn_t *p = &icode[nicode++];
    memset(p, 0, sizeof *p);
    p->pc = ipc;
    p->len = len;
    p->mac = mac;
    p->ct = ct;
    ipc += (uint64_t)len;
    return p;
}
static insn_t *U(insn_t *p, int s1, int s2, int d, char fl, char ls, long imm, const char *nm)
{
    p->u[p->n++] = (uop_t){ s1, s2, d, fl, ls, imm, nm };
    return p;
}
/* common macro-op shapes */
static insn_t *ld(int len, const char *mac, int base, int d, long disp)
{ return U(X(len, mac, CT_NONE), -1, base, d, '-', 'L', disp, "LOAD"); }
static insn_t *st(int len, int src, int base, long disp)
{ return U(X(len, "MOV", CT_NONE), src, base, -1, '-', 'S', disp, "STORE"); }
static insn_t *rr(int len, const char *mac, const char *op, int a, int b, int d, char fl)
{ return U(X(len, mac, CT_NONE), a, b, d, fl, '-', 0, op); }
static insn_t *ri(int len, const char *mac, int a, int d, long imm, char fl)
{ return U(X(len, mac, CT_NONE), a, -1, d, fl, '-', imm, "ADD_IMM"); }
static insn_t *ldop(int len, const char *mac, int base, long disp, int reg, const char *op,
                    int d, char fl)
{
    insn_t *p = U(X(len, mac, CT_NONE), -1, base, R_TMP, '-', 'L', disp, "LOAD");
    return U(p, R_TMP, reg, d, fl, '-', 0, op);
}
static insn_t *jcc(int len) { return U(X(len, "J", CT_JCC), -1, -1, -1, 'R', '-', 0, "JMP_IMM"); }
static insn_t *jmp(int len) { return U(X(len, "JMP", CT_JMP), -1, -1, -1, '-', '-', 0, "JMP_IMM"); }
static insn_t *xcall(int len)
{
    insn_t *p = U(X(len, "CALL", CT_CALL), -1, R_SP, -1, '-', 'S', -8, "STORE");
    U(p, R_SP, -1, R_SP, '-', '-', -8, "ADD_IMM");
    return U(p, -1, -1, -1, '-', '-', 0, "JMP_IMM");
}
static insn_t *xret(void)
{
    insn_t *p = U(X(1, "RET", CT_RET), -1, R_SP, R_TMP, '-', 'L', 0, "LOAD");
    U(p, R_SP, -1, R_SP, '-', '-', 8, "ADD_IMM");
    return U(p, R_TMP, -1, -1, '-', '-', 0, "JMP_IND");
}
static insn_t *push(int reg)
{
    insn_t *p = U(X(1, "PUSH", CT_NONE), reg, R_SP, -1, '-', 'S', -8, "STORE");
    return U(p, R_SP, -1, R_SP, '-', '-', -8, "ADD_IMM");
}
static insn_t *pop(int reg)
{
    insn_t *p = U(X(1, "POP", CT_NONE), -1, R_SP, reg, '-', 'L', 0, "LOAD");
    return U(p, R_SP, -1, R_SP, '-', '-', 8, "ADD_IMM");
}
static insn_t *setcc(int d)
{
    insn_t *p = U(X(3, "SET", CT_NONE), -1, -1, d, '-', '-', 0, "ADD");
    return U(p, -1, -1, d, 'R', '-', 1, "ADD_IMM");
}

/* generated leaf-ish functions: straight-line code with forward skips */
#define NFN 12
static insn_t *fn_code[NFN][40];
static int fn_len[NFN], fn_jt[NFN][40];
static insn_t *disp_test[NFN], *disp_j[NFN], *disp_call[NFN];

static int rreg(rng_t *r)
{
    int x = (int)rbelow(r, 15);
    return x >= R_SP ? x + 1 : x;
}

static void build_fns(rng_t *r)
{
    static const char *alu[] = { "ADD", "SUB", "AND", "OR", "XOR" };
    static const int bias[] = { 30, 500, 900, 970, 120 };
    for (int f = 0; f < NFN; f++) {
        ipc = (ipc + 15) & ~15ull;
        insn_t **c = fn_code[f];
        int n = 0, body = 8 + (int)rbelow(r, 20);
        c[n++] = push(R_BP);
        c[n++] = rr(3, "MOV", "ADD", R_SP, -1, R_BP, '-');
        while (n < body + 2) {
            int k = (int)rbelow(r, 11), len = 3 + (int)rbelow(r, 5);
            long disp = -8 * (long)(1 + rbelow(r, 24));
            insn_t *p;
            if (k <= 1) {
                p = c[n++] = ld(len, rpct(r, 20) ? "MOVZX" : "MOV", R_BP, rreg(r), disp);
                p->memk = 1;
            } else if (k == 2) {
                p = c[n++] = st(len, rreg(r), R_BP, disp);
                p->memk = 1;
            } else if (k == 3) {
                const char *a = alu[rbelow(r, 5)];
                c[n++] = rr(len - 1, a, a, rreg(r), rreg(r), rreg(r), 'W');
            } else if (k == 4) {
                c[n++] = ri(len, rpct(r, 30) ? "LEA" : "ADD", rreg(r), rreg(r),
                            (long)rbelow(r, 64) - 16, 'W');
            } else if (k == 5) {
                p = c[n++] = ldop(len + 1, rpct(r, 50) ? "ADD" : "CMP", R_BX,
                                  8 * (long)rbelow(r, 64), rreg(r), "SUB", R_FLAGS, 'W');
                p->memk = 2;
                p->mbase = 0x6b0000 + 0x400ull * (uint64_t)f;
            } else if (k == 6) {
                p = c[n++] = ld(len, "MOV", R_SI, rreg(r), 8 * (long)rbelow(r, 4));
                p->memk = 3;
            } else if (body + 2 - n > 4) {
                U(X(len, "CMP", CT_NONE), rreg(r), -1, R_FLAGS, 'W', '-',
                  (long)rbelow(r, 256), "SUB");
                c[n] = &icode[nicode - 1];
                n++;
                p = c[n] = jcc(2);
                p->bias = bias[rbelow(r, 5)];
                fn_jt[f][n] = n + 2 + (int)rbelow(r, 3);
                n++;
            } else {
                c[n++] = rr(2, "TEST", "AND", rreg(r), rreg(r), R_FLAGS, 'W');
            }
        }
        c[n++] = pop(R_BP);
        c[n++] = xret();
        fn_len[f] = n;
        for (int i = 0; i < n; i++)
            if (c[i]->ct == CT_JCC) c[i]->tgt = c[fn_jt[f][i]];
    }
}

/* the static program */
static insn_t *m_top, *m_call, *m_back, *m_jexit, *m_restart;
static insn_t *e_entry, *e_loop, *e_jskip, *e_skip, *e_jloop, *e_call, *e_end;
static insn_t *h_entry, *h_loop, *h_jloop, *h_ret, *e_ret;
static insn_t *mbody[8], *ebody[16], *hbody[8];
static int nm, ne, nh;

static void build_x86(void)
{
    nicode = 0;
    ipc = 0x48d1a0;
    /* main: for (;;) { for (k = 0; k < n; k++) eval(board); } */
    m_restart = ri(5, "MOV", -1, R_BX, 0, '-');
    m_restart->u[0].name = "ADD";
    m_top = mbody[nm++] = ld(7, "MOV", R_BP, R_DI, -264);
    m_call = xcall(5);
    for (int f = 0; f < NFN; f++) { /* if (flags & bit f) fn_f(); */
        disp_test[f] = U(X(4, "TEST", CT_NONE), R_R13, -1, R_FLAGS, 'W', '-', 1L << f, "AND");
        disp_j[f] = jcc(2);
        disp_call[f] = xcall(5);
    }
    mbody[nm++] = ld(7, "MOV", R_BP, R_BX, -200);
    mbody[nm++] = ri(4, "ADD", R_BX, R_BX, 1, 'W');
    mbody[nm++] = st(7, R_BX, R_BP, -200);
    mbody[nm++] = ldop(7, "CMP", R_BP, -216, R_BX, "SUB", R_FLAGS, 'W');
    m_back = jcc(2);
    m_jexit = jmp(5);
    /* eval: scan the board (stride 4), look up a table, chase a piece list */
    ipc = 0x48d400;
    e_entry = push(R_BP);
    ebody[ne++] = push(R_BX);
    ebody[ne++] = rr(3, "XOR", "ADD", -1, -1, R_R12, '-');
    ebody[ne++] = rr(2, "XOR", "ADD", -1, -1, R_DX, '-');
    e_loop = ld(4, "MOVZX", R_DI, R_AX, 0);
    ebody[ne++] = rr(2, "TEST", "AND", R_AX, R_AX, R_FLAGS, 'W');
    e_jskip = jcc(2);
    ebody[ne++] = ldop(4, "ADD", R_AX, 0x6a1240, R_R12, "ADD", R_R12, 'W');
    ebody[ne++] = rr(3, "LEA", "ADD", R_R12, R_DX, R_R13, '-');
    e_skip = ri(4, "ADD", R_DX, R_DX, 1, 'W');
    ebody[ne++] = U(X(4, "CMP", CT_NONE), R_DX, -1, R_FLAGS, 'W', '-', 64, "SUB");
    e_jloop = jcc(2);
    e_call = xcall(5);
    ebody[ne++] = setcc(R_AX);
    ebody[ne++] = rr(3, "OR", "OR", R_AX, R_R12, R_AX, 'W');
    ebody[ne++] = pop(R_BX);
    e_end = pop(R_BP);
    e_ret = xret();
    /* helper: walk a linked list of pieces */
    ipc = 0x48d800;
    h_entry = ld(7, "MOV", -1, R_R8, 0);
    h_entry->u[0].s2 = R_SI;
    h_loop = ld(4, "MOV", R_R8, R_CX, 8);
    hbody[nh++] = rr(3, "ADD", "ADD", R_CX, R_AX, R_AX, 'W');
    hbody[nh++] = ld(4, "MOV", R_R8, R_R8, 0);
    hbody[nh++] = rr(3, "TEST", "AND", R_R8, R_R8, R_FLAGS, 'W');
    h_jloop = jcc(2);
    h_ret = xret();
    ipc = 0x48e000;
    rng_t fr = { 0x5eed };
    build_fns(&fr);
    for (int f = 0; f < NFN; f++) {
        disp_j[f]->tgt = f + 1 < NFN ? disp_test[f + 1] : mbody[1];
        disp_call[f]->tgt = fn_code[f][0];
    }
    m_back->tgt = m_top;
    m_jexit->tgt = m_restart;
    e_jskip->tgt = e_skip;
    e_jloop->tgt = e_loop;
    e_call->tgt = h_entry;
    m_call->tgt = e_entry;
    h_jloop->tgt = h_loop;
    for (int k = 0; k < nicode; k++)
        if (icode[k].tgt) icode[k].u[icode[k].n - 1].imm =
            (long)(icode[k].tgt->pc - (icode[k].pc + (uint64_t)icode[k].len));
}

typedef struct {
    FILE *f;
    int tabs;
    long lines, want;
    uint64_t expect; /* next PC, to check the walk follows the layout */
    uint64_t rsp;
} uw_t;

static void xe(uw_t *w, insn_t *p, uint64_t mem, int taken, uint64_t dyn_tgt)
{
    if (w->lines >= w->want) return;
    if (w->expect && p->pc != w->expect) {
        fprintf(stderr, "uop walk broke at %" PRIx64 "\n", p->pc);
        exit(1);
    }
    uint64_t ft = p->pc + (uint64_t)p->len;
    uint64_t tgt = p->ct == CT_RET ? dyn_tgt : p->tgt ? p->tgt->pc : 0;
    if (p->ct == CT_CALL || p->ct == CT_JMP || p->ct == CT_RET) taken = 1;
    for (int k = 0; k < p->n; k++) {
        const uop_t *u = &p->u[k];
        uint64_t a = 0;
        if (u->ls != '-') {
            if (p->ct == CT_CALL || !strcmp(p->mac, "PUSH")) a = w->rsp - 8;
            else if (p->ct == CT_RET || !strcmp(p->mac, "POP")) a = w->rsp;
            else a = mem;
        }
        int isbr = !strcmp(u->name, "JMP_IMM") || !strcmp(u->name, "JMP_IND");
        char br = isbr ? (taken ? 'T' : 'N') : '-';
        uint64_t t = isbr ? tgt : 0;
        if (w->tabs)
            fprintf(w->f, "%d\t%" PRIx64 "\t%d\t%d\t%d\t%c\t%c\t%c\t%ld\t%" PRIx64 "\t%" PRIx64
                    "\t%" PRIx64 "\t%s\t%s\n", k + 1, p->pc, u->s1, u->s2, u->d, u->fl, br,
                    u->ls, u->imm, a, ft, t, p->mac, u->name);
        else
            fprintf(w->f, "%d %" PRIx64 " %2d %2d %2d %c %c %c %9ld %12" PRIx64 " %12" PRIx64
                    " %12" PRIx64 " %-8s %s\n", k + 1, p->pc, u->s1, u->s2, u->d, u->fl, br,
                    u->ls, u->imm, a, ft, t, p->mac, u->name);
        w->lines++;
        if (!strcmp(u->name, "ADD_IMM") && u->d == R_SP) w->rsp += (uint64_t)u->imm;
    }
    w->expect = taken ? tgt : ft;
}

static void run_fn(uw_t *w, rng_t *r, int f, uint64_t ret)
{
    uint64_t fbp = 0;
    for (int i = 0; i < fn_len[f];) {
        insn_t *p = fn_code[f][i];
        if (p->ct == CT_RET) { xe(w, p, 0, 1, ret); break; }
        if (p->ct == CT_JCC) {
            int t = rpermil(r, p->bias);
            xe(w, p, 0, t, 0);
            i = t ? fn_jt[f][i] : i + 1;
            continue;
        }
        uint64_t a = 0;
        if (p->memk == 1) a = fbp + (uint64_t)p->u[0].imm;
        if (p->memk == 2) a = p->mbase + (uint64_t)p->u[0].imm + 8 * rbelow(r, 4);
        if (p->memk == 3) a = 0x1300000ull + 16 * rbelow(r, 1 << 16) + (uint64_t)p->u[0].imm;
        xe(w, p, a, 0, 0);
        if (i == 1) fbp = w->rsp;
        i++;
    }
}

static void gen_uop(const char *dir, const char *name, int tabs, long want, uint64_t seed)
{
    rng_t r = { seed };
    uw_t w = { open_out(dir, name), tabs, 0, want, 0, 0x7ffe7ff0d8ull };
    const uint64_t rbp = 0x7ffe7ff110ull, board0 = 0x12ff200ull, pieces = 0x1302000ull;
    uint8_t board[64];
    if (tabs)
        fputs("Uop\tPC\tSrc1\tSrc2\tDest\tFlags\tBranch\tLd/St\tImmediate\tMem. Address\t"
              "Fallthrough PC\tTarget PC\tMacro Opcode\tMicro Opcode\n", w.f);
    for (int i = 0; i < 64; i++) board[i] = rpct(&r, 40) ? (uint8_t)(1 + rbelow(&r, 12)) : 0;
    while (w.lines < want) {
        xe(&w, m_restart, 0, 0, 0);
        int n = 3 + (int)rbelow(&r, 6);
        for (int k = 0; k < n; k++) {
            uint64_t bptr = board0 + 0x100ull * rbelow(&r, 4);
            xe(&w, m_top, rbp - 264, 0, 0);
            uint64_t ret_main = m_call->pc + (uint64_t)m_call->len;
            xe(&w, m_call, 0, 1, 0);
            /* eval */
            xe(&w, e_entry, 0, 0, 0);
            for (int i = 0; i < 3; i++) xe(&w, ebody[i], 0, 0, 0);
            int sq0 = (int)rbelow(&r, 48), sqn = sq0 + 8 + (int)rbelow(&r, 16);
            for (int sq = sq0; sq < sqn; sq++) {
                if (rpct(&r, 25)) board[rbelow(&r, 64)] = (uint8_t)rbelow(&r, 13);
                int v = board[sq];
                xe(&w, e_loop, bptr + 4ull * (uint64_t)sq, 0, 0);
                xe(&w, ebody[3], 0, 0, 0);
                xe(&w, e_jskip, 0, v == 0, 0);
                if (v) {
                    xe(&w, ebody[4], 0x6a1240ull + 0x200ull * (uint64_t)v + 8ull * (uint64_t)sq, 0, 0);
                    xe(&w, ebody[5], 0, 0, 0);
                }
                xe(&w, e_skip, 0, 0, 0);
                xe(&w, ebody[6], 0, 0, 0);
                xe(&w, e_jloop, 0, sq < sqn - 1, 0);
            }
            uint64_t ret_eval = e_call->pc + (uint64_t)e_call->len;
            xe(&w, e_call, 0, 1, 0);
            /* helper: list of 3-9 pieces scattered in the heap */
            uint64_t node = pieces + 0x40ull * rbelow(&r, 64);
            xe(&w, h_entry, w.rsp + 8, 0, 0);
            int len = 3 + (int)rbelow(&r, 7);
            for (int i = 0; i < len; i++) {
                xe(&w, h_loop, node + 8, 0, 0);
                xe(&w, hbody[0], 0, 0, 0);
                uint64_t nx = pieces + 0x40ull * (mix64(node + (uint64_t)i) % 64);
                xe(&w, hbody[1], node, 0, 0);
                xe(&w, hbody[2], 0, 0, 0);
                xe(&w, h_jloop, 0, i < len - 1, 0);
                node = nx;
            }
            xe(&w, h_ret, 0, 1, ret_eval);
            for (int i = 7; i < 10; i++) xe(&w, ebody[i], 0, 0, 0);
            xe(&w, e_end, 0, 0, 0);
            xe(&w, e_ret, 0, 1, ret_main);
            /* a random subset of the helper functions, as a move generator might */
            uint32_t mask = (uint32_t)rnext(&r) & ((1u << NFN) - 1);
            for (int f = 0; f < NFN; f++) {
                xe(&w, disp_test[f], 0, 0, 0);
                int skip = !(mask >> f & 1);
                xe(&w, disp_j[f], 0, skip, 0);
                if (!skip) {
                    xe(&w, disp_call[f], 0, 1, 0);
                    run_fn(&w, &r, f, disp_call[f]->pc + (uint64_t)disp_call[f]->len);
                }
            }
            xe(&w, mbody[1], rbp - 200, 0, 0);
            xe(&w, mbody[2], 0, 0, 0);
            xe(&w, mbody[3], rbp - 200, 0, 0);
            xe(&w, mbody[4], rbp - 216, 0, 0);
            xe(&w, m_back, 0, k < n - 1, 0);
        }
        xe(&w, m_jexit, 0, 1, 0);
    }
    close_out(w.f);
}

/* ======================================================================== */
/* ChampSim (tests/champsim_gen.h)                                          */
/* ======================================================================== */

static void gen_champsim(const char *dir, const char *name, int rs, uint64_t nrec, uint64_t seed, size_t tail)
{
    csg g;
    csg_run(&g, CSG_MIX, rs, nrec, seed);
    FILE *f = open_out(dir, name);
    fwrite(g.p, 1, g.n, f);
    /* a partial last record: the first bytes of the one before */
    if (tail && g.n >= (size_t)rs) fwrite(g.p + g.n - (size_t)rs, 1, tail, f);
    close_out(f);
    free(g.p);
}

/* drmemtrace: a core-sharded file of six threads (tests/drmemtrace_gen.h). */
static void gen_drmemtrace(const char *dir, const char *name, size_t bytes, uint64_t seed)
{
    drg g;
    drg_run(&g, DRG_CORE, bytes, seed);
    FILE *f = open_out(dir, name);
    if (fwrite(g.p, 1, g.n, f) != g.n) { perror("write"); exit(1); }
    close_out(f);
    free(g.p);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    const char *d = argv[1];
    assemble();
    build_x86();
    gen_rst(d, "loops-4cpu.rst", 0, 4, 40000, 0x7e57ab1e0001ull, "loops, lists, calls");
    gen_rst(d, "blaze-like-1cpu-le.rst", 1, 1, 20000, 0x7e57ab1e0002ull, "1 cpu, little-endian");
    gen_byu(d, "bus-2cpu.byu", 100000, 0x7e57ab1e0003ull);
    gen_pbus(d, "bus-1cpu.pbus", 100000, 0x7e57ab1e0004ull);
    gen_uop(d, "sjeng-like.trace", 0, 15000, 0x7e57ab1e0005ull);
    gen_uop(d, "tabs-variant.trace", 1, 3000, 0x7e57ab1e0006ull);
    gen_champsim(d, "mix.champsimtrace", 64, 20000, 0x7e57ab1e0007ull, 0);
    gen_champsim(d, "mix-cloudsuite.champsimtrace", 96, 8000, 0x7e57ab1e0008ull, 7);
    gen_drmemtrace(d, "core-6thr.drmemtrace", 720000, 0x7e57ab1e0009ull);
    return 0;
}
