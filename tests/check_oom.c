/*
 * malloc failing at chosen moments, in one rank. This program replaces malloc, calloc
 * and realloc with versions that fail while `refuse` is set in the calling process (the
 * library is linked statically, so its allocations come here too); a rank sets it around
 * the calls under test.
 *
 *   - A receive whose CTS or FIN must wait for ring space needs no memory: the control
 *     record lives in the request. (It used to be allocated; a failure completed the
 *     receive with SHMC_ERR_NOMEM and left the sender waiting for a CTS forever.)
 *   - shmc_comm_split and shmc_comm_create_group with one rank out of memory return
 *     SHMC_ERR_NOMEM on every rank, and no rank is left with the new communicator; the
 *     parent, and a later split, work.
 *   - Every collective with every algorithm, one rank out of memory: every rank returns
 *     SHMC_ERR_NOMEM, its receive buffer untouched, when the call needs more scratch
 *     than shmc_init took (coll/scratch.c), and the call succeeds otherwise; then it
 *     succeeds with memory. Collectives whose data move as messages need no memory for
 *     their requests, even with the free list empty (the reserve in request.c).
 *
 * Sanitizers replace malloc themselves: skipped there (check_nomem covers a capped
 * address space in every build).
 */
#include <check.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "coll/coll.h"
#include "harness.h"
#include "internal.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

static volatile int refuse;
static volatile unsigned refused;

#if !SANITIZED
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

/* Counts a refusal and says so while `refuse` is set. */
static int refusing(void)
{
    if (!refuse)
        return 0;
    refused++;
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n)
{
    return refusing() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    return refusing() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    return refusing() ? NULL : __libc_realloc(p, n);
}
#endif

static const char *const env_mailbox[] = {"SHMC_SINGLE_COPY=0", "SHMC_RING_SIZE=16k", NULL};

/* 16-byte messages take 32-byte records: 511 of them leave 32 bytes of a 16 KiB ring,
 * too few for a control record, and the rest wait in order behind them. */
enum { K = 600, SMALL = 16, BIG = 1 << 20 };

/* Rank 0 announces a large message to rank 1 and then stays out of the library for a
 * while; meanwhile rank 1 fills its mailbox to rank 0 with eager messages and, out of
 * memory, receives the large message through the mailbox: its CTS cannot go out until
 * rank 0 drains the mailbox, so it is queued. */
static void queued_cts(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    uint8_t *big = malloc(BIG);
    static uint8_t small[K][SMALL];
    static shmc_request *rq[K + 1];
    T_ASSERT(big != NULL, "memory");
    if (me == 0) {
        shmct_fill(big, BIG, 7);
        shmc_request *s;
        T_OK(shmc_isend(big, BIG, SHMC_UINT8, 1, 2, w, &s));
        T_OK(shmc_barrier(w));
        usleep(300 * 1000); /* not draining anything */
        for (int k = 0; k < K; k++) {
            T_OK(shmc_recv(small[k], SMALL, SHMC_UINT8, 1, 1, w, NULL));
            T_ASSERT(shmct_verify(small[k], SMALL, 100u + (unsigned)k) == (size_t)-1,
                     "eager message %d", k);
        }
        T_OK(shmc_wait(&s, NULL));
    } else {
        T_OK(shmc_barrier(w)); /* rank 0's RTS is in our mailbox (or already taken) */
        usleep(20 * 1000);     /* rank 0 has left the barrier */
        for (int k = 0; k < K; k++) {
            shmct_fill(small[k], SMALL, 100u + (unsigned)k);
            T_OK(shmc_isend(small[k], SMALL, SHMC_UINT8, 0, 1, w, &rq[k]));
        }
        T_ASSERT(shmc__g.peers[0].out_busy, "the mailbox to rank 0 should be full");
        /* One pass of progress takes rank 0's RTS out of the mailbox (memory is still
         * there for it), so that the receive below matches it at once. */
        int done;
        T_OK(shmc_test(&rq[K - 1], &done, NULL));
        refuse = 1;
        int rc = shmc_irecv(big, BIG, SHMC_UINT8, 0, 2, w, &rq[K]);
        int queued = shmc__g.peers[0].ctrl_head != NULL;
        int rc_wait = rc == SHMC_OK ? shmc_wait(&rq[K], NULL) : rc;
        refuse = 0;
        T_OK(rc);
        T_OK(rc_wait);
        T_ASSERT(queued, "the CTS was sent at once: the test did not test the queue");
        T_ASSERT(shmct_verify(big, BIG, 7) == (size_t)-1, "large message");
        T_OK(shmc_waitall(K, rq, NULL));
    }
    free(big);
}

