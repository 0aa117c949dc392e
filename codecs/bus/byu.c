/* byu.c - codec for BYU address traces (12-byte LE records: addr, reqtype,
 * size, attr, proc, time delta).  Addresses are predicted per processor and
 * request class (addrmodel.h), kinds get stable dictionary ids, time deltas
 * go as bytes into one stream per context; at levels >= 6 a chunk may instead
 * be arithmetic-coded with context models (cm.h).  The variants and the
 * level table are at the end.  Format: codecs/bus/byu.md. */
#include "../codec.h"
#include "hot.h"
#include "addrmodel.h"
#include "bus_cm.h"
#include "cachesim.h"
#include "lean.h"

#define T_FRESH 2         /* time contexts split by "line not seen lately" */
#define T_ESC 255         /* time byte: escape, value follows in timeraw */
#define LINE_BITS 12      /* 64-byte lines seen recently (direct mapped) */
#define K_ESC 255         /* kind byte: escape, the three bytes follow */
#define K_HBITS 10        /* kind dictionary hash: 1024 slots, <= 255 used */
#define CS_SAMPLE 65536   /* records of a chunk's prefix that choose the cache */
#define CS_MIN 1024       /* smaller chunks keep line_fresh: too few times to tell caches apart */
#define T_NCTX (AM_NCLS * AM_NCLS * T_FRESH)
#define LN_TCTX (2 * T_FRESH) /* the lean model's time contexts: fetch or not, and fresh */
enum {
    S_PROC, S_RUNLEN, S_KIND, S_REQ, S_SIZE, S_ATTR,
    S_FCODE, S_DCODE, S_FDELTA, S_DDELTA, S_TRAW, S_FNEAR, S_DNEAR, S_CACHE, S_LAYOUT, S_CM, S_TIME0 = 16,
    S_COUNT = S_TIME0 + T_NCTX
};
#define KC 8           /* kind ids as contexts: capped at KC - 1 */
#define TB_N 20        /* time buckets: min(q / 2, 19) of the last time */
#define TQ_ESC 127     /* time quotient: escape */
#define TQ_MAX (TQ_ESC * 8 - 1) /* times from here take the escape */
#define W0 22000       /* initial mixer weight (16.16) with three inputs */
#define TRW0 40000     /* the same with two inputs */

static const char *const stream_names[S_TIME0] = {
    "proc", "runlen", "kind", "reqtype", "size", "attr",
    "fetchcode", "datacode", "fetchmiss", "datamiss", "timeraw", "fetchnear", "datanear", "cache", "layout", "cm",
};

typedef struct byu_state {
    am_model am;
    am_proc *procs[256];
    ln_model ln;                      /* the lean model's tables (instead of am's) */
    ln_proc *lprocs[256];
    int lean;                         /* decoder: the chunk uses the lean model */
    uint32_t *lines;
    cs_cache cache;                   /* stream path: the simulated cache, when the chunk names one */
    int ilv;                          /* decoder: address codes interleaved with the kinds in S_KIND */
    struct byu_groups *grp;           /* decoder: streams grouped by processor, or NULL */
    uint32_t kinds[K_ESC];            /* dictionary: id -> kind */
    uint32_t kinfo[256];              /* id -> kind | its class << 24; UINT32_MAX past the known ids */
    uint16_t khash[1 << K_HBITS];     /* kind hash -> id + 1 */
    unsigned nkinds;
    unsigned prevcls;
} byu_state;

/* Levels (codec.h, "Levels"): the variant, and the knobs its encoder reads. */
typedef struct byu_level {
    uint8_t variant;    /* index into byu_variants */
    uint8_t cache_sets; /* the stream path picks the cache on 1/2^cache_sets of its sets (pick_cache) */
    uint8_t all_refs;   /* the mixed model tries every reference (bus_set_refs) */
} byu_level;
TRZ_LEVEL_ROW(byu_level);

typedef struct byu_cm byu_cm; /* the range and mix variants' model (below) */
typedef struct byu_fm byu_fm; /* range-fast's */

/* The codec's model (trz_model): the state every variant keeps, and each
 * arithmetic variant's tables, made at its first chunk. */
typedef struct byu_model {
    const byu_level *lv; /* the level's row (row 0 when decoding) */
    byu_state st;
    cm_coder coder;
    byu_cm *cm;
    byu_fm *fm;
} byu_model;

static unsigned req_class(uint8_t req)
{
    switch (req) {
    case 0x00: return AM_FETCH;
    case 0x01: return AM_READ;
    case 0x02: case 0x03: return AM_WRITE;
    default: return AM_OTHER;
    }
}

/* What one chunk made in s: the cache, the processors, the groups. */
static void st_close(byu_state *s)
{
    cs_close(&s->cache);
    for (int i = 0; i < 256; i++) {
        free(s->procs[i]);
        free(s->lprocs[i]);
        s->procs[i] = NULL;
        s->lprocs[i] = NULL;
    }
    free(s->grp);
    s->grp = NULL;
}

/* s ready for a chunk of nrec records, with the lean model's tables or
 * addrmodel.h's, kept in s from the chunk before where they fit.  0, or -1
 * on no memory. */
static int st_open(byu_state *s, uint64_t nrec, int lean)
{
    st_close(s);
    am_model am = s->am;
    ln_model ln = s->ln;
    uint32_t *lines = s->lines;
    memset(s, 0, sizeof *s);
    s->am = am;
    s->ln = ln;
    memset(s->kinfo, 0xff, sizeof s->kinfo);
    s->lean = lean;
    s->lines = lines ? lines : trz_big_malloc(((size_t)1 << LINE_BITS) * sizeof *s->lines);
    if (s->lines) memset(s->lines, 0, ((size_t)1 << LINE_BITS) * sizeof *s->lines);
    if ((lean ? ln_init(&s->ln, nrec) : am_init(&s->am, nrec)) != 0 || !s->lines) return -1;
    return 0;
}

/* Gives back all that s holds (with the model). */
static void st_free(byu_state *s)
{
    st_close(s);
    am_free(&s->am);
    ln_free(&s->ln);
    trz_big_free(s->lines, ((size_t)1 << LINE_BITS) * sizeof *s->lines);
    s->lines = NULL;
}

/* The lean model's state of processor proc (made on first use); NULL on
 * no memory. */
static ln_proc *st_lproc(byu_state *s, uint8_t proc)
{
    if (!s->lprocs[proc] && (s->lprocs[proc] = malloc(sizeof(ln_proc)))) ln_proc_init(s->lprocs[proc]);
    return s->lprocs[proc];
}

static am_proc *st_proc(byu_state *s, uint8_t proc)
{
    if (!s->procs[proc]) {
        s->procs[proc] = calloc(1, sizeof(am_proc));
        if (s->procs[proc]) s->procs[proc]->step = 8;
    }
    return s->procs[proc];
}

/* "The 64-byte line was not seen lately": the last line stored in its
 * slot of a direct-mapped table was another. */
TRZ_FORCE_INLINE unsigned line_fresh(uint32_t *lines, uint32_t addr)
{
    uint32_t line = addr >> 6;
    uint32_t *e = &lines[am_hash(line, LINE_BITS)];
    unsigned fresh = *e != line + 1;
    *e = line + 1;
    return fresh;
}

/* Time context: class now, class before, and whether the request missed
 * (a miss costs time in real and simulated traces alike): in the chunk's
 * simulated cache when it names one, else by line_fresh. */
TRZ_FORCE_INLINE unsigned time_ctx(byu_state *s, unsigned cls, uint32_t addr)
{
    unsigned fresh = s->cache.tag ? !cs_access(&s->cache, cls == AM_FETCH, addr) : line_fresh(s->lines, addr);
    return (cls * AM_NCLS + s->prevcls) * T_FRESH + (fresh & (T_FRESH - 1));
}

/* Encoder: the cache geometry that best explains the times of the
 * chunk's prefix (cachesim.h), simulated in the sets whose addresses have
 * bits 6 .. 6 + sets - 1 clear (every set of every geometry tried, sets =
 * 0; 1 / 2^sets of them otherwise: each simulated set still sees all its
 * requests, so its hits and misses are exact).  Returns 1 and sets *g, 0
 * when none beats line_fresh, or -1 on no memory. */
static int pick_cache(const trz_enc_args *a, cs_geom *g, unsigned sets)
{
    uint64_t n = a->nrec < CS_SAMPLE ? a->nrec : CS_SAMPLE;
    if (n < CS_MIN) return 0;
    const uint32_t smask = ((1u << sets) - 1) << 6;
    cs_pick_state *p = malloc(sizeof *p);
    uint32_t *lines = trz_big_calloc(((size_t)1 << LINE_BITS) * sizeof *lines);
    int rc = p && lines && cs_pick_init(p, AM_NCLS * AM_NCLS) == 0 ? 0 : -1;
    if (rc == 0) {
        unsigned prev = 0;
        for (uint64_t i = 0; i < n; i++) {
            const uint8_t *r = a->in + i * 12;
            unsigned cls = req_class(r[4]);
            uint32_t addr = trz_ld_le32(r);
            unsigned fresh = line_fresh(lines, addr);
            if (!(addr & smask)) cs_pick_add(p, cls == AM_FETCH, addr, trz_ld_le32(r + 8), cls * AM_NCLS + prev, (int)fresh);
            prev = cls;
        }
        rc = cs_pick_best(p, g, 1024.0 / (1u << sets));
        cs_pick_free(p);
    }
    free(p);
    trz_big_free(lines, ((size_t)1 << LINE_BITS) * sizeof *lines);
    return rc;
}

/* Kinds (reqtype, size, attr) get ids in order of first appearance: the
 * ids stay stable, so repeated kind sequences stay repeats for the
 * back-end.  Returns the slot for kind k (holding 0 or its id + 1). */
