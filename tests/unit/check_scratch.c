/*
 * Unit test of the collectives' memory rule: a collective never allocates once its data
 * moves (coll/scratch.c, and the reserve of requests that coll.c takes from
 * p2p/request.c). With one rank's malloc failing (refuse_malloc.h):
 *
 *   - every collective with every algorithm returns SHMC_ERR_NOMEM on every rank, its
 *     receive buffer untouched, when the call needs more scratch than shmc_init took
 *     (as each algorithm's scratch_need says), and succeeds otherwise; then it succeeds
 *     with memory;
 *   - with every request of the free list held and no memory at all, the collectives
 *     whose data move as messages still work: their requests come from the reserve.
 */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "coll/dispatch.h"
#include "coll/scratch.h"
#include "harness.h"
#include "refuse_malloc.h"

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
    shmc__scratch_release(&shmc__coll);
    T_OK(shmc__scratch_init(&shmc__coll));
    struct shmc__coll_comm *cc = shmc__coll_comm(&shmc__p2p.comms.world);
    memset(cc->scratch_mark, 0, sizeof cc->scratch_mark);
}

/* Does (coll, algo) with this count need more scratch than every rank holds from
 * shmc_init? Then a rank without memory makes every rank fail. */
static int needs_scratch(int coll, int algo, int me, int n, size_t count, int inplace)
{
    struct shmc__cx x;
    shmc__cx_init(&x, &shmc__coll, &shmc__p2p.comms.world, SHMC_INT32);
    (void)me;
    (void)n;
    size_t need[SHMC_NSCRATCH] = {0};
    const struct shmc__coll_algo *a = shmc__coll_algo(coll, algo, 0);
    if (a->scratch_need)
        a->scratch_need(&x, count, need);
    if (inplace)
        need[SHMC_SCRATCH_INPLACE] = (size_t)n * count * 4;
    for (int i = 0; i < SHMC_NSCRATCH; i++)
        if (need[i] > SHMC_SCRATCH_MIN)
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
                shmc__coll.algo[coll] = (uint8_t)a;
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
                shmc__coll.algo[coll] = SHMC_A_AUTO;
            }
        }
    }
    T_ASSERT(failed >= 10, "only %d calls needed scratch: the test tests little", failed);
    T_ASSERT(shmc__coll.scratch_late == 0, "scratch grew inside a collective");
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
    while (shmc__p2p.reqs.free && nheld < 1024) {
        T_OK(shmc_irecv(&sink[nheld], 1, SHMC_INT32, prev, 77, w, &held[nheld]));
        nheld++;
    }
    T_ASSERT(!shmc__p2p.reqs.free, "%d receives did not empty the free list", nheld);
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
        shmc__coll.algo[coll] = (uint8_t)mailbox[i].algo;
        refuse = 1;
        int rc = call(coll, sb, rb, count, root, w);
        refuse = 0;
        shmc__coll.algo[coll] = SHMC_A_AUTO;
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

/* The bytes a call of count elements of es bytes sizes its choice by, as the entry points
 * give them to shmc__coll_run (coll/entry.h, run): the vector of the broadcast, reduce
 * and all-reduce, all n blocks of the others. */
static size_t call_bytes(int coll, int n, size_t count, size_t es)
{
    if (coll == SHMC_C_BROADCAST || coll == SHMC_C_REDUCE || coll == SHMC_C_ALLREDUCE)
        return count * es;
    return (size_t)n * count * es;
}

/* An algorithm that says its needs stay within its call's bytes (within_bytes) skips the
 * agreement for small calls (shmc__scratch_held): were one of its needs larger, a member
 * would borrow beyond what the members agreed to hold. Every such algorithm, at every
 * rank count, element size and a spread of counts. */
START_TEST(test_needs_within_bytes)
{
    static const size_t sizes[] = {1, 2, 4, 8, 16};
    int checked = 0;
    for (int coll = SHMC_C_BARRIER; coll < SHMC_C_COUNT; coll++) {
        for (int a = SHMC_A_TREE; a < SHMC_A_COUNT; a++) {
            const struct shmc__coll_algo *d =
                shmc__algo_valid(coll, a) ? shmc__coll_algo(coll, a, 0) : NULL;
            if (!d || !d->within_bytes)
                continue;
            ck_assert_msg(d->scratch_need != NULL, "%s/%s: within_bytes and no scratch_need",
                          shmc__coll_names[coll], shmc__algo_names[a]);
            checked++;
            for (int n = 2; n <= SHMC_MAX_RANKS; n += n < 17 ? 1 : 61)
                for (size_t e = 0; e < sizeof sizes / sizeof sizes[0]; e++)
                    for (size_t count = 1; count < 70000; count += count < 300 ? 1 : count / 3) {
                        struct shmc__cx x = {.n = n, .es = sizes[e]};
                        size_t need[SHMC_NSCRATCH] = {0}, bytes = call_bytes(coll, n, count, x.es);
                        d->scratch_need(&x, count, need);
                        for (int i = 0; i < SHMC_NSCRATCH; i++)
                            ck_assert_msg(need[i] <= bytes,
                                          "%s/%s: %d ranks, %zu elements of %zu bytes: need %d "
                                          "is %zu, beyond the call's %zu bytes",
                                          shmc__coll_names[coll], shmc__algo_names[a], n, count,
                                          x.es, i, need[i], bytes);
                    }
        }
    }
    ck_assert_msg(checked >= 5, "only %d algorithms say within_bytes: the test tests little",
                  checked);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("scratch");
    TCase *t = tcase_create("nomem");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_oom_collectives);
    tcase_add_test(t, test_oom_collective_requests);
    suite_add_tcase(s, t);
    TCase *b = tcase_create("bounds");
    tcase_add_test(b, test_needs_within_bytes);
    suite_add_tcase(s, b);
    return shmct_main(s);
}
