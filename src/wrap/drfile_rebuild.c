/* drfile_rebuild.c - the drmemtrace file layer's recipe (drfile.md;
 * FORMAT.md, "Restore block"): its operations' bytes, and the rebuilder,
 * records in and a stream's original bytes out (deflate by zlib, or by
 * trz's GNU gzip and Info-ZIP encoder in gzdeflate.c; lz4 frames; snappy
 * chunks).  The same code checks a stream at compression time and
 * rebuilds it at restore time, so what was checked is what comes back. */
#include <snappy-c.h>
#include <stdlib.h>
#include <string.h>

#include "drfile_int.h"

/* ---- recipe operations (drop, drfile_int.h) ---- */
/* An operation's header (all but a bytes operation's bytes) into b. */
size_t drf_op_put(const drop *o, uint8_t *b)
{
    trz_buf t = { b, 0, 64, 0 };
    trz_put_u8(&t, o->code);
    switch (o->code) {
    case OP_BYTES: trz_put_uvarint(&t, o->n_out); trz_put_uvarint(&t, o->n_in); break;
    case OP_COPY: trz_put_uvarint(&t, o->n_in); break;
    case OP_DEFLATE:
        trz_put_bytes(&t, o->p, 4);
        trz_put_uvarint(&t, o->n_in);
        trz_put_uvarint(&t, o->n_out);
        trz_put_le32(&t, o->check);
        break;
    case OP_LZ4:
        trz_put_bytes(&t, o->p, 3);
        trz_put_uvarint(&t, o->feed);
        trz_put_uvarint(&t, o->n_in);
        trz_put_uvarint(&t, o->n_out);
        trz_put_le32(&t, o->check);
        break;
    case OP_GZDEF:
        trz_put_bytes(&t, o->p, 2);
        trz_put_uvarint(&t, o->n_in);
        trz_put_uvarint(&t, o->n_out);
        trz_put_le32(&t, o->check);
        break;
    case OP_SNAPPY:
        trz_put_u8(&t, o->p[0]);
        trz_put_uvarint(&t, o->block);
        trz_put_uvarint(&t, o->count);
        trz_put_uvarint(&t, o->n_out);
        trz_put_le32(&t, o->check);
        break;
    }
    return t.n;
}

/* Parse an operation's header from the k bytes at b: its length, or 0 when
 * damaged, or -1 for an operation this version does not know. */
int drf_op_get(const uint8_t *b, size_t k, drop *o)
{
    trz_rd r;
    trz_rd_init(&r, b, k);
    memset(o, 0, sizeof *o);
    o->code = trz_get_u8(&r);
    switch (o->code) {
    case OP_BYTES: o->n_out = trz_get_uvarint(&r); o->n_in = trz_get_uvarint(&r); break;
    case OP_COPY: o->n_in = o->n_out = trz_get_uvarint(&r); break;
    case OP_DEFLATE:
        for (int i = 0; i < 4; i++) o->p[i] = trz_get_u8(&r);
        o->n_in = trz_get_uvarint(&r);
        o->n_out = trz_get_uvarint(&r);
        o->check = trz_get_le32(&r);
        if (o->p[0] < 1 || o->p[0] > 9 || o->p[1] < 9 || o->p[1] > 15 || o->p[2] < 1 || o->p[2] > 9 || o->p[3] > 4)
            return 0;
        break;
    case OP_LZ4:
        for (int i = 0; i < 3; i++) o->p[i] = trz_get_u8(&r);
        o->feed = trz_get_uvarint(&r);
        o->n_in = trz_get_uvarint(&r);
        o->n_out = trz_get_uvarint(&r);
        o->check = trz_get_le32(&r);
        /* FLG: version 01, no dictionary, reserved bit clear; BD: a block size 4..7, reserved bits clear */
        if ((o->p[1] & 0xc3) != 0x40 || (o->p[2] & 0x8f) || (o->p[2] >> 4) < 4 || o->feed < 1 || o->feed > (8u << 20))
            return 0;
        break;
    case OP_GZDEF:
        o->p[0] = trz_get_u8(&r);
        o->p[1] = trz_get_u8(&r);
        o->n_in = trz_get_uvarint(&r);
        o->n_out = trz_get_uvarint(&r);
        o->check = trz_get_le32(&r);
        if (r.err) return 0;
        if (o->p[0] >= GZD_FLAVOURS) return -1; /* an encoder a newer trz knows */
        if (o->p[1] < 1 || o->p[1] > 9) return 0;
        break;
    case OP_SNAPPY:
        o->p[0] = trz_get_u8(&r);
        o->block = trz_get_uvarint(&r);
        o->count = trz_get_uvarint(&r);
        o->n_out = trz_get_uvarint(&r);
        o->check = trz_get_le32(&r);
        if (o->p[0] > 1 || o->block < 1 || o->block > SNAPPY_BLOCK_MAX || o->count < 1 ||
            o->count > UINT64_MAX / o->block)
            return 0;
        o->n_in = o->block * o->count;
        break;
    default: return -1;
    }
    return r.err ? 0 : (int)(r.p - b);
}

