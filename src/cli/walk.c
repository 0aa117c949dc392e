/* walk.c - -r: every file under a directory that the mode takes, in name
 * order, depth first, each through fio_process (or list_file for -l), so
 * every file keeps trz's rules (temporary files, no overwriting without
 * -f, --rm only after verification).  Symbolic links are not followed.
 * Compressing passes over archives (.trz), trz's own temporary files and
 * the files DynamoRIO's trace readers open by name rather than as traces
 * (schedules, module and function lists, encodings, anything under aux/):
 * a trace directory compressed with -r and restored with -d -r is a trace
 * directory again.  With -v it names the archives and the readers' files
 * it passes over, as gzip -r -v does.  The other modes take the .trz
 * files. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "msg.h"

static int ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && strcmp(s + n - k, suf) == 0;
}

/* Files a drmemtrace directory holds beside its traces, which its readers
 * find by these names (drmemtrace-format.md, section 11). */
static int dr_aux(const char *name)
{
    static const char *const exact[] = { "modules.log", "funclist.log", "encodings.bin", "v2p.textproto" };
    if (strncmp(name, "serial_schedule.bin", 19) == 0 || strncmp(name, "cpu_schedule.bin.zip", 20) == 0) return 1;
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strcmp(name, exact[i]) == 0) return 1;
    return 0;
}

/* trz's temporary files: ".NAME.tmpXXXXXX" (src/common/safefile.c). */
static int trz_temporary(const char *name)
{
    size_t n = strlen(name);
    return name[0] == '.' && n > 11 && strncmp(name + n - 10, ".tmp", 4) == 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int walk(const cli_opts *o, const char *dir, int in_aux)
{
    DIR *d = opendir(dir);
    if (!d) { msg_error("%s: %s", dir, strerror(errno)); return 1; }
    /* the names first, sorted: what trz writes while it walks is not met again */
    char **names = NULL;
    size_t n = 0, cap = 0;
    int status = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) { status = 1; break; }
            names = nn;
        }
        if (!(names[n] = strdup(e->d_name))) { status = 1; break; }
        n++;
    }
    closedir(d);
    if (status) msg_error("%s: out of memory", dir);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX];
        struct stat st;
        const char *nm = names[i];
        if (snprintf(path, sizeof path, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", nm) >= (int)sizeof path) {
            msg_error("%s/%s: name too long", dir, nm);
            status = 1;
            continue;
        }
        if (lstat(path, &st) != 0) { msg_error("%s: %s", path, strerror(errno)); status = 1; continue; }
        int rc = 0;
        if (S_ISDIR(st.st_mode)) {
            rc = walk(o, path, in_aux || strcmp(nm, "aux") == 0);
        } else if (!S_ISREG(st.st_mode)) {
            if (g_verbosity >= 2) msg_error("%s: not a regular file -- ignored", path);
        } else if (o->mode == MODE_COMPRESS) {
            if (trz_temporary(nm)) continue;
            if (ends_with(nm, ".trz")) { /* an archive given by name is an error (fileio.c) */
                if (g_verbosity >= 2) msg_error("%s: already has .trz suffix -- ignored", path);
                continue;
            }
            if (in_aux || dr_aux(nm)) {
                if (g_verbosity >= 2) msg_error("%s: left as it is (trace readers open it by name)", path);
                continue;
            }
            rc = fio_process(o, path);
        } else if (ends_with(nm, ".trz")) {
            rc = o->mode == MODE_LIST ? list_file(o, path) : fio_process(o, path);
        }
        if (rc > status) status = rc;
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    return status;
}

int walk_tree(const cli_opts *o, const char *dir) { return walk(o, dir, 0); }
