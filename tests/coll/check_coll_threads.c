/*
 * Blocking collectives and communicator makings from several threads at once
 * (SHMC_THREAD_MULTIPLE): each thread of a rank on a communicator of its own, the threads
 * started in opposite orders on even and odd ranks (the first one inside its call before
 * the second starts), while the main thread runs collectives on the world; every result
 * checked. Communicators made at once from threads on different parents, in different
 * orders on each rank, get numbers no other communicator has. Which communicators run
 * their blocking collectives as schedules, by thread level and SHMC_COLL_OVERLAP. A scheduled
 * blocking collective that a member never joins ends with SHMC_ERR_TIMEOUT at the communicator's
 * bound, and a member killed mid-way ends the others' calls with SHMC_ERR_PEER_DEAD.
 * Blocking calls (collectives and makings) and nonblocking collectives may come in
 * different orders on different members, as other MPI libraries let them.
 */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define ROUNDS 40
#define NT 3 /* threads per rank */

struct worker {
    shmc_comm *c, *world;
    int me, n, id;
    int ok;
    char why[160];
};

#define W_FAIL(w, ...)                                                                             \
    do {                                                                                           \
        snprintf((w)->why, sizeof(w)->why, __VA_ARGS__);                                           \
        return NULL;                                                                               \
    } while (0)

/* Blocking collectives of several kinds on w->c, each result checked. */
static void *collectives(void *arg)
{
    struct worker *w = arg;
    int n = w->n, me = w->me;
    int64_t *all = calloc((size_t)n, sizeof *all);
    size_t *cnt = calloc((size_t)n, sizeof *cnt), *dsp = calloc((size_t)n, sizeof *dsp);
    if (!all || !cnt || !dsp)
        W_FAIL(w, "no memory");
    for (int q = 0; q < n; q++) {
        cnt[q] = 1;
        dsp[q] = (size_t)q;
    }
    for (int round = 0; round < ROUNDS; round++) {
        int64_t x = me + round + w->id, sum = -1, b = me == round % n ? 1000 + round : -1;
        int rc = shmc_allreduce(&x, &sum, 1, SHMC_INT64, SHMC_SUM, w->c);
        int64_t want = (int64_t)n * (n - 1) / 2 + (int64_t)n * (round + w->id);
        if (rc != SHMC_OK || sum != want)
            W_FAIL(w, "all-reduce %d: %s, %lld for %lld", round, shmc_strerror(rc), (long long)sum,
                   (long long)want);
        if ((rc = shmc_broadcast(&b, 1, SHMC_INT64, round % n, w->c)) != SHMC_OK ||
            b != 1000 + round)
            W_FAIL(w, "broadcast %d: %s, %lld", round, shmc_strerror(rc), (long long)b);
        if ((rc = shmc_allgatherv(&x, 1, all, cnt, dsp, SHMC_INT64, w->c)) != SHMC_OK)
            W_FAIL(w, "allgatherv %d: %s", round, shmc_strerror(rc));
        for (int q = 0; q < n; q++)
            if (all[q] != q + round + w->id)
                W_FAIL(w, "allgatherv %d: block %d is %lld", round, q, (long long)all[q]);
        if ((rc = shmc_barrier(w->c)) != SHMC_OK)
            W_FAIL(w, "barrier %d: %s", round, shmc_strerror(rc));
    }
    free(all);
    free(cnt);
    free(dsp);
    w->ok = 1;
    return NULL;
}

/* Makings from w->c: a split, a group of the even ranks and an idup, each checked to have
 * one number on every member (an all-gather of shmc_comm_id on it) and freed. */
static int same_id(shmc_comm *c, int size)
{
    int id = shmc_comm_id(c), ids[64];
    if (id < 0 || size > 64 || shmc_allgather(&id, ids, 1, SHMC_INT32, c) != SHMC_OK)
        return -1;
    for (int q = 0; q < size; q++)
        if (ids[q] != id)
            return -1;
    return id;
}

