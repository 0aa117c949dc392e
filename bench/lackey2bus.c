/* lackey2bus.c - turn the memory trace of `valgrind --tool=lackey
 * --trace-mem=yes` into a BYU or a PEL Pentium bus trace, for testing the
 * bus codecs on programs that none of their tuning saw (bench/tooltraces.sh).
 *
 *   lackey2bus byu|pel < lackey.log > trace
 *
 * Lackey prints one access per line: "I  addr,size" (instruction fetch),
 * " L addr,size" (load), " S addr,size" (store), " M addr,size" (modify).
 * Addresses keep their low 32 bits.
 *
 * BYU: one 12-byte record per access; reqtype FETCH, MEMREAD, MEMWRITE or
 * MEMREADINV (M); size = the access size; attr and proc 0; time = the ticks
 * since the previous record under a small two-level cache model: 1 per
 * instruction, +10 on a miss in a split 16 KiB 4-way L1 (32-byte lines),
 * +50 more on a miss in a unified 256 KiB 8-way L2 (64-byte lines).  The
 * first record holds 0xFFFFFFFF, as in real BYU traces.
 *
 * PEL: one 6-byte record per 8-byte bus cycle an access touches (an access
 * across a cycle boundary gives two); byte enables mark the bytes used (0 =
 * requested); control NC_I_FETCH, NC_D_READ or D_WRITE (M gives a read,
 * then a write), as in a trace taken with the caches disabled.
 *
 *   lackey2bus merge A.byu B.byu > trace
 *
 * Merge: two BYU traces as processors 0 and 1 of one bus, as a bus monitor
 * would see them: records in order of their absolute times (the sums of
 * their deltas; A first on a tie), each time again the delta since the
 * previous record of either.  A trailing partial record is dropped. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cache {
    unsigned sets, ways, lshift;
    uint64_t *tag; /* per set, most recent first; 0 = empty */
} cache;

static int cache_init(cache *c, unsigned size, unsigned ways, unsigned line)
{
    c->ways = ways;
    c->lshift = 0;
    while ((1u << c->lshift) < line) c->lshift++;
    c->sets = size / line / ways;
    c->tag = calloc((size_t)c->sets * ways, sizeof *c->tag);
    return c->tag ? 0 : -1;
}

/* LRU lookup and fill: 1 on a hit. */
static int cache_access(cache *c, uint64_t addr)
{
    uint64_t line = (addr >> c->lshift) + 1;
    uint64_t *set = c->tag + (line % c->sets) * c->ways;
    unsigned i = 0;
    while (i < c->ways && set[i] != line) i++;
    int hit = i < c->ways;
    if (!hit) i = c->ways - 1;
    memmove(set + 1, set, i * sizeof *set);
    set[0] = line;
    return hit;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static void pel_access(uint64_t addr, unsigned size, uint8_t ctl)
{
    uint64_t b = addr, e = addr + (size ? size : 1);
    while (b < e) {
        uint64_t base = b & ~(uint64_t)7, end = e < base + 8 ? e : base + 8;
        unsigned be = 0xff;
        for (uint64_t x = b; x < end; x++) be &= ~(1u << (x - base));
        uint8_t r[6] = { (uint8_t)(base >> 24), (uint8_t)(base >> 16), (uint8_t)(base >> 8), (uint8_t)base,
                         (uint8_t)be, ctl };
        fwrite(r, 6, 1, stdout);
        b = end;
    }
}

typedef struct byu_in {
    FILE *f;
    uint8_t r[12];
    uint64_t t; /* absolute time of the record in r */
    int have;
} byu_in;

static void byu_next(byu_in *b)
{
    b->have = fread(b->r, 12, 1, b->f) == 1;
    if (b->have) {
        uint32_t d = (uint32_t)b->r[8] | (uint32_t)b->r[9] << 8 | (uint32_t)b->r[10] << 16 | (uint32_t)b->r[11] << 24;
        b->t += d == 0xffffffffu ? 0 : d; /* the first record's marker */
    }
}

static int merge(const char *a, const char *b)
{
    byu_in in[2] = { { fopen(a, "rb"), { 0 }, 0, 0 }, { fopen(b, "rb"), { 0 }, 0, 0 } };
    if (!in[0].f || !in[1].f) {
        fprintf(stderr, "lackey2bus: cannot open %s\n", in[0].f ? b : a);
        return 1;
    }
    byu_next(&in[0]);
    byu_next(&in[1]);
    uint64_t last = 0;
    int first = 1;
    while (in[0].have || in[1].have) {
        int k = !in[0].have || (in[1].have && in[1].t < in[0].t);
        uint64_t d = in[k].t - last;
        in[k].r[7] = (uint8_t)k;
        put_le32(in[k].r + 8, first ? 0xffffffffu : d > 0xfffffffeu ? 0xfffffffeu : (uint32_t)d);
        fwrite(in[k].r, 12, 1, stdout);
        last = in[k].t;
        first = 0;
        byu_next(&in[k]);
    }
    fclose(in[0].f);
    fclose(in[1].f);
    return ferror(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "merge")) return merge(argv[2], argv[3]);
    int pel = argc == 2 && !strcmp(argv[1], "pel");
    if (argc != 2 || (!pel && strcmp(argv[1], "byu"))) {
        fprintf(stderr, "usage: lackey2bus byu|pel < lackey.log > trace\n"
                        "       lackey2bus merge A.byu B.byu > trace\n");
        return 2;
    }
    cache l1i, l1d, l2;
    if (cache_init(&l1i, 16384, 4, 32) || cache_init(&l1d, 16384, 4, 32) || cache_init(&l2, 262144, 8, 64)) {
        fprintf(stderr, "lackey2bus: out of memory\n");
        return 1;
    }
    char line[256];
    uint32_t ticks = 0;
    int first = 1;
    while (fgets(line, sizeof line, stdin)) {
        char kind;
        unsigned long long addr;
        unsigned size;
        if (line[0] == '=' || sscanf(line, " %c %llx,%u", &kind, &addr, &size) != 3) continue;
        if (!strchr("ILSM", kind)) continue;
        if (pel) {
            if (kind == 'I') pel_access(addr, size, 0x90);
            else {
                if (kind != 'S') pel_access(addr, size, 0xd0);
                if (kind != 'L') pel_access(addr, size, 0xf0);
            }
            continue;
        }
        if (kind == 'I') ticks += 1;
        if (!cache_access(kind == 'I' ? &l1i : &l1d, addr)) {
            ticks += 10;
            if (!cache_access(&l2, addr)) ticks += 50;
        }
        uint8_t r[12];
        put_le32(r, (uint32_t)addr);
        r[4] = kind == 'I' ? 0x00 : kind == 'L' ? 0x01 : kind == 'S' ? 0x03 : 0x02;
        r[5] = (uint8_t)size;
        r[6] = r[7] = 0;
        put_le32(r + 8, first ? 0xffffffffu : ticks);
        fwrite(r, 12, 1, stdout);
        first = 0;
        ticks = 0;
    }
    return ferror(stdout) ? 1 : 0;
}
