/* uop_fmt.c - layout learning, parsing and exact rendering of uop text lines.
 * A column is rendered as: separator, padding to a minimum width (left or
 * right, spaces or zeros), the value (decimal, hex, char or string). */
#include "uop_fmt.h"
#include "../common/compiler.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

enum { CT_DEC, CT_HEX, CT_CHR, CT_STR };
static const uint8_t coltype[UOP_NCOL] = {
    CT_DEC, CT_HEX, CT_DEC, CT_DEC, CT_DEC, CT_CHR, CT_CHR, CT_CHR,
    CT_DEC, CT_HEX, CT_HEX, CT_HEX, CT_STR, CT_STR,
};

static inline int is_ws(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* ---- tokenizing (learning only) ------------------------------------------ */

typedef struct {
    uint16_t gs[UOP_NCOL + 1], gl[UOP_NCOL + 1], ts[UOP_NCOL], tl[UOP_NCOL];
} tok_t;

/* Split a line (no '\n', n < 65536) into gap/token pairs; 0 if 14 tokens. */
static int tokenize(const uint8_t *l, size_t n, tok_t *t)
{
    size_t i = 0;
    for (int c = 0; c <= UOP_NCOL; c++) {
        size_t g = i;
        while (i < n && is_ws(l[i])) i++;
        t->gs[c] = (uint16_t)g;
        t->gl[c] = (uint16_t)(i - g);
        if (c == UOP_NCOL) return i == n ? 0 : -1;
        size_t s = i;
        while (i < n && !is_ws(l[i])) i++;
        if (i == s) return -1;
        t->ts[c] = (uint16_t)s;
        t->tl[c] = (uint16_t)(i - s);
    }
    return -1;
}

int uop_looks_like(const uint8_t *p, size_t n)
{
    tok_t t;
    if (n >= 65536 || tokenize(p, n, &t) != 0) return 0;
    for (int c = 0; c < 2; c++)
        for (unsigned i = 0; i < t.tl[c]; i++) {
            uint8_t ch = p[t.ts[c] + i];
            int hexd = (ch >= '0' && ch <= '9') || ((ch | 32) >= 'a' && (ch | 32) <= 'f') || (ch | 32) == 'x';
            if (!hexd && !(c == 0 && ch == '-')) return 0;
        }
    return t.tl[5] == 1 && t.tl[6] == 1 && t.tl[7] == 1;
}

/* ---- learning ------------------------------------------------------------ */

#define LEARN_MAX 1024
#define HIST 512

typedef struct {
    const uint8_t *line[LEARN_MAX];
    tok_t t[LEARN_MAX];
    int n;
} sample_t;

static void collect(sample_t *s, const uint8_t *in, size_t len)
{
    const uint8_t *p = in, *end = in + len;
    s->n = 0;
    while (p < end && s->n < LEARN_MAX) {
        const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) break;
        size_t n = (size_t)(nl - p);
        if (n < 4096 && tokenize(p, n, &s->t[s->n]) == 0) s->line[s->n++] = p;
        p = nl + 1;
    }
}

static int most_common(const uint16_t *h, int *cnt)
{
    int best = 0;
    for (int i = 1; i < HIST; i++)
        if (h[i] > h[best]) best = i;
    *cnt = h[best];
    return best;
}

