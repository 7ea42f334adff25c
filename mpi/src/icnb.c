/*
 * Nonblocking collectives on intercommunicators (MPI 4.1, 6.12 with 6.2.2's meaning):
 * schedules of the C library (shmc_sched_*) over the communicator that spans both groups,
 * whose rank of local rank i is i + loff and of remote rank r is r + roff. Every member of
 * both groups makes one schedule per call, in call order, so the numbering agrees.
 *
 * - Ibarrier: a barrier over both groups (every member has entered when it ends).
 * - Rooted calls: the root and each member of the other group exchange one message;
 *   Ireduce's root combines the other group's inputs in rank order.
 * - Iallreduce: every member sends its input to every member of the other group and
 *   combines what it gets in rank order.
 * - Iallgather(v), Ialltoall(v): one message each way between every pair across the groups.
 * - Ireduce_scatter(_block): every member sends its vector to the other group's rank 0,
 *   which combines them and sends each member of its group its part.
 *
 * Buffers go through packed views, unpacked when the call completes (coll.c). The v-forms
 * take dense datatypes only (MPI_ERR_UNSUPPORTED_OPERATION otherwise, by name), and
 * MPI_Ialltoallw is not built on intercommunicators; MPI_IN_PLACE is refused, as MPI says.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* One call: its communicator, the spanning communicator's rank offsets, and the view
 * and schedule it builds. */
struct ic {
    struct shmc_mpi_call k;
    struct shmc_mpi_comm *c;
    int ln, rn, loff, roff;
    shmc_sched *s;
    struct shmc_mpi_view vs, vr;
    void *opctx;
};

static int setup(MPI_Comm comm, const MPI_Request *request, const char *fn, struct ic *x)
{
    memset(x, 0, sizeof *x);
    int rc = shmc_mpi__call_p2p(comm, fn, &x->k);
    if (rc)
        return rc;
    x->k.coll = 1; /* (its schedules run on the communicator spanning both groups) */
    x->c = x->k.c;
    if (!request)
        return shmc_mpi__call_rc(&x->k, shmc_mpi__err(MPI_ERR_ARG, "request is NULL"));
    x->ln = x->c->size;
    x->rn = x->c->remote_size;
    x->roff = x->c->roff;
    x->loff = x->c->low ? 0 : x->rn;
    return MPI_SUCCESS;
}

/* The schedule, for reductions of r (NULL: bytes). */
static int make(struct ic *x, const struct shmc_mpi_red *r, size_t tmp)
{
    int err =
        shmc_sched_create(x->c->c, r ? r->dtype : SHMC_UINT8, r ? r->op : SHMC_SUM, tmp, &x->s);
    return err == SHMC_OK ? MPI_SUCCESS : shmc_mpi__from_shmc(err);
}

/* Starts what was built (or lets go of it after rc): the request in *nb. */
static int go(struct ic *x, int rc, int keep, shmc_op op_to_free, MPI_Request *nb)
{
    shmc_request *q = NULL;
    int err = SHMC_OK;
    if (rc == MPI_SUCCESS)
        err = shmc_sched_start(x->s, &q); /* (it takes the schedule over) */
    else
        shmc_sched_free(x->s);
    if (x->opctx)
        shmc_op_free(&op_to_free); /* kept by the C library until the call ends */
    if (rc != MPI_SUCCESS) {
        shmc_mpi__view_finish(&x->vs, 0);
        shmc_mpi__view_finish(&x->vr, 0);
        free(x->opctx);
        return shmc_mpi__call_rc(&x->k, rc);
    }
    return shmc_mpi__coll_started(&x->k, err, q, &x->vs, &x->vr, keep, x->opctx, nb);
}

enum role { NONE, ROOT, MEMBER };

static int role_of(const struct ic *x, int root, enum role *r)
{
    *r = root == MPI_ROOT ? ROOT : root == MPI_PROC_NULL ? NONE : MEMBER;
    if (*r == MEMBER && (root < 0 || root >= x->rn))
        return shmc_mpi__err(MPI_ERR_ROOT,
                             "root %d is none of MPI_ROOT, MPI_PROC_NULL and a rank of the "
                             "remote group (0..%d)",
                             root, x->rn - 1);
    return MPI_SUCCESS;
}

