/* byu_cm.c - the BYU codec's arithmetic-coded paths (byu.md): the range
 * and mix variants' context-mixing model (bus_cm.h) and range-fast's fast
 * model (bus_fast.h), each record loop with all it inlines. */
#include "byu_int.h"
#include "bus_match.h"

/* ---- arithmetic-coded path: the range and mix variants ------------------------ */

/* Variant 6 in a chain: the match model (bus_match.h). */

struct byu_cm {
    bus_acm a;
    cm_p same, proc[256];
    cm_p kind[KC][KC][8];            /* min(kind id, 7) by the last two ids */
    cm_p kind2[KC][KC][KC][8];       /* by the last three ids */
    cm_p kind3[KC][BUS_NB][7][8];    /* by the last id, its address code bucket, its time bucket / 3 */
    int32_t kw[8][CM_MAXIN];
    cm_p khi[256];                   /* ids from 7 up (255 = new) */
    cm_p kesc[3][256];
    cm_p tq[KC][KC][TB_N][128];      /* time quotient by the kind ids now and before, last time bucket */
    cm_p tq2[KC][BUS_NB][TB_N][128]; /* by kind id, address code bucket, last time bucket */
    cm_p tq3[KC][KC][KC][TB_N / 4][128]; /* by three kind ids, the time bucket before last / 4 */
    int32_t tw[KC][128][CM_MAXIN];
    cm_p tr[KC][128][8];             /* low 3 bits of time + 1 by kind id and quotient */
    cm_gamma tesc[AM_NCLS];
    int32_t trw[KC][8][CM_MAXIN];    /* mixer weights of the low time bits */
    uint8_t k1, k2, k3, tb, tb2, lastproc; /* ids of this (after the kind) and earlier records, capped */
    uint8_t lo1, lo2;                /* low 3 bits of time + 1 of the last two records (below the escape) */
    uint8_t lastq[65536];            /* the time quotient last seen at a code position (hashed) */
    uint16_t apk[KC][KC][8 * CM_APM_N];       /* refinement of the kind by the last two ids */
    uint16_t apt[KC][BUS_NB][128 * CM_APM_N]; /* of the time quotient by kind id and address code bucket */
    /* the match model (byu_model.match): on (mt) for variant 6 in a chain */
    int mt;
    bus_match *match;
};

static void cm_model_init(byu_cm *m)
{
    bus_acm_init(&m->a);
    m->same = CM_P0;
    cm_init_probs(m->proc, 256);
    cm_init_probs(&m->kind[0][0][0], sizeof m->kind / sizeof(cm_p));
    cm_init_probs(&m->kind2[0][0][0][0], sizeof m->kind2 / sizeof(cm_p));
    cm_init_probs(&m->kind3[0][0][0][0], sizeof m->kind3 / sizeof(cm_p));
    cm_init_weights(m->kw, 8, W0);
    cm_init_probs(m->khi, 256);
    cm_init_probs(&m->kesc[0][0], sizeof m->kesc / sizeof(cm_p));
    cm_init_probs(&m->tq[0][0][0][0], sizeof m->tq / sizeof(cm_p));
    cm_init_probs(&m->tq2[0][0][0][0], sizeof m->tq2 / sizeof(cm_p));
    cm_init_probs(&m->tq3[0][0][0][0][0], sizeof m->tq3 / sizeof(cm_p));
    cm_init_weights(&m->tw[0][0], KC * 128, W0);
    cm_init_probs(&m->tr[0][0][0], sizeof m->tr / sizeof(cm_p));
    for (int i = 0; i < AM_NCLS; i++) cm_gamma_init(&m->tesc[i]);
    cm_init_weights(&m->trw[0][0], KC * 8, TRW0);
    m->k1 = m->k2 = m->k3 = m->tb = m->tb2 = m->lastproc = 0;
    m->lo1 = m->lo2 = 0;
    memset(m->lastq, 0, sizeof m->lastq);
    cm_apm_init(&m->apk[0][0][0], KC * KC * 8);
    cm_apm_init(&m->apt[0][0][0], KC * BUS_NB * 128);
}

static int mt_guess(byu_cm *m, cm_coder *c, uint8_t *r) { return bus_match_guess(m->match, c, r, 12); }

