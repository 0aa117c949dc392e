/* test_know.c - carried knowledge (src/format/FORMAT.md, "Knowledge"): the
 * fact store (views, truncation, restarts, limits), both layouts of the
 * knowledge stream and hostile streams, and archives whose chunks carry
 * knowledge: round trips through memory and a pipe, every chunk reached by
 * a seek in every order, one archive for every thread count and decoding
 * with threads, --restart=0 writing version 1, and a damaged chunk costing
 * the rest of its group and nothing more. */
#include "../src/format/know.h"
#include "../src/format/format.h"
#include "member_kind.h"
#include "champsim_gen.h"

#define UNIT_RNG_SEED 0x6a09e667f3bcc908ull
#include "unit.h"
#include <stdarg.h>

static void checkf(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void checkf(int ok, const char *fmt, ...)
{
    char what[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    check(ok, "%s", what);
}

/* ---- the store and the generic layout ---- */

static void store(void)
{
    trz_kstore *s = trz_kstore_create();
    checkf(s != NULL, "a store");
    trz_kdelta d = { 0 };
    trz_kdelta_reset(&d, s);
    uint8_t v[300];
    for (int i = 0; i < 300; i++) v[i] = (uint8_t)(i * 7);
    for (uint64_t k = 0; k < 5000; k++) trz_kdelta_add(&d, k * 977 + 5, v + k % 40, 1 + k % 40);
    trz_kdelta_add(&d, 5, v, 3);      /* a key it has: ignored */
    trz_kdelta_add(&d, 99999999, v, 0);   /* empty: ignored */
    trz_kdelta_add(&d, 99999998, v, 256); /* too long: ignored */
    checkf(trz_kstore_count(s) == 5000 && d.n == 5000, "5000 facts added, the bad ones ignored");
    trz_know all = trz_kstore_view(s, 5000), half = trz_kstore_view(s, 2500);
    size_t n;
    int bad = 0;
    for (uint64_t k = 0; k < 5000; k++) {
        const uint8_t *f = trz_know_get(&all, k * 977 + 5, &n);
        if (!f || n != 1 + k % 40 || memcmp(f, v + k % 40, n) != 0) bad++;
        if ((trz_know_get(&half, k * 977 + 5, &n) != NULL) != (k < 2500)) bad++;
    }
    checkf(bad == 0 && !trz_know_get(&all, 6, &n) && !trz_know_get(NULL, 5, &n), "views see their facts and no others");
    /* both layouts, back into a second store */
    trz_buf out = { 0 };
    checkf(trz_kdelta_write(&d, &trz_codec_raw, trz_kstore_view(s, 0), 9, &out) == TRZ_OK && out.n && out.p[0] == TRZ_KNOW_GENERIC,
          "the container's layout for a codec without one");
    trz_kstore *t = trz_kstore_create();
    checkf(trz_know_apply(t, &trz_codec_raw, out.p, out.n) == TRZ_OK && trz_kstore_count(t) == 5000,
          "the generic layout applies");
    trz_know tv = trz_kstore_view(t, 5000);
    bad = 0;
    for (uint64_t k = 0; k < 5000; k++) {
        const uint8_t *f = trz_know_get(&tv, k * 977 + 5, &n);
        if (!f || n != 1 + k % 40 || memcmp(f, v + k % 40, n) != 0) bad++;
    }
    checkf(bad == 0, "every fact comes back");
    checkf(trz_know_apply(t, &trz_codec_raw, out.p, out.n) == TRZ_ERR_CORRUPT, "stating known keys again is damage");
    /* hostile streams: cut at every length, bytes flipped, garbage */
    int crashes_are_not_tested_here_but_errors_are = 0;
    for (size_t cut = 0; cut < out.n; cut += 1 + cut / 7) {
        trz_kstore_clear(t);
        int rc = trz_know_apply(t, &trz_codec_raw, out.p, cut);
        if (rc == TRZ_OK) crashes_are_not_tested_here_but_errors_are++;
    }
    checkf(crashes_are_not_tested_here_but_errors_are == 0, "a cut knowledge stream is damage");
    uint8_t *g = malloc(out.n);
    for (int it = 0; it < 300; it++) {
        memcpy(g, out.p, out.n);
        g[rnd() % out.n] ^= (uint8_t)(1 + rnd() % 255);
        trz_kstore_clear(t);
        (void)trz_know_apply(t, &trz_codec_raw, g, out.n); /* any result; ASan watches */
        for (size_t i = 0; i < out.n && i < 64; i++) g[i] = (uint8_t)rnd();
        trz_kstore_clear(t);
        (void)trz_know_apply(t, &trz_codec_raw, g, out.n < 64 ? out.n : 64);
        (void)trz_know_apply(t, &trz_codec_champsim, g, out.n < 64 ? out.n : 64);
    }
    free(g);
    uint8_t bad_layout[] = { 9, 1, 0, 1, 7 };
    trz_kstore_clear(t);
    checkf(trz_know_apply(t, &trz_codec_raw, bad_layout, sizeof bad_layout) == TRZ_ERR_UNSUPPORTED,
          "an unknown layout is unsupported");
    uint8_t desc[] = { TRZ_KNOW_GENERIC, 2, 5, 0, 1, 1, 7, 8 }; /* keys 5 then 6: fine */
    checkf(trz_know_apply(t, &trz_codec_raw, desc, sizeof desc) == TRZ_OK, "a well-formed small stream");
    /* truncation forgets exactly the last facts; clearing forgets all */
    trz_kstore_truncate(s, 1000);
    trz_know after = trz_kstore_view(s, trz_kstore_count(s));
    checkf(trz_kstore_count(s) == 1000 && trz_know_get(&after, 999 * 977 + 5, &n) && !trz_know_get(&after, 1000 * 977 + 5, &n),
          "truncate");
    trz_kdelta_reset(&d, s);
    trz_kdelta_add(&d, 1000 * 977 + 5, v, 4);
    after = trz_kstore_view(s, trz_kstore_count(s));
    checkf(trz_kstore_count(s) == 1001 && trz_know_get(&after, 1000 * 977 + 5, &n) && n == 4, "a truncated key can come again");
    trz_kstore_clear(s);
    after = trz_kstore_view(s, 1001);
    checkf(trz_kstore_count(s) == 0 && !trz_know_get(&after, 5, &n), "clear");
    /* the limits stop adding, and the delta says so */
    trz_kdelta_reset(&d, s);
    for (uint64_t k = 0; k < TRZ_KNOW_MAX_FACTS + 10; k++) trz_kdelta_add(&d, k, v, 1);
    checkf(trz_kstore_count(s) == TRZ_KNOW_MAX_FACTS && d.full, "at most 2^19 facts");
    trz_kstore_clear(s);
    trz_kdelta_reset(&d, s);
    for (uint64_t k = 0; k < 70000; k++) trz_kdelta_add(&d, k, v, 255);
    checkf(trz_kstore_count(s) == TRZ_KNOW_MAX_BYTES / 255 && d.full, "at most 16 MiB of values");
    trz_kdelta_free(&d);
    free(out.p);
    trz_kstore_free(s);
    trz_kstore_free(t);
}

/* ---- archives ---- */

typedef struct sink { uint8_t *p; size_t n, cap; } sink;
static int64_t sink_write(void *o, const void *buf, size_t n)
{
    sink *s = o;
    if (s->n + n > s->cap) {
        size_t c = s->cap ? s->cap : 1 << 16;
        while (c < s->n + n) c *= 2;
        uint8_t *q = realloc(s->p, c);
        if (!q) return -1;
        s->p = q;
        s->cap = c;
    }
    memcpy(s->p + s->n, buf, n);
    s->n += n;
    return (int64_t)n;
}
typedef struct src { const uint8_t *p; size_t n, pos; int seekable; } src;
static int64_t src_read(void *o, void *buf, size_t n)
{
    src *s = o;
    if (n > s->n - s->pos) n = s->n - s->pos;
    if (n > 10000) n = 10000; /* short reads, as a pipe gives them */
    memcpy(buf, s->p + s->pos, n);
    s->pos += n;
    return (int64_t)n;
}

#define CHUNK (64 << 10)
#define RESTART (256 << 10) /* groups of 4 chunks */

static int level = 9; /* of the archives compress makes */

static sink compress(const uint8_t *in, size_t n, int threads, int64_t restart)
{
    sink a = { 0 };
    trz_cctx *c = trz_cctx_create();
    trz_cctx_set(c, TRZ_C_LEVEL, level);
    trz_cctx_set(c, TRZ_C_CHUNK_BYTES, CHUNK);
    trz_cctx_set(c, TRZ_C_THREADS, threads);
    if (restart >= 0) trz_cctx_set(c, TRZ_C_RESTART_BYTES, restart);
    trz_cctx_set(c, TRZ_C_CHAIN, 0); /* carried knowledge (version 3), not chains */
    trz_cctx_set(c, TRZ_C_PARITY, 0); /* (damage a reader cannot mend: tests/parity.sh has what parity mends) */
    src s = { in, n, 0, 0 };
    trz_io iio = { &s, src_read, NULL, NULL, NULL }, oio = { &a, NULL, sink_write, NULL, NULL };
    if (trz_compress(c, &iio, &oio) != TRZ_OK) { free(a.p); a.p = NULL; a.n = 0; }
    trz_cctx_free(c);
    return a;
}

/* The whole archive read back, through memory (index) or a pipe. */
static int reads_back(const sink *a, const uint8_t *in, size_t n, int pipe, int threads)
{
    trz_reader *r;
    src s = { a->p, a->n, 0, 0 };
    trz_io io = { &s, src_read, NULL, NULL, NULL };
    int rc = pipe ? trz_reader_open_io(&r, &io) : trz_reader_open_mem(&r, a->p, a->n);
    if (rc) { trz_reader_close(r); return 0; }
    trz_reader_set(r, TRZ_R_THREADS, threads);
    uint8_t *back = malloc(n + 1);
    size_t got = 0;
    int64_t k;
    while ((k = trz_read_bytes(r, back + got, n + 1 - got)) > 0) got += (size_t)k;
    int ok = k == 0 && got == n && memcmp(back, in, n) == 0;
    free(back);
    trz_reader_close(r);
    return ok;
}

static void count_know(void *ctx, const char *format, unsigned id, const char *name, uint64_t raw, uint64_t stored)
{
    (void)format;
    (void)stored;
    if (id == TRZ_KNOW_STREAM && strcmp(name, "knowledge") == 0 && raw) *(int *)ctx = 1;
}

/* A ChampSim trace of 40 chunks in groups of 4 at the current level (the
 * fast levels state facts in bytes, the others range-coded). */
static void archives(void)
{
    csg g;
    const uint64_t nrec = 40000; /* 2.5 MB: 40 chunks, 10 groups */
    csg_run(&g, CSG_HUGE, 64, nrec, 42);
    const uint8_t *in = g.p;
    size_t n = (size_t)(nrec * 64);

    sink a1 = compress(in, n, 1, RESTART), a2 = compress(in, n, 2, RESTART), a3 = compress(in, n, 3, RESTART);
    printf("ChampSim archives at level %d\n", level);
    checkf(a1.n && member_kind(a1.p) == 3, "a multi-chunk ChampSim archive has knowledge: mode knowledge (version 3, or 5 with its flag)");
    checkf(a1.n == a2.n && a1.n == a3.n && memcmp(a1.p, a2.p, a1.n) == 0 && memcmp(a1.p, a3.p, a1.n) == 0,
          "the same archive for 1, 2 and 3 threads");
    checkf(reads_back(&a1, in, n, 0, 1), "reads back through the index");
    checkf(reads_back(&a1, in, n, 1, 1), "reads back through a pipe");
    checkf(reads_back(&a1, in, n, 0, 3), "reads back with 3 decode-ahead threads");
    checkf(reads_back(&a1, in, n, 1, 2), "reads back from a pipe with 2 threads");

    sink v1 = compress(in, n, 1, 0);
    checkf(v1.n && member_kind(v1.p) == 1 && reads_back(&v1, in, n, 0, 1), "--restart=0: chunks on their own (version 1, or 5 without a mode), reads back");
    int has_know = 0;
    trz_reader *rs;
    if (trz_reader_open_mem(&rs, a1.p, a1.n) == TRZ_OK) trz_reader_streams(rs, count_know, &has_know);
    trz_reader_close(rs);
    checkf(has_know, "the chunks carry knowledge streams, listed as \"knowledge\"");

    /* restart flags: every fourth chunk, as the period says */
    trz_reader *r;
    trz_info info;
    int flags_ok = trz_reader_open_mem(&r, a1.p, a1.n) == TRZ_OK && trz_reader_info(r, &info) == TRZ_OK;
    uint64_t nchunks = flags_ok ? (uint64_t)info.chunks : 0;
    for (uint64_t i = 0; i < nchunks && flags_ok; i++) {
        trz_chunk_info ci;
        trz_reader_chunk(r, i, &ci);
        flags_ok = (a1.p[ci.offset + 7] & ~TRZ_CHUNK_PLACED) == (i % 4 == 0 ? TRZ_CHUNK_RESTART : 0);
    }
    checkf(flags_ok && nchunks == 40, "a restart every 256 KiB of trace: chunks 0, 4, 8, ...");
    /* seeks: forward, back, into every chunk, across groups */
    int bad = 0;
    uint8_t buf[64 * 50];
    for (int it = 0; it < 400; it++) {
        uint64_t at = it < 40 ? (uint64_t)it * 1024 + (uint64_t)it % 7 : rnd() % nrec;
        if (trz_seek(r, at) != TRZ_OK) { bad++; continue; }
        int64_t k = trz_read(r, buf, 50);
        uint64_t want = nrec - at < 50 ? nrec - at : 50;
        if (k != (int64_t)want || memcmp(buf, in + at * 64, (size_t)k * 64) != 0) bad++;
    }
    checkf(bad == 0, "400 seeks read the right records (%d wrong)", bad);
    trz_reader_close(r);

    /* damage in chunk 5: chunks 5, 6 and 7 are lost (their group's rest),
     * the restart at 8 decodes again, through the index and a pipe */
    for (int pipe = 0; pipe < 2; pipe++)
        for (int threads = 1; threads <= 2; threads++) {
            sink d = { malloc(a1.n), a1.n, a1.n };
            memcpy(d.p, a1.p, a1.n);
            trz_reader_open_mem(&r, a1.p, a1.n);
            trz_chunk_info c5;
            trz_reader_chunk(r, 5, &c5);
            trz_reader_close(r);
            d.p[c5.offset + c5.stored_bytes - 3] ^= 0x40;
            src s = { d.p, d.n, 0, 0 };
            trz_io io = { &s, src_read, NULL, NULL, NULL };
            int rc = pipe ? trz_reader_open_io(&r, &io) : trz_reader_open_mem(&r, d.p, d.n);
            trz_reader_set(r, TRZ_R_SALVAGE, 1);
            trz_reader_set(r, TRZ_R_THREADS, threads);
            uint8_t *back = malloc(n);
            size_t got = 0;
            int64_t k;
            while (rc == TRZ_OK && (k = trz_read_bytes(r, back + got, n - got)) > 0) got += (size_t)k;
            trz_lost_range lost[8];
            size_t nl = trz_reader_lost(r, lost, 8);
            int ok = nl == 3;
            for (size_t i = 0; i < nl && ok; i++)
                ok = lost[i].chunk == 5 + i && lost[i].records == 1024 && trz_reader_lost_knowledge(r, i) == (i > 0);
            /* what was recovered is the trace without records 5120..8191 */
            ok = ok && got == n - 3 * 1024 * 64 && memcmp(back, in, 5 * CHUNK) == 0 &&
                 memcmp(back + 5 * CHUNK, in + 8 * CHUNK, n - 8 * CHUNK) == 0;
            checkf(ok, "a damaged chunk costs the rest of its group, no more (%s, %d threads; %zu lost)",
                  pipe ? "pipe" : "index", threads, nl);
            free(back);
            trz_reader_close(r);
            /* a seek into the lost part names the chunk whose knowledge is lost;
             * one past the group reads */
            if (!pipe && threads == 1) {
                trz_reader_open_mem(&r, d.p, d.n);
                int e1 = trz_seek(r, 7 * 1024 + 3);
                const char *msg = trz_reader_error(r);
                checkf(e1 != TRZ_OK && strstr(msg, "chunk 7") && strstr(msg, "chunk 5"),
                      "a seek into the group names the lost knowledge: %s", msg);
                trz_reader_close(r);
                trz_reader_open_mem(&r, d.p, d.n);
                int64_t k2 = trz_seek(r, 8 * 1024 + 3) == TRZ_OK ? trz_read(r, buf, 10) : -1;
                checkf(k2 == 10 && memcmp(buf, in + (8 * 1024 + 3) * 64, 640) == 0, "the next group reads");
                trz_reader_close(r);
            }
            free(d.p);
        }
    free(a1.p);
    free(a2.p);
    free(a3.p);
    free(v1.p);
    free(g.p);
}

/* Another codec's knowledge (RST: instruction words by PC), on the sample of
 * 4 processors' loops: version 3, one archive for every thread count, and
 * every record back through the index, a pipe and seeks. */
static void rst_archives(void)
{
    FILE *f = fopen("corpus/loops-4cpu.rst", "rb");
    size_t n = 0;
    uint8_t *in = malloc(1 << 20);
    if (f && in) n = fread(in, 1, 1 << 20, f);
    if (f) fclose(f);
    checkf(n == 960000, "the RST sample reads");
    if (n != 960000) { free(in); return; }
    sink a1 = compress(in, n, 1, RESTART), a2 = compress(in, n, 2, RESTART), a3 = compress(in, n, 3, RESTART);
    checkf(a1.n && member_kind(a1.p) == 3, "a multi-chunk RST archive has knowledge: mode knowledge (version 3, or 5 with its flag)");
    checkf(a1.n == a2.n && a1.n == a3.n && memcmp(a1.p, a2.p, a1.n) == 0 && memcmp(a1.p, a3.p, a1.n) == 0,
          "RST: the same archive for 1, 2 and 3 threads");
    checkf(reads_back(&a1, in, n, 0, 1) && reads_back(&a1, in, n, 1, 1) && reads_back(&a1, in, n, 0, 3) &&
               reads_back(&a1, in, n, 1, 2),
          "RST: reads back through the index, a pipe, with threads");
    int has_know = 0;
    trz_reader *r;
    if (trz_reader_open_mem(&r, a1.p, a1.n) == TRZ_OK) trz_reader_streams(r, count_know, &has_know);
    trz_reader_close(r);
    checkf(has_know, "RST: the chunks carry knowledge streams");
    int bad = 0;
    uint8_t buf[24 * 50];
    const uint64_t nrec = n / 24;
    trz_reader_open_mem(&r, a1.p, a1.n);
    for (int it = 0; it < 200; it++) {
        uint64_t at = rnd() % nrec;
        if (trz_seek(r, at) != TRZ_OK) { bad++; continue; }
        int64_t k = trz_read(r, buf, 50);
        uint64_t want = nrec - at < 50 ? nrec - at : 50;
        if (k != (int64_t)want || memcmp(buf, in + at * 24, (size_t)k * 24) != 0) bad++;
    }
    trz_reader_close(r);
    checkf(bad == 0, "RST: 200 seeks read the right records (%d wrong)", bad);
    free(a1.p);
    free(a2.p);
    free(a3.p);
    free(in);
}

int main(void)
{
    store();
    archives();
    level = 1;
    archives();
    level = 9;
    rst_archives();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
