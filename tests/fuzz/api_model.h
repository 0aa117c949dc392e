/* api_model.h - the reader API against a model of its position, for
 * test_misuse.c and the fuzz target reader_api: the source bytes and where
 * its records start (members of fixed-size records, each maybe ending in a
 * partial record, or one text member of lines), a position in bytes, and
 * one call at a time (trz_read, trz_read_bytes, trz_read_view,
 * trz_read_span, trz_foreach, trz_seek, trz_tell, threads) checked against
 * what trz.h says it does from there: the bytes, the counts, the record
 * numbers, and TRZ_ERR_PARAM at a position inside a record.  am_step
 * returns NULL, or what went wrong. */
#ifndef TRZ_API_MODEL_H
#define TRZ_API_MODEL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/trz.h"

typedef struct am_member {
    size_t start, nrec, tail; /* its records at start, then tail bytes (a partial record) */
    uint64_t first;           /* the number of its first record */
} am_member;

typedef struct am_src {
    const uint8_t *p;
    size_t n;
    size_t rs;                /* bytes per record; 0: one text member */
    am_member m[8];
    size_t nm;
    uint64_t records;         /* whole records (lines) */
    size_t *line;             /* text: where each line starts */
} am_src;

/* Describe src: members of fixed-size records of the given lengths in
 * bytes, in order (rs > 0), or text (rs 0, one member). */
static inline int am_init(am_src *s, const uint8_t *p, size_t n, size_t rs, const size_t *len, size_t nm)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->n = n;
    s->rs = rs;
    if (rs == 0) {
        size_t cap = 16, k = 0;
        s->line = malloc(cap * sizeof *s->line);
        for (size_t i = 0; s->line && i < n; i++) {
            if (i != 0 && p[i - 1] != '\n') continue; /* a line starts at 0 and after each newline but the last byte */
            if (k == cap) {
                size_t *nl = realloc(s->line, (cap *= 2) * sizeof *s->line);
                if (!nl) { free(s->line); s->line = NULL; break; }
                s->line = nl;
            }
            s->line[k++] = i;
        }
        if (!s->line) return -1;
        s->records = k;
        return 0;
    }
    size_t at = 0;
    if (nm > 8) return -1;
    for (size_t i = 0; i < nm; i++) {
        s->m[i] = (am_member){ at, len[i] / rs, len[i] % rs, s->records };
        s->records += len[i] / rs;
        at += len[i];
    }
    s->nm = nm;
    return at == n ? 0 : -1;
}

static inline void am_free(am_src *s) { free(s->line); }

/* Record starts before byte `pos`: what trz_tell says there. */
static inline uint64_t am_starts_before(const am_src *s, size_t pos)
{
    if (s->rs == 0) {
        size_t lo = 0, hi = (size_t)s->records;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (s->line[mid] < pos) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }
    uint64_t k = 0;
    for (size_t i = 0; i < s->nm; i++) {
        const am_member *m = &s->m[i];
        if (pos <= m->start) break;
        size_t in = pos - m->start;
        size_t whole = m->nrec * s->rs;
        k = m->first + (in >= whole ? m->nrec : (in + s->rs - 1) / s->rs);
    }
    return k;
}

/* The byte where record `rec` starts (the end for the record count). */
static inline size_t am_record_at(const am_src *s, uint64_t rec)
{
    if (rec >= s->records) return s->n;
    if (s->rs == 0) return s->line[rec];
    for (size_t i = 0; i < s->nm; i++)
        if (rec < s->m[i].first + s->m[i].nrec) return s->m[i].start + (size_t)(rec - s->m[i].first) * s->rs;
    return s->n;
}

/* The member whose bytes hold `pos` (a member's end is the next's start). */
static inline const am_member *am_member_at(const am_src *s, size_t pos)
{
    const am_member *m = &s->m[0];
    for (size_t i = 0; i < s->nm; i++)
        if (s->m[i].start <= pos && s->m[i].nrec * s->rs + s->m[i].tail > 0) m = &s->m[i];
    return m;
}

/* Inside a fixed-size record, or inside a partial one. */
static inline int am_inside(const am_src *s, size_t pos)
{
    if (s->rs == 0 || pos == 0 || pos >= s->n) return 0;
    for (size_t i = 0; i < s->nm; i++) {
        const am_member *m = &s->m[i];
        size_t whole = m->start + m->nrec * s->rs, end = whole + m->tail;
        if (pos > m->start && pos < whole) return (pos - m->start) % s->rs != 0;
        if (pos > whole && pos < end) return 1;
    }
    return 0;
}

