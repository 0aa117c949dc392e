/* text.h - where the lines of a text chunk start (FORMAT.md, "Records"):
 * at offset 0 unless the chunk starts mid-line, and just after each '\n'
 * inside the chunk. */
#ifndef TRZ_TEXT_H
#define TRZ_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Line starts in p[0..n). */
uint64_t trz_count_lines(const uint8_t *p, size_t n, int midline);
/* Offset of the k-th line start (n when there are not that many). */
size_t trz_line_offset(const uint8_t *p, size_t n, int midline, uint64_t k);

#endif
