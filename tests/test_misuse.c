/* test_misuse.c - the library under misuse, as a careless or hostile
 * caller would drive it: every public function given NULL pointers and
 * zeroed structs (an error and a message, never a crash); trz_read,
 * trz_read_bytes, trz_read_view, trz_read_span and trz_foreach mixed at
 * every alignment within a record, at chunk edges, over partial records
 * and concatenated members, through the index and from a pipe, each call
 * checked against a model of the position (fuzz/api_model.h: no hang, no
 * skipped or shifted record, TRZ_ERR_PARAM inside a record); settings
 * refused with a message; and output paths that are a device, a FIFO, a
 * symbolic link, a dangling one, a directory or the input itself (the
 * device never replaced).  Run from the repository root (it reads
 * corpus/); prints "N passed, M failed" last. */
#define _GNU_SOURCE /* mknod, makedev */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fuzz/api_model.h"
#include "fuzz/fuzz_common.h"

#include "unit.h"

static int nskip;

static void skip(const char *what)
{
    nskip++;
    printf("skipped: %s\n", what);
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A hang is a failure, not a stuck `make check`. */
static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "FAIL: a call did not return within the time limit (a hang)\n";
    if (write(STDOUT_FILENO, m, sizeof m - 1) < 0) _exit(2);
    _exit(1);
}

static uint8_t *load(const char *path, size_t off, size_t len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *p = malloc(len ? len : 1);
    if (p && (fseek(f, (long)off, SEEK_SET) != 0 || fread(p, 1, len, f) != len)) { free(p); p = NULL; }
    fclose(f);
    return p;
}

/* ---- archives in memory ---- */
typedef struct arc {
    const char *name;
    uint8_t *src;
    size_t n;
    fz_out z;       /* the archive */
    am_src model;
} arc;

static int add_member(arc *a, const char *format, const uint8_t *p, size_t n, int64_t chunk_records, int64_t chunk_bytes)
{
    fz_cparams cp = { format, 1, TRZ_BACKEND_ZSTD, 1, 1, chunk_bytes, chunk_records };
    char err[256] = "";
    int rc = fz_compress(&cp, p, n, &a->z, err, sizeof err);
    check(rc == TRZ_OK, "%s: compressing a member: %s", a->name, err);
    return rc;
}

/* Fixed-size members: the lengths given, taken from one file in turn. */
static int make_fixed(arc *a, const char *name, const char *path, const char *format, size_t rs, const size_t *len,
                      size_t nm, int64_t chunk_records)
{
    memset(a, 0, sizeof *a);
    a->name = name;
    for (size_t i = 0; i < nm; i++) a->n += len[i];
    a->src = load(path, 4800, a->n); /* a whole number of records in */
    if (!a->src) return -1;
    size_t at = 0;
    for (size_t i = 0; i < nm; i++) {
        if (add_member(a, format, a->src + at, len[i], chunk_records, 4096)) return -1;
        at += len[i];
    }
    return am_init(&a->model, a->src, a->n, rs, len, nm);
}

static int make_text(arc *a, const char *name, const char *path, size_t n)
{
    memset(a, 0, sizeof *a);
    a->name = name;
    uint8_t *head = load(path, 0, n);
    if (!head) return -1;
    /* a line longer than a chunk in the middle; the last byte left out,
     * so that the text ends inside a line */
    size_t longl = 9000, half = n / 2;
    while (half < n && head[half - 1] != '\n') half++;
    a->n = half + longl + 1 + (n - 1 - half);
    a->src = malloc(a->n);
    memcpy(a->src, head, half);
    memset(a->src + half, 'x', longl);
    a->src[half + longl] = '\n';
    memcpy(a->src + half + longl + 1, head + half, n - 1 - half);
    free(head);
    if (add_member(a, "uop", a->src, a->n, 0, 4096)) return -1;
    return am_init(&a->model, a->src, a->n, 0, NULL, 0);
}

static void arc_free(arc *a)
{
    free(a->src);
    free(a->z.p);
    am_free(&a->model);
}

/* A reader of a's archive: from memory (the index) or as a pipe giving
 * short reads. */
typedef struct rd {
    trz_reader *r;
    fz_in in;
} rd;

static int rd_open(rd *d, const arc *a, int pipe)
{
    trz_io io;
    fz_io_in(&io, &d->in, a->z.p, a->z.n, 777, !pipe);
    int rc = trz_reader_open_io(&d->r, &io);
    check(rc == TRZ_OK, "%s: open%s: %s", a->name, pipe ? " (pipe)" : "", trz_reader_error(d->r));
    return rc;
}

static am_state state_of(const arc *a, trz_reader *r, int pipe)
{
    static uint8_t buf[96 * 300 + 64];
    am_state st = { &a->model, r, 0, pipe, buf, sizeof buf, "" };
    return st;
}

/* ---- the cases, one by one ---- */
typedef struct counter { unsigned calls; } counter;
static int count_fn(void *ctx, const void *p, size_t n, size_t len, uint64_t first)
{
    (void)p, (void)n, (void)len, (void)first;
    ((counter *)ctx)->calls++;
    return 0;
}

