/* rst_v1.c - model variant 1 of the RST codec: every field of every record
 * is predicted by per-CPU and per-PC models and the outcomes are coded bit by
 * bit with the shared range coder (../common/rc.h), each decision in the
 * context that decides it.  One range-coded stream (id 21) holds every
 * record, text and unknown rtypes included.  The model is written once
 * (`enc` is a constant in each of the two instances).  Set-up is in
 * rst_v1_model.c, the knowledge stream in rst_v1_know.c, what they share
 * in rst_v1_int.h.  Spec: rst.md, "Model variant 1". */
#include "rst_v1_int.h"

/* ---- the page table of PA-VA differences ---------------------------------------- */

static inline uint64_t pt_key(unsigned ctx, uint64_t va) { return ((va >> 13) ^ (uint64_t)ctx << 48) + 1; }
TRZ_FORCE_INLINE pt_ent *pt_slot(model1 *m, unsigned ctx, uint64_t va)
{
    uint64_t v = va >> 13;
    return &m->pt[(v ^ (v >> PT_BITS) ^ hash64(ctx, PT_BITS)) & ((1u << PT_BITS) - 1)];
}

/* State of a page against the CPU's current PA-VA difference: 0 the page is
 * the one known to use it, 1 the page table says the same, 2 it says
 * another, 3 the page is unknown. */
TRZ_FORCE_INLINE unsigned page_state(model1 *m, unsigned ctx, uint64_t va, uint64_t cur_page, uint64_t cur, int known)
{
    if (!known) return 3;
    if ((va >> 13) == cur_page) return 0;
    pt_ent *p = pt_slot(m, ctx, va);
    if (p->key != pt_key(ctx, va)) return 3;
    return p->val == cur ? 1 : 2;
}

static const uint8_t s3[4] = { 0, 0, 1, 2 }; /* page states 0 and 1 alike */

/* ---- INSTR ------------------------------------------------------------------- */

/* The match model's prediction for this INSTR: valid when the predicted
 * record has the same PC. */
typedef struct { int ok; unsigned len, bt; uint64_t ea; } match_info;

/* What the PAVADIFF model needs of the INSTR it precedes. */
typedef struct { uint64_t pc, ea; int mem, qpv; } instr_info;

TRZ_FORCE_INLINE uint64_t cti_target(const cpu1 *cs, const pc_ent *e, uint32_t iw, unsigned cls, uint64_t pc)
{
    switch (cls) {
    case C_CALL: case C_BCOND: case C_BA: case C_BN: return sparc_direct_target(iw, cls, pc);
    case C_RET: return cs->ras[cs->ras_top % RAS_N];
    default: return e->last;
    }
}

/* PC: 1 = the predicted flow; else the jump table (after the last PC or the
 * trap just taken), the other fall-through, or a delta. */
TRZ_FORCE_INLINE rc_prob *pc_prob(model1 *m, const cpu1 *cs) { return &m->p_pc[cs->last_cls][cs->last_tr][cs->pend_valid]; }

TRZ_FORCE_INLINE uint64_t pc_code(model1 *m, rc *c, cpu1 *cs, uint64_t pc, int q, const int enc)
{
    RSTAT(ST_PC);
    uint64_t p0 = cs->pred_pc;
    if (q == Q_HIT || (q == Q_ANY && rcd_bit(c, enc, pc_prob(m, cs), pc != p0) == 0)) return p0;
    uint64_t key = cs->trap_key ? (0xF000000000000000ull | cs->trap_key) : cs->last_pc;
    uint64_t *jte = &m->jt[hash64(key, JT_BITS)];
    int t = cs->trap_key != 0;
    if (rcd_bit(c, enc, &m->p_pcjt[t], pc != *jte) == 0) pc = *jte;
    else {
        uint64_t lp = cs->last_pc, p2 = p0 == lp + 4 ? lp + 8 : lp + 4;
        if (rcd_bit(c, enc, &m->p_pcp2[t], pc != p2) == 0) pc = p2;
        else pc = p0 + (uint64_t)rcd_sint(c, enc, m->i_pc.len[0], m->i_pc.bits, (int64_t)(pc - p0));
    }
    *jte = pc;
    return pc;
}

/* A first-seen instruction word, field by field, each in the context of
 * the fields before it. */
static TRZ_NOINLINE uint32_t iw_fields_enc(model1 *m, rc *c, uint32_t iw);
static TRZ_NOINLINE uint32_t iw_fields_dec(model1 *m, rc *c);

TRZ_FORCE_INLINE uint32_t iw_fields(model1 *m, rc *c, uint32_t iw, const int enc)
{
    unsigned op = rcd_tree(c, enc, m->t_op, 2, iw >> 30);
    if (op == 1) {
        int64_t d = rcd_sint(c, enc, m->i_disp.len[0], m->i_disp.bits, (int64_t)sext(iw & 0x3fffffff, 30));
        return 1u << 30 | ((uint32_t)d & 0x3fffffff);
    }
    if (op == 0) {
        unsigned op2 = rcd_tree(c, enc, m->t_op2[0], 3, (iw >> 22) & 7);
        unsigned ac = rcd_tree(c, enc, m->t_cond[op2 == 4], 5, (iw >> 25) & 31); /* a + cond, or rd */
        uint32_t w = ac << 25 | op2 << 22;
        if (op2 == 4) { /* sethi: the immediate's top 10 bits, then 12 more */
            unsigned hi = rcd_tree(c, enc, m->t_imm22, 10, (iw >> 12) & 1023);
            unsigned lo = rcd_direct(c, enc, iw & 4095, 12);
            return w | hi << 12 | lo;
        }
        int bits = op2 == 2 || op2 == 6 ? 22 : op2 == 1 || op2 == 5 ? 19 : op2 == 3 ? 16 : 22;
        if (op2 == 3) {
            int64_t d = rcd_sint(c, enc, m->i_disp.len[3], m->i_disp.bits, (int64_t)sext(((iw >> 6) & 0xc000) | (iw & 0x3fff), 16));
            unsigned mid = rcd_direct(c, enc, (iw >> 14) & 0x3f, 6); /* p, rs1 */
            uint32_t u = (uint32_t)d & 0xffff;
            return w | (u >> 14) << 20 | mid << 14 | (u & 0x3fff);
        }
        if (bits == 19) {
            unsigned cc = rcd_direct(c, enc, (iw >> 19) & 7, 3); /* cc1 cc0 p */
            int64_t d = rcd_sint(c, enc, m->i_disp.len[1], m->i_disp.bits, (int64_t)sext(iw & 0x7ffff, 19));
            return w | cc << 19 | ((uint32_t)d & 0x7ffff);
        }
        int64_t d = rcd_sint(c, enc, m->i_disp.len[2 + 2 * (op2 != 2 && op2 != 6)], m->i_disp.bits, (int64_t)sext(iw & 0x3fffff, 22));
        return w | ((uint32_t)d & 0x3fffff);
    }
    unsigned o = op - 2;
    unsigned op3 = rcd_tree(c, enc, m->t_op3[o], 6, (iw >> 19) & 63);
    unsigned rd = rcd_tree(c, enc, m->t_rd[o][op3], 5, (iw >> 25) & 31);
    unsigned rs1 = rcd_tree(c, enc, m->t_rs1[o][op3], 5, (iw >> 14) & 31);
    unsigned i = rcd_bit(c, enc, &m->p_i[o][op3], (iw >> 13) & 1);
    uint32_t w = op << 30 | rd << 25 | op3 << 19 | rs1 << 14 | i << 13;
    if (i) {
        int64_t s = rcd_sint(c, enc, m->i_simm.len[op3], m->i_simm.bits, (int64_t)sext(iw & 0x1fff, 13));
        return w | ((uint32_t)s & 0x1fff);
    }
    unsigned asi = rcd_tree(c, enc, m->t_asi, 8, (iw >> 5) & 0xff);
    unsigned rs2 = rcd_tree(c, enc, m->t_rs2, 5, iw & 31);
    return w | asi << 5 | rs2;
}
static TRZ_NOINLINE uint32_t iw_fields_enc(model1 *m, rc *c, uint32_t iw) { return iw_fields(m, c, iw, 1); }
static TRZ_NOINLINE uint32_t iw_fields_dec(model1 *m, rc *c) { return iw_fields(m, c, 0, 0); }

