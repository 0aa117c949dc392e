/* reader.c - decode .trz archives: sequentially from any input (pipes
 * included), or through the index when the input can seek, so that a seek
 * decodes only the chunk holding the record.  Concatenated members are one
 * archive.  Every size is checked before use and every chunk's XXH3 before
 * its bytes are handed out. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "internal.h"

typedef struct rchunk {
    uint64_t offset, first_record, first_byte;
    uint32_t nrec, raw, stored;
    uint8_t codec, flags, byte_order;
} rchunk;

typedef struct dchunk { /* a decoded chunk */
    uint8_t *data;
    size_t len;
    uint64_t no, first_record;
    const trz_codec *codec;
    int byte_order, flags, rc;
    /* decode inputs */
    uint8_t *raw;
    size_t raw_len;
    trz_chunk_hdr h;
    char err[128];
} dchunk;

#define MAXQ 64

struct trz_reader {
    trz_io io;
    int fd;       /* owned when opened by path */
    trz_memio mem;
    char err[320];
    int threads, host_order, salvage;
    /* what the archive holds */
    int seekable;
    rchunk *chunks;
    uint64_t nchunks, members, total_records, total_bytes, file_size;
    const trz_codec *codec; /* of the first member */
    int byte_order, mixed;
    /* sequential parse state */
    uint64_t spos;        /* input offset */
    int in_member, at_end, opened;
    uint64_t member_start, member_chunks, seq_chunk_no, seq_records, seq_bytes;
    uint64_t member_first_chunk;
    /* the chunk being served */
    dchunk cur;
    size_t cur_pos;
    int have_cur;
    uint64_t next_chunk;  /* index mode: next chunk number to decode */
    /* decode-ahead queue */
    dchunk q[MAXQ];
    size_t qhead, qlen;
    trz_zctx *z[MAXQ];
    trz_lost_range *lost;
    size_t nlost, caplost;
    uint64_t cpu_bits[16];
    int failed; /* sticky: once a read fails, every later read fails too */
};

/* ---- errors ---- */
static int rerr(trz_reader *r, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int rerr(trz_reader *r, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, sizeof r->err, fmt, ap);
    va_end(ap);
    return rc;
}

const char *trz_reader_error(const trz_reader *r) { return r ? r->err : "out of memory"; }

/* ---- raw input ---- */
static int read_exact(trz_reader *r, void *buf, size_t n, size_t *got)
{
    size_t have = 0;
    while (have < n) {
        int64_t k = r->io.read(r->io.opaque, (uint8_t *)buf + have, n - have);
        if (k < 0) return TRZ_ERR_IO;
        if (k == 0) break;
        have += (size_t)k;
    }
    r->spos += have;
    if (got) *got = have;
    return have == n ? TRZ_OK : TRZ_ERR_TRUNCATED;
}

static int read_at(trz_reader *r, uint64_t off, void *buf, size_t n)
{
    if (r->io.seek(r->io.opaque, off) != 0) return TRZ_ERR_IO;
    r->spos = off;
    return read_exact(r, buf, n, NULL);
}

/* ---- member header ---- */
static int parse_member_header(trz_reader *r, const uint8_t *h, size_t n, size_t *len)
{
    if (n < 4 || memcmp(h, trz_file_magic, 4) != 0) return TRZ_ERR_NOT_TRZ;
    if (n < TRZ_FILE_HDR_FIXED) return TRZ_ERR_TRUNCATED;
    if (h[4] != TRZ_FORMAT_VERSION) return TRZ_ERR_VERSION;
    size_t plen = trz_ld_le16(h + 22);
    if (plen > TRZ_MAX_PARAMS) return TRZ_ERR_LIMIT;
    *len = TRZ_FILE_HDR_FIXED + plen + 4;
    if (n < *len) return TRZ_ERR_TRUNCATED;
    if (trz_ld_le32(h + TRZ_FILE_HDR_FIXED + plen) != trz_xxh32low(h, TRZ_FILE_HDR_FIXED + plen)) return TRZ_ERR_CORRUPT;
    const trz_codec *c = trz_codec_by_id(h[5]);
    if (!c) return TRZ_ERR_UNSUPPORTED;
    if (h[6] > TRZ_BO_BIG || h[7] != 0 || trz_ld_le32(h + 8) != c->record_size) return TRZ_ERR_CORRUPT;
    if (!r->codec) {
        r->codec = c;
        r->byte_order = h[6];
    } else if (r->codec != c || r->byte_order != h[6]) {
        r->mixed = 1;
    }
    return TRZ_OK;
}

