/* gzdeflate.h - a deflate encoder that makes, bit for bit, the raw deflate
 * streams of GNU gzip (levels 1..9, with or without --rsyncable) and of
 * Info-ZIP's zip 3.0, whose encoders descend from one algorithm: 64 KiB
 * window, 15-bit hash, lazy matching from level 4, blocks of up to 32,767
 * symbols ended early by a size estimate (drfile.md, "GNU gzip's and
 * Info-ZIP's deflate", which specifies what it makes).  trz's restore
 * rebuilds such streams with it; the input is pushed in pieces of any
 * size, the output goes to a sink. */
#ifndef TRZ_GZDEFLATE_H
#define TRZ_GZDEFLATE_H

#include <stddef.h>
#include <stdint.h>

/* Variants (the flavour byte of a restore operation 6). */
enum {
    GZD_GNU = 0,       /* GNU gzip 1.x, reading a regular file */
    GZD_GNU_RSYNC = 1, /* GNU gzip --rsyncable */
    GZD_INFOZIP = 2,   /* Info-ZIP zip 3.0 */
    GZD_FLAVOURS
};

typedef struct gzd gzd;
/* The sink gets the output in order; it returns 0, or -1 to stop the
 * encoder (every later call then fails). */
typedef int (*gzd_sink)(void *ctx, const uint8_t *p, size_t n);

/* An encoder for level 1..9 of the flavour; NULL when out of memory or
 * the settings are not known. About 550 KiB. */
gzd *drf_gzd_new(int level, int flavour, gzd_sink sink, void *ctx);
/* Input, in pieces of any size: 0, or -1 once the sink stopped it. */
int drf_gzd_feed(gzd *z, const uint8_t *p, size_t n);
/* The input ended: the rest of the stream. 0, or -1 (the sink stopped). */
int drf_gzd_finish(gzd *z);
void drf_gzd_free(gzd *z);

#endif
