/*
 * Windows of shared memory: made at 1 to 8 ranks with a size of each member's own, laid
 * out back to back and zero-filled, read and written by load and store and by put and get
 * across fences; accumulates without a lock that add up exactly, a ticket dispenser of
 * fetch-and-add whose tickets are all different, one compare-and-swap winner, an
 * exclusive lock that makes a read-modify-write by plain copies exact, the generalised
 * active target around a ring; the refusals (past the end, locks and epochs in the wrong
 * state, one member's bad unit failing every member's making, a window too big for the
 * machine); a member killed while holding a lock another waits for; windows on each
 * rank's own memory and over the whole address space, reached by single copy; the
 * scattered forms on both kinds of window.
 */
#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define ROUNDS 50

/* Rank r's part: (r + 1) * 16 ints; every part contiguous with the next. */
static void layout(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_win *win;
    int *mine;
    size_t bytes = (size_t)(me + 1) * 16 * sizeof(int);
    T_OK(shmc_win_allocate(bytes, sizeof(int), w, (void **)&mine, &win));
    for (size_t i = 0; i < bytes / sizeof(int); i++)
        T_ASSERT(mine[i] == 0, "not zero-filled at %zu", i);
    for (size_t i = 0; i < bytes / sizeof(int); i++)
        mine[i] = me * 1000 + (int)i;
    T_OK(shmc_win_fence(win));
    char *expect = NULL;
    for (int r = 0; r < n; r++) {
        size_t b, u;
        void *p;
        T_OK(shmc_win_shared_query(win, r, &b, &u, &p));
        T_ASSERT(b == (size_t)(r + 1) * 16 * sizeof(int) && u == sizeof(int), "rank %d: %zu %zu", r,
                 b, u);
        T_ASSERT(!expect || (char *)p == expect, "rank %d's part does not follow rank %d's", r,
                 r - 1);
        expect = (char *)p + b;
        const int *q = p;
        for (int i = 0; i < (r + 1) * 16; i++)
            T_ASSERT(q[i] == r * 1000 + i, "rank %d element %d: %d", r, i, q[i]);
        int got[4];
        T_OK(shmc_get(got, sizeof got, r, 3, win));
        T_ASSERT(got[0] == r * 1000 + 3 && got[3] == r * 1000 + 6, "get from %d", r);
    }
    /* put into the next rank's part, element me */
    int v = 7000 + me, next = (me + 1) % n;
    T_OK(shmc_win_fence(win));
    T_OK(shmc_put(&v, sizeof v, next, (size_t)me % 16, win));
    T_OK(shmc_win_fence(win));
    int prev = (me + n - 1) % n;
    T_ASSERT(mine[prev % 16] == 7000 + prev, "put from %d: %d", prev, mine[prev % 16]);
    T_OK(shmc_win_free(&win));
    T_ASSERT(win == NULL, "freed window handle kept");
}

START_TEST(test_win_layout)
{
    ck_assert_int_eq(shmct_run(_i, layout, NULL), 0);
}
END_TEST

/* Every rank adds 1 ROUNDS times to rank 0's counter without a lock, takes ROUNDS
 * tickets from rank n-1's dispenser, and tries to claim a word once. */
static void atomics(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_win *win;
    int64_t *mine;
    T_OK(shmc_win_allocate(4 * sizeof(int64_t), sizeof(int64_t), w, (void **)&mine, &win));
    int64_t one = 1, tickets[ROUNDS];
    for (int i = 0; i < ROUNDS; i++) {
        T_OK(shmc_accumulate(&one, 1, SHMC_INT64, SHMC_SUM, 0, 0, win));
        T_OK(shmc_get_accumulate(&one, &tickets[i], 1, SHMC_INT64, SHMC_SUM, n - 1, 1, win));
    }
    int64_t claim = me + 1, zero = 0, old = -1;
    T_OK(shmc_compare_and_swap(&claim, &zero, &old, SHMC_INT64, 0, 2, win));
    T_OK(shmc_win_fence(win));
    int64_t total, word;
    T_OK(shmc_get(&total, sizeof total, 0, 0, win));
    T_ASSERT(total == (int64_t)n * ROUNDS, "counter %lld", (long long)total);
    T_OK(shmc_get(&word, sizeof word, 0, 2, win));
    int won = old == 0;
    int64_t wins = 0;
    T_OK(shmc_allreduce(&(int64_t){won}, &wins, 1, SHMC_INT64, SHMC_SUM, w));
    T_ASSERT(wins == 1, "%lld compare-and-swap winners", (long long)wins);
    T_ASSERT(word >= 1 && word <= n, "claimed word %lld", (long long)word);
    /* tickets: all different, 0 .. n * ROUNDS - 1 */
    int64_t *all = malloc(sizeof(int64_t) * ROUNDS * (size_t)n);
    T_OK(shmc_allgather(tickets, all, ROUNDS, SHMC_INT64, w));
    char *hit = calloc((size_t)n * ROUNDS, 1);
    for (int i = 0; i < n * ROUNDS; i++) {
        T_ASSERT(all[i] >= 0 && all[i] < n * ROUNDS && !hit[all[i]], "ticket %lld twice or out",
                 (long long)all[i]);
        hit[all[i]] = 1;
    }
    free(all);
    free(hit);
    /* get_accumulate with SHMC_NO_OP reads; SHMC_REPLACE writes */
    int64_t r = -1, forty = 40;
    T_OK(shmc_win_fence(win));
    if (me == 0)
        T_OK(shmc_accumulate(&forty, 1, SHMC_INT64, SHMC_REPLACE, n - 1, 3, win));
    T_OK(shmc_win_fence(win));
    T_OK(shmc_get_accumulate(NULL, &r, 1, SHMC_INT64, SHMC_NO_OP, n - 1, 3, win));
    T_ASSERT(r == 40, "replace then no-op read: %lld", (long long)r);
    T_OK(shmc_win_free(&win));
}

