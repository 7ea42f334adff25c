/*
 * Point-to-point calls on the C library's: every message moves as bytes (SHMC_UINT8), so
 * that sender and receiver may use different datatypes of the same type signature and a
 * status counts bytes; a dense datatype's buffer goes to the C library as it is, any
 * other is packed (sending) or staged and unpacked (receiving) through a view.
 *
 * Matched probes hand out MPI_Message handles over the C library's claimed messages: a
 * table of (message, communicator), MPI_MESSAGE_NULL 0 and MPI_MESSAGE_NO_PROC 1 (the
 * message of MPI_PROC_NULL) predefined. A receive that fails leaves the message claimed
 * and its handle valid.
 */
#include "mpi_impl.h"

#include <stdlib.h>
#include <string.h>

/* A point-to-point call: its communicator, and its buffer's type and packed bytes. */
struct call {
    struct shmc_mpi_call k;
    const struct shmc_mpi_type *t;
    size_t bytes;
};

/* A call with MPI_PROC_NULL moves nothing, so its buffer arguments are not held against
 * it (MPICH's recvnull passes MPI_DATATYPE_NULL): it goes on as zero bytes. */
static int nothing(struct call *k)
{
    int rc = MPI_SUCCESS;
    k->t = shmc_mpi__type(MPI_BYTE, &rc);
    k->bytes = 0;
    return rc;
}

/* Checks the call's arguments and puts its peer (dest or source) as the C library's rank
 * in *peer; returns MPI_SUCCESS or the raised error. */
static inline __attribute__((always_inline)) int prepare(const void *buf, MPI_Count count,
                                                         MPI_Datatype type, int rank, MPI_Comm comm,
                                                         const char *fn, struct call *k, int *peer)
{
    int rc = shmc_mpi__call_p2p(comm, fn, &k->k);
    if (rc)
        return rc;
    if ((rc = shmc_mpi__peer(k->k.c, rank, peer)) != MPI_SUCCESS)
        return shmc_mpi__call_rc(&k->k, rc);
    rc = shmc_mpi__buffer_arg(buf, count, type, &k->t, &k->bytes);
    if (__builtin_expect(rc != MPI_SUCCESS, 0) && rank == MPI_PROC_NULL)
        return nothing(k);
    return shmc_mpi__call_rc(&k->k, rc);
}

/* The call's buffer as the C library moves it: a dense type's is the user's memory, of the
 * byte size prepare() found (not worked out again); any other is packed (sending) or
 * staged (receiving). The blocking send and receive test dense themselves and skip the
 * view: they are the latency path. */
static inline int view_of(const struct call *k, void *buf, MPI_Count count, int sending,
                          struct shmc_mpi_view *v)
{
    if (k->t->dense) {
        v->p = buf;
        v->bytes = k->bytes;
        v->tmp = NULL;
        return MPI_SUCCESS;
    }
    return sending ? shmc_mpi__view_pack(buf, (size_t)count, k->t, v)
                   : shmc_mpi__view_stage(buf, (size_t)count, k->t, v);
}

static void set_status(MPI_Status *status, const shmc_status *s, size_t cap, int roff)
{
    if (status == MPI_STATUS_IGNORE || !status)
        return;
    int e = status->MPI_ERROR;
    shmc_mpi__status_set(status, s, cap, roff);
    status->MPI_ERROR = e; /* single completions leave it alone */
}

/* The bytes a receive into a cap-byte buffer delivered (0 when it failed). */
static size_t received(int err, const shmc_status *s, size_t cap)
{
    if (err != SHMC_OK && err != SHMC_ERR_TRUNCATE)
        return 0;
    return s->count < cap ? s->count : cap;
}

enum send_mode { STANDARD, SYNCHRONOUS };