/* At the start of a partial record: the tail's length, and whether bytes
 * follow it (then trz_read passes over it; else it stops there). */
static inline size_t am_tail_at(const am_src *s, size_t pos, int *more)
{
    for (size_t i = 0; i < s->nm; i++) {
        const am_member *m = &s->m[i];
        if (m->tail && pos == m->start + m->nrec * s->rs) {
            *more = m->start + m->nrec * s->rs + m->tail < s->n;
            return m->tail;
        }
    }
    return 0;
}

/* The whole records from pos on, up to max: their count and the position
 * after them (partial records passed over where more follows). */
static inline uint64_t am_read(const am_src *s, size_t *pos, uint64_t max)
{
    uint64_t got = 0;
    while (got < max && *pos < s->n) {
        int more = 0;
        size_t t = am_tail_at(s, *pos, &more);
        if (t) {
            if (!more) break;
            *pos += t;
            continue;
        }
        const am_member *m = am_member_at(s, *pos);
        size_t whole = m->start + m->nrec * s->rs;
        uint64_t k = (whole - *pos) / s->rs;
        if (k > max - got) k = max - got;
        *pos += (size_t)k * s->rs;
        got += k;
    }
    return got;
}

/* ---- one call, checked ---- */
typedef struct am_state {
    const am_src *s;
    trz_reader *r;
    size_t pos;
    int pipe;          /* no index: seeks go forward only */
    uint8_t *buf;      /* room for reads */
    size_t cap;
    char why[256];
} am_state;

#define AM_FAIL(st, ...) (snprintf((st)->why, sizeof (st)->why, __VA_ARGS__), (st)->why)

/* Compare n bytes handed out at the model's position. */
static inline const char *am_bytes(am_state *st, const char *what, const void *p, size_t n)
{
    if (n > st->s->n - st->pos) return AM_FAIL(st, "%s: %zu bytes past the end at byte %zu", what, n, st->pos);
    if (n && memcmp(p, st->s->p + st->pos, n) != 0) return AM_FAIL(st, "%s: %zu bytes at byte %zu differ", what, n, st->pos);
    return NULL;
}

static inline const char *am_inside_refused(am_state *st, const char *what, int64_t rc)
{
    if (rc != TRZ_ERR_PARAM) return AM_FAIL(st, "%s inside a record (byte %zu): %lld, not TRZ_ERR_PARAM", what, st->pos, (long long)rc);
    if (!strstr(trz_reader_error(st->r), "position is inside a record: read the rest with trz_read_bytes or seek"))
        return AM_FAIL(st, "%s inside a record: message \"%s\"", what, trz_reader_error(st->r));
    if (trz_tell(st->r) != am_starts_before(st->s, st->pos)) return AM_FAIL(st, "%s inside a record moved the reader", what);
    return NULL;
}

typedef struct am_each {
    am_state *st;
    unsigned stop, batches;
    const char *bad;
} am_each;

static int am_batch(void *ctx, const void *p, size_t n, size_t len, uint64_t first)
{
    am_each *e = ctx;
    am_state *st = e->st;
    const am_src *s = st->s;
    int more = 0;
    size_t t = s->rs ? am_tail_at(s, st->pos, &more) : 0;
    if (t && more) st->pos += t; /* a partial record that ends a member: passed over */
    uint64_t want_first = am_starts_before(s, st->pos);
    e->bad = am_bytes(st, "trz_foreach", p, len);
    if (!e->bad && first != want_first)
        e->bad = AM_FAIL(st, "trz_foreach: batch at byte %zu says record %llu, not %llu", st->pos, (unsigned long long)first,
                         (unsigned long long)want_first);
    uint64_t starts = am_starts_before(s, st->pos + len) - want_first;
    if (!e->bad && s->rs && (len == 0 || len != n * s->rs))
        e->bad = AM_FAIL(st, "trz_foreach: %zu records in %zu bytes", n, len);
    if (!e->bad && n != starts)
        e->bad = AM_FAIL(st, "trz_foreach: batch at byte %zu says %zu records, %llu start there", st->pos, n,
                         (unsigned long long)starts);
    st->pos += len;
    e->batches++;
    if (e->bad) return 1;
    return e->stop && e->batches == e->stop ? 77 : 0;
}

