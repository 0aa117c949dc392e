/* cs_fast.c - the ChampSim codec's fast variant (model variant 2, levels
 * 1-5).  Records repeat whole far more often than not (the same loop, the
 * same call), so a chunk is a sequence of runs, copies of the records a
 * distance back, each followed by one literal record.  A literal's fields are
 * predicted by the record at the copy distance and by a small per-PC model
 * (static fields, fall-through and target, a branch predictor, address
 * candidates); what neither predicts goes to byte streams that the
 * container's back-end (zstd) codes.  Nothing is arithmetic-coded: a run
 * decodes as a copy, and only literals touch the model.  Encoder and decoder
 * are one template (`enc`, a constant in each instance).  Spec: champsim.md,
 * "Fast variant". */
#include "champsim_int.h"
#include "cs_fast.h"

#include "../common/compiler.h"

static const char *const fs_names[CSF_NSTREAMS] = { NULL, "seq", "dist", "ip", "len", "sig", "memc", "memd", "extra" };

const char *csf_stream_name(unsigned id) { return id < CSF_NSTREAMS ? fs_names[id] : NULL; }

#ifdef CSF_STATS /* tuning only: event counts of the encoder */
#include <stdio.h>
static unsigned long long st_ev[64];
#define ST(k) (enc ? (void)st_ev[k]++ : (void)0)
__attribute__((destructor)) static void st_print(void)
{
    static const char *nm[] = { "lit", "R", "aligned", "have", "ipc0", "ipc1", "ipc2", "len", "fresh", "fact",
                                "sigchg", "dyn", "btmiss", "slots", "nocand", "hit", "miss", "alt", "delta", "sw" };
    for (unsigned k = 0; k < 64; k++)
        if (st_ev[k]) fprintf(stderr, "%s=%llu ", k < sizeof nm / sizeof nm[0] ? nm[k] : "?", st_ev[k]);
    fprintf(stderr, "\n");
}
#else
#define ST(k) ((void)0)
#endif

#define RAS_N 64
#define CTX_RECS 4 /* records hashed to find an earlier occurrence of the context */
#ifndef MT_BITS
#define MT_BITS 18 /* the encoder's table of contexts: 1 MiB */
#endif

/* A PC's entry.  Entries are numbered in the order the chunk's literals
 * first reach them, so the ones used together lie together in memory. */
typedef struct {
    uint64_t ip, target, regs;
    uint32_t mem;   /* its first address state in the pool, one per slot of mask */
    uint8_t ib, bt, dyn, mask, kind, len, pad[2];
} fpc;

/* The address state of one (PC, slot). */
typedef struct {
    uint64_t last, stride;
    uint8_t valid, sel, pad[6];
} fmem;

/* Address candidates: the record at the distance, last + stride, the record
 * at the distance moved as the last aligned address was, last + the last
 * delta of any slot. */
enum { C_M, C_S, C_X, C_G, C_N };
/* Bases of a delta: the entry's last address (or the last one coded), the
 * first address of the record before, of the record at the distance, and
 * the addresses last reached through the source registers. */
enum { FB_LAST, FB_PREV, FB_R, FB_REG, FB_N = FB_REG + 4 };

static inline int special_reg(uint8_t r) { return r == 0 || r == CS_REG_FLAGS || r == CS_REG_IP; }

typedef struct csf_model {
    fpc *e;           /* entries, ne of cap */
    uint32_t ne, ecap;
    uint32_t *idx;    /* entry number + 1 by ip hash (open addressing), 0 = empty */
    unsigned ib;      /* idx has 2^ib places */
    fmem *pool;
    uint32_t np, pcap;
    uint8_t *br;      /* 2-bit counters, gshare */
    unsigned brb;
    uint64_t ras[RAS_N];
    unsigned top;
    uint64_t ghist;
    uint64_t last_addr; /* the last address coded */
    uint64_t shift;     /* the last aligned address less the distance's record's */
    uint64_t lastd;     /* the last delta of any (PC, slot) */
    uint64_t by_reg[256]; /* the first address of the last literal reading the register */
    const trz_know *know;
    int oom;
    /* Chains (champsim.md, "Chains"): live = the model holds a chain's
     * state, the next chained chunk goes on from it: the entries and
     * globals, and the chunk's last record (has_last) with what a literal
     * needs of it (pe, pip, ptaken). */
    int live, has_last;
    int64_t pe;
    uint64_t pip;
    int ptaken;
    uint8_t last[96];
} fmodel;

static inline unsigned bitlen(uint64_t n) { return n ? 64 - (unsigned)__builtin_clzll(n) : 0; }

static unsigned clampu(unsigned x, unsigned lo, unsigned hi) { return x < lo ? lo : x > hi ? hi : x; }

static void fmodel_free(fmodel *m)
{
    if (!m) return;
    free(m->e), free(m->idx), free(m->pool), free(m->br), free(m);
}

