/* main.c - the cli room: trz, the program.  This file parses the
 * arguments and hands each file to fileio.c (compress, decompress, test)
 * or list.c (-l); commands.c has `dump` and `join`, bench.c and
 * bench_report.c `bench`, msg.c the messages.  The room uses the library
 * through trz.h (and src/common/safefile.h); nothing in the library
 * includes anything from here. */
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "msg.h"

static void usage(FILE *f)
{
    fprintf(f,
        "Usage: trz [OPTION]... [FILE]...\n"
        "Compress or decompress computer-architecture traces: SPARC RST, BYU and PEL\n"
        "bus traces, uop text, ChampSim, drmemtrace; anything else raw.  With no\n"
        "FILE, or -, read standard input.  .gz .zst .xz .bz2 input is decompressed\n"
        "first; a drmemtrace .zip .gz .lz4 .sz file is kept restorable (.zip.trz).\n"
        "\n"
        "  -z, --compress     compress (default)   -d, --decompress  decompress\n"
        "  -t, --test         check checksums      -l, --list        list (-v: more)\n"
        "  -c, --stdout       write to stdout      -o FILE           output file\n"
        "  -k, --keep         keep input (default) --rm              remove input once\n"
        "  -f, --force        overwrite; to a tty                    safely replaced\n"
        "  -1 .. -19          level (default 9)    --fast, --best    -1, -19\n"
        "  -T N, --threads N  threads (0: all; 1)  -r, --recursive   into directories\n"
        "  --format NAME      auto (default), raw, rst, byu, pbus, uop, champsim,\n"
        "                     champsim-cloudsuite, drmemtrace\n"
        "  --backend NAME     zstd (default), zlib --no-verify       skip self-check\n"
        "  --chunk-size S     4K..256M (16M)       --chunk-records N at most N records\n"
        "  --restart S        groups of S, to 1G   --no-chain        chunks not chained\n"
        "  --from N --count M -d: records N..N+M-1  --no-original  keep the records only\n"
        "  --salvage          -d: keep intact chunks --no-parity     no 1/256 to mend\n"
        "  --original, --records  with -d: the kept .zip .gz .lz4 .sz file, or records\n"
        "  -v, --verbose      more messages        -q, --quiet       fewer\n"
        "  -h, --help         this help; trz(1)    -V, --version     version\n"
        "Commands: trz dump, join, bench, serve (each --help). Exit 0, 1 error, 2 usage.\n");
}

static int parse_size(const char *s, int64_t *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0) return -1;
    switch (*end) {
    case 'k': case 'K': v *= 1024; end++; break;
    case 'm': case 'M': v *= 1024 * 1024; end++; break;
    case 'g': case 'G': v *= 1024.0 * 1024 * 1024; end++; break;
    default: break;
    }
    if (*end == 'i') end++;
    if (*end == 'B' || *end == 'b') end++;
    if (*end) return -1;
    *out = (int64_t)v;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!*s || *s == '-') return -1;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end) return -1;
    *out = v;
    return 0;
}

/* Long options that take a value: after '=' or as the next argument. */
static int takes_value(const char *a, size_t klen)
{
    static const char *const with[] = { "format", "backend", "threads", "chunk-size", "chunk-records", "restart", "from",
                                        "count" };
    for (size_t i = 0; i < sizeof with / sizeof with[0]; i++)
        if (klen == strlen(with[i]) && strncmp(a, with[i], klen) == 0) return 1;
    return 0;
}