static void inside_record_cases(const arc *rst)
{
    const size_t rs = rst->model.rs;
    for (int pipe = 0; pipe < 2; pipe++) {
        rd d;
        if (rd_open(&d, rst, pipe)) { trz_reader_close(d.r); continue; }
        uint8_t b[64];
        check(trz_read_bytes(d.r, b, 5) == 5, "rst%s: read 5 bytes", pipe ? " (pipe)" : "");
        size_t big = 2000000; /* the count: it looped for ever here */
        uint8_t *buf = malloc(big * rs);
        alarm(60);
        int64_t g = trz_read(d.r, buf, big);
        alarm(0);
        check(g == TRZ_ERR_PARAM, "rst%s: trz_read inside a record: %lld, not TRZ_ERR_PARAM", pipe ? " (pipe)" : "",
              (long long)g);
        check(strcmp(trz_reader_error(d.r), "position is inside a record: read the rest with trz_read_bytes or seek") == 0,
              "rst: trz_read inside a record says \"%s\"", trz_reader_error(d.r));
        counter c = { 0 };
        check(trz_foreach(d.r, count_fn, &c) == TRZ_ERR_PARAM && c.calls == 0,
              "rst%s: trz_foreach inside a record: fn called %u times", pipe ? " (pipe)" : "", c.calls);
        check(trz_tell(d.r) == 1, "rst: trz_tell inside record 0 is %llu, not 1", (unsigned long long)trz_tell(d.r));
        /* the rest of the record, then whole records again from record 1 */
        check(trz_read_bytes(d.r, b, rs - 5) == (int64_t)(rs - 5) && memcmp(b, rst->src + 5, rs - 5) == 0,
              "rst: the rest of record 0");
        g = trz_read(d.r, buf, big);
        size_t whole = rst->model.m[0].nrec;
        check(g == (int64_t)(whole - 1) && memcmp(buf, rst->src + rs, (whole - 1) * rs) == 0,
              "rst%s: trz_read after the rest: %lld records, not %zu", pipe ? " (pipe)" : "", (long long)g, whole - 1);
        /* the partial last record: not a record, and trz_read_bytes returns it */
        check(trz_read(d.r, buf, 10) == 0, "rst: trz_read at the partial last record is not 0");
        check(trz_tell(d.r) == whole, "rst: trz_tell before the partial last record");
        size_t tail = rst->model.m[0].tail;
        g = trz_read_bytes(d.r, b, sizeof b);
        check(tail && g == (int64_t)tail && memcmp(b, rst->src + whole * rs, tail) == 0,
              "rst%s: trz_read_bytes after trz_read's end: %lld bytes, not the %zu of the partial record",
              pipe ? " (pipe)" : "", (long long)g, tail);
        check(trz_read_bytes(d.r, b, sizeof b) == 0, "rst: the end after the partial record");
        free(buf);
        trz_reader_close(d.r);

        /* trz_foreach stops before the partial last record too */
        if (rd_open(&d, rst, pipe)) { trz_reader_close(d.r); continue; }
        c.calls = 0;
        check(trz_foreach(d.r, count_fn, &c) == TRZ_OK && c.calls > 0, "rst: trz_foreach");
        g = trz_read_bytes(d.r, b, sizeof b);
        check(g == (int64_t)tail && memcmp(b, rst->src + whole * rs, tail) == 0,
              "rst%s: trz_read_bytes after trz_foreach: %lld bytes, not the partial record", pipe ? " (pipe)" : "", (long long)g);
        trz_reader_close(d.r);
    }
}

/* Members A (partial last record), B (whole), C (partial): trz_read gives
 * every record of all three, passing over A's partial record, and stops
 * before C's, which trz_read_bytes returns. */
static void member_cases(const arc *a)
{
    const am_src *s = &a->model;
    for (int pipe = 0; pipe < 2; pipe++) {
        rd d;
        if (rd_open(&d, a, pipe)) { trz_reader_close(d.r); continue; }
        uint8_t *buf = malloc(s->records * s->rs + 64), *want = malloc(s->records * s->rs + 64);
        int64_t g = trz_read(d.r, buf, s->records + 50);
        size_t o = 0;
        for (size_t i = 0; i < s->nm; i++) {
            memcpy(want + o, s->p + s->m[i].start, s->m[i].nrec * s->rs);
            o += s->m[i].nrec * s->rs;
        }
        check(g == (int64_t)s->records && memcmp(buf, want, o) == 0,
              "%s%s: trz_read over the members: %lld records, not %llu", a->name, pipe ? " (pipe)" : "", (long long)g,
              (unsigned long long)s->records);
        const am_member *last = &s->m[s->nm - 1];
        g = trz_read_bytes(d.r, buf, 64);
        check(g == (int64_t)last->tail && memcmp(buf, s->p + s->n - last->tail, last->tail) == 0,
              "%s%s: the last partial record: %lld bytes, not %zu", a->name, pipe ? " (pipe)" : "", (long long)g, last->tail);
        free(buf);
        free(want);
        trz_reader_close(d.r);
    }
    /* from a pipe with decode-ahead threads: fetching reaches the next
     * member's header while the chunks of this member's chain are still
     * to be decoded (they were lost with "the chain it continues is lost"
     * when the threads changed, or were 2 or more, on a stream) */
    for (int t = 0; t < 12; t++) {
        rd d;
        if (rd_open(&d, a, 1)) { trz_reader_close(d.r); continue; }
        fz_out o = { 0 };
        uint8_t b[3000];
        if (t % 2) trz_reader_set(d.r, TRZ_R_THREADS, 2 + t % 3);
        int64_t g = trz_read_bytes(d.r, b, 1000 + (size_t)t * 131);
        if (g > 0) fz_out_write(&o, b, (size_t)g);
        trz_reader_set(d.r, TRZ_R_THREADS, 2 + t % 3);
        int64_t rc = fz_read_all(d.r, &o, 0, NULL);
        check(rc == 0 && o.n == s->n && memcmp(o.p, s->p, s->n) == 0, "%s: a pipe read with %d threads: %lld (%s)", a->name,
              2 + t % 3, (long long)rc, rc ? trz_reader_error(d.r) : "bytes differ");
        free(o.p);
        trz_reader_close(d.r);
    }
}

/* Bytes from pos to the end of the record (or partial record) it is in. */
static size_t to_boundary(const am_src *s, size_t pos)
{
    if (s->rs == 0 || pos >= s->n) return 0;
    const am_member *m = am_member_at(s, pos);
    size_t whole = m->start + m->nrec * s->rs;
    if (pos < whole) return (s->rs - (pos - m->start) % s->rs) % s->rs;
    return pos == whole ? 0 : whole + m->tail - pos;
}

/* Every alignment within a record, at records 0 and 1, mid-way, on both
 * sides of the first chunk edges and of the last, and inside each partial
 * record: read some bytes, then each call in turn from there (trz_read
 * and trz_foreach first, at that very position), against the model. */