static fmodel *fmodel_new(uint64_t nrec, const trz_know *know)
{
    fmodel *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->ib = 12;
    m->ecap = 1024;
    m->pcap = 2048;
    m->brb = clampu(bitlen(nrec) - 2, 8, 14);
    m->e = malloc(m->ecap * sizeof *m->e);
    m->idx = calloc((size_t)1 << m->ib, sizeof *m->idx);
    m->pool = malloc(m->pcap * sizeof *m->pool);
    m->br = malloc((size_t)1 << m->brb);
    if (!m->e || !m->idx || !m->pool || !m->br) {
        fmodel_free(m);
        return NULL;
    }
    memset(m->br, 2, (size_t)1 << m->brb); /* weakly taken */
    m->know = know;
    return m;
}

/* The model part for a chunk of nrec records in *pm (its tables' sizes
 * follow the record count, and the entry tables grow from the same start
 * at every chunk): made afresh each time, on the C heap where the blocks
 * are small.  NULL if out of memory. */
static fmodel *fmodel_fit(fmodel **pm, uint64_t nrec, const trz_know *know)
{
    fmodel_free(*pm);
    *pm = fmodel_new(nrec, know);
    return *pm;
}

void csf_model_free(struct csf_model *m) { fmodel_free(m); }

/* A chain goes on with its model while it has at most this many entries
 * (its memory bound); past it, a chunk starts the chain again. */
#define CSF_CHAIN_MAX_PCS (1u << 20)


/* The place of ip in idx: its entry's, or the empty one it would take. */
static inline uint32_t *idx_slot(const fmodel *m, uint64_t ip)
{
    uint32_t mask = (1u << m->ib) - 1, h = h32(ip) >> (32 - m->ib);
    while (m->idx[h] && m->e[m->idx[h] - 1].ip != ip) h = (h + 1) & mask;
    return &m->idx[h];
}

/* The entry number of ip, or -1. */
static inline int64_t pc_find(const fmodel *m, uint64_t ip)
{
    uint32_t v = *idx_slot(m, ip);
    return v ? (int64_t)v - 1 : -1;
}

/* nmem fresh address states; their first's number, or UINT32_MAX. */
static uint32_t pool_new(fmodel *m, unsigned nmem)
{
    if (m->np + nmem > m->pcap) {
        uint32_t cap = m->pcap * 2;
        fmem *p = cap > m->pcap ? realloc(m->pool, cap * sizeof *p) : NULL;
        if (!p) { m->oom = 1; return UINT32_MAX; }
        m->pool = p;
        m->pcap = cap;
    }
    memset(&m->pool[m->np], 0, nmem * sizeof *m->pool);
    m->np += nmem;
    return m->np - nmem;
}

/* The entry of ip, made (cleared) when there is none (*fresh = 1); -1 when
 * out of memory. */
static int64_t pc_get(fmodel *m, uint64_t ip, int *fresh)
{
    uint32_t *s = idx_slot(m, ip);
    *fresh = 0;
    if (TRZ_LIKELY(*s != 0)) return *s - 1;
    *fresh = 1;
    if (m->ne == m->ecap) {
        fpc *e = m->ecap < (1u << 30) ? realloc(m->e, 2 * m->ecap * sizeof *e) : NULL;
        if (!e) { m->oom = 1; return -1; }
        m->e = e;
        m->ecap *= 2;
    }
    fpc *e = &m->e[m->ne];
    memset(e, 0, sizeof *e);
    e->ip = ip;
    *s = ++m->ne;
    if (2 * m->ne > (1u << m->ib)) { /* rehash into twice the places */
        uint32_t *old = m->idx;
        unsigned ob = m->ib;
        m->idx = calloc((size_t)2 << ob, sizeof *m->idx);
        if (!m->idx) { m->idx = old; m->oom = 1; return -1; }
        m->ib = ob + 1;
        for (uint32_t k = 0; k < (1u << ob); k++)
            if (old[k]) *idx_slot(m, m->e[old[k] - 1].ip) = old[k];
        free(old);
    }
    return m->ne - 1;
}

/* An entry's static fields; bt only when it is no per-record outcome. */
static void set_static(const cs_layout *L, fpc *e, const uint8_t *regs, uint8_t ib, uint8_t bt, uint8_t mask)
{
    memcpy(&e->regs, regs, 8);
    e->ib = ib;
    e->kind = (uint8_t)cs_kind(regs);
    e->dyn = (uint8_t)((e->kind == CS_K_COND || e->kind == CS_K_OTHER) && bt <= 1);
    e->bt = e->dyn ? 0 : bt;
    e->mask = L->ndmem < 4 ? mask & 0x3F : mask;
}

/* ---- stream I/O ------------------------------------------------------------ */

