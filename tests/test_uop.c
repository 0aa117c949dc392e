/* test_uop.c - round-trip and robustness tests for the uop text codec:
 * generated edge cases, both corpus traces at several chunk sizes (also cut
 * mid-line), and damaged streams fed to the decoder (run under ASan/UBSan). */
#include "codec_args.h"
#include "../codecs/codec.h"
#include "corpus.h"
#include "../codecs/uop/uop_cm.h"

static int passed, failed;

static void check(int ok, const char *what)
{
    if (ok) passed++;
    else { failed++; printf("FAIL: %s\n", what); }
}

typedef struct {
    trz_buf s[TRZ_MAX_STREAMS];
} enc_out;

static int encode(const uint8_t *in, size_t len, int level, enc_out *e)
{
    memset(e, 0, sizeof *e);
    uint64_t nrec = 0;
    for (size_t i = 0; i < len; i++) nrec += in[i] == '\n';
    trz_enc_args ea = TEST_ENC_ARGS(in, len, nrec, TRZ_BO_NONE, level, e->s);
    return trz_codec_uop.encode_chunk(&ea);
}

static void enc_free(enc_out *e)
{
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(e->s[i].p);
}

static int decode(const enc_out *e, const uint8_t *const *sp, const size_t *sl, uint8_t *out, size_t len)
{
    const uint8_t *p[TRZ_MAX_STREAMS];
    size_t n[TRZ_MAX_STREAMS];
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
        p[i] = sp ? sp[i] : (e->s[i].n ? e->s[i].p : NULL);
        n[i] = sl ? sl[i] : e->s[i].n;
    }
    trz_dec_args da = { p, n, out, len, 0, TRZ_BO_NONE, NULL };
    return trz_codec_uop.decode_chunk(&da);
}

/* Encode + decode one chunk; 1 if identical. */
static int roundtrip_chunk(const uint8_t *in, size_t len)
{
    enc_out e;
    int rc = encode(in, len, 9, &e);
    uint8_t *out = malloc(len + 1);
    int ok = rc == TRZ_CODEC_OK && out && decode(&e, NULL, NULL, out, len) == TRZ_CODEC_OK &&
             (len == 0 || memcmp(out, in, len) == 0);
    free(out);
    enc_free(&e);
    return ok;
}

/* Cut like the container: after the last '\n' within `chunk` bytes, or at
 * `chunk` itself when the window holds no newline (mid-line), or raw cuts. */
static int roundtrip(const uint8_t *in, size_t len, size_t chunk, int at_newline)
{
    size_t off = 0;
    do {
        size_t n = len - off < chunk ? len - off : chunk;
        if (at_newline && off + n < len) {
            size_t l = n;
            while (l > 0 && in[off + l - 1] != '\n') l--;
            if (l > 0) n = l;
        }
        if (!roundtrip_chunk(in + off, n)) {
            printf("  chunk at %zu len %zu differs\n", off, n);
            return 0;
        }
        off += n;
    } while (off < len);
    return 1;
}

/* 1 if the encoder chose the context-model variant (streams 13..16, none
 * of the zstd variant's 2..12) for the whole input as one chunk. */
static int uses_cm_at(const uint8_t *in, size_t len, int level)
{
    enc_out e;
    int ok = encode(in, len, level, &e) == TRZ_CODEC_OK && e.s[UOP_S_CMVER].n == 1 && e.s[UOP_S_CMCTL].n > 0;
    for (int i = 2; i < UOP_S_CMVER; i++) ok = ok && e.s[i].n == 0;
    enc_free(&e);
    return ok;
}
static int uses_cm(const uint8_t *in, size_t len) { return uses_cm_at(in, len, 9); }

/* Levels 1-5 write the zstd variant (faster to decode); it round-trips. */
static int fast_level_ok(const uint8_t *in, size_t len)
{
    enc_out e;
    uint8_t *out = malloc(len + 1);
    int ok = encode(in, len, 1, &e) == TRZ_CODEC_OK && e.s[UOP_S_CMVER].n == 0 && out &&
             decode(&e, NULL, NULL, out, len) == TRZ_CODEC_OK && memcmp(out, in, len) == 0;
    free(out);
    enc_free(&e);
    return ok && !uses_cm_at(in, len, 5) && uses_cm_at(in, len, 6);
}

