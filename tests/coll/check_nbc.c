/*
 * The nonblocking collectives: each against its blocking form on the same inputs (1 to 8
 * ranks, every root, in-place forms, SUM, MAX, AVG and a non-commutative user op, v-forms
 * with uneven and empty blocks); several in flight on one communicator completed in
 * reverse order; one waited for while its peers are inside a blocking collective; threads
 * starting them on their own communicators in opposite orders on alternate ranks; a
 * member killed while the others wait; a block of the wrong size; bad arguments; the
 * world's all-reduce on its shared memory, alone, in flight with a blocking call, and with
 * counts that differ; the world's other collectives by rounds, at their limits and past
 * them, and against a schedule on another rank; schedules passing their gates while the
 * other rank is away, meeting a call by rounds, and a different op; the same calls on a
 * split communicator (schedules); calls made again with the same arguments, which run
 * the schedule kept from the last one; the 2-rank exchanges done in their start, with
 * either rank late and with a mailbox full of the program's messages; synchronous sends
 * and the reduce by direct sends where the job has more ranks than CPUs; the world's
 * rooted calls through the lane's slots, two publications a slot, owners ahead of late
 * readers.
 */
#include <check.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "coll_ref.h"
#include "harness.h"

#define C 37 /* elements per block */
/* int64 elements up to the limit of a rooted call's data in one of the nonblocking lane's
 * slots (64 KiB, lib/coll/nbslot.h), and one past it: a test sees the library as a program does, so
 * the limit is restated here, as are a round's size (SHMC_WSYNC_BYTES, 32 KiB of each rank) and
 * the 2-rank limit of the calls of n blocks in one round where the blocking call does not go by
 * rounds (SHMC_NBW_TWO_ROUND_ANY, 2 KiB in all). */
#define TWO 8192
#define OVER (TWO + 1)
/* The world's rank counts for the lane's tests. */
static const int world_sizes[] = {2, 3, 4, 8};

static int64_t val(int r, size_t i)
{
    return (int64_t)r * 1000 + (int64_t)(i % 89) - 40;
}

static void same(const int64_t *a, const int64_t *b, size_t n, const char *what, int me)
{
    for (size_t i = 0; i < n; i++)
        T_ASSERT(a[i] == b[i], "%s, rank %d, element %zu: %lld, the blocking call's %lld", what, me,
                 i, (long long)a[i], (long long)b[i]);
}

static void fill(int64_t *v, size_t n, int me)
{
    for (size_t i = 0; i < n; i++)
        v[i] = val(me, i);
}

/* Starts a nonblocking call, then waits for it. */
#define NB(call)                                                                                   \
    do {                                                                                           \
        shmc_request *r_ = NULL;                                                                   \
        T_OK(call);                                                                                \
        T_OK(shmc_wait(&r_, NULL));                                                                \
    } while (0)

static void against_blocking(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    size_t big = (size_t)C * (size_t)n;
    int64_t *in = shmct_xmalloc(big * 8), *a = shmct_xmalloc(big * 8), *b = shmct_xmalloc(big * 8);
    fill(in, big, me);
    shmc_op aff;
    T_OK(shmc_op_create(affine, NULL, 0, &aff));

    NB(shmc_ibarrier(w, &r_));
    for (int root = 0; root < n; root++) {
        memcpy(a, in, big * 8);
        memcpy(b, in, big * 8);
        NB(shmc_ibroadcast(a, C, SHMC_INT64, root, w, &r_));
        T_OK(shmc_broadcast(b, C, SHMC_INT64, root, w));
        same(a, b, C, "ibroadcast", me);
        shmc_op ops[] = {SHMC_SUM, SHMC_MAX, aff};
        for (int o = 0; o < 3; o++) {
            shmc_dtype dt = o == 2 ? SHMC_DTYPE_BYTES(16) : SHMC_INT64;
            size_t cnt = o == 2 ? C / 2 : C;
            memset(a, 0, big * 8);
            memset(b, 0, big * 8);
            NB(shmc_ireduce(in, a, cnt, dt, ops[o], root, w, &r_));
            T_OK(shmc_reduce(in, b, cnt, dt, ops[o], root, w));
            if (me == root)
                same(a, b, C, "ireduce", me);
            /* in place at the root: its input combined in its rank's turn */
            memcpy(a, in, C * 8);
            NB(shmc_ireduce(me == root ? SHMC_IN_PLACE : in, a, cnt, dt, ops[o], root, w, &r_));
            if (me == root)
                same(a, b, o == 2 ? cnt * 2 : cnt, "ireduce in place", me);
            memset(a, 0, big * 8);
            if (root == 0) {
                NB(shmc_iallreduce(in, a, cnt, dt, ops[o], w, &r_));
                T_OK(shmc_allreduce(in, b, cnt, dt, ops[o], w));
                same(a, b, C, "iallreduce", me);
                memcpy(a, in, big * 8);
                memcpy(b, in, big * 8);
                NB(shmc_iallreduce(SHMC_IN_PLACE, a, cnt, dt, ops[o], w, &r_));
                T_OK(shmc_allreduce(SHMC_IN_PLACE, b, cnt, dt, ops[o], w));
                same(a, b, C, "iallreduce in place", me);
                NB(shmc_iscan(in, a, cnt, dt, ops[o], w, &r_));
                T_OK(shmc_scan(in, b, cnt, dt, ops[o], w));
                same(a, b, C, "iscan", me);
                NB(shmc_iexscan(in, a, cnt, dt, ops[o], w, &r_));
                T_OK(shmc_exscan(in, b, cnt, dt, ops[o], w));
                if (me > 0)
                    same(a, b, C, "iexscan", me);
                NB(shmc_ireduce_scatter(in, a, 2, dt, ops[o], w, &r_));
                T_OK(shmc_reduce_scatter(in, b, 2, dt, ops[o], w));
                same(a, b, o == 2 ? 4 : 2, "ireduce_scatter", me);
            }
        }
        /* AVG over floats, at this root */
        double fin[C], fa[C], fb[C];
        for (int i = 0; i < C; i++)
            fin[i] = (double)val(me, (size_t)i); /* exact sums: the same bits in any grouping */
        NB(shmc_ireduce(fin, fa, C, SHMC_FLOAT64, SHMC_AVG, root, w, &r_));
        T_OK(shmc_reduce(fin, fb, C, SHMC_FLOAT64, SHMC_AVG, root, w));
        if (me == root)
            T_ASSERT(!memcmp(fa, fb, sizeof fa), "ireduce AVG differs at root %d", root);
        /* the rooted data movers, in place at the root too */
        memset(a, 0, big * 8);
        memset(b, 0, big * 8);
        NB(shmc_igather(in, a, C, SHMC_INT64, root, w, &r_));
        T_OK(shmc_gather(in, b, C, SHMC_INT64, root, w));
        if (me == root)
            same(a, b, big, "igather", me);
        memset(a, 0, big * 8);
        NB(shmc_iscatter(in, a, C, SHMC_INT64, root, w, &r_));
        T_OK(shmc_scatter(in, b, C, SHMC_INT64, root, w));
        same(a, b, C, "iscatter", me);
        T_OK(shmc_gather(in, b, C, SHMC_INT64, root, w));
        if (me == root) {
            memset(a, 0, big * 8);
            memcpy(a + (size_t)root * C, in, C * 8);
            NB(shmc_igather(SHMC_IN_PLACE, a, C, SHMC_INT64, root, w, &r_));
            same(a, b, big, "igather in place", me);
        } else {
            NB(shmc_igather(in, NULL, C, SHMC_INT64, root, w, &r_));
        }
    }
    memset(a, 0, big * 8);
    NB(shmc_iallgather(in, a, C, SHMC_INT64, w, &r_));
    T_OK(shmc_allgather(in, b, C, SHMC_INT64, w));
    same(a, b, big, "iallgather", me);
    NB(shmc_ialltoall(in, a, C, SHMC_INT64, w, &r_));
    T_OK(shmc_alltoall(in, b, C, SHMC_INT64, w));
    same(a, b, big, "ialltoall", me);
    memcpy(a, in, big * 8);
    memcpy(b, in, big * 8);
    NB(shmc_ialltoall(SHMC_IN_PLACE, a, C, SHMC_INT64, w, &r_));
    T_OK(shmc_alltoall(SHMC_IN_PLACE, b, C, SHMC_INT64, w));
    same(a, b, big, "ialltoall in place", me);

    /* v-forms: block q has q % 3 * 5 elements (some empty), laid out in reverse order */
    size_t *cnt = shmct_xmalloc((size_t)n * sizeof *cnt), *dsp = shmct_xmalloc((size_t)n * 8);
    size_t tot = 0;
    for (int q = n - 1; q >= 0; q--) {
        cnt[q] = (size_t)(q % 3) * 5;
        dsp[q] = tot;
        tot += cnt[q];
    }
    for (int root = 0; root < n; root++) {
        memset(a, 0, big * 8);
        memset(b, 0, big * 8);
        NB(shmc_igatherv(in, cnt[me], a, cnt, dsp, SHMC_INT64, root, w, &r_));
        T_OK(shmc_gatherv(in, cnt[me], b, cnt, dsp, SHMC_INT64, root, w));
        if (me == root)
            same(a, b, tot, "igatherv", me);
        NB(shmc_iscatterv(in, cnt, dsp, a, cnt[me], SHMC_INT64, root, w, &r_));
        T_OK(shmc_scatterv(in, cnt, dsp, b, cnt[me], SHMC_INT64, root, w));
        same(a, b, cnt[me], "iscatterv", me);
    }
    NB(shmc_iallgatherv(in, cnt[me], a, cnt, dsp, SHMC_INT64, w, &r_));
    T_OK(shmc_allgatherv(in, cnt[me], b, cnt, dsp, SHMC_INT64, w));
    same(a, b, tot, "iallgatherv", me);
    NB(shmc_ireduce_scatterv(in, a, cnt, SHMC_INT64, SHMC_SUM, w, &r_));
    T_OK(shmc_reduce_scatterv(in, b, cnt, SHMC_INT64, SHMC_SUM, w));
    same(a, b, cnt[me], "ireduce_scatterv", me);
    /* alltoallv: rank s sends (s + d) % 4 elements to d */
    size_t *sc = shmct_xmalloc((size_t)n * 8), *sd = shmct_xmalloc((size_t)n * 8);
    size_t *rc = shmct_xmalloc((size_t)n * 8), *rd = shmct_xmalloc((size_t)n * 8);
    size_t so = 0, ro = 0;
    for (int q = 0; q < n; q++) {
        sc[q] = (size_t)((me + q) % 4);
        sd[q] = so;
        so += sc[q];
        rc[q] = (size_t)((q + me) % 4);
        rd[q] = ro;
        ro += rc[q];
    }
    memset(a, 0, big * 8);
    memset(b, 0, big * 8);
    NB(shmc_ialltoallv(in, sc, sd, a, rc, rd, SHMC_INT64, w, &r_));
    T_OK(shmc_alltoallv(in, sc, sd, b, rc, rd, SHMC_INT64, w));
    same(a, b, ro, "ialltoallv", me);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(cnt);
    free(dsp);
    T_OK(shmc_op_free(&aff));
    free(in);
    free(a);
    free(b);
}

START_TEST(test_nbc_against_blocking)
{
    static const int sizes[] = {1, 2, 3, 4, 5, 8};
    ck_assert_int_eq(shmct_run(sizes[_i], against_blocking, NULL), 0);
}
END_TEST

/* Several in flight on one communicator, completed in the reverse of their order, with a
 * point-to-point exchange and a blocking collective between. */
static void in_flight(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    enum { K = 12 };
    int64_t in[K][C], out[K][C * 8];
    shmc_request *r[K];
    for (int k = 0; k < K; k++) {
        fill(in[k], C, me + k);
        switch (k % 4) {
        case 0:
            T_OK(shmc_iallreduce(in[k], out[k], C, SHMC_INT64, SHMC_SUM, w, &r[k]));
            break;
        case 1:
            memcpy(out[k], in[k], sizeof in[k]);
            T_OK(shmc_ibroadcast(out[k], C, SHMC_INT64, k % n, w, &r[k]));
            break;
        case 2:
            T_OK(shmc_iallgather(in[k], out[k], C / 8 + 1, SHMC_INT64, w, &r[k]));
            break;
        default:
            T_OK(shmc_ibarrier(w, &r[k]));
            break;
        }
    }
    int x = me, y = -1;
    T_OK(shmc_sendrecv(&x, 1, (me + 1) % n, 5, &y, 1, (me + n - 1) % n, 5, SHMC_INT32, w, NULL));
    T_OK(shmc_barrier(w));
    for (int k = K - 1; k >= 0; k--) {
        int done = 0;
        T_OK(shmc_test(&r[k], &done, NULL));
        if (!done)
            T_OK(shmc_wait(&r[k], NULL));
        T_ASSERT(r[k] == NULL, "request %d not freed", k);
    }
    for (int k = 0; k < K; k++)
        for (size_t i = 0; i < C; i++) {
            int64_t want = 0;
            if (k % 4 == 0)
                for (int q = 0; q < n; q++)
                    want += val(q + k, i);
            else if (k % 4 == 1)
                want = val(k % n + k, i);
            else
                break;
            T_ASSERT(out[k][i] == want, "call %d element %zu: %lld, expected %lld", k, i,
                     (long long)out[k][i], (long long)want);
        }
    for (int k = 2; k < K; k += 4)
        for (int q = 0; q < n; q++)
            T_ASSERT(out[k][(size_t)q * (C / 8 + 1)] == val(q + k, 0), "allgather %d block %d", k,
                     q);
}

START_TEST(test_nbc_several_in_flight)
{
    ck_assert_int_eq(shmct_run(2, in_flight, NULL), 0);
    ck_assert_int_eq(shmct_run(5, in_flight, NULL), 0);
}
END_TEST

/* The root runs ahead through calls started and waited for at once (blocks small enough to
 * go eagerly, and past that limit, coll/sched.c) while each receiver has receives of its
 * own posted: one of the program's from the root, never matched until the end, and one of
 * the next call that a second call in flight holds. Each receiver takes what it can from
 * its mailbox at its start, in order: every block is the root's, and the program's own
 * receive gets the root's last message, not a block. On a communicator split from the
 * world, whose calls are all schedules. */
static void run_ahead(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, me, &c));
    enum { CALLS = 300 };
    static const size_t sizes[] = {1, 64, 1024, 4096};
    size_t most = sizes[3];
    int64_t *buf = shmct_xmalloc(2 * most * sizeof *buf), token = -1;
    shmc_request *mine = NULL, *r[2];
    if (me)
        T_OK(shmc_irecv(&token, 1, SHMC_INT64, 0, 5, c, &mine));
    for (int k = 0; k < CALLS; k++) {
        size_t count = sizes[k % 4];
        for (int h = 0; h < 2; h++)
            for (size_t i = 0; i < count; i++)
                buf[h * most + i] = me ? -7 : val(k * 2 + h, i);
        for (int h = 0; h < 2; h++)
            T_OK(shmc_ibroadcast(buf + h * most, count, SHMC_INT64, 0, c, &r[h]));
        T_OK(shmc_waitall(2, r, NULL));
        for (int h = 0; h < 2; h++)
            for (size_t i = 0; i < count; i++)
                T_ASSERT(buf[h * most + i] == val(k * 2 + h, i),
                         "rank %d of %d, call %d/%d, element %zu", me, n, k, h, i);
    }
    if (me == 0)
        for (int q = 1; q < n; q++)
            T_OK(shmc_send(&(int64_t){42}, 1, SHMC_INT64, q, 5, c));
    else
        T_OK(shmc_wait(&mine, NULL));
    T_ASSERT(me == 0 || token == 42, "rank %d's own receive got %lld", me, (long long)token);
    T_OK(shmc_comm_free(&c));
    free(buf);
}

START_TEST(test_nbc_run_ahead)
{
    ck_assert_int_eq(shmct_run(2, run_ahead, NULL), 0);
    ck_assert_int_eq(shmct_run(4, run_ahead, NULL), 0);
}
END_TEST

/* Rank 0 waits in a blocking barrier while the others wait for an ibarrier and an
 * iallreduce that need rank 0's messages: its blocking wait moves them along. */
static void behind_blocking(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_request *r[2];
    int64_t x = me + 1, sum = 0;
    T_OK(shmc_ibarrier(w, &r[0]));
    T_OK(shmc_iallreduce(&x, &sum, 1, SHMC_INT64, SHMC_SUM, w, &r[1]));
    if (me == 0) {
        T_OK(shmc_barrier(w));
        T_OK(shmc_waitall(2, r, NULL));
    } else {
        T_OK(shmc_waitall(2, r, NULL));
        T_OK(shmc_barrier(w));
    }
    T_ASSERT(sum == (int64_t)n * (n + 1) / 2, "sum %lld", (long long)sum);
}

START_TEST(test_nbc_progress_inside_blocking_calls)
{
    ck_assert_int_eq(shmct_run(4, behind_blocking, NULL), 0);
}
END_TEST

/* Two threads per rank, each on a communicator of its own, start and complete their
 * calls in opposite orders on even and odd ranks: the blocking collectives' one at a
 * time rule does not hold them. */
struct twin {
    shmc_comm *c;
    int me, n, id, ok;
    pthread_barrier_t *pb;
};

static void *twin_run(void *p)
{
    struct twin *t = p;
    for (int round = 0; round < 20; round++) {
        int64_t x = t->me + round, sum = -1;
        shmc_request *r;
        if (shmc_iallreduce(&x, &sum, 1, SHMC_INT64, SHMC_SUM, t->c, &r) != SHMC_OK ||
            shmc_wait(&r, NULL) != SHMC_OK)
            return NULL;
        if (sum != (int64_t)t->n * (t->n - 1) / 2 + (int64_t)t->n * round)
            return NULL;
    }
    t->ok = 1;
    return NULL;
}

static void threads(shmc_comm *w0, int me, int n, void *arg)
{
    (void)w0, (void)arg;
    shmc_comm *w;
    T_OK(shmc_init_thread(SHMC_THREAD_MULTIPLE, &w));
    shmc_comm *c[2];
    T_OK(shmc_comm_split(w, 0, me, &c[0]));
    T_OK(shmc_comm_split(w, 0, me, &c[1]));
    struct twin t[2];
    pthread_t th[2];
    for (int i = 0; i < 2; i++) {
        /* odd ranks start the second communicator's thread first */
        int k = me % 2 ? 1 - i : i;
        t[k] = (struct twin){c[k], me, n, k, 0, NULL};
        T_ASSERT(pthread_create(&th[k], NULL, twin_run, &t[k]) == 0, "pthread_create");
    }
    for (int k = 0; k < 2; k++) {
        pthread_join(th[k], NULL);
        T_ASSERT(t[k].ok, "thread %d's all-reduces failed", k);
    }
    T_OK(shmc_comm_free(&c[0]));
    T_OK(shmc_comm_free(&c[1]));
    T_OK(shmc_finalize());
}

