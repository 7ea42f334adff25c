/*
 * bench/rt.h on shmcomm: each call is the one shmcomm call a user would make.
 */
#include <shmcomm.h>

#include "bench.h"
#include "rt.h"

#include <stdint.h>
#include <stdio.h>

static shmc_comm *world;
static shmc_request *reqs[RT_MAX_REQS];

const char *rt_name(void)
{
    return "shmcomm";
}

void rt_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    CHECK(shmc_init(&world));
}

const char *rt_machine(unsigned *rtt_ns)
{
    uint64_t rtt = 0, far = 0;
    CHECK(shmc_stat("line_rtt_ns", &rtt));
    CHECK(shmc_stat("machine_far", &far));
    *rtt_ns = (unsigned)rtt;
    return far ? "far" : "near";
}

void rt_finalize(void)
{
    CHECK(shmc_finalize());
}

int rt_rank(void)
{
    return shmc_comm_rank(world);
}

int rt_size(void)
{
    return shmc_comm_size(world);
}

void rt_send(const void *buf, size_t bytes, int peer, int tag)
{
    CHECK(shmc_send(buf, bytes, SHMC_UINT8, peer, tag, world));
}

void rt_recv(void *buf, size_t bytes, int peer, int tag)
{
    CHECK(shmc_recv(buf, bytes, SHMC_UINT8, peer, tag, world, NULL));
}

/* The _now forms: the measurements read no statuses, and a message that completes as
 * it starts then costs no request (a NULL slot, which shmc_waitall takes as done). */
void rt_isend(int slot, const void *buf, size_t bytes, int peer, int tag)
{
    CHECK(shmc_isend_now(buf, bytes, SHMC_UINT8, peer, tag, world, &reqs[slot]));
}

void rt_irecv(int slot, void *buf, size_t bytes, int peer, int tag)
{
    CHECK(shmc_irecv_now(buf, bytes, SHMC_UINT8, peer, tag, world, &reqs[slot], NULL));
}

void rt_waitall(int nslots)
{
    CHECK(shmc_waitall((size_t)nslots, reqs, NULL));
}

void rt_coll(enum rt_coll c, const void *s, void *r, size_t count)
{
    switch (c) {
    case RT_BARRIER:
        CHECK(shmc_barrier(world));
        break;
    case RT_BROADCAST:
        CHECK(shmc_broadcast(r, count, SHMC_FLOAT32, 0, world));
        break;
    case RT_REDUCE:
        CHECK(shmc_reduce(s, r, count, SHMC_FLOAT32, SHMC_SUM, 0, world));
        break;
    case RT_ALLREDUCE:
        CHECK(shmc_allreduce(s, r, count, SHMC_FLOAT32, SHMC_SUM, world));
        break;
    case RT_GATHER:
        CHECK(shmc_gather(s, r, count, SHMC_FLOAT32, 0, world));
        break;
    case RT_ALLGATHER:
        CHECK(shmc_allgather(s, r, count, SHMC_FLOAT32, world));
        break;
    case RT_SCATTER:
        CHECK(shmc_scatter(s, r, count, SHMC_FLOAT32, 0, world));
        break;
    case RT_REDUCE_SCATTER:
        CHECK(shmc_reduce_scatter(s, r, count, SHMC_FLOAT32, SHMC_SUM, world));
        break;
    case RT_ALLTOALL:
        CHECK(shmc_alltoall(s, r, count, SHMC_FLOAT32, world));
        break;
    case RT_COLL_COUNT:
        break;
    }
}

double rt_max(double v)
{
    CHECK(shmc_allreduce(SHMC_IN_PLACE, &v, 1, SHMC_FLOAT64, SHMC_MAX, world));
    return v;
}

int rt_bcast_int(int v)
{
    CHECK(shmc_broadcast(&v, 1, SHMC_INT32, 0, world));
    return v;
}
