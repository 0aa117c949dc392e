/* rc_mix.h - stretch and squash in fixed point for the logistic mixers of
 * the models: probabilities of a 1 in 12 bits (P(1) * 4096), logits * 256
 * clamped to +-2047.  Spec: coder.md, section 9. */
#ifndef TRZ_RC_MIX_H
#define TRZ_RC_MIX_H

#include <stdint.h>

/* squash(d) = 4096 / (1 + e^(-d / 256)) by linear interpolation in a
 * 33-point table. */
static inline int rc_squash(int d)
{
    static const int16_t t[33] = { 1,    2,    3,    6,    10,   16,   27,   45,   73,   120,  194,
                                   310,  488,  747,  1101, 1546, 2047, 2549, 2994, 3348, 3607, 3785,
                                   3901, 3975, 4022, 4050, 4068, 4079, 4085, 4089, 4092, 4093, 4094 };
    if (d > 2047) return 4095;
    if (d < -2047) return 1;
    int w = d & 127;
    d = (d >> 7) + 16;
    return (t[d] * (128 - w) + t[d + 1] * w + 64) >> 7;
}

/* stretch, the inverse of squash, as a table: str[i] = the least x with
 * squash(x) >= i (2047 past the last). */
static inline void rc_stretch_init(int16_t str[4096])
{
    int pi = 0;
    for (int x = -2047; x <= 2047; x++) {
        int v = rc_squash(x);
        for (int i = pi; i <= v; i++) str[i] = (int16_t)x;
        pi = v + 1;
    }
    for (int i = pi; i < 4096; i++) str[i] = 2047;
}

/* P(1) in 12 bits (1..4095) of a 16-bit P(0). */
static inline int rc_p12(uint32_t p0_16)
{
    int p1 = 4096 - (int)(p0_16 >> 4);
    return p1 < 1 ? 1 : p1 > 4095 ? 4095 : p1;
}

#endif
