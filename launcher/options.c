/*
 * Parsing shmrun's options (options.h). Pure apart from looking up the program on disk:
 * writes messages into caller buffers instead of printing, so it can be tested and
 * fuzzed in-process.
 */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shmcomm.h"

#define MAX_RANKS 256

#define USAGE_LINE "usage: shmrun -n N [options] [--] program [args...]\n"

static const char usage[] = USAGE_LINE
    "\n"
    "Starts N ranks of program on this machine, connected by shmcomm.\n"
    "\n"
    "  -n, -np, --np N        number of ranks (1 to 256)\n"
    "  --bind-to core|numa|none\n"
    "                         bind each rank to a core (default), a NUMA node, or\n"
    "                         nothing; round-robin when ranks outnumber them\n"
    "  --report-bindings      print where each rank is bound\n"
    "  --tag-output           prefix every output line with [rank]\n"
    "  --timeout SEC          end the job if it runs longer than SEC seconds (exit 124),\n"
    "                         first printing what each rank is blocked on\n"
    "  --keep-going           a rank that fails does not end the job: the others see\n"
    "                         SHMC_ERR_PEER_DEAD where they depend on it, and go on\n"
    "  --cleanup              remove this user's shmcomm segments in /dev/shm that no\n"
    "                         running job uses (left by jobs run with SHMC_MEMFD=0 that\n"
    "                         died while starting), and start nothing: shmrun --cleanup\n"
    "  -h, --help             this text\n"
    "  -V, --version          shmrun's version\n"
    "\n"
    "Each rank gets SHMC_RANK, SHMC_SIZE, SHMC_ARENA, SHMC_ARENA_FD, SHMC_CPUS and\n"
    "RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, and MASTER_ADDR (127.0.0.1) and\n"
    "MASTER_PORT (a free port) unless set, for torch's env://. Rank 0 reads shmrun's stdin; the\n"
    "others read /dev/null. SIGINT, SIGTERM and SIGHUP are forwarded to the ranks.\n"
    "If a rank exits non-zero or is killed, shmrun reports it, aborts the job, ends the\n"
    "other ranks after a grace period of 1 s (unless --keep-going), and exits with that\n"
    "rank's status (its exit code, or 128 + signal number). kill -USR1 on shmrun prints what each\n"
    "rank is blocked on, and any wait-for cycle, without stopping the job.\n";

static int fail(char *err, size_t errlen, int status, int with_usage, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int fail(char *err, size_t errlen, int status, int with_usage, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < errlen && with_usage)
        snprintf(err + n, errlen - (size_t)n, "\n%s%s", USAGE_LINE,
                 "run 'shmrun --help' for the options\n");
    return status;
}

/* The value of an option given as "--opt value", "--opt=value" or "-nVALUE". */
static const char *opt_value(int argc, char **argv, int *i, const char *arg, size_t namelen)
{
    if (arg[namelen] == '=')
        return arg + namelen + 1;
    if (arg[namelen] != '\0')
        return arg + namelen; /* -n4 */
    if (*i + 1 < argc)
        return argv[++*i];
    return NULL;
}

static int parse_ranks(const char *v, int *out)
{
    char *end;
    errno = 0;
    long n = v ? strtol(v, &end, 10) : 0;
    if (!v || !*v || *end || errno || n < 1 || n > MAX_RANKS)
        return -1;
    *out = (int)n;
    return 0;
}

static int parse_seconds(const char *v, double *out)
{
    char *end;
    errno = 0;
    double s = v ? strtod(v, &end) : 0;
    if (!v || !*v || *end || errno || !isfinite(s) || s <= 0 || s > 1e7)
        return -1;
    *out = s;
    return 0;
}

/* Finds the program as execvp would. Returns 0, or an exit status with a message. */
static int resolve(const char *prog, char *path, size_t len, char *err, size_t errlen)
{
    struct stat st;
    if (!*prog)
        return fail(err, errlen, SHMRUN_EXIT_NOTFOUND, 0, "shmrun: the program name is empty");
    if (strchr(prog, '/')) {
        if (stat(prog, &st) != 0)
            return fail(err, errlen, SHMRUN_EXIT_NOTFOUND, 0, "shmrun: program '%s' not found: %s",
                        prog, strerror(errno));
        if (S_ISDIR(st.st_mode))
            return fail(err, errlen, SHMRUN_EXIT_NOEXEC, 0,
                        "shmrun: '%s' is a directory, not a program", prog);
        if (access(prog, X_OK) != 0)
            return fail(err, errlen, SHMRUN_EXIT_NOEXEC, 0,
                        "shmrun: '%s' is not executable (%s); check its permissions "
                        "(chmod +x)",
                        prog, strerror(errno));
        if ((size_t)snprintf(path, len, "%s", prog) >= len)
            return fail(err, errlen, SHMRUN_EXIT_USAGE, 0, "shmrun: program path too long");
        return 0;
    }
    const char *dirs = getenv("PATH");
    if (!dirs || !*dirs)
        dirs = "/usr/local/bin:/usr/bin:/bin";
    int seen_noexec = 0;
    while (*dirs) {
        const char *colon = strchr(dirs, ':');
        size_t dlen = colon ? (size_t)(colon - dirs) : strlen(dirs);
        int n = snprintf(path, len, "%.*s%s%s", (int)dlen, dlen ? dirs : ".",
                         dlen && dirs[dlen - 1] == '/' ? "" : "/", prog);
        if (n > 0 && (size_t)n < len && stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
            if (access(path, X_OK) == 0)
                return 0;
            seen_noexec = 1;
        }
        dirs += dlen + (colon ? 1 : 0);
    }
    if (seen_noexec)
        return fail(err, errlen, SHMRUN_EXIT_NOEXEC, 0,
                    "shmrun: '%s' was found in PATH but is not executable", prog);
    return fail(err, errlen, SHMRUN_EXIT_NOTFOUND, 0,
                "shmrun: program '%s' not found in PATH (give a path such as ./%s)", prog, prog);
}

