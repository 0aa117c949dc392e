/* unwrap.h - an input source that reads a trace straight, or through the
 * decompressor its first bytes name (gzip, zstd, xz, bzip2, and the zip,
 * lz4 and snappy containers of the drmemtrace file layer, drfile.h), so
 * that an archive holds the trace itself.  The wrap room (this file and
 * drfile*.c) stands on the format room and below compress, decompress and
 * tools; no codec uses it. */
#ifndef TRZ_UNWRAP_H
#define TRZ_UNWRAP_H
#include "../common/common.h"
#include "../format/format.h" /* TRZ_WRAP_*: what an input was wrapped in */

typedef struct trz_src {
    const trz_io *io;
    uint8_t *in;
    size_t in_len, in_pos;
    int in_eof, member_done;
    int wrap;   /* TRZ_WRAP_* */
    void *dec;  /* the decompressor's state: z_stream, ZSTD_DStream, lzma_stream, bz_stream or trz_drsrc */
    const char *kind; /* NULL, or the wrapper's name ("gzip", "zstd", "xz", "bzip2", "zip", ...) */
    const char *why;  /* after a failed read: what was wrong, when more than the result says */
} trz_src;

int trz_src_open(trz_src *s, const trz_io *io, int unwrap);
/* Fill up to n bytes; returns fewer only at the end.  Negative on error. */
int64_t trz_src_read(trz_src *s, uint8_t *dst, size_t n);
void trz_src_close(trz_src *s);
/* The name of a TRZ_WRAP_* value ("gzip"...), NULL for none or unknown. */
const char *trz_wrap_name(int wrap);
#endif
