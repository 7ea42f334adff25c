/*
 * The scratch buffers the algorithms borrow, agreed before data moves (scratch.c).
 */
#ifndef SHMC_SCRATCH_H
#define SHMC_SCRATCH_H

#include <stddef.h>

#include "coll/cx.h"

/* What every host scratch buffer holds from shmc_init on: a call that needs no more
 * never grows one, and never agrees (shmc__scratch_held). */
#define SHMC_SCRATCH_MIN 4096u

/* Takes the host buffers' first SHMC_SCRATCH_MIN bytes (shmc_init), and gives all back. */
int shmc__scratch_init(struct shmc__coll *co);
void shmc__scratch_release(struct shmc__coll *co);
/* Scratch buffer `which` (0 to SHMC_NSCRATCH - 1) of at least bytes, kept between calls.
 * Within what shmc__scratch_prepare made ready for the running call it never allocates;
 * beyond, it allocates and counts a late growth (a bug in a scratch_need). */
void *shmc__cx_scratch(const struct shmc__cx *x, int which, size_t bytes);
/* The same, for an algorithm that agrees with the other members on the outcome before
 * it moves data (direct.c): NULL when out of memory, never counted late. */
void *shmc__cx_scratch_early(const struct shmc__cx *x, int which, size_t bytes);
/* Collective: makes every member's buffers hold need, agreeing first if that is more
 * than the communicator's members already hold; SHMC_ERR_NOMEM on every member if any
 * could not, before any data moved. */
int shmc__scratch_prepare(const struct shmc__cx *x, const size_t need[SHMC_NSCRATCH]);

/* Does every member hold what call x of `bytes` borrows with algorithm a, whatever its
 * needs (an algorithm whose needs stay within the call's bytes, on host memory, within
 * SHMC_SCRATCH_MIN)? Then shmc__scratch_prepare would do nothing; a small call's path
 * skips it, and the stores of working the needs out (dispatch.c). */
static inline int shmc__scratch_held(const struct shmc__cx *x, const struct shmc__coll_algo *a,
                                     size_t bytes)
{
    return (a->within_bytes || !a->scratch_need) && !x->dev && bytes <= SHMC_SCRATCH_MIN;
}

#endif /* SHMC_SCRATCH_H */
