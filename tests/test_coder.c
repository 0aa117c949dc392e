/* test_coder.c - the shared range coder (codecs/common/rc.h, rc_model.h):
 * the byte format against hand-checked vectors, round trips of every
 * primitive and helper, sizes against the entropy, costs, tables, and
 * damaged or truncated streams (decoded from exact-size buffers, so ASan
 * sees any read outside them). */
#include "../codecs/common/rc_model.h"
#include <math.h>
#include <stdio.h>

/* golden values: the format must not change unnoticed */
#define MIXED_SIZE 32770
#define MIXED_HASH 0xcce4574bdc6dbd40ull
#define CONST_SIZE 45

#define UNIT_RNG_SEED 88172645463325252ull
#include "unit.h"

static double urand(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

/* FNV-1a of a stream, for the golden values of generated streams */
static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* an exact-size copy: a read past its end is an ASan error */
static uint8_t *dup(const uint8_t *p, size_t n)
{
    uint8_t *q = malloc(n ? n : 1);
    if (n) memcpy(q, p, n);
    return q;
}

/* ---- the byte format ---- */

typedef struct { int kind; uint32_t p; int bit; } op; /* kind 0: rc_bit_p, 1: one direct bit */

static void code_ops(rc *c, const op *ops, size_t n, int *out)
{
    for (size_t i = 0; i < n; i++)
        out[i] = ops[i].kind ? (int)rc_direct(c, (uint32_t)ops[i].bit, 1) : rc_bit_p(c, ops[i].p, ops[i].bit);
}

static void vector(const char *name, const op *ops, size_t n, const uint8_t *want, size_t wn)
{
    char what[128];
    trz_buf o = { 0 };
    rc c;
    int got[64];
    rc_enc_init(&c, &o);
    code_ops(&c, ops, n, got);
    check(rc_enc_flush(&c) == 0, "flush");
    snprintf(what, sizeof what, "vector %s: bytes", name);
    check(o.n == wn && (wn == 0 || memcmp(o.p, want, wn) == 0), "%s", what);
    uint8_t *in = dup(want, wn);
    rc_dec_init(&c, wn ? in : NULL, wn);
    code_ops(&c, ops, n, got);
    int same = 1;
    for (size_t i = 0; i < n; i++) same &= got[i] == ops[i].bit;
    snprintf(what, sizeof what, "vector %s: decodes", name);
    check(same && rc_dec_ok(&c), "%s", what);
    free(in);
    free(o.p);
}

static void test_vectors(void)
{
    /* coder.md's worked example: 1 at P(0) = 1/2, 0 at 3/4, 1 at 1/4, then
     * 0xA5 as 8 direct bits: low ends at 0xC667FFFF00 after one shift, the
     * flush value is 0xC668000000, written as C6 68. */
    op ex[11] = { { 0, 0x8000, 1 }, { 0, 0xC000, 0 }, { 0, 0x4000, 1 } };
    for (int i = 0; i < 8; i++) ex[3 + i] = (op){ 1, 0, (0xA5 >> (7 - i)) & 1 };
    static const uint8_t ex_bytes[] = { 0xC6, 0x68 };
    vector("worked example", ex, 11, ex_bytes, 2);

    /* a carry through a held 0xFF at the flush: E? FF becomes F0 00, and the
     * zero flush byte after them is left out */
    static const op carry[] = { { 0, 0xF000, 1 }, { 0, 0x1000, 0 }, { 0, 0x1000, 0 }, { 0, 0xF000, 0 }, { 0, 0x1000, 0 } };
    static const uint8_t carry_bytes[] = { 0xF0, 0x00 };
    vector("carry", carry, 5, carry_bytes, 2);

    vector("no decisions", NULL, 0, NULL, 0);
    static const op one0[] = { { 0, 0x8000, 0 } }, one1[] = { { 0, 0x8000, 1 } };
    static const uint8_t b80[] = { 0x80 };
    vector("one 0 bit", one0, 1, NULL, 0);    /* low stays 0: the value 0 needs no byte */
    vector("one 1 bit", one1, 1, b80, 1);     /* low 0x7FFFFFFF rounds up to 0x80000000 */

    /* extreme probabilities: a 1 at P(0) = 65535/65536 leaves range 0xFFFF */
    static const op rare[] = { { 0, 65535, 1 }, { 0, 1, 0 }, { 0, 0x8000, 1 } };
    trz_buf o = { 0 };
    rc c;
    int got[3];
    rc_enc_init(&c, &o);
    code_ops(&c, rare, 3, got);
    rc_enc_flush(&c);
    uint8_t *in = dup(o.p, o.n);
    rc_dec_init(&c, in, o.n);
    code_ops(&c, rare, 3, got);
    check(got[0] == 1 && got[1] == 0 && got[2] == 1 && rc_dec_ok(&c), "extreme probabilities");
    free(in);
    free(o.p);

    /* an encoder appends to what its buffer holds, and leaves it alone */
    trz_buf pre = { 0 };
    trz_put_u8(&pre, 0x00);
    rc_enc_init(&c, &pre);
    rc_bit_p(&c, 0x8000, 0);
    rc_enc_flush(&c);
    check(pre.n == 1 && pre.p[0] == 0x00, "flush keeps a zero byte written before the stream");
    free(pre.p);
}

/* ---- round trips ---- */

/* A model written once: n decisions of every kind, their choice and
 * probabilities from a PRNG seeded alike in both directions. */
typedef struct {
    rc_prob p[16];
    rc_prob2 p2[4];
    rc_prob tree[1 << 10], rtree[1 << 6];
    rc_prob len[4][RC_ULEN], bits[RC_UBITS];
} mixed_model;

static void mixed(rc *c, mixed_model *m, uint64_t seed, size_t n, uint64_t *vals)
{
    uint64_t s = seed;
    rc_init(m->p, 16), rc_init2(m->p2, 4), rc_init(m->tree, 1 << 10), rc_init(m->rtree, 1 << 6);
    rc_init(m->len[0], 4 * RC_ULEN), rc_init(m->bits, RC_UBITS);
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t k = (uint32_t)(s >> 59);
        uint64_t v = vals[i];
        switch (k % 8) {
        case 0: v = (uint64_t)rc_bit(c, &m->p[(s >> 40) & 15], (int)(v & 1)); break;
        case 1: v = (uint64_t)rc_bit2(c, &m->p2[(s >> 40) & 3], (int)(v & 1)); break;
        case 2: v = (uint64_t)rc_bit_s(c, &m->p[(s >> 40) & 15], 1 + (int)((s >> 44) % 15), (int)(v & 1)); break;
        case 3: v = rc_direct(c, (uint32_t)v, (int)((s >> 40) % 33)); break;
        case 4: v = rc_tree(c, m->tree, 1 + (int)((s >> 40) % 10), (uint32_t)v); break;
        case 5: v = rc_rtree(c, m->rtree, 1 + (int)((s >> 40) % 6), (uint32_t)v); break;
        case 6: v = rc_uint(c, m->len[(s >> 40) & 3], m->bits, v); break;
        default: v = (uint64_t)rc_sint(c, m->len[(s >> 40) & 3], m->bits, (int64_t)v); break;
        }
        vals[i] = v;
    }
}

