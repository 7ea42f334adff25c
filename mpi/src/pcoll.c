/*
 * MPI 4's persistent collectives (MPI_Allreduce_init and the rest): a persistent request
 * (persist.c) that keeps the call's arguments; each MPI_Start makes the nonblocking call
 * they describe (coll.c, vcoll.c), so it runs the same checks and the same schedules. The
 * buffers, the arrays of counts and displacements, the datatypes and the op are the
 * program's while the request lives, as MPI says. The info argument is checked and
 * otherwise not used.
 */
#include "request_impl.h"

#include <stdlib.h>
#include <string.h>

/* The number of entries of a call's per-peer arrays on comm: its size, or on an
 * intercommunicator the remote group's (local: the local group's, for reduce_scatter). */
static int entries(MPI_Comm comm, int local)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_comm *c = shmc_mpi__comm_any(comm, &rc);
    return !c ? 0 : c->remote && !local ? c->remote_size : c->size;
}

/* Does this rank read a rooted call's arrays (the root's alone)? */
static int root_reads(MPI_Comm comm, int root)
{
    int rc = MPI_SUCCESS;
    const struct shmc_mpi_comm *c = shmc_mpi__comm_any(comm, &rc);
    return c && (c->remote ? root == MPI_ROOT : c->rank == root);
}

/* The arguments with room for k arrays of n entries of esize bytes after them: the
 * arrays are copied when the request is made (the program may let go of its own), and
 * go with the arguments. *room points at the first. */
static void *with_room(size_t args, int k, int n, size_t esize, char **room)
{
    char *a = malloc(args + (size_t)k * (size_t)(n > 0 ? n : 1) * esize);
    *room = a ? a + args : NULL;
    return a;
}

/* Copies n entries of src to *room (advanced), or NULL when there is no array. */
static const void *copy_into(char **room, const void *src, int n, size_t esize)
{
    if (!src || !*room)
        return NULL;
    void *dst = *room;
    memcpy(dst, src, (size_t)n * esize);
    *room += (size_t)n * esize;
    return dst;
}

struct barrier_args {
    MPI_Comm comm;
};

static int barrier_start(const void *args, MPI_Request *out)
{
    const struct barrier_args *a = args;
    return PMPI_Ibarrier(a->comm, out);
}

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct barrier_args *a = malloc(sizeof *a);
    if (a) {
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, barrier_start, a, __func__);
}
SHMC_MPI_ALIAS(Barrier_init);

struct bcast_args {
    void *buffer;
    int count;
    MPI_Datatype datatype;
    int root;
    MPI_Comm comm;
};

static int bcast_start(const void *args, MPI_Request *out)
{
    const struct bcast_args *a = args;
    return PMPI_Ibcast(a->buffer, a->count, a->datatype, a->root, a->comm, out);
}

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    struct bcast_args *a = malloc(sizeof *a);
    if (a) {
        a->buffer = buffer;
        a->count = count;
        a->datatype = datatype;
        a->root = root;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, bcast_start, a, __func__);
}
SHMC_MPI_ALIAS(Bcast_init);

struct reduce_args {
    const void *sendbuf;
    void *recvbuf;
    int count;
    MPI_Datatype datatype;
    MPI_Op op;
    int root;
    MPI_Comm comm;
};

static int reduce_start(const void *args, MPI_Request *out)
{
    const struct reduce_args *a = args;
    return PMPI_Ireduce(a->sendbuf, a->recvbuf, a->count, a->datatype, a->op, a->root, a->comm,
                        out);
}

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct reduce_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->recvbuf = recvbuf;
        a->count = count;
        a->datatype = datatype;
        a->op = op;
        a->root = root;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, reduce_start, a, __func__);
}
SHMC_MPI_ALIAS(Reduce_init);

struct allreduce_args {
    const void *sendbuf;
    void *recvbuf;
    int count;
    MPI_Datatype datatype;
    MPI_Op op;
    MPI_Comm comm;
};

