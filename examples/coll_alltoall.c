/*
 * All-to-all: rank s sends the value 100*s + d to rank d; afterwards rank d holds
 * 100*s + d from every rank s, at position s (a transpose across ranks).
 *
 *   shmrun -n 4 build/examples/coll_alltoall
 */
#include "example.h"

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    int32_t *out = malloc(sizeof(int32_t) * (size_t)size);
    int32_t *in = malloc(sizeof(int32_t) * (size_t)size);
    for (int d = 0; d < size; d++)
        out[d] = 100 * rank + d;
    CHECK(shmc_alltoall(out, in, 1, SHMC_INT32, world));
    int ok = 1;
    for (int s = 0; s < size; s++)
        ok &= in[s] == 100 * s + rank;
    if (!ok)
        printf("coll_alltoall: rank %d got WRONG values\n", rank);
    else if (rank == 0)
        printf("coll_alltoall: every rank got its column: ok\n");
    free(out);
    free(in);
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
