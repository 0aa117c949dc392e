/* records.c - handing out what was decoded: bytes (trz_read_bytes and
 * views), whole records (trz_read, trz_foreach) and spans that end at a
 * record boundary (trz_read_span, trz_tell), in the unit of each member;
 * and going to a record (trz_seek: through the index, the chunk that
 * holds it alone; without one, decoding forward); and proving a slice read
 * from a pipe against its member (trz_reader_check_rest). */
#include "reader.h"

int64_t trz_read_view(trz_reader *r, const void **data, size_t cap)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!data) return rd_err(r, TRZ_ERR_PARAM, "trz_read_view: data is NULL");
    *data = NULL;
    while (!r->have_cur || r->cur_pos == r->cur.len) {
        int rc = rd_next_chunk(r);
        if (rc <= 0) return rc;
    }
    size_t k = r->cur.len - r->cur_pos;
    if (k > cap) k = cap;
    *data = r->cur.data + r->cur_pos;
    r->cur_pos += k;
    return (int64_t)k;
}

int64_t trz_read_bytes(trz_reader *r, void *buf, size_t cap)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!buf && cap) return rd_err(r, TRZ_ERR_PARAM, "trz_read_bytes: buf is NULL (%zu bytes)", cap);
    size_t got = 0;
    while (got < cap) {
        const void *v;
        int64_t k = trz_read_view(r, &v, cap - got);
        if (k < 0) return got ? (int64_t)got : k;
        if (k == 0) break;
        memcpy((uint8_t *)buf + got, v, (size_t)k);
        got += (size_t)k;
    }
    return (int64_t)got;
}

static int host_bo(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one ? TRZ_BO_LITTLE : TRZ_BO_BIG;
}

/* Bytes per record of the current chunk's member (0: lines), and whether
 * the chunk holds whole records (else it is a partial last record). */
static size_t cur_rs(const trz_reader *r)
{
    return r->cur.mcodec ? r->cur.mcodec->record_size : 1;
}
static int cur_whole(const trz_reader *r)
{
    size_t rs = cur_rs(r);
    return rs == 0 || (uint64_t)r->cur.h.nrec * rs == r->cur.len;
}

/* Records in host order on request.  The member's codec and byte order
 * apply, also to a chunk stored raw inside it (tail or fallback). */
static void to_host(const trz_reader *r, uint8_t *p, size_t len)
{
    const trz_codec *m = r->cur.mcodec;
    if (r->host_order && m && m->convert && r->cur.mbo && r->cur.mbo != host_bo())
        m->convert(p, len, r->cur.mbo, host_bo());
}

/* Whether the position is inside a fixed-size record (trz_read_bytes or a
 * view stopped in one; a partial last record counts as one): trz_read and
 * trz_foreach hand out whole records only, so they refuse to start there
 * rather than skip bytes or hand out records shifted by the offset. */
static int inside_record(const trz_reader *r)
{
    if (!r->have_cur || r->cur_pos == 0 || r->cur_pos >= r->cur.len) return 0;
    size_t rs = cur_rs(r);
    if (rs == 0) return 0; /* lines: a text batch may begin with the rest of one */
    return !cur_whole(r) || r->cur_pos % rs != 0;
}

static int inside_err(trz_reader *r)
{
    return rd_err(r, TRZ_ERR_PARAM, "position is inside a record: read the rest with trz_read_bytes or seek");
}

/* At the start of a partial record (a chunk shorter than its records):
 * whether anything follows it.  The last one of the source stays where it
 * is for trz_read_bytes; one that ends a member with more after it is no
 * record and is passed over. */
static int tail_is_last(trz_reader *r)
{
    return rd_more_chunks(r) == 0;
}

int64_t trz_read(trz_reader *r, void *buf, size_t max)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!buf && max) return rd_err(r, TRZ_ERR_PARAM, "trz_read: buf is NULL (%zu records)", max);
    uint8_t *out = buf;
    size_t got = 0;
    if (r->mixed)
        return rd_err(r, TRZ_ERR_UNSUPPORTED, "trz_read: the members differ in format or byte order; use "
                                            "trz_read_span or trz_read_bytes");
    if (r->codec && r->codec->record_size == 0)
        return rd_err(r, TRZ_ERR_UNSUPPORTED, "trz_read needs fixed-size records; use trz_read_bytes for text");
    if (inside_record(r)) return inside_err(r);
    while (got < max) {
        if (!r->have_cur || r->cur_pos == r->cur.len) {
            int rc = rd_next_chunk(r);
            if (rc < 0) return got ? (int64_t)got : rc;
            if (rc == 0) break;
            continue;
        }
        size_t rs = cur_rs(r);
        if (rs == 0) /* a text member after fixed-size ones (the index was lost: no one format known) */
            return got ? (int64_t)got : rd_err(r, TRZ_ERR_UNSUPPORTED, "trz_read: a text member; use trz_read_bytes");
        if (!cur_whole(r)) { /* a partial record, at r->cur_pos == 0 */
            if (tail_is_last(r)) break;
            r->cur_pos = r->cur.len;
            continue;
        }
        size_t n = (r->cur.len - r->cur_pos) / rs;
        if (n > max - got) n = max - got;
        uint8_t *dst = out + got * rs;
        memcpy(dst, r->cur.data + r->cur_pos, n * rs);
        to_host(r, dst, n * rs);
        r->cur_pos += n * rs;
        got += n;
    }
    return (int64_t)got;
}

