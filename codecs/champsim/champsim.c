/* champsim.c - the ChampSim trace codec: 64-byte input_instr (id 5) and
 * 96-byte cloudsuite_instr (id 6) records.  Per-chunk models predict each
 * record from the ones before it (successor ip, per-PC static fields, branch
 * outcome, memory addresses) and every decision is range-coded in context
 * (cs_rc.h).  Encoder and decoder are one template, `cs_code`, instantiated
 * for each direction, so the models cannot diverge.  This file holds the
 * coder and every function it inlines; the tables are made in cs_model.c,
 * facts learnt in cs_learn.c, the codec tables are cs_codec.c's.  Spec:
 * champsim.md. */
#include "cs_model.h"
#include "cs_fast.h"
#ifdef CS_STATS /* model tuning only: bits and events per field */
#include <math.h>
enum { F_RUN, F_IP_FIRST, F_IP_HIT, F_IP_LEN, F_IP_DELTA, F_SIG_HIT, F_SIG_NEW, F_SIG_CHG, F_BR, F_MEM_EQ, F_MEM_HIT,
       F_MEM_DELTA, F_MEM_NEW, F_EXTRA, F_R0, F_R1, F_R2, F_R3, F_R4, F_R5, F_R6, F_R7, F_IB, F_MM, F_BT, F_K_GAP,
       F_K_LEN, F_K_T, F_N };
static const char *const cs_fname[F_N] = { "run", "ip_first", "ip_hit", "ip_len", "ip_delta", "sig_hit", "sig_new",
                                           "sig_chg", "br", "mem_eq", "mem_hit", "mem_delta", "mem_new", "extra",
                                           "r0","r1","r2","r3","r4","r5","r6","r7","ib","mm","bt",
                                           "k_gap", "k_len", "k_t" };
double cs_stat_bits[F_N];
uint64_t cs_stat_n[F_N];
double *cs_cost;
#define FIELD(c, f) ((void)(c), cs_cost = &cs_stat_bits[f], cs_stat_n[f] += enc)
void cs_stats_print(void);
void cs_stats_print(void)
{
    for (int f = 0; f < F_N; f++)
        if (cs_stat_n[f])
            fprintf(stderr, "  %-10s %10llu events %12.0f bytes %7.3f bits/event\n", cs_fname[f],
                    (unsigned long long)cs_stat_n[f], cs_stat_bits[f] / 8, cs_stat_bits[f] / cs_stat_n[f]);
}
#else
#define FIELD(c, f) ((void)0)
#endif

#ifdef CS_PROF /* profiling: the phases as functions of their own */
#define CS_PHASE static __attribute__((noinline))
#else
#define CS_PHASE TRZ_FORCE_INLINE
#endif

#define SIG_LIMIT 30
#define RUN_LIM 60
#define HMASK 7 /* address-candidate hit history bits in the contexts */
#ifndef RUN_MIN
#define RUN_MIN 16 /* match length from which a record is first asked whole */
#endif

#define NCOD 1

/* Match length classes: 0, 1, 2-3, 4-7, ..., 128+. */
static inline unsigned mlen_class(unsigned n) { return n >= 128 ? 8 : cs_bitlen(n); }

/* ---- static fields ------------------------------------------------------ */

/* One byte of new static fields, bit by bit through a mix of three
 * context trees: h1 (high order: the fields before it), h2 (low order) and
 * h3 (the previous instruction's fields); the mixer's weights are chosen by
 * the field and how often h1's node has been seen. */
TRZ_FORCE_INLINE unsigned sig_byte(cs_model *m, cs_rc *c, const int enc, unsigned f, uint32_t h1, uint32_t h2, uint32_t h3,
                         unsigned v)
{
    const uint32_t mask = (1u << m->z.sig) - 1;
    rc_cnt *t1 = m->sig + ((h32((uint64_t)h1 << 8 | f) << 8) & mask);
    rc_cnt *t2 = m->sig + ((h32((uint64_t)h2 << 8 | f | 0x10000000000ull) << 8) & mask);
    rc_cnt *t3 = m->sig + ((h32((uint64_t)h3 << 8 | f | 0x20000000000ull) << 8) & mask);
    /* node 0 (unused by the tree): is the byte 0?  Then the tree for the
     * others. */
    unsigned node = 0;
    for (int i = 8; i >= 0; i--) {
        rc_cnt s1 = t1[node], s2 = t2[node], s3 = t3[node];
        int st1 = m->mx.str[4095 - (s1 >> 20)], st2 = m->mx.str[4095 - (s2 >> 20)], st3 = m->mx.str[4095 - (s3 >> 20)];
        unsigned n1 = s1 & 63;
        int32_t *w = m->sw[f * 4 + (n1 > 3 ? 3 : n1)];
        int p = rc_squash((int)(((int64_t)w[0] * st1 + (int64_t)w[1] * st2 + (int64_t)w[2] * st3) >> 16));
        int bit = cs_code_bit12(c, enc, p, i == 8 ? v != 0 : (int)(v >> i & 1));
        int err = ((bit << 12) - p) * 10;
        w[0] = cs_wclamp(w[0] + ((st1 * err) >> 10));
        w[1] = cs_wclamp(w[1] + ((st2 * err) >> 10));
        w[2] = cs_wclamp(w[2] + ((st3 * err) >> 10));
        rc_cnt_update(&t1[node], bit, SIG_LIMIT);
        rc_cnt_update(&t2[node], bit, SIG_LIMIT);
        rc_cnt_update(&t3[node], bit, SIG_LIMIT);
        if (i == 8) {
            if (!bit) return 0;
            node = 1;
        } else {
            node = node << 1 | (unsigned)bit;
        }
    }
    return node & 255;
}

static inline uint32_t hmix(uint32_t a, uint32_t b) { return (a ^ b) * 0x2F0F1u + (b >> 7); }

/* Code the static fields of a record at a PC seen for the first time, or
 * whose fields changed: registers, is_branch, the memory slot mask, and
 * branch_taken (or the mark that branch_taken is coded per record).  pv:
 * the previous instruction's fields (registers, kind, is_branch). */
