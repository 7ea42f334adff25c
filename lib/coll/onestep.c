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

#include "base/copy.h"
#include "base/log.h"
#include "coll/callword.h"
#include "coll/slot.h"
#include "coll/wsync.h"

/* Every round carries the call's words (x->call), so that members that made different
 * calls find out in the round they share (the mismatch check is on by default). On
 * the world a hash of them sits beside the round number, in the line every member loads
 * anyway (wsync.h); in a slot they sit beside the stamp (slot.c). Every member compares
 * every other's, so all of them return SHMC_ERR_MISMATCH together and the communicator
 * stays in step. */

static int world_mismatch(const struct shmc__cx *x, int odd)
{
    char what[160];
    shmc__call_describe(x->call, what, sizeof what);
    SHMC_ERROR("collective mismatch on the world: this rank (%d) called %s; rank %d made a "
               "different call (another collective, count, dtype, op or root; SHMC_CHECK=1 "
               "says which)",
               x->me, what, odd);
    return SHMC_ERR_MISMATCH;
}

/* The outcome of round r entered (rc, odd: shmc__wsync_enter_call's), with settle. */
static int world_outcome(const struct shmc__cx *x, uint64_t r, int rc, int odd, int settle)
{
    if (rc != SHMC_OK) {
        if (settle)
            shmc__wsync_settle(x->co, r);
        return rc;
    }
    /* Every member sees a difference in the same round: none goes on. */
    return odd >= 0 ? world_mismatch(x, odd) : SHMC_OK;
}

void shmc__onestep_world_post(const struct shmc__cx *x, uint64_t r, struct shmc__wsync_look *w)
{
    shmc__wsync_post(x->co, shmc__wsync_blk(x->co), r, shmc__wsync_tag(x->hash), w);
}

int shmc__onestep_world_wait(const struct shmc__cx *x, struct shmc__wsync_look *w, int settle)
{
    int odd, rc = shmc__wsync_wait(w, &odd);
    return world_outcome(x, w->want, rc, odd, settle);
}

/* Round r entered, as a barrier released by rank 0 when `released` (wsync.h). */
static int world_enter(const struct shmc__cx *x, uint64_t r, int settle, int released)
{
    int odd;
    uint64_t tag = shmc__wsync_tag(x->hash);
    int rc = released ? shmc__wsync_enter_released(x->co, r, tag, &odd)
                      : shmc__wsync_enter_call(x->co, r, tag, &odd);
    return world_outcome(x, r, rc, odd, settle);
}

int shmc__onestep_world_enter(const struct shmc__cx *x, uint64_t r, int settle)
{
    return world_enter(x, r, settle, 0);
}

int shmc__onestep_world_outcome(const struct shmc__cx *x, const struct shmc__wsync_look *w)
{
    if (w->err != SHMC_OK)
        return w->err;
    return w->odd >= 0 ? world_mismatch(x, w->odd) : SHMC_OK;
}

/* The world: this rank's part into its half of a new round, then the round entered
 * (shmc__onestep_world_enter). */
static int world_round(const struct shmc__cx *x, const void *mine, size_t bytes, uint64_t *r,
                       int settle)
{
    *r = shmc__wsync_next(shmc__wsync_blk(x->co));
    if (bytes)
        shmc__copy(shmc__wsync_mine(shmc__wsync_blk(x->co), *r, bytes, mine), mine, bytes);
    return shmc__onestep_world_enter(x, *r, settle);
}

/* Any other communicator: this rank's part into its slot, published with a new stamp and
 * the call's words; then every member's, waited for and compared with ours. On a
 * difference every member has still read every slot (marked done), so the slots stay in
 * step. */
static int slot_round(const struct shmc__cx *x, const void *mine, size_t bytes, uint8_t **slot,
                      uint64_t *stamp)
{
    *stamp = shmc__slot_next(x);
    int rc = shmc__slot_acquire(x, *stamp, bytes, slot);
    if (rc != SHMC_OK)
        return rc;
    if (bytes)
        shmc__copy(*slot, mine, bytes);
    shmc__slot_publish(x, *stamp, bytes, -1);
    int bad = 0;
    struct shmc__p2p *p = x->co->p2p;
    shmc__incall_round(p, 1);
    for (int q = 0; q < x->n; q++) {
        const uint8_t *theirs;
        uint64_t call[2];
        if (q == x->me)
            continue;
        if ((rc = shmc__slot_wait_call(x, q, *stamp, bytes, &theirs, call)) != SHMC_OK)
            break;
        if (!bad)
            bad = shmc__cx_differs(x, q, call);
    }
    shmc__incall_round(p, 0);
    if (rc != SHMC_OK)
        return rc;
    if (bad) {
        shmc__slot_done_all(x, *stamp);
        return SHMC_ERR_MISMATCH;
    }
    return SHMC_OK;
}

/* A barrier; with settle, a failed one returns only once every other member has entered
 * it, left or quit (onestep.h). */
