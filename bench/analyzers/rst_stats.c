/* rst_stats.c - an example SPARC RST analyzer on top of libtrz: instruction
 * mix, conditional-branch taken rate and a per-CPU L1 D-cache hit rate over
 * physical load/store addresses, per CPU and in total.  It reads a .trz
 * through the reader API or a raw trace (file or '-' for stdin) with the
 * same analysis, so the two paths can be timed and compared.
 *   rst_stats [-T threads] [-R] [-e big|little] FILE.trz | RAWFILE | -      */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "trz_records.h"

#define REC TRZ_RST_RECORD
#define MAX_CPUS 1024
#define DCACHE_BYTES (32u << 10)
#define DCACHE_LINE 64u
enum { K_LOAD, K_STORE, K_CBR, K_UBR, K_CALL, K_RET, K_OTHER, K_ANNULLED, NKIND };

typedef struct cpu_stats {
    uint64_t kind[NKIND];
    uint64_t taken;        /* conditional branches with bt = 1 */
    uint64_t va_only;      /* data accesses with no PAVADIFF yet to translate them */
    uint64_t pava_ea;      /* ea_pa_va of the CPU's last PAVADIFF with ea_valid = 1 */
    int have_pava;
    an_cache dc;
} cpu_stats;

typedef struct rst_an {
    int le;                /* records stored little-endian (written on an x86 host) */
    int order_known;
    uint64_t records, instrs, pavadiffs;
    cpu_stats *cpu[MAX_CPUS];
} rst_an;

/* ---- SPARC V9 instruction classes (sparc-v9-cti.md) ---- */
static int is_store_op3(unsigned op3)
{
    /* stores, including FP and alternate-space ones, and the atomics
     * (LDSTUB, SWAP, CASA, CASXA and their ASI forms), which also write */
    static const uint64_t stores = 1ull << 0x04 | 1ull << 0x05 | 1ull << 0x06 | 1ull << 0x07 | 1ull << 0x0e |
                                   1ull << 0x14 | 1ull << 0x15 | 1ull << 0x16 | 1ull << 0x17 | 1ull << 0x1e |
                                   1ull << 0x24 | 1ull << 0x25 | 1ull << 0x26 | 1ull << 0x27 | 1ull << 0x34 |
                                   1ull << 0x36 | 1ull << 0x37 | 1ull << 0x0d | 1ull << 0x0f | 1ull << 0x1d |
                                   1ull << 0x1f | 1ull << 0x3c | 1ull << 0x3e;
    return (int)(stores >> op3 & 1);
}

static int classify(uint32_t w)
{
    unsigned op = w >> 30, op3 = (w >> 19) & 0x3f;
    switch (op) {
    case 1: return K_CALL;
    case 3: return is_store_op3(op3) ? K_STORE : K_LOAD; /* prefetches count as loads */
    case 0: {
        unsigned op2 = (w >> 22) & 7, cond = (w >> 25) & 0xf;
        if (op2 == 3) return K_CBR;                                /* BPr: always conditional */
        if (op2 == 1 || op2 == 2 || op2 == 5 || op2 == 6)          /* BPcc Bicc FBPfcc FBfcc */
            return (cond & 7) == 0 ? K_UBR : K_CBR;                /* 8 = always, 0 = never */
        return K_OTHER;                                            /* SETHI, ILLTRAP */
    }
    default:
        if (op3 == 0x39) return K_RET;                             /* RETURN */
        if (op3 == 0x38) {                                         /* JMPL */
            unsigned rd = (w >> 25) & 31, rs1 = (w >> 14) & 31, imm = (w >> 13) & 1;
            if (rd == 0 && imm && (w & 0x1fff) == 8 && (rs1 == 31 || rs1 == 15)) return K_RET; /* ret, retl */
            return rd == 15 ? K_CALL : K_UBR;
        }
        return K_OTHER;
    }
}

