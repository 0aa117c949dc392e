/* champsim_int.h - internals shared by the ChampSim codec files: the two
 * record layouts, the unpacked record, and the simulator's branch kinds. */
#ifndef TRZ_CHAMPSIM_INT_H
#define TRZ_CHAMPSIM_INT_H

#include "../codec.h"

/* The codec's hash of a 64-bit key (the PC tables, the facts' sets). */
static inline uint32_t h32(uint64_t x) { return (uint32_t)((x * 0x9E3779B97F4A7C15ull) >> 32); }

/* Register ids the simulator interprets. */
#define CS_REG_SP 6
#define CS_REG_FLAGS 25
#define CS_REG_IP 26

/* Where the fields of a record lie.  `input_instr` (64 bytes) has 2
 * destination registers and 2 destination memory slots; `cloudsuite_instr`
 * (96 bytes) 4 of each, and 14 other bytes (padding and asid). */
typedef struct cs_layout {
    uint32_t size;
    unsigned ndreg, ndmem;
    unsigned off_dreg, off_sreg, off_dmem, off_smem;
    unsigned nextra;
    uint8_t extra_off[14];
} cs_layout;

/* static: where a layout is a constant the compiler folds its fields */
static const cs_layout cs_layout64 = { 64, 2, 2, 10, 12, 16, 32, 0, { 0 } };
static const cs_layout cs_layout96 = { 96, 4, 4, 10, 14, 24, 56, 14,
                                       { 18, 19, 20, 21, 22, 23, 88, 89, 90, 91, 92, 93, 94, 95 } };

/* One record unpacked.  regs: destination registers 0..3, then source
 * registers 4..7 (destinations 2 and 3 are 0 in the 64-byte form).  mem:
 * source slots 0..3, then destination slots 4..7. */
typedef struct cs_rec {
    uint64_t ip;
    uint8_t ib, bt;
    uint8_t regs[8];
    uint64_t mem[8];
    uint8_t mm; /* bit k: mem[k] != 0 */
    uint8_t extra[14];
} cs_rec;

static inline void cs_unpack(const cs_layout *L, const uint8_t *p, cs_rec *r)
{
    r->ip = trz_ld_le64(p);
    r->ib = p[8];
    r->bt = p[9];
    memset(r->regs, 0, 8);
    memcpy(r->regs, p + L->off_dreg, L->ndreg);
    memcpy(r->regs + 4, p + L->off_sreg, 4);
    for (unsigned k = 0; k < 4; k++) r->mem[k] = trz_ld_le64(p + L->off_smem + 8 * k);
    for (unsigned k = 0; k < 4; k++) r->mem[4 + k] = k < L->ndmem ? trz_ld_le64(p + L->off_dmem + 8 * k) : 0;
    r->mm = (uint8_t)((r->mem[0] != 0) | (r->mem[1] != 0) << 1 | (r->mem[2] != 0) << 2 | (r->mem[3] != 0) << 3 |
                      (r->mem[4] != 0) << 4 | (r->mem[5] != 0) << 5 | (r->mem[6] != 0) << 6 | (r->mem[7] != 0) << 7);
    for (unsigned k = 0; k < L->nextra; k++) r->extra[k] = p[L->extra_off[k]];
}

static inline void cs_pack(const cs_layout *L, const cs_rec *r, uint8_t *p)
{
    trz_st_le64(p, r->ip);
    p[8] = r->ib;
    p[9] = r->bt;
    memcpy(p + L->off_dreg, r->regs, L->ndreg);
    memcpy(p + L->off_sreg, r->regs + 4, 4);
    for (unsigned k = 0; k < 4; k++) trz_st_le64(p + L->off_smem + 8 * k, r->mem[k]);
    for (unsigned k = 0; k < L->ndmem; k++) trz_st_le64(p + L->off_dmem + 8 * k, r->mem[4 + k]);
    for (unsigned k = 0; k < L->nextra; k++) p[L->extra_off[k]] = r->extra[k];
}

