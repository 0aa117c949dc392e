/* util.c - small pieces the rest of libtrz shares: result strings, version,
 * hashing, large buffers, fd and memory I/O, line counting. */
#define _DEFAULT_SOURCE /* madvise and MADV_HUGEPAGE */
#include <errno.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "xxh.h"

#include "internal.h"

unsigned trz_version_number(void) { return TRZ_VERSION_NUMBER; }

#define STR2(x) #x
#define STR(x) STR2(x)
const char *trz_version_string(void)
{
    return STR(TRZ_VERSION_MAJOR) "." STR(TRZ_VERSION_MINOR) "." STR(TRZ_VERSION_PATCH);
}

const char *trz_strerror(int r)
{
    switch (r) {
    case TRZ_OK: return "success";
    case TRZ_ERR_IO: return "I/O error";
    case TRZ_ERR_NOMEM: return "out of memory";
    case TRZ_ERR_NOT_TRZ: return "not a trz file";
    case TRZ_ERR_VERSION: return "unsupported trz format version";
    case TRZ_ERR_CORRUPT: return "corrupt data";
    case TRZ_ERR_CHECKSUM: return "checksum mismatch";
    case TRZ_ERR_TRUNCATED: return "unexpected end of file";
    case TRZ_ERR_LIMIT: return "size exceeds limits";
    case TRZ_ERR_PARAM: return "invalid parameter";
    case TRZ_ERR_UNSUPPORTED: return "unsupported";
    case TRZ_ERR_RANGE: return "record number out of range";
    case TRZ_ERR_CODEC: return "codec failure";
    default: return "unknown error";
    }
}

const char *trz_format_name(size_t i)
{
    const trz_codec *c = trz_codec_at(i);
    return c ? c->name : NULL;
}

const char *trz_format_description(size_t i)
{
    const trz_codec *c = trz_codec_at(i);
    return c ? c->description : NULL;
}

int trz_ncpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

uint64_t trz_xxh64(const void *p, size_t n) { return XXH3_64bits(p, n); }
uint32_t trz_xxh32low(const void *p, size_t n) { return (uint32_t)XXH3_64bits(p, n); }

/* ---- large buffers ---- */
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

/* ---- fd I/O ---- */
static int64_t fd_read(void *o, void *buf, size_t n)
{
    int fd = *(int *)o;
    for (;;) {
        ssize_t r = read(fd, buf, n > (1u << 30) ? (1u << 30) : n);
        if (r >= 0) return r;
        if (errno != EINTR) return -1;
    }
}

static int64_t fd_write(void *o, const void *buf, size_t n)
{
    int fd = *(int *)o;
    const uint8_t *p = buf;
    size_t left = n;
    while (left) {
        ssize_t r = write(fd, p, left > (1u << 30) ? (1u << 30) : left);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) { errno = ENOSPC; return -1; }
        p += r;
        left -= (size_t)r;
    }
    return (int64_t)n;
}

static int fd_seek(void *o, uint64_t off)
{
    return lseek(*(int *)o, (off_t)off, SEEK_SET) == (off_t)off ? 0 : -1;
}

static int64_t fd_size(void *o)
{
    struct stat st;
    if (fstat(*(int *)o, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    return st.st_size;
}

void trz_io_fd(trz_io *io, int *fd)
{
    struct stat st;
    int reg = fstat(*fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(*fd, 0, SEEK_CUR) >= 0;
    io->opaque = fd;
    io->read = fd_read;
    io->write = fd_write;
    io->seek = reg ? fd_seek : NULL;
    io->size = reg ? fd_size : NULL;
}

/* ---- memory I/O ---- */
static int64_t mem_read(void *o, void *buf, size_t n)
{
    trz_memio *m = o;
    size_t left = m->n - m->pos;
    if (n > left) n = left;
    memcpy(buf, m->p + m->pos, n);
    m->pos += n;
    return (int64_t)n;
}

static int mem_seek(void *o, uint64_t off)
{
    trz_memio *m = o;
    if (off > m->n) return -1;
    m->pos = (size_t)off;
    return 0;
}

static int64_t mem_size(void *o) { return (int64_t)((trz_memio *)o)->n; }

void trz_io_mem(trz_io *io, void *state)
{
    io->opaque = state;
    io->read = mem_read;
    io->write = NULL;
    io->seek = mem_seek;
    io->size = mem_size;
}

/* ---- text lines ---- */
uint64_t trz_count_lines(const uint8_t *p, size_t n, int midline)
{
    if (n == 0) return 0;
    uint64_t k = midline ? 0 : 1;
    const uint8_t *end = p + n, *q = p;
    while ((q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
        q++;
        if (q < end) k++; /* a newline at the very end starts no line here */
    }
    return k;
}

size_t trz_line_offset(const uint8_t *p, size_t n, int midline, uint64_t k)
{
    if (!midline) {
        if (k == 0) return 0;
    } else {
        k++;
    }
    const uint8_t *end = p + n, *q = p;
    while (k && (q = memchr(q, '\n', (size_t)(end - q))) != NULL) {
        q++;
        k--;
    }
    return q ? (size_t)(q - p) : n;
}
