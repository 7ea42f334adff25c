/*
 * The calls on arrays of requests (shmc_waitany, shmc_testany, shmc_testall; shmc_waitall
 * is exercised everywhere) through real jobs (harness.h): each request reported once,
 * with its status, in an order the senders force; nothing freed by a test that says "not
 * yet"; NULL entries; time-outs; bad arrays refused with every request left pending.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p2p_protocols.h"

/* Rank 0 posts a receive from every other rank, then lets them send one at a time, in
 * reverse order (rank k waits for rank 0's word): each waitany (or testany loop) must
 * report exactly the one that could complete. Sizes alternate eager and rendezvous. */
static void one_at_a_time(shmc_comm *w, int me, int n, void *arg)
{
    int use_test = *(int *)arg;
    size_t big = 3 * E;
    if (me != 0) {
        int go;
        T_OK(shmc_recv(&go, 1, SHMC_INT32, 0, 1, w, NULL));
        size_t b = me % 2 ? 8 : big;
        uint8_t *out = shmct_xmalloc(b);
        shmct_fill(out, b, (uint64_t)me);
        T_OK(shmc_send(out, b, SHMC_UINT8, 0, 20 + me, w));
        free(out);
        return;
    }
    shmc_request **rq = shmct_xmalloc((size_t)(n + 1) * sizeof *rq);
    uint8_t **in = shmct_xmalloc((size_t)(n + 1) * sizeof *in);
    /* Entry 0 stays NULL: skipped. Entry k receives from rank k. */
    rq[0] = NULL;
    in[0] = NULL;
    for (int k = 1; k < n; k++) {
        in[k] = shmct_xmalloc(big);
        T_OK(shmc_irecv(in[k], big, SHMC_UINT8, k, 20 + k, w, &rq[k]));
    }
    for (int k = n - 1; k >= 1; k--) {
        size_t idx = 12345;
        int done = 0;
        if (use_test) {
            T_OK(shmc_testany((size_t)n, rq, &idx, &done, NULL));
            T_ASSERT(!done && idx == SHMC_INDEX_NONE, "testany reported %zu before any send", idx);
        }
        int go = 1;
        T_OK(shmc_send(&go, 1, SHMC_INT32, k, 1, w));
        shmc_status s;
        if (use_test) {
            do
                T_OK(shmc_testany((size_t)n, rq, &idx, &done, &s));
            while (!done);
        } else {
            T_OK(shmc_waitany((size_t)n, rq, &idx, &s));
        }
        T_ASSERT(idx == (size_t)k, "completed index %zu, only %d could", idx, k);
        T_ASSERT(rq[k] == NULL, "the completed request was not cleared");
        size_t b = k % 2 ? 8 : big;
        T_ASSERT(s.source == k && s.tag == 20 + k && s.count == b, "status {%d, %d, %zu}", s.source,
                 s.tag, s.count);
        shmct_check_data(in[k], b, (uint64_t)k, k);
        for (int j = 1; j < k; j++)
            T_ASSERT(rq[j] != NULL, "request %d was freed but not reported", j);
        free(in[k]);
    }
    /* Nothing left: at once, no index. */
    size_t idx = 0;
    shmc_status s;
    T_OK(shmc_waitany((size_t)n, rq, &idx, &s));
    T_ASSERT(idx == SHMC_INDEX_NONE && s.source == SHMC_ANY_SOURCE, "waitany of none: %zu", idx);
    int done = 0;
    T_OK(shmc_testany((size_t)n, rq, &idx, &done, NULL));
    T_ASSERT(done && idx == SHMC_INDEX_NONE, "testany of none");
    T_OK(shmc_waitany(0, NULL, &idx, NULL));
    T_ASSERT(idx == SHMC_INDEX_NONE, "waitany of an empty array");
    free(rq);
    free(in);
}

START_TEST(test_waitany)
{
    int use_test = 0;
    for (int i = 0; i < NRANK_COUNTS; i++)
        ck_assert_msg(shmct_run(rank_counts[i], one_at_a_time, &use_test) == 0, "%d ranks",
                      rank_counts[i]);
}
END_TEST

START_TEST(test_testany)
{
    int use_test = 1;
    for (int i = 0; i < NRANK_COUNTS; i++)
        ck_assert_msg(shmct_run(rank_counts[i], one_at_a_time, &use_test) == 0, "%d ranks",
                      rank_counts[i]);
}
END_TEST