static uint16_t *kind_slot(byu_state *s, uint32_t k)
{
    uint32_t h = am_hash(k, K_HBITS);
    for (;;) {
        uint16_t *e = &s->khash[h];
        if (*e == 0 || s->kinds[*e - 1] == k) return e;
        h = (h + 1) & ((1u << K_HBITS) - 1); /* never full: <= 255 of 1024 used */
    }
}

static void kind_add(byu_state *s, uint32_t k)
{
    uint16_t *e = kind_slot(s, k);
    if (*e == 0 && s->nkinds < K_ESC) {
        s->kinfo[s->nkinds] = k | req_class((uint8_t)k) << 24;
        s->kinds[s->nkinds++] = k;
        *e = (uint16_t)s->nkinds;
    }
}

static uint32_t rec_tup(const uint8_t *r)
{
    return (uint32_t)r[4] | (uint32_t)r[5] << 8 | (uint32_t)r[6] << 16;
}

/* ---- encoder ------------------------------------------------------------- */

/* A run of records from one processor: proc byte, then length - 1. */
static uint64_t enc_proc_run(trz_buf *st, const uint8_t *in, uint64_t i, uint64_t nrec)
{
    uint8_t proc = in[i * 12 + 7];
    uint64_t j = i + 1;
    while (j < nrec && in[j * 12 + 7] == proc) j++;
    trz_put_u8(&st[S_PROC], proc);
    trz_put_uvarint(&st[S_RUNLEN], j - i - 1);
    return j - i;
}

TRZ_FORCE_INLINE void enc_record(byu_state *s, am_proc *p, trz_buf *st, const uint8_t *r)
{
    uint32_t tup = rec_tup(r);
    uint16_t *e = kind_slot(s, tup);
    trz_put_u8(&st[S_KIND], (uint8_t)(*e ? *e - 1 : K_ESC));
    if (!*e) {
        trz_put_u8(&st[S_REQ], r[4]);
        trz_put_u8(&st[S_SIZE], r[5]);
        trz_put_u8(&st[S_ATTR], r[6]);
        kind_add(s, tup);
    }

    unsigned c = req_class(r[4]);
    uint32_t addr = trz_ld_le32(r);
    unsigned code = am_code(&s->am, p, c, addr);
    trz_put_u8(&st[c == AM_FETCH ? S_FCODE : S_DCODE], (uint8_t)code);
    if (code >= AM_NEAR)
        am_put_miss(&st[c == AM_FETCH ? S_FDELTA : S_DDELTA], &st[c == AM_FETCH ? S_FNEAR : S_DNEAR], code, addr,
                 am_base(&s->am, p, c));
    am_update(&s->am, p, c, addr, r[5]);

    uint32_t t = trz_ld_le32(r + 8);
    trz_put_u8(&st[S_TIME0 + time_ctx(s, c, addr)], (uint8_t)(t < T_ESC ? t : T_ESC));
    if (t >= T_ESC) trz_put_uvarint(&st[S_TRAW], t - T_ESC);
    s->prevcls = c;
}

/* The lean model's coding runs over blocks of LN_BLOCK records in two
 * passes, the addresses and kinds first, then the times: each pass keeps
 * its own state in registers (one loop for both spilled it to memory) and
 * the block stays in the first-level cache between them. */
#define LN_BLOCK 2048

/* The miss bit of the time contexts: from line_fresh (cmode 0), a
 * direct-mapped cache (1) or cs_access (2). */
TRZ_FORCE_INLINE unsigned ln_fresh(byu_state *s, unsigned c, uint32_t addr, const int cmode)
{
    if (cmode == 2) return !cs_access(&s->cache, c == AM_FETCH, addr);
    if (cmode == 0) return line_fresh(s->lines, addr);
    uint32_t line = addr >> s->cache.g.lline, *e = (c == AM_FETCH ? s->cache.itag : s->cache.tag) + (line & s->cache.smask);
    unsigned fresh = *e != line + 1;
    *e = line + 1;
    return fresh;
}

/* Where a processor's run stands between blocks. */
typedef struct ln_run {
    ln_proc *p;           /* the processor of the run */
    const uint8_t *start; /* encoder: the run's first record */
    uint64_t n;           /* decoder: records of the run still to come */
    uint32_t proc;
} ln_run;

/* The encoder's time streams: write positions and ends. */
typedef struct ln_tw {
    uint8_t *wp[LN_TCTX], *we[LN_TCTX];
} ln_tw;

/* Encoder, first pass: kind ids and address codes of records [r, e) into
 * kc, new kinds, near deltas and whole addresses into their streams, the
 * processor runs into theirs as they end. */
TRZ_FORCE_INLINE int ln_enc_addr(byu_state *s, trz_buf *st, ln_run *u, const uint8_t *r, const uint8_t *e, uint8_t *kc,
                       uint8_t *cls)
{
    uint8_t *cl = cls;
    uint32_t *succ = s->ln.succ;
    ln_slot *slot = s->ln.slot;
    const unsigned sh = 32u - (unsigned)s->ln.bits;
    ln_proc *p = u->p;
    uint32_t pc = p->pc, step = p->step, k = p->k, last[AM_NCLS], stride[AM_NCLS], proc = u->proc;
    memcpy(last, p->last, sizeof last);
    memcpy(stride, p->stride, sizeof stride);
    for (; r < e; r += 12, kc += 2) {
        if (r[7] != proc) { /* a new run: the last one's state out, this one's in */
            p->pc = pc, p->step = step, p->k = k;
            memcpy(p->last, last, sizeof last);
            memcpy(p->stride, stride, sizeof stride);
            trz_put_u8(&st[S_PROC], (uint8_t)proc);
            trz_put_uvarint(&st[S_RUNLEN], (uint64_t)(r - u->start) / 12 - 1);
            u->start = r;
            proc = r[7];
            if (!(p = st_lproc(s, (uint8_t)proc))) return TRZ_CODEC_NOMEM;
            pc = p->pc, step = p->step, k = p->k;
            memcpy(last, p->last, sizeof last);
            memcpy(stride, p->stride, sizeof stride);
        }
        uint32_t tup = trz_ld_le32(r + 4) & 0xffffff, addr = trz_ld_le32(r);
        uint16_t *ks = kind_slot(s, tup);
        unsigned code, c;
        if (*ks) {
            kc[0] = (uint8_t)(*ks - 1);
            c = s->kinfo[*ks - 1] >> 24;
        } else {
            kc[0] = K_ESC;
            trz_put_u8(&st[S_REQ], r[4]);
            trz_put_u8(&st[S_SIZE], r[5]);
            trz_put_u8(&st[S_ATTR], r[6]);
            kind_add(s, tup);
            c = req_class(r[4]);
        }
        *cl++ = (uint8_t)c;
        if (c == AM_FETCH) {
            uint32_t *sp = &succ[(pc * 0x9E3779B1u) >> sh], ft = pc + step;
            code = addr == ft ? 0 : addr == *sp ? 1 : addr == pc ? 2
                 : addr - pc + LN_NEAR_MAX < 2u * LN_NEAR_MAX ? LN_NEAR : LN_FAR;
            if (code >= LN_NEAR) ln_put_miss(&st[S_FDELTA], &st[S_FNEAR], code, addr, pc);
            if (addr != ft) *sp = addr;
            pc = addr;
            step = tup >> 8 & 255;
            k = 0;
        } else {
            ln_slot *sl = &slot[((pc ^ k * 0x5bd1e995u) * 0x9E3779B1u) >> sh];
            const uint32_t sla = sl->last;
            code = addr == sla + sl->stride ? 0 : addr == sla ? 1 : addr == last[c] + stride[c] ? 2
                 : addr == last[c] ? 3 : addr - sla + LN_NEAR_MAX < 2u * LN_NEAR_MAX ? LN_NEAR : LN_FAR;
            if (code >= LN_NEAR) ln_put_miss(&st[S_DDELTA], &st[S_DNEAR], code, addr, sla);
            sl->stride = addr - sla;
            sl->last = addr;
            k += k < LN_KMAX;
        }
        kc[1] = (uint8_t)code;
        stride[c] = addr - last[c];
        last[c] = addr;
    }
    p->pc = pc, p->step = step, p->k = k;
    memcpy(p->last, last, sizeof last);
    memcpy(p->stride, stride, sizeof stride);
    u->p = p, u->proc = proc;
    return TRZ_CODEC_OK;
}

/* Encoder, second pass: the time bytes of records [r, e) into their
 * context streams. */
TRZ_FORCE_INLINE int ln_enc_time(byu_state *s, trz_buf *st, ln_tw *w, const uint8_t *r, const uint8_t *e, const uint8_t *cls,
                       const int cmode)
{
    uint32_t *const ctag[2] = { s->cache.tag, s->cache.itag }, cll = s->cache.g.lline, cmask = s->cache.smask;
    for (; r < e; r += 12) {
        uint32_t addr = trz_ld_le32(r), t = trz_ld_le32(r + 8);
        unsigned c = *cls++, fresh;
        if (cmode == 1) {
            uint32_t line = addr >> cll, *q = ctag[c == AM_FETCH] + (line & cmask);
            fresh = *q != line + 1;
            *q = line + 1;
        } else fresh = ln_fresh(s, c, addr, cmode);
        unsigned ctx = (c != AM_FETCH) * T_FRESH + fresh;
        if (w->wp[ctx] == w->we[ctx]) { /* grow the context's stream */
            trz_buf *b = &st[S_TIME0 + ctx];
            /* full: double it; first use in this chunk: the room it kept
             * from an earlier chunk serves (asking for cap more each chunk
             * doubled it chunk after chunk) */
            size_t more = 4096;
            if (w->wp[ctx]) {
                b->n = (size_t)(w->wp[ctx] - b->p);
                if (b->cap > more) more = b->cap;
            }
            if (trz_buf_reserve(b, more) != 0) return TRZ_CODEC_NOMEM;
            w->wp[ctx] = b->p + b->n;
            w->we[ctx] = b->p + b->cap;
        }
        *w->wp[ctx]++ = (uint8_t)(t < T_ESC ? t : T_ESC);
        if (t >= T_ESC) trz_put_uvarint(&st[S_TRAW], t - T_ESC);
    }
    return TRZ_CODEC_OK;
}

