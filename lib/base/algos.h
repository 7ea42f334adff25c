/*
 * The collectives, their algorithms, and which algorithm each collective has: each
 * declared once, here, as lists that the code expands where it needs them (X macros).
 * base/config.h makes the enums of the first two; base/algos.c their names and which
 * pairs exist (what SHMC_ALGO_* accepts, shmrun and the library alike); coll/dispatch.c
 * the table of descriptors it runs. Adding an algorithm to a collective is one line of
 * SHMC_IMPLEMENTED and its descriptor shmc__<stem>_algo (coll/algos.h).
 */
#ifndef SHMC_BASE_ALGOS_H
#define SHMC_BASE_ALGOS_H

/* X(ID, name): SHMC_C_<ID>, spelled name in SHMC_ALGO_<ID> and the documents. */
#define SHMC_COLLECTIVES(X)                                                                        \
    X(BARRIER, "barrier")                                                                          \
    X(BROADCAST, "broadcast")                                                                      \
    X(REDUCE, "reduce")                                                                            \
    X(ALLREDUCE, "allreduce")                                                                      \
    X(GATHER, "gather")                                                                            \
    X(ALLGATHER, "allgather")                                                                      \
    X(SCATTER, "scatter")                                                                          \
    X(REDUCE_SCATTER, "reduce_scatter")                                                            \
    X(ALLTOALL, "alltoall")

/* X(ID, name, device): SHMC_A_<ID>; device 1 if it takes device buffers, as the algorithms
 * over the mailboxes do (their messages travel GPU to GPU through IPC handles, their
 * copies and reductions run on the device) and the direct all-reduce's kernels
 * (coll/devdirect.c); the slot and staging algorithms copy through host memory and never
 * see device buffers. AUTO is no algorithm: the choice by the dispatch rules. */
#define SHMC_ALGORITHMS(X)                                                                         \
    X(AUTO, "auto", 0)     /* chosen by the dispatch rules (coll/dispatch.c) */                    \
    X(TREE, "tree", 1)     /* binomial trees over the mailboxes (Bruck for all-to-all) */          \
    X(RING, "ring", 1)     /* rings and chains over the mailboxes */                               \
    X(SHM, "shm", 0)       /* the shared staging slots of the arena */                             \
    X(RD, "rd", 1)         /* recursive doubling (barrier: dissemination), mailboxes */            \
    X(DIRECT, "direct", 1) /* reading peers' buffers in place (coll/direct.c) */                   \
    X(STAGE, "stage", 0)   /* all-reduce through the arena's staging buffers (coll/stage.c) */ \
    X(STREAM, "stream", 0) /* the same, their writes bypassing the caches (coll/stage.c) */

/* X(COLL, ALGO, stem): collective COLL has algorithm ALGO, whose descriptor is
 * shmc__<stem>_algo. Recursive doubling where it is the classic latency algorithm;
 * direct where a rank reads (or writes) its peers' buffers in one step. */
#define SHMC_IMPLEMENTED(X)                                                                        \
    X(BARRIER, TREE, barrier_tree)                                                                 \
    X(BARRIER, RING, barrier_ring)                                                                 \
    X(BARRIER, SHM, barrier_shm)                                                                   \
    X(BARRIER, RD, barrier_rd)                                                                     \
    X(BROADCAST, TREE, bcast_tree)                                                                 \
    X(BROADCAST, RING, bcast_ring)                                                                 \
    X(BROADCAST, SHM, bcast_shm)                                                                   \
    X(BROADCAST, DIRECT, bcast_direct)                                                             \
    X(REDUCE, TREE, reduce_tree)                                                                   \
    X(REDUCE, RING, reduce_ring)                                                                   \
    X(REDUCE, SHM, reduce_shm)                                                                     \
    X(REDUCE, DIRECT, reduce_direct)                                                               \
    X(ALLREDUCE, TREE, allreduce_tree)                                                             \
    X(ALLREDUCE, RING, allreduce_ring)                                                             \
    X(ALLREDUCE, SHM, allreduce_shm)                                                               \
    X(ALLREDUCE, RD, allreduce_rd)                                                                 \
    X(ALLREDUCE, DIRECT, allreduce_direct)                                                         \
    X(ALLREDUCE, STAGE, allreduce_stage)                                                           \
    X(ALLREDUCE, STREAM, allreduce_stream)                                                         \
    X(GATHER, TREE, gather_tree)                                                                   \
    X(GATHER, RING, gather_ring)                                                                   \
    X(GATHER, SHM, gather_shm)                                                                     \
    X(GATHER, DIRECT, gather_direct)                                                               \
    X(ALLGATHER, TREE, allgather_tree)                                                             \
    X(ALLGATHER, RING, allgather_ring)                                                             \
    X(ALLGATHER, SHM, allgather_shm)                                                               \
    X(SCATTER, TREE, scatter_tree)                                                                 \
    X(SCATTER, RING, scatter_ring)                                                                 \
    X(SCATTER, SHM, scatter_shm)                                                                   \
    X(SCATTER, DIRECT, scatter_direct)                                                             \
    X(REDUCE_SCATTER, TREE, reduce_scatter_tree)                                                   \
    X(REDUCE_SCATTER, RING, reduce_scatter_ring)                                                   \
    X(REDUCE_SCATTER, SHM, reduce_scatter_shm)                                                     \
    X(ALLTOALL, TREE, alltoall_tree)                                                               \
    X(ALLTOALL, RING, alltoall_ring)                                                               \
    X(ALLTOALL, SHM, alltoall_shm)                                                                 \
    X(ALLTOALL, DIRECT, alltoall_direct)

#endif /* SHMC_BASE_ALGOS_H */