static void *makings(void *arg)
{
    struct worker *w = arg;
    int n = w->n, me = w->me, evens[32], ne = 0;
    for (int q = 0; q < n; q += 2)
        evens[ne++] = q;
    for (int round = 0; round < ROUNDS / 4; round++) {
        shmc_comm *s = NULL, *g = NULL, *d = NULL;
        shmc_request *r;
        int rc = shmc_comm_split(w->c, me % 2, me, &s);
        if (rc != SHMC_OK || same_id(s, shmc_comm_size(s)) < 0)
            W_FAIL(w, "split %d: %s", round, shmc_strerror(rc));
        if ((rc = shmc_comm_create_group(w->c, evens, ne, &g)) != SHMC_OK ||
            (me % 2 == 0) != (g != NULL) || (g && same_id(g, ne) < 0))
            W_FAIL(w, "create_group %d: %s", round, shmc_strerror(rc));
        if ((rc = shmc_comm_idup(w->c, &d, &r)) != SHMC_OK || (rc = shmc_wait(&r, NULL)) ||
            same_id(d, n) < 0)
            W_FAIL(w, "idup %d: %s", round, shmc_strerror(rc));
        /* Every communicator made here has its own number, and none is the parent's. */
        int ids[3] = {shmc_comm_id(s), g ? shmc_comm_id(g) : -2, shmc_comm_id(d)};
        if (ids[0] == ids[2] || ids[0] == ids[1] || ids[1] == ids[2] ||
            ids[0] == shmc_comm_id(w->c) || ids[2] == shmc_comm_id(w->c))
            W_FAIL(w, "making %d: numbers %d %d %d, parent %d", round, ids[0], ids[1], ids[2],
                   shmc_comm_id(w->c));
        if (shmc_barrier(d) != SHMC_OK || shmc_comm_free(&s) || (g && shmc_comm_free(&g)) ||
            shmc_comm_free(&d))
            W_FAIL(w, "freeing %d", round);
    }
    w->ok = 1;
    return NULL;
}

struct plan {
    void *(*fn)(void *);
};

/* NT threads, each on a duplicate of the world made before they start, started in
 * opposite orders on even and odd ranks, 20 ms apart; the main thread meanwhile runs
 * all-reduces on the world. */
static void in_any_order(shmc_comm *w0, int me, int n, void *arg)
{
    (void)w0;
    const struct plan *pl = arg;
    shmc_comm *w;
    T_OK(shmc_init_thread(SHMC_THREAD_MULTIPLE, &w));
    struct worker t[NT];
    pthread_t th[NT];
    for (int k = 0; k < NT; k++) {
        t[k] = (struct worker){NULL, w, me, n, k, 0, ""};
        T_OK(shmc_comm_split(w, 0, me, &t[k].c));
    }
    for (int i = 0; i < NT; i++) {
        int k = me % 2 ? NT - 1 - i : i;
        T_ASSERT(pthread_create(&th[k], NULL, pl->fn, &t[k]) == 0, "pthread_create");
        usleep(20000);
    }
    for (int round = 0; round < ROUNDS; round++) {
        int64_t x = 1, sum = 0;
        T_OK(shmc_allreduce(&x, &sum, 1, SHMC_INT64, SHMC_SUM, w));
        T_ASSERT(sum == n, "world all-reduce %d: %lld", round, (long long)sum);
    }
    for (int k = 0; k < NT; k++) {
        pthread_join(th[k], NULL);
        T_ASSERT(t[k].ok, "thread %d: %s", k, t[k].why);
        T_OK(shmc_comm_free(&t[k].c));
    }
    T_OK(shmc_finalize());
}

START_TEST(test_blocking_collectives_from_threads)
{
    static const struct plan pl = {collectives};
    struct shmct_opts o = {.no_init = 1};
    ck_assert_int_eq(shmct_run_opts(_i ? 3 : 4, in_any_order, (void *)&pl, &o), 0);
}
END_TEST

START_TEST(test_makings_from_threads)
{
    static const struct plan pl = {makings};
    struct shmct_opts o = {.no_init = 1};
    ck_assert_int_eq(shmct_run_opts(_i ? 3 : 4, in_any_order, (void *)&pl, &o), 0);
}
END_TEST

/* Which communicators run their blocking collectives as schedules ("coll_scheduled"):
 * not the world; a duplicate made at SHMC_THREAD_MULTIPLE; not one made after every rank
 * set SHMC_COLL_OVERLAP=0; one made when a single member kept it at 1 (the members agree);
 * and, in a job at SHMC_THREAD_SERIALIZED, none. */
