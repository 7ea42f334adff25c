/*
 * shmc_init under other launchers: ranks started from a plain shell loop with the
 * variables torchrun, Open MPI's mpirun and MPICH's mpiexec set, and by the real mpirun
 * programs when they are installed. Also the errors of a job that cannot assemble, a
 * leftover segment from a crashed job, and peers that die with no launcher watching.
 * Every test checks that nothing is left in /dev/shm.
 */
/* check: alone */
#include <check.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static char ex_ring[512], ex_chunked[512], fail_rank[512], sleeper[512];
static char out[65536];

static void setup(void)
{
    shmct_build_path("examples/ring", ex_ring, sizeof ex_ring);
    shmct_build_path("examples/chunked", ex_chunked, sizeof ex_chunked);
    shmct_build_path("tests/progs/fail_rank", fail_rank, sizeof fail_rank);
    shmct_build_path("tests/progs/sleeper", sleeper, sizeof sleeper);
    shmct_shm_snapshot();
}

#define ASSERT_OUT(substr) SHMCT_ASSERT_CONTAINS(out, substr)

/* Starts n ranks of prog from a shell loop; vars is a printf format for the per-rank
 * environment, with %1$d the rank. Returns the shell's exit status: 0 if all ranks
 * exited 0. */
static int loop(int n, const char *vars, const char *prog)
{
    char cmd[4096], env[1024];
    size_t used = (size_t)snprintf(cmd, sizeof cmd, "pids=''; ");
    for (int r = 0; r < n; r++) {
        snprintf(env, sizeof env, vars, r);
        used += (size_t)snprintf(cmd + used, sizeof cmd - used, "%s %s & pids=\"$pids $!\"; ", env,
                                 prog);
    }
    snprintf(cmd + used, sizeof cmd - used,
             "fail=0; for p in $pids; do wait $p || fail=1; done; exit $fail");
    int st = shmct_sh(cmd, out, sizeof out);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#define TORCH(n)                                                                                   \
    "RANK=%1$d LOCAL_RANK=%1$d WORLD_SIZE=" #n " LOCAL_WORLD_SIZE=" #n                             \
    " MASTER_ADDR=127.0.0.1 MASTER_PORT=29555 TORCHELASTIC_RUN_ID=check-$$"
#define OMPI(n)                                                                                    \
    "OMPI_COMM_WORLD_RANK=%1$d OMPI_COMM_WORLD_LOCAL_RANK=%1$d OMPI_COMM_WORLD_SIZE=" #n           \
    " OMPI_COMM_WORLD_LOCAL_SIZE=" #n " OMPI_MCA_ess_base_jobid=$$"
#define MPICH(n) "PMI_RANK=%1$d MPI_LOCALRANKID=%1$d PMI_SIZE=" #n " MPI_LOCALNRANKS=" #n

START_TEST(test_embed_torchrun_vars)
{
    ck_assert_msg(loop(4, TORCH(4), ex_ring) == 0, "%s", out);
    ASSERT_OUT("ring: every rank received its left neighbour's rank: ok");
    ck_assert_msg(loop(2, TORCH(2), ex_chunked) == 0, "%s", out);
    ASSERT_OUT("chunked: received 10000000 floats in 10 chunks, all correct: ok");
    ck_assert_msg(loop(8, TORCH(8), ex_ring) == 0, "%s", out);
}
END_TEST

START_TEST(test_embed_ompi_vars)
{
    ck_assert_msg(loop(4, OMPI(4), ex_ring) == 0, "%s", out);
    ASSERT_OUT("ring: every rank received its left neighbour's rank: ok");
}
END_TEST

START_TEST(test_embed_mpich_vars)
{
    ck_assert_msg(loop(3, MPICH(3), ex_ring) == 0, "%s", out);
    ASSERT_OUT("ring: every rank received its left neighbour's rank: ok");
}
END_TEST

/* The real launchers, when installed (Debian's openmpi-bin and mpich). */
START_TEST(test_embed_real_mpirun)
{
    char cmd[1024];
    int ran = 0;
    if (access("/usr/bin/mpirun.openmpi", X_OK) == 0) {
        snprintf(cmd, sizeof cmd, "mpirun.openmpi --oversubscribe --allow-run-as-root -n 4 %s 2>&1",
                 ex_ring);
        ck_assert_msg(shmct_sh(cmd, out, sizeof out) == 0, "%s", out);
        ASSERT_OUT("ring: every rank received its left neighbour's rank: ok");
        ran++;
    }
    if (access("/usr/bin/mpirun.mpich", X_OK) == 0) {
        snprintf(cmd, sizeof cmd, "mpirun.mpich -n 4 %s 2>&1", ex_ring);
        ck_assert_msg(shmct_sh(cmd, out, sizeof out) == 0, "%s", out);
        ASSERT_OUT("ring: every rank received its left neighbour's rank: ok");
        ran++;
    }
    if (!ran)
        fprintf(stderr, "test_embed_real_mpirun: skipped (neither mpirun.openmpi nor "
                        "mpirun.mpich is installed)\n");
}
END_TEST

START_TEST(test_embed_bad_environment)
{
    /* More ranks in the job than on this machine: said at once, naming this host and
     * rank 0's. */
    char host[256] = "", want[400];
    gethostname(host, sizeof host - 1);
    ck_assert_int_ne(loop(1,
                          "RANK=0 LOCAL_RANK=0 WORLD_SIZE=8 LOCAL_WORLD_SIZE=4 "
                          "MASTER_PORT=1 MASTER_ADDR=node7",
                          ex_ring),
                     0);
    snprintf(want, sizeof want,
             "the job's ranks are on several machines: WORLD_SIZE=8 but only 4 run on this "
             "one (%s); rank 0's host is node7 (MASTER_ADDR). shmcomm connects the processes "
             "of one machine",
             host);
    ASSERT_OUT(want);
    ck_assert_int_ne(loop(1, OMPI(1) " OMPI_COMM_WORLD_SIZE=2", ex_ring), 0);
    ASSERT_OUT("OMPI_COMM_WORLD_SIZE=2 but only 1 run on this one");
    /* Nothing names the job. */
    ck_assert_int_ne(loop(1, "RANK=0 WORLD_SIZE=2", ex_ring), 0);
    ASSERT_OUT("nothing identifies the job: set TORCHELASTIC_RUN_ID, MASTER_PORT or "
               "SHMC_JOB_ID");
    /* Garbage. */
    ck_assert_int_ne(loop(1, "RANK=five WORLD_SIZE=2 MASTER_PORT=1", ex_ring), 0);
    ASSERT_OUT("RANK='five' is not a whole number");
    ck_assert_int_ne(loop(1, "RANK=4 WORLD_SIZE=4 MASTER_PORT=1", ex_ring), 0);
    ASSERT_OUT("RANK='4' is not a whole number from 0 to 3");
    /* A local rank that is not the rank, on one machine: refused at once, not after
     * SHMC_ATTACH_TIMEOUT (the command is ended after 10 s). */
    ck_assert_int_ne(loop(1,
                          "RANK=0 LOCAL_RANK=3 WORLD_SIZE=4 LOCAL_WORLD_SIZE=4 MASTER_PORT=1 "
                          "SHMC_ATTACH_TIMEOUT=60 timeout 10",
                          ex_ring),
                     0);
    ASSERT_OUT("RANK=0 but the local rank is 3, on a job of one machine");
    ck_assert_int_ne(loop(1, "OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=2", ex_ring), 0);
    ASSERT_OUT("OMPI_COMM_WORLD_LOCAL_SIZE is not set");
    /* shmrun's variables without its descriptor. */
    ck_assert_int_ne(loop(1, "SHMC_RANK=0 SHMC_SIZE=1", ex_ring), 0);
    ASSERT_OUT("SHMC_ARENA_FD is not set");
    ck_assert_int_ne(loop(1, "SHMC_RANK=0 SHMC_SIZE=1 SHMC_ARENA_FD=77", ex_ring), 0);
    ASSERT_OUT("SHMC_ARENA_FD=77 is not an open file descriptor");
}
END_TEST

/* A job that never assembles fails with a message naming what is missing, and leaves no
 * segment behind (the teardown checks). */
START_TEST(test_embed_incomplete_job)
{
    /* (3 s: time for the three started to join on a loaded machine) */
    ck_assert_int_ne(loop(3, TORCH(4) " SHMC_ATTACH_TIMEOUT=3", ex_ring), 0);
    ASSERT_OUT("only 3 of 4 ranks joined within 3 s (SHMC_ATTACH_TIMEOUT); missing: 3");
    /* Local rank 0 never comes: the others give up waiting for its segment. */
    ck_assert_int_ne(loop(1,
                          "RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 "
                          "MASTER_PORT=2 SHMC_ATTACH_TIMEOUT=1",
                          ex_ring),
                     0);
    ASSERT_OUT("local rank 0 did not hand out the shared memory");
    /* Two processes given the same rank. */
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "for r in 0 1 1; do RANK=$r LOCAL_RANK=$r WORLD_SIZE=3 LOCAL_WORLD_SIZE=3 "
             "MASTER_PORT=3 SHMC_JOB_ID=dup-$$ SHMC_ATTACH_TIMEOUT=2 %s & done; wait",
             ex_ring);
    shmct_sh(cmd, out, sizeof out);
    ASSERT_OUT("rank 1 of this job was already taken by pid");
    /* Two processes both claiming to be local rank 0. */
    ck_assert_int_ne(loop(2,
                          "RANK=0 LOCAL_RANK=0 WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 "
                          "MASTER_PORT=4 SHMC_ATTACH_TIMEOUT=2",
                          ex_ring),
                     0);
    ASSERT_OUT("another running job uses the name");
}
END_TEST

