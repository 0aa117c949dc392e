/* test_champsim.c - tests of the ChampSim codec (64-byte input_instr and
 * 96-byte cloudsuite_instr): round trips of generated programs of every
 * profile and of records no tracer writes (all zero, every slot used,
 * non-zero padding, register ids above 63, is_branch 7, addresses after an
 * empty slot, random bytes), chunks of 0 and 1 records, damaged streams
 * (an error or a different result, never a crash), the probe, dump and
 * byte-order conversion, a partial last record through the container, and
 * the traces of the shared corpus when it is present. */
#include "../codecs/champsim/champsim_int.h"
#include "../codecs/champsim/cs_fast.h"
#include "../codecs/common/rc.h"
#include "champsim_gen.h"
#include "codec_args.h"
#include "corpus.h"
#include "fuzz/fuzz_common.h"
#include <glob.h>

#define UNIT_RNG_SEED 0x2545F4914F6CDD1Dull
#include "unit.h"

/* The level of the encodings: the fast levels (fast_level) write the fast
 * variant (byte streams 1-8), the others the range-coded one (stream 0). */
static int level = 9;
static int fast_level(int l) { return trz_variant_for_level(&trz_codec_champsim, l)->id == CSF_VARIANT; }

static int encode(const trz_codec *c, const uint8_t *in, size_t len, streams *st, uint64_t *coded)
{
    memset(st, 0, sizeof *st);
    trz_enc_args ea = TEST_ENC_ARGS(in, len, len / c->record_size, TRZ_BO_LITTLE, level, st->s);
    ea.coded = coded;
    return trz_codec_encode(c, &ea, NULL);
}

static int decode_with(const trz_codec *c, const uint8_t *const *sp, const size_t *sl, uint8_t *out, size_t len,
                       uint64_t nrec)
{
    trz_dec_args da = { sp, sl, out, len, nrec, TRZ_BO_LITTLE, NULL, 0 };
    return trz_codec_decode(c, &da, NULL);
}

/* A damaged stream set must decode to an error or to other bytes, and must
 * not crash (ASan watches the reads: every stream is a copy of exact size). */
static int damaged_ok(const trz_codec *c, const uint8_t *const *sp, const size_t *sl, uint8_t *out, size_t len,
                      uint64_t nrec, const uint8_t *orig)
{
    int rc = decode_with(c, sp, sl, out, len, nrec);
    return rc != TRZ_CODEC_OK || memcmp(out, orig, len) != 0;
}

