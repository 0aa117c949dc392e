/* dr_model.c - the drmemtrace codec's model made and freed (table sizes
 * by the chunk's record count, drmemtrace.md "Model state"), and the
 * static facts' value form (the member's knowledge, "Knowledge"). */
#include "dr_model.h"

/* ---- tables ---------------------------------------------------------------- */

#define T_DYN ((size_t)sizeof(dr_pcdyn) << m->dyn_bits)
#define T_SLOT ((size_t)sizeof(dr_slot) << m->slot_bits)
#define T_BYTES ((size_t)sizeof(rc_cnt) << m->byte_bits)
#define T_BR ((size_t)4 * sizeof(rc_prob) << m->br_bits)
#define T_MT ((size_t)sizeof(uint32_t) << m->mt_bits)

/* keep: the blocks go to the pool for a model of the same sizes, else
 * they are unmapped now (a model of other sizes would not take them, and
 * the pool would hold them beside its own: the last, shorter chunk of a
 * trace took 7 MB more at the peak). */
static void model_free(dr_model *m, int keep)
{
    if (!m) return;
    void (*give)(void *, size_t) = keep ? trz_big_free : trz_big_release;
    facts_free(&m->facts);
    if (m->dyn) give(m->dyn, T_DYN);
    if (m->slot) give(m->slot, T_SLOT);
    if (m->bytes) give(m->bytes, T_BYTES);
    if (m->bim) give(m->bim, T_BR);
    if (m->mtab) give(m->mtab, T_MT);
    if (m->evk) give(m->evk, m->chain ? m->wcap : m->nrec);
    if (m->win) give(m->win, m->wcap * DR_REC);
    free(m);
}

void dr_model_free(dr_model *m) { model_free(m, 1); }

/* Every small model at its start. */
static void model_init_small(dr_model *m)
{
    /* every count state at 1/2: those from ev to bw as one run (the
     * integer models among them are then set as rc_prob) */
    rc_cnt_fill(&m->ev[0][0], (size_t)((uint8_t *)&m->bw - (uint8_t *)&m->ev[0][0]) / sizeof(rc_cnt));
    rc_init(&m->pc_d[0].len[0][0], sizeof m->pc_d / (sizeof(rc_prob)));
    rc_init(&m->bt_d[0].len[0][0], sizeof m->bt_d / (sizeof(rc_prob)));
    rc_init(&m->mk_d[0].len[0][0], sizeof m->mk_d / (sizeof(rc_prob)));
    rc_init(&m->mem_d[0].len[0][0], sizeof m->mem_d / (sizeof(rc_prob)));
    rc_init(&m->mem_n[0].len[0][0], sizeof m->mem_n / (sizeof(rc_prob)));
    rc_init(&m->raw_d.len[0][0], sizeof m->raw_d / (sizeof(rc_prob)));
    rc_init(&m->run_n[0].len[0][0], sizeof m->run_n / (sizeof(rc_prob)));
    rc_init(&m->k_gap.len[0][0], sizeof m->k_gap / (sizeof(rc_prob)));
    rc_init(&m->k_tgt.len[0][0], sizeof m->k_tgt / (sizeof(rc_prob)));
    for (int k = 0; k < 5; k++) m->bw[k] = 1 << 14;
    for (int k = 0; k < DRX_NFIELD * 4; k++)
        for (int j = 0; j < NBC; j++) m->ew[k][j] = 65536 / 3;
    rc_stretch_init(m->str);
    m->prev_ev = EV_RAW;
    m->gen = 1;
}

/* Tables for a chunk of nrec records: sizes grow with the chunk and are
 * part of the format (drmemtrace.md); the big ones come from the block
 * pool, which keeps them from one chunk to the next. */
/* The bit length of n. */
static int bits_of(uint64_t n)
{
    int L = 0;
    while (L < 40 && (n >> L)) L++;
    return L;
}

/* The match table's default size in bits for a chunk of nrec records. */
unsigned dr_mb_default(uint64_t nrec) { return clampu(bits_of(nrec) - 2, 10, 19); }

/* The records a chain's window keeps for a match table of mb bits
 * (drmemtrace.md, "Chains": part of the format). */
static size_t dr_window(unsigned mb) { return (size_t)1 << clampu((int)mb + 2, 12, 21); }

void dr_model_drop(dr_model *m, uint64_t nrec, unsigned mb, int chain)
{
    model_free(m, m && bits_of(nrec) == bits_of(m->nrec_made) && mb == m->mt_bits && chain == m->chain);
}

/* mb: the match table's size in bits (0: no match model); chain: the
 * model of a chain (its window and record marks are made by
 * dr_chain_begin). */
