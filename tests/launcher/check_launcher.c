/*
 * shmrun as a user meets it: options and their errors, exit statuses, ranks that fail in
 * every way, signals, the timeout, output tagging, the environment, and no segment left
 * in /dev/shm after any of it, including SIGKILL of shmrun itself.
 */
/* check: alone */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "shm/arena.h"

static char shmrun[512], fail_rank[512], sleeper[512];
static char out[65536];

static void setup(void)
{
    shmct_build_path("bin/shmrun", shmrun, sizeof shmrun);
    shmct_build_path("tests/progs/fail_rank", fail_rank, sizeof fail_rank);
    shmct_build_path("tests/progs/sleeper", sleeper, sizeof sleeper);
    shmct_shm_snapshot();
    /* The signal tests need the default dispositions in the ranks: a suite started under
     * nohup would pass SIGHUP ignored down to them, and they would outlive it. */
    signal(SIGHUP, SIG_DFL);
    /* Under a sanitizer, let a deliberate SIGSEGV kill the rank as it would without. */
    setenv("ASAN_OPTIONS", "handle_segv=0", 1);
    setenv("TSAN_OPTIONS", "handle_segv=0", 1);
}

/* Runs shmrun with the given arguments; returns its exit status (or 128+signal). */
static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", shmrun, args);
    int st = shmct_sh(cmd, out, sizeof out);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#define ASSERT_OUT(substr) SHMCT_ASSERT_CONTAINS(out, substr)

START_TEST(test_launcher_help_version)
{
    ck_assert_int_eq(run("--help"), 0);
    ASSERT_OUT("usage: shmrun -n N");
    ASSERT_OUT("--bind-to");
    ASSERT_OUT("--timeout");
    ck_assert_int_eq(run("-h"), 0);
    ck_assert_int_eq(run("--version"), 0);
    ASSERT_OUT(SHMC_VERSION_STRING);
}
END_TEST

/* Writes dir/name: a rule for any call of every collective but the all-reduce, the
 * all-reduce's rule for any call on device memory, then its rules; its path in path. */
/* The tests' own directories lie in one made before them and removed after them all by
 * the runner (an unchecked fixture), so that none is left behind where an assertion ends
 * a test's process before its own end (check's fork mode). */
static char tmp_root[] = "/tmp/shmc-launcher-XXXXXX";

static void tmp_root_make(void)
{
    ck_assert_ptr_nonnull(mkdtemp(tmp_root));
}

static void tmp_root_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        fprintf(stderr, "check_launcher: could not remove %s\n", tmp_root);
}

