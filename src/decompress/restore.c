/* restore.c - the way back to the original file: a member's restore block
 * (FORMAT.md, "Restore block") read and checked, and its body run by the
 * drmemtrace file layer over the member's records, so that a .trace.zip
 * (or .gz, .lz4, .sz) comes back byte for byte.  The records themselves
 * are what every other reading function hands out. */
#include <errno.h>

#include "../wrap/drfile.h"
#include "reader.h"

/* A window of the archive: the block's body, read with seeks of its own
 * so that the reader's reads, which seek too, go on undisturbed. */
typedef struct window {
    const trz_io *io;
    uint64_t off, len, pos;
} window;

static int64_t win_read(void *o, void *b, size_t n)
{
    window *w = o;
    if (n > w->len - w->pos) n = (size_t)(w->len - w->pos);
    if (!n) return 0;
    if (w->io->seek(w->io->opaque, w->off + w->pos) != 0) return -1;
    int64_t k = w->io->read(w->io->opaque, b, n);
    if (k > 0) w->pos += (uint64_t)k;
    return k;
}

static int win_seek(void *o, uint64_t p)
{
    window *w = o;
    if (p > w->len) return -1;
    w->pos = p;
    return 0;
}

static int64_t win_size(void *o) { return (int64_t)((window *)o)->len; }

typedef struct block {
    trz_restore_hdr h;
    uint64_t body_len;
    uint32_t check; /* the body's, from the block's last 4 bytes */
    trz_io body;
    window w;
    trz_memio m;
    char note[80]; /* why the block is not restored, for listings: a newer trz wrote it, or several members hold one each */
} block;

/* A block a newer trz wrote (a block version, or a container this trz
 * does not know): refused, saying so, with the records still readable;
 * b->note says it for trz_reader_container. */
static int newer(trz_reader *r, block *b, const char *what, unsigned v)
{
    snprintf(b->note, sizeof b->note, "%s %u unknown (newer trz)", what, v);
    return rd_err(r, TRZ_ERR_UNSUPPORTED, "%s %u: written by a newer trz", what, v);
}

/* The first member's block: header parsed and checked, body ready to read. */
static int block_open(trz_reader *r, block *b)
{
    memset(b, 0, sizeof *b);
    if (!r->restore_blocks)
        return rd_err(r, TRZ_ERR_PARAM, "the archive keeps no original file to restore (it holds the trace only)");
    if (r->restore_blocks > 1 || (r->seekable && r->members > 1) || !r->restore_size) {
        snprintf(b->note, sizeof b->note, "%llu members, each restores from an archive of its own",
                 (unsigned long long)(r->members > 1 ? r->members : (uint64_t)r->restore_blocks));
        return rd_err(r, TRZ_ERR_UNSUPPORTED, "the archive has several members; only an archive of one file restores "
                      "it (trz -dc gives the records)");
    }
    /* before the block: what a container's block holds is that container's */
    if (!trz_drfile_name(r->restore_kind)) return newer(r, b, "restore container", (unsigned)r->restore_kind);
    uint8_t hb[TRZ_RESTORE_HDR], t[4];
    b->body_len = r->restore_size - TRZ_RESTORE_MIN;
    if (r->restore_buf) {
        memcpy(hb, r->restore_buf, sizeof hb);
        memcpy(t, r->restore_buf + r->restore_size - 4, 4);
        b->m.p = r->restore_buf + TRZ_RESTORE_HDR;
        b->m.n = (size_t)b->body_len;
        trz_io_mem(&b->body, &b->m);
    } else if (r->seekable) {
        if (rd_read_at(r, r->restore_off, hb, sizeof hb) || rd_read_at(r, r->restore_off + r->restore_size - 4, t, 4))
            return rd_err(r, TRZ_ERR_IO, "reading the restore block: %s", strerror(errno));
        b->w = (window){ &r->io, r->restore_off + TRZ_RESTORE_HDR, b->body_len, 0 };
        b->body = (trz_io){ &b->w, win_read, NULL, win_seek, win_size };
    } else {
        return rd_err(r, TRZ_ERR_UNSUPPORTED, "the restore data is larger than %u MiB: restoring the original file "
                      "needs the archive as a file, not a pipe", RESTORE_MEM_MAX >> 20);
    }
    b->check = trz_ld_le32(t);
    int rc = trz_restore_hdr_parse(hb, &b->h);
    if (rc == TRZ_ERR_UNSUPPORTED) return newer(r, b, "restore block version", hb[4]);
    if (rc || b->h.kind != r->restore_kind)
        return rd_err(r, TRZ_ERR_CORRUPT, "damaged restore block at byte %llu", (unsigned long long)r->restore_off);
    if (r->seekable && b->h.records != r->total_bytes)
        return rd_err(r, TRZ_ERR_CORRUPT, "damaged restore block at byte %llu: it is for %llu bytes of records, the "
                      "member has %llu", (unsigned long long)r->restore_off, (unsigned long long)b->h.records,
                      (unsigned long long)r->total_bytes);
    return TRZ_OK;
}

