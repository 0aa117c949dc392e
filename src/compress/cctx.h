/* cctx.h - the compression settings (trz_cctx, cctx.c), which the
 * writer and trz_compress read and in which they leave what they chose
 * and their messages: the bottom of the compress room. */
#ifndef TRZ_CCTX_H
#define TRZ_CCTX_H

#include "../format/format.h"

struct trz_cctx {
    int level, threads, backend, unwrap, verify;
    uint64_t chunk_bytes, chunk_records;
    uint64_t restart_bytes; /* 0: no carried knowledge, no chains */
    int chunk_set;          /* chunk_bytes was set: its codec's size does not apply */
    int restart_set;        /* restart_bytes was set: chains take it, not their codec's length */
    int chain;              /* chain the groups of codecs that can */
    int parity;             /* state parity sets (TRZ_C_PARITY) */
    const trz_codec *forced; /* NULL = auto */
    const trz_codec *chosen;
    const trz_codec *detected; /* what auto-detection picks */
    int forced_fits;           /* the forced codec's probe recognises the input */
    int byte_order, wrap;
    trz_progress_fn progress;
    void *progress_ctx;
    char err[256];
    char warn[320];         /* trz_cctx_warning */
};

#endif
