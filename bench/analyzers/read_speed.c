/* read_speed.c - time sequential decoding through the reader API: open a
 * .trz, read every record with trz_read (or trz_foreach, or trz_read_bytes
 * for text) on one thread or more, repeat, and print the best and median
 * speed in MB/s of raw (decoded) bytes on one line of key=value pairs:
 * wall-clock, and per CPU second of the process (which a busy machine
 * distorts less; with threads it adds up every thread's time).
 *   read_speed [-T threads] [-m read|foreach|bytes] [-r reps] FILE.trz      */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common.h"

#define BUF_BYTES (16u << 20)

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int count_cb(void *ctx, const void *recs, size_t n, size_t len, uint64_t first)
{
    (void)recs; (void)first; (void)len;
    *(uint64_t *)ctx += n;
    return 0;
}

/* One pass: returns the bytes (read, bytes) or records (foreach) seen, or -1. */
static int64_t one_pass(const char *path, int threads, char mode, uint8_t *buf, uint32_t *rs_out, const char **fmt,
                        int64_t *chunks)
{
    trz_reader *r;
    if (trz_reader_open_path(&r, path)) {
        fprintf(stderr, "read_speed: %s: %s\n", path, trz_reader_error(r));
        trz_reader_close(r);
        return -1;
    }
    trz_info info;
    trz_reader_info(r, &info);
    *rs_out = info.record_size;
    *fmt = info.format;
    *chunks = info.chunks;
    trz_reader_set(r, TRZ_R_THREADS, threads);
    if (info.record_size == 0 && mode == 'r') mode = 'b'; /* trz_read is for fixed-size records */
    int64_t total = 0;
    uint64_t recs = 0;
    if (mode == 'f') {
        if (trz_foreach(r, count_cb, &recs)) total = -1;
        else total = (int64_t)(recs * info.record_size);
    } else {
        for (;;) {
            int64_t n = mode == 'r' ? trz_read(r, buf, BUF_BYTES / info.record_size) : trz_read_bytes(r, buf, BUF_BYTES);
            if (n < 0) { total = -1; break; }
            if (n == 0) break;
            total += mode == 'r' ? n * (int64_t)info.record_size : n;
        }
    }
    if (total < 0) fprintf(stderr, "read_speed: %s: %s\n", path, trz_reader_error(r));
    trz_reader_close(r);
    return total;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int threads = 1, reps = 5, i = 1;
    char mode = 'r';
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "-T")) threads = (int)an_parse_count(argv[i + 1]);
        else if (!strcmp(argv[i], "-r")) reps = (int)an_parse_count(argv[i + 1]);
        else if (!strcmp(argv[i], "-m")) mode = argv[i + 1][0];
        else break;
    }
    if (i + 1 != argc || threads < 0 || reps < 1 || reps > 1000 || !strchr("rfb", mode)) {
        fprintf(stderr, "Usage: read_speed [-T threads] [-m read|foreach|bytes] [-r reps] FILE.trz\n");
        return 2;
    }
    uint8_t *buf = malloc(BUF_BYTES);
    double *t = malloc((size_t)reps * sizeof *t);
    if (!buf || !t) return 1;
    int64_t bytes = 0, chunks = 0;
    uint32_t rs = 0;
    const char *fmt = "?";
    double *cpu = malloc((size_t)reps * sizeof *cpu);
    if (!cpu) return 1;
    for (int k = 0; k < reps; k++) {
        double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        bytes = one_pass(argv[i], threads, mode, buf, &rs, &fmt, &chunks);
        t[k] = clock_s(CLOCK_MONOTONIC) - t0;
        cpu[k] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (bytes < 0) return 1;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    qsort(cpu, (size_t)reps, sizeof *cpu, cmp_double);
    double med = t[reps / 2], cmed = cpu[reps / 2];
    printf("file=%s format=%s bytes=%lld chunks=%lld mode=%s threads=%d reps=%d best_s=%.4f median_s=%.4f best_MBps=%.0f "
           "median_MBps=%.0f median_cpu_s=%.4f cpu_MBps=%.0f\n",
           argv[i], fmt, (long long)bytes, (long long)chunks, mode == 'r' ? (rs ? "read" : "bytes") : mode == 'f' ? "foreach" : "bytes",
           threads, reps, t[0], med, (double)bytes / t[0] / 1e6, (double)bytes / med / 1e6, cmed,
           (double)bytes / cmed / 1e6);
    free(buf);
    free(t);
    free(cpu);
    return 0;
}
