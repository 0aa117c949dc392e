/* test_vecstate.c - every public call returns with the vector registers'
 * upper halves clean (x86-64).  A simulator calls trz_read in its loop;
 * if trz left AVX state in use, each SSE instruction of the host would pay
 * for it.  XGETBV with ECX=1 reads XINUSE: bit 2 is the upper YMM state,
 * bit 6 the upper ZMM state.  Where the CPU cannot report it, the test
 * says so and checks nothing but the round trip. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../include/trz.h"
#include "unit.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
static int xinuse_known(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) return 0;
    if (!__get_cpuid_count(0xd, 1, &a, &b, &c, &d)) return 0;
    return (a >> 2) & 1; /* XGETBV with ECX=1 supported */
}
static uint64_t xinuse(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
    return ((uint64_t)hi << 32) | lo;
}
#else
static int xinuse_known(void) { return 0; }
static uint64_t xinuse(void) { return 0; }
#endif

static int known;

static void clean(const char *after)
{
    if (!known) return;
    uint64_t x = xinuse();
    char what[160];
    snprintf(what, sizeof what, "upper vector state in use after %s (XINUSE 0x%llx)", after, (unsigned long long)x);
    check((x & ((1u << 2) | (1u << 6))) == 0, "%s", what);
}

/* ---- memory I/O ---- */
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
typedef struct src { const uint8_t *p; size_t n, pos; } src;
static int64_t src_read(void *o, void *buf, size_t n)
{
    src *s = o;
    if (n > s->n - s->pos) n = s->n - s->pos;
    memcpy(buf, s->p + s->pos, n);
    s->pos += n;
    return (int64_t)n;
}

static int count_batch(void *ctx, const void *recs, size_t n, size_t bytes, uint64_t first)
{
    (void)recs;
    (void)bytes;
    (void)first;
    *(uint64_t *)ctx += n;
    return 0;
}

/* A BYU-like trace of n records: enough chunks (4 KiB each) that reads
 * cross chunks and the checksums run many times. */
static uint8_t *make_trace(size_t nrec)
{
    uint8_t *t = malloc(nrec * 12);
    if (!t) exit(2);
    uint32_t a = 0x10000;
    for (size_t i = 0; i < nrec; i++) {
        a += (i % 7 == 0) ? 0x1000 : 4;
        uint8_t *r = t + 12 * i;
        memcpy(r, &a, 4);
        r[4] = (uint8_t)(i % 3);
        r[5] = 4;
        r[6] = 0;
        r[7] = 0;
        uint32_t dt = (uint32_t)(i % 5);
        memcpy(r + 8, &dt, 4);
    }
    return t;
}

