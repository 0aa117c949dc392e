/* drfile_gen.h - small synthetic drmemtrace files for the file layer's
 * tests and fuzz seeds: a thread's records the way raw2trace lays them out
 * (header markers, encodings, instructions, memory records, a
 * CHUNK_FOOTER ending every member but the last), and the containers
 * DynamoRIO and other tools put them in: zip (minizip's framing, or
 * another tool's with dates, extra fields, data descriptors, stored
 * members), gzip, lz4 frames (fed as lz4_ostream_t feeds them) and snappy
 * framing (as snappy_file_writer_t cuts it).  Deterministic: a seed in,
 * the same bytes out. */
#ifndef TRZ_TESTS_DRFILE_GEN_H
#define TRZ_TESTS_DRFILE_GEN_H

#include <lz4frame.h>
#include <snappy-c.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct gbuf {
    uint8_t *p;
    size_t n, cap;
} gbuf;

static void g_put(gbuf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap : 4096;
        while (nc < b->n + n) nc *= 2;
        uint8_t *np = realloc(b->p, nc);
        if (!np) abort();
        b->p = np;
        b->cap = nc;
    }
    if (n) memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void g_le(gbuf *b, uint64_t v, int bytes)
{
    uint8_t t[8];
    for (int i = 0; i < bytes; i++) t[i] = (uint8_t)(v >> (8 * i));
    g_put(b, t, (size_t)bytes);
}

static void g_rec(gbuf *b, unsigned type, unsigned size, uint64_t addr)
{
    g_le(b, type, 2);
    g_le(b, size, 2);
    g_le(b, addr, 8);
}

static uint64_t g_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A thread of `ninstr` instructions in members of `per` instructions:
 * the records into *out, the end of each member into bounds[] (*nb of
 * them, at most maxb). */
static void g_records(gbuf *out, uint64_t seed, size_t ninstr, size_t per, size_t *bounds, size_t *nb, size_t maxb)
{
    uint64_t s = seed | 1;
    g_rec(out, 25, 0, 7);          /* HEADER, version 7 */
    g_rec(out, 28, 12, 7);         /* VERSION */
    g_rec(out, 28, 9, 0xe40);      /* FILETYPE */
    g_rec(out, 22, 4, 4242);       /* THREAD */
    g_rec(out, 24, 4, 4242);       /* PID */
    g_rec(out, 28, 10, 64);        /* CACHE_LINE_SIZE */
    g_rec(out, 28, 20, per);       /* CHUNK_INSTR_COUNT */
    g_rec(out, 28, 18, 4096);      /* PAGE_SIZE */
    g_rec(out, 28, 2, 13300000000000000ull + seed % 1000); /* TIMESTAMP */
    g_rec(out, 28, 3, 5);          /* CPU_ID */
    uint64_t pc = 0x401000, loop = pc, data = 0x7ffd0000;
    *nb = 0;
    for (size_t i = 0; i < ninstr; i++) {
        unsigned len = 1 + (unsigned)(g_rng(&s) % 7);
        if (pc - loop < 64) g_rec(out, 47, len, g_rng(&s) & ((1ull << (8 * len)) - 1)); /* ENCODING */
        g_rec(out, 10, len, pc);
        unsigned r = (unsigned)(g_rng(&s) % 8);
        if (r < 3) g_rec(out, r == 2 ? 1 : 0, 8, data + 8 * (g_rng(&s) % 16));
        pc += len;
        if (pc - loop > 200) pc = loop; /* a loop: what makes traces compress */
        if (g_rng(&s) % 5000 == 0) loop = pc = 0x401000 + (g_rng(&s) % 4096);
        if (per && (i + 1) % per == 0 && i + 1 < ninstr && *nb + 1 < maxb) {
            g_rec(out, 28, 21, *nb); /* CHUNK_FOOTER */
            bounds[(*nb)++] = out->n;
            g_rec(out, 28, 22, i);   /* RECORD_ORDINAL */
        }
    }
    g_rec(out, 23, 4, 4242); /* THREAD_EXIT */
    g_rec(out, 26, 0, 0);    /* FOOTER */
    bounds[(*nb)++] = out->n;
}

