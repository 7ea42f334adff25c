/*
 * Gather, all-gather and scatter: data movement only, no arithmetic.
 *   tree: binomial over virtual ranks v = (rank - root) mod n; a subtree's blocks travel
 *         as one message, in virtual-rank order (the root rotates them into place).
 *   ring: a chain along the ring through the root, one message per block, pipelined:
 *         gather flows towards the root, scatter away from it; all-gather passes blocks
 *         round the ring (n - 1 steps).
 *   shm:  blocks are staged in the owners' slots (gather, all-gather) or the root's
 *         (scatter), in chunks of at most a slot, and copied out by their readers.
 */
#include <string.h>

#include "base/copy.h"
#include "coll/algos.h"
#include "coll/local.h"
#include "coll/onestep.h"
#include "coll/scratch.h"
#include "coll/slot.h"
#include "coll/wround.h"
#include "coll/xfer.h"

/* ---- gather -------------------------------------------------------------------------- */

int shmc__gather_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int root = x->root;
    int n = x->n, v = shmc__vrank(x->me, root, n), sub = shmc__subtree(v, n), rc, nreq = 0;
    size_t bytes = count * x->es;
    uint8_t *t;
    const uint8_t *own = sbuf ? sbuf : (uint8_t *)rbuf + (size_t)root * bytes;
    struct shmc__request *reqs[32];

    if (sub == 1) /* a leaf: its one block goes up as it is */
        return shmc__cx_send(x, own, bytes, shmc__rrank(v - (v & -v), root, n));
    t = v == 0 && root == 0 ? rbuf : shmc__cx_scratch(x, 0, (size_t)sub * bytes);
    if (!t)
        return SHMC_ERR_NOMEM;
    if (t != own)
        SHMC_CX_COPY(x, t, own, bytes);
    for (int mask = 1; mask < n && !(v & mask); mask <<= 1) {
        if (v + mask >= n)
            continue;
        int csub = shmc__subtree(v + mask, n);
        rc = shmc__cx_irecv(x, t + (size_t)mask * bytes, (size_t)csub * bytes,
                            shmc__rrank(v + mask, root, n), &reqs[nreq]);
        if (rc != SHMC_OK) {
            shmc__cx_cancel(x, (size_t)nreq, reqs);
            return rc;
        }
        nreq++;
    }
    if ((rc = shmc__cx_waitall(x, (size_t)nreq, reqs)) != SHMC_OK)
        return rc;
    if (v != 0)
        return shmc__cx_send(x, t, (size_t)sub * bytes, shmc__rrank(v - (v & -v), root, n));
    if (t != rbuf) {
        /* Virtual order starts at the root: rotate into rank order. */
        size_t head = (size_t)(n - root) * bytes;
        SHMC_CX_COPY(x, (uint8_t *)rbuf + (size_t)root * bytes, t, head);
        SHMC_CX_COPY(x, rbuf, t + head, (size_t)root * bytes);
    }
    return SHMC_OK;
}

int shmc__gather_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int root = x->root;
    int n = x->n, p = shmc__vrank(x->me, root, n), rc = SHMC_OK;
    int up = shmc__rrank(p - 1 + n, root, n), down = shmc__rrank(p + 1, root, n);
    int nin = n - 1 - p; /* blocks that pass through this rank */
    size_t bytes = count * x->es;
    struct shmc__request *rq[SHMC_MAX_RANKS], *sq[SHMC_MAX_RANKS];
    uint8_t *t = NULL;

    if (p == 0) {
        /* Blocks arrive from position 1 in position order: straight into place. */
        for (int i = 0; i < nin; i++) {
            int r = shmc__rrank(i + 1, root, n);
            if ((rc = shmc__cx_irecv(x, (uint8_t *)rbuf + (size_t)r * bytes, bytes, down,
                                     &rq[i])) != SHMC_OK) {
                shmc__cx_cancel(x, (size_t)i, rq);
                return rc;
            }
        }
        uint8_t *mine = (uint8_t *)rbuf + (size_t)root * bytes;
        return shmc__cx_copy_waitall(x, mine, sbuf, sbuf && mine != sbuf ? bytes : 0, (size_t)nin,
                                     rq);
    }
    if (nin && !(t = shmc__cx_scratch(x, 0, (size_t)nin * bytes)))
        return SHMC_ERR_NOMEM;
    for (int i = 0; i < nin; i++) {
        if ((rc = shmc__cx_irecv(x, t + (size_t)i * bytes, bytes, down, &rq[i])) != SHMC_OK) {
            shmc__cx_cancel(x, (size_t)i, rq);
            return rc;
        }
    }
    int nsq = 0;
    if ((rc = shmc__cx_isend(x, sbuf, bytes, up, &sq[nsq])) == SHMC_OK)
        nsq++;
    for (int i = 0; i < nin && rc == SHMC_OK; i++) {
        if ((rc = shmc__cx_waitall(x, 1, &rq[i])) != SHMC_OK)
            break;
        if ((rc = shmc__cx_isend(x, t + (size_t)i * bytes, bytes, up, &sq[nsq])) == SHMC_OK)
            nsq++;
    }
    shmc__cx_cancel(x, (size_t)nin, rq);
    int wrc = shmc__cx_waitall(x, (size_t)nsq, sq);
    return rc != SHMC_OK ? rc : wrc;
}