typedef struct {
    trz_buf *w;             /* encoder: the streams, by id */
    trz_rd r[CSF_NSTREAMS]; /* decoder */
} fio;

TRZ_FORCE_INLINE void put8(fio *io, int s, unsigned v) { trz_put_u8(&io->w[s], (uint8_t)v); }
TRZ_FORCE_INLINE void putv(fio *io, int s, uint64_t v) { trz_put_uvarint(&io->w[s], v); }
TRZ_FORCE_INLINE unsigned get8(fio *io, int s) { return trz_get_u8(&io->r[s]); }
TRZ_FORCE_INLINE uint64_t getv(fio *io, int s) { return trz_get_uvarint(&io->r[s]); }

/* A signed delta as a zigzag varint of stream s. */
TRZ_FORCE_INLINE uint64_t code_delta(fio *io, const int enc, int s, uint64_t base, uint64_t v)
{
    if (enc) {
        putv(io, s, trz_zigzag((int64_t)(v - base)));
        return v;
    }
    return base + (uint64_t)trz_unzigzag(getv(io, s));
}

/* ---- one literal record ------------------------------------------------------ */

/* What a literal needs of the record before it. */
typedef struct {
    int64_t pe;   /* its entry number, or -1 */
    uint64_t pip; /* its ip (0 before the first record) */
    int ptaken;
} fprev;

TRZ_FORCE_INLINE uint64_t slot_val(const cs_layout *L, const uint8_t *p, unsigned s)
{
    return s < 4 ? trz_ld_le64(p + L->off_smem + 8 * s) : s - 4 < L->ndmem ? trz_ld_le64(p + L->off_dmem + 8 * (s - 4)) : 0;
}

/* The first used slot's address of a packed record, 0 when none. */
TRZ_FORCE_INLINE uint64_t first_addr(const cs_layout *L, const uint8_t *p)
{
    for (unsigned s = 0; s < 8; s++) {
        uint64_t a = slot_val(L, p, s);
        if (a) return a;
    }
    return 0;
}

/* The static fields in the sig stream. */
TRZ_FORCE_INLINE void code_sig(fio *io, const int enc, const cs_layout *L, cs_rec *r)
{
    for (unsigned k = 0; k < 8; k++) {
        if (k >= L->ndreg && k < 4) continue;
        if (enc) put8(io, CSF_SIG, r->regs[k]);
        else r->regs[k] = (uint8_t)get8(io, CSF_SIG);
    }
    if (enc) {
        put8(io, CSF_SIG, r->ib);
        put8(io, CSF_SIG, r->bt);
        put8(io, CSF_SIG, r->mm);
    } else {
        r->ib = (uint8_t)get8(io, CSF_SIG);
        r->bt = (uint8_t)get8(io, CSF_SIG);
        r->mm = (uint8_t)get8(io, CSF_SIG);
    }
}

/* The head of a literal: bits 0-1 ip (0, 1: a candidate, 2: in the ip or
 * len stream, 3: an extension byte follows with these two bits, static
 * fields (bit 2) and other bytes (bit 3) coded anew, and the misses of the
 * mask's 6th to 8th slots (bits 4-6)); bit 2 the branch outcome not as
 * predicted; bits 3-7 the mask's first five slots not as predicted. */
enum { H_IP = 3, H_ESC = 3, H_BT = 4, H_MEM = 3 };
enum { X_SIG = 4, X_EXTRA = 8, X_MEM = 4 };

/* Record r as a literal: R is the record at the copy distance (packed), or
 * NULL; prevrec the record before (NULL for the first).  The encoder reads
 * r, the decoder fills it.  Returns -1 on damage. */
