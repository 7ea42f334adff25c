/*
 * The rooted nonblocking collectives through the slots of the world's nonblocking lane, or
 * of another communicator's slot entry (nbslot.c, nbcomm.h), as the blocking broadcast and reduce
 * move small and middle-sized calls through theirs: one publication per call, which its readers
 * copy out when progress finds it, without a round that waits for every member.
 */
#ifndef SHMC_NBSLOT_H
#define SHMC_NBSLOT_H

#include <stddef.h>
#include <stdint.h>

#include "coll/wround.h"

/* Which calls go through the slots: a broadcast, reduce or gather beyond 2 ranks
 * (shmc__nbs_rooted; on the world, or a communicator with a slot entry: nbcomm.h), whose rounds
 * would wait for every member where these wait for the root or for the root's inputs (nbworld.h),
 * where the root sends or takes more than SHMC_NBS_MIN bytes (a broadcast's vector, the n vectors
 * of a reduce or blocks of a gather) and one publication holds a rank's part (SHMC_SLOT_BYTES: the
 * vector of a broadcast or reduce, a gather's block). Below SHMC_NBS_MIN a schedule of messages
 * leads: a message waits in a mailbox for its reader, where the owner of a slot waits for the
 * readers of its last publication but one before it writes again, and with more ranks
 * than cores back-to-back small calls then cost a reader's turn on a CPU each. A scatter never
 * goes through them: its root sends each member one block, so a slot saves it no copy and
 * only adds that wait (docs/collectives.md has the measurements). */
#define SHMC_NBS_MIN ((size_t)8 << 10)
/* The fewest ranks whose calls go through the slots: at 2 the world's rooted calls take
 * the lane's rounds (nbworld.h), another communicator's one message or exchange (nbc.h). */
#define SHMC_NBS_RANKS_MIN 3
int shmc__nbs_rooted(int coll, const struct shmc__cx *x);
/* May call x of collective coll (count elements: an all-reduce's vector, a block of the
 * others) go through the slots with every member publishing its input for every other, which
 * each combines in rank order or copies its part of, as the blocking call's `shm` does in one
 * step: an all-reduce that the blocking call combines in one phase (SHMC_SHM_ONE_PHASE_MAX),
 * an all-gather whose block, a reduce-scatter or all-to-all whose n blocks one publication
 * holds, beyond 2 ranks, none of count 0. The rules' choice decides the rest (nbcomm.h); only
 * a communicator's slot entry takes them, the world's lane going by its rounds. */
int shmc__nbs_everyone(int coll, const struct shmc__cx *x, size_t count);
int shmc__nbs_takes(int coll, const struct shmc__cx *x, size_t count);
/* Does a call of that collective that runs as a schedule take the slots' gate (more than
 * SHMC_NBS_MIN bytes: past the slots' limit)? Below SHMC_NBS_MIN no call does: it takes a
 * stamp marked as a schedule's (shmc__nbs_mark), so that a member whose same call has a
 * count on the other side of SHMC_NBS_MIN, one going through the slots and one by
 * messages, finds that once it has slept a slice (shmc__slot_nb_crossed). */
int shmc__nbs_gated(int coll, const struct shmc__cx *x, size_t count);

/* A call that runs as a schedule without a gate, of a collective that goes through x's
 * slots at other counts (a rooted one on the world or a communicator with a slot entry, an
 * exchange on the latter): its stamp, taken as a schedule's (shmc__slot_nb_next), so that
 * the members' stamps stay in step and one whose same call went through the slots finds it
 * (shmc__slot_nb_crossed); 0 for any other. */
uint64_t shmc__nbs_mark(int coll, const struct shmc__cx *x);

/* One call through the slots, or its gate (no data: the call's words alone, for a call that
 * runs as a schedule at another count). */
struct shmc__nbs {
    const struct shmc__wround *b;
    uint64_t stamp;
    int gate;
    int put; /* this rank's part published */
    int q;   /* the next owner whose publication it waits for */
    uint8_t *mine; /* where this rank's publication is written, once acquired */
};
/* Takes the call's stamp: in the order of the nonblocking calls on its communicator. */
void shmc__nbs_begin(struct shmc__nbs *s, const struct shmc__wround *b, int gate);
/* Moves s along without waiting: 1 once ended (*rc: SHMC_OK or the error that ended it,
 * after which this rank has quit the communicator's collectives), 0 while it waits. */
int shmc__nbs_step(struct shmc__nbs *s, int *rc);

#endif /* SHMC_NBSLOT_H */
