/* bus_stats.c - an example bus-trace analyzer on top of libtrz: for BYU
 * (12-byte LE) and PEL Pentium bus (6-byte, BE address) traces, the request
 * mix and the hit rate of a 32 KB 4-way 64 B LRU cache per request type
 * (one cache per BYU proc).  Reads a .trz through the reader API or a raw
 * trace (file or '-' for stdin), with the same analysis on both paths.
 *   bus_stats [-T threads] [-R] [-f byu|pbus] FILE.trz | RAWFILE | -        */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "trz_records.h"

#define CACHE_BYTES (32u << 10)
#define CACHE_LINE 64u
enum { F_BYU, F_PBUS };

typedef struct bus_an {
    int fmt;
    uint64_t records;
    uint64_t count[256], acc[256], hits[256]; /* per request type */
    an_cache *cache[256];                     /* per BYU proc; PEL uses [0] */
} bus_an;

/* BYU request types (byutr.h); the first four are memory requests. */
static const char *byu_name(unsigned q)
{
    static const char *const lo[] = { "FETCH", "MEMREAD", "MEMREADINV", "MEMWRITE" };
    static const char *const hi[] = { "SHUTDOWN", "FLUSH", "HALT", "SYNC", "FLUSHACK", "STOPCLKACK", "SMIACK" };
    static const char *const ctl[] = { "DEFERREPLY", "INTA", "CNTRLAGNTRES", "BRTRACEREC" };
    if (q <= 0x03) return lo[q];
    if (q == 0x10) return "IOREAD";
    if (q == 0x11) return "IOWRITE";
    if (q >= 0x20 && q <= 0x23) return ctl[q - 0x20];
    if (q >= 0x31 && q <= 0x37) return hi[q - 0x31];
    return NULL;
}

/* PEL control byte >> 4 (pel-pentium-bus-trace-format.txt). */
static const char *const pel_names[16] = { "INVALID0", "INT_ACK", "INVALID2", "SPECIAL", "INVALID4", "IO_READ",
                                           "INVALID6", "IO_WRITE", "I_FETCH", "NC_I_FETCH", "INVALID10",
                                           "INVALID11", "D_READ", "NC_D_READ", "WRITE_BACK", "D_WRITE" };
/* Memory transactions: fetches, reads, write-backs and writes. */
static const uint16_t pel_memory = 1u << 8 | 1u << 9 | 1u << 12 | 1u << 13 | 1u << 14 | 1u << 15;

static an_cache *cache_of(bus_an *a, unsigned id)
{
    an_cache *c = a->cache[id];
    if (c) return c;
    c = malloc(sizeof *c);
    if (!c || an_cache_init(c, CACHE_BYTES, CACHE_LINE)) { fprintf(stderr, "bus_stats: out of memory\n"); exit(1); }
    return a->cache[id] = c;
}

static void scan_byu(bus_an *a, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++, p += TRZ_BYU_RECORD) {
        unsigned q = trz_byu_reqtype(p);
        a->count[q]++;
        if (q > 3) continue; /* I/O, control and bus-management cycles bypass the cache */
        a->acc[q]++;
        a->hits[q] += (uint64_t)an_cache_access(cache_of(a, trz_byu_proc(p)), trz_byu_addr(p));
    }
}

static void scan_pbus(bus_an *a, const uint8_t *p, size_t n)
{
    an_cache *c = cache_of(a, 0);
    for (size_t i = 0; i < n; i++, p += TRZ_PBUS_RECORD) {
        unsigned t = trz_pbus_type(p);
        a->count[t]++;
        if (!(pel_memory >> t & 1)) continue;
        a->acc[t]++;
        a->hits[t] += (uint64_t)an_cache_access(c, trz_pbus_addr(p));
    }
}

static int batch(void *ctx, const uint8_t *recs, size_t n)
{
    bus_an *a = ctx;
    a->records += n;
    if (a->fmt == F_BYU) scan_byu(a, recs, n);
    else scan_pbus(a, recs, n);
    return 0;
}

