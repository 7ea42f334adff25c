/*
 * What happens when a peer leaves: exits without finalizing, finalizes, is killed, or
 * aborts the job. Waits that depend on it fail with the documented code instead of
 * hanging, and whatever it sent before leaving is still delivered. Also what shmc_finalize
 * waits for.
 */
#include <check.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define BIG (4u * 1024u * 1024u)

static int run_expect_fail(int n, shmct_fn fn)
{
    struct shmct_opts o = {.expect_fail = 1};
    return shmct_run_opts(n, fn, NULL, &o);
}

/* Rank 1 sends three messages and exits without shmc_finalize; rank 0 gets the three,
 * then SHMC_ERR_PEER_DEAD for a fourth, and for sends to it. */
static void exit_without_finalize(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    if (me == 1) {
        for (int k = 0; k < 3; k++)
            T_OK(shmc_send(&k, 1, SHMC_INT32, 0, 0, w));
        _exit(0);
    }
    if (me == 0) {
        int v;
        for (int k = 0; k < 3; k++) {
            T_OK(shmc_recv(&v, 1, SHMC_INT32, 1, 0, w, NULL));
            T_ASSERT(v == k, "message %d carried %d", k, v);
        }
        T_CALL(SHMC_ERR_PEER_DEAD, shmc_recv(&v, 1, SHMC_INT32, 1, 0, w, NULL));
        T_CALL(SHMC_ERR_PEER_DEAD, shmc_send(&v, 1, SHMC_INT32, 1, 0, w));
        uint8_t *big = malloc(BIG);
        T_CALL(SHMC_ERR_PEER_DEAD, shmc_send(big, BIG, SHMC_UINT8, 1, 0, w));
        free(big);
        /* Everyone else is gone too (n == 2): any-source cannot be satisfied. */
        T_CALL(SHMC_ERR_PEER_DEAD,
               shmc_recv(&v, 1, SHMC_INT32, SHMC_ANY_SOURCE, SHMC_ANY_TAG, w, NULL));
    }
}

START_TEST(test_failure_exit_without_finalize)
{
    ck_assert_int_eq(shmct_run(2, exit_without_finalize, NULL), 0);
}
END_TEST

/* A rendezvous send in flight when its receiver leaves. */
static void receiver_leaves(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    if (me == 1) {
        int v;
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 0, 0, w, NULL)); /* then leave */
        _exit(0);
    }
    uint8_t *big = malloc(BIG);
    int v = 1;
    T_OK(shmc_send(&v, 1, SHMC_INT32, 1, 0, w));
    T_CALL(SHMC_ERR_PEER_DEAD, shmc_send(big, BIG, SHMC_UINT8, 1, 5, w));
    free(big);
}

START_TEST(test_failure_receiver_leaves)
{
    ck_assert_int_eq(shmct_run(2, receiver_leaves, NULL), 0);
}
END_TEST

/* Rank 3 of 4 is killed while the others are inside a collective on the world, with the
 * job kept going: every collective returns instead of hanging. Those in which every rank
 * needs every other (barrier, all-reduce, all-gather, reduce-scatter, all-to-all, a
 * broadcast from the dead rank) fail with SHMC_ERR_PEER_DEAD on every survivor; a root
 * that needs rank 3's data (reduce, gather) fails too; elsewhere a rank whose own part
 * did not need rank 3 may succeed. Once a rank has had that error, every later
 * collective on the world fails at once.
 * Each of the ten calls meets the death in its own run, with 16-byte and 1 MiB buffers,
 * so that the one-step and the message-based algorithms all do. */
enum { NCOLL = 10 };

static int one_collective(shmc_comm *w, int k, int32_t *a, int32_t *b, size_t c)
{
    int last = shmc_comm_size(w) - 1;
    switch (k) {
    case 0:
        return shmc_barrier(w);
    case 1:
        return shmc_allreduce(a, b, c, SHMC_INT32, SHMC_SUM, w);
    case 2:
        return shmc_allgather(a, b, c, SHMC_INT32, w);
    case 3:
        return shmc_reduce_scatter(a, b, c, SHMC_INT32, SHMC_SUM, w);
    case 4:
        return shmc_alltoall(a, b, c, SHMC_INT32, w);
    case 5:
        return shmc_broadcast(a, c, SHMC_INT32, last, w);
    case 6:
        return shmc_reduce(a, b, c, SHMC_INT32, SHMC_SUM, 0, w);
    case 7:
        return shmc_gather(a, b, c, SHMC_INT32, 0, w);
    case 8:
        return shmc_broadcast(a, c, SHMC_INT32, 0, w);
    default:
        return shmc_scatter(a, b, c, SHMC_INT32, 0, w);
    }
}

