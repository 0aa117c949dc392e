/* drmemtrace.c - the drmemtrace codec: DynamoRIO's offline trace records
 * (12 bytes: type, size, addr), id 7.  The entry points and the codec's
 * table: a chunk's model variant and the level's parameters, then the
 * event coder (dr_event.c) over the model (dr_model.h, dr_model.c), or at
 * levels 1-3 the fast variant's byte streams (dr_fast.c); the carried
 * knowledge is dr_know.c.  Spec: drmemtrace.md. */
#include "dr_fast.h"
#include "dr_model.h"

enum { S_MODEL, S_NSTREAMS };
#define DR_VARIANT 0      /* stream 0's model variant: a chunk on its own */
#define DR_VARIANT_KNOW 1 /* the same, starting from the member's facts */
#define DR_VARIANT_MATCH 2      /* variant 0 with the match model */
#define DR_VARIANT_MATCH_KNOW 3 /* variant 1 with the match model */
#define DR_VARIANT_MATCH_MB 4      /* variant 2 with the match table's size stated (8 direct bits) */
#define DR_VARIANT_MATCH_MB_KNOW 5 /* variant 3 likewise */
/* 6 and 7: the fast variant (dr_fast.h), the first byte of its seq stream */
#define DR_MB_MIN 10 /* the match table's bits a stated size may take */
#define DR_MB_MAX 22

/* The codec's variants as its table lists them: each family's two ids
 * (the odd one starts from the member's knowledge) are one entry. */
enum { DRV_RANGE, DRV_MATCH, DRV_MATCH_MB, DRV_FAST, DRV_N };

/* What each level spends (indexed by level 1..19): the variant, and the
 * match table's size in bits more than the chunk's default (drmemtrace.md,
 * "Levels" and "Design notes").  Levels 1-3 write the fast variant (byte
 * streams for the back-end, dr_fast.c), which differ only in the back-end's
 * level.  Every other level runs the match model: without
 * it (variants 0 and 1, written by 0.11 to 0.13 and still decoded) a
 * repetitive trace costs several times as much and codes no faster, as
 * the copies it misses are the cheapest events to decode.  The strong
 * levels take a table twice as big, its size stated. */
typedef struct {
    uint8_t variant; /* DRV_*: an index into dr_variants */
    int8_t mb_add;   /* the match table: bits added to the default size */
    uint8_t zlevel;  /* the fast variant's: the back-end's level for its streams (0: the level) */
} dr_level;
#define MATCH { DRV_MATCH, 0, 0 }
#define MATCH_BIG { DRV_MATCH_MB, 1, 0 }
#define FAST1 { DRV_FAST, 0, 9 }
#define FAST2 { DRV_FAST, 0, 14 }
#define FAST3 { DRV_FAST, 0, 19 }
static const dr_level dr_levels[TRZ_LEVEL_MAX + 1] = {
    FAST1,                                                /* 0: as 1 */
    FAST1,     FAST2,                                     /* 1-2 */
    FAST3,     MATCH,     MATCH,     MATCH,     MATCH,    /* 3-7 */
    MATCH,     MATCH,     MATCH,     MATCH,               /* 8-11 */
    MATCH_BIG, MATCH_BIG, MATCH_BIG, MATCH_BIG,           /* 12-15 */
    MATCH_BIG, MATCH_BIG, MATCH_BIG, MATCH_BIG,           /* 16-19 */
};
TRZ_LEVEL_ROW(dr_level);
#undef MATCH
#undef MATCH_BIG
#undef FAST1
#undef FAST2
#undef FAST3

/* ---- model state ---------------------------------------------------------- */

/* The codec's model: its tables are sized by a chunk's record count and the
 * match table's size (drmemtrace.md, "Model state"), so the part is made at
 * a chunk whose sizes differ from the part's (or after a reset) and kept
 * otherwise.  Its big tables come from the block pool, which returns them
 * cleared: remaking costs what clearing would. */