/* Decide which padding explains the variable part of gap g. */
static void learn_gap(layout_t *l, const sample_t *s, int g, uint16_t *hr, uint16_t *hl)
{
    int m = 65535, mi = 0, var = 0;
    for (int i = 0; i < s->n; i++)
        if (s->t[i].gl[g] < m) { m = s->t[i].gl[g]; mi = i; }
    memset(hr, 0, HIST * sizeof *hr);
    memset(hl, 0, HIST * sizeof *hl);
    for (int i = 0; i < s->n; i++) {
        const tok_t *t = &s->t[i];
        if (t->gl[g] == m) continue;
        var++;
        int r = t->gl[g] + (g < UOP_NCOL ? t->tl[g] : 0), lf = t->gl[g] + (g > 0 ? t->tl[g - 1] : 0);
        if (g < UOP_NCOL && r < HIST) hr[r]++;
        if (g > 0 && lf < HIST) hl[lf]++;
    }
    const uint8_t *S = s->line[mi] + s->t[mi].gs[g];
    int seplen = m > UOP_MAX_SEP ? UOP_MAX_SEP : m, pad = -1, left = 0;
    if (var) {
        int cr, cl, vr = most_common(hr, &cr), vl = most_common(hl, &cl);
        if (cr >= cl && cr > 0) pad = vr - m;
        else if (cl > 0) { pad = vl - m; left = 1; }
    }
    int allsp = 1;
    for (int i = 0; i < m; i++) allsp &= S[i] == ' ';
    /* A constant run of spaces before tokens of constant length is most
     * likely right-aligned padding (%12lx with short values), not a literal
     * separator: treating it as padding also renders longer values right. */
    if (!var && allsp && m > 1 && g < UOP_NCOL) {
        int L = s->t[0].tl[g], same = 1;
        for (int i = 1; i < s->n && same; i++) same = s->t[i].tl[g] == L;
        if (same) pad = L;
    }
    if (pad >= 0 && allsp && m > 1) { pad += m - 1; seplen = 1; }
    if (g == UOP_NCOL) {
        if (pad >= 0 && left && pad <= UOP_MAX_WIDTH) l->c[g - 1].width = (uint8_t)pad, l->c[g - 1].flags |= UF_LEFT;
        memcpy(l->eol, S, (size_t)seplen);
        l->eol[seplen] = '\n';
        l->eollen = (uint8_t)(seplen + 1);
        return;
    }
    memcpy(l->c[g].sep, S, (size_t)seplen);
    l->c[g].seplen = (uint8_t)seplen;
    if (pad < 0 || pad > UOP_MAX_WIDTH) return;
    if (!left) l->c[g].width = (uint8_t)pad;
    else if (!l->c[g - 1].width) l->c[g - 1].width = (uint8_t)pad, l->c[g - 1].flags |= UF_LEFT;
}

/* Hex case, 0x prefix and zero padding of a numeric column, by majority. */
static void learn_digits(layout_t *l, const sample_t *s, int c, uint16_t *h)
{
    int upper = 0, lower = 0, px = 0, zero = 0;
    memset(h, 0, HIST * sizeof *h);
    for (int i = 0; i < s->n; i++) {
        const uint8_t *t = s->line[i] + s->t[i].ts[c];
        unsigned n = s->t[i].tl[c], k = 0;
        if (n && t[0] == '-') k = 1;
        if (coltype[c] == CT_HEX && n >= 2 && t[0] == '0' && t[1] == 'x') { px++; k = 2; }
        if (n - k > 1 && t[k] == '0') { zero++; h[n < HIST ? n : 0]++; }
        for (unsigned j = k; j < n; j++) {
            upper += t[j] >= 'A' && t[j] <= 'F';
            lower += t[j] >= 'a' && t[j] <= 'f';
        }
    }
    if (coltype[c] == CT_HEX && upper > lower) l->c[c].flags |= UF_UPPER;
    if (coltype[c] == CT_HEX && px * 2 > s->n) l->c[c].flags |= UF_0X;
    if (zero * 2 > s->n) {
        int cnt, w = most_common(h, &cnt);
        if (w > 0 && w <= UOP_MAX_WIDTH) {
            l->c[c].flags = (uint8_t)((l->c[c].flags & ~UF_LEFT) | UF_ZERO);
            l->c[c].width = (uint8_t)w;
        }
    }
}

void layout_learn(layout_t *l, const uint8_t *in, size_t len)
{
    memset(l, 0, sizeof *l);
    for (int c = 1; c < UOP_NCOL; c++) l->c[c].sep[0] = ' ', l->c[c].seplen = 1;
    l->eol[0] = '\n';
    l->eollen = 1;
    sample_t *s = malloc(sizeof *s);
    uint16_t *h = malloc(2 * HIST * sizeof *h);
    if (!s || !h) { free(s); free(h); return; }
    collect(s, in, len);
    if (s->n > 0) {
        for (int g = 0; g <= UOP_NCOL; g++) learn_gap(l, s, g, h, h + HIST);
        for (int c = 0; c < UOP_NCOL; c++)
            if (coltype[c] == CT_DEC || coltype[c] == CT_HEX) learn_digits(l, s, c, h);
    }
    free(s);
    free(h);
}

