/* restore.c - the header of a restore block (FORMAT.md, "Restore block"):
 * what a member's records were unwrapped from and how big and what hash
 * the original file had, written before the block's body and checked
 * before any of its fields is used. */
#include "format.h"

void trz_restore_hdr_write(uint8_t *b, const trz_restore_hdr *h)
{
    memcpy(b, trz_restore_magic, 4);
    b[4] = TRZ_RESTORE_VERSION;
    b[5] = h->kind;
    b[6] = b[7] = 0;
    trz_st_le64(b + 8, h->size);
    trz_st_le64(b + 16, h->hash);
    trz_st_le64(b + 24, h->records);
    trz_st_le32(b + 32, trz_xxh32low(b, 32));
}

int trz_restore_hdr_parse(const uint8_t *b, trz_restore_hdr *h)
{
    if (memcmp(b, trz_restore_magic, 4) != 0 || trz_ld_le32(b + 32) != trz_xxh32low(b, 32)) return TRZ_ERR_CORRUPT;
    if (b[4] != TRZ_RESTORE_VERSION) return TRZ_ERR_UNSUPPORTED;
    if (b[6] || b[7]) return TRZ_ERR_CORRUPT;
    h->kind = b[5];
    h->size = trz_ld_le64(b + 8);
    h->hash = trz_ld_le64(b + 16);
    h->records = trz_ld_le64(b + 24);
    return TRZ_OK;
}
