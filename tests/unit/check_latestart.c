/*
 * Unit test of p2p/p2p.c's start: a rank that starts after the others already quit a
 * collective must still learn of it. On a machine with fewer cores than ranks, a rank
 * can be scheduled so late that the others, having entered a collective and failed it,
 * announced their quits before its first read of the job's epoch; it must not take that
 * epoch as "already seen" and then wait in the collective for ever.
 *
 * Rank 0 is held back at link time (-Wl,--wrap=shmc__job_wait_attached, the link line below): its
 * start waits until every other rank has published a quit of the world's collectives,
 * then goes on. Its next collective on the world must fail with the quitters' error.
 */
/* link: -Wl,--wrap=shmc__job_wait_attached */
#include <check.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "p2p/p2p.h"
#include "shm/job.h"

int __real_shmc__job_wait_attached(struct shmc__arena *a, unsigned timeout_s);
int __wrap_shmc__job_wait_attached(struct shmc__arena *a, unsigned timeout_s);
int __wrap_shmc__job_wait_attached(struct shmc__arena *a, unsigned timeout_s)
{
    int rc = __real_shmc__job_wait_attached(a, timeout_s);
    const char *r = getenv("SHMC_RANK");
    if (rc != SHMC_OK || !r || atoi(r) != 0)
        return rc;
    /* Every other rank's first quit word written (at most 10 s: the test then fails on
     * what it finds rather than waiting). */
    for (int tries = 0; tries < 10000; tries++) {
        unsigned q;
        for (q = 1; q < a->lay.nranks; q++)
            if (!shmc__job_quit_word(a, q, 0))
                break;
        if (q == a->lay.nranks)
            return rc;
        usleep(1000);
    }
    return rc;
}

static void late_start(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    if (me != 0) {
        /* What a member does on finding a mismatch: quit the world's collectives. */
        shmc__p2p_quit(&shmc__p2p, &shmc__p2p.comms.world, SHMC_ERR_MISMATCH);
        T_ASSERT(shmc_barrier(w) == SHMC_ERR_MISMATCH, "rank %d: the quit world still works", me);
        return;
    }
    T_ASSERT(shmc__job_quit_word(shmc__p2p.arena, 1, 0) != 0, "rank 0 was not held back");
    int rc = shmc_barrier(w);
    T_ASSERT(rc == SHMC_ERR_MISMATCH, "the late rank's barrier returned %s, want %s",
             shmc_strerror(rc), shmc_strerror(SHMC_ERR_MISMATCH));
    /* Point-to-point on the world is not quit: the job still talks. */
    int32_t v = 5;
    T_OK(shmc_send(&v, 1, SHMC_INT32, 1, 3, w));
}

static void late_start_peer(shmc_comm *w, int me, int n, void *arg)
{
    late_start(w, me, n, arg);
    if (me == 1) {
        int32_t v = 0;
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 0, 3, w, NULL));
        T_ASSERT(v == 5, "got %d", v);
    }
}

START_TEST(test_late_rank_sees_earlier_quits)
{
    ck_assert_int_eq(shmct_run(2, late_start_peer, NULL), 0);
    ck_assert_int_eq(shmct_run(4, late_start_peer, NULL), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("latestart");
    TCase *t = tcase_create("start");
    tcase_set_timeout(t, 30);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_late_rank_sees_earlier_quits);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
