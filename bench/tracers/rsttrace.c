/* rsttrace.c - a QEMU TCG plugin for qemu-sparc64 (user mode) that records the instructions a
 * real SPARC V9 program executes as an RST 2.13 trace: 24-byte big-endian records, an INSTR per
 * executed instruction (pc, instruction word, ea_va of loads, stores and CTIs), an INSTR with
 * an=1 for each annulled delay slot, and a PAVADIFF before any INSTR whose page mapping changed.
 *   qemu-sparc64 -plugin ./rsttrace.so,out=T,skip=N,count=M[,cmd=TEXT] PROGRAM ARGS
 * Conventions (those of the project's corpus, after Blaze's traces): a taken CTI has bt=1 and
 * ea_va = its target; an untaken branch has ea_valid=1 and ea_va = pc+8; an instruction that QEMU
 * runs again after an internal trap (register-window spill or fill) and a `ta` have tr=1.
 * Physical addresses are pseudo: a hashed 8 KB frame per virtual page.  User mode only: no TRAP,
 * TLB or REGVAL records.  count= counts INSTR records (annulled slots included). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "qemu_api.h"
#include "tracer_common.h"

TRACER_EXPORT int qemu_plugin_version = 1;

enum { RT_HEADER = 2, RT_INSTR = 3, RT_STRDESC = 14, RT_PAVADIFF = 19, RT_STRCONT = 21 };
enum { F_EA_VALID = 0x40, F_TR = 0x20, F_BT = 0x04, F_AN = 0x02 };
enum { CTI_NONE, CTI_COND, CTI_ALWAYS, CTI_NEVER, CTI_CALL, CTI_JMPL };
#define CONTEXT 0x0101                 /* icontext and dcontext of the one user process */

/* One static instruction, decoded at translation. */
struct sinsn {
    uint64_t pc, target;               /* target: PC-relative CTIs only */
    uint32_t word, slot_word;          /* slot_word: the instruction after a CTI */
    uint8_t cti, annul, mem, ta;
};

/* One executed instruction and the first address it accessed. */
struct dyn {
    const struct sinsn *s;
    uint64_t ea;
    int has_ea;
};

#define RING 16                        /* power of two; decisions need 4 instructions ahead */
static struct dyn ring[RING];
static uint64_t head, tail;            /* executed instructions [tail, head) not yet written,
                                          numbered from the program's first */
static int started;
static struct tracer_opts opt;
static const char *cmd_text = "";
static uint64_t executed, written;
static uint64_t last_pc_diff = 1, last_ea_diff = 1;   /* 1: no PAVADIFF yet (diffs are 8K-aligned) */
static int done;

static int64_t sext(uint64_t v, int bits)
{
    uint64_t m = 1ull << (bits - 1);
    v &= (1ull << bits) - 1;
    return (int64_t)((v ^ m) - m);
}

static void decode(struct sinsn *s, uint64_t pc, uint32_t w, uint32_t next_word)
{
    memset(s, 0, sizeof *s);
    s->pc = pc;
    s->word = w;
    s->slot_word = next_word;
    unsigned op = w >> 30, op2 = (w >> 22) & 7, op3 = (w >> 19) & 0x3f, cond = (w >> 25) & 0xf;
    if (op == 1) {
        s->cti = CTI_CALL;
        s->target = pc + 4 * (uint64_t)sext(w, 30);
    } else if (op == 0 && op2 != 0 && op2 != 4 && op2 != 7) {
        int64_t disp;
        if (op2 == 3) {                /* BPr: always conditional */
            disp = sext(((w >> 20) & 3) << 14 | (w & 0x3fff), 16);
            s->cti = CTI_COND;
        } else {
            disp = op2 == 1 || op2 == 5 ? sext(w, 19) : sext(w, 22);
            s->cti = cond == 8 ? CTI_ALWAYS : cond == 0 ? CTI_NEVER : CTI_COND;
        }
        s->annul = (w >> 29) & 1;
        s->target = pc + 4 * (uint64_t)disp;
    } else if (op == 2 && (op3 == 0x38 || op3 == 0x39)) {
        s->cti = CTI_JMPL;             /* JMPL and RETURN: register-indirect */
    } else if (op == 2 && op3 == 0x3a) {
        s->ta = cond == 8;
    } else if (op == 3) {
        s->mem = 1;
    }
}

