/*
 * The collectives and their algorithms by name, and which algorithm each collective has
 * (config.h): the names as the environment and the documents spell them. Here, below the
 * collectives, so that shmrun (which links only base and shm) can refuse a bad
 * SHMC_ALGO_* before any rank starts.
 */
#include <ctype.h>
#include <stdio.h>

#include "base/config.h"

const char *const shmc__coll_names[SHMC_C_COUNT] = {
    "barrier",   "broadcast", "reduce",         "allreduce", "gather",
    "allgather", "scatter",   "reduce_scatter", "alltoall",
};
const char *const shmc__algo_names[SHMC_A_COUNT] = {"auto", "tree",   "ring", "shm",
                                                    "rd",   "direct", "stage"};

int shmc__algo_valid(int c, int a)
{
    if (c < 0 || c >= SHMC_C_COUNT || a < 0 || a >= SHMC_A_COUNT)
        return 0;
    /* Recursive doubling exists where it is the classic latency algorithm. */
    if (a == SHMC_A_RD)
        return c == SHMC_C_BARRIER || c == SHMC_C_ALLREDUCE;
    if (a == SHMC_A_DIRECT)
        return c == SHMC_C_ALLREDUCE || c == SHMC_C_BROADCAST || c == SHMC_C_REDUCE ||
               c == SHMC_C_GATHER || c == SHMC_C_SCATTER;
    if (a == SHMC_A_STAGE)
        return c == SHMC_C_ALLREDUCE;
    return 1;
}

void shmc__algo_var(int c, char *var, size_t len)
{
    size_t k = (size_t)snprintf(var, len, "SHMC_ALGO_");
    for (const char *p = shmc__coll_names[c]; *p && k + 1 < len; p++)
        var[k++] = (char)toupper((unsigned char)*p);
    var[k] = '\0';
}
