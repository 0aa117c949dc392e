/* codec.h - the interface between the trz container and the per-format codecs.
 *
 * A codec turns one chunk of source bytes into up to TRZ_MAX_STREAMS byte
 * streams and back, with one of its model variants (below).  The container
 * compresses each stream with a back-end (zstd, zlib), checksums the chunk
 * and indexes it.  What a codec carries from one chunk to the next goes
 * through the container: its model state (trz_model, below) and the
 * member's knowledge (below).
 *
 * Adding a format: a folder codecs/<name>/ with its code and its spec
 * (<name>.md), exporting one `const trz_codec` (its variants, its level
 * table and its model ops, as codecs/rst does), and one row in the table
 * of codecs/registry.c.  This header holds the interface and the ids; the
 * buffers, byte helpers and large blocks codecs use come from src/common.
 */
#ifndef TRZ_CODEC_H
#define TRZ_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../include/trz.h" /* TRZ_LEVEL_MIN, TRZ_LEVEL_MAX */
#include "../src/common/buf.h"
#include "../src/common/bytes.h"
#include "../src/common/mem.h"

#define TRZ_MAX_STREAMS 64
#define TRZ_VARIANT_HEAD 16 /* bytes of each stream trz_codec.variant_of sees */
/* The stream id of a chunk's knowledge in a member with knowledge: the
 * container's (src/format/FORMAT.md, "Knowledge"); a codec never writes it
 * there. */
#define TRZ_KNOW_STREAM 63

/* Byte order of the source records (stored in the container header). */
enum { TRZ_BO_NONE = 0, TRZ_BO_LITTLE = 1, TRZ_BO_BIG = 2 };

/* Codec ids, stored on disk: never renumber. */
enum {
    TRZ_CODEC_RAW = 0,
    TRZ_CODEC_RST = 1,
    TRZ_CODEC_BYU = 2,
    TRZ_CODEC_PBUS = 3,
    TRZ_CODEC_UOP = 4,
    TRZ_CODEC_CHAMPSIM = 5,
    TRZ_CODEC_CHAMPSIM_CLOUDSUITE = 6,
    TRZ_CODEC_DRMEMTRACE = 7,
};

/* ---- carried knowledge (src/format/FORMAT.md, "Knowledge") -------------
 * Facts a member's earlier chunks taught the codec, under 64-bit keys of the
 * codec's choosing (an instruction's static fields under its PC, say): a
 * chunk's models start from them instead of from nothing.  The container
 * keeps them (src/format/know.c) and states each chunk's new facts in the
 * chunk's knowledge stream; a codec only learns facts (trz_codec.learn) and
 * looks them up (trz_know_get).  A fact is a prediction, never trusted: a
 * codec codes what differs from it, and must not misbehave on any bytes. */
/* Facts one member's store holds at most, so one knowledge stream states
 * no more: a codec's know_decode rejects a count above it as damage. */
#define TRZ_KNOW_MAX_FACTS (1u << 19)

typedef struct trz_know {
    const struct trz_kstore *s;
    uint32_t n;          /* the facts this view sees: the first n stated */
    const uint32_t *slot; /* the store's hash table when the view was taken */
    uint32_t mask;
} trz_know;

/* The fact under key (1..255 bytes, *len set), or NULL when this view has
 * none.  k may be NULL (no knowledge). */
const uint8_t *trz_know_get(const trz_know *k, uint64_t key, size_t *len);

/* Called by trz_codec.learn for each fact to state, and by know_decode for
 * each fact it decodes. */
typedef void (*trz_know_add_fn)(void *ctx, uint64_t key, const void *val, size_t len);

/* A fact, as the container hands a chunk's new ones to know_encode. */
typedef struct trz_fact {
    uint64_t key;
    const uint8_t *val;
    size_t len;
} trz_fact;

/* ---- the codec table entry --------------------------------------------- */

