/* fuzz_common.h - pieces shared by the fuzz targets, the replay driver and
 * the sweep helpers: a growable in-memory output and a read-only (pipe-like)
 * input for trz_io, parameters taken from the first bytes of a fuzz input,
 * and compression of a buffer into memory. */
#ifndef TRZ_FUZZ_COMMON_H
#define TRZ_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/trz.h"

/* ---- output into a growable buffer ---- */
typedef struct fz_out {
    uint8_t *p;
    size_t n, cap;
} fz_out;

static inline int64_t fz_out_write(void *opaque, const void *buf, size_t n)
{
    fz_out *o = opaque;
    if (o->n + n > o->cap) {
        size_t nc = o->cap ? o->cap : 4096;
        while (nc < o->n + n) nc *= 2;
        uint8_t *np = realloc(o->p, nc);
        if (!np) return -1;
        o->p = np;
        o->cap = nc;
    }
    if (n) memcpy(o->p + o->n, buf, n);
    o->n += n;
    return (int64_t)n;
}

static inline void fz_io_out(trz_io *io, fz_out *o)
{
    memset(io, 0, sizeof *io);
    io->opaque = o;
    io->write = fz_out_write;
}

/* ---- input from memory; seek and size only when `seekable` ---- */
typedef struct fz_in {
    const uint8_t *p;
    size_t n, pos;
    size_t step; /* largest read handed out at once: short reads are legal */
} fz_in;

static inline int64_t fz_in_read(void *opaque, void *buf, size_t n)
{
    fz_in *in = opaque;
    size_t k = in->n - in->pos;
    if (k > n) k = n;
    if (in->step && k > in->step) k = in->step;
    if (k) memcpy(buf, in->p + in->pos, k);
    in->pos += k;
    return (int64_t)k;
}

static inline int fz_in_seek(void *opaque, uint64_t off)
{
    fz_in *in = opaque;
    if (off > in->n) return -1;
    in->pos = (size_t)off;
    return 0;
}

static inline int64_t fz_in_size(void *opaque) { return (int64_t)((fz_in *)opaque)->n; }

static inline void fz_io_in(trz_io *io, fz_in *in, const void *p, size_t n, size_t step, int seekable)
{
    memset(io, 0, sizeof *io);
    in->p = p;
    in->n = n;
    in->pos = 0;
    in->step = step;
    io->opaque = in;
    io->read = fz_in_read;
    if (seekable) {
        io->seek = fz_in_seek;
        io->size = fz_in_size;
    }
}

/* ---- parameters from the front of a fuzz input ---- */
typedef struct fz_data {
    const uint8_t *p;
    size_t n;
} fz_data;

static inline unsigned fz_u8(fz_data *d)
{
    if (!d->n) return 0;
    d->n--;
    return *d->p++;
}

static inline uint32_t fz_u32(fz_data *d)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v = v << 8 | fz_u8(d);
    return v;
}

/* ---- compression into memory ---- */
typedef struct fz_cparams {
    const char *format;
    int level, backend, threads, verify;
    int64_t chunk_bytes, chunk_records;
} fz_cparams;

/* Compress src into *out (appended), in groups of `restart` bytes (0: the
 * format's own length); returns a trz_result. */
static inline int fz_compress_groups(const fz_cparams *cp, int64_t restart, const void *src, size_t n, fz_out *out,
                                     char *err, size_t errlen)
{
    trz_cctx *c = trz_cctx_create();
    if (!c) return TRZ_ERR_NOMEM;
    int rc = trz_cctx_set(c, TRZ_C_LEVEL, cp->level);
    if (!rc) rc = trz_cctx_set(c, TRZ_C_BACKEND, cp->backend);
    if (!rc) rc = trz_cctx_set(c, TRZ_C_THREADS, cp->threads);
    if (!rc) rc = trz_cctx_set(c, TRZ_C_VERIFY, cp->verify);
    if (!rc) rc = trz_cctx_set(c, TRZ_C_CHUNK_BYTES, cp->chunk_bytes);
    if (!rc) rc = trz_cctx_set(c, TRZ_C_CHUNK_RECORDS, cp->chunk_records);
    if (!rc && restart) rc = trz_cctx_set(c, TRZ_C_RESTART_BYTES, restart);
    if (!rc) rc = trz_cctx_set(c, TRZ_C_UNWRAP, 0); /* the bytes are the trace, whatever they look like */
    if (!rc) rc = trz_cctx_set_format(c, cp->format ? cp->format : "auto"); /* NULL: auto-detected */
    if (!rc) {
        fz_in in;
        trz_io iio, oio;
        fz_io_in(&iio, &in, src, n, 0, 0);
        fz_io_out(&oio, out);
        rc = trz_compress(c, &iio, &oio);
        if (rc && err) snprintf(err, errlen, "%s", trz_cctx_error(c));
    }
    trz_cctx_free(c);
    return rc;
}

static inline int fz_compress(const fz_cparams *cp, const void *src, size_t n, fz_out *out, char *err, size_t errlen)
{
    return fz_compress_groups(cp, 0, src, n, out, err, errlen);
}

/* Read everything a reader hands out, `step` bytes at a time at most, into
 * *out (NULL: count only, into *total).  Returns 0 at a clean end, or the
 * negative trz_result that stopped it. */
static inline int64_t fz_read_all(trz_reader *r, fz_out *out, size_t step, uint64_t *total)
{
    uint8_t buf[16384];
    size_t want = step == 0 || step > sizeof buf ? sizeof buf : step;
    for (;;) {
        int64_t g = trz_read_bytes(r, buf, want);
        if (g <= 0) return g;
        if ((size_t)g > want) abort(); /* more than asked for */
        if (total) *total += (uint64_t)g;
        if (out && fz_out_write(out, buf, (size_t)g) < 0) return TRZ_ERR_NOMEM;
    }
}

/* A fixed pseudo-random sequence (archives built once from it). */
static inline uint32_t fz_rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* n bytes that look like records of rs bytes: slowly moving addresses, few kinds. */
static inline uint8_t *fz_gen_records(size_t rs, size_t n, uint64_t seed)
{
    uint8_t *p = malloc(n + 1);
    if (!p) abort();
    uint32_t addr = 0x10000;
    for (size_t i = 0; i < n; i++) {
        if (i % rs == 0) addr += (fz_rnd(&seed) % 4) * 4;
        size_t k = i % rs;
        p[i] = k < 4 ? (uint8_t)(addr >> (8 * k)) : (uint8_t)(fz_rnd(&seed) % 3);
    }
    return p;
}

#endif