TRZ_FORCE_INLINE int code_literal(fmodel *m, fio *io, const int enc, const cs_layout *L, cs_rec *r, const uint8_t *R,
                      const uint8_t *prevrec, fprev *pv)
{
    unsigned hdr = 0, xh = 0;
    if (!enc) {
        hdr = get8(io, CSF_SEQ);
        if ((hdr & H_IP) == H_ESC) {
            xh = get8(io, CSF_SEQ);
            if ((xh & H_IP) == H_ESC || (xh & 0x80)) return -1;
        }
    }
    /* 1. ip: the model's prediction, then the record at the distance */
    fpc *pe = pv->pe >= 0 ? &m->e[pv->pe] : NULL, *le = pe;
    uint64_t base = pv->pip, pred = 0;
    int have = 0, ft = 0;
    if (pe) {
        if (!pv->ptaken) {
            ft = 1;
            have = pe->len != 0;
            pred = base + pe->len;
        } else if (pe->kind == CS_K_RET && m->top) {
            ft = 1;
            base = m->ras[--m->top % RAS_N];
            int64_t k = pc_find(m, base);
            le = k >= 0 ? &m->e[k] : NULL;
            have = le && le->len;
            pred = base + (le ? le->len : 0);
        } else if (pe->target) {
            have = 1;
            pred = pe->target;
        }
    }
    uint64_t cand[2];
    unsigned nc = 0;
    if (have) cand[nc++] = pred;
    if (R) {
        uint64_t rip = trz_ld_le64(R);
        if (!have || rip != pred) cand[nc++] = rip;
    }
    unsigned ipc;
    if (enc) {
        ipc = 2;
        for (unsigned k = nc; k-- > 0;)
            if (cand[k] == r->ip) ipc = k;
    } else {
        ipc = (hdr & H_IP) == H_ESC ? xh & H_IP : hdr & H_IP;
    }
    ST(0);
    ST(4 + ipc);
    if (ipc < 2) {
        if (ipc >= nc) return -1;
        r->ip = cand[ipc];
    } else if (ft && le && !have) {
        /* the first fall-through past this instruction: its length */
        uint64_t d = r->ip - base;
        unsigned len = enc ? (d >= 1 && d < 256 ? (unsigned)d : 0) : 0;
        ST(7);
        if (enc) put8(io, CSF_LEN, len);
        else len = get8(io, CSF_LEN);
        if (len) r->ip = base + len;
        else r->ip = code_delta(io, enc, CSF_IP, base, r->ip);
    } else {
        r->ip = code_delta(io, enc, CSF_IP, base, r->ip);
    }
    if (pe) {
        uint64_t d = r->ip - base;
        if (ft) {
            if (le && d >= 1 && d < 256) le->len = (uint8_t)d;
        } else {
            pe->target = r->ip;
        }
    }
    const uint8_t *RA = R && trz_ld_le64(R) == r->ip ? R : NULL; /* the distance's record, aligned */
    if (RA) ST(2);

    /* 2. static fields: the entry's, from the member's fact for a PC new to
     * the chunk, or coded */
    int fresh;
    int64_t en = pc_get(m, r->ip, &fresh);
    if (en < 0) return -2;
    fpc *e = &m->e[en];
    int known = !fresh;
    cs_fact f;
    if (fresh && m->know && cs_fact_get(m->know, L, r->ip, &f)) {
        set_static(L, e, f.regs, f.ib, f.bt, f.mask);
        e->len = f.len;
        e->target = f.has_t ? r->ip + f.tgt : 0;
        known = 1;
        ST(9);
    }
    int sig;
    if (enc) {
        uint64_t regs;
        memcpy(&regs, r->regs, 8);
        sig = !known || regs != e->regs || r->ib != e->ib || r->mm != e->mask ||
              (e->dyn ? r->bt > 1 : r->bt != e->bt);
        if (known && sig) xh |= X_SIG;
        if (known && sig) ST(10);
    } else {
        sig = !known || (xh & X_SIG);
    }
    uint8_t mask0 = e->mask;
    if (sig) {
        code_sig(io, enc, L, r);
        set_static(L, e, r->regs, r->ib, r->bt, r->mm);
    } else if (!enc) {
        memcpy(r->regs, &e->regs, 8);
        r->ib = e->ib;
    }
    if (fresh || (e->mask & ~mask0)) { /* address states for the slots, fresh */
        e->mem = pool_new(m, trz_popcount32(e->mask));
        if (e->mem == UINT32_MAX) return -2;
    }

    /* the other bytes' flag before the outcome, which reads it (the
     * decoder has it from the head) */
    if (enc && L->nextra) {
        int x = 0;
        for (unsigned k = 0; k < L->nextra; k++) x |= r->extra[k] != (prevrec ? prevrec[L->extra_off[k]] : 0);
        xh |= (unsigned)x * X_EXTRA;
    }

    /* 3. branch outcome: the record at the distance's, else gshare; at the
     * distance's aligned record, with no address and nothing else coded
     * anew, only the outcome can differ */
    if (e->dyn) {
        uint8_t *c = &m->br[h32(r->ip ^ (m->ghist & 0xFFFF) << 20) >> (32 - m->brb)];
        int p = RA ? (RA[9] != 0) ^ (!e->mask && !xh) : *c >= 2;
        int bt;
        if (enc) {
            bt = r->bt;
            hdr |= (unsigned)(bt != p) * H_BT;
            ST(11);
            if (bt != p) ST(12);
        } else {
            bt = p ^ !!(hdr & H_BT);
            r->bt = (uint8_t)bt;
        }
        if (bt) { if (*c < 3) (*c)++; }
        else if (*c) (*c)--;
        m->ghist = m->ghist << 1 | (unsigned)bt;
    } else if (!enc) {
        if (hdr & H_BT) return -1;
        r->bt = e->bt;
    }
    if (e->kind == CS_K_CALL || e->kind == CS_K_ICALL) m->ras[m->top++ % RAS_N] = r->ip;

    /* 4. memory: per slot, the candidate that was right last time, else
     * the next that differs, else a delta from a base */
    r->mm = e->mask;
    unsigned j = 0;
    uint64_t first = 0, prevfirst = 0, rfirst = 0;
    int firsts = 0; /* prevfirst and rfirst found (only a delta needs them) */
    if (!enc) memset(r->mem, 0, sizeof r->mem);
    for (unsigned left = e->mask; left; left &= left - 1, j++) {
        unsigned s = trz_ctz32(left);
        fmem *me = &m->pool[e->mem + j];
        uint64_t c[C_N];
        unsigned ok = 0;
        c[C_M] = RA ? slot_val(L, RA, s) : 0;
        ok |= (unsigned)(c[C_M] != 0) << C_M;
        c[C_S] = me->last + me->stride;
        ok |= (unsigned)me->valid << C_S;
        c[C_X] = c[C_M] + m->shift;
        ok |= (unsigned)(c[C_M] != 0 && m->shift != 0) << C_X;
        c[C_G] = me->last + m->lastd;
        ok |= (unsigned)(me->valid && m->lastd != me->stride) << C_G;
        unsigned pri = (ok >> me->sel & 1) ? me->sel : ok ? trz_ctz32(ok) : C_N;
        uint64_t a = enc ? r->mem[s] : 0;
        int miss = 1;
        if (ok) {
            if (enc) {
                miss = a != c[pri];
                if (j < 5) hdr |= (unsigned)miss << (H_MEM + j);
                else xh |= (unsigned)miss << (X_MEM + j - 5);
            } else {
                miss = j < 5 ? (int)(hdr >> (H_MEM + j) & 1) : (int)(xh >> (X_MEM + j - 5) & 1);
            }
            ST(13);
            if (!miss) ST(15);
        } else {
            ST(14);
        }
        if (!miss) {
            a = c[pri];
        } else {
            /* the other candidates, each unless equal to one before */
            unsigned alt[C_N], na = 0, ns = 0;
            uint64_t seen[C_N];
            if (ok) seen[ns++] = c[pri];
            for (unsigned k = 0; k < C_N; k++) {
                if (k == pri || !(ok >> k & 1)) continue;
                int dup = 0;
                for (unsigned q = 0; q < ns; q++) dup |= seen[q] == c[k];
                if (dup) continue;
                alt[na++] = k;
                seen[ns++] = c[k];
            }
            if (!firsts) {
                prevfirst = prevrec ? first_addr(L, prevrec) : 0;
                rfirst = R ? first_addr(L, R) : 0;
                firsts = 1;
            }
            uint64_t bases[FB_N];
            unsigned bok = 0;
            bases[FB_LAST] = me->valid ? me->last : m->last_addr;
            bok |= (unsigned)(bases[FB_LAST] != 0) << FB_LAST;
            bases[FB_PREV] = prevfirst;
            bok |= (unsigned)(prevfirst != 0) << FB_PREV;
            bases[FB_R] = rfirst;
            bok |= (unsigned)(rfirst != 0) << FB_R;
            for (unsigned k = 0; k < 4; k++) {
                uint8_t g = r->regs[4 + k];
                bases[FB_REG + k] = m->by_reg[g];
                bok |= (unsigned)(!special_reg(g) && m->by_reg[g] != 0) << (FB_REG + k);
            }
            /* memc: FB_N + q for the q-th other candidate, else the base */
            unsigned code = 0;
            if (enc) {
                code = UINT32_MAX;
                for (unsigned q = 0; q < na && code == UINT32_MAX; q++)
                    if (a == c[alt[q]]) code = FB_N + q;
                if (code == UINT32_MAX) {
                    unsigned best = UINT32_MAX;
                    code = 0;
                    for (unsigned k = 0; k < FB_N; k++) {
                        unsigned b = bitlen(trz_zigzag((int64_t)(a - bases[k])));
                        if ((bok >> k & 1) && b < best) {
                            best = b;
                            code = k;
                        }
                    }
                }
                put8(io, CSF_MEMC, code);
            } else {
                code = get8(io, CSF_MEMC);
            }
            if (code >= FB_N) {
                if (code - FB_N >= na) return -1;
                a = c[alt[code - FB_N]];
                me->sel = (uint8_t)alt[code - FB_N];
                ST(17);
            } else {
                if (code && !(bok >> code & 1)) return -1;
                a = code_delta(io, enc, CSF_MEMD, bok >> code & 1 ? bases[code] : 0, a);
                ST(18);
            }
        }
        if (!a) return -1; /* a used slot holds an address */
        r->mem[s] = a;
        if (RA && c[C_M]) m->shift = a - c[C_M];
        if (me->valid) {
            m->lastd = a - me->last;
            me->stride = a - me->last;
        }
        me->last = a;
        me->valid = 1;
        m->last_addr = a;
        if (!first) first = a;
    }
    /* flags of slots the record lacks */
    if (!enc && ((hdr >> H_MEM) >> (j < 5 ? j : 5) || ((xh >> X_MEM) & 7) >> (j > 5 ? j - 5 : 0))) return -1;
    if (first)
        for (unsigned k = 0; k < 4; k++) {
            uint8_t g = r->regs[4 + k];
            if (!special_reg(g)) m->by_reg[g] = first;
        }

    /* 5. other bytes (96-byte form): the record before's, or new */
    if (L->nextra) {
        int x = !!(xh & X_EXTRA);
        for (unsigned k = 0; k < L->nextra; k++) {
            if (!x) {
                if (!enc) r->extra[k] = prevrec ? prevrec[L->extra_off[k]] : 0;
            } else if (enc) {
                put8(io, CSF_EXTRA, r->extra[k]);
            } else {
                r->extra[k] = (uint8_t)get8(io, CSF_EXTRA);
            }
        }
    } else if (!enc && (xh & X_EXTRA)) {
        return -1;
    }
    if (enc) {
        if (xh) {
            put8(io, CSF_SEQ, hdr | H_ESC);
            put8(io, CSF_SEQ, xh | ipc);
        } else {
            put8(io, CSF_SEQ, hdr | ipc);
        }
    }
    pv->pe = en;
    pv->pip = r->ip;
    pv->ptaken = r->bt != 0;
    return 0;
}