/* Must collective k fail on rank me? Otherwise it may also succeed. */
static int must_fail(int k, int me)
{
    return k <= 5 || (k <= 7 && me == 0);
}

static void collectives_dead_member(shmc_comm *w, int me, int n, void *arg)
{
    int first = *(const int *)arg % NCOLL;
    size_t c = *(const int *)arg < NCOLL ? 4 : 256 * 1024;
    int32_t *a = calloc(c * (size_t)n, sizeof *a), *b = calloc(c * (size_t)n, sizeof *b);
    T_ASSERT(a && b, "out of memory");
    T_OK(shmc_barrier(w));
    if (me == n - 1) {
        usleep(50000); /* the others are inside the first collective when it dies */
        raise(SIGKILL);
    }
    int seen = 0; /* this rank has had SHMC_ERR_PEER_DEAD */
    for (int i = 0; i < NCOLL; i++) {
        int k = (first + i) % NCOLL, rc = one_collective(w, k, a, b, c);
        if (seen || must_fail(k, me))
            T_ASSERT(rc == SHMC_ERR_PEER_DEAD, "collective %d (call %d%s) returned %s", k, i,
                     seen ? ", after an earlier one failed" : "", shmc_strerror(rc));
        else
            T_ASSERT(rc == SHMC_OK || rc == SHMC_ERR_PEER_DEAD, "collective %d returned %s", k,
                     shmc_strerror(rc));
        seen |= rc == SHMC_ERR_PEER_DEAD;
    }
    free(a);
    free(b);
}

START_TEST(test_failure_collectives_dead_member)
{
    struct shmct_opts o = {.expect_fail = 1, .keep_going = 1};
    int k = _i;
    ck_assert_int_eq(shmct_run_opts(4, collectives_dead_member, &k, &o), 1);
    ck_assert(WIFSIGNALED(shmct_status(3)) && WTERMSIG(shmct_status(3)) == SIGKILL);
}
END_TEST

/* The same with every collective by `shm`: on the world a small call goes by one of the
 * world's rounds, whose readers take each member's part as it enters (a gather's root
 * waits for rank 1, then 2, then the dead one), a large one by the slots after a round
 * that keeps the members in step. */
START_TEST(test_failure_collectives_dead_member_shm)
{
    static const char *const env[] = {
        "SHMC_ALGO_ALLREDUCE=shm",      "SHMC_ALGO_ALLGATHER=shm", "SHMC_ALGO_REDUCE_SCATTER=shm",
        "SHMC_ALGO_ALLTOALL=shm",       "SHMC_ALGO_BROADCAST=shm", "SHMC_ALGO_REDUCE=shm",
        "SHMC_ALGO_GATHER=shm",         "SHMC_ALGO_SCATTER=shm",   NULL};
    struct shmct_opts o = {.expect_fail = 1, .keep_going = 1, .env = env};
    int k = _i;
    ck_assert_int_eq(shmct_run_opts(4, collectives_dead_member, &k, &o), 1);
    ck_assert(WIFSIGNALED(shmct_status(3)) && WTERMSIG(shmct_status(3)) == SIGKILL);
}
END_TEST

/* The sender is killed half-way through a large single-copy message: the receiver's
 * copy fails with SHMC_ERR_PEER_DEAD, not a crash or another error, and the survivors
 * then exchange a message as before. */
static void sender_killed_midway(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    size_t bytes = 256u << 20;
    uint8_t *big = malloc(bytes);
    T_ASSERT(big, "out of memory");
    memset(big, 1, bytes);
    if (me == 1) {
        T_OK(shmc_barrier(w));
        shmc_request *r;
        T_OK(shmc_isend(big, bytes, SHMC_UINT8, 0, 9, w, &r));
        usleep(3000); /* the receiver is copying by now: 256 MiB take tens of ms */
        raise(SIGKILL);
    }
    shmc_request *r = NULL;
    if (me == 0)
        T_OK(shmc_irecv(big, bytes, SHMC_UINT8, 1, 9, w, &r));
    T_OK(shmc_barrier(w));
    if (me == 0)
        T_CALL(SHMC_ERR_PEER_DEAD, shmc_wait(&r, NULL));
    int v = me, got = -1;
    int other = me == 0 ? 2 : 0;
    T_OK(shmc_sendrecv(&v, 1, other, 3, &got, 1, other, 3, SHMC_INT32, w, NULL));
    T_ASSERT(got == other, "got %d from rank %d", got, other);
    free(big);
}

