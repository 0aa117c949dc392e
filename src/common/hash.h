/* hash.h - XXH3 for the chunk checksums and the benchmark's output hash.
 * On x86-64, libxxhash's dispatching entry points pick the widest vector
 * unit at run time (AVX2 where present, SSE2 otherwise); the hash values
 * are the same.  Elsewhere the plain entry points. */
#ifndef TRZ_HASH_H
#define TRZ_HASH_H

#include <stddef.h>
#include <stdint.h>

#include <xxhash.h>
#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<xxh_x86dispatch.h>)
#include <xxh_x86dispatch.h> /* maps XXH3_64bits* to the *_dispatch versions */
#endif
#endif

/* XXH3-64 (seed 0) and its low 32 bits: the container's checks. */
static inline uint64_t trz_xxh64(const void *p, size_t n) { return XXH3_64bits(p, n); }
static inline uint32_t trz_xxh32low(const void *p, size_t n) { return (uint32_t)XXH3_64bits(p, n); }

#endif
