/*
 * The round trip of a cache line between ranks 0 and 1 of a job, measured between a
 * benchmark's samples (coll_bench --by-state). On a shared host the hypervisor may run the
 * two vCPUs near each other or far apart, and switch every few seconds (bench/line_rtt,
 * docs/performance.md): the samples of one run then fall in both states, and each is told
 * by the round trips measured just before and just after it. The library classes its
 * job by one such measurement at start (SHMC_FAR_NS); this is the same measure, taken
 * again and again while the job runs.
 */
#ifndef SHMC_BENCH_PAIR_RTT_H
#define SHMC_BENCH_PAIR_RTT_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "bench.h"
#include "pair_line.h"

struct pair_rtt {
    shmc_win *win;
    _Atomic uint64_t *line; /* in rank 0's part of the window: one line, both ranks' */
    uint64_t next;          /* the value the next round trip starts from */
    int me, n;
    /* Round trips taken instead of measuring, in turn, one for each sample (both its
     * measures); none: measure. */
    unsigned assumed[8];
    int nassumed;
    unsigned calls;
};

/* Collective over w: the line shared by ranks 0 and 1. assumed: NULL to measure, or the
 * round trips to take instead, comma-separated, in turn sample by sample (tests: a state
 * that changes from sample to sample). */
static inline void pair_rtt_init(struct pair_rtt *p, shmc_comm *w, const char *assumed)
{
    void *mine, *base;
    size_t bytes, unit;
    p->me = shmc_comm_rank(w);
    p->n = shmc_comm_size(w);
    p->nassumed = 0;
    p->calls = 0;
    for (const char *a = assumed; a && *a && p->nassumed < 8; a += *a == ',') {
        char *end;
        p->assumed[p->nassumed++] = (unsigned)strtoul(a, &end, 10);
        a = end;
        if (*a && *a != ',')
            break;
    }
    p->next = 0;
    CHECK(shmc_win_allocate(p->me == 0 ? 128 : 0, 1, w, &mine, &p->win));
    CHECK(shmc_win_shared_query(p->win, 0, &bytes, &unit, &base));
    p->line = (_Atomic uint64_t *)(((uintptr_t)base + 63) & ~(uintptr_t)63);
}

static inline void pair_rtt_free(struct pair_rtt *p)
{
    CHECK(shmc_win_free(&p->win));
}

/* Ranks 0 and 1 (each calls it, in the same order; the others return at once): the
 * fastest of a few short batches of round trips, in nanoseconds, as rank 0 times it (a
 * batch in which either rank was off its CPU is not the fastest); 0 on the other ranks;
 * the assumed value, where there are some. */
static inline unsigned pair_rtt_measure(struct pair_rtt *p)
{
    unsigned k = p->calls++ / 2;
    if (p->nassumed)
        return p->assumed[k % (unsigned)p->nassumed];
    if (p->n < 2 || p->me > 1)
        return 0;
    return pair_line_measure(p->line, &p->next, p->me);
}

#endif
