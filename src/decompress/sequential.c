/* sequential.c - reading without an index (a pipe, or a damaged index):
 * member headers, chunks and indexes in the order they come, each checked
 * against what was read before it. */
#include <errno.h>

#include "reader.h"

static int seq_index(trz_reader *r, uint64_t at);
static int note_chunk(trz_reader *r, const dchunk *d, uint64_t at);

/* Read the rest of a member header whose first *have bytes are in h (up
 * to TRZ_FILE_HDR_MAX): its fixed part, then as much as that says it has. */
static int header_rest(trz_reader *r, uint8_t *h, size_t *have)
{
    size_t got, len;
    trz_file_hdr f;
    int rc = rd_read_exact(r, h + *have, TRZ_FILE_HDR_FIXED - *have, &got);
    *have += got;
    if (rc == TRZ_OK && trz_file_hdr_parse(h, *have, &f, &len) == TRZ_ERR_TRUNCATED && len > *have &&
        len <= TRZ_FILE_HDR_MAX) {
        rc = rd_read_exact(r, h + *have, len - *have, &got);
        *have += got;
    }
    return rc;
}

/* After 4 bytes that are not the magic: whether they begin a member header
 * whose magic alone is damaged, which its check, computed with the magic put
 * right, tells.  The bytes read after the 4 are given back. */
static int magic_damaged(trz_reader *r)
{
    uint8_t b[TRZ_FILE_HDR_MAX];
    size_t have = 4, len;
    trz_file_hdr f;
    memcpy(b, trz_file_magic, 4);
    int ok = header_rest(r, b, &have) == TRZ_OK && trz_file_hdr_parse(b, have, &f, &len) == TRZ_OK;
    if (rd_push_back(r, b + 4, have - 4)) return 0; /* give them back: a salvage scan reads them again */
    return ok;
}

/* The restore block after a member header (FORMAT.md): the first member's
 * is kept in memory when small enough, for trz_restore; others are passed
 * over.  Its contents are checked when a restore uses them. */
static int seq_restore_block(trz_reader *r, uint64_t start, const trz_file_hdr *f)
{
    uint64_t at = r->spos, left = f->restore_size;
    int keep = r->members == 1 && !r->restore_buf && left <= RESTORE_MEM_MAX;
    uint8_t *b = malloc(keep ? (size_t)left : 1u << 16), *p = b;
    if (!b) return rd_err(r, TRZ_ERR_NOMEM, "out of memory");
    while (left) {
        size_t k = keep ? (size_t)left : (size_t)(left < (1u << 16) ? left : 1u << 16), got;
        int rc = rd_read_exact(r, p, k, &got);
        if (rc) {
            free(b);
            if (rc == TRZ_ERR_IO) return rd_err(r, rc, "read error: %s", strerror(errno));
            return rd_err(r, TRZ_ERR_TRUNCATED, "truncated restore block at byte %llu (the archive is cut short)",
                          (unsigned long long)at);
        }
        if (keep) p += k;
        left -= k;
    }
    if (keep) r->restore_buf = b;
    else free(b);
    rd_note_restore(r, start, at, f);
    return TRZ_OK;
}

