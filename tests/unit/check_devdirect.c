/*
 * Unit test of coll/devdirect.c's end when a member fails: each member's kernel writes
 * its block of the result into every member's output buffer, so a member whose barrier
 * fails (another member quit) must not return while a third is still in its kernel,
 * writing into the buffer it is about to hand back.
 *
 * On the test backend (SHMC_FAKE_DEVICE=1, whose "device" memory is shared memfds that
 * peers really write into), at 3 ranks with the device all-reduce forced: the kernel
 * is wrapped at link time (-Wl,--wrap=shmc__dev_reduce_fold, Makefile). Rank 1 quits the
 * world's collectives instead of running it; rank 2 runs it 300 ms late; rank 0 runs it
 * at once. Rank 0's all-reduce fails, and when it returns, rank 2's block of its output
 * must already hold rank 2's result and nothing may change afterwards. On the world
 * (whose barrier is a world round) and on a communicator of all its ranks (slots).
 */
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

int __real_shmc__dev_reduce_fold(const void *const *ins, int nin, void *const *outs, int nout,
                                 size_t n, shmc_dtype dt, shmc_op op);
int __wrap_shmc__dev_reduce_fold(const void *const *ins, int nin, void *const *outs, int nout,
                                 size_t n, shmc_dtype dt, shmc_op op);
int __wrap_shmc__dev_reduce_fold(const void *const *ins, int nin, void *const *outs, int nout,
                                 size_t n, shmc_dtype dt, shmc_op op)
{
    const char *r = getenv("SHMC_RANK");
    int me = r ? atoi(r) : -1;
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
    static const char *const env[] = {"SHMC_FAKE_DEVICE=1", "SHMC_ALGO_ALLREDUCE=direct", NULL};
    struct shmct_opts o = {.env = env};
    ck_assert_int_eq(shmct_run_opts(3, late_kernel, NULL, &o), 0);
    ck_assert_int_eq(shmct_run_opts(3, late_kernel, (void *)1, &o), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("devdirect");
    TCase *t = tcase_create("devdirect");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_devdirect_waits_for_kernels);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
