/* champsim_gen.h - synthetic ChampSim traces (64-byte input_instr or 96-byte
 * cloudsuite_instr records) from small simulated x86-64 programs driven by a
 * fixed-seed PRNG: the same bytes on every run and machine.  Used by
 * gen_samples.c (the samples in corpus/) and by the codec's tests.
 *
 * Records follow the Pin tracer's conventions (Pin register ids: SP = 6,
 * FLAGS = 25, IP = 26; a conditional branch reads IP and FLAGS and writes
 * IP; a call reads and writes SP and IP and stores the return address; a
 * return reads SP, writes SP and IP and loads the return address; memory
 * slots filled from the front).  Profiles give different behaviour:
 *   CSG_MIX      loops over strided arrays, a linked-list walk, hash-table
 *                lookups, calls with stack frames, data-dependent branches
 *   CSG_POINTER  pointer chasing through a large randomly linked list
 *   CSG_BRANCHY  branches on random data, taken half of the time
 *   CSG_TINY     a three-instruction loop with long trip counts
 *   CSG_HUGE     thousands of functions called at random: a large code
 *                footprint, most instructions seldom repeated */
#ifndef TRZ_TESTS_CHAMPSIM_GEN_H
#define TRZ_TESTS_CHAMPSIM_GEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { CSG_MIX, CSG_POINTER, CSG_BRANCHY, CSG_TINY, CSG_HUGE, CSG_NPROFILE };

/* Pin register ids */
enum { G_RDI = 3, G_RSI, G_RBP, G_RSP, G_RBX, G_RDX, G_RCX, G_RAX, G_R8, G_R9, G_R10, G_R11, G_FL = 25, G_IP = 26 };

typedef struct csg {
    uint8_t *p;       /* records written so far */
    size_t n, cap;    /* bytes */
    uint64_t nrec, max;
    int rs;           /* 64 or 96 */
    uint64_t rng, sp;
} csg;

