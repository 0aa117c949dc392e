/* test_writer.c - the push-style writer (trz_writer_*) against its manual in
 * trz.h, through the public header only: writes of any size, records and
 * lines cut anywhere, empty writes, decode to exactly the bytes written;
 * every misuse the header names (no write function, writes after finish,
 * finish twice, close NULL) and an output that fails (-1 with or without
 * errno, short or long counts, at the header, a chunk or the index) give a
 * trz_result and a message that says what failed, never a crash.  Cases
 * that crashed once run in a child process, so a crash is one failure and
 * the rest still run.  Run from the repository root (it reads corpus/);
 * prints "N passed, M failed" last. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../include/trz.h"

#include "unit.h"

/* ---- an output in memory that can be told to fail ---- */
enum { OK_ALWAYS, FAIL_MINUS1, FAIL_SHORT, FAIL_LONG };
typedef struct sink {
    uint8_t *p;
    size_t n, cap;
    int calls;   /* write calls so far */
    int fail_at; /* the call that fails (1-based), with `how` and errno `err` */
    int how, err;
} sink;

static int64_t sink_write(void *o, const void *buf, size_t n)
{
    sink *s = o;
    if (++s->calls == s->fail_at && s->how != OK_ALWAYS) {
        errno = s->err; /* 0: a callback need not set errno */
        return s->how == FAIL_MINUS1 ? -1 : s->how == FAIL_SHORT ? (int64_t)n / 2 : (int64_t)n + 1;
    }
    if (s->n + n > s->cap) {
        size_t cap = (s->n + n) * 2;
        uint8_t *p = realloc(s->p, cap);
        if (!p) return -1;
        s->p = p, s->cap = cap;
    }
    memcpy(s->p + s->n, buf, n);
    s->n += n;
    return (int64_t)n;
}

/* a source in memory, for trz_compress */
typedef struct source { const uint8_t *p; size_t n, pos; } source;
static int64_t source_read(void *o, void *buf, size_t n)
{
    source *m = o;
    if (n > m->n - m->pos) n = m->n - m->pos;
    if (n) memcpy(buf, m->p + m->pos, n);
    m->pos += n;
    return (int64_t)n;
}

static trz_io sink_io(sink *s)
{
    trz_io io = { s, NULL, sink_write, NULL, NULL };
    return io;
}

/* Decode an archive in memory; returns the bytes (len in *n) or NULL. */
static uint8_t *decode(const uint8_t *arch, size_t len, size_t *n)
{
    trz_reader *r;
    *n = 0;
    if (trz_reader_open_mem(&r, arch, len) != TRZ_OK) { trz_reader_close(r); return NULL; }
    size_t cap = 1 << 16;
    uint8_t *out = malloc(cap);
    for (;;) {
        if (*n == cap) out = realloc(out, cap *= 2);
        int64_t k = trz_read_bytes(r, out + *n, cap - *n);
        if (k < 0) { free(out); out = NULL; break; }
        if (k == 0) break;
        *n += (size_t)k;
    }
    trz_reader_close(r);
    return out;
}

static uint8_t *load(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p = malloc(max);
    *len = f && p ? fread(p, 1, max, f) : 0;
    if (f) fclose(f);
    return p;
}

static trz_cctx *settings(const char *format, int threads)
{
    trz_cctx *c = trz_cctx_create();
    trz_cctx_set(c, TRZ_C_LEVEL, 3);
    trz_cctx_set(c, TRZ_C_CHUNK_BYTES, 4096);
    trz_cctx_set(c, TRZ_C_THREADS, threads);
    trz_cctx_set_format(c, format);
    return c;
}

/* Run fn in a child process and add up its checks: a crash (or a leak
 * LeakSanitizer finds at its exit) is one more failure here. */
