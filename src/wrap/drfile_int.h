/* drfile_int.h - what the drmemtrace file layer's files share (drfile.md):
 * buffered input and output gathering (drfile_io.c), the walker that reads
 * a container's records (drfile_walk.c), the recipe's operations and the
 * rebuilder (drfile_rebuild.c), used by the plan (drfile_plan.c) and by
 * reading and restoring (drfile.c). */
#ifndef TRZ_DRFILE_INT_H
#define TRZ_DRFILE_INT_H

#include <lz4frame.h>
#include <zlib.h>

#include "../common/common.h"
#include "drfile.h"
#include "gzdeflate.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

/* ---- buffered input with an absolute position ----
 * Several of these may read one seekable io (the walker, the comparison,
 * the body writer): each seeks to its own place before every read. */
#define DIN_CAP (256u << 10)

typedef struct din {
    const trz_io *io;
    int64_t (*pull)(void *ctx, void *b, size_t n); /* a pipe: read through this instead */
    void *pctx;
    uint8_t *b;
    size_t len, at;   /* b[at..len) not yet taken */
    uint64_t pos;     /* offset of b[len] */
    uint64_t limit;   /* no reads at or past this offset (a window of io) */
    int eof, err;
    XXH3_state_t *h;  /* when set: every byte taken, in order */
    uint64_t taken;
} din;

static inline uint64_t din_off(const din *d) { return d->pos - (d->len - d->at); }
static inline size_t din_avail(const din *d) { return d->len - d->at; }
static inline const uint8_t *din_ptr(const din *d) { return d->b + d->at; }

static inline void din_take(din *d, size_t n)
{
    if (d->h) XXH3_64bits_update(d->h, d->b + d->at, n);
    d->at += n;
    d->taken += n;
}

int drf_din_init(din *d, const trz_io *io, uint64_t off);
void drf_din_free(din *d);
/* At least n bytes (n <= DIN_CAP) ready, unless the input ends first. */
size_t drf_din_fill(din *d, size_t n);
/* Read from off on, what the buffer holds used again. */
void drf_din_seek(din *d, uint64_t off);
/* Pass over n bytes: without reading them when the input can seek. */
int drf_din_skip(din *d, uint64_t n);

/* The body goes out in pieces of up to 64 KiB, not an operation's few
 * bytes at a time: a zip's members are three operations each. */
typedef struct gather {
    int (*emit)(void *, const void *, size_t);
    void *ctx;
    uint8_t *b;
    size_t n;
} gather;
#define GATHER_CAP (64u << 10)
int drf_gather_flush(gather *g);
int drf_gather_put(gather *g, const uint8_t *p, size_t n);

/* CRC-32C (Castagnoli), masked as snappy's framing stores it. */
uint32_t drf_crc32c(const uint8_t *p, size_t n);
static inline uint32_t snappy_mask(uint32_t c) { return ((c >> 15) | (c << 17)) + 0xa282ead8u; }

static inline uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static inline uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }
static inline uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

/* ---- the walker: a container in, its records out ----
 * It reports to an optional listener what each stretch of the file is:
 * framing (kept as it is), and the start and end of each stream whose
 * decoded bytes are records.  A stream's end is reported after all its
 * records were handed out and before any of the next stream's. */
enum { ST_STORED = 1, ST_DEFLATE, ST_LZ4, ST_SNAPPY };
enum { W_HEAD, W_STREAM, W_AFTER, W_REST, W_DONE };
#define SNAPPY_BLOCK_MAX 65536u

typedef struct drw drw;
typedef struct drw_ev {
    void (*framing)(void *ctx, uint64_t off, uint64_t len);
    void (*begin)(void *ctx, const drw *w);
    void (*end)(void *ctx, const drw *w, uint64_t end, int ok);
} drw_ev;

struct drw {
    din *in;
    int kind, state;
    int stype;             /* the current stream */
    uint64_t s_off, s_recs;
    uint8_t s_par[2];      /* lz4: FLG, BD; snappy: chunk type; deflate: the level hint (gzip XFL, zip flag bits 1-2) */
    uint64_t left;         /* stored: bytes to go */
    int zdd, z64;          /* zip: a data descriptor follows; zip64 sizes */
    z_stream z;
    int zinit;
    LZ4F_dctx *lz;
    uint8_t *blk;          /* snappy: the chunk's block */
    size_t blk_len, blk_at;
    int end_pending, end_ok;
    uint64_t end_at;
    int lossy;             /* some of the file did not become records */
    const drw_ev *ev;
    void *ctx;
};

