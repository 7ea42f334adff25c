/*
 * The public collectives: argument checks, the in-place conventions, the trivial cases
 * (count 0, one rank), and the choice of algorithm, then a call into coll/<family>.c.
 *
 * Algorithm choice: SHMC_ALGO_<NAME> when set, otherwise the table in pick(), whose
 * crossover points come from bench/coll_bench (docs/collectives.md). Every rank derives
 * the same choice from the same arguments, rank count and environment.
 *
 * Device buffers: a call's buffers are all host or all device memory, on every member
 * (as NCCL and torch.distributed ask), so every member also derives the same choice for
 * a device call: one of the mailbox algorithms, whose messages travel GPU to GPU through
 * IPC handles (rndv.c) and whose local copies, reductions and scratch the device
 * backend does. The slot algorithms stage through host memory and are never used for
 * device buffers, even when SHMC_ALGO_* asks for them.
 */
#include <string.h>

#include "../log.h"
#include "coll.h"

/* ---- checks -------------------------------------------------------------------------- */

/* How many blocks of count elements a call's largest buffer holds. */
enum { NO_DATA, ONE_BLOCK, BLOCK_PER_RANK };

/* Fills x for a call on the communicator handle h; checks it, the dtype and that the
 * largest buffer's count elements per block fit in size_t. */
static int setup(struct shmc__cx *x, shmc_comm *h, size_t count, int blocks, shmc_dtype dt)
{
    if (shmc__g.state != SHMC_ST_READY)
        return SHMC_ERR_NOT_INIT;
    struct shmc__comm *comm = shmc__comm_get(h);
    if (!comm)
        return SHMC_ERR_ARG;
    size_t es = shmc__dtype_size(dt);
    size_t nblocks = blocks == BLOCK_PER_RANK ? (size_t)comm->size : blocks == ONE_BLOCK;
    if (!es || (nblocks && count > SIZE_MAX / es / nblocks))
        return SHMC_ERR_ARG;
    x->c = comm;
    x->n = comm->size;
    x->me = comm->rank;
    x->ctx = comm->ctx + 1;
    x->es = es;
    x->dt = dt;
    x->op = SHMC_SUM;
    x->root = 0;
    x->dev = 0;
    return shmc__job_ok();
}

/* The memory kind of the call on this rank, from the buffers it uses (NULL and
 * SHMC_IN_PLACE where it uses none): both of one kind, or SHMC_ERR_ARG. */
static int set_kind(struct shmc__cx *x, const void *a, const void *b)
{
    int da = a && a != SHMC_IN_PLACE && shmc__mk_dev(a);
    int db = b && b != SHMC_IN_PLACE && shmc__mk_dev(b);
    if (a && a != SHMC_IN_PLACE && b && b != SHMC_IN_PLACE && da != db) {
        SHMC_ERROR("a collective's send and receive buffers must both be host memory or both "
                   "device memory; copy one of them first");
        return SHMC_ERR_ARG;
    }
    x->dev = da || db;
    return SHMC_OK;
}

static int check_root(struct shmc__cx *x, int root)
{
    x->root = root;
    return root >= 0 && root < x->n ? SHMC_OK : SHMC_ERR_RANK;
}

static int check_op(struct shmc__cx *x, shmc_op op)
{
    x->op = op;
    return shmc__reduce_check(x->dt, op);
}

/* Send and receive buffers that share a byte, where the call uses both (the in-place
 * forms are the way to reuse a buffer). */
static int check_apart(const void *sbuf, size_t sbytes, const void *rbuf, size_t rbytes)
{
    if (sbuf == SHMC_IN_PLACE || rbuf == SHMC_IN_PLACE)
        return SHMC_OK;
    return shmc__overlap(sbuf, sbytes, rbuf, rbytes) ? SHMC_ERR_ARG : SHMC_OK;
}

/* ---- choice of algorithm ------------------------------------------------------------- */

/* bytes is each rank's whole buffer: the vector of broadcast, reduce and all-reduce, all
 * n blocks of the others (as bench/coll_bench measures it). Crossovers measured at 2, 4
 * and 8 ranks on the 2-core machine of docs/performance.md (docs/collectives.md). */
/* Device calls: the mailbox algorithms only. Every step of those costs a device copy or
 * kernel and its synchronisation (microseconds), so small calls take the fewest steps
 * (trees, recursive doubling) and large ones the rings, which move each byte least. */
