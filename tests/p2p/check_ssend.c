/*
 * Synchronous sends (shmc_ssend, shmc_issend) through real jobs (harness.h): one
 * completes only after a receive matched it, at every size and protocol (a plain send
 * of the same small message completes at once: the test tells them apart); data and
 * statuses at 2 to 16 ranks; to oneself; to a rank that left; bad arguments. And the
 * eager limit in force, told apart the same way, as the rings' size caps it.
 */
#include <check.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "p2p_protocols.h"

/* Rank 0 starts a send to rank 1, which posts its receive only after rank 0's "go"
 * (tag 2). Until then a synchronous send cannot complete, however often it is tested;
 * a plain send of an eager message completes at once. */
static void completes_on_match(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    size_t bytes = *(size_t *)arg;
    uint8_t *buf = shmct_xmalloc(bytes);
    int go = 1;
    if (me == 0) {
        shmct_fill(buf, bytes, shmct_seed(0, bytes, 0));
        shmc_request *r;
        int done = 0;
        T_OK(shmc_issend(buf, bytes, SHMC_UINT8, 1, 1, w, &r));
        for (int k = 0; k < 2000 && !done; k++) {
            T_OK(shmc_test(&r, &done, NULL));
            if (!(k % 64))
                sched_yield(); /* let rank 1 run where the CPUs are shared */
        }
        T_ASSERT(!done, "a synchronous send of %zu bytes completed before any receive", bytes);
        T_OK(shmc_send(&go, 1, SHMC_INT32, 1, 2, w));
        shmc_status s;
        T_OK(shmc_wait(&r, &s));
        T_ASSERT(s.source == 1 && s.tag == 1 && s.count == bytes, "send status {%d, %d, %zu}",
                 s.source, s.tag, s.count);
        if (bytes <= E) { /* the control: a plain eager send is done without a receive */
            T_OK(shmc_isend(buf, bytes, SHMC_UINT8, 1, 3, w, &r));
            T_OK(shmc_test(&r, &done, NULL));
            T_ASSERT(done, "a plain eager send waited for its receive");
        }
        /* Blocking: returns once rank 1 received (which it does after a word from us,
         * sent eagerly first). */
        T_OK(shmc_send(&go, 1, SHMC_INT32, 1, 4, w));
        T_OK(shmc_ssend(buf, bytes, SHMC_UINT8, 1, 5, w));
    } else if (me == 1) {
        T_OK(shmc_recv(&go, 1, SHMC_INT32, 0, 2, w, NULL));
        memset(buf, 0, bytes);
        shmc_status s;
        T_OK(shmc_recv(buf, bytes, SHMC_UINT8, 0, 1, w, &s));
        T_ASSERT(s.count == bytes && s.tag == 1, "status {%d, %zu}", s.tag, s.count);
        shmct_check_data(buf, bytes, shmct_seed(0, bytes, 0), 0);
        if (bytes <= E)
            T_OK(shmc_recv(buf, bytes, SHMC_UINT8, 0, 3, w, NULL));
        T_OK(shmc_recv(&go, 1, SHMC_INT32, 0, 4, w, NULL));
        memset(buf, 0, bytes);
        T_OK(shmc_recv(buf, bytes, SHMC_UINT8, 0, 5, w, NULL));
        shmct_check_data(buf, bytes, shmct_seed(0, bytes, 0), 0);
    }
    free(buf);
}

START_TEST(test_ssend_completes_on_match)
{
    static const size_t sizes[] = {0, 1, 8, E, E + 1, 100000, 4 * MiB};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t b = sizes[k];
        ck_assert_msg(run_env(2, completes_on_match, &b, protocol_envs[_i]) == 0,
                      "%zu bytes failed", b);
    }
}
END_TEST

/* The eager limit in force: a plain send of `limit` bytes completes before any receive,
 * one of limit + 1 bytes does not (it waits for its receive, as a rendezvous). */
struct edge {
    size_t limit;
    const char *env[5];
};

/* Does the edge's environment hold the setting s? */
static int has(const struct edge *e, const char *s)
{
    for (int i = 0; e->env[i]; i++)
        if (!strcmp(e->env[i], s))
            return 1;
    return 0;
}

