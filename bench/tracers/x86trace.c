/* x86trace.c - a QEMU TCG plugin for qemu-x86_64 that records the instructions a real program
 * executes as a ChampSim `input_instr` trace (format=champsim, 64-byte records) or as UPenn
 * micro-op text (format=uop, one line per micro-op).  Capstone decodes each instruction once, at
 * translation; QEMU reports each executed instruction and each of its memory accesses; a record
 * is written when the next instruction starts, so that branch outcomes are known.
 *   qemu-x86_64 -plugin ./x86trace.so,format=champsim,out=T,skip=N,count=M PROGRAM ARGS
 * Only the first guest thread (vCPU 0) is recorded, and a forked child is not. */
#include <capstone/capstone.h>
#include <ctype.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qemu_api.h"
#include "tracer_common.h"

TRACER_EXPORT int qemu_plugin_version = 1;

/* Pin's register numbers as ChampSim traces carry them; the simulator interprets SP, FLAGS, IP. */
enum { CS_RDI = 3, CS_RSP = 6, CS_FLAGS = 25, CS_IP = 26, CS_VEC = 32, CS_X87 = 48, CS_FPSW = 56,
       CS_MASK = 57, CS_OTHER = 65 };
/* uop text numbers: x86 encoding order for the integer registers, then vectors, x87, temps. */
enum { UOP_NONE = -1, UOP_RSP = 4, UOP_RSI = 6, UOP_RDI = 7, UOP_VEC = 16, UOP_X87 = 32,
       UOP_TMP_ALU = 44, UOP_TMP_LOAD = 45 };

enum kind { K_PLAIN, K_JCC, K_JMP, K_JMP_IND, K_CALL, K_CALL_IND, K_RET, K_OTHER_BRANCH };

/* What one static instruction is, decoded once. */
struct sinsn {
    uint64_t ip;
    uint8_t len, kind;
    uint8_t nsrc, ndst, src[4], dst[2];       /* ChampSim register lists */
    uint64_t target;                          /* direct branch target, else 0 */
    /* for uop text */
    char macro[32], micro[16];
    int8_t usrc[2], udst;                     /* registers of the compute micro-op */
    int8_t mbase, mindex;                     /* registers forming the memory address */
    char flags;                               /* 'R', 'W' or '-' */
    int64_t imm, disp;
    uint8_t pure_move;                        /* a move: no compute micro-op beside the load/store */
    uint8_t alu;                              /* has a compute micro-op */
    uint8_t atomic;                           /* xchg with memory, cmpxchg, xadd or lock prefix */
    uint8_t area_align;                       /* xsave/fxsave family: alignment of its area */
    int8_t branch_reg;                        /* register an indirect branch reads, or -1 */
};

struct access { uint64_t addr; uint32_t size; uint8_t store; };
#define MAX_ACC 64

static struct tracer_opts opt = { .format = "champsim" };
static int want_uop;
static csh cs;
static pthread_mutex_t cs_lock = PTHREAD_MUTEX_INITIALIZER;
static int8_t cs_map[X86_REG_ENDING], uop_map[X86_REG_ENDING];

static FILE *code_file;                      /* code=FILE: "ip hexbytes" per translation */
static const struct sinsn *pend;              /* the instruction executing now */
static struct access acc[MAX_ACC];
static int nacc;
static uint64_t executed;                     /* instructions started on vCPU 0 */
static uint64_t written;
static int done;

/* ---- register numbering ---- */

static int gpr_index(const char *n)          /* 0..15 in encoding order, or -1 */
{
    static const char *fam[8][5] = {
        { "rax", "eax", "ax", "al", "ah" }, { "rcx", "ecx", "cx", "cl", "ch" },
        { "rdx", "edx", "dx", "dl", "dh" }, { "rbx", "ebx", "bx", "bl", "bh" },
        { "rsp", "esp", "sp", "spl", "" },  { "rbp", "ebp", "bp", "bpl", "" },
        { "rsi", "esi", "si", "sil", "" },  { "rdi", "edi", "di", "dil", "" },
    };
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 5; j++)
            if (fam[i][j][0] && strcmp(n, fam[i][j]) == 0)
                return i;
    if (n[0] == 'r' && isdigit((unsigned char)n[1])) {
        int k = atoi(n + 1);
        if (k >= 8 && k <= 15)
            return k;
    }
    return -1;
}

