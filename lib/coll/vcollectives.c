/*
 * The public v-collectives and prefix reductions (shmcomm.h): argument checks, in-place
 * forms, one rank, then the algorithm (vblocks.c, scan.c). The counts are each rank's
 * own, so the call's words carry count 0 (reduce_scatterv: the total, which every member
 * computes from the same array).
 */
#include "coll/algos.h"
#include "coll/entry.h"

/* Counts and displacements a rank reads: the arrays present, and their blocks' extent
 * in bytes fits (*bytes). */
static int check_blocks(const struct shmc__cx *x, const size_t *counts, const size_t *displs,
                        size_t *bytes)
{
    if (!counts || !displs)
        return SHMC_ERR_ARG;
    size_t e = extent(x->n, counts, displs);
    if (e > SIZE_MAX / x->es)
        return SHMC_ERR_ARG;
    *bytes = e * x->es;
    return SHMC_OK;
}

/* A rank's own block of count elements at buf: it fits size_t and, if it holds any
 * element, is a buffer. */
static int check_own(const struct shmc__cx *x, const void *buf, size_t count)
{
    if (count > SIZE_MAX / x->es || (count && (!buf || buf == SHMC_IN_PLACE)))
        return SHMC_ERR_ARG;
    return SHMC_OK;
}

/* One rank's copy to itself (a communicator of one): nothing for an empty block, whose
 * buffers may be NULL. */
static int copy_one(void *dst, const void *src, size_t bytes, int dev)
{
    return bytes ? shmc__copy_kind(dst, src, bytes, dev) : SHMC_OK;
}

/* The common tail: one more member-wide check that the call is alive, the call's words
 * (with SHMC_CHECK), the algorithm's outcome. */
#define RUN_V(coll, x, count, algorithm)                                                           \
    do {                                                                                           \
        int rc_ = shmc__cx_failed(x);                                                              \
        if (rc_ != SHMC_OK)                                                                        \
            return rc_;                                                                            \
        rc_ = start((coll), (x), (count));                                                         \
        if (rc_ == SHMC_OK)                                                                        \
            rc_ = (algorithm);                                                                     \
        return shmc__cx_leave((x), shmc__cx_outcome((x), rc_));                                    \
    } while (0)

static int gatherv_call(const void *sbuf, size_t scount, void *rbuf, const size_t *rcounts,
                        const size_t *displs, shmc_dtype dtype, int root, shmc_comm *comm)
{
    struct shmc__cx x;
    size_t rbytes = 0;
    int rc = setup(&x, comm, 0, NO_DATA, dtype);
    if (rc != SHMC_OK || (rc = check_root(&x, root)) != SHMC_OK)
        return rc;
    int root_me = x.me == root, in_place = sbuf == SHMC_IN_PLACE;
    if (in_place && !root_me)
        return SHMC_ERR_ARG; /* only the root's block can already be in place */
    if (!in_place && (rc = check_own(&x, sbuf, scount)) != SHMC_OK)
        return rc;
    if (root_me) {
        if ((rc = check_blocks(&x, rcounts, displs, &rbytes)) != SHMC_OK)
            return rc;
        if (rbytes && (!rbuf || rbuf == SHMC_IN_PLACE))
            return SHMC_ERR_ARG;
        if (!in_place && shmc__overlap(sbuf, scount * x.es, rbuf, rbytes))
            return SHMC_ERR_ARG;
    }
    const void *own = in_place ? NULL : sbuf;
    if ((rc = set_kind(&x, scount ? own : NULL, rbytes ? rbuf : NULL)) != SHMC_OK)
        return rc;
    if (x.n == 1) {
        if (in_place)
            return SHMC_OK;
        if (scount != rcounts[0])
            return SHMC_ERR_MISMATCH;
        return copy_one((uint8_t *)rbuf + displs[0] * x.es, sbuf, scount * x.es, x.dev);
    }
    RUN_V(SHMC_CALL_GATHERV, &x, 0, shmc__gatherv_direct(&x, own, scount, rbuf, rcounts, displs));
}

