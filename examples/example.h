/*
 * Shared by the examples: start shmcomm, and stop the whole job with a clear message if a
 * call fails. Each example checks its own result and exits non-zero if it is wrong.
 */
#ifndef SHMC_EXAMPLE_H
#define SHMC_EXAMPLE_H

#include <shmcomm.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != SHMC_OK) {                                                                      \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                   \
                    shmc_strerror(rc_));                                                           \
            shmc_abort(1);                                                                         \
        }                                                                                          \
    } while (0)

/* Joins the job; exits if that fails or if it has fewer than min_ranks ranks. */
static inline shmc_comm *example_init(int min_ranks, int *rank, int *size)
{
    shmc_comm *world;
    int rc = shmc_init(&world);
    if (rc != SHMC_OK) {
        fprintf(stderr, "shmc_init failed: %s\n", shmc_strerror(rc));
        exit(1);
    }
    *rank = shmc_comm_rank(world);
    *size = shmc_comm_size(world);
    if (*size < min_ranks) {
        if (*rank == 0)
            fprintf(stderr, "this example needs at least %d ranks (shmrun -n %d ...)\n", min_ranks,
                    min_ranks);
        shmc_finalize();
        exit(2);
    }
    return world;
}

#endif