static void report(const bus_an *a)
{
    unsigned procs = 0;
    for (unsigned i = 0; i < 256; i++) procs += a->cache[i] != NULL;
    printf("bus_stats: %llu records, %s\n", (unsigned long long)a->records,
           a->fmt == F_BYU ? "BYU (12-byte records)" : "PEL Pentium bus (6-byte records)");
    printf("cache: %u KB, %d-way, %u B lines, LRU, write-allocate, %s; %u cache%s\n", CACHE_BYTES >> 10,
           AN_CACHE_WAYS, CACHE_LINE, a->fmt == F_BYU ? "one per proc" : "one", procs, procs == 1 ? "" : "s");
    printf("%-12s %12s %8s %12s %8s\n", "reqtype", "requests", "share%", "cached", "hit%");
    uint64_t acc = 0, hits = 0;
    char s[16], h[16], other[16];
    for (unsigned q = 0; q < 256; q++) {
        if (!a->count[q]) continue;
        const char *nm = a->fmt == F_BYU ? byu_name(q) : pel_names[q & 15];
        if (!nm) { snprintf(other, sizeof other, "0x%02x", q); nm = other; }
        printf("%-12s %12llu %8s %12llu %8s\n", nm, (unsigned long long)a->count[q],
               an_pct(s, sizeof s, a->count[q], a->records), (unsigned long long)a->acc[q],
               an_pct(h, sizeof h, a->hits[q], a->acc[q]));
        acc += a->acc[q];
        hits += a->hits[q];
    }
    printf("%-12s %12llu %8s %12llu %8s\n", "total", (unsigned long long)a->records,
           an_pct(s, sizeof s, a->records, a->records), (unsigned long long)acc, an_pct(h, sizeof h, hits, acc));
}

static void usage(void)
{
    fprintf(stderr, "Usage: bus_stats [-T threads] [-R] [-f byu|pbus] FILE.trz | RAWFILE | -\n"
                    "  -T N   decode-ahead threads for a .trz (0 = all cores; default 1)\n"
                    "  -R     read with trz_read into a big buffer instead of trz_foreach\n"
                    "  -f     the record format; needed for raw input unless the name ends\n"
                    "         in .byu or .pbus (a .trz says its own format)\n");
    exit(2);
}

static int format_of(const char *name)
{
    if (!strcmp(name, "byu")) return F_BYU;
    if (!strcmp(name, "pbus")) return F_PBUS;
    return -1;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

int main(int argc, char **argv)
{
    an_input in = { .threads = 1 };
    int fmt = -1, i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-R")) in.use_read = 1;
        else if (!strcmp(o, "-T") && i + 1 < argc) { long v = an_parse_count(argv[++i]); if (v < 0) usage(); in.threads = (int)v; }
        else if (!strcmp(o, "-f") && i + 1 < argc) { if ((fmt = format_of(argv[++i])) < 0) usage(); }
        else usage();
    }
    if (i + 1 != argc) usage();
    const char *path = argv[i];
    if (an_open(&in, "bus_stats", path)) return 1;
    if (fmt < 0 && in.via_api) fmt = format_of(in.format);
    if (fmt < 0 && !in.via_api) fmt = ends_with(path, ".byu") ? F_BYU : ends_with(path, ".pbus") ? F_PBUS : -1;
    if (fmt < 0) {
        fprintf(stderr, "bus_stats: %s: cannot tell BYU from PEL (%s); use -f byu or -f pbus\n", path,
                in.via_api ? in.format : "raw input");
        an_close(&in);
        return 2;
    }
    static bus_an a;
    a.fmt = fmt;
    int rc = an_run(&in, "bus_stats", fmt == F_BYU ? 12 : 6, batch, &a);
    an_close(&in);
    if (rc) return 1;
    report(&a);
    for (unsigned c = 0; c < 256; c++)
        if (a.cache[c]) { an_cache_free(a.cache[c]); free(a.cache[c]); }
    return 0;
}
