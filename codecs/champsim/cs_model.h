/* cs_model.h - the ChampSim codec's range-coded model: its streams, its
 * tables (champsim.c codes with them, cs_model.c makes them) and the model
 * state a codec table's operations keep (cs_codec.c). */
#ifndef TRZ_CS_MODEL_H
#define TRZ_CS_MODEL_H

#include "champsim_int.h"
#include "cs_rc.h"

/* One stream (id 0) holds every decision, range-coded: per-field streams
 * cost a table entry and a coder flush each per chunk, about 1% of a
 * well-predicted trace (the CS_STATS build gives the cost of each field). */
enum { S_MODEL, S_NSTREAMS };

#define CS_VERSION 0      /* model variant in the header stream */
#define CS_VERSION_KNOW 1 /* the same, starting from the member's facts */
#define CS_VERSION_CHAIN 2   /* a chain's first chunk: then the ring's size */
#define CS_VERSION_CHAINED 3 /* a later chunk of a chain: from its model's state */
/* A chain's ring of records for the match model: 2^bits records, stated in
 * its first chunk, between these. */
#define CS_RING_MIN 10
#define CS_RING_MAX 21

typedef struct {
    unsigned pc, mem, sig, len, br, mt;
} cs_sizes;

#define RAS_N 64

typedef struct {
    uint64_t ip;     /* tag */
    uint64_t target; /* last taken successor */
    uint64_t regs;   /* the 8 register bytes, little-endian */
    uint8_t valid, ib, bt, btdyn; /* btdyn: bt is 0/1 and coded per record */
    uint8_t mmask, len, kind, hist; /* len: fall-through (0 = unknown); hist: ip hit history */
    uint16_t lhist;  /* local branch history */
    uint16_t lohash; /* a low-order hash of the static fields: kind, mask, register counts */
    uint32_t sighash;
} cs_pc;

/* Memory state of one (PC, slot). */
typedef struct {
    uint64_t last, stride;
    uint64_t off[4]; /* address - by_reg[source register k] at the last visit */
    uint64_t poff;   /* address - the previous memory instruction's first address */
    uint8_t valid, offv, pvalid; /* offv: bit k = off[k] valid */
    uint8_t win;     /* candidate that was right last time (M_*), or M_NONE */
    uint8_t rk;      /* source register slot of the R candidate */
    uint8_t hist;    /* 1 = the first candidate asked was right */
    uint8_t dbl;     /* last coded delta: bit length + 1, 0 = none */
    uint8_t dinfo;   /* last coded delta: trailing zeros (max 3) | sign (1 +, 2 -) << 2 */
    uint8_t dj;      /* D candidate: recent delta j (bits 1..0), scaled by 2^(bits 4..2 - 3); 0xff = none */
    uint8_t bj;      /* base of the last coded delta (B_*), B_N = none */
    uint8_t pad[6];
} cs_mem;

/* Memory deltas: bit length in the context of (destination, valid entry,
 * class of the entry's last delta length), low bits in the context of the
 * last delta's alignment, sign in that of its sign. */
#define MD_LC 18
/* Bases a delta is taken from: the entry's last address (or, for a new
 * entry, the previous memory access), the last address accessed through
 * source register k, the instruction's own ip. */
#define NRECENT 26 /* recent 64-byte blocks whose last address is a base */
#define BASE_BITS 5 /* a base choice: B_N = 32 values */
#define BASE_LIM 60
enum { B_LAST, B_REG0, B_REG1, B_REG2, B_REG3, B_IP, B_RECENT, B_N = B_RECENT + NRECENT };
typedef struct {
    rc_cnt len[2 * 2 * 4 * MD_LC][128];
    rc_cnt base[2 * 2 * (B_N + 1) * 32][1 << BASE_BITS];
    rc_cnt mant[65][1 << CS_UMANT];
    rc_cnt low[4][8];
    rc_cnt sign[2 * 3];
} mem_dmodel;

