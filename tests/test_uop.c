/* test_uop.c - round-trip and robustness tests for the uop text codec:
 * generated edge cases, both corpus traces at several chunk sizes (also cut
 * mid-line), damaged streams fed to the decoder (run under ASan/UBSan), and
 * carried knowledge: archives of many small chunks (threads, pipes, seeks),
 * hostile facts and damaged knowledge streams. */
#include "codec_args.h"
#include "../codecs/codec.h"
#include "corpus.h"
#include "../codecs/uop/uop_cm.h"
#include "../src/format/format.h"
#include "member_kind.h"
#include "../src/format/know.h"

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
    return trz_codec_encode(&trz_codec_uop, &ea, NULL);
}

static void enc_free(enc_out *e)
{
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(e->s[i].p);
}

/* The same with a member's knowledge (NULL: none). */
static int encode_k(const uint8_t *in, size_t len, int level, const trz_know *k, enc_out *e)
{
    memset(e, 0, sizeof *e);
    uint64_t nrec = 0;
    for (size_t i = 0; i < len; i++) nrec += in[i] == '\n';
    trz_enc_args ea = TEST_ENC_ARGS(in, len, nrec, TRZ_BO_NONE, level, e->s);
    ea.know = k;
    return trz_codec_encode(&trz_codec_uop, &ea, NULL);
}

static int decode_k(const enc_out *e, const uint8_t *const *sp, const size_t *sl, uint8_t *out, size_t len,
                    const trz_know *k)
{
    const uint8_t *p[TRZ_MAX_STREAMS];
    size_t n[TRZ_MAX_STREAMS];
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
        p[i] = sp ? sp[i] : (e->s[i].n ? e->s[i].p : NULL);
        n[i] = sl ? sl[i] : e->s[i].n;
    }
    trz_dec_args da = { p, n, out, len, 0, TRZ_BO_NONE, k, 0 };
    return trz_codec_decode(&trz_codec_uop, &da, NULL);
}

static int decode(const enc_out *e, const uint8_t *const *sp, const size_t *sl, uint8_t *out, size_t len)
{
    return decode_k(e, sp, sl, out, len, NULL);
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
        /* one model for two chunks (lines cut at a newline), reset between
         * them: a larger chunk before a smaller one and the other way */
        size_t h = n < (2u << 20) ? n / 2 : (1u << 20);
        while (h > 0 && d[h - 1] != '\n') h--;
        for (int l = 3; l <= 9; l += 6)
            check(test_model_reuse(&trz_codec_uop, d, h, d + h, h / 4, l, TRZ_BO_NONE) &&
                      test_model_reuse(&trz_codec_uop, d + h, h / 4, d, h, l, TRZ_BO_NONE),
                  l == 3 ? "qemu: a model reset between two chunks, level 3" : "qemu: a model reset between two chunks, level 9");
        free(d);
    } else printf("qemu-x86-gzip6-1M.trace absent, skipped\n");
}

/* ---- carried knowledge ---------------------------------------------------- */

/* A program's trace, generated: functions in four layers (a function calls
 * only ones of the next layer), run again and again from a loop, so that
 * the same code, much of it, comes back in every small chunk.  Loops have
 * trip counts of their own; loads and stores hit the stack, globals or an
 * array that each instruction walks. */
typedef struct {
    uint64_t pc;
    int len, kind, s1, s2, d, trip, mem, to; /* to: a branch's instruction, a call's function */
    int64_t imm;
    const char *mac, *mic;
} ginsn;

enum { G_ALU, G_LOAD, G_STORE, G_COND, G_CALL, G_RET };

typedef struct {
    uint64_t s;
} grng;

static uint64_t gr(grng *g)
{
    g->s ^= g->s << 13;
    g->s ^= g->s >> 7;
    g->s ^= g->s << 17;
    return g->s;
}

typedef struct {
    char *p;
    size_t n, cap;
} gout;

static void emit(gout *o, int u, uint64_t pc, int s1, int s2, int d, char fl, char br, char ls, int64_t imm,
                 uint64_t addr, uint64_t ft, uint64_t tgt, const char *mac, const char *mic)
{
    if (o->n + 300 > o->cap) {
        o->cap = o->cap ? 2 * o->cap : 1 << 20;
        o->p = realloc(o->p, o->cap);
    }
    o->n += (size_t)sprintf(o->p + o->n, "%d %lx %2d %2d %2d %c %c %c %9ld %12lx %12lx %12lx %-8s %s\n", u,
                            (unsigned long)pc, s1, s2, d, fl, br, ls, (long)imm, (unsigned long)addr,
                            (unsigned long)ft, (unsigned long)tgt, mac, mic);
}

#define G_NF 400
#define G_MAXI 40