static int allreduce_start(const void *args, MPI_Request *out)
{
    const struct allreduce_args *a = args;
    return PMPI_Iallreduce(a->sendbuf, a->recvbuf, a->count, a->datatype, a->op, a->comm, out);
}

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct allreduce_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->recvbuf = recvbuf;
        a->count = count;
        a->datatype = datatype;
        a->op = op;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, allreduce_start, a, __func__);
}
SHMC_MPI_ALIAS(Allreduce_init);

struct gather_args {
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    MPI_Datatype recvtype;
    int root;
    MPI_Comm comm;
};

static int gather_start(const void *args, MPI_Request *out)
{
    const struct gather_args *a = args;
    return PMPI_Igather(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                        a->recvtype, a->root, a->comm, out);
}

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    struct gather_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcount = sendcount;
        a->sendtype = sendtype;
        a->recvbuf = recvbuf;
        a->recvcount = recvcount;
        a->recvtype = recvtype;
        a->root = root;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, gather_start, a, __func__);
}
SHMC_MPI_ALIAS(Gather_init);

struct gatherv_args {
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    const int *recvcounts;
    const int *displs;
    MPI_Datatype recvtype;
    int root;
    MPI_Comm comm;
};

static int gatherv_start(const void *args, MPI_Request *out)
{
    const struct gatherv_args *a = args;
    return PMPI_Igatherv(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcounts,
                         a->displs, a->recvtype, a->root, a->comm, out);
}

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int n = entries(comm, 0);
    int reads = root_reads(comm, root);
    char *room;
    struct gatherv_args *a = with_room(sizeof *a, 2, n, sizeof(MPI_Count), &room);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcount = sendcount;
        a->sendtype = sendtype;
        a->recvbuf = recvbuf;
        a->recvcounts = copy_into(&room, (reads ? recvcounts : NULL), n, sizeof(int));
        a->displs = copy_into(&room, (reads ? displs : NULL), n, sizeof(int));
        a->recvtype = recvtype;
        a->root = root;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, gatherv_start, a, __func__);
}
SHMC_MPI_ALIAS(Gatherv_init);

struct scatter_args {
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    MPI_Datatype recvtype;
    int root;
    MPI_Comm comm;
};

static int scatter_start(const void *args, MPI_Request *out)
{
    const struct scatter_args *a = args;
    return PMPI_Iscatter(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                         a->recvtype, a->root, a->comm, out);
}

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    struct scatter_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcount = sendcount;
        a->sendtype = sendtype;
        a->recvbuf = recvbuf;
        a->recvcount = recvcount;
        a->recvtype = recvtype;
        a->root = root;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, scatter_start, a, __func__);
}
SHMC_MPI_ALIAS(Scatter_init);

struct scatterv_args {
    const void *sendbuf;
    const int *sendcounts;
    const int *displs;
    MPI_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    MPI_Datatype recvtype;
    int root;
    MPI_Comm comm;
};

static int scatterv_start(const void *args, MPI_Request *out)
{
    const struct scatterv_args *a = args;
    return PMPI_Iscatterv(a->sendbuf, a->sendcounts, a->displs, a->sendtype, a->recvbuf,
                          a->recvcount, a->recvtype, a->root, a->comm, out);
}

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int n = entries(comm, 0);
    int reads = root_reads(comm, root);
    char *room;
    struct scatterv_args *a = with_room(sizeof *a, 2, n, sizeof(MPI_Count), &room);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcounts = copy_into(&room, (reads ? sendcounts : NULL), n, sizeof(int));
        a->displs = copy_into(&room, (reads ? displs : NULL), n, sizeof(int));
        a->sendtype = sendtype;
        a->recvbuf = recvbuf;
        a->recvcount = recvcount;
        a->recvtype = recvtype;
        a->root = root;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, scatterv_start, a, __func__);
}
SHMC_MPI_ALIAS(Scatterv_init);

struct allgather_args {
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    MPI_Datatype recvtype;
    MPI_Comm comm;
};

