/* bench.c - `trz bench`: trz at several levels and thread counts against the
 * general-purpose compressors on the same files, in one run: size, ratio,
 * bytes per record, speeds and peak memory, with every round trip verified.
 *
 * How it measures, so that no side is favoured:
 *  - every side, trz included (/proc/self/exe), runs as a child process, so
 *    wall time (fork to reaping) and peak RSS (wait4's ru_maxrss) mean the
 *    same thing for all of them, process start-up included (about 1 ms);
 *  - the input is read once before anything is timed (hashing it), so every
 *    side reads it from the page cache;
 *  - compressed outputs go to one temporary directory and are flushed with
 *    fdatasync after the clock stops, so write-back never lands inside
 *    another side's timing; decompressed bytes go through a pipe to this
 *    process, which hashes them (no disk writes at all);
 *  - runs alternate between the sides (A B C A B C ...) so that drift of the
 *    machine spreads over all of them, and the median run is reported. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli.h"
#include "msg.h"

#include "bench_report.h"
#include "bench_run.h"

/* The general-purpose compressors of every table (skipped when absent). */
static const other OTHERS[] = {
    { "gzip -9", "gzip", "gzip", "gz", { "-9" }, { NULL }, 0 },
    { "bzip2 -9", "bzip2", "bzip2", "bz2", { "-9" }, { NULL }, 1 },
    { "xz -9 -T1", "xz", "xz", "xz", { "-9", "-T1" }, { "-T1" }, 0 },
    { "zstd -19 --long=27 -T1", "zstd", "zstd", "zst", { "-19", "--long=27", "-T1", "-q" }, { "--long=27", "-q" }, 1 },
    { "zstd -3", "zstd", "zstd", "zst", { "-3", "-q" }, { "-q" }, 0 },
};
#define N_OTHERS (sizeof OTHERS / sizeof OTHERS[0])

static char g_self[PATH_MAX];  /* this program, for the sides and for unwrapping */

static void help(void)
{
    printf(
        "Usage: trz bench [OPTION]... FILE...\n"
        "Compress every FILE with trz at levels 1, 9 and 19, each with one thread\n"
        "(-T1) and all cores (-T0), and with the general-purpose compressors found\n"
        "on PATH (gzip -9, bzip2 -9, xz -9 -T1, zstd -19 --long=27 -T1, zstd -3).\n"
        "Decompress every result and compare it with the input (XXH3).  Print one\n"
        "markdown table per file: size, ratio, bytes per record (per line for text\n"
        "formats), compress and decompress MiB/s (2^20 bytes of input per second)\n"
        "and peak RSS; '*' marks the best value of each column.  A compressed FILE\n"
        "(.gz, .zst, .xz, .bz2) is unwrapped first, as trz stores it, and every\n"
        "compressor gets the trace itself.\n"
        "\n"
        "  --quick          skip bzip2, zstd -19 and trz -19; one run\n"
        "  --runs=N         runs per side, median reported (default 3, max %d)\n"
        "  --levels=A,B,..  trz levels (default 1,9,19)\n"
        "  --threads=A,B    trz thread counts (default 1,0; 0 = all cores)\n"
        "  --format=NAME    force trz's format: raw, rst, byu, pbus, uop, champsim,\n"
        "                   champsim-cloudsuite, drmemtrace\n"
        "  --match-zstd     add plain `zstd -L -T1` for each trz level L\n"
        "  --only-trz       leave out the general-purpose compressors\n"
        "  --streams        add the bytes per stream of the default-level archive\n"
        "  --csv=FILE       write every result (and each run's times) as CSV\n"
        "  --plot=FILE.png  draw ratio against compress and decompress speed (gnuplot)\n"
        "  --tmpdir=DIR     where outputs go (default $TMPDIR or /tmp)\n"
        "\n"
        "Every side runs as a child process, so times (fork to exit, start-up\n"
        "included) and peak RSS (wait4) are measured alike.  The input is read once\n"
        "before timing so that all sides find it in the page cache; outputs go to\n"
        "one temporary directory and are flushed outside the timed part;\n"
        "decompressed bytes are piped back and hashed, never written.  Runs\n"
        "alternate between the sides (A B C A B C ...) so drift hits all alike.\n"
        "Exit status: 0 when every round trip matched, 1 otherwise, 2 usage.\n",
        MAX_RUNS);
}

/* ---- options -------------------------------------------------------------- */