int shmrun_parse(int argc, char **argv, struct shmrun_opts *o, char *out, size_t outlen, char *err,
                 size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->bind = SHMRUN_BIND_CORE;
    if (outlen)
        out[0] = '\0';
    if (errlen)
        err[0] = '\0';

    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0')
            break;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            snprintf(out, outlen, "%s", usage);
            return 0;
        }
        if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
            snprintf(out, outlen, "shmrun (shmcomm) %s\n", shmc_version());
            return 0;
        }
        if (!strncmp(a, "-np", 3) || !strncmp(a, "--np", 4) || !strncmp(a, "-n", 2)) {
            size_t nl = !strncmp(a, "--np", 4) ? 4 : !strncmp(a, "-np", 3) ? 3 : 2;
            if (nl == 4 && a[4] && a[4] != '=')
                return fail(err, errlen, SHMRUN_EXIT_USAGE, 1, "shmrun: unknown option '%s'", a);
            v = opt_value(argc, argv, &i, a, nl);
            if (!v)
                return fail(err, errlen, SHMRUN_EXIT_USAGE, 1,
                            "shmrun: %.*s needs a number of ranks", (int)nl, a);
            if (parse_ranks(v, &o->nranks) != 0)
                return fail(err, errlen, SHMRUN_EXIT_USAGE, 1,
                            "shmrun: the number of ranks must be a whole number from 1 to "
                            "%d, not '%s'",
                            MAX_RANKS, v);
            continue;
        }
        if (!strncmp(a, "--bind-to", 9) && (a[9] == '\0' || a[9] == '=')) {
            v = opt_value(argc, argv, &i, a, 9);
            if (v && !strcmp(v, "core"))
                o->bind = SHMRUN_BIND_CORE;
            else if (v && !strcmp(v, "numa"))
                o->bind = SHMRUN_BIND_NUMA;
            else if (v && !strcmp(v, "none"))
                o->bind = SHMRUN_BIND_NONE;
            else
                return fail(err, errlen, SHMRUN_EXIT_USAGE, 1,
                            "shmrun: --bind-to takes core, numa or none, not '%s'",
                            v ? v : "(nothing)");
            continue;
        }
        if (!strcmp(a, "--report-bindings")) {
            o->report_bindings = 1;
            continue;
        }
        if (!strcmp(a, "--tag-output")) {
            o->tag_output = 1;
            continue;
        }
        if (!strcmp(a, "--keep-going")) {
            o->keep_going = 1;
            continue;
        }
        if (!strcmp(a, "--cleanup")) {
            o->cleanup = 1;
            continue;
        }
        if (!strncmp(a, "--timeout", 9) && (a[9] == '\0' || a[9] == '=')) {
            v = opt_value(argc, argv, &i, a, 9);
            if (parse_seconds(v, &o->timeout_s) != 0)
                return fail(err, errlen, SHMRUN_EXIT_USAGE, 1,
                            "shmrun: --timeout takes a positive number of seconds (at most "
                            "10000000), not '%s'",
                            v ? v : "(nothing)");
            continue;
        }
        return fail(err, errlen, SHMRUN_EXIT_USAGE, 1, "shmrun: unknown option '%s'", a);
    }
    if (o->cleanup && i >= argc)
        return -1; /* nothing else to do: shmrun removes leftovers and exits */
    if (o->cleanup)
        return fail(err, errlen, SHMRUN_EXIT_USAGE, 1,
                    "shmrun: --cleanup starts no job; give it no program");
    if (o->nranks == 0)
        return fail(err, errlen, SHMRUN_EXIT_USAGE, 1,
                    "shmrun: say how many ranks to start, for example -n 4");
    if (i >= argc)
        return fail(err, errlen, SHMRUN_EXIT_USAGE, 1, "shmrun: no program given");
    o->argv = &argv[i];
    int rc = resolve(argv[i], o->prog, sizeof o->prog, err, errlen);
    return rc ? rc : -1;
}
