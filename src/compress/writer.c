/* writer.c - the compress room's core: a push-style writer.  Bytes come
 * in by trz_writer_write (or, for trz_compress, read straight into the
 * pending buffer); once a chunk's worth is there, the codec is chosen
 * (probing the first chunk), the header written, and chunks are cut at
 * record (or line) boundaries and encoded on a ring of worker threads,
 * their output written in order; closing writes the rest, the index and
 * the footer.  Only `write` is needed on the output, so a pipe works.
 * The room's other files: ring.c (the chunks in flight and their worker
 * threads), cctx.c (settings), compress.c (trz_compress: the input,
 * unwrapped when compressed by the wrap room, into a writer). */
#include <errno.h>
#include <stdio.h>

#include "../format/know.h"
#include "../common/safefile.h"
#include "ring.h"
#include "writer.h"

typedef trz_index_entry index_entry;

struct trz_writer {
    trz_cctx *c;      /* the settings, and where results and messages go */
    trz_cctx own;     /* a copy of the caller's, for trz_writer_open */
    trz_io out;
    int wrap;         /* what the input was unwrapped from (the header says) */
    int started;      /* codec chosen, header written, workers up */
    int finished, result;
    trz_outfile file; /* trz_writer_open_path: the temporary file */
    int fd, has_file;
    uint64_t written, records, bytes;
    uint64_t cut_records, cut_bytes; /* of the chunks cut so far: the next one's place */
    uint64_t mhash;                  /* the member hash of the chunks written (FORMAT.md, "Index") */
    index_entry *index;
    size_t nindex, capindex;
    /* pending input: carry from the previous cut plus new bytes */
    uint8_t *pend;
    size_t pend_len, pend_cap;
    uint64_t chunk_bytes; /* a chunk's bytes: the caller's, or the codec's own when smaller and none set
                             (at most pend_cap; the size of the ring's chunk buffers) */
    /* chunk buffers come back here after their batch, so the pages are
     * touched once per run rather than once per chunk */
    uint8_t *spare[257];
    size_t nspare;
    int eof, prev_nl;
    trz_zctx *z[256];
    ring *r;
    /* carried knowledge (FORMAT.md, "Knowledge"): the main thread learns
     * each chunk's facts as it cuts it; two stores take turns from one
     * restart to the next, so that workers still on the chunks before a
     * restart read the old one while the new one fills */
    int know;               /* the member carries knowledge */
    trz_kstore *ks[2];
    int kcur;
    uint64_t klast[2];      /* the last chunk (number + 1) that reads each store */
    uint64_t kbytes;        /* trace bytes since the last restart */
    trz_kdelta kd;
    /* chains (FORMAT.md, "Chains"): the member's groups are chains, coded
     * with an encoder model and, for the self-check, a decoder model (the
     * ring's, one pair per lane), each reset at a group's first chunk */
    int chain;
    uint64_t chain_bytes; /* a group's length in trace bytes (chains and knowledge) */
    /* parity (FORMAT.md, "Parity"): the set being written */
    int parity;
    trz_parity_set pset;
    /* trz_compress of a container: the restore block after the header */
    uint8_t restore_kind;
    uint64_t restore_size;
    int (*restore_write)(void *ctx, int (*emit)(void *, const void *, size_t), void *ectx);
    void *restore_ctx;
};

/* the old name of the state, in the functions below */
typedef trz_writer wstate;

static int fail(wstate *w, int rc, const char *what)
{
    snprintf(w->c->err, sizeof w->c->err, "%s: %s", what, rc == TRZ_ERR_IO ? strerror(errno) : trz_strerror(rc));
    return rc;
}

/* A write callback need not set errno, and anything but n is a failure:
 * errno is cleared first so that only the callback's own error is named. */
