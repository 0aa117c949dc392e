/* sweep.c - corruption and truncation sweeps over .trz archives, in process
 * (built with ASan and UBSan by tests/reliability.mk, run by
 * tests/reliability.sh).  Every damaged copy (one bit flipped, or the file
 * cut short) is read four ways: through the index, as a pipe, and both again
 * with salvage.  Checks: every damage is reported on one line that names the
 * chunk (or the header, index or footer); no byte that differs from the
 * original is ever handed out; salvage recovers exactly the intact chunks
 * and reports the lost ones with their record numbers.
 * With --cli=TRZ the damaged copies go through the command line instead
 * (`TRZ -d -o OUT` and `TRZ -t`, in a child with a time limit): exit status
 * 1, one line naming the place, no sanitizer report, no output file left.
 *
 * Usage: sweep [OPTIONS] ORIGINAL ARCHIVE [ORIGINAL ARCHIVE...]
 *   --flip | --cut     only one of the sweeps (default both)
 *   --bits=N           bits flipped per byte position, 1 (a different one at
 *                      each position) or 8 (each in turn); default 1
 *   --stride=S --offset=O   only positions (cut lengths) = O mod S
 *   --spread=N         about N positions spread over the archive
 *   --reads=2|4        in-process reads per copy: 4 = index, pipe, and both
 *                      with salvage; 2 = one plain and one salvage read,
 *                      alternating the ways (default 4)
 *   --cut-points       cuts only at the interesting places: 0..40, every
 *                      chunk start and middle, inside the index and footer
 *   --cli=TRZ          run the command line instead of the library */
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz_common.h"

enum { R_HEADER, R_CHUNK, R_INDEX, R_FOOTER };
static const char *kind_name[] = { "file header", "chunk", "index", "footer" };

typedef struct region {
    size_t start, end;
    int kind;
    long chunk;                  /* R_CHUNK: its number */
    uint64_t first_record, records, first_byte, raw;
    long group_end;              /* R_CHUNK: the first chunk after its knowledge group */
    int know;                    /* R_CHUNK: it has a knowledge stream */
} region;

typedef struct layout {
    region *r;
    size_t n;
    long nchunks;
    size_t member_end[64], nmembers;
    uint64_t member_raw_end[64]; /* original bytes up to the end of each member */
} layout;

typedef struct counts {
    long copies, reads, named_chunk, named_other, misnamed, undetected, wrong_data, multiline, mended;
    long salv_exact, salv_wrong, valid_cut, crash, hang;
} counts;

/* what to run */
static struct {
    int bits, reads, cut_points;
    size_t stride, offset, spread;
    const char *cli;
} opt = { 1, 4, 0, 1, 0, 0, NULL };

static int g_failures;
static char g_what[256]; /* the damaged copy being read, for messages */

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

static void fail(const char *fmt, const char *a, const char *b)
{
    if (++g_failures <= 20) {
        printf("FAIL %s: ", g_what);
        printf(fmt, a, b);
        printf("\n");
    }
}

/* Walk the archive's structures (it is intact). */
static int parse(const uint8_t *p, size_t n, layout *L)
{
    size_t pos = 0, cap = 64;
    uint64_t rec = 0, byte = 0;
    L->r = malloc(cap * sizeof *L->r);
    L->n = 0;
    L->nchunks = 0;
    L->nmembers = 0;
    int mfirst = 0, placed = 0;
    while (pos < n) {
        if (L->n + 2 > cap && !(L->r = realloc(L->r, (cap *= 2) * sizeof *L->r))) return -1;
        region *g = &L->r[L->n++];
        memset(g, 0, sizeof *g);
        g->start = pos;
        const uint8_t *q = p + pos;
        if (n - pos >= 28 && memcmp(q, "\x89TRZ", 4) == 0) {
            g->kind = R_HEADER;
            placed = q[4] == 5; /* version 5: placed chunks, a member hash after the index */
            pos += 28 + (size_t)(q[22] | q[23] << 8);
            mfirst = 1;
        } else if (n - pos >= 28 && memcmp(q, "TZCK", 4) == 0) {
            size_t t = q[7] & 4 ? 48 : 28; /* a placed chunk's table follows its place */
            size_t hl = t + 10 * (size_t)q[6] + 4, payload = 0;
            for (size_t k = 0; k < q[6]; k++) {
                payload += le32(q + t + 10 * k + 2);
                if (q[t + 10 * k] == 63) g->know = 1;
            }
            /* a group ends before a member's first chunk or a restart (FORMAT.md, "Knowledge") */
            if (mfirst || (q[7] & 2))
                for (size_t i = 0; i + 1 < L->n; i++)
                    if (L->r[i].kind == R_CHUNK && L->r[i].group_end < 0) L->r[i].group_end = L->nchunks;
            mfirst = 0;
            g->group_end = -1;
            g->kind = R_CHUNK;
            g->chunk = L->nchunks++;
            g->first_record = rec;
            g->records = le32(q + 8);
            g->first_byte = byte;
            g->raw = le32(q + 12);
            rec += g->records;
            byte += g->raw;
            pos += hl + payload;
        } else if (n - pos >= 8 && memcmp(q, "TZIX", 4) == 0) {
            g->kind = R_INDEX;
            pos += 8 + 40 * (size_t)le32(q + 4) + (placed ? 8 : 0);
            g->end = pos;
            g = &L->r[L->n++];
            g->kind = R_FOOTER;
            g->start = pos;
            pos += 24;
            if (L->nmembers < 64) {
                L->member_raw_end[L->nmembers] = byte;
                L->member_end[L->nmembers++] = pos;
            }
        } else {
            return -1;
        }
        g->end = pos;
    }
    for (size_t i = 0; i < L->n; i++)
        if (L->r[i].kind == R_CHUNK && L->r[i].group_end < 0) L->r[i].group_end = L->nchunks;
    return pos == n ? 0 : -1;
}

