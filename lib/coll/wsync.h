/*
 * The world communicator's one-step rounds (wsync.c).
 */
#ifndef SHMC_WSYNC_H
#define SHMC_WSYNC_H

#include <stdint.h>

#include "coll/coll.h"

/* The world's next round (every world collective that uses rounds takes one). */
static inline uint64_t shmc__wsync_next(struct shmc__coll *co)
{
    return ++co->wround;
}

/* Where this rank writes its input for round r, and where world rank q's is. */
static inline uint8_t *shmc__wsync_mine(const struct shmc__coll *co, uint64_t r)
{
    return shmc__wsync_data(co->wsync, (unsigned)(r & 1));
}

static inline uint8_t *shmc__wsync_theirs(const struct shmc__coll *co, int q, uint64_t r)
{
    return shmc__wsync_data(shmc__arena_wsync(co->arena, (unsigned)q), (unsigned)(r & 1));
}

/* Enters world round r (this rank's input for it already in its half) and waits until
 * every other rank has entered it. SHMC_OK, or the error of a rank that left first. */
int shmc__wsync_enter(struct shmc__coll *co, uint64_t r);

/* The same, publishing tag (a call's hash in bits 40-63, onestep.c) with the round and
 * comparing every other rank's, as it is seen to enter, with it: *odd is the first rank
 * whose hash differs, or -1. */
int shmc__wsync_enter_call(struct shmc__coll *co, uint64_t r, uint64_t tag, int *odd);

/* After round r failed (a rank left or quit before entering it, and this rank has quit):
 * waits until every other rank has entered r, left the job or quit the world's
 * collectives, which each does only once it has stopped touching other ranks' buffers
 * for the call (direct.c writes into them). */
int shmc__wsync_settle(struct shmc__coll *co, uint64_t r);

#endif /* SHMC_WSYNC_H */