static char *gen_program(size_t want, uint64_t seed, size_t *len)
{
    static const char *amac[] = { "ADD", "SUB", "MOV", "AND", "XOR", "LEA", "SHL", "CMP" };
    static const char *amic[] = { "ADD", "SUB", "ADD", "AND", "XOR", "ADD", "SHL", "SUB" };
    grng g = { seed };
    ginsn(*f)[G_MAXI] = calloc(G_NF, sizeof *f);
    int *nin = calloc(G_NF, sizeof *nin);
    int(*cnt)[G_MAXI] = calloc(G_NF, sizeof *cnt);
    for (int k = 0; k < G_NF; k++) {
        uint64_t pc = 0x401000 + (uint64_t)k * 0x180;
        int n = 8 + (int)(gr(&g) % (G_MAXI - 8)), calls = 0;
        nin[k] = n;
        for (int i = 0; i < n; i++) {
            ginsn *x = &f[k][i];
            x->pc = pc;
            x->len = 1 + (int)(gr(&g) % 7);
            pc += (uint64_t)x->len;
            unsigned r = (unsigned)(gr(&g) % 100);
            x->kind = i == n - 1 ? G_RET : r < 40 ? G_ALU : r < 62 ? G_LOAD : r < 75 ? G_STORE : r < 90 ? G_COND : G_CALL;
            if (x->kind == G_CALL && (k % 4 == 3 || calls == 2)) x->kind = G_ALU;
            if (x->kind == G_COND && i < 3) x->kind = G_ALU;
            x->s1 = (int)(gr(&g) % 16);
            x->s2 = (int)(gr(&g) % 17) - 1;
            x->d = (int)(gr(&g) % 16);
            int a = (int)(gr(&g) % 8);
            x->mac = amac[a];
            x->mic = amic[a];
            x->imm = gr(&g) % 3 ? 0 : (int64_t)(gr(&g) % 512) - 128;
            x->mem = (int)(gr(&g) % 3);
            if (x->kind == G_COND) {
                x->to = i - 1 - (int)(gr(&g) % 3); /* a short loop back */
                x->trip = 1 + (int)(gr(&g) % 3);
            }
            if (x->kind == G_CALL) {
                x->to = (k / 4 * 4 + 4 + k % 4 + 1 + 4 * (int)(gr(&g) % 8)) % G_NF;
                if (x->to % 4 != k % 4 + 1) x->to = x->to - x->to % 4 + k % 4 + 1;
                calls++;
            }
        }
    }
    gout o = { NULL, 0, 0 };
    uint64_t sp = 0x7ffd0000, arr[G_NF] = { 0 };
    int st[8][2], depth;
    while (o.n < want) {
        depth = 0;
        uint64_t r = gr(&g) % 100;
        st[0][0] = (int)(r * (gr(&g) % 100) / 100) * 4; /* layer 0, the first ones most */
        st[0][1] = 0;
        depth = 1;
        while (depth > 0 && o.n < want) {
            int k = st[depth - 1][0], i = st[depth - 1][1];
            ginsn *x = &f[k][i];
            uint64_t ft = x->pc + (uint64_t)x->len;
            uint64_t ma = x->mem == 0 ? sp - 64 + (uint64_t)(x->s1 * 8) : x->mem == 1 ? 0x601000 + (uint64_t)k * 128 + (uint64_t)i * 8
                                                                         : 0x10000000 + (uint64_t)k * 0x10000 + (arr[k]++ % 512) * 8;
            int next = i + 1;
            switch (x->kind) {
            case G_ALU:
                emit(&o, 1, x->pc, x->s1, x->s2, x->d, x->imm ? 'R' : '-', '-', '-', x->imm, 0, ft, 0, x->mac, x->imm ? "ADD_IMM" : x->mic);
                break;
            case G_LOAD:
                emit(&o, 1, x->pc, x->s1, -1, 45, '-', '-', 'L', (int64_t)(ma & 0xff), ma, ft, 0, x->mac, "LOAD");
                emit(&o, 2, x->pc, 45, x->s2, x->d, 'R', '-', '-', 0, 0, ft, 0, x->mac, x->mic);
                break;
            case G_STORE:
                emit(&o, 1, x->pc, x->s1, x->s2, -1, '-', '-', 'S', 0, ma, ft, 0, x->mac, "STORE");
                break;
            case G_COND: {
                int taken = cnt[k][i] < x->trip;
                cnt[k][i] = taken ? cnt[k][i] + 1 : 0;
                uint64_t t = f[k][x->to].pc;
                emit(&o, 1, x->pc, -1, -1, -1, 'R', taken ? 'T' : 'N', '-', (int64_t)(t - ft), 0, ft, t, "J", "JMP_IMM");
                if (taken) next = x->to;
                break;
            }
            case G_CALL:
                emit(&o, 1, x->pc, 4, -1, -1, '-', '-', 'S', 0, sp - 8, ft, 0, "CALLQ", "STORE");
                emit(&o, 2, x->pc, -1, -1, -1, '-', 'T', '-', 0, 0, ft, f[x->to][0].pc, "CALLQ", "JMP_IMM");
                break;
            default: {
                uint64_t ret = depth > 1 ? f[st[depth - 2][0]][st[depth - 2][1] - 1].pc : 0x400800;
                ret += depth > 1 ? (uint64_t)f[st[depth - 2][0]][st[depth - 2][1] - 1].len : 0;
                emit(&o, 1, x->pc, 4, -1, 45, '-', '-', 'L', 0, sp, ft, 0, "RETQ", "LOAD");
                emit(&o, 2, x->pc, 45, -1, -1, '-', 'T', '-', 0, 0, ft, ret, "RETQ", "JMP_REG");
            }
            }
            if (x->kind == G_RET) {
                depth--;
                sp += 8;
                continue;
            }
            st[depth - 1][1] = next;
            if (x->kind == G_CALL && depth < 8) {
                st[depth][0] = x->to;
                st[depth][1] = 0;
                depth++;
                sp -= 8;
            }
        }
    }
    free(f);
    free(nin);
    free(cnt);
    *len = o.n;
    return o.p;
}