/* The I-cache word of pc, to read and write (with knowledge: the PC's). */
TRZ_FORCE_INLINE uint32_t *ic_at(model1 *m, uint64_t pc)
{
    size_t i = pcidx(pc, IC_BITS);
    if (!m->ick) return &m->icache[i];
    rst_ic_ent *e = &m->ick[i];
    if (TRZ_UNLIKELY(e->tag != rst_ic_tag(pc))) rst_ic_fill(m->know, e, pc);
    return &e->iw;
}

TRZ_FORCE_INLINE uint32_t iw_code(model1 *m, rc *c, uint64_t pc, uint32_t iw, int q, const int enc)
{
    RSTAT(ST_IW);
    uint32_t *ice = ic_at(m, pc);
    if (q == Q_HIT || (q == Q_ANY && rcd_bit(c, enc, &m->p_iw[*ice == 0], iw != *ice) == 0)) return *ice;
    iw = enc ? iw_fields_enc(m, c, iw) : iw_fields_dec(m, c);
    /* a sign-extended field must give back the word's own bits */
    *ice = iw;
    return iw;
}

static inline int32_t wclamp(int32_t w) { return w > (1 << 22) ? 1 << 22 : w < -(1 << 22) ? -(1 << 22) : w; }

/* Branch direction of a BCOND: two predictions, from (PC, global history)
 * and (PC, local history), mixed in the logistic domain. */
TRZ_FORCE_INLINE int bt_code(model1 *m, rc *c, cpu1 *cs, pc_ent *e, uint64_t pc, const match_info *mi, int bt, const int enc)
{
    RSTAT(ST_BT);
    uint32_t h = (uint32_t)((pc >> 2) * 0x9E3779B1u);
    rc_prob *q1 = &m->bh1[(h ^ (cs->ghist & 0xFFF) * 0x2C1B3C6Du) >> (32 - BH_BITS)];
    rc_prob *q2 = &m->bh2[(h ^ (e->lhist & 0xFF) * 0x297A2D39u) >> (32 - BH_BITS)];
    unsigned ml = mi->len > 15 ? 3 : mi->len > 3 ? 2 : mi->len > 0;
    rc_prob *q3 = &m->p_mbt[mi->ok ? 1 + mi->bt : 0][ml];
    int s1 = m->str[4095 - (*q1 >> 4)], s2 = m->str[4095 - (*q2 >> 4)], s3 = m->str[4095 - (*q3 >> 4)];
    int32_t *w = m->bw[(mi->ok ? 1 + mi->bt : 0) * 16 + (e->lhist & 15)];
    int dot = (int)(((int64_t)w[0] * s1 + (int64_t)w[1] * s2 + (int64_t)w[2] * s3 + (int64_t)w[3] * 256) >> 16);
    int p1 = rc_squash(dot);
    p1 = p1 < 1 ? 1 : p1 > 4095 ? 4095 : p1;
    bt = rcd_code(c, enc, (uint32_t)(4096 - p1) << 4, bt);
    int err = ((bt << 12) - p1) * 6;
    w[0] = wclamp(w[0] + ((s1 * err) >> 10));
    w[1] = wclamp(w[1] + ((s2 * err) >> 10));
    w[2] = wclamp(w[2] + ((s3 * err) >> 10));
    w[3] = wclamp(w[3] + ((256 * err) >> 10));
    *q1 = (rc_prob)rc_adapt(*q1, bt, 4);
    *q2 = (rc_prob)rc_adapt(*q2, bt, 4);
    *q3 = (rc_prob)rc_adapt(*q3, bt, 5);
    return bt;
}

/* Flags byte and notused3: one decision "as predicted" (the byte last seen
 * for this class, annul state and branch outcome, with the CPU's privilege
 * bits), else bit by bit. */
TRZ_FORCE_INLINE unsigned flags_pred(const model1 *m, const cpu1 *cs, unsigned cls, int btk)
{
    unsigned pf = (m->ftab[cls * 4 + cs->annul_next * 2u + (btk > 0)] & ~0x18u) | (cs->last_flags & 0x18u);
    if (btk >= 0) pf = (pf & ~4u) | (unsigned)btk << 2;
    return pf;
}

TRZ_FORCE_INLINE unsigned flags_code(model1 *m, rc *c, cpu1 *cs, unsigned cls, int btk, unsigned f, unsigned *nu3, int q,
                          const int enc)
{
    RSTAT(ST_FL);
    unsigned a = cs->annul_next;
    uint8_t *ft = &m->ftab[cls * 4 + a * 2 + (btk > 0)];
    unsigned pf = flags_pred(m, cs, cls, btk);
    unsigned pn = cs->last_nu3;
    if (q == Q_HIT || (q == Q_ANY && rcd_bit(c, enc, &m->p_fl[cls][a], f != pf || *nu3 != pn) == 0)) {
        f = pf;
        *nu3 = pn;
    } else {
        unsigned g = 0;
        for (int b = 7; b >= 0; b--) {
            int pb = (pf >> b) & 1;
            if (b == 2 && btk >= 0) { g |= (unsigned)pb << 2; continue; }
            g |= (unsigned)(rcd_bit(c, enc, &m->p_flb[b][pb], ((f >> b) & 1) != (unsigned)pb) ^ pb) << b;
        }
        f = g;
        if (rcd_bit(c, enc, &m->p_nu3, *nu3 != pn)) *nu3 = rcd_direct(c, enc, *nu3, 6);
        else *nu3 = pn;
    }
    *ft = (uint8_t)f;
    cs->last_flags = (uint8_t)f;
    cs->last_nu3 = (uint8_t)*nu3;
    return f;
}

/* Memory EA: candidates 0 stride, 1 base register + immediate, 2 last EA,
 * 3 the CPU's last memory EA, 4 the match model's, 5 the CPU's last move
 * scaled, 6 address correlation; the one that hit last at this PC is tried
 * first.  Else (7) a delta from a base the encoder picks. */
TRZ_FORCE_INLINE uint64_t simm_of(uint32_t iw) { return sext(iw & 0x1fff, 13) & (0 - (uint64_t)((iw >> 13) & 1)); }

TRZ_FORCE_INLINE uint64_t *ac_slot(const model1 *m, const pc_ent *e)
{
    uint64_t k = (uint64_t)(e - m->pe) << 40 ^ e->last; /* the entry's index, not its address */
    return &m->ac[(k * 0x9E3779B97F4A7C15ull) >> (64 - AC_BITS)];
}

