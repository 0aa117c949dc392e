/* parity.c - a member's parity sets (FORMAT.md, "Parity"): the XOR of a
 * set's data, folded to a block about 1/256 of it, lets a reader mend one
 * damaged stretch of a set (a flipped byte, a burst up to the block's
 * length) instead of losing the chunk and what it carries into its chain.
 * The writer folds (trz_parity_stream); the reader parses the block and
 * tries the places the syndrome allows (trz_parity_mend). */
#include "format.h"

uint32_t trz_parity_block(uint64_t len)
{
    uint32_t b = TRZ_PARITY_MIN;
    while (b < TRZ_PARITY_MAX && (uint64_t)b * TRZ_PARITY_DIV < len) b <<= 1;
    return b;
}

static unsigned log2u(uint32_t b)
{
    unsigned e = 0;
    while ((1u << e) < b) e++;
    return e;
}

int trz_parity_stream(const uint8_t *acc, uint64_t len, uint32_t nchunks, trz_buf *out)
{
    uint32_t b = trz_parity_block(len);
    out->n = 0;
    trz_put_u8(out, 1); /* layout */
    trz_put_uvarint(out, nchunks);
    trz_put_u8(out, (uint8_t)log2u(b));
    trz_put_uvarint(out, len);
    size_t at = out->n;
    if (trz_buf_reserve(out, at + b)) return TRZ_ERR_NOMEM;
    /* positions were taken modulo TRZ_PARITY_MAX; b divides it */
    memcpy(out->p + at, acc, b);
    for (uint32_t k = b; k < TRZ_PARITY_MAX; k += b)
        for (uint32_t i = 0; i < b; i++) out->p[at + i] ^= acc[k + i];
    out->n = at + b;
    return out->oom ? TRZ_ERR_NOMEM : TRZ_OK;
}

int trz_parity_take(trz_parity_set *s, trz_buf *out, size_t raw, int last)
{
    trz_chunk_hdr h;
    size_t need;
    if (trz_chunk_parse_hdr(out->p, out->n, &h, &need) || need != out->n) return TRZ_ERR_CODEC;
    if (!s->acc && !(s->acc = calloc(1, TRZ_PARITY_MAX))) return TRZ_ERR_NOMEM;
    const uint8_t *d = out->p + h.hdr_len;
    for (size_t i = 0; i < h.payload;) {
        size_t at = (size_t)(s->len % TRZ_PARITY_MAX), n = TRZ_PARITY_MAX - at;
        if (n > h.payload - i) n = h.payload - i;
        for (size_t k = 0; k < n; k++) s->acc[at + k] ^= d[i + k];
        i += n;
        s->len += n;
    }
    s->raw += raw;
    s->n++;
    if (s->raw < TRZ_PARITY_SET && !last) return TRZ_OK;
    int rc = trz_parity_stream(s->acc, s->len, s->n, &s->stream);
    uint64_t total = s->stream.n;
    for (unsigned k = 0; k < h.nstreams; k++) total += h.rsize[k];
    /* a set that does not compress goes without: never larger than the input */
    if (rc == TRZ_OK && s->len + s->stream.n + TRZ_STREAM_ENTRY <= s->raw && h.nstreams < TRZ_MAX_STREAMS &&
        s->stream.n <= TRZ_STREAM_RAW_LIMIT(raw) && total <= TRZ_STREAMS_RAW_LIMIT(raw))
        rc = trz_chunk_add_parity(out, s->stream.p, s->stream.n);
    memset(s->acc, 0, TRZ_PARITY_MAX);
    s->len = s->raw = 0;
    s->n = 0;
    return rc;
}

void trz_parity_set_free(trz_parity_set *s)
{
    free(s->acc);
    free(s->stream.p);
    memset(s, 0, sizeof *s);
}

int trz_parity_parse(const uint8_t *p, size_t n, trz_parity *par)
{
    trz_rd r;
    trz_rd_init(&r, p, n);
    if (trz_get_u8(&r) != 1) return TRZ_ERR_UNSUPPORTED; /* a layout of a later version */
    uint64_t nch = trz_get_uvarint(&r);
    unsigned e = trz_get_u8(&r);
    uint64_t len = trz_get_uvarint(&r);
    if (r.err || nch == 0 || nch > UINT32_MAX || e < 4 || e > 20) return TRZ_ERR_CORRUPT;
    uint32_t b = 1u << e;
    if (trz_rd_left(&r) != b || b != trz_parity_block(len)) return TRZ_ERR_CORRUPT;
    par->nchunks = (uint32_t)nch;
    par->len = len;
    par->block = b;
    par->bytes = r.p;
    return TRZ_OK;
}

/* Undo (or do) the syndrome at the positions of candidate k: the ones
 * residue r takes in block k, or in block k + 1 for r below r0 (a stretch
 * that crosses a block's end).  0 when a position falls outside the
 * chunk's data [o, o + dlen). */
static int flip(uint8_t *data, uint64_t o, size_t dlen, const uint8_t *syn, const uint32_t *res, size_t nres,
                uint32_t b, uint64_t k, uint32_t r0, int test)
{
    for (size_t j = 0; j < nres; j++) {
        uint32_t r = res[j];
        uint64_t pos = (k + (r < r0)) * b + r;
        if (pos < o || pos - o >= dlen) return 0;
        if (!test) data[pos - o] ^= syn[r];
    }
    return 1;
}

int trz_parity_mend(const trz_chunk_hdr *h, uint8_t *p, uint64_t o, const uint8_t *syn, uint32_t b)
{
    size_t plen;
    size_t dlen = trz_chunk_parity_at(h, &plen);
    uint8_t *data = p + h->hdr_len;
    uint32_t *res = malloc((size_t)b * sizeof *res);
    if (!res) return TRZ_ERR_NOMEM;
    size_t nres = 0;
    for (uint32_t r = 0; r < b; r++)
        if (syn[r]) res[nres++] = r;
    int ok = 0;
    if (nres) {
        /* the damage is one stretch shorter than a block: its residues lie
         * on a circle of b with the largest gap before its first byte */
        uint32_t r0 = res[0], gap = res[0] + b - res[nres - 1];
        for (size_t j = 1; j < nres; j++)
            if (res[j] - res[j - 1] > gap) gap = res[j] - res[j - 1], r0 = res[j];
        uint64_t k0 = o / b, k1 = (o + dlen) / b;
        for (uint64_t k = k0 ? k0 - 1 : 0; k <= k1 && !ok; k++) {
            uint32_t starts[2] = { 0, r0 };
            for (int v = 0; v < (r0 ? 2 : 1) && !ok; v++) {
                if (!flip(data, o, dlen, syn, res, nres, b, k, starts[v], 1)) continue;
                flip(data, o, dlen, syn, res, nres, b, k, starts[v], 0);
                ok = trz_chunk_payload_ok(h, p);
                if (!ok) flip(data, o, dlen, syn, res, nres, b, k, starts[v], 0);
            }
        }
    }
    free(res);
    return ok ? TRZ_OK : TRZ_ERR_CHECKSUM;
}
