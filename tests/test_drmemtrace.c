/* test_drmemtrace.c - tests of the drmemtrace codec: round trips of
 * generated traces of every profile (thread files of versions 7 and 4,
 * core-sharded files of many threads, large code, no encodings) and of
 * records no tracer writes (every record type, unknown types and marker
 * types, encodings with non-zero padding or lengths that disagree, random
 * bytes, one record), chunks cut anywhere, damaged streams (an error or
 * other bytes, never a crash), the probe against the other formats'
 * samples, dump and byte-order conversion, the container with a partial
 * last record, carried knowledge (facts learnt and stated in the codec's
 * layout, chunks coded against facts that are wrong or hostile, archives of
 * small chunks that carry knowledge: one archive for every thread count,
 * read back through the index, a pipe, threads and seeks), the fast variant
 * of levels 1-3 (all of the above that applies, its chains, junk streams,
 * archives for one and two threads), and the shared corpus's traces when
 * they are present. */
#include "../codecs/drmemtrace/dr_int.h"
#include "../codecs/drmemtrace/dr_fast.h"
#include "../src/format/know.h"
#include "../codecs/common/rc.h"
#include "codec_args.h"
#include "corpus.h"
#include "drmemtrace_gen.h"
#include "fuzz/fuzz_common.h"
#include <glob.h>

#define UNIT_RNG_SEED 0x9E3779B97F4A7C15ull
#include "unit.h"
#include "member_kind.h"

static const trz_codec *C = &trz_codec_drmemtrace;

static const trz_know *g_know; /* the knowledge round_trip codes with (NULL: none) */
static int g_level = 9;         /* the level round_trip codes at */

/* A level that writes the fast variant (its streams, no stream 0). */
static int fast_level(int level) { return level >= 1 && level <= 3; }

static int decode_with(const uint8_t *const *sp, const size_t *sl, uint8_t *out, size_t len, uint64_t nrec)
{
    trz_dec_args da = { sp, sl, out, len, nrec, TRZ_BO_LITTLE, g_know, 0 };
    return trz_codec_decode(C, &da, NULL);
}

/* Encode, decode and compare; with `damage`, damaged variants must give an
 * error or other bytes and must not crash (ASan watches: every stream is
 * a copy of exact size). */
static int round_trip(const uint8_t *in, size_t len, int damage, size_t *csize)
{
    streams st;
    memset(&st, 0, sizeof st);
    uint64_t coded = 0;
    trz_enc_args ea = TEST_ENC_ARGS(in, len, len / DR_REC, TRZ_BO_LITTLE, g_level, st.s);
    ea.coded = &coded;
    ea.know = g_know;
    if (trz_codec_encode(C, &ea, NULL) != TRZ_CODEC_OK) { free_streams(&st); return 0; }
    const uint8_t *sp[TRZ_MAX_STREAMS];
    size_t sl[TRZ_MAX_STREAMS];
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) { sp[i] = st.s[i].n ? st.s[i].p : NULL; sl[i] = st.s[i].n; }
    int fast = fast_level(g_level);
    if (csize) {
        *csize = 0;
        for (int i = 0; i < TRZ_MAX_STREAMS; i++) *csize += sl[i];
    }
    uint8_t *out = malloc(len + 2 * DR_REC);
    int ok = decode_with(sp, sl, out, len, len / DR_REC) == TRZ_CODEC_OK && memcmp(out, in, len) == 0;
    if (fast) {
        ok &= len ? coded == 0 && !sl[0] && sl[DRF_SEQ] && sp[DRF_SEQ][0] == (g_know ? DRF_VARIANT_KNOW : DRF_VARIANT)
                  : coded == 0 && !sl[DRF_SEQ];
        for (int i = DRF_NSTREAMS; i < TRZ_MAX_STREAMS; i++) ok &= !sl[i];
    } else {
        ok &= len ? coded == 1 && sl[0] && !sl[1] : coded == 0 && !sl[0];
    }
    if (damage && len && fast) {
        /* each stream the variant wrote cut, lengthened and flipped; its
         * variant byte another's */
        for (int ds = 1; ds < DRF_NSTREAMS; ds++) {
            size_t keep = sl[ds];
            if (!keep) continue;
            const uint8_t *orig = sp[ds];
            uint8_t *cp = malloc(keep + 1);
            memcpy(cp, orig, keep);
            sp[ds] = cp;
            sl[ds] = keep - 1;
            ok &= decode_with(sp, sl, out, len, len / DR_REC) != TRZ_CODEC_OK;
            sl[ds] = keep / 2;
            (void)decode_with(sp, sl, out, len, len / DR_REC);
            cp[keep] = 0x5a;
            sl[ds] = keep + 1;
            ok &= decode_with(sp, sl, out, len, len / DR_REC) != TRZ_CODEC_OK;
            sl[ds] = keep;
            for (int k = 0; k < 8; k++) {
                memcpy(cp, orig, keep);
                cp[rnd() % keep] ^= (uint8_t)(1 + rnd() % 255);
                (void)decode_with(sp, sl, out, len, len / DR_REC);
            }
            memcpy(cp, orig, keep);
            if (ds == DRF_SEQ) {
                static const uint8_t other[] = { 5, 8, 9, 10, 255 };
                for (size_t k = 0; k < sizeof other; k++) {
                    cp[0] = other[k];
                    ok &= decode_with(sp, sl, out, len, len / DR_REC) != TRZ_CODEC_OK;
                }
                cp[0] = g_know ? DRF_VARIANT : DRF_VARIANT_KNOW;
                ok &= decode_with(sp, sl, out, len, len / DR_REC) == TRZ_CODEC_UNSUPPORTED;
            }
            sp[ds] = orig;
            free(cp);
        }
        ok &= decode_with(sp, sl, out, len, len / DR_REC + 1) != TRZ_CODEC_OK;
        (void)decode_with(sp, sl, out, len - DR_REC, len / DR_REC - 1);
        /* stream 0 beside them, and a stream the codec never writes */
        uint8_t x = 1;
        for (int k = 0; k < 2; k++) {
            int at = k ? 40 : 0;
            sp[at] = &x;
            sl[at] = 1;
            ok &= decode_with(sp, sl, out, len, len / DR_REC) != TRZ_CODEC_OK;
            sp[at] = NULL;
            sl[at] = 0;
        }
    }
    if (damage && len && !fast) {
        ok &= decode_with(sp, sl, out, len, len / DR_REC + 1) != TRZ_CODEC_OK;
        (void)decode_with(sp, sl, out, len - DR_REC, len / DR_REC - 1);
        (void)decode_with(sp, sl, out, len + DR_REC, len / DR_REC + 1);
        size_t keep = sl[0];
        const uint8_t *orig = sp[0];
        uint8_t *cp = malloc(keep + 1);
        memcpy(cp, orig, keep);
        sp[0] = cp;
        if (keep >= 16) {
            sl[0] = keep / 2;
            int rc = decode_with(sp, sl, out, len, len / DR_REC);
            ok &= rc != TRZ_CODEC_OK || memcmp(out, in, len) != 0;
        }
        for (size_t cut = 1; cut <= 2 && cut <= keep; cut++) {
            sl[0] = keep - cut;
            (void)decode_with(sp, sl, out, len, len / DR_REC);
        }
        cp[keep] = 0x5a;
        sl[0] = keep + 1;
        (void)decode_with(sp, sl, out, len, len / DR_REC);
        sl[0] = keep;
        for (int k = 0; k < 8; k++) {
            memcpy(cp, orig, keep);
            cp[rnd() % keep] ^= (uint8_t)(1 + rnd() % 255);
            (void)decode_with(sp, sl, out, len, len / DR_REC);
        }
        sp[0] = orig;
        free(cp);
        /* another model variant */
        trz_buf vb = { 0 };
        rc v;
        rc_enc_init(&v, &vb);
        rc_direct(&v, 7, 8);
        rc_enc_flush(&v);
        sp[0] = vb.p;
        sl[0] = vb.n;
        ok &= decode_with(sp, sl, out, len, len / DR_REC) == TRZ_CODEC_UNSUPPORTED;
        sp[0] = orig;
        sl[0] = keep;
        free(vb.p);
        /* a stream the codec never writes */
        uint8_t x = 1;
        sp[40] = &x;
        sl[40] = 1;
        ok &= decode_with(sp, sl, out, len, len / DR_REC) != TRZ_CODEC_OK;
        sp[40] = NULL;
        sl[40] = 0;
    }
    free(out);
    free_streams(&st);
    return ok;
}

