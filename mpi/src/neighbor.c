/*
 * The neighbourhood collectives (MPI 4.1, 8.6 and 8.7) on communicators with a
 * Cartesian, graph or distributed graph topology: allgather(v) and alltoall(v, w), run
 * by neighbor_calls.c's blocking, nonblocking and persistent forms.
 *
 * Each call is one round of a C library schedule (shmc_sched_*), numbered among the
 * communicator's nonblocking collectives; every member takes the number alike because
 * every member calls (MPI makes them collective over the whole communicator). A rank
 * posts a message to each destination and from each source in the topology's order, so
 * that two edges between one pair of ranks match in that order. A Cartesian dimension's
 * pair of sends goes positive direction first: when both of its neighbours are one rank
 * (a periodic dimension of 1 or 2), the block a rank sends in the positive direction must
 * be the one that rank receives from the negative direction, and receives are posted
 * negative direction first. MPI_PROC_NULL neighbours (the ends of a dimension that is not
 * periodic) take no message and leave their receive block as it was.
 *
 * Every block has a view of its own (a packed copy or staging memory where its type is
 * not dense), so any datatypes work; allgather's one send block is packed once for all
 * destinations. The blocking forms start a schedule and wait for it.
 */
#include "request_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {"allgather", "allgatherv", "alltoall", "alltoallv",
                                    "alltoallw"};

/* The views of a call in flight: its send blocks first, then its receive blocks. */
struct blocks {
    int nsend, nrecv;
    struct shmc_mpi_view v[];
};

static void blocks_fin(void *arg, int ok)
{
    struct blocks *b = arg;
    for (int i = 0; i < b->nsend + b->nrecv; i++)
        shmc_mpi__view_finish(&b->v[i], ok && i >= b->nsend ? b->v[i].bytes : 0);
    free(b);
}

static int topology(const struct shmc_mpi_comm *c, MPI_Comm h, struct shmc_mpi_nbrs *n)
{
    if (c->ndims != 0)
        return shmc_mpi__cart_nbrs(c, n);
    if (c->graph)
        return shmc_mpi__graph_nbrs(c, n);
    *n = (struct shmc_mpi_nbrs){0};
    return shmc_mpi__err(MPI_ERR_TOPOLOGY,
                         "communicator %d has no topology: the neighbourhood collectives need "
                         "one of MPI_Cart_create, MPI_Graph_create or MPI_Dist_graph_create",
                         h);
}

/* One side's block j (recv: the receive side): count elements of *type at *buf. */
static int block(const struct shmc_mpi_nargs *a, int recv, int j, void **buf, MPI_Count *count,
                 const struct shmc_mpi_type **type)
{
    int k = a->kind, w = k == SHMC_MPI_NB_ALLTOALLW;
    char *base = recv ? a->rbuf : (char *)(uintptr_t)a->sbuf;
    int varied = w || k == SHMC_MPI_NB_ALLTOALLV || (recv && k == SHMC_MPI_NB_ALLGATHERV);
    int shared = !recv && (k == SHMC_MPI_NB_ALLGATHER || k == SHMC_MPI_NB_ALLGATHERV);
    const char *side = recv ? "receive" : "send";
    if (base == MPI_IN_PLACE)
        return shmc_mpi__err(MPI_ERR_BUFFER,
                             "MPI_IN_PLACE is not for the neighbourhood collectives (MPI)");
    if (varied && (!(recv ? a->rcounts : a->scounts).p || !(recv ? a->rdispls : a->sdispls).p))
        return shmc_mpi__err(MPI_ERR_ARG, "the %s counts or displacements array is NULL", side);
    if (w && !(recv ? a->rtypes : a->stypes))
        return shmc_mpi__err(MPI_ERR_ARG, "the %s types array is NULL", side);
    MPI_Datatype ty = w ? (recv ? a->rtypes : a->stypes)[j] : recv ? a->rtype : a->stype;
    MPI_Count c = varied ? shmc_mpi__at(recv ? a->rcounts : a->scounts, j)
                  : recv ? a->rcount
                         : a->scount;
    int rc = MPI_SUCCESS;
    if (!(*type = shmc_mpi__type_usable(ty, &rc)))
        return rc;
    if (c < 0)
        return shmc_mpi__err(MPI_ERR_COUNT, "%s block %d: count %lld is negative", side, j,
                             (long long)c);
    MPI_Aint off = 0;
    if (w)
        off = (MPI_Aint)shmc_mpi__at(recv ? a->rdispls : a->sdispls, j); /* bytes */
    else if (varied)
        off = (MPI_Aint)shmc_mpi__at(recv ? a->rdispls : a->sdispls, j) * (*type)->extent;
    else if (!shared)
        off = (MPI_Aint)j * (MPI_Aint)c * (*type)->extent;
    *buf = base + off;
    *count = c;
    size_t bytes;
    return shmc_mpi__buffer_arg(*buf, c, ty, type, &bytes);
}

