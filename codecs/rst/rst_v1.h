/* rst_v1.h - model variant 1 of the RST codec (rst_v1.c): its stream ids
 * and entry points, which rst.c's encode_chunk and decode_chunk call. */
#ifndef TRZ_RST_V1_H
#define TRZ_RST_V1_H
#include "../codec.h"

/* Streams of variant 1 (ids 17 and 18 keep variant 0's meaning). */
enum { RST_S_TEXT = 17, RST_S_UNK = 18, RST_S_VARIANT = 21, RST_S_RC = 22 };

int rst_v1_encode(const trz_enc_args *a);
int rst_v1_decode(const trz_dec_args *a);
#endif