static int parse_list(const char *s, int *out, int max, int lo, int hi)
{
    int n = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < lo || v > hi || n == max) return -1;
        out[n++] = (int)v;
        s = end;
        if (*s == ',') s++;
        else if (*s) return -1;
    }
    return n;
}

/* Option NAME with its value as "--NAME=V" or "--NAME V"; NULL if absent. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (strncmp(a, name, n) != 0) return NULL;
    if (a[n] == '=') return a + n + 1;
    if (a[n] == 0 && *i + 1 < argc) return argv[++*i];
    return NULL;
}

/* Returns 0, or 2 after a usage error; *exit_now for --help. */
static int parse_opt(bopts *o, int argc, char **argv, int *i, int *exit_now)
{
    const char *a = argv[*i], *v;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) { help(); *exit_now = 1; }
    else if (!strcmp(a, "--quick")) o->quick = 1;
    else if (!strcmp(a, "--streams")) o->streams = 1;
    else if (!strcmp(a, "--only-trz")) o->only_trz = 1;
    else if (!strcmp(a, "--match-zstd")) o->match_zstd = 1;
    else if ((v = opt_value(argc, argv, i, "--csv"))) o->csv = v;
    else if ((v = opt_value(argc, argv, i, "--plot"))) o->plot = v;
    else if ((v = opt_value(argc, argv, i, "--tmpdir"))) o->tmpdir = v;
    else if ((v = opt_value(argc, argv, i, "--format"))) o->format = v;
    else if ((v = opt_value(argc, argv, i, "--runs"))) {
        int r;
        if (parse_list(v, &r, 1, 1, MAX_RUNS) != 1) { msg_error("bench: runs must be 1..%d", MAX_RUNS); return 2; }
        o->runs = r;
    } else if ((v = opt_value(argc, argv, i, "--levels"))) {
        o->nlevels = parse_list(v, o->levels, MAX_LEVELS, TRZ_LEVEL_MIN, TRZ_LEVEL_MAX);
        if (o->nlevels <= 0) { msg_error("bench: bad level list '%s'", v); return 2; }
    } else if ((v = opt_value(argc, argv, i, "--threads"))) {
        o->nthreads = parse_list(v, o->threads, 4, 0, 256);
        if (o->nthreads <= 0) { msg_error("bench: bad thread list '%s'", v); return 2; }
    } else {
        msg_error("bench: unknown option '%s' (try trz bench --help)", a);
        return 2;
    }
    return 0;
}

/* ---- the sides ------------------------------------------------------------ */

static side *new_side(const char *label, const char *family, const char *ext)
{
    if (g_nsides == MAX_SIDES) return NULL;
    side *s = &g_sides[g_nsides++];
    memset(s, 0, sizeof *s);
    snprintf(s->label, sizeof s->label, "%s", label);
    snprintf(s->family, sizeof s->family, "%s", family);
    snprintf(s->ext, sizeof s->ext, "%s", ext);
    return s;
}

static void add_trz(const bopts *o, const char *self, int level, int threads)
{
    char label[48], lv[8], th[8];
    snprintf(label, sizeof label, "trz -%d -T%d", level, threads);
    side *s = new_side(label, "trz", "trz");
    if (!s) return;
    s->trz = 1, s->level = level, s->threads = threads;
    snprintf(lv, sizeof lv, "-%d", level);
    snprintf(th, sizeof th, "-T%d", threads);
    cmd_add(&s->c, self), cmd_add(&s->c, lv), cmd_add(&s->c, th), cmd_add(&s->c, "-q");
    if (o->format) {
        char f[64];
        snprintf(f, sizeof f, "--format=%s", o->format);
        cmd_add(&s->c, f);
    }
    cmd_add(&s->c, "-c");
    cmd_add(&s->d, self), cmd_add(&s->d, "-d"), cmd_add(&s->d, th), cmd_add(&s->d, "-q"), cmd_add(&s->d, "-c");
}

static void add_other(const other *t)
{
    side *s = new_side(t->label, t->family, t->ext);
    if (!s) return;
    cmd_add(&s->c, t->prog);
    for (int i = 0; i < 4 && t->copt[i]; i++) cmd_add(&s->c, t->copt[i]);
    cmd_add(&s->c, "-c");
    cmd_add(&s->d, t->prog), cmd_add(&s->d, "-d");
    for (int i = 0; i < 2 && t->dopt[i]; i++) cmd_add(&s->d, t->dopt[i]);
    cmd_add(&s->d, "-c");
}

static void add_note(char *list, size_t cap, const char *what)
{
    size_t n = strlen(list);
    if (!strstr(list, what)) snprintf(list + n, cap - n, "%s%s", n ? ", " : "", what);
}

