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

#include <stdio.h>

#include "base/log.h"
#include "coll/callword.h"
#include "coll/slot.h"
#include "coll/wsync.h"

/* Every round carries the call's two words (x->call), so that members that made
 * different calls find out in the round they share (issue 19: the mismatch check on by
 * default). On the world they sit beside the round number, in the line every member
 * loads anyway (wsync.h); in a slot they come first, and the data after them (16 bytes
 * keep it aligned for every dtype). */
#define HDR 16u

static void put_call(const struct shmc__cx *x, uint8_t *part)
{
    memcpy(part, x->call, HDR);
}

static void describe_mine(const struct shmc__cx *x, char *buf, size_t len)
{
    if (x->call[0] || x->call[1])
        shmc__call_describe(x->call, buf, len);
    else
        snprintf(buf, len, "an agreement inside a collective");
}

/* Does member q's call (its words at theirs) differ from ours? Says so, naming both. */
static int differs(const struct shmc__cx *x, int q, const void *theirs)
{
    uint64_t t[2];
    memcpy(t, theirs, HDR);
    if (t[0] == x->call[0] && t[1] == x->call[1])
        return 0;
    char mine[160], other[160];
    describe_mine(x, mine, sizeof mine);
    if (t[0] || t[1])
        shmc__call_describe(t, other, sizeof other);
    else
        snprintf(other, sizeof other, "an agreement inside a collective");
    SHMC_ERROR("collective mismatch on a communicator (its own rank numbers): this rank (%d) "
               "called %s; rank %d called %s",
               x->me, mine, q, other);
    return 1;
}

/* The call's words hashed to 24 bits in bits 40-63 of the world round word (wsync.h): the
 * same store that announces the round carries it, so the check costs no cache line.
 * Distinct calls share a hash once in 2^24; SHMC_CHECK=1 compares the words exactly. */
static uint64_t call_tag(const struct shmc__cx *x)
{
    uint64_t h = (x->call[0] * 0x9e3779b97f4a7c15ull) ^ x->call[1];
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return h & ~SHMC_WSYNC_ROUND_MASK;
}

/* The world: this rank's call and part into its half of a new round, the round entered,
 * and every member's call compared with ours (all of them, so that every member reports
 * a difference alike and the rounds stay in step). */
static int world_round(const struct shmc__cx *x, const void *mine, size_t bytes, uint64_t *r)
{
    struct shmc__coll *co = x->co;
    *r = shmc__wsync_next(co);
    if (bytes)
        memcpy(shmc__wsync_mine(co, *r), mine, bytes);
    int odd;
    int rc = shmc__wsync_enter_call(co, *r, call_tag(x), &odd);
    if (rc != SHMC_OK)
        return rc;
    if (odd >= 0) {
        char what[160];
        describe_mine(x, what, sizeof what);
        SHMC_ERROR("collective mismatch on the world: this rank (%d) called %s; rank %d made a "
                   "different call (another collective, count, dtype, op or root; SHMC_CHECK=1 "
                   "says which)",
                   x->me, what, odd);
        return SHMC_ERR_MISMATCH;
    }
    return SHMC_OK;
}

/* Member q's part of world round r. */
static const uint8_t *world_part(const struct shmc__cx *x, int q, uint64_t r)
{
    return shmc__wsync_theirs(x->co, q, r);
}

/* Any other communicator: this rank's call and part into its slot, published with a new
 * stamp; then every member's, waited for and compared with ours. On a difference every
 * member has still read every slot (marked done), so the slots stay in step. */
static int slot_round(const struct shmc__cx *x, const void *mine, size_t bytes, uint8_t **slot,
                      uint64_t *stamp)
{
    *stamp = shmc__slot_next(x);
    int rc = shmc__slot_acquire(x, slot);
    if (rc != SHMC_OK)
        return rc;
    put_call(x, *slot);
    if (bytes)
        memcpy(*slot + HDR, mine, bytes);
    shmc__slot_publish(x, *stamp, -1);
    int bad = 0;
    for (int q = 0; q < x->n; q++) {
        const uint8_t *theirs;
        if (q == x->me)
            continue;
        if ((rc = shmc__slot_wait(x, q, *stamp, &theirs)) != SHMC_OK)
            return rc;
        if (!bad)
            bad = differs(x, q, theirs);
    }
    if (bad) {
        shmc__slot_done_all(x);
        return SHMC_ERR_MISMATCH;
    }
    return SHMC_OK;
}

int shmc__onestep_barrier(const struct shmc__cx *x)
{
    uint64_t r, stamp;
    uint8_t *slot;
    if (shmc__cx_world(x))
        return world_round(x, NULL, 0, &r);
    int rc = slot_round(x, NULL, 0, &slot, &stamp);
    if (rc == SHMC_OK)
        shmc__slot_done_all(x);
    return rc;
}

int shmc__onestep_allreduce(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    size_t bytes = count * x->es;
    int rc;
    uint64_t r;
    if (shmc__cx_world(x)) {
        if ((rc = world_round(x, sbuf, bytes, &r)) != SHMC_OK)
            return rc;
        for (int q = 0; q < x->n; q++) {
            const uint8_t *src = world_part(x, q, r);
            if (q == 0)
                memcpy(rbuf, src, bytes);
            else
                shmc__reduce(rbuf, src, count, x->dt, x->op, SHMC_ACC_LEFT);
        }
    } else {
        uint8_t *slot;
        uint64_t stamp;
        if ((rc = slot_round(x, sbuf, bytes, &slot, &stamp)) != SHMC_OK ||
            (rc = shmc__slot_combine(x, stamp, slot, HDR / x->es, count, rbuf)) != SHMC_OK)
            return rc;
        shmc__slot_done_all(x);
    }
    shmc__reduce_finish(rbuf, count, x->dt, x->op, x->n);
    return SHMC_OK;
}

int shmc__onestep_allgather(const struct shmc__cx *x, const void *mine, void *all, size_t bytes)
{
    uint8_t *out = all;
    int rc;
    uint64_t r;
    if (shmc__cx_world(x)) {
        if ((rc = world_round(x, mine, bytes, &r)) != SHMC_OK)
            return rc;
        for (int q = 0; q < x->n; q++)
            memcpy(out + (size_t)q * bytes, q == x->me ? mine : world_part(x, q, r), bytes);
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
        memcpy(out + (size_t)q * bytes, q == x->me ? mine : src + HDR, bytes);
    }
    shmc__slot_done_all(x);
    return SHMC_OK;
}
