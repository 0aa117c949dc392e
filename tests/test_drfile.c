/* test_drfile.c - the drmemtrace file layer through the library: every
 * container kind (zip of 1 and several members with 4- and 8-digit names,
 * zips of other tools, stored members, data descriptors; gzip; lz4 frames;
 * snappy framing; plain records) compressed from a seekable input and from
 * a pipe, its records read back, and its original file restored byte for
 * byte from memory and from a pipe; containers cut short or damaged (kept
 * as they are, or stored as they are when that would outgrow the file,
 * still exact); damaged restore blocks and newer ones refused; the gzip
 * encoder (src/wrap/gzdeflate.c) against streams GNU gzip 1.12 and
 * Info-ZIP's zip 3.0 made; a zip of many members of mixed settings
 * checked on 1, 2 and 4 threads (the same archive, damaged and cut copies
 * alike, the same error when a member cannot be read again); the shared
 * corpus's .trace.zip files when present. */
#include <errno.h>
#include <unistd.h>
#include <xxhash.h>

#include "../include/trz.h"
#include "../src/wrap/gzdeflate.h"
#include "corpus.h"
#include "drfile_gen.h"
#include "fuzz/fuzz_common.h"
#include "unit.h"

static char g_warn[400]; /* the last compression's trz_cctx_warning */

static uint8_t *compress_io(const trz_io *i, int threads, size_t *outn, char *err, size_t errlen)
{
    fz_out out = { 0 };
    trz_io o;
    fz_io_out(&o, &out);
    trz_cctx *c = trz_cctx_create();
    trz_cctx_set(c, TRZ_C_CHUNK_BYTES, 1 << 20); /* several chunks */
    trz_cctx_set(c, TRZ_C_THREADS, threads);
    int rc = trz_compress(c, i, &o);
    if (rc) snprintf(err, errlen, "%s", trz_cctx_error(c));
    snprintf(g_warn, sizeof g_warn, "%s", trz_cctx_warning(c));
    trz_cctx_free(c);
    if (rc) { free(out.p); return NULL; }
    *outn = out.n;
    return out.p;
}

static uint8_t *compress_mem(const uint8_t *p, size_t n, int seekable, size_t *outn, char *err, size_t errlen)
{
    fz_in in;
    trz_io i;
    fz_io_in(&i, &in, p, n, 0, seekable);
    return compress_io(&i, 1, outn, err, errlen);
}

/* The records an archive holds, through trz_read_bytes. */
static int records_are(trz_reader *r, const uint8_t *want, size_t n)
{
    uint8_t *got = malloc(n + 1);
    size_t have = 0;
    for (;;) {
        int64_t k = trz_read_bytes(r, got + have, n + 1 - have);
        if (k <= 0) { if (k < 0) have = n + 2; break; }
        have += (size_t)k;
        if (have > n) break;
    }
    int ok = have == n && memcmp(got, want, n) == 0;
    free(got);
    return ok;
}

static int restore_to(trz_reader *r, fz_out *out)
{
    trz_io o;
    fz_io_out(&o, out);
    return trz_restore(r, &o);
}

/* file -> archive (seekable and pipe) -> records and file again. */
static void round_trip(const char *what, const uint8_t *file, size_t n, const uint8_t *rec, size_t rn,
                       const char *kind, const char *how)
{
    char msg[400], err[300] = "";
    size_t an;
    uint8_t *a = compress_mem(file, n, 1, &an, err, sizeof err);
    snprintf(msg, sizeof msg, "%s: compresses (%s)", what, err);
    check(a != NULL, "%s", msg);
    if (!a) return;
    trz_reader *r;
    int rc = trz_reader_open_mem(&r, a, an);
    trz_container_info ci;
    if (!rc) rc = trz_reader_container(r, &ci);
    snprintf(msg, sizeof msg, "%s: keeps its %s file (%s)", what, kind ? kind : "no", rc ? trz_reader_error(r) : "");
    check(!rc && (kind ? ci.kind && strcmp(ci.kind, kind) == 0 && ci.size == n : !ci.kind), "%s", msg);
    if (!rc && kind) {
        snprintf(msg, sizeof msg, "%s: -l says \"%s\", expected \"%s...\"", what, ci.how, how);
        check(strncmp(ci.how, how, strlen(how)) == 0, "%s", msg);
    }
    snprintf(msg, sizeof msg, "%s: the archive's records are the container's", what);
    check(!rc && records_are(r, rec, rn), "%s", msg);
    fz_out back = { 0 };
    if (kind) {
        rc = rc ? rc : restore_to(r, &back);
        snprintf(msg, sizeof msg, "%s: restored byte for byte (%s)", what, rc ? trz_reader_error(r) : "");
        check(!rc && back.n == n && memcmp(back.p, file, n) == 0, "%s", msg);
    }
    trz_reader_close(r);
    /* the archive read from a pipe restores too (its block is small) */
    if (kind) {
        fz_in pin;
        trz_io pio;
        fz_io_in(&pio, &pin, a, an, 4093, 0);
        back.n = 0;
        rc = trz_reader_open_io(&r, &pio);
        if (!rc) rc = restore_to(r, &back);
        snprintf(msg, sizeof msg, "%s: restored from a pipe (%s)", what, rc ? trz_reader_error(r) : "");
        check(!rc && back.n == n && memcmp(back.p, file, n) == 0, "%s", msg);
        trz_reader_close(r);
    }
    free(back.p);
    free(a);
    /* from a pipe the container cannot be checked twice: the records alone */
    a = compress_mem(file, n, 0, &an, err, sizeof err);
    snprintf(msg, sizeof msg, "%s: compresses from a pipe (%s)", what, err);
    check(a != NULL, "%s", msg);
    if (!a) return;
    rc = trz_reader_open_mem(&r, a, an);
    if (!rc) rc = trz_reader_container(r, &ci);
    snprintf(msg, sizeof msg, "%s: from a pipe, the records and no file", what);
    check(!rc && !ci.kind && records_are(r, rec, rn), "%s", msg);
    trz_reader_close(r);
    free(a);
}

/* A cut or damaged container: compressed from a file it must come back
 * exactly (what cannot be rebuilt is kept).  A gzip file whose damage hides
 * its drmemtrace records is unwrapped as any gzip input is, and that
 * refuses damaged input (nothing is written, nothing lost). */
