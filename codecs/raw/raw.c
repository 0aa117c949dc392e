/* raw.c - the codec for any file: one stream holding the bytes as they are.
 * The back-end does all the work; this is also the fallback for chunks a
 * format codec cannot model. */
#include "../codec.h"

static int raw_encode(const trz_enc_args *a, trz_model *m)
{
    (void)m;
    trz_put_bytes(&a->streams[0], a->in, a->len);
    return a->streams[0].oom ? TRZ_CODEC_NOMEM : TRZ_CODEC_OK;
}

static int raw_decode(const trz_dec_args *a, trz_model *m)
{
    (void)m;
    for (int i = 1; i < TRZ_MAX_STREAMS; i++)
        if (a->stream_len[i]) return TRZ_CODEC_CORRUPT;
    if (a->stream_len[0] != a->len) return TRZ_CODEC_CORRUPT;
    if (a->len) memcpy(a->out, a->stream[0], a->len);
    return TRZ_CODEC_OK;
}

/* One variant, at every level; no model state. */
static const trz_variant raw_variants[] = {
    { .id = 0, .name = "raw", .min_level = 1, .max_level = 19, .encode = raw_encode, .decode = raw_decode },
};

typedef struct raw_level {
    uint8_t variant;
} raw_level;
TRZ_LEVEL_ROW(raw_level);
#define RAW_ALL { 0 }
static const raw_level raw_levels[TRZ_LEVEL_MAX + 1] = {
    RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL,
    RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL, RAW_ALL,
};

static const char *raw_stream_name(unsigned id) { return id == 0 ? "bytes" : NULL; }

const trz_codec trz_codec_raw = {
    .id = TRZ_CODEC_RAW,
    .name = "raw",
    .record_size = 1,
    .description = "any file, bytes as they are",
    .probe = NULL,
    .variants = raw_variants,
    .nvariants = 1,
    .levels = raw_levels,
    .level_size = sizeof raw_levels[0],
    .stream_name = raw_stream_name,
    /* a chunk is decoded into a stream and copied out, beside the next
     * chunk's stored bytes: at 16 MiB a raw member took 66-68 MB to
     * decode, over the 64 MB bound; 8 MiB costs 0.3-0.7% against LZMA2's
     * 4 MiB dictionary (codecs/raw/raw.md) */
    .chunk_bytes = 8u << 20,
};
