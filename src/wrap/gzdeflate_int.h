/* gzdeflate_int.h - what the deflate encoder's two files share
 * (gzdeflate.c: the matcher, the input and the calls; gzdeflate_tree.c:
 * Huffman trees, blocks and bits out): the encoder's state, and the symbol
 * tally the matcher calls for every literal and match, inline. */
#ifndef TRZ_GZDEFLATE_INT_H
#define TRZ_GZDEFLATE_INT_H

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

/* gzdeflate_tree.c */
void gzt_init_tables(gzd *z); /* the length and distance codes, the static trees */
void gzt_init_block(gzd *z);  /* a new block's counts */
/* End the block: its trees, the cheapest of stored, static and dynamic
 * coding, and its bits out (pad: an empty stored block after it; eof: the
 * last block). */
void gzt_flush_block(gzd *z, int pad, int eof);

static inline unsigned d_code(const gzd *z, unsigned dist)
{
    return dist < 256 ? z->dist_code[dist] : z->dist_code[256 + (dist >> 7)];
}

/* A symbol into the block; 1 when the block should end here. */
static inline int tally_symbol(gzd *z, unsigned dist, unsigned lc)
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

#endif
