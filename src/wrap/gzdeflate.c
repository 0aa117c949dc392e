/* gzdeflate.c - a deflate encoder that reproduces GNU gzip's and Info-ZIP
 * zip's output bit for bit (gzdeflate.h; drfile.md, "GNU gzip's and
 * Info-ZIP's deflate").  Their encoder works on a 64 KiB window read in
 * whole pieces, so what it emits depends on exactly when the window slides,
 * which lookahead it has, and even on window bytes past the end of the
 * input that a match comparison reads: all of that is kept here as it is
 * there, with the input pushed in pieces instead of pulled by reads.
 * Block ends: 32,767 symbols, or an estimate every 4,096 symbols that the
 * block already compresses better than 2:1; block types chosen on exact
 * bit counts of Huffman trees built with depth as the tie-break. */
#include <stdlib.h>
#include <string.h>

#include "gzdeflate.h"

#define WS 32768u               /* half the window; matches reach back less */
#define WIN (2 * WS)
#define WMASK (WS - 1)
#define HBITS 15
#define HSIZE (1u << HBITS)
#define HMASK (HSIZE - 1)
#define HSHIFT 5                /* (HBITS + 2) / 3: three bytes make a hash */
#define MINM 3
#define MAXM 258
#define LOOK (MAXM + MINM + 1)  /* lookahead kept while not at the end */
#define MAXD (WS - LOOK)        /* farthest match distance */
#define TOO_FAR 4096            /* a 3-byte match farther than this is dropped (lazy levels) */
#define SYMS 0x8000u            /* symbol buffer; a block ends at SYMS - 1 */
#define RSYNC_WIN 4096u
#define NO_END 0xFFFFFFFFu

#define LITS 256
#define END_BLOCK 256
#define LCODES (LITS + 1 + 29)
#define DCODES 30
#define BLCODES 19
#define HEAPN (2 * LCODES + 1)
#define MAXBITS 15
#define MAXBLBITS 7

/* good (shorter search past this length), lazy (no lazy search past it; the
 * longest match whose strings are all hashed at levels 1..3), nice (stop
 * the search at it), chain (candidates searched) */
static const uint16_t config[10][4] = {
    { 0, 0, 0, 0 },       { 4, 4, 8, 4 },      { 4, 5, 16, 8 },      { 4, 6, 32, 32 },     { 4, 4, 16, 16 },
    { 8, 16, 32, 32 },    { 8, 16, 128, 128 }, { 8, 32, 128, 256 },  { 32, 128, 258, 1024 }, { 32, 258, 258, 4096 },
};

static const uint8_t xlbits[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint8_t xdbits[DCODES] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                        7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };
static const uint8_t xblbits[BLCODES] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7 };
static const uint8_t bl_order[BLCODES] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };

/* A tree node: its frequency until its code is known, its parent until its
 * length is (the length of a parent is set before its children's). */
typedef struct { uint16_t fc, dl; } node;

typedef struct tdesc {
    node *t;
    const node *st;       /* the static tree, or NULL */
    const uint8_t *xb;    /* extra bits per code from xbase on */
    int xbase, elems, maxlen, maxcode;
} tdesc;

struct gzd {
    int level, flavour, rsync, iz; /* iz: Info-ZIP's variant */
    unsigned good, lazy, nice, chain;
    gzd_sink sink;
    void *sctx;
    int stop;
    /* the matcher, as the original keeps it */
    uint8_t win[WIN + 512];    /* past WIN: room for reads at the very end */
    uint16_t prev[WS], head[HSIZE];
    unsigned ins_h, strstart, match_start, lookahead, prev_length;
    int64_t block_start;
    int eofile;
    unsigned match_length, prev_match, hash_head;
    int match_available;
    uint64_t rsum, rend;
    /* input: a read of rd_want more bytes at rd_at is under way */
    int phase;                 /* 0 the first read, 1 running, 2 done */
    int reading;
    unsigned rd_at, rd_want, rd_got;
    const uint8_t *in;
    size_t in_n;
    /* the block's symbols */
    uint8_t lbuf[SYMS];
    uint16_t dbuf[SYMS];
    uint8_t fbuf[SYMS / 8];
    unsigned last_lit, last_dist, last_flags;
    uint8_t flags, flag_bit;
    /* trees */
    node lt[HEAPN], dt[2 * DCODES + 1], blt[2 * BLCODES + 1];
    node slt[LCODES + 2], sdt[DCODES];
    tdesc ld, dd, bld;
    uint16_t bl_count[MAXBITS + 1];
    int heap[2 * LCODES + 1], heap_len, heap_max;
    uint8_t depth[2 * LCODES + 1];
    uint64_t opt_len, static_len;
    uint8_t length_code[256], dist_code[512];
    int base_length[29], base_dist[DCODES];
    /* output */
    uint64_t bb;
    unsigned bn;
    uint8_t *out;
    size_t on, ocap;
};

