/* rst_v1.h - model variant 1 of the RST codec (rst_v1.c): its stream ids
 * and entry points, which rst.c's encode_chunk and decode_chunk call. */
#ifndef TRZ_RST_V1_H
#define TRZ_RST_V1_H
#include "../codec.h"

/* Variants 1 and later have one stream, range-coded, id 21 (variant 0 has
 * none by that id); its first 8 decisions are the variant number. */
enum { RST_S_RC = 21 };
/* Variant 2 is variant 1 in a member with knowledge (rst.md, "Knowledge"). */
enum { RST_V_KNOW = 2 };

int rst_rc_variant(const trz_dec_args *a);
int rst_v1_encode(const trz_enc_args *a);
int rst_v1_decode(const trz_dec_args *a);

/* The knowledge stream: trz_codec.know_encode and know_decode. */
int rst_know_encode(const trz_know *k, const trz_fact *f, size_t n, int level, trz_buf *out);
int rst_know_decode(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx);
#endif
