/* rc.h - the shared adaptive binary range coder of the trz models: an
 * LZMA-style coder (32-bit range, carry-propagating encoder) with 16-bit
 * probabilities updated by shifts, and the binarisations every model needs
 * (direct bits, bit trees, integers).  One `rc` serves both directions, so a
 * model is written once.  The byte format is specified in coder.md.
 * Integers, hashed context tables and costs are in rc_model.h. */
#ifndef TRZ_RC_H
#define TRZ_RC_H

#include "../codec.h"

/* Every coding function is inlined (TRZ_FORCE_INLINE): with the rc a local
 * of the function running a model's loop, the compiler then knows the
 * direction and keeps the coder's state in registers (coder.md, design
 * notes). */
#include "compiler.h"

/* A probability: P(bit = 0) in 1/65536 units, always in 1..65535 (LZMA's
 * convention: a 0 takes the lower part of the range). */
typedef uint16_t rc_prob;
/* Two-rate probability: a fast estimate in bits 0..15 and a slow one in
 * bits 16..31, both P(bit = 0) as above; a bit is coded with their mean. */
typedef uint32_t rc_prob2;

#define RC_P0 32768u                     /* rc_prob at 1/2 */
#define RC_P2_0 0x80008000u              /* rc_prob2 at 1/2 */
#define RC_SHIFT 4                       /* rc_bit's (and the trees') adaptation shift */
#define RC_FAST 4                        /* rc_bit2: the fast half's shift */
#define RC_SLOW 7                        /* rc_bit2: the slow half's shift */
#define RC_TOP (1u << 24)                /* range is kept at or above this */

typedef struct rc {
    uint32_t range;
    uint32_t code;         /* decoder: the code value minus the range's base */
    uint64_t low;          /* encoder: the range's base, 32 bits plus a carry */
    uint64_t held;         /* encoder: bytes held back for a carry: cache, then held - 1 0xFF */
    uint64_t overrun;      /* decoder: bytes asked for past the end */
    trz_buf *out;          /* encoder output */
    size_t start;          /* encoder: out->n at rc_enc_init */
    const uint8_t *in, *end; /* decoder input */
    int dec;               /* 1 = decoding */
    uint8_t cache;         /* encoder: the first held byte */
} rc;

static inline void rc_init(rc_prob *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = RC_P0;
}
static inline void rc_init2(rc_prob2 *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = RC_P2_0;
}

/* ---- start and end ------------------------------------------------------ */

/* Start encoding: the bytes are appended to out (a codec stream). */
static inline void rc_enc_init(rc *c, trz_buf *out)
{
    memset(c, 0, sizeof *c);
    c->range = 0xFFFFFFFFu;
    c->cache = 0xFF; /* a first byte held as 0xFF before any was cached */
    c->out = out;
    c->start = out->n;
}

/* Start decoding the n bytes at in (in may be NULL when n is 0). */
static inline void rc_dec_init(rc *c, const uint8_t *in, size_t n)
{
    memset(c, 0, sizeof *c);
    c->dec = 1;
    c->range = 0xFFFFFFFFu;
    c->in = in;
    c->end = in ? in + n : in; /* no arithmetic on an absent stream */
    for (int i = 0; i < 4; i++) {
        uint8_t b = 0;
        if (c->in < c->end) b = *c->in++;
        else c->overrun++;
        c->code = c->code << 8 | b;
    }
}

/* Encoder: write the held bytes, a carry added.  Out of line: it runs once
 * an output byte, and inlined into every decision it crowded the registers
 * of the model's loop (clang's encoder ran 45% slower). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void rc_put_held(trz_buf *out, uint32_t first, uint64_t held, uint32_t carry)
{
    trz_put_u8(out, (uint8_t)(first + carry));
    while (--held) trz_put_u8(out, (uint8_t)(0xFF + carry));
}

/* Encoder: move the top byte of low out, held back while a carry could
 * still change it (it is 0xFF, or the bytes before it are held). */