static void in_child(const char *what, void (*fn)(void))
{
    int fds[2];
    if (pipe(fds) != 0) { check(0, "%s: pipe", what); return; }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        npass = nfail = 0;
        fn();
        int counts[2] = { npass, nfail };
        if (write(fds[1], counts, sizeof counts) != (ssize_t)sizeof counts) nfail++;
        fflush(stdout);
        exit(nfail ? 1 : 0);
    }
    close(fds[1]);
    int counts[2] = { 0, 0 }, st = -1;
    ssize_t got = pid > 0 ? read(fds[0], counts, sizeof counts) : -1;
    close(fds[0]);
    if (pid < 0 || waitpid(pid, &st, 0) != pid) st = -1;
    if (got == (ssize_t)sizeof counts) npass += counts[0], nfail += counts[1];
    if (got != (ssize_t)sizeof counts || (counts[1] == 0 && st != 0))
        check(0, "%s: %s", what, st != -1 && WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "crashed or leaked (see above)");
}

/* ---- writes of every size decode to the bytes written ---- */

/* Pieces of 0, 1, 2, 3, 5, 7, ... bytes (zero-length writes among them,
 * with data NULL for one), cutting records and lines anywhere. */
static void roundtrip(const char *name, const char *format, const uint8_t *src, size_t len, int threads)
{
    static const size_t sizes[] = { 0, 1, 2, 3, 5, 7, 11, 13, 0, 23, 24, 25, 97, 4095, 4097, 6, 12, 1000 };
    trz_cctx *c = settings(format, threads);
    sink s = { 0 };
    trz_io io = sink_io(&s);
    trz_writer *w;
    int rc = trz_writer_open(&w, c, &io);
    size_t at = 0;
    for (size_t i = 0; rc == TRZ_OK && at < len; i++) {
        size_t k = sizes[i % (sizeof sizes / sizeof sizes[0])];
        if (k > len - at) k = len - at;
        rc = trz_writer_write(w, k ? src + at : NULL, k);
        at += k;
    }
    if (rc == TRZ_OK) rc = trz_writer_write(w, NULL, 0);
    if (rc == TRZ_OK) rc = trz_writer_finish(w);
    check(rc == TRZ_OK, "%s, %d threads: the writer: %s", name, threads, trz_writer_error(w));
    size_t n;
    uint8_t *back = decode(s.p, s.n, &n);
    check(back && n == len && (len == 0 || memcmp(back, src, len) == 0),
          "%s, %d threads: the archive decodes to the %zu bytes written (got %zu)", name, threads, len, back ? n : 0);
    free(back);
    /* and it is the archive trz_compress makes of the same bytes */
    sink s2 = { 0 };
    source m = { src, len, 0 };
    trz_io in = { &m, source_read, NULL, NULL, NULL }, out = sink_io(&s2);
    check(trz_compress(c, &in, &out) == TRZ_OK && s2.n == s.n && memcmp(s2.p, s.p, s.n) == 0,
          "%s, %d threads: the archive trz_compress makes (%zu bytes, writer %zu)", name, threads, s2.n, s.n);
    free(s2.p);
    check(trz_writer_close(w) == TRZ_OK, "%s, %d threads: close after finish returns the result", name, threads);
    trz_cctx_free(c);
    free(s.p);
}

static void test_roundtrips(void)
{
    size_t len;
    uint8_t *rst = load("corpus/loops-4cpu.rst", 24 * 1500 + 7, &len); /* a partial last record */
    check(len == 24 * 1500 + 7, "read corpus/loops-4cpu.rst (run from the repository root)");
    for (int t = 1; t <= 2; t++) roundtrip("rst, partial last record", "rst", rst, len, t);
    free(rst);
    uint8_t *byu = load("corpus/bus-2cpu.byu", 12 * 2000 + 5, &len);
    for (int t = 1; t <= 2; t++) roundtrip("byu, partial last record", "byu", byu, len, t);
    free(byu);
    uint8_t *pbus = load("corpus/bus-1cpu.pbus", 6 * 3000 + 1, &len);
    roundtrip("pbus, partial last record", "pbus", pbus, len, 1);
    free(pbus);
    uint8_t *uop = load("corpus/sjeng-like.trace", 30011, &len); /* cut mid-line */
    for (int t = 1; t <= 2; t++) roundtrip("uop text cut mid-line", "uop", uop, len, t);
    free(uop);
    uint8_t raw[9001];
    for (size_t i = 0; i < sizeof raw; i++) raw[i] = (uint8_t)(i * 2654435761u >> 13);
    roundtrip("raw", "raw", raw, sizeof raw, 1);
    roundtrip("rst, a partial record only", "rst", raw, 23, 1);
    roundtrip("nothing at all", "auto", raw, 0, 1);
}

