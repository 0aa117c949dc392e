/* craft.c - write hostile .trz archives whose checksums are all correct, so
 * that only the size checks stand between them and the allocator: chunks
 * that claim huge raw or stream sizes, too many streams, huge index counts
 * and member sizes, huge parameter blocks, zstd and zlib bombs that expand
 * far beyond the size they declare, payload sizes that lie, thousands of
 * members, and garbage full of magics for the salvage scanner.
 * tests/reliability.sh runs trz on each and bounds its time and memory.
 * Usage: craft OUTDIR   (writes OUTDIR/<case>.trz; prints one line per case:
 * its name and the exit status trz must give, 1 or 0 for a valid one) */
#define ZSTD_STATIC_LINKING_ONLY
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

#include "fuzz_common.h"

static uint32_t low32(const void *p, size_t n) { return (uint32_t)XXH3_64bits(p, n); }

static void put(fz_out *b, const void *p, size_t n) { fz_out_write(b, p, n); }
static void put8(fz_out *b, unsigned v) { uint8_t c = (uint8_t)v; put(b, &c, 1); }
static void put16(fz_out *b, unsigned v) { put8(b, v & 255); put8(b, v >> 8 & 255); }
static void put32(fz_out *b, uint32_t v) { put16(b, v & 0xffff); put16(b, v >> 16); }
static void put64(fz_out *b, uint64_t v) { put32(b, (uint32_t)v); put32(b, (uint32_t)(v >> 32)); }

typedef struct stream {
    unsigned sid, backend;
    uint32_t csize, rsize;   /* as declared */
    const uint8_t *data;     /* the payload bytes actually written */
    size_t len;
} stream;

typedef struct entry { uint64_t off, rec, byte; uint32_t nrec, raw, stored; unsigned codec; } entry;

typedef struct member {
    fz_out b;
    size_t start;
    entry e[64];
    unsigned n;
    uint64_t rec, byte;
} member;

static void member_begin(member *m, fz_out *out, unsigned codec, unsigned rsize, unsigned plen)
{
    (void)out;
    m->start = m->b.n;
    m->n = 0;
    m->rec = m->byte = 0;
    size_t h = m->b.n;
    put(&m->b, "\x89TRZ", 4);
    put8(&m->b, 1);          /* format version */
    put8(&m->b, codec);
    put8(&m->b, 0);          /* byte order */
    put8(&m->b, 0);
    put32(&m->b, rsize);     /* record size of the codec */
    put32(&m->b, 0);
    put32(&m->b, 1u << 24);  /* chunk bytes */
    put8(&m->b, 9);
    put8(&m->b, 1);
    put16(&m->b, plen);
    for (unsigned i = 0; i < plen; i++) put8(&m->b, 0);
    put32(&m->b, low32(m->b.p + h, 24 + plen));
}

static void chunk(member *m, unsigned codec, uint32_t nrec, uint32_t raw, unsigned nstreams, const stream *s)
{
    size_t h = m->b.n;
    size_t payload = 0;
    fz_out pl = { 0 };
    for (unsigned k = 0; k < nstreams; k++) put(&pl, s[k].data, s[k].len);
    payload = pl.n;
    put(&m->b, "TZCK", 4);
    put8(&m->b, codec);
    put8(&m->b, 0);
    put8(&m->b, nstreams);
    put8(&m->b, 0);
    put32(&m->b, nrec);
    put32(&m->b, raw);
    /* XXH3 of the decoded bytes: right for a stored raw chunk, else never reached */
    put64(&m->b, XXH3_64bits(pl.p ? pl.p : (const uint8_t *)"", payload));
    put32(&m->b, low32(pl.p ? pl.p : (const uint8_t *)"", payload));
    for (unsigned k = 0; k < nstreams; k++) {
        put8(&m->b, s[k].sid);
        put8(&m->b, s[k].backend);
        put32(&m->b, s[k].csize);
        put32(&m->b, s[k].rsize);
    }
    put32(&m->b, low32(m->b.p + h, m->b.n - h));
    put(&m->b, pl.p, payload);
    free(pl.p);
    if (m->n < 64) {
        entry *e = &m->e[m->n++];
        *e = (entry){ h - m->start, m->rec, m->byte, nrec, raw, (uint32_t)(m->b.n - h), codec };
    }
    m->rec += nrec;
    m->byte += raw;
}

