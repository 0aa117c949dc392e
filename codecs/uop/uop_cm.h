/* uop_cm.h - the uop codec's context-model variant (uop_cm.c), called by
 * uop.c, which keeps the stream ids, the header and the escapes. */
#ifndef TRZ_UOP_CM_H
#define TRZ_UOP_CM_H

#include "uop_fmt.h"

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
/* Levels from here write the context-model variant; below it the zstd
 * variant, which decodes about 40% faster at about 1.7x the size. */
#define UOP_CM_LEVEL 6

/* Encode the chunk's lines with the context model; streams 0, 1, 13..16. */
int uop_cm_encode(const trz_enc_args *a, uint64_t nlines, const layout_t *lay);

/* Decode: hdr has been read up to nlines and nesc; esc is stream 1. */
int uop_cm_decode(const trz_dec_args *a, trz_rd *hdr, trz_rd *esc, const layout_t *lay, uint64_t nlines,
                  uint64_t nesc);

/* Carried knowledge (uop.md, "Knowledge"): trz_codec.learn, know_encode
 * and know_decode. */
int uop_cm_learn(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, int byte_order, trz_know_add_fn add,
                 void *ctx);
int uop_cm_know_encode(const trz_know *k, const trz_fact *f, size_t n, int level, trz_buf *out);
int uop_cm_know_decode(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx);
/* The byte form the fast levels write (uop_kbytes.c); know_decode takes
 * either form by the stream's first byte. */
int uop_know_bytes_encode(const trz_know *k, const trz_fact *f, size_t n, trz_buf *out);
int uop_know_bytes_decode(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx);

#endif
