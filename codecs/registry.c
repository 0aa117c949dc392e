/* registry.c - the table of codecs.  Adding a format is one row here. */
#include "../include/trz.h"
#include "codec.h"

static const trz_codec *const codecs[] = {
    &trz_codec_raw,
    &trz_codec_rst,
    &trz_codec_byu,
    &trz_codec_pbus,
    &trz_codec_uop,
    &trz_codec_champsim,
    &trz_codec_champsim_cloudsuite,
    &trz_codec_drmemtrace,
};

const trz_codec *trz_codec_at(size_t i)
{
    return i < sizeof codecs / sizeof codecs[0] ? codecs[i] : NULL;
}

const trz_codec *trz_codec_by_id(unsigned id)
{
    for (size_t i = 0; trz_codec_at(i); i++)
        if (codecs[i]->id == id) return codecs[i];
    return NULL;
}

const trz_codec *trz_codec_by_name(const char *name)
{
    for (size_t i = 0; trz_codec_at(i); i++)
        if (strcmp(codecs[i]->name, name) == 0) return codecs[i];
    return NULL;
}

/* ---- running a chunk (codec.h, "the container's side") ------------------ */

int trz_model_create(const trz_codec *c, int level, int know, trz_model **m)
{
    *m = c->model_create ? c->model_create(level, know) : NULL;
    return c->model_create && !*m ? TRZ_CODEC_NOMEM : TRZ_CODEC_OK;
}

void trz_model_reset(const trz_codec *c, trz_model *m)
{
    if (m && c->model_reset) c->model_reset(m);
}

void trz_model_free(const trz_codec *c, trz_model *m)
{
    if (c->model_free) c->model_free(m);
}

void trz_model_share(const trz_codec *c, trz_model *dec, trz_model *enc)
{
    if (dec && enc && c->model_share) c->model_share(dec, enc);
}

int trz_codec_encode(const trz_codec *c, const trz_enc_args *a, trz_model *m)
{
    trz_model *own = NULL;
    if (!m) {
        int rc = trz_model_create(c, a->level, a->know != NULL, &own);
        if (rc != TRZ_CODEC_OK) return rc;
        m = own;
    }
    int rc = trz_variant_for_level(c, a->level)->encode(a, m);
    trz_model_free(c, own);
    return rc;
}

int trz_codec_variant_of(const trz_codec *c, const size_t *len, const uint8_t *const *head)
{
    int v = c->variant_of ? c->variant_of(len, head) : 0;
    return v >= 0 && (unsigned)v < c->nvariants ? v : -1;
}

int trz_codec_decode(const trz_codec *c, const trz_dec_args *a, trz_model *m)
{
    int v = trz_codec_variant_of(c, a->stream_len, a->stream);
    if (v < 0) return TRZ_CODEC_UNSUPPORTED;
    trz_model *own = NULL;
    if (!m) {
        int rc = trz_model_create(c, 0, a->know != NULL, &own);
        if (rc != TRZ_CODEC_OK) return rc;
        m = own;
    }
    int rc = c->variants[v].decode(a, m);
    trz_model_free(c, own);
    return rc;
}

const char *trz_codec_variant_name(const trz_codec *c, const size_t *len, const uint8_t (*head)[TRZ_VARIANT_HEAD])
{
    const uint8_t *hp[TRZ_MAX_STREAMS];
    for (unsigned i = 0; i < TRZ_MAX_STREAMS; i++) hp[i] = len[i] ? head[i] : NULL;
    int v = trz_codec_variant_of(c, len, hp);
    return v < 0 ? "?" : c->variants[v].name;
}

/* The public names of the table (trz.h). */
const char *trz_format_name(size_t i)
{
    const trz_codec *c = trz_codec_at(i);
    return c ? c->name : NULL;
}

const char *trz_format_description(size_t i)
{
    const trz_codec *c = trz_codec_at(i);
    return c ? c->description : NULL;
}
