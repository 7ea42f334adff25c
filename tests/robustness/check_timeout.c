/*
 * shmc_comm_set_timeout: a collective whose member comes too late returns
 * SHMC_ERR_TIMEOUT (or, on a member that learns of the quit first, the quit's error) and
 * never hangs; the late member then fails too; point-to-point on the communicator still
 * works. A wait that times out leaves its request pending and a later wait completes it
 * with the data. Communicators made later inherit the bound. No assertion about how long
 * anything took: only about what each call returned.
 */
#include <check.h>
#include <string.h>

#include "harness.h"

static void late_member(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, me, &c));
    T_OK(shmc_comm_set_timeout(c, 200));
    int one = 1, sum = 0, token = 0;
    if (me == n - 1) /* late: only once every other rank has given up (the world's sends are
                      * not bounded) */
        for (int q = 0; q < n - 1; q++)
            T_OK(shmc_recv(&token, 1, SHMC_INT32, q, 8, w, NULL));
    int rc = shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, c);
    T_ASSERT(rc != SHMC_OK, "rank %d: the all-reduce with a late member succeeded", me);
    if (me != n - 1) {
        T_ASSERT(rc == SHMC_ERR_TIMEOUT || rc == SHMC_ERR_PEER_DEAD, "rank %d got %d (%s)", me, rc,
                 shmc_strerror(rc));
        T_OK(shmc_send(&token, 1, SHMC_INT32, n - 1, 8, w));
    }
    /* The communicator's collectives stay failed; its point-to-point works. */
    T_ASSERT(shmc_barrier(c) != SHMC_OK, "rank %d: a barrier after the time-out", me);
    int got = -1, mine = me;
    T_OK(shmc_sendrecv(&mine, 1, (me + 1) % n, 0, &got, 1, (me + n - 1) % n, 0, SHMC_INT32, c,
                       NULL));
    T_ASSERT(got == (me + n - 1) % n, "ring after the time-out: %d", got);
    T_OK(shmc_comm_free(&c));
    /* The world was not touched. */
    T_OK(shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, w));
    T_ASSERT(sum == n, "the world: %d", sum);
}

START_TEST(test_timeout_collective)
{
    ck_assert_int_eq(shmct_run(3, late_member, NULL), 0);
}
END_TEST

static void wait_again(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    shmc_comm *c;
    /* The split runs under the bound it passes on: a rank started late (a loaded machine)
     * must not time it out, so the ranks meet in an unbounded barrier first. */
    T_OK(shmc_barrier(w));
    T_OK(shmc_comm_set_timeout(w, 300));
    T_OK(shmc_comm_split(w, 0, me, &c)); /* inherits the bound */
    if (me == 0) {
        int small = -1;
        enum { BIG = 1 << 20 };
        uint8_t *big = shmct_xmalloc(BIG);
        shmc_request *r[2], *one;
        T_OK(shmc_irecv(&small, 1, SHMC_INT32, 1, 3, c, &r[0]));
        T_OK(shmc_irecv(big, BIG, SHMC_UINT8, 1, 4, c, &r[1]));
        one = r[0];
        T_CALL(SHMC_ERR_TIMEOUT, shmc_wait(&one, NULL));
        T_ASSERT(one == r[0], "a timed-out wait keeps the handle");
        T_CALL(SHMC_ERR_TIMEOUT, shmc_waitall(2, r, NULL));
        int done = 1;
        T_OK(shmc_test(&one, &done, NULL));
        T_ASSERT(!done, "nothing was sent yet");
        /* Now let rank 1 send (a blocking send is not bounded), and wait for it without
         * the bound: rank 1 may be scheduled later than it allows. */
        T_OK(shmc_comm_set_timeout(c, 0));
        int go = 1;
        T_OK(shmc_send(&go, 1, SHMC_INT32, 1, 9, w));
        shmc_status st[2];
        T_OK(shmc_waitall(2, r, st));
        T_ASSERT(small == 42 && st[0].count == 1, "the small message: %d", small);
        T_ASSERT(st[1].count == BIG, "the large message's size");
        shmct_check_data(big, BIG, 7, 1);
        free(big);
    } else if (me == 1) {
        int go = 0, v = 42;
        enum { BIG = 1 << 20 };
        uint8_t *big = shmct_xmalloc(BIG);
        shmct_fill(big, BIG, 7);
        T_OK(shmc_recv(&go, 1, SHMC_INT32, 0, 9, w, NULL));
        T_OK(shmc_send(&v, 1, SHMC_INT32, 0, 3, c));
        T_OK(shmc_send(big, BIG, SHMC_UINT8, 0, 4, c));
        free(big);
    }
    T_OK(shmc_comm_free(&c));
    T_OK(shmc_comm_set_timeout(w, 0));
    T_OK(shmc_barrier(w));
}

START_TEST(test_timeout_wait)
{
    ck_assert_int_eq(shmct_run(2, wait_again, NULL), 0);
    ck_assert_int_eq(shmct_run(3, wait_again, NULL), 0);
}
END_TEST

/* A making by the members that one of them is late to: the other gives up with
 * SHMC_ERR_TIMEOUT, so does the late one (its answer never comes), and a making under a
 * new tag then works. Rank 2 takes no part. */
static void late_maker(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    if (me == 2)
        return;
    static const int pair[2] = {0, 1};
    shmc_comm *c = NULL;
    T_OK(shmc_comm_set_timeout(w, 200));
    int token = 0;
    if (me == 1) /* late: only once rank 0 has given up (blocking sends are not bounded) */
        T_OK(shmc_recv(&token, 1, SHMC_INT32, 0, 8, w, NULL));
    T_CALL(SHMC_ERR_TIMEOUT, shmc_comm_create_members(w, pair, 2, 5, &c));
    T_ASSERT(c == NULL, "a timed-out making leaves NULL");
    if (me == 0)
        T_OK(shmc_send(&token, 1, SHMC_INT32, 1, 8, w));
    T_OK(shmc_comm_set_timeout(w, 0));
    T_OK(shmc_comm_create_members(w, pair, 2, 6, &c));
    T_ASSERT(shmc_comm_rank(c) == me, "rank in the pair");
    T_OK(shmc_barrier(c));
    T_OK(shmc_comm_free(&c));
}

static void bad(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    (void)me;
    (void)n;
    T_CALL(SHMC_ERR_ARG, shmc_comm_set_timeout(NULL, 5));
    T_CALL(SHMC_ERR_ARG, shmc_comm_set_timeout((shmc_comm *)(uintptr_t)77, 5));
    T_OK(shmc_comm_set_timeout(w, 60000));
    T_OK(shmc_barrier(w));
}

START_TEST(test_timeout_create_members)
{
    ck_assert_int_eq(shmct_run(3, late_maker, NULL), 0);
}
END_TEST

START_TEST(test_timeout_bad_arguments)
{
    ck_assert_int_eq(shmc_comm_set_timeout(NULL, 5), SHMC_ERR_NOT_INIT);
    ck_assert_int_eq(shmct_run(2, bad, NULL), 0);
}
END_TEST

static Suite *timeout_suite(void)
{
    Suite *s = suite_create("timeout");
    TCase *t = tcase_create("timeout");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_timeout_collective);
    tcase_add_test(t, test_timeout_wait);
    tcase_add_test(t, test_timeout_create_members);
    tcase_add_test(t, test_timeout_bad_arguments);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(timeout_suite());
}