/* ---- the rebuilder (drrb, drfile_int.h) ---- */
static int rb_emit(drrb *b, const uint8_t *p, size_t n)
{
    if (b->stop) return -1;
    if (!n) return 0;
    XXH3_64bits_update(b->h, p, n);
    b->made += n;
    if (b->sink(b->sctx, p, n)) b->stop = 1;
    return b->stop ? -1 : 0;
}

static void lz4_prefs(const drop *o, LZ4F_preferences_t *pr)
{
    memset(pr, 0, sizeof *pr);
    pr->frameInfo.blockSizeID = (LZ4F_blockSizeID_t)(o->p[2] >> 4);
    pr->frameInfo.blockMode = (o->p[1] & 0x20) ? LZ4F_blockIndependent : LZ4F_blockLinked;
    pr->frameInfo.blockChecksumFlag = (o->p[1] & 0x10) ? LZ4F_blockChecksumEnabled : LZ4F_noBlockChecksum;
    pr->frameInfo.contentSize = (o->p[1] & 0x08) ? o->n_in : 0;
    pr->frameInfo.contentChecksumFlag = (o->p[1] & 0x04) ? LZ4F_contentChecksumEnabled : LZ4F_noContentChecksum;
    pr->compressionLevel = (int8_t)o->p[0];
}

void drf_rb_free(drrb *b)
{
    if (b->zinit) deflateEnd(&b->z);
    if (b->lc) LZ4F_freeCompressionContext(b->lc);
    drf_gzd_free(b->gz);
    if (b->h) XXH3_freeState(b->h);
    free(b->in);
    free(b->out);
    memset(b, 0, sizeof *b);
}

static int gz_sink(void *ctx, const uint8_t *p, size_t n) { return rb_emit(ctx, p, n); }

int drf_rb_start(drrb *b, const drop *o, drsink sink, void *ctx)
{
    memset(b, 0, sizeof *b);
    b->op = *o;
    b->sink = sink;
    b->sctx = ctx;
    if (!(b->h = XXH3_createState()) || XXH3_64bits_reset(b->h) != XXH_OK) return TRZ_ERR_NOMEM;
    if (o->code == OP_DEFLATE) {
        b->outcap = 1u << 16;
        if (!(b->out = malloc(b->outcap))) return TRZ_ERR_NOMEM;
        if (deflateInit2(&b->z, o->p[0], Z_DEFLATED, -(int)o->p[1], o->p[2], o->p[3]) != Z_OK) return TRZ_ERR_NOMEM;
        b->zinit = 1;
        return TRZ_OK;
    }
    if (o->code == OP_GZDEF) return (b->gz = drf_gzd_new(o->p[1], o->p[0], gz_sink, b)) ? TRZ_OK : TRZ_ERR_NOMEM;
    if (o->code == OP_LZ4) {
        LZ4F_preferences_t pr;
        lz4_prefs(o, &pr);
        if (LZ4F_isError(LZ4F_createCompressionContext(&b->lc, LZ4F_VERSION))) return TRZ_ERR_NOMEM;
        b->outcap = LZ4F_compressBound((size_t)o->feed, &pr) + LZ4F_HEADER_SIZE_MAX;
        if (!(b->in = malloc((size_t)o->feed)) || !(b->out = malloc(b->outcap))) return TRZ_ERR_NOMEM;
        size_t r = LZ4F_compressBegin(b->lc, b->out, b->outcap, &pr);
        if (LZ4F_isError(r)) { b->fail = 1; return TRZ_OK; } /* settings liblz4 refuses: no match */
        rb_emit(b, b->out, r);
        return TRZ_OK;
    }
    b->outcap = snappy_max_compressed_length((size_t)o->block) + 8;
    if (!(b->in = malloc((size_t)o->block)) || !(b->out = malloc(b->outcap))) return TRZ_ERR_NOMEM;
    return TRZ_OK;
}

