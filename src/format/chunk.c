/* chunk.c - one chunk on disk (FORMAT.md, "Chunk"): run the codec, code
 * every stream with the back-end, serialize header + stream table +
 * payload; and the reverse, with every field checked against the limits
 * before it is used, and the chunk checked against its member. */
#include <stdio.h>

#include "format.h"
#include "know.h"

static int pack_streams(trz_chunk_job *job, const trz_codec *codec, trz_buf *s, uint64_t coded, trz_zctx *z,
                        uint64_t xxh);

/* Serialize streams into job->out, the chunk's knowledge stream with them;
 * returns a trz_result. */
static int pack(trz_chunk_job *job, const trz_codec *codec, trz_buf *s, uint64_t coded, trz_zctx *z, uint64_t xxh)
{
    if (!job->kstream || !job->kstream->n) return pack_streams(job, codec, s, coded, z, xxh);
    /* a codec of a member with knowledge leaves the stream to the container */
    if (s[TRZ_KNOW_STREAM].n) return TRZ_ERR_CODEC;
    trz_buf keep = s[TRZ_KNOW_STREAM];
    s[TRZ_KNOW_STREAM] = *job->kstream;
    int rc = pack_streams(job, codec, s, coded & ~(1ull << TRZ_KNOW_STREAM), z, xxh);
    s[TRZ_KNOW_STREAM] = keep;
    return rc;
}

static int pack_streams(trz_chunk_job *job, const trz_codec *codec, trz_buf *s, uint64_t coded, trz_zctx *z,
                        uint64_t xxh)
{
    int ids[TRZ_MAX_STREAMS], n = 0;
    uint64_t total = 0;
    for (int i = 0; i < TRZ_MAX_STREAMS; i++) {
        if (s[i].oom) return TRZ_ERR_NOMEM;
        if (!s[i].n) continue;
        if (s[i].n > TRZ_STREAM_RAW_LIMIT(job->raw_len) || s[i].n > 0xffffffffu) return TRZ_ERR_LIMIT;
        total += s[i].n;
        ids[n++] = i;
    }
    if (total > TRZ_STREAMS_RAW_LIMIT(job->raw_len)) return TRZ_ERR_LIMIT;

    trz_buf *o = &job->out;
    o->n = 0;
    size_t table = TRZ_CHUNK_HDR_FIXED + (job->flags & TRZ_CHUNK_PLACED ? TRZ_CHUNK_PLACE : 0);
    size_t data = table + (size_t)n * TRZ_STREAM_ENTRY + 4;
    if (trz_buf_reserve(o, data)) return TRZ_ERR_NOMEM;
    o->n = data;
    int blevel = codec->backend_level ? codec->backend_level(job->level) : job->level;
    for (int k = 0; k < n; k++) {
        size_t before = o->n;
        /* a stream the codec has entropy-coded is stored as it is */
        int be = trz_backend_compress(z, coded >> ids[k] & 1 ? TRZ_BACKEND_STORE : job->backend, blevel,
                                      s[ids[k]].p, s[ids[k]].n, o);
        if (be > 0 && job->xz && codec == job->codec)
            be = trz_backend_try_xz(z, job->level, s[ids[k]].p, s[ids[k]].n, o, before, be);
        if (be < 0) return be;
        size_t csize = o->n - before;
        uint8_t *e = o->p + table + (size_t)k * TRZ_STREAM_ENTRY;
        e[0] = (uint8_t)ids[k];
        e[1] = (uint8_t)be;
        trz_st_le32(e + 2, (uint32_t)csize);
        trz_st_le32(e + 6, (uint32_t)s[ids[k]].n);
    }
    uint8_t *h = o->p;
    memcpy(h, trz_chunk_magic, 4);
    h[4] = codec->id;
    h[5] = (uint8_t)job->byte_order;
    h[6] = (uint8_t)n;
    h[7] = job->flags;
    trz_st_le32(h + 8, job->nrec);
    trz_st_le32(h + 12, (uint32_t)job->raw_len);
    trz_st_le64(h + 16, xxh);
    trz_st_le32(h + 24, trz_xxh32low(o->p + data, o->n - data));
    if (job->flags & TRZ_CHUNK_PLACED) {
        trz_st_le32(h + 28, job->place_no);
        trz_st_le64(h + 32, job->place_rec);
        trz_st_le64(h + 40, job->place_byte);
    }
    size_t chk = table + (size_t)n * TRZ_STREAM_ENTRY;
    trz_st_le32(h + chk, trz_xxh32low(h, chk));
    return TRZ_OK;
}

