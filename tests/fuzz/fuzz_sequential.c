/* fuzz_sequential.c - fuzz target: the reader without an index, on archives
 * whose chunks were cut out, repeated, moved, damaged or cut short.  Valid
 * archives are built once (BYU in chains of three chunks, the same with
 * carried knowledge, chunks on their own, and uop text in chains); the fuzz
 * input is a list of operations on an archive's chunk list (drop, repeat,
 * move a chunk, flip a byte in one, cut the archive short) that rebuilds it
 * from whole chunks, the index as it was.  The result is read as a pipe, as
 * a whole and from a record on, with one and two threads:
 *   - without salvage, a read that ends without error gave exactly the
 *     original (or, from record k, the original from k on);
 *   - with salvage, the bytes handed out are the original less exactly the
 *     ranges reported lost (chunks out of place are skipped, never given
 *     twice), whenever every loss has its numbers.
 * A chunk never needs its index to know its place: that is what this
 * holds the reader to. */
#include <xxhash.h>

#include "archive.h"
#include "fuzz_common.h"

enum { NARC = 4, MAXC = 64 };

typedef struct arc {
    uint8_t *src;
    size_t n, rs;
    fz_out z;
    size_t off[MAXC + 1]; /* chunk offsets; off[nc] is the index */
    unsigned nc;
    size_t hdr;           /* the member header's length */
} arc;

static arc g_arc[NARC];


static uint8_t *gen_lines(size_t *n, uint64_t seed)
{
    size_t cap = 24 << 10, len = 0;
    uint8_t *p = malloc(cap);
    if (!p) abort();
    while (len < cap - 200) {
        size_t w = fz_rnd(&seed) % 90;
        for (size_t i = 0; i < w; i++) p[len++] = (uint8_t)('a' + fz_rnd(&seed) % 26);
        p[len++] = '\n';
    }
    *n = len;
    return p;
}

static void build(arc *a, const char *format, size_t rs, uint8_t *src, size_t n, int64_t chunk_rec, int64_t restart,
                  int chain)
{
    a->src = src;
    a->n = n;
    a->rs = rs;
    trz_cctx *c = trz_cctx_create();
    if (!c || trz_cctx_set(c, TRZ_C_LEVEL, 1) || trz_cctx_set(c, TRZ_C_CHUNK_BYTES, 4096) ||
        trz_cctx_set(c, TRZ_C_CHUNK_RECORDS, chunk_rec) || trz_cctx_set(c, TRZ_C_RESTART_BYTES, restart) ||
        trz_cctx_set(c, TRZ_C_CHAIN, chain) || trz_cctx_set(c, TRZ_C_UNWRAP, 0) || trz_cctx_set_format(c, format))
        abort();
    fz_in in;
    trz_io iio, oio;
    fz_io_in(&iio, &in, src, n, 0, 0);
    fz_io_out(&oio, &a->z);
    if (trz_compress(c, &iio, &oio)) abort();
    trz_cctx_free(c);
    static ar_map map;
    ar_walk(a->z.p, a->z.n, &map, 0);
    if (!map.complete || map.nm != 1 || map.nc > MAXC) abort();
    a->nc = map.nc;
    for (unsigned i = 0; i < map.nc; i++) a->off[i] = map.c[i].off;
    a->off[map.nc] = map.m[0].index;
    a->hdr = a->off[0];
}

static void setup(void)
{
    build(&g_arc[0], "byu", 12, fz_gen_records(12, 12 * 3000, 1), 12 * 3000, 250, 9000, 1);  /* chains of 3 chunks */
    build(&g_arc[1], "byu", 12, fz_gen_records(12, 12 * 3000, 2), 12 * 3000, 250, 9000, 0);  /* knowledge groups */
    build(&g_arc[2], "byu", 12, fz_gen_records(12, 12 * 3000, 3), 12 * 3000, 250, 0, 1);     /* chunks on their own */
    size_t n;
    uint8_t *t = gen_lines(&n, 4);
    build(&g_arc[3], "uop", 0, t, n, 60, 6000, 1);
}

/* The archive rebuilt from the input's operations. */
static size_t mutate(const arc *a, fz_data *d, uint8_t *out, size_t cap)
{
    unsigned ord[MAXC * 2];
    unsigned n = a->nc;
    for (unsigned i = 0; i < n; i++) ord[i] = i;
    int flip_c = -1;
    size_t flip_at = 0, cut = 0;
    for (int k = 0; k < 4 && d->n >= 2; k++) {
        unsigned op = fz_u8(d), arg = fz_u8(d);
        unsigned i = n ? arg % n : 0;
        switch (op % 6) {
        case 0: /* drop chunk i */
            if (n > 1) { memmove(ord + i, ord + i + 1, (n - i - 1) * sizeof *ord); n--; }
            break;
        case 1: /* repeat chunk i after itself */
            if (n < MAXC * 2 - 1) { memmove(ord + i + 1, ord + i, (n - i) * sizeof *ord); n++; }
            break;
        case 2: /* move chunk i to another place */
            if (n > 1) {
                unsigned c = ord[i], j = fz_u8(d) % n;
                memmove(ord + i, ord + i + 1, (n - i - 1) * sizeof *ord);
                memmove(ord + j + 1, ord + j, (n - 1 - j) * sizeof *ord);
                ord[j] = c;
            }
            break;
        case 3: /* a byte of chunk i flipped */
            flip_c = (int)i;
            flip_at = fz_u8(d);
            break;
        case 4: /* the archive cut short */
            cut = 1 + fz_u8(d) * 64;
            break;
        default: break; /* as it is */
        }
    }
    size_t at = 0;
    memcpy(out, a->z.p, a->hdr);
    at = a->hdr;
    for (unsigned k = 0; k < n; k++) {
        unsigned c = ord[k];
        size_t len = a->off[c + 1] - a->off[c];
        if (at + len > cap) break;
        memcpy(out + at, a->z.p + a->off[c], len);
        if ((int)k == flip_c) out[at + flip_at % len] ^= 0x20;
        at += len;
    }
    size_t tail = a->z.n - a->off[a->nc];
    if (at + tail <= cap) {
        memcpy(out + at, a->z.p + a->off[a->nc], tail);
        at += tail;
    }
    if (cut && cut < at) at -= cut;
    return at;
}