/* Read a member header from the current sequential position. */
int rd_seq_member_header(trz_reader *r, int first)
{
    uint8_t h[TRZ_FILE_HDR_MAX];
    size_t got, len;
    trz_file_hdr f;
    uint64_t start = r->spos;
    int rc = rd_read_exact(r, h, 4, &got);
    size_t have = got;
    if (rc == TRZ_ERR_TRUNCATED && got == 0 && !first) { r->at_end = 1; return TRZ_OK; }
    if (rc == TRZ_ERR_IO) return rd_err(r, rc, "read error: %s", strerror(errno));
    if (rc || memcmp(h, trz_file_magic, 4) != 0) {
        int bad_magic = !rc && !first && magic_damaged(r); /* reads on, then gives the bytes back */
        if (have > 1 && rd_push_back(r, h + 1, have - 1)) return rd_err(r, TRZ_ERR_NOMEM, "out of memory");
        if (first && have == 4) { r->open_damaged = 1; r->open_rc = TRZ_ERR_NOT_TRZ; r->open_at = start; }
        int near = have == 4 && trz_magic_match(h) >= 3;
        if (first && near) return rd_err(r, TRZ_ERR_CORRUPT, "damaged file header at byte 0 (bad magic)");
        if (first && !(rc && have && memcmp(h, trz_file_magic, have) == 0))
            return rd_err(r, TRZ_ERR_NOT_TRZ, "not a trz file");
        if (rc && memcmp(h, trz_file_magic, have) == 0)
            return rd_err(r, TRZ_ERR_TRUNCATED, "truncated file header at byte %llu (the archive is cut short)",
                        (unsigned long long)start);
        if (bad_magic) return rd_err(r, TRZ_ERR_CORRUPT, "damaged file header at byte %llu (bad magic)",
                                                   (unsigned long long)start);
        return rd_err(r, TRZ_ERR_CORRUPT, "unexpected data after the end of the archive, at byte %llu",
                    (unsigned long long)start);
    }
    rc = header_rest(r, h, &have);
    if (rc == TRZ_ERR_IO) return rd_err(r, rc, "read error: %s", strerror(errno));
    if (!rc) rc = rd_parse_member_header(r, h, have, &len, &f);
    if (rc) {
        /* keep the bytes after the magic: a salvage scan starts again there */
        if (rd_push_back(r, h + 1, have - 1)) return rd_err(r, TRZ_ERR_NOMEM, "out of memory");
        if (first) { r->open_damaged = 1; r->open_rc = rc; r->open_at = start; }
        if (rc == TRZ_ERR_TRUNCATED) return rd_err(r, rc, "truncated file header at byte %llu", (unsigned long long)start);
        return rd_err(r, rc, "damaged file header at byte %llu: %s", (unsigned long long)start, trz_strerror(rc));
    }
    rd_begin_member(r, start, trz_codec_by_id(f.codec), f.byte_order, f.know, f.chain);
    return f.restore_size ? seq_restore_block(r, start, &f) : TRZ_OK;
}

/* Read a chunk's payload; memory grows with the bytes that arrive, so a
 * header that lies about sizes costs no more than the input holds. */
static int read_payload(trz_reader *r, dchunk *d, const uint8_t *hb)
{
    size_t total = d->h.hdr_len + d->h.payload, have = d->h.hdr_len;
    int64_t size = r->io.size ? r->io.size(r->io.opaque) : -1;
    if (size >= 0 && ((uint64_t)size < d->off || (uint64_t)size - d->off < total)) return TRZ_ERR_TRUNCATED;
    size_t cap = d->raw_cap;
    if (cap < total && cap < (1u << 20)) { /* else grow below, as bytes arrive */
        cap = total < (1u << 20) ? total : (1u << 20);
        free(d->raw);
        d->raw = trz_big_realloc(NULL, cap);
        d->raw_cap = d->raw ? cap : 0;
        if (!d->raw) return TRZ_ERR_NOMEM;
    }
    memcpy(d->raw, hb, have);
    while (have < total) {
        if (have == cap) {
            cap = total - cap > cap ? 2 * cap : total;
            uint8_t *np = trz_big_realloc(d->raw, cap);
            if (!np) return TRZ_ERR_NOMEM;
            d->raw = np;
            d->raw_cap = cap;
        }
        size_t got;
        size_t want = (cap < total ? cap : total) - have; /* a reused buffer may be larger */
        int rc = rd_read_exact(r, d->raw + have, want, &got);
        have += got;
        if (rc) return rc;
    }
    return TRZ_OK;
}

/* Bad chunk magic at `at` (hb holds the 4 bytes): a damaged chunk, or this
 * member's index with a damaged magic, which the count after it tells. */
static int bad_magic(trz_reader *r, uint64_t at, uint8_t *hb)
{
    size_t got = 0;
    if (rd_read_exact(r, hb + 4, 4, &got) == TRZ_ERR_IO) return rd_err(r, TRZ_ERR_IO, "read error: %s", strerror(errno));
    uint64_t mc = r->member_chunks, ixlen = 8 + mc * TRZ_INDEX_ENTRY + TRZ_FOOTER_SIZE;
    int ix = mc && got == 4 && (trz_index_count(hb) == mc || (r->file_size && r->file_size - at == ixlen));
    int rc = ix ? rd_err(r, TRZ_ERR_CORRUPT, "damaged index at byte %llu (bad magic)", (unsigned long long)at)
                : rd_err(r, TRZ_ERR_CORRUPT, "chunk %llu: bad chunk magic at byte %llu",
                       (unsigned long long)r->seq_chunk_no, (unsigned long long)at);
    return rd_damaged(r, rc, at, hb, 4 + got, 0);
}