static int pick_dev(int coll, const struct shmc__cx *x, size_t bytes, int forced)
{
    if (forced == SHMC_A_TREE || forced == SHMC_A_RING || forced == SHMC_A_RD ||
        forced == SHMC_A_DIRECT)
        return forced;
    int small = bytes <= (64u << 10) || x->n == 2;
    switch (coll) {
    case SHMC_C_BROADCAST:
    case SHMC_C_REDUCE:
        return small ? SHMC_A_TREE : SHMC_A_RING;
    case SHMC_C_ALLREDUCE:
        /* Large: one kernel per rank over every member's mapped buffers (devdirect.c). */
        return bytes <= (64u << 10) ? SHMC_A_RD : SHMC_A_DIRECT;
    case SHMC_C_GATHER:
    case SHMC_C_SCATTER:
        return SHMC_A_TREE;
    case SHMC_C_ALLGATHER:
    case SHMC_C_REDUCE_SCATTER:
    case SHMC_C_ALLTOALL:
        return SHMC_A_RING;
    default:
        return SHMC_A_TREE;
    }
}

static int pick(int coll, const struct shmc__cx *x, size_t bytes)
{
    int forced = shmc__g.cfg.algo[coll];
    if (x->dev)
        return pick_dev(coll, x, bytes, forced);
    if (forced != SHMC_A_AUTO)
        return forced;
    int n = x->n;
    const size_t K = 1024;
    switch (coll) {
    case SHMC_C_BARRIER:
        /* On the world communicator shm is one store and n - 1 loads (coll/wsync.c). */
        return n <= 4 && !shmc__wsync_ok(x) ? SHMC_A_RD : SHMC_A_SHM;
    case SHMC_C_BROADCAST:
        if (n == 2)
            return SHMC_A_TREE;
        if (bytes <= 8 * K)
            return n <= 4 ? SHMC_A_RING : SHMC_A_TREE;
        if (bytes <= 512 * K)
            return SHMC_A_SHM;
        return n <= 4 ? SHMC_A_RING : SHMC_A_TREE;
    case SHMC_C_REDUCE:
        if (n == 2)
            return bytes <= 256 * K ? SHMC_A_TREE : bytes <= 4 * K * K ? SHMC_A_RING : SHMC_A_SHM;
        return bytes <= 4 * K ? SHMC_A_TREE : SHMC_A_SHM;
    case SHMC_C_ALLREDUCE:
        if (shmc__wsync_ok(x) && bytes <= (n == 2 ? 256 : n <= 4 ? K : 4 * K))
            return SHMC_A_SHM;
        if (bytes <= 4 * K)
            return n <= 4 ? SHMC_A_RD : SHMC_A_SHM;
        /* Reading and writing the peers in place needs only two waits (coll/direct.c);
         * at 2 ranks both cores copy at once, where the ring's halves take turns, up to
         * 8 MiB (beyond, the ring was faster). */
        if (shmc__wsync_ok(x) && (n == 2   ? bytes > 8 * K && bytes <= 8 * K * K
                                  : n == 4 ? bytes > 32 * K
                                           : n > 4 && bytes > 64 * K))
            return SHMC_A_DIRECT;
        if (bytes <= 64 * K)
            return n == 2 ? SHMC_A_RING : SHMC_A_SHM;
        return SHMC_A_RING;
    case SHMC_C_GATHER:
        if (n == 2)
            return SHMC_A_RING;
        if (bytes <= 16 * K)
            return n <= 4 ? SHMC_A_RING : SHMC_A_TREE;
        return SHMC_A_SHM;
    case SHMC_C_ALLGATHER:
        if (n > 4)
            return SHMC_A_SHM;
        if (bytes <= 4 * K)
            return SHMC_A_RING;
        return bytes <= (n == 2 ? 64 * K : K * K) ? SHMC_A_SHM : SHMC_A_RING;
    case SHMC_C_SCATTER:
        return SHMC_A_TREE;
    case SHMC_C_REDUCE_SCATTER:
        if (n == 2 || bytes <= 4 * K || bytes > 64 * K)
            return SHMC_A_RING;
        return SHMC_A_SHM;
    case SHMC_C_ALLTOALL:
        if (bytes <= 4 * K)
            return n <= 4 ? SHMC_A_TREE : SHMC_A_SHM;
        return bytes <= 64 * K ? SHMC_A_SHM : SHMC_A_RING;
    default:
        return SHMC_A_TREE;
    }
}

