/*
 * The world's nonblocking all-reduce and barrier on the world's own shared memory
 * (nbworld.c): the one-step rounds (wsync.c) and the staging buffers (stage.c), entered
 * without waiting and moved along by progress, on a lane of their own (coll.h).
 */
#ifndef SHMC_NBWORLD_H
#define SHMC_NBWORLD_H

#include <stddef.h>
#include <stdint.h>

#include "coll/cx.h"
#include "coll/wsync.h"

/* Does a nonblocking call x of collective coll (any SHMC_C_*) of count elements run here,
 * and how: 0 (no: a schedule of messages runs it), or a nonzero way for shmc__nbw_start.
 * The same answer on every member (it depends on the communicator, the call and the
 * configuration only). */
int shmc__nbw_takes(int coll, const struct shmc__cx *x, size_t count);
/* Starts it the way `how` said as *x->nb (sbuf may equal rbuf). SHMC_OK, SHMC_ERR_NOMEM,
 * or the world's collectives' failure. */
int shmc__nbw_start(int how, int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf,
                    size_t count);
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
    struct shmc__wsync_look look;
};
/* What shmc__stage_step ends with when the world cannot use the staging buffers (some
 * rank could not reserve them); every rank learns it in the same round, having written
 * nothing that another reads. */
#define SHMC_STAGE_REFUSED 1
/* Moves s along without waiting: 1 once the call has ended (*rc: SHMC_OK, an error, or
 * SHMC_STAGE_REFUSED), 0 while it waits for a round. */
int shmc__stage_step(struct shmc__stage_run *s, int *rc);

#endif /* SHMC_NBWORLD_H */