TRZ_FORCE_INLINE int ln_enc_loop(byu_state *s, const trz_enc_args *a, const int cmode)
{
    trz_buf *st = a->streams;
    if (!a->nrec) return TRZ_CODEC_OK;
    if (trz_buf_reserve(&st[S_KIND], 2 * a->nrec) != 0) return TRZ_CODEC_NOMEM;
    uint8_t *kc = st[S_KIND].p + st[S_KIND].n;
    st[S_KIND].n += 2 * a->nrec;
    ln_tw w;
    memset(&w, 0, sizeof w);
    ln_run u = { st_lproc(s, a->in[7]), a->in, 0, a->in[7] };
    uint8_t cls[LN_BLOCK];
    int rc = u.p ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    for (uint64_t i = 0; rc == TRZ_CODEC_OK && i < a->nrec; i += LN_BLOCK) {
        uint64_t n = a->nrec - i < LN_BLOCK ? a->nrec - i : LN_BLOCK;
        const uint8_t *r = a->in + i * 12;
        rc = ln_enc_addr(s, st, &u, r, r + n * 12, kc + 2 * i, cls);
        if (rc == TRZ_CODEC_OK) rc = ln_enc_time(s, st, &w, r, r + n * 12, cls, cmode);
    }
    trz_put_u8(&st[S_PROC], (uint8_t)u.proc);
    trz_put_uvarint(&st[S_RUNLEN], (uint64_t)(a->in + a->nrec * 12 - u.start) / 12 - 1);
    for (int i = 0; i < LN_TCTX; i++)
        if (w.wp[i]) st[S_TIME0 + i].n = (size_t)(w.wp[i] - st[S_TIME0 + i].p);
    return rc;
}

/* The lean model's streams of a chunk; the cache, when named, is open. */
TRZ_HOT_CLONES static int ln_enc_all(byu_state *s, const trz_enc_args *a)
{
    if (!s->cache.tag) return ln_enc_loop(s, a, 0);
    return s->cache.g.ways == 1 ? ln_enc_loop(s, a, 1) : ln_enc_loop(s, a, 2);
}

/* The encoder's choices for a chunk's stream path. */
typedef struct zs_opts {
    byu_model *m;
    int cache; /* 1: time contexts from the cache g */
    cs_geom g;
    int lean;  /* 1: the lean model */
} zs_opts;

/* Streams grouped by processor (layout flag L_GROUP): each holds one
 * section per processor of the chunk, in ascending proc order, instead of
 * the records' order.  Interleaved processors break the repeats of each
 * one's kinds and codes apart; grouped, the back-end finds them again. */
#define L_ILV 1   /* layout flag: address codes interleaved with the kinds */
#define L_GROUP 2 /* layout flag: the streams g_stream grouped by processor */
#define L_LEAN 4  /* layout flag: the lean model (its codes always beside the kinds) */
#define G_NS 3
static const int g_stream[G_NS] = { S_KIND, S_FCODE, S_DCODE };

typedef struct byu_groups { /* decoder: the sections of the grouped streams */
    int16_t at[256];        /* proc -> index into r, or -1 when it has no section */
    trz_rd r[256][G_NS];
    int n;                  /* sections per stream */
    int cur;                /* index whose readers are out in the decoder, or -1 */
} byu_groups;

/* Encoder: the chunk's grouped streams regrouped by processor when that
 * compresses smaller at BUS_LAYOUT_ZLEVEL; the layout stream then gets
 * flags | L_GROUP and the section table.  Returns 1 when grouped, 0 when
 * kept, -1 on no memory. */
static int pick_group(const trz_enc_args *a, unsigned flags)
{
    trz_buf *st = a->streams;
    int ilv = (flags & (L_ILV | L_LEAN)) != 0; /* two bytes a record in S_KIND */
    size_t j = 1; /* stream 0 has a byte per processor run: one processor when they are all the same */
    while (j < st[S_PROC].n && st[S_PROC].p[j] == st[S_PROC].p[0]) j++;
    if (j >= st[S_PROC].n) return 0;
    uint64_t cnt[256][G_NS];
    memset(cnt, 0, sizeof cnt);
    unsigned nproc = 0;
    for (uint64_t i = 0; i < a->nrec; i++) {
        const uint8_t *r = a->in + i * 12;
        uint64_t *c = cnt[r[7]];
        nproc += c[0] == 0;
        c[0] += ilv ? 2 : 1;
        if (!ilv) c[req_class(r[4]) == AM_FETCH ? 1 : 2]++;
    }
    uint8_t *g[G_NS] = { NULL, NULL, NULL };
    int rc = 0;
    size_t before = 0, after = 0;
    for (int k = 0; k < G_NS; k++) {
        const trz_buf *b = &st[g_stream[k]];
        if (!b->n) continue;
        uint64_t total = 0, off[256];
        for (int q = 0; q < 256; q++) {
            off[q] = total;
            total += cnt[q][k];
        }
        if (total != b->n || !(g[k] = malloc(b->n))) { /* sections must cover the stream exactly */
            rc = total != b->n ? 0 : -1;
            goto out;
        }
        size_t pos = 0;
        for (uint64_t i = 0; i < a->nrec; i++) {
            const uint8_t *r = a->in + i * 12;
            size_t w = k == 0 ? (ilv ? 2 : 1) : (req_class(r[4]) == AM_FETCH) == (k == 1);
            memcpy(g[k] + off[r[7]], b->p + pos, w);
            off[r[7]] += w;
            pos += w;
        }
        before += bus_zsize1(a, b->p, b->n, BUS_LAYOUT_ZLEVEL);
        after += bus_zsize1(a, g[k], b->n, BUS_LAYOUT_ZLEVEL);
    }
    if (after < before) {
        rc = 1;
        trz_put_u8(&st[S_LAYOUT], (uint8_t)(L_GROUP | flags));
        trz_put_uvarint(&st[S_LAYOUT], nproc - 1);
        for (int q = 0; q < 256; q++) {
            if (!cnt[q][0]) continue;
            trz_put_u8(&st[S_LAYOUT], (uint8_t)q);
            for (int k = 0; k < G_NS; k++) trz_put_uvarint(&st[S_LAYOUT], cnt[q][k]);
        }
        for (int k = 0; k < G_NS; k++)
            if (g[k]) memcpy(st[g_stream[k]].p, g[k], st[g_stream[k]].n);
    }
out:
    for (int k = 0; k < G_NS; k++) free(g[k]);
    return rc;
}

/* Encoder, after the records: the kinds and address codes interleaved in
 * S_KIND when that is smaller (bus_interleave), then grouped by processor
 * when that is smaller (pick_group); both named in S_LAYOUT.  Returns 0 or
 * -1 on no memory. */
static int pick_layout(const trz_enc_args *a)
{
    trz_buf *st = a->streams;
    size_t n = st[S_KIND].n;
    if (a->nrec < CS_MIN || n != a->nrec || st[S_FCODE].n + st[S_DCODE].n != n) return 0;
    int ilv = bus_interleave(a, st, S_KIND, S_FCODE, S_DCODE, a->in, 12, 4, req_class, BUS_LAYOUT_ZLEVEL);
    if (ilv < 0) return -1;
    int grp = pick_group(a, ilv ? L_ILV : 0);
    if (grp < 0) return -1;
    if (ilv && !grp) trz_put_u8(&st[S_LAYOUT], L_ILV);
    return 0;
}

/* The stream path with the choices o (a zs_opts). */
TRZ_HOT_CLONES static int zs_encode_opt(const trz_enc_args *a, const void *opts)
{
    const zs_opts *o = opts;
    if (a->len != a->nrec * 12) return TRZ_CODEC_UNSUPPORTED;
    byu_state *s = &o->m->st;
    int rc = TRZ_CODEC_OK;
    if (st_open(s, a->nrec, o->lean) != 0) rc = TRZ_CODEC_NOMEM;
    else if (o->cache) {
        trz_put_u8(&a->streams[S_CACHE], o->g.lline);
        trz_put_u8(&a->streams[S_CACHE], o->g.lsets);
        trz_put_u8(&a->streams[S_CACHE], o->g.ways);
        trz_put_u8(&a->streams[S_CACHE], o->g.split);
        if (cs_open(&s->cache, o->g) != 0) rc = TRZ_CODEC_NOMEM;
    }

    uint64_t left = 0;
    am_proc *p = NULL;
    if (rc == TRZ_CODEC_OK && o->lean) rc = ln_enc_all(s, a);
    for (uint64_t i = 0; rc == TRZ_CODEC_OK && !o->lean && i < a->nrec; i++) {
        const uint8_t *r = a->in + i * 12;
        if (left == 0) {
            left = enc_proc_run(a->streams, a->in, i, a->nrec);
            if (!(p = st_proc(s, r[7]))) { rc = TRZ_CODEC_NOMEM; break; }
        }
        left--;
        enc_record(s, p, a->streams, r);
    }
    st_close(s);
    if (rc == TRZ_CODEC_OK && o->lean) {
        int grp = a->nrec >= CS_MIN ? pick_group(a, L_LEAN) : 0;
        if (grp < 0) rc = TRZ_CODEC_NOMEM;
        else if (!grp) trz_put_u8(&a->streams[S_LAYOUT], L_LEAN);
    } else if (rc == TRZ_CODEC_OK && pick_layout(a) != 0) rc = TRZ_CODEC_NOMEM;
    for (int i = 0; rc == TRZ_CODEC_OK && i < S_COUNT; i++)
        if (a->streams[i].oom) rc = TRZ_CODEC_NOMEM;
    return rc;
}

