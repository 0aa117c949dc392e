/* join.c - the tools room: join archives into one member with a single
 * index (so that archives compressed in parts, on several machines, seek
 * and list as if one process had written them), and path-to-path
 * compression and decompression for bindings.  The room also holds dump.c
 * (records as text) and safefile.c (writing a file so that nothing is
 * lost, used by the command line too). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <unistd.h>

#include "../format/format.h"
#include "safefile.h"

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

/* Copy one input's chunks to out, appending their entries to the index. */
static int join_one(const char *path, int fd, trz_reader *r, const trz_io *out, uint64_t *pos,
                    trz_index_entry **ix, size_t *nix, size_t *cap, uint64_t *rec, uint64_t *byte, char *err, size_t errlen)
{
    trz_info in;
    trz_reader_info(r, &in);
    for (int64_t i = 0; i < in.chunks; i++) {
        trz_chunk_info c;
        trz_reader_chunk(r, (uint64_t)i, &c);
        uint8_t *buf = malloc(c.stored_bytes);
        if (!buf) return jerr(err, errlen, TRZ_ERR_NOMEM, "out of memory");
        trz_chunk_hdr h;
        size_t need;
        int rc = pread(fd, buf, c.stored_bytes, (off_t)c.offset) == (ssize_t)c.stored_bytes ? TRZ_OK : TRZ_ERR_IO;
        if (rc == TRZ_OK) rc = trz_chunk_parse_hdr(buf, c.stored_bytes, &h, &need);
        if (rc == TRZ_OK && need != c.stored_bytes) rc = TRZ_ERR_CORRUPT;
        if (rc) { free(buf); return jerr(err, errlen, rc, "%s: chunk %lld: %s", path, (long long)i, trz_strerror(rc)); }
        if (*nix == *cap) {
            size_t nc = *cap ? 2 * *cap : 256;
            trz_index_entry *ne = realloc(*ix, nc * sizeof *ne);
            if (!ne) { free(buf); return jerr(err, errlen, TRZ_ERR_NOMEM, "out of memory"); }
            *ix = ne;
            *cap = nc;
        }
        trz_index_entry *e = &(*ix)[(*nix)++];
        e->offset = *pos;
        e->first_record = *rec;
        e->first_byte = *byte;
        e->nrec = h.nrec;
        e->raw = h.raw;
        e->stored = (uint32_t)c.stored_bytes;
        e->codec = h.codec;
        e->flags = h.flags;
        *rec += h.nrec;
        *byte += h.raw;
        rc = out_write(out, buf, c.stored_bytes, pos);
        free(buf);
        if (rc) return jerr(err, errlen, rc, "write error: %s", strerror(errno));
    }
    return TRZ_OK;
}

int trz_join(const char *const *inputs, size_t n, const trz_io *out, char *err, size_t errlen)
{
    if (n == 0) return jerr(err, errlen, TRZ_ERR_PARAM, "nothing to join");
    trz_index_entry *ix = NULL;
    size_t nix = 0, cap = 0;
    uint64_t pos = 0, rec = 0, byte = 0;
    const trz_codec *codec = NULL;
    int bo = 0, rc = TRZ_OK;
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
                 (codec && (strcmp(in.format, codec->name) != 0 || in.byte_order != bo)))
            rc = jerr(err, errlen, TRZ_ERR_PARAM, "%s: a different format or byte order; concatenate instead", inputs[k]);
        trz_container_info ci;
        if (rc == TRZ_OK && trz_reader_container(r, &ci) == TRZ_OK && ci.kind)
            rc = jerr(err, errlen, TRZ_ERR_PARAM, "%s: it keeps its original %s file, which a joined archive cannot "
                      "restore; join archives of the records (trz -dc FILE | trz)", inputs[k], ci.kind);
        if (rc == TRZ_OK && !codec) { /* the joined member takes the first input's header */
            codec = trz_codec_by_name(in.format);
            bo = in.byte_order;
            uint8_t h[TRZ_FILE_HDR_MAX];
            trz_file_hdr fh;
            size_t hl = 0;
            ssize_t got = pread(fd, h, sizeof h, 0);
            if (got < 0 || trz_file_hdr_parse(h, (size_t)got, &fh, &hl) != TRZ_OK) hl = 0;
            rc = hl ? out_write(out, h, hl, &pos) : TRZ_ERR_CORRUPT;
            if (rc) jerr(err, errlen, rc, "%s: cannot copy the header", inputs[k]);
        }
        if (rc == TRZ_OK) rc = join_one(inputs[k], fd, r, out, &pos, &ix, &nix, &cap, &rec, &byte, err, errlen);
        trz_reader_close(r);
        close(fd);
    }
    if (rc == TRZ_OK) {
        trz_buf b = { 0 };
        rc = trz_index_write(&b, ix, nix, pos);
        if (rc == TRZ_OK && out_write(out, b.p, b.n, &pos)) rc = jerr(err, errlen, TRZ_ERR_IO, "write error: %s", strerror(errno));
        free(b.p);
    }
    free(ix);
    return rc;
}

/* The output of the path functions: a temporary file beside `out` that
 * replaces it only on success, and never the input itself. */
int trz_path_out(trz_outfile *of, int ifd, const char *out)
{
    struct stat ist, ost;
    if (fstat(ifd, &ist) != 0) return TRZ_ERR_IO;
    if (stat(out, &ost) == 0 && trz_same_file(&ist, &ost)) return TRZ_ERR_PARAM;
    return trz_outfile_open(of, out, TRZ_OUT_UMASK) ? TRZ_ERR_IO : TRZ_OK;
}

int trz_decompress_path(const char *in, const char *out, int threads, char *err, size_t errlen)
{
    trz_reader *r;
    int rc = trz_reader_open_path(&r, in);
    if (rc) { jerr(err, errlen, rc, "%s: %s", in, trz_reader_error(r)); trz_reader_close(r); return rc; }
    trz_reader_set(r, TRZ_R_THREADS, threads);
    trz_outfile of;
    int ifd = open(in, O_RDONLY);
    rc = ifd < 0 ? TRZ_ERR_IO : trz_path_out(&of, ifd, out);
    if (ifd >= 0) close(ifd);
    if (rc) {
        trz_reader_close(r);
        return jerr(err, errlen, rc, "%s: %s", out, rc == TRZ_ERR_PARAM ? "the output is the input itself" : strerror(errno));
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