/* Index and footer; count and member size as given when not 0. */
static void member_end(member *m, uint32_t count, uint64_t msize)
{
    size_t ix = m->b.n;
    put(&m->b, "TZIX", 4);
    put32(&m->b, count ? count : m->n);
    for (unsigned i = 0; i < m->n; i++) {
        put64(&m->b, m->e[i].off);
        put64(&m->b, m->e[i].rec);
        put64(&m->b, m->e[i].byte);
        put32(&m->b, m->e[i].nrec);
        put32(&m->b, m->e[i].raw);
        put32(&m->b, m->e[i].stored);
        put8(&m->b, m->e[i].codec);
        put8(&m->b, 0);
        put16(&m->b, 0);
    }
    uint32_t chk = low32(m->b.p + ix, m->b.n - ix);
    uint64_t size = m->b.n + 24 - m->start;
    put64(&m->b, ix - m->start);
    put64(&m->b, msize ? msize : size);
    put32(&m->b, chk);
    put(&m->b, "TZEN", 4);
}

static const char *g_dir;

static void save(const char *name, const fz_out *b)
{
    int valid = strcmp(name, "members-30000") == 0;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.trz", g_dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->p, 1, b->n, f) != b->n || fclose(f)) { perror(path); exit(1); }
    printf("%s %d\n", name, valid ? 0 : 1);
}

/* A one-chunk raw-codec archive with the given streams. */
static void one_chunk(const char *name, uint32_t nrec, uint32_t raw, unsigned ns, const stream *s)
{
    member m = { 0 };
    member_begin(&m, NULL, 0, 1, 0);
    chunk(&m, 0, nrec, raw, ns, s);
    member_end(&m, 0, 0);
    save(name, &m.b);
    free(m.b.p);
}

/* `total` zero bytes compressed as a magicless zstd frame (trz's streams). */
static fz_out zstd_bomb(size_t total)
{
    fz_out o = { 0 };
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_format, ZSTD_f_zstd1_magicless);
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
    static uint8_t zero[1 << 20], buf[1 << 16];
    for (size_t done = 0; done < total;) {
        size_t n = total - done < sizeof zero ? total - done : sizeof zero;
        done += n;
        ZSTD_inBuffer in = { zero, n, 0 };
        ZSTD_EndDirective mode = done == total ? ZSTD_e_end : ZSTD_e_continue;
        size_t left;
        do {
            ZSTD_outBuffer ob = { buf, sizeof buf, 0 };
            left = ZSTD_compressStream2(c, &ob, &in, mode);
            if (ZSTD_isError(left)) { fprintf(stderr, "zstd: %s\n", ZSTD_getErrorName(left)); exit(1); }
            fz_out_write(&o, buf, ob.pos);
        } while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
    }
    ZSTD_freeCCtx(c);
    return o;
}

static fz_out zlib_bomb(size_t total)
{
    fz_out o = { 0 };
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit(&z, 9);
    static uint8_t zero[1 << 20], buf[1 << 16];
    for (size_t done = 0; done < total;) {
        size_t n = total - done < sizeof zero ? total - done : sizeof zero;
        done += n;
        z.next_in = zero;
        z.avail_in = (uInt)n;
        int flush = done == total ? Z_FINISH : Z_NO_FLUSH, rc;
        do {
            z.next_out = buf;
            z.avail_out = sizeof buf;
            rc = deflate(&z, flush);
            fz_out_write(&o, buf, sizeof buf - z.avail_out);
        } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    }
    deflateEnd(&z);
    return o;
}