static cpu_stats *cpu_of(rst_an *a, unsigned id)
{
    cpu_stats *c = a->cpu[id];
    if (c) return c;
    c = calloc(1, sizeof *c);
    if (!c || an_cache_init(&c->dc, DCACHE_BYTES, DCACHE_LINE)) {
        fprintf(stderr, "rst_stats: out of memory\n");
        exit(1);
    }
    return a->cpu[id] = c;
}

/* ---- the per-record work, specialised for each stored byte order ---- */
static inline void on_instr(rst_an *a, const uint8_t *r, int le)
{
    cpu_stats *c = cpu_of(a, trz_rst_instr_cpu(r, !le));
    a->instrs++;
    if (trz_rst_an(r, !le)) { c->kind[K_ANNULLED]++; return; }
    int k = classify(trz_rst_iword(r, !le));
    c->kind[k]++;
    if (k == K_CBR) c->taken += trz_rst_bt(r, !le);
    if ((k == K_LOAD || k == K_STORE) && trz_rst_ea_valid(r, !le)) {
        uint64_t ea = trz_rst_ea(r, !le);
        if (c->have_pava) ea += c->pava_ea;
        else c->va_only++;
        an_cache_access(&c->dc, ea);
    }
}

static inline void on_pavadiff(rst_an *a, const uint8_t *r, int le)
{
    a->pavadiffs++;
    if (!trz_rst_pava_valid(r, !le)) return; /* the spec: keep the last valid difference */
    cpu_stats *c = cpu_of(a, trz_rst_pava_cpu(r, !le));
    c->pava_ea = trz_rst_ea_pa_va(r, !le);
    c->have_pava = 1;
}

static inline void scan(rst_an *a, const uint8_t *p, size_t n, int le)
{
    for (size_t i = 0; i < n; i++, p += REC) {
        if (trz_rst_rtype(p) == TRZ_RST_INSTR) on_instr(a, p, le);
        else if (trz_rst_rtype(p) == TRZ_RST_PAVADIFF) on_pavadiff(a, p, le);
    }
}

/* Byte order of a raw trace: INSTR PCs are 4-byte aligned with their top 16
 * bits all 0 or all 1 far more often in the right order (as trz's probe). */
static int probe_le(const uint8_t *p, size_t n)
{
    long sbe = 0, sle = 0;
    if (n > 65536) n = 65536;
    for (size_t i = 0; i < n; i++, p += REC) {
        if (trz_rst_rtype(p) != TRZ_RST_INSTR) continue;
        uint64_t b = trz_rst_pc(p, 1), l = trz_rst_pc(p, 0);
        uint16_t hb = (uint16_t)(b >> 48), hl = (uint16_t)(l >> 48);
        sbe += (b & 3) == 0 ? 1 + (hb == 0 || hb == 0xffff) : 0;
        sle += (l & 3) == 0 ? 1 + (hl == 0 || hl == 0xffff) : 0;
    }
    return sle > sbe;
}

static int batch(void *ctx, const uint8_t *recs, size_t n)
{
    rst_an *a = ctx;
    if (!a->order_known) { a->le = probe_le(recs, n); a->order_known = 1; }
    a->records += n;
    if (a->le) scan(a, recs, n, 1);
    else scan(a, recs, n, 0);
    return 0;
}

/* ---- report ---- */
static void row(const char *name, const cpu_stats *c)
{
    char t[16], h[16];
    uint64_t n = 0;
    for (int k = 0; k < NKIND; k++) n += c->kind[k];
    printf("%-6s %12llu %11llu %11llu %11llu %7s %10llu %9llu %9llu %11llu %9llu %11llu %7s %9llu\n", name,
           (unsigned long long)n, (unsigned long long)c->kind[K_LOAD], (unsigned long long)c->kind[K_STORE],
           (unsigned long long)c->kind[K_CBR], an_pct(t, sizeof t, c->taken, c->kind[K_CBR]),
           (unsigned long long)c->kind[K_UBR], (unsigned long long)c->kind[K_CALL],
           (unsigned long long)c->kind[K_RET], (unsigned long long)c->kind[K_OTHER],
           (unsigned long long)c->kind[K_ANNULLED], (unsigned long long)c->dc.accesses,
           an_pct(h, sizeof h, c->dc.hits, c->dc.accesses), (unsigned long long)c->va_only);
}