/* Long option argv[*i] (after its "--"): returns 0, or 2 after a usage error. */
static int long_opt(cli_opts *o, int argc, char **argv, int *i, int *exit_now)
{
    const char *a = argv[*i] + 2;
    const char *eq = strchr(a, '=');
    size_t klen = eq ? (size_t)(eq - a) : strlen(a);
    const char *v = eq ? eq + 1 : NULL;
    if (!v && takes_value(a, klen)) {
        if (*i + 1 >= argc) { msg_error("option '--%s' needs a value", a); return 2; }
        v = argv[++*i];
    }
#define IS(k) (klen == strlen(k) && strncmp(a, k, klen) == 0)
    if (IS("compress")) o->mode = MODE_COMPRESS;
    else if (IS("decompress") || IS("uncompress")) o->mode = MODE_DECOMPRESS;
    else if (IS("test")) o->mode = MODE_TEST;
    else if (IS("list")) o->mode = MODE_LIST;
    else if (IS("stdout")) o->to_stdout = 1;
    else if (IS("keep")) o->keep = 1;
    else if (IS("rm")) o->rm = 1;
    else if (IS("force")) o->force = 1;
    else if (IS("verbose")) o->verbose++;
    else if (IS("quiet")) o->quiet++;
    else if (IS("salvage")) o->salvage = 1;
    else if (IS("original")) o->original = 1, o->records = 0;
    else if (IS("records")) o->records = 1, o->original = 0;
    else if (IS("no-original")) o->no_original = 1;
    else if (IS("recursive")) o->recursive = 1;
    else if (IS("no-verify")) o->verify = 0;
    else if (IS("no-chain")) o->no_chain = 1;
    else if (IS("no-parity")) o->no_parity = 1;
    else if (IS("fast")) o->level = TRZ_LEVEL_MIN;
    else if (IS("best")) o->level = TRZ_LEVEL_MAX;
    else if (IS("help")) { usage(stdout); *exit_now = 1; }
    else if (IS("version")) { printf("trz %s\n", trz_version_string()); *exit_now = 1; }
    else if (IS("format") && v) o->format = v;
    else if (IS("backend") && v) {
        if (strcmp(v, "zstd") == 0) o->backend = TRZ_BACKEND_ZSTD;
        else if (strcmp(v, "gzip") == 0 || strcmp(v, "zlib") == 0) o->backend = TRZ_BACKEND_GZIP;
        else { msg_error("unknown back-end '%s' (zstd or zlib)", v); return 2; }
    } else if (IS("threads") && v) {
        char *e;
        long t = strtol(v, &e, 10);
        if (*e || t < 0 || t > 256) { msg_error("bad thread count '%s'", v); return 2; }
        o->threads = (int)t;
    } else if (IS("chunk-size") && v) {
        if (parse_size(v, &o->chunk_bytes)) { msg_error("bad size '%s'", v); return 2; }
    } else if (IS("restart") && v) {
        if (parse_size(v, &o->restart_bytes)) { msg_error("bad size '%s'", v); return 2; }
    } else if (IS("chunk-records") && v) {
        uint64_t n;
        if (parse_u64(v, &n)) { msg_error("bad record count '%s'", v); return 2; }
        o->chunk_records = (int64_t)n;
    } else if (IS("from") && v) {
        if (parse_u64(v, &o->from)) { msg_error("bad record number '%s'", v); return 2; }
        o->ranged = 1;
    } else if (IS("count") && v) {
        if (parse_u64(v, &o->count)) { msg_error("bad record count '%s'", v); return 2; }
        o->ranged = 1;
    } else {
        msg_error("unknown option '--%s' (try --help)", a);
        return 2;
    }
#undef IS
    return 0;
}

