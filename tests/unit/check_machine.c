/*
 * Unit test of what the library finds about the machine (base/machine.h): what its first
 * two CPUs cost each other (the cache line's round trip, a single copy against a plain
 * one), 0s where there is one CPU to run on, and what a job records (each figure assumed,
 * none for one rank, else measured), and how it names the machine to a tuning file.
 */
#include <check.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The description names the CPUs' family and model beside their name, since a hypervisor
 * may give CPUs of two generations one name, and a tuning file made on one must not serve
 * the other. (The reader it uses is tested on a file of its own below.) */
START_TEST(test_machine_desc)
{
    char desc[512], name[256], family[32], model[32], want[400];
    shmc__machine_desc(desc, sizeof desc);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (!shmc__cpuinfo_at("/proc/cpuinfo", "model name", name, sizeof name))
        snprintf(name, sizeof name, "unknown CPU");
    if (shmc__cpuinfo_at("/proc/cpuinfo", "cpu family", family, sizeof family) &&
        shmc__cpuinfo_at("/proc/cpuinfo", "model", model, sizeof model))
        snprintf(want, sizeof want, "%s (family %s, model %s), %ld CPU%s", name, family, model,
                 n, n == 1 ? "" : "s");
    else
        snprintf(want, sizeof want, "%s, %ld CPU%s", name, n, n == 1 ? "" : "s");
    ck_assert_str_eq(desc, want);
    /* Cut short, still a string. */
    shmc__machine_desc(desc, 8);
    ck_assert_uint_eq(strlen(desc), 7);
}
END_TEST

/* The reader takes a key whole whatever the order of the lines: "model" after "model
 * name", keys ending in tabs, a key that begins another. */
START_TEST(test_machine_cpuinfo_keys)
{
    char path[] = "/tmp/shmct_cpuinfo_XXXXXX", v[64];
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    static const char text[] = "processor\t: 0\nmodel name\t: Fake CPU 9000\n"
                               "cpu family\t: 26\nmodel\t\t: 2\ncpu MHz\t\t: 1.0\n";
    ck_assert_int_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    static const char *const want[][2] = {{"model", "2"},
                                          {"model name", "Fake CPU 9000"},
                                          {"cpu family", "26"},
                                          {"processor", "0"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ck_assert_int_eq(shmc__cpuinfo_at(path, want[i][0], v, sizeof v), 1);
        ck_assert_str_eq(v, want[i][1]);
    }
    ck_assert_int_eq(shmc__cpuinfo_at(path, "cpu", v, sizeof v), 0);
    ck_assert_int_eq(shmc__cpuinfo_at(path, "stepping", v, sizeof v), 0);
    unlink(path);
    ck_assert_int_eq(shmc__cpuinfo_at(path, "model", v, sizeof v), 0);
}
END_TEST

static Suite *machine_suite(void)
{
    Suite *s = suite_create("machine");
    TCase *t = tcase_create("machine");
    tcase_add_test(t, test_machine_pair);
    tcase_add_test(t, test_machine_desc);
    tcase_add_test(t, test_machine_cpuinfo_keys);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    return shmct_main(machine_suite());
}