TRZ_FORCE_INLINE uint64_t ea_mem(model1 *m, rc *c, cpu1 *cs, pc_ent *e, uint32_t iw, const match_info *mi, uint64_t ea,
                      const int enc)
{
    RSTAT(ST_EAM_HIT);
#ifdef RST_STATS
    if (enc) { rst_pc_cur = (unsigned)((e - m->pe) & 65535); rst_pc_pc[rst_pc_cur] = e->last; rst_pc_iw[rst_pc_cur] = iw; rst_pc_n[rst_pc_cur]++; }
#endif
    unsigned rs1 = (iw >> 14) & 31;
    uint64_t simm = simm_of(iw);
    unsigned hk = e->hitk, k = EA_NC;
    uint64_t *acs = ac_slot(m, e);
    /* candidates 0..5; 6 (a load likely to miss the caches) only when asked for */
    uint64_t cand[EA_NC] = { e->last + (uint64_t)e->stride, cs->regbase[rs1] + simm, e->last, cs->last_mea,
                             mi->ok ? mi->ea : e->last + (uint64_t)e->stride,
                             e->last + ((cs->last_mea - e->prevl) << e->lsh), 0 };
    if (enc) {
        k = EA_NC;
        if (hk < EA_NC - 1 && ea == cand[hk]) k = hk;
        else if (hk == EA_NC - 1 && ea == *acs) k = hk;
        else {
            for (unsigned j = 0; j < EA_NC - 1; j++)
                if (ea == cand[j]) { k = j; break; }
            if (k == EA_NC && ea == *acs) k = EA_NC - 1;
        }
    }
    unsigned ml = mi->ok ? 1 + (mi->len > 0) + (mi->len > 7) : 0;
    r_sat *sat = m->sat ? &m->sat[SAT_EAH] : NULL;
    if (r_bit_sat(c, enc, &m->p_eah[hk][ml][e->hhist & 3], sat, enc ? k != hk : 0) == 0) k = hk;
    else k = rcd_tree(c, enc, m->t_eak[hk][ml], 3, k);
    if (k > EA_NC) { m->err = 1; k = EA_NC; }
    unsigned sz = (iw >> 19) & 3;
    if (k < EA_NC) {
        ea = k == EA_NC - 1 ? *acs : cand[k];
    } else {
        RSTAT(ST_EAM_DELTA);
        /* b 0..2: a delta from the stride, base register or CPU's last EA
         * candidate; 3: the bits that differ from the last EA here (an EA
         * anywhere in a region).  The encoder takes the cheapest. */
        static const uint8_t bidx[3] = { 0, 1, 3 };
        unsigned b = 0, lc = e->lastlen > 40 ? 40 : e->lastlen;
        rc_prob *lt = m->i_eam.len[lc * 4 + sz], *xt = m->i_eax.len[lc * 4 + sz];
        rc_prob *bt = m->t_base[e->base & 3];
        if (enc) {
            uint32_t best = rc_uint_cost(xt, m->i_eax.bits, ea ^ e->last) + rc_tree_cost(bt, 2, 3);
            b = 3;
            for (unsigned j = 0; j < 3; j++) {
                uint32_t cost = rc_sint_cost(lt, m->i_eam.bits, (int64_t)(ea - cand[bidx[j]])) + rc_tree_cost(bt, 2, j);
                if (cost < best) { best = cost; b = j; }
            }
        }
        b = rcd_tree(c, enc, bt, 2, b);
        uint64_t z;
        if (b == 3) {
            z = rcd_uint(c, enc, xt, m->i_eax.bits, ea ^ e->last);
            ea = e->last ^ z;
        } else {
            int64_t d = rcd_sint(c, enc, lt, m->i_eam.bits, (int64_t)(ea - cand[bidx[b]]));
            ea = cand[bidx[b]] + (uint64_t)d;
            z = d < 0 ? 0 - (uint64_t)d : (uint64_t)d;
        }
        e->lastlen = (uint8_t)rc_bitlen64(z);
        e->base = (uint8_t)b;
    }
#ifdef RST_STATS
    if (enc) rst_pc_k[rst_pc_cur][k]++;
#endif
    if (k >= 5) *acs = ea; /* irregular EAs: remember what followed */
    e->hitk = (uint8_t)k;
    e->hhist = (uint8_t)(e->hhist << 1 | (k < EA_NC));
    {   /* an EA that moves with the one before it, scaled (an index into arrays of 1, 2, 4, 8 bytes) */
        uint64_t dd = ea - e->last, dl = cs->last_mea - e->prevl;
        if (dl)
            for (unsigned sh = 0; sh < 4; sh++)
                if (dd == dl << sh) { e->lsh = (uint8_t)sh; break; }
        e->prevl = cs->last_mea;
    }
    e->stride = (int64_t)(ea - e->last);
    e->last = ea;
    cs->regbase[rs1] = ea - simm; /* (reg + reg: the sum; that serves better than keeping the old value) */
    cs->last_mea = ea;
    return ea;
}

/* A CTI's EA: the target when taken, the fall-through (or the target, as
 * the trace's convention for untaken branches goes) when not. */
TRZ_FORCE_INLINE uint64_t ea_cti(model1 *m, rc *c, cpu1 *cs, pc_ent *e, unsigned cls, int bt, uint64_t tgt, uint64_t pc,
                      const match_info *mi, uint64_t ea, int q, const int enc)
{
    RSTAT(ST_EA_CTI);
    uint64_t unt = cs->untaken_mode ? tgt : pc + 8, c0 = bt ? tgt : unt;
    int mok = mi->ok && mi->ea != c0;
    if (q == Q_HIT || (q == Q_ANY && rcd_bit(c, enc, &m->p_cti[cls][bt][mok], ea != c0) == 0)) ea = c0;
    else if (mok && rcd_bit(c, enc, &m->p_ctim[cls], ea != mi->ea) == 0) ea = mi->ea;
    else if (rcd_bit(c, enc, &m->p_cti2[cls], ea != e->last) == 0) ea = e->last;
    else ea = c0 + (uint64_t)rcd_sint(c, enc, m->i_cti.len[0], m->i_cti.bits, (int64_t)(ea - c0));
    if ((cls == C_BCOND || cls == C_BN) && !bt) {
        if (ea == pc + 8) cs->untaken_mode = 0;
        else if (ea == tgt) cs->untaken_mode = 1;
    }
    e->last = ea;
    return ea;
}

TRZ_FORCE_INLINE uint64_t ea_inv(model1 *m, rc *c, cpu1 *cs, unsigned cls, uint64_t ea, int q, const int enc)
{
    RSTAT(ST_EA_INV);
    if (q == Q_HIT || (q == Q_ANY && rcd_bit(c, enc, &m->p_inv[cls], ea != cs->inv_ea) == 0)) return cs->inv_ea;
    if (rcd_bit(c, enc, &m->p_inv0, ea != 0) == 0) ea = 0;
    else ea = cs->inv_ea + (uint64_t)rcd_sint(c, enc, m->i_inv.len[0], m->i_inv.bits, (int64_t)(ea - cs->inv_ea));
    cs->inv_ea = ea;
    return ea;
}

/* One INSTR of CPU cs; r is its record (read when encoding, written when
 * decoding). */
/* One INSTR of CPU cs; r is its record (read when encoding, written when
 * decoding).  qpc, qiw: what the step's first decision settled of the PC and
 * the word.  After the branch outcome, one more decision covers the flags
 * and, unless the EA takes the memory path, the EA and "no PAVADIFF before
 * it" (ii->qpv tells the caller what it settled of that). */
