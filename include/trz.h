/* trz.h - the public interface of libtrz, a lossless compressor for
 * computer-architecture traces (SPARC RST, BYU, PEL Pentium bus, UPenn uop
 * text, ChampSim, and any other file through a raw codec).
 *
 * This header is the manual.  Every function returns a trz_result (0 on
 * success, a negative TRZ_ERR_* on failure) unless it says otherwise.
 *
 * Messages: a function that works on a context leaves a one-line message
 * for its last failure in that context, naming the chunk where there is one
 * (trz_cctx_error for compression and trz_compress_path, trz_writer_error,
 * trz_reader_error).  The functions without a context (trz_join,
 * trz_decompress_path, trz_dump_raw, trz_dump_any) write it to the
 * caller's buffer (err, errlen).  trz_dump reports through its reader.  No
 * function does both.
 *
 * Contexts are opaque; create them with *_create / *_open, free them with
 * *_free / *_close, which accept NULL.  One context must not be used by two
 * threads at once (nothing detects it: two threads in one reader or writer
 * free and reuse its buffers under each other); different contexts are
 * independent, so give each thread its own.
 *
 * Arguments.  No function crashes on a NULL pointer or a zeroed struct:
 * each says what it does with them.  The rule: a NULL context, or a NULL
 * where a pointer is needed (a buffer with a non-zero size, a path, an
 * out-parameter, a callback, a trz_io, a trz_io member the call needs),
 * is TRZ_ERR_PARAM, with the message in the context when there is one
 * (in err for the functions that take one).  Functions that return no
 * trz_result return what each says (NULL, 0).  A NULL buffer with a size
 * of 0 is fine.  In a trz_io only the members the call uses must be
 * there: read for an input (seek and size too for random access; without
 * them the input is read as a pipe), write for an output.  Counts past the
 * end are cut to what is there (reads) or TRZ_ERR_RANGE (record and chunk
 * numbers).  Settings out of range, and flags other than 0 and 1, are
 * TRZ_ERR_PARAM with a message, and change nothing.
 *
 * The container format is specified in src/format/FORMAT.md, each codec's
 * streams in codecs/<name>/<name>.md.  trz_records.h gives the record
 * layouts of the fixed-size formats.
 */
#ifndef TRZ_H
#define TRZ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every function of the library is declared TRZ_API: the shared library
 * exports these and nothing else (it is built with hidden visibility). */
#if defined(__GNUC__)
#define TRZ_API __attribute__((visibility("default")))
#else
#define TRZ_API
#endif

#define TRZ_VERSION_MAJOR 0
#define TRZ_VERSION_MINOR 23
#define TRZ_VERSION_PATCH 0
#define TRZ_VERSION_NUMBER (TRZ_VERSION_MAJOR * 10000 + TRZ_VERSION_MINOR * 100 + TRZ_VERSION_PATCH)

/* The library's version, TRZ_VERSION_NUMBER as built, and as a string. */
TRZ_API unsigned trz_version_number(void);
TRZ_API const char *trz_version_string(void);

/* ---- results ------------------------------------------------------------ */

typedef enum trz_result {
    TRZ_OK = 0,
    TRZ_ERR_IO = -1,          /* a read or write failed (see errno) */
    TRZ_ERR_NOMEM = -2,       /* an allocation failed */
    TRZ_ERR_NOT_TRZ = -3,     /* the input does not start with trz's magic */
    TRZ_ERR_VERSION = -4,     /* a container version this library cannot read */
    TRZ_ERR_CORRUPT = -5,     /* a header, table or stream is damaged */
    TRZ_ERR_CHECKSUM = -6,    /* decoded bytes do not match the chunk's XXH3 */
    TRZ_ERR_TRUNCATED = -7,   /* the input ends inside a structure */
    TRZ_ERR_LIMIT = -8,       /* a size read from the input exceeds the limits */
    TRZ_ERR_PARAM = -9,       /* a bad argument or parameter value */
    TRZ_ERR_UNSUPPORTED = -10,/* unknown codec, back-end or model variant, or seeking a pipe */
    TRZ_ERR_RANGE = -11,      /* a record number past the end */
    TRZ_ERR_CODEC = -12,      /* a codec failed to encode (a bug: please report) */
} trz_result;

/* A static, one-line description of a trz_result. */
TRZ_API const char *trz_strerror(int result);

/* ---- I/O callbacks --------------------------------------------------------
 * Everything reads and writes through this struct, so files, pipes, memory
 * and user streams all work.  A NULL member means "not available". */
typedef struct trz_io {
    void *opaque;
    /* Read up to n bytes into buf: return the count, 0 at end, -1 on error.
     * Short reads are fine. */
    int64_t (*read)(void *opaque, void *buf, size_t n);
    /* Write all n bytes: return n, or -1 on error (errno set if there is
     * one to report; it need not be).  Any other count is an error too. */
    int64_t (*write)(void *opaque, const void *buf, size_t n);
    /* Seek to an absolute offset: 0 or -1.  NULL for pipes. */
    int (*seek)(void *opaque, uint64_t offset);
    /* Total size in bytes, or -1 when unknown (pipes). */
    int64_t (*size)(void *opaque);
} trz_io;