/* After each record r: the match model's history and guess. */
static void mt_next(byu_cm *m, const uint8_t *r) { bus_match_next(m->match, r, 12, byu_mt_hash(r)); }

/* proc byte: "same as the last record" bit, else the byte. */
static int cm_proc(byu_cm *m, cm_coder *c, uint8_t *r)
{
    if (cm_bit(c, &m->same, r[7] == m->lastproc)) r[7] = m->lastproc;
    else if ((r[7] = (uint8_t)cm_tree(c, m->proc, 8, r[7])) == m->lastproc) return -1;
    m->lastproc = r[7];
    return 0;
}

/* Kind id (dictionary as in the stream path), 255 = a new kind, its three
 * bytes follow.  min(id, 7) with three context sets mixed: the kind
 * sequence alone (two and three back) and the last kind with how its
 * address and time went; 7 = the id follows in 8 bits. */
static int cm_kind(byu_state *s, byu_cm *m, cm_coder *c, const am_proc *p, uint8_t *r)
{
    unsigned id = K_ESC;
    if (!c->dec) {
        uint16_t *e = kind_slot(s, rec_tup(r));
        if (*e) id = *e - 1u;
    }
    cm_p *ts[3] = { m->kind[m->k1][m->k2], m->kind2[m->k1][m->k2][m->k3],
                    m->kind3[m->k1][m->a.lastany][m->tb < 18 ? m->tb / 3 : 6] };
    uint32_t sd[4] = { 0, 0, 0, 0 };
    if (c->mix) {
        sd[0] = bus_pck(p, 100 + m->k1);
        sd[1] = bus_pck(p, 0x20000 + m->k1 * 64 + m->k2 * 8 + m->k3);
        sd[2] = bus_pck(p, 0x60000 + m->k1 * 32 + m->tb);
        sd[3] = bus_ack2(p->a1, p->a2, 0x100 + m->k1);
    }
    unsigned lo = cm_mtree_ha(c, ts, 3, m->a.hx, m->a.hbits, sd, 4, m->kw, 3, id < 7 ? id : 7,
                              m->apk[m->k1][m->k2]);
    id = lo < 7 ? lo : cm_tree(c, m->khi, 8, id);
    if (id < 7 && lo == 7) return -1; /* ids below 7 use the short form */
    if (id == K_ESC) {
        for (int i = 0; i < 3; i++) r[4 + i] = (uint8_t)cm_tree(c, m->kesc[i], 8, r[4 + i]);
        if (c->dec && *kind_slot(s, rec_tup(r))) return -1; /* a known kind must use its id */
        kind_add(s, rec_tup(r));
    } else if (id < s->nkinds) {
        uint32_t tup = s->kinds[id];
        r[4] = (uint8_t)tup;
        r[5] = (uint8_t)(tup >> 8);
        r[6] = (uint8_t)(tup >> 16);
    } else return -1;
    m->k3 = m->k2;
    m->k2 = m->k1;
    m->k1 = (uint8_t)(id < KC - 1 ? id : KC - 1);
    return 0;
}

/* Time: v = t + 1 split as the quotient q = v >> 3 (7-bit tree, mixed from
 * three context sets; 127 escapes) and the low 3 bits (3-bit tree): bus
 * clocks make times cluster at multiples of 8 give or take one, and + 1
 * keeps each cluster inside one quotient. */