/* Read a member header from the current sequential position. */
static int seq_member_header(trz_reader *r, int first)
{
    uint8_t h[TRZ_FILE_HDR_FIXED + TRZ_MAX_PARAMS + 4];
    size_t got, len;
    uint64_t start = r->spos;
    int rc = read_exact(r, h, 4, &got);
    if (rc == TRZ_ERR_TRUNCATED && got == 0 && !first) { r->at_end = 1; return TRZ_OK; }
    if (rc == TRZ_ERR_IO) return rerr(r, rc, "read error: %s", strerror(errno));
    if (rc || memcmp(h, trz_file_magic, 4) != 0)
        return first ? rerr(r, TRZ_ERR_NOT_TRZ, "not a trz file")
                     : rerr(r, TRZ_ERR_CORRUPT, "unexpected data after the end of the archive, at byte %llu",
                            (unsigned long long)start);
    if ((rc = read_exact(r, h + 4, TRZ_FILE_HDR_FIXED - 4, NULL)))
        return rerr(r, rc, "truncated file header");
    size_t plen = trz_ld_le16(h + 22);
    if (plen <= TRZ_MAX_PARAMS && (rc = read_exact(r, h + TRZ_FILE_HDR_FIXED, plen + 4, NULL)))
        return rerr(r, rc, "truncated file header");
    rc = parse_member_header(r, h, sizeof h, &len);
    if (rc) return rerr(r, rc, "damaged file header at byte %llu: %s", (unsigned long long)start, trz_strerror(rc));
    r->in_member = 1;
    r->member_start = start;
    r->member_chunks = 0;
    r->member_first_chunk = r->seq_chunk_no;
    r->members++;
    return TRZ_OK;
}

/* ---- index ---- */
static int load_member_index(trz_reader *r, uint64_t end, uint64_t *start_out, rchunk **out, uint64_t *nout)
{
    uint8_t f[TRZ_FOOTER_SIZE];
    if (end < TRZ_FOOTER_SIZE + 8 + TRZ_FILE_HDR_FIXED + 4) return TRZ_ERR_TRUNCATED;
    if (read_at(r, end - TRZ_FOOTER_SIZE, f, sizeof f)) return TRZ_ERR_IO;
    if (memcmp(f + 20, trz_footer_magic, 4) != 0) return TRZ_ERR_TRUNCATED;
    uint64_t ix_off = trz_ld_le64(f), msize = trz_ld_le64(f + 8);
    if (msize > end || ix_off + 8 + TRZ_FOOTER_SIZE > msize) return TRZ_ERR_CORRUPT;
    uint64_t start = end - msize;
    uint64_t ix_len = msize - TRZ_FOOTER_SIZE - ix_off;
    if ((ix_len - 8) % TRZ_INDEX_ENTRY) return TRZ_ERR_CORRUPT;
    uint64_t n = (ix_len - 8) / TRZ_INDEX_ENTRY;
    uint8_t *ix = malloc(ix_len);
    if (!ix) return TRZ_ERR_NOMEM;
    int rc = read_at(r, start + ix_off, ix, ix_len);
    if (!rc && (memcmp(ix, trz_index_magic, 4) || trz_ld_le32(ix + 4) != n ||
                trz_xxh32low(ix, ix_len) != trz_ld_le32(f + 16)))
        rc = TRZ_ERR_CORRUPT;
    /* the member header, so that a damaged one is caught here too */
    uint8_t h[TRZ_FILE_HDR_FIXED + TRZ_MAX_PARAMS + 4];
    size_t hlen = 0;
    if (!rc) {
        size_t want = sizeof h < ix_off ? sizeof h : (size_t)ix_off;
        rc = read_at(r, start, h, want);
        if (!rc) rc = parse_member_header(r, h, want, &hlen);
    }
    rchunk *c = NULL;
    if (!rc && n && !(c = calloc(n, sizeof *c))) rc = TRZ_ERR_NOMEM;
    uint64_t pos = hlen, rec = 0, byte = 0;
    for (uint64_t i = 0; i < n && !rc; i++) {
        const uint8_t *e = ix + 8 + i * TRZ_INDEX_ENTRY;
        rchunk *k = &c[i];
        k->offset = trz_ld_le64(e);
        k->first_record = trz_ld_le64(e + 8);
        k->first_byte = trz_ld_le64(e + 16);
        k->nrec = trz_ld_le32(e + 24);
        k->raw = trz_ld_le32(e + 28);
        k->stored = trz_ld_le32(e + 32);
        k->codec = e[36];
        k->flags = e[37];
        const trz_codec *kc = trz_codec_by_id(k->codec);
        /* chunks tile the member exactly, and records add up */
        if (k->offset != pos || k->first_record != rec || k->first_byte != byte || !kc ||
            k->raw > TRZ_MAX_CHUNK_RAW || !trz_nrec_ok(kc, k->nrec, k->raw) ||
            k->stored < TRZ_CHUNK_HDR_FIXED + 4 || e[38] || e[39])
            rc = TRZ_ERR_CORRUPT;
        pos += k->stored;
        rec += k->nrec;
        byte += k->raw;
        k->offset += start;
    }
    if (!rc && pos != ix_off) rc = TRZ_ERR_CORRUPT;
    free(ix);
    if (rc) { free(c); return rc; }
    *start_out = start;
    *out = c;
    *nout = n;
    return TRZ_OK;
}

