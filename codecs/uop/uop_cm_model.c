/* uop_cm_model.c - the uop context model's set-up (uop.md, "Context
 * model"): table sizes by the chunk's lines, the tables in the blocks kept
 * from chunk to chunk, every context's first state; once a chunk, never in
 * the line loop (uop_cm.c). */
#include "uop_cm_int.h"

static int bits_for(uint64_t n, int lo, int hi)
{
    int b = lo;
    while (b < hi && ((uint64_t)1 << b) < n) b++;
    return b;
}

/* ---- set-up ----------------------------------------------------------------- */

static void cm_free(cm_t *m)
{
    if (!m) return;
    for (int i = 0; i < B_N; i++) uop_block_free(&m->blk[i]);
    trz_big_free(m, sizeof *m);
}

void uop_cm_free(cm_t *m) { cm_free(m); }

/* The model m (NULL: a new one) ready for a chunk of nlines lines, its
 * tables in the blocks the chunk before left where they fit; NULL on no
 * memory (m freed).  kstream: the model of a knowledge stream, which codes
 * static fields only: its other tables take their least size, and its
 * hashed contexts at most a 16 MiB chunk's (so that it takes the block that
 * chunk's model gave back, and adds nothing to the peak memory). */
cm_t *uop_cm_open(cm_t *m, uint64_t nlines, const trz_know *know, int kstream, int chain)
{
    uop_block blk[B_N];
    memset(blk, 0, sizeof blk);
    if (m) memcpy(blk, m->blk, sizeof blk);
    else if (!(m = trz_big_malloc(sizeof *m))) return NULL;
    memset(m, 0, sizeof *m);
    memcpy(m->blk, blk, sizeof blk);
    m->know = know;
    uint64_t nt = kstream ? 0 : nlines;
    m->emask = (1u << bits_for(nt, 10, 16)) - 1;
    m->fmask = (1u << bits_for(nt, 10, 17)) - 1;
    m->imask = (1u << bits_for(nt / 4, 8, 14)) - 1;
    m->bmask = (1u << bits_for(nt / 2, 10, 16)) - 1;
    m->apmask = (1u << bits_for(nt / 2, 10, 18)) - 1;
    m->ap = uop_block_get(&m->blk[B_AP], ((size_t)m->apmask + 1) * sizeof(rc_prob), 0);
    m->tab = uop_block_get(&m->blk[B_TAB], ((size_t)m->emask + 1) * sizeof(cent), 1);
    /* fol and a chain's mt (1 MiB each at most) in one block: a huge page
     * holds the two, where each alone would take one (uop.md, Design notes) */
    size_t fsize = ((size_t)m->fmask + 1) * sizeof(uint64_t);
    size_t tsize = chain ? ((size_t)1 << MT_BITS) * sizeof(uint32_t) : 0;
    m->fol = uop_block_get(&m->blk[B_FOL], fsize + tsize, 1);
    m->itab = uop_block_get(&m->blk[B_ITAB], ((size_t)m->imask + 1) * sizeof(uint64_t), 1);
    m->bl = uop_block_get(&m->blk[B_BL], ((size_t)m->bmask + 1) * 3 * sizeof(rc_prob), 0);
    m->hshift = 32 - bits_for(nlines / 2, 12, kstream ? HT_BITS - 1 : HT_BITS);
    m->ht = uop_block_get(&m->blk[B_HT], ((size_t)16 << (32 - m->hshift)) * sizeof(u_cs), 0);
    m->dict[0].arena = uop_block_arena(&m->blk[B_AR0], ARENA_MAX);
    m->dict[1].arena = uop_block_arena(&m->blk[B_AR1], ARENA_MAX);
    if (chain) { /* read only where written (mh), or cleared (mt) */
        m->mh_addr = uop_block_get(&m->blk[B_MHA], ((size_t)1 << MH_BITS) * sizeof(uint64_t), 0);
        m->mh_key = uop_block_get(&m->blk[B_MHK], ((size_t)1 << MH_BITS) * sizeof(uint32_t), 0);
        m->mh_ctl = uop_block_get(&m->blk[B_MHC], (size_t)1 << MH_BITS, 0);
        m->mt = m->fol ? (uint32_t *)(void *)((uint8_t *)m->fol + fsize) : NULL;
        if (!m->mh_addr || !m->mh_key || !m->mh_ctl || !m->mt) {
            cm_free(m);
            return NULL;
        }
        rc_init(&m->maz[0][0][0], sizeof m->maz / sizeof(rc_prob));
        rc_init(&m->mhit[0][0], sizeof m->mhit / sizeof(rc_prob));
        rc_init(&m->mflow[0][0], sizeof m->mflow / sizeof(rc_prob));
        rc_init(&m->mbr[0][0], sizeof m->mbr / sizeof(rc_prob));
        for (int i = 0; i < ML_N; i++)
            for (int j = 0; j < U_MIXN; j++) m->mbw[i].w[j] = 22000;
    }
    if (!m->tab || !m->fol || !m->itab || !m->bl || !m->ht || !m->ap || !m->dict[0].arena ||
        !m->dict[1].arena) {
        cm_free(m);
        return NULL;
    }
    m->bg = m->bl + m->bmask + 1;
    m->bs = m->bg + m->bmask + 1;
    rc_init(m->bl, ((size_t)m->bmask + 1) * 3);
    rc_cnt_fill(m->ht, (size_t)16 << (32 - m->hshift));
    for (int i = 0; i < SF_N; i++)
        for (int j = 0; j < 16; j++)
            for (int k = 0; k < U_MIXN; k++) m->sw[i][j].w[k] = 20000;
    m->prev.ch[0] = m->prev.ch[1] = m->prev.ch[2] = '-';
    rc_init(&m->flow[0][0], sizeof m->flow / sizeof(rc_prob));
    rc_init(m->same, 2);
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < U_MIXN; j++) m->bw[i].w[j] = 22000;
    rc_init(&m->tk[0][0], sizeof m->tk / sizeof(rc_prob));
    rc_init(m->tk1, sizeof m->tk1 / sizeof(rc_prob));
    rc_init(m->flow1, sizeof m->flow1 / sizeof(rc_prob));
    rc_init(m->tlen, RC_ULEN);
    rc_init(m->tbits, RC_UBITS);
    rc_init(&m->xlen[0][0], sizeof m->xlen / sizeof(rc_prob));
    rc_init(&m->xbits[0][0], sizeof m->xbits / sizeof(rc_prob));
    rc_cnt_fill(&m->hit[0][0], sizeof m->hit / sizeof(u_cs));
    rc_cnt_fill(&m->snew[0][0], sizeof m->snew / sizeof(u_cs));
    rc_init(&m->sidx[0][0], sizeof m->sidx / sizeof(rc_prob));
    rc_cnt_fill(&m->slen[0][0], sizeof m->slen / sizeof(u_cs));
    rc_cnt_fill(&m->sbyte[0][0][0], sizeof m->sbyte / sizeof(u_cs));
    rc_init(&m->chr[0][0], sizeof m->chr / sizeof(rc_prob));
    rc_init(&m->ilen[0][0], sizeof m->ilen / sizeof(rc_prob));
    rc_init(m->ibits, RC_UBITS);
    rc_cnt_fill(m->ispec, 2);
    rc_cnt_fill(&m->flen[0][0], sizeof m->flen / sizeof(u_cs));
    rc_init(m->llen, RC_ULEN);
    rc_init(m->lbits, RC_UBITS);
    rc_init(m->rlen, RC_ULEN);
    rc_init(m->rbits, RC_UBITS);
    rc_init(m->az, 16);
    rc_init(&m->ahit[0][0], sizeof m->ahit / sizeof(rc_prob));
    rc_init(m->ap, (size_t)m->apmask + 1);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < U_MIXN; k++) m->aw[i][j].w[k] = 22000;
    rc_init(&m->akind[0][0], sizeof m->akind / sizeof(rc_prob));
    rc_init(&m->arec[0][0], sizeof m->arec / sizeof(rc_prob));
    rc_init(&m->alen[0][0][0], sizeof m->alen / sizeof(rc_prob));
    rc_init(&m->abits[0][0], sizeof m->abits / sizeof(rc_prob));
    rc_stretch_init(m->str);
    for (uint32_t q = 0; q < 4096; q++) m->cstr[q] = m->str[rc_p12(u_cs_p((u_cs)q << 20))];
    if (know) uk_dicts(m->dict, know);
    return m;
}