/* ---- the chunk ------------------------------------------------------------------ */

/* The encoder's search for earlier occurrences: a hash of the last
 * CTX_RECS records' contents gives the position that followed them. */
typedef struct {
    uint32_t *t;
    unsigned bits;
    uint64_t fp[CTX_RECS];
    uint32_t *slot; /* each record's context's place in t */
} fmatch;

/* A record's fingerprint: its ip, the bytes after it (outcome and
 * registers) and its first source and destination slots. */
static inline uint64_t rec_fp(const cs_layout *L, const uint8_t *p)
{
    uint64_t h = trz_ld_le64(p) * 0x9E3779B97F4A7C15ull + trz_ld_le64(p + 8) * 0xC2B2AE3D27D4EB4Full +
                 trz_ld_le64(p + L->off_smem) * 0x165667B19E3779F9ull + trz_ld_le64(p + L->off_dmem) * 0xD6E8FEB86659FD93ull;
    return h ^ (h >> 29);
}

/* Two records equal (sz 64 or 96, unrolled: the encoder asks it of every
 * record in a run). */
#if defined(__GNUC__)
typedef uint64_t fv2 __attribute__((vector_size(16)));
TRZ_FORCE_INLINE fv2 ld16(const uint8_t *p)
{
    fv2 v;
    memcpy(&v, p, 16);
    return v;
}
TRZ_FORCE_INLINE int same_rec(const uint8_t *a, const uint8_t *b, size_t sz)
{
    fv2 d = (ld16(a) ^ ld16(b)) | (ld16(a + 16) ^ ld16(b + 16)) | (ld16(a + 32) ^ ld16(b + 32)) |
            (ld16(a + 48) ^ ld16(b + 48));
    if (sz > 64) d |= (ld16(a + 64) ^ ld16(b + 64)) | (ld16(a + 80) ^ ld16(b + 80));
    return (d[0] | d[1]) == 0;
}
#else
TRZ_FORCE_INLINE int same_rec(const uint8_t *a, const uint8_t *b, size_t sz)
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
#endif