/* Header, compact because small chunks pay for every byte: per column
 * [sepcode | flags<<2 | has_width<<6] ([width]) ([seplen][sep] if code 3);
 * sepcode 0 = none, 1 = " ", 2 = "\t"; then [eollen][eol]. */
void layout_write(const layout_t *l, trz_buf *b)
{
    for (int c = 0; c < UOP_NCOL; c++) {
        const uop_col_t *k = &l->c[c];
        unsigned code = k->seplen == 0 ? 0 : k->seplen == 1 && k->sep[0] == ' ' ? 1
                      : k->seplen == 1 && k->sep[0] == '\t' ? 2 : 3;
        trz_put_u8(b, (uint8_t)(code | k->flags << 2 | (k->width ? 64 : 0)));
        if (k->width) trz_put_u8(b, k->width);
        if (code == 3) {
            trz_put_u8(b, k->seplen);
            trz_put_bytes(b, k->sep, k->seplen);
        }
    }
    trz_put_u8(b, l->eollen);
    trz_put_bytes(b, l->eol, l->eollen);
}

int layout_read(layout_t *l, trz_rd *r)
{
    memset(l, 0, sizeof *l);
    for (int c = 0; c < UOP_NCOL; c++) {
        uop_col_t *k = &l->c[c];
        uint8_t a = trz_get_u8(r);
        if (a & 128) return -1;
        k->flags = (a >> 2) & 15;
        if (a & 64) k->width = trz_get_u8(r);
        if (k->width > UOP_MAX_WIDTH) return -1;
        switch (a & 3) {
        case 0: break;
        case 1: k->sep[0] = ' ', k->seplen = 1; break;
        case 2: k->sep[0] = '\t', k->seplen = 1; break;
        default: {
            k->seplen = trz_get_u8(r);
            if (k->seplen > UOP_MAX_SEP) return -1;
            const uint8_t *s = trz_get_bytes(r, k->seplen);
            if (s) memcpy(k->sep, s, k->seplen);
        }
        }
    }
    l->eollen = trz_get_u8(r);
    if (l->eollen > UOP_MAX_SEP + 1) return -1;
    const uint8_t *s = trz_get_bytes(r, l->eollen);
    if (s) memcpy(l->eol, s, l->eollen);
    return r->err ? -1 : 0;
}

/* ---- parsing ------------------------------------------------------------- */

/* 1: whitespace (is_ws), 2: '\n' */
static const uint8_t ch_class[256] = { ['\t'] = 1, ['\n'] = 2, ['\v'] = 1, ['\f'] = 1, ['\r'] = 1, [' '] = 1 };

/* Hex digit values, -1 for other bytes. */
static const int8_t hex_val[256] = {
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
     0,  1,  2,  3,  4,  5,  6,  7,  8,  9, -1, -1, -1, -1, -1, -1,
    -1, 10, 11, 12, 13, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, 10, 11, 12, 13, 14, 15, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
};

/* *big is set when the text is an unsigned value above INT64_MAX (some
 * producers print negative immediates that way); v then holds its bits. */
static int parse_dec(const uint8_t *t, size_t n, int64_t *v, uint8_t *big)
{
    size_t i = 0;
    int neg = 0;
    if (n && t[0] == '-') neg = 1, i = 1;
    if (i == n || n - i > 20) return -1;
    uint64_t a = 0;
    if (n - i <= 19) { /* no overflow possible */
        for (; i < n; i++) {
            unsigned d = (unsigned)t[i] - '0';
            if (d > 9) return -1;
            a = a * 10 + d;
        }
    } else
        for (; i < n; i++) {
            unsigned d = (unsigned)t[i] - '0';
            if (d > 9) return -1;
            if (a > (UINT64_MAX - d) / 10) return -1;
            a = a * 10 + d;
        }
    if (neg && a > (uint64_t)1 << 63) return -1;
    *big = !neg && a > (uint64_t)INT64_MAX;
    *v = neg ? (int64_t)(0 - a) : (int64_t)a;
    return 0;
}

