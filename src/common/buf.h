/* buf.h - the growable output buffer encoders write streams into (with
 * little-endian and varint puts), and the bounds-checked reader decoders
 * read them with: every get past the end returns 0 and sets a flag, so a
 * decoder of hostile data never reads outside its stream. */
#ifndef TRZ_BUF_H
#define TRZ_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mem.h"

typedef struct trz_buf {
    uint8_t *p;
    size_t n, cap;
    int oom; /* set once an allocation failed; later puts are dropped */
} trz_buf;

static inline int trz_buf_reserve(trz_buf *b, size_t extra)
{
    if (b->oom) return -1;
    if (b->cap - b->n >= extra) return 0;
    size_t want = b->cap ? b->cap : 256;
    while (want - b->n < extra) {
        if (want > ((size_t)-1) / 2) { b->oom = 1; return -1; }
        want *= 2;
    }
    uint8_t *np = trz_big_realloc(b->p, want);
    if (!np) { b->oom = 1; return -1; }
    b->p = np;
    b->cap = want;
    return 0;
}

static inline void trz_put_u8(trz_buf *b, uint8_t v)
{
    if (b->n < b->cap || trz_buf_reserve(b, 1) == 0) b->p[b->n++] = v;
}

static inline void trz_put_bytes(trz_buf *b, const void *src, size_t len)
{
    if (len && trz_buf_reserve(b, len) == 0) {
        memcpy(b->p + b->n, src, len);
        b->n += len;
    }
}

/* Little-endian fixed-width puts (the container's own integers are LE). */
static inline void trz_put_le16(trz_buf *b, uint16_t v)
{
    uint8_t t[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
    trz_put_bytes(b, t, 2);
}
static inline void trz_put_le32(trz_buf *b, uint32_t v)
{
    uint8_t t[4];
    for (int i = 0; i < 4; i++) t[i] = (uint8_t)(v >> (8 * i));
    trz_put_bytes(b, t, 4);
}
static inline void trz_put_le64(trz_buf *b, uint64_t v)
{
    uint8_t t[8];
    for (int i = 0; i < 8; i++) t[i] = (uint8_t)(v >> (8 * i));
    trz_put_bytes(b, t, 8);
}

/* LEB128 unsigned varint, at most 10 bytes for 64 bits. */
static inline void trz_put_uvarint(trz_buf *b, uint64_t v)
{
    if (trz_buf_reserve(b, 10) != 0) return;
    uint8_t *q = b->p + b->n;
    while (v >= 0x80) { *q++ = (uint8_t)(v | 0x80); v >>= 7; }
    *q++ = (uint8_t)v;
    b->n = (size_t)(q - b->p);
}

static inline uint64_t trz_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t trz_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}
static inline void trz_put_svarint(trz_buf *b, int64_t v)
{
    trz_put_uvarint(b, trz_zigzag(v));
}

/* ---- bounds-checked input reader used by decoders ----------------------- */

/* Every get returns 0 once the stream is exhausted and sets `err`; a decoder
 * checks `err` (at least once per chunk, and inside any loop whose trip count
 * comes from stream data) and reports TRZ_CODEC_CORRUPT. */
typedef struct trz_rd {
    const uint8_t *p, *end;
    int err;
} trz_rd;

static inline void trz_rd_init(trz_rd *r, const uint8_t *p, size_t n)
{
    r->p = p;
    r->end = p ? p + n : p; /* an absent stream is NULL: no arithmetic on it */
    r->err = 0;
}
static inline size_t trz_rd_left(const trz_rd *r) { return (size_t)(r->end - r->p); }

static inline uint8_t trz_get_u8(trz_rd *r)
{
    if (r->p < r->end) return *r->p++;
    r->err = 1;
    return 0;
}
static inline const uint8_t *trz_get_bytes(trz_rd *r, size_t len)
{
    if (trz_rd_left(r) < len) { r->err = 1; r->p = r->end; return NULL; }
    const uint8_t *s = r->p;
    if (len) r->p += len; /* an empty stream's p may be NULL */
    return s;
}
static inline uint16_t trz_get_le16(trz_rd *r)
{
    const uint8_t *s = trz_get_bytes(r, 2);
    return s ? (uint16_t)(s[0] | s[1] << 8) : 0;
}
static inline uint32_t trz_get_le32(trz_rd *r)
{
    const uint8_t *s = trz_get_bytes(r, 4);
    return s ? (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24 : 0;
}
static inline uint64_t trz_get_le64(trz_rd *r)
{
    const uint8_t *s = trz_get_bytes(r, 8);
    uint64_t v = 0;
    if (s) for (int i = 7; i >= 0; i--) v = v << 8 | s[i];
    return v;
}
static inline uint64_t trz_get_uvarint(trz_rd *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (r->p >= r->end) { r->err = 1; return 0; }
        uint8_t c = *r->p++;
        if (shift == 63 && c > 1) break; /* more than 64 bits */
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) return v;
    }
    r->err = 1; /* over-long or over-wide varint */
    return 0;
}
static inline int64_t trz_get_svarint(trz_rd *r) { return trz_unzigzag(trz_get_uvarint(r)); }

#endif
