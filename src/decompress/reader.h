/* reader.h - what the files of the decompress room share (open.c says
 * which file does what, and in which order they call each other): the
 * reader's state, a chunk's place and its decoded bytes, and the
 * functions one file calls in another, grouped by the file that defines
 * them, from the bottom up. */
#ifndef TRZ_READER_H
#define TRZ_READER_H

#include <pthread.h>
#include <stdio.h>

#include "decompress.h"

typedef struct rchunk {
    uint64_t offset, first_record, first_byte;
    uint32_t nrec, raw, stored;
    uint8_t codec, flags, byte_order;
    uint8_t mcodec, mbo;  /* the member's codec and byte order */
    uint8_t mfirst;       /* the member's first chunk */
    uint8_t mknow;        /* the member carries knowledge */
    uint8_t mchain;       /* the member's groups are chains */
    uint8_t mparity;      /* the member may carry parity sets (FORMAT.md, "Parity") */
    uint8_t mplaced;      /* the member is of version 5: the chunk states its place, */
    uint8_t mlast;        /* (the member's last chunk, which holds its member hash) */
    uint32_t mno;         /* which must be: its number in the member, */
    uint64_t mrec, mbyte; /* the member's record and byte numbers at its start */
    uint64_t mhash;       /* the member's last chunk: the hash its index states */
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
    /* knowledge (members of version 3): the view it decodes with, which of
     * the reader's stores that is, and why there is none (krc: the
     * knowledge it builds on was lost; kprior: with an earlier chunk, its
     * own bytes being intact) */
    int mknow, kstore, krc, kprior; /* kprior: LOST_KNOW or LOST_CHAIN when lost for an earlier chunk */
    trz_know kview;
    int mchain;            /* a chunk of a chain: decoded in order, by its group's lane (chain.c) */
    int lane;              /* which of the reader's lanes (clane) decodes it */
    uint64_t cepoch;       /* the reader's chain_epoch when it was fetched */
    /* decode inputs */
    uint8_t *raw;
    size_t raw_len, raw_cap; /* raw_cap: the allocation, reused like data's */
    trz_chunk_hdr h;
    uint64_t cost;         /* the memory it holds in flight (see ahead.c) */
    char err[128];
} dchunk;

#define MAXQ 64
#define MAXLANE 8 /* chains decoded at once (chain.c) */

/* A lane: the decoder model of one chain, the member codec it is of, and
 * the chunk whose decoding it is ready for (cvalid), or the group whose
 * chain broke at chunk cbad (cbroken; cbad_rc why).  A group's chunks all
 * go to one lane, in order; groups take the lanes in turn, so that with
 * threads the next group decodes while the caller is served this one. */
typedef struct clane {
    trz_model *cmodel;
    const trz_codec *ccodec;
    int cvalid, cbroken, cbad_rc;
    int busy;             /* a thread is decoding with it (under the reader's mutex) */
    uint64_t cnext, cgroup, cbad;
    uint64_t cepoch;      /* the chain_epoch of the chunk it decoded last */
    dchunk cfetch;        /* a group's earlier chunks, decoded to reach a chunk after a seek */
} clane;
enum { Q_FREE, Q_HELD, Q_PENDING, Q_DECODING, Q_DONE }; /* a queue slot's state; held: fetched, waiting for memory */
#define UNKNOWN UINT64_MAX /* in a trz_lost_range: not known */

