/* champsim_stats.c - an example ChampSim-trace analyzer on top of libtrz:
 * the branch-kind mix and the taken rate as the simulator sees them.  The
 * simulator ignores is_branch and derives the kind from the registers alone
 * (SP 6, FLAGS 25, IP 26; "other" = any other register read), and takes
 * branch_taken from the record only for conditional and "other" branches
 * (every other branch kind is taken).  Reads a .trz through the reader API
 * or raw records (file or '-' for stdin), with the same analysis on both.
 *   champsim_stats [-T threads] [-R] [-f champsim|champsim-cloudsuite] FILE.trz | RAWFILE | -   */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"
#include "trz_records.h"

enum { K_NONE, K_JUMP, K_IND, K_COND, K_CALL, K_ICALL, K_RET, K_OTHER, K_N };
static const char *const kind_names[K_N] = { "not-branch", "jump", "indirect", "conditional",
                                             "call", "indirect-call", "return", "other" };

typedef struct cs_an {
    int cs; /* 1: 96-byte cloudsuite_instr records */
    uint64_t records, count[K_N], taken[K_N];
    uint64_t flag_mismatch; /* is_branch != (kind != not-branch) */
} cs_an;

static unsigned kind_of(const uint8_t *r, int cs)
{
    int wsp = 0, wip = 0, rsp = 0, rfl = 0, rip = 0, roth = 0;
    for (int i = 0; i < (cs ? 4 : 2); i++) {
        unsigned g = trz_champsim_dst_reg(r, i);
        wsp |= g == TRZ_CHAMPSIM_REG_SP;
        wip |= g == TRZ_CHAMPSIM_REG_IP;
    }
    for (int i = 0; i < 4; i++) {
        unsigned g = trz_champsim_src_reg(r, cs, i);
        rsp |= g == TRZ_CHAMPSIM_REG_SP;
        rfl |= g == TRZ_CHAMPSIM_REG_FLAGS;
        rip |= g == TRZ_CHAMPSIM_REG_IP;
        roth |= g != 0 && g != TRZ_CHAMPSIM_REG_SP && g != TRZ_CHAMPSIM_REG_FLAGS && g != TRZ_CHAMPSIM_REG_IP;
    }
    if (!wip) return K_NONE;
    if (!rsp && !rfl && !roth) return K_JUMP;
    if (!rsp && !rip && !rfl && roth) return K_IND;
    if (!rsp && rip && !wsp && (rfl || roth)) return K_COND;
    if (rsp && rip && wsp && !rfl && !roth) return K_CALL;
    if (rsp && rip && wsp && !rfl && roth) return K_ICALL;
    if (rsp && !rip && wsp) return K_RET;
    return K_OTHER;
}

static int batch(void *ctx, const uint8_t *p, size_t n)
{
    cs_an *a = ctx;
    size_t rs = a->cs ? TRZ_CHAMPSIM_CS_RECORD : TRZ_CHAMPSIM_RECORD;
    a->records += n;
    for (size_t i = 0; i < n; i++, p += rs) {
        unsigned k = kind_of(p, a->cs);
        a->count[k]++;
        if (k == K_COND || k == K_OTHER) a->taken[k] += trz_champsim_taken(p) != 0;
        else if (k != K_NONE) a->taken[k]++;
        a->flag_mismatch += (trz_champsim_is_branch(p) != 0) != (k != K_NONE);
    }
    return 0;
}

static void report(const cs_an *a)
{
    printf("champsim_stats: %llu records, %s\n", (unsigned long long)a->records,
           a->cs ? "cloudsuite_instr (96-byte records)" : "input_instr (64-byte records)");
    printf("%-14s %12s %8s %12s %8s\n", "kind", "count", "share%", "taken", "taken%");
    uint64_t br = 0, tk = 0;
    char s[16], t[16];
    for (unsigned k = 0; k < K_N; k++) {
        printf("%-14s %12llu %8s %12llu %8s\n", kind_names[k], (unsigned long long)a->count[k],
               an_pct(s, sizeof s, a->count[k], a->records), (unsigned long long)a->taken[k],
               an_pct(t, sizeof t, a->taken[k], a->count[k]));
        if (k != K_NONE) br += a->count[k], tk += a->taken[k];
    }
    printf("%-14s %12llu %8s %12llu %8s\n", "branches", (unsigned long long)br, an_pct(s, sizeof s, br, a->records),
           (unsigned long long)tk, an_pct(t, sizeof t, tk, br));
    printf("is_branch disagreeing with the registers: %llu\n", (unsigned long long)a->flag_mismatch);
}

static void usage(void)
{
    fprintf(stderr, "Usage: champsim_stats [-T threads] [-R] [-f champsim|champsim-cloudsuite] FILE.trz | RAWFILE | -\n"
                    "  -T N   decode-ahead threads for a .trz (0 = all cores; default 1)\n"
                    "  -R     read with trz_read into a big buffer instead of trz_foreach\n"
                    "  -f     the record format of raw input (default champsim, 64-byte\n"
                    "         records; a .trz says its own format)\n");
    exit(2);
}

static int format_of(const char *name)
{
    if (!strcmp(name, "champsim")) return 0;
    if (!strcmp(name, "champsim-cloudsuite")) return 1;
    return -1;
}

int main(int argc, char **argv)
{
    an_input in = { .threads = 1 };
    int cs = -1, i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "-R")) in.use_read = 1;
        else if (!strcmp(o, "-T") && i + 1 < argc) { long v = an_parse_count(argv[++i]); if (v < 0) usage(); in.threads = (int)v; }
        else if (!strcmp(o, "-f") && i + 1 < argc) { if ((cs = format_of(argv[++i])) < 0) usage(); }
        else usage();
    }
    if (i + 1 != argc) usage();
    const char *path = argv[i];
    if (an_open(&in, "champsim_stats", path)) return 1;
    if (cs < 0 && in.via_api) {
        cs = format_of(in.format);
        if (cs < 0) {
            fprintf(stderr, "champsim_stats: %s: a %s archive, not ChampSim records\n", path, in.format);
            an_close(&in);
            return 2;
        }
    }
    static cs_an a;
    a.cs = cs > 0;
    int rc = an_run(&in, "champsim_stats", a.cs ? TRZ_CHAMPSIM_CS_RECORD : TRZ_CHAMPSIM_RECORD, batch, &a);
    an_close(&in);
    if (rc) return 1;
    report(&a);
    return 0;
}