static int exact_anyway(const uint8_t *file, size_t n, char *why, size_t cap)
{
    size_t an;
    uint8_t *a = compress_mem(file, n, 1, &an, why, cap);
    if (!a) return n >= 2 && file[0] == 0x1f && file[1] == 0x8b && !trz_container_suffix(file, n);
    trz_reader *r;
    trz_container_info ci;
    fz_out back = { 0 };
    int rc = trz_reader_open_mem(&r, a, an), ok;
    if (!rc) rc = trz_reader_container(r, &ci);
    if (!rc && !ci.kind) { /* no longer a container (its magic is gone): the bytes are the trace */
        ok = records_are(r, file, n);
        if (!ok) snprintf(why, cap, "no container, and the records differ");
    } else {
        if (!rc) rc = restore_to(r, &back);
        if (rc) snprintf(why, cap, "%s", trz_reader_error(r));
        ok = !rc && back.n == n && (n == 0 || memcmp(back.p, file, n) == 0);
        if (!rc && !ok) snprintf(why, cap, "restored %zu bytes that differ", back.n);
    }
    trz_reader_close(r);
    free(back.p);
    free(a);
    return ok;
}

static void damaged_containers(const char *what, const uint8_t *file, size_t n)
{
    char msg[400], why[300];
    int bad = 0;
    size_t tried = 0;
    uint8_t *d = malloc(n);
    for (size_t cut = 0; cut < n && bad < 3; cut += cut < 64 || cut + 64 > n ? 1 : 97, tried++)
        if (!exact_anyway(file, cut, why, sizeof why)) {
            snprintf(msg, sizeof msg, "%s cut to %zu bytes: exact (%s)", what, cut, why);
            check(0, "%s", msg);
            bad++;
        }
    for (size_t at = 0; at < n && bad < 6; at += at < 64 ? 1 : 131, tried++) {
        memcpy(d, file, n);
        d[at] ^= (uint8_t)(0x5a + at);
        if (!exact_anyway(d, n, why, sizeof why)) {
            snprintf(msg, sizeof msg, "%s with byte %zu changed: exact (%s)", what, at, why);
            check(0, "%s", msg);
            bad++;
        }
    }
    snprintf(msg, sizeof msg, "%s: %zu cut or damaged copies all come back exactly", what, tried);
    check(bad == 0, "%s", msg);
    free(d);
}

/* Where the restore block starts in a one-member archive. */
static size_t block_at(const uint8_t *a) { return 24 + (size_t)(a[22] | a[23] << 8) + 4; }

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* A damaged restore block never gives a file: every byte of it changed,
 * then a newer block version and an unknown step, each resealed. */
static void damaged_blocks(const uint8_t *file, size_t n)
{
    char err[300], msg[400];
    size_t an;
    uint8_t *a = compress_mem(file, n, 1, &an, err, sizeof err);
    check(a != NULL, "damaged blocks: compresses");
    if (!a) return;
    size_t b = block_at(a);
    size_t q = 24 + (a[24] == 1 ? 3 : 0); /* parameter 2 follows parameter 1: tag, length, kind, size */
    uint64_t bsize = 0;
    for (int i = 0; i < 8; i++) bsize |= (uint64_t)a[q + 3 + i] << (8 * i);
    check(memcmp(a + b, "TZRB", 4) == 0 && bsize >= 40 && bsize < an, "damaged blocks: the block is where FORMAT.md says");
    uint8_t *d = malloc(an);
    int wrong = 0, refused = 0;
    for (size_t k = 0; k < bsize; k++) {
        memcpy(d, a, an);
        d[b + k] ^= 0x21;
        trz_reader *r;
        fz_out back = { 0 };
        int rc = trz_reader_open_mem(&r, d, an);
        if (!rc) rc = restore_to(r, &back);
        if (rc) refused++;
        else if (back.n != n || memcmp(back.p, file, n) != 0) wrong++;
        /* a body byte whose change the body check catches, never a wrong file */
        trz_reader_close(r);
        free(back.p);
    }
    snprintf(msg, sizeof msg, "damaged blocks: %llu changed bytes, %d refused, %d gave a wrong file",
             (unsigned long long)bsize, refused, wrong);
    check(wrong == 0 && refused == (int)bsize, "%s", msg);
    /* the records stay readable when the block is damaged */
    memcpy(d, a, an);
    d[b + 40] ^= 1;
    trz_reader *r;
    int rc = trz_reader_open_mem(&r, d, an);
    uint8_t buf[4096];
    int64_t k = rc ? -1 : trz_read_bytes(r, buf, sizeof buf);
    check(k > 0, "damaged blocks: the records are still read");
    trz_reader_close(r);
    /* a newer block version, resealed: refused, saying so */
    memcpy(d, a, an);
    d[b + 4] = 2;
    put32(d + b + 32, (uint32_t)XXH3_64bits(d + b, 32));
    fz_out back = { 0 };
    rc = trz_reader_open_mem(&r, d, an);
    if (!rc) rc = restore_to(r, &back);
    snprintf(msg, sizeof msg, "newer restore block refused clearly (%s)", trz_reader_error(r));
    check(rc == TRZ_ERR_UNSUPPORTED && strstr(trz_reader_error(r), "newer trz"), "%s", msg);
    trz_reader_close(r);
    /* an unknown step, resealed */
    memcpy(d, a, an);
    d[b + 36] = 0x7f;
    put32(d + b + bsize - 4, (uint32_t)XXH3_64bits(d + b + 36, bsize - 40));
    back.n = 0;
    rc = trz_reader_open_mem(&r, d, an);
    if (!rc) rc = restore_to(r, &back);
    snprintf(msg, sizeof msg, "unknown restore step refused clearly (%s)", trz_reader_error(r));
    check(rc == TRZ_ERR_UNSUPPORTED && strstr(trz_reader_error(r), "newer trz"), "%s", msg);
    trz_reader_close(r);
    /* cut anywhere: never a file */
    int gave = 0;
    for (size_t cut = 0; cut < an; cut += cut < b + bsize + 64 ? 1 : 61) {
        back.n = 0;
        rc = trz_reader_open_mem(&r, a, cut);
        if (!rc) rc = restore_to(r, &back);
        if (!rc) gave++;
        trz_reader_close(r);
    }
    check(gave == 0, "a cut archive never restores a file");
    free(back.p);
    free(d);
    free(a);
}

/* A container whose kept streams would make the archive larger than the
 * file: stored as it is (raw, its bytes the archive's records), within
 * the bound docs/cli.md states (68 bytes, 102 per chunk of 1 MiB here),
 * with a warning that says so. */