/* A directory of the test's own, named for it, its path in dir (len bytes). */
static void make_tmp_dir(char *dir, size_t len, const char *name)
{
    snprintf(dir, len, "%s/%s-XXXXXX", tmp_root, name);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Writes text into dir/name, its path in path. */
static void text_file(char *path, size_t len, const char *dir, const char *name, const char *text)
{
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

static void rules_file(char *path, size_t len, const char *dir, const char *name,
                       const char *allreduce)
{
    static const char *const others[] = {"barrier",   "broadcast", "reduce",         "gather",
                                         "allgather", "scatter",   "reduce_scatter", "alltoall"};
    char text[2048];
    size_t at = 0;
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        at += (size_t)snprintf(text + at, sizeof text - at, "%s any any any any any any tree\n",
                               others[i]);
    snprintf(text + at, sizeof text - at, "allreduce any any any any any device ring\n%s",
             allreduce);
    text_file(path, len, dir, name, text);
}

/* SHMC_TUNING_FILE: its rules replace the built-in ones; a fault in it stops the job at
 * start, naming the line; one measured on another machine is ignored, saying so; ranks
 * whose rules differ all fail at start instead of choosing apart. */
START_TEST(test_launcher_tuning_file)
{
    char dir[64], path[128], prog[512];
    make_tmp_dir(dir, sizeof dir, "tuning");
    shmct_build_path("tests/progs/tuning", prog, sizeof prog);
    /* The rules for any maker's CPUs, whoever made this machine's (the ranks inherit it). */
    setenv("SHMC_CPU_MAKER", "other", 1);
    ck_assert_int_eq(run("-n 2 %s", prog), 0);
    ASSERT_OUT("staged 20"); /* (the built-in rules: the staging buffers) */
    /* On Intel's CPUs the built-in rules take the direct all-reduce for these. */
    ck_assert_int_eq(run("-n 2 -x SHMC_CPU_MAKER=intel %s", prog), 0);
    ASSERT_OUT("staged 0");

    /* Every all-reduce by the ring. */
    rules_file(path, sizeof path, dir, "ring", "allreduce any any any any any any ring   # comment\n");
    ck_assert_int_eq(run("-n 2 -x SHMC_TUNING_FILE=%s %s", path, prog), 0);
    ASSERT_OUT("staged 0");

    /* A rule for jobs whose ranks share CPUs: taken only when they do (SHMC_CPUS says how
     * many CPUs the job has, as shmrun itself does when it binds). */
    rules_file(path, sizeof path, dir, "shared",
               "allreduce any any any shared any any ring\nallreduce any any any any any host stage\n");
    ck_assert_int_eq(
        run("-n 2 --bind-to none -x SHMC_CPUS=1 -x SHMC_TUNING_FILE=%s %s", path, prog), 0);
    ASSERT_OUT("staged 0");
    ck_assert_int_eq(
        run("-n 2 --bind-to none -x SHMC_CPUS=4 -x SHMC_TUNING_FILE=%s %s", path, prog), 0);
    ASSERT_OUT("staged 20");

    /* bench/tune.py's rules (measured up to 256 bytes here) are taken, and leave the
     * sizes they did not measure to the built-in rules. */
    if (system("python3 -c '' 2>/dev/null") == 0) {
        char build[512], cmd[2048];
        snprintf(build, sizeof build, "%.*s", (int)(strlen(shmrun) - strlen("/bin/shmrun")),
                 shmrun);
        snprintf(path, sizeof path, "%s/tuned", dir);
        snprintf(cmd, sizeof cmd,
                 "SHMC_LINE_RTT_NS=100 SHMC_BENCH_LINE_RTT_NS=100 python3 %s/bench/tune.py "
                 "--build %s --ranks 2 --max 256 "
                 "--samples 1 --out %s 2>&1",
                 SHMC_SRC_DIR, build, path);
        ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
        ck_assert_int_eq(run("-n 2 -x SHMC_TUNING_FILE=%s -x SHMC_DEBUG=3 %s", path, prog), 0);
        ASSERT_OUT("dispatch rules from SHMC_TUNING_FILE=");
        ASSERT_OUT("staged 20");
        /* Tuned near, then far into the same file (every sample taken to run in that
         * state: SHMC_BENCH_LINE_RTT_NS, bench/coll_bench.c): the near rules stay beside the far
         * ones, and the built-in rules are not copied again. The margin keeps every
         * built-in pick and drops none for being slower, so that what the file holds does
         * not depend on the timings of one sample. Both runs assume one single copy's cost
         * (SHMC_SINGLE_COPY_COST): each would measure its own as it began, and where the
         * two fell on either side of the cost at which large messages change their way,
         * the second run dropped the first's rules as made while they went the other way
         * (bench/tune.py), which is right for a tuning but not what this checks. */
        for (int far = 0; far < 2; far++) {
            snprintf(cmd, sizeof cmd,
                     "SHMC_SINGLE_COPY_COST=200 "
                     "SHMC_LINE_RTT_NS=%d SHMC_BENCH_LINE_RTT_NS=%d python3 %s/bench/tune.py "
                     "--build %s --ranks 2 --max 64 --samples 1 --margin 1000 --out %s 2>&1",
                     far ? 400 : 100, far ? 400 : 100, SHMC_SRC_DIR, build, path);
            ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
        }
        snprintf(cmd, sizeof cmd,
                 "grep -c '^barrier *2 *<=0 *world *[a-z]* *near ' %s; grep -c '^barrier *2 *<=0 "
                 "*world *[a-z]* *far ' %s; grep -c '^barrier *any *any *any *any *any ' %s",
                 path, path, path);
        ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
        ck_assert_str_eq(out, "1\n1\n1\n");
        ck_assert_int_eq(run("-n 2 -x SHMC_TUNING_FILE=%s %s", path, prog), 0);
        /* A machine whose state changes from sample to sample (as a shared host's may
         * every few seconds): one run makes the rules of both states, into a new file. */
        snprintf(path, sizeof path, "%s/tuned2", dir);
        snprintf(cmd, sizeof cmd,
                 "SHMC_BENCH_LINE_RTT_NS=100,400 python3 %s/bench/tune.py --build %s --ranks 2 "
                 "--max 64 --samples 4 --margin 1000 --out %s 2>&1",
                 SHMC_SRC_DIR, build, path);
        ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
        snprintf(cmd, sizeof cmd,
                 "grep -c '^barrier *2 *<=0 *world *[a-z]* *near ' %s; grep -c '^barrier *2 *<=0 "
                 "*world *[a-z]* *far ' %s",
                 path, path);
        ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
        ck_assert_str_eq(out, "1\n1\n");
        /* It says what a single copy cost as it began, which its jobs assumed. */
        snprintf(cmd, sizeof cmd, "grep -c '^# measured: .*; a single copy ' %s", path);
        ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
        ck_assert_str_eq(out, "1\n");
    }

    /* A machine whose CPUs bear this one's name but not its family and model (a
     * hypervisor names two generations of EPYC alike): another machine. */
    char same_name[1024];
    snprintf(same_name, sizeof same_name,
             "%s --info 2>/dev/null | sed -n '1s/.*on this machine: //; 1s/ (family [^)]*)//p'",
             shmrun);
    if (shmct_sh(same_name, out, sizeof out) == 0 && strchr(out, '\n')) {
        char head[600];
        snprintf(head, sizeof head, "# machine: %.*s\nallreduce any any any any any any ring\n",
                 (int)strcspn(out, "\n"), out);
        text_file(path, sizeof path, dir, "same_name", head);
        ck_assert_int_eq(run("-n 2 -x SHMC_TUNING_FILE=%s %s", path, prog), 0);
        ASSERT_OUT("measured on another machine");
        ASSERT_OUT("staged 20");
    }

    /* Another machine's: ignored, the built-in rules serve. */
    text_file(path, sizeof path, dir, "elsewhere",
              "# machine: a machine that is not this one, 9999 CPUs\n"
              "allreduce any any any any any any ring\n");
    ck_assert_int_eq(run("-n 2 -x SHMC_TUNING_FILE=%s %s", path, prog), 0);
    ASSERT_OUT("measured on another machine");
    ASSERT_OUT("staged 20");

    /* A fault: refused at start, naming the file and the line. */
    rules_file(path, sizeof path, dir, "bad",
               "allreduce any any any any any any tree\nallreduce 2 any any any any any ring\n");
    ck_assert_int_ne(run("-n 2 -x SHMC_TUNING_FILE=%s %s", path, prog), 0);
    ASSERT_OUT("bad, line 11: never used");
    ASSERT_OUT("init: ");
    ck_assert_int_ne(run("-n 2 -x SHMC_TUNING_FILE=%s/none %s", dir, prog), 0);
    ASSERT_OUT("cannot be read");

    /* Rank 1 with other rules than rank 0's: both fail at start, neither hangs. */
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "%s -n 2 sh -c '[ \"$SHMC_RANK\" = 1 ] && export SHMC_TUNING_FILE=%s/ring; "
             "exec %s' 2>&1",
             shmrun, dir, prog);
    int st = shmct_sh(cmd, out, sizeof out);
    ck_assert_int_ne(st, 0);
    ASSERT_OUT("rank 1's dispatch rules or SHMC_ALGO_* differ from this rank's");
    ASSERT_OUT("rank 0's dispatch rules or SHMC_ALGO_* differ from this rank's");
    ASSERT_OUT("init: ");
}
END_TEST

/* The rules' machine column: the round trip that shmrun measured (here, the one
 * SHMC_LINE_RTT_NS makes it assume) against SHMC_FAR_NS picks the far or the near rules,
 * alike on every rank; ranks with different bounds fail at start. A tuned file whose
 * built-in digest is not this library's is stale: ignored, saying so. The user's tuned
 * rules serve where SHMC_TUNING_FILE is not set. */
/* bench/measure --per-sample: a row per sample with the round trips measured around it
 * (over a page of shared memory that no run leaves behind: the teardown's check); with
 * --machine, the job's own state of the machine first; and
 * bench/states.py --by-sample's table from such rows, each sample counted in the state
 * both its round trips are in. */
START_TEST(test_launcher_measure_per_sample)
{
    char measure[512], cmd[2048];
    shmct_build_path("bench/measure", measure, sizeof measure);
    ck_assert_int_eq(
        run("-n 2 %s --tests barrier,latency --sizes 8 --samples 3 --per-sample", measure), 0);
    int rows = 0;
    for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
        char rt[32], metric[32];
        int ranks;
        unsigned long bytes, before, after;
        double v;
        ck_assert_int_eq(sscanf(l, "%31[^,],%31[^,],%d,%lu,%lf,%lu,%lu", rt, metric, &ranks, &bytes,
                                &v, &before, &after),
                         7);
        ck_assert_str_eq(rt, "shmcomm");
        ck_assert(v > 0 && before > 0 && after > 0);
        rows++;
    }
    ck_assert_int_eq(rows, 6);
    /* --machine: first, the state the job took its settings by and its round trip. */
    static const char *const states[][2] = {{"400", "# machine far 400\n"},
                                            {"100", "# machine near 100\n"}};
    for (int i = 0; i < 2; i++) {
        setenv("SHMC_LINE_RTT_NS", states[i][0], 1);
        int rc = run("-n 2 %s --tests barrier --samples 1 --machine", measure);
        unsetenv("SHMC_LINE_RTT_NS");
        ck_assert_int_eq(rc, 0);
        ck_assert_msg(!strncmp(out, states[i][1], strlen(states[i][1])), "%s", out);
    }

    if (system("python3 -c '' 2>/dev/null") != 0)
        return;
    char dir[64], path[128];
    make_tmp_dir(dir, sizeof dir, "states");
    /* round,state,rtt_before,rtt_after,runtime,metric,bytes,us, as --by-sample writes them */
    text_file(path, sizeof path, dir, "samples.csv",
              "round,state,rtt_before,rtt_after,runtime,metric,bytes,us\n"
              "0,near,100,110,shmcomm,barrier,0,1.0\n0,near,105,100,shmcomm,barrier,0,3.0\n"
              "0,near,100,100,openmpi,barrier,0,4.0\n0,far,300,310,shmcomm,barrier,0,5.0\n"
              "0,far,320,300,openmpi,barrier,0,8.0\n1,far,330,300,openmpi,barrier,0,12.0\n");
    snprintf(cmd, sizeof cmd, "python3 %s/bench/states.py --summarize %s --by-sample 2>&1",
             SHMC_SRC_DIR, path);
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ASSERT_OUT("| state (round trip) | samples |");
    ASSERT_OUT("| near (100-110 ns) | 1 | barrier | 0 | 2.00 | 4.00 | - | 0.50 | 0.50 |");
    ASSERT_OUT("| far (300-330 ns) | 1 | barrier | 0 | 5.00 | 10.00 | - | 0.50 | 0.50 |");
}
END_TEST