/* Archives through the library: a sink in memory and a source that gives
 * short reads, as a pipe does. */
typedef struct ksink {
    uint8_t *p;
    size_t n, cap;
} ksink;

static int64_t ksink_write(void *o, const void *buf, size_t n)
{
    ksink *s = o;
    if (s->n + n > s->cap) {
        size_t c = s->cap ? s->cap : 1 << 16;
        while (c < s->n + n) c *= 2;
        uint8_t *q = realloc(s->p, c);
        if (!q) return -1;
        s->p = q;
        s->cap = c;
    }
    memcpy(s->p + s->n, buf, n);
    s->n += n;
    return (int64_t)n;
}

typedef struct ksrc {
    const uint8_t *p;
    size_t n, pos;
} ksrc;

static int64_t ksrc_read(void *o, void *buf, size_t n)
{
    ksrc *s = o;
    if (n > s->n - s->pos) n = s->n - s->pos;
    if (n > 10000) n = 10000;
    memcpy(buf, s->p + s->pos, n);
    s->pos += n;
    return (int64_t)n;
}

static ksink kcompress(const uint8_t *in, size_t n, int level, int threads, int64_t chunk, int64_t restart)
{
    ksink a = { NULL, 0, 0 };
    trz_cctx *c = trz_cctx_create();
    trz_cctx_set(c, TRZ_C_LEVEL, level);
    trz_cctx_set(c, TRZ_C_CHUNK_BYTES, chunk);
    trz_cctx_set(c, TRZ_C_THREADS, threads);
    trz_cctx_set(c, TRZ_C_RESTART_BYTES, restart);
    trz_cctx_set(c, TRZ_C_CHAIN, 0); /* carried knowledge (version 3), not chains */
    ksrc s = { in, n, 0 };
    trz_io iio = { &s, ksrc_read, NULL, NULL, NULL }, oio = { &a, NULL, ksink_write, NULL, NULL };
    if (trz_compress(c, &iio, &oio) != TRZ_OK) {
        free(a.p);
        a.p = NULL;
        a.n = 0;
    }
    trz_cctx_free(c);
    return a;
}

/* The whole archive back, through the index or a pipe, with threads. */
static int kreads_back(const ksink *a, const uint8_t *in, size_t n, int pipe, int threads)
{
    trz_reader *r;
    ksrc s = { a->p, a->n, 0 };
    trz_io io = { &s, ksrc_read, NULL, NULL, NULL };
    int rc = pipe ? trz_reader_open_io(&r, &io) : trz_reader_open_mem(&r, a->p, a->n);
    if (rc) {
        trz_reader_close(r);
        return 0;
    }
    trz_reader_set(r, TRZ_R_THREADS, threads);
    uint8_t *back = malloc(n + 1);
    size_t got = 0;
    int64_t k;
    while ((k = trz_read_bytes(r, back + got, n + 1 - got)) > 0) got += (size_t)k;
    int ok = k == 0 && got == n && memcmp(back, in, n) == 0;
    free(back);
    trz_reader_close(r);
    return ok;
}

typedef struct {
    int know, codec_layout;
} kcount;

static void kstreams(void *ctx, const char *format, unsigned id, const char *name, uint64_t raw, uint64_t stored)
{
    (void)format;
    (void)name;
    kcount *c = ctx;
    if (id == TRZ_KNOW_STREAM && raw) {
        c->know = 1;
        c->codec_layout = raw == stored; /* range-coded: stored as it is */
    }
}

/* Seeks to lines across the archive, forward and back; the bytes after each
 * must be the input's from that line on. */
static int kseeks(const ksink *a, const uint8_t *in, size_t n, int tries)
{
    size_t nl = 0;
    for (size_t i = 0; i < n; i++) nl += in[i] == '\n';
    size_t *off = malloc((nl + 1) * sizeof *off), j = 0;
    off[j++] = 0;
    for (size_t i = 0; i < n; i++)
        if (in[i] == '\n' && i + 1 < n) off[j++] = i + 1;
    trz_reader *r;
    int bad = trz_reader_open_mem(&r, a->p, a->n) != TRZ_OK;
    uint8_t buf[4000];
    grng g = { 0x9e3779b97f4a7c15ull };
    for (int t = 0; t < tries && !bad; t++) {
        size_t line = t == 0 ? j / 2 : t == 1 ? j - 1 : (size_t)(gr(&g) % j);
        if (trz_seek(r, line) != TRZ_OK) {
            bad++;
            break;
        }
        size_t want = n - off[line] < sizeof buf ? n - off[line] : sizeof buf, got = 0;
        int64_t k;
        while (got < want && (k = trz_read_bytes(r, buf + got, want - got)) > 0) got += (size_t)k;
        if (got != want || memcmp(buf, in + off[line], want) != 0) bad++;
    }
    trz_reader_close(r);
    free(off);
    return bad == 0;
}

