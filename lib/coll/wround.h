/*
 * What each collective of equal blocks puts into a world round and takes out of it once
 * every rank has entered (wround.c): the data half of the nonblocking world calls that
 * run by rounds (nbworld.c), chunk by chunk, and of the blocking `shm` calls on the world
 * that fit one round (shmc__wround_blocking).
 *
 * A round carries, of every block the call moves, the elements [e, e + len): len is at
 * most shmc__wround_elems (a rank's half of the lane holds SHMC_WSYNC_BYTES,
 * shared by the n blocks of a call that sends one to each rank). Every member puts before it enters
 * and takes after the round, and a round touches only its own chunk of each block, so calls in
 * place need no copy of their own: a chunk is read into the half before the same chunk of the
 * result is written.
 */
#ifndef SHMC_WROUND_H
#define SHMC_WROUND_H

#include <stddef.h>
#include <stdint.h>

#include "coll/cx.h"

/* One call's buffers, as run() in entry.h passes them (algos.h), and the lane whose
 * rounds it takes. */
struct shmc__wround {
    int coll; /* SHMC_C_* */
    const struct shmc__cx *x;
    const uint8_t *sbuf;
    uint8_t *rbuf;
    size_t count;  /* elements of each block */
    unsigned lane; /* SHMC_LANE_* */
    int own_early; /* this rank's own block is in place already (shmc__wround_own) */
    /* The blocking call's round while take waits for it rank by rank (shmc__wround_run);
     * NULL: take comes once every rank is in. */
    struct shmc__wsync_look *look;
};

/* Elements of each block that one round carries; 0 when not even one element of each of
 * the call's blocks fits a half. */
size_t shmc__wround_elems(int coll, const struct shmc__cx *x);
/* This rank's part of chunk [e, e + len) into its half of round r of b's lane. */
void shmc__wround_put(const struct shmc__wround *b, uint64_t r, size_t e, size_t len);
/* The result's chunk [e, e + len) out of round r, once every rank has entered it, or
 * (b->look) each rank's part as that rank enters. */
void shmc__wround_take(const struct shmc__wround *b, uint64_t r, size_t e, size_t len);
/* The part of take that needs no round: this rank's own block of chunk [e, e + len), from
 * its input to its place in the result, for a call that has one (a gather's root, an
 * all-gather, a scatter's root, an all-to-all). A call of one round copies it between its
 * post and its look, while the others enter (a scatter's root that copied its block
 * after the round was slower than the blocking call; the commit has the figures); take
 * then leaves it. */
void shmc__wround_own(struct shmc__wround *b, size_t e, size_t len);
static inline int shmc__wround_has_own(int coll)
{
    return coll == SHMC_C_GATHER || coll == SHMC_C_ALLGATHER || coll == SHMC_C_SCATTER ||
           coll == SHMC_C_ALLTOALL;
}
/* Does blocking call x of collective coll by `shm` (count elements a block) go in one
 * round of the world's blocking lane? On the world: one synchronisation where the slots
 * take two (a slot is rewritten only once last call's readers are done with it), the
 * Bruck exchange log2(n) rounds of messages and the ring n - 1; at 2 ranks too, where the
 * round also does less work than the slots' path. Every collective where the call fits a
 * round (the rooted ones too: their members wait for the round where a slot's writer
 * need not, and still measured faster, far from the slots' two trips most of all), but
 * the all-to-all only up to SHMC_ONESTEP_MAX of each rank's data (beyond it the round
 * measured slower than the slots; the commits that made these have the figures). The
 * same answer on every member that made the same call. */
int shmc__wround_blocking(int coll, const struct shmc__cx *x, size_t count);
/* A blocking reduce or gather by `shm` on the world that does not fit a round (its
 * members that only publish into their slots would otherwise leave without waiting)
 * enters one of the world's rounds before it starts: so that every member takes the same
 * rounds whichever way its call goes, and a member whose call went by a round (it passed
 * another count) is found there by all of them together, before any slot is written. A
 * synchronisation more for such a call, which copies more than a round carries. SHMC_OK
 * elsewhere; else shmc__onestep_world_enter's outcome. */
int shmc__wround_pass(const struct shmc__cx *x);
/* Runs such a call (shmc__wround_blocking said yes): SHMC_OK, SHMC_ERR_MISMATCH on every
 * member alike, or the error of a member that left or quit (onestep.h). */
int shmc__wround_run(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf,
                     size_t count);

#endif /* SHMC_WROUND_H */
