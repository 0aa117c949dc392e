/* cs_codec.c - the ChampSim codecs' tables (trz_codec_champsim and
 * trz_codec_champsim_cloudsuite): levels, variants, stream names, the model
 * state's operations and the knowledge stream's choice of coding. */
#include "cs_model.h"
#include "cs_fast.h"

static const char *const stream_names[S_NSTREAMS] = { "model" };

/* ---- levels ---------------------------------------------------------------
 * Levels 1-5 write the fast variant (byte streams, cs_fast.c), 6 and up the
 * range-coded one.  The fast levels state facts in bytes (cs_fast.c), so
 * that a seek's replay of its group's facts costs no range decoding either. */
enum { CS_VAR_STREAMS, CS_VAR_RANGE }; /* indices in cs_variants */
typedef struct cs_level {
    uint8_t variant;    /* CS_VAR_* */
    uint8_t know_bytes; /* the knowledge stream in bytes (else range-coded) */
    uint8_t ring_bits;  /* range-coded, in a chain: 2^ring_bits records kept
                           for the match model (stated in the chain's first
                           chunk) */
    uint8_t chunk_mib;  /* the chunks' size in MiB (0: the container's 16):
                           the decoder's ring and tables, its chunk and the
                           one decoded ahead under 64 MB (champsim.md) */
} cs_level;
TRZ_LEVEL_ROW(cs_level);
#define STREAMS { CS_VAR_STREAMS, 1, 0, 0 }
#define RANGE { CS_VAR_RANGE, 0, 18, 12 }
#define RANGE_L { CS_VAR_RANGE, 0, 20, 0 }
static const cs_level cs_levels[TRZ_LEVEL_MAX + 1] = {
    STREAMS,                                                      /* 0: as 1 */
    STREAMS, STREAMS, STREAMS, STREAMS, STREAMS,                  /* 1-5 */
    RANGE, RANGE, RANGE, RANGE,                                   /* 6-9 */
    RANGE_L, RANGE_L, RANGE_L, RANGE_L, RANGE_L,                  /* 10-14 */
    RANGE_L, RANGE_L, RANGE_L, RANGE_L, RANGE_L,                  /* 15-19 */
};
#undef STREAMS
#undef RANGE
#undef RANGE_L

static unsigned cs_ring_bits(int level)
{
    unsigned b = cs_levels[trz_level_clamp(level)].ring_bits;
    return b ? b : CS_RING_MIN;
}

static uint32_t cs_chunk_bytes(int level)
{
    return (uint32_t)cs_levels[trz_level_clamp(level)].chunk_mib << 20;
}

static int cs_know_enc(const trz_fact *f, size_t n, int level, trz_buf *out, const cs_layout *L)
{
    if (cs_levels[trz_level_clamp(level)].know_bytes) {
        for (size_t i = 0; i < n; i++) /* only facts learn writes */
            if ((f[i].len != CS_FACT && f[i].len != CS_FACT_T) || (i && f[i].key <= f[i - 1].key))
                return TRZ_CODEC_UNSUPPORTED;
        return csf_know_encode(f, n, out, L);
    }
    return cs_know_range_encode(f, n, out, L);
}
static int cs_know_dec(const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx, const cs_layout *L)
{
    if (n && p[0] == CSF_KNOW_BYTES) return csf_know_decode(p, n, add, ctx, L);
    return cs_know_range_decode(p, n, add, ctx, L);
}
static int cs_know_enc64(const trz_know *k, const trz_fact *f, size_t n, int level, trz_buf *out)
{
    (void)k;
    return cs_know_enc(f, n, level, out, &cs_layout64);
}
static int cs_know_enc96(const trz_know *k, const trz_fact *f, size_t n, int level, trz_buf *out)
{
    (void)k;
    return cs_know_enc(f, n, level, out, &cs_layout96);
}
static int cs_know_dec64(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx)
{
    (void)k;
    return cs_know_dec(p, n, add, ctx, &cs_layout64);
}
static int cs_know_dec96(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx)
{
    (void)k;
    return cs_know_dec(p, n, add, ctx, &cs_layout96);
}