static void know_archives(const uint8_t *in, size_t n)
{
    /* 64 KiB chunks, groups of 16 of them */
    const int64_t chunk = 64 << 10, restart = 1 << 20;
    ksink a1 = kcompress(in, n, 9, 1, chunk, restart), a2 = kcompress(in, n, 9, 2, chunk, restart),
          a3 = kcompress(in, n, 9, 3, chunk, restart), v1 = kcompress(in, n, 9, 1, chunk, 0);
    check(a1.n && member_kind(a1.p) == 3, "uop archive of small chunks: container version 3");
    check(a1.n == a2.n && a1.n == a3.n && memcmp(a1.p, a2.p, a1.n) == 0 && memcmp(a1.p, a3.p, a1.n) == 0,
          "uop knowledge: the same archive for 1, 2 and 3 threads");
    check(kreads_back(&a1, in, n, 0, 1), "uop knowledge: reads back through the index");
    check(kreads_back(&a1, in, n, 1, 1), "uop knowledge: reads back through a pipe");
    check(kreads_back(&a1, in, n, 0, 3), "uop knowledge: reads back with 3 threads");
    check(kreads_back(&a1, in, n, 1, 2), "uop knowledge: reads back from a pipe with 2 threads");
    check(kseeks(&a1, in, n, 300), "uop knowledge: 300 seeks into the middle of groups read the right lines");
    kcount kc = { 0, 0 };
    trz_reader *r;
    if (trz_reader_open_mem(&r, a1.p, a1.n) == TRZ_OK) trz_reader_streams(r, kstreams, &kc);
    trz_reader_close(r);
    check(kc.know && kc.codec_layout, "uop knowledge: knowledge streams, in the codec's layout");
    check(v1.n && member_kind(v1.p) == 1 && kreads_back(&v1, in, n, 0, 1), "uop --restart=0: version 1, reads back");
    printf("uop knowledge, %zu bytes in 64 KiB chunks: %zu with knowledge, %zu without\n", n, a1.n, v1.n);
    check(a1.n < v1.n, "uop knowledge: a program's trace in small chunks is smaller with it");
    /* the zstd variant (level 3) and mid-line cuts (chunks of 20,000 bytes
     * hardly ever end a line) */
    ksink z1 = kcompress(in, n, 3, 1, chunk, restart), z3 = kcompress(in, n, 3, 3, chunk, restart);
    check(z1.n && member_kind(z1.p) == 3 && z1.n == z3.n && memcmp(z1.p, z3.p, z1.n) == 0 && kreads_back(&z1, in, n, 1, 2) &&
              kseeks(&z1, in, n, 100),
          "uop knowledge, level 3: one archive for 1 and 3 threads, reads back, seeks");
    kcount kz = { 0, 0 };
    if (trz_reader_open_mem(&r, z1.p, z1.n) == TRZ_OK) trz_reader_streams(r, kstreams, &kz);
    trz_reader_close(r);
    check(kz.know && !kz.codec_layout, "uop knowledge, level 3: knowledge streams in bytes, coded by the back-end");
    ksink m1 = kcompress(in, n < 600000 ? n : 600000, 9, 2, 20000, 200000);
    check(m1.n && member_kind(m1.p) == 3 && kreads_back(&m1, in, n < 600000 ? n : 600000, 0, 2) &&
              kseeks(&m1, in, n < 600000 ? n : 600000, 100),
          "uop knowledge: chunks cut inside lines read back and seek");
    free(a1.p);
    free(a2.p);
    free(a3.p);
    free(v1.p);
    free(z1.p);
    free(z3.p);
    free(m1.p);
}

/* The facts chunk a teaches, added to s as the writer adds them. */
static void learn_into(trz_kstore *s, const uint8_t *p, size_t n)
{
    trz_kdelta d = { 0 };
    trz_kdelta_reset(&d, s);
    trz_know before = trz_kstore_view(s, trz_kstore_count(s));
    uint64_t nrec = 0;
    for (size_t i = 0; i < n; i++) nrec += p[i] == '\n';
    trz_codec_uop.learn(&before, p, n, nrec, TRZ_BO_NONE, trz_kdelta_add, &d);
    trz_kdelta_free(&d);
}

/* Encode with k, decode with k: the bytes back; then decode with other
 * (facts the encoder did not have): anything but a crash. */
static int lossless_with(const uint8_t *p, size_t n, int level, const trz_know *k, const trz_know *other)
{
    enc_out e;
    uint8_t *out = malloc(n + 1);
    int ok = encode_k(p, n, level, k, &e) == TRZ_CODEC_OK && decode_k(&e, NULL, NULL, out, n, k) == TRZ_CODEC_OK &&
             memcmp(out, p, n) == 0;
    if (other) (void)decode_k(&e, NULL, NULL, out, n, other);
    free(out);
    enc_free(&e);
    return ok;
}

/* A store of hostile facts about the lines of p: entry facts of every
 * length with random fields (indices in range or not), address facts,
 * strings at the first indices and beyond a gap. */