/* Walk the footers back from the end of the file; every member's index. */
static int load_index(trz_reader *r)
{
    int64_t size = r->io.size ? r->io.size(r->io.opaque) : -1;
    if (size < 0 || !r->io.seek) return TRZ_ERR_UNSUPPORTED;
    r->file_size = (uint64_t)size;
    uint64_t end = (uint64_t)size;
    rchunk *all = NULL;
    uint64_t nall = 0, members = 0;
    r->codec = NULL;
    r->mixed = 0;
    while (end > 0) {
        rchunk *c;
        uint64_t n, start;
        int rc = load_member_index(r, end, &start, &c, &n);
        if (rc) { free(all); return rc; }
        if (nall + n > TRZ_MAX_CHUNKS) { free(c); free(all); return TRZ_ERR_LIMIT; }
        rchunk *na = malloc((nall + n + 1) * sizeof *na);
        if (!na) { free(c); free(all); return TRZ_ERR_NOMEM; }
        if (n) memcpy(na, c, n * sizeof *c);
        if (nall) memcpy(na + n, all, nall * sizeof *all);
        free(all);
        free(c);
        all = na;
        nall += n;
        members++;
        end = start;
    }
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

/* ---- open / close ---- */
static int open_common(trz_reader *r)
{
    r->threads = 1;
    r->opened = 1;
    int rc = TRZ_ERR_UNSUPPORTED;
    if (r->io.seek && r->io.size) {
        rc = load_index(r);
        /* the first bytes must be a trz header in any case */
        if (rc && rc != TRZ_ERR_IO && rc != TRZ_ERR_NOMEM) {
            uint8_t m[4] = { 0 };
            if (read_at(r, 0, m, 4) == TRZ_OK && memcmp(m, trz_file_magic, 4) != 0)
                return rerr(r, TRZ_ERR_NOT_TRZ, "not a trz file");
        }
        if (rc == TRZ_ERR_NOMEM) return rerr(r, rc, "out of memory loading the index");
        if (rc == TRZ_ERR_IO) return rerr(r, rc, "read error: %s", strerror(errno));
        if (rc) { /* damaged or missing index: decode sequentially, which says where */
            r->codec = NULL;
            if (r->io.seek(r->io.opaque, 0) != 0) return rerr(r, TRZ_ERR_IO, "seek failed");
            r->spos = 0;
        }
    }
    if (rc == TRZ_OK) {
        if (r->nchunks == 0 && r->members == 0) return rerr(r, TRZ_ERR_NOT_TRZ, "not a trz file");
        return TRZ_OK;
    }
    r->seekable = 0;
    return seq_member_header(r, 1);
}

static trz_reader *alloc_reader(void)
{
    trz_reader *r = calloc(1, sizeof *r);
    if (r) r->fd = -1;
    return r;
}

int trz_reader_open_io(trz_reader **out, const trz_io *io)
{
    trz_reader *r = *out = alloc_reader();
    if (!r) return TRZ_ERR_NOMEM;
    r->io = *io;
    return open_common(r);
}

int trz_reader_open_fd(trz_reader **out, int fd)
{
    trz_reader *r = *out = alloc_reader();
    if (!r) return TRZ_ERR_NOMEM;
    r->fd = fd;
    trz_io_fd(&r->io, &r->fd);
    int rc = open_common(r);
    return rc;
}

int trz_reader_open_path(trz_reader **out, const char *path)
{
    trz_reader *r = *out = alloc_reader();
    if (!r) return TRZ_ERR_NOMEM;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return rerr(r, TRZ_ERR_IO, "%s", strerror(errno));
    r->fd = fd;
    trz_io_fd(&r->io, &r->fd);
    r->opened = 2; /* owns fd */
    int keep = 2;
    int rc = open_common(r);
    r->opened = keep;
    return rc;
}

int trz_reader_open_mem(trz_reader **out, const void *data, size_t len)
{
    trz_reader *r = *out = alloc_reader();
    if (!r) return TRZ_ERR_NOMEM;
    r->mem.p = data;
    r->mem.n = len;
    trz_io_mem(&r->io, &r->mem);
    return open_common(r);
}

static void dchunk_free(dchunk *d)
{
    free(d->data);
    free(d->raw);
    d->data = d->raw = NULL;
}

void trz_reader_close(trz_reader *r)
{
    if (!r) return;
    dchunk_free(&r->cur);
    for (size_t i = 0; i < MAXQ; i++) {
        dchunk_free(&r->q[i]);
        trz_zctx_free(r->z[i]);
    }
    if (r->opened == 2 && r->fd >= 0) close(r->fd);
    free(r->chunks);
    free(r->lost);
    free(r);
}

int trz_reader_set(trz_reader *r, trz_rparam p, int64_t v)
{
    switch (p) {
    case TRZ_R_THREADS:
        if (v < 0 || v > MAXQ) return TRZ_ERR_PARAM;
        r->threads = v == 0 ? trz_ncpus() : (int)v;
        if (r->threads > MAXQ) r->threads = MAXQ;
        return TRZ_OK;
    case TRZ_R_HOST_ORDER: r->host_order = v != 0; return TRZ_OK;
    case TRZ_R_SALVAGE: r->salvage = v != 0; return TRZ_OK;
    }
    return TRZ_ERR_PARAM;
}

int trz_reader_info(trz_reader *r, trz_info *i)
{
    memset(i, 0, sizeof *i);
    i->format = r->mixed ? "mixed" : r->codec ? r->codec->name : "raw";
    i->record_size = r->mixed || !r->codec ? 1 : r->codec->record_size;
    i->byte_order = r->byte_order;
    i->seekable = r->seekable;
    i->records = r->seekable ? (int64_t)r->total_records : -1;
    i->raw_bytes = r->seekable ? (int64_t)r->total_bytes : -1;
    i->compressed_bytes = r->seekable ? (int64_t)r->file_size : -1;
    i->chunks = r->seekable ? (int64_t)r->nchunks : -1;
    i->members = r->seekable ? (int64_t)r->members : -1;
    return TRZ_OK;
}

int trz_reader_chunk(trz_reader *r, uint64_t n, trz_chunk_info *ci)
{
    if (!r->seekable) return rerr(r, TRZ_ERR_UNSUPPORTED, "no index: the input is not seekable or its index is damaged");
    if (n >= r->nchunks) return TRZ_ERR_RANGE;
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

/* ---- fetching chunks ---- */
static int seq_index(trz_reader *r, uint64_t at);

/* Read the next chunk's bytes in sequential mode.  Returns 1 when there is a
 * chunk in d, 0 at the end, or a negative trz_result. */
static int seq_fetch(trz_reader *r, dchunk *d)
{
    for (;;) {
        if (r->at_end) return 0;
        if (!r->in_member) {
            int rc = seq_member_header(r, 0);
            if (rc) return rc;
            continue;
        }
        uint8_t hb[TRZ_CHUNK_HDR_FIXED + TRZ_MAX_STREAMS * TRZ_STREAM_ENTRY + 4];
        uint64_t at = r->spos;
        size_t got;
        int rc = read_exact(r, hb, 4, &got);
        if (rc == TRZ_ERR_IO) return rerr(r, rc, "read error: %s", strerror(errno));
        if (rc) return rerr(r, TRZ_ERR_TRUNCATED, "chunk %llu: file ends before the index (truncated archive)",
                            (unsigned long long)r->seq_chunk_no);
        if (memcmp(hb, trz_index_magic, 4) == 0) {
            if ((rc = seq_index(r, at))) return rc;
            continue;
        }
        if (memcmp(hb, trz_chunk_magic, 4) != 0)
            return rerr(r, TRZ_ERR_CORRUPT, "chunk %llu: bad chunk magic at byte %llu",
                        (unsigned long long)r->seq_chunk_no, (unsigned long long)at);
        if ((rc = read_exact(r, hb + 4, TRZ_CHUNK_HDR_FIXED - 4, NULL)))
            return rerr(r, rc, "chunk %llu: truncated header", (unsigned long long)r->seq_chunk_no);
        size_t need;
        rc = trz_chunk_parse_hdr(hb, TRZ_CHUNK_HDR_FIXED, &d->h, &need);
        if (rc == TRZ_ERR_TRUNCATED && need <= sizeof hb) {
            if ((rc = read_exact(r, hb + TRZ_CHUNK_HDR_FIXED, need - TRZ_CHUNK_HDR_FIXED, NULL)))
                return rerr(r, rc, "chunk %llu: truncated header", (unsigned long long)r->seq_chunk_no);
            rc = trz_chunk_parse_hdr(hb, need, &d->h, &need);
        }
        if (rc) return rerr(r, rc, "chunk %llu: damaged header (%s)", (unsigned long long)r->seq_chunk_no, trz_strerror(rc));
        size_t total = d->h.hdr_len + d->h.payload;
        free(d->raw);
        d->raw = malloc(total);
        if (!d->raw) return rerr(r, TRZ_ERR_NOMEM, "chunk %llu: out of memory", (unsigned long long)r->seq_chunk_no);
        memcpy(d->raw, hb, d->h.hdr_len);
        if ((rc = read_exact(r, d->raw + d->h.hdr_len, d->h.payload, NULL)))
            return rerr(r, rc, "chunk %llu: %s", (unsigned long long)r->seq_chunk_no,
                        rc == TRZ_ERR_IO ? strerror(errno) : "truncated data");
        d->raw_len = total;
        d->no = r->seq_chunk_no++;
        d->first_record = r->seq_records;
        r->seq_records += d->h.nrec;
        r->seq_bytes += d->h.raw;
        r->member_chunks++;
        return 1;
    }
}

/* The index at the end of a member, read sequentially: it must describe the
 * chunks just read, and the footer must match it. */
static int seq_index(trz_reader *r, uint64_t at)
{
    uint8_t n4[4];
    int rc = read_exact(r, n4, 4, NULL);
    if (rc) return rerr(r, TRZ_ERR_TRUNCATED, "truncated index");
    uint64_t n = trz_ld_le32(n4);
    if (n != r->member_chunks) return rerr(r, TRZ_ERR_CORRUPT, "index lists %llu chunks, the member has %llu",
                                           (unsigned long long)n, (unsigned long long)r->member_chunks);
    size_t len = 8 + (size_t)n * TRZ_INDEX_ENTRY;
    uint8_t *ix = malloc(len);
    if (!ix) return rerr(r, TRZ_ERR_NOMEM, "out of memory");
    memcpy(ix, trz_index_magic, 4);
    memcpy(ix + 4, n4, 4);
    uint8_t f[TRZ_FOOTER_SIZE];
    rc = read_exact(r, ix + 8, len - 8, NULL);
    if (!rc) rc = read_exact(r, f, sizeof f, NULL);
    if (rc) { free(ix); return rerr(r, TRZ_ERR_TRUNCATED, "truncated index or footer"); }
    int ok = trz_xxh32low(ix, len) == trz_ld_le32(f + 16) && memcmp(f + 20, trz_footer_magic, 4) == 0 &&
             trz_ld_le64(f) == at - r->member_start && trz_ld_le64(f + 8) == r->spos - r->member_start;
    free(ix);
    if (!ok) return rerr(r, TRZ_ERR_CORRUPT, "damaged index or footer at byte %llu", (unsigned long long)at);
    r->in_member = 0;
    return TRZ_OK;
}

/* Read chunk number n's bytes through the index. */
static int idx_fetch(trz_reader *r, uint64_t n, dchunk *d)
{
    rchunk *c = &r->chunks[n];
    free(d->raw);
    d->raw = malloc(c->stored);
    if (!d->raw) return rerr(r, TRZ_ERR_NOMEM, "chunk %llu: out of memory", (unsigned long long)n);
    int rc = read_at(r, c->offset, d->raw, c->stored);
    if (rc) return rerr(r, rc, "chunk %llu: %s", (unsigned long long)n, rc == TRZ_ERR_IO ? strerror(errno) : "truncated");
    size_t need;
    rc = trz_chunk_parse_hdr(d->raw, c->stored, &d->h, &need);
    if (rc == TRZ_OK && (need != c->stored || d->h.nrec != c->nrec || d->h.raw != c->raw || d->h.codec != c->codec ||
                         d->h.flags != c->flags))
        rc = TRZ_ERR_CORRUPT;
    if (rc) return rerr(r, rc, "chunk %llu: damaged header (%s)", (unsigned long long)n, trz_strerror(rc));
    d->raw_len = c->stored;
    d->no = n;
    d->first_record = c->first_record;
    return 1;
}

static void decode_one(trz_reader *r, dchunk *d, trz_zctx *z)
{
    free(d->data);
    d->data = malloc(d->h.raw ? d->h.raw : 1);
    d->len = d->h.raw;
    d->codec = trz_codec_by_id(d->h.codec);
    d->byte_order = d->h.byte_order;
    d->flags = d->h.flags;
    d->err[0] = 0;
    if (!d->data) { d->rc = TRZ_ERR_NOMEM; snprintf(d->err, sizeof d->err, "out of memory"); return; }
    d->rc = trz_chunk_decode(&d->h, d->raw, d->raw_len, d->data, z, d->err, sizeof d->err);
    free(d->raw);
    d->raw = NULL;
    (void)r;
}

typedef struct qjob { trz_reader *r; size_t base, n; } qjob;
static void decode_job(void *arg, size_t i)
{
    qjob *j = arg;
    size_t slot = (j->base + i) % MAXQ;
    decode_one(j->r, &j->r->q[slot], j->r->z[i]);
}

static void add_lost(trz_reader *r, const dchunk *d)
{
    if (r->nlost == r->caplost) {
        size_t nc = r->caplost ? 2 * r->caplost : 16;
        trz_lost_range *nl = realloc(r->lost, nc * sizeof *nl);
        if (!nl) return;
        r->lost = nl;
        r->caplost = nc;
    }
    trz_lost_range *l = &r->lost[r->nlost++];
    l->chunk = d->no;
    l->first_record = d->first_record;
    l->records = d->h.nrec;
    l->first_byte = r->seekable && d->no < r->nchunks ? r->chunks[d->no].first_byte : 0;
    l->raw_bytes = d->h.raw;
}

/* Refill the decode-ahead queue with up to `threads` chunks. */
static int fill_queue(trz_reader *r)
{
    size_t want = (size_t)(r->threads < 1 ? 1 : r->threads);
    size_t base = (r->qhead + r->qlen) % MAXQ, n = 0;
    while (n < want) {
        dchunk *d = &r->q[(base + n) % MAXQ];
        int rc;
        if (r->seekable) {
            if (r->next_chunk >= r->nchunks) break;
            rc = idx_fetch(r, r->next_chunk++, d);
            if (rc < 0 && r->salvage) { /* header damaged: skip, with the index's numbers */
                d->no = r->next_chunk - 1;
                d->first_record = r->chunks[d->no].first_record;
                d->h.nrec = r->chunks[d->no].nrec;
                d->h.raw = r->chunks[d->no].raw;
                add_lost(r, d);
                continue;
            }
        } else {
            rc = seq_fetch(r, d);
        }
        if (rc < 0) return rc;
        if (rc == 0) break;
        n++;
    }
    for (size_t i = 0; i < n; i++)
        if (!r->z[i] && !(r->z[i] = trz_zctx_create())) return rerr(r, TRZ_ERR_NOMEM, "out of memory");
    qjob j = { r, base, n };
    trz_parallel(n, r->threads, decode_job, &j);
    r->qlen += n;
    return (int)n;
}

/* Make r->cur the next decoded chunk.  1 = have one, 0 = end, <0 error. */
static int next_chunk(trz_reader *r)
{
    if (r->failed) return r->failed;
    for (;;) {
        if (r->qlen == 0) {
            int rc = fill_queue(r);
            if (rc < 0) return r->failed = rc;
            if (rc == 0 && r->qlen == 0) return 0;
        }
        dchunk_free(&r->cur);
        r->cur = r->q[r->qhead];
        memset(&r->q[r->qhead], 0, sizeof r->q[r->qhead]);
        r->qhead = (r->qhead + 1) % MAXQ;
        r->qlen--;
        r->cur_pos = 0;
        r->have_cur = 1;
        if (r->cur.rc) {
            if (r->salvage) { add_lost(r, &r->cur); continue; }
            r->have_cur = 0;
            return r->failed = rerr(r, r->cur.rc, "chunk %llu: %s", (unsigned long long)r->cur.no, r->cur.err);
        }
        return 1;
    }
}

static void drop_queue(trz_reader *r)
{
    for (size_t i = 0; i < MAXQ; i++) dchunk_free(&r->q[i]);
    r->qhead = r->qlen = 0;
}

int64_t trz_read_bytes(trz_reader *r, void *buf, size_t cap)
{
    size_t got = 0;
    while (got < cap) {
        if (!r->have_cur || r->cur_pos == r->cur.len) {
            int rc = next_chunk(r);
            if (rc < 0) return got ? (int64_t)got : rc;
            if (rc == 0) break;
            continue;
        }
        size_t k = r->cur.len - r->cur_pos;
        if (k > cap - got) k = cap - got;
        memcpy((uint8_t *)buf + got, r->cur.data + r->cur_pos, k);
        r->cur_pos += k;
        got += k;
    }
    return (int64_t)got;
}

static int host_bo(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one ? TRZ_BO_LITTLE : TRZ_BO_BIG;
}

int64_t trz_read(trz_reader *r, void *buf, size_t max)
{
    uint8_t *out = buf;
    size_t got = 0;
    if (r->codec && r->codec->record_size == 0 && !r->mixed)
        return rerr(r, TRZ_ERR_UNSUPPORTED, "trz_read needs fixed-size records; use trz_read_bytes for text");
    while (got < max) {
        if (!r->have_cur || r->cur_pos == r->cur.len) {
            int rc = next_chunk(r);
            if (rc < 0) return got ? (int64_t)got : rc;
            if (rc == 0) break;
            continue;
        }
        const trz_codec *k = r->cur.codec;
        size_t rs = r->codec ? r->codec->record_size : 1;
        if ((uint64_t)r->cur.h.nrec * rs != r->cur.len) { r->cur_pos = r->cur.len; continue; } /* a tail, not a record */
        size_t n = (r->cur.len - r->cur_pos) / rs;
        if (n > max - got) n = max - got;
        uint8_t *dst = out + got * rs;
        memcpy(dst, r->cur.data + r->cur_pos, n * rs);
        if (r->host_order && k->convert && r->cur.byte_order && r->cur.byte_order != host_bo())
            k->convert(dst, n * rs, r->cur.byte_order, host_bo());
        r->cur_pos += n * rs;
        got += n;
    }
    return (int64_t)got;
}

int trz_seek(trz_reader *r, uint64_t rec)
{
    if (!r->seekable) return rerr(r, TRZ_ERR_UNSUPPORTED, "cannot seek: the input is a pipe or its index is damaged");
    if (rec > r->total_records) return rerr(r, TRZ_ERR_RANGE, "record %llu is past the end (%llu records)",
                                            (unsigned long long)rec, (unsigned long long)r->total_records);
    drop_queue(r);
    dchunk_free(&r->cur);
    r->have_cur = 0;
    /* binary search: the last chunk whose first record <= rec and that holds records */
    uint64_t lo = 0, hi = r->nchunks;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (r->chunks[mid].first_record + r->chunks[mid].nrec <= rec) lo = mid + 1;
        else hi = mid;
    }
    r->next_chunk = lo;
    if (lo >= r->nchunks) return TRZ_OK; /* at the end */
    int rc = next_chunk(r);
    if (rc < 0) return rc;
    if (rc == 0) return TRZ_OK;
    uint64_t k = rec - r->cur.first_record;
    size_t rs = r->codec ? r->codec->record_size : 1;
    if (rs) r->cur_pos = (size_t)(k * rs);
    else r->cur_pos = trz_line_offset(r->cur.data, r->cur.len, r->cur.flags & TRZ_CHUNK_MIDLINE, k);
    return TRZ_OK;
}

int trz_foreach(trz_reader *r, trz_batch_fn fn, void *ctx)
{
    for (;;) {
        if (!r->have_cur || r->cur_pos == r->cur.len) {
            int rc = next_chunk(r);
            if (rc < 0) return rc;
            if (rc == 0) return TRZ_OK;
            continue;
        }
        const trz_codec *k = r->cur.codec;
        size_t rs = r->codec ? r->codec->record_size : 1;
        uint8_t *p = r->cur.data + r->cur_pos;
        size_t len = r->cur.len - r->cur_pos, n;
        uint64_t first;
        if (rs == 0) {
            n = (size_t)trz_count_lines(p, len, r->cur_pos == 0 ? (r->cur.flags & TRZ_CHUNK_MIDLINE) : 0);
            first = r->cur.first_record + r->cur.h.nrec - n;
        } else {
            if ((uint64_t)r->cur.h.nrec * rs != r->cur.len) { r->cur_pos = r->cur.len; continue; }
            n = len / rs;
            first = r->cur.first_record + r->cur_pos / rs;
            if (r->host_order && k->convert && r->cur.byte_order && r->cur.byte_order != host_bo())
                k->convert(p, n * rs, r->cur.byte_order, host_bo());
        }
        r->cur_pos = r->cur.len;
        int rc = fn(ctx, p, n, first);
        if (rc) return rc;
    }
}

size_t trz_reader_lost(const trz_reader *r, trz_lost_range *out, size_t max)
{
    for (size_t i = 0; i < r->nlost && i < max; i++) out[i] = r->lost[i];
    return r->nlost;
}

int trz_reader_streams(trz_reader *r, trz_stream_fn fn, void *ctx)
{
    if (!r->seekable) return rerr(r, TRZ_ERR_UNSUPPORTED, "no index: the input is not seekable or its index is damaged");
    static const size_t ncodec = 256;
    uint64_t (*acc)[TRZ_MAX_STREAMS][2] = calloc(ncodec, sizeof *acc);
    if (!acc) return rerr(r, TRZ_ERR_NOMEM, "out of memory");
    uint8_t hb[TRZ_CHUNK_HDR_FIXED + TRZ_MAX_STREAMS * TRZ_STREAM_ENTRY + 4];
    int rc = TRZ_OK;
    for (uint64_t i = 0; i < r->nchunks && rc == TRZ_OK; i++) {
        rchunk *c = &r->chunks[i];
        size_t want = c->stored < sizeof hb ? c->stored : sizeof hb, need;
        trz_chunk_hdr h;
        rc = read_at(r, c->offset, hb, want);
        if (!rc) rc = trz_chunk_parse_hdr(hb, want, &h, &need);
        if (rc) { rc = rerr(r, rc, "chunk %llu: damaged header", (unsigned long long)i); break; }
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
                fn(ctx, k->name, s, nm ? nm : "?", acc[c][s][0], acc[c][s][1]);
            }
    }
    free(acc);
    return rc;
}

static int cpus_cb(void *ctx, const void *recs, size_t n, uint64_t first)
{
    trz_reader *r = ctx;
    (void)first;
    const trz_codec *k = r->cur.codec;
    if (k->cpus_seen && n) k->cpus_seen(recs, n * k->record_size, r->cur.byte_order, r->cpu_bits);
    return 0;
}

int trz_reader_cpus(trz_reader *r)
{
    if (!r->codec || !r->codec->cpus_seen) return 0;
    memset(r->cpu_bits, 0, sizeof r->cpu_bits);
    int rc = r->seekable ? trz_seek(r, 0) : TRZ_OK;
    if (rc) return rc;
    int host = r->host_order;
    r->host_order = 0;
    rc = trz_foreach(r, cpus_cb, r);
    r->host_order = host;
    if (rc) return rc;
    int n = 0;
    for (int i = 0; i < 16; i++) n += __builtin_popcountll(r->cpu_bits[i]);
    return n;
}

const trz_codec *trz_reader_codec(const trz_reader *r, int *byte_order)
{
    *byte_order = r->byte_order;
    return r->codec ? r->codec : &trz_codec_raw;
}
