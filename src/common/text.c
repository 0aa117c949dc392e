/* text.c - line starts in text chunks, as FORMAT.md counts them. */
#include <string.h>

#include "text.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The '\n' bytes of p[0..n): with SSE2, per 16 bytes a compare whose -1
 * bytes are subtracted from byte counters, summed before they overflow (a
 * memchr per line was a call per line of every decoded text chunk). */
static uint64_t count_nl(const uint8_t *p, size_t n)
{
    uint64_t k = 0;
    size_t i = 0;
#if defined(__SSE2__)
    const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
    while (n - i >= 64) {
        size_t blocks = (n - i) / 64;
        if (blocks > 63) blocks = 63; /* 4 per block: a counter stays below 256 */
        __m128i a0 = zero, a1 = zero;
        for (size_t b = 0; b < blocks; b++, i += 64) {
            const __m128i *q = (const __m128i *)(const void *)(p + i);
            a0 = _mm_sub_epi8(a0, _mm_cmpeq_epi8(_mm_loadu_si128(q), nl));
            a1 = _mm_sub_epi8(a1, _mm_cmpeq_epi8(_mm_loadu_si128(q + 1), nl));
            a0 = _mm_sub_epi8(a0, _mm_cmpeq_epi8(_mm_loadu_si128(q + 2), nl));
            a1 = _mm_sub_epi8(a1, _mm_cmpeq_epi8(_mm_loadu_si128(q + 3), nl));
        }
        __m128i s = _mm_add_epi64(_mm_sad_epu8(a0, zero), _mm_sad_epu8(a1, zero));
        k += (uint64_t)_mm_cvtsi128_si32(s) + (uint64_t)_mm_cvtsi128_si32(_mm_srli_si128(s, 8));
    }
#endif
    for (; i < n; i++) k += p[i] == '\n';
    return k;
}

uint64_t trz_count_lines(const uint8_t *p, size_t n, int midline)
{
    if (n == 0) return 0;
    /* a newline at the very end starts no line here */
    return (midline ? 0 : 1) + count_nl(p, n) - (p[n - 1] == '\n');
}

size_t trz_line_offset(const uint8_t *p, size_t n, int midline, uint64_t k)
{
    if (!midline) {
        if (k == 0) return 0;
    } else {
        k++;
    }
    const uint8_t *end = p + n, *q = p;
    while (k && (q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
        q++;
        k--;
    }
    return q ? (size_t)(q - p) : n;
}
