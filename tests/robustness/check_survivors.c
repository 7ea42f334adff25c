/*
 * Every survivor of a collective learns of a member's death by itself, whatever the other
 * survivors do next (docs/reliability.md, "A member fails inside a collective"). Jobs of
 * tests/progs/coll_kill in its idle mode under shmrun --keep-going: every rank loops on one
 * collective with one algorithm forced, one member is killed at a moment drawn at random,
 * and each survivor, once it has its error, stays out of the library for a while
 * (COLL_KILL_IDLE_MS). A survivor that could return only when another survivor called
 * the library again would return after that one came back: the test fails if any
 * survivor's return comes after another survivor's "back", if one does not return with
 * SHMC_ERR_PEER_DEAD, or if it cannot go on with the others afterwards.
 *
 * Each case is drawn from its index: the (collective, algorithm) pair cycles through all of
 * them, the ranks (3, 4, 8) and the size per block (256 B, 1 MiB, 4 MiB; 16 MiB too with
 * SHMC_STRESS) turn with it, the victim and the moment (30-330 ms into the loop) are
 * drawn; every fourth case runs on a communicator other than the world, and every fifth
 * is started torchrun-style by a shell loop, with no launcher watching the ranks. make
 * check runs one case per pair with survivors idle 600 ms; make check-stress
 * (SHMC_STRESS=1) runs 200 with 1 s.
 *
 * How long each survivor took after the death became visible (its process ended, as a
 * watcher thread in each survivor sees through a pidfd; the earliest of their readings)
 * is appended to the file SHMC_SURVIVOR_LOG names, one line per case: the figures for
 * docs/reliability.md, which make check-stress summarises. They are measured, not
 * asserted.
 */
/* check: alone */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "coll_pairs.h"
#include "harness.h"

static int stress(void)
{
    const char *e = getenv("SHMC_STRESS");
    return e && *e && strcmp(e, "0");
}

static char out[1 << 17];

/* What a job printed: per rank, when it came out of the collective and with what, when
 * it called the library again, when its watcher saw the victim end. */
struct job {
    double die, ret[16], back[16], seen[16];
    int rc[16], rest_ok[16], have_ret[16], have_back[16];
};

static void parse(const char *text, struct job *j)
{
    memset(j, 0, sizeof *j);
    j->die = -1;
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        int r, call, rc;
        double t, s;
        if (sscanf(l, "die %lf", &t) == 1)
            j->die = t;
        else if (sscanf(l, "fail %d %d %d %lf", &r, &call, &rc, &t) == 4 && r >= 0 && r < 16) {
            j->ret[r] = t;
            j->rc[r] = rc;
            j->have_ret[r] = 1;
        } else if (sscanf(l, "back %d %lf %lf", &r, &t, &s) == 3 && r >= 0 && r < 16) {
            j->back[r] = t;
            j->seen[r] = s;
            j->have_back[r] = 1;
        } else if (sscanf(l, "rest %d ok", &r) == 1 && r >= 0 && r < 16) {
            j->rest_ok[r] = 1;
        }
    }
}

static void one_case(int index)
{
    static const int sizes[] = {3, 4, 8};
    static const size_t bytes_all[] = {256, 1 << 20, 4 << 20, 16 << 20};
    int pairs = npairs(), nbytes = stress() ? 4 : 3;
    unsigned seed = (unsigned)index * 2654435761u + 12345u;
    struct pick p = pick(index);
    int n = sizes[(index + index / pairs) % 3];
    size_t bytes = bytes_all[(index / 3 + index / pairs) % nbytes];
    int victim = (int)(rand_r(&seed) % (unsigned)n), delay = 30 + (int)(rand_r(&seed) % 300);
    const char *mode = index % 4 == 3 ? "subidle" : "idle";
    int idle_ms = stress() ? 1000 : 600;

    char prog[512], shmrun[512], cmd[2048], env[128];
    shmct_build_path("tests/progs/coll_kill", prog, sizeof prog);
    shmct_build_path("bin/shmrun", shmrun, sizeof shmrun);
    pick_env(p, env, sizeof env);
    if (index % 5 == 4)
        /* No launcher watching: the ranks started torchrun-style by a shell loop, so each
         * survivor finds the death with its own liveness probe. */
        snprintf(cmd, sizeof cmd,
                 "timeout -k 5 60 sh -c 'for r in $(seq 0 %d); do %sCOLL_KILL_IDLE_MS=%d "
                 "RANK=$r LOCAL_RANK=$r WORLD_SIZE=%d LOCAL_WORLD_SIZE=%d "
                 "MASTER_ADDR=127.0.0.1 MASTER_PORT=29555 TORCHELASTIC_RUN_ID=surv-%d-$$ "
                 "%s %s %zu %d %d %s & done; wait' 2>&1",
                 n - 1, env, idle_ms, n, n, index, prog, p.coll, bytes, victim, delay, mode);
    else
        snprintf(cmd, sizeof cmd,
                 "%sCOLL_KILL_IDLE_MS=%d %s -n %d --keep-going --timeout 60 %s %s %zu %d %d %s "
                 "2>&1",
                 env, idle_ms, shmrun, n, prog, p.coll, bytes, victim, delay, mode);
    int st = shmct_sh(cmd, out, sizeof out);
    ck_assert_msg(!strstr(out, "--timeout"), "a survivor waited for --timeout: %s\n%s", cmd, out);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) != 124, "the job did not end: %s\n%s", cmd,
                  out);

    struct job j;
    parse(out, &j);
    double visible = -1, worst = -1e9;
    for (int r = 0; r < n; r++)
        if (r != victim && j.have_back[r] && j.seen[r] > 0 && (visible < 0 || j.seen[r] < visible))
            visible = j.seen[r];
    for (int r = 0; r < n; r++) {
        if (r == victim)
            continue;
        ck_assert_msg(j.have_ret[r], "rank %d never came out of the collective: %s\n%s", r, cmd,
                      out);
        ck_assert_msg(j.rc[r] == SHMC_ERR_PEER_DEAD, "rank %d returned %s: %s\n%s", r,
                      shmc_strerror(j.rc[r]), cmd, out);
        /* By itself: before any other survivor was back in the library. */
        for (int q = 0; q < n; q++)
            ck_assert_msg(q == victim || q == r || !j.have_back[q] || j.ret[r] < j.back[q],
                          "rank %d came out of the collective only after rank %d called the "
                          "library again: %s\n%s",
                          r, q, cmd, out);
        ck_assert_msg(j.rest_ok[r], "rank %d could not go on without the failed one: %s\n%s", r,
                      cmd, out);
        if (visible > 0 && j.ret[r] - visible > worst)
            worst = j.ret[r] - visible;
    }
    const char *log = getenv("SHMC_SURVIVOR_LOG");
    FILE *f = log ? fopen(log, "a") : NULL;
    if (f) {
        /* case, collective, algorithm, ranks, bytes, the death visible after the kill,
         * the last survivor's return after the death was visible (ms) */
        fprintf(f, "%d %s %s %d %zu %.3f %.3f\n", index, p.coll, p.algo, n, bytes,
                visible > 0 && j.die > 0 ? visible - j.die : -1, worst);
        fclose(f);
    }
}

START_TEST(test_survivors_alone)
{
    one_case(_i);
}
END_TEST

static Suite *survivors_suite(void)
{
    Suite *s = suite_create("survivors");
    TCase *t = tcase_create("survivors");
    tcase_set_timeout(t, 120);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_loop_test(t, test_survivors_alone, 0, stress() ? 200 : npairs());
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(survivors_suite());
}
