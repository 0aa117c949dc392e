/* join.c - the tools room: join archives into one with a single index
 * (so that archives compressed in parts, on several machines, seek and
 * list as if one process had written them), and path-to-path
 * compression and decompression for bindings.  The room also holds dump.c
 * (records as text); writing a file so that nothing is lost is
 * src/common/safefile.c, below this room and the compress room. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>

#include "../decompress/decompress.h"
#include "../format/know.h"
#include "../common/safefile.h"

static int jerr(char *err, size_t len, int rc, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int jerr(char *err, size_t len, int rc, const char *fmt, ...)
{
    if (err && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, len, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static int out_write(const trz_io *out, const void *p, size_t n, uint64_t *pos)
{
    if (n && out->write(out->opaque, p, n) != (int64_t)n) return TRZ_ERR_IO;
    *pos += n;
    return TRZ_OK;
}

/* Joining copies chunks, and what one member allows decides where copies
 * may follow one another (FORMAT.md, "Records"):
 *  - text: a chunk is mid-line exactly when the chunk before it does not end
 *    with '\n'.  A part cut inside a line ends without one, and the next
 *    part's first chunk says that it starts a line.  That chunk gets the
 *    mid-line flag and one line start fewer (its first line is the one the
 *    part before left open), its header resealed; neither hash covers those
 *    fields, and no codec decodes with them.  The parts then stay one member
 *    with one index, and it counts the lines that the whole text compressed
 *    in one go has.  Only the last chunk of each input member is decoded, to
 *    see its last byte.
 *  - fixed-size records: a partial last record (the tail) must end its
 *    member, and the next part's records start at that part's first byte,
 *    not where the record the tail began would end, so no chunk of it can
 *    follow in the member.  join does not re-encode: after a tail a new
 *    member starts, with the same file header.  The file decodes to the
 *    parts one after another, and the later member counts records from its
 *    own start, as in `cat` of the parts' archives (but with a member per
 *    tail, not per part).
 *  - knowledge (FORMAT.md, "Knowledge"): every input member of version 3
 *    starts a group with its first chunk, so its chunks keep their
 *    knowledge wherever they land; but a member holds chunks of one
 *    version, so where the inputs' versions change a new member starts.
 *    Text is the exception, since a line cut between parts must stay
 *    inside one member: when any text input carries knowledge, every
 *    member is of version 3, and each chunk of an input member without
 *    knowledge joins as a group of its own (its restart flag set), which
 *    a text codec decodes as it was written.  The last chunk of a text
 *    member with knowledge decodes with its group's facts, which join
 *    replays.
 * Parts of whole records, or cut at line ends, make one member, as the same
 * bytes compressed in one go would, chunk for chunk.  A chunk that does not
 * fit even so is damage in its input, reported as such. */
typedef struct joiner {
    const trz_io *out;
    uint64_t pos, mstart;          /* bytes written; where the member being written starts */
    trz_file_hdr fh;               /* the first input's file header: every member's, */
    int open;                      /* with know and chain set to the member's version; a member is open */
    int kind;                      /* the open member's: 0 version 1, 1 knowledge (3), 2 chains (4) */
    int placed;                    /* and its chunks state their places (version 5, any kind) */
    uint64_t mh;                   /* its member hash so far */
    const trz_codec *codec;
    int bo;
    trz_index_entry *ix;           /* the member's chunks */
    size_t nix, cap;
    uint64_t rec, byte;            /* the member's records and bytes so far */
    int tail;                      /* its last chunk is a partial record */
    int midline;                   /* text: an input member ended inside a line */
    int text_know;                 /* text: some input carries knowledge */
    int parity;                    /* some input's chunks may end parity sets */
    int xz;                        /* some input's streams may be LZMA2 */
    trz_zctx *z;                   /* for decoding those last chunks */
    trz_kstore *ks;                /* and the knowledge they decode with */
    trz_buf ktmp;
    uint8_t *dec;
    size_t dec_cap;
    char *err;
    size_t errlen;
} joiner;

static int member_begin(joiner *j, int kind, int placed)
{
    uint8_t hdr[TRZ_FILE_HDR_MAX];
    j->kind = kind;
    j->placed = placed;
    j->mh = 0;
    j->fh.know = kind == 1;
    j->fh.chain = kind == 2;
    j->fh.placed = (uint8_t)placed;
    j->fh.parity = (uint8_t)(placed && j->parity); /* (its chunks may end parity sets, as an input's did) */
    j->fh.xz = (uint8_t)(placed && j->xz);         /* (and its streams be LZMA2) */
    j->mstart = j->pos;
    j->nix = 0;
    j->rec = j->byte = 0;
    j->tail = j->midline = 0;
    j->open = 1;
    return out_write(j->out, hdr, trz_file_hdr_write(hdr, &j->fh), &j->pos);
}

