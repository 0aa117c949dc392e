/* test_byu.c - round-trip and robustness tests for the BYU codec: generated
 * edge cases, every corpus file of the format when present, and damaged
 * streams fed to the decoder (run under ASan/UBSan). */
#include "../codecs/codec.h"
#include "../codecs/bus/addrmodel.h"
#include "../codecs/bus/cachesim.h"

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
    for (size_t i = 0; i < n; i++) buf[i * 12 + 7] = (uint8_t)(i & 1);
    check(c->probe(buf, n * 12, &bo) >= 50, "probe accepts two processors taking turns record by record");
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

/* Stream 14: the layout.  The stream path of levels 6-11 (when it wins:
 * here a loop repeated exactly) keeps kinds and address codes apart or
 * interleaves them in stream 2 when the back-end likes that better; the
 * test builds the other form by hand, so both decoders are checked on any
 * machine.  The lean model of levels 1-5 always has its codes beside the
 * kinds and says so (L_LEAN, 4).  Bad layout bytes are refused. */
static void test_layout(const trz_codec *c)
{
    enum { N = 30000, LOOP = 50 };
    uint8_t *buf = malloc((size_t)N * 12), *out = malloc((size_t)N * 12);
    for (size_t i = 0; i < LOOP; i++) {
        unsigned req = i % 3 == 0 ? 1 : 0;
        put_rec(buf + i * 12, req ? 0x10000000 + (rnd() % 512) * 8 : 0x400000 + 8 * (uint32_t)i, (uint8_t)req, 8, 0, 0,
                100 + rnd() % 50);
    }
    for (size_t i = LOOP; i < N; i++) memcpy(buf + i * 12, buf + (i - LOOP) * 12, 12);
    level = 9;
    enc_out e;
    int ok = encode(c, buf, (size_t)N * 12, &e) == TRZ_CODEC_OK && e.sl[15] == 0;
    check(ok, "a loop repeated exactly takes the stream path at level 9");
    int ilv = ok && e.sl[14] == 1 && e.sp[14][0] == 1;
    ok = ok && (ilv ? e.sl[2] == 2 * (size_t)N && e.sl[6] + e.sl[7] == 0 : e.sl[14] == 0 && e.sl[2] == N && e.sl[6] + e.sl[7] == N);
    check(ok, "the stream path's kinds and codes are apart or interleaved");
    if (ok) {
        /* the other form: kinds and codes split apart, or interleaved */
        uint8_t *k = malloc(2 * (size_t)N), *fc = malloc(N), *dc = malloc(N), lay[2] = { 1, 1 };
        size_t nf = 0, nd = 0;
        if (ilv) {
            for (size_t i = 0; i < N; i++) {
                k[i] = e.sp[2][2 * i];
                if (buf[i * 12 + 4] == 0) fc[nf++] = e.sp[2][2 * i + 1];
                else dc[nd++] = e.sp[2][2 * i + 1];
            }
        } else {
            const uint8_t *f = e.sp[6], *d = e.sp[7];
            for (size_t i = 0; i < N; i++) {
                k[2 * i] = e.sp[2][i];
                k[2 * i + 1] = buf[i * 12 + 4] == 0 ? *f++ : *d++; /* reqtypes 0-1: fetch, read */
            }
        }
        const uint8_t *sp[TRZ_MAX_STREAMS];
        size_t sl[TRZ_MAX_STREAMS];
        memcpy(sp, e.sp, sizeof sp);
        memcpy(sl, e.sl, sizeof sl);
        if (ilv) {
            sp[2] = k, sl[2] = N, sp[6] = fc, sl[6] = nf, sp[7] = dc, sl[7] = nd, sp[14] = NULL, sl[14] = 0;
            check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_OK && memcmp(out, buf, (size_t)N * 12) == 0,
                  "the separate layout decodes");
        } else {
            sp[2] = k, sl[2] = 2 * (size_t)N, sp[6] = sp[7] = NULL, sl[6] = sl[7] = 0, sp[14] = lay, sl[14] = 1;
            check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_OK && memcmp(out, buf, (size_t)N * 12) == 0,
                  "the interleaved layout decodes");
        }
        /* from here on, the interleaved form */
        if (ilv) memcpy(sp, e.sp, sizeof sp), memcpy(sl, e.sl, sizeof sl);
        sp[14] = lay, sl[14] = 1;
        lay[0] = 16;
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_UNSUPPORTED, "a later version's layout is unsupported");
        lay[0] = 8 | 1; /* feed: a chain's flag only */
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "the feed flag outside a chain is corrupt");
        lay[0] = 0;
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "a layout byte 0 is corrupt");
        lay[0] = 2;
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "the grouped layout without its table is corrupt");
        lay[0] = 1;
        sl[14] = 2;
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "a layout stream of 2 bytes is corrupt");
        sp[14] = NULL, sl[14] = 0;
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "interleaved streams read apart are corrupt");
        free(k), free(fc), free(dc);
    }
    enc_free(&e);
    /* the lean model: a noisy trace too */
    for (size_t i = 0; i < N; i++) put_rec(buf + i * 12, rnd() & ~7u, (uint8_t)(rnd() % 3), 8, 0, 0, rnd() % 200);
    level = 3;
    ok = encode(c, buf, (size_t)N * 12, &e) == TRZ_CODEC_OK;
    ok = ok && e.sl[14] == 1 && e.sp[14][0] == 4 && e.sl[2] == 2 * (size_t)N && e.sl[6] + e.sl[7] == 0;
    check(ok, "the lean model's codes are beside the kinds");
    if (ok) {
        const uint8_t *sp[TRZ_MAX_STREAMS];
        size_t sl[TRZ_MAX_STREAMS];
        uint8_t lay[2] = { 4, 0 };
        memcpy(sp, e.sp, sizeof sp);
        memcpy(sl, e.sl, sizeof sl);
        sp[14] = lay;
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_OK && memcmp(out, buf, (size_t)N * 12) == 0,
              "the lean layout decodes");
        static const uint8_t bad[] = { 5, 7, 6 }; /* with interleaving (the lean model's codes always are), no table */
        for (size_t i = 0; i < sizeof bad; i++) {
            lay[0] = bad[i];
            check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "a bad lean layout byte is corrupt");
        }
        lay[0] = 4;
        sl[14] = 2;
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "a lean layout stream of 2 bytes is corrupt");
        sp[14] = NULL, sl[14] = 0;
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, "lean streams read by the other model are corrupt");
        damage(c, buf, 12 * 3000);
    }
    enc_free(&e);
    level = 9;
    free(out);
    free(buf);
}

