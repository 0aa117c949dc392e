/* seek.c - the index: load every member's index from the footers back,
 * check that the chunks tile each member and fit it, and what the index
 * tells of each chunk (trz_reader_chunk, its variant, its streams).  The
 * seek itself, which decodes, is records.c's trz_seek. */
#include "reader.h"
#include "../format/know.h"

/* ---- index ---- */
/* The member that ends at `end`: its footer, index and header, every entry
 * checked (the chunks tile the member, records add up, each fits it). */
static int load_member_index(trz_reader *r, uint64_t end, uint64_t *start_out, rchunk **out, uint64_t *nout)
{
    uint8_t fb[TRZ_FOOTER_SIZE];
    trz_footer ft;
    if (end < TRZ_FOOTER_SIZE + 8 + TRZ_FILE_HDR_FIXED + 4) return TRZ_ERR_TRUNCATED;
    if (rd_read_at(r, end - TRZ_FOOTER_SIZE, fb, sizeof fb)) return TRZ_ERR_IO;
    if (trz_footer_parse(fb, &ft) != TRZ_OK) return TRZ_ERR_TRUNCATED;
    uint64_t ix_off = ft.index_offset, msize = ft.member_size;
    if (msize > end || ix_off + 8 + TRZ_FOOTER_SIZE > msize) return TRZ_ERR_CORRUPT;
    uint64_t start = end - msize;
    uint64_t ix_len = msize - TRZ_FOOTER_SIZE - ix_off;
    /* the member header first: its version says how the index is laid out
     * (and a damaged one is caught here too) */
    uint8_t h[TRZ_FILE_HDR_MAX];
    size_t hlen = 0;
    trz_file_hdr fh;
    size_t want = sizeof h < ix_off ? sizeof h : (size_t)ix_off;
    int rc = rd_read_at(r, start, h, want);
    if (rc) return rc;
    trz_file_hdr peek;
    if ((rc = trz_file_hdr_parse(h, want, &peek, &hlen))) return rc;
    uint64_t extra = peek.placed ? TRZ_MEMBER_HASH : 0;
    if (ix_len < 8 + extra || (ix_len - 8 - extra) % TRZ_INDEX_ENTRY) return TRZ_ERR_CORRUPT;
    uint64_t n = (ix_len - 8 - extra) / TRZ_INDEX_ENTRY;
    uint8_t *ix = malloc(ix_len);
    if (!ix) return TRZ_ERR_NOMEM;
    rc = rd_read_at(r, start + ix_off, ix, ix_len);
    if (!rc && !trz_index_ok(ix, ix_len, &ft, peek.placed)) rc = TRZ_ERR_CORRUPT;
    if (!rc) rc = rd_parse_member_header(r, h, want, &hlen, &fh);
    if (!rc) r->wrap = fh.wrap; /* members come last first: the first member's stays */
    rchunk *c = NULL;
    if (!rc && n && !(c = calloc(n, sizeof *c))) rc = TRZ_ERR_NOMEM;
    /* a restore block lies between the header and the first chunk */
    if (!rc && fh.restore_size > ix_off - hlen) rc = TRZ_ERR_CORRUPT;
    if (!rc && fh.restore_size) rd_note_restore(r, start, start + hlen, &fh);
    uint64_t pos = hlen + (rc ? 0 : fh.restore_size), rec = 0, byte = 0;
    const trz_codec *mc = rc ? NULL : trz_codec_by_id(fh.codec);
    for (uint64_t i = 0; i < n && !rc; i++) {
        trz_index_entry e;
        rchunk *k = &c[i];
        rc = trz_index_entry_parse(ix + 8 + i * TRZ_INDEX_ENTRY, &e);
        k->offset = e.offset;
        k->first_record = e.first_record;
        k->first_byte = e.first_byte;
        k->nrec = e.nrec;
        k->raw = e.raw;
        k->stored = e.stored;
        k->codec = e.codec;
        k->flags = e.flags;
        k->mcodec = mc->id;
        k->mbo = fh.byte_order;
        k->mfirst = i == 0;
        k->mknow = fh.know;
        k->mchain = fh.chain;
        k->mplaced = fh.placed;
        k->mparity = fh.parity;
        k->mno = (uint32_t)i;
        k->mrec = rec;
        k->mbyte = byte;
        k->mlast = i + 1 == n;
        k->mhash = k->mlast && fh.placed ? trz_index_mhash(ix, (size_t)ix_len) : 0;
        const trz_codec *kc = trz_codec_by_id(k->codec);
        int tail;
        if (k->offset != pos || k->first_record != rec || k->first_byte != byte || !kc ||
            k->raw > TRZ_MAX_CHUNK_RAW || !trz_nrec_ok(kc, k->nrec, k->raw) ||
            !trz_chunk_fits(mc, fh.byte_order, k->codec, fh.byte_order, k->flags, k->nrec, k->raw, i == 0,
                            fh.know || fh.chain, fh.placed, fh.parity, &tail) ||
            (tail && i + 1 != n) || k->stored < TRZ_CHUNK_HDR_FIXED + 4)
            rc = TRZ_ERR_CORRUPT;
        pos += k->stored;
        rec += k->nrec;
        byte += k->raw;
        k->offset += start;
    }
    if (!rc && pos != ix_off) rc = TRZ_ERR_CORRUPT;
    /* a member without chunks: its hash is the start value, as a pipe checks */
    if (!rc && n == 0 && fh.placed && trz_index_mhash(ix, (size_t)ix_len) != 0) rc = TRZ_ERR_CORRUPT;
    free(ix);
    if (rc) { free(c); return rc; }
    *start_out = start;
    *out = c;
    *nout = n;
    return TRZ_OK;
}