/* values the encoder side gives: whatever each decision's kind reads of them */
static void mixed_values(uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int L = (int)(rnd() % 65);
        v[i] = L == 0 ? 0 : L == 64 ? rnd() | 1ull << 63 : (rnd() & ((1ull << L) - 1)) | 1ull << (L - 1);
        if (rnd() % 8 == 0) v[i] = rnd() & 1 ? ~0ull : (uint64_t)INT64_MIN;
    }
}

/* The encoder's results are what it was given, masked to what each kind
 * codes; the decoder must reproduce them. */
static size_t mixed_round_trip(uint64_t seed, size_t n, uint64_t *hash)
{
    uint64_t *v = malloc(n * 8), *enc = malloc(n * 8);
    mixed_model *m = malloc(sizeof *m);
    mixed_values(v, n);
    memcpy(enc, v, n * 8);
    trz_buf o = { 0 };
    rc c;
    rc_enc_init(&c, &o);
    mixed(&c, m, seed, n, enc);
    rc_enc_flush(&c);
    uint8_t *in = dup(o.p, o.n);
    uint64_t *dec = calloc(n, 8);
    rc_dec_init(&c, in, o.n);
    mixed(&c, m, seed, n, dec);
    check(rc_dec_ok(&c) && memcmp(enc, dec, n * 8) == 0, "mixed decisions round trip");
    /* what the encoder returned is the value it coded */
    int same = 1;
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t k = (uint32_t)(s >> 59) % 8;
        if (k == 6 || k == 7) same &= enc[i] == v[i];
        if (k == 3) { int nb = (int)((s >> 40) % 33); same &= enc[i] == (nb == 32 ? v[i] & 0xFFFFFFFFu : v[i] & ((1ull << nb) - 1)); }
    }
    check(same, "mixed: encoder returns the value coded");
    *hash = fnv(o.p, o.n);
    size_t sz = o.n;
    free(in), free(o.p), free(v), free(enc), free(dec), free(m);
    return sz;
}

