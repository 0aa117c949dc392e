/* mem.c - large blocks (mem.h): from 1 MiB up, mappings of their own,
 * aligned to huge pages and advised for them, and a small pool that keeps
 * model tables for the next chunk instead of giving the pages back. */
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
void *trz_big_malloc_sparse(size_t n) { return malloc(n ? n : 1); }
void *trz_big_realloc(void *p, size_t n) { return realloc(p, n ? n : 1); }
void trz_big_free(void *p, size_t n) { (void)n; free(p); }
void trz_big_release(void *p, size_t n) { (void)n; free(p); }
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

/* From 1 MiB up, whole huge pages mapped for the block alone: unmapping
 * gives them back at once.  (Through malloc, the first large free raises
 * glibc's mmap threshold, later blocks come from the heap and a freed one
 * stays resident: blocks that only one phase of a chunk needs then add up
 * instead of taking turns.) */
static void *map_block(size_t r, int huge)
{
    size_t len = r + HUGE_PAGE;
    if (len < r) return NULL;
    uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return NULL;
    uint8_t *a = (uint8_t *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    if (a > m) munmap(m, (size_t)(a - m));
    if (m + len > a + r) munmap(a + r, (size_t)(m + len - (a + r)));
    if (huge) advise_huge(a, r);
    return a;
}

/* A block for n bytes, whole huge pages: one kept in the pool (*fresh = 0),
 * or a new mapping, zero already (*fresh = 1). */
static void *get_block(size_t n, int *fresh)
{
    size_t r = huge_round(n);
    void *p = NULL;
    *fresh = 0;
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
    *fresh = !p;
    return p ? p : map_block(r, 1);
}

void *trz_big_malloc(size_t n)
{
    if (n < HUGE_PAGE / 2) return malloc(n ? n : 1);
    int fresh;
    return get_block(n, &fresh);
}

void *trz_big_calloc(size_t n)
{
    if (n < HUGE_PAGE / 2) return calloc(1, n ? n : 1);
    int fresh;
    void *p = get_block(n, &fresh);
    if (p && !fresh) memset(p, 0, n);
    return p;
}

/* Growable buffers stay on the C heap (realloc moves them without a copy
 * where it can); they are freed with free(). */
void *trz_big_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (q && n >= HUGE_PAGE / 2) advise_huge(q, n);
    return q;
}

void *trz_big_malloc_sparse(size_t n)
{
    if (n < HUGE_PAGE / 2) return malloc(n ? n : 1);
    void *p = map_block(huge_round(n), 0);
#ifdef MADV_NOHUGEPAGE
    /* also where the kernel gives huge pages unasked (THP "always") */
    if (p) (void)madvise(p, huge_round(n), MADV_NOHUGEPAGE); /* a hint: failure is harmless */
#endif
    return p;
}

void trz_big_release(void *p, size_t n)
{
    if (!p) return;
    if (n < HUGE_PAGE / 2) free(p);
    else munmap(p, huge_round(n));
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
    trz_big_release(p, n);
}

void trz_big_trim(void)
{
    pthread_mutex_lock(&pool_mu);
    while (pool_n) {
        pool_n--;
        munmap(pool[pool_n].p, pool[pool_n].r);
    }
    pool_bytes = 0;
    pthread_mutex_unlock(&pool_mu);
}
#endif
