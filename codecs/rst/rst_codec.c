/* rst_codec.c - the RST codec's table (rst.md): its variants and levels,
 * the model's state (a part per variant, made, reset and freed), a
 * chain's state across variants, the choice between variant 0 (rst.c) and
 * variant 1 (rst_v1.c) at the levels that trial both, and stream names. */
#include "rst_int.h"
#include "rst_v1.h"

/* Levels below 6 write variant 0: it decodes 3-5x faster than variant 1
 * (about 700-830 instructions a record), at 2-4 times the size.  From 6,
 * variant 1, unless variant 0's streams after the back-end come out smaller;
 * they are sized at most at level 9: above it zstd's search costs 4 times
 * the whole encoding and has never turned the choice. */
#define STREAMS { RST_VAR_STREAMS, 0, 0 }
#define RANGE(trial) { RST_VAR_RANGE, trial, 6 }
static const rst_level rst_levels[TRZ_LEVEL_MAX + 1] = {
    STREAMS, /* 0: as 1 */
    STREAMS, STREAMS, STREAMS, STREAMS, STREAMS,                /* 1-5 */
    RANGE(6), RANGE(7), RANGE(8), RANGE(9),                     /* 6-9 */
    RANGE(9), RANGE(9), RANGE(9), RANGE(9), RANGE(9), RANGE(9), /* 10-15 */
    RANGE(9), RANGE(9), RANGE(9), RANGE(9),                     /* 16-19 */
};
TRZ_LEVEL_ROW(rst_level);
#undef STREAMS
#undef RANGE

/* A model part made for the member's knowledge state: the one there, else
 * a new one (a model is made for one member, so this remakes nothing in
 * the container's use).  NULL if out of memory. */
static struct rst_v0_model *v0_part(rst_model *rm, int know)
{
    if (rm->v0 && rst_v0_knows(rm->v0) != know) { rst_v0_free(rm->v0); rm->v0 = NULL; }
    if (!rm->v0) rm->v0 = rst_v0_new(know);
    return rm->v0;
}

static struct rst_v1_model *v1_part(rst_model *rm, int know)
{
    if (rm->v1 && rst_v1_knows(rm->v1) != know) { rst_v1_free(rm->v1); rm->v1 = NULL; }
    if (!rm->v1) rm->v1 = rst_v1_new(know, rm->wp);
    return rm->v1;
}

/* The parts: an encoder's for its level's variant (range at levels 6 and up
 * trials variant 0 as well); a decoder's (no level) at each variant's first
 * chunk. */
static void rst_model_drop(rst_model *rm)
{
    rst_v0_free(rm->v0);
    rst_v0_in_free(rm->v0in);
    rst_v1_free(rm->v1);
    rm->v0 = NULL;
    rm->v0in = NULL;
    rm->v1 = NULL;
}

static int rst_model_make(rst_model *rm)
{
    if (!rm->lv) return 0;
    if (rm->lv->variant == RST_VAR_RANGE && !v1_part(rm, rm->know)) return -1;
    if ((rm->lv->variant == RST_VAR_STREAMS || rm->lv->trial_level) && !v0_part(rm, rm->know)) return -1;
    return 0;
}

static trz_model *rst_model_create(int level, int know)
{
    rst_model *rm = calloc(1, sizeof *rm);
    if (!rm) return NULL;
    rm->lv = level ? &rst_levels[trz_level_clamp(level)] : NULL;
    rm->know = know;
    rm->wp = &rm->win;
    if (rst_model_make(rm)) { rst_model_drop(rm); free(rm); return NULL; }
    return (trz_model *)rm;
}

/* The parts are given back and made again: the block pool (src/common/mem.c)
 * returns the same blocks, cleared, so this costs what clearing in place
 * would.  Out of memory, a part stays absent and its next chunk fails with
 * TRZ_CODEC_NOMEM. */
static void rst_model_reset(trz_model *m)
{
    rst_model *rm = (rst_model *)m;
    rst_model_drop(rm);
    rm->used = 0;
    (void)rst_model_make(rm);
}