static int no_in_place(const void *a, const void *b)
{
    return a == MPI_IN_PLACE || b == MPI_IN_PLACE
               ? shmc_mpi__err(MPI_ERR_BUFFER, "MPI_IN_PLACE is not for intercommunicators (MPI)")
               : MPI_SUCCESS;
}

/* A usable type and the packed bytes of count of it at buf. */
static int typed(const void *buf, MPI_Count count, MPI_Datatype type,
                 const struct shmc_mpi_type **t, size_t *bytes)
{
    return shmc_mpi__buffer_arg(buf, count, type, t, bytes);
}

int shmc_mpi__icnb_barrier(MPI_Comm comm, MPI_Request *request, const char *fn)
{
    struct ic x;
    int rc = setup(comm, request, fn, &x);
    if (rc)
        return rc;
    shmc_request *q = NULL;
    int err = shmc_ibarrier(x.c->c, &q);
    return shmc_mpi__coll_started(&x.k, err, q, NULL, NULL, 0, NULL, request);
}

int shmc_mpi__icnb_bcast(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                         MPI_Comm comm, MPI_Request *request, const char *fn)
{
    struct ic x;
    enum role me;
    const struct shmc_mpi_type *t;
    size_t bytes = 0;
    int rc = setup(comm, request, fn, &x);
    if (rc)
        return rc;
    if ((rc = role_of(&x, root, &me)) || (rc = make(&x, NULL, 0)))
        return shmc_mpi__call_rc(&x.k, rc);
    if (me != NONE && (rc = typed(buffer, count, datatype, &t, &bytes)) == MPI_SUCCESS)
        rc = me == ROOT ? shmc_mpi__view_send(buffer, (size_t)count, t, &x.vs)
                        : shmc_mpi__view_recv(buffer, (size_t)count, t, &x.vr);
    for (int j = 0; rc == MPI_SUCCESS && me == ROOT && j < x.rn; j++)
        shmc_sched_send(x.s, x.vs.p, bytes, x.roff + j);
    if (rc == MPI_SUCCESS && me == MEMBER)
        shmc_sched_recv(x.s, x.vr.p, bytes, x.roff + root);
    return go(&x, rc, 1, SHMC_OP_NULL, request);
}

/* The reduction of a call: r, and for a user op a C op of the call's own (x->opctx). */
static int reduction(struct ic *x, MPI_Op op, MPI_Datatype type, struct shmc_mpi_red *r)
{
    int rc = shmc_mpi__reduction(op, type, r);
    if (rc == MPI_SUCCESS && r->big)
        rc = shmc_mpi__err(MPI_ERR_UNSUPPORTED_OPERATION,
                           "a nonblocking reduction with a user op on elements of more than "
                           "%d bytes (docs/mpi.md, Limits)",
                           SHMC_DTYPE_BYTES_MAX);
    if (rc == MPI_SUCCESS && shmc_mpi__is_user_op(op))
        rc = shmc_mpi__call_op(op, type, r, &x->opctx);
    return rc;
}

/* tmp holds n inputs of bytes each (count elements of r); acc gets them combined in rank
 * order, then AVG's division over n. */
static void combine(struct ic *x, void *acc, const char *tmp, int n, size_t bytes, size_t count)
{
    shmc_sched_round(x->s);
    shmc_sched_copy(x->s, acc, tmp, bytes);
    for (int j = 1; j < n; j++)
        shmc_sched_reduce(x->s, acc, tmp + (size_t)j * bytes, count, 1);
    shmc_sched_finish(x->s, acc, count, n);
}

