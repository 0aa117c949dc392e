/* dr_event.c - the drmemtrace codec's event coder (drmemtrace.md,
 * "Events" and "Match model"): a chunk's records read as events (an
 * instruction with its encodings and memory records, a marker and its
 * repeats, a thread record, or any record as it is), every decision
 * range-coded in context from the models: the next PC from the control
 * flow, per-PC static facts, a branch predictor, per-(PC, slot) address
 * strides, the encoding bytes (dr_model.h); and the match model, which
 * offers each event first as a copy of the one that followed the last
 * occurrence of the current context.  Encoder, decoder and the replay of a
 * copy are one template, code_event, instantiated for each direction. */
#include "dr_model.h"

#ifdef DR_STATS
static const char *const dr_fname[F_N] = { "event", "pc", "taken", "enc", "bt", "static", "type", "pattern",
                                           "addr_hit", "addr_miss", "addr_new", "mtype", "mval", "run", "other",
                                           "raw", "match" };
double dr_bits[F_N], *dr_cost;
uint64_t dr_n[F_N];
void dr_stats_print(void);
__attribute__((destructor)) void dr_stats_print(void)
{
    double t = 0;
    for (int f = 0; f < F_N; f++) t += dr_bits[f];
    for (int f = 0; f < F_N; f++)
        if (dr_n[f])
            fprintf(stderr, "  %-10s %9llu events %10.0f bytes %5.1f%% %7.3f bits/event\n", dr_fname[f],
                    (unsigned long long)dr_n[f], dr_bits[f] / 8, 100 * dr_bits[f] / t, dr_bits[f] / dr_n[f]);
}
#endif

/* An instruction's class (PC_*), for contexts. */
static inline unsigned instr_class(unsigned t, int taken)
{
    switch (t) {
    case DR_DJUMP: return PC_DJUMP;
    case DR_IJUMP: case DR_ICALL: return PC_IND;
    case DR_CJUMP: case DR_TAKEN: case DR_UNTAKEN: return taken ? PC_CT : PC_CNT;
    case DR_DCALL: return PC_CALL;
    case DR_RET: return PC_RET;
    default: return PC_PLAIN;
    }
}

/* ---- branches -------------------------------------------------------------- */

/* A conditional branch's outcome: a mix of a per-PC counter, gshare over
 * 12 and 32 outcomes and the PC's local history. */
TRZ_FORCE_INLINE int code_taken(dr_model *m, rc *c, const int enc, uint64_t pc, dr_pcdyn *d, int bit)
{
    if (enc == 3) { /* a replay: the histories move, the predictors stay */
        bit = bit != 0;
        m->ghist = m->ghist << 1 | (unsigned)bit;
        d->lhist = (uint16_t)(d->lhist << 1 | (unsigned)bit);
        return bit;
    }
    unsigned sh = 32 - m->br_bits;
    rc_prob *pb = &m->bim[h32(pc) >> sh];
    rc_prob *pg = &m->gs[h32(pc ^ (m->ghist & 0xFFF) << 40) >> sh];
    rc_prob *pl = &m->gl[h32(pc * 0x2545F4914F6CDD1Dull ^ (m->ghist & 0xFFFFFFFFull)) >> sh];
    rc_prob *po = &m->loc[h32(pc ^ (uint64_t)d->lhist << 44) >> sh];
    int st[5] = { m->str[rc_p12(*pb)], m->str[rc_p12(*pg)], m->str[rc_p12(*pl)], m->str[rc_p12(*po)], 256 };
    int64_t dot = 0;
    for (int k = 0; k < 5; k++) dot += (int64_t)m->bw[k] * st[k];
    int p = rc_squash((int)(dot >> 16));
    if (p < 1) p = 1;
    if (p > 4095) p = 4095;
    bit = rcd_code(c, enc, (uint32_t)(4096 - p) << 4, bit);
    int err = ((bit << 12) - p) * 6;
    for (int k = 0; k < 5; k++) {
        int32_t w = m->bw[k] + ((st[k] * err) >> 10);
        m->bw[k] = w > (1 << 24) ? 1 << 24 : w < -(1 << 24) ? -(1 << 24) : w;
    }
    *pb = (rc_prob)rc_adapt(*pb, bit, 4);
    *pg = (rc_prob)rc_adapt(*pg, bit, 4);
    *pl = (rc_prob)rc_adapt(*pl, bit, 4);
    *po = (rc_prob)rc_adapt(*po, bit, 4);
    m->ghist = m->ghist << 1 | (unsigned)bit;
    d->lhist = (uint16_t)(d->lhist << 1 | (unsigned)bit);
    return bit;
}

/* The target an indirect branch at pc will most likely take: the return
 * stack's top for a return, else its last target.  *kind: 1 return, 2
 * other indirect, 0 none. */
TRZ_FORCE_INLINE uint64_t bt_predict(dr_model *m, uint64_t pc, unsigned *kind)
{
    const dr_fact *f = fact_at(m, dyn_find(m, pc), pc);
    *kind = 0;
    if (!f) return 0;
    if (f->type == DR_RET && m->fl.ras_top) {
        *kind = 1;
        return m->fl.ras[(m->fl.ras_top - 1) % RAS_N];
    }
    if (f->type == DR_IJUMP || f->type == DR_ICALL) {
        const dr_pcdyn *d = dyn_find(m, pc);
        if (d && d->last_tgt) {
            *kind = 2;
            return d->last_tgt;
        }
    }
    return 0;
}

/* A BRANCH_TARGET value for the branch at pc. */
TRZ_FORCE_INLINE uint64_t code_bt(dr_model *m, rc *c, const int enc, uint64_t pc, uint64_t v)
{
    unsigned kind;
    uint64_t pred = bt_predict(m, pc, &kind);
    if (kind && rcd_cbit(c, enc, &m->tgt_hit[kind], v == pred, CLIM)) return pred;
    uint64_t base = kind ? pred : pc;
    return base + (uint64_t)code_sint(c, enc, &m->bt_d[kind], 0, (int64_t)(v - base));
}

/* ---- flow ------------------------------------------------------------------- */

