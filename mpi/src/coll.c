/*
 * Collectives on the C library's. Data collectives move bytes (SHMC_UINT8): each rank's
 * block is its send count times its send type's size, so send and receive types need
 * only the same type signature, as MPI says; dense buffers go as they are, others through
 * packed views. Reductions go through shmc_mpi__reduction (ops.c). MPI_Allgatherv and
 * MPI_Reduce_scatter, whose arrays every rank holds, take the C library's tuned
 * equal-block calls when the blocks are equal and packed; MPI_Gatherv and MPI_Scatterv
 * cannot (only the root knows the counts, and every rank must make the same call).
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

#define INPLACE(p) ((p) == MPI_IN_PLACE ? SHMC_IN_PLACE : (p))

/* ---- nonblocking forms ---------------------------------------------------------------------
 * Each collective below runs blocking (nb NULL) or starts the C library's nonblocking form
 * (its MPI request in *nb) at the same point of the same code, so both take the same
 * checks and buffers. The views a nonblocking one needs outlive the call: fin() finishes
 * them when it completes. */

struct views {
    struct shmc_mpi_view vs, vr;
    int keep;    /* the receive side is unpacked (the rank received) */
    void *opctx; /* a reduction's own op's context (ops.c), freed once the call ended */
};

static void views_fin(void *arg, int ok)
{
    struct views *w = arg;
    shmc_mpi__view_finish(&w->vs, 0);
    shmc_mpi__view_finish(&w->vr, ok && w->keep ? w->vr.bytes : 0);
    free(w->opctx);
    free(w);
}

int shmc_mpi__coll_started(const struct shmc_mpi_call *k, int err, shmc_request *r,
                           struct shmc_mpi_view *vs, struct shmc_mpi_view *vr, int keep,
                           void *opctx, MPI_Request *out)
{
    struct views *w = NULL;
    if (err == SHMC_OK && ((vs && vs->tmp) || (vr && vr->tmp) || opctx)) {
        if (!(w = malloc(sizeof *w)))
            err = SHMC_ERR_NOMEM; /* (r is waited for by request_coll's failure path) */
        else
            *w = (struct views){vs ? *vs : (struct shmc_mpi_view){0},
                                vr ? *vr : (struct shmc_mpi_view){0}, keep, opctx};
    }
    if (err != SHMC_OK || !w) { /* nothing outlives the call, or it failed to start */
        if (err != SHMC_OK && r)
            shmc_wait(&r, NULL);
        if (vs)
            shmc_mpi__view_finish(vs, 0);
        if (vr && (err != SHMC_OK || !vr->tmp))
            shmc_mpi__view_finish(vr, 0);
        if (err != SHMC_OK) {
            free(opctx);
            return shmc_mpi__call_err(k, err);
        }
    }
    /* A handle that cannot be made comes after the call began on every member (and
     * request_coll waited for it): raised without quitting (mpi_impl.h, coll). */
    int rc = !w && r == SHMC_REQUEST_COMPLETE /* (ended in its start: request.c) */
                 ? shmc_mpi__request_done(out)
                 : shmc_mpi__request_coll(r, k->h, w ? views_fin : NULL, w, out);
    return shmc_mpi__raise(k->h, rc, k->fn);
}

static int barrier(MPI_Comm comm, MPI_Request *nb, const char *fn)
{
    struct shmc_mpi_call k;
    int rc = shmc_mpi__call(comm, fn, &k);
    if (rc)
        return rc;
    if (!nb)
        return shmc_mpi__call_err(&k, shmc_barrier(k.c->c));
    shmc_request *r = NULL;
    int err = shmc_ibarrier(k.c->c, &r);
    return shmc_mpi__coll_started(&k, err, r, NULL, NULL, 0, NULL, nb);
}

