/* dr_fast.h - the drmemtrace codec's fast variant (dr_fast.c): its stream
 * ids, its model part and the entry points drmemtrace.c's variant table
 * calls (levels 1-3).  Spec: drmemtrace.md, "Fast variant". */
#ifndef TRZ_DR_FAST_H
#define TRZ_DR_FAST_H

#include "dr_int.h"

/* Stream ids (on disk: never renumber).  Stream 0 is the range-coded
 * variants' and absent here; the first byte of seq is the variant. */
enum { DRF_SEQ = 1, DRF_DIST, DRF_TYPE, DRF_PC, DRF_ADDR, DRF_VAL, DRF_ENC, DRF_NSTREAMS };

#define DRF_VARIANT 6      /* model variant, the first byte of seq */
#define DRF_VARIANT_KNOW 7 /* the same in a member that carries knowledge */
#define DRF_VARIANT_CHAIN 8   /* a chain's first chunk (drmemtrace.md, "Fast variant") */
#define DRF_VARIANT_CHAINED 9 /* a later chunk of a chain, from the model's state */

/* The variant's part of the model: its tables, cleared at a chunk that
 * stands alone or starts a chain, and a chain's window; drf_model_reset
 * ends its chain, drf_model_free accepts NULL. */
struct drf_model;
void drf_model_reset(struct drf_model *m);
void drf_model_free(struct drf_model *m);
int drf_encode(const trz_enc_args *a, struct drf_model **m);
int drf_decode(const trz_dec_args *a, struct drf_model **m);
const char *drf_stream_name(unsigned id);

#endif
