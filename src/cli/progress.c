/* progress.c - what the command line shows of one file's work: sizes in
 * binary units, the progress line on a terminal, and the byte counts of a
 * compression (the tally between the library and the descriptors) for the
 * -v summary. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "progress.h"

/* "24.0 MiB", "840 B": sizes in the -v summary and the progress line, in
 * binary units as zstd -v writes them (one system everywhere: KiB, MiB,
 * GiB, as the chunk sizes are given) */
const char *cli_human(uint64_t v, char *buf, size_t cap)
{
    static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
    if (v < 1024) {
        snprintf(buf, cap, "%llu B", (unsigned long long)v);
        return buf;
    }
    double x = (double)v / 1024;
    int u = 0;
    for (; x >= 1024 && u < 3; u++) x /= 1024;
    snprintf(buf, cap, "%.1f %s", x, unit[u]);
    return buf;
}

/* ---- progress on a terminal, a few times a second at most ---- */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* "name: 45% 12.3 MiB => 1.2 MiB": how far (when the total is known), the
 * bytes read or written, and, compressing, the archive so far (out ==
 * UINT64_MAX: none) */
void progress_show(cli_progress *p, uint64_t done, uint64_t in, uint64_t out)
{
    double t = now();
    if (t - p->last < 0.25) return;
    p->last = t;
    p->shown = 1;
    char a[32], b[32], pct[16] = "";
    if (p->total) snprintf(pct, sizeof pct, "%3.0f%% ", done < p->total ? 100.0 * (double)done / (double)p->total : 100.0);
    if (out == UINT64_MAX) fprintf(stderr, "\r%s: %s%s\033[K", p->name, pct, cli_human(in, a, sizeof a));
    else fprintf(stderr, "\r%s: %s%s => %s\033[K", p->name, pct, cli_human(in, a, sizeof a), cli_human(out, b, sizeof b));
}

void progress_end(cli_progress *p)
{
    if (p->shown) fputs("\r\033[K", stderr);
}

/* ---- one compression's bytes ---- */

/* Bytes in and out of one compression, for the -v summary: the trace's
 * bytes from the progress calls, the bytes read from the input as given
 * (a file's size: a kept container is read twice), the archive's by
 * counting its writes. */
int64_t tally_read(void *opaque, void *buf, size_t n)
{
    tally *t = opaque;
    int64_t k = t->from.read(t->from.opaque, buf, n);
    if (k > 0 && t->read == t->nhead) /* the input's first bytes, a few at a time from a pipe */
        for (size_t i = 0; i < (size_t)k && t->nhead < sizeof t->head; i++) t->head[t->nhead++] = ((uint8_t *)buf)[i];
    if (k > 0) t->read += (uint64_t)k, t->pos += (uint64_t)k;
    return k;
}

int tally_seek(void *opaque, uint64_t off)
{
    tally *t = opaque;
    int rc = t->from.seek(t->from.opaque, off);
    if (rc == 0) t->pos = off; /* a second pass over a container starts the percentage again */
    return rc;
}

int64_t tally_size(void *opaque)
{
    tally *t = opaque;
    return t->from.size(t->from.opaque);
}

int64_t tally_write(void *opaque, const void *buf, size_t n)
{
    tally *t = opaque;
    int64_t k = t->to.write(t->to.opaque, buf, n);
    if (k > 0) t->out += (uint64_t)k;
    return k;
}

/* The input's bytes as the user gave them: the file's size, or what was
 * read from a pipe. */
uint64_t tally_given(const tally *t)
{
    int64_t n = t->from.size ? t->from.size(t->from.opaque) : -1;
    return n >= 0 ? (uint64_t)n : t->read;
}

void tally_progress(void *ctx, uint64_t in, uint64_t out)
{
    tally *t = ctx;
    t->in = in;
    /* how far: the bytes compressed, which the reading runs ahead of; of a
     * compressed input the trace's bytes outrun the file's, and the file
     * read so far is the measure */
    if (t->pg) progress_show(t->pg, in < t->pos ? in : t->pos, in, out);
}

/* The format names for a message: "auto, raw, rst, ..." from the library. */
const char *format_list(char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "auto");
    for (size_t i = 0; trz_format_name(i) && n < cap; i++) n += (size_t)snprintf(buf + n, cap - n, ", %s", trz_format_name(i));
    return buf;
}

/* -v: what was found (the format; the wrapper or container taken off and
 * the trace's bytes inside), then the summary line, whose ratio and sizes
 * are those of the input as given and the archive, as gzip and xz report. */
void verbose_summary(const trz_cctx *c, const char *name, const tally *t, int kept, const char *outshown)
{
    const char *un = trz_cctx_unwrapped(c);
    uint64_t given = tally_given(t);
    char a[32], b[32], inside[112] = "";
    if (un)
        snprintf(inside, sizeof inside, ", unwrapped from %s (%s of trace%s)", un, cli_human(t->in, a, sizeof a),
                 kept ? "; the file is kept: trz -d restores it" : "");
    fprintf(stderr, "%s: %s%s%s\n", name, trz_cctx_format(c),
            trz_cctx_byte_order(c) == TRZ_BYTE_ORDER_BIG ? " (big-endian)"
            : trz_cctx_byte_order(c) == TRZ_BYTE_ORDER_LITTLE ? " (little-endian)" : "", inside);
    fprintf(stderr, "%s : %.2f%% (%s => %s, %s)\n", name, given ? 100.0 * (double)t->out / (double)given : 0.0,
            cli_human(given, a, sizeof a), cli_human(t->out, b, sizeof b), outshown);
}

