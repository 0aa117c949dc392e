/* rst_int.h - internals shared by the RST codec files (rst.c, rst_codec.c,
 * rst_util.c and model variant 1's): record-type constants, canonical
 * (big-endian) field access, the byte-order permutation that maps
 * little-endian records onto the BE layout, the model's parts and variant
 * 0's entry points. */
#ifndef TRZ_RST_INT_H
#define TRZ_RST_INT_H
#include "../codec.h"
#include "rst_v1.h"

#define RST_REC 24
enum {
    RT_HEADER = 2, RT_INSTR = 3, RT_TRACEINFO = 4, RT_TLB = 5, RT_THREAD = 6, RT_TRAP = 7,
    RT_TRAPEXIT = 8, RT_REGVAL = 9, RT_CPU = 11, RT_PROCESS = 12, RT_DMA = 13, RT_STRDESC = 14,
    RT_PREG = 17, RT_PHYSADDR = 18, RT_PAVADIFF = 19, RT_STRCONT = 21, RT_FMARKER = 22,
    RT_MEMVAL = 26, RT_TSB = 29, RT_TRAPPING = 34
};

/* 1 for the rtypes the format defines (2..19, 21..34 without 10 and 20). */
static inline int rst_known_rtype(unsigned t)
{
    return t >= 2 && t <= 34 && t != 10 && t != 20;
}

/* cpuid of an INSTR record in canonical layout (bits 5..0 in byte 2, 9..6 across 2..3). */
static inline unsigned rst_instr_cpu(const uint8_t *r)
{
    return (unsigned)(r[2] >> 2) | (unsigned)(((r[2] & 3) << 2) | (r[3] >> 6)) << 6;
}
static inline unsigned rst_pv_cpu(const uint8_t *r) /* PAVADIFF / PHYSADDR */
{
    return (unsigned)(r[1] & 0x7f) | (unsigned)(r[2] >> 5) << 7;
}

/* Map one record between the source byte order and the canonical BE layout. */
void rst_to_canon(uint8_t *dst, const uint8_t *src);   /* LE source -> BE canon */
void rst_from_canon(uint8_t *dst, const uint8_t *src); /* BE canon -> LE source */
/* A chunk's records in the canonical layout: the input itself, or (LE)
 * *copy, a converted copy the caller frees; NULL when out of memory. */
const uint8_t *rst_canon_input(const trz_enc_args *a, uint8_t **copy);
void rst_uncanon_output(const trz_dec_args *a); /* in place, for an LE chunk */

/* Carried knowledge (rst.md, "Knowledge"): a fact is an instruction word
 * (BE32) under its PC.  With knowledge, both model variants tag their
 * I-cache entries with whose word they hold; a PC new to its entry takes
 * its fact's word (and keeps the entry's when it has none). */
#define RST_FACT_IW 4
typedef struct { uint32_t iw, tag; } rst_ic_ent;
static inline uint32_t rst_ic_tag(uint64_t pc) { return (uint32_t)(pc >> 20) | 0x80000000u; }
void rst_ic_fill(const trz_know *k, rst_ic_ent *e, uint64_t pc);
int rst_learn(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, int byte_order, trz_know_add_fn add,
              void *ctx);

/* ---- the codec's table (rst_codec.c): variants, levels, model state ----
 * Variant 0 (id 0) codes fields into byte streams for the back-end (rst.c);
 * variant 1 (id 1, stated as 2 in a member with knowledge) range-codes
 * every field (rst_v1.c).  Indices in rst_variants: */
enum { RST_VAR_STREAMS, RST_VAR_RANGE };

/* A level's parameters (rst_levels in rst_codec.c). */
typedef struct rst_level {
    uint8_t variant; /* RST_VAR_* */
    /* range: the back-end level at which variant 0's streams are sized
     * against the range-coded stream (the smaller is written) */
    uint8_t trial_level;
    /* range: the chunks' size in MiB (0: the container's 16), so that the
     * decoder's window (24 MiB), its chunk and the one decoded ahead stay
     * under 64 MB (rst.md, "Chains") */
    uint8_t chunk_mib;
} rst_level;

