/* salvage.c - reading past damage (TRZ_R_SALVAGE): scan for the next
 * structure that checks itself, note what lay between as lost, and give
 * the losses their record numbers when a member's index survives.  Also
 * where a member begins (rd_begin_member), which sequential.c calls for
 * the members whose headers are intact. */
#include <errno.h>

#include "reader.h"

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
        trz_file_hdr f;
        int rc = trz_file_hdr_parse(p, n, &f, &len);
        if (rc == TRZ_OK) return SCAN_MEMBER;
        if (rc == TRZ_ERR_TRUNCATED) *need = n < TRZ_FILE_HDR_FIXED ? TRZ_FILE_HDR_FIXED : len;
        return -1;
    }
    if (memcmp(p, trz_index_magic, 4) == 0) {
        if (n < 8) { *need = 8; return -1; }
        /* the index of a member of version 5 (with its member hash), or of an earlier one */
        for (int placed = 1; placed >= 0; placed--) {
            uint64_t len = trz_index_len(trz_index_count(p), placed);
            if (len + TRZ_FOOTER_SIZE > SCAN_INDEX_MAX) return -1;
            if (n < len + TRZ_FOOTER_SIZE) { *need = (size_t)len + TRZ_FOOTER_SIZE; return -1; }
            trz_footer f;
            uint64_t end = at + len + TRZ_FOOTER_SIZE;
            /* the cheap tests first: garbage full of magics must not cost a hash each */
            if (trz_footer_parse(p + len, &f) == TRZ_OK && f.member_size <= end &&
                end - f.member_size + f.index_offset == at && trz_index_ok(p, (size_t)len, &f, placed))
                return SCAN_INDEX;
        }
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
    uint64_t mc = r->seq_mplaced && r->mrel_ok ? r->mrel_no : r->member_chunks, count = trz_index_count(head);
    int magic = memcmp(head, trz_index_magic, 4) == 0, fmagic = memcmp(tail, trz_footer_magic, 4) == 0;
    int pl = r->seq_mplaced;
    /* its own count fits (chunks may have been lost before it) */
    if (end - at == trz_index_len(count, pl) + TRZ_FOOTER_SIZE && (magic || fmagic)) return 1;
    return end - at == trz_index_len(mc, pl) + TRZ_FOOTER_SIZE && magic + (count == mc) + fmagic >= 2;
}

/* Record a loss, in archive order.  An open one (numbers not known) that is
 * exactly a chunk an index has placed gets that chunk's numbers. */
static int note_lost(trz_reader *r, trz_lost_range l, uint64_t start, uint64_t end, int open, int kind)
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
    r->lost_at[i] = (lost_at){ start, end, open, kind };
    r->nlost++;
    return TRZ_OK;
}

/* A member starts at `start` (codec NULL: its header is lost): sequential
 * reading begins one at each intact header, salvage after damage. */
void rd_begin_member(trz_reader *r, uint64_t start, const trz_codec *codec, int byte_order, int know, int chain,
                     int placed)
{
    r->in_member = 1;
    r->seq_mknow = know;
    r->seq_mchain = chain;
    r->seq_mplaced = placed;
    r->seq_mparity = 1; /* (a member whose header is lost may have had them; the caller knows better) */
    /* a member whose header was read starts at chunk 0; one whose header is
     * lost takes its place from its first placed chunk */
    r->mrel_ok = codec != NULL;
    r->mrel_no = r->mrel_rec = r->mrel_byte = 0;
    r->mh = 0;
    r->mh_ok = codec != NULL;
    rd_know_lost(r); /* nothing of the member before carries over */
    rd_chain_lost(r);
    r->seq_mcodec = codec;
    r->seq_guess = NULL;
    r->seq_mbo = byte_order;
    r->seq_tail = 0;
    r->member_start = start;
    r->member_chunks = 0;
    r->member_first_chunk = r->seq_chunk_no;
    r->member_first_record = r->seq_records;
    r->member_first_byte = r->seq_bytes;
    r->member_base_ok = r->counts_ok;
    r->members++;
}

/* Salvage: the structure at `at` is damaged (r->err says how) and the bytes
 * from at + 1 on are still to be read (in the look-ahead or the input); head
 * holds its first 8 bytes.  Scan to the next good structure: the bytes in
 * between are a loss, unless they were only a member header (expect_header)
 * or this member's index.  Returns 0 to go on or a negative trz_result. */
