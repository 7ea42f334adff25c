/*
 * The request table's entries (request.c owns the table, indexed by handle - 1), as
 * persist.c (persistent and generalized requests) and status.c (status queries) use them.
 */
#ifndef SHMC_MPI_REQUEST_IMPL_H
#define SHMC_MPI_REQUEST_IMPL_H

#include "mpi_impl.h"

/* What MPI_Start starts again and again (persist.c). */
enum shmc_mpi_pkind {
    SHMC_MPI_P_SEND,
    SHMC_MPI_P_BSEND,
    SHMC_MPI_P_SSEND,
    SHMC_MPI_P_RECV,
    SHMC_MPI_P_COLL /* a persistent collective (pcoll.c): start(args) makes its call */
};
struct shmc_mpi_persist {
    enum shmc_mpi_pkind kind;
    int active; /* started, not yet completed by a wait or test */
    void *buf;
    MPI_Count count;
    int peer, tag;
    MPI_Datatype type;
    /* The type's object, held while the request lives: the program may free the type
     * after MPI_Send_init and start the request afterwards (MPI 4.1, 5.1.11). */
        struct shmc_mpi_type *t;
    /* SHMC_MPI_P_COLL: starts the call with the arguments kept in args (freed with the
     * request), its request in *out. */
        int (*start)(const void *args, MPI_Request *out);
    void *args;
    uint32_t seq; /* its number among the communicator's collectives, taken when made */
};

/* A generalized request's callbacks (MPI_Grequest_start). */
struct shmc_mpi_greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
    /* An internal one (MPI_Isendrecv): tests (or, with block, waits for) what it stands
     * for, returning 1 when that is complete; NULL for the program's own. */
    int (*poll)(void *extra, int block);
    _Atomic int complete; /* MPI_Grequest_complete, from any thread */
    int freed;            /* its free callback ran */
};

struct req {
    int index; /* its place in the table (its handle - 1) */
    int used;
    int done;   /* completed: err and st hold the result */
    int orphan; /* MPI_Request_free'd while active: completed and dropped later */
    int err;
    shmc_request *r;
    MPI_Comm comm;
    int roff; /* its communicator's (shmc_mpi_comm): a status's source less roff */
    MPI_Status st;
    struct shmc_mpi_view v;
    struct shmc_mpi_persist *p; /* persistent: its arguments; else NULL */
    struct shmc_mpi_greq *g;    /* generalized: its callbacks; else NULL */
    /* A nonblocking collective (coll.c, vcoll.c): its status is empty, and fin(fin_arg,
     * ok) unpacks and frees what its buffers needed once it has completed (ok: without
     * error), or at MPI_Finalize (ok 0). */
    int coll;
    void (*fin)(void *arg, int ok);
    void *fin_arg;
    struct req *next_free; /* on the free list (request.c) */
};

/* A generalized request made by this layer: its callbacks as MPI_Grequest_start takes
 * them, and poll (request_impl.h's shmc_mpi_greq) driving it to completion. */
int shmc_mpi__greq_internal(MPI_Grequest_query_function *query, MPI_Grequest_free_function *free_fn,
                            int (*poll)(void *extra, int block), void *extra, MPI_Comm comm,
                            MPI_Request *request);

/* The entry of a handle in use, freed-while-active (orphan) ones included; else NULL. */
struct req *shmc_mpi__req_entry(MPI_Request h);
/* The request of a handle; NULL with an error for a handle that is none. */
struct req *shmc_mpi__req_lookup(MPI_Request h, int *rc);
/* Completes q if it can (waiting for it when block): returns whether it is complete. An
 * inactive persistent request never is. */
int shmc_mpi__req_progress(struct req *q, int block);
void shmc_mpi__req_drop(struct req *q);

static inline int shmc_mpi__req_inactive(const struct req *q)
{
    return q->p && !q->p->active;
}
/* persist.c: a persistent collective on comm (pcoll.c), whose starts call start(args);
 * args (malloc'd, NULL when that failed) is the request's from here. */
int shmc_mpi__persist_coll(MPI_Comm comm, MPI_Info info, MPI_Request *request,
                           int (*start)(const void *args, MPI_Request *out), void *args,
                           const char *fn);
/* persist.c: a completed persistent request back to inactive; its arguments freed. */
void shmc_mpi__persist_inactive(struct req *q);
void shmc_mpi__persist_release(struct req *q);
/* persist.c: a generalized request's progress (its status from the query callback once
 * complete), its free callback (returns the error to report, err or the callback's), and
 * MPI_Cancel of it. */
int shmc_mpi__greq_progress(struct req *q, int block);
int shmc_mpi__greq_free(struct req *q, int err);
int shmc_mpi__greq_cancel(struct req *q);

#endif /* SHMC_MPI_REQUEST_IMPL_H */
