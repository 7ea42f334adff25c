/*
 * Out of memory while communicators are made: shmc_comm_split and shmc_comm_create_group
 * with one rank's malloc failing (refuse_malloc.h) return SHMC_ERR_NOMEM on every rank,
 * and no rank is left with the new communicator; the parent, and a later split, work.
 *
 * Out of memory as a nonblocking collective starts: the start returns SHMC_ERR_NOMEM on
 * that rank alone, and the members, which started the same call, end it with an error
 * instead of waiting for its messages for ever (shmc_comm_idup's too); the communicator's
 * collectives stay quit, its point-to-point and the parent work; a communicator of one
 * stays usable.
 *
 * The library's own rules for memory inside calls are unit tests of the modules that keep
 * them: a queued control record needs none (tests/unit/check_outq.c), and a collective
 * never allocates once its data moves (tests/unit/check_scratch.c).
 */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "refuse_malloc.h"

/* One rank (arg: which) out of memory during each way of making a communicator. */
static void comm_creation(shmc_comm *w, int me, int n, void *arg)
{
    int poor = *(const int *)arg;
    shmc_comm *c = NULL;
    static const int pair[] = {0, 1};
    for (int round = 0; round < 3; round++) {
        unsigned before = refused;
        refuse = me == poor;
        int rc = round == 0   ? shmc_comm_split(w, me % 2, me, &c)
                 : round == 1 ? shmc_comm_split(w, me == 0 ? -1 : 0, 0, &c)
                              : shmc_comm_create_group(w, pair, 2, &c);
        refuse = 0;
        T_ASSERT(me != poor || refused > before, "round %d: nothing was refused", round);
        T_CALL(SHMC_ERR_NOMEM, rc);
        T_ASSERT(c == NULL && shmct_stat("comms") == 0, "round %d: a communicator was left", round);
        /* The parent still works, and so does the next attempt. */
        int one = 1, sum = 0;
        T_OK(shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, w));
        T_ASSERT(sum == n, "round %d: sum %d", round, sum);
        T_OK(shmc_comm_split(w, me % 2, me, &c));
        T_ASSERT(shmc_comm_size(c) == (n + 1 - me % 2) / 2, "round %d: size", round);
        T_OK(shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, c));
        T_ASSERT(sum == shmc_comm_size(c), "round %d: sum on the new one %d", round, sum);
        T_OK(shmc_comm_free(&c));
    }
}

/* Runs fn in a job of 3 ranks once for each rank as the poor one (fn's arg). */
static void each_poor(const char *test, shmct_fn fn)
{
    if (SANITIZED) {
        fprintf(stderr, "%s: skipped under a sanitizer\n", test);
        return;
    }
    for (int poor = 0; poor < 3; poor++)
        ck_assert_int_eq(shmct_run(3, fn, &poor), 0);
}

START_TEST(test_oom_comm_creation)
{
    each_poor("test_oom_comm_creation", comm_creation);
}
END_TEST

/* The nonblocking calls of nb_oom, each on a communicator split off the world (made as
 * schedules of messages). */
enum { NB_ALLREDUCE, NB_ALLGATHERV, NB_ALLTOALLV, NB_SCAN, NB_CALLS };

static int nb_start(int call, shmc_comm *c, int me, int n, shmc_request **r)
{
    static int32_t in[64 * 16], out[64 * 16];
    size_t counts[16], displs[16];
    for (int q = 0; q < n; q++) {
        counts[q] = 64;
        displs[q] = (size_t)q * 64;
    }
    for (int i = 0; i < 64 * n; i++)
        in[i] = me + i;
    switch (call) {
    case NB_ALLREDUCE:
        return shmc_iallreduce(in, out, 64, SHMC_INT32, SHMC_SUM, c, r);
    case NB_ALLGATHERV:
        return shmc_iallgatherv(in, 64, out, counts, displs, SHMC_INT32, c, r);
    case NB_ALLTOALLV:
        return shmc_ialltoallv(in, counts, displs, out, counts, displs, SHMC_INT32, c, r);
    default:
        return shmc_iscan(in, out, 64, SHMC_INT32, SHMC_SUM, c, r);
    }
}

