/* reader.c - decode .trz archives: sequentially from any input (pipes
 * included), or through the index when the input can seek, so that a seek
 * decodes only the chunk holding the record.  Concatenated members are one
 * archive.  Every size is checked before use and every chunk's XXH3 before
 * its bytes are handed out. */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "internal.h"

typedef struct rchunk {
    uint64_t offset, first_record, first_byte;
    uint32_t nrec, raw, stored;
    uint8_t codec, flags, byte_order;
    uint8_t mcodec, mbo;  /* the member's codec and byte order */
    uint8_t mfirst;       /* the member's first chunk */
} rchunk;

typedef struct dchunk { /* a decoded chunk */
    uint8_t *data;
    size_t len, cap;       /* cap: data's allocation, reused chunk after chunk */
    uint64_t no, first_record;
    uint64_t first_byte;
    uint64_t off, stored;  /* where it is in the archive */
    int numbers_ok;        /* no and first_record are exact (see counts_ok) */
    const trz_codec *mcodec; /* the member's codec: what a record is */
    int mbo, mfirst;       /* the member's byte order; first chunk of its member */
    const trz_codec *codec;
    int byte_order, flags, rc;
    /* decode inputs */
    uint8_t *raw;
    size_t raw_len, raw_cap; /* raw_cap: the allocation, reused like data's */
    trz_chunk_hdr h;
    char err[128];
} dchunk;

#define MAXQ 64
enum { Q_FREE, Q_PENDING, Q_DECODING, Q_DONE }; /* a queue slot's state */
#define UNKNOWN UINT64_MAX /* in a trz_lost_range: not known */

/* Where a loss lies in the archive (parallel to trz_reader.lost). */
typedef struct lost_at {
    uint64_t start, end; /* archive bytes [start, end) */
    int open;            /* numbers still to be taken from the member's index */
} lost_at;

/* A chunk's place, from an index met while reading sequentially in salvage
 * mode: resolves the losses in its member.  Numbers UNKNOWN when the
 * member's first chunk number is not known. */
typedef struct chunk_pos {
    uint64_t off, chunk, first_record, first_byte;
    uint32_t nrec, raw;
} chunk_pos;

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
    const trz_codec *seq_mcodec; /* the member being read: its codec and byte order */
    int seq_mbo, seq_tail;       /* seq_tail: its last chunk was a partial record */
    /* the chunk being served */
    dchunk cur;
    size_t cur_pos;
    int have_cur;
    size_t cur_rec_pos;   /* records of cur that start before cur_rec_pos: */
    uint64_t cur_rec_n;   /* a cache for trz_tell on text */
    uint64_t end_rec;     /* without a current chunk: the next record's number */
    /* the chunk served before cur, for checks that span two chunks */
    uint64_t prev_no;
    int prev_valid, prev_nl;
    uint64_t next_chunk;  /* index mode: next chunk number to decode */
    /* decode-ahead queue */
    dchunk q[MAXQ];
    size_t qhead, qlen;
    trz_zctx *z[MAXQ];
    /* decode-ahead workers (threads >= 2): the caller fetches chunks into the
     * queue, the workers decode them while the caller serves earlier ones */
    pthread_mutex_t mu;
    pthread_cond_t work_cv, done_cv;
    pthread_t tid[MAXQ];
    struct wref { struct trz_reader *r; int id; } wref[MAXQ];
    int nworkers, stop, sync_ready;
    uint8_t qstate[MAXQ];  /* Q_FREE, Q_PENDING, Q_DECODING, Q_DONE */
    int fetch_rc, fetch_end; /* what ended fetching ahead: served after the queue */
    trz_lost_range *lost;
    lost_at *lost_at;
    size_t nlost, caplost;
    uint64_t cpu_bits[16];
    int failed; /* sticky: once a read fails, every later read fails too */
    /* salvage in sequential mode */
    uint8_t *look;        /* bytes read ahead (a scan, a damaged header), served before the input */
    size_t look_pos, look_len;
    int counts_ok;        /* seq_chunk_no/records/bytes exact: no loss of unknown size so far */
    int member_base_ok;   /* member_first_* are exact */
    uint64_t member_first_record, member_first_byte;
    chunk_pos *pos;
    size_t npos, cappos;
    int open_damaged;     /* the open failed on a damaged first header: salvage can resume */
    int open_rc;
    uint64_t open_at;
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
static int push_back(trz_reader *r, const uint8_t *p, size_t n)
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

static int read_exact(trz_reader *r, void *buf, size_t n, size_t *got)
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

static int read_at(trz_reader *r, uint64_t off, void *buf, size_t n)
{
    if (r->io.seek(r->io.opaque, off) != 0) return TRZ_ERR_IO;
    r->spos = off;
    r->look_pos = r->look_len = 0;
    return read_exact(r, buf, n, NULL);
}

/* ---- member header ---- */
static int check_member_header(const uint8_t *h, size_t n, size_t *len)
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
    return TRZ_OK;
}

/* Whether a chunk fits its member (FORMAT.md, "Records"): it is coded with
 * the member's codec (in the member's byte order) or stored raw; in a
 * fixed-size member it holds whole records, or else only the partial last
 * record (*tail), which must end the member; only text chunks may start
 * mid-line, and never the member's first one. */
static int chunk_fits(const trz_codec *m, int mbo, unsigned codec, unsigned bo, unsigned flags, uint64_t nrec,
                      uint64_t raw, int first, int *tail)
{
    *tail = 0;
    if (codec != m->id && codec != TRZ_CODEC_RAW) return 0;
    if (codec == m->id && codec != TRZ_CODEC_RAW && bo != (unsigned)mbo) return 0;
    if (m->record_size == 0) return !(first && (flags & TRZ_CHUNK_MIDLINE)) && nrec <= raw;
    if (flags) return 0;
    if (nrec * m->record_size == raw) return 1;
    *tail = codec == TRZ_CODEC_RAW && nrec == 0 && raw < m->record_size;
    return *tail;
}

static int parse_member_header(trz_reader *r, const uint8_t *h, size_t n, size_t *len)
{
    int rc = check_member_header(h, n, len);
    if (rc) return rc;
    const trz_codec *c = trz_codec_by_id(h[5]);
    if (!r->codec) {
        r->codec = c;
        r->byte_order = h[6];
    } else if (r->codec != c || r->byte_order != h[6]) {
        r->mixed = 1;
    }
    return TRZ_OK;
}

/* After 4 bytes that are not the magic: whether they begin a member header
 * whose magic alone is damaged, which its check, computed with the magic put
 * right, tells.  The bytes read after the 4 are given back. */
static int magic_damaged(trz_reader *r)
{
    uint8_t b[TRZ_FILE_HDR_FIXED + TRZ_MAX_PARAMS + 4];
    size_t got = 0, more = 0;
    memcpy(b, trz_file_magic, 4);
    int ok = read_exact(r, b + 4, TRZ_FILE_HDR_FIXED - 4, &got) == TRZ_OK;
    size_t plen = trz_ld_le16(b + 22), len;
    if (ok && plen <= TRZ_MAX_PARAMS) ok = read_exact(r, b + TRZ_FILE_HDR_FIXED, plen + 4, &more) == TRZ_OK;
    ok = ok && check_member_header(b, TRZ_FILE_HDR_FIXED + plen + 4, &len) == TRZ_OK;
    if (push_back(r, b + 4, got + more)) return 0; /* give them back: a salvage scan reads them again */
    return ok;
}

