/* bench_report.c - what `trz bench` prints: the markdown table with the
 * best value of each column marked, the bytes per stream, the CSV of every
 * run, and the ratio-against-speed plot (gnuplot). */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_report.h"
#include "cli.h"
#include "msg.h"

/* ---- reporting ------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *v, int n)
{
    double t[MAX_RUNS];
    if (n == 0) return 0;
    memcpy(t, v, (size_t)n * sizeof *t);
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

static const char *group(int64_t v, char *buf, size_t cap)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%lld", (long long)(v < 0 ? -v : v)), o = 0;
    if (v < 0 && o < (int)cap - 1) buf[o++] = '-';
    for (int i = 0; i < n && o < (int)cap - 2; i++) {
        if (i && (n - i) % 3 == 0) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = 0;
    return buf;
}

/* MiB/s of input, binary as every size trz prints */
static double mibps(const file_res *f, double secs) { return secs > 0 ? (double)f->raw / 1048576.0 / secs : 0; }

/* The numbers of one row, in the order of the table's columns. */
enum { C_SIZE, C_RATIO, C_BPR, C_CS, C_DS, C_CRSS, C_DRSS, N_COLS };

static void row_values(const file_res *f, const result *r, double v[N_COLS])
{
    v[C_SIZE] = (double)r->size;
    v[C_RATIO] = r->size > 0 ? (double)f->raw / (double)r->size : 0;
    v[C_BPR] = f->records > 0 ? (double)r->size / (double)f->records : 0;
    v[C_CS] = mibps(f, median(r->ct, r->nc));
    v[C_DS] = mibps(f, median(r->dt, r->nd));
    v[C_CRSS] = (double)r->crss / 1024.0;
    v[C_DRSS] = (double)r->drss / 1024.0;
}

/* The best value of each column, among the rows that round-tripped. */
static void best_values(const file_res *f, double best[N_COLS])
{
    static const int higher[N_COLS] = { 0, 1, 0, 1, 1, 0, 0 };
    int any = 0;
    for (int i = 0; i < g_nsides; i++) {
        double v[N_COLS];
        if (f->r[i].fail[0]) continue;
        row_values(f, &f->r[i], v);
        for (int c = 0; c < N_COLS; c++)
            if (!any || (higher[c] ? v[c] > best[c] : v[c] < best[c])) best[c] = v[c];
        any = 1;
    }
}

static const char *order_name(int bo)
{
    return bo == TRZ_BYTE_ORDER_BIG ? "big-endian" : bo == TRZ_BYTE_ORDER_LITTLE ? "little-endian" : "";
}

static void print_heading(const file_res *f, const bopts *o)
{
    char a[32], b[32];
    printf("### %s\n\n%s bytes%s%s%s; trz format %s", f->base, group(f->raw, a, sizeof a),
           f->wrapper[0] ? " (unwrapped from " : "", f->wrapper, f->wrapper[0] ? ")" : "", f->format);
    if (*order_name(f->byte_order)) printf(", %s", order_name(f->byte_order));
    if (f->records >= 0 && f->rec_size > 1) printf(", %s records of %u bytes", group(f->records, b, sizeof b), f->rec_size);
    else if (f->records >= 0 && f->rec_size == 0) printf(", %s lines", group(f->records, b, sizeof b));
    printf("; median of %d run%s.\n\n", o->runs, o->runs == 1 ? "" : "s");
}

static void print_row(const file_res *f, int i, const double best[N_COLS])
{
    static const char *fmt[N_COLS] = { NULL, "%.2f", "%.3f", "%.1f", "%.1f", "%.1f", "%.1f" };
    const result *r = &f->r[i];
    double v[N_COLS];
    char buf[32];
    row_values(f, r, v);
    printf("| %s |", g_sides[i].label);
    for (int c = 0; c < N_COLS; c++) {
        if (r->fail[0] || (c == C_BPR && (f->rec_size == 1 || f->records <= 0))) { printf(" - |"); continue; }
        const char *mark = v[c] == best[c] ? "*" : "";
        if (c == C_SIZE) printf(" %s%s |", group(r->size, buf, sizeof buf), mark);
        else { printf(" "); printf(fmt[c], v[c]); printf("%s |", mark); }
    }
    if (r->fail[0]) printf(" **FAILED: %s** |\n", r->fail);
    else printf(" ok |\n");
}