/* Call `call` started with rc on c and request *r, the poor rank out of memory as it
 * started it: the poor rank's start failed, the members' waits do with a member gone
 * (but a rank whose part needs nothing of the poor one, may_end), and c's collectives
 * stay quit. */
static void stays_quit(int call, shmc_comm *c, int me);

static void ended_by_poor(int call, int rc, shmc_request **r, shmc_comm *c, int me, int poor,
                          unsigned refusals, int may_end)
{
    if (me == poor) {
        T_ASSERT(refusals > 0, "call %d: nothing was refused", call);
        T_CALL(SHMC_ERR_NOMEM, rc);
        T_ASSERT(*r == NULL, "call %d: a request after SHMC_ERR_NOMEM", call);
    } else {
        T_OK(rc);
        rc = shmc_wait(r, NULL);
        T_ASSERT(rc == SHMC_ERR_PEER_DEAD || (rc == SHMC_OK && may_end),
                 "call %d: the wait returned %d, not SHMC_ERR_PEER_DEAD", call, rc);
    }
    stays_quit(call, c, me);
}

/* After a quit: c's collectives fail, its point-to-point works. */
static void stays_quit(int call, shmc_comm *c, int me)
{
    T_ASSERT(shmc_barrier(c) != SHMC_OK, "call %d: a barrier after the quit", call);
    /* Its point-to-point works: a token round the ranks. */
    int n = shmc_comm_size(c), token = 0;
    if (me > 0)
        T_OK(shmc_recv(&token, 1, SHMC_INT32, me - 1, call, c, NULL));
    token += me;
    T_OK(shmc_send(&token, 1, SHMC_INT32, (me + 1) % n, call, c));
    if (me == 0) {
        T_OK(shmc_recv(&token, 1, SHMC_INT32, n - 1, call, c, NULL));
        T_ASSERT(token == n * (n - 1) / 2, "call %d: token %d", call, token);
    }
}

/* One rank (arg: which) out of memory as it starts each call, on a communicator of its
 * own; then as it starts a duplicate; then alone on a communicator of one; then on the
 * world, as the first call its lane queues. */
static void nb_oom(shmc_comm *w, int me, int n, void *arg)
{
    int poor = *(const int *)arg;
    shmc_request *r = NULL;
    for (int call = 0; call < NB_CALLS; call++) {
        shmc_comm *c = NULL;
        T_OK(shmc_comm_split(w, 0, me, &c));
        unsigned before = refused;
        refuse = me == poor;
        int rc = nb_start(call, c, me, n, &r);
        refuse = 0;
        /* (a scan's rank before the poor one needs nothing of it) */
        ended_by_poor(call, rc, &r, c, me, poor, refused - before, call == NB_SCAN && me < poor);
        int one = 1, sum = 0;
        T_OK(shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, w));
        T_ASSERT(sum == n, "call %d: sum %d", call, sum);
        T_OK(shmc_comm_free(&c));
    }
    /* A duplicate started (its members' agreement waits for the poor rank). */
    shmc_comm *c = NULL, *dup = NULL;
    T_OK(shmc_comm_split(w, 0, me, &c));
    unsigned before = refused;
    refuse = me == poor;
    int rc = shmc_comm_idup(c, &dup, &r);
    refuse = 0;
    ended_by_poor(NB_CALLS, rc, &r, c, me, poor, refused - before, 0);
    T_ASSERT(dup == NULL, "a duplicate was made");
    T_OK(shmc_comm_free(&c));
    /* A communicator of one: nobody waits for it, it stays usable. */
    int32_t one = 1, got = 0;
    T_OK(shmc_comm_split(w, me, 0, &c));
    before = refused;
    refuse = me == poor;
    rc = shmc_iallreduce(&one, &got, 1, SHMC_INT32, SHMC_SUM, c, &r);
    refuse = 0;
    T_ASSERT(me != poor || refused > before, "alone: nothing was refused");
    T_CALL(me == poor ? SHMC_ERR_NOMEM : SHMC_OK, rc);
    if (r)
        T_OK(shmc_wait(&r, NULL));
    T_OK(shmc_iallreduce(&one, &got, 1, SHMC_INT32, SHMC_SUM, c, &r));
    T_OK(shmc_wait(&r, NULL));
    T_ASSERT(got == 1, "alone: got %d", got);
    T_OK(shmc_barrier(c));
    T_OK(shmc_comm_free(&c));
    /* The world's lane. */
    static int32_t in[1 << 14], out[1 << 14];
    before = refused;
    refuse = me == poor;
    rc = shmc_iallreduce(in, out, 1 << 14, SHMC_INT32, SHMC_SUM, w, &r);
    refuse = 0;
    ended_by_poor(NB_CALLS + 1, rc, &r, w, me, poor, refused - before, 0);
}