START_TEST(test_launcher_machine_rules)
{
    char dir[64], path[128], prog[512], cmd[2048];
    make_tmp_dir(dir, sizeof dir, "machine");
    shmct_build_path("tests/progs/tuning", prog, sizeof prog);
    setenv("SHMC_CPU_MAKER", "other", 1); /* (as above) */
    rules_file(path, sizeof path, dir, "far",
               "allreduce any any any any far any ring\nallreduce any any any any any host stage\n");
    const char *rtts[] = {"400", "100", "199", "200"};
    const char *want[] = {"staged 0", "staged 20", "staged 20", "staged 0"};
    for (int i = 0; i < 4; i++) {
        snprintf(cmd, sizeof cmd, "SHMC_LINE_RTT_NS=%s %s -n 2 -x SHMC_TUNING_FILE=%s %s 2>&1",
                 rtts[i], shmrun, path, prog);
        ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
        ASSERT_OUT(want[i]);
    }
    /* A higher bound makes 400 ns near. */
    snprintf(cmd, sizeof cmd,
             "SHMC_LINE_RTT_NS=400 %s -n 2 -x SHMC_FAR_NS=500 -x SHMC_TUNING_FILE=%s %s 2>&1",
             shmrun, path, prog);
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ASSERT_OUT("staged 20");
    /* Rank 1 with another bound than rank 0's: both fail at start. */
    snprintf(cmd, sizeof cmd,
             "%s -n 2 -x SHMC_TUNING_FILE=%s sh -c '[ \"$SHMC_RANK\" = 1 ] && export "
             "SHMC_FAR_NS=300; exec %s' 2>&1",
             shmrun, path, prog);
    ck_assert_int_ne(shmct_sh(cmd, out, sizeof out), 0);
    ASSERT_OUT("rank 1's dispatch rules or SHMC_ALGO_* differ from this rank's");
    /* Rank 1 taking the CPUs for another maker's: the same. */
    snprintf(cmd, sizeof cmd,
             "%s -n 2 sh -c '[ \"$SHMC_RANK\" = 1 ] && export SHMC_CPU_MAKER=intel; exec %s' 2>&1",
             shmrun, prog);
    ck_assert_int_ne(shmct_sh(cmd, out, sizeof out), 0);
    ASSERT_OUT("rank 1's dispatch rules or SHMC_ALGO_* differ from this rank's");

    /* Stale: tuned beside other built-in rules. */
    text_file(path, sizeof path, dir, "stale",
              "# built-in: 0123456789abcdef\nallreduce any any any any any any ring\n");
    ck_assert_int_eq(run("-n 2 -x SHMC_TUNING_FILE=%s %s", path, prog), 0);
    ASSERT_OUT("tuned beside other built-in rules");
    ASSERT_OUT("run bench/tune.py again");
    ASSERT_OUT("staged 20");

    /* The user's tuned rules ($XDG_CACHE_HOME/shmcomm/rules), which --info names; a fault
     * in them stops the job as SHMC_TUNING_FILE's would; SHMC_TUNING_FILE comes first. */
    snprintf(cmd, sizeof cmd, "mkdir %s/shmcomm", dir);
    ck_assert_int_eq(system(cmd), 0);
    rules_file(path, sizeof path, dir, "shmcomm/rules", "allreduce any any any any any any ring\n");
    snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=%s %s --info 2>&1", dir, shmrun);
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ASSERT_OUT("the user's tuned rules: ");
    ASSERT_OUT(path);
    snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=%s %s -n 2 -x SHMC_DEBUG=3 %s 2>&1", dir, shmrun,
             prog);
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ASSERT_OUT("dispatch rules from the tuned rules ");
    ASSERT_OUT("staged 0");
    snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=%s %s -n 2 -x SHMC_TUNING_FILE=builtin %s 2>&1",
             dir, shmrun, prog);
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ASSERT_OUT("staged 20"); /* (builtin: the built-in rules, whatever the user's) */
    rules_file(path, sizeof path, dir, "stage", "allreduce any any any any any host stage\n");
    snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=%s %s -n 2 -x SHMC_TUNING_FILE=%s %s 2>&1", dir,
             shmrun, path, prog);
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ASSERT_OUT("staged 20");
    rules_file(path, sizeof path, dir, "shmcomm/rules", "allreduce 2 any any any any any ring\n");
    snprintf(cmd, sizeof cmd, "XDG_CACHE_HOME=%s %s -n 2 %s 2>&1", dir, shmrun, prog);
    ck_assert_int_ne(shmct_sh(cmd, out, sizeof out), 0);
    ASSERT_OUT("no last rule for any call");
    /* One it cannot read (a directory there): passed over, saying so. */
    snprintf(cmd, sizeof cmd, "rm %s && mkdir %s && XDG_CACHE_HOME=%s %s -n 2 -x SHMC_DEBUG=2 %s 2>&1",
             path, path, dir, shmrun, prog);
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ASSERT_OUT("cannot be read");
    ASSERT_OUT("staged 20");
}
END_TEST

/* shmrun --info lists every setting, with the value the environment gives it, and starts
 * nothing; --info=markdown is docs/configuration.md's table (check_config_docs). */