static int emit(wstate *w, const void *p, size_t n)
{
    if (n == 0) return TRZ_OK;
    errno = 0;
    int64_t k = w->out.write(w->out.opaque, p, n);
    if (k == (int64_t)n) {
        w->written += n;
        return TRZ_OK;
    }
    int e = errno;
    if (k >= 0)
        snprintf(w->c->err, sizeof w->c->err, "write to the output failed: %lld of %zu bytes taken%s%s",
                 (long long)k, n, e ? ": " : "", e ? strerror(e) : "");
    else
        snprintf(w->c->err, sizeof w->c->err, "write to the output failed%s%s", e ? ": " : "", e ? strerror(e) : "");
    return TRZ_ERR_IO;
}

/* What auto-detection picks: the best probe score, raw when no codec is
 * sure enough (a weak guess costs more than raw would on a misfit). */
static const trz_codec *detect(const uint8_t *p, size_t len, int *byte_order, int *score)
{
    const trz_codec *best = &trz_codec_raw;
    int best_score = 0, best_bo = TRZ_BO_NONE;
    size_t n = len < (1u << 20) ? len : (1u << 20);
    for (size_t i = 0; trz_codec_at(i); i++) {
        const trz_codec *k = trz_codec_at(i);
        int bo = TRZ_BO_NONE;
        int s = k->probe && n ? k->probe(p, n, &bo) : 0;
        if (s > best_score) { best = k; best_score = s; best_bo = bo; }
    }
    if (best_score < 50) { best = &trz_codec_raw; best_bo = TRZ_BO_NONE; }
    *byte_order = best_bo;
    *score = best_score;
    return best;
}

static void choose_codec(wstate *w)
{
    trz_cctx *c = w->c;
    int bo, score;
    c->detected = detect(w->pend, w->pend_len, &bo, &score);
    c->byte_order = bo;
    c->chosen = c->detected;
    c->forced_fits = 1;
    if (c->forced) {
        c->chosen = c->forced;
        c->byte_order = TRZ_BO_NONE;
        int s = c->forced->probe ? c->forced->probe(w->pend, w->pend_len, &c->byte_order) : 0;
        /* a forced codec fits when its own probe is sure, or nothing else is */
        c->forced_fits = c->forced == c->detected || c->forced->id == TRZ_CODEC_RAW || s >= 50 ||
                         c->detected->id == TRZ_CODEC_RAW || !w->pend_len;
    }
}

static int emit_block(void *ctx, const void *p, size_t n) { return emit(ctx, p, n) ? -1 : 0; }

/* A raw member at the strong levels tries LZMA2 beside zstd, so that a
 * file no codec knows is no larger than xz makes it; the fast levels keep
 * zstd's decoding speed (FORMAT.md, "Back-ends") */
static int member_xz(const trz_cctx *c)
{
    return c->chosen && c->chosen->id == TRZ_CODEC_RAW && c->level >= TRZ_XZ_LEVEL && c->backend == TRZ_BACKEND_ZSTD;
}

static int write_header(wstate *w)
{
    uint8_t h[TRZ_FILE_HDR_WRITE_MAX];
    const trz_file_hdr f = { w->c->chosen->id, (uint8_t)w->c->byte_order, (uint8_t)w->c->level,
                             (uint8_t)w->c->backend, w->c->chosen->record_size, (uint32_t)w->chunk_bytes,
                             (uint8_t)w->wrap, (uint8_t)w->know, (uint8_t)w->chain, 1, (uint8_t)w->parity,
                             (uint8_t)member_xz(w->c), w->restore_kind, w->restore_size };
    int rc = emit(w, h, trz_file_hdr_write(h, &f));
    if (rc || !w->restore_size) return rc;
    uint64_t at = w->written;
    if (w->restore_write(w->restore_ctx, emit_block, w)) return w->c->err[0] ? TRZ_ERR_IO : fail(w, TRZ_ERR_IO, "restore block");
    if (w->written - at != w->restore_size) return fail(w, TRZ_ERR_CODEC, "restore block size");
    return TRZ_OK;
}