static void stored_as_is(const char *what, const uint8_t *file, size_t n)
{
    char msg[600], err[300] = "";
    size_t an;
    uint8_t *a = compress_mem(file, n, 1, &an, err, sizeof err);
    check(a != NULL, "stored as is: compresses");
    if (!a) return;
    trz_reader *r;
    trz_container_info ci;
    int rc = trz_reader_open_mem(&r, a, an);
    if (!rc) rc = trz_reader_container(r, &ci);
    size_t bound = n + 68 + 102 * ((n + (1u << 20) - 1) >> 20);
    snprintf(msg, sizeof msg, "%s: stored as it is, %zu <= %zu bytes, its bytes the records (warning: %s)", what, an,
             bound, g_warn);
    check(!rc && !ci.kind && an <= bound && records_are(r, file, n) && strstr(g_warn, "is stored as it is"), "%s", msg);
    trz_reader_close(r);
    free(a);
}

/* A gzip member of n bytes at p whose deflate is `def` (its own header:
 * XFL as GNU gzip writes it for level). */
static void gz_member(gbuf *out, const uint8_t *p, size_t n, const gbuf *def, int level)
{
    const uint8_t h[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, (uint8_t)(level == 9 ? 2 : level == 1 ? 4 : 0), 3 };
    g_put(out, h, 10);
    g_put(out, def->p, def->n);
    g_le(out, crc32(0, p, (uInt)n), 4);
    g_le(out, n, 4);
}

static int gbuf_sink(void *ctx, const uint8_t *p, size_t n)
{
    g_put(ctx, p, n);
    return 0;
}

/* The encoder's output for the n bytes at p, fed in pieces of `piece`. */
static void gzd_make(gbuf *out, const uint8_t *p, size_t n, int level, int flavour, size_t piece)
{
    gzd *z = drf_gzd_new(level, flavour, gbuf_sink, out);
    if (!z) abort();
    for (size_t i = 0; i < n; i += piece) drf_gzd_feed(z, p + i, n - i < piece ? n - i : piece);
    drf_gzd_finish(z);
    drf_gzd_free(z);
}

static void vec_input(int i, gbuf *b)
{
    uint64_t s = 0x9e3779b97f4a7c15ull + (uint64_t)i;
    size_t bounds[4], nb;
    char line[96];
    switch (i) {
    case 0: g_records(b, 3, 40000, 0, bounds, &nb, 4); break; /* about 0.7 MB: blocks, slides */
    case 1: /* text */
        for (unsigned k = 0; k < 4000; k++) {
            static const char *const op[] = { "load", "store", "add", "branch", "call", "ret" };
            uint64_t r = g_rng(&s);
            int n = snprintf(line, sizeof line, "%06u addr=0x%08x op=%s\n", k, (unsigned)(0x401000 + (r & 0xfff0)),
                             op[(r >> 20) % 6]);
            g_put(b, line, (size_t)n);
        }
        break;
    case 2: /* 30,000 random bytes, 20,000 zeros, a 20,000-byte pattern: stored blocks, long matches */
        for (unsigned k = 0; k < 30000; k++) { uint8_t c = (uint8_t)g_rng(&s); g_put(b, &c, 1); }
        for (unsigned k = 0; k < 20000; k++) g_put(b, "", 1);
        for (unsigned k = 0; k < 20000; k++) { uint8_t c = (uint8_t)("trace"[k % 5] + k / 4000); g_put(b, &c, 1); }
        break;
    case 3: for (unsigned k = 0; k < 300; k++) { uint8_t c = (uint8_t)g_rng(&s); g_put(b, &c, 1); } break;
    default: g_put(b, "x", 1); break;
    }
}

/* The encoder against the streams GNU gzip 1.12 (gzip -N -n, --rsyncable)
 * and Info-ZIP zip 3.0 (zip -N - -, a stream to a pipe: stored blocks
 * where deflate does not pay) made of the same inputs: their length and
 * XXH3, taken from those tools' output, not from this encoder. */