START_TEST(test_failure_sender_killed_midway)
{
    struct shmct_opts o = {.expect_fail = 1, .keep_going = 1};
    ck_assert_int_eq(shmct_run_opts(3, sender_killed_midway, NULL, &o), 1);
}
END_TEST

/* A peer that finalized is gone for every later operation. */
static void peer_finalized(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int v = 7;
    if (me == 1) {
        T_OK(shmc_send(&v, 1, SHMC_INT32, 0, 0, w));
        T_OK(shmc_finalize());
        _exit(0);
    }
    T_OK(shmc_recv(&v, 1, SHMC_INT32, 1, 0, w, NULL));
    shmc_request *r;
    T_OK(shmc_irecv(&v, 1, SHMC_INT32, 1, 1, w, &r));
    T_CALL(SHMC_ERR_PEER_DEAD, shmc_wait(&r, NULL));
    T_ASSERT(r == NULL, "failed request not freed");
}

START_TEST(test_failure_peer_finalized)
{
    ck_assert_int_eq(shmct_run(2, peer_finalized, NULL), 0);
}
END_TEST

/* A member that leaves the job, after reading a collective slot or without reading it,
 * does not fail the slot's owner later on a communicator without it (coll/slot.c).
 * Rank 0 broadcasts on the world through its slot; rank 2 reads it (arg 0) or not
 * (arg 1), then finalizes; rank 1 reads it only once rank 2 has gone. So rank 0's next
 * broadcast, on {0, 1}, must wait for rank 1 while the other reader is gone: it used to
 * fail with SHMC_ERR_PEER_DEAD there. */
static void slot_reader_leaves(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    int reads = *(const int *)arg == 0;
    static const int pair[] = {0, 1};
    shmc_comm *c = NULL;
    /* (past one of the world's rounds, which takes a call of up to 32 KiB instead of the
     * slots) */
    enum { N = 16384 };
    static int32_t v[N];
    T_OK(shmc_comm_create_group(w, pair, 2, &c));
    if (me == 2) {
        if (reads)
            T_OK(shmc_broadcast(v, N, SHMC_INT32, 0, w));
        T_OK(shmc_finalize());
        _exit(0);
    }
    if (me == 0) {
        for (int i = 0; i < N; i++)
            v[i] = i;
        T_OK(shmc_broadcast(v, N, SHMC_INT32, 0, w)); /* the root only publishes */
        for (int i = 0; i < N; i++)
            v[i] = 1000 + i;
        T_OK(shmc_broadcast(v, N, SHMC_INT32, 0, c));
    } else {
        int x;
        T_CALL(SHMC_ERR_PEER_DEAD, shmc_recv(&x, 1, SHMC_INT32, 2, 9, w, NULL)); /* it left */
        T_OK(shmc_broadcast(v, N, SHMC_INT32, 0, w));
        for (int i = 0; i < N; i++)
            T_ASSERT(v[i] == i, "world broadcast: element %d is %d", i, v[i]);
        T_OK(shmc_broadcast(v, N, SHMC_INT32, 0, c));
        for (int i = 0; i < N; i++)
            T_ASSERT(v[i] == 1000 + i, "broadcast on {0, 1}: element %d is %d", i, v[i]);
    }
    T_OK(shmc_comm_free(&c));
}

START_TEST(test_failure_slot_reader_leaves)
{
    static const char *const env[] = {"SHMC_ALGO_BROADCAST=shm", NULL};
    struct shmct_opts o = {.env = env};
    ck_assert_int_eq(shmct_run_opts(3, slot_reader_leaves, &_i, &o), 0);
}
END_TEST

