/* fuzz_decode_any.c - fuzz target: arbitrary bytes read as a .trz archive.
 * Opens them from memory (index, seeks) and as a pipe (sequential), with and
 * without salvage, and checks that every path agrees with the others: the
 * reader may refuse the input, but it must never crash, hang, hand out more
 * than asked, or hand out bytes that differ between paths.  Each input runs
 * twice: as given, and with its checksums recomputed so that damage reaches
 * the size checks, back-ends and codecs behind them. */
#include <xxhash.h>

#include "fuzz_common.h"

#define KEEP_MAX (4u << 20) /* keep the decoded bytes for seek checks up to this size */

typedef struct result {
    int64_t rc;      /* 0: read to the end */
    uint64_t total;  /* bytes handed out */
    uint64_t hash;   /* XXH3 of them */
    size_t nlost;
    uint64_t mended; /* chunks the index mended from their parity (a pipe cannot) */
} result;

static void check_msg(const trz_reader *r)
{
    const char *m = trz_reader_error(r);
    if (!m || !*m || strchr(m, '\n')) abort(); /* a failure always says why, on one line */
}

/* Read everything from an open reader; keep the bytes in *keep if given. */
static result drain(trz_reader *r, size_t step, fz_out *keep)
{
    result res = { 0, 0, 0, 0, 0 };
    XXH3_state_t *st = XXH3_createState();
    if (!st) abort();
    XXH3_64bits_reset(st);
    uint8_t buf[16384];
    size_t want = step == 0 || step > sizeof buf ? sizeof buf : step;
    for (;;) {
        int64_t g = trz_read_bytes(r, buf, want);
        if (g < 0) { res.rc = g; check_msg(r); break; }
        if (g == 0) break;
        if ((size_t)g > want) abort();
        XXH3_64bits_update(st, buf, (size_t)g);
        if (keep && res.total + (uint64_t)g <= KEEP_MAX) fz_out_write(keep, buf, (size_t)g);
        res.total += (uint64_t)g;
    }
    res.hash = XXH3_64bits_digest(st);
    XXH3_freeState(st);
    res.nlost = trz_reader_lost(r, NULL, 0);
    return res;
}

/* Offset of line k in text (0 = start; else just after the k-th newline). */
static size_t line_start(const uint8_t *p, size_t n, uint64_t k)
{
    size_t i = 0;
    while (k && i < n) {
        const uint8_t *nl = memchr(p + i, '\n', n - i);
        if (!nl) return n;
        i = (size_t)(nl - p) + 1;
        k--;
    }
    return i;
}

/* Seek to a few records chosen by the input and compare with the full read. */
static void seeks(trz_reader *r, const trz_info *in, const fz_out *all, uint64_t seed)
{
    if (!in->seekable || in->records < 0) return;
    uint64_t recs = (uint64_t)in->records;
    uint64_t pick[4] = { 0, recs, recs ? seed % recs : 0, recs + 1 + (seed >> 32) % 3 };
    int comparable = strcmp(in->format, "mixed") != 0 && all->n == (uint64_t)in->raw_bytes;
    for (int i = 0; i < 4; i++) {
        int rc = trz_seek(r, pick[i]);
        if (pick[i] > recs) { if (rc != TRZ_ERR_RANGE) abort(); continue; }
        if (rc) { check_msg(r); continue; }
        uint8_t buf[512];
        int64_t g = trz_read_bytes(r, buf, sizeof buf);
        if (g < 0) { check_msg(r); continue; }
        if (!comparable) continue;
        /* seeking to the record count is the very end: a partial tail belongs to the record before it */
        size_t at = pick[i] == recs ? all->n
                    : in->record_size ? (size_t)(pick[i] * in->record_size) : line_start(all->p, all->n, pick[i]);
        if (at > all->n || (size_t)g > all->n - at || (g && memcmp(buf, all->p + at, (size_t)g) != 0)) abort();
        if (g < (int64_t)sizeof buf && at + (size_t)g != all->n) abort(); /* stopped early without an error */
    }
}

