/*
 * One-step collectives of the world communicator through the world-sync blocks
 * (arena.h): each rank publishes the number of the round it entered, with its input in
 * data half (round & 1), and waits until every other rank has entered the same round.
 * A barrier is exactly that; a small all-reduce then combines every rank's half in rank
 * order, so every rank computes the same bits (the order of the shm algorithm).
 *
 *   rank                                   every other rank
 *   write input to half (r & 1)            wait round >= r          (A7)
 *   round = r                  (R7)        read half (r & 1)
 *
 * R7 pairs with A7: the input is visible before the round number that announces it.
 *
 * Why no reader ever acknowledges (the slots' R6/A6 is not needed): a rank writes half
 * (r & 1) again in round r + 2 only after finishing round r + 1, that is after seeing
 * every other rank enter round r + 1, which each did only after finishing round r and
 * so its reads of round r's halves. Round numbers only grow and only world collectives
 * count them, and every rank calls those in the same order, so ">=" comparisons between
 * ranks' counters are exact. This is why these blocks serve the world communicator only:
 * with several communicators sharing one counter, a rank could not tell from another's
 * counter which communicator's round it had finished.
 *
 * The cost is one store and one line read per other rank, with no read-modify-write and
 * no second synchronisation; ranks that sleep are woken after the store (wait.h).
 */
#include <string.h>

#include "../wait.h"
#include "coll.h"

struct wsync_wait {
    uint64_t want;
    int next; /* the first rank not yet seen at `want` */
    int err;
};

static int all_entered(void *arg)
{
    struct wsync_wait *w = arg;
    struct shmc__global *g = &shmc__g;
    for (; w->next < g->size; w->next++) {
        if (w->next == g->rank)
            continue;
        struct shmc__wsync *o = shmc__arena_wsync(&g->arena, (unsigned)w->next);
        /* A7 pairs with R7: that rank's input for this round is visible. */
        if (shmc__load_acquire64(&o->round) < w->want)
            break;
    }
    if (w->next >= g->size)
        return 1;
    /* The rank we wait for left or broke before entering this round. */
    const struct shmc__peer *p = &g->peers[w->next];
    if (g->ngone && (p->gone || p->broken)) {
        w->err = p->broken ? SHMC_ERR_CORRUPT : SHMC_ERR_PEER_DEAD;
        return 1;
    }
    return 0;
}

/* Every rank not yet in the round last ran on another CPU than ours. Such a rank needs
 * only to be scheduled there (if it waits, it waits for the round before, which is
 * complete), so yielding ours would only run a neighbour that may be waiting too. */
static int others_far(void *arg, uint32_t cpu)
{
    struct wsync_wait *w = arg;
    struct shmc__global *g = &shmc__g;
    for (int q = w->next; q < g->size; q++) {
        if (q == g->rank)
            continue;
        struct shmc__wsync *o = shmc__arena_wsync(&g->arena, (unsigned)q);
        /* Relaxed: only a hint; all_entered takes the acquire. */
        if (shmc__load_relaxed64(&o->round) < w->want &&
            !shmc__runs_elsewhere(g->peers[q].cb, cpu))
            return 0;
    }
    return 1;
}

int shmc__wsync_enter(uint64_t r)
{
    struct shmc__global *g = &shmc__g;
    /* R7 pairs with A7 (all_entered): our input is written before the round number. */
    shmc__store_release64(&g->wsync->round, r);
    for (int q = 0; q < g->size; q++)
        if (q != g->rank)
            shmc__notify(g->peers[q].cb, g->fenced);
    struct wsync_wait w = {.want = r};
    if (all_entered(&w))
        return w.err;
    int rc = shmc__wait_pred_hint(all_entered, others_far, &w, SHMC_BLK_COLL);
    return rc != SHMC_OK ? rc : w.err;
}

int shmc__wsync_barrier(const struct shmc__cx *x)
{
    (void)x;
    return shmc__wsync_enter(++shmc__g.wround);
}

int shmc__wsync_allreduce(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    struct shmc__global *g = &shmc__g;
    size_t bytes = count * x->es;
    uint64_t r = ++g->wround;
    unsigned h = (unsigned)(r & 1);
    memcpy(shmc__wsync_data(g->wsync, h), sbuf, bytes);
    int rc = shmc__wsync_enter(r);
    if (rc != SHMC_OK)
        return rc;
    for (int q = 0; q < x->n; q++) {
        const uint8_t *src = shmc__wsync_data(shmc__arena_wsync(&g->arena, (unsigned)q), h);
        if (q == 0)
            memcpy(rbuf, src, bytes);
        else
            shmc__reduce(rbuf, src, count, x->dt, x->op, SHMC_ACC_LEFT);
    }
    shmc__reduce_finish(rbuf, count, x->dt, x->op, x->n);
    return SHMC_OK;
}
