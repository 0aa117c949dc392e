/* cs_fast.h - the ChampSim codec's fast variant (cs_fast.c): its streams,
 * its model part and the entry points champsim.c's variant table calls (the
 * fast levels, cs_levels; chunks without stream 0). */
#ifndef TRZ_CS_FAST_H
#define TRZ_CS_FAST_H

#include "champsim_int.h"

/* Stream ids (on disk: never renumber).  Stream 0 is the range-coded
 * variants' and absent here; the first byte of seq is the variant. */
enum { CSF_SEQ = 1, CSF_DIST, CSF_IP, CSF_LEN, CSF_SIG, CSF_MEMC, CSF_MEMD, CSF_EXTRA, CSF_NSTREAMS };

#define CSF_VARIANT 2   /* model variant, the first byte of seq */
#define CSF_VARIANT_CHAIN 3   /* the same, a chain's first chunk (champsim.md, "Chains") */
#define CSF_VARIANT_CHAINED 4 /* a later chunk of a chain, from its model's state */

/* The byte form of the knowledge stream starts with this byte; the
 * range-coded form's first byte is 0 or 1 (its first 8 direct bits are the
 * knowledge variant 0). */
#define CSF_KNOW_BYTES 0x81

/* The variant's part of the model: *m, made for each chunk's record count
 * by csf_encode and csf_decode, given back by csf_model_free (accepts
 * NULL). */
struct csf_model;
void csf_model_free(struct csf_model *m);
int csf_encode(const trz_enc_args *a, const cs_layout *L, struct csf_model **m);
int csf_decode(const trz_dec_args *a, const cs_layout *L, struct csf_model **m);
const char *csf_stream_name(unsigned id);
int csf_know_encode(const trz_fact *f, size_t n, trz_buf *out, const cs_layout *L);
int csf_know_decode(const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx, const cs_layout *L);

#endif
