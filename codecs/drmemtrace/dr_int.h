/* dr_int.h - internals shared by the drmemtrace codec files: the 12-byte
 * record, its type and marker numbers, the x86 instruction parser that
 * gives the byte model its fields, and the probe, dump and names. */
#ifndef TRZ_DR_INT_H
#define TRZ_DR_INT_H

#include "../codec.h"

#define DR_REC 12 /* type u16, size u16, addr u64, little-endian */

/* Record types (trace_type_t) the models treat apart. */
enum {
    DR_READ = 0, DR_WRITE = 1,
    DR_INSTR = 10, DR_DJUMP = 11, DR_IJUMP = 12, DR_CJUMP = 13, DR_DCALL = 14, DR_ICALL = 15, DR_RET = 16,
    DR_BUNDLE = 17, DR_IFLUSH = 18, DR_IFLUSH_END = 19, DR_DFLUSH = 20, DR_DFLUSH_END = 21,
    DR_THREAD = 22, DR_THREAD_EXIT = 23, DR_PID = 24, DR_HEADER = 25, DR_FOOTER = 26, DR_HWPF = 27,
    DR_MARKER = 28, DR_NOFETCH = 29, DR_MAYBE_FETCH = 30, DR_SYSENTER = 31, DR_ENCODING = 47,
    DR_TAKEN = 48, DR_UNTAKEN = 49, DR_NTYPES = 50
};

/* Marker types (the size field of a MARKER). */
enum {
    DRM_KERNEL_EVENT = 0, DRM_KERNEL_XFER = 1, DRM_TIMESTAMP = 2, DRM_CPU_ID = 3, DRM_VERSION = 12,
    DRM_CHUNK_FOOTER = 21, DRM_RECORD_ORDINAL = 22, DRM_BRANCH_TARGET = 29, DRM_CORE_IDLE = 33, DRM_NTYPES = 47
};

/* An instruction record: the fetch types, INSTR_NO_FETCH and
 * INSTR_MAYBE_FETCH. */
static inline int dr_is_instr(unsigned t) { return (t >= 10 && t <= 16) || (t >= 29 && t <= 31) || t == 48 || t == 49; }

/* A record that follows its instruction with an address: loads, stores,
 * prefetches, flushes. */
static inline int dr_is_mem(unsigned t) { return t <= 9 || (t >= 18 && t <= 21) || t == 27 || (t >= 32 && t <= 46); }

extern const char *const dr_type_names[DR_NTYPES];
extern const char *const dr_marker_names[DRM_NTYPES];

/* ---- x86 instruction bytes (dr_x86.c) ------------------------------------
 * Enough of x86-64's encoding to know, from an instruction's first bytes,
 * which field the next byte belongs to and, once the opcode and ModRM are
 * known, its length.  A guess for the models only: any bytes parse. */
enum { DRX_PFX, DRX_OP, DRX_VEX, DRX_MODRM, DRX_SIB, DRX_DISP, DRX_IMM, DRX_END, DRX_NFIELD };

typedef struct drx_info {
    uint8_t field, pos;      /* the next byte's field and its place in it */
    uint8_t len;             /* the whole length once known, else 0 */
    uint8_t has_modrm, modrm, mod_known;
    uint8_t disp_off, disp_n; /* the displacement (0 bytes: none) */
    uint8_t imm_off, imm_n;
    uint8_t riprel;          /* the memory operand is rip + disp32 */
    uint8_t rexw, opsz;      /* REX.W / VEX.W, the 0x66 prefix */
    uint8_t rep;             /* an F2 or F3 prefix */
    uint16_t opid;           /* map, opcode and, for group opcodes, ModRM.reg */
} drx_info;

void drx_parse(const uint8_t *b, unsigned n, drx_info *x);

int dr_probe(const uint8_t *buf, size_t len, int *byte_order);
void dr_dump(FILE *f, uint64_t recno, const uint8_t *rec, int byte_order);
void dr_convert(uint8_t *recs, size_t len, int from, int to);

#endif