/* Where a loss lies in the archive (parallel to trz_reader.lost). */
typedef struct lost_at {
    uint64_t start, end; /* archive bytes [start, end) */
    int open;            /* numbers still to be taken from the member's index */
    int kind;            /* TRZ_LOST_*: why it was lost */
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
    int overlap; /* TRZ_R_OVERLAP: one thread decodes, as a worker, one chunk ahead */
    /* what the archive holds */
    int seekable;
    rchunk *chunks;
    uint64_t nchunks, members, total_records, total_bytes, file_size;
    const trz_codec *codec; /* of the first member */
    int byte_order, mixed;
    int wrap; /* the first member's parameter 1 (TRZ_WRAP_*) */
    /* sequential parse state */
    uint64_t spos;        /* input offset */
    int in_member, at_end, opened;
    uint64_t member_start, member_chunks, seq_chunk_no, seq_records, seq_bytes;
    uint64_t member_first_chunk;
    trz_index_entry *seq_list;   /* the member's chunks as read, for its index to match */
    size_t seq_cap;
    const trz_codec *seq_mcodec; /* the member being read: its codec and byte order */
    int seq_mbo, seq_tail;       /* seq_tail: its last chunk was a partial record */
    int seq_mknow;               /* it carries knowledge */
    int seq_mchain;              /* its groups are chains */
    int seq_mplaced;             /* its chunks state their place (version 5) */
    int seq_mparity;             /* they may end parity sets */
    /* a member of version 5: the place the next chunk must state (mrel_ok:
     * known), and the member hash of its chunks so far (mh_ok: every chunk,
     * in order, nothing lost) */
    int mrel_ok, mh_ok;
    uint64_t mrel_no, mrel_rec, mrel_byte, mh;
    uint64_t last_end;           /* where the last chunk read ends */
    const trz_codec *seq_guess;  /* a member whose header is lost: the codec of its last chunk not stored raw */
    /* the chunk being served */
    dchunk cur;
    size_t cur_pos;
    int have_cur;
    size_t cur_rec_pos;   /* records of cur that start before cur_rec_pos: */
    uint64_t cur_rec_n;   /* a cache for trz_tell on text */
    uint64_t end_rec;     /* without a current chunk: the next record's number */
    int span_record, span_member; /* the last span began a record; began a member */
    /* the chunk served before cur, for checks that span two chunks */
    uint64_t prev_no;
    int prev_valid, prev_nl;
    uint64_t next_chunk;  /* index mode: next chunk number to decode */
    uint64_t ih_next, ih; /* index mode: the member hash of the chunks fetched in order up to ih_next */
    int ih_ok;
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
    uint64_t inflight;     /* the cost of the chunks admitted and not yet served past (ahead.c) */
    uint64_t keep_max;     /* buffers above this size are given back, not kept for the next chunk */
    int held;              /* the queue's tail is Q_HELD */
    trz_lost_range *lost;
    lost_at *lost_at;
    size_t nlost, caplost;
    uint64_t cpu_bits[16];
    int failed; /* sticky: once a read fails, every later read fails too */
    uint64_t decoded; /* chunks decoded (trz_reader_chunks_decoded); decode-ahead threads add too */
    /* salvage in sequential mode */
    uint8_t *look;        /* bytes read ahead (a scan, a damaged header), served before the input */
    size_t look_pos, look_len;
    int counts_ok;        /* seq_chunk_no/records/bytes exact: no loss of unknown size so far */
    int member_base_ok;   /* member_first_* are exact */
    uint64_t member_first_record, member_first_byte;
    chunk_pos *pos;
    size_t npos, cappos;
    /* carried knowledge: applied in chunk order as chunks are fetched (and
     * replayed from the group's first chunk after a seek); two stores take
     * turns from one restart to the next, like the writer's */
    struct trz_kstore *ks[2];
    int kcur, kvalid;     /* kvalid: the store holds every fact of the chunks up to knext */
    uint64_t knext;       /* the chunk whose knowledge comes next */
    int kref[2];          /* chunks queued that read each store */
    uint64_t klost;       /* the chunk whose lost knowledge broke the group */
    int klost_rc;         /* and why */
    uint64_t kgroup;      /* the restart chunk the store's facts start at */
    trz_buf ktmp;         /* a knowledge stream, decompressed */
    trz_zctx *kz;
    dchunk kfetch;        /* chunks read for their knowledge alone */
    /* chains (members of version 4): one lane per chain being decoded;
     * the lane the last chunk fetched went to */
    clane lane[MAXLANE];
    int flane;
    int layout_checked;   /* rd_check_layout ran */
    uint64_t chain_epoch; /* losses met while fetching: a chain does not continue across one */
    int open_damaged;     /* the open failed on a damaged first header: salvage can resume */
    int open_rc;
    uint64_t open_at;
    /* the first member's restore block (FORMAT.md): where it is, or its
     * bytes when it was read sequentially; how many members have one */
    uint64_t restore_off, restore_size;
    int restore_kind, restore_blocks;
    uint8_t *restore_buf;
    /* chunks mended from their parity (repair.c); the first of them */
    uint64_t repaired, repaired_first;
    uint64_t rep_bad; /* the set (its last chunk + 1) found beyond mending last */
    uint8_t *rep_seen; /* a bit per chunk: mended (counted once) */
};

/* A restore block read sequentially is kept in memory up to this size, so
 * that the original file can be rebuilt from a pipe. */
#define RESTORE_MEM_MAX (16u << 20)