int PMPI_Barrier(MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_barrier(comm, __func__);
    return barrier(comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Barrier);

static int bcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request *nb, const char *fn)
{
    struct shmc_mpi_call k;
    const struct shmc_mpi_type *t;
    size_t bytes;
    int rc = shmc_mpi__call(comm, fn, &k);
    if (rc)
        return rc;
    if ((rc = shmc_mpi__buffer_arg(buffer, count, datatype, &t, &bytes)) ||
        (rc = shmc_mpi__call_rooted(&k, root, 0)))
        return shmc_mpi__call_rc(&k, rc);
    struct shmc_mpi_view v;
    rc = k.c->rank == root ? shmc_mpi__view_send(buffer, (size_t)count, t, &v)
                           : shmc_mpi__view_recv(buffer, (size_t)count, t, &v);
    if (rc)
        return shmc_mpi__call_rc(&k, rc);
    if (nb) {
        shmc_request *r = NULL;
        int err = shmc_ibroadcast(v.p, v.bytes, SHMC_UINT8, root, k.c->c, &r);
        return shmc_mpi__coll_started(&k, err, r, NULL, &v, 1, NULL, nb);
    }
    int err = shmc_broadcast(v.p, v.bytes, SHMC_UINT8, root, k.c->c);
    shmc_mpi__view_finish(&v, err == SHMC_OK ? v.bytes : 0);
    return shmc_mpi__call_err(&k, err);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_bcast(buffer, count, datatype, root, comm, __func__);
    return bcast(buffer, count, datatype, root, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Bcast);

/* ---- reductions -------------------------------------------------------------------------- */

/* A reduction on packed elements (its type is not dense): in place, the receive buffer's
 * n_in elements go in packed and the result comes back there; otherwise the send
 * buffer's n_in elements are packed and, where this rank receives, n_out are staged. */
static int packed_views(const void *sendbuf, void *recvbuf, size_t n_in, size_t n_out, int receives,
                        const struct shmc_mpi_type *t, struct shmc_mpi_view *vs,
                        struct shmc_mpi_view *vr, const void **sb, void **rb)
{
    int rc;
    if (sendbuf == MPI_IN_PLACE)
        rc = shmc_mpi__view_inout(recvbuf, n_in, t, vr);
    else if (!(rc = shmc_mpi__view_send(sendbuf, n_in, t, vs)) && receives)
        rc = shmc_mpi__view_recv(recvbuf, n_out, t, vr);
    if (rc) {
        shmc_mpi__view_finish(vs, 0);
        return rc;
    }
    *sb = sendbuf == MPI_IN_PLACE ? SHMC_IN_PLACE : vs->p;
    *rb = vr->p;
    return MPI_SUCCESS;
}

enum red_kind { REDUCE, ALLREDUCE, SCAN, EXSCAN };

static int reduction(enum red_kind kind, const void *sendbuf, void *recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *nb,
                     const char *fn)
{
    struct shmc_mpi_call k;
    const struct shmc_mpi_type *t;
    struct shmc_mpi_red r;
    int rc = shmc_mpi__call(comm, fn, &k);
    if (rc)
        return rc;
    size_t bytes;
    int in_place = sendbuf == MPI_IN_PLACE;
    if ((rc = shmc_mpi__buffer_arg(in_place ? recvbuf : sendbuf, count, datatype, &t, &bytes)) ||
        (kind == REDUCE && (rc = shmc_mpi__call_rooted(&k, root, in_place))) ||
        (rc = shmc_mpi__reduction(op, datatype, &r)))
        return shmc_mpi__call_rc(&k, rc);
    int receives = kind != REDUCE || k.c->rank == root;
    if (receives && (rc = shmc_mpi__check_buf(recvbuf, count, t)))
        return shmc_mpi__call_rc(&k, rc);
    if (r.big && nb)
        return shmc_mpi__call_rc(
            &k, shmc_mpi__err(MPI_ERR_UNSUPPORTED_OPERATION,
                              "a nonblocking reduction with a user op on elements of more than "
                              "%d bytes (docs/mpi.md, Limits): use the blocking call",
                              SHMC_DTYPE_BYTES_MAX));
    if (r.big) /* a user op on elements the C library cannot carry */
        return shmc_mpi__call_rc(
            &k, kind == REDUCE || kind == ALLREDUCE
                    ? shmc_mpi__reduce_big(kind == ALLREDUCE, sendbuf, recvbuf, count, datatype, op,
                                           root, k.c)
                    : shmc_mpi__err(MPI_ERR_TYPE,
                                    "a user op in a scan needs a datatype whose data lies within "
                                    "its extent of at most %d bytes, from lower bound 0",
                                    SHMC_DTYPE_BYTES_MAX));
    size_t n = (size_t)count * r.n;
    const void *sb = INPLACE(sendbuf);
    void *rb = recvbuf;
    struct shmc_mpi_view vs = {0}, vr = {0};
    void *opctx = NULL; /* a nonblocking call's own op (ops.c) */
    if (nb && shmc_mpi__is_user_op(op) && (rc = shmc_mpi__call_op(op, datatype, &r, &opctx)))
        return shmc_mpi__call_rc(&k, rc);
    if (r.packed && (rc = packed_views(sendbuf, recvbuf, (size_t)count, (size_t)count, receives, t,
                                       &vs, &vr, &sb, &rb))) {
        if (opctx) {
            shmc_op_free(&r.op);
            free(opctx);
        }
        return shmc_mpi__call_rc(&k, rc);
    }
    int err;
    shmc_request *q = NULL, **qq = nb ? &q : NULL;
    switch (kind) {
    case REDUCE:
        err = qq ? shmc_ireduce(sb, rb, n, r.dtype, r.op, root, k.c->c, qq)
                 : shmc_reduce(sb, rb, n, r.dtype, r.op, root, k.c->c);
        break;
    case ALLREDUCE:
        err = qq ? shmc_iallreduce(sb, rb, n, r.dtype, r.op, k.c->c, qq)
                 : shmc_allreduce(sb, rb, n, r.dtype, r.op, k.c->c);
        break;
    case SCAN:
        err = qq ? shmc_iscan(sb, rb, n, r.dtype, r.op, k.c->c, qq)
                 : shmc_scan(sb, rb, n, r.dtype, r.op, k.c->c);
        break;
    default:
        err = qq ? shmc_iexscan(sb, rb, n, r.dtype, r.op, k.c->c, qq)
                 : shmc_exscan(sb, rb, n, r.dtype, r.op, k.c->c);
        break;
    }
    if (opctx) /* the C library keeps it until the call ends */
        shmc_op_free(&r.op);
    if (nb)
        return shmc_mpi__coll_started(&k, err, q, &vs, &vr,
                                      receives && !(kind == EXSCAN && k.c->rank == 0), opctx, nb);
    int keep = err == SHMC_OK && receives && !(kind == EXSCAN && k.c->rank == 0);
    shmc_mpi__view_finish(&vs, 0);
    shmc_mpi__view_finish(&vr, keep ? vr.bytes : 0);
    return shmc_mpi__call_err(&k, err);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, __func__);
    return reduction(REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Reduce);

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_allreduce(sendbuf, recvbuf, count, datatype, op, comm, __func__);
    return reduction(ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Allreduce);

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm)
{
    return reduction(SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Scan);

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    return reduction(EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Exscan);

static int reduce_scatter(const void *sendbuf, void *recvbuf, struct shmc_mpi_arr recvcounts,
                          MPI_Count block, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                          MPI_Request *nb, const char *fn)
{
    struct shmc_mpi_call k;
    const struct shmc_mpi_type *t;
    struct shmc_mpi_red r;
    int rc = shmc_mpi__call(comm, fn, &k);
    if (rc)
        return rc;
    int size = k.c->size, me = k.c->rank;
    if (!recvcounts.p && block < 0)
        return shmc_mpi__call_rc(&k, shmc_mpi__err(MPI_ERR_ARG, "recvcounts is NULL"));
    MPI_Count total = 0;
    int equal = 1;
    for (int i = 0; i < size; i++) {
        MPI_Count ci = block >= 0 ? block : shmc_mpi__at(recvcounts, i);
        if (ci < 0)
            return shmc_mpi__call_rc(&k,
                                     shmc_mpi__err(MPI_ERR_COUNT, "recvcounts[%d] = %lld", i, ci));
        if (__builtin_add_overflow(total, ci, &total))
            return shmc_mpi__call_rc(&k, shmc_mpi__err(MPI_ERR_COUNT, "the counts overflow"));
        equal &= ci == (block >= 0 ? block : shmc_mpi__at(recvcounts, 0));
    }
    MPI_Count mine = block >= 0 ? block : shmc_mpi__at(recvcounts, me);
    size_t bytes;
    int in_place = sendbuf == MPI_IN_PLACE;
    if ((rc = shmc_mpi__buffer_arg(in_place ? recvbuf : sendbuf, total, datatype, &t, &bytes)) ||
        (rc = shmc_mpi__check_buf(recvbuf, mine, t)) ||
        (rc = shmc_mpi__reduction(op, datatype, &r)))
        return shmc_mpi__call_rc(&k, rc);
    if (r.big)
        return shmc_mpi__call_rc(&k, shmc_mpi__err(MPI_ERR_TYPE,
                                                   "a user op in a reduce-scatter needs a datatype "
                                                   "whose data lies within its extent of at most "
                                                   "%d bytes, from lower bound 0",
                                                   SHMC_DTYPE_BYTES_MAX));
    const void *sb = INPLACE(sendbuf);
    void *rb = recvbuf;
    struct shmc_mpi_view vs = {0}, vr = {0};
    void *opctx = NULL; /* a nonblocking call's own op (ops.c) */
    if (nb && shmc_mpi__is_user_op(op) && (rc = shmc_mpi__call_op(op, datatype, &r, &opctx)))
        return shmc_mpi__call_rc(&k, rc);
    if (r.packed && (rc = packed_views(sendbuf, recvbuf, (size_t)total, (size_t)mine, 1, t, &vs,
                                       &vr, &sb, &rb))) {
        if (opctx) {
            shmc_op_free(&r.op);
            free(opctx);
        }
        return shmc_mpi__call_rc(&k, rc);
    }
    int err;
    shmc_request *q = NULL;
    if (equal) {
        err = nb ? shmc_ireduce_scatter(sb, rb, (size_t)mine * r.n, r.dtype, r.op, k.c->c, &q)
                 : shmc_reduce_scatter(sb, rb, (size_t)mine * r.n, r.dtype, r.op, k.c->c);
    } else {
        size_t *cnt = shmc_mpi__comm_scratch(k.c, &rc);
        if (!cnt) {
            if (opctx)
                shmc_op_free(&r.op), free(opctx);
            shmc_mpi__view_finish(&vs, 0);
            shmc_mpi__view_finish(&vr, 0);
            return shmc_mpi__call_rc(&k, rc);
        }
        for (int i = 0; i < size; i++)
            cnt[i] = (size_t)shmc_mpi__at(recvcounts, i) * r.n;
        err = nb ? shmc_ireduce_scatterv(sb, rb, cnt, r.dtype, r.op, k.c->c, &q)
                 : shmc_reduce_scatterv(sb, rb, cnt, r.dtype, r.op, k.c->c);
    }
    if (opctx) /* the C library keeps it until the call ends */
        shmc_op_free(&r.op);
    if (nb) /* (the counts are read as it starts: the scratch is free again) */
        return shmc_mpi__coll_started(&k, err, q, &vs, &vr, 1, opctx, nb);
    shmc_mpi__view_finish(&vs, 0);
    shmc_mpi__view_finish(&vr, err == SHMC_OK ? (size_t)mine * (size_t)t->size : 0);
    return shmc_mpi__call_err(&k, err);
}

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm,
                                           __func__);
    return reduce_scatter(sendbuf, recvbuf, shmc_mpi__ints(recvcounts), -1, datatype, op, comm,
                          NULL, __func__);
}
SHMC_MPI_ALIAS(Reduce_scatter);

