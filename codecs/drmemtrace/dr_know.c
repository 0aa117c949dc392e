/* dr_know.c - the drmemtrace codec's carried knowledge (drmemtrace.md,
 * "Knowledge"): the learn step that states a chunk's new facts, and the
 * knowledge stream that codes them. */
#include "dr_model.h"


/* trz_codec.learn: a fact for each PC of the chunk the member does not
 * know yet: its first instruction record's type, length and memory
 * pattern, the first encoding seen with it, and for a direct branch whose
 * encoding does not give its target, the first taken successor. */
typedef struct {
    uint64_t pc, tgt;
    uint32_t rec, enc; /* its first instruction record; the first ENCODING of an event with encodings */
    uint8_t used, known, elen, nmem;
    uint16_t len;
} dr_lfact; /* small: a chunk's PCs each have one while it is scanned */

typedef struct { dr_lfact *t; size_t cap, n; } dr_ltab;

static dr_lfact *ltab_slot(dr_lfact *t, size_t cap, uint64_t pc)
{
    size_t h = (size_t)h32(pc) & (cap - 1);
    while (t[h].used && t[h].pc != pc) h = (h + 1) & (cap - 1);
    return &t[h];
}

static int ltab_grow(dr_ltab *lt)
{
    size_t nc = lt->cap ? 2 * lt->cap : 4096;
    dr_lfact *nt = calloc(nc, sizeof *nt);
    if (!nt) return -1;
    for (size_t j = 0; j < lt->cap; j++)
        if (lt->t[j].used) *ltab_slot(nt, nc, lt->t[j].pc) = lt->t[j];
    free(lt->t);
    lt->t = nt;
    lt->cap = nc;
    return 0;
}

int dr_learn(const trz_know *k, const uint8_t *in, size_t len, uint64_t nrec, int bo, trz_know_add_fn add,
                    void *ctx)
{
    (void)bo;
    if (len % DR_REC || nrec != len / DR_REC) return TRZ_CODEC_UNSUPPORTED;
    dr_ltab lt = { NULL, 0, 0 };
    if (ltab_grow(&lt)) return TRZ_CODEC_NOMEM;
    uint64_t prev_pc = 0;
    int prev_new = 0; /* the last instruction's fact is new and may take a target */
    size_t i = 0;
    while (i < nrec) {
        dr_event ev;
        dr_parse_event(in, i, (size_t)nrec, &ev);
        if (ev.kind != EV_INSTR && ev.kind != EV_INSTR_ENC) {
            prev_new = 0;
            i += ev.kind == EV_MARKER ? 1 + ev.run : 1;
            continue;
        }
        const uint8_t *ip = in + ev.instr * DR_REC;
        uint64_t pc = trz_ld_le64(ip + 4);
        unsigned type = tclass(trz_ld_le16(ip)), ilen = trz_ld_le16(ip + 2);
        if (prev_new) { /* a direct branch's successor other than its fall-through */
            dr_lfact *p = ltab_slot(lt.t, lt.cap, prev_pc);
            if (!p->tgt && pc != prev_pc + p->len) p->tgt = pc;
        }
        if (2 * (lt.n + 1) > lt.cap && ltab_grow(&lt)) { free(lt.t); return TRZ_CODEC_NOMEM; }
        dr_lfact *e = ltab_slot(lt.t, lt.cap, pc);
        if (!e->used) {
            size_t n;
            e->used = 1;
            e->pc = pc;
            e->known = trz_know_get(k, pc, &n) != NULL;
            lt.n++;
            e->rec = (uint32_t)ev.instr;
            e->len = (uint16_t)ilen;
            e->nmem = (uint8_t)ev.nmem;
        }
        if (!e->known && !e->elen && ev.kind == EV_INSTR_ENC) {
            e->elen = (uint8_t)ilen;
            e->enc = (uint32_t)i;
        }
        prev_pc = pc;
        prev_new = !e->known && (type == DR_DJUMP || type == DR_CJUMP || type == DR_DCALL || type == DR_TAKEN);
        i = ev.instr + 1 + ev.nmem;
    }
    for (size_t j = 0; j < lt.cap; j++) {
        dr_lfact *e = &lt.t[j];
        if (!e->used || e->known) continue;
        unsigned type = tclass(trz_ld_le16(in + (size_t)e->rec * DR_REC));
        uint8_t eb[16] = { 0 };
        uint32_t pat[DR_MAXMEM];
        for (unsigned q = 0; q * 8 < e->elen; q++) memcpy(eb + 8 * q, in + ((size_t)e->enc + q) * DR_REC + 4, 8);
        for (unsigned s = 0; s < e->nmem; s++) {
            const uint8_t *q = in + ((size_t)e->rec + 1 + s) * DR_REC;
            pat[s] = (uint32_t)trz_ld_le16(q) << 16 | trz_ld_le16(q + 2);
        }
        if (e->elen) { /* a target the encoding gives is not stated again */
            dr_fact f;
            memset(&f, 0, sizeof f);
            f.pc = e->pc;
            f.type = (uint8_t)type;
            f.len = e->len;
            dr_fact_from_enc(&f, eb, e->elen);
            if (f.target) e->tgt = 0;
        }
        uint8_t v[DR_FACT_MAX];
        add(ctx, e->pc, v, dr_fact_pack(v, type, e->len, e->nmem, eb, e->elen, pat, e->tgt));
    }
    free(lt.t);
    return TRZ_CODEC_OK;
}

/* The knowledge stream (drmemtrace.md, "Knowledge stream"): a chunk's new
 * facts by increasing PC, range-coded: the first PC direct, then each as
 * the previous fact's fall-through or its distance; the encoding with the
 * record model's byte model; type, length and pattern as a record with no
 * fact codes them; a stated target as its distance from the fall-through. */