enum {
    TRZ_CODEC_OK = 0,
    TRZ_CODEC_CORRUPT = -1, /* decode: streams inconsistent with the chunk */
    TRZ_CODEC_NOMEM = -2,
    TRZ_CODEC_UNSUPPORTED = -3, /* encode: this chunk cannot be modelled; the
                                   container then stores it with the raw codec.
                                   decode: the streams use a model variant this
                                   version does not know (another version's) */
};

typedef struct trz_enc_args {
    const uint8_t *in;   /* the chunk's source bytes */
    size_t len;          /* fixed-size codecs: a multiple of record_size */
    uint64_t nrec;       /* records (lines for text codecs) in the chunk */
    int byte_order;      /* TRZ_BO_* of the source records */
    int level;           /* 1..19; codecs may spend more effort when higher */
    trz_buf *streams;    /* [TRZ_MAX_STREAMS], all empty on entry (n = 0; they
                            may hold memory from an earlier chunk); the codec
                            fills the ones it uses, indexed by stream id */
    /* For a codec's trials between encodings: the bytes the n bytes at p
     * would take after the container's back-end at `level` (n when it
     * would not shrink them).  Call as a->packed_size(a->packer, p, n, level). */
    size_t (*packed_size)(void *packer, const void *p, size_t n, int level);
    void *packer;
    /* Out: bit i set = stream i is already entropy-coded (a range coder's
     * output): the container stores it as it is instead of trying a
     * back-end on it.  May be NULL (then nothing is marked); set it
     * through trz_mark_coded. */
    uint64_t *coded;
    /* The member's knowledge, this chunk's new facts included; NULL when the
     * member carries none (then the codec codes as it always did). */
    const trz_know *know;
    /* 1: the chunk belongs to a chained group (model state, below): code it
     * starting from the state the model holds and leave the state in it for
     * the group's next chunk.  0: the chunk stands alone (every chunk of a
     * member of version 1 or 3): code it as from a fresh model. */
    int chain;
} trz_enc_args;

static inline void trz_mark_coded(const trz_enc_args *a, unsigned id)
{
    if (a->coded) *a->coded |= (uint64_t)1 << id;
}

typedef struct trz_dec_args {
    const uint8_t *const *stream; /* [TRZ_MAX_STREAMS]; NULL where absent */
    const size_t *stream_len;     /* [TRZ_MAX_STREAMS]; 0 where absent */
    uint8_t *out;                 /* exactly `len` bytes to fill */
    size_t len;
    uint64_t nrec;
    int byte_order;
    const trz_know *know; /* as in trz_enc_args */
    int chain;            /* as in trz_enc_args */
} trz_dec_args;

/* ---- variants, levels and model state ------------------------------------
 * A codec codes a chunk with one of its model variants (byte streams for the
 * back-end at the fast levels, range-coded models above them).  Which one a
 * chunk used is told by its streams alone: a stream id only that variant
 * writes, or a first byte or first decisions stating the variant's id.  So a
 * decoder needs neither the level nor a container field (variant_of), and a
 * level may change variants from one version to the next while every
 * archive stays readable.
 *
 * Each variant's state lives in the codec's model (trz_model): one typed
 * object per codec, a member per variant where their state differs (as
 * libdeflate keeps each strategy's state in its compressor).  The container
 * owns it, so that it can keep a model from one chunk to the next.  A model
 * is opaque outside its codec: each codec converts the pointer to its own
 * struct.
 *
 * Chains (src/format/FORMAT.md, "Chains").  In a member of version 4 the
 * chunks of a group form a chain: the container creates (or resets) one
 * model at the group's first chunk and codes every chunk of the group with
 * it, in order, with a->chain = 1; the decoder does the same with a model
 * of its own.  A codec whose `chains` is set promises, for every chain:
 *  - the state its decoder's model holds after chunk k is the one its
 *    encoder's model holds after chunk k, as far as the coding of chunk
 *    k+1 depends on it: it depends only on the bytes of chunks 0..k and on
 *    what their streams state, never on the level or on a trial the
 *    encoder made and dropped (trials code from a copy, or the encoder
 *    codes the chunk again with the chosen variant);
 *  - the model's memory is bounded by its level's tables (a history
 *    window, not the group's bytes): it never grows with the chain;
 *  - a model_reset model codes a chunk exactly as a fresh one.
 * A chunk of a chain that the container stores with the raw codec instead
 * (the guard, a failed self-check) resets the model on both sides: the
 * next chunk starts as a group's first.  With a->chain = 0 a codec codes
 * exactly as it did before chains (the archives of versions 1 and 3). */
