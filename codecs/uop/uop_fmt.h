/* uop_fmt.h - text side of the uop codec: the learned column layout, fast
 * parsing of one line into typed fields and exact re-rendering.  The model
 * in uop.c only ever sees uop_t values. */
#ifndef TRZ_UOP_FMT_H
#define TRZ_UOP_FMT_H

#include "../codec.h"

#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
#include <emmintrin.h>
#endif

#define UOP_NCOL 14
#define UOP_MAX_SEP 8
#define UOP_MAX_WIDTH 63
#define UOP_MAX_STR 255
/* Bound on one rendered line: 14 x (separator + width + longest token) + eol. */
#define UOP_MAX_LINE 8192

enum { UF_LEFT = 1, UF_ZERO = 2, UF_UPPER = 4, UF_0X = 8 };

typedef struct {
    uint8_t sep[UOP_MAX_SEP];
    uint8_t seplen, width, flags;
} uop_col_t;

typedef struct {
    uop_col_t c[UOP_NCOL];
    uint8_t eol[UOP_MAX_SEP + 1];
    uint8_t eollen;
} layout_t;

/* One micro-op.  s[] = src1, src2, dest; ch[] = flags, branch, ld/st. */
typedef struct {
    int64_t u, s[3], imm;
    uint64_t pc, addr, ft, tgt;
    uint8_t ch[3];
    uint8_t immu;          /* imm printed as unsigned 64-bit */
    uint8_t sl[2];
    uint32_t op[2];        /* dictionary indices (model) */
    const uint8_t *sp[2];  /* macro / micro opcode text (render) */
} uop_t;

void layout_learn(layout_t *l, const uint8_t *in, size_t len);
void layout_write(const layout_t *l, trz_buf *b);
int layout_read(layout_t *l, trz_rd *r);

/* Parse one line (n bytes, may include its '\n').  0 on success; the line
 * still has to be rendered and compared to know it is exact. */
int uop_parse(const layout_t *l, const uint8_t *p, size_t n, uop_t *x);

/* Render x into out (at least UOP_MAX_LINE bytes); returns the length. */
size_t uop_render(const layout_t *l, const uop_t *x, uint8_t *out);

/* uop_render, also giving where column 9 (the address, with its
 * separator) starts and its length. */
size_t uop_render_addr(const layout_t *l, const uop_t *x, uint8_t *out, size_t *aoff, size_t *alen);

/* Column 9 alone (separator and address) into out (at least UOP_MAX_LINE
 * bytes); returns its length. */
size_t uop_render_col_addr(const layout_t *l, uint64_t addr, uint8_t *out);

/* The hex digits of v (1 for 0), and the ndig of them written to end
 * at end. */
static inline unsigned uop_hex_digits(uint64_t v) { return v ? (67u - (unsigned)__builtin_clzll(v)) / 4 : 1; }
void uop_put_hex(uint8_t *end, uint64_t v, unsigned ndig, int upper);

/* uop_put_hex where the 16 bytes before end are in the same buffer: with
 * SSE2 the 16 digits are made at once and blended into those bytes. */
static inline void uop_patch_hex(uint8_t *end, uint64_t v, unsigned ndig, int upper)
{
#if defined(__SSE2__) && defined(__x86_64__) && defined(__GNUC__)
    /* the most significant byte first, each byte's high nibble first */
    __m128i b = _mm_cvtsi64_si128((long long)__builtin_bswap64(v));
    __m128i lo = _mm_and_si128(b, _mm_set1_epi8(15)), hi = _mm_and_si128(_mm_srli_epi16(b, 4), _mm_set1_epi8(15));
    __m128i d = _mm_unpacklo_epi8(hi, lo);
    __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(d, _mm_set1_epi8(9)), _mm_set1_epi8(upper ? 'A' - '0' - 10 : 'a' - '0' - 10));
    d = _mm_add_epi8(_mm_add_epi8(d, _mm_set1_epi8('0')), letter);
    const __m128i idx = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    __m128i keep = _mm_cmpgt_epi8(_mm_set1_epi8((char)(16 - ndig)), idx); /* the bytes before the digits */
    __m128i old = _mm_loadu_si128((const __m128i *)(const void *)(end - 16));
    _mm_storeu_si128((__m128i *)(void *)(end - 16), _mm_or_si128(_mm_and_si128(keep, old), _mm_andnot_si128(keep, d)));
#else
    uop_put_hex(end, v, ndig, upper);
#endif
}

/* 1 if the line (without '\n') has 14 fields with numeric first two. */
int uop_looks_like(const uint8_t *p, size_t n);

#endif
