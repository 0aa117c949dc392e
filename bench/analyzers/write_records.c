/* write_records.c - the push-style writer as a tracer uses it: records
 * handed to trz_writer_write one at a time as they are produced, no pipe
 * and no thread of the program's own.  Here the "tracer" replays a raw
 * trace: each record (or line, for text) is one write.
 *   write_records [-f FORMAT] [-r RECORD_SIZE] [-T THREADS] [-L LEVEL] IN OUT.trz
 * The archive is byte for byte the one `trz -FORMAT -T THREADS -LEVEL -c IN`
 * makes (tests/reader.sh checks that). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trz.h"

int main(int argc, char **argv)
{
    const char *format = "auto";
    long rs = 0, threads = 1, level = TRZ_LEVEL_DEFAULT;
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (strcmp(argv[i], "-f") == 0) format = argv[i + 1];
        else if (strcmp(argv[i], "-r") == 0) rs = strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "-T") == 0) threads = strtol(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "-L") == 0) level = strtol(argv[i + 1], NULL, 10);
        else break;
    }
    if (argc - i != 2 || rs < 0 || rs > 4096) {
        fprintf(stderr, "Usage: write_records [-f FORMAT] [-r RECORD_SIZE] [-T THREADS] [-L LEVEL] IN OUT.trz\n");
        return 2;
    }
    FILE *in = fopen(argv[i], "rb");
    if (!in) { perror(argv[i]); return 1; }

    /* the settings, then a writer into the file */
    trz_cctx *c = trz_cctx_create();
    if (!c || trz_cctx_set_format(c, format) || trz_cctx_set(c, TRZ_C_THREADS, threads) ||
        trz_cctx_set(c, TRZ_C_LEVEL, level)) {
        fprintf(stderr, "write_records: bad settings\n");
        return 2;
    }
    trz_writer *w;
    int rc = trz_writer_open_path(&w, c, argv[i + 1]);
    trz_cctx_free(c); /* the writer keeps a copy */

    /* one write per record: a line for text (rs 0), rs bytes otherwise */
    char *line = NULL;
    size_t cap = 0;
    uint8_t rec[4096];
    while (rc == TRZ_OK) {
        size_t n;
        if (rs == 0) {
            ssize_t len = getline(&line, &cap, in); /* a line, with its '\n' (NULs included) */
            if (len <= 0) break;
            rc = trz_writer_write(w, line, (size_t)len);
        } else {
            n = fread(rec, 1, (size_t)rs, in);
            if (n == 0) break;
            rc = trz_writer_write(w, rec, n); /* the last one may be partial */
        }
    }
    if (rc == TRZ_OK) rc = trz_writer_finish(w);
    if (rc) fprintf(stderr, "write_records: %s: %s\n", argv[i + 1], trz_writer_error(w));
    trz_writer_close(w);
    free(line);
    fclose(in);
    return rc ? 1 : 0;
}