/* The running thread becomes tid: its flow is saved, tid's restored (or a
 * fresh one). */
static void thread_switch(dr_model *m, uint64_t tid)
{
    if (m->fl.used && m->fl.tid == tid) return;
    dr_flow *free_slot = NULL, *old = NULL;
    if (m->fl.used) { /* save */
        for (int k = 0; k < NTHREADS && !free_slot; k++)
            if (m->thr[k].used && m->thr[k].tid == m->fl.tid) free_slot = &m->thr[k];
        for (int k = 0; k < NTHREADS && !free_slot; k++)
            if (!m->thr[k].used) free_slot = &m->thr[k];
        if (!free_slot) {
            free_slot = &m->thr[0];
            for (int k = 1; k < NTHREADS; k++)
                if (m->thr[k].lru < free_slot->lru) free_slot = &m->thr[k];
        }
        m->fl.lru = ++m->lru;
        *free_slot = m->fl;
    }
    for (int k = 0; k < NTHREADS; k++)
        if (m->thr[k].used && m->thr[k].tid == tid) old = &m->thr[k];
    if (old) {
        m->fl = *old;
        old->used = 0;
    } else {
        memset(&m->fl, 0, sizeof m->fl);
        m->fl.tid = tid;
    }
    m->fl.used = 1;
}

/* ---- the record loop ------------------------------------------------------ */

void dr_parse_event(const uint8_t *in, size_t i, size_t nrec, dr_event *ev)
{
    memset(ev, 0, sizeof *ev);
    const uint8_t *p = in + i * DR_REC;
    unsigned t = trz_ld_le16(p);
    if (t == DR_ENCODING) {
        size_t j = i;
        unsigned L = 0, n = 0, ok = 1;
        while (j < nrec && trz_ld_le16(in + j * DR_REC) == DR_ENCODING && n < 2) {
            const uint8_t *q = in + j * DR_REC;
            unsigned sz = trz_ld_le16(q + 2);
            if (sz < 1 || sz > 8 || (n == 0 && sz != 8 && j + 1 < nrec && trz_ld_le16(q + DR_REC) == DR_ENCODING))
                ok = 0;
            for (unsigned k = sz; k < 8 && ok; k++) ok = q[4 + k] == 0;
            L += sz;
            n++;
            j++;
            if (sz < 8) break;
        }
        unsigned btm = 0;
        if (ok && j < nrec && trz_ld_le16(in + j * DR_REC) == DR_MARKER &&
            trz_ld_le16(in + j * DR_REC + 2) == DRM_BRANCH_TARGET)
            btm = 1, j++;
        if (ok && j < nrec && L <= 15 && dr_is_instr(trz_ld_le16(in + j * DR_REC)) &&
            trz_ld_le16(in + j * DR_REC + 2) == L && (n == 1 || trz_ld_le16(in + i * DR_REC + 2) == 8)) {
            ev->kind = EV_INSTR_ENC;
            ev->nenc = n;
            ev->bt_mid = btm;
            ev->instr = j;
        } else {
            ev->kind = EV_RAW;
            return;
        }
    } else if (dr_is_instr(t)) {
        ev->kind = EV_INSTR;
        ev->instr = i;
    } else if (t == DR_MARKER) {
        ev->kind = EV_MARKER;
        size_t j = i + 1;
        while (j < nrec && memcmp(in + j * DR_REC, p, DR_REC) == 0) j++;
        ev->run = (unsigned)(j - i - 1);
        return;
    } else if (t >= DR_THREAD && t <= DR_FOOTER) {
        ev->kind = EV_OTHER;
        return;
    } else {
        ev->kind = EV_RAW;
        return;
    }
    size_t k = ev->instr + 1;
    while (k < nrec && ev->nmem < DR_MAXMEM && dr_is_mem(trz_ld_le16(in + k * DR_REC))) k++, ev->nmem++;
}

/* An address the last accesses touched: its place among them (NRECENT:
 * none). */
TRZ_FORCE_INLINE int code_recent(dr_model *m, rc *c, const int enc, unsigned ctx, uint64_t *a)
{
    unsigned j = NRECENT;
    if (enc)
        for (unsigned q = 0; q < NRECENT; q++)
            if (m->recent[q] == *a) { j = q; break; }
    j = rcd_ctree(c, enc, m->rec_idx[ctx], 4, j, CLIM);
    if (j >= NRECENT) return 0;
    *a = m->recent[j];
    return 1;
}

/* Move a to the front of the recent addresses. */
TRZ_FORCE_INLINE void recent_use(dr_model *m, uint64_t a) { mtf_u64(m->recent, NRECENT, a); }

/* A memory address of slot s of the instruction at pc (fact f, or NULL). */
/* The match's address for slot s: its own, or shifted as this event's
 * first other address was.  Returns 1 when a is it. */
TRZ_FORCE_INLINE int code_mhint(dr_model *m, rc *c, const int enc, dr_hint *h, unsigned s, unsigned ctx, uint64_t *a)
{
    uint64_t ma = trz_ld_le64(h->mem + s * DR_REC + 4);
    if (rcd_cbit(c, enc, &m->mm_a[ctx * 2 + h->have_d], *a == ma, CLIM)) {
        *a = ma;
        return 1;
    }
    if (h->have_d && ma + (uint64_t)h->d != ma &&
        rcd_cbit(c, enc, &m->mm_ad[ctx], *a == ma + (uint64_t)h->d, CLIM)) {
        *a = ma + (uint64_t)h->d;
        return 1;
    }
    return 0;
}