static const region *region_at(const layout *L, size_t pos)
{
    for (size_t i = 0; i < L->n; i++)
        if (pos >= L->r[i].start && pos < L->r[i].end) return &L->r[i];
    return NULL;
}

/* ---- one read ---- */
typedef struct res {
    int open_failed;
    int64_t rc;
    char msg[512];
    fz_out out;
    size_t nlost;
    trz_lost_range lost[8];
    uint64_t mended; /* chunks the reader mended from their parity */
} res;

static void read_copy(const uint8_t *buf, size_t n, int pipe, int salvage, res *o)
{
    free(o->out.p);
    memset(o, 0, sizeof *o);
    trz_reader *r;
    fz_in in;
    trz_io io;
    int rc;
    if (pipe) {
        fz_io_in(&io, &in, buf, n, 1000, 0);
        rc = trz_reader_open_io(&r, &io);
    } else {
        rc = trz_reader_open_mem(&r, buf, n);
    }
    if (rc && salvage && r && trz_reader_set(r, TRZ_R_SALVAGE, 1) == TRZ_OK) rc = 0;
    if (rc) {
        o->open_failed = 1;
        o->rc = rc;
    } else {
        if (salvage) trz_reader_set(r, TRZ_R_SALVAGE, 1);
        o->rc = fz_read_all(r, &o->out, 0, NULL);
        o->nlost = trz_reader_lost(r, o->lost, 8);
        o->mended = trz_reader_mended(r, NULL);
    }
    snprintf(o->msg, sizeof o->msg, "%s", r ? trz_reader_error(r) : "out of memory");
    trz_reader_close(r);
}

/* "chunk K" with K not followed by another digit */
static int names_chunk(const char *msg, long k)
{
    char pat[32];
    int len = snprintf(pat, sizeof pat, "chunk %ld", k);
    for (const char *s = strstr(msg, pat); s; s = strstr(s + 1, pat))
        if (s[len] < '0' || s[len] > '9') return 1;
    return 0;
}

static int names_region(const char *msg, const region *g)
{
    switch (g->kind) {
    case R_CHUNK: return names_chunk(msg, g->chunk);
    case R_HEADER: return strstr(msg, "header") || strstr(msg, "not a trz");
    case R_INDEX: return strstr(msg, "index") != NULL;
    default: return strstr(msg, "footer") != NULL;
    }
}

/* The damage was mended from its parity: the whole original came out,
 * nothing was lost (FORMAT.md, "Parity"). */
static int mended_whole(const res *o, const fz_out *orig)
{
    return o->mended && !o->open_failed && o->rc == 0 && !o->nlost && o->out.n == orig->n &&
           (!orig->n || memcmp(o->out.p, orig->p, orig->n) == 0);
}

/* A plain read of a damaged copy: it must fail, name the place, and hand out
 * only a prefix of the original, unless its parity mended it (the whole
 * original, exactly). */
