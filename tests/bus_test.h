/* bus_test.h - the harness shared by test_byu.c and test_pbus.c: counters,
 * a PRNG, encode/decode round trips through a codec, and damaged-stream
 * checks.  The includer defines TEST_BYTE_ORDER first. */
#include <glob.h>

#include "codec_args.h"
#include "corpus.h"

static int passed, failed;
static int level = 9;          /* level the chunks are encoded at */
static int cm_chunks, zs_chunks; /* chunks coded by each path (stream 15 = arithmetic) */
static int cm_mixed;             /* arithmetic chunks with mixed models (stream 15 starts with 8) */
static int cm_fast;              /* arithmetic chunks with the fast model (stream 15 starts with 7) */
static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (uint32_t)(rng >> 11);
}

static void check(int ok, const char *what)
{
    if (ok) passed++;
    else { failed++; printf("FAIL: %s\n", what); }
}

typedef struct enc_out {
    trz_buf s[TRZ_MAX_STREAMS];
    const uint8_t *sp[TRZ_MAX_STREAMS];
    size_t sl[TRZ_MAX_STREAMS];
} enc_out;

static void enc_free(enc_out *e)
{
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(e->s[i].p);
}

static int encode(const trz_codec *c, const uint8_t *in, size_t len, enc_out *e)
{
    memset(e, 0, sizeof *e);
    trz_enc_args ea = TEST_ENC_ARGS(in, len, len / c->record_size, TEST_BYTE_ORDER, level, e->s);
    int rc = trz_codec_encode(c, &ea, NULL);
    if (rc == TRZ_CODEC_OK) {
        if (e->s[15].n) cm_chunks++, cm_mixed += e->s[15].p[0] == 8, cm_fast += e->s[15].p[0] == 7;
        else zs_chunks++;
    }
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
        e->sp[i] = e->s[i].n ? e->s[i].p : NULL;
        e->sl[i] = e->s[i].n;
    }
    return rc;
}

static int decode(const trz_codec *c, const uint8_t *const *sp, const size_t *sl, uint8_t *out, size_t len)
{
    trz_dec_args da = { sp, sl, out, len, len / c->record_size, TEST_BYTE_ORDER, NULL, 0 };
    return trz_codec_decode(c, &da, NULL);
}

static int roundtrip(const trz_codec *c, const uint8_t *in, size_t len)
{
    enc_out e;
    int ok = encode(c, in, len, &e) == TRZ_CODEC_OK;
    uint8_t *out = malloc(len + 1);
    ok = ok && decode(c, e.sp, e.sl, out, len) == TRZ_CODEC_OK && memcmp(out, in, len) == 0;
    free(out);
    enc_free(&e);
    return ok;
}

/* Damaged streams: the decoder may fail or succeed, but must stay in bounds
 * (ASan checks that) and terminate. */
static void damage(const trz_codec *c, const uint8_t *in, size_t len)
{
    enc_out e;
    if (encode(c, in, len, &e) != TRZ_CODEC_OK) { check(0, "encode for damage"); return; }
    uint8_t *out = malloc(len + 2 * c->record_size);
    const uint8_t *sp[TRZ_MAX_STREAMS];
    size_t sl[TRZ_MAX_STREAMS];
    int errors = 0, trials = 0;
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
        if (!e.sl[i]) continue;
        size_t cuts[3] = { 0, e.sl[i] / 2, e.sl[i] - 1 };
        for (int k = 0; k < 3; k++) {
            memcpy(sp, e.sp, sizeof sp); memcpy(sl, e.sl, sizeof sl);
            sl[i] = cuts[k];
            if (!cuts[k]) sp[i] = NULL;
            trials++;
            errors += decode(c, sp, sl, out, len) != TRZ_CODEC_OK;
        }
        uint8_t *cp = malloc(e.sl[i]);
        for (int k = 0; k < 20; k++) {
            memcpy(cp, e.sp[i], e.sl[i]);
            for (int f = 0; f < 1 + k % 3; f++) cp[rnd() % e.sl[i]] ^= (uint8_t)(1 + rnd() % 255);
            memcpy(sp, e.sp, sizeof sp); memcpy(sl, e.sl, sizeof sl);
            sp[i] = cp;
            decode(c, sp, sl, out, len);
        }
        for (int k = 0; k < 5; k++) {
            for (size_t j = 0; j < e.sl[i]; j++) cp[j] = (uint8_t)rnd();
            memcpy(sp, e.sp, sizeof sp); memcpy(sl, e.sl, sizeof sl);
            sp[i] = cp;
            decode(c, sp, sl, out, len);
        }
        free(cp);
    }
    /* wrong record counts */
    if (len >= c->record_size) {
        trials++;
        errors += decode(c, e.sp, e.sl, out, len - c->record_size) != TRZ_CODEC_OK;
    }
    trials++;
    errors += decode(c, e.sp, e.sl, out, len + c->record_size) != TRZ_CODEC_OK;
    check(errors == trials, "truncated streams and wrong nrec are reported");
    /* all streams random */
    uint8_t junk[64][64];
    for (int k = 0; k < 200; k++) {
        for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
            sl[i] = i < 16 ? rnd() % 64 : 0;
            for (size_t j = 0; j < sl[i]; j++) junk[i][j] = (uint8_t)rnd();
            sp[i] = sl[i] ? junk[i] : NULL;
        }
        decode(c, sp, sl, out, len < 1200 ? len : 1200);
    }
    check(1, "random streams do not crash");
    free(out);
    enc_free(&e);
}

