/*
 * Communicators and the collectives' contract: split and create_group semantics (order,
 * NULL for non-members, bad lists refused on every rank), isolation between
 * communicators and between point-to-point and collectives, the blocking slots' two
 * publications at once on two communicators, thousands of create/free
 * cycles, SHMC_ALGO_* in the environment (base/config.c's own parsing is
 * tests/unit/check_config.c's), and argument errors of every collective.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static const int rank_counts[] = {1, 2, 3, 5, 8};
#define NRC (int)(sizeof rank_counts / sizeof rank_counts[0])

/* ---- split --------------------------------------------------------------------------- */

static void split_rules(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *c;
    /* Same color for all, key by descending rank: ranks reverse. */
    T_OK(shmc_comm_split(w, 7, -me, &c));
    T_ASSERT(c && shmc_comm_size(c) == n && shmc_comm_rank(c) == n - 1 - me, "reversed split");
    T_OK(shmc_comm_free(&c));
    T_ASSERT(c == NULL, "free must clear the handle");
    /* Equal keys: order by old rank. Three colors; one rank opts out with color < 0. */
    int color = me == n - 1 && n > 1 ? -1 : me % 3;
    T_OK(shmc_comm_split(w, color, 0, &c));
    if (color < 0) {
        T_ASSERT(c == NULL, "negative color must give NULL");
    } else {
        int size = 0, rank = 0;
        for (int r = 0; r < n; r++) {
            int rc_ = r == n - 1 && n > 1 ? -1 : r % 3;
            if (rc_ == color) {
                if (r < me)
                    rank++;
                size++;
            }
        }
        T_ASSERT(shmc_comm_size(c) == size && shmc_comm_rank(c) == rank,
                 "color %d: size %d rank %d, expected %d %d", color, shmc_comm_size(c),
                 shmc_comm_rank(c), size, rank);
        /* The new communicator works: sum of world ranks of the members. */
        int v = me, sum = 0, want = 0;
        T_OK(shmc_allreduce(&v, &sum, 1, SHMC_INT32, SHMC_SUM, c));
        for (int r = 0; r < n; r++)
            if ((r == n - 1 && n > 1 ? -1 : r % 3) == color)
                want += r;
        T_ASSERT(sum == want, "sum %d, expected %d", sum, want);
        T_OK(shmc_comm_free(&c));
    }
    /* A NULL out on one rank fails the split on every rank. */
    T_CALL(SHMC_ERR_ARG, shmc_comm_split(w, 0, 0, me == 0 ? NULL : &c));
    T_ASSERT(me == 0 || c == NULL, "failed split must leave NULL");
    /* And the world is still fine. */
    T_OK(shmc_barrier(w));
}

START_TEST(test_comm_split_rules)
{
    for (int i = 0; i < NRC; i++)
        ck_assert_int_eq(shmct_run(rank_counts[i], split_rules, NULL), 0);
}
END_TEST

/* ---- create_group ---------------------------------------------------------------------- */

static void group_rules(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *c = (shmc_comm *)1;
    int list[16] = {0}, m = 0;
    for (int r = n - 1; r >= 0; r -= 2)
        list[m++] = r; /* every other rank, from the top */
    T_OK(shmc_comm_create_group(w, list, m, &c));
    int pos = -1;
    for (int i = 0; i < m; i++)
        if (list[i] == me)
            pos = i;
    if (pos < 0) {
        T_ASSERT(c == NULL, "non-member got a communicator");
    } else {
        T_ASSERT(c && shmc_comm_rank(c) == pos && shmc_comm_size(c) == m, "group rank");
        /* Rank i of the group is list[i]: a broadcast from group rank 0 reaches all. */
        int v = pos == 0 ? 1234 : 0;
        T_OK(shmc_broadcast(&v, 1, SHMC_INT32, 0, c));
        T_ASSERT(v == 1234, "broadcast in group");
        T_OK(shmc_comm_free(&c));
    }
    /* Bad lists: refused on every rank, nothing created. */
    int dup[2] = {0, 0}, out_of_range[1] = {n}, negative[1] = {-1};
    T_CALL(SHMC_ERR_ARG, shmc_comm_create_group(w, dup, 2, &c));
    T_ASSERT(c == NULL, "dup");
    T_CALL(SHMC_ERR_ARG, shmc_comm_create_group(w, out_of_range, 1, &c));
    T_CALL(SHMC_ERR_ARG, shmc_comm_create_group(w, negative, 1, &c));
    T_CALL(SHMC_ERR_ARG, shmc_comm_create_group(w, NULL, 1, &c));
    T_CALL(SHMC_ERR_ARG, shmc_comm_create_group(w, list, -1, &c));
    /* Only one rank's list is bad: still every rank fails. */
    int self[1] = {0};
    T_CALL(SHMC_ERR_ARG,
           shmc_comm_create_group(w, me == n - 1 ? dup : self, me == n - 1 ? 2 : 1, &c));
    /* An empty group: NULL for all. */
    T_OK(shmc_comm_create_group(w, list, 0, &c));
    T_ASSERT(c == NULL, "empty group");
    T_OK(shmc_barrier(w));
}

