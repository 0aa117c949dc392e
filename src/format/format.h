/* format.h - the format room: the one owner of the container's bytes
 * (FORMAT.md beside it).  Magics, limits and field sizes; the file header
 * (header.c), chunks with their stream tables, encoding and checked
 * decoding (chunk.c), the index and the footer (index.c), and the
 * back-ends that store streams (backend.c).  Everything that writes or
 * parses a byte of the container goes through here. */
#ifndef TRZ_FORMAT_H
#define TRZ_FORMAT_H

#include "../../codecs/codec.h"
#include "../common/common.h"

/* ---- on-disk constants (FORMAT.md) ---- */
static const uint8_t trz_file_magic[4] = { 0x89, 'T', 'R', 'Z' };
static const uint8_t trz_chunk_magic[4] = { 'T', 'Z', 'C', 'K' };
static const uint8_t trz_index_magic[4] = { 'T', 'Z', 'I', 'X' };
static const uint8_t trz_footer_magic[4] = { 'T', 'Z', 'E', 'N' };
#define TRZ_FORMAT_VERSION 1      /* members without knowledge */
#define TRZ_FORMAT_VERSION_KNOW 3 /* members whose chunks carry knowledge (FORMAT.md, "Knowledge"); 2 is never written */
#define TRZ_FORMAT_VERSION_CHAIN 4 /* members whose groups are chains (FORMAT.md, "Chains") */
#define TRZ_FORMAT_VERSION_PLACED 5 /* chunks that state their place; the mode in the header's flags (FORMAT.md) */
#define TRZ_MODE_KNOW 0x01  /* version 5 header flags: the chunks carry knowledge */
#define TRZ_MODE_CHAIN 0x02 /* the groups are chains */
#define TRZ_MODE_PARITY 0x04 /* chunks may end a parity set (FORMAT.md, "Parity") */
#define TRZ_MODE_XZ 0x08     /* streams may use back-end 3, LZMA2 */
#define TRZ_ENDIAN_MARK 0x0C0A0F0Eu
#define TRZ_FILE_HDR_FIXED 24      /* before the codec parameters */
#define TRZ_MAX_PARAMS 256
#define TRZ_FILE_HDR_MAX (TRZ_FILE_HDR_FIXED + TRZ_MAX_PARAMS + 4)
#define TRZ_CHUNK_HDR_FIXED 28     /* before the stream table (and the place) */
#define TRZ_CHUNK_PLACE 20         /* a placed chunk's place: number, first record, first byte */
#define TRZ_STREAM_ENTRY 10
#define TRZ_GUARD_LEVEL 3 /* the back-end level a model is checked against (chunk.c, raw_wins) */
#define TRZ_GUARD_MIN (64u << 10) /* chunks of fewer bytes are not checked */
#define TRZ_CHUNK_HDR_MAX (TRZ_CHUNK_HDR_FIXED + TRZ_CHUNK_PLACE + TRZ_MAX_STREAMS * TRZ_STREAM_ENTRY + 4)
#define TRZ_INDEX_ENTRY 40
#define TRZ_MEMBER_HASH 8          /* after a version 5 index's entries */
#define TRZ_FOOTER_SIZE 24

/* ---- decoder limits: every size read from a file is checked first ---- */
#define TRZ_MAX_CHUNK_RAW (256u << 20)
#define TRZ_MIN_CHUNK_RAW 4096u
/* The longest group a writer is asked for (TRZ_C_RESTART_BYTES): chains
 * may be that long; carried knowledge starts afresh every TRZ_KNOW_PERIOD
 * at the most. */
#define TRZ_GROUP_MAX (1u << 30)
#define TRZ_DEFAULT_CHUNK_RAW (16u << 20)
#define TRZ_MAX_RECORD_SIZE 4096u
/* A stream may be larger than the chunk (escapes, varints) but not without bound. */
#define TRZ_STREAM_RAW_LIMIT(raw) (2 * (uint64_t)(raw) + 65536)
#define TRZ_STREAMS_RAW_LIMIT(raw) (3 * (uint64_t)(raw) + 262144)
#define TRZ_MAX_CHUNKS (1ull << 32)
/* What a reader's chunks in flight may declare together (stored, decoded
 * and decompressed-stream bytes): one chunk at the limits.  A larger chunk
 * decodes alone. */
