/* list.c - `trz -l` and `trz dump`: what an archive holds (format, byte
 * order, records, chunks, sizes; with -v the chunks and the bytes per
 * stream), and records printed as text. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "safefile.h"

static const char *order_name(int bo)
{
    return bo == TRZ_BYTE_ORDER_BIG ? "big" : bo == TRZ_BYTE_ORDER_LITTLE ? "little" : "-";
}

static void stream_row(void *ctx, const char *format, unsigned id, const char *name, uint64_t raw, uint64_t comp)
{
    uint64_t total = *(uint64_t *)ctx;
    printf("    %-6s %2u %-18s %12llu -> %10llu  %5.1f%%\n", format, id, name, (unsigned long long)raw,
           (unsigned long long)comp, total ? 100.0 * (double)comp / (double)total : 0.0);
}

int list_file(const cli_opts *o, const char *name)
{
    trz_reader *r;
    int rc = strcmp(name, "-") == 0 ? trz_reader_open_fd(&r, STDIN_FILENO) : trz_reader_open_path(&r, name);
    if (rc) {
        msg_error("%s: %s", name, trz_reader_error(r));
        trz_reader_close(r);
        return 1;
    }
    trz_info in;
    trz_reader_info(r, &in);
    if (!in.seekable) {
        msg_error("%s: cannot list: %s", name, strcmp(name, "-") == 0 ? "the input is a pipe" : "the index is damaged or missing");
        trz_reader_close(r);
        return 1;
    }
    double ratio = in.compressed_bytes ? (double)in.raw_bytes / (double)in.compressed_bytes : 0;
    printf("%-8s %-6s %7s %12s %14s %12s %8s %9s  %s\n", "Format", "Order", "Chunks", "Records", "Raw", "Compressed",
           "Ratio", "Bits/rec", "File");
    printf("%-8s %-6s %7lld %12lld %14lld %12lld %8.2f %9.3f  %s\n", in.format, order_name(in.byte_order),
           (long long)in.chunks, (long long)in.records, (long long)in.raw_bytes, (long long)in.compressed_bytes, ratio,
           in.records ? 8.0 * (double)in.compressed_bytes / (double)in.records : 0.0, name);
    /* records per chunk: the usual count, and the last chunk's */
    if (in.chunks > 0) {
        trz_chunk_info first, last;
        trz_reader_chunk(r, 0, &first);
        trz_reader_chunk(r, (uint64_t)in.chunks - 1, &last);
        printf("  records per chunk: %llu", (unsigned long long)first.records);
        if (in.chunks > 1) printf(" (last chunk %llu)", (unsigned long long)last.records);
        printf("; %lld member%s\n", (long long)in.members, in.members == 1 ? "" : "s");
    }
    if (o->verbose) {
        int cpus = trz_reader_cpus(r); /* decodes the trace: only with -v */
        if (cpus > 0) printf("  CPUs: %d\n", cpus);
        printf("  %8s %12s %10s %12s %14s %12s %6s\n", "Chunk", "First rec", "Records", "Raw", "Offset", "Stored", "Codec");
        for (int64_t i = 0; i < in.chunks; i++) {
            trz_chunk_info c;
            trz_reader_chunk(r, (uint64_t)i, &c);
            printf("  %8lld %12llu %10llu %12llu %14llu %12llu %6s\n", (long long)i, (unsigned long long)c.first_record,
                   (unsigned long long)c.records, (unsigned long long)c.raw_bytes, (unsigned long long)c.offset,
                   (unsigned long long)c.stored_bytes, c.format);
        }
        printf("  bytes per stream (raw -> compressed, share of the archive):\n");
        uint64_t total = (uint64_t)in.compressed_bytes;
        if (trz_reader_streams(r, stream_row, &total)) {
            msg_error("%s: %s", name, trz_reader_error(r));
            trz_reader_close(r);
            return 1;
        }
    }
    trz_reader_close(r);
    return 0;
}

/* A pipe's first bytes, read to tell an archive from a raw trace, then
 * served again before the rest of the pipe. */
typedef struct peeked {
    int fd;
    uint8_t head[4];
    size_t n, pos;
} peeked;

static int64_t peeked_read(void *opaque, void *buf, size_t n)
{
    peeked *p = opaque;
    if (p->pos < p->n) {
        size_t k = p->n - p->pos < n ? p->n - p->pos : n;
        memcpy(buf, p->head + p->pos, k);
        p->pos += k;
        return (int64_t)k;
    }
    for (;;) {
        ssize_t k = read(p->fd, buf, n);
        if (k >= 0 || errno != EINTR) return k;
    }
}

static const uint8_t trz_magic[4] = { 0x89, 'T', 'R', 'Z' };

/* How many of the 4 magic bytes h[0..n) has right. */
static int magic_match(const uint8_t *h, size_t n)
{
    int k = 0;
    for (size_t i = 0; i < 4 && i < n; i++) k += h[i] == trz_magic[i];
    return k;
}