/* trz_cctx_group_bytes says how long the writer's groups are; the chunks of
 * an archive start groups exactly where that length says (a caller that
 * compresses in parts cuts there). */
static uint64_t group_of(const char *format, int level, int64_t restart, int chain, int *chains,
                         const uint8_t *src, size_t len, sink *s)
{
    trz_cctx *c = settings(format, 1);
    trz_cctx_set(c, TRZ_C_LEVEL, level);
    if (restart >= 0) trz_cctx_set(c, TRZ_C_RESTART_BYTES, restart);
    trz_cctx_set(c, TRZ_C_CHAIN, chain);
    source m = { src, len, 0 };
    trz_io in = { &m, source_read, NULL, NULL, NULL }, out = sink_io(s);
    check(trz_compress(c, &in, &out) == TRZ_OK, "group_bytes: %s compresses", format);
    uint64_t g = trz_cctx_group_bytes(c, chains);
    trz_cctx_free(c);
    return g;
}

static void test_group_bytes(void)
{
    size_t len;
    uint8_t *rst = load("corpus/loops-4cpu.rst", 24 * 3000, &len);
    check(len == 24 * 3000, "read corpus/loops-4cpu.rst (run from the repository root)");
    int chains = -1;
    sink s = { 0 };
    uint64_t g = group_of("rst", 9, -1, 1, &chains, rst, len, &s);
    check(g == 64u << 20 && chains == 1, "rst, level 9: chains of 64 MiB (%llu, %d)", (unsigned long long)g, chains);
    s.n = 0;
    g = group_of("rst", 12, -1, 1, &chains, rst, len, &s);
    check(g == 256u << 20 && chains == 1, "rst, level 12: chains of 256 MiB (%llu)", (unsigned long long)g);
    s.n = 0;
    g = group_of("rst", 9, -1, 0, &chains, rst, len, &s);
    check(g == 256u << 20 && chains == 0, "rst without chains: knowledge over 256 MiB (%llu, %d)",
          (unsigned long long)g, chains);
    s.n = 0;
    g = group_of("rst", 9, 0, 1, &chains, rst, len, &s);
    check(g == 0 && chains == 0, "restart 0: no groups (%llu)", (unsigned long long)g);
    s.n = 0;
    g = group_of("raw", 9, -1, 1, &chains, rst, len, &s);
    check(g == 0 && chains == 0, "raw: no groups (%llu)", (unsigned long long)g);
    /* chunks of 170 records (4,080 bytes) in groups of at most 12,288
     * bytes: a group every 3 chunks, in the archive as the getter says */
    for (int chain = 0; chain <= 1; chain++) {
        s.n = 0;
        g = group_of("rst", 3, 12288, chain, &chains, rst, len, &s);
        check(g == 12288 && chains == chain, "restart 12288, chain %d: %llu, %d", chain, (unsigned long long)g,
              chains);
        trz_reader *r;
        int ok = trz_reader_open_mem(&r, s.p, s.n) == TRZ_OK;
        uint64_t have = 0, first = 0, nchunks = 0;
        trz_chunk_info ci;
        for (uint64_t i = 0; ok && trz_reader_chunk(r, i, &ci) == TRZ_OK; i++, nchunks++) {
            if (i == 0 || have + ci.raw_bytes > g) first = i, have = 0;
            have += ci.raw_bytes;
            int chained;
            ok = trz_reader_chunk_group(r, i, &chained) == (int64_t)first;
        }
        check(ok && nchunks == 18, "chain %d: the archive's %llu chunks start groups where 12,288 bytes say", chain,
              (unsigned long long)nchunks);
        trz_reader_close(r);
    }
    free(s.p);
    free(rst);
}

