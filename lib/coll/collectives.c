/*
 * The public collectives: argument checks, the in-place conventions, a buffer's memory
 * kind, the trivial cases (count 0, one rank), SHMC_CHECK's agreement (check.c), then the
 * chosen algorithm (dispatch.c).
 */
#include <string.h>

#include "coll/algos.h"
#include "coll/entry.h"

/* ---- the collectives ------------------------------------------------------------------- */

/* Each call's body, shared by its blocking and nonblocking entry points, is inlined into
 * both: as a function of its own it cost every call a frame (its return address and saved
 * registers among them), and stores count on the path of small calls made back to back
 * (flat.c, shmc__bcast_direct). */
#define CALL_BODY inline __attribute__((always_inline))

static CALL_BODY int shmc_barrier_call(shmc_comm *comm, struct shmc__request **nb)
{
    struct shmc__cx x;
    const shmc_dtype dt = SHMC_UINT8;
    int rc = setup(&x, comm, 0, NO_DATA, dt);
    x.nb = nb;
    if (rc != SHMC_OK)
        return rc;
    /* A blocking barrier of several members by shared memory or by messages (not a
     * schedule of its own: run's by_schedule) goes to its algorithm kept per communicator
     * (shmc__coll_barrier). Its words, those of x, are worked out by the compiler from a
     * copy it can see whole (x's address goes to functions it cannot see). */
    if (!nb && x.n > 1 && !x.cc->sched) {
        struct shmc__cx same;
        uint64_t w[2];
        shmc__cx_init(&same, x.co, x.c, dt);
        shmc__call_words(SHMC_C_BARRIER, &same, 1, w);
        SHMC_CX_RUN_WORDS(SHMC_C_BARRIER, &x, 1, w, shmc__coll_barrier(&x));
    }
    /* A nonblocking one of the world by shared memory goes to the lane's rounds at once,
     * as the blocking one goes to its kept algorithm above: run()'s questions on the way
     * there (a schedule's memory kind and words, which lane and how) have one answer here,
     * shmc__nbw_takes's for a barrier, and asking them cost such a barrier's time near
     * (the commit that made this has the figures). */
    if (nb && x.n > 1 && shmc__cx_world(&x) && shmc__coll_as_get() < 0 &&
        shmc__coll_barrier_algo(&x) == SHMC_A_SHM) {
        if ((rc = shmc__cx_failed(&x)) != SHMC_OK)
            return rc;
        return sched_began(&x, shmc__nbw_barrier(&x));
    }
    /* No data, but never skipped: count 1 keeps run() from returning early. */
    return run(SHMC_C_BARRIER, &x, NULL, NULL, 1, 0);
}

static CALL_BODY int shmc_broadcast_call(void *buf, size_t count, shmc_dtype dtype, int root,
                                         shmc_comm *comm, struct shmc__request **nb)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, ONE_BLOCK, dtype);
    x.nb = nb;
    if (rc != SHMC_OK || (rc = check_root(&x, root)) != SHMC_OK)
        return rc;
    if (count && (!buf || buf == SHMC_IN_PLACE))
        return SHMC_ERR_ARG;
    if (count && (rc = set_kind(&x, buf, NULL)) != SHMC_OK)
        return rc;
    return run(SHMC_C_BROADCAST, &x, NULL, buf, count, count * x.es);
}

static CALL_BODY int shmc_reduce_call(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                                      shmc_op op, int root, shmc_comm *comm,
                                      struct shmc__request **nb)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, ONE_BLOCK, dtype);
    x.nb = nb;
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

static CALL_BODY int shmc_allreduce_call(const void *sbuf, void *rbuf, size_t count,
                                         shmc_dtype dtype, shmc_op op, shmc_comm *comm,
                                         struct shmc__request **nb)
{
    struct shmc__cx x;
    int rc = vector_args(&x, comm, &sbuf, rbuf, count, dtype, op);
    x.nb = nb;
    return rc != SHMC_OK ? rc : run(SHMC_C_ALLREDUCE, &x, sbuf, rbuf, count, count * x.es);
}

static CALL_BODY int shmc_gather_call(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                                      int root, shmc_comm *comm, struct shmc__request **nb)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, BLOCK_PER_RANK, dtype);
    x.nb = nb;
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

static CALL_BODY int shmc_allgather_call(const void *sbuf, void *rbuf, size_t count,
                                         shmc_dtype dtype, shmc_comm *comm,
                                         struct shmc__request **nb)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, BLOCK_PER_RANK, dtype);
    x.nb = nb;
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

