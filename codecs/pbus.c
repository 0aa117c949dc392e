/* pbus.c - codec for PEL Pentium bus traces (6-byte records: big-endian
 * address, byte-enable byte, control byte).  The control byte is predicted
 * like BYU's request kind, the address per transaction class (addrmodel.h),
 * the byte enables from type and address alignment.  Format: codecs/pbus.md. */
#include "codec.h"
#include "addrmodel.h"

enum { S_CTL, S_FCODE, S_DCODE, S_FDELTA, S_DDELTA, S_BECODE, S_BE, S_FNEAR, S_DNEAR, S_COUNT };

static const char *const stream_names[S_COUNT] = {
    "ctl", "fetchcode", "datacode", "fetchmiss", "datamiss", "becode", "be", "fetchnear", "datanear",
};

typedef struct pbus_state {
    am_model am;
    am_proc proc;
    uint8_t be[16 * 8]; /* last byte enables per (type, address & 7) */
} pbus_state;

static unsigned ctl_class(uint8_t ctl)
{
    switch (ctl >> 4) {
    case 8: case 9: return AM_FETCH;
    case 12: case 13: return AM_READ;
    case 14: case 15: return AM_WRITE;
    default: return AM_OTHER;
    }
}

static int st_init(pbus_state *s, uint64_t nrec)
{
    memset(s, 0, sizeof *s);
    s->proc.step = 8;
    return am_init(&s->am, nrec);
}

/* ---- encoder ------------------------------------------------------------- */

static void enc_record(pbus_state *s, trz_buf *st, const uint8_t *r)
{
    am_proc *p = &s->proc;
    uint8_t ctl = r[5];
    trz_put_u8(&st[S_CTL], ctl); /* as is: repeats of control sequences stay repeats */

    unsigned c = ctl_class(ctl);
    uint32_t addr = trz_ld_be32(r);
    unsigned code = am_code(&s->am, p, c, addr);
    trz_put_u8(&st[c == AM_FETCH ? S_FCODE : S_DCODE], (uint8_t)code);
    if (code >= AM_NEAR)
        am_put_miss(&st[c == AM_FETCH ? S_FDELTA : S_DDELTA], &st[c == AM_FETCH ? S_FNEAR : S_DNEAR], code, addr,
                 am_base(&s->am, p, c));
    am_update(&s->am, p, c, addr, 8);

    uint8_t *bp = &s->be[(ctl >> 4) * 8 + (addr & 7)];
    trz_put_u8(&st[S_BECODE], r[4] != *bp);
    if (r[4] != *bp) trz_put_u8(&st[S_BE], r[4]);
    *bp = r[4];
}

static int pbus_encode(const trz_enc_args *a)
{
    if (a->len != a->nrec * 6) return TRZ_CODEC_UNSUPPORTED;
    pbus_state *s = malloc(sizeof *s);
    if (!s) return TRZ_CODEC_NOMEM;
    int rc = st_init(s, a->nrec) != 0 ? TRZ_CODEC_NOMEM : TRZ_CODEC_OK;
    for (uint64_t i = 0; rc == TRZ_CODEC_OK && i < a->nrec; i++)
        enc_record(s, a->streams, a->in + i * 6);
    am_free(&s->am);
    free(s);
    for (int i = 0; rc == TRZ_CODEC_OK && i < S_COUNT; i++)
        if (a->streams[i].oom) rc = TRZ_CODEC_NOMEM;
    return rc;
}

/* ---- decoder ------------------------------------------------------------- */

static int dec_record(pbus_state *s, trz_rd *rd, uint8_t *out)
{
    am_proc *p = &s->proc;
    uint8_t ctl = trz_get_u8(&rd[S_CTL]);

    unsigned c = ctl_class(ctl);
    unsigned code = trz_get_u8(&rd[c == AM_FETCH ? S_FCODE : S_DCODE]);
    uint32_t addr;
    if (code < AM_NEAR) addr = am_decode(&s->am, p, c, code);
    else if (code <= AM_MISS) {
        if (am_get_miss(&rd[c == AM_FETCH ? S_FDELTA : S_DDELTA], &rd[c == AM_FETCH ? S_FNEAR : S_DNEAR], code, p, c,
                        am_base(&s->am, p, c), &addr) != 0)
            return -1;
    } else return -1;
    am_update(&s->am, p, c, addr, 8);

    uint8_t *bp = &s->be[(ctl >> 4) * 8 + (addr & 7)];
    uint8_t bc = trz_get_u8(&rd[S_BECODE]);
    if (bc > 1) return -1;
    if (bc) *bp = trz_get_u8(&rd[S_BE]);
    trz_st_be32(out, addr);
    out[4] = *bp;
    out[5] = ctl;
    return 0;
}

