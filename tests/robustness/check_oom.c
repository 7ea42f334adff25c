/*
 * Out of memory while communicators are made: shmc_comm_split and shmc_comm_create_group
 * with one rank's malloc failing (refuse_malloc.h) return SHMC_ERR_NOMEM on every rank,
 * and no rank is left with the new communicator; the parent, and a later split, work.
 *
 * The library's own rules for memory inside calls are unit tests of the modules that keep
 * them: a queued control record needs none (tests/unit/check_outq.c), and a collective
 * never allocates once its data moves (tests/unit/check_scratch.c).
 */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "refuse_malloc.h"

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
        T_ASSERT(c == NULL && shmct_stat("comms") == 0, "round %d: a communicator was left", round);
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

static Suite *oom_suite(void)
{
    Suite *s = suite_create("oom");
    TCase *t = tcase_create("malloc");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_oom_comm_creation);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(oom_suite());
}
