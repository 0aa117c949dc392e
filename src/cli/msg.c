/* msg.c - the command line's messages: one line on stderr, prefixed
 * "trz: ", how many (verbosity), and what --salvage lost, a line a loss. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "msg.h"
#include "../../include/trz.h"

int g_verbosity = 1;

void msg_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("trz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* One line per loss found by --salvage (k chunks in a row lost alike);
 * UINT64_MAX marks what the reader could not know (no usable index after
 * the damage).  A line that knows them says the records lost and their
 * raw bytes and offset. */
static void report_lost(const char *name, const trz_lost_range *l, int kind, uint64_t k, int in_member)
{
    unsigned long long c = l->chunk, f = l->first_record, n = l->records, b = l->first_byte, raw = l->raw_bytes;
    int known = n != UINT64_MAX && c != UINT64_MAX;
    /* after a loss of unknown end the numbers are those of the chunk's member */
    const char *rel = in_member ? " (numbered within its member)" : "";
    char what[96];
    if (k > 1) snprintf(what, sizeof what, "chunks %llu..%llu%s", c, c + (unsigned long long)k - 1, rel);
    else if (kind == TRZ_LOST_MISSING) snprintf(what, sizeof what, "chunks from %llu%s", c, rel); /* how many, unknown */
    else snprintf(what, sizeof what, "chunk %llu%s", c, rel);
    const char *why = kind == TRZ_LOST_KNOWLEDGE ? "intact but lost with their group's knowledge"
                      : kind == TRZ_LOST_CHAIN   ? "intact but lost with their chain (an earlier chunk of it is lost)"
                      : kind == TRZ_LOST_MISSING ? "missing from the archive"
                                                 : "damaged";
    if (kind == TRZ_LOST_EXTRA && known)
        msg_error("%s: %s found again out of place (repeated or moved): skipped, records %llu..%llu (%llu bytes at raw "
                  "offset %llu)", name, what, f, f + n - 1, raw, b);
    else if (kind == TRZ_LOST_EXTRA)
        msg_error("%s: a chunk found out of place (repeated or moved): skipped", name);
    else if (kind == TRZ_LOST_UNPLACED && c != UINT64_MAX)
        msg_error("%s: %s on: the chunks read are not those the member's index lists (missing, repeated or moved); "
                  "records from %llu on may be numbered wrong", name, what, f);
    else if (kind == TRZ_LOST_UNPLACED)
        msg_error("%s: a member's chunks are not those its index lists (missing, repeated or moved)", name);
    else if (known && n == 0)
        msg_error("%s: %s %s: lost a %llu-byte tail at raw offset %llu", name, what, why, raw, b);
    else if (known)
        msg_error("%s: %s %s: lost records %llu..%llu (%llu bytes at raw offset %llu)", name, what, why, f, f + n - 1,
                  raw, b);
    else if (n != UINT64_MAX)
        msg_error("%s: a chunk %s (its number is unknown after an earlier loss): lost %llu records (%llu bytes)", name,
                  why, n, raw);
    else if (c != UINT64_MAX)
        msg_error("%s: %s on: lost records from %llu (raw offset %llu) up to the next intact chunk, or to "
                  "the end; how many is unknown without an intact index", name, what, f, b);
    else
        msg_error("%s: damaged data after an earlier loss: lost an unknown number of records", name);
}

/* Whether loss b continues loss a (k chunks) exactly, lost the same way. */
static int continues(const trz_lost_range *a, int ka, uint64_t k, const trz_lost_range *b, int kb)
{
    return ka == kb && ka != TRZ_LOST_MISSING && ka != TRZ_LOST_UNPLACED && a->chunk != UINT64_MAX &&
           a->records != UINT64_MAX && b->chunk == a->chunk + k && b->first_record == a->first_record + a->records &&
           b->first_byte == a->first_byte + a->raw_bytes && b->records != UINT64_MAX;
}

/* With --salvage: what was lost, or the damage that cost nothing.  Returns
 * 1 when the archive was damaged at all. */
int msg_salvage(const char *name, trz_reader *r, uint64_t total, int failed)
{
    size_t nl = trz_reader_lost(r, NULL, 0);
    trz_lost_range *lost = nl ? malloc(nl * sizeof *lost) : NULL;
    if (nl && !lost) {
        msg_error("%s: out of memory", name);
        return 1;
    }
    nl = trz_reader_lost(r, lost, nl);
    size_t lines = 0;
    int in_member = 0; /* trz_reader_lost: after a loss of unknown place or end */
    for (size_t i = 0; i < nl;) {
        trz_lost_range l = lost[i];
        int kind = trz_reader_lost_kind(r, i);
        int unknown_end = l.chunk == UINT64_MAX || l.records == UINT64_MAX;
        uint64_t k = 1;
        for (i++; i < nl && continues(&l, kind, k, &lost[i], trz_reader_lost_kind(r, i)); i++, k++) {
            l.records += lost[i].records;
            l.raw_bytes += lost[i].raw_bytes;
        }
        if (++lines <= 64) report_lost(name, &l, kind, k, in_member);
        if (unknown_end) in_member = 1;
    }
    if (lines > 64) msg_error("%s: %zu more damaged or missing places", name, lines - 64);
    free(lost);
    if (nl) {
        msg_error("%s: salvaged %llu bytes; the damaged parts above are missing from the output", name,
                  (unsigned long long)total);
        return 1;
    }
    const char *why = trz_reader_error(r);
    if (*why && !failed) { /* a damaged index, footer or header: every record was recovered */
        msg_error("%s: %s; all %llu bytes recovered", name, why, (unsigned long long)total);
        return 1;
    }
    return 0;
}

/* Chunks the reader mended from their parity: one line.  Returns 1 when
 * there were any. */
int msg_mended(const char *name, trz_reader *r)
{
    uint64_t first, n = trz_reader_mended(r, &first);
    if (!n) return 0;
    if (n == 1) msg_error("%s: chunk %llu: damaged stored data, mended from its parity set: records intact", name,
                          (unsigned long long)first);
    else msg_error("%s: chunks %llu and %llu more: damaged stored data, mended from their parity sets: records "
                   "intact", name, (unsigned long long)first, (unsigned long long)(n - 1));
    return 1;
}
