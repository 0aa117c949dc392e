/* uop_know.h - the uop codec's facts (uop.md, "Knowledge"): their keys and
 * values, as both variants' models read them.  learn is in uop_learn.c,
 * the knowledge stream in uop_cm.c.  A fact is a prediction: every value
 * read here is checked only as far as the models need to stay in bounds. */
#ifndef TRZ_UOP_KNOW_H
#define TRZ_UOP_KNOW_H

#include "../codec.h"
#include "uop_dict.h"

/* Keys: a string of dictionary j (0 macro, 1 micro) at index i is
 * (j << 12 | i) << 8; an entry (pc, u) is pc << 8 | u for PCs from UK_PC_MIN
 * up to UK_PC_LIM, so that the two never meet; its address fact is that key
 * with bit 63 set. */
#define UK_PC_MIN 0x2000
#define UK_PC_LIM (1ull << 55)
#define UK_ADDR (1ull << 63)
#define UK_STR_MAX 2048 /* strings a group states: the rest of a dictionary is its chunks' own */
#define UK_ENTRY_LEN 24
#define UK_ADDR_LEN 8

static inline uint64_t uk_key(uint64_t pc, int64_t u)
{
    return u >= 1 && u <= 255 && pc >= UK_PC_MIN && pc < UK_PC_LIM ? pc << 8 | (uint64_t)u : 0;
}

static inline uint64_t uk_str(int j, uint32_t i) { return ((uint64_t)j << 12 | i) << 8; }

/* An entry's static fields as its fact holds them. */
typedef struct {
    uint16_t op[2];
    uint8_t ch[3], immu;
    int16_t ftl, s[3];
    int64_t imm;
} uk_static;

/* The value: macro and micro indices (16 bits each), the 3 chars, the
 * printed-unsigned flag, the length (fall-through - pc) and src1, src2,
 * dest (16 bits each), the immediate (64 bits); little-endian. */
static inline void uk_put(uint8_t *f, const uk_static *v)
{
    trz_st_le16(f, v->op[0]);
    trz_st_le16(f + 2, v->op[1]);
    memcpy(f + 4, v->ch, 3);
    f[7] = v->immu;
    trz_st_le16(f + 8, (uint16_t)v->ftl);
    for (int i = 0; i < 3; i++) trz_st_le16(f + 10 + 2 * i, (uint16_t)v->s[i]);
    trz_st_le64(f + 16, (uint64_t)v->imm);
}

static inline void uk_get(uk_static *v, const uint8_t *f)
{
    v->op[0] = trz_ld_le16(f);
    v->op[1] = trz_ld_le16(f + 2);
    memcpy(v->ch, f + 4, 3);
    v->immu = f[7];
    v->ftl = (int16_t)trz_ld_le16(f + 8);
    for (int i = 0; i < 3; i++) v->s[i] = (int16_t)trz_ld_le16(f + 10 + 2 * i);
    v->imm = (int64_t)trz_ld_le64(f + 16);
}

/* The fact of (pc, u) when it has one whose strings the dictionaries d hold:
 * 1 and *v set; else 0. */
static inline int uk_entry(const trz_know *k, const uop_dict *d, uint64_t pc, int64_t u, uk_static *v)
{
    uint64_t key = uk_key(pc, u);
    size_t n;
    const uint8_t *f = key ? trz_know_get(k, key, &n) : NULL;
    if (!f || n != UK_ENTRY_LEN) return 0;
    uk_get(v, f);
    return v->op[0] < d[0].n && v->op[1] < d[1].n;
}

/* Whether the group knows (pc, u + 1): the instruction has another micro-op,
 * so the next line is likely it. */
static inline int uk_more(const trz_know *k, uint64_t pc, int64_t u)
{
    uint64_t key = uk_key(pc, u + 1);
    size_t n;
    return key && trz_know_get(k, key, &n) != NULL;
}

/* The address fact of (pc, u), or 0. */
static inline uint64_t uk_addr(const trz_know *k, uint64_t pc, int64_t u)
{
    uint64_t key = uk_key(pc, u);
    size_t n;
    const uint8_t *f = key ? trz_know_get(k, key | UK_ADDR, &n) : NULL;
    return f && n == UK_ADDR_LEN ? trz_ld_le64(f) : 0;
}

/* For an address fact of (pc, u) (key = pc << 8 | u): the entry fact of
 * (pc, u) as the knowledge stream's address prediction reads it, all
 * fields 0 when there is none of 24 bytes, and the base register it names
 * (src1 mod UK_NBASE), whose last address less immediate predicts it. */
#define UK_NBASE 64
static inline unsigned uk_addr_base(const trz_know *k, uint64_t key, uk_static *v)
{
    size_t n;
    const uint8_t *f = trz_know_get(k, key, &n);
    if (f && n == UK_ENTRY_LEN) uk_get(v, f);
    else memset(v, 0, sizeof *v);
    return (unsigned)((uint64_t)v->s[0] & (UK_NBASE - 1));
}

/* Empty dictionaries d[0..1] take the group's strings, in index order. */
static inline void uk_dicts(uop_dict *d, const trz_know *k)
{
    for (int j = 0; j < 2; j++) {
        size_t n;
        const uint8_t *s;
        while (d[j].n < UK_STR_MAX && (s = trz_know_get(k, uk_str(j, d[j].n), &n)) != NULL)
            if (dict_put(&d[j], s, n) < 0) break;
    }
}

#endif
