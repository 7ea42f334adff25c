/*
 * Probes, SHMC_PROC_NULL and cancelling a receive, through real jobs (harness.h): what a
 * probe reports is what the next receive with the same source and tag gets, for eager,
 * rendezvous and single-copy messages, from any source, on sub-communicators, to
 * oneself; a probe's failures (dead source, time-out, bad arguments); every
 * point-to-point call with SHMC_PROC_NULL; shmc_cancel of posted and matched receives.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "p2p_protocols.h"

static size_t size_of(int r)
{
    static const size_t s[] = {0, 16, E, E + 1, 100000};
    return s[r % 5];
}

/* ---- what a probe reports is what the receive gets ---------------------------------- */

/* Every rank but 0 sends rank 0 one message (its size by rank, eager or rendezvous) with
 * tag 10 + rank. Rank 0 probes any source and any tag, makes a buffer of exactly the
 * size the probe gave, and receives from the source and tag the probe named. */
static void probe_then_recv(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    if (me != 0) {
        size_t b = size_of(me);
        uint8_t *out = shmct_xmalloc(b);
        shmct_fill(out, b, shmct_seed(me, b, 0));
        T_OK(shmc_send(out, b, SHMC_UINT8, 0, 10 + me, w));
        free(out);
        return;
    }
    int seen[64] = {0};
    for (int k = 1; k < n; k++) {
        shmc_status ps, rs;
        T_OK(shmc_probe(SHMC_ANY_SOURCE, SHMC_ANY_TAG, SHMC_UINT8, w, &ps));
        T_ASSERT(ps.source > 0 && ps.source < n && !seen[ps.source], "probe source %d", ps.source);
        T_ASSERT(ps.tag == 10 + ps.source, "probe tag %d from %d", ps.tag, ps.source);
        T_ASSERT(ps.count == size_of(ps.source), "probe count %zu from %d", ps.count, ps.source);
        T_ASSERT(ps.error == SHMC_OK, "probe status error %d", ps.error);
        /* Probing again, by source and tag, finds the same message: nothing was taken. */
        int flag = 0;
        shmc_status again;
        T_OK(shmc_iprobe(ps.source, ps.tag, SHMC_UINT8, w, &flag, &again));
        T_ASSERT(flag && again.source == ps.source && again.count == ps.count, "iprobe again");
        uint8_t *in = shmct_xmalloc(ps.count);
        T_OK(shmc_recv(in, ps.count, SHMC_UINT8, ps.source, ps.tag, w, &rs));
        T_ASSERT(rs.source == ps.source && rs.tag == ps.tag && rs.count == ps.count,
                 "receive {%d, %d, %zu} after probe {%d, %d, %zu}", rs.source, rs.tag, rs.count,
                 ps.source, ps.tag, ps.count);
        shmct_check_data(in, ps.count, shmct_seed(ps.source, ps.count, 0), ps.source);
        free(in);
        seen[ps.source] = 1;
    }
    /* Nothing left; the senders may have left the job by now, which a probe from any
     * source then reports, since no message can come any more. */
    int flag = 1;
    int rc = shmc_iprobe(SHMC_ANY_SOURCE, SHMC_ANY_TAG, SHMC_UINT8, w, &flag, NULL);
    T_ASSERT((rc == SHMC_OK || (rc == SHMC_ERR_PEER_DEAD && n > 1)) && !flag,
             "a message left after every one was received (%d, flag %d)", rc, flag);
}

START_TEST(test_probe_then_recv)
{
    for (int i = 0; i < NRANK_COUNTS; i++)
        ck_assert_msg(run_env(rank_counts[i], probe_then_recv, NULL, protocol_envs[_i]) == 0,
                      "%d ranks failed", rank_counts[i]);
}
END_TEST

/* A probe by tag skips older messages of other tags, and the oldest of a tag comes first;
 * counts are in elements of the probe's dtype. */