/* ---- decoder ------------------------------------------------------------- */

typedef struct byu_rds {
    trz_rd r[S_COUNT];
} byu_rds;

/* A record's kind: its id from S_KIND, a new kind's bytes from their
 * streams.  Returns the kind (reqtype | size << 8 | attr << 16), or
 * UINT32_MAX when corrupt. */
TRZ_FORCE_INLINE uint32_t dec_kind(byu_state *s, byu_rds *d, unsigned id)
{
    if (id < s->nkinds) return s->kinds[id];
    if (id != K_ESC) return UINT32_MAX;
    uint32_t tup = trz_get_u8(&d->r[S_REQ]);
    tup |= (uint32_t)trz_get_u8(&d->r[S_SIZE]) << 8;
    tup |= (uint32_t)trz_get_u8(&d->r[S_ATTR]) << 16;
    if (*kind_slot(s, tup)) return UINT32_MAX; /* a known kind must use its id */
    kind_add(s, tup);
    return tup;
}

/* The time of a class-c record at addr: its byte in its context's stream,
 * 255 and a varint for larger ones.  0, or -1 when corrupt. */
TRZ_FORCE_INLINE int dec_time(byu_state *s, byu_rds *d, unsigned c, uint32_t addr, uint8_t *out)
{
    uint32_t t = trz_get_u8(&d->r[S_TIME0 + time_ctx(s, c, addr)]);
    if (t == T_ESC) {
        uint64_t v = trz_get_uvarint(&d->r[S_TRAW]);
        if (v > 0xffffffffu - T_ESC) return -1;
        t = (uint32_t)v + T_ESC;
    }
    trz_st_le32(out + 8, t);
    s->prevcls = c;
    return 0;
}

TRZ_FORCE_INLINE int dec_record(byu_state *s, am_proc *p, byu_rds *d, uint8_t *out)
{
    uint32_t tup = dec_kind(s, d, trz_get_u8(&d->r[S_KIND]));
    if (tup == UINT32_MAX) return -1;
    out[4] = (uint8_t)tup;
    out[5] = (uint8_t)(tup >> 8);
    out[6] = (uint8_t)(tup >> 16);

    unsigned c = req_class(out[4]);
    unsigned code = trz_get_u8(&d->r[s->ilv ? S_KIND : c == AM_FETCH ? S_FCODE : S_DCODE]);
    uint32_t addr;
    if (code < AM_NEAR) addr = am_decode(&s->am, p, c, code);
    else if (code <= AM_MISS) {
        if (am_get_miss(&d->r[c == AM_FETCH ? S_FDELTA : S_DDELTA], &d->r[c == AM_FETCH ? S_FNEAR : S_DNEAR], code, p, c,
                        am_base(&s->am, p, c), &addr) != 0)
            return -1;
    } else return -1;
    am_update(&s->am, p, c, addr, out[5]);
    trz_st_le32(out, addr);
    return dec_time(s, d, c, addr, out);
}

/* Grouped streams: put the readers of the processor whose run ends back
 * in its sections and take out those of proc (-1: none; the stream
 * readers are then empty).  Nonzero when proc has no sections. */
static int grp_switch(byu_groups *g, byu_rds *d, int proc)
{
    if (g->cur >= 0)
        for (int k = 0; k < G_NS; k++) g->r[g->cur][k] = d->r[g_stream[k]];
    g->cur = proc < 0 ? -1 : g->at[proc];
    for (int k = 0; k < G_NS; k++) {
        if (g->cur >= 0) d->r[g_stream[k]] = g->r[g->cur][k];
        else trz_rd_init(&d->r[g_stream[k]], NULL, 0);
    }
    return proc >= 0 && g->cur < 0;
}

static int dec_end(byu_state *s, byu_rds *d);

TRZ_HOT_CLONES static int dec_all(byu_state *s, byu_rds *d, const trz_dec_args *a)
{
    uint64_t left = 0;
    uint8_t proc = 0;
    am_proc *p = NULL;
    for (uint64_t i = 0; i < a->nrec; i++) {
        if (left == 0) {
            proc = trz_get_u8(&d->r[S_PROC]);
            uint64_t n = trz_get_uvarint(&d->r[S_RUNLEN]);
            if (d->r[S_RUNLEN].err || n >= a->nrec - i) return TRZ_CODEC_CORRUPT;
            left = n + 1;
            if (!(p = st_proc(s, proc))) return TRZ_CODEC_NOMEM;
            if (s->grp && grp_switch(s->grp, d, proc) != 0) return TRZ_CODEC_CORRUPT;
        }
        left--;
        uint8_t *out = a->out + i * 12;
        out[7] = proc;
        if (dec_record(s, p, d, out) != 0) return TRZ_CODEC_CORRUPT;
    }
    return dec_end(s, d);
}

/* After the last record: every section and stream read to its end. */
static int dec_end(byu_state *s, byu_rds *d)
{
    if (s->grp) {
        byu_groups *g = s->grp;
        if (g->cur >= 0) grp_switch(g, d, -1);
        for (int i = 0; i < g->n; i++)
            for (int k = 0; k < G_NS; k++)
                if (g->r[i][k].err || trz_rd_left(&g->r[i][k])) return TRZ_CODEC_CORRUPT;
    }
    for (int i = 0; i < S_COUNT; i++)
        if (d->r[i].err || trz_rd_left(&d->r[i]) != 0) return TRZ_CODEC_CORRUPT;
    return TRZ_CODEC_OK;
}

/* The lean model's records (lean.h), with the time contexts' miss bit
 * from line_fresh (cmode 0), a direct-mapped cache (1) or cs_access (2).
 * The model's state lives in locals while the records are written: a
 * store through the output's bytes may alias anything in memory, which
 * would reload every field after it. */
TRZ_FORCE_INLINE int ln_dec_loop(byu_state *s, byu_rds *d, const trz_dec_args *a, const int cmode)
{
    const uint8_t *tp[LN_TCTX], *te[LN_TCTX];
    for (int i = 0; i < LN_TCTX; i++) {
        tp[i] = d->r[S_TIME0 + i].p;
        te[i] = d->r[S_TIME0 + i].end;
    }
    uint32_t *succ = s->ln.succ;
    ln_slot *slot = s->ln.slot;
    const unsigned sh = 32u - (unsigned)s->ln.bits;
    const uint32_t *kinfo = s->kinfo;
    uint32_t *ctag[AM_NCLS] = { s->cache.itag, s->cache.tag, s->cache.tag, s->cache.tag };
    const uint32_t cmask = s->cache.smask, cll = s->cache.g.lline;
    uint32_t pc = 0, step = 0, k = 0, last[AM_NCLS] = { 0 }, stride[AM_NCLS] = { 0 };
    ln_proc *p = NULL;
    const uint8_t *kc = d->r[S_KIND].p, *ke = d->r[S_KIND].end;
    uint8_t *out = a->out, *end = a->out + a->nrec * 12;
    while (out < end) {
        /* a processor run: its state in, the last one's out */
        if (p) {
            p->pc = pc, p->step = step, p->k = k;
            memcpy(p->last, last, sizeof last);
            memcpy(p->stride, stride, sizeof stride);
        }
        uint32_t proc = trz_get_u8(&d->r[S_PROC]);
        uint64_t n = trz_get_uvarint(&d->r[S_RUNLEN]);
        if (d->r[S_RUNLEN].err || n >= (uint64_t)(end - out) / 12) return TRZ_CODEC_CORRUPT;
        if (!(p = st_lproc(s, (uint8_t)proc))) return TRZ_CODEC_NOMEM;
        pc = p->pc, step = p->step, k = p->k;
        memcpy(last, p->last, sizeof last);
        memcpy(stride, p->stride, sizeof stride);
        if (s->grp) {
            d->r[S_KIND].p = kc;
            if (grp_switch(s->grp, d, (int)proc) != 0) return TRZ_CODEC_CORRUPT;
            kc = d->r[S_KIND].p, ke = d->r[S_KIND].end;
        }
        if ((uint64_t)(ke - kc) < 2 * (n + 1)) return TRZ_CODEC_CORRUPT; /* the run's kinds and codes */
        proc <<= 24;
        for (uint8_t *run = out + (n + 1) * 12; out < run; out += 12, kc += 2) {
            unsigned code = kc[0 + 1];
            uint32_t ki = kinfo[kc[0]], addr;
            if (ki == UINT32_MAX) { /* a new kind, or corrupt */
                uint32_t tup = dec_kind(s, d, kc[0]);
                if (tup == UINT32_MAX) return TRZ_CODEC_CORRUPT;
                ki = tup | req_class((uint8_t)tup) << 24;
            }
            unsigned c = ki >> 24;
            if (c == AM_FETCH) {
                uint32_t *sp = &succ[(pc * 0x9E3779B1u) >> sh], ft = pc + step;
                if (code == 0) addr = ft;
                else if (code == 1) addr = *sp;
                else if (code == 2) addr = pc;
                else {
                    const uint32_t cand[4] = { 0, 0, 0, 0 };
                    if ((code != LN_NEAR && code != LN_FAR) ||
                        ln_addr(cand, c, code, pc, &d->r[S_FDELTA], &d->r[S_FNEAR], &addr) != 0)
                        return TRZ_CODEC_CORRUPT;
                }
                if (addr != ft) *sp = addr;
                pc = addr;
                step = ki >> 8 & 255;
                k = 0;
            } else {
                ln_slot *sl = &slot[((pc ^ k * 0x5bd1e995u) * 0x9E3779B1u) >> sh];
                const uint32_t sla = sl->last, cand[4] = { sla + sl->stride, sla, last[c] + stride[c], last[c] };
                if (code < 4) addr = cand[code];
                else if (code >= LN_NCODE ||
                         ln_addr(cand, c, code, sla, &d->r[S_DDELTA], &d->r[S_DNEAR], &addr) != 0)
                    return TRZ_CODEC_CORRUPT;
                sl->stride = addr - sla;
                sl->last = addr;
                k += k < LN_KMAX;
            }
            stride[c] = addr - last[c];
            last[c] = addr;

            unsigned fresh;
            if (cmode == 2) fresh = !cs_access(&s->cache, c == AM_FETCH, addr);
            else if (cmode == 1) {
                uint32_t line = addr >> cll, *e = ctag[c] + (line & cmask);
                fresh = *e != line + 1;
                *e = line + 1;
            } else fresh = line_fresh(s->lines, addr);
            unsigned ctx = (c != AM_FETCH) * T_FRESH + fresh;
            if (tp[ctx] == te[ctx]) return TRZ_CODEC_CORRUPT;
            uint32_t t = *tp[ctx]++;
            if (t == T_ESC) {
                uint64_t v = trz_get_uvarint(&d->r[S_TRAW]);
                if (v > 0xffffffffu - T_ESC) return TRZ_CODEC_CORRUPT;
                t = (uint32_t)v + T_ESC;
            }
            trz_st_le32(out, addr);
            trz_st_le32(out + 4, (ki & 0xffffff) | proc);
            trz_st_le32(out + 8, t);
        }
    }
    d->r[S_KIND].p = kc;
    for (int i = 0; i < LN_TCTX; i++) d->r[S_TIME0 + i].p = tp[i];
    return dec_end(s, d);
}