static int member_end(joiner *j)
{
    trz_buf b = { 0 };
    int rc = trz_index_write(&b, j->ix, j->nix, j->pos - j->mstart, j->placed ? &j->mh : NULL);
    if (rc == TRZ_OK) rc = out_write(j->out, b.p, b.n, &j->pos);
    free(b.p);
    return rc;
}

static int write_err(joiner *j, int rc)
{
    return rc == TRZ_ERR_IO ? jerr(j->err, j->errlen, rc, "write error: %s", strerror(errno))
                            : jerr(j->err, j->errlen, rc, "%s", trz_strerror(rc));
}

/* Whether text chunk i of path (header h, its bytes at buf) ends inside a
 * line: its last byte, decoded. */
static int ends_midline(joiner *j, const char *path, int64_t i, const trz_chunk_hdr *h, const uint8_t *buf, size_t n,
                        trz_reader *r)
{
    if (j->kind == 2) { /* a chunk of a chain: the reader decodes its group up to it */
        uint8_t last;
        int rc = trz_reader_chunk_last_byte(r, (uint64_t)i, &last);
        if (rc) return jerr(j->err, j->errlen, rc, "%s: %s", path, trz_reader_error(r));
        j->midline = last != '\n';
        return TRZ_OK;
    }
    if (!j->z && !(j->z = trz_zctx_create())) return jerr(j->err, j->errlen, TRZ_ERR_NOMEM, "out of memory");
    if (j->dec_cap < h->raw) {
        trz_big_release(j->dec, j->dec_cap);
        j->dec = trz_big_malloc(h->raw);
        j->dec_cap = j->dec ? h->raw : 0;
        if (!j->dec) return jerr(j->err, j->errlen, TRZ_ERR_NOMEM, "out of memory");
    }
    char why[128];
    trz_know kv, *know = NULL;
    if (j->fh.know) {
        kv = trz_kstore_view(j->ks, trz_kstore_count(j->ks));
        know = &kv;
    }
    int rc = trz_chunk_decode(h, buf, n, j->dec, j->z, know, NULL, why, sizeof why);
    if (rc) return jerr(j->err, j->errlen, rc, "%s: chunk %lld: %s", path, (long long)i, why);
    j->midline = j->dec[h->raw - 1] != '\n';
    return TRZ_OK;
}

/* Append chunk i of path (n stored bytes at buf, header h) to the member
 * being written; starts_member: the first of its input member;
 * ends_member: the last of its input member, with chunks after it in the
 * join. */