static void add_matched_zstd(int level)
{
    char label[48], lv[8];
    snprintf(label, sizeof label, "zstd -%d -T1", level);
    side *s = new_side(label, "zstd=", "zst");
    if (!s) return;
    snprintf(lv, sizeof lv, "-%d", level);
    cmd_add(&s->c, "zstd"), cmd_add(&s->c, lv), cmd_add(&s->c, "-T1"), cmd_add(&s->c, "-q"), cmd_add(&s->c, "-c");
    cmd_add(&s->d, "zstd"), cmd_add(&s->d, "-d"), cmd_add(&s->d, "-q"), cmd_add(&s->d, "-c");
}

static void build_sides(const bopts *o, const char *self)
{
    for (int l = 0; l < o->nlevels; l++) {
        if (o->quick && o->levels[l] == TRZ_LEVEL_MAX) { add_note(g_skipped, sizeof g_skipped, "trz -19"); continue; }
        for (int t = 0; t < o->nthreads; t++) add_trz(o, self, o->levels[l], o->threads[t]);
    }
    for (int l = 0; o->match_zstd && l < o->nlevels; l++) {
        if (o->quick && o->levels[l] == TRZ_LEVEL_MAX) continue;
        if (on_path("zstd")) add_matched_zstd(o->levels[l]);
        else add_note(g_missing, sizeof g_missing, "zstd");
    }
    for (size_t i = 0; !o->only_trz && i < N_OTHERS; i++) {
        if (o->quick && OTHERS[i].slow) add_note(g_skipped, sizeof g_skipped, OTHERS[i].label);
        else if (!on_path(OTHERS[i].prog)) add_note(g_missing, sizeof g_missing, OTHERS[i].label);
        else add_other(&OTHERS[i]);
    }
}

/* ---- measuring a file ------------------------------------------------------- */

/* What every side compresses. */
static const char *input_of(const file_res *f)
{
    return f->work[0] ? f->work : f->real ? f->real : f->path;
}

/* Read the whole input once: its size and hash, and it is in the page cache
 * for every side afterwards. */
static int hash_input(file_res *f)
{
    child_run cr;
    int fd = open(input_of(f), O_RDONLY | O_CLOEXEC);
    if (fd < 0) { msg_error("bench: %s: %s", f->path, strerror(errno)); return -1; }
    int rc = drain_hash(fd, &cr);
    if (rc) msg_error("bench: %s: %s", f->path, errno ? strerror(errno) : "out of memory");
    close(fd);
    f->raw = cr.bytes, f->hash = cr.hash;
    return rc;
}

/* The wrapper a file's first bytes announce ("xz", ...), or NULL. */
static const char *wrapper_of(const char *path)
{
    static const struct { const char *name; const char *magic; size_t n; } w[] = {
        { "gz", "\x1f\x8b", 2 }, { "zst", "\x28\xb5\x2f\xfd", 4 }, { "xz", "\xfd" "7zXZ", 5 }, { "bz2", "BZh", 3 },
    };
    uint8_t head[6];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t got = fd < 0 ? -1 : read(fd, head, sizeof head);
    if (fd >= 0) close(fd);
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (got >= (ssize_t)w[i].n && memcmp(head, w[i].magic, w[i].n) == 0) return w[i].name;
    return NULL;
}

/* A compressed input is benchmarked as what trz stores: the trace inside.
 * trz itself unwraps it (into an archive of the raw codec, then back out),
 * so no decompressor has to be on PATH.  Returns 0, or -1 with a message. */