/* Address candidates, in the default order they are asked after the one
 * right last time: M = the match model's record, S = last + stride, R = by
 * register, P = by the previous memory access. */
enum { M_M, M_S, M_R, M_P, M_D, M_NC, M_NONE = M_NC };
#define ND 4 /* recent deltas kept for the D candidate */

/* Branch outcome: inputs of the mixer. */
enum { B_BIM, B_GS, B_GL, B_LOC, B_MATCH, B_BIAS, B_NIN };
#define B_NSET 9

typedef struct {
    cs_sizes z;
    cs_pc *pc;
    cs_mem *mem;
    rc_cnt *sig, *lent, *bim, *runpc;
    cs_p *gs, *gl, *loc;
    uint32_t *mt;
    rc_cnt ip_hit[CS_NKIND * 2 * 4 * 3];
    cs_p ip_mhit[9 * 2];
    cs_smodel ip_delta[CS_NKIND * 2];
    rc_cnt sig_hit[4];
    rc_cnt run2[13 * 17];
    cs_p btdyn[CS_NKIND];
    cs_p mem_eq[2 * 4];
    cs_p mem_eqidx[4];
    rc_cnt mem_hit[M_NC * 2 * 9 * 3 * (M_NC + 1)];
    mem_dmodel md;
    rc_cnt brm[2 * 9];
    cs_mixw bw[B_NSET];
    int32_t sw[11 * 4][3]; /* static-field mixers: weights, 16.16 */
    cs_mixw lw[4];         /* fall-through length mixers */
    cs_p ex_same[2];
    cs_p ex_byte[14][256];
    cs_mixtab mx;
    uint64_t ras[RAS_N];
    unsigned ras_top;
    uint64_t ghist;
    uint64_t last_addr;
    uint64_t dring[ND];   /* the last ND nonzero address deltas (address - last at the same PC, slot) */
    uint64_t recent[NRECENT]; /* the last address in each of the most recently accessed 64-byte blocks, most recent first */
    uint64_t by_reg[256]; /* last address an instruction reading the register accessed */
    uint8_t by_reg_ok[256];
    size_t mptr;          /* match model: the record predicted next, or SIZE_MAX */
    unsigned mlen;        /* records the match has predicted exactly in a row */
    uint64_t fp[4];       /* fingerprints of the last 4 records */
    const trz_know *know; /* the member's facts (carried knowledge), or NULL */
    int used;             /* has coded a chunk since it was cleared */
    /* The record loop's state between records, kept here so that a chain's
     * next chunk goes on from it (fresh: model_clear). */
    cs_pc *pe;            /* entry of the previous record's PC, or NULL */
    cs_pc pv;             /* the previous record's static fields */
    uint64_t prev_ip;
    int prev_taken;
    uint8_t prev_extra[14];
    /* Chains (champsim.md, "Chains"): records are numbered from the chain's
     * first (mptr and the match table count so); gbase is the number of
     * the chunk's first.  The last ring_fill (at most 2^ring_bits) records
     * before it are kept in ring, at their number modulo its size, for the
     * match model.  Alone, gbase = ring_fill = 0. */
    int chained;          /* codes a chunk of a chain */
    int live;             /* a chain's state: the next chained chunk goes on from it */
    uint64_t gbase;
    uint64_t ring_fill;
    unsigned ring_bits;
    uint32_t L_ring;      /* the ring's record size */
    uint8_t *ring;        /* 2^ring_bits records (a cs_ring's), or NULL */
    uint8_t ring_write;   /* the chunk's last records go into the ring (not an encoder's lent one) */
} cs_model;

#define T_PC ((size_t)1 << m->z.pc) * sizeof(cs_pc)
#define T_MEM ((size_t)1 << m->z.mem) * sizeof(cs_mem)
#define T_SIG ((size_t)1 << m->z.sig) * sizeof(rc_cnt)
#define T_LEN ((size_t)16 << m->z.len) * sizeof(rc_cnt)
#define T_BIM ((size_t)1 << m->z.br) * sizeof(rc_cnt)
#define T_BRP ((size_t)1 << m->z.br) * sizeof(cs_p)
#define T_MT ((size_t)1 << m->z.mt) * sizeof(uint32_t)
#define T_ALL (T_PC + T_MEM + T_SIG + T_LEN + 2 * T_BIM + 3 * T_BRP + T_MT)


