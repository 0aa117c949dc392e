/* test_rst.c - round-trip tests for the RST codec: generated edge cases
 * (unknown rtypes, reserved bits, cpuid 1023, garbage EAs, little-endian,
 * 1024 CPUs, 0xFF and random records), damaged streams, and the corpus. */
#include "codec_args.h"
#include "../codecs/rst/rst_int.h"
#include "../codecs/rst/rst_v1.h"
#include <stdio.h>
#include "corpus.h"

#define UNIT_RNG_SEED 88172645463325252ull
#include "unit.h"

static int encode_at(const uint8_t *in, size_t len, int bo, int level, streams *st)
{
    memset(st, 0, sizeof *st);
    trz_enc_args ea = TEST_ENC_ARGS(in, len, len / RST_REC, bo, level, st->s);
    return trz_codec_encode(&trz_codec_rst, &ea, NULL);
}
static int encode(const uint8_t *in, size_t len, int bo, streams *st) { return encode_at(in, len, bo, 9, st); }

static int decode_with(const uint8_t *const *sp, const size_t *sl, uint8_t *out, size_t len, uint64_t nrec, int bo)
{
    trz_dec_args da = { sp, sl, out, len, nrec, bo, NULL, 0 };
    return trz_codec_decode(&trz_codec_rst, &da, NULL);
}

/* Encode, decode and compare; also run the damaged-stream checks. */
static int round_trip(const uint8_t *in, size_t len, int bo, int damage)
{
    streams st;
    if (encode(in, len, bo, &st) != TRZ_CODEC_OK) { free_streams(&st); return 0; }
    const uint8_t *sp[TRZ_MAX_STREAMS];
    size_t sl[TRZ_MAX_STREAMS];
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) { sp[i] = st.s[i].n ? st.s[i].p : NULL; sl[i] = st.s[i].n; }
    uint8_t *out = malloc(len + RST_REC);
    int ok = decode_with(sp, sl, out, len, len / RST_REC, bo) == TRZ_CODEC_OK && memcmp(out, in, len) == 0;
    if (damage && len) {
        /* wrong nrec must fail; so must one record less or more than the
         * streams hold (streams left over / read past their end) */
        ok &= decode_with(sp, sl, out, len, len / RST_REC + 1, bo) != TRZ_CODEC_OK;
        ok &= decode_with(sp, sl, out, len - RST_REC, len / RST_REC - 1, bo) != TRZ_CODEC_OK;
        ok &= decode_with(sp, sl, out, len + RST_REC, len / RST_REC + 1, bo) != TRZ_CODEC_OK;
        for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
            if (!sl[i]) continue;
            size_t keep = sl[i];
            sl[i] = keep - 1; /* truncated stream */
            ok &= decode_with(sp, sl, out, len, len / RST_REC, bo) != TRZ_CODEC_OK;
            sl[i] = keep;
            uint8_t *longer = malloc(keep + 1); /* one byte too many */
            memcpy(longer, sp[i], keep);
            longer[keep] = 0;
            const uint8_t *orig = sp[i];
            sp[i] = longer;
            sl[i] = keep + 1;
            ok &= decode_with(sp, sl, out, len, len / RST_REC, bo) != TRZ_CODEC_OK;
            sp[i] = orig;
            sl[i] = keep;
            free(longer);
            uint8_t *cp = malloc(keep);
            for (int k = 0; k < 8; k++) { /* flipped bytes: must not crash */
                memcpy(cp, sp[i], keep);
                cp[rnd() % keep] ^= (uint8_t)(1 + rnd() % 255);
                const uint8_t *save = sp[i];
                sp[i] = cp;
                (void)decode_with(sp, sl, out, len, len / RST_REC, bo);
                sp[i] = save;
            }
            free(cp);
        }
        /* random streams */
        uint8_t *junk[TRZ_MAX_STREAMS];
        size_t jl[TRZ_MAX_STREAMS];
        for (int k = 0; k < 4; k++) {
            for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
                jl[i] = (i < 20 && rnd() % 2) ? rnd() % (len + 64) : 0;
                junk[i] = malloc(jl[i] + 1);
                for (size_t j = 0; j < jl[i]; j++) junk[i][j] = (uint8_t)(k == 0 ? rnd() % 8 : rnd());
            }
            (void)decode_with((const uint8_t *const *)junk, jl, out, len, len / RST_REC, bo);
            for (int i = 0; i < TRZ_MAX_STREAMS; i++) free(junk[i]);
        }
    }
    free(out);
    free_streams(&st);
    return ok;
}