static int reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *nb,
                                const char *fn)
{
    if (recvcount < 0) {
        struct shmc_mpi_call k;
        int rc = shmc_mpi__call(comm, fn, &k);
        return rc ? rc
                  : shmc_mpi__call_rc(&k,
                                      shmc_mpi__err(MPI_ERR_COUNT, "recvcount %lld", recvcount));
    }
    static const struct shmc_mpi_arr no_counts = {NULL, SHMC_MPI_INTS};
    return reduce_scatter(sendbuf, recvbuf, no_counts, recvcount, datatype, op, comm, nb, fn);
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm,
                                                 __func__);
    return reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Reduce_scatter_block);

/* ---- gather, scatter, all-gather, all-to-all ------------------------------------------------ */

/* A rank's send and receive blocks must hold the same bytes (the same type signature). */
static int same_block(size_t sbytes, size_t rbytes)
{
    if (sbytes > rbytes)
        return shmc_mpi__err(MPI_ERR_TRUNCATE, "a %zu-byte block does not fit in %zu bytes", sbytes,
                             rbytes);
    if (sbytes < rbytes)
        return shmc_mpi__err(MPI_ERR_COUNT, "send blocks of %zu bytes, receive blocks of %zu",
                             sbytes, rbytes);
    return MPI_SUCCESS;
}

