/*
 * Scatter: rank 0 holds one chunk of 3 values per rank and hands chunk r to rank r, as
 * the tutorials do to spread a dataset.
 *
 *   shmrun -n 4 build/examples/coll_scatter
 */
#include "example.h"

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    double *chunks = NULL, mine[3];
    if (rank == 0) {
        chunks = malloc(3 * sizeof(double) * (size_t)size);
        for (int i = 0; i < 3 * size; i++)
            chunks[i] = i;
    }
    CHECK(shmc_scatter(chunks, mine, 3, SHMC_FLOAT64, 0, world));
    int ok = mine[0] == 3 * rank && mine[1] == 3 * rank + 1 && mine[2] == 3 * rank + 2;
    printf("coll_scatter: rank %d got [%g %g %g]%s\n", rank, mine[0], mine[1], mine[2],
           ok ? "" : " WRONG");
    if (ok && rank == 0)
        printf("coll_scatter: ok\n");
    free(chunks);
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
