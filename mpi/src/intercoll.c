/*
 * Collectives on intercommunicators (MPI 4.1, 6.2.2): each built from the MPI calls of
 * this layer on the two hidden communicators an intercommunicator has (intercomm.c):
 * local, its local group, for the steps within a group (which then take every datatype
 * and op those calls take), and bridge, for the messages between the groups.
 *
 * - Rooted calls: the root passes MPI_ROOT, the rest of its group MPI_PROC_NULL, and the
 *   other group the root's rank. Bcast and reduce go through the other group's rank 0
 *   (a broadcast or reduction within it); gather(v) and scatter(v) are one message
 *   between the root and each member of the other group.
 * - Allreduce and reduce_scatter(_block): each group reduces to its rank 0, the two rank 0s
 *   swap results, and each spreads the other group's result within its group.
 * - Allgather(v) and alltoall(v, w): one message each way between every member of one
 *   group and every member of the other.
 * - Barrier: a barrier in each group, a swap between the rank 0s, and a broadcast of how it
 *   went within each group.
 *
 * MPI_IN_PLACE is not for intercommunicators (MPI says so) and is refused. The bridge's
 * messages all carry one tag: each call's messages between two ranks are received in the
 * order they were sent, and calls on one communicator are made in one order by all.
 */
#include "mpi_impl.h"

#include <stdlib.h>

#define TAG 0

/* The call: its intercommunicator and name, for the error raised. */
struct ic {
    struct shmc_mpi_comm *c;
    MPI_Comm h;
    const char *fn;
};

static int end(const struct ic *k, int rc)
{
    return rc == MPI_SUCCESS ? rc : shmc_mpi__raise(k->h, rc, k->fn);
}

static struct ic call(MPI_Comm h, const char *fn)
{
    return (struct ic){shmc_mpi__inter(h), h, fn};
}

enum role { NONE, ROOT, MEMBER };

/* What root says this rank is in a rooted call: the root, another of the root's group,
 * or a member of the other group (the root being that group's rank root). */
static int role_of(const struct ic *k, int root, enum role *r)
{
    if (root == MPI_ROOT)
        *r = ROOT;
    else if (root == MPI_PROC_NULL)
        *r = NONE;
    else if (root >= 0 && root < k->c->remote_size)
        *r = MEMBER;
    else
        return shmc_mpi__err(MPI_ERR_ROOT,
                             "root %d is none of MPI_ROOT (the root), MPI_PROC_NULL (the rest "
                             "of its group) and a rank of the remote group (0..%d)",
                             root, k->c->remote_size - 1);
    return MPI_SUCCESS;
}

static int not_in_place(const void *buf)
{
    return buf == MPI_IN_PLACE
               ? shmc_mpi__err(MPI_ERR_BUFFER, "MPI_IN_PLACE is not for intercommunicators (MPI)")
               : MPI_SUCCESS;
}

/* The extent of a usable datatype, in *ext. */
static int extent_of(MPI_Datatype type, MPI_Aint *ext)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *t = shmc_mpi__type_usable(type, &rc);
    if (t)
        *ext = t->extent;
    return rc;
}

/* Memory for count elements of type, as a buffer to pass with it: *mem is what to free. */
static int scratch(int count, MPI_Datatype type, void **mem, void **buf)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *t = shmc_mpi__type_usable(type, &rc);
    if (!t)
        return rc;
    MPI_Aint lo;
    size_t span = shmc_mpi__type_span(t, count > 0 ? (size_t)count : 0, &lo);
    if (!(*mem = malloc(span ? span : 1)))
        return shmc_mpi__err(MPI_ERR_NO_MEM, "%zu bytes of scratch", span);
    *buf = (char *)*mem - lo;
    return MPI_SUCCESS;
}

/* ---- messages between the groups ----------------------------------------------------------- */

/* Posted messages: their requests, waited for together. */
struct posted {
    MPI_Request *q;
    int n;
};

static int posted_start(struct posted *p, int max)
{
    p->n = 0;
    p->q = malloc((size_t)(max ? max : 1) * sizeof *p->q);
    return p->q ? MPI_SUCCESS : shmc_mpi__err(MPI_ERR_NO_MEM, "%d requests", max);
}

static int post(struct posted *p, int recv, const void *buf, MPI_Aint disp, int count,
                MPI_Datatype type, int peer, MPI_Comm bridge)
{
    char *at = (char *)(uintptr_t)buf + disp;
    int rc = recv ? PMPI_Irecv(at, count, type, peer, TAG, bridge, &p->q[p->n])
                  : PMPI_Isend(at, count, type, peer, TAG, bridge, &p->q[p->n]);
    if (rc == MPI_SUCCESS)
        p->n++;
    return rc;
}

