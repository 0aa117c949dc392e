/* rc_model.h - what models build on rc.h: integers (a bit length in the
 * caller's context, then the bits below the leading one), context hashing,
 * tables of hashed context blocks sized per chunk, and coding costs for
 * encoders that compare options without coding them.  Spec: coder.md. */
#ifndef TRZ_RC_MODEL_H
#define TRZ_RC_MODEL_H

#include "rc.h"

/* ---- integers ------------------------------------------------------------ */

/* A value v is coded as its bit length L (0..64) through a length tree the
 * caller picks by context, then the m = L - 1 bits below the leading one:
 * the top k = min(m, RC_ITOP) through a bit tree for L, the lowest
 * a = min(m - k, RC_IALIGN) through a reverse tree all lengths share (trace
 * values are often multiples of 4, 8 or 64), the ones between direct.
 *   len:  RC_ULEN probabilities: nodes 1..63 a 6-bit tree of min(L, 63);
 *         entry 0 unused.
 *   bits: RC_UBITS probabilities: the tree for L at [L << RC_ITOP] (nodes
 *         1..7), the sign of a signed value of length L at [L << RC_ITOP],
 *         the align tree at [65 << RC_ITOP] (nodes 1..15), and at [1] the
 *         bit telling L = 64 from L = 63.
 * Models pick both blocks by context (len by the context that predicts the
 * size of a value, bits usually one per field). */
#define RC_ITOP 3
#define RC_ULEN 64
#define RC_IALIGN 4
#define RC_UBITS ((65 << RC_ITOP) + 16)

TRZ_FORCE_INLINE int rc_bitlen64(uint64_t v)
{
#if defined(__GNUC__)
    return v ? 64 - __builtin_clzll(v) : 0;
#else
    int n = 0;
    while (v) v >>= 1, n++;
    return n;
#endif
}

TRZ_FORCE_INLINE int rc_ulen(rc *c, rc_prob *len, rc_prob *bits, int L)
{
    int l = (int)rc_tree(c, len, 6, (uint32_t)(L < 63 ? L : 63));
    if (l == 63) l += rc_bit(c, &bits[1], L == 64);
    return l;
}

/* The bits below the leading one of a value of length L >= 2. */
TRZ_FORCE_INLINE uint64_t rc_ulow(rc *c, rc_prob *bits, int L, uint64_t v)
{
    int m = L - 1, k = m < RC_ITOP ? m : RC_ITOP, d = m - k;
    uint64_t r = 1;
    r = r << k | rc_tree(c, bits + (L << RC_ITOP), k, (uint32_t)(v >> d));
    int a = d < RC_IALIGN ? d : RC_IALIGN;
    d -= a;
    if (d > 32) { /* rc_direct takes 32 bits at most */
        r = r << (d - 32) | rc_direct(c, (uint32_t)(v >> (a + 32)), d - 32);
        d = 32;
    }
    r = r << d | rc_direct(c, (uint32_t)(v >> a), d);
    return r << a | rc_rtree(c, bits + (65 << RC_ITOP), a, (uint32_t)v);
}

/* An unsigned 64-bit value (decoding: v is ignored, the value read returned). */
TRZ_FORCE_INLINE uint64_t rc_uint(rc *c, rc_prob *len, rc_prob *bits, uint64_t v)
{
    int L = rc_ulen(c, len, bits, c->dec ? 0 : rc_bitlen64(v));
    return L <= 1 ? (uint64_t)L : rc_ulow(c, bits, L, v);
}

/* A signed value: its magnitude's length, then (if not 0) the sign in the
 * context of the length, then the magnitude's lower bits. */