static void build_reg_maps(void)
{
    /* Pin: RDI RSI RBP RSP RBX RDX RCX RAX R8..R15 = 3..18. */
    static const int8_t pin_of_gpr[16] = { 10, 9, 8, 7, 6, 5, 4, 3, 11, 12, 13, 14, 15, 16, 17, 18 };
    static const char *segs[6] = { "cs", "ss", "ds", "es", "fs", "gs" };
    for (int r = 1; r < X86_REG_ENDING; r++) {
        const char *n = cs_reg_name(cs, (unsigned)r);
        int8_t c = CS_OTHER, u = UOP_NONE;
        int g, k;
        if (!n) {
            c = 0;
        } else if ((g = gpr_index(n)) >= 0) {
            c = pin_of_gpr[g];
            u = (int8_t)g;
        } else if (!strcmp(n, "rip") || !strcmp(n, "eip") || !strcmp(n, "ip")) {
            c = CS_IP;
        } else if (!strcmp(n, "flags") || !strcmp(n, "eflags") || !strcmp(n, "rflags")) {
            c = CS_FLAGS;
        } else if (!strcmp(n, "riz") || !strcmp(n, "eiz")) {
            c = 0;
        } else if (!strcmp(n, "fpsw")) {
            c = CS_FPSW;
        } else if ((n[1] == 'm' && n[2] == 'm' && (n[0] == 'x' || n[0] == 'y' || n[0] == 'z'))) {
            k = atoi(n + 3);
            c = (int8_t)(CS_VEC + k % 16);
            u = (int8_t)(UOP_VEC + k % 16);
        } else if (sscanf(n, "st(%d)", &k) == 1 || sscanf(n, "fp%d", &k) == 1 ||
                   (n[0] == 'm' && n[1] == 'm' && sscanf(n + 2, "%d", &k) == 1)) {
            c = (int8_t)(CS_X87 + k % 8);
            u = (int8_t)(UOP_X87 + k % 8);
        } else if (n[0] == 'k' && isdigit((unsigned char)n[1])) {
            c = (int8_t)(CS_MASK + atoi(n + 1) % 8);
        } else {
            for (k = 0; k < 6; k++)
                if (!strcmp(n, segs[k]))
                    c = (int8_t)(19 + k);
        }
        cs_map[r] = c;
        uop_map[r] = u;
    }
}

static void add_reg(uint8_t *list, uint8_t *n, int max, int id)
{
    if (id <= 0)
        return;
    for (int i = 0; i < *n; i++)
        if (list[i] == id)
            return;
    if (*n < max)
        list[(*n)++] = (uint8_t)id;
}

/* ---- decoding, once per translated instruction ---- */

/* 1 for a string move/store/load, 2 for a string compare, else 0.  MOVSD and CMPSD name both the
 * string forms and SSE instructions; the string forms have no register operand. */
static int string_op(const cs_insn *in)
{
    const cs_x86 *x = &in->detail->x86;
    int regs = 0;
    for (int i = 0; i < x->op_count; i++)
        regs |= x->operands[i].type == X86_OP_REG;
    switch (in->id) {
    case X86_INS_MOVSD:
        return regs ? 0 : 1;
    case X86_INS_CMPSD:
        return regs ? 0 : 2;
    case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSQ:
    case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
    case X86_INS_LODSB: case X86_INS_LODSW: case X86_INS_LODSD: case X86_INS_LODSQ:
        return 1;
    case X86_INS_CMPSB: case X86_INS_CMPSW: case X86_INS_CMPSQ:
    case X86_INS_SCASB: case X86_INS_SCASW: case X86_INS_SCASD: case X86_INS_SCASQ:
        return 2;
    default:
        return 0;
    }
}

