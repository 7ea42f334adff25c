/*
 * The argument checks of the public point-to-point calls (calls.c, probe.c, sets.c):
 * inline, because every message runs them. Each returns SHMC_OK or the public error
 * code; check_peer returns SHMC__NULL_PEER, a positive value that is no error code, for
 * SHMC_PROC_NULL where the call allows it, so that the calls can keep that case off the
 * path of every other message. The calls check the peer last, so that a call naming
 * nobody still has every other argument checked.
 */
#ifndef SHMC_ARGS_H
#define SHMC_ARGS_H

#include "base/dtype.h"
#include "p2p/p2p.h"

#define SHMC__NULL_PEER 1

/* Checks the library's state and the communicator handle h, and the buffer; fills *c,
 * *bytes and *elsize. */
static inline int shmc__check_buf(struct shmc__p2p *p, const shmc_comm *h,
                                  const struct shmc__comm **c, const void *buf, size_t count,
                                  shmc_dtype dt, size_t *bytes, size_t *elsize)
{
    if (p->phase != SHMC_P2P_READY)
        return SHMC_ERR_NOT_INIT;
    if (!(*c = shmc__comm_get(&p->comms, h)))
        return SHMC_ERR_ARG;
    size_t es = shmc__dtype_size(dt), b;
    /* SHMC_IN_PLACE means something only to collectives: here it is no buffer at all.
     * The overflow test is a multiply, not a division (this runs on every message). */
    if (!es || __builtin_mul_overflow(count, es, &b) || (!buf && count) || buf == SHMC_IN_PLACE)
        return SHMC_ERR_ARG;
    *bytes = b;
    *elsize = es;
    return SHMC_OK;
}

/* Comm rank r as a world rank in *world; SHMC_ANY_SOURCE too where any_ok (*world =
 * SHMC_ANY). */
static inline int shmc__check_peer(const struct shmc__comm *c, int r, int any_ok, int *world)
{
    if (any_ok && r == SHMC_ANY_SOURCE) {
        *world = SHMC_ANY;
        return SHMC_OK;
    }
    if (r < 0 || r >= c->size)
        return r == SHMC_PROC_NULL ? SHMC__NULL_PEER : SHMC_ERR_RANK;
    *world = shmc__comm_world_rank(c, r);
    return SHMC_OK;
}

static inline int shmc__check_tag(int tag, int any_ok)
{
    return (tag >= 0 || (any_ok && tag == SHMC_ANY_TAG)) ? SHMC_OK : SHMC_ERR_TAG;
}

/* The status of a receive or probe from SHMC_PROC_NULL. */
static inline void shmc__null_status(shmc_status *st)
{
    if (st)
        *st = (shmc_status){SHMC_PROC_NULL, SHMC_ANY_TAG, 0, SHMC_OK};
}

#endif /* SHMC_ARGS_H */
