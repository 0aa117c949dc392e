/* byu_codec.c - the BYU codec's table (trz_codec_byu): variants, levels,
 * the model's operations, and probe, stream names, dump and byte-order
 * conversion. */
#include "byu_int.h"

static const char *const stream_names[S_TIME0] = {
    "proc", "runlen", "kind", "reqtype", "size", "attr",
    "fetchcode", "datacode", "fetchmiss", "datamiss", "timeraw", "fetchnear", "datanear", "cache", "layout", "cm",
};

/* Variant ids: the arithmetic path's are its stream's version byte
 * (BUS_CM_*); the stream paths have none on disk (S_LAYOUT's L_LEAN tells
 * the lean one), 0 and 1 here. */
enum { V_STREAMS, V_LEAN, V_RANGE, V_MIX_LEGACY, V_FAST, V_MIX };
static const trz_variant byu_variants[] = {
    [V_STREAMS] = { 0, "streams", 0, 0, zs_encode, zs_decode_chunk },
    [V_LEAN] = { 1, "streams-lean", 1, 5, lean_encode, zs_decode_chunk },
    [V_RANGE] = { BUS_CM_VERSION, "range", 0, 0, NULL, cm_decode_chunk },
    [V_MIX_LEGACY] = { BUS_CM_MIXED, "mix", 0, 0, NULL, cm_decode_chunk },
    [V_FAST] = { BUS_CM_FAST, "range-fast", 6, 11, fm_encode, fm_decode_chunk },
    [V_MIX] = { BUS_CM_MIX_RC, "mix", 12, 19, mix_encode, cm_decode_chunk },
};

#define LEAN { V_LEAN, 2, 0 }
#define FAST { V_FAST, 0, 0 }
#define MIX { V_MIX, 0, 1 }
static const byu_level byu_levels[TRZ_LEVEL_MAX + 1] = {
    LEAN, LEAN, LEAN, LEAN, LEAN, LEAN,             /* 0 (as 1), 1-5 */
    FAST, FAST, FAST, FAST, FAST, FAST,             /* 6-11 */
    MIX, MIX, MIX, MIX, MIX, MIX, MIX, MIX,         /* 12-19 */
};
#undef LEAN
#undef FAST
#undef MIX

/* The variant of a chunk: the arithmetic path's by its version byte, the
 * stream paths' by the layout's L_LEAN. */
static int byu_variant_of(const size_t *len, const uint8_t *const *head)
{
    if (len[S_CM]) {
        unsigned v = bus_cm_version_of(len, head, S_CM);
        return v == BUS_CM_FAST     ? V_FAST
               : v == BUS_CM_MIX_RC ? V_MIX
               : v == BUS_CM_MIXED  ? V_MIX_LEGACY
               : v == BUS_CM_VERSION ? V_RANGE
                                     : -1;
    }
    return len[S_LAYOUT] && (head[S_LAYOUT][0] & L_LEAN) ? V_LEAN : V_STREAMS;
}

/* ---- the model ---------------------------------------------------------------- */

static trz_model *byu_model_create(int level, int know)
{
    (void)know;
    byu_model *m = calloc(1, sizeof *m);
    if (m) m->lv = &byu_levels[level ? trz_level_clamp(level) : 0];
    return (trz_model *)m;
}

/* Each chunk sets up what it uses (st_open, cm_open, fm_open): outside a
 * chain nothing carries over but the tables' memory; in a chain, what the
 * live flags name.  A reset ends the chain's state. */
static void byu_model_reset(trz_model *tm)
{
    byu_model *m = (byu_model *)tm;
    st_close(&m->st, 0);
    m->cm_live = m->hx_live = m->fm_live = m->mt_live = 0;
}

static void byu_model_free(trz_model *tm)
{
    byu_model *m = (byu_model *)tm;
    if (!m) return;
    byu_model_free((trz_model *)m->trial);
    st_free(&m->st);
    byu_arith_free(m);
    free(m);
}

/* ---- probe, names, dump -------------------------------------------------- */

static int plausible_req(uint8_t q)
{
    return q <= 0x03 || q == 0x10 || q == 0x11 || (q >= 0x20 && q <= 0x23) || (q >= 0x31 && q <= 0x37);
}

static int plausible_size(uint8_t z) { return z <= 8 || z == 16 || z == 32; }