/* The generator's profiles, as the checks name them. */
static const char *const names[DRG_NPROFILE] = { "thread file v7", "version 4", "core-sharded", "large code",
                                                 "no encodings" };

static void test_generated(void)
{
    for (int p = 0; p < DRG_NPROFILE; p++) {
        drg g;
        drg_run(&g, p, 600000, 0x1234 + (uint64_t)p);
        size_t cs = 0;
        char what[128];
        snprintf(what, sizeof what, "generated %s (%zu records)", names[p], g.n / DR_REC);
        check(round_trip(g.p, g.n, p == 0, &cs), "%s", what);
        /* the models should find the generated program's regularity */
        unsigned bound = p == DRG_BIG ? 5 : 2; /* random encoding bytes for each new PC */
        snprintf(what, sizeof what, "generated %s: %zu bytes, under %u bits a record", names[p], cs, bound);
        check(cs * 8 < bound * (g.n / DR_REC), "%s", what);
        int bo;
        snprintf(what, sizeof what, "probe: generated %s", names[p]);
        check(C->probe(g.p, g.n, &bo) >= 90 && bo == TRZ_BO_LITTLE, "%s", what);
        /* chunks cut anywhere: every piece decodes on its own */
        size_t n = g.n / DR_REC, ok = 1;
        for (int k = 0; k < 6; k++) {
            size_t a = rnd() % n, b = a + 1 + rnd() % (n - a);
            ok &= round_trip(g.p + a * DR_REC, (b - a) * DR_REC, k == 0, NULL);
        }
        snprintf(what, sizeof what, "generated %s cut at random records", names[p]);
        check(ok, "%s", what);
        free(g.p);
    }
}

/* The match model: a piece repeated inside one chunk costs little more
 * than the piece, for every kind of trace the generator makes (threads
 * interleaved, version 4, no encodings). */
static void test_repeats(void)
{
    for (int p = 0; p < DRG_NPROFILE; p++) {
        drg g;
        drg_run(&g, p, 400000, 0x777 + (uint64_t)p);
        size_t n = g.n / DR_REC * DR_REC, one = 0, six = 0;
        uint8_t *r = malloc(6 * n);
        for (int k = 0; k < 6; k++) memcpy(r + (size_t)k * n, g.p, n);
        char what[160];
        snprintf(what, sizeof what, "generated %s repeated six times: exact", names[p]);
        check(round_trip(g.p, n, 0, &one) && round_trip(r, 6 * n, p == 2, &six), "%s", what);
        snprintf(what, sizeof what, "generated %s repeated six times: %zu bytes, the piece %zu", names[p], six, one);
        check(six * 10 <= one * 13, "%s", what);
        free(r);
        free(g.p);
    }
}

static void rec(uint8_t *p, unsigned t, unsigned sz, uint64_t a)
{
    trz_st_le16(p, (uint16_t)t);
    trz_st_le16(p + 2, (uint16_t)sz);
    trz_st_le64(p + 4, a);
}

/* Records no tracer writes: every byte must still come back. */
static void test_odd_records(void)
{
    size_t n = 4000, len = n * DR_REC;
    uint8_t *b = calloc(n, DR_REC);
    drg g;
    drg_run(&g, DRG_THREAD, len, 99);
    if (g.n < len) len = g.n - g.n % DR_REC, n = len / DR_REC;
#define CASE(name) check(round_trip(b, len, 1, NULL), name)
    memset(b, 0, len);
    CASE("all-zero records (READ of size 0 at 0)");
    for (size_t i = 0; i < n; i++) rec(b + i * DR_REC, (unsigned)(i % 70), (unsigned)(i * 7 % 9), i * 0x1001);
    CASE("every record type and more, in turn");
    for (size_t i = 0; i < n; i++) rec(b + i * DR_REC, 28, (unsigned)(i % 300), rnd() % 5);
    CASE("markers of every type, user types too");
    memcpy(b, g.p, len);
    for (size_t i = 0; i < n; i++) {
        uint8_t *r = b + i * DR_REC;
        unsigned t = trz_ld_le16(r);
        if (t == DR_ENCODING && i % 3 == 0) r[11] = 0x5a;               /* non-zero padding */
        if (t == DR_ENCODING && i % 5 == 1) trz_st_le16(r + 2, 3);      /* a length that disagrees */
        if (dr_is_instr(t) && i % 7 == 0) trz_st_le16(r + 2, 300);      /* an instruction of 300 bytes */
        if (dr_is_mem(t) && i % 11 == 0) trz_st_le16(r, 55);            /* an unknown type */
        if (i % 13 == 0) trz_st_le16(r, (uint16_t)(DR_TAKEN + i % 2)); /* outcomes anywhere */
    }
    CASE("encodings with padding and wrong lengths, unknown types, odd lengths");
    for (size_t i = 0; i < len; i++) b[i] = (uint8_t)rnd();
    CASE("random bytes");
    for (size_t i = 0; i < n; i++) rec(b + i * DR_REC, (unsigned)(rnd() % 4 ? 10 + rnd() % 7 : rnd() % 2), 1 + (unsigned)(rnd() % 15), 0x401000 + rnd() % 256);
    CASE("random instructions and accesses");
    /* 32-bit-build records: 8 bytes (type, size, 4-byte addr) read as 12 */
    for (size_t i = 0; i < len / 8; i++) {
        uint8_t *r = b + i * 8;
        trz_st_le16(r, (uint16_t)(i % 3 ? 10 : 0));
        trz_st_le16(r + 2, 4);
        trz_st_le32(r + 4, (uint32_t)(0x8048000 + 4 * i));
    }
    CASE("8-byte records of a 32-bit build");
    /* one instruction repeated: rep string iterations */
    for (size_t i = 0; i < n; i++)
        rec(b + i * DR_REC, i % 2 ? 0 : i ? DR_NOFETCH : DR_INSTR, i % 2 ? 8 : 2, i % 2 ? 0x7000 + 4 * i : 0x401000);
    CASE("a rep instruction's iterations");
    /* calls 100 deep, then the returns (the return stack holds 32) */
    for (size_t i = 0; i < n; i++) {
        size_t d = i % 200, depth = d < 100 ? d : 199 - d;
        rec(b + i * DR_REC, d < 100 ? DR_DCALL : DR_RET, d < 100 ? 5 : 1, 0x500000 + 16 * depth + (d < 100 ? 0 : 5));
    }
    CASE("calls 100 deep and their returns");
    check(round_trip(b, DR_REC, 1, NULL), "a chunk of one record");
    check(round_trip(b, 0, 0, NULL), "a chunk of no records");
    for (size_t i = 1; i < n; i++) memcpy(b + i * DR_REC, b, DR_REC);
    CASE("one record repeated");
#undef CASE
    free(g.p);
    free(b);
}

/* Junk streams of many lengths: decoding returns. */
static void test_junk_streams(void)
{
    size_t n = 500;
    uint8_t *out = malloc(n * DR_REC);
    int returned = 1;
    static const size_t lens[] = { 0, 1, 2, 3, 4, 5, 17, 300, 4000 };
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (int mode = 0; mode < 3; mode++) {
            uint8_t *junk[TRZ_MAX_STREAMS] = { 0 };
            size_t jl[TRZ_MAX_STREAMS] = { 0 };
            jl[0] = lens[li];
            junk[0] = jl[0] ? malloc(jl[0]) : NULL;
            for (size_t j = 0; j < jl[0]; j++) junk[0][j] = (uint8_t)(mode == 0 ? 0 : mode == 1 ? 0xff : rnd());
            if (jl[0] && mode) junk[0][0] = 0;
            int rc = decode_with((const uint8_t *const *)junk, jl, out, n * DR_REC, n);
            returned &= rc == TRZ_CODEC_OK || rc == TRZ_CODEC_CORRUPT || rc == TRZ_CODEC_UNSUPPORTED;
            free(junk[0]);
        }
    check(returned, "junk streams of many lengths");
    free(out);
}