/* Fill *io for a file descriptor (seekable when the fd is a regular file).
 * The caller keeps ownership of fd; *fd_storage must outlive io.
 * TRZ_ERR_PARAM for a NULL io (nothing written), or a NULL fd_storage (io
 * is zeroed: every call given it refuses it). */
TRZ_API int trz_io_fd(trz_io *io, int *fd_storage);

/* ---- formats and byte order ------------------------------------------- */

enum { TRZ_BYTE_ORDER_NONE = 0, TRZ_BYTE_ORDER_LITTLE = 1, TRZ_BYTE_ORDER_BIG = 2 };

/* Name of the i-th codec ("raw", "rst", "byu", "pbus", "uop"), NULL past
 * the end; and a one-line description of it (NULL past the end). */
TRZ_API const char *trz_format_name(size_t i);
TRZ_API const char *trz_format_description(size_t i);

/* ---- compression ---------------------------------------------------------- */

typedef struct trz_cctx trz_cctx;

/* NULL when out of memory; free accepts NULL. */
TRZ_API trz_cctx *trz_cctx_create(void);
TRZ_API void trz_cctx_free(trz_cctx *cctx);

typedef enum trz_cparam {
    TRZ_C_LEVEL = 1,       /* 1..19, default TRZ_LEVEL_DEFAULT */
    TRZ_C_THREADS = 2,     /* worker threads; 0 = all cores; default 1.
                              The output is identical for every value. */
    TRZ_C_BACKEND = 3,     /* TRZ_BACKEND_ZSTD (default) or TRZ_BACKEND_GZIP */
    TRZ_C_CHUNK_BYTES = 4, /* raw bytes per chunk, 4 KiB..256 MiB, default 16 MiB (drmemtrace, and RST
                              at levels 6-19: 6 MiB; ChampSim at levels 6-9: 12 MiB; raw: 8 MiB) */
    TRZ_C_CHUNK_RECORDS = 5,/* records per chunk cap; 0 = only the byte limit */
    TRZ_C_UNWRAP = 6,      /* 1 (default): input that is gzip, zstd, xz or
                              bzip2 data, or a zip, lz4 or snappy container,
                              is decompressed first and the trace inside
                              stored; a container read from a file that can
                              seek is also kept restorable (trz_restore).
                              2: as 1, but a container's records are stored
                              alone, its file not kept.  0: input stored as
                              it is */
    TRZ_C_VERIFY = 7,      /* 1 (default): decode every chunk after encoding
                              and fall back to the raw codec if it differs */
    TRZ_C_RESTART_BYTES = 8,/* the length of a group, in bytes of trace: a
                              chunk's models start from what its group's
                              earlier chunks left them (TRZ_C_CHAIN) or taught
                              them (carried knowledge), afresh at each group:
                              4 KiB..1 GiB.  Default: the format's chain
                              length (what a seek decodes stays short at
                              levels 1-11, longer at 12-19), else 256 MiB;
                              carried knowledge starts afresh every 256 MiB
                              at the most.
                              Shorter bounds what a seek decodes or reads and
                              what a damaged chunk costs.  0: every chunk
                              starts from nothing (archives that trz 0.11
                              reads) */
    TRZ_C_CHAIN = 9,       /* 1 (default): for the formats whose models
                              chain, a group's chunks form a chain: each
                              continues the models of the chunk before, so
                              the group compresses like one chunk and a seek
                              decodes from the group's start (archives that
                              trz 0.16 and later read).  0: each chunk starts
                              from the carried knowledge alone (archives that
                              trz 0.12 reads) */
    TRZ_C_PARITY = 10,     /* 1 (default): every 32 MiB of trace the member
                              states the parity of its chunks' data, about
                              1/256 of it, so that a reader mends one
                              damaged stretch in it (a flipped byte) and
                              loses nothing (archives that trz 0.22 and
                              later read).  0: no parity */
} trz_cparam;

enum { TRZ_BACKEND_STORE = 0, TRZ_BACKEND_ZSTD = 1, TRZ_BACKEND_GZIP = 2 };
#define TRZ_LEVEL_MIN 1
#define TRZ_LEVEL_MAX 19
#define TRZ_LEVEL_DEFAULT 9

/* Set one parameter.  TRZ_ERR_PARAM, with the message in trz_cctx_error
 * and the setting unchanged, for a value out of the range given above (a
 * flag takes 0 or 1 only), an unknown parameter, or a NULL cctx. */
TRZ_API int trz_cctx_set(trz_cctx *cctx, trz_cparam param, int64_t value);

/* Choose the codec by name ("auto", the default, probes the first chunk and
 * falls back to "raw").  TRZ_ERR_PARAM (with a message) for an unknown
 * name or a NULL one, and for a NULL cctx. */
TRZ_API int trz_cctx_set_format(trz_cctx *cctx, const char *name);

/* Called from the compressing thread after each chunk is written.  fn NULL
 * calls nothing; TRZ_ERR_PARAM for a NULL cctx. */
typedef void (*trz_progress_fn)(void *ctx, uint64_t raw_in, uint64_t bytes_out);
TRZ_API int trz_cctx_set_progress(trz_cctx *cctx, trz_progress_fn fn, void *ctx);