/* What a codec's trial sizes streams with: the chunk's own back-end. */
typedef struct packer { trz_zctx *z; int backend; } packer;

static size_t packed_size(void *ctx, const void *p, size_t n, int level)
{
    const packer *k = ctx;
    return trz_backend_size(k->z, k->backend, level, p, n);
}

/* Code the chunk with one codec into the streams of z; a trz_result. */
static int model_with(trz_chunk_job *job, const trz_codec *codec, trz_zctx *z, uint64_t *coded)
{
    trz_buf *s = trz_zctx_streams(z);
    packer k = { z, job->backend };
    *coded = 0;
    int chain = job->model && codec == job->codec;
    trz_enc_args a = { job->raw, job->raw_len, job->nrec, job->byte_order, job->level, s, packed_size, &k, coded,
                       job->know, chain };
    /* the variant for the level: with the chain's model, or with a model
     * of its own for this chunk (which starts from a reset model) */
    trz_model *m = chain ? job->model : NULL;
    int rc = chain ? TRZ_CODEC_OK : trz_model_create(codec, job->level, job->know != NULL, &m);
    if (rc == TRZ_CODEC_OK) rc = trz_codec_encode(codec, &a, m);
    if (!chain) trz_model_free(codec, m);
    /* Encoding, packing and the self-check each peak on buffers of their
     * own: each phase gives its own back before the next one (the sizes are
     * in bench/notes/2026-11-28-memory.md). */
    trz_zctx_release(z, TRZ_RELEASE_TRIALS);
    return rc == TRZ_CODEC_NOMEM ? TRZ_ERR_NOMEM : rc != TRZ_CODEC_OK ? TRZ_ERR_CODEC : TRZ_OK;
}

/* Serialize what model_with left in z (rc: its result). */
static int pack_with(trz_chunk_job *job, const trz_codec *codec, trz_zctx *z, int rc, uint64_t coded, uint64_t xxh)
{
    if (rc == TRZ_OK) rc = pack(job, codec, trz_zctx_filled(z), coded, z, xxh);
    trz_zctx_release(z, TRZ_RELEASE_PACKER);
    return rc;
}

/* Encode with one codec; 0 on success. */
static int encode_with(trz_chunk_job *job, const trz_codec *codec, trz_zctx *z, uint64_t xxh)
{
    uint64_t coded;
    int rc = model_with(job, codec, z, &coded);
    return pack_with(job, codec, z, rc, coded, xxh);
}

static int chunk_decode(const trz_chunk_hdr *h, const uint8_t *p, size_t n, uint8_t *out, trz_zctx *z,
                        const trz_know *know, trz_model *chain, char *err, size_t errlen, const uint8_t *expect,
                        trz_buf *own);

/* Decode what was just written and compare with the source (a chunk of a
 * chain with the chain's decoder model, as a reader will). */
static int verify(trz_chunk_job *job, trz_zctx *z)
{
    trz_chunk_hdr h;
    size_t need;
    if (trz_chunk_parse_hdr(job->out.p, job->out.n, &h, &need) || h.raw != job->raw_len) return -1;
    uint8_t *tmp = trz_zctx_scratch(z, TRZ_SCRATCH_CHECK, job->raw_len);
    if (!tmp) return TRZ_ERR_NOMEM;
    char err[8];
    /* the streams are packed by now: their buffers take the decoded ones */
    return chunk_decode(&h, job->out.p, job->out.n, tmp, z, job->know, job->dmodel, err, sizeof err, job->raw,
                        trz_zctx_streams(z));
}