/* Layout stream 14 of the grouped layout (byu.md): flags, processors - 1,
 * then per processor its byte and the section lengths of streams 2, 6, 7. */
typedef struct grp_table {
    unsigned flags, n;
    uint64_t proc[256], len[256][3];
} grp_table;

static int grp_parse(const uint8_t *p, size_t n, grp_table *t)
{
    trz_rd r;
    trz_rd_init(&r, p, n);
    t->flags = trz_get_u8(&r);
    t->n = (unsigned)trz_get_uvarint(&r) + 1;
    if (r.err || t->n > 256) return -1;
    for (unsigned i = 0; i < t->n; i++) {
        t->proc[i] = trz_get_u8(&r);
        for (int k = 0; k < 3; k++) t->len[i][k] = trz_get_uvarint(&r);
    }
    return r.err || trz_rd_left(&r) ? -1 : 0;
}

static void grp_write(const grp_table *t, trz_buf *b)
{
    b->n = 0;
    trz_put_u8(b, (uint8_t)t->flags);
    trz_put_uvarint(b, t->n - 1);
    for (unsigned i = 0; i < t->n; i++) {
        trz_put_u8(b, (uint8_t)t->proc[i]);
        for (int k = 0; k < 3; k++) trz_put_uvarint(b, t->len[i][k]);
    }
}

