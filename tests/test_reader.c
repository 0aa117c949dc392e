/* test_reader.c - the reader API against the bytes it was given: sequential
 * reads (trz_read_bytes, trz_read_view, trz_read, trz_foreach) from a path,
 * an fd, a pipe, memory and callbacks without seek; thousands of random seeks including
 * every chunk edge, for fixed-size formats and text; host byte order;
 * decode-ahead threads; concatenated members; and errors (seek past the
 * end, damaged chunks named in the message).  Run from the repository root
 * (it reads corpus/); prints "N passed, M failed" last. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../codecs/rst/rst_int.h"
#include "../src/decompress/decompress.h"
#include "../src/tools/tools.h"

#include "unit.h"
static char tmpdir[64];

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* ---- memory I/O: a growable sink for trz_compress, and sources with or
 * without seek (without = a pipe, with short reads to exercise refills) ---- */
typedef struct mio { const uint8_t *p; size_t n, pos, max_read; trz_buf out; } mio;

static int64_t mio_read(void *o, void *buf, size_t n)
{
    mio *m = o;
    size_t left = m->n - m->pos;
    if (m->max_read && n > m->max_read) n = m->max_read;
    if (n > left) n = left;
    memcpy(buf, m->p + m->pos, n);
    m->pos += n;
    return (int64_t)n;
}
static int64_t mio_write(void *o, const void *buf, size_t n)
{
    mio *m = o;
    trz_put_bytes(&m->out, buf, n);
    return m->out.oom ? -1 : (int64_t)n;
}
static int mio_seek(void *o, uint64_t off)
{
    mio *m = o;
    if (off > m->n) return -1;
    m->pos = (size_t)off;
    return 0;
}
static int64_t mio_size(void *o) { return (int64_t)((mio *)o)->n; }

static trz_io mio_io(mio *m, int seekable)
{
    trz_io io = { m, mio_read, mio_write, seekable ? mio_seek : NULL, seekable ? mio_size : NULL };
    return io;
}

/* ---- a sample: its source bytes, its records, and an archive of it ---- */
typedef struct sample {
    const char *name, *format;
    uint8_t *src;
    size_t len, rs;           /* rs 0 = text */
    uint64_t records;         /* whole records, or lines */
    size_t *line;             /* text: offset of each line start, plus len at [records] */
    uint8_t *trz;
    size_t trz_len;
    char path[96];            /* the archive as a file */
    size_t seeks;             /* random seeks to test (ASan makes each cost a chunk decode) */
} sample;

static uint8_t *load(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) { free(p); p = NULL; }
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* The group length the samples are written with (0: the default). */
static int64_t g_restart;

static uint8_t *compress(const uint8_t *src, size_t len, const char *format, int level, int64_t chunk_records,
                         int64_t chunk_bytes, size_t *out_len)
{
    trz_cctx *c = trz_cctx_create();
    if (g_restart) trz_cctx_set(c, TRZ_C_RESTART_BYTES, g_restart);
    /* the damage these archives take is what a reader cannot mend
     * (tests/parity.sh has what parity mends) */
    trz_cctx_set(c, TRZ_C_PARITY, 0);
    mio in = { src, len, 0, 0, { 0 } }, out = { 0 };
    trz_io iin = mio_io(&in, 0), iout = mio_io(&out, 0);
    trz_cctx_set(c, TRZ_C_LEVEL, level);
    trz_cctx_set_format(c, format);
    if (chunk_records) trz_cctx_set(c, TRZ_C_CHUNK_RECORDS, chunk_records);
    if (chunk_bytes) trz_cctx_set(c, TRZ_C_CHUNK_BYTES, chunk_bytes);
    int rc = trz_compress(c, &iin, &iout);
    if (!check(rc == TRZ_OK, "compress %s: %s", format, trz_cctx_error(c))) { free(out.out.p); out.out.p = NULL; }
    trz_cctx_free(c);
    *out_len = out.out.n;
    return out.out.p;
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    check(f && fwrite(p, 1, n, f) == n && fclose(f) == 0, "write %s", path);
}

static void index_lines(sample *s)
{
    uint64_t n = 0;
    s->line = malloc((s->len + 2) * sizeof *s->line);
    if (s->len) s->line[n++] = 0;
    for (size_t i = 0; i < s->len; i++)
        if (s->src[i] == '\n' && i + 1 < s->len) s->line[n++] = i + 1;
    s->line[n] = s->len;
    s->records = n;
}

static int make_sample(sample *s, const char *name, const char *format, uint8_t *src, size_t len,
                       int64_t chunk_records, int64_t chunk_bytes)
{
    memset(s, 0, sizeof *s);
    s->name = name;
    s->format = format;
    s->src = src;
    s->len = len;
    const trz_codec *k = trz_codec_by_name(format);
    s->rs = k ? k->record_size : 1;
    if (s->rs) s->records = len / s->rs;
    else index_lines(s);
    s->trz = compress(src, len, format, 3, chunk_records, chunk_bytes, &s->trz_len);
    if (!s->trz) { free(s->src); free(s->line); return 0; }
    s->seeks = s->rs ? 2000 : 600;
    snprintf(s->path, sizeof s->path, "%s/%s.trz", tmpdir, name);
    write_file(s->path, s->trz, s->trz_len);
    return 1;
}

static void free_sample(sample *s)
{
    unlink(s->path);
    free(s->src);
    free(s->line);
    free(s->trz);
}

/* bytes and whole-record bytes of record range [a, b) in the source */
static size_t rec_off(const sample *s, uint64_t r) { return s->rs ? (size_t)r * s->rs : s->line[r]; }
static size_t whole_len(const sample *s) { return s->rs ? (size_t)s->records * s->rs : s->len; }