TRZ_FORCE_INLINE void instr_code(model1 *m, rc *c, cpu1 *cs, uint8_t *r, instr_info *ii, const uint8_t *P, unsigned mlen,
                      int qpc, int qiw, int pair, const int enc)
{
    uint64_t pc = pc_code(m, c, cs, enc ? trz_ld_be64(r + 8) : 0, qpc, enc);
    match_info mi = { 0, mlen, 0, 0 };
    if (P && trz_ld_be64(P + 8) == pc) {
        mi.ok = 1;
        mi.bt = (P[1] >> 2) & 1;
        mi.ea = trz_ld_be64(P + 16);
    }
    uint32_t iw = iw_code(m, c, pc, enc ? trz_ld_be32(r + 4) : 0, qiw, enc);
    unsigned cls = classify(m, iw);
    pc_ent *e = &m->pe[pcidx(pc, PE_BITS) ^ cs->eah];
    int btk = -1;
    if (cls == C_BCOND) {
        btk = bt_code(m, c, cs, e, pc, &mi, enc ? (r[1] >> 2) & 1 : 0, enc);
        cs->ghist = cs->ghist << 1 | (unsigned)btk;
        e->lhist = (uint16_t)(e->lhist << 1 | (unsigned)btk);
    }
    uint64_t tgt = 0;
    if ((DCTI_MASK >> cls) & 1) tgt = cti_target(cs, e, iw, cls, pc);
    /* the second decision: flags [, EA, no PAVADIFF] as predicted */
    unsigned pf = flags_pred(m, cs, cls, btk), nu3 = enc ? r[3] & 0x3fu : 0;
    int pev = (pf >> 6) & 1, pbt = (pf >> 2) & 1;
    int pmp = pev && (cls == C_MEM || cls == C_ALU || cls == C_JMPL); /* the memory path: EA coded apart */
    uint64_t ea = enc ? trz_ld_be64(r + 16) : 0, pea = 0;
    rc_prob *pb[3];
    pb[0] = &m->p_fl[cls][cs->annul_next];
    int nb = 1;
    if (!pmp) {
        if (pev) {
            uint64_t c0 = pbt ? tgt : cs->untaken_mode ? tgt : pc + 8;
            pb[1] = &m->p_cti[cls][pbt][mi.ok && mi.ea != c0];
            pea = c0;
        } else {
            pb[1] = &m->p_inv[cls];
            pea = cs->inv_ea;
        }
        unsigned sp = page_state(m, cs->pv_ictx, pc, cs->pv_pcpage, cs->pv_pc, cs->pv_known);
        pb[2] = &m->p_pvhas[s3[sp]][0][0];
        nb = 3;
    }
    int fail = nb;
    if (enc) fail = r[1] != pf || nu3 != cs->last_nu3 ? 0 : nb == 1 ? 1 : ea != pea ? 1 : pair ? 2 : 3;
    RSTAT(ST_FL);
    fail = r_multi_s(c, enc, pb, nb, fail, m->sat ? &m->sat[nb == 1 ? SAT_FL1 : SAT_FL3] : NULL);
    unsigned f = flags_code(m, c, cs, cls, btk, enc ? r[1] : 0, &nu3, Q_OF(fail, 0), enc);
    int qea = nb == 3 ? Q_OF(fail, 1) : Q_ANY;
    ii->qpv = nb == 3 ? Q_OF(fail, 2) : Q_ANY;
    int bt = (f >> 2) & 1, ev = (f >> 6) & 1;
    int mem = 0;
    if (ev) {
        if (cls == C_MEM || cls == C_ALU) {
            ea = ea_mem(m, c, cs, e, iw, &mi, ea, enc);
            mem = cls == C_MEM;
        } else {
            ea = ea_cti(m, c, cs, e, cls, bt, tgt, pc, &mi, ea, qea, enc);
        }
    } else {
        ea = ea_inv(m, c, cs, cls, ea, qea, enc);
    }
    /* return-address stack: CALL or JMPL writing %o7 push, RET pops */
    if (cls == C_CALL || (cls == C_JMPL && ((iw >> 25) & 31) == 15)) cs->ras[++cs->ras_top % RAS_N] = pc + 8;
    else if (cls == C_RET) cs->ras_top--;
    /* next PC: a taken DCTI's target follows its delay slot */
    uint64_t np = cs->pend_valid ? cs->pend_tgt : pc + 4;
    if (cls == C_DONE && ev) np = ea;
    cs->pend_valid = (uint8_t)(((TAKEN_MASK >> cls) & 1) | (cls == C_BCOND && bt));
    cs->pend_tgt = ev ? ea : tgt;
    cs->pred_pc = np;
    cs->annul_next = (uint8_t)(((iw >> 29) & 1) & (((ANNUL_MASK >> cls) & 1) | (cls == C_BCOND && !bt)));
    cs->last_pc = pc;
    cs->last_cls = (uint8_t)cls;
    cs->last_tr = (uint8_t)((f >> 5) & 1);
    if (!((f >> 5) & 1)) cs->trap_key = 0;
    m->run += !(f & 2);
    ii->pc = pc;
    ii->ea = ea;
    ii->mem = mem && ev;
    if (!enc) {
        rst_put_instr(r, cs->hdr, f, nu3, iw, pc, ea);
    }
}

/* ---- PAVADIFF ------------------------------------------------------------------ */

/* A PA-VA difference: the page table's, the last, or the physical page. */
TRZ_FORCE_INLINE uint64_t pa_code(model1 *m, rc *c, int w, pt_ent *pe, uint64_t key, uint64_t last, uint64_t va, int vok,
                       uint64_t v, const int enc)
{
    int tok = pe && pe->key == key;
    if (tok) {
        if (rcd_bit(c, enc, &m->p_pvpt[w][0], v != pe->val) == 0) return pe->val;
    }
    if (rcd_bit(c, enc, &m->p_pvlast[w][tok], v != last) == 0) return last;
    if (!vok) {
        if (rcd_bit(c, enc, &m->p_pvz[w], v != 0) == 0) return 0;
    }
    uint64_t base = vok ? va & ~(uint64_t)0x1fff : 0, pa = v + base;
    if (rcd_bit(c, enc, &m->p_pvpg[w], (pa & 0x1fff) != 0) == 0)
        pa = rcd_uint(c, enc, m->i_pva.len[w], m->i_pva.bits, pa >> 13) << 13;
    else
        pa = rcd_direct64(c, enc, pa);
    return pa - base;
}

/* A PAVADIFF of CPU cs, paired with the INSTR ii that follows it (pair), or
 * alone. */
TRZ_FORCE_INLINE void pv_code(model1 *m, rc *c, cpu1 *cs, unsigned cpu, uint8_t *r, const instr_info *ii, int pair, const int enc)
{
    RSTAT(ST_PV);
    unsigned ev = enc ? r[1] >> 7 : 0, nu13 = enc ? (unsigned)(r[2] & 0x1f) << 8 | r[3] : 0;
    unsigned ictx = enc ? trz_ld_be16(r + 4) : 0, dctx = enc ? trz_ld_be16(r + 6) : 0;
    int em = pair ? 1 + ii->mem : 0;
    ev = (unsigned)rcd_bit(c, enc, &m->p_pvev[em], (int)ev);
    if (rcd_bit(c, enc, &m->p_pvnu, nu13 != cs->pv_nu13)) nu13 = rcd_direct(c, enc, nu13, 13);
    else nu13 = cs->pv_nu13;
    if (rcd_bit(c, enc, &m->p_pvctx[0], ictx != cs->pv_ictx)) ictx = rcd_direct(c, enc, ictx, 16);
    else ictx = cs->pv_ictx;
    if (rcd_bit(c, enc, &m->p_pvctx[1], dctx != cs->pv_dctx)) dctx = rcd_direct(c, enc, dctx, 16);
    else dctx = cs->pv_dctx;
    uint64_t kpc = pair ? ii->pc : cs->pred_pc;
    pt_ent *pp = pt_slot(m, ictx, kpc);
    uint64_t pcpa = pa_code(m, c, 0, pp, pt_key(ictx, kpc), cs->pv_pc, kpc, 1, enc ? trz_ld_be64(r + 8) : 0, enc);
    int eok = pair && ii->mem;
    pt_ent *pe = eok ? pt_slot(m, dctx, ii->ea) : NULL;
    uint64_t eapa = pa_code(m, c, 1, pe, eok ? pt_key(dctx, ii->ea) : 0, cs->pv_ea, eok ? ii->ea : 0, eok,
                            enc ? trz_ld_be64(r + 16) : 0, enc);
    pp->key = pt_key(ictx, kpc);
    pp->val = pcpa;
    cs->pv_pcpage = kpc >> 13;
    if (pe && ev) {
        pe->key = pt_key(dctx, ii->ea);
        pe->val = eapa;
        cs->pv_eapage = ii->ea >> 13;
        cs->pv_eav = eapa;
        cs->pv_eknown = 1;
    }
    cs->pv_known = 1;
    cs->pv_ev = (uint8_t)ev;
    cs->pv_nu13 = (uint16_t)nu13;
    cs->pv_ictx = (uint16_t)ictx;
    cs->pv_dctx = (uint16_t)dctx;
    cs->pv_pc = pcpa;
    cs->pv_ea = eapa;
    if (!enc) {
        rst_put_pavadiff(r, ev, cpu, nu13, ictx, dctx, pcpa, eapa);
    }
}