/* Streams of junk whose lengths sit around the decoder's in-place / tail
 * switch (a block's worst case, 32 x 23 = 736 bytes, and the tail size):
 * decoding must stay in bounds (ASan) and return. */
static void test_stream_lengths(void)
{
    static const size_t lens[] = { 0, 1, 23, 735, 736, 737, 1759, 1760, 1761, 5000 };
    size_t nrec = 700;
    uint8_t *out = malloc(nrec * RST_REC);
    int returned = 1;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        for (int mode = 0; mode < 3; mode++) {
            uint8_t *junk[TRZ_MAX_STREAMS] = { 0 };
            size_t jl[TRZ_MAX_STREAMS] = { 0 };
            for (int i = 0; i < 20; i++) {
                jl[i] = lens[(li + (mode == 2 ? (size_t)i : 0)) % (sizeof lens / sizeof lens[0])];
                junk[i] = jl[i] ? malloc(jl[i]) : NULL; /* exact size: ASan sees any overread */
                for (size_t j = 0; j < jl[i]; j++)
                    junk[i][j] = (uint8_t)(mode == 0 ? 0 : mode == 1 ? rnd() % 8 : rnd());
            }
            int rc = decode_with((const uint8_t *const *)junk, jl, out, nrec * RST_REC, nrec, TRZ_BO_BIG);
            returned &= rc == TRZ_CODEC_OK || rc == TRZ_CODEC_CORRUPT;
            for (int i = 0; i < 20; i++) free(junk[i]);
        }
    }
    check(returned, "junk streams around the block and tail sizes");
    free(out);
}

/* Text records whose text stream ends early, far into a block: the decoder
 * reads past the end inside its padded tail (ASan checks that it stays
 * there) and must report the overrun. */
static void test_text_overrun(void)
{
    size_t nrec = 400, tl[] = { 736 * 3 + 700, 736 + 735, 737, 1000 };
    uint8_t *ev = malloc(nrec), *rt = malloc(nrec), *out = malloc(nrec * RST_REC);
    memset(ev, 0x20, nrec);        /* kind 2: rtype from the rtype stream */
    memset(rt, RT_STRDESC, nrec);  /* 23 text bytes each */
    int ok = 1;
    for (size_t t = 0; t < sizeof tl / sizeof tl[0]; t++) {
        uint8_t *text = malloc(tl[t]);
        memset(text, 'x', tl[t]);
        const uint8_t *sp[TRZ_MAX_STREAMS] = { 0 };
        size_t sl[TRZ_MAX_STREAMS] = { 0 };
        sp[0] = rt; sl[0] = nrec;
        sp[1] = ev; sl[1] = nrec;
        sp[17] = text; sl[17] = tl[t];
        ok &= decode_with(sp, sl, out, nrec * RST_REC, nrec, TRZ_BO_BIG) == TRZ_CODEC_CORRUPT;
        /* exactly enough text for the records decodes */
        size_t n = tl[t] / 23;
        sl[0] = sl[1] = n;
        sl[17] = n * 23;
        ok &= decode_with(sp, sl, out, n * RST_REC, n, TRZ_BO_BIG) == TRZ_CODEC_OK && out[0] == RT_STRDESC &&
              out[n * RST_REC - 1] == 'x';
        free(text);
    }
    /* the text stream's tail read slowly for a block, then fast: the
     * deepest read past its end the padding must cover (blocks are 32
     * records: records 32..59 are of an unknown rtype) */
    size_t tlen = 736 + 700;
    uint8_t *text = malloc(tlen), *unk = malloc(28 * 23);
    memset(text, 'y', tlen);
    memset(unk, 'u', 28 * 23);
    for (size_t i = 0; i < nrec; i++) rt[i] = (uint8_t)(i >= 32 && i < 60 ? 200 : RT_STRDESC);
    const uint8_t *sp[TRZ_MAX_STREAMS] = { 0 };
    size_t sl[TRZ_MAX_STREAMS] = { 0 };
    sp[0] = rt; sl[0] = nrec;
    sp[1] = ev; sl[1] = nrec;
    sp[17] = text; sl[17] = tlen;
    sp[18] = unk; sl[18] = 28 * 23;
    ok &= decode_with(sp, sl, out, nrec * RST_REC, nrec, TRZ_BO_BIG) == TRZ_CODEC_CORRUPT;
    free(text);
    free(unk);
    check(ok, "text stream ending inside a block");
    free(ev);
    free(rt);
    free(out);
}

/* Records that fill the text stream (23 bytes a record, the most any
 * stream takes in one step) and the raw EA / PA streams. */