/* ---- sequential reading ---- */
static uint8_t *read_all_bytes(trz_reader *r, size_t cap, size_t *n, int *rc)
{
    trz_buf b = { 0 };
    uint8_t *tmp = malloc(cap);
    *rc = 0;
    for (;;) {
        int64_t k = trz_read_bytes(r, tmp, cap);
        if (k < 0) { *rc = (int)k; break; }
        if (k == 0) break;
        trz_put_bytes(&b, tmp, (size_t)k);
    }
    free(tmp);
    *n = b.n;
    return b.p;
}

static void expect_bytes(trz_reader *r, const sample *s, size_t cap, const char *how)
{
    size_t n;
    int rc;
    uint8_t *p = read_all_bytes(r, cap, &n, &rc);
    check(rc == 0 && n == s->len && (n == 0 || memcmp(p, s->src, n) == 0),
          "%s: trz_read_bytes (cap %zu) via %s: rc %d, %zu of %zu bytes (%s)", s->name, cap, how, rc, n, s->len,
          rc ? trz_reader_error(r) : "bytes differ");
    free(p);
}

/* trz_read_view, alternating with trz_read_bytes: together they must hand
 * out every byte once, in order, and a view never exceeds its cap. */
static void expect_view(trz_reader *r, const sample *s, size_t cap, const char *how)
{
    trz_buf b = { 0 };
    size_t tcap = cap < ((size_t)1 << 20) ? cap : (size_t)1 << 20;
    uint8_t *tmp = malloc(tcap);
    int64_t k;
    int over = 0;
    for (unsigned i = 0;; i++) {
        const void *v = NULL;
        if (i % 3 == 2) {
            k = trz_read_bytes(r, tmp, tcap);
            v = tmp;
        } else {
            k = trz_read_view(r, &v, cap);
        }
        if (k <= 0) break;
        if ((size_t)k > cap || !v) over = 1;
        else trz_put_bytes(&b, v, (size_t)k);
    }
    check(k == 0 && !over && b.n == s->len && (b.n == 0 || memcmp(b.p, s->src, b.n) == 0),
          "%s: trz_read_view (cap %zu) via %s: rc %lld, %zu of %zu bytes%s", s->name, cap, how, (long long)k, b.n,
          s->len, over ? ", a view over its cap" : "");
    free(tmp);
    free(b.p);
}

static void expect_records(trz_reader *r, const sample *s, size_t batch, const char *how)
{
    trz_buf b = { 0 };
    uint8_t *tmp = malloc(batch * s->rs);
    int64_t k;
    while ((k = trz_read(r, tmp, batch)) > 0 && (size_t)k <= batch) trz_put_bytes(&b, tmp, (size_t)k * s->rs);
    check(k == 0 && b.n == whole_len(s) && (b.n == 0 || memcmp(b.p, s->src, b.n) == 0),
          "%s: trz_read (batch %zu) via %s: rc %lld, %zu of %zu bytes", s->name, batch, how, (long long)k, b.n,
          whole_len(s));
    free(tmp);
    free(b.p);
}

typedef struct fe_state { trz_buf b; uint64_t next, records; int order_ok; size_t rs; } fe_state;
static int fe_collect(void *ctx, const void *recs, size_t n, size_t len, uint64_t first)
{
    fe_state *f = ctx;
    if (first != f->next) f->order_ok = 0;
    if (f->rs && len != n * f->rs) f->order_ok = 0;
    f->next = first + n;
    f->records += n;
    /* a text batch is the chunk's bytes from the position on */
    trz_put_bytes(&f->b, recs, len);
    return 0;
}

static void expect_foreach(trz_reader *r, const sample *s, const char *how)
{
    fe_state f = { { 0 }, 0, 0, 1, s->rs };
    int rc = trz_foreach(r, fe_collect, &f);
    check(rc == 0 && f.order_ok && f.records == s->records, "%s: trz_foreach via %s: rc %d, %llu of %llu records%s",
          s->name, how, rc, (unsigned long long)f.records, (unsigned long long)s->records,
          f.order_ok ? "" : ", batches out of order");
    check(f.b.n == whole_len(s) && (f.b.n == 0 || memcmp(f.b.p, s->src, f.b.n) == 0),
          "%s: trz_foreach bytes via %s differ", s->name, how);
    free(f.b.p);
}

/* Open the sample's archive in one of the ways a caller can. */
enum { VIA_PATH, VIA_FD, VIA_MEM, VIA_IO, VIA_PIPE_IO, NVIA };
static const char *const via_name[NVIA] = { "path", "fd", "mem", "io (seekable)", "io (no seek)" };

typedef struct opened { trz_reader *r; int fd; mio m; trz_io io; } opened;

static int open_via(opened *o, const sample *s, int via)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->m.p = s->trz;
    o->m.n = s->trz_len;
    int rc;
    switch (via) {
    case VIA_PATH: rc = trz_reader_open_path(&o->r, s->path); break;
    case VIA_FD: o->fd = open(s->path, O_RDONLY); rc = trz_reader_open_fd(&o->r, o->fd); break;
    case VIA_MEM: rc = trz_reader_open_mem(&o->r, s->trz, s->trz_len); break;
    case VIA_IO: o->io = mio_io(&o->m, 1); rc = trz_reader_open_io(&o->r, &o->io); break;
    default: o->m.max_read = 4093; o->io = mio_io(&o->m, 0); rc = trz_reader_open_io(&o->r, &o->io); break;
    }
    return check(rc == TRZ_OK, "%s: open via %s: %s", s->name, via_name[via], trz_reader_error(o->r));
}

static void close_via(opened *o)
{
    trz_reader_close(o->r);
    if (o->fd >= 0) close(o->fd);
}

