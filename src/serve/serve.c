/* serve.c - `trz serve`: see serve.h.
 *
 * The served directory mirrors the source tree: each archived trace file
 * (NAME.trace.zip.trz, .gz, .lz4, .sz, or NAME.trace.trz) becomes a FIFO
 * NAME.trace that gives its bare records, which DynamoRIO's readers take
 * as a plain record file; every other file is a symbolic link to the
 * original, and directories are made anew.  A decoder starts only when a
 * reader has opened a FIFO (a non-blocking open for writing succeeds only
 * then), so FIFOs the tool never opens cost nothing and block nothing, and
 * there are as many decoders as files the tool holds open at once, each in
 * the memory of one `trz -dc -T1`.  Once a decoder has its reader, the
 * FIFO's name is given to a fresh FIFO: the reader keeps the one it
 * opened (its end of file stays an end of file), and opening the name
 * again starts from the first record with a decoder of its own. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../include/trz.h"
#include "../cli/msg.h"
#include "serve.h"

enum { E_DIR, E_LINK, E_FIFO };
typedef struct entry {
    char *path; /* in the served directory */
    char *src;  /* the archive a FIFO serves */
    int kind;
} entry;

typedef struct decoder {
    pid_t pid;
    size_t e; /* the entry it serves */
} decoder;

typedef struct server {
    entry *e;
    size_t n, cap;
    decoder *d;
    size_t nd, dcap;
    char root[PATH_MAX];
    unsigned failed;
    pid_t parent;
} server;

static volatile sig_atomic_t g_signal;
static void on_signal(int sig) { g_signal = sig; }

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *p = malloc(la + lb + 2);
    if (p) {
        memcpy(p, a, la);
        p[la] = '/';
        memcpy(p + la + 1, b, lb + 1);
    }
    return p;
}

static int ends(const char *s, size_t n, const char *tail)
{
    size_t t = strlen(tail);
    return n >= t && memcmp(s + n - t, tail, t) == 0;
}

/* The name a FIFO takes for an archive's name: NAME.trace for
 * NAME.trace[.zip|.gz|.lz4|.sz].trz; NULL for any other file. */
static char *served_name(const char *name)
{
    static const char *const wrap[] = { ".zip", ".gz", ".lz4", ".sz", "" };
    size_t n = strlen(name);
    if (!ends(name, n, ".trz")) return NULL;
    n -= 4;
    for (size_t i = 0; i < sizeof wrap / sizeof wrap[0]; i++) {
        size_t w = strlen(wrap[i]);
        if (!ends(name, n, wrap[i])) continue;
        if (n - w > 6 && ends(name, n - w, ".trace")) return strndup(name, n - w);
    }
    return NULL;
}

static int add(server *s, char *path, char *src, int kind)
{
    if (!path || (kind == E_FIFO && !src)) goto nomem;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        entry *e = realloc(s->e, cap * sizeof *e);
        if (!e) goto nomem;
        s->e = e, s->cap = cap;
    }
    s->e[s->n++] = (entry){ path, src, kind };
    return 0;
nomem:
    free(path);
    free(src);
    msg_error("serve: out of memory");
    return 1;
}

/* Whether NAME (at path from) has its archive NAME.trz beside it, served
 * as a pipe. */
static int has_archive(const char *from, const char *name)
{
    size_t fn = strlen(from), nn = strlen(name);
    char *tz = malloc(fn + 5), *tn = malloc(nn + 5), *served = NULL;
    struct stat st;
    int yes = 0;
    if (tz && tn) {
        memcpy(tz, from, fn), memcpy(tz + fn, ".trz", 5);
        memcpy(tn, name, nn), memcpy(tn + nn, ".trz", 5);
        yes = (served = served_name(tn)) != NULL && stat(tz, &st) == 0 && S_ISREG(st.st_mode);
    }
    free(served);
    free(tz);
    free(tn);
    return yes;
}