/* A rank killed by a signal: the supervisor aborts the job, as shmrun does. */
static void killed(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int v;
    if (me == n - 1)
        raise(SIGKILL);
    int rc = shmc_recv(&v, 1, SHMC_INT32, n - 1, 0, w, NULL);
    T_ASSERT(rc == SHMC_ERR_ABORTED || rc == SHMC_ERR_PEER_DEAD, "recv returned %s",
             shmc_strerror(rc));
    /* Once aborted, every call says so. */
    T_CALL(SHMC_ERR_ABORTED, shmc_send(&v, 1, SHMC_INT32, 0, 0, w));
    T_CALL(SHMC_ERR_ABORTED, shmc_barrier(w));
    T_CALL(SHMC_ERR_ABORTED, shmc_finalize());
    _exit(0);
}

START_TEST(test_failure_killed)
{
    ck_assert_int_eq(run_expect_fail(4, killed), 1);
    ck_assert(WIFSIGNALED(shmct_status(3)) && WTERMSIG(shmct_status(3)) == SIGKILL);
    for (int r = 0; r < 3; r++)
        ck_assert(WIFEXITED(shmct_status(r)) && WEXITSTATUS(shmct_status(r)) == 0);
}
END_TEST

/* shmc_abort ends the job: blocked ranks return SHMC_ERR_ABORTED, the caller exits with
 * its code. */
static void aborts(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int v;
    if (me == 1)
        shmc_abort(7);
    T_CALL(SHMC_ERR_ABORTED, shmc_recv(&v, 1, SHMC_INT32, 1, 0, w, NULL));
    _exit(0);
}

START_TEST(test_failure_abort)
{
    ck_assert_int_eq(run_expect_fail(3, aborts), 1);
    ck_assert(WIFEXITED(shmct_status(1)) && WEXITSTATUS(shmct_status(1)) == 7);
}
END_TEST

/* An abort ends nonblocking collectives too, whichever way they wait: on the world a
 * small all-reduce by a round of the lane, a barrier queued behind it, a broadcast through
 * the lane's slots (4 ranks), a large all-reduce through the staging buffers; on a split
 * of the world a barrier by messages. Rank 3 makes none of them and aborts: each request of
 * the others ends with SHMC_ERR_ABORTED, by shmc_wait and by shmc_waitall (a request
 * waiting on shared memory alone used to keep shmc_wait spinning for ever), and so do a
 * call after them and shmc_finalize. */
static void aborts_nonblocking(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    enum { LARGE = 1 << 20 };
    shmc_comm *d;
    T_OK(shmc_comm_split(w, 0, me, &d));
    if (me == 3) { /* once every other rank has started its calls: a token from each */
        int go;
        for (int q = 0; q < 3; q++)
            T_OK(shmc_recv(&go, 1, SHMC_INT32, q, 9, w, NULL));
        shmc_abort(7);
    }
    int64_t a[4] = {1, 2, 3, 4}, b[4], c[64] = {0};
    float *big = calloc(LARGE, sizeof *big);
    T_ASSERT(big, "memory");
    shmc_request *r[5];
    T_OK(shmc_iallreduce(a, b, 4, SHMC_INT64, SHMC_SUM, w, &r[0]));
    T_OK(shmc_ibarrier(w, &r[1]));
    T_OK(shmc_ibroadcast(c, 64, SHMC_INT64, 0, w, &r[2]));
    T_OK(shmc_iallreduce(SHMC_IN_PLACE, big, LARGE, SHMC_FLOAT32, SHMC_SUM, w, &r[3]));
    T_OK(shmc_ibarrier(d, &r[4]));
    int go = 1;
    T_OK(shmc_send(&go, 1, SHMC_INT32, 3, 9, w));
    T_CALL(SHMC_ERR_ABORTED, shmc_wait(&r[0], NULL));
    T_CALL(SHMC_ERR_ABORTED, shmc_waitall(4, r + 1, NULL));
    /* A call after it: refused at its start or in its wait; then finalize. */
    shmc_request *late = NULL;
    int rc = shmc_ibarrier(w, &late);
    T_ASSERT(rc == SHMC_ERR_ABORTED ||
                 (rc == SHMC_OK && shmc_wait(&late, NULL) == SHMC_ERR_ABORTED),
             "rank %d: a barrier after the abort: %s", me, shmc_strerror(rc));
    T_CALL(SHMC_ERR_ABORTED, shmc_finalize());
    free(big);
    _exit(0);
}

