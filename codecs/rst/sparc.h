/* sparc.h - what both RST model variants decode from a SPARC V9 instruction
 * word: its control-transfer class and the target of a direct transfer. */
#ifndef TRZ_RST_SPARC_H
#define TRZ_RST_SPARC_H
#include <stdint.h>
#include <string.h>

/* instruction classes from the opcode */
enum { C_ALU, C_MEM, C_BCOND, C_BA, C_BN, C_CALL, C_JMPL, C_RET, C_DONE, C_TCC, C_NCLASS };
#define CM(c) (1u << (c))
#define DCTI_MASK (CM(C_BCOND) | CM(C_BA) | CM(C_BN) | CM(C_CALL) | CM(C_JMPL) | CM(C_RET))
#define TAKEN_MASK (CM(C_BA) | CM(C_CALL) | CM(C_JMPL) | CM(C_RET)) /* always taken */
#define ANNUL_MASK (CM(C_BA) | CM(C_BN)) /* the a-bit annuls the delay slot */
#define SPARC_CLS_N (1u << 13) /* class table: indexed by iw >> 19 */

static inline uint64_t sext(uint64_t v, int bits)
{
    return (uint64_t)((int64_t)(v << (64 - bits)) >> (64 - bits));
}

static inline int sparc_class_slow(uint32_t iw)
{
    unsigned op = iw >> 30;
    if (op == 3) return C_MEM;
    if (op == 1) return C_CALL;
    if (op == 2) {
        unsigned op3 = (iw >> 19) & 63;
        if (op3 == 0x38) return C_JMPL; /* RET: see sparc_classify() */
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

/* Fill the class table row by row: for op 0 and 2 the class depends only on
 * the 6 low index bits and the 4 above them. */
static inline void sparc_cls_init(uint8_t t[SPARC_CLS_N])
{
    for (uint32_t hi = 0; hi < 128; hi++) {   /* bits 31..25 of iw: op, a/rd high, cond/rd */
        uint8_t *row = t + hi * 64;
        unsigned op = hi >> 5;
        if (op == 1 || op == 3) { memset(row, op == 1 ? C_CALL : C_MEM, 64); continue; }
        if (op == 2 && hi != 64) { memcpy(row, t + 64 * 64, 64); continue; } /* op3 row as for rd = 0 */
        if (op == 0 && hi >= 16) { memcpy(row, t + (hi - 16) * 64, 64); continue; } /* the a bit */
        for (uint32_t lo = 0; lo < 64; lo++) row[lo] = (uint8_t)sparc_class_slow((hi << 6 | lo) << 19);
    }
}

/* The table covers op, rd/cond and op3/op2 (bits 31..19); a JMPL is a RET
 * when rd = 0, rs1 is %o7 or %i7 and the immediate is 8. */
static inline __attribute__((always_inline)) unsigned sparc_classify(const uint8_t *t, uint32_t iw)
{
    unsigned c = t[iw >> 19];
    if (c == C_JMPL && (iw & 0x3e03ffffu) == 0x0003e008u) c = C_RET;
    return c;
}

/* Target of a CALL or branch from its displacement (class C_CALL, C_BCOND,
 * C_BA or C_BN). */
static inline __attribute__((always_inline)) uint64_t sparc_direct_target(uint32_t iw, unsigned cls, uint64_t pc)
{
    unsigned op2 = (iw >> 22) & 7;
    if (cls == C_CALL) return pc + 4 * sext(iw & 0x3fffffff, 30);
    if (op2 == 2 || op2 == 6) return pc + 4 * sext(iw & 0x3fffff, 22);
    if (op2 == 3) return pc + 4 * sext(((iw >> 6) & 0xc000) | (iw & 0x3fff), 16);
    return pc + 4 * sext(iw & 0x7ffff, 19);
}
#endif
