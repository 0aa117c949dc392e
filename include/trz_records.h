/* trz_records.h - the record layouts of the fixed-size formats trz reads,
 * as accessors over a record's bytes, so that analyzers need not copy them
 * from the format specifications.  Header-only; installed with trz.h.
 *
 * Each accessor takes a pointer to one record as trz hands it out
 * (trz_read, trz_foreach, trz_read_span) and, where a format comes in both
 * byte orders, the byte order the archive records (trz_info.byte_order, or
 * the host's when TRZ_R_HOST_ORDER is set).  Nothing here allocates or
 * depends on the host's struct layout or bit-field order. */
#ifndef TRZ_RECORDS_H
#define TRZ_RECORDS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- loads ---- */
static inline uint16_t trz_rec_ld16(const uint8_t *p, int big)
{
    return big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}
static inline uint32_t trz_rec_ld32(const uint8_t *p, int big)
{
    return big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
               : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}
static inline uint64_t trz_rec_ld64(const uint8_t *p, int big)
{
    return big ? (uint64_t)trz_rec_ld32(p, 1) << 32 | trz_rec_ld32(p + 4, 1)
               : (uint64_t)trz_rec_ld32(p + 4, 0) << 32 | trz_rec_ld32(p, 0);
}

/* ---- SPARC RST: 24 bytes, byte 0 the rtype ---------------------------------
 * Big-endian traces (written on SPARC) keep the RST structs' bit fields from
 * the most significant bit down; little-endian ones (written on x86) from the
 * least significant bit up: the accessors take the archive's byte order. */
#define TRZ_RST_RECORD 24
enum {
    TRZ_RST_INSTR = 3, TRZ_RST_TRACEINFO = 4, TRZ_RST_TLB = 5, TRZ_RST_THREAD = 6, TRZ_RST_TRAP = 7,
    TRZ_RST_TRAPEXIT = 8, TRZ_RST_REGVAL = 9, TRZ_RST_CPU = 11, TRZ_RST_DMA = 13, TRZ_RST_PREG = 17,
    TRZ_RST_PHYSADDR = 18, TRZ_RST_PAVADIFF = 19,
};
static inline unsigned trz_rst_rtype(const uint8_t *r) { return r[0]; }

/* INSTR (rtype 3): flags, the CPU, the instruction word, PC and EA. */
static inline int trz_rst_ea_valid(const uint8_t *r, int big) { return big ? r[1] >> 6 & 1 : r[1] >> 1 & 1; }
static inline int trz_rst_tr(const uint8_t *r, int big) { return big ? r[1] >> 5 & 1 : r[1] >> 2 & 1; }
static inline int trz_rst_hpriv(const uint8_t *r, int big) { return big ? r[1] >> 4 & 1 : r[1] >> 3 & 1; }
static inline int trz_rst_pr(const uint8_t *r, int big) { return big ? r[1] >> 3 & 1 : r[1] >> 4 & 1; }
static inline int trz_rst_bt(const uint8_t *r, int big) { return big ? r[1] >> 2 & 1 : r[1] >> 5 & 1; }
static inline int trz_rst_an(const uint8_t *r, int big) { return big ? r[1] >> 1 & 1 : r[1] >> 6 & 1; }
static inline unsigned trz_rst_instr_cpu(const uint8_t *r, int big)
{
    /* cpuid is 10 bits in two pieces: 6 bits, then 4 after an unused bit field */
    return big ? (unsigned)(r[2] >> 2) | ((unsigned)(r[2] & 3) << 2 | (unsigned)(r[3] >> 6)) << 6
               : (unsigned)(r[2] & 0x3f) | ((unsigned)(r[2] >> 6) | (unsigned)(r[3] & 3) << 2) << 6;
}
static inline uint32_t trz_rst_iword(const uint8_t *r, int big) { return trz_rec_ld32(r + 4, big); }
static inline uint64_t trz_rst_pc(const uint8_t *r, int big) { return trz_rec_ld64(r + 8, big); }
static inline uint64_t trz_rst_ea(const uint8_t *r, int big) { return trz_rec_ld64(r + 16, big); }