/* Walk the footers back from the end of the file; every member's index.
 * The members come last first: their tables are kept apart and joined once
 * at the end, so that many members cost linear time. */
int rd_load_index(trz_reader *r)
{
    int64_t size = r->io.size ? r->io.size(r->io.opaque) : -1;
    if (size < 0 || !r->io.seek) return TRZ_ERR_UNSUPPORTED;
    r->file_size = (uint64_t)size;
    uint64_t end = (uint64_t)size;
    struct part { rchunk *c; uint64_t n; } *parts = NULL;
    uint64_t nall = 0, members = 0, cap = 0;
    int rc = TRZ_OK;
    r->codec = NULL;
    r->mixed = 0;
    r->restore_blocks = 0;
    while (end > 0 && rc == TRZ_OK) {
        rchunk *c;
        uint64_t n, start;
        if ((rc = load_member_index(r, end, &start, &c, &n))) break;
        if (members == cap) {
            cap = cap ? 2 * cap : 16;
            struct part *np = realloc(parts, cap * sizeof *np);
            if (!np) { free(c); rc = TRZ_ERR_NOMEM; break; }
            parts = np;
        }
        parts[members++] = (struct part){ c, n };
        nall += n;
        if (nall > TRZ_MAX_CHUNKS) rc = TRZ_ERR_LIMIT;
        end = start;
    }
    rchunk *all = NULL;
    if (rc == TRZ_OK && !(all = malloc((nall + 1) * sizeof *all))) rc = TRZ_ERR_NOMEM;
    uint64_t k = 0;
    for (uint64_t m = members; m-- > 0;) {
        if (all && parts[m].n) memcpy(all + k, parts[m].c, parts[m].n * sizeof *all);
        k += parts[m].n;
        free(parts[m].c);
    }
    free(parts);
    if (rc) { free(all); r->restore_blocks = 0; return rc; }
    /* members were read last first: renumber records and bytes globally */
    uint64_t rec = 0, byte = 0;
    for (uint64_t i = 0; i < nall; i++) {
        all[i].first_record = rec;
        all[i].first_byte = byte;
        rec += all[i].nrec;
        byte += all[i].raw;
    }
    r->chunks = all;
    r->nchunks = nall;
    r->members = members;
    r->total_records = rec;
    r->total_bytes = byte;
    r->seekable = 1;
    return TRZ_OK;
}

int rd_places_agree(trz_reader *r)
{
    uint8_t hb[TRZ_CHUNK_HDR_MAX];
    for (uint64_t i = 0; i < r->nchunks; i++) {
        const rchunk *c = &r->chunks[i];
        if (!c->mplaced) continue;
        size_t want = c->stored < sizeof hb ? c->stored : sizeof hb, need;
        trz_chunk_hdr h;
        int rc = rd_read_at(r, c->offset, hb, want);
        if (rc == TRZ_ERR_IO) return rc;
        if (rc || trz_chunk_parse_hdr(hb, want, &h, &need) == TRZ_ERR_CORRUPT || h.hdr_len > want) continue;
        if (!(h.flags & TRZ_CHUNK_PLACED) || h.place_no != c->mno || h.place_rec != c->mrec || h.place_byte != c->mbyte ||
            h.nrec != c->nrec || h.raw != c->raw)
            return 0;
    }
    return 1;
}