static int scatterv_call(const void *sbuf, const size_t *scounts, const size_t *displs, void *rbuf,
                         size_t rcount, shmc_dtype dtype, int root, shmc_comm *comm)
{
    struct shmc__cx x;
    size_t sbytes = 0;
    int rc = setup(&x, comm, 0, NO_DATA, dtype);
    if (rc != SHMC_OK || (rc = check_root(&x, root)) != SHMC_OK)
        return rc;
    int root_me = x.me == root, in_place = rbuf == SHMC_IN_PLACE;
    if (in_place && !root_me)
        return SHMC_ERR_ARG; /* only the root keeps its block where it is */
    if (!in_place && (rc = check_own(&x, rbuf, rcount)) != SHMC_OK)
        return rc;
    if (root_me) {
        if ((rc = check_blocks(&x, scounts, displs, &sbytes)) != SHMC_OK)
            return rc;
        if (sbytes && (!sbuf || sbuf == SHMC_IN_PLACE))
            return SHMC_ERR_ARG;
        if (!in_place && shmc__overlap(sbuf, sbytes, rbuf, rcount * x.es))
            return SHMC_ERR_ARG;
    }
    void *own = in_place ? NULL : rbuf;
    if ((rc = set_kind(&x, sbytes ? sbuf : NULL, rcount ? own : NULL)) != SHMC_OK)
        return rc;
    if (x.n == 1) {
        if (in_place)
            return SHMC_OK;
        if (rcount != scounts[0])
            return SHMC_ERR_MISMATCH;
        return copy_one(rbuf, (const uint8_t *)sbuf + displs[0] * x.es, rcount * x.es, x.dev);
    }
    RUN_V(SHMC_CALL_SCATTERV, &x, 0, shmc__scatterv_direct(&x, sbuf, scounts, displs, own, rcount));
}

static int allgatherv_call(const void *sbuf, size_t scount, void *rbuf, const size_t *rcounts,
                           const size_t *displs, shmc_dtype dtype, shmc_comm *comm)
{
    struct shmc__cx x;
    size_t rbytes = 0;
    int rc = setup(&x, comm, 0, NO_DATA, dtype);
    if (rc != SHMC_OK || (rc = check_blocks(&x, rcounts, displs, &rbytes)) != SHMC_OK)
        return rc;
    int in_place = sbuf == SHMC_IN_PLACE;
    if (!in_place && (rc = check_own(&x, sbuf, scount)) != SHMC_OK)
        return rc;
    if (rbytes && (!rbuf || rbuf == SHMC_IN_PLACE))
        return SHMC_ERR_ARG;
    if (!in_place && shmc__overlap(sbuf, scount * x.es, rbuf, rbytes))
        return SHMC_ERR_ARG;
    const void *own = in_place ? NULL : sbuf;
    if ((rc = set_kind(&x, scount ? own : NULL, rbytes ? rbuf : NULL)) != SHMC_OK)
        return rc;
    if (x.n == 1) {
        if (in_place)
            return SHMC_OK;
        if (scount != rcounts[0])
            return SHMC_ERR_MISMATCH;
        return copy_one((uint8_t *)rbuf + displs[0] * x.es, sbuf, scount * x.es, x.dev);
    }
    RUN_V(SHMC_CALL_ALLGATHERV, &x, 0, shmc__allgatherv(&x, own, scount, rbuf, rcounts, displs));
}