/* ---- bits out ---- */
static void emit(gzd *z)
{
    if (z->on && !z->stop && z->sink(z->sctx, z->out, z->on)) z->stop = 1;
    z->on = 0;
}

static inline void put_bits(gzd *z, unsigned v, unsigned n)
{
    z->bb |= (uint64_t)v << z->bn;
    z->bn += n;
    if (z->bn >= 32) {
        uint8_t *o = z->out + z->on;
        o[0] = (uint8_t)z->bb, o[1] = (uint8_t)(z->bb >> 8), o[2] = (uint8_t)(z->bb >> 16), o[3] = (uint8_t)(z->bb >> 24);
        z->on += 4;
        z->bb >>= 32;
        z->bn -= 32;
    }
}

/* To a byte boundary. */
static void windup(gzd *z)
{
    while (z->bn > 0) {
        z->out[z->on++] = (uint8_t)z->bb;
        z->bb >>= 8;
        z->bn = z->bn > 8 ? z->bn - 8 : 0;
    }
    z->bb = 0;
}

static void put_stored(gzd *z, const uint8_t *p, unsigned len, int header)
{
    windup(z);
    if (header) {
        uint8_t h[4] = { (uint8_t)len, (uint8_t)(len >> 8), (uint8_t)~len, (uint8_t)(~len >> 8) };
        memcpy(z->out + z->on, h, 4);
        z->on += 4;
    }
    if (len) memcpy(z->out + z->on, p, len);
    z->on += len;
}

static unsigned reverse(unsigned code, int len)
{
    unsigned r = 0;
    do {
        r |= code & 1;
        code >>= 1, r <<= 1;
    } while (--len > 0);
    return r >> 1;
}

/* ---- Huffman trees ---- */
#define SMALLEST 1
static inline int smaller(const gzd *z, const node *t, int n, int m)
{
    return t[n].fc < t[m].fc || (t[n].fc == t[m].fc && z->depth[n] <= z->depth[m]);
}

static void downheap(gzd *z, const node *t, int k)
{
    int v = z->heap[k], j = k << 1;
    while (j <= z->heap_len) {
        if (j < z->heap_len && smaller(z, t, z->heap[j + 1], z->heap[j])) j++;
        if (smaller(z, t, v, z->heap[j])) break;
        z->heap[k] = z->heap[j];
        k = j;
        j <<= 1;
    }
    z->heap[k] = v;
}

/* Lengths from the parents, capped at maxlen: the overflow moved down the
 * tree as the original does, so the same codes come out. */
static void gen_bitlen(gzd *z, tdesc *d)
{
    node *t = d->t;
    int h, overflow = 0;
    memset(z->bl_count, 0, sizeof z->bl_count);
    t[z->heap[z->heap_max]].dl = 0;
    for (h = z->heap_max + 1; h < HEAPN; h++) {
        int n = z->heap[h];
        int bits = t[t[n].dl].dl + 1;
        if (bits > d->maxlen) bits = d->maxlen, overflow++;
        t[n].dl = (uint16_t)bits;
        if (n > d->maxcode) continue;
        z->bl_count[bits]++;
        int xb = n >= d->xbase ? d->xb[n - d->xbase] : 0;
        uint16_t f = t[n].fc;
        z->opt_len += (uint64_t)f * (uint64_t)(bits + xb);
        if (d->st) z->static_len += (uint64_t)f * (uint64_t)(d->st[n].dl + xb);
    }
    if (!overflow) return;
    do {
        int bits = d->maxlen - 1;
        while (z->bl_count[bits] == 0) bits--;
        z->bl_count[bits]--;
        z->bl_count[bits + 1] += 2;
        z->bl_count[d->maxlen]--;
        overflow -= 2;
    } while (overflow > 0);
    for (int bits = d->maxlen; bits != 0; bits--) {
        int n = z->bl_count[bits];
        while (n != 0) {
            int m = z->heap[--h];
            if (m > d->maxcode) continue;
            if (t[m].dl != (unsigned)bits) {
                z->opt_len += (uint64_t)(((int64_t)bits - (int64_t)t[m].dl) * (int64_t)t[m].fc);
                t[m].dl = (uint16_t)bits;
            }
            n--;
        }
    }
}