START_TEST(test_win_atomics)
{
    ck_assert_int_eq(shmct_run(_i, atomics, NULL), 0);
}
END_TEST

/* Read, sleep now and then, write back plus one under each rank's exclusive lock in turn:
 * no update lost. The sleeps send the waiters to sleep, and a waiter woken just as it goes
 * to sleep takes the lock in its last look and must keep it (a wait that asked again lost
 * it, and every rank then waited for a lock nobody held). Then shared locks by all at
 * once, and lock_all. */
static void locks(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_win *win;
    int *mine;
    T_OK(shmc_win_allocate(sizeof(int), 1, w, (void **)&mine, &win));
    for (int i = 0; i < 6 * ROUNDS; i++)
        for (int r = 0; r < n; r++) {
            int v;
            T_OK(shmc_win_lock(win, r, 1));
            T_OK(shmc_get(&v, sizeof v, r, 0, win));
            if (i % 3 == 0)
                usleep(300 + 100 * (useconds_t)me);
            v++;
            T_OK(shmc_put(&v, sizeof v, r, 0, win));
            T_OK(shmc_win_unlock(win, r));
        }
    T_OK(shmc_win_fence(win));
    int total;
    T_OK(shmc_win_lock(win, 0, 0));
    T_OK(shmc_get(&total, sizeof total, 0, 0, win));
    T_OK(shmc_win_flush(win, 0));
    T_OK(shmc_win_unlock(win, 0));
    T_ASSERT(total == 6 * n * ROUNDS, "counter %d after %d locked increments", total,
             6 * n * ROUNDS);
    T_OK(shmc_win_lock_all(win));
    T_OK(shmc_win_flush(win, SHMC_ANY_SOURCE));
    T_OK(shmc_win_sync(win));
    T_OK(shmc_win_unlock_all(win));
    T_OK(shmc_win_free(&win));
}

START_TEST(test_win_locks)
{
    ck_assert_int_eq(shmct_run(_i, locks, NULL), 0);
}
END_TEST

/* Post to the rank before, start to the rank after, put there, complete, wait; test
 * polls the second round. */
static void pscw(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_win *win;
    int *mine;
    T_OK(shmc_win_allocate(sizeof(int), sizeof(int), w, (void **)&mine, &win));
    int prev = (me + n - 1) % n, next = (me + 1) % n;
    for (int round = 0; round < 2; round++) {
        T_OK(shmc_win_post(win, &prev, 1));
        T_OK(shmc_win_start(win, &next, 1));
        int v = 100 * round + me;
        T_OK(shmc_put(&v, sizeof v, next, 0, win));
        T_OK(shmc_win_complete(win));
        if (round == 0) {
            T_OK(shmc_win_wait(win));
        } else {
            int flag = 0;
            while (!flag)
                T_OK(shmc_win_test(win, &flag));
        }
        T_ASSERT(*mine == 100 * round + prev, "round %d: %d", round, *mine);
    }
    T_OK(shmc_win_free(&win));
}

START_TEST(test_win_pscw)
{
    ck_assert_int_eq(shmct_run(_i, pscw, NULL), 0);
}
END_TEST