static int cm_time(byu_cm *m, cm_coder *c, const am_proc *p, unsigned cls, uint8_t *r)
{
    uint32_t t = trz_ld_le32(r + 8), v = t + 1;
    cm_p *ts[3] = { m->tq[m->k1][m->k2][m->tb], m->tq2[m->k1][m->a.lastany][m->tb],
                    m->tq3[m->k1][m->k2][m->k3][m->tb2 / 4] };
    uint32_t sd[5] = { 0, 0, 0, 0, 0 };
    uint8_t *lq = NULL;
    if (c->mix) {
        lq = &m->lastq[bus_pck(p, 777 + m->k1) >> 16];
        sd[0] = bus_pck(p, 300 + m->k1 * 8 + m->k2);
        sd[1] = bus_pck(p, 0x10000 + m->k1 * 256 + m->tb * 8 + m->a.lastany);
        sd[2] = bus_pck(p, 0x50000 + m->k1 * 256 + *lq);
        sd[3] = bus_pck(p, 0x70000 + m->k1 * 1024 + m->tb * 32 + m->tb2);
        sd[4] = bus_ack2(p->a1, p->a2, 0x200 + m->k1);
    }
    uint32_t q = cm_mtree_ha(c, ts, 3, m->a.hx, m->a.hbits, sd, 5, m->tw[m->k1], 7, t < TQ_MAX ? v >> 3 : TQ_ESC,
                             m->apt[m->k1][m->a.lastany]);
    if (lq) *lq = (uint8_t)q;
    if (q == TQ_ESC) {
        uint32_t e = cm_gamma_code(c, &m->tesc[cls], t - TQ_MAX);
        if (e > 0xffffffffu - TQ_MAX) return -1;
        t = e + TQ_MAX;
    } else {
        CM_FIELD(c, 8);
        cm_p *tl[1] = { m->tr[m->k1][q] };
        uint32_t sl[2] = { cm_mix32(0x5000u + m->lo1 * 2048u + m->lo2 * 256u + q), 0 };
        if (c->mix) sl[1] = bus_pck(p, 0xC0000 + q);
        v = q << 3 | cm_mtree_h(c, tl, 1, m->a.hx, m->a.hbits, sl, 2, m->trw[m->k1], 3, v & 7);
        if (v == 0) return -1; /* t + 1 is never 0 below the escape */
        m->lo2 = m->lo1;
        m->lo1 = (uint8_t)(v & 7);
        t = v - 1;
    }
    trz_st_le32(r + 8, t);
    m->tb2 = m->tb;
    m->tb = (uint8_t)(q / 2 < TB_N ? q / 2 : TB_N - 1);
    return 0;
}

static int cm_fields(byu_state *s, byu_cm *m, cm_coder *c, uint8_t *r);

/* One record, both directions: r holds the record (encoding) or receives
 * it (decoding).  A record the match model predicts is that bit alone:
 * the models below neither code nor learn it. */
static int cm_record(byu_state *s, byu_cm *m, cm_coder *c, uint8_t *r)
{
    if (!m->mt) return cm_fields(s, m, c, r);
    int rc = mt_guess(m, c, r) ? TRZ_CODEC_OK : cm_fields(s, m, c, r);
    if (rc == TRZ_CODEC_OK) mt_next(m, r);
    return rc;
}

/* The record's fields through the models. */
static int cm_fields(byu_state *s, byu_cm *m, cm_coder *c, uint8_t *r)
{
    CM_FIELD(c, 0);
    if (cm_proc(m, c, r) != 0) return TRZ_CODEC_CORRUPT;
    am_proc *p = st_proc(s, r[7]);
    if (!p) return TRZ_CODEC_NOMEM;
    CM_FIELD(c, 1);
    if (cm_kind(s, m, c, p, r) != 0) return TRZ_CODEC_CORRUPT;
    CM_FIELD(c, 2);
    unsigned cls = req_class(r[4]);
    int bad = 0;
    uint32_t addr = bus_addr(c, &m->a, &s->am, p, cls, trz_ld_le32(r), m->k1 * KC + m->k2 + m->tb * 64u, &bad);
    if (bad) return TRZ_CODEC_CORRUPT;
    am_update(&s->am, p, cls, addr, r[5]);
    trz_st_le32(r, addr);
    CM_FIELD(c, 5);
    if (cm_time(m, c, p, cls, r) != 0) return TRZ_CODEC_CORRUPT;
    return TRZ_CODEC_OK;
}

BUS_CM_LOOPS(cm_enc_loop, cm_dec_loop, cm_record, 12, byu_state, byu_cm)

/* The state and the range or mix model ready for a chunk of nrec records;
 * in a chain (chain = 1), the chain's where it holds it.  0, or -1 on no
 * memory. */
