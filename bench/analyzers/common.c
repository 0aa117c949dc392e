/* common.c - the analyzers' input layer: a .trz file through the reader API
 * (trz_foreach, or trz_read into a big buffer, with optional decode-ahead
 * threads), or a raw trace from a file or stdin through read(2); plus the
 * cache model's setup.  Both paths hand the analysis the same batches of
 * whole records, so their outputs can be compared byte for byte. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common.h"

#define RAW_BUF_BYTES (4u << 20)
#define READ_BATCH_BYTES (8u << 20)

long an_parse_count(const char *s)
{
    char *end;
    if (!s || !*s || *s == '-') return -1;
    long v = strtol(s, &end, 10);
    return *end ? -1 : v;
}

int an_open(an_input *in, const char *prog, const char *path)
{
    in->via_api = 0;
    in->format = "raw";
    in->byte_order = TRZ_BYTE_ORDER_NONE;
    in->reader = NULL;
    in->fd = -1;
    if (strcmp(path, "-") == 0) { in->fd = 0; return 0; }
    int rc = trz_reader_open_path(&in->reader, path);
    if (rc == TRZ_OK) {
        trz_info info;
        trz_reader_info(in->reader, &info);
        in->via_api = 1;
        in->format = info.format;
        in->byte_order = info.byte_order;
        in->archive_record_size = info.record_size;
        return 0;
    }
    int not_trz = rc == TRZ_ERR_NOT_TRZ;
    if (!not_trz) fprintf(stderr, "%s: %s: %s\n", prog, path, trz_reader_error(in->reader));
    trz_reader_close(in->reader);
    in->reader = NULL;
    if (!not_trz) return -1;
    in->fd = open(path, O_RDONLY); /* not a .trz: a raw trace */
    if (in->fd < 0) { fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno)); return -1; }
    return 0;
}

void an_close(an_input *in)
{
    trz_reader_close(in->reader);
    if (in->fd > 0) close(in->fd);
    in->reader = NULL;
    in->fd = -1;
}

/* ---- byte streams (raw input, or an archive whose records are not rs) ---- */
static int64_t src_read(an_input *in, uint8_t *buf, size_t n)
{
    if (in->reader) return trz_read_bytes(in->reader, buf, n);
    for (;;) {
        ssize_t k = read(in->fd, buf, n);
        if (k >= 0 || errno != EINTR) return k;
    }
}

/* A raw trace that is a compressed file: its bytes are no records (an
 * .xz read as records gave nonsense counts and exit 0).  The compressor's
 * name by its magic bytes, or NULL. */
static const char *compressed_by(const uint8_t *p, size_t n)
{
    static const struct { const char *name; size_t len; uint8_t magic[6]; } m[] = {
        { "gzip", 3, { 0x1f, 0x8b, 8 } }, /* deflate, the only method gzip names */
        { "xz", 6, { 0xfd, '7', 'z', 'X', 'Z', 0 } },
        { "bzip2", 3, { 'B', 'Z', 'h' } },
        { "zstd", 4, { 0x28, 0xb5, 0x2f, 0xfd } },
        { "lz4", 4, { 0x04, 0x22, 0x4d, 0x18 } },
        { "zip", 4, { 'P', 'K', 3, 4 } },
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (n >= m[i].len && memcmp(p, m[i].magic, m[i].len) == 0) return m[i].name;
    return NULL;
}

/* Fill the buffer (short reads from pipes are common), hand out its whole
 * records, and carry a partial record over to the next round.  Raw input
 * that turns out to be a compressed file is refused. */
static int run_stream(an_input *in, const char *prog, size_t rs, an_batch_fn fn, void *ctx)
{
    size_t cap = RAW_BUF_BYTES / rs * rs, have = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) { fprintf(stderr, "%s: out of memory\n", prog); return -1; }
    int rc = 0, eof = 0, first = 1;
    while (!eof && rc == 0) {
        while (have < cap) {
            int64_t k = src_read(in, buf + have, cap - have);
            if (k < 0) {
                if (in->reader) fprintf(stderr, "%s: %s\n", prog, trz_reader_error(in->reader));
                else fprintf(stderr, "%s: read error: %s\n", prog, strerror(errno));
                free(buf);
                return -1;
            }
            if (k == 0) { eof = 1; break; }
            have += (size_t)k;
        }
        const char *z = in->reader || !first ? NULL : compressed_by(buf, have);
        first = 0;
        if (z) {
            fprintf(stderr, "%s: the input is %s-compressed, not records: compress it with trz (trz FILE unwraps it) "
                    "or decompress it first\n", prog, z);
            free(buf);
            return -1;
        }
        size_t n = have / rs;
        if (n) rc = fn(ctx, buf, n);
        memmove(buf, buf + n * rs, have - n * rs);
        have -= n * rs;
    }
    free(buf);
    return rc;
}