#define TRZ_DECODE_BUDGET ((uint64_t)TRZ_MAX_CHUNK_RAW + TRZ_STREAMS_RAW_LIMIT(TRZ_MAX_CHUNK_RAW))

/* chunk flags */
#define TRZ_CHUNK_MIDLINE 0x01 /* text chunk that starts inside a line */
#define TRZ_CHUNK_RESTART 0x02 /* a group starts at this chunk (members of versions 3, 4 and 5) */
#define TRZ_CHUNK_PLACED 0x04  /* the header states the chunk's place (members of version 5, all chunks) */
#define TRZ_CHUNK_PARITY 0x08  /* the chunk ends a parity set: its last stream is the set's parity */

/* Parity (FORMAT.md, "Parity"): stream 62 of a chunk flagged
 * TRZ_CHUNK_PARITY; a writer ends a set once it holds TRZ_PARITY_SET raw
 * bytes, and its parity block is about 1/TRZ_PARITY_DIV of the set's data
 * (a power of two, at least TRZ_PARITY_MIN, at most TRZ_PARITY_MAX). */
#define TRZ_PARITY_STREAM 62
#define TRZ_PARITY_SET (32u << 20)
#define TRZ_PARITY_DIV 256u
#define TRZ_PARITY_MIN 16u
#define TRZ_PARITY_MAX (1u << 20)

/* ---- file header (header.c) ---- */
typedef struct trz_file_hdr {
    uint8_t codec, byte_order, level, backend;
    uint32_t record_size, chunk_bytes;
    uint8_t wrap; /* parameter 1: what the input was compressed with (TRZ_WRAP_*), 0 = nothing */
    uint8_t know;  /* version 3: the member's chunks carry knowledge */
    uint8_t chain; /* version 4: the member's groups are chains */
    uint8_t placed; /* version 5: its chunks state their place, its index the member hash (know
                       and chain then come from the header's flags) */
    uint8_t parity; /* version 5: its chunks may carry parity (TRZ_MODE_PARITY) */
    uint8_t xz;     /* version 5: its streams may use back-end 3 (TRZ_MODE_XZ) */
    uint8_t restore_kind;  /* parameter 2: the container a restore block rebuilds, */
    uint64_t restore_size; /* and the block's size; 0 = no block */
} trz_file_hdr;

#define TRZ_PARAM_WRAP 1 /* parameter tags (FORMAT.md, "Parameters") */
#define TRZ_PARAM_RESTORE 2

/* What an input was wrapped in (parameter 1; the wrap room reads them,
 * src/wrap/unwrap.c) and the containers a restore block rebuilds
 * (parameter 2; src/wrap/drfile.c): stored in archives, never renumber.
 * A container has the same number in both. */
enum { TRZ_WRAP_NONE = 0, TRZ_WRAP_GZIP = 1, TRZ_WRAP_ZSTD = 2, TRZ_WRAP_XZ = 3, TRZ_WRAP_BZIP2 = 4,
       TRZ_WRAP_ZIP = 5, TRZ_WRAP_LZ4 = 6, TRZ_WRAP_SNAPPY = 7 };
enum { TRZ_DRF_NONE = TRZ_WRAP_NONE, TRZ_DRF_GZIP = TRZ_WRAP_GZIP, TRZ_DRF_ZIP = TRZ_WRAP_ZIP,
       TRZ_DRF_LZ4 = TRZ_WRAP_LZ4, TRZ_DRF_SNAPPY = TRZ_WRAP_SNAPPY };

/* Serialize a header (with parameter 1 when wrap is set, 2 when
 * restore_size is); returns its size, at most TRZ_FILE_HDR_WRITE_MAX. */