static void encoder_vectors(void)
{
    static const struct { int input, flavour, level; size_t len; uint64_t hash; } v[] = {
    { 0, GZD_GNU, 1, 283988, 0x93ace59a7eeb07d4ull },
    { 0, GZD_GNU, 2, 270215, 0xc30f912ea7419428ull },
    { 0, GZD_GNU, 3, 253056, 0xa5d7e37ec3e51777ull },
    { 0, GZD_GNU, 4, 250265, 0xd9ec3ac20872a0e9ull },
    { 0, GZD_GNU, 5, 235702, 0x477d571057839771ull },
    { 0, GZD_GNU, 6, 225357, 0x5e6b155185635099ull },
    { 0, GZD_GNU, 7, 222006, 0xc89f16892a15a2efull },
    { 0, GZD_GNU, 8, 214995, 0xec25dd0067b7d06bull },
    { 0, GZD_GNU, 9, 212358, 0xeab45e255d92e6dbull },
    { 0, GZD_GNU_RSYNC, 1, 290843, 0xb5da7e4bb717ac17ull },
    { 0, GZD_GNU_RSYNC, 4, 256717, 0x08bb10ad818e35edull },
    { 0, GZD_GNU_RSYNC, 6, 230762, 0xfa40d40dfe0fe7d5ull },
    { 0, GZD_GNU_RSYNC, 9, 217241, 0x53333061b25ac7aaull },
    { 0, GZD_INFOZIP, 1, 283988, 0x93ace59a7eeb07d4ull },
    { 0, GZD_INFOZIP, 2, 270215, 0xc30f912ea7419428ull },
    { 0, GZD_INFOZIP, 3, 253056, 0xa5d7e37ec3e51777ull },
    { 0, GZD_INFOZIP, 4, 250265, 0xd9ec3ac20872a0e9ull },
    { 0, GZD_INFOZIP, 5, 235702, 0x477d571057839771ull },
    { 0, GZD_INFOZIP, 6, 225357, 0x5e6b155185635099ull },
    { 0, GZD_INFOZIP, 7, 222006, 0xc89f16892a15a2efull },
    { 0, GZD_INFOZIP, 8, 214995, 0xec25dd0067b7d06bull },
    { 0, GZD_INFOZIP, 9, 212358, 0xeab45e255d92e6dbull },
    { 1, GZD_GNU, 1, 28277, 0x7d195d14d4336f17ull },
    { 1, GZD_GNU, 2, 27397, 0xc7094846f187b28aull },
    { 1, GZD_GNU, 3, 26957, 0x10fe05bee71fd094ull },
    { 1, GZD_GNU, 4, 25237, 0x34ec181a199c6267ull },
    { 1, GZD_GNU, 5, 22263, 0x865ab104f0bf9743ull },
    { 1, GZD_GNU, 6, 21991, 0x17d022a15772cb6eull },
    { 1, GZD_GNU, 7, 21896, 0xf1e89731d46eddd9ull },
    { 1, GZD_GNU, 8, 21987, 0x0370ae2ba4e0eafaull },
    { 1, GZD_GNU, 9, 21986, 0x95a14ca6e996a21aull },
    { 1, GZD_GNU_RSYNC, 1, 28366, 0xfb427dc33a7acc26ull },
    { 1, GZD_GNU_RSYNC, 4, 25187, 0x746493d51889b807ull },
    { 1, GZD_GNU_RSYNC, 6, 22022, 0x9a45e1826ae45418ull },
    { 1, GZD_GNU_RSYNC, 9, 22009, 0x1271d91ac09c96a1ull },
    { 1, GZD_INFOZIP, 1, 28277, 0x7d195d14d4336f17ull },
    { 1, GZD_INFOZIP, 2, 27397, 0xc7094846f187b28aull },
    { 1, GZD_INFOZIP, 3, 26957, 0x10fe05bee71fd094ull },
    { 1, GZD_INFOZIP, 4, 25237, 0x34ec181a199c6267ull },
    { 1, GZD_INFOZIP, 5, 22263, 0x865ab104f0bf9743ull },
    { 1, GZD_INFOZIP, 6, 21991, 0x17d022a15772cb6eull },
    { 1, GZD_INFOZIP, 7, 21896, 0xf1e89731d46eddd9ull },
    { 1, GZD_INFOZIP, 8, 21987, 0x0370ae2ba4e0eafaull },
    { 1, GZD_INFOZIP, 9, 21986, 0x95a14ca6e996a21aull },
    { 2, GZD_GNU, 1, 30485, 0x665b0aa1b2dbd350ull },
    { 2, GZD_GNU, 2, 30485, 0x665b0aa1b2dbd350ull },
    { 2, GZD_GNU, 3, 30485, 0x665b0aa1b2dbd350ull },
    { 2, GZD_GNU, 4, 30305, 0xe7898100e81888b4ull },
    { 2, GZD_GNU, 5, 30305, 0xe7898100e81888b4ull },
    { 2, GZD_GNU, 6, 30305, 0xe7898100e81888b4ull },
    { 2, GZD_GNU, 7, 30305, 0xe7898100e81888b4ull },
    { 2, GZD_GNU, 8, 30305, 0xe7898100e81888b4ull },
    { 2, GZD_GNU, 9, 30305, 0xe7898100e81888b4ull },
    { 2, GZD_GNU_RSYNC, 1, 30962, 0xd9ed0ba47f091e0full },
    { 2, GZD_GNU_RSYNC, 4, 30795, 0x4729112868d9d940ull },
    { 2, GZD_GNU_RSYNC, 6, 30795, 0x4729112868d9d940ull },
    { 2, GZD_GNU_RSYNC, 9, 30795, 0x4729112868d9d940ull },
    { 2, GZD_INFOZIP, 1, 30485, 0x665b0aa1b2dbd350ull },
    { 2, GZD_INFOZIP, 2, 30485, 0x665b0aa1b2dbd350ull },
    { 2, GZD_INFOZIP, 3, 30485, 0x665b0aa1b2dbd350ull },
    { 2, GZD_INFOZIP, 4, 30305, 0xe7898100e81888b4ull },
    { 2, GZD_INFOZIP, 5, 30305, 0xe7898100e81888b4ull },
    { 2, GZD_INFOZIP, 6, 30305, 0xe7898100e81888b4ull },
    { 2, GZD_INFOZIP, 7, 30305, 0xe7898100e81888b4ull },
    { 2, GZD_INFOZIP, 8, 30305, 0xe7898100e81888b4ull },
    { 2, GZD_INFOZIP, 9, 30305, 0xe7898100e81888b4ull },
    { 3, GZD_GNU, 1, 305, 0x4bddb7dd0e5ebfe3ull },
    { 3, GZD_GNU, 2, 305, 0x4bddb7dd0e5ebfe3ull },
    { 3, GZD_GNU, 3, 305, 0x4bddb7dd0e5ebfe3ull },
    { 3, GZD_GNU, 4, 305, 0x4bddb7dd0e5ebfe3ull },
    { 3, GZD_GNU, 5, 305, 0x4bddb7dd0e5ebfe3ull },
    { 3, GZD_GNU, 6, 305, 0x4bddb7dd0e5ebfe3ull },
    { 3, GZD_GNU, 7, 305, 0x4bddb7dd0e5ebfe3ull },
    { 3, GZD_GNU, 8, 305, 0x4bddb7dd0e5ebfe3ull },
    { 3, GZD_GNU, 9, 305, 0x4bddb7dd0e5ebfe3ull },
    { 3, GZD_GNU_RSYNC, 1, 305, 0x4bddb7dd0e5ebfe3ull },
    { 3, GZD_GNU_RSYNC, 4, 305, 0x4bddb7dd0e5ebfe3ull },
    { 3, GZD_GNU_RSYNC, 6, 305, 0x4bddb7dd0e5ebfe3ull },
    { 3, GZD_GNU_RSYNC, 9, 305, 0x4bddb7dd0e5ebfe3ull },
    { 4, GZD_GNU, 1, 3, 0xaa5dc15fe887c021ull },
    { 4, GZD_GNU, 2, 3, 0xaa5dc15fe887c021ull },
    { 4, GZD_GNU, 3, 3, 0xaa5dc15fe887c021ull },
    { 4, GZD_GNU, 4, 3, 0xaa5dc15fe887c021ull },
    { 4, GZD_GNU, 5, 3, 0xaa5dc15fe887c021ull },
    { 4, GZD_GNU, 6, 3, 0xaa5dc15fe887c021ull },
    { 4, GZD_GNU, 7, 3, 0xaa5dc15fe887c021ull },
    { 4, GZD_GNU, 8, 3, 0xaa5dc15fe887c021ull },
    { 4, GZD_GNU, 9, 3, 0xaa5dc15fe887c021ull },
    { 4, GZD_GNU_RSYNC, 1, 3, 0xaa5dc15fe887c021ull },
    { 4, GZD_GNU_RSYNC, 4, 3, 0xaa5dc15fe887c021ull },
    { 4, GZD_GNU_RSYNC, 6, 3, 0xaa5dc15fe887c021ull },
    { 4, GZD_GNU_RSYNC, 9, 3, 0xaa5dc15fe887c021ull },
    };
    static const size_t pieces[] = { 1u << 20, 4093, 1 };
    gbuf in[5] = { { 0 } };
    int bad = 0;
    for (int i = 0; i < 5; i++) vec_input(i, &in[i]);
    for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
        gbuf out = { 0 };
        size_t piece = pieces[k % 3];
        if (piece == 1 && in[v[k].input].n > 100000) piece = 65537; /* bytes one by one: only the small inputs */
        gzd_make(&out, in[v[k].input].p, in[v[k].input].n, v[k].level, v[k].flavour, piece);
        if (out.n != v[k].len || XXH3_64bits(out.p, out.n) != v[k].hash) {
            char msg[200];
            snprintf(msg, sizeof msg, "encoder: input %d, flavour %d, level %d: %zu bytes, the tool made %zu",
                     v[k].input, v[k].flavour, v[k].level, out.n, v[k].len);
            check(0, "%s", msg);
            bad++;
        }
        free(out.p);
    }
    char msg[200];
    snprintf(msg, sizeof msg, "encoder: %zu streams of GNU gzip and Info-ZIP made again bit for bit",
             sizeof v / sizeof v[0]);
    check(bad == 0, "%s", msg);
    check(drf_gzd_new(0, GZD_GNU, gbuf_sink, NULL) == NULL && drf_gzd_new(10, GZD_GNU, gbuf_sink, NULL) == NULL &&
          drf_gzd_new(6, GZD_FLAVOURS, gbuf_sink, NULL) == NULL, "encoder: other levels and flavours refused");
    for (int i = 0; i < 5; i++) free(in[i].p);
}

