/* seek_time.c - time random access through the reader API: open a .trz,
 * seek to a record (the middle by default), read N records, close; repeat
 * and print the median, best and worst wall-clock time in ms, the median
 * CPU time of the process (less distorted on a busy machine), and how many chunks
 * each repetition decoded (trz_reader_chunks_decoded).
 *   seek_time [-n records] [-r reps] [-s first] [-T threads] FILE.trz       */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "common.h"
static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* open, seek, read `want` records, close; the records read, or -1 */
static int64_t one(const char *path, int64_t *first, uint64_t want, int threads, uint8_t *buf, trz_info *info,
                   uint64_t *decoded)
{
    trz_reader *r;
    int64_t got = -1;
    if (trz_reader_open_path(&r, path) == TRZ_OK) {
        trz_reader_info(r, info);
        if (*first < 0) *first = info->records / 2;
        trz_reader_set(r, TRZ_R_THREADS, threads);
        if (info->record_size && trz_seek(r, (uint64_t)*first) == TRZ_OK) {
            got = 0;
            while ((uint64_t)got < want) {
                int64_t k = trz_read(r, buf + (size_t)got * info->record_size, want - (uint64_t)got);
                if (k <= 0) break;
                got += k;
            }
        }
    }
    if (got < 0) fprintf(stderr, "seek_time: %s: %s\n", path, trz_reader_error(r));
    *decoded = trz_reader_chunks_decoded(r);
    trz_reader_close(r);
    return got;
}

int main(int argc, char **argv)
{
    long want = 1000, reps = 21, threads = 1, i = 1;
    int64_t first = -1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        long v = an_parse_count(argv[i + 1]);
        if (!strcmp(argv[i], "-n")) want = v;
        else if (!strcmp(argv[i], "-r")) reps = v;
        else if (!strcmp(argv[i], "-s")) first = v;
        else if (!strcmp(argv[i], "-T")) threads = v;
        else break;
        if (v < 0) break;
    }
    if (i + 1 != argc || want < 1 || want > 10000000 || reps < 1 || reps > 10000 || threads < 0) {
        fprintf(stderr, "Usage: seek_time [-n records] [-r reps] [-s first] [-T threads] FILE.trz\n");
        return 2;
    }
    uint8_t *buf = malloc((size_t)want * 4096);
    double *t = malloc((size_t)reps * sizeof *t), *cpu = malloc((size_t)reps * sizeof *cpu);
    if (!buf || !t || !cpu) return 1;
    uint64_t chunks_min = UINT64_MAX, chunks_max = 0;
    int64_t got = 0;
    trz_info info;
    memset(&info, 0, sizeof info);
    for (long k = 0; k < reps; k++) {
        uint64_t c = 0;
        double t0 = clock_s(CLOCK_MONOTONIC), u0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        got = one(argv[i], &first, (uint64_t)want, (int)threads, buf, &info, &c);
        t[k] = clock_s(CLOCK_MONOTONIC) - t0;
        cpu[k] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - u0;
        if (got < 0) return 1;
        if (c < chunks_min) chunks_min = c;
        if (c > chunks_max) chunks_max = c;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    qsort(cpu, (size_t)reps, sizeof *cpu, cmp_double);
    printf("file=%s records=%lld raw_bytes=%lld compressed_bytes=%lld chunks=%lld first=%lld read=%lld reps=%ld median_ms=%.3f best_ms=%.3f worst_ms=%.3f "
           "median_cpu_ms=%.3f chunks_decoded=%llu..%llu\n", argv[i], (long long)info.records, (long long)info.raw_bytes,
           (long long)info.compressed_bytes, (long long)info.chunks, (long long)first, (long long)got, reps,
           t[reps / 2] * 1e3, t[0] * 1e3, t[reps - 1] * 1e3, cpu[reps / 2] * 1e3, (unsigned long long)chunks_min,
           (unsigned long long)chunks_max);
    free(buf);
    free(t);
    free(cpu);
    return got == want ? 0 : 1;
}