static void rt(const char *name, const char *text)
{
    check(roundtrip((const uint8_t *)text, strlen(text), 1 << 24, 1), name);
}

static const char *L1 = "1 40061e -1 -1 -1 R T -       -96            0       400620       4005c0 J        JMP_IMM\n";
static const char *L2 = "1 4005c0 -1  1 44 - - L         0       482204       4005c3            0 MOVSX    LOAD\n";
static const char *L3 = "2 4005c0 44 -1  2 - - -         0            0       4005c3            0 MOVSX    SEXT_DWORD_TO_QWORD\n";

static char *repeat_lines(int n)
{
    char *b = malloc((size_t)n * 300 + 1), *o = b;
    for (int i = 0; i < n; i++)
        o += sprintf(o, "%d %lx %2d %2d %2d %c %c %c %9ld %12lx %12lx %12lx %-8s %s\n", 1 + i % 2,
                     0x400000ul + (unsigned long)(i / 2 % 37) * 4, i % 7 - 1, i % 5, 44, "RW-"[i % 3], "TN-"[i % 3],
                     "LS-"[i % 3], (long)(i % 11) - 5, i % 3 == 2 ? 0ul : 0x7ff000ul + (unsigned long)i * 8,
                     0x400004ul + (unsigned long)(i / 2 % 37) * 4, i % 3 == 2 ? 0ul : 0x400100ul, "MOV", "LOAD");
    return b;
}

