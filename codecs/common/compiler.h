/* compiler.h - the one spelling of what the codecs ask of the compiler. */
#ifndef TRZ_COMPILER_H
#define TRZ_COMPILER_H

/* A function inlined wherever it is called: the per-record and per-line
 * steps of the codecs' loops, and the coder's calls (with the coder a
 * local of the loop, the compiler then knows its direction and keeps its
 * state in registers: coder.md, design notes). */
#if defined(__GNUC__)
#define TRZ_INLINE static inline __attribute__((always_inline))
#else
#define TRZ_INLINE static inline
#endif

#endif
