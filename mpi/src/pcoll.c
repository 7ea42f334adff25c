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
    struct gatherv_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcount = sendcount;
        a->sendtype = sendtype;
        a->recvbuf = recvbuf;
        a->recvcounts = recvcounts;
        a->displs = displs;
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
    struct scatterv_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcounts = sendcounts;
        a->displs = displs;
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
    struct allgatherv_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcount = sendcount;
        a->sendtype = sendtype;
        a->recvbuf = recvbuf;
        a->recvcounts = recvcounts;
        a->displs = displs;
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
    struct alltoallv_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcounts = sendcounts;
        a->sdispls = sdispls;
        a->sendtype = sendtype;
        a->recvbuf = recvbuf;
        a->recvcounts = recvcounts;
        a->rdispls = rdispls;
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
    struct alltoallw_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->sendcounts = sendcounts;
        a->sdispls = sdispls;
        a->sendtypes = sendtypes;
        a->recvbuf = recvbuf;
        a->recvcounts = recvcounts;
        a->rdispls = rdispls;
        a->recvtypes = recvtypes;
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
    struct reduce_scatter_args *a = malloc(sizeof *a);
    if (a) {
        a->sendbuf = sendbuf;
        a->recvbuf = recvbuf;
        a->recvcounts = recvcounts;
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