static void alignment_cases(const arc *a)
{
    const am_src *s = &a->model;
    rd d;
    if (rd_open(&d, a, 0)) { trz_reader_close(d.r); return; }
    trz_info info;
    trz_reader_info(d.r, &info);
    uint64_t recs[16];
    size_t nr = 0;
    recs[nr++] = 0;
    recs[nr++] = 1;
    recs[nr++] = s->records / 2;
    for (int64_t i = 1; i < info.chunks; i++) {
        if (i > 3 && i < info.chunks - 1) continue;
        trz_chunk_info ci;
        if (trz_reader_chunk(d.r, (uint64_t)i, &ci) != TRZ_OK || !ci.first_record) continue;
        recs[nr++] = ci.first_record - 1;
        recs[nr++] = ci.first_record;
    }
    if (s->records) recs[nr++] = s->records - 1;
    static const unsigned then[] = { AM_READ, AM_FOREACH, AM_SPAN, AM_TELL, AM_NULLS, AM_VIEW };
    unsigned failed = 0;
    size_t span = s->rs ? s->rs : 40;
    for (size_t i = 0; i < nr && failed < 5; i++) {
        for (size_t k = 0; k <= span && failed < 5; k++) {
            am_state st = state_of(a, d.r, 0);
            const char *bad = am_step(&st, AM_SEEK, recs[i]);
            if (!bad) bad = am_step(&st, AM_READ_BYTES, k);
            for (size_t op = 0; !bad && op < sizeof then / sizeof then[0]; op++)
                bad = am_step(&st, then[op], 3 + (k & 1) * 200);
            /* and on from wherever that left it: the record's rest, whole records, the bytes to the end */
            if (!bad) bad = am_step(&st, AM_READ_BYTES, to_boundary(s, st.pos));
            if (!bad) bad = am_step(&st, AM_READ, 150);
            if (!bad) bad = am_step(&st, AM_TELL, 0);
            if (!bad) bad = am_step(&st, AM_FOREACH, 0);
            if (!bad) bad = am_step(&st, AM_READ_BYTES, 100);
            if (!check(bad == NULL, "%s: record %llu + %zu bytes: %s", a->name, (unsigned long long)recs[i], k, bad ? bad : ""))
                failed++;
        }
    }
    /* inside each partial record */
    for (size_t m = 0; m < s->nm; m++) {
        if (!s->m[m].tail) continue;
        for (size_t k = 0; k <= s->m[m].tail; k++) {
            am_state st = state_of(a, d.r, 0);
            const char *bad = am_step(&st, AM_SEEK, s->m[m].first + s->m[m].nrec - 1);
            if (!bad) bad = am_step(&st, AM_READ_BYTES, s->rs + k);
            if (!bad) bad = am_step(&st, AM_READ, 10);
            if (!bad) bad = am_step(&st, AM_FOREACH, 0);
            if (!bad) bad = am_step(&st, AM_READ_BYTES, 64);
            if (!bad) bad = am_step(&st, AM_READ, 10);
            check(bad == NULL, "%s: %zu bytes into member %zu's partial record: %s", a->name, k, m, bad ? bad : "");
        }
    }
    trz_reader_close(d.r);
}

/* Random call sequences: through the index, and from a pipe (a reader per
 * sequence: a pipe does not go back). */
static void random_cases(const arc *a, unsigned sequences, unsigned steps)
{
    unsigned failed = 0;
    for (int pipe = 0; pipe < 2; pipe++) {
        rd d = { 0 };
        if (!pipe && rd_open(&d, a, 0)) { trz_reader_close(d.r); continue; }
        for (unsigned q = 0; q < sequences && failed < 3; q++) {
            if (pipe && rd_open(&d, a, 1)) { trz_reader_close(d.r); break; }
            am_state st = state_of(a, d.r, pipe);
            if (!pipe) {
                const char *bad = am_step(&st, AM_SEEK, 0);
                if (bad) { check(0, "%s: %s", a->name, bad); break; }
            }
            char trail[256] = "";
            size_t tl = 0;
            for (unsigned k = 0; k < steps; k++) {
                unsigned op = (unsigned)(rnd() % AM_NOPS);
                uint64_t v = rnd() % 4 == 0 ? rnd() % 8 : rnd();
                if (op == AM_SEEK && pipe && rnd() % 2) v = am_starts_before(&a->model, st.pos) + rnd() % 200;
                if (tl < sizeof trail - 16) tl += (size_t)snprintf(trail + tl, sizeof trail - tl, " %u:%llu", op, (unsigned long long)(v % 1000));
                const char *bad = am_step(&st, op, v);
                if (!check(bad == NULL, "%s%s, sequence %u step %u (op:arg%s): %s", a->name, pipe ? " (pipe)" : "", q, k, trail,
                           bad ? bad : "")) {
                    failed++;
                    break;
                }
            }
            if (pipe) trz_reader_close(d.r), d.r = NULL;
        }
        if (!pipe) trz_reader_close(d.r);
    }
}

/* ---- NULL and zeroed arguments: every public function ---- */
static int64_t zero_read(void *o, void *b, size_t n) { (void)o, (void)b, (void)n; return 0; }
static int64_t sink_write(void *o, const void *b, size_t n) { (void)o, (void)b; return (int64_t)n; }
static void stream_fn(void *ctx, const char *f, unsigned id, const char *name, uint64_t raw, uint64_t comp)
{
    (void)ctx, (void)f, (void)id, (void)name, (void)raw, (void)comp;
}

static int has_msg(const char *m) { return m && m[0]; }

