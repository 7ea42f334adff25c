/*
 * The nonblocking calls of communicators other than the world through slots of their own
 * (nbcomm.c): each rank keeps SHMC_SLOT_ENTRIES slot entries (shm/arena.h), and a
 * communicator of more than two ranks takes one at its making, the same index on every
 * member, where every member has that one free.
 */
#ifndef SHMC_NBCOMM_H
#define SHMC_NBCOMM_H

#include <stddef.h>
#include <stdint.h>

#include "coll/cx.h"
#include "coll/dispatch.h"
#include "coll/nbslot.h"

/* The entries this rank offers to a communicator of up to n ranks being made (a bit per
 * index): none where n is too few for the slots (SHMC_NBS_RANKS_MIN); else those no living
 * communicator holds, whose readers are done with what was published there, and which no
 * other making in flight offered. Reserves the entries the first time (none offered where
 * they cannot be). Each offer is then settled by shmc__nbcomm_take, on this rank's new
 * communicator or on none. */
uint32_t shmc__nbcomm_offer(struct shmc__coll *co, int n);
/* Settles offer `mine`: where c (NULL: this rank is not a member) has ranks enough for the
 * slots and `agreed` (the members' offers, ANDed) names an entry, c takes its lowest. Every
 * member finds the same. */
void shmc__nbcomm_take(struct shmc__coll *co, struct shmc__comm *c, uint32_t mine, uint32_t agreed);

/* Does nonblocking call x of collective coll (count elements; bytes: what the rules size it
 * by) go through its communicator's slot entry (the same answer on every member)? On a
 * communicator with an entry, of host memory: a broadcast, reduce or gather that would go
 * through the world's slots on a world of x's size, and an all-reduce, reduce-scatter,
 * all-gather or all-to-all that the slots take in one step (nbslot.h) where the blocking
 * call's rule gives `shm`,
 * which runs it so (a nonblocking call's way follows the blocking call's rule: the rest
 * go as schedules of messages). Not for a blocking call's own schedule, nor a persistent
 * collective, which schedules match by the number it was made with. */
static inline int shmc__nbcomm_takes(int coll, const struct shmc__cx *x, size_t count, size_t bytes)
{
    if (!x->cc->entry || x->dev)
        return 0;
    if (shmc__nbs_rooted(coll, x))
        return shmc__nbs_takes(coll, x, count);
    return shmc__nbs_everyone(coll, x, count) && shmc__coll_pick(coll, x, bytes) == SHMC_A_SHM;
}
/* Starts it as *x->nb: queued behind the communicator's earlier ones, which publish and
 * read first. SHMC_OK, SHMC_ERR_NOMEM, or the communicator's collectives' failure. */
int shmc__nbcomm_start(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf,
                       size_t count);
/* Frees what calls still in flight hold (shmc_finalize, after p2p has freed their
 * requests and communicators). */
void shmc__nbcomm_release(struct shmc__coll *co);

#endif /* SHMC_NBCOMM_H */