/* The probe takes bare record streams and leaves the other formats alone;
 * the other codecs' probes leave drmemtrace alone. */
static void test_probe(void)
{
    int bo;
    uint8_t *b = malloc(1 << 16);
    for (size_t i = 0; i < 1 << 16; i++) b[i] = (uint8_t)rnd();
    check(C->probe(b, 1 << 16, &bo) == 0, "probe: random data");
    memset(b, 0, 1 << 16);
    check(C->probe(b, 1 << 16, &bo) == 0, "probe: zeros");
    rec(b, DR_HEADER, 0, 99);
    rec(b + 12, DR_MARKER, 12, 99);
    check(C->probe(b, 1 << 16, &bo) == 0, "probe: version 99");
    rec(b, DR_HEADER, 0, 1);
    rec(b + 12, DR_THREAD, 4, 1234);
    check(C->probe(b, 24, &bo) >= 90, "probe: a version-1 header");
    free(b);
    glob_t gl;
    if (glob("corpus/*", 0, NULL, &gl) == 0) {
        for (size_t i = 0; i < gl.gl_pathc; i++) {
            const char *p = gl.gl_pathv[i];
            if (strstr(p, ".md")) continue;
            size_t n;
            uint8_t *d = corpus_load(p, &n);
            if (!d) continue;
            if (n > (1u << 20)) n = 1u << 20;
            int mine = strstr(p, ".drmemtrace") != NULL;
            char what[300];
            snprintf(what, sizeof what, mine ? "probe takes %s" : "probe leaves %s alone", p);
            check(mine ? C->probe(d, n, &bo) >= 90 : C->probe(d, n, &bo) == 0, "%s", what);
            if (mine)
                for (size_t k = 0; trz_codec_at(k); k++) {
                    const trz_codec *o = trz_codec_at(k);
                    if (o == C || !o->probe) continue;
                    snprintf(what, sizeof what, "%s's probe leaves %s alone", o->name, p);
                    check(o->probe(d, n, &bo) < 90, "%s", what);
                }
            free(d);
        }
        globfree(&gl);
    }
}

static void test_dump_convert(void)
{
    uint8_t r[4 * DR_REC];
    rec(r, DR_TAKEN, 6, 0x7f87daf7ecd3ull);
    rec(r + 12, DR_MARKER, DRM_TIMESTAMP, 0x2f8ed8dc8507c3ull);
    rec(r + 24, DR_ENCODING, 2, 0x7a77);
    rec(r + 36, DR_READ, 8, 0x7f87daff1218ull);
    char buf[512] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    for (int k = 0; k < 4; k++) C->dump_record(f, (uint64_t)k, r + k * DR_REC, TRZ_BO_LITTLE);
    fclose(f);
    const char *want = "0 taken_jump 6 byte(s) @ 0x00007f87daf7ecd3\n"
                       "1 <marker: timestamp 0x2f8ed8dc8507c3>\n"
                       "2 encoding 2 byte(s): 77 7a 00 00 00 00 00 00\n"
                       "3 read 8 byte(s) @ 0x00007f87daff1218\n";
    check(strcmp(buf, want) == 0, "dump");
    if (strcmp(buf, want)) printf("  got:\n%s", buf);
    uint8_t cp[sizeof r];
    memcpy(cp, r, sizeof r);
    C->convert(cp, sizeof cp, TRZ_BO_LITTLE, TRZ_BO_BIG);
    int ok = trz_ld_be16(cp) == DR_TAKEN && trz_ld_be64(cp + 4) == 0x7f87daf7ecd3ull && cp[28] == 0x77;
    C->convert(cp, sizeof cp, TRZ_BO_BIG, TRZ_BO_LITTLE);
    check(ok && memcmp(cp, r, sizeof r) == 0, "convert: fields swap, encoding bytes stay");
}

/* Through the container: a partial last record, small chunks, auto-
 * detection, damage. */
