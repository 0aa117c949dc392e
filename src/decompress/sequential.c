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
    rd_begin_member(r, start, trz_codec_by_id(f.codec), f.byte_order, f.know, f.chain, f.placed);
    r->seq_mparity = f.parity;
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
    uint64_t mc = r->member_chunks, ixlen = trz_index_len(mc, r->seq_mplaced) + TRZ_FOOTER_SIZE;
    int ix = mc && got == 4 && (trz_index_count(hb) == mc || (r->file_size && r->file_size - at == ixlen));
    int rc = ix ? rd_err(r, TRZ_ERR_CORRUPT, "damaged index at byte %llu (bad magic)", (unsigned long long)at)
                : rd_err(r, TRZ_ERR_CORRUPT, "chunk %llu: bad chunk magic at byte %llu",
                       (unsigned long long)r->seq_chunk_no, (unsigned long long)at);
    return rd_damaged(r, rc, at, hb, 4 + got, 0);
}

/* A chunk of a member of version 5 states its place (FORMAT.md, "Chunk"),
 * which must be the one that comes next.  When it is, the reader's numbers
 * are the place's (exact again after a loss, the member's start being
 * known) and the member hash takes the chunk on.  Returns 0 to take the
 * chunk, 1 to skip it (salvage: a chunk that does not belong here), or a
 * negative trz_result. */
