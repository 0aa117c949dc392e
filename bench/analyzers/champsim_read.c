/* champsim_read.c - the batch reader of trz_champsim.h at work: fill
 * ChampSim's own structs (as the simulator declares them) from a .trz,
 * 4096 at a time, count instructions, branches and memory operands from
 * the struct fields, and with -o write the structs back out as raw records
 * (which must equal `trz -dc`).
 *   champsim_read [-T threads] [-o OUT] FILE.trz                          */
#include <stdio.h>
#include <stdlib.h>

#include "trz_champsim.h"

/* ChampSim's inc/trace_instruction.h */
struct input_instr {
    unsigned long long ip;
    unsigned char is_branch;
    unsigned char branch_taken;
    unsigned char destination_registers[2];
    unsigned char source_registers[4];
    unsigned long long destination_memory[2];
    unsigned long long source_memory[4];
};
struct cloudsuite_instr {
    unsigned long long ip;
    unsigned char is_branch;
    unsigned char branch_taken;
    unsigned char destination_registers[4];
    unsigned char source_registers[4];
    unsigned long long destination_memory[4];
    unsigned long long source_memory[4];
    unsigned char asid[2];
};
_Static_assert(sizeof(struct input_instr) == 64, "input_instr is a 64-byte record");
_Static_assert(sizeof(struct cloudsuite_instr) == 96, "cloudsuite_instr is a 96-byte record");

#define BATCH 4096

typedef struct counts { unsigned long long n, branches, taken, loads, stores; } counts;

static void count64(counts *c, const struct input_instr *p)
{
    c->n++;
    c->branches += p->is_branch != 0;
    c->taken += p->branch_taken != 0;
    for (int k = 0; k < 2; k++) c->stores += p->destination_memory[k] != 0;
    for (int k = 0; k < 4; k++) c->loads += p->source_memory[k] != 0;
}

static void count96(counts *c, const struct cloudsuite_instr *p)
{
    c->n++;
    c->branches += p->is_branch != 0;
    c->taken += p->branch_taken != 0;
    for (int k = 0; k < 4; k++) c->stores += p->destination_memory[k] != 0;
    for (int k = 0; k < 4; k++) c->loads += p->source_memory[k] != 0;
}

int main(int argc, char **argv)
{
    int threads = 1, i = 1;
    const char *outp = NULL;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "-T")) threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-o")) outp = argv[i + 1];
        else break;
    }
    if (i + 1 != argc) {
        fprintf(stderr, "Usage: champsim_read [-T threads] [-o OUT] FILE.trz\n");
        return 2;
    }
    /* the archive says which struct: try the 64-byte one, then the 96-byte */
    trz_cs_reader cr;
    int cs = 0;
    if (trz_cs_open(&cr, argv[i], 64, threads)) {
        char first[256];
        snprintf(first, sizeof first, "%s", cr.err);
        if (trz_cs_open(&cr, argv[i], 96, threads)) { fprintf(stderr, "champsim_read: %s\n", first); return 1; }
        cs = 1;
    }
    FILE *out = NULL;
    if (outp && !(out = fopen(outp, "wb"))) { perror(outp); trz_cs_close(&cr); return 1; }
    static struct input_instr a[BATCH];
    static struct cloudsuite_instr b[BATCH];
    counts c = { 0 };
    long n;
    while ((n = trz_cs_read(&cr, cs ? (void *)b : (void *)a, BATCH)) > 0) {
        for (long k = 0; k < n; k++) {
            if (cs) count96(&c, &b[k]);
            else count64(&c, &a[k]);
        }
        if (out && fwrite(cs ? (void *)b : (void *)a, cs ? sizeof b[0] : sizeof a[0], (size_t)n, out) != (size_t)n) {
            perror(outp);
            n = -2;
            break;
        }
    }
    if (n == -1) fprintf(stderr, "champsim_read: %s\n", cr.err);
    trz_cs_close(&cr);
    if (out && fclose(out) != 0 && n == 0) { perror(outp); n = -2; }
    if (n < 0) return 1;
    printf("champsim_read: %llu %s structs, %llu with is_branch, %llu taken, %llu loads, %llu stores\n", c.n,
           cs ? "cloudsuite_instr" : "input_instr", c.branches, c.taken, c.loads, c.stores);
    return 0;
}
