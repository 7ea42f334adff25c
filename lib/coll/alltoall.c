/*
 * All-to-all (block d of every rank's send buffer goes to rank d).
 *   ring: pairwise exchange: in step s each rank sends to rank + s and receives from
 *         rank - s (n - 1 steps, every byte moved once).
 *   tree: Bruck's algorithm: log2 n steps; in step k each rank sends every block whose
 *         (rotated) index has bit k set to rank + 2^k. Fewer, larger messages: the
 *         small-block algorithm.
 *   shm:  every rank stages a piece of each of its n blocks in its slot; each rank
 *         copies its piece from everyone (chunked by slot size / n). A small call on the
 *         world does the same in one of the world's rounds (wround.h).
 *   direct: every rank posts its n - 1 receives and n - 1 sends at once and waits for
 *         them all (Open MPI's linear all-to-all): one step, where the ring's n - 1 steps
 *         each wait for one peer to be scheduled when ranks share cores.
 * All-to-all-v (each rank's own counts and displacements) is the ring's pairwise exchange:
 * blocks of any size, each moved once, n - 1 steps.
 */
#include <string.h>

#include "base/copy.h"
#include "coll/algos.h"
#include "coll/local.h"
#include "coll/scratch.h"
#include "coll/slot.h"
#include "coll/wround.h"
#include "coll/xfer.h"

int shmc__alltoall_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int n = x->n, me = x->me;
    size_t bytes = count * x->es;
    const uint8_t *s = sbuf;
    uint8_t *r = rbuf;
    /* Our own block goes into place during the first exchange. */
    if (n == 1)
        return shmc__cx_copy(x, r, s, bytes);
    for (int k = 1; k < n; k++) {
        int dst = (me + k) % n, src = (me - k + n) % n;
        size_t own = k == 1 ? bytes : 0;
        int rc =
            shmc__cx_sendrecv_copy(x, s + (size_t)dst * bytes, bytes, dst, r + (size_t)src * bytes,
                                   bytes, src, r + (size_t)me * bytes, s + (size_t)me * bytes, own);
        if (rc != SHMC_OK)
            return rc;
    }
    return SHMC_OK;
}

int shmc__alltoallv_pairwise(const struct shmc__cx *x, const void *sbuf, const size_t *scounts,
                             const size_t *sdispls, void *rbuf, const size_t *rcounts,
                             const size_t *rdispls)
{
    int n = x->n, me = x->me;
    size_t es = x->es;
    const uint8_t *s = sbuf;
    uint8_t *r = rbuf;
    /* What this rank sends itself must fit what it receives. */
    if (scounts[me] != rcounts[me])
        return shmc__cx_own_mismatch(x);
    if (scounts[me])
        SHMC_CX_COPY(x, r + rdispls[me] * es, s + sdispls[me] * es, scounts[me] * es);
    for (int k = 1; k < n; k++) {
        int dst = (me + k) % n, src = (me - k + n) % n;
        int rc = shmc__cx_sendrecv(x, s + sdispls[dst] * es, scounts[dst] * es, dst,
                                   r + rdispls[src] * es, rcounts[src] * es, src);
        if (rc != SHMC_OK)
            return rc;
    }
    return SHMC_OK;
}

int shmc__alltoall_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int n = x->n, me = x->me;
    size_t bytes = count * x->es, half = (size_t)(n + 1) / 2;
    uint8_t *t = shmc__cx_scratch(x, 0, (size_t)n * bytes);
    uint8_t *out = shmc__cx_scratch(x, 1, half * bytes), *in = shmc__cx_scratch(x, 2, half * bytes);
    if (!t || !out || !in)
        return SHMC_ERR_NOMEM;
    /* Rotate so that index i holds the block for rank me + i. */
    for (int i = 0; i < n; i++)
        SHMC_CX_COPY(x, t + (size_t)i * bytes,
                     (const uint8_t *)sbuf + (size_t)((me + i) % n) * bytes, bytes);
    for (int k = 1; k < n; k <<= 1) {
        size_t m = 0;
        for (int i = 0; i < n; i++)
            if (i & k)
                SHMC_CX_COPY(x, out + m++ * bytes, t + (size_t)i * bytes, bytes);
        int rc =
            shmc__cx_sendrecv(x, out, m * bytes, (me + k) % n, in, m * bytes, (me - k + n) % n);
        if (rc != SHMC_OK)
            return rc;
        m = 0;
        for (int i = 0; i < n; i++)
            if (i & k)
                SHMC_CX_COPY(x, t + (size_t)i * bytes, in + m++ * bytes, bytes);
    }
    /* Index i now holds the block from rank me - i. */
    for (int i = 0; i < n; i++)
        SHMC_CX_COPY(x, (uint8_t *)rbuf + (size_t)((me - i + n) % n) * bytes, t + (size_t)i * bytes,
                     bytes);
    return SHMC_OK;
}