/* GNU gzip files (made with the encoder, checked above against gzip
 * itself) through the library: rebuilt, restored, and damaged copies
 * exact; one whose second member trz cannot rebuild. */
static void gnu_gzip_files(const uint8_t *rec, size_t n)
{
    static const struct { int level, flavour; const char *how; } g[] = {
        { 1, GZD_GNU, "rebuilt: gzip, GNU gzip 1" }, { 6, GZD_GNU, "rebuilt: gzip, GNU gzip 6" },
        { 9, GZD_GNU, "rebuilt: gzip, GNU gzip 9" }, { 4, GZD_GNU, "rebuilt: gzip, GNU gzip 4" },
        { 6, GZD_GNU_RSYNC, "rebuilt: gzip, GNU gzip --rsyncable 6" },
    };
    gbuf f = { 0 }, d = { 0 };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        char what[80];
        f.n = d.n = 0;
        gzd_make(&d, rec, n, g[i].level, g[i].flavour, 1u << 20);
        gz_member(&f, rec, n, &d, g[i].level);
        snprintf(what, sizeof what, "gzip of GNU gzip -%d%s", g[i].level, g[i].flavour ? " --rsyncable" : "");
        round_trip(what, f.p, f.n, rec, n, "gzip", g[i].how);
        if (i == 1) damaged_containers("GNU gzip -6", f.p, f.n < 5000 ? f.n : 5000);
    }
    /* a member trz rebuilds, then a small one it does not: kept partly, within the bound, saying so */
    f.n = d.n = 0;
    gzd_make(&d, rec, n - 1200, 9, GZD_GNU, 1u << 20);
    gz_member(&f, rec, n - 1200, &d, 9);
    d.n = 0;
    g_deflate(&d, rec + n - 1200, 1200, 6, 3, Z_FILTERED);
    gz_member(&f, rec + n - 1200, 1200, &d, 6);
    round_trip("gzip, GNU gzip -9 then a foreign member", f.p, f.n, rec, n, "gzip",
               "partly rebuilt: gzip, GNU gzip 9; streams of 1200 record bytes kept as is");
    size_t an;
    char err[300] = "", msg[600];
    uint8_t *a = compress_mem(f.p, f.n, 1, &an, err, sizeof err);
    snprintf(msg, sizeof msg, "partly kept: %zu bytes from %zu, warning \"%s\"", an, f.n, g_warn);
    check(a && an < f.n && strstr(g_warn, "streams are kept as they are"), "%s", msg);
    free(a);
    /* only a foreign deflate: stored as it is */
    f.n = d.n = 0;
    g_deflate(&d, rec, n, 6, 3, Z_FILTERED);
    gz_member(&f, rec, n, &d, 6);
    stored_as_is("gzip of a deflate trz cannot redo", f.p, f.n);
    free(f.p);
    free(d.p);
}

/* Archives that keep a file, written by earlier versions (tests/files/):
 * they must still restore it, as its size and XXH3 were then. */