START_TEST(test_nbc_threads_in_any_order)
{
    struct shmct_opts o = {.no_init = 1};
    ck_assert_int_eq(shmct_run_opts(4, threads, NULL, &o), 0);
}
END_TEST

/* A member is killed while the others wait for an all-reduce that needs it: each gets an
 * error, not a hang, and the communicator's later collectives fail too. */
static void dead_member(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int64_t x = me, y;
    T_OK(shmc_barrier(w));
    if (me == n - 1)
        raise(SIGKILL);
    shmc_request *r;
    int rc = shmc_iallreduce(&x, &y, 1, SHMC_INT64, SHMC_SUM, w, &r);
    if (rc == SHMC_OK) /* (or refused at once: the death was seen first) */
        rc = shmc_wait(&r, NULL);
    T_ASSERT(rc == SHMC_ERR_PEER_DEAD, "the all-reduce ended with %s", shmc_strerror(rc));
    rc = shmc_ibarrier(w, &r);
    if (rc == SHMC_OK)
        rc = shmc_wait(&r, NULL);
    T_ASSERT(rc == SHMC_ERR_PEER_DEAD, "a later ibarrier returned %s", shmc_strerror(rc));
}

/* A member dies while the others have calls queued on the world's lane (parked behind the
 * first, which waits for it): waited for last first, each ends with SHMC_ERR_PEER_DEAD. The
 * dying rank hears from every other that its calls are started. One is a broadcast of 16
 * KiB from the dying rank, through the lane's slots (lib/coll/nbslot.h). */
static void dead_member_queued(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    enum { K = 6, BIG = 2048 };
    int64_t x[K], y[K], go = 1, *big = shmct_xmalloc(BIG * 8);
    shmc_request *r[K];
    T_OK(shmc_barrier(w));
    if (me == n - 1) {
        for (int q = 0; q < n - 1; q++)
            T_OK(shmc_recv(&go, 1, SHMC_INT64, q, 7, w, NULL));
        raise(SIGKILL);
    }
    for (int k = 0; k < K; k++) {
        x[k] = me + k;
        if (k % 2)
            T_OK(shmc_ibarrier(w, &r[k]));
        else if (k == 4)
            T_OK(shmc_ibroadcast(big, BIG, SHMC_INT64, n - 1, w, &r[k]));
        else
            T_OK(shmc_iallreduce(&x[k], &y[k], 1, SHMC_INT64, SHMC_SUM, w, &r[k]));
    }
    T_OK(shmc_send(&go, 1, SHMC_INT64, n - 1, 7, w));
    for (int k = K - 1; k >= 0; k--) {
        int rc = shmc_wait(&r[k], NULL);
        T_ASSERT(rc == SHMC_ERR_PEER_DEAD, "queued call %d ended with %s", k, shmc_strerror(rc));
    }
    free(big);
}

START_TEST(test_nbc_dead_member_queued)
{
    struct shmct_opts o = {.expect_fail = 1, .keep_going = 1};
    ck_assert_int_eq(shmct_run_opts(3, dead_member_queued, NULL, &o), 1);
    ck_assert(WIFSIGNALED(shmct_status(2)) && WTERMSIG(shmct_status(2)) == SIGKILL);
}
END_TEST

START_TEST(test_nbc_dead_member)
{
    struct shmct_opts o = {.expect_fail = 1, .keep_going = 1};
    ck_assert_int_eq(shmct_run_opts(4, dead_member, NULL, &o), 1);
    ck_assert(WIFSIGNALED(shmct_status(3)) && WTERMSIG(shmct_status(3)) == SIGKILL);
}
END_TEST

/* Rank 1 gathers one element fewer than the root expects: a mismatch at the root; then bad
 * arguments, each refused before anything starts. */
static void mismatch_and_bad(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg, (void)n;
    int64_t in[8] = {0}, out[64];
    shmc_request *r;
    const size_t cnt[3] = {4, 4, 4}, dsp[3] = {0, 4, 8};
    T_OK(shmc_igatherv(in, me == 1 ? 3 : 4, out, cnt, dsp, SHMC_INT64, 0, w, &r));
    int rc = shmc_wait(&r, NULL);
    if (me == 0)
        T_ASSERT(rc == SHMC_ERR_MISMATCH, "root's wait returned %s", shmc_strerror(rc));
    T_CALL(SHMC_ERR_ARG, shmc_iallreduce(in, out, 1, SHMC_INT64, SHMC_SUM, w, NULL));
    r = (shmc_request *)1;
    T_CALL(SHMC_ERR_RANK, shmc_ibroadcast(in, 1, SHMC_INT64, 99, w, &r));
    T_ASSERT(r == NULL, "a refused call left a request");
    T_CALL(SHMC_ERR_ARG, shmc_iallreduce(in, out, 1, SHMC_INT64, (shmc_op)77, w, &r));
    T_CALL(SHMC_ERR_ARG, shmc_iallreduce(in, in + 1, 2, SHMC_INT64, SHMC_SUM, w, &r));
    T_CALL(SHMC_ERR_ARG, shmc_ibarrier(NULL, &r));
}

START_TEST(test_nbc_mismatch_and_bad_arguments)
{
    struct shmct_opts o = {.expect_fail = 1};
    shmct_run_opts(3, mismatch_and_bad, NULL, &o);
    for (int q = 0; q < 3; q++)
        ck_assert_msg(WIFEXITED(shmct_status(q)) && WEXITSTATUS(shmct_status(q)) == 0,
                      "rank %d failed", q);
}
END_TEST

/* shmc_comm_idup: two duplicates in flight with an all-reduce between, each usable once
 * complete, and apart from the parent and from each other; a bad argument. */
static void idups(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *d[2] = {(shmc_comm *)1, (shmc_comm *)1};
    shmc_request *r[3];
    int64_t x = me, sum = 0;
    T_OK(shmc_comm_idup(w, &d[0], &r[0]));
    T_OK(shmc_iallreduce(&x, &sum, 1, SHMC_INT64, SHMC_SUM, w, &r[1]));
    T_OK(shmc_comm_idup(w, &d[1], &r[2]));
    T_OK(shmc_waitall(3, r, NULL));
    T_ASSERT(sum == (int64_t)n * (n - 1) / 2, "sum %lld", (long long)sum);
    for (int k = 0; k < 2; k++) {
        T_ASSERT(d[k] && shmc_comm_size(d[k]) == n && shmc_comm_rank(d[k]) == me, "duplicate %d",
                 k);
        T_ASSERT(shmc_comm_id(d[k]) != shmc_comm_id(w), "duplicate %d shares the parent's id", k);
    }
    T_ASSERT(shmc_comm_id(d[0]) != shmc_comm_id(d[1]), "the duplicates share an id");
    /* a message on each, received on each: none crosses to another */
    int v[3] = {me, me + 100, me + 200}, got[3] = {-1, -1, -1};
    shmc_comm *cs[3] = {w, d[0], d[1]};
    for (int k = 2; k >= 0; k--)
        T_OK(shmc_send(&v[k], 1, SHMC_INT32, (me + 1) % n, 4, cs[k]));
    for (int k = 0; k < 3; k++)
        T_OK(shmc_recv(&got[k], 1, SHMC_INT32, (me + n - 1) % n, 4, cs[k], NULL));
    for (int k = 0; k < 3; k++)
        T_ASSERT(got[k] == (me + n - 1) % n + 100 * k, "communicator %d got %d", k, got[k]);
    T_OK(shmc_allreduce(&x, &sum, 1, SHMC_INT64, SHMC_SUM, d[1]));
    T_OK(shmc_comm_free(&d[0]));
    T_OK(shmc_comm_free(&d[1]));
    T_CALL(SHMC_ERR_ARG, shmc_comm_idup(w, NULL, &r[0]));
    T_CALL(SHMC_ERR_ARG, shmc_comm_idup(w, &d[0], NULL));
}

START_TEST(test_nbc_comm_idup)
{
    ck_assert_int_eq(shmct_run(1, idups, NULL), 0);
    ck_assert_int_eq(shmct_run(4, idups, NULL), 0);
}
END_TEST

/* A schedule of one's own (shmc_sched_*): a ring shift, then the sum of what arrived and
 * this rank's own, then AVG's division; bad arguments. */
static void own_schedule(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    double mine[4], got[4] = {0};
    for (int i = 0; i < 4; i++)
        mine[i] = me + i;
    shmc_sched *s;
    T_OK(shmc_sched_create(w, SHMC_FLOAT64, SHMC_AVG, sizeof got, &s));
    double *tmp = shmc_sched_tmp(s);
    T_ASSERT(tmp != NULL, "no memory of its own");
    T_OK(shmc_sched_send(s, mine, sizeof mine, (me + 1) % n));
    T_OK(shmc_sched_recv(s, tmp, sizeof got, (me + n - 1) % n));
    T_OK(shmc_sched_round(s));
    T_OK(shmc_sched_copy(s, got, mine, sizeof got));
    T_OK(shmc_sched_reduce(s, got, tmp, 4, 1));
    T_OK(shmc_sched_finish(s, got, 4, 2));
    T_CALL(SHMC_ERR_ARG, shmc_sched_send(s, mine, sizeof mine, n));
    T_CALL(SHMC_ERR_ARG, shmc_sched_recv(s, NULL, 8, 0));
    T_CALL(SHMC_ERR_ARG, shmc_sched_finish(s, got, 4, 0));
    shmc_request *r;
    T_OK(shmc_sched_start(s, &r));
    T_OK(shmc_wait(&r, NULL));
    int left = (me + n - 1) % n;
    for (int i = 0; i < 4; i++)
        T_ASSERT(got[i] == (double)(me + left + 2 * i) / 2, "element %d: %g", i, got[i]);
    T_CALL(SHMC_ERR_ARG, shmc_sched_create(w, SHMC_INT32, SHMC_AVG, 0, &s));
    T_CALL(SHMC_ERR_ARG, shmc_sched_create(NULL, SHMC_INT32, SHMC_SUM, 0, &s));
    T_OK(shmc_sched_create(w, SHMC_UINT8, SHMC_SUM, 0, &s));
    shmc_sched_free(s); /* never started: the number it took is still every member's */
}

START_TEST(test_nbc_own_schedule)
{
    ck_assert_int_eq(shmct_run(3, own_schedule, NULL), 0);
}
END_TEST

/* The world's all-reduce and barrier on its shared memory (coll/nbworld.c): vectors of one
 * round, of one staging chunk and of several, in place and not, equal bit for bit to the
 * blocking call's; several in flight with a blocking all-reduce issued among them, waited
 * for in reverse; a rank that passes another count. */
static double dval(int r, size_t i)
{
    return 1.0 / (double)(r + 3) + (double)(i % 97) * 1e-7 * (double)(r + 1);
}

static void world_shared(shmc_comm *w, int me, int n, void *arg)
{
    if (arg) /* an algorithm forced for every all-reduce */
        T_OK(shmc_config_set("SHMC_ALGO_ALLREDUCE", arg));
    static const size_t counts[] = {1, 37, 512, 600, 70000, (1u << 18) + 3};
    enum { K = sizeof counts / sizeof counts[0] };
    size_t most = counts[K - 1];
    double *in = shmct_xmalloc(most * 8), *a = shmct_xmalloc(most * 8),
           *b = shmct_xmalloc(most * 8);
    for (int k = 0; k < K; k++) {
        size_t c = counts[k];
        int inplace = k % 2;
        for (size_t i = 0; i < c; i++)
            in[i] = a[i] = dval(me, i);
        shmc_request *r;
        T_OK(shmc_iallreduce(inplace ? SHMC_IN_PLACE : in, a, c, SHMC_FLOAT64, SHMC_SUM, w, &r));
        T_OK(shmc_wait(&r, NULL));
        T_OK(shmc_allreduce(in, b, c, SHMC_FLOAT64, SHMC_SUM, w));
        for (size_t i = 0; i < c; i++)
            T_ASSERT(a[i] == b[i],
                     "count %zu, rank %d, element %zu: %.17g, the blocking call's %.17g", c, me, i,
                     a[i], b[i]);
    }
    /* In flight: a large and a small all-reduce and a barrier, then a blocking all-reduce,
     * which lets them end first; waited for in reverse. */
    size_t big = counts[K - 1];
    double *x = shmct_xmalloc(big * 8), *y = shmct_xmalloc(big * 8);
    int64_t s1 = me, s2 = -1, s3 = -1, s4 = me * 2;
    for (size_t i = 0; i < big; i++)
        x[i] = dval(me, i);
    shmc_request *r[3];
    T_OK(shmc_iallreduce(x, y, big, SHMC_FLOAT64, SHMC_SUM, w, &r[0]));
    T_OK(shmc_ibarrier(w, &r[1]));
    T_OK(shmc_iallreduce(&s1, &s2, 1, SHMC_INT64, SHMC_SUM, w, &r[2]));
    T_OK(shmc_allreduce(&s4, &s3, 1, SHMC_INT64, SHMC_SUM, w));
    for (int k = 2; k >= 0; k--)
        T_OK(shmc_wait(&r[k], NULL));
    T_ASSERT(s2 == (int64_t)n * (n - 1) / 2 && s3 == (int64_t)n * (n - 1), "sums %lld %lld",
             (long long)s2, (long long)s3);
    T_OK(shmc_allreduce(x, b, big, SHMC_FLOAT64, SHMC_SUM, w));
    for (size_t i = 0; i < big; i++)
        T_ASSERT(y[i] == b[i], "in flight, element %zu: %.17g, not %.17g", i, y[i], b[i]);
    /* Rank 0 passes another count (one round against several, or a chunk more): every
     * rank is told, and the world goes on, staging as before. */
    for (int k = 0; k < 3; k++) {
        size_t c = k == 0 ? 4 : k == 1 ? big : big - 1;
        size_t mine = me == 0 ? (k == 0 ? 600 : k == 1 ? big - 1 : 4) : c;
        T_OK(shmc_iallreduce(x, y, mine, SHMC_FLOAT64, SHMC_SUM, w, &r[0]));
        int rc = shmc_wait(&r[0], NULL);
        T_ASSERT(rc == SHMC_ERR_MISMATCH, "rank %d, count %zu: %s", me, mine, shmc_strerror(rc));
    }
    T_OK(shmc_iallreduce(x, y, big, SHMC_FLOAT64, SHMC_SUM, w, &r[0]));
    T_OK(shmc_wait(&r[0], NULL));
    for (size_t i = 0; i < big; i++)
        T_ASSERT(y[i] == b[i], "after the mismatches, element %zu: %.17g, not %.17g", i, y[i],
                 b[i]);
    T_OK(shmc_iallreduce(&s1, &s2, 1, SHMC_INT64, SHMC_SUM, w, &r[0]));
    T_OK(shmc_wait(&r[0], NULL));
    T_ASSERT(s2 == (int64_t)n * (n - 1) / 2, "after the mismatch: %lld", (long long)s2);
    free(x);
    free(y);
    free(in);
    free(a);
    free(b);
}

START_TEST(test_nbc_world_shared)
{
    /* The rules for any maker's CPUs (on Intel's the 2-rank all-reduce of a few KiB goes
     * by a schedule, and a rank's call by rounds against another's by schedule makes the
     * world quit its collectives, nbworld.c), whoever made this machine's. */
    setenv("SHMC_CPU_MAKER", "other", 1);
    ck_assert_int_eq(shmct_run(world_sizes[_i], world_shared, NULL), 0);
    unsetenv("SHMC_CPU_MAKER");
}
END_TEST

/* A different call that a schedule's start already meets (the other rank's call there
 * first) is the request's outcome, as one found later is: the start returns SHMC_OK and
 * the wait SHMC_ERR_MISMATCH, whichever rank comes first. */
static void mismatch_at_start(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    T_OK(shmc_config_set("SHMC_ALGO_ALLREDUCE", "ring"));
    for (int late = 0; late < 2; late++) {
        double x[8] = {0}, y[8];
        if (me == late)
            usleep(200000);
        shmc_request *r;
        T_OK(shmc_iallreduce(x, y, me == 0 ? 4 : 5, SHMC_FLOAT64, SHMC_SUM, w, &r));
        int rc = shmc_wait(&r, NULL);
        T_ASSERT(rc == SHMC_ERR_MISMATCH, "rank %d late: %s", late, shmc_strerror(rc));
    }
}

START_TEST(test_nbc_mismatch_at_start)
{
    ck_assert_int_eq(shmct_run(2, mismatch_at_start, NULL), 0);
}
END_TEST

/* On a communicator split from the world every nonblocking call is a schedule of
 * messages, whose tags carry a hash of the call's words (lib/coll/sched.h): a member whose
 * call differs where the sizes alone do not (an op; a dtype of the same size) is found by
 * the ranks that receive from it, which return SHMC_ERR_MISMATCH, nobody waits for ever,
 * and the communicator's collectives fail afterwards on every member while the world's
 * go on. The last rank's call differs: 0, an all-reduce's op; 1, a gather's dtype (int32
 * against float32: the root finds it); 2, an all-gatherv's dtype; 3, a broadcast's dtype
 * (the last rank, a receiver, finds it); 4, the same all-reduce as a persistent
 * collective (shmc_coll_reserve, numbered apart from the other calls). */
/* After a mismatch on split communicator c: its collectives have quit (a barrier there
 * fails), it is freed, and the world goes on. */
static void after_mismatch(shmc_comm *w, shmc_comm *c, int which, int me)
{
    T_ASSERT(shmc_barrier(c) != SHMC_OK, "case %d, rank %d: the communicator's collectives went on",
             which, me);
    T_OK(shmc_comm_free(&c));
    T_OK(shmc_barrier(w));
}

static void words_in_messages(shmc_comm *w, int me, int n, void *arg)
{
    int which = *(const int *)arg, odd = me == n - 1, rc;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, me, &c));
    int32_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[64];
    size_t counts[16], displs[16];
    for (int q = 0; q < n; q++) {
        counts[q] = 2;
        displs[q] = 2 * (size_t)q;
    }
    shmc_dtype dt = odd ? SHMC_FLOAT32 : SHMC_INT32;
    shmc_request *r = NULL;
    if (which == 4) {
        uint32_t num;
        T_OK(shmc_coll_reserve(c, &num));
        shmc_coll_as(num);
    }
    if (which == 0 || which == 4)
        rc = shmc_iallreduce(in, out, 4, SHMC_INT32, odd ? SHMC_MAX : SHMC_SUM, c, &r);
    else if (which == 1)
        rc = shmc_igather(in, out, 2, dt, 0, c, &r);
    else if (which == 2)
        rc = shmc_iallgatherv(in, 2, out, counts, displs, dt, c, &r);
    else
        rc = shmc_ibroadcast(in, 4, dt, 0, c, &r);
    if (rc == SHMC_OK)
        rc = shmc_wait(&r, NULL);
    T_ASSERT(rc == SHMC_OK || rc == SHMC_ERR_MISMATCH, "case %d, rank %d: %s", which, me,
             shmc_strerror(rc));
    if ((which == 1 && me == 0) || (which == 3 && odd) || ((which == 0 || which == 4) && n == 2))
        T_ASSERT(rc == SHMC_ERR_MISMATCH, "case %d, rank %d: %s", which, me, shmc_strerror(rc));
    /* Somebody found it (the world's all-reduce counts them). */
    int32_t found = rc == SHMC_ERR_MISMATCH, total = 0;
    T_OK(shmc_allreduce(&found, &total, 1, SHMC_INT32, SHMC_SUM, w));
    T_ASSERT(total > 0, "case %d: no rank found the different call", which);
    after_mismatch(w, c, which, me);
}