/* Read the next chunk's bytes in sequential mode.  Returns 1 when there is a
 * chunk in d, 0 at the end, or a negative trz_result. */
int rd_seq_fetch(trz_reader *r, dchunk *d)
{
    for (;;) {
        if (r->at_end) return 0;
        int rc;
        if (!r->in_member) {
            uint64_t at = r->spos;
            if ((rc = rd_seq_member_header(r, 0)) && (rc = rd_damaged(r, rc, at, (const uint8_t *)"\x89TRZ\0\0\0\0", 1, 1)))
                return rc;
            continue;
        }
        uint8_t hb[TRZ_CHUNK_HDR_FIXED + TRZ_MAX_STREAMS * TRZ_STREAM_ENTRY + 4];
        uint64_t at = r->spos;
        size_t got, have;
        rc = rd_read_exact(r, hb, 4, &got);
        if (rc == TRZ_ERR_IO) return rd_err(r, rc, "read error: %s", strerror(errno));
        if (rc && got) { /* a piece of a magic */
            rc = rd_err(r, TRZ_ERR_TRUNCATED, "chunk %llu: truncated header at byte %llu (the archive is cut short)",
                      (unsigned long long)r->seq_chunk_no, (unsigned long long)at);
            if (!r->salvage || (rc = rd_lost_at_end(r, at))) return rc;
            continue;
        }
        if (rc) {
            if (r->member_chunks)
                rc = rd_err(r, TRZ_ERR_TRUNCATED, "the file ends at byte %llu after chunk %llu, where the next chunk or "
                          "the index should be (truncated archive)", (unsigned long long)at,
                          (unsigned long long)r->seq_chunk_no - 1);
            else
                rc = rd_err(r, TRZ_ERR_TRUNCATED, "the file ends at byte %llu before the first chunk of the member "
                          "(truncated archive)", (unsigned long long)at);
            if (!r->salvage || (rc = rd_lost_at_end(r, at))) return rc;
            continue;
        }
        if (memcmp(hb, trz_index_magic, 4) == 0) {
            if ((rc = seq_index(r, at))) return rc;
            continue;
        }
        if (memcmp(hb, trz_chunk_magic, 4) != 0) {
            if ((rc = bad_magic(r, at, hb))) return rc;
            continue;
        }
        rc = rd_read_exact(r, hb + 4, TRZ_CHUNK_HDR_FIXED - 4, &got);
        have = 4 + got;
        size_t need = 0;
        if (!rc) rc = trz_chunk_parse_hdr(hb, TRZ_CHUNK_HDR_FIXED, &d->h, &need);
        if (rc == TRZ_ERR_TRUNCATED && need > TRZ_CHUNK_HDR_FIXED && need <= sizeof hb) {
            rc = rd_read_exact(r, hb + TRZ_CHUNK_HDR_FIXED, need - TRZ_CHUNK_HDR_FIXED, &got);
            have += got;
            if (!rc) rc = trz_chunk_parse_hdr(hb, need, &d->h, &need);
        }
        if (rc == TRZ_ERR_IO) return rd_err(r, rc, "read error: %s", strerror(errno));
        if (rc == TRZ_ERR_TRUNCATED) /* the input ended inside the header */
            rc = rd_err(r, rc, "chunk %llu: truncated header at byte %llu (the archive is cut short)",
                      (unsigned long long)r->seq_chunk_no, (unsigned long long)at);
        else if (rc)
            rc = rd_err(r, rc, "chunk %llu: damaged header at byte %llu (%s)", (unsigned long long)r->seq_chunk_no,
                      (unsigned long long)at, trz_strerror(rc));
        int tail = 0;
        if (!rc && r->seq_mcodec &&
            (r->seq_tail || !trz_chunk_fits(r->seq_mcodec, r->seq_mbo, d->h.codec, d->h.byte_order, d->h.flags, d->h.nrec,
                                        d->h.raw, r->member_chunks == 0, r->seq_mknow || r->seq_mchain, &tail)))
            rc = rd_err(r, TRZ_ERR_CORRUPT, "chunk %llu at byte %llu: %s", (unsigned long long)r->seq_chunk_no,
                      (unsigned long long)at, r->seq_tail ? "a chunk after the member's partial last record"
                                                          : "its record count or flags do not fit the member's format");
        if (rc) {
            if ((rc = rd_damaged(r, rc, at, hb, have, 0))) return rc;
            continue;
        }
        r->seq_tail = tail;
        /* a member whose header is lost: a chunk stored raw belongs to the
         * codec of the chunks before it (its knowledge stream is theirs) */
        if (!r->seq_mcodec && d->h.codec != TRZ_CODEC_RAW) r->seq_guess = trz_codec_by_id(d->h.codec);
        d->mcodec = r->seq_mcodec                                      ? r->seq_mcodec
                    : d->h.codec == TRZ_CODEC_RAW && r->seq_guess ? r->seq_guess
                                                                  : trz_codec_by_id(d->h.codec);
        d->mbo = r->seq_mcodec ? r->seq_mbo : d->h.byte_order;
        d->mfirst = r->member_chunks == 0;
        /* a member whose header is lost: its chunks say whether it has knowledge */
        d->mknow = r->seq_mcodec ? r->seq_mknow : (d->h.flags & TRZ_CHUNK_RESTART) != 0 || r->kvalid;
        /* (and a lost header's chunks are taken to stand alone: those of a
         * chain then fail their checks, and are reported lost) */
        d->mchain = r->seq_mcodec ? r->seq_mchain : 0;
        d->off = at;
        if ((rc = read_payload(r, d, hb))) {
            if (rc == TRZ_ERR_IO || rc == TRZ_ERR_NOMEM || !r->salvage)
                return rd_err(r, rc, "chunk %llu: %s", (unsigned long long)r->seq_chunk_no,
                            rc == TRZ_ERR_IO ? strerror(errno) : rc == TRZ_ERR_NOMEM ? "out of memory"
                                                                  : "truncated data (the archive is cut short)");
            rd_err(r, rc, "chunk %llu: truncated data (the archive is cut short)", (unsigned long long)r->seq_chunk_no);
            if ((rc = rd_lost_at_end(r, at))) return rc;
            continue;
        }
        d->raw_len = d->stored = d->h.hdr_len + d->h.payload;
        if (!r->salvage && note_chunk(r, d, at)) return rd_err(r, TRZ_ERR_NOMEM, "out of memory");
        d->numbers_ok = r->counts_ok;
        d->no = r->seq_chunk_no++;
        d->first_record = r->seq_records;
        d->first_byte = r->seq_bytes;
        r->seq_records += d->h.nrec;
        r->seq_bytes += d->h.raw;
        r->member_chunks++;
        return 1;
    }
}