/* Record i has been passed: its context's place, and the position stored
 * there before (0: none); the place then holds i + 1. */
static inline uint32_t match_insert(fmatch *mt, const cs_layout *L, const uint8_t *in, size_t i)
{
    for (int k = CTX_RECS - 1; k > 0; k--) mt->fp[k] = mt->fp[k - 1];
    mt->fp[0] = rec_fp(L, in + i * L->size);
    uint64_t key = ((mt->fp[0] * 31 + mt->fp[1]) * 31 + mt->fp[2]) * 31 + mt->fp[3];
    uint32_t slot = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - mt->bits));
    uint32_t old = mt->t[slot];
    mt->t[slot] = (uint32_t)(i + 1);
    mt->slot[i] = slot;
    return old;
}

/* Record i of a run dist back, CTX_RECS - 1 or more records into it: its
 * context is that of record i - dist, whose place it takes over (the
 * fingerprints are made again where the run ends). */
static inline void match_insert_run(fmatch *mt, size_t i, size_t dist)
{
    uint32_t slot = mt->slot[i - dist];
    mt->t[slot] = (uint32_t)(i + 1);
    mt->slot[i] = slot;
}

/* The fingerprints of the records before i again, after a run. */
static inline void match_refill(fmatch *mt, const cs_layout *L, const uint8_t *in, size_t i)
{
    for (size_t k = 0; k < CTX_RECS - 1; k++) mt->fp[k] = rec_fp(L, in + (i - 1 - k) * L->size);
}