/* PAVADIFF (rtype 19) and PHYSADDR (18): a CPU's physical-minus-virtual
 * differences for instructions (bytes 8..15) and data (16..23). */
static inline int trz_rst_pava_valid(const uint8_t *r, int big) { return big ? r[1] >> 7 : r[1] & 1; }
static inline unsigned trz_rst_pava_cpu(const uint8_t *r, int big)
{
    return big ? (unsigned)(r[1] & 0x7f) | (unsigned)(r[2] >> 5) << 7 : (unsigned)(r[1] >> 1) | (unsigned)(r[2] & 7) << 7;
}
static inline uint64_t trz_rst_pc_pa_va(const uint8_t *r, int big) { return trz_rec_ld64(r + 8, big); }
static inline uint64_t trz_rst_ea_pa_va(const uint8_t *r, int big) { return trz_rec_ld64(r + 16, big); }

/* ---- BYU address traces: 12 bytes, little-endian ------------------------ */
#define TRZ_BYU_RECORD 12
static inline uint32_t trz_byu_addr(const uint8_t *r) { return trz_rec_ld32(r, 0); }
static inline unsigned trz_byu_reqtype(const uint8_t *r) { return r[4]; }
static inline unsigned trz_byu_size(const uint8_t *r) { return r[5]; }
static inline unsigned trz_byu_attr(const uint8_t *r) { return r[6]; }
static inline unsigned trz_byu_proc(const uint8_t *r) { return r[7]; }
static inline uint32_t trz_byu_time(const uint8_t *r) { return trz_rec_ld32(r + 8, 0); } /* since the last request */

/* ---- PEL Pentium bus traces: 6 bytes, big-endian address ---------------- */
#define TRZ_PBUS_RECORD 6
static inline uint32_t trz_pbus_addr(const uint8_t *r) { return trz_rec_ld32(r, 1); }
static inline unsigned trz_pbus_byte_enables(const uint8_t *r) { return r[4]; } /* active low */
static inline unsigned trz_pbus_ctl(const uint8_t *r) { return r[5]; }
static inline unsigned trz_pbus_type(const uint8_t *r) { return r[5] >> 4; }

/* ---- ChampSim: input_instr (64 bytes) and cloudsuite_instr (96), as the
 * tracer writes them on x86-64 (little-endian) ----------------------------- */
#define TRZ_CHAMPSIM_RECORD 64
#define TRZ_CHAMPSIM_CS_RECORD 96
enum { TRZ_CHAMPSIM_REG_SP = 6, TRZ_CHAMPSIM_REG_FLAGS = 25, TRZ_CHAMPSIM_REG_IP = 26 };
static inline uint64_t trz_champsim_ip(const uint8_t *r) { return trz_rec_ld64(r, 0); }
static inline int trz_champsim_is_branch(const uint8_t *r) { return r[8]; }
static inline int trz_champsim_taken(const uint8_t *r) { return r[9]; }
/* cs: 1 for a cloudsuite_instr record.  Registers written (2, or 4 in
 * cloudsuite; both start at byte 10) and read (4): 0 = unused. */
static inline unsigned trz_champsim_dst_reg(const uint8_t *r, int i) { return r[10 + i]; }
static inline unsigned trz_champsim_src_reg(const uint8_t *r, int cs, int i) { return r[(cs ? 14 : 12) + i]; }
/* memory addresses written (2, or 4) and read (4): 0 = unused */
static inline uint64_t trz_champsim_dst_mem(const uint8_t *r, int cs, int i) { return trz_rec_ld64(r + (cs ? 24 : 16) + 8 * i, 0); }
static inline uint64_t trz_champsim_src_mem(const uint8_t *r, int cs, int i) { return trz_rec_ld64(r + (cs ? 56 : 32) + 8 * i, 0); }

#ifdef __cplusplus
}
#endif
#endif