static void null_cases(const arc *rst, const char *dir)
{
    trz_io zero;
    memset(&zero, 0, sizeof zero);
    trz_io reader_only = { NULL, zero_read, NULL, NULL, NULL }, writer_only = { NULL, NULL, sink_write, NULL, NULL };
    char err[256];

    /* no context at all */
    check(trz_strerror(12345) != NULL && trz_strerror(TRZ_ERR_PARAM) != NULL, "trz_strerror");
    check(trz_format_name(1000) == NULL && trz_format_description(1000) == NULL, "format names past the end");
    check(trz_io_fd(NULL, NULL) == TRZ_ERR_PARAM, "trz_io_fd(NULL, NULL)");
    trz_io fio;
    memset(&fio, 0xa5, sizeof fio);
    check(trz_io_fd(&fio, NULL) == TRZ_ERR_PARAM && !fio.read && !fio.write && !fio.seek && !fio.size,
          "trz_io_fd(io, NULL) leaves io zeroed");
    check(trz_container_suffix(NULL, 100) == NULL, "trz_container_suffix(NULL)");

    /* the compression context */
    check(trz_cctx_set(NULL, TRZ_C_LEVEL, 3) == TRZ_ERR_PARAM, "trz_cctx_set(NULL)");
    check(trz_cctx_set_format(NULL, "rst") == TRZ_ERR_PARAM, "trz_cctx_set_format(NULL)");
    check(trz_cctx_set_progress(NULL, NULL, NULL) == TRZ_ERR_PARAM, "trz_cctx_set_progress(NULL)");
    check(trz_compress(NULL, &reader_only, &writer_only) == TRZ_ERR_PARAM, "trz_compress(NULL cctx)");
    check(trz_cctx_format(NULL) == NULL && trz_cctx_byte_order(NULL) == TRZ_ERR_PARAM && trz_cctx_unwrapped(NULL) == NULL,
          "the cctx getters on NULL");
    int fits = 7;
    check(trz_cctx_detected(NULL, &fits) == NULL && fits == 0 && trz_cctx_detected(NULL, NULL) == NULL, "trz_cctx_detected(NULL)");
    check(has_msg(trz_cctx_error(NULL)), "trz_cctx_error(NULL)");
    check(trz_cctx_warning(NULL) && !trz_cctx_warning(NULL)[0], "trz_cctx_warning(NULL): no warning");
    int chains = 7;
    check(trz_cctx_group_bytes(NULL, &chains) == 0 && chains == 0 && trz_cctx_group_bytes(NULL, NULL) == 0,
          "trz_cctx_group_bytes(NULL)");
    trz_cctx_free(NULL);
    check(trz_compress_path(NULL, "a", "b") == TRZ_ERR_PARAM, "trz_compress_path(NULL cctx)");

    trz_cctx *c = trz_cctx_create();
    struct { const trz_io *in, *out; const char *what; } io_cases[] = {
        { NULL, &writer_only, "NULL in" }, { &reader_only, NULL, "NULL out" }, { &zero, &writer_only, "zeroed in" },
        { &reader_only, &zero, "zeroed out" }, { &writer_only, &writer_only, "in without read" },
        { &reader_only, &reader_only, "out without write" },
    };
    for (size_t i = 0; i < sizeof io_cases / sizeof io_cases[0]; i++) {
        int rc = trz_compress(c, io_cases[i].in, io_cases[i].out);
        check(rc == TRZ_ERR_PARAM && has_msg(trz_cctx_error(c)), "trz_compress with %s: %d \"%s\"", io_cases[i].what, rc,
              trz_cctx_error(c));
    }
    check(trz_compress(c, &reader_only, &writer_only) == TRZ_OK, "trz_compress of nothing, with pipes' members only");
    check(trz_compress_path(c, NULL, "x") == TRZ_ERR_PARAM && has_msg(trz_cctx_error(c)), "trz_compress_path(NULL in)");
    check(trz_compress_path(c, "x", NULL) == TRZ_ERR_PARAM && has_msg(trz_cctx_error(c)), "trz_compress_path(NULL out)");
    check(trz_cctx_set_format(c, NULL) == TRZ_ERR_PARAM && has_msg(trz_cctx_error(c)), "trz_cctx_set_format(c, NULL)");
    check(trz_cctx_set_format(c, "no-such-format") == TRZ_ERR_PARAM && strstr(trz_cctx_error(c), "no-such-format"),
          "trz_cctx_set_format with an unknown name: \"%s\"", trz_cctx_error(c));
    check(trz_cctx_set_progress(c, NULL, NULL) == TRZ_OK, "trz_cctx_set_progress(c, NULL)");

    /* settings out of range and flags other than 0 and 1 */
    struct { trz_cparam p; int64_t v; } badset[] = {
        { TRZ_C_UNWRAP, 3 }, { TRZ_C_VERIFY, -7 }, { TRZ_C_CHAIN, 5 }, { TRZ_C_LEVEL, 0 }, { TRZ_C_LEVEL, 20 },
        { TRZ_C_THREADS, -1 }, { TRZ_C_BACKEND, 0 }, { TRZ_C_CHUNK_BYTES, 1 }, { TRZ_C_CHUNK_RECORDS, -1 },
        { TRZ_C_RESTART_BYTES, 5 }, { (trz_cparam)99, 1 },
    };
    for (size_t i = 0; i < sizeof badset / sizeof badset[0]; i++) {
        char before[256];
        snprintf(before, sizeof before, "%s", trz_cctx_error(c));
        int rc = trz_cctx_set(c, badset[i].p, badset[i].v);
        check(rc == TRZ_ERR_PARAM && has_msg(trz_cctx_error(c)) && strcmp(before, trz_cctx_error(c)) != 0,
              "trz_cctx_set(%d, %lld): %d \"%s\"", (int)badset[i].p, (long long)badset[i].v, rc, trz_cctx_error(c));
    }
    check(trz_cctx_set(c, TRZ_C_UNWRAP, 0) == TRZ_OK && trz_cctx_set(c, TRZ_C_VERIFY, 1) == TRZ_OK &&
              trz_cctx_set(c, TRZ_C_CHAIN, 1) == TRZ_OK, "flags of 0 and 1 are taken");

    /* the writer */
    trz_writer *w = NULL;
    check(trz_writer_open(NULL, c, &writer_only) == TRZ_ERR_PARAM, "trz_writer_open(NULL)");
    check(trz_writer_open_path(NULL, c, "x") == TRZ_ERR_PARAM, "trz_writer_open_path(NULL)");
    int rc = trz_writer_open(&w, c, NULL);
    check(rc == TRZ_ERR_PARAM && w && has_msg(trz_writer_error(w)), "trz_writer_open(w, c, NULL io)");
    trz_writer_close(w);
    rc = trz_writer_open(&w, c, &zero);
    check(rc == TRZ_ERR_PARAM && w && has_msg(trz_writer_error(w)), "trz_writer_open with a zeroed io");
    check(trz_writer_write(w, "x", 1) == TRZ_ERR_PARAM, "trz_writer_write on a writer that failed to open");
    trz_writer_close(w);
    rc = trz_writer_open_path(&w, c, NULL);
    check(rc == TRZ_ERR_PARAM && w && has_msg(trz_writer_error(w)), "trz_writer_open_path(w, c, NULL)");
    check(trz_writer_finish(w) == TRZ_ERR_PARAM, "finishing a writer whose path was NULL");
    trz_writer_close(w);
    check(trz_writer_write(NULL, "x", 1) == TRZ_ERR_PARAM && trz_writer_finish(NULL) == TRZ_ERR_PARAM &&
              trz_writer_close(NULL) == TRZ_OK && has_msg(trz_writer_error(NULL)), "the writer calls on NULL");
    rc = trz_writer_open(&w, NULL, &writer_only);
    check(rc == TRZ_OK && trz_writer_write(w, NULL, 10) == TRZ_ERR_PARAM && has_msg(trz_writer_error(w)) &&
              trz_writer_write(w, NULL, 0) == TRZ_OK && trz_writer_close(w) == TRZ_OK, "trz_writer_write(w, NULL, n)");
    trz_cctx_free(c);

    /* opening a reader */
    trz_reader *r = NULL;
    check(trz_reader_open_path(NULL, "x") == TRZ_ERR_PARAM && trz_reader_open_fd(NULL, 0) == TRZ_ERR_PARAM &&
              trz_reader_open_mem(NULL, rst->z.p, rst->z.n) == TRZ_ERR_PARAM && trz_reader_open_io(NULL, &reader_only) == TRZ_ERR_PARAM,
          "the open calls with a NULL reader");
    struct { int rc; const char *what; } opens[6];
    opens[0].rc = trz_reader_open_path(&r, NULL), opens[0].what = "open_path(NULL)";
    if (r) { check(has_msg(trz_reader_error(r)), "open_path(NULL): no message"); }
    uint8_t b[64];
    const void *v;
    uint64_t nrec;
    /* a reader whose open failed before it had an input: every call fails, none crashes */
    check(trz_read(r, b, 1) < 0 && trz_read_bytes(r, b, 10) < 0 && trz_read_view(r, &v, 10) < 0 &&
              trz_read_span(r, &v, 1, &nrec) < 0 && trz_seek(r, 1) < 0 && trz_foreach(r, count_fn, NULL) < 0,
          "reads on a reader whose open got no path");
    trz_reader_close(r);
    opens[1].rc = trz_reader_open_io(&r, NULL), opens[1].what = "open_io(NULL)";
    trz_reader_close(r);
    opens[2].rc = trz_reader_open_io(&r, &zero), opens[2].what = "open_io(zeroed io)";
    check(trz_read_bytes(r, b, 10) < 0 && trz_seek(r, 0) < 0, "reads on a reader opened with a zeroed io");
    trz_reader_close(r);
    opens[3].rc = trz_reader_open_io(&r, &writer_only), opens[3].what = "open_io(io without read)";
    trz_reader_close(r);
    opens[4].rc = trz_reader_open_mem(&r, NULL, 100), opens[4].what = "open_mem(NULL, 100)";
    trz_reader_close(r);
    opens[5].rc = trz_reader_open_fd(&r, -1), opens[5].what = "open_fd(-1)";
    check(trz_read_bytes(r, b, 10) < 0, "reads on a reader opened on fd -1");
    trz_reader_close(r);
    for (size_t i = 0; i < 6; i++) check(opens[i].rc == TRZ_ERR_PARAM, "%s: %d", opens[i].what, opens[i].rc);
    rc = trz_reader_open_mem(&r, NULL, 0);
    check(rc < 0 && has_msg(trz_reader_error(r)), "open_mem(NULL, 0): an empty input, refused as no archive");
    trz_reader_close(r);
    char missing[512];
    snprintf(missing, sizeof missing, "%s/no-such-file.trz", dir);
    rc = trz_reader_open_path(&r, missing);
    check(rc == TRZ_ERR_IO && trz_read_bytes(r, b, 10) < 0 && trz_foreach(r, count_fn, NULL) < 0 && trz_reader_cpus(r) >= 0,
          "reads on a reader whose file does not exist");
    trz_reader_close(r);

    /* every reader call with a NULL reader */
    trz_info info;
    trz_chunk_info ci;
    trz_container_info coi;
    trz_lost_range lr[2];
    int chained;
    char vb[16];
    check(trz_reader_set(NULL, TRZ_R_THREADS, 1) == TRZ_ERR_PARAM && trz_reader_info(NULL, &info) == TRZ_ERR_PARAM &&
              trz_reader_cpus(NULL) == TRZ_ERR_PARAM && trz_reader_chunks_decoded(NULL) == 0 &&
              trz_reader_chunk(NULL, 0, &ci) == TRZ_ERR_PARAM && trz_reader_chunk_group(NULL, 0, &chained) == TRZ_ERR_PARAM &&
              trz_reader_chunk_variant(NULL, 0, vb, sizeof vb) == TRZ_ERR_PARAM &&
              trz_reader_streams(NULL, stream_fn, NULL) == TRZ_ERR_PARAM && trz_read(NULL, b, 1) == TRZ_ERR_PARAM &&
              trz_read_bytes(NULL, b, 1) == TRZ_ERR_PARAM && trz_read_view(NULL, &v, 1) == TRZ_ERR_PARAM &&
              trz_seek(NULL, 0) == TRZ_ERR_PARAM && trz_tell(NULL) == UINT64_MAX &&
              trz_read_span(NULL, &v, 1, &nrec) == TRZ_ERR_PARAM && trz_foreach(NULL, count_fn, NULL) == TRZ_ERR_PARAM &&
              trz_reader_lost(NULL, lr, 2) == 0 && trz_reader_lost_knowledge(NULL, 0) == 0 &&
              trz_reader_lost_kind(NULL, 0) == TRZ_ERR_PARAM && trz_reader_check_rest(NULL) == TRZ_ERR_PARAM &&
              trz_reader_container(NULL, &coi) == TRZ_ERR_PARAM && trz_restore(NULL, &writer_only) == TRZ_ERR_PARAM &&
              trz_dump(NULL, stdout, 0, 1) == TRZ_ERR_PARAM && has_msg(trz_reader_error(NULL)),
          "the reader calls on a NULL reader");
    trz_reader_close(NULL);

    /* an open reader given NULL where a pointer is needed */
    rc = trz_reader_open_mem(&r, rst->z.p, rst->z.n);
    check(rc == TRZ_OK, "open the rst archive");
    struct { int rc; const char *what; } calls[] = {
        { trz_reader_info(r, NULL), "trz_reader_info(r, NULL)" },
        { trz_reader_chunk(r, 0, NULL), "trz_reader_chunk(r, 0, NULL)" },
        { trz_reader_chunk_variant(r, 0, NULL, 10), "trz_reader_chunk_variant(r, 0, NULL, 10)" },
        { trz_reader_chunk_variant(r, 0, vb, 0), "trz_reader_chunk_variant(r, 0, buf, 0)" },
        { trz_reader_streams(r, NULL, NULL), "trz_reader_streams(r, NULL)" },
        { trz_reader_container(r, NULL), "trz_reader_container(r, NULL)" },
        { trz_restore(r, NULL), "trz_restore(r, NULL)" },
        { trz_restore(r, &zero), "trz_restore(r, zeroed io)" },
        { trz_dump(r, NULL, 0, 1), "trz_dump(r, NULL file)" },
        { trz_reader_set(r, (trz_rparam)99, 1), "trz_reader_set(unknown parameter)" },
        { trz_reader_set(r, TRZ_R_THREADS, -1), "TRZ_R_THREADS -1" },
        { trz_reader_set(r, TRZ_R_THREADS, 65), "TRZ_R_THREADS 65" },
        { trz_reader_set(r, TRZ_R_SALVAGE, -1), "TRZ_R_SALVAGE -1" },
        { trz_reader_set(r, TRZ_R_HOST_ORDER, 2), "TRZ_R_HOST_ORDER 2" },
        { trz_reader_set(r, TRZ_R_OVERLAP, 2), "TRZ_R_OVERLAP 2" },
    };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        check(calls[i].rc == TRZ_ERR_PARAM, "%s: %d, not TRZ_ERR_PARAM", calls[i].what, calls[i].rc);
    }
    /* each refusal leaves its own message */
    const struct { trz_rparam p; int64_t v; const char *says; } rbad[] = {
        { TRZ_R_THREADS, -1, "TRZ_R_THREADS" }, { TRZ_R_SALVAGE, -1, "TRZ_R_SALVAGE" },
        { TRZ_R_HOST_ORDER, 2, "TRZ_R_HOST_ORDER" }, { (trz_rparam)99, 0, "unknown reader parameter" },
    };
    for (size_t i = 0; i < 4; i++) {
        trz_reader_set(r, rbad[i].p, rbad[i].v);
        check(strstr(trz_reader_error(r), rbad[i].says) != NULL, "trz_reader_set(%d, %lld) says \"%s\"", (int)rbad[i].p,
              (long long)rbad[i].v, trz_reader_error(r));
    }
    check(trz_reader_chunk(r, 1u << 30, &ci) == TRZ_ERR_RANGE && has_msg(trz_reader_error(r)), "trz_reader_chunk past the last");
    check(trz_reader_chunk_group(r, 1u << 30, NULL) == TRZ_ERR_RANGE, "trz_reader_chunk_group past the last");
    check(trz_reader_chunk_variant(r, 1u << 30, vb, sizeof vb) == TRZ_ERR_RANGE, "trz_reader_chunk_variant past the last");
    check(trz_reader_chunk_group(r, 0, NULL) == 0, "trz_reader_chunk_group(r, 0, NULL)");
    check(trz_reader_lost(r, NULL, 5) == 0, "trz_reader_lost(r, NULL, 5)");
    check(trz_reader_lost_knowledge(r, 1000) == 0, "trz_reader_lost_knowledge past the last");
    check(trz_seek(r, UINT64_MAX) == TRZ_ERR_RANGE, "trz_seek(UINT64_MAX)");
    check(trz_read_view(r, &v, 0) == 0, "trz_read_view(r, &v, 0)");
    trz_reader_close(r);

    /* the functions that take err */
    const char *ins[] = { "a", NULL };
    check(trz_join(ins, 0, &writer_only, err, sizeof err) == TRZ_ERR_PARAM, "trz_join of nothing");
    check(trz_join(NULL, 2, &writer_only, err, sizeof err) == TRZ_ERR_PARAM && has_msg(err), "trz_join(NULL inputs)");
    check(trz_join(ins, 2, &writer_only, err, sizeof err) == TRZ_ERR_PARAM && has_msg(err), "trz_join with a NULL input");
    check(trz_join(ins, 1, NULL, err, sizeof err) == TRZ_ERR_PARAM && has_msg(err), "trz_join(NULL out)");
    check(trz_join(ins, 1, &reader_only, NULL, 0) == TRZ_ERR_PARAM, "trz_join(out without write, no err)");
    check(trz_join(ins, 1, &zero, NULL, 100) == TRZ_ERR_PARAM, "trz_join(zeroed out, err NULL with a length)");
    check(trz_decompress_path(NULL, "x", 1, err, sizeof err) == TRZ_ERR_PARAM && has_msg(err), "trz_decompress_path(NULL in)");
    check(trz_decompress_path("x", NULL, 1, NULL, 10) == TRZ_ERR_PARAM, "trz_decompress_path(NULL out, err NULL)");
    FILE *devnull = fopen("/dev/null", "w");
    check(trz_dump_raw(NULL, "rst", devnull, 0, 1, err, sizeof err) == TRZ_ERR_PARAM && has_msg(err), "trz_dump_raw(NULL in)");
    check(trz_dump_raw(&zero, "rst", devnull, 0, 1, NULL, 0) == TRZ_ERR_PARAM, "trz_dump_raw(zeroed in)");
    check(trz_dump_raw(&reader_only, "rst", NULL, 0, 1, err, sizeof err) == TRZ_ERR_PARAM && has_msg(err), "trz_dump_raw(NULL file)");
    check(trz_dump_any(NULL, NULL, devnull, 0, 1, err, sizeof err) == TRZ_ERR_PARAM && has_msg(err), "trz_dump_any(NULL in)");
    check(trz_dump_any(&writer_only, NULL, devnull, 0, 1, NULL, 0) == TRZ_ERR_PARAM, "trz_dump_any(in without read)");
    check(trz_dump_any(&reader_only, NULL, NULL, 0, 1, err, sizeof err) == TRZ_ERR_PARAM, "trz_dump_any(NULL file)");
    check(trz_dump_any(&reader_only, "no-such", devnull, 0, 1, NULL, 0) == TRZ_ERR_PARAM, "trz_dump_any(unknown format, err NULL)");
    fclose(devnull);
}