static void test_sequential(const sample *s)
{
    static const size_t caps[] = { 1, 7, 4093, 1u << 20 };
    for (int via = 0; via < NVIA; via++) {
        for (int how = 0; how < 4; how++) {
            /* every way of opening with trz_read_bytes; the other calls
             * through a seekable and a non-seekable input each */
            if ((how == 1 && via != VIA_PATH && via != VIA_PIPE_IO) ||
                (how == 2 && (!s->rs || (via != VIA_MEM && via != VIA_PIPE_IO))) ||
                (how == 3 && via != VIA_MEM && via != VIA_PIPE_IO))
                continue;
            opened o;
            if (open_via(&o, s, via)) {
                if (how == 0) expect_bytes(o.r, s, caps[via % 4], via_name[via]);
                else if (how == 1) expect_foreach(o.r, s, via_name[via]);
                else if (how == 2) expect_records(o.r, s, via == VIA_MEM ? 1 : 333, via_name[via]);
                else expect_view(o.r, s, via == VIA_MEM ? 5 : (size_t)1 << 30, via_name[via]);
            }
            close_via(&o);
        }
    }
}

/* A real pipe: a child writes the archive, the reader reads the other end. */
static void test_real_pipe(const sample *s)
{
    int fds[2];
    if (!check(pipe(fds) == 0, "pipe")) return;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        size_t off = 0;
        while (off < s->trz_len) {
            ssize_t k = write(fds[1], s->trz + off, s->trz_len - off);
            if (k <= 0) _exit(1);
            off += (size_t)k;
        }
        _exit(0);
    }
    close(fds[1]);
    trz_reader *r;
    int rc = trz_reader_open_fd(&r, fds[0]);
    trz_info info;
    if (check(rc == TRZ_OK, "%s: open a pipe fd: %s", s->name, trz_reader_error(r))) {
        trz_reader_info(r, &info);
        check(!info.seekable && info.records == -1, "%s: a pipe is not seekable", s->name);
        check(trz_seek(r, 0) == TRZ_OK, "%s: trz_seek forward on a pipe: %s", s->name, trz_reader_error(r));
        expect_bytes(r, s, 65536, "a pipe fd");
        check(trz_seek(r, 0) == TRZ_ERR_UNSUPPORTED, "%s: trz_seek back on a pipe must be TRZ_ERR_UNSUPPORTED", s->name);
    }
    trz_reader_close(r);
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
}

/* ---- info ---- */
static void test_info(const sample *s)
{
    trz_reader *r;
    if (trz_reader_open_mem(&r, s->trz, s->trz_len) != TRZ_OK) { trz_reader_close(r); return; }
    trz_info i;
    trz_reader_info(r, &i);
    check(i.seekable && i.records == (int64_t)s->records && i.raw_bytes == (int64_t)s->len &&
          i.record_size == s->rs && i.compressed_bytes == (int64_t)s->trz_len && i.members == 1,
          "%s: info: seekable %d records %lld (want %llu) raw %lld (want %zu) record_size %u", s->name, i.seekable,
          (long long)i.records, (unsigned long long)s->records, (long long)i.raw_bytes, s->len, i.record_size);
    check(strcmp(i.format, s->format) == 0, "%s: format %s, want %s", s->name, i.format, s->format);
    trz_reader_close(r);
}

/* ---- random access ---- */

/* After a seek to rec, the next k records must be the source's. */
static int read_at_record(trz_reader *r, const sample *s, uint64_t rec, uint64_t k, char *why, size_t wlen)
{
    int rc = trz_seek(r, rec);
    if (rc) { snprintf(why, wlen, "seek: %s", trz_reader_error(r)); return 0; }
    size_t off = rec_off(s, rec), want = rec_off(s, rec + k) - off;
    uint8_t *buf = malloc(want + 1);
    int64_t got = 0;
    if (s->rs) {
        while ((uint64_t)got < k) {
            int64_t n = trz_read(r, buf + (size_t)got * s->rs, k - (uint64_t)got);
            if (n <= 0) break;
            got += n;
        }
        got *= (int64_t)s->rs;
    } else {
        while ((size_t)got < want) {
            int64_t n = trz_read_bytes(r, buf + got, want - (size_t)got);
            if (n <= 0) break;
            got += n;
        }
    }
    int ok = (size_t)got == want && memcmp(buf, s->src + off, want) == 0;
    if (!ok) snprintf(why, wlen, "got %lld of %zu bytes%s", (long long)got, want, (size_t)got == want ? ", differing" : "");
    free(buf);
    return ok;
}

static void seek_targets(trz_reader *r, const sample *s, uint64_t **out, size_t *nout, size_t want)
{
    trz_info i;
    trz_reader_info(r, &i);
    size_t cap = want + 3 * (size_t)i.chunks + 8, n = 0;
    uint64_t *t = malloc(cap * sizeof *t);
    if (s->records) { t[n++] = 0; t[n++] = s->records - 1; }
    for (int64_t c = 0; c < i.chunks; c++) {
        trz_chunk_info ci;
        if (trz_reader_chunk(r, (uint64_t)c, &ci) || ci.records == 0) continue;
        if (ci.first_record) t[n++] = ci.first_record - 1;
        t[n++] = ci.first_record;
        t[n++] = ci.first_record + ci.records - 1;
    }
    while (n < want && s->records) t[n++] = rnd() % s->records;
    *out = t;
    *nout = n;
}