static void probe_order(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    static const int tags[] = {1, 2, 3, 2, 1};
    static const size_t sizes[] = {12, 3 * E, 40, 8, 200000};
    if (me == 1) {
        /* Started, not waited for: a rendezvous send completes only once received. */
        uint8_t *out[5];
        shmc_request *rq[6];
        for (int k = 0; k < 5; k++) {
            out[k] = shmct_xmalloc(sizes[k]);
            shmct_fill(out[k], sizes[k], (uint64_t)k);
            T_OK(shmc_isend(out[k], sizes[k], SHMC_UINT8, 0, tags[k], w, &rq[k]));
        }
        T_OK(shmc_isend(NULL, 0, SHMC_UINT8, 0, 99, w, &rq[5])); /* all sent */
        T_OK(shmc_waitall(6, rq, NULL));
        for (int k = 0; k < 5; k++)
            free(out[k]);
    } else if (me == 0) {
        shmc_status s;
        /* Once tag 99 is here, so is everything sent before it. */
        T_OK(shmc_probe(1, 99, SHMC_UINT8, w, &s));
        T_OK(shmc_probe(1, SHMC_ANY_TAG, SHMC_FLOAT32, w, &s));
        T_ASSERT(s.tag == 1 && s.count == 3, "oldest: tag %d, %zu floats", s.tag, s.count);
        T_OK(shmc_probe(1, 2, SHMC_UINT8, w, &s));
        T_ASSERT(s.count == 3 * E, "oldest of tag 2: %zu bytes", s.count);
        T_OK(shmc_probe(SHMC_ANY_SOURCE, 3, SHMC_INT64, w, &s));
        T_ASSERT(s.source == 1 && s.count == 5, "tag 3: %zu int64 from %d", s.count, s.source);
        /* Receive in an order of our own, each as the probe before it said. */
        static const int order[] = {2, 1, 0, 4, 3};
        static const int want_tag[] = {3, 2, 1, 1, 2};
        for (int j = 0; j < 5; j++) {
            int k = order[j];
            T_OK(shmc_probe(1, want_tag[j], SHMC_UINT8, w, &s));
            T_ASSERT(s.count == sizes[k], "tag %d: %zu bytes, expected %zu", want_tag[j], s.count,
                     sizes[k]);
            uint8_t *in = shmct_xmalloc(sizes[k]);
            T_OK(shmc_recv(in, sizes[k], SHMC_UINT8, 1, want_tag[j], w, NULL));
            shmct_check_data(in, sizes[k], (uint64_t)k, 1);
            free(in);
        }
        T_OK(shmc_recv(NULL, 0, SHMC_UINT8, 1, 99, w, NULL));
    }
}

START_TEST(test_probe_order)
{
    ck_assert_int_eq(run_env(2, probe_order, NULL, protocol_envs[_i]), 0);
}
END_TEST

/* iprobe says no until the message is sent, then yes; the sender waits for our word, so
 * the first answer cannot be yes. */
static void iprobe_until(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int v = 0;
    if (me == 1) {
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 0, 1, w, NULL));
        v = 42;
        T_OK(shmc_send(&v, 1, SHMC_INT32, 0, 2, w));
    } else if (me == 0) {
        int flag = 1;
        shmc_status s = {7, 7, 7, 7};
        for (int k = 0; k < 100; k++) {
            T_OK(shmc_iprobe(1, 2, SHMC_INT32, w, &flag, &s));
            T_ASSERT(!flag, "iprobe found a message not yet sent");
        }
        T_OK(shmc_send(&v, 1, SHMC_INT32, 1, 1, w));
        long polls = 0;
        do {
            T_OK(shmc_iprobe(SHMC_ANY_SOURCE, 2, SHMC_INT32, w, &flag, &s));
            polls++;
        } while (!flag);
        T_ASSERT(s.source == 1 && s.tag == 2 && s.count == 1, "status {%d, %d, %zu}", s.source,
                 s.tag, s.count);
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 1, 2, w, NULL));
        T_ASSERT(v == 42, "received %d", v);
    }
}

