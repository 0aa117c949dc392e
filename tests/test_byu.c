/* test_byu.c - round-trip and robustness tests for the BYU codec: generated
 * edge cases, every corpus file of the format when present, and damaged
 * streams fed to the decoder (run under ASan/UBSan). */
#include "../codecs/codec.h"
#include "../codecs/addrmodel.h"
#include "../codecs/cachesim.h"

#define TEST_BYTE_ORDER TRZ_BO_LITTLE
#include "bus_test.h"

static void put_rec(uint8_t *r, uint32_t addr, uint8_t req, uint8_t size, uint8_t attr, uint8_t proc, uint32_t t)
{
    trz_st_le32(r, addr);
    r[4] = req; r[5] = size; r[6] = attr; r[7] = proc;
    trz_st_le32(r + 8, t);
}

/* A synthetic program: loops of fetches with reads/writes at strides. */
static size_t gen_program(uint8_t *buf, size_t nrec, int nproc, int wild)
{
    uint32_t pc[4] = { 0x400000, 0x500000, 0x600000, 0x700000 }, sp = 0x7fff0000;
    for (size_t i = 0; i < nrec; i++) {
        uint8_t proc = (uint8_t)(nproc > 1 ? (i / (1 + rnd() % 3)) % nproc : 0);
        uint32_t r = rnd() % 100;
        uint8_t *q = buf + i * 12;
        if (r < 60) {
            pc[proc & 3] = (rnd() % 10 == 0) ? 0x400000 + (rnd() % 4096) * 8 : pc[proc & 3] + 8 * (rnd() % 2);
            put_rec(q, pc[proc & 3], 0, 8, 0, proc, 112 + 8 * (rnd() % 6));
        } else if (r < 85) put_rec(q, sp + 8 * (rnd() % 16), 1, 8, 0, proc, 120);
        else if (r < 98) put_rec(q, 0x10000000 + i * 8, 3, (uint8_t)(r & 1 ? 16 : 32), 0, proc, 8);
        else put_rec(q, rnd(), (uint8_t)(0x20 + r % 24), 0, (uint8_t)rnd(), proc, rnd());
        if (wild) for (int k = 0; k < 12; k++) if (rnd() % 50 == 0) q[k] = (uint8_t)rnd();
    }
    return nrec * 12;
}

static void test_generated(const trz_codec *c)
{
    size_t n = 20000;
    uint8_t *buf = malloc(n * 12);
    uint8_t one[12];
    put_rec(one, 0x1234, 0x01, 8, 0, 0, 0xffffffffu);
    check(roundtrip(c, one, 12), "one record");
    check(roundtrip(c, one, 0), "zero records");
    memset(buf, 0xff, 12 * 100);
    check(roundtrip(c, buf, 12 * 100), "all-0xFF fields");
    memset(buf, 0, 12 * 100);
    check(roundtrip(c, buf, 12 * 100), "all-zero records");
    put_rec(buf, 0x1000, 0x7e, 8, 0, 0, 5);       /* unknown reqtype */
    put_rec(buf + 12, 0x2000, 0x03, 16, 1, 0, 8);  /* size 16 */
    put_rec(buf + 24, 0x2010, 0x03, 32, 3, 0, 8);  /* size 32 */
    put_rec(buf + 36, 0x1008, 0xc5, 0x99, 0xaa, 0xbb, 7);
    check(roundtrip(c, buf, 48), "unknown reqtype, sizes 16 and 32");
    check(roundtrip(c, buf, gen_program(buf, n, 1, 0) ), "synthetic program, one proc");
    damage(c, buf, 12 * 3000);
    check(roundtrip(c, buf, gen_program(buf, n, 2, 0)), "two procs interleaved");
    check(roundtrip(c, buf, gen_program(buf, n, 256, 0)), "256 procs interleaved");
    check(roundtrip(c, buf, gen_program(buf, n, 3, 1)), "random bytes sprinkled");
    damage(c, buf, 12 * 3000);
    for (size_t i = 0; i < n * 12; i++) buf[i] = (uint8_t)rnd();
    check(roundtrip(c, buf, n * 12), "random records");
    damage(c, buf, 12 * 500);
    int bo;
    check(c->probe(buf, n * 12, &bo) < 30, "probe rejects random bytes");
    const char *txt = "0041f760 FETCH 8 0 0 24\n0041f780 FETCH 8 0 0 249\n11f5e2c0 MEMREAD 8 0 0 185\n";
    check(c->probe((const uint8_t *)txt, strlen(txt), &bo) < 30, "probe rejects text");
    gen_program(buf, n, 1, 0);
    check(c->probe(buf, n * 12, &bo) >= 50 && bo == TRZ_BO_LITTLE, "probe accepts synthetic BYU");
    free(buf);
}

/* A trace whose times come from a cache (8 KiB, 2-way, 64-byte lines,
 * split): a request that misses pays 80..143 ticks, as valgrind-style
 * tools model it.  The encoder must find that geometry; the decoder must
 * refuse a geometry it does not accept. */