/* Compress everything `in` yields into one trz member written to `out`.
 * `in` needs read (with seek and size a container is kept restorable,
 * see TRZ_C_UNWRAP); `out` needs only write (pipes work): the index is
 * written at the end.  TRZ_ERR_PARAM for a NULL cctx, and with a message
 * for a NULL in or out, or one without the member it needs. */
TRZ_API int trz_compress(trz_cctx *cctx, const trz_io *in, const trz_io *out);

/* After trz_compress: the codec it chose and the byte order it found
 * (NULL and TRZ_ERR_PARAM for a NULL cctx). */
TRZ_API const char *trz_cctx_format(const trz_cctx *cctx);
TRZ_API int trz_cctx_byte_order(const trz_cctx *cctx);

/* After trz_compress: how long the groups are that a member of the codec
 * it chose starts, with these settings, in bytes of trace: a group starts
 * at the member's first chunk and at every chunk that would take it past
 * this length (FORMAT.md, "Knowledge", "Chains"); *chains (may be NULL)
 * is 1 when they are chains.  0 when its chunks decode on their own
 * (TRZ_C_RESTART_BYTES 0, or a codec that neither chains nor learns); a
 * member of one chunk has no groups either.  0 for a NULL cctx.  A caller
 * that compresses a trace in parts cuts it where groups start: the parts,
 * joined, are then the archive one run writes. */
TRZ_API uint64_t trz_cctx_group_bytes(const trz_cctx *cctx, int *chains);

/* After trz_compress: what the input was compressed with and decompressed
 * from ("gzip", "zstd", "xz", "bzip2", "zip", "lz4", "snappy"; recorded in
 * the archive), or NULL (also for a NULL cctx). */
TRZ_API const char *trz_cctx_unwrapped(const trz_cctx *cctx);

/* Whether trz_compress keeps the container of an input that starts with
 * the n bytes at head (its first 64 KiB, or all of it) and can seek: then
 * the suffix the original file goes by (".zip", ".gz", ".lz4", ".sz"), for
 * the archive's name (x.trace.zip -> x.trace.zip.trz), else NULL.  Zip,
 * lz4 and snappy files are kept; gzip files when they hold drmemtrace
 * records (other gzip input is unwrapped to the trace alone).  NULL for a
 * NULL head. */
TRZ_API const char *trz_container_suffix(const void *head, size_t n);

/* After trz_compress: the format auto-detection picks for the input, also
 * when a format was forced; *fits (may be NULL) is 0 when a forced format
 * does not recognise the input that another format does (trz warns then:
 * such an archive tends to come out larger than the input).  NULL (and
 * *fits 0) for a NULL cctx. */
TRZ_API const char *trz_cctx_detected(const trz_cctx *cctx, int *fits);

/* The message for the last failure of this context ("" if none; for a NULL
 * cctx, which trz_cctx_create returns only out of memory, "out of
 * memory"). */
TRZ_API const char *trz_cctx_error(const trz_cctx *cctx);

/* After trz_compress: what the caller should tell its user about the
 * archive, on one line, or "" when nothing: a container kept partly as it
 * was (streams trz does not rebuild stored beside the records), or stored
 * as it is because keeping its streams beside the records would have made
 * the archive larger than the file (the archive is then at most the
 * file's size plus 68 bytes plus 102 per chunk).  A NULL cctx: "". */
TRZ_API const char *trz_cctx_warning(const trz_cctx *cctx);

/* ---- writing as records come: the push-style writer ---------------------------
 * For a tracer or simulator that produces records as it runs: no pipe and
 * no thread of its own.  The archive is the one trz_compress makes of the
 * same bytes with the same settings, byte for byte (chunks are cut at record
 * or line boundaries whatever the writes were).  With TRZ_C_THREADS of 2 or
 * more, chunks are encoded in the background and a write blocks only when
 * that many are in flight.  Errors: each call returns a trz_result, and the
 * writer keeps a one-line message (trz_writer_error). */

typedef struct trz_writer trz_writer;

/* Open a writer with cctx's settings (NULL: the defaults; cctx is copied
 * and may be freed at once) writing to *io (copied; io->opaque must stay
 * valid until close; only write is used, and TRZ_ERR_PARAM when io or
 * io->write is NULL).  On failure *writer is still set (unless out of
 * memory) so that trz_writer_error can tell why; close it as usual.  When
 * io->write fails, the call that met it returns TRZ_ERR_IO and so do all
 * later ones.  TRZ_ERR_PARAM, nothing opened, for a NULL writer. */
TRZ_API int trz_writer_open(trz_writer **writer, const trz_cctx *cctx, const trz_io *io);

/* The same into the file at path, as trz_compress_path writes `out` (see
 * there what a symbolic link, a device or a directory does): through a
 * temporary file beside it that replaces path only when trz_writer_finish
 * succeeds.  A path that is refused (NULL, a directory, ...) is
 * TRZ_ERR_PARAM with the message in the writer, as for other failures. */
TRZ_API int trz_writer_open_path(trz_writer **writer, const trz_cctx *cctx, const char *path);

/* Append n bytes of trace (any number of records, or part of one; n may
 * be 0, and data NULL only then).  TRZ_ERR_PARAM for a NULL writer or
 * data, and after finish. */