static void test_container(void)
{
    drg g;
    drg_run(&g, DRG_CORE, 200000, 77);
    size_t n = g.n + 7;
    uint8_t *src = malloc(n);
    memcpy(src, g.p, g.n);
    memcpy(src + g.n, g.p, 7);
    for (int small = 0; small < 2; small++) {
        fz_cparams cp = { "drmemtrace", 9, TRZ_BACKEND_ZSTD, 1, 1, small ? 8192 : 16 << 20, 0 };
        fz_out arc = { 0 };
        char err[256] = "";
        int ok = fz_compress(&cp, src, n, &arc, err, sizeof err) == 0;
        trz_reader *r = NULL;
        ok = ok && trz_reader_open_mem(&r, arc.p, arc.n) == 0;
        fz_out dec = { 0 };
        ok = ok && fz_read_all(r, &dec, 0, NULL) == 0 && dec.n == n && memcmp(dec.p, src, n) == 0;
        trz_reader_close(r);
        fz_out arc2 = { 0 };
        cp.format = NULL;
        ok = ok && fz_compress(&cp, src, n, &arc2, err, sizeof err) == 0 && arc2.n == arc.n;
        check(ok, small ? "container round trip, 8 KiB chunks, a 7-byte tail, auto-detected"
                        : "container round trip, one chunk, a 7-byte tail, auto-detected");
        if (!ok && err[0]) printf("  %s\n", err);
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

/* ---- carried knowledge ---- */

/* The facts a trace teaches, learnt into s after what it holds, and their
 * knowledge stream into *ks.  Returns the number of new facts. */
static size_t learn_into(trz_kstore *s, const uint8_t *in, size_t len, trz_buf *ks)
{
    trz_kdelta d = { 0 };
    trz_kdelta_reset(&d, s);
    uint32_t n0 = trz_kstore_count(s);
    trz_know before = trz_kstore_view(s, n0);
    int rc = C->learn(&before, in, len, len / DR_REC, TRZ_BO_LITTLE, trz_kdelta_add, &d);
    size_t n = rc == TRZ_CODEC_OK ? d.n : 0;
    ks->n = 0;
    if (trz_kdelta_write(&d, C, before, 9, ks) != TRZ_OK) n = 0;
    trz_kdelta_free(&d);
    return n;
}

static void test_knowledge_codec(void)
{
    drg a, b;
    drg_run(&a, DRG_THREAD, 300000, 501);
    drg_run(&b, DRG_BIG, 300000, 502);
    /* learn, state in the codec's layout, apply to a fresh store: the same facts */
    trz_kstore *s = trz_kstore_create(), *t = trz_kstore_create();
    trz_buf ks = { 0 };
    size_t nf = learn_into(s, a.p, a.n, &ks);
    check(nf > 100 && ks.n > 1 && ks.p[0] == TRZ_KNOW_CODEC, "learn: facts by PC, stated in the codec's layout");
    int applied = trz_know_apply(t, C, ks.p, ks.n) == TRZ_OK && trz_kstore_count(t) == trz_kstore_count(s);
    trz_know vs = trz_kstore_view(s, trz_kstore_count(s)), vt = trz_kstore_view(t, trz_kstore_count(t));
    size_t bad = 0;
    for (size_t i = 0; i + DR_REC <= a.n; i += DR_REC) {
        unsigned ty = trz_ld_le16(a.p + i);
        if (!((ty >= 10 && ty <= 16) || (ty >= 29 && ty <= 31) || ty == 48 || ty == 49)) continue;
        size_t n1, n2;
        const uint8_t *f1 = trz_know_get(&vs, trz_ld_le64(a.p + i + 4), &n1), *f2 = trz_know_get(&vt, trz_ld_le64(a.p + i + 4), &n2);
        if (!f1 || !f2 || n1 != n2 || memcmp(f1, f2, n1) != 0) bad++;
    }
    check(applied && bad == 0, "the knowledge stream gives back every fact of every PC");
    size_t nf2 = learn_into(s, a.p, a.n, &ks);
    check(nf2 == 0 && ks.n == 0, "a trace the store knows teaches nothing new");
    /* chunks coded with their facts, with another trace's, with none */
    g_know = &vs;
    size_t with = 0, without = 0;
    check(round_trip(a.p, a.n, 1, &with), "a chunk coded with its own facts (damage: errors, no crash)");
    check(round_trip(b.p, b.n, 0, NULL), "a chunk coded with another program's facts");
    g_know = NULL;
    round_trip(a.p, a.n, 0, &without);
    char what[160];
    snprintf(what, sizeof what, "its facts known, a chunk's records cost less (%zu bytes, %zu without)", with, without);
    check(with < without, "%s", what);
    /* wrong facts: every field changed in turn, under a's PCs */
    trz_kstore *w = trz_kstore_create();
    trz_kdelta d = { 0 };
    trz_kdelta_reset(&d, w);
    int k = 0;
    for (size_t i = 0; i + DR_REC <= a.n; i += DR_REC) {
        unsigned ty = trz_ld_le16(a.p + i);
        uint64_t pc = trz_ld_le64(a.p + i + 4);
        size_t n;
        const uint8_t *f = trz_know_get(&vs, pc, &n);
        if (!f || (ty != 10 && ty != 48 && ty != 49 && ty != 14)) continue;
        uint8_t v[256];
        memcpy(v, f, n);
        switch (k++ % 7) {
        case 0: v[0] = v[0] == 10 ? 48 : 10; break;              /* another type */
        case 1: v[1]++; break;                                    /* another length */
        case 2: if (n > 5 && v[4]) v[5] ^= 0x21; break;           /* another encoding byte */
        case 3: if (v[3] && v[3] != 255 && n >= 8) v[n - 3] = 1 - (v[n - 3] & 1); break; /* a memory type */
        case 4: trz_st_le64(v + n, pc + 77); n += 8; break;      /* a target */
        case 5: v[3] = 255; n = 5 + v[4]; break;                  /* no pattern kept */
        default: break;
        }
        trz_kdelta_add(&d, pc, v, n);
    }
    trz_know vw = trz_kstore_view(w, trz_kstore_count(w));
    g_know = &vw;
    check(round_trip(a.p, a.n, 1, NULL), "facts that are wrong in every field: still exact");
    /* hostile facts: random values of every length under a's PCs */
    trz_kstore_clear(w);
    trz_kdelta_reset(&d, w);
    for (size_t i = 0; i + DR_REC <= a.n; i += DR_REC) {
        uint8_t v[256];
        size_t n = 1 + rnd() % 60;
        for (size_t j = 0; j < n; j++) v[j] = (uint8_t)rnd();
        if (rnd() % 2) v[0] = (uint8_t)(10 + rnd() % 7), v[3] = (uint8_t)(rnd() % 34), v[4] = (uint8_t)(rnd() % 16);
        trz_kdelta_add(&d, trz_ld_le64(a.p + i + 4), v, n);
    }
    vw = trz_kstore_view(w, trz_kstore_count(w));
    check(round_trip(a.p, a.n, 1, NULL), "hostile facts: exact, and damaged streams give errors, never a crash");
    g_know = NULL;
    /* hostile knowledge streams: cut, flipped, random */
    int cut_ok = 1;
    trz_kstore_clear(s);
    learn_into(s, a.p, a.n, &ks);
    for (size_t cut = 1; cut < ks.n; cut += 1 + cut / 5) {
        trz_kstore_clear(t);
        cut_ok &= trz_know_apply(t, C, ks.p, cut) != TRZ_OK;
    }
    check(cut_ok, "a cut knowledge stream is damage");
    /* a flipped byte may still decode (to other facts); random bytes
     * hardly ever do; every answer is a fact set, damage or a layout this
     * version does not know, and the intact stream applies as before
     * afterwards (ASan watches) */
    uint8_t *g = malloc(ks.n);
    int answers_ok = 1, random_bad = 0;
    for (int it = 0; it < 200; it++) {
        memcpy(g, ks.p, ks.n);
        g[1 + rnd() % (ks.n - 1)] ^= (uint8_t)(1 + rnd() % 255);
        trz_kstore_clear(t);
        int r = trz_know_apply(t, C, g, ks.n);
        answers_ok &= r == TRZ_OK || r == TRZ_ERR_CORRUPT || r == TRZ_ERR_UNSUPPORTED;
        for (size_t i = 1; i < ks.n && i < 80; i++) g[i] = (uint8_t)rnd();
        trz_kstore_clear(t);
        r = trz_know_apply(t, C, g, ks.n < 80 ? ks.n : 80);
        answers_ok &= r == TRZ_OK || r == TRZ_ERR_CORRUPT || r == TRZ_ERR_UNSUPPORTED;
        random_bad += r != TRZ_OK;
    }
    trz_kstore_clear(t);
    int intact = trz_know_apply(t, C, ks.p, ks.n) == TRZ_OK && trz_kstore_count(t) == trz_kstore_count(s);
    snprintf(what, sizeof what, "flipped and random knowledge streams: facts or refused, %d of 200 random ones refused, "
             "the intact stream still applies", random_bad);
    check(answers_ok && random_bad >= 190 && intact, "%s", what);
    free(g);
    trz_kdelta_free(&d);
    trz_kstore_free(w);
    free(ks.p);
    trz_kstore_free(s);
    trz_kstore_free(t);
    free(a.p);
    free(b.p);
}

typedef struct { const uint8_t *p; size_t n, pos; } kin;
static int64_t kin_read(void *o, void *buf, size_t n)
{
    kin *s = o;
    if (n > s->n - s->pos) n = s->n - s->pos;
    if (n > 7000) n = 7000; /* short reads, as a pipe gives them */
    memcpy(buf, s->p + s->pos, n);
    s->pos += n;
    return (int64_t)n;
}

/* in compressed with c's settings, into memory (empty on failure); frees c. */
static fz_out compress_mem(trz_cctx *c, const uint8_t *in, size_t n)
{
    fz_out a = { 0 };
    fz_in fi;
    trz_io iio, oio;
    fz_io_in(&iio, &fi, in, n, 0, 0);
    fz_io_out(&oio, &a);
    if (trz_compress(c, &iio, &oio) != TRZ_OK) { free(a.p); memset(&a, 0, sizeof a); }
    trz_cctx_free(c);
    return a;
}

static fz_out k_compress(const uint8_t *in, size_t n, int threads, int64_t restart)
{
    trz_cctx *c = trz_cctx_create();
    trz_cctx_set(c, TRZ_C_CHUNK_BYTES, 48 << 10);
    trz_cctx_set(c, TRZ_C_THREADS, threads);
    trz_cctx_set(c, TRZ_C_RESTART_BYTES, restart);
    trz_cctx_set(c, TRZ_C_CHAIN, 0); /* carried knowledge (version 3), not chains */
    trz_cctx_set_format(c, "drmemtrace");
    return compress_mem(c, in, n);
}

static int k_reads_back(const fz_out *a, const uint8_t *in, size_t n, int pipe, int threads)
{
    trz_reader *r = NULL;
    kin s = { a->p, a->n, 0 };
    trz_io io = { &s, kin_read, NULL, NULL, NULL };
    int rc = pipe ? trz_reader_open_io(&r, &io) : trz_reader_open_mem(&r, a->p, a->n);
    fz_out d = { 0 };
    if (!rc) trz_reader_set(r, TRZ_R_THREADS, threads);
    int ok = !rc && fz_read_all(r, &d, 0, NULL) == 0 && d.n == n && memcmp(d.p, in, n) == 0;
    trz_reader_close(r);
    free(d.p);
    return ok;
}

/* Chunks of the codec's own size (6 MiB, 2^19 records) when the caller
 * sets none, all in one chain, and of the caller's when it does.  Either
 * way the archive reads back. */
static fz_out cs_compress(const uint8_t *in, size_t n, int64_t chunk)
{
    trz_cctx *c = trz_cctx_create();
    if (chunk) trz_cctx_set(c, TRZ_C_CHUNK_BYTES, chunk);
    return compress_mem(c, in, n);
}

static int cs_chunks(const fz_out *a, uint64_t *first_records, int64_t *group_of_last)
{
    trz_reader *r = NULL;
    if (trz_reader_open_mem(&r, a->p, a->n)) return -1;
    trz_chunk_info ci;
    int n = 0;
    while (n < 8 && trz_reader_chunk(r, (uint64_t)n, &ci) == TRZ_OK) first_records[n++] = ci.records;
    *group_of_last = n ? trz_reader_chunk_group(r, (uint64_t)n - 1, NULL) : -1;
    trz_reader_close(r);
    return n;
}

static void test_chunk_size(void)
{
    drg g;
    drg_run(&g, 0, (size_t)13 << 20, 0x6d6);
    size_t n = g.n - g.n % DR_REC;
    fz_out own = cs_compress(g.p, n, 0), big = cs_compress(g.p, n, (int64_t)16 << 20);
    uint64_t rc[8], rb[8];
    int64_t go = -1, gb = -1;
    int no = own.n ? cs_chunks(&own, rc, &go) : -1, nb = big.n ? cs_chunks(&big, rb, &gb) : -1;
    uint64_t all = n / DR_REC, per = (uint64_t)1 << 19;
    check(no == (int)((all + per - 1) / per) && rc[0] == per && rc[1] == per && go == 0 &&
              k_reads_back(&own, g.p, n, 0, 1) && k_reads_back(&own, g.p, n, 1, 1),
          "no chunk size set: chunks of 2^19 records (6 MiB), one chain; reads back");
    check(nb == 1 && rb[0] == all && k_reads_back(&big, g.p, n, 1, 1), "a chunk size set (16 MiB) is the caller's");
    free(own.p);
    free(big.p);
    free(g.p);
}

/* Archives of small chunks whose groups carry knowledge, every profile. */
static void test_knowledge_archives(void)
{
    for (int p = 0; p < DRG_NPROFILE; p++) {
        drg g;
        drg_run(&g, p, 1200000, 0x777 + (uint64_t)p);
        size_t n = g.n + 5; /* and a partial last record */
        uint8_t *in = malloc(n);
        memcpy(in, g.p, g.n);
        memcpy(in + g.n, g.p, 5);
        const int64_t restart = 5 * (48 << 10); /* groups of 5 chunks */
        fz_out a1 = k_compress(in, n, 1, restart), a2 = k_compress(in, n, 2, restart), a3 = k_compress(in, n, 3, restart);
        fz_out v1 = k_compress(in, n, 1, 0);
        char what[200];
        /* large code meets mostly new PCs in each chunk: knowledge states
         * what the records would have coded, in a stream of its own */
        size_t most = p == DRG_BIG ? v1.n + v1.n / 100 : v1.n - 1;
        snprintf(what, sizeof what, "%s: version 3, the same archive for 1, 2 and 3 threads, %s than "
                 "without knowledge (%zu, %zu bytes)", names[p], p == DRG_BIG ? "within 1% of" : "smaller", a1.n, v1.n);
        check(a1.n && member_kind(a1.p) == 3 && v1.n && member_kind(v1.p) == 1 && a1.n == a2.n && a1.n == a3.n &&
              !memcmp(a1.p, a2.p, a1.n) && !memcmp(a1.p, a3.p, a1.n) && a1.n <= most, "%s", what);
        snprintf(what, sizeof what, "%s: reads back through the index, a pipe, with threads", names[p]);
        check(a1.n && k_reads_back(&a1, in, n, 0, 1) && k_reads_back(&a1, in, n, 1, 1) &&
              k_reads_back(&a1, in, n, 0, 3) && k_reads_back(&a1, in, n, 1, 2), "%s", what);
        /* seeks into every chunk, in any order */
        trz_reader *r = NULL;
        int bad = a1.n ? 0 : 1;
        uint64_t nrec = g.n / DR_REC;
        uint8_t buf[DR_REC * 40];
        if (a1.n && trz_reader_open_mem(&r, a1.p, a1.n) == TRZ_OK)
            for (int it = 0; it < 150; it++) {
                uint64_t at = it < 30 ? (uint64_t)it * 4096 % nrec : rnd() % nrec;
                if (trz_seek(r, at) != TRZ_OK) { bad++; continue; }
                int64_t k = trz_read(r, buf, 40);
                uint64_t want = nrec - at < 40 ? nrec - at : 40;
                if (k != (int64_t)want || memcmp(buf, in + at * DR_REC, (size_t)k * DR_REC) != 0) bad++;
            }
        else
            bad++;
        trz_reader_close(r);
        snprintf(what, sizeof what, "%s: 150 seeks read the right records (%d wrong)", names[p], bad);
        check(bad == 0, "%s", what);
        free(a1.p);
        free(a2.p);
        free(a3.p);
        free(v1.p);
        free(in);
        free(g.p);
    }
}

/* The shared corpus: its zip members hold the record streams.  The
 * records are read with unzip when it is there; skipped otherwise. */
static void test_corpus(void)
{
    char pat[4200];
    glob_t gl;
    if (glob(corpus_path(pat, sizeof pat, "drmemtrace/*.trace.zip"), 0, NULL, &gl) != 0) {
        printf("shared drmemtrace corpus not found (%s): skipped\n", pat);
        return;
    }
    for (size_t i = 0; i < gl.gl_pathc; i++) {
        char cmd[4300];
        snprintf(cmd, sizeof cmd, "unzip -p '%s' 2>/dev/null", gl.gl_pathv[i]);
        FILE *f = popen(cmd, "r");
        size_t cap = 1 << 20, n = 0, got;
        uint8_t *d = f ? malloc(cap) : NULL;
        while (d && (got = fread(d + n, 1, cap - n, f)) > 0)
            if ((n += got) == cap) d = realloc(d, cap *= 2);
        int bad = !f || pclose(f) != 0 || !d || n == 0;
        if (bad) { printf("cannot unzip %s: skipped\n", gl.gl_pathv[i]); free(d); continue; }
        int ok = n % DR_REC == 0, bo;
        ok &= C->probe(d, n, &bo) >= 90;
        ok &= round_trip(d, n, i == 0, NULL);
        for (g_level = 1; g_level <= 3; g_level += 2) ok &= round_trip(d, n, i == 0, NULL);
        g_level = 9;
        char what[4300];
        snprintf(what, sizeof what, "corpus %s", gl.gl_pathv[i]);
        check(ok, "%s", what);
        free(d);
    }
    globfree(&gl);
}

/* The levels (drmemtrace.md, "Levels"): each writes the variant its table
 * says and decodes exactly; a stated match table outside 10..22 bits is
 * damage, a variant of the other kind of member unsupported. */
static void test_levels(void)
{
    static const struct { int level; unsigned variant; } want[] = { { 1, 6 }, { 2, 6 }, { 3, 6 }, { 4, 2 }, { 9, 2 },
                                                                   { 11, 2 }, { 12, 4 }, { 19, 4 } };
    drg g;
    drg_run(&g, DRG_THREAD, 600000, 0x1e7e1);
    size_t len = g.n / DR_REC * DR_REC, nrec = len / DR_REC;
    uint8_t *out = malloc(len);
    size_t size9 = 0, size4 = 0, size1 = 0, size3 = 0;
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        streams st;
        memset(&st, 0, sizeof st);
        uint64_t coded = 0;
        trz_enc_args ea = TEST_ENC_ARGS(g.p, len, nrec, TRZ_BO_LITTLE, want[k].level, st.s);
        ea.coded = &coded;
        int fast = fast_level(want[k].level);
        int ok = trz_codec_encode(C, &ea, NULL) == TRZ_CODEC_OK && (fast ? !st.s[0].n && st.s[DRF_SEQ].n : st.s[0].n);
        const uint8_t *sp[TRZ_MAX_STREAMS];
        size_t sl[TRZ_MAX_STREAMS];
        for (int i = 0; i < TRZ_MAX_STREAMS; i++) { sp[i] = st.s[i].n ? st.s[i].p : NULL; sl[i] = st.s[i].n; }
        unsigned v = 255;
        if (ok && fast) {
            v = sp[DRF_SEQ][0];
            ok = decode_with(sp, sl, out, len, nrec) == TRZ_CODEC_OK && memcmp(out, g.p, len) == 0;
            size_t all = 0;
            for (int i = 0; i < TRZ_MAX_STREAMS; i++) all += sl[i];
            if (want[k].level == 1) size1 = all;
            if (want[k].level == 3) size3 = all;
        } else if (ok) {
            rc c;
            rc_dec_init(&c, sp[0], sl[0]);
            v = rc_direct(&c, 0, 8);
            ok = decode_with(sp, sl, out, len, nrec) == TRZ_CODEC_OK && memcmp(out, g.p, len) == 0;
        }
        if (want[k].level == 9) size9 = sl[0];
        if (want[k].level == 4) size4 = sl[0];
        char what[120];
        snprintf(what, sizeof what, "level %d: model variant %u (want %u), %zu bytes, exact", want[k].level, v,
                 want[k].variant, sl[0]);
        check(ok && v == want[k].variant, "%s", what);
        free_streams(&st);
    }
    check(size9 && size9 == size4, "level 4 codes with the default's model (the match model at every level from 4)");
    /* levels 1-3 write the same streams (the back-end's level differs) */
    check(size1 && size1 == size3, "levels 1 and 3 write the same fast streams (%zu bytes before the back-end)", size1);
    /* hand-made streams: a stated size out of range, the other kind's variant */
    static const struct { unsigned v, mb; int rc; const char *what; } bad[] = {
        { 4, 9, TRZ_CODEC_CORRUPT, "variant 4 stating a 9-bit match table: damage" },
        { 4, 23, TRZ_CODEC_CORRUPT, "variant 4 stating a 23-bit match table: damage" },
        { 5, 16, TRZ_CODEC_UNSUPPORTED, "variant 5 in a member without knowledge: unsupported" },
        { 6, 16, TRZ_CODEC_UNSUPPORTED, "variant 6 in stream 0 (the fast variant has none): unsupported" },
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        trz_buf vb = { 0 };
        rc v;
        rc_enc_init(&v, &vb);
        rc_direct(&v, bad[k].v, 8);
        rc_direct(&v, bad[k].mb, 8);
        for (int j = 0; j < 8; j++) rc_direct(&v, 0x5a, 8);
        rc_enc_flush(&v);
        const uint8_t *sp[TRZ_MAX_STREAMS] = { vb.p };
        size_t sl[TRZ_MAX_STREAMS] = { vb.n };
        check(decode_with(sp, sl, out, len, nrec) == bad[k].rc, "%s", bad[k].what);
        free(vb.p);
    }
    /* one model for two chunks, reset between them, at each variant's level:
     * what fresh models write and read (halves of equal and unequal size) */
    size_t h = nrec / 2 * DR_REC, q = nrec / 3 * DR_REC;
    for (int level = 1; level <= 19; level += level == 1 ? 2 : 8) {
        char what[96];
        snprintf(what, sizeof what, "level %d: a model reset between chunks codes as fresh ones", level);
        check(test_model_reuse(C, g.p, h, g.p + h, h, level, TRZ_BO_LITTLE) &&
                  test_model_reuse(C, g.p, q, g.p + q, len - q, level, TRZ_BO_LITTLE),
              "%s", what);
    }
    free(out);
    free(g.p);
}

/* ---- chains (codec.h, "Chains"; drmemtrace.md, "Chains") ------------------- */

/* Chunk k of a chain: its records' place in one of two traces. */
typedef struct { int src; size_t at, n; } ch_piece;

/* Encode pieces [0, n) in one chain with model m (NULL: each alone), into
 * st[]; 1 if every encode went well. */
static int chain_encode(trz_model *m, int level, const uint8_t *const *src, const ch_piece *pc, size_t n, streams *st)
{
    int ok = 1;
    for (size_t k = 0; k < n; k++) {
        memset(&st[k], 0, sizeof st[k]);
        trz_enc_args ea = TEST_ENC_ARGS(src[pc[k].src] + pc[k].at * DR_REC, pc[k].n * DR_REC, pc[k].n, TRZ_BO_LITTLE,
                                        level, st[k].s);
        ea.chain = m != NULL;
        ok &= trz_codec_encode(C, &ea, m) == TRZ_CODEC_OK;
    }
    return ok;
}

static int chain_decode1(trz_model *d, const streams *st, uint8_t *out, size_t nrec, int chain)
{
    const uint8_t *sp[TRZ_MAX_STREAMS];
    size_t sl[TRZ_MAX_STREAMS];
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) { sp[i] = st->s[i].n ? st->s[i].p : NULL; sl[i] = st->s[i].n; }
    trz_dec_args da = { sp, sl, out, nrec * DR_REC, nrec, TRZ_BO_LITTLE, NULL, chain };
    return trz_codec_decode(C, &da, d);
}