static int cm_open(byu_model *m, uint64_t nrec, int mix, int chain)
{
    if (!chain || !m->st.live) m->cm_live = m->hx_live = m->fm_live = m->mt_live = 0;
    if (st_open(&m->st, nrec, 0, chain) != 0) return -1;
    if (!m->cm && !(m->cm = trz_big_calloc(sizeof *m->cm))) return -1;
    if (!chain || !m->cm_live) {
        cm_model_init(m->cm);
        m->cm_live = (uint8_t)chain;
        m->hx_live = 0;
        if (!chain || !m->mt_live) bus_match_reset(&m->match); /* unless a feed started it */
        m->mt_live = (uint8_t)chain;
    }
    byu_cm *cm = m->cm;
    cm->match = &m->match;
    cm->mt = chain && mix;
    if (cm->mt) { /* made at the first chunk: tab zeroed, as bus_match_reset leaves it */
        if (bus_match_alloc(&m->match, 12)) return -1;
    }
    if (!mix || (chain && m->hx_live)) return 0;
    m->hx_live = (uint8_t)chain;
    return bus_hx_open(&m->cm->a, nrec);
}

/* After a chunk: its state kept for the chain's next one (keep), or the
 * chain's state ended. */
static void arith_close(byu_model *m, int keep)
{
    st_close(&m->st, keep);
    if (!keep) m->cm_live = m->hx_live = m->fm_live = m->mt_live = 0;
}

/* Encode with the mixed model (mix) or the unmixed one (the trial's);
 * stop: as in BUS_CM_LOOPS. */
static int cm_encode_to(const trz_enc_args *a, byu_model *m, int mix, size_t stop)
{
    int rc = cm_open(m, a->nrec, mix, a->chain) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK) {
        bus_set_refs(&m->cm->a, mix && m->lv->all_refs);
        trz_buf *out = &a->streams[S_CM];
        bus_cm_head(out, mix ? BUS_CM_MIX_RC : BUS_CM_VERSION, a->nrec); /* unmixed: a trial's */
        cm_enc_init(&m->coder, out);
        m->coder.mix = mix;
        rc = cm_enc_loop(&m->st, m->cm, &m->coder, a, out, stop);
    }
    arith_close(m, a->chain && rc == TRZ_CODEC_OK);
    return rc;
}

/* cm_encode_to as bus_pick_cm calls it: arg is the model. */
static int cm_trial(const trz_enc_args *a, const void *arg, int mix, size_t stop)
{
    return cm_encode_to(a, (byu_model *)arg, mix, stop);
}

/* Decoder of the range and mix variants (the version byte says which model
 * and which coder). */
static int cm_decode(const trz_dec_args *a, trz_model *tm)
{
    byu_model *m = (byu_model *)tm;
    unsigned ver;
    trz_rd hd;
    int rc = bus_cm_open_stream(a, S_CM, &ver, &hd);
    if (rc != TRZ_CODEC_OK) return rc;
    rc = bus_cm_dec_start(&m->coder, ver, hd.p, trz_rd_left(&hd));
    if (rc != TRZ_CODEC_OK) return rc;
    rc = cm_open(m, a->nrec, m->coder.mix, a->chain) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK) rc = cm_dec_loop(&m->st, m->cm, &m->coder, a);
    arith_close(m, a->chain && rc == TRZ_CODEC_OK);
    return rc;
}

/* ---- fast model (bus_fast.h): the range-fast variant ------------------------- */

/* The same fields as above: the kind, the address code and the time
 * quotient first guessed from the record's slot (bf_slot), the rest with
 * one probability each from a dense context. */
struct byu_fm {
    bf_acm a;
    bf_slots slots;
    rc_prob same;
    bf_p proc[256];
    bf_p ksame[4][KC][KC];         /* "the slot's kind again" by its hist and the last two ids */
    bf_p kind[KC][KC][KC][8];      /* min(kind id, 7) by the last three ids */
    bf_p khi[256];                 /* ids from 7 up (255 = new) */
    bf_p kesc[3][256];
    bf_p tsame[4][KC][TB_N];       /* "the slot's time quotient again" by its hist, kind id and last time bucket */
    bf_p tq[KC][KC][TB_N][128];    /* time quotient by the kind ids now and before, last time bucket */
    bf_p tr[KC][128][8];           /* low 3 bits of time + 1 by kind id and quotient */
    rc_prob tlen[AM_NCLS][RC_ULEN], tbits[AM_NCLS][RC_UBITS]; /* escaped times */
    uint8_t k1, k2, k3, tb, lastproc;
};

