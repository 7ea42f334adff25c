/*
 * Broadcast, as in the tutorials' collective demo: rank 0 holds a tensor of 4 values;
 * after the broadcast every rank holds the same values.
 *
 *   shmrun -n 4 build/examples/coll_broadcast
 */
#include "example.h"

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    float t[4] = {0};
    if (rank == 0)
        for (int i = 0; i < 4; i++)
            t[i] = 1.5f * (float)(i + 1);
    CHECK(shmc_broadcast(t, 4, SHMC_FLOAT32, 0, world));
    int ok = 1;
    for (int i = 0; i < 4; i++)
        ok &= t[i] == 1.5f * (float)(i + 1);
    printf("coll_broadcast: rank %d has [%g %g %g %g]%s\n", rank, t[0], t[1], t[2], t[3],
           ok ? "" : " WRONG");
    if (ok && rank == 0)
        printf("coll_broadcast: ok\n");
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