START_TEST(test_iprobe_until)
{
    ck_assert_int_eq(shmct_run(2, iprobe_until, NULL), 0);
}
END_TEST

/* On a communicator whose ranks run backwards, a probe names the source by its rank
 * there; messages of the world with the same tag are not seen on it. To oneself too. */
static void probe_subcomm(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *rev;
    T_OK(shmc_comm_split(w, 0, n - me, &rev));
    int rme = shmc_comm_rank(rev);
    T_ASSERT(rme == n - 1 - me, "rank %d in the reversed comm", rme);
    int x = me;
    /* World rank 1 (reversed rank n - 2) sends on the world first, then on rev. */
    if (me == 1) {
        T_OK(shmc_send(&x, 1, SHMC_INT32, 0, 5, w));
        T_OK(shmc_send(&x, 1, SHMC_INT32, n - 1, 5, rev));
    } else if (me == 0) {
        shmc_status s;
        T_OK(shmc_probe(SHMC_ANY_SOURCE, 5, SHMC_INT32, rev, &s));
        T_ASSERT(s.source == n - 2, "source %d on rev, expected %d", s.source, n - 2);
        T_OK(shmc_recv(&x, 1, SHMC_INT32, s.source, 5, rev, NULL));
        T_ASSERT(x == 1, "got %d", x);
        T_OK(shmc_probe(1, 5, SHMC_INT32, w, &s));
        T_ASSERT(s.source == 1, "world source %d", s.source);
        T_OK(shmc_recv(&x, 1, SHMC_INT32, 1, 5, w, NULL));
    }
    /* To oneself: eager, and large (which waits for the receive, so posted first). */
    int flag;
    shmc_status s;
    T_OK(shmc_send(&x, 1, SHMC_INT32, rme, 6, rev));
    T_OK(shmc_iprobe(rme, 6, SHMC_UINT8, rev, &flag, &s));
    T_ASSERT(flag && s.source == rme && s.count == 4, "self probe: %d {%d, %zu}", flag, s.source,
             s.count);
    T_OK(shmc_recv(&x, 1, SHMC_INT32, rme, 6, rev, NULL));
    size_t big = 3 * E;
    uint8_t *a = shmct_xmalloc(big), *b = shmct_xmalloc(big);
    shmct_fill(a, big, 5);
    shmc_request *sr;
    T_OK(shmc_isend(a, big, SHMC_UINT8, rme, 7, rev, &sr));
    T_OK(shmc_probe(rme, 7, SHMC_UINT8, rev, &s));
    T_ASSERT(s.count == big, "large self probe: %zu", s.count);
    T_OK(shmc_recv(b, big, SHMC_UINT8, rme, 7, rev, NULL));
    T_OK(shmc_wait(&sr, NULL));
    shmct_check_data(b, big, 5, rme);
    free(a);
    free(b);
    T_OK(shmc_comm_free(&rev));
}

START_TEST(test_probe_subcomm)
{
    for (int i = 0; i < NRANK_COUNTS; i++)
        ck_assert_int_eq(shmct_run(rank_counts[i], probe_subcomm, NULL), 0);
}
END_TEST

/* ---- failures -------------------------------------------------------------------- */

/* Rank 1 sends one message and leaves: the probe still finds it; once it is received, a
 * probe for another from rank 1 (or from any source, with nobody else) fails. */
static void probe_dead(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int v = 9;
    if (me == 1) {
        T_OK(shmc_send(&v, 1, SHMC_INT32, 0, 1, w));
        return; /* the harness finalizes: rank 1 leaves */
    }
    shmc_status s;
    T_OK(shmc_probe(1, 1, SHMC_INT32, w, &s));
    T_OK(shmc_recv(&v, 1, SHMC_INT32, 1, 1, w, NULL));
    T_CALL(SHMC_ERR_PEER_DEAD, shmc_probe(1, 1, SHMC_INT32, w, &s));
    T_CALL(SHMC_ERR_PEER_DEAD, shmc_probe(SHMC_ANY_SOURCE, SHMC_ANY_TAG, SHMC_INT32, w, &s));
}