/* ---- records ---- */

static void put_be(uint8_t *p, uint64_t v, int n)
{
    for (int i = n - 1; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

/* Pseudo physical frame of a virtual page: pa - va for the page holding va. */
static uint64_t pa_va_diff(uint64_t va)
{
    uint64_t vpn = va >> 13, h = vpn * 0x9e3779b97f4a7c15ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    uint64_t frame = h & ((1u << 22) - 1); /* 32 GB of 8 KB frames */
    return (frame << 13) - (va & ~(uint64_t)0x1fff);
}

static void emit_instr(uint32_t word, uint64_t pc, uint8_t flags, uint64_t ea, int data_ea)
{
    uint8_t r[24] = { 0 };
    uint64_t pd = pa_va_diff(pc), ed = data_ea ? pa_va_diff(ea) : 0;
    if (pd != last_pc_diff || (data_ea && ed != last_ea_diff)) {
        r[0] = RT_PAVADIFF;
        r[1] = data_ea ? 0x80 : 0;
        put_be(r + 4, CONTEXT, 2);
        put_be(r + 6, CONTEXT, 2);
        put_be(r + 8, pd, 8);
        put_be(r + 16, ed, 8);
        tracer_write(r, sizeof r);
        last_pc_diff = pd;
        if (data_ea)
            last_ea_diff = ed;
        memset(r, 0, sizeof r);
    }
    r[0] = RT_INSTR;
    r[1] = flags;
    put_be(r + 4, word, 4);
    put_be(r + 8, pc, 8);
    put_be(r + 16, (flags & F_EA_VALID) ? ea : 0, 8);
    tracer_write(r, sizeof r);
    written++;
}

/* A string in STRCONT records of 23 bytes and a final NUL-terminated STRDESC. */
static void emit_string(const char *s)
{
    size_t n = strlen(s);
    while (1) {
        uint8_t r[24] = { 0 };
        size_t k = n > 22 ? 23 : n;
        r[0] = n > 22 ? RT_STRCONT : RT_STRDESC;
        memcpy(r + 1, s, k);
        tracer_write(r, sizeof r);
        if (r[0] == RT_STRDESC)
            break;
        s += k;
        n -= k;
    }
}

static void emit_header(void)
{
    uint8_t r[24] = { RT_HEADER, 2, 13, '%' };
    memcpy(r + 4, "RST Header v2.13", 16);
    tracer_write(r, sizeof r);
    emit_string("tracer: trz bench/tracers/rsttrace.so, QEMU sparc64 user mode TCG plugin");
    emit_string("user mode only: tr=1 marks an instruction QEMU ran again after a window trap, "
                "and ta; PA: pseudo, a hashed 8KB frame per page");
    char buf[600];
    snprintf(buf, sizeof buf, "cmd: %.500s; skip %" PRIu64, cmd_text, opt.skip);
    emit_string(buf);
}

/* ---- deciding each executed instruction, a few instructions later ---- */

/* pc of the k-th executed instruction after index i, counting an instruction re-run after a
 * trap once; 0 when not known (end of the run). */
static uint64_t pc_after(uint64_t i, int k)
{
    uint64_t j = i;
    while (k > 0) {
        if (++j >= head)
            return 0;
        if (ring[j % RING].s->pc != ring[(j - 1) % RING].s->pc || j == i + 1)
            k--;
    }
    return ring[j % RING].s->pc;
}

static void finish(void);

static void write_one(uint64_t i)
{
    const struct dyn *d = &ring[i % RING];
    const struct sinsn *s = d->s;
    uint64_t next = i + 1 < head ? ring[(i + 1) % RING].s->pc : 0;
    uint8_t flags = 0;
    uint64_t ea = 0;
    int annulled_slot = 0;
    if (next == s->pc || s->ta)
        flags |= F_TR;
    if (s->mem && d->has_ea) {
        flags |= F_EA_VALID;
        ea = d->ea;
    }
    if (s->cti != CTI_NONE && next != s->pc) {
        /* ba,a and bn,a always annul their slot, even when ba,a's target is the slot's address */
        int slot_ran = next == s->pc + 4 && !(s->annul && (s->cti == CTI_ALWAYS || s->cti == CTI_NEVER));
        uint64_t after = slot_ran ? pc_after(i, 2) : next;   /* where control went */
        int taken;
        switch (s->cti) {
        case CTI_NEVER: taken = 0; break;
        case CTI_COND: taken = s->annul ? slot_ran : after != s->pc + 8; break;
        default: taken = 1; break;
        }
        if (next == 0 || (slot_ran && after == 0)) /* the run ended here: outcome unknown */
            taken = s->cti != CTI_NEVER && s->cti != CTI_COND;
        flags |= F_EA_VALID | (taken ? F_BT : 0);
        ea = !taken ? s->pc + 8 : s->cti == CTI_JMPL ? after : s->target;
        annulled_slot = !slot_ran && next != 0;
    }
    emit_instr(s->word, s->pc, flags, ea, s->mem && (flags & F_EA_VALID));
    if (annulled_slot && (opt.count == 0 || written < opt.count))
        emit_instr(s->slot_word, s->pc + 4, F_AN, 0, 0);
    if (opt.count && written >= opt.count) {
        finish();
        _exit(0);
    }
}

static void drain(uint64_t keep)
{
    while (head - tail > keep) {
        if (tail >= opt.skip)
            write_one(tail);
        tail++;
    }
}

static void finish(void)
{
    if (done || tracer_forked)
        return;
    done = 1;
    tracer_close();
    char msg[128];
    snprintf(msg, sizeof msg, "rsttrace: %" PRIu64 " INSTR records recorded (%" PRIu64 " instructions skipped)\n",
             written, opt.skip);
    fputs(msg, stderr);
}

/* ---- QEMU callbacks ---- */

static void on_exec(unsigned int vcpu, void *ud)
{
    if (vcpu != 0 || done || tracer_forked)
        return;
    uint64_t idx = executed++;
    if (idx + 8 < opt.skip)
        return;                        /* far before the window: nothing to remember */
    if (!started) {
        head = tail = idx;
        started = 1;
    }
    if (head - tail == RING - 1)
        drain(RING - 2);
    struct dyn *d = &ring[head % RING];
    d->s = ud;
    d->has_ea = 0;
    head++;
    if (head - tail > 6)
        drain(6);
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *ud)
{
    (void)info;
    (void)ud;
    if (vcpu != 0 || head == tail)
        return;
    struct dyn *d = &ring[(head - 1) % RING];
    if (!d->has_ea) {
        d->ea = vaddr;
        d->has_ea = 1;
    }
}

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
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
        /* The word after the instruction is read only for a CTI's annulled slot; user mode maps
         * guest memory contiguously, so it sits 4 bytes on in host memory too. */
        const uint8_t *p = qemu_plugin_insn_data(insn);
        const uint8_t *h = qemu_plugin_insn_haddr(insn);
        uint32_t w = be32(p);
        decode(s, qemu_plugin_insn_vaddr(insn), w, 0);
        if (s->cti != CTI_NONE && h)
            s->slot_word = be32(h + 4);
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_exec, QEMU_PLUGIN_CB_NO_REGS, s);
        if (s->mem)
            qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS,
                                             QEMU_PLUGIN_MEM_RW, NULL);
    }
}

static void on_atexit(qemu_plugin_id_t id, void *ud)
{
    (void)id;
    (void)ud;
    if (!done && !tracer_forked)
        drain(0);
    finish();
}

int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
    if (strcmp(info->target_name, "sparc64") != 0) {
        fprintf(stderr, "rsttrace: for qemu-sparc64, not %s\n", info->target_name);
        return -1;
    }
    /* cmd=TEXT (the command line, for the trace's description) is ours; the rest are common. */
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int nrest = 0;
    for (int i = 0; i < argc; i++) {
        if (!strncmp(argv[i], "cmd=", 4))
            cmd_text = argv[i] + 4;
        else
            rest[nrest++] = argv[i];
    }
    int bad = tracer_parse_args(&opt, nrest, rest, "rsttrace");
    free(rest);
    if (bad || tracer_open(&opt, "rsttrace") != 0)
        return -1;
    emit_header();
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
    qemu_plugin_register_atexit_cb(id, on_atexit, NULL);
    return 0;
}
