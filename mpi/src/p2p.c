/*
 * Point-to-point calls on the C library's: every message moves as bytes (SHMC_UINT8), so
 * that sender and receiver may use different datatypes of the same type signature and a
 * status counts bytes; a dense datatype's buffer goes to the C library as it is, any
 * other is packed (sending) or staged and unpacked (receiving) through a view.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* The communicator and datatype of a call, its arguments checked. */
struct call {
    struct shmc_mpi_comm *c;
    const struct shmc_mpi_type *t;
    size_t bytes;
};

static int prepare(const void *buf, int count, MPI_Datatype type, MPI_Comm comm, struct call *k)
{
    int rc = MPI_SUCCESS;
    if (!(k->c = shmc_mpi__comm(comm, &rc)))
        return rc;
    if (!(k->t = shmc_mpi__type_usable(type, &rc)))
        return rc;
    if ((rc = shmc_mpi__check_buf(buf, count, k->t)) != MPI_SUCCESS)
        return rc;
    if (__builtin_mul_overflow((size_t)count, (size_t)k->t->size, &k->bytes))
        return shmc_mpi__err(MPI_ERR_COUNT, "count %d of this datatype overflows", count);
    return MPI_SUCCESS;
}

/* Raise on comm, or on the world when comm itself was bad. */
static int fail(MPI_Comm comm, int rc, const char *fn)
{
    int ignore;
    return shmc_mpi__raise(shmc_mpi__comm(comm, &ignore) ? comm : MPI_COMM_WORLD, rc, fn);
}

static void set_status(MPI_Status *status, const shmc_status *s, size_t cap, int err)
{
    if (status == MPI_STATUS_IGNORE || !status)
        return;
    int e = status->MPI_ERROR;
    shmc_mpi__status_set(status, s);
    if (err == SHMC_ERR_TRUNCATE && s->count > cap)
        status->shmc_bytes = (MPI_Count)cap;
    status->MPI_ERROR = e;
}

enum send_mode { STANDARD, SYNCHRONOUS };

static int send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                enum send_mode mode, const char *fn)
{
    struct call k;
    int rc = prepare(buf, count, type, comm, &k);
    if (rc != MPI_SUCCESS)
        return fail(comm, rc, fn);
    int err;
    if (k.t->dense) {
        err = mode == SYNCHRONOUS ? shmc_ssend(buf, k.bytes, SHMC_UINT8, dest, tag, k.c->c)
                                  : shmc_send(buf, k.bytes, SHMC_UINT8, dest, tag, k.c->c);
    } else {
        struct shmc_mpi_view v;
        if ((rc = shmc_mpi__view_send(buf, (size_t)count, k.t, &v)) != MPI_SUCCESS)
            return fail(comm, rc, fn);
        err = mode == SYNCHRONOUS ? shmc_ssend(v.p, v.bytes, SHMC_UINT8, dest, tag, k.c->c)
                                  : shmc_send(v.p, v.bytes, SHMC_UINT8, dest, tag, k.c->c);
        shmc_mpi__view_finish(&v, 0);
    }
    return err == SHMC_OK ? MPI_SUCCESS : shmc_mpi__raise(comm, shmc_mpi__from_shmc(err), fn);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm, STANDARD, __func__);
}
SHMC_MPI_ALIAS(Send);

int PMPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    /* A ready send may be a standard one: the receive is posted, so it cannot wait. */
    return send(buf, count, datatype, dest, tag, comm, STANDARD, __func__);
}
SHMC_MPI_ALIAS(Rsend);

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm, SYNCHRONOUS, __func__);
}
SHMC_MPI_ALIAS(Ssend);

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    struct call k;
    int rc = prepare(buf, count, datatype, comm, &k);
    if (rc != MPI_SUCCESS)
        return fail(comm, rc, __func__);
    shmc_status s;
    int err;
    if (k.t->dense) {
        err = shmc_recv(buf, k.bytes, SHMC_UINT8, source, tag, k.c->c, &s);
    } else {
        struct shmc_mpi_view v;
        if ((rc = shmc_mpi__view_recv(buf, (size_t)count, k.t, &v)) != MPI_SUCCESS)
            return fail(comm, rc, __func__);
        err = shmc_recv(v.p, v.bytes, SHMC_UINT8, source, tag, k.c->c, &s);
        shmc_mpi__view_finish(&v, err == SHMC_OK || err == SHMC_ERR_TRUNCATE
                                      ? (s.count < v.bytes ? s.count : v.bytes)
                                      : 0);
    }
    if (err == SHMC_OK || err == SHMC_ERR_TRUNCATE)
        set_status(status, &s, k.bytes, err);
    return err == SHMC_OK ? MPI_SUCCESS : SHMC_MPI_RAISE(comm, shmc_mpi__from_shmc(err));
}
SHMC_MPI_ALIAS(Recv);