TRZ_FORCE_INLINE int64_t rc_sint(rc *c, rc_prob *len, rc_prob *bits, int64_t v)
{
    uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int L = rc_ulen(c, len, bits, c->dec ? 0 : rc_bitlen64(a));
    if (L == 0) return 0;
    int neg = rc_bit(c, &bits[L << RC_ITOP], v < 0);
    a = L == 1 ? 1 : rc_ulow(c, bits, L, a);
    return neg ? -(int64_t)(a - 1) - 1 : (int64_t)a; /* -2^63 without overflow */
}

/* ---- costs --------------------------------------------------------------- */

/* Costs are in 1/256 bit (RC_BIT_COST = one bit). */
#define RC_BIT_COST 256u

/* -log2(q / 65536) * 256 for q in 1..65535: the exponent from the leading
 * bit, the mantissa's log2 by linear interpolation in a 33-entry table of
 * 1/4096 bits (within 0.6 units of the exact value). */
static inline uint32_t rc_log_cost(uint32_t q)
{
    static const uint16_t lg[33] = { /* round(4096 * log2(1 + i / 32)) */
           0,  182,  358,  530,  696,  858, 1016, 1169, 1319, 1465, 1607, 1746,
        1882, 2015, 2145, 2272, 2396, 2518, 2637, 2754, 2869, 2982, 3092, 3200,
        3307, 3412, 3514, 3615, 3715, 3812, 3908, 4003, 4096 };
    int e = rc_bitlen64(q) - 1;            /* 0..15 */
    uint32_t f = (q << (15 - e)) & 0x7FFF; /* mantissa below the leading one, 15 bits */
    uint32_t i = f >> 10, w = f & 1023;
    uint32_t l = (lg[i] * (1024 - w) + lg[i + 1] * w + 512) >> 10; /* 1/4096 bits */
    return ((uint32_t)(16 - e) * 4096 - l + 8) >> 4;
}

/* Cost of coding bit with P(0) = p / 65536. */
static inline uint32_t rc_cost(uint32_t p, int bit) { return rc_log_cost(bit ? 65536 - p : p); }
static inline uint32_t rc_cost2(rc_prob2 p, int bit) { return rc_cost(((p & 0xFFFF) + (p >> 16)) >> 1, bit); }

static inline uint32_t rc_tree_cost(const rc_prob *t, int n, uint32_t v)
{
    uint32_t m = 1, cost = 0;
    for (int i = n - 1; i >= 0; i--) {
        int b = (int)(v >> i) & 1;
        cost += rc_cost(t[m], b);
        m = m << 1 | (uint32_t)b;
    }
    return cost;
}

static inline uint32_t rc_ulen_cost(const rc_prob *len, const rc_prob *bits, int L)
{
    uint32_t cost = rc_tree_cost(len, 6, (uint32_t)(L < 63 ? L : 63));
    return L >= 63 ? cost + rc_cost(bits[1], L == 64) : cost;
}

static inline uint32_t rc_rtree_cost(const rc_prob *t, int n, uint32_t v)
{
    uint32_t m = 1, cost = 0;
    for (int i = 0; i < n; i++) {
        int b = (int)(v >> i) & 1;
        cost += rc_cost(t[m], b);
        m = m << 1 | (uint32_t)b;
    }
    return cost;
}

static inline uint32_t rc_ulow_cost(const rc_prob *bits, int L, uint64_t v)
{
    int m = L - 1, k = m < RC_ITOP ? m : RC_ITOP, d = m - k, a = d < RC_IALIGN ? d : RC_IALIGN;
    return rc_tree_cost(bits + (L << RC_ITOP), k, (uint32_t)(v >> d)) + (uint32_t)(d - a) * RC_BIT_COST +
           rc_rtree_cost(bits + (65 << RC_ITOP), a, (uint32_t)v);
}

static inline uint32_t rc_uint_cost(const rc_prob *len, const rc_prob *bits, uint64_t v)
{
    int L = rc_bitlen64(v);
    return rc_ulen_cost(len, bits, L) + (L >= 2 ? rc_ulow_cost(bits, L, v) : 0);
}