static void test_stream_heavy(void)
{
    size_t n = 5000;
    uint8_t *buf = malloc(n * RST_REC);
    for (size_t i = 0; i < n; i++) {
        uint8_t *r = buf + i * RST_REC;
        for (int k = 1; k < RST_REC; k++) r[k] = (uint8_t)rnd();
        r[0] = (uint8_t)(i < n / 2 ? (i % 2 ? RT_STRDESC : RT_STRCONT) : (i % 3 ? RT_INSTR : RT_PAVADIFF));
    }
    check(round_trip(buf, n * RST_REC, TRZ_BO_BIG, 1), "text-heavy and raw-heavy records");
    free(buf);
}

/* Every rtype 0..255 with random bytes after it, in both byte orders. */
static void test_every_rtype(void)
{
    size_t n = 256 * 8;
    uint8_t *buf = malloc(n * RST_REC);
    for (size_t i = 0; i < n; i++) {
        uint8_t *r = buf + i * RST_REC;
        r[0] = (uint8_t)(i % 256);
        for (int k = 1; k < RST_REC; k++) r[k] = (uint8_t)rnd();
    }
    check(round_trip(buf, n * RST_REC, TRZ_BO_BIG, 1), "every rtype, BE");
    check(round_trip(buf, n * RST_REC, TRZ_BO_LITTLE, 1), "every rtype, LE");
    free(buf);
}

/* The encoder writes variant 1 (stream RST_S_RC) unless variant 0's streams
 * after the back-end are smaller: a modelled trace takes variant 1; random
 * records repeated exactly (long matches for the back-end, nothing for the
 * model) take variant 0.  Both decode. */
static int variant_of(const uint8_t *in, size_t len, int *ok)
{
    streams st;
    *ok = encode(in, len, TRZ_BO_BIG, &st) == TRZ_CODEC_OK && round_trip(in, len, TRZ_BO_BIG, 0);
    int v = st.s[RST_S_RC].n ? 1 : 0;
    free_streams(&st);
    return v;
}

static void test_variant_choice(void)
{
    size_t n = 6000, blk = 300;
    uint8_t *buf = malloc(n * RST_REC);
    int ok = 0;
    FILE *f = fopen("corpus/loops-4cpu.rst", "rb"); /* the project's sample (tests run from the top) */
    size_t got = f ? fread(buf, RST_REC, n, f) : 0;
    if (f) fclose(f);
    if (got == n) {
        check(variant_of(buf, n * RST_REC, &ok) == 1 && ok, "a modelled trace takes variant 1");
        streams st; /* levels 1-5 write variant 0 (it decodes faster), 6 up variant 1 */
        int v5 = encode_at(buf, n * RST_REC, TRZ_BO_BIG, 5, &st) == TRZ_CODEC_OK && !st.s[RST_S_RC].n;
        free_streams(&st);
        int v6 = encode_at(buf, n * RST_REC, TRZ_BO_BIG, 6, &st) == TRZ_CODEC_OK && st.s[RST_S_RC].n;
        free_streams(&st);
        check(v5 && v6, "level 5 writes variant 0, level 6 variant 1");
        size_t h = n / 2 * RST_REC;
        check(test_model_reuse(&trz_codec_rst, buf, h, buf + h, h, 1, TRZ_BO_BIG) &&
                  test_model_reuse(&trz_codec_rst, buf, h, buf + h, h, 9, TRZ_BO_BIG),
              "a model reset between chunks codes and decodes as a fresh one (levels 1, 9)");
    }
    else printf("skip corpus/loops-4cpu.rst (absent)\n");
    for (size_t i = 0; i < blk * RST_REC; i++) buf[i] = (uint8_t)rnd();
    for (size_t i = blk; i < n; i++) memcpy(buf + i * RST_REC, buf + (i % blk) * RST_REC, RST_REC);
    check(variant_of(buf, n * RST_REC, &ok) == 0 && ok, "repeated random records take variant 0");
    free(buf);
}

/* TLB dumps: each CPU lists mostly the same (tag, data) pairs, some new,
 * some with a known tag but new data; the tag-indexed data guess must
 * round-trip whichever way it goes. */