TRZ_API int trz_writer_write(trz_writer *writer, const void *data, size_t n);

/* Finish the archive: the last chunks, the index and the footer (and the
 * rename, for a path).  Writes after it fail; finishing again returns the
 * same result.  The message of a failure stays readable until
 * trz_writer_close. */
TRZ_API int trz_writer_finish(trz_writer *writer);

/* Finish (when not done yet) and free; NULL is fine.  Returns the result.
 * The writer is gone afterwards: like free, a second close (or any call on
 * it) is a use after free.  TRZ_ERR_PARAM from finish for a NULL writer. */
TRZ_API int trz_writer_close(trz_writer *writer);

/* The message for the writer's last failure ("" if none; "out of memory"
 * for NULL, which the open calls leave only out of memory). */
TRZ_API const char *trz_writer_error(const trz_writer *writer);

/* ---- reading: sequential, random access, iteration -------------------------
 * A reader decodes a .trz file (one member or several concatenated) and
 * hands out the original bytes.  When the input can seek, the reader loads
 * the index from the footer and trz_seek jumps straight to a record,
 * decoding only the chunk that holds it; from a pipe it reads sequentially.
 * Every chunk's XXH3 is checked before its bytes are handed out.
 *
 * Position.  A reader stands at a byte of the decoded trace.  trz_read_bytes
 * and the views move it by bytes, so it may stop inside a record; trz_read
 * and trz_foreach hand out whole records only and refuse to start there
 * (TRZ_ERR_PARAM, "position is inside a record: read the rest with
 * trz_read_bytes or seek"), changing nothing: read on to the record's end
 * with trz_read_bytes (or trz_read_span with max_records 0), or trz_seek.
 * The other reading calls work from any position.  A partial last record
 * (the source's last bytes, fewer than a record) is no record:
 * trz_read and trz_foreach stop before it (returning 0 there, the end of
 * the records), so that trz_read_bytes returns it next; a partial record
 * that ends a member with more members after it is passed over by them.
 *
 * Threads.  Every call below on one reader must come from one thread at a
 * time (TRZ_R_THREADS starts the reader's own threads, which is another
 * matter): two threads reading, seeking or closing one reader at once
 * corrupt its memory, and nothing detects it.  Open one reader per thread:
 * readers of the same file are independent. */

typedef struct trz_reader trz_reader;

/* The open calls: TRZ_ERR_PARAM, nothing opened, for a NULL reader; for a
 * NULL path, io, io->read or data (with len > 0), or a negative fd,
 * TRZ_ERR_PARAM with *reader set as for any failure (below).  A trz_io
 * without seek or size is read as a pipe. */
TRZ_API int trz_reader_open_path(trz_reader **reader, const char *path);
/* The caller keeps ownership of fd and must keep it open until close. */
TRZ_API int trz_reader_open_fd(trz_reader **reader, int fd);
/* The memory must stay valid until close; the reader does not copy it. */
TRZ_API int trz_reader_open_mem(trz_reader **reader, const void *data, size_t len);
/* *io is copied; io->opaque must stay valid until close. */
TRZ_API int trz_reader_open_io(trz_reader **reader, const trz_io *io);
/* NULL is fine.  Never while another thread is in a call on the same
 * reader (see "Threads" above: that is a use after free). */
TRZ_API void trz_reader_close(trz_reader *reader);

/* On failure of an open call, *reader is still set (unless out of memory) so
 * that trz_reader_error can tell why; close it as usual (when it had no
 * input at all, a NULL path, a missing file, fd -1, reads on it return
 * the open's result).  The message does not name the input ("No such file or directory"): print the path
 * before it.  "out of memory" for a NULL reader. */
TRZ_API const char *trz_reader_error(const trz_reader *reader);

typedef enum trz_rparam {
    TRZ_R_THREADS = 1,    /* decode-ahead threads for sequential reads; 0 = all
                             cores; default 1 (chunks are decoded in the
                             calling thread, when reached).  With N >= 2, N
                             background threads decode the chunks that follow
                             while the caller works on the current one; up to
                             N + 1 chunks are held ahead (2N + 2 in chains:
                             a group's chunks decode one after another, so
                             the threads take the groups that follow), each
                             a chunk's memory, as long as the sizes their headers
                             declare fit about 1 GiB together (a larger
                             chunk is decoded alone), so that a hostile
                             archive costs no more memory with N threads
                             than with one.  Order is always kept, and an
                             error is reported only when its chunk is
                             reached. */
    TRZ_R_HOST_ORDER = 2, /* 1: trz_read converts records to the host's byte
                             order (per codec, field by field); 0 (default):
                             records come back exactly as stored */
    TRZ_R_SALVAGE = 3,    /* 1: skip damaged chunks instead of failing; see
                             trz_reader_lost.  Without a usable index the
                             reader scans for the next chunk header that
                             passes its check.  May be set after an open
                             failed on a damaged first header, to read on
                             past it.  Damage that cost no data leaves its
                             message in trz_reader_error. */
    TRZ_R_OVERLAP = 4,    /* 1: with TRZ_R_THREADS 1, that one decoding
                             thread is a background thread, so that the
                             chunk after the caller's decodes while the
                             caller uses it (writes it into a pipe, say):
                             one chunk decoded ahead, so two chunks'
                             memory instead of one (and, in an archive
                             whose chunks carry knowledge, a second
                             knowledge store), under the same 1 GiB bound
                             on the chunks in flight.  0 (default): the
                             chunks are decoded in the calling thread.  No
                             effect with N >= 2 threads, which decode
                             ahead anyway. */
} trz_rparam;
/* Set one parameter.  TRZ_ERR_PARAM, with the message in trz_reader_error
 * and the setting unchanged, for a value out of range (threads 0..64, the
 * flags 0 or 1) or an unknown parameter; TRZ_ERR_PARAM for a NULL reader. */
