/* test_golden.c - old archives stay readable: every archive in tests/files/
 * listed in tests/files/MANIFEST decodes, through its index and as a pipe,
 * to exactly the bytes whose size and XXH3-64 the manifest gives, and
 * every bad-* file fails with exactly the message the manifest gives (or,
 * "INDEX || PIPE", the one of each way of reading); "SIZE HASH || PIPE"
 * is a damaged file that the index mends (parity) and a pipe cannot.
 * Golden files are only ever added (tests/files/README.md).  Run from the
 * repository root; prints "N passed, M failed" last.
 *   test_golden              check every file of the manifest
 *   test_golden --hash FILE  print "SIZE XXH3" of FILE's decode, or "error MESSAGE" */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "fuzz/fuzz_common.h"

#include "unit.h"

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0, k;
    uint8_t *p = malloc(cap);
    while (p && (k = fread(p + len, 1, cap - len, f)) > 0)
        if ((len += k) == cap) {
            uint8_t *np = realloc(p, cap *= 2);
            if (!np) free(p);
            p = np;
        }
    fclose(f);
    *n = len;
    return p;
}

/* Decode the archive at path (pipe: from memory without seek); size and
 * hash of the decode, or the reader's message in err.  0 or a trz_result. */
static int decode(const char *path, int pipe, uint64_t *size, uint64_t *hash, char *err, size_t errlen)
{
    trz_reader *r;
    size_t n = 0;
    uint8_t *arch = NULL;
    fz_in in;
    int rc;
    if (pipe) {
        if (!(arch = slurp(path, &n))) { snprintf(err, errlen, "cannot read"); return TRZ_ERR_IO; }
        trz_io io;
        fz_io_in(&io, &in, arch, n, 1000, 0);
        rc = trz_reader_open_io(&r, &io);
    } else {
        rc = trz_reader_open_path(&r, path);
    }
    XXH3_state_t *st = XXH3_createState();
    XXH3_64bits_reset(st);
    *size = 0;
    uint8_t buf[65536];
    while (rc == TRZ_OK) {
        int64_t g = trz_read_bytes(r, buf, sizeof buf);
        if (g < 0) rc = (int)g;
        if (g <= 0) break;
        XXH3_64bits_update(st, buf, (size_t)g);
        *size += (uint64_t)g;
    }
    *hash = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    snprintf(err, errlen, "%s", rc ? trz_reader_error(r) : "");
    trz_reader_close(r);
    free(arch);
    return rc;
}

int main(int argc, char **argv)
{
    char err[400];
    uint64_t size, hash;
    if (argc == 3 && strcmp(argv[1], "--hash") == 0) {
        char perr[400];
        if (decode(argv[2], 0, &size, &hash, err, sizeof err)) {
            /* a message that differs as a pipe follows " || " */
            if (decode(argv[2], 1, &size, &hash, perr, sizeof perr) && strcmp(perr, err) != 0)
                printf("error %s || %s\n", err, perr);
            else
                printf("error %s\n", err);
        } else {
            printf("%llu %016llx\n", (unsigned long long)size, (unsigned long long)hash);
        }
        return 0;
    }
    FILE *m = fopen("tests/files/MANIFEST", "r");
    if (!m) { printf("cannot read tests/files/MANIFEST (run from the repository root)\n"); return 1; }
    char line[1024];
    int files = 0;
    /* Archives whose formats no writer makes any more: each decoder kept
     * only for them must stay covered here. */
    static const struct { const char *name, *what; } keep[] = {
        { "0.9-byu-l6.trz", "BYU stream variant 4 (the legacy bus coder)" },
        { "0.9-byu-l12.trz", "BYU stream variant 6 (the legacy bus coder, mixed)" },
        { "0.16-chain-byu-l19.trz", "BYU stream variant 6 in chains" },
        { "0.9-pbus-l9.trz", "PEL stream variant 6 (the legacy bus coder, mixed)" },
        { "0.16-chain-pbus-l19.trz", "PEL stream variant 6 in chains" },
    };
    int kept[sizeof keep / sizeof keep[0]] = { 0 };
    while (fgets(line, sizeof line, m)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        line[strcspn(line, "\n")] = 0;
        /* NAME SIZE HASH, or NAME error MESSAGE */
        char name[256], a[64];
        int off = 0;
        if (sscanf(line, "%255s %63s %n", name, a, &off) < 2) { check(0, "manifest line '%s'", line); continue; }
        char path[300];
        snprintf(path, sizeof path, "tests/files/%s", name);
        files++;
        for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++) kept[k] |= strcmp(name, keep[k].name) == 0;
        for (int pipe = 0; pipe < 2; pipe++) {
            int rc = decode(path, pipe, &size, &hash, err, sizeof err);
            const char *how = pipe ? "as a pipe" : "through its index";
            if (strcmp(a, "error") == 0) {
                /* MESSAGE, or INDEX-MESSAGE || PIPE-MESSAGE when the two ways of reading say it differently */
                char want[1024];
                snprintf(want, sizeof want, "%s", line + off);
                char *alt = strstr(want, " || ");
                if (alt) {
                    *alt = 0;
                    if (pipe) memmove(want, alt + 4, strlen(alt + 4) + 1);
                }
                check(rc != TRZ_OK && strcmp(err, want) == 0, "%s %s: expected the error '%s', got %s '%s'",
                      name, how, want, rc ? "the error" : "success", err);
            } else if (pipe && strstr(line + off, " || ")) {
                /* SIZE HASH || PIPE-MESSAGE: a damaged archive the index mends (parity) and a pipe cannot */
                const char *want = strstr(line + off, " || ") + 4;
                check(rc != TRZ_OK && strcmp(err, want) == 0, "%s %s: expected the error '%s', got %s '%s'", name,
                      how, want, rc ? "the error" : "success", err);
            } else {
                char want[64];
                snprintf(want, sizeof want, "%016llx", (unsigned long long)hash);
                check(rc == TRZ_OK && strtoull(a, NULL, 10) == size && strncmp(line + off, want, 16) == 0 &&
                          (line[off + 16] == 0 || line[off + 16] == ' '),
                      "%s %s: %s (%llu bytes, XXH3 %s; the manifest says %s %s)", name, how, rc ? err : "decoded",
                      (unsigned long long)size, want, a, line + off);
            }
        }
    }
    fclose(m);
    check(files >= 30, "only %d golden files listed", files);
    for (size_t k = 0; k < sizeof keep / sizeof keep[0]; k++)
        check(kept[k], "%s is listed: it holds %s", keep[k].name, keep[k].what);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
