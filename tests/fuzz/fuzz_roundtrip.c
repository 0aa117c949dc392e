/* fuzz_roundtrip.c - fuzz target roundtrip_<codec>: arbitrary bytes taken as
 * records of one format (FUZZ_FORMAT, set with -D), compressed in memory with
 * small chunks, decoded back and compared.  The first two input bytes choose
 * the level (1-3, or 6, 9, 12: the bus codecs' arithmetic-coded paths),
 * back-end, threads, the encoder's self-check and the chunk size (4-6 KiB,
 * or 16 KiB: enough records for the bus codecs' layout and cache choices,
 * made from 1024 records up); compared across thread counts, also in
 * groups of three chunks with four threads (two lanes).  roundtrip_champsim reads a third byte: bit 0
 * picks the 96-byte cloudsuite records.  Any difference, or a failure to
 * compress or decode, aborts. */
#include "fuzz_common.h"

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT "raw"
#endif

static size_t record_size(const char *format)
{
    static const struct { const char *name; size_t rs; } t[] = {
        { "rst", 24 }, { "byu", 12 }, { "pbus", 6 }, { "uop", 0 }, { "raw", 1 },
        { "champsim", 64 }, { "champsim-cloudsuite", 96 }, { "drmemtrace", 12 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(t[i].name, format) == 0) return t[i].rs;
    abort();
}

/* Records the reader must count: whole records, or line starts for text. */
static uint64_t expected_records(const char *format, const uint8_t *p, size_t n)
{
    size_t rs = record_size(format);
    if (rs) return n / rs;
    if (n == 0) return 0;
    uint64_t lines = 1;
    for (size_t i = 0; i + 1 < n; i++) lines += p[i] == '\n';
    return lines;
}

static void decode_check(const char *format, const fz_out *arc, const uint8_t *src, size_t n, int pipe, int threads)
{
    trz_reader *r;
    fz_in fi;
    trz_io io;
    int rc;
    if (pipe) {
        fz_io_in(&io, &fi, arc->p, arc->n, 1000, 0);
        rc = trz_reader_open_io(&r, &io);
    } else {
        rc = trz_reader_open_mem(&r, arc->p, arc->n);
    }
    if (rc) { fprintf(stderr, "open: %s\n", trz_reader_error(r)); abort(); }
    trz_reader_set(r, TRZ_R_THREADS, threads);
    trz_info in;
    trz_reader_info(r, &in);
    if (!pipe && (!in.seekable || in.raw_bytes != (int64_t)n || in.records != (int64_t)expected_records(format, src, n))) {
        fprintf(stderr, "info: %lld bytes %lld records\n", (long long)in.raw_bytes, (long long)in.records);
        abort();
    }
    fz_out dec = { 0 };
    int64_t g = fz_read_all(r, &dec, 0, NULL);
    if (g != 0) { fprintf(stderr, "read: %s\n", trz_reader_error(r)); abort(); }
    if (dec.n != n || (n && memcmp(dec.p, src, n) != 0)) { fprintf(stderr, "decoded bytes differ\n"); abort(); }
    free(dec.p);
    trz_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_data d = { data, size };
    unsigned a = fz_u8(&d), b = fz_u8(&d);
    const char *format = FUZZ_FORMAT;
    if (strcmp(format, "champsim") == 0 && (fz_u8(&d) & 1)) format = "champsim-cloudsuite";
    int level = (b >> 7 & 1) ? 6 + 3 * (int)(a % 3) : 1 + (int)(a % 3);
    fz_cparams cp = { format, level, (a >> 2 & 1) ? TRZ_BACKEND_GZIP : TRZ_BACKEND_ZSTD,
                      (a >> 3 & 1) ? 2 : 1, !(a >> 4 & 1), b % 4 == 3 ? 16384 : 4096 + 1024 * (int64_t)(b % 4),
                      (b >> 2 & 1) ? 1 + (b >> 3) : 0 };
    fz_out arc = { 0 };
    char err[256] = "";
    if (fz_compress(&cp, d.p, d.n, &arc, err, sizeof err)) { fprintf(stderr, "compress: %s\n", err); abort(); }
    decode_check(format, &arc, d.p, d.n, a >> 5 & 1, (a >> 6 & 1) ? 2 : 1);
    if (a >> 7 & 1) { /* the archive does not depend on the thread count */
        fz_out again = { 0 };
        int64_t groups = 0;
        cp.threads = 3 - cp.threads;
        if (b >> 6 & 1) { /* groups of about three chunks, two at once in lanes (four threads) */
            groups = cp.chunk_bytes * 3;
            cp.threads = 1;
            free(arc.p);
            arc = (fz_out){ 0 };
            if (fz_compress_groups(&cp, groups, d.p, d.n, &arc, err, sizeof err)) abort();
            decode_check(format, &arc, d.p, d.n, 0, 2);
            cp.threads = 4;
        }
        if (fz_compress_groups(&cp, groups, d.p, d.n, &again, err, sizeof err)) abort();
        if (again.n != arc.n || memcmp(again.p, arc.p, arc.n) != 0) { fprintf(stderr, "threads change the archive\n"); abort(); }
        free(again.p);
    }
    free(arc.p);
    return 0;
}