START_TEST(test_oom_nonblocking)
{
    each_poor("test_oom_nonblocking", nb_oom);
}
END_TEST

/* shmc_coll_quit, a layer above's way out (arg: the rank that takes it): on a
 * communicator of its own it quits instead of starting the all-reduce the members start,
 * and they end theirs with SHMC_ERR_PEER_DEAD, whether their start already saw the quit
 * (a request ended as it was made) or the wait does; the waits ask for a status. Its own
 * later collectives there return the reason. Wrong arguments are refused; a communicator
 * of one stays usable. */
static void quit_api(shmc_comm *w, int me, int n, void *arg)
{
    int poor = *(int *)arg;
    shmc_comm *c = NULL, *alone = NULL;
    T_OK(shmc_comm_split(w, 0, me, &c));
    T_CALL(SHMC_ERR_ARG, shmc_coll_quit(c, SHMC_OK));
    T_CALL(SHMC_ERR_ARG, shmc_coll_quit(c, 7));
    T_CALL(SHMC_ERR_ARG, shmc_coll_quit(NULL, SHMC_ERR_NOMEM));
    int in[4] = {me, me, me, me}, out[4];
    if (me == poor) {
        T_OK(shmc_coll_quit(c, SHMC_ERR_NOMEM));
        T_CALL(SHMC_ERR_NOMEM, shmc_allreduce(in, out, 4, SHMC_INT32, SHMC_SUM, c));
    } else {
        shmc_request *r = NULL;
        shmc_status st;
        T_OK(shmc_iallreduce(in, out, 4, SHMC_INT32, SHMC_SUM, c, &r));
        T_CALL(SHMC_ERR_PEER_DEAD, shmc_wait(&r, &st));
        T_ASSERT(st.error == SHMC_ERR_PEER_DEAD, "the status says %d", st.error);
    }
    stays_quit(0, c, me);
    T_OK(shmc_comm_split(w, me, 0, &alone));
    T_OK(shmc_coll_quit(alone, SHMC_ERR_NOMEM));
    T_OK(shmc_allreduce(in, out, 4, SHMC_INT32, SHMC_SUM, alone));
    int one = 1, sum = 0;
    T_OK(shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, w));
    T_ASSERT(sum == n, "sum %d", sum);
    T_OK(shmc_comm_free(&alone));
    T_OK(shmc_comm_free(&c));
}

START_TEST(test_coll_quit)
{
    for (int poor = 0; poor < 3; poor++)
        ck_assert_int_eq(shmct_run(3, quit_api, &poor), 0);
}
END_TEST

static Suite *oom_suite(void)
{
    Suite *s = suite_create("oom");
    TCase *t = tcase_create("malloc");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_oom_comm_creation);
    tcase_add_test(t, test_oom_nonblocking);
    tcase_add_test(t, test_coll_quit);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(oom_suite());
}