static int unwrap_input(file_res *f, const char *dir)
{
    const char *w = wrapper_of(f->real ? f->real : f->path);
    if (!w) return 0;
    char arch[PATH_MAX];
    dir_path(arch, sizeof arch, dir, "unwrap.trz");
    dir_path(f->work, sizeof f->work, dir, "input");
    cmd c = { .n = 0 }, d = { .n = 0 };
    cmd_add(&c, g_self), cmd_add(&c, "-q"), cmd_add(&c, "-1"), cmd_add(&c, "--format=raw"), cmd_add(&c, "-c");
    cmd_add(&d, g_self), cmd_add(&d, "-q"), cmd_add(&d, "-dc");
    child_run cr;
    int a = open(arch, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    int rc = a < 0 ? -1 : run_child(&c, f->real ? f->real : f->path, a, &cr);
    if (a >= 0) close(a);
    int o = rc ? -1 : open(f->work, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (o >= 0) {
        rc = run_child(&d, arch, o, &cr);
        if (close(o) != 0) rc = -1;
    } else {
        rc = -1;
    }
    unlink(arch);
    if (rc) {
        unlink(f->work);
        f->work[0] = 0;
        msg_error("bench: %s: cannot unwrap the %s data", f->path, w);
        return -1;
    }
    snprintf(f->wrapper, sizeof f->wrapper, "%s", w);
    return 0;
}

static void compress_once(const file_res *f, int i, const char *dir, result *r)
{
    char path[PATH_MAX];
    child_run cr;
    out_path(path, sizeof path, dir, i);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) { snprintf(r->fail, sizeof r->fail, "cannot create an output: %s", strerror(errno)); return; }
    int rc = run_child(&g_sides[i].c, input_of(f), fd, &cr);
    fdatasync(fd); /* after the clock: write-back stays out of the timings */
    struct stat sb;
    r->size = fstat(fd, &sb) == 0 ? (int64_t)sb.st_size : -1;
    close(fd);
    if (rc) { snprintf(r->fail, sizeof r->fail, "compress failed (exit %d)", cr.status); return; }
    r->ccpu[r->nc] = cr.cpu;
    r->ct[r->nc++] = cr.secs;
    if (cr.rss_kb > r->crss) r->crss = cr.rss_kb;
}

static void decompress_once(const file_res *f, int i, const char *dir, result *r)
{
    char path[PATH_MAX];
    child_run cr;
    out_path(path, sizeof path, dir, i);
    int rc = run_child(&g_sides[i].d, path, -1, &cr);
    if (rc) { snprintf(r->fail, sizeof r->fail, "decompress failed (exit %d)", cr.status); return; }
    if (cr.bytes != f->raw || cr.hash != f->hash) {
        snprintf(r->fail, sizeof r->fail, "round trip differs (%lld bytes back of %lld)", (long long)cr.bytes,
                 (long long)f->raw);
        return;
    }
    r->dcpu[r->nd] = cr.cpu;
    r->dt[r->nd++] = cr.secs;
    if (cr.rss_kb > r->drss) r->drss = cr.rss_kb;
}

/* What the records are: from the first trz archive that worked. */
static void probe_records(file_res *f, const char *dir)
{
    snprintf(f->format, sizeof f->format, "?");
    f->records = -1;
    for (int i = 0; i < g_nsides; i++) {
        if (!g_sides[i].trz || f->r[i].fail[0]) continue;
        char path[PATH_MAX];
        trz_reader *rd;
        trz_info in;
        out_path(path, sizeof path, dir, i);
        if (trz_reader_open_path(&rd, path) == 0 && trz_reader_info(rd, &in) == 0) {
            snprintf(f->format, sizeof f->format, "%s", in.format);
            f->rec_size = in.record_size, f->records = in.records, f->byte_order = in.byte_order;
            trz_reader_close(rd);
            return;
        }
        trz_reader_close(rd);
    }
}

static void measure(file_res *f, const bopts *o, const char *dir)
{
    int tty = isatty(STDERR_FILENO);
    for (int run = 0; run < o->runs; run++) {
        if (tty) fprintf(stderr, "\rbench: %s: run %d/%d, compressing  ", f->base, run + 1, o->runs);
        for (int i = 0; i < g_nsides; i++)
            if (!f->r[i].fail[0]) compress_once(f, i, dir, &f->r[i]);
        if (tty) fprintf(stderr, "\rbench: %s: run %d/%d, decompressing", f->base, run + 1, o->runs);
        for (int i = 0; i < g_nsides; i++)
            if (!f->r[i].fail[0]) decompress_once(f, i, dir, &f->r[i]);
    }
    if (tty) fputs("\r\033[K", stderr);
    probe_records(f, dir);
}

/* ---- main ----------------------------------------------------------------- */

/* On SIGINT, SIGTERM or SIGHUP, remove the work directory (its paths are
 * made beforehand: the handler only calls unlink and rmdir). */
static char g_dir[PATH_MAX], g_files[MAX_SIDES + 4][PATH_MAX];
static volatile sig_atomic_t g_armed;

static void on_signal(int sig)
{
    if (g_child > 0) kill(g_child, sig);
    if (g_armed) {
        for (int i = 0; i < MAX_SIDES + 4; i++)
            if (g_files[i][0]) unlink(g_files[i]);
        rmdir(g_dir);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void arm_cleanup(const char *dir)
{
    snprintf(g_dir, sizeof g_dir, "%s", dir);
    for (int i = 0; i < g_nsides; i++) out_path(g_files[i], sizeof g_files[i], dir, i);
    dir_path(g_files[MAX_SIDES], sizeof g_files[0], dir, "plot.dat");
    dir_path(g_files[MAX_SIDES + 1], sizeof g_files[0], dir, "plot.gp");
    dir_path(g_files[MAX_SIDES + 2], sizeof g_files[0], dir, "input");
    dir_path(g_files[MAX_SIDES + 3], sizeof g_files[0], dir, "unwrap.trz");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    g_armed = 1;
}

static void cleanup_outputs(const char *dir)
{
    char path[PATH_MAX];
    for (int i = 0; i < g_nsides; i++) {
        out_path(path, sizeof path, dir, i);
        unlink(path);
    }
}

/* Measure and report one file; returns 1 when something failed. */
static int bench_file(file_res *f, const bopts *o, const char *dir, FILE *csv)
{
    int bad = 0;
    const char *slash = strrchr(f->path, '/');
    f->base = slash ? slash + 1 : f->path;
    if (unwrap_input(f, dir) || hash_input(f)) return 1;
    measure(f, o, dir);
    print_table(f, o);
    for (int i = 0; i < g_nsides; i++)
        if (f->r[i].fail[0]) {
            msg_error("bench: %s: %s: %s", f->base, g_sides[i].label, f->r[i].fail);
            bad = 1;
        }
    if (o->streams) bad |= print_streams(f, dir);
    container_bytes(f, dir);
    if (csv) csv_rows(csv, f);
    fflush(stdout);
    cleanup_outputs(dir);
    if (f->work[0]) unlink(f->work);
    return bad;
}

static int parse_args(bopts *o, int argc, char **argv, const char ***files, int *nf)
{
    *o = (bopts){ .runs = 3, .levels = { 1, TRZ_LEVEL_DEFAULT, TRZ_LEVEL_MAX }, .nlevels = 3,
                  .threads = { 1, 0 }, .nthreads = 2 };
    int runs_given = 0, exit_now = 0;
    *files = calloc((size_t)argc + 1, sizeof **files);
    if (!*files) { msg_error("out of memory"); return 1; }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-' || !argv[i][1]) { (*files)[(*nf)++] = argv[i]; continue; }
        if (!strncmp(argv[i], "--runs", 6)) runs_given = 1;
        int rc = parse_opt(o, argc, argv, &i, &exit_now);
        if (rc || exit_now) return rc ? rc : -1;
    }
    if (o->quick && !runs_given) o->runs = 1;
    if (*nf == 0) { msg_error("bench: no input files (try trz bench --help)"); return 2; }
    return 0;
}

static int bench_all(const bopts *o, const char **files, int nf, const char *dir)
{
    FILE *csv = NULL;
    int bad = 0;
    file_res *res = calloc((size_t)nf, sizeof *res);
    if (!res) { msg_error("out of memory"); return 1; }
    if (o->csv && !(csv = fopen(o->csv, "w"))) {
        msg_error("bench: %s: %s", o->csv, strerror(errno));
        free(res);
        return 1;
    }
    if (csv) csv_header(csv);
    for (int k = 0; k < nf; k++) {
        res[k].path = files[k];
        res[k].real = realpath(files[k], NULL);
        bad |= bench_file(&res[k], o, dir, csv);
    }
    if (csv && fclose(csv) != 0) { msg_error("bench: %s: write error", o->csv); bad = 1; }
    if (o->plot) bad |= make_plot(o->plot, res, nf, dir);
    for (int k = 0; k < nf; k++) free(res[k].real);
    free(res);
    return bad;
}

int bench_main(int argc, char **argv)
{
    bopts o;
    const char **files = NULL;
    int nf = 0;
    int rc = parse_args(&o, argc, argv, &files, &nf);
    if (rc) { free(files); return rc < 0 ? 0 : rc; }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) self[n] = 0;
    else snprintf(self, sizeof self, "/proc/self/exe");
    snprintf(g_self, sizeof g_self, "%s", self);
    build_sides(&o, self);

    const char *tmp = o.tmpdir ? o.tmpdir : getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/trz-bench.XXXXXX", tmp);
    if (!mkdtemp(dir)) { msg_error("bench: cannot make a directory in %s: %s", tmp, strerror(errno)); free(files); return 1; }
    arm_cleanup(dir);
    rc = bench_all(&o, files, nf, dir);
    g_armed = 0;
    rmdir(dir);
    free(files);
    return rc ? 1 : 0;
}