static inline __attribute__((always_inline)) int send(const void *buf, MPI_Count count,
                                                      MPI_Datatype type, int dest, int tag,
                                                      MPI_Comm comm, enum send_mode mode,
                                                      const char *fn)
{
    struct call k;
    int rc = prepare(buf, count, type, dest, comm, fn, &k, &dest);
    if (rc)
        return rc;
    int err;
    if (k.t->dense) {
        err = mode == SYNCHRONOUS ? shmc_ssend(buf, k.bytes, SHMC_UINT8, dest, tag, k.k.c->c)
                                  : shmc_send(buf, k.bytes, SHMC_UINT8, dest, tag, k.k.c->c);
    } else {
        struct shmc_mpi_view v;
        if ((rc = view_of(&k, (void *)(uintptr_t)buf, count, 1, &v)) != MPI_SUCCESS)
            return shmc_mpi__call_rc(&k.k, rc);
        err = mode == SYNCHRONOUS ? shmc_ssend(v.p, v.bytes, SHMC_UINT8, dest, tag, k.k.c->c)
                                  : shmc_send(v.p, v.bytes, SHMC_UINT8, dest, tag, k.k.c->c);
        shmc_mpi__view_finish(&v, 0);
    }
    return shmc_mpi__call_err(&k.k, err);
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

static inline __attribute__((always_inline)) int recv(void *buf, MPI_Count count,
                                                      MPI_Datatype datatype, int source, int tag,
                                                      MPI_Comm comm, MPI_Status *status,
                                                      const char *fn)
{
    struct call k;
    int rc = prepare(buf, count, datatype, source, comm, fn, &k, &source);
    if (rc)
        return rc;
    shmc_status s;
    int err;
    if (k.t->dense) {
        err = shmc_recv(buf, k.bytes, SHMC_UINT8, source, tag, k.k.c->c, &s);
    } else {
        struct shmc_mpi_view v;
        if ((rc = view_of(&k, buf, count, 0, &v)) != MPI_SUCCESS)
            return shmc_mpi__call_rc(&k.k, rc);
        err = shmc_recv(v.p, v.bytes, SHMC_UINT8, source, tag, k.k.c->c, &s);
        shmc_mpi__view_finish(&v, received(err, &s, v.bytes));
    }
    if (err == SHMC_OK || err == SHMC_ERR_TRUNCATE)
        set_status(status, &s, k.bytes, k.k.c->roff);
    return err == SHMC_OK ? MPI_SUCCESS : shmc_mpi__raise(comm, shmc_mpi__from_shmc(err), fn);
}

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    return recv(buf, count, datatype, source, tag, comm, status, __func__);
}
SHMC_MPI_ALIAS(Recv);