/* ---- output paths ---- */
static int path_kind(const char *p)
{
    struct stat st;
    if (lstat(p, &st) != 0) return 0;
    return S_ISCHR(st.st_mode) ? 'c' : S_ISFIFO(st.st_mode) ? 'p' : S_ISLNK(st.st_mode) ? 'l' : S_ISDIR(st.st_mode) ? 'd'
         : S_ISREG(st.st_mode) ? 'f' : '?';
}

/* Temporary files left in dir (".NAME.tmpXXXXXX"). */
static int leftovers(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        if (e->d_name[0] == '.' && strstr(e->d_name, ".tmp")) n++;
    if (d) closedir(d);
    return n;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    fz_out o = { 0 };
    int fd = open(path, O_RDONLY);
    uint8_t b[65536];
    for (ssize_t k; fd >= 0 && (k = read(fd, b, sizeof b)) > 0;) fz_out_write(&o, b, (size_t)k);
    if (fd >= 0) close(fd);
    *n = o.n;
    return o.p;
}

static int decodes_to(const uint8_t *z, size_t zn, const uint8_t *want, size_t n)
{
    trz_reader *r;
    int ok = trz_reader_open_mem(&r, z, zn) == TRZ_OK;
    fz_out o = { 0 };
    if (ok) ok = fz_read_all(r, &o, 0, NULL) == 0 && o.n == n && memcmp(o.p, want, n) == 0;
    trz_reader_close(r);
    free(o.p);
    return ok;
}

