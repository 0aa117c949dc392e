/* uop_cm.h - the uop codec's context-model variant (uop_cm.c), called by
 * uop.c, which keeps the stream ids, the header and the escapes. */
#ifndef TRZ_UOP_CM_H
#define TRZ_UOP_CM_H

#include "uop_fmt.h"
#include "uop_block.h"

/* Stream ids shared by both variants (0..12 are the zstd variant's). */
enum {
    UOP_S_HDR = 0, UOP_S_ESC = 1,
    UOP_S_CMVER = 13,  /* 1 byte: the context model's version; its presence selects it */
    UOP_S_CMCTL = 14,  /* range-coded: flow, static checks, branch outcomes, targets */
    UOP_S_CMSTAT = 15, /* range-coded: fields of instructions seen for the first time */
    UOP_S_CMADDR = 16, /* range-coded: memory addresses */
    UOP_S_ALL = 17
};
#define UOP_CM_VERSION 1      /* a chunk of a member without knowledge */
#define UOP_CM_VERSION_KNOW 2 /* one with knowledge (uop.md, "Knowledge") */
#define UOP_CM_VERSION_CHAIN 3 /* a chunk of a chain (uop.md, "Chains") */

/* The context model's state (uop_cm.c), part of the codec's model: made at
 * its first chunk, its tables kept from chunk to chunk where they fit. */
typedef struct uop_cm uop_cm;
void uop_cm_free(uop_cm *m); /* accepts NULL */

/* Encode the chunk's lines with the context model *m (made here at the
 * first chunk); streams 0, 1, 13..16.  go_on: code from the state *m holds
 * (the chain's so far) instead of setting it up for this chunk.  line:
 * UOP_MAX_LINE bytes of scratch. */
int uop_cm_encode(const trz_enc_args *a, uop_cm **m, int go_on, uint8_t *line, uint64_t nlines, const layout_t *lay);

/* Decode: hdr has been read up to nlines and nesc; esc is stream 1. */
int uop_cm_decode(const trz_dec_args *a, uop_cm **m, int go_on, uint8_t *line, trz_rd *hdr, trz_rd *esc,
                  const layout_t *lay, uint64_t nlines, uint64_t nesc);

/* Carried knowledge (uop.md, "Knowledge"): trz_codec.learn and
 * know_decode; uop_cm_know_encode writes the range-coded form (uop.c's
 * know_encode picks the form by the level). */
int uop_cm_learn(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, int byte_order, trz_know_add_fn add,
                 void *ctx);
int uop_cm_know_encode(const trz_know *k, const trz_fact *f, size_t n, trz_buf *out);
int uop_cm_know_decode(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx);
/* The byte form the fast levels write (uop_kbytes.c); know_decode takes
 * either form by the stream's first byte. */
int uop_know_bytes_encode(const trz_know *k, const trz_fact *f, size_t n, trz_buf *out);
int uop_know_bytes_decode(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx);

#endif