static void rst_model_free(trz_model *m)
{
    rst_model *rm = (rst_model *)m;
    if (!rm) return;
    rst_model_drop(rm);
    rst_win_free(&rm->win);
    free(rm);
}

/* The self-check of one thread (trz_codec.model_share): the decoder's
 * variant 1 reads the encoder's window, which holds the same records.  The
 * encoder leaves the bytes for the decoder to move after the chunk
 * (rst_v1_hist_slide); every chunk the encoder codes, the decoder decodes
 * before the next, or both are reset. */
static void rst_model_share(trz_model *dec, trz_model *enc)
{
    rst_model *d = (rst_model *)dec, *e = (rst_model *)enc;
    rst_v1_free(d->v1);
    d->v1 = NULL;
    rst_win_free(&d->win);
    d->wp = &e->win;
    e->win.lent = 1;
}

/* Chains (rst.md, "Chains"): each variant's part carries its state from
 * the chain's last chunk coded with that variant, until a chunk of records
 * coded with the other variant resets it.  So a chain's state follows the
 * variants its streams state, never the encoder's trials.  A chunk alone
 * codes from a fresh model: one used before is reset first. */
static void chain_begin(rst_model *rm, int chain)
{
    if (!chain && rm->used) rst_model_reset((trz_model *)rm);
    rm->used = 1;
}

/* After a chained chunk of nrec records coded with variant var (RST_VAR_*). */
static void chain_end(rst_model *rm, int chain, uint64_t nrec, int var)
{
    if (!chain || !nrec) return;
    if (var == RST_VAR_STREAMS) {
        rst_v1_free(rm->v1);
        rm->v1 = NULL;
    } else {
        rst_v0_free(rm->v0);
        rm->v0 = NULL;
    }
    (void)rst_model_make(rm); /* out of memory: the part's next chunk fails */
}

static int rst_streams_encode(const trz_enc_args *a, trz_model *tm)
{
    rst_model *rm = (rst_model *)tm;
    chain_begin(rm, a->chain);
    struct rst_v0_model *m = v0_part(rm, a->know != NULL);
    int rc = m ? rst_v0_encode(a, m) : TRZ_CODEC_NOMEM;
    chain_end(rm, a->chain, a->nrec, RST_VAR_STREAMS);
    return rc;
}

static int rst_streams_decode(const trz_dec_args *a, trz_model *tm)
{
    rst_model *rm = (rst_model *)tm;
    chain_begin(rm, a->chain);
    struct rst_v0_model *m = v0_part(rm, a->know != NULL);
    if (!rm->v0in) rm->v0in = rst_v0_in_new();
    int rc = m && rm->v0in ? rst_v0_decode(a, m, rm->v0in) : TRZ_CODEC_NOMEM;
    chain_end(rm, a->chain, a->nrec, RST_VAR_STREAMS);
    return rc;
}

/* Variant 1, unless variant 0's streams after the back-end (each with its
 * stream-table entry) come out smaller, which the container's trial sizer
 * tells: the range coder never makes a chunk larger than the back-end path
 * would. */
