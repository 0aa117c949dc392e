/* codec.h - the interface between the trz container and the per-format codecs.
 *
 * A codec turns one chunk of source bytes into up to TRZ_MAX_STREAMS byte
 * streams (encode_chunk) and back (decode_chunk).  The container compresses
 * each stream with a back-end (zstd, zlib), checksums the chunk and indexes
 * it.  A codec keeps no state from one chunk to the next.
 *
 * Adding a format: write codecs/<name>.c exporting one `const trz_codec`,
 * and add one row to the table in codecs/registry.c.
 */
#ifndef TRZ_CODEC_H
#define TRZ_CODEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRZ_MAX_STREAMS 64

/* Byte order of the source records (stored in the container header). */
enum { TRZ_BO_NONE = 0, TRZ_BO_LITTLE = 1, TRZ_BO_BIG = 2 };

/* Codec ids, stored on disk: never renumber. */
enum {
    TRZ_CODEC_RAW = 0,
    TRZ_CODEC_RST = 1,
    TRZ_CODEC_BYU = 2,
    TRZ_CODEC_PBUS = 3,
    TRZ_CODEC_UOP = 4,
};

/* ---- large buffers ------------------------------------------------------- */

/* Buffers of megabytes (chunks, streams, model tables) are asked for on
 * transparent huge pages where the kernel offers them: touching fresh memory
 * then costs one page fault per 2 MiB instead of 512, which on some machines
 * is most of a chunk's decoding time.  Free them with free(), or, for a
 * block of n bytes that the next chunk will want again (model tables),
 * with trz_big_free(p, n): the block is kept for reuse (trz_big_trim, at
 * the end of a compression or a reader, gives the kept blocks back). */
void *trz_big_malloc(size_t n);
void *trz_big_calloc(size_t n);
void *trz_big_realloc(void *p, size_t n);
void trz_big_free(void *p, size_t n);
void trz_big_trim(void);

/* ---- growable output buffer used by encoders ---------------------------- */

typedef struct trz_buf {
    uint8_t *p;
    size_t n, cap;
    int oom; /* set once an allocation failed; later puts are dropped */
} trz_buf;

static inline int trz_buf_reserve(trz_buf *b, size_t extra)
{
    if (b->oom) return -1;
    if (b->cap - b->n >= extra) return 0;
    size_t want = b->cap ? b->cap : 256;
    while (want - b->n < extra) {
        if (want > ((size_t)-1) / 2) { b->oom = 1; return -1; }
        want *= 2;
    }
    uint8_t *np = trz_big_realloc(b->p, want);
    if (!np) { b->oom = 1; return -1; }
    b->p = np;
    b->cap = want;
    return 0;
}

static inline void trz_put_u8(trz_buf *b, uint8_t v)
{
    if (b->n < b->cap || trz_buf_reserve(b, 1) == 0) b->p[b->n++] = v;
}

static inline void trz_put_bytes(trz_buf *b, const void *src, size_t len)
{
    if (len && trz_buf_reserve(b, len) == 0) {
        memcpy(b->p + b->n, src, len);
        b->n += len;
    }
}

/* Little-endian fixed-width puts (the container's own integers are LE). */
static inline void trz_put_le16(trz_buf *b, uint16_t v)
{
    uint8_t t[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
    trz_put_bytes(b, t, 2);
}
static inline void trz_put_le32(trz_buf *b, uint32_t v)
{
    uint8_t t[4];
    for (int i = 0; i < 4; i++) t[i] = (uint8_t)(v >> (8 * i));
    trz_put_bytes(b, t, 4);
}
static inline void trz_put_le64(trz_buf *b, uint64_t v)
{
    uint8_t t[8];
    for (int i = 0; i < 8; i++) t[i] = (uint8_t)(v >> (8 * i));
    trz_put_bytes(b, t, 8);
}

/* LEB128 unsigned varint, at most 10 bytes for 64 bits. */
static inline void trz_put_uvarint(trz_buf *b, uint64_t v)
{
    if (trz_buf_reserve(b, 10) != 0) return;
    uint8_t *q = b->p + b->n;
    while (v >= 0x80) { *q++ = (uint8_t)(v | 0x80); v >>= 7; }
    *q++ = (uint8_t)v;
    b->n = (size_t)(q - b->p);
}

static inline uint64_t trz_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t trz_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}
static inline void trz_put_svarint(trz_buf *b, int64_t v)
{
    trz_put_uvarint(b, trz_zigzag(v));
}