/* The header of the chunk stored raw: one stream. */
static size_t raw_hdr_len(const trz_chunk_job *job)
{
    return TRZ_CHUNK_HDR_FIXED + (job->flags & TRZ_CHUNK_PLACED ? TRZ_CHUNK_PLACE : 0) + TRZ_STREAM_ENTRY + 4;
}

/* The guard: whether the raw codec, at the fast level TRZ_GUARD_LEVEL,
 * would store the chunk in fewer bytes than the model did (its knowledge
 * stream aside: a raw chunk carries it the same).  A trial that stops as
 * soon as it has written as much as the model. */
static int raw_wins(trz_chunk_job *job, trz_zctx *z)
{
    trz_chunk_hdr h;
    size_t need;
    if (trz_chunk_parse_hdr(job->out.p, job->out.n, &h, &need)) return 0;
    size_t model = h.hdr_len, raw_hdr = raw_hdr_len(job);
    for (unsigned k = 0; k < h.nstreams; k++)
        if (!(job->kstream && job->kstream->n && h.sid[k] == TRZ_KNOW_STREAM)) model += h.csize[k];
        else model -= TRZ_STREAM_ENTRY;
    if (model <= raw_hdr) return 0;
    int lvl = job->level < TRZ_GUARD_LEVEL ? job->level : TRZ_GUARD_LEVEL;
    return trz_backend_under(z, job->backend, lvl, job->raw, job->raw_len, model - raw_hdr) == 1;
}

void trz_chunk_model(trz_chunk_job *job, trz_zctx *z)
{
    job->model_rc = model_with(job, job->codec, z, &job->coded);
}

void trz_chunk_finish(trz_chunk_job *job, trz_zctx *z)
{
    uint64_t xxh = trz_xxh64(job->raw, job->raw_len);
    const trz_codec *codec = job->codec;
    job->fell_back = 0;
    if (job->dmodel && (job->flags & TRZ_CHUNK_RESTART)) trz_model_reset(codec, job->dmodel);
    int rc = pack_with(job, codec, z, job->model_rc, job->coded, xxh);
    /* A codec that cannot model this chunk, or whose output does not decode
     * back to the input, never costs data: the chunk goes out raw. */
    if (codec->id != TRZ_CODEC_RAW) {
        /* Nor does a forced format on bytes it cannot predict (random data
         * as BYU grew 4%): a chunk is never larger than its bytes stored. */
        if (rc == TRZ_OK && job->out.n > job->raw_len + raw_hdr_len(job)) rc = TRZ_ERR_CODEC;
        /* Nor a model that loses to the general-purpose back-end (exact
         * repeats it has no memory for, noise): the guard, on chunks large
         * enough for a few bytes of difference not to matter. */
        if (rc == TRZ_OK && job->backend != TRZ_BACKEND_STORE && job->raw_len >= TRZ_GUARD_MIN && raw_wins(job, z))
            rc = TRZ_ERR_CODEC;
        if (rc == TRZ_OK && job->verify && verify(job, z) != 0) rc = TRZ_ERR_CODEC;
        trz_zctx_release(z, TRZ_SCRATCH_CHECK);
        if (rc == TRZ_ERR_CODEC || rc == TRZ_ERR_LIMIT) {
            job->byte_order = TRZ_BO_NONE;
            rc = encode_with(job, &trz_codec_raw, z, xxh);
            /* a chain's next chunk starts afresh after a raw one, on both
             * sides: the encoder's model holds what the dropped encoding
             * left in it, which no decoder sees (the caller resets it) */
            if (job->dmodel) trz_model_reset(codec, job->dmodel);
            job->fell_back = job->model != NULL;
        }
    }
    job->result = rc;
    if (rc) snprintf(job->err, sizeof job->err, "%s", trz_strerror(rc));
}

void trz_chunk_encode(trz_chunk_job *job, trz_zctx *z)
{
    trz_chunk_model(job, z);
    trz_chunk_finish(job, z);
    if (job->fell_back) trz_model_reset(job->codec, job->model);
}

