/* dump.c - print records as text (trz dump): each codec prints its own
 * records, text formats print their lines, and anything else gets a hex
 * dump.  Works on archives (seeking when it can) and on raw traces. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "../wrap/unwrap.h"
#include "../decompress/decompress.h"
#include "tools.h"

/* The message of a function without a context, to the caller's buffer
 * (none when err is NULL or errlen 0). */
static void derr(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void derr(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* What an input and an output need: a refusal's message, else NULL. */
static const char *io_missing(const trz_io *in, const void *file)
{
    return !in ? "the input is NULL" : !in->read ? "the input has no read function (trz_io.read is NULL)"
         : !file ? "the output FILE is NULL" : NULL;
}

static void hex_record(FILE *f, uint64_t no, const uint8_t *p, size_t n)
{
    fprintf(f, "%10llu:", (unsigned long long)no);
    for (size_t i = 0; i < n; i++) fprintf(f, " %02x", p[i]);
    fputc('\n', f);
}

void trz_dump_records(FILE *f, const trz_codec *c, int bo, const uint8_t *p, size_t n, uint64_t first)
{
    size_t rs = c->record_size;
    for (size_t i = 0; i < n; i++) {
        if (c->dump_record) c->dump_record(f, first + i, p + i * rs, bo);
        else hex_record(f, first + i, p + i * rs, rs);
    }
}

/* Raw codec: 16 bytes a line; `first`/`count` are in bytes. */
static void hex_lines(FILE *f, const uint8_t *p, size_t n, uint64_t off)
{
    for (size_t i = 0; i < n; i += 16) {
        size_t k = n - i < 16 ? n - i : 16;
        fprintf(f, "%08llx ", (unsigned long long)(off + i));
        for (size_t j = 0; j < 16; j++) {
            if (j < k) fprintf(f, " %02x", p[i + j]);
            else fputs("   ", f);
        }
        fputs("  |", f);
        for (size_t j = 0; j < k; j++) fputc(p[i + j] >= 32 && p[i + j] < 127 ? p[i + j] : '.', f);
        fputs("|\n", f);
    }
}

/* Hex lines whatever pieces the bytes come in (short reads, chunks that
 * end inside a line): a line short of 16 bytes waits for the bytes that
 * follow it, and is printed short only at the end (of the input, or of a
 * member: a line never mixes two). */
typedef struct hexout {
    FILE *f;
    uint8_t line[16];
    size_t n;     /* bytes waiting in line */
    uint64_t off; /* the offset of line[0] */
} hexout;

static void hex_flush(hexout *h)
{
    if (h->n) hex_lines(h->f, h->line, h->n, h->off);
    h->n = 0;
}

static void hex_put(hexout *h, const uint8_t *p, size_t n, uint64_t off)
{
    if (h->n && h->off + h->n != off) hex_flush(h);
    if (h->n) {
        size_t k = 16 - h->n < n ? 16 - h->n : n;
        memcpy(h->line + h->n, p, k);
        h->n += k, p += k, n -= k, off += k;
        if (h->n < 16) return;
        hex_flush(h);
    }
    size_t whole = n - n % 16;
    hex_lines(h->f, p, whole, off);
    memcpy(h->line, p + whole, n - whole);
    h->n = n - whole;
    h->off = off + whole;
}

/* A source of decoded bytes: an archive reader, or a raw input with the
 * bytes already peeked for probing served first. */
typedef struct dsrc {
    trz_reader *r;
    trz_src *s;
    const uint8_t *pre;
    size_t pre_len, pre_pos;
} dsrc;

static int64_t src_read(dsrc *d, uint8_t *buf, size_t n)
{
    if (d->r) return trz_read_bytes(d->r, buf, n);
    if (d->pre_pos < d->pre_len) {
        size_t k = d->pre_len - d->pre_pos;
        if (k > n) k = n;
        memcpy(buf, d->pre + d->pre_pos, k);
        d->pre_pos += k;
        return (int64_t)k;
    }
    return trz_src_read(d->s, buf, n);
}

/* Print records (lines for text, bytes for raw) [first, first + count) of
 * a raw trace.  TRZ_ERR_RANGE, with the record count in *total, when
 * `first` names no record (first >= the count, but 0 of an empty trace
 * and first == the count with count 0 are allowed): trz_dump's rule, so that a wrong -s is an error rather than an
 * empty dump. */
static int dump_stream(dsrc *d, const trz_codec *c, int bo, FILE *f, uint64_t first, uint64_t count, uint64_t *total)
{
    size_t rs = c->record_size;
    size_t cap = rs > 1 ? rs * 4096 : 1u << 16;
    uint8_t *buf = malloc(cap);
    if (!buf) return TRZ_ERR_NOMEM;
    uint64_t end = count > UINT64_MAX - first ? UINT64_MAX : first + count;
    uint64_t no = 0; /* the record the next byte belongs to */
    int mid = 0;     /* text: bytes of line `no` were seen (a last line without newline counts) */
    size_t have = 0; /* fixed-size: the bytes of a record not complete yet */
    hexout hx = { f, { 0 }, 0, 0 };
    int rc = TRZ_OK, ended = 0;
    while (no < end) {
        int64_t got = src_read(d, buf + have, cap - have);
        if (got < 0) { rc = (int)got; break; }
        if (got == 0) { ended = 1; break; }
        size_t n = have + (size_t)got;
        if (rs == 0) { /* text: whole lines of the wanted range, a line's pieces as they come */
            size_t i = 0;
            while (i < n && no < end) {
                uint8_t *nl = memchr(buf + i, '\n', n - i);
                size_t e = nl ? (size_t)(nl - buf) + 1 : n;
                if (no >= first) fwrite(buf + i, 1, e - i, f);
                if (nl) no++, mid = 0;
                else mid = 1;
                i = e;
            }
        } else if (rs == 1) {
            uint64_t lo = no, hi = no + n;
            uint64_t s = first > lo ? first : lo, e = end < hi ? end : hi;
            if (s < e) hex_put(&hx, buf + (s - lo), (size_t)(e - s), s);
            no = hi;
        } else {
            size_t whole = n / rs, i = 0;
            for (; i < whole && no < end; i++, no++)
                if (no >= first) trz_dump_records(f, c, bo, buf + i * rs, 1, no);
            have = n - i * rs;
            memmove(buf, buf + i * rs, have);
        }
    }
    hex_flush(&hx);
    free(buf);
    uint64_t records = rs == 0 ? no + (uint64_t)mid : no;
    if (rc == TRZ_OK && ended && (first > records || (first == records && first > 0 && count > 0))) {
        *total = records;
        rc = TRZ_ERR_RANGE;
    }
    if (rc == TRZ_OK && ferror(f)) rc = TRZ_ERR_IO;
    return rc;
}

/* Records [first, first + count) of an archive: span by span, each printed
 * as its member's codec prints records (a mixed archive changes format at
 * member boundaries).  A span starts at a record start, so a fixed-size
 * span is whole records followed, at a member's end, by a partial record,
 * which is no record and not printed. */
int trz_dump(trz_reader *r, void *file, uint64_t first, uint64_t count)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!file) return trz_reader_fail(r, TRZ_ERR_PARAM, "trz_dump: the output FILE is NULL");
    FILE *f = file;
    int rc = trz_seek(r, first);
    if (rc) return rc;
    uint64_t left = count;
    int open_line = 0; /* the text printed last ended inside a line */
    hexout hx = { f, { 0 }, 0, 0 };
    for (int any = 0;; any = 1) {
        const void *v;
        uint64_t n, no = trz_tell(r);
        int64_t g = trz_read_span(r, &v, left, &n);
        if (g < 0) { hex_flush(&hx); return (int)g; }
        /* the seek may stop at the end itself: first == the record count
         * names no record, and an empty dump would hide a wrong -s */
        if (g == 0 && !any && first > 0 && count > 0) {
            char m[96];
            snprintf(m, sizeof m, "record %llu is past the end (%llu records)", (unsigned long long)first,
                     (unsigned long long)first);
            return trz_reader_fail(r, TRZ_ERR_RANGE, m);
        }
        if (g == 0) break;
        int bo, member;
        const trz_codec *c = trz_reader_span_codec(r, &bo);
        int starts = trz_reader_span_starts(r, &member);
        const uint8_t *p = v;
        if (c->record_size != 1 || member) hex_flush(&hx);
        /* a text member's last line may lack its newline: what follows
         * it (the next member's first record) starts a line of its own */
        if (open_line && starts) fputc('\n', f), open_line = 0;
        if (c->record_size == 0) {
            fwrite(p, 1, (size_t)g, f);
            open_line = p[g - 1] != '\n';
        } else if (c->record_size == 1) {
            hex_put(&hx, p, (size_t)g, no);
        } else {
            trz_dump_records(f, c, bo, p, (size_t)n, no);
        }
        left -= n;
    }
    hex_flush(&hx);
    return ferror(f) ? TRZ_ERR_IO : TRZ_OK;
}

