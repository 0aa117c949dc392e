/* serve_reader.c - a small trace reader for tests/serve.sh that opens a
 * trace directory as DynamoRIO's launcher does with -indir: it lists the
 * directory, opens every file whose name holds ".trace" one after another
 * (each open blocks until its FIFO has a writer), all before reading any,
 * then reads them in turns, 64 KiB at a time.  Prints one line a file:
 * its name, the bytes read and their FNV-1a hash.
 *   serve_reader DIR [--files K] [--bytes N] [--twice]
 * --files K: open only the first K (by name); --bytes N: stop each file
 * after N bytes and exit at once (a tool that stops early); --twice: open
 * each file again once read and check it gives the same bytes. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct { char *name; int fd; uint64_t n, h; int done; } file;

static int by_name(const void *a, const void *b) { return strcmp(((const file *)a)->name, ((const file *)b)->name); }

static int read_all(const char *dir, file *f, uint64_t limit, uint64_t *n, uint64_t *h)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, f->name);
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    static unsigned char buf[1 << 16];
    *n = 0, *h = 14695981039346656037ull;
    for (ssize_t k; *n < limit && (k = read(fd, buf, sizeof buf)) > 0;)
        for (ssize_t i = 0; i < k; i++) *h = (*h ^ buf[i]) * 1099511628211ull, ++*n;
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: serve_reader DIR [--files K] [--bytes N] [--twice]\n"); return 2; }
    const char *dir = argv[1];
    size_t maxfiles = SIZE_MAX;
    uint64_t limit = UINT64_MAX;
    int twice = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--files") == 0 && i + 1 < argc) maxfiles = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--bytes") == 0 && i + 1 < argc) limit = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--twice") == 0) twice = 1;
        else { fprintf(stderr, "serve_reader: bad argument %s\n", argv[i]); return 2; }
    }
    DIR *d = opendir(dir);
    if (!d) { perror(dir); return 1; }
    file *f = NULL;
    size_t n = 0;
    for (struct dirent *de; (de = readdir(d));) {
        if (!strstr(de->d_name, ".trace")) continue;
        f = realloc(f, (n + 1) * sizeof *f);
        f[n++] = (file){ strdup(de->d_name), -1, 0, 14695981039346656037ull, 0 };
    }
    closedir(d);
    qsort(f, n, sizeof *f, by_name);
    if (n > maxfiles) n = maxfiles;
    for (size_t i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, f[i].name);
        if ((f[i].fd = open(path, O_RDONLY)) < 0) { perror(path); return 1; }
    }
    static unsigned char buf[1 << 16];
    for (size_t left = n; left;) {
        for (size_t i = 0; i < n; i++) {
            if (f[i].done) continue;
            size_t want = sizeof buf;
            if (limit - f[i].n < want) want = (size_t)(limit - f[i].n);
            ssize_t k = want ? read(f[i].fd, buf, want) : 0;
            if (k < 0) { perror(f[i].name); return 1; }
            for (ssize_t j = 0; j < k; j++) f[i].h = (f[i].h ^ buf[j]) * 1099511628211ull;
            f[i].n += (uint64_t)k;
            if (k == 0 || f[i].n >= limit) f[i].done = 1, left--;
        }
    }
    if (limit != UINT64_MAX) return 0; /* stops early, its files still open */
    for (size_t i = 0; i < n; i++) {
        close(f[i].fd);
        printf("%s %llu %016llx\n", f[i].name, (unsigned long long)f[i].n, (unsigned long long)f[i].h);
        uint64_t n2 = 0, h2 = 0;
        if (twice && (read_all(dir, &f[i], UINT64_MAX, &n2, &h2) || n2 != f[i].n || h2 != f[i].h)) {
            fprintf(stderr, "serve_reader: %s: a second open gave %llu bytes, not the same\n", f[i].name,
                    (unsigned long long)n2);
            return 1;
        }
    }
    return 0;
}