/* The raw codec also carries chunks of other formats (a partial last record,
 * or a chunk a codec could not model), so its record count is free. */
int trz_nrec_ok(const trz_codec *c, uint64_t nrec, uint64_t raw)
{
    if (c->id == TRZ_CODEC_RAW || c->record_size == 0) return nrec <= raw;
    return nrec * c->record_size == raw;
}

int trz_chunk_fits(const trz_codec *m, int mbo, unsigned codec, unsigned bo, unsigned flags, uint64_t nrec,
                   uint64_t raw, int first, int groups, int placed, int parity, int *tail)
{
    *tail = 0;
    /* a member with parity: any chunk may end a set */
    if (!parity && (flags & TRZ_CHUNK_PARITY)) return 0;
    flags &= ~(unsigned)TRZ_CHUNK_PARITY;
    /* a member of groups starts one at its first chunk */
    if (groups ? first && !(flags & TRZ_CHUNK_RESTART) : (flags & TRZ_CHUNK_RESTART) != 0) return 0;
    if (!placed != !(flags & TRZ_CHUNK_PLACED)) return 0;
    flags &= ~(unsigned)(TRZ_CHUNK_RESTART | TRZ_CHUNK_PLACED);
    if (codec != m->id && codec != TRZ_CODEC_RAW) return 0;
    if (codec == m->id && codec != TRZ_CODEC_RAW && bo != (unsigned)mbo) return 0;
    if (m->record_size == 0) return !(first && (flags & TRZ_CHUNK_MIDLINE)) && nrec <= raw;
    if (flags) return 0;
    if (nrec * m->record_size == raw) return 1;
    *tail = codec == TRZ_CODEC_RAW && nrec == 0 && raw < m->record_size;
    return *tail;
}

int trz_chunk_parse_hdr(const uint8_t *p, size_t n, trz_chunk_hdr *h, size_t *need)
{
    *need = TRZ_CHUNK_HDR_FIXED;
    if (n < TRZ_CHUNK_HDR_FIXED) return TRZ_ERR_TRUNCATED;
    if (memcmp(p, trz_chunk_magic, 4) != 0) return TRZ_ERR_CORRUPT;
    h->codec = p[4];
    h->byte_order = p[5];
    h->nstreams = p[6];
    h->flags = p[7];
    h->nrec = trz_ld_le32(p + 8);
    h->raw = trz_ld_le32(p + 12);
    h->xxh = trz_ld_le64(p + 16);
    h->pcheck = trz_ld_le32(p + 24);
    if (h->nstreams > TRZ_MAX_STREAMS) return TRZ_ERR_LIMIT;
    /* (the flags are not checked yet: a damaged one is caught by the check) */
    size_t table = TRZ_CHUNK_HDR_FIXED + (h->flags & TRZ_CHUNK_PLACED ? TRZ_CHUNK_PLACE : 0);
    size_t chk = table + (size_t)h->nstreams * TRZ_STREAM_ENTRY;
    h->hdr_len = (uint32_t)(chk + 4);
    *need = h->hdr_len;
    if (n < h->hdr_len) return TRZ_ERR_TRUNCATED;
    if (trz_ld_le32(p + chk) != trz_xxh32low(p, chk)) return TRZ_ERR_CORRUPT;
    if (h->raw > TRZ_MAX_CHUNK_RAW) return TRZ_ERR_LIMIT;
    if (h->byte_order > TRZ_BO_BIG ||
        (h->flags & ~(TRZ_CHUNK_MIDLINE | TRZ_CHUNK_RESTART | TRZ_CHUNK_PLACED | TRZ_CHUNK_PARITY)))
        return TRZ_ERR_CORRUPT;
    h->place_no = 0;
    h->place_rec = h->place_byte = 0;
    if (h->flags & TRZ_CHUNK_PLACED) {
        h->place_no = trz_ld_le32(p + 28);
        h->place_rec = trz_ld_le64(p + 32);
        h->place_byte = trz_ld_le64(p + 40);
    }
    const trz_codec *c = trz_codec_by_id(h->codec);
    if (!c) return TRZ_ERR_UNSUPPORTED;
    if (!trz_nrec_ok(c, h->nrec, h->raw)) return TRZ_ERR_CORRUPT;
    uint64_t seen = 0, total = 0, payload = 0;
    for (unsigned k = 0; k < h->nstreams; k++) {
        const uint8_t *e = p + table + (size_t)k * TRZ_STREAM_ENTRY;
        h->sid[k] = e[0];
        h->backend[k] = e[1];
        h->csize[k] = trz_ld_le32(e + 2);
        h->rsize[k] = trz_ld_le32(e + 6);
        if (h->sid[k] >= TRZ_MAX_STREAMS || (seen >> h->sid[k] & 1)) return TRZ_ERR_CORRUPT;
        seen |= 1ull << h->sid[k];
        if (h->backend[k] > TRZ_BACKEND_XZ) return TRZ_ERR_UNSUPPORTED;
        if (h->rsize[k] > TRZ_STREAM_RAW_LIMIT(h->raw)) return TRZ_ERR_LIMIT;
        total += h->rsize[k];
        payload += h->csize[k];
    }
    if (total > TRZ_STREAMS_RAW_LIMIT(h->raw)) return TRZ_ERR_LIMIT;
    /* a chunk that ends a parity set: the parity is its last stream, stored */
    if ((h->flags & TRZ_CHUNK_PARITY) &&
        (!h->nstreams || h->sid[h->nstreams - 1] != TRZ_PARITY_STREAM ||
         h->backend[h->nstreams - 1] != TRZ_BACKEND_STORE || h->csize[h->nstreams - 1] != h->rsize[h->nstreams - 1]))
        return TRZ_ERR_CORRUPT;
    /* Compressed data is never larger than what store would take. */
    if (payload > total) return TRZ_ERR_CORRUPT;
    h->payload = payload;
    *need = h->hdr_len + payload;
    return TRZ_OK;
}