/* The model (trz_model): a part per variant, each made for a member with
 * or without knowledge (they differ in their I-cache); see rst_codec.c. */
struct rst_v0_model;
struct rst_v0_in;
struct rst_v1_model;
typedef struct rst_model {
    const rst_level *lv;      /* the level's row; NULL: a decoder's */
    int know;                 /* made for a member with knowledge */
    struct rst_v0_model *v0;  /* variant 0 (rst.c) */
    struct rst_v0_in *v0in;   /* variant 0's decoder input tails */
    struct rst_v1_model *v1;  /* variant 1 (rst_v1.c) */
    int used;                 /* has coded a chunk since made or reset */
    rst_win win;              /* variant 1's chain window, kept across resets */
    rst_win *wp;              /* the window variant 1 reads: win, or the encoder's (rst_model_share) */
} rst_model;

/* Variant 0 (rst.c): its model part for a member with knowledge or without
 * (NULL if out of memory; its tables' failure shows at its first chunk),
 * which of the two it is, its decoder's input tails, its chunk coders and
 * its streams' names (NULL for an id it does not write). */
struct rst_v0_model *rst_v0_new(int know);
void rst_v0_free(struct rst_v0_model *m); /* accepts NULL */
int rst_v0_knows(const struct rst_v0_model *m);
struct rst_v0_in *rst_v0_in_new(void);
void rst_v0_in_free(struct rst_v0_in *d); /* accepts NULL */
int rst_v0_encode(const trz_enc_args *a, struct rst_v0_model *m);
int rst_v0_decode(const trz_dec_args *a, struct rst_v0_model *m, struct rst_v0_in *d);
const char *rst_v0_stream_name(unsigned id);

/* cpuid carried by a canonical record, or -1 when the rtype has none. */
int rst_rec_cpu(const uint8_t *r);

int rst_probe(const uint8_t *buf, size_t len, int *byte_order);
void rst_dump(FILE *f, uint64_t recno, const uint8_t *rec, int byte_order);
void rst_convert(uint8_t *recs, size_t len, int from, int to);
void rst_cpus_seen(const uint8_t *buf, size_t len, int byte_order, uint64_t cpus[16]);
/* Records as both model variants' decoders write them (canonical, big-endian). */
static inline void rst_put_instr(uint8_t *r, uint32_t hdr, unsigned f, unsigned nu3, uint32_t iw, uint64_t pc,
                                 uint64_t ea)
{
    trz_st_be64(r, (uint64_t)(hdr | (f & 0xff) << 16 | (nu3 & 0xff)) << 32 | iw);
    trz_st_be64(r + 8, pc);
    trz_st_be64(r + 16, ea);
}

static inline void rst_put_pavadiff(uint8_t *r, unsigned ev, unsigned cpu, unsigned nu13, unsigned ictx,
                                    unsigned dctx, uint64_t pcpa, uint64_t eapa)
{
    r[0] = RT_PAVADIFF;
    r[1] = (uint8_t)(ev << 7 | (cpu & 0x7f));
    r[2] = (uint8_t)((cpu >> 7) << 5 | nu13 >> 8);
    r[3] = (uint8_t)nu13;
    trz_st_be16(r + 4, (uint16_t)ictx);
    trz_st_be16(r + 6, (uint16_t)dctx);
    trz_st_be64(r + 8, pcpa);
    trz_st_be64(r + 16, eapa);
}

/* Any other record: rtype and 56 bits of header, then two 64-bit words. */
static inline void rst_put_words(uint8_t *r, unsigned rt, uint64_t h, uint64_t a, uint64_t b)
{
    trz_st_be64(r, h | (uint64_t)rt << 56);
    trz_st_be64(r + 8, a);
    trz_st_be64(r + 16, b);
}

#endif
