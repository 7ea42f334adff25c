/*
 * bench/rt.h on MPI, compiled with an MPI's own mpicc (mpicc.openmpi, mpicc.mpich): each
 * call is the MPI call an MPI user would make, on MPI_COMM_WORLD.
 */
#include <mpi.h>

#include "rt.h"

#include <stdio.h>

static MPI_Request reqs[RT_MAX_REQS];

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != MPI_SUCCESS) {                                                                  \
            fprintf(stderr, "%s failed: %d\n", #call, rc_);                                        \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
        }                                                                                          \
    } while (0)

/* Counts are int in MPI; the benchmark stays below 2^31 bytes. */
#define ICOUNT(n) ((int)(n))

const char *rt_name(void)
{
#if defined(OPEN_MPI)
    return "openmpi";
#elif defined(MPICH)
    return "mpich";
#elif defined(SHMCOMM_MPI)
    return "shmcomm-mpi"; /* shmcomm's own MPI interface (shmcc) */
#else
    return "mpi";
#endif
}

void rt_init(int *argc, char ***argv)
{
    CHECK(MPI_Init(argc, argv));
}

const char *rt_machine(unsigned *rtt_ns)
{
    *rtt_ns = 0;
    return NULL; /* (an MPI chooses by no such state) */
}

void rt_finalize(void)
{
    CHECK(MPI_Finalize());
}

int rt_rank(void)
{
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int rt_size(void)
{
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

void rt_send(const void *buf, size_t bytes, int peer, int tag)
{
    CHECK(MPI_Send(buf, ICOUNT(bytes), MPI_BYTE, peer, tag, MPI_COMM_WORLD));
}

void rt_recv(void *buf, size_t bytes, int peer, int tag)
{
    CHECK(MPI_Recv(buf, ICOUNT(bytes), MPI_BYTE, peer, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

void rt_isend(int slot, const void *buf, size_t bytes, int peer, int tag)
{
    CHECK(MPI_Isend(buf, ICOUNT(bytes), MPI_BYTE, peer, tag, MPI_COMM_WORLD, &reqs[slot]));
}

void rt_irecv(int slot, void *buf, size_t bytes, int peer, int tag)
{
    CHECK(MPI_Irecv(buf, ICOUNT(bytes), MPI_BYTE, peer, tag, MPI_COMM_WORLD, &reqs[slot]));
}

void rt_waitall(int nslots)
{
    CHECK(MPI_Waitall(nslots, reqs, MPI_STATUSES_IGNORE));
}

void rt_coll(enum rt_coll c, const void *s, void *r, size_t count)
{
    MPI_Comm w = MPI_COMM_WORLD;
    int n = ICOUNT(count);
    switch (c) {
    case RT_BARRIER:
        CHECK(MPI_Barrier(w));
        break;
    case RT_BROADCAST:
        CHECK(MPI_Bcast(r, n, MPI_FLOAT, 0, w));
        break;
    case RT_REDUCE:
        CHECK(MPI_Reduce(s, r, n, MPI_FLOAT, MPI_SUM, 0, w));
        break;
    case RT_ALLREDUCE:
        CHECK(MPI_Allreduce(s, r, n, MPI_FLOAT, MPI_SUM, w));
        break;
    case RT_GATHER:
        CHECK(MPI_Gather(s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, w));
        break;
    case RT_ALLGATHER:
        CHECK(MPI_Allgather(s, n, MPI_FLOAT, r, n, MPI_FLOAT, w));
        break;
    case RT_SCATTER:
        CHECK(MPI_Scatter(s, n, MPI_FLOAT, r, n, MPI_FLOAT, 0, w));
        break;
    case RT_REDUCE_SCATTER:
        CHECK(MPI_Reduce_scatter_block(s, r, n, MPI_FLOAT, MPI_SUM, w));
        break;
    case RT_ALLTOALL:
        CHECK(MPI_Alltoall(s, n, MPI_FLOAT, r, n, MPI_FLOAT, w));
        break;
    case RT_COLL_COUNT:
        break;
    }
}

double rt_max(double v)
{
    CHECK(MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return v;
}

int rt_bcast_int(int v)
{
    CHECK(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD));
    return v;
}
