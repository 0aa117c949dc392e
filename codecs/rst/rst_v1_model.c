/* rst_v1_model.c - model variant 1's set-up (rst.md, "Model variant 1"):
 * the model's tables made, cleared and freed, the per-record link sized at
 * each chunk, and a chain's window of records slid on after each chunk;
 * never in the record loop (rst_v1.c).  And the tuning build's report
 * (-DRST_STATS). */
#include "rst_v1_int.h"

#ifdef RST_STATS
double rst_pc_cost[65536];
uint64_t rst_pc_pc[65536], rst_pc_n[65536];
uint32_t rst_pc_iw[65536];
unsigned rst_pc_cur;
uint32_t rst_pc_k[65536][8];
__attribute__((destructor)) static void pc_print(void)
{
    for (int k = 0; k < 30; k++) {
        int best = 0;
        for (int i = 1; i < 65536; i++) if (rst_pc_cost[i] > rst_pc_cost[best]) best = i;
        if (rst_pc_cost[best] <= 0) break;
        fprintf(stderr, "pc %10llx iw %08x n %8llu cost %9.0f B  %.2f bits each  k: %u %u %u %u %u %u %u %u\n", (unsigned long long)rst_pc_pc[best], rst_pc_iw[best],
                (unsigned long long)rst_pc_n[best], rst_pc_cost[best] / 8, rst_pc_cost[best] / rst_pc_n[best],
                rst_pc_k[best][0], rst_pc_k[best][1], rst_pc_k[best][2], rst_pc_k[best][3], rst_pc_k[best][4], rst_pc_k[best][5], rst_pc_k[best][6], rst_pc_k[best][7]);
        rst_pc_cost[best] = -1;
    }
}
double rst_stat_cost[ST_N];
uint64_t rst_stat_count[ST_N];
int rst_stat_field;
static const char *const stat_names[ST_N] = { "kind", "cpu", "pc", "iword", "bt", "flags", "ea_mem_hit",
                                              "ea_mem_delta", "ea_cti", "ea_inv", "pv_has", "pv", "other", "tlb", "match", "fast",
                                              "know_gap", "know_iw" };
__attribute__((destructor)) static void stat_print(void)
{
    double t = 0;
    for (int i = 0; i < ST_N; i++) t += rst_stat_cost[i];
    if (t == 0) return;
    for (int i = 0; i < ST_N; i++)
        fprintf(stderr, "  %-13s %10.0f B %5.1f%%  n=%llu\n", stat_names[i], rst_stat_cost[i] / 8,
                100 * rst_stat_cost[i] / t, (unsigned long long)rst_stat_count[i]);
    fprintf(stderr, "  %-13s %10.0f B\n", "total", t / 8);
}
#endif

/* ---- set-up ---------------------------------------------------------------------- */

static void model_reset(model1 *m)
{
    for (unsigned i = 0; i < MAXCPU; i++) free(m->cpu[i]);
    memset(m->cpu, 0, sizeof m->cpu);
    m->cur = m->run = m->last_kind = m->last_ort = 0;
    m->err = 0;
}

void rst_v1_probs_init(model1 *m)
{
    /* every probability array of the model, from p_special to i_tpa */
    uint8_t *a = (uint8_t *)&m->p_special, *b = (uint8_t *)(&m->i_tpa + 1);
    size_t n = (size_t)(b - a) / sizeof(rc_prob);
    rc_prob *p = (rc_prob *)a;
    for (size_t i = 0; i < n; i++) p[i] = RC_P0;
    for (int i = 0; i < 48; i++) { m->bw[i][0] = 1 << 15; m->bw[i][1] = 1 << 15; m->bw[i][2] = 1 << 14; m->bw[i][3] = 0; }
}

/* The model's fixed tables, fresh; the per-record link is sized at each
 * chunk (rst_v1_link_fit). */
static model1 *model_new(int know, rst_win *w)
{
    model1 *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    m->win = w;
    if (know) {
        m->sat = m->satv;
        for (int i = 0; i < SAT_N; i++) m->satv[i] = R_SAT0;
    }
    m->pe = trz_big_calloc(((size_t)1 << PE_BITS) * sizeof *m->pe);
    if (know) m->ick = trz_big_calloc(((size_t)1 << IC_BITS) * sizeof *m->ick);
    else m->icache = trz_big_calloc(((size_t)1 << IC_BITS) * sizeof *m->icache);
    m->jt = trz_big_calloc(((size_t)1 << JT_BITS) * sizeof *m->jt);
    m->pt = trz_big_calloc(((size_t)1 << PT_BITS) * sizeof *m->pt);
    m->tlbd = trz_big_calloc(((size_t)1 << TD_BITS) * sizeof *m->tlbd);
    m->bh1 = trz_big_malloc(((size_t)1 << BH_BITS) * sizeof *m->bh1);
    m->bh2 = trz_big_malloc(((size_t)1 << BH_BITS) * sizeof *m->bh2);
    m->mm = trz_big_calloc(((size_t)1 << MM_BITS) * sizeof *m->mm);
    m->ac = trz_big_calloc(((size_t)1 << AC_BITS) * sizeof *m->ac);
    if (!m->pe || (!m->icache && !m->ick) || !m->jt || !m->pt || !m->tlbd || !m->bh1 || !m->bh2 || !m->mm || !m->ac) { m->oom = 1; return m; }
    rc_init(m->bh1, (size_t)1 << BH_BITS);
    rc_init(m->bh2, (size_t)1 << BH_BITS);
    sparc_cls_init(m->cls);
    rc_stretch_init(m->str);
    rst_v1_probs_init(m);
    for (size_t i = 0; i < sizeof m->ftab; i++) m->ftab[i] = 0;
    m->curc = get_cpu(m, 0);
    return m;
}

