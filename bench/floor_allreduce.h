/*
 * The 4-process all-reduce floors of bench/limits (floor_allreduce.c).
 */
#ifndef SHMC_BENCH_FLOOR_ALLREDUCE_H
#define SHMC_BENCH_FLOOR_ALLREDUCE_H

#include <sched.h>
#include <stddef.h>

/* Forks three more processes on `all`, prints the rows, waits for them. Sizes 4 B to
 * min(max, 16 MiB) by fours, as the 4-rank collectives of bench-compare. */
void allreduce_floors(const cpu_set_t *all, size_t max, int samples, double sample_s);

#endif