static inline __attribute__((always_inline)) int isend(const void *buf, MPI_Count count,
                                                       MPI_Datatype type, int dest, int tag,
                                                       MPI_Comm comm, enum send_mode mode,
                                                       MPI_Request *request, const char *fn)
{
    struct call k;
    int rc = prepare(buf, count, type, dest, comm, fn, &k, &dest);
    if (rc)
        return rc;
    if (!request)
        return shmc_mpi__call_rc(&k.k, shmc_mpi__err(MPI_ERR_ARG, "request is NULL"));
    struct shmc_mpi_view v;
    if ((rc = view_of(&k, (void *)(uintptr_t)buf, count, 1, &v)) != MPI_SUCCESS)
        return shmc_mpi__call_rc(&k.k, rc);
    shmc_request *r = NULL;
    int err = mode == SYNCHRONOUS
                  ? shmc_issend(v.p, v.bytes, SHMC_UINT8, dest, tag, k.k.c->c, &r)
                  : shmc_isend_now(v.p, v.bytes, SHMC_UINT8, dest, tag, k.k.c->c, &r);
    if (err != SHMC_OK || !r) { /* failed, or complete already: the packed copy is done with */
        shmc_mpi__view_finish(&v, 0);
        return err != SHMC_OK ? shmc_mpi__call_err(&k.k, err)
                              : shmc_mpi__call_rc(&k.k, shmc_mpi__request_done(request));
    }
    rc = shmc_mpi__request_new(r, comm, 0, &v, request); /* (a send's status has no source) */
    return shmc_mpi__call_rc(&k.k, rc);
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

static inline __attribute__((always_inline)) int irecv(void *buf, MPI_Count count,
                                                       MPI_Datatype datatype, int source, int tag,
                                                       MPI_Comm comm, MPI_Request *request,
                                                       const char *fn)
{
    struct call k;
    int rc = prepare(buf, count, datatype, source, comm, fn, &k, &source);
    if (rc)
        return rc;
    if (!request)
        return shmc_mpi__call_rc(&k.k, shmc_mpi__err(MPI_ERR_ARG, "request is NULL"));
    struct shmc_mpi_view v;
    if ((rc = view_of(&k, buf, count, 0, &v)) != MPI_SUCCESS)
        return shmc_mpi__call_rc(&k.k, rc);
    shmc_request *r = NULL;
    shmc_status s;
    int err = shmc_irecv_now(v.p, v.bytes, SHMC_UINT8, source, tag, k.k.c->c, &r, &s);
    if (!r && (err == SHMC_OK || err == SHMC_ERR_TRUNCATE)) {
        /* Received already (a truncation is the request's error, raised by its wait). */
        rc = shmc_mpi__request_received(comm, k.k.c->roff, &v, err, &s, request);
        return shmc_mpi__call_rc(&k.k, rc);
    }
    if (err != SHMC_OK) {
        shmc_mpi__view_finish(&v, 0);
        return shmc_mpi__call_err(&k.k, err);
    }
    rc = shmc_mpi__request_new(r, comm, k.k.c->roff, &v, request);
    return shmc_mpi__call_rc(&k.k, rc);
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return irecv(buf, count, datatype, source, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Irecv);

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    return shmc_mpi__bsend_start(buf, count, datatype, dest, tag, comm, __func__);
}
SHMC_MPI_ALIAS(Bsend);

static int ibsend(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request, const char *fn)
{
    if (!request)
        return shmc_mpi__raise(comm, shmc_mpi__err(MPI_ERR_ARG, "request is NULL"), fn);
    int rc = shmc_mpi__bsend_start(buf, count, datatype, dest, tag, comm, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    /* The message is in the attached buffer: the request is complete at once. */
    rc = shmc_mpi__request_done(request);
    return rc == MPI_SUCCESS ? rc : shmc_mpi__raise(comm, rc, fn);
}

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return ibsend(buf, count, datatype, dest, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ibsend);

static int probe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status, const char *fn)
{
    struct shmc_mpi_call k;
    int rc = shmc_mpi__call_p2p(comm, fn, &k);
    if (rc)
        return rc;
    if ((rc = shmc_mpi__peer(k.c, source, &source)) != MPI_SUCCESS)
        return shmc_mpi__call_rc(&k, rc);
    shmc_status s;
    int err = flag ? shmc_iprobe(source, tag, SHMC_UINT8, k.c->c, flag, &s)
                   : shmc_probe(source, tag, SHMC_UINT8, k.c->c, &s);
    if (err != SHMC_OK)
        return shmc_mpi__call_err(&k, err);
    if (!flag || *flag)
        set_status(status, &s, s.count, k.c->roff);
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
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG, "flag is NULL"));
    return probe(source, tag, comm, flag, status, __func__);
}
SHMC_MPI_ALIAS(Iprobe);