/* The large buffer of a call (n blocks of count elements): received into, or, in place,
 * read and written. */
static int large(void *buf, int n, MPI_Count count, const struct shmc_mpi_type *t, int in_place,
                 struct shmc_mpi_view *v)
{
    size_t elems = (size_t)n * (size_t)count;
    return in_place ? shmc_mpi__view_inout(buf, elems, t, v)
                    : shmc_mpi__view_recv(buf, elems, t, v);
}

static int finish(struct shmc_mpi_call *k, int err, struct shmc_mpi_view *vs,
                  struct shmc_mpi_view *vr)
{
    shmc_mpi__view_finish(vs, 0);
    shmc_mpi__view_finish(vr, err == SHMC_OK ? vr->bytes : 0);
    return shmc_mpi__call_err(k, err);
}

static int fail(struct shmc_mpi_call *k, int rc, struct shmc_mpi_view *vs, struct shmc_mpi_view *vr)
{
    shmc_mpi__view_finish(vs, 0);
    shmc_mpi__view_finish(vr, 0);
    return shmc_mpi__call_rc(k, rc);
}

static int gather(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *nb, const char *fn)
{
    struct shmc_mpi_call k;
    const struct shmc_mpi_type *st, *rt;
    struct shmc_mpi_view vs = {0}, vr = {0};
    size_t bytes = 0, sbytes = 0;
    int rc = shmc_mpi__call(comm, fn, &k);
    if (rc)
        return rc;
    int in_place = sendbuf == MPI_IN_PLACE;
    if ((rc = shmc_mpi__call_rooted(&k, root, in_place)))
        return shmc_mpi__call_rc(&k, rc);
    if (k.c->rank != root) {
        if ((rc = shmc_mpi__buffer_arg(sendbuf, sendcount, sendtype, &st, &bytes)) ||
            (rc = shmc_mpi__view_send(sendbuf, (size_t)sendcount, st, &vs)))
            return shmc_mpi__call_rc(&k, rc);
        if (nb) {
            shmc_request *q = NULL;
            int err = shmc_igather(vs.p, NULL, bytes, SHMC_UINT8, root, k.c->c, &q);
            return shmc_mpi__coll_started(&k, err, q, &vs, NULL, 0, NULL, nb);
        }
        return finish(&k, shmc_gather(vs.p, NULL, bytes, SHMC_UINT8, root, k.c->c), &vs, &vr);
    }
    if ((rc = shmc_mpi__buffer_arg(recvbuf, recvcount, recvtype, &rt, &bytes)) ||
        (!in_place && ((rc = shmc_mpi__buffer_arg(sendbuf, sendcount, sendtype, &st, &sbytes)) ||
                       (rc = same_block(sbytes, bytes)) ||
                       (rc = shmc_mpi__view_send(sendbuf, (size_t)sendcount, st, &vs)))) ||
        (rc = large(recvbuf, k.c->size, recvcount, rt, in_place, &vr)))
        return fail(&k, rc, &vs, &vr);
    if (nb) {
        shmc_request *q = NULL;
        int err = shmc_igather(in_place ? SHMC_IN_PLACE : vs.p, vr.p, bytes, SHMC_UINT8, root,
                               k.c->c, &q);
        return shmc_mpi__coll_started(&k, err, q, &vs, &vr, 1, NULL, nb);
    }
    int err = shmc_gather(in_place ? SHMC_IN_PLACE : vs.p, vr.p, bytes, SHMC_UINT8, root, k.c->c);
    return finish(&k, err, &vs, &vr);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                   comm, __func__);
    return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, NULL,
                  __func__);
}
SHMC_MPI_ALIAS(Gather);