TRZ_API int trz_reader_set(trz_reader *reader, trz_rparam param, int64_t value);

typedef struct trz_info {
    const char *format;      /* codec name; "mixed" when members differ in
                                format or byte order */
    uint32_t record_size;    /* bytes per record; 0 for text (records are
                                lines) and for a mixed archive, whose members
                                each count records in their own unit */
    int byte_order;          /* TRZ_BYTE_ORDER_* of the source */
    int seekable;            /* 1 when the index was loaded */
    int64_t records;         /* whole records (lines), -1 when unknown (pipe) */
    int64_t raw_bytes;       /* decoded size, -1 when unknown */
    int64_t compressed_bytes;/* archive size, -1 when unknown */
    int64_t chunks;          /* -1 when unknown */
    int64_t members;         /* concatenated members, -1 when unknown */
    const char *unwrapped;   /* the first member's input came compressed, and
                                the writer stored the trace inside: "gzip",
                                "zstd", "xz" or "bzip2"; NULL otherwise */
} trz_info;
/* TRZ_ERR_PARAM for a NULL reader or info. */
TRZ_API int trz_reader_info(trz_reader *reader, trz_info *info);

/* Count the distinct CPUs in the whole trace (decodes every chunk; the
 * codec must know CPUs).  Returns the count, or 0 if the format has no CPUs,
 * or a negative trz_result.  Through the index it reads from record 0 and
 * leaves the reader at the end of the records; from a pipe it reads on
 * from the position (which must not be inside a record, see
 * trz_foreach).  TRZ_ERR_PARAM
 * for a NULL reader. */
TRZ_API int trz_reader_cpus(trz_reader *reader);

/* The chunks this reader has decoded so far: what seeks and reads cost
 * (a seek decodes one chunk; sequential reads decode each once).  0 for
 * NULL. */
TRZ_API uint64_t trz_reader_chunks_decoded(const trz_reader *reader);

/* Per chunk (index only): where it is and what it holds. */
typedef struct trz_chunk_info {
    uint64_t first_record, records;
    uint64_t first_byte, raw_bytes;
    uint64_t offset, stored_bytes; /* in the archive */
    const char *format;
} trz_chunk_info;
/* TRZ_ERR_RANGE for a chunk past the last, TRZ_ERR_UNSUPPORTED without an
 * index, TRZ_ERR_PARAM for a NULL reader or info. */
TRZ_API int trz_reader_chunk(trz_reader *reader, uint64_t chunk, trz_chunk_info *info);

/* The first chunk of the group that chunk `chunk` belongs to (index only):
 * a chunk's models start from what its group's earlier chunks left, so a
 * seek to it decodes (*chained = 1: a chain, trz 0.16 and later) or reads
 * the knowledge of (*chained = 0) the chunks from there.  `chunk` itself
 * for a chunk that stands alone.  chained may be NULL.  TRZ_ERR_RANGE for
 * a chunk past the last, TRZ_ERR_UNSUPPORTED without an index,
 * TRZ_ERR_PARAM for a NULL reader. */
TRZ_API int64_t trz_reader_chunk_group(trz_reader *reader, uint64_t chunk, int *chained);

/* The model variant chunk `chunk` was coded with, in words every codec
 * shares: "streams" (fields split into byte streams for the back-end, the
 * fast levels), "range" (range-coded models), "mix" (range-coded with
 * context mixing), "raw"; with a suffix where one codec has two of a kind
 * ("streams-lean", "range-fast"); "fallback" or "tail" for a chunk its
 * member's codec left to the raw codec; "-" for a codec with one unnamed
 * variant, "?" for a variant this version does not know,
 * written to buf (n bytes, at least 1; cut to fit, NUL-terminated).  Reads
 * the chunk's stored bytes and the first bytes of its streams, decoding no
 * records.  TRZ_OK, or a negative trz_result (see trz_reader_error):
 * TRZ_ERR_RANGE for a chunk past the last, TRZ_ERR_PARAM for a NULL
 * reader or buf, or n 0. */
TRZ_API int trz_reader_chunk_variant(trz_reader *reader, uint64_t chunk, char *buf, size_t n);

/* Bytes per stream over the whole archive.  Reads every chunk's stored
 * bytes (without decoding them) and fails, naming the chunk, when a header
 * disagrees with the index or stored bytes with their checksum.  Calls fn
 * once per (format, stream) pair with its totals.  TRZ_ERR_PARAM for a
 * NULL reader or fn. */