void trz_writer_set_restore(trz_writer *w, int kind, uint64_t size,
                            int (*fn)(void *ctx, int (*emit)(void *, const void *, size_t), void *ectx), void *ctx)
{
    w->restore_kind = (uint8_t)kind;
    w->restore_size = size;
    w->restore_write = fn;
    w->restore_ctx = ctx;
}

/* Decide how many pending bytes the next chunk takes. */
static size_t cut(wstate *w, const trz_codec *k, int *is_tail)
{
    size_t len = w->pend_len;
    *is_tail = 0;
    if (len > w->chunk_bytes) len = (size_t)w->chunk_bytes;
    if (k->record_size > 1) {
        size_t rs = k->record_size;
        size_t take = len - len % rs;
        if (w->c->chunk_records && take / rs > w->c->chunk_records) take = (size_t)w->c->chunk_records * rs;
        if (take == 0 && w->eof && w->pend_len > 0) { *is_tail = 1; return w->pend_len; }
        return take;
    }
    if (k->record_size == 0) {
        size_t take = len;
        if (!(w->eof && len == w->pend_len)) { /* more follows: end on a newline if one is there */
            size_t l = len;
            while (l > 0 && w->pend[l - 1] != '\n') l--;
            if (l > 0) take = l;
        }
        if (w->c->chunk_records) {
            uint64_t lines = trz_count_lines(w->pend, take, !w->prev_nl);
            if (lines > w->c->chunk_records)
                take = trz_line_offset(w->pend, take, !w->prev_nl, w->c->chunk_records);
        }
        return take;
    }
    if (w->c->chunk_records && len > w->c->chunk_records) len = (size_t)w->c->chunk_records;
    return len;
}

/* Whether the chunk that comes next (number seq, take bytes) starts a
 * group: learn_chunk's and chain_chunk's rule, known before it is cut. */
static int starts_group(const wstate *w, uint64_t seq, size_t take)
{
    return (w->know || w->chain) && (seq == 0 || w->kbytes + take > w->chain_bytes);
}

/* Write out the oldest job once it is done and recycle its slot.
 * next_starts: the chunk after the ring's last starts a group (a parity
 * set ends before a group starts, so that parts cut at groups and joined
 * are the archive one run writes). */
static int write_oldest(wstate *w, int next_starts)
{
    ring *r = w->r;
    size_t slot = r->head % r->q;
    ring_wait(r, slot);
    trz_chunk_job *j = &r->job[slot];
    int rc = TRZ_OK;
    if (j->result) {
        snprintf(w->c->err, sizeof w->c->err, "chunk %zu: %s", w->nindex, j->err);
        rc = j->result;
    } else if (w->parity &&
               (rc = trz_parity_take(&w->pset, &j->out, j->raw_len,
                                     (w->eof && !w->pend_len && r->head + 1 == r->tail) ||
                                         (r->head + 1 < r->tail ? (r->job[(r->head + 1) % r->q].flags & TRZ_CHUNK_RESTART) != 0
                                                                : next_starts)))) {
        fail(w, rc, "parity");
    } else if (w->nindex == w->capindex) {
        size_t nc = w->capindex ? 2 * w->capindex : 64;
        index_entry *ni = realloc(w->index, nc * sizeof *ni);
        if (!ni) rc = fail(w, TRZ_ERR_NOMEM, "index");
        else w->index = ni, w->capindex = nc;
    }
    if (rc == TRZ_OK) {
        index_entry *e = &w->index[w->nindex++];
        e->offset = w->written;
        e->first_record = w->records;
        e->first_byte = w->bytes;
        e->nrec = j->nrec;
        e->raw = (uint32_t)j->raw_len;
        e->stored = (uint32_t)j->out.n;
        e->codec = j->out.p[4];
        e->flags = j->out.p[7]; /* (as written: a set's last chunk gained its parity flag) */
        w->mhash = trz_member_hash_step(w->mhash, trz_ld_le64(j->out.p + 16), e->raw, e->nrec);
        rc = emit(w, j->out.p, j->out.n);
        w->records += j->nrec;
        w->bytes += j->raw_len;
        if (rc == TRZ_OK && w->c->progress) w->c->progress(w->c->progress_ctx, w->bytes, w->written);
    }
    j->out.n = 0; /* its memory serves the slot's next chunk */
    /* (no buffer of its own when one thread encoded it in the pending one) */
    if (r->buf[slot] && w->nspare < sizeof w->spare / sizeof w->spare[0]) w->spare[w->nspare++] = r->buf[slot];
    else trz_big_release(r->buf[slot], (size_t)w->chunk_bytes);
    r->buf[slot] = NULL;
    r->done[slot] = 0;
    r->head++;
    return rc;
}

