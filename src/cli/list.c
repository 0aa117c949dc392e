/* list.c - `trz -l`: what an archive holds (format, byte order, records,
 * chunks, sizes; with -v the chunks and the bytes per stream). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "msg.h"

static const char *order_name(int bo)
{
    return bo == TRZ_BYTE_ORDER_BIG ? "big" : bo == TRZ_BYTE_ORDER_LITTLE ? "little" : "-";
}

/* The widest of the archive's format names (at least `least`), so that
 * "drmemtrace" and "champsim-cloudsuite" keep the columns after them. */
static int format_width(trz_reader *r, const trz_info *in, int least)
{
    int w = (int)strlen(in->format);
    for (int64_t i = 0; i < in->chunks; i++) {
        trz_chunk_info c;
        if (trz_reader_chunk(r, (uint64_t)i, &c) == TRZ_OK && (int)strlen(c.format) > w) w = (int)strlen(c.format);
    }
    return w > least ? w : least;
}

typedef struct stream_ctx {
    uint64_t total;
    int width;
} stream_ctx;

static void stream_row(void *ctx, const char *format, unsigned id, const char *name, uint64_t raw, uint64_t comp)
{
    const stream_ctx *s = ctx;
    printf("    %-*s %2u %-18s %12llu -> %10llu  %5.1f%%\n", s->width, format, id, name, (unsigned long long)raw,
           (unsigned long long)comp, s->total ? 100.0 * (double)comp / (double)s->total : 0.0);
}

/* -l on many files (or -r): one table, a row a file, and a totals row, as
 * xz -l and zstd -l print them; with -v each file's block in turn, then
 * the totals.  One file: its row and what it holds. */
static struct {
    int many, fw;
    unsigned files;
    uint64_t chunks, records, raw, comp;
} g_list;

static void header(int fw)
{
    printf("%-*s %-6s %7s %12s %14s %12s %8s %9s  %s\n", fw, "Format", "Order", "Chunks", "Records", "Raw", "Compressed",
           "Ratio", "Bits/rec", "File");
}

static void row(int fw, const char *format, const char *order, uint64_t chunks, uint64_t records, uint64_t raw,
                uint64_t comp, const char *name)
{
    printf("%-*s %-6s %7llu %12llu %14llu %12llu %8.2f %9.3f  %s\n", fw, format, order, (unsigned long long)chunks,
           (unsigned long long)records, (unsigned long long)raw, (unsigned long long)comp,
           comp ? (double)raw / (double)comp : 0.0, records ? 8.0 * (double)comp / (double)records : 0.0, name);
}

void list_begin(int many)
{
    memset(&g_list, 0, sizeof g_list);
    g_list.many = many;
    g_list.fw = 8; /* the widest format name the library knows, so that every row lines up */
    for (size_t i = 0; trz_format_name(i); i++)
        if ((int)strlen(trz_format_name(i)) > g_list.fw) g_list.fw = (int)strlen(trz_format_name(i));
}

void list_end(const cli_opts *o)
{
    if (!g_list.many || g_list.files < 2) return;
    char files[32];
    snprintf(files, sizeof files, "%u files", g_list.files);
    if (o->verbose) {
        printf("\nTotals:\n");
        header(g_list.fw);
    } else {
        for (int i = 0; i < g_list.fw + 84; i++) putchar('-');
        putchar('\n');
    }
    row(g_list.fw, "total", "-", g_list.chunks, g_list.records, g_list.raw, g_list.comp, files);
}