static int allgather_start(const void *args, MPI_Request *out)
{
    const struct allgather_args *a = args;
    return PMPI_Iallgather(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                           a->recvtype, a->comm, out);
}

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    struct allgather_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcount = sendcount;
        a->sendtype = sendtype;
        a->recvbuf = recvbuf;
        a->recvcount = recvcount;
        a->recvtype = recvtype;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, allgather_start, a, __func__);
}
SHMC_MPI_ALIAS(Allgather_init);

struct allgatherv_args {
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    const int *recvcounts;
    const int *displs;
    MPI_Datatype recvtype;
    MPI_Comm comm;
};

static int allgatherv_start(const void *args, MPI_Request *out)
{
    const struct allgatherv_args *a = args;
    return PMPI_Iallgatherv(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcounts,
                            a->displs, a->recvtype, a->comm, out);
}

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    int n = entries(comm, 0);
    char *room;
    struct allgatherv_args *a = with_room(sizeof *a, 2, n, sizeof(MPI_Count), &room);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcount = sendcount;
        a->sendtype = sendtype;
        a->recvbuf = recvbuf;
        a->recvcounts = copy_into(&room, recvcounts, n, sizeof(int));
        a->displs = copy_into(&room, displs, n, sizeof(int));
        a->recvtype = recvtype;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, allgatherv_start, a, __func__);
}
SHMC_MPI_ALIAS(Allgatherv_init);

struct alltoall_args {
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    MPI_Datatype recvtype;
    MPI_Comm comm;
};

static int alltoall_start(const void *args, MPI_Request *out)
{
    const struct alltoall_args *a = args;
    return PMPI_Ialltoall(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                          a->recvtype, a->comm, out);
}

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    struct alltoall_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcount = sendcount;
        a->sendtype = sendtype;
        a->recvbuf = recvbuf;
        a->recvcount = recvcount;
        a->recvtype = recvtype;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, alltoall_start, a, __func__);
}
SHMC_MPI_ALIAS(Alltoall_init);

struct alltoallv_args {
    const void *sendbuf;
    const int *sendcounts;
    const int *sdispls;
    MPI_Datatype sendtype;
    void *recvbuf;
    const int *recvcounts;
    const int *rdispls;
    MPI_Datatype recvtype;
    MPI_Comm comm;
};

static int alltoallv_start(const void *args, MPI_Request *out)
{
    const struct alltoallv_args *a = args;
    return PMPI_Ialltoallv(a->sendbuf, a->sendcounts, a->sdispls, a->sendtype, a->recvbuf,
                           a->recvcounts, a->rdispls, a->recvtype, a->comm, out);
}

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                        const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    int n = entries(comm, 0);
    char *room;
    struct alltoallv_args *a = with_room(sizeof *a, 4, n, sizeof(MPI_Count), &room);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcounts = copy_into(&room, sendcounts, n, sizeof(int));
        a->sdispls = copy_into(&room, sdispls, n, sizeof(int));
        a->sendtype = sendtype;
        a->recvbuf = recvbuf;
        a->recvcounts = copy_into(&room, recvcounts, n, sizeof(int));
        a->rdispls = copy_into(&room, rdispls, n, sizeof(int));
        a->recvtype = recvtype;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, alltoallv_start, a, __func__);
}
SHMC_MPI_ALIAS(Alltoallv_init);

struct alltoallw_args {
    const void *sendbuf;
    const int *sendcounts;
    const int *sdispls;
    const MPI_Datatype *sendtypes;
    void *recvbuf;
    const int *recvcounts;
    const int *rdispls;
    const MPI_Datatype *recvtypes;
    MPI_Comm comm;
};

