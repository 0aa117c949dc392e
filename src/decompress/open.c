/* open.c - the decompress room: trz_reader from open to close.  A reader
 * decodes .trz archives sequentially from any input (pipes included), or
 * through the index when the input can seek, so that a seek decodes only
 * the chunk holding the record; concatenated members are one archive.
 * Every size is checked before use and every chunk's XXH3 and counts
 * before its bytes are handed out.  The room's files, from the top down,
 * each calling only files below it: open.c (open, settings, info, close)
 * and restore.c (the original file rebuilt); records.c (handing out bytes
 * and records, trz_seek); ahead.c (the chunk queue and decode-ahead
 * threads); sequential.c (reading without an index) and seek.c (the
 * index); salvage.c (reading past damage); knowledge.c (carried
 * knowledge) and chain.c (chains: a group's chunks decoded in order, from
 * the group's start after a seek); fetch.c (a chunk fetched through the
 * index, mended from its parity when damaged); base.c (errors, the raw
 * input, member headers).  reader.h holds what they share. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "../wrap/unwrap.h"
#include "reader.h"

const char *trz_reader_error(const trz_reader *r) { return r ? r->err : "out of memory"; }

int trz_reader_fail(trz_reader *r, int rc, const char *msg) { return rd_err(r, rc, "%s", msg); }

/* ---- open / close ---- */
static int open_common(trz_reader *r)
{
    r->threads = 1;
    r->opened = 1;
    int rc = TRZ_ERR_UNSUPPORTED;
    if (r->io.seek && r->io.size) {
        rc = rd_load_index(r);
        /* the first bytes must be a trz header in any case */
        if (rc && rc != TRZ_ERR_IO && rc != TRZ_ERR_NOMEM) {
            uint8_t m[4] = { 0 };
            if (rd_read_at(r, 0, m, 4) == TRZ_OK && memcmp(m, trz_file_magic, 4) != 0) {
                /* most of the magic, or a footer at the end: an archive whose first bytes are damaged */
                uint8_t t[4] = { 0 };
                int near = trz_magic_match(m) >= 3;
                int footer = r->file_size >= 4 && rd_read_at(r, r->file_size - 4, t, 4) == TRZ_OK &&
                             memcmp(t, trz_footer_magic, 4) == 0;
                if (rd_read_at(r, 0, m, 4) != TRZ_OK) return rd_err(r, TRZ_ERR_IO, "read error: %s", strerror(errno));
                /* salvage may still find chunks after a damaged magic */
                if (rd_push_back(r, m + 1, 3) == TRZ_OK) { r->open_damaged = 1; r->open_rc = TRZ_ERR_NOT_TRZ; r->open_at = 0; }
                if (near || footer) return rd_err(r, TRZ_ERR_CORRUPT, "damaged file header at byte 0 (bad magic)");
                return rd_err(r, TRZ_ERR_NOT_TRZ, "not a trz file");
            }
        }
        if (rc == TRZ_ERR_NOMEM) return rd_err(r, rc, "out of memory loading the index");
        if (rc == TRZ_ERR_IO) return rd_err(r, rc, "read error: %s", strerror(errno));
        if (rc) { /* damaged or missing index: decode sequentially, which says where */
            r->codec = NULL;
            if (r->io.seek(r->io.opaque, 0) != 0) return rd_err(r, TRZ_ERR_IO, "seek failed");
            r->spos = 0;
        }
    }
    if (rc == TRZ_OK) {
        if (r->nchunks == 0 && r->members == 0) return rd_err(r, TRZ_ERR_NOT_TRZ, "not a trz file");
        return TRZ_OK;
    }
    r->seekable = 0;
    return rd_seq_member_header(r, 1);
}

/* Read on without the index, from the first byte, as open does when the
 * index is damaged. */
static int drop_index(trz_reader *r)
{
    free(r->chunks);
    r->chunks = NULL;
    r->nchunks = r->members = r->total_records = r->total_bytes = 0;
    r->seekable = 0;
    r->codec = NULL;
    r->mixed = 0;
    r->restore_blocks = 0;
    r->restore_off = r->restore_size = 0;
    r->restore_kind = 0;
    r->look_pos = r->look_len = 0;
    if (r->io.seek(r->io.opaque, 0) != 0) return rd_err(r, TRZ_ERR_IO, "seek failed");
    r->spos = 0;
    return rd_seq_member_header(r, 1);
}