#define TRZ_FILE_HDR_WRITE_MAX (TRZ_FILE_HDR_FIXED + 3 + 11 + 4)
size_t trz_file_hdr_write(uint8_t *out, const trz_file_hdr *h);
/* Parse a header from the first n bytes at p; *len = its length.  TRZ_OK,
 * TRZ_ERR_NOT_TRZ (no magic), TRZ_ERR_TRUNCATED (n too small), or the
 * damage: TRZ_ERR_VERSION, TRZ_ERR_LIMIT, TRZ_ERR_CORRUPT, and
 * TRZ_ERR_UNSUPPORTED for a codec this version does not know. */
int trz_file_hdr_parse(const uint8_t *p, size_t n, trz_file_hdr *h, size_t *len);
/* How many of the 4 bytes at p are the file magic's (3: a damaged magic). */
int trz_magic_match(const uint8_t *p);

/* ---- the restore block (restore.c; FORMAT.md, "Restore block") ----
 * Between a member's header and its first chunk when parameter 2 says so:
 * what rebuilds the file the member's records came in.  This room owns its
 * header and checks; the body is the file layer's (src/wrap/drfile.c). */
static const uint8_t trz_restore_magic[4] = { 'T', 'Z', 'R', 'B' };
#define TRZ_RESTORE_VERSION 1
#define TRZ_RESTORE_HDR 36   /* before the body */
#define TRZ_RESTORE_MIN (TRZ_RESTORE_HDR + 4) /* and the body's check after it */
typedef struct trz_restore_hdr {
    uint8_t kind;
    uint64_t size, hash;  /* of the original file */
    uint64_t records;     /* decoded bytes of the member the body uses */
} trz_restore_hdr;
void trz_restore_hdr_write(uint8_t *out, const trz_restore_hdr *h); /* TRZ_RESTORE_HDR bytes */
/* TRZ_OK, TRZ_ERR_CORRUPT (magic, check, reserved bytes) or
 * TRZ_ERR_UNSUPPORTED (a version this trz does not know). */
int trz_restore_hdr_parse(const uint8_t *in, trz_restore_hdr *h);

/* ---- back-ends (backend.c) ---- */
typedef struct trz_zctx trz_zctx; /* per-thread compression contexts */
trz_zctx *trz_zctx_create(void);
void trz_zctx_free(trz_zctx *z);
/* A buffer of at least n bytes owned by z, reused across calls; NULL if out
 * of memory.  Slot 0 holds the encoder's self-check output, slot 1 the
 * decoded streams of trz_chunk_decode, slot 2 a codec trial's output. */
#define TRZ_SCRATCH_CHECK 0
#define TRZ_SCRATCH_STREAMS 1
#define TRZ_SCRATCH_TRIAL 2
uint8_t *trz_zctx_scratch(trz_zctx *z, int which, size_t n);
/* Give back now what one phase of a chunk's encoding alone uses, so that the
 * phases' peaks take turns instead of adding up: a scratch slot, the codecs'
 * trials (zstd's tables and the trial slot) or the zstd tables that packed
 * the chunk's streams.  Whatever is given back is remade when next wanted. */
#define TRZ_RELEASE_TRIALS 3
#define TRZ_RELEASE_PACKER 4
void trz_zctx_release(trz_zctx *z, int what);
/* z's TRZ_MAX_STREAMS encoder stream buffers, emptied; their memory is kept
 * from chunk to chunk, so a chunk's streams grow without copies or page
 * faults once the first chunk has sized them. */
trz_buf *trz_zctx_streams(trz_zctx *z);
/* The same buffers as they are (what the codec just filled). */
trz_buf *trz_zctx_filled(trz_zctx *z);
/* Compress src into dst (grown as needed); returns the back-end actually used
 * (STORE when compression does not help), or a negative trz_result. */
int trz_backend_compress(trz_zctx *z, int backend, int level, const uint8_t *src, size_t n, trz_buf *dst);
/* The bytes n bytes at src would take with the back-end (for codecs'
 * trials; trz_enc_args.packed_size). */