static int alltoallw_start(const void *args, MPI_Request *out)
{
    const struct alltoallw_args *a = args;
    return PMPI_Ialltoallw(a->sendbuf, a->sendcounts, a->sdispls, a->sendtypes, a->recvbuf,
                           a->recvcounts, a->rdispls, a->recvtypes, a->comm, out);
}

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    int n = entries(comm, 0);
    char *room;
    struct alltoallw_args *a = with_room(sizeof *a, 6, n, sizeof(MPI_Count), &room);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcounts = copy_into(&room, sendcounts, n, sizeof(int));
        a->sdispls = copy_into(&room, sdispls, n, sizeof(int));
        a->sendtypes = copy_into(&room, sendtypes, n, sizeof(MPI_Datatype));
        a->recvbuf = recvbuf;
        a->recvcounts = copy_into(&room, recvcounts, n, sizeof(int));
        a->rdispls = copy_into(&room, rdispls, n, sizeof(int));
        a->recvtypes = copy_into(&room, recvtypes, n, sizeof(MPI_Datatype));
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, alltoallw_start, a, __func__);
}
SHMC_MPI_ALIAS(Alltoallw_init);

struct reduce_scatter_args {
    const void *sendbuf;
    void *recvbuf;
    const int *recvcounts;
    MPI_Datatype datatype;
    MPI_Op op;
    MPI_Comm comm;
};

static int reduce_scatter_start(const void *args, MPI_Request *out)
{
    const struct reduce_scatter_args *a = args;
    return PMPI_Ireduce_scatter(a->sendbuf, a->recvbuf, a->recvcounts, a->datatype, a->op, a->comm,
                                out);
}

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    int n = entries(comm, 1);
    char *room;
    struct reduce_scatter_args *a = with_room(sizeof *a, 1, n, sizeof(MPI_Count), &room);
    if (a) {
        a->sendbuf = sendbuf;
        a->recvbuf = recvbuf;
        a->recvcounts = copy_into(&room, recvcounts, n, sizeof(int));
        a->datatype = datatype;
        a->op = op;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, reduce_scatter_start, a, __func__);
}
SHMC_MPI_ALIAS(Reduce_scatter_init);

struct reduce_scatter_block_args {
    const void *sendbuf;
    void *recvbuf;
    int recvcount;
    MPI_Datatype datatype;
    MPI_Op op;
    MPI_Comm comm;
};

static int reduce_scatter_block_start(const void *args, MPI_Request *out)
{
    const struct reduce_scatter_block_args *a = args;
    return PMPI_Ireduce_scatter_block(a->sendbuf, a->recvbuf, a->recvcount, a->datatype, a->op,
                                      a->comm, out);
}

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    struct reduce_scatter_block_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->recvbuf = recvbuf;
        a->recvcount = recvcount;
        a->datatype = datatype;
        a->op = op;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, reduce_scatter_block_start, a, __func__);
}
SHMC_MPI_ALIAS(Reduce_scatter_block_init);

struct scan_args {
    const void *sendbuf;
    void *recvbuf;
    int count;
    MPI_Datatype datatype;
    MPI_Op op;
    MPI_Comm comm;
};

static int scan_start(const void *args, MPI_Request *out)
{
    const struct scan_args *a = args;
    return PMPI_Iscan(a->sendbuf, a->recvbuf, a->count, a->datatype, a->op, a->comm, out);
}

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct scan_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->recvbuf = recvbuf;
        a->count = count;
        a->datatype = datatype;
        a->op = op;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, scan_start, a, __func__);
}
SHMC_MPI_ALIAS(Scan_init);

struct exscan_args {
    const void *sendbuf;
    void *recvbuf;
    int count;
    MPI_Datatype datatype;
    MPI_Op op;
    MPI_Comm comm;
};

static int exscan_start(const void *args, MPI_Request *out)
{
    const struct exscan_args *a = args;
    return PMPI_Iexscan(a->sendbuf, a->recvbuf, a->count, a->datatype, a->op, a->comm, out);
}

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    struct exscan_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->recvbuf = recvbuf;
        a->count = count;
        a->datatype = datatype;
        a->op = op;
        a->comm = comm;
    }
    return shmc_mpi__persist_coll(comm, info, request, exscan_start, a, __func__);
}
SHMC_MPI_ALIAS(Exscan_init);
