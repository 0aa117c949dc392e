/* oracle.h - the record oracle: for any archive the reader accepts, every
 * way of reaching records must give exactly the slice of the full decode
 * that the archive's own structure defines (src/format/FORMAT.md, "Records"):
 * trz_seek + trz_read_span through the index and from a pipe, trz_read and
 * trz_dump.  The record starts are computed here from the decoded bytes and
 * the members' codecs (tests/fuzz/archive.h walks the members), never from
 * the counts the archive claims, so a count or flag that lies cannot fool
 * both sides.  Used by tests/test_oracle.c and the oracle fuzz target. */
#ifndef TRZ_TESTS_ORACLE_H
#define TRZ_TESTS_ORACLE_H

#define _GNU_SOURCE /* open_memstream */
#include <stdarg.h>
#include <stdio.h>

#include "../src/decompress/decompress.h"
#include "../src/tools/tools.h"
#include "fuzz/archive.h"
#include "fuzz/fuzz_common.h"

typedef struct or_ctx {
    const uint8_t *arch;
    size_t n;
    uint8_t *d;          /* the full decode */
    size_t dn;
    uint64_t *start;     /* record start offsets in d */
    uint64_t total;
    const trz_codec **rc; /* per record: its member's codec */
    uint8_t *rbo;        /* per record: its member's byte order */
    uint64_t *rend;      /* per record: where its bytes end (next start in its member, or the member's end) */
    int mixed, raw_member;
    char *why;
    size_t wl;
} or_ctx;

static int or_fail(or_ctx *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int or_fail(or_ctx *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->why, o->wl, fmt, ap);
    va_end(ap);
    return -1;
}

/* Decode everything; the reader through memory (index) or a pipe; *mended:
 * the chunks the index mended from their parity, which a pipe cannot. */
static int or_decode(const uint8_t *p, size_t n, int pipe, fz_out *out, uint64_t *mended)
{
    trz_reader *r;
    fz_in in;
    trz_io io;
    fz_io_in(&io, &in, p, n, pipe ? 3000 : 0, !pipe);
    int rc = trz_reader_open_io(&r, &io);
    uint8_t buf[65536];
    while (rc == TRZ_OK) {
        int64_t g = trz_read_bytes(r, buf, sizeof buf);
        if (g < 0) rc = (int)g;
        if (g <= 0) break;
        fz_out_write(out, buf, (size_t)g);
    }
    *mended = trz_reader_mended(r, NULL);
    trz_reader_close(r);
    return rc;
}

static uint64_t or_B(const or_ctx *o, uint64_t k) { return k < o->total ? o->start[k] : o->dn; }

/* Record starts from the decoded bytes and the members' codecs. */
static int or_records(or_ctx *o)
{
    static ar_map map;
    ar_walk((uint8_t *)(uintptr_t)o->arch, o->n, &map, 0);
    if (!map.complete) return or_fail(o, "the reader accepted an archive whose structure does not parse");
    uint64_t sum = 0;
    for (unsigned m = 0; m < map.nm; m++) sum += map.m[m].raw;
    if (sum != o->dn) return or_fail(o, "decoded %zu bytes, the chunks hold %llu", o->dn, (unsigned long long)sum);
    o->start = malloc((o->dn + 1) * sizeof *o->start);
    o->rend = malloc((o->dn + 1) * sizeof *o->rend);
    o->rc = malloc((o->dn + 1) * sizeof *o->rc);
    o->rbo = malloc(o->dn + 1);
    if (!o->start || !o->rend || !o->rc || !o->rbo) abort();
    uint64_t off = 0;
    for (unsigned m = 0; m < map.nm; m++) {
        const trz_codec *c = trz_codec_by_id(map.m[m].codec);
        if (!c) return or_fail(o, "member %u: unknown codec accepted", m);
        if (m && (map.m[m].codec != map.m[0].codec || map.m[m].byte_order != map.m[0].byte_order)) o->mixed = 1;
        if (c->record_size == 1) o->raw_member = 1;
        uint64_t len = map.m[m].raw, first = o->total;
        if (c->record_size == 0) {
            for (uint64_t j = 0; j < len; j++)
                if (j == 0 || o->d[off + j - 1] == '\n') o->start[o->total++] = off + j;
        } else {
            for (uint64_t j = 0; j + c->record_size <= len; j += c->record_size) o->start[o->total++] = off + j;
        }
        for (uint64_t k = first; k < o->total; k++) {
            o->rc[k] = c;
            o->rbo[k] = map.m[m].byte_order;
            o->rend[k] = k + 1 < o->total ? o->start[k + 1] : off + len;
        }
        off += len;
    }
    return 0;
}

