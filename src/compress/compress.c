/* compress.c - trz_compress: everything an input yields, unwrapped first
 * when it is compressed (src/wrap/unwrap.c), into one archive member,
 * through the writer (its input read straight into the writer's pending
 * buffer).  A container of the drmemtrace file layer (src/wrap/drfile.c)
 * read from a file takes two passes: the first finds its records and how
 * to rebuild the file from them (checking every rebuilt byte), the second
 * stores the records after a restore block that holds the recipe. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../wrap/drfile.h"
#include "../wrap/unwrap.h"
#include "../common/safefile.h"
#include "writer.h"

/* The restore block: its header, the plan's body, the body's check. */
typedef struct block_job {
    trz_cctx *c;
    const trz_drplan *plan;
    const trz_io *in;
    int kind;
    uint64_t size, hash, records, body;
    XXH3_state_t *h;
    int (*emit)(void *, const void *, size_t);
    void *ectx;
} block_job;

static int body_emit(void *ctx, const void *p, size_t n)
{
    block_job *b = ctx;
    XXH3_64bits_update(b->h, p, n);
    return b->emit(b->ectx, p, n);
}

static int write_block(void *ctx, int (*emit)(void *, const void *, size_t), void *ectx)
{
    block_job *b = ctx;
    uint8_t h[TRZ_RESTORE_HDR], t[4];
    const trz_restore_hdr rh = { (uint8_t)b->kind, b->size, b->hash, b->records };
    trz_restore_hdr_write(h, &rh);
    if (emit(ectx, h, sizeof h)) return -1;
    b->emit = emit;
    b->ectx = ectx;
    XXH3_64bits_reset(b->h);
    int rc = trz_drplan_write(b->plan, b->in, body_emit, b);
    if (rc) {
        if (rc != TRZ_ERR_IO || !errno) snprintf(b->c->err, sizeof b->c->err, "restore block: %s", trz_strerror(rc));
        return -1;
    }
    trz_st_le32(t, (uint32_t)XXH3_64bits_digest(b->h));
    return emit(ectx, t, 4);
}

/* The first bytes of a seekable input, and the container they name. */
static int sniff_container(const trz_io *in)
{
    uint8_t head[1u << 16];
    size_t n = 0;
    while (n < sizeof head) {
        int64_t r = in->read(in->opaque, head + n, sizeof head - n);
        if (r <= 0) break;
        n += (size_t)r;
    }
    if (in->seek(in->opaque, 0) != 0) return -1;
    return trz_drfile_kind(head, n);
}

/* The member of a container: its restore block (the plan's body), then its
 * records, read again and checked against the plan's pass. */
static int container_member(trz_cctx *c, const trz_io *in, const trz_io *out, int kind, const trz_drplan *plan)
{
    block_job b = { .c = c, .in = in, .kind = kind };
    int rc;
    uint64_t rhash;
    trz_drplan_totals(plan, &b.size, &b.hash, &b.records, &rhash, &b.body);
    b.plan = plan;
    b.h = XXH3_createState();
    trz_drsrc *s = b.h && in->seek(in->opaque, 0) == 0 ? trz_drsrc_open(kind, in, NULL, NULL) : NULL;
    trz_writer *w = NULL;
    rc = s ? trz_writer_open_shared(&w, c, out, kind) : TRZ_ERR_NOMEM;
    if (rc == TRZ_OK) trz_writer_set_restore(w, kind, TRZ_RESTORE_MIN + b.body, write_block, &b);
    while (rc == TRZ_OK) {
        uint8_t *p;
        size_t room = trz_writer_room(w, &p);
        int64_t got = trz_drsrc_read(s, p, room);
        if (got < 0) {
            rc = (int)got;
            snprintf(c->err, sizeof c->err, "reading the %s file: %s", trz_drfile_name(kind),
                     rc == TRZ_ERR_IO ? strerror(errno) : trz_strerror(rc));
            break;
        }
        if ((size_t)got < room) { /* the end: the same file and records as the first pass saw */
            uint64_t size, hash, rec, rh;
            int lossy;
            trz_drsrc_totals(s, &size, &hash, &rec, &rh, &lossy);
            if (size != b.size || hash != b.hash || rec != b.records || rh != rhash) {
                rc = TRZ_ERR_IO;
                snprintf(c->err, sizeof c->err, "the input changed while trz was reading it");
                break;
            }
        }
        rc = trz_writer_commit(w, (size_t)got);
        if ((size_t)got < room) break;
    }
    if (rc == TRZ_OK) rc = trz_writer_finish(w);
    trz_writer_close(w);
    if (rc == TRZ_ERR_NOMEM && !c->err[0]) snprintf(c->err, sizeof c->err, "out of memory");
    trz_drsrc_close(s);
    if (b.h) XXH3_freeState(b.h);
    return rc;
}