static void test_tlb_dump(void)
{
    size_t per = 64, ncpu = 8, n = per * ncpu;
    uint8_t *buf = malloc(n * RST_REC);
    for (size_t c = 0; c < ncpu; c++) {
        for (size_t i = 0; i < per; i++) {
            uint8_t *r = buf + (c * per + i) * RST_REC;
            memset(r, 0, RST_REC);
            r[0] = RT_TLB;
            r[1] = 0x40;
            trz_st_be16(r + 2, (uint16_t)i);
            r[4] = (uint8_t)(1 << 6 | c);
            uint64_t tag = (0xffffffff7ec00000ull + i * 0x2000) | 0x5cd, data = 0x80000007bc800020ull + i * 0x2000;
            if (rnd() % 4 == 0) tag ^= rnd() << 13;      /* a new mapping */
            else if (rnd() % 4 == 0) data ^= rnd() << 13; /* same tag, new data */
            trz_st_be64(r + 8, tag);
            trz_st_be64(r + 16, data);
        }
    }
    check(round_trip(buf, n * RST_REC, TRZ_BO_BIG, 1), "TLB dumps of 8 CPUs");
    check(round_trip(buf, n * RST_REC, TRZ_BO_LITTLE, 1), "TLB dumps of 8 CPUs, LE");
    free(buf);
}

/* ---- generated traces ------------------------------------------------------ */

static void put_instr(uint8_t *r, unsigned cpu, uint8_t flags, uint32_t iw, uint64_t pc, uint64_t ea)
{
    memset(r, 0, RST_REC);
    r[0] = RT_INSTR;
    r[1] = flags;
    r[2] = (uint8_t)((cpu & 0x3f) << 2 | (cpu >> 8));
    r[3] = (uint8_t)(((cpu >> 6) & 3) << 6);
    trz_st_be32(r + 4, iw);
    trz_st_be64(r + 8, pc);
    trz_st_be64(r + 16, ea);
}

static void put_pv(uint8_t *r, unsigned cpu, int ev, uint16_t ictx, uint16_t dctx, uint64_t pcpa, uint64_t eapa)
{
    memset(r, 0, RST_REC);
    r[0] = RT_PAVADIFF;
    r[1] = (uint8_t)(ev << 7 | (cpu & 0x7f));
    r[2] = (uint8_t)((cpu >> 7) << 5);
    trz_st_be16(r + 4, ictx);
    trz_st_be16(r + 6, dctx);
    trz_st_be64(r + 8, pcpa);
    trz_st_be64(r + 16, eapa);
}

/* A plausible BE trace: optional header, loops of loads/branches on ncpu CPUs
 * switching every 2 instructions, PAVADIFFs before some loads, a few TRAP/TLB. */
static size_t gen_trace(uint8_t *buf, size_t nrec, unsigned ncpu, int header)
{
    size_t i = 0;
    if (header && nrec) {
        memset(buf, 0, RST_REC);
        buf[0] = RT_HEADER; buf[1] = 2; buf[2] = 13; buf[3] = '%';
        memcpy(buf + 4, "RST Header v2.13", 16);
        i++;
    }
    uint64_t pcs[1024], eas[1024];
    for (unsigned c = 0; c < ncpu; c++) { pcs[c] = 0x100000 + 0x1000 * (c % 7); eas[c] = 0x7f0000 + 64 * c; }
    unsigned cpu = 0, run = 0;
    while (i < nrec) {
        uint8_t *r = buf + i * RST_REC;
        uint64_t pc = pcs[cpu], off = (pc - 0x100000) & 0x3f;
        if (rnd() % 97 == 0) {
            put_pv(r, cpu, 1, 5, 5, 0x40000000, 0x50000000 + (rnd() % 4) * 0x2000);
        } else if (rnd() % 501 == 0) {
            memset(r, 0, RST_REC);
            r[0] = (uint8_t)(rnd() % 2 ? RT_TRAP : RT_TLB);
            trz_st_be64(r + 8, pc);
            trz_st_be64(r + 16, pc + 4);
            r[2] = (uint8_t)((cpu & 0x3f) << 2);
        } else if (off == 0x3c) { /* loop branch: bne back */
            int taken = rnd() % 8 != 0;
            put_instr(r, cpu, (uint8_t)(0x40 | (taken ? 4 : 0)), 0x12bffff0u, pc, taken ? pc - 0x3c : pc + 8);
            pcs[cpu] = pc + 4;
            if (taken) pcs[cpu] = pc - 0x3c + 0x1000000; /* marker resolved below */
        } else if (off % 8 == 4) {
            eas[cpu] += 8;
            put_instr(r, cpu, 0x40, 0xc45a2008u, pc, eas[cpu]);
            pcs[cpu] = pc + 4;
        } else {
            put_instr(r, cpu, 0, 0x82006001u, pc, 0);
            pcs[cpu] = pc + 4;
        }
        /* the delay slot after a taken loop branch goes back to the loop top */
        if (pcs[cpu] >= 0x1000000) pcs[cpu] = pc + 4;
        i++;
        if (r[0] == RT_INSTR && ++run >= 2 && ncpu > 1) { cpu = (cpu + 1) % ncpu; run = 0; }
    }
    return nrec * RST_REC;
}