static void gen_codes(const uint16_t *bl_count, node *t, int maxcode)
{
    uint16_t next[MAXBITS + 1];
    unsigned code = 0;
    for (int bits = 1; bits <= MAXBITS; bits++) next[bits] = (uint16_t)(code = (code + bl_count[bits - 1]) << 1);
    for (int n = 0; n <= maxcode; n++) {
        int len = t[n].dl;
        if (len) t[n].fc = (uint16_t)reverse(next[len]++, len);
    }
}

static void build_tree(gzd *z, tdesc *d)
{
    node *t = d->t;
    int maxcode = -1, node_ = d->elems;
    z->heap_len = 0, z->heap_max = HEAPN;
    for (int n = 0; n < d->elems; n++) {
        if (t[n].fc) {
            z->heap[++z->heap_len] = maxcode = n;
            z->depth[n] = 0;
        } else {
            t[n].dl = 0;
        }
    }
    /* at least two codes, so that every code has a bit */
    while (z->heap_len < 2) {
        int nw = z->heap[++z->heap_len] = maxcode < 2 ? ++maxcode : 0;
        t[nw].fc = 1;
        z->depth[nw] = 0;
        z->opt_len--;
        if (d->st) z->static_len -= d->st[nw].dl;
    }
    d->maxcode = maxcode;
    for (int n = z->heap_len / 2; n >= 1; n--) downheap(z, t, n);
    do {
        int n = z->heap[SMALLEST];
        z->heap[SMALLEST] = z->heap[z->heap_len--];
        downheap(z, t, SMALLEST);
        int m = z->heap[SMALLEST];
        z->heap[--z->heap_max] = n;
        z->heap[--z->heap_max] = m;
        t[node_].fc = (uint16_t)(t[n].fc + t[m].fc);
        z->depth[node_] = (uint8_t)((z->depth[n] >= z->depth[m] ? z->depth[n] : z->depth[m]) + 1);
        t[n].dl = t[m].dl = (uint16_t)node_;
        z->heap[SMALLEST] = node_++;
        downheap(z, t, SMALLEST);
    } while (z->heap_len >= 2);
    z->heap[--z->heap_max] = z->heap[SMALLEST];
    gen_bitlen(z, d);
    gen_codes(z->bl_count, t, maxcode);
}

/* The run-length coding of a tree's lengths: counted (send 0) or sent. */
static void scan_send_tree(gzd *z, node *t, int maxcode, int send)
{
    int prevlen = -1, nextlen = t[0].dl, count = 0, max_count = 7, min_count = 4;
    if (nextlen == 0) max_count = 138, min_count = 3;
    if (!send) t[maxcode + 1].dl = 0xffff; /* guard */
    node *bl = z->blt;
    for (int n = 0; n <= maxcode; n++) {
        int curlen = nextlen;
        nextlen = t[n + 1].dl;
        if (++count < max_count && curlen == nextlen) continue;
        if (count < min_count) {
            if (!send) bl[curlen].fc = (uint16_t)(bl[curlen].fc + count);
            else do put_bits(z, bl[curlen].fc, bl[curlen].dl); while (--count != 0);
        } else if (curlen != 0) {
            if (!send) {
                if (curlen != prevlen) bl[curlen].fc++;
                bl[16].fc++;
            } else {
                if (curlen != prevlen) put_bits(z, bl[curlen].fc, bl[curlen].dl), count--;
                put_bits(z, bl[16].fc, bl[16].dl);
                put_bits(z, (unsigned)(count - 3), 2);
            }
        } else if (count <= 10) {
            if (!send) bl[17].fc++;
            else put_bits(z, bl[17].fc, bl[17].dl), put_bits(z, (unsigned)(count - 3), 3);
        } else {
            if (!send) bl[18].fc++;
            else put_bits(z, bl[18].fc, bl[18].dl), put_bits(z, (unsigned)(count - 11), 7);
        }
        count = 0;
        prevlen = curlen;
        if (nextlen == 0) max_count = 138, min_count = 3;
        else if (curlen == nextlen) max_count = 6, min_count = 3;
        else max_count = 7, min_count = 4;
    }
}