START_TEST(test_oom_queued_control_record)
{
    if (SANITIZED) {
        fprintf(stderr, "test_oom_queued_control_record: skipped under a sanitizer\n");
        return;
    }
    struct shmct_opts o = {.env = env_mailbox};
    ck_assert_int_eq(shmct_run_opts(2, queued_cts, NULL, &o), 0);
}
END_TEST

static int ncomms(void)
{
    int k = 0;
    for (const struct shmc__comm *c = shmc__g.comms; c; c = c->next)
        k++;
    return k;
}

/* One rank (arg: which) out of memory during each way of making a communicator. */
static void comm_creation(shmc_comm *w, int me, int n, void *arg)
{
    int poor = *(const int *)arg;
    shmc_comm *c = NULL;
    static const int pair[] = {0, 1};
    for (int round = 0; round < 3; round++) {
        unsigned before = refused;
        refuse = me == poor;
        int rc = round == 0   ? shmc_comm_split(w, me % 2, me, &c)
                 : round == 1 ? shmc_comm_split(w, me == 0 ? -1 : 0, 0, &c)
                              : shmc_comm_create_group(w, pair, 2, &c);
        refuse = 0;
        T_ASSERT(me != poor || refused > before, "round %d: nothing was refused", round);
        T_CALL(SHMC_ERR_NOMEM, rc);
        T_ASSERT(c == NULL && ncomms() == 0, "round %d: a communicator was left", round);
        /* The parent still works, and so does the next attempt. */
        int one = 1, sum = 0;
        T_OK(shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, w));
        T_ASSERT(sum == n, "round %d: sum %d", round, sum);
        T_OK(shmc_comm_split(w, me % 2, me, &c));
        T_ASSERT(shmc_comm_size(c) == (n + 1 - me % 2) / 2, "round %d: size", round);
        T_OK(shmc_allreduce(&one, &sum, 1, SHMC_INT32, SHMC_SUM, c));
        T_ASSERT(sum == shmc_comm_size(c), "round %d: sum on the new one %d", round, sum);
        T_OK(shmc_comm_free(&c));
    }
}

START_TEST(test_oom_comm_creation)
{
    if (SANITIZED) {
        fprintf(stderr, "test_oom_comm_creation: skipped under a sanitizer\n");
        return;
    }
    for (int poor = 0; poor < 3; poor++)
        ck_assert_int_eq(shmct_run(3, comm_creation, &poor), 0);
}
END_TEST

/* ---- collectives ------------------------------------------------------------------- */

static int32_t val(int r, size_t j)
{
    return (int32_t)((uint32_t)r * 1000003u + (uint32_t)j);
}

/* One collective by number, on int32 with SUM. */
static int call(int coll, const void *sb, void *rb, size_t count, int root, shmc_comm *c)
{
    switch (coll) {
    case SHMC_C_BARRIER:
        return shmc_barrier(c);
    case SHMC_C_BROADCAST:
        return shmc_broadcast(rb, count, SHMC_INT32, root, c);
    case SHMC_C_REDUCE:
        return shmc_reduce(sb, rb, count, SHMC_INT32, SHMC_SUM, root, c);
    case SHMC_C_ALLREDUCE:
        return shmc_allreduce(sb, rb, count, SHMC_INT32, SHMC_SUM, c);
    case SHMC_C_GATHER:
        return shmc_gather(sb, rb, count, SHMC_INT32, root, c);
    case SHMC_C_ALLGATHER:
        return shmc_allgather(sb, rb, count, SHMC_INT32, c);
    case SHMC_C_SCATTER:
        return shmc_scatter(sb, rb, count, SHMC_INT32, root, c);
    case SHMC_C_REDUCE_SCATTER:
        return shmc_reduce_scatter(sb, rb, count, SHMC_INT32, SHMC_SUM, c);
    default:
        return shmc_alltoall(sb, rb, count, SHMC_INT32, c);
    }
}

/* Element j of rank me's result, or 1 where the call leaves it alone (*keep). */
static int32_t expected(int coll, int me, int n, int root, size_t count, size_t j, int *keep)
{
    size_t blk = j / count, e = j % count;
    int32_t sum = 0;
    *keep = 0;
    switch (coll) {
    case SHMC_C_BROADCAST:
        return j < count ? val(root, j) : (*keep = 1);
    case SHMC_C_REDUCE:
    case SHMC_C_ALLREDUCE:
        if (j >= count || (coll == SHMC_C_REDUCE && me != root))
            return *keep = 1;
        for (int r = 0; r < n; r++)
            sum = (int32_t)((uint32_t)sum + (uint32_t)val(r, j));
        return sum;
    case SHMC_C_GATHER:
    case SHMC_C_ALLGATHER:
        if (coll == SHMC_C_GATHER && me != root)
            return *keep = 1;
        return val((int)blk, e);
    case SHMC_C_SCATTER:
        return j < count ? val(root, (size_t)me * count + j) : (*keep = 1);
    case SHMC_C_REDUCE_SCATTER:
        if (j >= count)
            return *keep = 1;
        for (int r = 0; r < n; r++)
            sum = (int32_t)((uint32_t)sum + (uint32_t)val(r, (size_t)me * count + j));
        return sum;
    default:
        return val((int)blk, (size_t)me * count + e);
    }
}

