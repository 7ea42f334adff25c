/*
 * The nonblocking collectives' algorithms (nbc.c): each builds a schedule (sched.h) for
 * call x on resolved buffers, as the blocking families' algorithms get them (algos.h: a
 * NULL own block means it is in place), and starts it as *req. Counts and displacements
 * are in elements of x->dt. Every member's schedule has the same messages in the same
 * rounds; every combination is in rank order (a non-commutative op gives the blocking
 * calls' result):
 *
 * - barrier: dissemination, ceil(log2 n) rounds of one message each way;
 * - broadcast: the root sending to each member where the blocking call does (dispatch.c's
 *   direct), else a binomial tree from the root, one round to receive and one to send on;
 * - reduce, allreduce: a binomial tree into rank 0 (rank r combines the block of ranks
 *   r .. r + 2^k - 1 on the left of the next), then to the root, or a broadcast from 0
 *   (a reduce where the job has more ranks than CPUs, of more than
 *   SHMC_SCHED_SHARED_EAGER_MAX bytes: every member straight to the root);
 *   an allreduce over a power-of-two n by recursive doubling instead (log2 n rounds);
 *   an allreduce with an op that commutes by a ring (2 (n - 1) rounds, in the blocking
 *   ring's order) where the blocking call's rule takes the ring, or, where it takes
 *   neither the ring nor recursive doubling, from SHMC_NBC_RING_MIN bytes;
 * - gather(v), scatter(v): the root and each member exchange one message, in one round
 *   (a gather of equal blocks by the binomial tree where the blocking call takes it);
 * - allgather(v), alltoall(v): every pair exchanges its blocks directly, in one round;
 * - reduce_scatter(v): a reduce into rank 0 (its vectors straight to rank 0 where the
 *   reduce's go straight to the root), then a scatter of its parts; from
 *   SHMC_NBC_RING_MIN bytes in all, and at 2 ranks at every size, with an op that
 *   commutes, the ring's first half (n - 1 rounds, in the blocking ring's order);
 * - scan, exscan: a chain from rank 0 up, n - 1 rounds.
 *
 * At 2 ranks a barrier, all-gather(v), all-to-all(v) (not in place), all-reduce and
 * reduce-scatter(v) (an op that commutes) whose blocks are small is the one exchange those
 * make, done in its start where it can be (shmc__sched_swap, sched.h).
 *
 * Returns SHMC_OK, SHMC_ERR_NOMEM, or the communicator's collectives' failure.
 */
#ifndef SHMC_COLL_NBC_H
#define SHMC_COLL_NBC_H

#include <stddef.h>

#include "coll/cx.h"

/* The smallest all-reduce the schedules run as a ring: below it recursive doubling's
 * fewer rounds cost less than the ring's fewer bytes. At 2 ranks recursive doubling's one
 * exchange of the whole vector goes on through this size itself, as the blocking call's
 * rules have it on Intel's CPUs (lib/coll/dispatch.rules): by single copy it took half
 * the ring's two exchanges of halves at 64 KiB (coll_bench --split, docs/collectives.md). */
#define SHMC_NBC_RING_MIN ((size_t)64 << 10)

int shmc__nbc_barrier(const struct shmc__cx *x, struct shmc__request **req);
int shmc__nbc_bcast(const struct shmc__cx *x, void *buf, size_t count, struct shmc__request **req);
/* all: every member gets the result (allreduce), else the root alone. */
int shmc__nbc_reduce(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count, int all,
                     struct shmc__request **req);
/* counts and displs are the root's (NULL elsewhere, and at 2 ranks where the blocks are
 * equal: count each, in rank order); own NULL: the root's block is in place. */
int shmc__nbc_gatherv(const struct shmc__cx *x, const void *own, size_t count, void *big,
                      const size_t *counts, const size_t *displs, struct shmc__request **req);
int shmc__nbc_scatterv(const struct shmc__cx *x, const void *big, const size_t *counts,
                       const size_t *displs, void *own, size_t count, struct shmc__request **req);
/* own NULL: each member's block is in place in big. */
int shmc__nbc_allgatherv(const struct shmc__cx *x, const void *own, void *big, const size_t *counts,
                         const size_t *displs, struct shmc__request **req);
/* sbuf NULL: in place (rbuf holds the blocks to send). */
int shmc__nbc_alltoallv(const struct shmc__cx *x, const void *sbuf, const size_t *scounts,
                        const size_t *sdispls, void *rbuf, const size_t *rcounts,
                        const size_t *rdispls, struct shmc__request **req);
int shmc__nbc_reduce_scatterv(const struct shmc__cx *x, const void *sbuf, void *rbuf,
                              const size_t *counts, struct shmc__request **req);
/* ex: exscan (rank 0's rbuf untouched). */
int shmc__nbc_scan(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count, int ex,
                   struct shmc__request **req);
/* The steps of an all-reduce of count elements of in into out (every rank), appended to
 * schedule s, whose own memory holds count elements (a communicator's making, split.c). */
struct shmc__sched;
int shmc__nbc_reduce_steps_into(struct shmc__sched *s, const struct shmc__cx *x, const void *in,
                                void *out, size_t count);
/* The collectives of equal blocks (SHMC_C_*), with the buffers as the blocking algorithms
 * get them (algos.h; an in-place all-to-all's sbuf is SHMC_IN_PLACE), into *x->nb; host
 * buffers only (the caller has made sure: shmc__nbc_host). */
int shmc__nbc_run(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
/* Waits for schedule r that a blocking call of this library started, under shmc__big
 * alone: its communicator's time-out bounds the wait; when it passes, this rank quits the
 * communicator's collectives (so the schedule's messages end, and the members stop
 * waiting for it) and returns SHMC_ERR_TIMEOUT. Frees r; returns its outcome. */
int shmc__nbc_wait(struct shmc__request *r);
/* A blocking public collective's return: rc, or, when the call started a schedule of its
 * own (shmc__coll_own, entry.h), the outcome of waiting for it. A thread reads its own
 * count back (coll.h), so relaxed is enough: another thread's count only sends this one
 * to look at its own flag. */
int shmc__nbc_wait_owned(int rc);
static inline int shmc__nbc_wait_own(int rc)
{
    return __atomic_load_n(&shmc__coll_owners, __ATOMIC_RELAXED) ? shmc__nbc_wait_owned(rc) : rc;
}
/* SHMC_OK for a call the schedules can run: host memory (device buffers are refused with
 * a message). */
int shmc__nbc_host(const struct shmc__cx *x);

#endif /* SHMC_COLL_NBC_H */