/* ---- misuse ---- */

/* No write function: refused at open, with a message; closing is safe. */
static void null_write(void)
{
    sink s = { 0 };
    trz_io io = { &s, NULL, NULL, NULL, NULL };
    trz_writer *w = NULL;
    int rc = trz_writer_open(&w, NULL, &io);
    check(rc == TRZ_ERR_PARAM && w && strstr(trz_writer_error(w), "write"),
          "trz_writer_open without a write function: TRZ_ERR_PARAM and a message (%d, '%s')", rc,
          w ? trz_writer_error(w) : "");
    if (w) {
        check(trz_writer_write(w, "x", 1) == TRZ_ERR_PARAM, "a write on a writer refused at open fails");
        check(trz_writer_close(w) == TRZ_ERR_PARAM, "closing a writer refused at open returns the result");
    }
    w = NULL;
    rc = trz_writer_open(&w, NULL, NULL);
    check(rc == TRZ_ERR_PARAM && w && *trz_writer_error(w), "trz_writer_open without an io: TRZ_ERR_PARAM and a message");
    trz_writer_close(w);
    /* trz_compress meets the same output */
    trz_cctx *c = trz_cctx_create();
    source m = { (const uint8_t *)"abc\n", 4, 0 };
    trz_io in = { &m, source_read, NULL, NULL, NULL };
    rc = trz_compress(c, &in, &io);
    check(rc == TRZ_ERR_PARAM && strstr(trz_cctx_error(c), "write"),
          "trz_compress into an output without a write function: TRZ_ERR_PARAM (%d, '%s')", rc, trz_cctx_error(c));
    trz_cctx_free(c);
}

/* NULL where the writer or the data should be. */
static void null_args(void)
{
    check(trz_writer_write(NULL, "x", 1) == TRZ_ERR_PARAM, "trz_writer_write(NULL, ...): TRZ_ERR_PARAM");
    check(trz_writer_finish(NULL) == TRZ_ERR_PARAM, "trz_writer_finish(NULL): TRZ_ERR_PARAM");
    check(trz_writer_close(NULL) == TRZ_OK, "trz_writer_close(NULL) is fine");
    sink s = { 0 };
    trz_io io = sink_io(&s);
    trz_writer *w;
    int rc = trz_writer_open(&w, NULL, &io);
    if (rc == TRZ_OK) rc = trz_writer_write(w, "ab", 2);
    int bad = trz_writer_write(w, NULL, 5);
    check(bad == TRZ_ERR_PARAM && strstr(trz_writer_error(w), "NULL"),
          "trz_writer_write(w, NULL, 5): TRZ_ERR_PARAM and a message ('%s')", trz_writer_error(w));
    if (rc == TRZ_OK) rc = trz_writer_write(w, "c\n", 2);
    if (rc == TRZ_OK) rc = trz_writer_close(w);
    else trz_writer_close(w);
    size_t n;
    uint8_t *back = decode(s.p, s.n, &n);
    check(rc == TRZ_OK && back && n == 4 && memcmp(back, "abc\n", 4) == 0,
          "a refused write changes nothing: the archive holds the other writes");
    free(back);
    free(s.p);
}

/* Writes after finish, finish twice, close after finish. */
static void after_finish(void)
{
    sink s = { 0 };
    trz_io io = sink_io(&s);
    trz_writer *w;
    int rc = trz_writer_open(&w, NULL, &io);
    if (rc == TRZ_OK) rc = trz_writer_write(w, "one\ntwo\n", 8);
    if (rc == TRZ_OK) rc = trz_writer_finish(w);
    check(rc == TRZ_OK, "finish: %s", trz_writer_error(w));
    size_t n = s.n;
    rc = trz_writer_write(w, "three\n", 6);
    check(rc == TRZ_ERR_PARAM && strstr(trz_writer_error(w), "after"),
          "a write after finish: TRZ_ERR_PARAM and a message (%d, '%s')", rc, trz_writer_error(w));
    check(trz_writer_write(w, NULL, 0) == TRZ_ERR_PARAM, "an empty write after finish fails too");
    check(trz_writer_finish(w) == TRZ_OK, "finish twice: the first result again");
    check(trz_writer_close(w) == TRZ_OK, "close after finish: the result");
    check(s.n == n, "nothing is written after finish (%zu bytes, then %zu)", n, s.n);
    uint8_t *back = decode(s.p, s.n, &n);
    check(back && n == 8 && memcmp(back, "one\ntwo\n", 8) == 0, "the archive holds what came before finish");
    free(back);
    free(s.p);
}