/* Local rank 0 of an earlier job with the same key was killed before the others came.
 * With SHMC_MEMFD=0 its segment stays in /dev/shm; the next job with that key
 * recognises it and replaces it. By default nothing stays: the memory file and its
 * socket went with the process, and the next job simply runs. */
START_TEST(test_embed_stale_segment)
{
    char names[1024];
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "RANK=0 LOCAL_RANK=0 WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 SHMC_JOB_ID=memfd-$PPID "
             "SHMC_DEBUG=3 %s 2>&1 & pid=$!; "
             "sleep 0.3; kill -9 $pid; wait $pid",
             ex_ring);
    shmct_sh(cmd, out, sizeof out);
    ck_assert_msg(shmct_shm_segments(names, sizeof names) == shmct_shm_baseline,
                  "a killed rank of a default job left a name in /dev/shm: %s", out);
    ck_assert_msg(loop(2,
                       "RANK=%1$d LOCAL_RANK=%1$d WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 "
                       "SHMC_JOB_ID=memfd-$PPID",
                       ex_ring) == 0,
                  "%s", out);
    ASSERT_OUT("ring: every rank received its left neighbour's rank: ok");

    snprintf(cmd, sizeof cmd,
             "f=$(mktemp); RANK=0 LOCAL_RANK=0 WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 "
             "SHMC_JOB_ID=stale-$PPID SHMC_MEMFD=0 SHMC_DEBUG=4 %s 2>$f & pid=$!; "
             "n=; while kill -0 $pid && { [ -z \"$n\" ] || [ ! -e /dev/shm/$n ]; }; do sleep 0.01; "
             "n=$(sed -n 's|.*job key .* -> /\\(shmc-[^,]*\\),.*|\\1|p' $f); done; "
             "kill -9 $pid; wait $pid; rm -f $f; [ -e /dev/shm/$n ] && echo \"left $n\"",
             ex_ring);
    shmct_sh(cmd, out, sizeof out);
    /* Named from the rank's own debug line, not any shmc-<uid>-j name: a suite running
     * beside this one (make -j2 check) has embedded jobs of its own. */
    ASSERT_OUT("left shmc-");
    /* Same key (the test process is $PPID of both shells). */
    ck_assert_msg(loop(2,
                       "RANK=%1$d LOCAL_RANK=%1$d WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 "
                       "SHMC_JOB_ID=stale-$PPID SHMC_MEMFD=0",
                       ex_ring) == 0,
                  "%s", out);
    ASSERT_OUT("ring: every rank received its left neighbour's rank: ok");
}
END_TEST