START_TEST(test_nbc_words_in_messages)
{
    int which = _i % 5, n = _i < 5 ? 2 : 4;
    ck_assert_int_eq(shmct_run(n, words_in_messages, &which), 0);
}
END_TEST

/* Every member takes itself for the root of a gather or a reduce: each only receives, so
 * no message tells them apart; blocked a whole slice, they compare the calls they wait in
 * (p2p/incall.h) and end with SHMC_ERR_MISMATCH instead of waiting for ever. On a split
 * communicator (its schedules) and on the world (its own ways for these calls), waited
 * for alone (which 0-3) or by a waitall whose other entry is NULL (4-7). */
static void roots_all_mine(shmc_comm *w, int me, int n, void *arg)
{
    int which = *(const int *)arg, on_world = which % 4 >= 2;
    shmc_comm *c = w;
    if (!on_world)
        T_OK(shmc_comm_split(w, 0, me, &c));
    int32_t in[4] = {1, 2, 3, 4}, out[64];
    shmc_request *r = NULL;
    shmct_stderr_begin();
    int rc = which % 2 ? shmc_ireduce(in, out, 4, SHMC_INT32, SHMC_SUM, me, c, &r)
                       : shmc_igather(in, out, 4, SHMC_INT32, me, c, &r);
    shmc_request *rs[2] = {r, NULL};
    if (rc == SHMC_OK)
        rc = which < 4 ? shmc_wait(&r, NULL) : shmc_waitall(2, rs, NULL);
    char msg[2048];
    shmct_stderr_end(msg, sizeof msg);
    T_ASSERT(rc == SHMC_ERR_MISMATCH, "case %d, rank %d of %d: %s", which, me, n,
             shmc_strerror(rc));
    if (!on_world) {
        after_mismatch(w, c, which, me);
        return;
    }
    /* The world's collectives have quit: its point-to-point keeps every rank here until
     * all have their outcome (one that finalized first would be a peer gone). */
    int token = 0;
    if (me == 0) {
        for (int q = 1; q < n; q++)
            T_OK(shmc_recv(&token, 1, SHMC_INT32, q, 7, w, NULL));
        for (int q = 1; q < n; q++)
            T_OK(shmc_send(&token, 1, SHMC_INT32, q, 7, w));
    } else {
        T_OK(shmc_send(&token, 1, SHMC_INT32, 0, 7, w));
        T_OK(shmc_recv(&token, 1, SHMC_INT32, 0, 7, w, NULL));
    }
}

START_TEST(test_nbc_roots_all_mine)
{
    int which = _i % 8, n = _i < 8 ? 2 : 3;
    ck_assert_int_eq(shmct_run(n, roots_all_mine, &which), 0);
}
END_TEST

/* Members whose counts of one rooted call put it through the slots on some (more than
 * SHMC_NBS_MIN bytes at the root) and as a schedule of messages on others: a broadcast's
 * root through the slots ends on publishing while a member by messages waits for a
 * message, a member by messages ends on sending while a root through the slots waits for
 * its publication. Blocked a whole slice, the rank left waiting finds in the others' slots
 * that their same call went the other way (coll/slot.c, shmc__slot_nb_crossed): it ends
 * with SHMC_ERR_MISMATCH, not waiting for ever. Cases (which): bits 0-1 the collective
 * (broadcast, reduce, gather), bit 2 the odd rank the root (else rank 1), bit 3 the world
 * (else a split communicator: its slot entry); each at 3 and 4 ranks, the odd rank small. */
static void crossed_ways(shmc_comm *w, int me, int n, void *arg)
{
    int which = *(const int *)arg, coll = which & 3, odd = which & 4 ? 0 : 1;
    int on_world = which & 8;
    shmc_comm *c = w;
    if (!on_world)
        T_OK(shmc_comm_split(w, 0, me, &c));
    /* 4096 floats, 16 KiB a vector, past SHMC_NBS_MIN; the odd rank 250 (1000 bytes, and
     * 4000 at a gather's root) */
    size_t count = me == odd ? 250 : 4096;
    static float in[4096], out[4 * 4096];
    shmc_request *r = NULL;
    shmct_stderr_begin();
    int rc = coll == 0   ? shmc_ibroadcast(in, count, SHMC_FLOAT32, 0, c, &r)
             : coll == 1 ? shmc_ireduce(in, out, count, SHMC_FLOAT32, SHMC_SUM, 0, c, &r)
                         : shmc_igather(in, out, count, SHMC_FLOAT32, 0, c, &r);
    if (rc == SHMC_OK)
        rc = shmc_wait(&r, NULL);
    char msg[2048];
    shmct_stderr_end(msg, sizeof msg);
    T_ASSERT(rc == SHMC_OK || rc == SHMC_ERR_MISMATCH, "case %d, rank %d of %d: %s", which, me, n,
             shmc_strerror(rc));
    /* Every rank's outcome, by point-to-point (the world's collectives may have quit): one
     * at least found the mismatch and said so (the others' waits may end with its quitting,
     * saying nothing). */
    int mine = (rc == SHMC_ERR_MISMATCH) | (strstr(msg, "collective mismatch") ? 2 : 0);
    int any = mine;
    if (me == 0) {
        for (int q = 1; q < n; q++) {
            int theirs;
            T_OK(shmc_recv(&theirs, 1, SHMC_INT32, q, 7, w, NULL));
            any |= theirs;
        }
        for (int q = 1; q < n; q++)
            T_OK(shmc_send(&any, 1, SHMC_INT32, q, 7, w));
    } else {
        T_OK(shmc_send(&mine, 1, SHMC_INT32, 0, 7, w));
        T_OK(shmc_recv(&any, 1, SHMC_INT32, 0, 7, w, NULL));
    }
    T_ASSERT(any == 3, "case %d, %d ranks: no rank found the mismatch (%d)", which, n, any);
    if (!on_world)
        T_OK(shmc_comm_free(&c));
}

START_TEST(test_nbc_crossed_ways)
{
    int which = _i;
    if ((which & 3) == 3)
        return;
    for (int n = 3; n <= 4; n++)
        ck_assert_msg(shmct_run(n, crossed_ways, &which) == 0, "case %d at %d ranks", which, n);
}
END_TEST

/* The same look in programs whose calls match: calls through the slots and as schedules
 * (counts on both sides of the slots' limits) in turn, one rank late to each (120 ms, so
 * that the others' waits sleep whole slices and look): none may be taken for a mismatch,
 * and every result is right. On the world and on a split communicator (arg), 3 ranks. */
static void crossed_matching(shmc_comm *w, int me, int n, void *arg)
{
    int on_world = *(const int *)arg;
    shmc_comm *c = w;
    if (!on_world)
        T_OK(shmc_comm_split(w, 0, me, &c));
    static float in[4096], out[4 * 4096];
    const size_t counts[] = {250, 4096};
    for (int i = 0; i < 12; i++) {
        int coll = i % 4, big = i / 4 % 2;
        size_t count = counts[big ^ (i / 8)];
        for (size_t e = 0; e < count; e++)
            in[e] = (float)(me + 1);
        if (me == i % n)
            usleep(120000);
        shmc_request *r = NULL;
        int rc = coll == 0   ? shmc_ibroadcast(in, count, SHMC_FLOAT32, 0, c, &r)
                 : coll == 1 ? shmc_ireduce(in, out, count, SHMC_FLOAT32, SHMC_SUM, 0, c, &r)
                 : coll == 2 ? shmc_igather(in, out, count, SHMC_FLOAT32, 0, c, &r)
                             : shmc_iallreduce(in, out, count, SHMC_FLOAT32, SHMC_SUM, c, &r);
        T_ASSERT(rc == SHMC_OK, "call %d: %s", i, shmc_strerror(rc));
        T_OK(shmc_wait(&r, NULL));
        float want = coll == 0 ? 1.0f : (float)(n * (n + 1) / 2);
        const float *got = coll == 0 ? in : out;
        if (coll == 2)
            want = (float)n, got = out + (size_t)(n - 1) * count; /* rank n-1's block */
        if (coll == 0 || coll == 3 || me == 0)
            T_ASSERT(got[count - 1] == want, "call %d (count %zu), rank %d: %g for %g", i, count,
                     me, got[count - 1], want);
    }
    if (!on_world)
        T_OK(shmc_comm_free(&c));
    T_OK(shmc_barrier(w));
}

START_TEST(test_nbc_crossed_matching)
{
    int on_world = _i;
    ck_assert_int_eq(shmct_run(3, crossed_matching, &on_world), 0);
}
END_TEST

/* A wait for several requests publishes the first one's call, and its look (above) goes
 * on after that call has ended and its memory has gone (a large all-reduce's schedule is
 * freed at its end), while the wait waits for a receive: the look holds what it reads. */
static void look_after_end(shmc_comm *w, int me, int n, void *arg)
{
    (void)n, (void)arg;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, me, &c));
    enum { M = 1 << 18 }; /* 1 MiB of floats: a ring schedule with scratch past its keeping */
    float *in = malloc(M * sizeof *in), *out = malloc(M * sizeof *out);
    T_ASSERT(in && out, "malloc");
    for (int i = 0; i < M; i++)
        in[i] = 1.0f;
    shmc_request *r[2] = {NULL, NULL};
    int token = 0;
    if (me == 0) {
        T_OK(shmc_iallreduce(in, out, M, SHMC_FLOAT32, SHMC_SUM, c, &r[0]));
        T_OK(shmc_irecv(&token, 1, SHMC_INT32, 1, 5, w, &r[1]));
        T_OK(shmc_waitall(2, r, NULL));
        T_ASSERT(out[M - 1] == 3.0f && token == 1, "%g, token %d", out[M - 1], token);
    } else {
        usleep(100000); /* rank 0's all-reduce pending as its wait begins */
        T_OK(shmc_iallreduce(in, out, M, SHMC_FLOAT32, SHMC_SUM, c, &r[0]));
        T_OK(shmc_wait(&r[0], NULL));
        if (me == 1) {
            usleep(400000); /* rank 0 sleeps whole slices meanwhile */
            token = 1;
            T_OK(shmc_send(&token, 1, SHMC_INT32, 0, 5, w));
        }
    }
    free(in);
    free(out);
    T_OK(shmc_comm_free(&c));
    T_OK(shmc_barrier(w));
}

START_TEST(test_nbc_look_after_end)
{
    ck_assert_int_eq(shmct_run(3, look_after_end, NULL), 0);
}
END_TEST

/* A receiver that starts after its block arrived takes it from the mailbox in its start
 * (coll/sched.c) or, when a receive of the program's found it first, from the messages
 * kept for later: a block of another size is the call's SHMC_ERR_MISMATCH either way (one
 * element short: truncated; one more: a short message), the block is consumed, the
 * receiver quits the communicator's collectives, so that the root's next call there ends
 * too instead of waiting, and the world goes on. */
static void mismatch_taken_at_start(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    for (int k = 0; k < 4; k++) {
        int extra = k & 1 ? 1 : -1, token = k >> 1, rc;
        shmc_comm *c;
        T_OK(shmc_comm_split(w, 0, me, &c));
        int64_t buf[65] = {0};
        size_t count = me == 0 ? 64 : (size_t)(64 + extra);
        shmc_request *r;
        if (me == 0) {
            for (int i = 0; i < 64; i++)
                buf[i] = val(0, (size_t)i);
            T_OK(shmc_ibroadcast(buf, count, SHMC_INT64, 0, c, &r));
            T_OK(shmc_wait(&r, NULL)); /* (an eager block: sent at once) */
            if (token)
                T_OK(shmc_send(&token, 1, SHMC_INT32, 1, 7, w));
            T_OK(shmc_ibarrier(c, &r));
            rc = shmc_wait(&r, NULL);
            T_ASSERT(rc != SHMC_OK, "the root's barrier after the mismatch: %s", shmc_strerror(rc));
        } else {
            /* (the token is found behind the block, which its receive keeps for later) */
            if (token)
                T_OK(shmc_recv(&token, 1, SHMC_INT32, 0, 7, w, NULL));
            else
                usleep(100000);
            T_OK(shmc_ibroadcast(buf, count, SHMC_INT64, 0, c, &r));
            rc = shmc_wait(&r, NULL);
            T_ASSERT(rc == SHMC_ERR_MISMATCH, "count %zu, token %d: %s", count, token,
                     shmc_strerror(rc));
            rc = shmc_barrier(c);
            T_ASSERT(rc != SHMC_OK, "a barrier after the mismatch: %s", shmc_strerror(rc));
        }
        T_OK(shmc_comm_free(&c));
        T_OK(shmc_barrier(w));
    }
}

START_TEST(test_nbc_mismatch_taken_at_start)
{
    ck_assert_int_eq(shmct_run(2, mismatch_taken_at_start, NULL), 0);
}
END_TEST

/* The same through the staging buffers written by streaming stores (`stream`, which the
 * rules take only on a machine whose CPUs run far apart). */
START_TEST(test_nbc_world_stream)
{
    ck_assert_int_eq(shmct_run(world_sizes[_i], world_shared, "stream"), 0);
}
END_TEST

/* The same through the direct all-reduce in steps (the rules take it on some machines
 * only): its first call falls back to the rounds (no rank has read another yet), the
 * later ones read and write the peers' buffers. */
START_TEST(test_nbc_world_direct)
{
    ck_assert_int_eq(shmct_run(world_sizes[_i], world_shared, "direct"), 0);
}
END_TEST

/* A member killed inside a direct all-reduce in steps, after entering its first round
 * and before the others enter it (they then find it gone at their start, reading its
 * input, or waiting for its second round): each other rank's call ends with an error, not
 * a hang, and the world's later collectives fail. */
static void dead_in_direct(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    enum { BIG = 1 << 20 };
    T_OK(shmc_config_set("SHMC_ALGO_ALLREDUCE", "direct"));
    double *x = shmct_xmalloc(BIG * 8), *y = shmct_xmalloc(BIG * 8);
    for (size_t i = 0; i < BIG; i++)
        x[i] = dval(me, i);
    shmc_request *r;
    /* Twice whole: the first falls back to the rounds, and proves every peer readable. */
    for (int k = 0; k < 2; k++) {
        T_OK(shmc_iallreduce(x, y, BIG, SHMC_FLOAT64, SHMC_SUM, w, &r));
        T_OK(shmc_wait(&r, NULL));
    }
    /* It starts first, so that its start can only enter round r1 (coming last, its start
     * would run the whole call, every piece of it, and the others' calls end well), and
     * tells the others so. */
    int64_t go = 1;
    int rc;
    if (me == n - 1) {
        T_OK(shmc_iallreduce(x, y, BIG, SHMC_FLOAT64, SHMC_SUM, w, &r));
        for (int q = 0; q < n - 1; q++)
            T_OK(shmc_send(&go, 1, SHMC_INT64, q, 7, w));
        raise(SIGKILL);
    }
    T_OK(shmc_recv(&go, 1, SHMC_INT64, n - 1, 7, w, NULL));
    rc = shmc_iallreduce(x, y, BIG, SHMC_FLOAT64, SHMC_SUM, w, &r);
    if (rc == SHMC_OK)
        rc = shmc_wait(&r, NULL);
    T_ASSERT(rc != SHMC_OK, "the all-reduce ended well");
    rc = shmc_ibarrier(w, &r);
    if (rc == SHMC_OK)
        rc = shmc_wait(&r, NULL);
    T_ASSERT(rc == SHMC_ERR_PEER_DEAD, "a later ibarrier returned %s", shmc_strerror(rc));
    free(x);
    free(y);
}

START_TEST(test_nbc_dead_in_direct)
{
    struct shmct_opts o = {.expect_fail = 1, .keep_going = 1};
    ck_assert_int_eq(shmct_run_opts(3, dead_in_direct, NULL, &o), 1);
    ck_assert(WIFSIGNALED(shmct_status(2)) && WTERMSIG(shmct_status(2)) == SIGKILL);
}
END_TEST

/* The same calls on a communicator that is not the world (schedules of messages at every
 * size), its ranks reversed. */
static void against_blocking_split(shmc_comm *w, int me, int n, void *arg)
{
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, n - 1 - me, &c));
    against_blocking(c, shmc_comm_rank(c), n, arg);
    T_OK(shmc_comm_free(&c));
}

START_TEST(test_nbc_against_blocking_split)
{
    static const int sizes[] = {2, 3, 4, 5};
    ck_assert_int_eq(shmct_run(sizes[_i], against_blocking_split, NULL), 0);
}
END_TEST

/* The world's other collectives by its rounds (coll/wround.c) and, past their limits, by
 * schedules: counts of one element, of one round exactly and one element more, of several
 * rounds and of the most the rounds take (lib/coll/nbworld.h) and beyond, at the first and
 * last root, in place and not, a non-commutative op, each equal to the blocking call's. */
