/*
 * Unit test of coll/devdirect.c's end when a member fails: each member's kernel writes
 * its block of the result into every member's output buffer, so a member whose barrier
 * fails (another member quit) must not return while a third is still in its kernel,
 * writing into the buffer it is about to hand back.
 *
 * On the test backend (SHMC_FAKE_DEVICE=1, whose "device" memory is shared memfds that
 * peers really write into), at 3 ranks with the device all-reduce forced: the kernel
 * is wrapped at link time (-Wl,--wrap=shmc__dev_reduce_fold, the link line below). Rank 1 quits the
 * world's collectives instead of running it; rank 2 runs it 300 ms late; rank 0 runs it
 * at once. Rank 0's all-reduce fails, and when it returns, rank 2's block of its output
 * must already hold rank 2's result and nothing may change afterwards. On the world
 * (whose barrier is a world round) and on a communicator of all its ranks (slots). Each
 * rank's stand-in memory is on a GPU of its own (SHMC_FAKE_DEVICE=gpus:3), so each runs
 * its own block.
 *
 * And who runs the kernels: ranks sharing a GPU leave them to the lowest of them, in one
 * kernel per run of consecutive blocks (counted through the same wrap), with the right
 * sums whichever ranks share.
 */
/* link: -Wl,--wrap=shmc__dev_reduce_fold */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll/coll.h"
#include "device/device.h"
#include "harness.h"
#include "p2p/p2p.h"

/* The communicator of the call under test (the world, or one of all its ranks). */
static struct shmc__comm *target;
/* Set: the wrap only counts the kernels (folds) this rank runs. */
static int counting;
static int folds;

int __real_shmc__dev_reduce_fold(const void *const *ins, int nin, void *const *outs, int nout,
                                 size_t n, shmc_dtype dt, shmc_op op);
int __wrap_shmc__dev_reduce_fold(const void *const *ins, int nin, void *const *outs, int nout,
                                 size_t n, shmc_dtype dt, shmc_op op);
int __wrap_shmc__dev_reduce_fold(const void *const *ins, int nin, void *const *outs, int nout,
                                 size_t n, shmc_dtype dt, shmc_op op)
{
    const char *r = getenv("SHMC_RANK");
    int me = r ? atoi(r) : -1;
    if (counting) {
        folds++;
        return __real_shmc__dev_reduce_fold(ins, nin, outs, nout, n, dt, op);
    }
    if (me == 1) {
        /* As a member that fails on its own: it quits, and writes nothing. */
        shmc__p2p_quit(&shmc__p2p, target, SHMC_ERR_MISMATCH);
        return SHMC_ERR_MISMATCH;
    }
    if (me == 2)
        usleep(300000);
    return __real_shmc__dev_reduce_fold(ins, nin, outs, nout, n, dt, op);
}

#define COUNT 3000 /* elements: three blocks of 1000 */

static void to_host(int32_t *h, const void *d)
{
    T_OK(shmc__dev_copy(h, d, COUNT * sizeof *h));
}

/* arg: 0 on the world (its rounds), 1 on a communicator of all its ranks (slots). */
static void late_kernel(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    shmc_comm *c = w;
    if (arg)
        T_OK(shmc_comm_split(w, 0, me, &c));
    T_OK(shmc__coll_lookup(c, &target));
    int d;
    T_OK(shmc_device_select(&d));
    int32_t h[COUNT], after[COUNT];
    for (int i = 0; i < COUNT; i++)
        h[i] = me + 1;
    void *sbuf = shmc__dev_malloc(sizeof h), *rbuf = shmc__dev_malloc(sizeof h);
    T_ASSERT(sbuf && rbuf, "no device memory");
    T_OK(shmc__dev_copy(sbuf, h, sizeof h));
    memset(h, 0, sizeof h);
    T_OK(shmc__dev_copy(rbuf, h, sizeof h));
    int rc = shmc_allreduce(sbuf, rbuf, COUNT, SHMC_INT32, SHMC_SUM, c);
    /* Rank 2 may find every member in the barrier and succeed: the others' results are
     * its own business here. */
    T_ASSERT(me == 2 || rc != SHMC_OK, "rank %d: the all-reduce succeeded", me);
    if (me == 0) {
        to_host(h, rbuf);
        /* Block 2 (elements 2000-2999) is rank 2's kernel's: 1 + 2 + 3 everywhere. */
        for (int i = 2000; i < COUNT; i++)
            T_ASSERT(h[i] == 6,
                     "element %d is %d when the call returned: rank 2's kernel "
                     "had not written it",
                     i, h[i]);
        usleep(500000);
        to_host(after, rbuf);
        T_ASSERT(!memcmp(h, after, sizeof h), "the output changed after the call returned");
    }
    shmc__dev_free(sbuf);
    shmc__dev_free(rbuf);
    if (c != w)
        T_OK(shmc_comm_free(&c));
}