static int write_index(wstate *w)
{
    trz_buf ix = { 0 };
    int rc = trz_index_write(&ix, w->index, w->nindex, w->written, &w->mhash);
    if (rc == TRZ_OK) rc = emit(w, ix.p, ix.n);
    else fail(w, rc, "index");
    free(ix.p);
    return rc;
}

/* ---- the writer ---- */

/* Choose the codec on what is pending, write the header, start the
 * workers: once the first chunk's worth is there, or at the end. */
static int start(wstate *w)
{
    trz_cctx *c = w->c;
    ring *r = w->r;
    w->started = 1;
    choose_codec(w);
    w->chunk_bytes = c->chunk_bytes;
    const trz_codec *k = c->chosen;
    uint32_t own = k->chunk_bytes_at ? k->chunk_bytes_at(c->level) : k->chunk_bytes;
    if (!c->chunk_set && own && own < w->chunk_bytes) w->chunk_bytes = own;
    /* a member of one chunk (and maybe a partial record after it) has
     * nothing to carry: it stays version 1 */
    int is_tail;
    size_t rs = c->chosen->record_size > 1 ? c->chosen->record_size : 1;
    int groups = c->restart_bytes && !(w->eof && w->pend_len - cut(w, c->chosen, &is_tail) < rs);
    /* chains or knowledge, and the groups' length: trz_cctx_group_bytes
     * (a caller compressing in parts cuts where it says groups start) */
    int chains;
    w->chain_bytes = trz_cctx_group_bytes(c, &chains);
    w->chain = groups && chains;
    w->know = groups && !chains && w->chain_bytes;
    w->parity = c->parity;
    int rc = write_header(w);
    if (rc) return rc;
    int nthreads = c->threads < 1 ? 1 : c->threads > 128 ? 128 : c->threads;
    if (ring_setup(r, c->chosen, c->level, c->verify, w->chain, nthreads, w->chain_bytes, (size_t)w->chunk_bytes))
        return fail(w, TRZ_ERR_NOMEM, "models and back-end contexts");
    return TRZ_OK;
}

/* A chunk's knowledge: start afresh when the member starts or the period
 * is over (in the other store, once no job in flight still reads it), then
 * learn the chunk's new facts into the store and its knowledge stream.
 * seq is the chunk's number in the member. */