/* ---- dispatch -------------------------------------------------------------------------- */

/* Every implemented (collective, algorithm); the same set shmc__algo_valid() accepts. */
static const shmc__coll_fn algorithms[SHMC_C_COUNT][SHMC_A_COUNT] = {
    [SHMC_C_BARRIER] = {[SHMC_A_TREE] = shmc__barrier_tree,
                        [SHMC_A_RING] = shmc__barrier_ring,
                        [SHMC_A_SHM] = shmc__barrier_shm,
                        [SHMC_A_RD] = shmc__barrier_rd},
    [SHMC_C_BROADCAST] = {[SHMC_A_TREE] = shmc__bcast_tree,
                          [SHMC_A_RING] = shmc__bcast_ring,
                          [SHMC_A_SHM] = shmc__bcast_shm},
    [SHMC_C_REDUCE] = {[SHMC_A_TREE] = shmc__reduce_tree,
                       [SHMC_A_RING] = shmc__reduce_ring,
                       [SHMC_A_SHM] = shmc__reduce_shm},
    [SHMC_C_ALLREDUCE] = {[SHMC_A_TREE] = shmc__allreduce_tree,
                          [SHMC_A_RING] = shmc__allreduce_ring,
                          [SHMC_A_SHM] = shmc__allreduce_shm,
                          [SHMC_A_RD] = shmc__allreduce_rd,
                          [SHMC_A_DIRECT] = shmc__allreduce_direct},
    [SHMC_C_GATHER] = {[SHMC_A_TREE] = shmc__gather_tree,
                       [SHMC_A_RING] = shmc__gather_ring,
                       [SHMC_A_SHM] = shmc__gather_shm},
    [SHMC_C_ALLGATHER] = {[SHMC_A_TREE] = shmc__allgather_tree,
                          [SHMC_A_RING] = shmc__allgather_ring,
                          [SHMC_A_SHM] = shmc__allgather_shm},
    [SHMC_C_SCATTER] = {[SHMC_A_TREE] = shmc__scatter_tree,
                        [SHMC_A_RING] = shmc__scatter_ring,
                        [SHMC_A_SHM] = shmc__scatter_shm},
    [SHMC_C_REDUCE_SCATTER] = {[SHMC_A_TREE] = shmc__reduce_scatter_tree,
                               [SHMC_A_RING] = shmc__reduce_scatter_ring,
                               [SHMC_A_SHM] = shmc__reduce_scatter_shm},
    [SHMC_C_ALLTOALL] = {[SHMC_A_TREE] = shmc__alltoall_tree,
                         [SHMC_A_RING] = shmc__alltoall_ring,
                         [SHMC_A_SHM] = shmc__alltoall_shm},
};

/* Memory first (coll/scratch.c), agreed by all members, then the algorithm, whose
 * requests come from the reserve (request.c tells them by their context). An in-place
 * all-to-all sends from a copy of rbuf in the last scratch buffer, since every block is
 * both sent and overwritten. */
int shmc__coll_run(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count,
                   size_t bytes)
{
    int algo = pick(coll, x, bytes), rc;
    if (x->dev && algo == SHMC_A_DIRECT) /* borrows nothing; may run the ring instead */
        return shmc__allreduce_devdirect(x, sbuf, rbuf, count);
    /* Most small calls borrow nothing: one bit says so, where computing every call's
     * needs took about 40 instructions, which a 0.2 us barrier would notice. */
    if ((shmc__coll_borrows[coll] >> algo & 1u) || sbuf == SHMC_IN_PLACE) {
        size_t need[SHMC_NSCRATCH];
        shmc__coll_need(coll, algo, x, count, need);
        if (sbuf == SHMC_IN_PLACE)
            need[SHMC_SCRATCH_INPLACE] = bytes;
        if ((rc = shmc__scratch_prepare(x, need)) != SHMC_OK)
            return rc;
        if (sbuf == SHMC_IN_PLACE) {
            void *copy = shmc__cx_scratch(x, SHMC_SCRATCH_INPLACE, bytes);
            SHMC_CX_COPY(x, copy, rbuf, bytes);
            sbuf = copy;
        }
    }
    return algorithms[coll][algo](x, sbuf, rbuf, count);
}