static int sendrecv(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status, const char *fn)
{
    struct call ks, kr;
    int rc = prepare(sendbuf, sendcount, sendtype, dest, comm, fn, &ks, &dest);
    if (rc || (rc = prepare(recvbuf, recvcount, recvtype, source, comm, fn, &kr, &source)))
        return rc;
    struct shmc_mpi_view vs, vr;
    if ((rc = view_of(&ks, (void *)(uintptr_t)sendbuf, sendcount, 1, &vs)) != MPI_SUCCESS)
        return shmc_mpi__raise(comm, rc, fn);
    if ((rc = view_of(&kr, recvbuf, recvcount, 0, &vr)) != MPI_SUCCESS) {
        shmc_mpi__view_finish(&vs, 0);
        return shmc_mpi__raise(comm, rc, fn);
    }
    shmc_status s;
    int err = shmc_sendrecv(vs.p, vs.bytes, dest, sendtag, vr.p, vr.bytes, source, recvtag,
                            SHMC_UINT8, ks.k.c->c, &s);
    shmc_mpi__view_finish(&vs, 0);
    shmc_mpi__view_finish(&vr, received(err, &s, vr.bytes));
    if (err == SHMC_OK || err == SHMC_ERR_TRUNCATE)
        set_status(status, &s, vr.bytes, ks.k.c->roff);
    return err == SHMC_OK ? MPI_SUCCESS : shmc_mpi__raise(comm, shmc_mpi__from_shmc(err), fn);
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status *status)
{
    return sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                    source, recvtag, comm, status, __func__);
}
SHMC_MPI_ALIAS(Sendrecv);

static int sendrecv_replace(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status,
                            const char *fn)
{
    struct call k;
    int rc = prepare(buf, count, datatype, dest, comm, fn, &k, &dest);
    if (rc || (rc = shmc_mpi__peer(k.k.c, source, &source)) != MPI_SUCCESS)
        return rc ? shmc_mpi__call_rc(&k.k, rc) : rc;
    /* The outgoing message is copied first: the buffer then receives. */
    void *copy = malloc(k.bytes ? k.bytes : 1);
    if (!copy)
        return shmc_mpi__raise(comm, shmc_mpi__err(MPI_ERR_NO_MEM, "%zu bytes", k.bytes), fn);
    if (k.bytes)
        shmc_mpi__pack(buf, (size_t)count, k.t, copy);
    struct shmc_mpi_view vr;
    if ((rc = view_of(&k, buf, count, 0, &vr)) != MPI_SUCCESS) {
        free(copy);
        return shmc_mpi__raise(comm, rc, fn);
    }
    shmc_status s;
    int err = shmc_sendrecv(copy, k.bytes, dest, sendtag, vr.p, vr.bytes, source, recvtag,
                            SHMC_UINT8, k.k.c->c, &s);
    shmc_mpi__view_finish(&vr, received(err, &s, vr.bytes));
    free(copy);
    if (err == SHMC_OK || err == SHMC_ERR_TRUNCATE)
        set_status(status, &s, vr.bytes, k.k.c->roff);
    return err == SHMC_OK ? MPI_SUCCESS : shmc_mpi__raise(comm, shmc_mpi__from_shmc(err), fn);
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status,
                            __func__);
}
SHMC_MPI_ALIAS(Sendrecv_replace);

/* ---- matched probes ------------------------------------------------------------------------ */

struct message {
    shmc_message *m;
    MPI_Comm comm;
    int roff; /* the communicator's, for the status's source */
};
static struct shmc_mpi_table messages = SHMC_MPI_TABLE_INIT;

/* The first handle a claimed message may get: 0 and 1 are predefined. */
#define FIRST_MESSAGE (MPI_MESSAGE_NO_PROC + 1)