/* Of several complete requests, waitany reports the lowest index first. */
static void lowest_first(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int v[4] = {0};
    if (me == 1) {
        for (int k = 0; k < 4; k++) {
            v[k] = 40 + k;
            T_OK(shmc_send(&v[k], 1, SHMC_INT32, 0, k, w));
        }
        T_OK(shmc_send(v, 0, SHMC_INT32, 0, 9, w));
    } else if (me == 0) {
        shmc_request *rq[4];
        for (int k = 0; k < 4; k++) /* posted in reverse tag order */
            T_OK(shmc_irecv(&v[k], 1, SHMC_INT32, 1, 3 - k, w, &rq[k]));
        T_OK(shmc_recv(v, 0, SHMC_INT32, 1, 9, w, NULL)); /* all four have arrived */
        for (int k = 0; k < 4; k++) {
            size_t idx;
            shmc_status s;
            T_OK(shmc_waitany(4, rq, &idx, &s));
            T_ASSERT(idx == (size_t)k && s.tag == 3 - k && v[k] == 43 - k,
                     "step %d: index %zu, tag %d, value %d", k, idx, s.tag, v[k]);
        }
    }
}

START_TEST(test_waitany_lowest)
{
    ck_assert_int_eq(shmct_run(2, lowest_first, NULL), 0);
}
END_TEST

/* testall says "not yet" and frees nothing while one request is pending, then reports
 * all, with their statuses and the first error. */
static void testall(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int a = 0, b = 0, go = 1;
    if (me == 1) {
        T_OK(shmc_recv(&go, 1, SHMC_INT32, 0, 1, w, NULL));
        int two[2] = {5, 6};
        T_OK(shmc_send(two, 1, SHMC_INT32, 0, 2, w));
        T_OK(shmc_send(two, 2, SHMC_INT32, 0, 3, w)); /* two ints into a one-int buffer */
        return;
    }
    if (me != 0)
        return;
    shmc_request *rq[3];
    T_OK(shmc_irecv(&a, 1, SHMC_INT32, 1, 2, w, &rq[0]));
    rq[1] = NULL;
    T_OK(shmc_irecv(&b, 1, SHMC_INT32, 1, 3, w, &rq[2]));
    shmc_request *keep[3] = {rq[0], rq[1], rq[2]};
    int done = 1;
    shmc_status st[3];
    T_OK(shmc_testall(3, rq, &done, st));
    T_ASSERT(!done && rq[0] == keep[0] && rq[2] == keep[2], "testall before any send");
    T_OK(shmc_send(&go, 1, SHMC_INT32, 1, 1, w));
    int rc;
    do
        rc = shmc_testall(3, rq, &done, st);
    while (rc == SHMC_OK && !done);
    T_ASSERT(done && rc == SHMC_ERR_TRUNCATE, "testall: done %d, rc %d", done, rc);
    T_ASSERT(!rq[0] && !rq[1] && !rq[2], "testall left requests");
    T_ASSERT(st[0].error == SHMC_OK && st[0].count == 1 && a == 5, "first status");
    T_ASSERT(st[1].source == SHMC_ANY_SOURCE && st[1].count == 0, "the NULL entry's status");
    T_ASSERT(st[2].error == SHMC_ERR_TRUNCATE && st[2].count == 2 && b == 5, "truncated status");
    T_OK(shmc_testall(0, NULL, &done, NULL));
    T_ASSERT(done, "testall of nothing");
}

START_TEST(test_testall)
{
    ck_assert_int_eq(shmct_run(2, testall, NULL), 0);
}
END_TEST

/* A waitall whose receives complete last first (rank 1 sends their tags in reverse, with
 * pauses that let rank 0's wait look between them), behind a NULL entry and a send that
 * completes at once, eager and rendezvous sizes alternating: every request ends once,
 * with its own status and data. */
static void waitall_reversed(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    enum { NR = 8 };
    size_t big = 3 * E;
    int word = 7;
    if (me == 1) {
        int got = 0;
        T_OK(shmc_recv(&got, 1, SHMC_INT32, 0, 99, w, NULL));
        T_ASSERT(got == word, "the send's word: %d", got);
        uint8_t *out = shmct_xmalloc(big);
        for (int t = NR - 1; t >= 0; t--) {
            size_t b = t % 2 ? 8 : big;
            usleep(1000);
            shmct_fill(out, b, (uint64_t)t);
            T_OK(shmc_send(out, b, SHMC_UINT8, 0, t, w));
        }
        free(out);
        return;
    }
    if (me != 0)
        return;
    shmc_request *rq[NR + 2];
    shmc_status st[NR + 2];
    uint8_t *in[NR];
    rq[0] = NULL;
    T_OK(shmc_isend(&word, 1, SHMC_INT32, 1, 99, w, &rq[1]));
    for (int t = 0; t < NR; t++) {
        in[t] = shmct_xmalloc(big);
        T_OK(shmc_irecv(in[t], big, SHMC_UINT8, 1, t, w, &rq[t + 2]));
    }
    T_OK(shmc_waitall(NR + 2, rq, st));
    for (int i = 0; i < NR + 2; i++)
        T_ASSERT(rq[i] == NULL, "waitall left request %d", i);
    T_ASSERT(st[0].source == SHMC_ANY_SOURCE && st[0].count == 0, "the NULL entry's status");
    T_ASSERT(st[1].error == SHMC_OK && st[1].source == 1 && st[1].count == 1, "the send's status");
    for (int t = 0; t < NR; t++) {
        size_t b = t % 2 ? 8 : big;
        const shmc_status *s = &st[t + 2];
        T_ASSERT(s->error == SHMC_OK && s->source == 1 && s->tag == t && s->count == b,
                 "receive %d: {%d, %d, %zu, %d}", t, s->source, s->tag, s->count, s->error);
        shmct_check_data(in[t], b, (uint64_t)t, 1);
        free(in[t]);
    }
}