static int check_place(trz_reader *r, dchunk *d, uint64_t at)
{
    const trz_chunk_hdr *h = &d->h;
    int rc;
    if (!r->mrel_ok) { /* a member whose header is lost: its first chunk found says where it is */
        r->mrel_ok = 1;
        r->mh_ok = 0;
    } else if (h->place_no != r->mrel_no || h->place_rec != r->mrel_rec || h->place_byte != r->mrel_byte) {
        int ahead = h->place_no > r->mrel_no && h->place_rec >= r->mrel_rec && h->place_byte >= r->mrel_byte;
        rc = rd_err(r, TRZ_ERR_CORRUPT, "chunk %llu at byte %llu: it is chunk %lu of its member (record %llu), where "
                    "chunk %llu (record %llu) comes next: %s", (unsigned long long)r->seq_chunk_no,
                    (unsigned long long)at, (unsigned long)h->place_no, (unsigned long long)h->place_rec,
                    (unsigned long long)r->mrel_no, (unsigned long long)r->mrel_rec,
                    ahead ? "chunks are missing" : "a chunk is repeated or out of order");
        if (!r->salvage) return rc;
        r->mh_ok = 0;
        if (!ahead) {
            int base = r->member_base_ok;
            trz_lost_range l = { base ? r->member_first_chunk + h->place_no : UNKNOWN,
                                 base ? r->member_first_record + h->place_rec : UNKNOWN, h->nrec,
                                 base ? r->member_first_byte + h->place_byte : UNKNOWN, h->raw };
            return (rc = rd_note_range(r, l, at, at + d->stored, TRZ_LOST_EXTRA)) ? rc : 1;
        }
        if ((rc = rd_place_gap(r, at, h->place_no, h->place_rec, h->place_byte))) return rc;
        rd_know_lost(r); /* the chunks after the gap cannot build on what it held */
        rd_chain_lost(r);
    } else if (r->salvage) {
        rd_place_none(r);
    }
    r->mrel_no = (uint64_t)h->place_no + 1;
    r->mrel_rec = h->place_rec + h->nrec;
    r->mrel_byte = h->place_byte + h->raw;
    if (r->mh_ok) r->mh = trz_member_hash_step(r->mh, h->xxh, h->raw, h->nrec);
    if (r->member_base_ok) {
        r->seq_chunk_no = r->member_first_chunk + h->place_no;
        r->seq_records = r->member_first_record + h->place_rec;
        r->seq_bytes = r->member_first_byte + h->place_byte;
        r->counts_ok = 1;
    }
    return 0;
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
        uint8_t hb[TRZ_CHUNK_HDR_MAX];
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
        /* a chunk of a member of version 5 says whether it is the member's first */
        int first = d->h.flags & TRZ_CHUNK_PLACED ? d->h.place_no == 0 : r->member_chunks == 0;
        if (!rc && r->seq_mcodec &&
            (r->seq_tail || !trz_chunk_fits(r->seq_mcodec, r->seq_mbo, d->h.codec, d->h.byte_order, d->h.flags, d->h.nrec,
                                        d->h.raw, first, r->seq_mknow || r->seq_mchain, r->seq_mplaced, r->seq_mparity, &tail)))
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
        d->mfirst = first;
        /* a member whose header is lost: its chunks say whether it is of version 5 */
        if (!r->seq_mcodec && (d->h.flags & TRZ_CHUNK_PLACED)) r->seq_mplaced = 1;
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
        if (d->h.flags & TRZ_CHUNK_PLACED) {
            if ((rc = check_place(r, d, at)) < 0) return rc;
            /* salvage: a chunk that does not belong here, skipped; last_end
             * stays at the last chunk taken, so that damaged bytes before
             * it are still the next placed chunk's to number */
            if (rc) continue;
        }
        r->last_end = at + d->stored;
        if (note_chunk(r, d, at)) return rd_err(r, TRZ_ERR_NOMEM, "out of memory");
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
    size_t len = (size_t)trz_index_len(n, r->seq_mplaced);
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
    int intact = trz_footer_parse(f, &ft) == TRZ_OK && trz_index_ok(ix, len, &ft, r->seq_mplaced);
    int ok = intact && ft.member_size <= r->spos && r->spos - ft.member_size + ft.index_offset == at;
    uint64_t ms = ok ? r->spos - ft.member_size : 0;
    if (ok && !r->salvage && ms != r->member_start) ok = 0;
    if (ok && !r->salvage && (rc = index_matches(r, ix, n, at)) != TRZ_OK) {
        free(ix);
        return rc;
    }
    /* every chunk read stands where it says: they are the member's if the hash agrees */
    if (ok && !r->salvage && r->seq_mplaced && r->mh != trz_index_mhash(ix, len)) {
        free(ix);
        return rd_err(r, TRZ_ERR_CORRUPT, "member hash mismatch at byte %llu: the member's chunks are not those it "
                      "was written with", (unsigned long long)at);
    }
    if (ok) {
        rc = r->salvage ? rd_apply_index(r, ix, n, ms, at) : TRZ_OK;
        free(ix);
        if (rc == TRZ_OK) r->in_member = 0;
        return rc;
    }
    rc = rd_err(r, TRZ_ERR_CORRUPT, "damaged index or footer at byte %llu", (unsigned long long)at);
    /* salvage: an intact index whose member is not the size it says (chunks
     * cut out) still says how many chunks the member had, which the places
     * of the chunks read are checked against */
    if (r->salvage && intact && (r->seq_mplaced ? r->mrel_ok : r->seq_mcodec != NULL)) {
        rc = rd_apply_index(r, ix, n, r->member_start, at);
        free(ix);
        if (rc == TRZ_OK) r->in_member = 0;
        return rc;
    }
    if (r->salvage && n == mc) { /* the count fits: exactly the index and footer were skipped */
        free(ix);
        r->in_member = 0;
        return TRZ_OK;
    }
    rc = rd_damaged(r, rc, at, ix, len + TRZ_FOOTER_SIZE, 0);
    free(ix);
    return rc;
}

/* ---- the layout of members of earlier versions ----
 * A chunk of a member of version 5 states its place; one of an earlier
 * version does not, and read without the index its record numbers are
 * counted from the chunks before it: a chunk cut out, repeated or moved
 * shifts every number after it, and only the member's index, at its end,
 * tells.  Before a seek counts records that way, scan_layout reads every
 * member's chunk headers (not their data) and its index, on an input that
 * can seek, and puts the input back where it was. */

/* n bytes at off, straight from the input. */
static int raw_at(trz_reader *r, uint64_t off, uint8_t *b, size_t n)
{
    if (r->io.seek(r->io.opaque, off) != 0) return -1;
    size_t got = 0;
    while (got < n) {
        int64_t k = r->io.read(r->io.opaque, b + got, n - got);
        if (k <= 0) return -1;
        got += (size_t)k;
    }
    return 0;
}

/* 1: every member of an earlier version whose chunks could be walked ends
 * with an index that lists exactly them; 0: one does not (set r->err);
 * the walk stops, as fine, at anything damaged, which reading meets. */