/* Drops every scratch buffer and what the world's members agreed to hold, as at
 * shmc_init, so that the next call that needs scratch must allocate (every rank does
 * this at the same point). */
static void forget_scratch(void)
{
    shmc__coll_release();
    T_OK(shmc__scratch_init());
    memset(shmc__g.world.scratch_mark, 0, sizeof shmc__g.world.scratch_mark);
}

/* Does (coll, algo) with this count need more scratch than every rank holds from
 * shmc_init? Then a rank without memory makes every rank fail. */
static int needs_scratch(int coll, int algo, int me, int n, size_t count, int inplace)
{
    struct shmc__cx x = {.c = &shmc__g.world, .n = n, .me = me, .es = 4, .dt = SHMC_INT32};
    size_t need[SHMC_NSCRATCH];
    shmc__coll_need(coll, algo, &x, count, need);
    if (inplace)
        need[SHMC_SCRATCH_INPLACE] = (size_t)n * count * 4;
    for (int i = 0; i < SHMC_NSCRATCH; i++)
        if (need[i] > 4096)
            return 1;
    return 0;
}

/* Element j of the receive buffer before the call. */
static int32_t before_call(int coll, int me, int root, int inplace, size_t j)
{
    if (inplace)
        return val(me, j); /* the input, in the receive buffer */
    return coll == SHMC_C_BROADCAST && me == root ? val(root, j) : -7;
}

enum { CCOUNT = 16384 }; /* 64 KiB blocks: beyond what shmc_init takes */

/* Every collective with every algorithm, one rank refusing memory for the call: either
 * the call needs no memory and works, or every rank returns SHMC_ERR_NOMEM with its
 * receive buffer untouched; then the same call, with memory, gives the right result. */
static void coll_poor(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    size_t total = (size_t)n * CCOUNT;
    int32_t *sb = malloc(total * 4), *rb = malloc(total * 4);
    T_ASSERT(sb && rb, "memory");
    int cases = 0, failed = 0;
    for (int coll = SHMC_C_BARRIER; coll < SHMC_C_COUNT; coll++) {
        for (int a = SHMC_A_TREE; a < SHMC_A_COUNT; a++) {
            if (!shmc__algo_valid(coll, a))
                continue;
            for (int inplace = 0; inplace < 1 + (coll == SHMC_C_ALLTOALL); inplace++) {
                int poor = cases % n, root = (cases / n) % n;
                cases++;
                shmc__g.cfg.algo[coll] = (uint8_t)a;
                forget_scratch();
                int want_nomem = needs_scratch(coll, a, me, n, CCOUNT, inplace);
                for (int attempt = 0; attempt < 2; attempt++) {
                    for (size_t j = 0; j < total; j++) {
                        sb[j] = val(me, j);
                        rb[j] = before_call(coll, me, root, inplace, j);
                    }
                    unsigned before = refused;
                    refuse = attempt == 0 && me == poor;
                    int rc = call(coll, inplace ? SHMC_IN_PLACE : sb, rb, CCOUNT, root, w);
                    refuse = 0;
                    const char *name = shmc__coll_names[coll], *an = shmc__algo_names[a];
                    if (attempt == 0 && want_nomem) {
                        T_ASSERT(rc == SHMC_ERR_NOMEM, "%s/%s: returned %d, not NOMEM", name, an,
                                 rc);
                        T_ASSERT(me != poor || refused > before, "%s/%s: nothing refused", name,
                                 an);
                        for (size_t j = 0; j < total; j++)
                            T_ASSERT(rb[j] == before_call(coll, me, root, inplace, j),
                                     "%s/%s: element %zu written by a failed call", name, an, j);
                        failed++;
                        continue;
                    }
                    T_ASSERT(rc == SHMC_OK, "%s/%s attempt %d: returned %d", name, an, attempt, rc);
                    for (size_t j = 0; j < total && coll != SHMC_C_BARRIER; j++) {
                        int keep;
                        int32_t v = expected(coll, me, n, root, CCOUNT, j, &keep);
                        if (keep)
                            v = before_call(coll, me, root, inplace, j);
                        T_ASSERT(rb[j] == v, "%s/%s attempt %d: element %zu is %d, not %d", name,
                                 an, attempt, j, rb[j], v);
                    }
                }
                shmc__g.cfg.algo[coll] = SHMC_A_AUTO;
            }
        }
    }
    T_ASSERT(failed >= 10, "only %d calls needed scratch: the test tests little", failed);
    T_ASSERT(shmc__g.scratch_late == 0, "scratch grew inside a collective");
    free(sb);
    free(rb);
}