/* After an INSTR: was it preceded by a PAVADIFF?  A tracer writes one when
 * the instruction's pages map with other PA-VA differences than the CPU's
 * last ones, which the page table (learnt from PAVADIFFs and from the
 * INSTRs without one) tells.  Returns the decision. */
TRZ_FORCE_INLINE int pv_has(model1 *m, rc *c, cpu1 *cs, const instr_info *ii, int has, int q, const int enc)
{
    RSTAT(ST_PVHAS);
    unsigned sp = page_state(m, cs->pv_ictx, ii->pc, cs->pv_pcpage, cs->pv_pc, cs->pv_known);
    unsigned se = ii->mem ? page_state(m, cs->pv_dctx, ii->ea, cs->pv_eapage, cs->pv_eav, cs->pv_eknown) : 0;
    if (q != Q_ANY) has = q == Q_MISS;
    else has = r_bit_sat(c, enc, &m->p_pvhas[s3[sp]][s3[se]][ii->mem], m->sat ? &m->sat[SAT_PVHAS] : NULL, has);
    if (!has) { /* the pages map as the CPU's last differences say */
        if (sp && cs->pv_known) {
            pt_ent *p = pt_slot(m, cs->pv_ictx, ii->pc);
            p->key = pt_key(cs->pv_ictx, ii->pc);
            p->val = cs->pv_pc;
            cs->pv_pcpage = ii->pc >> 13;
        }
        if (se && cs->pv_eknown) {
            pt_ent *p = pt_slot(m, cs->pv_dctx, ii->ea);
            p->key = pt_key(cs->pv_dctx, ii->ea);
            p->val = cs->pv_eav;
            cs->pv_eapage = ii->ea >> 13;
        }
    }
    return has;
}

/* ---- other record types ------------------------------------------------------ */

/* Text (HEADER, STRDESC, STRCONT) and unknown records: bytes 1..23 through
 * byte trees, text in the context of the byte before, unknown records of
 * the byte's position. */
TRZ_FORCE_INLINE void bytes23(model1 *m, rc *c, uint8_t *r, int text, const int enc)
{
    unsigned prev = 0;
    for (int k = 1; k < RST_REC; k++) {
        rc_prob *t = text ? m->t_text[prev] : m->t_byte[k];
        prev = rcd_tree(c, enc, t, 8, enc ? r[k] : 0);
        if (!enc) r[k] = (uint8_t)prev;
    }
}

/* A TLB record.  Dumps list a CPU's TLB entry by entry: the index counts
 * up, the tag is (virtual page, context) and neighbouring entries come from
 * a few regions of contiguous pages mapped to contiguous frames.  The tag's
 * context is one of the recent ones; its page a delta from the last page of
 * one of 16 recent regions (the encoder picks the nearest); the data word
 * the one last seen with the same tag, else the region's frame moved by the
 * page delta, with the region's flag bits. */
TRZ_FORCE_INLINE void tlb_code(model1 *m, rc *c, uint8_t *r, const int enc)
{
    RSTAT(ST_TLB);
    uint8_t *l = m->lastrec[RT_TLB];
    unsigned b1 = enc ? r[1] : 0, idx = enc ? trz_ld_be16(r + 2) : 0;
    uint32_t w = enc ? trz_ld_be32(r + 4) : 0;
    if (rcd_bit(c, enc, &m->p_tb1, b1 != l[1])) b1 = rcd_tree(c, enc, m->t_tb1, 8, b1);
    else b1 = l[1];
    unsigned pidx = (trz_ld_be16(l + 2) + 1) & 0xffff;
    if (rcd_bit(c, enc, &m->p_tidx, idx != pidx)) idx = rcd_direct(c, enc, idx, 16);
    else idx = pidx;
    if (rcd_bit(c, enc, &m->p_tw, w != trz_ld_be32(l + 4))) w = rcd_direct(c, enc, w, 32);
    else w = trz_ld_be32(l + 4);
    uint64_t tag = enc ? trz_ld_be64(r + 8) : 0, data = enc ? trz_ld_be64(r + 16) : 0;
    /* the context: 0 = raw, j = the j-th most recent */
    unsigned ctx = (unsigned)tag & 0x1fff, j = 0;
    if (enc)
        for (unsigned k = 1; k < 8; k++)
            if (m->tctx[k - 1] == ctx) { j = k; break; }
    j = rcd_tree(c, enc, m->t_tctx, 3, j);
    if (j) ctx = m->tctx[j - 1];
    else ctx = rcd_direct(c, enc, ctx, 13);
    if (j == 0) j = 8;
    for (unsigned k = j - 1; k > 0; k--) m->tctx[k] = m->tctx[k - 1];
    m->tctx[0] = (uint16_t)ctx;
    /* the page: the nearest recent region, then a delta */
    uint64_t vp = tag >> 13;
    unsigned g = 0;
    if (enc) {
        uint64_t best = ~0ull;
        for (unsigned k = 0; k < 16; k++) {
            uint64_t d = vp - m->tref_vp[k], z = (int64_t)d < 0 ? 0 - d : d;
            if (z < best) { best = z; g = k; }
        }
    }
    g = rcd_tree(c, enc, m->t_tref, 4, g);
    uint64_t rvp = m->tref_vp[g], rdata = m->tref_data[g];
    int64_t dv = rcd_sint(c, enc, m->i_tvp.len[g < 3 ? g : 3], m->i_tvp.bits, (int64_t)(vp - rvp));
    vp = (rvp + (uint64_t)dv) & ((1ull << 51) - 1);
    tag = vp << 13 | ctx;
    tlb_ent *t = &m->tlbd[hash64(tag, TD_BITS)];
    int hit = 0;
    if (t->tag == tag) hit = !rcd_bit(c, enc, &m->p_tlb[0], data != t->data);
    if (hit) data = t->data;
    else {
        const uint64_t PAM = (1ull << 28) - 1;
        uint64_t hi = data >> 41, lo = data & 0x1fff, pa = (data >> 13) & PAM;
        if (rcd_bit(c, enc, &m->p_thi, hi != rdata >> 41)) hi = rcd_direct(c, enc, (uint32_t)hi, 23);
        else hi = rdata >> 41;
        if (rcd_bit(c, enc, &m->p_tlo, lo != (rdata & 0x1fff))) lo = rcd_direct(c, enc, (uint32_t)lo, 13);
        else lo = rdata & 0x1fff;
        uint64_t ppa = (((rdata >> 13) & PAM) + (uint64_t)dv) & PAM;
        pa = (ppa + (uint64_t)rcd_sint(c, enc, m->i_tpa.len[g != 0], m->i_tpa.bits, (int64_t)sext((pa - ppa) & PAM, 28))) & PAM;
        data = hi << 41 | pa << 13 | lo;
    }
    t->tag = tag;
    t->data = data;
    for (unsigned k = g; k > 0; k--) { m->tref_vp[k] = m->tref_vp[k - 1]; m->tref_data[k] = m->tref_data[k - 1]; }
    m->tref_vp[0] = vp;
    m->tref_data[0] = data;
    if (!enc) {
        r[1] = (uint8_t)b1;
        trz_st_be16(r + 2, (uint16_t)idx);
        trz_st_be32(r + 4, w);
        trz_st_be64(r + 8, tag);
        trz_st_be64(r + 16, data);
    }
    memcpy(l, r, RST_REC);
}

