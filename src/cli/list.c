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
    double ratio = in.compressed_bytes ? (double)in.raw_bytes / (double)in.compressed_bytes : 0;
    int fw = (int)strlen(in.format) > 8 ? (int)strlen(in.format) : 8;
    printf("%-*s %-6s %7s %12s %14s %12s %8s %9s  %s\n", fw, "Format", "Order", "Chunks", "Records", "Raw", "Compressed",
           "Ratio", "Bits/rec", "File");
    printf("%-*s %-6s %7lld %12lld %14lld %12lld %8.2f %9.3f  %s\n", fw, in.format, order_name(in.byte_order),
           (long long)in.chunks, (long long)in.records, (long long)in.raw_bytes, (long long)in.compressed_bytes, ratio,
           in.records ? 8.0 * (double)in.compressed_bytes / (double)in.records : 0.0, name);
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
        for (int64_t i = 0; i < in.chunks; i++) {
            int ch;
            if (trz_reader_chunk_group(r, (uint64_t)i, &ch) != i) continue;
            groups++;
            chained += ch;
        }
        for (int64_t i = 0; i < in.chunks && !chained; i++) know |= trz_reader_chunk_group(r, (uint64_t)i, NULL) != i;
        if (chained)
            printf("  groups: %lld, %lld of them chains (a chunk continues the models of the chunk before; a seek "
                   "decodes from its group's first chunk)\n", (long long)groups, (long long)chained);
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
    trz_reader_close(r);
    return 0;
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