int shmc__alltoall_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    if (shmc__wround_blocking(SHMC_C_ALLTOALL, x, count))
        return shmc__wround_run(SHMC_C_ALLTOALL, x, sbuf, rbuf, count);
    int n = x->n, rc;
    size_t es = x->es, sub = SHMC_SLOT_BYTES / ((size_t)n * es);
    const uint8_t *s = sbuf;
    uint8_t *r = rbuf;
    for (size_t e = 0; e < count; e += sub) {
        size_t len = shmc__chunk(count, e, sub);
        uint64_t stamp = shmc__slot_next(x);
        /* (member d's block at d * len elements: n of them, which fit a half where small) */
        size_t pub = (size_t)n * len * es;
        uint8_t *slot;
        if ((rc = shmc__slot_acquire(x, stamp, pub, &slot)) != SHMC_OK)
            return rc;
        for (int d = 0; d < n; d++)
            if (d != x->me)
                shmc__copy(slot + (size_t)d * len * es, s + ((size_t)d * count + e) * es, len * es);
        shmc__slot_publish(x, stamp, pub, -1);
        shmc__copy(r + ((size_t)x->me * count + e) * es, s + ((size_t)x->me * count + e) * es,
                   len * es);
        for (int p = 0; p < n; p++) {
            const uint8_t *src;
            if (p == x->me)
                continue;
            if ((rc = shmc__slot_wait(x, p, stamp, pub, &src)) != SHMC_OK)
                return rc;
            shmc__copy(r + ((size_t)p * count + e) * es, src + (size_t)x->me * len * es, len * es);
            shmc__slot_done(x, p, stamp);
        }
    }
    return SHMC_OK;
}

int shmc__alltoall_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    size_t bytes = count * x->es, nrecv, nsend;
    uint8_t *s = (uint8_t *)sbuf, *r = rbuf;
    struct shmc__request *reqs[2 * SHMC_MAX_RANKS];
    /* The receives first, so that a block arriving finds its place; each rank starts with
     * the peer after it, so that the senders spread over the receivers. */
    int rc = shmc__cx_post_all(x, r, bytes, bytes, 1, reqs, &nrecv);
    if (rc == SHMC_OK && (rc = shmc__cx_post_all(x, s, bytes, bytes, 0, reqs + nrecv, &nsend)))
        shmc__cx_cancel(x, nrecv, reqs);
    if (rc != SHMC_OK)
        return rc;
    /* Our own block while the others travel. */
    size_t mine = (size_t)x->me * bytes;
    return shmc__cx_copy_waitall(x, r + mine, s + mine, bytes, nrecv + nsend, reqs);
}

/* ---- what each borrows, and the descriptors ----------------------------------------- */

/* Bruck: the rotated blocks, and half of them going out and coming in. */
static void tree_need(const struct shmc__cx *x, size_t count, size_t need[SHMC_NSCRATCH])
{
    size_t b = count * x->es;
    need[0] = (size_t)x->n * b;
    need[1] = need[2] = (size_t)(x->n + 1) / 2 * b;
}

const struct shmc__coll_algo shmc__alltoall_tree_algo = {shmc__alltoall_tree, tree_need, 1};
const struct shmc__coll_algo shmc__alltoall_ring_algo = {shmc__alltoall_ring, NULL};
const struct shmc__coll_algo shmc__alltoall_shm_algo = {shmc__alltoall_shm, NULL};
const struct shmc__coll_algo shmc__alltoall_direct_algo = {shmc__alltoall_direct, NULL};