/* A chunk number past the index's end. */
static int no_chunk(trz_reader *r, uint64_t n)
{
    return rd_err(r, TRZ_ERR_RANGE, "chunk %llu: no such chunk (%llu chunks)", (unsigned long long)n,
                  (unsigned long long)r->nchunks);
}

int trz_reader_chunk(trz_reader *r, uint64_t n, trz_chunk_info *ci)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!ci) return rd_err(r, TRZ_ERR_PARAM, "trz_reader_chunk: info is NULL");
    if (!r->seekable) return rd_err(r, TRZ_ERR_UNSUPPORTED, "no index: the input is not seekable or its index is damaged");
    if (n >= r->nchunks) return no_chunk(r, n);
    rchunk *c = &r->chunks[n];
    ci->first_record = c->first_record;
    ci->records = c->nrec;
    ci->first_byte = c->first_byte;
    ci->raw_bytes = c->raw;
    ci->offset = c->offset;
    ci->stored_bytes = c->stored;
    const trz_codec *k = trz_codec_by_id(c->codec);
    ci->format = k ? k->name : "?";
    return TRZ_OK;
}

int trz_reader_chunk_variant(trz_reader *r, uint64_t n, char *buf, size_t bn)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!buf || !bn) return rd_err(r, TRZ_ERR_PARAM, "trz_reader_chunk_variant: %s", buf ? "n is 0" : "buf is NULL");
    buf[0] = 0;
    if (!r->seekable) return rd_err(r, TRZ_ERR_UNSUPPORTED, "no index: the input is not seekable or its index is damaged");
    if (n >= r->nchunks) return no_chunk(r, n);
    dchunk d = { 0 };
    int rc = rd_idx_fetch(r, n, &d);
    const trz_codec *c = rc < 0 ? NULL : trz_codec_by_id(d.h.codec);
    int named = c != NULL; /* the streams tell the variant */
    trz_zctx *z = named ? trz_zctx_create() : NULL;
    if (rc >= 0 && !trz_chunk_payload_ok(&d.h, d.raw))
        rc = rd_err(r, TRZ_ERR_CHECKSUM, "chunk %llu: stored data checksum mismatch", (unsigned long long)n);
    else if (rc >= 0 && named && !z)
        rc = rd_err(r, TRZ_ERR_NOMEM, "out of memory");
    else if (rc >= 0) {
        const char *name = "-";
        /* a chunk the member's codec left to the raw codec: it could not
         * model it, or the guard found the raw codec smaller */
        if (d.h.codec == TRZ_CODEC_RAW && r->chunks[n].mcodec != TRZ_CODEC_RAW) {
            const trz_codec *mc = trz_codec_by_id(r->chunks[n].mcodec);
            name = mc && mc->record_size > 1 && d.h.raw % mc->record_size ? "tail" : "fallback";
        }
        if (named && !(d.h.codec == TRZ_CODEC_RAW && r->chunks[n].mcodec != TRZ_CODEC_RAW)) {
            size_t len[TRZ_MAX_STREAMS] = { 0 };
            uint8_t head[TRZ_MAX_STREAMS][TRZ_VARIANT_HEAD] = { { 0 } };
            const uint8_t *p = d.raw + d.h.hdr_len;
            for (unsigned k = 0; k < d.h.nstreams; k++) {
                len[d.h.sid[k]] = d.h.rsize[k];
                (void)trz_backend_head(z, d.h.backend[k], p, d.h.csize[k], head[d.h.sid[k]], TRZ_VARIANT_HEAD);
                p += d.h.csize[k];
            }
            name = trz_codec_variant_name(c, len, (const uint8_t (*)[TRZ_VARIANT_HEAD])head);
        }
        snprintf(buf, bn, "%s", name ? name : "-");
        rc = TRZ_OK;
    }
    trz_zctx_free(z);
    rd_dchunk_free(&d);
    return rc;
}

int trz_reader_chunk_starts_member(const trz_reader *r, uint64_t n)
{
    return r->seekable && n < r->nchunks && r->chunks[n].mfirst;
}

int trz_reader_chunk_restarts(const trz_reader *r, uint64_t n)
{
    return r->seekable && n < r->nchunks && (r->chunks[n].flags & TRZ_CHUNK_RESTART);
}

int64_t trz_reader_chunk_group(trz_reader *r, uint64_t n, int *chained)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!r->seekable) return rd_err(r, TRZ_ERR_UNSUPPORTED, "no index: the input is not seekable or its index is damaged");
    if (n >= r->nchunks) return no_chunk(r, n);
    if (chained) *chained = r->chunks[n].mchain;
    if (!r->chunks[n].mchain && !r->chunks[n].mknow) return (int64_t)n;
    while (n > 0 && !(r->chunks[n].flags & TRZ_CHUNK_RESTART) && !r->chunks[n].mfirst) n--;
    return (int64_t)n;
}