static int build_bl_tree(gzd *z)
{
    scan_send_tree(z, z->lt, z->ld.maxcode, 0);
    scan_send_tree(z, z->dt, z->dd.maxcode, 0);
    build_tree(z, &z->bld);
    int mx;
    for (mx = BLCODES - 1; mx >= 3; mx--)
        if (z->blt[bl_order[mx]].dl != 0) break;
    z->opt_len += 3 * ((uint64_t)mx + 1) + 5 + 5 + 4;
    return mx;
}

static void init_block(gzd *z)
{
    for (int n = 0; n < LCODES; n++) z->lt[n].fc = 0;
    for (int n = 0; n < DCODES; n++) z->dt[n].fc = 0;
    for (int n = 0; n < BLCODES; n++) z->blt[n].fc = 0;
    z->lt[END_BLOCK].fc = 1;
    z->opt_len = z->static_len = 0;
    z->last_lit = z->last_dist = z->last_flags = 0;
    z->flags = 0;
    z->flag_bit = 1;
}

static inline unsigned d_code(const gzd *z, unsigned dist)
{
    return dist < 256 ? z->dist_code[dist] : z->dist_code[256 + (dist >> 7)];
}

static void compress_block(gzd *z, const node *lt, const node *dt)
{
    unsigned lx = 0, dx = 0, fx = 0;
    uint8_t flag = 0;
    if (z->last_lit) do {
        if ((lx & 7) == 0) flag = z->fbuf[fx++];
        unsigned lc = z->lbuf[lx++];
        if ((flag & 1) == 0) {
            put_bits(z, lt[lc].fc, lt[lc].dl);
        } else {
            unsigned code = z->length_code[lc];
            put_bits(z, lt[code + LITS + 1].fc, lt[code + LITS + 1].dl);
            if (xlbits[code]) put_bits(z, lc - (unsigned)z->base_length[code], xlbits[code]);
            unsigned dist = z->dbuf[dx++];
            code = d_code(z, dist);
            put_bits(z, dt[code].fc, dt[code].dl);
            if (xdbits[code]) put_bits(z, dist - (unsigned)z->base_dist[code], xdbits[code]);
        }
        flag >>= 1;
    } while (lx < z->last_lit);
    put_bits(z, lt[END_BLOCK].fc, lt[END_BLOCK].dl);
}

/* The block [block_start, strstart): stored, static or dynamic, whichever
 * the exact bit counts say (static on a tie); pad: end on a byte boundary
 * (--rsyncable). */
static void flush_block(gzd *z, int pad, int eof)
{
    const uint8_t *buf = z->block_start >= 0 ? z->win + z->block_start : NULL;
    uint64_t stored_len = (uint64_t)((int64_t)z->strstart - z->block_start);
    z->fbuf[z->last_flags] = z->flags;
    build_tree(z, &z->ld);
    build_tree(z, &z->dd);
    int mx = build_bl_tree(z);
    uint64_t opt_lenb = (z->opt_len + 3 + 7) >> 3, static_lenb = (z->static_len + 3 + 7) >> 3;
    if (static_lenb <= opt_lenb) opt_lenb = static_lenb;
    if (stored_len + 4 <= opt_lenb && buf) {
        put_bits(z, (unsigned)eof, 3);
        put_stored(z, buf, (unsigned)stored_len, 1);
    } else if (static_lenb == opt_lenb) {
        put_bits(z, 2 + (unsigned)eof, 3);
        compress_block(z, z->slt, z->sdt);
    } else {
        put_bits(z, 4 + (unsigned)eof, 3);
        int lcodes = z->ld.maxcode + 1, dcodes = z->dd.maxcode + 1, blcodes = mx + 1;
        put_bits(z, (unsigned)(lcodes - 257), 5);
        put_bits(z, (unsigned)(dcodes - 1), 5);
        put_bits(z, (unsigned)(blcodes - 4), 4);
        for (int r = 0; r < blcodes; r++) put_bits(z, z->blt[bl_order[r]].dl, 3);
        scan_send_tree(z, z->lt, lcodes - 1, 1);
        scan_send_tree(z, z->dt, dcodes - 1, 1);
        compress_block(z, z->lt, z->dt);
    }
    init_block(z);
    if (eof) {
        windup(z);
    } else if (pad && (z->bn & 7) != 0) {
        put_bits(z, 0, 3);
        put_stored(z, NULL, 0, 1);
    }
    emit(z);
}