/* A FIFO's reader: everything until the writer closes. */
typedef struct fifo_reader { const char *path; fz_out got; pthread_t t; } fifo_reader;
static void *fifo_drain(void *arg)
{
    fifo_reader *f = arg;
    int fd = open(f->path, O_RDONLY);
    uint8_t b[65536];
    for (ssize_t k; fd >= 0 && (k = read(fd, b, sizeof b)) > 0;) fz_out_write(&f->got, b, (size_t)k);
    if (fd >= 0) close(fd);
    return NULL;
}

enum { W_WRITER, W_COMPRESS, W_DECOMPRESS };
static const char *const wname[] = { "trz_writer_open_path", "trz_compress_path", "trz_decompress_path" };

/* Write through one of the path functions; the message in msg. */
static int write_path(int how, const char *src, const uint8_t *raw, size_t n, const char *out, char *msg, size_t ml)
{
    int rc;
    msg[0] = 0;
    if (how == W_DECOMPRESS) return trz_decompress_path(src, out, 1, msg, ml);
    trz_cctx *c = trz_cctx_create();
    trz_cctx_set(c, TRZ_C_LEVEL, 1);
    if (how == W_COMPRESS) {
        rc = trz_compress_path(c, src, out);
        snprintf(msg, ml, "%s", trz_cctx_error(c));
    } else {
        trz_writer *w;
        rc = trz_writer_open_path(&w, c, out);
        if (rc == TRZ_OK) rc = trz_writer_write(w, raw, n);
        if (rc == TRZ_OK) rc = trz_writer_finish(w);
        snprintf(msg, ml, "%s", trz_writer_error(w));
        trz_writer_close(w);
    }
    trz_cctx_free(c);
    return rc;
}

