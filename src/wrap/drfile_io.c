/* drfile_io.c - the drmemtrace file layer's byte I/O (drfile.md): input
 * buffered at an absolute position, output gathered in pieces, and the
 * CRC-32C snappy's framing checks. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "drfile_int.h"

/* ---- buffered input with an absolute position (drfile_int.h) ---- */
int drf_din_init(din *d, const trz_io *io, uint64_t off)
{
    memset(d, 0, sizeof *d);
    d->io = io;
    d->pos = off;
    d->limit = UINT64_MAX;
    d->b = malloc(DIN_CAP);
    return d->b ? 0 : -1;
}

void drf_din_free(din *d)
{
    free(d->b);
    if (d->h) XXH3_freeState(d->h);
    d->b = NULL;
    d->h = NULL;
}

/* At least n bytes (n <= DIN_CAP) ready, unless the input ends first. */
size_t drf_din_fill(din *d, size_t n)
{
    if (din_avail(d) >= n || d->eof || d->err) return din_avail(d);
    size_t have = din_avail(d);
    memmove(d->b, d->b + d->at, have);
    d->len = have;
    d->at = 0;
    while (d->len < n && !d->eof) {
        size_t want = DIN_CAP - d->len;
        if (d->limit != UINT64_MAX) want = (size_t)MIN((uint64_t)want, d->limit > d->pos ? d->limit - d->pos : 0);
        if (want == 0) { d->eof = 1; break; }
        if (!d->pull && d->io->seek && d->io->seek(d->io->opaque, d->pos) != 0) { d->err = 1; break; }
        int64_t r = d->pull ? d->pull(d->pctx, d->b + d->len, want) : d->io->read(d->io->opaque, d->b + d->len, want);
        if (r < 0) { d->err = 1; break; }
        if (r == 0) { d->eof = 1; break; }
        d->len += (size_t)r;
        d->pos += (uint64_t)r;
    }
    return din_avail(d);
}

/* Read from off on.  What the buffer holds is used again: a plan's
 * operations come in file order, most a few bytes after the last, and a
 * fresh read of the buffer for each would make a zip of many small members
 * cost its size times their number. */
void drf_din_seek(din *d, uint64_t off)
{
    uint64_t start = d->pos - d->len;
    if (off >= start && off <= d->pos) {
        d->at = (size_t)(off - start);
        return;
    }
    d->pos = off;
    d->at = d->len = 0;
    d->eof = 0;
}

/* Pass over n bytes: without reading them when the input can seek. */
int drf_din_skip(din *d, uint64_t n)
{
    if (n <= din_avail(d)) { din_take(d, (size_t)n); return 0; }
    if (!d->h && !d->pull && d->io->seek) {
        d->pos = din_off(d) + n;
        d->at = d->len = 0;
        return 0;
    }
    while (n) {
        size_t av = drf_din_fill(d, (size_t)MIN(n, (uint64_t)DIN_CAP));
        if (av == 0) return -1;
        size_t k = (size_t)MIN((uint64_t)av, n);
        din_take(d, k);
        n -= k;
    }
    return 0;
}

/* ---- output gathered in pieces ---- */
int drf_gather_flush(gather *g)
{
    size_t n = g->n;
    g->n = 0;
    return n && g->emit(g->ctx, g->b, n) ? -1 : 0;
}

int drf_gather_put(gather *g, const uint8_t *p, size_t n)
{
    if (n > GATHER_CAP - g->n && drf_gather_flush(g)) return -1;
    if (n >= GATHER_CAP) return g->emit(g->ctx, p, n) ? -1 : 0;
    memcpy(g->b + g->n, p, n);
    g->n += n;
    return 0;
}

/* ---- CRC-32C (Castagnoli), masked as snappy's framing stores it ---- */
static uint32_t crc32c_table[256];

static void crc32c_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        crc32c_table[i] = c;
    }
}

uint32_t drf_crc32c(const uint8_t *p, size_t n)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, crc32c_init);
    const uint32_t *t = crc32c_table;
    uint32_t c = 0xffffffffu;
    while (n--) c = t[(c ^ *p++) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}