/* ---- base.c: the bottom of the room, calling none of its other files ---- */
/* Set r's message (one line) and return rc. */
int rd_err(trz_reader *r, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int rd_push_back(trz_reader *r, const uint8_t *p, size_t n); /* give back the n bytes just read */
/* n bytes from the look-ahead, then the input (*got: how many came). */
int rd_read_exact(trz_reader *r, void *buf, size_t n, size_t *got);
int rd_read_at(trz_reader *r, uint64_t off, void *buf, size_t n);
/* Parse a member header and note its format (mixed when members differ). */
int rd_parse_member_header(trz_reader *r, const uint8_t *h, size_t n, size_t *len, trz_file_hdr *f);
/* Note a member's restore block (its header at `start`, the block at `at`). */
void rd_note_restore(trz_reader *r, uint64_t start, uint64_t at, const trz_file_hdr *f);
void rd_dchunk_free(dchunk *d);

/* ---- fetch.c: chunks through the index ---- */
/* Chunk n's stored bytes into d, its header checked against its entry, its
 * data mended from its parity set when damaged and the set allows. */
int rd_idx_fetch(trz_reader *r, uint64_t n, dchunk *d);

/* ---- knowledge.c ---- */
/* Chunk d was just fetched, in order: apply its knowledge (after replaying
 * its group's earlier chunks when the store is not at it) and give it its
 * view, or the reason it has none (d->krc).  Returns TRZ_OK, or
 * TRZ_ERR_NOMEM. */
int rd_know_fetched(trz_reader *r, dchunk *d);
/* A loss: the knowledge of the chunks after it, up to the next restart, is gone. */
void rd_know_lost(trz_reader *r);
/* Decoding d is over: its store may be cleared again. */
void rd_know_done(trz_reader *r, dchunk *d);
void rd_know_free(trz_reader *r);

/* ---- chain.c ---- */
/* Chunk d of a chain was just fetched, in order: give it its lane. */
void rd_chain_fetched(trz_reader *r, dchunk *d);
/* Whether a decode-ahead thread may decode chunk d of a chain now: its
 * lane is free and stands at d, or d starts a group (else the caller
 * decodes it when it heads the queue: a replay reads through the index). */
int rd_chain_ready(const trz_reader *r, const dchunk *d);
/* Decode chunk d of a chain (d->mchain) into d->data with its lane's
 * model: from where the chain stands, or replayed from the group's first
 * chunk through the index (after a seek).  Sets d->rc and d->err. */
void rd_chain_decode(trz_reader *r, dchunk *d, trz_zctx *z);
/* A loss met while fetching (or a new member): no chain continues across
 * it, for the chunks fetched after it; those fetched before it, still to
 * be decoded, keep theirs. */
void rd_chain_lost(trz_reader *r);
void rd_chain_free(trz_reader *r);

/* ---- salvage.c ---- */
int rd_skip_damage(trz_reader *r, uint64_t at, const uint8_t head[8], int expect_header);
int rd_damaged(trz_reader *r, int rc, uint64_t at, const uint8_t *head, size_t got, int expect_header);
int rd_lost_at_end(trz_reader *r, uint64_t at);
int rd_apply_index(trz_reader *r, const uint8_t *ix, uint64_t n, uint64_t ms, uint64_t at);
int rd_add_lost(trz_reader *r, const dchunk *d);
/* Salvage: a loss whose numbers are known (kind TRZ_LOST_*), archive bytes [start, end). */
int rd_note_range(trz_reader *r, trz_lost_range l, uint64_t start, uint64_t end, int kind);
/* Salvage, a member of version 5: the chunk at `at` states the place
 * (no, rec, byte) after the one expected: the chunks between are lost;
 * an open loss just before it takes these numbers. */
int rd_place_gap(trz_reader *r, uint64_t at, uint64_t no, uint64_t rec, uint64_t byte);
/* Salvage, a member of version 5: the chunk read states the place expected;
 * an open loss just before it held nothing of the member and is dropped. */
void rd_place_none(trz_reader *r);
/* A member starts at `start` (codec NULL: its header is lost). */
void rd_begin_member(trz_reader *r, uint64_t start, const trz_codec *codec, int byte_order, int know, int chain,
                     int placed);

/* ---- seek.c ---- */
int rd_load_index(trz_reader *r);
/* Whether every chunk of a member of version 5 states the place its index
 * gives it (each header read and checked; a damaged one is left to the
 * reading that meets it).  1 yes, 0 no, or a negative trz_result. */
int rd_places_agree(trz_reader *r);

/* ---- sequential.c ---- */
int rd_seq_member_header(trz_reader *r, int first);
/* The next chunk's bytes: 1 when there is one in d, 0 at the end, < 0. */
int rd_seq_fetch(trz_reader *r, dchunk *d);
/* Without an index on an input that can seek: before record numbers are
 * counted, whether every member of an earlier version holds the chunks its
 * index lists (headers read, data skipped; once).  TRZ_OK, or the damage. */
int rd_check_layout(trz_reader *r);

/* ---- ahead.c ---- */
/* Make r->cur the next decoded chunk: 1, 0 at the end, < 0 on error. */
int rd_next_chunk(trz_reader *r);
/* Whether a chunk follows r->cur: 1 (or an error to report when it is
 * reached), 0 at the end (records.c: is a partial record the last?). */
int rd_more_chunks(trz_reader *r);
void rd_drop_queue(trz_reader *r);
void rd_pool_stop(trz_reader *r);

#endif