/* Record starts of a text chunk in [a, b). */
static uint64_t text_starts(const dchunk *c, size_t a, size_t b)
{
    if (b <= a) return 0;
    int mid = a == 0 ? (c->flags & TRZ_CHUNK_MIDLINE) != 0 : c->data[a - 1] != '\n';
    return trz_count_lines(c->data + a, b - a, mid);
}

/* Record starts of the current chunk before offset pos. */
static uint64_t starts_before(trz_reader *r, size_t pos)
{
    size_t rs = cur_rs(r);
    if (rs == 0) { /* counted on from where the last count stopped */
        if (pos < r->cur_rec_pos) r->cur_rec_pos = 0, r->cur_rec_n = 0;
        r->cur_rec_n += text_starts(&r->cur, r->cur_rec_pos, pos);
        r->cur_rec_pos = pos;
        return r->cur_rec_n;
    }
    if (!cur_whole(r)) return 0;
    return (pos + rs - 1) / rs;
}

uint64_t trz_tell(trz_reader *r)
{
    if (!r) return UINT64_MAX;
    if (!r->have_cur) return r->end_rec;
    return r->cur.first_record + starts_before(r, r->cur_pos);
}

int64_t trz_read_span(trz_reader *r, const void **data, uint64_t max, uint64_t *records)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!data || !records) return rd_err(r, TRZ_ERR_PARAM, "trz_read_span: %s is NULL", data ? "records" : "data");
    *data = NULL;
    *records = 0;
    while (!r->have_cur || r->cur_pos == r->cur.len) {
        int rc = rd_next_chunk(r);
        if (rc <= 0) return rc;
    }
    const dchunk *c = &r->cur;
    size_t rs = cur_rs(r), pos = r->cur_pos, end = c->len;
    uint64_t n = 0;
    r->span_member = pos == 0 && c->mfirst;
    r->span_record = rs != 0 && cur_whole(r);
    if (rs == 0) { /* up to the (max + 1)-th line start */
        const uint8_t *p = c->data;
        size_t q = pos;
        int at_start = pos == 0 ? !(c->flags & TRZ_CHUNK_MIDLINE) : p[pos - 1] == '\n';
        r->span_record = at_start;
        int stop = 0;
        if (at_start && max == 0) end = pos, stop = 1;
        else if (at_start) n = 1;
        while (!stop) {
            const uint8_t *nl = memchr(p + q, '\n', c->len - q);
            if (!nl || (size_t)(nl - p) + 1 >= c->len) break; /* no more line starts in this chunk */
            q = (size_t)(nl - p) + 1;
            if (n == max) { end = q; break; }
            n++;
        }
    } else if (cur_whole(r)) {
        uint64_t k = (pos + rs - 1) / rs, avail = c->h.nrec - k;
        if (max < avail) {
            end = (size_t)((k + max) * rs);
            n = max;
        } else {
            n = avail;
        }
    }
    if (rs == 0 && r->cur_rec_pos == pos) r->cur_rec_pos = end, r->cur_rec_n += n;
    *data = c->data + pos;
    *records = n;
    r->cur_pos = end;
    return (int64_t)(end - pos);
}

/* ---- seeking ---- */
/* trz_seek without an index: decode forward, counting records as a span
 * does, so that a pipe and the index agree on where record `rec` starts. */
static int skip_to(trz_reader *r, uint64_t rec)
{
    if (!r->salvage && rd_check_layout(r)) return r->failed = TRZ_ERR_CORRUPT; /* r->err says which */
    uint64_t at = trz_tell(r);
    if (rec < at)
        return rd_err(r, TRZ_ERR_UNSUPPORTED, "cannot go back to record %llu: the input is a pipe or its index is "
                    "damaged", (unsigned long long)rec);
    for (;;) { /* the records before it, then what still belongs to the last of them */
        const void *v;
        uint64_t n;
        int64_t g = trz_read_span(r, &v, rec - at, &n);
        if (g < 0) return (int)g;
        if (g == 0) break;
        at += n;
    }
    if (at < rec)
        return rd_err(r, TRZ_ERR_RANGE, "record %llu is past the end (%llu records)", (unsigned long long)rec,
                    (unsigned long long)at);
    if (!r->have_cur) r->end_rec = at;
    return TRZ_OK;
}