/* The state and the fast model ready for a chunk of nrec records; in a
 * chain (chain = 1), the chain's where it holds it.  0, or -1 on no
 * memory. */
static int fm_open(byu_model *mm, uint64_t nrec, int chain)
{
    if (!chain || !mm->st.live) mm->cm_live = mm->hx_live = mm->fm_live = mm->mt_live = 0;
    if (st_open(&mm->st, nrec, 0, chain) != 0) return -1;
    if (!mm->fm && !(mm->fm = trz_big_calloc(sizeof *mm->fm))) return -1;
    if (chain && mm->fm_live) return 0;
    mm->fm_live = (uint8_t)chain;
    byu_fm *m = mm->fm;
    if (bf_slots_open(&m->slots, nrec)) return -1;
    bf_acm_init(&m->a);
    m->same = RC_P0;
    bf_init(m->proc, 256);
    bf_init(&m->ksame[0][0][0], sizeof m->ksame / sizeof(bf_p));
    bf_init(&m->kind[0][0][0][0], sizeof m->kind / sizeof(bf_p));
    bf_init(m->khi, 256);
    bf_init(&m->kesc[0][0], sizeof m->kesc / sizeof(bf_p));
    bf_init(&m->tsame[0][0][0], sizeof m->tsame / sizeof(bf_p));
    bf_init(&m->tq[0][0][0][0], sizeof m->tq / sizeof(bf_p));
    bf_init(&m->tr[0][0][0], sizeof m->tr / sizeof(bf_p));
    rc_init(&m->tlen[0][0], sizeof m->tlen / sizeof(rc_prob));
    rc_init(&m->tbits[0][0], sizeof m->tbits / sizeof(rc_prob));
    m->k1 = m->k2 = m->k3 = m->tb = m->lastproc = 0;
    return 0;
}

TRZ_FORCE_INLINE int fm_record(byu_state *s, byu_fm *m, rc *c, uint8_t *r)
{
    /* processor: "same as the last record", else the byte */
    if (rc_bit(c, &m->same, r[7] == m->lastproc)) r[7] = m->lastproc;
    else if ((r[7] = (uint8_t)bf_tree(c, m->proc, 8, r[7])) == m->lastproc) return TRZ_CODEC_CORRUPT;
    m->lastproc = r[7];
    am_proc *p = st_proc(s, r[7]);
    if (!p) return TRZ_CODEC_NOMEM;
    bf_slot *sl = bf_slot_at(&m->slots, p);

    BF_FIELD(1);
    /* kind id (as cm_kind): the slot's again, or min(id, 7), or the id */
    unsigned id = K_ESC;
    if (!c->dec) {
        uint16_t *e = kind_slot(s, rec_tup(r));
        if (*e) id = *e - 1u;
    }
    int hit = BF_BIT(c, &m->ksame[bf_h(sl, 0)][m->k1][m->k2], id == sl->kind);
    bf_hit(sl, 0, hit);
    if (hit) id = sl->kind;
    else {
        unsigned lo = bf_tree(c, m->kind[m->k1][m->k2][m->k3], 3, id < 7 ? id : 7);
        id = lo < 7 ? lo : bf_tree(c, m->khi, 8, id);
        if (id < 7 && lo == 7) return TRZ_CODEC_CORRUPT; /* ids below 7 use the short form */
        if (id == sl->kind) return TRZ_CODEC_CORRUPT;    /* the slot's kind uses the guess */
        sl->kind = (uint8_t)id;
    }
    if (id == K_ESC) {
        for (int i = 0; i < 3; i++) r[4 + i] = (uint8_t)bf_tree(c, m->kesc[i], 8, r[4 + i]);
        if (c->dec && *kind_slot(s, rec_tup(r))) return TRZ_CODEC_CORRUPT; /* a known kind must use its id */
        kind_add(s, rec_tup(r));
        uint16_t *e = kind_slot(s, rec_tup(r)); /* the next time here it is a known kind */
        sl->kind = (uint8_t)(*e ? *e - 1u : K_ESC);
    } else if (id < s->nkinds) {
        uint32_t tup = s->kinds[id];
        r[4] = (uint8_t)tup;
        r[5] = (uint8_t)(tup >> 8);
        r[6] = (uint8_t)(tup >> 16);
    } else return TRZ_CODEC_CORRUPT;
    m->k3 = m->k2;
    m->k2 = m->k1;
    m->k1 = (uint8_t)(id < KC - 1 ? id : KC - 1);

    /* address */
    unsigned cls = req_class(r[4]);
    int bad = 0;
    uint32_t addr = bf_addr(c, &m->a, &s->am, p, sl, cls, trz_ld_le32(r), &bad);
    if (bad) return TRZ_CODEC_CORRUPT;
    am_update(&s->am, p, cls, addr, r[5]);
    trz_st_le32(r, addr);

    BF_FIELD(6);
    /* time (as cm_time): the quotient of t + 1 by 8 (the slot's again, or
     * the quotient), then its low 3 bits */
    uint32_t t = trz_ld_le32(r + 8), v = t + 1;
    uint32_t q = t < TQ_MAX ? v >> 3 : TQ_ESC;
    hit = BF_BIT(c, &m->tsame[bf_h(sl, 2)][m->k1][m->tb], q == sl->q);
    bf_hit(sl, 2, hit);
    if (hit) q = sl->q;
    else {
        q = bf_tree(c, m->tq[m->k1][m->k2][m->tb], 7, q);
        if (q == sl->q) return TRZ_CODEC_CORRUPT; /* the slot's quotient uses the guess */
        sl->q = (uint8_t)q;
    }
    if (q == TQ_ESC) {
        uint64_t e = rc_uint(c, m->tlen[cls], m->tbits[cls], t - TQ_MAX);
        if (e > 0xffffffffu - TQ_MAX) return TRZ_CODEC_CORRUPT;
        t = (uint32_t)e + TQ_MAX;
    } else {
        BF_FIELD(7);
        v = q << 3 | bf_tree(c, m->tr[m->k1][q], 3, v & 7);
        if (v == 0) return TRZ_CODEC_CORRUPT; /* t + 1 is never 0 below the escape */
        t = v - 1;
    }
    trz_st_le32(r + 8, t);
    m->tb = (uint8_t)(q / 2 < TB_N ? q / 2 : TB_N - 1);
    return TRZ_CODEC_OK;
}