static void test_cache(const trz_codec *c)
{
    enum { N = 40000, SETS = 64, WAYS = 2 };
    uint8_t *buf = malloc((size_t)N * 12);
    uint32_t tag[2][SETS][WAYS] = { { { 0 } } }, pc = 0x400000;
    for (size_t i = 0; i < N; i++) {
        int fetch = rnd() % 3 != 0;
        uint32_t a;
        if (fetch) a = pc = rnd() % 8 == 0 ? 0x400000 + (rnd() % 2048) * 8 : pc + 8; /* 16 KiB of code */
        else a = 0x10000000 + (rnd() % 4096) * 8;                                  /* 32 KiB of data */
        uint32_t line = a >> 6, *t = tag[fetch][line % SETS], w = 0;
        while (w < WAYS && t[w] != line + 1) w++;
        int miss = w == WAYS;
        if (miss) w = WAYS - 1;
        for (; w > 0; w--) t[w] = t[w - 1];
        t[0] = line + 1;
        put_rec(buf + i * 12, a, fetch ? 0 : 1, 8, 0, 0, (fetch ? 1 : 0) + (miss ? 80 + rnd() % 64 : 0));
    }
    static const int lv[] = { 2, 5 }; /* the stream path: the arithmetic one does not use the cache */
    for (int k = 0; k < 2; k++) {
        level = lv[k];
        enc_out e;
        int ok = encode(c, buf, (size_t)N * 12, &e) == TRZ_CODEC_OK;
        const uint8_t want[4] = { 6, 6, 2, 1 }; /* 64-byte lines, 64 sets, 2 ways, split */
        check(ok && e.sl[13] == 4 && memcmp(e.sp[13], want, 4) == 0, "the encoder finds the cache behind the times");
        check(roundtrip(c, buf, (size_t)N * 12), "cache-timed trace");
        uint8_t *out = malloc((size_t)N * 12), bad[5];
        static const uint8_t geoms[][5] = { { 1, 6, 2, 1 }, { 13, 6, 2, 1 }, { 6, 17, 2, 1 }, { 6, 6, 0, 1 },
                                            { 6, 6, 17, 1 }, { 6, 6, 2, 2 }, { 6, 16, 32, 0 } };
        for (size_t g = 0; ok && g < sizeof geoms / sizeof geoms[0]; g++) {
            memcpy(bad, geoms[g], 4);
            const uint8_t *sp[TRZ_MAX_STREAMS];
            memcpy(sp, e.sp, sizeof sp);
            sp[13] = bad;
            check(decode(c, sp, e.sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "an unusable cache geometry is corrupt");
        }
        size_t sl[TRZ_MAX_STREAMS];
        if (ok) {
            memcpy(sl, e.sl, sizeof sl);
            memcpy(bad, want, 4);
            bad[4] = 0;
            const uint8_t *sp[TRZ_MAX_STREAMS];
            memcpy(sp, e.sp, sizeof sp);
            sp[13] = bad;
            sl[13] = 5;
            check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "a cache stream of 5 bytes is corrupt");
            sl[13] = 3;
            check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "a cache stream of 3 bytes is corrupt");
        }
        if (ok) damage(c, buf, 12 * 3000);
        free(out);
        enc_free(&e);
    }
    level = 9;
    free(buf);
}

/* Stream 14: kinds and address codes interleaved in stream 2.  The encoder
 * picks that layout when the back-end likes it better (traces of loops
 * made by tools); here the test builds it from the separate layout, so the
 * decoder's side is checked on any machine, and checks that a noisy trace
 * keeps the separate layout and that bad layout bytes are refused. */
static void test_layout(const trz_codec *c)
{
    enum { N = 30000 };
    uint8_t *buf = malloc((size_t)N * 12), *out = malloc((size_t)N * 12);
    for (size_t i = 0; i < N; i++) put_rec(buf + i * 12, rnd() & ~7u, (uint8_t)(rnd() % 3), 8, 0, 0, rnd() % 200);
    level = 3;
    enc_out e;
    int ok = encode(c, buf, (size_t)N * 12, &e) == TRZ_CODEC_OK;
    check(ok && e.sl[14] == 0 && e.sl[2] == N && e.sl[6] + e.sl[7] == N, "a noisy trace keeps kinds and codes apart");
    if (ok && e.sl[2] == N && e.sl[6] + e.sl[7] == N) {
        uint8_t *m = malloc(2 * (size_t)N), lay[2] = { 1, 1 };
        const uint8_t *f = e.sp[6], *d = e.sp[7];
        for (size_t i = 0; i < N; i++) {
            m[2 * i] = e.sp[2][i];
            m[2 * i + 1] = buf[i * 12 + 4] == 0 ? *f++ : *d++; /* reqtypes 0-2: fetch, read, write */
        }
        const uint8_t *sp[TRZ_MAX_STREAMS];
        size_t sl[TRZ_MAX_STREAMS];
        memcpy(sp, e.sp, sizeof sp);
        memcpy(sl, e.sl, sizeof sl);
        sp[2] = m, sl[2] = 2 * (size_t)N;
        sp[6] = sp[7] = NULL, sl[6] = sl[7] = 0;
        sp[14] = lay, sl[14] = 1;
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_OK && memcmp(out, buf, (size_t)N * 12) == 0,
              "the interleaved layout decodes");
        lay[0] = 2;
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "an unknown layout byte is corrupt");
        lay[0] = 1;
        sl[14] = 2;
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "a layout stream of 2 bytes is corrupt");
        sp[14] = NULL, sl[14] = 0;
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "interleaved streams read apart are corrupt");
        free(m);
    }
    enc_free(&e);
    level = 9;
    free(out);
    free(buf);
}