static int scatter(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *nb, const char *fn)
{
    struct shmc_mpi_call k;
    const struct shmc_mpi_type *st, *rt;
    struct shmc_mpi_view vs = {0}, vr = {0};
    size_t bytes = 0, rbytes = 0;
    int rc = shmc_mpi__call(comm, fn, &k);
    if (rc)
        return rc;
    int in_place = recvbuf == MPI_IN_PLACE;
    if ((rc = shmc_mpi__call_rooted(&k, root, in_place)))
        return shmc_mpi__call_rc(&k, rc);
    if (k.c->rank != root) {
        if ((rc = shmc_mpi__buffer_arg(recvbuf, recvcount, recvtype, &rt, &bytes)) ||
            (rc = shmc_mpi__view_recv(recvbuf, (size_t)recvcount, rt, &vr)))
            return shmc_mpi__call_rc(&k, rc);
        if (nb) {
            shmc_request *q = NULL;
            int err = shmc_iscatter(NULL, vr.p, bytes, SHMC_UINT8, root, k.c->c, &q);
            return shmc_mpi__coll_started(&k, err, q, NULL, &vr, 1, NULL, nb);
        }
        return finish(&k, shmc_scatter(NULL, vr.p, bytes, SHMC_UINT8, root, k.c->c), &vs, &vr);
    }
    if ((rc = shmc_mpi__buffer_arg(sendbuf, sendcount, sendtype, &st, &bytes)) ||
        (!in_place && ((rc = shmc_mpi__buffer_arg(recvbuf, recvcount, recvtype, &rt, &rbytes)) ||
                       (rc = same_block(bytes, rbytes)) ||
                       (rc = shmc_mpi__view_recv(recvbuf, (size_t)recvcount, rt, &vr)))) ||
        (rc = shmc_mpi__view_send(sendbuf, (size_t)k.c->size * (size_t)sendcount, st, &vs)))
        return fail(&k, rc, &vs, &vr);
    if (nb) {
        shmc_request *q = NULL;
        int err = shmc_iscatter(vs.p, in_place ? SHMC_IN_PLACE : vr.p, bytes, SHMC_UINT8, root,
                                k.c->c, &q);
        return shmc_mpi__coll_started(&k, err, q, &vs, &vr, 1, NULL, nb);
    }
    int err = shmc_scatter(vs.p, in_place ? SHMC_IN_PLACE : vr.p, bytes, SHMC_UINT8, root, k.c->c);
    return finish(&k, err, &vs, &vr);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    root, comm, __func__);
    return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, NULL,
                   __func__);
}
SHMC_MPI_ALIAS(Scatter);

