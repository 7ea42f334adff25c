/*
 * Slots for the nonblocking calls of communicators other than the world (nbcomm.h).
 *
 * Their broadcasts, reduces and gathers publish and read through nbslot.c, as the world's
 * do in its lane's slots, and so do their small all-reduces, reduce-scatters, all-gathers
 * and all-to-alls, which the world runs by its rounds: rather than as schedules of
 * messages, whose root copies each member's block out of its mailbox before it combines
 * or keeps it, whose rings wait for a neighbour at every step, and whose exchanges copy
 * each block twice (docs/collectives.md has the measurements). Not
 * in a slot shared with other communicators: that deadlocks programs that start calls on
 * different communicators in different orders, as MPI allows (docs/design.md). So each
 * communicator takes a slot entry of its own, the same index on every member, agreed at
 * its making (split.c, members.c) from what each member offers: entries no living
 * communicator of its holds and that no reader still reads. A communicator made when no
 * entry is free on every member, or with too few ranks, runs its calls as schedules.
 *
 * A freed communicator's entry is not given back at its free (the point-to-point layer
 * frees communicators, and calls nothing above it): a later making finds the communicator
 * gone from the living ones and offers the entry again, once every reader of what was
 * published there has read it, left or quit. A new holder's stamps carry its own uid, so
 * nothing published for the old one passes for its publications.
 *
 * The calls of one communicator publish and read in the order they were made (slot.c: a
 * reader's done word covers every earlier publication of its owner): they queue on the
 * communicator, and only the first moves, as the world's lane does.
 */
#include "coll/nbcomm.h"

#include <stdlib.h>
#include <string.h>

#include "base/userop.h"
#include "coll/callword.h"
#include "coll/linger.h"
#include "coll/sched.h"
#include "coll/slot.h"
#include "p2p/request.h"

/* Is a communicator with that uid alive on this rank? */
static int alive(struct shmc__p2p *p, uint32_t uid)
{
    struct shmc__link *head = &p->comms.list;
    for (struct shmc__link *l = head->next; l != head; l = l->next)
        if (shmc__link_entry(l, struct shmc__comm, link)->uid == uid)
            return 1;
    return 0;
}

uint32_t shmc__nbcomm_offer(struct shmc__coll *co, int n)
{
    if (n < SHMC_NBS_RANKS_MIN)
        return 0;
    if (!co->entries)
        co->entries =
            shmc__arena_entries_reserve(co->arena, (unsigned)co->rank) == SHMC_OK ? 1 : -1;
    if (co->entries < 0)
        return 0;
    uint32_t mask = 0;
    for (unsigned i = 0; i < SHMC_SLOT_ENTRIES; i++) {
        if (co->entry_offered >> i & 1 || (co->entry_uid[i] && alive(co->p2p, co->entry_uid[i])) ||
            !shmc__slot_nb_drained(co, &co->entry_own[i]))
            continue;
        mask |= 1u << i;
    }
    co->entry_offered |= mask;
    return mask;
}

void shmc__nbcomm_take(struct shmc__coll *co, struct shmc__comm *c, uint32_t mine, uint32_t agreed)
{
    co->entry_offered &= ~mine;
    if (!c || c->size < SHMC_NBS_RANKS_MIN || !(agreed & mine))
        return;
    unsigned i = (unsigned)__builtin_ctz(agreed & mine);
    struct shmc__slot_own *o = &co->entry_own[i];
    *o = (struct shmc__slot_own){.slot = o->slot};
    co->entry_uid[i] = c->uid;
    struct shmc__coll_comm *cc = shmc__coll_comm(c);
    shmc__list_init(&cc->nbq);
    cc->entry = (uint8_t)(i + 1);
}

/* One call through the entry, queued on its communicator. */
struct call {
    struct shmc__link link; /* in its communicator's nbq, in the order of the calls */
    struct shmc__link live; /* in co->entry_live */
    struct shmc__cx x;
    struct shmc__wround b; /* the call's buffers (b.x is &x) */
    struct shmc__nbs sl;
    struct shmc__request *req;
    uint32_t seq; /* its number among the communicator's nonblocking calls (incall) */
};

/* Calls ended keep their memory here for the next ones (as the world's lane's do). */
#define SPARE_MAX 8
static struct call *spare[SPARE_MAX];
static int nspare;

static void call_put(struct call *q)
{
    shmc__list_remove(&q->live);
    shmc__userop_hold(q->x.op, -1);
    if (nspare < SPARE_MAX)
        spare[nspare++] = q;
    else
        free(q);
}

