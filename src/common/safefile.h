/* safefile.h - writing a file so that nothing is lost: the bytes go to a
 * temporary file beside the target, which takes the target's name only
 * when everything succeeded, never over a file that appeared meanwhile
 * unless replacing was asked for, and never over the input itself.
 * Used by the library's path functions and by the command line: the
 * bottom room, so that the compress and tools rooms above both may. */
#ifndef TRZ_SAFEFILE_H
#define TRZ_SAFEFILE_H

#include <limits.h>
#include <sys/stat.h>

typedef struct trz_outfile {
    char tmp[PATH_MAX + 32]; /* the temporary file, "" when there is none */
    const char *dst;
    int fd;
    struct stat st; /* of the temporary file, once committed */
} trz_outfile;

/* Same file (device and inode)?  a or b may be NULL (then no). */
int trz_same_file(const struct stat *a, const struct stat *b);

/* Create the temporary file for dst, with mode & 0777 (TRZ_OUT_UMASK: 0666
 * less the umask); 0, or -1 with errno set. */
#define TRZ_OUT_UMASK ((mode_t)-1)
int trz_outfile_open(trz_outfile *o, const char *dst, mode_t mode);

/* Publish: flush to disk first when `durable` (fsync of the file, and of
 * its directory after the rename), close, and give the temporary file the
 * name dst.  Without `replace`, an existing dst is never replaced: -1 with
 * errno EEXIST.  On failure the temporary file is removed.  0 or -1. */
int trz_outfile_commit(trz_outfile *o, int replace, int durable);

/* Close and remove the temporary file (failure, interruption). */
void trz_outfile_abort(trz_outfile *o);

/* The output of the library's path functions: trz_outfile_open for out,
 * unless out is the input ifd itself (TRZ_ERR_PARAM).  A trz_result. */
int trz_path_out(trz_outfile *of, int ifd, const char *out);

#endif
