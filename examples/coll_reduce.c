/*
 * Reduce: every rank contributes a tensor filled with its rank + 1; rank 0 receives the
 * element-wise sum, 1 + 2 + ... + size, and the maximum, size.
 *
 *   shmrun -n 4 build/examples/coll_reduce
 */
#include "example.h"

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    int64_t t[8], sum[8], max[8];
    for (int i = 0; i < 8; i++)
        t[i] = rank + 1;
    CHECK(shmc_reduce(t, sum, 8, SHMC_INT64, SHMC_SUM, 0, world));
    CHECK(shmc_reduce(t, max, 8, SHMC_INT64, SHMC_MAX, 0, world));
    int ok = 1;
    if (rank == 0) {
        for (int i = 0; i < 8; i++)
            ok &= sum[i] == (int64_t)size * (size + 1) / 2 && max[i] == size;
        printf("coll_reduce: rank 0 has sum %lld and max %lld: %s\n", (long long)sum[0],
               (long long)max[0], ok ? "ok" : "WRONG");
    }
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