static void test_generated(void)
{
    size_t n = 20000;
    uint8_t *buf = malloc(n * RST_REC), *le = malloc(n * RST_REC);
    int bo = 0;

    gen_trace(buf, n, 1, 1);
    check(trz_codec_rst.probe(buf, n * RST_REC, &bo) >= 90 && bo == TRZ_BO_BIG, "probe header BE");
    check(round_trip(buf, n * RST_REC, TRZ_BO_BIG, 1), "generated 1 cpu with header");

    gen_trace(buf, n, 32, 0);
    check(trz_codec_rst.probe(buf, n * RST_REC, &bo) > 0 && bo == TRZ_BO_BIG, "probe no header");
    check(round_trip(buf, n * RST_REC, TRZ_BO_BIG, 1), "generated 32 cpus, no header");

    for (size_t i = 0; i < n; i++) rst_from_canon(le + i * RST_REC, buf + i * RST_REC);
    check(trz_codec_rst.probe(le, n * RST_REC, &bo) > 0 && bo == TRZ_BO_LITTLE, "probe little-endian");
    check(round_trip(le, n * RST_REC, TRZ_BO_LITTLE, 0), "little-endian round trip");
    check(round_trip(le, n * RST_REC, TRZ_BO_BIG, 0), "LE data coded as BE");

    gen_trace(buf, n, 1024, 0);
    for (size_t i = 0; i < n; i += 7) if (buf[i * RST_REC] == RT_INSTR) put_instr(buf + i * RST_REC, 1023, 0x40, 0xc45a2008u, 0x4000, 0x8000);
    check(round_trip(buf, n * RST_REC, TRZ_BO_BIG, 0), "1024 cpus interleaved, cpuid 1023");

    gen_trace(buf, n, 4, 1);
    for (size_t i = 1; i < n; i += 13) {
        uint8_t *r = buf + i * RST_REC;
        static const uint8_t unk[] = { 0, 1, 10, 20, 35, 200, 255 };
        if (i % 5 == 0) r[0] = unk[(i / 13) % sizeof unk];                 /* unknown rtype */
        else if (i % 5 == 1) { r[1] |= 0x81; r[3] |= 0x3f; }               /* reserved bits */
        else if (i % 5 == 2 && r[0] == RT_INSTR) { r[1] &= (uint8_t)~0x40; trz_st_be64(r + 16, rnd()); } /* garbage EA */
        else if (i % 5 == 3) { r[2] |= 0x1f; r[3] = 0xff; }               /* pavadiff notused13 */
        else for (int k = 1; k < RST_REC; k++) r[k] = (uint8_t)rnd();
    }
    check(round_trip(buf, n * RST_REC, TRZ_BO_BIG, 1), "unknown rtypes, reserved bits, garbage");

    memset(buf, 0xff, n * RST_REC);
    check(round_trip(buf, n * RST_REC, TRZ_BO_BIG, 0), "all 0xFF records");
    check(round_trip(buf, n * RST_REC, TRZ_BO_LITTLE, 0), "all 0xFF records LE");
    memset(buf, 0, n * RST_REC);
    check(round_trip(buf, n * RST_REC, TRZ_BO_BIG, 0), "all zero records");

    for (size_t i = 0; i < n * RST_REC; i++) buf[i] = (uint8_t)rnd();
    check(trz_codec_rst.probe(buf, n * RST_REC, &bo) == 0, "probe rejects random bytes");
    check(round_trip(buf, n * RST_REC, TRZ_BO_BIG, 1), "random records");
    for (size_t i = 0; i < n; i++) buf[i * RST_REC] = (uint8_t)(rnd() % 2 ? RT_INSTR : RT_PAVADIFF);
    check(round_trip(buf, n * RST_REC, TRZ_BO_BIG, 1), "random INSTR/PAVADIFF records");
    check(round_trip(buf, n * RST_REC, TRZ_BO_LITTLE, 0), "random INSTR/PAVADIFF records LE");

    const char *text = "This is a plain text file, not an RST trace at all; it goes on for a while.\n";
    for (size_t i = 0; i < 4096; i++) buf[i] = (uint8_t)text[i % strlen(text)];
    check(trz_codec_rst.probe(buf, 4096, &bo) == 0, "probe rejects text");
    for (size_t i = 0; i < 4096; i += 12) { trz_st_le32(buf + i, (uint32_t)rnd()); trz_st_le32(buf + i + 4, (uint32_t)(rnd() & 0xffff)); trz_st_le32(buf + i + 8, 0x01000000u | (uint32_t)(rnd() % 8)); }
    check(trz_codec_rst.probe(buf, 4096, &bo) == 0, "probe rejects BYU-like records");

    gen_trace(buf, 1, 1, 0);
    check(round_trip(buf, RST_REC, TRZ_BO_BIG, 1), "single INSTR record");
    put_pv(buf, 3, 1, 1, 2, 3, 4);
    check(round_trip(buf, RST_REC, TRZ_BO_BIG, 1), "single PAVADIFF record");
    put_pv(buf, 3, 1, 1, 2, 3, 4);
    put_instr(buf + RST_REC, 3, 0x40, 0xc45a2008u, 0x1000, 0x2000);
    check(round_trip(buf, 2 * RST_REC, TRZ_BO_BIG, 1), "PAVADIFF + INSTR pair");
    check(round_trip(buf, 0, TRZ_BO_BIG, 0), "empty chunk");
    free(buf);
    free(le);
}