START_TEST(test_launcher_info)
{
    ck_assert_int_eq(run("--info"), 0);
    ASSERT_OUT("SHMC_EAGER_LIMIT\n    default: auto\n    read once, at shmc_init");
    ASSERT_OUT("SHMC_ALGO_<NAME>\n    default: auto\n    shmc_config_set may change it");
    ASSERT_OUT("ALLREDUCE: tree ring shm rd direct stage");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "SHMC_EAGER_LIMIT=8k SHMC_ALGO_GATHER=ring %s --info 2>&1", shmrun);
    shmct_sh(cmd, out, sizeof out);
    ASSERT_OUT("default: auto; here: 8k");
    ASSERT_OUT("here SHMC_ALGO_GATHER=ring");
    ck_assert_int_eq(run("--info=markdown"), 0);
    ASSERT_OUT("| `SHMC_CHECK` | calls | yes | ");
    ck_assert_int_eq(run("--info -n 2 true"), 2);
    ASSERT_OUT("--info starts no job");
    ck_assert_int_eq(run("--info=html"), 2);
}
END_TEST

START_TEST(test_launcher_bad_options)
{
    static const struct {
        const char *args;
        int status;
        const char *msg;
    } cases[] = {
        {"-n 0 true", 2, "whole number from 1 to 256, not '0'"},
        {"-n -1 true", 2, "not '-1'"},
        {"-n abc true", 2, "not 'abc'"},
        {"-n 2x true", 2, "not '2x'"},
        {"-n 300 true", 2, "not '300'"},
        {"-n", 2, "-n needs a number of ranks"},
        {"", 2, "say how many ranks"},
        {"true", 2, "say how many ranks"},
        {"-n 2", 2, "no program given"},
        {"-n 2 ./no-such-program", 127, "program './no-such-program' not found"},
        {"-n 2 no-such-program-in-path", 127, "not found in PATH"},
        {"-n 2 /etc/passwd", 126, "is not executable"},
        {"-n 2 /tmp", 126, "is a directory"},
        {"--bogus -n 2 true", 2, "unknown option '--bogus'"},
        {"-n 2 --bind-to socket true", 2, "core, numa or none, not 'socket'"},
        {"-n 2 --timeout -3 true", 2, "positive number of seconds (at most 10000000), not '-3'"},
        {"-n 2 --timeout 1e99 true", 2, "not '1e99'"},
        {"-n 2 ''", 127, "the program name is empty"},
        {"-n 1e3 true", 2, "not '1e3'"},
        {"-n 2 --timeout abc true", 2, "not 'abc'"},
        {"-n 2 --timeout", 2, "not '(nothing)'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st = run("%s", cases[i].args);
        ck_assert_msg(st == cases[i].status, "'shmrun %s' exited %d, expected %d:\n%s",
                      cases[i].args, st, cases[i].status, out);
        ASSERT_OUT(cases[i].msg);
        /* One line saying what was wrong, then (for option errors) the usage line. */
        char *nl = strchr(out, '\n');
        ck_assert_ptr_nonnull(nl);
        if (cases[i].status == 2)
            ck_assert_msg(!strncmp(nl + 1, "usage: shmrun", 13), "no usage line:\n%s", out);
    }
}
END_TEST

/* The options scripts pass to mpiexec and mpirun: accepted where they mean something here
 * (and the variables of -x and -genv reach every rank), refused by name otherwise; and
 * the build's mpiexec and mpirun names are shmrun. */
START_TEST(test_launcher_mpiexec_options)
{
    ck_assert_int_eq(run("-np 2 --oversubscribe --allow-run-as-root -host localhost:4 "
                         "--map-by core:OVERSUBSCRIBE -x A=1 -x HOME -genv B 'two words' "
                         "-env C 3 -genvall -genvlist A,B --tag-output "
                         "sh -c 'echo v $SHMC_RANK $A $B $C'"),
                     0);
    ASSERT_OUT("[0] v 0 1 two words 3\n");
    ASSERT_OUT("[1] v 1 1 two words 3\n");
    char host[256] = "";
    ck_assert_int_eq(gethostname(host, sizeof host), 0);
    ck_assert_int_eq(run("-n 1 --host 127.0.0.1,%s:2 -H localhost true", host), 0);
    static const struct {
        const char *args, *msg;
    } refused[] = {
        {"-n 2 --host otherbox true", "host 'otherbox' is not this machine"},
        {"-n 2 -host localhost,far:2 true", "host 'far' is not this machine"},
        {"-n 2 --mca btl self true", "unknown option '--mca' (not one of mpiexec's"},
        {"-n 2 --hostfile h true", "unknown option '--hostfile'"},
        {"-n 2 --map-by ppr:2:node true", "--map-by 'ppr:2:node' has no meaning here"},
        {"-n 2 -genv A", "-genv needs a variable name and a value"},
        {"-n 2 -x", "-x needs a variable name"},
        {"-n 2 -x =v true", "-x needs a variable name"},
        {"-n 2 --host", "--host needs a list of hosts"},
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        ck_assert_msg(run("%s", refused[i].args) == 2, "'shmrun %s' was not refused: %s",
                      refused[i].args, out);
        ASSERT_OUT(refused[i].msg);
    }
    char names[512], cmd[1024];
    shmct_build_path("mpi-bin", names, sizeof names);
    snprintf(cmd, sizeof cmd,
             "PATH=%s:$PATH; mpiexec -n 2 --oversubscribe sh -c 'echo e$SHMC_RANK' | sort; "
             "mpirun --version",
             names);
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ASSERT_OUT("e0\ne1\n");
    ASSERT_OUT("shmrun (shmcomm)");
}
END_TEST

/* A bad SHMC_* variable stops the job before any rank starts. */
START_TEST(test_launcher_bad_variable)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "SHMC_RING_SIZE=5000 %s -n 2 true 2>&1", shmrun);
    int st = shmct_sh(cmd, out, sizeof out);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    ASSERT_OUT("SHMC_RING_SIZE=5000 is not a power of two");
    snprintf(cmd, sizeof cmd, "SHMC_EAGER_LIMIT=huge %s -n 2 true 2>&1", shmrun);
    st = shmct_sh(cmd, out, sizeof out);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
    ASSERT_OUT("SHMC_EAGER_LIMIT='huge' is not a valid size");
}
END_TEST

START_TEST(test_launcher_exit_codes)
{
    ck_assert_int_eq(run("-n 3 true"), 0);
    ck_assert_str_eq(out, "");
    ck_assert_int_eq(run("-n 3 false"), 1);
    ASSERT_OUT("exited with code 1");
    ck_assert_int_eq(run("-n 4 %s exit 5 2", fail_rank), 5);
    ASSERT_OUT("shmrun: rank 2 (pid ");
    ASSERT_OUT(") exited with code 5");
    /* The others were told: their receive from rank 2 failed instead of hanging. */
    ASSERT_OUT("recv from rank 2: the job was aborted");
}
END_TEST