static uint64_t scheduled_by(shmc_comm *c)
{
    uint64_t before, after;
    int64_t x = 1, y = 0;
    T_OK(shmc_stat("coll_scheduled", &before));
    T_OK(shmc_allreduce(&x, &y, 1, SHMC_INT64, SHMC_SUM, c));
    T_ASSERT(y == shmc_comm_size(c), "all-reduce: %lld", (long long)y);
    T_OK(shmc_stat("coll_scheduled", &after));
    return after - before;
}

static void which(shmc_comm *w0, int me, int n, void *arg)
{
    (void)w0, (void)n;
    int multiple = *(const int *)arg;
    shmc_comm *w, *d;
    T_OK(shmc_init_thread(multiple ? SHMC_THREAD_MULTIPLE : SHMC_THREAD_SERIALIZED, &w));
    T_ASSERT(scheduled_by(w) == 0, "the world's all-reduce was scheduled");
    T_OK(shmc_comm_split(w, 0, me, &d));
    T_ASSERT(scheduled_by(d) == (uint64_t)multiple, "a duplicate: %d", multiple);
    T_OK(shmc_comm_free(&d));
    T_OK(shmc_config_set("SHMC_COLL_OVERLAP", "0"));
    T_OK(shmc_comm_split(w, 0, me, &d));
    T_ASSERT(scheduled_by(d) == 0, "a duplicate after SHMC_COLL_OVERLAP=0 was scheduled");
    T_OK(shmc_comm_free(&d));
    T_OK(shmc_config_set("SHMC_COLL_OVERLAP", me == 1 ? "1" : "0"));
    T_OK(shmc_comm_split(w, 0, me, &d));
    T_ASSERT(scheduled_by(d) == (uint64_t)multiple, "one member kept 1: %d", multiple);
    T_OK(shmc_comm_free(&d));
    T_OK(shmc_finalize());
}

START_TEST(test_which_communicators_are_scheduled)
{
    int multiple = _i;
    struct shmct_opts o = {.no_init = 1};
    ck_assert_int_eq(shmct_run_opts(3, which, &multiple, &o), 0);
}
END_TEST

/* The last rank never joins an all-reduce on a duplicate with a 300 ms bound: the others'
 * calls end with SHMC_ERR_TIMEOUT, and the duplicate's later collectives fail at once; the
 * world still works. */
static void timeout(shmc_comm *w0, int me, int n, void *arg)
{
    (void)w0, (void)arg;
    shmc_comm *w, *d;
    T_OK(shmc_init_thread(SHMC_THREAD_MULTIPLE, &w));
    T_OK(shmc_comm_split(w, 0, me, &d));
    T_OK(shmc_comm_set_timeout(d, 300));
    int64_t x = 1, y = 0;
    if (me != n - 1) {
        T_CALL(SHMC_ERR_TIMEOUT, shmc_allreduce(&x, &y, 1, SHMC_INT64, SHMC_SUM, d));
        int rc = shmc_barrier(d);
        T_ASSERT(rc != SHMC_OK, "a barrier after the time-out succeeded");
        /* A duplicate of it fails at its start (its schedule's end then gives back what
         * the making took), leaving no communicator or request. */
        shmc_comm *e = NULL;
        shmc_request *q = NULL;
        rc = shmc_comm_idup(d, &e, &q);
        T_ASSERT(rc != SHMC_OK && e == NULL && q == NULL, "an idup after the time-out: %s",
                 shmc_strerror(rc));
    }
    T_OK(shmc_barrier(w));
    T_OK(shmc_allreduce(&x, &y, 1, SHMC_INT64, SHMC_SUM, w));
    T_ASSERT(y == n, "world all-reduce: %lld", (long long)y);
    shmc_comm_free(&d);
    T_OK(shmc_finalize());
}

START_TEST(test_scheduled_blocking_timeout)
{
    struct shmct_opts o = {.no_init = 1};
    ck_assert_int_eq(shmct_run_opts(3, timeout, NULL, &o), 0);
}
END_TEST

/* A member is killed while the others are in a scheduled blocking all-reduce: each gets
 * SHMC_ERR_PEER_DEAD, not a hang. It dies only once every other member has left the
 * barrier before (a token from each): a death counts as a quit of every communicator, so
 * a barrier it had finished may still fail at a member that had not. */
