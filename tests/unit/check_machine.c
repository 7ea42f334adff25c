/*
 * Unit test of what the library finds about the machine (base/machine.h): the cache
 * line's round trip between the first two CPUs, 0 where there is one CPU to run on, and
 * what a job records (assumed, none for one rank, else measured).
 */
#define _GNU_SOURCE
#include <check.h>
#include <sched.h>

#include "base/machine.h"
#include "harness.h"

START_TEST(test_machine_line_rtt)
{
    cpu_set_t all, one;
    ck_assert_int_eq(sched_getaffinity(0, sizeof all, &all), 0);
    if (CPU_COUNT(&all) >= 2) {
        /* Measured, or 0 where the two threads never ran at once (a busy machine); per
         * round trip, not per batch: a batch of 64 within one try's 2 ms. */
        unsigned rtt = shmc__line_rtt_measure();
        ck_assert_msg(rtt <= 2000000 / 64, "%u ns", rtt);
        ck_assert_uint_le(shmc__line_rtt(0, 2), 2000000 / 64);
    }
    /* One CPU: nothing to measure between. */
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &all)) {
            CPU_SET(c, &one);
            break;
        }
    ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);
    ck_assert_uint_eq(shmc__line_rtt_measure(), 0);
    ck_assert_int_eq(sched_setaffinity(0, sizeof all, &all), 0);
    /* What a job records. */
    ck_assert_uint_eq(shmc__line_rtt(250, 4), 250);
    ck_assert_uint_eq(shmc__line_rtt(0, 1), 0);
}
END_TEST

static Suite *machine_suite(void)
{
    Suite *s = suite_create("machine");
    TCase *t = tcase_create("machine");
    tcase_add_test(t, test_machine_line_rtt);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(machine_suite());
}