START_TEST(test_waitall_reversed)
{
    ck_assert_int_eq(shmct_run(2, waitall_reversed, NULL), 0);
}
END_TEST

/* Bad arrays are refused and every request stays pending; a time-out leaves all pending
 * too; the requests then complete normally. */
static void bad_arrays(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int a = 0, b = 0, go = 1;
    if (me == 1) {
        T_OK(shmc_recv(&go, 1, SHMC_INT32, 0, 1, w, NULL));
        a = 1;
        T_OK(shmc_send(&a, 1, SHMC_INT32, 0, 2, w));
        T_OK(shmc_send(&a, 1, SHMC_INT32, 0, 3, w));
        return;
    }
    if (me != 0)
        return;
    shmc_request *rq[3];
    T_OK(shmc_irecv(&a, 1, SHMC_INT32, 1, 2, w, &rq[0]));
    T_OK(shmc_irecv(&b, 1, SHMC_INT32, 1, 3, w, &rq[1]));
    rq[2] = rq[0]; /* named twice */
    size_t idx = 7;
    int done = 7;
    T_CALL(SHMC_ERR_ARG, shmc_waitany(3, rq, &idx, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_testany(3, rq, &idx, &done, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_testall(3, rq, &done, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_waitall(3, rq, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_waitany(2, rq, NULL, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_testany(2, rq, &idx, NULL, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_testall(2, rq, NULL, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_waitany(2, NULL, &idx, NULL));
    rq[2] = (shmc_request *)(uintptr_t)0xdead0001; /* never a request */
    T_CALL(SHMC_ERR_ARG, shmc_waitany(3, rq, &idx, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_testall(3, rq, &done, NULL));
    T_ASSERT(rq[0] && rq[1], "a refused call touched the requests");
    /* The world's time-out: none completes, both stay pending. */
    T_OK(shmc_comm_set_timeout(w, 30));
    T_CALL(SHMC_ERR_TIMEOUT, shmc_waitany(2, rq, &idx, NULL));
    T_ASSERT(rq[0] && rq[1], "a timed-out waitany freed a request");
    T_OK(shmc_comm_set_timeout(w, 0));
    T_OK(shmc_send(&go, 1, SHMC_INT32, 1, 1, w));
    T_OK(shmc_waitany(2, rq, &idx, NULL));
    T_OK(shmc_waitany(2, rq, &idx, NULL));
    T_ASSERT(!rq[0] && !rq[1] && a == 1 && b == 1, "after the time-out");
}

START_TEST(test_bad_arrays)
{
    ck_assert_int_eq(shmct_run(2, bad_arrays, NULL), 0);
    size_t idx;
    int done;
    ck_assert_int_eq(shmc_waitany(0, NULL, &idx, NULL), SHMC_ERR_NOT_INIT);
    ck_assert_int_eq(shmc_testany(0, NULL, &idx, &done, NULL), SHMC_ERR_NOT_INIT);
    ck_assert_int_eq(shmc_testall(0, NULL, &done, NULL), SHMC_ERR_NOT_INIT);
}
END_TEST

/* A peer that leaves: waitany reports the receive that can no longer complete. */
static void peer_gone(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int a = 0;
    if (me == 1)
        return; /* leaves at once */
    shmc_request *rq[2] = {NULL, NULL};
    T_OK(shmc_irecv(&a, 1, SHMC_INT32, 1, 2, w, &rq[1]));
    size_t idx;
    shmc_status s;
    T_CALL(SHMC_ERR_PEER_DEAD, shmc_waitany(2, rq, &idx, &s));
    T_ASSERT(idx == 1 && rq[1] == NULL && s.error == SHMC_ERR_PEER_DEAD, "index %zu", idx);
}

START_TEST(test_waitany_peer_gone)
{
    ck_assert_int_eq(shmct_run(2, peer_gone, NULL), 0);
}
END_TEST

static Suite *sets_suite(void)
{
    Suite *s = suite_create("sets");
    TCase *t = tcase_create("sets");
    tcase_set_timeout(t, 120);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_waitany);
    tcase_add_test(t, test_testany);
    tcase_add_test(t, test_waitany_lowest);
    tcase_add_test(t, test_testall);
    tcase_add_test(t, test_waitall_reversed);
    tcase_add_test(t, test_bad_arrays);
    tcase_add_test(t, test_waitany_peer_gone);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(sets_suite());
}