size_t trz_backend_size(trz_zctx *z, int backend, int level, const uint8_t *src, size_t n);
/* Back-end 3 (FORMAT.md, "Back-ends"): LZMA2, which the raw codec's members
 * try beside zstd at levels >= TRZ_XZ_LEVEL (never a format codec's, whose
 * streams are records a model left; nor a fallback chunk's, so that a
 * trace's archive stays readable by trz 0.22).  Its dictionary is at most
 * TRZ_XZ_DICT_MAX, and a reader refuses a larger one.  Returns the
 * back-end be the stream keeps: TRZ_BACKEND_XZ when LZMA2 wrote fewer bytes
 * than the dst->n - at that back-end wrote from at (it then replaces them). */
#define TRZ_BACKEND_XZ 3
#define TRZ_XZ_LEVEL 6
#define TRZ_XZ_STRONG_LEVEL 16
#define TRZ_XZ_DICT_MAX (8u << 20)
int trz_backend_try_xz(trz_zctx *z, int level, const uint8_t *src, size_t n, trz_buf *dst, size_t at, int be);
/* Whether the back-end at level writes the n bytes at src in fewer than cap
 * bytes: 1 yes, 0 no, -1 it could not tell (memory).  Costs a fraction
 * cap / (the compressed size) of a full compression when the answer is no. */
int trz_backend_under(trz_zctx *z, int backend, int level, const uint8_t *src, size_t n, size_t cap);
/* Decompress exactly raw_len bytes; TRZ_ERR_CORRUPT if the data is not that. */
int trz_backend_decompress(trz_zctx *z, int backend, const uint8_t *src, size_t n, uint8_t *dst, size_t raw_len);
/* The first bytes of a stream, up to want of them, into dst (for listings:
 * a damaged stream gives fewer or wrong bytes, never an error).  Returns
 * how many were decoded. */
size_t trz_backend_head(trz_zctx *z, int backend, const uint8_t *src, size_t n, uint8_t *dst, size_t want);

/* ---- chunks (chunk.c) ---- */
typedef struct trz_chunk_hdr {
    uint8_t codec, byte_order, nstreams, flags;
    uint32_t nrec, raw;
    uint64_t xxh;
    uint32_t pcheck;       /* XXH3 (low 32 bits) of the stored payload */
    uint8_t sid[TRZ_MAX_STREAMS], backend[TRZ_MAX_STREAMS];
    uint32_t csize[TRZ_MAX_STREAMS], rsize[TRZ_MAX_STREAMS];
    uint64_t payload;      /* sum of csize */
    uint32_t hdr_len;      /* fixed + place + table + check */
    /* a placed chunk (flag TRZ_CHUNK_PLACED): its number in its member and
     * the member's record and byte numbers at its start */
    uint32_t place_no;
    uint64_t place_rec, place_byte;
} trz_chunk_hdr;

struct trz_kstore;

typedef struct trz_chunk_job {
    /* in */
    const trz_codec *codec;
    const uint8_t *raw;
    size_t raw_len;
    uint32_t nrec;
    int byte_order, level, backend, verify;
    int xz;                   /* the member may use back-end 3: try it beside zstd */
    uint8_t flags;            /* TRZ_CHUNK_PLACED set: the place below goes into the header */
    uint32_t place_no;
    uint64_t place_rec, place_byte;
    const trz_know *know;     /* the member's knowledge for this chunk, or NULL (none) */
    const trz_buf *kstream;   /* the chunk's knowledge stream (its new facts), or NULL */
    /* a chunk of a chain (version 4): the group's encoder model, and the
     * decoder's model the self-check decodes with (with verify), NULL for
     * a chunk that stands alone.  The caller resets the encoder's model at
     * the group's first chunk, trz_chunk_finish the decoder's; after a
     * chunk that goes out raw (fell_back) both start afresh (FORMAT.md,
     * "Chains"): trz_chunk_finish resets the decoder's, the caller the
     * encoder's */
    trz_model *model, *dmodel;
    /* between the two steps */
    int model_rc;
    uint64_t coded;
    /* out */
    int fell_back; /* a chunk of a chain stored raw: reset the encoder's model */
    trz_buf out;   /* the serialized chunk */
    int result;
    char err[160];
} trz_chunk_job;

/* Whether nrec records fit raw bytes for a chunk coded with codec c. */
int trz_nrec_ok(const trz_codec *c, uint64_t nrec, uint64_t raw);

