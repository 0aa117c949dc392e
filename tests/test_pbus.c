/* test_pbus.c - round-trip and robustness tests for the PEL Pentium bus codec: generated
 * edge cases, every corpus file of the format when present, and damaged
 * streams fed to the decoder (run under ASan/UBSan). */
#include "../codecs/codec.h"

#define TEST_BYTE_ORDER TRZ_BO_BIG
#include "bus_test.h"

static void put_rec(uint8_t *r, uint32_t addr, uint8_t be, uint8_t ctl)
{
    trz_st_be32(r, addr);
    r[4] = be;
    r[5] = ctl;
}

/* A synthetic program: fetches walking code, reads and writes at strides,
 * byte enables from size and alignment. */
static size_t gen_program(uint8_t *buf, size_t nrec, int wild)
{
    uint32_t pc = 0x400000, sp = 0x7fff0000;
    for (size_t i = 0; i < nrec; i++) {
        uint32_t r = rnd() % 100;
        uint8_t *q = buf + i * 6;
        if (r < 60) {
            pc = (rnd() % 10 == 0) ? 0x400000 + (rnd() % 4096) * 8 : pc + 8 * (rnd() % 2);
            put_rec(q, pc, 0, 0x80);
        } else if (r < 85) put_rec(q, sp + 8 * (rnd() % 16), 0, 0xc0);
        else if (r < 95) put_rec(q, 0x10000000 + (uint32_t)i * 4, (uint8_t)(i & 1 ? 0x0f : 0xf0), 0xf0);
        else put_rec(q, rnd(), (uint8_t)rnd(), (uint8_t)(rnd() % 16 << 4 | (r & 1)));
        if (wild) for (int k = 0; k < 6; k++) if (rnd() % 50 == 0) q[k] = (uint8_t)rnd();
    }
    return nrec * 6;
}

/* A trace made at instruction grain, as a tool (or a converted BYU trace)
 * gives it: one record per instruction fetch and per data access, the
 * byte enables marking the bytes used within the 8-byte cycle (clipped at
 * its end).  A loop of instructions of varied lengths, each with its own
 * access size; odd records (unaligned addresses, split byte enables, none
 * requested) when wild. */
static size_t gen_tool(uint8_t *buf, size_t nrec, int wild)
{
    static const uint8_t ilen[12] = { 3, 5, 2, 7, 4, 1, 6, 3, 8, 2, 5, 3 };
    static const uint8_t dlen[12] = { 0, 4, 0, 8, 0, 0, 2, 0, 1, 0, 4, 0 };
    uint32_t pc = 0x401000, data = 0x800000;
    size_t n = 0;
    for (unsigned it = 0; n < nrec; it++) {
        uint32_t x = pc;
        for (int k = 0; k < 12 && n < nrec; k++) {
            unsigned off = x & 7, len = ilen[k] < 8 - off ? ilen[k] : 8 - off;
            put_rec(buf + 6 * n++, x & ~7u, (uint8_t)~(((1u << len) - 1) << off), 0x90);
            x += ilen[k];
            if (dlen[k] && n < nrec) {
                uint32_t d = data + (uint32_t)k * 64 + (it % 50) * dlen[k];
                off = d & 7;
                len = dlen[k] < 8 - off ? dlen[k] : 8 - off;
                put_rec(buf + 6 * n++, d & ~7u, (uint8_t)~(((1u << len) - 1) << off), k & 1 ? 0xf0 : 0xd0);
            }
        }
        if (wild && n < nrec && rnd() % 4 == 0) put_rec(buf + 6 * n++, rnd(), (uint8_t)rnd(), (uint8_t)(rnd() & 0xf0));
    }
    return nrec * 6;
}

static void test_generated(const trz_codec *c)
{
    size_t n = 20000;
    uint8_t *buf = malloc(n * 6);
    uint8_t one[6];
    put_rec(one, 0x1234, 0x00, 0xc0);
    check(roundtrip(c, one, 6), "one record");
    check(roundtrip(c, one, 0), "zero records");
    memset(buf, 0xff, 6 * 100);
    check(roundtrip(c, buf, 6 * 100), "all-0xFF fields");
    memset(buf, 0, 6 * 100);
    check(roundtrip(c, buf, 6 * 100), "all-zero records");
    put_rec(buf, 0x1000, 0x00, 0x2f);      /* invalid type, low nibble set */
    put_rec(buf + 6, 0x2004, 0x0f, 0xf0);  /* upper four bytes */
    put_rec(buf + 12, 0x2000, 0xf0, 0xf0); /* lower four bytes */
    put_rec(buf + 18, 0x1008, 0x5a, 0xa7);
    check(roundtrip(c, buf, 24), "invalid types, partial byte enables");
    check(roundtrip(c, buf, gen_program(buf, n, 0)), "synthetic program");
    damage(c, buf, 6 * 3000);
    check(roundtrip(c, buf, gen_program(buf, n, 1)), "random bytes sprinkled");
    damage(c, buf, 6 * 3000);
    check(roundtrip(c, buf, gen_tool(buf, n, 0)), "instruction-grain trace");
    damage(c, buf, 6 * 3000);
    check(roundtrip(c, buf, gen_tool(buf, n, 1)), "instruction-grain trace with odd records");
    damage(c, buf, 6 * 3000);
    for (size_t i = 0; i < n * 6; i++) buf[i] = (uint8_t)rnd();
    check(roundtrip(c, buf, n * 6), "random records");
    damage(c, buf, 6 * 500);
    int bo;
    check(c->probe(buf, n * 6, &bo) < 30, "probe rejects random bytes");
    const char *txt = "0041f760 00 I_FETCH\n0041f780 00 I_FETCH\n11f5e2c0 00 D_READ\n";
    check(c->probe((const uint8_t *)txt, strlen(txt), &bo) < 30, "probe rejects text");
    gen_program(buf, n, 0);
    check(c->probe(buf, n * 6, &bo) >= 50 && bo == TRZ_BO_BIG, "probe accepts synthetic PEL bus");
    free(buf);
}