static void eager_edge(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    const struct edge *e = arg;
    size_t big = e->limit + 1;
    /* What the job began with, as shmc_stat tells it: the round trip the arena recorded
     * (SHMC_LINE_RTT_NS here, none otherwise), far from 400 ns but where SHMC_FAR_NS is
     * above it. */
    uint64_t rtt = 1, far = 2;
    T_OK(shmc_stat("line_rtt_ns", &rtt));
    T_OK(shmc_stat("machine_far", &far));
    int set = has(e, "SHMC_LINE_RTT_NS=400");
    T_ASSERT(rtt == (set ? 400u : 0u), "line_rtt_ns %llu", (unsigned long long)rtt);
    T_ASSERT(far == (uint64_t)(set && !has(e, "SHMC_FAR_NS=500")), "machine_far %llu",
             (unsigned long long)far);
    uint8_t *a = shmct_xmalloc(big), *b = shmct_xmalloc(big);
    int go = 1, done = 0;
    if (me == 0) {
        shmct_fill(a, e->limit, 1);
        shmct_fill(b, big, 2);
        shmc_request *ra, *rb;
        T_OK(shmc_isend(a, e->limit, SHMC_UINT8, 1, 1, w, &ra));
        T_OK(shmc_test(&ra, &done, NULL));
        T_ASSERT(done, "a send of %zu bytes (the eager limit) waited for its receive", e->limit);
        T_OK(shmc_isend(b, big, SHMC_UINT8, 1, 3, w, &rb));
        done = 0;
        for (int k = 0; k < 2000 && !done; k++) {
            T_OK(shmc_test(&rb, &done, NULL));
            if (!(k % 64))
                sched_yield();
        }
        T_ASSERT(!done, "a send of %zu bytes completed before any receive", big);
        T_OK(shmc_send(&go, 1, SHMC_INT32, 1, 2, w));
        T_OK(shmc_wait(&rb, NULL));
    } else if (me == 1) {
        T_OK(shmc_recv(&go, 1, SHMC_INT32, 0, 2, w, NULL));
        T_OK(shmc_recv(a, e->limit, SHMC_UINT8, 0, 1, w, NULL));
        shmct_check_data(a, e->limit, 1, 0);
        T_OK(shmc_recv(b, big, SHMC_UINT8, 0, 3, w, NULL));
        shmct_check_data(b, big, 2, 0);
    }
    free(a);
    free(b);
}

/* The default (where each rank has a CPU, 8 KiB on Intel's CPUs and on CPUs found far apart
 * as the job began; elsewhere, and where ranks share CPUs, E), the rings' cap on it (an
 * eighth of a ring: a 64 KiB ring, as from 16 ranks, keeps 8 KiB; a 1 MiB ring caps a
 * larger setting at 128 KiB), and a setting below the cap. The harness's arena records the
 * round trip that SHMC_LINE_RTT_NS names, or none (near). */
static const struct edge edges[] = {
    {E, {"SHMC_CPU_MAKER=amd", "SHMC_CPUS=2", NULL}},
    {8192, {"SHMC_CPU_MAKER=amd", "SHMC_CPUS=2", "SHMC_LINE_RTT_NS=400", NULL}},
    {E, {"SHMC_CPU_MAKER=amd", "SHMC_CPUS=1", "SHMC_LINE_RTT_NS=400", NULL}},
    {E, {"SHMC_CPU_MAKER=amd", "SHMC_CPUS=2", "SHMC_LINE_RTT_NS=400", "SHMC_FAR_NS=500", NULL}},
    {8192, {"SHMC_CPU_MAKER=intel", "SHMC_CPUS=2", NULL}},
    {E, {"SHMC_CPU_MAKER=intel", "SHMC_CPUS=1", NULL}},
    {8192, {"SHMC_RING_SIZE=65536", NULL}},
    {131072, {"SHMC_EAGER_LIMIT=1048576", NULL}},
    {4096, {"SHMC_EAGER_LIMIT=4096", "SHMC_RING_SIZE=65536", NULL}},
};

START_TEST(test_eager_limit_follows_ring)
{
    ck_assert_msg(run_env(2, eager_edge, (void *)&edges[_i], edges[_i].env) == 0, "eager limit %zu",
                  edges[_i].limit);
}
END_TEST

/* Beyond 2 ranks too: Intel's 8 KiB where every rank has a CPU (SHMC_CPUS says how many
 * the job has), 32 KiB where 3 ranks share 2. */
static const struct edge edges3[] = {
    {8192, {"SHMC_CPU_MAKER=intel", "SHMC_CPUS=4", NULL}},
    {E, {"SHMC_CPU_MAKER=intel", "SHMC_CPUS=2", NULL}},
};

START_TEST(test_eager_limit_auto_3_ranks)
{
    ck_assert_msg(run_env(3, eager_edge, (void *)&edges3[_i], edges3[_i].env) == 0,
                  "eager limit %zu", edges3[_i].limit);
}
END_TEST

/* A ring of synchronous sends, each rank's receive posted first (a ring of blocking
 * synchronous sends would deadlock, as in MPI), then an exchange with sendrecv-like
 * ordering: even ranks send first. */