static CALL_BODY int shmc_scatter_call(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                                       int root, shmc_comm *comm, struct shmc__request **nb)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, BLOCK_PER_RANK, dtype);
    x.nb = nb;
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

static CALL_BODY int shmc_reduce_scatter_call(const void *sbuf, void *rbuf, size_t recvcount,
                                              shmc_dtype dtype, shmc_op op, shmc_comm *comm,
                                              struct shmc__request **nb)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, recvcount, BLOCK_PER_RANK, dtype);
    x.nb = nb;
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

static CALL_BODY int shmc_alltoall_call(const void *sbuf, void *rbuf, size_t count,
                                        shmc_dtype dtype, shmc_comm *comm,
                                        struct shmc__request **nb)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, count, BLOCK_PER_RANK, dtype);
    x.nb = nb;
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

static CALL_BODY int shmc_alltoallv_call(const void *sbuf, const size_t *scounts,
                                         const size_t *sdispls, void *rbuf, const size_t *rcounts,
                                         const size_t *rdispls, shmc_dtype dtype, shmc_comm *comm,
                                         struct shmc__request **nb)
{
    struct shmc__cx x;
    int rc = setup(&x, comm, 0, NO_DATA, dtype);
    x.nb = nb;
    if (rc != SHMC_OK)
        return rc;
    if (!scounts || !sdispls || !rcounts || !rdispls)
        return SHMC_ERR_ARG;
    size_t se = extent(x.n, scounts, sdispls), re = extent(x.n, rcounts, rdispls);
    if (se > SIZE_MAX / x.es || re > SIZE_MAX / x.es)
        return SHMC_ERR_ARG;
    if ((se && (!sbuf || sbuf == SHMC_IN_PLACE)) || (re && (!rbuf || rbuf == SHMC_IN_PLACE)))
        return SHMC_ERR_ARG;
    if (se && re && shmc__overlap(sbuf, se * x.es, rbuf, re * x.es))
        return SHMC_ERR_ARG;
    if ((rc = set_kind(&x, se ? sbuf : NULL, re ? rbuf : NULL)) != SHMC_OK)
        return rc;
    if (by_schedule_words(&x, SHMC_CALL_ALLTOALLV, 0, &rc)) {
        if (rc == SHMC_OK)
            rc = shmc__nbc_alltoallv(&x, sbuf, scounts, sdispls, rbuf, rcounts, rdispls, x.nb);
        return sched_began(&x, rc);
    }
    if (x.n == 1) {
        if (scounts[0] != rcounts[0])
            return SHMC_ERR_MISMATCH;
        if (!scounts[0])
            return SHMC_OK;
        return shmc__copy_kind((uint8_t *)rbuf + rdispls[0] * x.es,
                               (const uint8_t *)sbuf + sdispls[0] * x.es, scounts[0] * x.es, x.dev);
    }
    /* Counts are each rank's own: the words name the call and its dtype (count 0). */
    SHMC_CX_RUN(SHMC_CALL_ALLTOALLV, &x, 0,
                shmc__alltoallv_pairwise(&x, sbuf, scounts, sdispls, rbuf, rcounts, rdispls));
}

/* ---- the public entry points: one call at a time per process (shmcomm.h, Threads) ---- */

SHMC_API int shmc_barrier(shmc_comm *comm)
{
    SHMC_COLL_GUARDED(shmc_barrier_call(comm, NULL));
}

SHMC_API int shmc_broadcast(void *buf, size_t count, shmc_dtype dtype, int root, shmc_comm *comm)
{
    SHMC_COLL_GUARDED(shmc_broadcast_call(buf, count, dtype, root, comm, NULL));
}

SHMC_API int shmc_reduce(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, shmc_op op,
                         int root, shmc_comm *comm)
{
    SHMC_COLL_GUARDED(shmc_reduce_call(sbuf, rbuf, count, dtype, op, root, comm, NULL));
}

SHMC_API int shmc_allreduce(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                            shmc_op op, shmc_comm *comm)
{
    SHMC_COLL_GUARDED(shmc_allreduce_call(sbuf, rbuf, count, dtype, op, comm, NULL));
}

SHMC_API int shmc_gather(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, int root,
                         shmc_comm *comm)
{
    SHMC_COLL_GUARDED(shmc_gather_call(sbuf, rbuf, count, dtype, root, comm, NULL));
}