static void edge_cases(void)
{
    char buf[4096];
    rt("empty", "");
    rt("one line", L1);
    snprintf(buf, sizeof buf, "%s%s%s", L1, L2, L3);
    rt("three lines", buf);
    snprintf(buf, sizeof buf, "%s%s%.*s", L1, L2, (int)strlen(L3) - 1, L3);
    rt("no final newline", buf);
    snprintf(buf, sizeof buf, "%s\n%s%s", L1, L2, L3);
    rt("blank line", buf);
    snprintf(buf, sizeof buf, "Uop PC Src1 Src2 Dest Flags Branch LdSt Imm Addr FT Target Macro Micro\n%s%s", L1, L2);
    rt("header line", buf);
    rt("crlf", "1 48d1de -1 -1 13 - - - 0 0 48d1e2 0 SET ADD\r\n2 48d1de -1 -1 13 R - - 1 0 48d1e2 0 SET ADD_IMM\r\n");
    rt("tabs", "1\t48d1de\t-1\t-1\t13\t-\t-\t-\t0\t0\t48d1e2\t0\tSET\tADD\n"
               "2\t48d1de\t-1\t-1\t13\tR\t-\t-\t1\t0\t48d1e2\t0\tSET\tADD_IMM\n"
               "1\t48d1e2\t-1\t5\t45\t-\t-\tL\t-264\t7ffe7ff048\t48d1e9\t0\tCMP\tLOAD\n");
    rt("mixed tab line", "1 48d1de -1 -1 13 - - - 0 0 48d1e2 0 SET ADD\n2\t48d1de -1 -1 13 R - - 1 0 48d1e2 0 SET ADD_IMM\n");
    rt("13 fields", "1 48d1de -1 -1 13 - - - 0 0 48d1e2 0 SET\n1 48d1de -1 -1 13 - - - 0 0 48d1e2 0 SET ADD\n");
    rt("15 fields", "1 48d1de -1 -1 13 - - - 0 0 48d1e2 0 SET ADD X\n1 48d1de -1 -1 13 - - - 0 0 48d1e2 0 SET ADD\n");
    snprintf(buf, sizeof buf, "1 400000 -1 -1 -1 - - - 0 0 400004 0 %0*d ADD\n1 400004 -1 -1 -1 - - - 0 0 400008 0 OP ADD\n", 80, 7);
    rt("80-char opcode", buf);
    snprintf(buf, sizeof buf, "1 400000 -1 -1 -1 - - - 0 0 400004 0 %0*d ADD\n", 300, 7);
    rt("300-char opcode", buf);
    rt("negative imm", "1 400000 -1 -1 -1 - - - -9223372036854775808 0 400004 0 A B\n"
                       "1 400004 -1 -1 -1 - - - 18446744073709551488 0 400008 0 A B\n"
                       "1 400008 -1 -1 -1 - - - -5 0 40000c 0 A B\n1 40000c -1 -1 -1 - - - -0 0 400010 0 A B\n");
    rt("64-bit", "1 ffffffffffffffff -1 -1 -1 - T - 9223372036854775807 ffffffffffffffff ffffffffffffffff ffffffffffffffff A B\n"
                 "1 ffffffffffffffff -1 -1 -1 - T - 0 0 0 0 A B\n1 10000000000000000 -1 -1 -1 - - - 0 0 0 0 A B\n");
    rt("leading zeros / upper hex", "1 0400000 -1 -1 -1 - - - 007 0 400004 0 A B\n1 40000C -1 -1 -1 - - - 0 0 400010 0 A B\n");
    rt("0x prefix", "1 0x400000 -1 -1 -1 - - - 0 0x0 0x400004 0x0 A B\n1 0x400004 -1 -1 -1 - - - 0 0x10 0x400008 0x0 A B\n");
    rt("zero padded", "1 00400000 -1 -1 -1 - - - 0 00000000 00400004 00000000 A B\n1 00400004 -1 -1 -1 - - - 0 00000010 00400008 00000000 A B\n");
    rt("non-ascii and NUL", "1 400000 -1 -1 -1 \xff - - 0 0 400004 0 \xc3\xa9\xc3\xa9 B\n1 400004 -1 -1 -1 - - - 0 0 400008 0 A\0B C\n");
    rt("only newlines", "\n\n\n");
    rt("leading spaces", "  1 400000 -1 -1 -1 - - - 0 0 400004 0 A B\n  1 400004 -1 -1 -1 - - - 0 0 400008 0 A B\n");
    rt("trailing space", "1 400000 -1 -1 -1 - - - 0 0 400004 0 A B \n1 400004 -1 -1 -1 - - - 0 0 400008 0 A B \n");
    rt("rep and uop > 1", "1 400000 0 -1 -1 - - S 0 1000 400002 0 REP_STOSB STORE\n1 400000 0 -1 -1 - - S 0 1001 400002 0 REP_STOSB STORE\n"
                          "1 400000 0 -1 -1 - - S 0 1002 400002 0 REP_STOSB STORE\n7 400002 0 -1 -1 - - S 0 1002 400003 0 X STORE\n");
    char *many = repeat_lines(5000);
    check(roundtrip((uint8_t *)many, strlen(many), 1 << 24, 1), "generated 5000 lines");
    check(roundtrip((uint8_t *)many, strlen(many), 4096, 1), "generated 4 KiB chunks");
    check(roundtrip((uint8_t *)many, strlen(many), 777, 0), "generated mid-line cuts");
    check(uses_cm((uint8_t *)many, strlen(many)), "generated 5000 lines: context-model variant");
    check(fast_level_ok((uint8_t *)many, strlen(many)), "generated 5000 lines: levels 1-5 the zstd variant, 6 up the context model");
    free(many);
    /* a 10 MB line between normal ones */
    size_t big = 10u << 20;
    uint8_t *b = malloc(big + 512);
    size_t n = (size_t)sprintf((char *)b, "%s", L1);
    memset(b + n, 'x', big);
    b[n + 5] = ' ';
    n += big;
    b[n++] = '\n';
    n += (size_t)sprintf((char *)b + n, "%s", L2);
    check(roundtrip(b, n, 1 << 24, 1), "10 MB line");
    /* random bytes */
    uint32_t s = 12345;
    for (size_t i = 0; i < 200000; i++) {
        s = s * 1103515245u + 12345u;
        b[i] = (uint8_t)(s >> 16);
        if ((s >> 8 & 63) == 0) b[i] = '\n';
    }
    check(roundtrip(b, 200000, 1 << 24, 1), "random bytes");
    check(roundtrip(b, 200000, 1000, 0), "random bytes, mid-line cuts");
    free(b);
}

/* ---- damaged streams ----------------------------------------------------- */