/* ---- chains ----------------------------------------------------------------- */

/* Chunk k of a chain: nrec[k] records of buf from the end of chunk k-1. */
static int chain_encode(trz_model *m, const uint8_t *buf, const size_t *nrec, int n, int bo, int level, streams *st)
{
    int ok = 1;
    for (int k = 0, off = 0; k < n; off += (int)nrec[k], k++) {
        memset(&st[k], 0, sizeof st[k]);
        trz_enc_args ea = TEST_ENC_ARGS(buf + (size_t)off * RST_REC, nrec[k] * RST_REC, nrec[k], bo, level, st[k].s);
        ea.chain = 1;
        ok &= trz_codec_encode(&trz_codec_rst, &ea, m) == TRZ_CODEC_OK;
    }
    return ok;
}

static int chain_decode(trz_model *d, const streams *st, uint8_t *out, size_t nrec, int bo)
{
    const uint8_t *sp[TRZ_MAX_STREAMS];
    size_t sl[TRZ_MAX_STREAMS];
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) { sp[i] = st->s[i].n ? st->s[i].p : NULL; sl[i] = st->s[i].n; }
    trz_dec_args da = { sp, sl, out, nrec * RST_REC, nrec, bo, NULL, 1 };
    return trz_codec_decode(&trz_codec_rst, &da, d);
}

/* Decode the whole chain with d and compare every chunk; 1 if all match. */
static int chain_check(trz_model *d, const streams *st, const uint8_t *buf, const size_t *nrec, int n, int bo)
{
    size_t max = 0, off = 0;
    for (int k = 0; k < n; k++) max = nrec[k] > max ? nrec[k] : max;
    uint8_t *out = malloc(max * RST_REC + 1);
    int ok = out != NULL;
    for (int k = 0; k < n && ok; off += nrec[k], k++)
        ok = chain_decode(d, &st[k], out, nrec[k], bo) == TRZ_CODEC_OK && memcmp(out, buf + off * RST_REC, nrec[k] * RST_REC) == 0;
    free(out);
    return ok;
}

/* What a chunk's streams take after the back-end at level. */
static size_t chunk_cost(const streams *st, int level)
{
    size_t n = 0;
    for (int i = 0; i < TRZ_MAX_STREAMS; i++)
        if (st->s[i].n) n += test_packed_size(NULL, st->s[i].p, st->s[i].n, level);
    return n;
}

/* A piece no model predicts alone: one CPU's loads at random PCs of random
 * words from random addresses. */
static void gen_random_piece(uint8_t *buf, size_t nrec)
{
    for (size_t i = 0; i < nrec; i++)
        put_instr(buf + i * RST_REC, 0, 0x40, 0xc0000000u | (uint32_t)(rnd() & 0x3fffffff), 0x400000 + (rnd() % 65536) * 4,
                  rnd() & ~7ull);
}

/* Chunks of different sizes and behaviour in one chain: decoded by a fresh
 * decoder model, again after its reset; the encoder after its reset writes
 * the same streams; a chunk that repeats an earlier one costs far less
 * chained than alone; at level 9 a chunk the back-end codes better takes
 * variant 0 and the chain goes on; a chunk decoded with a model that skipped
 * the one before it, or damaged, must not crash. */
