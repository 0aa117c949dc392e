/* hash.h - XXH3 for the chunk checksums and the benchmark's output hash.
 * Debian's shared libxxhash also exports entry points that pick the widest
 * vector unit at run time (AVX2 where present; the hash values are the
 * same); its static library does not.  So they are weak references here:
 * used when the program got them, the plain entry points otherwise. */
#ifndef TRZ_HASH_H
#define TRZ_HASH_H

#include <stddef.h>
#include <stdint.h>

#include <xxhash.h>

#if defined(__x86_64__) && defined(__GNUC__) && defined(__ELF__)
XXH64_hash_t XXH3_64bits_dispatch(const void *input, size_t len) __attribute__((weak));
XXH_errorcode XXH3_64bits_update_dispatch(XXH3_state_t *state, const void *input, size_t len) __attribute__((weak));
#define TRZ_XXH_DISPATCH 1
#else
#define TRZ_XXH_DISPATCH 0
#endif

/* The dispatched entry points return with the upper halves of the vector
 * registers in use (AVX2 or AVX-512 code without a closing vzeroupper).
 * Every SSE instruction after that, trz's own and the host program's
 * (a simulator calling trz_read in its loop), then pays for a merge with
 * the dirty upper state on many cores, so the state is cleaned after each
 * call; vzeroupper exists only where the CPU has AVX. */
static inline void trz_vec_clean(void)
{
#if TRZ_XXH_DISPATCH
    if (__builtin_cpu_supports("avx")) __asm__ volatile("vzeroupper");
#endif
}

/* XXH3-64 (seed 0) and its low 32 bits: the container's checks. */
static inline uint64_t trz_xxh64(const void *p, size_t n)
{
#if TRZ_XXH_DISPATCH
    if (XXH3_64bits_dispatch) {
        uint64_t h = XXH3_64bits_dispatch(p, n);
        trz_vec_clean();
        return h;
    }
#endif
    return XXH3_64bits(p, n);
}
static inline uint32_t trz_xxh32low(const void *p, size_t n) { return (uint32_t)trz_xxh64(p, n); }

/* XXH3_64bits_update, dispatched where it can be. */
static inline XXH_errorcode trz_xxh_update(XXH3_state_t *st, const void *p, size_t n)
{
#if TRZ_XXH_DISPATCH
    if (XXH3_64bits_update_dispatch) {
        XXH_errorcode e = XXH3_64bits_update_dispatch(st, p, n);
        trz_vec_clean();
        return e;
    }
#endif
    return XXH3_64bits_update(st, p, n);
}

#endif
