/* xxh.h - XXH3 for the chunk checksums and the benchmark's output hash.
 * On x86-64, libxxhash's dispatching entry points pick the widest vector
 * unit at run time (AVX2 where present, SSE2 otherwise); the hash values
 * are the same.  Elsewhere the plain entry points. */
#ifndef TRZ_XXH_H
#define TRZ_XXH_H

#include <xxhash.h>
#if defined(__x86_64__) && defined(__has_include)
#if __has_include(<xxh_x86dispatch.h>)
#include <xxh_x86dispatch.h> /* maps XXH3_64bits* to the *_dispatch versions */
#endif
#endif

#endif
