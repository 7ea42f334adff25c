/*
 * Lingering in a nonblocking collective's start (linger.h).
 *
 * A small call started and waited for at once, as programs that run collectives
 * asynchronously often do (a framework's async_op followed by its wait), used to return
 * from its start with its round open whenever the other members' entries had not yet
 * arrived: it then made a request, and its wait went through the progress engine, so
 * that it noticed the round's end later than the blocking call's wait does. Near, that
 * put such calls well behind the blocking call (the commit that added this has the
 * figures). Where the other members started the same call as this rank did, their
 * entries are under way: one trip of a cache line for each line's move, and the ranks'
 * paths differ by as much again. So the start looks again for SHMC_LINGER_RTTS round
 * trips (measured at start-up, shm/arena.h), and a receive as long again as its sender
 * takes to copy the block (linger.h), restarting the span each time the call moves on
 * (a call of several rounds), and a call over by then ends in its start.
 *
 * A program that computes between its starts and its waits would lose that time at each
 * start: a linger that found nothing makes the next calls skip it, as many as the
 * lingers that found nothing in a row say (1, 2, 4, ... up to SKIP_MAX), so such a
 * program pays one linger in SKIP_MAX calls once it has settled; a linger that saw its
 * call end clears them. Lingering spins no more than the wait policy would before
 * yielding (SHMC_SPIN: not at all with SHMC_SPIN=0, one look where CPUs are shared).
 */
#include "coll/linger.h"

#include "base/atomics.h"
#include "base/clock.h"
#include "p2p/p2p.h"
#include "shm/arena.h"

#define SHMC_LINGER_RTTS 2u
#define SKIP_MAX 64u

/* (per process: every start that lingers runs under the process's call guard,
 * shmc__big, one at a time) */
static unsigned skip, missed;

int shmc__linger(const struct shmc__coll *co, int (*step)(void *arg), void *arg,
                 uint64_t more_ns)
{
    if (skip) {
        skip--;
        return 0;
    }
    uint64_t end = 0, span = (uint64_t)co->arena->line_rtt_ns * SHMC_LINGER_RTTS + more_ns;
    /* The clock read every fourth look: a read costs as much as a few looks. */
    for (unsigned i = 0; i < co->p2p->spin; i++) {
        shmc__cpu_relax();
        int s = step(arg);
        if (s == SHMC_LINGER_OVER) {
            missed = 0;
            return 1;
        }
        if (s == SHMC_LINGER_MOVED)
            end = 0;
        if ((i & 3) == 3) {
            uint64_t t = shmc__now_ns();
            if (!end)
                end = t + span;
            else if (t >= end)
                break;
        }
    }
    missed = missed ? 2 * missed : 1;
    if (missed > SKIP_MAX)
        missed = SKIP_MAX;
    skip = missed;
    return 0;
}
