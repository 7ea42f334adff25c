/*
 * The world's nonblocking collectives on the world's own shared memory (nbworld.c): the
 * one-step rounds (wsync.c, wround.c) and the staging buffers (stage.c), entered without
 * waiting and moved along by progress, on a lane of their own (coll.h).
 */
#ifndef SHMC_NBWORLD_H
#define SHMC_NBWORLD_H

#include <stddef.h>
#include <stdint.h>

#include "base/list.h"
#include "base/userop.h"
#include "coll/cx.h"
#include "coll/wsync.h"

/* Which nonblocking calls on the world run by its rounds (shmc__nbw_takes): every
 * collective of equal blocks whose call fits one round (a round carries
 * SHMC_WSYNC_BYTES of each rank: wround.h), at 2 ranks beyond
 * SHMC_NBW_TWO_ROUND_ANY of data in all only where the blocking call's rule gives `shm`
 * too (its own rounds or slots; where it exchanges messages, a schedule of the same
 * messages led beyond that, docs/collectives.md); barriers and all-reduces as
 * dispatch.c picks for the blocking call; and at 2 ranks, in as many rounds as the call
 * needs, a reduce, broadcast, gather or scatter where the blocking call's rule gives `shm`,
 * and beyond 2 ranks so a reduce-scatter (whose schedule is a ring of n - 1 steps that each
 * wait for a neighbour's turn on a CPU when ranks share cores) and an all-gather (whose
 * schedule sends each block to every member); each round carries SHMC_WSYNC_BYTES
 * (so a rooted call of megabytes takes fewer synchronisations than a schedule's messages
 * take round trips, and needs no single copy); where the rule
 * gives messages, so does the schedule, whose sender does not wait for every rank's entry
 * (docs/collectives.md has the measurements). Beyond them a schedule of messages
 * leads (a single copy of each block, or pieces that pipeline), and more so when the two
 * ranks' CPUs are far apart (bench/line_rtt's slow state), where each round costs a slow
 * line's round trip; the all-to-all's of several rounds (one round of messages as a
 * schedule) loses to its own already (the reduce-scatter's ring is one exchange at 2
 * ranks, nbc.h). A round
 * waits for every rank, where the rooted schedules' messages and the blocking calls wait
 * for the root alone: with more ranks than cores that costs the rooted calls several times
 * the schedule, and
 * whether ranks share cores is not known alike on every member, so beyond 2 ranks the
 * rooted calls take no rounds at all, but the lane's slots where they fit (nbslot.h;
 * docs/collectives.md has the measurements). */
#define SHMC_NBW_TWO_ROUND_ANY ((size_t)2 << 10)

/* What shmc__nbw_takes says, worked out. While no algorithm is forced two kinds of call
 * are answered from what this found before, without it: of a collective found never to
 * take the lane on x's communicator (its lane_none), and a call on the world, of host
 * memory and a built-in op, with the bytes and element size of one of the collective's
 * last two calls of different sizes worked out here (co->lane_last: the way depends on
 * nothing else then, and programs repeat their calls). Working it out was a good part of
 * a small call's start (the commits that made these have the figures). */
int shmc__nbw_way(int coll, const struct shmc__cx *x, size_t count, size_t bytes);
static_assert(SHMC_LANE_LAST == 2, "shmc__nbw_takes and shmc__nbw_way keep two entries");

/* Does a nonblocking call x of collective coll (any SHMC_C_*) of count elements run here,
 * and how: a positive way for shmc__nbw_start; or no, a schedule of messages runs it:
 * SHMC_NBW_GATED behind a gate (shmc__nbw_gate), 0 without.
 * The same answer on every member that made the same call (it depends on the
 * communicator, the call and the configuration only). Not to be asked for a persistent
 * collective, which schedules match by the number it was made with (shmc_coll_as). */
#define SHMC_NBW_GATED (-1)
static inline int shmc__nbw_takes(int coll, const struct shmc__cx *x, size_t count, size_t bytes)
{
    if ((unsigned)coll < SHMC_C_COUNT && x->co->algo[coll] == SHMC_A_AUTO) {
        if (x->cc->lane_none >> coll & 1)
            return 0;
        /* (the latest size first; the one before where it is not this one's) */
        const struct shmc__lane_last *last = x->co->lane_last[coll];
        if (last->es != x->es || last->bytes != bytes)
            last++;
        if (last->es == x->es && last->bytes == bytes && !x->dev && !shmc__op_user(x->op) &&
            shmc__cx_world(x))
            return last->how ? last->how : x->co->check ? SHMC_NBW_GATED : 0;
    }
    return shmc__nbw_way(coll, x, count, bytes);
}
/* Starts it the way `how` said as *x->nb (sbuf may equal rbuf). SHMC_OK, SHMC_ERR_NOMEM,
 * or the world's collectives' failure. */
int shmc__nbw_start(int how, int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf,
                    size_t count);
/* Starts a nonblocking barrier x on the world whose algorithm is `shm`
 * (shmc__coll_barrier_algo), where shmc__nbw_takes sends it, as *x->nb: the same as
 * shmc__nbw_start would. */
int shmc__nbw_barrier(const struct shmc__cx *x);