int main(void)
{
    known = xinuse_known();
    if (!known) printf("note: this CPU does not report XINUSE; only the round trip is checked\n");
    clean("start-up (the test itself)");

    const size_t nrec = 60000;
    uint8_t *trace = make_trace(nrec);

    /* the writer */
    trz_cctx *c = trz_cctx_create();
    clean("trz_cctx_create");
    check(trz_cctx_set(c, TRZ_C_CHUNK_BYTES, 4096 * 12) == TRZ_OK, "chunk size accepted");
    check(trz_cctx_set_format(c, "byu") == TRZ_OK, "format accepted");
    clean("trz_cctx_set");
    sink arch = { 0 };
    trz_io out = { &arch, NULL, sink_write, NULL, NULL };
    trz_writer *w;
    check(trz_writer_open(&w, c, &out) == TRZ_OK, "writer opens");
    clean("trz_writer_open");
    for (size_t off = 0; off < nrec * 12; off += 7777) {
        size_t n = nrec * 12 - off < 7777 ? nrec * 12 - off : 7777;
        trz_writer_write(w, trace + off, n);
        clean("trz_writer_write");
    }
    check(trz_writer_finish(w) == TRZ_OK, "writer finishes");
    clean("trz_writer_finish");
    trz_writer_close(w);
    clean("trz_writer_close");

    /* trz_compress, one thread and two */
    for (int th = 1; th <= 2; th++) {
        trz_cctx_set(c, TRZ_C_THREADS, th);
        sink a2 = { 0 };
        src in = { trace, nrec * 12, 0 };
        trz_io iio = { &in, src_read, NULL, NULL, NULL };
        trz_io oio = { &a2, NULL, sink_write, NULL, NULL };
        check(trz_compress(c, &iio, &oio) == TRZ_OK, "trz_compress");
        clean(th == 1 ? "trz_compress" : "trz_compress with 2 threads");
        check(a2.n == arch.n && memcmp(a2.p, arch.p, arch.n) == 0, "writer and trz_compress agree");
        free(a2.p);
    }
    trz_cctx_free(c);

    /* reading: sequential, views, spans, seeks, callbacks, threads */
    for (int th = 1; th <= 2; th++) {
        trz_reader *r;
        check(trz_reader_open_mem(&r, arch.p, arch.n) == TRZ_OK, "reader opens");
        clean("trz_reader_open_mem");
        trz_reader_set(r, TRZ_R_THREADS, th);
        clean("trz_reader_set");
        trz_info info;
        trz_reader_info(r, &info);
        clean("trz_reader_info");
        check(info.records == (int64_t)nrec, "record count");
        uint8_t *back = malloc(nrec * 12);
        size_t got = 0;
        for (;;) {
            int64_t k = trz_read(r, back + got, 1000);
            clean(th == 1 ? "trz_read" : "trz_read with 2 threads");
            if (k <= 0) break;
            got += (size_t)k * 12;
        }
        check(got == nrec * 12 && memcmp(back, trace, got) == 0, "records read back");
        for (int i = 0; i < 50; i++) {
            uint64_t at = (uint64_t)(i * 1237) % nrec;
            check(trz_seek(r, at) == TRZ_OK, "seek");
            clean("trz_seek");
            const void *v;
            uint64_t nr = 0;
            int64_t k = trz_read_span(r, &v, 100, &nr);
            clean("trz_read_span");
            check(k > 0 && memcmp(v, trace + at * 12, (size_t)k) == 0, "span after seek");
            k = trz_read_view(r, &v, 5000);
            clean("trz_read_view");
            k = trz_read_bytes(r, back, 999);
            clean("trz_read_bytes");
        }
        trz_seek(r, 0);
        uint64_t seen = 0;
        check(trz_foreach(r, count_batch, &seen) == TRZ_OK && seen == nrec, "foreach");
        clean("trz_foreach");
        trz_chunk_info ci;
        trz_reader_chunk(r, 3, &ci);
        clean("trz_reader_chunk");
        trz_reader_close(r);
        clean("trz_reader_close");
        free(back);
    }

    /* paths and the dump */
    char dir[] = "/tmp/trz-vec.XXXXXX";
    if (mkdtemp(dir)) {
        char a[64], b[64], t[64];
        snprintf(a, sizeof a, "%s/a.trz", dir);
        snprintf(b, sizeof b, "%s/b", dir);
        snprintf(t, sizeof t, "%s/t.byu", dir);
        FILE *f = fopen(a, "wb");
        if (f) { fwrite(arch.p, 1, arch.n, f); fclose(f); }
        f = fopen(t, "wb");
        if (f) { fwrite(trace, 1, nrec * 12, f); fclose(f); }
        char err[200];
        check(trz_decompress_path(a, b, 1, err, sizeof err) == TRZ_OK, "trz_decompress_path");
        clean("trz_decompress_path");
        trz_cctx *c2 = trz_cctx_create();
        check(trz_compress_path(c2, t, a) == TRZ_OK, "trz_compress_path");
        clean("trz_compress_path");
        trz_cctx_free(c2);
        trz_reader *r;
        if (trz_reader_open_path(&r, a) == TRZ_OK) {
            clean("trz_reader_open_path");
            FILE *nul = fopen("/dev/null", "w");
            check(trz_dump(r, nul, 100, 50) == TRZ_OK, "trz_dump");
            clean("trz_dump");
            if (nul) fclose(nul);
        }
        trz_reader_close(r);
        unlink(a);
        unlink(b);
        unlink(t);
        rmdir(dir);
    }
    /* every codec's decoder and encoder, on the samples (run from the
     * repository root) */
    static const char *const samples[] = {
        "corpus/loops-4cpu.rst", "corpus/bus-1cpu.pbus", "corpus/bus-2cpu.byu",
        "corpus/mix.champsimtrace", "corpus/mix-cloudsuite.champsimtrace", "corpus/sjeng-like.trace",
    };
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        char a[] = "/tmp/trz-vec-s.XXXXXX";
        int fd = mkstemp(a);
        if (fd < 0) continue;
        close(fd);
        trz_cctx *c3 = trz_cctx_create();
        trz_cctx_set(c3, TRZ_C_CHUNK_BYTES, 64 << 10);
        int ok = trz_compress_path(c3, samples[i], a) == TRZ_OK;
        check(ok, "%s", samples[i]);
        clean("trz_compress_path of a sample");
        trz_cctx_free(c3);
        trz_reader *r;
        if (ok && trz_reader_open_path(&r, a) == TRZ_OK) {
            uint8_t buf[1 << 14];
            int64_t k;
            while ((k = trz_read_bytes(r, buf, sizeof buf)) > 0) clean("trz_read_bytes of a sample");
            check(k == 0, "sample reads to the end");
            trz_seek(r, 10);
            clean("trz_seek in a sample");
            trz_reader_close(r);
        }
        unlink(a);
    }
    free(arch.p);
    free(trace);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