TRZ_HOT_CLONES static int ln_dec_all(byu_state *s, byu_rds *d, const trz_dec_args *a)
{
    if (!s->cache.tag) return ln_dec_loop(s, d, a, 0);
    return s->cache.g.ways == 1 ? ln_dec_loop(s, d, a, 1) : ln_dec_loop(s, d, a, 2);
}

/* Stream 14, when not empty: the layout flags, then with L_GROUP the
 * section table (processors - 1, then per processor in ascending order its
 * byte and each grouped stream's section length).  The sections must
 * tile their streams exactly. */
static int dec_layout(byu_state *s, byu_rds *d)
{
    trz_rd *l = &d->r[S_LAYOUT];
    unsigned f = trz_get_u8(l);
    if (f == 0 || f == (L_LEAN | L_ILV) || f == (L_LEAN | L_GROUP | L_ILV)) return TRZ_CODEC_CORRUPT;
    if (f > (L_LEAN | L_GROUP | L_ILV)) return TRZ_CODEC_UNSUPPORTED; /* a later version's layout */
    if (!(f & L_LEAN) != !s->lean) return TRZ_CODEC_CORRUPT; /* the state was made for the other model */
    s->ilv = f & L_ILV;
    if (f & L_GROUP) {
        byu_groups *g = s->grp = malloc(sizeof *g);
        if (!g) return TRZ_CODEC_NOMEM;
        memset(g->at, 0xff, sizeof g->at);
        g->cur = -1;
        uint64_t n = trz_get_uvarint(l) + 1;
        if (l->err || n < 2 || n > 256) return TRZ_CODEC_CORRUPT;
        g->n = (int)n;
        int last = -1;
        for (uint64_t i = 0; i < n; i++) {
            int q = trz_get_u8(l);
            if (l->err || q <= last) return TRZ_CODEC_CORRUPT; /* ascending, each once */
            last = q;
            g->at[q] = (int16_t)i;
            for (int k = 0; k < G_NS; k++) {
                trz_rd *r = &d->r[g_stream[k]];
                uint64_t len = trz_get_uvarint(l);
                if (l->err || len > trz_rd_left(r)) return TRZ_CODEC_CORRUPT;
                trz_rd_init(&g->r[i][k], r->p, (size_t)len);
                if (len) r->p += len; /* an absent stream is NULL: no arithmetic on it */
            }
        }
        for (int k = 0; k < G_NS; k++)
            if (trz_rd_left(&d->r[g_stream[k]])) return TRZ_CODEC_CORRUPT;
    }
    return trz_rd_left(l) ? TRZ_CODEC_CORRUPT : TRZ_CODEC_OK;
}

static int zs_decode(const trz_dec_args *a, trz_model *tm)
{
    byu_model *m = (byu_model *)tm;
    if (a->nrec > a->len / 12 || a->len != a->nrec * 12) return TRZ_CODEC_CORRUPT;
    for (int i = S_COUNT; i < TRZ_MAX_STREAMS; i++)
        if (a->stream_len[i]) return TRZ_CODEC_CORRUPT;
    byu_rds d;
    for (int i = 0; i < S_COUNT; i++)
        trz_rd_init(&d.r[i], a->stream[i], a->stream[i] ? a->stream_len[i] : 0);
    byu_state *s = &m->st;
    int lean = trz_rd_left(&d.r[S_LAYOUT]) && (d.r[S_LAYOUT].p[0] & L_LEAN); /* dec_layout checks the rest */
    int rc = st_open(s, a->nrec, lean) != 0 ? TRZ_CODEC_NOMEM : TRZ_CODEC_OK;
    if (rc == TRZ_CODEC_OK && trz_rd_left(&d.r[S_CACHE])) { /* the chunk names a cache */
        cs_geom g;
        g.lline = trz_get_u8(&d.r[S_CACHE]);
        g.lsets = trz_get_u8(&d.r[S_CACHE]);
        g.ways = trz_get_u8(&d.r[S_CACHE]);
        g.split = trz_get_u8(&d.r[S_CACHE]);
        if (d.r[S_CACHE].err || !cs_valid(g)) rc = TRZ_CODEC_CORRUPT;
        else if (cs_open(&s->cache, g) != 0) rc = TRZ_CODEC_NOMEM;
    }
    if (rc == TRZ_CODEC_OK && trz_rd_left(&d.r[S_LAYOUT])) rc = dec_layout(s, &d);
    if (rc == TRZ_CODEC_OK) rc = s->lean ? ln_dec_all(s, &d, a) : dec_all(s, &d, a);
    st_close(s);
    return rc;
}

/* ---- arithmetic-coded path: the range and mix variants ------------------------ */

struct byu_cm {
    bus_acm a;
    cm_p same, proc[256];
    cm_p kind[KC][KC][8];            /* min(kind id, 7) by the last two ids */
    cm_p kind2[KC][KC][KC][8];       /* by the last three ids */
    cm_p kind3[KC][BUS_NB][7][8];    /* by the last id, its address code bucket, its time bucket / 3 */
    int32_t kw[8][CM_MAXIN];
    cm_p khi[256];                   /* ids from 7 up (255 = new) */
    cm_p kesc[3][256];
    cm_p tq[KC][KC][TB_N][128];      /* time quotient by the kind ids now and before, last time bucket */
    cm_p tq2[KC][BUS_NB][TB_N][128]; /* by kind id, address code bucket, last time bucket */
    cm_p tq3[KC][KC][KC][TB_N / 4][128]; /* by three kind ids, the time bucket before last / 4 */
    int32_t tw[KC][128][CM_MAXIN];
    cm_p tr[KC][128][8];             /* low 3 bits of time + 1 by kind id and quotient */
    cm_gamma tesc[AM_NCLS];
    int32_t trw[KC][8][CM_MAXIN];    /* mixer weights of the low time bits */
    uint8_t k1, k2, k3, tb, tb2, lastproc; /* ids of this (after the kind) and earlier records, capped */
    uint8_t lo1, lo2;                /* low 3 bits of time + 1 of the last two records (below the escape) */
    uint8_t lastq[65536];            /* the time quotient last seen at a code position (hashed) */
    uint16_t apk[KC][KC][8 * CM_APM_N];       /* refinement of the kind by the last two ids */
    uint16_t apt[KC][BUS_NB][128 * CM_APM_N]; /* of the time quotient by kind id and address code bucket */
};

static void cm_model_init(byu_cm *m)
{
    bus_acm_init(&m->a);
    m->same = CM_P0;
    cm_init_probs(m->proc, 256);
    cm_init_probs(&m->kind[0][0][0], sizeof m->kind / sizeof(cm_p));
    cm_init_probs(&m->kind2[0][0][0][0], sizeof m->kind2 / sizeof(cm_p));
    cm_init_probs(&m->kind3[0][0][0][0], sizeof m->kind3 / sizeof(cm_p));
    cm_init_weights(m->kw, 8, W0);
    cm_init_probs(m->khi, 256);
    cm_init_probs(&m->kesc[0][0], sizeof m->kesc / sizeof(cm_p));
    cm_init_probs(&m->tq[0][0][0][0], sizeof m->tq / sizeof(cm_p));
    cm_init_probs(&m->tq2[0][0][0][0], sizeof m->tq2 / sizeof(cm_p));
    cm_init_probs(&m->tq3[0][0][0][0][0], sizeof m->tq3 / sizeof(cm_p));
    cm_init_weights(&m->tw[0][0], KC * 128, W0);
    cm_init_probs(&m->tr[0][0][0], sizeof m->tr / sizeof(cm_p));
    for (int i = 0; i < AM_NCLS; i++) cm_gamma_init(&m->tesc[i]);
    cm_init_weights(&m->trw[0][0], KC * 8, TRW0);
    m->k1 = m->k2 = m->k3 = m->tb = m->tb2 = m->lastproc = 0;
    m->lo1 = m->lo2 = 0;
    memset(m->lastq, 0, sizeof m->lastq);
    cm_apm_init(&m->apk[0][0][0], KC * KC * 8);
    cm_apm_init(&m->apt[0][0][0], KC * BUS_NB * 128);
}