/* Raw deflate of n bytes with zlib's settings. */
static void g_deflate(gbuf *out, const uint8_t *p, size_t n, int level, int mem, int strategy)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, -15, mem, strategy) != Z_OK) abort();
    uint8_t buf[1 << 14];
    z.next_in = (Bytef *)p;
    z.avail_in = (uInt)n;
    int rc;
    do {
        z.next_out = buf;
        z.avail_out = sizeof buf;
        rc = deflate(&z, Z_FINISH);
        g_put(out, buf, sizeof buf - z.avail_out);
    } while (rc == Z_OK);
    deflateEnd(&z);
}

/* How a zip is made: DynamoRIO's minizip writer is { 6, 8, 0, 4 or 8, 0... }. */
typedef struct zip_style {
    int level, mem, strategy; /* level 0: members stored */
    int width;                /* digits of chunk.NNNN */
    int other_tool;           /* dates, version made by 3.0/Unix, an extra field, attributes */
    int descriptor;           /* sizes and CRC after the data (flag 3) */
} zip_style;

/* Member m made as styles[m % ns] says (the width of the first names them all). */
static void g_zip_styles(gbuf *out, const uint8_t *rec, const size_t *bounds, size_t nb, const zip_style *styles,
                         size_t ns)
{
    gbuf cd = { 0 };
    size_t start = 0;
    for (size_t m = 0; m < nb; m++) {
        const zip_style *st = &styles[m % ns];
        const uint8_t *d = rec + start;
        size_t n = bounds[m] - start;
        start = bounds[m];
        char name[32];
        snprintf(name, sizeof name, "chunk.%0*u", styles[0].width, (unsigned)m);
        gbuf c = { 0 };
        if (st->level) g_deflate(&c, d, n, st->level, st->mem, st->strategy);
        else g_put(&c, d, n);
        uint32_t crc = (uint32_t)crc32(0, d, (uInt)n);
        size_t off = out->n, nl = strlen(name);
        unsigned flags = st->descriptor ? 8 : 0, method = st->level ? 8 : 0;
        uint32_t dostime = st->other_tool ? 0x5a3c6b21u : 0;
        static const uint8_t ut[] = { 'U', 'T', 5, 0, 3, 0x21, 0x43, 0x65, 0x87 };
        size_t xl = st->other_tool ? sizeof ut : 0;
        g_le(out, 0x04034b50, 4);
        g_le(out, 20, 2);
        g_le(out, flags, 2);
        g_le(out, method, 2);
        g_le(out, dostime, 4);
        g_le(out, st->descriptor ? 0 : crc, 4);
        g_le(out, st->descriptor ? 0 : c.n, 4);
        g_le(out, st->descriptor ? 0 : n, 4);
        g_le(out, nl, 2);
        g_le(out, xl, 2);
        g_put(out, name, nl);
        g_put(out, ut, xl);
        g_put(out, c.p, c.n);
        if (st->descriptor) {
            g_le(out, 0x08074b50, 4);
            g_le(out, crc, 4);
            g_le(out, c.n, 4);
            g_le(out, n, 4);
        }
        g_le(&cd, 0x02014b50, 4);
        g_le(&cd, st->other_tool ? 0x031e : 0, 2);
        g_le(&cd, 20, 2);
        g_le(&cd, flags, 2);
        g_le(&cd, method, 2);
        g_le(&cd, dostime, 4);
        g_le(&cd, crc, 4);
        g_le(&cd, c.n, 4);
        g_le(&cd, n, 4);
        g_le(&cd, nl, 2);
        g_le(&cd, xl, 2);
        g_le(&cd, 0, 2);
        g_le(&cd, 0, 2);
        g_le(&cd, 0, 2);
        g_le(&cd, st->other_tool ? 0x81a40000u : 0, 4);
        g_le(&cd, off, 4);
        g_put(&cd, name, nl);
        g_put(&cd, ut, xl);
        free(c.p);
    }
    size_t cdoff = out->n;
    g_put(out, cd.p, cd.n);
    g_le(out, 0x06054b50, 4);
    g_le(out, 0, 4);
    g_le(out, nb, 2);
    g_le(out, nb, 2);
    g_le(out, cd.n, 4);
    g_le(out, cdoff, 4);
    g_le(out, 0, 2);
    free(cd.p);
}

