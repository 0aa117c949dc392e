/* test_drfile.c - the drmemtrace file layer through the library: every
 * container kind (zip of 1 and several members with 4- and 8-digit names,
 * zips of other tools, stored members, data descriptors; gzip; lz4 frames;
 * snappy framing; plain records) compressed from a seekable input and from
 * a pipe, its records read back, and its original file restored byte for
 * byte from memory and from a pipe; containers cut short or damaged (kept
 * as they are, still exact); damaged restore blocks and newer ones refused;
 * the shared corpus's .trace.zip files when present. */
#include <unistd.h>
#include <xxhash.h>

#include "../include/trz.h"
#include "corpus.h"
#include "drfile_gen.h"
#include "fuzz/fuzz_common.h"
#include "unit.h"

static uint8_t *compress_mem(const uint8_t *p, size_t n, int seekable, size_t *outn, char *err, size_t errlen)
{
    fz_in in;
    fz_out out = { 0 };
    trz_io i, o;
    fz_io_in(&i, &in, p, n, 0, seekable);
    fz_io_out(&o, &out);
    trz_cctx *c = trz_cctx_create();
    trz_cctx_set(c, TRZ_C_CHUNK_BYTES, 1 << 20); /* several chunks */
    int rc = trz_compress(c, &i, &o);
    if (rc) snprintf(err, errlen, "%s", trz_cctx_error(c));
    trz_cctx_free(c);
    if (rc) { free(out.p); return NULL; }
    *outn = out.n;
    return out.p;
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
    check(a != NULL, msg);
    if (!a) return;
    trz_reader *r;
    int rc = trz_reader_open_mem(&r, a, an);
    trz_container_info ci;
    if (!rc) rc = trz_reader_container(r, &ci);
    snprintf(msg, sizeof msg, "%s: keeps its %s file (%s)", what, kind ? kind : "no", rc ? trz_reader_error(r) : "");
    check(!rc && (kind ? ci.kind && strcmp(ci.kind, kind) == 0 && ci.size == n : !ci.kind), msg);
    if (!rc && kind) {
        snprintf(msg, sizeof msg, "%s: -l says \"%s\", expected \"%s...\"", what, ci.how, how);
        check(strncmp(ci.how, how, strlen(how)) == 0, msg);
    }
    snprintf(msg, sizeof msg, "%s: the archive's records are the container's", what);
    check(!rc && records_are(r, rec, rn), msg);
    fz_out back = { 0 };
    if (kind) {
        rc = rc ? rc : restore_to(r, &back);
        snprintf(msg, sizeof msg, "%s: restored byte for byte (%s)", what, rc ? trz_reader_error(r) : "");
        check(!rc && back.n == n && memcmp(back.p, file, n) == 0, msg);
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
        check(!rc && back.n == n && memcmp(back.p, file, n) == 0, msg);
        trz_reader_close(r);
    }
    free(back.p);
    free(a);
    /* from a pipe the container cannot be checked twice: the records alone */
    a = compress_mem(file, n, 0, &an, err, sizeof err);
    snprintf(msg, sizeof msg, "%s: compresses from a pipe (%s)", what, err);
    check(a != NULL, msg);
    if (!a) return;
    rc = trz_reader_open_mem(&r, a, an);
    if (!rc) rc = trz_reader_container(r, &ci);
    snprintf(msg, sizeof msg, "%s: from a pipe, the records and no file", what);
    check(!rc && !ci.kind && records_are(r, rec, rn), msg);
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
            check(0, msg);
            bad++;
        }
    for (size_t at = 0; at < n && bad < 6; at += at < 64 ? 1 : 131, tried++) {
        memcpy(d, file, n);
        d[at] ^= (uint8_t)(0x5a + at);
        if (!exact_anyway(d, n, why, sizeof why)) {
            snprintf(msg, sizeof msg, "%s with byte %zu changed: exact (%s)", what, at, why);
            check(0, msg);
            bad++;
        }
    }
    snprintf(msg, sizeof msg, "%s: %zu cut or damaged copies all come back exactly", what, tried);
    check(bad == 0, msg);
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
    check(wrong == 0 && refused == (int)bsize, msg);
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
    check(rc == TRZ_ERR_UNSUPPORTED && strstr(trz_reader_error(r), "newer trz"), msg);
    trz_reader_close(r);
    /* an unknown step, resealed */
    memcpy(d, a, an);
    d[b + 36] = 0x7f;
    put32(d + b + bsize - 4, (uint32_t)XXH3_64bits(d + b + 36, bsize - 40));
    back.n = 0;
    rc = trz_reader_open_mem(&r, d, an);
    if (!rc) rc = restore_to(r, &back);
    snprintf(msg, sizeof msg, "unknown restore step refused clearly (%s)", trz_reader_error(r));
    check(rc == TRZ_ERR_UNSUPPORTED && strstr(trz_reader_error(r), "newer trz"), msg);
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
              msg);
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
                  memcmp(back.p, f, n) == 0, msg);
        if (getenv("TRZ_SIZES")) printf("%s %zu %zu\n", names[i], n, an);
        if (a) trz_reader_close(r);
        free(back.p);
        free(a);
        free(f);
    }
    if (!seen) printf("note: %s/drmemtrace not present; corpus round trips skipped\n", corpus_dir());
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
    round_trip("zip of a deflate trz cannot redo", f.p, f.n, rec.p, rec.n, "zip", "kept as is");

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

    golden_files();
    corpus_files();
    free(rec.p);
    free(rec2.p);
    free(f.p);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