static int scan_members(trz_reader *r, uint64_t size)
{
    uint8_t hb[TRZ_FILE_HDR_MAX > TRZ_CHUNK_HDR_MAX ? TRZ_FILE_HDR_MAX : TRZ_CHUNK_HDR_MAX];
    trz_index_entry *list = NULL;
    size_t cap = 0;
    uint64_t pos = 0;
    int ok = 1;
    while (ok && pos < size) {
        trz_file_hdr f;
        size_t len, want = size - pos < TRZ_FILE_HDR_MAX ? (size_t)(size - pos) : TRZ_FILE_HDR_MAX;
        if (raw_at(r, pos, hb, want) || trz_file_hdr_parse(hb, want, &f, &len)) break;
        uint64_t start = pos, n = 0;
        pos += len + f.restore_size;
        for (;;) { /* the member's chunks, to its index */
            if (size - pos < 8 || raw_at(r, pos, hb, 8)) goto done;
            if (memcmp(hb, trz_index_magic, 4) == 0) break;
            want = size - pos < TRZ_CHUNK_HDR_MAX ? (size_t)(size - pos) : TRZ_CHUNK_HDR_MAX;
            trz_chunk_hdr h;
            size_t need;
            if (raw_at(r, pos, hb, want) || trz_chunk_parse_hdr(hb, want, &h, &need) || need > size - pos) goto done;
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                trz_index_entry *nl = realloc(list, cap * sizeof *nl);
                if (!nl) goto done;
                list = nl;
            }
            list[n++] = (trz_index_entry){ pos - start, 0, 0, h.nrec, h.raw, (uint32_t)need, h.codec, h.flags };
            pos += need;
        }
        uint64_t count = trz_index_count(hb), ixlen = trz_index_len(count, f.placed);
        if (size - pos < ixlen + TRZ_FOOTER_SIZE || count > n + 1000000) break;
        uint8_t *ix = malloc((size_t)ixlen + TRZ_FOOTER_SIZE);
        if (!ix || raw_at(r, pos, ix, (size_t)ixlen + TRZ_FOOTER_SIZE)) { free(ix); break; }
        trz_footer ft;
        int intact = trz_footer_parse(ix + ixlen, &ft) == TRZ_OK && trz_index_ok(ix, (size_t)ixlen, &ft, f.placed);
        if (intact && !f.placed) { /* (placed chunks prove their own numbers) */
            uint64_t rec = 0, byte = 0;
            for (uint64_t i = 0; ok && i < count; i++) {
                trz_index_entry e;
                (void)trz_index_entry_parse(ix + 8 + i * TRZ_INDEX_ENTRY, &e);
                if (i >= n || e.offset != list[i].offset || e.first_record != rec || e.first_byte != byte ||
                    e.nrec != list[i].nrec || e.raw != list[i].raw || e.stored != list[i].stored ||
                    e.codec != list[i].codec || e.flags != list[i].flags)
                    ok = 0;
                rec += e.nrec;
                byte += e.raw;
            }
            if (count != n) ok = 0;
            if (!ok)
                rd_err(r, TRZ_ERR_CORRUPT, "the member at byte %llu holds %llu chunks where its index lists %llu, or "
                       "others (cut out, repeated or moved): its record numbers cannot be told without the index; "
                       "decode it whole, or --salvage", (unsigned long long)start, (unsigned long long)n,
                       (unsigned long long)count);
        }
        free(ix);
        pos += ixlen + TRZ_FOOTER_SIZE;
    }
done:
    free(list);
    return ok;
}

int rd_check_layout(trz_reader *r)
{
    if (r->layout_checked || r->seekable || !r->io.seek || !r->io.size) return TRZ_OK;
    r->layout_checked = 1;
    int64_t size = r->io.size(r->io.opaque);
    if (size < 0) return TRZ_OK;
    uint64_t resume = r->spos + (r->look_len - r->look_pos); /* where the input stands */
    int ok = scan_members(r, (uint64_t)size);
    if (r->io.seek(r->io.opaque, resume) != 0) return rd_err(r, TRZ_ERR_IO, "seek failed");
    return ok ? TRZ_OK : TRZ_ERR_CORRUPT;
}