int trz_seek(trz_reader *r, uint64_t rec)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!r->seekable) return skip_to(r, rec);
    if (rec > r->total_records) return rd_err(r, TRZ_ERR_RANGE, "record %llu is past the end (%llu records)",
                                            (unsigned long long)rec, (unsigned long long)r->total_records);
    rd_drop_queue(r);
    rd_dchunk_free(&r->cur);
    r->have_cur = 0;
    r->prev_valid = 0;
    r->end_rec = rec;
    /* binary search: the first chunk in which a record after rec starts */
    uint64_t lo = 0, hi = r->nchunks;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (r->chunks[mid].first_record + r->chunks[mid].nrec <= rec) lo = mid + 1;
        else hi = mid;
    }
    r->next_chunk = lo;
    if (lo >= r->nchunks) return TRZ_OK; /* the end: what follows the last record start belongs to that record */
    int threads = r->threads, overlap = r->overlap; /* decode just the chunk that holds the record */
    r->threads = 1;
    r->overlap = 0;
    int rc = rd_next_chunk(r);
    r->threads = threads;
    r->overlap = overlap;
    if (rc < 0) return rc;
    if (rc == 0) return TRZ_OK;
    uint64_t k = rec - r->cur.first_record;
    size_t rs = cur_rs(r);
    if (rs) r->cur_pos = (size_t)(k * rs);
    else r->cur_pos = trz_line_offset(r->cur.data, r->cur.len, r->cur.flags & TRZ_CHUNK_MIDLINE, k);
    return TRZ_OK;
}

const trz_codec *trz_reader_span_codec(const trz_reader *r, int *byte_order)
{
    *byte_order = r->have_cur ? r->cur.mbo : r->byte_order;
    return r->have_cur && r->cur.mcodec ? r->cur.mcodec : r->codec ? r->codec : &trz_codec_raw;
}

int trz_reader_span_starts(const trz_reader *r, int *member)
{
    *member = r->span_member;
    return r->span_record;
}

int trz_foreach(trz_reader *r, trz_batch_fn fn, void *ctx)
{
    if (!r) return TRZ_ERR_PARAM;
    if (!fn) return rd_err(r, TRZ_ERR_PARAM, "trz_foreach: fn is NULL");
    if (inside_record(r)) return inside_err(r);
    for (;;) {
        if (!r->have_cur || r->cur_pos == r->cur.len) {
            int rc = rd_next_chunk(r);
            if (rc < 0) return rc;
            if (rc == 0) return TRZ_OK;
            continue;
        }
        size_t rs = cur_rs(r);
        uint8_t *p = r->cur.data + r->cur_pos;
        size_t len = r->cur.len - r->cur_pos, n;
        uint64_t first;
        if (rs == 0) {
            n = (size_t)text_starts(&r->cur, r->cur_pos, r->cur.len);
            first = r->cur.first_record + r->cur.h.nrec - n;
        } else {
            if (!cur_whole(r)) { /* a partial record, at r->cur_pos == 0 */
                if (tail_is_last(r)) return TRZ_OK;
                r->cur_pos = r->cur.len;
                continue;
            }
            n = len / rs;
            len = n * rs;
            first = r->cur.first_record + r->cur_pos / rs;
            to_host(r, p, len);
        }
        r->cur_pos = r->cur.len;
        int rc = fn(ctx, p, n, len, first);
        if (rc) return rc;
    }
}

/* A slice read from a pipe, proven against its member's index: the rest
 * of the member read (sequential.c), its chunks' places checked. */
int trz_reader_check_rest(trz_reader *r)
{
    if (!r) return TRZ_ERR_PARAM;
    if (r->failed) return r->failed;
    /* through the index, and in members of version 5, every number handed
     * out was proven as it was */
    if (r->seekable || !r->in_member || r->seq_mplaced) return TRZ_OK;
    rd_drop_queue(r); /* chunks fetched ahead are in the member's list already */
    dchunk d = { 0 };
    int rc = TRZ_OK;
    while (r->in_member && !r->at_end && (rc = rd_seq_fetch(r, &d)) > 0) rc = TRZ_OK;
    rd_dchunk_free(&d);
    if (rc < 0) r->failed = rc;
    return rc < 0 ? rc : TRZ_OK;
}
