/* drmemtrace.c - the drmemtrace codec: DynamoRIO's offline trace records
 * (12 bytes: type, size, addr), id 7.  The entry points and the codec's
 * table: a chunk's model variant and the level's parameters, then the
 * event coder (dr_event.c) over the model (dr_model.h, dr_model.c); the
 * carried knowledge is dr_know.c.  Spec: drmemtrace.md. */
#include "dr_model.h"

enum { S_MODEL, S_NSTREAMS };
#define DR_VARIANT 0      /* stream 0's model variant: a chunk on its own */
#define DR_VARIANT_KNOW 1 /* the same, starting from the member's facts */
#define DR_VARIANT_MATCH 2      /* variant 0 with the match model */
#define DR_VARIANT_MATCH_KNOW 3 /* variant 1 with the match model */
#define DR_VARIANT_MATCH_MB 4      /* variant 2 with the match table's size stated (8 direct bits) */
#define DR_VARIANT_MATCH_MB_KNOW 5 /* variant 3 likewise */
#define DR_MB_MIN 10 /* the match table's bits a stated size may take */
#define DR_MB_MAX 22

/* What each level spends (indexed by level 1..19): whether the match model
 * runs, and its table's size in bits more (or fewer) than the chunk's
 * default (drmemtrace.md, "Levels" and "Design notes").  Levels 1 and 2
 * code without it (faster where traces seldom repeat), 3 to 11 as the
 * default always did, the strong ones with a table twice as big. */
typedef struct {
    uint8_t match; /* the match model */
    int8_t mb_add; /* its table: bits added to the default size */
} dr_level;
static const dr_level dr_levels[20] = {
    [1] = { 0, 0 },  [2] = { 0, 0 },  [3] = { 1, 0 },  [4] = { 1, 0 },  [5] = { 1, 0 },
    [6] = { 1, 0 },  [7] = { 1, 0 },  [8] = { 1, 0 },  [9] = { 1, 0 },  [10] = { 1, 0 },
    [11] = { 1, 0 }, [12] = { 1, 1 }, [13] = { 1, 1 }, [14] = { 1, 1 }, [15] = { 1, 1 },
    [16] = { 1, 1 }, [17] = { 1, 1 }, [18] = { 1, 1 }, [19] = { 1, 1 },
};

/* ---- the codec ------------------------------------------------------------ */

static int dr_encode(const trz_enc_args *a)
{
    if (a->len % DR_REC || a->nrec != a->len / DR_REC) return TRZ_CODEC_UNSUPPORTED;
    if (!a->nrec) return TRZ_CODEC_OK;
    const dr_level *lv = &dr_levels[a->level < 1 ? 1 : a->level > 19 ? 19 : a->level];
    unsigned mb = 0, v = DR_VARIANT;
    if (lv->match) {
        mb = dr_mb_default(a->nrec);
        v = DR_VARIANT_MATCH;
        if (lv->mb_add) {
            mb = clampu((int)mb + lv->mb_add, DR_MB_MIN, DR_MB_MAX);
            v = DR_VARIANT_MATCH_MB;
        }
    }
    dr_model *m = dr_model_new(a->nrec, mb);
    if (!m) return TRZ_CODEC_NOMEM;
    m->know = a->know;
    rc c;
    rc_enc_init(&c, &a->streams[S_MODEL]);
    rcd_direct(&c, 1, v + (a->know != NULL), 8);
    if (v == DR_VARIANT_MATCH_MB) rcd_direct(&c, 1, mb, 8);
    int rc = dr_code_enc(m, &c, a->in, (size_t)a->nrec);
    rc_enc_flush(&c);
    trz_mark_coded(a, S_MODEL);
    dr_model_free(m);
    if (rc == -2) return TRZ_CODEC_NOMEM;
    if (rc) return TRZ_CODEC_UNSUPPORTED;
    return a->streams[S_MODEL].oom ? TRZ_CODEC_NOMEM : TRZ_CODEC_OK;
}

static int dr_decode(const trz_dec_args *a)
{
    if (a->len % DR_REC || a->nrec != a->len / DR_REC) return TRZ_CODEC_CORRUPT;
    for (int k = S_NSTREAMS; k < TRZ_MAX_STREAMS; k++)
        if (a->stream_len[k]) return TRZ_CODEC_CORRUPT;
    if (!a->nrec) return a->stream_len[S_MODEL] ? TRZ_CODEC_CORRUPT : TRZ_CODEC_OK;
    rc c;
    rc_dec_init(&c, a->stream[S_MODEL], a->stream_len[S_MODEL]);
    /* variants 0 and 1 (no match model) are what trz 0.11 to 0.13 wrote,
     * 2 and 3 what 0.14 wrote; the odd ones carry knowledge */
    unsigned v = rcd_direct(&c, 0, 0, 8);
    if (v > DR_VARIANT_MATCH_MB_KNOW || (v & 1) != (a->know != NULL)) return TRZ_CODEC_UNSUPPORTED;
    unsigned mb = v >= DR_VARIANT_MATCH_MB ? rcd_direct(&c, 0, 0, 8) : v >= DR_VARIANT_MATCH ? dr_mb_default(a->nrec) : 0;
    if (v >= DR_VARIANT_MATCH_MB && (mb < DR_MB_MIN || mb > DR_MB_MAX)) return TRZ_CODEC_CORRUPT;
    dr_model *m = dr_model_new(a->nrec, mb);
    if (!m) return TRZ_CODEC_NOMEM;
    m->know = a->know;
    int rc = dr_code_dec(m, &c, a->out, (size_t)a->nrec);
    dr_model_free(m);
    if (rc == -2) return TRZ_CODEC_NOMEM;
    if (rc || !rc_dec_ok(&c)) return TRZ_CODEC_CORRUPT;
    return TRZ_CODEC_OK;
}

static const char *dr_stream_name(unsigned id) { return id == S_MODEL ? "model" : NULL; }

/* For listings: "range" (variants 0 and 1), "range-match" (2 to 5, with
 * the match model), from stream 0's first 8 direct bits. */
static const char *dr_variant(const size_t *len, const uint8_t (*head)[TRZ_VARIANT_HEAD])
{
    if (!len[S_MODEL]) return "-";
    rc c;
    rc_dec_init(&c, head[S_MODEL], len[S_MODEL] < TRZ_VARIANT_HEAD ? len[S_MODEL] : TRZ_VARIANT_HEAD);
    unsigned v = rcd_direct(&c, 0, 0, 8);
    return v <= DR_VARIANT_KNOW ? "range" : v <= DR_VARIANT_MATCH_MB_KNOW ? "range-match" : "?";
}

const trz_codec trz_codec_drmemtrace = {
    .id = TRZ_CODEC_DRMEMTRACE,
    .name = "drmemtrace",
    .record_size = DR_REC,
    .description = "DynamoRIO drmemtrace offline traces, 12-byte records",
    .probe = dr_probe,
    .encode_chunk = dr_encode,
    .decode_chunk = dr_decode,
    .stream_name = dr_stream_name,
    .variant = dr_variant,
    .dump_record = dr_dump,
    .convert = dr_convert,
    .learn = dr_learn,
    .know_encode = dr_know_encode,
    .know_decode = dr_know_decode,
};