CS_PHASE void code_sig(cs_model *m, cs_rc *c, const int enc, const cs_layout *L, cs_rec *r, cs_pc *e,
                     const cs_pc *pv)
{
    const uint8_t *pr = (const uint8_t *)&pv->regs;
    uint32_t h = 0x12345u;
    for (unsigned k = 0; k < 8; k++) {
        if (k >= L->ndreg && k < 4) { r->regs[k] = 0; continue; }
        FIELD(c, F_R0 + k);
        uint32_t h2 = hmix(k ? r->regs[k - 1] : 0x100u, k >= 4 ? r->regs[0] : 0x100u);
        uint32_t h3 = hmix(hmix(pr[k], pr[0]), pr[4] | (uint32_t)pv->kind << 8);
        r->regs[k] = (uint8_t)sig_byte(m, c, enc, k, h, h2, h3, r->regs[k]);
        h = h * 0x2F0F1 + r->regs[k] + 1;
    }
    unsigned kind = cs_kind(r->regs);
    unsigned nsrc = 0;
    for (unsigned k = 4; k < 8; k++) nsrc += r->regs[k] != 0;
    FIELD(c, F_IB);
    r->ib = (uint8_t)sig_byte(m, c, enc, 8, h, kind, hmix(kind, pv->ib), r->ib);
    h = h * 0x2F0F1 + r->ib;
    uint8_t mmask = r->mm;
    FIELD(c, F_MM);
    mmask = (uint8_t)sig_byte(m, c, enc, 9, h, hmix(kind, nsrc), hmix(hmix(kind, r->regs[0]), r->regs[4]), mmask);
    if (L->ndmem < 4) mmask &= 0x3f; /* 64-byte form: destination slots 2, 3 do not exist */
    h = h * 0x2F0F1 + mmask;
    int dyn = 0;
    FIELD(c, F_BT);
    if (kind == CS_K_COND || kind == CS_K_OTHER) dyn = rcd_bit(c, enc, &m->btdyn[kind], r->bt <= 1);
    if (!dyn) r->bt = (uint8_t)sig_byte(m, c, enc, 10, h, hmix(kind, r->ib), hmix(hmix(kind, r->ib), mmask), r->bt);
    memcpy(&e->regs, r->regs, 8);
    e->ib = r->ib;
    e->bt = r->bt;
    e->btdyn = (uint8_t)dyn;
    e->mmask = mmask;
    e->kind = (uint8_t)kind;
    e->sighash = h;
    unsigned ndst = 0;
    for (unsigned k = 0; k < 4; k++) ndst += r->regs[k] != 0;
    e->lohash = (uint16_t)(hmix(hmix(kind, mmask), nsrc * 8 + ndst) >> 8);
}

/* An instruction's fall-through length 1..15 (0: another), 4 bits in a mix
 * of two contexts of its static fields, weights by the first one's count. */
static unsigned code_len4(cs_model *m, cs_rc *c, const int enc, const cs_pc *le, unsigned len)
{
    rc_cnt *t1 = m->lent + ((size_t)(h32(le->sighash) >> (32 - m->z.len)) << 4);
    rc_cnt *t2 = m->lent + ((size_t)(h32((uint64_t)le->lohash << 32 | 0x5EED) >> (32 - m->z.len)) << 4);
    unsigned node = 1;
    for (int b = 3; b >= 0; b--) {
        int st[3] = { m->mx.str[cs_a_p12(t1[node])], m->mx.str[cs_a_p12(t2[node])], 256 };
        unsigned n1 = t1[node] & 63;
        cs_mixw *w = &m->lw[n1 > 3 ? 3 : n1];
        int p12 = cs_mix_dot(w, st, 3);
        int bit = cs_code_bit12(c, enc, p12, (int)(len >> b & 1));
        cs_mix_learn(w, st, 3, p12, bit, 8);
        rc_cnt_update(&t1[node], bit, SIG_LIMIT);
        rc_cnt_update(&t2[node], bit, SIG_LIMIT);
        node = node << 1 | (unsigned)bit;
    }
    return node - 16;
}

/* ---- carried knowledge: an instruction's static fields by its ip --------
 * A fact (champsim.md, "Knowledge") holds the registers, is_branch,
 * branch_taken and memory slot mask of the instruction's first record, its
 * fall-through length (0: not seen), and, when it was seen taken, its first
 * taken successor less its ip. */

/* An entry's static fields from values, as code_sig leaves them. */
static void sig_set(const cs_layout *L, cs_pc *e, const uint8_t *regs, uint8_t ib, uint8_t bt, uint8_t mmask)
{
    uint32_t h = 0x12345u;
    for (unsigned k = 0; k < 8; k++)
        if (!(k >= L->ndreg && k < 4)) h = h * 0x2F0F1 + regs[k] + 1;
    unsigned kind = cs_kind(regs), nsrc = 0, ndst = 0;
    for (unsigned k = 4; k < 8; k++) nsrc += regs[k] != 0;
    for (unsigned k = 0; k < 4; k++) ndst += regs[k] != 0;
    h = h * 0x2F0F1 + ib;
    if (L->ndmem < 4) mmask &= 0x3f;
    h = h * 0x2F0F1 + mmask;
    memcpy(&e->regs, regs, 8);
    e->ib = ib;
    e->bt = bt;
    e->btdyn = (uint8_t)((kind == CS_K_COND || kind == CS_K_OTHER) && bt <= 1);
    e->mmask = mmask;
    e->kind = (uint8_t)kind;
    e->sighash = h;
    e->lohash = (uint16_t)(hmix(hmix(kind, mmask), nsrc * 8 + ndst) >> 8);
}

/* Fill a fresh entry from the fact under ip; 0 when there is none.  Any
 * bytes are taken: registers the layout lacks read as 0. */
static int fact_fill(const cs_model *m, const cs_layout *L, cs_pc *e, uint64_t ip)
{
    size_t n;
    const uint8_t *f = trz_know_get(m->know, ip, &n);
    if (!f || (n != CS_FACT && n != CS_FACT_T)) return 0;
    uint8_t regs[8];
    memcpy(regs, f, 8);
    for (unsigned k = L->ndreg; k < 4; k++) regs[k] = 0;
    sig_set(L, e, regs, f[8], f[9], f[10]);
    e->len = f[11];
    e->target = n == CS_FACT_T ? ip + trz_ld_le64(f + 12) : 0;
    return 1;
}

/* Offset of memory slot s (cs_rec order) in a packed record. */
static inline unsigned slot_off(const cs_layout *L, unsigned s)
{
    return s < 4 ? L->off_smem + 8 * s : L->off_dmem + 8 * (s - 4);
}

/* ---- memory addresses ---------------------------------------------------- */

static inline int special_reg(uint8_t r) { return r == 0 || r == CS_REG_FLAGS || r == CS_REG_IP; }

/* Put address a in front of the recent blocks: its block's entry, or the
 * last one, leaves its place. */
TRZ_FORCE_INLINE void recent_use(cs_model *m, uint64_t a)
{
    uint64_t up = a;
    for (unsigned j = 0; j < NRECENT; j++) {
        uint64_t t = m->recent[j];
        m->recent[j] = up;
        if ((t >> 6) == (a >> 6)) break;
        up = t;
    }
}

/* d * 2^(sc - 3), sc in 0..6 (a right shift keeps the sign). */
static inline uint64_t scale_delta(uint64_t d, unsigned sc)
{
    return sc >= 3 ? d << (sc - 3) : (uint64_t)((int64_t)d >> (3 - sc));
}

