/* index.c - serialize a member's index and footer (FORMAT.md), shared by the
 * writer and by trz_join, which rebuilds one index over joined archives. */
#include "internal.h"

int trz_index_write(trz_buf *b, const trz_index_entry *e, size_t n, uint64_t index_offset)
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
    if (b->oom) return TRZ_ERR_NOMEM;
    uint32_t chk = trz_xxh32low(b->p + start, b->n - start);
    uint64_t member_size = index_offset + (b->n - start) + TRZ_FOOTER_SIZE;
    trz_put_le64(b, index_offset);
    trz_put_le64(b, member_size);
    trz_put_le32(b, chk);
    trz_put_bytes(b, trz_footer_magic, 4);
    return b->oom ? TRZ_ERR_NOMEM : TRZ_OK;
}