int main(int argc, char **argv)
{
    /* past the file-size limit (ulimit -f) a write fails with EFBIG, which is
     * reported and the temporary file removed, where the signal would kill
     * trz and leave the file behind */
    signal(SIGXFSZ, SIG_IGN);
    if (argc > 1 && strcmp(argv[1], "dump") == 0) return dump_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "bench") == 0) return bench_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "join") == 0) return join_main(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "serve") == 0) return serve_main(argc - 1, argv + 1);

    cli_opts o = { 0 };
    o.level = TRZ_LEVEL_DEFAULT;
    o.threads = 1;
    o.backend = TRZ_BACKEND_ZSTD;
    o.verify = 1;
    o.format = "auto";
    o.count = UINT64_MAX;
    o.restart_bytes = -1;
    const char **files = calloc((size_t)argc + 1, sizeof *files);
    int nfiles = 0, only_files = 0;
    if (!files) { msg_error("out of memory"); return 1; }

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || a[1] == 0) { files[nfiles++] = a; continue; }
        if (a[1] == '-') {
            if (a[2] == 0) { only_files = 1; continue; }
            int exit_now = 0, rc = long_opt(&o, argc, argv, &i, &exit_now);
            if (rc || exit_now) { free(files); return rc; }
            continue;
        }
        for (const char *p = a + 1; *p; p++) {
            if (*p >= '0' && *p <= '9') { /* -# level */
                int lv = 0;
                while (*p >= '0' && *p <= '9') lv = lv * 10 + (*p++ - '0');
                p--;
                if (lv < TRZ_LEVEL_MIN || lv > TRZ_LEVEL_MAX) { msg_error("level must be 1..19"); free(files); return 2; }
                o.level = lv;
                continue;
            }
            switch (*p) {
            case 'z': o.mode = MODE_COMPRESS; break;
            case 'd': o.mode = MODE_DECOMPRESS; break;
            case 't': o.mode = MODE_TEST; break;
            case 'l': o.mode = MODE_LIST; break;
            case 'c': o.to_stdout = 1; break;
            case 'k': o.keep = 1; break;
            case 'f': o.force = 1; break;
            case 'r': o.recursive = 1; break;
            case 'v': o.verbose++; break;
            case 'q': o.quiet++; break;
            case 'h': usage(stdout); free(files); return 0;
            case 'V': printf("trz %s\n", trz_version_string()); free(files); return 0;
            case 'T': case 'o': {
                const char *v = p[1] ? p + 1 : (i + 1 < argc ? argv[++i] : NULL);
                if (!v) { msg_error("option -%c needs a value", *p); free(files); return 2; }
                if (*p == 'o') o.out_name = v;
                else {
                    char *e;
                    long t = strtol(v, &e, 10);
                    if (*e || t < 0 || t > 256) { msg_error("bad thread count '%s'", v); free(files); return 2; }
                    o.threads = (int)t;
                }
                goto next_arg; /* the value used up this argument */
            }
            default:
                msg_error("unknown option '-%c' (try --help)", *p);
                free(files);
                return 2;
            }
        }
    next_arg:;
    }
    g_verbosity = 1 + o.verbose - o.quiet;
    if (o.rm && o.keep) { msg_error("--rm and -k contradict each other"); free(files); return 2; }
    if (o.ranged && o.mode != MODE_DECOMPRESS) { msg_error("--from/--count go with -d"); free(files); return 2; }
    /* a slice is not the whole input: removing the input would lose the rest */
    if (o.rm && o.ranged) {
        msg_error("--rm removes the input only when all of it is in the output; not with --from/--count");
        free(files);
        return 1;
    }
    if (o.out_name && (nfiles > 1 || o.recursive)) { msg_error("-o takes one input file"); free(files); return 2; }
    if ((o.original || o.records) && o.mode != MODE_DECOMPRESS) { msg_error("--original/--records go with -d"); free(files); return 2; }
    if (o.no_original && o.mode != MODE_COMPRESS) { msg_error("--no-original goes with compressing"); free(files); return 2; }
    if (o.original && (o.ranged || o.salvage)) { msg_error("--original restores the whole file: no --from, --count or --salvage"); free(files); return 2; }
    if (nfiles == 0) files[nfiles++] = "-";
    /* a slice is not the trace: under the trace's name it would pass for the
     * whole of it, so it goes to standard output or to a name given */
    for (int i = 0; o.ranged && !o.to_stdout && !o.out_name && i < nfiles; i++)
        if (strcmp(files[i], "-") != 0) {
            msg_error("--from/--count write a slice, not the whole trace: name it with -o FILE, or use -c");
            free(files);
            return 2;
        }

    int status = 0;
    if (o.mode == MODE_LIST) list_begin(nfiles > 1 || o.recursive);
    for (int i = 0; i < nfiles; i++) {
        struct stat st;
        int rc = o.recursive && strcmp(files[i], "-") != 0 && stat(files[i], &st) == 0 && S_ISDIR(st.st_mode)
                     ? walk_tree(&o, files[i])
                 : o.mode == MODE_LIST ? list_file(&o, files[i]) : fio_process(&o, files[i]);
        if (rc > status) status = rc;
    }
    if (o.mode == MODE_LIST) list_end(&o);
    free(files);
    return status;
}