START_TEST(test_comm_create_group_rules)
{
    for (int i = 0; i < NRC; i++)
        ck_assert_int_eq(shmct_run(rank_counts[i], group_rules, NULL), 0);
}
END_TEST

/* ---- isolation --------------------------------------------------------------------------- */

/* Point-to-point and collectives on two communicators with the same members, interleaved:
 * a wildcard receive on one never sees the other's messages, and collectives on each
 * never take the other's or the user's messages. */
static void isolation(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *b;
    T_OK(shmc_comm_split(w, 0, me, &b)); /* same members, same ranks */
    int right = (me + 1) % n, left = (me + n - 1) % n;
    for (int round = 0; round < 50; round++) {
        shmc_request *ra, *rb;
        int got_a = -1, got_b = -1, va = 1000 + round, vb = 2000 + round;
        shmc_status sa, sb;
        T_OK(shmc_irecv(&got_a, 1, SHMC_INT32, SHMC_ANY_SOURCE, SHMC_ANY_TAG, w, &ra));
        T_OK(shmc_irecv(&got_b, 1, SHMC_INT32, SHMC_ANY_SOURCE, SHMC_ANY_TAG, b, &rb));
        /* Collectives on both, between the posting and the sends. */
        int x = me, s1 = 0, s2 = 0;
        T_OK(shmc_allreduce(&x, &s1, 1, SHMC_INT32, SHMC_SUM, b));
        shmc_request *sreq;
        T_OK(shmc_isend(&vb, 1, SHMC_INT32, right, round, b, &sreq));
        T_OK(shmc_allreduce(&x, &s2, 1, SHMC_INT32, SHMC_MAX, w));
        T_OK(shmc_send(&va, 1, SHMC_INT32, right, round, w));
        T_OK(shmc_barrier(b));
        T_OK(shmc_wait(&ra, &sa));
        T_OK(shmc_wait(&rb, &sb));
        T_OK(shmc_wait(&sreq, NULL));
        T_ASSERT(got_a == va && sa.source == left && sa.tag == round, "world got %d from %d", got_a,
                 sa.source);
        T_ASSERT(got_b == vb && sb.source == left && sb.tag == round, "b got %d from %d", got_b,
                 sb.source);
        T_ASSERT(s1 == n * (n - 1) / 2 && s2 == n - 1, "collectives %d %d", s1, s2);
    }
    T_OK(shmc_barrier(w));
    T_OK(shmc_comm_free(&b));
}

START_TEST(test_comm_isolation)
{
    const int ns[] = {2, 3, 4};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        ck_assert_int_eq(shmct_run(ns[i], isolation, NULL), 0);
}
END_TEST

/* ---- the blocking slots' two halves ------------------------------------------------------ */

/* Rooted calls by the shared slots (SHMC_ALGO_*=shm), back to back on two communicators of
 * the same members in opposite rank orders, of sizes that take a half of a slot or all of
 * it, each result checked. A rank sleeps now and then, so that owners run a call ahead of
 * their readers (slot.c: where the job shares CPUs, as here beyond 2 ranks, two
 * publications at once, and a publication for another communicator waits for both
 * halves' readers): a reader that marked done a publication it had not read, or an owner
 * that wrote over an unread half, shows as a wrong element; a reader's word left on the
 * other communicator's stamps, as a hang. At 2 ranks, the one publication at a time. */
