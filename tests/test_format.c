/* test_format.c - the format room on its own (src/format/): the file header,
 * chunk headers with their stream tables, the chunk-in-member rules, and
 * the index and footer, each written and parsed back, byte by byte as
 * FORMAT.md lays them out, and each damage rejected with the result
 * FORMAT.md asks for; and every codec's table of variants and levels.  Prints "N passed, M failed" last. */
#include <stdarg.h>
#include <stdio.h>

#include "../src/format/format.h"

#include "unit.h"

/* Recompute a header's check after changing a field (a writer bug). */
static void reseal_hdr(uint8_t *h)
{
    size_t plen = trz_ld_le16(h + 22);
    trz_st_le32(h + TRZ_FILE_HDR_FIXED + plen, trz_xxh32low(h, TRZ_FILE_HDR_FIXED + plen));
}

static void file_header(void)
{
    static const struct { uint8_t codec, bo; uint32_t rs; uint8_t mark[4]; } cases[] = {
        { TRZ_CODEC_RST, TRZ_BO_BIG, 24, { 0x0C, 0x0A, 0x0F, 0x0E } },
        { TRZ_CODEC_BYU, TRZ_BO_LITTLE, 12, { 0x0E, 0x0F, 0x0A, 0x0C } },
        { TRZ_CODEC_UOP, TRZ_BO_NONE, 0, { 0, 0, 0, 0 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t h[TRZ_FILE_HDR_MAX];
        trz_file_hdr f = { cases[i].codec, cases[i].bo, 9, TRZ_BACKEND_ZSTD, cases[i].rs, 1u << 24, 0, 0, 0, 0, 0, 0, 0, 0 }, g;
        size_t n = trz_file_hdr_write(h, &f), len = 0;
        check(n == 28 && memcmp(h, "\x89TRZ\x01", 5) == 0 && h[5] == f.codec && h[6] == f.byte_order && h[7] == 0,
              "header %zu: magic, version, codec, byte order", i);
        check(trz_ld_le32(h + 8) == f.record_size && memcmp(h + 12, cases[i].mark, 4) == 0 &&
              trz_ld_le32(h + 16) == 1u << 24 && h[20] == 9 && h[21] == 1 && trz_ld_le16(h + 22) == 0,
              "header %zu: record size, endian mark, chunk size, level, back-end, parameters", i);
        check(trz_file_hdr_parse(h, n, &g, &len) == TRZ_OK && len == 28 && g.codec == f.codec &&
              g.byte_order == f.byte_order && g.record_size == f.record_size && g.level == 9,
              "header %zu: parses back", i);
        /* every byte changed, every length cut: rejected */
        int bad = 0;
        for (size_t k = 0; k < n; k++) {
            uint8_t c[TRZ_FILE_HDR_MAX];
            memcpy(c, h, n);
            c[k] ^= 0x40;
            if (trz_file_hdr_parse(c, n, &g, &len) == TRZ_OK) bad++;
        }
        check(bad == 0, "header %zu: %d changed bytes accepted", i, bad);
        for (size_t k = 0; k < n; k++)
            if (trz_file_hdr_parse(h, k, &g, &len) != (k < 4 ? TRZ_ERR_NOT_TRZ : TRZ_ERR_TRUNCATED)) bad++;
        check(bad == 0, "header %zu: %d cut lengths not reported as truncated", i, bad);
    }
    uint8_t h[TRZ_FILE_HDR_MAX];
    trz_file_hdr f = { TRZ_CODEC_RST, TRZ_BO_BIG, 9, 1, 24, 4096, 0, 0, 0, 0, 0, 0, 0, 0 }, g;
    size_t len;
    /* versions 1, 3 and 4: chains (4) and knowledge (3) as written */
    for (int v = 0; v < 3; v++) {
        f.know = v == 1, f.chain = v == 2;
        trz_file_hdr_write(h, &f);
        check(h[4] == (v == 0 ? 1 : v == 1 ? 3 : 4) && trz_file_hdr_parse(h, sizeof h, &g, &len) == TRZ_OK &&
                  g.know == f.know && g.chain == f.chain,
              "header of version %d: written and parsed", h[4]);
    }
    /* version 5: the same three kinds, in the flags */
    f.placed = 1;
    for (int v = 0; v < 3; v++) {
        f.know = v == 1, f.chain = v == 2;
        trz_file_hdr_write(h, &f);
        check(h[4] == 5 && h[7] == v && trz_file_hdr_parse(h, sizeof h, &g, &len) == TRZ_OK && g.placed &&
                  g.know == f.know && g.chain == f.chain,
              "header of version 5, mode %d: written and parsed", v);
    }
    /* and with parity (flag bit 2), each of the three */
    f.parity = 1;
    for (int v = 0; v < 3; v++) {
        f.know = v == 1, f.chain = v == 2;
        trz_file_hdr_write(h, &f);
        check(h[4] == 5 && h[7] == (4 | v) && trz_file_hdr_parse(h, sizeof h, &g, &len) == TRZ_OK && g.parity &&
                  g.know == f.know && g.chain == f.chain,
              "header of version 5, mode %d with parity: written and parsed", v);
    }
    /* and LZMA2 streams (flag bit 3), with parity or without */
    f.know = f.chain = 0;
    f.xz = 1;
    for (int v = 0; v < 2; v++) {
        f.parity = (uint8_t)v;
        trz_file_hdr_write(h, &f);
        check(h[4] == 5 && h[7] == (8 | 4 * v) && trz_file_hdr_parse(h, sizeof h, &g, &len) == TRZ_OK && g.xz &&
                  g.parity == v && !g.know && !g.chain,
              "header of version 5 with LZMA2 streams, parity %d: written and parsed", v);
    }
    f.xz = 0;
    f.parity = 0;
    for (int fl = 3; fl < 256; fl++) { /* modes of a later version */
        if (fl < 16 && (fl & 3) != 3) continue; /* (parity and LZMA2 with each mode) */
        trz_file_hdr_write(h, &f);
        h[7] = (uint8_t)fl;
        reseal_hdr(h);
        if (trz_file_hdr_parse(h, sizeof h, &g, &len) != TRZ_ERR_VERSION) {
            check(0, "version 5 with flags %d: not refused as a later version", fl);
            break;
        }
    }
    f.placed = 0;
    struct { size_t off; uint8_t v; int want; const char *what; } bad[] = {
        { 4, 2, TRZ_ERR_VERSION, "version 2" },
        { 4, 6, TRZ_ERR_VERSION, "version 6" },
        { 5, 200, TRZ_ERR_UNSUPPORTED, "an unknown codec" },
        { 6, 3, TRZ_ERR_CORRUPT, "byte order 3" },
        { 7, 1, TRZ_ERR_CORRUPT, "a reserved flag" },
        { 8, 12, TRZ_ERR_CORRUPT, "another record size" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        trz_file_hdr_write(h, &f);
        h[bad[i].off] = bad[i].v;
        if (bad[i].off != 4) reseal_hdr(h); /* the check alone would catch it */
        check(trz_file_hdr_parse(h, 28, &g, &len) == bad[i].want, "header with %s: result", bad[i].what);
    }
    trz_file_hdr_write(h, &f);
    trz_st_le16(h + 22, 257);
    check(trz_file_hdr_parse(h, sizeof h, &g, &len) == TRZ_ERR_LIMIT, "a parameter block over 256 bytes");
    trz_st_le16(h + 22, 3);
    memcpy(h + 24, "\x07\x01\x00", 3); /* one entry of a tag this version does not know */
    reseal_hdr(h);
    check(trz_file_hdr_parse(h, 28, &g, &len) == TRZ_ERR_TRUNCATED && len == 31, "a parameter block: the length it needs");
    check(trz_file_hdr_parse(h, 31, &g, &len) == TRZ_OK && len == 31, "a parameter block is skipped");
    /* parameter 1: what the input was unwrapped from; unknown tags skipped */
    f.wrap = 3;
    size_t n = trz_file_hdr_write(h, &f);
    check(n == 31 && trz_ld_le16(h + 22) == 3 && h[24] == 1 && h[25] == 1 && h[26] == 3 &&
          trz_file_hdr_parse(h, n, &g, &len) == TRZ_OK && len == 31 && g.wrap == 3, "parameter 1 written and read");
    static const uint8_t params[] = { 9, 2, 0xaa, 0xbb, 1, 1, 4 };
    memcpy(h + 24, params, sizeof params);
    trz_st_le16(h + 22, sizeof params);
    reseal_hdr(h);
    check(trz_file_hdr_parse(h, 24 + sizeof params + 4, &g, &len) == TRZ_OK && g.wrap == 4,
          "an unknown parameter is skipped");
    h[24 + 5] = 2; /* the last entry runs past the block */
    reseal_hdr(h);
    check(trz_file_hdr_parse(h, 24 + sizeof params + 4, &g, &len) == TRZ_ERR_CORRUPT, "a parameter past the block");
    f.wrap = 0;
    uint8_t m[4] = { 0x89, 'T', 'X', 'Z' };
    check(trz_magic_match(m) == 3 && trz_magic_match(h) == 4, "magic match counts");
}

static void chunk_header(void)
{
    trz_zctx *z = trz_zctx_create();
    uint8_t raw[5000];
    for (size_t i = 0; i < sizeof raw; i++) raw[i] = (uint8_t)(i * 31 / 7);
    trz_chunk_job job = { .codec = &trz_codec_raw, .raw = raw, .raw_len = sizeof raw, .nrec = sizeof raw,
                          .byte_order = TRZ_BO_NONE, .level = 3, .backend = TRZ_BACKEND_ZSTD, .verify = 1 };
    trz_chunk_encode(&job, z);
    check(job.result == TRZ_OK, "encode a raw chunk: %s", job.err);
    trz_chunk_hdr h;
    size_t need;
    const uint8_t *p = job.out.p;
    check(trz_chunk_parse_hdr(p, job.out.n, &h, &need) == TRZ_OK && need == job.out.n && h.nstreams == 1 &&
          h.raw == sizeof raw && h.nrec == sizeof raw && h.xxh == trz_xxh64(raw, sizeof raw) && h.hdr_len == 42,
          "the chunk parses back");
    check(memcmp(p, "TZCK", 4) == 0 && p[28] == 0 && p[29] == TRZ_BACKEND_ZSTD &&
          trz_ld_le32(p + 30) == job.out.n - 42 && trz_ld_le32(p + 34) == sizeof raw,
          "the stream table entry: id, back-end, csize, rsize");
    check(trz_chunk_payload_ok(&h, p), "the payload check");
    uint8_t out[5000];
    char err[100];
    check(trz_chunk_decode(&h, p, job.out.n, out, z, NULL, NULL, err, sizeof err) == TRZ_OK && memcmp(out, raw, sizeof raw) == 0,
          "the chunk decodes");
    int bad = 0;
    for (size_t k = 0; k < h.hdr_len; k++) {
        uint8_t c[64];
        memcpy(c, p, h.hdr_len);
        c[k] ^= 0x10;
        trz_chunk_hdr g;
        if (trz_chunk_parse_hdr(c, h.hdr_len, &g, &need) == TRZ_OK) bad++;
    }
    check(bad == 0, "chunk header: %d changed bytes accepted", bad);
    /* fields that pass the check but not the limits */
    struct { size_t off; uint32_t v; int width; int want; const char *what; } lim[] = {
        { 12, (256u << 20) + 1, 4, TRZ_ERR_LIMIT, "raw size over 256 MiB" },
        { 29, 4, 1, TRZ_ERR_UNSUPPORTED, "back-end 4" },
        { 28, 64, 1, TRZ_ERR_CORRUPT, "stream id 64" },
        { 34, (2 * 5000 + 65536) + 1, 4, TRZ_ERR_LIMIT, "a stream over 2 x raw + 64 KiB" },
        { 30, 6000, 4, TRZ_ERR_CORRUPT, "csize over rsize" },
        { 5, 3, 1, TRZ_ERR_CORRUPT, "byte order 3" },
        { 7, 8, 1, TRZ_ERR_CORRUPT, "a reserved flag" },
        { 8, 5001, 4, TRZ_ERR_CORRUPT, "more records than bytes in a raw chunk" },
    };
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) {
        uint8_t c[64];
        memcpy(c, p, h.hdr_len);
        if (lim[i].width == 1) c[lim[i].off] = (uint8_t)lim[i].v;
        else trz_st_le32(c + lim[i].off, lim[i].v);
        trz_st_le32(c + 38, trz_xxh32low(c, 38));
        trz_chunk_hdr g;
        check(trz_chunk_parse_hdr(c, h.hdr_len, &g, &need) == lim[i].want, "chunk with %s: result", lim[i].what);
    }
    uint8_t c[64];
    memcpy(c, p, 28);
    c[6] = 65;
    trz_st_le32(c + 28, 0);
    check(trz_chunk_parse_hdr(c, 28, &h, &need) == TRZ_ERR_LIMIT, "65 streams");
    check(trz_chunk_parse_hdr(p, 30, &h, &need) == TRZ_ERR_TRUNCATED && need == 42, "a cut header: the length it needs");
    /* a placed chunk (version 5): its place after the fixed fields, under the header check */
    job.flags = TRZ_CHUNK_PLACED;
    job.place_no = 7;
    job.place_rec = 0x123456789ull;
    job.place_byte = 0xabcdef0123ull;
    trz_chunk_encode(&job, z);
    p = job.out.p;
    check(job.result == TRZ_OK && trz_chunk_parse_hdr(p, job.out.n, &h, &need) == TRZ_OK && h.hdr_len == 62 &&
              need == job.out.n && h.place_no == 7 && h.place_rec == 0x123456789ull && h.place_byte == 0xabcdef0123ull &&
              trz_ld_le32(p + 28) == 7 && trz_ld_le64(p + 32) == 0x123456789ull && p[48] == 0,
          "a placed chunk: its place at bytes 28-47, its stream table at 48");
    check(trz_chunk_decode(&h, p, job.out.n, out, z, NULL, NULL, err, sizeof err) == TRZ_OK &&
              memcmp(out, raw, sizeof raw) == 0, "a placed chunk decodes");
    bad = 0;
    for (size_t k = 0; k < h.hdr_len; k++) {
        uint8_t cc[80];
        memcpy(cc, p, h.hdr_len);
        cc[k] ^= 0x01;
        trz_chunk_hdr g;
        if (trz_chunk_parse_hdr(cc, h.hdr_len, &g, &need) == TRZ_OK) bad++;
    }
    check(bad == 0, "placed chunk header: %d changed bytes accepted", bad);
    uint8_t moved[80];
    memcpy(moved, p, h.hdr_len);
    trz_chunk_set_place(moved, &h, 9, 11, 13);
    trz_chunk_hdr g2;
    check(trz_chunk_parse_hdr(moved, h.hdr_len, &g2, &need) == TRZ_OK && g2.place_no == 9 && g2.place_rec == 11 &&
              g2.place_byte == 13, "a placed chunk moved: its header resealed");
    free(job.out.p);
    trz_zctx_free(z);
}

/* Back-end 3: a raw member's stream in LZMA2 when that beats zstd, decoded
 * back, its first bytes for listings; a dictionary over the limit, a cut
 * or lengthened stream, refused. */
static void xz_streams(void)
{
    trz_zctx *z = trz_zctx_create();
    size_t n = 300000;
    uint8_t *raw = malloc(n), *out = malloc(n);
    uint32_t x = 1;
    /* words from a small vocabulary: LZMA2's literal coding beats zstd's */
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        raw[i] = (uint8_t)("etaoin shrdlu\n"[(x >> 16) % 14]);
    }
    trz_chunk_job job = { .codec = &trz_codec_raw, .raw = raw, .raw_len = n, .nrec = (uint32_t)n,
                          .byte_order = TRZ_BO_NONE, .level = 9, .backend = TRZ_BACKEND_ZSTD, .verify = 1, .xz = 1 };
    trz_chunk_encode(&job, z);
    trz_chunk_hdr h;
    size_t need;
    check(job.result == TRZ_OK && trz_chunk_parse_hdr(job.out.p, job.out.n, &h, &need) == TRZ_OK &&
              h.backend[0] == TRZ_BACKEND_XZ, "a raw member's stream in LZMA2: %s", job.err);
    trz_chunk_job plain = job;
    plain.xz = 0;
    plain.out = (trz_buf){ 0 };
    trz_chunk_encode(&plain, z);
    check(plain.result == TRZ_OK && plain.out.n > job.out.n, "smaller than zstd's (%zu, %zu)", job.out.n, plain.out.n);
    char err[100];
    memset(out, 0, n);
    check(trz_chunk_decode(&h, job.out.p, job.out.n, out, z, NULL, NULL, err, sizeof err) == TRZ_OK &&
              memcmp(out, raw, n) == 0, "it decodes");
    const uint8_t *st = job.out.p + h.hdr_len;
    size_t cs = h.csize[0];
    uint8_t head[100];
    check(trz_backend_head(z, TRZ_BACKEND_XZ, st, cs, head, sizeof head) == sizeof head &&
              memcmp(head, raw, sizeof head) == 0, "its first bytes, for a listing");
    check(st[0] <= 40 && trz_backend_decompress(z, TRZ_BACKEND_XZ, st, cs - 1, out, n) == TRZ_ERR_CORRUPT &&
              trz_backend_decompress(z, TRZ_BACKEND_XZ, st, cs, out, n - 1) == TRZ_ERR_CORRUPT &&
              trz_backend_decompress(z, TRZ_BACKEND_XZ, st, cs, out, n) == TRZ_OK,
          "a cut stream, a shorter output: refused");
    uint8_t *big = malloc(cs + 1);
    memcpy(big, st, cs);
    big[cs] = 0;
    check(trz_backend_decompress(z, TRZ_BACKEND_XZ, big, cs + 1, out, n) == TRZ_ERR_CORRUPT, "a byte after its end: refused");
    int refused = 0;
    for (int prop = 0; prop < 256; prop++) {
        big[0] = (uint8_t)prop;
        /* dictionaries over 8 MiB (prop 23 on), and bytes that name none, refused before any allocation */
        refused += trz_backend_decompress(z, TRZ_BACKEND_XZ, big, cs, out, n) != TRZ_OK && prop >= 23;
    }
    check(refused == 256 - 23, "dictionaries over 8 MiB refused (%d of %d)", refused, 256 - 23);
    /* a member whose level keeps zstd (the writer's choice) and a fallback chunk of a trace member: no LZMA2 */
    job.codec = &trz_codec_rst;
    job.nrec = (uint32_t)(n / 24);
    free(job.out.p);
    job.out = (trz_buf){ 0 };
    trz_chunk_encode(&job, z);
    check(job.result == TRZ_OK && trz_chunk_parse_hdr(job.out.p, job.out.n, &h, &need) == TRZ_OK &&
              h.codec == TRZ_CODEC_RAW && h.backend[0] == TRZ_BACKEND_ZSTD, "a fallback chunk keeps zstd");
    free(big);
    free(job.out.p);
    free(plain.out.p);
    free(raw);
    free(out);
    trz_zctx_free(z);
}

static void chunk_in_member(void)
{
    const trz_codec *byu = trz_codec_by_id(TRZ_CODEC_BYU), *uop = trz_codec_by_id(TRZ_CODEC_UOP);
    struct { const trz_codec *m; unsigned codec, bo, flags; uint64_t nrec, raw; int first, fits, tail; const char *what; } t[] = {
        { byu, TRZ_CODEC_BYU, TRZ_BO_LITTLE, 0, 10, 120, 0, 1, 0, "whole records" },
        { byu, TRZ_CODEC_RAW, TRZ_BO_NONE, 0, 10, 120, 0, 1, 0, "stored raw, whole records" },
        { byu, TRZ_CODEC_RAW, TRZ_BO_NONE, 0, 0, 5, 0, 1, 1, "a partial record" },
        { byu, TRZ_CODEC_RAW, TRZ_BO_NONE, 0, 0, 120, 0, 0, 0, "a raw chunk counting no records" },
        { byu, TRZ_CODEC_BYU, TRZ_BO_LITTLE, 0, 0, 5, 0, 0, 0, "a partial record coded with the codec" },
        { byu, TRZ_CODEC_BYU, TRZ_BO_BIG, 0, 10, 120, 0, 0, 0, "another byte order" },
        { byu, TRZ_CODEC_RST, TRZ_BO_LITTLE, 0, 5, 120, 0, 0, 0, "another codec" },
        { byu, TRZ_CODEC_BYU, TRZ_BO_LITTLE, 1, 10, 120, 0, 0, 0, "a mid-line flag" },
        { uop, TRZ_CODEC_UOP, TRZ_BO_NONE, 1, 3, 100, 0, 1, 0, "a mid-line text chunk" },
        { uop, TRZ_CODEC_UOP, TRZ_BO_NONE, 1, 3, 100, 1, 0, 0, "a member's first chunk mid-line" },
        { uop, TRZ_CODEC_RAW, TRZ_BO_NONE, 0, 101, 100, 0, 0, 0, "more lines than bytes" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int tail = -1;
        int fits = trz_chunk_fits(t[i].m, t[i].m == byu ? TRZ_BO_LITTLE : TRZ_BO_NONE, t[i].codec, t[i].bo, t[i].flags,
                                  t[i].nrec, t[i].raw, t[i].first, 0, 0, 0, &tail);
        check(fits == t[i].fits && tail == t[i].tail, "chunk in member: %s (fits %d, tail %d)", t[i].what, fits, tail);
    }
    /* placed chunks in members of version 5 only, and every chunk of one placed */
    int tail;
    check(trz_chunk_fits(byu, TRZ_BO_LITTLE, TRZ_CODEC_BYU, TRZ_BO_LITTLE, TRZ_CHUNK_PLACED, 10, 120, 0, 0, 1, 0, &tail),
          "a placed chunk in a member of version 5");
    check(trz_chunk_fits(byu, TRZ_BO_LITTLE, TRZ_CODEC_BYU, TRZ_BO_LITTLE, TRZ_CHUNK_PLACED | TRZ_CHUNK_PARITY, 10, 120,
                         0, 0, 1, 1, &tail),
          "a chunk that ends a parity set in a member with parity");
    check(!trz_chunk_fits(byu, TRZ_BO_LITTLE, TRZ_CODEC_BYU, TRZ_BO_LITTLE, TRZ_CHUNK_PLACED | TRZ_CHUNK_PARITY, 10, 120,
                          0, 0, 1, 0, &tail),
          "a chunk that ends a parity set in a member without parity");
    check(!trz_chunk_fits(byu, TRZ_BO_LITTLE, TRZ_CODEC_BYU, TRZ_BO_LITTLE, 0, 10, 120, 0, 0, 1, 0, &tail),
          "a chunk not placed in a member of version 5");
    check(!trz_chunk_fits(byu, TRZ_BO_LITTLE, TRZ_CODEC_BYU, TRZ_BO_LITTLE, TRZ_CHUNK_PLACED, 10, 120, 0, 0, 0, 0, &tail),
          "a placed chunk in a member of an earlier version");
}

static void index_footer(void)
{
    trz_index_entry e[3] = {
        { 28, 0, 0, 10, 120, 100, TRZ_CODEC_BYU, 0 },
        { 128, 10, 120, 10, 120, 90, TRZ_CODEC_RAW, 0 },
        { 218, 20, 240, 0, 5, 50, TRZ_CODEC_RAW, 0 },
    };
    trz_buf b = { 0 };
    check(trz_index_write(&b, e, 3, 268, NULL) == TRZ_OK && b.n == 8 + 3 * 40 + 24, "index and footer: %zu bytes", b.n);
    check(memcmp(b.p, "TZIX", 4) == 0 && trz_index_count(b.p) == 3, "index magic and count");
    int same = 1;
    for (int i = 0; i < 3; i++) {
        trz_index_entry g;
        same &= trz_index_entry_parse(b.p + 8 + 40 * i, &g) == TRZ_OK && g.offset == e[i].offset &&
                g.first_record == e[i].first_record && g.first_byte == e[i].first_byte && g.nrec == e[i].nrec &&
                g.raw == e[i].raw && g.stored == e[i].stored && g.codec == e[i].codec && g.flags == e[i].flags;
    }
    check(same, "the entries parse back");
    trz_footer f;
    const uint8_t *fb = b.p + 128;
    check(trz_footer_parse(fb, &f) == TRZ_OK && f.index_offset == 268 && f.member_size == 268 + 128 + 24 &&
          memcmp(fb + 20, "TZEN", 4) == 0, "the footer: index offset, member size, magic last");
    check(trz_index_ok(b.p, 128, &f, 0), "the index matches the footer's check");
    check(!trz_index_ok(b.p, 128, &f, 1), "an index of an earlier version is not one of version 5");
    b.p[8 + 40 + 38] = 1;
    trz_index_entry g;
    check(trz_index_entry_parse(b.p + 48, &g) == TRZ_ERR_CORRUPT, "an entry's reserved bytes must be zero");
    check(!trz_index_ok(b.p, 128, &f, 0), "a changed index fails the footer's check");
    check(!trz_index_ok(b.p, 127, &f, 0) && !trz_index_ok(b.p, 4, &f, 0), "an index whose length is no whole entries");
    b.p[128 + 23] = 'X';
    check(trz_footer_parse(b.p + 128, &f) == TRZ_ERR_NOT_TRZ, "a footer without its magic");
    free(b.p);
    /* version 5: the member hash after the entries, covered by the check */
    uint64_t mh = 0;
    for (int i = 0; i < 3; i++) mh = trz_member_hash_step(mh, 0x1111u * (uint64_t)(i + 1), e[i].raw, e[i].nrec);
    uint64_t h2 = trz_member_hash_step(trz_member_hash_step(0, 0x2222, e[1].raw, e[1].nrec), 0x1111, e[0].raw, e[0].nrec);
    check(mh != trz_member_hash_step(h2, 0x3333, e[2].raw, e[2].nrec), "the member hash depends on the chunks' order");
    b = (trz_buf){ 0 };
    check(trz_index_write(&b, e, 3, 268, &mh) == TRZ_OK && b.n == 8 + 3 * 40 + 8 + 24 && trz_index_len(3, 1) == 136,
          "index of version 5: %zu bytes", b.n);
    check(trz_footer_parse(b.p + 136, &f) == TRZ_OK && trz_index_ok(b.p, 136, &f, 1) && !trz_index_ok(b.p, 136, &f, 0) &&
              trz_index_mhash(b.p, 136) == mh && f.member_size == 268 + 136 + 24,
          "index of version 5: the member hash read back, its length known from the version");
    b.p[130] ^= 1;
    check(!trz_index_ok(b.p, 136, &f, 1), "a changed member hash fails the index check");
    free(b.p);
}

/* Each converted codec's level table names, at every level, a variant
 * whose level range holds it; each variant's range is exactly the levels
 * naming it (none for a variant kept only to decode); its ids are unique;
 * and a codec with state has all three model ops. */
static void codec_tables(void)
{
    for (size_t i = 0; trz_codec_at(i); i++) {
        const trz_codec *c = trz_codec_at(i);
        if (!c->variants) continue;
        int ok = c->nvariants > 0 && c->levels && c->level_size > 0 &&
                 !c->model_create == !c->model_reset && !c->model_create == !c->model_free;
        for (int l = 0; ok && l <= TRZ_LEVEL_MAX; l++)
            ok = *((const uint8_t *)c->levels + (size_t)l * c->level_size) < c->nvariants;
        for (unsigned v = 0; ok && v < c->nvariants; v++) {
            const trz_variant *x = &c->variants[v];
            int lo = 0, hi = 0;
            for (int l = TRZ_LEVEL_MIN; l <= TRZ_LEVEL_MAX; l++)
                if (trz_variant_for_level(c, l) == x) {
                    if (!lo) lo = l;
                    if (hi && hi != l - 1) ok = 0; /* not one range */
                    hi = l;
                }
            ok &= x->min_level == lo && x->max_level == hi && x->name && (!lo || x->encode) && x->decode;
            for (unsigned w = 0; w < v; w++) ok &= c->variants[w].id != x->id;
        }
        check(ok, "%s: its variants, their level ranges and its level table agree", c->name);
    }
}

int main(void)
{
    codec_tables();
    file_header();
    chunk_header();
    xz_streams();
    chunk_in_member();
    index_footer();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