static void check_plain(const res *o, const fz_out *orig, const region *g, int cut, counts *c)
{
    c->reads++;
    if (mended_whole(o, orig)) {
        c->mended++;
        return;
    }
    if (o->out.n > orig->n || (o->out.n && memcmp(o->out.p, orig->p, o->out.n) != 0)) {
        c->wrong_data++;
        fail("wrong bytes handed out (%s%s)", o->msg, "");
    }
    if (o->rc == 0) {
        c->undetected++;
        fail("damage not reported%s%s", "", "");
        return;
    }
    if (!o->msg[0] || strchr(o->msg, '\n')) {
        c->multiline++;
        fail("message empty or not one line: '%s'%s", o->msg, "");
    }
    if (cut && !strstr(o->msg, "truncat") && !strstr(o->msg, "ends") && !strstr(o->msg, "not a trz")) {
        c->misnamed++;
        fail("a cut not called a truncation: '%s'%s", o->msg, "");
    } else if (g && !names_region(o->msg, g)) {
        c->misnamed++;
        fail("message does not name the %s: '%s'", g->kind == R_CHUNK ? "chunk" : kind_name[g->kind], o->msg);
    } else if (g && g->kind == R_CHUNK) {
        c->named_chunk++;
    } else {
        c->named_other++;
    }
}

/* Whether the output is the original without chunks [from, to). */
static int salvage_matches(const res *o, const fz_out *orig, const layout *L, long from, long to)
{
    size_t at = 0;
    for (size_t i = 0; i < L->n; i++) {
        const region *g = &L->r[i];
        if (g->kind != R_CHUNK || (g->chunk >= from && g->chunk < to)) continue;
        if (at + g->raw > o->out.n || memcmp(o->out.p + at, orig->p + g->first_byte, g->raw) != 0) return 0;
        at += g->raw;
    }
    return at == o->out.n;
}

/* Salvage must give the original minus exactly the lost chunks, and report
 * them.  lost_from/lost_to: chunk numbers that are gone ([from, to)).  A cut
 * (open_end) loses from the first incomplete chunk on, or from where the
 * next chunk or member would start, with the count unknown. */
static void check_salvage(const res *o, const fz_out *orig, const layout *L, long lost_from, long lost_to,
                          int open_end, counts *c)
{
    c->reads++;
    if (mended_whole(o, orig)) {
        c->salv_exact++;
        return;
    }
    int ok = !o->open_failed && o->rc == 0;
    /* a damaged chunk of a member with knowledge may cost the rest of its
     * group: certainly when it states facts, else when its stream table
     * cannot be trusted to say it states none */
    const region *d = NULL;
    for (size_t i = 0; i < L->n && lost_to == lost_from + 1; i++)
        if (L->r[i].kind == R_CHUNK && L->r[i].chunk == lost_from) d = &L->r[i];
    if (d && d->group_end > lost_to) {
        long whole = d->group_end;
        if (!ok || salvage_matches(o, orig, L, lost_from, whole)) lost_to = whole;
        else if (d->know) ok = 0;
    }
    /* expected bytes: every chunk outside [lost_from, lost_to) */
    size_t at = 0;
    for (size_t i = 0; ok && i < L->n; i++) {
        const region *g = &L->r[i];
        if (g->kind != R_CHUNK || (g->chunk >= lost_from && g->chunk < lost_to)) continue;
        if (at + g->raw > o->out.n || memcmp(o->out.p + at, orig->p + g->first_byte, g->raw) != 0) ok = 0;
        at += g->raw;
    }
    if (ok && at != o->out.n) ok = 0;
    if (!ok) {
        c->salv_wrong++;
        fail("salvage output is not the original minus the lost chunks (%s)%s", o->msg, "");
        return;
    }
    if (lost_from == lost_to && !open_end) { /* nothing lost: no range, but the damage said */
        if (o->nlost || !o->msg[0]) { c->salv_wrong++; fail("salvage lost nothing but says '%s'%s", o->msg, ""); return; }
        c->salv_exact++;
        return;
    }
    const trz_lost_range *l = &o->lost[0];
    uint64_t first_rec = 0, first_byte = 0, recs = 0, raw = 0;
    for (size_t i = 0; i < L->n; i++) {
        const region *g = &L->r[i];
        if (g->kind != R_CHUNK) continue;
        if (g->chunk < lost_from) { first_rec += g->records; first_byte += g->raw; }
        else if (g->chunk < lost_to) { recs += g->records; raw += g->raw; }
    }
    /* one range, or (a group lost with its knowledge) one per chunk */
    size_t nr = lost_to > lost_from + 1 && !open_end ? (size_t)(lost_to - lost_from) : 1;
    uint64_t lrecs = 0, lraw = 0;
    for (size_t i = 0; i < o->nlost && i < nr && i < sizeof o->lost / sizeof o->lost[0]; i++) {
        lrecs += o->lost[i].records;
        lraw += o->lost[i].raw_bytes;
    }
    int exact = (o->nlost == 1 || o->nlost == nr) && l->chunk == (uint64_t)lost_from &&
                l->first_record == first_rec && l->first_byte == first_byte;
    if (exact && open_end) exact = l->records == UINT64_MAX || (l->records == recs && l->raw_bytes == raw);
    else if (exact) exact = lrecs == recs && lraw == raw;
    if (!exact) {
        c->salv_wrong++;
        char got[160];
        snprintf(got, sizeof got, "%zu ranges, first chunk %lld records %lld+%lld", o->nlost,
                 o->nlost ? (long long)l->chunk : -1, o->nlost ? (long long)l->first_record : -1,
                 o->nlost ? (long long)l->records : -1);
        fail("salvage reports %s (%s)", got, o->msg);
        return;
    }
    c->salv_exact++;
}