static void world_rounds(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    /* int64s: a round carries 4096 of one block, 4096 / n of each of n blocks; at 2 ranks
     * the calls of n blocks take one round up to 128 of each whatever the rule */
    const size_t counts[] = {1,    37,   128, 129, 512, 513, 4096 / (size_t)n, 4096 / (size_t)n + 1,
                             1500, 2048, 2049, 4096, 4097, TWO, OVER};
    enum { K = sizeof counts / sizeof counts[0] };
    size_t most = OVER * (size_t)n;
    int64_t *in = shmct_xmalloc(most * 8), *a = shmct_xmalloc(most * 8),
            *b = shmct_xmalloc(most * 8);
    fill(in, most, me);
    shmc_op aff;
    T_OK(shmc_op_create(affine, NULL, 0, &aff));
    for (int k = 0; k < K; k++) {
        size_t c = counts[k], all = c * (size_t)n;
        for (int root = 0; root<n; root += n - 1> 0 ? n - 1 : 1) {
            memcpy(a, in, c * 8);
            memcpy(b, in, c * 8);
            NB(shmc_ibroadcast(a, c, SHMC_INT64, root, w, &r_));
            T_OK(shmc_broadcast(b, c, SHMC_INT64, root, w));
            same(a, b, c, "ibroadcast", me);
            for (int inplace = 0; inplace < 2; inplace++) {
                int mine = inplace && me == root;
                memcpy(a, in, c * 8);
                NB(shmc_ireduce(mine ? SHMC_IN_PLACE : in, a, c, SHMC_INT64, SHMC_SUM, root, w,
                                &r_));
                T_OK(shmc_reduce(in, b, c, SHMC_INT64, SHMC_SUM, root, w));
                if (me == root)
                    same(a, b, c, "ireduce", me);
                memset(a, 0, all * 8);
                if (mine)
                    memcpy(a + (size_t)root * c, in, c * 8);
                NB(shmc_igather(mine ? SHMC_IN_PLACE : in, a, c, SHMC_INT64, root, w, &r_));
                T_OK(shmc_gather(in, b, c, SHMC_INT64, root, w));
                if (me == root)
                    same(a, b, all, "igather", me);
                memset(a, 0, c * 8);
                NB(shmc_iscatter(in, mine ? SHMC_IN_PLACE : a, c, SHMC_INT64, root, w, &r_));
                T_OK(shmc_scatter(in, b, c, SHMC_INT64, root, w));
                if (!mine)
                    same(a, b, c, "iscatter", me);
            }
            NB(shmc_ireduce(in, a, c / 2, SHMC_DTYPE_BYTES(16), aff, root, w, &r_));
            T_OK(shmc_reduce(in, b, c / 2, SHMC_DTYPE_BYTES(16), aff, root, w));
            if (me == root)
                same(a, b, c / 2 * 2, "ireduce of a non-commutative op", me);
        }
        for (int inplace = 0; inplace < 2; inplace++) {
            memset(a, 0, all * 8);
            if (inplace)
                memcpy(a + (size_t)me * c, in, c * 8);
            NB(shmc_iallgather(inplace ? SHMC_IN_PLACE : in, a, c, SHMC_INT64, w, &r_));
            T_OK(shmc_allgather(in, b, c, SHMC_INT64, w));
            same(a, b, all, "iallgather", me);
            memcpy(a, in, all * 8);
            NB(shmc_ialltoall(inplace ? SHMC_IN_PLACE : in, a, c, SHMC_INT64, w, &r_));
            T_OK(shmc_alltoall(in, b, c, SHMC_INT64, w));
            same(a, b, all, "ialltoall", me);
            memcpy(a, in, all * 8);
            NB(shmc_ireduce_scatter(inplace ? SHMC_IN_PLACE : in, a, c, SHMC_INT64, SHMC_MAX, w,
                                    &r_));
            T_OK(shmc_reduce_scatter(in, b, c, SHMC_INT64, SHMC_MAX, w));
            same(a, b, c, "ireduce_scatter", me);
        }
        double *fin = (double *)(void *)in, *fa = (double *)(void *)a, *fb = (double *)(void *)b;
        for (size_t i = 0; i < all; i++)
            fin[i] = (double)val(me, i); /* exact sums: the same bits in any grouping */
        NB(shmc_ireduce_scatter(fin, fa, c, SHMC_FLOAT64, SHMC_AVG, w, &r_));
        T_OK(shmc_reduce_scatter(fin, fb, c, SHMC_FLOAT64, SHMC_AVG, w));
        T_ASSERT(!memcmp(fa, fb, c * 8), "ireduce_scatter AVG of %zu differs", c);
        /* The all-reduce by shared memory: by the rounds while one carries it (a round's
         * half: 4096 of these), in place and not, beyond them by a schedule. */
        T_OK(shmc_config_set("SHMC_ALGO_ALLREDUCE", "shm"));
        for (int inplace = 0; inplace < 2; inplace++) {
            memcpy(fa, fin, c * 8);
            NB(shmc_iallreduce(inplace ? SHMC_IN_PLACE : fin, fa, c, SHMC_FLOAT64, SHMC_SUM, w,
                               &r_));
            T_OK(shmc_allreduce(fin, fb, c, SHMC_FLOAT64, SHMC_SUM, w));
            T_ASSERT(!memcmp(fa, fb, c * 8), "iallreduce of %zu differs", c);
        }
        T_OK(shmc_config_set("SHMC_ALGO_ALLREDUCE", "auto"));
        fill(in, most, me);
    }
    T_OK(shmc_op_free(&aff));
    free(in);
    free(a);
    free(b);
}

START_TEST(test_nbc_world_rounds)
{
    ck_assert_int_eq(shmct_run(world_sizes[_i], world_rounds, NULL), 0);
}
END_TEST

/* Dispatch rules under which a rooted nonblocking call at 2 ranks goes by the world's
 * rounds up to 1 KiB (the blocking call's rule gives `shm`) and by a schedule of messages
 * beyond, as the built-in rules have it on some machines and not on others: written to a
 * file of the test's own for SHMC_TUNING_FILE (a file without a "# machine:" line is
 * taken as written). */
#define ROOTED_RULES_BUT_BCAST                                                                     \
    "reduce 2 <=1k any any any host shm\n"                                                         \
    "reduce any any any any any host tree\n"                                                       \
    "reduce any any any any any device tree\n"                                                     \
    "allreduce any any any any any host shm\n"                                                     \
    "allreduce any any any any any device ring\n"                                                  \
    "gather 2 <=1k any any any host shm\n"                                                         \
    "gather any any any any any host direct\n"                                                     \
    "gather any any any any any device tree\n"                                                     \
    "allgather any any any any any any ring\n"                                                     \
    "scatter 2 <=1k any any any host shm\n"                                                        \
    "scatter any any any any any host direct\n"                                                    \
    "scatter any any any any any device tree\n"                                                    \
    "reduce_scatter any any any any any any ring\n"                                                \
    "alltoall any any any any any any ring\n"
static const char rooted_rules[] =
    "barrier any any any any any host shm\n"
    "broadcast 2 <=1k any any any host shm\n"
    "broadcast any any any any any host direct\n"
    "broadcast any any any any any device tree\n" ROOTED_RULES_BUT_BCAST;
/* The same with the 2-rank broadcast by rounds up to one word only. */
static const char gates_rules[] =
    "barrier any any any any any host shm\n"
    "broadcast 2 <=8 any any any host shm\n"
    "broadcast any any any any any host direct\n"
    "broadcast any any any any any device tree\n" ROOTED_RULES_BUT_BCAST;

/* The same with the 2-rank broadcast by messages up to 64 bytes, by rounds up to 1 KiB
 * and by messages beyond, as the built-in rules have it where the machine is far. */
static const char rooted_mid_rules[] =
    "barrier any any any any any host shm\n"
    "broadcast 2 <=64 any any any host direct\n"
    "broadcast 2 <=1k any any any host shm\n"
    "broadcast any any any any any host direct\n"
    "broadcast any any any any any device tree\n" ROOTED_RULES_BUT_BCAST;

/* The same with the calls of n blocks by rounds at every size (as on a machine whose rules
 * take `shm` for them): at 2 ranks such a call goes by one round wherever it fits one. The
 * rules of every collective but the reduce-scatter, which split_rs_rules (below) shares. */
#define EXCHANGE_RULES_BUT_RS                                                                      \
    "barrier any any any any any host shm\n"                                                       \
    "broadcast any any any any any host direct\n"                                                  \
    "broadcast any any any any any device tree\n"                                                  \
    "reduce any any any any any host tree\n"                                                       \
    "reduce any any any any any device tree\n"                                                     \
    "allreduce any any any any any host shm\n"                                                     \
    "allreduce any any any any any device ring\n"                                                  \
    "gather any any any any any host direct\n"                                                     \
    "gather any any any any any device tree\n"                                                     \
    "allgather any any any any any host shm\n"                                                     \
    "allgather any any any any any device ring\n"                                                  \
    "scatter any any any any any host direct\n"                                                    \
    "scatter any any any any any device tree\n"                                                    \
    "alltoall any any any any any host shm\n"                                                      \
    "alltoall any any any any any device ring\n"
static const char exchange_rules[] =
    EXCHANGE_RULES_BUT_RS "reduce_scatter any any any any any host shm\n"
                          "reduce_scatter any any any any any device ring\n";

/* exchange_rules with the reduce-scatter's rule by size: its shared-memory steps up to 64
 * KiB in all, the ring beyond, so that a nonblocking call beyond 2 ranks goes by rounds of
 * the lane below that and by a schedule above. */
static const char split_rs_rules[] =
    EXCHANGE_RULES_BUT_RS "reduce_scatter 3 <=64k any any any host shm\n"
                          "reduce_scatter any any any any any host ring\n"
                          "reduce_scatter any any any any any device ring\n";

/* Runs fn on n ranks under the rules given; the test's result. The file is removed at
 * once and read through the descriptor the ranks inherit, so that a test ended by its
 * time-out leaves nothing in /tmp. */
static int with_rules(const char *rules, int n, shmct_fn fn, void *arg)
{
    char path[] = "/tmp/shmc_nbc_rules_XXXXXX", name[64];
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    unlink(path);
    ck_assert(write(fd, rules, strlen(rules)) == (ssize_t)strlen(rules));
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    setenv("SHMC_TUNING_FILE", name, 1);
    int rc = shmct_run(n, fn, arg);
    unsetenv("SHMC_TUNING_FILE");
    close(fd);
    return rc;
}

/* The same where every blocking call goes by shared memory (exchange_rules), so that the
 * reduce-scatter beyond 2 ranks takes several rounds of the lane past one round's blocks,
 * whatever the machine's own rules say. */
START_TEST(test_nbc_world_rounds_shm)
{
    ck_assert_int_eq(with_rules(exchange_rules, 3 + _i, world_rounds, NULL), 0);
}
END_TEST

/* A call by rounds on some ranks and by a schedule on others (another count past the
 * rounds' limit): every rank ends with
 * SHMC_ERR_MISMATCH, none waits for ever (the schedule's gate, nbworld.h), and the
 * world's collectives fail after it on every rank (all quit them). Case 0: an all-gather at
 * 2 ranks, rank 0 by one round (a block that fills a half of the lane), the other's of an
 * element more by schedule; 1: the same, rank 1
 * by rounds; 2: an all-gather at 3 ranks under rooted_rules, rank 0 by one round, the
 * others' of a block more by a schedule (the blocking call's rule gives messages); 3: a
 * reduce-scatter at 2 ranks, rank 0 by rounds (both blocks in one round). Beyond 2 ranks the rooted
 * calls go through the lane's slots up to 64 KiB, a schedule with its gate beyond
 * (lib/coll/nbslot.h): 4: a broadcast at 3 ranks, the root's through its slot, which it ends on
 * publishing (it cannot know), the others' by schedule, which meet its words in their gates; 5: a
 * gather at 3 ranks, the root's through the slots, which meets the others' gates; the others'
 * schedules then fail on the root's quitting. 6: a broadcast at 2 ranks under rooted_rules, rank
 * 0's by rounds, rank 1's by a schedule and its gate. Cases 0, 1 and 3 run under exchange_rules
 * (the blocking calls by rounds, so the nonblocking ones too up to a round's fill); 7: an
 * all-gather at 2 ranks under rooted_rules (the blocking call's messages), rank 0's of 2 KiB in all
 * by one round, rank 1's of a block more by a schedule. 8: a reduce-scatter at 3 ranks under
 * split_rs_rules, rank 0's by several rounds of the lane, the others' by the ring's schedule and
 * its gate. 9: a broadcast at 2 ranks under rooted_mid_rules, after broadcasts that agree (64,
 * 200 and 4 words: by rounds, by messages, by messages) and are checked: rank 0's of 64 words by
 * rounds, rank 1's of 4 by a schedule and its gate, answered from the way of the last call
 * like it (lib/coll/nbworld.h) without the rules' look. */
/* The most elements of 8 bytes a round of the nonblocking lane carries at 2 ranks: of an
 * all-gather's block (a block a half), and of a reduce-scatter's (both blocks in a half). */
#define FILL_AG ((size_t)4096)
#define FILL_RS (FILL_AG / 2)

static void rounds_against_schedule(shmc_comm *w, int me, int n, void *arg)
{
    int which = *(const int *)arg;
    int64_t *buf = shmct_xmalloc(OVER * 8 * (size_t)(n + 1)); /* a send block, n received */
    fill(buf, OVER * (size_t)n, me);
    shmc_request *r = NULL;
    int rc; /* at the start (a failure found at once) or in the wait */
    if (which < 2) {
        size_t c = me == which ? FILL_AG : FILL_AG + 1; /* one round, or a schedule */
        rc = shmc_iallgather(buf, buf + OVER, c, SHMC_INT64, w, &r);
    } else if (which == 4) {
        size_t c = me == 0 ? TWO : OVER; /* through the slot; a word more: not */
        rc = shmc_ibroadcast(buf, c, SHMC_INT64, 0, w, &r);
    } else if (which == 5) {
        size_t c = me == 0 ? TWO : OVER;
        rc = shmc_igather(buf, buf + OVER, c, SHMC_INT64, 0, w, &r);
    } else if (which == 6) {
        size_t c = me == 0 ? 64 : 512; /* by rounds, or by a schedule (rooted_rules) */
        rc = shmc_ibroadcast(buf, c, SHMC_INT64, 0, w, &r);
    } else if (which == 9) {
        static const size_t agree[] = {64, 200, 4};
        int64_t *ref = shmct_xmalloc(OVER * 8);
        for (int k = 0; k < 3; k++) {
            fill(ref, agree[k], 0);
            if (me == 0)
                fill(buf, agree[k], 0);
            else
                memset(buf, 0, agree[k] * 8);
            T_OK(shmc_ibroadcast(buf, agree[k], SHMC_INT64, 0, w, &r));
            T_OK(shmc_wait(&r, NULL));
            same(buf, ref, agree[k], "a broadcast by the lane's rules", me);
        }
        free(ref);
        rc = shmc_ibroadcast(buf, me == 0 ? 64 : 4, SHMC_INT64, 0, w, &r);
    } else if (which == 7) {
        size_t c = me == 0 ? 128 : 129; /* one round (2 KiB in all), or a schedule */
        rc = shmc_iallgather(buf, buf + OVER, c, SHMC_INT64, w, &r);
    } else if (which == 2) {
        size_t c = me == 0 ? 4096 : 4097; /* a block of one round, or not */
        rc = shmc_iallgather(buf, buf + OVER, c, SHMC_INT64, w, &r);
    } else if (which == 8) {
        /* by several rounds (48000 bytes in all), or by the ring's schedule (72000) */
        size_t c = me == 0 ? 2000 : 3000;
        int64_t *out = shmct_xmalloc(OVER * 8);
        rc = shmc_ireduce_scatter(buf, out, c, SHMC_INT64, SHMC_SUM, w, &r);
        if (rc == SHMC_OK)
            rc = shmc_wait(&r, NULL);
        free(out);
    } else {
        size_t c = me == 0 ? FILL_RS : FILL_RS + 1; /* both blocks in one round, or not */
        int64_t *out = shmct_xmalloc(OVER * 8);
        rc = shmc_ireduce_scatter(buf, out, c, SHMC_INT64, SHMC_SUM, w, &r);
        if (rc == SHMC_OK)
            rc = shmc_wait(&r, NULL);
        free(out);
    }
    if (rc == SHMC_OK)
        rc = shmc_wait(&r, NULL);
    if (which == 4 && me == 0)
        T_ASSERT(rc == SHMC_OK && r == NULL, "case 4, the root: %s", shmc_strerror(rc));
    else if (which == 5 && me != 0)
        T_ASSERT(rc != SHMC_OK && r == NULL, "case 5, rank %d: the schedule ended", me);
    else
        T_ASSERT(rc == SHMC_ERR_MISMATCH && r == NULL, "case %d, rank %d of %d: %s", which, me, n,
                 shmc_strerror(rc));
    /* No rank leaves before every rank has its outcome (point-to-point outlives a quit). */
    int v = me, got = -1;
    T_OK(shmc_sendrecv(&v, 1, (me + 1) % n, 9, &got, 1, (me + n - 1) % n, 9, SHMC_INT32, w, NULL));
    int64_t x = 1, y = 0;
    rc = shmc_allreduce(&x, &y, 1, SHMC_INT64, SHMC_SUM, w);
    T_ASSERT(rc != SHMC_OK, "case %d, rank %d: the world's collectives went on", which, me);
    free(buf);
}

/* A member that starts the call only once another has quit the world's collectives: rank 0's
 * all-gather by one round meets the schedules of ranks 1 and 2 (a block more, under
 * rooted_rules: messages), fails, and tells rank 2, which starts its call only after
 * seeing the quit. Its call fails at its start, and it quits in turn, which declines the
 * offer of rank 1's schedule (its block, past the eager limit, sent to rank 2): when the
 * start only returned the error, rank 1 waited for ever for an answer, and rank 2 for
 * rank 1 in the ring below. */
static void late_after_quit(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int64_t *buf = shmct_xmalloc(OVER * 8 * (size_t)(n + 1));
    fill(buf, OVER * (size_t)n, me);
    shmc_request *r = NULL;
    int rc, token = 0;
    if (me == 2) {
        /* (shmc_test looks at the job, where the quit shows, as it takes the token) */
        shmc_request *t = NULL;
        int done = 0;
        T_OK(shmc_irecv(&token, 1, SHMC_INT32, 0, 7, w, &t));
        while (!done)
            T_OK(shmc_test(&t, &done, NULL));
    }
    rc = shmc_iallgather(buf, buf + OVER, me == 0 ? FILL_AG : FILL_AG + 1, SHMC_INT64, w, &r);
    if (rc == SHMC_OK)
        rc = shmc_wait(&r, NULL);
    if (me == 0)
        T_OK(shmc_send(&token, 1, SHMC_INT32, 2, 7, w));
    T_ASSERT(rc != SHMC_OK && r == NULL, "rank %d: %s", me, shmc_strerror(rc));
    int v = me, got = -1;
    T_OK(shmc_sendrecv(&v, 1, (me + 1) % n, 9, &got, 1, (me + n - 1) % n, 9, SHMC_INT32, w, NULL));
    int64_t x = 1, y = 0;
    T_ASSERT(shmc_allreduce(&x, &y, 1, SHMC_INT64, SHMC_SUM, w) != SHMC_OK,
             "rank %d: the world's collectives went on", me);
    free(buf);
}

/* Rules under which an all-reduce on the world goes through the staging buffers beyond
 * 1 KiB (coll_staged counts such calls), by one round below. */
static const char staged_rules[] = "barrier any any any any any host shm\n"
                                   "broadcast any any any any any host direct\n"
                                   "broadcast any any any any any device tree\n"
                                   "reduce any any any any any host tree\n"
                                   "reduce any any any any any device tree\n"
                                   "allreduce any <=1k world any any host shm\n"
                                   "allreduce any any world any any host stage\n"
                                   "allreduce any any any any any host shm\n"
                                   "allreduce any any any any any device ring\n"
                                   "gather any any any any any host direct\n"
                                   "gather any any any any any device tree\n"
                                   "allgather any any any any any any ring\n"
                                   "scatter any any any any any host direct\n"
                                   "scatter any any any any any device tree\n"
                                   "reduce_scatter any any any any any any ring\n"
                                   "alltoall any any any any any any ring\n";