/* Records from i on that equal those dist back, at most cap. */
TRZ_FORCE_INLINE size_t run_len(const uint8_t *in, size_t sz, size_t i, size_t n, size_t dist, size_t cap)
{
    size_t k = 0;
    while (i + k < n && k < cap && same_rec(in + (i + k) * sz, in + (i + k - dist) * sz, sz)) k++;
    return k;
}

/* What a literal after a run needs of the run's last record. */
static inline void prev_after_run(const fmodel *m, const uint8_t *p, fprev *pv)
{
    pv->pip = trz_ld_le64(p);
    pv->ptaken = p[9] != 0;
    pv->pe = pc_find(m, pv->pip);
}

/* After a chunk of n records (at recs) coded in a chain (keep), what the
 * chain's next chunk goes on from; else the model holds no chain. */
static void chain_keep(fmodel *m, int keep, const cs_layout *L, const uint8_t *recs, size_t n)
{
    m->live = keep && !m->oom;
    if (!m->live || !n) return;
    memcpy(m->last, recs + (n - 1) * L->size, L->size);
    m->has_last = 1;
    fprev pv; /* as after a run (the last record was a literal or in one) */
    prev_after_run(m, m->last, &pv);
    m->pe = pv.pe, m->pip = pv.pip, m->ptaken = pv.ptaken;
}

TRZ_FORCE_INLINE int encode_impl(const trz_enc_args *a, const cs_layout *L, fmodel **pm)
{
    size_t n = (size_t)a->nrec, sz = L->size;
    const uint8_t *in = a->in;
    int go_on = a->chain && *pm && (*pm)->live && !(*pm)->oom && (*pm)->ne <= CSF_CHAIN_MAX_PCS;
    fmodel *m = go_on ? *pm : fmodel_fit(pm, a->nrec, a->know);
    fmatch mt = { NULL, clampu(bitlen(a->nrec) - 2, 8, MT_BITS), { 0 }, NULL };
    if (m) {
        mt.t = calloc((size_t)1 << mt.bits, sizeof *mt.t);
        mt.slot = malloc(n * sizeof *mt.slot);
    }
    if (!m || !mt.t || !mt.slot) {
        free(mt.t);
        free(mt.slot);
        return TRZ_CODEC_NOMEM;
    }
    fio io;
    io.w = a->streams;
    put8(&io, CSF_SEQ, !a->chain ? CSF_VARIANT : go_on ? CSF_VARIANT_CHAINED : CSF_VARIANT_CHAIN);
    fprev pv = { -1, 0, 0 };
    const uint8_t *lastrec = NULL; /* the record before the chunk's first */
    if (go_on) {
        pv.pe = m->pe, pv.pip = m->pip, pv.ptaken = m->ptaken;
        if (m->has_last) lastrec = m->last;
    }
    size_t i = 0, dist = 0;
    uint32_t cand = 0; /* the position the last literal's context was followed by before */
    cs_rec r;
    memset(&r, 0, sizeof r);
    int rc = TRZ_CODEC_OK;
    for (;;) {
        /* the distance for the next run: the one in use, or the context's
         * when it repeats further */
        unsigned sw = 0;
        if (i < n && cand && cand < i && i - cand != dist) {
            size_t d2 = i - cand;
            size_t l1 = dist ? run_len(in, sz, i, n, dist, 64) : 0;
            size_t l2 = run_len(in, sz, i, n, d2, 64);
            int a1 = dist && trz_ld_le64(in + (i - dist) * sz) == trz_ld_le64(in + i * sz);
            int a2 = trz_ld_le64(in + (i - d2) * sz) == trz_ld_le64(in + i * sz);
            if (l2 > l1 || (l2 == l1 && l1 == 0 && a2 && !a1)) {
                sw = 1;
                dist = d2;
            }
        }
        size_t run = 0;
        if (dist)
            while (i < n && same_rec(in + i * sz, in + (i - dist) * sz, sz)) {
                if (run < CTX_RECS - 1) match_insert(&mt, L, in, i);
                else match_insert_run(&mt, i, dist);
                i++;
                run++;
            }
        if (run >= CTX_RECS - 1) match_refill(&mt, L, in, i);
        putv(&io, CSF_SEQ, (uint64_t)run << 1 | sw);
        if (sw) putv(&io, CSF_DIST, dist);
        if (i == n) break;
        if (run) prev_after_run(m, in + (i - 1) * sz, &pv);
        cs_unpack(L, in + i * sz, &r);
        int lr = code_literal(m, &io, 1, L, &r, dist ? in + (i - dist) * sz : NULL, i ? in + (i - 1) * sz : lastrec, &pv);
        if (lr) {
            rc = lr == -2 ? TRZ_CODEC_NOMEM : TRZ_CODEC_UNSUPPORTED;
            break;
        }
        cand = match_insert(&mt, L, in, i);
        i++;
    }
    free(mt.t);
    free(mt.slot);
    chain_keep(m, a->chain && rc == TRZ_CODEC_OK, L, in, n);
    for (int s = 0; s < CSF_NSTREAMS; s++)
        if (a->streams[s].oom) rc = TRZ_CODEC_NOMEM;
    return rc;
}