/* A symbol into the block; 1 when the block should end here. */
static int tally_symbol(gzd *z, unsigned dist, unsigned lc)
{
    z->lbuf[z->last_lit++] = (uint8_t)lc;
    if (dist == 0) {
        z->lt[lc].fc++;
    } else {
        dist--;
        z->lt[z->length_code[lc] + LITS + 1].fc++;
        z->dt[d_code(z, dist)].fc++;
        z->dbuf[z->last_dist++] = (uint16_t)dist;
        z->flags |= z->flag_bit;
    }
    z->flag_bit = (uint8_t)(z->flag_bit << 1);
    if ((z->last_lit & 7) == 0) {
        z->fbuf[z->last_flags++] = z->flags;
        z->flags = 0, z->flag_bit = 1;
    }
    /* every 4,096 symbols: end the block when it already halves its input */
    if (z->level > 2 && (z->last_lit & 0xfff) == 0) {
        uint64_t out_length = (uint64_t)z->last_lit * 8;
        uint64_t in_length = (uint64_t)((int64_t)z->strstart - z->block_start);
        for (int c = 0; c < DCODES; c++) out_length += (uint64_t)z->dt[c].fc * (5u + xdbits[c]);
        out_length >>= 3;
        if (z->last_dist < z->last_lit / 2 && out_length < in_length / 2) return 1;
    }
    return z->last_lit == SYMS - 1 || z->last_dist == SYMS;
}

/* ---- the matcher ---- */
#define UPDATE_HASH(h, c) ((h) = (((h) << HSHIFT) ^ (c)) & HMASK)

static inline unsigned insert(gzd *z, unsigned s)
{
    UPDATE_HASH(z->ins_h, z->win[s + MINM - 1]);
    unsigned m = z->head[z->ins_h];
    z->prev[s & WMASK] = (uint16_t)m;
    z->head[z->ins_h] = (uint16_t)s;
    return m;
}

/* The longest match at strstart longer than prev_length, along the hash
 * chain from cur; as the original, the third byte is taken as equal (the
 * hash says so) and bytes past the input's end are compared as they lie
 * in the window. */
static unsigned longest_match(gzd *z, unsigned cur)
{
    unsigned chain = z->chain;
    const uint8_t *w = z->win, *scan = w + z->strstart;
    unsigned best = z->prev_length;
    unsigned limit = z->strstart > MAXD ? z->strstart - MAXD : 0;
    uint8_t end1 = scan[best - 1], end = scan[best];
    if (z->prev_length >= z->good) chain >>= 2;
    do {
        const uint8_t *m = w + cur;
        if (m[best] != end || m[best - 1] != end1 || m[0] != scan[0] || m[1] != scan[1]) continue;
        unsigned len = 3;
        while (len < MAXM && scan[len] == m[len]) len++;
        if (len > best) {
            z->match_start = cur;
            best = len;
            if (len >= z->nice) break;
            end1 = scan[best - 1];
            end = scan[best];
        }
    } while ((cur = z->prev[cur & WMASK]) > limit && --chain != 0);
    return best;
}

static void rsync_roll(gzd *z, unsigned start, unsigned num)
{
    unsigned i;
    if (start < RSYNC_WIN) {
        for (i = start; i < RSYNC_WIN; i++) {
            if (i == start + num) return;
            z->rsum += z->win[i];
        }
        num -= RSYNC_WIN - start;
        start = RSYNC_WIN;
    }
    for (i = start; i < start + num; i++) {
        z->rsum += z->win[i];
        z->rsum -= z->win[i - RSYNC_WIN];
        if (z->rend == NO_END && z->rsum % RSYNC_WIN == 0) z->rend = i;
    }
}

#define ROLL(z, s, n) do { if ((z)->rsync) rsync_roll((z), (s), (n)); } while (0)

static inline int rsync_due(gzd *z)
{
    if (z->rsync && z->strstart > z->rend) {
        z->rend = NO_END;
        return 1;
    }
    return 0;
}

static void end_block(gzd *z, int flush)
{
    flush_block(z, flush - 1, 0);
    z->block_start = z->strstart;
}