/* Read a member header from the current sequential position. */
static int seq_member_header(trz_reader *r, int first)
{
    uint8_t h[TRZ_FILE_HDR_FIXED + TRZ_MAX_PARAMS + 4];
    size_t got, len;
    uint64_t start = r->spos;
    int rc = read_exact(r, h, 4, &got);
    size_t have = got;
    if (rc == TRZ_ERR_TRUNCATED && got == 0 && !first) { r->at_end = 1; return TRZ_OK; }
    if (rc == TRZ_ERR_IO) return rerr(r, rc, "read error: %s", strerror(errno));
    if (rc || memcmp(h, trz_file_magic, 4) != 0) {
        int bad_magic = !rc && !first && magic_damaged(r); /* reads on, then gives the bytes back */
        if (have > 1 && push_back(r, h + 1, have - 1)) return rerr(r, TRZ_ERR_NOMEM, "out of memory");
        if (first && have == 4) { r->open_damaged = 1; r->open_rc = TRZ_ERR_NOT_TRZ; r->open_at = start; }
        int near = have == 4 && (h[0] == trz_file_magic[0]) + (h[1] == trz_file_magic[1]) +
                                    (h[2] == trz_file_magic[2]) + (h[3] == trz_file_magic[3]) >= 3;
        if (first && near) return rerr(r, TRZ_ERR_CORRUPT, "damaged file header at byte 0 (bad magic)");
        if (first && !(rc && have && memcmp(h, trz_file_magic, have) == 0))
            return rerr(r, TRZ_ERR_NOT_TRZ, "not a trz file");
        if (rc && memcmp(h, trz_file_magic, have) == 0)
            return rerr(r, TRZ_ERR_TRUNCATED, "truncated file header at byte %llu (the archive is cut short)",
                        (unsigned long long)start);
        if (bad_magic) return rerr(r, TRZ_ERR_CORRUPT, "damaged file header at byte %llu (bad magic)",
                                                   (unsigned long long)start);
        return rerr(r, TRZ_ERR_CORRUPT, "unexpected data after the end of the archive, at byte %llu",
                    (unsigned long long)start);
    }
    rc = read_exact(r, h + 4, TRZ_FILE_HDR_FIXED - 4, &got);
    have += got;
    size_t plen = trz_ld_le16(h + 22);
    if (!rc && plen <= TRZ_MAX_PARAMS) {
        rc = read_exact(r, h + TRZ_FILE_HDR_FIXED, plen + 4, &got);
        have += got;
    }
    if (rc == TRZ_ERR_IO) return rerr(r, rc, "read error: %s", strerror(errno));
    if (!rc) rc = parse_member_header(r, h, sizeof h, &len);
    if (rc) {
        /* keep the bytes after the magic: a salvage scan starts again there */
        if (push_back(r, h + 1, have - 1)) return rerr(r, TRZ_ERR_NOMEM, "out of memory");
        if (first) { r->open_damaged = 1; r->open_rc = rc; r->open_at = start; }
        if (rc == TRZ_ERR_TRUNCATED) return rerr(r, rc, "truncated file header at byte %llu", (unsigned long long)start);
        return rerr(r, rc, "damaged file header at byte %llu: %s", (unsigned long long)start, trz_strerror(rc));
    }
    r->in_member = 1;
    r->seq_mcodec = trz_codec_by_id(h[5]);
    r->seq_mbo = h[6];
    r->seq_tail = 0;
    r->member_start = start;
    r->member_chunks = 0;
    r->member_first_chunk = r->seq_chunk_no;
    r->member_first_record = r->seq_records;
    r->member_first_byte = r->seq_bytes;
    r->member_base_ok = r->counts_ok;
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
    const trz_codec *mc = rc ? NULL : trz_codec_by_id(h[5]);
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
        k->mcodec = mc->id;
        k->mbo = h[6];
        k->mfirst = i == 0;
        const trz_codec *kc = trz_codec_by_id(k->codec);
        int tail;
        /* chunks tile the member exactly, records add up, and each fits the member */
        if (k->offset != pos || k->first_record != rec || k->first_byte != byte || !kc ||
            k->raw > TRZ_MAX_CHUNK_RAW || !trz_nrec_ok(kc, k->nrec, k->raw) ||
            !chunk_fits(mc, h[6], k->codec, h[6], k->flags, k->nrec, k->raw, i == 0, &tail) ||
            (tail && i + 1 != n) || k->stored < TRZ_CHUNK_HDR_FIXED + 4 || e[38] || e[39])
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

/* Walk the footers back from the end of the file; every member's index.
 * The members come last first: their tables are kept apart and joined once
 * at the end, so that many members cost linear time. */
static int load_index(trz_reader *r)
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
    if (rc) { free(all); return rc; }
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
            if (read_at(r, 0, m, 4) == TRZ_OK && memcmp(m, trz_file_magic, 4) != 0) {
                /* most of the magic, or a footer at the end: an archive whose first bytes are damaged */
                uint8_t t[4] = { 0 };
                int near = (m[0] == trz_file_magic[0]) + (m[1] == trz_file_magic[1]) + (m[2] == trz_file_magic[2]) +
                           (m[3] == trz_file_magic[3]) >= 3;
                int footer = r->file_size >= 4 && read_at(r, r->file_size - 4, t, 4) == TRZ_OK &&
                             memcmp(t, trz_footer_magic, 4) == 0;
                if (read_at(r, 0, m, 4) != TRZ_OK) return rerr(r, TRZ_ERR_IO, "read error: %s", strerror(errno));
                /* salvage may still find chunks after a damaged magic */
                if (push_back(r, m + 1, 3) == TRZ_OK) { r->open_damaged = 1; r->open_rc = TRZ_ERR_NOT_TRZ; r->open_at = 0; }
                if (near || footer) return rerr(r, TRZ_ERR_CORRUPT, "damaged file header at byte 0 (bad magic)");
                return rerr(r, TRZ_ERR_NOT_TRZ, "not a trz file");
            }
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
    if (r) {
        r->fd = -1;
        r->counts_ok = 1;
    }
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

static int skip_damage(trz_reader *r, uint64_t at, const uint8_t head[8], int expect_header);

static void dchunk_free(dchunk *d)
{
    free(d->data);
    free(d->raw);
    d->data = d->raw = NULL;
    d->cap = d->raw_cap = 0;
}

static void pool_stop(trz_reader *r);

void trz_reader_close(trz_reader *r)
{
    if (!r) return;
    pool_stop(r);
    if (r->sync_ready) {
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->work_cv);
        pthread_cond_destroy(&r->done_cv);
    }
    dchunk_free(&r->cur);
    for (size_t i = 0; i < MAXQ; i++) {
        dchunk_free(&r->q[i]);
        trz_zctx_free(r->z[i]);
    }
    if (r->opened == 2 && r->fd >= 0) close(r->fd);
    free(r->chunks);
    free(r->lost);
    free(r->lost_at);
    free(r->pos);
    free(r->look);
    free(r);
    trz_big_trim(); /* the model tables kept for the next chunk */
}

