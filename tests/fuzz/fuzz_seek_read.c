/* fuzz_seek_read.c - fuzz target: random access.  Valid archives are built
 * once from generated records (BYU with a partial last record, PEL bus, uop
 * text with a line longer than a chunk, raw, and two concatenated members);
 * the fuzz input is a list of (record, count) pairs.  Each seek + read must
 * give exactly the source bytes, and a seek past the end TRZ_ERR_RANGE. */
#include "fuzz_common.h"

enum { NARC = 5 };

typedef struct arc {
    const char *format;
    size_t rs;          /* record size, 0 = lines */
    uint8_t *src;
    size_t n;
    uint64_t records;
    fz_out z;           /* the archive */
} arc;

static arc g_arc[NARC];

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* Records that look like traces: slowly moving addresses, few kinds. */
static uint8_t *gen_records(size_t rs, size_t nrec, size_t tail, uint64_t seed)
{
    uint8_t *p = malloc(rs * nrec + tail + 1);
    if (!p) abort();
    uint32_t addr = 0x10000;
    for (size_t i = 0; i < nrec * rs + tail; i++) {
        if (i % rs == 0) addr += (rnd(&seed) % 4) * 4;
        size_t k = i % rs;
        p[i] = k < 4 ? (uint8_t)(addr >> (8 * k)) : (uint8_t)(rnd(&seed) % 3);
    }
    return p;
}

static uint8_t *gen_lines(size_t *n, uint64_t *lines, uint64_t seed)
{
    size_t cap = 64 << 10, len = 0;
    uint8_t *p = malloc(cap);
    if (!p) abort();
    uint64_t nl = 0;
    while (len < cap - 10000) {
        size_t w = nl == 40 ? 9000 : rnd(&seed) % 90; /* one line longer than a chunk */
        for (size_t i = 0; i < w; i++) p[len++] = (uint8_t)('a' + rnd(&seed) % 26);
        p[len++] = '\n';
        nl++;
    }
    memcpy(p + len, "no newline at the end", 21);
    len += 21;
    *n = len;
    *lines = nl + 1;
    return p;
}

static void build(arc *a, const char *format, size_t rs, uint8_t *src, size_t n, uint64_t records, int64_t chunk_rec)
{
    a->format = format;
    a->rs = rs;
    a->src = src;
    a->n = n;
    a->records = records;
    fz_cparams cp = { format, 1, TRZ_BACKEND_ZSTD, 1, 1, 4096, chunk_rec };
    if (fz_compress(&cp, src, n, &a->z, NULL, 0)) abort();
}

static void setup(void)
{
    uint64_t lines;
    size_t n;
    build(&g_arc[0], "byu", 12, gen_records(12, 3001, 5, 1), 12 * 3001 + 5, 3001, 137);
    build(&g_arc[1], "pbus", 6, gen_records(6, 5000, 0, 2), 6 * 5000, 5000, 0);
    uint8_t *t = gen_lines(&n, &lines, 3);
    build(&g_arc[2], "uop", 0, t, n, lines, 100);
    build(&g_arc[3], "raw", 1, gen_records(1, 20000, 0, 4), 20000, 20000, 3000);
    /* two members: the same BYU records twice, cut differently */
    arc *c = &g_arc[4];
    uint8_t *two = malloc(2 * 12 * 2000);
    if (!two) abort();
    memcpy(two, g_arc[0].src, 12 * 2000);
    memcpy(two + 12 * 2000, g_arc[0].src, 12 * 2000);
    build(c, "byu", 12, two, 12 * 2000, 2000, 300);
    fz_cparams cp = { "byu", 2, TRZ_BACKEND_GZIP, 1, 1, 8192, 0 };
    if (fz_compress(&cp, two + 12 * 2000, 12 * 2000, &c->z, NULL, 0)) abort();
    c->n = 2 * 12 * 2000;
    c->records = 4000;
}

static size_t line_start(const uint8_t *p, size_t n, uint64_t k)
{
    size_t i = 0;
    while (k && i < n) {
        const uint8_t *nl = memchr(p + i, '\n', n - i);
        if (!nl) return n;
        i = (size_t)(nl - p) + 1;
        k--;
    }
    return i;
}

/* Seek to `from` and read `count` records (or bytes for text); compare. */
static void probe(trz_reader *r, const arc *a, uint64_t from, size_t count, int bytes)
{
    static uint8_t buf[12 * 256 + 16];
    int rc = trz_seek(r, from);
    if (from > a->records) { if (rc != TRZ_ERR_RANGE) abort(); return; }
    if (rc) { fprintf(stderr, "seek %llu: %s\n", (unsigned long long)from, trz_reader_error(r)); abort(); }
    /* the record count is the very end: a partial last record belongs to the record before it */
    size_t at = from == a->records ? a->n : a->rs ? (size_t)from * a->rs : line_start(a->src, a->n, from);
    if (a->rs == 0 || bytes) {
        size_t want = count * (a->rs ? a->rs : 1);
        int64_t g = trz_read_bytes(r, buf, want);
        size_t expect = a->n - at < want ? a->n - at : want;
        if (g != (int64_t)expect || memcmp(buf, a->src + at, expect) != 0) abort();
    } else {
        int64_t g = trz_read(r, buf, count);
        uint64_t expect = a->records - from < count ? a->records - from : count;
        if (g != (int64_t)expect || memcmp(buf, a->src + at, expect * a->rs) != 0) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) { setup(); ready = 1; }
    fz_data d = { data, size };
    unsigned sel = fz_u8(&d);
    const arc *a = &g_arc[sel % NARC];
    trz_reader *r;
    if (trz_reader_open_mem(&r, a->z.p, a->z.n)) abort();
    trz_reader_set(r, TRZ_R_THREADS, (sel >> 4 & 1) + 1);
    for (int i = 0; i < 64 && d.n >= 5; i++) {
        uint32_t v = fz_u32(&d);
        unsigned c = fz_u8(&d);
        uint64_t from = v % (a->records + 3);
        probe(r, a, from, 1 + c % 256, (c & 1) && (sel & 8));
    }
    trz_reader_close(r);
    return 0;
}