/* Round trip a whole file in 16 MiB chunks (as the container does). */
static void test_data(const trz_codec *c, const uint8_t *d, size_t n, const char *name)
{
    static const int levels[] = { 1, 9, 12 }; /* stream, fast and mixed models */
    size_t rs = c->record_size, chunk = (16u << 20) - (16u << 20) % rs;
    n -= n % rs;
    for (int l = 0; l < 3; l++) {
        int ok = 1;
        level = levels[l];
        for (size_t off = 0; off < n && ok; off += chunk)
            ok = roundtrip(c, d + off, n - off < chunk ? n - off : chunk);
        char what[4200];
        snprintf(what, sizeof what, "%s at level %d", name, level);
        check(ok, what);
    }
    /* one model for two chunks, reset between them: a larger chunk before a
     * smaller one (tables kept larger than the second needs) and the other way */
    size_t h = n / 2 < (1u << 20) ? n / 2 : (1u << 20), q = h / 4;
    h -= h % rs;
    q -= q % rs;
    for (int l = 0; l < 3; l++) {
        char what[4200];
        snprintf(what, sizeof what, "%s: a model reset between two chunks at level %d", name, levels[l]);
        check(test_model_reuse(c, d, h, d + h, q, levels[l], TEST_BYTE_ORDER) &&
                  test_model_reuse(c, d + h, q, d, h, levels[l], TEST_BYTE_ORDER),
              what);
    }
    level = 9;
}

/* The stream path's models: a trace whose cycle addresses are regular and
 * whose byte runs are not keeps the cycle model (no mode stream), an instruction-grain
 * one takes the exact model; a mode byte out of range, an escaped kind
 * that is known or has a length above 8, and a run past the cycle's end are
 * corrupt. */