dr_model *dr_model_new(uint64_t nrec, unsigned mb, int chain)
{
    dr_model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    int L = bits_of(nrec);
    m->nrec_made = nrec;
    m->dyn_bits = clampu(L - 4, 10, 16);
    m->slot_bits = clampu(L - 3, 10, 16);
    m->byte_bits = clampu(L + 3, 16, 21);
    m->br_bits = clampu(L - 3, 10, 16);
    m->mt_bits = mb;
    int match = mb != 0;
    m->match = match;
    m->chain = chain;
    if (chain) {
        m->hmax = match ? dr_window(mb) : 0;
        if (match) {
            m->mtab = trz_big_malloc(T_MT);
            if (!m->mtab) { dr_model_free(m); return NULL; }
            memset(m->mtab, 0, T_MT);
        }
    } else if (match) {
        m->mtab = trz_big_malloc(T_MT);
        m->nrec = (size_t)nrec;
        m->evk = trz_big_malloc(m->nrec);
        if (!m->mtab || !m->evk) { dr_model_free(m); return NULL; }
        memset(m->mtab, 0, T_MT);
    }
    m->dyn = trz_big_malloc(T_DYN);
    m->slot = trz_big_malloc(T_SLOT);
    m->bytes = trz_big_malloc(T_BYTES);
    m->bim = trz_big_malloc(T_BR);
    if (!m->dyn || !m->slot || !m->bytes || !m->bim || facts_init(&m->facts)) { dr_model_free(m); return NULL; }
    memset(m->dyn, 0, T_DYN);
    memset(m->slot, 0, T_SLOT);
    m->gs = m->bim + ((size_t)1 << m->br_bits);
    m->gl = m->gs + ((size_t)1 << m->br_bits);
    m->loc = m->gl + ((size_t)1 << m->br_bits);
    rc_cnt_fill(m->bytes, (size_t)1 << m->byte_bits);
    rc_init(m->bim, (size_t)4 << m->br_bits);
    model_init_small(m);
    return m;
}

uint8_t *dr_chain_begin(dr_model *m, size_t nrec)
{
    size_t need = m->hn + nrec;
    if (need > m->wcap) {
        /* room for the whole window and this chunk at once: a chain's
         * chunks are of one size (but its last), so this happens once.
         * Growing by realloc held the old and the new buffer at the peak,
         * and the heap kept the old ones resident; a block of its own is
         * faulted in only as the window fills. */
        size_t cap = m->hmax + nrec > need ? m->hmax + nrec : need;
        uint8_t *w = trz_big_malloc(cap * DR_REC), *e = m->match ? trz_big_malloc(cap) : NULL;
        if (!w || (m->match && !e)) {
            trz_big_release(w, cap * DR_REC);
            trz_big_release(e, cap);
            return NULL;
        }
        if (m->hn) memcpy(w, m->win, m->hn * DR_REC);
        if (m->hn && m->match) memcpy(e, m->evk, m->hn);
        trz_big_free(m->win, m->wcap * DR_REC);
        trz_big_free(m->evk, m->wcap);
        m->win = w;
        m->evk = e;
        m->wcap = cap;
    }
    /* the marks of the chunk's records start cleared (a prediction may
     * land on a record that starts no event) */
    if (m->match) memset(m->evk + m->hn, 0, nrec);
    return m->win + m->hn * DR_REC;
}

void dr_chain_end(dr_model *m, size_t nrec)
{
    size_t total = m->hn + nrec, keep = total < m->hmax ? total : m->hmax, drop = total - keep;
    if (drop) {
        memmove(m->win, m->win + drop * DR_REC, keep * DR_REC);
        if (m->match) memmove(m->evk, m->evk + drop, keep);
        m->mp = m->mp > drop ? m->mp - drop : 0;
    }
    m->hn = keep;
    m->gpos += drop;
}

/* The model of a knowledge stream of n facts: the encoding-byte table and
 * the small models only, on the C heap (given back after the stream, not
 * kept with the chunk models' blocks). */
dr_model *dr_model_new_know(uint64_t n)
{
    dr_model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    int L = 0;
    while (L < 40 && (n >> L)) L++;
    m->byte_bits = clampu(L + 4, 16, 21);
    m->bytes = malloc(T_BYTES);
    if (!m->bytes) { free(m); return NULL; }
    rc_cnt_fill(m->bytes, (size_t)1 << m->byte_bits);
    model_init_small(m);
    return m;
}

void dr_model_free_know(dr_model *m)
{
    if (!m) return;
    free(m->bytes);
    free(m);
}


/* Instruction types as a 4-bit symbol: 48 and 49 are one (the taken bit
 * follows), 15 = another value. */
const uint8_t dr_type_sym[DR_NTYPES] = {
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 0, 1, 2, 3, 4, 5, 6, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15,
    7, 8, 9, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 10, 10,
};
const uint8_t dr_sym_type[11] = { 10, 11, 12, 13, 14, 15, 16, 29, 30, 31, 48 };

/* The encoding's static fields a fact keeps: opcode id, memory operand's
 * base register and displacement, a direct branch's target. */
