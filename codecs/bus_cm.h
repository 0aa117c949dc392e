/* bus_cm.h - arithmetic coding of bus-trace addresses for the modelled
 * paths of the BYU and PEL codecs: the address model's code (addrmodel.h)
 * and its miss payloads, each bit with an adaptive probability chosen by
 * context (cm.h).  Used the same way by encoder and decoder. */
#ifndef TRZ_BUS_CM_H
#define TRZ_BUS_CM_H

#include "addrmodel.h"
#include "cm.h"
#include <zstd.h>

#ifndef XTHR
#define XTHR 3
#endif
#ifndef PGMODE
#define PGMODE 1
#endif
#define BUS_NB 12 /* buckets of an address code, see bus_cb */

typedef struct bus_acm {
    cm_p code[AM_NCLS][BUS_NB][BUS_NB][64];
    cm_gamma near[AM_NCLS];
    cm_p pgoff[AM_NCLS][64 * 65];
    cm_p miss[AM_NCLS][4][256];
    cm_p xref[AM_NCLS][32];
    cm_p xbit[AM_NCLS][32][2][4][2];
    cm_gamma off[AM_NCLS];
    uint8_t last[AM_NCLS]; /* bucket of the last code per class */
    uint8_t lastany;       /* bucket of the last code of any class */
} bus_acm;

static inline void bus_acm_init(bus_acm *m)
{
    cm_init_probs(&m->code[0][0][0][0], sizeof m->code / sizeof(cm_p));
    for (int i = 0; i < AM_NCLS; i++) cm_gamma_init(&m->near[i]);
    cm_init_probs(&m->pgoff[0][0], sizeof m->pgoff / sizeof(cm_p));
    cm_init_probs(&m->miss[0][0][0], sizeof m->miss / sizeof(cm_p));
    cm_init_probs(&m->xref[0][0], sizeof m->xref / sizeof(cm_p));
    cm_init_probs(&m->xbit[0][0][0][0][0], sizeof m->xbit / sizeof(cm_p));
    for (int i = 0; i < AM_NCLS; i++) cm_gamma_init(&m->off[i]);
    memset(m->last, 0, sizeof m->last);
    m->lastany = 0;
}

/* Code buckets for contexts: candidates alone, recent-cache hits in two
 * groups, near, page, miss, and one bucket for corrupt codes. */
static inline unsigned bus_cb(unsigned code)
{
    if (code < AM_NCAND) return code;
    if (code < AM_NCAND + 4) return AM_NCAND;
    if (code < AM_NEAR) return AM_NCAND + 1;
    if (code == AM_NEAR) return AM_NCAND + 2;
    if (code < AM_MISS) return AM_NCAND + 3;
    if (code == AM_MISS) return AM_NCAND + 4;
    return AM_NCAND + 5;
}

/* Code the address of a class-c record of processor p.  Encoding: addr is
 * the record's; decoding: addr is ignored.  Returns the address, or sets
 * *bad on a corrupt code. */