int rd_skip_damage(trz_reader *r, uint64_t at, const uint8_t head[8], int expect_header)
{
    uint8_t tail[4];
    int kind = scan(r, tail);
    if (kind < 0) return rd_err(r, kind, "%s", kind == TRZ_ERR_IO ? strerror(errno) : "out of memory");
    uint64_t end = r->spos;
    int header = expect_header && end - at == TRZ_FILE_HDR_FIXED + 4 && kind != SCAN_EOF;
    int index = !expect_header && r->in_member && index_like(r, at, end, head, tail);
    if (!header && !index) {
        trz_lost_range l = { UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN };
        if (r->counts_ok) { l.chunk = r->seq_chunk_no; l.first_record = r->seq_records; l.first_byte = r->seq_bytes; }
        if (note_lost(r, l, at, end, 1, TRZ_LOST_DAMAGED)) return rd_err(r, TRZ_ERR_NOMEM, "out of memory");
        r->counts_ok = 0;
        r->mh_ok = 0;
        rd_know_lost(r); /* whatever the bytes held, the chunks after them cannot build on it */
        rd_chain_lost(r);
    }
    if (kind == SCAN_EOF) { r->at_end = 1; return TRZ_OK; }
    if (kind == SCAN_MEMBER) { r->in_member = 0; return TRZ_OK; }
    /* chunks of a member whose header is lost: its format is not known, so
     * each chunk stands for itself */
    if (index || !r->in_member) rd_begin_member(r, header ? at : end, NULL, TRZ_BO_NONE, 0, 0, 0);
    return TRZ_OK;
}

/* After a damaged structure at `at`: fail, or in salvage mode give back the
 * `got` bytes read from it but its first (head) and skip to the next good one. */
int rd_damaged(trz_reader *r, int rc, uint64_t at, const uint8_t *head, size_t got, int expect_header)
{
    if (!r->salvage || rc == TRZ_ERR_IO || rc == TRZ_ERR_NOMEM) return rc;
    uint8_t h8[8] = { 0 };
    memcpy(h8, head, got < 8 ? got : 8);
    if (got > 1 && rd_push_back(r, head + 1, got - 1)) return rd_err(r, TRZ_ERR_NOMEM, "out of memory");
    return rd_skip_damage(r, at, h8, expect_header);
}

/* Salvage: the input ends at `at` or inside the chunk there: from there
 * on everything is lost. */
int rd_lost_at_end(trz_reader *r, uint64_t at)
{
    trz_lost_range l = { UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN };
    if (r->counts_ok) { l.chunk = r->seq_chunk_no; l.first_record = r->seq_records; l.first_byte = r->seq_bytes; }
    r->counts_ok = 0;
    r->at_end = 1;
    return note_lost(r, l, at, r->spos, 1, TRZ_LOST_DAMAGED) ? rd_err(r, TRZ_ERR_NOMEM, "out of memory") : TRZ_OK;
}

int rd_note_range(trz_reader *r, trz_lost_range l, uint64_t start, uint64_t end, int kind)
{
    return note_lost(r, l, start, end, 0, kind) ? rd_err(r, TRZ_ERR_NOMEM, "out of memory") : TRZ_OK;
}

/* The first entry of the list's tail that lies after the last chunk taken,
 * in this member, and holds only losses still open (damaged bytes whose
 * numbers a placed chunk after them will tell) and chunks found out of
 * place; nlost when there is none. */
static size_t open_tail(const trz_reader *r)
{
    size_t j = r->nlost;
    while (j > 0) {
        const lost_at *a = &r->lost_at[j - 1];
        if (a->start < r->last_end || a->start < r->member_start || (!a->open && a->kind != TRZ_LOST_EXTRA)) break;
        j--;
    }
    return j;
}

/* Remove the open losses of the tail from j on, keeping the chunks found
 * out of place; the first open one is replaced by *l (ending at `at`) when
 * l is given.  Returns the archive offset of the first open loss, or
 * UNKNOWN when there was none. */
static uint64_t close_open(trz_reader *r, size_t j, const trz_lost_range *l, uint64_t at, int open)
{
    uint64_t first = UNKNOWN;
    size_t k = j;
    for (size_t i = j; i < r->nlost; i++) {
        if (r->lost_at[i].open) {
            if (first != UNKNOWN) continue;
            first = r->lost_at[i].start;
            if (!l) continue;
            r->lost[i] = *l;
            r->lost_at[i].open = open;
            r->lost_at[i].end = at;
        }
        r->lost[k] = r->lost[i];
        r->lost_at[k++] = r->lost_at[i];
    }
    r->nlost = k;
    return first;
}