void dr_fact_from_enc(dr_fact *f, const uint8_t *b, unsigned n)
{
    drx_info x;
    drx_parse(b, n, &x);
    f->opid = (uint16_t)(x.opid | 0x8000);
    f->mbase = 255;
    f->mdisp = 0;
    if (x.has_modrm && x.modrm >> 6 != 3) {
        unsigned rm = x.modrm & 7;
        if (x.riprel) f->mbase = 16;
        else if (rm != 4) f->mbase = (uint8_t)rm;
        else if (x.modrm >> 6 != 0 || 1) {
            unsigned sibo = (unsigned)x.disp_off - 1;
            if (sibo < n && (b[sibo] >> 3 & 7) == 4 && (b[sibo] & 7) != 5) f->mbase = b[sibo] & 7;
        }
        int32_t d = 0;
        if (x.disp_n == 1 && x.disp_off < n) d = (int8_t)b[x.disp_off];
        else if (x.disp_n == 4 && x.disp_off + 4u <= n) d = (int32_t)trz_ld_le32(b + x.disp_off);
        f->mdisp = d;
    }
    unsigned t = f->type;
    if ((t == DR_DJUMP || t == DR_CJUMP || t == DR_DCALL || t == DR_TAKEN) && x.imm_off + x.imm_n == n && n == f->len) {
        int64_t rel = x.imm_n == 1 ? (int8_t)b[x.imm_off] : x.imm_n == 4 ? (int32_t)trz_ld_le32(b + x.imm_off) : 0;
        if (x.imm_n == 1 || x.imm_n == 4) f->target = f->pc + f->len + (uint64_t)rel;
    }
}


/* The value of a fact; returns its length.  tgt: 0 for none. */
size_t dr_fact_pack(uint8_t *v, unsigned type, unsigned len, unsigned nmem, const uint8_t *eb, unsigned elen,
                        const uint32_t *pat, uint64_t tgt)
{
    v[0] = (uint8_t)type;
    trz_st_le16(v + 1, (uint16_t)len);
    v[3] = (uint8_t)nmem;
    v[4] = (uint8_t)elen;
    size_t n = DR_FACT_HDR;
    memcpy(v + n, eb, elen);
    n += elen;
    for (unsigned s = 0; nmem != DR_NOPAT && s < nmem; s++, n += 3) {
        v[n] = (uint8_t)(pat[s] >> 16);
        trz_st_le16(v + n + 1, (uint16_t)pat[s]);
    }
    if (tgt) trz_st_le64(v + n, tgt), n += 8;
    return n;
}

/* A fact's fields from its value, or 0 when the bytes are none the learn
 * step writes (the PC then has no fact). */
int dr_fact_unpack(const uint8_t *v, size_t n, unsigned *type, unsigned *len, unsigned *nmem, uint8_t *eb,
                       unsigned *elen, uint32_t *pat, uint64_t *tgt)
{
    if (n < DR_FACT_HDR) return 0;
    *type = v[0];
    *len = trz_ld_le16(v + 1);
    *nmem = v[3];
    *elen = v[4];
    unsigned np = *nmem == DR_NOPAT ? 0 : *nmem;
    if (*type >= DR_NTYPES || dr_type_sym[*type] > 10 || *type == DR_UNTAKEN || np > DR_MAXMEM || *elen > 15) return 0;
    size_t want = DR_FACT_HDR + *elen + 3 * (size_t)np;
    if (n != want && n != want + 8) return 0;
    memset(eb, 0, 16);
    memcpy(eb, v + DR_FACT_HDR, *elen);
    for (unsigned s = 0; s < np; s++) {
        const uint8_t *q = v + DR_FACT_HDR + *elen + 3 * s;
        if (!dr_is_mem(q[0])) return 0;
        pat[s] = (uint32_t)q[0] << 16 | trz_ld_le16(q + 1);
    }
    *tgt = n == want + 8 ? trz_ld_le64(v + want) : 0;
    return 1;
}

/* The fact of pc: the chunk's, else the member's (copied into the chunk's
 * table on first use), else NULL. */
const dr_fact *dr_fact_get(dr_model *m, uint64_t pc)
{
    const dr_fact *f = facts_find(&m->facts, pc);
    if (f || !m->know) return f;
    size_t n;
    const uint8_t *v = trz_know_get(m->know, pc, &n);
    dr_fact nf;
    uint32_t pat[DR_MAXMEM];
    unsigned type, len, nmem, elen;
    uint64_t tgt;
    memset(&nf, 0, sizeof nf);
    if (!v || !dr_fact_unpack(v, n, &type, &len, &nmem, nf.enc, &elen, pat, &tgt)) return NULL;
    nf.pc = pc;
    nf.type = (uint8_t)type;
    nf.len = (uint16_t)len;
    nf.nmem = (uint8_t)nmem;
    nf.mbase = 255;
    if (elen) {
        nf.enc_n = (uint8_t)elen;
        dr_fact_from_enc(&nf, nf.enc, elen);
    }
    if (tgt) nf.target = tgt;
    int rc = facts_add(&m->facts, &nf, pat);
    if (rc < 0) m->oom = 1;
    return rc ? NULL : &m->facts.f[m->facts.n - 1];
}