static void test_round_trips(void)
{
    /* bits at many skews through each counter */
    static const double p1s[] = { 0, 0.0001, 0.001, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 0.999, 1 };
    size_t n = 100000;
    uint8_t *b = malloc(n), *d = malloc(n);
    for (size_t k = 0; k < sizeof p1s / sizeof p1s[0]; k++) {
        for (size_t i = 0; i < n; i++) b[i] = urand() < p1s[k];
        for (int kind = 0; kind < 3; kind++) {
            trz_buf o = { 0 };
            rc c;
            rc_prob p = RC_P0;
            rc_prob2 p2 = RC_P2_0;
            rc_enc_init(&c, &o);
            for (size_t i = 0; i < n; i++)
                kind == 0 ? rc_bit(&c, &p, b[i]) : kind == 1 ? rc_bit2(&c, &p2, b[i]) : rc_bit_s(&c, &p, 1 + (int)(i % 15), b[i]);
            rc_enc_flush(&c);
            uint8_t *in = dup(o.p, o.n);
            rc_dec_init(&c, in, o.n);
            p = RC_P0, p2 = RC_P2_0;
            for (size_t i = 0; i < n; i++)
                d[i] = (uint8_t)(kind == 0 ? rc_bit(&c, &p, 0) : kind == 1 ? rc_bit2(&c, &p2, 0) : rc_bit_s(&c, &p, 1 + (int)(i % 15), 0));
            char what[96];
            snprintf(what, sizeof what, "round trip p1=%g counter %d", p1s[k], kind);
            check(rc_dec_ok(&c) && memcmp(b, d, n) == 0, "%s", what);
            free(in), free(o.p);
        }
    }
    free(b), free(d);

    /* direct bits of every width, trees of every depth */
    for (int w = 0; w <= 32; w++) {
        uint32_t v[64], got[64];
        trz_buf o = { 0 };
        rc c;
        rc_enc_init(&c, &o);
        for (int i = 0; i < 64; i++) v[i] = (uint32_t)rnd(), got[i] = rc_direct(&c, v[i], w);
        rc_enc_flush(&c);
        int ok = 1;
        uint32_t mask = (uint32_t)(((uint64_t)1 << w) - 1);
        for (int i = 0; i < 64; i++) ok &= got[i] == (v[i] & mask);
        uint8_t *in = dup(o.p, o.n);
        rc_dec_init(&c, in, o.n);
        for (int i = 0; i < 64; i++) ok &= rc_direct(&c, 0, w) == (v[i] & mask);
        check(ok && rc_dec_ok(&c) && o.n <= (size_t)(64 * w + 7) / 8 + 1, "direct bits of one width");
        free(in), free(o.p);
    }
    for (int depth = 1; depth <= 16; depth++) {
        rc_prob *t = malloc(sizeof(rc_prob) << depth), *r = malloc(sizeof(rc_prob) << depth);
        uint32_t v[200];
        trz_buf o = { 0 };
        rc c;
        rc_init(t, (size_t)1 << depth), rc_init(r, (size_t)1 << depth);
        rc_enc_init(&c, &o);
        for (int i = 0; i < 200; i++) {
            v[i] = (uint32_t)(rnd() % 7 ? rnd() % 3 : rnd()) & ((1u << depth) - 1);
            rc_tree(&c, t, depth, v[i]);
            rc_rtree(&c, r, depth, v[i]);
        }
        rc_enc_flush(&c);
        uint8_t *in = dup(o.p, o.n);
        rc_init(t, (size_t)1 << depth), rc_init(r, (size_t)1 << depth);
        rc_dec_init(&c, in, o.n);
        int ok = 1;
        for (int i = 0; i < 200; i++) {
            ok &= rc_tree(&c, t, depth, 0) == v[i];
            ok &= rc_rtree(&c, r, depth, 0) == v[i];
        }
        check(ok && rc_dec_ok(&c), "bit trees of one depth");
        free(in), free(o.p), free(t), free(r);
    }

    /* integers: every bit length, its ends, and the signed extremes */
    {
        uint64_t u[65 * 4];
        int64_t s[65 * 4 + 6];
        size_t nu = 0, ns = 0;
        for (int L = 0; L <= 64; L++) {
            uint64_t lo = L ? 1ull << (L - 1) : 0, hi = L == 64 ? ~0ull : L ? (1ull << L) - 1 : 0;
            u[nu++] = lo, u[nu++] = hi, u[nu++] = L > 1 ? lo | (rnd() & (hi >> 1)) : lo, u[nu++] = hi;
            if (L < 64) s[ns++] = (int64_t)lo, s[ns++] = -(int64_t)lo, s[ns++] = (int64_t)hi, s[ns++] = -(int64_t)hi;
        }
        s[ns++] = INT64_MIN, s[ns++] = INT64_MAX, s[ns++] = INT64_MIN + 1, s[ns++] = -1, s[ns++] = 0, s[ns++] = 1;
        rc_prob len[RC_ULEN], bits[RC_UBITS], slen[RC_ULEN];
        trz_buf o = { 0 };
        rc c;
        rc_init(len, RC_ULEN), rc_init(bits, RC_UBITS), rc_init(slen, RC_ULEN);
        rc_enc_init(&c, &o);
        int ok = 1;
        for (size_t i = 0; i < nu; i++) ok &= rc_uint(&c, len, bits, u[i]) == u[i];
        for (size_t i = 0; i < ns; i++) ok &= rc_sint(&c, slen, bits, s[i]) == s[i];
        rc_enc_flush(&c);
        check(ok, "integers: the encoder returns its values");
        uint8_t *in = dup(o.p, o.n);
        rc_init(len, RC_ULEN), rc_init(bits, RC_UBITS), rc_init(slen, RC_ULEN);
        rc_dec_init(&c, in, o.n);
        int uok = 1, sok = 1;
        for (size_t i = 0; i < nu; i++) uok &= rc_uint(&c, len, bits, 0) == u[i];
        for (size_t i = 0; i < ns; i++) sok &= rc_sint(&c, slen, bits, 0) == s[i];
        check(uok, "unsigned integers of every bit length, 0 and 2^64-1");
        check(sok && rc_dec_ok(&c), "signed integers to INT64_MIN and INT64_MAX");
        free(in), free(o.p);
    }

    /* every kind mixed, with golden sizes and hashes of the streams (the
     * format must not change unnoticed) */
    uint64_t h;
    size_t sz = mixed_round_trip(1, 20000, &h);
    printf("mixed 20000: %zu bytes, hash %016llx\n", sz, (unsigned long long)h);
    check(sz == MIXED_SIZE && h == MIXED_HASH, "mixed stream: golden size and hash");
    for (uint64_t seed = 2; seed < 40; seed++) mixed_round_trip(seed, 1 + (size_t)(rnd() % 3000), &h);
}