static void test_chain_at(int level, int bo)
{
    enum { NCH = 6 };
    static const size_t nrec[NCH] = { 7000, 3000, 1001, 3000, 6000, 5500 };
    size_t total = 0, off[NCH];
    for (int k = 0; k < NCH; k++) { off[k] = total; total += nrec[k]; }
    uint8_t *buf = malloc(total * RST_REC);
    rng_state = UNIT_RNG_SEED; /* the same records at every level and byte order */
    gen_trace(buf + off[0] * RST_REC, nrec[0], 32, 0);
    gen_random_piece(buf + off[1] * RST_REC, nrec[1]);
    gen_trace(buf + off[2] * RST_REC, nrec[2], 1, 1);
    memcpy(buf + off[3] * RST_REC, buf + off[1] * RST_REC, nrec[3] * RST_REC); /* chunk 1 again */
    uint8_t *d4 = buf + off[4] * RST_REC; /* random records repeated: the back-end's */
    for (size_t i = 0; i < 300 * RST_REC; i++) d4[i] = (uint8_t)rnd();
    for (size_t i = 300; i < nrec[4]; i++) memcpy(d4 + i * RST_REC, d4 + (i % 300) * RST_REC, RST_REC);
    gen_trace(buf + off[5] * RST_REC, nrec[5], 32, 0);
    if (bo == TRZ_BO_LITTLE)
        for (size_t i = 0; i < total; i++) {
            uint8_t t[RST_REC];
            rst_from_canon(t, buf + i * RST_REC);
            memcpy(buf + i * RST_REC, t, RST_REC);
        }
    char what[128];
    streams st[NCH], st2[NCH], one;
    trz_model *m = NULL, *d = NULL;
    int ok = trz_model_create(&trz_codec_rst, level, 0, &m) == TRZ_CODEC_OK &&
             trz_model_create(&trz_codec_rst, 0, 0, &d) == TRZ_CODEC_OK;
    ok = ok && chain_encode(m, buf, nrec, NCH, bo, level, st);
    snprintf(what, sizeof what, "chain of %d chunks, level %d, bo %d: a fresh decoder model decodes it", NCH, level, bo);
    check(ok && chain_check(d, st, buf, nrec, NCH, bo), "%s", what);
    trz_model_reset(&trz_codec_rst, d);
    snprintf(what, sizeof what, "chain, level %d, bo %d: decoded again after the decoder's reset", level, bo);
    check(ok && chain_check(d, st, buf, nrec, NCH, bo), "%s", what);
    trz_model_reset(&trz_codec_rst, m);
    int same = ok && chain_encode(m, buf, nrec, NCH, bo, level, st2);
    for (int k = 0; k < NCH && same; k++)
        for (int i = 0; i < TRZ_MAX_STREAMS && same; i++)
            same = st[k].s[i].n == st2[k].s[i].n && (!st[k].s[i].n || memcmp(st[k].s[i].p, st2[k].s[i].p, st[k].s[i].n) == 0);
    snprintf(what, sizeof what, "chain, level %d, bo %d: the encoder after its reset writes the same streams", level, bo);
    check(same, "%s", what);
    /* chunk 3 repeats chunk 1 */
    trz_enc_args ea = TEST_ENC_ARGS(buf + off[3] * RST_REC, nrec[3] * RST_REC, nrec[3], bo, level, one.s);
    memset(&one, 0, sizeof one);
    ok = ok && trz_codec_encode(&trz_codec_rst, &ea, NULL) == TRZ_CODEC_OK;
    size_t alone = chunk_cost(&one, level), chained = chunk_cost(&st[3], level);
    snprintf(what, sizeof what, "chain, level %d, bo %d: a repeated chunk costs %zu bytes chained, %zu alone", level, bo,
             chained, alone);
    check(ok && chained * 4 < alone, "%s", what);
    free_streams(&one);
    if (level >= 6) {
        int v[NCH];
        for (int k = 0; k < NCH; k++) v[k] = st[k].s[RST_S_RC].n != 0;
        snprintf(what, sizeof what, "chain, level %d, bo %d: variants %d%d%d%d%d%d", level, bo, v[0], v[1], v[2], v[3], v[4], v[5]);
        check(v[0] && v[1] && v[2] && v[3] && !v[4] && v[5], "%s", what);
    }
    /* a model that skipped chunk 1; then damaged chunks: no crash */
    uint8_t *out = malloc(8000 * RST_REC);
    for (int skip = 1; skip < NCH && ok; skip++) {
        trz_model_reset(&trz_codec_rst, d);
        for (int k = 0; k < NCH; k++) if (k != skip) (void)chain_decode(d, &st[k], out, nrec[k], bo);
    }
    for (int r = 0; r < 4 && ok; r++) {
        trz_model_reset(&trz_codec_rst, d);
        for (int k = 0; k < NCH; k++) {
            for (int i = 0; i < TRZ_MAX_STREAMS; i++)
                if (st2[k].s[i].n && rnd() % 3 == 0) st2[k].s[i].p[rnd() % st2[k].s[i].n] ^= (uint8_t)(1 + rnd() % 255);
            (void)chain_decode(d, &st2[k], out, nrec[k], bo);
        }
    }
    free(out);
    for (int k = 0; k < NCH; k++) { free_streams(&st[k]); free_streams(&st2[k]); }
    trz_model_free(&trz_codec_rst, m);
    trz_model_free(&trz_codec_rst, d);
    free(buf);
}

