/* compiler.h - the compiler hints of the codecs, spelled once.
 *
 * TRZ_FORCE_INLINE: a static function always inlined.  A model's coding
 * functions take the direction (`enc`) as an argument that is a constant in
 * each caller: only inlined is the direction folded in and the coder's state
 * kept in registers (coder.md, design notes), so this is not left to the
 * compiler's judgment.  TRZ_NOINLINE keeps a loop's encoder and decoder
 * instances apart; TRZ_LIKELY and TRZ_UNLIKELY mark the branches a model
 * expects; TRZ_PREFETCH a table line it will read soon. */
#ifndef TRZ_COMPILER_H
#define TRZ_COMPILER_H

#if defined(__GNUC__)
#define TRZ_FORCE_INLINE static inline __attribute__((always_inline))
#define TRZ_NOINLINE __attribute__((noinline))
#define TRZ_LIKELY(x) __builtin_expect(!!(x), 1)
#define TRZ_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TRZ_PREFETCH(p) __builtin_prefetch(p)
#else
#define TRZ_FORCE_INLINE static inline
#define TRZ_NOINLINE
#define TRZ_LIKELY(x) (x)
#define TRZ_UNLIKELY(x) (x)
#define TRZ_PREFETCH(p) ((void)(p))
#endif

#endif
