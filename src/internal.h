/* internal.h - declarations shared by libtrz's source files: on-disk
 * constants of the container (src/FORMAT.md), chunk coding, back-ends and
 * small utilities.  Not installed. */
#ifndef TRZ_INTERNAL_H
#define TRZ_INTERNAL_H

#include "../include/trz.h"
#include "../codecs/codec.h"
#include <stdio.h>

/* ---- on-disk constants (see FORMAT.md) ---- */
static const uint8_t trz_file_magic[4] = { 0x89, 'T', 'R', 'Z' };
static const uint8_t trz_chunk_magic[4] = { 'T', 'Z', 'C', 'K' };
static const uint8_t trz_index_magic[4] = { 'T', 'Z', 'I', 'X' };
static const uint8_t trz_footer_magic[4] = { 'T', 'Z', 'E', 'N' };
#define TRZ_FORMAT_VERSION 1
#define TRZ_ENDIAN_MARK 0x0C0A0F0Eu
#define TRZ_FILE_HDR_FIXED 24      /* before the codec parameters */
#define TRZ_MAX_PARAMS 256
#define TRZ_CHUNK_HDR_FIXED 28     /* before the stream table */
#define TRZ_STREAM_ENTRY 10
#define TRZ_INDEX_ENTRY 40
#define TRZ_FOOTER_SIZE 24

/* ---- decoder limits: every size read from a file is checked first ---- */
#define TRZ_MAX_CHUNK_RAW (256u << 20)
#define TRZ_MIN_CHUNK_RAW 4096u
#define TRZ_DEFAULT_CHUNK_RAW (16u << 20)
#define TRZ_MAX_RECORD_SIZE 4096u
/* A stream may be larger than the chunk (escapes, varints) but not without bound. */
#define TRZ_STREAM_RAW_LIMIT(raw) (2 * (uint64_t)(raw) + 65536)
#define TRZ_STREAMS_RAW_LIMIT(raw) (3 * (uint64_t)(raw) + 262144)
#define TRZ_MAX_CHUNKS (1ull << 32)

/* chunk flags */
#define TRZ_CHUNK_MIDLINE 0x01 /* text chunk that starts inside a line */

/* ---- back-ends (backend.c) ---- */
typedef struct trz_zctx trz_zctx; /* per-thread compression contexts */
trz_zctx *trz_zctx_create(void);
void trz_zctx_free(trz_zctx *z);
/* A buffer of at least n bytes owned by z, reused across calls; NULL if out
 * of memory.  Slot 0 holds the encoder's self-check output, slot 1 the
 * decoded streams of trz_chunk_decode. */
#define TRZ_SCRATCH_CHECK 0
#define TRZ_SCRATCH_STREAMS 1
uint8_t *trz_zctx_scratch(trz_zctx *z, int which, size_t n);
/* z's TRZ_MAX_STREAMS encoder stream buffers, emptied; their memory is kept
 * from chunk to chunk, so a chunk's streams grow without copies or page
 * faults once the first chunk has sized them. */
trz_buf *trz_zctx_streams(trz_zctx *z);
/* Compress src into dst (grown as needed); returns the back-end actually used
 * (STORE when compression does not help), or a negative trz_result. */
int trz_backend_compress(trz_zctx *z, int backend, int level, const uint8_t *src, size_t n, trz_buf *dst);
/* Decompress exactly raw_len bytes; TRZ_ERR_CORRUPT if the data is not that. */
int trz_backend_decompress(trz_zctx *z, int backend, const uint8_t *src, size_t n, uint8_t *dst, size_t raw_len);

/* ---- chunks (chunk.c) ---- */
typedef struct trz_chunk_hdr {
    uint8_t codec, byte_order, nstreams, flags;
    uint32_t nrec, raw;
    uint64_t xxh;
    uint32_t pcheck;       /* XXH3 (low 32 bits) of the stored payload */
    uint8_t sid[TRZ_MAX_STREAMS], backend[TRZ_MAX_STREAMS];
    uint32_t csize[TRZ_MAX_STREAMS], rsize[TRZ_MAX_STREAMS];
    uint64_t payload;      /* sum of csize */
    uint32_t hdr_len;      /* fixed + table + check */
} trz_chunk_hdr;

typedef struct trz_chunk_job {
    /* in */
    const trz_codec *codec;
    const uint8_t *raw;
    size_t raw_len;
    uint32_t nrec;
    int byte_order, level, backend, verify;
    uint8_t flags;
    /* out */
    trz_buf out;   /* the serialized chunk */
    int result;
    char err[160];
} trz_chunk_job;

int trz_nrec_ok(const trz_codec *c, uint64_t nrec, uint64_t raw);

/* Encode one chunk into job->out; thread-safe given a private zctx. */
void trz_chunk_encode(trz_chunk_job *job, trz_zctx *z);

/* Parse a chunk header from the first `n` bytes at p.  Returns 0, or
 * TRZ_ERR_TRUNCATED when n is too small (*need then says how many bytes are
 * needed), or TRZ_ERR_CORRUPT / TRZ_ERR_LIMIT. */
int trz_chunk_parse_hdr(const uint8_t *p, size_t n, trz_chunk_hdr *h, size_t *need);

/* Decode a whole chunk (header + payload at p, n bytes) into out[0..h->raw). */
int trz_chunk_decode(const trz_chunk_hdr *h, const uint8_t *p, size_t n, uint8_t *out, trz_zctx *z, char *err, size_t errlen);

/* ---- index (index.c) ---- */
typedef struct trz_index_entry {
    uint64_t offset, first_record, first_byte; /* offset from the member start */
    uint32_t nrec, raw, stored;
    uint8_t codec, flags;
} trz_index_entry;
/* Append the index and the footer; index_offset = where the index starts in
 * the member (the member's bytes written so far). */
int trz_index_write(trz_buf *b, const trz_index_entry *e, size_t n, uint64_t index_offset);

/* ---- utilities (util.c) ---- */
int trz_ncpus(void);
uint64_t trz_xxh64(const void *p, size_t n);
uint32_t trz_xxh32low(const void *p, size_t n);
/* Count line starts in a text chunk (see FORMAT.md); midline = chunk starts inside a line. */
uint64_t trz_count_lines(const uint8_t *p, size_t n, int midline);
/* Offset in a text chunk of its k-th line start. */
size_t trz_line_offset(const uint8_t *p, size_t n, int midline, uint64_t k);
void trz_io_mem(trz_io *io, void *memstate);
const trz_codec *trz_reader_codec(const trz_reader *r, int *byte_order);
/* The codec and byte order of the member that the last span came from. */
const trz_codec *trz_reader_span_codec(const trz_reader *r, int *byte_order);
/* Print records of a buffer (dump.c). */
void trz_dump_records(FILE *f, const trz_codec *c, int bo, const uint8_t *p, size_t n, uint64_t first);
typedef struct trz_memio { const uint8_t *p; size_t n, pos; } trz_memio;

#endif