/* The index at the end of a member, read sequentially: it must describe the
 * chunks just read, and the footer must match it.  In salvage mode a damaged
 * index costs no data: it is noted (r->err) and skipped. */
/* Note where a chunk read sequentially lies in its member, as its index
 * entry must say (FORMAT.md, "Index"). */
static int note_chunk(trz_reader *r, const dchunk *d, uint64_t at)
{
    if (r->member_chunks == r->seq_cap) {
        size_t nc = r->seq_cap ? 2 * r->seq_cap : 64;
        trz_index_entry *ne = realloc(r->seq_list, nc * sizeof *ne);
        if (!ne) return -1;
        r->seq_list = ne;
        r->seq_cap = nc;
    }
    trz_index_entry *e = &r->seq_list[r->member_chunks];
    e->offset = at - r->member_start;
    e->first_record = r->seq_records - r->member_first_record;
    e->first_byte = r->seq_bytes - r->member_first_byte;
    e->nrec = d->h.nrec;
    e->raw = d->h.raw;
    e->stored = (uint32_t)d->stored;
    e->codec = d->h.codec;
    e->flags = d->h.flags;
    return 0;
}

/* The index of a member read sequentially describes exactly its chunks. */
static int index_matches(trz_reader *r, const uint8_t *ix, uint64_t n, uint64_t at)
{
    for (uint64_t i = 0; i < n; i++) {
        trz_index_entry e;
        const trz_index_entry *c = &r->seq_list[i];
        if (trz_index_entry_parse(ix + 8 + i * TRZ_INDEX_ENTRY, &e) != TRZ_OK || e.offset != c->offset ||
            e.first_record != c->first_record || e.first_byte != c->first_byte || e.nrec != c->nrec ||
            e.raw != c->raw || e.stored != c->stored || e.codec != c->codec || e.flags != c->flags)
            return rd_err(r, TRZ_ERR_CORRUPT, "damaged index at byte %llu: its entry %llu disagrees with chunk %llu",
                          (unsigned long long)at, (unsigned long long)i,
                          (unsigned long long)(r->member_first_chunk + i));
    }
    return TRZ_OK;
}