/* One snappy framing chunk of the gathered block: compressed when that is
 * shorter, as DynamoRIO's writer decides. */
static void rb_snappy_chunk(drrb *b)
{
    size_t n = b->in_len, clen = b->outcap - 8, crc = b->op.p[0] ? 4 : 0;
    uint8_t h[8];
    if (snappy_compress((const char *)b->in, n, (char *)b->out + 8, &clen) != SNAPPY_OK) { b->fail = 1; return; }
    int packed = clen < n;
    size_t dlen = packed ? clen : n;
    uint32_t type = (packed ? 0 : 1) + (crc ? 0 : 2);
    trz_st_le32(h, (uint32_t)((dlen + crc) << 8) | type); /* the type, then the 24-bit length */
    if (crc) trz_st_le32(h + 4, snappy_mask(drf_crc32c(b->in, n)));
    if (rb_emit(b, h, 4 + crc) == 0) rb_emit(b, packed ? b->out + 8 : b->in, dlen);
    b->in_len = 0;
}

int drf_rb_feed(drrb *b, const uint8_t *p, size_t n)
{
    b->fed += n;
    if (b->op.code == OP_GZDEF && n && !b->stop) drf_gzd_feed(b->gz, p, n);
    while (n && !b->stop && !b->fail && b->op.code != OP_GZDEF) {
        if (b->op.code == OP_DEFLATE) {
            b->z.next_in = (Bytef *)p;
            b->z.avail_in = (uInt)MIN(n, 1u << 30);
            size_t given = b->z.avail_in;
            while (b->z.avail_in && !b->stop) {
                b->z.next_out = b->out;
                b->z.avail_out = (uInt)b->outcap;
                if (deflate(&b->z, Z_NO_FLUSH) == Z_STREAM_ERROR) { b->fail = 1; break; }
                rb_emit(b, b->out, b->outcap - b->z.avail_out);
            }
            p += given;
            n -= given;
            continue;
        }
        size_t want = (size_t)(b->op.code == OP_LZ4 ? b->op.feed : b->op.block);
        size_t k = MIN(n, want - b->in_len);
        memcpy(b->in + b->in_len, p, k);
        b->in_len += k;
        p += k;
        n -= k;
        if (b->in_len < want) break;
        if (b->op.code == OP_SNAPPY) {
            rb_snappy_chunk(b);
            continue;
        }
        size_t r = LZ4F_compressUpdate(b->lc, b->out, b->outcap, b->in, b->in_len, NULL);
        b->in_len = 0;
        if (LZ4F_isError(r)) b->fail = 1;
        else rb_emit(b, b->out, r);
    }
    return b->stop || b->fail ? -1 : 0;
}

/* The stream's last bytes; 0 when it came out whole. */
int drf_rb_finish(drrb *b)
{
    if (b->stop || b->fail) return -1;
    if (b->op.code == OP_GZDEF) {
        drf_gzd_finish(b->gz);
    } else if (b->op.code == OP_DEFLATE) {
        int rc;
        do {
            b->z.next_out = b->out;
            b->z.avail_out = (uInt)b->outcap;
            rc = deflate(&b->z, Z_FINISH);
            if (rc == Z_STREAM_ERROR) { b->fail = 1; break; }
            rb_emit(b, b->out, b->outcap - b->z.avail_out);
        } while (rc == Z_OK && !b->stop);
    } else if (b->op.code == OP_LZ4) {
        size_t r = b->in_len ? LZ4F_compressUpdate(b->lc, b->out, b->outcap, b->in, b->in_len, NULL) : 0;
        if (LZ4F_isError(r)) b->fail = 1;
        else if (rb_emit(b, b->out, r) == 0) {
            r = LZ4F_compressEnd(b->lc, b->out, b->outcap, NULL);
            if (LZ4F_isError(r)) b->fail = 1;
            else rb_emit(b, b->out, r);
        }
    } else if (b->in_len) {
        b->fail = 1; /* a snappy run is whole blocks */
    }
    return b->stop || b->fail ? -1 : 0;
}
