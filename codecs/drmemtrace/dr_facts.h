/* dr_facts.h - the static facts of a chunk's instructions, by PC: what
 * the instruction at a PC always is (its record type, length, encoding
 * bytes, the memory records after it, a direct branch's target).  Only the
 * learn step of the record coder writes here (facts_add, facts_fill_*);
 * the models only read.  Dynamic state (histories, strides, the return
 * stack) lives elsewhere, so that this table alone can be carried from
 * one chunk to the next.  Facts are never trusted: the coder codes every
 * record against them. */
#ifndef TRZ_DR_FACTS_H
#define TRZ_DR_FACTS_H

#include "dr_int.h"

#define DR_MAXMEM 32            /* memory records a pattern holds */

#define DR_MAX_POOL (1u << 21)  /* pattern entries at most (facts: TRZ_KNOW_MAX_FACTS, as the store) */
#define DR_NOPAT 0xFF           /* nmem of a fact whose pattern is not kept */

typedef struct dr_fact {
    uint64_t pc;
    uint64_t target;  /* a direct branch's target; 0: unknown */
    uint16_t len;     /* the instruction record's size */
    uint8_t type;     /* its record type (48 for a conditional branch of version 5 on) */
    uint8_t nmem;     /* memory records after it, or DR_NOPAT */
    uint8_t enc_n;    /* encoding bytes known (0: none) */
    uint8_t mbase;    /* from the encoding: base register of the memory operand (16: rip, 255: none) */
    uint16_t opid;    /* from the encoding: map, opcode (drx_info.opid); 0: none */
    int32_t mdisp;    /* from the encoding: its displacement */
    uint32_t pat;     /* the pattern: nmem entries of the pool, type << 16 | size */
    uint8_t enc[16];
} dr_fact;

typedef struct dr_facts {
    dr_fact *f;
    uint32_t n, cap;
    uint32_t *slot; /* open addressing: fact index + 1, 0 empty */
    uint32_t mask;
    uint32_t *pool;
    uint32_t npool, cappool;
} dr_facts;

static inline uint32_t facts_hash(uint64_t pc)
{
    pc *= 0x9E3779B97F4A7C15ull;
    return (uint32_t)(pc >> 32);
}

static inline void facts_free(dr_facts *t)
{
    free(t->f);
    free(t->slot);
    free(t->pool);
    memset(t, 0, sizeof *t);
}

static inline int facts_init(dr_facts *t)
{
    memset(t, 0, sizeof *t);
    t->cap = 1024;
    t->mask = 2047;
    t->cappool = 1024;
    t->f = malloc(t->cap * sizeof *t->f);
    t->slot = calloc(t->mask + 1, sizeof *t->slot);
    t->pool = malloc(t->cappool * sizeof *t->pool);
    if (!t->f || !t->slot || !t->pool) { facts_free(t); return -1; }
    return 0;
}

/* The fact of pc, or NULL.  The pointer holds until the next facts_add. */
static inline const dr_fact *facts_find(const dr_facts *t, uint64_t pc)
{
    for (uint32_t h = facts_hash(pc) & t->mask;; h = (h + 1) & t->mask) {
        uint32_t s = t->slot[h];
        if (!s) return NULL;
        if (t->f[s - 1].pc == pc) return &t->f[s - 1];
    }
}

static inline const uint32_t *facts_pattern(const dr_facts *t, const dr_fact *f) { return t->pool + f->pat; }

/* ---- the learn step: the only writers ---------------------------------- */

static int facts_grow(dr_facts *t)
{
    uint32_t nm = t->mask * 2 + 1;
    uint32_t *ns = calloc((size_t)nm + 1, sizeof *ns);
    if (!ns) return -1;
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t h = facts_hash(t->f[i].pc) & nm;
        while (ns[h]) h = (h + 1) & nm;
        ns[h] = i + 1;
    }
    free(t->slot);
    t->slot = ns;
    t->mask = nm;
    return 0;
}

/* Add the fact of a PC not in the table, with its memory pattern pat[0..
 * f->nmem).  Returns 0, 1 when the table is full (the PC then has no fact:
 * encoder and decoder agree, as both fill the same way), -1 when out of
 * memory. */
static inline int facts_add(dr_facts *t, const dr_fact *f, const uint32_t *pat)
{
    if (t->n >= TRZ_KNOW_MAX_FACTS) return 1;
    if (2 * (t->n + 1) > t->mask + 1 && facts_grow(t)) return -1;
    if (t->n == t->cap) {
        dr_fact *nf = realloc(t->f, 2 * (size_t)t->cap * sizeof *nf);
        if (!nf) return -1;
        t->f = nf;
        t->cap *= 2;
    }
    dr_fact *d = &t->f[t->n];
    *d = *f;
    if (d->nmem != DR_NOPAT) {
        if (t->npool + d->nmem > DR_MAX_POOL) {
            d->nmem = DR_NOPAT;
        } else {
            while (t->npool + d->nmem > t->cappool) {
                uint32_t *np = realloc(t->pool, 2 * (size_t)t->cappool * sizeof *np);
                if (!np) return -1;
                t->pool = np;
                t->cappool *= 2;
            }
            d->pat = t->npool;
            memcpy(t->pool + t->npool, pat, d->nmem * sizeof *pat);
            t->npool += d->nmem;
        }
    }
    uint32_t h = facts_hash(f->pc) & t->mask;
    while (t->slot[h]) h = (h + 1) & t->mask;
    t->slot[h] = ++t->n;
    return 0;
}

/* A fact learnt later than its instruction: a direct target seen taken. */
static inline void facts_fill_target(dr_facts *t, const dr_fact *f, uint64_t target)
{
    dr_fact *d = &t->f[f - t->f];
    if (!d->target) d->target = target;
}

#endif
