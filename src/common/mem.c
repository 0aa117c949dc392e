/* mem.c - large blocks (mem.h): aligned to huge pages and advised for
 * them from 1 MiB up, and a small pool that keeps model tables for the next
 * chunk instead of giving the pages back. */
#define _DEFAULT_SOURCE /* madvise and MADV_HUGEPAGE */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mem.h"

/* Under AddressSanitizer plain allocations: its allocator poisons every byte
 * of an aligned, rounded-up block, which only slows the tests down. */
#if defined(__SANITIZE_ADDRESS__)
#define BIG_PLAIN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BIG_PLAIN 1
#endif
#endif

#define HUGE_PAGE ((size_t)2 << 20) /* buffers of HUGE_PAGE / 2 and more are advised */

#ifndef BIG_PLAIN
static void advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    uintptr_t e = ((uintptr_t)p + n) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE); /* a hint: failure is harmless */
#else
    (void)p; (void)n;
#endif
}
#endif

#ifdef BIG_PLAIN
void *trz_big_malloc(size_t n) { return malloc(n ? n : 1); }
void *trz_big_calloc(size_t n) { return calloc(1, n ? n : 1); }
void *trz_big_realloc(void *p, size_t n) { return realloc(p, n ? n : 1); }
void trz_big_free(void *p, size_t n) { (void)n; free(p); }
void trz_big_trim(void) {}
#else
/* Blocks given back with trz_big_free wait here for the next chunk's model
 * tables of the same size: a fresh block costs page faults and the kernel
 * zeroing every page, which was a fifth of the time of a chunk's encoding.
 * Bounded in count and bytes; trz_big_trim empties it. */
#define POOL_N 32
#define POOL_MAX ((size_t)512 << 20)
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct { void *p; size_t r; } pool[POOL_N];
static size_t pool_n, pool_bytes;

static size_t huge_round(size_t n) { return (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1); }

void *trz_big_malloc(size_t n)
{
    if (n < HUGE_PAGE / 2) return malloc(n ? n : 1);
    /* from 1 MiB up, whole huge pages: at most twice the size asked for */
    size_t r = huge_round(n);
    void *p = NULL;
    if (r < n) return NULL;
    pthread_mutex_lock(&pool_mu);
    for (size_t i = 0; i < pool_n; i++)
        if (pool[i].r == r) {
            p = pool[i].p;
            pool[i] = pool[--pool_n];
            pool_bytes -= r;
            break;
        }
    pthread_mutex_unlock(&pool_mu);
    if (p) return p;
    if (posix_memalign(&p, HUGE_PAGE, r) != 0) return NULL;
    advise_huge(p, r);
    return p;
}

void *trz_big_calloc(size_t n)
{
    if (n < HUGE_PAGE / 2) return calloc(1, n ? n : 1);
    void *p = trz_big_malloc(n);
    if (p) memset(p, 0, n);
    return p;
}

void *trz_big_realloc(void *p, size_t n)
{
    if (!p) return trz_big_malloc(n);
    void *q = realloc(p, n ? n : 1);
    if (q && n >= HUGE_PAGE / 2) advise_huge(q, n);
    return q;
}

void trz_big_free(void *p, size_t n)
{
    if (!p) return;
    if (n >= HUGE_PAGE / 2) {
        size_t r = huge_round(n);
        pthread_mutex_lock(&pool_mu);
        int kept = pool_n < POOL_N && pool_bytes + r <= POOL_MAX;
        if (kept) {
            pool[pool_n].p = p;
            pool[pool_n++].r = r;
            pool_bytes += r;
        }
        pthread_mutex_unlock(&pool_mu);
        if (kept) return;
    }
    free(p);
}

void trz_big_trim(void)
{
    pthread_mutex_lock(&pool_mu);
    while (pool_n) free(pool[--pool_n].p);
    pool_bytes = 0;
    pthread_mutex_unlock(&pool_mu);
}
#endif

