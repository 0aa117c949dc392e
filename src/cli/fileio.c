/* fileio.c - files for the command line: choose output names, write through
 * a temporary file in the target directory that is renamed only on success
 * (and removed on failure or on SIGINT/SIGTERM), remove the input only after
 * a verified write, and report every failure as one line. */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "msg.h"
#include "progress.h"
#include "../common/safefile.h"

#define SUFFIX ".trz"

/* The output being written, for the signal handler. */
static trz_outfile *volatile g_out;

static void on_signal(int sig)
{
    trz_outfile *o = g_out;
    if (o && o->tmp[0]) unlink(o->tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A pipe's default 64 KiB buffer makes the two ends take turns several
 * times per megabyte; 1 MiB (the unprivileged limit by default) lets the
 * decoder write a whole stretch while the reader works.  Best effort:
 * other systems, and other file types, are left as they are. */
static void grow_pipe(int fd)
{
#ifdef F_SETPIPE_SZ
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) (void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
    (void)fd;
#endif
}

static void install_signals(void)
{
    static int done;
    if (done) return;
    done = 1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* a closed pipe is a write error, reported */
}

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n > k && strcmp(s + n - k, suf) == 0;
}

static uint8_t g_head[1 << 16]; /* a file's first bytes, as the library sniffs them */

/* Whether compressing the file at fd keeps the file itself restorable (a
 * drmemtrace container), rather than only the trace inside. */
static int kept_container(int fd)
{
    ssize_t got = pread(fd, g_head, sizeof g_head, 0);
    return got > 0 && trz_container_suffix(g_head, (size_t)got);
}

/* Length of the suffix to drop from a compressed input's name: the archive
 * holds the trace inside (trz x.trace.xz writes x.trace.trz).  Only when
 * the file really is what its suffix says, and not when the archive keeps
 * the file itself (a drmemtrace container: x.trace.zip -> x.trace.zip.trz,
 * which -d gives back as it was). */
static size_t wrapper_suffix(const cli_opts *o, const char *name, int fd)
{
    static const struct { const char *suf; const char *magic; size_t n; } w[] = {
        { ".gz", "\x1f\x8b", 2 }, { ".zst", "\x28\xb5\x2f\xfd", 4 }, { ".zstd", "\x28\xb5\x2f\xfd", 4 },
        { ".xz", "\xfd" "7zXZ", 5 }, { ".bz2", "BZh", 3 },
    };
    ssize_t got = pread(fd, g_head, sizeof g_head, 0);
    const char *kept = got > 0 ? trz_container_suffix(g_head, (size_t)got) : NULL;
    if (kept) return o->no_original && has_suffix(name, kept) ? strlen(kept) : 0; /* records alone: x.trace.trz */
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (has_suffix(name, w[i].suf) && got >= (ssize_t)w[i].n && memcmp(g_head, w[i].magic, w[i].n) == 0)
            return strlen(w[i].suf);
    return 0;
}

/* A write that failed because the reader of a pipe stopped (head): end as
 * gzip and zstd do, quietly, by the signal the default action gives. */
static void quiet_on_epipe(int err)
{
    if (err != EPIPE) return;
    signal(SIGPIPE, SIG_DFL);
    raise(SIGPIPE);
}

/* ---- the operations, on open descriptors ---- */

static int do_compress(const cli_opts *o, const char *name, int in, int out, cli_progress *pg, const char *outshown)
{
    trz_cctx *c = trz_cctx_create();
    if (!c) { msg_error("%s: out of memory", name); return 1; }
    int rc = trz_cctx_set(c, TRZ_C_LEVEL, o->level);
    if (!rc) rc = trz_cctx_set(c, TRZ_C_THREADS, o->threads);
    if (!rc) rc = trz_cctx_set(c, TRZ_C_BACKEND, o->backend);
    if (!rc) rc = trz_cctx_set(c, TRZ_C_VERIFY, o->verify);
    if (!rc) rc = trz_cctx_set(c, TRZ_C_CHAIN, !o->no_chain);
    if (!rc) rc = trz_cctx_set(c, TRZ_C_PARITY, !o->no_parity);
    if (!rc && o->chunk_bytes) {
        rc = trz_cctx_set(c, TRZ_C_CHUNK_BYTES, o->chunk_bytes);
        if (rc) { msg_error("chunk size must be 4K..256M"); trz_cctx_free(c); return 1; }
    }
    if (!rc && o->chunk_records) rc = trz_cctx_set(c, TRZ_C_CHUNK_RECORDS, o->chunk_records);
    if (!rc && o->restart_bytes >= 0 && trz_cctx_set(c, TRZ_C_RESTART_BYTES, o->restart_bytes)) {
        msg_error("--restart must be 0 or 4K..1G");
        trz_cctx_free(c);
        return 1;
    }
    if (!rc && o->no_original) rc = trz_cctx_set(c, TRZ_C_UNWRAP, 2);
    if (!rc && trz_cctx_set_format(c, o->format)) {
        char names[200];
        msg_error("unknown format '%s' (%s)", o->format, format_list(names, sizeof names));
        trz_cctx_free(c);
        return 1;
    }
    tally t = { pg, 0, 0, 0, 0, { 0 }, { 0 }, { 0 }, 0 };
    trz_cctx_set_progress(c, tally_progress, &t);
    int ifd = in, ofd = out;
    trz_io iio, oio;
    trz_io_fd(&t.from, &ifd);
    trz_io_fd(&t.to, &ofd);
    iio = (trz_io){ &t, tally_read, NULL, t.from.seek ? tally_seek : NULL, t.from.size ? tally_size : NULL };
    oio = (trz_io){ &t, NULL, tally_write, NULL, NULL };
    int kept = iio.seek && !o->no_original && kept_container(in); /* from a pipe: its records alone */
    errno = 0;
    rc = trz_compress(c, &iio, &oio);
    int err = errno;
    if (pg) progress_end(pg);
    int fits = 1;
    const char *detected = trz_cctx_detected(c, &fits);
    if (rc) {
        quiet_on_epipe(err);
        msg_error("%s: %s", name, trz_cctx_error(c));
    } else {
        if (!fits && g_verbosity >= 1)
            msg_error("%s: warning: this does not look like %s input (auto-detection picks %s); the archive may "
                      "come out larger than the input", name, trz_cctx_format(c), detected);
        /* a named x.trz is refused by its suffix; any other archive (a pipe,
         * another name) is compressed again, but said */
        static const uint8_t trz_magic[4] = { 0x89, 'T', 'R', 'Z' }; /* FORMAT.md: the file header's first bytes */
        if (t.nhead == sizeof trz_magic && memcmp(t.head, trz_magic, sizeof trz_magic) == 0 && g_verbosity >= 1)
            msg_error("%s: warning: the input is a trz archive already: it is stored again, inside this one "
                      "(trz -d decompresses it)", name);
        const char *warn = trz_cctx_warning(c); /* a container kept partly, or stored, as it is */
        if (*warn && g_verbosity >= 1)
            msg_error("%s: warning: %s%s", name, warn, kept && !trz_cctx_unwrapped(c) ? " (--no-original)" : "");
        kept = kept && trz_cctx_unwrapped(c);
        if (g_verbosity >= 2) verbose_summary(c, name, &t, kept, outshown);
    }
    trz_cctx_free(c);
    return rc ? 1 : 0;
}

static int write_all(int fd, const void *p, size_t n)
{
    trz_io io;
    int f = fd;
    trz_io_fd(&io, &f);
    return io.write(io.opaque, p, n) == (int64_t)n ? 0 : -1;
}

/* Open the archive on fd `in`; with --salvage a damaged first header
 * still gives a reader.  0, or 1 after the message. */
static int open_archive(const cli_opts *o, const char *name, int in, trz_reader **out)
{
    trz_reader *r;
    int rc = trz_reader_open_fd(&r, in);
    if (rc && o->salvage && r && trz_reader_set(r, TRZ_R_SALVAGE, 1) == TRZ_OK) {
        rc = 0; /* a damaged first header: the chunks after it can still be read */
    } else if (rc) {
        msg_error("%s: %s", name, trz_reader_error(r));
        trz_reader_close(r);
        return 1;
    }
    *out = r;
    return 0;
}

/* The original file's bytes on their way out: counted for -v, to fd or
 * (fd < 0, testing) nowhere; a failed write's errno kept for the message. */
typedef struct sink {
    int fd, err;
    uint64_t n;
    cli_progress *pg;
} sink;

static int64_t sink_write(void *opaque, const void *buf, size_t n)
{
    sink *k = opaque;
    if (k->fd >= 0 && write_all(k->fd, buf, n)) { k->err = errno; return -1; }
    k->n += n;
    if (k->pg) progress_show(k->pg, k->n, k->n, UINT64_MAX);
    return (int64_t)n;
}

/* Restore (out >= 0) or test (out < 0) the original file of an archive
 * that keeps one.  0, or 1 after the message. */
static int do_restore(const cli_opts *o, const char *name, trz_reader *r, int out, cli_progress *pg, const char *outshown)
{
    trz_reader_set(r, TRZ_R_THREADS, o->threads);
    trz_container_info ci;
    if (pg && trz_reader_container(r, &ci) == TRZ_OK) pg->total = ci.size;
    sink k = { out, 0, 0, pg };
    trz_io io = { &k, NULL, sink_write, NULL, NULL };
    int rc = trz_restore(r, &io);
    if (pg) progress_end(pg);
    if (rc) {
        if (k.err) quiet_on_epipe(k.err);
        msg_error("%s: %s", name, trz_reader_error(r));
        return 1;
    }
    if (msg_mended(name, r) && out < 0) return 1; /* (a test fails: the archive is damaged) */
    if (g_verbosity >= 2) {
        trz_info info;
        char a[32], b[32];
        trz_reader_info(r, &info);
        if (out < 0) fprintf(stderr, "%s: OK (%llu bytes of the original file)\n", name, (unsigned long long)k.n);
        else if (info.compressed_bytes >= 0)
            fprintf(stderr, "%s : %s => %s, %s\n", name, cli_human((uint64_t)info.compressed_bytes, a, sizeof a),
                    cli_human(k.n, b, sizeof b), outshown);
        else
            fprintf(stderr, "%s : %s, %s\n", name, cli_human(k.n, b, sizeof b), outshown);
    }
    return 0;
}

/* Decode (out >= 0) or test (out < 0) an archive, given open as r (NULL:
 * open it from in).  `original`: write the original file the archive keeps
 * rather than the records; testing checks that file too.  Returns 0, 1 on
 * error, or 2 when --salvage recovered what it could from a damaged
 * archive (exit status 1, but the output is kept). */
static int do_decompress(const cli_opts *o, const char *name, int in, trz_reader *r, int original, int out,
                         cli_progress *pg, const char *outshown)
{
    int rc;
    if (!r && open_archive(o, name, in, &r)) return 1;
    if (original || (o->mode == MODE_TEST && !o->salvage)) {
        trz_container_info ci;
        int crc = trz_reader_container(r, &ci);
        /* testing an archive whose file cannot be restored here (several
         * members, a pipe): its records at least.  A newer trz's block (it
         * says so in ci.how) fails the test, as it fails -d. */
        int records_only = !original && crc == TRZ_ERR_UNSUPPORTED && !ci.how[0];
        if (records_only && g_verbosity >= 2) msg_error("%s: note: %s; testing the records", name, trz_reader_error(r));
        if ((ci.kind || original) && !records_only) {
            int status = crc ? (msg_error("%s: %s", name, trz_reader_error(r)), 1) : do_restore(o, name, r, out, pg, outshown);
            trz_reader_close(r);
            return status;
        }
    }
    trz_reader_set(r, TRZ_R_THREADS, o->threads);
    /* one decoding thread: it runs beside this one, which writes, so that
     * a reader at the other end of a pipe drains one chunk while the next
     * decodes (one chunk more in memory) */
    trz_reader_set(r, TRZ_R_OVERLAP, out >= 0);
    trz_reader_set(r, TRZ_R_SALVAGE, o->salvage);
    /* --from: the library positions at the record alike from a file (the
     * index) and a pipe (decoding forward); --count: spans that end at a
     * record boundary, in the unit of the member they come from */
    if (o->ranged && (rc = trz_seek(r, o->from)) != TRZ_OK) {
        msg_error("%s: %s", name, trz_reader_error(r));
        trz_reader_close(r);
        return 1;
    }
    uint64_t left = o->ranged ? o->count : UINT64_MAX, total = 0;
    int status = 0;
    trz_info pi; /* the whole trace's size, when the index gives it: the progress's percentage */
    if (pg && !o->ranged && trz_reader_info(r, &pi) == TRZ_OK && pi.raw_bytes > 0) pg->total = (uint64_t)pi.raw_bytes;
    for (;;) {
        const void *v;
        uint64_t n = 0;
        /* written straight from the reader's chunk: no copy on the way out */
        int64_t g = left == UINT64_MAX ? trz_read_view(r, &v, SIZE_MAX) : trz_read_span(r, &v, left, &n);
        if (g < 0) { msg_error("%s: %s", name, trz_reader_error(r)); status = o->salvage ? 2 : 1; break; }
        if (g == 0) break;
        if (left != UINT64_MAX) left -= n;
        if (out >= 0 && write_all(out, v, (size_t)g)) {
            quiet_on_epipe(errno);
            msg_error("%s: write error: %s", name, strerror(errno));
            status = 1;
            break;
        }
        total += (uint64_t)g;
        if (pg) progress_show(pg, total, total, UINT64_MAX);
    }
    if (pg) progress_end(pg);
    /* a slice of an archive of trz 0.17 or earlier read without its index:
     * its member's index proves the numbers (archives of 0.18 and later
     * prove them chunk by chunk) */
    if (o->ranged && status == 0 && !o->salvage && trz_reader_check_rest(r) != TRZ_OK) {
        msg_error("%s: %s", name, trz_reader_error(r));
        status = 1;
    }
    /* mended chunks gave their records back; a test still fails: the archive is damaged */
    if (status != 1 && msg_mended(name, r) && o->mode == MODE_TEST && status == 0) status = 1;
    if (o->salvage && status != 1 && msg_salvage(name, r, total, status == 2)) status = 2;
    if (status == 0 && o->mode == MODE_TEST && g_verbosity >= 2)
        fprintf(stderr, "%s: OK (%llu bytes)\n", name, (unsigned long long)total);
    if (status == 0 && o->mode != MODE_TEST && g_verbosity >= 2 && outshown) {
        trz_info info;
        char a[32], b[32];
        trz_reader_info(r, &info);
        if (info.compressed_bytes >= 0)
            fprintf(stderr, "%s : %s => %s, %s\n", name, cli_human((uint64_t)info.compressed_bytes, a, sizeof a),
                    cli_human(total, b, sizeof b), outshown);
        else
            fprintf(stderr, "%s : %s, %s\n", name, cli_human(total, b, sizeof b), outshown);
    }
    trz_reader_close(r);
    return status;
}

/* Whether a file was written to (or its inode changed: mode, links) since
 * `then` was taken.  The status-change time catches what the size and the
 * modification time alone would miss: a write of the same length, a
 * modification time set back, a chmod. */
static int changed_since(const struct stat *now, const struct stat *then)
{
    return now->st_size != then->st_size || now->st_mtim.tv_sec != then->st_mtim.tv_sec ||
           now->st_mtim.tv_nsec != then->st_mtim.tv_nsec || now->st_ctim.tv_sec != then->st_ctim.tv_sec ||
           now->st_ctim.tv_nsec != then->st_ctim.tv_nsec;
}

/* Test an archive just written, before the input is removed: quietly
 * (with -v, the files named are the final ones, never the temporary one),
 * a failure named by the name the archive is to take. */
static int verify_written(const char *tmp, const char *final_name)
{
    int fd = open(tmp, O_RDONLY);
    if (fd < 0) return 1;
    cli_opts t = { 0 };
    t.mode = MODE_TEST;
    t.threads = 1;
    t.count = UINT64_MAX;
    int verbosity = g_verbosity;
    g_verbosity = verbosity > 1 ? 1 : verbosity;
    int rc = do_decompress(&t, final_name, fd, NULL, 0, -1, NULL, NULL);
    g_verbosity = verbosity;
    close(fd);
    return rc;
}

/* ---- one input ---- */
int fio_open_input(const cli_opts *o, const char *name, struct stat *st)
{
    /* looked at before it is opened: opening a FIFO waits for its writer,
     * and opening a device may act on it */
    if (stat(name, st) != 0) { msg_error("%s: %s", name, strerror(errno)); return -1; }
    if (S_ISDIR(st->st_mode)) { msg_error("%s: is a directory -- ignored", name); return -1; }
    if (!S_ISREG(st->st_mode) && !o->force) {
        msg_error("%s: not a regular file -- ignored (-f reads it as a stream)", name);
        return -1;
    }
    /* without -f, O_NONBLOCK: a FIFO put in its place since cannot block */
    int fd = open(name, O_RDONLY | O_NOCTTY | (o->force ? 0 : O_NONBLOCK));
    if (fd < 0) { msg_error("%s: %s", name, strerror(errno)); return -1; }
    int fl = fstat(fd, st) == 0 ? fcntl(fd, F_GETFL) : -1;
    if (fl < 0 || (fl & O_NONBLOCK && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0)) {
        msg_error("%s: %s", name, strerror(errno));
        close(fd);
        return -1;
    }
    if (S_ISDIR(st->st_mode) || (!S_ISREG(st->st_mode) && !o->force)) {
        msg_error("%s: %s -- ignored", name, S_ISDIR(st->st_mode) ? "is a directory" : "not a regular file");
        close(fd);
        return -1;
    }
    return fd;
}

int fio_process(const cli_opts *o, const char *name)
{
    install_signals();
    int from_stdin = strcmp(name, "-") == 0;
    const char *shown = from_stdin ? "(stdin)" : name;
    int compress = o->mode == MODE_COMPRESS;
    int test = o->mode == MODE_TEST;

    char outname[PATH_MAX];
    int to_stdout = !o->out_name && (o->to_stdout || from_stdin);
    if (!test && !to_stdout) {
        if (o->out_name) {
            snprintf(outname, sizeof outname, "%s", o->out_name);
        } else if (compress) {
            if (has_suffix(name, SUFFIX)) { msg_error("%s: already has %s suffix -- ignored", name, SUFFIX); return 1; }
            if (strlen(name) + strlen(SUFFIX) >= sizeof outname) {
                msg_error("%s: name too long", name);
                return 1;
            }
            outname[0] = 0; /* named once the input is open: its suffix may go */
        } else {
            if (!has_suffix(name, SUFFIX)) { msg_error("%s: unknown suffix (expected %s) -- ignored; use -c or -o", name, SUFFIX); return 1; }
            snprintf(outname, sizeof outname, "%.*s", (int)(strlen(name) - strlen(SUFFIX)), name);
        }
    }
    if (compress && to_stdout && isatty(STDOUT_FILENO) && !o->force) {
        msg_error("stdout is a terminal; not writing compressed data to it (use -f to force)");
        return 1;
    }
    if (!compress && from_stdin && isatty(STDIN_FILENO)) {
        msg_error("(stdin): compressed data cannot be read from a terminal");
        return 1;
    }

    int in = STDIN_FILENO;
    struct stat ist;
    if (!from_stdin) {
        in = fio_open_input(o, name, &ist);
        if (in < 0) return 1;
        if (compress && !test && !to_stdout && !o->out_name)
            snprintf(outname, sizeof outname, "%.*s%s", (int)(strlen(name) - wrapper_suffix(o, name, in)), name, SUFFIX);
    } else if (fstat(in, &ist) != 0) {
        memset(&ist, 0, sizeof ist);
    } else {
        grow_pipe(in); /* a producer piping into trz also writes in longer runs */
    }

    /* decompressing: the archive says whether its original file comes back
     * (a file, unless --records or a range) or its records (stdout, unless
     * --original); records of a container go to the name without the
     * container's suffix (x.trace.zip.trz -> x.trace), which trace readers
     * take for bare records */
    trz_reader *r = NULL;
    int original = 0;
    if (!compress && !test) {
        if (open_archive(o, shown, in, &r)) { if (!from_stdin) close(in); return 1; }
        trz_container_info ci;
        trz_reader_container(r, &ci);
        if (ci.kind) original = o->original || (!o->records && !to_stdout && !o->ranged && !o->salvage);
        else if (o->original) {
            msg_error("%s: the archive keeps no original file (it holds the trace only); drop --original", shown);
            trz_reader_close(r);
            if (!from_stdin) close(in);
            return 1;
        }
        size_t sl = ci.suffix ? strlen(ci.suffix) : 0;
        if (ci.kind && !ci.suffix && !original && !to_stdout && !o->out_name) {
            /* the name would keep a suffix that promises the container */
            msg_error("%s: %s; name the records with -o, or use -c", shown, trz_reader_error(r));
            trz_reader_close(r);
            if (!from_stdin) close(in);
            return 1;
        }
        if (ci.kind && ci.suffix && !original && !to_stdout && !o->out_name && has_suffix(outname, ci.suffix) &&
            strlen(outname) > sl)
            outname[strlen(outname) - sl] = 0;
    }

    int have_ist = from_stdin ? fstat(in, &ist) == 0 && S_ISREG(ist.st_mode) : 1;
    if (!test && have_ist) { /* never write over the input itself (names, symlinks, hard links) */
        struct stat ost;
        int same = to_stdout ? fstat(STDOUT_FILENO, &ost) == 0 && S_ISREG(ost.st_mode) && trz_same_file(&ist, &ost)
                             : stat(outname, &ost) == 0 && trz_same_file(&ist, &ost);
        if (same) {
            msg_error("%s: the output is the input itself; not overwriting it", shown);
            trz_reader_close(r);
            if (!from_stdin) close(in);
            return 1;
        }
    }

    /* compressing, the percentage is of the file as given (read twice for a
     * kept container: it starts again); decompressing, of the trace */
    cli_progress pgs = { shown, compress && have_ist && S_ISREG(ist.st_mode) ? (uint64_t)ist.st_size : 0, 0, 0 };
    cli_progress *pg = (isatty(STDERR_FILENO) && g_verbosity >= 1) ? &pgs : NULL;
    int status;
    if (test) {
        status = do_decompress(o, shown, in, NULL, 0, -1, pg, NULL);
    } else if (to_stdout) {
        grow_pipe(STDOUT_FILENO);
        status = compress ? do_compress(o, shown, in, STDOUT_FILENO, pg, "(stdout)")
                          : do_decompress(o, shown, in, r, original, STDOUT_FILENO, pg, "(stdout)");
    } else {
        struct stat ost;
        int exists = stat(outname, &ost) == 0;
        if (exists && !S_ISREG(ost.st_mode)) {
            /* a device such as /dev/null or /dev/full: write straight to it */
            int out = open(outname, O_WRONLY);
            if (out < 0) {
                msg_error("%s: %s", outname, strerror(errno));
                trz_reader_close(r);
                if (!from_stdin) close(in);
                return 1;
            }
            status = compress ? do_compress(o, shown, in, out, pg, outname)
                              : do_decompress(o, shown, in, r, original, out, pg, outname);
            if (close(out) != 0 && status != 1) { msg_error("%s: %s", outname, strerror(errno)); status = 1; }
            if (!from_stdin) close(in);
            return status ? 1 : 0;
        }
        if (exists && !o->force) {
            msg_error("%s: already exists; use -f to overwrite", outname);
            trz_reader_close(r);
            if (!from_stdin) close(in);
            return 1;
        }
        trz_outfile of;
        if (trz_outfile_open(&of, outname, from_stdin || !S_ISREG(ist.st_mode) ? TRZ_OUT_UMASK : ist.st_mode)) {
            if (of.why) msg_error("%s: %s", outname, of.why); /* a link to nothing, ... */
            else msg_error("%s: cannot create a temporary file: %s", outname, strerror(errno));
            trz_reader_close(r);
            if (!from_stdin) close(in);
            return 1;
        }
        g_out = &of;
        status = compress ? do_compress(o, shown, in, of.fd, pg, outname)
                          : do_decompress(o, shown, in, r, original, of.fd, pg, outname);
        r = NULL; /* do_decompress closed it */
        if (status == 0 && compress && o->rm && verify_written(of.tmp, outname)) {
            msg_error("%s: the archive written does not verify; input kept", name);
            status = 1;
        }
        /* status 2: --salvage recovered part of a damaged archive; keep it.
         * With --rm the input goes only once its replacement is on disk. */
        struct stat outst;
        if (status == 2 && fstat(of.fd, &outst) == 0 && outst.st_size == 0) { /* --salvage recovered nothing */
            msg_error("%s: nothing recovered; %s not written", shown, outname);
            status = 1;
        }
        if (status == 1) {
            trz_outfile_abort(&of);
        } else if (trz_outfile_commit(&of, o->force, o->rm && status == 0) != 0) {
            if (errno == EEXIST)
                msg_error("%s: already exists (it appeared while trz was writing); %s kept", outname, shown);
            else
                msg_error("%s: %s", outname, strerror(errno));
            status = 1;
        }
        g_out = NULL;
        if (status == 0) {
            struct timespec ts[2] = { ist.st_atim, ist.st_mtim };
            if (!from_stdin) utimensat(AT_FDCWD, outname, ts, 0);
            struct stat now;
            /* another writer may have replaced it since (-f): then the input stays */
            if (o->rm && (stat(outname, &now) != 0 || !trz_same_file(&now, &of.st))) {
                msg_error("%s: replaced by another program while trz was finishing; %s kept", outname, shown);
                status = 1;
            }
        }
    }
    if (!from_stdin) close(in);
    if (status == 0 && o->rm && !from_stdin && !test && !to_stdout) {
        struct stat now;
        if (stat(name, &now) != 0) now.st_ino = 0;
        if (!S_ISREG(ist.st_mode)) { /* read as a stream (-f): a FIFO or a device is never removed */
            msg_error("%s: not a regular file; not removed", name);
            status = 1;
        } else if (!trz_same_file(&now, &ist)) { /* what was read is no longer at that name */
            msg_error("%s: changed while trz was reading it; not removed", name);
            status = 1;
        } else if (changed_since(&now, &ist)) { /* bytes appended after trz read them (a tracer still writing) */
            msg_error("%s: changed while trz was working on it (its size or times differ from when it was opened); "
                      "not removed", name);
            status = 1;
        } else if (unlink(name) != 0) {
            msg_error("%s: cannot remove: %s", name, strerror(errno));
            status = 1;
        }
    }
    return status ? 1 : 0;
}