static void test_seeks(const sample *s, int threads, size_t want)
{
    trz_reader *r;
    if (trz_reader_open_mem(&r, s->trz, s->trz_len) != TRZ_OK) { trz_reader_close(r); return; }
    trz_reader_set(r, TRZ_R_THREADS, threads < 1 ? 1 : threads);
    trz_reader_set(r, TRZ_R_OVERLAP, threads < 1); /* -1: one thread, overlapping */
    uint64_t *t;
    size_t n, bad = 0;
    seek_targets(r, s, &t, &n, want);
    char why[160];
    for (size_t i = 0; i < n; i++) {
        uint64_t k = 1 + rnd() % 3;
        if (k > s->records - t[i]) k = s->records - t[i];
        if (!read_at_record(r, s, t[i], k, why, sizeof why) && bad++ < 3)
            printf("  %s: record %llu (+%llu): %s\n", s->name, (unsigned long long)t[i], (unsigned long long)k, why);
    }
    check(bad == 0 && n >= (want < 10 ? want : 10), "%s: %zu seeks with %d thread(s), %zu wrong", s->name, n,
          threads, bad);
    /* the end: seeking to the record count is allowed; what follows is at
     * most the partial last record, and trz_read reads nothing */
    uint8_t b[64];
    size_t tail = s->len - whole_len(s);
    int64_t got = trz_seek(r, s->records) == TRZ_OK ? trz_read_bytes(r, b, sizeof b) : -1;
    check(got == 0 || (got == (int64_t)tail && memcmp(b, s->src + whole_len(s), tail) == 0),
          "%s: seek to the end: %lld bytes follow", s->name, (long long)got);
    if (s->rs) check(trz_seek(r, s->records) == TRZ_OK && trz_read(r, b, 1) == 0, "%s: trz_read at the end", s->name);
    check(trz_seek(r, s->records + 1) == TRZ_ERR_RANGE, "%s: seek past the end must be TRZ_ERR_RANGE", s->name);
    check(trz_seek(r, UINT64_MAX) == TRZ_ERR_RANGE, "%s: seek to UINT64_MAX must be TRZ_ERR_RANGE", s->name);
    /* after an error the reader still seeks */
    if (s->records) check(read_at_record(r, s, s->records / 2, 1, why, sizeof why), "%s: seek after a range error: %s",
                          s->name, why);
    free(t);
    trz_reader_close(r);
}

/* trz_foreach from a seek position starts at that record. */
static void test_seek_foreach(const sample *s)
{
    if (!s->records) return;
    trz_reader *r;
    if (trz_reader_open_path(&r, s->path) != TRZ_OK) { trz_reader_close(r); return; }
    uint64_t at = s->records / 3 + 1;
    fe_state f = { { 0 }, at, 0, 1, s->rs };
    int rc = trz_seek(r, at);
    if (!rc) rc = trz_foreach(r, fe_collect, &f);
    check(rc == 0 && f.order_ok && f.records == s->records - at, "%s: seek to %llu then trz_foreach: rc %d, %llu records",
          s->name, (unsigned long long)at, rc, (unsigned long long)f.records);
    if (s->rs)
        check(f.b.n == whole_len(s) - rec_off(s, at) && memcmp(f.b.p, s->src + rec_off(s, at), f.b.n) == 0,
              "%s: bytes after seek + trz_foreach differ", s->name);
    free(f.b.p);
    trz_reader_close(r);
}

/* ---- decode-ahead threads ---- */
static trz_reader *open_threads(const sample *s, int threads)
{
    trz_reader *r;
    if (trz_reader_open_path(&r, s->path) == TRZ_OK && trz_reader_set(r, TRZ_R_THREADS, threads) == TRZ_OK) return r;
    check(0, "%s: open with %d threads: %s", s->name, threads, trz_reader_error(r));
    trz_reader_close(r);
    return NULL;
}

static void test_threads(const sample *s)
{
    for (int th = 2; th <= 4; th += 2) {
        char how[32];
        snprintf(how, sizeof how, "path, %d threads", th);
        trz_reader *r;
        if ((r = open_threads(s, th))) expect_bytes(r, s, 100000, how);
        trz_reader_close(r);
        if (s->rs && (r = open_threads(s, th))) {
            if (th == 2) expect_foreach(r, s, how);
            else expect_records(r, s, 777, how);
            trz_reader_close(r);
        }
        if (th == 4) {
            mio m = { s->trz, s->trz_len, 0, 1000, { 0 } };
            trz_io io = mio_io(&m, 0);
            snprintf(how, sizeof how, "no-seek io, %d threads", th);
            if (trz_reader_open_io(&r, &io) == TRZ_OK && trz_reader_set(r, TRZ_R_THREADS, th) == TRZ_OK)
                expect_bytes(r, s, 100000, how);
            trz_reader_close(r);
        }
        test_seeks(s, th, 25);
    }
    /* TRZ_R_OVERLAP: one thread decoding a chunk ahead on a worker, through
     * the index, as a stream, by records and across seeks */
    trz_reader *r;
    if ((r = open_threads(s, 1))) {
        check(trz_reader_set(r, TRZ_R_OVERLAP, 1) == TRZ_OK, "%s: TRZ_R_OVERLAP 1", s->name);
        expect_bytes(r, s, 100000, "path, overlap");
        trz_reader_close(r);
    }
    if (s->rs && (r = open_threads(s, 1))) {
        trz_reader_set(r, TRZ_R_OVERLAP, 1);
        expect_records(r, s, 777, "path, overlap");
        trz_reader_close(r);
    }
    mio m = { s->trz, s->trz_len, 0, 1000, { 0 } };
    trz_io io = mio_io(&m, 0);
    if (trz_reader_open_io(&r, &io) == TRZ_OK && trz_reader_set(r, TRZ_R_OVERLAP, 1) == TRZ_OK)
        expect_bytes(r, s, 100000, "no-seek io, overlap");
    trz_reader_close(r);
    test_seeks(s, -1, 25);
}

/* The thread count changed while reading from a stream (no index to
 * replay a chain from): every group goes on with the lane it began on, and
 * every byte comes once, in order. */
