/* coder_speed.c - speed of the shared range coder (codecs/common/rc.h) in
 * millions of binary decisions per second, encoding and decoding: skewed and
 * balanced bits in one context, bits in hashed contexts, the integer helper,
 * and the ways of telling the coder its direction.  CPU time, best of
 * several runs.  `coder_speed bits` prints the size studies of coder.md's
 * design notes instead.  Build (after `make`):
 *   cc -std=c11 -O2 -Wall -Wextra -Werror -o build/coder_speed bench/coder_speed.c libtrz.a -lzstd -lz -lxxhash -lpthread
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <time.h>
#include "../codecs/common/rc_model.h"

#define NOINLINE __attribute__((noinline))

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double urand(void) { return (double)(rnd() >> 11) / 9007199254740992.0; }

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the models under test, each written once for both directions ---- */

/* One context: n bits in one probability. */
TRZ_FORCE_INLINE void m_single(rc *c, uint8_t *bits, size_t n)
{
    rc_prob p = RC_P0;
    for (size_t i = 0; i < n; i++) bits[i] = (uint8_t)rc_bit(c, &p, bits[i]);
}

TRZ_FORCE_INLINE void m_single2(rc *c, uint8_t *bits, size_t n)
{
    rc_prob2 p = RC_P2_0;
    for (size_t i = 0; i < n; i++) bits[i] = (uint8_t)rc_bit2(c, &p, bits[i]);
}

/* The spec's example: a "hit" bit per record in the context of (hash of the
 * record's PC, its last two outcomes), from a hashed table. */
typedef struct { uint32_t *pc; uint8_t *hit; size_t n; } hits;
TRZ_FORCE_INLINE void m_hashed(rc *c, rc_table *t, const hits *h, uint8_t *hist)
{
    for (size_t i = 0; i < h->n; i++) {
        uint32_t pc = h->pc[i];
        uint8_t *hs = &hist[pc & 4095];
        rc_prob *b = rc_table_at(t, rc_hash_add(rc_hash(pc), *hs & 3));
        int bit = rc_bit(c, b, h->hit[i]);
        h->hit[i] = (uint8_t)bit;
        *hs = (uint8_t)(*hs << 1 | bit);
    }
}

/* Integers with the length in the context of the previous value's length. */
TRZ_FORCE_INLINE void m_uint(rc *c, rc_prob (*len)[RC_ULEN], rc_prob *bits, uint64_t *v, size_t n)
{
    int last = 0;
    for (size_t i = 0; i < n; i++) {
        v[i] = rc_uint(c, len[last], bits, v[i]);
        last = rc_bitlen64(v[i]);
    }
}

/* ---- harness ---- */

typedef struct { trz_buf out; double enc, dec; int ok; } run;

#define REPS 5

/* Encode and decode with the direction a constant in each instance (the
 * coder a local of the function that runs the model loop). */
#define BENCH(name, r, n_dec, encode_stmt, decode_stmt)                      \
    do {                                                                     \
        (r)->enc = (r)->dec = 1e9;                                           \
        for (int rep = 0; rep < REPS; rep++) {                               \
            (r)->out.n = 0;                                                  \
            double t0 = cpu_now();                                           \
            encode_stmt;                                                     \
            double t1 = cpu_now();                                           \
            decode_stmt;                                                     \
            double t2 = cpu_now();                                           \
            if (t1 - t0 < (r)->enc) (r)->enc = t1 - t0;                       \
            if (t2 - t1 < (r)->dec) (r)->dec = t2 - t1;                       \
        }                                                                    \
        printf("%-34s %8.1f %8.1f   %6.3f bits/decision%s\n", name, (n_dec) / (r)->enc / 1e6, \
               (n_dec) / (r)->dec / 1e6, (r)->out.n * 8.0 / (n_dec), (r)->ok ? "" : "  MISMATCH"); \
    } while (0)

static NOINLINE void enc_single(trz_buf *o, uint8_t *b, size_t n)
{
    rc c;
    rc_enc_init(&c, o);
    m_single(&c, b, n);
    rc_enc_flush(&c);
}
static NOINLINE int dec_single(const trz_buf *o, uint8_t *b, size_t n)
{
    rc c;
    rc_dec_init(&c, o->p, o->n);
    m_single(&c, b, n);
    return rc_dec_ok(&c);
}
static NOINLINE void enc_single2(trz_buf *o, uint8_t *b, size_t n)
{
    rc c;
    rc_enc_init(&c, o);
    m_single2(&c, b, n);
    rc_enc_flush(&c);
}
static NOINLINE int dec_single2(const trz_buf *o, uint8_t *b, size_t n)
{
    rc c;
    rc_dec_init(&c, o->p, o->n);
    m_single2(&c, b, n);
    return rc_dec_ok(&c);
}

