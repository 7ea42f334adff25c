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
    "  -x VAR[=VALUE], -genv VAR VALUE, -env VAR VALUE\n"
    "                         set VAR in every rank (every variable of shmrun's own\n"
    "                         environment is passed on already)\n"
    "  --info                 list the library's settings (SHMC_* variables): each one's\n"
    "                         default, its value in this environment, whether it can be\n"
    "                         changed while a program runs, and what it does; and start\n"
    "                         nothing (--info=markdown: docs/configuration.md's table)\n"
    "  -h, --help             this text\n"
    "  -V, --version          shmrun's version\n"
    "\n"
    "Accepted as mpiexec and mpirun take them, so that scripts written for those run:\n"
    "  --host, -host, -H LIST this machine only (localhost, 127.0.0.1 or its name,\n"
    "                         each with an optional :SLOTS); another host is refused\n"
    "  --map-by slot|core|hwthread|numa|socket|package|node[:OVERSUBSCRIBE]\n"
    "                         accepted; ranks are placed as --bind-to says\n"
    "  --oversubscribe, --allow-run-as-root, -genvall, -genvlist LIST\n"
    "                         accepted, with nothing to do: shmrun runs more ranks than\n"
    "                         cores, runs as root, and passes its environment on\n"
    "Other mpiexec options (--mca, --hostfile, -ppn, ...) are refused by name.\n"
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

/* Whether host (a --host entry, without its ":slots") names this machine. */
static int local_host(const char *host, size_t len)
{
    char me[256];
    if ((len == 9 && !strncmp(host, "localhost", 9)) ||
        (len == 9 && !strncmp(host, "127.0.0.1", 9)))
        return 1;
    if (gethostname(me, sizeof me) != 0)
        return 0;
    me[sizeof me - 1] = '\0';
    size_t n = strlen(me);
    /* this name, or its first label (a short name given for a qualified one) */
    const char *dot = strchr(me, '.');
    return (len == n && !strncmp(host, me, n)) ||
           (dot && len == (size_t)(dot - me) && !strncmp(host, me, len));
}

/* A --host list: "a,b:2,...". Returns 0, or the exit status with the message. */
static int check_hosts(const char *v, char *err, size_t errlen)
{
    if (!v || !*v)
        return fail(err, errlen, SHMRUN_EXIT_USAGE, 1, "shmrun: --host needs a list of hosts");
    while (*v) {
        size_t len = strcspn(v, ",");
        size_t name = strcspn(v, ":,");
        if (!local_host(v, name))
            return fail(err, errlen, SHMRUN_EXIT_USAGE, 0,
                        "shmrun: host '%.*s' is not this machine; shmrun starts ranks on this "
                        "machine only (for several machines use an MPI or torch's own "
                        "backends; docs/mpi.md)",
                        (int)name, v);
        v += len + (v[len] == ',');
    }
    return 0;
}

/* The --map-by values that have a meaning here: accepted, placement is --bind-to's. */
static int map_by_ok(const char *v)
{
    static const char *const ok[] = {"slot",   "core",    "hwthread", "numa",
                                     "socket", "package", "node"};
    if (!v)
        return 0;
    size_t base = strcspn(v, ":");
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
        if (strlen(ok[i]) == base && !strncasecmp(v, ok[i], base))
            return !v[base] || !strcasecmp(v + base + 1, "OVERSUBSCRIBE") ||
                   !strcasecmp(v + base + 1, "NOOVERSUBSCRIBE");
    return 0;
}

/* A variable for the ranks: name "VAR" or "VAR=value" (value NULL), or name and value. */
static int add_env(struct shmrun_opts *o, const char *name, const char *value, int pair,
                   const char *opt, char *err, size_t errlen)
{
    size_t n = name ? strcspn(name, "=") : 0;
    if (!name || n == 0 || (pair && (!value || name[n])))
        return fail(err, errlen, SHMRUN_EXIT_USAGE, 1, "shmrun: %s needs a variable name%s", opt,
                    pair ? " and a value (-genv VAR VALUE)" : " (VAR or VAR=VALUE)");
    if (o->nenv == SHMRUN_MAX_ENV)
        return fail(err, errlen, SHMRUN_EXIT_USAGE, 0,
                    "shmrun: more than %d variables set with -x/-genv; export them in the "
                    "environment instead (shmrun passes it on)",
                    SHMRUN_MAX_ENV);
    o->env_name[o->nenv] = name;
    o->env_value[o->nenv++] = value;
    return 0;
}

/* mpiexec options with nothing to do here. */
static int is_noop(const char *a)
{
    static const char *const noop[] = {
        "--oversubscribe",    "-oversubscribe", "--allow-run-as-root",
        "-allow-run-as-root", "-genvall",       "--genvall"};
    for (size_t i = 0; i < sizeof noop / sizeof *noop; i++)
        if (!strcmp(a, noop[i]))
            return 1;
    return 0;
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
        if (is_noop(a))
            continue;
        if (!strcmp(a, "-genvlist") || !strcmp(a, "--genvlist")) {
            if (++i >= argc)
                return fail(err, errlen, SHMRUN_EXIT_USAGE, 1, "shmrun: %s needs a list", a);
            continue; /* the listed variables are passed on with all the others */
        }
        if (!strcmp(a, "--host") || !strcmp(a, "-host") || !strcmp(a, "-H") ||
            !strncmp(a, "--host=", 7)) {
            v = a[1] == '-' && a[6] == '=' ? a + 7 : (i + 1 < argc ? argv[++i] : NULL);
            int rc = check_hosts(v, err, errlen);
            if (rc)
                return rc;
            continue;
        }
        if (!strncmp(a, "--map-by", 8) && (a[8] == '\0' || a[8] == '=')) {
            v = opt_value(argc, argv, &i, a, 8);
            if (!map_by_ok(v))
                return fail(err, errlen, SHMRUN_EXIT_USAGE, 1,
                            "shmrun: --map-by '%s' has no meaning here (slot, core, hwthread, "
                            "numa, socket, package or node, optionally :OVERSUBSCRIBE; ranks "
                            "are placed as --bind-to says)",
                            v ? v : "(nothing)");
            continue;
        }
        if (!strcmp(a, "-x")) {
            int rc = add_env(o, i + 1 < argc ? argv[++i] : NULL, NULL, 0, a, err, errlen);
            if (rc)
                return rc;
            continue;
        }
        if (!strcmp(a, "-genv") || !strcmp(a, "--genv") || !strcmp(a, "-env") ||
            !strcmp(a, "--env")) {
            const char *name = i + 1 < argc ? argv[++i] : NULL;
            int rc = add_env(o, name, i + 1 < argc ? argv[++i] : NULL, 1, a, err, errlen);
            if (rc)
                return rc;
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
        if (!strcmp(a, "--info") || !strcmp(a, "--info=markdown")) {
            o->info = a[6] ? SHMRUN_INFO_MARKDOWN : SHMRUN_INFO_TEXT;
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
        return fail(err, errlen, SHMRUN_EXIT_USAGE, 1, "shmrun: unknown option '%s'%s", a,
                    a[1] == '-' || strlen(a) > 2 ? " (not one of mpiexec's that shmrun takes)"
                                                 : "");
    }
    if ((o->cleanup || o->info) && i >= argc)
        return -1; /* nothing else to do: shmrun removes leftovers, or lists, and exits */
    if (o->info)
        return fail(err, errlen, SHMRUN_EXIT_USAGE, 1,
                    "shmrun: --info starts no job; give it no program");
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
