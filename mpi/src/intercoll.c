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
 * messages carry one tag (TAG_FAIL apart): each call's messages between two ranks are
 * received in the order they were sent, and calls on one communicator are made in one
 * order by all.
 *
 * A rank that fails on its own part-way (its memory, or arguments only it holds: a root's
 * counts) leaves nobody waiting: in place of each message it owes the other group it
 * sends an empty one tagged TAG_FAIL, which ends the receiver's call with
 * MPI_ERR_PROC_ABORTED, and it takes (and drops) each message owed to it, so that no
 * sender waits for a receive; where the members of its own group wait in a step within
 * the group (a reduction, a broadcast, a scatter), it gives up that group's collectives
 * (shmc_coll_quit, as a failing intracommunicator collective does), and they end with
 * MPI_ERR_PROC_ABORTED too. The bridge stays in step: each call still moves one message
 * each way between the ranks it pairs.
 */
#include "mpi_impl.h"

#include <stdlib.h>

#define TAG 0
#define TAG_FAIL 1

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

/* ---- failures part-way ---------------------------------------------------------------- */

/* The outcome rc of a receive from the other group's rank peer, whose status is st: its
 * error, or the sender's word (TAG_FAIL) that it failed in this call. */
static int heard(int rc, const MPI_Status *st, int peer)
{
    if (rc != MPI_SUCCESS || st->MPI_TAG != TAG_FAIL)
        return rc;
    return shmc_mpi__err(MPI_ERR_PROC_ABORTED,
                         "rank %d of the other group failed in this call (it reports why)", peer);
}

/* This rank's part with the other group's rank peer, after a failure of its own before
 * it: the failure's word in place of the message it owes (send), and the message owed to
 * it taken and dropped (recv). The failure may have been this process's memory, so
 * neither step makes a request: an empty send goes straight into the mailbox, and the
 * receive waits for its message by a probe, then takes it as it lies. Their own errors
 * are not this call's to report. */
static void bridge_fail(const struct ic *k, int send, int recv, int peer)
{
    char none = 0;
    if (send)
        PMPI_Send(&none, 0, MPI_BYTE, peer, TAG_FAIL, k->c->bridge);
    if (recv && PMPI_Probe(peer, MPI_ANY_TAG, k->c->bridge, MPI_STATUS_IGNORE) == MPI_SUCCESS)
        PMPI_Recv(&none, 0, MPI_BYTE, peer, MPI_ANY_TAG, k->c->bridge, MPI_STATUS_IGNORE);
}

/* This group's collectives given up after rc on this rank, where its members would wait
 * for it in a step within the group. */
static int quit_local(const struct ic *k, int rc)
{
    const struct shmc_mpi_comm *l = shmc_mpi__table_get(&shmc_mpi__comms, k->c->local);
    shmc_coll_quit(l->c, rc == MPI_ERR_NO_MEM ? SHMC_ERR_NOMEM : SHMC_ERR_PEER_DEAD);
    return rc;
}

/* Did a point-to-point call that returned rc leave its message where it was? Every error
 * but truncation comes before a message moves (its arguments, its packing memory): a
 * point-to-point call that fails does nothing. */
static int unmoved(int rc)
{
    return rc != MPI_SUCCESS && rc != MPI_ERR_TRUNCATE;
}

/* A send on the bridge to the other group's rank peer; where it fails, the failure's word
 * goes in its place. */
static int bridge_send(const struct ic *k, const void *buf, int count, MPI_Datatype type,
                       int peer)
{
    int rc = PMPI_Send(buf, count, type, peer, TAG, k->c->bridge);
    if (unmoved(rc))
        bridge_fail(k, 1, 0, peer);
    return rc;
}

/* A receive on the bridge from the other group's rank peer: its message, or its word
 * that it failed; where the receive fails, the message is taken and dropped. */