/* The common tail of every collective once its arguments are checked and resolved: with
 * SHMC_CHECK, the check that every member made the same call (check.c); nothing to do
 * for count 0; a local copy for one rank (whatever the collective, the result is then
 * the rank's own count elements); otherwise the chosen algorithm. bytes is what pick()
 * sizes by. */
static int run(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count,
               size_t bytes)
{
    if (x->n == 1) {
        if (count && sbuf && rbuf && sbuf != rbuf)
            return shmc__cx_copy(x, rbuf, sbuf, count * x->es);
        return SHMC_OK;
    }
    /* A collective that failed because a member is gone (or its mailbox broke) leaves the
     * members out of step: some returned early, others are still inside. From then on
     * every collective on the communicator fails at its start, rather than meeting that
     * call's leftovers (which would read as a mismatch, or wait forever). A member gone
     * after doing its part of a call (a gather's sender, say) fails nothing. Point-to-
     * point on the communicator still works between the members that remain. */
    if (x->c->coll_err)
        return x->c->coll_err;
    int rc = SHMC_OK;
    if (shmc__g.cfg.check)
        rc = shmc__coll_check(coll, x, count);
    if (rc == SHMC_OK && count)
        rc = shmc__coll_run(coll, x, sbuf, rbuf, count, bytes);
    if (rc == SHMC_ERR_PEER_DEAD || rc == SHMC_ERR_CORRUPT)
        x->c->coll_err = rc;
    return rc;
}

/* ---- the collectives ------------------------------------------------------------------- */

SHMC_API int shmc_barrier(shmc_comm *comm)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, 0, NO_DATA, SHMC_UINT8);
    /* No data, but never skipped: count 1 keeps run() from returning early. */
    return rc != SHMC_OK ? rc : run(SHMC_C_BARRIER, &x, NULL, NULL, 1, 0);
}

SHMC_API int shmc_broadcast(void *buf, size_t count, shmc_dtype dtype, int root, shmc_comm *comm)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, ONE_BLOCK, dtype);
    if (rc != SHMC_OK || (rc = check_root(&x, root)) != SHMC_OK)
        return rc;
    if (count && (!buf || buf == SHMC_IN_PLACE))
        return SHMC_ERR_ARG;
    if (count && (rc = set_kind(&x, buf, NULL)) != SHMC_OK)
        return rc;
    return run(SHMC_C_BROADCAST, &x, NULL, buf, count, count * x.es);
}

SHMC_API int shmc_reduce(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, shmc_op op,
                         int root, shmc_comm *comm)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, ONE_BLOCK, dtype);
    if (rc != SHMC_OK || (rc = check_root(&x, root)) != SHMC_OK || (rc = check_op(&x, op)))
        return rc;
    if (x.me == root && (rc = check_apart(sbuf, count * x.es, rbuf, count * x.es)))
        return rc;
    if (sbuf == SHMC_IN_PLACE)
        sbuf = rbuf;
    if (count && (!sbuf || rbuf == SHMC_IN_PLACE || (x.me == root && !rbuf)))
        return SHMC_ERR_ARG;
    if (count && (rc = set_kind(&x, sbuf, x.me == root ? rbuf : NULL)) != SHMC_OK)
        return rc;
    return run(SHMC_C_REDUCE, &x, sbuf, rbuf, count, count * x.es);
}

SHMC_API int shmc_allreduce(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                            shmc_op op, shmc_comm *comm)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, ONE_BLOCK, dtype);
    if (rc != SHMC_OK || (rc = check_op(&x, op)) != SHMC_OK ||
        (rc = check_apart(sbuf, count * x.es, rbuf, count * x.es)))
        return rc;
    if (sbuf == SHMC_IN_PLACE)
        sbuf = rbuf;
    if (count && (!sbuf || !rbuf || rbuf == SHMC_IN_PLACE))
        return SHMC_ERR_ARG;
    if (count && (rc = set_kind(&x, sbuf, rbuf)) != SHMC_OK)
        return rc;
    return run(SHMC_C_ALLREDUCE, &x, sbuf, rbuf, count, count * x.es);
}