/* The driven request's poll (p2p.h): only the communicator's first queued call moves. */
static int poll(void *arg, int *err)
{
    struct call *q = arg;
    struct shmc__coll_comm *cc = q->x.cc;
    if (shmc__list_first(&cc->nbq) != &q->link || !shmc__nbs_step(&q->sl, err))
        return 0;
    /* (an error has made this rank quit the communicator's collectives already: nbslot.c) */
    shmc__list_remove(&q->link);
    struct shmc__link *next = shmc__list_first(&cc->nbq);
    if (next)
        shmc__driven_resume(q->x.co->p2p, shmc__link_entry(next, struct call, link)->req);
    call_put(q);
    return 1;
}

/* Its hint: a slot's wait is for the root or the root's inputs, never worth a spin. */
static int far(void *arg, uint32_t cpu)
{
    (void)arg;
    (void)cpu;
    return 0;
}

/* What a wait on it publishes (p2p/incall.h): numbered among the communicator's
 * nonblocking calls as their schedules are (sched.h), so that members blocked in the same
 * numbered call compare their calls once they have slept a slice: a member whose same
 * call went as a schedule (another count, or another collective) waits for messages that
 * never come, and this rank for its publication, and the comparison finds the mismatch.
 * Nothing where SHMC_CHECK=0 left the call without words. */
static int incall(void *arg, struct shmc__incall *out)
{
    const struct call *q = arg;
    if (!shmc__sched_incall(q->x.c, q->seq, 0, q->x.call, out))
        return 0;
    /* (and where the member ends without waiting: shmc__slot_nb_crossed) */
    shmc__slot_nb_looks(out, q->x.co, q->sl.stamp, 0);
    return 1;
}

static const struct shmc__driven_ops driven = {poll, far, incall};

/* A call lingered over in its start (linger.h). */
struct lingered {
    struct call *q;
    int err;
};

static int lingered_step(void *arg)
{
    struct lingered *l = arg;
    return poll(l->q, &l->err) ? SHMC_LINGER_OVER : SHMC_LINGER_WAIT;
}

int shmc__nbcomm_start(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf,
                       size_t count)
{
    struct shmc__coll *co = x->co;
    struct shmc__coll_comm *cc = x->cc;
    if (x->c->quit) /* (this rank quits in turn, as a schedule's start does) */
        return shmc__cx_failed(x);
    struct call *q = nspare ? spare[--nspare] : malloc(sizeof *q);
    if (!q)
        return SHMC_ERR_NOMEM;
    struct shmc__request *r;
    int rc = shmc__post_driven(co->p2p, &driven, q, x->c, 0, &r);
    if (rc != SHMC_OK) {
        free(q);
        return rc;
    }
    q->x = *x;
    q->x.nb = NULL;
    if (co->check)
        q->x.hash = shmc__call_words_hash((unsigned)coll, x, count, 1, q->x.call);
    q->b =
        (struct shmc__wround){.coll = coll, .x = &q->x, .sbuf = sbuf, .rbuf = rbuf, .count = count};
    q->req = r;
    q->seq = shmc__sched_number(cc);
    int first = shmc__list_empty(&cc->nbq);
    if (!first)
        shmc__driven_park(r);    /* (a call ahead of it: resumed once that one ends) */
    shmc__userop_hold(x->op, 1); /* the program may free it before the call ends */
    shmc__list_push(&cc->nbq, &q->link);
    shmc__list_push(&co->entry_live, &q->live);
    shmc__nbs_begin(&q->sl, &q->b, 0);
    co->entry_calls++;
    *x->nb = r;
    /* What it can do now, and first on the communicator, as much more as lingering finds. */
    struct lingered l = {q, SHMC_OK};
    if (first && (poll(q, &l.err) || shmc__linger(co, lingered_step, &l, 0)))
        shmc__req_complete(&co->p2p->reqs, r, l.err);
    return SHMC_OK;
}

void shmc__nbcomm_release(struct shmc__coll *co)
{
    struct shmc__link *l, *tmp;
    if (!co->entry_live.next) /* (an init that failed before it was set up) */
        return;
    shmc__list_each(&co->entry_live, l, tmp)
    {
        struct call *q = shmc__link_entry(l, struct call, live);
        shmc__list_remove(l); /* (its request went with p2p's, its queue with its communicator) */
        shmc__userop_hold(q->x.op, -1);
        free(q);
    }
    while (nspare)
        free(spare[--nspare]);
}
