/*
 * A group of the even ranks, as in the tutorials' new_group demo: the even ranks form a
 * communicator and all-reduce a tensor of ones within it (each gets the group's size);
 * odd ranks are not members and get NULL. A split by parity does the same for both.
 *
 *   shmrun -n 4 build/examples/coll_group
 */
#include "example.h"

int main(void)
{
    int rank, size;
    shmc_comm *world = example_init(2, &rank, &size);
    int neven = (size + 1) / 2, *evens = malloc(sizeof(int) * (size_t)neven);
    for (int i = 0; i < neven; i++)
        evens[i] = 2 * i;
    shmc_comm *group;
    CHECK(shmc_comm_create_group(world, evens, neven, &group));
    int ok = 1;
    if (rank % 2 == 0) {
        float t[4] = {1, 1, 1, 1};
        CHECK(shmc_allreduce(SHMC_IN_PLACE, t, 4, SHMC_FLOAT32, SHMC_SUM, group));
        ok &= group && t[0] == (float)neven && t[3] == (float)neven;
        printf("coll_group: rank %d (group rank %d) has data %g%s\n", rank, shmc_comm_rank(group),
               t[0], ok ? "" : " WRONG");
        CHECK(shmc_comm_free(&group));
    } else {
        ok &= group == NULL;
    }
    /* The same grouping by split: each parity gets its own communicator. */
    shmc_comm *half;
    CHECK(shmc_comm_split(world, rank % 2, rank, &half));
    int one = 1, members = 0;
    CHECK(shmc_allreduce(&one, &members, 1, SHMC_INT32, SHMC_SUM, half));
    ok &= members == (rank % 2 ? size / 2 : neven);
    CHECK(shmc_comm_free(&half));
    CHECK(shmc_allreduce(SHMC_IN_PLACE, &ok, 1, SHMC_INT32, SHMC_MIN, world));
    if (rank == 0)
        printf("coll_group: %s\n", ok ? "ok" : "WRONG");
    free(evens);
    CHECK(shmc_finalize());
    return ok ? 0 : 1;
}
