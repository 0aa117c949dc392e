/* header.c - the file header that starts every member (FORMAT.md, "File
 * header"): written by the compressor and by trz join, parsed and checked
 * by the reader before any of its fields is used. */
#include "format.h"

size_t trz_file_hdr_write(uint8_t *h, const trz_file_hdr *f)
{
    memcpy(h, trz_file_magic, 4);
    /* version 5 states the mode in its flags; the earlier ones in the version (trz join writes them) */
    if (f->placed) {
        h[4] = TRZ_FORMAT_VERSION_PLACED;
        h[7] = (uint8_t)((f->know ? TRZ_MODE_KNOW : 0) | (f->chain ? TRZ_MODE_CHAIN : 0) |
                         (f->parity ? TRZ_MODE_PARITY : 0) | (f->xz ? TRZ_MODE_XZ : 0));
    } else {
        h[4] = f->chain ? TRZ_FORMAT_VERSION_CHAIN : f->know ? TRZ_FORMAT_VERSION_KNOW : TRZ_FORMAT_VERSION;
        h[7] = 0;
    }
    h[5] = f->codec;
    h[6] = f->byte_order;
    trz_st_le32(h + 8, f->record_size);
    /* the endian mark in the source's byte order, zero when it has none */
    if (f->byte_order == TRZ_BO_BIG) trz_st_be32(h + 12, TRZ_ENDIAN_MARK);
    else if (f->byte_order == TRZ_BO_LITTLE) trz_st_le32(h + 12, TRZ_ENDIAN_MARK);
    else trz_st_le32(h + 12, 0);
    trz_st_le32(h + 16, f->chunk_bytes);
    h[20] = f->level;
    h[21] = f->backend;
    size_t p = 0;
    if (f->wrap) {
        h[TRZ_FILE_HDR_FIXED] = TRZ_PARAM_WRAP;
        h[TRZ_FILE_HDR_FIXED + 1] = 1;
        h[TRZ_FILE_HDR_FIXED + 2] = f->wrap;
        p = 3;
    }
    if (f->restore_size) {
        uint8_t *q = h + TRZ_FILE_HDR_FIXED + p;
        q[0] = TRZ_PARAM_RESTORE;
        q[1] = 9;
        q[2] = f->restore_kind;
        trz_st_le64(q + 3, f->restore_size);
        p += 11;
    }
    trz_st_le16(h + 22, (uint16_t)p);
    trz_st_le32(h + TRZ_FILE_HDR_FIXED + p, trz_xxh32low(h, TRZ_FILE_HDR_FIXED + p));
    return TRZ_FILE_HDR_FIXED + p + 4;
}

/* The parameter block: entries (tag, length, value) filling it exactly. */
static int parse_params(const uint8_t *p, size_t n, trz_file_hdr *f)
{
    size_t i = 0;
    while (i < n) {
        if (n - i < 2 || n - i - 2 < p[i + 1]) return TRZ_ERR_CORRUPT;
        if (p[i] == TRZ_PARAM_WRAP && p[i + 1] == 1) f->wrap = p[i + 2];
        if (p[i] == TRZ_PARAM_RESTORE) { /* the member's layout depends on it: it must be well-formed */
            if (p[i + 1] != 9 || trz_ld_le64(p + i + 3) < TRZ_RESTORE_MIN) return TRZ_ERR_CORRUPT;
            f->restore_kind = p[i + 2];
            f->restore_size = trz_ld_le64(p + i + 3);
        }
        i += 2 + (size_t)p[i + 1];
    }
    return TRZ_OK;
}

int trz_file_hdr_parse(const uint8_t *h, size_t n, trz_file_hdr *f, size_t *len)
{
    *len = TRZ_FILE_HDR_FIXED;
    if (n < 4 || memcmp(h, trz_file_magic, 4) != 0) return TRZ_ERR_NOT_TRZ;
    if (n < TRZ_FILE_HDR_FIXED) return TRZ_ERR_TRUNCATED;
    if (h[4] != TRZ_FORMAT_VERSION && h[4] != TRZ_FORMAT_VERSION_KNOW && h[4] != TRZ_FORMAT_VERSION_CHAIN &&
        h[4] != TRZ_FORMAT_VERSION_PLACED)
        return TRZ_ERR_VERSION;
    size_t plen = trz_ld_le16(h + 22);
    if (plen > TRZ_MAX_PARAMS) return TRZ_ERR_LIMIT;
    *len = TRZ_FILE_HDR_FIXED + plen + 4;
    if (n < *len) return TRZ_ERR_TRUNCATED;
    if (trz_ld_le32(h + TRZ_FILE_HDR_FIXED + plen) != trz_xxh32low(h, TRZ_FILE_HDR_FIXED + plen)) return TRZ_ERR_CORRUPT;
    const trz_codec *c = trz_codec_by_id(h[5]);
    if (!c) return TRZ_ERR_UNSUPPORTED;
    int placed = h[4] == TRZ_FORMAT_VERSION_PLACED;
    /* version 5's flags: knowledge or chains, parity and LZMA2; knowledge and
     * chains both, and the other bits, are for a later version (its members
     * are refused as a newer format's) */
    if (placed && h[7] & ~(TRZ_MODE_KNOW | TRZ_MODE_CHAIN | TRZ_MODE_PARITY | TRZ_MODE_XZ)) return TRZ_ERR_VERSION;
    if (placed && (h[7] & (TRZ_MODE_KNOW | TRZ_MODE_CHAIN)) == (TRZ_MODE_KNOW | TRZ_MODE_CHAIN)) return TRZ_ERR_VERSION;
    if (h[6] > TRZ_BO_BIG || (!placed && h[7] != 0) || trz_ld_le32(h + 8) != c->record_size) return TRZ_ERR_CORRUPT;
    f->codec = h[5];
    f->byte_order = h[6];
    f->record_size = c->record_size;
    f->chunk_bytes = trz_ld_le32(h + 16);
    f->level = h[20];
    f->backend = h[21];
    f->wrap = 0;
    f->know = h[4] == TRZ_FORMAT_VERSION_KNOW || (placed && (h[7] & TRZ_MODE_KNOW));
    f->chain = h[4] == TRZ_FORMAT_VERSION_CHAIN || (placed && (h[7] & TRZ_MODE_CHAIN));
    f->placed = (uint8_t)placed;
    f->parity = placed && (h[7] & TRZ_MODE_PARITY);
    f->xz = placed && (h[7] & TRZ_MODE_XZ);
    f->restore_kind = 0;
    f->restore_size = 0;
    return parse_params(h + TRZ_FILE_HDR_FIXED, plen, f);
}

int trz_magic_match(const uint8_t *p)
{
    int k = 0;
    for (int i = 0; i < 4; i++) k += p[i] == trz_file_magic[i];
    return k;
}
