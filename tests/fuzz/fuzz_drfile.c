/* fuzz_drfile.c - fuzz target `drfile`: the drmemtrace file layer's
 * container parsers, its plan (the check of every rebuilt stream) and its
 * restore.  The input is a file as trz meets it (the seeds: zips, gzip,
 * lz4 and snappy files of drmemtrace records, whole and cut).  Compressed
 * from a seekable input, an archive that keeps the file must give it back
 * exactly, and one that does not must hold it as its bytes; the same file
 * read from a pipe, when that succeeds, must give the same records.  Then
 * a byte of the restore block is changed and its checks recomputed, as a
 * writer bug would leave it: the restore must fail or give the file
 * exactly, never other bytes. */
#include <xxhash.h>

#include "fuzz_common.h"

static uint8_t *compress(const uint8_t *p, size_t n, int seekable, size_t *an)
{
    fz_in in;
    fz_out out = { 0 };
    trz_io i, o;
    fz_io_in(&i, &in, p, n, seekable ? 0 : 1000, seekable);
    fz_io_out(&o, &out);
    trz_cctx *c = trz_cctx_create();
    trz_cctx_set(c, TRZ_C_CHUNK_BYTES, 64 << 10);
    trz_cctx_set(c, TRZ_C_LEVEL, 1);
    int rc = trz_compress(c, &i, &o);
    if (rc && !*trz_cctx_error(c)) abort(); /* a failure always says why */
    trz_cctx_free(c);
    if (rc) { free(out.p); return NULL; }
    *an = out.n;
    return out.p;
}

static fz_out all_records(const uint8_t *a, size_t an)
{
    fz_out rec = { 0 };
    trz_reader *r;
    if (trz_reader_open_mem(&r, a, an)) abort();
    uint8_t buf[8192];
    for (int64_t k; (k = trz_read_bytes(r, buf, sizeof buf)) != 0;) {
        if (k < 0) abort(); /* an archive just written reads back */
        fz_out_write(&rec, buf, (size_t)k);
    }
    trz_reader_close(r);
    return rec;
}

/* trz_restore of the archive: TRZ_OK only with exactly the file. */
static int restores(const uint8_t *a, size_t an, const uint8_t *file, size_t n)
{
    trz_reader *r;
    fz_out back = { 0 };
    trz_io o;
    fz_io_out(&o, &back);
    int rc = trz_reader_open_mem(&r, a, an);
    if (!rc) rc = trz_restore(r, &o);
    if (rc && !*trz_reader_error(r)) abort();
    if (!rc && (back.n != n || (n && memcmp(back.p, file, n) != 0))) abort();
    trz_reader_close(r);
    free(back.p);
    return rc;
}

/* gzip (the file layer's), zstd, xz or bzip2 (unwrapped before it): a
 * damaged stream of these is an error, never stored bytes. */
static int wrapped(const uint8_t *p, size_t n)
{
    return (n >= 2 && p[0] == 0x1f && p[1] == 0x8b) || (n >= 4 && memcmp(p, "\x28\xb5\x2f\xfd", 4) == 0) ||
           (n >= 6 && memcmp(p, "\xfd" "7zXZ\0", 6) == 0) || (n >= 3 && memcmp(p, "BZh", 3) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t an, pn;
    uint8_t *a = compress(data, size, 1, &an);
    if (!a) { /* only a compressed input whose damage its wrapper reveals is refused */
        if (!wrapped(data, size)) abort();
        return 0;
    }
    trz_reader *r;
    trz_container_info ci;
    if (trz_reader_open_mem(&r, a, an) || trz_reader_container(r, &ci)) abort();
    trz_reader_close(r);
    fz_out rec = all_records(a, an);
    if (!ci.kind) { /* not a container: the archive holds the bytes */
        if (rec.n != size || (size && memcmp(rec.p, data, size) != 0)) abort();
    } else if (restores(a, an, data, size) != TRZ_OK) {
        abort(); /* every container comes back */
    }
    uint8_t *p = compress(data, size, 0, &pn);
    if (p && ci.kind) {
        fz_out prec = all_records(p, pn);
        if (prec.n != rec.n || (rec.n && memcmp(prec.p, rec.p, rec.n) != 0)) abort();
        free(prec.p);
    }
    free(p);
    if (ci.kind) { /* a changed restore block, resealed */
        size_t b = 24 + (size_t)(a[22] | a[23] << 8) + 4, q = 24 + (a[24] == 1 ? 3 : 0);
        uint64_t bs = 0;
        for (int i = 0; i < 8; i++) bs |= (uint64_t)a[q + 3 + i] << (8 * i);
        if (bs < 40 || b + bs > an) abort();
        uint64_t h = 1469598103934665603ull;
        for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211ull;
        size_t at = (size_t)(h % (bs - 4));
        a[b + at] ^= (uint8_t)(1 + (h >> 32) % 255);
        uint32_t c = (uint32_t)XXH3_64bits(a + b, 32), d = (uint32_t)XXH3_64bits(a + b + 36, bs - 40);
        memcpy(a + b + 32, &c, 4); /* little-endian hosts, as the fuzzers run */
        memcpy(a + b + bs - 4, &d, 4);
        restores(a, an, data, size);
    }
    free(rec.p);
    free(a);
    return 0;
}