static int join_chunk(joiner *j, const char *path, int64_t i, uint8_t *buf, size_t n, trz_chunk_hdr *h,
                      int starts_member, int ends_member, trz_reader *r)
{
    int rc, tail, text = j->codec->record_size == 0;
    /* a version-3 member's first chunk restarts its knowledge; a first chunk
     * without the flag comes from a member of version 1; a member of chains
     * joins as one (its chunks as they are: each input member's first chunk
     * starts a group) */
    int know = trz_reader_chunk_chained(r, (uint64_t)i)  ? 2
               : (h->flags & TRZ_CHUNK_RESTART)         ? 1
               : starts_member                          ? 0
                                                        : j->kind;
    if (text && j->text_know && !know) { /* a group of its own, with nothing to know */
        for (unsigned k = 0; k < h->nstreams; k++)
            if (h->sid[k] == TRZ_KNOW_STREAM)
                return jerr(j->err, j->errlen, TRZ_ERR_UNSUPPORTED, "%s: chunk %lld: its stream %d cannot join a "
                            "member with knowledge", path, (long long)i, TRZ_KNOW_STREAM);
        know = 1;
        h->flags |= TRZ_CHUNK_RESTART;
        trz_chunk_set_count(buf, h, h->nrec, h->flags);
    }
    /* chunks that state their place join members of version 5; the others, members of their own version */
    int placed = (h->flags & TRZ_CHUNK_PLACED) != 0;
    int other = know != j->kind || placed != j->placed;
    if (j->open && other && text && j->midline)
        return jerr(j->err, j->errlen, TRZ_ERR_PARAM, "%s: it continues a line of the part before, which was "
                    "written %s; compress the parts alike (--restart, --no-chain) and join again", path,
                    j->kind == 2 ? "in chains" : j->kind ? "with carried knowledge" : "without carried knowledge");
    if (j->open && (j->tail || other) && (rc = member_end(j))) return write_err(j, rc);
    if ((!j->open || j->tail || other) && (rc = member_begin(j, know, placed))) return write_err(j, rc);
    if (know == 1 && text) { /* the facts the last chunk of a member decodes with */
        if (!j->ks && !(j->ks = trz_kstore_create())) return jerr(j->err, j->errlen, TRZ_ERR_NOMEM, "out of memory");
        if (!j->z && !(j->z = trz_zctx_create())) return jerr(j->err, j->errlen, TRZ_ERR_NOMEM, "out of memory");
    }
    if (know == 1 && j->ks) {
        if (h->flags & TRZ_CHUNK_RESTART) trz_kstore_clear(j->ks);
        if ((rc = trz_chunk_know(h, buf, n, j->codec, j->z, &j->ktmp, j->ks)))
            return jerr(j->err, j->errlen, rc, "%s: chunk %lld: its knowledge: %s", path, (long long)i,
                        trz_strerror(rc));
    }
    if (text && j->midline && !(h->flags & TRZ_CHUNK_MIDLINE) && h->nrec > 0) {
        h->flags |= TRZ_CHUNK_MIDLINE;
        h->nrec--;
        trz_chunk_set_count(buf, h, h->nrec, h->flags);
    }
    if (placed) trz_chunk_set_place(buf, h, (uint32_t)j->nix, j->rec, j->byte); /* where it lands now */
    if (!trz_chunk_fits(j->codec, j->bo, h->codec, h->byte_order, h->flags, h->nrec, h->raw, j->nix == 0, j->kind != 0,
                        j->placed, j->fh.parity, &tail))
        return jerr(j->err, j->errlen, TRZ_ERR_CORRUPT, "%s: chunk %lld: its record count or flags do not fit its "
                    "format (a damaged input)", path, (long long)i);
    if (j->nix == j->cap) {
        size_t nc = j->cap ? 2 * j->cap : 256;
        trz_index_entry *ne = realloc(j->ix, nc * sizeof *ne);
        if (!ne) return jerr(j->err, j->errlen, TRZ_ERR_NOMEM, "out of memory");
        j->ix = ne;
        j->cap = nc;
    }
    trz_index_entry *e = &j->ix[j->nix++];
    e->offset = j->pos - j->mstart;
    e->first_record = j->rec;
    e->first_byte = j->byte;
    e->nrec = h->nrec;
    e->raw = h->raw;
    e->stored = (uint32_t)n;
    e->codec = h->codec;
    e->flags = h->flags;
    j->rec += h->nrec;
    j->byte += h->raw;
    j->tail = tail;
    j->mh = trz_member_hash_step(j->mh, h->xxh, h->raw, h->nrec);
    if ((rc = out_write(j->out, buf, n, &j->pos))) return write_err(j, rc);
    if (text && h->raw) { /* an empty chunk leaves the state as it was, as for readers */
        if (ends_member) return ends_midline(j, path, i, h, buf, n, r);
        j->midline = 0; /* within its member the next chunk's flag is right as it is */
    }
    return TRZ_OK;
}

/* Copy one input's chunks (r: its reader, fd: the file) into the join;
 * more: inputs follow it. */
/* A chunk of a member of version 5 must stand where its input's index puts
 * it, and the input member's chunks must be those its member hash covers:
 * join copies chunks without decoding them, so an input whose chunks were
 * cut out, repeated or moved (its index rebuilt over them) must not pass
 * for whole.  *mh: the input member's hash so far. */
static int check_place(joiner *j, const char *path, int64_t i, const trz_chunk_hdr *h, trz_reader *r, uint64_t *mh)
{
    uint32_t no;
    uint64_t rec, byte, want;
    int last;
    if (!trz_reader_chunk_place(r, (uint64_t)i, &no, &rec, &byte, &last, &want)) return TRZ_OK;
    if (!(h->flags & TRZ_CHUNK_PLACED) || h->place_no != no || h->place_rec != rec || h->place_byte != byte)
        return jerr(j->err, j->errlen, TRZ_ERR_CORRUPT, "%s: chunk %lld: it is chunk %lu of its member (record %llu), "
                    "where the index lists chunk %lu (record %llu): a damaged input", path, (long long)i,
                    (unsigned long)h->place_no, (unsigned long long)h->place_rec, (unsigned long)no,
                    (unsigned long long)rec);
    if (no == 0) *mh = 0;
    *mh = trz_member_hash_step(*mh, h->xxh, h->raw, h->nrec);
    if (last && *mh != want)
        return jerr(j->err, j->errlen, TRZ_ERR_CORRUPT, "%s: chunk %lld: member hash mismatch: the member's chunks are "
                    "not those it was written with (a damaged input)", path, (long long)i);
    return TRZ_OK;
}

