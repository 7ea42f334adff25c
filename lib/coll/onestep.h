/*
 * Exchanges among all members of a communicator in one synchronisation (onestep.c): the
 * fixed building block of every agreement a collective service makes (scratch.c,
 * check.c, split.c, devdirect.c), and the small-call path of the shm algorithms.
 */
#ifndef SHMC_ONESTEP_H
#define SHMC_ONESTEP_H

#include <stddef.h>

#include "coll/cx.h"

/* The most one member contributes, and what the world's blocking all-to-all takes in one
 * of its rounds: less than a round carries (SHMC_WSYNC_BYTES). The all-reduce and the
 * all-gather in one step, and the all-to-all in a round, were measured against the other
 * algorithms up to it (docs/collectives.md). */
#define SHMC_ONESTEP_MAX (4u << 10)
static_assert(SHMC_ONESTEP_MAX <= SHMC_WSYNC_BYTES, "a one-step part fits a round's half");

/* Every member has entered. */
int shmc__onestep_barrier(const struct shmc__cx *x);
/* The same, but when it fails (a member left or quit), it returns only once every other
 * member has entered it, left the job or quit: whatever members do before the barrier
 * (the device all-reduce's kernels, which write into every member's buffer) is over. */
int shmc__onestep_barrier_settled(const struct shmc__cx *x);
/* rbuf = the members' sbuf combined in rank order (x->dt, x->op, AVG-finished), on every
 * member; host memory, count * x->es <= SHMC_ONESTEP_MAX; sbuf may be rbuf. */
int shmc__onestep_allreduce(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
/* all = every member's `bytes` of mine, in rank order; host memory, bytes <=
 * SHMC_ONESTEP_MAX; mine must not lie in all. */
int shmc__onestep_allgather(const struct shmc__cx *x, const void *mine, void *all, size_t bytes);

/* Enters world round r (this rank's part already in its half), comparing every rank's
 * call with x's as it enters: SHMC_OK, SHMC_ERR_MISMATCH on every rank alike (said), or
 * the error of a rank that left or quit first. With settle, a failed round returns only
 * once every other rank has entered it, left or quit (wsync.h): ranks that passed an
 * earlier round may be writing into this rank's buffers (coll/direct.c). */
int shmc__onestep_world_enter(const struct shmc__cx *x, uint64_t r, int settle);
/* The same in two parts, for a call with work between them that needs no other rank's
 * part (its own block into its output, while the others enter): post publishes this
 * rank's entry, wait then waits for the others' with enter's outcome. */
struct shmc__wsync_look;
void shmc__onestep_world_post(const struct shmc__cx *x, uint64_t r, struct shmc__wsync_look *w);
int shmc__onestep_world_wait(const struct shmc__cx *x, struct shmc__wsync_look *w, int settle);
/* The same outcome for a round entered without waiting (wsync.h), once look said it is
 * over. */
int shmc__onestep_world_outcome(const struct shmc__cx *x, const struct shmc__wsync_look *w);
/* out = every rank's count elements at byte `off` of its data in its half of world round r
 * of lane l (`half` bytes in all: wsync.h places them by it), combined in rank order
 * (AVG-finished): what a one-step all-reduce does once its round is over. This rank's own
 * elements come from `own`, its input (those it put into its half), where they may
 * (shmc__own_part, cx.h). w NULL: every rank has entered the round; else each rank's part
 * is waited for (shmc__wsync_wait_rank) as the combination comes to it, which stops where
 * that wait fails: the caller's shmc__onestep_world_wait says how. */
struct shmc__lane;
void shmc__onestep_world_combine(const struct shmc__cx *x, struct shmc__lane *l, uint64_t r,
                                 size_t half, size_t off, const void *own, void *out, size_t count,
                                 struct shmc__wsync_look *w);

#endif /* SHMC_ONESTEP_H */