static int parse_hex(const uint8_t *t, size_t n, int px, uint64_t *v)
{
    size_t i = 0;
    if (px && n >= 2 && t[0] == '0' && (t[1] | 32) == 'x') i = 2;
    if (i == n) return -1;
    while (i + 1 < n && t[i] == '0') i++;
    if (n - i > 16) return -1;
    uint64_t a = 0;
    for (; i < n; i++) {
        int d = hex_val[t[i]];
        if (d < 0) return -1;
        a = a << 4 | (uint64_t)d;
    }
    *v = a;
    return 0;
}

/* The 14 tokens of a line of under 128 bytes whose only '\n' is its
 * last byte, from a bit mask of its whitespace (SSE2); -1 to take the
 * scalar path (no SSE2, longer lines, a '\n' inside, or not 14 tokens,
 * which the scalar path then handles). */
#if defined(__SSE2__)
/* Bits set in x (no popcnt instruction in the base x86-64 set). */
static inline int popc64(uint64_t x)
{
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
    return (int)((x * 0x0101010101010101ull) >> 56);
}
#endif

static int tokens_fast(const uint8_t *p, size_t n, const uint8_t **tok, size_t *tl)
{
#if defined(__SSE2__)
    if (n && p[n - 1] == '\n') n--;
    if (n >= 128) return -1;
    uint64_t w[2] = { 0, 0 }; /* 1 = a token byte */
    size_t i = 0;
    const __m128i sp = _mm_set1_epi8(' '), nine = _mm_set1_epi8(9), four = _mm_set1_epi8(4);
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
        __m128i t = _mm_sub_epi8(v, nine); /* \t \n \v \f \r are 9..13 */
        __m128i ws = _mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(_mm_min_epu8(t, four), t));
        uint64_t m = (uint64_t)(~_mm_movemask_epi8(ws) & 0xFFFF);
        w[i >> 6] |= m << (i & 63);
    }
    if (i < n && n >= 16) {
        /* the tail: the last 16 bytes again, overlapping what is done */
        size_t q = n - 16;
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + q));
        __m128i t = _mm_sub_epi8(v, nine);
        __m128i ws = _mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(_mm_min_epu8(t, four), t));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')))) return -1;
        uint64_t m = (uint64_t)(~_mm_movemask_epi8(ws) & 0xFFFF);
        if (q < 64) {
            w[0] |= m << q;
            if (q > 48) w[1] |= m >> (64 - q);
        } else w[1] |= m << (q - 64);
        i = n;
    }
    for (; i < n; i++) {
        uint8_t ch = p[i];
        if (ch == '\n') return -1;
        if (!(ch == ' ' || (uint8_t)(ch - 9) <= 4)) w[i >> 6] |= (uint64_t)1 << (i & 63);
    }
    /* token starts: a token byte after a space; ends: a space after one */
    uint64_t lo = w[0], hi = w[1], car = lo >> 63;
    uint64_t s0 = lo & ~(lo << 1), s1 = hi & ~(hi << 1 | car);
    uint64_t e0 = ~lo & lo << 1, e1 = ~hi & (hi << 1 | car);
    /* exactly 14 tokens (each start has its end: bit n is a space) */
    if (popc64(s0) + popc64(s1) != UOP_NCOL) return -1;
    int c = 0;
    for (; s0; s0 &= s0 - 1) tok[c++] = p + __builtin_ctzll(s0);
    for (; s1; s1 &= s1 - 1) tok[c++] = p + 64 + __builtin_ctzll(s1);
    c = 0;
    for (; e0; e0 &= e0 - 1, c++) tl[c] = (size_t)(p + __builtin_ctzll(e0) - tok[c]);
    for (; e1; e1 &= e1 - 1, c++) tl[c] = (size_t)(p + 64 + __builtin_ctzll(e1) - tok[c]);
    return 0;
#else
    (void)p, (void)n, (void)tok, (void)tl;
    return -1;
#endif
}