static void or_open(const or_ctx *o, trz_reader **r, fz_in *in, int pipe)
{
    trz_io io;
    fz_io_in(&io, in, o->arch, o->n, pipe ? 3000 : 0, !pipe);
    if (trz_reader_open_io(r, &io) != TRZ_OK) { trz_reader_close(*r); *r = NULL; }
}

/* Seek to N and read M records through spans. */
static int or_span(or_ctx *o, trz_reader *r, uint64_t N, uint64_t M, const char *how)
{
    int rc = trz_seek(r, N);
    if (N > o->total) {
        if (rc != TRZ_ERR_RANGE) return or_fail(o, "%s: seek to %llu of %llu records gave %d, not a range error", how,
                                                (unsigned long long)N, (unsigned long long)o->total, rc);
        return 0;
    }
    if (rc) return or_fail(o, "%s: seek to %llu failed: %s", how, (unsigned long long)N, trz_reader_error(r));
    if (trz_tell(r) != N) return or_fail(o, "%s: tell after seek to %llu is %llu", how, (unsigned long long)N,
                                         (unsigned long long)trz_tell(r));
    uint64_t lo = or_B(o, N), hi = or_B(o, M > o->total - N ? o->total : N + M), left = M, got = 0, recs = 0;
    for (;;) {
        const void *v;
        uint64_t k;
        int64_t g = trz_read_span(r, &v, left, &k);
        if (g < 0) return or_fail(o, "%s: span after %llu failed: %s", how, (unsigned long long)N, trz_reader_error(r));
        if (g == 0) break;
        if (lo + got + (uint64_t)g > hi || memcmp(o->d + lo + got, v, (size_t)g) != 0)
            return or_fail(o, "%s: records %llu+%llu: the bytes differ from the decode at offset %llu", how,
                           (unsigned long long)N, (unsigned long long)M, (unsigned long long)(lo + got));
        got += (uint64_t)g;
        recs += k;
        left -= k;
    }
    if (lo + got != hi || recs != (hi == o->dn && M >= o->total - N ? o->total - N : M))
        return or_fail(o, "%s: records %llu+%llu: %llu bytes and %llu records, expected %llu bytes", how,
                       (unsigned long long)N, (unsigned long long)M, (unsigned long long)got,
                       (unsigned long long)recs, (unsigned long long)(hi - lo));
    return 0;
}

/* trz_read: whole records only (a partial last record is never one). */
static int or_read(or_ctx *o, trz_reader *r, uint64_t N, uint64_t M)
{
    size_t rs = o->rc[0]->record_size;
    if (trz_seek(r, N)) return or_fail(o, "trz_read: seek to %llu failed", (unsigned long long)N);
    if (M > 64) M = 64;
    uint8_t *buf = malloc(M * rs + 1);
    if (!buf) abort();
    int64_t g = trz_read(r, buf, (size_t)M);
    uint64_t want = M < o->total - N ? M : o->total - N;
    int bad = g < 0 || (uint64_t)g != want;
    for (uint64_t k = 0; !bad && k < want; k++) bad = memcmp(buf + k * rs, o->d + o->start[N + k], rs) != 0;
    free(buf);
    if (bad) return or_fail(o, "trz_read of %llu records from %llu: got %lld or other bytes", (unsigned long long)M,
                            (unsigned long long)N, (long long)g);
    return 0;
}