TRZ_FORCE_INLINE uint64_t code_addr(dr_model *m, rc *c, const int enc, uint64_t pc, unsigned len, const dr_fact *f, unsigned s,
                          uint64_t a, dr_hint *h)
{
    dr_slot *e = slot_get(m, pc, s);
    int hinted = h && s < h->nmem && h->pc == pc;
    uint64_t ha = hinted ? trz_ld_le64(h->mem + s * DR_REC + 4) : 0;
    if (e->valid) {
        FIELD(F_ADDR_HIT);
        uint64_t pr = e->last + e->stride;
        unsigned ctx = (e->hist & 3) * 2 + (e->stride != 0);
        if (rcd_cbit(c, enc, &m->mhit[ctx], a == pr, CLIM)) {
            a = pr;
            e->hist = (uint8_t)(e->hist << 1 | 1);
        } else if (hinted && ha != pr && code_mhint(m, c, enc, h, s, 0, &a)) {
            e->hist = (uint8_t)(e->hist << 1);
        } else {
            e->hist = (uint8_t)(e->hist << 1);
            FIELD(F_ADDR_MISS);
            uint64_t rp = f && f->mbase < 16 && m->regok[f->mbase] ? m->regval[f->mbase] + (uint64_t)(int64_t)f->mdisp : pr;
            uint64_t pv = e->last - e->stride; /* the address before: accesses that alternate */
            if (e->stride && rcd_cbit(c, enc, &m->mprev_hit[e->hist >> 1 & 3], a == pv, CLIM)) {
                a = pv;
            } else if (e->stride && rcd_cbit(c, enc, &m->mlast_hit[e->hist >> 1 & 3], a == e->last, CLIM)) {
                a = e->last;
            } else if (rp != pr && rp != e->last && rp != pv && rcd_cbit(c, enc, &m->mreg[2 + (f->mbase == 4)], a == rp, CLIM)) {
                a = rp; /* through the base register, as its last access left it */
            } else if (code_recent(m, c, enc, 0, &a)) {
            } else {
                /* a delta: from the match's address when there is one (the
                 * same structure elsewhere), else from the last */
                uint64_t b = hinted ? ha : e->last;
                a = b + (uint64_t)code_sint(c, enc, &m->mem_d[hinted], e->dcls, (int64_t)(a - b));
                e->dcls = (uint8_t)bitlen((int64_t)(a - e->last) < 0 ? e->last - a : a - e->last);
            }
        }
        e->stride = a - e->last;
    } else {
        /* a first access: rip-relative, or through a base register, or
         * near one of the bases */
        int done = 0;
        FIELD(F_ADDR_NEW);
        if (hinted && code_mhint(m, c, enc, h, s, 1, &a)) {
            done = 1;
        } else if (f && f->mbase == 16 && s == 0) {
            uint64_t pr = pc + len + (uint64_t)(int64_t)f->mdisp;
            if (rcd_cbit(c, enc, &m->mrip[0], a == pr, CLIM)) a = pr, done = 1;
        } else if (f && f->mbase < 16 && m->regok[f->mbase]) {
            uint64_t pr = m->regval[f->mbase] + (uint64_t)(int64_t)f->mdisp;
            if (rcd_cbit(c, enc, &m->mreg[s != 0], a == pr, CLIM)) a = pr, done = 1;
        }
        if (!done && code_recent(m, c, enc, 1, &a)) done = 1;
        if (!done && hinted) {
            a = ha + (uint64_t)code_sint(c, enc, &m->mem_n[3], 0, (int64_t)(a - ha));
        } else if (!done) {
            uint64_t base[3] = { m->last_addr, m->regok[4] ? m->regval[4] : m->last_addr, pc };
            unsigned j = 0;
            if (enc) {
                uint64_t best = UINT64_MAX;
                for (unsigned q = 0; q < 3; q++) {
                    uint64_t d = a - base[q], ad = (int64_t)d < 0 ? 0 - d : d;
                    if (ad < best) best = ad, j = q;
                }
            }
            j = rcd_ctree(c, enc, m->mbase[f && f->mbase != 255 ? 1 + (f->mbase == 4) : 0], 2, j, CLIM);
            if (j > 2) j = 2;
            a = base[j] + (uint64_t)code_sint(c, enc, &m->mem_n[j], 0, (int64_t)(a - base[j]));
        }
        e->valid = 1;
        e->stride = 0;
    }
    e->last = a;
    if (hinted && !h->have_d && a != ha) h->have_d = 1, h->d = (int64_t)(a - ha);
    /* the base register's value as this access shows it */
    if (f && s == 0 && f->mbase < 16) {
        m->regval[f->mbase] = a - (uint64_t)(int64_t)f->mdisp;
        m->regok[f->mbase] = 1;
    } else if (!f || f->mbase == 255) {
        m->regval[4] = a; /* a push, pop, call or return: the stack */
        m->regok[4] = 1;
    }
    m->last_addr = a;
    recent_use(m, a);
    return a;
}

/* A marker's value, from the last one of its type and what its type says. */
TRZ_FORCE_INLINE uint64_t code_mval(dr_model *m, rc *c, const int enc, unsigned mt, uint64_t v)
{
    unsigned k = mt & 63;
    uint64_t sp = 0;
    int have = 0;
    if (mt == DRM_KERNEL_EVENT || mt == DRM_KERNEL_XFER) have = m->fl.nexp_ok, sp = m->fl.nexp;
    else if (mt == DRM_VERSION) have = 1, sp = m->olast[DR_HEADER - DR_THREAD];
    else if (mt == DRM_CHUNK_FOOTER) have = 1, sp = m->gen - 1;
    if (have && rcd_cbit(c, enc, &m->mk_sp[k], v == sp, CLIM)) return sp;
    if (rcd_cbit(c, enc, &m->mk_same[k], v == m->mlast[k], CLIM)) return m->mlast[k];
    return m->mlast[k] + (uint64_t)code_sint(c, enc, &m->mk_d[k], 0, (int64_t)(v - m->mlast[k]));
}

