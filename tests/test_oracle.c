/* test_oracle.c - every field that places records is checked: archives of
 * every format, single and concatenated, pass the record oracle
 * (tests/oracle.h: seeks, spans, pipes, trz_read and dump all give the
 * slice of the full decode); archives whose record counts and flags were
 * changed and resealed (every check recomputed, as a writer bug would
 * leave them) are either rejected or still read exactly; and the crafted
 * cases of a lying count or flag are rejected.  Run from the repository
 * root (it reads corpus/); prints "N passed, M failed" last. */
#include "oracle.h"

#include "unit.h"

static uint8_t *slurp(const char *path, size_t max, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) { printf("cannot read %s (run from the repository root)\n", path); exit(1); }
    uint8_t *p = malloc(max);
    if (!p) abort();
    *n = fread(p, 1, max, f);
    fclose(f);
    return p;
}

/* Compress n bytes of src with small chunks, appended to *out. */
static void pack(fz_out *out, const char *format, const uint8_t *src, size_t n, int64_t chunk_bytes, int64_t chunk_rec)
{
    fz_cparams cp = { format, 6, TRZ_BACKEND_ZSTD, 1, 1, chunk_bytes, chunk_rec };
    char err[200] = "";
    if (fz_compress(&cp, src, n, out, err, sizeof err) != TRZ_OK) { printf("compress %s: %s\n", format, err); exit(1); }
}

typedef struct arc { const char *name; fz_out z; } arc;

static int oracle(const char *name, const uint8_t *p, size_t n)
{
    char why[300] = "";
    int r = oracle_check(p, n, 400, why, sizeof why);
    check(r != -1, "%s: %s", name, why);
    return r;
}

/* Change one count or flag of chunk i, reseal: rejected, or read exactly. */
static void mutations(const arc *a)
{
    static ar_map map;
    uint8_t *p = malloc(a->z.n);
    if (!p) abort();
    memcpy(p, a->z.p, a->z.n);
    ar_walk(p, a->z.n, &map, 0);
    unsigned nc = map.nc, accepted = 0, rejected = 0;
    for (unsigned i = 0; i < nc && i < 12; i++) {
        for (int m = 0; m < 6; m++) {
            memcpy(p, a->z.p, a->z.n);
            ar_walk(p, a->z.n, &map, 0);
            uint32_t nrec = map.c[i].nrec;
            switch (m) {
            case 0: ar_set_nrec(p, a->z.n, &map, i, nrec + 1); break;
            case 1: ar_set_nrec(p, a->z.n, &map, i, nrec - 1); break;
            case 2: ar_set_nrec(p, a->z.n, &map, i, nrec + 100); break;
            case 3: ar_set_nrec(p, a->z.n, &map, i, 0); break;
            case 4: ar_set_flags(p, a->z.n, &map, i, map.c[i].flags ^ 1); break;
            default: ar_set_flags(p, a->z.n, &map, i, map.c[i].flags ^ 2); break;
            }
            char why[300] = "", name[120];
            int r = oracle_check(p, a->z.n, 60, why, sizeof why);
            snprintf(name, sizeof name, "%s, chunk %u, change %d", a->name, i, m);
            check(r != -1, "%s: %s", name, why);
            accepted += r == 1;
            rejected += r == 0;
        }
    }
    /* a change that does not alter anything (a count of 0 that was 0) may pass */
    check(rejected > 0 && rejected >= accepted, "%s: %u changed archives rejected, %u accepted", a->name, rejected,
          accepted);
    free(p);
}

/* Counts and flags that lie are rejected. */
static void crafted(const arc *text)
{
    static ar_map map;
    uint8_t *p = malloc(text->z.n);
    if (!p) abort();
    char why[300];
    static const int change[] = { 1, 100 };
    for (int k = 0; k < 2; k++) {
        memcpy(p, text->z.p, text->z.n);
        ar_walk(p, text->z.n, &map, 0);
        ar_set_nrec(p, text->z.n, &map, 3, map.c[3].nrec + (uint32_t)change[k]);
        check(oracle_check(p, text->z.n, 50, why, sizeof why) == 0, "text chunk count off by %d is accepted", change[k]);
    }
    unsigned flipped = 0;
    for (unsigned i = 1; i < 8; i++) { /* mid-line and line-start chunks alike */
        memcpy(p, text->z.p, text->z.n);
        ar_walk(p, text->z.n, &map, 0);
        ar_set_flags(p, text->z.n, &map, i, map.c[i].flags ^ 1);
        flipped += oracle_check(p, text->z.n, 50, why, sizeof why) == 0;
    }
    check(flipped == 7, "mid-line flag flipped in header and index: %u of 7 rejected", flipped);
    /* an index entry alone changed, its check recomputed: rejected through
     * the index and as a pipe, where the index only has to match */
    static const size_t field[] = { 8, 16, 24, 28, 37 }; /* first record, first byte, records, raw size, flags */
    unsigned caught = 0;
    for (unsigned k = 0; k < 5; k++) {
        memcpy(p, text->z.p, text->z.n);
        ar_walk(p, text->z.n, &map, 0);
        p[map.c[2].entry + field[k]] ^= 1;
        ar_walk(p, text->z.n, &map, 1);
        caught += oracle_check(p, text->z.n, 20, why, sizeof why) == 0;
    }
    check(caught == 5, "an index entry that disagrees with its chunk: %u of 5 rejected", caught);
    free(p);

    /* a fixed-size member of stored raw chunks (a codec's fallback) */
    uint8_t rec[240], out[4096];
    for (size_t i = 0; i < sizeof rec; i++) rec[i] = (uint8_t)(i * 7);
    ar_piece ok[3] = { { 0, 10, rec, 120 }, { 0, 10, rec + 120, 120 }, { 0, 0, rec, 5 } };
    size_t n = ar_build(out, TRZ_CODEC_BYU, 12, 1, ok, 3);
    check(oracle(("raw chunks in a BYU member, tail at the end"), out, n) == 1, "raw chunks with a tail: not accepted");
    ar_piece zero[3] = { { 0, 10, rec, 120 }, { 0, 0, rec + 120, 120 }, { 0, 10, rec, 120 } };
    n = ar_build(out, TRZ_CODEC_BYU, 12, 1, zero, 3);
    check(oracle_check(out, n, 50, why, sizeof why) == 0, "a raw chunk of count 0 inside a BYU member is accepted");
    ar_piece mid[3] = { { 0, 10, rec, 120 }, { 0, 0, rec, 5 }, { 0, 10, rec, 120 } };
    n = ar_build(out, TRZ_CODEC_BYU, 12, 1, mid, 3);
    check(oracle_check(out, n, 50, why, sizeof why) == 0, "a partial record inside a BYU member is accepted");
    ar_piece flag[2] = { { 0, 10, rec, 120 }, { 1, 10, rec, 120 } };
    n = ar_build(out, TRZ_CODEC_BYU, 12, 1, flag, 2);
    check(oracle_check(out, n, 50, why, sizeof why) == 0, "a mid-line flag in a BYU member is accepted");
    static const uint8_t lines[] = "ab\ncd\nef";
    ar_piece tl[2] = { { 0, 2, lines, 4 }, { 1, 1, lines + 4, 4 } };
    n = ar_build(out, TRZ_CODEC_UOP, 0, 0, tl, 2);
    check(oracle("text member of raw chunks", out, n) == 1, "raw chunks in a text member: not accepted");
    ar_piece tm[2] = { { 1, 2, lines, 4 }, { 1, 1, lines + 4, 4 } };
    n = ar_build(out, TRZ_CODEC_UOP, 0, 0, tm, 2);
    check(oracle_check(out, n, 50, why, sizeof why) == 0, "a member's first chunk starting mid-line is accepted");
}

