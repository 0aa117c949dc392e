/* bench_run.c - what both files of `trz bench` stand on: the sides (the
 * table's rows, which bench.c builds and bench_report.c prints) and
 * running one child (a compressor, trz, gnuplot), timed and measured. */
#define _DEFAULT_SOURCE /* wait4 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../common/hash.h"

#include "bench_run.h"

side g_sides[MAX_SIDES];
int g_nsides;
char g_missing[256]; /* compressors not on PATH */
char g_skipped[256]; /* left out by --quick */
volatile pid_t g_child; /* the child being measured, 0 when none */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- commands ---------------------------------------------------------------- */

void cmd_add(cmd *c, const char *s)
{
    if (c->n < MAX_ARGS) snprintf(c->a[c->n++], sizeof c->a[0], "%s", s);
}

int on_path(const char *prog)
{
    const char *p = getenv("PATH");
    char dir[PATH_MAX];
    if (!p) p = "/usr/bin:/bin";
    while (*p) {
        size_t n = strcspn(p, ":");
        snprintf(dir, sizeof dir, "%.*s/%s", (int)n, n ? p : ".", prog);
        if (access(dir, X_OK) == 0) return 1;
        p += n + (p[n] == ':');
    }
    return 0;
}

/* ---- running one child ------------------------------------------------------ */

/* Read fd to its end, hashing: returns 0, or -1 on a read error. */
int drain_hash(int fd, child_run *cr)
{
    static char buf[1 << 20];
    XXH3_state_t *st = XXH3_createState();
    ssize_t n;
    if (st) XXH3_64bits_reset(st);
    cr->bytes = 0;
    while ((n = read(fd, buf, sizeof buf)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        if (st) trz_xxh_update(st, buf, (size_t)n);
        cr->bytes += n;
    }
    cr->hash = st ? XXH3_64bits_digest(st) : 0;
    XXH3_freeState(st);
    return n < 0 || !st ? -1 : 0;
}

static void exec_child(const cmd *c, const char *file, int out_fd, int unused_fd)
{
    char *v[MAX_ARGS + 2];
    for (int i = 0; i < c->n; i++) v[i] = (char *)c->a[i];
    v[c->n] = (char *)file;
    v[c->n + 1] = NULL;
    int nul = open("/dev/null", O_RDONLY);
    if (nul >= 0) dup2(nul, STDIN_FILENO);
    if (dup2(out_fd, STDOUT_FILENO) < 0) _exit(126);
    if (unused_fd >= 0) close(unused_fd);
    execvp(v[0], v);
    fprintf(stderr, "trz: bench: cannot run %s: %s\n", v[0], strerror(errno));
    _exit(127);
}

/* Run c with `file` appended; stdout goes to out_fd, or when out_fd < 0 into
 * a pipe that we hash.  Returns 0 when the child ran and exited with 0. */
int run_child(const cmd *c, const char *file, int out_fd, child_run *cr)
{
    int p[2] = { -1, -1 };
    memset(cr, 0, sizeof *cr);
    if (out_fd < 0 && pipe(p) != 0) return -1;
    double t0 = now();
    pid_t pid = fork();
    if (pid == 0) exec_child(c, file, out_fd >= 0 ? out_fd : p[1], p[0]);
    g_child = pid;
    if (p[1] >= 0) close(p[1]);
    if (pid < 0) { if (p[0] >= 0) close(p[0]); return -1; }
    if (p[0] >= 0) { (void)drain_hash(p[0], cr); close(p[0]); } /* a short read shows as a mismatch */
    struct rusage ru;
    int st = 0;
    while (wait4(pid, &st, 0, &ru) < 0)
        if (errno != EINTR) { g_child = 0; return -1; }
    g_child = 0;
    cr->secs = now() - t0;
    cr->rss_kb = ru.ru_maxrss;
    cr->cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    cr->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    return cr->status ? -1 : 0;
}

/* ---- the work directory ------------------------------------------------------ */

/* A path in the work directory (which mkdtemp made short enough). */
void dir_path(char *buf, size_t cap, const char *dir, const char *name)
{
    if ((size_t)snprintf(buf, cap, "%s/%s", dir, name) >= cap) buf[0] = 0;
}

void out_path(char *buf, size_t cap, const char *dir, int i)
{
    char name[32];
    snprintf(name, sizeof name, "%02d.%s", i, g_sides[i].ext);
    dir_path(buf, cap, dir, name);
}