/* ---- model state and variants ---------------------------------------------
 * (cs_state: cs_model.h) */
static trz_model *cs_model_create(int level, int know)
{
    (void)level, (void)know;
    return (trz_model *)calloc(1, sizeof(cs_state));
}

static void cs_model_reset(trz_model *m)
{
    cs_state *st = (cs_state *)m;
    if (st->range) st->range->used = 1, st->range->live = 0; /* cleared at its next chunk */
    csf_model_free(st->fast);           /* made afresh at every chunk anyway */
    st->fast = NULL;
}

static void cs_model_free(trz_model *m)
{
    cs_state *st = (cs_state *)m;
    if (!st) return;
    csf_model_free(st->fast);
    cs_range_free(st->range);
    cs_ring_free(&st->ring);
    free(st);
}

/* The ring a state codes with: its own, or its encoder's (cs_model_share). */
static cs_ring *ring_of(trz_model *m)
{
    cs_state *st = (cs_state *)m;
    return st->rp ? st->rp : &st->ring;
}

/* The self-check of one thread (trz_codec.model_share): the decoder's
 * chains read the encoder's ring, which holds the same records.  The
 * encoder leaves the chunk's records for the decoder to write into it
 * (champsim.c); every chunk the encoder codes, the decoder decodes before
 * the next, or both are reset. */
static void cs_model_share(trz_model *dec, trz_model *enc)
{
    cs_state *d = (cs_state *)dec, *e = (cs_state *)enc;
    cs_ring_free(&d->ring);
    d->rp = &e->ring;
    e->ring.lent = 1;
}

/* The variants' entries.  The fast variant has no stream 0 (cs_fast.c); a
 * chunk without records has no streams at all, the range-coded variants'
 * check. */
static int fast_encode(const trz_enc_args *a, trz_model *m, const cs_layout *L,
                       int (*range)(const trz_enc_args *, cs_model **, unsigned, cs_ring *))
{
    cs_state *st = (cs_state *)m;
    if (!a->nrec) return range(a, &st->range, cs_ring_bits(a->level), ring_of(m));
    if (a->len % L->size || a->nrec != a->len / L->size) return TRZ_CODEC_UNSUPPORTED;
    return csf_encode(a, L, &st->fast);
}
static int fast_decode(const trz_dec_args *a, trz_model *m, const cs_layout *L,
                       int (*range)(const trz_dec_args *, cs_model **, cs_ring *))
{
    cs_state *st = (cs_state *)m;
    if (!a->nrec) return range(a, &st->range, ring_of(m));
    if (a->len % L->size || a->nrec != a->len / L->size) return TRZ_CODEC_CORRUPT;
    return csf_decode(a, L, &st->fast);
}
static int fast_enc64(const trz_enc_args *a, trz_model *m) { return fast_encode(a, m, &cs_layout64, cs_range_encode64); }
static int fast_enc96(const trz_enc_args *a, trz_model *m) { return fast_encode(a, m, &cs_layout96, cs_range_encode96); }
static int fast_dec64(const trz_dec_args *a, trz_model *m) { return fast_decode(a, m, &cs_layout64, cs_range_decode64); }
static int fast_dec96(const trz_dec_args *a, trz_model *m) { return fast_decode(a, m, &cs_layout96, cs_range_decode96); }
static int range_enc64(const trz_enc_args *a, trz_model *m)
{
    return cs_range_encode64(a, &((cs_state *)m)->range, cs_ring_bits(a->level), ring_of(m));
}
static int range_enc96(const trz_enc_args *a, trz_model *m)
{
    return cs_range_encode96(a, &((cs_state *)m)->range, cs_ring_bits(a->level), ring_of(m));
}
static int range_dec64(const trz_dec_args *a, trz_model *m)
{
    return cs_range_decode64(a, &((cs_state *)m)->range, ring_of(m));
}
static int range_dec96(const trz_dec_args *a, trz_model *m)
{
    return cs_range_decode96(a, &((cs_state *)m)->range, ring_of(m));
}

