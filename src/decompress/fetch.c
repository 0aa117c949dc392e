/* fetch.c - a chunk's bytes through the index, checked against its entry,
 * and mended when its stored data fails its check and its member has
 * parity (FORMAT.md, "Parity"): the set's other chunks, intact, and its
 * parity give the damage's syndrome, and the places it allows are tried
 * against the chunk's payload check.  A chunk mended decodes as if
 * nothing had happened (its content hash still checks what it decodes
 * to); one that cannot be mended is damage as before. */
#include <errno.h>

#include "reader.h"

/* The stored bytes of chunk i into *buf (grown as needed), its header
 * parsed and its payload intact; 0 or -1. */
static int read_intact(trz_reader *r, uint64_t i, uint8_t **buf, size_t *cap, trz_chunk_hdr *h)
{
    const rchunk *c = &r->chunks[i];
    if (*cap < c->stored) {
        uint8_t *nb = realloc(*buf, c->stored);
        if (!nb) return -1;
        *buf = nb;
        *cap = c->stored;
    }
    size_t need;
    if (rd_read_at(r, c->offset, *buf, c->stored) || trz_chunk_parse_hdr(*buf, c->stored, h, &need) ||
        need != c->stored || !trz_chunk_payload_ok(h, *buf))
        return -1;
    return 0;
}

/* XOR the data of the chunk at p (header h) into syn, from set offset *pos. */
static void take(uint8_t *syn, uint32_t b, uint64_t *pos, const trz_chunk_hdr *h, const uint8_t *p)
{
    size_t plen, dlen = trz_chunk_parity_at(h, &plen);
    const uint8_t *d = p + h->hdr_len;
    for (size_t k = 0; k < dlen; k++) syn[(*pos + k) & (b - 1)] ^= d[k];
    *pos += dlen;
}

/* Chunk n (in d) carries its set's parity and the parity stream does not
 * serve (its head damaged): its data may be intact and the stream alone
 * damaged.  Write the stream again as the writer did, from the set the
 * writer's rule gives (the chunks after the carrier before, in n's
 * member), and keep it if the payload check passes. */
static int rebuild(trz_reader *r, uint64_t n, dchunk *d)
{
    size_t plen, at = d->h.hdr_len + trz_chunk_parity_at(&d->h, &plen);
    uint64_t s = n, raw = 0;
    while (!r->chunks[s].mfirst && s > 0 && !(r->chunks[s - 1].flags & TRZ_CHUNK_PARITY)) {
        raw += r->chunks[--s].raw;
        if (raw >= TRZ_PARITY_SET) return -1;
    }
    uint8_t *buf = NULL, *acc = calloc(1, TRZ_PARITY_MAX), *keep = malloc(plen ? plen : 1);
    size_t cap = 0;
    trz_buf st = { 0 };
    int ok = 0;
    uint64_t pos = 0;
    trz_chunk_hdr h;
    if (!acc || !keep) goto done;
    for (uint64_t i = s; i <= n; i++) {
        if (i != n && read_intact(r, i, &buf, &cap, &h)) goto done;
        take(acc, TRZ_PARITY_MAX, &pos, i == n ? &d->h : &h, i == n ? d->raw : buf);
    }
    if (trz_parity_stream(acc, pos, (uint32_t)(n - s + 1), &st) || st.n != plen) goto done;
    memcpy(keep, d->raw + at, plen);
    memcpy(d->raw + at, st.p, plen);
    ok = trz_chunk_payload_ok(&d->h, d->raw);
    if (!ok) memcpy(d->raw + at, keep, plen);
done:
    free(buf);
    free(acc);
    free(keep);
    free(st.p);
    return ok ? 0 : -1;
}

/* Mend chunk n, fetched into d with its payload check failing, from its
 * parity set: 0 (d mended, counted once) or -1. */