static inline void rc_shift_low(rc *c)
{
    if ((uint32_t)c->low < 0xFF000000u || (c->low >> 32) != 0) {
        if (c->held) rc_put_held(c->out, c->cache, c->held, (uint32_t)(c->low >> 32));
        c->held = 0;
        c->cache = (uint8_t)(c->low >> 24);
    }
    c->held++;
    c->low = (c->low & 0x00FFFFFFu) << 8;
}

/* Encoder: finish the stream.  The value written is the smallest multiple
 * of 2^24 (at the last byte's scale) inside the final range, so only its top
 * byte is needed; it is left out when it is 0 (a decoder reads zeros past
 * the end), so a stream of no decisions is empty.  Returns 0, or -1 when
 * the output ran out of memory. */
static inline int rc_enc_flush(rc *c)
{
    c->low = (c->low + 0xFFFFFFu) & ~(uint64_t)0xFFFFFFu;
    rc_shift_low(c);
    rc_shift_low(c); /* writes every held byte; the last is the top byte of the value */
    trz_buf *o = c->out;
    if (!o->oom && o->n > c->start && o->p[o->n - 1] == 0) o->n--;
    return o->oom ? -1 : 0;
}

/* Decoder: 1 when the stream was well formed and consumed exactly: the
 * decoder asked for 3 bytes past the end (4 when the encoder left out a zero
 * last byte) and the code value is one the flush could have left. */
static inline int rc_dec_ok(const rc *c)
{
    return c->overrun - 3 <= 1 && c->code < RC_TOP;
}

/* Decoder: 1 once it has read further past the end than any well-formed
 * stream makes it: a model's loop may stop there (corrupt input). */
static inline int rc_dec_bad(const rc *c) { return c->overrun > 4; }

/* ---- one decision ------------------------------------------------------- */

TRZ_FORCE_INLINE uint8_t rc_in(rc *c)
{
    if (c->in < c->end) return *c->in++;
    c->overrun++;
    return 0;
}

TRZ_FORCE_INLINE void rc_enc_norm(rc *c)
{
    while (c->range < RC_TOP) { /* twice at most: a decision leaves range >= 2^8 */
        c->range <<= 8;
        rc_shift_low(c);
    }
}

TRZ_FORCE_INLINE void rc_dec_norm(rc *c)
{
    while (c->range < RC_TOP) {
        c->range <<= 8;
        c->code = c->code << 8 | rc_in(c);
    }
}

/* The split point for P(0) = p / 65536: exact (a 64-bit product), so even
 * p = 1 or 65535 gives both parts at least range >> 16 >= 256. */
TRZ_FORCE_INLINE uint32_t rc_bound(uint32_t range, uint32_t p)
{
    return (uint32_t)(((uint64_t)range * p) >> 16);
}

TRZ_FORCE_INLINE int rc_enc_code(rc *c, uint32_t p, int bit)
{
    uint32_t bound = rc_bound(c->range, p);
    if (bit) {
        c->low += bound;
        c->range -= bound;
    } else {
        c->range = bound;
    }
    rc_enc_norm(c);
    return bit;
}

TRZ_FORCE_INLINE int rc_dec_code(rc *c, uint32_t p)
{
    uint32_t bound = rc_bound(c->range, p);
    int bit = c->code >= bound;
    /* conditional moves: a balanced bit would mispredict half the time */
    c->code -= bit ? bound : 0;
    c->range = bit ? c->range - bound : bound;
    rc_dec_norm(c);
    return bit;
}

/* Code bit (0 or 1) with P(0) = p / 65536, 1 <= p <= 65535, and no model
 * update.  Encoding: returns bit.  Decoding: ignores bit, returns the bit
 * read.  Every rc_* coding function follows this rule. */
TRZ_FORCE_INLINE int rc_bit_p(rc *c, uint32_t p, int bit)
{
    return c->dec ? rc_dec_code(c, p) : rc_enc_code(c, p, bit != 0);
}

