/*
 * Unit test of what the library finds about the machine (base/machine.h): what its first
 * two CPUs cost each other (the cache line's round trip, a single copy against a plain
 * one), 0s where there is one CPU to run on, and what a job records (each figure assumed,
 * none for one rank, else measured).
 */
#define _GNU_SOURCE
#include <check.h>
#include <sched.h>

#include "base/machine.h"
#include "harness.h"

START_TEST(test_machine_pair)
{
    cpu_set_t all, one;
    struct shmc__pair_cost pc;
    ck_assert_int_eq(sched_getaffinity(0, sizeof all, &all), 0);
    if (CPU_COUNT(&all) >= 2) {
        /* Measured, or 0 where the two threads never ran at once (a busy machine); per
         * round trip, not per batch: a batch of 64 within one try's 3 ms. The copies
         * follow the round trip in the same try: none without it. */
        shmc__pair_measure(&pc);
        ck_assert_msg(pc.rtt_ns <= 3000000 / 64, "%u ns", pc.rtt_ns);
        ck_assert_msg(pc.rtt_ns || !pc.sc_pct, "%u%% without a round trip", pc.sc_pct);
        ck_assert_uint_le(pc.sc_pct, 1000000);
        shmc__pair_cost(0, 0, 2, &pc);
        ck_assert_uint_le(pc.rtt_ns, 3000000 / 64);
    }
    /* One CPU: nothing to measure between. */
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all)) {
            CPU_SET(c, &one);
            break;
        }
    ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);
    shmc__pair_measure(&pc);
    ck_assert_uint_eq(pc.rtt_ns, 0);
    ck_assert_uint_eq(pc.sc_pct, 0);
    /* What a job records (assumed round trip, assumed cost, ranks -> the figures), still
     * on one CPU: one figure assumed and the other measured (here 0), both assumed, or
     * nothing for one rank. */
    static const unsigned jobs[][5] = {
        {250, 0, 4, 250, 0}, {0, 300, 4, 0, 300}, {250, 300, 4, 250, 300}, {0, 0, 1, 0, 0}};
    for (size_t i = 0; i < sizeof jobs / sizeof jobs[0]; i++) {
        shmc__pair_cost(jobs[i][0], jobs[i][1], jobs[i][2], &pc);
        ck_assert_msg(pc.rtt_ns == jobs[i][3] && pc.sc_pct == jobs[i][4], "job %zu: %u ns, %u%%",
                      i, pc.rtt_ns, pc.sc_pct);
    }
    ck_assert_int_eq(sched_setaffinity(0, sizeof all, &all), 0);
}
END_TEST

static Suite *machine_suite(void)
{
    Suite *s = suite_create("machine");
    TCase *t = tcase_create("machine");
    tcase_add_test(t, test_machine_pair);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(machine_suite());
}
