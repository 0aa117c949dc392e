/* fuzz_oracle.c - fuzz target: the record oracle (tests/oracle.h).  The
 * custom mutator changes the fields that place records (record counts,
 * flags, codec ids, raw sizes, in a chunk header and its index entry
 * alike) or any byte, then reseals the archive (tests/fuzz/archive.h
 * recomputes every check), so that mutations reach past the checksums as
 * a writer bug would.  Whatever the reader accepts must read back the same
 * through the index, a pipe, trz_read and trz_dump; anything else aborts. */
#include "../oracle.h"

#ifndef LLVMFuzzerTestOneInput /* the replay driver renames the target and has no mutator */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned seed);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned seed)
{
    static ar_map map;
    uint64_t r = seed * 0x9E3779B97F4A7C15ull + 1;
    ar_walk(data, size, &map, 0);
    if (map.nc && r % 4) {
        unsigned i = (unsigned)((r >> 8) % map.nc);
        ar_chunk *c = &map.c[i];
        static const int32_t deltas[] = { 1, -1, 2, -2, 7, 100, -100 };
        switch ((r >> 24) % 6) {
        case 0: ar_set_nrec(data, size, &map, i, c->nrec + (uint32_t)deltas[(r >> 32) % 7]); break;
        case 1: ar_set_nrec(data, size, &map, i, (r >> 32) % 3 ? 0 : (uint32_t)(r >> 40)); break;
        case 2: ar_set_flags(data, size, &map, i, c->flags ^ (uint8_t)(1u << ((r >> 32) % 3))); break;
        case 3: /* the chunk's codec: raw, or the member's */
            data[c->off + 4] = (r >> 32) % 2 ? 0 : map.m[c->member].codec;
            if (c->entry) data[c->entry + 36] = data[c->off + 4];
            break;
        case 4: /* a raw size that disagrees with the decoded bytes */
            ar_st32(data + c->off + 12, c->raw + (uint32_t)deltas[(r >> 32) % 7]);
            if (c->entry) ar_st32(data + c->entry + 28, c->raw + (uint32_t)deltas[(r >> 32) % 7]);
            break;
        default: /* the byte order of a chunk */
            data[c->off + 5] = (uint8_t)((r >> 32) % 3);
            break;
        }
    } else {
        size = LLVMFuzzerMutate(data, size, max);
    }
    ar_walk(data, size, &map, 1);
    return size;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *p, size_t n)
{
    char why[300];
    if (oracle_check(p, n, 40, why, sizeof why) < 0) {
        fprintf(stderr, "oracle: %s\n", why);
        abort();
    }
    return 0;
}