/* The shift update: move P(0) towards the bit seen by 1/2^s of the gap.
 * p stays in 2^s - 1 .. 65537 - 2^s for s in 1..15. */
TRZ_FORCE_INLINE uint32_t rc_adapt(uint32_t p, int bit, int s)
{
    return bit ? p - (p >> s) : p + ((65536 - p) >> s);
}

/* Code bit with *p, then adapt *p with shift s (1..15; a constant in the
 * caller gives the fastest code). */
TRZ_FORCE_INLINE int rc_bit_s(rc *c, rc_prob *p, int s, int bit)
{
    uint32_t v = *p;
    bit = rc_bit_p(c, v, bit);
    *p = (rc_prob)rc_adapt(v, bit, s);
    return bit;
}

/* Code bit with *p and adapt it at the default rate (RC_SHIFT). */
TRZ_FORCE_INLINE int rc_bit(rc *c, rc_prob *p, int bit) { return rc_bit_s(c, p, RC_SHIFT, bit); }

/* Code bit with the mean of the two halves of *p, then adapt the fast half
 * with RC_FAST and the slow one with RC_SLOW: a decision whose statistics
 * move gets the fast half's reaction and the slow half's precision. */
TRZ_FORCE_INLINE int rc_bit2(rc *c, rc_prob2 *p, int bit)
{
    uint32_t v = *p, f = v & 0xFFFF, s = v >> 16;
    bit = rc_bit_p(c, (f + s) >> 1, bit);
    *p = rc_adapt(s, bit, RC_SLOW) << 16 | rc_adapt(f, bit, RC_FAST);
    return bit;
}

/* ---- binarisations -------------------------------------------------------- */

/* n (0..32) equiprobable bits of v, most significant first, for bits no
 * model predicts.  Returns v's n low bits (decoding: the bits read). */
TRZ_FORCE_INLINE uint32_t rc_direct_k(rc *c, const int enc, uint32_t v, int n) /* enc: 1 encodes, 0 decodes */
{
    uint32_t r = 0;
    for (int i = n - 1; i >= 0; i--) {
        c->range >>= 1;
        if (!enc) {
            uint32_t b = c->code >= c->range;
            c->code -= c->range & (0 - b);
            r = r << 1 | b;
            rc_dec_norm(c);
        } else {
            c->low += c->range & (0 - (uint64_t)((v >> i) & 1));
            rc_enc_norm(c);
        }
    }
    return enc ? (uint32_t)(v & (uint32_t)(((uint64_t)1 << n) - 1)) : r;
}

TRZ_FORCE_INLINE uint32_t rc_direct(rc *c, uint32_t v, int n)
{
    return c->dec ? rc_direct_k(c, 0, v, n) : rc_direct_k(c, 1, v, n);
}

/* An n-bit symbol (n 0..16) through a bit tree: 2^n probabilities, node 1
 * the root, node m's children 2m and 2m+1; entry 0 is not used. */
TRZ_FORCE_INLINE uint32_t rc_tree(rc *c, rc_prob *t, int n, uint32_t v)
{
    uint32_t m = 1;
    for (int i = n - 1; i >= 0; i--) m = m << 1 | (uint32_t)rc_bit(c, &t[m], (int)(v >> i) & 1);
    return m - (1u << n);
}

/* The same with the symbol's bits least significant first (LZMA's reverse
 * tree: the low bits of a value whose high bits were coded before). */
TRZ_FORCE_INLINE uint32_t rc_rtree(rc *c, rc_prob *t, int n, uint32_t v)
{
    uint32_t m = 1, r = 0;
    for (int i = 0; i < n; i++) {
        uint32_t b = (uint32_t)rc_bit(c, &t[m], (int)(v >> i) & 1);
        m = m << 1 | b;
        r |= b << i;
    }
    return r;
}

#endif
