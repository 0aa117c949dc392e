/* cs_fast.h - the ChampSim codec's fast variant (cs_fast.c): its streams and
 * entry points, called by champsim.c for the levels up to CSF_MAX_LEVEL and
 * for chunks without stream 0. */
#ifndef TRZ_CS_FAST_H
#define TRZ_CS_FAST_H

#include "champsim_int.h"

/* Stream ids (on disk: never renumber).  Stream 0 is the range-coded
 * variants' and absent here; the first byte of seq is the variant. */
enum { CSF_SEQ = 1, CSF_DIST, CSF_IP, CSF_LEN, CSF_SIG, CSF_MEMC, CSF_MEMD, CSF_EXTRA, CSF_NSTREAMS };

#define CSF_VARIANT 2   /* model variant, the first byte of seq */
#define CSF_MAX_LEVEL 5 /* levels up to this write the fast variant */

/* The byte form of the knowledge stream starts with this byte; the
 * range-coded form's first byte is 0 or 1 (its first 8 direct bits are the
 * knowledge variant 0). */
#define CSF_KNOW_BYTES 0x81
#define CSF_KNOW_MAX (1u << 19) /* facts in one stream at most (the container's store limit) */

int csf_encode(const trz_enc_args *a, const cs_layout *L);
int csf_decode(const trz_dec_args *a, const cs_layout *L);
const char *csf_stream_name(unsigned id);
int csf_know_encode(const trz_fact *f, size_t n, trz_buf *out, const cs_layout *L);
int csf_know_decode(const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx, const cs_layout *L);

#endif