START_TEST(test_devdirect_waits_for_kernels)
{
    static const char *const env[] = {"SHMC_FAKE_DEVICE=gpus:3", "SHMC_ALGO_ALLREDUCE=direct",
                                      NULL};
    struct shmct_opts o = {.env = env};
    ck_assert_int_eq(shmct_run_opts(3, late_kernel, NULL, &o), 0);
    ck_assert_int_eq(shmct_run_opts(3, late_kernel, (void *)1, &o), 0);
}
END_TEST

#define RUNNERS_COUNT 1001 /* blocks of 251, 250, 250, 250 */

/* arg: the stand-in GPUs (rank r on GPU r % gpus). Four ranks; each must have run one
 * kernel per run of consecutive blocks it reduces, and every rank must hold the sum. */
static void runners(shmc_comm *w, int me, int n, void *arg)
{
    int gpus = (int)(intptr_t)arg;
    counting = 1;
    int d;
    T_OK(shmc_device_select(&d));
    int32_t h[RUNNERS_COUNT];
    for (int i = 0; i < RUNNERS_COUNT; i++)
        h[i] = (me + 1) * (i + 1);
    void *sbuf = shmc__dev_malloc(sizeof h), *rbuf = shmc__dev_malloc(sizeof h);
    T_ASSERT(sbuf && rbuf, "no device memory");
    T_OK(shmc__dev_copy(sbuf, h, sizeof h));
    for (int round = 0; round < 2; round++) { /* out of place, then in place */
        folds = 0;
        T_OK(shmc_allreduce(round ? SHMC_IN_PLACE : sbuf, round ? sbuf : rbuf, RUNNERS_COUNT,
                            SHMC_INT32, SHMC_SUM, w));
        T_OK(shmc__dev_copy(h, round ? sbuf : rbuf, sizeof h));
        for (int i = 0; i < RUNNERS_COUNT; i++)
            T_ASSERT(h[i] == n * (n + 1) / 2 * (i + 1), "gpus %d: element %d is %d", gpus, i, h[i]);
        /* The lowest rank on each GPU runs; its blocks are those of ranks me, me + gpus,
         * ...: one run when gpus is 1, else one kernel per block. */
        int want = me >= gpus ? 0 : gpus == 1 ? 1 : (n - me + gpus - 1) / gpus;
        T_ASSERT(folds == want, "gpus %d: rank %d ran %d kernels, not %d", gpus, me, folds, want);
    }
    shmc__dev_free(sbuf);
    shmc__dev_free(rbuf);
}

START_TEST(test_devdirect_runners)
{
    static const char *const one[] = {"SHMC_FAKE_DEVICE=1", "SHMC_ALGO_ALLREDUCE=direct", NULL};
    static const char *const two[] = {"SHMC_FAKE_DEVICE=gpus:2", "SHMC_ALGO_ALLREDUCE=direct",
                                      NULL};
    static const char *const four[] = {"SHMC_FAKE_DEVICE=gpus:4", "SHMC_ALGO_ALLREDUCE=direct",
                                       NULL};
    struct shmct_opts o1 = {.env = one}, o2 = {.env = two}, o4 = {.env = four};
    ck_assert_int_eq(shmct_run_opts(4, runners, (void *)1, &o1), 0);
    ck_assert_int_eq(shmct_run_opts(4, runners, (void *)2, &o2), 0);
    ck_assert_int_eq(shmct_run_opts(4, runners, (void *)4, &o4), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("devdirect");
    TCase *t = tcase_create("devdirect");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_devdirect_waits_for_kernels);
    tcase_add_test(t, test_devdirect_runners);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
