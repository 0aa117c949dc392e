/* bytes.h - byte-level helpers shared by the container and the codecs:
 * little- and big-endian loads and stores of source records (whole-word
 * where the host allows), bit counts. */
#ifndef TRZ_BYTES_H
#define TRZ_BYTES_H

#include <stdint.h>
#include <string.h>

/* Set bits of x.  Without -mpopcnt, __builtin_popcount is a library call;
 * this is a dozen inline operations on any target, and compilers turn it
 * into one instruction where the target has one (see TRZ_HOT_CLONES). */
static inline unsigned trz_popcount32(uint32_t x)
{
    x -= (x >> 1) & 0x55555555u;
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (x * 0x01010101u) >> 24;
}

/* Index of the lowest set bit of x != 0. */
static inline unsigned trz_ctz32(uint32_t x)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctz(x);
#else
    unsigned n = 0;
    while (!(x & 1)) x >>= 1, n++;
    return n;
#endif
}

/* ---- byte-order helpers for source records ------------------------------ */

/* Whole-word loads and stores where the host allows: the byte-wise forms
 * are not always merged into one access by the compiler (the BYU decoder's
 * stores and the RST codec's fields were not). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TRZ_HOST_LE 1
#else
#define TRZ_HOST_LE 0
#endif

static inline uint16_t trz_ld_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t trz_ld_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t trz_ld_be64(const uint8_t *p)
{
#if TRZ_HOST_LE && defined(__GNUC__)
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
#else
    return (uint64_t)trz_ld_be32(p) << 32 | trz_ld_be32(p + 4);
#endif
}
static inline uint16_t trz_ld_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t trz_ld_le32(const uint8_t *p)
{
#if TRZ_HOST_LE
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}
static inline uint64_t trz_ld_le64(const uint8_t *p) { return (uint64_t)trz_ld_le32(p + 4) << 32 | trz_ld_le32(p); }
static inline void trz_st_be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void trz_st_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void trz_st_be64(uint8_t *p, uint64_t v)
{
#if TRZ_HOST_LE && defined(__GNUC__)
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
#else
    trz_st_be32(p, (uint32_t)(v >> 32));
    trz_st_be32(p + 4, (uint32_t)v);
#endif
}
static inline void trz_st_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void trz_st_le32(uint8_t *p, uint32_t v)
{
#if TRZ_HOST_LE
    memcpy(p, &v, 4);
#else
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
#endif
}
static inline void trz_st_le64(uint8_t *p, uint64_t v) { trz_st_le32(p, (uint32_t)v); trz_st_le32(p + 4, (uint32_t)(v >> 32)); }

#endif