static TRZ_NOINLINE void other_code(model1 *m, rc *c, uint8_t *r, unsigned rt, const int enc)
{
    RSTAT(ST_OTHER);
    if (!enc) r[0] = (uint8_t)rt;
    if (rt == RT_HEADER || rt == RT_STRDESC || rt == RT_STRCONT || !rst_known_rtype(rt)) {
        bytes23(m, c, r, rst_known_rtype(rt), enc);
        return;
    }
    if (rt == RT_TLB) { tlb_code(m, c, r, enc); return; }
    uint8_t *l = m->lastrec[rt];
    unsigned k = rt & 63;
    const uint64_t M56 = (1ull << 56) - 1;
    uint64_t lh = trz_ld_be64(l) & M56, h = enc ? trz_ld_be64(r) & M56 : 0;
    int64_t dh = rcd_sint(c, enc, m->i_oth.len[k * 3], m->i_oth.bits, (int64_t)sext((h - lh) & M56, 56));
    h = (lh + (uint64_t)dh) & M56;
    uint64_t la = trz_ld_be64(l + 8), a = enc ? trz_ld_be64(r + 8) : 0;
    a = la + (uint64_t)rcd_sint(c, enc, m->i_oth.len[k * 3 + 1], m->i_oth.bits, (int64_t)(a - la));
    uint64_t lb = trz_ld_be64(l + 16), b = enc ? trz_ld_be64(r + 16) : 0;
    if (rcd_bit(c, enc, &m->p_ob[k][0], b != lb) == 0) {
        b = lb;
    } else if (rcd_bit(c, enc, &m->p_ob[k][1], b != a + 4) == 0) {
        b = a + 4;
    } else {
        b = lb + (uint64_t)rcd_sint(c, enc, m->i_oth.len[k * 3 + 2], m->i_oth.bits, (int64_t)(b - lb));
    }
    if (!enc) {
        rst_put_words(r, rt, h, a, b);
    }
    memcpy(l, r, RST_REC);
    if (rt == RT_TRAP) {
        int cpu = rst_rec_cpu(r);
        get_cpu(m, (unsigned)cpu)->trap_key = 0x10000u | (trz_ld_be16(r + 2) & 0x3ff);
    }
}

/* ---- CPU interleaving --------------------------------------------------------- */

/* The CPU of an INSTR or PAVADIFF step: the current one while its run of
 * executed INSTRs is shorter than its last run (or an annulled slot is due),
 * else the one that followed it last time; then the other of the two; else
 * its number. */
TRZ_FORCE_INLINE int cpu_stay(const model1 *m) { return (m->run < m->curc->runlen) | m->curc->annul_next; }

TRZ_FORCE_INLINE rc_prob *cpu_prob(model1 *m) { return &m->p_cpu[cpu_stay(m)][m->run > 3 ? 3 : m->run]; }

TRZ_FORCE_INLINE unsigned cpu_code(model1 *m, rc *c, unsigned actual, int q, const int enc)
{
    RSTAT(ST_CPU);
    cpu1 *cc = m->curc;
    unsigned cur = m->cur, nx = cc->next;
    int stay = cpu_stay(m);
    unsigned p = stay ? cur : nx, alt = stay ? nx : cur, rl = m->run > 3 ? 3 : m->run;
    if (q == Q_HIT || (q == Q_ANY && rcd_bit(c, enc, &m->p_cpu[stay][rl], actual != p) == 0)) actual = p;
    else if (rcd_bit(c, enc, &m->p_cpu2[stay][rl], actual != alt) == 0) actual = alt;
    else actual = rcd_tree(c, enc, m->t_cpu, 10, actual);
    if (actual != cur) {
        cc->runlen = m->run;
        cc->next = actual;
        m->cur = actual;
        m->curc = get_cpu(m, actual);
        m->run = 0;
    }
    return actual;
}

/* ---- match model ----------------------------------------------------------------- */

/* Long repetition (an interpreter's loop, a matrix walked again): the INSTR
 * that followed the CPU's last three INSTRs (pc, EA) the last time they
 * occurred, then the ones after it, predict whole records.  Positions are
 * record indexes in the window (chained chunks: the chain's last records
 * before this chunk, rst_v1_hist_slide) followed by the chunk, so the records
 * themselves are the history. */
TRZ_FORCE_INLINE uint32_t mm_hash(const cpu1 *cs)
{
    return rc_hash((uint64_t)cs->mm_h[0] << 32 ^ cs->mm_h[1] ^ (uint64_t)cs->mm_h[2] * 0x9E3779B97F4A7C15ull);
}

/* After the INSTR at record idx: follow or drop the match, remember the
 * position after the context. */
TRZ_FORCE_INLINE void mm_update(model1 *m, cpu1 *cs, const uint8_t *P, int hit, size_t idx, uint32_t h, uint64_t pc, uint64_t ea)
{
    cs->mm_hist = (uint8_t)(cs->mm_hist << 1 | hit);
    if (cs->last_ins) {
        size_t d = idx + 1 - cs->last_ins;
        m->link[cs->last_ins - 1] = (uint8_t)(d <= MM_SCAN + 1 ? d : 0);
    }
    cs->last_ins = (uint32_t)idx + 1;
    if (P) {
        uint32_t next = 0;
        if (hit) {
            /* the first INSTR of P's CPU after P, within MM_SCAN records and
             * not after this one: P's link (the records themselves need no scan) */
            size_t j = cs->mm_ptr, end = idx < j + MM_SCAN ? idx : j + MM_SCAN, d = m->link[j - 1];
            if (d && j - 1 + d <= end) next = (uint32_t)(j + d);
            cs->mm_len += cs->mm_len < 0xFFFF;
        } else {
            cs->mm_len = 0;
        }
        cs->mm_ptr = next;
    }
    m->mm[h >> (32 - MM_BITS)] = (uint32_t)idx + 1;
    cs->mm_h[2] = cs->mm_h[1];
    cs->mm_h[1] = cs->mm_h[0];
    cs->mm_h[0] = (uint32_t)((pc * 0x9E3779B97F4A7C15ull ^ ea * 0xC2B2AE3D27D4EB4Full) >> 32);
    /* the next lookup's slot: start loading it now (the table is larger than the caches) */
    if (!cs->mm_ptr) TRZ_PREFETCH(&m->mm[mm_hash(cs) >> (32 - MM_BITS)]);
}