/* The most an archive of n bytes stored as they are takes (FORMAT.md,
 * container version 5): the file header (28 bytes), the index's head (8),
 * its member hash (8) and the footer (24), and per chunk its header with
 * its place and one stream (62) and its index entry (40). */
static uint64_t stored_bound(uint64_t n, uint64_t chunk)
{
    return n + 68 + 102 * ((n + chunk - 1) / chunk);
}

/* Output counted on its way (to nowhere for a dry run). */
typedef struct counter {
    const trz_io *io;
    uint64_t n;
} counter;

static int64_t count_write(void *o, const void *b, size_t n)
{
    counter *k = o;
    int64_t r = k->io ? k->io->write(k->io->opaque, b, n) : (int64_t)n;
    if (r > 0) k->n += (uint64_t)r;
    return r;
}

static int compress_plain(trz_cctx *c, const trz_io *in, const trz_io *out, int unwrap);

/* A container read from a file: its records and what rebuilds the file.
 * Streams no setting rebuilds are kept as they are beside the records;
 * when that would make the archive larger than the file stored as it is
 * (measured by a dry run, which costs a second compression), the file is
 * stored as it is instead, so that no archive outgrows stored_bound. */
static int compress_container(trz_cctx *c, const trz_io *in, const trz_io *out, int kind)
{
    trz_drplan *plan = NULL;
    int rc = trz_drplan_make(&plan, in, kind, c->threads, c->err, sizeof c->err);
    if (rc) { trz_drplan_free(plan); return rc; }
    uint64_t size, hash, rec, rhash, body, kept, kept_rec;
    trz_drplan_totals(plan, &size, &hash, &rec, &rhash, &body);
    trz_drplan_kept(plan, &kept, &kept_rec);
    uint64_t bound = stored_bound(size, c->chunk_bytes);
    const char *what = trz_drfile_name(kind);
    if (kept) {
        counter dry = { NULL, 0 };
        trz_io dio = { &dry, NULL, count_write, NULL, NULL };
        trz_progress_fn pf = c->progress;
        c->progress = NULL;
        rc = container_member(c, in, &dio, kind, plan);
        c->progress = pf;
        if (rc) { trz_drplan_free(plan); return rc; }
        if (dry.n > bound) {
            uint64_t alone = dry.n - (TRZ_RESTORE_MIN + body) - 11; /* without the block and parameter 2 */
            trz_drplan_free(plan);
            const trz_codec *forced = c->forced;
            c->forced = trz_codec_by_name("raw");
            rc = in->seek(in->opaque, 0) == 0 ? compress_plain(c, in, out, 0) : TRZ_ERR_IO;
            c->forced = forced;
            if (rc == TRZ_ERR_IO && !c->err[0]) snprintf(c->err, sizeof c->err, "read: seek failed: %s", strerror(errno));
            snprintf(c->warn, sizeof c->warn, "the %s file is stored as it is: %llu bytes of its streams are not "
                     "ones trz rebuilds, and keeping them beside the records would make %llu bytes; the records "
                     "alone would make about %llu", what, (unsigned long long)kept, (unsigned long long)dry.n,
                     (unsigned long long)alone);
            return rc;
        }
        snprintf(c->warn, sizeof c->warn, "%llu bytes of the %s file's streams are kept as they are (not ones trz "
                 "rebuilds), beside the records", (unsigned long long)kept, what);
    }
    counter real = { out, 0 };
    trz_io rio = { &real, NULL, count_write, NULL, NULL };
    rc = container_member(c, in, &rio, kind, plan);
    trz_drplan_free(plan);
    if (!rc && real.n > bound) /* the records coded in more bytes than the streams they were in */
        snprintf(c->warn, sizeof c->warn, "the archive (%llu bytes) is larger than the %s file (%llu bytes)",
                 (unsigned long long)real.n, what, (unsigned long long)size);
    return rc;
}