/* ---- sizes against the entropy ---- */

static void test_sizes(void)
{
    size_t n = 1 << 20;
    uint8_t *b = malloc(n);
    static const double p1s[] = { 0.5, 0.2, 0.05, 0.01 };
    for (int k = 0; k < 4; k++) {
        size_t ones = 0;
        for (size_t i = 0; i < n; i++) ones += b[i] = urand() < p1s[k];
        double q = (double)ones / n, h = -(q * log2(q) + (1 - q) * log2(1 - q)) * n / 8; /* empirical, bytes */
        /* coded with the true probability: the coder's own loss is tiny */
        uint32_t p0 = (uint32_t)lround((1 - p1s[k]) * 65536);
        double ideal = 0;
        trz_buf o = { 0 };
        rc c;
        rc_enc_init(&c, &o);
        for (size_t i = 0; i < n; i++) {
            rc_bit_p(&c, p0, b[i]);
            ideal -= log2(b[i] ? 1 - p0 / 65536.0 : p0 / 65536.0);
        }
        rc_enc_flush(&c);
        char what[96];
        snprintf(what, sizeof what, "fixed p1=%.2f: %zu bytes within 0.02%% of %.0f", p1s[k], o.n, ideal / 8);
        check(o.n <= ideal / 8 * 1.0002 + 2 && o.n >= ideal / 8 - 1, "%s", what);
        /* adaptive, slow counters: within 1% of the empirical entropy */
        o.n = 0;
        rc_prob p = RC_P0;
        int s = k < 2 ? 7 : 8;
        rc_enc_init(&c, &o);
        for (size_t i = 0; i < n; i++) rc_bit_s(&c, &p, s, b[i]);
        rc_enc_flush(&c);
        snprintf(what, sizeof what, "adaptive s=%d p1=%.2f: %zu bytes within 1%% of the entropy %.0f", s, p1s[k], o.n, h);
        if (k < 3) check(o.n < h * 1.01, "%s", what);
        else printf("note: %s: %.2f%% above\n", what, 100 * (o.n / h - 1));
        free(o.p);
    }
    /* a decision that never changes costs almost nothing once learnt */
    trz_buf o = { 0 };
    rc c;
    rc_prob p = RC_P0;
    rc_enc_init(&c, &o);
    for (size_t i = 0; i < n; i++) rc_bit(&c, &p, 1);
    rc_enc_flush(&c);
    printf("constant bit, 2^20 decisions: %zu bytes\n", o.n);
    check(o.n == CONST_SIZE, "constant bit: golden size");
    free(o.p);
    free(b);
}

