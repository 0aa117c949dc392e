/* decompress.h - what the other rooms of the library may ask a reader
 * beyond trz.h (the tools room's dump prints each member in its format,
 * join finds where its inputs' members end). */
#ifndef TRZ_DECOMPRESS_H
#define TRZ_DECOMPRESS_H

#include <stdio.h>

#include "../format/format.h"

/* The codec and byte order of the member that the last span came from. */
const trz_codec *trz_reader_span_codec(const trz_reader *r, int *byte_order);
/* Whether the last span began at a record start (not inside a line or a
 * partial last record), and (*member) whether it began a member. */
int trz_reader_span_starts(const trz_reader *r, int *member);

/* Leave a message in r for a failure found outside the room (trz_dump's
 * arguments); returns rc. */
int trz_reader_fail(trz_reader *r, int rc, const char *msg);

/* Whether chunk n (through the index) is the first of its member. */
int trz_reader_chunk_starts_member(const trz_reader *r, uint64_t n);
/* Whether chunk n (through the index) restarts its member's knowledge (so
 * the member is of version 3). */
int trz_reader_chunk_restarts(const trz_reader *r, uint64_t n);
/* Whether chunk n (through the index) is of a chain (its member of version 4). */
int trz_reader_chunk_chained(const trz_reader *r, uint64_t n);
/* The last decoded byte of chunk n (through the index, with its chain's
 * earlier chunks decoded first); TRZ_OK or the error, r's message set. */
int trz_reader_chunk_last_byte(trz_reader *r, uint64_t n, uint8_t *b);
/* Chunk n (through the index) of a member of version 5: its place as the
 * index gives it (number in the member, first record and byte in the
 * member) and, when it is its member's last chunk, the member hash the
 * index states (*last set).  0 for a chunk of an earlier version. */
int trz_reader_chunk_place(const trz_reader *r, uint64_t n, uint32_t *no, uint64_t *rec, uint64_t *byte, int *last,
                           uint64_t *mhash);

#endif
