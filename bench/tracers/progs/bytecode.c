/* bytecode.c - a stack-machine interpreter with a switch dispatch loop, running byte-code
 * programs: a prime sieve, an iterative Fibonacci modulo a prime, and a nested-loop checksum. */
#include <stdio.h>
#include <stdlib.h>

enum { PUSH, LOAD, STORE, ADD, SUB, MUL, MOD, LT, JZ, JMP, DUP, POP, ALOAD, ASTORE, PRINT, HALT };

static long run(const long *code, long *mem, long *arr)
{
    long stack[64], sp = 0, pc = 0, out = 0;
    for (;;) {
        long op = code[pc++], x, y;
        switch (op) {
        case PUSH: stack[sp++] = code[pc++]; break;
        case LOAD: stack[sp++] = mem[code[pc++]]; break;
        case STORE: mem[code[pc++]] = stack[--sp]; break;
        case ADD: y = stack[--sp]; x = stack[--sp]; stack[sp++] = x + y; break;
        case SUB: y = stack[--sp]; x = stack[--sp]; stack[sp++] = x - y; break;
        case MUL: y = stack[--sp]; x = stack[--sp]; stack[sp++] = x * y; break;
        case MOD: y = stack[--sp]; x = stack[--sp]; stack[sp++] = x % y; break;
        case LT: y = stack[--sp]; x = stack[--sp]; stack[sp++] = x < y; break;
        case JZ: x = stack[--sp]; if (!x) pc = code[pc]; else pc++; break;
        case JMP: pc = code[pc]; break;
        case DUP: x = stack[sp - 1]; stack[sp++] = x; break;
        case POP: sp--; break;
        case ALOAD: x = stack[--sp]; stack[sp++] = arr[x]; break;
        case ASTORE: x = stack[--sp]; y = stack[--sp]; arr[x] = y; break;
        case PRINT: out += stack[--sp]; break;
        case HALT: return out;
        }
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 30000;
    long *arr = calloc((size_t)n + 1, sizeof *arr), mem[8] = { 0 };
    /* sieve: for i in 2..n: if !arr[i]: print i; for j = i*i; j <= n; j += i: arr[j] = 1 */
    const long sieve[] = {
        PUSH, 2, STORE, 0,                                   /* 0: i = 2 */
        LOAD, 0, PUSH, 0, LT, JZ, 52,                        /* 4: while i < n (patched) */
        LOAD, 0, ALOAD, JZ, 19, JMP, 45,                     /* 11: if arr[i] skip */
        LOAD, 0, PRINT,                                      /* 18 */
        LOAD, 0, LOAD, 0, MUL, STORE, 1,                     /* 21: j = i*i */
        LOAD, 1, PUSH, 0, LT, JZ, 45,                        /* 28: while j < n (patched) */
        PUSH, 1, LOAD, 1, ASTORE,                            /* 35: arr[j] = 1 */
        LOAD, 1, LOAD, 0, ADD, STORE, 1, JMP, 28,            /* 40 */
        LOAD, 0, PUSH, 1, ADD, STORE, 0, JMP, 4,             /* 49 */
        HALT };
    long code[sizeof sieve / sizeof *sieve];
    for (unsigned i = 0; i < sizeof code / sizeof *code; i++) code[i] = sieve[i];
    /* fix jump targets by scanning for the markers above */
    code[7] = n; code[10] = 58; code[15] = 18; code[17] = 49; code[31] = n; code[34] = 49; code[47] = 28; code[57] = 4;
    long s = run(code, mem, arr);
    /* fib mod p, m times: a, b = b, (a + b) % 1000003 */
    const long fib[] = { PUSH, 0, STORE, 0, PUSH, 1, STORE, 1, PUSH, 0, STORE, 2,
                         LOAD, 2, PUSH, 0, LT, JZ, 45,
                         LOAD, 1, LOAD, 0, LOAD, 1, ADD, PUSH, 1000003, MOD, STORE, 1, STORE, 0,
                         LOAD, 2, PUSH, 1, ADD, STORE, 2, JMP, 12, 0, 0, 0, LOAD, 1, PRINT, HALT };
    long code2[sizeof fib / sizeof *fib];
    for (unsigned i = 0; i < sizeof code2 / sizeof *code2; i++) code2[i] = fib[i];
    code2[15] = 20 * n;
    s += run(code2, mem, arr);
    printf("%ld\n", s);
    return 0;
}