/* A start answered from the way of the collective's last call like it (nbworld.h,
 * co->lane_last) only where that way still holds: the same all-reduce of 4 KiB made six
 * times, the third and fourth with the ring forced (shmc_config_set, as a program may
 * between calls), then the rules again: staged each time but those two, whose schedule
 * must not take the way kept from the calls before; results checked; then one of int32
 * of the same bytes (another element size: the way is worked out again). */
/* (its elements: 4 KiB of int64) */
#define LL 512
static void lane_last_forced(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int64_t in[LL], out[LL];
    for (int k = 0; k < 7; k++) {
        int forced = k == 2 || k == 3;
        T_OK(shmc_config_set("SHMC_ALGO_ALLREDUCE", forced ? "ring" : "auto"));
        uint64_t before = shmct_stat("coll_staged");
        fill(in, LL, me + k);
        shmc_request *r = NULL;
        if (k < 6) {
            T_OK(shmc_iallreduce(in, out, LL, SHMC_INT64, SHMC_SUM, w, &r));
        } else {
            /* (the same bytes in elements of another size) */
            int32_t d[2 * LL], e[2 * LL];
            for (size_t i = 0; i < 2 * LL; i++)
                d[i] = (int32_t)in[i / 2];
            T_OK(shmc_iallreduce(d, e, 2 * LL, SHMC_INT32, SHMC_SUM, w, &r));
            T_OK(shmc_wait(&r, NULL));
            for (size_t i = 0; i < LL; i++)
                out[i] = e[2 * i] == e[2 * i + 1] ? e[2 * i] : INT64_MIN;
        }
        if (r)
            T_OK(shmc_wait(&r, NULL));
        for (size_t i = 0; i < LL; i++) {
            int64_t want = 0;
            for (int q = 0; q < n; q++)
                want += val(q + k, i);
            T_ASSERT(out[i] == want, "call %d, rank %d, element %zu: %lld, not %lld", k, me, i,
                     (long long)out[i], (long long)want);
        }
        uint64_t staged = shmct_stat("coll_staged") - before;
        T_ASSERT(staged == (uint64_t)!forced, "call %d, rank %d: staged %llu times", k, me,
                 (unsigned long long)staged);
    }
    T_OK(shmc_config_set("SHMC_ALGO_ALLREDUCE", "auto"));
}

START_TEST(test_nbc_lane_last_forced)
{
    ck_assert_int_eq(with_rules(staged_rules, 2 + _i, lane_last_forced, NULL), 0);
}
END_TEST

/* The ways of the last two sizes of a collective are kept (co->lane_last), each answered
 * as its own: all-reduces of 4 KiB (staged) and 256 B (one round) alternating, then one
 * of 8 KiB (staged) that takes the place of the one worked out first, and the three again
 * in another order; each call staged exactly when it is over 1 KiB, its result checked,
 * and the rules asked for the 5 calls that neither kept size answers (coll_lane_ways),
 * after two calls of other sizes that fill both entries. */
static void lane_last_sizes(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    static const size_t sizes[] = {3, 5, 512, 32, 512, 32, 512, 32, 1024, 32, 512, 1024, 32, 32};
    int64_t in[1024], out[1024];
    uint64_t ways = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        if (k == 2)
            ways = shmct_stat("coll_lane_ways");
        size_t c = sizes[k];
        uint64_t before = shmct_stat("coll_staged");
        for (size_t i = 0; i < c; i++)
            in[i] = val(me + (int)k, i);
        shmc_request *r = NULL;
        T_OK(shmc_iallreduce(in, out, c, SHMC_INT64, SHMC_SUM, w, &r));
        T_OK(shmc_wait(&r, NULL));
        for (size_t i = 0; i < c; i++) {
            int64_t want = 0;
            for (int q = 0; q < n; q++)
                want += val(q + (int)k, i);
            T_ASSERT(out[i] == want, "call %zu, rank %d, element %zu: %lld, not %lld", k, me, i,
                     (long long)out[i], (long long)want);
        }
        uint64_t staged = shmct_stat("coll_staged") - before;
        T_ASSERT(staged == (c * sizeof *in > 1024), "call %zu (%zu B), rank %d: staged %llu times",
                 k, c * sizeof *in, me, (unsigned long long)staged);
    }
    ways = shmct_stat("coll_lane_ways") - ways;
    T_ASSERT(ways == 5, "rank %d: the rules asked %llu times, not 5", me, (unsigned long long)ways);
}

START_TEST(test_nbc_lane_last_sizes)
{
    ck_assert_int_eq(with_rules(staged_rules, 2 + _i, lane_last_sizes, NULL), 0);
}
END_TEST

START_TEST(test_nbc_late_after_quit)
{
    int dummy = 0;
    ck_assert_int_eq(with_rules(rooted_rules, 3, late_after_quit, &dummy), 0);
}
END_TEST

START_TEST(test_nbc_rounds_against_schedule)
{
    int which = _i;
    if (which == 8) {
        ck_assert_int_eq(with_rules(split_rs_rules, 3, rounds_against_schedule, &which), 0);
        return;
    }
    if (which >= 6) {
        const char *rules = which == 9 ? rooted_mid_rules : rooted_rules;
        ck_assert_int_eq(with_rules(rules, 2, rounds_against_schedule, &which), 0);
        return;
    }
    if (which < 2 || which == 3) {
        ck_assert_int_eq(with_rules(exchange_rules, 2, rounds_against_schedule, &which), 0);
        return;
    }
    if (which == 2) { /* (the all-gather's messages: more than a round goes by a schedule) */
        ck_assert_int_eq(with_rules(rooted_rules, 3, rounds_against_schedule, &which), 0);
        return;
    }
    ck_assert_int_eq(shmct_run(which == 2 || which > 3 ? 3 : 2, rounds_against_schedule, &which),
                     0);
}
END_TEST

/* A call by rounds on rank 0 and by a schedule on rank 1 (its all-gather of a block more,
 * under exchange_rules), after which rank 1 starts a barrier, whose round is the one rank 0's
 * all-gather waits in: rank 0 meets the barrier's words there, not the all-gather's, and
 * only the two ranks' words of calls (lib/coll/wsync.c) tell that rank 1 ran the all-gather
 * as a schedule, which would wait for ever for rank 0's messages unless rank 0 quits the
 * world's collectives. Rank 0 makes no other call on the lane, so nothing else would find
 * it. Every call ends with an error, either rank late. */
static void split_then_rounds(shmc_comm *w, int me, int n, void *arg)
{
    int late = *(const int *)arg;
    int64_t *buf = shmct_xmalloc(OVER * 8 * (size_t)(n + 1));
    fill(buf, OVER * (size_t)n, me);
    if (me == late)
        usleep(100000);
    shmc_request *r = NULL, *b = NULL;
    T_OK(shmc_iallgather(buf, buf + OVER, me == 0 ? FILL_AG : FILL_AG + 1, SHMC_INT64, w, &r));
    if (me == 1)
        T_OK(shmc_ibarrier(w, &b));
    int rc = shmc_wait(&r, NULL);
    T_ASSERT(rc != SHMC_OK && r == NULL, "rank %d, rank %d late: the all-gather ended well", me,
             late);
    if (me == 1) {
        rc = shmc_wait(&b, NULL);
        T_ASSERT(rc != SHMC_OK && b == NULL, "rank 1, rank %d late: the barrier ended well", late);
    }
    int v = me, got = -1;
    T_OK(shmc_sendrecv(&v, 1, (me + 1) % n, 9, &got, 1, (me + n - 1) % n, 9, SHMC_INT32, w, NULL));
    int64_t x = 1, y = 0;
    rc = shmc_allreduce(&x, &y, 1, SHMC_INT64, SHMC_SUM, w);
    T_ASSERT(rc != SHMC_OK, "rank %d: the world's collectives went on", me);
    free(buf);
}

START_TEST(test_nbc_split_then_rounds)
{
    int late = _i;
    ck_assert_int_eq(with_rules(exchange_rules, 2, split_then_rounds, &late), 0);
}
END_TEST

/* Calls of every way mixed, as a program makes them: batches of 1 to 6 nonblocking calls on
 * the world started back to back and then waited for, all-reduces, all-gathers, broadcasts
 * and barriers whose counts fall on either side of the rounds' limits (so that the same
 * sequence runs lean rounds, queued rounds and schedules through their gates), in one
 * sequence on every rank, with a rank now and then a little late. Every result is
 * checked: the ranks' words of calls must agree at every call (lib/coll/wsync.c), so no
 * call ends with a mismatch that is not there. */
#define MIX_CALLS 6
#define MIX_MAX 2048
static void mixed_ways(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    static const size_t reduce_counts[] = {1, 100, 300, 600, 1500};
    static const size_t gather_counts[] = {1, 100, 512, 513, 1000};
    static const size_t bcast_counts[] = {1, 2, 64, 513};
    int64_t *in = shmct_xmalloc(MIX_MAX * 8);
    int64_t *out = shmct_xmalloc((size_t)MIX_CALLS * MIX_MAX * 8 * (size_t)n);
    for (size_t i = 0; i < MIX_MAX; i++)
        in[i] = me * 1000 + (int64_t)i;
    unsigned seq = 12345, late = 777u + (unsigned)me;
    for (int batch = 0; batch < 400; batch++) {
        shmc_request *r[MIX_CALLS];
        int kind[MIX_CALLS];
        size_t cnt[MIX_CALLS];
        int m = 1 + (int)(rand_r(&seq) % MIX_CALLS);
        if (rand_r(&late) % 8 == 0)
            usleep(rand_r(&late) % 50);
        for (int k = 0; k < m; k++) {
            int64_t *o = out + (size_t)k * MIX_MAX * (size_t)n;
            kind[k] = (int)(rand_r(&seq) % 4);
            if (kind[k] == 0) {
                cnt[k] = reduce_counts[rand_r(&seq) % 5];
                T_OK(shmc_iallreduce(in, o, cnt[k], SHMC_INT64, SHMC_SUM, w, &r[k]));
            } else if (kind[k] == 1) {
                cnt[k] = gather_counts[rand_r(&seq) % 5];
                T_OK(shmc_iallgather(in, o, cnt[k], SHMC_INT64, w, &r[k]));
            } else if (kind[k] == 2) {
                cnt[k] = bcast_counts[rand_r(&seq) % 4];
                for (size_t i = 0; i < cnt[k]; i++)
                    o[i] = me == 0 ? 7 * (int64_t)i + batch : -1;
                T_OK(shmc_ibroadcast(o, cnt[k], SHMC_INT64, 0, w, &r[k]));
            } else {
                cnt[k] = 0;
                T_OK(shmc_ibarrier(w, &r[k]));
            }
        }
        T_OK(shmc_waitall(m, r, NULL));
        for (int k = 0; k < m; k++) {
            const int64_t *o = out + (size_t)k * MIX_MAX * (size_t)n;
            for (size_t i = 0; i < cnt[k]; i++) {
                if (kind[k] == 0)
                    T_ASSERT(o[i] == 1000 * n * (n - 1) / 2 + n * (int64_t)i,
                             "batch %d call %d: all-reduce of %zu, element %zu: %lld", batch, k,
                             cnt[k], i, (long long)o[i]);
                else if (kind[k] == 2)
                    T_ASSERT(o[i] == 7 * (int64_t)i + batch,
                             "batch %d call %d: broadcast of %zu, element %zu: %lld", batch, k,
                             cnt[k], i, (long long)o[i]);
                else
                    for (int q = 0; q < n; q++)
                        T_ASSERT(o[(size_t)q * cnt[k] + i] == q * 1000 + (int64_t)i,
                                 "batch %d call %d: all-gather of %zu, rank %d's element %zu",
                                 batch, k, cnt[k], q, i);
            }
        }
    }
    free(in);
    free(out);
}

START_TEST(test_nbc_mixed_ways)
{
    int n = 2 + _i % 2;
    if (_i < 2)
        ck_assert_int_eq(shmct_run(n, mixed_ways, NULL), 0);
    else
        ck_assert_int_eq(with_rules(_i < 4 ? exchange_rules : gates_rules, n, mixed_ways, NULL), 0);
}
END_TEST

/* Schedules on the world pass a gate (lib/coll/nbworld.h): they count among the lane's
 * calls without entering its rounds. Rank 0 starts barriers and all-gathers by rounds with
 * all-reduces by messages (forced rd) between, while the others are still away: the first
 * barrier runs outside the queue (nbworld.c, `lean`) until the all-gather by rounds after
 * it queues it. Each result equals the blocking call's; then a blocking call; then an
 * all-reduce whose op differs on one rank (the same bytes travel, so only the words in the
 * messages' tags tell): every rank's call ends with SHMC_ERR_MISMATCH, whichever comes
 * first, and the world's collectives after it fail. */
static void gates(shmc_comm *w, int me, int n, void *arg)
{
    int late = *(const int *)arg;
    enum { K = 9 };
    T_OK(shmc_config_set("SHMC_ALGO_ALLREDUCE", "rd"));
    int64_t in[4], out[K][4], ref[4], g[K][8];
    fill(in, 4, me);
    if (me != 0)
        usleep(100000);
    shmc_request *r[K];
    for (int k = 0; k < K; k++) {
        if (k % 3 == 0)
            T_OK(shmc_ibarrier(w, &r[k]));
        else if (k % 3 == 2)
            T_OK(shmc_iallgather(in, g[k], 1, SHMC_INT64, w, &r[k]));
        else
            T_OK(shmc_iallreduce(in, out[k], 4, SHMC_INT64, SHMC_SUM, w, &r[k]));
    }
    T_OK(shmc_waitall(K, r, NULL));
    T_OK(shmc_allreduce(in, ref, 4, SHMC_INT64, SHMC_SUM, w));
    for (int k = 1; k < K; k += 3)
        same(out[k], ref, 4, "an all-reduce by a schedule behind gates", me);
    T_OK(shmc_allgather(in, ref, 1, SHMC_INT64, w));
    for (int k = 2; k < K; k += 3)
        same(g[k], ref, (size_t)n, "an all-gather by rounds between gates", me);
    if (me == late)
        usleep(100000);
    shmc_request *m;
    T_OK(shmc_iallreduce(in, out[0], 4, SHMC_INT64, me == n - 1 ? SHMC_MAX : SHMC_SUM, w, &m));
    int rc = shmc_wait(&m, NULL);
    T_ASSERT(rc == SHMC_ERR_MISMATCH, "rank %d of %d, rank %d late: %s", me, n, late,
             shmc_strerror(rc));
    /* No rank leaves before every rank has its outcome (point-to-point outlives a quit). */
    int v = me, got = -1;
    T_OK(shmc_sendrecv(&v, 1, (me + 1) % n, 9, &got, 1, (me + n - 1) % n, 9, SHMC_INT32, w, NULL));
    rc = shmc_allreduce(in, ref, 1, SHMC_INT64, SHMC_SUM, w);
    T_ASSERT(rc != SHMC_OK, "rank %d: the world's collectives went on", me);
}

START_TEST(test_nbc_gates)
{
    int n = _i < 2 ? 2 : 4, late = _i % 2 ? n - 1 : 0;
    ck_assert_int_eq(shmct_run(n, gates, &late), 0);
}
END_TEST

/* A root whose broadcasts by messages end in their start (each block goes eagerly) never
 * waits, and so never runs progress, while the other rank is away: each call passes a gate
 * (lib/coll/nbworld.h), which must keep pace with the calls, not leave work per call to be
 * gone through one at a time by whatever call comes behind them (a broadcast by rounds,
 * here: when the gates were rounds of the lane, they queued). Under rooted_rules at 2 ranks: K broadcasts of 2 words (by messages),
 * then one of a word by rounds, the root first while rank 1 sleeps, then rank 1; each
 * result checked. Gates queued for each call and polled only by progress took a sleeping
 * rank's slice each once both waited: SHMC_TIMEOUT ends the job then. */
static void gates_keep_pace(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    enum { K = 4000 };
    int64_t v[2];
    if (me == 1)
        usleep(200000);
    for (int k = 0; k < K; k++) {
        v[0] = me == 0 ? k : -1;
        v[1] = me == 0 ? 3 * k : -1;
        NB(shmc_ibroadcast(v, 2, SHMC_INT64, 0, w, &r_));
        T_ASSERT(v[0] == k && v[1] == 3 * k, "rank %d: broadcast %d gave %lld %lld", me, k,
                 (long long)v[0], (long long)v[1]);
    }
    v[0] = me == 0 ? 77 : -1;
    NB(shmc_ibroadcast(v, 1, SHMC_INT64, 0, w, &r_));
    T_ASSERT(v[0] == 77, "rank %d: the broadcast by rounds gave %lld", me, (long long)v[0]);
}

START_TEST(test_nbc_gates_keep_pace)
{
    setenv("SHMC_TIMEOUT", "10", 1); /* (a minute and more, before) */
    ck_assert_int_eq(with_rules(gates_rules, 2, gates_keep_pace, NULL), 0);
    unsetenv("SHMC_TIMEOUT");
}
END_TEST

/* Schedules pass their gates (lib/coll/nbworld.c) while the other rank is away; a member
 * whose call went by rounds at one of them finds, in the schedules' rank's word of calls,
 * that it ran as a schedule there (lib/coll/wsync.c). Under gates_rules at 2 ranks each
 * rank starts K broadcasts of 2 words (schedules and their gates) before waiting for any,
 * rank 1's call `odd` of one word (by rounds), rank `late` once the other has started all
 * of its calls: rank 1's calls before it end with the root's data, that one with
 * SHMC_ERR_MISMATCH and the ones after it with an error; every call of the root ends, and
 * the world's collectives fail afterwards on both ranks. */
static void queued_gates_mismatch(shmc_comm *w, int me, int n, void *arg)
{
    const int *c = arg;
    int odd = c[0], late = c[1];
    enum { K = 12 };
    int64_t v[K][2];
    shmc_request *r[K];
    if (me == late)
        usleep(100000);
    for (int k = 0; k < K; k++) {
        v[k][0] = me == 0 ? k : -1;
        v[k][1] = me == 0 ? 5 * k : -1;
        int rc = shmc_ibroadcast(v[k], me == 1 && k == odd ? 1 : 2, SHMC_INT64, 0, w, &r[k]);
        T_ASSERT(rc == SHMC_OK || k >= odd, "rank %d: call %d refused: %s", me, k,
                 shmc_strerror(rc));
        if (rc != SHMC_OK)
            r[k] = NULL; /* (refused at its start: the world had quit) */
    }
    for (int k = 0; k < K; k++) {
        int rc = shmc_wait(&r[k], NULL);
        if (me == 1 && k < odd)
            T_ASSERT(rc == SHMC_OK && v[k][0] == k && v[k][1] == 5 * k,
                     "rank 1, call %d: %s, %lld %lld", k, shmc_strerror(rc), (long long)v[k][0],
                     (long long)v[k][1]);
        else if (me == 1 && k == odd)
            T_ASSERT(rc == SHMC_ERR_MISMATCH, "rank 1, call %d by rounds: %s", k,
                     shmc_strerror(rc));
        else if (me == 1)
            T_ASSERT(rc != SHMC_OK || r[k] == NULL, "rank 1, call %d after the mismatch: ok", k);
        T_ASSERT(r[k] == NULL, "rank %d, call %d: its request stayed", me, k);
    }
    /* No rank leaves before every rank has its outcome (point-to-point outlives a quit). */
    int x = me, got = -1;
    T_OK(shmc_sendrecv(&x, 1, (me + 1) % n, 9, &got, 1, (me + n - 1) % n, 9, SHMC_INT32, w, NULL));
    int64_t in = 1, out = 0;
    int rc = shmc_allreduce(&in, &out, 1, SHMC_INT64, SHMC_SUM, w);
    T_ASSERT(rc != SHMC_OK, "rank %d: the world's collectives went on", me);
}