/* No launcher watches these ranks: when one dies, the others find out by themselves. */
START_TEST(test_embed_peer_dies)
{
    char prog[1024];
    snprintf(prog, sizeof prog, "%s exit 0 2", fail_rank);
    ck_assert_msg(loop(3, TORCH(3), prog) == 0, "%s", out);
    ASSERT_OUT("rank 0: recv from rank 2: the peer process died or finalized");
    ASSERT_OUT("rank 1: recv from rank 2: the peer process died or finalized");
    snprintf(prog, sizeof prog, "%s signal 9 1", fail_rank);
    loop(2, TORCH(2), prog); /* rank 1's SIGKILL makes the shell fail */
    ASSERT_OUT("rank 0: recv from rank 1: the peer process died or finalized");
}
END_TEST

/* A process of a job still assembling dies: the creator of the shared memory (local rank
 * 0), or a rank that had joined. The ranks waiting for the rest say so at once and name
 * the right rank, where they used to wait for SHMC_ATTACH_TIMEOUT and blame the ranks not
 * yet started. Rank 2 of 3 never starts. Each step waits for the one before: a rank has
 * joined once its debug output says so. */
START_TEST(test_embed_dies_while_assembling)
{
    char cmd[2048];
    for (int victim = 0; victim < 2; victim++) {
        snprintf(cmd, sizeof cmd,
                 "export WORLD_SIZE=3 LOCAL_WORLD_SIZE=3 SHMC_JOB_ID=asm-%d-$$ "
                 "SHMC_ATTACH_TIMEOUT=60 SHMC_DEBUG=4; d=$(mktemp -d); "
                 "joined() { for i in $(seq 1200); do "
                 "grep -q \"rank $1 joined the job\" $d/$1 && return; sleep 0.05; done; }; "
                 "RANK=0 LOCAL_RANK=0 %s lib >$d/0 2>&1 & p0=$!; joined 0; "
                 "RANK=1 LOCAL_RANK=1 %s lib >$d/1 2>&1 & p1=$!; joined 1; "
                 "kill -9 $p%d; wait $p%d; wait $p%d; echo \"survivor status $?\"; "
                 "cat $d/0 $d/1; rm -rf $d",
                 victim, sleeper, sleeper, victim, victim, 1 - victim);
        shmct_sh(cmd, out, sizeof out);
        ASSERT_OUT("survivor status 1"); /* shmc_init failed; not 124 from timeout */
        if (victim == 0) {
            ASSERT_OUT("the process that created the job's shared memory (pid ");
        } else {
            ASSERT_OUT("rank 1 (pid ");
            ASSERT_OUT("joined the job but ended before every rank had joined");
        }
    }
}
END_TEST

