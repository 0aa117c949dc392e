/* base.c - the bottom of the decompress room: what its other files share
 * and call, calling none of them.  The reader's message; its input (a
 * look-ahead served before it, bytes given back, reads at an offset);
 * member headers and restore blocks noted; a decoded chunk's memory
 * given back. */
#include <errno.h>
#include <stdarg.h>

#include "reader.h"

/* ---- errors ---- */
int rd_err(trz_reader *r, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- raw input ---- */
/* Read from the look-ahead first, then from the input. */
static int64_t raw_read(trz_reader *r, void *buf, size_t n)
{
    if (r->look_pos < r->look_len) {
        size_t k = r->look_len - r->look_pos;
        if (k > n) k = n;
        memcpy(buf, r->look + r->look_pos, k);
        r->look_pos += k;
        return (int64_t)k;
    }
    return r->io.read(r->io.opaque, buf, n);
}

/* Give back the n bytes just read (they end at spos) to be read again. */
int rd_push_back(trz_reader *r, const uint8_t *p, size_t n)
{
    size_t rest = r->look_len - r->look_pos;
    uint8_t *nl = malloc(n + rest + 1);
    if (!nl) return TRZ_ERR_NOMEM;
    memcpy(nl, p, n);
    if (rest) memcpy(nl + n, r->look + r->look_pos, rest);
    free(r->look);
    r->look = nl;
    r->look_pos = 0;
    r->look_len = n + rest;
    r->spos -= n;
    return TRZ_OK;
}

int rd_read_exact(trz_reader *r, void *buf, size_t n, size_t *got)
{
    size_t have = 0;
    while (have < n) {
        int64_t k = raw_read(r, (uint8_t *)buf + have, n - have);
        if (k < 0) return TRZ_ERR_IO;
        if (k == 0) break;
        have += (size_t)k;
    }
    r->spos += have;
    if (got) *got = have;
    return have == n ? TRZ_OK : TRZ_ERR_TRUNCATED;
}

int rd_read_at(trz_reader *r, uint64_t off, void *buf, size_t n)
{
    if (r->io.seek(r->io.opaque, off) != 0) return TRZ_ERR_IO;
    r->spos = off;
    r->look_pos = r->look_len = 0;
    return rd_read_exact(r, buf, n, NULL);
}

/* ---- members ---- */
int rd_parse_member_header(trz_reader *r, const uint8_t *h, size_t n, size_t *len, trz_file_hdr *f)
{
    int rc = trz_file_hdr_parse(h, n, f, len);
    if (rc) return rc;
    const trz_codec *c = trz_codec_by_id(f->codec);
    if (!r->codec) {
        r->codec = c;
        r->byte_order = f->byte_order;
        r->wrap = f->wrap;
    } else if (r->codec != c || r->byte_order != f->byte_order) {
        r->mixed = 1;
    }
    return TRZ_OK;
}

void rd_note_restore(trz_reader *r, uint64_t start, uint64_t at, const trz_file_hdr *f)
{
    r->restore_blocks++;
    if (start == 0) { /* the first member's */
        r->restore_off = at;
        r->restore_size = f->restore_size;
        r->restore_kind = f->restore_kind;
    }
}

/* ---- chunks ---- */
void rd_dchunk_free(dchunk *d)
{
    trz_big_release(d->data, d->cap);
    free(d->raw);
    d->data = d->raw = NULL;
    d->cap = d->raw_cap = 0;
}