int trz_reader_chunk_place(const trz_reader *r, uint64_t n, uint32_t *no, uint64_t *rec, uint64_t *byte, int *last,
                           uint64_t *mhash)
{
    if (!r->seekable || n >= r->nchunks || !r->chunks[n].mplaced) return 0;
    const rchunk *c = &r->chunks[n];
    *no = c->mno;
    *rec = c->mrec;
    *byte = c->mbyte;
    *last = c->mlast;
    *mhash = c->mhash;
    return 1;
}

int trz_reader_chunk_chained(const trz_reader *r, uint64_t n)
{
    return r->seekable && n < r->nchunks && r->chunks[n].mchain;
}

int trz_reader_chunk_last_byte(trz_reader *r, uint64_t n, uint8_t *b)
{
    if (!r->seekable || n >= r->nchunks) return rd_err(r, TRZ_ERR_PARAM, "chunk %llu: no such chunk", (unsigned long long)n);
    dchunk d = { 0 };
    trz_zctx *z = trz_zctx_create();
    int rc = z ? rd_idx_fetch(r, n, &d) : rd_err(r, TRZ_ERR_NOMEM, "out of memory");
    if (rc > 0) {
        d.data = trz_big_malloc(d.h.raw ? d.h.raw : 1);
        d.cap = d.data ? d.h.raw : 0;
        if (!d.data) rc = rd_err(r, TRZ_ERR_NOMEM, "out of memory");
        else if (d.mchain) rd_chain_decode(r, &d, z), rc = d.rc;
        else rc = trz_chunk_decode(&d.h, d.raw, d.raw_len, d.data, z, NULL, NULL, d.err, sizeof d.err);
        if (rc) rd_err(r, rc, "chunk %llu: %s", (unsigned long long)n, d.err);
        else if (d.h.raw) *b = d.data[d.h.raw - 1];
        else rc = rd_err(r, TRZ_ERR_PARAM, "chunk %llu: empty", (unsigned long long)n);
    }
    trz_zctx_free(z);
    rd_dchunk_free(&d);
    return rc;
}

int trz_reader_streams(trz_reader *r, trz_stream_fn fn, void *ctx)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!fn) return rd_err(r, TRZ_ERR_PARAM, "trz_reader_streams: fn is NULL");
    if (!r->seekable) return rd_err(r, TRZ_ERR_UNSUPPORTED, "no index: the input is not seekable or its index is damaged");
    static const size_t ncodec = 256;
    uint64_t (*acc)[TRZ_MAX_STREAMS][2] = calloc(ncodec, sizeof *acc);
    if (!acc) return rd_err(r, TRZ_ERR_NOMEM, "out of memory");
    /* each chunk is read whole: its header must agree with the index and its
     * stored bytes with their checksum, or what is listed is not what is there */
    dchunk d = { 0 };
    int rc = TRZ_OK;
    for (uint64_t i = 0; i < r->nchunks && rc == TRZ_OK; i++) {
        rc = rd_idx_fetch(r, i, &d);
        if (rc < 0) break;
        rc = TRZ_OK;
        const trz_chunk_hdr h = d.h;
        if (!trz_chunk_payload_ok(&h, d.raw)) {
            rc = rd_err(r, TRZ_ERR_CHECKSUM, "chunk %llu: stored data checksum mismatch", (unsigned long long)i);
            break;
        }
        for (unsigned k = 0; k < h.nstreams; k++) {
            acc[h.codec][h.sid[k]][0] += h.rsize[k];
            acc[h.codec][h.sid[k]][1] += h.csize[k];
        }
    }
    for (size_t c = 0; c < ncodec && rc == TRZ_OK; c++) {
        const trz_codec *k = trz_codec_by_id((unsigned)c);
        if (!k) continue;
        for (unsigned s = 0; s < TRZ_MAX_STREAMS; s++)
            if (acc[c][s][0]) {
                const char *nm = k->stream_name ? k->stream_name(s) : NULL;
                if (!nm && s == TRZ_KNOW_STREAM) nm = "knowledge"; /* the container's (FORMAT.md) */
                if (!nm && s == TRZ_PARITY_STREAM) nm = "parity";
                fn(ctx, k->name, s, nm ? nm : "?", acc[c][s][0], acc[c][s][1]);
            }
    }
    rd_dchunk_free(&d);
    free(acc);
    return rc;
}