void trz_chunk_set_count(uint8_t *p, const trz_chunk_hdr *h, uint32_t nrec, uint8_t flags)
{
    size_t chk = h->hdr_len - 4;
    p[7] = flags;
    trz_st_le32(p + 8, nrec);
    trz_st_le32(p + chk, trz_xxh32low(p, chk));
}

void trz_chunk_set_place(uint8_t *p, trz_chunk_hdr *h, uint32_t no, uint64_t rec, uint64_t byte)
{
    size_t chk = h->hdr_len - 4;
    trz_st_le32(p + 28, no);
    trz_st_le64(p + 32, rec);
    trz_st_le64(p + 40, byte);
    trz_st_le32(p + chk, trz_xxh32low(p, chk));
    h->place_no = no;
    h->place_rec = rec;
    h->place_byte = byte;
}

int trz_chunk_payload_ok(const trz_chunk_hdr *h, const uint8_t *p)
{
    return trz_xxh32low(p + h->hdr_len, h->payload) == h->pcheck;
}

/* Stream k of the chunk is the parity of its set (the container's), which
 * no codec reads. */
static int is_parity(const trz_chunk_hdr *h, unsigned k)
{
    return (h->flags & TRZ_CHUNK_PARITY) && k + 1 == h->nstreams;
}

size_t trz_chunk_parity_at(const trz_chunk_hdr *h, size_t *len)
{
    *len = 0;
    if (!(h->flags & TRZ_CHUNK_PARITY)) return h->payload;
    *len = h->csize[h->nstreams - 1];
    return h->payload - *len;
}