void print_table(const file_res *f, const bopts *o)
{
    double best[N_COLS] = { 0 };
    best_values(f, best);
    print_heading(f, o);
    printf("| compressor | size (B) | ratio | %s | comp MiB/s | dec MiB/s | comp RSS MiB | dec RSS MiB | round trip |\n",
           f->rec_size == 0 ? "B/line" : "B/rec");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
    int failed = 0;
    for (int i = 0; i < g_nsides; i++) {
        print_row(f, i, best);
        failed += f->r[i].fail[0] != 0;
    }
    printf("\n");
    if (failed) printf("**%d of %d rows FAILED (see the last column).**\n\n", failed, g_nsides);
    if (g_missing[0]) printf("Not installed, skipped: %s.\n", g_missing);
    if (g_skipped[0]) printf("Left out by --quick: %s.\n", g_skipped);
    if (g_missing[0] || g_skipped[0]) printf("\n");
}

/* ---- per-stream breakdown -------------------------------------------------- */

typedef struct stream_sum { uint64_t total, sum; } stream_sum;

static void stream_row(void *ctx, const char *format, unsigned id, const char *name, uint64_t raw, uint64_t comp)
{
    stream_sum *s = ctx;
    char a[32], b[32];
    s->sum += comp;
    printf("| %s | %u | %s | %s | %s | %.2f%% |\n", format, id, name, group((int64_t)raw, a, sizeof a),
           group((int64_t)comp, b, sizeof b), s->total ? 100.0 * (double)comp / (double)s->total : 0.0);
}

/* The default-level one-thread archive if there is one, else the first trz one. */
static int streams_side(const file_res *f)
{
    int pick = -1;
    for (int i = 0; i < g_nsides; i++) {
        if (!g_sides[i].trz || f->r[i].fail[0]) continue;
        if (pick < 0) pick = i;
        if (g_sides[i].level == TRZ_LEVEL_DEFAULT && g_sides[i].threads == 1) return i;
    }
    return pick;
}

int print_streams(const file_res *f, const char *dir)
{
    int i = streams_side(f);
    char path[PATH_MAX], a[32], b[32];
    trz_reader *rd;
    if (i < 0) return 0;
    out_path(path, sizeof path, dir, i);
    if (trz_reader_open_path(&rd, path)) {
        msg_error("bench: %s: %s", path, trz_reader_error(rd));
        trz_reader_close(rd);
        return 1;
    }
    stream_sum s = { (uint64_t)f->r[i].size, 0 };
    printf("Bytes per stream of the `%s` archive (share of the archive):\n\n", g_sides[i].label);
    printf("| codec | id | stream | raw B | compressed B | share |\n|---|---:|---|---:|---:|---:|\n");
    int rc = trz_reader_streams(rd, stream_row, &s);
    if (rc) msg_error("bench: %s: %s", path, trz_reader_error(rd));
    trz_reader_close(rd);
    int64_t over = (int64_t)s.total - (int64_t)s.sum;
    printf("| container | | headers, index, footer | | %s | %.3f%% |\n\n", group(over, a, sizeof a),
           s.total ? 100.0 * (double)over / (double)s.total : 0.0);
    printf("Container overhead: %s bytes, %.3f%% of the archive, %.4f%% of the input (%s bytes).\n\n", a,
           s.total ? 100.0 * (double)over / (double)s.total : 0.0,
           f->raw ? 100.0 * (double)over / (double)f->raw : 0.0, group(f->raw, b, sizeof b));
    return rc ? 1 : 0;
}

static void stream_add(void *ctx, const char *format, unsigned id, const char *name, uint64_t raw, uint64_t comp)
{
    (void)format, (void)id, (void)name, (void)raw;
    *(uint64_t *)ctx += comp;
}

/* The container's own bytes (headers, index, footer) of every trz archive. */
void container_bytes(file_res *f, const char *dir)
{
    for (int i = 0; i < g_nsides; i++) {
        char path[PATH_MAX];
        trz_reader *rd;
        uint64_t sum = 0;
        f->r[i].container = -1;
        if (!g_sides[i].trz || f->r[i].fail[0]) continue;
        out_path(path, sizeof path, dir, i);
        if (trz_reader_open_path(&rd, path) == 0 && trz_reader_streams(rd, stream_add, &sum) == 0)
            f->r[i].container = f->r[i].size - (int64_t)sum;
        trz_reader_close(rd);
    }
}

/* ---- CSV ------------------------------------------------------------------ */

void csv_header(FILE *c)
{
    fprintf(c, "file,raw_bytes,format,record_size,records,compressor,family,level,threads,compressed_bytes,ratio,"
               "bytes_per_record,compress_s,decompress_s,compress_mib_s,decompress_mib_s,compress_rss_kib,"
               "decompress_rss_kib,container_bytes,compress_cpu_s,decompress_cpu_s,compress_runs_s,decompress_runs_s,status\n");
}