static void chunks(trz_reader *r, const trz_info *in)
{
    if (!in->seekable) return;
    int64_t n = in->chunks < 64 ? in->chunks : 64;
    for (int64_t i = 0; i < n; i++) {
        trz_chunk_info ci;
        if (trz_reader_chunk(r, (uint64_t)i, &ci)) abort();
    }
    trz_chunk_info ci;
    if (trz_reader_chunk(r, (uint64_t)in->chunks, &ci) != TRZ_ERR_RANGE) abort();
}

static void count_stream(void *ctx, const char *f, unsigned id, const char *name, uint64_t raw, uint64_t comp)
{
    (void)f; (void)id; (void)name; (void)raw; (void)comp;
    ++*(int *)ctx;
}

/* Through the index when it loads: read all, list, seek, salvage. */
static result from_memory(const uint8_t *data, size_t size, int threads)
{
    result res = { TRZ_ERR_PARAM, 0, 0, 0, 0 };
    trz_reader *r;
    int rc = trz_reader_open_mem(&r, data, size);
    if (rc) { if (r) check_msg(r); trz_reader_close(r); return res; }
    trz_info in;
    trz_reader_info(r, &in);
    trz_reader_set(r, TRZ_R_THREADS, threads);
    fz_out all = { 0 };
    res = drain(r, 0, &all);
    if (res.rc == 0 && in.seekable && res.total != (uint64_t)in.raw_bytes) abort();
    chunks(r, &in);
    int ns = 0;
    if (in.seekable && trz_reader_streams(r, count_stream, &ns) < 0) check_msg(r);
    if (res.rc == 0) seeks(r, &in, &all, XXH3_64bits(data, size));
    res.mended = trz_reader_mended(r, NULL);
    free(all.p);
    trz_reader_close(r);
    return res;
}

/* The same bytes as a pipe: short reads, no seek, no size. */
static result from_pipe(const uint8_t *data, size_t size, size_t step, int salvage)
{
    result res = { TRZ_ERR_PARAM, 0, 0, 0, 0 };
    fz_in fi;
    trz_io io;
    fz_io_in(&io, &fi, data, size, step, 0);
    trz_reader *r;
    int rc = trz_reader_open_io(&r, &io);
    if (rc && r) check_msg(r);
    /* a damaged first header: salvage goes on past it, as trz -d --salvage does */
    if (rc && salvage && r && trz_reader_set(r, TRZ_R_SALVAGE, 1) == TRZ_OK) rc = 0;
    if (rc) { trz_reader_close(r); return res; }
    trz_reader_set(r, TRZ_R_SALVAGE, salvage);
    res = drain(r, step, NULL);
    trz_reader_close(r);
    return res;
}

