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
