/* commands.c - the subcommands `trz dump` (records as text, from an
 * archive or a raw trace, a file or a pipe) and `trz join` (archives into
 * one with a single index). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/safefile.h"
#include "cli.h"
#include "msg.h"

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
        } else if (strcmp(a, "--format") == 0 && i + 1 < argc) {
            format = argv[++i];
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("Usage: trz dump [-s FIRST] [-n COUNT] [--format NAME] [FILE]\n"
                   "Print records FIRST..FIRST+COUNT-1 (lines, for text formats) of a .trz\n"
                   "archive or of a raw trace as text, one record a line, in the format's own\n"
                   "notation.  With no FILE, or -, read standard input (an archive or a raw\n"
                   "trace; a pipe too).  --format names a raw trace's format (default: probe).\n"
                   "Records count from 0: a FIRST past the last (FIRST >= the count) is an error.\n");
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
    trz_io io;
    int f = fd;
    trz_io_fd(&io, &f);
    char err[400] = "";
    int rc = trz_dump_any(&io, format, stdout, first, count, err, sizeof err);
    if (rc) msg_error("%s: %s", shown, err);
    if (fd != STDIN_FILENO) close(fd);
    if (fflush(stdout) != 0 && rc == 0) { msg_error("write error: %s", strerror(errno)); rc = 1; }
    return rc ? 1 : 0;
}

/* The joined archive takes its name only once it decodes: every chunk's
 * checksums, counts and flags, checked as trz -t checks them, so that a
 * damaged input or a join the format cannot hold never leaves an archive
 * behind.  0, or the reader's message in why. */
static int join_check(const char *path, char *why, size_t len)
{
    trz_reader *r;
    int rc = trz_reader_open_path(&r, path);
    while (rc == TRZ_OK) {
        const void *v;
        int64_t g = trz_read_view(r, &v, SIZE_MAX);
        if (g == 0) break;
        if (g < 0) rc = (int)g;
    }
    if (rc) snprintf(why, len, "%s", trz_reader_error(r));
    /* a chunk mended from its parity decoded, but its bytes are damaged:
     * join copies bytes, and never a damaged one */
    uint64_t first;
    if (!rc && trz_reader_mended(r, &first)) {
        snprintf(why, len, "chunk %llu: stored data checksum mismatch (mendable from its parity: decompress the "
                 "damaged input and compress it again)", (unsigned long long)first);
        rc = TRZ_ERR_CHECKSUM;
    }
    trz_reader_close(r);
    return rc;
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
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("Usage: trz join -o OUT.trz [-f] IN.trz...\n"
                   "Join archives of one format and byte order into OUT.trz: one member with\n"
                   "one index over all their chunks, copied, not re-encoded, so that parts\n"
                   "compressed apart (on several machines) seek and list as one archive.\n"
                   "Text parts cut inside a line join up: the line is counted once.  After a\n"
                   "part that ends in a partial record a new member starts.  OUT.trz decodes\n"
                   "to the parts one after another; it is decoded and checked before it\n"
                   "takes its name.  -f replaces OUT.trz if it exists.  Archives of\n"
                   "different formats are concatenated with cat instead.\n");
            free(in);
            return 0;
        }
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
    struct stat ost;
    if (stat(out, &ost) == 0 && !S_ISREG(ost.st_mode)) { /* a device, a FIFO, a directory: refused before opening */
        msg_error("%s: not a regular file (join reads back the archive it wrote)", out);
        free(in);
        return 1;
    }
    trz_outfile of;
    if (trz_outfile_open(&of, out, TRZ_OUT_UMASK)) {
        msg_error("%s: %s", out, of.why ? of.why : strerror(errno));
        free(in);
        return 1;
    }
    if (of.direct) { /* became a device since */
        trz_outfile_abort(&of);
        msg_error("%s: not a regular file (join reads back the archive it wrote)", out);
        free(in);
        return 1;
    }
    trz_io io;
    int f = of.fd;
    trz_io_fd(&io, &f);
    char err[512] = "";
    int rc = trz_join(in, n, &io, err, sizeof err);
    if (rc) {
        trz_outfile_abort(&of);
        msg_error("join: %s", err);
    } else if ((rc = join_check(of.tmp, err, sizeof err)) != 0) {
        trz_outfile_abort(&of);
        msg_error("join: %s: the joined archive does not decode (%s); nothing written", out, err);
    } else if (trz_outfile_commit(&of, force, 0) != 0) {
        msg_error("join: %s: %s", out, errno == EEXIST ? "already exists (it appeared while trz was writing)" : strerror(errno));
        rc = 1;
    }
    free(in);
    return rc ? 1 : 0;
}