static int join_one(joiner *j, const char *path, int fd, trz_reader *r, int more)
{
    trz_info in;
    trz_reader_info(r, &in);
    uint64_t mh = 0;
    for (int64_t i = 0; i < in.chunks; i++) {
        trz_chunk_info c;
        trz_reader_chunk(r, (uint64_t)i, &c);
        uint8_t *buf = malloc(c.stored_bytes);
        if (!buf) return jerr(j->err, j->errlen, TRZ_ERR_NOMEM, "out of memory");
        trz_chunk_hdr h;
        size_t need;
        int rc = pread(fd, buf, c.stored_bytes, (off_t)c.offset) == (ssize_t)c.stored_bytes ? TRZ_OK : TRZ_ERR_IO;
        if (rc == TRZ_OK) rc = trz_chunk_parse_hdr(buf, c.stored_bytes, &h, &need);
        if (rc == TRZ_OK && need != c.stored_bytes) rc = TRZ_ERR_CORRUPT;
        if (rc) jerr(j->err, j->errlen, rc, "%s: chunk %lld: %s", path, (long long)i, trz_strerror(rc));
        else rc = check_place(j, path, i, &h, r, &mh);
        int last = i + 1 == in.chunks;
        int ends = (last && more) || (!last && trz_reader_chunk_starts_member(r, (uint64_t)i + 1));
        int starts = i == 0 || trz_reader_chunk_starts_member(r, (uint64_t)i);
        if (rc == TRZ_OK) rc = join_chunk(j, path, i, buf, c.stored_bytes, &h, starts, ends, r);
        free(buf);
        if (rc) return rc;
    }
    return TRZ_OK;
}

/* Whether an input's first member has parity, and whether one has LZMA2
 * streams (its header's flags): the joined member then says so too, and
 * keeps every parity set whole.  An input that does not open is reported
 * later. */
static void input_flags(const char *const *inputs, size_t n, int *parity, int *xz)
{
    *parity = *xz = 0;
    for (size_t k = 0; k < n && !(*parity && *xz); k++) {
        int fd = open(inputs[k], O_RDONLY);
        if (fd < 0) continue;
        uint8_t hdr[TRZ_FILE_HDR_MAX];
        size_t hlen;
        trz_file_hdr f;
        ssize_t got = pread(fd, hdr, sizeof hdr, 0);
        if (got > 0 && trz_file_hdr_parse(hdr, (size_t)got, &f, &hlen) == TRZ_OK) {
            *parity |= f.parity;
            *xz |= f.xz;
        }
        close(fd);
    }
}

/* Whether a text input has a member of version 3 (its first chunk restarts
 * the knowledge).  An input that does not open is reported later. */
static int text_knows(const char *const *inputs, size_t n)
{
    int yes = 0;
    for (size_t k = 0; k < n && !yes; k++) {
        trz_reader *r;
        if (trz_reader_open_path(&r, inputs[k]) == TRZ_OK) {
            trz_info in;
            trz_reader_info(r, &in);
            const trz_codec *c = trz_codec_by_name(in.format);
            if (c && c->record_size == 0)
                for (int64_t i = 0; i < in.chunks && !yes; i++) yes = trz_reader_chunk_restarts(r, (uint64_t)i);
        }
        trz_reader_close(r);
    }
    return yes;
}

