/* rst_v1_know.c - the RST codec's knowledge stream (trz_codec.know_encode
 * and know_decode; rst.md, "Knowledge"), coded with model variant 1's coder
 * of instruction words. */
#include "rst_v1_int.h"

/* ---- carried knowledge (rst.md, "Knowledge") ----------------------------------- */
/* The knowledge stream: the facts by increasing PC, range-coded; each PC as
 * its distance in words from the one before (mostly 1: the code of a
 * basic block), each word field by field with the record model's own
 * coder (iw_fields), its probabilities fresh as in a chunk. */
#define KNOW_VARIANT 0
typedef struct {
    rc_prob p_next[4];
    RC_INT(4) i_gap;
    RC_INT(1) i_n;
    RC_INT(1) i_first;
} kmodel;

static int know_code(const trz_fact *f, size_t n, trz_buf *out, const uint8_t *p, size_t plen, trz_know_add_fn add,
                     void *ctx, const int enc)
{
    rc c;
    if (enc) rc_enc_init(&c, out);
    else rc_dec_init(&c, p, plen);
    if (rcd_direct(&c, enc, KNOW_VARIANT, 8) != KNOW_VARIANT) return TRZ_CODEC_UNSUPPORTED;
    model1 *m = calloc(1, sizeof *m);
    kmodel *k = malloc(sizeof *k);
    if (!m || !k) { free(m); free(k); return TRZ_CODEC_NOMEM; }
    rst_v1_probs_init(m);
    sparc_cls_init(m->cls);
    rc_init((rc_prob *)k, sizeof *k / sizeof(rc_prob));
    int rcode = TRZ_CODEC_OK;
    uint64_t count = rcd_uint(&c, enc, k->i_n.len[0], k->i_n.bits, n - 1) + 1;
    if (!enc && (count == 0 || count > TRZ_KNOW_MAX_FACTS)) rcode = TRZ_CODEC_CORRUPT;
    uint64_t w = 0;              /* the PC in words */
    unsigned g1 = 0, pcls = 0; /* the last gap was 1 word; the class of the word before the last */
    uint32_t piw = 0;
    for (uint64_t i = 0; i < count && rcode == TRZ_CODEC_OK; i++) {
        uint64_t kw = enc ? f[i].key >> 2 : 0;
        if (i == 0) {
            w = rcd_uint(&c, enc, k->i_first.len[0], k->i_first.bits, kw);
        } else {
            /* after a taken CTI's delay slot the next word is often never run */
            unsigned x = g1 | ((TAKEN_MASK >> pcls) & 1) << 1;
            RSTAT(ST_KGAP);
            uint64_t g = kw - w;
            if (rcd_bit(&c, enc, &k->p_next[x], g != 1) == 0) {
                g = 1;
            } else {
                uint64_t u = rcd_uint(&c, enc, k->i_gap.len[x], k->i_gap.bits, g - 2);
                if (u > (UINT64_MAX >> 2) - 2) { rcode = TRZ_CODEC_CORRUPT; break; }
                g = u + 2;
            }
            if (g > (UINT64_MAX >> 2) - w) { rcode = TRZ_CODEC_CORRUPT; break; }
            g1 = g == 1;
            w += g;
        }
        if (w > UINT64_MAX >> 2) { rcode = TRZ_CODEC_CORRUPT; break; } /* a first PC past 2^64 */
        RSTAT(ST_KIW);
        uint32_t iw = enc ? rst_v1_iw_fields(m, &c, trz_ld_be32(f[i].val), 1) : rst_v1_iw_fields(m, &c, 0, 0);
        pcls = classify(m, piw);
        piw = iw;
        if (!enc) {
            if (rc_dec_bad(&c)) { rcode = TRZ_CODEC_CORRUPT; break; }
            uint8_t v[RST_FACT_IW];
            trz_st_be32(v, iw);
            add(ctx, w << 2, v, sizeof v);
        }
    }
    if (enc) {
        if (rc_enc_flush(&c)) rcode = TRZ_CODEC_NOMEM;
    } else if (rcode == TRZ_CODEC_OK && !rc_dec_ok(&c)) {
        rcode = TRZ_CODEC_CORRUPT;
    }
    free(m);
    free(k);
    return rcode;
}

int rst_know_encode(const trz_know *k, const trz_fact *f, size_t n, int level, trz_buf *out)
{
    (void)k, (void)level;
    if (n == 0 || n > TRZ_KNOW_MAX_FACTS) return TRZ_CODEC_UNSUPPORTED;
    for (size_t i = 0; i < n; i++) /* only facts learn states */
        if (f[i].len != RST_FACT_IW || (f[i].key & 3) || (i && f[i].key <= f[i - 1].key)) return TRZ_CODEC_UNSUPPORTED;
    return know_code(f, n, out, NULL, 0, NULL, NULL, 1);
}

int rst_know_decode(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx)
{
    (void)k;
    return know_code(NULL, 0, NULL, p, n, add, ctx, 0);
}