/* The input needs read (seek and size only for what can seek), the
 * output write: anything else is refused before a byte moves. */
static int io_check(trz_cctx *c, const trz_io *in, const trz_io *out)
{
    const char *why = !in ? "the input is NULL" : !in->read ? "the input has no read function (trz_io.read is NULL)"
                    : !out ? "the output is NULL" : !out->write ? "the output has no write function (trz_io.write is NULL)"
                    : NULL;
    if (!why) return TRZ_OK;
    snprintf(c->err, sizeof c->err, "%s", why);
    return TRZ_ERR_PARAM;
}

int trz_compress(trz_cctx *c, const trz_io *in, const trz_io *out)
{
    if (!c) return TRZ_ERR_PARAM;
    c->chosen = c->detected = NULL;
    c->err[0] = c->warn[0] = 0;
    if (io_check(c, in, out)) return TRZ_ERR_PARAM;
    if (c->unwrap && in->seek && in->size) {
        int kind = sniff_container(in);
        if (kind < 0) {
            snprintf(c->err, sizeof c->err, "read: seek failed: %s", strerror(errno));
            return TRZ_ERR_IO;
        }
        c->wrap = kind;
        if (kind && c->unwrap == 1) return compress_container(c, in, out, kind);
    }
    return compress_plain(c, in, out, c->unwrap != 0);
}

/* Everything the input yields (unwrapped when asked) into one member. */
static int compress_plain(trz_cctx *c, const trz_io *in, const trz_io *out, int unwrap)
{
    trz_src src;
    c->chosen = c->detected = NULL;
    int rc = trz_src_open(&src, in, unwrap);
    c->wrap = src.wrap;
    if (rc) {
        snprintf(c->err, sizeof c->err, "read: %s", trz_strerror(rc));
        trz_src_close(&src);
        return rc;
    }
    trz_writer *w;
    rc = trz_writer_open_shared(&w, c, out, src.wrap);
    while (rc == TRZ_OK) {
        uint8_t *p;
        size_t room = trz_writer_room(w, &p);
        int64_t got = trz_src_read(&src, p, room);
        if (got < 0) {
            rc = (int)got;
            snprintf(c->err, sizeof c->err, "%s: %s", src.kind ? "reading compressed input" : "read",
                     src.why ? src.why : rc == TRZ_ERR_IO ? strerror(errno) : trz_strerror(rc));
            break;
        }
        rc = trz_writer_commit(w, (size_t)got);
        if ((size_t)got < room) break; /* the input ended */
    }
    if (rc == TRZ_OK) rc = trz_writer_finish(w);
    trz_writer_close(w);
    trz_src_close(&src);
    return rc;
}

int trz_compress_path(trz_cctx *c, const char *in, const char *out)
{
    if (!c) return TRZ_ERR_PARAM;
    if (!in || !out) {
        snprintf(c->err, sizeof c->err, "the %s path is NULL", in ? "output" : "input");
        return TRZ_ERR_PARAM;
    }
    int ifd = open(in, O_RDONLY);
    if (ifd < 0) {
        snprintf(c->err, sizeof c->err, "%s: %s", in, strerror(errno));
        return TRZ_ERR_IO;
    }
    trz_outfile of;
    int rc = trz_path_out(&of, ifd, out);
    if (rc) {
        snprintf(c->err, sizeof c->err, "%s: %s", out, of.why ? of.why : strerror(errno));
        close(ifd);
        return rc;
    }
    trz_io i, o;
    int ofd = of.fd;
    trz_io_fd(&i, &ifd);
    trz_io_fd(&o, &ofd);
    rc = trz_compress(c, &i, &o);
    close(ifd);
    if (rc) trz_outfile_abort(&of);
    else if (trz_outfile_commit(&of, 1, 0) != 0) {
        snprintf(c->err, sizeof c->err, "%s: %s", out, strerror(errno));
        rc = TRZ_ERR_IO;
    }
    return rc;
}