/* Two processors, each running its own loop, interleaved in short runs:
 * the encoder groups streams 2, 6 and 7 by processor, the section table
 * matches the records, and a table that does not is corrupt. */
static void test_group(const trz_codec *c)
{
    enum { N = 30000 };
    uint8_t *buf = malloc((size_t)N * 12), *out = malloc((size_t)N * 12);
    static const uint8_t procs[2] = { 3, 1 }; /* the table is in ascending order, not of appearance */
    uint32_t pc[2] = { 0x10000, 0x80000 }, at[2] = { 0, 0 }, nrec[2] = { 0, 0 }, nfetch[2] = { 0, 0 };
    for (size_t i = 0; i < N;) {
        unsigned q = (unsigned)(i / 7) & 1, run = 1 + rnd() % 24;
        for (unsigned j = 0; j < run && i < N; j++, i++) {
            unsigned step = at[q]++ % (q ? 11 : 5); /* loops of 5 and 11 records */
            uint8_t req = q ? (step % 3 == 0 ? 0 : step % 3 == 1 ? 1 : 3) : (step < 3 ? 0 : 1);
            uint32_t addr = req == 0 ? pc[q] + 8 * step : 0x400000 * (q + 1) + 64 * (rnd() % 512);
            put_rec(buf + i * 12, addr, req, 8, 0, procs[q], req ? 140 : 120 + 8 * (rnd() % 3));
            nrec[q]++;
            nfetch[q] += req == 0;
        }
    }
    level = 3;
    enc_out e;
    int ok = encode(c, buf, (size_t)N * 12, &e) == TRZ_CODEC_OK;
    grp_table t;
    ok = ok && e.sl[14] && grp_parse(e.sp[14], e.sl[14], &t) == 0 && (t.flags & 2);
    check(ok, "interleaved processors take the grouped layout");
    if (ok) {
        unsigned w = t.flags & 5 ? 2 : 1; /* kind bytes per record: with the code when interleaved or lean */
        int match = t.n == 2 && t.proc[0] == 1 && t.proc[1] == 3;
        for (unsigned i = 0; match && i < 2; i++) {
            unsigned q = i == 0; /* proc 1 is the second loop */
            match = t.len[i][0] == (uint64_t)w * nrec[q] &&
                    t.len[i][1] == (w == 2 ? 0 : nfetch[q]) && t.len[i][2] == (w == 2 ? 0 : nrec[q] - nfetch[q]);
        }
        check(match, "the section table counts each processor's records");
        check(decode(c, e.sp, e.sl, out, (size_t)N * 12) == TRZ_CODEC_OK && memcmp(out, buf, (size_t)N * 12) == 0,
              "the grouped layout decodes");
        const uint8_t *sp[TRZ_MAX_STREAMS];
        size_t sl[TRZ_MAX_STREAMS];
        memcpy(sp, e.sp, sizeof sp);
        memcpy(sl, e.sl, sizeof sl);
        trz_buf b = { 0 };
        static const char *const what[] = {
            "a section table out of order is corrupt", "sections that do not tile their stream are corrupt",
            "sections shifted between processors are corrupt", "a processor without a section is corrupt",
            "a table of one processor is corrupt", "a layout stream cut short is corrupt",
            "a layout stream with a byte more is corrupt", "a processor twice in the table is corrupt",
            "a byte after the last section is corrupt",
        };
        uint8_t *kx = malloc(e.sl[2] + 1);
        for (int k = 0; k < 9; k++) {
            grp_table v = t;
            if (k == 0) v.proc[0] = 3, v.proc[1] = 1;
            if (k == 7) { /* an empty section for proc 1 first: the rest still tiles */
                v.n = 3;
                for (int j = 2; j > 0; j--) {
                    v.proc[j] = t.proc[j - 1];
                    memcpy(v.len[j], t.len[j - 1], sizeof v.len[j]);
                }
                memset(v.len[0], 0, sizeof v.len[0]);
            }
            if (k == 1) v.len[1][0]--;
            if (k == 2) v.len[0][0]++, v.len[1][0]--;
            if (k == 3) v.proc[1] = 4;
            if (k == 4) v.n = 1, v.len[0][0] += v.len[1][0], v.len[0][1] += v.len[1][1], v.len[0][2] += v.len[1][2];
            grp_write(&v, &b);
            if (k == 5) b.n--;
            if (k == 6) trz_put_u8(&b, 0);
            sp[14] = b.p, sl[14] = b.n;
            if (k == 8) {
                memcpy(kx, e.sp[2], e.sl[2]);
                kx[e.sl[2]] = 0;
                sp[2] = kx, sl[2] = e.sl[2] + 1;
            }
            check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_CORRUPT, what[k]);
            sp[2] = e.sp[2], sl[2] = e.sl[2];
        }
        free(kx);
        grp_write(&t, &b);
        sp[14] = b.p, sl[14] = b.n;
        check(decode(c, sp, sl, out, (size_t)N * 12) == TRZ_CODEC_OK && memcmp(out, buf, (size_t)N * 12) == 0,
              "the table written again decodes");
        free(b.p);
        damage(c, buf, (size_t)N * 12);
    }
    enc_free(&e);
    gen_program(buf, N, 1, 0);
    ok = encode(c, buf, (size_t)N * 12, &e) == TRZ_CODEC_OK;
    check(ok && (e.sl[14] == 0 || (e.sl[14] == 1 && (e.sp[14][0] & 2) == 0)), "one processor never groups");
    enc_free(&e);
    level = 9;
    free(out);
    free(buf);
}