int shmc__gather_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    if (shmc__wround_blocking(SHMC_C_GATHER, x, count))
        return shmc__wround_run(SHMC_C_GATHER, x, sbuf, rbuf, count);
    int pass = shmc__wround_pass(x);
    if (pass != SHMC_OK)
        return pass;
    int root = x->root;
    size_t bytes = count * x->es;
    int rc;
    if (x->me == root && sbuf && (uint8_t *)rbuf + (size_t)root * bytes != sbuf)
        SHMC_CX_COPY(x, (uint8_t *)rbuf + (size_t)root * bytes, sbuf, bytes);
    for (size_t off = 0; off < bytes; off += SHMC_SLOT_BYTES) {
        size_t len = shmc__chunk(bytes, off, SHMC_SLOT_BYTES);
        uint64_t stamp = shmc__slot_next(x);
        if (x->me != root) {
            uint8_t *slot;
            if ((rc = shmc__slot_acquire(x, stamp, len, &slot)) != SHMC_OK)
                return rc;
            shmc__copy(slot, (const uint8_t *)sbuf + off, len);
            shmc__slot_publish(x, stamp, len, root);
            continue;
        }
        for (int r = 0; r < x->n; r++) {
            const uint8_t *slot;
            if (r == root)
                continue;
            if ((rc = shmc__slot_wait(x, r, stamp, len, &slot)) != SHMC_OK)
                return rc;
            shmc__copy((uint8_t *)rbuf + (size_t)r * bytes + off, slot, len);
            shmc__slot_done(x, r, stamp);
        }
    }
    return SHMC_OK;
}

/* ---- all-gather ------------------------------------------------------------------------ */

int shmc__allgather_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    struct shmc__cx y = shmc__cx_rooted(x, 0);
    int rc = shmc__gather_tree(&y, sbuf ? sbuf : (uint8_t *)rbuf + (size_t)x->me * count * x->es,
                               rbuf, count);
    return rc != SHMC_OK ? rc : shmc__bcast_tree(&y, NULL, rbuf, (size_t)x->n * count);
}

int shmc__allgather_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    return shmc__ring_allgather(x, rbuf, (size_t)x->n * count, sbuf);
}

int shmc__allgather_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    size_t bytes = count * x->es;
    uint8_t *mine = (uint8_t *)rbuf + (size_t)x->me * bytes, *slot;
    const uint8_t *own = sbuf ? sbuf : mine;
    int rc;
    /* A block that one of the world's rounds carries goes in that one synchronisation
     * (onestep.c), where the slots take two (a slot is written only once last call's
     * readers are done with it; the commit that made it has the figures). In place, our
     * block is taken aside first: the round copies every rank's block into rbuf, ours
     * included. A larger one that still fits a round goes by the world rounds' general
     * form (wround.h), which a few more instructions per call cost the smallest calls. */
    if (shmc__cx_world(x) && bytes <= SHMC_ONESTEP_MAX) {
        uint8_t keep[SHMC_ONESTEP_MAX];
        if (own == mine) {
            memcpy(keep, mine, bytes);
            own = keep;
        }
        return shmc__onestep_allgather(x, own, rbuf, bytes);
    }
    if (shmc__wround_blocking(SHMC_C_ALLGATHER, x, count))
        return shmc__wround_run(SHMC_C_ALLGATHER, x, sbuf, rbuf, count);
    for (size_t off = 0; off < bytes; off += SHMC_SLOT_BYTES) {
        size_t len = shmc__chunk(bytes, off, SHMC_SLOT_BYTES);
        uint64_t stamp = shmc__slot_next(x);
        if ((rc = shmc__slot_acquire(x, stamp, len, &slot)) != SHMC_OK)
            return rc;
        shmc__copy(slot, own + off, len);
        shmc__slot_publish(x, stamp, len, -1);
        for (int r = 0; r < x->n; r++) {
            const uint8_t *src;
            if (r == x->me)
                continue;
            if ((rc = shmc__slot_wait(x, r, stamp, len, &src)) != SHMC_OK)
                return rc;
            shmc__copy((uint8_t *)rbuf + (size_t)r * bytes + off, src, len);
            shmc__slot_done(x, r, stamp);
        }
    }
    if (sbuf && mine != sbuf)
        SHMC_CX_COPY(x, mine, sbuf, bytes);
    return SHMC_OK;
}