static void halves(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    static const size_t counts[] = {2048, 4096, 512, 12000, 6000}; /* int32: 8 to 48 KiB */
    const size_t most = 12000;
    shmc_comm *c[2];
    T_OK(shmc_comm_split(w, 0, me, &c[0]));
    T_OK(shmc_comm_split(w, 0, n - 1 - me, &c[1]));
    uint32_t *in = shmct_xmalloc(most * sizeof *in),
             *out = shmct_xmalloc(most * (size_t)n * sizeof *out);
    for (uint32_t it = 0; it < 240; it++) {
        shmc_comm *cc = c[(it / 3) % 2];
        int cme = shmc_comm_rank(cc), root = (int)(it % (uint32_t)n);
        size_t count = counts[it % 5];
        if (it % 7 == (uint32_t)me)
            usleep(300);
        for (size_t i = 0; i < count; i++)
            in[i] = it * 1000003u + (uint32_t)i + (it % 3 ? (uint32_t)cme * 7919u : 0);
        switch (it % 3) {
        case 0:
            T_OK(shmc_broadcast(in, count, SHMC_UINT32, root, cc));
            for (size_t i = 0; i < count; i++)
                T_ASSERT(in[i] == it * 1000003u + (uint32_t)i, "call %u: broadcast element %zu", it,
                         i);
            break;
        case 1:
            T_OK(shmc_reduce(in, out, count, SHMC_UINT32, SHMC_SUM, root, cc));
            for (size_t i = 0; cme == root && i < count; i++)
                T_ASSERT(out[i] == (uint32_t)n * (it * 1000003u + (uint32_t)i) +
                                       7919u * (uint32_t)(n * (n - 1) / 2),
                         "call %u: reduce element %zu", it, i);
            break;
        default:
            T_OK(shmc_gather(in, out, count, SHMC_UINT32, root, cc));
            for (size_t i = 0; cme == root && i < (size_t)n * count; i++)
                T_ASSERT(out[i] ==
                             it * 1000003u + (uint32_t)(i % count) + (uint32_t)(i / count) * 7919u,
                         "call %u: gather element %zu", it, i);
            break;
        }
    }
    free(in);
    free(out);
    T_OK(shmc_comm_free(&c[0]));
    T_OK(shmc_comm_free(&c[1]));
}

START_TEST(test_comm_slot_halves)
{
    static const char *const env[] = {"SHMC_ALGO_BROADCAST=shm", "SHMC_ALGO_REDUCE=shm",
                                      "SHMC_ALGO_GATHER=shm", NULL};
    struct shmct_opts o = {.env = env};
    const int ns[] = {2, 3, 4, 8};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        ck_assert_int_eq(shmct_run_opts(ns[i], halves, NULL, &o), 0);
}
END_TEST

/* ---- many communicators ---------------------------------------------------------------- */

static void churn(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int last_id = 0;
    for (int i = 0; i < 3000; i++) {
        shmc_comm *c;
        T_OK(shmc_comm_split(w, (me + i) % 2, me, &c));
        /* Every new communicator gets a number no other had (the hang reports' "#N"). */
        int id = shmc_comm_id(c);
        T_ASSERT(id > last_id, "iteration %d: communicator #%d after #%d", i, id, last_id);
        last_id = id;
        int v = 1, s = 0;
        T_OK(shmc_allreduce(&v, &s, 1, SHMC_INT32, SHMC_SUM, c));
        T_ASSERT(s == shmc_comm_size(c), "iteration %d: %d", i, s);
        T_OK(shmc_comm_free(&c));
    }
    /* Nothing is left behind: no communicators, requests or unexpected messages (the
     * barriers keep the next making's messages, which a member ahead would send, out). */
    T_OK(shmc_barrier(w));
    T_ASSERT(shmct_stat("comms") == 0, "%llu communicators left",
             (unsigned long long)shmct_stat("comms"));
    T_ASSERT(shmct_stat("requests_active") == 0, "%llu requests left",
             (unsigned long long)shmct_stat("requests_active"));
    T_ASSERT(shmct_stat("unexpected_messages") == 0, "%llu unexpected messages left",
             (unsigned long long)shmct_stat("unexpected_messages"));
    T_ASSERT(shmc_comm_id(w) == 0, "the world is communicator %d", shmc_comm_id(w));
    T_OK(shmc_barrier(w));
    /* Freeing: the world, NULL, twice, or with a request pending are refused. */
    shmc_comm *c = NULL, *world = w;
    T_CALL(SHMC_ERR_ARG, shmc_comm_free(&world));
    T_CALL(SHMC_ERR_ARG, shmc_comm_free(NULL));
    T_CALL(SHMC_ERR_ARG, shmc_comm_free(&c));
    T_OK(shmc_comm_split(w, 0, 0, &c));
    shmc_request *r;
    int v = 0;
    T_OK(shmc_irecv(&v, 1, SHMC_INT32, shmc_comm_rank(c), 5, c, &r));
    T_CALL(SHMC_ERR_STATE, shmc_comm_free(&c));
    T_OK(shmc_send(&v, 1, SHMC_INT32, me, 5, c));
    T_OK(shmc_wait(&r, NULL));
    (void)n;
    T_OK(shmc_comm_free(&c));
    /* Unreceived messages of a freed communicator do not reach a later one. */
    T_OK(shmc_comm_split(w, 0, 0, &c));
    T_OK(shmc_send(&v, 1, SHMC_INT32, me, 9, c));
    T_OK(shmc_comm_free(&c));
    T_ASSERT(shmct_stat("unexpected_messages") == 0,
             "a freed communicator's message stayed queued");
}