/* Records i.. as copies of those dist back: where the run overlaps itself,
 * the copied part repeats with period dist, so each piece may be as long
 * as all copied so far. */
static inline void copy_run(uint8_t *out, size_t sz, size_t i, size_t dist, size_t run)
{
    size_t src = i - dist, done = 0;
    while (done < run) {
        size_t k = run - done < dist + done ? run - done : dist + done;
        memcpy(out + (i + done) * sz, out + src * sz, k * sz);
        done += k;
    }
}

TRZ_FORCE_INLINE int decode_impl(const trz_dec_args *a, const cs_layout *L, fmodel **pm)
{
    size_t n = (size_t)a->nrec, sz = L->size;
    for (int k = CSF_NSTREAMS; k < TRZ_MAX_STREAMS; k++)
        if (a->stream_len[k]) return TRZ_CODEC_CORRUPT;
    if (a->stream_len[0]) return TRZ_CODEC_CORRUPT;
    fio io;
    io.w = NULL;
    for (int s = 0; s < CSF_NSTREAMS; s++) trz_rd_init(&io.r[s], a->stream[s], a->stream_len[s]);
    unsigned variant = get8(&io, CSF_SEQ);
    if (io.r[CSF_SEQ].err) return TRZ_CODEC_CORRUPT;
    if (!a->chain ? variant != CSF_VARIANT : variant != CSF_VARIANT_CHAIN && variant != CSF_VARIANT_CHAINED)
        return TRZ_CODEC_UNSUPPORTED;
    int go_on = variant == CSF_VARIANT_CHAINED;
    if (go_on && !(*pm && (*pm)->live && !(*pm)->oom && (*pm)->ne <= CSF_CHAIN_MAX_PCS))
        return TRZ_CODEC_CORRUPT; /* no chain to go on with */
    fmodel *m = go_on ? *pm : fmodel_fit(pm, a->nrec, a->know);
    if (!m) return TRZ_CODEC_NOMEM;
    m->live = 0; /* until the chunk has decoded */
    uint8_t *out = a->out;
    fprev pv = { -1, 0, 0 };
    const uint8_t *lastrec = NULL;
    if (go_on) {
        pv.pe = m->pe, pv.pip = m->pip, pv.ptaken = m->ptaken;
        if (m->has_last) lastrec = m->last;
    }
    size_t i = 0, dist = 0;
    cs_rec r;
    memset(&r, 0, sizeof r);
    int rc = TRZ_CODEC_OK;
    for (;;) {
        uint64_t v = getv(&io, CSF_SEQ);
        uint64_t run = v >> 1;
        if (v & 1) {
            uint64_t d = getv(&io, CSF_DIST);
            if (d == 0 || d > i) { rc = TRZ_CODEC_CORRUPT; break; }
            dist = (size_t)d;
        }
        if (run > n - i || (run && !dist) || io.r[CSF_SEQ].err) { rc = TRZ_CODEC_CORRUPT; break; }
        if (run) {
            copy_run(out, sz, i, dist, (size_t)run);
            i += (size_t)run;
        }
        if (i == n) break;
        if (run) prev_after_run(m, out + (i - 1) * sz, &pv);
        int lr = code_literal(m, &io, 0, L, &r, dist ? out + (i - dist) * sz : NULL, i ? out + (i - 1) * sz : lastrec, &pv);
        if (lr) {
            rc = lr == -2 ? TRZ_CODEC_NOMEM : TRZ_CODEC_CORRUPT;
            break;
        }
        cs_pack(L, &r, out + i * sz);
        i++;
    }
    if (rc == TRZ_CODEC_OK)
        for (int s = 1; s < CSF_NSTREAMS; s++)
            if (io.r[s].err || io.r[s].p != io.r[s].end) rc = TRZ_CODEC_CORRUPT;
    chain_keep(m, a->chain && rc == TRZ_CODEC_OK, L, out, n);
    return rc;
}

/* One instance per layout, where the layout is a constant. */
int csf_encode(const trz_enc_args *a, const cs_layout *L, struct csf_model **m)
{
    return L->size == 64 ? encode_impl(a, &cs_layout64, m) : encode_impl(a, &cs_layout96, m);
}

int csf_decode(const trz_dec_args *a, const cs_layout *L, struct csf_model **m)
{
    return L->size == 64 ? decode_impl(a, &cs_layout64, m) : decode_impl(a, &cs_layout96, m);
}
