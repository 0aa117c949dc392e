/* safefile.h - writing a file so that nothing is lost: the bytes go to a
 * temporary file beside the target, which takes the target's name only
 * when everything succeeded, never over a file that appeared meanwhile
 * unless replacing was asked for, and never over the input itself.
 * What a name is decides the way (trz.h says it at trz_compress_path):
 * a regular file or a new name goes through a temporary file; a symbolic
 * link is followed, and the file it leads to replaced the same way (the
 * link stays); a character or block device or a FIFO is written in place,
 * never replaced; a directory, a socket and a link that leads nowhere are
 * refused.  Used by the library's path functions and by the command
 * line: the bottom room, so that the compress and tools rooms above both
 * may. */
#ifndef TRZ_SAFEFILE_H
#define TRZ_SAFEFILE_H

#include <limits.h>
#include <sys/stat.h>

typedef struct trz_outfile {
    char tmp[PATH_MAX + 32]; /* the temporary file, "" when there is none */
    const char *dst;         /* the name given */
    char path[PATH_MAX];     /* the name replaced: dst, or the file its links lead to */
    int fd;
    int direct;              /* a device or a FIFO, written in place: no temporary file */
    const char *why;         /* why dst is refused (a directory, ...), else NULL */
    struct stat st;          /* of the file written, once committed */
} trz_outfile;

/* Same file (device and inode)?  a or b may be NULL (then no). */
int trz_same_file(const struct stat *a, const struct stat *b);

/* Open dst for writing as its kind asks (above): the temporary file, with
 * mode & 0777 (TRZ_OUT_UMASK: 0666 less the umask), or the device or
 * FIFO itself (which blocks until the FIFO has a reader).  0, or -1 with
 * errno set, and o->why too when dst is of a kind that is refused. */
#define TRZ_OUT_UMASK ((mode_t)-1)
int trz_outfile_open(trz_outfile *o, const char *dst, mode_t mode);

/* Publish: flush to disk first when `durable` (fsync of the file, and of
 * its directory after the rename), close, and give the temporary file the
 * name dst (the file its links lead to).  Without `replace`, an existing
 * dst is never replaced: -1 with errno EEXIST.  On failure the temporary
 * file is removed.  A device or FIFO is only closed.  0 or -1. */
int trz_outfile_commit(trz_outfile *o, int replace, int durable);

/* Close and remove the temporary file (failure, interruption); a device
 * or FIFO is only closed. */
void trz_outfile_abort(trz_outfile *o);

/* The output of the library's path functions: trz_outfile_open for out,
 * unless out is the input ifd itself.  A trz_result: TRZ_ERR_PARAM with
 * of->why for an output refused (the input itself, a directory, ...),
 * TRZ_ERR_IO with errno. */
int trz_path_out(trz_outfile *of, int ifd, const char *out);

#endif