static trz_kstore *hostile_store(const uint8_t *p, size_t n, grng *g)
{
    trz_kstore *s = trz_kstore_create();
    trz_kdelta d = { 0 };
    trz_kdelta_reset(&d, s);
    uint8_t v[64];
    unsigned nstr = (unsigned)(gr(g) % 40);
    for (unsigned j = 0; j < 2; j++)
        for (unsigned i = 0; i < nstr + 3; i++) {
            size_t len = 1 + gr(g) % 12;
            for (size_t b = 0; b < len; b++) v[b] = gr(g) % 3 ? (uint8_t)"ADDSUBLOADSTOREJMP"[gr(g) % 18] : (uint8_t)gr(g);
            trz_kdelta_add(&d, ((uint64_t)j << 12 | (i == nstr + 2 ? 3000 : i)) << 8, v, len);
        }
    for (const uint8_t *q = p, *e = p + n; q < e;) {
        const uint8_t *nl = memchr(q, '\n', (size_t)(e - q));
        unsigned long pc = 0;
        int u = 0;
        if (sscanf((const char *)q, "%d %lx", &u, &pc) == 2 && gr(g) % 2) {
            uint64_t key = (uint64_t)pc << 8 | (uint64_t)(u + (int)(gr(g) % 3) - 1);
            size_t len = gr(g) % 4 ? 24 : gr(g) % 40 + 1;
            for (size_t b = 0; b < len; b++) v[b] = (uint8_t)gr(g);
            if (len >= 4 && gr(g) % 2) { /* indices that the dictionaries hold */
                v[0] = (uint8_t)(gr(g) % (nstr + 1));
                v[1] = 0;
                v[2] = (uint8_t)(gr(g) % (nstr + 1));
                v[3] = 0;
            }
            if (len >= 6 && gr(g) % 2) v[5] = "TN-"[gr(g) % 3];
            trz_kdelta_add(&d, key, v, len);
            trz_kdelta_add(&d, key | (1ull << 63), v + 8, gr(g) % 5 ? 8 : 1 + gr(g) % 20);
        }
        q = nl ? nl + 1 : e;
    }
    trz_kdelta_free(&d);
    return s;
}

static void know_codec(const uint8_t *in, size_t n)
{
    size_t half = n / 2;
    while (half < n && in[half - 1] != '\n') half++;
    const uint8_t *a = in, *b = in + half;
    size_t na = half, nb = n - half < 400000 ? n - half : 400000;
    trz_kstore *s = trz_kstore_create(), *empty = trz_kstore_create();
    learn_into(s, a, na);
    uint32_t after_a = trz_kstore_count(s);
    learn_into(s, b, nb);
    trz_know k = trz_kstore_view(s, trz_kstore_count(s)), ka = trz_kstore_view(s, after_a),
             k0 = trz_kstore_view(empty, 0);
    check(after_a > 100, "uop learn: a chunk of a program teaches facts");
    check(trz_kstore_count(s) > after_a, "uop learn: a later chunk states addresses of code seen before");
    int ok = 1;
    for (int level = 3; level <= 9; level += 6) {
        ok &= lossless_with(b, nb, level, &k, &ka);
        ok &= lossless_with(b, nb, level, &k0, &k);
        /* written without knowledge, read in a group of its own (join) */
        enc_out e;
        uint8_t *out = malloc(nb);
        ok &= encode_k(b, nb, level, NULL, &e) == TRZ_CODEC_OK && decode_k(&e, NULL, NULL, out, nb, &k0) == TRZ_CODEC_OK &&
              memcmp(out, b, nb) == 0;
        free(out);
        enc_free(&e);
    }
    check(ok, "uop knowledge: lossless with the facts, with none, and a chunk without knowledge in an empty group");
    /* hostile facts: still lossless, whatever they say */
    grng g = { 77 };
    int bad = 0;
    for (int t = 0; t < 12; t++) {
        trz_kstore *h = hostile_store(b, 40000, &g);
        trz_know hk = trz_kstore_view(h, trz_kstore_count(h));
        bad += !lossless_with(b, 40000 + (size_t)t * 7000 < nb ? 40000 + (size_t)t * 7000 : nb, t % 2 ? 9 : 3, &hk, &k);
        bad += !lossless_with(b, 60000, 9, &k, &hk);
        trz_kstore_free(h);
    }
    check(bad == 0, "uop knowledge: hostile facts decode safely and lossless");
    /* the knowledge stream: the codec's layout, range-coded (level 9) and
     * in bytes (the fast levels), read back; damaged, refused */
    for (int level = 9; level >= 3; level -= 6) {
        const char *form = level == 9 ? "range-coded" : "byte form";
        char what[160];
        trz_kstore *w = trz_kstore_create();
        trz_kdelta d = { 0 };
        trz_kdelta_reset(&d, w);
        learn_into(w, a, na);
        trz_kdelta_reset(&d, w);
        trz_know before = trz_kstore_view(w, trz_kstore_count(w));
        uint64_t nrec = 0;
        for (size_t i = 0; i < nb; i++) nrec += b[i] == '\n';
        trz_codec_uop.learn(&before, b, nb, nrec, TRZ_BO_NONE, trz_kdelta_add, &d);
        trz_buf ks = { 0 };
        ok = trz_kdelta_write(&d, &trz_codec_uop, before, level, &ks) == TRZ_OK && ks.n > 2 &&
             ks.p[0] == TRZ_KNOW_CODEC && (level == 9 ? ks.p[1] <= 1 : ks.p[1] == 0x81);
        snprintf(what, sizeof what, "uop knowledge stream, %s: the codec's layout (strings, entries and addresses)", form);
        check(ok, what);
        trz_kstore *r = trz_kstore_create();
        learn_into(r, a, na);
        snprintf(what, sizeof what, "uop knowledge stream, %s: applies to the same facts", form);
        check(ok && trz_know_apply(r, &trz_codec_uop, ks.p, ks.n) == TRZ_OK && trz_kstore_count(r) == trz_kstore_count(w),
              what);
        int same = ok && d.n > 100;
        trz_know rk = trz_kstore_view(r, trz_kstore_count(r));
        for (size_t i = 0; same && i < d.n; i++) {
            size_t l;
            const uint8_t *v = trz_know_get(&rk, d.key[i], &l);
            same = v && l == d.len[i] && memcmp(v, d.bytes + d.off[i], l) == 0;
        }
        snprintf(what, sizeof what, "uop knowledge stream, %s: every fact's value comes back", form);
        check(same, what);
        int rejected = 0, runs = 0;
        uint8_t *m = malloc(ks.n + 64);
        for (int it = 0; it < 400 && ok; it++) {
            size_t mn = ks.n;
            memcpy(m, ks.p, ks.n);
            unsigned mode = (unsigned)(gr(&g) % 4);
            if (mode == 0) mn = 1 + gr(&g) % (ks.n - 1);
            else if (mode == 1) m[2 + gr(&g) % (ks.n - 2)] ^= (uint8_t)(1 + gr(&g) % 255);
            else if (mode == 2) for (size_t i = 2 + gr(&g) % (ks.n - 2); i < ks.n; i++) m[i] = (uint8_t)gr(&g);
            else {
                mn = 3 + gr(&g) % 60;
                for (size_t i = 2; i < mn; i++) m[i] = (uint8_t)gr(&g);
            }
            trz_kstore_clear(r);
            if (it % 2) learn_into(r, a, na);
            runs++;
            rejected += trz_know_apply(r, &trz_codec_uop, m, mn) != TRZ_OK;
            /* whatever it added, a chunk decodes with it without harm */
            if (it % 50 == 0) {
                trz_know rk = trz_kstore_view(r, trz_kstore_count(r));
                (void)lossless_with(b, 30000, level, &k, &rk);
            }
        }
        printf("damaged uop knowledge streams (%s): %d of %d refused (no crash)\n", form, rejected, runs);
        snprintf(what, sizeof what, "uop knowledge stream, %s: damage mostly refused", form);
        check(rejected > runs / 2, what);
        free(m);
        free(ks.p);
        trz_kdelta_free(&d);
        trz_kstore_free(r);
        trz_kstore_free(w);
    }
    trz_kstore_free(s);
    trz_kstore_free(empty);
}

