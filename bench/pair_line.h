/*
 * The round trip of a cache line between ranks 0 and 1, as bench/line_rtt measures it
 * between two CPUs, taken between a benchmark's samples: the core of coll_bench's
 * --by-state (pair_rtt.h, over a window of shmcomm's) and of measure's --per-sample (over
 * a page of shared memory of its own, whatever the runtime). Needs only the clock.
 */
#ifndef SHMC_BENCH_PAIR_LINE_H
#define SHMC_BENCH_PAIR_LINE_H

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#include "timing.h"

/* Waits until *line holds v; a rank that is not on a CPU (more ranks than CPUs) is given
 * ours now and then. */
static inline void pair_line_await(_Atomic uint64_t *line, uint64_t v)
{
    for (unsigned k = 1; atomic_load_explicit(line, memory_order_acquire) != v; k++)
        if (!(k & 1023))
            sched_yield();
}

/* Ranks 0 and 1 (me), each calling it in turn with the same *next (both start at 0):
 * the fastest of a few short batches of round trips over line, in nanoseconds, as rank 0
 * times it (a batch in which either rank was off its CPU is not the fastest); 0 on rank
 * 1. */
static inline unsigned pair_line_measure(_Atomic uint64_t *line, uint64_t *next, int me)
{
    enum { BATCHES = 5, TRIPS = 40 };
    double best = 1.0;
    for (int b = 0; b < BATCHES; b++) {
        double t0 = now_s();
        for (int i = 0; i < TRIPS; i++, *next += 2) {
            if (me == 0) {
                atomic_store_explicit(line, *next + 1, memory_order_release);
                pair_line_await(line, *next + 2);
            } else {
                pair_line_await(line, *next + 1);
                atomic_store_explicit(line, *next + 2, memory_order_release);
            }
        }
        double t = (now_s() - t0) / TRIPS;
        best = t < best ? t : best;
    }
    return me == 0 ? (unsigned)(best * 1e9 + 0.5) : 0;
}

#endif