/* proc byte: "same as the last record" bit, else the byte. */
static int cm_proc(byu_cm *m, cm_coder *c, uint8_t *r)
{
    if (cm_bit(c, &m->same, r[7] == m->lastproc)) r[7] = m->lastproc;
    else if ((r[7] = (uint8_t)cm_tree(c, m->proc, 8, r[7])) == m->lastproc) return -1;
    m->lastproc = r[7];
    return 0;
}

/* Kind id (dictionary as in the stream path), 255 = a new kind, its three
 * bytes follow.  min(id, 7) with three context sets mixed: the kind
 * sequence alone (two and three back) and the last kind with how its
 * address and time went; 7 = the id follows in 8 bits. */
static int cm_kind(byu_state *s, byu_cm *m, cm_coder *c, const am_proc *p, uint8_t *r)
{
    unsigned id = K_ESC;
    if (!c->dec) {
        uint16_t *e = kind_slot(s, rec_tup(r));
        if (*e) id = *e - 1u;
    }
    cm_p *ts[3] = { m->kind[m->k1][m->k2], m->kind2[m->k1][m->k2][m->k3],
                    m->kind3[m->k1][m->a.lastany][m->tb < 18 ? m->tb / 3 : 6] };
    uint32_t sd[4] = { 0, 0, 0, 0 };
    if (c->mix) {
        sd[0] = bus_pck(p, 100 + m->k1);
        sd[1] = bus_pck(p, 0x20000 + m->k1 * 64 + m->k2 * 8 + m->k3);
        sd[2] = bus_pck(p, 0x60000 + m->k1 * 32 + m->tb);
        sd[3] = bus_ack2(p->a1, p->a2, 0x100 + m->k1);
    }
    unsigned lo = cm_mtree_ha(c, ts, 3, m->a.hx, m->a.hbits, sd, 4, m->kw, 3, id < 7 ? id : 7,
                              m->apk[m->k1][m->k2]);
    id = lo < 7 ? lo : cm_tree(c, m->khi, 8, id);
    if (id < 7 && lo == 7) return -1; /* ids below 7 use the short form */
    if (id == K_ESC) {
        for (int i = 0; i < 3; i++) r[4 + i] = (uint8_t)cm_tree(c, m->kesc[i], 8, r[4 + i]);
        if (c->dec && *kind_slot(s, rec_tup(r))) return -1; /* a known kind must use its id */
        kind_add(s, rec_tup(r));
    } else if (id < s->nkinds) {
        uint32_t tup = s->kinds[id];
        r[4] = (uint8_t)tup;
        r[5] = (uint8_t)(tup >> 8);
        r[6] = (uint8_t)(tup >> 16);
    } else return -1;
    m->k3 = m->k2;
    m->k2 = m->k1;
    m->k1 = (uint8_t)(id < KC - 1 ? id : KC - 1);
    return 0;
}

/* Time: v = t + 1 split as the quotient q = v >> 3 (7-bit tree, mixed from
 * three context sets; 127 escapes) and the low 3 bits (3-bit tree): bus
 * clocks make times cluster at multiples of 8 give or take one, and + 1
 * keeps each cluster inside one quotient. */
static int cm_time(byu_cm *m, cm_coder *c, const am_proc *p, unsigned cls, uint8_t *r)
{
    uint32_t t = trz_ld_le32(r + 8), v = t + 1;
    cm_p *ts[3] = { m->tq[m->k1][m->k2][m->tb], m->tq2[m->k1][m->a.lastany][m->tb],
                    m->tq3[m->k1][m->k2][m->k3][m->tb2 / 4] };
    uint32_t sd[5] = { 0, 0, 0, 0, 0 };
    uint8_t *lq = NULL;
    if (c->mix) {
        lq = &m->lastq[bus_pck(p, 777 + m->k1) >> 16];
        sd[0] = bus_pck(p, 300 + m->k1 * 8 + m->k2);
        sd[1] = bus_pck(p, 0x10000 + m->k1 * 256 + m->tb * 8 + m->a.lastany);
        sd[2] = bus_pck(p, 0x50000 + m->k1 * 256 + *lq);
        sd[3] = bus_pck(p, 0x70000 + m->k1 * 1024 + m->tb * 32 + m->tb2);
        sd[4] = bus_ack2(p->a1, p->a2, 0x200 + m->k1);
    }
    uint32_t q = cm_mtree_ha(c, ts, 3, m->a.hx, m->a.hbits, sd, 5, m->tw[m->k1], 7, t < TQ_MAX ? v >> 3 : TQ_ESC,
                             m->apt[m->k1][m->a.lastany]);
    if (lq) *lq = (uint8_t)q;
    if (q == TQ_ESC) {
        uint32_t e = cm_gamma_code(c, &m->tesc[cls], t - TQ_MAX);
        if (e > 0xffffffffu - TQ_MAX) return -1;
        t = e + TQ_MAX;
    } else {
        CM_FIELD(c, 8);
        cm_p *tl[1] = { m->tr[m->k1][q] };
        uint32_t sl[2] = { cm_mix32(0x5000u + m->lo1 * 2048u + m->lo2 * 256u + q), 0 };
        if (c->mix) sl[1] = bus_pck(p, 0xC0000 + q);
        v = q << 3 | cm_mtree_h(c, tl, 1, m->a.hx, m->a.hbits, sl, 2, m->trw[m->k1], 3, v & 7);
        if (v == 0) return -1; /* t + 1 is never 0 below the escape */
        m->lo2 = m->lo1;
        m->lo1 = (uint8_t)(v & 7);
        t = v - 1;
    }
    trz_st_le32(r + 8, t);
    m->tb2 = m->tb;
    m->tb = (uint8_t)(q / 2 < TB_N ? q / 2 : TB_N - 1);
    return 0;
}

/* One record, both directions: r holds the record (encoding) or receives
 * it (decoding). */
static int cm_record(byu_state *s, byu_cm *m, cm_coder *c, uint8_t *r)
{
    CM_FIELD(c, 0);
    if (cm_proc(m, c, r) != 0) return TRZ_CODEC_CORRUPT;
    am_proc *p = st_proc(s, r[7]);
    if (!p) return TRZ_CODEC_NOMEM;
    CM_FIELD(c, 1);
    if (cm_kind(s, m, c, p, r) != 0) return TRZ_CODEC_CORRUPT;
    CM_FIELD(c, 2);
    unsigned cls = req_class(r[4]);
    int bad = 0;
    uint32_t addr = bus_addr(c, &m->a, &s->am, p, cls, trz_ld_le32(r), m->k1 * KC + m->k2 + m->tb * 64u, &bad);
    if (bad) return TRZ_CODEC_CORRUPT;
    am_update(&s->am, p, cls, addr, r[5]);
    trz_st_le32(r, addr);
    CM_FIELD(c, 5);
    if (cm_time(m, c, p, cls, r) != 0) return TRZ_CODEC_CORRUPT;
    return TRZ_CODEC_OK;
}

BUS_CM_LOOPS(cm_enc_loop, cm_dec_loop, cm_record, 12, byu_state, byu_cm)

/* The state and the range or mix model ready for a chunk of nrec records.
 * 0, or -1 on no memory. */
static int cm_open(byu_model *m, uint64_t nrec, int mix)
{
    if (st_open(&m->st, nrec, 0) != 0) return -1;
    if (!m->cm && !(m->cm = trz_big_calloc(sizeof *m->cm))) return -1;
    cm_model_init(m->cm);
    return mix ? bus_hx_open(&m->cm->a, nrec) : 0;
}

/* Encode with the mixed model (mix) or the unmixed one (the trial's);
 * stop: as in BUS_CM_LOOPS. */
static int cm_encode_to(const trz_enc_args *a, byu_model *m, int mix, size_t stop)
{
    int rc = cm_open(m, a->nrec, mix) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK) {
        bus_set_refs(&m->cm->a, mix && m->lv->all_refs);
        trz_buf *out = &a->streams[S_CM];
        bus_cm_head(out, mix ? BUS_CM_MIXED : BUS_CM_VERSION, a->nrec);
        cm_enc_init(&m->coder, out);
        m->coder.mix = mix;
        rc = cm_enc_loop(&m->st, m->cm, &m->coder, a, out, stop);
    }
    st_close(&m->st);
    return rc;
}

/* cm_encode_to as bus_pick_cm calls it: arg is the model. */
static int cm_trial(const trz_enc_args *a, const void *arg, int mix, size_t stop)
{
    return cm_encode_to(a, (byu_model *)arg, mix, stop);
}

/* Decoder of the range and mix variants (the version byte says which). */
static int cm_decode(const trz_dec_args *a, trz_model *tm)
{
    byu_model *m = (byu_model *)tm;
    unsigned ver;
    trz_rd hd;
    int rc = bus_cm_open_stream(a, S_CM, &ver, &hd);
    if (rc != TRZ_CODEC_OK) return rc;
    int mix = ver == BUS_CM_MIXED;
    rc = cm_open(m, a->nrec, mix) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK) {
        cm_dec_init(&m->coder, hd.p, trz_rd_left(&hd));
        m->coder.mix = mix;
        rc = cm_dec_loop(&m->st, m->cm, &m->coder, a);
    }
    st_close(&m->st);
    return rc;
}

/* ---- fast model (bus_fast.h): the range-fast variant ------------------------- */