/* The original less the lost ranges, when each has its numbers: 1 and
 * *want filled; 0 when a loss is not known exactly. */
static int expected(const arc *a, trz_reader *r, fz_out *want)
{
    size_t nl = trz_reader_lost(r, NULL, 0);
    trz_lost_range *l = malloc((nl + 1) * sizeof *l);
    if (!l) abort();
    trz_reader_lost(r, l, nl);
    int ok = 1;
    uint8_t *drop = calloc(a->n + 1, 1);
    if (!drop) abort();
    for (size_t i = 0; i < nl && ok; i++) {
        int kind = trz_reader_lost_kind(r, i);
        if (kind == TRZ_LOST_EXTRA) continue; /* skipped, its records given where they belong */
        if (kind == TRZ_LOST_UNPLACED || l[i].first_byte == UINT64_MAX || l[i].raw_bytes == UINT64_MAX ||
            l[i].first_byte + l[i].raw_bytes > a->n) {
            ok = 0;
            break;
        }
        memset(drop + l[i].first_byte, 1, (size_t)l[i].raw_bytes);
    }
    for (size_t i = 0; ok && i < a->n; i++)
        if (!drop[i]) fz_out_write(want, a->src + i, 1);
    free(drop);
    free(l);
    return ok;
}

static size_t rec_off(const arc *a, uint64_t k)
{
    if (a->rs) return k * a->rs < a->n ? (size_t)(k * a->rs) : a->n;
    size_t i = 0;
    while (k && i < a->n) {
        const uint8_t *nl = memchr(a->src + i, '\n', a->n - i);
        if (!nl) return a->n;
        i = (size_t)(nl - a->src) + 1;
        k--;
    }
    return i;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) { setup(); ready = 1; }
    fz_data d = { data, size };
    unsigned sel = fz_u8(&d);
    const arc *a = &g_arc[sel % NARC];
    static uint8_t buf[1 << 18];
    size_t n = mutate(a, &d, buf, sizeof buf);
    int threads = (sel >> 4 & 1) + 1;
    uint64_t from = d.n ? fz_u32(&d) % (a->rs ? a->n / a->rs + 2 : 400) : 0;

    for (int salvage = 0; salvage < 2; salvage++) {
        fz_in in;
        trz_io io;
        fz_io_in(&io, &in, buf, n, 1000 + (sel >> 5) * 777, 0); /* a pipe, short reads */
        trz_reader *r;
        int rc = trz_reader_open_io(&r, &io);
        if (rc && salvage && r && trz_reader_set(r, TRZ_R_SALVAGE, 1) == TRZ_OK) rc = 0;
        if (rc) { trz_reader_close(r); continue; }
        trz_reader_set(r, TRZ_R_THREADS, threads);
        if (salvage) trz_reader_set(r, TRZ_R_SALVAGE, 1);
        fz_out got = { 0 };
        int64_t end = fz_read_all(r, &got, 0, NULL);
        if (!salvage && end == 0 && (got.n != a->n || memcmp(got.p, a->src, a->n) != 0)) {
            fprintf(stderr, "wrong bytes with no error (%zu of %zu)\n", got.n, a->n);
            abort();
        }
        if (salvage && end == 0) {
            fz_out want = { 0 };
            if (expected(a, r, &want) && (got.n != want.n || (want.n && memcmp(got.p, want.p, want.n) != 0))) {
                fprintf(stderr, "salvage: %zu bytes out, the original less the losses is %zu\n", got.n, want.n);
                abort();
            }
            free(want.p);
        }
        free(got.p);
        trz_reader_close(r);
    }

    /* from record `from` on, without salvage: the original from there, or an error */
    fz_in in;
    trz_io io;
    fz_io_in(&io, &in, buf, n, 4096, 0);
    trz_reader *r;
    if (trz_reader_open_io(&r, &io) == TRZ_OK && trz_seek(r, from) == TRZ_OK) {
        trz_reader_set(r, TRZ_R_THREADS, threads);
        fz_out got = { 0 };
        size_t at = rec_off(a, from);
        if (fz_read_all(r, &got, 0, NULL) == 0 && (got.n != a->n - at || memcmp(got.p, a->src + at, got.n) != 0)) {
            fprintf(stderr, "from record %llu: wrong bytes with no error\n", (unsigned long long)from);
            abort();
        }
        free(got.p);
    }
    trz_reader_close(r);
    return 0;
}