static void csv_runs(FILE *c, const double *t, int n)
{
    for (int k = 0; k < n; k++) fprintf(c, "%s%.6f", k ? ";" : "", t[k]);
}

void csv_rows(FILE *c, const file_res *f)
{
    for (int i = 0; i < g_nsides; i++) {
        const side *s = &g_sides[i];
        const result *r = &f->r[i];
        double v[N_COLS];
        row_values(f, r, v);
        fprintf(c, "%s,%lld,%s,%u,%lld,%s,%s,", f->base, (long long)f->raw, f->format, f->rec_size,
                (long long)f->records, s->label, s->family);
        if (s->trz) fprintf(c, "%d,%d,", s->level, s->threads);
        else fprintf(c, ",,");
        fprintf(c, "%lld,%.4f,%.5f,%.6f,%.6f,%.3f,%.3f,%ld,%ld,", (long long)r->size, v[C_RATIO], v[C_BPR],
                median(r->ct, r->nc), median(r->dt, r->nd), v[C_CS], v[C_DS], r->crss, r->drss);
        if (r->container >= 0) fprintf(c, "%lld", (long long)r->container);
        fprintf(c, ",%.6f,%.6f,", median(r->ccpu, r->nc), median(r->dcpu, r->nd));
        csv_runs(c, r->ct, r->nc);
        fputc(',', c);
        csv_runs(c, r->dt, r->nd);
        fprintf(c, ",%s\n", r->fail[0] ? "FAIL" : "ok");
    }
    fflush(c);
}

/* ---- plot ----------------------------------------------------------------- */

static int family_colour(const char *fam)
{
    static const char *fams[] = { "trz", "gzip", "bzip2", "xz", "zstd", "zstd=" };
    for (int i = 0; i < 6; i++)
        if (!strcmp(fam, fams[i])) return i + 1;
    return 7;
}

/* A short label for the plot: "trz-9", "trz-9 T0", "xz-9", "zstd-19L". */
static void plot_label(const side *sd, char *buf, size_t cap)
{
    if (sd->trz && sd->threads == 1) snprintf(buf, cap, "trz-%d", sd->level);
    else if (sd->trz) snprintf(buf, cap, "trz-%d T%d", sd->level, sd->threads);
    else {
        const char *dash = strchr(sd->label, '-');
        int n = dash ? (int)strcspn(dash, " ") : 0;
        snprintf(buf, cap, "%.16s%.*s%s", sd->c.a[0], n, dash ? dash : "", strstr(sd->label, "--long") ? "L" : "");
    }
}

/* One gnuplot data block per file: label, comp MiB/s, dec MiB/s, ratio,
 * colour, and where the label goes (0 above, 1 left, 2 right) so that the
 * one-thread and all-core trz points of one level do not hide each other. */
static void plot_data(FILE *d, const file_res *files, int nf)
{
    for (int k = 0; k < nf; k++) {
        const file_res *f = &files[k];
        for (int i = 0; i < g_nsides; i++) {
            double v[N_COLS];
            char label[48];
            if (f->r[i].fail[0]) continue;
            row_values(f, &f->r[i], v);
            plot_label(&g_sides[i], label, sizeof label);
            fprintf(d, "\"%s\" %.4g %.4g %.6g %d %d\n", label, v[C_CS], v[C_DS], v[C_RATIO],
                    family_colour(g_sides[i].family), !g_sides[i].trz ? 0 : g_sides[i].threads == 1 ? 1 : 2);
        }
        fprintf(d, "\n\n");
    }
}

/* Range and labelled tics for a log axis (gnuplot labels only decades by
 * itself): 1-2-5 per decade, finer on narrow ranges, decades on wide ones. */
static void log_tics(FILE *s, char axis, double lo, double hi)
{
    static const double fine[6] = { 1, 1.5, 2, 3, 5, 7 }, mid[3] = { 1, 2, 5 }, one[1] = { 1 };
    const double *steps = hi / lo < 30 ? fine : hi / lo > 1e4 ? one : mid;
    int nsteps = steps == fine ? 6 : steps == mid ? 3 : 1, first = 1;
    fprintf(s, "set %crange [%g:%g]\nset %ctics (", axis, lo, hi, axis);
    double dec = 1; /* the decade at or below lo, without libm */
    while (dec > lo) dec /= 10;
    while (dec * 10 <= lo) dec *= 10;
    for (; dec <= hi; dec *= 10)
        for (int m = 0; m < nsteps; m++) {
            double t = dec * steps[m];
            if (t < lo || t > hi) continue;
            fprintf(s, "%s\"%g\" %g", first ? "" : ", ", t, t);
            first = 0;
        }
    fprintf(s, ")\n");
}