START_TEST(test_nbc_queued_gates_mismatch)
{
    /* the mismatch at the second call or deep in the queue; either rank late */
    int c[2] = {_i / 2 ? 9 : 1, _i % 2};
    ck_assert_int_eq(with_rules(gates_rules, 2, queued_gates_mismatch, c), 0);
}
END_TEST

/* A rooted call whose part on a rank is one message (lib/coll/sched.h, shmc__sched_one)
 * ends in its start where the message can go or is there already: at 2 ranks on a split
 * communicator (schedules), every rooted collective, each root, with the sender's call
 * made and waited for before the receiver starts (it sleeps), and then the other way
 * round (the receiver's start finds nothing and waits); the reduce with SUM, AVG and a
 * non-commutative op, in place at the root too. Each equals its blocking call. */
static void one_message(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, me, &c));
    shmc_op aff;
    T_OK(shmc_op_create(affine, NULL, 0, &aff));
    int64_t in[2 * C], a[2 * C], b[2 * C];
    double fin[C], fa[C], fb[C];
    for (int i = 0; i < C; i++)
        fin[i] = (double)val(me, (size_t)i); /* exact sums: the same bits in any grouping */
    /* collectives: 0 broadcast, 1 scatter, 2 gather, 3-6 reduce: SUM, SUM in place at the
     * root, the affine op (pairs), AVG */
    for (int k = 0; k < 7 * 2 * 2; k++) {
        int coll = k / 4, root = k & 1, receiver_late = (k >> 1) & 1;
        int receiver = coll <= 1 ? 1 - root : root;
        fill(in, 2 * C, me);
        memcpy(a, in, sizeof a);
        memcpy(b, in, sizeof b);
        if ((me == receiver) == receiver_late)
            usleep(50000);
        size_t len = 0;
        if (coll == 0) {
            NB(shmc_ibroadcast(a, C, SHMC_INT64, root, c, &r_));
            T_OK(shmc_broadcast(b, C, SHMC_INT64, root, c));
            len = C;
        } else if (coll == 1) {
            NB(shmc_iscatter(in, a, C, SHMC_INT64, root, c, &r_));
            T_OK(shmc_scatter(in, b, C, SHMC_INT64, root, c));
            len = C;
        } else if (coll == 2) {
            NB(shmc_igather(in, a, C, SHMC_INT64, root, c, &r_));
            T_OK(shmc_gather(in, b, C, SHMC_INT64, root, c));
            len = me == root ? (size_t)n * C : 0;
        } else if (coll == 6) {
            NB(shmc_ireduce(fin, fa, C, SHMC_FLOAT64, SHMC_AVG, root, c, &r_));
            T_OK(shmc_reduce(fin, fb, C, SHMC_FLOAT64, SHMC_AVG, root, c));
            T_ASSERT(me != root || !memcmp(fa, fb, sizeof fa), "an average at root %d", root);
        } else {
            int pairs = coll == 5, inplace = coll == 4 && me == root;
            shmc_dtype dt = pairs ? SHMC_DTYPE_BYTES(16) : SHMC_INT64;
            size_t cnt = pairs ? C / 2 : C;
            shmc_op op = pairs ? aff : SHMC_SUM;
            NB(shmc_ireduce(inplace ? SHMC_IN_PLACE : in, a, cnt, dt, op, root, c, &r_));
            T_OK(shmc_reduce(inplace ? SHMC_IN_PLACE : in, b, cnt, dt, op, root, c));
            len = me == root ? (pairs ? 2 * cnt : cnt) : 0;
        }
        same(a, b, len, "a rooted call of one message", me);
    }
    T_OK(shmc_op_free(&aff));
    T_OK(shmc_comm_free(&c));
}

START_TEST(test_nbc_one_message)
{
    ck_assert_int_eq(shmct_run(2, one_message, NULL), 0);
}
END_TEST

/* A small call on the world that a rank starts once the other has started it ends in its
 * start, with SHMC_REQUEST_COMPLETE (and so does a schedule of sends alone, at the end): rank 1
 * starts each after a message that rank 0 sends once it has started its own. That handle is waited
 * for, tested and named in the array calls as a complete request (twice in one array, and again
 * after its wait), a cancel refuses it, and the result it stands for is there. */
static void complete_at_start(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    enum { K = 4 };
    int64_t in[3] = {me + 1, 10 * (me + 1), -me}, out[K][3];
    shmc_request *r[K];
    for (int k = 0; k < K; k++) {
        if (me == 1)
            T_OK(shmc_recv(NULL, 0, SHMC_UINT8, 0, k, w, NULL));
        if (k % 2)
            T_OK(shmc_iallreduce(in, out[k], 3, SHMC_INT64, SHMC_SUM, w, &r[k]));
        else
            T_OK(shmc_ibarrier(w, &r[k]));
        if (me == 0)
            T_OK(shmc_send(NULL, 0, SHMC_UINT8, 1, k, w));
        if (me == 0)
            T_OK(shmc_wait(&r[k], NULL)); /* (the next starts on an idle lane) */
        else
            ck_assert_ptr_eq(r[k], SHMC_REQUEST_COMPLETE);
    }
    if (me == 1) {
        shmc_request *kept = r[0];
        ck_assert_int_eq(shmc_cancel(&r[0]), SHMC_ERR_STATE);
        int done = 0;
        shmc_status st;
        T_OK(shmc_test(&r[0], &done, &st));
        ck_assert(done && !r[0] && st.error == SHMC_OK && st.count == 0);
        size_t index;
        T_OK(shmc_waitany(K, r, &index, NULL));
        ck_assert_uint_eq(index, 1);
        r[0] = r[2] = kept; /* (named twice, and already waited for: complete still) */
        T_OK(shmc_waitall(K, r, NULL));
        for (int k = 0; k < K; k++)
            ck_assert_ptr_null(r[k]);
        T_OK(shmc_wait(&kept, NULL));
    }
    for (int k = 1; k < K; k += 2) {
        ck_assert_int_eq(out[k][0], 3);
        ck_assert_int_eq(out[k][1], 30);
        ck_assert_int_eq(out[k][2], -1);
    }
    /* A schedule of one's own that only sends, and fits the mailbox, ends in its start
     * too; its receiver's gets the block. */
    shmc_sched *s;
    int64_t block[4] = {7, 8, 9, me}, got[4] = {0};
    T_OK(shmc_sched_create(w, SHMC_INT64, SHMC_SUM, 0, &s));
    if (me == 0)
        T_OK(shmc_sched_send(s, block, sizeof block, 1));
    else
        T_OK(shmc_sched_recv(s, got, sizeof got, 0));
    shmc_request *q;
    T_OK(shmc_sched_start(s, &q));
    if (me == 0)
        ck_assert_ptr_eq(q, SHMC_REQUEST_COMPLETE);
    T_OK(shmc_wait(&q, NULL));
    if (me == 1)
        ck_assert(got[0] == 7 && got[1] == 8 && got[2] == 9 && got[3] == 0);
}

START_TEST(test_nbc_complete_at_start)
{
    ck_assert_int_eq(shmct_run(2, complete_at_start, NULL), 0);
}
END_TEST

/* Under rooted_rules, every rooted call at 2 ranks, every root, of 64 and 512 elements (by
 * the rounds, and by a schedule with its gate), started back to back alternately and
 * waited for together: each equals its blocking call. */
static void rooted_ways(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    enum { K = 16, BIG = 512 };
    int64_t *in = shmct_xmalloc(BIG * 8 * 2), *out = shmct_xmalloc((size_t)K * BIG * 8 * 2),
            *ref = shmct_xmalloc(BIG * 8 * 2);
    fill(in, BIG * 2, me);
    shmc_request *r[K];
    for (int k = 0; k < K; k++) {
        size_t c = k % 2 ? BIG : 64;
        int root = (k / 2) % 2, coll = (k / 4) % 4;
        int64_t *o = out + (size_t)k * BIG * 2;
        memcpy(o, in, BIG * 8);
        if (coll == 0)
            T_OK(shmc_ibroadcast(o, c, SHMC_INT64, root, w, &r[k]));
        else if (coll == 1)
            T_OK(shmc_ireduce(in, o, c, SHMC_INT64, SHMC_SUM, root, w, &r[k]));
        else if (coll == 2)
            T_OK(shmc_igather(in, o, c / 2, SHMC_INT64, root, w, &r[k]));
        else
            T_OK(shmc_iscatter(in, o, c / 2, SHMC_INT64, root, w, &r[k]));
    }
    T_OK(shmc_waitall(K, r, NULL));
    for (int k = 0; k < K; k++) {
        size_t c = k % 2 ? BIG : 64;
        int root = (k / 2) % 2, coll = (k / 4) % 4;
        int64_t *o = out + (size_t)k * BIG * 2;
        size_t len = c;
        memcpy(ref, in, BIG * 8);
        if (coll == 0) {
            T_OK(shmc_broadcast(ref, c, SHMC_INT64, root, w));
        } else if (coll == 1) {
            T_OK(shmc_reduce(in, ref, c, SHMC_INT64, SHMC_SUM, root, w));
            len = me == root ? c : 0;
        } else if (coll == 2) {
            T_OK(shmc_gather(in, ref, c / 2, SHMC_INT64, root, w));
            len = me == root ? c / 2 * (size_t)n : 0;
        } else {
            T_OK(shmc_scatter(in, ref, c / 2, SHMC_INT64, root, w));
            len = c / 2;
        }
        same(o, ref, len, "a rooted call by rounds or by a schedule", me);
    }
    free(in);
    free(out);
    free(ref);
}

START_TEST(test_nbc_rooted_ways)
{
    ck_assert_int_eq(with_rules(rooted_rules, 2, rooted_ways, NULL), 0);
}
END_TEST

/* Many calls in flight on the world at once, of every way the lane runs them (a small
 * all-reduce by rounds, a broadcast past the rounds' limit by a schedule and its gate, a
 * reduce-scatter of several rounds), started back to back and waited for last first, then
 * again with a waitall: each equals its blocking call. Those queued behind the first are
 * parked apart from progress (lib/p2p/p2p.h, shmc__driven_park) until it ends. */
static void many_queued(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    enum { K = 48, BIG = OVER };
    int64_t *in = shmct_xmalloc(BIG * 8 * (size_t)n), *big = shmct_xmalloc(BIG * 8 * K / 3),
            *ref = shmct_xmalloc(BIG * 8 * (size_t)n);
    int64_t sums[K], rs[K][64];
    fill(in, BIG * (size_t)n, me);
    shmc_request *r[K];
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < K; k++) {
            int64_t *b = big + (size_t)(k / 3) * BIG;
            if (k % 3 == 0)
                T_OK(shmc_iallreduce(&in[k], &sums[k], 1, SHMC_INT64, SHMC_SUM, w, &r[k]));
            else if (k % 3 == 1) {
                memcpy(b, in, BIG * 8);
                T_OK(shmc_ibroadcast(b, BIG, SHMC_INT64, k % n, w, &r[k]));
            } else
                T_OK(shmc_ireduce_scatter(in, rs[k], 64, SHMC_INT64, SHMC_SUM, w, &r[k]));
        }
        if (pass == 0)
            for (int k = K - 1; k >= 0; k--)
                T_OK(shmc_wait(&r[k], NULL));
        else
            T_OK(shmc_waitall(K, r, NULL));
        for (int k = 0; k < K; k++) {
            if (k % 3 == 0) {
                int64_t want = 0;
                for (int q = 0; q < n; q++)
                    want += val(q, (size_t)k);
                T_ASSERT(sums[k] == want, "pass %d, call %d: sum %lld, not %lld", pass, k,
                         (long long)sums[k], (long long)want);
            } else if (k % 3 == 1) {
                for (size_t i = 0; i < BIG; i++)
                    T_ASSERT(big[(size_t)(k / 3) * BIG + i] == val(k % n, i),
                             "pass %d, call %d, element %zu", pass, k, i);
            } else {
                T_OK(shmc_reduce_scatter(in, ref, 64, SHMC_INT64, SHMC_SUM, w));
                same(rs[k], ref, 64, "a queued reduce-scatter", me);
            }
        }
    }
    free(in);
    free(big);
    free(ref);
}

START_TEST(test_nbc_many_queued)
{
    static const int sizes[] = {2, 3};
    ck_assert_int_eq(shmct_run(sizes[_i], many_queued, NULL), 0);
}
END_TEST

/* Persistent collectives on the world are matched by the number each was made with, not
 * the order started (shmc_coll_reserve, shmc_coll_as): two small all-reduces and an
 * all-gather, made in one order, started in another on odd ranks, each round. */
static void persistent_order(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    uint32_t num[3];
    for (int k = 0; k < 3; k++)
        T_OK(shmc_coll_reserve(w, &num[k]));
    for (int round = 0; round < 3; round++) {
        int64_t x[2] = {me + 1, 100 * (me + 1) + round}, s[2] = {0, 0}, g[16] = {0};
        shmc_request *r[3];
        for (int i = 0; i < 3; i++) {
            int k = me % 2 ? 2 - i : i;
            shmc_coll_as(num[k]);
            if (k < 2)
                T_OK(shmc_iallreduce(&x[k], &s[k], 1, SHMC_INT64, SHMC_SUM, w, &r[k]));
            else
                T_OK(shmc_iallgather(&x[0], g, 1, SHMC_INT64, w, &r[k]));
        }
        T_OK(shmc_waitall(3, r, NULL));
        int64_t tri = (int64_t)n * (n + 1) / 2;
        T_ASSERT(s[0] == tri && s[1] == 100 * tri + (int64_t)n * round, "round %d: sums %lld %lld",
                 round, (long long)s[0], (long long)s[1]);
        for (int q = 0; q < n; q++)
            T_ASSERT(g[q] == q + 1, "round %d: block %d is %lld", round, q, (long long)g[q]);
    }
}

START_TEST(test_nbc_persistent_order)
{
    ck_assert_int_eq(shmct_run(2, persistent_order, NULL), 0);
    ck_assert_int_eq(shmct_run(5, persistent_order, NULL), 0);
}
END_TEST

/* Large all-reduces and reduce-scatters on a communicator that is not the world (the
 * schedules' ring, from SHMC_NBC_RING_MIN bytes): equal bit for bit to the blocking
 * ring's (forced, since the blocking calls pick other algorithms below 64 KiB), in place
 * and not, with counts that do not divide among the ranks, AVG, and a non-commutative op
 * (which must keep rank order, so another schedule) against the blocking call's result. */
static void ring_split(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    /* just above lib/coll/nbc.h's SHMC_NBC_RING_MIN (64 KiB) in doubles, then more; none
     * divides among the rank counts tested */
    const size_t counts[] = {8192 + 3, 70001, (1u << 18) + 5};
    enum { K = sizeof counts / sizeof counts[0] };
    size_t most = counts[K - 1];
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, n - 1 - me, &c)); /* reversed: ranks differ from the world's */
    int cme = shmc_comm_rank(c);
    /* room for the reduce-scatter's n blocks of count / n + 1 */
    double *in = shmct_xmalloc((most + 8) * 8), *a = shmct_xmalloc((most + 8) * 8),
           *b = shmct_xmalloc((most + 8) * 8);
    T_OK(shmc_config_set("SHMC_ALGO_ALLREDUCE", "ring"));
    for (int k = 0; k < K; k++) {
        size_t cnt = counts[k];
        for (int o = 0; o < 2; o++) {
            shmc_op op = o ? SHMC_AVG : SHMC_SUM;
            int inplace = (k + o) % 2;
            for (size_t i = 0; i < cnt; i++)
                in[i] = a[i] = dval(cme, i);
            shmc_request *r;
            T_OK(shmc_iallreduce(inplace ? SHMC_IN_PLACE : in, a, cnt, SHMC_FLOAT64, op, c, &r));
            T_OK(shmc_wait(&r, NULL));
            T_OK(shmc_allreduce(in, b, cnt, SHMC_FLOAT64, op, c));
            for (size_t i = 0; i < cnt; i++)
                T_ASSERT(a[i] == b[i],
                         "count %zu op %d, rank %d, element %zu: %.17g, the "
                         "blocking ring's %.17g",
                         cnt, o, cme, i, a[i], b[i]);
        }
    }
    T_OK(shmc_config_set("SHMC_ALGO_ALLREDUCE", "auto"));
    /* The reduce-scatter the same way: each rank's block of the ring's first half. */
    T_OK(shmc_config_set("SHMC_ALGO_REDUCE_SCATTER", "ring"));
    for (int k = 0; k < K; k++) {
        size_t blk = counts[k] / (size_t)n + 1;
        for (size_t i = 0; i < blk * (size_t)n; i++)
            in[i] = dval(cme, i);
        for (int o = 0; o < 2; o++) {
            shmc_op op = o ? SHMC_AVG : SHMC_SUM;
            shmc_request *r;
            T_OK(shmc_ireduce_scatter(in, a, blk, SHMC_FLOAT64, op, c, &r));
            T_OK(shmc_wait(&r, NULL));
            T_OK(shmc_reduce_scatter(in, b, blk, SHMC_FLOAT64, op, c));
            for (size_t i = 0; i < blk; i++)
                T_ASSERT(a[i] == b[i],
                         "reduce_scatter block %zu op %d, rank %d, element %zu: "
                         "%.17g, the blocking ring's %.17g",
                         blk, o, cme, i, a[i], b[i]);
        }
    }
    T_OK(shmc_config_set("SHMC_ALGO_REDUCE_SCATTER", "auto"));
    /* The affine maps' composition: order matters, and the result is exact in int64. */
    shmc_op aff;
    T_OK(shmc_op_create(affine, NULL, 0, &aff));
    size_t pairs = (1u << 14) + 1; /* 256 KiB of 16-byte elements */
    int64_t *ia = shmct_xmalloc(pairs * 16), *ib = shmct_xmalloc(pairs * 16),
            *ii = shmct_xmalloc(pairs * 16);
    fill(ii, 2 * pairs, cme);
    shmc_request *r;
    T_OK(shmc_iallreduce(ii, ia, pairs, SHMC_DTYPE_BYTES(16), aff, c, &r));
    T_OK(shmc_wait(&r, NULL));
    T_OK(shmc_allreduce(ii, ib, pairs, SHMC_DTYPE_BYTES(16), aff, c));
    same(ia, ib, 2 * pairs, "iallreduce of a non-commutative op", cme);
    T_OK(shmc_op_free(&aff));
    T_OK(shmc_comm_free(&c));
    free(ia);
    free(ib);
    free(ii);
    free(in);
    free(a);
    free(b);
}

