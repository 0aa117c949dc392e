/* raw.c - the codec for any file: one stream holding the bytes as they are.
 * The back-end does all the work; this is also the fallback for chunks a
 * format codec cannot model. */
#include "../codec.h"

static int raw_encode(const trz_enc_args *a)
{
    trz_put_bytes(&a->streams[0], a->in, a->len);
    return a->streams[0].oom ? TRZ_CODEC_NOMEM : TRZ_CODEC_OK;
}

static int raw_decode(const trz_dec_args *a)
{
    for (int i = 1; i < TRZ_MAX_STREAMS; i++)
        if (a->stream_len[i]) return TRZ_CODEC_CORRUPT;
    if (a->stream_len[0] != a->len) return TRZ_CODEC_CORRUPT;
    if (a->len) memcpy(a->out, a->stream[0], a->len);
    return TRZ_CODEC_OK;
}

static const char *raw_stream_name(unsigned id) { return id == 0 ? "bytes" : NULL; }

const trz_codec trz_codec_raw = {
    .id = TRZ_CODEC_RAW,
    .name = "raw",
    .record_size = 1,
    .description = "any file, bytes as they are",
    .probe = NULL,
    .encode_chunk = raw_encode,
    .decode_chunk = raw_decode,
    .stream_name = raw_stream_name,
};