/* After an instruction: the PC predicted next and the return stack. */
TRZ_FORCE_INLINE void flow_after(dr_model *m, const dr_fact *f, unsigned type, uint64_t pc, unsigned len, dr_pcdyn *d)
{
    dr_flow *fl = &m->fl;
    uint64_t fall = pc + len;
    fl->pc = pc;
    fl->fall = fall;
    fl->have = 1;
    fl->pend = 0;
    fl->nexp_ok = 1;
    fl->nexp = fall;
    uint64_t tgt = f ? f->target : 0;
    switch (type) {
    case DR_DCALL:
        fl->ras[fl->ras_top++ % RAS_N] = fall;
        /* fall through */
    case DR_DJUMP: case DR_TAKEN:
        fl->nexp = tgt;
        fl->nexp_ok = tgt != 0;
        break;
    case DR_CJUMP:
        fl->pend = 1;
        fl->ctgt = tgt;
        fl->nexp_ok = 0;
        break;
    case DR_ICALL:
        fl->ras[fl->ras_top++ % RAS_N] = fall;
        /* fall through */
    case DR_IJUMP: case DR_RET:
        if (type == DR_RET && fl->ras_top) {
            fl->ras_top--;
            fl->nexp = fl->ras[fl->ras_top % RAS_N];
        } else {
            fl->nexp = d->last_tgt;
            fl->nexp_ok = d->last_tgt != 0;
        }
        if (fl->bt_pend) fl->nexp = fl->bt_val, fl->nexp_ok = 1;
        break;
    default:
        break;
    }
    fl->bt_pend = 0;
    fl->pclass = (uint8_t)instr_class(type, type == DR_TAKEN);
}

/* What the previous instruction's successor teaches: a direct branch's
 * target (a static fact), an indirect branch's last target. */
TRZ_FORCE_INLINE void learn_successor(dr_model *m, uint64_t pc)
{
    dr_flow *fl = &m->fl;
    if (!fl->have || pc == fl->fall) return;
    unsigned cl = fl->pclass;
    if (cl == PC_DJUMP || cl == PC_CT || cl == PC_CALL) {
        const dr_fact *pf = fact_at(m, dyn_find(m, fl->pc), fl->pc);
        if (pf) facts_fill_target(&m->facts, pf, pc);
    } else if (cl == PC_IND || cl == PC_RET) {
        dr_pcdyn *d = dyn_get(m, fl->pc);
        d->last_tgt = pc;
    }
}

/* ---- the event coder: one event, in steps ------------------------------- */

/* Step 1: the event symbol, in the context of the event before, what
 * followed the last instruction the last time it ran (a system call's
 * markers, an indirect branch's target marker) and whether the PC
 * predicted next had its encodings in this drmemtrace chunk. */
TRZ_FORCE_INLINE unsigned ev_kind(dr_model *m, rc *c, const int enc, unsigned kind)
{
    const dr_flow *fl = &m->fl;
    unsigned seen = 0;
    if (fl->nexp_ok) {
        const dr_pcdyn *d = dyn_find(m, fl->nexp);
        seen = d && d->enc_gen == m->gen;
    }
    unsigned nev = m->pdyn && m->pdyn->nev <= EV_N && m->pdyn->pc == fl->pc ? m->pdyn->nev : 0;
    unsigned ectx = ((m->prev_ev * 48 + m->prev_sub) * 4 + (nev < 4 ? nev : 3)) * 2 + seen;
    FIELD(F_EV);
    kind = rcd_ctree(c, enc, m->ev[ectx], 3, kind, CLIM);
    if (kind < EV_N && m->pdyn) m->pdyn->nev = (uint8_t)(kind + 1);
    m->pdyn = NULL;
    return kind;
}

/* A marker and the run of its repeats. */
TRZ_FORCE_INLINE long ev_marker(dr_model *m, rc *c, const int enc, const uint8_t *in, uint8_t *out, size_t i, size_t nrec,
                      const dr_event *ev)
{
    dr_flow *fl = &m->fl;
    const uint8_t *p = enc ? in + i * DR_REC : NULL;
    unsigned mt = enc ? trz_ld_le16(p + 2) : 0;
    uint64_t v = enc ? trz_ld_le64(p + 4) : 0;
    FIELD(F_MARKER);
    unsigned pk = m->prev_ev == EV_MARKER ? m->prev_sub : 47;
    unsigned sym = rcd_ctree(c, enc, m->mk_type[m->prev_ev == EV_MARKER][pk], 6, mt < 63 ? mt : 63, CLIM);
    mt = sym < 63 ? sym : rcd_direct(c, enc, mt, 16);
    if (mt == DRM_BRANCH_TARGET) {
        FIELD(F_BT);
        v = code_bt(m, c, enc, fl->nexp_ok ? fl->nexp : fl->fall, v);
        fl->bt_pend = 1;
        fl->bt_val = v;
    } else {
        FIELD(F_MVAL);
        v = code_mval(m, c, enc, mt, v);
    }
    unsigned run = 0;
    FIELD(F_RUN);
    if (rcd_cbit(c, enc, &m->run[mt & 63], enc && ev->run, CLIM)) {
        run = 1 + (unsigned)rcd_uint(c, enc, m->run_n[0].len[mt == DRM_CORE_IDLE], m->run_n[0].bits,
                                     enc ? ev->run - 1 : 0);
        if (run == 0 || run >= nrec - i) return -1;
    }
    if (!enc)
        for (unsigned k = 0; k <= run; k++) put_rec(out + (i + k) * DR_REC, DR_MARKER, mt, v);
    m->mlast[mt & 63] = v;
    if (mt == DRM_CHUNK_FOOTER) m->gen++;
    if (mt == DRM_KERNEL_EVENT) fl->kst[fl->ktop++ % KSTACK] = v;
    if (mt == DRM_KERNEL_XFER && fl->ktop) {
        fl->ktop--;
        fl->nexp = fl->kst[fl->ktop % KSTACK];
        fl->nexp_ok = 1;
        fl->pend = 0;
    }
    m->prev_ev = EV_MARKER;
    m->prev_sub = mt < 47 ? mt : 47;
    return 1 + (long)run;
}