static void knowledge(void)
{
    size_t n;
    char *p = gen_program(3u << 20, 1, &n);
    know_archives((const uint8_t *)p, n);
    know_codec((const uint8_t *)p, n < (1u << 20) ? n : (1u << 20));
    free(p);
}

/* ---- chains (codec.h, "Chains") ------------------------------------------- */

typedef struct {
    const uint8_t *p;
    size_t n;
} cpiece;

static uint64_t lines_of(const uint8_t *p, size_t n)
{
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++) k += p[i] == '\n';
    return k;
}

/* Encode the pieces as one chain with m (NULL: each with a model of its
 * own, the chain flag set all the same); e[i] gets piece i's streams.
 * The bytes the streams take (the range coder's as they are, the others
 * packed as the container would), or 0 when an encode fails. */
static size_t chain_enc(trz_model *m, const cpiece *pc, int n, int level, int chain, enc_out *e)
{
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        memset(&e[i], 0, sizeof e[i]);
        uint64_t coded = 0;
        trz_enc_args ea = TEST_ENC_ARGS(pc[i].p, pc[i].n, lines_of(pc[i].p, pc[i].n), TRZ_BO_NONE, level, e[i].s);
        ea.coded = &coded;
        ea.chain = chain;
        if (trz_codec_encode(&trz_codec_uop, &ea, m) != TRZ_CODEC_OK) return 0;
        for (int k = 0; k < TRZ_MAX_STREAMS; k++)
            if (e[i].s[k].n) total += coded >> k & 1 ? e[i].s[k].n : test_packed_size(NULL, e[i].s[k].p, e[i].s[k].n, level);
    }
    return total ? total : 1;
}

static int chain_quiet; /* 1: chain_dec says nothing of a piece that differs */

/* Decode the chain's pieces from..n-1 with d, in order: 1 if every one
 * decodes to its bytes. */
static int chain_dec(trz_model *d, const cpiece *pc, int from, int n, const enc_out *e)
{
    int ok = 1;
    for (int i = from; ok && i < n; i++) {
        const uint8_t *sp[TRZ_MAX_STREAMS];
        size_t sl[TRZ_MAX_STREAMS];
        for (int k = 0; k < TRZ_MAX_STREAMS; k++) {
            sp[k] = e[i].s[k].n ? e[i].s[k].p : NULL;
            sl[k] = e[i].s[k].n;
        }
        uint8_t *out = malloc(pc[i].n + 1);
        trz_dec_args da = { sp, sl, out, pc[i].n, lines_of(pc[i].p, pc[i].n), TRZ_BO_NONE, NULL, 1 };
        ok = out && trz_codec_decode(&trz_codec_uop, &da, d) == TRZ_CODEC_OK && memcmp(out, pc[i].p, pc[i].n) == 0;
        if (!ok && !chain_quiet) printf("  chain: piece %d of %zu bytes differs\n", i, pc[i].n);
        free(out);
    }
    return ok;
}