/* Waits for what was posted (also after a failure part-way: the buffers are the
 * caller's) and returns rc, or the wait's error. */
static int posted_end(struct posted *p, int rc)
{
    int w = p->n ? PMPI_Waitall(p->n, p->q, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
    free(p->q);
    return rc != MPI_SUCCESS ? rc : w;
}

/* ---- the calls -------------------------------------------------------------------------- */

int shmc_mpi__ic_barrier(MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    int rc = PMPI_Barrier(k.c->local), peer = MPI_SUCCESS;
    char none = 0;
    if (rc == MPI_SUCCESS && k.c->rank == 0)
        peer = PMPI_Sendrecv(&none, 0, MPI_BYTE, 0, TAG, &none, 0, MPI_BYTE, 0, TAG, k.c->bridge,
                             MPI_STATUS_IGNORE);
    /* Rank 0 tells its group how the swap went: none is left waiting when it failed. */
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(&peer, 1, MPI_INT, 0, k.c->local);
    if (rc == MPI_SUCCESS && peer != MPI_SUCCESS)
        rc = k.c->rank == 0 ? peer
                            : shmc_mpi__err(peer, "rank 0 of this group failed to reach the other");
    return end(&k, rc);
}

int shmc_mpi__ic_bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                       const char *fn)
{
    struct ic k = call(comm, fn);
    enum role r = NONE;
    int rc = role_of(&k, root, &r);
    if (rc != MPI_SUCCESS || r == NONE)
        return end(&k, rc);
    if (r == ROOT)
        return end(&k, PMPI_Send(buffer, count, datatype, 0, TAG, k.c->bridge));
    if (k.c->rank == 0)
        rc = PMPI_Recv(buffer, count, datatype, root, TAG, k.c->bridge, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(buffer, count, datatype, 0, k.c->local);
    return end(&k, rc);
}

/* This group's reduction of count elements at sendbuf to its rank 0, where *mem holds it
 * at *buf (freed by the caller). */
static int reduce_here(const struct ic *k, const void *sendbuf, int count, MPI_Datatype type,
                       MPI_Op op, void **mem, void **buf)
{
    *mem = *buf = NULL;
    int rc = not_in_place(sendbuf);
    if (rc == MPI_SUCCESS && k->c->rank == 0)
        rc = scratch(count, type, mem, buf);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Reduce(sendbuf, *buf, count, type, op, 0, k->c->local);
    return rc;
}

int shmc_mpi__ic_reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    enum role r = NONE;
    int rc = role_of(&k, root, &r);
    if (rc != MPI_SUCCESS || r == NONE)
        return end(&k, rc);
    if (r == ROOT)
        return end(&k, PMPI_Recv(recvbuf, count, datatype, 0, TAG, k.c->bridge, MPI_STATUS_IGNORE));
    void *mem, *buf;
    rc = reduce_here(&k, sendbuf, count, datatype, op, &mem, &buf);
    if (rc == MPI_SUCCESS && k.c->rank == 0)
        rc = PMPI_Send(buf, count, datatype, root, TAG, k.c->bridge);
    free(mem);
    return end(&k, rc);
}

int shmc_mpi__ic_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    void *mem, *buf;
    int rc = reduce_here(&k, sendbuf, count, datatype, op, &mem, &buf);
    if (rc == MPI_SUCCESS && k.c->rank == 0)
        rc = PMPI_Sendrecv(buf, count, datatype, 0, TAG, recvbuf, count, datatype, 0, TAG,
                           k.c->bridge, MPI_STATUS_IGNORE);
    free(mem);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(recvbuf, count, datatype, 0, k.c->local);
    return end(&k, rc);
}

/* Reduce_scatter: counts[i] elements of the other group's reduction to local rank i. */
static int reduce_scatter(const struct ic *k, const void *sendbuf, void *recvbuf, const int *counts,
                          MPI_Datatype type, MPI_Op op)
{
    int n = k->c->size, *displs = malloc((size_t)n * sizeof *displs), total = 0, rc = MPI_SUCCESS;
    if (!displs)
        return shmc_mpi__err(MPI_ERR_NO_MEM, "%d displacements", n);
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (counts[i] < 0 || __builtin_add_overflow(total, counts[i], &total))
            rc = shmc_mpi__err(MPI_ERR_COUNT, "recvcounts[%d] = %d (or the sum past an int)", i,
                               counts[i]);
        else
            displs[i] = total - counts[i];
    }
    void *mem = NULL, *buf = NULL, *mem2 = NULL, *theirs = NULL;
    if (rc == MPI_SUCCESS)
        rc = reduce_here(k, sendbuf, total, type, op, &mem, &buf);
    if (rc == MPI_SUCCESS && k->c->rank == 0 &&
        (rc = scratch(total, type, &mem2, &theirs)) == MPI_SUCCESS)
        rc = PMPI_Sendrecv(buf, total, type, 0, TAG, theirs, total, type, 0, TAG, k->c->bridge,
                           MPI_STATUS_IGNORE);
    free(mem);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Scatterv(theirs, counts, displs, type, recvbuf, counts[k->c->rank], type, 0,
                           k->c->local);
    free(mem2);
    free(displs);
    return rc;
}

