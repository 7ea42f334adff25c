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
 *         world-sync blocks, with no acknowledgements (onestep.c, wsync.c).
 */
#include "coll/algos.h"
#include "coll/onestep.h"
#include "coll/xfer.h"

int shmc__barrier_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
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

int shmc__barrier_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
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

int shmc__barrier_rd(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
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

int shmc__barrier_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    (void)sbuf, (void)rbuf, (void)count;
    x->co->shm_barriers++; /* (shmc_stat: which algorithm a barrier ran shows nowhere else) */
    return shmc__onestep_barrier(x);
}

const struct shmc__coll_algo shmc__barrier_tree_algo = {shmc__barrier_tree, NULL};
const struct shmc__coll_algo shmc__barrier_ring_algo = {shmc__barrier_ring, NULL};
const struct shmc__coll_algo shmc__barrier_rd_algo = {shmc__barrier_rd, NULL};
const struct shmc__coll_algo shmc__barrier_shm_algo = {shmc__barrier_shm, NULL};