START_TEST(test_nbc_ring_split)
{
    static const int sizes[] = {1, 2, 3, 4, 5, 8};
    ck_assert_int_eq(shmct_run(sizes[_i], ring_split, NULL), 0);
}
END_TEST

/* A reduce-scatter whose parts are mostly empty, as OSU's smallest are (one element over
 * four ranks), by the ring (2 ranks, or 64 KiB and more in all) and by the reduce to rank
 * 0 (small): each part against the sum computed here, nothing written past it; twice,
 * each call with its own tag. */
static void rs_empty(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    enum { BIG = 9000 }; /* int64 elements: past SHMC_NBC_RING_MIN in one part */
    size_t *cnt = shmct_xmalloc((size_t)n * sizeof *cnt);
    int64_t *in = shmct_xmalloc((size_t)n * BIG * 8), *out = shmct_xmalloc(BIG * 8);
    for (int pat = 0; pat < 6; pat++) {
        size_t k = pat < 3 ? 3 : BIG, total = 0, off = 0;
        for (int q = 0; q < n; q++) {
            int full = pat % 3 == 0 ? q == 0 : pat % 3 == 1 ? q == n - 1 : q % 2 == 0;
            cnt[q] = full ? k : 0;
            if (q < me)
                off += cnt[q];
            total += cnt[q];
        }
        for (size_t i = 0; i < total; i++)
            in[i] = val(me, i);
        for (int rep = 0; rep < 2; rep++) {
            memset(out, 0x5a, BIG * 8);
            NB(shmc_ireduce_scatterv(in, out, cnt, SHMC_INT64, SHMC_SUM, w, &r_));
            for (size_t i = 0; i < cnt[me]; i++) {
                int64_t want = 0;
                for (int q = 0; q < n; q++)
                    want += val(q, off + i);
                T_ASSERT(out[i] == want, "pattern %d, rank %d, element %zu: %lld, expected %lld",
                         pat, me, i, (long long)out[i], (long long)want);
            }
            T_ASSERT(cnt[me] == BIG || out[cnt[me]] == 0x5a5a5a5a5a5a5a5a,
                     "pattern %d: rank %d's output written past its part", pat, me);
        }
    }
    free(cnt);
    free(in);
    free(out);
}

START_TEST(test_nbc_reduce_scatterv_empty)
{
    static const int sizes[] = {2, 3, 4, 5};
    ck_assert_int_eq(shmct_run(sizes[_i], rs_empty, NULL), 0);
}
END_TEST

/* The max of pairs of int64 (as affine's), commutative: another op than affine. */
static void pairmax(const void *in, void *inout, size_t count, shmc_dtype dt, void *ctx)
{
    (void)dt, (void)ctx;
    const int64_t *x = in;
    int64_t *y = inout;
    for (size_t i = 0; i < 2 * count; i++)
        y[i] = x[i] > y[i] ? x[i] : y[i];
}

/* Calls made again with the same arguments run the schedule kept from the last one
 * (coll/sched.c): each of seven calls three times in a row (the second and third run the
 * kept one), round and round (more calls than are kept, so each is pushed out between),
 * with new inputs each time, in place and not, against its blocking form; the same after
 * the user op is freed and another made, after the algorithm the blocking rules force
 * for the broadcast changes, and after the communicator is freed and another made. */
static void fresh(int64_t *in, size_t len, int me, int turn, int rep)
{
    for (size_t i = 0; i < len; i++)
        in[i] = val(me, i) * (turn + 1) + turn * 3 + rep;
}

/* One call REPS times in a row: fresh inputs (in place: into a and b; else into in, a and b
 * cleared), the nonblocking form into a, the blocking one into b, equal over len elements. */
#define AGAIN(inplace, len, what, nbcall, bcall)                                                   \
    for (int rep = 0; rep < REPS; rep++) {                                                         \
        if (inplace) {                                                                             \
            fresh(a, K, me, turn, rep);                                                            \
            fresh(b, K, me, turn, rep);                                                            \
        } else {                                                                                   \
            fresh(in, all, me, turn, rep);                                                         \
            memset(a, 0, all * 8);                                                                 \
            memset(b, 0, all * 8);                                                                 \
        }                                                                                          \
        NB(nbcall);                                                                                \
        T_OK(bcall);                                                                               \
        same(a, b, len, what, me);                                                                 \
    }

static void again_round(shmc_comm *c, int me, int n, int64_t *in, int64_t *a, int64_t *b,
                        shmc_op op, int turn)
{
    enum { K = 6, REPS = 3 };
    size_t all = (size_t)n * K;
    int root = turn % n;
    AGAIN(0, K, "iallreduce again", shmc_iallreduce(in, a, K, SHMC_INT64, SHMC_SUM, c, &r_),
          shmc_allreduce(in, b, K, SHMC_INT64, SHMC_SUM, c));
    AGAIN(1, K, "iallreduce in place again",
          shmc_iallreduce(SHMC_IN_PLACE, a, K, SHMC_INT64, SHMC_MAX, c, &r_),
          shmc_allreduce(SHMC_IN_PLACE, b, K, SHMC_INT64, SHMC_MAX, c));
    AGAIN(0, K, "iallreduce, user op, again",
          shmc_iallreduce(in, a, K / 2, SHMC_DTYPE_BYTES(16), op, c, &r_),
          shmc_allreduce(in, b, K / 2, SHMC_DTYPE_BYTES(16), op, c));
    AGAIN(1, K, "ibroadcast again", shmc_ibroadcast(a, K, SHMC_INT64, root, c, &r_),
          shmc_broadcast(b, K, SHMC_INT64, root, c));
    AGAIN(0, all, "iallgather again", shmc_iallgather(in, a, K, SHMC_INT64, c, &r_),
          shmc_allgather(in, b, K, SHMC_INT64, c));
    AGAIN(0, all, "ialltoall again", shmc_ialltoall(in, a, K, SHMC_INT64, c, &r_),
          shmc_alltoall(in, b, K, SHMC_INT64, c));
    AGAIN(0, me == 0 ? all : 0, "igather again", shmc_igather(in, a, K, SHMC_INT64, 0, c, &r_),
          shmc_gather(in, b, K, SHMC_INT64, 0, c));
    AGAIN(0, K, "ireduce_scatter again",
          shmc_ireduce_scatter(in, a, K, SHMC_INT64, SHMC_MAX, c, &r_),
          shmc_reduce_scatter(in, b, K, SHMC_INT64, SHMC_MAX, c));
}
#undef AGAIN

static void again(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int64_t *in = shmct_xmalloc((size_t)n * 6 * 8), *a = shmct_xmalloc((size_t)n * 6 * 8),
            *b = shmct_xmalloc((size_t)n * 6 * 8);
    shmc_op op;
    T_OK(shmc_op_create(affine, NULL, 0, &op));
    for (int life = 0; life < 2; life++) {
        shmc_comm *c;
        T_OK(shmc_comm_split(w, 0, n - 1 - me, &c));
        for (int turn = 0; turn < 8; turn++) {
            if (turn == 3) { /* another op, perhaps under the same handle */
                T_OK(shmc_op_free(&op));
                T_OK(shmc_op_create(life ? pairmax : affine, NULL, life, &op));
            }
            if (turn == 5)
                T_OK(shmc_config_set("SHMC_ALGO_BROADCAST", life ? "direct" : "tree"));
            again_round(c, shmc_comm_rank(c), n, in, a, b, op, turn);
        }
        T_OK(shmc_config_set("SHMC_ALGO_BROADCAST", "auto"));
        T_OK(shmc_comm_free(&c));
    }
    T_OK(shmc_op_free(&op));
    free(in);
    free(a);
    free(b);
}

START_TEST(test_nbc_again)
{
    static const int sizes[] = {2, 3, 4};
    ck_assert_int_eq(shmct_run(sizes[_i], again, NULL), 0);
}
END_TEST

/* A 2-rank call whose part is one exchange with the other rank (a barrier, all-gather(v),
 * all-to-all(v), all-reduce, reduce-scatter(v)) is done in its start where the other rank's
 * block arrives within the linger (coll/sched.c, shmc__sched_swap), else by a schedule of
 * what is left: each such call on a split communicator (ranks reversed), with both ranks
 * starting together, rank 0 or rank 1 late, and rank 0's mailbox to rank 1 full of
 * messages of the program's that rank 1 takes only after each call (so that rank 0's block
 * cannot go at once and rank 1 finds them before it); blocks of 3 elements, of the most
 * taken in the start (SHMC_SWAP_NOW_MAX, 1 KiB: restated here, as the limits above) and
 * one more; in place and not; SUM, AVG and the non-commutative affine op; each equal to
 * the blocking call. */
#define SWAP_MAX (1024 / 8)
#define FILL 80 /* messages of FILL_LEN int64: more than the 2-rank mailbox holds (1 MiB) */
#define FILL_LEN 2048

/* Mode 3's messages on world w around each call (busy: mode 3; me: the world rank). */
struct busy {
    shmc_comm *w;
    int me, on;
    int64_t *buf;
    shmc_request *r[FILL];
};

static void busy_begin(struct busy *z)
{
    for (int i = 0; z->on && z->me == 0 && i < FILL; i++) {
        for (size_t j = 0; j < FILL_LEN; j++)
            z->buf[(size_t)i * FILL_LEN + j] = i * 7 + (int64_t)j;
        T_OK(shmc_isend(z->buf + (size_t)i * FILL_LEN, FILL_LEN, SHMC_INT64, 1, 9, z->w, &z->r[i]));
    }
}

static void busy_end(struct busy *z)
{
    if (z->on && z->me == 0)
        T_OK(shmc_waitall(FILL, z->r, NULL));
    for (int i = 0; z->on && z->me == 1 && i < FILL; i++) {
        memset(z->buf, 0, FILL_LEN * 8);
        T_OK(shmc_recv(z->buf, FILL_LEN, SHMC_INT64, 0, 9, z->w, NULL));
        for (size_t j = 0; j < FILL_LEN; j++)
            T_ASSERT(z->buf[j] == i * 7 + (int64_t)j, "the program's message %d, element %zu", i,
                     j);
    }
}

static void exchange_calls(shmc_comm *c, int me, size_t k, int64_t *in, int64_t *a, int64_t *b,
                           shmc_op aff, struct busy *z)
{
    size_t all = 2 * k;
    double fin[2 * SWAP_MAX + 2], fa[2 * SWAP_MAX + 2], fb[2 * SWAP_MAX + 2];
    for (size_t i = 0; i < all; i++)
        fin[i] = (double)val(me, i);
#define PAIR(inplace, len, what, nbcall, bcall)                                                    \
    do {                                                                                           \
        fill(in, all, me);                                                                         \
        memcpy(a, in, all * 8);                                                                    \
        memcpy(b, in, all * 8);                                                                    \
        if (!(inplace)) {                                                                          \
            memset(a, 0, all * 8);                                                                 \
            memset(b, 0, all * 8);                                                                 \
        }                                                                                          \
        busy_begin(z);                                                                             \
        NB(nbcall);                                                                                \
        busy_end(z);                                                                               \
        T_OK(bcall);                                                                               \
        same(a, b, len, what, me);                                                                 \
    } while (0)
    busy_begin(z);
    NB(shmc_ibarrier(c, &r_));
    busy_end(z);
    PAIR(0, all, "iallgather", shmc_iallgather(in, a, k, SHMC_INT64, c, &r_),
         shmc_allgather(in, b, k, SHMC_INT64, c));
    PAIR(1, all, "iallgather in place", shmc_iallgather(SHMC_IN_PLACE, a, k, SHMC_INT64, c, &r_),
         shmc_allgather(SHMC_IN_PLACE, b, k, SHMC_INT64, c));
    PAIR(0, all, "ialltoall", shmc_ialltoall(in, a, k, SHMC_INT64, c, &r_),
         shmc_alltoall(in, b, k, SHMC_INT64, c));
    PAIR(0, k, "iallreduce", shmc_iallreduce(in, a, k, SHMC_INT64, SHMC_SUM, c, &r_),
         shmc_allreduce(in, b, k, SHMC_INT64, SHMC_SUM, c));
    PAIR(1, k, "iallreduce in place",
         shmc_iallreduce(SHMC_IN_PLACE, a, k, SHMC_INT64, SHMC_SUM, c, &r_),
         shmc_allreduce(SHMC_IN_PLACE, b, k, SHMC_INT64, SHMC_SUM, c));
    PAIR(0, k - k % 2, "iallreduce affine",
         shmc_iallreduce(in, a, k / 2, SHMC_DTYPE_BYTES(16), aff, c, &r_),
         shmc_allreduce(in, b, k / 2, SHMC_DTYPE_BYTES(16), aff, c));
    PAIR(1, k - k % 2, "iallreduce affine in place",
         shmc_iallreduce(SHMC_IN_PLACE, a, k / 2, SHMC_DTYPE_BYTES(16), aff, c, &r_),
         shmc_allreduce(SHMC_IN_PLACE, b, k / 2, SHMC_DTYPE_BYTES(16), aff, c));
    busy_begin(z);
    NB(shmc_iallreduce(fin, fa, k, SHMC_FLOAT64, SHMC_AVG, c, &r_));
    busy_end(z);
    T_OK(shmc_allreduce(fin, fb, k, SHMC_FLOAT64, SHMC_AVG, c));
    T_ASSERT(!memcmp(fa, fb, k * sizeof *fa), "iallreduce AVG, rank %d", me);
    size_t half = (k + 1) / 2; /* (1 KiB in all at SWAP_MAX, one element more past it) */
    PAIR(0, half, "ireduce_scatter",
         shmc_ireduce_scatter(in, a, half, SHMC_INT64, SHMC_SUM, c, &r_),
         shmc_reduce_scatter(in, b, half, SHMC_INT64, SHMC_SUM, c));
    PAIR(1, half, "ireduce_scatter in place",
         shmc_ireduce_scatter(SHMC_IN_PLACE, a, half, SHMC_INT64, SHMC_SUM, c, &r_),
         shmc_reduce_scatter(SHMC_IN_PLACE, b, half, SHMC_INT64, SHMC_SUM, c));
    /* v-forms: rank 1's block empty, rank 0's k elements */
    size_t cnt[2] = {k, 0}, dsp[2] = {0, k};
    PAIR(0, k, "iallgatherv", shmc_iallgatherv(in, cnt[me], a, cnt, dsp, SHMC_INT64, c, &r_),
         shmc_allgatherv(in, cnt[me], b, cnt, dsp, SHMC_INT64, c));
    PAIR(0, cnt[me], "ireduce_scatterv",
         shmc_ireduce_scatterv(in, a, cnt, SHMC_INT64, SHMC_SUM, c, &r_),
         shmc_reduce_scatterv(in, b, cnt, SHMC_INT64, SHMC_SUM, c));
    PAIR(1, cnt[me], "ireduce_scatterv in place",
         shmc_ireduce_scatterv(SHMC_IN_PLACE, a, cnt, SHMC_INT64, SHMC_SUM, c, &r_),
         shmc_reduce_scatterv(SHMC_IN_PLACE, b, cnt, SHMC_INT64, SHMC_SUM, c));
    /* rank s sends k - s - d elements to rank d */
    size_t sc[2] = {k - (size_t)me, k - (size_t)me - 1}, sd[2] = {0, k};
    size_t rc[2] = {k - (size_t)me, k - (size_t)me - 1}, rd[2] = {k, 0};
    PAIR(0, all, "ialltoallv", shmc_ialltoallv(in, sc, sd, a, rc, rd, SHMC_INT64, c, &r_),
         shmc_alltoallv(in, sc, sd, b, rc, rd, SHMC_INT64, c));
#undef PAIR
}

static void exchanges(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, 1 - me, &c));
    int cme = shmc_comm_rank(c);
    shmc_op aff;
    T_OK(shmc_op_create(affine, NULL, 0, &aff));
    int64_t *in = shmct_xmalloc(4 * SWAP_MAX * 8), *a = shmct_xmalloc(4 * SWAP_MAX * 8),
            *b = shmct_xmalloc(4 * SWAP_MAX * 8);
    struct busy z = {w, me, 0, shmct_xmalloc((size_t)FILL * FILL_LEN * 8), {NULL}};
    static const size_t ks[] = {3, SWAP_MAX, SWAP_MAX + 1};
    for (int mode = 0; mode < 4; mode++) {
        z.on = mode == 3;
        for (size_t s = 0; s < sizeof ks / sizeof *ks; s++) {
            if (mode == 1 + me)
                usleep(30000);
            exchange_calls(c, cme, ks[s], in, a, b, aff, &z);
        }
    }
    free(in);
    free(a);
    free(b);
    free(z.buf);
    T_OK(shmc_op_free(&aff));
    T_OK(shmc_comm_free(&c));
}

START_TEST(test_nbc_exchanges)
{
    ck_assert_int_eq(shmct_run(2, exchanges, NULL), 0);
}
END_TEST

/* Members of a 2-rank exchange whose blocks differ across SHMC_SWAP_NOW_MAX (one done in
 * its start, the other's by a schedule) or within it: both end with SHMC_ERR_MISMATCH,
 * with either late, the communicator's collectives fail after, the world goes on. */
static void exchange_mismatch(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    for (int k = 0; k < 6; k++) {
        int late = k % 3, across = k / 3 == 0;
        shmc_comm *c;
        T_OK(shmc_comm_split(w, 0, me, &c));
        /* float32 elements a block: 100 B against 2000 B, or 100 B against 104 B */
        size_t cnt = me == 0 ? 25 : across ? 500 : 26;
        float s[1000] = {0}, r[2000];
        if (me + 1 == late)
            usleep(50000);
        shmc_request *q;
        int rc = shmc_iallgather(s, r, cnt, SHMC_FLOAT32, c, &q);
        if (rc == SHMC_OK)
            rc = shmc_wait(&q, NULL);
        T_ASSERT(rc == SHMC_ERR_MISMATCH, "case %d, rank %d: %s", k, me, shmc_strerror(rc));
        after_mismatch(w, c, k, me);
    }
}

START_TEST(test_nbc_exchange_mismatch)
{
    ck_assert_int_eq(shmct_run(2, exchange_mismatch, NULL), 0);
}
END_TEST

/* Where the job has more ranks than CPUs, a rank whose part is one send sends a block of
 * more than 4 KiB synchronously, and a reduce of such blocks beyond 2 ranks goes by every
 * member sending the root its input (coll/nbc.c, reduce_direct); otherwise eagerly and by
 * the tree. Both ways (SHMC_CPUS=1: shared; 1024: not), at 3, 4 and 8 ranks, every root,
 * in place at the root and not, SUM, AVG and the non-commutative affine op, of 4 KiB and
 * one element more and of 40 KiB, a rank late in turn and a burst of calls in flight with
 * the root late: each equal to the blocking call, and a gather of such blocks and a
 * reduce-scatter(v) of such parts too. */