START_TEST(test_comm_create_free_churn)
{
    ck_assert_int_eq(shmct_run(4, churn, NULL), 0);
}
END_TEST

/* ---- SHMC_ALGO_* ----------------------------------------------------------------------- */

/* Forced algorithms from the environment run and give the right results. */
static void algo_env(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    double v = me, s;
    T_OK(shmc_allreduce(&v, &s, 1, SHMC_FLOAT64, SHMC_SUM, w));
    T_ASSERT(s == n * (n - 1) / 2.0, "sum");
    T_OK(shmc_barrier(w));
}

static void init_fails_env(shmc_comm *unused, int me, int n, void *arg)
{
    (void)unused;
    (void)me;
    (void)n;
    (void)arg;
    shmc_comm *w = (shmc_comm *)1;
    T_CALL(SHMC_ERR_ENV, shmc_init(&w));
    T_ASSERT(w == NULL, "world must be NULL");
}

START_TEST(test_comm_algo_env)
{
    const char *const ok[] = {"SHMC_ALGO_ALLREDUCE=ring", "SHMC_ALGO_BARRIER=RD", NULL};
    struct shmct_opts o = {.env = ok};
    ck_assert_int_eq(shmct_run_opts(3, algo_env, NULL, &o), 0);

    const char *const bad[][2] = {{"SHMC_ALGO_ALLREDUCE=fastest", NULL},
                                  {"SHMC_ALGO_GATHER=rd", NULL}};
    const char *const want[] = {"SHMC_ALGO_ALLREDUCE='fastest' is not an algorithm of allreduce: "
                                "use one of auto, tree, ring, shm, rd, direct, stage",
                                "SHMC_ALGO_GATHER='rd' is not an algorithm of gather: use one of "
                                "auto, tree, ring, shm"};
    for (int i = 0; i < 2; i++) {
        char buf[4096];
        struct shmct_opts b = {.env = bad[i], .no_init = 1};
        shmct_stderr_begin();
        int failed = shmct_run_opts(1, init_fails_env, NULL, &b);
        shmct_stderr_end(buf, sizeof buf);
        ck_assert_int_eq(failed, 0);
        SHMCT_ASSERT_CONTAINS(buf, want[i]);
    }
}
END_TEST

/* ---- argument errors -------------------------------------------------------------------- */