static int reduce_scatterv_call(const void *sbuf, void *rbuf, const size_t *rcounts,
                                shmc_dtype dtype, shmc_op op, shmc_comm *comm)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, 0, NO_DATA, dtype);
    if (rc != SHMC_OK || (rc = check_op(&x, op)) != SHMC_OK)
        return rc;
    if (!rcounts)
        return SHMC_ERR_ARG;
    size_t total = 0;
    for (int r = 0; r < x.n; r++) {
        if (rcounts[r] > SIZE_MAX / x.es - total)
            return SHMC_ERR_ARG;
        total += rcounts[r];
    }
    size_t mine = rcounts[x.me];
    if ((rc = check_apart(sbuf, total * x.es, rbuf, mine * x.es)) != SHMC_OK)
        return rc;
    if (sbuf == SHMC_IN_PLACE)
        sbuf = rbuf; /* rbuf holds the whole input; part me replaces its first elements */
    if ((total && (!sbuf || rbuf == SHMC_IN_PLACE)) || (mine && !rbuf))
        return SHMC_ERR_ARG;
    if ((rc = set_kind(&x, total ? sbuf : NULL, mine ? rbuf : NULL)) != SHMC_OK)
        return rc;
    if (x.n == 1)
        return sbuf != rbuf ? copy_one(rbuf, sbuf, mine * x.es, x.dev) : SHMC_OK;
    if (!total) {
        /* Every member holds the same counts: none has anything to move. */
        return shmc__cx_failed(&x);
    }
    RUN_V(SHMC_CALL_REDUCE_SCATTERV, &x, total,
          shmc__reduce_scatterv_direct(&x, sbuf, rbuf, rcounts));
}

static int scan_call(int exclusive, const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                     shmc_op op, shmc_comm *comm)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, ONE_BLOCK, dtype);
    if (rc != SHMC_OK || (rc = check_op(&x, op)) != SHMC_OK ||
        (rc = check_apart(sbuf, count * x.es, rbuf, count * x.es)) != SHMC_OK)
        return rc;
    if (sbuf == SHMC_IN_PLACE)
        sbuf = rbuf;
    if (count && (!sbuf || !rbuf || rbuf == SHMC_IN_PLACE))
        return SHMC_ERR_ARG;
    if (count && (rc = set_kind(&x, sbuf, rbuf)) != SHMC_OK)
        return rc;
    if (!count)
        return SHMC_OK;
    if (x.n == 1)
        return exclusive || sbuf == rbuf ? SHMC_OK
                                         : shmc__copy_kind(rbuf, sbuf, count * x.es, x.dev);
    RUN_V(exclusive ? SHMC_CALL_EXSCAN : SHMC_CALL_SCAN, &x, count,
          shmc__scan_rd(&x, sbuf, rbuf, count, exclusive));
}

/* ---- the public entry points: one call at a time per process (shmcomm.h, Threads) ---- */

SHMC_API int shmc_gatherv(const void *sbuf, size_t scount, void *rbuf, const size_t *rcounts,
                          const size_t *displs, shmc_dtype dtype, int root, shmc_comm *comm)
{
    SHMC_GUARDED_COLL(gatherv_call(sbuf, scount, rbuf, rcounts, displs, dtype, root, comm));
}

SHMC_API int shmc_scatterv(const void *sbuf, const size_t *scounts, const size_t *displs,
                           void *rbuf, size_t rcount, shmc_dtype dtype, int root, shmc_comm *comm)
{
    SHMC_GUARDED_COLL(scatterv_call(sbuf, scounts, displs, rbuf, rcount, dtype, root, comm));
}

SHMC_API int shmc_allgatherv(const void *sbuf, size_t scount, void *rbuf, const size_t *rcounts,
                             const size_t *displs, shmc_dtype dtype, shmc_comm *comm)
{
    SHMC_GUARDED_COLL(allgatherv_call(sbuf, scount, rbuf, rcounts, displs, dtype, comm));
}

SHMC_API int shmc_reduce_scatterv(const void *sbuf, void *rbuf, const size_t *rcounts,
                                  shmc_dtype dtype, shmc_op op, shmc_comm *comm)
{
    SHMC_GUARDED_COLL(reduce_scatterv_call(sbuf, rbuf, rcounts, dtype, op, comm));
}

SHMC_API int shmc_scan(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, shmc_op op,
                       shmc_comm *comm)
{
    SHMC_GUARDED_COLL(scan_call(0, sbuf, rbuf, count, dtype, op, comm));
}

SHMC_API int shmc_exscan(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, shmc_op op,
                         shmc_comm *comm)
{
    SHMC_GUARDED_COLL(scan_call(1, sbuf, rbuf, count, dtype, op, comm));
}