/* A variant byte of the arithmetic path that this version does not know
 * (5: an earlier mixed model; 255) is reported as unsupported, not as
 * damage; a known one still decodes. */
static void variant_check(const trz_codec *c, const uint8_t *in, size_t len)
{
    enc_out e;
    int ok = encode(c, in, len, &e) == TRZ_CODEC_OK && e.sl[15] > 0;
    check(ok, "the arithmetic path codes this input");
    uint8_t *out = malloc(len + 1), *cp = ok ? malloc(e.sl[15]) : NULL;
    if (ok && out && cp) {
        const uint8_t *sp[TRZ_MAX_STREAMS];
        memcpy(sp, e.sp, sizeof sp);
        memcpy(cp, e.sp[15], e.sl[15]);
        sp[15] = cp;
        check(decode(c, sp, e.sl, out, len) == TRZ_CODEC_OK && memcmp(out, in, len) == 0, "variant byte as written");
        static const uint8_t other[] = { 5, 255, 0 };
        for (size_t k = 0; k < sizeof other; k++) {
            cp[0] = other[k];
            check(decode(c, sp, e.sl, out, len) == TRZ_CODEC_UNSUPPORTED, "an unknown model variant is unsupported");
        }
    }
    free(cp);
    free(out);
    enc_free(&e);
}

/* Every trace of this codec's folder of the shared corpus: the probe claims
 * it and test_data round-trips it; the probe rejects the other formats'
 * uncompressed traces. */
static void bus_corpus(const trz_codec *c, const char *folder,
                       void (*test_data)(const trz_codec *, const uint8_t *, size_t, const char *))
{
    char pat[4096];
    glob_t g;
    snprintf(pat, sizeof pat, "%s/%s/*", corpus_dir(), folder);
    if (glob(pat, 0, NULL, &g) != 0) { printf("corpus %s absent, skipped\n", pat); return; }
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *p = g.gl_pathv[i];
        size_t n = 0;
        uint8_t *d = corpus_load(p, &n);
        if (!d) { check(0, p); continue; }
        int bo;
        check(c->probe(d, n, &bo) >= 50, p);
        test_data(c, d, n, p);
        printf("corpus %s: %zu bytes round-tripped\n", p, n);
        free(d);
    }
    globfree(&g);
    snprintf(pat, sizeof pat, "%s/*/*", corpus_dir());
    if (glob(pat, 0, NULL, &g) != 0) return;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *p = g.gl_pathv[i];
        size_t pl = strlen(p), fl = strlen(folder);
        if (pl > 3 && strcmp(p + pl - 3, ".xz") == 0) continue;  /* plain files are enough */
        if (pl > 3 && strcmp(p + pl - 3, ".md") == 0) continue;
        const char *slash = strrchr(p, '/');
        if (slash && (size_t)(slash - p) >= fl && !strncmp(slash - fl, folder, fl) && slash[-fl - 1] == '/') continue;
        FILE *f = fopen(p, "rb");
        if (!f) continue;
        static uint8_t buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        int bo;
        char what[4200];
        snprintf(what, sizeof what, "probe rejects %s", p);
        check(c->probe(buf, n, &bo) < 30, what);
    }
    globfree(&g);
}

