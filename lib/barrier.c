/*
 * A simple, correct barrier for every communicator: the dissemination algorithm
 * (ceil(log2 n) rounds; in round k each rank sends an empty message to rank + 2^k and
 * receives one from rank - 2^k) over the communicator's collective context, so it never
 * matches user point-to-point traffic. It progresses everything else while it waits.
 * The collectives issue replaces it with a shared-memory barrier.
 */
#include "internal.h"

#define BARRIER_TAG 0

SHMC_API int shmc_barrier(shmc_comm *comm)
{
    if (shmc__g.state != SHMC_ST_READY)
        return SHMC_ERR_NOT_INIT;
    if (!comm || comm->magic != SHMC_COMM_MAGIC)
        return SHMC_ERR_ARG;
    int n = comm->size, me = comm->rank;
    uint32_t ctx = comm->ctx + 1;
    for (int k = 1; k < n; k <<= 1) {
        int to = shmc__comm_world_rank(comm, (me + k) % n);
        int from = shmc__comm_world_rank(comm, (me - k + n) % n);
        struct shmc_request *reqs[2];
        int rc = shmc__post_recv(NULL, 0, 1, from, BARRIER_TAG, ctx, comm, &reqs[0]);
        if (rc != SHMC_OK)
            return rc;
        rc = shmc__post_send(NULL, 0, 1, to, BARRIER_TAG, ctx, comm, &reqs[1]);
        if (rc != SHMC_OK) {
            shmc__req_dequeue(reqs[0]);
            shmc__req_free(reqs[0]);
            return rc;
        }
        shmc__wait_requests(2, reqs);
        int r0 = shmc__finish(reqs[0], NULL);
        int r1 = shmc__finish(reqs[1], NULL);
        if (r0 != SHMC_OK || r1 != SHMC_OK)
            return r0 != SHMC_OK ? r0 : r1;
    }
    return SHMC_OK;
}