int trz_reader_set(trz_reader *r, trz_rparam p, int64_t v)
{
    switch (p) {
    case TRZ_R_THREADS:
        if (v < 0 || v > MAXQ) return TRZ_ERR_PARAM;
        pool_stop(r); /* chunks already fetched stay queued, decoded or not */
        r->threads = v == 0 ? trz_ncpus() : (int)v;
        if (r->threads > MAXQ / 2) r->threads = MAXQ / 2;
        return TRZ_OK;
    case TRZ_R_HOST_ORDER: r->host_order = v != 0; return TRZ_OK;
    case TRZ_R_SALVAGE:
        r->salvage = v != 0;
        if (r->salvage && r->open_damaged) { /* the open failed on a damaged first header: go on past it */
            static const uint8_t head[8] = { 0x89, 'T', 'R', 'Z' };
            r->open_damaged = 0;
            int rc = skip_damage(r, r->open_at, head, 1);
            if (rc) return r->failed = rc;
            if (r->open_rc == TRZ_ERR_NOT_TRZ && r->at_end) /* nothing in it looks like trz */
                return r->failed = rerr(r, TRZ_ERR_NOT_TRZ, "not a trz file (no chunk found)");
        }
        return TRZ_OK;
    }
    return TRZ_ERR_PARAM;
}

int trz_reader_info(trz_reader *r, trz_info *i)
{
    memset(i, 0, sizeof *i);
    i->format = r->mixed ? "mixed" : r->codec ? r->codec->name : "raw";
    /* members of different formats count records each in their own unit */
    i->record_size = r->mixed ? 0 : !r->codec ? 1 : r->codec->record_size;
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
static int note_lost(trz_reader *r, trz_lost_range l, uint64_t start, uint64_t end, int open);

/* ---- salvage in sequential mode ----
 * A damaged structure does not end a salvaging read: the reader scans
 * forward for the next structure that checks itself (a chunk header, a member
 * header, or an index whose footer matches), goes on from there, and notes
 * what lay between as lost.  How many records that was comes from the
 * member's index when it is intact; otherwise only where the loss begins is
 * known (UNKNOWN in the other fields). */

enum { SCAN_EOF, SCAN_CHUNK, SCAN_MEMBER, SCAN_INDEX };
#define SCAN_BLOCK (64u << 10)
#define SCAN_INDEX_MAX (64u << 20) /* a larger index is not checked by a scan */

/* What the n bytes at p (archive offset at) begin: SCAN_CHUNK, SCAN_MEMBER,
 * SCAN_INDEX or -1; *need > n when it takes more bytes to tell. */
static int scan_candidate(const uint8_t *p, size_t n, uint64_t at, size_t *need)
{
    *need = 4;
    if (n < 4) return -1;
    *need = 0;
    if (memcmp(p, trz_chunk_magic, 4) == 0) {
        trz_chunk_hdr h;
        int rc = trz_chunk_parse_hdr(p, n, &h, need);
        if (rc == TRZ_OK) return SCAN_CHUNK;
        if (rc != TRZ_ERR_TRUNCATED) *need = 0;
        return -1;
    }
    if (memcmp(p, trz_file_magic, 4) == 0) {
        size_t len = 0;
        int rc = check_member_header(p, n, &len);
        if (rc == TRZ_OK) return SCAN_MEMBER;
        if (rc == TRZ_ERR_TRUNCATED) *need = n < TRZ_FILE_HDR_FIXED ? TRZ_FILE_HDR_FIXED : len;
        return -1;
    }
    if (memcmp(p, trz_index_magic, 4) == 0) {
        if (n < 8) { *need = 8; return -1; }
        uint64_t len = 8 + (uint64_t)trz_ld_le32(p + 4) * TRZ_INDEX_ENTRY;
        if (len + TRZ_FOOTER_SIZE > SCAN_INDEX_MAX) return -1;
        if (n < len + TRZ_FOOTER_SIZE) { *need = (size_t)len + TRZ_FOOTER_SIZE; return -1; }
        const uint8_t *f = p + len;
        uint64_t ix_off = trz_ld_le64(f), msize = trz_ld_le64(f + 8), end = at + len + TRZ_FOOTER_SIZE;
        /* the cheap tests first: garbage full of magics must not cost a hash each */
        if (memcmp(f + 20, trz_footer_magic, 4) == 0 && msize <= end && end - msize + ix_off == at &&
            trz_ld_le32(f + 16) == trz_xxh32low(p, (size_t)len))
            return SCAN_INDEX;
    }
    return -1;
}

/* Scan from spos for the next structure that checks out; leave spos at it
 * with the bytes from there on in the look-ahead.  tail gets the 4 bytes
 * before it (zeros if fewer were scanned).  Returns SCAN_* or a negative
 * trz_result. */
static int scan(trz_reader *r, uint8_t tail[4])
{
    size_t wlen = r->look_len - r->look_pos, cap = wlen + SCAN_BLOCK, i = 0;
    uint8_t *w = malloc(cap);
    if (!w) return TRZ_ERR_NOMEM;
    if (wlen) memcpy(w, r->look + r->look_pos, wlen);
    free(r->look);
    r->look = NULL;
    r->look_pos = r->look_len = 0;
    uint64_t base = r->spos; /* archive offset of w[0] */
    int eof = 0, kind = SCAN_EOF;
    memset(tail, 0, 4);
    for (;;) {
        size_t need = 4;
        if (i < wlen) {
            int k = scan_candidate(w + i, wlen - i, base + i, &need);
            if (k >= 0) { kind = k; break; }
        }
        if (need > wlen - i && !eof) { /* read more, keeping 4 bytes before i */
            size_t drop = i > 4 ? i - 4 : 0;
            memmove(w, w + drop, wlen - drop);
            wlen -= drop;
            i -= drop;
            base += drop;
            size_t want = need - (wlen - i) > SCAN_BLOCK ? need - (wlen - i) : SCAN_BLOCK;
            if (wlen + want > cap) {
                uint8_t *nw = realloc(w, wlen + want);
                if (!nw) { free(w); return TRZ_ERR_NOMEM; }
                w = nw;
                cap = wlen + want;
            }
            int64_t g = r->io.read(r->io.opaque, w + wlen, want);
            if (g < 0) { free(w); return TRZ_ERR_IO; }
            if (g == 0) eof = 1;
            wlen += (size_t)g;
            continue;
        }
        if (i >= wlen) break;
        i++;
    }
    if (i >= 4) memcpy(tail, w + i - 4, 4);
    r->look = w;
    r->look_pos = i;
    r->look_len = wlen;
    r->spos = base + i;
    return kind;
}

/* Whether damaged bytes [at, end) that begin with head[0..8) and end with
 * tail[0..4) are this member's index and footer: the size fits the count
 * they hold and a magic is intact, or the size fits the chunks read and two
 * of the magic, the count and the footer magic are intact (one damaged byte
 * spoils only one of them). */
static int index_like(const trz_reader *r, uint64_t at, uint64_t end, const uint8_t *head, const uint8_t *tail)
{
    uint64_t mc = r->member_chunks, count = trz_ld_le32(head + 4);
    int magic = memcmp(head, trz_index_magic, 4) == 0, fmagic = memcmp(tail, trz_footer_magic, 4) == 0;
    /* its own count fits (chunks may have been lost before it) */
    if (end - at == 8 + count * TRZ_INDEX_ENTRY + TRZ_FOOTER_SIZE && (magic || fmagic)) return 1;
    return end - at == 8 + mc * TRZ_INDEX_ENTRY + TRZ_FOOTER_SIZE && magic + (count == mc) + fmagic >= 2;
}

/* Salvage: the structure at `at` is damaged (r->err says how) and the bytes
 * from at + 1 on are still to be read (in the look-ahead or the input); head
 * holds its first 8 bytes.  Scan to the next good structure: the bytes in
 * between are a loss, unless they were only a member header (expect_header)
 * or this member's index.  Returns 0 to go on or a negative trz_result. */
static int skip_damage(trz_reader *r, uint64_t at, const uint8_t head[8], int expect_header)
{
    uint8_t tail[4];
    int kind = scan(r, tail);
    if (kind < 0) return rerr(r, kind, "%s", kind == TRZ_ERR_IO ? strerror(errno) : "out of memory");
    uint64_t end = r->spos;
    int header = expect_header && end - at == TRZ_FILE_HDR_FIXED + 4 && kind != SCAN_EOF;
    int index = !expect_header && r->in_member && index_like(r, at, end, head, tail);
    if (!header && !index) {
        trz_lost_range l = { UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN };
        if (r->counts_ok) { l.chunk = r->seq_chunk_no; l.first_record = r->seq_records; l.first_byte = r->seq_bytes; }
        if (note_lost(r, l, at, end, 1)) return rerr(r, TRZ_ERR_NOMEM, "out of memory");
        r->counts_ok = 0;
    }
    if (kind == SCAN_EOF) { r->at_end = 1; return TRZ_OK; }
    if (kind == SCAN_MEMBER) { r->in_member = 0; return TRZ_OK; }
    if (index || !r->in_member) { /* chunks of a member whose header is lost */
        r->in_member = 1;
        r->seq_mcodec = NULL; /* its format is not known: each chunk stands for itself */
        r->seq_tail = 0;
        r->member_start = header ? at : end;
        r->member_chunks = 0;
        r->member_first_chunk = r->seq_chunk_no;
        r->member_first_record = r->seq_records;
        r->member_first_byte = r->seq_bytes;
        r->member_base_ok = r->counts_ok;
        r->members++;
    }
    return TRZ_OK;
}

/* After a damaged structure at `at`: fail, or in salvage mode give back the
 * `got` bytes read from it but its first (head) and skip to the next good one. */
static int damaged(trz_reader *r, int rc, uint64_t at, const uint8_t *head, size_t got, int expect_header)
{
    if (!r->salvage || rc == TRZ_ERR_IO || rc == TRZ_ERR_NOMEM) return rc;
    uint8_t h8[8] = { 0 };
    memcpy(h8, head, got < 8 ? got : 8);
    if (got > 1 && push_back(r, head + 1, got - 1)) return rerr(r, TRZ_ERR_NOMEM, "out of memory");
    return skip_damage(r, at, h8, expect_header);
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
        d->raw = trz_big_malloc(cap);
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
        int rc = read_exact(r, d->raw + have, want, &got);
        have += got;
        if (rc) return rc;
    }
    return TRZ_OK;
}