/* Log axes fitted to the data of one panel, with room for the labels. */
static void panel_ranges(FILE *s, const file_res *f, int col)
{
    double lo[2] = { 0, 0 }, hi[2] = { 0, 0 };
    for (int i = 0; i < g_nsides; i++) {
        double v[N_COLS], xy[2];
        if (f->r[i].fail[0]) continue;
        row_values(f, &f->r[i], v);
        xy[0] = v[col], xy[1] = v[C_RATIO];
        for (int a = 0; a < 2; a++) {
            if (xy[a] <= 0) continue;
            if (lo[a] == 0 || xy[a] < lo[a]) lo[a] = xy[a];
            if (xy[a] > hi[a]) hi[a] = xy[a];
        }
    }
    if (lo[0] <= 0 || lo[1] <= 0) { fprintf(s, "set autoscale\nset xtics auto\nset ytics auto\n"); return; }
    log_tics(s, 'x', lo[0] / 2.5, hi[0] * 2.5);
    log_tics(s, 'y', lo[1] / 1.4, hi[1] * 1.4);
}

/* One series per compressor, named in the legend beside the panel: points
 * of close speeds and ratios do not hide each other's names (labels on the
 * points did).  Colour by family, a marker of its own for each. */
static void plot_panel(FILE *s, const char *data, int k, const file_res *f, int col, const char *what)
{
    fprintf(s, "set title \"%s: ratio vs %s speed\"\nset xlabel \"%s MiB/s (log)\"\n", f->base, what, what);
    panel_ranges(s, f, col == 2 ? C_CS : C_DS);
    fprintf(s, "plot");
    int line = 0;
    for (int i = 0; i < g_nsides; i++) {
        if (f->r[i].fail[0]) continue; /* plot_data left it out */
        char label[48];
        plot_label(&g_sides[i], label, sizeof label);
        fprintf(s, "%s \"%s\" index %d every ::%d::%d using %d:4 with points pt %d ps 1.6 lc %d title \"%s\"",
                line ? ", \\\n " : "", data, k, line, line, col, 4 + i % 11, family_colour(g_sides[i].family), label);
        line++;
    }
    fprintf(s, "\n");
}

static int plot_script(FILE *s, const char *data, const char *png, const file_res *files, int nf)
{
    fprintf(s, "set terminal pngcairo size 1400,%d font \",10\"\nset output \"%s\"\n", 80 + 440 * nf, png);
    fprintf(s, "set multiplot layout %d,2 title \"trz bench: compression ratio against speed, one point per "
               "compressor (higher and further right is better; trz -T0 = all cores)\"\n", nf);
    fprintf(s, "set logscale xy\nset grid\nset ylabel \"ratio (log)\"\nset key outside right top font \",9\"\n");
    for (int k = 0; k < nf; k++) {
        plot_panel(s, data, k, &files[k], 2, "compress");
        plot_panel(s, data, k, &files[k], 3, "decompress");
    }
    fprintf(s, "unset multiplot\n");
    return ferror(s) ? -1 : 0;
}

int make_plot(const char *png, const file_res *files, int nf, const char *dir)
{
    char data[PATH_MAX], script[PATH_MAX];
    dir_path(data, sizeof data, dir, "plot.dat");
    dir_path(script, sizeof script, dir, "plot.gp");
    FILE *d = fopen(data, "w"), *s = fopen(script, "w");
    int bad = !d || !s;
    if (d) { plot_data(d, files, nf); bad |= fclose(d) != 0; }
    if (s) { bad |= plot_script(s, data, png, files, nf) != 0; bad |= fclose(s) != 0; }
    if (bad) { msg_error("bench: cannot write the plot's files in %s", dir); return 1; }
    if (!on_path("gnuplot")) { msg_error("bench: gnuplot not found; no plot (apt-get install gnuplot-nox)"); return 1; }
    cmd g = { .n = 0 };
    child_run cr;
    cmd_add(&g, "gnuplot");
    int rc = run_child(&g, script, STDERR_FILENO, &cr);
    unlink(data), unlink(script);
    if (rc) { msg_error("bench: gnuplot failed (exit %d)", cr.status); return 1; }
    return 0;
}
