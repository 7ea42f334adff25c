/*
 * Helpers shared by the benchmarks: the clock, sorting samples, and stopping the job on
 * a failed call.
 */
#ifndef SHMC_BENCH_H
#define SHMC_BENCH_H

#include <shmcomm.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != SHMC_OK) {                                                                      \
            fprintf(stderr, "%s: %s\n", #call, shmc_strerror(rc_));                                \
            shmc_abort(1);                                                                         \
        }                                                                                          \
    } while (0)

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v and returns its median. */
static inline double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
