/*
 * Barrier algorithms. Messages carry no data; only their arrival matters.
 *   tree: binomial gather of arrivals to rank 0, then a binomial broadcast of the release
 *         (2 log2 n steps on the critical path).
 *   ring: a token goes round twice: the first lap collects arrivals, the second releases
 *         (2n steps; the baseline every other algorithm must beat).
 *   rd:   dissemination: in round k each rank signals rank + 2^k and waits for rank - 2^k
 *         (ceil(log2 n) steps, every rank busy in every round).
 *   shm:  every rank publishes a stamp in its slot and waits for everyone else's
 *         (one step; n - 1 reads per rank); on the world communicator through the
 *         world-sync blocks, with no acknowledgements (wsync.c).
 */
#include "coll.h"

SHMC_COLL_FN(shmc__barrier_tree)
{
    (void)sbuf, (void)rbuf, (void)count;
    int n = x->n, v = x->me, rc, mask;
    /* Arrivals up the tree: children first, then tell the parent. */
    for (mask = 1; mask < n; mask <<= 1) {
        if (v & mask) {
            if ((rc = shmc__cx_send(x, NULL, 0, v - mask)) != SHMC_OK)
                return rc;
            break;
        }
        if (v + mask < n && (rc = shmc__cx_recv(x, NULL, 0, v + mask)) != SHMC_OK)
            return rc;
    }
    /* mask is now the lowest set bit of v (the edge to the parent), or for rank 0 the
     * first power of two >= n. The release comes down the same edges. */
    if (v && (rc = shmc__cx_recv(x, NULL, 0, v - mask)) != SHMC_OK)
        return rc;
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (v + mask < n && (rc = shmc__cx_send(x, NULL, 0, v + mask)) != SHMC_OK)
            return rc;
    return SHMC_OK;
}

SHMC_COLL_FN(shmc__barrier_ring)
{
    (void)sbuf, (void)rbuf, (void)count;
    int n = x->n, me = x->me, rc;
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    if (me == 0) {
        /* Start the arrival lap, see it come back, start the release lap. */
        if ((rc = shmc__cx_send(x, NULL, 0, next)) != SHMC_OK ||
            (rc = shmc__cx_recv(x, NULL, 0, prev)) != SHMC_OK)
            return rc;
        return shmc__cx_send(x, NULL, 0, next);
    }
    if ((rc = shmc__cx_recv(x, NULL, 0, prev)) != SHMC_OK ||
        (rc = shmc__cx_send(x, NULL, 0, next)) != SHMC_OK ||
        (rc = shmc__cx_recv(x, NULL, 0, prev)) != SHMC_OK)
        return rc;
    /* The release lap ends at the last rank. */
    return next != 0 ? shmc__cx_send(x, NULL, 0, next) : SHMC_OK;
}

SHMC_COLL_FN(shmc__barrier_rd)
{
    (void)sbuf, (void)rbuf, (void)count;
    int n = x->n, me = x->me;
    for (int k = 1; k < n; k <<= 1) {
        int rc = shmc__cx_sendrecv(x, NULL, 0, (me + k) % n, NULL, 0, (me - k + n) % n);
        if (rc != SHMC_OK)
            return rc;
    }
    return SHMC_OK;
}

SHMC_COLL_FN(shmc__barrier_shm)
{
    (void)sbuf, (void)rbuf, (void)count;
    if (shmc__wsync_ok(x))
        return shmc__wsync_barrier(x);
    uint8_t *mine;
    const uint8_t *theirs;
    uint64_t stamp = shmc__slot_next(x->c);
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
