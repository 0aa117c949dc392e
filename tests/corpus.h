/* corpus.h - where the tests find the shared real traces, and how they load
 * one.  The directory is $TRZ_SHARED_CORPUS, else ../shared/corpus beside the
 * repository (the tests run from its root).  A file ending in .xz is read
 * through `xz -dc`; any other file as it is.  Absent files give NULL, so a
 * clone without the shared corpus skips those tests. */
#ifndef TRZ_TESTS_CORPUS_H
#define TRZ_TESTS_CORPUS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline const char *corpus_dir(void)
{
    const char *d = getenv("TRZ_SHARED_CORPUS");
    return d && *d ? d : "../shared/corpus";
}

/* Path of `rel` (e.g. "rst/x.rst.xz") inside the shared corpus. */
static inline const char *corpus_path(char *buf, size_t cap, const char *rel)
{
    snprintf(buf, cap, "%s/%s", corpus_dir(), rel);
    return buf;
}

static inline uint8_t *corpus_load(const char *path, size_t *len)
{
    size_t pl = strlen(path);
    int xz = pl > 3 && strcmp(path + pl - 3, ".xz") == 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    if (xz) {
        char cmd[4200];
        fclose(f);
        snprintf(cmd, sizeof cmd, "xz -dc '%s'", path);
        if (!(f = popen(cmd, "r"))) return NULL;
    }
    size_t cap = 1 << 20, n = 0, got;
    uint8_t *b = malloc(cap);
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *nb = realloc(b, cap *= 2);
            if (!nb) { free(b); b = NULL; }
            else b = nb;
        }
    }
    int bad = xz ? pclose(f) != 0 : (fclose(f), 0);
    if (bad) { free(b); return NULL; }
    *len = n;
    return b;
}

#endif
