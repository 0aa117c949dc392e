/* cli.h - what the command-line front end shares between its files. */
#ifndef TRZ_CLI_H
#define TRZ_CLI_H
#include <stdint.h>
#include "../../include/trz.h"

enum { MODE_COMPRESS, MODE_DECOMPRESS, MODE_TEST, MODE_LIST };

typedef struct cli_opts {
    int mode;
    int to_stdout, force, keep, rm, verbose, quiet, salvage, verify, no_chain, no_parity;
    int original, records; /* -d: the file a container archive keeps, or its records */
    int no_original;       /* compressing: a container's records alone, its file not kept */
    int recursive;
    int level, threads, backend;
    int64_t chunk_bytes, chunk_records;
    int64_t restart_bytes; /* -1: the library's default */
    const char *format;
    const char *out_name;
    uint64_t from, count; /* count = UINT64_MAX: to the end */
    int ranged;
} cli_opts;

/* fileio.c: one input name ("-" = stdin); returns 0 or 1 (error printed). */
int fio_process(const cli_opts *o, const char *name);
/* fileio.c: a named input opened for reading, st its status: a regular
 * file, or with -f a FIFO or device read as a stream; never blocks without
 * -f.  The descriptor, or -1 after the message. */
struct stat;
int fio_open_input(const cli_opts *o, const char *name, struct stat *st);
/* walk.c: -r, every file under dir that the mode takes; 0 or 1. */
int walk_tree(const cli_opts *o, const char *dir);
/* list.c: list_begin before the first file (many: several files or -r,
 * one table with a totals row), list_file for each, list_end after them. */
void list_begin(int many);
int list_file(const cli_opts *o, const char *name);
void list_end(const cli_opts *o);
/* commands.c: trz dump, trz join */
int dump_main(int argc, char **argv);
int join_main(int argc, char **argv);
int serve_main(int argc, char **argv); /* serve_main.c */
/* bench command (bench.c) */
int bench_main(int argc, char **argv);
#endif
