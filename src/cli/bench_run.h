/* bench_run.h - what the files of `trz bench` share, at their bottom: the
 * sides (one row of a table each), the results of a file, and running a
 * child (bench_run.c).  bench.c measures and calls bench_report.c, which
 * reports; both stand on this and neither is called from here. */
#ifndef TRZ_BENCH_RUN_H
#define TRZ_BENCH_RUN_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define MAX_SIDES 48
#define MAX_RUNS 15
#define MAX_ARGS 12
#define MAX_LEVELS 8

typedef struct cmd {
    char a[MAX_ARGS][PATH_MAX];
    int n;
} cmd;

/* One compressor configuration: a row of the table. */
typedef struct side {
    char label[48];  /* as shown: "trz -9 -T1", "xz -9 -T1" */
    char family[8];  /* colour in the plot */
    char ext[8];
    int trz, level, threads;
    cmd c, d;        /* compress and decompress, the file name appended */
} side;

typedef struct result {
    int64_t size;
    double ct[MAX_RUNS], dt[MAX_RUNS];   /* wall seconds per run */
    double ccpu[MAX_RUNS], dcpu[MAX_RUNS]; /* user + system seconds per run */
    int nc, nd;
    long crss, drss; /* KiB, the largest over the runs */
    int64_t container; /* trz: archive bytes outside the streams; -1 unknown */
    char fail[128];  /* empty while every run matched */
} result;

typedef struct file_res {
    const char *path;
    char *real; /* path with symlinks resolved: what the compressors get (zstd skips a symlink) */
    char work[PATH_MAX]; /* a compressed input unwrapped: what every side gets instead; "" if none */
    char wrapper[8];     /* "xz", "gz", "zst", "bz2" when unwrapped */
    const char *base;
    int64_t raw;
    uint64_t hash;
    char format[32]; /* a codec name, e.g. "champsim-cloudsuite" */
    uint32_t rec_size; /* 0: text (lines) */
    int64_t records;   /* -1: unknown */
    int byte_order;
    result r[MAX_SIDES];
} file_res;

typedef struct bopts {
    int runs, quick, streams, only_trz, match_zstd;
    int levels[MAX_LEVELS], nlevels;
    int threads[4], nthreads;
    const char *csv, *plot, *tmpdir, *format;
} bopts;

typedef struct other {
    const char *label, *family, *prog, *ext;
    const char *copt[4], *dopt[2];
    int slow;
} other;

typedef struct child_run {
    double secs, cpu;
    long rss_kb;
    int status; /* 0: exited with 0 */
    uint64_t hash;
    int64_t bytes;
} child_run;

extern side g_sides[MAX_SIDES];
extern int g_nsides;
extern char g_missing[256];
extern char g_skipped[256];

extern volatile pid_t g_child; /* the child being measured, 0 when none (for a signal to reach it) */

void cmd_add(cmd *c, const char *s);
int on_path(const char *prog);
/* Read fd to its end, hashing (cr's bytes and hash): 0, or -1 on a read error. */
int drain_hash(int fd, child_run *cr);
/* Run c with `file` appended; stdout goes to out_fd, or when out_fd < 0 into
 * a pipe that is hashed.  Returns 0 when the child ran and exited with 0. */
int run_child(const cmd *c, const char *file, int out_fd, child_run *cr);
/* A path in the work directory (which mkdtemp made short enough), and the
 * output of side i there. */
void dir_path(char *buf, size_t cap, const char *dir, const char *name);
void out_path(char *buf, size_t cap, const char *dir, int i);

#endif
