/*
 * MPI 4's MPI_Isendrecv and MPI_Isendrecv_replace: a receive and a send started at once,
 * under one request that completes when both have (so the send buffer is the program's
 * again when it does). The request is a generalized one of this layer's (persist.c)
 * whose poll tests, or waits for, the two started requests; its status is the receive's.
 * The replace form sends a packed copy of the buffer, so that the receive may write it.
 */
#include "request_impl.h"

#include <stdlib.h>
#include <string.h>

struct pair {
    MPI_Request s, r;
    MPI_Status st; /* the receive's, once complete */
    int err;       /* the first error of the two */
    void *copy;    /* the replace form's packed send buffer */
};

static int pair_poll(void *extra, int block)
{
    struct pair *p = extra;
    int fs = 1, fr = 1, rc;
    if (p->s != MPI_REQUEST_NULL) {
        rc = block ? PMPI_Wait(&p->s, MPI_STATUS_IGNORE) : PMPI_Test(&p->s, &fs, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS && p->err == MPI_SUCCESS)
            p->err = rc;
    }
    if (p->r != MPI_REQUEST_NULL) {
        rc = block ? PMPI_Wait(&p->r, &p->st) : PMPI_Test(&p->r, &fr, &p->st);
        if (rc != MPI_SUCCESS && p->err == MPI_SUCCESS)
            p->err = rc;
    }
    return (p->s == MPI_REQUEST_NULL || fs) && (p->r == MPI_REQUEST_NULL || fr);
}

static int pair_query(void *extra, MPI_Status *status)
{
    struct pair *p = extra;
    int e = status->MPI_ERROR;
    *status = p->st;
    status->MPI_ERROR = e;
    return p->err;
}

static int pair_free(void *extra)
{
    struct pair *p = extra;
    free(p->copy);
    free(p);
    return MPI_SUCCESS;
}

/* Starts the pair: the receive first, then the send of sendbuf (or of p->copy). */
static int start(struct pair *p, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                 int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                 int source, int recvtag, MPI_Comm comm, MPI_Request *request, const char *fn)
{
    p->s = p->r = MPI_REQUEST_NULL;
    shmc_mpi__status_empty(&p->st);
    p->err = MPI_SUCCESS;
    int rc = PMPI_Irecv_c(recvbuf, recvcount, recvtype, source, recvtag, comm, &p->r);
    if (rc == MPI_SUCCESS && (rc = PMPI_Isend_c(sendbuf, sendcount, sendtype, dest, sendtag, comm,
                                                &p->s)) != MPI_SUCCESS)
        PMPI_Cancel(&p->r), PMPI_Wait(&p->r, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && (rc = shmc_mpi__greq_internal(pair_query, pair_free, pair_poll, p,
                                                           comm, request)) != MPI_SUCCESS) {
        pair_poll(p, 1); /* (out of request handles: complete it here, then fail) */
        rc = shmc_mpi__raise(comm, rc, fn);
    }
    return rc;
}

static int isendrecv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request, const char *fn)
{
    if (!request)
        return shmc_mpi__raise(comm, shmc_mpi__err(MPI_ERR_ARG, "request is NULL"), fn);
    struct pair *p = calloc(1, sizeof *p);
    if (!p)
        return shmc_mpi__raise(comm, shmc_mpi__err(MPI_ERR_NO_MEM, "a send-receive"), fn);
    int rc = start(p, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                   source, recvtag, comm, request, fn);
    if (rc != MPI_SUCCESS)
        free(p);
    return rc;
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request)
{
    return isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                     source, recvtag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Isendrecv);

int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                     int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                     source, recvtag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Isendrecv_c);

static int isendrecv_replace(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request, const char *fn)
{
    if (!request)
        return shmc_mpi__raise(comm, shmc_mpi__err(MPI_ERR_ARG, "request is NULL"), fn);
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_type *t;
    size_t bytes;
    if ((rc = shmc_mpi__buffer_arg(buf, count, datatype, &t, &bytes)) != MPI_SUCCESS &&
        source != MPI_PROC_NULL && dest != MPI_PROC_NULL)
        return shmc_mpi__raise(comm, rc, fn);
    if (rc != MPI_SUCCESS) /* with MPI_PROC_NULL, nothing moves (p2p.c) */
        bytes = 0, count = 0, datatype = MPI_BYTE;
    struct pair *p = calloc(1, sizeof *p);
    void *copy = p ? malloc(bytes ? bytes : 1) : NULL;
    if (!p || !copy) {
        free(p);
        free(copy);
        return shmc_mpi__raise(comm, shmc_mpi__err(MPI_ERR_NO_MEM, "a send-receive"), fn);
    }
    if (bytes)
        shmc_mpi__pack(buf, (size_t)count, t, copy);
    p->copy = copy;
    rc = start(p, copy, (MPI_Count)bytes, MPI_PACKED, dest, sendtag, buf, count, datatype, source,
               recvtag, comm, request, fn);
    if (rc != MPI_SUCCESS)
        pair_free(p);
    return rc;
}

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request,
                             __func__);
}
SHMC_MPI_ALIAS(Isendrecv_replace);

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                             int sendtag, int source, int recvtag, MPI_Comm comm,
                             MPI_Request *request)
{
    return isendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, request,
                             __func__);
}
SHMC_MPI_ALIAS(Isendrecv_replace_c);