static int bridge_recv(const struct ic *k, void *buf, int count, MPI_Datatype type, int peer)
{
    MPI_Status st;
    int rc = PMPI_Recv(buf, count, type, peer, MPI_ANY_TAG, k->c->bridge, &st);
    if (unmoved(rc))
        bridge_fail(k, 0, 1, peer);
    return heard(rc, &st, peer);
}

/* The rank 0s' swap: count elements from sbuf to the other's rbuf, each way. */
static int bridge_swap(const struct ic *k, const void *sbuf, void *rbuf, int count,
                       MPI_Datatype type)
{
    MPI_Status st;
    int rc = PMPI_Sendrecv(sbuf, count, type, 0, TAG, rbuf, count, type, 0, MPI_ANY_TAG,
                           k->c->bridge, &st);
    if (unmoved(rc))
        bridge_fail(k, 1, 1, 0);
    return heard(rc, &st, 0);
}

/* ---- messages between the groups ----------------------------------------------------------- */

/* Posted messages: their requests, waited for together, and their statuses (a receive's
 * tag says whether its sender failed). */
struct posted {
    MPI_Request *q;
    MPI_Status *st;
    int n;
};

static int posted_start(struct posted *p, int max)
{
    size_t m = (size_t)(max ? max : 1);
    p->n = 0;
    /* (the statuses first: their alignment is the stricter) */
    p->st = malloc(m * (sizeof *p->st + sizeof *p->q));
    p->q = p->st ? (MPI_Request *)(void *)(p->st + m) : NULL;
    return p->q ? MPI_SUCCESS : shmc_mpi__err(MPI_ERR_NO_MEM, "%d requests", max);
}

static int post(struct posted *p, int recv, const void *buf, MPI_Aint disp, int count,
                MPI_Datatype type, int peer, MPI_Comm bridge)
{
    char *at = (char *)(uintptr_t)buf + disp;
    int rc = recv ? PMPI_Irecv(at, count, type, peer, MPI_ANY_TAG, bridge, &p->q[p->n])
                  : PMPI_Isend(at, count, type, peer, TAG, bridge, &p->q[p->n]);
    if (rc == MPI_SUCCESS)
        p->n++;
    return rc;
}

/* Waits for what was posted (also after a failure part-way: the buffers are the
 * caller's) and returns rc, or the wait's error, or that of a sender that failed (the
 * first nrecv requests are receives from the other group's ranks 0, 1, ...). */
static int posted_end(struct posted *p, int rc, int nrecv)
{
    int w = p->n ? PMPI_Waitall(p->n, p->q, p->st) : MPI_SUCCESS;
    /* Under MPI_ERR_IN_STATUS a request's own error says what went wrong (the call's
     * caller has no statuses to look in). */
    for (int i = 0; i < p->n && w == MPI_ERR_IN_STATUS; i++)
        if (p->st[i].MPI_ERROR != MPI_SUCCESS && p->st[i].MPI_ERROR != MPI_ERR_PENDING)
            w = p->st[i].MPI_ERROR;
    for (int i = 0; i < nrecv && i < p->n; i++)
        if (p->st[i].MPI_ERROR == MPI_SUCCESS && p->st[i].MPI_TAG == TAG_FAIL)
            w = heard(MPI_SUCCESS, &p->st[i], i);
    free(p->st);
    return rc != MPI_SUCCESS ? rc : w;
}

/* ---- the calls -------------------------------------------------------------------------- */

int shmc_mpi__ic_barrier(MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    int rc = PMPI_Barrier(k.c->local), peer = MPI_SUCCESS;
    char none = 0;
    if (rc == MPI_SUCCESS && k.c->rank == 0)
        peer = bridge_swap(&k, &none, &none, 0, MPI_BYTE);
    else if (k.c->rank == 0)
        bridge_fail(&k, 1, 1, 0); /* (this group's barrier failed: the other's rank 0 waits) */
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
        return end(&k, bridge_send(&k, buffer, count, datatype, 0));
    if (k.c->rank == 0 && (rc = bridge_recv(&k, buffer, count, datatype, root)) != MPI_SUCCESS)
        quit_local(&k, rc); /* the members wait in the broadcast */
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
    if (rc != MPI_SUCCESS)
        return quit_local(k, rc); /* the members wait in the reduction */
    return PMPI_Reduce(sendbuf, *buf, count, type, op, 0, k->c->local);
}