/* Ids: the range-coded variant is 0 (1 in a member with knowledge), the
 * first decisions of stream 0; the fast variant CSF_VARIANT, the first byte
 * of its seq stream. */
static const trz_variant cs_variants64[] = {
    [CS_VAR_STREAMS] = { CSF_VARIANT, "streams", 1, 5, fast_enc64, fast_dec64 },
    [CS_VAR_RANGE] = { CS_VERSION, "range", 6, 19, range_enc64, range_dec64 },
};
static const trz_variant cs_variants96[] = {
    [CS_VAR_STREAMS] = { CSF_VARIANT, "streams", 1, 5, fast_enc96, fast_dec96 },
    [CS_VAR_RANGE] = { CS_VERSION, "range", 6, 19, range_enc96, range_dec96 },
};

/* Stream 0 is the range-coded variants'; without it, the fast variant's. */
static int cs_variant_of(const size_t *len, const uint8_t *const *head)
{
    (void)head;
    return len[S_MODEL] ? CS_VAR_RANGE : CS_VAR_STREAMS;
}

/* Stream 0 is the range-coded variants', the others the fast variant's. */
static const char *cs_stream_name(unsigned id) { return id < S_NSTREAMS ? stream_names[id] : csf_stream_name(id); }

const trz_codec trz_codec_champsim = {
    .id = TRZ_CODEC_CHAMPSIM,
    .name = "champsim",
    .record_size = 64,
    .description = "ChampSim traces, 64-byte input_instr records",
    .probe = cs_probe64,
    .variants = cs_variants64,
    .nvariants = 2,
    .variant_of = cs_variant_of,
    .levels = cs_levels,
    .level_size = sizeof cs_levels[0],
    .model_create = cs_model_create,
    .model_reset = cs_model_reset,
    .model_free = cs_model_free,
    .stream_name = cs_stream_name,
    .dump_record = cs_dump64,
    .convert = cs_convert64,
    .learn = cs_learn64,
    .know_encode = cs_know_enc64,
    .know_decode = cs_know_dec64,
    .chains = 1,
    .chain_bytes = 176u << 20, /* a seek decodes at most 176 MiB, ~0.3 s (bench/notes/2026-11-29-chains-2.md) */
    .chain_long_bytes = 512u << 20, /* -12..-19: about a second's decoding (bench/notes/2026-11-29-chains-2.md) */
    .chunk_bytes_at = cs_chunk_bytes,
    .model_share = cs_model_share,
};

const trz_codec trz_codec_champsim_cloudsuite = {
    .id = TRZ_CODEC_CHAMPSIM_CLOUDSUITE,
    .name = "champsim-cloudsuite",
    .record_size = 96,
    .description = "ChampSim traces, 96-byte cloudsuite_instr records",
    .probe = cs_probe96,
    .variants = cs_variants96,
    .nvariants = 2,
    .variant_of = cs_variant_of,
    .levels = cs_levels,
    .level_size = sizeof cs_levels[0],
    .model_create = cs_model_create,
    .model_reset = cs_model_reset,
    .model_free = cs_model_free,
    .stream_name = cs_stream_name,
    .dump_record = cs_dump96,
    .convert = cs_convert96,
    .learn = cs_learn96,
    .know_encode = cs_know_enc96,
    .know_decode = cs_know_dec96,
    .chains = 1,
    .chain_bytes = 176u << 20, /* a seek decodes at most 176 MiB, ~0.3 s (bench/notes/2026-11-29-chains-2.md) */
    .chain_long_bytes = 512u << 20, /* -12..-19: about a second's decoding (bench/notes/2026-11-29-chains-2.md) */
    .chunk_bytes_at = cs_chunk_bytes,
    .model_share = cs_model_share,
};