/* The direction read at run time: one instance for both. */
static NOINLINE void run_single(rc *c, uint8_t *b, size_t n) { m_single(c, b, n); }

/* The direction fixed by calling the split halves directly. */
static NOINLINE void enc_split(trz_buf *o, uint8_t *b, size_t n)
{
    rc c;
    rc_enc_init(&c, o);
    rc_prob p = RC_P0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = p;
        int bit = rc_enc_code(&c, v, b[i]);
        p = (rc_prob)rc_adapt(v, bit, RC_SHIFT);
    }
    rc_enc_flush(&c);
}
static NOINLINE int dec_split(const trz_buf *o, uint8_t *b, size_t n)
{
    rc c;
    rc_dec_init(&c, o->p, o->n);
    rc_prob p = RC_P0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = p;
        int bit = rc_dec_code(&c, v);
        p = (rc_prob)rc_adapt(v, bit, RC_SHIFT);
        b[i] = (uint8_t)bit;
    }
    return rc_dec_ok(&c);
}

static NOINLINE void enc_hashed(trz_buf *o, rc_table *t, const hits *h, uint8_t *hist)
{
    rc c;
    rc_enc_init(&c, o);
    rc_table_reset(t);
    memset(hist, 0, 4096);
    m_hashed(&c, t, h, hist);
    rc_enc_flush(&c);
}
static NOINLINE int dec_hashed(const trz_buf *o, rc_table *t, const hits *h, uint8_t *hist)
{
    rc c;
    rc_dec_init(&c, o->p, o->n);
    rc_table_reset(t);
    memset(hist, 0, 4096);
    m_hashed(&c, t, h, hist);
    return rc_dec_ok(&c);
}

static NOINLINE void enc_uint(trz_buf *o, rc_prob (*len)[RC_ULEN], rc_prob *bits, uint64_t *v, size_t n)
{
    rc c;
    rc_enc_init(&c, o);
    rc_init(len[0], 65 * RC_ULEN);
    rc_init(bits, RC_UBITS);
    m_uint(&c, len, bits, v, n);
    rc_enc_flush(&c);
}
static NOINLINE int dec_uint(const trz_buf *o, rc_prob (*len)[RC_ULEN], rc_prob *bits, uint64_t *v, size_t n)
{
    rc c;
    rc_dec_init(&c, o->p, o->n);
    rc_init(len[0], 65 * RC_ULEN);
    rc_init(bits, RC_UBITS);
    m_uint(&c, len, bits, v, n);
    return rc_dec_ok(&c);
}

static void gen_bits(uint8_t *b, size_t n, double p1)
{
    uint64_t thr = (uint64_t)(p1 * 18446744073709551615.0);
    for (size_t i = 0; i < n; i++) b[i] = rnd() < thr;
}