START_TEST(test_probe_dead)
{
    ck_assert_int_eq(shmct_run(2, probe_dead, NULL), 0);
}
END_TEST

/* The communicator's time-out ends a probe for a message that never comes; the
 * communicator stays usable. */
static void probe_timeout(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int v = 3;
    if (me == 0) {
        T_OK(shmc_comm_set_timeout(w, 50));
        shmc_status s;
        T_CALL(SHMC_ERR_TIMEOUT, shmc_probe(1, 8, SHMC_INT32, w, &s));
        T_OK(shmc_comm_set_timeout(w, 0));
        T_OK(shmc_send(&v, 1, SHMC_INT32, 1, 9, w));
    } else if (me == 1) {
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 0, 9, w, NULL));
        T_ASSERT(v == 3, "got %d", v);
    }
}

START_TEST(test_probe_timeout)
{
    ck_assert_int_eq(shmct_run(2, probe_timeout, NULL), 0);
}
END_TEST

static void probe_badargs(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    (void)me;
    int flag = 5;
    shmc_status s;
    T_CALL(SHMC_ERR_ARG, shmc_probe(0, 0, SHMC_UINT8, NULL, &s));
    T_CALL(SHMC_ERR_ARG, shmc_iprobe(0, 0, SHMC_UINT8, (shmc_comm *)(uintptr_t)12345, &flag, &s));
    T_CALL(SHMC_ERR_ARG, shmc_iprobe(0, 0, (shmc_dtype)77, w, &flag, &s));
    T_CALL(SHMC_ERR_ARG, shmc_iprobe(0, 0, SHMC_UINT8, w, NULL, &s));
    T_CALL(SHMC_ERR_RANK, shmc_iprobe(n, 0, SHMC_UINT8, w, &flag, &s));
    T_CALL(SHMC_ERR_RANK, shmc_iprobe(-3, 0, SHMC_UINT8, w, &flag, &s));
    T_CALL(SHMC_ERR_TAG, shmc_iprobe(0, -5, SHMC_UINT8, w, &flag, &s));
    T_ASSERT(flag == 0, "flag %d after a failed iprobe", flag);
}

START_TEST(test_probe_badargs)
{
    ck_assert_int_eq(shmct_run(2, probe_badargs, NULL), 0);
    /* Before shmc_init. */
    int flag;
    ck_assert_int_eq(shmc_iprobe(0, 0, SHMC_UINT8, NULL, &flag, NULL), SHMC_ERR_NOT_INIT);
    ck_assert_int_eq(shmc_probe(0, 0, SHMC_UINT8, NULL, NULL), SHMC_ERR_NOT_INIT);
}
END_TEST

/* ---- SHMC_PROC_NULL --------------------------------------------------------------- */

static void expect_null_status(const shmc_status *s)
{
    T_ASSERT(s->source == SHMC_PROC_NULL && s->tag == SHMC_ANY_TAG && s->count == 0 &&
                 s->error == SHMC_OK,
             "status {%d, %d, %zu, %d} from SHMC_PROC_NULL", s->source, s->tag, s->count, s->error);
}

/* Every call with SHMC_PROC_NULL completes at once and leaves the buffer alone; a ring
 * with open ends (rank 0 receives from nobody, the last rank sends to nobody) works. */