static void golden_files(void)
{
    /* the same six inputs written by both versions; 0.12 adds one with knowledge */
    static const struct { const char *name, *how; size_t size; uint64_t hash; } g[] = {
        { "drfile-dr-zip.trz", "rebuilt: zip, deflate 6, 3 members", 1482, 0xfb0236baf4759740ull },
        { "drfile-dr-cut-zip.trz", "partly rebuilt: zip, deflate 6, 2 members; streams of 41 record bytes kept as is", 988, 0x1dbf2426946fbb8cull },
        { "drfile-py-stored-deflated-zip.trz", "rebuilt: zip, deflate 6, 1 stored, 2 members", 2322,
          0xa280928f0bce60dbull },
        { "drfile-dr-gz.trz", "rebuilt: gzip, deflate 6", 1066, 0xdda47abbdecebbb2ull },
        { "drfile-tool-lz4.trz", "rebuilt: lz4, level 0, 1 frame", 2083, 0x48b966ae8a1628dcull },
        { "drfile-dr-sz.trz", "rebuilt: snappy, 3 chunks", 2166, 0x48769cd274eb470dull },
        { "drfile-dr-zip-know.trz", "rebuilt: zip, deflate 6, 3 members", 1482, 0xfb0236baf4759740ull },
    };
    static const char *const version[] = { "0.12", "0.11" };
    const size_t ng = sizeof g / sizeof g[0];
    for (size_t k = 0; k < 2 * ng; k++) {
        size_t i = k % ng;
        if (k >= ng && i == ng - 1) continue; /* 0.11 wrote no knowledge */
        char name[128], path[256], msg[400];
        snprintf(name, sizeof name, "%s-%s", version[k / ng], g[i].name);
        snprintf(path, sizeof path, "tests/files/%s", name);
        trz_reader *r;
        trz_container_info ci;
        fz_out back = { 0 };
        int rc = trz_reader_open_path(&r, path);
        if (!rc) rc = trz_reader_container(r, &ci);
        if (!rc) rc = restore_to(r, &back);
        snprintf(msg, sizeof msg, "golden %s: %s (%s), restores its %zu bytes", name, rc ? "" : ci.how,
                 rc ? trz_reader_error(r) : "", g[i].size);
        check(!rc && strcmp(ci.how, g[i].how) == 0 && back.n == g[i].size && XXH3_64bits(back.p, back.n) == g[i].hash,
              "%s", msg);
        trz_reader_close(r);
        free(back.p);
    }
    /* 0.18: restore operation 6, GNU gzip's and Info-ZIP's deflate */
    static const struct { const char *name, *how; size_t size; uint64_t hash; } g18[] = {
        { "0.18-drfile-gnu9-gz.trz", "rebuilt: gzip, GNU gzip 9", 1034, 0x291a8660cab43335ull },
        { "0.18-drfile-gnu-rsync-gz.trz", "rebuilt: gzip, GNU gzip --rsyncable 6", 1084, 0xac06fc3a482a04daull },
        { "0.18-drfile-infozip-zip.trz", "rebuilt: zip, Info-ZIP 1/9, 2 members", 1394, 0xa9c00c32e8b36227ull },
    };
    for (size_t i = 0; i < sizeof g18 / sizeof g18[0]; i++) {
        char path[256], msg[400];
        snprintf(path, sizeof path, "tests/files/%s", g18[i].name);
        trz_reader *r;
        trz_container_info ci;
        fz_out back = { 0 };
        int rc = trz_reader_open_path(&r, path);
        if (!rc) rc = trz_reader_container(r, &ci);
        if (!rc) rc = restore_to(r, &back);
        snprintf(msg, sizeof msg, "golden %s: %s (%s), restores its %zu bytes", g18[i].name, rc ? "" : ci.how,
                 rc ? trz_reader_error(r) : "", g18[i].size);
        check(!rc && strcmp(ci.how, g18[i].how) == 0 && back.n == g18[i].size &&
                  XXH3_64bits(back.p, back.n) == g18[i].hash, "%s", msg);
        trz_reader_close(r);
        free(back.p);
    }
}

static void corpus_files(void)
{
    static const char *const names[] = {
        "drmemtrace.core.000000.trace.zip", "drmemtrace.simple_app.trace.zip",
        "drmemtrace.threadsig.872805.4975.trace.zip", "drmemtrace.threadsig.872894.3824.trace.zip",
        "drmemtrace.threadsig.872904.7848.trace.zip", "drmemtrace.threadsig.872905.5783.trace.zip",
    };
    int seen = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512], msg[600], err[300] = "";
        snprintf(path, sizeof path, "%s/drmemtrace/%s", corpus_dir(), names[i]);
        size_t n;
        uint8_t *f = corpus_load(path, &n);
        if (!f) continue;
        seen++;
        size_t an;
        uint8_t *a = compress_mem(f, n, 1, &an, err, sizeof err);
        trz_reader *r;
        trz_container_info ci;
        fz_out back = { 0 };
        int rc = a ? trz_reader_open_mem(&r, a, an) : -1;
        if (!rc) rc = trz_reader_container(r, &ci);
        if (!rc) rc = restore_to(r, &back);
        snprintf(msg, sizeof msg, "corpus %s: %zu -> %zu bytes, %s, restored exactly", names[i], n, an,
                 rc ? err : ci.how);
        check(!rc && strcmp(ci.how, "rebuilt: zip, deflate 6, 1 member") == 0 && back.n == n &&
                  memcmp(back.p, f, n) == 0, "%s", msg);
        if (getenv("TRZ_SIZES")) printf("%s %zu %zu\n", names[i], n, an);
        if (a) trz_reader_close(r);
        free(back.p);
        free(a);
        free(f);
    }
    if (!seen) printf("note: %s/drmemtrace not present; corpus round trips skipped\n", corpus_dir());
}

/* An input that fails (EIO) every read that starts at `at`, where a
 * stream begins: the plan's walk reads on from where it was, what starts
 * there is a check reading the stream again. */
typedef struct again_in {
    fz_in in;
    size_t at;
} again_in;

static int64_t again_read(void *opaque, void *buf, size_t n)
{
    again_in *e = opaque;
    if (e->in.pos == e->at) { errno = EIO; return -1; }
    return fz_in_read(&e->in, buf, n);
}

/* compress at `threads`: the archive, or NULL and the error in err */
static uint8_t *compress_t(const uint8_t *p, size_t n, int threads, size_t *an, char *err, size_t cap)
{
    fz_in in;
    trz_io i;
    fz_io_in(&i, &in, p, n, 0, 1);
    err[0] = 0;
    return compress_io(&i, threads, an, err, cap);
}

/* The same archive (or the same error) from 1 thread and from 4. */
static int same_at_4(const uint8_t *p, size_t n, char *why, size_t cap)
{
    char e1[300], e4[300];
    size_t n1 = 0, n4 = 0;
    uint8_t *a1 = compress_t(p, n, 1, &n1, e1, sizeof e1), *a4 = compress_t(p, n, 4, &n4, e4, sizeof e4);
    int same = a1 && a4 ? n1 == n4 && memcmp(a1, a4, n1) == 0 : !a1 && !a4 && strcmp(e1, e4) == 0;
    snprintf(why, cap, "%s / %s", a1 ? "archive" : e1, a4 ? "archive" : e4);
    free(a1);
    free(a4);
    return same;
}

/* A zip of many members checked on 1, 2 and 4 threads: members that the
 * first settings rebuild, ones that need a retry (levels 9, 1, 5; memLevel
 * 9), stored ones, ones with data descriptors, and ones no setting rebuilds
 * (kept); the same archive each time, restored byte for byte.  Then the
 * same zip damaged and cut, and with a stream that cannot be read again. */