int uop_parse(const layout_t *l, const uint8_t *p, size_t n, uop_t *x)
{
    const uint8_t *tok[UOP_NCOL];
    size_t tl[UOP_NCOL];
    if (tokens_fast(p, n, tok, tl) < 0) {
        const uint8_t *e = p + n;
        for (int c = 0; c < UOP_NCOL; c++) {
            while (p < e && (ch_class[*p] & 1)) p++;
            const uint8_t *s = p;
            while (p < e && !ch_class[*p]) p++;
            if (p == s) return -1;
            tok[c] = s;
            tl[c] = (size_t)(p - s);
        }
    }
    int64_t *dec[UOP_NCOL] = { &x->u, NULL, &x->s[0], &x->s[1], &x->s[2], NULL, NULL, NULL, &x->imm };
    uint64_t *hex[UOP_NCOL] = { NULL, &x->pc, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &x->addr, &x->ft, &x->tgt };
    for (int c = 0; c < UOP_NCOL; c++) {
        switch (coltype[c]) {
        case CT_DEC: {
            uint8_t big;
            if (parse_dec(tok[c], tl[c], dec[c], &big) || (big && c != 8)) return -1;
            if (c == 8) x->immu = big;
            break;
        }
        case CT_HEX: if (parse_hex(tok[c], tl[c], l->c[c].flags & UF_0X, hex[c])) return -1; break;
        case CT_CHR: if (tl[c] != 1) return -1; x->ch[c - 5] = tok[c][0]; break;
        default:
            if (tl[c] > UOP_MAX_STR) return -1;
            x->sp[c - 12] = tok[c];
            x->sl[c - 12] = (uint8_t)tl[c];
        }
    }
    return 0;
}

/* ---- rendering ----------------------------------------------------------- */

static const char digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Copy n bytes reading none past src + n: overlapping fixed-size moves
 * instead of a call for the short strings of a line. */
TRZ_FORCE_INLINE void copy_short(uint8_t *o, const uint8_t *src, size_t n)
{
    if (n >= 8 && n <= 16) {
        memcpy(o, src, 8);
        memcpy(o + n - 8, src + n - 8, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(o, src, 4);
        memcpy(o + n - 4, src + n - 4, 4);
    } else if (n >= 2 && n < 4) {
        memcpy(o, src, 2);
        memcpy(o + n - 2, src + n - 2, 2);
    } else if (n == 1) *o = *src;
    else memcpy(o, src, n);
}

/* Hex digit pairs: entry i is the two digits of the byte i. */
static const char hex_lo[513] =
    "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
    "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
    "404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f"
    "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
    "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
    "a0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebf"
    "c0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedf"
    "e0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
static const char hex_up[513] =
    "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"
    "202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F"
    "404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F"
    "606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F"
    "808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9F"
    "A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBF"
    "C0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDF"
    "E0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF";

/* Write the digits of v right-aligned ending at e; returns the start. */
TRZ_FORCE_INLINE uint8_t *fmt_u64(uint8_t *e, uint64_t v)
{
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        e -= 2;
        memcpy(e, digits2 + 2 * r, 2);
    }
    if (v >= 10) { e -= 2; memcpy(e, digits2 + 2 * v, 2); }
    else *--e = (uint8_t)('0' + v);
    return e;
}

TRZ_FORCE_INLINE uint8_t *fmt_hex(uint8_t *e, uint64_t v, int upper)
{
    const char *hx = upper ? hex_up : hex_lo;
    while (v >= 256) {
        e -= 2;
        memcpy(e, hx + 2 * (v & 255), 2);
        v >>= 8;
    }
    if (v >= 16) { e -= 2; memcpy(e, hx + 2 * v, 2); }
    else *--e = (uint8_t)hx[2 * v + 1];
    return e;
}

/* Emit one column: separator, padding, prefix (sign / 0x), body.  The
 * output has room for UOP_MAX_LINE bytes from the line's start, so fixed-
 * size copies may write past the column (later columns overwrite it); a
 * numeric body is read 24 bytes at a time from its buffer. */
#define NUM_BUF 48 /* digits end at NUM_END: 24 bytes readable from any start */
#define NUM_END 24
static const uint8_t no_pre[2] = { 0, 0 };
static const uint8_t minus_pre[2] = { '-', 0 };
static const uint8_t hex_pre[2] = { '0', 'x' };

static inline uint8_t *emit_pad(uint8_t *o, const uop_col_t *k, const uint8_t *pre, size_t pl, const uint8_t *body,
                                size_t bl, size_t pad)
{
    if (!(k->flags & (UF_LEFT | UF_ZERO))) { memset(o, ' ', 64); o += pad; }
    memcpy(o, pre, 2);
    o += pl;
    if ((k->flags & (UF_LEFT | UF_ZERO)) == UF_ZERO) { memset(o, '0', 64); o += pad; }
    copy_short(o, body, bl);
    o += bl;
    if (k->flags & UF_LEFT) { memset(o, ' ', 64); o += pad; }
    return o;
}