typedef struct trz_model trz_model;

/* Levels from which chains are the longest (256 MiB): the strong levels
 * spend a longer seek for a smaller archive. */
#define TRZ_CHAIN_LONG_LEVEL 12

typedef struct trz_variant {
    uint8_t id;       /* the codec's own number for the variant, as its streams
                         state it: stable, never renumbered */
    const char *name; /* for `trz -l -v`, the same words in every codec:
                         "streams" (fields split into byte streams for the
                         back-end), "range" (range-coded models), "mix"
                         (range-coded with context mixing), "raw"; a suffix
                         ("-lean", "-fast") only where one codec has two of
                         a kind */
    /* The levels that write it, from the codec's level table; both 0 for a
     * variant kept only to decode older archives. */
    uint8_t min_level, max_level;
    /* Code a chunk (a->streams empty on entry) with m, a model of this
     * codec created for a->level.  It may write another variant's streams
     * instead (a trial that finds them smaller): the decoder goes by the
     * streams, never by the level. */
    int (*encode)(const trz_enc_args *a, trz_model *m);
    /* Decode a chunk whose streams variant_of gave to this variant, with m,
     * a model created for decoding (level 0).  Must never read outside the
     * given streams or write outside out[0..len), whatever the stream
     * contents: decoders are fuzzed. */
    int (*decode)(const trz_dec_args *a, trz_model *m);
} trz_variant;

/* Levels.  A codec maps each level to its parameters in one place, one
 * table as zstd's clevels.h:
 *     static const <codec>_level <codec>_levels[TRZ_LEVEL_MAX + 1]
 * indexed by level (row 0 unused, a copy of row 1), each row a typed struct
 * whose first member is `uint8_t variant` (an index into the codec's
 * variants array) and whose others are that level's knobs.  The container
 * reads only the variant (trz_variant_for_level); the codec reads its knobs
 * where it needs them (trz_level_clamp for the row).  The variants' level
 * ranges say the same as the table (tests/test_format.c checks). */
