/*
 * Barrier: every rank sends its rank to rank 0 before the barrier; after it, rank 0
 * finds every message already delivered (nobody passes a barrier before all arrive).
 *
 *   shmrun -n 4 build/examples/coll_barrier
 */
#include "example.h"

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    int32_t v = rank;
    if (rank != 0)
        CHECK(shmc_send(&v, 1, SHMC_INT32, 0, 7, world));
    CHECK(shmc_barrier(world));
    int ok = 1;
    if (rank == 0) {
        for (int r = 1; r < size; r++) {
            shmc_request *req;
            int32_t got = -1;
            int done = 0;
            CHECK(shmc_irecv(&got, 1, SHMC_INT32, r, 7, world, &req));
            for (int t = 0; t < 1000 && !done; t++)
                CHECK(shmc_test(&req, &done, NULL));
            if (!done) {
                CHECK(shmc_wait(&req, NULL));
                ok = 0;
            }
            ok &= got == r;
        }
        printf("coll_barrier: every rank's message was there after the barrier: %s\n",
               ok ? "ok" : "WRONG");
    }
    CHECK(shmc_barrier(world));
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