/* ---- costs ---- */

static void test_costs(void)
{
    check(rc_cost(RC_P0, 0) == 256 && rc_cost(RC_P0, 1) == 256, "cost of a bit at 1/2");
    check(rc_cost(16384, 0) == 512 && rc_cost(16384, 1) == 106, "cost at 1/4 and 3/4");
    double worst = 0;
    for (uint32_t p = 1; p < 65536; p++) {
        double e = fabs(rc_cost(p, 0) - 256 * -log2(p / 65536.0));
        if (e > worst) worst = e;
    }
    check(worst <= 0.6, "cost within 0.6/256 bit everywhere");
    check(rc_cost2(RC_P2_0, 1) == 256, "two-rate cost at 1/2");
    /* the integer cost predicts what rc_uint writes */
    rc_prob len[RC_ULEN], bits[RC_UBITS];
    rc_init(len, RC_ULEN), rc_init(bits, RC_UBITS);
    trz_buf o = { 0 };
    rc c;
    uint64_t cost = 0;
    rc_enc_init(&c, &o);
    for (int i = 0; i < 100000; i++) {
        int64_t v = (int64_t)(-200 * log(1 - urand())) * 8;
        if (urand() < 0.2) v = -v;
        cost += rc_sint_cost(len, bits, v);
        rc_sint(&c, len, bits, v);
        uint64_t u = (uint64_t)(urand() * urand() * 1e12);
        cost += rc_uint_cost(len, bits, u);
        rc_uint(&c, len, bits, u);
    }
    rc_enc_flush(&c);
    double est = cost / 256.0 / 8;
    char what[96];
    snprintf(what, sizeof what, "integer costs %.0f B vs %zu B coded", est, o.n);
    check(fabs(est / o.n - 1) < 0.005, "%s", what);
    free(o.p);
}

/* ---- tables and hashing ---- */

static void test_tables(void)
{
    check(rc_table_bits(0, 0, RC_TABLE_MAX_BYTES) == 10 && rc_table_bits(1025, 0, RC_TABLE_MAX_BYTES) == 11 &&
              rc_table_bits(1 << 20, 0, RC_TABLE_MAX_BYTES) == 20 && rc_table_bits(1 << 20, 6, (size_t)1 << 20) == 13 &&
              rc_table_bits((uint64_t)1 << 40, 0, RC_TABLE_MAX_BYTES) == 24,
          "table sizes for a chunk");
    rc_table t;
    check(rc_table_init(&t, 24, 1) == -1 && t.p == NULL, "a table over RC_TABLE_MAX_BYTES is refused");
    check(rc_table_init(&t, 12, 3) == 0 && t.bytes == (size_t)2 << 15, "table of 4096 blocks of 8");
    int fresh = 1;
    for (size_t i = 0; i < t.bytes / 2; i++) fresh &= t.p[i] == RC_P0;
    check(fresh, "a new table holds 1/2 everywhere");
    check(rc_table_at(&t, 0) == t.p && rc_table_at(&t, 0xFFFFFFFFu) == t.p + 4095 * 8 &&
              rc_table_at(&t, 0x00100000u) == t.p + 8,
          "block of a hash: its top bits");
    rc_table_at(&t, 0x12345678u)[3] = 7;
    rc_table_reset(&t);
    check(rc_table_at(&t, 0x12345678u)[3] == RC_P0, "reset");
    rc_table_free(&t);
    check(t.p == NULL, "free");

    check(rc_hash(0) == 0 && rc_hash(1) == 0xB456BCFCu && rc_hash(0x400000) != rc_hash(0x400004), "hash values");
    /* each input bit flips about half the output bits */
    double flips = 0;
    for (int i = 0; i < 64; i++) {
        uint64_t x = rnd();
        uint32_t d = rc_hash(x) ^ rc_hash(x ^ 1ull << i);
        flips += trz_popcount32(d);
    }
    check(flips / 64 > 13 && flips / 64 < 19, "hash avalanche");
    check(rc_hash_add(rc_hash(1), 2) != rc_hash_add(rc_hash(2), 1), "hash_add is ordered");
}

