/*
 * Persistent point-to-point requests (MPI_Send_init and the other modes, MPI_Recv_init,
 * MPI_Start, MPI_Startall) and generalized requests (MPI_Grequest_start,
 * MPI_Grequest_complete).
 *
 * A persistent request is an entry of the request table that keeps its call's arguments.
 * MPI_Start makes the nonblocking call they describe and takes over the request that call
 * made (or, for a send complete as it started, marks itself complete), so a started
 * persistent request is exactly an ordinary one to every completion call; completing it
 * makes it inactive again instead of freeing it. The arguments are checked when the
 * request is made, as MPI asks, and once more by the call at each start.
 *
 * A generalized request has no C request: the program completes it (from any thread), and
 * a wait for it polls, yielding, until then; its query callback fills the status, its free
 * callback runs when the request is freed, whichever comes last of completion and free.
 */
#include "request_impl.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

static int init(enum shmc_mpi_pkind kind, const void *buf, MPI_Count count, MPI_Datatype type,
                int peer, int tag, MPI_Comm comm, MPI_Request *request, const char *fn)
{
    struct shmc_mpi_call k;
    int rc = shmc_mpi__call_p2p(comm, fn, &k);
    if (rc)
        return rc;
    const struct shmc_mpi_type *t;
    size_t bytes;
    int recv = kind == SHMC_MPI_P_RECV;
    if (!request)
        rc = shmc_mpi__err(MPI_ERR_ARG, "request is NULL");
    else if ((rc = shmc_mpi__buffer_arg(buf, count, type, &t, &bytes)) != MPI_SUCCESS)
        ;
    else if (peer != MPI_PROC_NULL && !(recv && peer == MPI_ANY_SOURCE) &&
             (peer < 0 || peer >= (k.c->remote ? k.c->remote_size : k.c->size)))
        rc = shmc_mpi__err(MPI_ERR_RANK, "rank %d is not in the %s of %d", peer,
                           k.c->remote ? "remote group" : "communicator",
                           k.c->remote ? k.c->remote_size : k.c->size);
    else if (!(recv && tag == MPI_ANY_TAG) && (tag < 0 || tag > SHMC_TAG_MAX))
        rc = shmc_mpi__err(MPI_ERR_TAG, "tag %d is not in 0..MPI_TAG_UB", tag);
    struct shmc_mpi_persist *p = rc == MPI_SUCCESS ? malloc(sizeof *p) : NULL;
    if (rc == MPI_SUCCESS && !p)
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a persistent request");
    if (rc == MPI_SUCCESS &&
        (rc = shmc_mpi__request_new(NULL, comm, 0, NULL, request)) != MPI_SUCCESS)
        free(p);
    if (rc != MPI_SUCCESS)
        return shmc_mpi__call_rc(&k, rc);
    struct shmc_mpi_type *held = shmc_mpi__table_get(&shmc_mpi__types, type);
    if (!held->predefined)
        __atomic_add_fetch(&held->refs, 1, __ATOMIC_RELAXED);
    *p = (struct shmc_mpi_persist){kind, 0, (void *)buf, count, peer, tag, type, held};
    shmc_mpi__req_entry(*request)->p = p;
    return MPI_SUCCESS;
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    return init(SHMC_MPI_P_SEND, buf, count, datatype, dest, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Send_init);

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    /* A ready send may be a standard one (p2p.c says why). */
    return init(SHMC_MPI_P_SEND, buf, count, datatype, dest, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Rsend_init);

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return init(SHMC_MPI_P_BSEND, buf, count, datatype, dest, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Bsend_init);

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return init(SHMC_MPI_P_SSEND, buf, count, datatype, dest, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ssend_init);

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return init(SHMC_MPI_P_RECV, buf, count, datatype, source, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Recv_init);

int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return init(SHMC_MPI_P_SEND, buf, count, datatype, dest, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Send_init_c);

int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return init(SHMC_MPI_P_SEND, buf, count, datatype, dest, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Rsend_init_c);

int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return init(SHMC_MPI_P_BSEND, buf, count, datatype, dest, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Bsend_init_c);

int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                      MPI_Comm comm, MPI_Request *request)
{
    return init(SHMC_MPI_P_SSEND, buf, count, datatype, dest, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ssend_init_c);

int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return init(SHMC_MPI_P_RECV, buf, count, datatype, source, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Recv_init_c);

int PMPI_Start(MPI_Request *request)
{
    int rc = MPI_SUCCESS;
    struct req *q = request ? shmc_mpi__req_lookup(*request, &rc)
                            : (rc = shmc_mpi__err(MPI_ERR_REQUEST, "request is NULL"), NULL);
    if (q && !q->p)
        rc = shmc_mpi__err(MPI_ERR_REQUEST, "request %d is not persistent", *request);
    else if (q && q->p->active)
        rc = shmc_mpi__err(MPI_ERR_REQUEST, "request %d is active already: complete it first",
                           *request);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(q ? q->comm : MPI_COMM_WORLD, rc);
    struct shmc_mpi_persist a = *q->p;
    MPI_Comm comm = q->comm;
    MPI_Request self = *request;
    MPI_Request t = MPI_REQUEST_NULL;
    /* The program freed the type since: a handle of the held object for this start. */
    MPI_Datatype transient = MPI_DATATYPE_NULL;
    if (a.kind != SHMC_MPI_P_COLL && shmc_mpi__table_get(&shmc_mpi__types, a.type) != a.t) {
        if ((rc = shmc_mpi__type_handle(a.t, &transient)) != MPI_SUCCESS)
            return SHMC_MPI_RAISE(comm, rc);
        a.type = transient;
    }
    switch (a.kind) {
    case SHMC_MPI_P_COLL: /* matched in the order they were made (shmc_coll_as) */
        shmc_coll_as(a.seq);
        rc = a.start(a.args, &t);
        shmc_coll_as(-1);
        break;
    case SHMC_MPI_P_SEND:
        rc = PMPI_Isend_c(a.buf, a.count, a.type, a.peer, a.tag, comm, &t);
        break;
    case SHMC_MPI_P_BSEND:
        rc = PMPI_Ibsend_c(a.buf, a.count, a.type, a.peer, a.tag, comm, &t);
        break;
    case SHMC_MPI_P_SSEND:
        rc = PMPI_Issend_c(a.buf, a.count, a.type, a.peer, a.tag, comm, &t);
        break;
    case SHMC_MPI_P_RECV:
        rc = PMPI_Irecv_c(a.buf, a.count, a.type, a.peer, a.tag, comm, &t);
        break;
    }
    if (transient != MPI_DATATYPE_NULL)
        PMPI_Type_free(&transient); /* the operation holds what it needs of it */
    if (rc != MPI_SUCCESS)          /* raised by the call; the request stays inactive */
        return rc;
    q = shmc_mpi__req_entry(self); /* the call may have grown the table */
    q->p->active = 1;
    if (t == SHMC_MPI_REQUEST_DONE) {
        q->r = NULL;
        q->done = 1;
        q->err = MPI_SUCCESS;
        q->v.tmp = NULL;
        q->v.bytes = 0;
        shmc_mpi__status_empty(&q->st);
        return MPI_SUCCESS;
    }
    struct req *n = shmc_mpi__req_entry(t);
    q->r = n->r; /* the started request's C request, and what its status needs */
    q->roff = n->roff;
    q->done = n->done;
    q->err = n->err;
    q->st = n->st;
    q->v = n->v;
    q->coll = n->coll;
    q->fin = n->fin;
    q->fin_arg = n->fin_arg;
    n->r = NULL;
    n->v.tmp = NULL;
    n->fin = NULL;
    shmc_mpi__req_drop(n);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Start);

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
    if (count < 0 || (count > 0 && !array_of_requests))
        return SHMC_MPI_RAISE(
            MPI_COMM_WORLD,
            shmc_mpi__err(MPI_ERR_ARG, "count %d is negative or the array is NULL", count));
    for (int i = 0; i < count; i++) {
        int rc = PMPI_Start(&array_of_requests[i]);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Startall);

void shmc_mpi__persist_inactive(struct req *q)
{
    q->p->active = 0;
    q->done = 0;
    q->r = NULL;
    q->v.tmp = NULL;
    q->v.bytes = 0;
}

void shmc_mpi__persist_release(struct req *q)
{
    if (q->g && !q->g->freed && q->g->free_fn)
        q->g->free_fn(q->g->extra);
    if (q->p && q->p->t)
        shmc_mpi__type_unref(q->p->t);
    if (q->p)
        free(q->p->args);
    free(q->p);
    free(q->g);
    q->p = NULL;
    q->g = NULL;
}

/* ---- generalized requests --------------------------------------------------------------- */

/* A generalized request on comm; returns MPI_SUCCESS or the error (not raised). */
static int greq_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                      MPI_Grequest_cancel_function *cancel_fn, int (*poll)(void *, int),
                      void *extra_state, MPI_Comm comm, MPI_Request *request)
{
    int rc = shmc_mpi__check_running();
    if (rc == MPI_SUCCESS && !request)
        rc = shmc_mpi__err(MPI_ERR_ARG, "request is NULL");
    struct shmc_mpi_greq *g = rc == MPI_SUCCESS ? calloc(1, sizeof *g) : NULL;
    if (rc == MPI_SUCCESS && !g)
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a generalized request");
    if (rc == MPI_SUCCESS &&
        (rc = shmc_mpi__request_new(NULL, comm, 0, NULL, request)) != MPI_SUCCESS)
        free(g);
    if (rc != MPI_SUCCESS)
        return rc;
    g->query = query_fn;
    g->free_fn = free_fn;
    g->cancel = cancel_fn;
    g->poll = poll;
    g->extra = extra_state;
    shmc_mpi__req_entry(*request)->g = g;
    return MPI_SUCCESS;
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    int rc = greq_start(query_fn, free_fn, cancel_fn, NULL, extra_state, MPI_COMM_WORLD, request);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}