/* Encode, decode and compare; with `damage`, also damaged variants. */
static int round_trip(const trz_codec *c, const uint8_t *in, size_t len, int damage)
{
    size_t rs = c->record_size;
    streams st;
    uint64_t coded = 0;
    if (encode(c, in, len, &st, &coded) != TRZ_CODEC_OK) { free_streams(&st); return 0; }
    const uint8_t *sp[TRZ_MAX_STREAMS];
    size_t sl[TRZ_MAX_STREAMS];
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) { sp[i] = st.s[i].n ? st.s[i].p : NULL; sl[i] = st.s[i].n; }
    uint8_t *out = malloc(len + 2 * rs);
    int ok = decode_with(c, sp, sl, out, len, len / rs) == TRZ_CODEC_OK && memcmp(out, in, len) == 0;
    /* the one range-coded stream is marked for storing; the fast
     * variant's byte streams are left to the back-end */
    int fast = fast_level(level);
    ok &= !len ? coded == 0 && !sl[0] : fast ? coded == 0 && !sl[0] && sl[CSF_SEQ] : coded == 1 && sl[0] && !sl[1];
    if (damage && len) {
        /* a record count that disagrees with the size */
        ok &= decode_with(c, sp, sl, out, len, len / rs + 1) != TRZ_CODEC_OK;
        /* one record less or more than the streams hold: range-coded
         * streams may well decode to something (the chunk's checksum is the
         * container's check); here they must not crash */
        (void)decode_with(c, sp, sl, out, len - rs, len / rs - 1);
        (void)decode_with(c, sp, sl, out, len + rs, len / rs + 1);
        for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
            if (!sl[i]) continue;
            size_t keep = sl[i];
            const uint8_t *orig = sp[i];
            uint8_t *cp = malloc(keep + 1);
            memcpy(cp, orig, keep);
            sp[i] = cp;
            if (keep >= 16) {
                sl[i] = keep / 2; /* half of it: an error, or other bytes */
                ok &= damaged_ok(c, sp, sl, out, len, len / rs, in);
            }
            for (size_t cut = 1; cut <= 2 && cut <= keep; cut++) { /* the end cut off, or longer: no crash */
                sl[i] = keep - cut;
                (void)decode_with(c, sp, sl, out, len, len / rs);
            }
            cp[keep] = 0x5a;
            sl[i] = keep + 1;
            (void)decode_with(c, sp, sl, out, len, len / rs);
            sl[i] = keep;
            for (int k = 0; k < 6; k++) { /* flipped bytes: must not crash */
                memcpy(cp, orig, keep);
                cp[rnd() % keep] ^= (uint8_t)(1 + rnd() % 255);
                (void)decode_with(c, sp, sl, out, len, len / rs);
            }
            sp[i] = orig;
            free(cp);
        }
        /* a stream naming another model variant (its first byte, or 8 bits) */
        if (fast) {
            uint8_t *q = malloc(sl[CSF_SEQ]);
            memcpy(q, sp[CSF_SEQ], sl[CSF_SEQ]);
            q[0] = 7;
            const uint8_t *h = sp[CSF_SEQ];
            sp[CSF_SEQ] = q;
            ok &= decode_with(c, sp, sl, out, len, len / rs) == TRZ_CODEC_UNSUPPORTED;
            sp[CSF_SEQ] = h;
            free(q);
        } else {
            trz_buf vb = { 0 };
            rc v;
            rc_enc_init(&v, &vb);
            rc_direct(&v, 7, 8);
            rc_enc_flush(&v);
            const uint8_t *h = sp[0];
            size_t hl = sl[0];
            sp[0] = vb.p;
            sl[0] = vb.n;
            ok &= decode_with(c, sp, sl, out, len, len / rs) == TRZ_CODEC_UNSUPPORTED;
            sp[0] = h;
            sl[0] = hl;
            free(vb.p);
        }
        /* a stream the codec never writes */
        uint8_t x = 1;
        sp[40] = &x;
        sl[40] = 1;
        ok &= decode_with(c, sp, sl, out, len, len / rs) != TRZ_CODEC_OK;
        sp[40] = NULL;
        sl[40] = 0;
        /* random streams */
        for (int k = 0; k < 6; k++) {
            uint8_t *junk[TRZ_MAX_STREAMS] = { 0 };
            size_t jl[TRZ_MAX_STREAMS] = { 0 };
            for (int i = 0; i < CSF_NSTREAMS; i++) {
                jl[i] = (i == 0) != fast ? rnd() % (len / 8 + 64) : 0;
                junk[i] = malloc(jl[i] + 1);
                for (size_t j = 0; j < jl[i]; j++) junk[i][j] = (uint8_t)(k < 2 ? rnd() % 4 : rnd());
                /* the variant's bits start 0, its byte is CSF_VARIANT: reach the models */
                if (jl[i] && (i == 0 || i == CSF_SEQ)) junk[i][0] = i == 0 ? 0 : CSF_VARIANT;
            }
            (void)decode_with(c, (const uint8_t *const *)junk, jl, out, len, len / rs);
            for (int i = 0; i < CSF_NSTREAMS; i++) free(junk[i]);
        }
    }
    free(out);
    free_streams(&st);
    return ok;
}

