/*
 * The monotonic clock, in nanoseconds: deadlines, hang reports, time since a rank blocked.
 */
#ifndef SHMC_CLOCK_H
#define SHMC_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t shmc__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif /* SHMC_CLOCK_H */