#define RST_ENTRY_BYTES 10 /* a stream-table entry (FORMAT.md) */
static int rst_range_encode(const trz_enc_args *a, trz_model *tm)
{
    rst_model *rm = (rst_model *)tm;
    chain_begin(rm, a->chain);
    struct rst_v1_model *m1 = v1_part(rm, a->know != NULL);
    if (!m1) return TRZ_CODEC_NOMEM;
    int rc = rst_v1_encode(a, m1), var = RST_VAR_RANGE;
    int trial_level = rm->lv ? rm->lv->trial_level : rst_levels[trz_level_clamp(a->level)].trial_level;
    if (rc != TRZ_CODEC_OK || !a->packed_size || a->nrec == 0 || !trial_level) {
        chain_end(rm, a->chain, a->nrec, var);
        return rc;
    }
    struct rst_v0_model *m0 = v0_part(rm, a->know != NULL);
    if (!m0) return TRZ_CODEC_NOMEM;
    trz_buf t[TRZ_MAX_STREAMS];
    memset(t, 0, sizeof t);
    trz_enc_args b = *a;
    b.streams = t;
    b.coded = NULL;
    if (rst_v0_encode(&b, m0) == TRZ_CODEC_OK) {
        size_t v1 = a->streams[RST_S_RC].n + RST_ENTRY_BYTES, v0 = 0;
        for (int s = 0; s < TRZ_MAX_STREAMS && v0 < v1; s++)
            if (t[s].n) v0 += a->packed_size(a->packer, t[s].p, t[s].n, trial_level) + RST_ENTRY_BYTES;
        if (v0 < v1) {
            for (int s = 0; s < TRZ_MAX_STREAMS; s++) {
                trz_buf x = a->streams[s];
                a->streams[s] = t[s];
                t[s] = x;
            }
            if (a->coded) *a->coded &= ~((uint64_t)1 << RST_S_RC);
            var = RST_VAR_STREAMS;
        }
    }
    for (int s = 0; s < TRZ_MAX_STREAMS; s++) free(t[s].p);
    chain_end(rm, a->chain, a->nrec, var);
    return rc;
}

static int rst_range_decode(const trz_dec_args *a, trz_model *tm)
{
    if (rst_rc_variant(a->stream[RST_S_RC], a->stream_len[RST_S_RC]) != (a->know ? RST_V_KNOW : 1))
        return TRZ_CODEC_UNSUPPORTED;
    rst_model *rm = (rst_model *)tm;
    chain_begin(rm, a->chain);
    struct rst_v1_model *m = v1_part(rm, a->know != NULL);
    int rc = m ? rst_v1_decode(a, m) : TRZ_CODEC_NOMEM;
    chain_end(rm, a->chain, a->nrec, RST_VAR_RANGE);
    return rc;
}

static uint32_t rst_chunk_bytes(int level)
{
    return (uint32_t)rst_levels[trz_level_clamp(level)].chunk_mib << 20;
}

static const trz_variant rst_variants[] = {
    [RST_VAR_STREAMS] = { 0, "streams", 1, 5, rst_streams_encode, rst_streams_decode },
    [RST_VAR_RANGE] = { 1, "range", 6, 19, rst_range_encode, rst_range_decode },
};

/* Variant 0 has no stream 21; variants 1 and 2 state theirs in it. */
static int rst_variant_of(const size_t *len, const uint8_t *const *head)
{
    if (!len[RST_S_RC]) return RST_VAR_STREAMS;
    int v = rst_rc_variant(head[RST_S_RC], len[RST_S_RC] < TRZ_VARIANT_HEAD ? len[RST_S_RC] : TRZ_VARIANT_HEAD);
    return v == 1 || v == RST_V_KNOW ? RST_VAR_RANGE : -1;
}

static const char *rst_stream_name(unsigned id)
{
    if (id == RST_S_RC) return "rc";
    return rst_v0_stream_name(id);
}

const trz_codec trz_codec_rst = {
    .id = TRZ_CODEC_RST,
    .name = "rst",
    .record_size = RST_REC,
    .description = "SPARC RST traces (24-byte records, rstf 2.x)",
    .probe = rst_probe,
    .variants = rst_variants,
    .nvariants = sizeof rst_variants / sizeof rst_variants[0],
    .variant_of = rst_variant_of,
    .levels = rst_levels,
    .level_size = sizeof rst_levels[0],
    .model_create = rst_model_create,
    .model_reset = rst_model_reset,
    .model_free = rst_model_free,
    .model_share = rst_model_share,
    .chunk_bytes_at = rst_chunk_bytes,
    .chains = 1,
    .chain_bytes = 64u << 20, /* a seek decodes at most 64 MiB (bench/notes/2026-11-29-chains.md) */
    .stream_name = rst_stream_name,
    .dump_record = rst_dump,
    .cpus_seen = rst_cpus_seen,
    .convert = rst_convert,
    .learn = rst_learn,
    .know_encode = rst_know_encode,
    .know_decode = rst_know_decode,
};