static const char *alu_name(const cs_insn *in, int vec)
{
    switch (in->id) {
    case X86_INS_ADD: case X86_INS_ADC: case X86_INS_INC: case X86_INS_XADD: return "ADD";
    case X86_INS_SUB: case X86_INS_SBB: case X86_INS_DEC: case X86_INS_NEG: case X86_INS_CMP:
    case X86_INS_CMPXCHG: return "SUB";
    case X86_INS_AND: case X86_INS_TEST: case X86_INS_ANDN: return "AND";
    case X86_INS_OR: return "OR";
    case X86_INS_XOR: return "XOR";
    case X86_INS_NOT: return "NOT";
    case X86_INS_SHL: case X86_INS_SAL: case X86_INS_SHLX: case X86_INS_SHLD: return "SHL";
    case X86_INS_SHR: case X86_INS_SHRX: case X86_INS_SHRD: return "SHR";
    case X86_INS_SAR: case X86_INS_SARX: return "SAR";
    case X86_INS_ROL: case X86_INS_ROR: case X86_INS_RCL: case X86_INS_RCR: return "ROT";
    case X86_INS_IMUL: case X86_INS_MUL: case X86_INS_MULX: return "MUL";
    case X86_INS_DIV: case X86_INS_IDIV: return "DIV";
    case X86_INS_LEA: return "LEA";
    case X86_INS_MOVZX: return "ZEXT";
    case X86_INS_MOVSX: case X86_INS_MOVSXD: case X86_INS_CDQE: case X86_INS_CDQ:
    case X86_INS_CQO: case X86_INS_CWDE: return "SEXT";
    case X86_INS_XCHG: return "XCHG";
    case X86_INS_BSF: case X86_INS_BSR: case X86_INS_TZCNT: case X86_INS_LZCNT:
    case X86_INS_POPCNT: return "BITCNT";
    case X86_INS_BT: case X86_INS_BTS: case X86_INS_BTR: case X86_INS_BTC: return "BT";
    case X86_INS_NOP: case X86_INS_ENDBR64: case X86_INS_ENDBR32: case X86_INS_PAUSE: return "NOP";
    default:
        break;
    }
    if (in->id >= X86_INS_CMOVA && in->id <= X86_INS_CMOVS)
        return "CMOV";
    if (!strncmp(in->mnemonic, "set", 3))
        return "SET";
    if (!strncmp(in->mnemonic, "mov", 3))
        return vec ? "FP_MOV" : "ADD";          /* a register move, as the course's traces show */
    return vec ? "FP" : "ALU";
}

