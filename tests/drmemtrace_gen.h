/* drmemtrace_gen.h - deterministic synthetic drmemtrace record streams (12-
 * byte records, as raw2trace and record_filter write them) for the tests
 * and the samples: a made-up x86-64 program of functions with strided
 * loops, loads and stores, calls and returns, run by one thread or by
 * several interleaved on one core.  Profiles:
 *   DRG_THREAD   version 7 thread file: encodings, taken/untaken jumps,
 *                BRANCH_TARGET before indirect branches, timestamps
 *   DRG_V4       version 4: CONDITIONAL_JUMP, no branch-target markers
 *   DRG_CORE     core-sharded: 6 threads switching, headers copied in,
 *                bare THREAD/PID pairs, long runs of CORE_IDLE
 *   DRG_BIG      a code footprint of 6,000 functions (many new PCs)
 *   DRG_NOENC    no ENCODING records (the ENCODINGS bit clear)
 * Nothing in it comes from a real trace. */
#ifndef TRZ_TESTS_DRMEMTRACE_GEN_H
#define TRZ_TESTS_DRMEMTRACE_GEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { DRG_THREAD, DRG_V4, DRG_CORE, DRG_BIG, DRG_NOENC, DRG_NPROFILE };

typedef struct {
    uint8_t *p;
    size_t n, cap; /* bytes */
    uint64_t s;    /* generator state */
} drg;

typedef struct {
    uint64_t pc;
    uint8_t len, kind, nmem, mtype, msize, seen;
    uint8_t enc[15];
    int32_t callee; /* for calls */
} drg_ins;

enum { DK_PLAIN, DK_LOAD, DK_STORE, DK_LOOP, DK_CALL, DK_ICALL, DK_RET, DK_SYSCALL };

static uint64_t drg_rnd(drg *g)
{
    g->s ^= g->s << 13;
    g->s ^= g->s >> 7;
    g->s ^= g->s << 17;
    return g->s;
}

static void drg_rec(drg *g, unsigned t, unsigned sz, uint64_t a)
{
    if (g->n + 12 > g->cap) {
        g->cap = g->cap ? 2 * g->cap : 1 << 16;
        g->p = realloc(g->p, g->cap);
    }
    uint8_t *q = g->p + g->n;
    q[0] = (uint8_t)t, q[1] = (uint8_t)(t >> 8), q[2] = (uint8_t)sz, q[3] = (uint8_t)(sz >> 8);
    for (int i = 0; i < 8; i++) q[4 + i] = (uint8_t)(a >> 8 * i);
    g->n += 12;
}

static void drg_header(drg *g, unsigned ver, unsigned ftype, uint64_t tid, uint64_t pid, uint64_t ts)
{
    drg_rec(g, 25, 0, ver);
    drg_rec(g, 28, 12, ver);
    drg_rec(g, 28, 9, ftype);
    drg_rec(g, 22, 4, tid);
    drg_rec(g, 24, 4, pid);
    drg_rec(g, 28, 10, 64);
    drg_rec(g, 28, 20, 10000000);
    drg_rec(g, 28, 18, 4096);
    drg_rec(g, 28, 2, ts);
    drg_rec(g, 28, 3, 7);
}

/* The program: nf functions of 6..30 instructions each, the last a
 * return, one a loop's backward branch, some loads, stores and calls
 * (from the first half of the functions to the second, the leaves). */