/* ---- scatter ---------------------------------------------------------------------------- */

int shmc__scatter_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int root = x->root;
    int n = x->n, v = shmc__vrank(x->me, root, n), sub = shmc__subtree(v, n), rc, mask, nreq = 0;
    size_t bytes = count * x->es;
    const uint8_t *t;
    struct shmc__request *reqs[32];

    if (v == 0) {
        uint8_t *rot;
        if (root == 0) {
            t = sbuf;
        } else {
            /* Subtrees are contiguous in virtual order: rotate the root's blocks once. */
            if (!(rot = shmc__cx_scratch(x, 0, (size_t)n * bytes)))
                return SHMC_ERR_NOMEM;
            size_t head = (size_t)(n - root) * bytes;
            SHMC_CX_COPY(x, rot, (const uint8_t *)sbuf + (size_t)root * bytes, head);
            SHMC_CX_COPY(x, rot + head, sbuf, (size_t)root * bytes);
            t = rot;
        }
        mask = 1;
        while (mask < n)
            mask <<= 1;
    } else {
        uint8_t *in = sub == 1 ? rbuf : shmc__cx_scratch(x, 0, (size_t)sub * bytes);
        if (!in)
            return SHMC_ERR_NOMEM;
        mask = v & -v;
        rc = shmc__cx_recv(x, in, (size_t)sub * bytes, shmc__rrank(v - mask, root, n));
        if (rc != SHMC_OK || sub == 1)
            return rc;
        t = in;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (v + mask >= n)
            continue;
        int csub = shmc__subtree(v + mask, n);
        rc = shmc__cx_isend(x, t + (size_t)mask * bytes, (size_t)csub * bytes,
                            shmc__rrank(v + mask, root, n), &reqs[nreq]);
        if (rc != SHMC_OK) {
            shmc__cx_waitall(x, (size_t)nreq, reqs);
            return rc;
        }
        nreq++;
    }
    return shmc__cx_copy_waitall(x, rbuf, t, rbuf && rbuf != t ? bytes : 0, (size_t)nreq, reqs);
}

int shmc__scatter_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int root = x->root;
    int n = x->n, p = shmc__vrank(x->me, root, n), rc = SHMC_OK, nsq = 0;
    int up = shmc__rrank(p - 1 + n, root, n), down = shmc__rrank(p + 1, root, n);
    size_t bytes = count * x->es;
    struct shmc__request *rq[SHMC_MAX_RANKS], *sq[SHMC_MAX_RANKS];

    if (p == 0) {
        /* Blocks leave in position order: each rank keeps the first it receives. */
        for (int i = 1; i < n && rc == SHMC_OK; i++) {
            const uint8_t *b = (const uint8_t *)sbuf + (size_t)shmc__rrank(i, root, n) * bytes;
            if ((rc = shmc__cx_isend(x, b, bytes, down, &sq[nsq])) == SHMC_OK)
                nsq++;
        }
        const uint8_t *mine = (const uint8_t *)sbuf + (size_t)root * bytes;
        int wrc =
            shmc__cx_copy_waitall(x, rbuf, mine, rbuf && rbuf != mine ? bytes : 0, (size_t)nsq, sq);
        return rc != SHMC_OK ? rc : wrc;
    }
    int nout = n - 1 - p;
    uint8_t *t = NULL;
    if (nout && !(t = shmc__cx_scratch(x, 0, (size_t)nout * bytes)))
        return SHMC_ERR_NOMEM;
    if ((rc = shmc__cx_irecv(x, rbuf, bytes, up, &rq[0])) != SHMC_OK)
        return rc;
    for (int i = 0; i < nout; i++) {
        if ((rc = shmc__cx_irecv(x, t + (size_t)i * bytes, bytes, up, &rq[i + 1])) != SHMC_OK) {
            shmc__cx_cancel(x, (size_t)i + 1, rq);
            return rc;
        }
    }
    if ((rc = shmc__cx_waitall(x, 1, &rq[0])) != SHMC_OK) {
        shmc__cx_cancel(x, (size_t)nout + 1, rq);
        return rc;
    }
    for (int i = 0; i < nout && rc == SHMC_OK; i++) {
        if ((rc = shmc__cx_waitall(x, 1, &rq[i + 1])) != SHMC_OK)
            break;
        if ((rc = shmc__cx_isend(x, t + (size_t)i * bytes, bytes, down, &sq[nsq])) == SHMC_OK)
            nsq++;
    }
    shmc__cx_cancel(x, (size_t)nout + 1, rq);
    int wrc = shmc__cx_waitall(x, (size_t)nsq, sq);
    return rc != SHMC_OK ? rc : wrc;
}