static void model_free(model1 *m)
{
    if (!m) return;
    model_reset(m);
    trz_big_free(m->gm, ((size_t)1 << GM_BITS) * sizeof *m->gm);
    free(m->qbuf.p);
    trz_big_free(m->pe, ((size_t)1 << PE_BITS) * sizeof *m->pe);
    trz_big_free(m->icache, ((size_t)1 << IC_BITS) * sizeof *m->icache);
    trz_big_free(m->ick, ((size_t)1 << IC_BITS) * sizeof *m->ick);
    trz_big_free(m->jt, ((size_t)1 << JT_BITS) * sizeof *m->jt);
    trz_big_free(m->pt, ((size_t)1 << PT_BITS) * sizeof *m->pt);
    trz_big_free(m->tlbd, ((size_t)1 << TD_BITS) * sizeof *m->tlbd);
    trz_big_free(m->bh1, ((size_t)1 << BH_BITS) * sizeof *m->bh1);
    trz_big_free(m->bh2, ((size_t)1 << BH_BITS) * sizeof *m->bh2);
    trz_big_free(m->mm, ((size_t)1 << MM_BITS) * sizeof *m->mm);
    trz_big_free(m->ac, ((size_t)1 << AC_BITS) * sizeof *m->ac);
    free(m);
}

void rst_win_free(rst_win *w)
{
    trz_big_free(w->link, w->nlink * sizeof *w->link);
    trz_big_free(w->hist, (size_t)HW_RECS * RST_REC);
    w->link = w->hist = NULL;
    w->nlink = 0;
}

/* The link table for the window's records (kept) and a chunk of nrec
 * records (zero); 0, or -1 if out of memory. */
int rst_v1_link_fit(model1 *m, size_t nrec)
{
    rst_win *w = m->win;
    size_t base = m->nhist, need = base + nrec;
    if (w->link && w->nlink >= need) {
        memset(w->link + base, 0, nrec * sizeof *w->link);
        m->link = w->link, m->hist = w->hist;
        return 0;
    }
    uint8_t *old = w->link;
    size_t nold = w->nlink;
    if (!base) { /* nothing to keep: give the old table back first */
        trz_big_free(old, nold * sizeof *old);
        old = NULL;
    }
    w->link = trz_big_calloc(need * sizeof *w->link);
    if (w->link && base) memcpy(w->link, old, base * sizeof *w->link);
    trz_big_free(old, nold * sizeof *old);
    w->nlink = w->link ? need : 0;
    if (!w->link) m->nhist = 0;
    m->link = w->link, m->hist = w->hist;
    return w->link ? 0 : -1;
}

/* A position of the window or chunk (record index + 1, 0 none) after the
 * first `drop` records left the window. */
static inline uint32_t slide_pos(uint32_t v, size_t drop) { return v > drop ? (uint32_t)(v - drop) : 0; }

/* After a chained chunk of nrec records (canonical, buf): the window takes
 * the last HW_RECS records of window and chunk, and every position the
 * match model holds moves with them (rst.md, "Chains").  move 0: the
 * window's bytes are left as they are, for the decoder that reads them too
 * to move (the self-check of one thread, rst_v1_lend); only the positions
 * move.  0, or -1 if out of memory (the window then stays as it was: the
 * caller fails the chunk). */
int rst_v1_hist_slide(model1 *m, const uint8_t *buf, size_t nrec, int move)
{
    rst_win *w = m->win;
    size_t base = m->nhist, tot = base + nrec, keep = tot < HW_RECS ? tot : HW_RECS, drop = tot - keep;
    if (move) {
        if (!w->hist && !(w->hist = trz_big_malloc((size_t)HW_RECS * RST_REC))) return -1;
        if (drop < base) {
            memmove(w->hist, w->hist + drop * RST_REC, (base - drop) * RST_REC);
            memcpy(w->hist + (base - drop) * RST_REC, buf, nrec * RST_REC);
        } else {
            memcpy(w->hist, buf + (drop - base) * RST_REC, keep * RST_REC);
        }
        memmove(w->link, w->link + drop, keep * sizeof *w->link);
    }
    m->link = w->link, m->hist = w->hist;
    m->nhist = keep;
    if (!drop) return 0;
    for (size_t k = 0; k < (size_t)1 << MM_BITS; k++) m->mm[k] = slide_pos(m->mm[k], drop);
    if (m->gm) {
        for (size_t k = 0; k < (size_t)1 << GM_BITS; k++) m->gm[k] = slide_pos(m->gm[k], drop);
        m->gptr = slide_pos(m->gptr, drop);
    }
    for (unsigned k = 0; k < MAXCPU; k++) {
        cpu1 *cs = m->cpu[k];
        if (!cs) continue;
        cs->mm_ptr = slide_pos(cs->mm_ptr, drop);
        cs->last_ins = slide_pos(cs->last_ins, drop);
    }
    return 0;
}

/* The repeat model, fresh, at a chain's first chunk; 0, or -1 if out of
 * memory. */
int rst_v1_gm_make(model1 *m)
{
    if (m->gm) return 0;
    m->gm = trz_big_calloc(((size_t)1 << GM_BITS) * sizeof *m->gm);
    rc_init(m->p_gm, sizeof m->p_gm / sizeof m->p_gm[0]);
    m->gptr = m->glen = m->glast = 0;
    return m->gm ? 0 : -1;
}

struct rst_v1_model *rst_v1_new(int know, rst_win *w) { return model_new(know, w); }
void rst_v1_free(struct rst_v1_model *m) { model_free(m); }
int rst_v1_knows(const struct rst_v1_model *m) { return m->sat != NULL; }
