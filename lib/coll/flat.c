/*
 * The rooted collectives in one step (algorithm "direct"): every rank deals with the root
 * alone, and the root with each of them.
 *   broadcast: the root sends the whole message to each rank.
 *   scatter:   the root sends each rank its block.
 *   gather:    each rank sends its block to the root, which receives them in place.
 *   reduce:    each rank sends its input to the root, which combines all of them in rank
 *              order 0, 1, ..., n - 1, left to right: shm's order, so the same bits.
 * Why: in a tree or a chain a rank waits for the ranks between it and the root, and
 * when ranks outnumber cores each of those must first be scheduled; here no rank waits
 * for any but the root, at the price of n - 1 messages through the root. After a
 * barrier, as the OSU benchmarks time them, that is several times faster when ranks
 * share cores, for small blocks (docs/collectives.md gives the sizes where each is
 * chosen; coll_bench --algo each measures it).
 */
#include "coll/algos.h"
#include "coll/local.h"
#include "coll/scratch.h"
#include "coll/xfer.h"

/* The root's part of a broadcast to more than 2 ranks. */
static __attribute__((noinline)) int bcast_root(const struct shmc__cx *x, void *buf, size_t bytes)
{
    size_t nreq;
    struct shmc__request *reqs[SHMC_MAX_RANKS];
    int rc = shmc__cx_post_all(x, buf, 0, bytes, 0, reqs, &nreq);
    return rc != SHMC_OK ? rc : shmc__cx_waitall(x, nreq, reqs);
}

/* Each rank's part of the direct calls is a function of its own, so that a rank whose
 * part is one message sends or receives it by a tail call from the entry, without the
 * frame that the root's table of requests needs: each store a call makes between two
 * messages into a mailbox counts far, since a store to the line the receiver polls waits
 * for that line and the stores after it wait behind it (docs/performance.md). */
int shmc__bcast_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    (void)sbuf;
    size_t bytes = count * x->es;
    if (x->me != x->root)
        return shmc__cx_recv(x, rbuf, bytes, x->root);
    /* One message to send: no table of requests. */
    if (x->n == 2)
        return shmc__cx_send(x, rbuf, bytes, !x->root);
    return bcast_root(x, rbuf, bytes);
}

/* A scatter root's own block, copied while the others' travel (rbuf NULL: it keeps it in
 * sbuf), then the wait for the n requests of its sends. */
static inline int scatter_own(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t bytes,
                              size_t n, struct shmc__request **reqs)
{
    const uint8_t *mine = (const uint8_t *)sbuf + (size_t)x->root * bytes;
    return shmc__cx_copy_waitall(x, rbuf, mine, rbuf && rbuf != mine ? bytes : 0, n, reqs);
}

/* The root's part of a 2-rank scatter: one message, as the broadcast's. */
static __attribute__((noinline)) int scatter_pair_root(const struct shmc__cx *x, const void *sbuf,
                                                       void *rbuf, size_t bytes)
{
    struct shmc__request *r;
    int rc =
        shmc__cx_isend(x, (const uint8_t *)sbuf + (size_t)!x->root * bytes, bytes, !x->root, &r);
    return rc != SHMC_OK ? rc : scatter_own(x, sbuf, rbuf, bytes, 1, &r);
}

/* The root's part of a scatter to more ranks. */
static __attribute__((noinline)) int scatter_root(const struct shmc__cx *x, const void *sbuf,
                                                  void *rbuf, size_t bytes)
{
    size_t nreq;
    struct shmc__request *reqs[SHMC_MAX_RANKS];
    int rc = shmc__cx_post_all(x, (uint8_t *)sbuf, bytes, bytes, 0, reqs, &nreq);
    return rc != SHMC_OK ? rc : scatter_own(x, sbuf, rbuf, bytes, nreq, reqs);
}

int shmc__scatter_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    size_t bytes = count * x->es;
    if (x->me != x->root)
        return shmc__cx_recv(x, rbuf, bytes, x->root);
    return x->n == 2 ? scatter_pair_root(x, sbuf, rbuf, bytes) : scatter_root(x, sbuf, rbuf, bytes);
}

/* The root's part of a 2-rank gather: one block to receive, taken straight from the
 * mailbox where nothing else is pending, as a broadcast's is, with no request (xfer.c);
 * sbuf NULL: the root's block is already in place. */
static __attribute__((noinline)) int gather_pair_root(const struct shmc__cx *x, const void *sbuf,
                                                      void *rbuf, size_t bytes)
{
    uint8_t *mine = (uint8_t *)rbuf + (size_t)x->root * bytes;
    int rc = shmc__cx_copy(x, mine, sbuf, sbuf && mine != sbuf ? bytes : 0);
    return rc != SHMC_OK
               ? rc
               : shmc__cx_recv(x, (uint8_t *)rbuf + (size_t)!x->root * bytes, bytes, !x->root);
}

