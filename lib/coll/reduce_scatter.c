/*
 * Reduce-scatter with equal blocks: rank r gets block r of the reduction of every rank's
 * n * count elements. Reduction orders:
 *   ring: block r is combined in the order r+1, r+2, ..., r (mod n), left to right.
 *   tree: the binomial tree reduce to rank 0 (coll/reduce.c), then a binomial scatter.
 *   shm:  rank order 0, 1, ..., n-1, left to right, each rank combining its own block
 *         from everyone's slot; a small call on the world from everyone's half of one of
 *         the world's rounds (wround.h).
 */
#include <string.h>

#include "base/copy.h"
#include "coll/algos.h"
#include "coll/scratch.h"
#include "coll/slot.h"
#include "coll/wround.h"

int shmc__reduce_scatter_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int rc = shmc__ring_reduce_scatter(x, sbuf, rbuf, (size_t)x->n * count);
    return rc != SHMC_OK ? rc : shmc__cx_finish(x, rbuf, count);
}

int shmc__reduce_scatter_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    size_t total = (size_t)x->n * count;
    struct shmc__cx y = shmc__cx_rooted(x, 0);
    uint8_t *all = x->me == 0 ? shmc__cx_scratch(x, 2, total * x->es) : NULL;
    if (x->me == 0 && !all)
        return SHMC_ERR_NOMEM;
    int rc = shmc__reduce_tree(&y, sbuf, all, total);
    return rc != SHMC_OK ? rc : shmc__scatter_tree(&y, all, rbuf, count);
}

int shmc__reduce_scatter_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    if (shmc__wround_blocking(SHMC_C_REDUCE_SCATTER, x, count))
        return shmc__wround_run(SHMC_C_REDUCE_SCATTER, x, sbuf, rbuf, count);
    int n = x->n, me = x->me, rc;
    size_t es = x->es, sub = SHMC_SLOT_BYTES / ((size_t)n * es);
    const uint8_t *s = sbuf;
    uint8_t *r = rbuf, *slot;
    for (size_t e = 0; e < count; e += sub) {
        size_t len = shmc__chunk(count, e, sub);
        uint64_t stamp = shmc__slot_next(x);
        /* (member d's block at d * len elements: n of them, which fit a half where small) */
        size_t pub = (size_t)n * len * es;
        if ((rc = shmc__slot_acquire(x, stamp, pub, &slot)) != SHMC_OK)
            return rc;
        for (int d = 0; d < n; d++)
            shmc__copy(slot + (size_t)d * len * es, s + ((size_t)d * count + e) * es, len * es);
        shmc__slot_publish(x, stamp, pub, -1);
        for (int p = 0; p < n; p++) {
            const uint8_t *src = slot;
            if (p != me && (rc = shmc__slot_wait(x, p, stamp, pub, &src)) != SHMC_OK)
                return rc;
            src += (size_t)me * len * es;
            if (p == 0)
                shmc__copy(r + e * es, src, len * es);
            else
                shmc__reduce(r + e * es, src, len, x->dt, x->op, SHMC_ACC_LEFT);
        }
        shmc__slot_done_all(x, stamp);
        shmc__reduce_finish(r + e * es, len, x->dt, x->op, n);
    }
    return SHMC_OK;
}

/* ---- what each borrows, and the descriptors ----------------------------------------- */

/* reduce_tree of all n blocks, and its result. */
static void tree_need(const struct shmc__cx *x, size_t count, size_t need[SHMC_NSCRATCH])
{
    need[0] = need[1] = need[2] = (size_t)x->n * count * x->es;
}

/* Ring blocks of n * count. */
static void ring_need(const struct shmc__cx *x, size_t count, size_t need[SHMC_NSCRATCH])
{
    need[1] = need[2] = (count + 1) * x->es;
}

const struct shmc__coll_algo shmc__reduce_scatter_tree_algo = {shmc__reduce_scatter_tree, tree_need,
                                                               1};
const struct shmc__coll_algo shmc__reduce_scatter_ring_algo = {shmc__reduce_scatter_ring, ring_need,
                                                               1};
const struct shmc__coll_algo shmc__reduce_scatter_shm_algo = {shmc__reduce_scatter_shm, NULL};