typedef struct {
    const dr_level *lv; /* the encoder's level; NULL when decoding */
    dr_model *part;
    struct drf_model *fast; /* the fast variant's tables */
    uint64_t nrec;
    unsigned mb;
    int chain;
    int stale; /* part was reset: made again at the next chunk */
} dr_state;

/* A chain's part is made at its first chunk, its sizes by that chunk's,
 * and kept to its end whatever the sizes of the others (drmemtrace.md,
 * "Chains"). */
static dr_model *dr_part(dr_state *st, uint64_t nrec, unsigned mb, const trz_know *know, int chain)
{
    if (st->part && (st->stale || st->chain != chain || (!chain && (st->nrec != nrec || st->mb != mb)))) {
        dr_model_drop(st->part, nrec, mb, chain);
        st->part = NULL;
        st->stale = 0;
    }
    if (!st->part) {
        st->part = dr_model_new(nrec, mb, chain);
        st->nrec = nrec;
        st->mb = mb;
        st->chain = chain;
    }
    if (st->part) st->part->know = know;
    return st->part;
}

static trz_model *dr_model_create(int level, int know)
{
    (void)know;
    dr_state *st = calloc(1, sizeof *st);
    if (st) st->lv = level ? &dr_levels[trz_level_clamp(level)] : NULL;
    return (trz_model *)st;
}

/* The part is dropped when the next chunk comes, which knows whether its
 * blocks fit the new one (dr_model_drop). */
static void dr_model_reset(trz_model *m)
{
    dr_state *st = (dr_state *)m;
    if (st->part) st->stale = 1;
    drf_model_reset(st->fast);
}

static void dr_model_destroy(trz_model *m)
{
    dr_state *st = (dr_state *)m;
    if (!st) return;
    dr_model_free(st->part);
    drf_model_free(st->fast);
    free(st);
}

/* ---- the variants ---------------------------------------------------------- */

static int dr_encode(const trz_enc_args *a, trz_model *tm)
{
    if (a->len % DR_REC || a->nrec != a->len / DR_REC) return TRZ_CODEC_UNSUPPORTED;
    if (!a->nrec) return TRZ_CODEC_OK;
    dr_state *st = (dr_state *)tm;
    drf_model_reset(st->fast); /* a fast chain after this chunk starts again */
    const dr_level *lv = st->lv ? st->lv : &dr_levels[trz_level_clamp(a->level)];
    int chain = a->chain != 0;
    unsigned mb = 0, v = DR_VARIANT;
    if (lv->variant != DRV_RANGE) {
        mb = dr_mb_default(a->nrec);
        v = DR_VARIANT_MATCH;
        if (lv->variant == DRV_MATCH_MB) {
            mb = clampu((int)mb + lv->mb_add, DR_MB_MIN, DR_MB_MAX);
            v = DR_VARIANT_MATCH_MB;
        }
    }
    if (chain && st->part && !st->stale && st->chain) mb = st->mb; /* the chain's, from its first chunk */
    dr_model *m = dr_part(st, a->nrec, mb, a->know, chain);
    if (!m) return TRZ_CODEC_NOMEM;
    const uint8_t *in = a->in;
    size_t i0 = 0;
    if (chain) {
        uint8_t *w = dr_chain_begin(m, (size_t)a->nrec);
        if (!w) return TRZ_CODEC_NOMEM;
        memcpy(w, a->in, a->len);
        in = m->win;
        i0 = m->hn;
    }
    rc c;
    rc_enc_init(&c, &a->streams[S_MODEL]);
    rcd_direct(&c, 1, v + (a->know != NULL), 8);
    if (v == DR_VARIANT_MATCH_MB) rcd_direct(&c, 1, mb, 8);
    int rc = dr_code_enc(m, &c, in, i0, i0 + (size_t)a->nrec);
    if (chain && rc) dr_model_reset(tm); /* no state to go on from */
    else if (chain) dr_chain_end(m, (size_t)a->nrec);
    rc_enc_flush(&c);
    trz_mark_coded(a, S_MODEL);
    if (rc == -2) return TRZ_CODEC_NOMEM;
    if (rc) return TRZ_CODEC_UNSUPPORTED;
    return a->streams[S_MODEL].oom ? TRZ_CODEC_NOMEM : TRZ_CODEC_OK;
}