/* The name a job started by another launcher uses: /shmc-UID-j<FNV-1a of its key>, as
 * lib/boot/launch.c derives it (SHMC_JOB_ID is the key when set). */
static void embedded_name(const char *key, char *buf, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *c = key; *c; c++) {
        h ^= (uint8_t)*c;
        h *= 0x100000001b3ull;
    }
    snprintf(buf, len, "/dev/shm/shmc-%u-j%016llx", (unsigned)geteuid(), (unsigned long long)h);
}

/* Someone put an object under the job's predictable name in /dev/shm first (a job told to
 * use /dev/shm, SHMC_MEMFD=0): a file open to all, one of another user, a FIFO, a
 * symbolic link. The job refuses it at once, naming what it is and whose, and leaves it
 * alone; the FIFO does not block anyone. */
START_TEST(test_embed_squatted_name)
{
    static const char *const make[] = {"touch %1$s; chmod 666 %1$s",
                                       "touch %1$s; chmod 600 %1$s; chown 4321 %1$s",
                                       "mkfifo -m 600 %1$s", "ln -s /etc/passwd %1$s"};
    static const char *const want[] = {"a file owned by uid", "owned by uid 4321", "a FIFO",
                                       "a symbolic link"};
    for (int k = 0; k < 4; k++) {
        if (k == 1 && geteuid() != 0)
            continue; /* only root can give a file to another user */
        char key[64], path[128], cmd[512];
        snprintf(key, sizeof key, "squat-%d-%d", k, (int)getpid());
        embedded_name(key, path, sizeof path);
        snprintf(cmd, sizeof cmd, make[k], path);
        ck_assert_int_eq(shmct_sh(cmd, out, sizeof out), 0);
        char vars[256];
        snprintf(vars, sizeof vars,
                 "RANK=%%1$d LOCAL_RANK=%%1$d WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 SHMC_JOB_ID=%s "
                 "SHMC_ATTACH_TIMEOUT=60 SHMC_MEMFD=0",
                 key);
        ck_assert_int_ne(loop(2, vars, ex_ring), 0);
        ASSERT_OUT("which no shmcomm job of this user");
        ASSERT_OUT(want[k]);
        struct stat st;
        ck_assert_msg(lstat(path, &st) == 0, "%s was removed", path);
        unlink(path);
    }
}
END_TEST

