/* trz_champsim.h - fill ChampSim's trace structs from a .trz through the
 * trz API, a batch at a time: input_instr (64 bytes) from a "champsim"
 * archive, cloudsuite_instr (96 bytes) from a "champsim-cloudsuite" one.
 * The structs are the records' bytes in the host's order (trz_read with
 * TRZ_R_HOST_ORDER), so a batch is one copy out of the decoded chunk.
 * Header-only C, usable from C++ (the simulator); link with -ltrz.
 *
 *   trz_cs_reader cr;
 *   if (trz_cs_open(&cr, "t.trz", sizeof(input_instr), 2)) { puts(cr.err); ... }
 *   input_instr buf[1024];
 *   long n;
 *   while ((n = trz_cs_read(&cr, buf, 1024)) > 0) ...;   // n < 0: cr.err
 *   trz_cs_close(&cr);                                              */
#ifndef TRZ_CHAMPSIM_READER_H
#define TRZ_CHAMPSIM_READER_H

#include <stdio.h>
#include <string.h>

#include "trz.h"

typedef struct trz_cs_reader {
    trz_reader *r;
    size_t record_size; /* 64 or 96 */
    char err[256];      /* why the last call failed */
} trz_cs_reader;

/* Open `path` for structs of `record_size` bytes (64: input_instr, 96:
 * cloudsuite_instr), with `threads` decode-ahead threads (1: decode in the
 * caller).  Returns 0, or -1 with the reason in cr->err: the file is not an
 * archive, or holds another format. */
static inline int trz_cs_open(trz_cs_reader *cr, const char *path, size_t record_size, int threads)
{
    memset(cr, 0, sizeof *cr);
    cr->record_size = record_size;
    int rc = trz_reader_open_path(&cr->r, path);
    trz_info in;
    if (rc == 0) rc = trz_reader_info(cr->r, &in);
    if (rc != 0) {
        snprintf(cr->err, sizeof cr->err, "%s: %s", path, cr->r ? trz_reader_error(cr->r) : trz_strerror(rc));
        if (cr->r) trz_reader_close(cr->r);
        cr->r = NULL;
        return -1;
    }
    const char *want = record_size == 96 ? "champsim-cloudsuite" : "champsim";
    if ((record_size != 64 && record_size != 96) || strcmp(in.format, want) != 0) {
        snprintf(cr->err, sizeof cr->err, "%s: a %s archive, not %u-byte ChampSim records", path, in.format,
                 (unsigned)record_size);
        trz_reader_close(cr->r);
        cr->r = NULL;
        return -1;
    }
    trz_reader_set(cr->r, TRZ_R_HOST_ORDER, 1);
    trz_reader_set(cr->r, TRZ_R_THREADS, threads);
    return 0;
}

/* Fill up to max structs at out.  Returns how many, 0 at the end of the
 * trace, or -1 with the reason in cr->err (a damaged archive). */
static inline long trz_cs_read(trz_cs_reader *cr, void *out, size_t max)
{
    int64_t n = trz_read(cr->r, out, max);
    if (n < 0) {
        snprintf(cr->err, sizeof cr->err, "%s", trz_reader_error(cr->r));
        return -1;
    }
    return (long)n;
}

static inline void trz_cs_close(trz_cs_reader *cr)
{
    if (cr->r) trz_reader_close(cr->r);
    cr->r = NULL;
}

#endif