/* All-gather and all-to-all: every rank has both sides; in place, the receive buffer. */
static int all_blocks(int alltoall, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                      MPI_Request *nb, const char *fn)
{
    struct shmc_mpi_call k;
    const struct shmc_mpi_type *st, *rt;
    struct shmc_mpi_view vs = {0}, vr = {0};
    size_t bytes = 0, sbytes = 0;
    int rc = shmc_mpi__call(comm, fn, &k);
    if (rc)
        return rc;
    int in_place = sendbuf == MPI_IN_PLACE;
    size_t sblocks = alltoall ? (size_t)k.c->size : 1;
    if ((rc = shmc_mpi__buffer_arg(recvbuf, recvcount, recvtype, &rt, &bytes)) ||
        (!in_place &&
         ((rc = shmc_mpi__buffer_arg(sendbuf, sendcount, sendtype, &st, &sbytes)) ||
          (rc = same_block(sbytes, bytes)) ||
          (rc = shmc_mpi__view_send(sendbuf, sblocks * (size_t)sendcount, st, &vs)))) ||
        (rc = large(recvbuf, k.c->size, recvcount, rt, in_place, &vr)))
        return fail(&k, rc, &vs, &vr);
    const void *s = in_place ? SHMC_IN_PLACE : vs.p;
    if (nb) {
        shmc_request *q = NULL;
        int err = alltoall ? shmc_ialltoall(s, vr.p, bytes, SHMC_UINT8, k.c->c, &q)
                           : shmc_iallgather(s, vr.p, bytes, SHMC_UINT8, k.c->c, &q);
        return shmc_mpi__coll_started(&k, err, q, &vs, &vr, 1, NULL, nb);
    }
    int err = alltoall ? shmc_alltoall(s, vr.p, bytes, SHMC_UINT8, k.c->c)
                       : shmc_allgather(s, vr.p, bytes, SHMC_UINT8, k.c->c);
    return finish(&k, err, &vs, &vr);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                      comm, __func__);
    return all_blocks(0, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL,
                      __func__);
}
SHMC_MPI_ALIAS(Allgather);

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm))
        return shmc_mpi__ic_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                     comm, __func__);
    return all_blocks(1, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL,
                      __func__);
}
SHMC_MPI_ALIAS(Alltoall);

/* ---- MPI 4's large-count forms ------------------------------------------------------------ */

/* On an intercommunicator they go through the int calls (intercoll.c): a count must fit.
 * Each IC_INT line narrows one count or raises its error. */
#define IC_INT(comm, v, out)                                                                       \
    do {                                                                                           \
        int rc_ = shmc_mpi__ic_int((v), &(out));                                                   \
        if (rc_ != MPI_SUCCESS)                                                                    \
            return shmc_mpi__raise((comm), rc_, __func__);                                         \
    } while (0)

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm)) {
        int n;
        IC_INT(comm, count, n);
        return shmc_mpi__ic_bcast(buffer, n, datatype, root, comm, __func__);
    }
    return bcast(buffer, count, datatype, root, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Bcast_c);

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm)) {
        int n;
        IC_INT(comm, count, n);
        return shmc_mpi__ic_reduce(sendbuf, recvbuf, n, datatype, op, root, comm, __func__);
    }
    return reduction(REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Reduce_c);

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm)) {
        int n;
        IC_INT(comm, count, n);
        return shmc_mpi__ic_allreduce(sendbuf, recvbuf, n, datatype, op, comm, __func__);
    }
    return reduction(ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Allreduce_c);