static void test_thread_change(const sample *s)
{
    mio m = { s->trz, s->trz_len, 0, 1000, { 0 } };
    trz_io io = mio_io(&m, 0);
    trz_reader *r;
    if (!check(trz_reader_open_io(&r, &io) == TRZ_OK, "%s: open (no seek)", s->name)) { trz_reader_close(r); return; }
    static const int th[] = { 3, 1, 2, 4, 1 };
    trz_buf b = { 0 };
    uint8_t *tmp = malloc(7777);
    int64_t k = 1;
    for (unsigned i = 0; k > 0; i++) {
        if (i % 5 == 0) trz_reader_set(r, TRZ_R_THREADS, th[(i / 5) % 5]);
        if ((k = trz_read_bytes(r, tmp, 7777)) > 0) trz_put_bytes(&b, tmp, (size_t)k);
    }
    check(k == 0 && b.n == s->len && memcmp(b.p, s->src, b.n) == 0,
          "%s: threads changed while reading a stream: rc %lld, %zu of %zu bytes (%s)", s->name, (long long)k, b.n,
          s->len, k < 0 ? trz_reader_error(r) : "bytes differ");
    free(tmp);
    free(b.p);
    trz_reader_close(r);
}

/* ---- host byte order ---- */
static int host_order(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one ? TRZ_BO_LITTLE : TRZ_BO_BIG;
}

/* What "field by field in host order" means for each format: the codec's
 * convert when it has one; else, for RST, the codec's own BE<->LE record
 * permutation, and for PEL bus the big-endian address. */
static void expected_host(const sample *s, int bo, uint8_t *p, size_t len)
{
    const trz_codec *k = trz_codec_by_name(s->format);
    int host = host_order();
    if (bo == host || bo == TRZ_BO_NONE) return;
    if (k->convert) { k->convert(p, len, bo, host); return; }
    if (k->id == TRZ_CODEC_RST) {
        uint8_t tmp[RST_REC];
        for (size_t i = 0; i + RST_REC <= len; i += RST_REC) {
            if (bo == TRZ_BO_BIG) rst_from_canon(tmp, p + i);
            else rst_to_canon(tmp, p + i);
            memcpy(p + i, tmp, RST_REC);
        }
    } else if (k->id == TRZ_CODEC_PBUS) {
        for (size_t i = 0; i + 6 <= len; i += 6) {
            uint8_t a = p[i], b = p[i + 1];
            p[i] = p[i + 3]; p[i + 1] = p[i + 2]; p[i + 2] = b; p[i + 3] = a;
        }
    }
}

static void test_host_order(const sample *s)
{
    trz_reader *r;
    if (trz_reader_open_path(&r, s->path) != TRZ_OK) { trz_reader_close(r); return; }
    trz_info info;
    trz_reader_info(r, &info);
    size_t whole = whole_len(s);
    uint8_t *want = malloc(whole + 1), *got = malloc(whole + 1);
    memcpy(want, s->src, whole);
    expected_host(s, info.byte_order, want, whole);
    check(trz_reader_set(r, TRZ_R_HOST_ORDER, 1) == TRZ_OK, "set TRZ_R_HOST_ORDER");
    int64_t n = 0, k;
    while ((k = trz_read(r, got + (size_t)n * s->rs, 1000)) > 0) n += k;
    check(k == 0 && (size_t)n * s->rs == whole && memcmp(got, want, whole) == 0,
          "%s (%s-endian): trz_read with TRZ_R_HOST_ORDER does not give the records in host order%s", s->name,
          info.byte_order == TRZ_BO_BIG ? "big" : "little",
          memcmp(got, s->src, whole) == 0 ? " (they come back unconverted)" : "");
    trz_reader_close(r);
    /* trz_foreach converts the same way */
    if (trz_reader_open_path(&r, s->path) == TRZ_OK) {
        fe_state f = { { 0 }, 0, 0, 1, s->rs };
        trz_reader_set(r, TRZ_R_HOST_ORDER, 1);
        int rc = trz_foreach(r, fe_collect, &f);
        check(rc == 0 && f.b.n == whole && memcmp(f.b.p, want, whole) == 0,
              "%s: trz_foreach with TRZ_R_HOST_ORDER differs from the host-order records", s->name);
        free(f.b.p);
    }
    trz_reader_close(r);
    /* and without it, records come back exactly as stored */
    if (trz_reader_open_path(&r, s->path) == TRZ_OK) expect_records(r, s, 1000, "path, stored order");
    trz_reader_close(r);
    free(want);
    free(got);
}

/* ---- damaged chunks ---- */
static int says_chunk(const trz_reader *r, uint64_t c)
{
    char pat[40];
    snprintf(pat, sizeof pat, "chunk %llu", (unsigned long long)c);
    const char *e = trz_reader_error(r);
    const char *at = strstr(e, pat);
    return at && (at[strlen(pat)] < '0' || at[strlen(pat)] > '9');
}

