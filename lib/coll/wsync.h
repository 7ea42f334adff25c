/*
 * The world communicator's one-step rounds (wsync.c).
 */
#ifndef SHMC_WSYNC_H
#define SHMC_WSYNC_H

#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"

/* The next round of lane l (every world collective that uses rounds takes one of its
 * kind's lane). */
static inline uint64_t shmc__wsync_next(struct shmc__lane *l)
{
    return ++l->round;
}

/* The blocking collectives' lane. */
static inline struct shmc__lane *shmc__wsync_blk(struct shmc__coll *co)
{
    return &co->lane[SHMC_LANE_BLOCKING];
}

/* Where a round's input of `bytes` in all starts in its half: in the round word's line
 * where it fits there (a reader that has loaded the word has it too), else at the next
 * line. The data of a part sits 8 bytes past a line, and a copy between memory whose
 * page offsets lie 1 to 63 bytes apart, the destination after the source, makes each
 * load wait for the stores just made at the same page offset: a rank that took a
 * round's data at that gap from a page-aligned buffer's partner fetched the far CPU's
 * lines one after another (the commit that made this has the figures). From a line
 * boundary the take's gap is benign for buffers at the page offsets allocators give
 * (0, 16). Every member computes the same from the same call. */
static inline size_t shmc__wsync_skip(size_t bytes)
{
    size_t in_line = SHMC_CACHELINE - offsetof(struct shmc__wsync, data);
    return bytes <= in_line ? 0 : in_line;
}
static_assert((offsetof(struct shmc__wsync, data) + SHMC_WSYNC_BYTES + SHMC_CACHELINE - 1) /
                          SHMC_CACHELINE * SHMC_CACHELINE >=
                      SHMC_CACHELINE + SHMC_WSYNC_BYTES,
              "a half's data from the line after its word still fits its part "
              "(shmc__wsync_part)");

/* Where this rank writes its input of `bytes` in all for round r of lane l, and where
 * world rank q's is. */
static inline uint8_t *shmc__wsync_mine(const struct shmc__lane *l, uint64_t r, size_t bytes)
{
    return shmc__wsync_data(l->wsync, (unsigned)(r & 1)) + shmc__wsync_skip(bytes);
}

static inline uint8_t *shmc__wsync_theirs(const struct shmc__coll *co, const struct shmc__lane *l,
                                          int q, uint64_t r, size_t bytes)
{
    return shmc__wsync_data(shmc__arena_wsync(co->arena, l->id, (unsigned)q), (unsigned)(r & 1)) +
           shmc__wsync_skip(bytes);
}

/* What a world round carries of a call with hash h (base/callword.h): bits 40-63, never
 * all 0 for a call; 0 for none (SHMC_CHECK=0). */
static inline uint64_t shmc__wsync_tag(uint64_t h)
{
    uint64_t t = h & ~SHMC_WSYNC_ROUND_MASK;
    return t || !h ? t : SHMC_WSYNC_ROUND_MASK + 1;
}

/* Enters world round r of the blocking lane (this rank's input for it already in its
 * half), publishing tag (shmc__wsync_tag) with the round number, and waits until every
 * other rank has entered it, comparing each one's tag, as it is seen to enter, with ours:
 * *odd is the first rank whose tag differs, or -1. SHMC_OK, or the error of a rank that
 * left first. */
int shmc__wsync_enter_call(struct shmc__coll *co, uint64_t r, uint64_t tag, int *odd);

/* A world round entered without waiting (the nonblocking collectives, nbworld.c): post
 * publishes this rank's entry as shmc__wsync_enter_call does and readies w; look says
 * whether the round is over: every other rank entered it (w->odd as *odd above), or one
 * never will (w->err set; this rank has quit the world's collectives then). */
struct shmc__wsync_look {
    struct shmc__coll *co;
    unsigned lane;
    uint64_t want;
    int next; /* the first rank not yet seen at `want` */
    int upto; /* (shmc__wsync_wait_rank's bound while it waits; 0: every rank) */
    int err;
    uint64_t tag; /* our call's hash in bits 40-63, to compare with each rank's; 0: none */
    int odd;      /* the first rank whose hash differs, or -1 */
    /* The nonblocking lane: the number of the call the round is for (lane->moving when
     * posted; 0: none), and the looks that found rank `next` short of it. A rank whose
     * same call runs as a schedule (it never enters the round) is found by its word of
     * calls (shm/arena.h), read every SHMC_WSYNC_CALLS_EVERY such looks: odd is that
     * rank then, with odd_sched set, and the round counts as over; odd_sched is set too
     * where a rank whose call differs entered the round after running an earlier call
     * as a schedule that this rank ran by rounds. */
    uint64_t call;
    unsigned misses;
    int odd_sched;
};
#define SHMC_WSYNC_CALLS_EVERY 32u
void shmc__wsync_post(struct shmc__coll *co, struct shmc__lane *l, uint64_t r, uint64_t tag,
                      struct shmc__wsync_look *w);
int shmc__wsync_look(struct shmc__wsync_look *w);
/* Waits until the round a post of the blocking lane readied w for is over: what
 * shmc__wsync_enter_call does after its post, for a call that has work of its own to do
 * between the two (onestep.h). */
int shmc__wsync_wait(struct shmc__wsync_look *w, int *odd);
/* Part of that wait: until world rank q, and every rank before it, has entered w's round
 * (those ranks' inputs are visible then), for a call that takes each rank's part as soon
 * as it is in, as the slots' readers do (a reduce's root combines rank 0's part while
 * rank 1 still writes its own). 1 when they have, with calls like ours; 0 when the round
 * failed or a rank's call differs: the caller stops taking, and shmc__wsync_wait, which
 * ends the round in every case, says how. */
int shmc__wsync_wait_rank(struct shmc__wsync_look *w, int q);
/* Has every rank not yet in w's round last run on another CPU than cpu (1 + CPU)? A
 * wait for the round spins rather than yield then (shm/doorbell.h). w: the look. */
int shmc__wsync_far(void *w, uint32_t cpu);
/* The same round entered as a barrier released by world rank 0: every other rank
 * publishes its entry and waits for rank 0 alone, which publishes its own only once it
 * has seen all of them. Rank 0 leaves first, so a rooted collective from it that follows
 * (a broadcast, a scatter) is under way before the others arrive, and they wait on one
 * line instead of n - 1 (docs/collectives.md says when this form is used). The tags are
 * compared by every member as in shmc__wsync_enter_call. */
int shmc__wsync_enter_released(struct shmc__coll *co, uint64_t r, uint64_t tag, int *odd);
/* After round r failed (a rank left or quit before entering it, and this rank has quit):
 * waits until every other rank has entered r, left the job or quit the world's
 * collectives, which each does only once it has stopped touching other ranks' buffers
 * for the call (direct.c writes into them). */
int shmc__wsync_settle(struct shmc__coll *co, uint64_t r);
/* The same question for round r of lane `lane`, without waiting: 1 once every other rank
 * has entered r, left the job or quit the world's collectives. */
int shmc__wsync_settled(struct shmc__coll *co, unsigned lane, uint64_t r);

#endif /* SHMC_WSYNC_H */