/* After this group's reduction (rc), rank 0's swap with the other group's: the result of
 * this group's from buf, the other's into theirs. Where either failed, the other rank 0
 * learns of it, and this group's members, who wait for what the swap brings, are not left
 * waiting. Returns rc, or the swap's error. */
static int swap_reduced(const struct ic *k, int rc, const void *buf, void *theirs, int count,
                        MPI_Datatype type)
{
    if (k->c->rank != 0)
        return rc;
    if (rc == MPI_SUCCESS)
        rc = bridge_swap(k, buf, theirs, count, type);
    else
        bridge_fail(k, 1, 1, 0);
    return rc == MPI_SUCCESS ? rc : quit_local(k, rc);
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
        return end(&k, bridge_recv(&k, recvbuf, count, datatype, 0));
    void *mem, *buf;
    rc = reduce_here(&k, sendbuf, count, datatype, op, &mem, &buf);
    if (k.c->rank == 0 && rc == MPI_SUCCESS)
        rc = bridge_send(&k, buf, count, datatype, root);
    else if (k.c->rank == 0)
        bridge_fail(&k, 1, 0, root); /* (the root waits for this group's result) */
    free(mem);
    return end(&k, rc);
}

int shmc_mpi__ic_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    void *mem, *buf;
    int rc = reduce_here(&k, sendbuf, count, datatype, op, &mem, &buf);
    rc = swap_reduced(&k, rc, buf, recvbuf, count, datatype);
    free(mem);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Bcast(recvbuf, count, datatype, 0, k.c->local);
    return end(&k, rc);
}

/* A failure of this rank's own before the group's reduction: neither the members (in the
 * reduction) nor the other group's rank 0 (in the swap) are left waiting. */
static int give_up(const struct ic *k, int rc)
{
    quit_local(k, rc);
    if (k->c->rank == 0)
        bridge_fail(k, 1, 1, 0);
    return rc;
}

/* Reduce_scatter: counts[i] elements of the other group's reduction to local rank i. */
static int reduce_scatter(const struct ic *k, const void *sendbuf, void *recvbuf, const int *counts,
                          MPI_Datatype type, MPI_Op op)
{
    int n = k->c->size, *displs = malloc((size_t)n * sizeof *displs), total = 0, rc = MPI_SUCCESS;
    if (!displs)
        return give_up(k, shmc_mpi__err(MPI_ERR_NO_MEM, "%d displacements", n));
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        if (counts[i] < 0 || __builtin_add_overflow(total, counts[i], &total))
            rc = shmc_mpi__err(MPI_ERR_COUNT, "recvcounts[%d] = %d (or the sum past an int)", i,
                               counts[i]);
        else
            displs[i] = total - counts[i];
    }
    if (rc != MPI_SUCCESS)
        quit_local(k, rc); /* (where a member's counts differ, the others wait for it) */
    void *mem = NULL, *buf = NULL, *mem2 = NULL, *theirs = NULL;
    if (rc == MPI_SUCCESS)
        rc = reduce_here(k, sendbuf, total, type, op, &mem, &buf);
    if (rc == MPI_SUCCESS && k->c->rank == 0)
        rc = scratch(total, type, &mem2, &theirs);
    rc = swap_reduced(k, rc, buf, theirs, total, type);
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
        return end(&k, give_up(&k, shmc_mpi__err(MPI_ERR_ARG, "recvcounts is NULL")));
    return end(&k, reduce_scatter(&k, sendbuf, recvbuf, recvcounts, datatype, op));
}