/* Every variant decodes here: stream 0's first 8 direct bits say which. */
static int dr_decode(const trz_dec_args *a, trz_model *tm)
{
    if (a->len % DR_REC || a->nrec != a->len / DR_REC) return TRZ_CODEC_CORRUPT;
    for (int k = S_NSTREAMS; k < TRZ_MAX_STREAMS; k++)
        if (a->stream_len[k]) return TRZ_CODEC_CORRUPT;
    if (!a->nrec) return a->stream_len[S_MODEL] ? TRZ_CODEC_CORRUPT : TRZ_CODEC_OK;
    drf_model_reset(((dr_state *)tm)->fast);
    rc c;
    rc_dec_init(&c, a->stream[S_MODEL], a->stream_len[S_MODEL]);
    /* variants 0 and 1 (no match model) are what trz 0.11 to 0.13 wrote,
     * 2 and 3 what 0.14 wrote, 4 and 5 the strong levels' from 0.15; the
     * odd ones carry knowledge */
    unsigned v = rcd_direct(&c, 0, 0, 8);
    if (v > DR_VARIANT_MATCH_MB_KNOW || (v & 1) != (a->know != NULL)) return TRZ_CODEC_UNSUPPORTED;
    unsigned mb = v >= DR_VARIANT_MATCH_MB ? rcd_direct(&c, 0, 0, 8) : v >= DR_VARIANT_MATCH ? dr_mb_default(a->nrec) : 0;
    if (v >= DR_VARIANT_MATCH_MB && (mb < DR_MB_MIN || mb > DR_MB_MAX)) return TRZ_CODEC_CORRUPT;
    dr_state *st = (dr_state *)tm;
    int chain = a->chain != 0;
    if (chain) {
        /* every chunk of a chain has the match model, the first one's table */
        if (v < DR_VARIANT_MATCH) return TRZ_CODEC_CORRUPT;
        if (st->part && !st->stale && st->chain) {
            if (v >= DR_VARIANT_MATCH_MB && mb != st->mb) return TRZ_CODEC_CORRUPT;
            mb = st->mb;
        }
    }
    dr_model *m = dr_part(st, a->nrec, mb, a->know, chain);
    if (!m) return TRZ_CODEC_NOMEM;
    if (!chain) {
        int rc = dr_code_dec(m, &c, a->out, 0, (size_t)a->nrec);
        if (rc == -2) return TRZ_CODEC_NOMEM;
        if (rc || !rc_dec_ok(&c)) return TRZ_CODEC_CORRUPT;
        return TRZ_CODEC_OK;
    }
    uint8_t *w = dr_chain_begin(m, (size_t)a->nrec);
    if (!w) return TRZ_CODEC_NOMEM;
    int rc = dr_code_dec(m, &c, m->win, m->hn, m->hn + (size_t)a->nrec);
    if (rc || !rc_dec_ok(&c)) {
        dr_model_reset(tm); /* no state to go on from */
        return rc == -2 ? TRZ_CODEC_NOMEM : TRZ_CODEC_CORRUPT;
    }
    memcpy(a->out, w, a->len);
    dr_chain_end(m, (size_t)a->nrec);
    return TRZ_CODEC_OK;
}

/* The fast variant (dr_fast.c), alone or in a chain of its own: the
 * range-coded part is dropped, so that both sides would start a
 * range-coded chunk after it afresh (and a range-coded chunk drops the
 * fast variant's chain: it starts again, see dr_encode). */
static int dr_fast_encode(const trz_enc_args *a, trz_model *tm)
{
    if (a->len % DR_REC || a->nrec != a->len / DR_REC) return TRZ_CODEC_UNSUPPORTED;
    if (!a->nrec) return TRZ_CODEC_OK;
    dr_state *st = (dr_state *)tm;
    if (st->part) st->stale = 1;
    return drf_encode(a, &st->fast);
}

