/*
 * The shared staging slots: one per rank in the arena (arena.h), written only by its
 * owner and read by the members of whatever communicator the owner publishes for.
 *
 * A publication is a round of one communicator. Its stamp is the communicator's uid
 * (high 32 bits) and round number (low 32 bits); every member counts rounds the same
 * way, whether or not it publishes in a given round, so a reader knows the exact stamp
 * it waits for. Uids are never reused by any member (coll/comm.c), so a stamp left over
 * from a freed communicator can never pass for a new one's.
 *
 * Reuse: the owner remembers which ranks its publication is for (slot_readers) and its
 * stamp; each reader stores that stamp into its own word of the slot's `done` array when
 * it no longer needs the data. The owner writes its slot again only when every reader's
 * word holds its last stamp, which it usually does by the next collective, so the wait
 * costs a load per reader. A reader that has left the job (finalized, died) is excused:
 * it reads nothing any more, so overwriting is safe, and a member that left after doing
 * its part of a collective (reading what it needed) must not fail the others' next one.
 * (A count of reads, as before, could not tell a reader that left after reading from one
 * that left before.) A reader's done covers everything the owner published since it
 * last acquired its slot (the two-phase all-reduce publishes twice).
 *
 *   owner                               reader
 *   wait done[r] == stamp, all r (A6)   wait stamp >= expected   (A5)
 *   write data                          read data
 *   stamp = s                (R5)       done[me] = stamp         (R6)
 *
 * R5 pairs with A5: the data is visible before the stamp that announces it.
 * R6 pairs with A6: the reader's loads of the data are done before the owner's next
 * stores to it. Waiters sleep on their doorbell; each side notifies the other after
 * publishing (wait.h), and every wait watches the job and the peers it depends on.
 */
#include <string.h>

#include "../wait.h"
#include "coll.h"

static struct shmc__slot *slot_of(const struct shmc__cx *x, int r)
{
    return shmc__arena_slot(&shmc__g.arena, (unsigned)shmc__comm_world_rank(x->c, r));
}

uint64_t shmc__slot_next(struct shmc__comm *c)
{
    c->round++;
    return ((uint64_t)c->uid << 32) | c->round;
}

struct slot_wait {
    const struct shmc__cx *x;
    shmc_atomic_u64 *stamp; /* waiting for a stamp, or (NULL) for our readers */
    uint64_t want;
    int peer; /* the comm rank we depend on */
    int err;
};

/* Has world rank w left the job (finalized, died) or broken its mailboxes? */
static int left(int world)
{
    const struct shmc__peer *p = &shmc__g.peers[world];
    return p->gone || p->broken;
}

static int lost(struct slot_wait *w, int world)
{
    if (!left(world))
        return 0;
    w->err = shmc__g.peers[world].broken ? SHMC_ERR_CORRUPT : SHMC_ERR_PEER_DEAD;
    return 1;
}

/* Has every reader of our last publication finished with it, or left the job? */
static int readers_done(void)
{
    struct shmc__global *g = &shmc__g;
    for (unsigned i = 0; i < SHMC_MAX_RANKS / 64; i++) {
        for (uint64_t want = g->slot_readers[i]; want; want &= want - 1) {
            unsigned r = i * 64 + (unsigned)__builtin_ctzll(want);
            /* A6 pairs with R6: this reader's loads are done before we write again. */
            if (shmc__load_acquire64(&g->slot->done[r]) == g->slot_stamp)
                continue;
            if (!left((int)r))
                return 0;
        }
    }
    return 1;
}

static int slot_ready(void *arg)
{
    struct slot_wait *w = arg;
    if (!w->stamp)
        return readers_done();
    /* A5 pairs with R5: the owner's data is visible once its stamp is. */
    uint64_t s = shmc__load_acquire64(w->stamp);
    if ((s >> 32) == (w->want >> 32) && (int32_t)((uint32_t)s - (uint32_t)w->want) >= 0)
        return 1;
    /* The owner, gone without publishing what we wait for? */
    return shmc__g.ngone && lost(w, shmc__comm_world_rank(w->x->c, w->peer));
}

static int slot_block(struct slot_wait *w)
{
    if (slot_ready(w))
        return w->err;
    int rc = shmc__wait_pred(slot_ready, w, SHMC_BLK_COLL);
    return rc != SHMC_OK ? rc : w->err;
}

int shmc__slot_acquire(const struct shmc__cx *x, uint8_t **data)
{
    struct shmc__global *g = &shmc__g;
    struct slot_wait w = {.x = x, .peer = -1};
    *data = shmc__slot_data(g->slot);
    int rc = slot_block(&w);
    if (rc == SHMC_OK)
        memset(g->slot_readers, 0, sizeof g->slot_readers);
    return rc;
}

void shmc__slot_publish(const struct shmc__cx *x, uint64_t stamp, int reader)
{
    struct shmc__global *g = &shmc__g;
    g->slot_stamp = stamp;
    /* R5 pairs with A5 (slot_ready): the data is written before the stamp. */
    shmc__store_release64(&g->slot->stamp, stamp);
    for (int r = 0; r < x->n; r++) {
        if (r == x->me || (reader >= 0 && r != reader))
            continue;
        int w = shmc__comm_world_rank(x->c, r);
        g->slot_readers[w / 64] |= 1ull << (w % 64);
        shmc__notify(g->peers[w].cb, g->fenced);
    }
}

int shmc__slot_wait(const struct shmc__cx *x, int owner, uint64_t stamp, const uint8_t **data)
{
    struct shmc__slot *s = slot_of(x, owner);
    struct slot_wait w = {.x = x, .stamp = &s->stamp, .want = stamp, .peer = owner};
    *data = shmc__slot_data(s);
    return slot_block(&w);
}

void shmc__slot_done(const struct shmc__cx *x, int owner)
{
    struct shmc__global *g = &shmc__g;
    struct shmc__slot *s = slot_of(x, owner);
    /* The stamp we waited for is still the slot's: its owner publishes again only after
     * this store. R6 pairs with A6 (readers_done): our reads of its data are finished. */
    shmc__store_release64(&s->done[g->rank], shmc__load_relaxed64(&s->stamp));
    shmc__notify(g->peers[shmc__comm_world_rank(x->c, owner)].cb, g->fenced);
}