typedef void (*trz_stream_fn)(void *ctx, const char *format, unsigned stream_id,
                              const char *stream_name, uint64_t raw, uint64_t compressed);
TRZ_API int trz_reader_streams(trz_reader *reader, trz_stream_fn fn, void *ctx);

/* Read up to max_records whole records into buf, which must hold
 * max_records * record_size bytes.  Returns the number of records read
 * (fewer than asked only at the end of the records, or before an error
 * that the next call returns), 0 at the end, or a negative trz_result.  A
 * partial last record of the source (a tail shorter than record_size) is
 * never returned here: trz_read stops before it, and trz_read_bytes
 * returns it next (see "Position" above).  At a position inside a record:
 * TRZ_ERR_PARAM, nothing read.  Text formats (record_size 0) have no fixed
 * record: for them this returns TRZ_ERR_UNSUPPORTED; use trz_read_bytes,
 * or trz_foreach, which hands out whole lines.  TRZ_ERR_PARAM for a NULL
 * reader, or a NULL buf with max_records > 0 (0 records: returns 0).
 * One thread at a time, as for every call on a reader ("Threads"). */
TRZ_API int64_t trz_read(trz_reader *reader, void *buf, size_t max_records);

/* Read up to cap decoded bytes, record boundaries ignored, from any
 * position.  Returns the count (fewer than cap only at the end, or before
 * an error that the next call returns), 0 at the end, or a negative
 * trz_result.  TRZ_ERR_PARAM for a NULL reader, or a NULL buf with
 * cap > 0. */
TRZ_API int64_t trz_read_bytes(trz_reader *reader, void *buf, size_t cap);

/* trz_read_bytes without the copy: point *data at up to cap decoded bytes
 * inside the reader (at most the rest of the current chunk) and return
 * their count, 0 at the end, or a negative trz_result.  The bytes stay
 * valid until the next call on the reader.  From any position.
 * TRZ_ERR_PARAM for a NULL reader or data. */
TRZ_API int64_t trz_read_view(trz_reader *reader, const void **data, size_t cap);

/* Position the reader at the start of record (line) `record`.  Through the
 * index, this decodes only the chunk that holds the record, whatever
 * TRZ_R_THREADS is; from a pipe (or an archive whose index is damaged) it
 * decodes forward, and going back is TRZ_ERR_UNSUPPORTED.  Seeking to the record count positions at the very end
 * (a partial last record of the source belongs to the last record before
 * it).  TRZ_ERR_RANGE past that.
 * Records are numbered on across concatenated members, each member counting
 * in its own unit: fixed-size records, lines for text, bytes for raw data
 * (src/format/FORMAT.md, "Records"), the same from a pipe and through the index.
 * From any position, also inside a record.  A failed seek leaves the
 * position where it was, except from a pipe, where one past the end has
 * read to the end.  TRZ_ERR_PARAM for a NULL reader. */
TRZ_API int trz_seek(trz_reader *reader, uint64_t record);

/* The number of the next record that starts at or after the current
 * position (0 after opening; the record count at the end; inside a
 * record, the number of the record after it).  UINT64_MAX for a NULL
 * reader. */
TRZ_API uint64_t trz_tell(trz_reader *reader);

/* trz_read_view that stops at a record boundary: point *data at the decoded
 * bytes from the current position up to, not including, the start of the
 * (max_records + 1)-th record that starts in them, or to the end of the
 * current chunk, whichever comes first, and set *records to the number of
 * records that start in them.  So repeated calls with what is left of a
 * count hand out exactly the bytes of that many records: a record's
 * continuation (the rest of a line that began in an earlier chunk, a
 * partial last record) comes with the record, and with max_records 0 the
 * call returns only such bytes, or 0 at a record start.  Returns the byte
 * count, 0 at the end (or at a record start with max_records 0), or a
 * negative trz_result; the bytes stay valid until the next call.  From any
 * position: inside a record, the span begins with that record's rest.
 * TRZ_ERR_PARAM for a NULL reader, data or records. */
TRZ_API int64_t trz_read_span(trz_reader *reader, const void **data, uint64_t max_records, uint64_t *records);

/* Read the rest of the member being read, without decoding it, to prove
 * the record numbers handed out so far.  Needed only after a read that
 * stops early (trz_seek, then a few records) from a pipe or an archive
 * whose index is damaged, in a member written before trz 0.18: its chunks
 * do not state their place, and only its index, at its end, proves that
 * none was cut out, repeated or moved before the records read (a member of
 * 0.18 or later proves it chunk by chunk, and through an intact index the
 * numbers are the index's: then this returns at once).  TRZ_OK, or the
 * damage; later reads fail as it did.  A NULL reader: TRZ_ERR_PARAM. */
TRZ_API int trz_reader_check_rest(trz_reader *reader);