int shmc__scatter_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    if (shmc__wround_blocking(SHMC_C_SCATTER, x, count))
        return shmc__wround_run(SHMC_C_SCATTER, x, sbuf, rbuf, count);
    int root = x->root;
    int n = x->n, rc;
    size_t es = x->es, sub = SHMC_SLOT_BYTES / ((size_t)n * es);
    if (x->me == root && rbuf && rbuf != (const uint8_t *)sbuf + (size_t)root * count * es)
        SHMC_CX_COPY(x, rbuf, (const uint8_t *)sbuf + (size_t)root * count * es, count * es);
    for (size_t e = 0; e < count; e += sub) {
        size_t len = shmc__chunk(count, e, sub);
        uint64_t stamp = shmc__slot_next(x);
        /* (member r's block at r * len elements: n of them, which fit a half where small) */
        size_t pub = (size_t)n * len * es;
        if (x->me == root) {
            uint8_t *slot;
            if ((rc = shmc__slot_acquire(x, stamp, pub, &slot)) != SHMC_OK)
                return rc;
            for (int r = 0; r < n; r++)
                if (r != root)
                    shmc__copy(slot + (size_t)r * len * es,
                               (const uint8_t *)sbuf + ((size_t)r * count + e) * es, len * es);
            shmc__slot_publish(x, stamp, pub, -1);
            continue;
        }
        const uint8_t *slot;
        if ((rc = shmc__slot_wait(x, root, stamp, pub, &slot)) != SHMC_OK)
            return rc;
        shmc__copy((uint8_t *)rbuf + e * es, slot + (size_t)x->me * len * es, len * es);
        shmc__slot_done(x, root, stamp);
    }
    return SHMC_OK;
}

/* ---- what each borrows, and the descriptors ----------------------------------------- */

/* A subtree's blocks; the root's rotated ones. */
static void tree_need(const struct shmc__cx *x, size_t count, size_t need[SHMC_NSCRATCH])
{
    need[0] = (size_t)x->n * count * x->es;
}

/* The blocks passed on by the rank after the root. */
static void ring_need(const struct shmc__cx *x, size_t count, size_t need[SHMC_NSCRATCH])
{
    need[0] = (size_t)(x->n - 2) * count * x->es;
}

const struct shmc__coll_algo shmc__gather_tree_algo = {shmc__gather_tree, tree_need, 1};
const struct shmc__coll_algo shmc__gather_ring_algo = {shmc__gather_ring, ring_need, 1};
const struct shmc__coll_algo shmc__gather_shm_algo = {shmc__gather_shm, NULL};
const struct shmc__coll_algo shmc__allgather_tree_algo = {shmc__allgather_tree, tree_need, 1};
const struct shmc__coll_algo shmc__allgather_ring_algo = {shmc__allgather_ring, NULL};
const struct shmc__coll_algo shmc__allgather_shm_algo = {shmc__allgather_shm, NULL};
const struct shmc__coll_algo shmc__scatter_tree_algo = {shmc__scatter_tree, tree_need, 1};
const struct shmc__coll_algo shmc__scatter_ring_algo = {shmc__scatter_ring, ring_need, 1};
const struct shmc__coll_algo shmc__scatter_shm_algo = {shmc__scatter_shm, NULL};
