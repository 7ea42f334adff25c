/*
 * shmc_comm_create_members: communicators made by their members alone, as torch's
 * new_group makes them. Non-members do other work meanwhile (their own group, their own
 * collectives); the new communicator's ranks follow the list; it is isolated from the
 * parent and from other communicators; lists that differ fail on every member; bad
 * arguments fail at once.
 */
#include <check.h>
#include <string.h>

#include "harness.h"

/* Odd world ranks in descending order make one group (tag 1) while even ranks make their
 * own (tag 2) and use it; then both groups work, and so does the world. */
static void odd_and_even(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int list[16], m = 0;
    for (int r = n - 1; r >= 0; r--)
        if (r % 2 == me % 2)
            list[m++] = r;
    shmc_comm *g;
    T_OK(shmc_comm_create_members(w, list, m, 1 + me % 2, &g));
    T_ASSERT(g != NULL, "a member gets the communicator");
    int want = 0;
    while (list[want] != me)
        want++;
    T_ASSERT(shmc_comm_rank(g) == want && shmc_comm_size(g) == m,
             "rank %d of %d, expected %d of %d", shmc_comm_rank(g), shmc_comm_size(g), want, m);
    /* The group works and holds only its members. */
    int v = me, sum = 0, expect = 0;
    for (int i = 0; i < m; i++)
        expect += list[i];
    T_OK(shmc_allreduce(&v, &sum, 1, SHMC_INT32, SHMC_SUM, g));
    T_ASSERT(sum == expect, "sum of members %d, expected %d", sum, expect);
    /* Point-to-point on it with the same tag as on the world: each goes to its own. */
    int right = (want + 1) % m, left = (want + m - 1) % m, got = -1, gotw = -1;
    int wr = (me + 1) % n, wl = (me + n - 1) % n, mine = 1000 + me;
    shmc_request *rq[4];
    T_OK(shmc_irecv(&got, 1, SHMC_INT32, left, 7, g, &rq[0]));
    T_OK(shmc_irecv(&gotw, 1, SHMC_INT32, wl, 7, w, &rq[1]));
    T_OK(shmc_isend(&mine, 1, SHMC_INT32, wr, 7, w, &rq[2]));
    T_OK(shmc_isend(&mine, 1, SHMC_INT32, right, 7, g, &rq[3]));
    T_OK(shmc_waitall(4, rq, NULL));
    T_ASSERT(got == 1000 + list[left], "group message from %d: %d", list[left], got);
    T_ASSERT(gotw == 1000 + wl, "world message from %d: %d", wl, gotw);
    T_OK(shmc_barrier(w));
    /* Made again and again: every one gets its own uid (no crosstalk with the last). */
    for (int k = 0; k < 20; k++) {
        shmc_comm *h;
        T_OK(shmc_comm_create_members(w, list, m, 5, &h));
        int s2 = 0;
        T_OK(shmc_allreduce(&v, &s2, 1, SHMC_INT32, SHMC_SUM, h));
        T_ASSERT(s2 == expect, "round %d: %d", k, s2);
        T_OK(shmc_comm_free(&h));
    }
    /* A group of the group, made by its members only; and a group of one. */
    if (m > 2) {
        int sub[2] = {1, 0};
        shmc_comm *h = NULL;
        if (want < 2) {
            T_OK(shmc_comm_create_members(g, sub, 2, 0, &h));
            T_ASSERT(shmc_comm_rank(h) == 1 - want, "rank in the group of the group");
            T_OK(shmc_comm_free(&h));
        }
    }
    shmc_comm *self;
    T_OK(shmc_comm_create_members(w, &me, 1, 0, &self));
    T_ASSERT(shmc_comm_size(self) == 1, "a group of one");
    T_OK(shmc_comm_free(&self));
    T_OK(shmc_comm_free(&g));
    int one = 1, cnt = 0;
    T_OK(shmc_allreduce(&one, &cnt, 1, SHMC_INT32, SHMC_SUM, w));
    T_ASSERT(cnt == n, "the world after: %d", cnt);
}

START_TEST(test_members_only)
{
    static const int ns[] = {1, 2, 3, 4, 8};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        ck_assert_int_eq(shmct_run(ns[i], odd_and_even, NULL), 0);
}
END_TEST

/* Ranks 0-2 of 4 make a group but rank 2 lists {0, 2, 1}: every member gets SHMC_ERR_ARG.
 * Then they agree and it works; rank 3 never takes part. */
static void lists_differ(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    if (me == 3)
        return;
    int a[3] = {0, 1, 2}, b[3] = {0, 2, 1};
    shmc_comm *g = (shmc_comm *)w;
    T_CALL(SHMC_ERR_ARG, shmc_comm_create_members(w, me == 2 ? b : a, 3, 4, &g));
    T_ASSERT(g == NULL, "a failed making leaves NULL");
    T_OK(shmc_comm_create_members(w, a, 3, 4, &g));
    T_ASSERT(shmc_comm_rank(g) == me, "rank after the retry");
    T_OK(shmc_barrier(g));
    T_OK(shmc_comm_free(&g));
}

START_TEST(test_members_lists_differ)
{
    ck_assert_int_eq(shmct_run(4, lists_differ, NULL), 0);
}
END_TEST

static void bad(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int others[1] = {(me + 1) % n}, twice[2] = {me, me}, out_of_range[2] = {me, n};
    shmc_comm *g;
    if (n > 1)
        T_CALL(SHMC_ERR_ARG, shmc_comm_create_members(w, others, 1, 0, &g));
    T_CALL(SHMC_ERR_ARG, shmc_comm_create_members(w, twice, 2, 0, &g));
    T_CALL(SHMC_ERR_ARG, shmc_comm_create_members(w, out_of_range, 2, 0, &g));
    T_CALL(SHMC_ERR_ARG, shmc_comm_create_members(w, NULL, 1, 0, &g));
    T_CALL(SHMC_ERR_ARG, shmc_comm_create_members(w, &me, 0, 0, &g));
    T_CALL(SHMC_ERR_ARG, shmc_comm_create_members(w, &me, 1, 0, NULL));
    T_CALL(SHMC_ERR_TAG, shmc_comm_create_members(w, &me, 1, -1, &g));
    T_CALL(SHMC_ERR_ARG, shmc_comm_create_members(NULL, &me, 1, 0, &g));
    T_OK(shmc_barrier(w));
}

START_TEST(test_members_bad_arguments)
{
    ck_assert_int_eq(shmct_run(3, bad, NULL), 0);
}
END_TEST

static Suite *members_suite(void)
{
    Suite *s = suite_create("members");
    TCase *t = tcase_create("members");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_members_only);
    tcase_add_test(t, test_members_lists_differ);
    tcase_add_test(t, test_members_bad_arguments);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(members_suite());
}