/* The body against its check, read through once. */
static int block_check(trz_reader *r, block *b)
{
    XXH3_state_t *h = XXH3_createState();
    uint8_t *buf = malloc(1u << 16);
    int rc = h && buf ? TRZ_OK : rd_err(r, TRZ_ERR_NOMEM, "out of memory");
    if (h) XXH3_64bits_reset(h);
    uint64_t left = b->body_len;
    if (!rc && b->body.seek(b->body.opaque, 0)) rc = rd_err(r, TRZ_ERR_IO, "seek failed");
    while (!rc && left) {
        int64_t k = b->body.read(b->body.opaque, buf, left < (1u << 16) ? (size_t)left : 1u << 16);
        if (k <= 0) rc = rd_err(r, k < 0 ? TRZ_ERR_IO : TRZ_ERR_TRUNCATED, "reading the restore block: %s",
                                k < 0 ? strerror(errno) : "cut short");
        else XXH3_64bits_update(h, buf, (size_t)k), left -= (uint64_t)k;
    }
    if (!rc && (uint32_t)XXH3_64bits_digest(h) != b->check)
        rc = rd_err(r, TRZ_ERR_CHECKSUM, "damaged restore block at byte %llu (its check does not match)",
                    (unsigned long long)r->restore_off);
    if (!rc && b->body.seek(b->body.opaque, 0)) rc = rd_err(r, TRZ_ERR_IO, "seek failed");
    if (h) XXH3_freeState(h);
    free(buf);
    return rc;
}

int trz_reader_container(trz_reader *r, trz_container_info *ci)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!ci) return rd_err(r, TRZ_ERR_PARAM, "trz_reader_container: info is NULL");
    memset(ci, 0, sizeof *ci);
    if (!r->restore_blocks) return TRZ_OK;
    ci->kind = trz_drfile_name(r->restore_kind);
    if (!ci->kind) ci->kind = "unknown";
    ci->suffix = trz_drfile_suffix(r->restore_kind);
    block b;
    int rc = block_open(r, &b);
    if (rc) {
        snprintf(ci->how, sizeof ci->how, "%s", b.note);
        return rc;
    }
    ci->size = b.h.size;
    rc = trz_drfile_describe(&b.body, b.body_len, b.h.kind, ci->how, sizeof ci->how, &ci->kept);
    if (rc == TRZ_ERR_UNSUPPORTED) return rd_err(r, rc, "the restore data uses steps a newer trz wrote");
    if (rc) return rd_err(r, rc, "damaged restore block at byte %llu", (unsigned long long)r->restore_off);
    return TRZ_OK;
}

typedef struct viewer {
    trz_reader *r;
    int failed;
} viewer;

static int64_t view(void *ctx, const void **p, size_t max)
{
    viewer *v = ctx;
    int64_t g = trz_read_view(v->r, p, max);
    if (g < 0) v->failed = 1;
    return g;
}

int trz_restore(trz_reader *r, const trz_io *out)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!out || !out->write)
        return rd_err(r, TRZ_ERR_PARAM, "%s", out ? "the output has no write function (trz_io.write is NULL)"
                                                  : "the output is NULL");
    block b;
    int rc = block_open(r, &b);
    if (!rc) rc = block_check(r, &b);
    if (rc) return rc;
    if (r->seekable) rc = trz_seek(r, 0);
    else if (trz_tell(r) != 0) rc = rd_err(r, TRZ_ERR_UNSUPPORTED, "restoring needs the records from the start");
    if (rc) return rc;
    viewer v = { r, 0 };
    char msg[256];
    rc = trz_drfile_restore(&b.body, b.body_len, b.h.size, b.h.hash, b.h.records, view, &v, out, msg, sizeof msg);
    if (rc && !v.failed) rd_err(r, rc, "%s", msg); /* else the reader's own message names the chunk */
    return rc;
}
