/* uop_cm_int.h - what the context model's files share (uop.md, "Context
 * model"): the constants, the entry and the model's state, the helpers the
 * line model and learn inline, and the functions one file gives another:
 * uop_cm.c (the line model, its loops, the knowledge stream), uop_cm_model.c
 * (set-up) and uop_learn.c (learn). */
#ifndef TRZ_UOP_CM_INT_H
#define TRZ_UOP_CM_INT_H

#include "uop_fmt.h"
#include "uop_block.h"
#include "uop_rc.h"
#include "uop_dict.h"
#include "uop_know.h"

/* The helpers below that are not inline, defined here for the files that
 * call them: plain static functions, so the compiler weighs inlining them
 * as it would in one file (an inline keyword would change what it
 * inlines). */
#if defined(__GNUC__)
#define UOP_HELPER static __attribute__((unused))
#else
#define UOP_HELPER static inline
#endif

/* ---- constants ------------------------------------------------------------- */

enum { F_NEW = 0, F_CONT = 1, F_REP = 2, F_EXPL = 3 };
enum { K_ZERO = 0, K_FTIMM = 1, K_RAS = 2, K_LAST = 3, K_IND = 4, K_EXPL = 5 };
enum { A_STRIDE = 0, A_LAST = 1, A_RB = 2, A_FOL = 3, A_RECENT = 4, A_DLAST = 5, A_DRB = 6, A_DGLOB = 7 };

#define RECENT_N 16
#define RAS_N 16
#define TMPL_BITS 12
#define CS_LIM 60
#define NREG 64
#define HT_BITS 18 /* at most 2^18 slots of 16 count states (16 MiB) */
/* The match model of a chain's chunks (uop.md, "Chains"): the lines it
 * looks back on, and its table of the positions that followed a context of
 * MC_N lines. */
#define MH_BITS 19
#define MT_BITS 18
#define MH_MASK ((1u << MH_BITS) - 1)
#define ML_N 12 /* match length classes */
#define MC_N 8   /* lines of the context that finds a match */
#define ML_MIN 16 /* a match predicts once it held this many lines */

enum {
    SF_MAC, SF_MIC, SF_CH0, SF_CH1, SF_CH2, SF_R0, SF_R1, SF_R2, SF_IL, SF_IS, SF_IM, SF_FT, SF_STRLEN,
    SF_STRB, SF_KSAME, SF_KSEQ, SF_N
};

/* ---- state ------------------------------------------------------------------ */

/* An entry: one cache line.  The tag is the 32-bit hash of (pc, u), so
 * two keys of one hash share an entry (in both directions alike); lines
 * whose registers or length do not fit 16 bits are escaped. */
typedef struct {
    int64_t imm;
    uint64_t tgt, last;
    uint32_t tag;           /* hash_key(pc, u) | 1; 0 = unused */
    int32_t stride;         /* last - the address before it; 0 if outside 32 bits */
    int16_t ftl, s[3];
    uint16_t op[2];
    uint16_t lh;            /* local branch history */
    uint8_t ch[3], immu;
    uint8_t nh;             /* flow kinds that followed this entry, 2 bits each */
    uint8_t alen;           /* bit length of the last address delta (0: a hit) */
    uint8_t th;             /* target kind of the last visit */
    uint8_t ak;             /* kind of the last address no candidate gave, + 1 */
    uint8_t mru;            /* way 0 of a set: the way used last */
    uint8_t ahc[4];         /* per address candidate: hit (1) or not, last visits */
} cent;
_Static_assert(sizeof(cent) <= 64, "an entry is one cache line");

/* The static fields of a (pc, u) entry. */
typedef struct {
    int64_t ftl, s[3], imm;
    uint32_t op[2];
    uint8_t ch[3], immu;
} cstat;

/* The blocks of the chunk-sized tables, kept from chunk to chunk. */
enum { B_TAB, B_FOL, B_ITAB, B_BL, B_HT, B_AP, B_AR0, B_AR1, B_MHA, B_MHK, B_MHC, B_N };

