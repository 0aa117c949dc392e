/* byu.c - codec for BYU address traces (12-byte LE records: addr, reqtype,
 * size, attr, proc, time delta): the stream paths.  Addresses are predicted
 * per processor and request class (addrmodel.h, or the lean model), kinds
 * get stable dictionary ids, time deltas go as bytes into one stream per
 * context.  At levels >= 6 a chunk may instead be arithmetic-coded
 * (byu_cm.c); the variants and the level table are in byu_codec.c.  Format:
 * codecs/bus/byu.md. */
#include "byu_int.h"

/* What one chunk made in s: the groups, and unless keep (a chain's state
 * for its next chunk) the cache and the processors.  A chunk that fails
 * ends its chain's state: the container drops the chain then. */
void st_close(byu_state *s, int keep)
{
    free(s->grp);
    s->grp = NULL;
    if (keep) return;
    cs_close(&s->cache);
    for (int i = 0; i < 256; i++) {
        free(s->procs[i]);
        free(s->lprocs[i]);
        s->procs[i] = NULL;
        s->lprocs[i] = NULL;
    }
    s->live = 0;
}

/* s ready for a chunk of nrec records, with the lean model's tables or
 * addrmodel.h's, kept in s from the chunk before where they fit.  In a
 * chain (chain = 1) whose state s holds, the chunk starts from that state
 * instead, the tables as the chain's first chunk sized them.  0, or -1 on
 * no memory. */
int st_open(byu_state *s, uint64_t nrec, int lean, int chain)
{
    if (chain && s->live) {
        s->lean = lean;
        s->ilv = 0;
        unsigned need = lean ? ST_LN : ST_AM;
        if (!(s->live & need)) { /* the chain's first chunk with this model */
            if ((lean ? ln_init(&s->ln, nrec) : am_init(&s->am, nrec)) != 0) return -1;
            s->live |= need;
        }
        return 0;
    }
    st_close(s, 0);
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
    s->live = chain ? ST_LIVE | (lean ? ST_LN : ST_AM) : 0;
    return 0;
}

/* The chunk's cache (time_ctx): geometry g when named (named = 1), else
 * none.  In a chain the cache of the chunk before goes on when the chunk
 * names the same geometry.  0, or -1 on no memory. */
int st_cache(byu_state *s, int named, cs_geom g)
{
    if (s->cache.tag && named && !memcmp(&s->cache.g, &g, sizeof g)) return 0;
    cs_close(&s->cache);
    return named && cs_open(&s->cache, g) != 0 ? -1 : 0;
}

/* Gives back all that s holds (with the model). */
void st_free(byu_state *s)
{
    st_close(s, 0);
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
int pick_cache(const trz_enc_args *a, cs_geom *g, unsigned sets)
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

/* Streams grouped by processor (layout flag L_GROUP): each holds one
 * section per processor of the chunk, in ascending proc order, instead of
 * the records' order.  Interleaved processors break the repeats of each
 * one's kinds and codes apart; grouped, the back-end finds them again. */
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

/* Layout flag 8 (byu.md, *Chains*): a stream-path chunk's records r go on
 * into the chain's match model, which starts empty at the chain's first
 * such chunk (or first mixed one), or at the chunk that started the
 * chain's state (fresh).  0, or -1 on no memory. */
static int match_feed(byu_model *m, const uint8_t *r, uint64_t nrec, int fresh)
{
    if (fresh) m->cm_live = m->hx_live = m->fm_live = m->mt_live = 0;
    if (bus_match_alloc(&m->match, 12)) return -1;
    if (!m->mt_live) {
        bus_match_reset(&m->match);
        m->mt_live = 1;
    }
    bus_match_feed(&m->match, r, nrec, 12, byu_mt_hash);
    return 0;
}

/* The stream path with the choices o (a zs_opts).  Static: a function
 * with target clones outside its file gets an exported resolver. */
static TRZ_HOT_CLONES int zs_encode_opt(const trz_enc_args *a, const void *opts)
{
    const zs_opts *o = opts;
    if (a->len != a->nrec * 12) return TRZ_CODEC_UNSUPPORTED;
    byu_state *s = &o->m->st;
    int rc = TRZ_CODEC_OK, fresh = !a->chain || !s->live, feed = o->feed && a->chain;
    if (st_open(s, a->nrec, o->lean, a->chain) != 0) rc = TRZ_CODEC_NOMEM;
    else {
        if (o->cache) {
            trz_put_u8(&a->streams[S_CACHE], o->g.lline);
            trz_put_u8(&a->streams[S_CACHE], o->g.lsets);
            trz_put_u8(&a->streams[S_CACHE], o->g.ways);
            trz_put_u8(&a->streams[S_CACHE], o->g.split);
        }
        if (st_cache(s, o->cache, o->g) != 0) rc = TRZ_CODEC_NOMEM;
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
    if (rc == TRZ_CODEC_OK && o->lean) {
        int grp = a->nrec >= CS_MIN ? pick_group(a, L_LEAN) : 0;
        if (grp < 0) rc = TRZ_CODEC_NOMEM;
        else if (!grp) trz_put_u8(&a->streams[S_LAYOUT], L_LEAN);
    } else if (rc == TRZ_CODEC_OK && pick_layout(a) != 0) rc = TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK && feed) { /* the flag joins the layout byte, or stands alone */
        trz_buf *l = &a->streams[S_LAYOUT];
        if (l->n) l->p[0] |= L_FEED;
        else trz_put_u8(l, L_FEED);
    }
    for (int i = 0; rc == TRZ_CODEC_OK && i < S_COUNT; i++)
        if (a->streams[i].oom) rc = TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK && feed && match_feed(o->m, a->in, a->nrec, fresh) != 0) rc = TRZ_CODEC_NOMEM;
    st_close(s, a->chain && rc == TRZ_CODEC_OK);
    return rc;
}