int shmc_mpi__greq_internal(MPI_Grequest_query_function *query, MPI_Grequest_free_function *free_fn,
                            int (*poll)(void *extra, int block), void *extra, MPI_Comm comm,
                            MPI_Request *request)
{
    return greq_start(query, free_fn, NULL, poll, extra, comm, request);
}
SHMC_MPI_ALIAS(Grequest_start);

int PMPI_Grequest_complete(MPI_Request request)
{
    /* Read directly: a request the program freed (MPI_Request_free) may still be
     * completed, and its handle is then the program's only name for it. */
    int rc = shmc_mpi__check_running();
    struct req *q = shmc_mpi__req_entry(request);
    if (rc == MPI_SUCCESS && (!q || !q->g))
        rc = shmc_mpi__err(MPI_ERR_REQUEST, "%d is not a generalized request", request);
    if (rc != MPI_SUCCESS)
        return SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
    atomic_store(&q->g->complete, 1);
    return MPI_SUCCESS;
}
SHMC_MPI_ALIAS(Grequest_complete);

int shmc_mpi__greq_progress(struct req *q, int block)
{
    if (q->g->poll && !atomic_load(&q->g->complete) && q->g->poll(q->g->extra, block))
        atomic_store(&q->g->complete, 1);
    while (!atomic_load(&q->g->complete)) {
        if (!block)
            return 0;
        sched_yield();
    }
    shmc_mpi__status_empty(&q->st);
    int rc = q->g->query ? q->g->query(q->g->extra, &q->st) : MPI_SUCCESS;
    q->err = rc;
    q->st.MPI_ERROR = rc;
    q->done = 1;
    return 1;
}