/* Call fn with batches of decoded records (a chunk's worth, at most), from
 * the current position to the end, in order: `n_bytes` bytes holding
 * `n_records` whole records, the first of which is record number `first`.
 * For text formats a batch is a chunk's bytes: it holds the starts of
 * n_records lines, and a line longer than a chunk continues in the next
 * batch (and the first batch begins with the rest of a line that
 * trz_read_bytes stopped in).
 * Fixed-size records: at a position inside a record, TRZ_ERR_PARAM and fn
 * is not called; a partial last record is not handed out (the iteration
 * stops before it; see "Position").  The bytes are valid only during the
 * call (fn may modify them; it must not read from, seek or close the
 * reader, whose next chunk may reuse them; trz_tell is fine: it gives the
 * position after the batch).  A non-zero return from fn stops the iteration (after
 * that batch) and is returned.  With TRZ_R_HOST_ORDER, records come in
 * host order.  TRZ_ERR_PARAM for a NULL reader or fn. */
typedef int (*trz_batch_fn)(void *ctx, const void *records, size_t n_records, size_t n_bytes, uint64_t first);
TRZ_API int trz_foreach(trz_reader *reader, trz_batch_fn fn, void *ctx);

/* With TRZ_R_SALVAGE: the damaged chunks skipped so far, as record ranges.
 * Returns the number of ranges; fills up to max of them (none when ranges
 * is NULL; 0 for a NULL reader).  A field that cannot be known (no index
 * survived to tell) is UINT64_MAX.  After a range whose chunk or record
 * count is unknown, the ranges that follow number chunks, records and bytes
 * as the chunks state them in their member (the next member's start may
 * have been lost with the damage). */
typedef struct trz_lost_range { uint64_t chunk, first_record, records, first_byte, raw_bytes; } trz_lost_range;
TRZ_API size_t trz_reader_lost(const trz_reader *reader, trz_lost_range *ranges, size_t max);
/* Whether range i was lost although its own bytes are intact: the carried
 * knowledge it decodes with was lost with an earlier damaged chunk of its
 * group (FORMAT.md, "Knowledge"); 0 for a damaged chunk, for i past the
 * last range and for a NULL reader. */
TRZ_API int trz_reader_lost_knowledge(const trz_reader *reader, size_t i);
/* Why range i was lost: */
enum {
    TRZ_LOST_DAMAGED = 0,   /* its chunks' bytes are damaged, or the input ends in them */
    TRZ_LOST_KNOWLEDGE = 1, /* intact, but the knowledge it decodes with was lost (as above) */
    TRZ_LOST_CHAIN = 2,     /* intact, but an earlier chunk of its chain was lost (FORMAT.md, "Chains") */
    TRZ_LOST_MISSING = 3,   /* not in the archive: the chunks around it state places that leave it out
                               (cut out, or its bytes replaced by other chunks) */
    TRZ_LOST_EXTRA = 4,     /* not lost: a chunk found where it does not belong (a repeat, or moved), skipped;
                               the range is what the chunk says it holds */
    TRZ_LOST_UNPLACED = 5   /* an archive written before trz 0.18, whose chunks do not state their place:
                               the chunks read do not match the member's index (some missing or
                               repeated); the records from first_record on may be numbered wrong */
};
/* (TRZ_ERR_PARAM past the last range and for a NULL reader.) */
TRZ_API int trz_reader_lost_kind(const trz_reader *reader, size_t i);

/* Chunks whose stored data was damaged and that the reader mended from
 * their parity set (FORMAT.md, "Parity"; reading through the index), so
 * that their records came out as written: how many so far, and in *first
 * (when not NULL) the lowest chunk number among them, UINT64_MAX when
 * none.  The archive is damaged all the same: copy it again, or
 * recompress what it decodes to.  0 for a NULL reader. */
TRZ_API uint64_t trz_reader_mended(const trz_reader *reader, uint64_t *first);

/* ---- the original file of a container --------------------------------------
 * An archive made from a drmemtrace .zip, .gz, .lz4 or .sz file that could
 * seek keeps, beside the records, what rebuilds that file byte for byte
 * from them (a restore block, src/format/FORMAT.md): streams re-encoded
 * with the settings found and checked when compressing, and the bytes that
 * could not be rebuilt as they were.  The reading functions above hand out
 * the records; trz_restore gives the file back. */
typedef struct trz_container_info {
    const char *kind;   /* "zip", "gzip", "lz4", "snappy", "unknown" (a
                           container of a newer trz); NULL when the archive
                           keeps no original file */
    const char *suffix; /* ".zip", ".gz", ".lz4", ".sz"; NULL for "unknown" */
    uint64_t size;      /* bytes of the original file */
    uint64_t kept;      /* of them, stored as they were: framing (headers,
                           directories) and streams that were not rebuilt */
    char how[160];      /* "rebuilt: zip, deflate 6, 1 member", "kept as is",
                           "partly rebuilt: ..." */
} trz_container_info;

/* What the archive keeps of its original file (info->kind NULL: nothing).
 * Reads the restore block (a seekable archive, or one read from a pipe up
 * to its first chunk); fails when the block is damaged, and with
 * TRZ_ERR_UNSUPPORTED when it cannot be used here: a newer trz wrote it
 * (then info->how says so: "restore container 9 unknown (newer trz)";
 * trz_restore refuses it too), or the archive has several members (then
 * info->how: "2 members, each restores from an archive of its own"), or
 * it comes from a pipe and its block is over 16 MiB.  TRZ_ERR_PARAM for a
 * NULL reader or info. */
TRZ_API int trz_reader_container(trz_reader *reader, trz_container_info *info);

