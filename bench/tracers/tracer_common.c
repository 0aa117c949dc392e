/* tracer_common.c - argument parsing and output for the QEMU tracer plugins (see the header). */
#include "tracer_common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

volatile int tracer_forked;

static void in_child(void) { tracer_forked = 1; }

static int parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (errno || end == s || *end != '\0')
        return -1;
    *v = x;
    return 0;
}

int tracer_parse_args(struct tracer_opts *o, int argc, char **argv, const char *name)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int bad = 0;
        if (strncmp(a, "out=", 4) == 0)
            o->out = a + 4;
        else if (strncmp(a, "code=", 5) == 0)
            o->code = a + 5;
        else if (strncmp(a, "format=", 7) == 0)
            o->format = a + 7;
        else if (strncmp(a, "skip=", 5) == 0)
            bad = parse_u64(a + 5, &o->skip);
        else if (strncmp(a, "count=", 6) == 0)
            bad = parse_u64(a + 6, &o->count);
        else
            bad = 1;
        if (bad) {
            fprintf(stderr, "%s: bad argument '%s' (out=FILE, skip=N, count=N, format=F, code=FILE)\n", name, a);
            return -1;
        }
    }
    if (!o->out) {
        fprintf(stderr, "%s: no out=FILE argument\n", name);
        return -1;
    }
    return 0;
}

static int out_fd = -1;
static int out_err;
static const char *out_name = "tracer";
static unsigned char out_buf[1 << 20];
static size_t out_len;

static void flush_buf(void)
{
    size_t done = 0;
    while (done < out_len && !out_err) {
        ssize_t w = write(out_fd, out_buf + done, out_len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            out_err = 1;
        else
            done += (size_t)w;
    }
    out_len = 0;
}

int tracer_open(const struct tracer_opts *o, const char *name)
{
    out_name = name;
    out_fd = open(o->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out_fd < 0) {
        fprintf(stderr, "%s: %s: %s\n", name, o->out, strerror(errno));
        return -1;
    }
    pthread_atfork(NULL, NULL, in_child);
    return 0;
}

void tracer_write(const void *p, size_t n)
{
    if (tracer_forked || out_fd < 0)
        return;
    if (out_len + n > sizeof out_buf)
        flush_buf();
    memcpy(out_buf + out_len, p, n);
    out_len += n;
}

int tracer_close(void)
{
    if (tracer_forked || out_fd < 0)
        return 0;
    flush_buf();
    if (close(out_fd) != 0)
        out_err = 1;
    out_fd = -1;
    if (out_err) {
        fprintf(stderr, "%s: write error\n", out_name);
        return -1;
    }
    return 0;
}