/* The analyzers' batch functions take records only. */
typedef struct fe_ctx { an_batch_fn fn; void *ctx; } fe_ctx;
static int fe_cb(void *p, const void *recs, size_t n, size_t len, uint64_t first)
{
    fe_ctx *f = p;
    (void)first;
    (void)len;
    return f->fn(f->ctx, recs, n);
}

static int run_read(an_input *in, const char *prog, size_t rs, an_batch_fn fn, void *ctx)
{
    size_t max = READ_BATCH_BYTES / rs;
    uint8_t *buf = malloc(max * rs);
    if (!buf) { fprintf(stderr, "%s: out of memory\n", prog); return -1; }
    int rc = 0;
    for (;;) {
        int64_t n = trz_read(in->reader, buf, max);
        if (n < 0) { fprintf(stderr, "%s: %s\n", prog, trz_reader_error(in->reader)); rc = -1; break; }
        if (n == 0 || (rc = fn(ctx, buf, (size_t)n)) != 0) break;
    }
    free(buf);
    return rc;
}

int an_run(an_input *in, const char *prog, size_t rs, an_batch_fn fn, void *ctx)
{
    if (!in->via_api || in->archive_record_size != rs) {
        if (in->reader && in->threads != 1) trz_reader_set(in->reader, TRZ_R_THREADS, in->threads);
        return run_stream(in, prog, rs, fn, ctx);
    }
    if (in->threads != 1 && trz_reader_set(in->reader, TRZ_R_THREADS, in->threads) != TRZ_OK) {
        fprintf(stderr, "%s: bad thread count %d\n", prog, in->threads);
        return -1;
    }
    if (in->use_read) return run_read(in, prog, rs, fn, ctx);
    fe_ctx f = { fn, ctx };
    int rc = trz_foreach(in->reader, fe_cb, &f); /* the batch functions never return < 0 */
    if (rc < 0) {
        fprintf(stderr, "%s: %s\n", prog, trz_reader_error(in->reader));
        return -1;
    }
    return rc;
}

/* ---- cache model ---- */
int an_cache_init(an_cache *c, size_t size_bytes, unsigned line_bytes)
{
    size_t sets = size_bytes / line_bytes / AN_CACHE_WAYS;
    c->line_shift = 0;
    while ((1u << c->line_shift) < line_bytes) c->line_shift++;
    c->set_mask = (unsigned)sets - 1;
    c->accesses = c->hits = 0;
    c->tags = calloc(sets * AN_CACHE_WAYS, sizeof *c->tags);
    return c->tags ? 0 : -1;
}

void an_cache_free(an_cache *c)
{
    free(c->tags);
    c->tags = NULL;
}

const char *an_pct(char *buf, size_t len, uint64_t part, uint64_t total)
{
    if (total == 0) snprintf(buf, len, "-");
    else snprintf(buf, len, "%.2f", 100.0 * (double)part / (double)total);
    return buf;
}