static void damaged(const uint8_t *in, size_t len)
{
    enc_out e;
    if (encode(in, len, 9, &e) != TRZ_CODEC_OK) { check(0, "damage: encode"); return; }
    uint8_t *out = malloc(len + 64);
    const uint8_t *sp[TRZ_MAX_STREAMS];
    size_t sl[TRZ_MAX_STREAMS];
    uint8_t *copy[TRZ_MAX_STREAMS] = { 0 };
    uint32_t r = 99;
    int errors = 0, runs = 0;
    for (int trial = 0; trial < 600; trial++) {
        for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
            free(copy[i]);
            copy[i] = e.s[i].n ? malloc(e.s[i].n) : NULL;
            if (copy[i]) memcpy(copy[i], e.s[i].p, e.s[i].n);
            sp[i] = copy[i];
            sl[i] = e.s[i].n;
        }
        r = r * 1103515245u + 12345u;
        /* one of the streams the encoder wrote (either model variant) */
        int used[TRZ_MAX_STREAMS], nused = 0;
        for (int i = 0; i < TRZ_MAX_STREAMS; i++)
            if (e.s[i].n) used[nused++] = i;
        int k = nused ? used[(r >> 16) % (unsigned)nused] : 0, mode = trial % 4;
        if (mode == 0 && sl[k]) sl[k] = (r >> 8) % sl[k]; /* truncate */
        else if (mode == 1 && sl[k]) copy[k][(r >> 4) % sl[k]] ^= (uint8_t)(1 + (r >> 24) % 255);
        else if (mode == 2 && sl[k]) for (size_t j = 0; j < sl[k]; j++) copy[k][j] = (uint8_t)(r = r * 69069u + 1) ;
        size_t dlen = mode == 3 ? len - (len ? (r >> 8) % (len < 100 ? len : 100) : 0) : len;
        runs++;
        errors += decode(&e, sp, sl, out, dlen) != TRZ_CODEC_OK;
    }
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(copy[i]);
    /* entirely random streams */
    for (int trial = 0; trial < 200; trial++) {
        uint8_t junk[13][64];
        for (int i = 0; i < TRZ_MAX_STREAMS; i++) { sp[i] = NULL; sl[i] = 0; }
        for (int i = 0; i < 13; i++) {
            for (int j = 0; j < 64; j++) junk[i][j] = (uint8_t)((r = r * 69069u + 1) >> 24);
            sp[i] = junk[i];
            sl[i] = (r >> 8) % 65;
        }
        runs++;
        errors += decode(&e, sp, sl, out, len) != TRZ_CODEC_OK;
    }
    printf("damaged streams: %d of %d decodes reported an error (no crash)\n", errors, runs);
    check(errors > runs / 2, "damaged streams mostly detected");
    free(out);
    enc_free(&e);
}

/* ---- corpus -------------------------------------------------------------- */

static uint8_t *load(const char *rel, size_t *len)
{
    char path[4096];
    return corpus_load(corpus_path(path, sizeof path, rel), len);
}

static void corpus(void)
{
    size_t n;
    uint8_t *d = load("uop/sjeng-1K.trace", &n);
    if (d) {
        check(roundtrip(d, n, 1 << 24, 1), "sjeng 16 MiB");
        check(roundtrip(d, n, 4096, 1), "sjeng 4 KiB");
        check(roundtrip(d, n, 1000, 0), "sjeng mid-line cuts");
        check(uses_cm(d, n), "sjeng: context-model variant");
        damaged(d, n);
        free(d);
    } else printf("sjeng-1K.trace absent, skipped\n");
    d = load("uop/qemu-x86-gzip6-1M.trace.xz", &n);
    if (d) {
        check(roundtrip(d, n, 1 << 24, 1), "qemu 16 MiB");
        check(uses_cm(d, n < (16u << 20) ? n : (16u << 20)), "qemu: context-model variant");
        check(roundtrip(d, n < (8u << 20) ? n : (8u << 20), 1 << 20, 1), "qemu 1 MiB (first 8 MB)");
        check(roundtrip(d, n < (1u << 20) ? n : (1u << 20), 4096, 1), "qemu 4 KiB (first 1 MB)");
        check(roundtrip(d, n < 300000 ? n : 300000, 3333, 0), "qemu mid-line cuts (first 300 KB)");
        damaged(d, n < 200000 ? n : 200000);
        free(d);
    } else printf("qemu-x86-gzip6-1M.trace absent, skipped\n");
}

int main(void)
{
    edge_cases();
    corpus();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