/* Salvage: the input ends at `at` or inside the chunk there: from there
 * on everything is lost. */
static int lost_at_end(trz_reader *r, uint64_t at)
{
    trz_lost_range l = { UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN };
    if (r->counts_ok) { l.chunk = r->seq_chunk_no; l.first_record = r->seq_records; l.first_byte = r->seq_bytes; }
    r->counts_ok = 0;
    r->at_end = 1;
    return note_lost(r, l, at, r->spos, 1) ? rerr(r, TRZ_ERR_NOMEM, "out of memory") : TRZ_OK;
}

/* Bad chunk magic at `at` (hb holds the 4 bytes): a damaged chunk, or this
 * member's index with a damaged magic, which the count after it tells. */
static int bad_magic(trz_reader *r, uint64_t at, uint8_t *hb)
{
    size_t got = 0;
    if (read_exact(r, hb + 4, 4, &got) == TRZ_ERR_IO) return rerr(r, TRZ_ERR_IO, "read error: %s", strerror(errno));
    uint64_t mc = r->member_chunks, ixlen = 8 + mc * TRZ_INDEX_ENTRY + TRZ_FOOTER_SIZE;
    int ix = mc && got == 4 && (trz_ld_le32(hb + 4) == mc || (r->file_size && r->file_size - at == ixlen));
    int rc = ix ? rerr(r, TRZ_ERR_CORRUPT, "damaged index at byte %llu (bad magic)", (unsigned long long)at)
                : rerr(r, TRZ_ERR_CORRUPT, "chunk %llu: bad chunk magic at byte %llu",
                       (unsigned long long)r->seq_chunk_no, (unsigned long long)at);
    return damaged(r, rc, at, hb, 4 + got, 0);
}

/* Read the next chunk's bytes in sequential mode.  Returns 1 when there is a
 * chunk in d, 0 at the end, or a negative trz_result. */