static int learn_chunk(wstate *w, trz_chunk_job *j, size_t slot, uint64_t seq, int is_tail)
{
    ring *r = w->r;
    /* (w->chain_bytes is at most TRZ_KNOW_PERIOD here: the store's bound) */
    if (starts_group(w, seq, j->raw_len)) {
        int next = seq == 0 ? 0 : r->nworkers ? w->kcur ^ 1 : w->kcur;
        while (w->klast[next] > r->head) { /* a job in flight reads it: let it finish */
            int rc = write_oldest(w, 1); /* (the chunk being cut starts a group) */
            if (rc) return rc;
        }
        if (!w->ks[next] && !(w->ks[next] = trz_kstore_create())) return fail(w, TRZ_ERR_NOMEM, "knowledge");
        trz_kstore_clear(w->ks[next]);
        w->kcur = next;
        w->kbytes = 0;
        j->flags |= TRZ_CHUNK_RESTART;
    }
    w->kbytes += j->raw_len;
    trz_kstore *ks = w->ks[w->kcur];
    trz_buf *out = &r->kstream[slot];
    out->n = 0;
    if (!is_tail) {
        uint32_t n0 = trz_kstore_count(ks);
        trz_know before = trz_kstore_view(ks, n0);
        trz_kdelta_reset(&w->kd, ks);
        w->c->chosen->learn(&before, j->raw, j->raw_len, j->nrec, j->byte_order, trz_kdelta_add, &w->kd);
        if (trz_kdelta_write(&w->kd, w->c->chosen, before, j->level, out)) return fail(w, TRZ_ERR_NOMEM, "knowledge");
        /* facts that cost more than an eighth of the chunk are no program's
         * (random bytes forced to a format): no worker has seen them yet */
        if (out->n > j->raw_len / 8) {
            trz_kstore_truncate(ks, n0);
            out->n = 0;
        }
    }
    r->kview[slot] = trz_kstore_view(ks, trz_kstore_count(ks));
    w->klast[w->kcur] = seq + 1;
    j->know = &r->kview[slot];
    j->kstream = out;
    return TRZ_OK;
}

/* A chunk of a chain: a group starts at the member's first chunk and at
 * every chunk that would take the group past the restart period; its
 * models are reset there (the tail, a partial record, goes out raw). */
static void chain_chunk(wstate *w, trz_chunk_job *j, uint64_t seq, int is_tail)
{
    ring *r = w->r;
    if (starts_group(w, seq, j->raw_len)) {
        w->kbytes = 0;
        j->flags |= TRZ_CHUNK_RESTART; /* (the models reset there: ring.c, trz_chunk_finish) */
        r->groups++;
    }
    w->kbytes += j->raw_len;
    if (is_tail) return;
    int l = (int)((r->groups - 1) % (uint64_t)r->lanes);
    j->model = r->em[l];
    j->dmodel = r->dm[l];
}

/* Cut the next chunk off the pending bytes and queue it. */
static int next_chunk(wstate *w)
{
    trz_cctx *c = w->c;
    ring *r = w->r;
    int rc;
    int is_tail;
    const trz_codec *k = c->chosen;
    size_t take = cut(w, k, &is_tail);
    if (r->tail - r->head == r->q && (rc = write_oldest(w, starts_group(w, r->tail, take)))) return rc;
    size_t slot = r->tail % r->q;
    trz_chunk_job *j = &r->job[slot];
    trz_buf keep = j->out;
    memset(j, 0, sizeof *j);
    j->out.p = keep.p;
    j->out.cap = keep.cap;
    uint8_t *chunk = w->pend;
    size_t rest = w->pend_len - take;
    /* with workers the chunk keeps the pending buffer and the rest moves to a
     * fresh one; or, cut shorter than that buffer, it moves to one of its size */
    int own = (size_t)w->chunk_bytes < w->pend_cap;
    if (r->nworkers) {
        uint8_t *next = w->nspare ? w->spare[--w->nspare] : trz_big_malloc((size_t)w->chunk_bytes);
        if (!next) return fail(w, TRZ_ERR_NOMEM, "chunk buffer");
        memcpy(next, own ? chunk : chunk + take, own ? take : rest);
        r->buf[slot] = own ? next : chunk;
        if (own) chunk = next;
        else w->pend = next;
    }
    j->codec = is_tail ? &trz_codec_raw : k;
    j->raw = chunk;
    j->raw_len = take;
    j->byte_order = is_tail ? TRZ_BO_NONE : c->byte_order;
    j->level = c->level;
    j->backend = c->backend;
    j->xz = member_xz(c);
    j->verify = c->verify;
    if (k->record_size == 0) {
        j->flags = w->prev_nl ? 0 : TRZ_CHUNK_MIDLINE;
        j->nrec = (uint32_t)trz_count_lines(chunk, take, !w->prev_nl);
        w->prev_nl = take > 0 && chunk[take - 1] == '\n';
    } else {
        j->nrec = is_tail ? 0 : (uint32_t)(take / k->record_size);
    }
    /* every chunk states its place in the member (FORMAT.md, "Chunk") */
    j->flags |= TRZ_CHUNK_PLACED;
    j->place_no = (uint32_t)r->tail;
    j->place_rec = w->cut_records;
    j->place_byte = w->cut_bytes;
    w->cut_records += j->nrec;
    w->cut_bytes += take;
    if (w->know && (rc = learn_chunk(w, j, slot, r->tail, is_tail))) return rc;
    if (w->chain) chain_chunk(w, j, r->tail, is_tail);
    ring_submit(r);
    /* one thread: the chunk is encoded by now (a second buffer would be fresh pages) */
    if (!r->nworkers || own) memmove(w->pend, w->pend + take, rest);
    w->pend_len = rest;
    return TRZ_OK;
}

