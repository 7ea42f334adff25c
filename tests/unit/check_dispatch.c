/*
 * Unit test of coll/dispatch.c's tables: the algorithms it can run are exactly those
 * base/algos.c accepts in SHMC_ALGO_* (both expand base/algos.h's list: shmrun checks the
 * variables with the latter, the library runs the former), and device calls have a
 * descriptor for every algorithm a device call can be given.
 */
#include <check.h>
#include <string.h>

#include "coll/dispatch.h"
#include "harness.h"

START_TEST(test_dispatch_matches_config)
{
    int n = 0;
    for (int c = 0; c < SHMC_C_COUNT; c++) {
        for (int a = SHMC_A_AUTO + 1; a < SHMC_A_COUNT; a++) {
            const struct shmc__coll_algo *d = shmc__coll_algo(c, a, 0);
            ck_assert_msg((d != NULL) == (shmc__algo_valid(c, a) != 0),
                          "%s/%s: runnable %d, accepted by the configuration %d",
                          shmc__coll_names[c], shmc__algo_names[a], d != NULL,
                          shmc__algo_valid(c, a));
            if (!d)
                continue;
            n++;
            ck_assert_ptr_nonnull(d->run);
            /* A device call runs only the algorithms that take device buffers
             * (base/algos.h), and each of those has a device descriptor. */
            if (shmc__algo_device(a))
                ck_assert_ptr_nonnull(shmc__coll_algo(c, a, 1));
        }
        ck_assert_ptr_null(shmc__coll_algo(c, SHMC_A_AUTO, 0));
    }
    ck_assert_int_eq(n, 37); /* 38 descriptors: these, and the device all-reduce */
    /* Those that stage through host memory take no device buffers. */
    ck_assert(!shmc__algo_device(SHMC_A_SHM) && !shmc__algo_device(SHMC_A_STAGE) &&
              !shmc__algo_device(SHMC_A_STREAM) && !shmc__algo_device(SHMC_A_AUTO));
    ck_assert(shmc__algo_device(SHMC_A_TREE) && shmc__algo_device(SHMC_A_RING));
    ck_assert_ptr_null(shmc__coll_algo(SHMC_C_COUNT, SHMC_A_TREE, 0));
    /* The device all-reduce of every member's mapped buffers is its own algorithm. */
    ck_assert_ptr_ne(shmc__coll_algo(SHMC_C_ALLREDUCE, SHMC_A_DIRECT, 1),
                     shmc__coll_algo(SHMC_C_ALLREDUCE, SHMC_A_DIRECT, 0));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dispatch");
    TCase *t = tcase_create("tables");
    tcase_add_test(t, test_dispatch_matches_config);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