/* An address as a delta from base. */
TRZ_FORCE_INLINE uint64_t code_mdelta(cs_model *m, cs_rc *c, const int enc, cs_mem *me, int dst, uint64_t base, unsigned bt,
                            uint64_t a)
{
    uint64_t d = a - base;
    int neg = (int64_t)d < 0;
    uint64_t mag = neg ? 0 - d : d;
    unsigned lc = me->dbl ? 1 + (me->dbl - 1u) / 4 : 0;
    mem_dmodel *dm = &m->md;
    mag = cs_uint_x(c, enc, dm->len[(((unsigned)dst * 2 + me->valid) * 4 + bt) * MD_LC + lc], dm->mant,
                    dm->low[me->dinfo & 3], mag);
    if (mag) neg = rcd_cbit(c, enc, &dm->sign[dst * 3 + (me->dinfo >> 2)], neg, CS_ILIMIT);
    else neg = 0;
    me->dbl = (uint8_t)(cs_bitlen(mag) + 1);
    unsigned tz = mag ? (unsigned)__builtin_ctzll(mag) : 3;
    me->dinfo = (uint8_t)((tz < 3 ? tz : 3) | (mag ? (neg ? 2u : 1u) : 0u) << 2);
    return base + (neg ? 0 - mag : mag);
}

/* Code the used memory slots (mask mm) of record r: source slots, then
 * destinations.  A destination may equal a source of the same record.
 * Otherwise candidates are asked one by one, the one right last time at
 * this (PC, slot) first, then M, S, R, P (M_*); a candidate equal to one
 * already refused is skipped.  Then a delta.  mp: the match model's record
 * (packed) when it is at this instruction, else NULL.  Returns -1 on a
 * damaged stream. */
CS_PHASE int code_mem(cs_model *m, cs_rc *c, const int enc, const cs_layout *L, cs_rec *r, unsigned mm, int fresh,
                    const uint8_t *mp, unsigned mb)
{
    uint64_t first = 0;
    if (fresh)
        for (unsigned left = mm; left; left &= left - 1) {
            cs_mem *me = &m->mem[mem_index(m, r->ip, trz_ctz32(left))];
            memset(me, 0, sizeof *me);
            me->bj = B_N;
        }
    if (!enc) memset(r->mem, 0, sizeof r->mem);
    for (unsigned left = mm; left; left &= left - 1) {
        unsigned s = trz_ctz32(left);
        cs_mem *me = &m->mem[mem_index(m, r->ip, s)];
        int dst = s >= 4;
        uint64_t a = r->mem[s];
        if (dst && (mm & 15)) {
            int eq = 0;
            FIELD(c, F_MEM_EQ);
            if (enc)
                for (unsigned j = 0; j < 4; j++) eq |= (mm >> j & 1) && r->mem[j] == a;
            eq = rcd_bit(c, enc, &m->mem_eq[me->hist & 3], eq);
            if (eq) {
                unsigned j = 0;
                if (enc)
                    while (!((mm >> j & 1) && r->mem[j] == a)) j++;
                if (mm & 14) j = rcd_tree(c, enc, m->mem_eqidx, 2, j);
                if (!(mm >> j & 1)) return -1; /* damaged: no such source */
                a = r->mem[j];
                goto learn;
            }
        }
        {
            uint64_t cand[M_NC];
            unsigned okm = 0; /* bit k: candidate k is available */
            cand[M_M] = mp ? trz_ld_le64(mp + slot_off(L, s)) : 0;
            okm |= (unsigned)(cand[M_M] != 0) << M_M;
            cand[M_S] = me->last + me->stride;
            okm |= (unsigned)me->valid << M_S;
            uint8_t rr = r->regs[4 + me->rk];
            cand[M_R] = m->by_reg[rr] + me->off[me->rk];
            okm |= (unsigned)(me->valid && (me->offv >> me->rk & 1) && m->by_reg_ok[rr]) << M_R;
            cand[M_P] = m->last_addr + me->poff;
            okm |= (unsigned)me->pvalid << M_P;
            unsigned dok = me->valid && me->dj != 0xff;
            cand[M_D] = dok ? me->last + scale_delta(m->dring[me->dj & 3], me->dj >> 2) : 0;
            okm |= dok << M_D;
            /* asked: the one right last time, then the others in order,
             * each unless unavailable or equal to one already refused */
            unsigned w = me->win;
            unsigned rest = okm;
            int hit = 0;
            uint64_t tried[M_NC];
            unsigned nt = 0;
            if (w < M_NC && (okm >> w & 1)) {
                rest &= ~(1u << w);
            } else {
                w = M_NC; /* none first: the order alone */
            }
            unsigned k = w < M_NC ? w : (rest ? trz_ctz32(rest) : M_NC);
            if (k == (unsigned)trz_ctz32(rest | 1u << M_NC)) rest &= rest - 1;
            while (k < M_NC) {
                unsigned agree = 0;
                if (!nt) { /* how many other candidates say the same, for the first one asked */
                    for (unsigned t = 0; t < M_NC; t++) agree += t != k && (okm >> t & 1) && cand[t] == cand[k];
                    if (agree > 2) agree = 2;
                }
                unsigned sub = k == M_M ? mb : (me->hist & HMASK);
                FIELD(c, F_MEM_HIT);
                rc_cnt *p = &m->mem_hit[(((k * 2 + (nt > 0)) * 9 + sub) * 3 + agree) * (M_NC + 1) + me->win];
                hit = rcd_cbit(c, enc, p, a == cand[k], 60);
                tried[nt++] = cand[k];
                if (hit) { a = cand[k]; me->win = (uint8_t)k; break; }
                /* the next one not equal to one refused */
                k = M_NC;
                while (rest) {
                    unsigned t = trz_ctz32(rest);
                    rest &= rest - 1;
                    int dup = 0;
                    for (unsigned q = 0; q < nt; q++) dup |= tried[q] == cand[t];
                    if (!dup) { k = t; break; }
                }
            }
            me->hist = (uint8_t)(me->hist << 1 | (unsigned)(hit && nt == 1));
            if (!hit) {
                /* the base nearest the address, then the delta from it */
                uint64_t bases[B_N];
                uint64_t bok = 0;
                bases[B_LAST] = me->valid ? me->last : m->last_addr;
                bok |= (uint64_t)(bases[B_LAST] != 0) << B_LAST;
                for (unsigned k = 0; k < 4; k++) {
                    uint8_t rg = r->regs[4 + k];
                    bases[B_REG0 + k] = m->by_reg[rg];
                    bok |= (uint64_t)(!special_reg(rg) && m->by_reg_ok[rg]) << (B_REG0 + k);
                }
                bases[B_IP] = r->ip;
                bok |= 1ull << B_IP;
                for (unsigned k = 0; k < NRECENT; k++) {
                    bases[B_RECENT + k] = m->recent[k];
                    bok |= (uint64_t)(m->recent[k] != 0) << (B_RECENT + k);
                }
                unsigned bj = 0;
                rc_cnt *bt = m->md.base[((unsigned)(dst * 2 + me->valid) * (B_N + 1) + me->bj) * 32 + (bok & 31)];
                if (enc) { /* the cheapest: the choice's cost plus about a bit per bit of the delta */
                    uint32_t best = UINT32_MAX;
                    for (unsigned j = 0; j < B_N; j++) {
                        if (!(bok >> j & 1)) continue;
                        uint64_t dd = a - bases[j];
                        uint32_t cost = cs_atree_cost(bt, BASE_BITS, j) + RC_BIT_COST * cs_bitlen((int64_t)dd < 0 ? 0 - dd : dd);
                        if (cost < best) { best = cost; bj = j; }
                    }
                }
                bj = rcd_ctree(c, enc, bt, BASE_BITS, bj, BASE_LIM);
                if (!(bok >> bj & 1)) return -1; /* damaged: not a base this record has */
                me->bj = (uint8_t)bj;
                uint64_t base = bases[bj];
                unsigned btype = bj == B_LAST ? 0 : bj == B_IP ? 2 : bj >= B_RECENT ? 3 : 1;
                if (me->valid) FIELD(c, F_MEM_DELTA);
                else FIELD(c, F_MEM_NEW);
                a = code_mdelta(m, c, enc, me, dst, base, btype, a);
                me->win = M_NONE;
            }
        }
    learn:
        if (!a) return -1; /* a used slot holds an address */
        r->mem[s] = a;
        /* R: the first source register whose offset held */
        {
            unsigned rk = me->rk, found = 0;
            for (unsigned k = 0; k < 4; k++) {
                uint8_t rg = r->regs[4 + k];
                if (special_reg(rg) || !m->by_reg_ok[rg]) continue;
                uint64_t o = a - m->by_reg[rg];
                if (!found && me->valid && (me->offv >> k & 1) && me->off[k] == o) { rk = k; found = 1; }
                me->off[k] = o;
                me->offv |= (uint8_t)(1u << k);
            }
            if (!found && !((me->offv >> rk) & 1)) rk = me->offv ? (unsigned)trz_ctz32(me->offv) : 0;
            me->rk = (uint8_t)rk;
        }
        if (me->valid) {
            uint64_t d = a - me->last;
            /* D: which recent delta, times which power of two, this one is */
            unsigned dj = 0xff;
            if (d) {
                int tz = __builtin_ctzll(d);
                for (unsigned j = 0; j < ND; j++) {
                    uint64_t q = m->dring[j];
                    if (!q) continue;
                    int sc = tz - __builtin_ctzll(q) + 3; /* the only power of two that can relate them */
                    if (sc < 0) sc = 0;
                    if (sc <= 6 && scale_delta(q, (unsigned)sc) == d) { dj = j | (unsigned)sc << 2; break; }
                }
            }
            me->dj = (uint8_t)dj;
            me->stride = d;
            if (d) {
                for (unsigned j = ND - 1; j > 0; j--) m->dring[j] = m->dring[j - 1];
                m->dring[0] = d;
            }
        }
        else {
            me->dj = 0xff;
        }
        me->last = a;
        me->valid = 1;
        if (!first) first = a;
        recent_use(m, a);
    }
    /* the addresses that later instructions relate to */
    for (unsigned k = 0; k < 4; k++) {
        uint8_t rg = r->regs[4 + k];
        if (special_reg(rg)) continue;
        m->by_reg[rg] = first;
        m->by_reg_ok[rg] = 1;
    }
    for (unsigned left = mm; left; left &= left - 1) {
        unsigned s = trz_ctz32(left);
        cs_mem *me = &m->mem[mem_index(m, r->ip, s)];
        me->poff = r->mem[s] - m->last_addr;
        me->pvalid = m->last_addr != 0;
    }
    m->last_addr = first;
    return 0;
}

