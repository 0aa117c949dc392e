/* cctx.c - compression settings (trz_cctx): created with the defaults,
 * set parameter by parameter, and after a compression what it chose. */
#include <stdio.h>

#include "../wrap/drfile.h"
#include "../wrap/unwrap.h"
#include "cctx.h"
#include "../format/know.h"

trz_cctx *trz_cctx_create(void)
{
    trz_cctx *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->level = TRZ_LEVEL_DEFAULT;
    c->threads = 1;
    c->backend = TRZ_BACKEND_ZSTD;
    c->unwrap = 1;
    c->verify = 1;
    c->chunk_bytes = TRZ_DEFAULT_CHUNK_RAW;
    c->restart_bytes = TRZ_KNOW_PERIOD;
    c->chain = 1;
    return c;
}

void trz_cctx_free(trz_cctx *c) { free(c); }

int trz_cctx_set(trz_cctx *c, trz_cparam p, int64_t v)
{
    switch (p) {
    case TRZ_C_LEVEL:
        if (v < TRZ_LEVEL_MIN || v > TRZ_LEVEL_MAX) return TRZ_ERR_PARAM;
        c->level = (int)v;
        return TRZ_OK;
    case TRZ_C_THREADS:
        if (v < 0 || v > 256) return TRZ_ERR_PARAM;
        c->threads = v == 0 ? trz_ncpus() : (int)v;
        return TRZ_OK;
    case TRZ_C_BACKEND:
        if (v != TRZ_BACKEND_ZSTD && v != TRZ_BACKEND_GZIP) return TRZ_ERR_PARAM;
        c->backend = (int)v;
        return TRZ_OK;
    case TRZ_C_CHUNK_BYTES:
        if (v < TRZ_MIN_CHUNK_RAW || v > TRZ_MAX_CHUNK_RAW) return TRZ_ERR_PARAM;
        c->chunk_bytes = (uint64_t)v;
        return TRZ_OK;
    case TRZ_C_CHUNK_RECORDS:
        if (v < 0 || v > 0xffffffffLL) return TRZ_ERR_PARAM;
        c->chunk_records = (uint64_t)v;
        return TRZ_OK;
    case TRZ_C_UNWRAP:
        if (v < 0 || v > 2) return TRZ_ERR_PARAM;
        c->unwrap = (int)v;
        return TRZ_OK;
    case TRZ_C_VERIFY:
        c->verify = v != 0;
        return TRZ_OK;
    case TRZ_C_RESTART_BYTES:
        if (v != 0 && (v < TRZ_MIN_CHUNK_RAW || v > TRZ_GROUP_MAX)) return TRZ_ERR_PARAM;
        c->restart_bytes = (uint64_t)v;
        c->restart_set = 1;
        return TRZ_OK;
    case TRZ_C_CHAIN:
        c->chain = v != 0;
        return TRZ_OK;
    }
    return TRZ_ERR_PARAM;
}

int trz_cctx_set_format(trz_cctx *c, const char *name)
{
    if (!name || strcmp(name, "auto") == 0) { c->forced = NULL; return TRZ_OK; }
    const trz_codec *k = trz_codec_by_name(name);
    if (!k) return TRZ_ERR_PARAM;
    c->forced = k;
    return TRZ_OK;
}

void trz_cctx_set_progress(trz_cctx *c, trz_progress_fn fn, void *ctx)
{
    c->progress = fn;
    c->progress_ctx = ctx;
}

const char *trz_cctx_format(const trz_cctx *c) { return c->chosen ? c->chosen->name : "raw"; }
int trz_cctx_byte_order(const trz_cctx *c) { return c->byte_order; }
const char *trz_cctx_unwrapped(const trz_cctx *c) { return trz_wrap_name(c->wrap); }
const char *trz_cctx_detected(const trz_cctx *c, int *fits)
{
    if (fits) *fits = c->forced_fits;
    return c->detected ? c->detected->name : NULL;
}
const char *trz_cctx_error(const trz_cctx *c) { return c->err; }
const char *trz_cctx_warning(const trz_cctx *c) { return c->warn; }

const char *trz_container_suffix(const void *head, size_t n) { return trz_drfile_suffix(trz_drfile_kind(head, n)); }