/* ---- an output that fails ---- */

static const char *how_name(int how)
{
    return how == FAIL_MINUS1 ? "returns -1" : how == FAIL_SHORT ? "returns a short count" : "returns too many";
}

/* One run that fails at write call `at`: the result, and the message,
 * which names the output and, when the callback set errno, its text. */
static void fail_once(const uint8_t *src, size_t len, int threads, int at, int how, int err, const char *where)
{
    trz_cctx *c = settings("rst", threads);
    sink s = { 0 };
    s.fail_at = at, s.how = how, s.err = err;
    trz_io io = sink_io(&s);
    trz_writer *w;
    int rc = trz_writer_open(&w, c, &io);
    trz_cctx_free(c);
    for (size_t at2 = 0; rc == TRZ_OK && at2 < len; at2 += 1000)
        rc = trz_writer_write(w, src + at2, len - at2 < 1000 ? len - at2 : 1000);
    int when_written = rc;
    if (rc == TRZ_OK) rc = trz_writer_finish(w);
    const char *msg = trz_writer_error(w);
    char what[160];
    snprintf(what, sizeof what, "the output fails at %s (%s, errno %d, %d threads)", where, how_name(how), err, threads);
    check(rc == TRZ_ERR_IO, "%s: TRZ_ERR_IO (%d)", what, rc);
    check(strstr(msg, "write to the output failed") && !strstr(msg, "Success") &&
              (!err || strstr(msg, strerror(err))),
          "%s: the message says what failed ('%s')", what, msg);
    if (when_written != TRZ_OK)
        check(trz_writer_write(w, src, 1) == rc, "%s: the next write returns the error", what);
    check(trz_writer_finish(w) == rc && trz_writer_close(w) == rc, "%s: finish and close return the error", what);
    free(s.p);
}

static void test_failing_output(void)
{
    size_t len;
    uint8_t *src = load("corpus/loops-4cpu.rst", 24 * 1000, &len);
    /* how many write calls a good run makes: the last one writes the index */
    trz_cctx *c = settings("rst", 1);
    sink s = { 0 };
    trz_io io = sink_io(&s);
    trz_writer *w;
    int rc = trz_writer_open(&w, c, &io);
    trz_cctx_free(c);
    if (rc == TRZ_OK) rc = trz_writer_write(w, src, len);
    if (rc == TRZ_OK) rc = trz_writer_close(w);
    else trz_writer_close(w);
    int calls = s.calls;
    free(s.p);
    check(rc == TRZ_OK && calls >= 4, "a good run: %d write calls", calls);
    static const int hows[] = { FAIL_MINUS1, FAIL_SHORT, FAIL_LONG };
    for (int threads = 1; threads <= 2; threads++)
        for (size_t h = 0; h < 3; h++)
            for (int e = 0; e < 2; e++) {
                int err = e ? ENOSPC : 0;
                fail_once(src, len, threads, 1, hows[h], err, "the header");
                fail_once(src, len, threads, 2, hows[h], err, "the first chunk");
                fail_once(src, len, threads, calls, hows[h], err, "the index");
            }
    free(src);
}

int main(void)
{
    in_child("a NULL write function", null_write);
    in_child("NULL arguments", null_args);
    in_child("after finish", after_finish);
    in_child("empty and odd-sized writes", test_roundtrips);
    in_child("the groups' length", test_group_bytes);
    in_child("a failing output", test_failing_output);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
