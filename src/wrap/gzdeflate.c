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

#include "gzdeflate_int.h"

/* good (shorter search past this length), lazy (no lazy search past it; the
 * longest match whose strings are all hashed at levels 1..3), nice (stop
 * the search at it), chain (candidates searched) */
static const uint16_t config[10][4] = {
    { 0, 0, 0, 0 },       { 4, 4, 8, 4 },      { 4, 5, 16, 8 },      { 4, 6, 32, 32 },     { 4, 4, 16, 16 },
    { 8, 16, 32, 32 },    { 8, 16, 128, 128 }, { 8, 32, 128, 256 },  { 32, 128, 258, 1024 }, { 32, 258, 258, 4096 },
};

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
    gzt_flush_block(z, flush - 1, 0);
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
            gzt_flush_block(z, 0, 1);
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
    gzt_init_tables(z);
    gzt_init_block(z);
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
