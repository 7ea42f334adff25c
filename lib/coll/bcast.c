/*
 * Broadcast algorithms (virtual ranks: v = (rank - root) mod n, so the root is 0).
 *   tree: binomial: v receives from v - lowbit(v), then sends to v + 2^k for each 2^k
 *         below lowbit(v). log2 n steps of the whole message.
 *   ring: a chain 0 -> 1 -> ... -> n-1, pipelined in chunks so that every link is busy:
 *         (n - 2 + chunks) chunk steps.
 *   shm:  the root copies each chunk into its slot once; everyone copies it out.
 *   direct: the root sends to every other rank itself (flat.c).
 * Every rank ends with the root's bytes; no arithmetic, so nothing to order.
 */
#include <string.h>

#include "base/copy.h"
#include "coll/algos.h"
#include "coll/slot.h"
#include "coll/wround.h"
#include "coll/xfer.h"

#define RING_CHUNK (256u << 10)
#define RING_WINDOW 8

int shmc__bcast_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int root = x->root;
    (void)sbuf;
    int n = x->n, v = shmc__vrank(x->me, root, n), rc, mask, nreq = 0;
    size_t bytes = count * x->es;
    struct shmc__request *reqs[32];
    for (mask = 1; mask < n; mask <<= 1) {
        if (v & mask) {
            if ((rc = shmc__cx_recv(x, rbuf, bytes, shmc__rrank(v - mask, root, n))) != SHMC_OK)
                return rc;
            break;
        }
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (v + mask >= n)
            continue;
        rc = shmc__cx_isend(x, rbuf, bytes, shmc__rrank(v + mask, root, n), &reqs[nreq]);
        if (rc != SHMC_OK) {
            shmc__cx_waitall(x, (size_t)nreq, reqs);
            return rc;
        }
        nreq++;
    }
    return shmc__cx_waitall(x, (size_t)nreq, reqs);
}

int shmc__bcast_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int root = x->root;
    (void)sbuf;
    int n = x->n, v = shmc__vrank(x->me, root, n), rc = SHMC_OK;
    int prev = shmc__rrank(v - 1 + n, root, n), next = shmc__rrank(v + 1, root, n);
    size_t bytes = count * x->es, nch = (bytes + RING_CHUNK - 1) / RING_CHUNK;
    struct shmc__request *rq[2] = {NULL, NULL}, *sq[RING_WINDOW] = {NULL};
    uint8_t *p = rbuf;

#define CHUNK_LEN(i) ((i) + 1 < nch ? RING_CHUNK : bytes - (i) * (size_t)RING_CHUNK)
    if (v > 0)
        rc = shmc__cx_irecv(x, p, CHUNK_LEN(0), prev, &rq[0]);
    for (size_t i = 0; i < nch && rc == SHMC_OK; i++) {
        if (v > 0) {
            /* The next chunk's receive is posted before this one is awaited. */
            if (i + 1 < nch)
                rc = shmc__cx_irecv(x, p + (i + 1) * RING_CHUNK, CHUNK_LEN(i + 1), prev,
                                    &rq[(i + 1) & 1]);
            int wrc = shmc__cx_waitall(x, 1, &rq[i & 1]);
            if (rc == SHMC_OK)
                rc = wrc;
        }
        if (v < n - 1 && rc == SHMC_OK) {
            struct shmc__request **s = &sq[i % RING_WINDOW];
            if (*s && (rc = shmc__cx_waitall(x, 1, s)) != SHMC_OK)
                break;
            rc = shmc__cx_isend(x, p + i * RING_CHUNK, CHUNK_LEN(i), next, s);
        }
    }
#undef CHUNK_LEN
    shmc__cx_cancel(x, 2, rq);
    int wrc = shmc__cx_waitall(x, RING_WINDOW, sq);
    return rc != SHMC_OK ? rc : wrc;
}

int shmc__bcast_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    if (shmc__wround_blocking(SHMC_C_BROADCAST, x, count))
        return shmc__wround_run(SHMC_C_BROADCAST, x, sbuf, rbuf, count);
    int root = x->root;
    (void)sbuf;
    size_t bytes = count * x->es;
    uint8_t *p = rbuf;
    int rc;
    for (size_t off = 0; off < bytes; off += SHMC_SLOT_BYTES) {
        size_t len = shmc__chunk(bytes, off, SHMC_SLOT_BYTES);
        uint64_t stamp = shmc__slot_next(x);
        if (x->me == root) {
            uint8_t *slot;
            if ((rc = shmc__slot_acquire(x, stamp, len, &slot)) != SHMC_OK)
                return rc;
            shmc__copy(slot, p + off, len);
            shmc__slot_publish(x, stamp, len, -1);
        } else {
            const uint8_t *slot;
            if ((rc = shmc__slot_wait(x, root, stamp, len, &slot)) != SHMC_OK)
                return rc;
            shmc__copy(p + off, slot, len);
            shmc__slot_done(x, root, stamp);
        }
    }
    return SHMC_OK;
}

const struct shmc__coll_algo shmc__bcast_tree_algo = {shmc__bcast_tree, NULL};
const struct shmc__coll_algo shmc__bcast_ring_algo = {shmc__bcast_ring, NULL};
const struct shmc__coll_algo shmc__bcast_shm_algo = {shmc__bcast_shm, NULL};