static int isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                 enum send_mode mode, MPI_Request *request, const char *fn)
{
    struct call k;
    int rc = prepare(buf, count, type, comm, &k);
    if (rc == MPI_SUCCESS && !request)
        rc = shmc_mpi__err(MPI_ERR_ARG, "request is NULL");
    if (rc != MPI_SUCCESS)
        return fail(comm, rc, fn);
    struct shmc_mpi_view v;
    if ((rc = shmc_mpi__view_send(buf, (size_t)count, k.t, &v)) != MPI_SUCCESS)
        return fail(comm, rc, fn);
    shmc_request *r = NULL;
    int err = mode == SYNCHRONOUS ? shmc_issend(v.p, v.bytes, SHMC_UINT8, dest, tag, k.c->c, &r)
                                  : shmc_isend(v.p, v.bytes, SHMC_UINT8, dest, tag, k.c->c, &r);
    if (err != SHMC_OK) {
        shmc_mpi__view_finish(&v, 0);
        return shmc_mpi__raise(comm, shmc_mpi__from_shmc(err), fn);
    }
    rc = shmc_mpi__request_new(r, comm, &v, NULL, request);
    return rc == MPI_SUCCESS ? rc : shmc_mpi__raise(comm, rc, fn);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, STANDARD, request, __func__);
}
SHMC_MPI_ALIAS(Isend);

int PMPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, STANDARD, request, __func__);
}
SHMC_MPI_ALIAS(Irsend);

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, SYNCHRONOUS, request, __func__);
}
SHMC_MPI_ALIAS(Issend);

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    struct call k;
    int rc = prepare(buf, count, datatype, comm, &k);
    if (rc == MPI_SUCCESS && !request)
        rc = shmc_mpi__err(MPI_ERR_ARG, "request is NULL");
    if (rc != MPI_SUCCESS)
        return fail(comm, rc, __func__);
    struct shmc_mpi_view v;
    if ((rc = shmc_mpi__view_recv(buf, (size_t)count, k.t, &v)) != MPI_SUCCESS)
        return fail(comm, rc, __func__);
    shmc_request *r = NULL;
    int err = shmc_irecv(v.p, v.bytes, SHMC_UINT8, source, tag, k.c->c, &r);
    if (err != SHMC_OK) {
        shmc_mpi__view_finish(&v, 0);
        return SHMC_MPI_RAISE(comm, shmc_mpi__from_shmc(err));
    }
    rc = shmc_mpi__request_new(r, comm, &v, NULL, request);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Irecv);

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return shmc_mpi__bsend_start(buf, count, datatype, dest, tag, comm);
}
SHMC_MPI_ALIAS(Bsend);

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    if (!request)
        return fail(comm, shmc_mpi__err(MPI_ERR_ARG, "request is NULL"), __func__);
    int rc = shmc_mpi__bsend_start(buf, count, datatype, dest, tag, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The message is in the attached buffer: the request is complete at once. */
    MPI_Status st;
    shmc_mpi__status_empty(&st);
    rc = shmc_mpi__request_new(NULL, comm, NULL, &st, request);
    return rc == MPI_SUCCESS ? rc : SHMC_MPI_RAISE(comm, rc);
}
SHMC_MPI_ALIAS(Ibsend);

