/* io.c - trz_io adapters: a file descriptor (seekable when it is a regular
 * file; reads and writes retried on EINTR and short counts) and memory. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io.h"

static int64_t fd_read(void *o, void *buf, size_t n)
{
    int fd = *(int *)o;
    for (;;) {
        ssize_t r = read(fd, buf, n > (1u << 30) ? (1u << 30) : n);
        if (r >= 0) return r;
        if (errno != EINTR) return -1;
    }
}

static int64_t fd_write(void *o, const void *buf, size_t n)
{
    int fd = *(int *)o;
    const uint8_t *p = buf;
    size_t left = n;
    while (left) {
        ssize_t r = write(fd, p, left > (1u << 30) ? (1u << 30) : left);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (r == 0) { errno = ENOSPC; return -1; }
        p += r;
        left -= (size_t)r;
    }
    return (int64_t)n;
}

static int fd_seek(void *o, uint64_t off)
{
    return lseek(*(int *)o, (off_t)off, SEEK_SET) == (off_t)off ? 0 : -1;
}

static int64_t fd_size(void *o)
{
    struct stat st;
    if (fstat(*(int *)o, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    return st.st_size;
}

int trz_io_fd(trz_io *io, int *fd)
{
    if (!io) return TRZ_ERR_PARAM;
    if (!fd) { /* nothing to read or write: every use is refused, none crashes */
        memset(io, 0, sizeof *io);
        return TRZ_ERR_PARAM;
    }
    struct stat st;
    int reg = fstat(*fd, &st) == 0 && S_ISREG(st.st_mode) && lseek(*fd, 0, SEEK_CUR) >= 0;
    io->opaque = fd;
    io->read = fd_read;
    io->write = fd_write;
    io->seek = reg ? fd_seek : NULL;
    io->size = reg ? fd_size : NULL;
    return TRZ_OK;
}

/* ---- memory I/O ---- */
static int64_t mem_read(void *o, void *buf, size_t n)
{
    trz_memio *m = o;
    size_t left = m->n - m->pos;
    if (n > left) n = left;
    memcpy(buf, m->p + m->pos, n);
    m->pos += n;
    return (int64_t)n;
}

static int mem_seek(void *o, uint64_t off)
{
    trz_memio *m = o;
    if (off > m->n) return -1;
    m->pos = (size_t)off;
    return 0;
}

static int64_t mem_size(void *o) { return (int64_t)((trz_memio *)o)->n; }

void trz_io_mem(trz_io *io, trz_memio *state)
{
    io->opaque = state;
    io->read = mem_read;
    io->write = NULL;
    io->seek = mem_seek;
    io->size = mem_size;
}