static int byu_probe(const uint8_t *buf, size_t len, int *byte_order)
{
    *byte_order = TRZ_BO_LITTLE;
    size_t n = len / 12;
    if (n > 8192) n = 8192;
    if (n < 2) return 0;
    size_t req = 0, size = 0, attr = 0, proc_chg = 0, small_t = 0, fetch = 0, nproc = 0;
    uint8_t seen[256] = { 0 };
    for (size_t i = 0; i < n; i++) {
        const uint8_t *r = buf + i * 12;
        req += plausible_req(r[4]);
        size += plausible_size(r[5]);
        attr += r[6] < 16;
        fetch += r[4] == 0;
        small_t += r[11] == 0;
        if (i && r[7] != r[7 - 12]) proc_chg++;
        nproc += !seen[r[7]];
        seen[r[7]] = 1;
    }
    /* All shares in 1/100 of the sampled records.  The proc byte is stable:
     * it changes seldom, or it takes few values (a multiprocessor's bus
     * interleaves its processors' requests finely). */
    if (req * 100 < n * 97 || size * 100 < n * 95 || attr * 100 < n * 95) return 0;
    if (small_t * 100 < n * 90 || (proc_chg * 100 > n * 60 && nproc > 16)) return 0;
    if (fetch * 100 < n * 5) return 40;
    return 85;
}

static const char *byu_stream_name(unsigned id)
{
    /* time streams: class now x class before x fresh line */
    static const char *const tn[T_NCTX] = {
        "time.FF", "time.FF+", "time.FR", "time.FR+", "time.FW", "time.FW+", "time.FO", "time.FO+",
        "time.RF", "time.RF+", "time.RR", "time.RR+", "time.RW", "time.RW+", "time.RO", "time.RO+",
        "time.WF", "time.WF+", "time.WR", "time.WR+", "time.WW", "time.WW+", "time.WO", "time.WO+",
        "time.OF", "time.OF+", "time.OR", "time.OR+", "time.OW", "time.OW+", "time.OO", "time.OO+",
    };
    if (id < S_TIME0) return stream_names[id];
    return id < S_COUNT ? tn[id - S_TIME0] : NULL;
}

static const char *req_name(uint8_t q)
{
    static const char *const lo[] = { "FETCH", "MEMREAD", "MEMREADINV", "MEMWRITE" };
    static const char *const hi[] = { "SHUTDOWN", "FLUSH", "HALT", "SYNC", "FLUSHACK", "STOPCLKACK", "SMIACK" };
    static const char *const ctl[] = { "DEFERREPLY", "INTA", "CNTRLAGNTRES", "BRTRACEREC" };
    if (q <= 0x03) return lo[q];
    if (q == 0x10) return "IOREAD";
    if (q == 0x11) return "IOWRITE";
    if (q >= 0x20 && q <= 0x23) return ctl[q - 0x20];
    if (q >= 0x31 && q <= 0x37) return hi[q - 0x31];
    return NULL;
}

static void byu_dump(FILE *f, uint64_t recno, const uint8_t *r, int byte_order)
{
    (void)byte_order;
    const char *nm = req_name(r[4]);
    char hex[8];
    if (!nm) { snprintf(hex, sizeof hex, "0x%02x", r[4]); nm = hex; }
    fprintf(f, "%llu: %08x %-12s size %u attr %u proc %u time %u\n", (unsigned long long)recno,
            (unsigned)trz_ld_le32(r), nm, r[5], r[6], r[7], (unsigned)trz_ld_le32(r + 8));
}

static void byu_cpus(const uint8_t *buf, size_t len, int byte_order, uint64_t cpus[16])
{
    (void)byte_order;
    for (size_t i = 0; i + 12 <= len; i += 12) cpus[buf[i + 7] >> 6] |= 1ull << (buf[i + 7] & 63);
}

/* addr (bytes 0-3) and time (bytes 8-11) are the multi-byte fields. */
static void byu_convert(uint8_t *recs, size_t len, int from, int to)
{
    if (from == to || from == TRZ_BO_NONE || to == TRZ_BO_NONE) return;
    for (size_t off = 0; off + 12 <= len; off += 12) {
        trz_st_le32(recs + off, trz_ld_be32(recs + off));
        trz_st_le32(recs + off + 8, trz_ld_be32(recs + off + 8));
    }
}

const trz_codec trz_codec_byu = {
    .id = TRZ_CODEC_BYU,
    .name = "byu",
    .record_size = 12,
    .description = "BYU address trace (12-byte little-endian bus requests)",
    .probe = byu_probe,
    .variants = byu_variants,
    .nvariants = sizeof byu_variants / sizeof byu_variants[0],
    .variant_of = byu_variant_of,
    .levels = byu_levels,
    .level_size = sizeof(byu_level),
    .model_create = byu_model_create,
    .model_reset = byu_model_reset,
    .model_free = byu_model_free,
    .chains = 1,
    .chain_bytes = 64u << 20, /* a seek decodes at most 64 MiB (bench/notes/2026-11-29-chains.md) */
    .stream_name = byu_stream_name,
    .dump_record = byu_dump,
    .cpus_seen = byu_cpus,
    .convert = byu_convert,
};