int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm)
{
    return reduction(SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Scan_c);

int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm)
{
    return reduction(EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Exscan_c);

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm)) {
        int n;
        IC_INT(comm, recvcount, n);
        return shmc_mpi__ic_reduce_scatter_block(sendbuf, recvbuf, n, datatype, op, comm, __func__);
    }
    return reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Reduce_scatter_block_c);

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct shmc_mpi_comm *ic = shmc_mpi__inter(comm);
    if (ic) {
        int *counts, rc = shmc_mpi__ic_ints(shmc_mpi__counts(recvcounts), ic->size, &counts);
        if (rc != MPI_SUCCESS)
            return shmc_mpi__raise(comm, rc, __func__);
        rc = shmc_mpi__ic_reduce_scatter(sendbuf, recvbuf, counts, datatype, op, comm, __func__);
        free(counts);
        return rc;
    }
    return reduce_scatter(sendbuf, recvbuf, shmc_mpi__counts(recvcounts), -1, datatype, op, comm,
                          NULL, __func__);
}
SHMC_MPI_ALIAS(Reduce_scatter_c);

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm)) {
        int sn, rn;
        IC_INT(comm, sendcount, sn);
        IC_INT(comm, recvcount, rn);
        return shmc_mpi__ic_gather(sendbuf, sn, sendtype, recvbuf, rn, recvtype, root, comm,
                                   __func__);
    }
    return gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, NULL,
                  __func__);
}
SHMC_MPI_ALIAS(Gather_c);

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm)) {
        int sn, rn;
        IC_INT(comm, sendcount, sn);
        IC_INT(comm, recvcount, rn);
        return shmc_mpi__ic_scatter(sendbuf, sn, sendtype, recvbuf, rn, recvtype, root, comm,
                                    __func__);
    }
    return scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, NULL,
                   __func__);
}
SHMC_MPI_ALIAS(Scatter_c);

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm)) {
        int sn, rn;
        IC_INT(comm, sendcount, sn);
        IC_INT(comm, recvcount, rn);
        return shmc_mpi__ic_allgather(sendbuf, sn, sendtype, recvbuf, rn, recvtype, comm, __func__);
    }
    return all_blocks(0, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL,
                      __func__);
}
SHMC_MPI_ALIAS(Allgather_c);

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    if (shmc_mpi__inter(comm)) {
        int sn, rn;
        IC_INT(comm, sendcount, sn);
        IC_INT(comm, recvcount, rn);
        return shmc_mpi__ic_alltoall(sendbuf, sn, sendtype, recvbuf, rn, recvtype, comm, __func__);
    }
    return all_blocks(1, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, NULL,
                      __func__);
}
SHMC_MPI_ALIAS(Alltoall_c);

/* ---- the nonblocking collectives (MPI_Ibarrier ...) ------------------------------------------ */

/* On an intercommunicator: icnb.c. */
#define INTER(comm, call)                                                                          \
    do {                                                                                           \
        if (shmc_mpi__inter(comm))                                                                 \
            return (call);                                                                         \
    } while (0)

/* MPI_Iscan and MPI_Iexscan take no intercommunicator (MPI): refused on every rank. */
static int scan_inter(MPI_Comm comm, const char *fn)
{
    return shmc_mpi__raise(
        comm, shmc_mpi__err(MPI_ERR_COMM, "%s takes no intercommunicator (MPI)", fn + 1), fn);
}

/* The request argument, checked before anything starts. */
#define REQUEST_ARG(comm, request)                                                                 \
    do {                                                                                           \
        if (!(request))                                                                            \
            return shmc_mpi__raise((comm), shmc_mpi__err(MPI_ERR_ARG, "request is NULL"),          \
                                   __func__);                                                      \
    } while (0)

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    REQUEST_ARG(comm, request);
    INTER(comm, shmc_mpi__icnb_barrier(comm, request, __func__));
    return barrier(comm, request, __func__);
}
SHMC_MPI_ALIAS(Ibarrier);

#define IBCAST(suffix, count_t)                                                                    \
    int PMPI_Ibcast##suffix(void *buffer, count_t count, MPI_Datatype datatype, int root,          \
                            MPI_Comm comm, MPI_Request *request)                                   \
    {                                                                                              \
        REQUEST_ARG(comm, request);                                                                \
        INTER(comm, shmc_mpi__icnb_bcast(buffer, count, datatype, root, comm, request, __func__)); \
        return bcast(buffer, count, datatype, root, comm, request, __func__);                      \
    }                                                                                              \
    SHMC_MPI_ALIAS(Ibcast##suffix)
IBCAST(, int);
IBCAST(_c, MPI_Count);

#define IREDUCTION(name, kind, count_t)                                                            \
    int PMPI_##name(const void *sendbuf, void *recvbuf, count_t count, MPI_Datatype datatype,      \
                    MPI_Op op, MPI_Comm comm, MPI_Request *request)                                \
    {                                                                                              \
        REQUEST_ARG(comm, request);                                                                \
        INTER(comm, kind == ALLREDUCE                                                              \
                        ? shmc_mpi__icnb_allreduce(sendbuf, recvbuf, count, datatype, op, comm,    \
                                                   request, __func__)                              \
                        : scan_inter(comm, __func__));                                             \
        return reduction(kind, sendbuf, recvbuf, count, datatype, op, 0, comm, request, __func__); \
    }                                                                                              \
    SHMC_MPI_ALIAS(name)