/* Decode pieces [0, n) in one chain with d; 1 if each is exact. */
static int chain_decode(trz_model *d, const uint8_t *const *src, const ch_piece *pc, size_t n, const streams *st,
                        uint8_t *out)
{
    int ok = 1;
    for (size_t k = 0; k < n; k++)
        ok &= chain_decode1(d, &st[k], out, pc[k].n, 1) == TRZ_CODEC_OK &&
              memcmp(out, src[pc[k].src] + pc[k].at * DR_REC, pc[k].n * DR_REC) == 0;
    return ok;
}

/* Chunks of different sizes and traces in one chain: a fresh decoder's
 * model decodes them, and again after a reset; a reset encoder's model
 * writes the same streams; a chunk that repeats an earlier one costs far
 * less than alone; a chunk decoded without the one before it, or damaged,
 * gives an error or other bytes, never a crash. */
static void test_chain(void)
{
    drg g1, g2;
    drg_run(&g1, DRG_THREAD, 3000000, 0xc4a1);
    drg_run(&g2, DRG_CORE, 1200000, 0xc4a2);
    const uint8_t *src[2] = { g1.p, g2.p };
    size_t n1 = g1.n / DR_REC, n2 = g2.n / DR_REC;
    /* the first chunk (60,000 records) sets the tables: the window then
     * holds 2^16 records at level 9 and reaches the repeat of piece 0 */
    const ch_piece pc[] = { { 0, 0, 60000 }, { 1, 0, 3001 }, { 0, 0, 60000 }, { 0, 60000, 1 }, { 0, 60001, 7 },
                            { 1, 3001, n2 - 3001 }, { 0, 60008, n1 - 60008 }, { 0, 200000, 23456 } };
    const size_t np = sizeof pc / sizeof pc[0];
    uint8_t *out = malloc(g1.n + g2.n);
    for (int level = 9; level <= 19; level += 10) {
        streams st[sizeof pc / sizeof pc[0]], re[sizeof pc / sizeof pc[0]], alone[sizeof pc / sizeof pc[0]];
        trz_model *m = NULL, *d = NULL;
        int ok = trz_model_create(C, level, 0, &m) == TRZ_CODEC_OK && trz_model_create(C, 0, 0, &d) == TRZ_CODEC_OK;
        ok = ok && chain_encode(m, level, src, pc, np, st) && chain_encode(NULL, level, src, pc, np, alone);
        char what[160];
        snprintf(what, sizeof what, "level %d: a chain of %zu chunks of sizes 1 to %zu records decodes exactly", level,
                 np, n1 - 60008);
        check(ok && chain_decode(d, src, pc, np, st, out), "%s", what);
        trz_model_reset(C, d);
        snprintf(what, sizeof what, "level %d: the chain decodes again after the decoder's model is reset", level);
        check(chain_decode(d, src, pc, np, st, out), "%s", what);
        trz_model_reset(C, m);
        int same = chain_encode(m, level, src, pc, np, re);
        for (size_t k = 0; k < np; k++)
            same &= re[k].s[0].n == st[k].s[0].n && !memcmp(re[k].s[0].p, st[k].s[0].p, st[k].s[0].n);
        snprintf(what, sizeof what, "level %d: the encoder's model reset writes the chain's streams again", level);
        check(same, "%s", what);
        /* the first chunk of a chain is coded as it is alone */
        snprintf(what, sizeof what, "level %d: a chain's first chunk is as alone", level);
        check(st[0].s[0].n == alone[0].s[0].n && !memcmp(st[0].s[0].p, alone[0].s[0].p, st[0].s[0].n), "%s", what);
        size_t rep = st[2].s[0].n, one = alone[2].s[0].n, sum = 0, sum1 = 0;
        snprintf(what, sizeof what, "level %d: a chunk that repeats the chain's first: %zu bytes, alone %zu", level, rep,
                 one);
        check(rep * 20 < one, "%s", what);
        for (size_t k = 0; k < np; k++) sum += st[k].s[0].n, sum1 += alone[k].s[0].n;
        snprintf(what, sizeof what, "level %d: the chain %zu bytes, its chunks alone %zu", level, sum, sum1);
        check(sum * 10 < sum1 * 8, "%s", what);
        /* chunk 2 (the repeat) with a fresh model, skipping those before;
         * each chunk damaged within the chain: errors or other bytes only
         * (ASan and UBSan watch) */
        trz_model *f = NULL;
        ok = trz_model_create(C, 0, 0, &f) == TRZ_CODEC_OK;
        int drc = ok ? chain_decode1(f, &st[2], out, pc[2].n, 1) : TRZ_CODEC_NOMEM;
        snprintf(what, sizeof what, "level %d: the chain's third chunk without the two before: no crash", level);
        check(ok && drc != TRZ_CODEC_NOMEM, "%s", what);
        trz_model_reset(C, f);
        for (size_t k = 0; k < np; k++) {
            streams bad;
            memset(&bad, 0, sizeof bad);
            size_t bn = st[k].s[0].n;
            bad.s[0].p = malloc(bn);
            bad.s[0].n = bn;
            memcpy(bad.s[0].p, st[k].s[0].p, bn);
            if (bn > 2) bad.s[0].p[1 + rnd() % (bn - 1)] ^= (uint8_t)(1 + rnd() % 255);
            (void)chain_decode1(f, k == 3 ? &bad : &st[k], out, pc[k].n, 1);
            (void)chain_decode1(f, &bad, out, pc[k].n, 1);
            free_streams(&bad);
        }
        /* random bytes after the chain's first two chunks, in the
         * variant the level writes */
        for (int k = 0; k < 40; k++) {
            trz_model_reset(C, f);
            (void)chain_decode1(f, &st[0], out, pc[0].n, 1);
            (void)chain_decode1(f, &st[1], out, pc[1].n, 1);
            trz_buf vb = { 0 };
            rc v;
            rc_enc_init(&v, &vb);
            rc_direct(&v, level > 11 ? 4 : 2, 8);
            if (level > 11) { /* the chain's table, as its first chunk states it */
                rc h;
                rc_dec_init(&h, st[0].s[0].p, st[0].s[0].n);
                (void)rc_direct(&h, 0, 8);
                rc_direct(&v, rc_direct(&h, 0, 8), 8);
            }
            for (int j = 0; j < 64 + k * 16; j++) rc_direct(&v, (unsigned)rnd() & 255, 8);
            rc_enc_flush(&v);
            streams junk;
            memset(&junk, 0, sizeof junk);
            junk.s[0] = vb;
            (void)chain_decode1(f, &junk, out, 1 + rnd() % 5000, 1);
            free_streams(&junk);
        }
        check(1, "a chain with damaged chunks: no crash");
        trz_model_free(C, f);
        trz_model_free(C, m);
        trz_model_free(C, d);
        for (size_t k = 0; k < np; k++) free_streams(&st[k]), free_streams(&re[k]), free_streams(&alone[k]);
    }
    free(out);
    free(g1.p);
    free(g2.p);
}