static void proc_null(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int buf[4] = {1, 2, 3, 4}, in[4] = {0};
    shmc_status s = {0};
    T_OK(shmc_send(buf, 4, SHMC_INT32, SHMC_PROC_NULL, 1, w));
    T_OK(shmc_ssend(buf, 4, SHMC_INT32, SHMC_PROC_NULL, 1, w));
    T_OK(shmc_recv(in, 4, SHMC_INT32, SHMC_PROC_NULL, 1, w, &s));
    expect_null_status(&s);
    T_OK(shmc_recv(in, 4, SHMC_INT32, SHMC_PROC_NULL, SHMC_ANY_TAG, w, NULL));
    T_ASSERT(in[0] == 0 && in[3] == 0, "a receive from nobody wrote the buffer");

    shmc_request *rq[4];
    T_OK(shmc_isend(buf, 4, SHMC_INT32, SHMC_PROC_NULL, 2, w, &rq[0]));
    T_OK(shmc_issend(buf, 4, SHMC_INT32, SHMC_PROC_NULL, 2, w, &rq[1]));
    T_OK(shmc_irecv(in, 4, SHMC_INT32, SHMC_PROC_NULL, 2, w, &rq[2]));
    T_OK(shmc_irecv(in, 4, SHMC_INT32, SHMC_PROC_NULL, 2, w, &rq[3]));
    for (int k = 0; k < 4; k++)
        T_ASSERT(rq[k] != NULL, "request %d for SHMC_PROC_NULL is NULL", k);
    int done = 0;
    T_OK(shmc_test(&rq[2], &done, &s));
    T_ASSERT(done && rq[2] == NULL, "a receive from nobody is not complete");
    expect_null_status(&s);
    shmc_status st[4];
    T_OK(shmc_waitall(4, rq, st));
    expect_null_status(&st[3]);
    T_ASSERT(st[0].source == SHMC_PROC_NULL, "send status source %d", st[0].source);
    int flag = 0;
    T_OK(shmc_iprobe(SHMC_PROC_NULL, 3, SHMC_INT32, w, &flag, &s));
    T_ASSERT(flag, "iprobe of nobody says no message");
    expect_null_status(&s);
    T_OK(shmc_probe(SHMC_PROC_NULL, SHMC_ANY_TAG, SHMC_INT32, w, &s));
    expect_null_status(&s);

    /* A chain 0 -> 1 -> ... -> n-1 with sendrecv: the ends talk to nobody. */
    int left = me ? me - 1 : SHMC_PROC_NULL, right = me < n - 1 ? me + 1 : SHMC_PROC_NULL;
    int out = 100 + me, got = -1;
    T_OK(shmc_sendrecv(&out, 1, right, 4, &got, 1, left, 4, SHMC_INT32, w, &s));
    if (me == 0) {
        expect_null_status(&s);
        T_ASSERT(got == -1, "rank 0 got %d from nobody", got);
    } else {
        T_ASSERT(got == 99 + me && s.source == left, "got %d from %d", got, s.source);
    }
    /* Not a root, nor a peer of a bad kind. */
    T_CALL(SHMC_ERR_RANK, shmc_broadcast(buf, 4, SHMC_INT32, SHMC_PROC_NULL, w));
    T_CALL(SHMC_ERR_RANK, shmc_send(buf, 4, SHMC_INT32, -3, 1, w));
    T_CALL(SHMC_ERR_TAG, shmc_recv(in, 4, SHMC_INT32, 0, -7, w, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_irecv(in, 4, SHMC_INT32, SHMC_PROC_NULL, 1, w, NULL));
    /* Nobody as the peer does not excuse the other arguments. */
    shmc_request *r = NULL;
    int fl;
    T_CALL(SHMC_ERR_TAG, shmc_send(buf, 4, SHMC_INT32, SHMC_PROC_NULL, -5, w));
    T_CALL(SHMC_ERR_TAG, shmc_issend(buf, 4, SHMC_INT32, SHMC_PROC_NULL, SHMC_ANY_TAG, w, &r));
    T_CALL(SHMC_ERR_TAG, shmc_recv(in, 4, SHMC_INT32, SHMC_PROC_NULL, -5, w, NULL));
    T_CALL(SHMC_ERR_TAG, shmc_iprobe(SHMC_PROC_NULL, -5, SHMC_INT32, w, &fl, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_send(NULL, 4, SHMC_INT32, SHMC_PROC_NULL, 1, w));
    T_CALL(SHMC_ERR_ARG, shmc_irecv(in, 4, (shmc_dtype)50, SHMC_PROC_NULL, 1, w, &r));
    T_ASSERT(r == NULL, "a refused call made a request");
}

START_TEST(test_proc_null)
{
    for (int i = 0; i < NRANK_COUNTS; i++)
        ck_assert_int_eq(shmct_run(rank_counts[i], proc_null, NULL), 0);
}
END_TEST

/* ---- shmc_cancel ------------------------------------------------------------------ */

/* A posted receive is cancelled and the message goes to the next receive; a receive a
 * message matched, and a send, are not cancelled. */
static void cancel(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int a = -1, b = -1, v = 5;
    if (me == 0) {
        shmc_request *r1, *r2;
        T_OK(shmc_irecv(&a, 1, SHMC_INT32, 1, 1, w, &r1));
        T_OK(shmc_irecv(&b, 1, SHMC_INT32, 1, 1, w, &r2));
        shmc_request *kept = r1;
        T_OK(shmc_cancel(&r1));
        T_ASSERT(r1 == NULL, "cancel did not clear the handle");
        T_CALL(SHMC_ERR_ARG, shmc_wait(&kept, NULL)); /* freed */
        T_CALL(SHMC_ERR_ARG, shmc_cancel(&kept));
        T_OK(shmc_send(&v, 1, SHMC_INT32, 1, 2, w)); /* go */
        T_OK(shmc_wait(&r2, NULL));
        T_ASSERT(b == 7 && a == -1, "a %d b %d: the message went to the cancelled receive", a, b);
        /* Matched already: not cancelled, and it completes. */
        T_OK(shmc_irecv(&a, 1, SHMC_INT32, 1, 3, w, &r1));
        T_OK(shmc_send(&v, 1, SHMC_INT32, 1, 4, w));
        /* Rank 1 sent tag 3 before tag 5: once 5 is here, 3 has matched r1. */
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 1, 5, w, NULL));
        shmc_request *sr;
        T_OK(shmc_isend(&v, 1, SHMC_INT32, 1, 6, w, &sr));
        T_CALL(SHMC_ERR_STATE, shmc_cancel(&sr));
        T_OK(shmc_wait(&sr, NULL));
        int cancelled = shmc_cancel(&r1);
        T_ASSERT(cancelled == SHMC_ERR_STATE, "cancel of a matched receive returned %d", cancelled);
        T_OK(shmc_wait(&r1, NULL));
        T_ASSERT(a == 8, "matched receive got %d", a);
        T_CALL(SHMC_ERR_ARG, shmc_cancel(NULL));
        shmc_request *none = NULL;
        T_CALL(SHMC_ERR_ARG, shmc_cancel(&none));
    } else if (me == 1) {
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 0, 2, w, NULL));
        v = 7;
        T_OK(shmc_send(&v, 1, SHMC_INT32, 0, 1, w));
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 0, 4, w, NULL));
        v = 8;
        T_OK(shmc_send(&v, 1, SHMC_INT32, 0, 3, w));
        T_OK(shmc_send(&v, 1, SHMC_INT32, 0, 5, w));
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 0, 6, w, NULL));
    }
}

START_TEST(test_cancel)
{
    ck_assert_int_eq(shmct_run(2, cancel, NULL), 0);
}
END_TEST

static Suite *probe_suite(void)
{
    Suite *s = suite_create("probe");
    TCase *t = tcase_create("probe");
    tcase_set_timeout(t, 120);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_loop_test(t, test_probe_then_recv, 0, NPROTO);
    tcase_add_loop_test(t, test_probe_order, 0, NPROTO);
    tcase_add_test(t, test_iprobe_until);
    tcase_add_test(t, test_probe_subcomm);
    tcase_add_test(t, test_probe_dead);
    tcase_add_test(t, test_probe_timeout);
    tcase_add_test(t, test_probe_badargs);
    suite_add_tcase(s, t);

    t = tcase_create("proc_null");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_proc_null);
    tcase_add_test(t, test_cancel);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(probe_suite());
}