/* Records as a tracer writes them, from every generated program. */
static void test_generated(void)
{
    for (int rs = 64; rs <= 96; rs += 32) {
        const trz_codec *c = rs == 64 ? &trz_codec_champsim : &trz_codec_champsim_cloudsuite;
        for (int p = 0; p < CSG_NPROFILE; p++) {
            csg g;
            csg_run(&g, p, rs, 6000, 0x1234 + (uint64_t)p);
            char what[96];
            snprintf(what, sizeof what, "generated profile %d, %d-byte records", p, rs);
            check(round_trip(c, g.p, g.n, p == 0), "%s", what);
            int bo = 0;
            snprintf(what, sizeof what, "probe: profile %d, %d-byte records", p, rs);
            check(c->probe(g.p, g.n, &bo) >= 90 && bo == TRZ_BO_LITTLE, "%s", what);
            const trz_codec *o = rs == 64 ? &trz_codec_champsim_cloudsuite : &trz_codec_champsim;
            snprintf(what, sizeof what, "probe: profile %d, %d-byte records are not the other size", p, rs);
            check(o->probe(g.p, g.n, &bo) == 0, "%s", what);
            if (p == 0) { /* halves of unequal sizes: the range variants' tables differ */
                size_t h = g.n / rs / 3 * rs;
                snprintf(what, sizeof what, "a model reset between chunks codes as a fresh one, %d-byte records", rs);
                check(test_model_reuse(c, g.p, h, g.p + h, g.n - h, level, TRZ_BO_LITTLE) &&
                          test_model_reuse(c, g.p + h, g.n - h, g.p, h, level, TRZ_BO_LITTLE) &&
                          test_model_reuse(c, g.p, h, g.p + h, h, level, TRZ_BO_LITTLE),
                      "%s", what);
            }
            free(g.p);
        }
    }
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Records no tracer writes: everything must still come back. */
static void test_odd_records(const trz_codec *c)
{
    size_t rs = c->record_size, n = 3000, len = n * rs;
    uint8_t *b = calloc(n, rs);
    char what[128];
#define CASE(name, dmg) \
    do { \
        snprintf(what, sizeof what, "%s (%zu-byte records)", name, rs); \
        check(round_trip(c, b, len, dmg), "%s", what); \
    } while (0)
    CASE("all-zero records", 1);
    /* every slot used, registers above 63, is_branch 7, branch_taken 5 */
    csg g;
    csg_run(&g, CSG_MIX, (int)rs, n, 99);
    memcpy(b, g.p, len);
    free(g.p);
    for (size_t i = 0; i < n; i++) {
        uint8_t *r = b + i * rs;
        if (i % 3 == 0)
            for (unsigned k = 16; k < rs; k += 8) put64(r + k, trz_ld_le64(r) + 64 * (rnd() % 8));
        if (i % 5 == 0) r[10] = (uint8_t)(64 + rnd() % 192), r[12] = 255;
        if (i % 7 == 0) r[8] = 7;
        if (i % 11 == 0) r[9] = 5;
    }
    CASE("every slot used, register ids above 63, is_branch 7, branch_taken 5", 1);
    /* addresses after an empty slot */
    for (size_t i = 0; i < n; i++) {
        uint8_t *r = b + i * rs;
        unsigned smem = rs == 64 ? 32 : 56;
        memset(r + smem, 0, 32);
        put64(r + smem + 16 + 8 * (i % 2), 0x7f0000000000ull + 8 * (i % 97));
    }
    CASE("addresses in slots after an empty one", 1);
    /* non-zero padding and asid (96-byte form); other bytes elsewhere */
    for (size_t i = 0; i < n; i++) {
        uint8_t *r = b + i * rs;
        if (rs == 96) {
            if (i % 4 == 0) r[18 + i % 6] = (uint8_t)rnd();
            if (i % 9 == 0) r[88] = (uint8_t)rnd(), r[89] = (uint8_t)rnd();
            if (i % 13 == 0) r[90 + i % 6] = 0xff;
        }
    }
    CASE("non-zero padding and asid", 0);
    /* the same instruction changing its registers and slots */
    for (size_t i = 0; i < n; i++) {
        uint8_t *r = b + i * rs;
        put64(r, 0x401000 + 4 * (i % 5));
        r[10 + i % 2] = (uint8_t)(i % 30);
    }
    CASE("one PC whose static fields change", 0);
    /* random bytes */
    for (size_t i = 0; i < len; i++) b[i] = (uint8_t)rnd();
    CASE("random records", 1);
    /* random records with plausible ips: every branch kind, any outcome */
    for (size_t i = 0; i < n; i++) {
        uint8_t *r = b + i * rs;
        memset(r, 0, rs);
        put64(r, 0x401000 + rnd() % 64);
        r[8] = (uint8_t)(rnd() % 2);
        r[9] = (uint8_t)(rnd() % 2);
        static const uint8_t regs[] = { 0, 6, 25, 26, 3, 10 };
        for (unsigned k = 10; k < 18; k++) r[k] = regs[rnd() % 6];
    }
    CASE("random branch kinds and outcomes", 1);
    /* one record, and none */
    check(round_trip(c, b, rs, 1), "a chunk of one record");
    check(round_trip(c, b, 0, 0), "a chunk of no records");
    /* the same record repeated: long matches */
    for (size_t i = 1; i < n; i++) memcpy(b + i * rs, b, rs);
    CASE("one record repeated", 0);
    /* calls 200 deep, then the returns (the return stack holds 64) */
    for (size_t i = 0; i < n; i++) {
        uint8_t *r = b + i * rs;
        memset(r, 0, rs);
        size_t d = i % 400, depth = d < 200 ? d : 399 - d;
        put64(r, 0x500000 + (d < 200 ? 16 * depth : 16 * depth + 8));
        r[8] = r[9] = 1;
        uint8_t *dr = r + 10, *sr = r + (rs == 64 ? 12 : 14);
        dr[0] = 26, dr[1] = 6, sr[0] = 6;
        if (d < 200) sr[1] = 26; /* call reads IP, return does not */
    }
    CASE("calls 200 deep and their returns", 0);
#undef CASE
    free(b);
}

/* Streams of junk for a chunk of generated records: decoding returns. */
static void test_junk_streams(const trz_codec *c)
{
    size_t rs = c->record_size, n = 500;
    uint8_t *out = malloc(n * rs);
    int returned = 1;
    static const size_t lens[] = { 0, 1, 2, 3, 4, 5, 17, 300, 4000 };
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (int mode = 0; mode < 3; mode++) {
            uint8_t *junk[TRZ_MAX_STREAMS] = { 0 };
            size_t jl[TRZ_MAX_STREAMS] = { 0 };
            jl[0] = lens[li];
            junk[0] = jl[0] ? malloc(jl[0]) : NULL; /* exact size: ASan sees any overread */
            for (size_t j = 0; j < jl[0]; j++) junk[0][j] = (uint8_t)(mode == 0 ? 0 : mode == 1 ? 0xff : rnd());
            if (jl[0] && mode) junk[0][0] = 0; /* the variant's bits start 0 */
            int rc = decode_with(c, (const uint8_t *const *)junk, jl, out, n * rs, n);
            returned &= rc == TRZ_CODEC_OK || rc == TRZ_CODEC_CORRUPT || rc == TRZ_CODEC_UNSUPPORTED;
            free(junk[0]);
        }
    check(returned, "junk streams of many lengths");
    free(out);
}

/* Junk in the fast variant's streams: decoding returns. */
static void test_junk_fast(const trz_codec *c)
{
    size_t rs = c->record_size, n = 500;
    uint8_t *out = malloc(n * rs);
    int returned = 1;
    for (int it = 0; it < 200; it++) {
        uint8_t *junk[TRZ_MAX_STREAMS] = { 0 };
        size_t jl[TRZ_MAX_STREAMS] = { 0 };
        for (int i = 1; i < CSF_NSTREAMS; i++) {
            jl[i] = rnd() % (it < 100 ? 8 : 600);
            junk[i] = jl[i] ? malloc(jl[i]) : NULL; /* exact size: ASan sees any overread */
            for (size_t j = 0; j < jl[i]; j++) junk[i][j] = (uint8_t)(it % 2 ? rnd() % 4 : rnd());
        }
        if (jl[CSF_SEQ]) junk[CSF_SEQ][0] = CSF_VARIANT;
        int rc = decode_with(c, (const uint8_t *const *)junk, jl, out, n * rs, n);
        returned &= rc == TRZ_CODEC_OK || rc == TRZ_CODEC_CORRUPT || rc == TRZ_CODEC_UNSUPPORTED;
        for (int i = 1; i < CSF_NSTREAMS; i++) free(junk[i]);
    }
    check(returned, "junk in the fast variant's streams");
    free(out);
}

/* The knowledge stream's byte form (the fast levels): the facts a program
 * teaches come back exactly; a cut stream is damage; flipped bytes are
 * taken or refused, never a crash. */
typedef struct kfacts {
    uint64_t key[60000];
    uint8_t val[60000][CS_FACT_T], len[60000];
    size_t n, at;
    int bad;
} kfacts;

static void kf_add(void *ctx, uint64_t key, const void *val, size_t len)
{
    kfacts *k = ctx;
    if (k->n < 60000) {
        k->key[k->n] = key;
        memcpy(k->val[k->n], val, len < CS_FACT_T ? len : CS_FACT_T);
        k->len[k->n++] = (uint8_t)len;
    }
}

/* a second decode compares with the first */
static void kf_check(void *ctx, uint64_t key, const void *val, size_t len)
{
    kfacts *k = ctx;
    if (k->at >= k->n || k->key[k->at] != key || k->len[k->at] != len || memcmp(k->val[k->at], val, len)) k->bad = 1;
    k->at++;
}

static int kf_cmp(const void *a, const void *b)
{
    const trz_fact *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

static void test_know_bytes(const trz_codec *c)
{
    size_t rs = c->record_size;
    csg g;
    csg_run(&g, CSG_HUGE, (int)rs, 20000, 31);
    kfacts *k = calloc(1, sizeof *k);
    int ok = c->learn(NULL, g.p, g.n, g.n / rs, TRZ_BO_LITTLE, kf_add, k) == TRZ_CODEC_OK && k->n > 100;
    trz_fact *f = malloc(k->n * sizeof *f);
    for (size_t i = 0; i < k->n; i++) f[i] = (trz_fact){ k->key[i], k->val[i], k->len[i] };
    qsort(f, k->n, sizeof *f, kf_cmp);
    trz_buf b = { 0 }, r = { 0 };
    ok = ok && c->know_encode(NULL, f, k->n, 1, &b) == TRZ_CODEC_OK && b.n && b.p[0] == CSF_KNOW_BYTES;
    ok = ok && c->know_encode(NULL, f, k->n, 9, &r) == TRZ_CODEC_OK && r.n && r.p[0] != CSF_KNOW_BYTES;
    check(ok, rs == 64 ? "fast levels state facts in bytes, the others range-coded" : "the same, 96-byte records");
    if (ok) {
        kfacts *d = calloc(1, sizeof *d);
        for (size_t i = 0; i < k->n; i++) { /* sorted, as the stream states them */
            d->key[i] = f[i].key;
            memcpy(d->val[i], f[i].val, f[i].len);
            d->len[i] = (uint8_t)f[i].len;
        }
        d->n = k->n;
        check(c->know_decode(NULL, b.p, b.n, kf_check, d) == TRZ_CODEC_OK && !d->bad && d->at == d->n,
              "the byte form gives back every fact");
        int cut_bad = 0;
        for (size_t cut = 0; cut < b.n; cut += 1 + cut / 5) {
            d->at = 0;
            uint8_t *q = malloc(cut + 1); /* exact size */
            memcpy(q, b.p, cut);
            if (c->know_decode(NULL, q, cut, kf_check, d) == TRZ_CODEC_OK) cut_bad++;
            free(q);
        }
        check(cut_bad == 0, "a cut byte-form knowledge stream is damage");
        uint8_t *q = malloc(b.n);
        for (int it = 0; it < 300; it++) {
            memcpy(q, b.p, b.n);
            q[1 + rnd() % (b.n - 1)] ^= (uint8_t)(1 + rnd() % 255);
            d->at = 0;
            (void)c->know_decode(NULL, q, b.n, kf_check, d); /* any result; ASan watches */
        }
        free(q);
        free(d);
    }
    free(b.p);
    free(r.p);
    free(f);
    free(k);
    free(g.p);
}

/* The probe leaves other formats alone. */
static void test_probe(void)
{
    int bo;
    uint8_t *b = malloc(1 << 16);
    for (size_t i = 0; i < 1 << 16; i++) b[i] = (uint8_t)rnd();
    check(trz_codec_champsim.probe(b, 1 << 16, &bo) == 0, "probe: random data");
    check(trz_codec_champsim_cloudsuite.probe(b, 1 << 16, &bo) == 0, "probe: random data (96)");
    memset(b, 0, 1 << 16);
    check(trz_codec_champsim.probe(b, 1 << 16, &bo) == 0, "probe: zeros");
    check(trz_codec_champsim_cloudsuite.probe(b, 1 << 16, &bo) == 0, "probe: zeros (96)");
    free(b);
    glob_t gl;
    if (glob("corpus/*", 0, NULL, &gl) == 0) {
        for (size_t i = 0; i < gl.gl_pathc; i++) {
            const char *p = gl.gl_pathv[i];
            if (strstr(p, ".champsimtrace") || strstr(p, ".md")) continue;
            size_t n;
            uint8_t *d = corpus_load(p, &n);
            if (!d) continue;
            if (n > (1u << 20)) n = 1u << 20;
            char what[300];
            snprintf(what, sizeof what, "probe leaves %s alone", p);
            check(trz_codec_champsim.probe(d, n, &bo) == 0 && trz_codec_champsim_cloudsuite.probe(d, n, &bo) == 0,
                  "%s", what);
            free(d);
        }
        globfree(&gl);
    }
}

/* dump: one line per instruction with the simulator's branch kind. */
static void test_dump(void)
{
    uint8_t r[96] = { 0 };
    put64(r, 0x401234);
    r[8] = 1;
    r[9] = 1;
    r[10] = 26;
    r[11] = 6;
    r[12] = 26;
    r[13] = 6;
    put64(r + 16, 0x7ffffffde000ull);
    char buf[512] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    trz_codec_champsim.dump_record(f, 7, r, TRZ_BO_LITTLE);
    fclose(f);
    int ok = strcmp(buf, "7 ip=0x401234 br=1 taken=1 call  dst=26,6 src=26,6,0,0 w0=0x7ffffffde000\n") == 0;
    check(ok, "dump of a call");
    if (!ok) printf("  got: %s", buf);
}

/* convert: the 64-bit fields change byte order, the bytes stay. */
static void test_convert(void)
{
    for (int rs = 64; rs <= 96; rs += 32) {
        const trz_codec *c = rs == 64 ? &trz_codec_champsim : &trz_codec_champsim_cloudsuite;
        csg g;
        csg_run(&g, CSG_MIX, rs, 100, 5);
        uint8_t *cp = malloc(g.n);
        memcpy(cp, g.p, g.n);
        c->convert(cp, g.n, TRZ_BO_LITTLE, TRZ_BO_BIG);
        int ok = trz_ld_be64(cp) == trz_ld_le64(g.p) && cp[8] == g.p[8] && cp[10] == g.p[10];
        unsigned sm = rs == 64 ? 32 : 56;
        ok &= trz_ld_be64(cp + rs + sm) == trz_ld_le64(g.p + rs + sm);
        if (rs == 96) ok &= cp[88] == g.p[88];
        c->convert(cp, g.n, TRZ_BO_BIG, TRZ_BO_LITTLE);
        ok &= memcmp(cp, g.p, g.n) == 0;
        check(ok, rs == 64 ? "convert, 64-byte records" : "convert, 96-byte records");
        free(cp);
        free(g.p);
    }
}

/* Through the container: a partial last record is stored raw; small
 * chunks; the archive decodes to the same bytes. */
static void test_container(void)
{
    for (int rs = 64; rs <= 96; rs += 32) {
        csg g;
        csg_run(&g, CSG_MIX, rs, 5000, 77);
        size_t n = g.n + 13;
        uint8_t *src = malloc(n);
        memcpy(src, g.p, g.n);
        memcpy(src + g.n, g.p, 13);
        for (int small = 0; small < 2; small++) {
            fz_cparams cp = { rs == 64 ? "champsim" : "champsim-cloudsuite", level, TRZ_BACKEND_ZSTD, 1, 1,
                              small ? 8192 : 16 << 20, 0 };
            fz_out arc = { 0 };
            char err[256] = "";
            int ok = fz_compress(&cp, src, n, &arc, err, sizeof err) == 0;
            trz_reader *r = NULL;
            ok = ok && trz_reader_open_mem(&r, arc.p, arc.n) == 0;
            fz_out dec = { 0 };
            ok = ok && fz_read_all(r, &dec, 0, NULL) == 0 && dec.n == n && memcmp(dec.p, src, n) == 0;
            trz_info in;
            ok = ok && trz_reader_info(r, &in) == 0 && in.records == (int64_t)(g.n / (size_t)rs);
            trz_reader_close(r);
            /* auto-detected */
            fz_out arc2 = { 0 };
            cp.format = NULL;
            ok = ok && fz_compress(&cp, src, n, &arc2, err, sizeof err) == 0 && arc2.n == arc.n;
            char what[128];
            snprintf(what, sizeof what, "container round trip with a 13-byte tail, %d-byte records, %s chunks", rs,
                     small ? "8 KiB" : "16 MiB");
            check(ok, "%s", what);
            if (!ok && err[0]) printf("  %s\n", err);
            /* damage in the payload: an error, never wrong bytes */
            if (arc.n > 200) {
                arc.p[arc.n / 2] ^= 0x10;
                r = NULL;
                fz_out d2 = { 0 };
                int rc = trz_reader_open_mem(&r, arc.p, arc.n);
                int64_t g2 = rc ? -1 : fz_read_all(r, &d2, 0, NULL);
                check(g2 != 0 || (d2.n == n && memcmp(d2.p, src, n) == 0), "a damaged archive reports an error");
                trz_reader_close(r);
                free(d2.p);
            }
            free(arc.p);
            free(arc2.p);
            free(dec.p);
        }
        free(src);
        free(g.p);
    }
}

/* The real traces of the shared corpus, chunk by chunk as the container
 * cuts them; skipped when the corpus is absent. */
static void test_corpus(void)
{
    char pat[4200];
    glob_t gl;
    if (glob(corpus_path(pat, sizeof pat, "champsim/*.champsimtrace.xz"), 0, NULL, &gl) != 0) {
        printf("shared ChampSim corpus not found (%s): skipped\n", pat);
        return;
    }
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        size_t n;
        uint8_t *d = corpus_load(gl.gl_pathv[i], &n);
        if (!d) { printf("cannot read %s: skipped\n", gl.gl_pathv[i]); continue; }
        int ok = n % 64 == 0, bo;
        ok &= trz_codec_champsim.probe(d, n < (1u << 20) ? n : (1u << 20), &bo) >= 90;
        size_t chunk = 16u << 20, end = fast_level(level) && n > 2 * chunk ? 2 * chunk : n; /* the fast variant: two chunks */
        for (size_t off = 0; ok && off < end; off += chunk) {
            size_t len = n - off < chunk ? n - off : chunk;
            ok &= round_trip(&trz_codec_champsim, d + off, len, off == chunk); /* damage one chunk */
        }
        char what[4300];
        snprintf(what, sizeof what, "corpus %s", gl.gl_pathv[i]);
        check(ok, "%s", what);
        free(d);
    }
    globfree(&gl);
}

/* ---- chains (codec.h, "Chains") ------------------------------------------ */

/* Code chunks n[0..k) of buf in one chain with model m (NULL: each alone,
 * a->chain 0) into st[0..k); their total size. */
static size_t chain_encode(const trz_codec *c, trz_model *m, const uint8_t *buf, const size_t *n, int k, streams *st,
                           int *ok)
{
    size_t rs = c->record_size, off = 0, total = 0;
    for (int j = 0; j < k; j++) {
        memset(&st[j], 0, sizeof st[j]);
        trz_enc_args ea = TEST_ENC_ARGS(buf + off, n[j], n[j] / rs, TRZ_BO_LITTLE, level, st[j].s);
        ea.chain = m != NULL;
        *ok &= trz_codec_encode(c, &ea, m) == TRZ_CODEC_OK;
        for (int i = 0; i < TRZ_MAX_STREAMS; i++) total += st[j].s[i].n;
        off += n[j];
    }
    return total;
}

/* Decode chunks from..k of a chain with decoder model d; 1 if each gives
 * its bytes back. */
static int chain_decode(const trz_codec *c, trz_model *d, const uint8_t *buf, const size_t *n, int from, int k,
                        streams *st)
{
    size_t rs = c->record_size, off = 0;
    int ok = 1;
    for (int j = 0; j < from; j++) off += n[j];
    uint8_t *out = malloc(64 << 10);
    for (int j = from; j < k; j++) {
        const uint8_t *sp[TRZ_MAX_STREAMS];
        size_t sl[TRZ_MAX_STREAMS];
        for (int i = 0; i < TRZ_MAX_STREAMS; i++) { sp[i] = st[j].s[i].n ? st[j].s[i].p : NULL; sl[i] = st[j].s[i].n; }
        trz_dec_args da = { sp, sl, out, n[j], n[j] / rs, TRZ_BO_LITTLE, NULL, 1 };
        ok &= trz_codec_decode(c, &da, d) == TRZ_CODEC_OK && memcmp(out, buf + off, n[j]) == 0;
        off += n[j];
    }
    free(out);
    return ok;
}

static int same_streams(const streams *a, const streams *b)
{
    for (int i = 0; i < TRZ_MAX_STREAMS; i++)
        if (a->s[i].n != b->s[i].n || (a->s[i].n && memcmp(a->s[i].p, b->s[i].p, a->s[i].n) != 0)) return 0;
    return 1;
}

/* One chain of chunks of different sizes and programs (one empty, one a
 * copy of the first): decoded in a chain by a fresh decoder model, and
 * again after a reset; encoded again after a reset, the same streams; the
 * copy far cheaper chained than alone; a chain decoded from its second
 * chunk (the first skipped) and damaged chunks in a chain never crash. */
static void test_chain(const trz_codec *c)
{
    size_t rs = c->record_size;
    enum { K = 6 };
    csg g[3];
    csg_run(&g[0], CSG_MIX, (int)rs, 600, 0x51);
    csg_run(&g[1], CSG_BRANCHY, (int)rs, 350, 0x52);
    csg_run(&g[2], CSG_POINTER, (int)rs, 123, 0x53);
    size_t n[K] = { g[0].n, g[1].n, 0, g[0].n, rs, g[2].n };
    size_t all = 0;
    for (int j = 0; j < K; j++) all += n[j];
    uint8_t *buf = malloc(all), *q = buf;
    memcpy(q, g[0].p, g[0].n), q += g[0].n;
    memcpy(q, g[1].p, g[1].n), q += g[1].n;
    memcpy(q, g[0].p, g[0].n), q += g[0].n;
    memcpy(q, g[2].p + 7 * rs, rs), q += rs; /* one record */
    memcpy(q, g[2].p, g[2].n);
    streams st[K], st2[K], alone[K];
    trz_model *m = NULL, *d = NULL;
    int ok = trz_model_create(c, level, 0, &m) == TRZ_CODEC_OK && trz_model_create(c, 0, 0, &d) == TRZ_CODEC_OK;
    char what[128];
    if (!ok) { check(0, "chain: models"); return; }
    chain_encode(c, m, buf, n, K, st, &ok);
    snprintf(what, sizeof what, "chain: encoded, %zu-byte records, level %d", rs, level);
    check(ok, "%s", what);
    snprintf(what, sizeof what, "chain: decoded by a fresh model, %zu-byte records, level %d", rs, level);
    check(chain_decode(c, d, buf, n, 0, K, st), "%s", what);
    trz_model_reset(c, d);
    snprintf(what, sizeof what, "chain: decoded again after a reset, %zu-byte records, level %d", rs, level);
    check(chain_decode(c, d, buf, n, 0, K, st), "%s", what);
    trz_model_reset(c, m);
    chain_encode(c, m, buf, n, K, st2, &ok);
    int same = ok;
    for (int j = 0; j < K; j++) same &= same_streams(&st[j], &st2[j]);
    snprintf(what, sizeof what, "chain: encoded again after a reset, the same, %zu-byte records, level %d", rs, level);
    check(same, "%s", what);
    size_t cost_alone = 0, cost_chain = 0;
    chain_encode(c, NULL, buf, n, K, alone, &ok);
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) cost_alone += alone[3].s[i].n, cost_chain += st[3].s[i].n;
    /* the fast variant's copies stay in their chunk; its entries chain
     * (champsim.md, "Chains") */
    snprintf(what, sizeof what, "chain: a repeated chunk costs %zu bytes chained, %zu alone, %zu-byte records, level %d",
             cost_chain, cost_alone, rs, level);
    check(fast_level(level) ? cost_chain < cost_alone : cost_chain * 5 < cost_alone, "%s", what);
    /* a chain from its second chunk, and damaged chunks: no crash */
    trz_model_reset(c, d);
    (void)chain_decode(c, d, buf, n, 1, K, st);
    for (int t = 0; t < 8; t++) {
        trz_model_reset(c, d);
        int j = (int)(rnd() % K);
        for (int i = 0; i < TRZ_MAX_STREAMS; i++)
            if (st[j].s[i].n) st[j].s[i].p[rnd() % st[j].s[i].n] ^= (uint8_t)(1 + rnd() % 255);
        (void)chain_decode(c, d, buf, n, 0, K, st);
    }
    for (int j = 0; j < K; j++) free_streams(&st[j]), free_streams(&st2[j]), free_streams(&alone[j]);
    trz_model_free(c, m);
    trz_model_free(c, d);
    for (int k = 0; k < 3; k++) free(g[k].p);
    free(buf);
}

int main(void)
{
    test_generated();
    test_odd_records(&trz_codec_champsim);
    test_odd_records(&trz_codec_champsim_cloudsuite);
    test_junk_streams(&trz_codec_champsim);
    test_junk_streams(&trz_codec_champsim_cloudsuite);
    test_probe();
    test_dump();
    test_convert();
    test_container();
    test_corpus();
    test_chain(&trz_codec_champsim);
    test_chain(&trz_codec_champsim_cloudsuite);
    level = 19;
    test_chain(&trz_codec_champsim);
    /* the fast variant */
    level = 1;
    printf("level %d\n", level);
    test_generated();
    test_odd_records(&trz_codec_champsim);
    test_odd_records(&trz_codec_champsim_cloudsuite);
    test_junk_fast(&trz_codec_champsim);
    test_junk_fast(&trz_codec_champsim_cloudsuite);
    test_know_bytes(&trz_codec_champsim);
    test_know_bytes(&trz_codec_champsim_cloudsuite);
    test_container();
    test_corpus();
    test_chain(&trz_codec_champsim);
    test_chain(&trz_codec_champsim_cloudsuite);
    level = 9;
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