int trz_chunk_add_parity(trz_buf *o, const uint8_t *par, size_t n)
{
    trz_chunk_hdr h;
    size_t need;
    if (trz_chunk_parse_hdr(o->p, o->n, &h, &need) || need != o->n || h.nstreams >= TRZ_MAX_STREAMS ||
        (h.flags & TRZ_CHUNK_PARITY))
        return TRZ_ERR_CODEC;
    if (trz_buf_reserve(o, o->n + TRZ_STREAM_ENTRY + n)) return TRZ_ERR_NOMEM;
    uint8_t *p = o->p;
    size_t chk = h.hdr_len - 4; /* the new entry goes where the header check was */
    memmove(p + h.hdr_len + TRZ_STREAM_ENTRY, p + h.hdr_len, h.payload);
    p[chk] = TRZ_PARITY_STREAM;
    p[chk + 1] = TRZ_BACKEND_STORE;
    trz_st_le32(p + chk + 2, (uint32_t)n);
    trz_st_le32(p + chk + 6, (uint32_t)n);
    size_t data = h.hdr_len + TRZ_STREAM_ENTRY;
    memcpy(p + data + h.payload, par, n);
    o->n = data + h.payload + n;
    p[6] = (uint8_t)(h.nstreams + 1);
    p[7] = (uint8_t)(h.flags | TRZ_CHUNK_PARITY);
    trz_st_le32(p + 24, trz_xxh32low(p + data, o->n - data));
    trz_st_le32(p + chk + TRZ_STREAM_ENTRY, trz_xxh32low(p, chk + TRZ_STREAM_ENTRY));
    return TRZ_OK;
}

/* trz_chunk_decode; with `expect` (the encoder's self-check), the output is
 * compared with the source instead of hashed: the comparison is exact, and
 * hashing as well would be one more pass over the chunk for nothing. */
/* The encoder's buffer of stream sid when it holds n bytes, else NULL. */
static uint8_t *own_room(const trz_buf *own, unsigned sid, size_t n)
{
    return own && own[sid].cap >= n ? own[sid].p : NULL;
}

static int chunk_decode(const trz_chunk_hdr *h, const uint8_t *p, size_t n, uint8_t *out, trz_zctx *z,
                        const trz_know *know, trz_model *chain, char *err, size_t errlen, const uint8_t *expect,
                        trz_buf *own)
{
    const trz_codec *c = trz_codec_by_id(h->codec);
    if (!c) { snprintf(err, errlen, "unknown codec %u", h->codec); return TRZ_ERR_UNSUPPORTED; }
    if (n < h->hdr_len + h->payload) { snprintf(err, errlen, "truncated"); return TRZ_ERR_TRUNCATED; }
    /* Damage anywhere in the stored bytes is caught here, even where the
     * decoded result would happen to come out right. */
    if (!trz_chunk_payload_ok(h, p)) {
        snprintf(err, errlen, "stored data checksum mismatch");
        return TRZ_ERR_CHECKSUM;
    }
    /* stored streams are used where they lie; the others decode into a
     * buffer the context keeps from chunk to chunk.  The encoder's check
     * (own set) decodes each into the buffer the codec filled with it: a
     * chunk's worth of memory the encoder has touched already, where a
     * scratch buffer would be as much again. */
    /* the knowledge stream of a member with knowledge is the reader's: it
     * applied it before this chunk (trz_chunk_know) */
    uint64_t total = 0;
    for (unsigned k = 0; k < h->nstreams; k++)
        if (h->backend[k] != TRZ_BACKEND_STORE && !own_room(own, h->sid[k], h->rsize[k]) &&
            !(know && h->sid[k] == TRZ_KNOW_STREAM) && !is_parity(h, k))
            total += h->rsize[k];
    uint8_t *mem = total ? trz_zctx_scratch(z, TRZ_SCRATCH_STREAMS, (size_t)total) : NULL;
    if (total && !mem) { snprintf(err, errlen, "out of memory"); return TRZ_ERR_NOMEM; }
    /* A hostile header may give every compressed stream no bytes: those
     * present but empty streams then point at `none` (NULL + 0 is undefined,
     * and NULL would mean absent to a codec). */
    static uint8_t none[1];
    const uint8_t *sp[TRZ_MAX_STREAMS] = { 0 };
    size_t sl[TRZ_MAX_STREAMS] = { 0 };
    const uint8_t *src = p + h->hdr_len;
    uint8_t *dst = mem ? mem : none, *o;
    int rc = TRZ_OK;
    for (unsigned k = 0; k < h->nstreams && rc == TRZ_OK; k++) {
        if ((know && h->sid[k] == TRZ_KNOW_STREAM) || is_parity(h, k)) {
            src += h->csize[k];
            continue;
        }
        sl[h->sid[k]] = h->rsize[k];
        if (h->backend[k] == TRZ_BACKEND_STORE) {
            if (h->csize[k] != h->rsize[k]) rc = TRZ_ERR_CORRUPT;
            sp[h->sid[k]] = src;
        } else if ((o = own_room(own, h->sid[k], h->rsize[k]))) {
            rc = trz_backend_decompress(z, h->backend[k], src, h->csize[k], o, h->rsize[k]);
            sp[h->sid[k]] = o;
        } else {
            rc = trz_backend_decompress(z, h->backend[k], src, h->csize[k], dst, h->rsize[k]);
            sp[h->sid[k]] = dst;
            dst += h->rsize[k];
        }
        if (rc) { snprintf(err, errlen, "stream %u does not decompress", h->sid[k]); break; }
        src += h->csize[k];
    }
    if (rc == TRZ_OK) {
        trz_model *cm = chain;
        trz_dec_args a = { sp, sl, out, h->raw, h->nrec, h->byte_order, know, cm != NULL };
        /* the variant the streams name, with the chain's model or one of its own */
        trz_model *m = cm;
        int cr = cm ? TRZ_CODEC_OK : trz_model_create(c, 0, know != NULL, &m);
        if (cr == TRZ_CODEC_OK) cr = trz_codec_decode(c, &a, m);
        if (!cm) trz_model_free(c, m);
        if (cr == TRZ_CODEC_NOMEM) { rc = TRZ_ERR_NOMEM; snprintf(err, errlen, "out of memory"); }
        else if (cr == TRZ_CODEC_UNSUPPORTED) {
            rc = TRZ_ERR_UNSUPPORTED;
            snprintf(err, errlen, "%s streams use a model variant this version does not decode", c->name);
        }
        else if (cr != TRZ_CODEC_OK) { rc = TRZ_ERR_CORRUPT; snprintf(err, errlen, "%s streams are damaged", c->name); }
        else if (expect ? memcmp(out, expect, h->raw) != 0 : trz_xxh64(out, h->raw) != h->xxh) {
            rc = TRZ_ERR_CHECKSUM;
            snprintf(err, errlen, "checksum mismatch");
        }
    }
    return rc;
}