static int list_fd(const cli_opts *o, const char *name, int fd)
{
    trz_reader *r;
    int is_pipe = lseek(fd, 0, SEEK_CUR) < 0; /* stdin, or a FIFO with -f */
    int rc = trz_reader_open_fd(&r, fd);
    if (rc) {
        msg_error("%s: %s", name, trz_reader_error(r));
        trz_reader_close(r);
        return 1;
    }
    trz_info in;
    trz_reader_info(r, &in);
    if (!in.seekable) {
        msg_error("%s: cannot list: %s", name, is_pipe ? "the input is a pipe" : "the index is damaged or missing");
        trz_reader_close(r);
        return 1;
    }
    g_list.files++;
    g_list.chunks += (uint64_t)in.chunks;
    g_list.records += (uint64_t)in.records;
    g_list.raw += (uint64_t)in.raw_bytes;
    g_list.comp += (uint64_t)in.compressed_bytes;
    int table = g_list.many && !o->verbose; /* a row, no more */
    int fw = g_list.many ? g_list.fw : (int)strlen(in.format) > 8 ? (int)strlen(in.format) : 8;
    if (!table || g_list.files == 1) {
        if (g_list.many && g_list.files > 1) putchar('\n');
        header(fw);
    }
    row(fw, in.format, order_name(in.byte_order), (uint64_t)in.chunks, (uint64_t)in.records, (uint64_t)in.raw_bytes,
        (uint64_t)in.compressed_bytes, name);
    if (table) {
        trz_reader_close(r);
        return 0;
    }
    /* records per chunk: the usual count, and the last chunk's */
    if (in.chunks > 0) {
        trz_chunk_info first, last;
        trz_reader_chunk(r, 0, &first);
        trz_reader_chunk(r, (uint64_t)in.chunks - 1, &last);
        printf("  records per chunk: %llu", (unsigned long long)first.records);
        if (in.chunks > 1) printf(" (last chunk %llu)", (unsigned long long)last.records);
        printf("; %lld member%s\n", (long long)in.members, in.members == 1 ? "" : "s");
        /* groups: where a seek starts decoding (or reading knowledge) */
        int64_t groups = 0, chained = 0, know = 0;
        /* the chain a seek decodes most of: its first chunk, chunks, raw bytes */
        int64_t at = 0, n = 0, best_at = 0, best_n = 0;
        uint64_t bytes = 0, best_bytes = 0;
        for (int64_t i = 0; i < in.chunks; i++) {
            int ch;
            trz_chunk_info c;
            trz_reader_chunk(r, (uint64_t)i, &c);
            if (trz_reader_chunk_group(r, (uint64_t)i, &ch) == i) {
                groups++;
                chained += ch;
                at = i, n = 0, bytes = 0;
            }
            n++, bytes += c.raw_bytes;
            if (bytes > best_bytes) best_at = at, best_n = n, best_bytes = bytes;
        }
        for (int64_t i = 0; i < in.chunks && !chained; i++) know |= trz_reader_chunk_group(r, (uint64_t)i, NULL) != i;
        if (chained)
            printf("  groups: %lld, %lld of them chains (a chunk continues the models of the chunk before; a seek "
                   "decodes from its group's first chunk); the longest: %lld chunks from chunk %lld, %llu raw bytes\n",
                   (long long)groups, (long long)chained, (long long)best_n, (long long)best_at,
                   (unsigned long long)best_bytes);
        else if (know)
            printf("  groups: %lld (a chunk starts from the knowledge its group's earlier chunks stated)\n",
                   (long long)groups);
    }
    trz_container_info ci;
    int crc = trz_reader_container(r, &ci);
    if (crc == TRZ_ERR_UNSUPPORTED && ci.how[0]) { /* a newer trz's block, or one in each member: listed as such, not damage */
        if (ci.size) printf("  original file: %s, %llu bytes; %s\n", ci.kind, (unsigned long long)ci.size, ci.how);
        else printf("  original file: %s; %s\n", ci.kind, ci.how);
    } else if (crc != TRZ_OK) {
        msg_error("%s: %s", name, trz_reader_error(r));
        trz_reader_close(r);
        return 1;
    } else if (ci.kind) {
        printf("  original file: %s, %llu bytes; %s\n", ci.kind, (unsigned long long)ci.size, ci.how);
        if (o->verbose)
            printf("  of them kept as they were: %llu bytes (headers, directories, streams not rebuilt); trz -d "
                   "restores the file, trz -dc gives the records\n", (unsigned long long)ci.kept);
    } else if (in.unwrapped) {
        printf("  unwrapped: the input was %s-compressed; the archive holds the trace inside, not the %s file "
               "(its records alone)\n", in.unwrapped, in.unwrapped);
    }
    if (o->verbose) {
        int cpus = trz_reader_cpus(r); /* decodes the trace: only with -v */
        if (cpus > 0) printf("  CPUs: %d\n", cpus);
        int cw = format_width(r, &in, 6);
        printf("  %8s %12s %10s %12s %14s %12s %*s  %s\n", "Chunk", "First rec", "Records", "Raw", "Offset", "Stored",
               cw, "Codec", "Variant");
        for (int64_t i = 0; i < in.chunks; i++) {
            trz_chunk_info c;
            char var[32];
            trz_reader_chunk(r, (uint64_t)i, &c);
            if (trz_reader_chunk_variant(r, (uint64_t)i, var, sizeof var) != TRZ_OK) {
                msg_error("%s: %s", name, trz_reader_error(r));
                trz_reader_close(r);
                return 1;
            }
            printf("  %8lld %12llu %10llu %12llu %14llu %12llu %*s  %s\n", (long long)i,
                   (unsigned long long)c.first_record, (unsigned long long)c.records, (unsigned long long)c.raw_bytes,
                   (unsigned long long)c.offset, (unsigned long long)c.stored_bytes, cw, c.format, var);
        }
        printf("  bytes per stream (raw -> compressed, share of the archive):\n");
        stream_ctx sc = { (uint64_t)in.compressed_bytes, format_width(r, &in, 6) };
        if (trz_reader_streams(r, stream_row, &sc)) {
            msg_error("%s: %s", name, trz_reader_error(r));
            trz_reader_close(r);
            return 1;
        }
    }
    /* (the listing read chunks: a damaged one it mended is damage all the same) */
    int mended = msg_mended(name, r);
    trz_reader_close(r);
    return mended;
}

int list_file(const cli_opts *o, const char *name)
{
    if (strcmp(name, "-") == 0) return list_fd(o, "(stdin)", STDIN_FILENO);
    struct stat st;
    int fd = fio_open_input(o, name, &st);
    if (fd < 0) return 1;
    int rc = list_fd(o, name, fd);
    close(fd);
    return rc;
}