SHMC_API int shmc_gather(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, int root,
                         shmc_comm *comm)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, BLOCK_PER_RANK, dtype);
    if (rc != SHMC_OK || (rc = check_root(&x, root)) != SHMC_OK)
        return rc;
    if (x.me == root && (rc = check_apart(sbuf, count * x.es, rbuf, count * x.es * (size_t)x.n)))
        return rc;
    /* Inside, a NULL sbuf at the root means in place: a caller's NULL must not. */
    if (count && (!sbuf || (x.me == root && (!rbuf || rbuf == SHMC_IN_PLACE))))
        return SHMC_ERR_ARG;
    if (sbuf == SHMC_IN_PLACE) {
        if (x.me != root)
            return SHMC_ERR_ARG; /* only the root's block can already be in place */
        sbuf = NULL;
    }
    if (count && (rc = set_kind(&x, sbuf, x.me == root ? rbuf : NULL)) != SHMC_OK)
        return rc;
    return run(SHMC_C_GATHER, &x, sbuf, rbuf, count, count * x.es * (size_t)x.n);
}

SHMC_API int shmc_allgather(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                            shmc_comm *comm)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, BLOCK_PER_RANK, dtype);
    if (rc != SHMC_OK || (rc = check_apart(sbuf, count * x.es, rbuf, count * x.es * (size_t)x.n)))
        return rc;
    if (sbuf == SHMC_IN_PLACE)
        sbuf = NULL;
    else if (count && !sbuf)
        return SHMC_ERR_ARG;
    if (count && (!rbuf || rbuf == SHMC_IN_PLACE))
        return SHMC_ERR_ARG;
    if (count && (rc = set_kind(&x, sbuf, rbuf)) != SHMC_OK)
        return rc;
    return run(SHMC_C_ALLGATHER, &x, sbuf, rbuf, count, count * x.es * (size_t)x.n);
}

SHMC_API int shmc_scatter(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, int root,
                          shmc_comm *comm)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, BLOCK_PER_RANK, dtype);
    if (rc != SHMC_OK || (rc = check_root(&x, root)) != SHMC_OK)
        return rc;
    if (x.me == root && (rc = check_apart(sbuf, count * x.es * (size_t)x.n, rbuf, count * x.es)))
        return rc;
    /* Inside, a NULL rbuf at the root means in place: a caller's NULL must not. */
    if (count && (!rbuf || (x.me == root && (!sbuf || sbuf == SHMC_IN_PLACE))))
        return SHMC_ERR_ARG;
    if (rbuf == SHMC_IN_PLACE) {
        if (x.me != root)
            return SHMC_ERR_ARG; /* only the root keeps its block where it is */
        rbuf = NULL;
    }
    if (count && (rc = set_kind(&x, x.me == root ? sbuf : NULL, rbuf)) != SHMC_OK)
        return rc;
    return run(SHMC_C_SCATTER, &x, sbuf, rbuf, count, count * x.es * (size_t)x.n);
}

SHMC_API int shmc_reduce_scatter(const void *sbuf, void *rbuf, size_t recvcount, shmc_dtype dtype,
                                 shmc_op op, shmc_comm *comm)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, recvcount, BLOCK_PER_RANK, dtype);
    if (rc != SHMC_OK || (rc = check_op(&x, op)) != SHMC_OK ||
        (rc = check_apart(sbuf, recvcount * x.es * (size_t)x.n, rbuf, recvcount * x.es)))
        return rc;
    if (sbuf == SHMC_IN_PLACE)
        sbuf = rbuf; /* rbuf holds all n blocks; the result replaces the first */
    if (recvcount && (!sbuf || !rbuf || rbuf == SHMC_IN_PLACE))
        return SHMC_ERR_ARG;
    if (recvcount && (rc = set_kind(&x, sbuf, rbuf)) != SHMC_OK)
        return rc;
    return run(SHMC_C_REDUCE_SCATTER, &x, sbuf, rbuf, recvcount, recvcount * x.es * (size_t)x.n);
}

SHMC_API int shmc_alltoall(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                           shmc_comm *comm)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, BLOCK_PER_RANK, dtype);
    if (rc != SHMC_OK)
        return rc;
    if (count && (!sbuf || !rbuf || rbuf == SHMC_IN_PLACE))
        return SHMC_ERR_ARG;
    size_t total = (size_t)x.n * count * x.es;
    if ((rc = check_apart(sbuf, total, rbuf, total)))
        return rc;
    if (sbuf == SHMC_IN_PLACE && x.n == 1)
        sbuf = rbuf;
    /* In place on several ranks: shmc__coll_run sends from a copy. */
    if (count && (rc = set_kind(&x, sbuf, rbuf)) != SHMC_OK)
        return rc;
    return run(SHMC_C_ALLTOALL, &x, sbuf, rbuf, count, total);
}
