/* bench_report.h - what `trz bench` prints (bench_report.c), called by
 * bench.c once it has measured. */
#ifndef TRZ_BENCH_REPORT_H
#define TRZ_BENCH_REPORT_H

#include "bench_run.h"

void print_table(const file_res *f, const bopts *o);
int print_streams(const file_res *f, const char *dir);
void container_bytes(file_res *f, const char *dir);
void csv_header(FILE *c);
void csv_rows(FILE *c, const file_res *f);
int make_plot(const char *png, const file_res *files, int nf, const char *dir);

#endif