static void shared_sends(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, n - 1 - me, &c));
    int cme = shmc_comm_rank(c);
    shmc_op aff;
    T_OK(shmc_op_create(affine, NULL, 0, &aff));
    static const size_t counts[] = {512, 513, 5000}; /* int64: 4 KiB, one more, 40 KiB */
    size_t most = 5000, blocks = n > 4 ? (size_t)n : 4; /* (a gather's, a burst's) */
    int64_t *in = shmct_xmalloc(most * 8), *a = shmct_xmalloc(blocks * most * 8),
            *b = shmct_xmalloc(blocks * most * 8);
    double *fin = shmct_xmalloc(most * 8), *fa = shmct_xmalloc(most * 8),
           *fb = shmct_xmalloc(most * 8);
    for (size_t k = 0; k < sizeof counts / sizeof *counts; k++) {
        size_t cnt = counts[k];
        fill(in, cnt, cme);
        for (size_t i = 0; i < cnt; i++)
            fin[i] = (double)val(cme, i); /* exact sums: the same bits in any grouping */
        for (int root = 0; root < n; root++) {
            /* A burst in flight, the root late: the members' later blocks find their
             * earlier ones unread (synchronous where ranks share CPUs) */
            enum { BURST = 4 }; /* (blocks' worth of a and b) */
            shmc_request *br[BURST];
            for (int j = 0; j < BURST; j++) {
                if (cme == root && j == 0)
                    usleep(20000);
                for (size_t i = 0; i < cnt; i++)
                    a[(size_t)j * cnt + i] = in[i] * (j + 1) + j;
                T_OK(shmc_ireduce(a + (size_t)j * cnt, b + (size_t)j * cnt, cnt, SHMC_INT64,
                                  SHMC_SUM, root, c, &br[j]));
            }
            T_OK(shmc_waitall(BURST, br, NULL));
            for (int j = 0; j < BURST; j++) {
                int64_t *want = shmct_xmalloc(cnt * 8);
                T_OK(shmc_reduce(a + (size_t)j * cnt, want, cnt, SHMC_INT64, SHMC_SUM, root, c));
                if (cme == root)
                    same(b + (size_t)j * cnt, want, cnt, "ireduce in a burst", cme);
                free(want);
            }
            if (cme == (root + (int)k) % n)
                usleep(20000); /* (one rank late: the root, or a member) */
            for (int o = 0; o < 3; o++) {
                int inplace = o == 1 && cme == root;
                shmc_dtype dt = o == 2 ? SHMC_DTYPE_BYTES(16) : SHMC_INT64;
                size_t m = o == 2 ? cnt / 2 : cnt, len = o == 2 ? 2 * m : m;
                shmc_op op = o == 2 ? aff : SHMC_SUM;
                memcpy(a, in, cnt * 8);
                memcpy(b, in, cnt * 8);
                NB(shmc_ireduce(inplace ? SHMC_IN_PLACE : in, a, m, dt, op, root, c, &r_));
                T_OK(shmc_reduce(inplace ? SHMC_IN_PLACE : in, b, m, dt, op, root, c));
                if (cme == root)
                    same(a, b, len, "ireduce", cme);
            }
            NB(shmc_ireduce(fin, fa, cnt, SHMC_FLOAT64, SHMC_AVG, root, c, &r_));
            T_OK(shmc_reduce(fin, fb, cnt, SHMC_FLOAT64, SHMC_AVG, root, c));
            T_ASSERT(cme != root || !memcmp(fa, fb, cnt * 8), "ireduce AVG, root %d", root);
            memset(a, 0, (size_t)n * cnt * 8);
            memset(b, 0, (size_t)n * cnt * 8);
            NB(shmc_igather(in, a, cnt, SHMC_INT64, root, c, &r_));
            T_OK(shmc_gather(in, b, cnt, SHMC_INT64, root, c));
            if (cme == root)
                same(a, b, (size_t)n * cnt, "igather", cme);
        }
        /* the reduce-scatter's reduction to rank 0 (n blocks of cnt), in place and not, and
         * its v-form with uneven parts, one empty */
        int64_t *v = shmct_xmalloc((size_t)n * cnt * 8), *want = shmct_xmalloc((size_t)n * cnt * 8);
        for (int inplace = 0; inplace < 2; inplace++) {
            fill(v, (size_t)n * cnt, cme);
            memcpy(a, v, (size_t)n * cnt * 8);
            memcpy(want, v, (size_t)n * cnt * 8);
            NB(shmc_ireduce_scatter(inplace ? SHMC_IN_PLACE : v, a, cnt, SHMC_INT64, SHMC_SUM, c,
                                    &r_));
            T_OK(shmc_reduce_scatter(inplace ? SHMC_IN_PLACE : v, want, cnt, SHMC_INT64, SHMC_SUM,
                                     c));
            same(a, want, cnt, "ireduce_scatter", cme);
        }
        size_t parts[8];
        for (int q = 0; q < n; q++)
            parts[q] = q == 1 ? 0 : cnt + (size_t)q;
        fill(v, (size_t)n * cnt, cme);
        NB(shmc_ireduce_scatterv(v, a, parts, SHMC_INT64, SHMC_SUM, c, &r_));
        T_OK(shmc_reduce_scatterv(v, want, parts, SHMC_INT64, SHMC_SUM, c));
        same(a, want, parts[cme], "ireduce_scatterv", cme);
        free(v);
        free(want);
    }
    free(in);
    free(a);
    free(b);
    free(fin);
    free(fa);
    free(fb);
    T_OK(shmc_op_free(&aff));
    T_OK(shmc_comm_free(&c));
}

/* The world's rooted calls through the lane's slots, which hold two publications at once
 * (lib/coll/slot.c): K calls started back to back (broadcasts, reduces in place and not,
 * gathers; roots in turn; each kind at every size: publications of a half of the slot, of
 * more that take both, and past the slot, a schedule with its gate, whose words take a
 * half), waited for last first, with no rank late, a member late, then rank 0 late, so
 * that owners run ahead of their readers by more than two calls and must wait for them
 * (four times each); each call's data its own (its number in every element), checked where it
 * lands. A publication written over before its readers were done, or read from the wrong half,
 * shows as another call's data or a false mismatch. Then a mismatch in a call of each stamp
 * parity (the second set of call words, shm/arena.h). */
#define HALF_EL ((size_t)4096) /* int64 in half a slot (32 KiB) */
static int64_t cval(int r, size_t i, int k)
{
    return val(r, i) + (int64_t)k * 7919;
}

static void slot_halves_on(shmc_comm *w, int which)
{
    enum { K = 18 };
    int me = shmc_comm_rank(w), n = shmc_comm_size(w);
    /* elements of a call's vector (a broadcast, a reduce) or block (a gather): past
     * SHMC_NBS_MIN (8 KiB) in all; call k of kind k % 3 takes size k / 3 */
    static const size_t sizes[] = {1100, HALF_EL, HALF_EL + 1, TWO, 2000, OVER};
    int64_t *buf[K], *in[K];
    for (int k = 0; k < K; k++) {
        buf[k] = shmct_xmalloc(OVER * 8 * (size_t)n);
        in[k] = shmct_xmalloc(OVER * 8);
    }
    for (int pass = 0; pass < 12; pass++) {
        int late = pass % 3 - 1, late_rank = late < 0 ? -1 : late == 0 ? n - 1 : 0;
        shmc_request *r[K];
        for (int k = 0; k < K; k++) {
            /* (in place: a reduce of a half, of both halves, and past the slot) */
            int kind = k % 3, root = (k + k / 3) % n, inplace = kind == 1 && (k / 3) % 2;
            size_t c = sizes[k / 3];
            for (size_t i = 0; i < c; i++)
                in[k][i] = cval(me, i, k + 100 * pass);
            memset(buf[k], 0, OVER * 8 * (size_t)n);
            if (kind == 0) {
                if (me == root)
                    memcpy(buf[k], in[k], c * 8);
                T_OK(shmc_ibroadcast(buf[k], c, SHMC_INT64, root, w, &r[k]));
            } else if (kind == 1) {
                if (inplace && me == root)
                    memcpy(buf[k], in[k], c * 8);
                T_OK(shmc_ireduce(inplace && me == root ? SHMC_IN_PLACE : in[k], buf[k], c,
                                  SHMC_INT64, SHMC_SUM, root, w, &r[k]));
            } else {
                T_OK(shmc_igather(in[k], buf[k], c, SHMC_INT64, root, w, &r[k]));
            }
        }
        if (me == late_rank)
            usleep(30000);
        for (int k = K - 1; k >= 0; k--)
            T_OK(shmc_wait(&r[k], NULL));
        for (int k = 0; k < K; k++) {
            int kind = k % 3, root = (k + k / 3) % n, tag = k + 100 * pass;
            size_t c = sizes[k / 3];
            if (kind == 0) {
                for (size_t i = 0; i < c; i++)
                    T_ASSERT(buf[k][i] == cval(root, i, tag), "late %d, broadcast %d: element %zu",
                             late, k, i);
            } else if (me != root) {
                continue;
            } else if (kind == 1) {
                for (size_t i = 0; i < c; i++) {
                    int64_t want = 0;
                    for (int q = 0; q < n; q++)
                        want += cval(q, i, tag);
                    T_ASSERT(buf[k][i] == want, "late %d, reduce %d: element %zu", late, k, i);
                }
            } else {
                for (int q = 0; q < n; q++)
                    for (size_t i = 0; i < c; i++)
                        T_ASSERT(buf[k][(size_t)q * c + i] == cval(q, i, tag),
                                 "late %d, gather %d: block %d, element %zu", late, k, q, i);
            }
        }
    }
    /* Two broadcasts from rank 0 (stamps of both parities), the last rank's count of the
     * first (which 0) or of the second (which 1) a word more, within the slot: that rank
     * finds the root's words differ (SHMC_ERR_MISMATCH) and quits the communicator's
     * collectives, which then fail on every rank (after the barrier: a rank's quitting
     * would fail a call another has yet to end, as it should). */
    T_OK(shmc_barrier(w));
    shmc_request *a, *b;
    size_t c0 = 1100, c1 = 1100;
    if (me == n - 1)
        *(which ? &c1 : &c0) += 1;
    int ra = shmc_ibroadcast(buf[0], c0, SHMC_INT64, 0, w, &a);
    int rb = shmc_ibroadcast(buf[1], c1, SHMC_INT64, 0, w, &b);
    if (ra == SHMC_OK)
        ra = shmc_wait(&a, NULL);
    if (rb == SHMC_OK)
        rb = shmc_wait(&b, NULL);
    if (me == n - 1)
        T_ASSERT((which ? rb : ra) == SHMC_ERR_MISMATCH, "which %d: %d and %d, not a mismatch",
                 which, ra, rb);
    T_ASSERT(shmc_barrier(w) != SHMC_OK, "rank %d: the communicator still runs collectives", me);
    for (int k = 0; k < K; k++) {
        free(buf[k]);
        free(in[k]);
    }
}

static void slot_halves(shmc_comm *w, int me, int n, void *arg)
{
    (void)me, (void)n;
    slot_halves_on(w, *(const int *)arg);
}

START_TEST(test_nbc_slot_halves)
{
    static const int sizes[] = {3, 4, 8};
    int which = _i % 2;
    ck_assert_int_eq(shmct_run(sizes[_i / 2], slot_halves, &which), 0);
}
END_TEST

/* The same on a communicator split from the world, its ranks in the other order, through
 * its slot entry (lib/coll/nbcomm.c, coll_entry_calls); its mismatch leaves the world's
 * collectives running. */
static void slot_halves_split(shmc_comm *w, int me, int n, void *arg)
{
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, n - 1 - me, &c));
    uint64_t before = shmct_stat("coll_entry_calls");
    slot_halves_on(c, *(const int *)arg);
    T_ASSERT(shmct_stat("coll_entry_calls") > before, "rank %d: no call took the entry", me);
    T_OK(shmc_barrier(w));
    T_OK(shmc_comm_free(&c));
}

START_TEST(test_nbc_slot_halves_split)
{
    static const int sizes[] = {3, 4, 8};
    int which = _i % 2;
    ck_assert_int_eq(shmct_run(sizes[_i / 2], slot_halves_split, &which), 0);
}
END_TEST

/* The all-reduce's schedule follows the blocking call's rule (lib/coll/nbc.h): under rules
 * that take the ring at every size, a call far below SHMC_NBC_RING_MIN (1000 float64, whose
 * sums' last bits depend on the order of combination) gives the blocking ring's bits, at 3
 * ranks (else the tree) and 4 (else recursive doubling), on the world and a split
 * communicator. */
static const char ring_rules[] = "barrier any any any any any host shm\n"
                                 "broadcast any any any any any host direct\n"
                                 "broadcast any any any any any device tree\n"
                                 "reduce any any any any any host tree\n"
                                 "reduce any any any any any device tree\n"
                                 "allreduce any any any any any any ring\n"
                                 "gather any any any any any host direct\n"
                                 "gather any any any any any device tree\n"
                                 "allgather any any any any any any ring\n"
                                 "scatter any any any any any host direct\n"
                                 "scatter any any any any any device tree\n"
                                 "alltoall any any any any any any ring\n"
                                 "reduce_scatter any any any any any any ring\n";

static void allreduce_by_rule(shmc_comm *w, int me, int n, void *arg)
{
    (void)n, (void)arg;
    enum { M = 1000 };
    double *in = shmct_xmalloc(M * 8), *a = shmct_xmalloc(M * 8), *b = shmct_xmalloc(M * 8);
    uint64_t z = 88172645463325252ull + (uint64_t)me * 7919;
    for (size_t i = 0; i < M; i++) {
        z ^= z << 13, z ^= z >> 7, z ^= z << 17;
        in[i] = (double)(int64_t)(z >> 11) * 1e-6 * ((z & 1) ? 1e-9 : 1);
    }
    shmc_comm *c;
    T_OK(shmc_comm_split(w, 0, me, &c));
    shmc_comm *comms[] = {w, c};
    for (int k = 0; k < 2; k++) {
        shmc_request *r;
        T_OK(shmc_iallreduce(in, a, M, SHMC_FLOAT64, SHMC_SUM, comms[k], &r));
        T_OK(shmc_wait(&r, NULL));
        T_OK(shmc_allreduce(in, b, M, SHMC_FLOAT64, SHMC_SUM, comms[k]));
        T_ASSERT(!memcmp(a, b, M * 8), "rank %d, %s: the blocking ring's sums differ", me,
                 k ? "split" : "world");
    }
    T_OK(shmc_comm_free(&c));
    free(in);
    free(a);
    free(b);
}

START_TEST(test_nbc_allreduce_by_rule)
{
    ck_assert_int_eq(with_rules(ring_rules, 3 + _i, allreduce_by_rule, NULL), 0);
}
END_TEST

START_TEST(test_nbc_shared_sends)
{
    static const int sizes[] = {3, 4, 8};
    setenv("SHMC_CPUS", _i % 2 ? "1024" : "1", 1);
    int rc = shmct_run(sizes[_i / 2], shared_sends, NULL);
    unsetenv("SHMC_CPUS");
    ck_assert_int_eq(rc, 0);
}
END_TEST

static Suite *nbc_suite(void)
{
    Suite *s = suite_create("nbc");
    TCase *t = tcase_create("nbc");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_nbc_against_blocking, 0, 6);
    tcase_add_test(t, test_nbc_several_in_flight);
    tcase_add_test(t, test_nbc_run_ahead);
    tcase_add_test(t, test_nbc_progress_inside_blocking_calls);
    tcase_add_test(t, test_nbc_threads_in_any_order);
    tcase_add_test(t, test_nbc_dead_member);
    tcase_add_test(t, test_nbc_dead_member_queued);
    tcase_add_test(t, test_nbc_mismatch_and_bad_arguments);
    tcase_add_test(t, test_nbc_comm_idup);
    tcase_add_test(t, test_nbc_own_schedule);
    tcase_add_test(t, test_nbc_mismatch_at_start);
    tcase_add_test(t, test_nbc_mismatch_taken_at_start);
    tcase_add_loop_test(t, test_nbc_words_in_messages, 0, 10);
    tcase_add_loop_test(t, test_nbc_roots_all_mine, 0, 16);
    tcase_add_loop_test(t, test_nbc_crossed_ways, 0, 16);
    tcase_add_loop_test(t, test_nbc_crossed_matching, 0, 2);
    tcase_add_test(t, test_nbc_look_after_end);
    tcase_add_loop_test(t, test_nbc_world_shared, 0, 4);
    tcase_add_loop_test(t, test_nbc_world_stream, 0, 3);
    tcase_add_loop_test(t, test_nbc_world_direct, 0, 4);
    tcase_add_test(t, test_nbc_dead_in_direct);
    tcase_add_loop_test(t, test_nbc_world_rounds, 0, 4);
    tcase_add_loop_test(t, test_nbc_world_rounds_shm, 0, 2);
    tcase_add_loop_test(t, test_nbc_rounds_against_schedule, 0, 10);
    tcase_add_loop_test(t, test_nbc_lane_last_forced, 0, 2);
    tcase_add_loop_test(t, test_nbc_lane_last_sizes, 0, 2);
    tcase_add_test(t, test_nbc_late_after_quit);
    tcase_add_loop_test(t, test_nbc_split_then_rounds, 0, 2);
    tcase_add_loop_test(t, test_nbc_mixed_ways, 0, 6);
    tcase_add_test(t, test_nbc_rooted_ways);
    tcase_add_loop_test(t, test_nbc_gates, 0, 4);
    tcase_add_test(t, test_nbc_gates_keep_pace);
    tcase_add_loop_test(t, test_nbc_queued_gates_mismatch, 0, 4);
    tcase_add_test(t, test_nbc_one_message);
    tcase_add_test(t, test_nbc_complete_at_start);
    tcase_add_test(t, test_nbc_persistent_order);
    tcase_add_loop_test(t, test_nbc_many_queued, 0, 2);
    tcase_add_loop_test(t, test_nbc_against_blocking_split, 0, 4);
    tcase_add_loop_test(t, test_nbc_ring_split, 0, 6);
    tcase_add_loop_test(t, test_nbc_reduce_scatterv_empty, 0, 4);
    tcase_add_loop_test(t, test_nbc_again, 0, 3);
    tcase_add_test(t, test_nbc_exchanges);
    tcase_add_test(t, test_nbc_exchange_mismatch);
    tcase_add_loop_test(t, test_nbc_shared_sends, 0, 6);
    tcase_add_loop_test(t, test_nbc_slot_halves, 0, 6);
    tcase_add_loop_test(t, test_nbc_slot_halves_split, 0, 6);
    tcase_add_loop_test(t, test_nbc_allreduce_by_rule, 0, 2);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(nbc_suite());
}