/* The same fields as above: the kind, the address code and the time
 * quotient first guessed from the record's slot (bf_slot), the rest with
 * one probability each from a dense context. */
struct byu_fm {
    bf_acm a;
    bf_slots slots;
    rc_prob same;
    bf_p proc[256];
    bf_p ksame[4][KC][KC];         /* "the slot's kind again" by its hist and the last two ids */
    bf_p kind[KC][KC][KC][8];      /* min(kind id, 7) by the last three ids */
    bf_p khi[256];                 /* ids from 7 up (255 = new) */
    bf_p kesc[3][256];
    bf_p tsame[4][KC][TB_N];       /* "the slot's time quotient again" by its hist, kind id and last time bucket */
    bf_p tq[KC][KC][TB_N][128];    /* time quotient by the kind ids now and before, last time bucket */
    bf_p tr[KC][128][8];           /* low 3 bits of time + 1 by kind id and quotient */
    rc_prob tlen[AM_NCLS][RC_ULEN], tbits[AM_NCLS][RC_UBITS]; /* escaped times */
    uint8_t k1, k2, k3, tb, lastproc;
};

/* The state and the fast model ready for a chunk of nrec records.  0, or
 * -1 on no memory. */
static int fm_open(byu_model *mm, uint64_t nrec)
{
    if (st_open(&mm->st, nrec, 0) != 0) return -1;
    if (!mm->fm && !(mm->fm = trz_big_calloc(sizeof *mm->fm))) return -1;
    byu_fm *m = mm->fm;
    if (bf_slots_open(&m->slots, nrec)) return -1;
    bf_acm_init(&m->a);
    m->same = RC_P0;
    bf_init(m->proc, 256);
    bf_init(&m->ksame[0][0][0], sizeof m->ksame / sizeof(bf_p));
    bf_init(&m->kind[0][0][0][0], sizeof m->kind / sizeof(bf_p));
    bf_init(m->khi, 256);
    bf_init(&m->kesc[0][0], sizeof m->kesc / sizeof(bf_p));
    bf_init(&m->tsame[0][0][0], sizeof m->tsame / sizeof(bf_p));
    bf_init(&m->tq[0][0][0][0], sizeof m->tq / sizeof(bf_p));
    bf_init(&m->tr[0][0][0], sizeof m->tr / sizeof(bf_p));
    rc_init(&m->tlen[0][0], sizeof m->tlen / sizeof(rc_prob));
    rc_init(&m->tbits[0][0], sizeof m->tbits / sizeof(rc_prob));
    m->k1 = m->k2 = m->k3 = m->tb = m->lastproc = 0;
    return 0;
}

TRZ_FORCE_INLINE int fm_record(byu_state *s, byu_fm *m, rc *c, uint8_t *r)
{
    /* processor: "same as the last record", else the byte */
    if (rc_bit(c, &m->same, r[7] == m->lastproc)) r[7] = m->lastproc;
    else if ((r[7] = (uint8_t)bf_tree(c, m->proc, 8, r[7])) == m->lastproc) return TRZ_CODEC_CORRUPT;
    m->lastproc = r[7];
    am_proc *p = st_proc(s, r[7]);
    if (!p) return TRZ_CODEC_NOMEM;
    bf_slot *sl = bf_slot_at(&m->slots, p);

    BF_FIELD(1);
    /* kind id (as cm_kind): the slot's again, or min(id, 7), or the id */
    unsigned id = K_ESC;
    if (!c->dec) {
        uint16_t *e = kind_slot(s, rec_tup(r));
        if (*e) id = *e - 1u;
    }
    int hit = BF_BIT(c, &m->ksame[bf_h(sl, 0)][m->k1][m->k2], id == sl->kind);
    bf_hit(sl, 0, hit);
    if (hit) id = sl->kind;
    else {
        unsigned lo = bf_tree(c, m->kind[m->k1][m->k2][m->k3], 3, id < 7 ? id : 7);
        id = lo < 7 ? lo : bf_tree(c, m->khi, 8, id);
        if (id < 7 && lo == 7) return TRZ_CODEC_CORRUPT; /* ids below 7 use the short form */
        if (id == sl->kind) return TRZ_CODEC_CORRUPT;    /* the slot's kind uses the guess */
        sl->kind = (uint8_t)id;
    }
    if (id == K_ESC) {
        for (int i = 0; i < 3; i++) r[4 + i] = (uint8_t)bf_tree(c, m->kesc[i], 8, r[4 + i]);
        if (c->dec && *kind_slot(s, rec_tup(r))) return TRZ_CODEC_CORRUPT; /* a known kind must use its id */
        kind_add(s, rec_tup(r));
        uint16_t *e = kind_slot(s, rec_tup(r)); /* the next time here it is a known kind */
        sl->kind = (uint8_t)(*e ? *e - 1u : K_ESC);
    } else if (id < s->nkinds) {
        uint32_t tup = s->kinds[id];
        r[4] = (uint8_t)tup;
        r[5] = (uint8_t)(tup >> 8);
        r[6] = (uint8_t)(tup >> 16);
    } else return TRZ_CODEC_CORRUPT;
    m->k3 = m->k2;
    m->k2 = m->k1;
    m->k1 = (uint8_t)(id < KC - 1 ? id : KC - 1);

    /* address */
    unsigned cls = req_class(r[4]);
    int bad = 0;
    uint32_t addr = bf_addr(c, &m->a, &s->am, p, sl, cls, trz_ld_le32(r), &bad);
    if (bad) return TRZ_CODEC_CORRUPT;
    am_update(&s->am, p, cls, addr, r[5]);
    trz_st_le32(r, addr);

    BF_FIELD(6);
    /* time (as cm_time): the quotient of t + 1 by 8 (the slot's again, or
     * the quotient), then its low 3 bits */
    uint32_t t = trz_ld_le32(r + 8), v = t + 1;
    uint32_t q = t < TQ_MAX ? v >> 3 : TQ_ESC;
    hit = BF_BIT(c, &m->tsame[bf_h(sl, 2)][m->k1][m->tb], q == sl->q);
    bf_hit(sl, 2, hit);
    if (hit) q = sl->q;
    else {
        q = bf_tree(c, m->tq[m->k1][m->k2][m->tb], 7, q);
        if (q == sl->q) return TRZ_CODEC_CORRUPT; /* the slot's quotient uses the guess */
        sl->q = (uint8_t)q;
    }
    if (q == TQ_ESC) {
        uint64_t e = rc_uint(c, m->tlen[cls], m->tbits[cls], t - TQ_MAX);
        if (e > 0xffffffffu - TQ_MAX) return TRZ_CODEC_CORRUPT;
        t = (uint32_t)e + TQ_MAX;
    } else {
        BF_FIELD(7);
        v = q << 3 | bf_tree(c, m->tr[m->k1][q], 3, v & 7);
        if (v == 0) return TRZ_CODEC_CORRUPT; /* t + 1 is never 0 below the escape */
        t = v - 1;
    }
    trz_st_le32(r + 8, t);
    m->tb = (uint8_t)(q / 2 < TB_N ? q / 2 : TB_N - 1);
    return TRZ_CODEC_OK;
}

BUS_FAST_LOOPS(fm_enc_loop, fm_dec_loop, fm_record, 12, byu_state, byu_fm)

/* ---- the variants ------------------------------------------------------------ */

/* streams: the stream path with addrmodel.h, the cache chosen on all its
 * sets; written where a variant above finds it smaller. */
static int zs_encode(const trz_enc_args *a, trz_model *tm)
{
    if (a->len != a->nrec * 12) return TRZ_CODEC_UNSUPPORTED;
    zs_opts o = { (byu_model *)tm, 0, { 0, 0, 0, 0 }, 0 };
    o.cache = pick_cache(a, &o.g, 0);
    return o.cache < 0 ? TRZ_CODEC_NOMEM : zs_encode_opt(a, &o);
}

/* streams-lean: the stream path with the lean model (lean.h). */
static int lean_encode(const trz_enc_args *a, trz_model *tm)
{
    if (a->len != a->nrec * 12) return TRZ_CODEC_UNSUPPORTED;
    byu_model *m = (byu_model *)tm;
    zs_opts o = { m, 0, { 0, 0, 0, 0 }, 1 };
    o.cache = pick_cache(a, &o.g, m->lv->cache_sets);
    return o.cache < 0 ? TRZ_CODEC_NOMEM : zs_encode_opt(a, &o);
}

/* range-fast: the fast model, unless the stream path wins without a
 * cache simulator (which costs more than the fast model itself); then the
 * stream path with its full choices. */
static int fm_encode(const trz_enc_args *a, trz_model *tm)
{
    if (a->len != a->nrec * 12) return TRZ_CODEC_UNSUPPORTED;
    byu_model *m = (byu_model *)tm;
    zs_opts o = { m, 0, { 0, 0, 0, 0 }, 0 };
    int r;
    size_t zsz = bus_fast_target(a, 12, zs_encode_opt, &o, &r);
    if (r != TRZ_CODEC_OK) return r;
    r = fm_open(m, a->nrec) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (r == TRZ_CODEC_OK) {
        trz_buf *out = &a->streams[S_CM];
        bus_cm_head(out, BUS_CM_FAST, a->nrec);
        r = fm_enc_loop(&m->st, m->fm, a, out, zsz);
        if (r == BUS_FAST_NOGAIN) out->n = 0;
    }
    st_close(&m->st);
    return r == BUS_FAST_NOGAIN ? zs_encode(a, tm) : r;
}