/* Mirror directory src (absolute) into dst, made already. */
static int mirror(server *s, const char *src, const char *dst, int depth)
{
    if (depth > 32) { msg_error("serve: %s: directories nested too deep", src); return 1; }
    DIR *dir = opendir(src);
    if (!dir) { msg_error("serve: %s: %s", src, strerror(errno)); return 1; }
    int rc = 0;
    struct dirent *de;
    while (!rc && (errno = 0, de = readdir(dir))) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
        char *from = join(src, name), *served = NULL, *to = NULL;
        struct stat st;
        if (!from) { rc = add(s, NULL, NULL, E_LINK); break; }
        if (lstat(from, &st) != 0) {
            msg_error("serve: %s: %s", from, strerror(errno));
            rc = 1;
        } else if (S_ISDIR(st.st_mode)) {
            to = join(dst, name);
            if (to && mkdir(to, 0700) != 0) {
                msg_error("serve: %s: %s", to, strerror(errno));
                free(to);
                rc = 1;
            } else if (!(rc = add(s, to, NULL, E_DIR))) {
                rc = mirror(s, from, to, depth + 1);
            }
        } else if (S_ISREG(st.st_mode) && (served = served_name(name))) {
            to = join(dst, served);
            if (to && mkfifo(to, 0600) != 0) {
                msg_error("serve: %s: %s", to, strerror(errno));
                free(to);
                rc = 1;
            } else {
                rc = add(s, to, from, E_FIFO);
                from = NULL;
            }
        } else if (S_ISREG(st.st_mode) && has_archive(from, name)) {
            /* the original of an archive beside it (trz -r keeps it): the
             * tool would read its thread twice, so only the pipe is there */
        } else {
            /* schedules, module lists, files left unarchived: as they are */
            to = join(dst, name);
            if (to && symlink(from, to) != 0) {
                msg_error("serve: %s: %s", to, strerror(errno));
                free(to);
                rc = 1;
            } else {
                rc = add(s, to, NULL, E_LINK);
            }
        }
        free(served);
        free(from);
    }
    if (!rc && errno) { msg_error("serve: %s: %s", src, strerror(errno)); rc = 1; }
    closedir(dir);
    return rc;
}

/* The decoder: the archive's records into the FIFO fd, then exit.  A
 * reader that stops early ends it quietly (the tool's own choice); a
 * damaged archive ends it with the message and status 1, which the server
 * reports, since the tool has then seen a trace cut short. */
static void decode(server *s, const char *archive, int fd)
{
    signal(SIGPIPE, SIG_IGN);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    /* no decoder outlives a server that was killed */
    if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != s->parent) _exit(1);
    trz_reader *r;
    if (trz_reader_open_path(&r, archive) != TRZ_OK) {
        msg_error("serve: %s: %s", archive, trz_reader_error(r));
        _exit(1);
    }
    trz_reader_set(r, TRZ_R_OVERLAP, 1);
    for (;;) {
        const void *v;
        int64_t g = trz_read_view(r, &v, SIZE_MAX);
        if (g < 0) { msg_error("serve: %s: %s", archive, trz_reader_error(r)); _exit(1); }
        if (g == 0) break;
        for (const char *p = v; g > 0;) {
            ssize_t k = write(fd, p, (size_t)g);
            if (k < 0 && errno == EINTR) continue;
            if (k < 0 && errno == EPIPE) _exit(0);
            if (k < 0) { msg_error("serve: %s: write error: %s", archive, strerror(errno)); _exit(1); }
            p += k, g -= k;
        }
    }
    _exit(0);
}

/* A reader at FIFO e: start its decoder, and give the name a fresh FIFO.
 * 1 = started, 0 = no reader yet, -1 = error. */