static void bad_args(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    float f[64] = {0}, g[64] = {0};
    int32_t i32[64] = {0};
    /* Refused pairs, dtypes and ops. */
    T_CALL(SHMC_ERR_ARG, shmc_allreduce(f, g, 1, SHMC_FLOAT32, SHMC_BAND, w));
    T_CALL(SHMC_ERR_ARG, shmc_allreduce(i32, i32 + 8, 1, SHMC_INT32, SHMC_AVG, w));
    T_CALL(SHMC_ERR_ARG, shmc_reduce(f, g, 1, (shmc_dtype)42, SHMC_SUM, 0, w));
    T_CALL(SHMC_ERR_ARG, shmc_reduce_scatter(f, g, 1, SHMC_FLOAT32, (shmc_op)99, w));
    /* Roots. */
    T_CALL(SHMC_ERR_RANK, shmc_broadcast(f, 1, SHMC_FLOAT32, n, w));
    T_CALL(SHMC_ERR_RANK, shmc_reduce(f, g, 1, SHMC_FLOAT32, SHMC_SUM, -1, w));
    T_CALL(SHMC_ERR_RANK, shmc_gather(f, g, 1, SHMC_FLOAT32, n + 5, w));
    T_CALL(SHMC_ERR_RANK, shmc_scatter(f, g, 1, SHMC_FLOAT32, -2, w));
    /* Buffers. */
    T_CALL(SHMC_ERR_ARG, shmc_broadcast(NULL, 1, SHMC_FLOAT32, 0, w));
    T_CALL(SHMC_ERR_ARG, shmc_allreduce(NULL, g, 1, SHMC_FLOAT32, SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_allreduce(f, NULL, 1, SHMC_FLOAT32, SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_allgather(f, NULL, 1, SHMC_FLOAT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_alltoall(f, SHMC_IN_PLACE, 1, SHMC_FLOAT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_allreduce(f, SHMC_IN_PLACE, 1, SHMC_FLOAT32, SHMC_SUM, w));
    T_CALL(SHMC_ERR_ARG, shmc_broadcast(SHMC_IN_PLACE, 1, SHMC_FLOAT32, 0, w));
    if (n > 1) {
        /* In place where only the root may use it. */
        T_CALL(me == 0 ? SHMC_OK : SHMC_ERR_ARG,
               me == 0 ? SHMC_OK : shmc_gather(SHMC_IN_PLACE, g, 1, SHMC_FLOAT32, 0, w));
        T_CALL(me == 0 ? SHMC_OK : SHMC_ERR_ARG,
               me == 0 ? SHMC_OK : shmc_scatter(f, SHMC_IN_PLACE, 1, SHMC_FLOAT32, 0, w));
    }
    /* Sizes that overflow. */
    T_CALL(SHMC_ERR_ARG, shmc_allgather(f, g, SIZE_MAX / 2, SHMC_FLOAT32, w));
    T_CALL(SHMC_ERR_ARG, shmc_allreduce(f, g, SIZE_MAX / 2, SHMC_FLOAT64, SHMC_SUM, w));
    /* Communicators. */
    T_CALL(SHMC_ERR_ARG, shmc_barrier(NULL));
    T_CALL(SHMC_ERR_ARG, shmc_allreduce(f, g, 1, SHMC_FLOAT32, SHMC_SUM, NULL));
    /* Count 0 needs no buffers and communicates nothing. */
    T_OK(shmc_broadcast(NULL, 0, SHMC_FLOAT32, 0, w));
    T_OK(shmc_reduce(NULL, NULL, 0, SHMC_FLOAT32, SHMC_SUM, 0, w));
    T_OK(shmc_allreduce(NULL, NULL, 0, SHMC_FLOAT32, SHMC_SUM, w));
    T_OK(shmc_gather(NULL, NULL, 0, SHMC_FLOAT32, 0, w));
    T_OK(shmc_allgather(NULL, NULL, 0, SHMC_FLOAT32, w));
    T_OK(shmc_scatter(NULL, NULL, 0, SHMC_FLOAT32, 0, w));
    T_OK(shmc_reduce_scatter(NULL, NULL, 0, SHMC_FLOAT32, SHMC_SUM, w));
    T_OK(shmc_alltoall(NULL, NULL, 0, SHMC_FLOAT32, w));
    /* After all that, the communicator still works. */
    f[0] = (float)me;
    T_OK(shmc_allreduce(f, g, 1, SHMC_FLOAT32, SHMC_SUM, w));
    T_ASSERT(g[0] == (float)(n * (n - 1) / 2), "sum after errors: %f", (double)g[0]);
}

START_TEST(test_comm_collective_bad_args)
{
    for (int i = 0; i < NRC; i++)
        ck_assert_int_eq(shmct_run(rank_counts[i], bad_args, NULL), 0);
}
END_TEST

static void before_init(shmc_comm *unused, int me, int n, void *arg)
{
    (void)unused;
    (void)me;
    (void)n;
    (void)arg;
    float f = 0;
    shmc_comm *c;
    T_CALL(SHMC_ERR_NOT_INIT, shmc_allreduce(&f, &f, 1, SHMC_FLOAT32, SHMC_SUM, NULL));
    T_CALL(SHMC_ERR_NOT_INIT, shmc_broadcast(&f, 1, SHMC_FLOAT32, 0, NULL));
    T_CALL(SHMC_ERR_NOT_INIT, shmc_comm_split(NULL, 0, 0, &c));
    T_CALL(SHMC_ERR_NOT_INIT, shmc_comm_free(&c));
}

START_TEST(test_comm_before_init)
{
    struct shmct_opts o = {.no_init = 1};
    ck_assert_int_eq(shmct_run_opts(1, before_init, NULL, &o), 0);
}
END_TEST

static Suite *comm_suite(void)
{
    Suite *s = suite_create("comm");
    TCase *t = tcase_create("comm");
    tcase_set_timeout(t, 180);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_comm_split_rules);
    tcase_add_test(t, test_comm_create_group_rules);
    tcase_add_test(t, test_comm_isolation);
    tcase_add_test(t, test_comm_slot_halves);
    tcase_add_test(t, test_comm_create_free_churn);
    tcase_add_test(t, test_comm_algo_env);
    tcase_add_test(t, test_comm_collective_bad_args);
    tcase_add_test(t, test_comm_before_init);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(comm_suite());
}