IREDUCTION(Iallreduce, ALLREDUCE, int);
IREDUCTION(Iallreduce_c, ALLREDUCE, MPI_Count);
IREDUCTION(Iscan, SCAN, int);
IREDUCTION(Iscan_c, SCAN, MPI_Count);
IREDUCTION(Iexscan, EXSCAN, int);
IREDUCTION(Iexscan_c, EXSCAN, MPI_Count);

#define IREDUCE(suffix, count_t)                                                                   \
    int PMPI_Ireduce##suffix(const void *sendbuf, void *recvbuf, count_t count,                    \
                             MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,            \
                             MPI_Request *request)                                                 \
    {                                                                                              \
        REQUEST_ARG(comm, request);                                                                \
        INTER(comm, shmc_mpi__icnb_reduce(sendbuf, recvbuf, count, datatype, op, root, comm,       \
                                          request, __func__));                                     \
        return reduction(REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, request,       \
                         __func__);                                                                \
    }                                                                                              \
    SHMC_MPI_ALIAS(Ireduce##suffix)
IREDUCE(, int);
IREDUCE(_c, MPI_Count);

#define IRSB(suffix, count_t)                                                                      \
    int PMPI_Ireduce_scatter_block##suffix(const void *sendbuf, void *recvbuf, count_t recvcount,  \
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,        \
                                           MPI_Request *request)                                   \
    {                                                                                              \
        REQUEST_ARG(comm, request);                                                                \
        INTER(comm,                                                                                \
              shmc_mpi__icnb_reduce_scatter(sendbuf, recvbuf, shmc_mpi__ints(NULL), recvcount,     \
                                            datatype, op, comm, request, __func__));               \
        return reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm, request,      \
                                    __func__);                                                     \
    }                                                                                              \
    SHMC_MPI_ALIAS(Ireduce_scatter_block##suffix)
IRSB(, int);
IRSB(_c, MPI_Count);

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    REQUEST_ARG(comm, request);
    INTER(comm, shmc_mpi__icnb_reduce_scatter(sendbuf, recvbuf, shmc_mpi__ints(recvcounts), -1,
                                              datatype, op, comm, request, __func__));
    return reduce_scatter(sendbuf, recvbuf, shmc_mpi__ints(recvcounts), -1, datatype, op, comm,
                          request, __func__);
}
SHMC_MPI_ALIAS(Ireduce_scatter);

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    REQUEST_ARG(comm, request);
    INTER(comm, shmc_mpi__icnb_reduce_scatter(sendbuf, recvbuf, shmc_mpi__counts(recvcounts), -1,
                                              datatype, op, comm, request, __func__));
    return reduce_scatter(sendbuf, recvbuf, shmc_mpi__counts(recvcounts), -1, datatype, op, comm,
                          request, __func__);
}
SHMC_MPI_ALIAS(Ireduce_scatter_c);

#define IROOTED(name, impl, gather, count_t)                                                       \
    int PMPI_##name(const void *sendbuf, count_t sendcount, MPI_Datatype sendtype, void *recvbuf,  \
                    count_t recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,             \
                    MPI_Request *request)                                                          \
    {                                                                                              \
        REQUEST_ARG(comm, request);                                                                \
        INTER(comm, shmc_mpi__icnb_rooted(gather, sendbuf, sendcount, sendtype, recvbuf,           \
                                          recvcount, recvtype, root, comm, request, __func__));    \
        return impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,        \
                    request, __func__);                                                            \
    }                                                                                              \
    SHMC_MPI_ALIAS(name)
IROOTED(Igather, gather, 1, int);
IROOTED(Igather_c, gather, 1, MPI_Count);
IROOTED(Iscatter, scatter, 0, int);
IROOTED(Iscatter_c, scatter, 0, MPI_Count);

#define IALL(name, alltoall, count_t)                                                              \
    int PMPI_##name(const void *sendbuf, count_t sendcount, MPI_Datatype sendtype, void *recvbuf,  \
                    count_t recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) \
    {                                                                                              \
        REQUEST_ARG(comm, request);                                                                \
        INTER(comm, shmc_mpi__icnb_all(alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, \
                                       recvtype, comm, request, __func__));                        \
        return all_blocks(alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,    \
                          comm, request, __func__);                                                \
    }                                                                                              \
    SHMC_MPI_ALIAS(name)
IALL(Iallgather, 0, int);
IALL(Iallgather_c, 0, MPI_Count);
IALL(Ialltoall, 1, int);
IALL(Ialltoall_c, 1, MPI_Count);