/* An open that failed before it had an input leaves the reader failed:
 * a read or a seek on it returns that result instead of reaching an input
 * that is not there.  (After other failures the input is there, and
 * salvage may take it up: trz_reader_set.) */
static int no_input(trz_reader *r, int rc)
{
    return r->failed = rc;
}

static trz_reader *alloc_reader(void)
{
    trz_reader *r = calloc(1, sizeof *r);
    if (r) {
        r->fd = -1;
        r->counts_ok = 1;
    }
    return r;
}

int trz_reader_open_io(trz_reader **out, const trz_io *io)
{
    if (!out) return TRZ_ERR_PARAM;
    trz_reader *r = *out = alloc_reader();
    if (!r) return TRZ_ERR_NOMEM;
    if (!io || !io->read) /* seek and size may be missing (a pipe), read may not */
        return no_input(r, rd_err(r, TRZ_ERR_PARAM, "%s", io ? "the input has no read function (trz_io.read is NULL)"
                                                         : "the input is NULL"));
    r->io = *io;
    return open_common(r);
}

int trz_reader_open_fd(trz_reader **out, int fd)
{
    if (!out) return TRZ_ERR_PARAM;
    trz_reader *r = *out = alloc_reader();
    if (!r) return TRZ_ERR_NOMEM;
    if (fd < 0) return no_input(r, rd_err(r, TRZ_ERR_PARAM, "bad file descriptor %d", fd));
    r->fd = fd;
    trz_io_fd(&r->io, &r->fd);
    return open_common(r);
}

int trz_reader_open_path(trz_reader **out, const char *path)
{
    if (!out) return TRZ_ERR_PARAM;
    trz_reader *r = *out = alloc_reader();
    if (!r) return TRZ_ERR_NOMEM;
    if (!path) return no_input(r, rd_err(r, TRZ_ERR_PARAM, "the path is NULL"));
    int fd = open(path, O_RDONLY);
    if (fd < 0) return no_input(r, rd_err(r, TRZ_ERR_IO, "%s", strerror(errno)));
    r->fd = fd;
    trz_io_fd(&r->io, &r->fd);
    r->opened = 2; /* owns fd */
    int keep = 2;
    int rc = open_common(r);
    r->opened = keep;
    return rc;
}

int trz_reader_open_mem(trz_reader **out, const void *data, size_t len)
{
    if (!out) return TRZ_ERR_PARAM;
    trz_reader *r = *out = alloc_reader();
    if (!r) return TRZ_ERR_NOMEM;
    if (!data && len) return no_input(r, rd_err(r, TRZ_ERR_PARAM, "the data is NULL (%zu bytes)", len));
    r->mem.p = data;
    r->mem.n = len;
    trz_io_mem(&r->io, &r->mem);
    return open_common(r);
}

void trz_reader_close(trz_reader *r)
{
    if (!r) return;
    rd_pool_stop(r);
    if (r->sync_ready) {
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->work_cv);
        pthread_cond_destroy(&r->done_cv);
    }
    rd_dchunk_free(&r->cur);
    for (size_t i = 0; i < MAXQ; i++) {
        rd_dchunk_free(&r->q[i]);
        trz_zctx_free(r->z[i]);
    }
    rd_know_free(r);
    rd_chain_free(r);
    if (r->opened == 2 && r->fd >= 0) close(r->fd);
    free(r->chunks);
    free(r->lost);
    free(r->lost_at);
    free(r->pos);
    free(r->seq_list);
    free(r->look);
    free(r->restore_buf);
    free(r->rep_seen);
    free(r);
    trz_big_trim(); /* the model tables kept for the next chunk */
}

/* A flag's value: 0 or 1, nothing else (a typo's 2 or -1 is refused, not
 * taken for "on"). */
static int flag_ok(trz_reader *r, const char *name, int64_t v)
{
    if (v == 0 || v == 1) return 1;
    rd_err(r, TRZ_ERR_PARAM, "%s: %lld is not 0 or 1", name, (long long)v);
    return 0;
}