/* A file that starts with most of the magic, or ends with the footer's,
 * is a damaged archive, not a raw trace to hex-dump. */
static int looks_damaged(int fd, const uint8_t *head, size_t n)
{
    if (n == 4 && magic_match(head, n) >= 3) return 1;
    struct stat st;
    uint8_t t[4];
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 4 && pread(fd, t, 4, st.st_size - 4) == 4 &&
           memcmp(t, "TZEN", 4) == 0;
}

int dump_main(int argc, char **argv)
{
    uint64_t first = 0, count = UINT64_MAX;
    const char *format = "auto", *file = "-";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char *end;
        if ((strcmp(a, "-s") == 0 || strcmp(a, "-n") == 0) && i + 1 < argc) {
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (*end || argv[i][0] == '-') { msg_error("bad number '%s'", argv[i]); return 2; }
            if (a[1] == 's') first = v; else count = v;
        } else if (strncmp(a, "--format=", 9) == 0) {
            format = a + 9;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("Usage: trz dump [-s FIRST] [-n COUNT] [--format=NAME] [FILE]\n"
                   "Print records (lines) FIRST..FIRST+COUNT-1 of a .trz archive or a raw trace as text.\n");
            return 0;
        } else if (a[0] == '-' && a[1]) {
            msg_error("dump: unknown option '%s'", a);
            return 2;
        } else {
            file = a;
        }
    }
    int fd = strcmp(file, "-") == 0 ? STDIN_FILENO : open(file, O_RDONLY);
    const char *shown = fd == STDIN_FILENO ? "(stdin)" : file;
    if (fd < 0) { msg_error("%s: %s", file, strerror(errno)); return 1; }
    /* the first bytes tell an archive from a raw trace, from a pipe as well */
    peeked pk = { fd, { 0 }, 0, 0 };
    int seekable = lseek(fd, 0, SEEK_CUR) >= 0;
    ssize_t k = 0;
    while (pk.n < 4 && (k = seekable ? pread(fd, pk.head + pk.n, 4 - pk.n, (off_t)pk.n) : read(fd, pk.head + pk.n, 4 - pk.n)) > 0)
        pk.n += (size_t)k;
    if (k < 0) { msg_error("%s: %s", shown, strerror(errno)); if (fd != STDIN_FILENO) close(fd); return 1; }
    trz_io io;
    int f = fd;
    if (seekable) trz_io_fd(&io, &f);
    else io = (trz_io){ &pk, peeked_read, NULL, NULL, NULL };
    int rc;
    if (magic_match(pk.head, pk.n) == 4 || looks_damaged(fd, pk.head, pk.n)) {
        trz_reader *r;
        rc = trz_reader_open_io(&r, &io);
        if (!rc) rc = trz_dump(r, stdout, first, count);
        if (rc) msg_error("%s: %s", shown, rc == TRZ_ERR_NOT_TRZ ? "a damaged archive (bad magic)" : trz_reader_error(r));
        trz_reader_close(r);
    } else {
        char err[256] = "";
        rc = trz_dump_raw(&io, format, stdout, first, count, err, sizeof err);
        if (rc) msg_error("%s: %s", shown, err);
    }
    if (fd != STDIN_FILENO) close(fd);
    if (fflush(stdout) != 0 && rc == 0) { msg_error("write error: %s", strerror(errno)); rc = 1; }
    return rc ? 1 : 0;
}

/* trz join -o OUT IN...: one archive with a single index over the inputs. */
int join_main(int argc, char **argv)
{
    const char *out = NULL;
    const char **in = calloc((size_t)argc, sizeof *in);
    size_t n = 0;
    int force = 0;
    if (!in) { msg_error("out of memory"); return 1; }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) out = argv[++i];
        else if (strcmp(argv[i], "-f") == 0) force = 1;
        else if (argv[i][0] == '-' && argv[i][1]) { msg_error("join: unknown option '%s'", argv[i]); free(in); return 2; }
        else in[n++] = argv[i];
    }
    if (!out || n == 0) {
        msg_error("usage: trz join -o OUT.trz IN.trz...");
        free(in);
        return 2;
    }
    if (!force && access(out, F_OK) == 0) { msg_error("%s: already exists; use -f to overwrite", out); free(in); return 1; }
    trz_outfile of;
    if (trz_outfile_open(&of, out, TRZ_OUT_UMASK)) { msg_error("%s: %s", out, strerror(errno)); free(in); return 1; }
    trz_io io;
    int f = of.fd;
    trz_io_fd(&io, &f);
    char err[512] = "";
    int rc = trz_join(in, n, &io, err, sizeof err);
    if (rc) {
        trz_outfile_abort(&of);
        msg_error("join: %s", err);
    } else if (trz_outfile_commit(&of, force, 0) != 0) {
        msg_error("join: %s: %s", out, errno == EEXIST ? "already exists (it appeared while trz was writing)" : strerror(errno));
        rc = 1;
    }
    free(in);
    return rc ? 1 : 0;
}
