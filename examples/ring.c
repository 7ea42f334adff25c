/*
 * Ring exchange with non-blocking calls: every rank sends a tensor filled with its rank
 * to its right neighbour and receives one from its left neighbour. Even ranks start the
 * send first, odd ranks the receive, as in the tutorial; with isend/irecv either order
 * works. Each rank checks that it got its left neighbour's rank.
 *
 *   shmrun -n 4 build/examples/ring
 */
#include "example.h"

#define N 10

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    int32_t send[N], recv[N];
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    shmc_request *reqs[2];

    for (int i = 0; i < N; i++) {
        send[i] = rank;
        recv[i] = -1;
    }
    if (rank % 2 == 0) {
        CHECK(shmc_isend(send, N, SHMC_INT32, right, 0, world, &reqs[0]));
        CHECK(shmc_irecv(recv, N, SHMC_INT32, left, 0, world, &reqs[1]));
    } else {
        CHECK(shmc_irecv(recv, N, SHMC_INT32, left, 0, world, &reqs[1]));
        CHECK(shmc_isend(send, N, SHMC_INT32, right, 0, world, &reqs[0]));
    }
    CHECK(shmc_waitall(2, reqs, NULL));

    int ok = 1;
    for (int i = 0; i < N; i++)
        ok &= recv[i] == left;
    if (!ok)
        fprintf(stderr, "ring: rank %d expected %d from its left neighbour, got %d\n", rank, left,
                (int)recv[0]);
    else if (rank == 0)
        printf("ring: every rank received its left neighbour's rank: ok\n");
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
