/*
 * The shared staging slots (slot.c has the protocol).
 */
#ifndef SHMC_SLOT_H
#define SHMC_SLOT_H

#include <stddef.h>
#include <stdint.h>

#include "coll/cx.h"

/* The stamp of the communicator's next round: uid in the high half, round in the low. */
uint64_t shmc__slot_next(const struct shmc__cx *x);
/* Where this rank writes its publication `stamp` of `bytes` (at most SHMC_SLOT_BYTES) for
 * x's blocking call, once every reader of what lay there has finished with it (slot.c:
 * where the job shares CPUs, two publications at once, each in a half but those of more
 * than a half). */
int shmc__slot_acquire(const struct shmc__cx *x, uint64_t stamp, size_t bytes, uint8_t **data);
/* Publishes it with x's call words, to be read by one comm rank (reader) or by every other
 * member (-1); each calls shmc__slot_done once. */
void shmc__slot_publish(const struct shmc__cx *x, uint64_t stamp, size_t bytes, int reader);
/* Waits until comm rank owner has published `stamp` of `bytes` (or a later round of this
 * communicator) and returns where it lies. If the owner published it for another call
 * than x's (callword.h), says so and quits: SHMC_ERR_MISMATCH. */
int shmc__slot_wait(const struct shmc__cx *x, int owner, uint64_t stamp, size_t bytes,
                    const uint8_t **data);
/* The same, returning the owner's call words in call rather than comparing them; but a
 * publication for another call of the communicator than x's (the owner published nothing
 * for x's round: slot.c, other_place) fails as above. */
int shmc__slot_wait_call(const struct shmc__cx *x, int owner, uint64_t stamp, size_t bytes,
                         const uint8_t **data, uint64_t call[2]);
/* After a failed round `stamp`: waits until every other member has published it (or a
 * later one), left the job, or quit the communicator's collectives, so that none still
 * does what it does before publishing (the device all-reduce's kernels write into this
 * rank's buffers). */
int shmc__slot_settle(const struct shmc__cx *x, uint64_t stamp);
/* This rank is done reading owner's publication `stamp` (and every earlier one). */
void shmc__slot_done(const struct shmc__cx *x, int owner, uint64_t stamp);
/* out = in_0 OP in_1 OP ... in rank order, left to right, over len elements at element
 * offset eoff of every member's publication `stamp` of `bytes` (this rank's from own, its
 * slot or its input where it may: shmc__own_part, cx.h); host memory,
 * not AVG-finished. With hand_back, done with each member's slot as soon as it is read
 * (shmc__slot_done), so that its owner may publish again while this rank waits for the
 * others'; without, the caller reads them again and hands them back itself. */
int shmc__slot_combine(const struct shmc__cx *x, uint64_t stamp, size_t bytes, const uint8_t *own,
                       size_t eoff, size_t len, uint8_t *out, int hand_back);
/* shmc__slot_done for every other member. */
void shmc__slot_done_all(const struct shmc__cx *x, uint64_t stamp);

/* The nonblocking calls' slots (nbslot.c): the same protocol on the world's lane's own
 * slots, or on a communicator's slot entry (shm/arena.h, nbcomm.c), each step without
 * waiting, two publications at once (slot.c). Stamps count the publications there: every
 * member takes one per call, in the order of its nonblocking calls on the communicator. A
 * publication's place in the slot follows from its stamp and its bytes (at most
 * SHMC_SLOT_BYTES), which its readers pass too. */
uint64_t shmc__slot_nb_next(const struct shmc__cx *x, int sched);
/* A call of x's communicator that could have gone through its slots takes a stamp either way
 * (sched: it runs as a schedule of messages), and the owner's slot keeps which way its last
 * ones went (shmc__slot_ways). A member whose call waits (stamp, its way sched) and has slept
 * a slice looks there: a member whose same call went the other way made another call (the
 * way is a function of the call), for which this one may wait for ever (a broadcast's root
 * through the slots ends at publishing, while a member by messages waits for a message).
 * Says so, quits the communicator's collectives and returns 1; 0 where none did. */
int shmc__slot_nb_crossed(const struct shmc__cx *x, uint64_t stamp, int sched);
/* Hands a wait on such a call, published in out, that look for the call's stamp and way
 * (sched: as a schedule), held there by value (p2p.h's struct shmc__incall, crossed). */
void shmc__slot_nb_looks(struct shmc__incall *out, struct shmc__coll *co, uint64_t stamp,
                         int sched);
/* 1 once this rank's slot has room for publication `stamp` of `bytes` (every reader of what
 * was there done, left or quit), where to write it in *data; 1 with an error in *err when
 * this rank quit the communicator's collectives; 0 while a reader still reads. */
int shmc__slot_nb_acquire(const struct shmc__cx *x, uint64_t stamp, size_t bytes, uint8_t **data,
                          int *err);
void shmc__slot_nb_publish(const struct shmc__cx *x, uint64_t stamp, size_t bytes, int reader);
/* 1 once comm rank owner has published `stamp` (or later: shmc__slot_nb_theirs); 1 with an
 * error in *err when the owner left without publishing it, this rank quit, or the owner
 * published it for another call (SHMC_ERR_MISMATCH, said); 0 while not yet published. */
int shmc__slot_nb_wait(const struct shmc__cx *x, int owner, uint64_t stamp, int *err);
/* Done with owner's publication `stamp`: its owner may write there again. */
void shmc__slot_nb_done(const struct shmc__cx *x, int owner, uint64_t stamp);
/* Have the readers of what o's slot holds (an entry's, nbcomm.c) all finished with it,
 * left the job, or quit the communicator it was for? */
int shmc__slot_nb_drained(const struct shmc__coll *co, const struct shmc__slot_own *o);
/* Comm rank owner's publication `stamp` of `bytes`, once shmc__slot_nb_wait has seen it. */
const uint8_t *shmc__slot_nb_theirs(const struct shmc__cx *x, int owner, uint64_t stamp,
                                    size_t bytes);

#endif /* SHMC_SLOT_H */
