/*
 * Unit test of the waits' extra spin (p2p/wait.c): where ranks have a CPU each, a wait
 * that slept and was woken soon after its spin ran out makes the waits after it spin
 * longer before sleeping (so that two ranks cannot both sleep in every call while
 * wake-ups are slow), a wait that the extra spin covers does not sleep, and one that
 * slept long sets the extra spin back to none; where ranks share CPUs, or SHMC_SPIN_MORE=0
 * says so, there is none.
 */
#include <check.h>
#include <unistd.h>

#include "harness.h"
#include "p2p/p2p.h"

START_TEST(test_spin_more_next)
{
    const uint64_t max = 5000000; /* a bound of 5 ms */
    /* No sleep: unchanged. */
    ck_assert_uint_eq(shmc__spin_more_next(0, 0, 123456, max), 0);
    ck_assert_uint_eq(shmc__spin_more_next(777, 0, 999999999, max), 777);
    /* Woken soon: twice the wait, at most the bound (which a long wait meets). */
    ck_assert_uint_eq(shmc__spin_more_next(0, 1, 1000, max), 2000);
    ck_assert_uint_eq(shmc__spin_more_next(0, 1, 3000000, max), max);
    ck_assert_uint_eq(shmc__spin_more_next(0, 1, max, max), 0); /* as long as the bound: long */
    uint64_t most = 0;
    for (uint64_t w = 1000; w < 100000000; w *= 2) {
        uint64_t next = shmc__spin_more_next(0, 1, w, max);
        if (next == 0) /* from here the waits are long */
            break;
        ck_assert_uint_ge(next, w); /* covers a wait as long again */
        ck_assert_uint_le(next, max);
        most = next > most ? next : most;
    }
    ck_assert_uint_eq(most, max);
    /* Slept long: none, whatever it was. */
    ck_assert_uint_eq(shmc__spin_more_next(most, 1, 1000000000, max), 0);
}
END_TEST

/* Rank 0 sends after staying out of the library for `away` microseconds; rank 1, which
 * spins for 20 polls and yields not at all, waits in its receive. Rank 1's extra spin
 * just after that receive, and in *slept how many full 50 ms slices the receive slept
 * (0 on rank 0). */
static uint64_t late_send(shmc_comm *w, int me, unsigned away, uint64_t *slept)
{
    int v = me;
    uint64_t more = 0, s0 = 0, s1 = 0;
    if (me == 0) {
        usleep(away);
        T_OK(shmc_send(&v, 1, SHMC_INT32, 1, 1, w));
    } else {
        T_OK(shmc_stat("slices_slept", &s0));
        T_OK(shmc_recv(&v, 1, SHMC_INT32, 0, 1, w, NULL));
        more = shmc__p2p.spin_more_ns;
        T_OK(shmc_stat("slices_slept", &s1));
    }
    if (slept)
        *slept = s1 - s0;
    T_OK(shmc_barrier(w));
    return more;
}

static void adapts(shmc_comm *w, int me, int n, void *arg)
{
    (void)n, (void)arg;
    T_ASSERT(shmc__p2p.spin_more_max_ns > 0, "rank %d: a CPU each, yet no extra spin", me);
    /* Woken half a millisecond in: an extra spin from then on (a try whose wake-up came
     * later than the extra spin's bound counts as a long wait: many tries). */
    int grew = 0;
    for (int k = 0; k < 64 && !grew; k++) {
        uint64_t more = late_send(w, me, 500, NULL);
        grew = me == 0 || more > 0;
        T_OK(shmc_allreduce(SHMC_IN_PLACE, &grew, 1, SHMC_INT32, SHMC_MIN, w));
    }
    T_ASSERT(grew, "rank %d: no extra spin after waits woken half a millisecond in", me);
    /* With an extra spin longer than the wait, rank 1 spins through it: no slice slept
     * (without it, 100 ms would be two). */
    uint64_t keep = shmc__p2p.spin_more_ns, slept = 0;
    if (me == 1)
        shmc__p2p.spin_more_ns = 10000000000ull;
    late_send(w, me, 100000, &slept);
    T_ASSERT(slept == 0, "rank 1 slept %llu slices of a wait its extra spin covered",
             (unsigned long long)slept);
    shmc__p2p.spin_more_ns = keep;
    /* A wait that slept whole slices (it ended long after the bound): none again. A rank
     * 1 that came to its receive late and did not sleep tries again. */
    int reset = 0;
    for (int k = 0; k < 8 && !reset; k++) {
        uint64_t more = late_send(w, me, 200000, &slept);
        reset = me == 0 || (slept > 0 && more == 0);
        int again = me == 1 && slept == 0;
        T_OK(shmc_allreduce(SHMC_IN_PLACE, &again, 1, SHMC_INT32, SHMC_MAX, w));
        T_ASSERT(reset || again, "rank %d: extra spin after a wait that slept long", me);
        if (!again)
            break;
    }
}

/* No extra spin: where ranks share a CPU (arg NULL), or where SHMC_SPIN_MORE=0 turns it
 * off (arg names the case). Rank 1 is woken after each of several short waits, which
 * would make an extra spin. */
static void none(shmc_comm *w, int me, int n, void *arg)
{
    (void)n;
    const char *why = arg ? arg : "ranks share a CPU";
    T_ASSERT(shmc__p2p.spin_more_max_ns == 0, "rank %d: %s, yet an extra spin", me, why);
    for (int k = 0; k < 8; k++)
        T_ASSERT(late_send(w, me, 2000, NULL) == 0 && shmc__p2p.spin_more_ns == 0,
                 "rank %d: extra spin where %s", me, why);
}

START_TEST(test_spin_adapts)
{
    static const char *const own[] = {"SHMC_CPUS=2", "SHMC_SPIN=20", "SHMC_YIELD=0", NULL};
    static const char *const shared[] = {"SHMC_CPUS=1", "SHMC_SPIN=20", "SHMC_YIELD=0", NULL};
    static const char *const off[] = {"SHMC_CPUS=2", "SHMC_SPIN=20", "SHMC_YIELD=0",
                                      "SHMC_SPIN_MORE=0", NULL};
    struct shmct_opts o = {.env = own};
    ck_assert_int_eq(shmct_run_opts(2, adapts, NULL, &o), 0);
    o.env = shared;
    ck_assert_int_eq(shmct_run_opts(2, none, NULL, &o), 0);
    o.env = off;
    ck_assert_int_eq(shmct_run_opts(2, none, "SHMC_SPIN_MORE=0", &o), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("spin");
    TCase *t = tcase_create("spin");
    tcase_set_timeout(t, 60);
    tcase_add_checked_fixture(t, shmct_shm_snapshot, shmct_shm_verify);
    tcase_add_test(t, test_spin_more_next);
    tcase_add_test(t, test_spin_adapts);
    suite_add_tcase(s, t);
    return shmct_main(s);
}
