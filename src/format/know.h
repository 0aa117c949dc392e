/* know.h - carried knowledge (FORMAT.md, "Knowledge"): the facts a member's
 * chunks teach its codec (an instruction's static fields by its PC, say),
 * kept in a store that later chunks' models start from, and the knowledge
 * stream that states a chunk's new facts.  One thread adds facts while
 * others read: a reader sees the facts of a view, the first n added, so
 * that a chunk encoded or decoded on a worker sees exactly the facts that
 * come before it in the member, whatever the main thread adds meanwhile. */
#ifndef TRZ_KNOW_H
#define TRZ_KNOW_H

#include "../../codecs/codec.h"

/* Limits a store enforces; a knowledge stream that would pass one is damage
 * (a writer stops adding facts at them, so it never writes one).  The count
 * of facts, TRZ_KNOW_MAX_FACTS, and the knowledge stream's id,
 * TRZ_KNOW_STREAM, are codec.h's: codecs check them too. */
#define TRZ_KNOW_MAX_BYTES (16u << 20) /* the values of one store */
#define TRZ_KNOW_MAX_VALUE 255
#define TRZ_KNOW_GENERIC 1           /* knowledge stream layouts: the container's */
#define TRZ_KNOW_CODEC 2             /* the codec's (know_encode) */
/* The knowledge starts afresh at least every this many bytes of trace: what a
 * seek reads and what damage can cost are bounded by it. */
#define TRZ_KNOW_PERIOD (256u << 20)

typedef struct trz_kstore trz_kstore;

/* A store, empty; NULL if out of memory.  Its tables are mapped lazily:
 * memory grows with the facts added. */
trz_kstore *trz_kstore_create(void);
void trz_kstore_free(trz_kstore *s);
/* Forget every fact (a restart); only while nobody reads the store. */
void trz_kstore_clear(trz_kstore *s);
/* Facts added so far. */
uint32_t trz_kstore_count(const trz_kstore *s);
/* Forget the facts after the first n, added since any reader's view was
 * taken (a chunk's facts that turned out not worth their stream). */
void trz_kstore_truncate(trz_kstore *s, uint32_t n);
/* The view of the first n facts. */
trz_know trz_kstore_view(const trz_kstore *s, uint32_t n);

/* A chunk's new facts while they are collected (encoder) or parsed (decoder). */
typedef struct trz_kdelta {
    uint64_t *key;
    uint32_t *off;   /* into bytes */
    uint8_t *len;
    uint8_t *bytes;
    size_t n, cap, nbytes, capbytes;
    int oom, full;   /* full: the store's limits stopped adding */
    trz_kstore *s;   /* where add() inserts (encoder) */
} trz_kdelta;

/* The add callback of trz_codec.learn: insert into d->s and note in d (a key
 * the store holds already, or an empty or too long value, is ignored). */
void trz_kdelta_add(void *d, uint64_t key, const void *val, size_t len);
void trz_kdelta_reset(trz_kdelta *d, trz_kstore *s);
void trz_kdelta_free(trz_kdelta *d);
/* The knowledge stream of the facts in d (sorted by key), in codec c's
 * layout when it has one and that decodes back to the same facts, else in
 * the container's; before: the facts known before d's; level: the chunk's
 * (the codec's know_encode may choose its form by it).  TRZ_OK or
 * TRZ_ERR_NOMEM.  An empty delta writes nothing (the stream is absent). */
int trz_kdelta_write(trz_kdelta *d, const trz_codec *c, trz_know before, int level, trz_buf *out);
/* Add the facts of a knowledge stream (of member codec c) to s;
 * TRZ_ERR_CORRUPT when it is not one (bad layout, keys out of order or
 * known already, limits passed), TRZ_ERR_UNSUPPORTED for a layout this
 * version does not know. */
int trz_know_apply(trz_kstore *s, const trz_codec *c, const uint8_t *p, size_t n);

#endif