static uint64_t csg_next(csg *g)
{
    uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint32_t csg_below(csg *g, uint32_t n) { return (uint32_t)(csg_next(g) % n); }

static void csg_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* One record; d, s: up to 4 register ids (0 ends), w, r: up to 4 addresses. */
static void csg_rec(csg *g, uint64_t ip, int ib, int bt, const uint8_t d[4], const uint8_t s[4], const uint64_t w[4],
                    const uint64_t r[4])
{
    if (g->nrec >= g->max) return;
    if (g->n + (size_t)g->rs > g->cap) {
        size_t cap = g->cap ? g->cap * 2 : 1 << 16;
        uint8_t *np = realloc(g->p, cap);
        if (!np) abort();
        g->p = np;
        g->cap = cap;
    }
    uint8_t *q = g->p + g->n;
    memset(q, 0, (size_t)g->rs);
    csg_put64(q, ip);
    q[8] = (uint8_t)ib;
    q[9] = (uint8_t)bt;
    int nd = g->rs == 64 ? 2 : 4, off_s = g->rs == 64 ? 12 : 14, off_w = g->rs == 64 ? 16 : 24, off_r = g->rs == 64 ? 32 : 56;
    for (int k = 0; k < nd; k++) q[10 + k] = d[k];
    for (int k = 0; k < 4; k++) q[off_s + k] = s[k];
    for (int k = 0; k < nd; k++) csg_put64(q + off_w + 8 * k, w[k]);
    for (int k = 0; k < 4; k++) csg_put64(q + off_r + 8 * k, r[k]);
    if (g->rs == 96) q[88] = 1; /* asid */
    g->n += (size_t)g->rs;
    g->nrec++;
}

/* Code addresses: function f's instruction k, lengths 2..7 bytes. */
static uint64_t csg_ip(int f, int k)
{
    uint64_t a = 0x401000 + (uint64_t)f * 0x200;
    for (int j = 0; j < k; j++) a += 2 + (uint64_t)((f * 131 + j * 17) % 6);
    return a;
}

/* instruction shapes */
static void csg_alu(csg *g, int f, int k, uint8_t dst, uint8_t a, uint8_t b)
{
    uint8_t d[4] = { dst, dst == G_FL ? 0 : G_FL }, s[4] = { a, b };
    uint64_t z[4] = { 0 };
    csg_rec(g, csg_ip(f, k), 0, 0, d, s, z, z);
}
static void csg_load(csg *g, int f, int k, uint8_t dst, uint8_t base, uint64_t addr)
{
    uint8_t d[4] = { dst }, s[4] = { base };
    uint64_t z[4] = { 0 }, r[4] = { addr };
    csg_rec(g, csg_ip(f, k), 0, 0, d, s, z, r);
}
static void csg_store(csg *g, int f, int k, uint8_t src, uint8_t base, uint64_t addr)
{
    uint8_t d[4] = { 0 }, s[4] = { src, base };
    uint64_t z[4] = { 0 }, w[4] = { addr };
    csg_rec(g, csg_ip(f, k), 0, 0, d, s, w, z);
}
static void csg_cmpmem(csg *g, int f, int k, uint8_t reg, uint8_t base, uint64_t addr)
{
    uint8_t d[4] = { G_FL }, s[4] = { base, reg };
    uint64_t z[4] = { 0 }, r[4] = { addr };
    csg_rec(g, csg_ip(f, k), 0, 0, d, s, z, r);
}
static void csg_jcc(csg *g, int f, int k, int taken)
{
    uint8_t d[4] = { G_IP }, s[4] = { G_IP, G_FL };
    uint64_t z[4] = { 0 };
    csg_rec(g, csg_ip(f, k), 1, taken, d, s, z, z);
}
static void csg_jmp(csg *g, int f, int k)
{
    uint8_t d[4] = { G_IP }, s[4] = { G_IP };
    uint64_t z[4] = { 0 };
    csg_rec(g, csg_ip(f, k), 1, 1, d, s, z, z);
}
static void csg_push(csg *g, int f, int k, uint8_t reg)
{
    uint8_t d[4] = { G_RSP }, s[4] = { G_RSP, reg };
    uint64_t z[4] = { 0 }, w[4] = { g->sp -= 8 };
    csg_rec(g, csg_ip(f, k), 0, 0, d, s, w, z);
}
static void csg_pop(csg *g, int f, int k, uint8_t reg)
{
    uint8_t d[4] = { reg, G_RSP }, s[4] = { G_RSP };
    uint64_t z[4] = { 0 }, r[4] = { g->sp };
    g->sp += 8;
    csg_rec(g, csg_ip(f, k), 0, 0, d, s, z, r);
}
static void csg_call(csg *g, int f, int k)
{
    uint8_t d[4] = { G_IP, G_RSP }, s[4] = { G_IP, G_RSP };
    uint64_t z[4] = { 0 }, w[4] = { g->sp -= 8 };
    csg_rec(g, csg_ip(f, k), 1, 1, d, s, w, z);
}
static void csg_ret(csg *g, int f, int k)
{
    uint8_t d[4] = { G_IP, G_RSP }, s[4] = { G_RSP };
    uint64_t z[4] = { 0 }, r[4] = { g->sp };
    g->sp += 8;
    csg_rec(g, csg_ip(f, k), 1, 1, d, s, z, r);
}

#define CSG_ARR 0x7f0000100000ull  /* arrays */
#define CSG_HEAP 0x7f0000800000ull /* list nodes, hash table */
#define CSG_GLOB 0x60a000ull       /* globals */

/* f 1: sum an array of 8-byte values with a data-dependent skip */
static void csg_scan(csg *g, int len, int pskip)
{
    csg_push(g, 1, 0, G_RBP);
    csg_alu(g, 1, 1, G_RBP, G_RSP, 0);
    csg_alu(g, 1, 2, G_RCX, G_RCX, 0);
    uint64_t base = CSG_ARR + (uint64_t)csg_below(g, 64) * 4096;
    for (int i = 0; i < len; i++) {
        csg_load(g, 1, 3, G_RAX, G_RDI, base + 8 * (uint64_t)i);
        csg_alu(g, 1, 4, G_FL, G_RAX, G_RSI);
        int skip = (int)csg_below(g, 100) < pskip;
        csg_jcc(g, 1, 5, skip);
        if (!skip) csg_alu(g, 1, 6, G_RDX, G_RDX, G_RAX);
        csg_alu(g, 1, 7, G_RCX, G_RCX, 0);
        csg_jcc(g, 1, 8, i + 1 < len);
    }
    csg_pop(g, 1, 9, G_RBP);
    csg_ret(g, 1, 10);
}

/* f 2: walk a list of nodes {next, value} */
static void csg_list(csg *g, const uint64_t *node, int nnodes, int start, int len)
{
    csg_load(g, 2, 0, G_RAX, G_RDI, CSG_GLOB + 16);
    int i = start;
    for (int j = 0; j < len; j++) {
        uint64_t p = node[i];
        csg_load(g, 2, 1, G_RDX, G_RAX, p + 8);
        csg_alu(g, 2, 2, G_RCX, G_RCX, G_RDX);
        csg_load(g, 2, 3, G_RAX, G_RAX, p);
        csg_alu(g, 2, 4, G_FL, G_RAX, G_RAX);
        i = (int)((uint64_t)(i * 7 + 3) % (uint64_t)nnodes);
        csg_jcc(g, 2, 5, j + 1 < len);
    }
    csg_ret(g, 2, 6);
}

/* f 3: hash-table lookup, a random bucket of 16 bytes */
static void csg_hash(csg *g)
{
    csg_alu(g, 3, 0, G_RAX, G_RDI, 0);
    csg_alu(g, 3, 1, G_RAX, G_RAX, G_RSI);
    uint64_t b = CSG_HEAP + 0x100000 + 16 * (uint64_t)csg_below(g, 4096);
    csg_cmpmem(g, 3, 2, G_RDI, G_RAX, b);
    int hit = (int)csg_below(g, 100) < 70;
    csg_jcc(g, 3, 3, !hit);
    if (hit) csg_load(g, 3, 4, G_RAX, G_RAX, b + 8);
    else csg_store(g, 3, 5, G_RDI, G_RAX, b);
    csg_ret(g, 3, 6);
}

/* f 10 + i (profile HUGE): straight-line code with stack and global traffic */
static void csg_func(csg *g, int f, int len)
{
    csg_push(g, f, 0, G_RBX);
    uint64_t frame = g->sp;
    for (int k = 1; k < len; k++) {
        uint32_t h = (uint32_t)(f * 2654435761u + (uint32_t)k * 40503u) >> 8;
        switch (h % 5) {
        case 0: csg_load(g, f, k, (uint8_t)(G_RDI + h % 9), G_RSP, frame - 8 * (h % 6)); break;
        case 1: csg_store(g, f, k, (uint8_t)(G_RDI + h % 9), G_RSP, frame - 8 * (h % 6)); break;
        case 2: csg_load(g, f, k, G_RAX, G_IP, CSG_GLOB + 8 * (h % 512)); break;
        default: csg_alu(g, f, k, (uint8_t)(G_RDI + h % 9), (uint8_t)(G_RDI + (h >> 4) % 9), 0); break;
        }
    }
    csg_pop(g, f, len, G_RBX);
    csg_ret(g, f, len + 1);
}

/* Write nrec records of a program of the given profile into g (rs: 64 or 96). */
static void csg_run(csg *g, int profile, int rs, uint64_t nrec, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->rs = rs;
    g->max = nrec;
    g->rng = seed;
    g->sp = 0x7ffffffde000ull;
    enum { NN = 4096, BIGN = 1 << 17 };
    int nn = profile == CSG_POINTER ? BIGN : NN;
    uint64_t *node = malloc((size_t)nn * sizeof *node);
    if (!node) abort();
    for (int i = 0; i < nn; i++) node[i] = CSG_HEAP + 32 * (uint64_t)csg_below(g, 1u << 20);
    for (uint64_t it = 0; g->nrec < g->max; it++) {
        csg_alu(g, 0, 0, G_RDI, G_RBX, 0);
        switch (profile) {
        case CSG_MIX: /* 1: call scan, 2: call list, 3: skip the hash 2 times in 3, 4: call hash */
            csg_call(g, 0, 1);
            csg_scan(g, 8 + (int)csg_below(g, 32), 30);
            csg_call(g, 0, 2);
            csg_list(g, node, nn, (int)csg_below(g, (uint32_t)nn), 4 + (int)csg_below(g, 12));
            csg_jcc(g, 0, 3, it % 3 != 0);
            if (it % 3 == 0) {
                csg_call(g, 0, 4);
                csg_hash(g);
            }
            csg_alu(g, 0, 5, G_RBX, G_RBX, 0);
            csg_jmp(g, 0, 6);
            continue;
        case CSG_POINTER:
            csg_call(g, 0, 1);
            csg_list(g, node, nn, (int)csg_below(g, (uint32_t)nn), 200);
            break;
        case CSG_BRANCHY:
            csg_call(g, 0, 1);
            csg_scan(g, 64, 50);
            break;
        case CSG_TINY:
            csg_call(g, 0, 1);
            csg_scan(g, 5000, 0);
            break;
        case CSG_HUGE: { /* an indirect call through rax */
            int f = 10 + (int)csg_below(g, 4000);
            uint8_t d[4] = { G_IP, G_RSP }, s[4] = { G_IP, G_RSP, G_RAX };
            uint64_t z[4] = { 0 }, w[4] = { g->sp -= 8 };
            csg_rec(g, csg_ip(0, 1), 1, 1, d, s, w, z);
            csg_func(g, f, 8 + f % 25);
            break;
        }
        }
        csg_alu(g, 0, 2, G_RBX, G_RBX, 0);
        csg_jmp(g, 0, 3);
    }
    free(node);
}

#endif