/* Write the original file to `out` (write only: pipes work): the records
 * from the first on (a seekable reader goes back to them) run through the
 * restore block.  Every rebuilt stream is checked as it ends, and at the
 * end the size and XXH3 of everything written against the original's, so a
 * result other than TRZ_OK means `out` must be thrown away (the command line
 * writes through a temporary file for that).  Fails for an archive that
 * keeps no original file, for one of several members, and from a pipe when
 * the block is larger than 16 MiB.  Memory: the reader's, and the encoder
 * state of one stream (deflate: about 300 KiB; lz4: a block and 1 MiB).
 * TRZ_ERR_PARAM for a NULL reader, and with a message for a NULL out or
 * out->write. */
TRZ_API int trz_restore(trz_reader *reader, const trz_io *out);

/* ---- whole files -------------------------------------------------------- */

/* Join archives (paths) into one archive written to `out`, with one member
 * and one index over all their chunks, so that seeking, listing and testing
 * behave as if one process had written it.  The chunks are copied, not
 * re-encoded.  Text inputs may end inside a line (the line counts once);
 * after an input that ends in a partial record a new member starts, which
 * counts records from its own start.  The result decodes to the inputs'
 * bytes one after another.  All inputs must have the same format and byte
 * order (TRZ_ERR_PARAM otherwise: concatenate such archives with cat
 * instead).  Only the chunks where inputs meet are decoded: read the result
 * through before relying on it (trz join and the Python binding do, before
 * the file takes its name).  On failure a message is written to err
 * (errlen bytes; none when err is NULL or errlen 0).  TRZ_ERR_PARAM for
 * n 0, NULL inputs or a NULL input among them, a NULL out or out->write. */
TRZ_API int trz_join(const char *const *inputs, size_t n, const trz_io *out, char *err, size_t errlen);

/* Compress the file at `in` into the file at `out` with the settings of
 * cctx.  What `out` names decides how it is written:
 *   - nothing (a new name) or a regular file: the archive is written to a
 *     temporary file beside it that takes its name only on success (a
 *     failure leaves `out` as it was);
 *   - a symbolic link: followed; the file it leads to is replaced in the
 *     same way, the link stays (a link that leads nowhere is refused:
 *     TRZ_ERR_PARAM);
 *   - a character or block device, or a FIFO (/dev/null, a named pipe):
 *     written to in place, as the command line does, never replaced by a
 *     file (a FIFO blocks until it has a reader; on failure what was
 *     written stays written);
 *   - a directory, a socket: refused, TRZ_ERR_PARAM;
 *   - `in` itself (the same file under any name): refused, TRZ_ERR_PARAM.
 * Refusals happen before anything is read or written.  TRZ_ERR_PARAM for
 * a NULL cctx, and with a message for a NULL path. */
TRZ_API int trz_compress_path(trz_cctx *cctx, const char *in, const char *out);

/* Decompress the archive at `in` into the file at `out` with `threads`
 * decode-ahead threads (0 = all cores; 0..64 as trz_reader_set takes
 * them: TRZ_ERR_PARAM otherwise), writing `out` as trz_compress_path
 * does.  Messages go to err (none when err is NULL or errlen 0);
 * TRZ_ERR_PARAM for a NULL path. */
TRZ_API int trz_decompress_path(const char *in, const char *out, int threads, char *err, size_t errlen);

/* ---- printing records ------------------------------------------------------ */

/* Print records [first, first+count) as text, one line each (trconv / b2a
 * style per format; text formats print their lines, and a record that
 * follows a text member's last line without a newline starts a line of its
 * own; each member of a mixed archive in its own format; raw bytes 16 a
 * line).  count = UINT64_MAX means to the end.  Seeks when it can, else
 * reads forward; TRZ_ERR_RANGE when first names no record (first >= the
 * record count, count > 0; first 0 of an empty archive prints nothing,
 * where trz_seek takes the end itself).  From any
 * position, as trz_seek.  TRZ_ERR_PARAM for a NULL reader, and with a
 * message for a NULL file. */
TRZ_API int trz_dump(trz_reader *reader, void *file /* FILE* */, uint64_t first, uint64_t count);

/* The same for a raw (uncompressed) trace read from `in`; format NULL or
 * "auto" probes.  TRZ_ERR_RANGE, as for an archive, when first names no
 * record.  Messages go to err (none when err is NULL or errlen 0);
 * TRZ_ERR_PARAM for a NULL in, in->read or file. */
TRZ_API int trz_dump_raw(const trz_io *in, const char *format, void *file /* FILE* */,
                 uint64_t first, uint64_t count, char *err, size_t errlen);

/* trz_dump or trz_dump_raw, whichever `in` holds: an input that starts with
 * trz's magic is an archive (a pipe too); one with most of the magic, or a
 * footer at its end, is a damaged archive (an error, not bytes to print);
 * anything else is a raw trace of `format`.  On failure a message is
 * written to err (as trz_dump_raw does); TRZ_ERR_PARAM for a NULL in,
 * in->read or file. */
TRZ_API int trz_dump_any(const trz_io *in, const char *format, void *file /* FILE* */,
                 uint64_t first, uint64_t count, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