/* The lane's calls: one more started, by a schedule (sched) or not, counted in this rank's
 * word of calls (shm/arena.h), where a rank waiting in a round of that call finds it ran
 * as a schedule (wsync.c). Its number. */
static inline uint64_t shmc__nbw_lane_call(struct shmc__coll *co, int sched)
{
    shmc_atomic_u64 *word = shmc__wsync_calls(co->lane[SHMC_LANE_NB].wsync);
    /* (relaxed: only this rank writes it; release: the word is all its readers read) */
    uint64_t c = shmc__load_relaxed64(word), mask = ((uint64_t)1 << SHMC_WSYNC_CALLS_BITS) - 1;
    uint64_t calls = (c >> SHMC_WSYNC_CALLS_BITS) + 1;
    shmc__store_release64(word,
                          calls << SHMC_WSYNC_CALLS_BITS | ((c << 1 | (uint64_t)sched) & mask));
    return calls;
}
/* The gate beside calls of the lane that are queued, or beyond 2 ranks (nbworld.c). */
int shmc__nbw_gate_queued(const struct shmc__cx *x, int coll, size_t count);
/* A nonblocking call on the world that runs as a schedule, of a collective that may run
 * by rounds at this rank count with another count, passes the gate: at 2 ranks and beyond,
 * but for the rooted calls there, it counts as one of the lane's calls, marked as run by a
 * schedule in this rank's word of calls (shm/arena.h), one store to a line of its own. A
 * member whose same call went by rounds (another count) waits in a round this rank never
 * enters; while it waits it reads that word (wsync.c), finds the call ran as a schedule
 * here, ends with SHMC_ERR_MISMATCH and quits the world's collectives, declining the
 * schedule's messages to it, and this rank's schedule fails on its quitting: without it
 * each would wait for the other for ever. The rooted calls beyond 2 ranks take the
 * slots' gate instead (nbslot.h) past the slots' limit. Collectives that never run by
 * rounds at this rank count (the v-forms, scans) take none: a member's same call never
 * goes by rounds either, and a rank that called another collective there
 * is named by the hang report and bounded by the world's time-out, as for blocking calls.
 * coll (SHMC_C_*) and count: the call's words, which x carries already (x->call, x->hash:
 * entry.h, schedule_words, as its schedule's messages do). Only for a call that
 * shmc__nbw_takes said SHMC_NBW_GATED of: none with SHMC_CHECK=0 (no words to compare),
 * nor for a persistent collective (matched by the number it was made with, not the order
 * started, so it must not take a place in the lane). SHMC_OK, SHMC_ERR_NOMEM, or the
 * world's collectives' failure.
 * At 2 ranks with no call of the lane queued it is only the mark in the word of calls:
 * inlined, since every small rooted call there passes it where the machine is far (the
 * rules give the rounds to larger ones), and a call of its own cost it a frame. */
static inline int shmc__nbw_gate(const struct shmc__cx *x, int coll, size_t count)
{
    if (x->n == 2 && shmc__list_empty(&x->co->nbw)) {
        shmc__nbw_lane_call(x->co, 1);
        return SHMC_OK;
    }
    return shmc__nbw_gate_queued(x, coll, count);
}
/* Frees what nonblocking calls still in flight hold (shmc_finalize). */
void shmc__nbw_release(struct shmc__coll *co);

/* One staged all-reduce in steps (stage.c). */
struct shmc__stage_run {
    const struct shmc__cx *x;
    const uint8_t *in;
    uint8_t *out;
    size_t count;
    size_t e;   /* the current chunk's first element */
    unsigned b; /* its staging buffer */
    int phase;  /* 0: copy in; 1: round a entered; 2: round b entered */
    int stream; /* the staging buffers written by streaming stores (`stream`) */
    struct shmc__wsync_look look;
};
/* What shmc__stage_step ends with when the world cannot use the staging buffers (some
 * rank could not reserve them); every rank learns it in the same round, having written
 * nothing that another reads. */
#define SHMC_STAGE_REFUSED 1
/* Moves s along without waiting: 1 once the call has ended (*rc: SHMC_OK, an error, or
 * SHMC_STAGE_REFUSED), 0 while it waits for a round. */
int shmc__stage_step(struct shmc__stage_run *s, int *rc);

/* One direct all-reduce in steps (direct.c). */
struct shmc__direct_run {
    const struct shmc__cx *x;
    const uint8_t *in;
    uint8_t *out;
    size_t count;
    int phase; /* 0: not begun; 1, 2, 3: round r1, r2, r3 entered; SHMC_DIRECT_SETTLING */
    struct shmc__wsync_look look; /* of the round entered last */
};
/* Its phase after a round failed: it ends once no rank can write into its buffers. */
#define SHMC_DIRECT_SETTLING 4
/* What shmc__direct_step ends with when some rank cannot read every other with single
 * copy (yet): every rank learns it in round r1, having written nothing another reads. */
#define SHMC_DIRECT_REFUSED 2
/* Moves d along without waiting: 1 once the call has ended (*rc: SHMC_OK, an error, or
 * SHMC_DIRECT_REFUSED), 0 while it waits for a round. */
int shmc__direct_step(struct shmc__direct_run *d, int *rc);

#endif /* SHMC_NBWORLD_H */