/* ---- branch outcome ------------------------------------------------------ */

/* branch_taken of a conditional (or "other") branch, 0 or 1: a mix of a
 * per-PC counter, gshare over 12 and over 32 outcomes, the PC's local
 * history, and the match model's record when it is at this instruction. */
CS_PHASE int code_taken(cs_model *m, cs_rc *c, const int enc, uint64_t ip, cs_pc *e, int bt, const uint8_t *mp,
                      unsigned mb)
{
    unsigned sh = 32 - m->z.br;
    rc_cnt *pb = &m->bim[h32(ip) >> sh];
    cs_p *pg = &m->gs[h32(ip ^ (m->ghist & 0xFFF) << 40) >> sh];
    cs_p *pl = &m->gl[h32(ip * 0x2545F4914F6CDD1Dull ^ (m->ghist & 0xFFFFFFFFull)) >> sh];
    cs_p *po = &m->loc[h32(ip ^ (uint64_t)e->lhist << 44) >> sh];
    rc_cnt *pm = mp ? &m->brm[(mp[9] & 1) * 9 + mb] : NULL;
    int st[B_NIN];
    st[B_BIM] = m->mx.str[cs_a_p12(*pb)];
    st[B_GS] = m->mx.str[rc_p12(*pg)];
    st[B_GL] = m->mx.str[rc_p12(*pl)];
    st[B_LOC] = m->mx.str[rc_p12(*po)];
    st[B_MATCH] = pm ? m->mx.str[cs_a_p12(*pm)] : 0;
    st[B_BIAS] = 256;
    cs_mixw *w = &m->bw[pm ? mb : 0];
    int p12 = cs_mix_dot(w, st, B_NIN);
    FIELD(c, F_BR);
    bt = cs_code_bit12(c, enc, p12, bt);
    cs_mix_learn(w, st, B_NIN, p12, bt, 6);
    rc_cnt_update(pb, bt, 30);
    if (bt) {
        *pg = (cs_p)(*pg - (*pg >> 4));
        *pl = (cs_p)(*pl - (*pl >> 4));
        *po = (cs_p)(*po - (*po >> 4));
    } else {
        *pg = (cs_p)(*pg + ((65536 - *pg) >> 4));
        *pl = (cs_p)(*pl + ((65536 - *pl) >> 4));
        *po = (cs_p)(*po + ((65536 - *po) >> 4));
    }
    if (pm) rc_cnt_update(pm, bt, 60);
    m->ghist = m->ghist << 1 | (unsigned)bt;
    e->lhist = (uint16_t)(e->lhist << 1 | (unsigned)bt);
    return bt;
}

/* ---- the record loop ---------------------------------------------------- */