static int mend(trz_reader *r, uint64_t n, dchunk *d)
{
    /* the chunk that ends n's set: the first one from n on that carries parity, in n's member */
    uint64_t e = n;
    while (!(r->chunks[e].flags & TRZ_CHUNK_PARITY)) {
        if (r->chunks[e].mlast || e + 1 >= r->nchunks) return -1;
        e++;
    }
    /* a set tried once and found beyond mending (two damaged chunks, a
     * damaged carrier) is not read again for each of its chunks */
    if (r->rep_bad == e + 1) return -1;
    uint8_t *buf = NULL, *syn = NULL;
    size_t cap = 0;
    int ok = 0, other = 0;
    trz_chunk_hdr eh, h;
    const uint8_t *ep = d->raw;
    if (e != n) {
        if (read_intact(r, e, &buf, &cap, &eh)) goto done;
        ep = buf;
    } else {
        eh = d->h;
    }
    size_t plen, at = trz_chunk_parity_at(&eh, &plen);
    trz_parity par;
    int parsed = trz_parity_parse(ep + eh.hdr_len + at, plen, &par) == TRZ_OK;
    if (!parsed || par.nchunks > r->chunks[e].mno + 1 || e - n >= par.nchunks) {
        ok = e == n && rebuild(r, n, d) == 0;
        /* (n before e's set: a set left without parity, not e's to give up on) */
        if (parsed && e - n >= par.nchunks && par.nchunks <= r->chunks[e].mno + 1) other = 1;
        goto done;
    }
    /* a writer ends a set once it holds TRZ_PARITY_SET bytes of trace: a
     * longer one is damage (and would make mending read without bound) */
    uint64_t s = e - (par.nchunks - 1), raw = 0;
    for (uint64_t i = s; i < e; i++) raw += r->chunks[i].raw;
    if (raw >= TRZ_PARITY_SET) goto done;
    uint32_t b = par.block;
    if (!(syn = malloc(b))) goto done;
    memcpy(syn, par.bytes, b);
    /* the set's data, n's as read: what differs from the parity is n's damage */
    uint64_t pos = 0, o = 0;
    for (uint64_t i = s; i <= e; i++) {
        if (i == n) {
            o = pos;
            take(syn, b, &pos, &d->h, d->raw);
            continue;
        }
        if (read_intact(r, i, &buf, &cap, &h)) goto done;
        take(syn, b, &pos, &h, buf);
    }
    ok = pos == par.len && trz_parity_mend(&d->h, d->raw, o, syn, b) == TRZ_OK;
    /* the damage may lie in the parity itself: the data gives it back */
    if (!ok && e == n) ok = rebuild(r, n, d) == 0;
done:
    free(buf);
    free(syn);
    if (!ok) {
        if (!other) r->rep_bad = e + 1;
        return -1;
    }
    /* each chunk counted once, however often it is read (seeks, listings) */
    if (!r->rep_seen && !(r->rep_seen = calloc((size_t)(r->nchunks / 8 + 1), 1))) return 0;
    if (r->rep_seen[n / 8] >> (n % 8) & 1) return 0;
    r->rep_seen[n / 8] |= (uint8_t)(1u << (n % 8));
    if (!r->repaired++ || n < r->repaired_first) r->repaired_first = n;
    return 0;
}

/* Read chunk number n's bytes through the index. */
int rd_idx_fetch(trz_reader *r, uint64_t n, dchunk *d)
{
    rchunk *c = &r->chunks[n];
    if (d->raw_cap < c->stored) {
        size_t want = (size_t)c->stored + c->stored / 4; /* stored sizes vary: room to grow */
        free(d->raw);
        d->raw = trz_big_realloc(NULL, want); /* grown in place by sequential reading */
        d->raw_cap = d->raw ? want : 0;
        if (!d->raw) return rd_err(r, TRZ_ERR_NOMEM, "chunk %llu: out of memory", (unsigned long long)n);
    }
    int rc = rd_read_at(r, c->offset, d->raw, c->stored);
    if (rc) return rd_err(r, rc, "chunk %llu: %s", (unsigned long long)n, rc == TRZ_ERR_IO ? strerror(errno) : "truncated");
    size_t need;
    rc = trz_chunk_parse_hdr(d->raw, c->stored, &d->h, &need);
    if (rc) return rd_err(r, rc, "chunk %llu: damaged header (%s)", (unsigned long long)n, trz_strerror(rc));
    if (need != c->stored || d->h.nrec != c->nrec || d->h.raw != c->raw || d->h.codec != c->codec ||
        d->h.flags != c->flags || (c->codec == c->mcodec && c->codec != TRZ_CODEC_RAW && d->h.byte_order != c->mbo))
        return rd_err(r, TRZ_ERR_CORRUPT, "chunk %llu: its header disagrees with the index", (unsigned long long)n);
    /* a chunk of version 5 states its place: the index must put it there */
    if (c->mplaced && (d->h.place_no != c->mno || d->h.place_rec != c->mrec || d->h.place_byte != c->mbyte))
        return rd_err(r, TRZ_ERR_CORRUPT, "chunk %llu: it is chunk %lu of its member (record %llu), where the index "
                      "lists chunk %lu (record %llu): chunks are missing, repeated or out of order",
                      (unsigned long long)n, (unsigned long)d->h.place_no, (unsigned long long)d->h.place_rec,
                      (unsigned long)c->mno, (unsigned long long)c->mrec);
    /* a chunk of a member with parity that fails its check: mended when its set allows */
    if (c->mparity && !trz_chunk_payload_ok(&d->h, d->raw)) (void)mend(r, n, d);
    d->raw_len = c->stored;
    d->mcodec = trz_codec_by_id(c->mcodec);
    d->mbo = c->mbo;
    d->mfirst = c->mfirst;
    d->mknow = c->mknow;
    d->mchain = c->mchain;
    d->no = n;
    d->first_record = c->first_record;
    d->first_byte = c->first_byte;
    d->off = c->offset;
    d->stored = c->stored;
    d->numbers_ok = 1;
    return 1;
}
