/* rst_v1_int.h - what model variant 1's files share (rst.md, "Model
 * variant 1"): the table sizes, the per-PC, per-CPU and model state, the
 * helpers the record loop inlines, and the functions one file gives
 * another: rst_v1.c (the record loop, the entry points), rst_v1_model.c
 * (set-up, the chain's window) and rst_v1_know.c (the knowledge stream). */
#ifndef TRZ_RST_V1_INT_H
#define TRZ_RST_V1_INT_H
#include "rst_int.h"
#include "rst_rc.h"
#include "sparc.h"
#include "rst_v1.h"

/* new_cpu, defined here for the files that call it: a plain static
 * function (an inline keyword would change what the compiler inlines). */
#if defined(__GNUC__)
#define RST_V1_HELPER static __attribute__((unused))
#else
#define RST_V1_HELPER static inline
#endif

/* Table sizes are part of the format (rst.md). */
#define MAXCPU 1024
#define RAS_N 16
#define PE_BITS 16 /* per-PC entries */
#define IC_BITS 18 /* instruction words */
#define BH_BITS 16 /* branch contexts, each table */
#define JT_BITS 14
#define PT_BITS 15
#define TD_BITS 14
#define MM_BITS 20 /* match model: record positions by context */
#define MM_SCAN 64 /* records searched for a match's next INSTR of its CPU */
#define AC_BITS 18 /* address correlation: the EA that followed (PC, EA) */
#define HW_RECS (1u << 20) /* chained: the match model's window of records before the chunk */
#define GM_BITS 20 /* chained: repeat model, record positions by the two records before */
#define GM_MIN 16  /* records before a repeat's start that must equal those before the step */
#define GM_DIST 32768 /* records back at least: nearer repeats (loops) the other models know */

enum { K_INSTR, K_PV, K_OTHER };
/* Sites of sure decisions (variant 2): the step's first decision, the
 * INSTR's second with 1 or 3 members, the memory EA's hit, the PAVADIFF's
 * presence when coded alone. */
enum { SAT_STEP, SAT_FL1, SAT_FL3, SAT_EAH, SAT_PVHAS, SAT_N };
#define EA_NC 7 /* memory EA candidates */

/* Per (PC, CPU) state. */
typedef struct {
    uint64_t last;   /* last EA */
    int64_t stride;  /* last EA - the one before */
    uint64_t prevl;  /* the CPU's memory EA before the last one here */
    uint16_t lhist;  /* local branch history, newest outcome in bit 0 */
    uint8_t hitk;    /* EA candidate that hit last time (0..6), 7 = none */
    uint8_t hhist;   /* EA hit history, newest in bit 0 */
    uint8_t lastlen; /* bit length of the last EA delta */
    uint8_t base;    /* base of the last EA delta */
    uint8_t lsh;     /* the EA moves by the CPU's previous EA's move << lsh */
    uint8_t pad;
} pc_ent;

typedef struct { uint64_t key, val; } pt_ent;
typedef struct { uint64_t tag, data; } tlb_ent;

typedef struct cpu1 {
    uint64_t pred_pc, last_pc, pend_tgt, inv_ea, last_mea;
    uint64_t pv_pc, pv_ea, pv_eav; /* last PAVADIFF's values; pv_eav: its last valid ea_pa_va */
    uint64_t pv_pcpage, pv_eapage; /* pages known to map with pv_pc / pv_eav */
    uint32_t trap_key, ras_top, runlen, next, eah, ghist;
    uint32_t hdr; /* bytes 0..3 of its INSTR records, flags and notused3 zero */
    uint16_t pv_ictx, pv_dctx, pv_nu13;
    uint8_t pv_ev, pv_known, pv_eknown, last_flags, last_nu3, annul_next, pend_valid, last_cls, last_tr,
        untaken_mode;
    uint32_t mm_ptr, mm_len; /* match model: position + 1 of the predicted INSTR, hits in a row */
    uint32_t mm_h[3];        /* hashes of its last three INSTRs */
    uint32_t last_ins;       /* position + 1 of its last INSTR */
    uint8_t mm_hist;
    uint64_t ras[RAS_N];
    uint64_t regbase[32];
} cpu1;

typedef RC_INT(1) int1_t;

