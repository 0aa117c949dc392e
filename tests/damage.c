/* damage.c - archive surgery for the damage tests (tests/damage.sh): cut,
 * repeat or swap whole chunks or groups of a one-member archive, the way a
 * bad copy, a broken transfer or a careless splice would, with the index
 * left as it was or rebuilt to match what is there now (its check, the
 * chunks' numbers and a version 5 member hash recomputed, as a tool that
 * "repairs" an archive would).  The chunks themselves are never touched.
 *
 *   damage info ARCHIVE                      chunks, groups and codecs, one line each
 *   damage OP ARCHIVE OUT N [rebuild]        OP: cut | dup | swap | cutgroup | dupgroup
 *   damage read ORIGINAL ARCHIVE [SEEKS]     the C reader on it, every way: exit 1 if any
 *                                            read succeeded with other bytes than ORIGINAL's
 *
 * cut removes chunk N, dup puts a copy of chunk N after it, swap exchanges
 * chunks N and N + 1, cutgroup and dupgroup do the same with the whole
 * group that chunk N starts.  Exit 0, or 2 on a usage or input error. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <signal.h>

#include "../src/format/format.h"

typedef struct { uint64_t off, len; trz_chunk_hdr h; } piece;

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 20, len = 0;
    uint8_t *p = malloc(cap);
    size_t k;
    while (p && (k = fread(p + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) p = realloc(p, cap *= 2);
    }
    fclose(f);
    *n = len;
    return p;
}

static int die(const char *m)
{
    fprintf(stderr, "damage: %s\n", m);
    return 2;
}

/* ---- the C reader on a damaged archive ----
 * Every read that succeeds must give the original's bytes for the records
 * it says it gives: whole reads with one and two threads, from the file and
 * from a pipe, and seeks to records spread over the trace (the unit of the
 * archive's format: records of a fixed size, or lines). */
static const uint8_t *g_orig;
static size_t g_olen, g_rs;
static uint64_t *g_line; /* text: where each line starts */
static uint64_t g_nrec;
static int g_wrong, g_reads, g_ok;

static uint64_t rec_off(uint64_t k) { return k >= g_nrec ? g_olen : g_rs ? k * g_rs : g_line[k]; }

static void wrong(const char *how, uint64_t at)
{
    printf("WRONG: %s (record %llu): a read succeeded with bytes that are not the original's\n", how,
           (unsigned long long)at);
    g_wrong++;
}

/* Read to the end; the bytes must be the original's from record `from` on. */
static void read_all(trz_reader *r, uint64_t from, const char *how)
{
    size_t cap = 1 << 16, got = 0;
    uint8_t *b = malloc(cap);
    int64_t k;
    while ((k = trz_read_bytes(r, b + got, cap - got)) > 0) {
        got += (size_t)k;
        if (got == cap) b = realloc(b, cap *= 2);
    }
    g_reads++;
    size_t off = (size_t)rec_off(from);
    if (k == 0) {
        if (got != g_olen - off || memcmp(b, g_orig + off, got) != 0) wrong(how, from);
        else g_ok++;
    }
    free(b);
}

/* Seek to record k and read up to 1000 records. */
static void read_some(trz_reader *r, uint64_t k, int pipe, const char *how)
{
    g_reads++;
    if (trz_seek(r, k) != TRZ_OK) return;
    const void *v;
    uint64_t n = 0, done = 0;
    size_t off = (size_t)rec_off(k), got = 0;
    int ok = 1;
    while (done < 1000) {
        int64_t g = trz_read_span(r, &v, 1000 - done, &n);
        if (g < 0) return; /* detected */
        if (g == 0) break;
        if (off + got + (size_t)g > g_olen || memcmp(v, g_orig + off + got, (size_t)g) != 0) ok = 0;
        got += (size_t)g;
        done += n;
    }
    if (pipe && trz_reader_check_rest(r) != TRZ_OK) return; /* what proves a slice from a pipe */
    if (!ok || (done < 1000 && k + done < g_nrec) || off + got != rec_off(k + done)) wrong(how, k);
    else g_ok++;
}