typedef struct {
    cs_rc rc[NCOD];
} cs_coders;

static inline uint64_t fingerprint(const cs_rec *r)
{
    uint64_t h = (r->ip ^ r->bt) * 0x9E3779B97F4A7C15ull;
    for (unsigned left = r->mm; left; left &= left - 1) h = (h ^ r->mem[trz_ctz32(left)]) * 0xC2B2AE3D27D4EB4Full;
    return h;
}

/* Record number g of the chain (packed), when it is before record number
 * cur and still held: in the chunk (hist, from number m->gbase) or in the
 * ring; else NULL.  Alone (gbase = 0), hist + g * size for any g < cur. */
TRZ_FORCE_INLINE const uint8_t *match_rec(const cs_model *m, const cs_layout *L, const uint8_t *hist, size_t g, size_t cur)
{
    if (g >= cur) return NULL;
    if (TRZ_LIKELY(g >= m->gbase)) return hist + (g - m->gbase) * L->size;
    if (m->gbase - g > m->ring_fill) return NULL;
    return m->ring + (g & (((size_t)1 << m->ring_bits) - 1)) * L->size;
}

/* After record i (packed at hist + i * size): follow the match one record
 * on if it predicted record i exactly, else look the last 4 records up. */
/* Two records equal, byte for byte (size a multiple of 8). */
TRZ_FORCE_INLINE int same_record(const uint8_t *a, const uint8_t *b, size_t sz)
{
    uint64_t d = 0;
    for (size_t k = 0; k < sz; k += 8) {
        uint64_t x, y;
        memcpy(&x, a + k, 8);
        memcpy(&y, b + k, 8);
        d |= x ^ y;
    }
    return d == 0;
}

CS_PHASE void match_update(cs_model *m, const cs_layout *L, const uint8_t *hist, size_t i, const cs_rec *r)
{
    size_t sz = L->size, g = m->gbase + i; /* record i's number */
    const uint8_t *mp = match_rec(m, L, hist, m->mptr, g);
    int ok = mp && same_record(mp, hist + i * sz, sz);
    if (ok) {
        m->mptr++;
        m->mlen++;
    } else {
        m->mlen = 0;
        if (m->mptr < g) m->mptr++;
    }
    m->fp[3] = m->fp[2];
    m->fp[2] = m->fp[1];
    m->fp[1] = m->fp[0];
    m->fp[0] = fingerprint(r);
    uint64_t key = ((m->fp[0] * 31 + m->fp[1]) * 31 + m->fp[2]) * 31 + m->fp[3];
    uint32_t slot = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - m->z.mt));
    /* an entry: the position after the context (low 22 bits), and 10 bits
     * of the context's last ip as a check (no read of the history) */
    uint32_t chk = (uint32_t)(h32(r->ip) >> 22) << 22;
    if (!ok) {
        uint32_t e = m->mt[slot], p = e & 0x3FFFFF;
        if (!m->chained) {
            if (p && p <= i && (e & ~0x3FFFFFu) == chk) m->mptr = p;
        } else if (p && (e & ~0x3FFFFFu) == chk) {
            /* the number below 2^22 past it that ends in p (match_rec
             * checks it is held) */
            m->mptr = g - ((g - p) & 0x3FFFFF);
        }
    }
    m->mt[slot] = chk | (uint32_t)((g + 1) & 0x3FFFFF);
}

/* Ask for what the next record will most likely need: the match model's
 * next record, and the PC set of the likely next ip (0: none).  Hints
 * only. */
TRZ_FORCE_INLINE void cs_prefetch_next(const cs_model *m, const cs_layout *L, const uint8_t *hist, size_t nrec, uint64_t nip)
{
#if defined(__GNUC__)
    if (m->mptr - m->gbase < nrec) __builtin_prefetch(hist + (m->mptr - m->gbase) * L->size);
    if (nip) __builtin_prefetch(&m->pc[(size_t)(h32(nip) >> (33 - m->z.pc)) * 2]);
#else
    (void)m, (void)L, (void)hist, (void)nrec, (void)nip;
#endif
}

/* A record the match model predicted whole (packed at p, index i): the
 * light updates that keep the models close to where the full path would
 * have left them: the return stack, branch histories, the memory entries'
 * last address and stride, the recent deltas, addresses by register and
 * recent blocks, and the match itself.  Returns the record's PC entry (NULL
 * if it is no longer in the table). */
CS_PHASE cs_pc *run_update(cs_model *m, const cs_layout *L, const uint8_t *p, size_t i, cs_pc *pe, uint64_t *prev_ip,
                         int *prev_taken)
{
    uint64_t ip = trz_ld_le64(p);
    int bt = p[9];
    if (pe && pe->kind == CS_K_RET && *prev_taken && m->ras_top) m->ras_top--;
    cs_pc *e = pc_find(m, ip);
    if (e) {
        if (e->btdyn) {
            m->ghist = m->ghist << 1 | (unsigned)(bt != 0);
            e->lhist = (uint16_t)(e->lhist << 1 | (unsigned)(bt != 0));
        }
        if (e->kind == CS_K_CALL || e->kind == CS_K_ICALL) m->ras[m->ras_top++ % RAS_N] = ip;
    }
    cs_rec r;
    r.ip = ip;
    r.bt = (uint8_t)bt;
    for (unsigned k = 0; k < 4; k++) r.mem[k] = trz_ld_le64(p + L->off_smem + 8 * k);
    for (unsigned k = 0; k < 4; k++) r.mem[4 + k] = k < L->ndmem ? trz_ld_le64(p + L->off_dmem + 8 * k) : 0;
    unsigned mm = (r.mem[0] != 0) | (r.mem[1] != 0) << 1 | (r.mem[2] != 0) << 2 | (r.mem[3] != 0) << 3 |
                  (r.mem[4] != 0) << 4 | (r.mem[5] != 0) << 5 | (r.mem[6] != 0) << 6 | (r.mem[7] != 0) << 7;
    r.mm = (uint8_t)mm;
    if (mm) {
        uint64_t first = 0;
        for (unsigned left = mm; left; left &= left - 1) {
            unsigned s = trz_ctz32(left);
            uint64_t a = r.mem[s];
            cs_mem *me = &m->mem[mem_index(m, ip, s)];
            if (me->valid) {
                uint64_t d = a - me->last;
                me->stride = d;
                if (d) {
                    for (unsigned j = ND - 1; j > 0; j--) m->dring[j] = m->dring[j - 1];
                    m->dring[0] = d;
                }
            }
            me->last = a;
            me->valid = 1;
            if (!first) first = a;
            recent_use(m, a);
        }
        for (unsigned k = 0; k < 4; k++) {
            uint8_t rg = p[L->off_sreg + k];
            if (special_reg(rg)) continue;
            m->by_reg[rg] = first;
            m->by_reg_ok[rg] = 1;
        }
        m->last_addr = first;
    }
    m->mptr++;
    m->mlen++;
    m->fp[3] = m->fp[2];
    m->fp[2] = m->fp[1];
    m->fp[1] = m->fp[0];
    m->fp[0] = fingerprint(&r);
    uint64_t key = ((m->fp[0] * 31 + m->fp[1]) * 31 + m->fp[2]) * 31 + m->fp[3];
    m->mt[(uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - m->z.mt))] =
        (uint32_t)(h32(ip) >> 22) << 22 | (uint32_t)((m->gbase + i + 1) & 0x3FFFFF);
    *prev_ip = ip;
    *prev_taken = bt != 0;
    return e;
}