int shmc_mpi__greq_free(struct req *q, int err)
{
    if (q->g->freed)
        return err;
    q->g->freed = 1;
    int rc = q->g->free_fn ? q->g->free_fn(q->g->extra) : MPI_SUCCESS;
    return err == MPI_SUCCESS ? rc : err;
}

int shmc_mpi__greq_cancel(struct req *q)
{
    int rc = q->g->cancel ? q->g->cancel(q->g->extra, atomic_load(&q->g->complete)) : MPI_SUCCESS;
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(MPI_COMM_WORLD, rc);
}

/* ---- persistent collectives (pcoll.c) --------------------------------------------------- */

int shmc_mpi__persist_coll(MPI_Comm comm, MPI_Info info, MPI_Request *request,
                           int (*start)(const void *args, MPI_Request *out), void *args,
                           const char *fn)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_persist *p = NULL;
    struct shmc_mpi_comm *c = shmc_mpi__comm_any(comm, &rc);
    uint32_t seq = 0;
    if (!c || (rc = shmc_mpi__info_check(info)) != MPI_SUCCESS)
        ;
    else if (!request)
        rc = shmc_mpi__err(MPI_ERR_ARG, "request is NULL");
    else if (!args || !(p = calloc(1, sizeof *p)))
        rc = shmc_mpi__err(MPI_ERR_NO_MEM, "a persistent collective");
    else if ((rc = shmc_mpi__from_shmc(shmc_coll_reserve(c->c, &seq))) == MPI_SUCCESS &&
             (rc = shmc_mpi__request_new(NULL, comm, 0, NULL, request)) == MPI_SUCCESS) {
        *p = (struct shmc_mpi_persist){
            .kind = SHMC_MPI_P_COLL, .start = start, .args = args, .seq = seq};
        shmc_mpi__req_entry(*request)->p = p;
        return MPI_SUCCESS;
    }
    free(p);
    free(args);
    /* Out of memory, this rank's numbering of the communicator's collectives would fall
     * behind the members', which made this one too, and their later calls would wait for
     * it: it quits them instead (shmc_coll_quit; mpi_impl.h, coll). */
    if (rc == MPI_ERR_NO_MEM && c)
        shmc_coll_quit(c->c, SHMC_ERR_NOMEM);
    return shmc_mpi__raise(comm, rc, fn);
}
