/* unit.h - what the unit tests share: pass/fail counting with a printf-style
 * message (each test ends with "N passed, M failed"), a xorshift64 generator seeded by
 * UNIT_RNG_SEED (defined before the include; each test keeps its own data)
 * and a chunk's stream buffers. */
#ifndef TRZ_TEST_UNIT_H
#define TRZ_TEST_UNIT_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int npass, nfail;

/* Counts a pass or a failure; a failure prints "FAIL: " and the message.
 * Returns ok, so that a test can stop at a failed step. */
static int check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int check(int ok, const char *fmt, ...)
{
    if (ok) { npass++; return 1; }
    nfail++;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    return 0;
}

#ifdef UNIT_RNG_SEED
static uint64_t rng_state = UNIT_RNG_SEED;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
#endif

#ifdef TRZ_MAX_STREAMS
typedef struct { trz_buf s[TRZ_MAX_STREAMS]; } streams;

static inline void free_streams(streams *st)
{
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(st->s[i].p);
}
#endif
#endif
