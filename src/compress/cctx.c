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
    c->parity = 1;
    return c;
}

void trz_cctx_free(trz_cctx *c) { free(c); }

/* A refused setting: the message names it and what it takes. */
static int bad(trz_cctx *c, const char *name, int64_t v, const char *takes)
{
    snprintf(c->err, sizeof c->err, "%s: %lld is not %s", name, (long long)v, takes);
    return TRZ_ERR_PARAM;
}

int trz_cctx_set(trz_cctx *c, trz_cparam p, int64_t v)
{
    if (!c) return TRZ_ERR_PARAM;
    /* flags take 0 or 1 only: a typo's 2 or -1 is refused, not taken for "on" */
    int flag = v == 0 || v == 1;
    switch (p) {
    case TRZ_C_LEVEL:
        if (v < TRZ_LEVEL_MIN || v > TRZ_LEVEL_MAX) return bad(c, "TRZ_C_LEVEL", v, "a level of 1 to 19");
        c->level = (int)v;
        return TRZ_OK;
    case TRZ_C_THREADS:
        if (v < 0 || v > 256) return bad(c, "TRZ_C_THREADS", v, "0 (all cores) to 256");
        c->threads = v == 0 ? trz_ncpus() : (int)v;
        return TRZ_OK;
    case TRZ_C_BACKEND:
        if (v != TRZ_BACKEND_ZSTD && v != TRZ_BACKEND_GZIP)
            return bad(c, "TRZ_C_BACKEND", v, "TRZ_BACKEND_ZSTD (1) or TRZ_BACKEND_GZIP (2)");
        c->backend = (int)v;
        return TRZ_OK;
    case TRZ_C_CHUNK_BYTES:
        if (v < TRZ_MIN_CHUNK_RAW || v > TRZ_MAX_CHUNK_RAW) return bad(c, "TRZ_C_CHUNK_BYTES", v, "4 KiB to 256 MiB");
        c->chunk_bytes = (uint64_t)v;
        c->chunk_set = 1;
        return TRZ_OK;
    case TRZ_C_CHUNK_RECORDS:
        if (v < 0 || v > 0xffffffffLL) return bad(c, "TRZ_C_CHUNK_RECORDS", v, "0 (no cap) to 2^32-1");
        c->chunk_records = (uint64_t)v;
        return TRZ_OK;
    case TRZ_C_UNWRAP:
        if (v < 0 || v > 2) return bad(c, "TRZ_C_UNWRAP", v, "0, 1 or 2 (records only)");
        c->unwrap = (int)v;
        return TRZ_OK;
    case TRZ_C_VERIFY:
        if (!flag) return bad(c, "TRZ_C_VERIFY", v, "0 or 1");
        c->verify = (int)v;
        return TRZ_OK;
    case TRZ_C_RESTART_BYTES:
        if (v != 0 && (v < TRZ_MIN_CHUNK_RAW || v > TRZ_GROUP_MAX))
            return bad(c, "TRZ_C_RESTART_BYTES", v, "0 or 4 KiB to 1 GiB");
        c->restart_bytes = (uint64_t)v;
        c->restart_set = 1;
        return TRZ_OK;
    case TRZ_C_CHAIN:
        if (!flag) return bad(c, "TRZ_C_CHAIN", v, "0 or 1");
        c->chain = (int)v;
        return TRZ_OK;
    case TRZ_C_PARITY:
        if (!flag) return bad(c, "TRZ_C_PARITY", v, "0 or 1");
        c->parity = (int)v;
        return TRZ_OK;
    }
    snprintf(c->err, sizeof c->err, "unknown compression parameter %d", (int)p);
    return TRZ_ERR_PARAM;
}

int trz_cctx_set_format(trz_cctx *c, const char *name)
{
    if (!c) return TRZ_ERR_PARAM;
    if (!name) {
        snprintf(c->err, sizeof c->err, "the format name is NULL (\"auto\" chooses one)");
        return TRZ_ERR_PARAM;
    }
    if (strcmp(name, "auto") == 0) { c->forced = NULL; return TRZ_OK; }
    const trz_codec *k = trz_codec_by_name(name);
    if (!k) {
        snprintf(c->err, sizeof c->err, "unknown format '%.64s'", name);
        return TRZ_ERR_PARAM;
    }
    c->forced = k;
    return TRZ_OK;
}

int trz_cctx_set_progress(trz_cctx *c, trz_progress_fn fn, void *ctx)
{
    if (!c) return TRZ_ERR_PARAM;
    c->progress = fn;
    c->progress_ctx = ctx;
    return TRZ_OK;
}

/* After a compression: what it chose.  A NULL context has chosen nothing. */
const char *trz_cctx_format(const trz_cctx *c) { return !c ? NULL : c->chosen ? c->chosen->name : "raw"; }
int trz_cctx_byte_order(const trz_cctx *c) { return c ? c->byte_order : TRZ_ERR_PARAM; }
const char *trz_cctx_unwrapped(const trz_cctx *c) { return c ? trz_wrap_name(c->wrap) : NULL; }
const char *trz_cctx_detected(const trz_cctx *c, int *fits)
{
    if (fits) *fits = c ? c->forced_fits : 0;
    return c && c->detected ? c->detected->name : NULL;
}
uint64_t trz_cctx_group_bytes(const trz_cctx *c, int *chains)
{
    if (chains) *chains = 0;
    const trz_codec *k = c && c->chosen ? c->chosen : &trz_codec_raw;
    if (!c || !c->restart_bytes) return 0;
    /* a codec that chains carries its whole model, which holds what
     * knowledge would state: its members chain and carry no knowledge */
    if (k->chains && c->chain) {
        if (chains) *chains = 1;
        /* the codec's length at the default levels, where a seek decodes
         * from the group's start and should stay quick; the longest at the
         * strong ones; what the caller set, when it set one */
        uint64_t mine = c->level >= TRZ_CHAIN_LONG_LEVEL ? k->chain_long_bytes : k->chain_bytes;
        return c->restart_set || !mine ? c->restart_bytes : mine;
    }
    if (!k->learn) return 0;
    /* knowledge is carried over at most TRZ_KNOW_PERIOD: the store's bound */
    return c->restart_bytes < TRZ_KNOW_PERIOD ? c->restart_bytes : TRZ_KNOW_PERIOD;
}
const char *trz_cctx_error(const trz_cctx *c) { return c ? c->err : "out of memory"; }
const char *trz_cctx_warning(const trz_cctx *c) { return c ? c->warn : ""; }

const char *trz_container_suffix(const void *head, size_t n)
{
    return head ? trz_drfile_suffix(trz_drfile_kind(head, n)) : NULL;
}
