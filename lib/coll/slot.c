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
 * Reuse: the owner adds the number of readers to a private count at each publication;
 * each reader adds 1 to the slot's shared `reads` when it no longer needs the data. The
 * owner writes its slot again only when `reads` has caught up, which it usually has by
 * the next collective, so the wait costs one load.
 *
 *   owner                               reader
 *   wait reads == expect     (A6)       wait stamp >= expected   (A5)
 *   write data                          read data
 *   stamp = s                (R5)       reads += 1               (R6)
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
    shmc_atomic_u64 *stamp; /* waiting for a stamp, or */
    uint64_t want;
    shmc_atomic_u32 *reads; /* waiting for reads */
    int peer;               /* the comm rank we depend on, or -1 for all members */
    int err;
};

static int lost(struct slot_wait *w, int world)
{
    const struct shmc__peer *p = &shmc__g.peers[world];
    if (!p->gone && !p->broken)
        return 0;
    w->err = p->broken ? SHMC_ERR_CORRUPT : SHMC_ERR_PEER_DEAD;
    return 1;
}

/* Is a rank we depend on gone without giving us what we wait for? The owner, when
 * waiting for a stamp; any rank that may still owe a read, when waiting for readers. */
static int peer_lost(struct slot_wait *w)
{
    struct shmc__global *g = &shmc__g;
    if (!g->ngone)
        return 0;
    if (w->peer >= 0)
        return lost(w, shmc__comm_world_rank(w->x->c, w->peer));
    for (int r = 0; r < g->size; r++)
        if ((g->slot_readers[r / 64] >> (r % 64) & 1) && lost(w, r))
            return 1;
    return 0;
}

static int slot_ready(void *arg)
{
    struct slot_wait *w = arg;
    if (w->stamp) {
        /* A5 pairs with R5: the owner's data is visible once its stamp is. */
        uint64_t s = shmc__load_acquire64(w->stamp);
        if ((s >> 32) == (w->want >> 32) && (int32_t)((uint32_t)s - (uint32_t)w->want) >= 0)
            return 1;
    } else {
        /* A6 pairs with R6: the readers' loads are done before we write again. */
        if (shmc__load_acquire32(w->reads) == shmc__g.slot_expect)
            return 1;
    }
    return peer_lost(w);
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
    struct slot_wait w = {.x = x, .reads = &g->slot->reads, .peer = -1};
    *data = shmc__slot_data(g->slot);
    int rc = slot_block(&w);
    if (rc == SHMC_OK)
        memset(g->slot_readers, 0, sizeof g->slot_readers);
    return rc;
}

void shmc__slot_publish(const struct shmc__cx *x, uint64_t stamp, unsigned nreaders, int reader)
{
    struct shmc__global *g = &shmc__g;
    g->slot_expect += nreaders;
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
    /* R6 pairs with A6 (slot_ready): our reads of its data are finished. */
    shmc__fetch_add32(&s->reads, 1);
    shmc__notify(g->peers[shmc__comm_world_rank(x->c, owner)].cb, g->fenced);
}