static result salvaged(const uint8_t *data, size_t size)
{
    result res = { TRZ_ERR_PARAM, 0, 0, 0, 0 };
    trz_reader *r;
    int rc = trz_reader_open_mem(&r, data, size);
    if (rc && r && trz_reader_set(r, TRZ_R_SALVAGE, 1) == TRZ_OK) rc = 0;
    if (rc) { trz_reader_close(r); return res; }
    trz_reader_set(r, TRZ_R_SALVAGE, 1);
    res = drain(r, 0, NULL);
    trz_lost_range lost[8];
    size_t n = trz_reader_lost(r, lost, 8);
    if (n != res.nlost) abort();
    /* in archive order; left out: a chunk found out of place, whose range is
       what it says it holds (a repeat names an earlier chunk), and an
       unplaced member's warning, whose range spans the losses in it */
    uint64_t prev = UINT64_MAX;
    for (size_t i = 0; i < n && i < 8; i++) {
        int kind = trz_reader_lost_kind(r, i);
        /* after a loss of unknown place or unknown end the chunks number
           themselves in their member, whose header may have gone with the
           damage: the order starts again */
        if (lost[i].chunk == UINT64_MAX || lost[i].records == UINT64_MAX) { prev = UINT64_MAX; continue; }
        if (kind == TRZ_LOST_EXTRA || kind == TRZ_LOST_UNPLACED) continue;
        if (prev != UINT64_MAX && lost[i].chunk <= prev) abort();
        prev = lost[i].chunk;
    }
    trz_reader_close(r);
    return res;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

static uint32_t low32(const uint8_t *p, size_t n) { return (uint32_t)XXH3_64bits(p, n); }

/* Recompute the checksums the input's structure calls for (file header,
 * chunk header and payload, index), so that mutated sizes and streams get
 * past the 32-bit checks and reach the code behind them.  Returns 1 when
 * something changed. */
static int fix_checksums(uint8_t *p, size_t n)
{
    int changed = 0;
    size_t pos = 0;
    int placed = 0;
    while (pos + 8 <= n) {
        uint8_t *q = p + pos;
        uint32_t old;
        if (memcmp(q, "\x89TRZ", 4) == 0 && pos + 24 <= n) {
            placed = q[4] == 5; /* version 5: placed chunks, a member hash after the index */
            size_t len = 24 + (size_t)(q[22] | q[23] << 8);
            if (pos + len + 4 > n) break;
            old = get32(q + len);
            put32(q + len, low32(q, len));
            changed |= old != get32(q + len);
            pos += len + 4;
        } else if (memcmp(q, "TZCK", 4) == 0 && pos + 28 <= n && q[6] <= 64) {
            size_t t = q[7] & 4 ? 48 : 28, chk = t + 10 * (size_t)q[6];
            uint64_t payload = 0;
            if (pos + chk + 4 > n) break;
            for (size_t k = 0; k < q[6]; k++) payload += get32(q + t + 10 * k + 2);
            if (payload <= n - pos - chk - 4) {
                old = get32(q + 24);
                put32(q + 24, low32(q + chk + 4, (size_t)payload));
                changed |= old != get32(q + 24);
            }
            old = get32(q + chk);
            put32(q + chk, low32(q, chk));
            changed |= old != get32(q + chk);
            pos += chk + 4 + (payload <= n - pos - chk - 4 ? (size_t)payload : 0);
        } else if (memcmp(q, "TZIX", 4) == 0) {
            uint64_t len = 8 + 40 * (uint64_t)get32(q + 4) + (placed ? 8 : 0);
            if (len + 24 > n - pos) break;
            old = get32(q + len + 16);
            put32(q + len + 16, low32(q, (size_t)len));
            changed |= old != get32(q + len + 16);
            pos += (size_t)len + 24;
        } else {
            pos++;
        }
    }
    return changed;
}

static void run(const uint8_t *data, size_t size)
{
    size_t step = size ? 1 + data[size - 1] % 97 : 1; /* odd read sizes from the last byte */
    result mem = from_memory(data, size, size && (data[0] & 1) ? 2 : 1);
    result pipe = from_pipe(data, size, step, 0);
    /* a complete, verified read is the same through every path */
    if (mem.rc == 0 && pipe.rc == 0 && (mem.total != pipe.total || mem.hash != pipe.hash)) abort();
    /* (a chunk the index mended from its parity is damage to a pipe) */
    if (mem.rc == 0 && pipe.rc != 0 && !mem.mended) abort();
    result sm = salvaged(data, size);
    result sp = from_pipe(data, size, step, 1);
    if (mem.rc == 0 && (sm.rc != 0 || sm.nlost || sm.hash != mem.hash)) abort();
    if (pipe.rc == 0 && (sp.rc != 0 || sp.nlost || sp.hash != pipe.hash)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    run(data, size);
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    if (fix_checksums(copy, size)) run(copy, size);
    free(copy);
    return 0;
}