static void test_damage(const sample *s)
{
    trz_reader *r;
    trz_chunk_info ci;
    trz_info info;
    if (trz_reader_open_mem(&r, s->trz, s->trz_len) != TRZ_OK) { trz_reader_close(r); return; }
    trz_reader_info(r, &info);
    uint64_t c = (uint64_t)info.chunks / 2;
    int ok = info.chunks >= 3 && trz_reader_chunk(r, c, &ci) == TRZ_OK;
    trz_reader_close(r);
    if (!check(ok, "%s: needs 3 chunks or more for the damage test", s->name)) return;
    uint8_t *bad = malloc(s->trz_len);
    memcpy(bad, s->trz, s->trz_len);
    bad[ci.offset + ci.stored_bytes - 5] ^= 0x40; /* inside the chunk's compressed data */
    sample d = *s;
    d.trz = bad;
    for (int via = VIA_MEM; via <= VIA_PIPE_IO; via++) {
        for (int th = 1; th <= 4; th += 3) {
            opened o;
            if (!open_via(&o, &d, via)) { close_via(&o); continue; }
            trz_reader_set(o.r, TRZ_R_THREADS, th);
            size_t n;
            int rc;
            uint8_t *p = read_all_bytes(o.r, 65536, &n, &rc);
            check(rc < 0 && says_chunk(o.r, c), "%s, chunk %llu damaged, via %s, %d thread(s): rc %d, message \"%s\"",
                  s->name, (unsigned long long)c, via_name[via], th, rc, trz_reader_error(o.r));
            check(n <= ci.first_byte && (n == 0 || memcmp(p, s->src, n) == 0),
                  "%s: bytes handed out before the damaged chunk are wrong or too many (%zu > %llu)", s->name, n,
                  (unsigned long long)ci.first_byte);
            check(trz_read_bytes(o.r, p ? p : bad, 1) < 0, "%s: a read after the failure must fail too", s->name);
            free(p);
            close_via(&o);
        }
    }
    /* a seek into the damaged chunk fails and names it; other chunks still read */
    if (trz_reader_open_mem(&r, bad, s->trz_len) == TRZ_OK) {
        int rc = trz_seek(r, ci.first_record + ci.records / 2);
        uint8_t b[64];
        if (rc == TRZ_OK) rc = (int)trz_read_bytes(r, b, 1);
        check(rc < 0 && says_chunk(r, c), "%s: seek into damaged chunk %llu: rc %d, message \"%s\"", s->name,
              (unsigned long long)c, rc, trz_reader_error(r));
    }
    trz_reader_close(r);
    if (trz_reader_open_mem(&r, bad, s->trz_len) == TRZ_OK) {
        char why[160];
        check(read_at_record(r, s, 0, 1, why, sizeof why), "%s: chunk 0 must read with chunk %llu damaged: %s",
              s->name, (unsigned long long)c, why);
    }
    trz_reader_close(r);
    free(bad);
}

/* A chunk whose arithmetic-coded bus stream starts with a model variant
 * this version does not know (5, an earlier mixed model), sealed with valid
 * checksums as another version would have written it: reading it fails with
 * TRZ_ERR_UNSUPPORTED and a message that names the chunk and the cause. */
static void test_variant(void)
{
    size_t len, n = 0;
    uint8_t *src = load("corpus/bus-2cpu.byu", &len);
    if (!check(src != NULL, "load corpus/bus-2cpu.byu")) return;
    uint8_t *z = compress(src, len, "byu", 9, 0, 0, &n); /* level 9: the arithmetic path */
    int ok = z != NULL;
    trz_reader *r = NULL;
    trz_chunk_info ci;
    trz_chunk_hdr h;
    size_t need;
    ok = ok && trz_reader_open_mem(&r, z, n) == TRZ_OK && trz_reader_chunk(r, 0, &ci) == TRZ_OK &&
         trz_chunk_parse_hdr(z + ci.offset, n - ci.offset, &h, &need) == TRZ_OK;
    trz_reader_close(r);
    size_t at = 0;
    int k = 0;
    if (ok) {
        at = ci.offset + h.hdr_len;
        while (k < h.nstreams && h.sid[k] != 15) at += h.csize[k++];
    }
    if (!check(ok && k < h.nstreams && h.backend[k] == TRZ_BACKEND_STORE && h.csize[k] > 0,
               "variant: chunk 0 holds a stored arithmetic-coded stream")) {
        free(z);
        free(src);
        return;
    }
    z[at] = 5;
    uint8_t *hp = z + ci.offset;
    size_t chk = h.hdr_len - 4; /* (the place of a chunk of version 5 before its stream table) */
    trz_st_le32(hp + 24, trz_xxh32low(hp + h.hdr_len, (size_t)h.payload));
    trz_st_le32(hp + chk, trz_xxh32low(hp, chk));
    if (trz_reader_open_mem(&r, z, n) == TRZ_OK) {
        size_t got;
        int rc;
        free(read_all_bytes(r, 65536, &got, &rc));
        check(rc == TRZ_ERR_UNSUPPORTED && says_chunk(r, 0) && strstr(trz_reader_error(r), "model variant"),
              "variant: an unknown model variant is reported as such: rc %d, message \"%s\"", rc,
              trz_reader_error(r));
    } else {
        check(0, "variant: open: %s", trz_reader_error(r));
    }
    trz_reader_close(r);
    free(z);
    free(src);
}

/* ---- the encoder's self-check ---- */

/* A codec that writes valid byu streams of other data (one address bit
 * flipped): only decoding what was written and comparing can tell. */
static uint8_t *g_wrong;
static int wrong_encode(const trz_enc_args *a, trz_model *m)
{
    trz_enc_args b = *a;
    memcpy(g_wrong, a->in, a->len);
    g_wrong[12 * 5 + 1] ^= 0x10;
    b.in = g_wrong;
    return trz_variant_for_level(&trz_codec_byu, a->level)->encode(&b, m);
}

