/*
 * The runtime adapter: the few calls bench/measure.c makes, so that one measurement
 * source runs on shmcomm (rt_shmcomm.c) and, compiled with an MPI's mpicc, on Open MPI
 * and MPICH (rt_mpi.c). An adapter is a thin translation; it must not add work to a call
 * that the runtime's own users would not do (no extra copies, no extra checks).
 *
 * Every call stops the job on an error: a benchmark figure from a failed call is worse
 * than none.
 */
#ifndef SHMC_BENCH_RT_H
#define SHMC_BENCH_RT_H

#include <stddef.h>

/* Collectives, in the order and with the names of shmcomm's SHMC_ALGO_<NAME>. */
enum rt_coll {
    RT_BARRIER,
    RT_BROADCAST,
    RT_REDUCE,
    RT_ALLREDUCE,
    RT_GATHER,
    RT_ALLGATHER,
    RT_SCATTER,
    RT_REDUCE_SCATTER,
    RT_ALLTOALL,
    RT_COLL_COUNT
};

/* The runtime's name as the report prints it: "shmcomm", "openmpi", "mpich". */
const char *rt_name(void);
void rt_init(int *argc, char ***argv);
void rt_finalize(void);
int rt_rank(void);
int rt_size(void);
/* The state of the machine ("near" or "far") this job took its settings by as it began,
 * and the round trip in ns it measured then (*rtt_ns), where the runtime chooses by it;
 * NULL where it does not. */
const char *rt_machine(unsigned *rtt_ns);

void rt_send(const void *buf, size_t bytes, int peer, int tag);
void rt_recv(void *buf, size_t bytes, int peer, int tag);

/* Up to RT_MAX_REQS non-blocking operations in flight, numbered by the caller. */
#define RT_MAX_REQS 128
void rt_isend(int slot, const void *buf, size_t bytes, int peer, int tag);
void rt_irecv(int slot, void *buf, size_t bytes, int peer, int tag);
void rt_waitall(int nslots); /* slots 0 .. nslots-1 */

/*
 * One collective on float32 data, SUM for reductions, root 0. count is the vector of
 * broadcast, reduce and all-reduce, and one rank's block of the others (whose buffers
 * hold size * count elements).
 */
void rt_coll(enum rt_coll c, const void *sbuf, void *rbuf, size_t count);

/* The largest v over the ranks, on every rank (for "slowest rank" figures). */
double rt_max(double v);
/* Rank 0's v, on every rank. */
int rt_bcast_int(int v);

#endif