/* The generated cases at each kind of level: 1 the stream path only, 6 and
 * 9 (the default) the fast arithmetic path, 12 and 19 the mixed one. */
static void bus_levels(const trz_codec *c, void (*gen)(const trz_codec *))
{
    level = 1;
    gen(c);
    check(cm_chunks == 0, "level 1 uses the stream path only");
    static const int fast_levels[] = { 6, 9 };
    for (int l = 0; l < 2; l++) {
        level = fast_levels[l];
        cm_chunks = zs_chunks = cm_mixed = cm_fast = 0;
        gen(c);
        printf("level %d: %d chunks arithmetic-coded, %d stream-coded\n", level, cm_chunks, zs_chunks);
        check(cm_chunks > 5, "levels 6 and 9 use the arithmetic path");
        check(cm_fast == cm_chunks, "levels 6 and 9 use the fast model");
    }
    static const int mixed_levels[] = { 12, 19 };
    for (int l = 0; l < 2; l++) {
        level = mixed_levels[l];
        cm_chunks = zs_chunks = cm_mixed = 0;
        gen(c);
        printf("level %d: %d chunks arithmetic-coded (%d mixed), %d stream-coded\n", level, cm_chunks, cm_mixed,
               zs_chunks);
        check(cm_mixed > 5 && cm_mixed == cm_chunks, "levels 12 and 19 use the mixed models");
    }
}

/* ---- chains (codec.h, "Chains") ---------------------------------------- */

/* The bytes an encoding's streams take after the back-end. */
static size_t enc_total(const enc_out *e)
{
    size_t n = 0;
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) n += test_packed_size(NULL, e->sp[i], e->sl[i], 3);
    return n;
}

/* Encode one chunk with model m (NULL: a model of its own), in a chain or
 * alone. */
static int chain_encode(const trz_codec *c, trz_model *m, const uint8_t *in, size_t len, int lv, int chain, enc_out *e)
{
    memset(e, 0, sizeof *e);
    trz_enc_args ea = TEST_ENC_ARGS(in, len, len / c->record_size, TEST_BYTE_ORDER, lv, e->s);
    ea.chain = chain;
    int rc = trz_codec_encode(c, &ea, m);
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
        e->sp[i] = e->s[i].n ? e->s[i].p : NULL;
        e->sl[i] = e->s[i].n;
    }
    return rc;
}

static int chain_decode(const trz_codec *c, trz_model *m, const uint8_t *const *sp, const size_t *sl, uint8_t *out,
                        size_t len)
{
    trz_dec_args da = { sp, sl, out, len, len / c->record_size, TEST_BYTE_ORDER, NULL, 1 };
    return trz_codec_decode(c, &da, m);
}

#define CHAIN_MAX 8

/* The k chunks of buf (len[i] bytes each, in order) coded in one chain at
 * levels 1, 9 and 19 (the lean, fast and mixed paths): one decoder model
 * decodes them in order, and again after a reset; a reset encoder model
 * writes the same streams again; chunk rep, a copy of chunk 0, costs less
 * than half of what it costs alone; chunk k - 1, a copy of an earlier one
 * that the mixed model codes, costs less than a tenth of it alone there
 * (the match model); a decoder that skips chunk 1, or gets it damaged,
 * decodes on without a fault (wrong bytes are fine: the container's
 * checksum catches them, and it drops such a chain). */