static void test_selfcheck(void)
{
    size_t len;
    uint8_t *src = load("corpus/bus-2cpu.byu", &len);
    if (!check(src != NULL, "load corpus/bus-2cpu.byu")) return;
    len = len / 12 * 12;
    if (len > 12 * 20000) len = 12 * 20000;
    trz_codec wrong = trz_codec_byu;
    trz_variant wv[8];
    if (!check(wrong.nvariants <= 8, "byu has at most 8 variants")) return;
    for (unsigned i = 0; i < wrong.nvariants; i++) {
        wv[i] = wrong.variants[i];
        if (wv[i].encode) wv[i].encode = wrong_encode;
    }
    wrong.variants = wv;
    g_wrong = malloc(len);
    uint8_t *out = malloc(len);
    trz_zctx *z = trz_zctx_create();
    for (int k = 0; k < 4 && g_wrong && out && z; k++) {
        int level = k & 1 ? 9 : 1, verify = k < 2;
        trz_chunk_job job;
        memset(&job, 0, sizeof job);
        job.codec = &wrong;
        job.raw = src;
        job.raw_len = len;
        job.nrec = (uint32_t)(len / 12);
        job.byte_order = TRZ_BO_LITTLE;
        job.level = level;
        job.backend = TRZ_BACKEND_ZSTD;
        job.verify = verify;
        trz_chunk_encode(&job, z);
        trz_chunk_hdr h;
        size_t need;
        char err[160] = "";
        int rc = job.result == TRZ_OK ? trz_chunk_parse_hdr(job.out.p, job.out.n, &h, &need) : job.result;
        if (rc == TRZ_OK) rc = trz_chunk_decode(&h, job.out.p, job.out.n, out, z, NULL, NULL, err, sizeof err);
        if (verify)
            check(rc == TRZ_OK && h.codec == TRZ_CODEC_RAW && memcmp(out, src, len) == 0,
                  "self-check, level %d: a codec whose output decodes to other data falls back to raw (rc %d)",
                  level, rc);
        else /* the same chunk unchecked: the damage is real, and the reader's checksum finds it */
            check(job.result == TRZ_OK && h.codec == TRZ_CODEC_BYU && rc == TRZ_ERR_CHECKSUM,
                  "self-check off, level %d: the wrong chunk is kept and fails its checksum (rc %d)", level, rc);
        free(job.out.p);
    }
    trz_zctx_free(z);
    free(out);
    free(g_wrong);
    free(src);
}

/* ---- concatenated members, empty archives, not-trz input ---- */
static void test_members(const sample *s)
{
    size_t half = s->rs ? (s->len / s->rs / 2) * s->rs : s->line[s->records / 2];
    size_t la, lb;
    uint8_t *a = compress(s->src, half, s->format, 3, 1000, 0, &la);
    uint8_t *b = compress(s->src + half, s->len - half, s->format, 3, 1000, 0, &lb);
    if (!a || !b) { free(a); free(b); return; }
    uint8_t *cat = malloc(la + lb);
    memcpy(cat, a, la);
    memcpy(cat + la, b, lb);
    sample m = *s;
    m.trz = cat;
    m.trz_len = la + lb;
    trz_reader *r;
    if (trz_reader_open_mem(&r, cat, la + lb) == TRZ_OK) {
        trz_info i;
        trz_reader_info(r, &i);
        check(i.members == 2 && i.records == (int64_t)s->records, "%s: 2 members: members %lld records %lld",
              s->name, (long long)i.members, (long long)i.records);
        expect_bytes(r, s, 5000, "two members");
    }
    trz_reader_close(r);
    mio p = { cat, la + lb, 0, 777, { 0 } };
    trz_io io = mio_io(&p, 0);
    if (trz_reader_open_io(&r, &io) == TRZ_OK) expect_bytes(r, s, 5000, "two members, no seek");
    trz_reader_close(r);
    test_seeks(&m, 1, 300);
    free(a);
    free(b);
    free(cat);
}

static void test_misc(void)
{
    size_t n;
    uint8_t *e = compress((const uint8_t *)"", 0, "rst", 3, 0, 0, &n);
    trz_reader *r = NULL;
    if (e && trz_reader_open_mem(&r, e, n) == TRZ_OK) {
        trz_info i;
        uint8_t b[24];
        trz_reader_info(r, &i);
        check(i.records == 0 && trz_read(r, b, 1) == 0 && trz_read_bytes(r, b, 24) == 0, "empty archive reads nothing");
        check(trz_seek(r, 0) == TRZ_OK && trz_seek(r, 1) == TRZ_ERR_RANGE, "empty archive: seek 0 ok, 1 out of range");
    } else {
        check(0, "open an empty archive");
    }
    trz_reader_close(r);
    free(e);
    static const char junk[] = "this is not a trz archive at all, just some text\n";
    check(trz_reader_open_mem(&r, junk, sizeof junk - 1) == TRZ_ERR_NOT_TRZ, "junk must be TRZ_ERR_NOT_TRZ");
    trz_reader_close(r);
    check(trz_reader_open_path(&r, "/nonexistent/x.trz") == TRZ_ERR_IO && *trz_reader_error(r),
          "a missing file must be TRZ_ERR_IO with a message");
    trz_reader_close(r);
}

/* ---- the samples ---- */
static uint8_t *text_with_long_lines(size_t *len)
{
    /* lines of 0..12000 bytes, some longer than a 4 KiB chunk, no final newline */
    trz_buf b = { 0 };
    for (int i = 0; i < 400; i++) {
        size_t n = rnd() % 8 == 0 ? 4096 + rnd() % 8000 : rnd() % 120;
        for (size_t j = 0; j < n; j++) trz_put_u8(&b, (uint8_t)('a' + (i + j) % 26));
        trz_put_u8(&b, '\n');
    }
    trz_put_bytes(&b, "last line", 9);
    *len = b.n;
    return b.p;
}

static int add_file_sample(sample *s, const char *name, const char *path, const char *format, int64_t recs,
                           int64_t bytes)
{
    size_t len;
    uint8_t *p = load(path, &len);
    if (!check(p != NULL, "read %s (run from the repository root)", path)) return 0;
    return make_sample(s, name, format, p, len, recs, bytes);
}

/* ---- the push-style writer: any cut of the writes, the archive
 * trz_compress makes; errors as the header says ---- */
static int64_t fail_write(void *o, const void *buf, size_t n)
{
    (void)o, (void)buf, (void)n;
    errno = ENOSPC;
    return -1;
}