static int probe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status, const char *fn)
{
    int rc = MPI_SUCCESS;
    struct shmc_mpi_comm *c = shmc_mpi__comm(comm, &rc);
    if (!c)
        return shmc_mpi__raise(MPI_COMM_WORLD, rc, fn);
    shmc_status s;
    int err = flag ? shmc_iprobe(source, tag, SHMC_UINT8, c->c, flag, &s)
                   : shmc_probe(source, tag, SHMC_UINT8, c->c, &s);
    if (err != SHMC_OK)
        return shmc_mpi__raise(comm, shmc_mpi__from_shmc(err), fn);
    if (!flag || *flag)
        set_status(status, &s, s.count, SHMC_OK);
    return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe(source, tag, comm, NULL, status, __func__);
}
SHMC_MPI_ALIAS(Probe);

int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    if (!flag)
        return fail(comm, shmc_mpi__err(MPI_ERR_ARG, "flag is NULL"), __func__);
    return probe(source, tag, comm, flag, status, __func__);
}
SHMC_MPI_ALIAS(Iprobe);

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    struct call ks, kr;
    int rc = prepare(sendbuf, sendcount, sendtype, comm, &ks);
    if (rc == MPI_SUCCESS)
        rc = prepare(recvbuf, recvcount, recvtype, comm, &kr);
    if (rc != MPI_SUCCESS)
        return fail(comm, rc, __func__);
    struct shmc_mpi_view vs, vr;
    if ((rc = shmc_mpi__view_send(sendbuf, (size_t)sendcount, ks.t, &vs)) != MPI_SUCCESS)
        return SHMC_MPI_RAISE(comm, rc);
    if ((rc = shmc_mpi__view_recv(recvbuf, (size_t)recvcount, kr.t, &vr)) != MPI_SUCCESS) {
        shmc_mpi__view_finish(&vs, 0);
        return SHMC_MPI_RAISE(comm, rc);
    }
    shmc_status s;
    int err = shmc_sendrecv(vs.p, vs.bytes, dest, sendtag, vr.p, vr.bytes, source, recvtag,
                            SHMC_UINT8, ks.c->c, &s);
    int got = err == SHMC_OK || err == SHMC_ERR_TRUNCATE;
    shmc_mpi__view_finish(&vs, 0);
    shmc_mpi__view_finish(&vr, got ? (s.count < vr.bytes ? s.count : vr.bytes) : 0);
    if (got)
        set_status(status, &s, vr.bytes, err);
    return err == SHMC_OK ? MPI_SUCCESS : SHMC_MPI_RAISE(comm, shmc_mpi__from_shmc(err));
}
SHMC_MPI_ALIAS(Sendrecv);

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    struct call k;
    int rc = prepare(buf, count, datatype, comm, &k);
    if (rc != MPI_SUCCESS)
        return fail(comm, rc, __func__);
    /* The outgoing message is copied first: the buffer then receives. */
    void *copy = malloc(k.bytes ? k.bytes : 1);
    if (!copy)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_NO_MEM, "%zu bytes", k.bytes));
    if (k.bytes)
        shmc_mpi__pack(buf, (size_t)count, k.t, copy);
    struct shmc_mpi_view vr;
    if ((rc = shmc_mpi__view_recv(buf, (size_t)count, k.t, &vr)) != MPI_SUCCESS) {
        free(copy);
        return SHMC_MPI_RAISE(comm, rc);
    }
    shmc_status s;
    int err = shmc_sendrecv(copy, k.bytes, dest, sendtag, vr.p, vr.bytes, source, recvtag,
                            SHMC_UINT8, k.c->c, &s);
    int got = err == SHMC_OK || err == SHMC_ERR_TRUNCATE;
    shmc_mpi__view_finish(&vr, got ? (s.count < vr.bytes ? s.count : vr.bytes) : 0);
    free(copy);
    if (got)
        set_status(status, &s, vr.bytes, err);
    return err == SHMC_OK ? MPI_SUCCESS : SHMC_MPI_RAISE(comm, shmc_mpi__from_shmc(err));
}
SHMC_MPI_ALIAS(Sendrecv_replace);