static void path_cases(const char *dir, const arc *rst)
{
    char raw[512], arch[512], p[512], t[512], msg[512];
    snprintf(raw, sizeof raw, "%s/in.rst", dir);
    snprintf(arch, sizeof arch, "%s/in.rst.trz", dir);
    size_t n = 30000;
    FILE *f = fopen(raw, "wb");
    fwrite(rst->src, 1, n, f);
    fclose(f);
    f = fopen(arch, "wb");
    fwrite(rst->z.p, 1, rst->z.n, f);
    fclose(f);
    for (int how = 0; how < 3; how++) {
        const char *src = how == W_DECOMPRESS ? arch : raw;
        const uint8_t *want = how == W_DECOMPRESS ? rst->src : NULL;
        size_t wn = how == W_DECOMPRESS ? rst->n : 0;
        /* what the output must hold: the archive decoding to the 30,000 bytes, or the trace itself */
#define GOOD(buf, len) (how == W_DECOMPRESS ? (len) == wn && memcmp(buf, want, wn) == 0 : decodes_to(buf, len, rst->src, n))

        /* character devices: /dev/null's numbers (written to) and /dev/full's (a failure reported) */
        snprintf(p, sizeof p, "%s/null", dir);
        if (mknod(p, S_IFCHR | 0666, makedev(1, 3)) == 0) {
            int rc = write_path(how, src, rst->src, n, p, msg, sizeof msg);
            check(rc == TRZ_OK && path_kind(p) == 'c', "%s to a character device (null): %d, %c (%s)", wname[how], rc,
                  path_kind(p), msg);
            unlink(p);
            snprintf(p, sizeof p, "%s/full", dir);
            if (mknod(p, S_IFCHR | 0666, makedev(1, 7)) == 0) {
                rc = write_path(how, src, rst->src, n, p, msg, sizeof msg);
                check(rc == TRZ_ERR_IO && strstr(msg, "No space") && path_kind(p) == 'c',
                      "%s to a full device: %d, %c (%s)", wname[how], rc, path_kind(p), msg);
                unlink(p);
            }
        } else {
            skip(errno == EPERM ? "character device outputs (not root: mknod refused)" : "character device outputs (mknod failed)");
        }

        /* a FIFO: written to in place, with a reader on the other end */
        snprintf(p, sizeof p, "%s/fifo", dir);
        if (mkfifo(p, 0600) == 0) {
            fifo_reader fr = { p, { 0 }, 0 };
            pthread_create(&fr.t, NULL, fifo_drain, &fr);
            alarm(120);
            int rc = write_path(how, src, rst->src, n, p, msg, sizeof msg);
            pthread_join(fr.t, NULL);
            alarm(0);
            check(rc == TRZ_OK && path_kind(p) == 'p' && GOOD(fr.got.p, fr.got.n), "%s to a FIFO: %d, %c, %zu bytes (%s)",
                  wname[how], rc, path_kind(p), fr.got.n, msg);
            free(fr.got.p);
            unlink(p);
        }

        /* a symbolic link to a file: the file is replaced, the link stays */
        snprintf(p, sizeof p, "%s/link", dir);
        snprintf(t, sizeof t, "%s/target", dir);
        f = fopen(t, "wb");
        fputs("old", f);
        fclose(f);
        if (symlink("target", p) == 0) {
            int rc = write_path(how, src, rst->src, n, p, msg, sizeof msg);
            size_t got;
            uint8_t *b = slurp(t, &got);
            check(rc == TRZ_OK && path_kind(p) == 'l' && path_kind(t) == 'f' && GOOD(b, got),
                  "%s to a symbolic link: %d, link %c, target %c (%s)", wname[how], rc, path_kind(p), path_kind(t), msg);
            free(b);
            unlink(p);
        }
        unlink(t);

        /* a symbolic link to nothing: refused, nothing made */
        if (symlink("nowhere", p) == 0) {
            snprintf(t, sizeof t, "%s/nowhere", dir);
            int rc = write_path(how, src, rst->src, n, p, msg, sizeof msg);
            check(rc == TRZ_ERR_PARAM && path_kind(p) == 'l' && path_kind(t) == 0 && strstr(msg, "does not exist"),
                  "%s to a dangling symbolic link: %d (%s)", wname[how], rc, msg);
            unlink(p);
        }

        /* a directory: refused */
        snprintf(p, sizeof p, "%s/sub", dir);
        mkdir(p, 0700);
        int rc = write_path(how, src, rst->src, n, p, msg, sizeof msg);
        check(rc == TRZ_ERR_PARAM && path_kind(p) == 'd' && strstr(msg, "directory") && leftovers(p) == 0,
              "%s to a directory: %d (%s)", wname[how], rc, msg);
        rmdir(p);

        /* a new name and an existing file: written, replaced */
        snprintf(p, sizeof p, "%s/plain", dir);
        for (int k = 0; k < 2; k++) {
            rc = write_path(how, src, rst->src, n, p, msg, sizeof msg);
            size_t got;
            uint8_t *b = slurp(p, &got);
            check(rc == TRZ_OK && path_kind(p) == 'f' && GOOD(b, got), "%s to %s: %d (%s)", wname[how],
                  k ? "an existing file" : "a new name", rc, msg);
            free(b);
        }
        unlink(p);

        /* the input itself (not for the writer, which has none) */
        if (how != W_WRITER) {
            snprintf(p, sizeof p, "%s/self-link", dir);
            if (symlink(how == W_DECOMPRESS ? "in.rst.trz" : "in.rst", p) == 0) {
                rc = write_path(how, src, rst->src, n, p, msg, sizeof msg);
                check(rc == TRZ_ERR_PARAM && strstr(msg, "input itself"), "%s onto its input: %d (%s)", wname[how], rc, msg);
                unlink(p);
            }
        }
        check(leftovers(dir) == 0, "%s: temporary files left behind", wname[how]);
#undef GOOD
    }
    /* threads checked as trz_reader_set checks them, before a file is made */
    snprintf(p, sizeof p, "%s/threads", dir);
    int rc = trz_decompress_path(arch, p, -3, msg, sizeof msg);
    check(rc == TRZ_ERR_PARAM && has_msg(msg) && path_kind(p) == 0, "trz_decompress_path with -3 threads: %d (%s)", rc, msg);
    rc = trz_decompress_path(arch, p, 65, msg, sizeof msg);
    check(rc == TRZ_ERR_PARAM && path_kind(p) == 0, "trz_decompress_path with 65 threads: %d (%s)", rc, msg);
    unlink(raw);
    unlink(arch);
}