int shmc_mpi__ic_reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      const char *fn)
{
    struct ic k = call(comm, fn);
    int n = k.c->size, *counts = malloc((size_t)n * sizeof *counts);
    if (!counts)
        return end(&k, give_up(&k, shmc_mpi__err(MPI_ERR_NO_MEM, "%d counts", n)));
    for (int i = 0; i < n; i++)
        counts[i] = recvcount;
    int rc = reduce_scatter(&k, sendbuf, recvbuf, counts, datatype, op);
    free(counts);
    return end(&k, rc);
}

/* Gather(v) and scatter(v): the root's side, one message with each member of the other
 * group (block i at displs[i] (v: the v-form), or at i * count, in extents of type); rc,
 * a failure already found. */
static int root_side(const struct ic *k, int recv, const void *buf, int count, const int *counts,
                     const int *displs, MPI_Datatype type, int v, int rc)
{
    MPI_Aint ext = 0;
    int nr = k->c->remote_size, i = 0;
    if (rc == MPI_SUCCESS && v && (!counts || !displs))
        rc = shmc_mpi__err(MPI_ERR_ARG, "the root's %s is NULL",
                           !counts ? (recv ? "recvcounts" : "sendcounts") : "displs");
    if (rc == MPI_SUCCESS && !v && count < 0)
        rc = shmc_mpi__err(MPI_ERR_COUNT, "count %d", count);
    if (rc == MPI_SUCCESS)
        rc = extent_of(type, &ext);
    struct posted p = {NULL, NULL, 0};
    if (rc == MPI_SUCCESS)
        rc = posted_start(&p, nr);
    for (; i < nr && rc == MPI_SUCCESS; i++) {
        MPI_Aint at = (MPI_Aint)(v ? displs[i] : i * (MPI_Aint)count) * ext;
        rc = post(&p, recv, buf, at, v ? counts[i] : count, type, i, k->c->bridge);
    }
    /* Only the root knows of its failure: the members it did not reach are told. */
    for (i = p.n; rc != MPI_SUCCESS && i < nr; i++)
        bridge_fail(k, !recv, recv, i);
    return p.q ? posted_end(&p, rc, recv ? p.n : 0) : rc;
}

/* A rooted data call: the root's side above, the other group's one message with the root,
 * the root's group's other members nothing. */
static int rooted(const struct ic *k, int gather, const void *sendbuf, int sendcount,
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  const int *counts, const int *displs, int v, int root)
{
    enum role r = NONE;
    int rc = role_of(k, root, &r);
    if (rc != MPI_SUCCESS || r == NONE)
        return rc;
    rc = not_in_place(gather ? sendbuf : recvbuf);
    if (r == ROOT)
        return gather ? root_side(k, 1, recvbuf, recvcount, counts, displs, recvtype, v, rc)
                      : root_side(k, 0, sendbuf, sendcount, counts, displs, sendtype, v, rc);
    if (rc != MPI_SUCCESS) {
        bridge_fail(k, gather, !gather, root); /* the root waits for this rank's part */
        return rc;
    }
    return gather ? bridge_send(k, sendbuf, sendcount, sendtype, root)
                  : bridge_recv(k, recvbuf, recvcount, recvtype, root);
}

int shmc_mpi__ic_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        const char *fn)
{
    struct ic k = call(comm, fn);
    return end(&k, rooted(&k, 1, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, NULL,
                          NULL, 0, root));
}

int shmc_mpi__ic_gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         int root, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    return end(&k, rooted(&k, 1, sendbuf, sendcount, sendtype, recvbuf, 0, recvtype, recvcounts,
                          displs, 1, root));
}

int shmc_mpi__ic_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                         const char *fn)
{
    struct ic k = call(comm, fn);
    return end(&k, rooted(&k, 0, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, NULL,
                          NULL, 0, root));
}