/* The root's part of a gather from more ranks. */
static __attribute__((noinline)) int gather_root(const struct shmc__cx *x, const void *sbuf,
                                                 void *rbuf, size_t bytes)
{
    size_t nreq;
    struct shmc__request *reqs[SHMC_MAX_RANKS];
    uint8_t *mine = (uint8_t *)rbuf + (size_t)x->root * bytes;
    int rc = shmc__cx_post_all(x, rbuf, bytes, bytes, 1, reqs, &nreq);
    if (rc != SHMC_OK)
        return rc;
    return shmc__cx_copy_waitall(x, mine, sbuf, sbuf && mine != sbuf ? bytes : 0, nreq, reqs);
}

int shmc__gather_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    size_t bytes = count * x->es;
    if (x->me != x->root)
        return shmc__cx_send(x, sbuf, bytes, x->root);
    return x->n == 2 ? gather_pair_root(x, sbuf, rbuf, bytes) : gather_root(x, sbuf, rbuf, bytes);
}

/* How many inputs the root's scratch holds at once: all of them up to REDUCE_WINDOW bytes,
 * else as many as fit in it, at least two (one being folded while the next arrives). */
#define REDUCE_WINDOW ((size_t)1 << 20)

static size_t reduce_blocks(int n, size_t bytes)
{
    size_t all = (size_t)n - 1, fit = bytes ? REDUCE_WINDOW / bytes : all;
    if (fit < 2)
        fit = 2;
    return fit < all ? fit : all;
}

/* The i-th rank other than the root, in rank order. */
static int nonroot(size_t i, int root)
{
    return (int)i < root ? (int)i : (int)i + 1;
}

int shmc__reduce_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int root = x->root, n = x->n, rc = SHMC_OK;
    size_t bytes = count * x->es, w = reduce_blocks(n, bytes), others = (size_t)n - 1;
    struct shmc__request *reqs[SHMC_MAX_RANKS] = {0};
    if (x->me != root)
        return shmc__cx_send(x, sbuf, bytes, root);
    /* The i-th other rank's input arrives in block i % w: folding it frees the block for
     * the input w ranks later, so the scratch stays bounded whatever n * bytes is. Block
     * w keeps the root's own input when it is rbuf and other inputs go there first (a
     * root other than 0, in place). */
    uint8_t *in = shmc__cx_scratch(x, 0, (w + 1) * bytes);
    if (!in)
        return SHMC_ERR_NOMEM;
    const uint8_t *own = sbuf;
    if (root != 0 && sbuf == rbuf) {
        own = in + w * bytes;
        if ((rc = shmc__cx_copy(x, (void *)own, sbuf, bytes)) != SHMC_OK)
            return rc;
    }
    for (size_t i = 0; i < w; i++)
        if ((rc = shmc__cx_irecv_kept(x, in + i * bytes, bytes, nonroot(i, root), &reqs[i])) !=
            SHMC_OK)
            goto fail;
    size_t i = 0; /* inputs folded from other ranks */
    /* A root 0's own input, combined with rank 1's in one pass instead of copied first (an
     * input in a block could not wait: its block takes the next input). */
    const uint8_t *first = NULL;
    for (int r = 0; r < n; r++) {
        size_t k = r == root ? 0 : i % w; /* w is 0 on one rank */
        const uint8_t *src = r == root ? own : in + k * bytes;
        if (r != root && (rc = shmc__cx_waitall(x, 1, &reqs[k])) != SHMC_OK)
            goto fail;
        if (r == root && root == 0 && own != rbuf && n > 1) {
            first = src;
        } else if (r == 0) {
            rc = src == rbuf ? SHMC_OK : shmc__cx_copy(x, rbuf, src, bytes);
        } else if (first) {
            rc = shmc__cx_reduce_into(x, rbuf, first, src, count);
            first = NULL;
        } else {
            rc = shmc__cx_reduce(x, rbuf, src, count, SHMC_ACC_LEFT);
        }
        if (rc != SHMC_OK)
            goto fail;
        if (r != root && ++i + w <= others &&
            (rc = shmc__cx_irecv_kept(x, in + k * bytes, bytes, nonroot(i + w - 1, root),
                                      &reqs[k])) != SHMC_OK)
            goto fail;
    }
    return shmc__cx_finish(x, rbuf, count);
fail:
    shmc__cx_cancel(x, w, reqs);
    return rc;
}

/* The root's input blocks and its own (see shmc__reduce_direct). */
static void reduce_need(const struct shmc__cx *x, size_t count, size_t need[SHMC_NSCRATCH])
{
    size_t bytes = count * x->es;
    need[0] = (reduce_blocks(x->n, bytes) + 1) * bytes;
}

const struct shmc__coll_algo shmc__bcast_direct_algo = {shmc__bcast_direct, NULL};
const struct shmc__coll_algo shmc__scatter_direct_algo = {shmc__scatter_direct, NULL};
const struct shmc__coll_algo shmc__gather_direct_algo = {shmc__gather_direct, NULL};
const struct shmc__coll_algo shmc__reduce_direct_algo = {shmc__reduce_direct, reduce_need};