/* A thread record (THREAD, THREAD_EXIT, PID, HEADER, FOOTER). */
TRZ_FORCE_INLINE long ev_other(dr_model *m, rc *c, const int enc, const uint8_t *in, uint8_t *out, size_t i)
{
    dr_flow *fl = &m->fl;
    const uint8_t *p = enc ? in + i * DR_REC : NULL;
    unsigned t = enc ? trz_ld_le16(p) - DR_THREAD : 0, sz = enc ? trz_ld_le16(p + 2) : 0;
    uint64_t v = enc ? trz_ld_le64(p + 4) : 0;
    FIELD(F_OTHER);
    t = rcd_ctree(c, enc, m->oth_t[m->prev_ev == EV_OTHER ? m->prev_sub : 7], 3, t, CLIM);
    if (t > 4) return -1;
    if (!rcd_cbit(c, enc, &m->oth_sz[t], sz == m->osize[t], CLIM)) sz = rcd_direct(c, enc, sz, 16);
    else sz = m->osize[t];
    unsigned ty = DR_THREAD + t;
    if (ty == DR_THREAD) {
        unsigned j = 8;
        if (enc)
            for (unsigned q = 0; q < 8 && j == 8; q++)
                if (m->tids[q] == v && v) j = q;
        j = rcd_ctree(c, enc, m->tid_idx, 4, j, CLIM);
        if (j > 8) return -1;
        v = j < 8 ? m->tids[j] : rcd_direct64(c, enc, v);
        if (j == 8) j = 7;
        for (; j > 0; j--) m->tids[j] = m->tids[j - 1];
        m->tids[0] = v;
        thread_switch(m, v);
    } else {
        uint64_t pr = ty == DR_THREAD_EXIT ? fl->tid : ty == DR_PID && fl->pid ? fl->pid : m->olast[t];
        if (!rcd_cbit(c, enc, &m->oth_a[t][ty == DR_PID && fl->pid], v == pr, CLIM))
            v = rcd_direct64(c, enc, v);
        else
            v = pr;
        if (ty == DR_PID) m->fl.pid = v;
    }
    if (!enc) put_rec(out + i * DR_REC, ty, sz, v);
    m->olast[t] = v;
    m->osize[t] = (uint16_t)sz;
    m->prev_ev = EV_OTHER;
    m->prev_sub = t;
    return 1;
}

/* Any record as it is. */
TRZ_FORCE_INLINE long ev_raw(dr_model *m, rc *c, const int enc, const uint8_t *in, uint8_t *out, size_t i)
{
    const uint8_t *p = enc ? in + i * DR_REC : NULL;
    unsigned t = enc ? trz_ld_le16(p) : 0, sz = enc ? trz_ld_le16(p + 2) : 0;
    uint64_t v = enc ? trz_ld_le64(p + 4) : 0;
    FIELD(F_RAW);
    if (rcd_cbit(c, enc, &m->raw_t[0], t < 64, CLIM)) t = rcd_ctree(c, enc, m->raw_tt, 6, t, CLIM);
    else t = rcd_direct(c, enc, t, 16);
    sz = code_size(c, enc, m->raw_sz, sz);
    uint64_t base = dr_is_mem(t) ? m->last_addr : m->rawlast;
    v = base + (uint64_t)code_sint(c, enc, &m->raw_d, t == DR_ENCODING, (int64_t)(v - base));
    if (!enc) put_rec(out + i * DR_REC, t, sz, v);
    m->rawlast = v;
    if (dr_is_mem(t)) m->last_addr = v;
    m->prev_ev = EV_RAW;
    m->prev_sub = 47;
    return 1;
}

/* An instruction event's fields as its steps fill them. */
typedef struct {
    uint64_t pc, btv;
    unsigned kind, elen, btm, type, len, nmem;
    uint8_t *eb;   /* the encoding (16 bytes) */
    uint32_t *pat; /* the memory pattern (DR_MAXMEM) */
} dr_ins;

/* Step 2: a pending version-4 conditional branch's outcome, then the PC
 * (a hit of the predicted next PC, the same PC again, or a delta), and
 * what the successor teaches. */
TRZ_FORCE_INLINE uint64_t ins_pc(dr_model *m, rc *c, const int enc, uint64_t pc)
{
    dr_flow *fl = &m->fl;
    if (fl->pend) { /* a version-4 conditional branch: taken? */
        dr_pcdyn *pd = dyn_get(m, fl->pc);
        FIELD(F_TAKEN);
        int tk = code_taken(m, c, enc, fl->pc, pd, enc && pc != fl->fall);
        fl->nexp = tk ? fl->ctgt : fl->fall;
        fl->nexp_ok = !tk || fl->ctgt;
        fl->pclass = tk ? PC_CT : PC_CNT;
        fl->pend = 0;
    }
    unsigned ctx = (fl->pclass * 4 + (fl->phist & 3)) * 2 + fl->bt_pend;
    int hit = 0;
    FIELD(F_PC);
    if (fl->nexp_ok) {
        hit = rcd_cbit(c, enc, &m->pc_hit[ctx], pc == fl->nexp, CLIM);
        fl->phist = (uint8_t)(fl->phist << 1 | (unsigned)hit);
    }
    if (hit) {
        pc = fl->nexp;
    } else if (fl->have && (!fl->nexp_ok || fl->pc != fl->nexp) &&
               rcd_cbit(c, enc, &m->pc_rep[fl->pclass], pc == fl->pc, CLIM)) {
        pc = fl->pc;
    } else {
        uint64_t base = fl->nexp_ok ? fl->nexp : fl->fall;
        pc = base + (uint64_t)code_sint(c, enc, &m->pc_d[fl->pclass], 0, (int64_t)(pc - base));
    }
    learn_successor(m, pc);
    if (fl->have && pc != fl->fall) blk_use(m, pc);
    return pc;
}

/* Step 3: the encodings (the fact's again, or byte by byte) and a
 * BRANCH_TARGET marker between them and the instruction.  In a replay the
 * bytes are the records'. */