/* Branch kinds, derived from the registers as the simulator does. */
enum {
    CS_K_NONE, CS_K_JUMP, CS_K_IND, CS_K_COND, CS_K_CALL, CS_K_ICALL, CS_K_RET, CS_K_OTHER, CS_NKIND
};

/* Kind of an instruction with destination registers regs[0..4) and source
 * registers regs[4..8) (zero = unused). */
static inline unsigned cs_kind(const uint8_t *regs)
{
    int wsp = 0, wip = 0, rsp = 0, rfl = 0, rip = 0, roth = 0;
    for (int k = 0; k < 4; k++) {
        wsp |= regs[k] == CS_REG_SP;
        wip |= regs[k] == CS_REG_IP;
    }
    for (int k = 4; k < 8; k++) {
        uint8_t r = regs[k];
        rsp |= r == CS_REG_SP;
        rfl |= r == CS_REG_FLAGS;
        rip |= r == CS_REG_IP;
        roth |= r != 0 && r != CS_REG_SP && r != CS_REG_FLAGS && r != CS_REG_IP;
    }
    if (!wip) return CS_K_NONE;
    if (!rsp && !rfl && !roth) return CS_K_JUMP;
    if (!rsp && !rip && !rfl && roth) return CS_K_IND;
    if (!rsp && rip && !wsp && (rfl || roth)) return CS_K_COND;
    if (rsp && rip && wsp && !rfl && !roth) return CS_K_CALL;
    if (rsp && rip && wsp && !rfl && roth) return CS_K_ICALL;
    if (rsp && !rip && wsp) return CS_K_RET;
    return CS_K_OTHER;
}

extern const char *const cs_kind_names[CS_NKIND];

/* ---- carried knowledge: an instruction's static fields by its ip --------
 * A fact (champsim.md, "Knowledge") holds the registers, is_branch,
 * branch_taken and memory slot mask of the instruction's first record, its
 * fall-through length (0: not seen), and, when it was seen taken, its first
 * taken successor less its ip. */
#define CS_FACT 12   /* without a successor */
#define CS_FACT_T 20 /* with one */

typedef struct cs_fact {
    uint8_t regs[8]; /* the layout's missing registers 0 */
    uint8_t ib, bt, mask, len;
    int has_t;
    uint64_t tgt;
} cs_fact;

/* The fact under ip, unpacked; 0 when there is none (k may be NULL).  Any
 * bytes are taken: a fact is a prediction, never trusted. */
static inline int cs_fact_get(const trz_know *k, const cs_layout *L, uint64_t ip, cs_fact *f)
{
    size_t n;
    const uint8_t *v = trz_know_get(k, ip, &n);
    if (!v || (n != CS_FACT && n != CS_FACT_T)) return 0;
    memcpy(f->regs, v, 8);
    for (unsigned j = L->ndreg; j < 4; j++) f->regs[j] = 0;
    f->ib = v[8];
    f->bt = v[9];
    f->mask = v[10];
    f->len = v[11];
    f->has_t = n == CS_FACT_T;
    f->tgt = f->has_t ? trz_ld_le64(v + 12) : 0;
    return 1;
}

int cs_probe64(const uint8_t *buf, size_t len, int *byte_order);
int cs_probe96(const uint8_t *buf, size_t len, int *byte_order);
void cs_dump64(FILE *f, uint64_t recno, const uint8_t *rec, int byte_order);
void cs_dump96(FILE *f, uint64_t recno, const uint8_t *rec, int byte_order);
void cs_convert64(uint8_t *recs, size_t len, int from, int to);
void cs_convert96(uint8_t *recs, size_t len, int from, int to);

/* champsim.c: the range-coded knowledge stream */
int cs_know_range_encode(const trz_fact *f, size_t n, trz_buf *out, const cs_layout *L);
int cs_know_range_decode(const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx, const cs_layout *L);

/* cs_learn.c */
int cs_learn64(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, int bo, trz_know_add_fn add, void *ctx);
int cs_learn96(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, int bo, trz_know_add_fn add, void *ctx);

#endif
