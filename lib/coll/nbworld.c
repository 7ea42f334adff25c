/*
 * The world's nonblocking all-reduce and barrier (nbworld.h), on shared memory as its
 * blocking ones: the one-step rounds for a barrier and small vectors, the staging buffers
 * for large ones, as dispatch.c picks for the blocking call. A schedule of messages
 * (sched.c) cost a small all-reduce three times the blocking call's time and a large one
 * twice (bench/coll_bench --nonblocking): messages go through mailboxes and matching, and
 * recursive doubling moves and combines the whole vector on every rank.
 *
 * They take the world's second lane of rounds and buffers (coll.h), so that they are
 * numbered apart from the blocking calls, which a member may interleave with them
 * otherwise than the others. Within the lane every member takes the rounds in the order
 * of its nonblocking calls on the world, which MPI makes the same everywhere: the calls
 * queue in co->nbw and only the first moves. A rank that is not in the library holds the
 * others up, as in a blocking collective: nothing moves without a call (docs/collectives.md).
 *
 * Each step is the blocking algorithm's, with its waits for a round turned into a post
 * (wsync.h) and looks from progress: the same reads, writes and reduction order, so the
 * same bits as the blocking call. A member gone or quit ends the call with its error and
 * quits the world's collectives (as the blocking rounds do); a mismatch, seen by every
 * member in the same round, ends it with SHMC_ERR_MISMATCH on all.
 */
#include "coll/nbworld.h"

#include <stdlib.h>

#include "base/copy.h"
#include "base/list.h"
#include "base/log.h"
#include "base/userop.h"
#include "coll/callword.h"
#include "coll/dispatch.h"
#include "coll/onestep.h"
#include "p2p/request.h"

enum { BY_ROUNDS = 1, BY_STAGE = 2 };

struct nbw {
    struct shmc__link link; /* in co->nbw, in the order of the calls */
    struct shmc__cx x;
    int how;     /* BY_ROUNDS or BY_STAGE */
    int barrier; /* a barrier: one round, no data */
    const uint8_t *in;
    uint8_t *out;
    size_t count;
    size_t e;   /* BY_ROUNDS: the current chunk's first element */
    int posted; /* BY_ROUNDS: its round is entered */
    struct shmc__wsync_look look;
    struct shmc__stage_run st;
};

int shmc__nbw_takes(int coll, const struct shmc__cx *x, size_t count)
{
    if (!shmc__cx_world(x) || x->n < 2 || x->dev)
        return 0;
    if (coll == SHMC_C_BARRIER)
        return shmc__coll_pick(coll, x, 0) == SHMC_A_SHM ? BY_ROUNDS : 0;
    if (coll != SHMC_C_ALLREDUCE || !count)
        return 0;
    int algo = shmc__coll_pick(coll, x, count * x->es);
    if (algo == SHMC_A_STAGE)
        return BY_STAGE;
    return algo == SHMC_A_SHM && count * x->es <= SHMC_ONESTEP_MAX ? BY_ROUNDS : 0;
}

/* Calls ended keep their memory here for the next ones (a small all-reduce is a few
 * hundred nanoseconds, of which an allocation and its clearing were a tenth). */
#define SPARE_MAX 8
static struct nbw *spare[SPARE_MAX];
static int nspare;

static struct nbw *nbw_get(void)
{
    return nspare ? spare[--nspare] : malloc(sizeof(struct nbw));
}

static void nbw_put(struct nbw *w)
{
    shmc__userop_hold(w->x.op, -1);
    if (nspare < SPARE_MAX)
        spare[nspare++] = w;
    else
        free(w);
}

/* Elements of one round's chunk (a round carries SHMC_ONESTEP_MAX bytes). */
static size_t round_elems(const struct nbw *w)
{
    return SHMC_ONESTEP_MAX / w->x.es;
}

/* One-step rounds, a chunk each: every rank's chunk into its half, then combined from all
 * halves in rank order (onestep.c's all-reduce, chunk by chunk). 1 once ended (*rc). */