size_t trz_writer_room(trz_writer *w, uint8_t **p)
{
    *p = w->pend + w->pend_len;
    return w->pend_cap - w->pend_len;
}

/* n more bytes are pending: a full chunk's worth goes out. */
int trz_writer_commit(trz_writer *w, size_t n)
{
    w->pend_len += n;
    if (w->pend_len < w->pend_cap) return TRZ_OK;
    int rc = w->started ? TRZ_OK : start(w);
    if (rc == TRZ_OK) rc = next_chunk(w);
    if (rc) w->result = rc, w->finished = 1;
    return rc;
}

int trz_writer_write(trz_writer *w, const void *data, size_t n)
{
    if (!w) return TRZ_ERR_PARAM;
    if (w->finished) return w->result ? w->result : (snprintf(w->c->err, sizeof w->c->err, "write after finish"), TRZ_ERR_PARAM);
    if (!data && n) { /* a misuse, not a failure of the archive: later writes go on */
        snprintf(w->c->err, sizeof w->c->err, "trz_writer_write: data is NULL (%zu bytes)", n);
        return TRZ_ERR_PARAM;
    }
    const uint8_t *p = data;
    while (n) {
        uint8_t *dst;
        size_t room = trz_writer_room(w, &dst), k = n < room ? n : room;
        memcpy(dst, p, k);
        p += k;
        n -= k;
        int rc = trz_writer_commit(w, k);
        if (rc) return rc;
    }
    return TRZ_OK;
}

int trz_writer_finish(trz_writer *w)
{
    if (!w) return TRZ_ERR_PARAM;
    if (w->finished) return w->result;
    w->finished = 1;
    w->eof = 1;
    int rc = w->started ? TRZ_OK : start(w);
    while (rc == TRZ_OK && w->pend_len > 0) rc = next_chunk(w);
    while (rc == TRZ_OK && w->r->head < w->r->tail) rc = write_oldest(w, 0);
    if (rc == TRZ_OK) rc = write_index(w);
    ring_stop(w->r);
    if (w->has_file) {
        if (rc == TRZ_OK && trz_outfile_commit(&w->file, 1, 0) != 0) rc = fail(w, TRZ_ERR_IO, w->file.dst);
        else if (rc) trz_outfile_abort(&w->file);
        w->has_file = 0;
    }
    return w->result = rc;
}

static void writer_free(trz_writer *w)
{
    ring *r = w->r;
    ring_stop(r);
    for (size_t i = 0; i < 256; i++) {
        trz_big_release(r->buf[i], (size_t)w->chunk_bytes);
        free(r->job[i].out.p);
        free(r->kstream[i].p);
        trz_zctx_free(w->z[i]);
    }
    trz_kstore_free(w->ks[0]);
    trz_kstore_free(w->ks[1]);
    trz_kdelta_free(&w->kd);
    trz_parity_set_free(&w->pset);
    for (int l = 0; w->c->chosen && l < RING_LANES; l++) {
        trz_model_free(w->c->chosen, r->dm[l]); /* (first: it may read em's window) */
        trz_model_free(w->c->chosen, r->em[l]);
    }
    ring_destroy(r);
    if (w->has_file) trz_outfile_abort(&w->file);
    trz_big_release(w->pend, w->pend_cap);
    for (size_t i = 0; i < w->nspare; i++) trz_big_release(w->spare[i], (size_t)w->chunk_bytes);
    free(w->index);
    free(r);
    free(w);
    trz_big_trim(); /* the model tables kept for the next chunk */
}

