/* rst_v1.h - model variant 1 of the RST codec (rst_v1.c): its stream ids,
 * its model part and the entry points rst_codec.c's variant table calls. */
#ifndef TRZ_RST_V1_H
#define TRZ_RST_V1_H
#include "../codec.h"

/* Variants 1 and later have one stream, range-coded, id 21 (variant 0 has
 * none by that id); its first 8 decisions are the variant number. */
enum { RST_S_RC = 21 };
/* Variant 2 is variant 1 in a member with knowledge (rst.md, "Knowledge"). */
enum { RST_V_KNOW = 2 };

/* The variant number a range-coded stream states (its first 8 decisions,
 * from its first bytes). */
int rst_rc_variant(const uint8_t *p, size_t n);

/* A chain's window (rst.md, "Chains"): the records before the chunk
 * (canonical) and their links, kept by the codec's model across resets of
 * variant 1's part.  The part reads and fills the window it was made with;
 * a self-check's decoder is made with its encoder's (rst_v1_lend). */
typedef struct rst_win {
    uint8_t *hist;  /* HW_RECS records, made at the first chained chunk */
    uint8_t *link;  /* per record of the window and the chunk (rst_v1_int.h) */
    size_t nlink;   /* records link was made for */
    int lent;       /* a decoder reads it too: it moves the bytes, the encoder its positions only */
} rst_win;
void rst_win_free(rst_win *w);

/* Variant 1's part of the model, for a member with knowledge or without,
 * on the window w; NULL if out of memory.  Its per-record table is sized
 * at each chunk. */
struct rst_v1_model *rst_v1_new(int know, rst_win *w);
void rst_v1_free(struct rst_v1_model *m);
int rst_v1_knows(const struct rst_v1_model *m);
int rst_v1_encode(const trz_enc_args *a, struct rst_v1_model *m);
int rst_v1_decode(const trz_dec_args *a, struct rst_v1_model *m);

/* The knowledge stream: trz_codec.know_encode and know_decode. */
int rst_know_encode(const trz_know *k, const trz_fact *f, size_t n, int level, trz_buf *out);
int rst_know_decode(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx);
#endif