/* One step of levels 1..3: no lazy matching, a match's strings hashed only
 * when it is at most `lazy` long. */
static void step_fast(gzd *z)
{
    unsigned hh = insert(z, z->strstart);
    int flush;
    if (hh != 0 && z->strstart - hh <= MAXD && z->strstart <= WIN - LOOK) {
        z->match_length = longest_match(z, hh);
        if (z->match_length > z->lookahead) z->match_length = z->lookahead;
    }
    if (z->match_length >= MINM) {
        flush = tally_symbol(z, z->strstart - z->match_start, z->match_length - MINM);
        z->lookahead -= z->match_length;
        ROLL(z, z->strstart, z->match_length);
        if (z->match_length <= z->lazy) {
            z->match_length--;
            do {
                z->strstart++;
                insert(z, z->strstart);
            } while (--z->match_length != 0);
            z->strstart++;
        } else {
            z->strstart += z->match_length;
            z->match_length = 0;
            z->ins_h = z->win[z->strstart];
            UPDATE_HASH(z->ins_h, z->win[z->strstart + 1]);
        }
    } else {
        flush = tally_symbol(z, 0, z->win[z->strstart]);
        ROLL(z, z->strstart, 1);
        z->lookahead--;
        z->strstart++;
    }
    if (rsync_due(z)) flush = 2;
    if (flush) end_block(z, flush);
}

/* One step of levels 4..9: a match is taken only when the next position
 * has none longer. */
static void step_lazy(gzd *z)
{
    unsigned hh = insert(z, z->strstart);
    int flush;
    z->prev_length = z->match_length, z->prev_match = z->match_start;
    z->match_length = MINM - 1;
    if (hh != 0 && z->prev_length < z->lazy && z->strstart - hh <= MAXD && z->strstart <= WIN - LOOK) {
        z->match_length = longest_match(z, hh);
        if (z->match_length > z->lookahead) z->match_length = z->lookahead;
        if (z->match_length == MINM && z->strstart - z->match_start > TOO_FAR) z->match_length--;
    }
    if (z->prev_length >= MINM && z->match_length <= z->prev_length) {
        flush = tally_symbol(z, z->strstart - 1 - z->prev_match, z->prev_length - MINM);
        z->lookahead -= z->prev_length - 1;
        z->prev_length -= 2;
        ROLL(z, z->strstart, z->prev_length + 1);
        do {
            z->strstart++;
            insert(z, z->strstart);
        } while (--z->prev_length != 0);
        z->match_available = 0;
        z->match_length = MINM - 1;
        z->strstart++;
        if (rsync_due(z)) flush = 2;
        if (flush) end_block(z, flush);
    } else if (z->match_available) {
        flush = tally_symbol(z, 0, z->win[z->strstart - 1]);
        if (rsync_due(z)) flush = 2;
        if (flush) end_block(z, flush);
        ROLL(z, z->strstart, 1);
        z->strstart++;
        z->lookahead--;
    } else {
        if (rsync_due(z)) end_block(z, 2);
        z->match_available = 1;
        ROLL(z, z->strstart, 1);
        z->strstart++;
        z->lookahead--;
    }
}

/* Info-ZIP's steps differ in that they never look past the input's end:
 * no string is hashed without three bytes ahead (the last hash head found
 * stands), the search stops at the bytes left, and a window that slides
 * at the very end still slides. */
static void step_fast_iz(gzd *z)
{
    int flush;
    if (z->lookahead >= MINM) z->hash_head = insert(z, z->strstart);
    if (z->hash_head != 0 && z->strstart - z->hash_head <= MAXD) {
        if (z->nice > z->lookahead) z->nice = z->lookahead;
        z->match_length = longest_match(z, z->hash_head);
        if (z->match_length > z->lookahead) z->match_length = z->lookahead;
    }
    if (z->match_length >= MINM) {
        flush = tally_symbol(z, z->strstart - z->match_start, z->match_length - MINM);
        z->lookahead -= z->match_length;
        if (z->match_length <= z->lazy && z->lookahead >= MINM) {
            z->match_length--;
            do {
                z->strstart++;
                z->hash_head = insert(z, z->strstart);
            } while (--z->match_length != 0);
            z->strstart++;
        } else {
            z->strstart += z->match_length;
            z->match_length = 0;
            z->ins_h = z->win[z->strstart];
            UPDATE_HASH(z->ins_h, z->win[z->strstart + 1]);
        }
    } else {
        flush = tally_symbol(z, 0, z->win[z->strstart]);
        z->lookahead--;
        z->strstart++;
    }
    if (flush) end_block(z, 1);
}

