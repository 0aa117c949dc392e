/* index.c - a member's index and footer (FORMAT.md, "Index", "Footer"):
 * written by the compressor and by trz join, which rebuilds one index over
 * joined archives; parsed by the reader, which checks them before use. */
#include "format.h"

uint64_t trz_member_hash_step(uint64_t h, uint64_t xxh, uint32_t raw, uint32_t nrec)
{
    uint8_t e[16];
    trz_st_le64(e, xxh);
    trz_st_le32(e + 8, raw);
    trz_st_le32(e + 12, nrec);
    return XXH3_64bits_withSeed(e, sizeof e, h);
}

uint64_t trz_index_len(uint64_t n, int placed)
{
    return 8 + n * TRZ_INDEX_ENTRY + (placed ? TRZ_MEMBER_HASH : 0);
}

int trz_index_write(trz_buf *b, const trz_index_entry *e, size_t n, uint64_t index_offset, const uint64_t *mhash)
{
    size_t start = b->n;
    trz_put_bytes(b, trz_index_magic, 4);
    trz_put_le32(b, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        trz_put_le64(b, e[i].offset);
        trz_put_le64(b, e[i].first_record);
        trz_put_le64(b, e[i].first_byte);
        trz_put_le32(b, e[i].nrec);
        trz_put_le32(b, e[i].raw);
        trz_put_le32(b, e[i].stored);
        trz_put_u8(b, e[i].codec);
        trz_put_u8(b, e[i].flags);
        trz_put_le16(b, 0);
    }
    if (mhash) trz_put_le64(b, *mhash);
    if (b->oom) return TRZ_ERR_NOMEM;
    uint32_t chk = trz_xxh32low(b->p + start, b->n - start);
    uint64_t member_size = index_offset + (b->n - start) + TRZ_FOOTER_SIZE;
    trz_put_le64(b, index_offset);
    trz_put_le64(b, member_size);
    trz_put_le32(b, chk);
    trz_put_bytes(b, trz_footer_magic, 4);
    return b->oom ? TRZ_ERR_NOMEM : TRZ_OK;
}

int trz_index_entry_parse(const uint8_t *e, trz_index_entry *k)
{
    k->offset = trz_ld_le64(e);
    k->first_record = trz_ld_le64(e + 8);
    k->first_byte = trz_ld_le64(e + 16);
    k->nrec = trz_ld_le32(e + 24);
    k->raw = trz_ld_le32(e + 28);
    k->stored = trz_ld_le32(e + 32);
    k->codec = e[36];
    k->flags = e[37];
    return e[38] || e[39] ? TRZ_ERR_CORRUPT : TRZ_OK;
}

int trz_footer_parse(const uint8_t *f, trz_footer *out)
{
    if (memcmp(f + 20, trz_footer_magic, 4) != 0) return TRZ_ERR_NOT_TRZ;
    out->index_offset = trz_ld_le64(f);
    out->member_size = trz_ld_le64(f + 8);
    out->index_check = trz_ld_le32(f + 16);
    return TRZ_OK;
}

int trz_index_ok(const uint8_t *ix, size_t len, const trz_footer *f, int placed)
{
    size_t extra = placed ? TRZ_MEMBER_HASH : 0;
    return len >= 8 + extra && (len - 8 - extra) % TRZ_INDEX_ENTRY == 0 && memcmp(ix, trz_index_magic, 4) == 0 &&
           trz_ld_le32(ix + 4) == (len - 8 - extra) / TRZ_INDEX_ENTRY && trz_xxh32low(ix, len) == f->index_check;
}

uint64_t trz_index_mhash(const uint8_t *ix, size_t len) { return trz_ld_le64(ix + len - TRZ_MEMBER_HASH); }

uint32_t trz_index_count(const uint8_t *head) { return trz_ld_le32(head + 4); }