static void dead(shmc_comm *w0, int me, int n, void *arg)
{
    (void)w0, (void)arg;
    shmc_comm *w, *d;
    int64_t go = 1;
    T_OK(shmc_init_thread(SHMC_THREAD_MULTIPLE, &w));
    T_OK(shmc_comm_split(w, 0, me, &d));
    T_OK(shmc_barrier(d));
    if (me == n - 1) {
        for (int q = 0; q < n - 1; q++)
            T_OK(shmc_recv(&go, 1, SHMC_INT64, q, 7, w, NULL));
        raise(SIGKILL);
    }
    T_OK(shmc_send(&go, 1, SHMC_INT64, n - 1, 7, w));
    int64_t x = 1, y = 0;
    int rc = shmc_allreduce(&x, &y, 1, SHMC_INT64, SHMC_SUM, d);
    T_ASSERT(rc == SHMC_ERR_PEER_DEAD, "the all-reduce ended with %s", shmc_strerror(rc));
}

START_TEST(test_scheduled_blocking_dead_member)
{
    struct shmct_opts o = {.no_init = 1, .expect_fail = 1, .keep_going = 1};
    ck_assert_int_eq(shmct_run_opts(4, dead, NULL, &o), 1);
    ck_assert(WIFSIGNALED(shmct_status(3)) && WTERMSIG(shmct_status(3)) == SIGKILL);
}
END_TEST

/* Rank r (each in turn) starts a nonblocking all-reduce before a blocking barrier, a
 * blocking all-reduce and a duplication; the others make those blocking calls first and
 * start theirs after: each kind is in one order everywhere, the two kinds are not. On the
 * world and on a duplicate (whose blocking collectives run as schedules at
 * SHMC_THREAD_MULTIPLE, _i = 1). */
static void interleaved(shmc_comm *w0, int me, int n, void *arg)
{
    (void)w0;
    int multiple = *(const int *)arg;
    shmc_comm *w, *d, *e;
    T_OK(shmc_init_thread(multiple ? SHMC_THREAD_MULTIPLE : SHMC_THREAD_SERIALIZED, &w));
    T_OK(shmc_comm_split(w, 0, me, &d));
    shmc_comm *on[2] = {w, d};
    for (int k = 0; k < 2; k++)
        for (int r = 0; r < n; r++) {
            int64_t a = me + 1, b = 0, x = 1, y = 0;
            shmc_request *q = NULL;
            if (me == r)
                T_OK(shmc_iallreduce(&a, &b, 1, SHMC_INT64, SHMC_SUM, on[k], &q));
            T_OK(shmc_barrier(on[k]));
            T_OK(shmc_allreduce(&x, &y, 1, SHMC_INT64, SHMC_SUM, on[k]));
            T_ASSERT(y == n, "blocking all-reduce: %lld", (long long)y);
            T_OK(shmc_comm_split(on[k], 0, me, &e));
            T_OK(shmc_comm_free(&e));
            if (me != r)
                T_OK(shmc_iallreduce(&a, &b, 1, SHMC_INT64, SHMC_SUM, on[k], &q));
            T_OK(shmc_wait(&q, NULL));
            T_ASSERT(b == (int64_t)n * (n + 1) / 2, "nonblocking all-reduce: %lld", (long long)b);
        }
    T_OK(shmc_comm_free(&d));
    T_OK(shmc_finalize());
}

START_TEST(test_blocking_and_nonblocking_interleaved)
{
    int multiple = _i;
    struct shmct_opts o = {.no_init = 1};
    ck_assert_int_eq(shmct_run_opts(3, interleaved, &multiple, &o), 0);
}
END_TEST

static Suite *coll_threads_suite(void)
{
    Suite *s = suite_create("coll_threads");
    TCase *t = tcase_create("coll_threads");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_blocking_collectives_from_threads, 0, 2);
    tcase_add_loop_test(t, test_makings_from_threads, 0, 2);
    tcase_add_loop_test(t, test_which_communicators_are_scheduled, 0, 2);
    tcase_add_test(t, test_scheduled_blocking_timeout);
    tcase_add_test(t, test_scheduled_blocking_dead_member);
    tcase_add_loop_test(t, test_blocking_and_nonblocking_interleaved, 0, 2);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(coll_threads_suite());
}