static void report(const rst_an *a)
{
    printf("rst_stats: %llu records, %s-endian; %llu INSTR, %llu PAVADIFF, %llu other\n",
           (unsigned long long)a->records, a->le ? "little" : "big", (unsigned long long)a->instrs,
           (unsigned long long)a->pavadiffs, (unsigned long long)(a->records - a->instrs - a->pavadiffs));
    printf("L1 D-cache per CPU: %u KB, %d-way, %u B lines, LRU, write-allocate; "
           "PA = EA + the CPU's last PAVADIFF ea_pa_va (VA before the first)\n",
           DCACHE_BYTES >> 10, AN_CACHE_WAYS, DCACHE_LINE);
    printf("%-6s %12s %11s %11s %11s %7s %10s %9s %9s %11s %9s %11s %7s %9s\n", "cpu", "instrs", "loads", "stores",
           "cond_br", "taken%", "uncond_br", "calls", "returns", "other", "annulled", "dc_access", "dc_hit%", "va_only");
    cpu_stats tot;
    memset(&tot, 0, sizeof tot);
    for (unsigned i = 0; i < MAX_CPUS; i++) {
        const cpu_stats *c = a->cpu[i];
        if (!c) continue;
        uint64_t n = 0;
        for (int k = 0; k < NKIND; k++) { n += c->kind[k]; tot.kind[k] += c->kind[k]; }
        tot.taken += c->taken;
        tot.va_only += c->va_only;
        tot.dc.accesses += c->dc.accesses;
        tot.dc.hits += c->dc.hits;
        if (n == 0) continue; /* a CPU seen only in PAVADIFF records */
        char name[16];
        snprintf(name, sizeof name, "%u", i);
        row(name, c);
    }
    row("total", &tot);
}

static void usage(void)
{
    fprintf(stderr, "Usage: rst_stats [-T threads] [-R] [-e big|little] FILE.trz | RAWFILE | -\n"
                    "  -T N   decode-ahead threads for a .trz (0 = all cores; default 1)\n"
                    "  -R     read with trz_read into a big buffer instead of trz_foreach\n"
                    "  -e     byte order of the records (default: the archive's, else probed)\n");
    exit(2);
}

int main(int argc, char **argv)
{
    an_input in = { .threads = 1 };
    int force = -1; /* -1 auto, 0 big, 1 little */
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-R")) in.use_read = 1;
        else if (!strcmp(o, "-T") && i + 1 < argc) { long v = an_parse_count(argv[++i]); if (v < 0) usage(); in.threads = (int)v; }
        else if (!strcmp(o, "-e") && i + 1 < argc) {
            const char *e = argv[++i];
            if (!strcmp(e, "big")) force = 0;
            else if (!strcmp(e, "little")) force = 1;
            else usage();
        } else usage();
    }
    if (i + 1 != argc) usage();
    if (an_open(&in, "rst_stats", argv[i])) return 1;
    if (in.via_api && strcmp(in.format, "rst") != 0 && strcmp(in.format, "raw") != 0)
        fprintf(stderr, "rst_stats: warning: %s holds %s records, not rst\n", argv[i], in.format);
    static rst_an a;
    if (force >= 0) { a.le = force; a.order_known = 1; }
    else if (in.via_api && !strcmp(in.format, "rst") && in.byte_order != TRZ_BYTE_ORDER_NONE) {
        a.le = in.byte_order == TRZ_BYTE_ORDER_LITTLE;
        a.order_known = 1;
    }
    int rc = an_run(&in, "rst_stats", REC, batch, &a);
    an_close(&in);
    if (rc) return 1;
    report(&a);
    for (unsigned c = 0; c < MAX_CPUS; c++)
        if (a.cpu[c]) { an_cache_free(&a.cpu[c]->dc); free(a.cpu[c]); }
    return 0;
}