static void step_lazy_iz(gzd *z)
{
    if (z->lookahead >= MINM) z->hash_head = insert(z, z->strstart);
    z->prev_length = z->match_length, z->prev_match = z->match_start;
    z->match_length = MINM - 1;
    if (z->hash_head != 0 && z->prev_length < z->lazy && z->strstart - z->hash_head <= MAXD) {
        if (z->nice > z->lookahead) z->nice = z->lookahead;
        z->match_length = longest_match(z, z->hash_head);
        if (z->match_length > z->lookahead) z->match_length = z->lookahead;
        if (z->match_length == MINM && z->strstart - z->match_start > TOO_FAR) z->match_length = MINM - 1;
    }
    if (z->prev_length >= MINM && z->match_length <= z->prev_length) {
        unsigned max_insert = z->strstart + z->lookahead - MINM;
        int flush = tally_symbol(z, z->strstart - 1 - z->prev_match, z->prev_length - MINM);
        z->lookahead -= z->prev_length - 1;
        z->prev_length -= 2;
        do {
            if (++z->strstart <= max_insert) z->hash_head = insert(z, z->strstart);
        } while (--z->prev_length != 0);
        z->strstart++;
        z->match_available = 0;
        z->match_length = MINM - 1;
        if (flush) end_block(z, 1);
    } else if (z->match_available) {
        if (tally_symbol(z, 0, z->win[z->strstart - 1])) end_block(z, 1);
        z->strstart++;
        z->lookahead--;
    } else {
        z->match_available = 1;
        z->strstart++;
        z->lookahead--;
    }
}

/* ---- input ---- */
/* A read into the window: after a slide when the window's upper half is
 * nearly used, as many bytes as fit (a regular file gives them all). */
static void start_fill(gzd *z)
{
    unsigned more = WIN - z->lookahead - z->strstart;
    if (z->strstart >= WS + MAXD) {
        /* block_start may go below 0: the block can no longer be stored */
        memcpy(z->win, z->win + WS, WS);
        z->match_start -= WS;
        z->strstart -= WS;
        if (z->rend != NO_END) z->rend -= WS;
        z->block_start -= WS;
        for (unsigned n = 0; n < HSIZE; n++) z->head[n] = (uint16_t)(z->head[n] >= WS ? z->head[n] - WS : 0);
        for (unsigned n = 0; n < WS; n++) z->prev[n] = (uint16_t)(z->prev[n] >= WS ? z->prev[n] - WS : 0);
        more += WS;
    }
    if (z->eofile) return; /* Info-ZIP: a slide at the end, no read */
    z->reading = 1;
    z->rd_at = z->strstart + z->lookahead;
    z->rd_want = more;
    z->rd_got = 0;
}

/* The read under way ended with rd_got bytes. */
static void end_fill(gzd *z)
{
    z->reading = 0;
    if (z->rd_got == 0) {
        z->eofile = 1;
        if (!z->iz) memset(z->win + z->strstart + z->lookahead, 0, MINM - 1); /* no stale bytes in the last hashes */
    } else {
        z->lookahead += z->rd_got;
    }
}

static int run(gzd *z, int fin)
{
    while (!z->stop && z->phase != 2) {
        if (z->reading) {
            size_t k = z->in_n < z->rd_want ? z->in_n : z->rd_want;
            if (k) {
                memcpy(z->win + z->rd_at + z->rd_got, z->in, k);
                z->in += k, z->in_n -= k;
                z->rd_got += (unsigned)k;
                z->rd_want -= (unsigned)k;
            }
            if (z->rd_want && !fin) return 0;
            if (z->phase == 0 && z->lookahead == 0 && z->strstart == 0 && z->rd_at == 0) {
                /* the first read: the whole window */
                z->reading = 0;
                if (z->rd_got == 0) { z->eofile = 1; z->phase = 1; continue; }
                z->lookahead = z->rd_got;
            } else {
                end_fill(z);
            }
            if (z->lookahead < LOOK && !z->eofile) { start_fill(z); continue; }
            if (z->phase == 0) {
                z->ins_h = 0;
                UPDATE_HASH(z->ins_h, z->win[0]);
                UPDATE_HASH(z->ins_h, z->win[1]);
                z->phase = 1;
            }
        }
        if (z->lookahead == 0) {
            if (z->level > 3 && z->match_available) tally_symbol(z, 0, z->win[z->strstart - 1]);
            flush_block(z, 0, 1);
            z->phase = 2;
            break;
        }
        void (*step)(gzd *) = z->iz ? (z->level <= 3 ? step_fast_iz : step_lazy_iz)
                                    : (z->level <= 3 ? step_fast : step_lazy);
        while (z->lookahead >= LOOK && !z->stop) step(z);
        if (z->lookahead && z->eofile) step(z);
        /* GNU gzip reads no more once a read gave nothing; Info-ZIP still
         * slides the window then */
        if (z->lookahead < LOOK && (!z->eofile || z->iz)) start_fill(z);
    }
    return z->stop ? -1 : 0;
}