/* trz_dump: each record printed as its member's codec prints it. */
static int or_dump(or_ctx *o, trz_reader *r, uint64_t N, uint64_t M)
{
    char *got = NULL, *want = NULL;
    size_t gn = 0, wn = 0;
    FILE *gf = open_memstream(&got, &gn), *wf = open_memstream(&want, &wn);
    if (!gf || !wf) abort();
    int rc = trz_dump(r, gf, N, M);
    int open = 0; /* a text member's last line without its newline: the next record starts a line */
    for (uint64_t k = N; k < o->total && k - N < M; k++) {
        if (open) fputc('\n', wf);
        size_t len = (size_t)(o->rend[k] - o->start[k]);
        if (o->rc[k]->record_size == 0) fwrite(o->d + o->start[k], 1, len, wf);
        else trz_dump_records(wf, o->rc[k], o->rbo[k], o->d + o->start[k], 1, k);
        open = o->rc[k]->record_size == 0 && len && o->d[o->start[k] + len - 1] != '\n';
    }
    fclose(gf);
    fclose(wf);
    /* a FIRST at the record count names no record: an error, nothing printed */
    if (N == o->total && N > 0 && M > 0) {
        int bad = rc != TRZ_ERR_RANGE || gn != 0;
        free(got);
        free(want);
        if (bad) return or_fail(o, "dump from %llu, the record count: %s", (unsigned long long)N,
                                rc ? trz_reader_error(r) : "no error");
        return 0;
    }
    int bad = rc != TRZ_OK || gn != wn || memcmp(got, want, gn) != 0;
    free(got);
    free(want);
    if (bad) return or_fail(o, "dump of %llu records from %llu: %s", (unsigned long long)M, (unsigned long long)N,
                            rc ? trz_reader_error(r) : "other text");
    return 0;
}

/* Returns 0 when the reader rejects the archive (both ways), 1 when it
 * accepts it and every read agrees, -1 on a disagreement (why says). */
static int oracle_check(const uint8_t *arch, size_t n, unsigned pairs, char *why, size_t wl)
{
    or_ctx o = { arch, n, NULL, 0, NULL, 0, NULL, NULL, NULL, 0, 0, why, wl };
    fz_out a = { 0 }, b = { 0 };
    uint64_t ma, mb;
    int ra = or_decode(arch, n, 0, &a, &ma), rb = or_decode(arch, n, 1, &b, &mb);
    int res = 0;
    if (ra == TRZ_OK && rb != TRZ_OK && ma) {
        res = 0; /* damage the index mends from parity and a pipe cannot: a damaged archive, as both see */
    } else if ((ra == TRZ_OK) != (rb == TRZ_OK)) {
        res = or_fail(&o, "the file decode %s, the pipe decode %s", ra ? "fails" : "succeeds", rb ? "fails" : "succeeds");
    } else if (ra == TRZ_OK && (a.n != b.n || (a.n && memcmp(a.p, b.p, a.n) != 0))) {
        res = or_fail(&o, "file and pipe decode to different bytes");
    } else if (ra == TRZ_OK) {
        o.d = a.p;
        o.dn = a.n;
        res = or_records(&o);
        trz_reader *rf = NULL;
        fz_in fin;
        or_open(&o, &rf, &fin, 0);
        trz_info info;
        if (!res && (!rf || trz_reader_info(rf, &info) || (info.seekable && (uint64_t)info.records != o.total)))
            res = or_fail(&o, "the reader counts %lld records, the decode holds %llu", rf ? (long long)info.records : -1,
                          (unsigned long long)o.total);
        uint64_t seed = n * 0x9E3779B97F4A7C15ull + 1;
        for (unsigned i = 0; !res && i < pairs; i++) {
            uint64_t N, M;
            static const uint64_t ms[] = { 0, 1, 2, 5, UINT64_MAX };
            if (o.total + 2 <= pairs / 5) { /* small: every record, every count */
                N = i / 5;
                M = ms[i % 5];
                if (N > o.total + 1) break;
            } else {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                N = (seed >> 33) % (o.total + 2);
                M = ms[(seed >> 20) % 5];
            }
            if (!info.seekable) { /* the index is damaged: the file reads forward too */
                trz_reader_close(rf);
                or_open(&o, &rf, &fin, 0);
                if (!rf) { res = or_fail(&o, "the file reader does not open again"); break; }
            }
            res = or_span(&o, rf, N, M, info.seekable ? "index" : "file without index");
            if (!res && i % 4 == 0) { /* a pipe cannot go back: a new reader each time */
                trz_reader *rp = NULL;
                fz_in pin;
                or_open(&o, &rp, &pin, 1);
                res = rp ? or_span(&o, rp, N, M, "pipe") : or_fail(&o, "the pipe reader does not open");
                trz_reader_close(rp);
            }
            if (!res && N < o.total && !o.mixed && o.rc[0]->record_size && info.seekable) res = or_read(&o, rf, N, M);
            if (!res && N <= o.total && !o.raw_member && info.seekable) res = or_dump(&o, rf, N, M == UINT64_MAX ? 7 : M);
        }
        trz_reader_close(rf);
        res = res ? res : 1;
    }
    free(a.p);
    free(b.p);
    free(o.start);
    free(o.rend);
    free(o.rc);
    free(o.rbo);
    return res;
}

#endif
