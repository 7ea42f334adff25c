/*
 * The MPI functions of the neighbourhood collectives: each puts its arguments into the
 * form neighbor.c takes (counts as MPI_Count, displacements as their arrays' own width)
 * and runs them blocking, nonblocking or persistent there.
 */
#include "mpi_impl.h"

#define NB(...) ((struct shmc_mpi_nargs){__VA_ARGS__})

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLGATHER, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype);
    return shmc_mpi__neighbor(&a, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Neighbor_allgather);

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLGATHER, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype);
    return shmc_mpi__neighbor(&a, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Neighbor_allgather_c);

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLGATHER, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .nonblocking = 1);
    return shmc_mpi__neighbor(&a, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ineighbor_allgather);

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLGATHER, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .nonblocking = 1);
    return shmc_mpi__neighbor(&a, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ineighbor_allgather_c);

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLGATHER, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype);
    return shmc_mpi__neighbor_init(&a, comm, info, request, __func__);
}
SHMC_MPI_ALIAS(Neighbor_allgather_init);

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLGATHERV, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcounts = shmc_mpi__ints(recvcounts),
           .rdispls = shmc_mpi__ints(displs), .rtype = recvtype);
    return shmc_mpi__neighbor(&a, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Neighbor_allgatherv);

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLGATHERV, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcounts = shmc_mpi__counts(recvcounts),
           .rdispls = shmc_mpi__aints(displs), .rtype = recvtype);
    return shmc_mpi__neighbor(&a, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Neighbor_allgatherv_c);

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const int recvcounts[], const int displs[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLGATHERV, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcounts = shmc_mpi__ints(recvcounts),
           .rdispls = shmc_mpi__ints(displs), .rtype = recvtype, .nonblocking = 1);
    return shmc_mpi__neighbor(&a, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ineighbor_allgatherv);

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[],
                                const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLGATHERV, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcounts = shmc_mpi__counts(recvcounts),
           .rdispls = shmc_mpi__aints(displs), .rtype = recvtype, .nonblocking = 1);
    return shmc_mpi__neighbor(&a, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ineighbor_allgatherv_c);

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, const int recvcounts[], const int displs[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLGATHERV, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcounts = shmc_mpi__ints(recvcounts),
           .rdispls = shmc_mpi__ints(displs), .rtype = recvtype);
    return shmc_mpi__neighbor_init(&a, comm, info, request, __func__);
}
SHMC_MPI_ALIAS(Neighbor_allgatherv_init);

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALL, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype);
    return shmc_mpi__neighbor(&a, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Neighbor_alltoall);

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALL, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype);
    return shmc_mpi__neighbor(&a, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Neighbor_alltoall_c);

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALL, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .nonblocking = 1);
    return shmc_mpi__neighbor(&a, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ineighbor_alltoall);

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALL, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .nonblocking = 1);
    return shmc_mpi__neighbor(&a, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ineighbor_alltoall_c);

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALL, .sbuf = sendbuf, .scount = sendcount, .stype = sendtype,
           .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype);
    return shmc_mpi__neighbor_init(&a, comm, info, request, __func__);
}
SHMC_MPI_ALIAS(Neighbor_alltoall_init);

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALLV, .sbuf = sendbuf, .scounts = shmc_mpi__ints(sendcounts),
           .sdispls = shmc_mpi__ints(sdispls), .stype = sendtype, .rbuf = recvbuf,
           .rcounts = shmc_mpi__ints(recvcounts), .rdispls = shmc_mpi__ints(rdispls),
           .rtype = recvtype);
    return shmc_mpi__neighbor(&a, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Neighbor_alltoallv);

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALLV, .sbuf = sendbuf, .scounts = shmc_mpi__counts(sendcounts),
           .sdispls = shmc_mpi__aints(sdispls), .stype = sendtype, .rbuf = recvbuf,
           .rcounts = shmc_mpi__counts(recvcounts), .rdispls = shmc_mpi__aints(rdispls),
           .rtype = recvtype);
    return shmc_mpi__neighbor(&a, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Neighbor_alltoallv_c);

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                             MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALLV, .sbuf = sendbuf, .scounts = shmc_mpi__ints(sendcounts),
           .sdispls = shmc_mpi__ints(sdispls), .stype = sendtype, .rbuf = recvbuf,
           .rcounts = shmc_mpi__ints(recvcounts), .rdispls = shmc_mpi__ints(rdispls),
           .rtype = recvtype, .nonblocking = 1);
    return shmc_mpi__neighbor(&a, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ineighbor_alltoallv);

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALLV, .sbuf = sendbuf, .scounts = shmc_mpi__counts(sendcounts),
           .sdispls = shmc_mpi__aints(sdispls), .stype = sendtype, .rbuf = recvbuf,
           .rcounts = shmc_mpi__counts(recvcounts), .rdispls = shmc_mpi__aints(rdispls),
           .rtype = recvtype, .nonblocking = 1);
    return shmc_mpi__neighbor(&a, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ineighbor_alltoallv_c);

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALLV, .sbuf = sendbuf, .scounts = shmc_mpi__ints(sendcounts),
           .sdispls = shmc_mpi__ints(sdispls), .stype = sendtype, .rbuf = recvbuf,
           .rcounts = shmc_mpi__ints(recvcounts), .rdispls = shmc_mpi__ints(rdispls),
           .rtype = recvtype);
    return shmc_mpi__neighbor_init(&a, comm, info, request, __func__);
}
SHMC_MPI_ALIAS(Neighbor_alltoallv_init);

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALLW, .sbuf = sendbuf, .scounts = shmc_mpi__ints(sendcounts),
           .sdispls = shmc_mpi__aints(sdispls), .stypes = sendtypes, .rbuf = recvbuf,
           .rcounts = shmc_mpi__ints(recvcounts), .rdispls = shmc_mpi__aints(rdispls),
           .rtypes = recvtypes);
    return shmc_mpi__neighbor(&a, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Neighbor_alltoallw);

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALLW, .sbuf = sendbuf, .scounts = shmc_mpi__counts(sendcounts),
           .sdispls = shmc_mpi__aints(sdispls), .stypes = sendtypes, .rbuf = recvbuf,
           .rcounts = shmc_mpi__counts(recvcounts), .rdispls = shmc_mpi__aints(rdispls),
           .rtypes = recvtypes);
    return shmc_mpi__neighbor(&a, comm, NULL, __func__);
}
SHMC_MPI_ALIAS(Neighbor_alltoallw_c);

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                             MPI_Comm comm, MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALLW, .sbuf = sendbuf, .scounts = shmc_mpi__ints(sendcounts),
           .sdispls = shmc_mpi__aints(sdispls), .stypes = sendtypes, .rbuf = recvbuf,
           .rcounts = shmc_mpi__ints(recvcounts), .rdispls = shmc_mpi__aints(rdispls),
           .rtypes = recvtypes, .nonblocking = 1);
    return shmc_mpi__neighbor(&a, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ineighbor_alltoallw);

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                               const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                               MPI_Comm comm, MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALLW, .sbuf = sendbuf, .scounts = shmc_mpi__counts(sendcounts),
           .sdispls = shmc_mpi__aints(sdispls), .stypes = sendtypes, .rbuf = recvbuf,
           .rcounts = shmc_mpi__counts(recvcounts), .rdispls = shmc_mpi__aints(rdispls),
           .rtypes = recvtypes, .nonblocking = 1);
    return shmc_mpi__neighbor(&a, comm, request, __func__);
}
SHMC_MPI_ALIAS(Ineighbor_alltoallw_c);

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                 const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                 void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                 const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    const struct shmc_mpi_nargs a =
        NB(.kind = SHMC_MPI_NB_ALLTOALLW, .sbuf = sendbuf, .scounts = shmc_mpi__ints(sendcounts),
           .sdispls = shmc_mpi__aints(sdispls), .stypes = sendtypes, .rbuf = recvbuf,
           .rcounts = shmc_mpi__ints(recvcounts), .rdispls = shmc_mpi__aints(rdispls),
           .rtypes = recvtypes);
    return shmc_mpi__neighbor_init(&a, comm, info, request, __func__);
}
SHMC_MPI_ALIAS(Neighbor_alltoallw_init);