#define DR_KNOW_VARIANT 0
#define DR_KNOW_MAX_FACTS (1u << 19) /* a stream never holds more (the container's store limit) */

static int dr_know_code(const trz_fact *f, size_t n, trz_buf *out, const uint8_t *p, size_t plen, trz_know_add_fn add,
                        void *ctx, const int enc)
{
    rc c;
    if (enc) rc_enc_init(&c, out);
    else rc_dec_init(&c, p, plen);
    if (rcd_direct(&c, enc, DR_KNOW_VARIANT, 8) != DR_KNOW_VARIANT) return TRZ_CODEC_UNSUPPORTED;
    uint64_t count = rcd_direct(&c, enc, (uint32_t)n, 32);
    if (!enc && (count == 0 || count > DR_KNOW_MAX_FACTS)) return TRZ_CODEC_CORRUPT;
    dr_model *m = dr_model_new_know(count);
    if (!m) return TRZ_CODEC_NOMEM;
    uint64_t pc = 0, next = 0;
    unsigned prev_enc = 0;
    int rc = TRZ_CODEC_OK;
    for (uint64_t i = 0; i < count && rc == TRZ_CODEC_OK; i++) {
        unsigned type = 0, len = 0, nmem = 0, elen = 0;
        uint8_t eb[16] = { 0 };
        uint32_t pat[DR_MAXMEM];
        uint64_t tgt = 0;
        if (enc) dr_fact_unpack(f[i].val, f[i].len, &type, &len, &nmem, eb, &elen, pat, &tgt);
        /* the PC */
        uint64_t key = enc ? f[i].key : 0;
        if (i == 0) pc = rcd_direct64(&c, enc, key);
        else if (rcd_cbit(&c, enc, &m->k_gap_eq[prev_enc], key == next, CLIM)) pc = next;
        else pc = next + (uint64_t)code_sint(&c, enc, &m->k_gap, 0, (int64_t)(key - next));
        /* the encoding */
        unsigned opid = 0;
        if (rcd_cbit(&c, enc, &m->k_has_enc[prev_enc], elen != 0, CLIM)) {
            elen = code_enc(m, &c, enc, eb, elen, pc);
            drx_info x;
            drx_parse(eb, elen, &x);
            m->prev_opid = x.opid;
            opid = x.opid | 0x8000;
        } else {
            elen = 0;
        }
        prev_enc = elen != 0;
        /* type, length and pattern */
        unsigned tctx = opid ? h32((uint64_t)opid << 1) >> 22 : 1024;
        unsigned sym = rcd_ctree(&c, enc, m->typ[tctx], 4, dr_type_sym[type], CLIM);
        if (sym > 10) { rc = TRZ_CODEC_CORRUPT; break; }
        type = dr_sym_type[sym];
        if (elen && rcd_cbit(&c, enc, &m->k_len_enc[0], len == elen, CLIM)) {
            len = elen;
        } else {
            unsigned ls = rcd_ctree(&c, enc, m->lenT[sym], 4, len < 16 ? len : 0, CLIM);
            len = ls ? ls : rcd_direct(&c, enc, len, 16);
        }
        if (rcd_cbit(&c, enc, &m->k_nopat[0], nmem == DR_NOPAT, CLIM)) {
            nmem = DR_NOPAT;
        } else {
            nmem = code_pattern(m, &c, enc, opid ? h32(opid) >> 23 : sym, pat, nmem);
            if (nmem > DR_MAXMEM) { rc = TRZ_CODEC_CORRUPT; break; }
        }
        /* a target the encoding does not give */
        next = pc + len;
        if (rcd_cbit(&c, enc, &m->k_has_t[sym], tgt != 0, CLIM)) {
            tgt = next + (uint64_t)code_sint(&c, enc, &m->k_tgt, 0, (int64_t)(tgt - next));
            if (!tgt) { rc = TRZ_CODEC_CORRUPT; break; }
        }
        if (!enc) {
            if (rc_dec_bad(&c)) { rc = TRZ_CODEC_CORRUPT; break; }
            uint8_t v[DR_FACT_MAX];
            add(ctx, pc, v, dr_fact_pack(v, type, len, nmem, eb, elen, pat, tgt));
        }
    }
    if (enc) rc_enc_flush(&c);
    else if (rc == TRZ_CODEC_OK && !rc_dec_ok(&c)) rc = TRZ_CODEC_CORRUPT;
    dr_model_free_know(m);
    return rc;
}

int dr_know_encode(const trz_know *k, const trz_fact *f, size_t n, int level, trz_buf *out)
{
    (void)k;
    (void)level; /* one form at every level */
    for (size_t i = 0; i < n; i++) { /* only facts learn writes */
        unsigned type, len, nmem, elen;
        uint8_t eb[16];
        uint32_t pat[DR_MAXMEM];
        uint64_t tgt;
        if (!dr_fact_unpack(f[i].val, f[i].len, &type, &len, &nmem, eb, &elen, pat, &tgt) || (i && f[i].key <= f[i - 1].key))
            return TRZ_CODEC_UNSUPPORTED;
    }
    if (!n || n > DR_KNOW_MAX_FACTS) return TRZ_CODEC_UNSUPPORTED;
    return dr_know_code(f, n, out, NULL, 0, NULL, NULL, 1);
}

int dr_know_decode(const trz_know *k, const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx)
{
    (void)k;
    return dr_know_code(NULL, 0, NULL, p, n, add, ctx, 0);
}