/* A chain longer than variant 1's window (rst.md, "Chains"): a chunk
 * shorter than it, one longer, then a short one; the window slides both
 * ways. */
static void test_chain_window(void)
{
    static const size_t nrec[3] = { 300000, 1100000, 50000 };
    size_t total = nrec[0] + nrec[1] + nrec[2];
    uint8_t *buf = malloc(total * RST_REC);
    gen_trace(buf, total, 8, 1);
    gen_random_piece(buf + (nrec[0] - 2000) * RST_REC, 2000);
    memcpy(buf + (total - 2000) * RST_REC, buf + (nrec[0] - 2000) * RST_REC, 2000 * RST_REC);
    streams st[3];
    trz_model *m = NULL, *d = NULL;
    int ok = trz_model_create(&trz_codec_rst, 6, 0, &m) == TRZ_CODEC_OK &&
             trz_model_create(&trz_codec_rst, 0, 0, &d) == TRZ_CODEC_OK;
    ok = ok && chain_encode(m, buf, nrec, 3, TRZ_BO_BIG, 6, st);
    check(ok && chain_check(d, st, buf, nrec, 3, TRZ_BO_BIG), "a chain longer than variant 1's window");
    for (int k = 0; k < 3; k++) free_streams(&st[k]);
    trz_model_free(&trz_codec_rst, m);
    trz_model_free(&trz_codec_rst, d);
    free(buf);
}

static void test_chain(void)
{
    test_chain_at(1, TRZ_BO_BIG);
    test_chain_at(9, TRZ_BO_BIG);
    test_chain_at(9, TRZ_BO_LITTLE);
    test_chain_window();
}

/* ---- corpus ---------------------------------------------------------------- */

static uint8_t *load(const char *name, size_t *len)
{
    char rel[512], path[4096];
    snprintf(rel, sizeof rel, "rst/%s.xz", name);
    return corpus_load(corpus_path(path, sizeof path, rel), len);
}

static void test_corpus(void)
{
    static const char *const files[] = { "blaze-32cpu-part1.rst", "sun-example-23847-1cpu.rst",
                                         "qemu-sparc64-minigzip6-2M.rst", "qemu-sparc64-pigz-4thr-2M.rst" };
    for (size_t k = 0; k < sizeof files / sizeof files[0]; k++) {
        size_t len = 0;
        uint8_t *d = load(files[k], &len);
        if (!d) { printf("skip %s (absent)\n", files[k]); continue; }
        int bo = 0;
        check(trz_codec_rst.probe(d, len, &bo) >= 90 && bo == TRZ_BO_BIG, "%s", files[k]);
        size_t total = len - len % RST_REC, chunk = (16u << 20) - (16u << 20) % RST_REC;
        int ok = 1;
        for (size_t off = 0; off < total; off += chunk)
            ok &= round_trip(d + off, total - off < chunk ? total - off : chunk, TRZ_BO_BIG, 0);
        check(ok, "%s", files[k]);
        /* the first 64K records byte-reversed: exact LE round trip */
        size_t n = total / RST_REC < 65536 ? total / RST_REC : 65536;
        uint8_t *le = malloc(n * RST_REC);
        for (size_t i = 0; i < n; i++) rst_from_canon(le + i * RST_REC, d + i * RST_REC);
        check(trz_codec_rst.probe(le, n * RST_REC, &bo) >= 90 && bo == TRZ_BO_LITTLE, "corpus LE probe");
        check(round_trip(le, n * RST_REC, TRZ_BO_LITTLE, 0), "corpus LE round trip");
        free(le);
        free(d);
    }
}

int main(void)
{
    test_generated();
    test_stream_lengths();
    test_text_overrun();
    test_stream_heavy();
    test_tlb_dump();
    test_every_rtype();
    test_variant_choice();
    test_chain();
    test_corpus();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