static void speed(void)
{
    size_t n = (size_t)16 << 20;
    uint8_t *b = malloc(n), *d = malloc(n);
    run r = { 0 };
    printf("%-34s %8s %8s   (M decisions/s, CPU time, best of %d)\n", "case", "encode", "decode", REPS);
    static const double skews[] = { 0.05, 0.5 };
    for (int k = 0; k < 2; k++) {
        char name[64];
        gen_bits(b, n, skews[k]);
        snprintf(name, sizeof name, "single p1=%.2f", skews[k]);
        BENCH(name, &r, (double)n, (memcpy(d, b, n), enc_single(&r.out, d, n)),
              (r.ok = dec_single(&r.out, d, n) && !memcmp(b, d, n)));
        snprintf(name, sizeof name, "single two-rate p1=%.2f", skews[k]);
        BENCH(name, &r, (double)n, (memcpy(d, b, n), enc_single2(&r.out, d, n)),
              (r.ok = dec_single2(&r.out, d, n) && !memcmp(b, d, n)));
        snprintf(name, sizeof name, "  split enc/dec p1=%.2f", skews[k]);
        BENCH(name, &r, (double)n, (memcpy(d, b, n), enc_split(&r.out, d, n)),
              (r.ok = dec_split(&r.out, d, n) && !memcmp(b, d, n)));
        snprintf(name, sizeof name, "  run-time direction p1=%.2f", skews[k]);
        rc c;
        BENCH(name, &r, (double)n,
              (memcpy(d, b, n), rc_enc_init(&c, &r.out), run_single(&c, d, n), rc_enc_flush(&c)),
              (rc_dec_init(&c, r.out.p, r.out.n), run_single(&c, d, n), r.ok = rc_dec_ok(&c) && !memcmp(b, d, n)));
    }

    /* hashed contexts: 64Ki PCs (Zipf-like use), each with its own bias */
    {
        size_t np = 1 << 16, nr = (size_t)8 << 20;
        double *bias = malloc(np * sizeof *bias);
        for (size_t i = 0; i < np; i++) bias[i] = urand() < 0.8 ? 0.02 : urand();
        hits h = { malloc(nr * 4), malloc(nr), nr };
        uint8_t *ref = malloc(nr), hist[4096];
        for (size_t i = 0; i < nr; i++) {
            uint32_t k = (uint32_t)(np * pow(urand(), 3.0));
            h.pc[i] = 0x400000u + 4 * k;
            ref[i] = urand() < bias[k];
        }
        rc_table t;
        if (rc_table_init(&t, rc_table_bits(np * 4, 0, RC_TABLE_MAX_BYTES), 0) == 0) {
            BENCH("hashed contexts (table)", &r, (double)nr, (memcpy(h.hit, ref, nr), enc_hashed(&r.out, &t, &h, hist)),
                  (r.ok = dec_hashed(&r.out, &t, &h, hist) && !memcmp(ref, h.hit, nr)));
            rc_table_free(&t);
        }
        free(bias), free(h.pc), free(h.hit), free(ref);
    }

    /* integers: lengths 0..40, log-uniform inside a length */
    {
        size_t ni = (size_t)4 << 20;
        uint64_t *v = malloc(ni * 8), *ref = malloc(ni * 8);
        rc_prob(*len)[RC_ULEN] = malloc(65 * sizeof *len), *bits = malloc(RC_UBITS * sizeof *bits);
        size_t ndec = 0;
        for (size_t i = 0; i < ni; i++) {
            int L = (int)(urand() * urand() * 41);
            ref[i] = L ? (1ull << (L - 1)) | (rnd() & ((1ull << (L - 1)) - 1)) : 0;
            ndec += L < 63 ? 6 : 7;
            if (L >= 2) ndec += (size_t)(L - 1);
        }
        BENCH("integers (M values/s)", &r, (double)ni, (memcpy(v, ref, ni * 8), enc_uint(&r.out, len, bits, v, ni)),
              (r.ok = dec_uint(&r.out, len, bits, v, ni) && !memcmp(ref, v, ni * 8)));
        printf("%-34s %8.1f %8.1f   (%.1f decisions a value)\n", "integers (M decisions/s)", ndec / r.enc / 1e6,
               ndec / r.dec / 1e6, (double)ndec / ni);
        free(v), free(ref), free(len), free(bits);
    }
    free(r.out.p);
    free(b), free(d);
}


/* ---- size studies (coder_speed bits) ---- */

/* Counter kinds compared: shift counters of 16, 12 and 11 bits, the
 * two-rate counter, and two-rate pairs other than rc_bit2's (emulated). */
enum { K16, K12, K11, K2R, K2R58, K2R47x };
typedef struct { int kind, s; const char *name; } counter;

static size_t code_bits(const uint8_t *b, const uint32_t *ctx, size_t n, size_t nctx, counter k)
{
    trz_buf o = { 0 };
    rc c;
    rc_enc_init(&c, &o);
    uint32_t *p = malloc(nctx * sizeof *p);
    for (size_t i = 0; i < nctx; i++)
        p[i] = k.kind == K12 ? 2048 : k.kind == K11 ? 1024 : k.kind >= K2R ? RC_P2_0 : RC_P0;
    for (size_t i = 0; i < n; i++) {
        uint32_t *q = &p[ctx ? ctx[i] : 0];
        int bit = b[i];
        switch (k.kind) {
        case K16: { rc_prob v = (rc_prob)*q; rc_bit_s(&c, &v, k.s, bit); *q = v; break; }
        case K12: rc_bit_p(&c, *q << 4, bit); *q = bit ? *q - (*q >> k.s) : *q + ((4096 - *q) >> k.s); break;
        case K11: rc_bit_p(&c, *q << 5, bit); *q = bit ? *q - (*q >> k.s) : *q + ((2048 - *q) >> k.s); break;
        case K2R: rc_bit2(&c, q, bit); break;
        default: {
            int sf = k.kind == K2R58 ? 5 : 4, ss = k.kind == K2R58 ? 8 : 6;
            uint32_t f = *q & 0xFFFF, s = *q >> 16;
            rc_bit_p(&c, (f + s) >> 1, bit);
            *q = rc_adapt(s, bit, ss) << 16 | rc_adapt(f, bit, sf);
        }
        }
    }
    rc_enc_flush(&c);
    free(p);
    free(o.p);
    return o.n;
}