/* ---- the fast variant (drmemtrace.md, "Fast variant") ----------------------- */

/* Records that test the fast variant's escapes: an encoding that changes
 * at a PC, a chunk of markers only, addresses at the ends of 64 bits. */
static void fast_edge_cases(void)
{
    size_t n = 3000, len = n * DR_REC;
    uint8_t *b = calloc(n, DR_REC);
    for (size_t i = 0; i < n; i += 3) { /* the same PC, its bytes changing every 50 times */
        rec(b + i * DR_REC, DR_ENCODING, 3, 0x123456 + i / 150);
        rec(b + (i + 1) * DR_REC, DR_INSTR, 3, 0x401000);
        rec(b + (i + 2) * DR_REC, DR_READ, 8, 0x7ffd0000 + 8 * (i % 90));
    }
    check(round_trip(b, len, 1, NULL), "level %d: an encoding that changes at a PC", g_level);
    for (size_t i = 0; i < n; i++)
        rec(b + i * DR_REC, DR_MARKER, i % 5 ? DRM_CORE_IDLE : (unsigned)(i % 40), i % 5 ? 0 : i * 1000003);
    check(round_trip(b, len, 1, NULL), "level %d: a chunk of markers only", g_level);
    for (size_t i = 0; i < n; i++) {
        static const uint64_t far[] = { 0, 1, UINT64_MAX, UINT64_MAX - 7, 1ull << 63, (1ull << 63) - 1 };
        unsigned t = i % 4 == 0 ? DR_INSTR : i % 4 == 1 ? DR_WRITE : i % 4 == 2 ? DR_MARKER : DR_ENCODING;
        rec(b + i * DR_REC, t, (unsigned)(rnd() % 3 ? 8 : rnd() & 0xFFFF), far[rnd() % 6] ^ (rnd() % 2 ? rnd() : 0));
    }
    check(round_trip(b, len, 1, NULL), "level %d: addresses at the ends of 64 bits, any sizes", g_level);
    for (size_t i = 0; i < n; i++) rec(b + i * DR_REC, 0xFFFF - (unsigned)(i % 3), 0xFFFF, ~(uint64_t)i);
    check(round_trip(b, len, 1, NULL), "level %d: types and sizes of 16 bits", g_level);
    free(b);
}