SHMC_API int shmc_allgather(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                            shmc_comm *comm)
{
    SHMC_COLL_GUARDED(shmc_allgather_call(sbuf, rbuf, count, dtype, comm, NULL));
}

SHMC_API int shmc_scatter(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, int root,
                          shmc_comm *comm)
{
    SHMC_COLL_GUARDED(shmc_scatter_call(sbuf, rbuf, count, dtype, root, comm, NULL));
}

SHMC_API int shmc_reduce_scatter(const void *sbuf, void *rbuf, size_t recvcount, shmc_dtype dtype,
                                 shmc_op op, shmc_comm *comm)
{
    SHMC_COLL_GUARDED(shmc_reduce_scatter_call(sbuf, rbuf, recvcount, dtype, op, comm, NULL));
}

SHMC_API int shmc_alltoall(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                           shmc_comm *comm)
{
    SHMC_COLL_GUARDED(shmc_alltoall_call(sbuf, rbuf, count, dtype, comm, NULL));
}

SHMC_API int shmc_alltoallv(const void *sbuf, const size_t *scounts, const size_t *sdispls,
                            void *rbuf, const size_t *rcounts, const size_t *rdispls,
                            shmc_dtype dtype, shmc_comm *comm)
{
    SHMC_COLL_GUARDED(
        shmc_alltoallv_call(sbuf, scounts, sdispls, rbuf, rcounts, rdispls, dtype, comm, NULL));
}

/* ---- the nonblocking forms (entry.h, SHMC_NB_GUARDED) ------------------------------------ */

SHMC_API int shmc_ibarrier(shmc_comm *comm, shmc_request **req)
{
    SHMC_NB_GUARDED(req, shmc_barrier_call(comm, &nb_r_));
}

SHMC_API int shmc_ibroadcast(void *buf, size_t count, shmc_dtype dtype, int root, shmc_comm *comm,
                             shmc_request **req)
{
    SHMC_NB_GUARDED(req, shmc_broadcast_call(buf, count, dtype, root, comm, &nb_r_));
}

SHMC_API int shmc_ireduce(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, shmc_op op,
                          int root, shmc_comm *comm, shmc_request **req)
{
    SHMC_NB_GUARDED(req, shmc_reduce_call(sbuf, rbuf, count, dtype, op, root, comm, &nb_r_));
}

SHMC_API int shmc_iallreduce(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                             shmc_op op, shmc_comm *comm, shmc_request **req)
{
    SHMC_NB_GUARDED(req, shmc_allreduce_call(sbuf, rbuf, count, dtype, op, comm, &nb_r_));
}

SHMC_API int shmc_igather(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, int root,
                          shmc_comm *comm, shmc_request **req)
{
    SHMC_NB_GUARDED(req, shmc_gather_call(sbuf, rbuf, count, dtype, root, comm, &nb_r_));
}

SHMC_API int shmc_iallgather(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                             shmc_comm *comm, shmc_request **req)
{
    SHMC_NB_GUARDED(req, shmc_allgather_call(sbuf, rbuf, count, dtype, comm, &nb_r_));
}

SHMC_API int shmc_iscatter(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype, int root,
                           shmc_comm *comm, shmc_request **req)
{
    SHMC_NB_GUARDED(req, shmc_scatter_call(sbuf, rbuf, count, dtype, root, comm, &nb_r_));
}

SHMC_API int shmc_ireduce_scatter(const void *sbuf, void *rbuf, size_t recvcount, shmc_dtype dtype,
                                  shmc_op op, shmc_comm *comm, shmc_request **req)
{
    SHMC_NB_GUARDED(req, shmc_reduce_scatter_call(sbuf, rbuf, recvcount, dtype, op, comm, &nb_r_));
}

SHMC_API int shmc_ialltoall(const void *sbuf, void *rbuf, size_t count, shmc_dtype dtype,
                            shmc_comm *comm, shmc_request **req)
{
    SHMC_NB_GUARDED(req, shmc_alltoall_call(sbuf, rbuf, count, dtype, comm, &nb_r_));
}

SHMC_API int shmc_ialltoallv(const void *sbuf, const size_t *scounts, const size_t *sdispls,
                             void *rbuf, const size_t *rcounts, const size_t *rdispls,
                             shmc_dtype dtype, shmc_comm *comm, shmc_request **req)
{
    SHMC_NB_GUARDED(req, shmc_alltoallv_call(sbuf, scounts, sdispls, rbuf, rcounts, rdispls, dtype,
                                             comm, &nb_r_));
}