int main(void)
{
    signal(SIGALRM, on_alarm);
    char dir[] = "/tmp/trz_misuse_XXXXXX";
    if (!mkdtemp(dir)) { printf("FAIL: mkdtemp\n0 passed, 1 failed\n"); return 1; }

    arc rst, byu, text, raw;
    /* RST: 3,000 records and a partial last one of 5 bytes, 250 records a chunk */
    const size_t rst_len[] = { 24 * 3000 + 5 };
    int ok = make_fixed(&rst, "rst", "corpus/loops-4cpu.rst", "rst", 24, rst_len, 1, 250) == 0;
    /* BYU: members A (a partial record at its end), B (whole), C (a partial record) */
    const size_t byu_len[] = { 12 * 1000 + 7, 12 * 800, 12 * 333 + 5 };
    ok = ok && make_fixed(&byu, "byu members", "corpus/bus-2cpu.byu", "byu", 12, byu_len, 3, 190) == 0;
    ok = ok && make_text(&text, "uop", "corpus/sjeng-like.trace", 60000) == 0;
    const size_t raw_len[] = { 20000 };
    ok = ok && make_fixed(&raw, "raw", "corpus/loops-4cpu.rst", "raw", 1, raw_len, 1, 0) == 0;
    if (!ok) {
        printf("FAIL: building the archives (run from the repository root)\n%d passed, %d failed\n", npass, nfail + 1);
        return 1;
    }

    inside_record_cases(&rst);
    member_cases(&byu);
    alignment_cases(&rst);
    alignment_cases(&byu);
    alignment_cases(&text);
    alignment_cases(&raw);
    random_cases(&rst, 30, 40);
    random_cases(&byu, 60, 40);
    random_cases(&text, 40, 40);
    random_cases(&raw, 20, 40);
    null_cases(&rst, dir);
    path_cases(dir, &rst);

    arc_free(&rst);
    arc_free(&byu);
    arc_free(&text);
    arc_free(&raw);
    rmdir(dir);
    if (nskip) printf("%d skipped\n", nskip);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