/* ---- model state and variants ---------------------------------------------
 * The model: a part per variant, each sized at its chunk (the tables follow
 * the record count), so a model is made with no parts and a part at its
 * variant's first chunk. */
/* A chain's ring of records (the model's ring points into it), kept by the
 * codec's state rather than by the range-coded part, which a chain's first
 * chunk may make again: a self-check's decoder reads its encoder's
 * (cs_model_share). */
typedef struct cs_ring {
    uint8_t *p;     /* 2^bits records of size bytes, or NULL */
    unsigned bits;
    uint32_t size;
    int lent;       /* a decoder reads it too: it writes the records, the encoder does not */
} cs_ring;

typedef struct cs_state {
    struct csf_model *fast; /* the fast variant's (cs_fast.c) */
    cs_model *range;        /* the range-coded variants' */
    cs_ring ring;           /* its own ring */
    cs_ring *rp;            /* the ring it codes with: &ring, or its encoder's (NULL: &ring) */
} cs_state;

/* champsim.c: the range-coded variant, one entry per layout, on the model
 * *pm (made or fitted to the chunk there); rb: a chain's ring bits. */
int cs_range_encode64(const trz_enc_args *a, cs_model **pm, unsigned rb, cs_ring *ring);
int cs_range_encode96(const trz_enc_args *a, cs_model **pm, unsigned rb, cs_ring *ring);
int cs_range_decode64(const trz_dec_args *a, cs_model **pm, cs_ring *ring);
int cs_range_decode96(const trz_dec_args *a, cs_model **pm, cs_ring *ring);

/* cs_model.c */
void cs_smodel_init(cs_smodel *s, size_t n);
cs_model *cs_range_fit(cs_model **pm, uint64_t nrec);
cs_model *cs_range_chain(cs_model **pm, uint64_t nrec, unsigned ring_bits, uint32_t rsize, cs_ring *ring, int enc);
void cs_ring_free(cs_ring *ring);
void cs_range_free(cs_model *m);
cs_model *cs_know_model_new(uint64_t n);
void cs_know_model_free(cs_model *m);

/* ---- the PC and address tables (champsim.c codes with them) ---------- */

/* The PC table is 2-way set associative, way 0 the most recently used. */
static inline cs_pc *pc_set(cs_model *m, uint64_t ip)
{
    return &m->pc[(size_t)(h32(ip) >> (33 - m->z.pc)) * 2];
}

/* The entry of ip, or NULL. */
static inline cs_pc *pc_find(cs_model *m, uint64_t ip)
{
    cs_pc *s = pc_set(m, ip);
    if (s[0].valid && s[0].ip == ip) return &s[0];
    if (s[1].valid && s[1].ip == ip) return &s[1];
    return NULL;
}

/* The entry of ip, moved to way 0; *fresh = 1 when it was not there (the
 * least recently used way is then given to it, cleared). */
static inline cs_pc *pc_get(cs_model *m, uint64_t ip, int *fresh)
{
    cs_pc *s = pc_set(m, ip);
    *fresh = 0;
    if (TRZ_LIKELY(s[0].valid && s[0].ip == ip)) return &s[0];
    if (s[1].valid && s[1].ip == ip) {
        cs_pc t = s[1];
        s[1] = s[0];
        s[0] = t;
        return &s[0];
    }
    *fresh = 1;
    s[1] = s[0];
    memset(&s[0], 0, sizeof s[0]);
    s[0].ip = ip;
    s[0].valid = 1;
    return &s[0];
}

static inline uint32_t mem_index(const cs_model *m, uint64_t ip, unsigned slot)
{
    return h32(ip * 8 + slot) >> (32 - m->z.mem);
}

#endif