static void test_modes(const trz_codec *c)
{
    size_t n = 40000;
    uint8_t *buf = malloc(n * 6), *out = malloc(n * 6);
    enc_out e;
    /* level 1: the lean models (modes 3 and 4); level 9: the stream path's
     * (the cycle model without a mode stream, the exact ones 1 and 2) when
     * it wins over the arithmetic path */
    for (int pass = 0; pass < 2; pass++) {
        int lean = pass == 0;
        level = lean ? 1 : 9;
        for (size_t i = 0; i < n; i++) { /* cycles in order, each with a run of bytes at random */
            unsigned off = rnd() % 8, len = 1 + rnd() % (8 - off);
            put_rec(buf + 6 * i, 0x100000 + 8 * (uint32_t)i, (uint8_t)~(((1u << len) - 1) << off), 0xd0);
        }
        int ok = encode(c, buf, n * 6, &e) == TRZ_CODEC_OK;
        if (lean) check(ok && e.sl[9] == 1 && e.sp[9][0] == 3, "cycles in order take the lean cycle model");
        else if (ok && e.sl[15] == 0) check(e.sl[9] == 0, "cycles in order keep the cycle model");
        enc_free(&e);
        gen_tool(buf, n, 0);
        ok = encode(c, buf, n * 6, &e) == TRZ_CODEC_OK;
        if (!lean && ok && e.sl[15]) { /* the arithmetic path won: nothing of the stream path to check */
            enc_free(&e);
            printf("level 9 took the arithmetic path for the instruction-grain trace\n");
            continue;
        }
        ok = ok && e.sl[9] == 1 && (lean ? e.sp[9][0] == 4 : e.sp[9][0] == 1 || e.sp[9][0] == 2);
        check(ok, lean ? "an instruction-grain trace takes the lean exact model" : "an instruction-grain trace takes the exact model");
        if (ok) {
            check(e.sl[6] == 0, "its byte enables are all runs: none stored");
            /* each distinct (control byte, length) is escaped once: fewer than 30 here */
            check(e.sl[5] > 0 && e.sl[5] < 60 && e.sl[5] % 2 == 0, "new kinds are escaped once each");
            const uint8_t *sp[TRZ_MAX_STREAMS];
            size_t sl[TRZ_MAX_STREAMS];
            uint8_t mode = 0, *kb = malloc(e.sl[5]);
            memcpy(sp, e.sp, sizeof sp);
            memcpy(sl, e.sl, sizeof sl);
            static const uint8_t bad_modes[] = { 0, 3, 4 };
            for (size_t k = 0; k < sizeof bad_modes; k++) {
                mode = bad_modes[k];
                if (mode == e.sp[9][0] || (lean && mode == 3)) continue; /* lean cycle on lean exact streams may decode */
                sp[9] = &mode;
                check(decode(c, sp, sl, out, n * 6) == TRZ_CODEC_CORRUPT, "another model byte is corrupt");
            }
            mode = 255;
            check(decode(c, sp, sl, out, n * 6) == TRZ_CODEC_UNSUPPORTED, "a later version's model is unsupported");
            mode = 5;
            check(decode(c, sp, sl, out, n * 6) == TRZ_CODEC_UNSUPPORTED, "a later version's model (5) is unsupported");
            mode = (uint8_t)(16 | e.sp[9][0]);
            check(decode(c, sp, sl, out, n * 6) == TRZ_CODEC_CORRUPT, "a feed mode outside a chain is corrupt");
            sp[9] = e.sp[9];
            memcpy(kb, e.sp[5], e.sl[5]);
            sp[5] = kb;
            kb[1] = 9;
            check(decode(c, sp, sl, out, n * 6) == TRZ_CODEC_CORRUPT, "an escaped length above 8 is corrupt");
            /* the first kind is a fetch of length 3 at offset 0 of its cycle;
             * made length 8 it still fits there, but not where the same kind
             * comes again at offset 4 (the eighth instruction of the loop) */
            memcpy(kb, e.sp[5], e.sl[5]);
            kb[1] = 8;
            check(decode(c, sp, sl, out, n * 6) == TRZ_CODEC_CORRUPT, "a run past the cycle's end is corrupt");
            free(kb);
            if (lean) damage(c, buf, 6 * 3000);
        }
        enc_free(&e);
    }
    /* two records by hand, both whole fetch addresses: a second escape of
     * the same kind is corrupt (each kind has one id), of another is fine */
    {
        const uint8_t ctl[2] = { 255, 255 }, code[2] = { 39, 39 }, m1 = 1;
        uint8_t kinds[4] = { 0x90, 8, 0x90, 4 }, miss[8] = { 0, 0x10, 0, 0, 0, 0x20, 0, 0 };
        const uint8_t *sp[TRZ_MAX_STREAMS] = { ctl, code, NULL, miss, NULL, kinds, NULL, NULL, NULL, &m1 };
        size_t sl[TRZ_MAX_STREAMS] = { 2, 2, 0, 8, 0, 4, 0, 0, 0, 1 };
        uint8_t want[12] = { 0, 0, 0x10, 0, 0x00, 0x90, 0, 0, 0x20, 0, 0xf0, 0x90 };
        check(decode(c, sp, sl, out, 12) == TRZ_CODEC_OK && memcmp(out, want, 12) == 0, "two kinds escaped by hand");
        kinds[3] = 8;
        check(decode(c, sp, sl, out, 12) == TRZ_CODEC_CORRUPT, "an escaped kind that is known is corrupt");
    }
    level = 9;
    free(out);
    free(buf);
}

/* A chain of chunks of different sizes and kinds: a walk over addresses
 * never seen before (fetches and reads at random 8-byte cycles), a short
 * program with odd records, the walk again, a program, an
 * instruction-grain trace with odd records, the program again. */
static void test_chain(const trz_codec *c)
{
    size_t len[6] = { 6 * 2100, 6 * 300, 6 * 2100, 6 * 3000, 6 * 1500, 6 * 3000 }, n = 0;
    for (int i = 0; i < 6; i++) n += len[i];
    uint8_t *buf = malloc(n), *p = buf;
    for (size_t i = 0; i < 2100; i += 2) {
        put_rec(p + i * 6, rnd() & ~7u, 0, 0x80);
        put_rec(p + i * 6 + 6, rnd() & ~7u, 0x0f, 0xc0);
    }
    p += len[0];
    p += gen_program(p, 300, 1);
    memcpy(p, buf, len[0]);
    p += len[0];
    p += gen_program(p, 3000, 0);
    p += gen_tool(p, 1500, 1);
    memcpy(p, p - len[4] - len[3], len[3]);
    bus_chain(c, buf, len, 6, 2);
    free(buf);
}

int main(void)
{
    const trz_codec *c = trz_codec_by_name("pbus");
    if (!c) { printf("pbus codec not registered\n0 passed, 1 failed\n"); return 1; }
    bus_levels(c, test_generated);
    test_modes(c);
    level = 9;
    uint8_t *vb = malloc(6 * 4000);
    variant_check(c, vb, gen_program(vb, 4000, 1));
    free(vb);
    test_chain(c);
    bus_corpus(c, "pbus", test_data);
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