BUS_FAST_LOOPS(fm_enc_loop, fm_dec_loop, fm_record, 12, byu_state, byu_fm)

/* In a chain, fm_enc_loop's test on the chunk's prefix as a trial of its
 * own, coded with the trials' model t as a chunk alone: the chunk is then
 * coded from the chain's state with the path it chose.  TRZ_CODEC_OK,
 * BUS_FAST_NOGAIN or an error code. */
static int fm_trial(const trz_enc_args *a, byu_model *t, size_t zsz)
{
    trz_buf out = { 0 };
    trz_enc_args b = bus_prefix(a, 12, BUS_SAMPLE, NULL);
    int r = fm_open(t, b.nrec, 0) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (r == TRZ_CODEC_OK) r = fm_enc_loop(&t->st, t->fm, &b, &out, zsz);
    arith_close(t, 0);
    free(out.p);
    return r;
}

/* Encoder: the model the trials of a chunk code with.  m itself outside
 * a chain, or at its first chunk (m holds no chain's state yet: a trial
 * codes as a chunk alone, which leaves none, and a path that gives up
 * leaves none either, so the chunk starts from a fresh model whichever
 * path codes it); else byu_model.trial, made at the first such chunk.
 * NULL on no memory. */
static byu_model *byu_trial_model(byu_model *m, int chain)
{
    if (!chain || !m->st.live) return m;
    if (!m->trial && (m->trial = calloc(1, sizeof *m->trial))) m->trial->lv = m->lv;
    return m->trial;
}

/* range-fast: the fast model, unless the stream path wins without a
 * cache simulator (which costs more than the fast model itself); then the
 * stream path with its full choices. */