int trz_reader_set(trz_reader *r, trz_rparam p, int64_t v)
{
    if (!r) return TRZ_ERR_PARAM;
    switch (p) {
    case TRZ_R_THREADS:
        if (v < 0 || v > MAXQ)
            return rd_err(r, TRZ_ERR_PARAM, "TRZ_R_THREADS: %lld is not 0 (all cores) to %d", (long long)v,
                          MAXQ);
        rd_pool_stop(r); /* chunks already fetched stay queued, decoded or not */
        r->threads = v == 0 ? trz_ncpus() : (int)v;
        if (r->threads > MAXQ / 2) r->threads = MAXQ / 2;
        return TRZ_OK;
    case TRZ_R_OVERLAP:
        if (!flag_ok(r, "TRZ_R_OVERLAP", v)) return TRZ_ERR_PARAM;
        rd_pool_stop(r);
        r->overlap = (int)v;
        return TRZ_OK;
    case TRZ_R_HOST_ORDER:
        if (!flag_ok(r, "TRZ_R_HOST_ORDER", v)) return TRZ_ERR_PARAM;
        r->host_order = (int)v;
        return TRZ_OK;
    case TRZ_R_SALVAGE:
        if (!flag_ok(r, "TRZ_R_SALVAGE", v)) return TRZ_ERR_PARAM;
        r->salvage = (int)v;
        /* an index rebuilt over chunks cut out, repeated or moved places
         * them where they do not belong: salvage then reads as from a pipe,
         * where the chunks' own places say what is missing and what is not
         * where it belongs (before anything is read) */
        if (r->salvage && r->seekable && !r->have_cur && !r->qlen && !r->next_chunk) {
            int agree = rd_places_agree(r);
            if (agree < 0) return r->failed = rd_err(r, agree, "read error: %s", strerror(errno));
            if (!agree) {
                int rc = drop_index(r);
                if (rc) return r->failed = rc;
                rd_err(r, TRZ_ERR_CORRUPT, "the index places chunks where their headers say they do not belong: read "
                       "without it");
            }
        }
        if (r->salvage && r->open_damaged) { /* the open failed on a damaged first header: go on past it */
            static const uint8_t head[8] = { 0x89, 'T', 'R', 'Z' };
            r->open_damaged = 0;
            int rc = rd_skip_damage(r, r->open_at, head, 1);
            if (rc) return r->failed = rc;
            if (r->open_rc == TRZ_ERR_NOT_TRZ && r->at_end) /* nothing in it looks like trz */
                return r->failed = rd_err(r, TRZ_ERR_NOT_TRZ, "not a trz file (no chunk found)");
        }
        return TRZ_OK;
    }
    return rd_err(r, TRZ_ERR_PARAM, "unknown reader parameter %d", (int)p);
}

int trz_reader_info(trz_reader *r, trz_info *i)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!i) return rd_err(r, TRZ_ERR_PARAM, "trz_reader_info: info is NULL");
    memset(i, 0, sizeof *i);
    i->format = r->mixed ? "mixed" : r->codec ? r->codec->name : "raw";
    /* members of different formats count records each in their own unit */
    i->record_size = r->mixed ? 0 : !r->codec ? 1 : r->codec->record_size;
    i->byte_order = r->byte_order;
    i->seekable = r->seekable;
    i->records = r->seekable ? (int64_t)r->total_records : -1;
    i->raw_bytes = r->seekable ? (int64_t)r->total_bytes : -1;
    i->compressed_bytes = r->seekable ? (int64_t)r->file_size : -1;
    i->chunks = r->seekable ? (int64_t)r->nchunks : -1;
    i->members = r->seekable ? (int64_t)r->members : -1;
    i->unwrapped = trz_wrap_name(r->wrap);
    return TRZ_OK;
}

static int cpus_cb(void *ctx, const void *recs, size_t n, size_t len, uint64_t first)
{
    trz_reader *r = ctx;
    (void)first;
    if (n) r->codec->cpus_seen(recs, len, r->byte_order, r->cpu_bits); /* the member's codec, also for raw-stored chunks */
    return 0;
}

int trz_reader_cpus(trz_reader *r)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!r->codec || !r->codec->cpus_seen || r->mixed) return 0;
    memset(r->cpu_bits, 0, sizeof r->cpu_bits);
    int rc = r->seekable ? trz_seek(r, 0) : TRZ_OK;
    if (rc) return rc;
    int host = r->host_order;
    r->host_order = 0;
    rc = trz_foreach(r, cpus_cb, r);
    r->host_order = host;
    if (rc) return rc;
    int n = 0;
    for (int i = 0; i < 16; i++) n += __builtin_popcountll(r->cpu_bits[i]);
    return n;
}

uint64_t trz_reader_mended(const trz_reader *r, uint64_t *first)
{
    if (first) *first = r && r->repaired ? r->repaired_first : UINT64_MAX;
    return r ? r->repaired : 0;
}
uint64_t trz_reader_chunks_decoded(const trz_reader *r) { return r ? __atomic_load_n(&r->decoded, __ATOMIC_RELAXED) : 0; }