int main(void)
{
    size_t tn, bn, pn, rn;
    uint8_t *text = slurp("corpus/sjeng-like.trace", 120000, &tn);
    uint8_t *byu = slurp("corpus/bus-2cpu.byu", 12 * 3000 + 5, &bn);
    uint8_t *pbus = slurp("corpus/bus-1cpu.pbus", 6 * 5000, &pn);
    uint8_t *rst = slurp("corpus/loops-4cpu.rst", 24 * 3000, &rn);
    uint8_t rnd[20000];
    uint64_t s = 1;
    for (size_t i = 0; i < sizeof rnd; i++) rnd[i] = (uint8_t)((s = s * 6364136223846793005ull + 1) >> 56);
    /* a text whose 5th line is longer than a chunk, and no final newline */
    size_t ln = 0;
    uint8_t *longl = malloc(30000);
    if (!longl) abort();
    for (int l = 0; l < 12; l++) {
        size_t w = l == 4 ? 9000 : 50 + 37 * l;
        for (size_t i = 0; i < w; i++) longl[ln++] = (uint8_t)('a' + (i + l) % 26);
        if (l < 11) longl[ln++] = '\n';
    }

    enum { NA = 11 };
    static arc a[NA];
    a[0].name = "uop text, 4 KiB chunks";
    pack(&a[0].z, "uop", text, 60000, 4096, 0);
    a[1].name = "BYU with a partial last record";
    pack(&a[1].z, "byu", byu, bn, 4096, 500);
    a[2].name = "PEL bus";
    pack(&a[2].z, "pbus", pbus, pn, 4096, 700);
    a[3].name = "RST";
    pack(&a[3].z, "rst", rst, rn, 8192, 0);
    a[4].name = "raw";
    pack(&a[4].z, "raw", rnd, sizeof rnd, 4096, 0);
    a[5].name = "text with a line longer than a chunk, no final newline";
    pack(&a[5].z, "uop", longl, ln, 4096, 0);
    a[6].name = "text + BYU (cat)";
    pack(&a[6].z, "uop", text, 20000, 4096, 0);
    pack(&a[6].z, "byu", byu, 12 * 700 + 5, 4096, 300);
    a[7].name = "BYU + text (cat)";
    pack(&a[7].z, "byu", byu, 12 * 700 + 5, 4096, 300);
    pack(&a[7].z, "uop", longl, ln, 4096, 0);
    a[8].name = "text without final newline + text (cat)";
    pack(&a[8].z, "uop", longl, ln, 4096, 0);
    pack(&a[8].z, "uop", text, 9000, 4096, 0);
    a[9].name = "raw + PEL + RST (cat)";
    pack(&a[9].z, "raw", rnd, 5000, 4096, 0);
    pack(&a[9].z, "pbus", pbus, 6 * 900 + 3, 4096, 400);
    pack(&a[9].z, "rst", rst, 24 * 400, 8192, 0);
    a[10].name = "empty + BYU (cat)";
    pack(&a[10].z, "byu", byu, 0, 4096, 0);
    pack(&a[10].z, "byu", byu, 12 * 50, 4096, 0);

    for (int i = 0; i < NA; i++) check(oracle(a[i].name, a[i].z.p, a[i].z.n) == 1, "%s: not accepted", a[i].name);
    crafted(&a[0]);
    for (int i = 0; i < NA; i++) mutations(&a[i]);

    for (int i = 0; i < NA; i++) free(a[i].z.p);
    free(text), free(byu), free(pbus), free(rst), free(longl);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