static int mprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                  MPI_Status *status, const char *fn)
{
    struct shmc_mpi_call k;
    int rc = shmc_mpi__call_p2p(comm, fn, &k);
    if (rc)
        return rc;
    if ((rc = shmc_mpi__peer(k.c, source, &source)) != MPI_SUCCESS)
        return shmc_mpi__call_rc(&k, rc);
    if (!message)
        return shmc_mpi__call_rc(&k, shmc_mpi__err(MPI_ERR_ARG, "message is NULL"));
    struct message *x = malloc(sizeof *x);
    if (!x)
        return shmc_mpi__call_rc(&k, shmc_mpi__err(MPI_ERR_NO_MEM, "a message handle"));
    shmc_status s;
    shmc_message *m = NULL;
    int err = flag ? shmc_improbe(source, tag, SHMC_UINT8, k.c->c, flag, &m, &s)
                   : shmc_mprobe(source, tag, SHMC_UINT8, k.c->c, &m, &s);
    if (err != SHMC_OK || !m) {
        free(x);
        if (err != SHMC_OK)
            return shmc_mpi__call_err(&k, err);
        if (!flag || *flag) { /* from MPI_PROC_NULL */
            *message = MPI_MESSAGE_NO_PROC;
            set_status(status, &s, 0, k.c->roff);
        }
        return MPI_SUCCESS;
    }
    *x = (struct message){m, comm, k.c->roff};
    int h = shmc_mpi__table_put(&messages, FIRST_MESSAGE, x);
    if (h < 0) {
        /* No handle for it: received into nowhere would lose it; it stays claimed and the
         * call fails (the program cannot name it, so it is lost to it either way). */
        free(x);
        return shmc_mpi__call_rc(&k, shmc_mpi__err(MPI_ERR_NO_MEM, "a message handle"));
    }
    *message = h;
    set_status(status, &s, s.count, k.c->roff);
    return MPI_SUCCESS;
}

int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return mprobe(source, tag, comm, NULL, message, status, __func__);
}
SHMC_MPI_ALIAS(Mprobe);

int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                 MPI_Status *status)
{
    if (!flag)
        return SHMC_MPI_RAISE(comm, shmc_mpi__err(MPI_ERR_ARG, "flag is NULL"));
    return mprobe(source, tag, comm, flag, message, status, __func__);
}
SHMC_MPI_ALIAS(Improbe);

/* Receives *message (request NULL: here; else started, its request in *request). */
static int mrecv(void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                 MPI_Status *status, MPI_Request *request, int nonblocking, const char *fn)
{
    int rc = shmc_mpi__check_running();
    if (rc == MPI_SUCCESS && !message)
        rc = shmc_mpi__err(MPI_ERR_ARG, "message is NULL");
    if (rc == MPI_SUCCESS && nonblocking && !request)
        rc = shmc_mpi__err(MPI_ERR_ARG, "request is NULL");
    struct message *x = NULL;
    if (rc == MPI_SUCCESS && *message != MPI_MESSAGE_NO_PROC &&
        !(x = shmc_mpi__table_get(&messages, *message)))
        rc = shmc_mpi__err(MPI_ERR_REQUEST, "%d is not a message%s", *message,
                           *message == MPI_MESSAGE_NULL ? " (MPI_MESSAGE_NULL)"
                                                        : " (received already, or never probed)");
    if (rc != MPI_SUCCESS)
        return shmc_mpi__raise(MPI_COMM_WORLD, rc, fn);
    struct call k;
    k.k = (struct shmc_mpi_call){NULL, x ? x->comm : MPI_COMM_WORLD, fn};
    if ((rc = shmc_mpi__buffer_arg(buf, count, type, &k.t, &k.bytes)) != MPI_SUCCESS)
        return shmc_mpi__call_rc(&k.k, rc);
    if (!x) { /* MPI_MESSAGE_NO_PROC: nothing to receive */
        shmc_status s;
        shmc_message *none = NULL;
        shmc_mrecv(NULL, 0, SHMC_UINT8, &none, &s);
        *message = MPI_MESSAGE_NULL;
        if (nonblocking) {
            rc = shmc_mpi__request_received(k.k.h, 0, NULL, SHMC_OK, &s, request);
            return shmc_mpi__call_rc(&k.k, rc);
        }
        set_status(status, &s, 0, 0);
        return MPI_SUCCESS;
    }
    struct shmc_mpi_view v;
    if ((rc = view_of(&k, buf, count, 0, &v)) != MPI_SUCCESS)
        return shmc_mpi__call_rc(&k.k, rc);
    shmc_status s;
    shmc_request *r = NULL;
    int err = nonblocking ? shmc_imrecv(v.p, v.bytes, SHMC_UINT8, &x->m, &r)
                          : shmc_mrecv(v.p, v.bytes, SHMC_UINT8, &x->m, &s);
    if (x->m) { /* refused: the message stays claimed, its handle valid */
        shmc_mpi__view_finish(&v, 0);
        return shmc_mpi__call_err(&k.k, err);
    }
    shmc_mpi__table_set(&messages, *message, NULL);
    int roff = x->roff;
    free(x);
    *message = MPI_MESSAGE_NULL;
    if (nonblocking)
        return shmc_mpi__call_rc(&k.k, shmc_mpi__request_new(r, k.k.h, roff, &v, request));
    shmc_mpi__view_finish(&v, received(err, &s, v.bytes));
    if (err == SHMC_OK || err == SHMC_ERR_TRUNCATE)
        set_status(status, &s, v.bytes, roff);
    return shmc_mpi__call_err(&k.k, err);
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
               MPI_Status *status)
{
    return mrecv(buf, count, datatype, message, status, NULL, 0, __func__);
}
SHMC_MPI_ALIAS(Mrecv);

int PMPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                MPI_Request *request)
{
    return mrecv(buf, count, datatype, message, NULL, request, 1, __func__);
}
SHMC_MPI_ALIAS(Imrecv);

/* ---- MPI 4's large-count forms ------------------------------------------------------------ */

int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm, STANDARD, __func__);
}
SHMC_MPI_ALIAS(Send_c);

int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm, STANDARD, __func__);
}
SHMC_MPI_ALIAS(Rsend_c);

int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return send(buf, count, datatype, dest, tag, comm, SYNCHRONOUS, __func__);
}
SHMC_MPI_ALIAS(Ssend_c);

int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm)
{
    return shmc_mpi__bsend_start(buf, count, datatype, dest, tag, comm, __func__);
}
SHMC_MPI_ALIAS(Bsend_c);

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Status *status)
{
    return recv(buf, count, datatype, source, tag, comm, status, __func__);
}
SHMC_MPI_ALIAS(Recv_c);

int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, STANDARD, request, __func__);
}
SHMC_MPI_ALIAS(Isend_c);

int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, STANDARD, request, __func__);
}
SHMC_MPI_ALIAS(Irsend_c);

int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return isend(buf, count, datatype, dest, tag, comm, SYNCHRONOUS, request, __func__);
}
SHMC_MPI_ALIAS(Issend_c);

int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request *request)
{
    return ibsend(buf, count, datatype, dest, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ibsend_c);

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return irecv(buf, count, datatype, source, tag, comm, request, __func__);
}
SHMC_MPI_ALIAS(Irecv_c);

int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                    source, recvtag, comm, status, __func__);
}
SHMC_MPI_ALIAS(Sendrecv_c);

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return sendrecv_replace(buf, count, datatype, dest, sendtag, source, recvtag, comm, status,
                            __func__);
}
SHMC_MPI_ALIAS(Sendrecv_replace_c);

int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                 MPI_Status *status)
{
    return mrecv(buf, count, datatype, message, status, NULL, 0, __func__);
}
SHMC_MPI_ALIAS(Mrecv_c);

int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message,
                  MPI_Request *request)
{
    return mrecv(buf, count, datatype, message, NULL, request, 1, __func__);
}
SHMC_MPI_ALIAS(Imrecv_c);

void shmc_mpi__messages_end(void)
{
    for (int h = FIRST_MESSAGE; h < messages.cap; h++)
        free(shmc_mpi__table_get(&messages, h)); /* the C library frees what they claimed */
    shmc_mpi__table_end(&messages);
}