/* ---- through the command line ---- */
static char g_tmpdir[64];

/* Run TRZ with args, stderr into err; returns the wait status. */
static int run_cli(char *const argv[], char *err, size_t errlen)
{
    char errpath[128];
    snprintf(errpath, sizeof errpath, "%s/stderr", g_tmpdir);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int nul = open("/dev/null", O_WRONLY);
        if (fd < 0 || nul < 0) _exit(126);
        dup2(fd, 2);
        dup2(nul, 1);
        alarm(30); /* survives exec: a hang ends in SIGALRM */
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    FILE *f = fopen(errpath, "r");
    size_t k = f ? fread(err, 1, errlen - 1, f) : 0;
    err[k] = 0;
    if (f) fclose(f);
    return st;
}

/* The command line on one damaged copy: -d into a file, then -t. */
static void check_cli(const uint8_t *buf, size_t n, const region *g, int cut, counts *c)
{
    char path[128], out[128], err[2048];
    snprintf(path, sizeof path, "%s/copy.trz", g_tmpdir);
    snprintf(out, sizeof out, "%s/out", g_tmpdir);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) { fail("cannot write %s%s", path, ""); return; }
    for (int test = 0; test < 2; test++) {
        char *dargv[] = { (char *)opt.cli, "-q", "-d", "-f", "-o", out, path, NULL };
        char *targv[] = { (char *)opt.cli, "-t", path, NULL };
        unlink(out);
        int st = run_cli(test ? targv : dargv, err, sizeof err);
        c->reads++;
        size_t len = strlen(err);
        if (len && err[len - 1] == '\n') err[--len] = 0;
        if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) { c->hang++; fail("hang (%s)%s", test ? "-t" : "-d", ""); continue; }
        if (WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) >= 2) || strstr(err, "Sanitizer") ||
            strstr(err, "runtime error")) {
            c->crash++;
            fail("crash or sanitizer report: %s%s", err, "");
            continue;
        }
        if (WEXITSTATUS(st) == 0) { c->undetected++; fail("exit 0 after damage (%s)%s", test ? "-t" : "-d", ""); continue; }
        if (!test && access(out, F_OK) == 0) { c->wrong_data++; fail("output file left after a failure%s%s", "", ""); }
        if (!len || strchr(err, '\n')) { c->multiline++; fail("not one line: '%s'%s", err, ""); continue; }
        if (cut && !strstr(err, "truncat") && !strstr(err, "ends") && !strstr(err, "not a trz")) {
            c->misnamed++;
            fail("a cut not called a truncation: '%s'%s", err, "");
        } else if (g && !names_region(err, g)) {
            c->misnamed++;
            fail("does not name the %s: '%s'", g->kind == R_CHUNK ? "chunk" : kind_name[g->kind], err);
        } else if (g && g->kind == R_CHUNK) {
            c->named_chunk++;
        } else {
            c->named_other++;
        }
    }
}

/* Positions (or cut lengths) to try. */
static int selected(size_t pos, size_t n)
{
    if (opt.spread) {
        size_t step = n > opt.spread ? n / opt.spread : 1;
        return pos % step == opt.offset % step;
    }
    return pos % opt.stride == opt.offset % opt.stride;
}