static int pbus_decode(const trz_dec_args *a)
{
    if (a->nrec > a->len / 6 || a->len != a->nrec * 6) return TRZ_CODEC_CORRUPT;
    for (int i = S_COUNT; i < TRZ_MAX_STREAMS; i++)
        if (a->stream_len[i]) return TRZ_CODEC_CORRUPT;
    trz_rd rd[S_COUNT];
    for (int i = 0; i < S_COUNT; i++)
        trz_rd_init(&rd[i], a->stream[i], a->stream[i] ? a->stream_len[i] : 0);
    pbus_state *s = malloc(sizeof *s);
    if (!s) return TRZ_CODEC_NOMEM;
    int rc = st_init(s, a->nrec) != 0 ? TRZ_CODEC_NOMEM : TRZ_CODEC_OK;
    for (uint64_t i = 0; rc == TRZ_CODEC_OK && i < a->nrec; i++)
        if (dec_record(s, rd, a->out + i * 6) != 0) rc = TRZ_CODEC_CORRUPT;
    for (int i = 0; rc == TRZ_CODEC_OK && i < S_COUNT; i++)
        if (rd[i].err || trz_rd_left(&rd[i]) != 0) rc = TRZ_CODEC_CORRUPT;
    am_free(&s->am);
    free(s);
    return rc;
}

/* ---- probe, names, dump -------------------------------------------------- */

static const char *const op_names[16] = {
    "INVALID", "INT_ACK", "INVALID", "SPECIAL", "INVALID", "IO_READ", "INVALID", "IO_WRITE",
    "I_FETCH", "NC_I_FETCH", "INVALID", "INVALID", "D_READ", "NC_D_READ", "WRITE_BACK", "D_WRITE",
};

static int valid_type(unsigned t) { return t == 1 || t == 3 || t == 5 || t == 7 || t >= 8; }

/* Byte enables whose requested bytes (zero bits) lie within the 8-byte
 * group at the address's alignment. */
static int plausible_be(uint32_t addr, uint8_t be)
{
    if ((addr & 7) == 0) return 1;
    uint8_t below = (uint8_t)((1u << (addr & 7)) - 1);
    return (be & below) == below;
}

static int pbus_probe(const uint8_t *buf, size_t len, int *byte_order)
{
    *byte_order = TRZ_BO_BIG;
    size_t n = len / 6;
    if (n > 8192) n = 8192;
    if (n < 2) return 0;
    size_t type = 0, align = 0, lownib = 0, mem = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *r = buf + i * 6;
        unsigned t = r[5] >> 4;
        type += valid_type(t);
        mem += t >= 8;
        lownib += (r[5] & 15) == 0;
        align += plausible_be(trz_ld_be32(r), r[4]);
    }
    if (type * 100 < n * 97 || align * 100 < n * 95 || mem * 100 < n * 50) return 0;
    return lownib * 100 >= n * 90 ? 80 : 50;
}

static const char *pbus_stream_name(unsigned id)
{
    return id < S_COUNT ? stream_names[id] : NULL;
}

static void pbus_dump(FILE *f, uint64_t recno, const uint8_t *r, int byte_order)
{
    (void)byte_order;
    fprintf(f, "%llu: %08x %02x %s\n", (unsigned long long)recno, (unsigned)trz_ld_be32(r), r[4],
            op_names[r[5] >> 4]);
}

const trz_codec trz_codec_pbus = {
    .id = TRZ_CODEC_PBUS,
    .name = "pbus",
    .record_size = 6,
    .description = "PEL Pentium bus trace (6-byte records, big-endian address)",
    .probe = pbus_probe,
    .encode_chunk = pbus_encode,
    .decode_chunk = pbus_decode,
    .stream_name = pbus_stream_name,
    .dump_record = pbus_dump,
};