/* Round trip a whole file in 16 MiB chunks (as the container does). */
static void test_data(const trz_codec *c, const uint8_t *d, size_t n, const char *name)
{
    static const int levels[] = { 1, 6, 9 }; /* stream, single-context and mixed models */
    size_t rs = c->record_size, chunk = (16u << 20) - (16u << 20) % rs;
    n -= n % rs;
    for (int l = 0; l < 3; l++) {
        int ok = 1;
        level = levels[l];
        for (size_t off = 0; off < n && ok; off += chunk)
            ok = roundtrip(c, d + off, n - off < chunk ? n - off : chunk);
        char what[4200];
        snprintf(what, sizeof what, "%s at level %d", name, level);
        check(ok, what);
    }
    level = 9;
}

/* The vector move-to-front against the plain definition: v found at every
 * position, v new, v equal to several zero entries (lists start zeroed). */
static void test_mtf(void)
{
    int bad = 0;
    for (int k = 0; k < 20000 && !bad; k++) {
        uint32_t t[16], ref[16], v;
        for (int i = 0; i < 16; i++) t[i] = k % 3 == 0 && i > 8 ? 0 : rnd() % 40;
        v = k % 4 == 0 ? t[rnd() % 16] : rnd() % 40;
        memcpy(ref, t, sizeof t);
        unsigned i = 0;
        while (i < 15 && ref[i] != v) i++;
        memmove(ref + 1, ref, i * sizeof ref[0]);
        ref[0] = v;
        am_mtf16(t, v);
        bad = memcmp(t, ref, sizeof t) != 0;
    }
    check(!bad, "recent-list move-to-front matches its definition");
}

/* The glitch test against its definition, per base: the address holds
 * every bit of the base, at most 6 bits differ, and not only bits 3-4.
 * Addresses near the bases, so that every clause decides some cases. */
static void test_glitch(void)
{
    int bad = 0, seen = 0;
    for (int k = 0; k < 200000 && !bad; k++) {
        am_proc p;
        memset(&p, 0, sizeof p);
        p.pc = rnd();
        p.step = k % 5 == 0 ? rnd() : 8u << (rnd() % 3);
        uint32_t base = k & 1 ? p.pc + p.step : p.pc, addr = base;
        for (unsigned n = rnd() % 9; n; n--) addr ^= 1u << (rnd() % 32);
        if (k % 7 == 0) addr = base | (rnd() & 0x18);
        int want = 0;
        const uint32_t b[2] = { p.pc, p.pc + p.step };
        for (int i = 0; i < 2; i++) {
            uint32_t x = addr ^ b[i];
            int n = 0;
            for (int j = 0; j < 32; j++) n += (int)(x >> j & 1);
            want |= (addr & b[i]) == b[i] && n <= 6 && (x & ~0x18u) != 0;
        }
        seen += want;
        bad = am_glitch(&p, addr) != want;
    }
    check(!bad && seen > 1000, "fetch glitch test matches its definition");
}

/* The simulator's vector LRU against the plain definition, for every way
 * count (sets side by side, so that a vector reaching past its set would
 * show in the neighbour): hits at every depth, misses, the line used last. */
static void test_lru(void)
{
    int bad = 0;
    for (unsigned w = 1; w <= CS_WAYS_MAX && !bad; w++) {
        uint32_t t[3 * CS_WAYS_MAX + CS_PAD] = { 0 }, ref[3 * CS_WAYS_MAX + CS_PAD] = { 0 };
        for (int k = 0; k < 4000 && !bad; k++) {
            uint32_t *s = t + (k % 3) * w, *r = ref + (k % 3) * w, v = 1 + rnd() % (w + 3);
            unsigned i = 0;
            while (i < w && r[i] != v) i++;
            unsigned pos = i;
            if (i == w) i--;
            memmove(r + 1, r, i * sizeof r[0]);
            r[0] = v;
            bad = cs_lru(s, w, v) != pos || memcmp(t, ref, sizeof t) != 0;
        }
    }
    check(!bad, "cache simulator LRU matches its definition for 1-16 ways");
}

int main(void)
{
    test_mtf();
    test_glitch();
    test_lru();
    const trz_codec *c = trz_codec_by_name("byu");
    if (!c) { printf("byu codec not registered\n0 passed, 1 failed\n"); return 1; }
    bus_levels(c, test_generated);
    level = 9;
    uint8_t *vb = malloc(12 * 4000);
    variant_check(c, vb, gen_program(vb, 4000, 1, 1));
    free(vb);
    test_cache(c);
    test_layout(c);
    bus_corpus(c, "byu", test_data);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