/* The schedule of call a on k's communicator with neighbours n: views made in b. */
static int build(const struct shmc_mpi_nargs *a, const struct shmc_mpi_nbrs *n, shmc_sched *s,
                 struct blocks *b)
{
    int rc = MPI_SUCCESS;
    void *buf;
    MPI_Count count;
    const struct shmc_mpi_type *t;
    for (int j = 0; j < b->nsend && rc == MPI_SUCCESS; j++)
        if ((rc = block(a, 0, j, &buf, &count, &t)) == MPI_SUCCESS)
            rc = shmc_mpi__view_send(buf, (size_t)count, t, &b->v[j]);
    for (int j = 0; j < b->nrecv && rc == MPI_SUCCESS; j++) {
        if (n->src[j] == MPI_PROC_NULL)
            continue; /* (its view stays empty: nothing is unpacked over the block) */
        if ((rc = block(a, 1, j, &buf, &count, &t)) == MPI_SUCCESS)
            rc = shmc_mpi__view_recv(buf, (size_t)count, t, &b->v[b->nsend + j]);
    }
    int err = SHMC_OK;
    for (int j = 0; j < n->indeg && rc == MPI_SUCCESS && err == SHMC_OK; j++)
        if (n->src[j] != MPI_PROC_NULL)
            err = shmc_sched_recv(s, b->v[b->nsend + j].p, b->v[b->nsend + j].bytes, n->src[j]);
    for (int i = 0; i < n->outdeg && rc == MPI_SUCCESS && err == SHMC_OK; i++) {
        int j = n->pairs ? i ^ 1 : i; /* a Cartesian pair: the positive direction first */
        const struct shmc_mpi_view *v = &b->v[b->nsend == 1 ? 0 : j];
        if (n->dst[j] != MPI_PROC_NULL)
            err = shmc_sched_send(s, v->p, v->bytes, n->dst[j]);
    }
    return rc != MPI_SUCCESS ? rc : shmc_mpi__from_shmc(err);
}