START_TEST(test_launcher_killed_rank)
{
    ck_assert_int_eq(run("-n 4 %s signal 9 1", fail_rank), 128 + 9);
    ASSERT_OUT("shmrun: rank 1 (pid ");
    ASSERT_OUT("was killed by signal 9 (SIGKILL)");
    ck_assert_int_eq(run("-n 3 %s signal 11 0", fail_rank), 128 + 11);
    ASSERT_OUT("shmrun: rank 0 (pid ");
    ASSERT_OUT("was killed by signal 11 (SIGSEGV)");
    ck_assert_int_eq(run("-n 8 %s signal 6 7", fail_rank), 128 + 6);
    ASSERT_OUT("(SIGABRT)");
}
END_TEST

START_TEST(test_launcher_abort)
{
    ck_assert_int_eq(run("-n 3 %s abort 6 1", fail_rank), 6);
    ASSERT_OUT("shmrun: rank 1 (pid ");
    ASSERT_OUT("called shmc_abort(6)");
}
END_TEST

/* A rank that finalized and then exits non-zero chose its code: the job's status, no
 * message, the others not ended (they exit 0 later, and are not reported). */
START_TEST(test_launcher_exit_after_finalize)
{
    ck_assert_int_eq(run("-n 3 %s finalized 4 1", fail_rank), 4);
    ck_assert_str_eq(out, "");
}
END_TEST

/* A rank exits 0 without finalizing: not a failure, but whoever waits for it is told. */
START_TEST(test_launcher_clean_exit_without_finalize)
{
    ck_assert_int_eq(run("-n 2 %s exit 0 1", fail_rank), 0);
    ASSERT_OUT("rank 0: recv from rank 1: the peer process died or finalized");
}
END_TEST

/* Ranks that never call the library again are ended after the grace period, and those
 * that ignore SIGTERM get SIGKILL. */
START_TEST(test_launcher_ends_the_rest)
{
    ck_assert_int_eq(run("-n 3 %s compute 4 2", fail_rank), 4);
    ASSERT_OUT("rank 2 (pid ");
    ASSERT_OUT("ending the job; 2 ranks are still running");
    ck_assert_int_eq(run("-n 2 %s ignore 4 0", fail_rank), 4);
    ASSERT_OUT("1 rank ignored SIGTERM; sending SIGKILL");
}
END_TEST

START_TEST(test_launcher_timeout)
{
    ck_assert_int_eq(run("--timeout 0.5 -n 2 %s lib", sleeper), 124);
    ASSERT_OUT("the job ran longer than --timeout 0.5 s");
    ck_assert_int_eq(run("--timeout 0.5 -n 2 %s pause", sleeper), 124);
}
END_TEST

/* When --timeout ends a job, shmrun says what every rank was blocked on and names the
 * wait-for cycle: the send/send deadlock of two 64 MiB messages (under --timeout 5, the
 * case reliability.md shows; the test case's time limit bounds how long it takes), and
 * three ranks each receiving from the next. */
START_TEST(test_launcher_hang_report)
{
    ck_assert_int_eq(run("--timeout 5 -n 2 %s sendsend 67108864", sleeper), 124);
    ASSERT_OUT("shmrun: the job ran longer than --timeout 5 s; ending it\n");
    ASSERT_OUT("rank 0: waits to send 64 MiB to rank 1 (tag 5, on the world), for ");
    ASSERT_OUT("rank 1: waits to send 64 MiB to rank 0 (tag 5, on the world), for ");
    ASSERT_OUT("shmrun: deadlock: rank 0 waits to send 64 MiB to rank 1, which waits to send "
               "64 MiB to rank 0\n");
    ck_assert_int_eq(run("--timeout 3 -n 3 %s lib", sleeper), 124);
    ASSERT_OUT("shmrun: deadlock: rank 0 waits to receive up to 4 B from rank 1, which waits to "
               "receive up to 4 B from rank 2, which waits to receive up to 4 B from rank 0\n");
    /* Ranks blocked outside the library: no cycle, and each shown as not blocked. */
    ck_assert_int_eq(run("--timeout 2 -n 2 %s pause", sleeper), 124);
    ASSERT_OUT("rank 1: running, not blocked in shmcomm");
    ASSERT_OUT("no wait-for cycle among the blocked ranks");
    /* A collective's wait names its call (the words its members compare, SHMC_CHECK's
     * default): the nonblocking form on rank 0, by the world's lane, beside the others'
     * blocking one, which it never matches; of two a wait waits for, the first. */
    for (int n = 2; n <= 5; n++) {
        /* (at 4 and 5 ranks rank 0 waits for two calls: the first is named) */
        ck_assert_int_eq(run("--timeout 2 -n %d %s mixed %s", n, sleeper, n > 3 ? "2" : ""), 124);
        ASSERT_OUT("rank 0: waits in a nonblocking collective (on the world): the nonblocking "
                   "allreduce(count 4, int32, sum), for ");
        ASSERT_OUT("rank 1: waits in a blocking collective (on the world): allreduce(count 4, "
                   "int32, sum), for ");
        ASSERT_OUT("rank 0 in a nonblocking one: a blocking collective call is matched only by "
                   "the same blocking call");
    }
}
END_TEST

/* --keep-going: rank 1 of 4 exits with 3 while the others wait for it; they get
 * SHMC_ERR_PEER_DEAD for what needs it (point-to-point with it, collectives on the
 * world) and go on with what does not (a ring among themselves, a communicator made
 * before the death), and shmrun exits with the dead rank's status once they finish. */
START_TEST(test_launcher_keep_going)
{
    ck_assert_int_eq(run("--keep-going -n 4 %s survive 3 1", fail_rank), 3);
    ASSERT_OUT("shmrun: rank 1 (pid ");
    ASSERT_OUT(") exited with code 3\n");
    ck_assert_msg(!strstr(out, "ending the job"), "the job was ended:\n%s", out);
    static const int survivors[] = {0, 2, 3}, lefts[] = {3, 0, 2};
    for (int i = 0; i < 3; i++) {
        char want[7][160];
        int r = survivors[i];
        const char *dead = shmc_strerror(SHMC_ERR_PEER_DEAD);
        snprintf(want[0], sizeof want[0], "rank %d: recv from dead: %s (", r, dead);
        snprintf(want[1], sizeof want[1], "rank %d: send to dead: %s\n", r, dead);
        snprintf(want[2], sizeof want[2],
                 "rank %d: ring among survivors: success, got %d (want %d)", r, lefts[i], lefts[i]);
        snprintf(want[3], sizeof want[3], "rank %d: barrier on the world: %s (", r, dead);
        snprintf(want[4], sizeof want[4], "rank %d: allreduce on the world: %s\n", r, dead);
        snprintf(want[5], sizeof want[5], "rank %d: barrier among survivors: success\n", r);
        snprintf(want[6], sizeof want[6],
                 "rank %d: allreduce among survivors: success, sum 5 (want 5)\n", r);
        for (int k = 0; k < 7; k++)
            ASSERT_OUT(want[k]);
    }
    /* A rank that calls shmc_abort still ends the job, with its code. (Whether shmrun
     * also says it ends the others depends on whether they, seeing the abort in their
     * receive, have exited by then: under a loaded machine they had, once in five full
     * runs of the suite.) */
    ck_assert_int_eq(run("--keep-going -n 3 %s abort 5 1", fail_rank), 5);
    ASSERT_OUT(") called shmc_abort(5)\n");
    /* Its code is the job's even when the others, seeing the abort, exit (with 3) and
     * are reaped before it: with and without --keep-going. */
    ck_assert_int_eq(run("-n 3 %s abortlate 7 1", fail_rank), 7);
    ASSERT_OUT("shmrun: rank 1 (pid ");
    ASSERT_OUT(") called shmc_abort(7)\n");
    ck_assert_msg(!strstr(out, "exited with code 3"), "a rank that saw the abort was blamed:\n%s",
                  out);
    ck_assert_int_eq(run("--keep-going -n 3 %s abortlate 7 1", fail_rank), 7);
    ASSERT_OUT(") called shmc_abort(7)\n");
}
END_TEST