/* ---- the encoder ---- */
static void init_tables(gzd *z)
{
    int n, code, length = 0, dist = 0;
    for (code = 0; code < 28; code++) {
        z->base_length[code] = length;
        for (n = 0; n < (1 << xlbits[code]); n++) z->length_code[length++] = (uint8_t)code;
    }
    z->length_code[length - 1] = (uint8_t)code; /* 258 as code 285, not 284 plus 31 */
    for (code = 0; code < 16; code++) {
        z->base_dist[code] = dist;
        for (n = 0; n < (1 << xdbits[code]); n++) z->dist_code[dist++] = (uint8_t)code;
    }
    dist >>= 7;
    for (; code < DCODES; code++) {
        z->base_dist[code] = dist << 7;
        for (n = 0; n < (1 << (xdbits[code] - 7)); n++) z->dist_code[256 + dist++] = (uint8_t)code;
    }
    for (n = 0; n <= MAXBITS; n++) z->bl_count[n] = 0;
    for (n = 0; n <= 287; n++) {
        z->slt[n].dl = n <= 143 ? 8 : n <= 255 ? 9 : n <= 279 ? 7 : 8;
        z->bl_count[z->slt[n].dl]++;
    }
    gen_codes(z->bl_count, z->slt, LCODES + 1);
    for (n = 0; n < DCODES; n++) {
        z->sdt[n].dl = 5;
        z->sdt[n].fc = (uint16_t)reverse((unsigned)n, 5);
    }
    z->ld = (tdesc){ z->lt, z->slt, xlbits, LITS + 1, LCODES, MAXBITS, 0 };
    z->dd = (tdesc){ z->dt, z->sdt, xdbits, 0, DCODES, MAXBITS, 0 };
    z->bld = (tdesc){ z->blt, NULL, xblbits, 0, BLCODES, MAXBLBITS, 0 };
}

gzd *drf_gzd_new(int level, int flavour, gzd_sink sink, void *ctx)
{
    if (level < 1 || level > 9 || flavour < 0 || flavour >= GZD_FLAVOURS) return NULL;
    gzd *z = calloc(1, sizeof *z);
    if (!z) return NULL;
    z->ocap = 256u << 10; /* a block: at most 32,767 symbols of 48 bits, or 64 KiB stored */
    if (!(z->out = malloc(z->ocap))) { free(z); return NULL; }
    z->level = level;
    z->flavour = flavour;
    z->rsync = flavour == GZD_GNU_RSYNC;
    z->iz = flavour == GZD_INFOZIP;
    z->good = config[level][0], z->lazy = config[level][1], z->nice = config[level][2], z->chain = config[level][3];
    z->sink = sink;
    z->sctx = ctx;
    z->rend = NO_END;
    init_tables(z);
    init_block(z);
    z->prev_length = MINM - 1;
    z->match_length = level <= 3 ? 0 : MINM - 1;
    /* the first read: the whole window */
    z->reading = 1;
    z->rd_at = 0;
    z->rd_want = WIN;
    return z;
}

int drf_gzd_feed(gzd *z, const uint8_t *p, size_t n)
{
    z->in = p;
    z->in_n = n;
    return run(z, 0);
}

int drf_gzd_finish(gzd *z)
{
    z->in = NULL;
    z->in_n = 0;
    return run(z, 1);
}

void drf_gzd_free(gzd *z)
{
    if (!z) return;
    free(z->out);
    free(z);
}
