/* serve_main.c - the arguments of `trz serve`; the serving is
 * src/serve/serve.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../serve/serve.h"
#include "cli.h"
#include "msg.h"

int serve_main(int argc, char **argv)
{
    const char *dir = NULL, *tmp = getenv("TMPDIR");
    int quiet = 0, i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) { i++; break; }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            printf("Usage: trz serve [-q] [--tmpdir DIR] TRACE_DIR -- COMMAND [ARG...]\n"
                   "Run COMMAND on a directory that serves TRACE_DIR's archived trace files\n"
                   "(NAME.trace.zip.trz and the like, as `trz -r` leaves them) as named pipes\n"
                   "NAME.trace of their records, each decoded while the command reads it; every\n"
                   "other file is a link to the original.  Each {} in an ARG is replaced by\n"
                   "that directory, made under --tmpdir (default $TMPDIR, or /tmp) and removed,\n"
                   "with its decoders, when COMMAND ends.  A pipe can be read once from start\n"
                   "to end per open (no seeking).  Exit: COMMAND's, or 1 when a decoder failed.\n"
                   "  trz serve app.dir/trace -- drmemtrace_launcher -indir {} -simulator_type basic_counts\n");
            return 0;
        }
        if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            quiet = 1;
        } else if (strcmp(a, "--tmpdir") == 0 && i + 1 < argc) {
            tmp = argv[++i];
        } else if (strncmp(a, "--tmpdir=", 9) == 0) {
            tmp = a + 9;
        } else if (a[0] == '-' && a[1]) {
            msg_error("serve: unknown option '%s'", a);
            return 2;
        } else if (!dir) {
            dir = a;
        } else {
            msg_error("serve: one directory, then -- and the command (try trz serve --help)");
            return 2;
        }
    }
    if (!dir || i >= argc) {
        msg_error("serve: usage: trz serve TRACE_DIR -- COMMAND [ARG...] ({} is the served directory)");
        return 2;
    }
    int braces = 0;
    for (int k = i; k < argc; k++) braces |= strstr(argv[k], "{}") != NULL;
    if (!braces) {
        msg_error("serve: the command names no {} (the served directory), so it would not read it");
        return 2;
    }
    return serve_run(dir, tmp && *tmp ? tmp : "/tmp", argv + i, quiet);
}