TRZ_FORCE_INLINE int cs_code(cs_model *m, cs_coders *cc, const int enc, const cs_layout *L, const uint8_t *in, uint8_t *out,
                   size_t nrec)
{
    cs_rc *cip = &cc->rc[0], *csig = cip, *cbr = cip, *cmem = cip, *cex = cip;
    const uint8_t *hist = enc ? in : out;
    cs_pc *pe = m->pe;         /* entry of the previous record's PC */
    cs_pc pv = m->pv;          /* the previous record's static fields */
    uint64_t prev_ip = m->prev_ip;
    int prev_taken = m->prev_taken;
    uint8_t prev_extra[14];
    memcpy(prev_extra, m->prev_extra, sizeof prev_extra);
    cs_rec r;
    memset(&r, 0, sizeof r);
    for (size_t i = 0; i < nrec; i++) {
        if (enc) cs_unpack(L, in + i * L->size, &r);
        else if (!(i & 4095)) /* damaged streams: stop once one is read well past its end */
            for (int k = 0; k < NCOD; k++)
                if (rc_dec_bad(&cc->rc[k])) return -1;
        const uint8_t *mp = match_rec(m, L, hist, m->mptr, m->gbase + i); /* the match's record */
        if (mp && m->mlen >= RUN_MIN) {
            /* a long exact match: is this record the match's record again? */
            int same = enc ? same_record(mp, in + i * L->size, L->size) : 0;
            FIELD(cip, F_RUN);
            unsigned rcl = m->mlen >= (1u << 12) ? 12 : cs_bitlen(m->mlen);
            rc_cnt *s1 = &m->runpc[h32(trz_ld_le64(mp)) >> (32 - m->z.br)];
            /* the PC's own state, quantised (17: never seen), picks a state
             * of its run-length class: how far to trust the PC's state */
            unsigned q = (*s1 & 63) ? (unsigned)(m->mx.str[4095 - (*s1 >> 20)] + 2048) >> 8 : 16;
            same = rcd_cbit(cip, enc, &m->run2[rcl * 17 + q], same, 60);
            rc_cnt_update(s1, same, RUN_LIM);
            if (same) {
                if (!enc) memcpy(out + i * L->size, mp, L->size);
                pe = run_update(m, L, hist + i * L->size, i, pe, &prev_ip, &prev_taken);
                if (pe) pv = *pe;
                cs_prefetch_next(m, L, hist, nrec, 0);
                continue;
            }
        }
        uint64_t mip = mp ? trz_ld_le64(mp) : 0;
        unsigned mb = mlen_class(m->mlen);
        /* 1. ip */
        if (!pe) {
            FIELD(cip, F_IP_FIRST);
            r.ip = rcd_direct64(cip, enc, r.ip);
        } else {
            unsigned k = pe->kind;
            uint64_t base = prev_ip, pred = 0;
            cs_pc *le = pe; /* the instruction whose length a fall-through needs */
            int have = 0;
            if (!prev_taken) {
                have = pe->len != 0;
                pred = prev_ip + pe->len;
            } else if (k == CS_K_RET && m->ras_top) {
                /* back to the fall-through of the matching call */
                base = m->ras[--m->ras_top % RAS_N];
                le = pc_find(m, base);
                have = le && le->len;
                pred = base + (le ? le->len : 0);
            } else if (pe->target) {
                pred = pe->target;
                have = 1;
            }
            unsigned ms = mp ? (have && mip == pred ? 1 : 2) : 0;
            int hit = 0;
            if (have) {
                FIELD(cip, F_IP_HIT);
                rc_cnt *p = &m->ip_hit[((k * 2 + (unsigned)prev_taken) * 4 + (pe->hist & 3)) * 3 + ms];
                hit = rcd_cbit(cip, enc, p, r.ip == pred, 60);
                pe->hist = (uint8_t)(pe->hist << 1 | (unsigned)hit);
            }
            if (!hit && ms == 2) {
                FIELD(cip, F_IP_HIT);
                hit = rcd_bit(cip, enc, &m->ip_mhit[mb * 2 + (unsigned)have], r.ip == mip);
                if (hit) pred = mip;
            }
            if (hit) {
                r.ip = pred;
            } else if (!have && le && (!prev_taken || k == CS_K_RET)) {
                /* first fall-through past this instruction: its length, in
                 * the context of its static fields */
                FIELD(cip, F_IP_LEN);
                unsigned len = code_len4(m, cip, enc, le, enc ? (r.ip - base < 16 ? (unsigned)(r.ip - base) : 0) : 0);
                if (len) r.ip = base + len;
                else r.ip = base + (uint64_t)cs_sint(cip, enc, &m->ip_delta[k * 2 + (unsigned)prev_taken],
                                                     (int64_t)(r.ip - base));
            } else {
                FIELD(cip, F_IP_DELTA);
                r.ip = base + (uint64_t)cs_sint(cip, enc, &m->ip_delta[k * 2 + (unsigned)prev_taken],
                                                (int64_t)(r.ip - base));
            }
            uint64_t d = r.ip - base;
            if (!prev_taken || k == CS_K_RET) {
                if (le && d >= 1 && d < 256) le->len = (uint8_t)d;
            } else {
                pe->target = r.ip;
            }
        }
        const uint8_t *mpa = mp && mip == r.ip ? mp : NULL; /* the match at this instruction */
        /* 2. static fields */
        int fresh;
        cs_pc *e = pc_get(m, r.ip, &fresh);
        /* a PC new to the chunk that the member knows starts from its fact */
        int known = !fresh || (m->know && fact_fill(m, L, e, r.ip));
        if (known) {
            int same = 1;
            if (enc) {
                uint64_t regs;
                memcpy(&regs, r.regs, 8);
                same = regs == e->regs && r.ib == e->ib && r.mm == e->mmask &&
                       (e->btdyn ? r.bt <= 1 : r.bt == e->bt);
            }
            FIELD(csig, F_SIG_HIT);
            same = rcd_cbit(csig, enc, &m->sig_hit[fresh], same, 60);
            if (same) {
                memcpy(r.regs, &e->regs, 8);
                r.ib = e->ib;
                if (!e->btdyn) r.bt = e->bt;
            } else {
                FIELD(csig, F_SIG_CHG);
                code_sig(m, csig, enc, L, &r, e, &pv);
            }
        } else {
            FIELD(csig, F_SIG_NEW);
            code_sig(m, csig, enc, L, &r, e, &pv);
        }
        r.mm = e->mmask;
        /* 3. branch outcome */
        unsigned kind = e->kind;
        if (e->btdyn) r.bt = (uint8_t)code_taken(m, cbr, enc, r.ip, e, r.bt, mpa, mb);
        int taken = r.bt != 0;
        if (kind == CS_K_CALL || kind == CS_K_ICALL) {
            /* a return comes back to the call's fall-through, whose length
             * is learnt from the first return there */
            m->ras[m->ras_top++ % RAS_N] = r.ip;
        }
        /* 4. memory */
        if (e->mmask) {
            if (code_mem(m, cmem, enc, L, &r, e->mmask, fresh, mpa, mb)) return -1;
        } else if (!enc) {
            memset(r.mem, 0, sizeof r.mem);
        }
        /* 5. other bytes (96-byte form) */
        if (L->nextra) {
            int same = 1;
            if (enc) same = memcmp(r.extra, prev_extra, L->nextra) == 0;
            FIELD(cex, F_EXTRA);
            same = rcd_bit(cex, enc, &m->ex_same[0], same);
            if (same) memcpy(r.extra, prev_extra, L->nextra);
            else
                for (unsigned k = 0; k < L->nextra; k++)
                    r.extra[k] = (uint8_t)rcd_tree(cex, enc, m->ex_byte[k], 8, r.extra[k]);
            memcpy(prev_extra, r.extra, L->nextra);
        }
        if (!enc) cs_pack(L, &r, out + i * L->size);
        match_update(m, L, hist, i, &r);
        pe = e;
        pv = *e;
        prev_ip = r.ip;
        prev_taken = taken;
        cs_prefetch_next(m, L, hist, nrec, taken ? e->target : r.ip + e->len);
    }
    m->pe = pe;
    m->pv = pv;
    m->prev_ip = prev_ip;
    m->prev_taken = prev_taken;
    memcpy(m->prev_extra, prev_extra, sizeof prev_extra);
    if (m->chained) { /* the chunk's last records into the ring */
        size_t rn = (size_t)1 << m->ring_bits, from = nrec > rn ? nrec - rn : 0;
        /* (a lent ring: the self-check's decoder writes them, after this) */
        for (size_t i = m->ring_write ? from : nrec; i < nrec; i++)
            memcpy(m->ring + ((m->gbase + i) & (rn - 1)) * L->size, hist + i * L->size, L->size);
        m->ring_fill = m->ring_fill + nrec < rn ? m->ring_fill + nrec : rn;
        m->gbase += nrec;
    }
    return 0;
}

