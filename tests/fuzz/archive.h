/* archive.h - the tests' own walk over a .trz archive's structure (written
 * from src/format/FORMAT.md, not from the library's parser): list the members and
 * chunks, and reseal an archive, recomputing every check (file header,
 * chunk header and payload checks, index check, footer offsets), so that a
 * mutated count or flag reaches past the hashes as a writer bug would.
 * The content hash of decoded bytes is left as it is. */
#ifndef TRZ_TESTS_ARCHIVE_H
#define TRZ_TESTS_ARCHIVE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

static inline uint32_t ar_ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t ar_ld64(const uint8_t *p) { return (uint64_t)ar_ld32(p + 4) << 32 | ar_ld32(p); }
static inline void ar_st32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void ar_st64(uint8_t *p, uint64_t v) { ar_st32(p, (uint32_t)v); ar_st32(p + 4, (uint32_t)(v >> 32)); }
static inline uint32_t ar_low32(const uint8_t *p, size_t n) { return (uint32_t)XXH3_64bits(p, n); }

#define AR_MAX_CHUNKS 4096
#define AR_MAX_MEMBERS 64

typedef struct ar_chunk {
    size_t off;       /* header offset in the archive */
    size_t entry;     /* its index entry's offset, 0 when there is none */
    unsigned member;
    uint32_t nrec, raw;
    uint8_t codec, flags;
} ar_chunk;

typedef struct ar_member {
    size_t off, index, end; /* header, index and end offsets */
    uint8_t codec, byte_order;
    uint64_t raw;           /* sum of its chunks' raw sizes */
} ar_member;

typedef struct ar_map {
    ar_chunk c[AR_MAX_CHUNKS];
    ar_member m[AR_MAX_MEMBERS];
    unsigned nc, nm;
    int complete; /* the walk reached the end of the input exactly */
} ar_map;

/* Walk the archive; with `seal`, recompute every check on the way.  The
 * walk stops at the first structure it cannot parse (map->complete = 0). */
static inline void ar_walk(uint8_t *p, size_t n, ar_map *map, int seal)
{
    size_t at = 0;
    memset(map, 0, sizeof *map);
    while (at < n) {
        if (n - at < 28 || memcmp(p + at, "\x89TRZ", 4) != 0 || map->nm == AR_MAX_MEMBERS) return;
        ar_member *m = &map->m[map->nm++];
        size_t plen = (size_t)p[at + 22] | (size_t)p[at + 23] << 8;
        if (plen > 256 || n - at < 28 + plen) return;
        m->off = at;
        m->codec = p[at + 5];
        m->byte_order = p[at + 6];
        int placed = p[at + 4] == 5; /* version 5: placed chunks, and a member hash after the index */
        uint64_t mh = 0;
        if (seal) ar_st32(p + at + 24 + plen, ar_low32(p + at, 24 + plen));
        at += 28 + plen;
        unsigned first = map->nc;
        while (n - at >= 4 && memcmp(p + at, "TZCK", 4) == 0) {
            if (n - at < 28 || map->nc == AR_MAX_CHUNKS) return;
            unsigned ns = p[at + 6];
            if (ns > 64) return;
            size_t t = p[at + 7] & 4 ? 48 : 28; /* a placed chunk's stream table follows its place */
            placed |= (p[at + 7] & 4) != 0;      /* (a member whose version byte was changed) */
            size_t hl = t + 10 * (size_t)ns, pay = 0;
            if (n - at < hl + 4) return;
            for (unsigned k = 0; k < ns; k++) pay += ar_ld32(p + at + t + 10 * k + 2);
            if (n - at - hl - 4 < pay) return;
            ar_chunk *c = &map->c[map->nc++];
            c->off = at;
            c->member = map->nm - 1;
            c->codec = p[at + 4];
            c->flags = p[at + 7];
            c->nrec = ar_ld32(p + at + 8);
            c->raw = ar_ld32(p + at + 12);
            m->raw += c->raw;
            if (seal) {
                ar_st32(p + at + 24, ar_low32(p + at + hl + 4, pay));
                ar_st32(p + at + hl, ar_low32(p + at, hl));
            }
            uint8_t mb[16]; /* the member hash's step (FORMAT.md, "Index") */
            memcpy(mb, p + at + 16, 8);
            memcpy(mb + 8, p + at + 12, 4);
            memcpy(mb + 12, p + at + 8, 4);
            mh = XXH3_64bits_withSeed(mb, 16, mh);
            at += hl + 4 + pay;
        }
        if (n - at < 8 || memcmp(p + at, "TZIX", 4) != 0) return;
        size_t cnt = ar_ld32(p + at + 4), ixlen = 8 + 40 * cnt + (placed ? 8 : 0);
        if ((n - at) / 40 < cnt || n - at < ixlen + 24) return;
        for (size_t i = 0; i < cnt && first + i < map->nc; i++) map->c[first + i].entry = at + 8 + 40 * i;
        m->index = at;
        uint8_t *f = p + at + ixlen;
        if (seal) {
            if (placed) ar_st64(p + at + ixlen - 8, mh);
            ar_st64(f, at - m->off);
            ar_st64(f + 8, at + ixlen + 24 - m->off);
            ar_st32(f + 16, ar_low32(p + at, ixlen));
            memcpy(f + 20, "TZEN", 4);
        }
        at += ixlen + 24;
        m->end = at;
    }
    map->complete = 1;
}