int shmc_mpi__icnb_reduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                          MPI_Request *request, const char *fn)
{
    struct ic x;
    enum role me;
    struct shmc_mpi_red r = {0};
    const struct shmc_mpi_type *t;
    size_t bytes = 0;
    int rc = setup(comm, request, fn, &x);
    if (rc)
        return rc;
    if ((rc = role_of(&x, root, &me)) || (me != NONE && (rc = reduction(&x, op, datatype, &r))))
        return shmc_mpi__call_rc(&x.k, rc);
    if (me != NONE)
        rc = typed(me == ROOT ? recvbuf : sendbuf, count, datatype, &t, &bytes);
    size_t n = (size_t)count * r.n;
    if (rc == MPI_SUCCESS)
        rc = make(&x, me == NONE ? NULL : &r, me == ROOT ? (size_t)x.rn * bytes : 0);
    if (rc == MPI_SUCCESS && me == ROOT &&
        (rc = shmc_mpi__view_recv(recvbuf, (size_t)count, t, &x.vr)) == MPI_SUCCESS) {
        char *tmp = shmc_sched_tmp(x.s);
        for (int j = 0; j < x.rn; j++)
            shmc_sched_recv(x.s, tmp + (size_t)j * bytes, bytes, x.roff + j);
        combine(&x, x.vr.p, tmp, x.rn, bytes, n);
    }
    if (rc == MPI_SUCCESS && me == MEMBER &&
        (rc = shmc_mpi__view_send(sendbuf, (size_t)count, t, &x.vs)) == MPI_SUCCESS)
        shmc_sched_send(x.s, x.vs.p, bytes, x.roff + root);
    return go(&x, rc, 1, r.op, request);
}

int shmc_mpi__icnb_allreduce(const void *sendbuf, void *recvbuf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request,
                             const char *fn)
{
    struct ic x;
    struct shmc_mpi_red r = {0};
    const struct shmc_mpi_type *t;
    size_t bytes = 0;
    int rc = setup(comm, request, fn, &x);
    if (rc)
        return rc;
    if ((rc = no_in_place(sendbuf, recvbuf)) || (rc = reduction(&x, op, datatype, &r)))
        return shmc_mpi__call_rc(&x.k, rc);
    size_t n = (size_t)count * r.n;
    if ((rc = typed(sendbuf, count, datatype, &t, &bytes)) == MPI_SUCCESS &&
        (rc = make(&x, &r, (size_t)x.rn * bytes)) == MPI_SUCCESS &&
        (rc = shmc_mpi__view_send(sendbuf, (size_t)count, t, &x.vs)) == MPI_SUCCESS &&
        (rc = shmc_mpi__view_recv(recvbuf, (size_t)count, t, &x.vr)) == MPI_SUCCESS) {
        char *tmp = shmc_sched_tmp(x.s);
        for (int j = 0; j < x.rn; j++) {
            shmc_sched_send(x.s, x.vs.p, bytes, x.roff + j);
            shmc_sched_recv(x.s, tmp + (size_t)j * bytes, bytes, x.roff + j);
        }
        combine(&x, x.vr.p, tmp, x.rn, bytes, n);
    }
    return go(&x, rc, 1, r.op, request);
}

/* Gather (gather 1) or scatter: the root and each member of the other group. */
int shmc_mpi__icnb_rooted(int gather, const void *sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request,
                          const char *fn)
{
    struct ic x;
    enum role me;
    const struct shmc_mpi_type *t;
    size_t bytes = 0;
    int rc = setup(comm, request, fn, &x);
    if (rc)
        return rc;
    if ((rc = role_of(&x, root, &me)) || (rc = make(&x, NULL, 0)))
        return shmc_mpi__call_rc(&x.k, rc);
    if (me == ROOT && gather &&
        (rc = typed(recvbuf, recvcount, recvtype, &t, &bytes)) == MPI_SUCCESS &&
        (rc = shmc_mpi__view_recv(recvbuf, (size_t)x.rn * (size_t)recvcount, t, &x.vr)) ==
            MPI_SUCCESS)
        for (int j = 0; j < x.rn; j++)
            shmc_sched_recv(x.s, (char *)x.vr.p + (size_t)j * bytes, bytes, x.roff + j);
    if (me == ROOT && !gather &&
        (rc = typed(sendbuf, sendcount, sendtype, &t, &bytes)) == MPI_SUCCESS &&
        (rc = shmc_mpi__view_send(sendbuf, (size_t)x.rn * (size_t)sendcount, t, &x.vs)) ==
            MPI_SUCCESS)
        for (int j = 0; j < x.rn; j++)
            shmc_sched_send(x.s, (char *)x.vs.p + (size_t)j * bytes, bytes, x.roff + j);
    if (me == MEMBER && gather &&
        (rc = typed(sendbuf, sendcount, sendtype, &t, &bytes)) == MPI_SUCCESS &&
        (rc = shmc_mpi__view_send(sendbuf, (size_t)sendcount, t, &x.vs)) == MPI_SUCCESS)
        shmc_sched_send(x.s, x.vs.p, bytes, x.roff + root);
    if (me == MEMBER && !gather &&
        (rc = typed(recvbuf, recvcount, recvtype, &t, &bytes)) == MPI_SUCCESS &&
        (rc = shmc_mpi__view_recv(recvbuf, (size_t)recvcount, t, &x.vr)) == MPI_SUCCESS)
        shmc_sched_recv(x.s, x.vr.p, bytes, x.roff + root);
    return go(&x, rc, 1, SHMC_OP_NULL, request);
}