/* ---- bounds-checked input reader used by decoders ----------------------- */

/* Every get returns 0 once the stream is exhausted and sets `err`; a decoder
 * checks `err` (at least once per chunk, and inside any loop whose trip count
 * comes from stream data) and reports TRZ_CODEC_CORRUPT. */
typedef struct trz_rd {
    const uint8_t *p, *end;
    int err;
} trz_rd;

static inline void trz_rd_init(trz_rd *r, const uint8_t *p, size_t n)
{
    r->p = p;
    r->end = p ? p + n : p; /* an absent stream is NULL: no arithmetic on it */
    r->err = 0;
}
static inline size_t trz_rd_left(const trz_rd *r) { return (size_t)(r->end - r->p); }

static inline uint8_t trz_get_u8(trz_rd *r)
{
    if (r->p < r->end) return *r->p++;
    r->err = 1;
    return 0;
}
static inline const uint8_t *trz_get_bytes(trz_rd *r, size_t len)
{
    if (trz_rd_left(r) < len) { r->err = 1; r->p = r->end; return NULL; }
    const uint8_t *s = r->p;
    r->p += len;
    return s;
}
static inline uint16_t trz_get_le16(trz_rd *r)
{
    const uint8_t *s = trz_get_bytes(r, 2);
    return s ? (uint16_t)(s[0] | s[1] << 8) : 0;
}
static inline uint32_t trz_get_le32(trz_rd *r)
{
    const uint8_t *s = trz_get_bytes(r, 4);
    return s ? (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24 : 0;
}
static inline uint64_t trz_get_le64(trz_rd *r)
{
    const uint8_t *s = trz_get_bytes(r, 8);
    uint64_t v = 0;
    if (s) for (int i = 7; i >= 0; i--) v = v << 8 | s[i];
    return v;
}
static inline uint64_t trz_get_uvarint(trz_rd *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (r->p >= r->end) { r->err = 1; return 0; }
        uint8_t c = *r->p++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) return v;
    }
    r->err = 1; /* over-long varint */
    return 0;
}
static inline int64_t trz_get_svarint(trz_rd *r) { return trz_unzigzag(trz_get_uvarint(r)); }

/* Set bits of x.  Without -mpopcnt, __builtin_popcount is a library call;
 * this is a dozen inline operations on any target, and compilers turn it
 * into one instruction where the target has one (see TRZ_HOT_CLONES). */
static inline unsigned trz_popcount32(uint32_t x)
{
    x -= (x >> 1) & 0x55555555u;
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (x * 0x01010101u) >> 24;
}

/* The per-record loops of the bus codecs are built three times and the
 * loader picks one for the host (GNU ifunc): for x86-64-v3 (AVX2, BMI2: the
 * vector steps of addrmodel.h take the three-operand forms, 8% fewer
 * instructions decoding a valgrind-style BYU trace), with popcount only
 * (am_glitch counts bits on every fetch; the baseline has no instruction
 * for it), and for the baseline.  The cloned loops do no floating-point
 * arithmetic, so every version writes the same bytes.  Compilers without
 * x86-64-v3 clones get the popcount one; elsewhere, or built for such a
 * host already, the attribute is empty.  (The RST and uop loops are not
 * cloned: a v3 build of them ran as many or more instructions.) */
#if defined(__x86_64__) && defined(__GLIBC__) && !defined(__AVX2__) && \
    ((defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 11) || (defined(__clang__) && __clang_major__ >= 14))