static double h2(double p) { return p <= 0 || p >= 1 ? 0 : -(p * log2(p) + (1 - p) * log2(1 - p)); }

/* empirical entropy of the bits within each context, in bytes */
static double ctx_entropy(const uint8_t *b, const uint32_t *ctx, size_t n, size_t nctx)
{
    uint32_t *c1 = calloc(nctx, 4), *cn = calloc(nctx, 4);
    for (size_t i = 0; i < n; i++) { size_t k = ctx ? ctx[i] : 0; cn[k]++; c1[k] += b[i]; }
    double h = 0;
    for (size_t k = 0; k < nctx; k++) if (cn[k]) h += cn[k] * h2((double)c1[k] / cn[k]);
    free(c1), free(cn);
    return h / 8;
}

static void counters(void)
{
    static const counter ks[] = {
        { K16, 4, "16-bit s=4" }, { K16, 5, "16-bit s=5" }, { K16, 6, "16-bit s=6" }, { K16, 7, "16-bit s=7" },
        { K12, 4, "12-bit s=4" }, { K12, 5, "12-bit s=5" }, { K11, 5, "11-bit s=5" },
        { K2R, 0, "two-rate 4+7" }, { K2R47x, 0, "two-rate 4+6" }, { K2R58, 0, "two-rate 5+8" } };
    enum { NK = sizeof ks / sizeof ks[0] };
    size_t n = 1 << 20;
    uint8_t *b = malloc(n);
    uint32_t *ctx = malloc(n * 4);
    printf("\nbits of the counters, as %% above the empirical entropy (per context for the sparse rows)\n%-22s", "source");
    for (int k = 0; k < NK; k++) printf(" %12s", ks[k].name);
    printf("\n");
    for (int src = 0; src < 8; src++) {
        size_t nctx = 1;
        const char *name = "";
        static const double p1s[] = { 0.5, 0.2, 0.05, 0.01 };
        if (src < 4) { gen_bits(b, n, p1s[src]); name = src == 0 ? "stationary p1=0.5" : src == 1 ? "stationary p1=0.2" : src == 2 ? "stationary p1=0.05" : "stationary p1=0.01"; }
        else if (src == 4) { memset(b, 0, n); name = "constant"; }
        else if (src == 5) { /* p1 flips between 0.02 and 0.6, segments of 50..5000 bits */
            name = "switching 0.02/0.6";
            double p = 0.02;
            for (size_t i = 0; i < n;) {
                size_t len = 50 + rnd() % 4950;
                for (size_t j = 0; j < len && i < n; j++, i++) b[i] = urand() < p;
                p = p == 0.02 ? 0.6 : 0.02;
            }
        } else { /* 64Ki or 8Ki contexts each with a fixed bias, ~16 or ~128 visits each */
            nctx = src == 6 ? 1 << 16 : 1 << 13;
            name = src == 6 ? "sparse: 16 visits" : "sparse: 128 visits";
            double *bias = malloc(nctx * sizeof *bias);
            for (size_t k = 0; k < nctx; k++) bias[k] = urand() < 0.7 ? urand() * 0.05 : urand();
            for (size_t i = 0; i < n; i++) { ctx[i] = (uint32_t)(rnd() % nctx); b[i] = urand() < bias[ctx[i]]; }
            free(bias);
        }
        double h = ctx_entropy(b, nctx > 1 ? ctx : NULL, n, nctx);
        printf("%-22s", name);
        for (int k = 0; k < NK; k++) {
            double sz = (double)code_bits(b, nctx > 1 ? ctx : NULL, n, nctx, ks[k]);
            if (h < 1) printf(" %11.0fB", sz);
            else printf(" %11.2f%%", 100 * (sz / h - 1));
        }
        printf("   (entropy %.0f B)\n", h);
    }
    free(b), free(ctx);
}