static void decode(struct sinsn *s, const uint8_t *code, size_t len, uint64_t ip)
{
    cs_insn *in = NULL;
    memset(s, 0, sizeof *s);
    s->ip = ip;
    s->len = (uint8_t)len;
    s->usrc[0] = s->usrc[1] = s->udst = s->mbase = s->mindex = s->branch_reg = UOP_NONE;
    s->flags = '-';
    pthread_mutex_lock(&cs_lock);
    size_t n = cs_disasm(cs, code, len, ip, 1, &in);
    if (n != 1) {
        pthread_mutex_unlock(&cs_lock);
        snprintf(s->macro, sizeof s->macro, "UNKNOWN");
        snprintf(s->micro, sizeof s->micro, "ALU");
        s->alu = 1;
        return;
    }
    const cs_x86 *x = &in->detail->x86;
    cs_regs rr, ww;
    uint8_t nr = 0, nw = 0;
    cs_regs_access(cs, in, rr, &nr, ww, &nw);
    int reads_flags = 0, writes_flags = 0, vec = 0;
    for (int i = 0; i < nr; i++)
        reads_flags |= cs_map[rr[i]] == CS_FLAGS;
    for (int i = 0; i < nw; i++)
        writes_flags |= cs_map[ww[i]] == CS_FLAGS;

    /* operands: memory address registers, immediate, explicit register roles */
    const cs_x86_op *mem = NULL;
    int has_imm = 0, nusrc = 0;
    for (int i = 0; i < x->op_count; i++) {
        const cs_x86_op *op = &x->operands[i];
        if (op->type == X86_OP_MEM && !mem) {
            mem = op;
        } else if (op->type == X86_OP_IMM && !has_imm) {
            has_imm = 1;
            s->imm = op->imm;
        } else if (op->type == X86_OP_REG) {
            int8_t u = uop_map[op->reg];
            vec |= u >= UOP_VEC;
            if ((op->access & CS_AC_WRITE) && s->udst == UOP_NONE)
                s->udst = u;
            if ((op->access & CS_AC_READ) && nusrc < 2 && u != UOP_NONE)
                s->usrc[nusrc++] = u;
        }
    }
    if (mem) {
        s->mbase = mem->mem.base == X86_REG_INVALID ? UOP_NONE : uop_map[mem->mem.base];
        s->mindex = mem->mem.index == X86_REG_INVALID ? UOP_NONE : uop_map[mem->mem.index];
        s->disp = mem->mem.disp;
    }

    s->atomic = mem && (x->prefix[0] == X86_PREFIX_LOCK || in->id == X86_INS_XCHG ||
                        in->id == X86_INS_CMPXCHG || in->id == X86_INS_XADD);
    if (!strncmp(in->mnemonic, "xsave", 5) || !strncmp(in->mnemonic, "xrstor", 6))
        s->area_align = 64;
    else if (!strncmp(in->mnemonic, "fxsave", 6) || !strncmp(in->mnemonic, "fxrstor", 7))
        s->area_align = 16;
    int jump = cs_insn_group(cs, in, CS_GRP_JUMP), call = cs_insn_group(cs, in, CS_GRP_CALL);
    int ret = cs_insn_group(cs, in, CS_GRP_RET);
    int direct = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;
    if (call)
        s->kind = direct ? K_CALL : K_CALL_IND;
    else if (ret)
        s->kind = in->id == X86_INS_RET ? K_RET : K_OTHER_BRANCH;
    else if (jump && (in->id == X86_INS_JMP || in->id == X86_INS_LJMP))
        s->kind = direct ? K_JMP : K_JMP_IND;
    else if (jump)
        s->kind = K_JCC;
    if (direct && s->kind != K_PLAIN)
        s->target = (uint64_t)x->operands[0].imm;

    /* ChampSim register lists, with the implicit operands Pin lists for control transfers */
    switch (s->kind) {
    case K_PLAIN:
    case K_OTHER_BRANCH:
        for (int i = 0; i < nr; i++)
            add_reg(s->src, &s->nsrc, 4, cs_map[rr[i]]);
        for (int i = 0; i < nw; i++)
            add_reg(s->dst, &s->ndst, 2, cs_map[ww[i]]);
        if (s->kind == K_OTHER_BRANCH) {
            s->ndst = s->ndst > 1 ? 1 : s->ndst;
            add_reg(s->dst, &s->ndst, 2, CS_IP);
        }
        break;
    case K_JCC:                               /* reads FLAGS (or RCX for jrcxz/loop) and IP */
        for (int i = 0; i < nr; i++)
            if (cs_map[rr[i]] != CS_IP)
                add_reg(s->src, &s->nsrc, 3, cs_map[rr[i]]);
        add_reg(s->src, &s->nsrc, 4, CS_IP);
        add_reg(s->dst, &s->ndst, 2, CS_IP);
        for (int i = 0; i < nw; i++)          /* loop also writes RCX */
            if (cs_map[ww[i]] != CS_FLAGS)
                add_reg(s->dst, &s->ndst, 2, cs_map[ww[i]]);
        break;
    case K_CALL:
    case K_CALL_IND:
        add_reg(s->src, &s->nsrc, 4, CS_IP);
        add_reg(s->src, &s->nsrc, 4, CS_RSP);
        add_reg(s->dst, &s->ndst, 2, CS_IP);
        add_reg(s->dst, &s->ndst, 2, CS_RSP);
        /* fall through: the target operand's registers */
        __attribute__((fallthrough));
    case K_JMP:
    case K_JMP_IND:
        if (s->kind == K_JMP || s->kind == K_JMP_IND)
            add_reg(s->dst, &s->ndst, 2, CS_IP);
        if (!direct && x->op_count >= 1) {
            const cs_x86_op *op = &x->operands[0];
            if (op->type == X86_OP_REG) {
                add_reg(s->src, &s->nsrc, 4, cs_map[op->reg]);
                s->branch_reg = uop_map[op->reg];
            } else if (op->type == X86_OP_MEM) {
                if (op->mem.base != X86_REG_INVALID)
                    add_reg(s->src, &s->nsrc, 4, cs_map[op->mem.base]);
                if (op->mem.index != X86_REG_INVALID)
                    add_reg(s->src, &s->nsrc, 4, cs_map[op->mem.index]);
                s->branch_reg = UOP_TMP_LOAD;
            }
        }
        break;
    case K_RET:
        add_reg(s->src, &s->nsrc, 4, CS_RSP);
        add_reg(s->dst, &s->ndst, 2, CS_IP);
        add_reg(s->dst, &s->ndst, 2, CS_RSP);
        s->branch_reg = UOP_TMP_LOAD;
        break;
    }

    /* uop text: names and micro-op shape */
    if (s->kind == K_JCC)
        snprintf(s->macro, sizeof s->macro, "J");
    else
        snprintf(s->macro, sizeof s->macro, "%.31s", in->mnemonic);
    for (char *p = s->macro; *p; p++)
        *p = *p == ' ' ? '_' : (char)toupper((unsigned char)*p);
    s->flags = writes_flags ? 'W' : reads_flags ? 'R' : '-';
    if (s->kind != K_PLAIN) {
        s->flags = reads_flags ? 'R' : '-';
        snprintf(s->micro, sizeof s->micro, "%s", s->target || s->kind == K_JCC ? "JMP_IMM" : "JMP_REG");
    } else if (string_op(in)) {            /* addresses come from rsi/rdi, see write_uops */
        int cmp = string_op(in) == 2;
        s->mbase = UOP_NONE;
        s->alu = cmp;
        s->pure_move = !cmp;
        snprintf(s->micro, sizeof s->micro, cmp ? "SUB" : "ALU");
    } else if (in->id == X86_INS_PUSH || in->id == X86_INS_POP) {
        s->pure_move = 1;
        s->mbase = mem ? s->mbase : UOP_RSP;
        if (in->id == X86_INS_POP && s->udst == UOP_NONE && x->op_count == 1 &&
            x->operands[0].type == X86_OP_REG)
            s->udst = uop_map[x->operands[0].reg];
    } else {
        const char *name = alu_name(in, vec);
        int movelike = !strcmp(name, "ADD") && !strncmp(in->mnemonic, "mov", 3);
        movelike |= !strcmp(name, "FP_MOV") || in->id == X86_INS_MOVZX || in->id == X86_INS_MOVSX ||
                    in->id == X86_INS_MOVSXD;
        s->pure_move = movelike && mem != NULL;
        s->alu = !s->pure_move;
        snprintf(s->micro, sizeof s->micro, "%s%s", name, has_imm && strcmp(name, "NOP") ? "_IMM" : "");
        if (in->id == X86_INS_LEA) {          /* address arithmetic, no memory access */
            s->usrc[0] = s->mbase;
            s->usrc[1] = s->mindex;
            s->imm = s->disp;
        }
        if (s->udst == UOP_NONE && writes_flags)
            s->udst = UOP_TMP_ALU;
    }
    cs_free(in, 1);
    pthread_mutex_unlock(&cs_lock);
}