int trz_dump_raw(const trz_io *in, const char *format, void *file, uint64_t first, uint64_t count, char *err, size_t errlen)
{
    const char *why = io_missing(in, file);
    if (why) { derr(err, errlen, "%s", why); return TRZ_ERR_PARAM; }
    trz_src s;
    int rc = trz_src_open(&s, in, 1);
    if (rc) { derr(err, errlen, "%s", trz_strerror(rc)); trz_src_close(&s); return rc; }
    const trz_codec *c = NULL;
    int bo = TRZ_BO_NONE;
    uint8_t *peek = NULL;
    size_t plen = 0;
    if (format && strcmp(format, "auto") != 0) {
        c = trz_codec_by_name(format);
        if (!c) { derr(err, errlen, "unknown format '%s'", format); trz_src_close(&s); return TRZ_ERR_PARAM; }
    }
    /* probe on the first MiB, then serve those bytes before the rest */
    peek = malloc(1u << 20);
    if (!peek) { trz_src_close(&s); return TRZ_ERR_NOMEM; }
    int64_t got = trz_src_read(&s, peek, 1u << 20);
    if (got < 0) { derr(err, errlen, "%s", trz_strerror((int)got)); free(peek); trz_src_close(&s); return (int)got; }
    plen = (size_t)got;
    if (!c) {
        int best = 0;
        c = &trz_codec_raw;
        for (size_t i = 0; trz_codec_at(i); i++) {
            const trz_codec *k = trz_codec_at(i);
            int b = TRZ_BO_NONE, sc = k->probe && plen ? k->probe(peek, plen, &b) : 0;
            if (sc > best && sc >= 50) { best = sc; c = k; bo = b; }
        }
    } else if (c->probe && plen) {
        c->probe(peek, plen, &bo);
    }
    dsrc d = { NULL, &s, peek, plen, 0 };
    uint64_t total = 0;
    rc = dump_stream(&d, c, bo, file, first, count, &total);
    free(peek);
    trz_src_close(&s);
    if (rc == TRZ_ERR_RANGE) /* the words of trz_seek */
        derr(err, errlen, "record %llu is past the end (%llu records)", (unsigned long long)first,
                 (unsigned long long)total);
    else if (rc)
        derr(err, errlen, "%s", trz_strerror(rc));
    return rc;
}