/* One step.  Its first decision says whether it is an INSTR of the
 * predicted CPU at the predicted PC with the cached word (kind, CPU, PC and
 * word as one decision, r_multi); else the first of them that is not is
 * coded, then the record: kind 0 an INSTR (with the PAVADIFF before it, if
 * any), 1 a PAVADIFF not followed by an INSTR of its CPU, 2 any other.
 * From record *ip, which it moves past the step's records; fpair >= 0: the
 * encoder's records pair as it says (a quiet step's, whose next record the
 * decoder has not written). */
TRZ_FORCE_INLINE void step(model1 *m, rc *c, uint8_t *buf, size_t *ip, size_t nrec, size_t base, int fpair,
                           const int enc)
{
    size_t i = *ip;
    uint8_t *r = buf + i * RST_REC;
    unsigned kind = 0, cpu = 0, rt = 0;
    int pair = 0;
    if (enc) {
        rt = r[0];
        if (rt == RT_INSTR) { kind = K_INSTR; cpu = rst_instr_cpu(r); }
        else if (rt == RT_PAVADIFF) {
            cpu = rst_pv_cpu(r);
            pair = fpair >= 0 ? fpair : i + 1 < nrec && r[24] == RT_INSTR && rst_instr_cpu(r + 24) == cpu;
            kind = pair ? K_INSTR : K_PV;
        } else kind = K_OTHER;
    }
    /* the predicted CPU's next instruction */
    unsigned lk = m->last_kind, pcpu = cpu_stay(m) ? m->cur : m->curc->next;
    cpu1 *ps = pcpu == m->cur ? m->curc : get_cpu(m, pcpu);
    uint64_t pc0 = ps->pred_pc;
    uint32_t iw0 = *ic_at(m, pc0);
    rc_prob *pa[4] = { &m->p_special[lk], cpu_prob(m), pc_prob(m, ps), &m->p_iw[iw0 == 0] };
    int fail = 4;
    if (enc) {
        const uint8_t *q = pair ? r + RST_REC : r;
        fail = kind != K_INSTR ? 0 : cpu != pcpu ? 1 : trz_ld_be64(q + 8) != pc0 ? 2 : trz_ld_be32(q + 4) != iw0 ? 3 : 4;
    }
    RSTAT(ST_FAST);
    fail = r_multi_s(c, enc, pa, 4, fail, m->sat ? &m->sat[SAT_STEP] : NULL);
    if (fail == 0) {
        RSTAT(ST_KIND);
        kind = rcd_bit(c, enc, &m->p_other[lk], kind == K_OTHER) ? K_OTHER : K_PV;
    } else kind = K_INSTR;
    m->last_kind = kind;
    if (kind == K_OTHER) {
        RSTAT(ST_OTHER);
        if (rcd_bit(c, enc, &m->p_samert, rt != m->last_ort)) rt = rcd_tree(c, enc, m->t_rt, 8, rt);
        else rt = m->last_ort;
        if (rt == RT_INSTR || rt == RT_PAVADIFF) { m->err = 1; return; } /* the encoder never says so */
        m->last_ort = rt;
        other_code(m, c, r, rt, enc);
        *ip = i + 1;
        return;
    }
    cpu = cpu_code(m, c, cpu, kind == K_INSTR ? Q_OF(fail, 1) : Q_ANY, enc);
    cpu1 *cs = m->curc;
    if (kind == K_PV) {
        pv_code(m, c, cs, cpu, r, NULL, 0, enc);
        *ip = i + 1;
        return;
    }
    uint32_t h = mm_hash(cs);
    if (!cs->mm_ptr) {
        cs->mm_ptr = m->mm[h >> (32 - MM_BITS)];
        cs->mm_len = 0;
    }
    const uint8_t *P = NULL;
    if (cs->mm_ptr) {
        size_t j = cs->mm_ptr - 1;
        P = TRZ_LIKELY(j >= base) ? buf + (j - base) * RST_REC : m->hist + j * RST_REC;
    }
    instr_info ii;
    uint8_t *ri = pair ? r + RST_REC : r;
    instr_code(m, c, cs, ri, &ii, P, cs->mm_len, Q_OF(fail, 2), Q_OF(fail, 3), pair, enc);
    pair = pv_has(m, c, cs, &ii, pair, ii.qpv, enc);
    if (pair) {
        if (!enc) {
            if (i + 1 >= nrec) { m->err = 1; return; }
            memcpy(r + RST_REC, r, RST_REC);
        }
        pv_code(m, c, cs, cpu, r, &ii, 1, enc);
        i++;
    }
    int hit = P && trz_ld_be64(P + 8) == ii.pc && trz_ld_be64(P + 16) == ii.ea;
    mm_update(m, cs, P, hit, base + i, h, ii.pc, ii.ea);
    *ip = i + 1;
}

/* ---- the repeat model (chained chunks) -------------------------------------- */

/* A long stretch of records seen before (a program run again, a loop of
 * many CPUs), record for record, CPUs interleaved alike: the record that
 * followed the last two records the last time they occurred, then the ones
 * after it.  Each step whose records it predicts costs one decision; the
 * step is then coded quietly (its decisions to a dropped output), so that
 * every other model learns from it as from any step. */
TRZ_FORCE_INLINE const uint8_t *pos_rec(const model1 *m, const uint8_t *buf, size_t base, size_t j)
{
    return j >= base ? buf + (j - base) * RST_REC : m->hist + j * RST_REC;
}

static TRZ_NOINLINE void step_quiet(model1 *m, uint8_t *buf, size_t *ip, size_t nrec, size_t base, int pair)
{
    rc q;
    m->qbuf.n = 0;
    rc_enc_init(&q, &m->qbuf);
    step(m, &q, buf, ip, nrec, base, pair, 1);
}

/* The repeat's decision when it offers records; 1 when they were its (the
 * step is then coded, quietly), 0 when the step is still to code. */
TRZ_FORCE_INLINE int gm_step(model1 *m, rc *c, uint8_t *buf, size_t *ip, size_t nrec, size_t base, const int enc)
{
    size_t i = *ip, g = m->gptr;
    if (!g || g + 1 > base + i) return 0; /* the two records it may offer are not all known */
    const uint8_t *G = pos_rec(m, buf, base, g - 1), *G2 = pos_rec(m, buf, base, g);
    int gpair = G[0] == RT_PAVADIFF && i + 1 < nrec && G2[0] == RT_INSTR && rst_instr_cpu(G2) == rst_pv_cpu(G);
    /* the step's first decision's guess (run_all): it may tell the same */
    unsigned pcpu = cpu_stay(m) ? m->cur : m->curc->next;
    cpu1 *ps = pcpu == m->cur ? m->curc : get_cpu(m, pcpu);
    const uint8_t *GI = gpair ? G2 : G;
    int agree = GI[0] == RT_INSTR && rst_instr_cpu(GI) == pcpu && trz_ld_be64(GI + 8) == ps->pred_pc &&
                trz_ld_be32(GI + 4) == *ic_at(m, ps->pred_pc);
    uint8_t *r = buf + i * RST_REC;
    int miss = 1;
    if (enc) {
        int pair = r[0] == RT_PAVADIFF && i + 1 < nrec && r[RST_REC] == RT_INSTR && rst_instr_cpu(r + RST_REC) == rst_pv_cpu(r);
        miss = pair != gpair || memcmp(r, G, RST_REC) != 0 || (pair && memcmp(r + RST_REC, G2, RST_REC) != 0);
    }
    unsigned gl = m->glen, ctx = (gl == 0 ? 0 : gl < 2 ? 1 : gl < 4 ? 2 : gl < 16 ? 3 : gl < 256 ? 4 : 5) + 6 * (unsigned)agree;
    if (rcd_bit(c, enc, &m->p_gm[ctx], miss)) return 0;
    if (!enc) {
        memcpy(r, G, RST_REC);
        if (gpair) memcpy(r + RST_REC, G2, RST_REC);
    }
    step_quiet(m, buf, ip, nrec, base, gpair);
    return 1;
}

