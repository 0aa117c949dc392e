/* gzdeflate_tree.c - the deflate encoder's blocks (gzdeflate.c has the
 * matcher): Huffman trees built as GNU gzip builds them (depth as the
 * tie-break), the block type chosen on exact bit counts, and the bits out. */
#include <stdlib.h>
#include <string.h>

#include "gzdeflate_int.h"

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

void gzt_init_block(gzd *z)
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
void gzt_flush_block(gzd *z, int pad, int eof)
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
    gzt_init_block(z);
    if (eof) {
        windup(z);
    } else if (pad && (z->bn & 7) != 0) {
        put_bits(z, 0, 3);
        put_stored(z, NULL, 0, 1);
    }
    emit(z);
}

/* ---- the tables ---- */
void gzt_init_tables(gzd *z)
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
