/*
 * The examples, run as a user would: under shmrun at 2, 3, 4, 8 and 16 ranks (16 is
 * eight ranks per core here). Each example checks its own result and exits non-zero if
 * it is wrong.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "harness.h"

static const char *const examples[] = {
    "pingpong",    "pipeline",        "ring",           "chunked",       "bidir",
    "overlap",     "model_parallel",  "coll_broadcast", "coll_reduce",   "coll_allreduce",
    "coll_gather", "coll_allgather",  "coll_scatter",   "coll_alltoall", "coll_barrier",
    "coll_group",  "window_histogram"};
#define NEX (int)(sizeof examples / sizeof examples[0])
static const int counts[] = {2, 3, 4, 8, 16};

START_TEST(test_examples_run)
{
    char shmrun[512], prog[512], cmd[2048], out[16384], rel[128];
    shmct_build_path("bin/shmrun", shmrun, sizeof shmrun);
    snprintf(rel, sizeof rel, "examples/%s", examples[_i]);
    shmct_build_path(rel, prog, sizeof prog);
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        snprintf(cmd, sizeof cmd, "%s -n %d %s 2>&1", shmrun, counts[k], prog);
        int st = shmct_sh(cmd, out, sizeof out);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s at -n %d failed (%d):\n%s",
                      examples[_i], counts[k], st, out);
        ck_assert_msg(strstr(out, ": ok") && !strstr(out, "WRONG"), "%s at -n %d:\n%s",
                      examples[_i], counts[k], out);
    }
}
END_TEST

/* Each example at 2 ranks under valgrind's memcheck: no invalid access, no use of
 * uninitialised memory, no definite leak (the library marks what peers wrote into a
 * rank's buffers as defined, lib/base/memcheck.h). Skipped where valgrind is missing. */
START_TEST(test_examples_memcheck)
{
    char shmrun[512], prog[512], cmd[2048], out[16384], rel[128];
    /* valgrind cannot run a program built with a sanitizer (SHMC_TEST_SAN names it). */
    const char *san = getenv("SHMC_TEST_SAN");
    if (san && *san) {
        if (_i == 0)
            fprintf(stderr, "test_examples_memcheck: skipped (built with SAN=%s)\n", san);
        return;
    }
    if (shmct_sh("valgrind --version >/dev/null 2>&1", out, sizeof out) != 0) {
        if (_i == 0)
            fprintf(stderr, "test_examples_memcheck: skipped (no valgrind)\n");
        return;
    }
    shmct_build_path("bin/shmrun", shmrun, sizeof shmrun);
    snprintf(rel, sizeof rel, "examples/%s", examples[_i]);
    shmct_build_path(rel, prog, sizeof prog);
    snprintf(cmd, sizeof cmd,
             "%s -n 2 valgrind -q --error-exitcode=9 --leak-check=full "
             "--errors-for-leak-kinds=definite %s 2>&1",
             shmrun, prog);
    int st = shmct_sh(cmd, out, sizeof out);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0 && !strstr(out, "=="),
                  "%s under memcheck (%d):\n%s", examples[_i], st, out);
}
END_TEST

/* Started alone, an example is a job of one rank and says it needs more. */
START_TEST(test_examples_alone)
{
    char prog[512], cmd[1024], out[4096];
    shmct_build_path("examples/ring", prog, sizeof prog);
    snprintf(cmd, sizeof cmd, "%s 2>&1", prog);
    int st = shmct_sh(cmd, out, sizeof out);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    ck_assert_msg(strstr(out, "needs at least 2 ranks"), "%s", out);
}
END_TEST

static Suite *examples_suite(void)
{
    Suite *s = suite_create("examples");
    TCase *t = tcase_create("shmrun");
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_examples_run, 0, NEX);
    tcase_add_loop_test(t, test_examples_memcheck, 0, NEX);
    tcase_add_test(t, test_examples_alone);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(examples_suite());
}