int fm_encode(const trz_enc_args *a, trz_model *tm)
{
    if (a->len != a->nrec * 12) return TRZ_CODEC_UNSUPPORTED;
    byu_model *m = (byu_model *)tm, *t = byu_trial_model(m, a->chain);
    if (!t) return TRZ_CODEC_NOMEM;
    zs_opts o = { t, 0, { 0, 0, 0, 0 }, 0, 0 };
    int r;
    size_t zsz = bus_fast_target(a, 12, byu_zs_encode_opt, &o, &r);
    if (r != TRZ_CODEC_OK) return r;
    if (t != m) {
        r = fm_trial(a, t, zsz);
        if (r != TRZ_CODEC_OK) return r == BUS_FAST_NOGAIN ? zs_encode(a, tm) : r;
        zsz = SIZE_MAX; /* chosen: the loop below goes on to the end */
    }
    r = fm_open(m, a->nrec, a->chain) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (r == TRZ_CODEC_OK) {
        trz_buf *out = &a->streams[S_CM];
        bus_cm_head(out, BUS_CM_FAST, a->nrec);
        r = fm_enc_loop(&m->st, m->fm, a, out, zsz);
        if (r == BUS_FAST_NOGAIN) out->n = 0;
    }
    arith_close(m, a->chain && r == TRZ_CODEC_OK);
    return r == BUS_FAST_NOGAIN ? zs_encode(a, tm) : r;
}

static int fm_decode(const trz_dec_args *a, trz_model *tm)
{
    byu_model *m = (byu_model *)tm;
    unsigned ver;
    trz_rd hd;
    int rc = bus_cm_open_stream(a, S_CM, &ver, &hd);
    if (rc != TRZ_CODEC_OK) return rc;
    rc = fm_open(m, a->nrec, a->chain) == 0 ? TRZ_CODEC_OK : TRZ_CODEC_NOMEM;
    if (rc == TRZ_CODEC_OK) rc = fm_dec_loop(&m->st, m->fm, a, hd.p, trz_rd_left(&hd));
    arith_close(m, a->chain && rc == TRZ_CODEC_OK);
    return rc;
}

/* mix: the mixed model where a trial on the chunk's prefix finds it
 * smaller than the stream path (bus_pick_cm), else the stream path. */
int mix_encode(const trz_enc_args *a, trz_model *tm)
{
    if (a->len != a->nrec * 12) return TRZ_CODEC_UNSUPPORTED;
    byu_model *m = (byu_model *)tm, *t = byu_trial_model(m, a->chain); /* t: the trials' */
    if (!t) return TRZ_CODEC_NOMEM;
    zs_opts o = { m, 0, { 0, 0, 0, 0 }, 0, 0 }; /* chosen once: every stream-path encoding below uses them */
    o.cache = pick_cache(a, &o.g, m->lv->cache_sets);
    if (o.cache < 0) return TRZ_CODEC_NOMEM;
    zs_opts ot = o;
    ot.m = t;
    o.feed = 1; /* the chunk's own stream path (the trials' is not kept) */
    /* in a chain, what its match model would predict of the chunk */
    uint64_t seen = a->chain && m->st.live && m->mt_live ? bus_match_foresee(&m->match, a->in, a->nrec, 12, byu_mt_hash) : 0;
    int pick = bus_pick_cm(a, 12, byu_zs_encode_opt, &ot, cm_trial, t, seen);
    return pick < 0 ? pick : pick ? cm_encode_to(a, m, 1, SIZE_MAX) : byu_zs_encode_opt(a, &o);
}

int cm_decode_chunk(const trz_dec_args *a, trz_model *tm)
{
    if (a->nrec > a->len / 12 || a->len != a->nrec * 12) return TRZ_CODEC_CORRUPT;
    return cm_decode(a, tm);
}

int fm_decode_chunk(const trz_dec_args *a, trz_model *tm)
{
    if (a->nrec > a->len / 12 || a->len != a->nrec * 12) return TRZ_CODEC_CORRUPT;
    return fm_decode(a, tm);
}

/* The arithmetic variants' tables in m, given back. */
void byu_arith_free(byu_model *m)
{
    if (m->cm) {
        bus_hx_free(&m->cm->a);
        trz_big_free(m->cm, sizeof *m->cm);
    }
    bus_match_free(&m->match, 12);
    if (m->fm) {
        bf_slots_free(&m->fm->slots);
        trz_big_free(m->fm, sizeof *m->fm);
    }
}