static int dr_fast_decode(const trz_dec_args *a, trz_model *tm)
{
    if (a->len % DR_REC || a->nrec != a->len / DR_REC) return TRZ_CODEC_CORRUPT;
    dr_state *st = (dr_state *)tm;
    if (st->part) st->stale = 1;
    return drf_decode(a, &st->fast);
}

/* The back-end's level for a chunk's streams: the fast variant's are zstd's
 * 9, 14 and 19 at levels 1-3 (its streams are a twentieth to a hundredth of
 * the records, so a harder search costs little beside the transform and
 * decodes as fast: at zstd's level 1 a python3 trace was 1.03 times
 * `xz -9`, at 9 0.93); elsewhere the level. */
static int dr_backend_level(int level)
{
    const dr_level *lv = &dr_levels[trz_level_clamp(level)];
    return lv->zlevel ? lv->zlevel : level;
}

static const trz_variant dr_variants[DRV_N] = {
    [DRV_RANGE] = { DR_VARIANT, "range", 0, 0, dr_encode, dr_decode }, /* decoded only */
    [DRV_MATCH] = { DR_VARIANT_MATCH, "range-match", 4, 11, dr_encode, dr_decode },
    [DRV_MATCH_MB] = { DR_VARIANT_MATCH_MB, "range-match", 12, 19, dr_encode, dr_decode },
    [DRV_FAST] = { DRF_VARIANT, "streams", 1, 3, dr_fast_encode, dr_fast_decode },
};

/* From stream 0's first 8 direct bits (an id and its knowledge twin);
 * without stream 0, the first byte of the fast variant's seq. */
static int dr_variant_of(const size_t *len, const uint8_t *const *head)
{
    if (!len[S_MODEL] && len[DRF_SEQ])
        return head[DRF_SEQ][0] >= DRF_VARIANT && head[DRF_SEQ][0] <= DRF_VARIANT_CHAINED ? DRV_FAST : -1;
    if (!len[S_MODEL]) return DRV_RANGE; /* a chunk of no records */
    rc c;
    rc_dec_init(&c, head[S_MODEL], len[S_MODEL] < TRZ_VARIANT_HEAD ? len[S_MODEL] : TRZ_VARIANT_HEAD);
    unsigned v = rcd_direct(&c, 0, 0, 8);
    return v <= DR_VARIANT_MATCH_MB_KNOW ? (int)(v >> 1) : -1;
}

static const char *dr_stream_name(unsigned id) { return id == S_MODEL ? "model" : drf_stream_name(id); }

const trz_codec trz_codec_drmemtrace = {
    .id = TRZ_CODEC_DRMEMTRACE,
    .name = "drmemtrace",
    .record_size = DR_REC,
    .description = "DynamoRIO drmemtrace offline traces, 12-byte records",
    .probe = dr_probe,
    .variants = dr_variants,
    .nvariants = DRV_N,
    .variant_of = dr_variant_of,
    .levels = dr_levels,
    .level_size = sizeof dr_levels[0],
    .model_create = dr_model_create,
    .model_reset = dr_model_reset,
    .model_free = dr_model_destroy,
    .chains = 1,
    .chain_bytes = 66u << 20, /* a seek decodes at most 66 MiB (bench/notes/2026-11-29-chains.md): 11 chunks */
    /* 2^19 records, the least at which the tables are 16 MiB's but the
     * match table and the window, half as big; whole huge pages.  A
     * decoder holds the window, the chunk and the one decoded ahead
     * (bench/notes/2026-12-02-drmemtrace-memory.md) */
    .chunk_bytes = 6u << 20,
    .stream_name = dr_stream_name,
    .dump_record = dr_dump,
    .convert = dr_convert,
    .learn = dr_learn,
    .know_encode = dr_know_encode,
    .know_decode = dr_know_decode,
    .backend_level = dr_backend_level,
};