/* Whether a chunk fits its member (FORMAT.md, "Records"): m and mbo are the
 * member's codec and byte order, first says it is the member's first
 * chunk, groups that the member's chunks form groups (versions 3 and 4, 5
 * with a mode), placed that the member is of version 5 (its chunks, and
 * only its, state their place), parity that its chunks may end parity
 * sets; *tail is set for a partial last record, which must end the
 * member. */
int trz_chunk_fits(const trz_codec *m, int mbo, unsigned codec, unsigned bo, unsigned flags, uint64_t nrec,
                   uint64_t raw, int first, int groups, int placed, int parity, int *tail);

/* Encode one chunk into job->out; thread-safe given a private zctx.  In
 * two steps for a chain's lanes (src/compress/ring.c): trz_chunk_model codes the records with
 * the codec (the encoder's model), trz_chunk_finish packs the streams, runs
 * the guard and the self-check (the decoder's model) and falls back to raw;
 * both with the same zctx, which holds the streams in between.
 * trz_chunk_encode does both, and resets a chain's model after a fallback. */
void trz_chunk_encode(trz_chunk_job *job, trz_zctx *z);
void trz_chunk_model(trz_chunk_job *job, trz_zctx *z);
void trz_chunk_finish(trz_chunk_job *job, trz_zctx *z);

/* Parse a chunk header from the first `n` bytes at p.  Returns 0, or
 * TRZ_ERR_TRUNCATED when n is too small (*need then says how many bytes are
 * needed), or TRZ_ERR_CORRUPT / TRZ_ERR_LIMIT. */
int trz_chunk_parse_hdr(const uint8_t *p, size_t n, trz_chunk_hdr *h, size_t *need);

/* Give the chunk whose header is at p (parsed into h) another record count
 * and flags, and reseal its header check.  The payload and both of its
 * hashes stay valid: neither covers these fields. */
void trz_chunk_set_count(uint8_t *p, const trz_chunk_hdr *h, uint32_t nrec, uint8_t flags);
/* Give a placed chunk (header at p, parsed into h) another place, and
 * reseal its header check (trz join: the chunk lands elsewhere). */
void trz_chunk_set_place(uint8_t *p, trz_chunk_hdr *h, uint32_t no, uint64_t rec, uint64_t byte);

/* Parity (FORMAT.md, "Parity").  Where the chunk's data ends in its payload
 * (its payload less the parity it carries, *len bytes, which follow). */
size_t trz_chunk_parity_at(const trz_chunk_hdr *h, size_t *len);
/* Make the serialized chunk in o (whole, without parity) end a parity set:
 * the n bytes at par become its last stream, its flag and checks follow. */
int trz_chunk_add_parity(trz_buf *o, const uint8_t *par, size_t n);
/* Fold the XOR of a set's data, accumulated at positions modulo
 * TRZ_PARITY_MAX in acc, into the set's parity stream (its header and its
 * block) in out: len data bytes in the set, nchunks chunks. */
int trz_parity_stream(const uint8_t *acc, uint64_t len, uint32_t nchunks, trz_buf *out);
/* The writer's set: the XOR of its data so far (positions modulo
 * TRZ_PARITY_MAX), its data and trace bytes, its chunks. */
typedef struct trz_parity_set {
    uint8_t *acc;
    uint64_t len, raw;
    uint32_t n;
    trz_buf stream;
} trz_parity_set;
/* Take the serialized chunk in out (raw trace bytes) into the set; when
 * the set ends there (TRZ_PARITY_SET bytes of trace, or last: the member's
 * last chunk) the chunk carries the set's parity, unless the set does not
 * compress or the chunk's limits leave no room.  A trz_result. */
int trz_parity_take(trz_parity_set *s, trz_buf *out, size_t raw, int last);
void trz_parity_set_free(trz_parity_set *s);
/* The block size of a set holding len data bytes. */
uint32_t trz_parity_block(uint64_t len);
/* A parity stream, parsed: the set's last nchunks chunks (the one that
 * carries it included) hold len data bytes, whose XOR folded to `block`
 * bytes is at `bytes`. */