/* Where the records end: the source's end, or its partial last record. */
static inline size_t am_records_end(const am_src *s)
{
    size_t pos = 0;
    if (s->rs == 0) return s->n;
    am_read(s, &pos, UINT64_MAX);
    return pos;
}

enum { AM_READ_BYTES, AM_VIEW, AM_READ, AM_FOREACH, AM_SEEK, AM_TELL, AM_THREADS, AM_SPAN, AM_NULLS, AM_NOPS };

/* Call `op` with argument v (a count, a record number, ...) and check it. */
static inline const char *am_step(am_state *st, unsigned op, uint64_t v)
{
    const am_src *s = st->s;
    trz_reader *r = st->r;
    switch (op % AM_NOPS) {
    case AM_READ_BYTES: {
        size_t cap = (size_t)(v % st->cap);
        int64_t g = trz_read_bytes(r, st->buf, cap);
        size_t want = s->n - st->pos < cap ? s->n - st->pos : cap;
        if (g != (int64_t)want) return AM_FAIL(st, "trz_read_bytes(%zu) at byte %zu: %lld, not %zu (%s)", cap, st->pos, (long long)g, want, trz_reader_error(r));
        const char *bad = am_bytes(st, "trz_read_bytes", st->buf, want);
        st->pos += want;
        return bad;
    }
    case AM_VIEW: {
        size_t cap = (size_t)(v % st->cap);
        const void *d = NULL;
        int64_t g = trz_read_view(r, &d, cap);
        if (g < 0 || (size_t)g > cap || (g == 0 && cap && st->pos < s->n))
            return AM_FAIL(st, "trz_read_view(%zu) at byte %zu: %lld (%s)", cap, st->pos, (long long)g, trz_reader_error(r));
        const char *bad = am_bytes(st, "trz_read_view", d, (size_t)g);
        st->pos += (size_t)g;
        return bad;
    }
    case AM_READ: {
        if (s->rs == 0) {
            int64_t g = trz_read(r, st->buf, 1);
            return g == TRZ_ERR_UNSUPPORTED ? NULL : AM_FAIL(st, "trz_read on text: %lld", (long long)g);
        }
        uint64_t max = v % (st->cap / s->rs + 1);
        int64_t g = trz_read(r, st->buf, (size_t)max);
        if (am_inside(s, st->pos)) return am_inside_refused(st, "trz_read", g);
        size_t at = st->pos, end = at;
        uint64_t want = am_read(s, &end, max);
        if (g != (int64_t)want)
            return AM_FAIL(st, "trz_read(%llu) at byte %zu: %lld, not %llu (%s)", (unsigned long long)max, at, (long long)g,
                           (unsigned long long)want, trz_reader_error(r));
        /* the records, with partial records between members left out */
        size_t o = 0;
        while (o < (size_t)want * s->rs) {
            int more = 0;
            size_t t = am_tail_at(s, st->pos, &more);
            if (t) { st->pos += t; continue; }
            const am_member *m = am_member_at(s, st->pos);
            size_t k = m->start + m->nrec * s->rs - st->pos;
            if (k > (size_t)want * s->rs - o) k = (size_t)want * s->rs - o;
            const char *bad = am_bytes(st, "trz_read", st->buf + o, k);
            if (bad) return bad;
            o += k;
            st->pos += k;
        }
        if (st->pos != end) { /* stopped before a partial record that others follow: it stays */
            if (st->pos > end) return AM_FAIL(st, "trz_read: the model went past %zu", end);
            st->pos = end;
        }
        return NULL;
    }
    case AM_FOREACH: {
        am_each e = { st, (unsigned)(v % 4), 0, NULL };
        size_t at = st->pos;
        int rc = trz_foreach(r, am_batch, &e);
        if (s->rs && am_inside(s, at)) {
            if (e.batches) return AM_FAIL(st, "trz_foreach inside a record called fn");
            return am_inside_refused(st, "trz_foreach", rc);
        }
        if (e.bad) return e.bad;
        if (e.stop && e.batches == e.stop) return rc == 77 ? NULL : AM_FAIL(st, "trz_foreach: fn's 77 came back as %d", rc);
        if (rc) return AM_FAIL(st, "trz_foreach at byte %zu: %d (%s)", at, rc, trz_reader_error(r));
        size_t end = am_records_end(s) > at ? am_records_end(s) : at; /* (past the partial last record: stays) */
        if (st->pos != end)
            return AM_FAIL(st, "trz_foreach from byte %zu ended at %zu, not %zu", at, st->pos, end);
        return NULL;
    }
    case AM_SEEK: {
        uint64_t rec = v % (s->records + 3);
        uint64_t at = am_starts_before(s, st->pos);
        int rc = trz_seek(r, rec);
        if (st->pipe && rec < at) {
            if (rc != TRZ_ERR_UNSUPPORTED) return AM_FAIL(st, "trz_seek(%llu) back from a pipe: %d", (unsigned long long)rec, rc);
            return NULL;
        }
        if (rec > s->records) {
            if (rc != TRZ_ERR_RANGE) return AM_FAIL(st, "trz_seek(%llu) past the end: %d", (unsigned long long)rec, rc);
            if (st->pipe) st->pos = s->n; /* read to the end looking for it */
            return NULL;
        }
        if (rc) return AM_FAIL(st, "trz_seek(%llu): %d (%s)", (unsigned long long)rec, rc, trz_reader_error(r));
        st->pos = am_record_at(s, rec);
        return NULL;
    }
    case AM_TELL: {
        uint64_t t = trz_tell(r), want = am_starts_before(s, st->pos);
        if (t != want) return AM_FAIL(st, "trz_tell at byte %zu: %llu, not %llu", st->pos, (unsigned long long)t, (unsigned long long)want);
        return NULL;
    }
    case AM_THREADS: {
        int64_t t = (int64_t)(v % 6) - 1; /* -1 and 4: refused; 0-3 taken (0: all cores) */
        if (t == 4) t = 65;
        int rc = trz_reader_set(r, TRZ_R_THREADS, t);
        if ((t < 0 || t > 64) != (rc == TRZ_ERR_PARAM) || (rc && rc != TRZ_ERR_PARAM))
            return AM_FAIL(st, "TRZ_R_THREADS %lld: %d", (long long)t, rc);
        if (rc && !trz_reader_error(r)[0]) return AM_FAIL(st, "TRZ_R_THREADS %lld refused without a message", (long long)t);
        return NULL;
    }
    case AM_SPAN: {
        uint64_t max = v % 300, n = 0;
        const void *d = NULL;
        int64_t g = trz_read_span(r, &d, max, &n);
        if (g < 0) return AM_FAIL(st, "trz_read_span(%llu) at byte %zu: %lld (%s)", (unsigned long long)max, st->pos, (long long)g, trz_reader_error(r));
        const char *bad = am_bytes(st, "trz_read_span", d, (size_t)g);
        if (bad) return bad;
        uint64_t starts = am_starts_before(s, st->pos + (size_t)g) - am_starts_before(s, st->pos);
        if (n != starts || n > max)
            return AM_FAIL(st, "trz_read_span(%llu) at byte %zu: %llu records in %lld bytes, %llu start there", (unsigned long long)max,
                           st->pos, (unsigned long long)n, (long long)g, (unsigned long long)starts);
        if (g == 0 && st->pos < s->n && max) return AM_FAIL(st, "trz_read_span(%llu) at byte %zu: nothing", (unsigned long long)max, st->pos);
        st->pos += (size_t)g;
        return NULL;
    }
    case AM_NULLS: { /* refused, with a message, the position kept */
        uint64_t n;
        const void *d;
        if (trz_read(r, NULL, 1 + v % 5) != TRZ_ERR_PARAM || trz_read_bytes(r, NULL, 1 + v % 5) != TRZ_ERR_PARAM ||
            trz_read_view(r, NULL, 10) != TRZ_ERR_PARAM || trz_read_span(r, NULL, 1, &n) != TRZ_ERR_PARAM ||
            trz_read_span(r, &d, 1, NULL) != TRZ_ERR_PARAM || trz_foreach(r, NULL, NULL) != TRZ_ERR_PARAM)
            return AM_FAIL(st, "a NULL argument not refused at byte %zu", st->pos);
        if (!trz_reader_error(r)[0]) return AM_FAIL(st, "a NULL argument refused without a message");
        /* NULL with nothing to read is fine (trz_read's other refusals stand) */
        int64_t want = s->rs == 0 ? TRZ_ERR_UNSUPPORTED : am_inside(s, st->pos) ? TRZ_ERR_PARAM : 0;
        if (trz_read(r, NULL, 0) != want || trz_read_bytes(r, NULL, 0) != 0) return AM_FAIL(st, "NULL with 0 not taken");
        return NULL;
    }
    }
    return NULL;
}

#endif