int trz_chunk_decode(const trz_chunk_hdr *h, const uint8_t *p, size_t n, uint8_t *out, trz_zctx *z,
                     const trz_know *know, trz_model *chain, char *err, size_t errlen)
{
    return chunk_decode(h, p, n, out, z, know, chain, err, errlen, NULL, NULL);
}

int trz_chunk_know(const trz_chunk_hdr *h, const uint8_t *p, size_t n, const trz_codec *mc, trz_zctx *z, trz_buf *tmp,
                   trz_kstore *s)
{
    if (n < h->hdr_len + h->payload) return TRZ_ERR_TRUNCATED;
    const uint8_t *src = p + h->hdr_len;
    for (unsigned k = 0; k < h->nstreams; k++) {
        if (h->sid[k] != TRZ_KNOW_STREAM) {
            src += h->csize[k];
            continue;
        }
        if (!trz_chunk_payload_ok(h, p)) return TRZ_ERR_CHECKSUM;
        const uint8_t *kp = src;
        if (h->backend[k] == TRZ_BACKEND_STORE) {
            if (h->csize[k] != h->rsize[k]) return TRZ_ERR_CORRUPT;
        } else {
            tmp->n = 0;
            if (trz_buf_reserve(tmp, h->rsize[k])) return TRZ_ERR_NOMEM;
            if (trz_backend_decompress(z, h->backend[k], src, h->csize[k], tmp->p, h->rsize[k])) return TRZ_ERR_CORRUPT;
            kp = tmp->p;
        }
        return trz_know_apply(s, mc, kp, h->rsize[k]);
    }
    return TRZ_OK; /* no new facts */
}