/* A source's first bytes, read to tell an archive from a raw trace, then
 * served again before the rest (a pipe cannot be read twice). */
typedef struct peeked {
    const trz_io *in;
    uint8_t head[4];
    size_t n, pos;
} peeked;

static int64_t peeked_read(void *opaque, void *buf, size_t n)
{
    peeked *p = opaque;
    if (p->pos < p->n) {
        size_t k = p->n - p->pos < n ? p->n - p->pos : n;
        memcpy(buf, p->head + p->pos, k);
        p->pos += k;
        return (int64_t)k;
    }
    return p->in->read(p->in->opaque, buf, n);
}

/* A file that starts with most of the magic, or ends with the footer's, is
 * a damaged archive, not a raw trace to print as bytes. */
static int looks_archive(const trz_io *in, const uint8_t *head, size_t n)
{
    if (n == 4 && trz_magic_match(head) >= 3) return 1;
    int64_t size = in->size ? in->size(in->opaque) : -1;
    uint8_t t[4];
    if (size < 4 || !in->seek || in->seek(in->opaque, (uint64_t)size - 4) != 0) return 0;
    int footer = in->read(in->opaque, t, 4) == 4 && memcmp(t, trz_footer_magic, 4) == 0;
    return in->seek(in->opaque, 0) == 0 && footer;
}

int trz_dump_any(const trz_io *in, const char *format, void *file, uint64_t first, uint64_t count, char *err,
                 size_t errlen)
{
    const char *why = io_missing(in, file);
    if (why) { derr(err, errlen, "%s", why); return TRZ_ERR_PARAM; }
    peeked pk = { in, { 0 }, 0, 0 };
    int64_t k = 1;
    while (pk.n < 4 && (k = in->read(in->opaque, pk.head + pk.n, 4 - pk.n)) > 0) pk.n += (size_t)k;
    if (k < 0) { derr(err, errlen, "%s", strerror(errno)); return TRZ_ERR_IO; }
    /* a seekable input is read again from its start; a pipe gets its bytes back */
    int seekable = in->seek && in->size && in->seek(in->opaque, 0) == 0;
    trz_io io = seekable ? *in : (trz_io){ &pk, peeked_read, NULL, NULL, NULL };
    if (pk.n == 4 && trz_magic_match(pk.head) == 4) {
        trz_reader *r;
        int rc = trz_reader_open_io(&r, &io);
        if (!rc) rc = trz_dump(r, file, first, count);
        if (rc) derr(err, errlen, "%s", trz_reader_error(r));
        trz_reader_close(r);
        return rc;
    }
    if (looks_archive(&io, pk.head, pk.n)) {
        trz_reader *r;
        int rc = trz_reader_open_io(&r, &io); /* names the damage */
        derr(err, errlen, "%s", rc ? trz_reader_error(r) : "damaged file header at byte 0 (bad magic)");
        trz_reader_close(r);
        return rc ? rc : TRZ_ERR_CORRUPT;
    }
    return trz_dump_raw(&io, format, file, first, count, err, errlen);
}