int shmc_mpi__ic_reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    if (!recvcounts)
        return end(&k, shmc_mpi__err(MPI_ERR_ARG, "recvcounts is NULL"));
    return end(&k, reduce_scatter(&k, sendbuf, recvbuf, recvcounts, datatype, op));
}

int shmc_mpi__ic_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      const char *fn)
{
    struct ic k = call(comm, fn);
    int n = k.c->size, *counts = malloc((size_t)n * sizeof *counts);
    if (!counts)
        return end(&k, shmc_mpi__err(MPI_ERR_NO_MEM, "%d counts", n));
    for (int i = 0; i < n; i++)
        counts[i] = recvcount;
    int rc = reduce_scatter(&k, sendbuf, recvbuf, counts, datatype, op);
    free(counts);
    return end(&k, rc);
}

/* Gather(v) and scatter(v): the root's side, one message with each member of the other
 * group (block i at displs[i], or at i * count, in extents of type). */
static int root_side(const struct ic *k, int recv, const void *buf, int count, const int *counts,
                     const int *displs, MPI_Datatype type)
{
    MPI_Aint ext = 0;
    int nr = k->c->remote_size, rc = extent_of(type, &ext);
    if (rc == MPI_SUCCESS && counts && (!displs))
        rc = shmc_mpi__err(MPI_ERR_ARG, "the root's displs is NULL");
    struct posted p;
    if (rc != MPI_SUCCESS || (rc = posted_start(&p, nr)) != MPI_SUCCESS)
        return rc;
    for (int i = 0; i < nr && rc == MPI_SUCCESS; i++) {
        MPI_Aint at = (MPI_Aint)(counts ? displs[i] : i * (MPI_Aint)count) * ext;
        rc = post(&p, recv, buf, at, counts ? counts[i] : count, type, i, k->c->bridge);
    }
    return posted_end(&p, rc);
}

/* A rooted data call: the root's side above, the other group's one message with the root,
 * the root's group's other members nothing. */
static int rooted(const struct ic *k, int gather, const void *sendbuf, int sendcount,
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  const int *counts, const int *displs, int root)
{
    enum role r = NONE;
    int rc = role_of(k, root, &r);
    if (rc == MPI_SUCCESS)
        rc = not_in_place(gather ? sendbuf : recvbuf);
    if (rc != MPI_SUCCESS || r == NONE)
        return rc;
    if (r == ROOT) {
        if (counts == NULL && (gather ? recvcount : sendcount) < 0)
            return shmc_mpi__err(MPI_ERR_COUNT, "count %d", gather ? recvcount : sendcount);
        return gather ? root_side(k, 1, recvbuf, recvcount, counts, displs, recvtype)
                      : root_side(k, 0, sendbuf, sendcount, counts, displs, sendtype);
    }
    return gather ? PMPI_Send(sendbuf, sendcount, sendtype, root, TAG, k->c->bridge)
                  : PMPI_Recv(recvbuf, recvcount, recvtype, root, TAG, k->c->bridge,
                              MPI_STATUS_IGNORE);
}

int shmc_mpi__ic_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        const char *fn)
{
    struct ic k = call(comm, fn);
    return end(&k, rooted(&k, 1, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, NULL,
                          NULL, root));
}

int shmc_mpi__ic_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         int root, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    if (root == MPI_ROOT && !recvcounts)
        return end(&k, shmc_mpi__err(MPI_ERR_ARG, "the root's recvcounts is NULL"));
    return end(&k, rooted(&k, 1, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype, recvcounts,
                          displs, root));
}

int shmc_mpi__ic_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         const char *fn)
{
    struct ic k = call(comm, fn);
    return end(&k, rooted(&k, 0, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, NULL,
                          NULL, root));
}

int shmc_mpi__ic_scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    if (root == MPI_ROOT && !sendcounts)
        return end(&k, shmc_mpi__err(MPI_ERR_ARG, "the root's sendcounts is NULL"));
    return end(&k, rooted(&k, 0, sendbuf, 0, sendtype, recvbuf, recvcount, recvtype, sendcounts,
                          displs, root));
}

/* One side of an exchange with every member of the other group: block i (count elements
 * of type, or counts[i] of types[i]) at displs[i] extents (bytes where bytes is set), or
 * at i * count extents; one block for all where same is set. */