static int seq_fetch(trz_reader *r, dchunk *d)
{
    for (;;) {
        if (r->at_end) return 0;
        int rc;
        if (!r->in_member) {
            uint64_t at = r->spos;
            if ((rc = seq_member_header(r, 0)) && (rc = damaged(r, rc, at, (const uint8_t *)"\x89TRZ\0\0\0\0", 1, 1)))
                return rc;
            continue;
        }
        uint8_t hb[TRZ_CHUNK_HDR_FIXED + TRZ_MAX_STREAMS * TRZ_STREAM_ENTRY + 4];
        uint64_t at = r->spos;
        size_t got, have;
        rc = read_exact(r, hb, 4, &got);
        if (rc == TRZ_ERR_IO) return rerr(r, rc, "read error: %s", strerror(errno));
        if (rc && got) { /* a piece of a magic */
            rc = rerr(r, TRZ_ERR_TRUNCATED, "chunk %llu: truncated header at byte %llu (the archive is cut short)",
                      (unsigned long long)r->seq_chunk_no, (unsigned long long)at);
            if (!r->salvage || (rc = lost_at_end(r, at))) return rc;
            continue;
        }
        if (rc) {
            if (r->member_chunks)
                rc = rerr(r, TRZ_ERR_TRUNCATED, "the file ends at byte %llu after chunk %llu, where the next chunk or "
                          "the index should be (truncated archive)", (unsigned long long)at,
                          (unsigned long long)r->seq_chunk_no - 1);
            else
                rc = rerr(r, TRZ_ERR_TRUNCATED, "the file ends at byte %llu before the first chunk of the member "
                          "(truncated archive)", (unsigned long long)at);
            if (!r->salvage || (rc = lost_at_end(r, at))) return rc;
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
        rc = read_exact(r, hb + 4, TRZ_CHUNK_HDR_FIXED - 4, &got);
        have = 4 + got;
        size_t need = 0;
        if (!rc) rc = trz_chunk_parse_hdr(hb, TRZ_CHUNK_HDR_FIXED, &d->h, &need);
        if (rc == TRZ_ERR_TRUNCATED && need > TRZ_CHUNK_HDR_FIXED && need <= sizeof hb) {
            rc = read_exact(r, hb + TRZ_CHUNK_HDR_FIXED, need - TRZ_CHUNK_HDR_FIXED, &got);
            have += got;
            if (!rc) rc = trz_chunk_parse_hdr(hb, need, &d->h, &need);
        }
        if (rc == TRZ_ERR_IO) return rerr(r, rc, "read error: %s", strerror(errno));
        if (rc == TRZ_ERR_TRUNCATED) /* the input ended inside the header */
            rc = rerr(r, rc, "chunk %llu: truncated header at byte %llu (the archive is cut short)",
                      (unsigned long long)r->seq_chunk_no, (unsigned long long)at);
        else if (rc)
            rc = rerr(r, rc, "chunk %llu: damaged header at byte %llu (%s)", (unsigned long long)r->seq_chunk_no,
                      (unsigned long long)at, trz_strerror(rc));
        int tail = 0;
        if (!rc && r->seq_mcodec &&
            (r->seq_tail || !chunk_fits(r->seq_mcodec, r->seq_mbo, d->h.codec, d->h.byte_order, d->h.flags, d->h.nrec,
                                        d->h.raw, r->member_chunks == 0, &tail)))
            rc = rerr(r, TRZ_ERR_CORRUPT, "chunk %llu at byte %llu: %s", (unsigned long long)r->seq_chunk_no,
                      (unsigned long long)at, r->seq_tail ? "a chunk after the member's partial last record"
                                                          : "its record count or flags do not fit the member's format");
        if (rc) {
            if ((rc = damaged(r, rc, at, hb, have, 0))) return rc;
            continue;
        }
        r->seq_tail = tail;
        d->mcodec = r->seq_mcodec ? r->seq_mcodec : trz_codec_by_id(d->h.codec);
        d->mbo = r->seq_mcodec ? r->seq_mbo : d->h.byte_order;
        d->mfirst = r->member_chunks == 0;
        d->off = at;
        if ((rc = read_payload(r, d, hb))) {
            if (rc == TRZ_ERR_IO || rc == TRZ_ERR_NOMEM || !r->salvage)
                return rerr(r, rc, "chunk %llu: %s", (unsigned long long)r->seq_chunk_no,
                            rc == TRZ_ERR_IO ? strerror(errno) : rc == TRZ_ERR_NOMEM ? "out of memory"
                                                                  : "truncated data (the archive is cut short)");
            rerr(r, rc, "chunk %llu: truncated data (the archive is cut short)", (unsigned long long)r->seq_chunk_no);
            if ((rc = lost_at_end(r, at))) return rc;
            continue;
        }
        d->raw_len = d->stored = d->h.hdr_len + d->h.payload;
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

/* Salvage: an intact index of the member [ms, at) read sequentially.  Note
 * where its chunks are, give the losses inside it their numbers, and set the
 * counts right again when the member's first chunk number is known. */
static int apply_index(trz_reader *r, const uint8_t *ix, uint64_t n, uint64_t ms, uint64_t at)
{
    uint64_t bc = UNKNOWN, brec = UNKNOWN, bbyte = UNKNOWN;
    if (r->member_base_ok && r->member_start == ms) {
        bc = r->member_first_chunk;
        brec = r->member_first_record;
        bbyte = r->member_first_byte;
    }
    for (size_t i = 0; i < r->nlost && bc == UNKNOWN; i++)
        if (r->lost_at[i].start == ms && r->lost[i].chunk != UNKNOWN) {
            bc = r->lost[i].chunk;
            brec = r->lost[i].first_record;
            bbyte = r->lost[i].first_byte;
        }
    if (r->npos + n > r->cappos) {
        size_t nc = r->cappos ? r->cappos : 64;
        while (nc < r->npos + n) nc *= 2;
        chunk_pos *np = realloc(r->pos, nc * sizeof *np);
        if (!np) return rerr(r, TRZ_ERR_NOMEM, "out of memory");
        r->pos = np;
        r->cappos = nc;
    }
    uint64_t recs = 0, bytes = 0;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *e = ix + 8 + i * TRZ_INDEX_ENTRY;
        chunk_pos *p = &r->pos[r->npos++];
        p->off = ms + trz_ld_le64(e);
        p->nrec = trz_ld_le32(e + 24);
        p->raw = trz_ld_le32(e + 28);
        p->chunk = bc == UNKNOWN ? UNKNOWN : bc + i;
        p->first_record = bc == UNKNOWN ? UNKNOWN : brec + recs;
        p->first_byte = bc == UNKNOWN ? UNKNOWN : bbyte + bytes;
        recs += p->nrec;
        bytes += p->raw;
    }
    chunk_pos *first = n ? r->pos + r->npos - n : NULL;
    for (size_t i = 0; i < r->nlost;) { /* the member's open losses: exactly the chunks inside them */
        lost_at *a = &r->lost_at[i];
        if (!a->open || a->start < ms || a->end > at) { i++; continue; }
        size_t k = 0, cnt = 0;
        while (k < n && first[k].off < a->start) k++;
        trz_lost_range *l = &r->lost[i];
        l->records = l->raw_bytes = 0;
        for (size_t j = k; j < n && first[j].off < a->end; j++, cnt++) {
            l->records += first[j].nrec;
            l->raw_bytes += first[j].raw;
        }
        if (cnt == 0) { /* no chunk there: nothing was lost */
            memmove(r->lost + i, r->lost + i + 1, (r->nlost - i - 1) * sizeof *r->lost);
            memmove(r->lost_at + i, r->lost_at + i + 1, (r->nlost - i - 1) * sizeof *r->lost_at);
            r->nlost--;
            continue;
        }
        l->chunk = first[k].chunk;
        l->first_record = first[k].first_record;
        l->first_byte = first[k].first_byte;
        a->open = 0;
        i++;
    }
    if (bc != UNKNOWN) {
        r->seq_chunk_no = bc + n;
        r->seq_records = brec + recs;
        r->seq_bytes = bbyte + bytes;
        r->counts_ok = 1;
    }
    return TRZ_OK;
}

/* The index at the end of a member, read sequentially: it must describe the
 * chunks just read, and the footer must match it.  In salvage mode a damaged
 * index costs no data: it is noted (r->err) and skipped. */
static int seq_index(trz_reader *r, uint64_t at)
{
    uint8_t n4[8];
    memcpy(n4, trz_index_magic, 4);
    size_t got;
    int rc = read_exact(r, n4 + 4, 4, &got);
    if (rc == TRZ_ERR_IO) return rerr(r, rc, "read error: %s", strerror(errno));
    uint64_t n = trz_ld_le32(n4 + 4), mc = r->member_chunks;
    if (rc) { /* every chunk before it was read; whatever followed is not known */
        rc = rerr(r, TRZ_ERR_TRUNCATED, "truncated index at byte %llu (the archive is cut short)", (unsigned long long)at);
        return r->salvage ? lost_at_end(r, at) : rc;
    }
    /* each chunk takes at least a header: the count is bounded by the bytes before it */
    if (n > at / (TRZ_CHUNK_HDR_FIXED + 4) || (!r->salvage && n != mc)) {
        rc = rerr(r, TRZ_ERR_CORRUPT, "damaged index at byte %llu: it lists %llu chunks, the member has %llu",
                  (unsigned long long)at, (unsigned long long)n, (unsigned long long)mc);
        return damaged(r, rc, at, n4, 8, 0);
    }
    size_t len = 8 + (size_t)n * TRZ_INDEX_ENTRY;
    uint8_t *ix = malloc(len + TRZ_FOOTER_SIZE);
    if (!ix) return rerr(r, TRZ_ERR_NOMEM, "out of memory");
    memcpy(ix, n4, 8);
    uint8_t *f = ix + len;
    rc = read_exact(r, ix + 8, len - 8 + TRZ_FOOTER_SIZE, &got);
    if (rc) {
        if (rc == TRZ_ERR_IO) { free(ix); return rerr(r, rc, "read error: %s", strerror(errno)); }
        rc = rerr(r, TRZ_ERR_TRUNCATED, "truncated index or footer at byte %llu (the archive is cut short)",
                  (unsigned long long)at);
        if (r->salvage && n != mc) rc = damaged(r, rc, at, ix, 8 + got, 0); /* or a damaged count */
        else if (r->salvage) rc = lost_at_end(r, at);
        free(ix);
        return rc;
    }
    uint64_t ix_off = trz_ld_le64(f), msize = trz_ld_le64(f + 8);
    int ok = trz_xxh32low(ix, len) == trz_ld_le32(f + 16) && memcmp(f + 20, trz_footer_magic, 4) == 0 &&
             msize <= r->spos && r->spos - msize + ix_off == at;
    uint64_t ms = ok ? r->spos - msize : 0;
    if (ok && !r->salvage && ms != r->member_start) ok = 0;
    if (ok) {
        rc = r->salvage ? apply_index(r, ix, n, ms, at) : TRZ_OK;
        free(ix);
        if (rc == TRZ_OK) r->in_member = 0;
        return rc;
    }
    rc = rerr(r, TRZ_ERR_CORRUPT, "damaged index or footer at byte %llu", (unsigned long long)at);
    if (r->salvage && n == mc) { /* the count fits: exactly the index and footer were skipped */
        free(ix);
        r->in_member = 0;
        return TRZ_OK;
    }
    rc = damaged(r, rc, at, ix, len + TRZ_FOOTER_SIZE, 0);
    free(ix);
    return rc;
}

/* Read chunk number n's bytes through the index. */
static int idx_fetch(trz_reader *r, uint64_t n, dchunk *d)
{
    rchunk *c = &r->chunks[n];
    if (d->raw_cap < c->stored) {
        size_t want = (size_t)c->stored + c->stored / 4; /* stored sizes vary: room to grow */
        free(d->raw);
        d->raw = trz_big_malloc(want);
        d->raw_cap = d->raw ? want : 0;
        if (!d->raw) return rerr(r, TRZ_ERR_NOMEM, "chunk %llu: out of memory", (unsigned long long)n);
    }
    int rc = read_at(r, c->offset, d->raw, c->stored);
    if (rc) return rerr(r, rc, "chunk %llu: %s", (unsigned long long)n, rc == TRZ_ERR_IO ? strerror(errno) : "truncated");
    size_t need;
    rc = trz_chunk_parse_hdr(d->raw, c->stored, &d->h, &need);
    if (rc) return rerr(r, rc, "chunk %llu: damaged header (%s)", (unsigned long long)n, trz_strerror(rc));
    if (need != c->stored || d->h.nrec != c->nrec || d->h.raw != c->raw || d->h.codec != c->codec ||
        d->h.flags != c->flags || (c->codec == c->mcodec && c->codec != TRZ_CODEC_RAW && d->h.byte_order != c->mbo))
        return rerr(r, TRZ_ERR_CORRUPT, "chunk %llu: its header disagrees with the index", (unsigned long long)n);
    d->raw_len = c->stored;
    d->mcodec = trz_codec_by_id(c->mcodec);
    d->mbo = c->mbo;
    d->mfirst = c->mfirst;
    d->no = n;
    d->first_record = c->first_record;
    d->first_byte = c->first_byte;
    d->off = c->offset;
    d->stored = c->stored;
    d->numbers_ok = 1;
    return 1;
}

static void decode_one(trz_reader *r, dchunk *d, trz_zctx *z)
{
    if (!d->data || d->cap < d->h.raw) { /* fresh pages fault in: keep buffers */
        free(d->data);
        d->data = trz_big_malloc(d->h.raw);
        d->cap = d->data ? d->h.raw : 0;
    }
    d->len = d->h.raw;
    d->codec = trz_codec_by_id(d->h.codec);
    d->byte_order = d->h.byte_order;
    d->flags = d->h.flags;
    d->err[0] = 0;
    if (!d->data) { d->rc = TRZ_ERR_NOMEM; snprintf(d->err, sizeof d->err, "out of memory"); return; }
    d->rc = trz_chunk_decode(&d->h, d->raw, d->raw_len, d->data, z, d->err, sizeof d->err);
    /* a text member's record count is its line starts: count them */
    if (d->rc == TRZ_OK && d->mcodec && d->mcodec->record_size == 0) {
        uint64_t lines = trz_count_lines(d->data, d->len, d->flags & TRZ_CHUNK_MIDLINE);
        if (lines != d->h.nrec) {
            d->rc = TRZ_ERR_CORRUPT;
            snprintf(d->err, sizeof d->err, "it holds %llu line starts where its header says %lu",
                     (unsigned long long)lines, (unsigned long)d->h.nrec);
        }
    }
    (void)r;
}

/* Record a loss, in archive order.  An open one (numbers not known) that is
 * exactly a chunk an index has placed gets that chunk's numbers. */
static int note_lost(trz_reader *r, trz_lost_range l, uint64_t start, uint64_t end, int open)
{
    if (r->nlost == r->caplost) {
        size_t nc = r->caplost ? 2 * r->caplost : 16;
        trz_lost_range *nl = realloc(r->lost, nc * sizeof *nl);
        if (!nl) return TRZ_ERR_NOMEM;
        r->lost = nl;
        lost_at *na = realloc(r->lost_at, nc * sizeof *na);
        if (!na) return TRZ_ERR_NOMEM;
        r->lost_at = na;
        r->caplost = nc;
    }
    size_t lo = 0, hi = r->npos;
    while (open && lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->pos[mid].off < start) lo = mid + 1;
        else hi = mid;
    }
    if (open && lo < r->npos && r->pos[lo].off == start && r->pos[lo].chunk != UNKNOWN) {
        l.chunk = r->pos[lo].chunk;
        l.first_record = r->pos[lo].first_record;
        l.first_byte = r->pos[lo].first_byte;
        open = 0;
    }
    size_t i = r->nlost;
    while (i > 0 && r->lost_at[i - 1].start > start) i--;
    memmove(r->lost + i + 1, r->lost + i, (r->nlost - i) * sizeof *r->lost);
    memmove(r->lost_at + i + 1, r->lost_at + i, (r->nlost - i) * sizeof *r->lost_at);
    r->lost[i] = l;
    r->lost_at[i] = (lost_at){ start, end, open };
    r->nlost++;
    return TRZ_OK;
}

/* A chunk that could not be read or decoded, skipped in salvage mode. */
static int add_lost(trz_reader *r, const dchunk *d)
{
    trz_lost_range l = { d->no, d->first_record, d->h.nrec, d->first_byte, d->h.raw };
    if (r->seekable) {
        const rchunk *c = &r->chunks[d->no];
        l.first_byte = c->first_byte;
        return note_lost(r, l, c->offset, c->offset + c->stored, 0);
    }
    if (!d->numbers_ok) l.chunk = l.first_record = l.first_byte = UNKNOWN;
    return note_lost(r, l, d->off, d->off + d->stored, !d->numbers_ok);
}

/* Fetch the next chunk's stored bytes into queue slot d.  1 = fetched,
 * 0 = no more chunks, < 0 = error.  In salvage mode a chunk whose header is
 * damaged is noted as lost and skipped. */
static int fetch_one(trz_reader *r, dchunk *d)
{
    for (;;) {
        int rc;
        if (r->seekable) {
            if (r->next_chunk >= r->nchunks) return 0;
            rc = idx_fetch(r, r->next_chunk++, d);
            if (rc < 0 && r->salvage) { /* header damaged: skip, with the index's numbers */
                d->no = r->next_chunk - 1;
                d->first_record = r->chunks[d->no].first_record;
                d->h.nrec = r->chunks[d->no].nrec;
                d->h.raw = r->chunks[d->no].raw;
                if (add_lost(r, d)) return rerr(r, TRZ_ERR_NOMEM, "out of memory");
                continue;
            }
        } else {
            rc = seq_fetch(r, d);
        }
        return rc < 0 ? rc : rc > 0;
    }
}

/* Fetch the next chunk into the queue's tail, to be decoded.  1 = queued;
 * else what fetching ended with (0 = no more chunks, < 0 = error), kept
 * until the chunks queued before it have been served. */
static int queue_next(trz_reader *r)
{
    if (r->fetch_end) return r->fetch_rc;
    size_t slot = (r->qhead + r->qlen) % MAXQ;
    int rc = fetch_one(r, &r->q[slot]);
    if (rc <= 0) {
        r->fetch_end = 1;
        r->fetch_rc = rc;
        return rc;
    }
    if (r->nworkers) pthread_mutex_lock(&r->mu);
    r->qstate[slot] = Q_PENDING;
    r->qlen++;
    if (r->nworkers) {
        pthread_cond_signal(&r->work_cv);
        pthread_mutex_unlock(&r->mu);
    }
    return 1;
}

/* With the queue empty: what ended fetching, and fetching may start again
 * (after a seek, or in a following member). */
static int fetch_end_rc(trz_reader *r)
{
    int rc = r->fetch_rc;
    r->fetch_end = 0;
    r->fetch_rc = 0;
    return rc;
}

static trz_zctx *zctx_at(trz_reader *r, int i)
{
    if (!r->z[i]) r->z[i] = trz_zctx_create();
    return r->z[i];
}

/* ---- decode-ahead workers ---- */
static void *worker(void *arg)
{
    const struct wref *w = arg;
    trz_reader *r = w->r;
    int id = w->id;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        size_t slot = MAXQ;
        while (!r->stop) {
            for (size_t i = 0; i < r->qlen && slot == MAXQ; i++)
                if (r->qstate[(r->qhead + i) % MAXQ] == Q_PENDING) slot = (r->qhead + i) % MAXQ;
            if (slot != MAXQ) break;
            pthread_cond_wait(&r->work_cv, &r->mu);
        }
        if (r->stop) break;
        r->qstate[slot] = Q_DECODING;
        pthread_mutex_unlock(&r->mu);
        decode_one(r, &r->q[slot], r->z[id]);
        pthread_mutex_lock(&r->mu);
        r->qstate[slot] = Q_DONE;
        pthread_cond_broadcast(&r->done_cv);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* Start the workers; 0 = running, else fall back to one thread. */
static int pool_start(trz_reader *r)
{
    if (!r->sync_ready) {
        if (pthread_mutex_init(&r->mu, NULL)) return -1;
        if (pthread_cond_init(&r->work_cv, NULL)) { pthread_mutex_destroy(&r->mu); return -1; }
        if (pthread_cond_init(&r->done_cv, NULL)) {
            pthread_cond_destroy(&r->work_cv);
            pthread_mutex_destroy(&r->mu);
            return -1;
        }
        r->sync_ready = 1;
    }
    int want = r->threads;
    for (int i = 0; i < want; i++)
        if (!zctx_at(r, i)) return -1;
    r->stop = 0;
    for (int i = 0; i < want; i++) {
        r->wref[i].r = r;
        r->wref[i].id = i;
        if (pthread_create(&r->tid[i], NULL, worker, &r->wref[i]) != 0) break;
        r->nworkers++;
    }
    return r->nworkers ? 0 : -1;
}

/* Let the workers finish the chunk each is decoding, then end them.  Chunks
 * fetched but not decoded stay pending, for one thread or a new pool. */
static void pool_stop(trz_reader *r)
{
    if (!r->nworkers) return;
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_broadcast(&r->work_cv);
    pthread_mutex_unlock(&r->mu);
    for (int i = 0; i < r->nworkers; i++) pthread_join(r->tid[i], NULL);
    r->nworkers = 0;
    r->stop = 0;
}

/* Keep the workers fed: fetch chunks until threads + 1 are queued. */
static void fetch_ahead(trz_reader *r)
{
    while (r->qlen < (size_t)r->nworkers + 1 && queue_next(r) > 0) {}
}

/* Several threads: wait for the head of the queue, refilling it as it goes.
 * 1 = the head is decoded, 0 = end, < 0 = error (fetching). */
static int wait_head(trz_reader *r)
{
    if (!r->nworkers && pool_start(r) != 0) return -2; /* no threads: decode here */
    fetch_ahead(r);
    if (r->qlen == 0) return fetch_end_rc(r);
    pthread_mutex_lock(&r->mu);
    while (r->qstate[r->qhead] != Q_DONE) pthread_cond_wait(&r->done_cv, &r->mu);
    pthread_mutex_unlock(&r->mu);
    return 1;
}

/* Make r->cur the next decoded chunk.  1 = have one, 0 = end, <0 error. */
static int next_chunk(trz_reader *r)
{
    if (r->failed) return r->failed;
    for (;;) {
        int rc = -2;
        if (r->threads >= 2) rc = wait_head(r);
        if (rc == -2) { /* one thread: fetch and decode here, when reached */
            rc = r->qlen ? 1 : r->fetch_end ? fetch_end_rc(r) : queue_next(r);
            if (rc > 0 && r->qstate[r->qhead] == Q_PENDING) {
                if (!zctx_at(r, 0)) return r->failed = rerr(r, TRZ_ERR_NOMEM, "out of memory");
                dchunk *d = &r->q[r->qhead];
                if (!d->data && r->cur.data) {
                    /* the caller is done with the current chunk's bytes (a
                     * view lasts until the next call): one buffer serves
                     * every chunk, and the next one's pages are already in */
                    d->data = r->cur.data, d->cap = r->cur.cap;
                    r->cur.data = NULL, r->cur.cap = 0;
                }
                decode_one(r, d, r->z[0]);
                r->qstate[r->qhead] = Q_DONE;
            }
            if (rc <= 0 && r->fetch_end) fetch_end_rc(r);
        }
        if (rc < 0) return r->failed = rc;
        if (rc == 0) return 0;
        /* the buffers of the chunk just consumed go to the slot the next
         * fetch fills, so that a few buffers circulate (fresh ones cost
         * page faults, and kept ones memory) */
        dchunk spare = { .data = r->cur.data, .cap = r->cur.cap, .raw = r->cur.raw, .raw_cap = r->cur.raw_cap };
        if (r->nworkers) pthread_mutex_lock(&r->mu);
        r->cur = r->q[r->qhead];
        memset(&r->q[r->qhead], 0, sizeof r->q[r->qhead]);
        r->qstate[r->qhead] = Q_FREE;
        r->qhead = (r->qhead + 1) % MAXQ;
        r->qlen--;
        dchunk *tail = &r->q[(r->qhead + r->qlen) % MAXQ];
        if (!tail->data && !tail->raw) {
            tail->data = spare.data, tail->cap = spare.cap;
            tail->raw = spare.raw, tail->raw_cap = spare.raw_cap;
        } else {
            dchunk_free(&spare);
        }
        if (r->nworkers) pthread_mutex_unlock(&r->mu);
        if (r->nworkers) fetch_ahead(r); /* the workers go on while the caller uses this one */
        r->cur_pos = 0;
        r->have_cur = 1;
        if (r->cur.rc) {
            r->have_cur = 0; /* its bytes are not to be handed out, even when nothing follows */
            if (r->salvage) {
                if (add_lost(r, &r->cur)) return r->failed = rerr(r, TRZ_ERR_NOMEM, "out of memory");
                continue;
            }
            return r->failed = rerr(r, r->cur.rc, "chunk %llu: %s", (unsigned long long)r->cur.no, r->cur.err);
        }
        /* a text chunk starts mid-line exactly when the one before it in the
         * member did not end a line (the member's first: checked at fetch) */
        const dchunk *c = &r->cur;
        if (c->mcodec && c->mcodec->record_size == 0 && !c->mfirst && r->prev_valid && c->numbers_ok &&
            c->no == r->prev_no + 1 && ((c->flags & TRZ_CHUNK_MIDLINE) != 0) == r->prev_nl) {
            r->have_cur = 0;
            return r->failed = rerr(r, TRZ_ERR_CORRUPT, "chunk %llu: its mid-line flag disagrees with the end of "
                                    "chunk %llu", (unsigned long long)c->no, (unsigned long long)r->prev_no);
        }
        r->prev_valid = c->numbers_ok;
        r->prev_no = c->no;
        if (c->len) r->prev_nl = c->data[c->len - 1] == '\n';
        r->cur_rec_pos = 0;
        r->cur_rec_n = 0;
        return 1;
    }
}

static void drop_queue(trz_reader *r)
{
    pool_stop(r);
    r->prev_valid = 0;
    for (size_t i = 0; i < MAXQ; i++) {
        dchunk_free(&r->q[i]);
        r->qstate[i] = Q_FREE;
    }
    r->qhead = r->qlen = 0;
    r->fetch_end = 0;
    r->fetch_rc = 0;
}

int64_t trz_read_view(trz_reader *r, const void **data, size_t cap)
{
    *data = NULL;
    while (!r->have_cur || r->cur_pos == r->cur.len) {
        int rc = next_chunk(r);
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

int64_t trz_read(trz_reader *r, void *buf, size_t max)
{
    uint8_t *out = buf;
    size_t got = 0;
    if (r->mixed)
        return rerr(r, TRZ_ERR_UNSUPPORTED, "trz_read: the members differ in format or byte order; use "
                                            "trz_read_span or trz_read_bytes");
    if (r->codec && r->codec->record_size == 0)
        return rerr(r, TRZ_ERR_UNSUPPORTED, "trz_read needs fixed-size records; use trz_read_bytes for text");
    while (got < max) {
        if (!r->have_cur || r->cur_pos == r->cur.len) {
            int rc = next_chunk(r);
            if (rc < 0) return got ? (int64_t)got : rc;
            if (rc == 0) break;
            continue;
        }
        size_t rs = cur_rs(r);
        if (!cur_whole(r)) { r->cur_pos = r->cur.len; continue; } /* a tail, not a record */
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
    if (!r->have_cur) return r->end_rec;
    return r->cur.first_record + starts_before(r, r->cur_pos);
}

int64_t trz_read_span(trz_reader *r, const void **data, uint64_t max, uint64_t *records)
{
    *data = NULL;
    *records = 0;
    while (!r->have_cur || r->cur_pos == r->cur.len) {
        int rc = next_chunk(r);
        if (rc <= 0) return rc;
    }
    const dchunk *c = &r->cur;
    size_t rs = cur_rs(r), pos = r->cur_pos, end = c->len;
    uint64_t n = 0;
    if (rs == 0) { /* up to the (max + 1)-th line start */
        const uint8_t *p = c->data;
        size_t q = pos;
        int at_start = pos == 0 ? !(c->flags & TRZ_CHUNK_MIDLINE) : p[pos - 1] == '\n';
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

const trz_codec *trz_reader_span_codec(const trz_reader *r, int *byte_order)
{
    *byte_order = r->have_cur ? r->cur.mbo : r->byte_order;
    return r->have_cur && r->cur.mcodec ? r->cur.mcodec : r->codec ? r->codec : &trz_codec_raw;
}

/* trz_seek without an index: decode forward, counting records as a span
 * does, so that a pipe and the index agree on where record `rec` starts. */
static int skip_to(trz_reader *r, uint64_t rec)
{
    uint64_t at = trz_tell(r);
    if (rec < at)
        return rerr(r, TRZ_ERR_UNSUPPORTED, "cannot go back to record %llu: the input is a pipe or its index is "
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
        return rerr(r, TRZ_ERR_RANGE, "record %llu is past the end (%llu records)", (unsigned long long)rec,
                    (unsigned long long)at);
    if (!r->have_cur) r->end_rec = at;
    return TRZ_OK;
}

int trz_seek(trz_reader *r, uint64_t rec)
{
    if (!r->seekable) return skip_to(r, rec);
    if (rec > r->total_records) return rerr(r, TRZ_ERR_RANGE, "record %llu is past the end (%llu records)",
                                            (unsigned long long)rec, (unsigned long long)r->total_records);
    drop_queue(r);
    dchunk_free(&r->cur);
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
    int threads = r->threads; /* decode just the chunk that holds the record */
    r->threads = 1;
    int rc = next_chunk(r);
    r->threads = threads;
    if (rc < 0) return rc;
    if (rc == 0) return TRZ_OK;
    uint64_t k = rec - r->cur.first_record;
    size_t rs = cur_rs(r);
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
        size_t rs = cur_rs(r);
        uint8_t *p = r->cur.data + r->cur_pos;
        size_t len = r->cur.len - r->cur_pos, n;
        uint64_t first;
        if (rs == 0) {
            n = (size_t)text_starts(&r->cur, r->cur_pos, r->cur.len);
            first = r->cur.first_record + r->cur.h.nrec - n;
        } else {
            if (!cur_whole(r)) { r->cur_pos = r->cur.len; continue; }
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
    /* each chunk is read whole: its header must agree with the index and its
     * stored bytes with their checksum, or what is listed is not what is there */
    dchunk d = { 0 };
    int rc = TRZ_OK;
    for (uint64_t i = 0; i < r->nchunks && rc == TRZ_OK; i++) {
        rc = idx_fetch(r, i, &d);
        if (rc < 0) break;
        rc = TRZ_OK;
        const trz_chunk_hdr h = d.h;
        if (trz_xxh32low(d.raw + h.hdr_len, h.payload) != h.pcheck) {
            rc = rerr(r, TRZ_ERR_CHECKSUM, "chunk %llu: stored data checksum mismatch", (unsigned long long)i);
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
                fn(ctx, k->name, s, nm ? nm : "?", acc[c][s][0], acc[c][s][1]);
            }
    }
    dchunk_free(&d);
    free(acc);
    return rc;
}

static int cpus_cb(void *ctx, const void *recs, size_t n, size_t len, uint64_t first)
{
    trz_reader *r = ctx;
    (void)first;
    if (n) r->codec->cpus_seen(recs, len, r->byte_order, r->cpu_bits); /* the member's codec, also for raw-stored chunks */
    return 0;
}

int trz_reader_cpus(trz_reader *r)
{
    if (!r->codec || !r->codec->cpus_seen || r->mixed) return 0;
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