static drg_ins *drg_program(drg *g, unsigned nf, unsigned **fstart)
{
    unsigned cap = nf * 32, n = 0;
    drg_ins *p = calloc(cap, sizeof *p);
    *fstart = calloc(nf + 1, sizeof **fstart);
    uint64_t pc = 0x401000;
    for (unsigned f = 0; f < nf; f++) {
        (*fstart)[f] = n;
        unsigned len = 6 + (unsigned)(drg_rnd(g) % 24);
        for (unsigned k = 0; k < len; k++) {
            drg_ins *in = &p[n++];
            in->pc = pc;
            unsigned r = (unsigned)(drg_rnd(g) % 16);
            in->kind = k == len - 1 ? DK_RET : k == len - 2 ? DK_LOOP : r < 4 ? DK_LOAD : r < 6 ? DK_STORE
                     : r == 6 && f < nf / 2 ? DK_CALL : r == 7 && f < nf / 2 ? DK_ICALL : r == 8 && f % 7 == 3 ? DK_SYSCALL : DK_PLAIN;
            in->len = (uint8_t)(in->kind == DK_RET ? 1 : in->kind == DK_LOOP ? 2 : in->kind == DK_CALL ? 5
                                : in->kind == DK_SYSCALL ? 2 : 2 + drg_rnd(g) % 8);
            static const uint8_t ops[] = { 0x48, 0x89, 0x8b, 0x83, 0x0f, 0x31, 0x39, 0x85 };
            for (unsigned b = 0; b < in->len; b++) in->enc[b] = (uint8_t)(b ? drg_rnd(g) % (b < 3 ? 8 : 256) * (b < 3 ? 32 : 1) : ops[drg_rnd(g) % 8]);
            if (in->kind == DK_RET) in->enc[0] = 0xc3;
            if (in->kind == DK_LOOP) in->enc[0] = 0x75;
            if (in->kind == DK_SYSCALL) in->enc[0] = 0x0f, in->enc[1] = 0x05;
            if (in->kind == DK_CALL) in->enc[0] = 0xe8;
            in->nmem = in->kind == DK_LOAD || in->kind == DK_STORE ? 1 : in->kind == DK_CALL || in->kind == DK_ICALL || in->kind == DK_RET ? 1 : 0;
            in->mtype = in->kind == DK_LOAD || in->kind == DK_RET ? 0 : 1;
            in->msize = (uint8_t)(in->kind == DK_LOAD || in->kind == DK_STORE ? 1u << (drg_rnd(g) % 4) : 8);
            in->callee = (int32_t)(nf / 2 + drg_rnd(g) % (nf / 2)); /* a leaf: calls are two deep at most */
            pc += in->len;
        }
        pc += 16 - pc % 16;
    }
    (*fstart)[nf] = n;
    return p;
}

typedef struct {
    uint64_t tid, sp, heap;
    int started;
    unsigned depth;
} drg_thread;

/* Run function f of the program on thread t, emitting records, until the
 * byte budget is used. */
static void drg_call(drg *g, drg_ins *p, const unsigned *fs, unsigned nf, unsigned f, drg_thread *t, int prof,
                     size_t budget, uint64_t *icount)
{
    int v4 = prof == DRG_V4, enc = prof != DRG_NOENC;
    unsigned iters = 1 + (unsigned)(drg_rnd(g) % 6);
    t->depth++;
    for (unsigned it = 0, k = fs[f]; k < fs[f + 1] && g->n < budget; k++) {
            drg_ins *in = &p[k];
            if (enc && !in->seen)
                for (unsigned b = 0; b < in->len; b += 8) {
                    uint64_t v = 0;
                    unsigned nb = in->len - b < 8 ? in->len - b : 8;
                    for (unsigned q = 0; q < nb; q++) v |= (uint64_t)in->enc[b + q] << 8 * q;
                    drg_rec(g, 47, nb, v);
                }
            in->seen = 1;
            unsigned type = 10;
            if (in->kind == DK_LOOP) {
                int taken = it + 1 < iters;
                type = v4 ? 13 : taken ? 48 : 49;
                if (taken) { /* back to the function's start */
                    drg_rec(g, type, in->len, in->pc);
                    ++*icount;
                    it++;
                    k = fs[f] - 1;
                    continue;
                }
            }
            if (in->kind == DK_RET) {
                if (!v4) drg_rec(g, 28, 29, 0); /* the target: patched below by the caller's fall-through */
                type = 16;
            }
            if (in->kind == DK_CALL) type = 14;
            if (in->kind == DK_ICALL) {
                type = 15;
                if (!v4) drg_rec(g, 28, 29, p[fs[in->callee]].pc);
            }
            drg_rec(g, type, in->len, in->pc);
            ++*icount;
            if (in->nmem) {
                uint64_t a = in->kind == DK_LOAD ? t->heap + 64 * (k % 13) + in->msize * it
                           : in->kind == DK_STORE ? t->sp - 8 * (1 + k % 5)
                           : in->kind == DK_RET ? t->sp : t->sp - 8;
                drg_rec(g, in->mtype, in->msize, a);
            }
            if (in->kind == DK_SYSCALL) {
                drg_rec(g, 28, 2, 0x2f8ed8dc850000ull + *icount / 3);
                drg_rec(g, 28, 3, 7);
                drg_rec(g, 28, 25, 202);
            }
            if (in->kind == DK_CALL || in->kind == DK_ICALL) {
                t->sp -= 8;
                drg_call(g, p, fs, nf, (unsigned)in->callee, t, prof, budget, icount);
                t->sp += 8;
            }
        }
    t->depth--;
}

