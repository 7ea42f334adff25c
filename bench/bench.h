/*
 * Helpers shared by the benchmarks: the clock, sorting samples, and stopping the job on
 * a failed call.
 */
#ifndef SHMC_BENCH_H
#define SHMC_BENCH_H

#include <shmcomm.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != SHMC_OK) {                                                                      \
            fprintf(stderr, "%s: %s\n", #call, shmc_strerror(rc_));                                \
            shmc_abort(1);                                                                         \
        }                                                                                          \
    } while (0)

#include "timing.h"

#endif