void drf_walk_init(drw *w, din *in, int kind, const drw_ev *ev, void *ctx);
void drf_walk_free(drw *w);
/* Up to n record bytes; 0 at the end; < 0 a trz_result. */
int64_t drf_walk_read(drw *w, uint8_t *dst, size_t n);
/* A stream of type (ST_*) starts here; a deflate stream with the inflater
 * ready (a trz_result). */
void drf_walk_stream(drw *w, int type);
int drf_walk_deflate(drw *w);
/* The length *hl of the gzip member header at p (av bytes); -1 if it is
 * none. */
int drf_gz_header_len(const uint8_t *p, size_t av, size_t *hl);

/* ---- recipe operations (FORMAT.md, "Restore block") ---- */
enum { OP_BYTES = 1, OP_COPY = 2, OP_DEFLATE = 3, OP_LZ4 = 4, OP_SNAPPY = 5, OP_GZDEF = 6 };

typedef struct drop {
    uint8_t code;
    uint8_t p[4];        /* deflate: level, window bits, memLevel, strategy; lz4: level, FLG, BD; snappy: with CRC;
                            gzip deflate: flavour (GZD_*), level */
    uint64_t off;        /* where its bytes begin in the original file */
    uint64_t n_in, n_out;
    uint64_t feed;       /* lz4: bytes per update call */
    uint64_t block, count; /* snappy */
    uint32_t check;
} drop;

/* An operation's header (all but a bytes operation's bytes) into b. */
size_t drf_op_put(const drop *o, uint8_t *b);
/* Parse an operation's header from the k bytes at b: its length, or 0 when
 * damaged, or -1 for an operation this version does not know. */
int drf_op_get(const uint8_t *b, size_t k, drop *o);

/* ---- the rebuilder: records in, a stream's original bytes out ----
 * The same code checks a stream at compression time and rebuilds it at
 * restore time, so what was checked is what comes back. */
typedef int (*drsink)(void *ctx, const uint8_t *p, size_t n); /* 0, or -1 to stop */

typedef struct drrb {
    drop op;
    drsink sink;
    void *sctx;
    z_stream z;
    int zinit;
    LZ4F_cctx *lc;
    gzd *gz;
    uint8_t *in;        /* lz4: input gathered to the feed size; snappy: the block */
    size_t in_len;
    uint8_t *out;
    size_t outcap;
    uint64_t fed, made;
    XXH3_state_t *h;
    int stop, fail;     /* the sink stopped it; the library failed */
} drrb;

int drf_rb_start(drrb *b, const drop *o, drsink sink, void *ctx);
int drf_rb_feed(drrb *b, const uint8_t *p, size_t n);
/* The stream's last bytes; 0 when it came out whole. */
int drf_rb_finish(drrb *b);
void drf_rb_free(drrb *b);

/* What checks streams: the plan's own (one thread), or a worker's. */
typedef struct drchk {
    const trz_io *io;
    int rc;             /* the first failure (I/O, memory) */
    drrb rb;            /* the stream being checked */
    int rb_on;
    din cmp;            /* the original bytes the rebuilder's output is compared with */
    din src;            /* a stream read again (its buffer kept from one to the next) */
    uint8_t *buf;       /* its records, 64 KiB */
    drw r;              /* its walker (the inflater kept, reset) */
    uint64_t budget;    /* bytes of retries left */
} drchk;

/* drfile_check.c: a check's buffers given back; a stream's first setting
 * (from its walk) into o; the check of the setting o of the stream at off
 * started (0, or the failure); lz4: a frame whose checks can run apart;
 * the retries of a stream that ends at end (1 when a setting rebuilt it,
 * o then that setting). */
void drf_chk_free(drchk *c);
void drf_first_try(const drw *w, drop *o);
int drf_try_start(drchk *c, const drop *o, uint64_t off);
int drf_lz4_ok(const drw *w);
int drf_retries(drchk *c, const drw *w, drop *o, uint64_t end);
/* One setting o of the stream at off..end (n_in bytes of it) rebuilt from
 * the stream read again and compared: 1 when it matched. */
int drf_retry(drchk *p, const drw *w, const drop *o, uint64_t off, uint64_t end, uint64_t n_in);

#endif