/* SHMC_TIMEOUT: the library itself finds that no rank has made progress for that long;
 * the lowest rank prints the report once and aborts the job with status 124. Ranks
 * outside the library are not stuck in it: no report, and --timeout ends that job. */
START_TEST(test_launcher_shmc_timeout)
{
    setenv("SHMC_TIMEOUT", "1", 1);
    ck_assert_int_eq(run("-n 2 %s sendsend 67108864", sleeper), 124);
    ASSERT_OUT("shmcomm: rank 0: no rank has made progress for 1 s (SHMC_TIMEOUT); ending the "
               "job\n");
    ASSERT_OUT("shmcomm: deadlock: rank 0 waits to send 64 MiB to rank 1, which waits to send "
               "64 MiB to rank 0\n");
    ASSERT_OUT("shmrun: rank 0 (pid ");
    const char *first = strstr(out, "what each rank is doing");
    ck_assert_msg(first && !strstr(first + 1, "what each rank is doing"),
                  "not exactly one report:\n%s", out);
    ck_assert_int_eq(run("--timeout 2 -n 2 %s pause", sleeper), 124);
    unsetenv("SHMC_TIMEOUT");
    ck_assert_msg(!strstr(out, "SHMC_TIMEOUT"), "a report for ranks outside the library:\n%s", out);
}
END_TEST

/* A stopped rank is named as the culprit, is never the one expected to report, and does
 * not keep the job from ending: under shmrun --timeout, under SHMC_TIMEOUT with shmrun,
 * and under SHMC_TIMEOUT in a job started by a shell loop (rank 0, the lowest, stopped). */
START_TEST(test_launcher_stopped_rank)
{
    ck_assert_int_eq(run("--timeout 2 -n 3 %s stop 0", sleeper), 124);
    ASSERT_OUT("  rank 0: STOPPED (process state T");
    ASSERT_OUT("shmrun: rank 0 is stopped (pid ");
    ck_assert_msg(!strstr(out, "deadlock"), "a stopped rank in a cycle:\n%s", out);
    ck_assert_msg(!strstr(out, "ignored SIGTERM"), "SIGTERM 'ignored' by a stopped rank:\n%s", out);

    setenv("SHMC_TIMEOUT", "1", 1);
    ck_assert_int_eq(run("-n 3 %s stop 0", sleeper), 124);
    unsetenv("SHMC_TIMEOUT");
    ASSERT_OUT("shmcomm: rank 1: no rank has made progress for 1 s (SHMC_TIMEOUT)");
    ASSERT_OUT("shmcomm: rank 0 is stopped (pid ");

    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "export WORLD_SIZE=3 LOCAL_WORLD_SIZE=3 SHMC_TIMEOUT=1 SHMC_JOB_ID=stopped-$$; "
             "for r in 0 1 2; do RANK=$r LOCAL_RANK=$r %s stop 0 2>&1 & pids=\"$pids $!\"; done; "
             "for p in $pids; do wait $p; echo \"status $?\"; done",
             sleeper);
    shmct_sh(cmd, out, sizeof out);
    ASSERT_OUT("shmcomm: rank 1: no rank has made progress for 1 s (SHMC_TIMEOUT)");
    ASSERT_OUT("  rank 0: STOPPED (process state T");
    /* The stopped rank gets SIGTERM and SIGCONT: it ends too (143), nobody waits. */
    ASSERT_OUT("status 143");
    ASSERT_OUT("status 124");
}
END_TEST

/* kill -USR1 prints the same report and the job goes on: the ranks are still there to be
 * interrupted afterwards. The script waits for the ranks to start (a signal before shmrun
 * set up its handling would end it), then asks until they have published their waits. */
START_TEST(test_launcher_report_on_usr1)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "f=$(mktemp); o=$(mktemp); %s -n 2 %s lib >$o 2>$f & p=$!; "
             "for i in $(seq 600); do [ $(grep -c ready $o) = 2 ] && break; sleep 0.05; done; "
             "for i in $(seq 200); do kill -USR1 $p; sleep 0.05; "
             "  grep -q deadlock $f && break; done; "
             "kill -0 $p && echo still-running; kill -TERM $p; wait $p; echo status $?; "
             "cat $f; rm -f $f $o",
             shmrun, sleeper);
    shmct_sh(cmd, out, sizeof out);
    ASSERT_OUT("still-running");
    ASSERT_OUT("shmrun: what each rank is doing:");
    ASSERT_OUT("shmrun: deadlock: rank 0 waits to receive up to 4 B from rank 1, which waits to "
               "receive up to 4 B from rank 0\n");
    ASSERT_OUT("status 143");
}
END_TEST