int main(int argc, char **argv)
{
    if (argc != 2) { fprintf(stderr, "usage: craft OUTDIR\n"); return 2; }
    g_dir = argv[1];
    static const uint8_t junk[64] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde";
    const uint32_t M256 = 256u << 20;

    stream s1 = { 0, 0, 16, 16, junk, 16 };
    one_chunk("raw-size-over-limit", 0, 0xfffffff0u, 1, &s1);
    stream big = { 0, 1, 16, M256, junk, 16 }; /* 256 MiB declared, 16 bytes of "zstd" */
    one_chunk("raw-size-at-limit-tiny-stream", 0, M256, 1, &big);
    stream three[3] = { { 0, 1, 16, M256, junk, 16 }, { 1, 1, 16, M256, junk, 16 }, { 2, 1, 16, M256 - 1, junk, 16 } };
    one_chunk("streams-claim-768M", 0, M256, 3, three);
    fz_out zb = zstd_bomb((size_t)M256);
    stream zs = { 0, 1, (uint32_t)zb.n, 1u << 20, zb.p, zb.n };
    one_chunk("zstd-bomb-256M-declared-1M", 0, 1u << 20, 1, &zs);
    fz_out gb = zlib_bomb((size_t)M256);
    stream gs = { 0, 2, (uint32_t)gb.n, 1u << 20, gb.p, gb.n };
    one_chunk("zlib-bomb-256M-declared-1M", 0, 1u << 20, 1, &gs);
    stream over = { 0, 0, 16, 2 * 4096 + 65536 + 1, junk, 16 };
    one_chunk("stream-size-over-limit", 0, 4096, 1, &over);
    stream four[4];
    for (unsigned k = 0; k < 4; k++) four[k] = (stream){ k, 0, 16, 70000, junk, 16 };
    one_chunk("streams-sum-over-limit", 0, 4096, 4, four);
    stream many[255];
    for (unsigned k = 0; k < 255; k++) many[k] = (stream){ k % 64, 0, 0, 0, junk, 0 };
    one_chunk("streams-65", 0, 0, 65, many);
    one_chunk("streams-255", 0, 0, 255, many);
    stream lie[3] = { { 0, 1, 0x10000000u, M256, junk, 64 }, { 1, 1, 0x10000000u, M256, junk, 0 },
                      { 2, 1, 0x0b000000u, M256 - 1, junk, 0 } };
    one_chunk("payload-size-lies-700M", 0, M256, 3, lie);
    /* a good chunk of 16 bytes, then six that each declare the most a chunk
     * may (256 MiB decoded, streams summing to 3 x 256 MiB + 256 KiB): their
     * first stream decodes to all of its 512 MiB + 64 KiB, the second is
     * damaged.  With decode threads, what the chunks in flight declare must
     * stay within one such chunk, not one per thread. */
    fz_out big2 = zstd_bomb((size_t)2 * M256 + 65536);
    stream near[2] = { { 0, 1, (uint32_t)big2.n, 2 * M256 + 65536, big2.p, big2.n },
                       { 1, 1, 16, M256 + 196608, junk, 16 } };
    member m = { 0 };
    member_begin(&m, NULL, 0, 1, 0);
    chunk(&m, 0, 16, 16, 1, &s1);
    for (int i = 0; i < 6; i++) chunk(&m, 0, M256, M256, 2, near);
    member_end(&m, 0, 0);
    save("max-streams-x6-damaged", &m.b);
    m.b.n = 0;
    free(big2.p);
    /* a zstd stream of no bytes, and no other compressed stream to decode */
    stream empty[2] = { { 0, 1, 0, 0, junk, 0 }, { 1, 0, 16, 16, junk, 16 } };
    one_chunk("zstd-stream-empty", 16, 16, 2, empty);
    stream uop = { 0, 0, 16, 16, junk, 16 };
    member_begin(&m, NULL, 4, 0, 0);
    chunk(&m, 4, 17, 16, 1, &uop); /* 17 lines in 16 bytes */
    member_end(&m, 0, 0);
    save("text-more-lines-than-bytes", &m.b);
    m.b.n = 0;
    member_begin(&m, NULL, 0, 1, 0);
    chunk(&m, 0, 16, 16, 1, &s1);
    member_end(&m, 0xffffffffu, 0);
    save("index-count-4G", &m.b);
    m.b.n = 0;
    member_begin(&m, NULL, 0, 1, 0);
    chunk(&m, 0, 16, 16, 1, &s1);
    member_end(&m, 0, 1ull << 62);
    save("member-size-2^62", &m.b);
    m.b.n = 0;
    member_begin(&m, NULL, 0, 1, 0xffff);
    chunk(&m, 0, 16, 16, 1, &s1);
    member_end(&m, 0, 0);
    save("params-64K", &m.b);
    /* 30000 members of one chunk each: the index walk must stay linear */
    m.b.n = 0;
    for (int i = 0; i < 30000; i++) {
        member_begin(&m, NULL, 0, 1, 0);
        chunk(&m, 0, 16, 16, 1, &s1);
        member_end(&m, 0, 0);
    }
    save("members-30000", &m.b);
    /* a good member, then 8 MiB of magics that do not check out: for --salvage */
    m.b.n = 0;
    member_begin(&m, NULL, 0, 1, 0);
    chunk(&m, 0, 16, 16, 1, &s1);
    member_end(&m, 0, 0);
    for (int i = 0; i < (8 << 20) / 16; i++) put(&m.b, i % 2 ? "TZIX\xff\xff\x0f\x00TZCK\x00\x00\x40\x00" : "\x89TRZ\x01\x00\x00\x00TZENTZCK", 16);
    save("garbage-of-magics-8M", &m.b);
    free(m.b.p);
    free(zb.p);
    free(gb.p);
    return 0;
}
