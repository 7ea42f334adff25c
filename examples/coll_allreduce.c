/*
 * All-reduce, the tutorials' favourite: every rank starts with a tensor of ones and ends
 * with a tensor of `size`s, in place. Then the average of each rank's rank, in float32.
 *
 *   shmrun -n 4 build/examples/coll_allreduce
 */
#include "example.h"

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    float t[16], avg = (float)rank;
    for (int i = 0; i < 16; i++)
        t[i] = 1.0f;
    CHECK(shmc_allreduce(SHMC_IN_PLACE, t, 16, SHMC_FLOAT32, SHMC_SUM, world));
    CHECK(shmc_allreduce(SHMC_IN_PLACE, &avg, 1, SHMC_FLOAT32, SHMC_AVG, world));
    int ok = avg == (float)(size - 1) / 2.0f;
    for (int i = 0; i < 16; i++)
        ok &= t[i] == (float)size;
    printf("coll_allreduce: rank %d has data %g, average rank %g%s\n", rank, t[0], avg,
           ok ? "" : " WRONG");
    if (ok && rank == 0)
        printf("coll_allreduce: ok\n");
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