/* 1 when the GM_MIN records before position g - 1 equal those before
 * position p (g - 1 < p). */
static TRZ_NOINLINE int gm_verify(const model1 *m, const uint8_t *buf, size_t base, size_t g, size_t p)
{
    if (g - 1 < GM_MIN) return 0;
    for (size_t k = 1; k <= GM_MIN; k++)
        if (memcmp(pos_rec(m, buf, base, g - 1 - k), pos_rec(m, buf, base, p - k), RST_REC) != 0) return 0;
    return 1;
}

/* After a step of records i0..i1-1: each record's context takes its
 * position; the repeat goes on after a hit, else starts where the context
 * of the step's last record points, if the records before agree. */
TRZ_FORCE_INLINE void gm_after(model1 *m, const uint8_t *buf, size_t base, size_t i0, size_t i1, int hit)
{
    uint32_t cand = 0;
    for (size_t q = i0; q < i1; q++) {
        const uint8_t *r = buf + q * RST_REC;
        uint32_t rh = rc_hash(trz_ld_be64(r) ^ (trz_ld_be64(r + 8) * 0x9E3779B97F4A7C15ull) ^
                              (trz_ld_be64(r + 16) * 0xC2B2AE3D27D4EB4Full));
        uint32_t k = rc_hash_add(m->glast, rh) >> (32 - GM_BITS);
        cand = m->gm[k];
        m->gm[k] = (uint32_t)(base + q + 2);
        m->glast = rh;
    }
    if (hit) {
        m->gptr += (uint32_t)(i1 - i0);
        m->glen += m->glen < 0xFFFF;
    } else {
        m->gptr = cand && base + i1 - cand >= GM_DIST && gm_verify(m, buf, base, cand, base + i1) ? cand : 0;
        m->glen = 0;
    }
}

TRZ_FORCE_INLINE void run_all(model1 *m, rc *c, uint8_t *buf, size_t nrec, const int enc)
{
    size_t i = 0, base = m->nhist;
    while (i < nrec) {
        if (!enc && TRZ_UNLIKELY(rc_dec_bad(c) || m->err)) { m->err = 1; return; }
        step(m, c, buf, &i, nrec, base, -1, enc);
    }
}

/* Chained: the same with the repeat model. */
TRZ_FORCE_INLINE void run_all_gm(model1 *m, rc *c, uint8_t *buf, size_t nrec, const int enc)
{
    size_t i = 0, base = m->nhist;
    while (i < nrec) {
        if (!enc && TRZ_UNLIKELY(rc_dec_bad(c) || m->err)) { m->err = 1; return; }
        size_t i0 = i;
        int hit = gm_step(m, c, buf, &i, nrec, base, enc);
        if (!hit) step(m, c, buf, &i, nrec, base, -1, enc);
        gm_after(m, buf, base, i0, i, hit);
    }
}

static TRZ_NOINLINE void enc_run_gm(model1 *m, rc *c, const uint8_t *buf, size_t nrec)
{
    run_all_gm(m, c, (uint8_t *)(uintptr_t)buf, nrec, 1);
}
static TRZ_NOINLINE void dec_run_gm(model1 *m, rc *c, uint8_t *buf, size_t nrec)
{
    run_all_gm(m, c, buf, nrec, 0);
}
static TRZ_NOINLINE void enc_run(model1 *m, rc *c, const uint8_t *buf, size_t nrec)
{
    if (m->gm) enc_run_gm(m, c, buf, nrec);
    else run_all(m, c, (uint8_t *)(uintptr_t)buf, nrec, 1);
}
static TRZ_NOINLINE void dec_run(model1 *m, rc *c, uint8_t *buf, size_t nrec)
{
    if (m->gm) dec_run_gm(m, c, buf, nrec);
    else run_all(m, c, buf, nrec, 0);
}

int rst_v1_encode(const trz_enc_args *a, model1 *m)
{
    if (a->len % RST_REC || a->nrec != a->len / RST_REC) return TRZ_CODEC_UNSUPPORTED;
    if (a->nrec == 0) return TRZ_CODEC_OK;
    m->know = a->know;
    uint8_t *canon;
    const uint8_t *src = rst_canon_input(a, &canon);
    int rcode = TRZ_CODEC_NOMEM;
    if (!m->oom && rst_v1_link_fit(m, a->nrec) == 0 && src && (!a->chain || rst_v1_gm_make(m) == 0)) {
        rc c;
        rc_enc_init(&c, &a->streams[RST_S_RC]);
        rcd_direct(&c, 1, a->know ? RST_V_KNOW : 1, 8); /* the variant */
        enc_run(m, &c, src, a->nrec);
        rcd_direct(&c, 1, (uint32_t)a->nrec, 32); /* a decoder given another count fails */
        rcode = rc_enc_flush(&c) || m->oom ? TRZ_CODEC_NOMEM : TRZ_CODEC_OK;
        if (m->err) rcode = TRZ_CODEC_UNSUPPORTED;
        if (rcode == TRZ_CODEC_OK && a->chain && rst_v1_hist_slide(m, src, a->nrec, !m->win->lent))
            rcode = TRZ_CODEC_NOMEM;
        trz_mark_coded(a, RST_S_RC);
    }
    trz_big_free(canon, a->len); /* the next chunk copies again */
    return rcode;
}

int rst_rc_variant(const uint8_t *p, size_t n)
{
    rc c;
    rc_dec_init(&c, p, n);
    return (int)rcd_direct(&c, 0, 0, 8);
}

int rst_v1_decode(const trz_dec_args *a, model1 *m)
{
    for (int s = 0; s < TRZ_MAX_STREAMS; s++)
        if (a->stream_len[s] && s != RST_S_RC) return TRZ_CODEC_CORRUPT;
    if (a->len % RST_REC || a->nrec != a->len / RST_REC) return TRZ_CODEC_CORRUPT;
    if (a->nrec == 0) return TRZ_CODEC_CORRUPT; /* an empty chunk has no streams */
    if (m->oom || rst_v1_link_fit(m, a->nrec) || (a->chain && rst_v1_gm_make(m))) return TRZ_CODEC_NOMEM;
    m->know = a->know;
    rc c;
    rc_dec_init(&c, a->stream[RST_S_RC], a->stream_len[RST_S_RC]);
    if (rcd_direct(&c, 0, 0, 8) != (a->know ? RST_V_KNOW : 1)) m->err = 1;
    dec_run(m, &c, a->out, a->nrec);
    int rcode = TRZ_CODEC_OK;
    if (rcd_direct(&c, 0, 0, 32) != (uint32_t)a->nrec) m->err = 1;
    if (m->err || !rc_dec_ok(&c)) rcode = TRZ_CODEC_CORRUPT;
    if (m->oom) rcode = TRZ_CODEC_NOMEM;
    if (rcode == TRZ_CODEC_OK && a->chain && rst_v1_hist_slide(m, a->out, a->nrec, 1)) rcode = TRZ_CODEC_NOMEM;
    if (rcode != TRZ_CODEC_OK) m->err = 1; /* a chain's later chunks fail until a reset */
    if (rcode == TRZ_CODEC_OK) rst_uncanon_output(a);
    return rcode;
}

/* iw_fields for the knowledge stream (rst_v1_know.c). */
uint32_t rst_v1_iw_fields(model1 *m, rc *c, uint32_t iw, int enc)
{
    return enc ? iw_fields_enc(m, c, iw) : iw_fields_dec(m, c);
}