/* Someone listens on the job's socket name first (the default: the arena is handed out on
 * an abstract socket named from the job key). Another user's listener: local rank 0
 * refuses the name and rank 1 refuses what it offers, both naming its pid and uid, at
 * once. A socket of this user that is bound but answers nobody: rank 0 says so. Needs
 * python3 to make the sockets (and root to run one as another user). */
START_TEST(test_embed_squatted_socket)
{
    /* The system's python3, which another user may run (not one in root's home). */
    if (system("/usr/bin/python3 -c 'import socket' 2>/dev/null") != 0) {
        fprintf(stderr, "test_embed_squatted_socket: skipped (no /usr/bin/python3)\n");
        return;
    }
    for (int k = 0; k < 2; k++) {
        if (k == 0 && geteuid() != 0)
            continue; /* only root can listen as another user */
        char key[64], path[128], cmd[2048], vars[256];
        snprintf(key, sizeof key, "sock-%d-%d", k, (int)getpid());
        embedded_name(key, path, sizeof path);
        const char *name = path + strlen("/dev/shm/");
        snprintf(cmd, sizeof cmd,
                 "%s /usr/bin/python3 -c 'import socket, sys, time\n"
                 "s = socket.socket(socket.AF_UNIX)\n"
                 "s.bind(b\"\\0%s\")\n"
                 "%s\n"
                 "open(sys.argv[1], \"w\").close()\n"
                 "time.sleep(30)' /tmp/squat-ready-%d >/dev/null 2>&1 & sq=$!; "
                 "i=0; while [ ! -e /tmp/squat-ready-%d ] && [ $i -lt 1000 ]; do sleep 0.01; "
                 "i=$((i+1)); done; rm /tmp/squat-ready-%d || exit 1; echo $sq > /tmp/squat-pid-%d",
                 k == 0 ? "setpriv --reuid 4321 --regid 4321 --clear-groups" : "", name,
                 k == 0 ? "s.listen()" : "pass", (int)getpid(), (int)getpid(), (int)getpid(),
                 (int)getpid());
        ck_assert_msg(shmct_sh(cmd, out, sizeof out) == 0, "%s", out);
        snprintf(vars, sizeof vars,
                 "RANK=%%1$d LOCAL_RANK=%%1$d WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 SHMC_JOB_ID=%s "
                 "SHMC_ATTACH_TIMEOUT=3",
                 key);
        ck_assert_int_ne(loop(2, vars, ex_ring), 0);
        static char junk[256];
        snprintf(cmd, sizeof cmd, "kill $(cat /tmp/squat-pid-%d); rm -f /tmp/squat-pid-%d",
                 (int)getpid(), (int)getpid());
        shmct_sh(cmd, junk, sizeof junk);
        if (k == 0) {
            ASSERT_OUT("is held by pid ");
            ASSERT_OUT("of uid 4321, which no shmcomm job of this user");
            ASSERT_OUT("of uid 4321, not by this user");
            /* Both refused at once, not after SHMC_ATTACH_TIMEOUT. */
            ck_assert_msg(!strstr(out, "within 3 s"), "a rank waited for the time-out:\n%s", out);
        } else {
            ASSERT_OUT("is held by a socket that answers nobody");
        }
    }
}
END_TEST

static Suite *embed_suite(void)
{
    Suite *s = suite_create("embed");
    TCase *t = tcase_create("launchers");
    /* Every test ends with /dev/shm as it found it. */
    tcase_add_checked_fixture(t, setup, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_embed_torchrun_vars);
    tcase_add_test(t, test_embed_ompi_vars);
    tcase_add_test(t, test_embed_mpich_vars);
    tcase_add_test(t, test_embed_real_mpirun);
    tcase_add_test(t, test_embed_bad_environment);
    tcase_add_test(t, test_embed_incomplete_job);
    tcase_add_test(t, test_embed_stale_segment);
    tcase_add_test(t, test_embed_peer_dies);
    tcase_add_test(t, test_embed_dies_while_assembling);
    tcase_add_test(t, test_embed_squatted_name);
    tcase_add_test(t, test_embed_squatted_socket);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(embed_suite());
}