static inline uint32_t bus_addr(cm_coder *c, bus_acm *m, am_model *am, am_proc *p, unsigned cls, uint32_t addr,
                                int *bad)
{
    unsigned code = c->dec ? 0 : am_code(am, p, cls, addr);
    unsigned xr = 0, xpc = 33;
    if (!c->dec && code >= AM_NEAR) {
        for (unsigned i = 0; i < AM_NEAR; i++) {
            unsigned pc = (unsigned)__builtin_popcount(addr ^ am_decode(am, p, cls, i));
            if (pc < xpc) { xpc = pc; xr = i; }
        }
        if (xpc <= XTHR || code == AM_MISS) code = AM_MISS;
    }
    code = cm_tree(c, m->code[cls][m->last[cls]][m->lastany], 6, code);
    m->last[cls] = m->lastany = (uint8_t)bus_cb(code);
    CM_FIELD(c, 3 + (cls != AM_FETCH));
    if (code < AM_NEAR) return am_decode(am, p, cls, code);
    if (code == AM_NEAR) {
        uint32_t base = am_base(am, p, cls);
        int32_t d = (int32_t)(addr - base);
        uint32_t z = ((uint32_t)d << 1) ^ (uint32_t)(d >> 31);
        z = cm_gamma_code(c, &m->near[cls], z);
        if (z >= 2 * AM_NEAR_MAX) *bad = 1;
        return base + ((z >> 1) ^ (0u - (z & 1)));
    }
    if (code < AM_MISS) {
#if PGMODE == 0
        cm_p *t = m->pgoff[cls];
        uint32_t hi = cm_tree(c, t, 6, (addr >> 6) & 63);
        uint32_t lo = cm_tree(c, t + 64 + hi * 64, 6, addr & 63);
        return am_page(p, cls, code) << 12 | hi << 6 | lo;
#else
        uint32_t lo = p->cls[cls].last & 0xfff;
        uint32_t d = (addr - lo) & 0xfff;
        d = (d << 1 ^ (0u - (d >> 11))) & 0xfff;
        d = cm_gamma_code(c, &m->off[cls], d);
        if (d > 0xfff) { *bad = 1; return 0; }
        d = ((d >> 1) ^ (0u - (d & 1))) & 0xfff;
        return am_page(p, cls, code) << 12 | ((lo + d) & 0xfff);
#endif
    }
    if (code == AM_MISS) {
        xr = cm_tree(c, m->xref[cls], 5, xr);
        if (xr >= AM_NEAR) { *bad = 1; return 0; }
        uint32_t ref = am_decode(am, p, cls, xr), x = addr ^ ref, v = 0;
        unsigned nf = 0, lf = 0;
        for (int i = 31; i >= 0; i--) {
            unsigned rb = ref >> i & 1;
            unsigned b = (unsigned)cm_bit(c, &m->xbit[cls][i][rb][nf][lf], (int)(x >> i) & 1);
            v |= (uint32_t)b << i;
            if (b && nf < 3) nf++;
            lf = b;
        }
        return v ^ ref;
    }
    *bad = 1;
    return 0;
}

/* Bytes the streams of an encoding would cost after the back-end (zstd
 * at the chunk's level, stored when that does not shrink them). */
static inline size_t bus_zsize(const trz_buf *st, int level)
{
    size_t total = 0;
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
        if (!st[i].n) continue;
        size_t bound = ZSTD_compressBound(st[i].n);
        void *z = malloc(bound);
        size_t zn = z ? ZSTD_compress(z, bound, st[i].p, st[i].n, level) : st[i].n;
        free(z);
        total += ZSTD_isError(zn) || zn > st[i].n ? st[i].n : zn;
    }
    return total;
}

#define BUS_SAMPLE 65536 /* records of a chunk's prefix that pick its path */

/* The modelled path does not win everywhere: traces with long exact
 * repeats (loops with synthetic timing) suit the back-end's match finder
 * better.  Encode a prefix of the chunk both ways and compare.  Returns
 * 1 = arithmetic path, 0 = stream path, < 0 = error code. */
static inline int bus_pick_cm(const trz_enc_args *a, size_t rs, int (*zs)(const trz_enc_args *),
                              int (*cm)(const trz_enc_args *))
{
    trz_buf *st = calloc(TRZ_MAX_STREAMS, sizeof *st);
    if (!st) return TRZ_CODEC_NOMEM;
    trz_enc_args b = *a;
    b.nrec = a->nrec < BUS_SAMPLE ? a->nrec : BUS_SAMPLE;
    b.len = b.nrec * rs;
    b.streams = st;
    int rc = zs(&b);
    size_t zsz = rc == TRZ_CODEC_OK ? bus_zsize(st, a->level) : 0;
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(st[i].p);
    memset(st, 0, TRZ_MAX_STREAMS * sizeof *st);
    if (rc == TRZ_CODEC_OK) rc = cm(&b);
    size_t csz = bus_zsize(st, a->level);
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(st[i].p);
    free(st);
    return rc != TRZ_CODEC_OK ? rc : csz < zsz;
}

#endif