static int fm_decode(const trz_dec_args *a, trz_model *tm)
{
    byu_model *m = (byu_model *)tm;
    unsigned ver;
    trz_rd hd;
    int rc = bus_cm_open_stream(a, S_CM, &ver, &hd);
    if (rc != TRZ_CODEC_OK) return rc;
    rc = fm_open(m, a->nrec) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK) rc = fm_dec_loop(&m->st, m->fm, a, hd.p, trz_rd_left(&hd));
    st_close(&m->st);
    return rc;
}

/* mix: the mixed model where a trial on the chunk's prefix finds it
 * smaller than the stream path (bus_pick_cm), else the stream path. */
static int mix_encode(const trz_enc_args *a, trz_model *tm)
{
    if (a->len != a->nrec * 12) return TRZ_CODEC_UNSUPPORTED;
    byu_model *m = (byu_model *)tm;
    zs_opts o = { m, 0, { 0, 0, 0, 0 }, 0 }; /* chosen once: every stream-path encoding below uses them */
    o.cache = pick_cache(a, &o.g, m->lv->cache_sets);
    if (o.cache < 0) return TRZ_CODEC_NOMEM;
    int pick = bus_pick_cm(a, 12, zs_encode_opt, &o, cm_trial, m);
    return pick < 0 ? pick : pick ? cm_encode_to(a, m, 1, SIZE_MAX) : zs_encode_opt(a, &o);
}

/* The stream paths' decoder (dec_layout tells which address model) checks
 * the chunk's size first, as the arithmetic ones do in their loops. */
static int zs_decode_chunk(const trz_dec_args *a, trz_model *tm)
{
    if (a->nrec > a->len / 12 || a->len != a->nrec * 12) return TRZ_CODEC_CORRUPT;
    return zs_decode(a, tm);
}

static int cm_decode_chunk(const trz_dec_args *a, trz_model *tm)
{
    if (a->nrec > a->len / 12 || a->len != a->nrec * 12) return TRZ_CODEC_CORRUPT;
    return cm_decode(a, tm);
}

static int fm_decode_chunk(const trz_dec_args *a, trz_model *tm)
{
    if (a->nrec > a->len / 12 || a->len != a->nrec * 12) return TRZ_CODEC_CORRUPT;
    return fm_decode(a, tm);
}

/* Variant ids: the arithmetic path's are its stream's version byte
 * (BUS_CM_*); the stream paths have none on disk (S_LAYOUT's L_LEAN tells
 * the lean one), 0 and 1 here. */
enum { V_STREAMS, V_LEAN, V_RANGE, V_MIX, V_FAST };
static const trz_variant byu_variants[] = {
    [V_STREAMS] = { 0, "streams", 0, 0, zs_encode, zs_decode_chunk },
    [V_LEAN] = { 1, "streams-lean", 1, 5, lean_encode, zs_decode_chunk },
    [V_RANGE] = { BUS_CM_VERSION, "range", 0, 0, NULL, cm_decode_chunk },
    [V_MIX] = { BUS_CM_MIXED, "mix", 12, 19, mix_encode, cm_decode_chunk },
    [V_FAST] = { BUS_CM_FAST, "range-fast", 6, 11, fm_encode, fm_decode_chunk },
};

#define LEAN { V_LEAN, 2, 0 }
#define FAST { V_FAST, 0, 0 }
#define MIX { V_MIX, 0, 1 }
static const byu_level byu_levels[TRZ_LEVEL_MAX + 1] = {
    LEAN, LEAN, LEAN, LEAN, LEAN, LEAN,             /* 0 (as 1), 1-5 */
    FAST, FAST, FAST, FAST, FAST, FAST,             /* 6-11 */
    MIX, MIX, MIX, MIX, MIX, MIX, MIX, MIX,         /* 12-19 */
};
#undef LEAN
#undef FAST
#undef MIX

/* The variant of a chunk: the arithmetic path's by its version byte, the
 * stream paths' by the layout's L_LEAN. */
static int byu_variant_of(const size_t *len, const uint8_t *const *head)
{
    if (len[S_CM]) {
        unsigned v = bus_cm_version_of(len, head, S_CM);
        return v == BUS_CM_FAST ? V_FAST : v == BUS_CM_MIXED ? V_MIX : v == BUS_CM_VERSION ? V_RANGE : -1;
    }
    return len[S_LAYOUT] && (head[S_LAYOUT][0] & L_LEAN) ? V_LEAN : V_STREAMS;
}

/* ---- the model ---------------------------------------------------------------- */

static trz_model *byu_model_create(int level, int know)
{
    (void)know;
    byu_model *m = calloc(1, sizeof *m);
    if (m) m->lv = &byu_levels[level ? trz_level_clamp(level) : 0];
    return (trz_model *)m;
}

/* Each chunk sets up what it uses (st_open, cm_open, fm_open): nothing
 * carries over but the tables' memory. */
static void byu_model_reset(trz_model *tm) { (void)tm; }

static void byu_model_free(trz_model *tm)
{
    byu_model *m = (byu_model *)tm;
    if (!m) return;
    st_free(&m->st);
    if (m->cm) {
        bus_hx_free(&m->cm->a);
        trz_big_free(m->cm, sizeof *m->cm);
    }
    if (m->fm) {
        bf_slots_free(&m->fm->slots);
        trz_big_free(m->fm, sizeof *m->fm);
    }
    free(m);
}

/* ---- probe, names, dump -------------------------------------------------- */

static int plausible_req(uint8_t q)
{
    return q <= 0x03 || q == 0x10 || q == 0x11 || (q >= 0x20 && q <= 0x23) || (q >= 0x31 && q <= 0x37);
}

static int plausible_size(uint8_t z) { return z <= 8 || z == 16 || z == 32; }

static int byu_probe(const uint8_t *buf, size_t len, int *byte_order)
{
    *byte_order = TRZ_BO_LITTLE;
    size_t n = len / 12;
    if (n > 8192) n = 8192;
    if (n < 2) return 0;
    size_t req = 0, size = 0, attr = 0, proc_chg = 0, small_t = 0, fetch = 0, nproc = 0;
    uint8_t seen[256] = { 0 };
    for (size_t i = 0; i < n; i++) {
        const uint8_t *r = buf + i * 12;
        req += plausible_req(r[4]);
        size += plausible_size(r[5]);
        attr += r[6] < 16;
        fetch += r[4] == 0;
        small_t += r[11] == 0;
        if (i && r[7] != r[7 - 12]) proc_chg++;
        nproc += !seen[r[7]];
        seen[r[7]] = 1;
    }
    /* All shares in 1/100 of the sampled records.  The proc byte is stable:
     * it changes seldom, or it takes few values (a multiprocessor's bus
     * interleaves its processors' requests finely). */
    if (req * 100 < n * 97 || size * 100 < n * 95 || attr * 100 < n * 95) return 0;
    if (small_t * 100 < n * 90 || (proc_chg * 100 > n * 60 && nproc > 16)) return 0;
    if (fetch * 100 < n * 5) return 40;
    return 85;
}

static const char *byu_stream_name(unsigned id)
{
    /* time streams: class now x class before x fresh line */
    static const char *const tn[T_NCTX] = {
        "time.FF", "time.FF+", "time.FR", "time.FR+", "time.FW", "time.FW+", "time.FO", "time.FO+",
        "time.RF", "time.RF+", "time.RR", "time.RR+", "time.RW", "time.RW+", "time.RO", "time.RO+",
        "time.WF", "time.WF+", "time.WR", "time.WR+", "time.WW", "time.WW+", "time.WO", "time.WO+",
        "time.OF", "time.OF+", "time.OR", "time.OR+", "time.OW", "time.OW+", "time.OO", "time.OO+",
    };
    if (id < S_TIME0) return stream_names[id];
    return id < S_COUNT ? tn[id - S_TIME0] : NULL;
}

static const char *req_name(uint8_t q)
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

static void byu_dump(FILE *f, uint64_t recno, const uint8_t *r, int byte_order)
{
    (void)byte_order;
    const char *nm = req_name(r[4]);
    char hex[8];
    if (!nm) { snprintf(hex, sizeof hex, "0x%02x", r[4]); nm = hex; }
    fprintf(f, "%llu: %08x %-12s size %u attr %u proc %u time %u\n", (unsigned long long)recno,
            (unsigned)trz_ld_le32(r), nm, r[5], r[6], r[7], (unsigned)trz_ld_le32(r + 8));
}

static void byu_cpus(const uint8_t *buf, size_t len, int byte_order, uint64_t cpus[16])
{
    (void)byte_order;
    for (size_t i = 0; i + 12 <= len; i += 12) cpus[buf[i + 7] >> 6] |= 1ull << (buf[i + 7] & 63);
}

/* addr (bytes 0-3) and time (bytes 8-11) are the multi-byte fields. */
static void byu_convert(uint8_t *recs, size_t len, int from, int to)
{
    if (from == to || from == TRZ_BO_NONE || to == TRZ_BO_NONE) return;
    for (size_t off = 0; off + 12 <= len; off += 12) {
        trz_st_le32(recs + off, trz_ld_be32(recs + off));
        trz_st_le32(recs + off + 8, trz_ld_be32(recs + off + 8));
    }
}

const trz_codec trz_codec_byu = {
    .id = TRZ_CODEC_BYU,
    .name = "byu",
    .record_size = 12,
    .description = "BYU address trace (12-byte little-endian bus requests)",
    .probe = byu_probe,
    .variants = byu_variants,
    .nvariants = sizeof byu_variants / sizeof byu_variants[0],
    .variant_of = byu_variant_of,
    .levels = byu_levels,
    .level_size = sizeof(byu_level),
    .model_create = byu_model_create,
    .model_reset = byu_model_reset,
    .model_free = byu_model_free,
    .stream_name = byu_stream_name,
    .dump_record = byu_dump,
    .cpus_seen = byu_cpus,
    .convert = byu_convert,
};