/* ---- the sweeps ---- */
static void flip_sweep(const fz_out *orig, const uint8_t *arc, size_t n, const layout *L, const char *name,
                       counts *c)
{
    uint8_t *buf = malloc(n);
    res o = { 0 };
    for (size_t pos = 0; pos < n; pos++) {
        if (!selected(pos, n)) continue;
        const region *g = region_at(L, pos);
        for (int b = 0; b < opt.bits; b++) {
            int bit = opt.bits == 8 ? b : (int)((pos * 5 + (size_t)b * 3) % 8);
            memcpy(buf, arc, n);
            buf[pos] ^= (uint8_t)(1u << bit);
            snprintf(g_what, sizeof g_what, "%s: bit %d of byte %zu (%s %ld)", name, bit, pos, kind_name[g->kind],
                     g->kind == R_CHUNK ? g->chunk : 0L);
            c->copies++;
            if (opt.cli) { check_cli(buf, n, g, 0, c); continue; }
            long from = g->kind == R_CHUNK ? g->chunk : 0, to = g->kind == R_CHUNK ? g->chunk + 1 : 0;
            for (int pipe = 0; pipe < 2; pipe++) {
                int salvage_pipe = opt.reads == 4 ? pipe : (int)((pos / opt.stride + (size_t)b) % 2);
                if (opt.reads == 4 || pipe == salvage_pipe) {
                    read_copy(buf, n, pipe, 0, &o);
                    check_plain(&o, orig, g, 0, c);
                }
                if (opt.reads == 4 || pipe != salvage_pipe) {
                    read_copy(buf, n, pipe, 1, &o);
                    check_salvage(&o, orig, L, from, to, 0, c);
                }
            }
        }
    }
    free(o.out.p);
    free(buf);
}

/* The cuts worth a slow check: the first bytes, every chunk's start and
 * middle, inside each index and footer. */
static int cut_point(const layout *L, size_t cut)
{
    if (cut <= 40) return 1;
    for (size_t i = 0; i < L->n; i++) {
        const region *g = &L->r[i];
        if (cut == g->start || cut == g->start + (g->end - g->start) / 2 ||
            (g->kind != R_CHUNK && (cut == g->start + 4 || cut + 4 == g->end)))
            return 1;
    }
    return 0;
}

static void cut_sweep(const fz_out *orig, const uint8_t *arc, size_t n, const layout *L, const char *name,
                      counts *c)
{
    res o = { 0 };
    for (size_t cut = 0; cut < n; cut++) {
        if ((opt.cut_points && !cut_point(L, cut)) || !selected(cut, n)) continue;
        snprintf(g_what, sizeof g_what, "%s cut to %zu bytes", name, cut);
        size_t m = 0;
        while (m < L->nmembers && L->member_end[m] < cut) m++;
        int boundary = m < L->nmembers && L->member_end[m] == cut;
        const region *g = cut ? region_at(L, cut - 1) : NULL; /* the structure the cut falls in or ends */
        if (g && g->end == cut && g->kind == R_CHUNK) g = NULL; /* cut between structures: no chunk is damaged */
        c->copies++;
        if (opt.cli) {
            if (!boundary) check_cli(arc, cut, g && g->kind == R_CHUNK ? g : NULL, 1, c);
            continue;
        }
        /* the first chunk that does not survive whole */
        long first_lost = L->nchunks;
        for (size_t i = 0; i < L->n; i++)
            if (L->r[i].kind == R_CHUNK && L->r[i].end > cut) { first_lost = L->r[i].chunk; break; }
        for (int pipe = 0; pipe < 2; pipe++) {
            int salvage_pipe = opt.reads == 4 ? pipe : (int)((cut / opt.stride) % 2);
            if (opt.reads == 2 && pipe != salvage_pipe) goto salvage;
            read_copy(arc, cut, pipe, 0, &o);
            if (boundary) { /* a whole number of members: a valid archive */
                c->reads++;
                if (o.rc || o.out.n != L->member_raw_end[m] || memcmp(o.out.p, orig->p, o.out.n) != 0) {
                    c->wrong_data++;
                    fail("a cut at a member boundary does not read back (%s)%s", o.msg, "");
                } else {
                    c->valid_cut++;
                }
            } else {
                check_plain(&o, orig, g && g->kind == R_CHUNK ? g : NULL, 1, c);
            }
        salvage:
            if (cut < 4 || boundary || (opt.reads == 2 && pipe == salvage_pipe)) continue;
            read_copy(arc, cut, pipe, 1, &o);
            check_salvage(&o, orig, L, first_lost, L->nchunks, 1, c);
        }
    }
    free(o.out.p);
}