static void g_zip(gbuf *out, const uint8_t *rec, const size_t *bounds, size_t nb, const zip_style *st)
{
    g_zip_styles(out, rec, bounds, nb, st, 1);
}

/* gzip members: zlib gzopen("wb")'s header, or one with a name and a time. */
static void g_gzip(gbuf *out, const uint8_t *p, size_t n, int level, int named)
{
    static const uint8_t plain[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
    static const uint8_t withname[10] = { 0x1f, 0x8b, 8, 8, 0x21, 0x43, 0x65, 0x57, 0, 3 };
    g_put(out, named ? withname : plain, 10);
    if (named) g_put(out, "drmemtrace.trace", 17);
    g_deflate(out, p, n, level, 8, 0);
    g_le(out, crc32(0, p, (uInt)n), 4);
    g_le(out, n, 4);
}

/* An lz4 frame fed in pieces of `feed` bytes (DynamoRIO: 1 MiB, defaults). */
static void g_lz4(gbuf *out, const uint8_t *p, size_t n, size_t feed, const LZ4F_preferences_t *pr)
{
    LZ4F_cctx *c;
    if (LZ4F_isError(LZ4F_createCompressionContext(&c, LZ4F_VERSION))) abort();
    size_t cap = LZ4F_compressBound(feed, pr) + 64;
    uint8_t *buf = malloc(cap);
    size_t r = LZ4F_compressBegin(c, buf, cap, pr);
    g_put(out, buf, r);
    for (size_t i = 0; i < n; i += feed) {
        size_t k = n - i < feed ? n - i : feed;
        r = LZ4F_compressUpdate(c, buf, cap, p + i, k, NULL);
        if (LZ4F_isError(r)) abort();
        g_put(out, buf, r);
    }
    r = LZ4F_compressEnd(c, buf, cap, NULL);
    g_put(out, buf, r);
    free(buf);
    LZ4F_freeCompressionContext(c);
}

static uint32_t g_crc32c(const uint8_t *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    }
    return c ^ 0xffffffffu;
}

/* snappy framing as DynamoRIO's writer makes it: a chunk per block of the
 * given sizes (cycled), compressed when that is shorter; crc = 0 uses
 * DynamoRIO's no-CRC chunk types; pad adds a padding chunk first. */
static void g_snappy(gbuf *out, const uint8_t *p, size_t n, const size_t *sizes, size_t nsizes, int crc, int pad)
{
    g_put(out, "\xff\x06\x00\x00sNaPpY", 10);
    if (pad) g_put(out, "\xfe\x03\x00\x00\x00\x00\x00", 7);
    uint8_t *c = malloc(snappy_max_compressed_length(65536));
    for (size_t i = 0, k = 0; i < n; k++) {
        size_t b = sizes[k % nsizes];
        if (b > n - i) b = n - i;
        size_t cl = snappy_max_compressed_length(65536);
        snappy_compress((const char *)p + i, b, (char *)c, &cl);
        int packed = cl < b;
        size_t dl = packed ? cl : b;
        g_le(out, (packed ? 0 : 1) + (crc ? 0 : 2) + ((dl + (crc ? 4 : 0)) << 8), 4);
        if (crc) {
            uint32_t v = g_crc32c(p + i, b);
            g_le(out, ((v >> 15) | (v << 17)) + 0xa282ead8u, 4);
        }
        g_put(out, packed ? c : p + i, dl);
        i += b;
    }
    free(c);
}

#endif