#define TRZ_LEVEL_ROW(type) \
    _Static_assert(offsetof(type, variant) == 0, #type ": a level row starts with its variant")

static inline int trz_level_clamp(int level)
{
    return level < TRZ_LEVEL_MIN ? TRZ_LEVEL_MIN : level > TRZ_LEVEL_MAX ? TRZ_LEVEL_MAX : level;
}

typedef struct trz_codec {
    uint8_t id;            /* TRZ_CODEC_* */
    const char *name;      /* short name for --format= and -l */
    uint32_t record_size;  /* bytes per record; 0 for line-oriented text */
    const char *description;

    /* Score 0..100 for how likely `buf` (the first bytes of the input; len
     * may be small) is this format; set *byte_order.  NULL = never chosen
     * automatically. */
    int (*probe)(const uint8_t *buf, size_t len, int *byte_order);

    /* Its model variants (above), nvariants of them, in an order of the
     * codec's choosing (their ids say what is on disk). */
    const trz_variant *variants;
    unsigned nvariants;
    /* The index in variants of the variant a chunk's streams were coded
     * with, or -1 for none this version knows (another version's).
     * len[i]: stream i's decoded size, 0 when absent; head[i]: its first
     * min(len[i], TRZ_VARIANT_HEAD) bytes at least (listings read no more;
     * damaged streams may give any bytes).  NULL: variant 0 only. */
    int (*variant_of)(const size_t *len, const uint8_t *const *head);
    /* Its level table (above): rows 0..TRZ_LEVEL_MAX of level_size bytes. */
    const void *levels;
    size_t level_size;

    /* Model state (above).  model_create: a model for encoding at level
     * (1..19), with what that level's variants need, or for decoding any
     * variant (level 0), whose parts a variant makes at its first chunk;
     * know: the member carries knowledge (trz_enc_args.know is set).  NULL
     * if out of memory.  Tables sized by a chunk (its record count) are
     * sized by the variant at each chunk, kept when they fit.
     * model_reset: the model as model_create left it.  model_free: gives
     * it back; accepts NULL.  All three NULL: the codec keeps no state (the
     * variants get m = NULL). */
    trz_model *(*model_create)(int level, int know);
    void (*model_reset)(trz_model *m);
    void (*model_free)(trz_model *m);
    /* Optional: dec (a model for decoding) reads the history window of a
     * chain from enc (one for encoding) instead of keeping one of its own,
     * since both hold the same records.  The caller promises the self-check
     * of one thread: every chunk coded with enc is decoded with dec before
     * enc codes the next, or both are reset; enc is freed last.  NULL: each
     * keeps its own. */
    void (*model_share)(trz_model *dec, trz_model *enc);
    /* 1: its variants keep the promise of chains (above), so the writer
     * chains its members (version 4); 0: every chunk of its members stands
     * alone (a->chain is always 0). */
    uint8_t chains;
    /* The length of its chains, in trace bytes, at levels below
     * TRZ_CHAIN_LONG_LEVEL when the caller sets none: a seek decodes from
     * its group's start, so the faster the codec decodes, the longer its
     * chains may be for the same seek time.  0: TRZ_C_RESTART_BYTES's
     * default (256 MiB). */
    uint32_t chain_bytes;
    /* The same at the strong levels (TRZ_CHAIN_LONG_LEVEL and up), where
     * size comes before seek time.  0: 256 MiB. */
    uint32_t chain_long_bytes;
    /* The size of its chunks, in trace bytes, when the caller sets none
     * (TRZ_C_CHUNK_BYTES), if below the default: a codec whose decoder
     * keeps a window of records beside the chunk, and the chunk decoded
     * ahead, holds a few chunks at once.  0: 16 MiB. */
    uint32_t chunk_bytes;
    /* Optional, in place of chunk_bytes: the same for a level (1..19), for
     * a codec that keeps such a window at some levels only (0: 16 MiB). */
    uint32_t (*chunk_bytes_at)(int level);

    /* Name of stream `id` for `trz -l -v` and `trz bench --streams`, or NULL
     * for an id the codec never writes. */
    const char *(*stream_name)(unsigned id);

    /* Print one record (fixed-size codecs) as a line of text, trconv style,
     * with no trailing newline handling needed beyond one '\n'.  recno is
     * the record's number in the file.  NULL = hex dump. */
    void (*dump_record)(FILE *f, uint64_t recno, const uint8_t *rec, int byte_order);

    /* Optional: number of distinct CPUs seen in a decoded chunk, for
     * metadata; NULL if the format has no notion of CPU. Sets bits in a
     * 1024-bit map (cpus[16]). */
    void (*cpus_seen)(const uint8_t *buf, size_t len, int byte_order, uint64_t cpus[16]);

    /* Optional: rewrite whole records in place from byte order `from` to
     * `to` (TRZ_BO_*), field by field, as a reader asks for host order.
     * NULL = the records have no multi-byte fields to swap. */
    void (*convert)(uint8_t *recs, size_t len, int from, int to);

    /* Optional: carried knowledge.  Before a chunk is encoded, call add for
     * the facts its records teach that k (what the member knows so far)
     * lacks.  Cheap: a scan, no coding.  Only the encoder runs it; what it
     * adds is stored, so it may change from version to version.  NULL: the
     * codec carries nothing from one chunk to the next. */
    int (*learn)(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, int byte_order,
                 trz_know_add_fn add, void *ctx);
    /* Optional, with learn: code a chunk's new facts (n of them, by
     * increasing key) into out, and back: know_decode calls add for each
     * fact in the same order, with the same bytes, and returns
     * TRZ_CODEC_CORRUPT for a stream it did not write.  k: the facts before
     * them; level: the chunk's, as in trz_enc_args (a codec may code the
     * facts of its fast levels in a form that decodes faster).  NULL: the
     * container's own layout (FORMAT.md). */
    int (*know_encode)(const trz_know *k, const trz_fact *f, size_t n, int level, trz_buf *out);
    int (*know_decode)(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx);
    /* Optional: the back-end's level for the streams of a chunk coded at
     * level (NULL: the level itself).  Only how hard the back-end works
     * changes: its output decodes the same whatever the level, so a decoder
     * needs nothing, and a codec may spend more at a fast level whose
     * streams are small. */
    int (*backend_level)(int level);
} trz_codec;

/* The variant a codec writes at level (its level table's). */
static inline const trz_variant *trz_variant_for_level(const trz_codec *c, int level)
{
    const uint8_t *row = (const uint8_t *)c->levels + (size_t)trz_level_clamp(level) * c->level_size;
    return &c->variants[*row];
}

/* ---- the container's side (registry.c) ---------------------------------
 * What the container and the tests run a chunk with, converted codecs and
 * the others alike. */

/* *m: a model of codec c for level (0: decoding) and know (as
 * model_create), or NULL for a codec that keeps none.  TRZ_CODEC_OK or
 * TRZ_CODEC_NOMEM.  trz_model_free accepts NULL. */
int trz_model_create(const trz_codec *c, int level, int know, trz_model **m);
void trz_model_reset(const trz_codec *c, trz_model *m);
void trz_model_free(const trz_codec *c, trz_model *m);
/* trz_codec.model_share, where the codec has it (both models non-NULL). */
void trz_model_share(const trz_codec *c, trz_model *dec, trz_model *enc);

/* Encode a chunk with the variant for a->level, or decode one with the
 * variant its streams name (TRZ_CODEC_UNSUPPORTED for one this version
 * does not know), with m from trz_model_create (level 0 to decode); m NULL:
 * a model made for this chunk and freed after. */
int trz_codec_encode(const trz_codec *c, const trz_enc_args *a, trz_model *m);
int trz_codec_decode(const trz_codec *c, const trz_dec_args *a, trz_model *m);

/* The index in c->variants of the variant of a chunk's streams (len and
 * head as for trz_codec.variant_of), or -1 when unknown (another
 * version's). */
int trz_codec_variant_of(const trz_codec *c, const size_t *len, const uint8_t *const *head);

/* For listings: the variant's name ("?" for a variant this version
 * does not know); head[i] holds stream
 * i's first min(len[i], TRZ_VARIANT_HEAD) bytes. */
const char *trz_codec_variant_name(const trz_codec *c, const size_t *len, const uint8_t (*head)[TRZ_VARIANT_HEAD]);

/* Registry (codecs/registry.c). */
const trz_codec *trz_codec_by_id(unsigned id);
const trz_codec *trz_codec_by_name(const char *name);
const trz_codec *trz_codec_at(size_t i); /* NULL past the end */

extern const trz_codec trz_codec_raw;
extern const trz_codec trz_codec_rst;
extern const trz_codec trz_codec_byu;
extern const trz_codec trz_codec_pbus;
extern const trz_codec trz_codec_uop;
extern const trz_codec trz_codec_champsim;
extern const trz_codec trz_codec_champsim_cloudsuite;
extern const trz_codec trz_codec_drmemtrace;

#endif