TRZ_FORCE_INLINE uint8_t *emit_num(uint8_t *o, const uop_col_t *k, const uint8_t *pre, size_t pl, const uint8_t *body,
                                size_t bl)
{
    memcpy(o, k->sep, UOP_MAX_SEP);
    o += k->seplen;
    size_t tot = pl + bl;
    if (k->width > tot) return emit_pad(o, k, pre, pl, body, bl, k->width - tot);
    memcpy(o, pre, 2);
    o += pl;
    memcpy(o, body, 24); /* bl <= 20 */
    return o + bl;
}

TRZ_FORCE_INLINE uint8_t *emit_bytes(uint8_t *o, const uop_col_t *k, const uint8_t *body, size_t bl)
{
    memcpy(o, k->sep, UOP_MAX_SEP);
    o += k->seplen;
    if (k->width > bl) return emit_pad(o, k, no_pre, 0, body, bl, k->width - bl);
    copy_short(o, body, bl);
    return o + bl;
}

TRZ_FORCE_INLINE uint8_t *emit_dec(uint8_t *o, const uop_col_t *k, int64_t v, int uns)
{
    uint8_t tmp[NUM_BUF], *e = tmp + NUM_END;
    int neg = v < 0 && !uns;
    uint64_t a = neg ? 0 - (uint64_t)v : (uint64_t)v;
    uint8_t *s = fmt_u64(e, a);
    return emit_num(o, k, neg ? minus_pre : no_pre, (size_t)neg, s, (size_t)(e - s));
}

TRZ_FORCE_INLINE uint8_t *emit_hex(uint8_t *o, const uop_col_t *k, uint64_t v)
{
    uint8_t tmp[NUM_BUF], *e = tmp + NUM_END;
    uint8_t *s = fmt_hex(e, v, k->flags & UF_UPPER);
    return emit_num(o, k, hex_pre, (k->flags & UF_0X) ? 2 : 0, s, (size_t)(e - s));
}

size_t uop_render_addr(const layout_t *l, const uop_t *x, uint8_t *out, size_t *aoff, size_t *alen)
{
    uint8_t *o = out;
    const uop_col_t *k = l->c;
    o = emit_dec(o, &k[0], x->u, 0);
    o = emit_hex(o, &k[1], x->pc);
    o = emit_dec(o, &k[2], x->s[0], 0);
    o = emit_dec(o, &k[3], x->s[1], 0);
    o = emit_dec(o, &k[4], x->s[2], 0);
    for (int i = 0; i < 3; i++) o = emit_bytes(o, &k[5 + i], &x->ch[i], 1);
    o = emit_dec(o, &k[8], x->imm, x->immu);
    *aoff = (size_t)(o - out);
    o = emit_hex(o, &k[9], x->addr);
    *alen = (size_t)(o - out) - *aoff;
    o = emit_hex(o, &k[10], x->ft);
    o = emit_hex(o, &k[11], x->tgt);
    o = emit_bytes(o, &k[12], x->sp[0], x->sl[0]);
    o = emit_bytes(o, &k[13], x->sp[1], x->sl[1]);
    memcpy(o, l->eol, l->eollen);
    o += l->eollen;
    return (size_t)(o - out);
}

void uop_put_hex(uint8_t *end, uint64_t v, unsigned ndig, int upper)
{
    const char *hx = upper ? hex_up : hex_lo;
    for (; ndig >= 2; ndig -= 2, v >>= 8) {
        end -= 2;
        memcpy(end, hx + 2 * (v & 255), 2);
    }
    if (ndig) end[-1] = (uint8_t)hx[2 * (v & 15) + 1];
}

size_t uop_render_col_addr(const layout_t *l, uint64_t addr, uint8_t *out)
{
    return (size_t)(emit_hex(out, &l->c[9], addr) - out);
}

size_t uop_render(const layout_t *l, const uop_t *x, uint8_t *out)
{
    size_t aoff, alen; /* where the address went: not needed here */
    return uop_render_addr(l, x, out, &aoff, &alen);
}