START_TEST(test_oom_collectives)
{
    if (SANITIZED) {
        fprintf(stderr, "test_oom_collectives: skipped under a sanitizer\n");
        return;
    }
    static const char *const env_check[] = {"SHMC_CHECK=1", NULL};
    struct shmct_opts o = {.env = env_check};
    ck_assert_int_eq(shmct_run(3, coll_poor, NULL), 0);
    ck_assert_int_eq(shmct_run(4, coll_poor, NULL), 0);
    ck_assert_int_eq(shmct_run_opts(3, coll_poor, NULL, &o), 0);
}
END_TEST

/* With every request of the free list held by receives the program posted, and no
 * memory at all, collectives that move their data as messages still work: their
 * requests come from the reserve taken at shmc_init. */
static void coll_reserve(shmc_comm *w, int me, int n, void *arg)
{
    (void)arg;
    static shmc_request *held[1024];
    static int32_t sink[1024];
    int nheld = 0, next = (me + 1) % n, prev = (me + n - 1) % n;
    while (shmc__g.req_free && nheld < 1024) {
        T_OK(shmc_irecv(&sink[nheld], 1, SHMC_INT32, prev, 77, w, &held[nheld]));
        nheld++;
    }
    T_ASSERT(!shmc__g.req_free, "%d receives did not empty the free list", nheld);
    int32_t sb[64], rb[64];
    static const struct {
        int coll, algo;
    } mailbox[] = {
        {SHMC_C_BARRIER, SHMC_A_TREE},  {SHMC_C_BROADCAST, SHMC_A_RING},
        {SHMC_C_REDUCE, SHMC_A_TREE},   {SHMC_C_ALLREDUCE, SHMC_A_RD},
        {SHMC_C_GATHER, SHMC_A_RING},   {SHMC_C_ALLGATHER, SHMC_A_RING},
        {SHMC_C_SCATTER, SHMC_A_RING},  {SHMC_C_REDUCE_SCATTER, SHMC_A_RING},
        {SHMC_C_ALLTOALL, SHMC_A_RING}, {SHMC_C_ALLTOALL, SHMC_A_TREE},
    };
    for (size_t i = 0; i < sizeof mailbox / sizeof mailbox[0]; i++) {
        int coll = mailbox[i].coll, root = (int)i % n;
        size_t count = 64 / (size_t)n;
        for (size_t j = 0; j < 64; j++) {
            sb[j] = val(me, j);
            rb[j] = coll == SHMC_C_BROADCAST && me == root ? val(root, j) : -7;
        }
        shmc__g.cfg.algo[coll] = (uint8_t)mailbox[i].algo;
        refuse = 1;
        int rc = call(coll, sb, rb, count, root, w);
        refuse = 0;
        shmc__g.cfg.algo[coll] = SHMC_A_AUTO;
        T_ASSERT(rc == SHMC_OK, "%s/%s without memory: returned %d", shmc__coll_names[coll],
                 shmc__algo_names[mailbox[i].algo], rc);
        for (size_t j = 0; j < (size_t)n * count && coll != SHMC_C_BARRIER; j++) {
            int keep;
            int32_t v = expected(coll, me, n, root, count, j, &keep);
            T_ASSERT(keep || rb[j] == v, "%s: element %zu is %d, not %d", shmc__coll_names[coll], j,
                     rb[j], v);
        }
    }
    /* The held receives still work. */
    for (int k = 0; k < nheld; k++) {
        int32_t v = me * 10000 + k;
        T_OK(shmc_send(&v, 1, SHMC_INT32, next, 77, w));
    }
    T_OK(shmc_waitall((size_t)nheld, held, NULL));
    for (int k = 0; k < nheld; k++)
        T_ASSERT(sink[k] == prev * 10000 + k, "held receive %d got %d", k, sink[k]);
}

START_TEST(test_oom_collective_requests)
{
    if (SANITIZED) {
        fprintf(stderr, "test_oom_collective_requests: skipped under a sanitizer\n");
        return;
    }
    ck_assert_int_eq(shmct_run(4, coll_reserve, NULL), 0);
}
END_TEST

static Suite *oom_suite(void)
{
    Suite *s = suite_create("oom");
    TCase *t = tcase_create("malloc");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_oom_queued_control_record);
    tcase_add_test(t, test_oom_comm_creation);
    tcase_add_test(t, test_oom_collectives);
    tcase_add_test(t, test_oom_collective_requests);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(oom_suite());
}
