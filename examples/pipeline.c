/*
 * Pipeline: rank 0 makes a tensor and sends it to rank 1; every other rank receives from
 * the previous one, adds its own rank to each element and sends it on; the last rank
 * sends it back to rank 0, which checks that it grew by 1 + 2 + ... + (size-1).
 *
 *   shmrun -n 4 build/examples/pipeline
 */
#include "example.h"

#define N 1000

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    double t[N];
    int ok = 1;

    if (rank == 0) {
        for (int i = 0; i < N; i++)
            t[i] = 0.5 * i;
        CHECK(shmc_send(t, N, SHMC_FLOAT64, 1, 0, world));
        CHECK(shmc_recv(t, N, SHMC_FLOAT64, size - 1, 0, world, NULL));
        double added = (double)size * (size - 1) / 2;
        for (int i = 0; i < N; i++)
            ok &= t[i] == 0.5 * i + added;
        printf("pipeline: the tensor went through %d ranks and grew by %g: %s\n", size, added,
               ok ? "ok" : "WRONG");
    } else {
        CHECK(shmc_recv(t, N, SHMC_FLOAT64, rank - 1, 0, world, NULL));
        for (int i = 0; i < N; i++)
            t[i] += rank;
        CHECK(shmc_send(t, N, SHMC_FLOAT64, (rank + 1) % size, 0, world));
    }
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