/* Integers: the sizes of rc_uint / rc_sint and of zigzag through rc_uint. */
static void integers(void)
{
    size_t n = 1 << 18;
    int64_t *v = malloc(n * 8);
    printf("\nintegers (RC_ITOP = %d, RC_IALIGN = %d): bytes for %zu values\n", RC_ITOP, RC_IALIGN, n);
    for (int src = 0; src < 6; src++) {
        const char *name = "";
        for (size_t i = 0; i < n; i++) {
            double u = urand();
            switch (src) {
            case 0: name = "geometric mean 300, sign 50/50"; v[i] = (int64_t)(-300 * log(1 - u)); if (rnd() & 1) v[i] = -v[i]; break;
            case 1: name = "geometric mean 300, sign 90/10"; v[i] = (int64_t)(-300 * log(1 - u)); if (urand() < 0.1) v[i] = -v[i]; break;
            case 2: name = "log-uniform to 2^40, 50/50"; v[i] = (int64_t)exp2(u * 40); if (rnd() & 1) v[i] = -v[i]; break;
            case 4: name = "8 * log-uniform to 2^20, 50/50"; v[i] = 8 * (int64_t)exp2(u * 20); if (rnd() & 1) v[i] = -v[i]; break;
            case 5: name = "64 * geometric mean 30, 90/10"; v[i] = 64 * (int64_t)(-30 * log(1 - u)); if (urand() < 0.1) v[i] = -v[i]; break;
            default: name = "strides of 64 (+-4 jitter) 95%"; v[i] = urand() < 0.95 ? 64 + (int64_t)(rnd() % 9) - 4 : (int64_t)(rnd() % 100000) - 50000; break;
            }
        }
        size_t sz[2];
        for (int z = 0; z < 2; z++) {
            trz_buf o = { 0 };
            rc c;
            rc_enc_init(&c, &o);
            rc_prob len[RC_ULEN], bits[RC_UBITS];
            rc_init(len, RC_ULEN), rc_init(bits, RC_UBITS);
            for (size_t i = 0; i < n; i++) {
                if (z) rc_uint(&c, len, bits, trz_zigzag(v[i]));
                else rc_sint(&c, len, bits, v[i]);
            }
            rc_enc_flush(&c);
            sz[z] = o.n;
            free(o.p);
        }
        printf("  %-34s sign bit %8zu   zigzag %8zu\n", name, sz[0], sz[1]);
    }
    free(v);
}

/* Whether a table should check that a block is its context's (16 bits of
 * the hash kept in entry 0; a block another context held starts again at
 * 1/2): 4096 blocks for 2^11, 2^13 and 2^15 contexts. */
static void tables(void)
{
    size_t n = 1 << 21;
    printf("\nhashed one-bit contexts in a table of 4096 blocks: bytes with and without the check\n");
    for (int src = 0; src < 3; src++) {
        size_t nctx = src == 0 ? 2048 : src == 1 ? 8192 : 32768;
        double *bias = malloc(nctx * sizeof *bias);
        for (size_t k = 0; k < nctx; k++) bias[k] = urand() < 0.7 ? urand() * 0.05 : 1 - urand() * 0.05;
        uint32_t *ctx = malloc(n * 4);
        uint8_t *b = malloc(n);
        for (size_t i = 0; i < n; i++) { ctx[i] = (uint32_t)(nctx * pow(urand(), 2)); b[i] = urand() < bias[ctx[i]]; }
        size_t sz[2];
        for (int chk = 0; chk < 2; chk++) {
            trz_buf o = { 0 };
            rc c;
            rc_table t;
            if (rc_table_init(&t, 12, 1) != 0) return;
            rc_enc_init(&c, &o);
            for (size_t i = 0; i < n; i++) {
                uint32_t h = rc_hash(ctx[i]);
                rc_prob *blk = rc_table_at(&t, h);
                if (chk && blk[0] != (rc_prob)h) blk[0] = (rc_prob)h, blk[1] = RC_P0; /* a check as cm.h's */
                rc_bit(&c, &blk[1], b[i]);
            }
            rc_enc_flush(&c);
            sz[chk] = o.n;
            free(o.p);
            rc_table_free(&t);
        }
        printf("  %6zu contexts: unchecked %8zu   checked %8zu   (entropy %.0f)\n", nctx, sz[0], sz[1], ctx_entropy(b, ctx, n, nctx));
        free(bias), free(ctx), free(b);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "bits")) {
        counters();
        integers();
        tables();
        return 0;
    }
    speed();
    return 0;
}