static int slurp(const char *path, fz_out *o)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    uint8_t buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, f)) > 0) fz_out_write(o, buf, k);
    fclose(f);
    return 0;
}

static void print_counts(const char *what, const char *name, size_t size, const counts *c)
{
    printf("%-5s %-16s %6zu bytes %6ld copies %6ld reads: chunk named %ld, header/index/footer named %ld, "
           "misnamed %ld, undetected %ld, wrong data %ld, multi-line %ld, crash %ld, hang %ld",
           what, name, size, c->copies, c->reads, c->named_chunk, c->named_other, c->misnamed, c->undetected,
           c->wrong_data, c->multiline, c->crash, c->hang);
    if (!opt.cli) printf("; salvage exact %ld, wrong %ld", c->salv_exact, c->salv_wrong);
    if (c->mended) printf("; mended from parity %ld", c->mended);
    if (c->valid_cut) printf("; member-boundary cuts read back %ld", c->valid_cut);
    printf("\n");
}

int main(int argc, char **argv)
{
    int flip = 1, cut = 1;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--flip") == 0) cut = 0;
        else if (strcmp(a, "--cut") == 0) flip = 0;
        else if (strcmp(a, "--cut-points") == 0) opt.cut_points = 1;
        else if (strncmp(a, "--bits=", 7) == 0) opt.bits = atoi(a + 7);
        else if (strncmp(a, "--reads=", 8) == 0) opt.reads = atoi(a + 8);
        else if (strncmp(a, "--stride=", 9) == 0) opt.stride = (size_t)atol(a + 9);
        else if (strncmp(a, "--offset=", 9) == 0) opt.offset = (size_t)atol(a + 9);
        else if (strncmp(a, "--spread=", 9) == 0) opt.spread = (size_t)atol(a + 9);
        else if (strncmp(a, "--cli=", 6) == 0) opt.cli = a + 6;
        else { fprintf(stderr, "sweep: unknown option %s (see the comment at the top of sweep.c)\n", a); return 2; }
    }
    if ((opt.bits != 1 && opt.bits != 8) || (opt.reads != 2 && opt.reads != 4) || opt.stride < 1 ||
        (argc - i) % 2 || argc == i) {
        fprintf(stderr, "sweep: bad arguments\n");
        return 2;
    }
    snprintf(g_tmpdir, sizeof g_tmpdir, "/tmp/trz-sweep.XXXXXX");
    if (opt.cli && !mkdtemp(g_tmpdir)) { perror("mkdtemp"); return 2; }
    setvbuf(stdout, NULL, _IOLBF, 0);
    alarm(600); /* a hang fails the run */
    counts total = { 0 };
    for (; i + 1 < argc; i += 2) {
        fz_out orig = { 0 }, arc = { 0 };
        layout L;
        const char *name = strrchr(argv[i + 1], '/') ? strrchr(argv[i + 1], '/') + 1 : argv[i + 1];
        if (slurp(argv[i], &orig) || slurp(argv[i + 1], &arc) || parse(arc.p, arc.n, &L)) {
            printf("FAIL cannot read or parse %s / %s\n", argv[i], argv[i + 1]);
            g_failures++;
            continue;
        }
        counts c = { 0 };
        if (flip) {
            flip_sweep(&orig, arc.p, arc.n, &L, name, &c);
            print_counts("flip", name, arc.n, &c);
        }
        counts d = { 0 };
        if (cut) {
            cut_sweep(&orig, arc.p, arc.n, &L, name, &d);
            print_counts("cut", name, arc.n, &d);
        }
        long *t = &total.copies, *a = &c.copies, *b = &d.copies;
        for (size_t k = 0; k < sizeof total / sizeof(long); k++) t[k] += a[k] + b[k];
        free(L.r);
        free(orig.p);
        free(arc.p);
    }
    print_counts("total", "", 0, &total);
    if (opt.cli) {
        char p[128];
        snprintf(p, sizeof p, "%s/copy.trz", g_tmpdir);
        unlink(p);
        snprintf(p, sizeof p, "%s/stderr", g_tmpdir);
        unlink(p);
        snprintf(p, sizeof p, "%s/out", g_tmpdir);
        unlink(p);
        rmdir(g_tmpdir);
    }
    printf("%ld passed, %d failed\n", total.reads - g_failures, g_failures);
    return g_failures != 0;
}