int rd_place_gap(trz_reader *r, uint64_t at, uint64_t no, uint64_t rec, uint64_t byte)
{
    int base = r->member_base_ok;
    trz_lost_range l = { base ? r->member_first_chunk + r->mrel_no : UNKNOWN, base ? r->member_first_record + r->mrel_rec : UNKNOWN,
                         rec - r->mrel_rec, base ? r->member_first_byte + r->mrel_byte : UNKNOWN, byte - r->mrel_byte };
    (void)no;
    /* damaged bytes just before it (losses still open, after the last chunk
     * taken; one or several stretches): the places say what they held, as
     * one loss, or that they held no chunk of the member */
    size_t j = open_tail(r);
    int none = l.records == 0 && l.raw_bytes == 0;
    uint64_t first = close_open(r, j, none ? NULL : &l, at, !base);
    if (first != UNKNOWN) {
        if (none)
            rd_err(r, TRZ_ERR_CORRUPT, "damaged data at byte %llu between two chunks: nothing lost", (unsigned long long)first);
        return TRZ_OK;
    }
    return note_lost(r, l, r->last_end, at, !base, TRZ_LOST_MISSING) ? rd_err(r, TRZ_ERR_NOMEM, "out of memory") : TRZ_OK;
}

/* A placed chunk came where the places say it comes next: damaged bytes
 * just before it (losses still open, after the last chunk taken) held no
 * chunk of the member, so nothing was lost there. */
void rd_place_none(trz_reader *r)
{
    uint64_t first = close_open(r, open_tail(r), NULL, 0, 0);
    if (first != UNKNOWN)
        rd_err(r, TRZ_ERR_CORRUPT, "damaged data at byte %llu between two chunks: nothing lost", (unsigned long long)first);
}

/* Salvage: an intact index of the member [ms, at) read sequentially.  Note
 * where its chunks are, give the losses inside it their numbers, and set the
 * counts right again when the member's first chunk number is known. */
/* Salvage, a member of version 5 whose chunks stated their places: its
 * index says how many there were, so the chunks after the last one read
 * are lost; and when every chunk came in order, the member hash holds. */
static int apply_placed_index(trz_reader *r, const uint8_t *ix, uint64_t n, uint64_t at)
{
    uint64_t recs = 0, bytes = 0;
    int agree = n >= r->mrel_no; /* the index puts the chunks read where they say they are */
    for (uint64_t i = 0; i < n; i++) {
        trz_index_entry e;
        (void)trz_index_entry_parse(ix + 8 + i * TRZ_INDEX_ENTRY, &e); /* the index's check passed */
        recs += e.nrec;
        bytes += e.raw;
        if (i + 1 == r->mrel_no) agree = recs == r->mrel_rec && bytes == r->mrel_byte;
    }
    size_t len = (size_t)trz_index_len(n, 1);
    if (agree && n > r->mrel_no) {
        int rc = rd_place_gap(r, at, n, recs, bytes);
        if (rc) return rc;
        r->mh_ok = 0;
    } else if (!agree || n != r->mrel_no) {
        /* an index rebuilt over chunks cut out, repeated or moved: the chunks' places are what counts */
        rd_err(r, TRZ_ERR_CORRUPT, "the index at byte %llu does not fit the chunks read (it lists %llu chunks, they "
               "state %llu): not used", (unsigned long long)at, (unsigned long long)n, (unsigned long long)r->mrel_no);
        r->mh_ok = 0;
        r->counts_ok = 0; /* chunks may be missing after the last one read: the next member's numbers are not known */
        return TRZ_OK;
    }
    if (r->mh_ok && r->mh != trz_index_mhash(ix, len)) {
        trz_lost_range l = { r->member_first_chunk, r->member_first_record, recs, r->member_first_byte, bytes };
        if (!r->member_base_ok) l.chunk = l.first_record = l.first_byte = UNKNOWN;
        /* every chunk checks and stands where it says, yet they are not the
         * member's: chunks of another archive put in their place */
        rd_err(r, TRZ_ERR_CORRUPT, "member hash mismatch at byte %llu: the member's chunks are not those it was written "
               "with", (unsigned long long)at);
        int rc = rd_note_range(r, l, r->member_start, at, TRZ_LOST_UNPLACED);
        if (rc) return rc;
    }
    r->mrel_no = n, r->mrel_rec = recs, r->mrel_byte = bytes;
    if (r->member_base_ok) {
        r->seq_chunk_no = r->member_first_chunk + n;
        r->seq_records = r->member_first_record + recs;
        r->seq_bytes = r->member_first_byte + bytes;
        r->counts_ok = 1;
    }
    return TRZ_OK;
}

/* Whether archive byte a lies in a loss noted inside the member [ms, at). */
static int in_loss(const trz_reader *r, uint64_t a, uint64_t ms, uint64_t at)
{
    for (size_t k = 0; k < r->nlost; k++) {
        const lost_at *l = &r->lost_at[k];
        if (l->start >= ms && l->start < at && a >= l->start && a < l->end) return 1;
    }
    return 0;
}