START_TEST(test_launcher_tag_output_and_env)
{
    ck_assert_int_eq(run("-n 3 --tag-output sh -c 'echo env $SHMC_RANK $SHMC_SIZE $RANK "
                         "$WORLD_SIZE $LOCAL_RANK $LOCAL_WORLD_SIZE; echo err $RANK >&2; "
                         "printf partial'"),
                     0);
    for (int r = 0; r < 3; r++) {
        char line[128];
        snprintf(line, sizeof line, "[%d] env %d 3 %d 3 %d 3\n", r, r, r, r);
        ASSERT_OUT(line);
        snprintf(line, sizeof line, "[%d] err %d\n", r, r);
        ASSERT_OUT(line);
        snprintf(line, sizeof line, "[%d] partial\n", r);
        ASSERT_OUT(line);
    }
    /* A 1 MiB line without a newline comes out whole, once, tagged once. */
    char cmd0[1024];
    snprintf(cmd0, sizeof cmd0,
             "%s -n 1 --tag-output sh -c 'head -c 1048576 /dev/zero | tr \"\\\\000\" x' | "
             "wc -lc",
             shmrun);
    ck_assert_int_eq(shmct_sh(cmd0, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "1 1048581"), "not one line of 1 MiB + tag + newline: %s", out);
    /* The reader of shmrun's output goes away: shmrun says so and fails as SIGPIPE would. */
    snprintf(cmd0, sizeof cmd0,
             "(%s -n 2 --tag-output sh -c 'for i in $(seq 20000); do echo line $i; done'; "
             "echo \"shmrun status $?\" >&2) 2>/tmp/shmrun-pipe-$$ | head -1 >/dev/null; "
             "cat /tmp/shmrun-pipe-$$; rm -f /tmp/shmrun-pipe-$$",
             shmrun);
    shmct_sh(cmd0, out, sizeof out);
    ck_assert_msg(strstr(out, "cannot write the ranks' output"), "%s", out);
    ck_assert_msg(strstr(out, "shmrun status 141"), "%s", out);
    /* Only rank 0 reads shmrun's stdin. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "echo from-stdin | %s -n 3 --tag-output cat 2>&1", shmrun);
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ck_assert_str_eq(out, "[0] from-stdin\n");
}
END_TEST

START_TEST(test_launcher_bindings)
{
    ck_assert_int_eq(run("-n 3 --report-bindings true"), 0);
    ASSERT_OUT("shmrun: rank 0 bound to ");
    ASSERT_OUT("shmrun: rank 2 bound to ");
    ck_assert_int_eq(run("-n 2 --bind-to none --report-bindings true"), 0);
    ASSERT_OUT("shmrun: rank 1 bound to not bound");
    ck_assert_int_eq(run("-n 2 --bind-to numa true"), 0);
    /* The plan read from sysfs on a simple machine is the one hwloc makes. */
    char direct[sizeof out];
    ck_assert_int_eq(run("-n 5 --report-bindings true"), 0);
    memcpy(direct, out, sizeof out);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "SHMRUN_HWLOC=1 %s -n 5 --report-bindings true 2>&1", shmrun);
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ck_assert_str_eq(out, direct);
    /* A bound rank runs on one core: its affinity list has no comma or range. */
    ck_assert_int_eq(run("-n 2 --tag-output sh -c 'grep Cpus_allowed_list /proc/self/status'"), 0);
    ASSERT_OUT("[0] Cpus_allowed_list:");
}
END_TEST

/* --report-bindings names each rank's GPU and whether it is near, on a saved topology of
 * two packages with a GPU each (tests/fixtures/two_gpus.xml); this machine's two cores
 * are both in the first package there. */
START_TEST(test_launcher_bindings_gpus)
{
    const char *xml = SHMC_SRC_DIR "/tests/fixtures/two_gpus.xml";
    ck_assert_int_eq(run("-n 3 --report-bindings true"), 0);
    ck_assert_msg(strstr(out, "no NVIDIA GPU found") || strstr(out, "shmrun: GPU 0 is PCI"),
                  "no GPU report:\n%s", out);
    ck_assert_int_eq(run("-n 3 --bind-to core --report-bindings true"), 0);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "HWLOC_XMLFILE=%s %s -n 3 --bind-to core --report-bindings true 2>&1",
             xml, shmrun);
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ASSERT_OUT("shmrun: GPU 0 is PCI 0000:17:00.0, near PU 0-1\n");
    ASSERT_OUT("shmrun: GPU 1 is PCI 0000:b3:00.0, near PU 2-3\n");
    ASSERT_OUT("shmrun: rank 0 gets GPU 0, near it\n");
    ASSERT_OUT("shmrun: rank 1 gets GPU 1, not near it (near it: GPU 0)\n");
    ASSERT_OUT("shmrun: rank 2 gets GPU 0, near it\n");
    ck_assert_msg(!strstr(out, "Ethernet") && !strstr(out, "3a:00.0"), "not a GPU:\n%s", out);
    snprintf(cmd, sizeof cmd,
             "HWLOC_XMLFILE=%s CUDA_VISIBLE_DEVICES=1 %s -n 2 --bind-to none --report-bindings "
             "true 2>&1",
             xml, shmrun);
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ASSERT_OUT("shmrun: rank 1 gets GPU 1 (not bound)\n");
    ASSERT_OUT("CUDA_VISIBLE_DEVICES is set");
}
END_TEST

/* Reads "ready R PID" lines from fd until n have arrived; fills pids. */
static void wait_ready(int fd, int n, pid_t *pids)
{
    char buf[4096];
    size_t used = 0;
    int got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + used, sizeof buf - 1 - used);
        ck_assert_int_gt(r, 0);
        used += (size_t)r;
        buf[used] = '\0';
        got = 0;
        for (char *p = buf; (p = strstr(p, "ready ")); p++) {
            int rank, pid;
            if (sscanf(p, "ready %d %d", &rank, &pid) == 2 && rank < n) {
                pids[rank] = pid;
                got++;
            }
        }
    }
}

/* Starts shmrun -n n sleeper mode with stdout on a pipe; returns its pid. */
static pid_t start_sleepers(int n, const char *mode, int *fd)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(p[1], STDOUT_FILENO);
        close(p[0]);
        close(p[1]);
        int devnull = open("/dev/null", O_WRONLY); /* shmrun's report is expected noise */
        dup2(devnull, STDERR_FILENO);
        char nbuf[16];
        snprintf(nbuf, sizeof nbuf, "%d", n);
        execl(shmrun, "shmrun", "-n", nbuf, sleeper, mode, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    *fd = p[0];
    return pid;
}

/* SIGKILL of shmrun itself: the ranks die with it and nothing stays in /dev/shm. The
 * test process is a subreaper, so the orphaned ranks become its children and it can
 * wait for each of them. */
START_TEST(test_launcher_shmrun_killed)
{
    ck_assert_int_eq(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    int fd;
    pid_t pids[4];
    pid_t sr = start_sleepers(4, "lib", &fd);
    wait_ready(fd, 4, pids);
    ck_assert_int_eq(kill(sr, SIGKILL), 0);
    int st, reaped = 0;
    pid_t pid;
    while ((pid = wait(&st)) > 0) {
        if (pid == sr)
            continue;
        ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "rank pid %d status %d", (int)pid,
                      st);
        reaped++;
    }
    ck_assert_int_eq(reaped, 4);
    close(fd);
}
END_TEST

/* SIGTERM, SIGINT or SIGHUP sent to shmrun reaches every rank; shmrun reports the first
 * rank it ended and exits with 128 + the signal. */
START_TEST(test_launcher_forwards_signals)
{
    static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    int sig = sigs[_i];
    int fd;
    pid_t pids[3];
    pid_t sr = start_sleepers(3, "pause", &fd);
    wait_ready(fd, 3, pids);
    ck_assert_int_eq(kill(sr, sig), 0);
    int st;
    ck_assert_int_eq(waitpid(sr, &st, 0), sr);
    ck_assert(WIFEXITED(st));
    ck_assert_int_eq(WEXITSTATUS(st), 128 + sig);
    for (int r = 0; r < 3; r++)
        ck_assert_msg(kill(pids[r], 0) != 0 && errno == ESRCH, "rank %d still alive", r);
    close(fd);
}
END_TEST