static void bus_chain(const trz_codec *c, const uint8_t *buf, const size_t *len, int k, int rep)
{
    static const int lvs[] = { 1, 9, 19 };
    size_t off[CHAIN_MAX + 1] = { 0 }, most = 0;
    for (int i = 0; i < k; i++) {
        off[i + 1] = off[i] + len[i];
        if (len[i] > most) most = len[i];
    }
    uint8_t *out = malloc(most + 1);
    for (size_t l = 0; l < sizeof lvs / sizeof lvs[0]; l++) {
        int lv = lvs[l];
        enc_out e[CHAIN_MAX], f;
        trz_model *me = NULL, *md = NULL, *mf = NULL;
        int ok = trz_model_create(c, lv, 0, &me) == TRZ_CODEC_OK && trz_model_create(c, 0, 0, &md) == TRZ_CODEC_OK &&
                 trz_model_create(c, 0, 0, &mf) == TRZ_CODEC_OK;
        check(ok, "chain: models made");
        if (!ok) return;
        int enc = 1, dec = 1, again = 1, same = 1;
        for (int i = 0; i < k; i++) enc &= chain_encode(c, me, buf + off[i], len[i], lv, 1, &e[i]) == TRZ_CODEC_OK;
        for (int i = 0; i < k; i++)
            dec &= chain_decode(c, md, e[i].sp, e[i].sl, out, len[i]) == TRZ_CODEC_OK &&
                   memcmp(out, buf + off[i], len[i]) == 0;
        trz_model_reset(c, md);
        for (int i = 0; i < k; i++)
            again &= chain_decode(c, md, e[i].sp, e[i].sl, out, len[i]) == TRZ_CODEC_OK &&
                     memcmp(out, buf + off[i], len[i]) == 0;
        trz_model_reset(c, me);
        for (int i = 0; i < k; i++) {
            same &= chain_encode(c, me, buf + off[i], len[i], lv, 1, &f) == TRZ_CODEC_OK;
            for (int s = 0; s < TRZ_MAX_STREAMS; s++)
                same &= f.sl[s] == e[i].sl[s] && (!f.sl[s] || memcmp(f.sp[s], e[i].sp[s], f.sl[s]) == 0);
            enc_free(&f);
        }
        char what[128];
        snprintf(what, sizeof what, "level %d: a chain encodes", lv);
        check(enc, what);
        snprintf(what, sizeof what, "level %d: a chain decodes chunk by chunk", lv);
        check(dec, what);
        snprintf(what, sizeof what, "level %d: a reset decoder model decodes the chain again", lv);
        check(again, what);
        snprintf(what, sizeof what, "level %d: a reset encoder model codes the chain as a fresh one", lv);
        check(same, what);
        size_t chained = enc_total(&e[rep]), alone = 0;
        if (chain_encode(c, NULL, buf + off[rep], len[rep], lv, 0, &f) == TRZ_CODEC_OK) alone = enc_total(&f);
        enc_free(&f);
        printf("level %d: a repeated chunk takes %zu bytes chained, %zu alone\n", lv, chained, alone);
        snprintf(what, sizeof what, "level %d: a chunk repeated in a chain costs less than half of it alone", lv);
        check(2 * chained < alone, what);
        if (lv == 19) {
            int mixed = e[k - 1].sl[15] && e[k - 1].sp[15][0] == 8;
            chained = enc_total(&e[k - 1]);
            alone = 0;
            if (chain_encode(c, NULL, buf + off[k - 1], len[k - 1], lv, 0, &f) == TRZ_CODEC_OK) alone = enc_total(&f);
            enc_free(&f);
            printf("level %d: a repeated mixed chunk takes %zu bytes chained, %zu alone\n", lv, chained, alone);
            check(mixed && 10 * chained < alone, "level 19: a repeated chunk is mixed and the match model finds it");
        }
        /* chunk 1 skipped, then damaged: no fault (ASan), whatever the result */
        for (int i = 2; i < k; i++) chain_decode(c, mf, e[i].sp, e[i].sl, out, len[i]);
        trz_model_reset(c, mf);
        chain_decode(c, mf, e[0].sp, e[0].sl, out, len[0]);
        for (int s = 0; s < TRZ_MAX_STREAMS; s++) {
            if (!e[1].sl[s]) continue;
            uint8_t *cp = malloc(e[1].sl[s]);
            memcpy(cp, e[1].sp[s], e[1].sl[s]);
            for (int j = 0; j < 3; j++) cp[rnd() % e[1].sl[s]] ^= (uint8_t)(1 + rnd() % 255);
            const uint8_t *sp[TRZ_MAX_STREAMS];
            memcpy(sp, e[1].sp, sizeof sp);
            sp[s] = cp;
            chain_decode(c, mf, sp, e[1].sl, out, len[1]);
            free(cp);
        }
        for (int i = 2; i < k; i++) chain_decode(c, mf, e[i].sp, e[i].sl, out, len[i]);
        check(1, "a chain decoded with a chunk skipped or damaged does not crash");
        for (int i = 0; i < k; i++) enc_free(&e[i]);
        trz_model_free(c, me);
        trz_model_free(c, md);
        trz_model_free(c, mf);
    }
    free(out);
}