static void threads_agree(void)
{
    char msg[1200], err[300];
    gbuf rec = { 0 }, f = { 0 };
    size_t b0[64], n0, bounds[128], nb = 0;
    g_records(&rec, 11, 140000, 4000, b0, &n0, 64);
    /* and a small member (300 record bytes) before every third: checked on the walk, not handed over */
    for (size_t i = 0, prev = 0; i < n0; prev = b0[i++]) {
        if (i % 3 == 2) bounds[nb++] = prev + 300;
        bounds[nb++] = b0[i];
    }
    const zip_style st[] = { { 6, 8, 0, 8, 0, 0 }, { 9, 8, 0, 8, 0, 0 }, { 1, 8, 0, 8, 0, 1 }, { 6, 9, 0, 8, 0, 0 },
                             { 0, 8, 0, 8, 0, 0 }, { 5, 8, 0, 8, 1, 0 }, { 6, 8, 0, 8, 0, 1 },
                             { 6, 3, Z_FILTERED, 8, 0, 0 }, { 6, 8, 0, 8, 0, 0 }, { 1, 9, 0, 8, 0, 0 },
                             { 9, 8, 0, 8, 0, 0 }, { 6, 8, 0, 8, 0, 0 } };
    g_zip_styles(&f, rec.p, bounds, nb, st, sizeof st / sizeof st[0]);
    uint8_t *a[3] = { NULL, NULL, NULL };
    size_t an[3] = { 0, 0, 0 };
    static const int thr[3] = { 1, 2, 4 };
    for (int t = 0; t < 3; t++) {
        a[t] = compress_t(f.p, f.n, thr[t], &an[t], err, sizeof err);
        snprintf(msg, sizeof msg, "zip of %zu mixed members, -T%d: compresses (%s)", nb, thr[t], err);
        check(a[t] != NULL, "%s", msg);
        if (t == 2) {
            snprintf(msg, sizeof msg, "zip of %zu mixed members, -T4: some kept (\"%s\")", nb, g_warn);
            check(strstr(g_warn, "kept as they are") != NULL, "%s", msg);
        }
        if (t && a[0] && a[t]) {
            snprintf(msg, sizeof msg, "zip of %zu mixed members: -T%d writes the archive -T1 writes (%zu, %zu bytes)",
                     nb, thr[t], an[t], an[0]);
            check(an[t] == an[0] && memcmp(a[t], a[0], an[0]) == 0, "%s", msg);
        }
    }
    if (a[2]) {
        trz_reader *r;
        fz_out back = { 0 };
        trz_container_info ci;
        int rc = trz_reader_open_mem(&r, a[2], an[2]);
        if (!rc) rc = trz_reader_container(r, &ci);
        snprintf(msg, sizeof msg, "zip of mixed members, -T4: -l says \"%s\"", rc ? "" : ci.how);
        check(!rc && strstr(ci.how, "deflate 1/5/6/9") && strstr(ci.how, "stored"), "%s", msg);
        check(!rc && records_are(r, rec.p, rec.n), "zip of mixed members, -T4: the records are the zip's");
        rc = rc ? rc : restore_to(r, &back);
        snprintf(msg, sizeof msg, "zip of mixed members, -T4: restored byte for byte (%s)", rc ? trz_reader_error(r) : "");
        check(!rc && back.n == f.n && memcmp(back.p, f.p, f.n) == 0, "%s", msg);
        trz_reader_close(r);
        free(back.p);
    }
    for (int t = 0; t < 3; t++) free(a[t]);

    /* damaged and cut: what -T1 makes of it, -T4 makes */
    uint8_t *d = malloc(f.n);
    int bad = 0, tried = 0;
    for (size_t at = f.n / 7; at < f.n && bad < 3; at += f.n / 7, tried += 2) {
        char why[700];
        memcpy(d, f.p, f.n);
        d[at] ^= 0x21;
        if (!same_at_4(d, f.n, why, sizeof why)) {
            snprintf(msg, sizeof msg, "zip with byte %zu changed: -T4 as -T1 (%s)", at, why);
            check(0, "%s", msg);
            bad++;
        }
        if (!same_at_4(f.p, at, why, sizeof why)) {
            snprintf(msg, sizeof msg, "zip cut to %zu bytes: -T4 as -T1 (%s)", at, why);
            check(0, "%s", msg);
            bad++;
        }
    }
    snprintf(msg, sizeof msg, "zip of mixed members: %d damaged or cut copies, -T4 as -T1", tried);
    check(bad == 0, "%s", msg);
    free(d);

    /* the last member of level 9 (it needs a retry) fails when read
     * again: the error -T1 reports, -T4 reports (the worker's errno) */
    size_t k = nb - 1, ns = sizeof st / sizeof st[0];
    while (k && (st[k % ns].level != 9 || bounds[k] - bounds[k - 1] < 20000)) k--; /* handed over */
    char name[32], e1[300], e4[300];
    snprintf(name, sizeof name, "chunk.%08u", (unsigned)k);
    const uint8_t *h = NULL;
    for (size_t i = 0; !h && i + strlen(name) <= f.n; i++)
        if (memcmp(f.p + i, name, strlen(name)) == 0) h = f.p + i; /* the local header's name, before the directory's */
    check(h != NULL && k > nb / 2, "a member of level 9 late in the zip");
    if (h) {
        size_t an1 = 0, an4 = 0;
        again_in e;
        trz_io io;
        uint8_t *r[2];
        for (int t = 0; t < 2; t++) {
            fz_io_in(&io, &e.in, f.p, f.n, 0, 1);
            e.at = (size_t)(h - f.p) + strlen(name);
            io.opaque = &e;
            io.read = again_read;
            errno = 0; /* what the last run left is not what this one says */
            r[t] = compress_io(&io, t ? 4 : 1, t ? &an4 : &an1, t ? e4 : e1, sizeof e1);
        }
        snprintf(msg, sizeof msg, "a member that cannot be read again: -T1 fails (%s)", r[0] ? "it did not" : e1);
        check(!r[0] && strstr(e1, "Input/output error"), "%s", msg);
        snprintf(msg, sizeof msg, "a member that cannot be read again: -T4 says what -T1 says (%s)", r[1] ? "no error" : e4);
        check(!r[1] && strcmp(e1, e4) == 0, "%s", msg);
        free(r[0]);
        free(r[1]);
    }
    free(rec.p);
    free(f.p);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* lines survive a sanitizer's exit */
    gbuf rec = { 0 }, f = { 0 };
    size_t bounds[64], nb;
    zip_style dr4 = { 6, 8, 0, 4, 0, 0 }, dr8 = { 6, 8, 0, 8, 0, 0 };

    /* zip: one member, several (4 and 8 digits), other tools, stored, foreign deflate */
    g_records(&rec, 1, 30000, 0, bounds, &nb, 64);
    g_zip(&f, rec.p, bounds, nb, &dr4);
    round_trip("zip, 1 member", f.p, f.n, rec.p, rec.n, "zip", "rebuilt: zip, deflate 6, 1 member");
    damaged_blocks(f.p, f.n);
    rec.n = f.n = 0;
    g_records(&rec, 2, 60000, 10000, bounds, &nb, 64);
    g_zip(&f, rec.p, bounds, nb, &dr4);
    round_trip("zip, 6 members, chunk.0000", f.p, f.n, rec.p, rec.n, "zip", "rebuilt: zip, deflate 6, 6 members");
    f.n = 0;
    g_zip(&f, rec.p, bounds, nb, &dr8);
    round_trip("zip, 6 members, chunk.00000000", f.p, f.n, rec.p, rec.n, "zip", "rebuilt: zip, deflate 6, 6 members");
    zip_style other = { 9, 8, 0, 4, 1, 0 }, desc = { 6, 8, 0, 4, 1, 1 }, stored = { 0, 8, 0, 4, 1, 0 };
    zip_style foreign = { 6, 3, Z_FILTERED, 4, 1, 0 };
    f.n = 0;
    g_zip(&f, rec.p, bounds, nb, &other);
    round_trip("zip of another tool (dates, extra fields, level 9)", f.p, f.n, rec.p, rec.n, "zip",
               "rebuilt: zip, deflate 9, 6 members");
    f.n = 0;
    g_zip(&f, rec.p, bounds, nb, &desc);
    round_trip("zip with data descriptors", f.p, f.n, rec.p, rec.n, "zip", "rebuilt: zip, deflate 6, 6 members");
    f.n = 0;
    g_zip(&f, rec.p, bounds, nb, &stored);
    round_trip("zip of stored members", f.p, f.n, rec.p, rec.n, "zip", "rebuilt: zip, 6 stored, 6 members");
    f.n = 0;
    g_zip(&f, rec.p, bounds, nb, &foreign);
    stored_as_is("zip of a deflate trz cannot redo", f.p, f.n);

    /* gzip: zlib's gzopen, and a named multi-member one of level 9 */
    f.n = 0;
    g_gzip(&f, rec.p, rec.n, 6, 0);
    round_trip("gzip (gzopen)", f.p, f.n, rec.p, rec.n, "gzip", "rebuilt: gzip, deflate 6");
    damaged_containers("gzip", f.p, f.n < 6000 ? f.n : 6000);
    f.n = 0;
    g_gzip(&f, rec.p, rec.n / 2, 9, 1);
    g_gzip(&f, rec.p + rec.n / 2, rec.n - rec.n / 2, 9, 1);
    round_trip("gzip, named, 2 members, level 9", f.p, f.n, rec.p, rec.n, "gzip", "rebuilt: gzip, deflate 9, several");

    /* lz4: DynamoRIO's 1 MiB feeds; an lz4-tool-like frame; content size */
    LZ4F_preferences_t pr;
    memset(&pr, 0, sizeof pr);
    f.n = 0;
    g_lz4(&f, rec.p, rec.n, 1u << 20, &pr);
    round_trip("lz4 (lz4_ostream_t)", f.p, f.n, rec.p, rec.n, "lz4", "rebuilt: lz4, level 0, 1 frame");
    damaged_containers("lz4", f.p, 5000);
    pr.frameInfo.blockSizeID = LZ4F_max4MB;
    pr.frameInfo.blockMode = LZ4F_blockIndependent;
    pr.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
    pr.compressionLevel = 1;
    f.n = 0;
    g_lz4(&f, rec.p, rec.n, 4u << 20, &pr);
    g_lz4(&f, rec.p, 1000, 4u << 20, &pr); /* a second frame */
    gbuf rec2 = { 0 };
    g_put(&rec2, rec.p, rec.n);
    g_put(&rec2, rec.p, 1000);
    round_trip("lz4, 2 independent-block frames with checksums", f.p, f.n, rec2.p, rec2.n, "lz4",
               "rebuilt: lz4, level 0, 2 frames");
    memset(&pr, 0, sizeof pr);
    pr.frameInfo.contentSize = rec.n;
    pr.compressionLevel = 9;
    f.n = 0;
    g_lz4(&f, rec.p, rec.n, 1u << 20, &pr);
    round_trip("lz4, content size, level 9", f.p, f.n, rec.p, rec.n, "lz4", "rebuilt: lz4, level 9, 1 frame");

    /* snappy framing: uneven blocks, padding, with and without CRCs */
    static const size_t sizes[] = { 65536, 65536, 65534, 4000 };
    f.n = 0;
    g_snappy(&f, rec.p, rec.n, sizes, 4, 1, 1);
    round_trip("snappy framing", f.p, f.n, rec.p, rec.n, "snappy", "rebuilt: snappy,");
    damaged_containers("snappy", f.p, 5000);
    f.n = 0;
    g_snappy(&f, rec.p, rec.n, sizes + 2, 2, 0, 0);
    round_trip("snappy framing without CRCs", f.p, f.n, rec.p, rec.n, "snappy", "rebuilt: snappy,");

    /* GNU gzip's and Info-ZIP's deflate */
    encoder_vectors();
    gnu_gzip_files(rec.p, rec.n);

    /* plain records: nothing to keep */
    round_trip("plain .trace", rec.p, rec.n, rec.p, rec.n, NULL, NULL);

    /* small zips, cut and damaged everywhere (several members, so that the
     * cuts fall in headers, streams and the central directory) */
    rec.n = f.n = 0;
    g_records(&rec, 3, 300, 100, bounds, &nb, 64);
    g_zip(&f, rec.p, bounds, nb, &dr4);
    damaged_containers("zip", f.p, f.n);
    f.n = 0;
    g_zip(&f, rec.p, bounds, nb, &desc);
    damaged_containers("zip with descriptors", f.p, f.n);

    /* the names archives get */
    check(trz_container_suffix(f.p, f.n) && strcmp(trz_container_suffix(f.p, f.n), ".zip") == 0, "a zip keeps .zip");
    f.n = 0;
    g_gzip(&f, rec.p, rec.n, 6, 0);
    check(trz_container_suffix(f.p, f.n) && strcmp(trz_container_suffix(f.p, f.n), ".gz") == 0,
          "a gzip of drmemtrace records keeps .gz");
    f.n = 0;
    g_gzip(&f, (const uint8_t *)"hello, world\n", 13, 6, 0);
    check(trz_container_suffix(f.p, f.n) == NULL, "another gzip is unwrapped (its .gz goes)");
    check(trz_container_suffix(rec.p, rec.n) == NULL, "plain records keep no container");

    threads_agree();
    golden_files();
    corpus_files();
    free(rec.p);
    free(rec2.p);
    free(f.p);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