int shmc_mpi__ic_scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                          MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    return end(&k, rooted(&k, 0, sendbuf, 0, sendtype, recvbuf, recvcount, recvtype, sendcounts,
                          displs, 1, root));
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

static int exchange(const struct ic *k, const struct side *s, const struct side *r, int rc)
{
    int nr = k->c->remote_size;
    if (rc == MPI_SUCCESS)
        rc = not_in_place(s->buf);
    MPI_Aint sext = 1, rext = 1;
    if (rc == MPI_SUCCESS && (!r->counts) != (!r->displs))
        rc = shmc_mpi__err(MPI_ERR_ARG, "a counts or displacements array is NULL");
    if (rc == MPI_SUCCESS && (!s->counts) != (!s->displs))
        rc = shmc_mpi__err(MPI_ERR_ARG, "a counts or displacements array is NULL");
    if (rc == MPI_SUCCESS && !s->types && !s->bytes)
        rc = extent_of(s->type, &sext);
    if (rc == MPI_SUCCESS && !r->types && !r->bytes)
        rc = extent_of(r->type, &rext);
    struct posted p = {NULL, NULL, 0};
    if (rc == MPI_SUCCESS)
        rc = posted_start(&p, 2 * nr);
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
    /* The members of the other group this rank did not reach are told of its failure:
     * request j < nr is the receive from rank j, nr + j the send to it. */
    for (int i = 0; rc != MPI_SUCCESS && i < nr; i++)
        bridge_fail(k, p.n <= nr + i, p.n <= i, i);
    return p.q ? posted_end(&p, rc, p.n < nr ? p.n : nr) : rc;
}

int shmc_mpi__ic_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    struct side s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    struct side r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return end(&k, exchange(&k, &s, &r, MPI_SUCCESS));
}

int shmc_mpi__ic_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    struct side s = {.buf = sendbuf, .count = sendcount, .type = sendtype, .same = 1};
    struct side r = {.buf = recvbuf, .counts = recvcounts, .displs = displs, .type = recvtype};
    int rc = recvcounts ? MPI_SUCCESS : shmc_mpi__err(MPI_ERR_ARG, "recvcounts is NULL");
    return end(&k, exchange(&k, &s, &r, rc));
}

int shmc_mpi__ic_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm, const char *fn)
{
    struct ic k = call(comm, fn);
    struct side s = {.buf = sendbuf, .count = sendcount, .type = sendtype};
    struct side r = {.buf = recvbuf, .count = recvcount, .type = recvtype};
    return end(&k, exchange(&k, &s, &r, MPI_SUCCESS));
}

int shmc_mpi__ic_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                           const char *fn)
{
    struct ic k = call(comm, fn);
    struct side s = {.buf = sendbuf, .counts = sendcounts, .displs = sdispls, .type = sendtype};
    struct side r = {.buf = recvbuf, .counts = recvcounts, .displs = rdispls, .type = recvtype};
    int rc = sendcounts && recvcounts
                 ? MPI_SUCCESS
                 : shmc_mpi__err(MPI_ERR_ARG, "sendcounts or recvcounts is NULL");
    return end(&k, exchange(&k, &s, &r, rc));
}

int shmc_mpi__ic_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                           const char *fn)
{
    struct ic k = call(comm, fn);
    int rc = sendcounts && recvcounts && sendtypes && recvtypes
                 ? MPI_SUCCESS
                 : shmc_mpi__err(MPI_ERR_ARG, "a counts or types array is NULL");
    struct side s = {
        .buf = sendbuf, .counts = sendcounts, .displs = sdispls, .types = sendtypes, .bytes = 1};
    struct side r = {
        .buf = recvbuf, .counts = recvcounts, .displs = rdispls, .types = recvtypes, .bytes = 1};
    return end(&k, exchange(&k, &s, &r, rc));
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
