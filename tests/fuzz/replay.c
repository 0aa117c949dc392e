/* replay.c - run every fuzz target over its seed corpus without libFuzzer:
 * for each target, each file in CORPUS/<target>/ is fed to the target's
 * LLVMFuzzerTestOneInput in a child process (so one crash is one failure and
 * the rest still run).  Built with gcc, ASan and UBSan for `make check`.
 * Usage: replay CORPUS_DIR [TARGET...]; ends with "N passed, M failed". */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef int (*fuzz_fn)(const uint8_t *, size_t);
int fz_decode_any(const uint8_t *, size_t);
int fz_roundtrip_raw(const uint8_t *, size_t);
int fz_roundtrip_rst(const uint8_t *, size_t);
int fz_roundtrip_byu(const uint8_t *, size_t);
int fz_roundtrip_pbus(const uint8_t *, size_t);
int fz_roundtrip_uop(const uint8_t *, size_t);
int fz_roundtrip_champsim(const uint8_t *, size_t);
int fz_roundtrip_drmemtrace(const uint8_t *, size_t);
int fz_seek_read(const uint8_t *, size_t);
int fz_oracle(const uint8_t *, size_t);
int fz_drfile(const uint8_t *, size_t);
int fz_sequential(const uint8_t *, size_t);
int fz_reader_api(const uint8_t *, size_t);

static const struct { const char *name; fuzz_fn fn; } targets[] = {
    { "decode_any", fz_decode_any },       { "roundtrip_raw", fz_roundtrip_raw },
    { "roundtrip_rst", fz_roundtrip_rst }, { "roundtrip_byu", fz_roundtrip_byu },
    { "roundtrip_pbus", fz_roundtrip_pbus }, { "roundtrip_uop", fz_roundtrip_uop },
    { "roundtrip_champsim", fz_roundtrip_champsim }, { "roundtrip_drmemtrace", fz_roundtrip_drmemtrace },
    { "seek_read", fz_seek_read },         { "oracle", fz_oracle },
    { "drfile", fz_drfile },               { "sequential", fz_sequential },
    { "reader_api", fz_reader_api },
};
#define NTARGETS (sizeof targets / sizeof targets[0])

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0;
    uint8_t *p = malloc(cap);
    for (size_t k; p && (k = fread(p + len, 1, cap - len, f)) > 0;) {
        len += k;
        if (len == cap) {
            uint8_t *np = realloc(p, cap *= 2);
            if (!np) { free(p); p = NULL; }
            p = np;
        }
    }
    fclose(f);
    *n = len;
    return p;
}

/* 0 when the target returns normally on this input within the time limit. */
static int run_one(fuzz_fn fn, const char *path)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        alarm(60); /* a hang is a failure too */
        size_t n;
        uint8_t *p = slurp(path, &n);
        if (!p) _exit(3);
        fn(p, n);
        free(p);
        _exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid) return -1;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    if (WIFSIGNALED(st)) fprintf(stderr, "  killed by signal %d\n", WTERMSIG(st));
    return -1;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void run_target(const char *dir, size_t t, int *pass, int *fail)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, targets[t].name);
    DIR *d = opendir(path);
    if (!d) { printf("FAIL %s: no corpus directory %s\n", targets[t].name, path); ++*fail; return; }
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        if (n == cap && !(names = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names))) abort();
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    int p0 = *pass;
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s/%s", dir, targets[t].name, names[i]);
        if (run_one(targets[t].fn, path) == 0) ++*pass;
        else { ++*fail; printf("FAIL %s %s\n", targets[t].name, path); }
        free(names[i]);
    }
    free(names);
    if (n == 0) { printf("FAIL %s: empty corpus\n", targets[t].name); ++*fail; }
    printf("ok %s: %d of %zu inputs\n", targets[t].name, *pass - p0, n);
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: replay CORPUS_DIR [TARGET...]\n"); return 2; }
    int pass = 0, fail = 0;
    for (size_t t = 0; t < NTARGETS; t++) {
        int wanted = argc == 2;
        for (int i = 2; i < argc; i++) wanted |= strcmp(argv[i], targets[t].name) == 0;
        if (wanted) run_target(argv[1], t, &pass, &fail);
    }
    printf("%d passed, %d failed\n", pass, fail);
    return fail != 0;
}
