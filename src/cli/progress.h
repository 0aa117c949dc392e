/* progress.h - the command line's progress line and byte counts
 * (progress.c). */
#ifndef TRZ_CLI_PROGRESS_H
#define TRZ_CLI_PROGRESS_H

#include <stdint.h>

#include "../../include/trz.h"

/* "24.0 MiB", "840 B" into buf. */
const char *cli_human(uint64_t v, char *buf, size_t cap);

/* The progress line of one file on a terminal, a few times a second at most. */
typedef struct cli_progress {
    const char *name;
    uint64_t total; /* what `done` counts up to (a file's size, the trace's), 0 when unknown */
    double last;
    int shown;
} cli_progress;
void progress_show(cli_progress *p, uint64_t done, uint64_t in, uint64_t out);
void progress_end(cli_progress *p);

/* Bytes in and out of one compression, for the -v summary: the trace's
 * bytes from the progress calls, the bytes read from the input as given
 * (a file's size: a kept container is read twice), the archive's by
 * counting its writes.  from and to: the descriptors' I/O; the tally_*
 * functions are a trz_io over them with t as opaque. */
typedef struct tally {
    cli_progress *pg;
    uint64_t in, read, out;
    uint64_t pos; /* where in the input as given: the progress's percentage */
    trz_io from, to;
    uint8_t head[4]; /* the input's first bytes: is it an archive already? */
    size_t nhead;
} tally;
int64_t tally_read(void *opaque, void *buf, size_t n);
int tally_seek(void *opaque, uint64_t off);
int64_t tally_size(void *opaque);
int64_t tally_write(void *opaque, const void *buf, size_t n);
void tally_progress(void *ctx, uint64_t in, uint64_t out);
/* "auto, raw, rst, ...": the format names, for a message. */
const char *format_list(char *buf, size_t cap);
/* -v: what was found, then the summary line (kept: the file is kept for
 * trz -d to restore). */
void verbose_summary(const trz_cctx *c, const char *name, const tally *t, int kept, const char *outshown);

#endif