/* ---- writing records ---- */

/* Memory accesses of one execution, merged: QEMU may split one operand into pieces
 * (16-byte vectors, xsave areas), Pin lists one address per memory operand.  QEMU 7.2 reports an
 * atomic read-modify-write as one access that is a store, so for those a store is a load too.
 * The xsave family touches its save area out of order: its one operand is the area's start, the
 * lowest address touched rounded down to the area's alignment. */
static int merge(const struct sinsn *s, int store, struct access *out, int max)
{
    int n = 0;
    if (s->area_align) {
        for (int i = 0; i < nacc; i++) {
            if (acc[i].store != store)
                continue;
            if (n == 0 || acc[i].addr < out[0].addr)
                out[0] = acc[i];
            n = 1;
        }
        if (n)
            out[0].addr &= ~(uint64_t)(s->area_align - 1);
        return n;
    }
    for (int i = 0; i < nacc; i++) {
        if (acc[i].store != store && !(s->atomic && acc[i].store))
            continue;
        if (n > 0 && out[n - 1].addr + out[n - 1].size == acc[i].addr) {
            out[n - 1].size += acc[i].size;
            continue;
        }
        int dup = 0;
        for (int j = 0; j < n; j++)
            dup |= out[j].addr == acc[i].addr;
        if (!dup && n < max)
            out[n++] = acc[i];
    }
    return n;
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int branch_taken(const struct sinsn *s, uint64_t next)
{
    return s->kind == K_JCC || s->kind == K_OTHER_BRANCH ? next != s->ip + s->len : s->kind != K_PLAIN;
}

static void write_champsim(const struct sinsn *s, uint64_t next)
{
    uint8_t r[64] = { 0 };
    struct access rd[4], wr[2];
    put64(r, s->ip);
    r[8] = s->kind != K_PLAIN;
    r[9] = (uint8_t)branch_taken(s, next);
    memcpy(r + 10, s->dst, s->ndst);
    memcpy(r + 12, s->src, s->nsrc);
    int nw = merge(s, 1, wr, 2), nr = merge(s, 0, rd, 4);
    for (int i = 0; i < nw; i++)
        put64(r + 16 + 8 * i, wr[i].addr);
    for (int i = 0; i < nr; i++)
        put64(r + 32 + 8 * i, rd[i].addr);
    tracer_write(r, sizeof r);
}

static void uop_line(int *k, const struct sinsn *s, int src1, int src2, int dst, char flags,
                     char br, char ls, int64_t imm, uint64_t addr, uint64_t target, const char *micro)
{
    char line[256];
    int n = snprintf(line, sizeof line, "%d %" PRIx64 " %2d %2d %2d %c %c %c %9" PRId64 " %12" PRIx64
                     " %12" PRIx64 " %12" PRIx64 " %-8s %s\n", ++*k, s->ip, src1, src2, dst, flags,
                     br, ls, imm, addr, s->ip + s->len, target, s->macro, micro);
    tracer_write(line, (size_t)n);
}

static void write_uops(const struct sinsn *s, uint64_t next)
{
    struct access rd[8], wr[8];
    int nr = merge(s, 0, rd, 8), nw = merge(s, 1, wr, 8), k = 0;
    int lone_load = s->pure_move && nw == 0;
    int src_base = s->mbase, wbase = s->mbase;
    if (s->kind == K_PLAIN && s->mbase == UOP_NONE && s->pure_move) {
        src_base = UOP_RSI;                   /* string moves: rsi to rdi */
        wbase = UOP_RDI;
    }
    for (int i = 0; i < nr; i++) {
        int dst = lone_load && i == nr - 1 && s->udst != UOP_NONE ? s->udst : UOP_TMP_LOAD;
        uop_line(&k, s, src_base == UOP_NONE && s->kind != K_PLAIN ? UOP_RSP : src_base, s->mindex,
                 dst, '-', '-', 'L', s->disp, rd[i].addr, 0, "LOAD");
    }
    if (s->alu && s->kind == K_PLAIN) {
        int a = s->usrc[0], b = s->usrc[1];
        if (nr > 0 && strcmp(s->micro, "LEA")) {
            if (a == UOP_NONE)
                a = UOP_TMP_LOAD;
            else if (b == UOP_NONE)
                b = UOP_TMP_LOAD;
        }
        int dst = nw > 0 && s->udst == UOP_NONE ? UOP_TMP_ALU : s->udst;
        uop_line(&k, s, a, b, dst, s->flags, '-', '-', s->imm, 0, 0, s->micro);
    }
    for (int i = 0; i < nw; i++) {
        int data = s->alu ? (s->udst != UOP_NONE ? s->udst : UOP_TMP_ALU) : s->usrc[0];
        if (nr > 0 && !s->alu)
            data = UOP_TMP_LOAD;
        uop_line(&k, s, wbase == UOP_NONE ? UOP_RSP : wbase, data, UOP_NONE, '-', '-', 'S',
                 s->disp, wr[i].addr, 0, "STORE");
    }
    if (s->kind != K_PLAIN) {
        int taken = branch_taken(s, next);
        uint64_t target = s->target ? s->target : taken ? next : 0;
        int64_t imm = s->target ? (int64_t)(s->target - (s->ip + s->len)) : 0;
        uop_line(&k, s, s->target ? UOP_NONE : s->branch_reg, UOP_NONE, UOP_NONE, s->flags,
                 taken ? 'T' : 'N', '-', imm, 0, target, s->micro);
    }
    if (k == 0)                               /* nothing else to say: one plain micro-op */
        uop_line(&k, s, s->usrc[0], s->usrc[1], s->udst, s->flags, '-', '-', s->imm, 0, 0, s->micro);
}

static void finish(void)
{
    if (done)
        return;
    done = 1;
    if (tracer_forked)
        return;
    tracer_close();
    if (code_file)
        fclose(code_file);
    char msg[128];
    snprintf(msg, sizeof msg, "x86trace: %" PRIu64 " instructions recorded (%" PRIu64 " skipped)\n",
             written, opt.skip);
    fputs(msg, stderr);
}

/* ---- QEMU callbacks ---- */

static void on_exec(unsigned int vcpu, void *ud)
{
    const struct sinsn *s = ud;
    if (vcpu != 0 || done || tracer_forked)
        return;
    if (pend && executed > opt.skip) {        /* pend is instruction number executed - 1 */
        if (want_uop)
            write_uops(pend, s->ip);
        else
            write_champsim(pend, s->ip);
        if (++written == opt.count) {
            finish();
            _exit(0);                         /* the window is written: no need to run on */
        }
    }
    pend = s;
    nacc = 0;
    executed++;
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud)
{
    (void)ud;
    if (vcpu != 0 || nacc >= MAX_ACC)
        return;
    acc[nacc].addr = vaddr;
    acc[nacc].size = 1u << qemu_plugin_mem_size_shift(info);
    acc[nacc].store = qemu_plugin_mem_is_store(info);
    nacc++;
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        struct sinsn *s = malloc(sizeof *s);  /* kept for the life of the translation */
        if (!s)
            abort();
        const uint8_t *code = qemu_plugin_insn_data(insn);
        size_t len = qemu_plugin_insn_size(insn);
        decode(s, code, len, qemu_plugin_insn_vaddr(insn));
        if (code_file && !tracer_forked) {
            fprintf(code_file, "%" PRIx64 " ", s->ip);
            for (size_t k = 0; k < len; k++)
                fprintf(code_file, "%02x", code[k]);
            fputc('\n', code_file);
        }
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_exec, QEMU_PLUGIN_CB_NO_REGS, s);
        qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
                                         NULL);
    }
}

