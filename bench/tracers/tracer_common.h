/* tracer_common.h - what the QEMU tracer plugins share: their arguments (out=FILE, skip=N,
 * count=N), a buffered output file, and stopping the traced program once the window is written. */
#ifndef TRZ_TRACER_COMMON_H
#define TRZ_TRACER_COMMON_H

#include <stdint.h>
#include <stddef.h>

struct tracer_opts {
    const char *out;       /* output path (required) */
    uint64_t skip;         /* instructions executed before the first recorded one */
    uint64_t count;        /* instructions to record; 0 = until the program ends */
    const char *format;    /* format name, for plugins that write several */
    const char *code;      /* optional: a file listing each translated instruction's bytes */
};

/* Parses "key=value" arguments into *o; prints a message and returns -1 on an unknown one. */
int tracer_parse_args(struct tracer_opts *o, int argc, char **argv, const char *name);

/* Opens o->out for writing and makes forked children stop tracing; returns 0, or -1 after
 * printing why.  Output is buffered here and written with write(2), not stdio, so that a forked
 * child's exit cannot flush a copy of the buffer into the trace. */
int tracer_open(const struct tracer_opts *o, const char *name);

/* Appends n bytes to the trace. */
void tracer_write(const void *p, size_t n);

/* Nonzero in a child of a fork: its instructions are not the traced program's. */
extern volatile int tracer_forked;

/* Writes what is buffered and closes the trace; returns 0, or -1 after reporting an error. */
int tracer_close(void);

#endif
