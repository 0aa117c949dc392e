/* hot.h - how the bus codecs' per-record loops are built. */
#ifndef TRZ_BUS_HOT_H
#define TRZ_BUS_HOT_H

/* The per-record loops of the bus codecs are built three times and the
 * loader picks one for the host (GNU ifunc): for x86-64-v3 (AVX2, BMI2: the
 * vector steps of addrmodel.h take the three-operand forms, 8% fewer
 * instructions decoding a valgrind-style BYU trace), with popcount only
 * (am_glitch counts bits on every fetch; the baseline has no instruction
 * for it), and for the baseline.  The cloned loops do no floating-point
 * arithmetic, so every version writes the same bytes.  Compilers without
 * x86-64-v3 clones get the popcount one; elsewhere, or built for such a
 * host already, the attribute is empty.  (The RST and uop loops are not
 * cloned: a v3 build of them ran as many or more instructions.) */
#if defined(__x86_64__) && defined(__GLIBC__) && !defined(__AVX2__) && \
    ((defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11) || (defined(__clang__) && __clang_major__ >= 14))
#define TRZ_HOT_CLONES __attribute__((target_clones("arch=x86-64-v3", "popcnt", "default")))
#elif defined(__x86_64__) && defined(__GLIBC__) && !defined(__POPCNT__) && defined(__GNUC__) && !defined(__clang__) && \
    __GNUC__ >= 6
#define TRZ_HOT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define TRZ_HOT_CLONES
#endif

#endif