static void on_atexit(qemu_plugin_id_t id, void *ud)
{
    (void)id;
    (void)ud;
    /* The last instruction's successor is unknown: a branch there is written as not taken. */
    if (pend && executed > opt.skip && !done && !tracer_forked) {
        uint64_t next = pend->ip + pend->len;
        if (want_uop)
            write_uops(pend, next);
        else
            write_champsim(pend, next);
        written++;
    }
    finish();
}

int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    if (strcmp(info->target_name, "x86_64") != 0) {
        fprintf(stderr, "x86trace: for qemu-x86_64, not %s\n", info->target_name);
        return -1;
    }
    if (tracer_parse_args(&opt, argc, argv, "x86trace") != 0)
        return -1;
    if (strcmp(opt.format, "champsim") && strcmp(opt.format, "uop")) {
        fprintf(stderr, "x86trace: format=champsim or format=uop\n");
        return -1;
    }
    want_uop = !strcmp(opt.format, "uop");
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK ||
        cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK) {
        fprintf(stderr, "x86trace: capstone cannot open x86-64\n");
        return -1;
    }
    build_reg_maps();
    if (tracer_open(&opt, "x86trace") != 0)
        return -1;
    if (opt.code && !(code_file = fopen(opt.code, "w"))) {
        fprintf(stderr, "x86trace: cannot write %s\n", opt.code);
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
    qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
    return 0;
}