/* zs_encode_opt for the arithmetic paths' trials (byu_cm.c). */
int byu_zs_encode_opt(const trz_enc_args *a, const void *opts) { return zs_encode_opt(a, opts); }

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
    if (p) { /* the last run's state out, for a chain's next chunk */
        p->pc = pc, p->step = step, p->k = k;
        memcpy(p->last, last, sizeof last);
        memcpy(p->stride, stride, sizeof stride);
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
static int dec_layout(byu_state *s, byu_rds *d, int chain, int *feed)
{
    trz_rd *l = &d->r[S_LAYOUT];
    unsigned f = trz_get_u8(l);
    if (f > (L_FEED | L_LEAN | L_GROUP | L_ILV)) return TRZ_CODEC_UNSUPPORTED; /* a later version's layout */
    if (f & L_FEED) { /* alone: the layout of an empty stream 14 */
        if (!chain) return TRZ_CODEC_CORRUPT;
        *feed = 1;
        f &= ~(unsigned)L_FEED;
        if (f == 0) return trz_rd_left(l) ? TRZ_CODEC_CORRUPT : TRZ_CODEC_OK;
    }
    if (f == 0 || f == (L_LEAN | L_ILV) || f == (L_LEAN | L_GROUP | L_ILV)) return TRZ_CODEC_CORRUPT;
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
    int fresh = !a->chain || !s->live, feed = 0;
    int rc = st_open(s, a->nrec, lean, a->chain) != 0 ? TRZ_CODEC_NOMEM : TRZ_CODEC_OK;
    cs_geom g = { 0, 0, 0, 0 };
    int named = trz_rd_left(&d.r[S_CACHE]) != 0; /* the chunk names a cache */
    if (rc == TRZ_CODEC_OK && named) {
        g.lline = trz_get_u8(&d.r[S_CACHE]);
        g.lsets = trz_get_u8(&d.r[S_CACHE]);
        g.ways = trz_get_u8(&d.r[S_CACHE]);
        g.split = trz_get_u8(&d.r[S_CACHE]);
        if (d.r[S_CACHE].err || !cs_valid(g)) rc = TRZ_CODEC_CORRUPT;
    }
    if (rc == TRZ_CODEC_OK && st_cache(s, named, g) != 0) rc = TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK && trz_rd_left(&d.r[S_LAYOUT])) rc = dec_layout(s, &d, a->chain, &feed);
    if (rc == TRZ_CODEC_OK) rc = s->lean ? ln_dec_all(s, &d, a) : dec_all(s, &d, a);
    if (rc == TRZ_CODEC_OK && feed && match_feed(m, a->out, a->nrec, fresh) != 0) rc = TRZ_CODEC_NOMEM;
    st_close(s, a->chain && rc == TRZ_CODEC_OK);
    return rc;
}

/* ---- the stream paths' variants (the table: byu_codec.c) --------------------- */

/* streams: the stream path with addrmodel.h, the cache chosen on all its
 * sets; written where a variant above finds it smaller. */
int zs_encode(const trz_enc_args *a, trz_model *tm)
{
    if (a->len != a->nrec * 12) return TRZ_CODEC_UNSUPPORTED;
    zs_opts o = { (byu_model *)tm, 0, { 0, 0, 0, 0 }, 0, 0 };
    o.cache = pick_cache(a, &o.g, 0);
    return o.cache < 0 ? TRZ_CODEC_NOMEM : zs_encode_opt(a, &o);
}

/* streams-lean: the stream path with the lean model (lean.h). */
int lean_encode(const trz_enc_args *a, trz_model *tm)
{
    if (a->len != a->nrec * 12) return TRZ_CODEC_UNSUPPORTED;
    byu_model *m = (byu_model *)tm;
    zs_opts o = { m, 0, { 0, 0, 0, 0 }, 1, 0 };
    o.cache = pick_cache(a, &o.g, m->lv->cache_sets);
    return o.cache < 0 ? TRZ_CODEC_NOMEM : zs_encode_opt(a, &o);
}

/* The stream paths' decoder (dec_layout tells which address model) checks
 * the chunk's size first, as the arithmetic ones do in their loops. */
int zs_decode_chunk(const trz_dec_args *a, trz_model *tm)
{
    if (a->nrec > a->len / 12 || a->len != a->nrec * 12) return TRZ_CODEC_CORRUPT;
    return zs_decode(a, tm);
}

