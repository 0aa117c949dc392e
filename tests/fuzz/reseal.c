/* reseal.c - change a field that places records in a .trz archive and
 * recompute every check (tests/fuzz/archive.h), as a writer bug would leave
 * it, for the golden bad-* files and the CLI tests.
 * Usage: reseal IN OUT nrec CHUNK DELTA   (record count += DELTA, header and index)
 *        reseal IN OUT flags CHUNK XOR    (flags byte ^= XOR, header and index)
 *        reseal IN OUT seal               (only recompute the checks) */
#include <stdio.h>
#include <stdlib.h>

#include "archive.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: reseal IN OUT nrec|flags|seal [CHUNK VALUE]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 1; }
    size_t cap = 1 << 24, n;
    uint8_t *p = malloc(cap);
    if (!p) return 1;
    n = fread(p, 1, cap, f);
    fclose(f);
    static ar_map map;
    ar_walk(p, n, &map, 0);
    if (!map.complete) { fprintf(stderr, "%s: not an archive this tool can walk\n", argv[1]); return 1; }
    unsigned chunk = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 0;
    long v = argc > 5 ? strtol(argv[5], NULL, 0) : 0;
    if (strcmp(argv[3], "seal") != 0 && (argc < 6 || chunk >= map.nc)) { fprintf(stderr, "no chunk %u\n", chunk); return 1; }
    if (strcmp(argv[3], "nrec") == 0) ar_set_nrec(p, n, &map, chunk, map.c[chunk].nrec + (uint32_t)v);
    else if (strcmp(argv[3], "flags") == 0) ar_set_flags(p, n, &map, chunk, map.c[chunk].flags ^ (uint8_t)v);
    else if (strcmp(argv[3], "seal") == 0) ar_walk(p, n, &map, 1);
    else { fprintf(stderr, "unknown change '%s'\n", argv[3]); return 2; }
    f = fopen(argv[2], "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) { perror(argv[2]); return 1; }
    free(p);
    return 0;
}