typedef struct trz_parity {
    uint32_t nchunks, block;
    uint64_t len;
    const uint8_t *bytes;
} trz_parity;
int trz_parity_parse(const uint8_t *p, size_t n, trz_parity *par);
/* Mend the chunk at p (parsed into h, its payload check failing) whose data
 * starts at offset o of its set's, given the syndrome (the parity stated
 * XOR the parity of the data as read, b bytes): try each place a stretch
 * shorter than b could lie, keep the one that passes the payload check.
 * TRZ_OK (p mended), TRZ_ERR_CHECKSUM (no place does), TRZ_ERR_NOMEM. */
int trz_parity_mend(const trz_chunk_hdr *h, uint8_t *p, uint64_t o, const uint8_t *syn, uint32_t b);

/* Whether the payload of a chunk (header + payload at p) matches its check. */
int trz_chunk_payload_ok(const trz_chunk_hdr *h, const uint8_t *p);

/* Decode a whole chunk (header + payload at p, n bytes) into out[0..h->raw).
 * know: NULL for a member without knowledge; else the member's knowledge
 * with this chunk's own applied (trz_chunk_know), its stream then skipped.
 * chain: NULL for a chunk that stands alone, or stored with another codec
 * than its member's (the caller then resets its chain's model after it);
 * for a chunk of a chain, the member codec's decoder model as the chain's
 * previous chunk left it (or reset, at the group's first chunk).
 * On failure the model's state is undefined: the rest of the chain is lost. */
int trz_chunk_decode(const trz_chunk_hdr *h, const uint8_t *p, size_t n, uint8_t *out, trz_zctx *z,
                     const trz_know *know, trz_model *chain, char *err, size_t errlen);
/* Apply a chunk's knowledge stream, when it has one, to s (its stored bytes
 * checked first); mc is the member's codec, tmp holds the decompressed stream.  TRZ_OK, or the
 * damage (trz_know_apply). */
int trz_chunk_know(const trz_chunk_hdr *h, const uint8_t *p, size_t n, const trz_codec *mc, trz_zctx *z,
                   trz_buf *tmp, struct trz_kstore *s);

/* ---- index and footer (index.c) ---- */
typedef struct trz_index_entry {
    uint64_t offset, first_record, first_byte; /* offset from the member start */
    uint32_t nrec, raw, stored;
    uint8_t codec, flags;
} trz_index_entry;

/* The member hash of a version 5 member (FORMAT.md, "Index"): h starts at
 * 0, and each chunk in order takes it on with its content hash, raw size
 * and record count. */
uint64_t trz_member_hash_step(uint64_t h, uint64_t xxh, uint32_t raw, uint32_t nrec);

typedef struct trz_footer {
    uint64_t index_offset, member_size; /* from the member's start */
    uint32_t index_check;
} trz_footer;

/* Append the index and the footer; index_offset = where the index starts in
 * the member (the member's bytes written so far); mhash: the member hash
 * of a version 5 member, NULL for the earlier versions. */
int trz_index_write(trz_buf *b, const trz_index_entry *e, size_t n, uint64_t index_offset, const uint64_t *mhash);
/* The bytes of an index of n entries (magic to the last entry, or to the
 * member hash of a version 5 member). */
uint64_t trz_index_len(uint64_t n, int placed);
/* The chunk count in an index's first 8 bytes (magic and count). */
uint32_t trz_index_count(const uint8_t *head);
/* The entry at e (TRZ_INDEX_ENTRY bytes); TRZ_ERR_CORRUPT when its reserved
 * bytes are not zero. */
int trz_index_entry_parse(const uint8_t *e, trz_index_entry *out);
/* The footer's TRZ_FOOTER_SIZE bytes at f; TRZ_ERR_NOT_TRZ without its magic. */
int trz_footer_parse(const uint8_t *f, trz_footer *out);
/* Whether the len bytes at ix are an index (magic, count, entries, and
 * with placed the member hash) whose count fits len and that matches the
 * footer's check. */
int trz_index_ok(const uint8_t *ix, size_t len, const trz_footer *f, int placed);
/* The member hash of a version 5 index of len bytes. */
uint64_t trz_index_mhash(const uint8_t *ix, size_t len);

#endif
