/*
 * The arena overwritten from outside while a job works (tests/progs/scribble): random
 * bytes over each region in turn (header, control blocks, mailboxes, collective slots,
 * world-sync blocks, copy descriptors, slot entries, anywhere) and zeros over all of it, under
 * shmrun (which is asked for a hang report with SIGUSR1 while it happens) and in a job started by a
 * shell loop with torchrun's variables, and with every rank working on the world while a child of
 * one scribbles. No rank and no launcher may die by a fault (SIGSEGV, SIGBUS, SIGABRT, SIGFPE,
 * SIGILL); every call returns SHMC_OK or an error that says what happened (the program checks
 * that); every job ends, by itself or by SHMC_TIMEOUT; nothing is left in /dev/shm.
 *
 * One second per region in make check; SHMC_STRESS=1 (make check-stress) makes it
 * SHMC_STRESS_SECONDS (10 unless set) per region, with a different garbage per mode.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

static const char *const regions[] = {"header", "cbs",     "rings", "slots", "wsync",
                                      "xdesc",  "entries", "all",   "zero"};
enum { NREGIONS = sizeof regions / sizeof *regions };

static int seconds(void)
{
    const char *s = getenv("SHMC_STRESS");
    if (!s || *s != '1')
        return 1;
    const char *t = getenv("SHMC_STRESS_SECONDS");
    return t && atoi(t) > 0 ? atoi(t) : 10;
}

/* Fails the test if out shows a rank or the launcher ended by a fault, or a sanitizer's
 * report. */
static void no_fault(const char *out, const char *what)
{
    static const char *const faults[] = {"signal 11", "signal 7", "signal 6", "signal 8",
                                         "signal 4", "status 139", "status 135", "status 134",
                                         "status 136", "status 132", "unexpected",
                                         /* (a build with SAN=address or thread) */
                                         "Sanitizer", "runtime error"};
    for (size_t i = 0; i < sizeof faults / sizeof *faults; i++)
        ck_assert_msg(!strstr(out, faults[i]), "%s: '%s' in the output, which ends:\n%s", what,
                      faults[i], shmct_tail(out));
}

START_TEST(test_scribble_under_shmrun)
{
    const char *region = regions[_i];
    char shmrun[512], prog[512], cmd[2048], out[65536];
    shmct_build_path("bin/shmrun", shmrun, sizeof shmrun);
    shmct_build_path("tests/progs/scribble", prog, sizeof prog);
    int secs = seconds();
    /* Three SIGUSR1 while the scribbler works: the report reads the control blocks. */
    snprintf(cmd, sizeof cmd,
             "SHMC_TIMEOUT=3 %s --timeout 60 -n 4 %s %s %d %d & pid=$!; "
             "for k in 1 2 3; do sleep 0.%d; kill -USR1 $pid 2>/dev/null; done; "
             "wait $pid; echo \"shmrun status $?\"",
             shmrun, prog, region, secs, 1000 + _i, 2 + secs);
    int st = shmct_sh(cmd, out, sizeof out);
    ck_assert(WIFEXITED(st));
    no_fault(out, region);
    ck_assert_msg(strstr(out, "shmrun status "), "no status from shmrun:\n%s", shmct_tail(out));
}
END_TEST

/* The same with every rank on the world (scribble's `world`: a child of rank 0 scribbles),
 * whose own rounds and nonblocking lane a split communicator never uses. */
START_TEST(test_scribble_world)
{
    const char *region = regions[_i];
    char shmrun[512], prog[512], cmd[2048], out[65536];
    shmct_build_path("bin/shmrun", shmrun, sizeof shmrun);
    shmct_build_path("tests/progs/scribble", prog, sizeof prog);
    snprintf(cmd, sizeof cmd,
             "SHMC_TIMEOUT=3 %s --timeout 60 -n 4 %s %s %d %d world; echo \"shmrun status $?\"",
             shmrun, prog, region, seconds(), 3000 + _i);
    int st = shmct_sh(cmd, out, sizeof out);
    ck_assert(WIFEXITED(st));
    no_fault(out, region);
    ck_assert_msg(strstr(out, "shmrun status "), "no status from shmrun:\n%s", shmct_tail(out));
    ck_assert_msg(!strstr(out, "ran longer than --timeout"), "%s: ended by shmrun's time-out:\n%s",
                  region, shmct_tail(out));
}
END_TEST

START_TEST(test_scribble_without_launcher)
{
    const char *region = regions[_i];
    char prog[512], cmd[2048], out[65536];
    shmct_build_path("tests/progs/scribble", prog, sizeof prog);
    int secs = seconds();
    snprintf(cmd, sizeof cmd,
             "export WORLD_SIZE=4 LOCAL_WORLD_SIZE=4 SHMC_TIMEOUT=3 SHMC_ATTACH_TIMEOUT=20 "
             "SHMC_JOB_ID=scribble-%d-$$; "
             "for r in 0 1 2 3; do RANK=$r LOCAL_RANK=$r %s %s %d %d & pids=\"$pids $!\"; "
             "done; for j in $pids; do wait $j; echo \"rank status $?\"; done",
             _i, prog, region, secs, 2000 + _i);
    int st = shmct_sh(cmd, out, sizeof out);
    ck_assert(WIFEXITED(st));
    no_fault(out, region);
    int statuses = 0;
    for (const char *p = out; (p = strstr(p, "rank status ")); p += 12)
        statuses++;
    ck_assert_msg(statuses == 4, "%d of 4 ranks reported a status:\n%s", statuses, shmct_tail(out));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("scribble");
    TCase *t = tcase_create("scribble");
    tcase_set_timeout(t, 120 + 4 * seconds());
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_loop_test(t, test_scribble_under_shmrun, 0, NREGIONS);
    tcase_add_loop_test(t, test_scribble_without_launcher, 0, NREGIONS);
    tcase_add_loop_test(t, test_scribble_world, 0, NREGIONS);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