static inline uint32_t rc_sint_cost(const rc_prob *len, const rc_prob *bits, int64_t v)
{
    uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    int L = rc_bitlen64(a);
    uint32_t cost = rc_ulen_cost(len, bits, L);
    if (L) cost += rc_cost(bits[L << RC_ITOP], v < 0);
    return L >= 2 ? cost + rc_ulow_cost(bits, L, a) : cost;
}

/* ---- context hashing ------------------------------------------------------ */

/* A 32-bit hash of a 64-bit context, every input bit reaching every output
 * bit (the finaliser of MurmurHash3's 64-bit hash, upper half). */
static inline uint32_t rc_hash(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ull;
    return (uint32_t)(x >> 32);
}

/* Adds one more component x to a context hash h. */
static inline uint32_t rc_hash_add(uint32_t h, uint64_t x) { return rc_hash(x + (uint64_t)h * 0x9E3779B97F4A7C15ull + h); }

/* ---- hashed context tables ----------------------------------------------- */

/* 2^bits blocks of 2^blog probabilities each, a block picked by the top
 * bits of a context hash.  Contexts whose hashes meet in a block share its
 * statistics: no check tells them apart (one that resets a block taken by
 * another context coded 23-44% more in the measurements of coder.md). */
typedef struct rc_table {
    rc_prob *p;
    size_t bytes;
    int bits, blog;
} rc_table;

#define RC_TABLE_MAX_BYTES ((size_t)32 << 20)

/* The bits of a table for about n contexts (the records of a chunk, say):
 * 2^bits >= n, at least 2^10 blocks, at most max_bytes.  Tables must be the
 * same size in the encoder and the decoder: derive n from what both know. */
static inline int rc_table_bits(uint64_t n, int blog, size_t max_bytes)
{
    int bits = 10;
    while (bits < 30 && ((uint64_t)1 << bits) < n) bits++;
    while (bits > 1 && ((size_t)2 << (bits + blog)) > max_bytes) bits--;
    return bits;
}

static inline void rc_table_reset(rc_table *t)
{
    rc_prob *p = t->p;
    size_t n = t->bytes / sizeof *p, have;
    if (!n) return;
    p[0] = RC_P0;
    for (have = 1; have < n; have *= 2) /* doubling copies: few calls for tens of MiB */
        memcpy(p + have, p, (have < n - have ? have : n - have) * sizeof *p);
}

/* Allocate (from the big-block pool, reused across chunks) and reset a
 * table.  Returns 0, or -1 when out of memory or over RC_TABLE_MAX_BYTES. */
static inline int rc_table_init(rc_table *t, int bits, int blog)
{
    memset(t, 0, sizeof *t);
    if (bits < 1 || bits > 30 || blog < 0 || blog > 16) return -1;
    size_t bytes = (size_t)2 << (bits + blog);
    if (bytes > RC_TABLE_MAX_BYTES) return -1;
    t->p = trz_big_malloc(bytes);
    if (!t->p) return -1;
    t->bytes = bytes;
    t->bits = bits;
    t->blog = blog;
    rc_table_reset(t);
    return 0;
}

static inline void rc_table_free(rc_table *t)
{
    if (t->p) trz_big_free(t->p, t->bytes);
    memset(t, 0, sizeof *t);
}

/* The block of context hash h. */
TRZ_FORCE_INLINE rc_prob *rc_table_at(const rc_table *t, uint32_t h)
{
    return t->p + ((size_t)(h >> (32 - t->bits)) << t->blog);
}

/* Ask for h's block ahead of rc_table_at, when the next context is known
 * early (tables are larger than the caches). */
static inline void rc_table_prefetch(const rc_table *t, uint32_t h)
{
#if defined(__GNUC__)
    __builtin_prefetch(t->p + ((size_t)(h >> (32 - t->bits)) << t->blog), 1);
#else
    (void)t, (void)h;
#endif
}

#endif
