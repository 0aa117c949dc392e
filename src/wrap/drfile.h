/* drfile.h - the drmemtrace file layer: the containers DynamoRIO keeps
 * traces in (.zip of chunks, .gz, .lz4, .sz), read as the record stream
 * they hold plus a recipe that rebuilds the file byte for byte from those
 * records (drfile.md; the recipe's bytes, the body of a restore block, are
 * specified in src/format/FORMAT.md).  The container layer around the
 * body (block header, checks, where it sits) belongs to src/format. */
#ifndef TRZ_DRFILE_H
#define TRZ_DRFILE_H

#include <stddef.h>
#include <stdint.h>

#include "../../include/trz.h"
#include "../format/format.h" /* TRZ_DRF_*: the containers, as parameters 1 and 2 number them */

/* The container an input starting with the n bytes at head is, when trz
 * keeps what restores it (a zip, lz4 or snappy file; a gzip file only when
 * it holds drmemtrace records); 0 otherwise.  n: the first 64 KiB or all. */
int trz_drfile_kind(const uint8_t *head, size_t n);
/* The containers trz unwraps itself (zip, lz4, snappy; gzip is unwrap.c's):
 * the kind their magic names, or 0. */
int trz_drfile_magic(const uint8_t *head, size_t n);
/* "zip", "gzip", "lz4", "snappy" and ".zip", ".gz", ".lz4", ".sz"; NULL
 * for a kind this version does not know. */
const char *trz_drfile_name(int kind);
const char *trz_drfile_suffix(int kind);

/* ---- compressing: the plan (first pass over a seekable input) ---- */
typedef struct trz_drplan trz_drplan;
/* Read the whole input (seeking on it), find its records and, stream by
 * stream, a way to rebuild each that gives back exactly its bytes; what has
 * none is kept as it is.  With threads > 1, that many threads check the
 * deflate and lz4 streams, at most one stream each at a time, while the
 * calling thread reads on; the plan is the same for every count.  Fails
 * only on I/O errors and lack of memory. */
int trz_drplan_make(trz_drplan **out, const trz_io *in, int kind, int threads, char *err, size_t errlen);
void trz_drplan_free(trz_drplan *p);
/* The original file's size and XXH3, the record stream's length and XXH3,
 * the body's size. */
void trz_drplan_totals(const trz_drplan *p, uint64_t *size, uint64_t *hash, uint64_t *records, uint64_t *rhash,
                       uint64_t *body);
/* The bytes of the streams the body keeps as they are (no setting rebuilt
 * them), and the record bytes they stand for. */
void trz_drplan_kept(const trz_drplan *p, uint64_t *kept, uint64_t *records);
/* Write the body (the recipe, with the bytes it keeps read again from in)
 * through emit, which returns 0 or -1. */
int trz_drplan_write(const trz_drplan *p, const trz_io *in, int (*emit)(void *ctx, const void *b, size_t n),
                     void *ctx);

/* ---- the records of a container, read front to back ---- */
typedef struct trz_drsrc trz_drsrc;
/* From io (seeking to its own place before each read when io can seek, so
 * that other readers of io do not disturb it), or, when pull is set, from
 * pull (a pipe). */
trz_drsrc *trz_drsrc_open(int kind, const trz_io *io, int64_t (*pull)(void *ctx, void *b, size_t n), void *ctx);
/* Up to n record bytes; fewer only at the end; < 0 a trz_result. */
int64_t trz_drsrc_read(trz_drsrc *s, uint8_t *dst, size_t n);
/* After the end: the container's size and XXH3, the records' length and
 * XXH3, and whether anything of the file did not become records (damage,
 * members trz cannot decode, bytes after the end). */
void trz_drsrc_totals(const trz_drsrc *s, uint64_t *size, uint64_t *hash, uint64_t *records, uint64_t *rhash,
                      int *lossy);
void trz_drsrc_close(trz_drsrc *s);

/* ---- restoring ---- */
/* Where the records come from: up to max bytes at *p, 0 at the end, < 0 a
 * trz_result (trz_read_view). */
typedef int64_t (*trz_drview_fn)(void *ctx, const void **p, size_t max);
/* Rebuild the original file from the body (body_len bytes read through
 * body) and the records, writing it to out; checks each rebuilt stream as
 * it ends and, at the end, the size and XXH3 of all that was written and
 * that every record was used.  A trz_result; the message goes to err. */
int trz_drfile_restore(const trz_io *body, uint64_t body_len, uint64_t size, uint64_t hash, uint64_t records,
                       trz_drview_fn view, void *vctx, const trz_io *out, char *err, size_t errlen);
/* How the body restores the file, for trz -l: "rebuilt: zip, deflate 6,
 * 1 member" or "kept as is"; *kept = the original bytes it stores. */
int trz_drfile_describe(const trz_io *body, uint64_t body_len, int kind, char *how, size_t cap, uint64_t *kept);

#endif