static int barrier(const struct shmc__cx *x, int settle)
{
    uint64_t r, stamp;
    uint8_t *slot;
    if (shmc__cx_world(x)) {
        /* Released by rank 0 (it leaves first, so the rooted call after a barrier finds
         * its root under way), except at 2 ranks: there the symmetric round costs one
         * one-way trip instead of two in a row, half the barrier's time, and the rooted
         * calls after it lose less than that (docs/collectives.md). */
        r = shmc__wsync_next(shmc__wsync_blk(x->co));
        return world_enter(x, r, settle, x->n > 2);
    }
    int rc = slot_round(x, NULL, 0, &slot, &stamp);
    if (rc == SHMC_OK)
        shmc__slot_done_all(x, stamp);
    else if (settle)
        shmc__slot_settle(x, stamp);
    return rc;
}

int shmc__onestep_barrier(const struct shmc__cx *x)
{
    return barrier(x, 0);
}

int shmc__onestep_barrier_settled(const struct shmc__cx *x)
{
    return barrier(x, 1);
}

/* World rank q's part of a combination of round r (shmc__onestep_world_combine). */
static const uint8_t *part(const struct shmc__cx *x, struct shmc__lane *l, uint64_t r, size_t half,
                           size_t off, const uint8_t *mine, int q)
{
    return q == x->me ? mine : shmc__wsync_theirs(x->co, l, q, r, half) + off;
}

void shmc__onestep_world_combine(const struct shmc__cx *x, struct shmc__lane *l, uint64_t r,
                                 size_t half, size_t off, const void *own, void *out, size_t count,
                                 struct shmc__wsync_look *w)
{
    size_t bytes = count * x->es;
    const uint8_t *mine =
        shmc__own_part(x, own, shmc__wsync_theirs(x->co, l, x->me, r, half) + off, out, bytes);
    for (int q = 0; q < x->n; q++) {
        if (w && q != x->me && !shmc__wsync_wait_rank(w, q))
            return;
        const uint8_t *src = part(x, l, r, half, off, mine, q);
        if (q > 0) {
            shmc__reduce(out, src, count, x->dt, x->op, SHMC_ACC_LEFT);
            continue;
        }
        /* Parts 0 and 1 in one pass where every part is in already (no look) and neither
         * is out (in place, rank 0's own part is): out = part 0 OP part 1, the bits of a
         * copy and a pass (the kernels take their operands in that order). */
        const uint8_t *next = !w && x->n > 1 ? part(x, l, r, half, off, mine, 1) : NULL;
        if (next && src != (const uint8_t *)out && next != (const uint8_t *)out) {
            shmc__reduce_into(out, src, next, count, x->dt, x->op);
            q = 1;
        } else if (src != (const uint8_t *)out) {
            shmc__copy(out, src, bytes);
        }
    }
    shmc__reduce_finish(out, count, x->dt, x->op, x->n);
}

int shmc__onestep_allreduce(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    size_t bytes = count * x->es;
    int rc;
    uint64_t r;
    if (shmc__cx_world(x)) {
        if ((rc = world_round(x, sbuf, bytes, &r, 0)) != SHMC_OK)
            return rc;
        shmc__onestep_world_combine(x, shmc__wsync_blk(x->co), r, bytes, 0, sbuf, rbuf, count,
                                    NULL);
        return SHMC_OK;
    }
    uint8_t *slot;
    uint64_t stamp;
    if ((rc = slot_round(x, sbuf, bytes, &slot, &stamp)) != SHMC_OK ||
        (rc = shmc__slot_combine(x, stamp, bytes, shmc__own_part(x, sbuf, slot, rbuf, bytes), 0,
                                 count, rbuf, 1)) != SHMC_OK)
        return rc;
    shmc__reduce_finish(rbuf, count, x->dt, x->op, x->n);
    return SHMC_OK;
}

int shmc__onestep_allgather(const struct shmc__cx *x, const void *mine, void *all, size_t bytes)
{
    uint8_t *out = all;
    int rc;
    uint64_t r;
    if (shmc__cx_world(x)) {
        /* Our own block goes to its place between our entry and the wait for the others',
         * while they enter (mine never lies in all). */
        struct shmc__lane *l = shmc__wsync_blk(x->co);
        struct shmc__wsync_look w;
        r = shmc__wsync_next(l);
        if (bytes)
            shmc__copy(shmc__wsync_mine(l, r, bytes, mine), mine, bytes);
        shmc__onestep_world_post(x, r, &w);
        shmc__copy(out + (size_t)x->me * bytes, mine, bytes);
        if ((rc = shmc__onestep_world_wait(x, &w, 0)) != SHMC_OK)
            return rc;
        for (int q = 0; q < x->n; q++)
            if (q != x->me)
                shmc__copy(out + (size_t)q * bytes, shmc__wsync_theirs(x->co, l, q, r, bytes),
                           bytes);
        return SHMC_OK;
    }
    uint8_t *slot;
    uint64_t stamp;
    if ((rc = slot_round(x, mine, bytes, &slot, &stamp)) != SHMC_OK)
        return rc;
    for (int q = 0; q < x->n; q++) {
        const uint8_t *src = slot;
        if (q != x->me && (rc = shmc__slot_wait(x, q, stamp, bytes, &src)) != SHMC_OK)
            return rc;
        shmc__copy(out + (size_t)q * bytes, q == x->me ? mine : src, bytes);
    }
    shmc__slot_done_all(x, stamp);
    return SHMC_OK;
}