#define TRZ_HOT_CLONES __attribute__((target_clones("arch=x86-64-v3", "popcnt", "default")))
#elif defined(__x86_64__) && defined(__GLIBC__) && !defined(__POPCNT__) && defined(__GNUC__) && !defined(__clang__) && \
    __GNUC__ >= 6
#define TRZ_HOT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define TRZ_HOT_CLONES
#endif

/* Index of the lowest set bit of x != 0. */
static inline unsigned trz_ctz32(uint32_t x)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctz(x);
#else
    unsigned n = 0;
    while (!(x & 1)) x >>= 1, n++;
    return n;
#endif
}

/* ---- byte-order helpers for source records ------------------------------ */

/* Whole-word loads and stores where the host allows: the byte-wise forms
 * are not always merged into one access by the compiler (the BYU decoder's
 * stores and the RST codec's fields were not). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TRZ_HOST_LE 1
#else
#define TRZ_HOST_LE 0
#endif

static inline uint16_t trz_ld_be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t trz_ld_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t trz_ld_be64(const uint8_t *p)
{
#if TRZ_HOST_LE && defined(__GNUC__)
    uint64_t v;
    memcpy(&v, p, 8);
    return __builtin_bswap64(v);
#else
    return (uint64_t)trz_ld_be32(p) << 32 | trz_ld_be32(p + 4);
#endif
}
static inline uint16_t trz_ld_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t trz_ld_le32(const uint8_t *p)
{
#if TRZ_HOST_LE
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
#else
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
#endif
}
static inline uint64_t trz_ld_le64(const uint8_t *p) { return (uint64_t)trz_ld_le32(p + 4) << 32 | trz_ld_le32(p); }
static inline void trz_st_be16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void trz_st_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void trz_st_be64(uint8_t *p, uint64_t v)
{
#if TRZ_HOST_LE && defined(__GNUC__)
    v = __builtin_bswap64(v);
    memcpy(p, &v, 8);
#else
    trz_st_be32(p, (uint32_t)(v >> 32));
    trz_st_be32(p + 4, (uint32_t)v);
#endif
}
static inline void trz_st_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void trz_st_le32(uint8_t *p, uint32_t v)
{
#if TRZ_HOST_LE
    memcpy(p, &v, 4);
#else
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
#endif
}
static inline void trz_st_le64(uint8_t *p, uint64_t v) { trz_st_le32(p, (uint32_t)v); trz_st_le32(p + 4, (uint32_t)(v >> 32)); }

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
} trz_enc_args;

typedef struct trz_dec_args {
    const uint8_t *const *stream; /* [TRZ_MAX_STREAMS]; NULL where absent */
    const size_t *stream_len;     /* [TRZ_MAX_STREAMS]; 0 where absent */
    uint8_t *out;                 /* exactly `len` bytes to fill */
    size_t len;
    uint64_t nrec;
    int byte_order;
} trz_dec_args;

typedef struct trz_codec {
    uint8_t id;            /* TRZ_CODEC_* */
    const char *name;      /* short name for --format= and -l */
    uint32_t record_size;  /* bytes per record; 0 for line-oriented text */
    const char *description;

    /* Score 0..100 for how likely `buf` (the first bytes of the input; len
     * may be small) is this format; set *byte_order.  NULL = never chosen
     * automatically. */
    int (*probe)(const uint8_t *buf, size_t len, int *byte_order);

    int (*encode_chunk)(const trz_enc_args *a);
    /* Must never read outside the given streams or write outside out[0..len),
     * whatever the stream contents: decoders are fuzzed. */
    int (*decode_chunk)(const trz_dec_args *a);

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
} trz_codec;

/* Registry (codecs/registry.c). */
const trz_codec *trz_codec_by_id(unsigned id);
const trz_codec *trz_codec_by_name(const char *name);
const trz_codec *trz_codec_at(size_t i); /* NULL past the end */

extern const trz_codec trz_codec_raw;
extern const trz_codec trz_codec_rst;
extern const trz_codec trz_codec_byu;
extern const trz_codec trz_codec_pbus;
extern const trz_codec trz_codec_uop;

#endif
