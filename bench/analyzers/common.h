/* common.h - what the analyzer examples share: one input layer that hands
 * out batches of whole records either through libtrz's reader API (a .trz
 * file) or from a raw trace (a file, or '-' for stdin), so that both paths
 * feed the same analysis; and a small set-associative LRU cache model. */
#ifndef TRZ_ANALYZERS_COMMON_H
#define TRZ_ANALYZERS_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trz.h"

/* Called with n whole records (n * record_size bytes), in trace order. */
typedef int (*an_batch_fn)(void *ctx, const uint8_t *recs, size_t n);

typedef struct an_input {
    /* set by an_open */
    int via_api;          /* 1: a .trz read through the reader API */
    const char *format;   /* the archive's codec name ("raw" for raw input) */
    int byte_order;       /* TRZ_BYTE_ORDER_* the archive recorded, else NONE */
    /* options, set before an_run */
    int threads;          /* TRZ_R_THREADS for decode-ahead (API only) */
    int use_read;         /* 1: trz_read into a big buffer instead of trz_foreach */
    /* private */
    trz_reader *reader;
    int fd;
    uint32_t archive_record_size;
} an_input;

/* Open `path` ("-" = raw trace on stdin).  A file that is not a .trz is
 * read raw.  Returns 0, or prints the reason to stderr and returns -1. */
int an_open(an_input *in, const char *prog, const char *path);

/* Feed every whole record of size rs to fn (a partial last record is
 * dropped, as trz_read does).  Returns 0, fn's non-zero result, or -1 after
 * printing a read error. */
int an_run(an_input *in, const char *prog, size_t rs, an_batch_fn fn, void *ctx);

void an_close(an_input *in);

/* Parse a non-negative decimal option value; -1 when malformed. */
long an_parse_count(const char *s);

/* ---- cache model: set-associative, LRU, write-allocate ---- */
#define AN_CACHE_WAYS 4
typedef struct an_cache {
    unsigned line_shift, set_mask;
    uint64_t *tags;      /* sets x ways, most recently used first; line+1, 0 = empty */
    uint64_t accesses, hits;
} an_cache;

/* size_bytes / (64-byte lines x 4 ways) sets; both powers of two. */
int an_cache_init(an_cache *c, size_t size_bytes, unsigned line_bytes);
void an_cache_free(an_cache *c);

/* One access; returns 1 on a hit.  The set's ways are kept in LRU order, so
 * a hit moves its tag to the front and a miss evicts the last way. */
static inline int an_cache_access(an_cache *c, uint64_t addr)
{
    uint64_t line = (addr >> c->line_shift) + 1;
    uint64_t *w = c->tags + (size_t)((line - 1) & c->set_mask) * AN_CACHE_WAYS;
    c->accesses++;
    if (w[0] == line) { c->hits++; return 1; }
    int i = 1;
    while (i < AN_CACHE_WAYS && w[i] != line) i++;
    int hit = i < AN_CACHE_WAYS;
    if (!hit) i = AN_CACHE_WAYS - 1;
    memmove(w + 1, w, (size_t)i * sizeof *w);
    w[0] = line;
    c->hits += (uint64_t)hit;
    return hit;
}

/* "12.34" for hits/total as a percentage, "-" when total is 0. */
const char *an_pct(char *buf, size_t len, uint64_t part, uint64_t total);

#endif