/* Fix every BRANCH_TARGET before a return to the next instruction's PC
 * (what the return reached), as raw2trace writes it. */
static void drg_fix_targets(drg *g)
{
    size_t n = g->n / 12;
    for (size_t i = 0; i + 1 < n; i++) {
        uint8_t *q = g->p + 12 * i;
        if (q[0] != 28 || q[2] != 29 || q[12] != 16) continue;
        for (size_t j = i + 2; j < n; j++) {
            uint8_t *r = g->p + 12 * j;
            unsigned t = r[0];
            if ((t >= 10 && t <= 16) || t == 48 || t == 49) { memcpy(q + 4, r + 4, 8); break; }
        }
    }
}

/* About `bytes` bytes of records of a profile (DRG_*). */
static void drg_run(drg *g, int prof, size_t bytes, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->s = seed | 1;
    unsigned nf = prof == DRG_BIG ? 6000 : 40;
    unsigned *fs;
    drg_ins *p = drg_program(g, nf, &fs);
    unsigned ver = prof == DRG_V4 ? 4 : 7;
    unsigned ftype = (prof == DRG_NOENC ? 0x40 : 0x240) | (prof == DRG_CORE ? 0x10000 : 0) | (ver > 4 ? 0xc00 : 0);
    drg_thread th[6];
    unsigned nt = prof == DRG_CORE ? 6 : 1;
    for (unsigned k = 0; k < nt; k++) th[k] = (drg_thread){ 872800 + 17 * k, 0x7ffd0000f000ull - 0x100000 * k, 0x55550000000ull + 0x10000 * k, 0, 0 };
    uint64_t ic = 0, ts = 0x2f8ed8dc800000ull;
    drg_header(g, ver, ftype, th[0].tid, th[0].tid, ts);
    th[0].started = 1;
    unsigned cur = 0;
    while (g->n < bytes) {
        if (prof == DRG_CORE && drg_rnd(g) % 3 == 0) { /* idle, then another thread */
            unsigned run = 10 + (unsigned)(drg_rnd(g) % 3000);
            for (unsigned k = 0; k < run && g->n < bytes; k++) drg_rec(g, 28, 33, 0);
            cur = (unsigned)(drg_rnd(g) % nt);
            if (!th[cur].started) {
                drg_header(g, ver, ftype, th[cur].tid, th[0].tid, ts + ic);
                th[cur].started = 1;
            } else {
                drg_rec(g, 22, 0, th[cur].tid);
                drg_rec(g, 24, 0, th[0].tid);
            }
        }
        drg_call(g, p, fs, nf, (unsigned)(drg_rnd(g) % (nf < 8 ? nf : nf / 4)), &th[cur], prof, bytes, &ic);
        if (g->n < bytes) {
            drg_rec(g, 28, 2, ts + ic / 2);
            drg_rec(g, 28, 3, 7);
        }
    }
    drg_rec(g, 23, 4, th[cur].tid);
    drg_rec(g, 26, 0, 0);
    drg_fix_targets(g);
    free(p);
    free(fs);
}

#endif
