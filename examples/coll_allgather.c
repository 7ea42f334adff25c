/*
 * All-gather: every rank contributes its rank and every rank ends with the list
 * [0, 1, ..., size - 1].
 *
 *   shmrun -n 4 build/examples/coll_allgather
 */
#include "example.h"

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    int32_t mine = rank, *all = malloc(sizeof(int32_t) * (size_t)size);
    CHECK(shmc_allgather(&mine, all, 1, SHMC_INT32, world));
    int ok = 1;
    for (int r = 0; r < size; r++)
        ok &= all[r] == r;
    if (!ok)
        printf("coll_allgather: rank %d has a WRONG list\n", rank);
    else if (rank == 0)
        printf("coll_allgather: every rank has [0 .. %d]: ok\n", size - 1);
    free(all);
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