/* Allgather (all 0) or alltoall: one message each way between every pair across. */
int shmc_mpi__icnb_all(int alltoall, const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request, const char *fn)
{
    struct ic x;
    const struct shmc_mpi_type *st, *rt;
    size_t sbytes = 0, rbytes = 0;
    int rc = setup(comm, request, fn, &x);
    if (rc)
        return rc;
    if ((rc = no_in_place(sendbuf, recvbuf)) || (rc = make(&x, NULL, 0)))
        return shmc_mpi__call_rc(&x.k, rc);
    size_t sblocks = alltoall ? (size_t)x.rn : 1;
    if ((rc = typed(sendbuf, sendcount, sendtype, &st, &sbytes)) == MPI_SUCCESS &&
        (rc = typed(recvbuf, recvcount, recvtype, &rt, &rbytes)) == MPI_SUCCESS &&
        (rc = shmc_mpi__view_send(sendbuf, sblocks * (size_t)sendcount, st, &x.vs)) ==
            MPI_SUCCESS &&
        (rc = shmc_mpi__view_recv(recvbuf, (size_t)x.rn * (size_t)recvcount, rt, &x.vr)) ==
            MPI_SUCCESS)
        for (int j = 0; j < x.rn; j++) {
            shmc_sched_send(x.s, (char *)x.vs.p + (alltoall ? (size_t)j * sbytes : 0), sbytes,
                            x.roff + j);
            shmc_sched_recv(x.s, (char *)x.vr.p + (size_t)j * rbytes, rbytes, x.roff + j);
        }
    return go(&x, rc, 1, SHMC_OP_NULL, request);
}

/* The blocks of a v-form side: a dense type (the view-less form), its byte size per
 * element and extent, or the refusal. */
static int dense(MPI_Datatype type, const struct shmc_mpi_type **t)
{
    int rc = MPI_SUCCESS;
    if (!(*t = shmc_mpi__type_usable(type, &rc)))
        return rc;
    if (!(*t)->dense)
        return shmc_mpi__err(MPI_ERR_UNSUPPORTED_OPERATION,
                             "the nonblocking v-collectives on an intercommunicator take "
                             "contiguous datatypes only (docs/mpi.md): use the blocking call");
    return MPI_SUCCESS;
}

static int block(struct shmc_mpi_arr counts, struct shmc_mpi_arr displs, int i,
                 const struct shmc_mpi_type *t, size_t *off, size_t *bytes)
{
    MPI_Count c = shmc_mpi__at(counts, i), d = shmc_mpi__at(displs, i);
    if (c < 0 || d < 0)
        return shmc_mpi__err(MPI_ERR_COUNT, "block %d: count %lld at %lld", i, c, d);
    *off = (size_t)d * (size_t)t->extent;
    *bytes = (size_t)c * (size_t)t->size;
    return MPI_SUCCESS;
}

/* Gatherv, scatterv, allgatherv and alltoallv: the sides with their blocks (NULL arrays
 * where a side has one block of its count). kind: 0 gatherv, 1 scatterv, 2 allgatherv,
 * 3 alltoallv. */
