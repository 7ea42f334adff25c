/*
 * Every (collective, algorithm) pair that tests/progs/coll_kill runs, for the suites that
 * kill a member inside one (check_quit, check_survivors): the collective's name as
 * coll_kill takes it, the SHMC_ALGO_ variable's suffix (NULL: no algorithm to force) and
 * its algorithms. A case's index picks a pair, cycling.
 */
#ifndef SHMCT_COLL_PAIRS_H
#define SHMCT_COLL_PAIRS_H

#include <stdio.h>
#include <string.h>

static const struct {
    const char *coll, *env, *algos[8]; /* algos: NULL-terminated */
} coll_pairs[] = {
    {"barrier", "BARRIER", {"tree", "ring", "rd", "shm"}},
    {"bcast", "BROADCAST", {"tree", "ring", "shm"}},
    {"reduce", "REDUCE", {"tree", "ring", "shm"}},
    {"allreduce", "ALLREDUCE", {"tree", "ring", "rd", "shm", "direct", "stage", "stream"}},
    {"gather", "GATHER", {"tree", "ring", "shm"}},
    {"allgather", "ALLGATHER", {"tree", "ring", "shm"}},
    {"scatter", "SCATTER", {"tree", "ring", "shm"}},
    {"reduce_scatter", "REDUCE_SCATTER", {"tree", "ring", "shm"}},
    {"alltoall", "ALLTOALL", {"tree", "ring", "shm", "direct"}},
    {"split", NULL, {"auto"}},
    {"create_group", NULL, {"auto"}},
    /* The nonblocking forms, by the ways their rules give (the world's lane, its slots,
     * schedules), started and waited for. */
    {"ibarrier", NULL, {"auto"}},
    {"ibcast", NULL, {"auto"}},
    {"ireduce", NULL, {"auto"}},
    {"iallreduce", NULL, {"auto"}},
    {"igather", NULL, {"auto"}},
    {"iallgather", NULL, {"auto"}},
    {"iscatter", NULL, {"auto"}},
    {"ireduce_scatter", NULL, {"auto"}},
    {"ialltoall", NULL, {"auto"}},
};

struct pick {
    const char *coll, *env, *algo;
};

static inline int npairs(void)
{
    int k = 0;
    for (size_t c = 0; c < sizeof coll_pairs / sizeof *coll_pairs; c++)
        for (int a = 0; coll_pairs[c].algos[a]; a++)
            k++;
    return k;
}

/* The index-th pair, cycling. */
static inline struct pick pick(int index)
{
    int k = index % npairs();
    for (size_t c = 0; c < sizeof coll_pairs / sizeof *coll_pairs; c++)
        for (int a = 0; coll_pairs[c].algos[a]; a++)
            if (k-- == 0)
                return (struct pick){coll_pairs[c].coll, coll_pairs[c].env, coll_pairs[c].algos[a]};
    return (struct pick){0};
}

/* The environment that forces pair p ("" for none), before a command: the world's direct
 * all-reduce with single copy from any size, as it goes on a machine where single copy is
 * no slower than a plain copy (shmrun measures it: where it is slower, `direct` would
 * leave every call to `shm`). */
static inline void pick_env(struct pick p, char *env, size_t len)
{
    env[0] = '\0';
    if (p.env)
        snprintf(env, len, "SHMC_ALGO_%s=%s %s", p.env, p.algo,
                 !strcmp(p.env, "ALLREDUCE") && !strcmp(p.algo, "direct")
                     ? "SHMC_SINGLE_COPY_MIN=0 "
                     : "");
}

#endif /* SHMCT_COLL_PAIRS_H */