/* Set chunk i's record count (header and index entry) and reseal. */
static inline void ar_set_nrec(uint8_t *p, size_t n, ar_map *map, unsigned i, uint32_t nrec)
{
    ar_chunk *c = &map->c[i];
    ar_st32(p + c->off + 8, nrec);
    if (c->entry) { /* the entry's count, and the first records of the member's later chunks */
        int64_t d = (int64_t)nrec - (int64_t)ar_ld32(p + c->entry + 24);
        ar_st32(p + c->entry + 24, nrec);
        for (unsigned j = i + 1; j < map->nc && map->c[j].member == c->member; j++)
            if (map->c[j].entry) ar_st64(p + map->c[j].entry + 8, ar_ld64(p + map->c[j].entry + 8) + (uint64_t)d);
    }
    ar_walk(p, n, map, 1);
}

/* Set chunk i's flags byte (header and index entry) and reseal. */
static inline void ar_set_flags(uint8_t *p, size_t n, ar_map *map, unsigned i, uint8_t flags)
{
    ar_chunk *c = &map->c[i];
    p[c->off + 7] = flags;
    if (c->entry) p[c->entry + 37] = flags;
    ar_walk(p, n, map, 1);
}

/* One member of stored raw chunks, written field by field: the member's
 * codec, record size and byte order, and per chunk its flags, record count
 * and bytes, so that tests can state counts a writer would never write.
 * Returns the member's size; out must hold it (all lengths + 200 per
 * chunk + 128). */
typedef struct ar_piece {
    uint8_t flags;
    uint32_t nrec;
    const uint8_t *p;
    uint32_t len;
} ar_piece;

static inline size_t ar_build(uint8_t *out, uint8_t mcodec, uint32_t rs, uint8_t bo, const ar_piece *pc, unsigned n)
{
    uint8_t *q = out;
    memcpy(q, "\x89TRZ", 4);
    q[4] = 1, q[5] = mcodec, q[6] = bo, q[7] = 0;
    ar_st32(q + 8, rs);
    static const uint8_t mark_le[4] = { 0x0E, 0x0F, 0x0A, 0x0C }, mark_be[4] = { 0x0C, 0x0A, 0x0F, 0x0E };
    memcpy(q + 12, bo == 1 ? mark_le : bo == 2 ? mark_be : (const uint8_t *)"\0\0\0\0", 4);
    ar_st32(q + 16, 1u << 24);
    q[20] = 9, q[21] = 0, q[22] = 0, q[23] = 0;
    ar_st32(q + 24, ar_low32(q, 24));
    size_t at = 28;
    size_t *offs = malloc((n + 1) * sizeof *offs);
    if (!offs) return 0;
    for (unsigned i = 0; i < n; i++) {
        uint8_t *h = out + at;
        unsigned ns = pc[i].len ? 1 : 0;
        offs[i] = at;
        memcpy(h, "TZCK", 4);
        h[4] = 0, h[5] = 0, h[6] = (uint8_t)ns, h[7] = pc[i].flags;
        ar_st32(h + 8, pc[i].nrec);
        ar_st32(h + 12, pc[i].len);
        ar_st64(h + 16, XXH3_64bits(pc[i].p, pc[i].len));
        ar_st32(h + 24, ar_low32(pc[i].p, pc[i].len));
        size_t hl = 28;
        if (ns) {
            h[28] = 0, h[29] = 0;
            ar_st32(h + 30, pc[i].len);
            ar_st32(h + 34, pc[i].len);
            hl += 10;
        }
        ar_st32(h + hl, ar_low32(h, hl));
        if (pc[i].len) memcpy(h + hl + 4, pc[i].p, pc[i].len);
        at += hl + 4 + pc[i].len;
    }
    offs[n] = at;
    uint8_t *ix = out + at;
    memcpy(ix, "TZIX", 4);
    ar_st32(ix + 4, n);
    uint64_t rec = 0, byte = 0;
    for (unsigned i = 0; i < n; i++) {
        uint8_t *e = ix + 8 + 40 * (size_t)i;
        memset(e, 0, 40);
        ar_st64(e, offs[i]);
        ar_st64(e + 8, rec);
        ar_st64(e + 16, byte);
        ar_st32(e + 24, pc[i].nrec);
        ar_st32(e + 28, pc[i].len);
        ar_st32(e + 32, (uint32_t)(offs[i + 1] - offs[i]));
        e[37] = pc[i].flags;
        rec += pc[i].nrec;
        byte += pc[i].len;
    }
    size_t ixlen = 8 + 40 * (size_t)n;
    uint8_t *f = ix + ixlen;
    ar_st64(f, at);
    ar_st64(f + 8, at + ixlen + 24);
    ar_st32(f + 16, ar_low32(ix, ixlen));
    memcpy(f + 20, "TZEN", 4);
    free(offs);
    return at + ixlen + 24;
}

#endif