static int seq_index(trz_reader *r, uint64_t at)
{
    uint8_t n4[8];
    memcpy(n4, trz_index_magic, 4);
    size_t got;
    int rc = rd_read_exact(r, n4 + 4, 4, &got);
    if (rc == TRZ_ERR_IO) return rd_err(r, rc, "read error: %s", strerror(errno));
    uint64_t n = trz_index_count(n4), mc = r->member_chunks;
    if (rc) { /* every chunk before it was read; whatever followed is not known */
        rc = rd_err(r, TRZ_ERR_TRUNCATED, "truncated index at byte %llu (the archive is cut short)", (unsigned long long)at);
        return r->salvage ? rd_lost_at_end(r, at) : rc;
    }
    /* each chunk takes at least a header: the count is bounded by the bytes before it */
    if (n > at / (TRZ_CHUNK_HDR_FIXED + 4) || (!r->salvage && n != mc)) {
        rc = rd_err(r, TRZ_ERR_CORRUPT, "damaged index at byte %llu: it lists %llu chunks, the member has %llu",
                  (unsigned long long)at, (unsigned long long)n, (unsigned long long)mc);
        return rd_damaged(r, rc, at, n4, 8, 0);
    }
    size_t len = 8 + (size_t)n * TRZ_INDEX_ENTRY;
    uint8_t *ix = malloc(len + TRZ_FOOTER_SIZE);
    if (!ix) return rd_err(r, TRZ_ERR_NOMEM, "out of memory");
    memcpy(ix, n4, 8);
    uint8_t *f = ix + len;
    rc = rd_read_exact(r, ix + 8, len - 8 + TRZ_FOOTER_SIZE, &got);
    if (rc) {
        if (rc == TRZ_ERR_IO) { free(ix); return rd_err(r, rc, "read error: %s", strerror(errno)); }
        rc = rd_err(r, TRZ_ERR_TRUNCATED, "truncated index or footer at byte %llu (the archive is cut short)",
                  (unsigned long long)at);
        if (r->salvage && n != mc) rc = rd_damaged(r, rc, at, ix, 8 + got, 0); /* or a damaged count */
        else if (r->salvage) rc = rd_lost_at_end(r, at);
        free(ix);
        return rc;
    }
    trz_footer ft;
    int ok = trz_footer_parse(f, &ft) == TRZ_OK && trz_index_ok(ix, len, &ft) && ft.member_size <= r->spos &&
             r->spos - ft.member_size + ft.index_offset == at;
    uint64_t ms = ok ? r->spos - ft.member_size : 0;
    if (ok && !r->salvage && ms != r->member_start) ok = 0;
    if (ok && !r->salvage && (rc = index_matches(r, ix, n, at)) != TRZ_OK) {
        free(ix);
        return rc;
    }
    if (ok) {
        rc = r->salvage ? rd_apply_index(r, ix, n, ms, at) : TRZ_OK;
        free(ix);
        if (rc == TRZ_OK) r->in_member = 0;
        return rc;
    }
    rc = rd_err(r, TRZ_ERR_CORRUPT, "damaged index or footer at byte %llu", (unsigned long long)at);
    if (r->salvage && n == mc) { /* the count fits: exactly the index and footer were skipped */
        free(ix);
        r->in_member = 0;
        return TRZ_OK;
    }
    rc = rd_damaged(r, rc, at, ix, len + TRZ_FOOTER_SIZE, 0);
    free(ix);
    return rc;
}
