/*
 * Jobs where /dev/shm is as containers leave it: 64 MiB (Docker's default), or not there
 * at all. 64 ranks started by shmrun, from a shell loop with torchrun's variables, by
 * Open MPI's mpirun and by MPICH's mpiexec (when installed) must run in both, since by
 * default the job's memory is a memory file handed to the ranks as a descriptor and
 * never has a name in /dev/shm (docs/design.md, "The arena"); nothing may be left in the
 * small /dev/shm. A job told to use /dev/shm (SHMC_MEMFD=0) does not fit 64 MiB at 64
 * ranks and says so. Each job runs in a private mount namespace made by
 * tests/launcher/private_dev.sh; without root the tests are skipped, saying so.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define RANKS 64

static char ring[512], shmrun[512], script[600];
static char out[1 << 17];

static void setup(void)
{
    shmct_build_path("examples/ring", ring, sizeof ring);
    shmct_build_path("bin/shmrun", shmrun, sizeof shmrun);
    snprintf(script, sizeof script, "%s/tests/launcher/private_dev.sh", SHMC_SRC_DIR);
    shmct_shm_snapshot();
}

#define ASSERT_OUT(substr) SHMCT_ASSERT_CONTAINS(out, substr)

static const char *const launchers[] = {"shmrun", "torchrun", "openmpi", "mpich"};

/* The command that starts RANKS ranks of the ring example with launcher k, or NULL if
 * that launcher is not installed. */
static const char *command(int k, const char *env, char *buf, size_t len)
{
    switch (k) {
    case 0:
        snprintf(buf, len, "%s %s -n %d %s", env, shmrun, RANKS, ring);
        return buf;
    case 1:
        snprintf(buf, len,
                 "for r in $(seq 0 %d); do %s RANK=$r LOCAL_RANK=$r WORLD_SIZE=%d "
                 "LOCAL_WORLD_SIZE=%d MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 "
                 "TORCHELASTIC_RUN_ID=noshm-$$ %s & done; wait",
                 RANKS - 1, env, RANKS, RANKS, ring);
        return buf;
    case 2:
        if (access("/usr/bin/mpirun.openmpi", X_OK) != 0)
            return NULL;
        snprintf(buf, len, "%s mpirun.openmpi --oversubscribe --allow-run-as-root -n %d %s", env,
                 RANKS, ring);
        return buf;
    default:
        if (access("/usr/bin/mpiexec.mpich", X_OK) != 0)
            return NULL;
        snprintf(buf, len, "%s mpiexec.mpich -n %d %s", env, RANKS, ring);
        return buf;
    }
}

/* Runs cmd where /dev/shm is `mode` (small or none); 0 if it could, -1 if not (no root:
 * the caller skips). */
static int run_in(const char *mode, const char *cmd)
{
    char full[4096];
    snprintf(full, sizeof full, "timeout -k 5 120 %s %s sh -c '%s' 2>&1; echo status=$?", script,
             mode, cmd);
    shmct_sh(full, out, sizeof out);
    return strstr(out, "status=77\n") ? -1 : 0;
}

static void one(int k, const char *mode)
{
    char cmd[2048];
    if (!command(k, "", cmd, sizeof cmd)) {
        fprintf(stderr, "check_noshm: %s not installed; its jobs skipped\n", launchers[k]);
        return;
    }
    if (run_in(mode, cmd) < 0) {
        fprintf(stderr, "check_noshm: skipped (a private mount namespace needs root)\n");
        return;
    }
    ck_assert_msg(strstr(out, "ring: every rank received its left neighbour's rank: ok") &&
                      strstr(out, "status=0\n"),
                  "%d ranks by %s with /dev/shm %s: %s\n%s", RANKS, launchers[k], mode, cmd, shmct_tail(out));
    if (!strcmp(mode, "small"))
        ck_assert_msg(strstr(out, "dev/shm entries: 0\n"), "%s left something in /dev/shm:\n%s",
                      launchers[k], shmct_tail(out));
}

START_TEST(test_noshm_64mb)
{
    one(_i, "small");
}
END_TEST

START_TEST(test_noshm_missing)
{
    one(_i, "none");
}
END_TEST

/* Told to use /dev/shm, the same 64 ranks do not fit 64 MiB: refused at start with both
 * sizes and the way out, never a SIGBUS later. */
START_TEST(test_noshm_named_too_small)
{
    char cmd[2048];
    command(_i, "SHMC_MEMFD=0 SHMC_ATTACH_TIMEOUT=3", cmd, sizeof cmd);
    if (run_in("small", cmd) < 0)
        return;
    ASSERT_OUT("MiB of shared memory, /dev/shm has ");
    ASSERT_OUT("or unset SHMC_MEMFD=0 (by default the job's memory is outside /dev/shm)");
    ck_assert_msg(!strstr(out, "ring: every rank received"), "the job should have failed:\n%s",
                  shmct_tail(out));
}
END_TEST

static Suite *noshm_suite(void)
{
    Suite *s = suite_create("noshm");
    TCase *t = tcase_create("containers");
    tcase_add_checked_fixture(t, setup, shmct_shm_verify);
    tcase_set_timeout(t, 300);
    tcase_add_loop_test(t, test_noshm_64mb, 0, 4);
    tcase_add_loop_test(t, test_noshm_missing, 0, 4);
    tcase_add_loop_test(t, test_noshm_named_too_small, 0, 2);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(noshm_suite());
}