/* ---- damaged and truncated streams ---- */

static void test_damage(void)
{
    mixed_model *m = malloc(sizeof *m);
    size_t n = 3000;
    uint64_t *v = malloc(n * 8), *enc = malloc(n * 8), *dec = malloc(n * 8);
    mixed_values(v, n);
    memcpy(enc, v, n * 8);
    trz_buf o = { 0 };
    rc c;
    rc_enc_init(&c, &o);
    mixed(&c, m, 77, n, enc);
    rc_enc_flush(&c);

    /* every truncation: decodes within the buffer; never accepted */
    int trunc_ok = 0;
    for (size_t k = 0; k < o.n; k++) {
        uint8_t *in = dup(o.p, k);
        rc_dec_init(&c, k ? in : NULL, k);
        mixed(&c, m, 77, n, dec);
        trunc_ok += rc_dec_ok(&c) && memcmp(dec, enc, n * 8) != 0;
        trunc_ok += rc_dec_ok(&c) && k + 2 <= o.n; /* short by 2 or more: always over the limit */
        free(in);
    }
    char what[96];
    snprintf(what, sizeof what, "truncated streams (%zu) never pass rc_dec_ok", o.n);
    check(trunc_ok == 0, "%s", what);
    /* one byte more */
    uint8_t *longer = malloc(o.n + 1);
    memcpy(longer, o.p, o.n);
    longer[o.n] = 0x5A;
    rc_dec_init(&c, longer, o.n + 1);
    mixed(&c, m, 77, n, dec);
    check(!rc_dec_ok(&c), "a byte appended fails rc_dec_ok");
    free(longer);
    /* flipped bytes: decode within the buffer; nearly always detected */
    int caught = 0, tries = 2000;
    for (int i = 0; i < tries; i++) {
        uint8_t *in = dup(o.p, o.n);
        in[rnd() % o.n] ^= (uint8_t)(1 + rnd() % 255);
        rc_dec_init(&c, in, o.n);
        mixed(&c, m, 77, n, dec);
        caught += !rc_dec_ok(&c) || memcmp(dec, enc, n * 8) != 0;
        free(in);
    }
    snprintf(what, sizeof what, "flipped bytes decoded differently or rejected: %d of %d", caught, tries);
    check(caught == tries, "%s", what);
    int rejected = 0;
    for (int i = 0; i < tries; i++) {
        uint8_t *in = dup(o.p, o.n);
        in[rnd() % o.n] ^= (uint8_t)(1 + rnd() % 255);
        rc_dec_init(&c, in, o.n);
        mixed(&c, m, 77, n, dec);
        rejected += !rc_dec_ok(&c);
        free(in);
    }
    printf("flipped bytes rejected by rc_dec_ok alone: %d of %d\n", rejected, tries);
    check(rejected > tries * 95 / 100, "rc_dec_ok rejects most flipped bytes");
    /* random garbage and an absent stream: bounded, and flagged */
    for (int i = 0; i < 200; i++) {
        size_t k = rnd() % 64;
        uint8_t *in = malloc(k ? k : 1);
        for (size_t j = 0; j < k; j++) in[j] = (uint8_t)rnd();
        rc_dec_init(&c, k ? in : NULL, k);
        mixed(&c, m, 77, n, dec);
        if (!rc_dec_bad(&c)) { check(0, "garbage flagged by rc_dec_bad"); break; }
        free(in);
    }
    rc_dec_init(&c, NULL, 0);
    check(rc_dec_ok(&c), "an absent stream is the stream of no decisions");
    rc_prob p = RC_P0;
    int zeros = 0;
    for (int i = 0; i < 1000; i++) zeros += rc_bit(&c, &p, 1) == 0;
    check(zeros == 1000 && c.overrun > 4 && rc_dec_bad(&c) && !rc_dec_ok(&c), "an absent stream reads as zeros, counted");
    free(o.p), free(v), free(enc), free(dec), free(m);
}

int main(void)
{
    test_vectors();
    test_round_trips();
    test_sizes();
    test_costs();
    test_tables();
    test_damage();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