TRZ_FORCE_INLINE void ins_enc(dr_model *m, rc *c, const int enc, const uint8_t *in, size_t i, const dr_event *ev, dr_pcdyn *d,
                    const dr_fact *f, dr_ins *x)
{
    dr_flow *fl = &m->fl;
    if (enc) {
        for (unsigned k = 0; k < ev->nenc; k++) memcpy(x->eb + 8 * k, in + (i + k) * DR_REC + 4, 8);
        x->elen = trz_ld_le16(in + ev->instr * DR_REC + 2);
    }
    FIELD(F_ENC);
    if (enc != 3) {
        int same = 0;
        if (f && f->enc_n)
            same = rcd_cbit(c, enc, &m->enc_same[0], enc && x->elen == f->enc_n && !memcmp(x->eb, f->enc, x->elen),
                            CLIM);
        if (same) {
            x->elen = f->enc_n;
            memcpy(x->eb, f->enc, 16);
        } else {
            x->elen = code_enc(m, c, enc, x->eb, x->elen, x->pc);
        }
    }
    FIELD(F_BT);
    x->btm = (unsigned)rcd_cbit(c, enc, &m->bt_mid[0], enc && ev->bt_mid, CLIM);
    if (x->btm) {
        x->btv = code_bt(m, c, enc, x->pc, enc ? trz_ld_le64(in + (ev->instr - 1) * DR_REC + 4) : 0);
        fl->bt_pend = 1;
        fl->bt_val = x->btv;
    }
    d->enc_gen = m->gen;
    memcpy(m->prev_enc, x->eb, 16);
    drx_info px;
    drx_parse(x->eb, x->elen, &px);
    m->prev_opid = px.opid;
}

/* Step 4: type, length and memory pattern, as the PC's fact says (one
 * bit) or coded (in a replay, the records' as they are); then a
 * conditional branch's outcome.  Returns 0, or -1 for damage. */
TRZ_FORCE_INLINE int ins_static(dr_model *m, rc *c, const int enc, dr_pcdyn *d, const dr_fact *f, dr_ins *x)
{
    dr_flow *fl = &m->fl;
    unsigned type = x->type, len = x->len, nmem = x->nmem;
    uint32_t *pat = x->pat;
    unsigned otype = type; /* the encoder's: the taken bit comes from it */
    int rep = fl->have && x->pc == fl->pc;
    if (enc == 3) {
        type = tclass(type);
    } else {
        int same = 0;
        if (f) {
            int eq = 0;
            if (enc) {
                eq = tclass(type) == tclass(f->type) && len == f->len && f->nmem != DR_NOPAT && nmem == f->nmem &&
                     !memcmp(pat, facts_pattern(&m->facts, f), nmem * sizeof *pat);
            }
            FIELD(F_STATIC);
            same = rcd_cbit(c, enc,
                            &m->st_same[rep * 4 + (dr_type_sym[f->type] == 10) + 2 * (x->kind == EV_INSTR_ENC)], eq,
                            CLIM);
        }
        if (same) {
            if (f->nmem == DR_NOPAT) return -1; /* the encoder says "same" only with a pattern */
            type = f->type;
            len = f->len;
            nmem = f->nmem;
            memcpy(pat, facts_pattern(&m->facts, f), nmem * sizeof *pat);
        } else {
            unsigned opid = f ? f->opid : 0;
            if (x->kind == EV_INSTR_ENC) {
                drx_info xi;
                drx_parse(x->eb, x->elen, &xi);
                opid = xi.opid | 0x8000;
            }
            unsigned tctx = opid ? (h32((uint64_t)opid << 1 | (unsigned)rep) >> 22) : 1024 + fl->pclass * 2 + (unsigned)rep;
            FIELD(F_TYPE);
            unsigned sym = rcd_ctree(c, enc, m->typ[tctx], 4, enc ? dr_type_sym[type < DR_NTYPES ? type : 0] : 0, CLIM);
            if (sym > 10) return -1; /* not a symbol the encoder writes */
            type = dr_sym_type[sym];
            if (x->kind == EV_INSTR_ENC) {
                len = x->elen;
            } else if (f && rcd_cbit(c, enc, &m->len_same[0], len == f->len, CLIM)) {
                len = f->len;
            } else {
                unsigned ls = rcd_ctree(c, enc, m->lenT[dr_type_sym[type]], 4, len < 16 ? len : 0, CLIM);
                len = ls ? ls : rcd_direct(c, enc, len, 16);
            }
            FIELD(F_PAT);
            if (f && f->nmem != DR_NOPAT &&
                rcd_cbit(c, enc, &m->pat_same[0], enc && nmem == f->nmem &&
                         !memcmp(pat, facts_pattern(&m->facts, f), nmem * sizeof *pat), CLIM)) {
                nmem = f->nmem;
                memcpy(pat, facts_pattern(&m->facts, f), nmem * sizeof *pat);
            } else {
                nmem = code_pattern(m, c, enc, opid ? h32(opid) >> 23 : dr_type_sym[type], pat, nmem);
                if (nmem > DR_MAXMEM) return -1;
            }
        }
    }
    FIELD(F_TAKEN);
    if (tclass(type) == DR_TAKEN) type = code_taken(m, c, enc, x->pc, d, otype == DR_TAKEN) ? DR_TAKEN : DR_UNTAKEN;
    x->type = type;
    x->len = len;
    x->nmem = nmem;
    return 0;
}

/* The learn step: a PC's first instruction record states its facts.
 * Returns its fact (NULL when the table is full), or sets *oom. */
TRZ_FORCE_INLINE const dr_fact *ins_learn(dr_model *m, dr_pcdyn *d, const dr_ins *x, int *oom)
{
    dr_fact nf;
    memset(&nf, 0, sizeof nf);
    nf.pc = x->pc;
    nf.type = (uint8_t)tclass(x->type);
    nf.len = (uint16_t)x->len;
    nf.nmem = (uint8_t)x->nmem;
    nf.mbase = 255;
    if (x->kind == EV_INSTR_ENC) {
        nf.enc_n = (uint8_t)x->elen;
        memcpy(nf.enc, x->eb, 16);
        dr_fact_from_enc(&nf, x->eb, x->elen);
    }
    if (facts_add(&m->facts, &nf, x->pat) < 0) {
        *oom = 1;
        return NULL;
    }
    const dr_fact *f = facts_find(&m->facts, x->pc);
    if (f) d->fidx = (uint32_t)(f - m->facts.f) + 1;
    return f;
}