/* shmrun --cleanup removes a segment left by a job whose creator died before its ranks
 * attached (made here by a child that exits without removing it), keeps one a live
 * process made, and says which is which. */
START_TEST(test_launcher_cleanup)
{
    struct shmc__layout lay;
    char dead[64], live[64], path[80];
    ck_assert_int_eq(shmc__arena_layout(2, 0, &lay), SHMC_OK);
    snprintf(dead, sizeof dead, "/shmc-%u-jcleanup-dead-%d", (unsigned)geteuid(), (int)getpid());
    snprintf(live, sizeof live, "/shmc-%u-jcleanup-live-%d", (unsigned)geteuid(), (int)getpid());
    pid_t c = fork();
    if (c == 0) {
        struct shmc__arena a;
        _exit(shmc__arena_create(&a, dead, &lay, 0, 0, 0, NULL) == SHMC_OK ? 0 : 1);
    }
    int st;
    ck_assert_int_eq(waitpid(c, &st, 0), c);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    struct shmc__arena mine;
    ck_assert_int_eq(shmc__arena_create(&mine, live, &lay, 0, 0, 0, NULL), SHMC_OK);

    ck_assert_int_eq(run("--cleanup"), 0);
    char want[160];
    snprintf(want, sizeof want, "removed /dev/shm%s: left by a job that is gone", dead);
    ASSERT_OUT(want);
    snprintf(want, sizeof want, "kept /dev/shm%s: a running job uses it", live);
    ASSERT_OUT(want);
    snprintf(path, sizeof path, "/dev/shm%s", dead);
    ck_assert_msg(access(path, F_OK) != 0, "%s is still there", path);
    snprintf(path, sizeof path, "/dev/shm%s", live);
    ck_assert_msg(access(path, F_OK) == 0, "%s was removed", path);
    shm_unlink(live);
    shmc__arena_detach(&mine);

    /* Objects another user (or nobody careful) put under shmcomm's names: kept, and
     * described, never called a running job's. */
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "d=/dev/shm/shmc-%u-jsquat-%d; mkfifo -m 600 $d-fifo; ln -s /etc/passwd $d-link; "
             "touch $d-open; chmod 666 $d-open",
             (unsigned)geteuid(), (int)getpid());
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ck_assert_int_eq(run("--cleanup"), 0);
    ASSERT_OUT("-fifo: a FIFO owned by uid ");
    ASSERT_OUT("-link: a symbolic link owned by uid ");
    ASSERT_OUT("-open: a file owned by uid ");
    ASSERT_OUT("with mode 0666, not made by shmcomm for this user; its owner must remove it");
    ck_assert_msg(!strstr(out, "a running job uses it"), "a squatter called a job:\n%s", out);
    snprintf(cmd, sizeof cmd,
             "rm /dev/shm/shmc-%u-jsquat-%d-fifo /dev/shm/shmc-%u-jsquat-%d-link "
             "/dev/shm/shmc-%u-jsquat-%d-open",
             (unsigned)geteuid(), (int)getpid(), (unsigned)geteuid(), (int)getpid(),
             (unsigned)geteuid(), (int)getpid());
    ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
    ck_assert_int_eq(run("--cleanup -n 2 true"), 2);
    ASSERT_OUT("--cleanup starts no job");
}
END_TEST

/* A /dev/shm too small for a job told to use it (SHMC_MEMFD=0): a clear message with
 * both sizes and the way out, before any rank starts; by default the same job runs, its
 * memory outside /dev/shm. Needs a private mount namespace (root); skipped otherwise. */
START_TEST(test_launcher_small_dev_shm)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm || exit 77; "
             "SHMC_MEMFD=0 exec %s -n 64 true' 2>&1 || echo status=$?",
             shmrun);
    shmct_sh(cmd, out, sizeof out);
    if (strstr(out, "status=77") || strstr(out, "unshare failed")) {
        fprintf(stderr, "test_launcher_small_dev_shm: skipped (a mount namespace needs "
                        "root)\n");
        return;
    }
    ASSERT_OUT("the job needs ");
    ASSERT_OUT(" MiB of shared memory, /dev/shm has ");
    ASSERT_OUT(" MiB free");
    ASSERT_OUT("or unset SHMC_MEMFD=0 (by default the job's memory is outside /dev/shm)");
    ASSERT_OUT("status=1\n");
    snprintf(cmd, sizeof cmd,
             "unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm || exit 77; "
             "exec %s -n 64 sh -c \"echo ran \\$SHMC_RANK\" | grep -c ran' 2>&1; "
             "echo status=$?",
             shmrun);
    shmct_sh(cmd, out, sizeof out);
    ASSERT_OUT("64\nstatus=0\n");
}
END_TEST

static Suite *launcher_suite(void)
{
    Suite *s = suite_create("launcher");
    TCase *t = tcase_create("shmrun");
    /* Every test ends with /dev/shm as it found it. */
    tcase_add_checked_fixture(t, setup, shmct_shm_verify);
    tcase_add_unchecked_fixture(t, tmp_root_make, tmp_root_remove);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_launcher_help_version);
    tcase_add_test(t, test_launcher_bad_options);
    tcase_add_test(t, test_launcher_mpiexec_options);
    tcase_add_test(t, test_launcher_bad_variable);
    tcase_add_test(t, test_launcher_exit_codes);
    tcase_add_test(t, test_launcher_exit_after_finalize);
    tcase_add_test(t, test_launcher_killed_rank);
    tcase_add_test(t, test_launcher_abort);
    tcase_add_test(t, test_launcher_clean_exit_without_finalize);
    tcase_add_test(t, test_launcher_ends_the_rest);
    tcase_add_test(t, test_launcher_timeout);
    tcase_add_test(t, test_launcher_hang_report);
    tcase_add_test(t, test_launcher_report_on_usr1);
    tcase_add_test(t, test_launcher_shmc_timeout);
    tcase_add_test(t, test_launcher_stopped_rank);
    tcase_add_test(t, test_launcher_keep_going);
    tcase_add_test(t, test_launcher_cleanup);
    tcase_add_test(t, test_launcher_info);
    tcase_add_test(t, test_launcher_tuning_file);
    tcase_add_test(t, test_launcher_measure_per_sample);
    tcase_add_test(t, test_launcher_machine_rules);
    tcase_add_test(t, test_launcher_tag_output_and_env);
    tcase_add_test(t, test_launcher_bindings);
    tcase_add_test(t, test_launcher_bindings_gpus);
    tcase_add_test(t, test_launcher_shmrun_killed);
    tcase_add_loop_test(t, test_launcher_forwards_signals, 0, 3);
    tcase_add_test(t, test_launcher_small_dev_shm);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(launcher_suite());
}