TRZ_FORCE_INLINE int cs_encode_impl(const trz_enc_args *a, const cs_layout *L, cs_model **pm, unsigned rb, cs_ring *ring)
{
    if (a->len % L->size || a->nrec != a->len / L->size) return TRZ_CODEC_UNSUPPORTED;
    if (!a->nrec) return TRZ_CODEC_OK; /* no records, no streams */
    cs_coders cc;
    rc_enc_init(&cc.rc[0], &a->streams[S_MODEL]);
    cs_model *m;
    if (a->chain) {
        int first = !*pm || !(*pm)->live;
        m = cs_range_chain(pm, a->nrec, rb, L->size, ring, 1);
        if (!m) return TRZ_CODEC_NOMEM;
        rcd_direct(&cc.rc[0], 1, first ? CS_VERSION_CHAIN : CS_VERSION_CHAINED, 8);
        if (first) rcd_direct(&cc.rc[0], 1, rb, 5);
    } else {
        m = cs_range_fit(pm, a->nrec);
        if (!m) return TRZ_CODEC_NOMEM;
        rcd_direct(&cc.rc[0], 1, a->know ? CS_VERSION_KNOW : CS_VERSION, 8);
    }
    m->know = a->know;
    int rc = cs_code(m, &cc, 1, L, a->in, NULL, (size_t)a->nrec);
    if (rc) m->live = 0; /* no chain goes on from a failed chunk */
    rc_enc_flush(&cc.rc[0]);
    trz_mark_coded(a, S_MODEL); /* range-coded: nothing for a back-end to find */
    if (rc) return TRZ_CODEC_UNSUPPORTED;
    if (a->streams[S_MODEL].oom) return TRZ_CODEC_NOMEM;
    return TRZ_CODEC_OK;
}

TRZ_FORCE_INLINE int cs_decode_impl(const trz_dec_args *a, const cs_layout *L, cs_model **pm, cs_ring *ring)
{
    if (a->len % L->size || a->nrec != a->len / L->size) return TRZ_CODEC_CORRUPT;
    for (int k = S_NSTREAMS; k < TRZ_MAX_STREAMS; k++)
        if (a->stream_len[k]) return TRZ_CODEC_CORRUPT;
    if (!a->nrec) return a->stream_len[S_MODEL] ? TRZ_CODEC_CORRUPT : TRZ_CODEC_OK;
    cs_coders cc;
    rc_dec_init(&cc.rc[0], a->stream[S_MODEL], a->stream_len[S_MODEL]);
    unsigned v = rcd_direct(&cc.rc[0], 0, 0, 8);
    cs_model *m;
    if (a->chain) {
        if (v == CS_VERSION_CHAIN) {
            unsigned rb = rcd_direct(&cc.rc[0], 0, 0, 5);
            if (rb < CS_RING_MIN || rb > CS_RING_MAX) return TRZ_CODEC_CORRUPT;
            if (*pm) (*pm)->live = 0; /* a chain starts here */
            m = cs_range_chain(pm, a->nrec, rb, L->size, ring, 0);
        } else if (v == CS_VERSION_CHAINED) {
            if (!*pm || !(*pm)->live) return TRZ_CODEC_CORRUPT; /* no chain to go on with */
            m = *pm;
        } else {
            return TRZ_CODEC_UNSUPPORTED;
        }
    } else {
        if (v != (a->know ? CS_VERSION_KNOW : CS_VERSION)) return TRZ_CODEC_UNSUPPORTED;
        m = cs_range_fit(pm, a->nrec);
    }
    if (!m) return TRZ_CODEC_NOMEM;
    m->know = a->know;
    int rc = cs_code(m, &cc, 0, L, NULL, a->out, (size_t)a->nrec);
    if (rc || !rc_dec_ok(&cc.rc[0])) {
        m->live = 0; /* no chain goes on from a damaged chunk */
        return TRZ_CODEC_CORRUPT;
    }
    return TRZ_CODEC_OK;
}