static int same_streams(const enc_out *a, const enc_out *b)
{
    for (int k = 0; k < TRZ_MAX_STREAMS; k++)
        if (a->s[k].n != b->s[k].n || (a->s[k].n && memcmp(a->s[k].p, b->s[k].p, a->s[k].n) != 0)) return 0;
    return 1;
}

/* 1 if the piece's streams are the range variant's. */
static int is_cm(const enc_out *e) { return e->s[UOP_S_CMVER].n == 1; }

#define CH_N 9

/* The lines with every run of spaces made one: the same values in another
 * layout. */
static uint8_t *squeeze(const uint8_t *p, size_t n, size_t *len)
{
    uint8_t *o = malloc(n + 1);
    size_t k = 0;
    for (size_t i = 0; o && i < n; i++)
        if (p[i] != ' ' || k == 0 || o[k - 1] != ' ') o[k++] = p[i];
    *len = k;
    return o;
}

/* One chain at level: pieces of different sizes and behaviour (two
 * programs, one cut mid-line, a repeat, a small one, an odd one, one in
 * another layout), decoded
 * by a fresh decoder model, then again after a reset; encoding again after
 * a reset writes the same; chunk 2 decoded with a fresh model must not
 * crash. */
static void chain_level(const uint8_t *g1, size_t n1, const uint8_t *g2, size_t n2, const uint8_t *sj, size_t nsj,
                        int level)
{
    char what[128];
    size_t a = n1 / 3;
    while (a > 0 && g1[a - 1] != '\n') a--;
    size_t b = a + 100001; /* a piece ending mid-line: the next starts inside it */
    const char odd[] = "not a uop line\n1 400000 -1 -1 -1 - - - 0 0 400004 0 A B\n\n";
    size_t nsq;
    uint8_t *sq = squeeze(g1, a, &nsq);
    cpiece pc[CH_N] = {
        { g1, a },                       /* program 1 */
        { g2, n2 / 2 },                  /* program 2 */
        { g1 + a, b - a },               /* program 1 again, ends mid-line */
        { g1 + b, n1 - b },              /* starts mid-line */
        { (const uint8_t *)odd, sizeof odd - 1 },
        { sj, nsj },                     /* another trace, small */
        { g1, a },                       /* the first piece again */
        { g2 + n2 / 2, n2 - n2 / 2 },
        { sq, nsq },                     /* the first piece in another layout */
    };
    enc_out e[CH_N], f[CH_N];
    trz_model *m = NULL, *d = NULL;
    if (trz_model_create(&trz_codec_uop, level, 0, &m) != TRZ_CODEC_OK ||
        trz_model_create(&trz_codec_uop, 0, 0, &d) != TRZ_CODEC_OK) {
        check(0, "chain: models");
        return;
    }
    size_t chained = chain_enc(m, pc, CH_N, level, 1, e);
    snprintf(what, sizeof what, "chain level %d: encodes", level);
    check(chained != 0, what);
    int vars = 0;
    for (int i = 0; i < CH_N; i++) vars |= 1 << is_cm(&e[i]);
    snprintf(what, sizeof what, "chain level %d: decodes with a fresh model (variants %s)", level,
             vars == 3 ? "both" : vars == 2 ? "range" : "streams");
    check(chained && chain_dec(d, pc, 0, CH_N, e), what);
    trz_model_reset(&trz_codec_uop, d);
    snprintf(what, sizeof what, "chain level %d: decodes again after a reset", level);
    check(chained && chain_dec(d, pc, 0, CH_N, e), what);
    /* a reset encoder's model writes what a fresh one writes */
    trz_model_reset(&trz_codec_uop, m);
    size_t again = chain_enc(m, pc, CH_N, level, 1, f);
    int same = again == chained;
    for (int i = 0; same && i < CH_N; i++) same = same_streams(&e[i], &f[i]);
    snprintf(what, sizeof what, "chain level %d: a reset model encodes the same chain alike", level);
    check(same, what);
    for (int i = 0; i < CH_N; i++) enc_free(&f[i]);
    /* the repeated piece costs far less chained than alone */
    enc_out one;
    size_t alone = chain_enc(NULL, &pc[6], 1, level, 0, &one), rep = 0;
    enc_free(&one);
    for (int k = 0; k < TRZ_MAX_STREAMS; k++)
        if (e[6].s[k].n) rep += is_cm(&e[6]) && k >= UOP_S_CMCTL ? e[6].s[k].n : test_packed_size(NULL, e[6].s[k].p, e[6].s[k].n, level);
    printf("chain level %d: %zu bytes chained; a repeated piece %zu alone, %zu chained\n", level, chained, alone, rep);
    snprintf(what, sizeof what, "chain level %d: a repeated piece costs far less chained", level);
    check(alone && rep * 2 < alone, what);
    /* pieces decoded from the second on by a fresh model: errors or wrong
     * bytes are allowed, crashes (ASan) are not */
    trz_model_reset(&trz_codec_uop, d);
    chain_quiet = 1;
    int wrong = !chain_dec(d, pc, 1, CH_N, e);
    chain_quiet = 0;
    snprintf(what, sizeof what, "chain level %d: a chain decoded without its first piece goes wrong", level);
    check(wrong, what);
    /* and chained chunks of the chain's streams decoded as chunks that
     * stand alone, from the second on, do not crash either */
    for (int i = 1; i < CH_N; i++) {
        const uint8_t *sp[TRZ_MAX_STREAMS];
        size_t sl[TRZ_MAX_STREAMS];
        for (int k = 0; k < TRZ_MAX_STREAMS; k++) {
            sp[k] = e[i].s[k].n ? e[i].s[k].p : NULL;
            sl[k] = e[i].s[k].n;
        }
        uint8_t *out = malloc(pc[i].n + 1);
        trz_dec_args da = { sp, sl, out, pc[i].n, 0, TRZ_BO_NONE, NULL, 0 };
        (void)trz_codec_decode(&trz_codec_uop, &da, NULL);
        free(out);
    }
    for (int i = 0; i < CH_N; i++) enc_free(&e[i]);
    trz_model_free(&trz_codec_uop, m);
    trz_model_free(&trz_codec_uop, d);
    free(sq);
}