struct side {
    const void *buf;
    int count;
    const int *counts, *displs;
    MPI_Datatype type;
    const MPI_Datatype *types;
    int bytes, same;
};

static int exchange(const struct ic *k, const struct side *s, const struct side *r)
{
    int nr = k->c->remote_size, rc = not_in_place(s->buf);
    MPI_Aint sext = 1, rext = 1;
    if (rc == MPI_SUCCESS && (!r->counts) != (!r->displs))
        rc = shmc_mpi__err(MPI_ERR_ARG, "a counts or displacements array is NULL");
    if (rc == MPI_SUCCESS && (!s->counts) != (!s->displs))
        rc = shmc_mpi__err(MPI_ERR_ARG, "a counts or displacements array is NULL");
    if (rc == MPI_SUCCESS && !s->types && !s->bytes)
        rc = extent_of(s->type, &sext);
    if (rc == MPI_SUCCESS && !r->types && !r->bytes)
        rc = extent_of(r->type, &rext);
    struct posted p;
    if (rc != MPI_SUCCESS || (rc = posted_start(&p, 2 * nr)) != MPI_SUCCESS)
        return rc;
    /* Receives first, so that every send finds its receive posted. */
    for (int pass = 0; pass < 2; pass++) {
        const struct side *x = pass ? s : r;
        MPI_Aint ext = pass ? sext : rext;
        for (int i = 0; i < nr && rc == MPI_SUCCESS; i++) {
            MPI_Aint at = x->same     ? 0
                          : x->displs ? (MPI_Aint)x->displs[i] * ext
                                      : (MPI_Aint)i * x->count * ext;
            rc = post(&p, !pass, x->buf, at, x->counts ? x->counts[i] : x->count,
                      x->types ? x->types[i] : x->type, i, k->c->bridge);
        }
    }
    return posted_end(&p, rc);
}

int shmc_mpi__ic_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    struct side s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    struct side r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return end(&k, exchange(&k, &s, &r));
}

int shmc_mpi__ic_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    struct side s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    struct side r = {.buf = recvbuf, .counts = recvcounts, .displs = displs, .type = recvtype};
    if (!recvcounts)
        return end(&k, shmc_mpi__err(MPI_ERR_ARG, "recvcounts is NULL"));
    return end(&k, exchange(&k, &s, &r));
}

int shmc_mpi__ic_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    struct side s = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    struct side r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return end(&k, exchange(&k, &s, &r));
}

int shmc_mpi__ic_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                           const char *fn)
{
    struct ic k = call(comm, fn);
    struct side s = {.buf = sendbuf, .counts = sendcounts, .displs = sdispls, .type = sendtype};
    struct side r = {.buf = recvbuf, .counts = recvcounts, .displs = rdispls, .type = recvtype};
    if (!sendcounts || !recvcounts)
        return end(&k, shmc_mpi__err(MPI_ERR_ARG, "sendcounts or recvcounts is NULL"));
    return end(&k, exchange(&k, &s, &r));
}

int shmc_mpi__ic_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                           const char *fn)
{
    struct ic k = call(comm, fn);
    if (!sendcounts || !recvcounts || !sendtypes || !recvtypes)
        return end(&k, shmc_mpi__err(MPI_ERR_ARG, "a counts or types array is NULL"));
    struct side s = {
        .buf = sendbuf, .counts = sendcounts, .displs = sdispls, .types = sendtypes, .bytes = 1};
    struct side r = {
        .buf = recvbuf, .counts = recvcounts, .displs = rdispls, .types = recvtypes, .bytes = 1};
    return end(&k, exchange(&k, &s, &r));
}

/* ---- the large-count forms ------------------------------------------------------------- */

int shmc_mpi__ic_int(MPI_Count v, int *out)
{
    if (v > INT32_MAX || v < INT32_MIN)
        return shmc_mpi__err(MPI_ERR_COUNT,
                             "%lld does not fit in an int: an intercommunicator's collectives "
                             "take counts and displacements below 2^31 (docs/mpi.md, Limits)",
                             v);
    *out = (int)v;
    return MPI_SUCCESS;
}

int shmc_mpi__ic_ints(struct shmc_mpi_arr a, int n, int **out)
{
    *out = NULL;
    if (!a.p)
        return MPI_SUCCESS; /* the call names what is missing */
    int *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (!v)
        return shmc_mpi__err(MPI_ERR_NO_MEM, "%d counts", n);
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        rc = shmc_mpi__ic_int(shmc_mpi__at(a, i), &v[i]);
    if (rc != MPI_SUCCESS) {
        free(v);
        return rc;
    }
    *out = v;
    return MPI_SUCCESS;
}