/* ---- the knowledge stream (champsim.md, "Knowledge stream") ------------
 * A chunk's new facts by increasing ip, range-coded: the first ip direct,
 * then each ip as "the previous one's fall-through" or its distance; the
 * static fields with the record model's own (code_sig, the previous fact
 * standing for the previous instruction); the fall-through length in the
 * context of the kind; whether there is a taken successor, and its
 * distance. */
#define CS_KNOW_VARIANT 0
typedef struct {
    cs_p gap_eq[2], has_t[CS_NKIND], has_len[CS_NKIND], len[CS_NKIND][256];
    cs_smodel gap, tgt[CS_NKIND];
} cs_kmodel;

static int cs_know_code(const trz_fact *f, size_t n, trz_buf *out, const uint8_t *p, size_t plen,
                        trz_know_add_fn add, void *ctx, const int enc, const cs_layout *L)
{
    cs_rc c;
    if (enc) rc_enc_init(&c, out);
    else rc_dec_init(&c, p, plen);
    if (rcd_direct(&c, enc, CS_KNOW_VARIANT, 8) != CS_KNOW_VARIANT) return TRZ_CODEC_UNSUPPORTED;
    uint64_t count = rcd_direct(&c, enc, (uint32_t)n, 32);
    if (!enc && (count == 0 || count > TRZ_KNOW_MAX_FACTS)) return TRZ_CODEC_CORRUPT;
    cs_model *m = cs_know_model_new(count);
    cs_kmodel *k = malloc(sizeof *k);
    if (!m || !k) { cs_know_model_free(m); free(k); return TRZ_CODEC_NOMEM; }
    cs_p_fill(k->gap_eq, sizeof k->gap_eq / sizeof(cs_p));
    cs_p_fill(k->has_t, sizeof k->has_t / sizeof(cs_p));
    cs_p_fill(k->has_len, sizeof k->has_len / sizeof(cs_p));
    cs_p_fill(&k->len[0][0], sizeof k->len / sizeof(cs_p));
    cs_smodel_init(&k->gap, 1);
    cs_smodel_init(k->tgt, CS_NKIND);
    cs_pc pv, e;
    memset(&pv, 0, sizeof pv);
    pv.kind = CS_NKIND;
    uint64_t ip = 0;
    int rc = TRZ_CODEC_OK;
    for (uint64_t i = 0; i < count && rc == TRZ_CODEC_OK; i++) {
        const uint8_t *v = enc ? f[i].val : NULL;
        uint64_t key = enc ? f[i].key : 0;
        if (i == 0) {
            ip = rcd_direct64(&c, enc, key);
        } else {
            uint64_t gap = key - ip;
            FIELD(&c, F_K_GAP);
            int eq = pv.len != 0;
            if (eq) eq = rcd_bit(&c, enc, &k->gap_eq[pv.kind != CS_K_NONE], gap == pv.len);
            if (eq) gap = pv.len;
            else gap = (uint64_t)cs_sint(&c, enc, &k->gap, (int64_t)(gap - 1)) + 1;
            ip += gap;
        }
        cs_rec r;
        memset(&r, 0, sizeof r);
        if (enc) {
            memcpy(r.regs, v, 8);
            r.ib = v[8];
            r.bt = v[9];
            r.mm = v[10];
        }
        memset(&e, 0, sizeof e);
        code_sig(m, &c, enc, L, &r, &e, &pv);
        unsigned kind = e.kind;
        uint8_t fact[CS_FACT_T];
        memcpy(fact, r.regs, 8);
        fact[8] = r.ib;
        fact[9] = r.bt;
        fact[10] = e.mmask;
        FIELD(&c, F_K_LEN);
        /* the fall-through length as the record model codes it, 0 when
         * unknown, escaping to 8 bits past 15 */
        unsigned fl = enc ? v[11] : 0;
        unsigned l4 = rcd_bit(&c, enc, &k->has_len[kind], fl != 0) ? code_len4(m, &c, enc, &e, fl < 16 ? fl : 0) : 16;
        if (l4 == 0) fl = rcd_tree(&c, enc, k->len[kind], 8, fl);
        else fl = l4 & 15;
        fact[11] = (uint8_t)fl;
        FIELD(&c, F_K_T);
        int has_t = rcd_bit(&c, enc, &k->has_t[kind], enc && f[i].len == CS_FACT_T);
        uint64_t d = has_t ? (uint64_t)cs_sint(&c, enc, &k->tgt[kind], enc ? (int64_t)trz_ld_le64(v + 12) : 0) : 0;
        trz_st_le64(fact + 12, d);
        e.len = fact[11];
        pv = e;
        if (!enc) {
            if (rc_dec_bad(&c)) rc = TRZ_CODEC_CORRUPT;
            else add(ctx, ip, fact, has_t ? CS_FACT_T : CS_FACT);
        }
    }
    if (enc) rc_enc_flush(&c);
    else if (rc == TRZ_CODEC_OK && !rc_dec_ok(&c)) rc = TRZ_CODEC_CORRUPT;
    cs_know_model_free(m);
    free(k);
    return rc;
}

int cs_know_range_encode(const trz_fact *f, size_t n, trz_buf *out, const cs_layout *L)
{
    for (size_t i = 0; i < n; i++) /* only facts learn writes */
        if ((f[i].len != CS_FACT && f[i].len != CS_FACT_T) || (i && f[i].key <= f[i - 1].key)) return TRZ_CODEC_UNSUPPORTED;
    return cs_know_code(f, n, out, NULL, 0, NULL, NULL, 1, L);
}
int cs_know_range_decode(const uint8_t *p, size_t n, trz_know_add_fn add, void *ctx, const cs_layout *L)
{
    return cs_know_code(NULL, 0, NULL, p, n, add, ctx, 0, L);
}

/* ---- the range-coded variant's entries, one per layout (the table and
 * the fast variant's dispatch: cs_codec.c); rb: a chain's ring bits, the
 * level's. */
int cs_range_encode64(const trz_enc_args *a, cs_model **pm, unsigned rb, cs_ring *ring)
{
    return cs_encode_impl(a, &cs_layout64, pm, rb, ring);
}
int cs_range_encode96(const trz_enc_args *a, cs_model **pm, unsigned rb, cs_ring *ring)
{
    return cs_encode_impl(a, &cs_layout96, pm, rb, ring);
}
int cs_range_decode64(const trz_dec_args *a, cs_model **pm, cs_ring *ring) { return cs_decode_impl(a, &cs_layout64, pm, ring); }
int cs_range_decode96(const trz_dec_args *a, cs_model **pm, cs_ring *ring) { return cs_decode_impl(a, &cs_layout96, pm, ring); }