START_TEST(test_failure_abort_nonblocking)
{
    ck_assert_int_eq(run_expect_fail(4, aborts_nonblocking), 1);
    ck_assert(WIFEXITED(shmct_status(3)) && WEXITSTATUS(shmct_status(3)) == 7);
}
END_TEST

/* shmc_finalize delivers a rendezvous send the user never waited for. */
static void finalize_delivers(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    uint8_t *big = malloc(BIG);
    if (me == 0) {
        shmc_request *r;
        shmct_fill(big, BIG, 9);
        T_OK(shmc_isend(big, BIG, SHMC_UINT8, 1, 0, w, &r));
        T_OK(shmc_finalize()); /* must not return before rank 1 has the data */
        free(big);
        _exit(0);
    }
    T_OK(shmc_recv(big, BIG, SHMC_UINT8, 0, 0, w, NULL));
    T_ASSERT(shmct_verify(big, BIG, 9) == (size_t)-1, "data");
    free(big);
}

START_TEST(test_failure_finalize_delivers)
{
    ck_assert_int_eq(shmct_run(2, finalize_delivers, NULL), 0);
}
END_TEST

/* Two ranks each start a large send to the other and finalize without receiving: neither
 * can ever be matched, and finalize must not wait for them forever. */
static void finalize_unmatched(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    uint8_t *big = calloc(1, BIG);
    shmc_request *r;
    T_OK(shmc_isend(big, BIG, SHMC_UINT8, 1 - me, 0, w, &r));
    T_OK(shmc_finalize());
    free(big);
    _exit(0);
}

START_TEST(test_failure_finalize_unmatched)
{
    ck_assert_int_eq(shmct_run(2, finalize_unmatched, NULL), 0);
}
END_TEST

/* The receiver takes a single-copy message (the sender is not in the library then), sends
 * its FIN and finalizes before the sender looks again. The sender's next call, a send to a
 * third rank, is the first to learn that rank 1 left; the pending send to rank 1 must
 * still complete, because its FIN is in the mailbox. */
static void fin_then_finalize(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    volatile int *flag = arg;
    uint8_t *big = malloc(BIG);
    int v = 1;
    if (me == 1) {
        T_OK(shmc_recv(big, BIG, SHMC_UINT8, 0, 0, w, NULL));
        T_ASSERT(shmct_verify(big, BIG, 3) == (size_t)-1, "data");
        T_OK(shmc_finalize());
        *flag = 1;
        free(big);
        _exit(0);
    }
    if (me == 2) {
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 0, 0, w, NULL));
        free(big);
        return;
    }
    shmc_request *r;
    shmct_fill(big, BIG, 3);
    T_OK(shmc_isend(big, BIG, SHMC_UINT8, 1, 0, w, &r));
    while (!*flag) /* wait outside the library until rank 1 is gone */
        sched_yield();
    T_OK(shmc_send(&v, 1, SHMC_INT32, 2, 0, w));
    T_OK(shmc_wait(&r, NULL));
    free(big);
}

START_TEST(test_failure_completion_after_peer_left)
{
    volatile int *flag = shmct_page();
    ck_assert_int_eq(shmct_run(3, fin_then_finalize, (void *)flag), 0);
    shmct_page_free((void *)flag);
}
END_TEST

static Suite *failure_suite(void)
{
    Suite *s = suite_create("failure");
    TCase *t = tcase_create("peers");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_failure_exit_without_finalize);
    tcase_add_test(t, test_failure_receiver_leaves);
    tcase_add_test(t, test_failure_peer_finalized);
    tcase_add_loop_test(t, test_failure_slot_reader_leaves, 0, 2);
    tcase_add_test(t, test_failure_killed);
    tcase_add_test(t, test_failure_abort);
    tcase_add_test(t, test_failure_abort_nonblocking);
    tcase_add_test(t, test_failure_finalize_delivers);
    tcase_add_test(t, test_failure_finalize_unmatched);
    tcase_add_test(t, test_failure_completion_after_peer_left);
    tcase_add_loop_test(t, test_failure_collectives_dead_member, 0, 2 * NCOLL);
    tcase_add_loop_test(t, test_failure_collectives_dead_member_shm, 0, 2 * NCOLL);
    tcase_add_test(t, test_failure_sender_killed_midway);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(failure_suite());
}
