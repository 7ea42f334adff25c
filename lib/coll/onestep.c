/*
 * One-step exchanges (onestep.h): every member publishes its part and reads everyone
 * else's after a single synchronisation. On the world communicator the part travels in
 * the world-sync blocks (wsync.c: one store and n - 1 loads, no acknowledgement); on any
 * other communicator in the collective slots (slot.c). Results are combined in rank
 * order, so every member computes the same bits.
 *
 * These are the building block, not the dispatcher: an agreement made inside a
 * collective (whether every member could allocate, whether all made the same call) must
 * not depend on the algorithm the configuration forces for the collectives themselves,
 * and must not call back into the layer's entry points.
 */
#include "coll/onestep.h"

#include "coll/slot.h"
#include "coll/wsync.h"

int shmc__onestep_barrier(const struct shmc__cx *x)
{
    if (shmc__cx_world(x))
        return shmc__wsync_enter(x->co, shmc__wsync_next(x->co));
    uint8_t *mine;
    const uint8_t *theirs;
    uint64_t stamp = shmc__slot_next(x);
    int rc = shmc__slot_acquire(x, &mine);
    if (rc != SHMC_OK)
        return rc;
    shmc__slot_publish(x, stamp, -1);
    for (int r = 0; r < x->n; r++) {
        if (r == x->me)
            continue;
        if ((rc = shmc__slot_wait(x, r, stamp, &theirs)) != SHMC_OK)
            return rc;
        shmc__slot_done(x, r);
    }
    return SHMC_OK;
}

/* The world: this rank's part into its half of a new round, and the round entered. */
static int world_round(struct shmc__coll *co, const void *mine, size_t bytes, uint64_t *r)
{
    *r = shmc__wsync_next(co);
    memcpy(shmc__wsync_mine(co, *r), mine, bytes);
    return shmc__wsync_enter(co, *r);
}

/* Any other communicator: this rank's part into its slot, published with a new stamp. */
static int slot_round(const struct shmc__cx *x, const void *mine, size_t bytes, uint8_t **slot,
                      uint64_t *stamp)
{
    *stamp = shmc__slot_next(x);
    int rc = shmc__slot_acquire(x, slot);
    if (rc != SHMC_OK)
        return rc;
    memcpy(*slot, mine, bytes);
    shmc__slot_publish(x, *stamp, -1);
    return SHMC_OK;
}

int shmc__onestep_allreduce(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    size_t bytes = count * x->es;
    struct shmc__coll *co = x->co;
    int rc;
    uint64_t r;
    if (shmc__cx_world(x)) {
        if ((rc = world_round(co, sbuf, bytes, &r)) != SHMC_OK)
            return rc;
        for (int q = 0; q < x->n; q++) {
            const uint8_t *src = shmc__wsync_theirs(co, q, r);
            if (q == 0)
                memcpy(rbuf, src, bytes);
            else
                shmc__reduce(rbuf, src, count, x->dt, x->op, SHMC_ACC_LEFT);
        }
    } else {
        uint8_t *slot;
        uint64_t stamp;
        if ((rc = slot_round(x, sbuf, bytes, &slot, &stamp)) != SHMC_OK ||
            (rc = shmc__slot_combine(x, stamp, slot, 0, count, rbuf)) != SHMC_OK)
            return rc;
        shmc__slot_done_all(x);
    }
    shmc__reduce_finish(rbuf, count, x->dt, x->op, x->n);
    return SHMC_OK;
}

int shmc__onestep_allgather(const struct shmc__cx *x, const void *mine, void *all, size_t bytes)
{
    struct shmc__coll *co = x->co;
    uint8_t *out = all;
    int rc;
    uint64_t r;
    if (shmc__cx_world(x)) {
        if ((rc = world_round(co, mine, bytes, &r)) != SHMC_OK)
            return rc;
        for (int q = 0; q < x->n; q++)
            memcpy(out + (size_t)q * bytes, q == x->me ? mine : shmc__wsync_theirs(co, q, r),
                   bytes);
        return SHMC_OK;
    }
    uint8_t *slot;
    uint64_t stamp;
    if ((rc = slot_round(x, mine, bytes, &slot, &stamp)) != SHMC_OK)
        return rc;
    for (int q = 0; q < x->n; q++) {
        const uint8_t *src = slot;
        if (q != x->me && (rc = shmc__slot_wait(x, q, stamp, &src)) != SHMC_OK)
            return rc;
        memcpy(out + (size_t)q * bytes, src, bytes);
    }
    shmc__slot_done_all(x);
    return SHMC_OK;
}