/* The decoder writes the instruction event's records. */
static inline void ins_write(uint8_t *o, const dr_ins *x, const uint64_t *addrs)
{
    if (x->kind == EV_INSTR_ENC) {
        for (unsigned k = 0; k * 8 < x->elen; k++, o += DR_REC) {
            unsigned n = x->elen - 8 * k < 8 ? x->elen - 8 * k : 8;
            trz_st_le16(o, DR_ENCODING);
            trz_st_le16(o + 2, (uint16_t)n);
            memset(o + 4, 0, 8);
            memcpy(o + 4, x->eb + 8 * k, n);
        }
        if (x->btm) put_rec(o, DR_MARKER, DRM_BRANCH_TARGET, x->btv), o += DR_REC;
    }
    put_rec(o, x->type, x->len, x->pc);
    o += DR_REC;
    for (unsigned s = 0; s < x->nmem; s++, o += DR_REC) put_rec(o, x->pat[s] >> 16, x->pat[s] & 0xFFFF, addrs[s]);
}

/* An instruction with its encodings and memory records (steps 2 to 8 of
 * the spec's *Events*). */
TRZ_FORCE_INLINE long ev_instr(dr_model *m, rc *c, const int enc, const uint8_t *in, uint8_t *out, size_t i, size_t nrec,
                     dr_hint *hint, const dr_event *ev, unsigned kind)
{
    dr_ins x;
    uint8_t eb[16] = { 0 };
    uint32_t pat[DR_MAXMEM];
    uint64_t addrs[DR_MAXMEM];
    const uint8_t *ip = enc ? in + ev->instr * DR_REC : NULL;
    x.eb = eb;
    x.pat = pat;
    x.kind = kind;
    x.elen = x.btm = 0;
    x.btv = 0;
    x.pc = ins_pc(m, c, enc, enc ? trz_ld_le64(ip + 4) : 0);
    dr_pcdyn *d = dyn_get(m, x.pc);
    const dr_fact *f = fact_at(m, d, x.pc);
    if (kind == EV_INSTR_ENC) ins_enc(m, c, enc, in, i, ev, d, f, &x);
    x.type = enc ? trz_ld_le16(ip) : 0;
    x.len = enc ? trz_ld_le16(ip + 2) : 0;
    x.nmem = enc ? ev->nmem : 0;
    if (enc)
        for (unsigned s = 0; s < x.nmem; s++) {
            const uint8_t *q = in + (ev->instr + 1 + s) * DR_REC;
            x.pat[s] = (uint32_t)trz_ld_le16(q) << 16 | trz_ld_le16(q + 2);
        }
    if (ins_static(m, c, enc, d, f, &x)) return -1;
    if (!f) {
        int oom = 0;
        f = ins_learn(m, d, &x, &oom);
        if (oom) return -2;
    }
    /* the addresses */
    size_t nr = (kind == EV_INSTR_ENC ? x.elen > 8 ? 2 : 1 : 0) + x.btm + 1 + x.nmem;
    if (nr > nrec - i) return -1;
    for (unsigned s = 0; s < x.nmem; s++) {
        uint64_t a = enc ? trz_ld_le64(in + (ev->instr + 1 + s) * DR_REC + 4) : 0;
        addrs[s] = code_addr(m, c, enc, x.pc, x.len, f, s, a, hint);
    }
    if (!enc) ins_write(out + i * DR_REC, &x, addrs);
    flow_after(m, f, x.type, x.pc, x.len, d);
    m->prev_ev = kind;
    m->prev_sub = m->fl.pclass;
    m->pdyn = d;
    return (long)nr;
}

/* One event at record i (of nrec): returns the records it took, -1 for
 * damage, -2 out of memory.  enc 3 replays an event both sides know (the
 * match model's copy, pev its parse): nothing is coded, and the models'
 * state moves along as if it had been, their probabilities left as they
 * are. */
TRZ_FORCE_INLINE long code_event(dr_model *m, rc *c, const int enc, const uint8_t *in, uint8_t *out, size_t i, size_t nrec,
                       dr_hint *hint, const dr_event *pev)
{
    dr_event ev;
    if (enc == 3) ev = *pev;
    else if (enc) dr_parse_event(in, i, nrec, &ev);
    else memset(&ev, 0, sizeof ev);
    unsigned kind = ev_kind(m, c, enc, enc ? ev.kind : 0);
    switch (kind) {
    case EV_INSTR: case EV_INSTR_ENC: return ev_instr(m, c, enc, in, out, i, nrec, hint, &ev, kind);
    case EV_MARKER: return ev_marker(m, c, enc, in, out, i, nrec, &ev);
    case EV_OTHER: return ev_other(m, c, enc, in, out, i);
    case EV_RAW: return ev_raw(m, c, enc, in, out, i);
    default: return -1;
    }
}

/* Each direction's instance of code_event a function of its own: the
 * record loop stays small, and each instance gets the registers to itself. */
#define DR_EV_ARGS dr_model *m, rc *c, const uint8_t *in, uint8_t *out, size_t i, size_t nrec, dr_hint *hint
static __attribute__((noinline)) long event_enc(DR_EV_ARGS) { return code_event(m, c, 1, in, out, i, nrec, hint, NULL); }
static __attribute__((noinline)) long event_dec(DR_EV_ARGS) { return code_event(m, c, 0, in, out, i, nrec, hint, NULL); }
/* A replay of the event dr_parse_event found at the predicted record, now at
 * record i (its fields shifted there). */
static __attribute__((noinline)) long event_replay(dr_model *m, const uint8_t *buf, size_t i, size_t nrec,
                                                   const dr_event *pe, size_t mp)
{
    dr_event ev = *pe;
    ev.instr = ev.instr - mp + i;
    return code_event(m, NULL, 3, buf, NULL, i, nrec, NULL, &ev);
}

/* The records of the event dr_parse_event found at record i. */
static inline size_t event_records(const dr_event *ev, size_t i)
{
    if (ev->kind <= EV_INSTR_ENC) return ev->instr - i + 1 + ev->nmem;
    return ev->kind == EV_MARKER ? 1 + (size_t)ev->run : 1;
}