/* Small pieces at a range level: each may come out of either variant
 * (below 256 KiB both are tried; text that is no uop trace comes out of the
 * streams variant), so the chain switches between them. */
static void chain_switch(const uint8_t *g, size_t n, const uint8_t *sj, size_t nsj)
{
    cpiece pc[CH_N];
    static const char junk[] = "hello\nworld\n\nnot a trace\n";
    size_t off = 0, sz[CH_N] = { 3000, 60000, 0, 120000, 5000, 0, 0, 40000, 7000 };
    int vs = 0, ok = 1;
    for (int i = 0; i < CH_N; i++) {
        if (i == 5) { pc[i].p = sj; pc[i].n = nsj < 30000 ? nsj : 30000; continue; }
        if (i == 2 || i == 6) { pc[i].p = (const uint8_t *)junk; pc[i].n = sizeof junk - 1; continue; }
        size_t k = sz[i] < n - off ? sz[i] : n - off;
        while (k > 0 && off + k < n && g[off + k - 1] != '\n') k--;
        pc[i].p = g + off;
        pc[i].n = k;
        off += k;
    }
    enc_out e[CH_N];
    trz_model *m = NULL, *d = NULL;
    ok = trz_model_create(&trz_codec_uop, 9, 0, &m) == TRZ_CODEC_OK &&
         trz_model_create(&trz_codec_uop, 0, 0, &d) == TRZ_CODEC_OK;
    ok = ok && chain_enc(m, pc, CH_N, 9, 1, e) != 0;
    char vars[CH_N + 1];
    for (int i = 0; i < CH_N; i++) {
        vars[i] = ok ? (is_cm(&e[i]) ? 'r' : 's') : '?';
        vs |= ok ? 1 << is_cm(&e[i]) : 0;
    }
    vars[CH_N] = 0;
    printf("chain of small pieces, variants %s\n", vars);
    check(vs == 3, "chain of small pieces at level 9: both variants");
    check(ok && chain_dec(d, pc, 0, CH_N, e), "chain of small pieces at level 9 round-trips");
    /* a damaged piece after good ones, then the pieces after it: errors or
     * wrong bytes, never a crash (ASan) */
    uint32_t r = 4321;
    int errs = 0;
    chain_quiet = 1;
    for (int t = 0; ok && t < 24; t++) {
        int k = 1 + t % (CH_N - 1);
        trz_model_reset(&trz_codec_uop, d);
        int good = chain_dec(d, pc, 0, k, e);
        int used[TRZ_MAX_STREAMS], nu = 0;
        for (int i = 0; i < TRZ_MAX_STREAMS; i++)
            if (e[k].s[i].n) used[nu++] = i;
        r = r * 1103515245u + 12345u;
        int sid = nu ? used[(r >> 16) % (unsigned)nu] : 0;
        trz_buf keep = e[k].s[sid];
        uint8_t *cp = malloc(keep.n + 1);
        if (!cp) break;
        memcpy(cp, keep.p, keep.n);
        if (keep.n) cp[(r >> 4) % keep.n] ^= (uint8_t)(1 + (r >> 24) % 255);
        e[k].s[sid].p = cp;
        if (t % 3 == 2) e[k].s[sid].n = keep.n / 2;
        errs += good && !chain_dec(d, pc, k, CH_N, e);
        e[k].s[sid] = keep;
        free(cp);
    }
    chain_quiet = 0;
    printf("chain of small pieces: %d of 24 damaged pieces found wrong (no crash)\n", errs);
    for (int i = 0; ok && i < CH_N; i++) enc_free(&e[i]);
    trz_model_free(&trz_codec_uop, m);
    trz_model_free(&trz_codec_uop, d);
}

static void chains(void)
{
    size_t n1, n2, nsj = 0;
    char *g1 = gen_program(600000, 7, &n1), *g2 = gen_program(300000, 11, &n2);
    uint8_t *sj = load("uop/sjeng-1K.trace", &nsj);
    /* without the corpus, another small program in its place: 500 equal
     * lines took the stream variant at level 9, and the switch costs the
     * context-model variant its history, so the repeat after it was not cheaper */
    if (!sj)
        sj = (uint8_t *)gen_program(40000, 13, &nsj);
    for (int l = 1; l <= 9; l += 8) chain_level((uint8_t *)g1, n1, (uint8_t *)g2, n2, sj, nsj, l);
    chain_switch((uint8_t *)g1, n1, sj, nsj);
    free(g1);
    free(g2);
    free(sj);
}

int main(void)
{
    edge_cases();
    corpus();
    knowledge();
    chains();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
