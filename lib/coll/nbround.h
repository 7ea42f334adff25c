/*
 * What each collective of equal blocks puts into a world round of the nonblocking lane
 * and takes out of it once every rank has entered (nbround.c): the data half of the
 * nonblocking world calls that run by rounds (nbworld.c), chunk by chunk.
 *
 * A round carries, of every block the call moves, the elements [e, e + len): len is at
 * most shmc__nbr_elems (a rank's half holds SHMC_WSYNC_NB_BYTES, shared by the n
 * blocks of a call that sends one to each rank). Every member puts before it enters and
 * takes after the round, and a round touches only its own chunk of each block, so calls
 * in place need no copy of their own: a chunk is read into the half before the same
 * chunk of the result is written.
 */
#ifndef SHMC_NBROUND_H
#define SHMC_NBROUND_H

#include <stddef.h>
#include <stdint.h>

#include "coll/cx.h"

/* One call's buffers, as run() in entry.h passes them (algos.h). */
struct shmc__nbr {
    int coll; /* SHMC_C_* */
    const struct shmc__cx *x;
    const uint8_t *sbuf;
    uint8_t *rbuf;
    size_t count; /* elements of each block */
};

/* Elements of each block that one round carries; 0 when not even one element of each of
 * the call's blocks fits a half. */
size_t shmc__nbr_elems(int coll, const struct shmc__cx *x);
/* This rank's part of chunk [e, e + len) into its half of round r of the nonblocking lane. */
void shmc__nbr_put(const struct shmc__nbr *b, uint64_t r, size_t e, size_t len);
/* The result's chunk [e, e + len) out of round r, once every rank has entered it. */
void shmc__nbr_take(const struct shmc__nbr *b, uint64_t r, size_t e, size_t len);

#endif /* SHMC_NBROUND_H */