int shmc_mpi__icnb_v(int kind, const void *sendbuf, MPI_Count sendcount,
                     struct shmc_mpi_arr scounts, struct shmc_mpi_arr sdispls,
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                     struct shmc_mpi_arr rcounts, struct shmc_mpi_arr rdispls,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request,
                     const char *fn)
{
    struct ic x;
    enum role me = NONE;
    const struct shmc_mpi_type *st = NULL, *rt = NULL;
    int rc = setup(comm, request, fn, &x);
    if (rc)
        return rc;
    if ((kind <= 1 && (rc = role_of(&x, root, &me))) || (rc = no_in_place(sendbuf, recvbuf)) ||
        (rc = make(&x, NULL, 0)))
        return shmc_mpi__call_rc(&x.k, rc);
    int sends = kind >= 2 || (kind == 0 && me == MEMBER) || (kind == 1 && me == ROOT);
    int recvs = kind >= 2 || (kind == 0 && me == ROOT) || (kind == 1 && me == MEMBER);
    int sv = kind == 1 || kind == 3, rv = kind == 0 || kind == 2 || kind == 3;
    if (sends && (rc = dense(sendtype, &st)) == MPI_SUCCESS && sv && !scounts.p)
        rc = shmc_mpi__err(MPI_ERR_ARG, "sendcounts or sdispls is NULL");
    if (rc == MPI_SUCCESS && recvs && (rc = dense(recvtype, &rt)) == MPI_SUCCESS && rv &&
        (!rcounts.p || !rdispls.p))
        rc = shmc_mpi__err(MPI_ERR_ARG, "recvcounts or displs is NULL");
    if (rc == MPI_SUCCESS && sends && sv && !sdispls.p)
        rc = shmc_mpi__err(MPI_ERR_ARG, "sendcounts or sdispls is NULL");
    for (int j = 0; rc == MPI_SUCCESS && sends && j < x.rn; j++) {
        size_t off = 0, bytes = (size_t)sendcount * (st ? (size_t)st->size : 0);
        if (sv)
            rc = block(scounts, sdispls, j, st, &off, &bytes);
        int to = kind == 0 ? root : j;
        if (rc == MPI_SUCCESS && (kind != 0 || j == 0))
            shmc_sched_send(x.s, (const char *)sendbuf + off, bytes, x.roff + to);
    }
    for (int j = 0; rc == MPI_SUCCESS && recvs && j < x.rn; j++) {
        size_t off = 0, bytes = (size_t)recvcount * (rt ? (size_t)rt->size : 0);
        if (rv)
            rc = block(rcounts, rdispls, j, rt, &off, &bytes);
        int from = kind == 1 ? root : j;
        if (rc == MPI_SUCCESS && (kind != 1 || j == 0))
            shmc_sched_recv(x.s, (char *)recvbuf + off, bytes, x.roff + from);
    }
    return go(&x, rc, 0, SHMC_OP_NULL, request);
}

/* Reduce_scatter (counts: the local group's parts) and its block form (counts NULL:
 * block each): the vectors to the other group's rank 0, combined there, parts sent out. */