static void test_writer(const sample *s)
{
    size_t want_len;
    uint8_t *want = compress(s->src, s->len, s->format, 3, 0, 8192, &want_len);
    for (int threads = 1; threads <= 2 && want; threads++) {
        trz_cctx *c = trz_cctx_create();
        trz_cctx_set(c, TRZ_C_LEVEL, 3);
        trz_cctx_set(c, TRZ_C_CHUNK_BYTES, 8192);
        trz_cctx_set(c, TRZ_C_THREADS, threads);
        trz_cctx_set(c, TRZ_C_PARITY, 0); /* (as compress() writes them) */
        trz_cctx_set_format(c, s->format);
        mio out = { 0 };
        trz_io io = mio_io(&out, 0);
        trz_writer *w;
        int rc = trz_writer_open(&w, c, &io);
        trz_cctx_free(c); /* the writer has its copy */
        size_t at = 0, max = s->rs ? 3 * s->rs + 5 : 200;
        while (rc == TRZ_OK && at < s->len) { /* pieces of 0 .. max bytes, cutting records anywhere */
            size_t k = (size_t)(rnd() % (max + 1));
            if (k > s->len - at) k = s->len - at;
            rc = trz_writer_write(w, s->src + at, k);
            at += k;
        }
        if (rc == TRZ_OK) rc = trz_writer_finish(w);
        check(rc == TRZ_OK && out.out.n == want_len && memcmp(out.out.p, want, want_len) == 0,
              "%s: the writer with %d threads: %s (%zu bytes, trz_compress %zu)", s->name, threads,
              trz_writer_error(w), out.out.n, want_len);
        check(trz_writer_write(w, s->src, 1) != TRZ_OK && *trz_writer_error(w),
              "%s: a write after finish fails with a message", s->name);
        check(trz_writer_close(w) == TRZ_OK, "%s: close after finish returns its result", s->name);
        free(out.out.p);
    }
    free(want);
}

static void test_writer_errors(void)
{
    trz_writer *w;
    trz_io io = { NULL, NULL, fail_write, NULL, NULL };
    int rc = trz_writer_open(&w, NULL, &io);
    uint8_t buf[70000] = { 0 };
    if (rc == TRZ_OK) rc = trz_writer_write(w, buf, sizeof buf);
    if (rc == TRZ_OK) rc = trz_writer_finish(w);
    check(rc == TRZ_ERR_IO && strstr(trz_writer_error(w), "write"), "a failing output: %d, '%s'", rc,
          trz_writer_error(w));
    trz_writer_close(w);
    trz_writer_close(NULL);
    char path[160];
    snprintf(path, sizeof path, "%s/no/such/dir/x.trz", tmpdir);
    rc = trz_writer_open_path(&w, NULL, path);
    check(rc == TRZ_ERR_IO && strstr(trz_writer_error(w), "no/such"), "a path that cannot be written: '%s'",
          trz_writer_error(w));
    trz_writer_close(w);
    snprintf(path, sizeof path, "%s/w.trz", tmpdir);
    rc = trz_writer_open_path(&w, NULL, path);
    if (rc == TRZ_OK) rc = trz_writer_write(w, "abc\n", 4);
    check(access(path, F_OK) != 0, "the path appears only when the writer finishes");
    rc = trz_writer_close(w);
    trz_reader *r = NULL;
    uint8_t back[8];
    check(rc == TRZ_OK && trz_reader_open_path(&r, path) == TRZ_OK && trz_read_bytes(r, back, 8) == 4 &&
          memcmp(back, "abc\n", 4) == 0, "a writer into a path: the archive decodes");
    trz_reader_close(r);
    unlink(path);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/trz-test-reader.XXXXXX");
    if (!mkdtemp(tmpdir)) { perror("mkdtemp"); return 1; }
    sample S[10];
    int n = 0;
    n += add_file_sample(&S[n], "rst-be", "corpus/loops-4cpu.rst", "rst", 1000, 0);
    if (add_file_sample(&S[n], "rst-le", "corpus/blaze-like-1cpu-le.rst", "rst", 1000, 0)) S[n++].seeks = 1000;
    n += add_file_sample(&S[n], "byu-tail", "corpus/bus-2cpu.byu", "byu", 1000, 0);
    n += add_file_sample(&S[n], "pbus", "corpus/bus-1cpu.pbus", "pbus", 1000, 0);
    n += add_file_sample(&S[n], "uop", "corpus/sjeng-like.trace", "uop", 0, 16384);
    n += add_file_sample(&S[n], "uop-lines", "corpus/tabs-variant.trace", "uop", 100, 0);
    size_t len = 100003;
    uint8_t *rb = malloc(len);
    for (size_t i = 0; i < len; i++) rb[i] = (uint8_t)(rnd() >> 17);
    n += make_sample(&S[n], "raw", "raw", rb, len, 0, 4096);
    uint8_t *tx = text_with_long_lines(&len);
    n += make_sample(&S[n], "long-lines", "uop", tx, len, 0, 4096);
    /* chains of three chunks: with threads, groups decode on lanes of their
     * own while earlier ones are served */
    g_restart = 3 * 24000;
    n += add_file_sample(&S[n], "rst-groups", "corpus/loops-4cpu.rst", "rst", 1000, 0);
    g_restart = 3 * 16384;
    n += add_file_sample(&S[n], "uop-groups", "corpus/sjeng-like.trace", "uop", 0, 16384);
    g_restart = 0;
    for (int i = 0; i < n; i++) {
        const sample *s = &S[i];
        test_info(s);
        test_sequential(s);
        test_seeks(s, 1, s->seeks);
        test_seek_foreach(s);
        test_threads(s);
        test_thread_change(s);
        test_damage(s);
        if (s->rs > 1) test_host_order(s);
        if (!strcmp(s->name, "rst-be") || !strcmp(s->name, "uop")) { test_real_pipe(s); test_members(s); }
        test_writer(s);
    }
    test_writer_errors();
    test_misc();
    test_variant();
    test_selfcheck();
    for (int i = 0; i < n; i++) free_sample(&S[i]);
    rmdir(tmpdir);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
