/* cm_legacy.h - the decoder of the carry-less 32-bit coder (lpaq style)
 * that the modelled bus paths wrote before they moved to the shared range
 * coder (../common/rc.h): kept only to read those archives (stream versions
 * 4 and 6, byu.md and pbus.md).  Nothing writes it.  It reads its bytes
 * through an rc's input (rc_in), so a cm_coder holds one input either way;
 * cm.h calls it out of line, away from the current coder's path. */
#ifndef TRZ_CM_LEGACY_H
#define TRZ_CM_LEGACY_H

#include "../common/rc.h"

typedef struct cm_legacy {
    uint32_t x1, x2, x; /* interval [x1, x2]; x = the code value */
} cm_legacy;

/* Start on the input rc_dec_init set up in io: the first four bytes it
 * read, big-endian, are the code value. */
static inline void cm_legacy_init(cm_legacy *l, const rc *io)
{
    l->x1 = 0;
    l->x2 = 0xffffffffu;
    l->x = io->code;
}

/* Decode one bit with P(1) = p16 / 65536, 0 < p16 < 65536. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int cm_legacy_code(cm_legacy *l, rc *io, uint32_t p16)
{
    uint32_t r = l->x2 - l->x1;
    uint32_t xmid = l->x1 + (r >> 16) * p16 + (((r & 0xffff) * p16) >> 16);
    int bit = l->x <= xmid;
    if (bit) l->x2 = xmid;
    else l->x1 = xmid + 1;
    while (((l->x1 ^ l->x2) & 0xff000000u) == 0) {
        l->x = l->x << 8 | rc_in(io);
        l->x1 <<= 8;
        l->x2 = l->x2 << 8 | 255;
    }
    return bit;
}

/* 1 when the input was consumed exactly (the encoder's flush wrote the 4
 * bytes that pin a value inside the final interval, and no more). */
static inline int cm_legacy_ok(const rc *io) { return io->overrun == 0 && io->in == io->end; }

/* 1 once the decoder read past the end: no well-formed stream makes it. */
static inline int cm_legacy_bad(const rc *io) { return io->overrun != 0; }

#endif
