/* text.c - line starts in text chunks, as FORMAT.md counts them. */
#include <string.h>

#include "text.h"

uint64_t trz_count_lines(const uint8_t *p, size_t n, int midline)
{
    if (n == 0) return 0;
    uint64_t k = midline ? 0 : 1;
    const uint8_t *end = p + n, *q = p;
    while ((q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
        q++;
        if (q < end) k++; /* a newline at the very end starts no line here */
    }
    return k;
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
