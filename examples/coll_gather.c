/*
 * Gather: each rank sends two values (rank*10, rank*10 + 1); rank 0 receives them all,
 * rank r's at positions 2r and 2r + 1.
 *
 *   shmrun -n 4 build/examples/coll_gather
 */
#include "example.h"

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    int32_t mine[2] = {rank * 10, rank * 10 + 1};
    int32_t *all = rank == 0 ? malloc(2 * sizeof(int32_t) * (size_t)size) : NULL;
    CHECK(shmc_gather(mine, all, 2, SHMC_INT32, 0, world));
    int ok = 1;
    if (rank == 0) {
        for (int r = 0; r < size; r++)
            ok &= all[2 * r] == r * 10 && all[2 * r + 1] == r * 10 + 1;
        printf("coll_gather: rank 0 gathered %d pairs, last (%d, %d): %s\n", size,
               (int)all[2 * size - 2], (int)all[2 * size - 1], ok ? "ok" : "WRONG");
    }
    free(all);
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