/* A chain at a fast level: chunks of any size decode in order, again after
 * a reset, and the encoder writes them again after its reset; a repeat of
 * an earlier chunk costs little; a chunk without its chain is damage. */
static void fast_chain(int level)
{
    drg g1, g2;
    drg_run(&g1, DRG_THREAD, 1500000, 0xfa51);
    drg_run(&g2, DRG_CORE, 600000, 0xfa52);
    const uint8_t *src[2] = { g1.p, g2.p };
    size_t n1 = g1.n / DR_REC, n2 = g2.n / DR_REC;
    const ch_piece pc[] = { { 0, 0, 40000 }, { 1, 0, 3001 }, { 0, 0, 40000 }, { 0, 40000, 1 }, { 0, 40001, 7 },
                            { 1, 3001, n2 - 3001 }, { 0, 40008, n1 - 40008 }, { 0, 70000, 23456 } };
    const size_t np = sizeof pc / sizeof pc[0];
    streams st[sizeof pc / sizeof pc[0]], re[sizeof pc / sizeof pc[0]], alone[sizeof pc / sizeof pc[0]];
    uint8_t *out = malloc(g1.n + g2.n);
    trz_model *m = NULL, *d = NULL, *f = NULL;
    int ok = trz_model_create(C, level, 0, &m) == TRZ_CODEC_OK && trz_model_create(C, 0, 0, &d) == TRZ_CODEC_OK &&
             trz_model_create(C, 0, 0, &f) == TRZ_CODEC_OK;
    ok = ok && chain_encode(m, level, src, pc, np, st) && chain_encode(NULL, level, src, pc, np, alone);
    int vars = ok;
    for (size_t k = 0; ok && k < np; k++)
        vars &= !st[k].s[0].n && st[k].s[DRF_SEQ].n && st[k].s[DRF_SEQ].p[0] == (k ? DRF_VARIANT_CHAINED : DRF_VARIANT_CHAIN);
    check(vars, "level %d: a chain's first chunk is variant %d, the others %d", level, DRF_VARIANT_CHAIN, DRF_VARIANT_CHAINED);
    check(ok && chain_decode(d, src, pc, np, st, out), "level %d: a chain of %zu chunks decodes exactly", level, np);
    trz_model_reset(C, d);
    check(chain_decode(d, src, pc, np, st, out), "level %d: the chain decodes again after the decoder's reset", level);
    trz_model_reset(C, m);
    int same = chain_encode(m, level, src, pc, np, re);
    for (size_t k = 0; k < np; k++)
        for (int i = 0; i < TRZ_MAX_STREAMS; i++)
            same &= re[k].s[i].n == st[k].s[i].n && (!st[k].s[i].n || !memcmp(re[k].s[i].p, st[k].s[i].p, st[k].s[i].n));
    check(same, "level %d: the encoder's reset writes the chain's streams again", level);
    size_t rep = 0, one = 0;
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) rep += st[2].s[i].n, one += alone[2].s[i].n;
    check(rep * 20 < one, "level %d: a chunk that repeats the chain's first: %zu bytes, alone %zu", level, rep, one);
    int drc = chain_decode1(f, &st[2], out, pc[2].n, 1);
    check(drc == TRZ_CODEC_CORRUPT, "level %d: a chained chunk without its chain is damage", level);
    /* damaged chunks within the chain: errors or other bytes, never a crash */
    for (size_t k = 0; k < np; k++) {
        streams bad;
        memset(&bad, 0, sizeof bad);
        for (int i = 0; i < DRF_NSTREAMS; i++) {
            size_t bn = st[k].s[i].n;
            if (!bn) continue;
            bad.s[i].p = malloc(bn);
            bad.s[i].n = bn;
            memcpy(bad.s[i].p, st[k].s[i].p, bn);
        }
        int i = 1 + (int)(rnd() % (DRF_NSTREAMS - 1));
        if (bad.s[i].n > 1) bad.s[i].p[1 + rnd() % (bad.s[i].n - 1)] ^= (uint8_t)(1 + rnd() % 255);
        (void)chain_decode1(f, k == 3 ? &bad : &st[k], out, pc[k].n, 1);
        (void)chain_decode1(f, &bad, out, pc[k].n, 1);
        free_streams(&bad);
    }
    check(1, "level %d: a chain with damaged chunks: no crash", level);
    trz_model_free(C, f);
    trz_model_free(C, m);
    trz_model_free(C, d);
    for (size_t k = 0; k < np; k++) free_streams(&st[k]), free_streams(&re[k]), free_streams(&alone[k]);
    free(out);
    free(g1.p);
    free(g2.p);
}