/* Salvage, a member of an earlier version (its chunks do not state their
 * place): whether the chunks read, in order, are those its intact index
 * lists.  Each chunk read must be the index's entry at its offset, header
 * for header; an entry with no chunk read must lie in a loss noted (damaged
 * bytes skipped).  A chunk cut out, repeated or moved breaks that, though
 * the chunk after it may also have failed and been noted lost (its chain
 * was cut): its records have gone out as read, so the records from the
 * first difference on may be numbered wrong, and that is reported. */
static int check_legacy_index(trz_reader *r, const uint8_t *ix, uint64_t n, uint64_t at)
{
    uint64_t ms = r->member_start, mc = r->member_chunks, i = 0, j = 0, recs = 0, bytes = 0;
    while (i < n) {
        trz_index_entry e;
        (void)trz_index_entry_parse(ix + 8 + i * TRZ_INDEX_ENTRY, &e); /* the index's check passed */
        const trz_index_entry *c = j < mc ? &r->seq_list[j] : NULL;
        if (c && e.offset == c->offset && e.nrec == c->nrec && e.raw == c->raw && e.stored == c->stored &&
            e.codec == c->codec && e.flags == c->flags)
            j++; /* the chunk the index lists there */
        else if (!(c && c->offset == e.offset) && in_loss(r, ms + e.offset, ms, at))
            ; /* lost with damaged bytes, and no other chunk read in its place */
        else
            break;
        recs += e.nrec;
        bytes += e.raw;
        i++;
    }
    if (i == n && j == mc) return TRZ_OK;
    int base = r->member_base_ok;
    trz_lost_range l = { base ? r->member_first_chunk + i : UNKNOWN, base ? r->member_first_record + recs : UNKNOWN, UNKNOWN,
                         base ? r->member_first_byte + bytes : UNKNOWN, UNKNOWN };
    rd_err(r, TRZ_ERR_CORRUPT, "the member's index lists %llu chunks where %llu were read, differing from chunk %llu on",
           (unsigned long long)n, (unsigned long long)mc, (unsigned long long)i);
    return rd_note_range(r, l, ms + (j < mc ? r->seq_list[j].offset : at - ms), at, TRZ_LOST_UNPLACED);
}

int rd_apply_index(trz_reader *r, const uint8_t *ix, uint64_t n, uint64_t ms, uint64_t at)
{
    if (r->seq_mplaced && r->mrel_ok) return apply_placed_index(r, ix, n, at);
    if (r->seq_mcodec && r->member_chunks) {
        int rc = check_legacy_index(r, ix, n, at);
        if (rc) return rc;
    }
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
        if (!np) return rd_err(r, TRZ_ERR_NOMEM, "out of memory");
        r->pos = np;
        r->cappos = nc;
    }
    uint64_t recs = 0, bytes = 0;
    for (uint64_t i = 0; i < n; i++) {
        trz_index_entry e;
        (void)trz_index_entry_parse(ix + 8 + i * TRZ_INDEX_ENTRY, &e); /* the index's check passed */
        chunk_pos *p = &r->pos[r->npos++];
        p->off = ms + e.offset;
        p->nrec = e.nrec;
        p->raw = e.raw;
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

/* A chunk that could not be read or decoded, skipped in salvage mode. */
int rd_add_lost(trz_reader *r, const dchunk *d)
{
    trz_lost_range l = { d->no, d->first_record, d->h.nrec, d->first_byte, d->h.raw };
    if (r->seekable) {
        const rchunk *c = &r->chunks[d->no];
        l.first_byte = c->first_byte;
        return note_lost(r, l, c->offset, c->offset + c->stored, 0, d->kprior);
    }
    if (!d->numbers_ok) l.chunk = l.first_record = l.first_byte = UNKNOWN;
    /* (a chunk of a member of version 5 knows its place: its loss is not open) */
    return note_lost(r, l, d->off, d->off + d->stored, !d->numbers_ok && !r->seq_mplaced, d->kprior);
}

size_t trz_reader_lost(const trz_reader *r, trz_lost_range *out, size_t max)
{
    if (!r) return 0;
    if (!out) max = 0; /* the count alone */
    for (size_t i = 0; i < r->nlost && i < max; i++) out[i] = r->lost[i];
    return r->nlost;
}

int trz_reader_lost_knowledge(const trz_reader *r, size_t i)
{
    return r && i < r->nlost && r->lost_at[i].kind == TRZ_LOST_KNOWLEDGE;
}

int trz_reader_lost_kind(const trz_reader *r, size_t i)
{
    if (!r || i >= r->nlost) return TRZ_ERR_PARAM;
    return r->lost_at[i].kind;
}