/* Round trip a whole file in 16 MiB chunks (as the container does). */
static void test_data(const trz_codec *c, const uint8_t *d, size_t n, const char *name)
{
    static const int levels[] = { 1, 9, 12 }; /* stream, fast and mixed models */
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
    /* one model for two chunks, reset between them: a larger chunk before a
     * smaller one (tables kept larger than the second needs) and the other way */
    size_t h = n / 2 < (1u << 20) ? n / 2 : (1u << 20), q = h / 4;
    h -= h % rs;
    q -= q % rs;
    for (int l = 0; l < 3; l++) {
        char what[4200];
        snprintf(what, sizeof what, "%s: a model reset between two chunks at level %d", name, levels[l]);
        check(test_model_reuse(c, d, h, d + h, q, levels[l], TEST_BYTE_ORDER) &&
                  test_model_reuse(c, d + h, q, d, h, levels[l], TEST_BYTE_ORDER),
              what);
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

/* A chain of chunks of different sizes and kinds: a walk over addresses
 * never seen before (fetches and reads at random addresses), a short
 * program, the walk again, two and three processors, sprinkled random
 * bytes, the two processors again. */
static void test_chain(const trz_codec *c)
{
    size_t len[6] = { 12 * 2100, 12 * 300, 12 * 2100, 12 * 3000, 12 * 1500, 12 * 3000 }, n = 0;
    for (int i = 0; i < 6; i++) n += len[i];
    uint8_t *buf = malloc(n), *p = buf;
    for (size_t i = 0; i < 2100; i += 2) {
        put_rec(p + i * 12, rnd() & ~7u, 0, 8, 0, 0, 112 + 8 * (i % 3));
        put_rec(p + i * 12 + 12, rnd() & ~3u, 1, 4, 0, 0, 120);
    }
    p += len[0];
    p += gen_program(p, 300, 1, 0);
    memcpy(p, buf, len[0]);
    p += len[0];
    p += gen_program(p, 3000, 2, 0);
    p += gen_program(p, 1500, 3, 1);
    memcpy(p, p - len[4] - len[3], len[3]);
    bus_chain(c, buf, len, 6, 2);
    free(buf);
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
    test_group(c);
    test_chain(c);
    bus_corpus(c, "byu", test_data);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