static void refusals(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_win *win = NULL;
    void *base;
    /* one member's unit of 0: every member's making fails, none hangs */
    T_CALL(SHMC_ERR_ARG, shmc_win_allocate(64, me == n - 1 ? 0 : 1, w, &base, &win));
    T_ASSERT(win == NULL, "a window after a failed making");
    /* too big for the machine: every member's making fails */
    T_CALL(SHMC_ERR_NOMEM, shmc_win_allocate((size_t)1 << 46, 1, w, &base, &win));
    int *mine;
    T_OK(shmc_win_allocate(8 * sizeof(int), sizeof(int), w, (void **)&mine, &win));
    int v[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    T_CALL(SHMC_ERR_ARG, shmc_put(v, sizeof v, me, 0, win)); /* one int past the end */
    T_CALL(SHMC_ERR_ARG, shmc_put(v, sizeof(int), me, 8, win));
    T_CALL(SHMC_ERR_ARG, shmc_put(v, sizeof(int), n, 0, win));
    T_CALL(SHMC_ERR_ARG, shmc_get(v, sizeof(int), -1, 0, win));
    T_CALL(SHMC_ERR_ARG, shmc_accumulate(v, 1, SHMC_INT32, SHMC_AVG, me, 0, win));
    T_CALL(SHMC_ERR_ARG, shmc_accumulate(v, 1, SHMC_INT32, SHMC_NO_OP, me, 0, win));
    T_CALL(SHMC_ERR_ARG, shmc_accumulate(v, 9, SHMC_INT32, SHMC_SUM, me, 0, win));
    for (int i = 0; i < 8; i++)
        T_ASSERT(mine[i] == 0, "a refused access wrote element %d", i);
    T_CALL(SHMC_ERR_STATE, shmc_win_unlock(win, me));
    T_OK(shmc_win_lock(win, me, 1));
    T_CALL(SHMC_ERR_STATE, shmc_win_lock(win, me, 0));
    T_CALL(SHMC_ERR_STATE, shmc_win_lock_all(win));
    T_OK(shmc_win_unlock(win, me));
    T_CALL(SHMC_ERR_STATE, shmc_win_unlock_all(win));
    T_CALL(SHMC_ERR_STATE, shmc_win_complete(win));
    T_CALL(SHMC_ERR_STATE, shmc_win_wait(win));
    int twice[2] = {0, 0};
    T_CALL(SHMC_ERR_ARG, shmc_win_start(win, twice, 2));
    T_CALL(SHMC_ERR_ARG, shmc_win_post(win, &n, 1));
    T_OK(shmc_win_free(&win));
    T_CALL(SHMC_ERR_ARG, shmc_win_free(&win));
    T_CALL(SHMC_ERR_ARG, shmc_win_fence(NULL));
}

START_TEST(test_win_refusals)
{
    ck_assert_int_eq(shmct_run(_i, refusals, NULL), 0);
}
END_TEST

/* The last rank takes rank 0's exclusive lock and dies holding it: rank 0's lock ends
 * with SHMC_ERR_PEER_DEAD, not a hang. */
static void dead_holder(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    shmc_win *win;
    void *base;
    T_OK(shmc_win_allocate(64, 1, w, &base, &win));
    if (me == n - 1)
        T_OK(shmc_win_lock(win, 0, 1));
    T_OK(shmc_barrier(w));
    if (me == n - 1)
        raise(SIGKILL);
    if (me == 0) {
        int rc = shmc_win_lock(win, 0, 0);
        T_ASSERT(rc == SHMC_ERR_PEER_DEAD, "the lock ended with %s", shmc_strerror(rc));
    }
    /* (the free's barrier finds the member gone; the window goes all the same) */
    T_CALL(SHMC_ERR_PEER_DEAD, shmc_win_free(&win));
}

/* Active target with a member that dies: case 0, rank 1 dies before it posts, and rank
 * 0's start (which waits for the post) ends with SHMC_ERR_PEER_DEAD; case 1, rank 1
 * starts and dies before it completes, and rank 0's wait ends so. Neither hangs; the
 * access epoch that never began cannot be completed (SHMC_ERR_STATE). */
static void dead_pscw(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    int before_post = *(const int *)arg, peer = 1 - me;
    shmc_win *win;
    void *base;
    T_OK(shmc_win_allocate(64, 1, w, &base, &win));
    T_OK(shmc_barrier(w));
    if (me == 1) {
        if (!before_post)
            T_OK(shmc_win_start(win, &peer, 1));
        raise(SIGKILL);
    }
    if (before_post) {
        T_CALL(SHMC_ERR_PEER_DEAD, shmc_win_start(win, &peer, 1));
        T_CALL(SHMC_ERR_STATE, shmc_win_complete(win));
    } else {
        T_OK(shmc_win_post(win, &peer, 1));
        T_CALL(SHMC_ERR_PEER_DEAD, shmc_win_wait(win));
    }
    T_CALL(SHMC_ERR_PEER_DEAD, shmc_win_free(&win));
}

START_TEST(test_win_dead_pscw)
{
    struct shmct_opts o = {.expect_fail = 1, .keep_going = 1};
    int before_post = _i == 0;
    ck_assert_int_eq(shmct_run_opts(2, dead_pscw, &before_post, &o), 1);
    ck_assert(WIFSIGNALED(shmct_status(1)) && WTERMSIG(shmct_status(1)) == SIGKILL);
}
END_TEST

START_TEST(test_win_dead_holder)
{
    struct shmct_opts o = {.expect_fail = 1, .keep_going = 1};
    ck_assert_int_eq(shmct_run_opts(2, dead_holder, NULL, &o), 1);
    ck_assert(WIFSIGNALED(shmct_status(1)) && WTERMSIG(shmct_status(1)) == SIGKILL);
}
END_TEST

/* Windows on each rank's own memory (single copy): put, get, unlocked accumulates, a
 * compare-and-swap, shared_query refusing the others' parts; then a window over the
 * whole address space, displacements being addresses exchanged by all-gather. */
static void created(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    int64_t *mem = calloc(16, sizeof *mem);
    shmc_win *win;
    T_OK(shmc_win_create(mem, 16 * sizeof *mem, sizeof *mem, w, &win));
    size_t b, u;
    void *p;
    T_OK(shmc_win_shared_query(win, me, &b, &u, &p));
    T_ASSERT(p == mem && b == 16 * sizeof *mem, "own part: %p %zu", p, b);
    if (n > 1)
        T_CALL(SHMC_ERR_ARG, shmc_win_shared_query(win, (me + 1) % n, &b, &u, &p));
    int64_t v = 100 + me, one = 1, got = -1;
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    T_OK(shmc_put(&v, sizeof v, next, 3, win));
    for (int i = 0; i < ROUNDS; i++)
        T_OK(shmc_accumulate(&one, 1, SHMC_INT64, SHMC_SUM, 0, 0, win));
    int64_t claim = me + 1, zero = 0, old = -1;
    T_OK(shmc_compare_and_swap(&claim, &zero, &old, SHMC_INT64, 0, 1, win));
    T_OK(shmc_win_fence(win));
    T_ASSERT(mem[3] == 100 + prev, "put from %d: %lld", prev, (long long)mem[3]);
    T_OK(shmc_get(&got, sizeof got, next, 3, win));
    T_ASSERT(got == 100 + me, "get back from %d: %lld", next, (long long)got);
    if (me == 0)
        T_ASSERT(mem[0] == (int64_t)n * ROUNDS && mem[1] >= 1 && mem[1] <= n,
                 "counter %lld, claim %lld", (long long)mem[0], (long long)mem[1]);
    int64_t wins = 0;
    T_OK(shmc_allreduce(&(int64_t){old == 0}, &wins, 1, SHMC_INT64, SHMC_SUM, w));
    T_ASSERT(wins == 1, "%lld compare-and-swap winners", (long long)wins);
    T_CALL(SHMC_ERR_ARG, shmc_put(&v, sizeof v, next, 16, win));
    T_OK(shmc_win_free(&win));
    /* the whole address space: displacements are addresses */
    T_OK(shmc_win_create(NULL, SIZE_MAX, 1, w, &win));
    uint64_t *addrs = malloc(sizeof *addrs * (size_t)n), mine = (uint64_t)(uintptr_t)&mem[5];
    T_OK(shmc_allgather(&mine, addrs, 1, SHMC_UINT64, w));
    v = 700 + me;
    T_OK(shmc_win_fence(win));
    T_OK(shmc_put(&v, sizeof v, next, (size_t)addrs[next], win));
    T_OK(shmc_win_fence(win));
    T_ASSERT(mem[5] == 700 + prev, "dynamic put from %d: %lld", prev, (long long)mem[5]);
    T_OK(shmc_win_free(&win));
    free(addrs);
    free(mem);
}

START_TEST(test_win_created)
{
    ck_assert_int_eq(shmct_run(_i, created, NULL), 0);
}
END_TEST

/* The scattered forms, on a window the library allocates (arg 0: loads and stores) and on
 * each rank's own memory (arg 1: single copy): blocks at negative and positive offsets
 * from the displacement, put, accumulated with the old values returned, read back; an
 * element split across two blocks; blocks outside the part, or bytes that are not whole
 * elements, refused with nothing touched. */
static void scattered(shmc_comm *w, int me, int n, void *arg)
{
    int own = *(const int *)arg;
    int64_t *mem = NULL;
    shmc_win *win;
    if (own) {
        mem = calloc(32, sizeof *mem);
        T_OK(shmc_win_create(mem, 32 * sizeof *mem, sizeof *mem, w, &win));
    } else {
        T_OK(shmc_win_allocate(32 * sizeof *mem, sizeof *mem, w, (void **)&mem, &win));
    }
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    /* at displacement 2 (byte 16): element 1, and elements 4 and 5 */
    const shmc_block b[2] = {{-8, 8}, {16, 16}};
    int64_t src[3] = {10 + me, 20 + me, 30 + me}, ones[3] = {1, 1, 1}, old[3], back[3];
    T_OK(shmc_win_fence(win));
    T_OK(shmc_putv(src, b, 2, next, 2, win));
    T_OK(shmc_win_fence(win));
    T_OK(shmc_get_accumulatev(ones, old, 3, SHMC_INT64, SHMC_SUM, b, 2, next, 2, win));
    T_ASSERT(old[0] == 10 + me && old[1] == 20 + me && old[2] == 30 + me,
             "old values %lld %lld %lld", (long long)old[0], (long long)old[1], (long long)old[2]);
    /* one element split over two blocks: the low half at byte 64, the high at byte 76 */
    const shmc_block split[2] = {{0, 4}, {12, 4}};
    int64_t seven = 7;
    T_OK(shmc_get_accumulatev(&seven, NULL, 1, SHMC_INT64, SHMC_SUM, split, 2, next, 8, win));
    /* refused, touching nothing: below the part, past its end, bytes not whole elements */
    const shmc_block below[1] = {{-8, 8}}, past[1] = {{0, 16}}, odd[1] = {{0, 12}};
    T_CALL(SHMC_ERR_ARG, shmc_putv(src, below, 1, next, 0, win));
    T_CALL(SHMC_ERR_ARG, shmc_putv(src, past, 1, next, 31, win));
    T_CALL(SHMC_ERR_ARG, shmc_getv(back, b, 2, next, 31, win));
    T_CALL(SHMC_ERR_ARG,
           shmc_get_accumulatev(ones, NULL, 1, SHMC_INT64, SHMC_SUM, odd, 1, next, 20, win));
    T_OK(shmc_win_fence(win));
    T_ASSERT(mem[1] == 11 + prev && mem[4] == 21 + prev && mem[5] == 31 + prev,
             "from %d: %lld %lld %lld", prev, (long long)mem[1], (long long)mem[4],
             (long long)mem[5]);
    T_ASSERT(mem[0] == 0 && mem[2] == 0 && mem[3] == 0 && mem[6] == 0, "between the blocks");
    int32_t halves[4];
    memcpy(halves, &mem[8], sizeof halves);
    T_ASSERT(halves[0] == 7 && halves[1] == 0 && halves[2] == 0 && halves[3] == 0,
             "split element: %d %d %d %d", halves[0], halves[1], halves[2], halves[3]);
    for (int i = 9; i < 32; i++)
        T_ASSERT(mem[i] == 0, "element %d touched: %lld", i, (long long)mem[i]);
    T_OK(shmc_getv(back, b, 2, next, 2, win));
    T_ASSERT(back[0] == 11 + me && back[1] == 21 + me && back[2] == 31 + me, "read back %lld",
             (long long)back[0]);
    T_OK(shmc_win_fence(win));
    T_OK(shmc_win_free(&win));
    if (own)
        free(mem);
}

START_TEST(test_win_scattered)
{
    int own = _i % 2;
    ck_assert_int_eq(shmct_run(1 + _i / 2, scattered, &own), 0);
}
END_TEST

static Suite *win_suite(void)
{
    Suite *s = suite_create("win");
    TCase *t = tcase_create("win");
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_set_timeout(t, 120);
    tcase_add_loop_test(t, test_win_layout, 1, 9);
    tcase_add_loop_test(t, test_win_atomics, 1, 5);
    tcase_add_loop_test(t, test_win_atomics, 8, 9);
    tcase_add_loop_test(t, test_win_locks, 1, 5);
    tcase_add_loop_test(t, test_win_pscw, 1, 5);
    tcase_add_loop_test(t, test_win_refusals, 1, 4);
    tcase_add_test(t, test_win_dead_holder);
    tcase_add_loop_test(t, test_win_dead_pscw, 0, 2);
    tcase_add_loop_test(t, test_win_created, 1, 5);
    tcase_add_loop_test(t, test_win_scattered, 0, 8);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(win_suite());
}