int shmc_mpi__icnb_reduce_scatter(const void *sendbuf, void *recvbuf, struct shmc_mpi_arr counts,
                                  MPI_Count block_count, MPI_Datatype datatype, MPI_Op op,
                                  MPI_Comm comm, MPI_Request *request, const char *fn)
{
    struct ic x;
    struct shmc_mpi_red r = {0};
    const struct shmc_mpi_type *t;
    int rc = setup(comm, request, fn, &x);
    if (rc)
        return rc;
    if ((rc = no_in_place(sendbuf, recvbuf)) || (rc = reduction(&x, op, datatype, &r)))
        return shmc_mpi__call_rc(&x.k, rc);
    if (!counts.p && block_count < 0)
        rc = shmc_mpi__err(MPI_ERR_COUNT, "recvcount %lld", block_count);
    MPI_Count total = 0, mine = 0;
    for (int i = 0; rc == MPI_SUCCESS && i < x.ln; i++) {
        MPI_Count ci = counts.p ? shmc_mpi__at(counts, i) : block_count;
        if (ci < 0)
            rc = shmc_mpi__err(MPI_ERR_COUNT, "recvcounts[%d] = %lld", i, ci);
        if (i == x.c->rank)
            mine = ci;
        total += ci;
    }
    size_t tbytes = 0, es = 0;
    if (rc == MPI_SUCCESS && (rc = typed(sendbuf, total, datatype, &t, &tbytes)) == MPI_SUCCESS)
        es = (size_t)t->size;
    int lead = x.c->rank == 0;
    if (rc == MPI_SUCCESS)
        rc = make(&x, &r, lead ? (size_t)(x.rn + 1) * tbytes : 0);
    if (rc == MPI_SUCCESS &&
        (rc = shmc_mpi__view_send(sendbuf, (size_t)total, t, &x.vs)) == MPI_SUCCESS &&
        (rc = shmc_mpi__view_recv(recvbuf, (size_t)mine, t, &x.vr)) == MPI_SUCCESS) {
        /* every member's whole vector to the other group's rank 0 */
        shmc_sched_send(x.s, x.vs.p, tbytes, x.roff);
        if (lead) {
            char *tmp = shmc_sched_tmp(x.s), *acc = tmp + (size_t)x.rn * tbytes;
            for (int j = 0; j < x.rn; j++)
                shmc_sched_recv(x.s, tmp + (size_t)j * tbytes, tbytes, x.roff + j);
            combine(&x, acc, tmp, x.rn, tbytes, (size_t)total * r.n);
            shmc_sched_round(x.s);
            size_t off = 0;
            for (int i = 0; i < x.ln; i++) {
                size_t b = (size_t)(counts.p ? shmc_mpi__at(counts, i) : block_count) * es;
                if (i == 0)
                    shmc_sched_copy(x.s, x.vr.p, acc, b);
                else
                    shmc_sched_send(x.s, acc + off, b, x.loff + i);
                off += b;
            }
        } else {
            shmc_sched_recv(x.s, x.vr.p, (size_t)mine * es, x.loff);
        }
    }
    return go(&x, rc, 1, r.op, request);
}

int shmc_mpi__icnb_alltoallw(const void *sendbuf, struct shmc_mpi_arr scounts,
                             struct shmc_mpi_arr sdispls, const MPI_Datatype sendtypes[],
                             void *recvbuf, struct shmc_mpi_arr rcounts,
                             struct shmc_mpi_arr rdispls, const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request, const char *fn)
{
    struct ic x;
    int rc = setup(comm, request, fn, &x);
    if (rc)
        return rc;
    if ((rc = no_in_place(sendbuf, recvbuf)) || (rc = make(&x, NULL, 0)))
        return shmc_mpi__call_rc(&x.k, rc);
    if (!scounts.p || !sdispls.p || !sendtypes || !rcounts.p || !rdispls.p || !recvtypes)
        rc = shmc_mpi__err(MPI_ERR_ARG, "a counts, displacements or types array is NULL");
    /* displacements in bytes (MPI_Alltoallw): one block of each type per peer */
    for (int j = 0; rc == MPI_SUCCESS && j < x.rn; j++) {
        const struct shmc_mpi_type *st, *rt;
        MPI_Count sc = shmc_mpi__at(scounts, j), rcnt = shmc_mpi__at(rcounts, j);
        MPI_Count sd = shmc_mpi__at(sdispls, j), rd = shmc_mpi__at(rdispls, j);
        if ((rc = dense(sendtypes[j], &st)) || (rc = dense(recvtypes[j], &rt)))
            break;
        if (sc < 0 || rcnt < 0 || sd < 0 || rd < 0) {
            rc = shmc_mpi__err(MPI_ERR_COUNT, "block %d: a negative count or displacement", j);
            break;
        }
        shmc_sched_send(x.s, (const char *)sendbuf + sd, (size_t)sc * (size_t)st->size, x.roff + j);
        shmc_sched_recv(x.s, (char *)recvbuf + rd, (size_t)rcnt * (size_t)rt->size, x.roff + j);
    }
    return go(&x, rc, 0, SHMC_OP_NULL, request);
}