/* Archives at the fast levels, chained (the default) and carrying
 * knowledge: the same bytes for 1 and 2 threads, read back through the
 * index, a pipe and threads. */
static void fast_archives(void)
{
    drg g;
    drg_run(&g, DRG_CORE, 1500000, 0xfa5a);
    size_t n = g.n + 5;
    uint8_t *in = malloc(n);
    memcpy(in, g.p, g.n);
    memcpy(in + g.n, g.p, 5); /* and a partial last record */
    for (int chain = 1; chain >= 0; chain--)
        for (int level = 1; level <= 3; level += 2) {
            fz_out a[2];
            for (int t = 0; t < 2; t++) {
                trz_cctx *c = trz_cctx_create();
                trz_cctx_set(c, TRZ_C_LEVEL, level);
                trz_cctx_set(c, TRZ_C_CHUNK_BYTES, 96 << 10);
                trz_cctx_set(c, TRZ_C_THREADS, t + 1);
                trz_cctx_set(c, TRZ_C_CHAIN, chain);
                if (!chain) trz_cctx_set(c, TRZ_C_RESTART_BYTES, 5 * (96 << 10));
                trz_cctx_set_format(c, "drmemtrace");
                a[t] = compress_mem(c, in, n);
            }
            check(a[0].n && member_kind(a[0].p) == (chain ? 4 : 3) && a[0].n == a[1].n && !memcmp(a[0].p, a[1].p, a[0].n),
                  "level %d, %s: the same archive for 1 and 2 threads (%zu bytes)", level, chain ? "chained" : "knowledge",
                  a[0].n);
            check(a[0].n && k_reads_back(&a[0], in, n, 0, 1) && k_reads_back(&a[0], in, n, 1, 1) &&
                      k_reads_back(&a[0], in, n, 0, 2) && k_reads_back(&a[0], in, n, 1, 2),
                  "level %d, %s: reads back through the index, a pipe, with threads", level, chain ? "chained" : "knowledge");
            free(a[0].p);
            free(a[1].p);
        }
    free(in);
    free(g.p);
}

/* Junk streams behind a valid variant byte, alone and in a chain after a
 * good chunk: an error or some records, never a crash (ASan, UBSan). */
static void fast_junk(void)
{
    drg g;
    drg_run(&g, DRG_THREAD, 60000, 0x1a2b);
    size_t n = g.n / DR_REC;
    uint8_t *out = malloc(g.n);
    streams good;
    memset(&good, 0, sizeof good);
    trz_enc_args ea = TEST_ENC_ARGS(g.p, n * DR_REC, n, TRZ_BO_LITTLE, 1, good.s);
    ea.chain = 1;
    trz_model *m = NULL, *d = NULL;
    int ok = trz_model_create(C, 1, 0, &m) == TRZ_CODEC_OK && trz_model_create(C, 0, 0, &d) == TRZ_CODEC_OK &&
             trz_codec_encode(C, &ea, m) == TRZ_CODEC_OK;
    for (int k = 0; ok && k < 300; k++) {
        int chain = k % 2;
        streams junk;
        memset(&junk, 0, sizeof junk);
        for (int i = 1; i < DRF_NSTREAMS; i++) {
            size_t len = i == DRF_SEQ ? 1 + rnd() % 400 : rnd() % 3 ? rnd() % 300 : 0;
            for (size_t j = 0; j < len; j++) {
                /* small values in seq: runs, headers and distances that parse */
                unsigned b = i == DRF_SEQ && rnd() % 4 ? (unsigned)(rnd() % 16) : (unsigned)(rnd() & 255);
                trz_put_u8(&junk.s[i], (uint8_t)b);
            }
        }
        junk.s[DRF_SEQ].p[0] = chain ? (k % 4 == 1 ? DRF_VARIANT_CHAINED : DRF_VARIANT_CHAIN) : DRF_VARIANT;
        if (chain) {
            trz_model_reset(C, d);
            ok &= chain_decode1(d, &good, out, n, 1) == TRZ_CODEC_OK && !memcmp(out, g.p, n * DR_REC);
        }
        (void)chain_decode1(d, &junk, out, 1 + rnd() % n, chain);
        free_streams(&junk);
    }
    check(ok, "level 1: junk streams behind the variant byte, alone and in a chain: no crash");
    trz_model_free(C, m);
    trz_model_free(C, d);
    free_streams(&good);
    free(out);
    free(g.p);
}

static void test_fast(void)
{
    for (int level = 1; level <= 3; level++) {
        g_level = level;
        for (int p = 0; p < DRG_NPROFILE; p++) {
            drg g;
            drg_run(&g, p, 600000, 0x1234 + (uint64_t)p);
            size_t cs = 0, n = g.n / DR_REC, ok = 1;
            check(round_trip(g.p, n * DR_REC, p == 0 || level == 1, &cs), "level %d: generated %s (%zu records), %zu bytes",
                  level, names[p], n, cs);
            for (int k = 0; k < 4; k++) {
                size_t a = rnd() % n, b = a + 1 + rnd() % (n - a);
                ok &= round_trip(g.p + a * DR_REC, (b - a) * DR_REC, k == 0, NULL);
            }
            check(ok, "level %d: generated %s cut at random records", level, names[p]);
            free(g.p);
        }
        fast_edge_cases();
        check(round_trip((const uint8_t *)"", 0, 0, NULL), "level %d: a chunk of no records", level);
    }
    g_level = 1;
    test_odd_records(); /* every case at level 1 too */
    for (int p = 0; p < DRG_NPROFILE; p++) { /* runs find a repeated piece */
        drg g;
        drg_run(&g, p, 400000, 0x777 + (uint64_t)p);
        size_t n = g.n / DR_REC * DR_REC, one = 0, six = 0;
        uint8_t *r = malloc(6 * n);
        for (int k = 0; k < 6; k++) memcpy(r + (size_t)k * n, g.p, n);
        check(round_trip(g.p, n, 0, &one) && round_trip(r, 6 * n, 0, &six) && six * 10 <= one * 11,
              "level 1: generated %s repeated six times: %zu bytes, the piece %zu", names[p], six, one);
        free(r);
        free(g.p);
    }
    g_level = 9;
    fast_junk();
    fast_chain(1);
    fast_chain(3);
    fast_archives();
}

int main(void)
{
    test_generated();
    test_repeats();
    test_levels();
    test_chain();
    test_fast();
    test_odd_records();
    test_junk_streams();
    test_probe();
    test_dump_convert();
    test_container();
    test_knowledge_codec();
    test_knowledge_archives();
    test_chunk_size();
    test_corpus();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