struct uop_cm {
    uop_block blk[B_N];
    /* tables */
    cent *tab;
    uint32_t emask;
    uint64_t *fol;          /* per (pc, u, last address): the address after it */
    uint32_t fmask;
    uint64_t *itab;         /* indirect targets by (pc, path) */
    uint32_t imask;
    rc_prob *bl, *bg, *bs; /* branch: local, global, short global */
    uint32_t bmask;
    u_cs *ht;               /* hashed contexts of first-seen fields: slots of 16 */
    int hshift;
    uint64_t hmac;          /* macro-op of the instruction before the previous one */
    u_mixw sw[SF_N][16];
    uop_dict dict[2];
    uint8_t micch[DICT_MAX][4];/* chars last seen with a micro-op ([3] = seen) */
    /* history */
    uop_t prev;
    cent *pe;
    uint64_t glob, recent[RECENT_N], ras[RAS_N], rb[NREG];
    uint64_t gh, path;
    uint64_t npc;           /* the likeliest next line's pc, u and key */
    int64_t nu;
    uint32_t nkey;
    unsigned rsp;
    uint8_t stored;
    /* contexts: ctl */
    rc_prob flow1[64], flow[64][4];
    rc_prob same[2];
    u_mixw bw[64];
    rc_prob tk1[4 * 8], tk[4 * 8][8];
    rc_prob tlen[RC_ULEN], tbits[RC_UBITS];
    rc_prob xlen[2][RC_ULEN], xbits[2][RC_UBITS];
    /* contexts: static */
    u_cs hit[8][16];           /* [field][context] */
    u_cs snew[2][4];
    rc_prob sidx[2][DICT_MAX];
    u_cs slen[2][256], sbyte[2][256][256];
    rc_prob chr[3][256];
    rc_prob ilen[64][RC_ULEN], ibits[RC_UBITS];
    u_cs ispec[2];
    u_cs flen[256][16];
    rc_prob llen[RC_ULEN], lbits[RC_UBITS];
    rc_prob rlen[RC_ULEN], rbits[RC_UBITS];
    /* contexts: address */
    rc_prob az[16];
    rc_prob ahit[4][128];
    rc_prob *ap;            /* address hit contexts, hashed */
    uint32_t apmask;
    u_mixw aw[4][4];
    rc_prob akind[8 * 5][4];
    rc_prob arec[2][RECENT_N];
    rc_prob alen[3][24][RC_ULEN], abits[3][RC_UBITS];
    int16_t str[4096]; /* stretch */
    int16_t cstr[4096]; /* stretch of a count state's P(1), by its top 12 bits (cs_stretch) */
    const trz_know *know;   /* the member's facts, or NULL */
    /* the match model (chains; mh_addr NULL otherwise): per line its
     * address and key, 2^MH_BITS lines back; mt: per hash of MC_N lines,
     * the position of the line after them; the line a match predicts
     * (mptr) and how many lines it held (mlen, 0: none) */
    uint64_t *mh_addr;
    uint32_t *mh_key, *mt;
    uint8_t *mh_ctl;        /* per line its flow kind, and 4 if its branch was taken */
    uint64_t mpos, mptr;
    uint32_t mlen, mctx[MC_N];
    rc_prob maz[ML_N][2][4], mhit[ML_N][4];
    rc_prob mflow[ML_N][2], mbr[ML_N][2];
    u_mixw mbw[ML_N];
};
typedef struct uop_cm cm_t;

/* ---- helpers ---------------------------------------------------------------- */

static inline uint64_t hmix(uint64_t a, uint64_t b)
{
    uint64_t h = (a ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2))) * 0x9E3779B97F4A7C15ull;
    return h ^ (h >> 29) ^ (h >> 41);
}

static inline uint32_t hash_key(uint64_t pc, int64_t u)
{
    return rc_hash(pc ^ (uint64_t)u * 0xD6E8FEB86659FD93ull);
}

static inline int is_tn(uint8_t c) { return c == 'T' || c == 'N'; }
static inline uint8_t ch_cls(uint8_t c) { return is_tn(c) ? 'T' : c; }
static inline unsigned br_ctx(uint8_t c) { return c == '-' ? 0 : c == 'T' ? 1 : c == 'N' ? 2 : 3; }
static inline unsigned ls_ctx(uint8_t c) { return c == '-' ? 0 : c == 'L' ? 1 : c == 'S' ? 2 : 3; }

static inline uint64_t ras_top(const cm_t *m) { return m->ras[(m->rsp - 1) & (RAS_N - 1)]; }

/* Registers and length fit an entry's 16 bits (else the line is escaped). */
UOP_HELPER int fits(const uop_t *x)
{
    int64_t l = (int64_t)(x->ft - x->pc);
    for (int i = 0; i < 3; i++)
        if (x->s[i] < INT16_MIN || x->s[i] > INT16_MAX) return 0;
    return l >= INT16_MIN && l <= INT16_MAX;
}

/* The model m (NULL: a new one) ready for a chunk (uop_cm_model.c); NULL
 * on no memory (m freed).  uop_cm_free frees it. */
cm_t *uop_cm_open(cm_t *m, uint64_t nlines, const trz_know *know, int kstream, int chain);
void uop_cm_free(cm_t *m); /* accepts NULL */

#endif