int trz_join(const char *const *inputs, size_t n, const trz_io *out, char *err, size_t errlen)
{
    if (n == 0) return jerr(err, errlen, TRZ_ERR_PARAM, "nothing to join");
    if (!inputs) return jerr(err, errlen, TRZ_ERR_PARAM, "the inputs are NULL");
    for (size_t k = 0; k < n; k++)
        if (!inputs[k]) return jerr(err, errlen, TRZ_ERR_PARAM, "input %zu is NULL", k);
    if (!out || !out->write)
        return jerr(err, errlen, TRZ_ERR_PARAM, "%s", out ? "the output has no write function (trz_io.write is NULL)"
                                                          : "the output is NULL");
    joiner j = { .out = out, .err = err, .errlen = errlen };
    j.text_know = text_knows(inputs, n);
    input_flags(inputs, n, &j.parity, &j.xz);
    int rc = TRZ_OK;
    for (size_t k = 0; k < n && rc == TRZ_OK; k++) {
        int fd = open(inputs[k], O_RDONLY);
        if (fd < 0) { rc = jerr(err, errlen, TRZ_ERR_IO, "%s: %s", inputs[k], strerror(errno)); break; }
        trz_reader *r;
        rc = trz_reader_open_fd(&r, fd);
        trz_info in;
        if (rc == TRZ_OK) trz_reader_info(r, &in);
        if (rc) jerr(err, errlen, rc, "%s: %s", inputs[k], trz_reader_error(r));
        else if (!in.seekable) rc = jerr(err, errlen, TRZ_ERR_CORRUPT, "%s: no valid index", inputs[k]);
        else if (strcmp(in.format, "mixed") == 0 ||
                 (j.codec && (strcmp(in.format, j.codec->name) != 0 || in.byte_order != j.bo)))
            rc = jerr(err, errlen, TRZ_ERR_PARAM, "%s: a different format or byte order; concatenate instead", inputs[k]);
        trz_container_info ci;
        if (rc == TRZ_OK && trz_reader_container(r, &ci) == TRZ_OK && ci.kind)
            rc = jerr(err, errlen, TRZ_ERR_PARAM, "%s: it keeps its original %s file, which a joined archive cannot "
                      "restore; join archives of the records (trz -dc FILE | trz)", inputs[k], ci.kind);
        if (rc == TRZ_OK && !j.codec) { /* every member takes the first input's header */
            j.codec = trz_codec_by_name(in.format);
            j.bo = in.byte_order;
            uint8_t hdr[TRZ_FILE_HDR_MAX];
            size_t hlen;
            ssize_t got = pread(fd, hdr, sizeof hdr, 0);
            if (got < 0 || trz_file_hdr_parse(hdr, (size_t)got, &j.fh, &hlen) != TRZ_OK)
                rc = jerr(err, errlen, TRZ_ERR_CORRUPT, "%s: cannot copy the header", inputs[k]);
        }
        if (rc == TRZ_OK) rc = join_one(&j, inputs[k], fd, r, k + 1 < n);
        trz_reader_close(r);
        close(fd);
    }
    if (rc == TRZ_OK && !j.open && (rc = member_begin(&j, 0, 1))) write_err(&j, rc); /* inputs without chunks */
    if (rc == TRZ_OK && (rc = member_end(&j))) write_err(&j, rc);
    free(j.ix);
    trz_kstore_free(j.ks);
    free(j.ktmp.p);
    trz_zctx_free(j.z);
    trz_big_release(j.dec, j.dec_cap);
    return rc;
}

int trz_decompress_path(const char *in, const char *out, int threads, char *err, size_t errlen)
{
    if (!in || !out) return jerr(err, errlen, TRZ_ERR_PARAM, "the %s path is NULL", in ? "output" : "input");
    trz_reader *r;
    int rc = trz_reader_open_path(&r, in);
    if (rc) { jerr(err, errlen, rc, "%s: %s", in, trz_reader_error(r)); trz_reader_close(r); return rc; }
    /* the threads checked as trz_reader_set checks them, before a file is made */
    if ((rc = trz_reader_set(r, TRZ_R_THREADS, threads)) != TRZ_OK) {
        jerr(err, errlen, rc, "%s", trz_reader_error(r));
        trz_reader_close(r);
        return rc;
    }
    trz_outfile of;
    int ifd = open(in, O_RDONLY);
    rc = ifd < 0 ? TRZ_ERR_IO : trz_path_out(&of, ifd, out);
    if (ifd >= 0) close(ifd);
    if (rc) {
        trz_reader_close(r);
        return jerr(err, errlen, rc, "%s: %s", out, rc == TRZ_ERR_PARAM && of.why ? of.why : strerror(errno));
    }
    trz_io o;
    int ofd = of.fd;
    trz_io_fd(&o, &ofd);
    size_t cap = 1u << 20;
    uint8_t *buf = malloc(cap);
    rc = buf ? TRZ_OK : TRZ_ERR_NOMEM;
    while (rc == TRZ_OK) {
        int64_t g = trz_read_bytes(r, buf, cap);
        if (g < 0) { rc = jerr(err, errlen, (int)g, "%s: %s", in, trz_reader_error(r)); break; }
        if (g == 0) break;
        if (o.write(o.opaque, buf, (size_t)g) != g) rc = jerr(err, errlen, TRZ_ERR_IO, "%s: %s", out, strerror(errno));
    }
    free(buf);
    if (rc) trz_outfile_abort(&of);
    else if (trz_outfile_commit(&of, 1, 0) != 0) rc = jerr(err, errlen, TRZ_ERR_IO, "%s: %s", out, strerror(errno));
    trz_reader_close(r);
    return rc;
}
