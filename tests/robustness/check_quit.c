/*
 * The failure protocol of the collectives (docs/reliability.md, "A member fails inside a
 * collective"), from outside: jobs of tests/progs/coll_kill under shmrun --keep-going,
 * in which every rank loops on one collective with one algorithm forced and one member
 * fails at a moment drawn at random. Every survivor must come out of the collective with
 * an error (none waits for shmrun's --timeout), and then go on with the others on a
 * communicator made earlier without the failed member. Nothing may be left in /dev/shm.
 *
 * Each case is drawn from its index: the collective and algorithm, 3, 4 or 8 ranks, the
 * size (256 B, 64 KiB, 1 MiB per block), the victim and the moment (30-150 ms into the
 * loop); every fourth case runs on a communicator other than the world. A failing case
 * prints its command line, to run again by hand.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "coll_pairs.h"
#include "harness.h"

static char out[1 << 16];

/* Runs one case; mode is "kill", "sub" or "own". */
static void one_case(int n, struct pick p, size_t bytes, int victim, int delay, const char *mode)
{
    char prog[512], shmrun[512], cmd[2048], env[128];
    shmct_build_path("tests/progs/coll_kill", prog, sizeof prog);
    shmct_build_path("bin/shmrun", shmrun, sizeof shmrun);
    pick_env(p, env, sizeof env);
    snprintf(cmd, sizeof cmd, "%s%s -n %d --keep-going --timeout 30 %s %s %zu %d %d %s 2>&1", env,
             shmrun, n, prog, p.coll, bytes, victim, delay, mode);
    int st = shmct_sh(cmd, out, sizeof out);
    ck_assert_msg(!strstr(out, "--timeout"), "a survivor waited for --timeout: %s\n%s", cmd, out);
    ck_assert_msg(WIFEXITED(st), "shmrun did not exit: %s\n%s", cmd, out);
    int own = !strcmp(mode, "own");
    for (int r = 0; r < n; r++) {
        char want[64];
        if (r == victim)
            continue;
        /* Out of the loop with an error: the member's death, or (MODE own) what the
         * member saw, or the death of a member that left without failing. */
        snprintf(want, sizeof want, "fail %d ", r);
        const char *line = strstr(out, want);
        ck_assert_msg(line, "rank %d never came out of the collective: %s\n%s", r, cmd, out);
        int call, rc;
        ck_assert_int_eq(sscanf(line + strlen(want), "%d %d", &call, &rc), 2);
        ck_assert_msg(rc == SHMC_ERR_PEER_DEAD || (own && rc == SHMC_ERR_MISMATCH),
                      "rank %d returned %s: %s\n%s", r, shmc_strerror(rc), cmd, out);
        snprintf(want, sizeof want, "rest %d ok\n", r);
        ck_assert_msg(strstr(out, want), "rank %d could not go on without the failed one: %s\n%s",
                      r, cmd, out);
    }
}

START_TEST(test_quit_member_killed)
{
    static const int sizes[] = {3, 4, 8};
    static const size_t bytes[] = {256, 64 << 10, 1 << 20};
    int pairs = npairs(), i = _i;
    unsigned seed = (unsigned)i * 2654435761u;
    int n = sizes[(i / pairs) % 3];
    const char *mode = i % 4 == 3 ? "sub" : "kill";
    one_case(n, pick(i), bytes[(i + i / pairs) % 3], (int)(rand_r(&seed) % (unsigned)n),
             30 + (int)(rand_r(&seed) % 120), mode);
}
END_TEST

/* A member that fails its part of a collective on its own, alive (MODE own: the count
 * it passes is one short, which the algorithms below find on that member when a message
 * has the wrong size): every other member returns too. */
START_TEST(test_quit_member_fails_alone)
{
    static const struct pick cases[] = {
        {"allreduce", "ALLREDUCE", "ring"}, {"allreduce", "ALLREDUCE", "direct"},
        {"bcast", "BROADCAST", "tree"},     {"alltoall", "ALLTOALL", "tree"},
        {"allgather", "ALLGATHER", "ring"}, {"reduce_scatter", "REDUCE_SCATTER", "ring"},
    };
    int i = _i;
    one_case(3 + i % 2, cases[i % 6], 4096, 1, 40, "own");
    /* The member that failed did so itself. */
    ck_assert_msg(strstr(out, "fail 1 "), "%s", out);
}
END_TEST

static Suite *quit_suite(void)
{
    Suite *s = suite_create("quit");
    TCase *t = tcase_create("quit");
    tcase_set_timeout(t, 120);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_loop_test(t, test_quit_member_killed, 0, 3 * npairs());
    tcase_add_loop_test(t, test_quit_member_fails_alone, 0, 6);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(quit_suite());
}