static int by_rounds(struct nbw *w, int *rc)
{
    const struct shmc__cx *x = &w->x;
    struct shmc__coll *co = x->co;
    struct shmc__lane *l = &co->lane[SHMC_LANE_NB];
    for (;;) {
        size_t len = w->barrier ? 0 : shmc__chunk(w->count, w->e, round_elems(w));
        size_t at = w->e * x->es, bytes = len * x->es;
        if (!w->posted) {
            uint64_t r = shmc__wsync_next(l);
            if (bytes)
                shmc__copy(shmc__wsync_mine(l, r), w->in + at, bytes);
            shmc__wsync_post(co, l, r, shmc__wsync_tag(x->hash), &w->look);
            w->posted = 1;
        }
        if (!shmc__wsync_look(&w->look))
            return 0;
        if ((*rc = shmc__onestep_world_outcome(x, &w->look)) != SHMC_OK)
            return 1;
        if (bytes)
            shmc__onestep_world_combine(x, l, w->look.want, w->out + at, len);
        w->posted = 0;
        w->e += len;
        if (w->e >= w->count)
            return 1;
    }
}

/* The driven request's poll (p2p.h): only the first queued call moves. */
static int poll(void *arg, int *err)
{
    struct nbw *w = arg;
    struct shmc__coll *co = w->x.co;
    if (shmc__list_first(&co->nbw) != &w->link)
        return 0;
    int rc = SHMC_OK, over;
    if (w->how == BY_STAGE) {
        over = shmc__stage_step(&w->st, &rc);
        if (over && rc == SHMC_STAGE_REFUSED) {
            /* Every rank learnt it in the same round: all go on by rounds. */
            w->how = BY_ROUNDS;
            over = by_rounds(w, &rc);
        }
    } else {
        over = by_rounds(w, &rc);
    }
    if (!over)
        return 0;
    shmc__list_remove(&w->link);
    *err = rc;
    nbw_put(w);
    return 1;
}

int shmc__nbw_start(int how, int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf,
                    size_t count)
{
    struct shmc__request **req = x->nb;
    struct shmc__coll *co = x->co;
    *req = NULL;
    if (x->c->quit)
        return x->c->quit;
    struct nbw *w = nbw_get();
    if (!w)
        return SHMC_ERR_NOMEM;
    w->x = *x;
    w->x.nb = NULL;
    w->how = how;
    w->barrier = coll == SHMC_C_BARRIER;
    w->in = sbuf;
    w->out = rbuf;
    w->count = w->barrier ? 0 : count;
    w->e = 0;
    w->posted = 0;
    if (co->check) {
        /* The words of the blocking call, marked as nonblocking for messages. */
        shmc__call_words((unsigned)coll, x, count, w->x.call);
        w->x.call[1] |= SHMC_CALL_NONBLOCKING;
        w->x.hash = shmc__call_hash(w->x.call);
    }
    if (how == BY_STAGE)
        w->st = (struct shmc__stage_run){.x = &w->x, .in = sbuf, .out = rbuf, .count = count};
    int rc = shmc__post_driven(co->p2p, poll, w, x->c, 0, req);
    if (rc != SHMC_OK) {
        free(w);
        return rc;
    }
    shmc__userop_hold(x->op, 1); /* the program may free it before the call ends */
    shmc__list_push(&co->nbw, &w->link);
    /* What it can do now: its first round entered, if no call is ahead of it. */
    int err;
    if (poll(w, &err))
        shmc__req_complete(&co->p2p->reqs, *req, err);
    return SHMC_OK;
}

void shmc__nbw_release(struct shmc__coll *co)
{
    struct shmc__link *l, *tmp;
    if (!co->nbw.next)
        return;
    shmc__list_each(&co->nbw, l, tmp)
    {
        struct nbw *w = shmc__link_entry(l, struct nbw, link);
        shmc__list_remove(l);
        shmc__userop_hold(w->x.op, -1);
        free(w);
    }
    while (nspare)
        free(spare[--nspare]);
}
