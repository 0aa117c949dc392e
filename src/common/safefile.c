/* safefile.c - see safefile.h.  The rename that publishes a file is the
 * only step that touches the target's name, so a failure or a signal at
 * any point before it leaves the target (and the input) as they were; a
 * device or FIFO is written in place and never renamed over. */
#define _GNU_SOURCE /* renameat2, RENAME_NOREPLACE */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../include/trz.h"
#include "safefile.h"

int trz_same_file(const struct stat *a, const struct stat *b)
{
    return a && b && a->st_ino && a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Refuse dst: -1 with errno e, and why. */
static int refuse(trz_outfile *o, int e, const char *why)
{
    o->why = why;
    errno = e;
    return -1;
}

/* What dst is decides the way (safefile.h): 1 to write through a
 * temporary file beside o->path, 0 with o->fd open on a device or FIFO,
 * -1 refused or failed. */
static int classify(trz_outfile *o, const char *dst)
{
    struct stat st;
    if (!dst[0]) return refuse(o, ENOENT, "the path is empty");
    if (snprintf(o->path, sizeof o->path, "%s", dst) >= (int)sizeof o->path) return refuse(o, ENAMETOOLONG, NULL);
    if (lstat(dst, &st) != 0) return errno == ENOENT ? 1 : -1; /* a new name */
    if (S_ISLNK(st.st_mode)) {
        /* followed: what is replaced is the file it leads to (a link to
         * nothing is refused: creating files at the far end of a link is
         * how links in shared directories are abused) */
        if (!realpath(dst, o->path)) {
            if (errno == ENOENT) return refuse(o, ENOENT, "a symbolic link to a file that does not exist");
            return -1;
        }
        if (stat(o->path, &st) != 0) return -1;
    }
    if (S_ISREG(st.st_mode)) return 1;
    if (S_ISDIR(st.st_mode)) return refuse(o, EISDIR, "is a directory");
    if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode) && !S_ISFIFO(st.st_mode))
        return refuse(o, EINVAL, "not a regular file, device or FIFO (a socket?)");
    /* a device or a FIFO is written in place, never replaced by a file */
    o->fd = open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (o->fd < 0) return -1;
    if (fstat(o->fd, &st) == 0 && S_ISREG(st.st_mode)) { /* became a file since: the usual way */
        close(o->fd);
        o->fd = -1;
        return 1;
    }
    o->direct = 1;
    return 0;
}

int trz_outfile_open(trz_outfile *o, const char *dst, mode_t mode)
{
    memset(o, 0, sizeof *o);
    o->dst = dst;
    o->fd = -1;
    int way = classify(o, dst);
    if (way <= 0) return way;
    /* beside the target, so that the rename stays on one file system */
    const char *path = o->path;
    const char *slash = strrchr(path, '/');
    int dlen = slash ? (int)(slash - path + 1) : 0;
    const char *base = slash ? slash + 1 : path;
    if (snprintf(o->tmp, sizeof o->tmp, "%.*s.%s.tmpXXXXXX", dlen, path, base) >= (int)sizeof o->tmp) {
        o->tmp[0] = 0;
        errno = ENAMETOOLONG;
        return -1;
    }
    /* mkstemp's name, but created with open() so that the umask applies
     * to the default mode (changing the umask is not thread-safe) */
    size_t x = strlen(o->tmp) - 6;
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t r = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)o;
    for (int tries = 0; tries < 1000; tries++) {
        for (int i = 0; i < 6; i++, r /= 36) o->tmp[x + (size_t)i] = digits[r % 36];
        r = r * 6364136223846793005ull + 1442695040888963407ull + (uint64_t)tries;
        o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (o->fd >= 0 || errno != EEXIST) break;
    }
    if (o->fd < 0) { o->tmp[0] = 0; return -1; }
    if (mode != TRZ_OUT_UMASK) (void)fchmod(o->fd, mode & 0777);
    return 0;
}

/* fsync the directory holding path, so that a rename in it is on disk. */
static int sync_dir(const char *path)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    /* some file systems cannot sync a directory; the rename is then as safe as they make it */
    if (rc != 0 && (errno == EINVAL || errno == EROFS)) rc = 0;
    close(fd);
    return rc;
}

/* Give tmp the name dst unless dst exists.  renameat2's RENAME_NOREPLACE
 * does it in one step; where the file system lacks it, link() fails on an
 * existing name just as well; where it also lacks hard links, the check
 * and the rename are two steps (the window is the rename itself). */
static int rename_noreplace(const char *tmp, const char *dst)
{
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, dst, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return -1;
#endif
    if (link(tmp, dst) == 0) {
        unlink(tmp);
        return 0;
    }
    if (errno != EPERM && errno != ENOTSUP && errno != ENOSYS) return -1;
    struct stat st;
    if (lstat(dst, &st) == 0) { errno = EEXIST; return -1; }
    return rename(tmp, dst);
}

int trz_outfile_commit(trz_outfile *o, int replace, int durable)
{
    int rc = 0;
    if (o->direct) { /* a device or FIFO: what was written is there */
        if (durable && fsync(o->fd) != 0 && errno != EINVAL && errno != EROFS) rc = -1;
        if (rc == 0 && fstat(o->fd, &o->st) != 0) rc = -1;
        if (close(o->fd) != 0 && rc == 0) rc = -1;
        o->fd = -1;
        return rc;
    }
    if (durable && fsync(o->fd) != 0) rc = -1;
    if (rc == 0 && fstat(o->fd, &o->st) != 0) rc = -1;
    if (close(o->fd) != 0 && rc == 0) rc = -1;
    o->fd = -1;
    if (rc == 0) rc = replace ? rename(o->tmp, o->path) : rename_noreplace(o->tmp, o->path);
    if (rc != 0) {
        int e = errno;
        unlink(o->tmp);
        o->tmp[0] = 0;
        errno = e;
        return -1;
    }
    o->tmp[0] = 0;
    if (durable && sync_dir(o->path) != 0) return -1;
    return 0;
}

void trz_outfile_abort(trz_outfile *o)
{
    if (o->fd >= 0) close(o->fd);
    o->fd = -1;
    if (o->tmp[0]) unlink(o->tmp);
    o->tmp[0] = 0;
}

/* The output of the path functions: a temporary file beside `out` that
 * replaces it only on success (or the device or FIFO itself), and never
 * the input itself. */
int trz_path_out(trz_outfile *of, int ifd, const char *out)
{
    struct stat ist, ost;
    memset(of, 0, sizeof *of);
    of->fd = -1;
    if (fstat(ifd, &ist) != 0) return TRZ_ERR_IO;
    if (stat(out, &ost) == 0 && trz_same_file(&ist, &ost)) {
        of->why = "the output is the input itself";
        return TRZ_ERR_PARAM;
    }
    if (trz_outfile_open(of, out, TRZ_OUT_UMASK) == 0) return TRZ_OK;
    return of->why ? TRZ_ERR_PARAM : TRZ_ERR_IO;
}