static int try_serve(server *s, size_t i)
{
    entry *e = &s->e[i];
    int fd = open(e->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return errno == ENXIO || errno == EINTR ? 0 : (msg_error("serve: %s: %s", e->path, strerror(errno)), -1);
    if (s->nd == s->dcap) {
        size_t cap = s->dcap ? 2 * s->dcap : 16;
        decoder *d = realloc(s->d, cap * sizeof *d);
        if (!d) { close(fd); msg_error("serve: out of memory"); return -1; }
        s->d = d, s->dcap = cap;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        msg_error("serve: %s: %s", e->path, strerror(errno));
        close(fd);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) { msg_error("serve: fork: %s", strerror(errno)); close(fd); return -1; }
    if (pid == 0) decode(s, e->src, fd);
    close(fd); /* the decoder's alone: its reader sees the end when it ends */
    s->d[s->nd++] = (decoder){ pid, i };
    /* a fresh FIFO under the name, put in place in one step */
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s/.trz-serve-fifo", s->root);
    if (mkfifo(tmp, 0600) != 0 || rename(tmp, e->path) != 0) {
        msg_error("serve: %s: %s", e->path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 1;
}

static void remove_tree(server *s)
{
    for (size_t i = s->n; i-- > 0;) {
        if (s->e[i].kind == E_DIR) rmdir(s->e[i].path);
        else unlink(s->e[i].path);
        free(s->e[i].path);
        free(s->e[i].src);
    }
    free(s->e);
    free(s->d);
    if (s->root[0]) rmdir(s->root);
}

/* arg with each {} in it replaced by dir (a new string) */
static char *with_dir(const char *arg, const char *dir)
{
    size_t n = 0, ld = strlen(dir);
    for (const char *p = arg; (p = strstr(p, "{}")); p += 2) n++;
    char *out = malloc(strlen(arg) + n * ld + 1), *o = out;
    if (!out) return NULL;
    for (const char *p = arg, *q; *p; p = q + 2) {
        if (!(q = strstr(p, "{}"))) { strcpy(o, p); return out; }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, dir, ld);
        o += ld;
    }
    *o = 0;
    return out;
}

static int status_of(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1; }

int serve_run(const char *src, const char *tmpdir, char **tool_argv, int quiet)
{
    server s = { 0 };
    s.parent = getpid();
    char abs[PATH_MAX];
    struct stat st;
    if (!realpath(src, abs) || stat(abs, &st) != 0) { msg_error("serve: %s: %s", src, strerror(errno)); return 1; }
    if (!S_ISDIR(st.st_mode)) { msg_error("serve: %s: not a directory", src); return 1; }
    if (snprintf(s.root, sizeof s.root, "%s/trz-serve.XXXXXX", tmpdir) >= (int)sizeof s.root || !mkdtemp(s.root)) {
        msg_error("serve: %s: %s", tmpdir, strerror(errno));
        return 1;
    }
    /* signals end the tool (it is told too) and then the server, which
     * cleans up; installed before the first FIFO exists */
    struct sigaction sa = { 0 };
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    int rc = mirror(&s, abs, s.root, 0), status = 1;
    size_t nfifo = 0;
    for (size_t i = 0; i < s.n; i++) nfifo += s.e[i].kind == E_FIFO;
    if (!rc && nfifo == 0) { msg_error("serve: %s: no archived trace files (NAME.trace*.trz)", src); rc = 1; }
    char **argv = NULL;
    size_t argc = 0;
    while (!rc && tool_argv[argc]) argc++;
    if (!rc && !(argv = calloc(argc + 1, sizeof *argv))) { msg_error("serve: out of memory"); rc = 1; }
    for (size_t i = 0; !rc && i < argc; i++)
        if (!(argv[i] = with_dir(tool_argv[i], s.root))) { msg_error("serve: out of memory"); rc = 1; }
    pid_t tool = -1;
    if (!rc && !g_signal) {
        tool = fork();
        if (tool < 0) { msg_error("serve: fork: %s", strerror(errno)); rc = 1; }
        if (tool == 0) {
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            signal(SIGHUP, SIG_DFL);
            signal(SIGPIPE, SIG_DFL);
            execvp(argv[0], argv);
            msg_error("serve: %s: %s", argv[0], strerror(errno));
            _exit(127);
        }
    }
    int told = 0;
    long pause_ns = 0;
    while (tool > 0) {
        int ws;
        pid_t p;
        while ((p = waitpid(-1, &ws, WNOHANG)) > 0) {
            if (p == tool) { status = status_of(ws); tool = -1; break; }
            for (size_t k = 0; k < s.nd; k++)
                if (s.d[k].pid == p) {
                    if (status_of(ws)) s.failed++;
                    s.d[k] = s.d[--s.nd];
                    break;
                }
        }
        if (tool < 0) break;
        if (g_signal && !told) { kill(tool, g_signal); told = 1; }
        int started = 0;
        for (size_t i = 0; !rc && i < s.n; i++) {
            if (s.e[i].kind != E_FIFO) continue;
            int k = try_serve(&s, i);
            if (k < 0) rc = 1;
            started |= k > 0;
        }
        if (rc && !told) { kill(tool, SIGTERM); told = 1; }
        /* a launcher opens its files one after another: look again at
         * once after a reader came, then less and less often */
        pause_ns = started ? 0 : pause_ns ? (pause_ns < 25000000 ? 2 * pause_ns : 50000000) : 500000;
        if (pause_ns) nanosleep(&(struct timespec){ 0, pause_ns }, NULL);
    }
    /* the tool has ended: so do the decoders still writing to it */
    for (size_t k = 0; k < s.nd; k++) kill(s.d[k].pid, SIGTERM);
    for (size_t k = 0; k < s.nd; k++) {
        int ws;
        while (waitpid(s.d[k].pid, &ws, 0) < 0 && errno == EINTR) {}
        if (WIFEXITED(ws) && WEXITSTATUS(ws)) s.failed++; /* failed before it was told to stop */
    }
    remove_tree(&s);
    for (size_t i = 0; argv && i < argc; i++) free(argv[i]);
    free(argv);
    if (s.failed) {
        if (!quiet) msg_error("serve: %u decoder(s) failed: the tool read a trace cut short", s.failed);
        if (status == 0) status = 1;
    }
    if (rc && status == 0) status = 1;
    return status;
}