static void ring(shmc_comm *w, int me, int n, void *arg)
{
    size_t bytes = *(size_t *)arg;
    int right = (me + 1) % n, left = (me + n - 1) % n;
    uint8_t *out = shmct_xmalloc(bytes), *in = shmct_xmalloc(bytes);
    shmct_fill(out, bytes, shmct_seed(me, bytes, 1));
    shmc_request *rq[2];
    shmc_status st[2];
    T_OK(shmc_irecv(in, bytes, SHMC_UINT8, left, 7, w, &rq[0]));
    T_OK(shmc_issend(out, bytes, SHMC_UINT8, right, 7, w, &rq[1]));
    T_OK(shmc_waitall(2, rq, st));
    T_ASSERT(st[0].source == left && st[0].count == bytes, "receive status");
    shmct_check_data(in, bytes, shmct_seed(left, bytes, 1), left);
    if (n % 2 == 0) {
        int peer = me ^ 1;
        shmct_fill(out, bytes, shmct_seed(me, bytes, 2));
        if (me % 2 == 0) {
            T_OK(shmc_ssend(out, bytes, SHMC_UINT8, peer, 8, w));
            T_OK(shmc_recv(in, bytes, SHMC_UINT8, peer, 8, w, NULL));
        } else {
            T_OK(shmc_recv(in, bytes, SHMC_UINT8, peer, 8, w, NULL));
            T_OK(shmc_ssend(out, bytes, SHMC_UINT8, peer, 8, w));
        }
        shmct_check_data(in, bytes, shmct_seed(peer, bytes, 2), peer);
    }
    free(out);
    free(in);
}

START_TEST(test_ssend_ring)
{
    static const size_t sizes[] = {0, 16, E + 1, 300000};
    for (int i = 0; i < NRANK_COUNTS; i++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t b = sizes[k];
            ck_assert_msg(run_env(rank_counts[i], ring, &b, protocol_envs[_i]) == 0,
                          "%zu bytes at %d ranks failed", b, rank_counts[i]);
        }
}
END_TEST

/* To oneself: completes once the receive is there, posted before or after. */
static void to_self(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int a = 11 + me, b = 0;
    shmc_request *r, *s;
    T_OK(shmc_irecv(&b, 1, SHMC_INT32, me, 1, w, &r));
    T_OK(shmc_ssend(&a, 1, SHMC_INT32, me, 1, w));
    T_OK(shmc_wait(&r, NULL));
    T_ASSERT(b == 11 + me, "got %d", b);
    int done = 0;
    T_OK(shmc_issend(&a, 1, SHMC_INT32, me, 2, w, &s));
    T_OK(shmc_test(&s, &done, NULL));
    T_ASSERT(!done, "a synchronous send to oneself completed with no receive");
    b = 0;
    T_OK(shmc_recv(&b, 1, SHMC_INT32, me, 2, w, NULL));
    T_OK(shmc_wait(&s, NULL));
    T_ASSERT(b == 11 + me, "got %d", b);
}

START_TEST(test_ssend_self)
{
    ck_assert_int_eq(shmct_run(1, to_self, NULL), 0);
    ck_assert_int_eq(shmct_run(3, to_self, NULL), 0);
}
END_TEST

/* To a rank that left without receiving: the send fails, it does not hang. */
static void to_gone(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int v = 1;
    if (me == 1) {
        T_OK(shmc_send(&v, 1, SHMC_INT32, 0, 1, w));
        return; /* leaves */
    }
    T_OK(shmc_recv(&v, 1, SHMC_INT32, 1, 1, w, NULL));
    int rc = shmc_ssend(&v, 1, SHMC_INT32, 1, 2, w);
    T_ASSERT(rc == SHMC_ERR_PEER_DEAD, "ssend to a rank that left returned %d", rc);
    T_CALL(SHMC_ERR_RANK, shmc_ssend(&v, 1, SHMC_INT32, 5, 2, w));
    T_CALL(SHMC_ERR_TAG, shmc_ssend(&v, 1, SHMC_INT32, 0, SHMC_ANY_TAG, w));
    T_CALL(SHMC_ERR_ARG, shmc_ssend(NULL, 1, SHMC_INT32, 0, 2, w));
    T_CALL(SHMC_ERR_ARG, shmc_issend(&v, 1, SHMC_INT32, 0, 2, w, NULL));
    T_CALL(SHMC_ERR_ARG, shmc_issend(&v, 1, (shmc_dtype)99, 0, 2, w, NULL));
}

START_TEST(test_ssend_gone)
{
    ck_assert_int_eq(shmct_run(2, to_gone, NULL), 0);
    ck_assert_int_eq(shmc_ssend(NULL, 0, SHMC_INT32, 0, 0, NULL), SHMC_ERR_NOT_INIT);
}
END_TEST

static Suite *ssend_suite(void)
{
    Suite *s = suite_create("ssend");
    TCase *t = tcase_create("ssend");
    tcase_set_timeout(t, 120);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_loop_test(t, test_ssend_completes_on_match, 0, NPROTO);
    tcase_add_loop_test(t, test_ssend_ring, 0, NPROTO);
    tcase_add_loop_test(t, test_eager_limit_follows_ring, 0, (int)(sizeof edges / sizeof edges[0]));
    tcase_add_loop_test(t, test_eager_limit_auto_3_ranks, 0,
                        (int)(sizeof edges3 / sizeof edges3[0]));
    tcase_add_test(t, test_ssend_self);
    tcase_add_test(t, test_ssend_gone);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(ssend_suite());
}
