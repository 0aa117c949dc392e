/* serve.h - `trz serve`: a directory of archived trace files given to a
 * tool as a directory of named pipes, each fed by a decoder while the tool
 * reads it.  It starts processes, makes FIFOs and handles signals, which a
 * library must not do behind its caller's back: so it lives here, beside
 * the CLI, and uses the library's reader for the decoding. */
#ifndef TRZ_SERVE_H
#define TRZ_SERVE_H

/* Serve the tree under src in a new directory under tmpdir, run
 * tool_argv (an execvp argument list, NULL-terminated) with every
 * "{}" in its arguments replaced by that directory, and remove
 * the directory and every decoder when the tool ends.  quiet: no note of
 * the decoders' failures' count.  Returns the exit status for trz: the
 * tool's (128 + its signal when a signal ended it), 1 when a decoder
 * failed or when serving could not start (after a message). */
int serve_run(const char *src, const char *tmpdir, char **tool_argv, int quiet);

#endif
