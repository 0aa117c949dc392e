/* uop_block.h - a block of a uop model's memory kept from chunk to chunk
 * (the codec's tables and the context model's), given out again when the
 * next chunk's tables fit in it. */
#ifndef TRZ_UOP_BLOCK_H
#define TRZ_UOP_BLOCK_H

#include <string.h>

#include "../../src/common/mem.h"

/* A block of a model's memory kept from chunk to chunk: p holds cap bytes. */
typedef struct uop_block {
    void *p;
    size_t cap;
    int sparse; /* from trz_big_malloc_sparse (uop_block_arena) */
} uop_block;

/* n bytes of b's block, zeroed when zero: the block the chunk before left
 * when it is large enough, else a new one (the old given back).  NULL on no
 * memory. */
static inline void uop_block_free(uop_block *b);
static inline void *uop_block_get(uop_block *b, size_t n, int zero)
{
    if (b->p && !b->sparse && b->cap >= n) return zero ? memset(b->p, 0, n) : b->p;
    uop_block_free(b);
    b->p = zero ? trz_big_calloc(n) : trz_big_malloc(n);
    b->cap = b->p ? n : 0;
    return b->p;
}

static inline void uop_block_free(uop_block *b)
{
    if (b->sparse) trz_big_release(b->p, b->cap);
    else trz_big_free(b->p, b->cap);
    b->p = NULL;
    b->cap = 0;
    b->sparse = 0;
}

/* n bytes of b's block for an arena, filled from its start (a dictionary's
 * strings): kept from chunk to chunk as uop_block_get keeps its blocks, on
 * small pages (trz_big_malloc_sparse). */
static inline void *uop_block_arena(uop_block *b, size_t n)
{
    if (b->p && b->sparse && b->cap >= n) return b->p;
    uop_block_free(b);
    b->p = trz_big_malloc_sparse(n);
    b->cap = b->p ? n : 0;
    b->sparse = b->p != NULL;
    return b->p;
}

#endif