/* An event's fingerprint: its records' bytes (the first 40) and count. */
static inline uint64_t event_fp(const uint8_t *p, size_t n)
{
    uint64_t h = n * 0x9E3779B97F4A7C15ull;
    for (size_t j = 0; j < n && j < 40; j++, p += DR_REC) {
        h = (h ^ trz_ld_le64(p + 4)) * 0xC2B2AE3D27D4EB4Full;
        h = (h ^ trz_ld_le32(p) ^ h >> 29) * 0x9E3779B97F4A7C15ull;
    }
    return h;
}

/* The match model's offer before the event at record i, its prediction
 * at record mp (the event parse found there, pn records): the hit
 * decision, in the context of the run of right predictions, the predicted
 * event's kind, whether the flow agrees with it, the predicted PC's last
 * outcomes and whether the prediction was itself coded.  On a miss the
 * prediction becomes the hint.  Returns the decision. */
TRZ_FORCE_INLINE int mm_offer(dr_model *m, rc *c, const int enc, const uint8_t *buf, size_t i, size_t nrec, size_t mp,
                    const dr_event *pe, size_t pn, dr_hint *hint)
{
    unsigned agree = 2;
    dr_pcdyn *pd = NULL;
    if (pe->kind <= EV_INSTR_ENC) {
        uint64_t ppc = trz_ld_le64(buf + pe->instr * DR_REC + 4);
        agree = m->fl.nexp_ok && ppc == m->fl.nexp;
        pd = dyn_get(m, ppc);
    }
    unsigned ml = m->mlen < 2048 ? bitlen(m->mlen) : 11;
    FIELD(F_MATCH);
    int hit = rcd_cbit(c, enc,
                       &m->mm_hit[(((ml * EV_N + pe->kind) * 3 + agree) * 256 + (pd ? pd->mhist : 0)) * 2 +
                                  (m->evk[mp] == 1)],
                       enc && pn <= nrec - i && !memcmp(buf + i * DR_REC, buf + mp * DR_REC, pn * DR_REC), CLIM);
    if (pd) pd->mhist = (uint8_t)(pd->mhist << 1 | (unsigned)hit);
    if (!hit && pe->kind <= EV_INSTR_ENC && pe->nmem) {
        hint->pc = trz_ld_le64(buf + pe->instr * DR_REC + 4);
        hint->nmem = pe->nmem;
        hint->mem = buf + (pe->instr + 1) * DR_REC;
    }
    return hit;
}

/* After the event at record i (n records, hit: it was a copy): the
 * context now ends with it; a miss looks up where the context was last
 * (a candidate stands when the event before it is this one), and the
 * table learns where this one ends. */
TRZ_FORCE_INLINE void mm_after(dr_model *m, const uint8_t *buf, size_t i, size_t n, int hit)
{
    for (unsigned k = MM_CTX - 1; k > 0; k--) m->mfp[k] = m->mfp[k - 1];
    m->mfp[0] = event_fp(buf + i * DR_REC, n);
    uint64_t key = m->mfp[0];
    for (unsigned k = 1; k < MM_CTX; k++) key = key * 31 + m->mfp[k];
    uint32_t *slot = &m->mtab[(key * 0x9E3779B97F4A7C15ull) >> (64 - m->mt_bits)];
    /* the entries are the chain's record numbers + 1 (gpos 0: the chunk's
     * own), the buffer's index here */
    uint32_t g = (uint32_t)m->gpos;
    if (hit) {
        m->mlen++;
    } else {
        m->mlen = 0;
        uint32_t s = *slot;
        size_t p = (size_t)(uint32_t)(s - 1 - g);
        if (s && p >= n && p <= i && !memcmp(buf + (p - n) * DR_REC, buf + i * DR_REC, n * DR_REC))
            m->mp = p + 1;
    }
    *slot = (uint32_t)(g + i + n + 1);
    m->evk[i] = (uint8_t)(1 + hit);
}

/* The chunk's events.  With the match model, each event is first offered
 * as a copy of the one that followed the last occurrence of the current
 * context (mm_offer); a copy is replayed through the models so they stay
 * as if it had been coded; otherwise the event is coded, with the
 * prediction as its hint.  Then the context moves on (mm_after). */
TRZ_FORCE_INLINE int dr_code(dr_model *m, rc *c, const int enc, const uint8_t *in, uint8_t *out, size_t i, size_t nrec)
{
    const uint8_t *buf = enc ? in : out;
    unsigned nev = 0;
    while (i < nrec) {
        if (!enc && !(++nev & 1023) && rc_dec_bad(c)) return -1;
        if (m->oom) return -2;
        long n;
        int hit = 0;
        dr_hint hint = { 0, 0, 0, 0, NULL };
        if (m->mp) {
            size_t mp = m->mp - 1;
            dr_event pe;
            dr_parse_event(buf, mp, i, &pe);
            size_t pn = event_records(&pe, mp);
            hit = mm_offer(m, c, enc, buf, i, nrec, mp, &pe, pn, &hint);
            if (hit) {
                if (pn > nrec - i) return -1;
                if (!enc) memcpy(out + i * DR_REC, out + mp * DR_REC, pn * DR_REC);
                n = event_replay(m, buf, i, i + pn, &pe, mp);
                if (n != (long)pn) return n < 0 ? (int)n : -1;
            }
            m->mp += pn;
            /* the next prediction's records, while this event is coded */
            if (!hit) __builtin_prefetch(buf + (m->mp - 1) * DR_REC);
        }
        if (!hit) {
            n = enc ? event_enc(m, c, in, out, i, nrec, &hint) : event_dec(m, c, in, out, i, nrec, &hint);
            if (n < 0) return (int)n;
        }
        if (m->match) mm_after(m, buf, i, (size_t)n, hit);
        i += (size_t)n;
    }
    return 0;
}

int dr_code_enc(dr_model *m, rc *c, const uint8_t *in, size_t i, size_t nrec) { return dr_code(m, c, 1, in, NULL, i, nrec); }
int dr_code_dec(dr_model *m, rc *c, uint8_t *out, size_t i, size_t nrec) { return dr_code(m, c, 0, NULL, out, i, nrec); }