int trz_writer_close(trz_writer *w)
{
    if (!w) return TRZ_OK;
    int rc = trz_writer_finish(w);
    writer_free(w);
    return rc;
}

const char *trz_writer_error(const trz_writer *w) { return w ? w->c->err : "out of memory"; }

int trz_writer_open_shared(trz_writer **out, trz_cctx *c, const trz_io *io, int wrap)
{
    trz_writer *w = *out = calloc(1, sizeof *w);
    if (!w) return TRZ_ERR_NOMEM;
    w->r = calloc(1, sizeof *w->r);
    w->c = c;
    c->err[0] = 0;
    if (io) w->out = *io;
    w->wrap = wrap;
    w->prev_nl = 1;
    w->fd = -1;
    if (!w->r) { free(w); *out = NULL; return TRZ_ERR_NOMEM; }
    ring_init(w->r, w->z);
    if (!io || !io->write) { /* nothing to write the archive with: refused now, not at the first chunk */
        snprintf(c->err, sizeof c->err, "the output has no write function (trz_io.write is NULL)");
        return w->finished = 1, w->result = TRZ_ERR_PARAM;
    }
    w->pend_cap = (size_t)c->chunk_bytes;
    w->pend = trz_big_malloc(w->pend_cap);
    if (!w->pend) return w->finished = 1, w->result = fail(w, TRZ_ERR_NOMEM, "input buffer");
    return TRZ_OK;
}

int trz_writer_open(trz_writer **out, const trz_cctx *cctx, const trz_io *io)
{
    if (!out) return TRZ_ERR_PARAM;
    trz_cctx *own = cctx ? NULL : trz_cctx_create();
    if (!cctx && !own) { *out = NULL; return TRZ_ERR_NOMEM; }
    trz_cctx tmp = cctx ? *cctx : *own;
    trz_cctx_free(own);
    int rc = trz_writer_open_shared(out, &tmp, io, TRZ_WRAP_NONE);
    if (*out) {
        (*out)->own = tmp;
        (*out)->c = &(*out)->own;
    }
    return rc;
}

static int64_t fd_write_all(void *opaque, const void *buf, size_t n)
{
    trz_io io;
    trz_io_fd(&io, opaque);
    return io.write(io.opaque, buf, n);
}

int trz_writer_open_path(trz_writer **out, const trz_cctx *cctx, const char *path)
{
    if (!out) return TRZ_ERR_PARAM;
    trz_io file = { NULL, NULL, fd_write_all, NULL, NULL }; /* its fd comes below */
    int rc = trz_writer_open(out, cctx, &file);
    trz_writer *w = *out;
    if (!w || rc) return rc;
    w->finished = 1; /* until the output is open */
    if (!path) {
        snprintf(w->c->err, sizeof w->c->err, "the path is NULL");
        return w->result = TRZ_ERR_PARAM;
    }
    if (trz_outfile_open(&w->file, path, TRZ_OUT_UMASK) != 0) {
        if (!w->file.why) return w->result = fail(w, TRZ_ERR_IO, path);
        snprintf(w->c->err, sizeof w->c->err, "%s: %s", path, w->file.why);
        return w->result = TRZ_ERR_PARAM;
    }
    w->finished = 0;
    w->has_file = 1;
    w->fd = w->file.fd;
    w->out = (trz_io){ &w->fd, NULL, fd_write_all, NULL, NULL };
    return rc;
}