int shmc_mpi__neighbor(const struct shmc_mpi_nargs *a, MPI_Comm comm, MPI_Request *request,
                       const char *fn)
{
    struct shmc_mpi_call k;
    int rc = shmc_mpi__call(comm, fn, &k);
    if (rc)
        return rc;
    if (!request && a->nonblocking)
        return shmc_mpi__call_rc(&k, shmc_mpi__err(MPI_ERR_ARG, "request is NULL"));
    struct shmc_mpi_nbrs n;
    if ((rc = topology(k.c, comm, &n)) != MPI_SUCCESS)
        return shmc_mpi__call_rc(&k, rc);
    int shared = a->kind == SHMC_MPI_NB_ALLGATHER || a->kind == SHMC_MPI_NB_ALLGATHERV;
    int nsend = shared ? (n.outdeg > 0) : n.outdeg;
    struct blocks *b = calloc(1, sizeof *b + (size_t)(nsend + n.indeg) * sizeof b->v[0]);
    shmc_sched *s = NULL;
    if (!b)
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a neighbourhood %s", names[a->kind]);
    else if ((rc = shmc_mpi__from_shmc(shmc_sched_create(k.c->c, SHMC_UINT8, SHMC_SUM, 0, &s))) ==
             MPI_SUCCESS) {
        b->nsend = nsend;
        b->nrecv = n.indeg;
        rc = build(a, &n, s, b);
    }
    free(n.own);
    shmc_request *q = NULL;
    if (rc != MPI_SUCCESS) {
        shmc_sched_free(s);
        if (b)
            blocks_fin(b, 0);
        return shmc_mpi__call_rc(&k, rc);
    }
    int err = shmc_sched_start(s, &q); /* (it takes the schedule over) */
    if (err == SHMC_OK && !request)
        err = shmc_wait(&q, NULL);
    if (err != SHMC_OK || !request) {
        blocks_fin(b, err == SHMC_OK);
        return shmc_mpi__call_err(&k, err);
    }
    /* (after the call began: raised without quitting, as shmc_mpi__coll_started does) */
    return shmc_mpi__raise(comm, shmc_mpi__request_coll(q, comm, blocks_fin, b, request), fn);
}

/* ---- persistent forms ----------------------------------------------------------------- */

/* A persistent call's arguments, with its arrays copied after them: MPI lets the program
 * reuse its own once the request is made. */
struct saved {
    struct shmc_mpi_nargs a;
    MPI_Comm comm;
    char fn[48];
};

static size_t width(struct shmc_mpi_arr x)
{
    return x.w == SHMC_MPI_INTS     ? sizeof(int)
           : x.w == SHMC_MPI_COUNTS ? sizeof(MPI_Count)
                                    : sizeof(MPI_Aint);
}

/* Copies n entries of esize bytes from p to *room (advanced); the copy, or NULL. */
static const void *keep(const void *p, int n, size_t esize, char **room)
{
    if (!p || n <= 0)
        return NULL;
    void *to = memcpy(*room, p, (size_t)n * esize);
    *room += ((size_t)n * esize + 15) / 16 * 16;
    return to;
}

static int saved_start(const void *args, MPI_Request *out)
{
    const struct saved *x = args;
    return shmc_mpi__neighbor(&x->a, x->comm, out, x->fn);
}

int shmc_mpi__neighbor_init(const struct shmc_mpi_nargs *a, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request, const char *fn)
{
    struct shmc_mpi_call k;
    int rc = shmc_mpi__call(comm, fn, &k);
    if (rc)
        return rc;
    struct shmc_mpi_nbrs n;
    if ((rc = topology(k.c, comm, &n)) != MPI_SUCCESS)
        return shmc_mpi__call_rc(&k, rc);
    free(n.own);
    /* Room for the arrays: at most four of counts and displacements, two of types. */
    size_t most = (size_t)(n.indeg > n.outdeg ? n.indeg : n.outdeg) + 1;
    struct saved *x = malloc(sizeof *x + 6 * (most * sizeof(MPI_Count) + 16));
    if (x) {
        char *room = (char *)(x + 1);
        x->a = *a;
        x->a.nonblocking = 1;
        x->comm = comm;
        snprintf(x->fn, sizeof x->fn, "%s", fn);
        x->a.scounts.p = keep(a->scounts.p, n.outdeg, width(a->scounts), &room);
        x->a.sdispls.p = keep(a->sdispls.p, n.outdeg, width(a->sdispls), &room);
        x->a.stypes = keep(a->stypes, n.outdeg, sizeof(MPI_Datatype), &room);
        x->a.rcounts.p = keep(a->rcounts.p, n.indeg, width(a->rcounts), &room);
        x->a.rdispls.p = keep(a->rdispls.p, n.indeg, width(a->rdispls), &room);
        x->a.rtypes = keep(a->rtypes, n.indeg, sizeof(MPI_Datatype), &room);
    }
    return shmc_mpi__persist_coll(comm, info, request, saved_start, x, fn);
}