static trz_reader *open_pipe(const char *path, pid_t *pid, int *rfd)
{
    int fd[2];
    if (pipe(fd)) return NULL;
    *pid = fork();
    if (*pid == 0) {
        close(fd[0]);
        size_t n;
        uint8_t *a = slurp(path, &n);
        for (size_t w = 0; a && w < n;) {
            ssize_t k = write(fd[1], a + w, n - w);
            if (k <= 0) break;
            w += (size_t)k;
        }
        _exit(0);
    }
    close(fd[1]);
    *rfd = fd[0];
    trz_reader *r;
    if (trz_reader_open_fd(&r, fd[0]) != TRZ_OK) { trz_reader_close(r); close(fd[0]); waitpid(*pid, NULL, 0); return NULL; }
    return r;
}

static void close_pipe(trz_reader *r, pid_t pid, int fd)
{
    trz_reader_close(r);
    close(fd); /* (the reader does not own it): the writer ends */
    waitpid(pid, NULL, 0);
}

static int read_mode(const char *orig, const char *path, int nseek)
{
    signal(SIGPIPE, SIG_IGN); /* a pipe's writer whose reader stopped early */
    g_orig = slurp(orig, &g_olen);
    if (!g_orig) return die("cannot read the original");
    trz_reader *r;
    if (trz_reader_open_path(&r, path) == TRZ_OK) {
        trz_info in;
        trz_reader_info(r, &in);
        g_rs = in.record_size;
    }
    trz_reader_close(r);
    if (g_rs == 0) { /* lines, or unknown (no index): the original tells, as text or as bytes */
        int text = memchr(g_orig, '\n', g_olen < 4096 ? g_olen : 4096) != NULL;
        g_line = malloc((g_olen + 2) * sizeof *g_line);
        g_nrec = 0;
        for (size_t i = 0; i < g_olen; i++)
            if (text ? i == 0 || g_orig[i - 1] == '\n' : 1) g_line[g_nrec++] = i;
    } else {
        g_nrec = g_olen / g_rs;
    }
    for (int t = 1; t <= 2; t++) {
        if (trz_reader_open_path(&r, path) == TRZ_OK) {
            trz_reader_set(r, TRZ_R_THREADS, t);
            read_all(r, 0, t == 1 ? "whole, file, 1 thread" : "whole, file, 2 threads");
        }
        trz_reader_close(r);
    }
    pid_t pid;
    int fd;
    if ((r = open_pipe(path, &pid, &fd))) {
        read_all(r, 0, "whole, pipe");
        close_pipe(r, pid, fd);
    }
    for (int i = 0; i < nseek; i++) {
        uint64_t k = g_nrec * (uint64_t)i / (uint64_t)nseek + (uint64_t)i;
        if (k >= g_nrec) k = g_nrec ? g_nrec - 1 : 0;
        for (int t = 1; t <= 2; t++)
            if (trz_reader_open_path(&r, path) == TRZ_OK) {
                trz_reader_set(r, TRZ_R_THREADS, t);
                read_some(r, k, 0, t == 1 ? "seek, file, 1 thread" : "seek, file, 2 threads");
                trz_reader_close(r);
            } else {
                trz_reader_close(r);
            }
        if ((r = open_pipe(path, &pid, &fd))) {
            read_some(r, k, 1, "seek, pipe");
            close_pipe(r, pid, fd);
        }
    }
    printf("%d reads: %d gave the original's bytes, %d failed as they should, %d were wrong\n", g_reads, g_ok,
           g_reads - g_ok - g_wrong, g_wrong);
    return g_wrong ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "read") == 0) return read_mode(argv[2], argv[3], argc > 4 ? atoi(argv[4]) : 6);
    if (argc < 3) return die("usage: damage info ARCHIVE | damage OP ARCHIVE OUT N [rebuild]");
    const char *op = argv[1];
    size_t n;
    uint8_t *a = slurp(argv[2], &n);
    if (!a || n < TRZ_FOOTER_SIZE) return die("cannot read the archive");
    trz_footer ft;
    if (trz_footer_parse(a + n - TRZ_FOOTER_SIZE, &ft) || ft.member_size != n) return die("not a one-member archive");
    trz_file_hdr fh;
    size_t hlen;
    if (trz_file_hdr_parse(a, n, &fh, &hlen)) return die("bad file header");
    uint64_t pos = hlen + fh.restore_size;
    piece *c = NULL;
    size_t nc = 0;
    while (pos < ft.index_offset) {
        c = realloc(c, (nc + 1) * sizeof *c);
        size_t need;
        if (trz_chunk_parse_hdr(a + pos, n - pos, &c[nc].h, &need)) return die("bad chunk header");
        c[nc].off = pos;
        c[nc].len = need;
        pos += need;
        nc++;
    }
    if (strcmp(op, "info") == 0) {
        for (size_t i = 0; i < nc; i++)
            printf("%zu %s %s %u %u\n", i, c[i].h.flags & TRZ_CHUNK_RESTART ? "start" : "cont",
                   c[i].h.codec == fh.codec ? "own" : "raw", c[i].h.nrec, c[i].h.raw);
        return 0;
    }
    if (argc < 5) return die("missing OUT or N");
    size_t k = (size_t)strtoull(argv[4], NULL, 10);
    int rebuild = argc > 5 && strcmp(argv[5], "rebuild") == 0;
    if (k >= nc) return die("no such chunk");
    size_t k2 = k + 1; /* the piece [k, k2) the operation moves */
    if (strcmp(op, "cutgroup") == 0 || strcmp(op, "dupgroup") == 0) {
        if (!(c[k].h.flags & TRZ_CHUNK_RESTART)) return die("chunk N does not start a group");
        while (k2 < nc && !(c[k2].h.flags & TRZ_CHUNK_RESTART)) k2++;
    }
    size_t *order = malloc((nc + (k2 - k) + 1) * sizeof *order), no = 0;
    for (size_t i = 0; i < nc; i++) {
        if (strcmp(op, "cut") == 0 || strcmp(op, "cutgroup") == 0) {
            if (i >= k && i < k2) continue;
            order[no++] = i;
        } else if (strcmp(op, "dup") == 0 || strcmp(op, "dupgroup") == 0) {
            order[no++] = i;
            if (i + 1 == k2)
                for (size_t j = k; j < k2; j++) order[no++] = j;
        } else if (strcmp(op, "swap") == 0) {
            if (k + 1 >= nc) return die("no chunk after N to swap with");
            order[no++] = i == k ? k + 1 : i == k + 1 ? k : i;
        } else {
            return die("unknown operation");
        }
    }
    FILE *out = fopen(argv[3], "wb");
    if (!out) return die("cannot write OUT");
    fwrite(a, 1, hlen + fh.restore_size, out);
    uint64_t at = hlen + fh.restore_size, rec = 0, byte = 0, mh = 0;
    trz_index_entry *e = calloc(no + 1, sizeof *e);
    for (size_t i = 0; i < no; i++) {
        const piece *p = &c[order[i]];
        fwrite(a + p->off, 1, p->len, out);
        e[i] = (trz_index_entry){ at, rec, byte, p->h.nrec, p->h.raw, (uint32_t)p->len, p->h.codec, p->h.flags };
        at += p->len;
        rec += p->h.nrec;
        byte += p->h.raw;
        mh = trz_member_hash_step(mh, p->h.xxh, p->h.raw, p->h.nrec);
    }
    if (rebuild) {
        trz_buf b = { 0 };
        if (trz_index_write(&b, e, no, at, fh.placed ? &mh : NULL)) return die("out of memory");
        fwrite(b.p, 1, b.n, out);
        free(b.p);
    } else {
        fwrite(a + ft.index_offset, 1, n - ft.index_offset, out);
    }
    if (fclose(out)) return die("write error");
    free(e);
    free(order);
    free(c);
    free(a);
    return 0;
}