typedef struct rst_v1_model {
    int oom, err;
    unsigned cur, run, last_kind, last_ort;
    cpu1 *curc;
    pc_ent *pe;
    uint32_t *icache;   /* without knowledge */
    rst_ic_ent *ick;    /* with knowledge, instead of icache */
    const trz_know *know;
    uint64_t *jt;
    pt_ent *pt;
    tlb_ent *tlbd;
    rc_prob *bh1, *bh2; /* branch contexts: (pc, global history), (pc, local history) */
    uint32_t *mm;       /* match model: position + 1 after a context hash */
    rst_win *win;       /* where link and hist live (rst_v1.h) */
    uint8_t *link;      /* win->link: per INSTR record (window, then chunk): the distance in records to the next INSTR of its CPU (0: none yet, or beyond the match model's reach) */
    /* Chained chunks: the last records of the chain before this chunk
     * (canonical), at positions 0..nhist-1, the chunk's following them. */
    uint8_t *hist;      /* win->hist */
    size_t nhist;
    /* Chained chunks: the repeat model (run_all), made at the first one. */
    uint32_t *gm;       /* position + 1 of the record that followed two records, by their hash */
    uint32_t gptr, glen, glast; /* the repeat's next position + 1, its steps so far, the last record's hash */
    rc_prob p_gm[12];
    trz_buf qbuf;       /* the output of steps coded quietly, dropped */
    uint64_t *ac;       /* address correlation: EA after (PC, EA) */
    uint64_t tref_vp[16], tref_data[16]; /* TLB: recent regions (virtual page, data), most recent first */
    uint16_t tctx[8];                    /* TLB: recent contexts */
    uint8_t cls[SPARC_CLS_N];
    uint8_t ftab[C_NCLASS * 4];
    int16_t str[4096];
    r_sat *sat;           /* variant 2: satv, else NULL */
    r_sat satv[SAT_N];    /* sure decisions, by site */
    /* ---- probabilities ---- */
    rc_prob p_special[3], p_other[3]; /* by the last step's kind */
    rc_prob p_cpu[2][4], p_cpu2[2][4], t_cpu[1 << 10];
    rc_prob p_pc[C_NCLASS][2][2], p_pcjt[2], p_pcp2[2];
    int1_t i_pc;
    rc_prob p_iw[2];
    rc_prob t_op[4], t_op2[8][8], t_op3[4][64], t_rd[2][64][32], t_rs1[2][64][32], p_i[2][64];
    rc_prob t_rs2[32], t_asi[256], t_cond[2][32];
    RC_INT(64) i_simm;
    RC_INT(8) i_disp;
    rc_prob t_imm22[1 << 10]; /* sethi: the top 10 bits of the immediate */
    rc_prob p_fl[C_NCLASS][2], p_flb[8][2], p_nu3;
    int32_t bw[48][4]; /* branch mixer weights, by the match's guess and the local history's last 4 outcomes */
    rc_prob p_eah[EA_NC + 1][4][4], t_eak[EA_NC + 1][4][8], t_base[4][4];
    RC_INT(41 * 4) i_eam;
    RC_INT(41 * 4) i_eax;
    rc_prob p_cti[C_NCLASS][2][2], p_ctim[C_NCLASS], p_cti2[C_NCLASS], p_inv[C_NCLASS], p_inv0;
    int1_t i_cti, i_inv;
    rc_prob p_pvhas[3][3][2];
    rc_prob p_pvev[3], p_pvnu, p_pvctx[2], p_pvpt[2][2], p_pvlast[2][2], p_pvz[2], p_pvpg[2];
    RC_INT(2) i_pva;
    rc_prob t_rt[256], p_samert, t_byte[24][256], t_text[256][256];
    RC_INT(64 * 3) i_oth;
    rc_prob p_ob[64][2], p_tlb[2];
    rc_prob p_mbt[3][4];
    rc_prob p_tb1, t_tb1[256], p_tidx, p_tw, t_tctx[8], t_tref[16], p_thi, p_tlo;
    RC_INT(4) i_tvp;
    RC_INT(2) i_tpa;
    cpu1 *cpu[MAXCPU];
    cpu1 dummy;
    uint8_t lastrec[256][RST_REC];
} model1;

/* ---- helpers ---------------------------------------------------------------- */

static inline uint64_t hash64(uint64_t x, int bits) { return (x * 0x9E3779B97F4A7C15ull) >> (64 - bits); }
static inline uint64_t pcidx(uint64_t pc, int bits)
{
    uint64_t w = pc >> 2;
    return (w ^ (w >> bits)) & ((1ull << bits) - 1);
}

TRZ_FORCE_INLINE unsigned classify(const model1 *m, uint32_t iw) { return sparc_classify(m->cls, iw); }

RST_V1_HELPER TRZ_NOINLINE cpu1 *new_cpu(model1 *m, unsigned id)
{
    cpu1 *c = calloc(1, sizeof *c);
    if (!c) { m->oom = 1; return &m->dummy; }
    c->next = (id + 1) & (MAXCPU - 1);
    c->runlen = 0xFFFFFFFFu; /* until it is seen to switch, a CPU stays */
    c->eah = (uint32_t)hash64(id, PE_BITS);
    c->hdr = (uint32_t)RT_INSTR << 24 | ((id & 0x3f) << 2 | id >> 8) << 8 | ((id >> 6) & 3) << 6;
    m->cpu[id] = c;
    return c;
}
TRZ_FORCE_INLINE cpu1 *get_cpu(model1 *m, unsigned id)
{
    id &= MAXCPU - 1;
    return m->cpu[id] ? m->cpu[id] : new_cpu(m, id);
}

/* rst_v1_model.c */
void rst_v1_probs_init(model1 *m);
int rst_v1_link_fit(model1 *m, size_t nrec);
int rst_v1_hist_slide(model1 *m, const uint8_t *buf, size_t nrec, int move);
int rst_v1_gm_make(model1 *m);
/* rst_v1.c: the record model's coder of an instruction word, field by
 * field (iw_fields), for the knowledge stream. */
uint32_t rst_v1_iw_fields(model1 *m, rc *c, uint32_t iw, int enc);

#endif
