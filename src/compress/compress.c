/* compress.c - trz_compress: everything an input yields, unwrapped first
 * when it is compressed (unwrap.c), into one archive member, through the
 * writer (its input read straight into the writer's pending buffer). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "../tools/safefile.h"
#include "compress.h"

int trz_compress(trz_cctx *c, const trz_io *in, const trz_io *out)
{
    trz_src src;
    c->chosen = c->detected = NULL;
    int rc = trz_src_open(&src, in, c->unwrap);
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
                     rc == TRZ_ERR_IO ? strerror(errno) : trz_strerror(rc));
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
    int ifd = open(in, O_RDONLY);
    if (ifd < 0) {
        snprintf(c->err, sizeof c->err, "%s: %s", in, strerror(errno));
        return TRZ_ERR_IO;
    }
    trz_outfile of;
    int rc = trz_path_out(&of, ifd, out);
    if (rc) {
        snprintf(c->err, sizeof c->err, "%s: %s", out, rc == TRZ_ERR_PARAM ? "the output is the input itself"
                                                                           : strerror(errno));
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
