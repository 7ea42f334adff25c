/*
 * The world's nonblocking collectives on its shared memory (nbworld.h), as its blocking
 * ones: the one-step rounds for a barrier, small vectors and the other collectives of
 * equal blocks where the rule in nbworld.h takes them (wround.c has what each puts and
 * takes), the staging buffers or the direct all-reduce's rounds (direct.c) for a large
 * all-reduce, as dispatch.c picks for the blocking call, and beyond 2 ranks the lane's
 * slots for the rooted calls (nbslot.c).
 * A schedule of messages (sched.c) cost a small call two to three times the blocking
 * call's time (bench/coll_bench --nonblocking): messages go through mailboxes and
 * matching, where a round is one store and a load per rank.
 *
 * They take the world's second lane of rounds and buffers (coll.h), so that they are
 * numbered apart from the blocking calls, which a member may interleave with them
 * otherwise than the others. Within the lane every member takes the rounds in the order
 * of its nonblocking calls on the world, which MPI makes the same everywhere: the calls
 * queue in co->nbw and only the first moves (a call of one round on the idle lane runs
 * outside the queue until another follows it: `lean`; a staged one, in its start:
 * stage_start). A rank that is not in the library holds the others up, as in a blocking
 * collective: nothing moves without a call (docs/collectives.md).
 *
 * Each step is the blocking algorithm's, with its waits for a round turned into a post
 * (wsync.h) and looks from progress: the same reads, writes and reduction order, so the
 * same bits as the blocking call. A member gone or quit ends the call with its error and
 * quits the world's collectives (as the blocking rounds do); a mismatch, seen by every
 * member in the same round, ends it with SHMC_ERR_MISMATCH on all. A call that runs as a
 * schedule is counted among the lane's calls here all the same (shmc__nbw_gate), so that a
 * rank whose same call went by rounds finds it instead of waiting for ever (wsync.c).
 */
#include "coll/nbworld.h"

#include <stdlib.h>

#include "base/copy.h"
#include "base/list.h"
#include "base/log.h"
#include "base/userop.h"
#include "coll/callword.h"
#include "coll/dispatch.h"
#include "coll/linger.h"
#include "coll/nbslot.h"
#include "coll/onestep.h"
#include "coll/sched.h"
#include "coll/slot.h"
#include "coll/wround.h"
#include "p2p/request.h"

/* (BY_STREAM is BY_STAGE with streaming stores: a call taken so runs as BY_STAGE) */
enum {
    BY_ROUNDS = 1,
    BY_STAGE = 2,
    BY_SLOT = 4,
    BY_SLOT_GATE = 5,
    BY_STREAM = 6,
    BY_DIRECT = 7
};

struct nbw {
    struct shmc__link link; /* in co->nbw, in the order of the calls */
    struct shmc__cx x;
    int how;                   /* BY_* */
    uint64_t seq;              /* its number in the lane's calls (shmc__nbw_lane_call); 0: none */
    struct shmc__wround b;     /* the call's buffers (b.x is &x) */
    size_t per;                /* BY_ROUNDS: elements of each block a round carries */
    size_t e;                  /* BY_ROUNDS: the current chunk's first element */
    int posted;                /* BY_ROUNDS: its round is entered */
    struct shmc__request *req; /* its driven request: parked until the first in co->nbw */
    struct shmc__wsync_look look;
    struct shmc__stage_run st;
    struct shmc__nbs sl;        /* BY_SLOT, BY_SLOT_GATE */
    struct shmc__direct_run dr; /* BY_DIRECT */
};

/* Is a rooted collective (it goes by rounds at 2 ranks only, nbworld.h)? */
static int rooted(int coll)
{
    return coll == SHMC_C_BROADCAST || coll == SHMC_C_REDUCE || coll == SHMC_C_GATHER ||
           coll == SHMC_C_SCATTER;
}

/* Can collective coll go by rounds on this world for some count (its gate's question
 * too: only then may members making the same call go different ways)? A rooted one at 2
 * ranks only where the blocking call's rules give `shm` (the rounds) to some size. */
static int may_round(int coll, const struct shmc__cx *x)
{
    return coll >= 0 && coll < SHMC_C_COUNT &&
           (!rooted(coll) || (x->n == 2 && shmc__coll_rule_ever(coll, x, SHMC_A_SHM)));
}

/* A call that a schedule runs: through a gate (shmc__nbw_gate) where a member's same call
 * could go the lane's way with another count (need), and the words are compared. */
static int gated(const struct shmc__cx *x, int need)
{
    return need && x->co->check ? SHMC_NBW_GATED : 0;
}

/* The way call x goes on the lane, where it may (may_round): a BY_* way, or 0 for a
 * schedule. */
static int lane_way(int coll, const struct shmc__cx *x, size_t count, size_t bytes);

int shmc__nbw_way(int coll, const struct shmc__cx *x, size_t count, size_t bytes)
{
    if (!shmc__cx_world(x) || x->n < 2 || x->dev)
        return 0;
    if (shmc__nbs_rooted(coll, x))
        return shmc__nbs_takes(coll, x, count) ? BY_SLOT
                                               : gated(x, shmc__nbs_gated(coll, x, count));
    if (!may_round(coll, x)) {
        /* (not by rounds at any count: the rules do not change while the library runs,
         * the forced algorithm may, shmc__nbw_takes looks at it) */
        if (x->co->algo[coll] == SHMC_A_AUTO)
            x->cc->lane_none |= (uint16_t)(1u << coll);
        return 0;
    }
    int how = lane_way(coll, x, count, bytes);
    /* (x is on the world of 2 ranks or more, host memory, here) */
    if (x->co->algo[coll] == SHMC_A_AUTO && !shmc__op_user(x->op)) {
        /* (a call found in lane_last is answered there: this one is in neither entry) */
        struct shmc__lane_last *last = x->co->lane_last[coll];
        x->co->lane_ways++;
        last[1] = last[0];
        last[0] = (struct shmc__lane_last){.bytes = bytes, .es = x->es, .how = how};
    }
    return how ? how : gated(x, 1);
}

static int lane_way(int coll, const struct shmc__cx *x, size_t count, size_t bytes)
{
    if (coll == SHMC_C_BARRIER)
        return shmc__coll_barrier_algo(x) == SHMC_A_SHM ? BY_ROUNDS : 0;
    if (!count)
        return 0;
    if (coll == SHMC_C_ALLREDUCE) {
        int algo = shmc__coll_pick(coll, x, bytes);
        if (algo == SHMC_A_STAGE)
            return BY_STAGE;
        if (algo == SHMC_A_STREAM)
            return BY_STREAM;
        if (algo == SHMC_A_DIRECT)
            return BY_DIRECT;
        return algo == SHMC_A_SHM && count <= shmc__wround_elems(coll, x) ? BY_ROUNDS : 0;
    }
    /* A rooted call here is at 2 ranks (may_round): by as many rounds as it takes where
     * the blocking call goes by them (nbworld.h), if an element of each block fits one. */
    if (rooted(coll))
        return shmc__coll_rule(coll, x, bytes) == SHMC_A_SHM &&
                       shmc__wround_elems(coll, x)
                   ? BY_ROUNDS
                   : 0;
    size_t per = shmc__wround_elems(coll, x);
    if (!per)
        return 0;
    /* Beyond 2 ranks a reduce-scatter and an all-gather by as many rounds too: the one's
     * schedule is a ring of n - 1 steps that each wait for a neighbour, the other's sends
     * each block to every member, where a round's half holds it once for all. (An
     * all-to-all's block goes to one member: its messages copy no more than a round.) The
     * others by one round, at 2 ranks beyond SHMC_NBW_TWO_ROUND_ANY (bytes: every rank's
     * block) only where the blocking call goes by rounds too. */
    if (count > per && x->n > 2 && coll != SHMC_C_ALLTOALL)
        return shmc__coll_rule(coll, x, bytes) == SHMC_A_SHM ? BY_ROUNDS : 0;
    if (count > per)
        return 0;
    if (x->n > 2 || bytes <= SHMC_NBW_TWO_ROUND_ANY)
        return BY_ROUNDS;
    return shmc__coll_rule(coll, x, bytes) == SHMC_A_SHM ? BY_ROUNDS : 0;
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

/* Makes sure nbw_get has one at hand. SHMC_OK or SHMC_ERR_NOMEM. */
static int nbw_ready(void)
{
    if (nspare)
        return SHMC_OK;
    struct nbw *w = malloc(sizeof *w);
    if (!w)
        return SHMC_ERR_NOMEM;
    spare[nspare++] = w;
    return SHMC_OK;
}

/* One-step rounds, a chunk of every block each: this rank's part of the chunk into its
 * half, the round entered, then the chunk of the result taken from the halves (wround.c;
 * for an all-reduce, onestep.c's, chunk by chunk). 1 once ended (*rc). */
static int by_rounds(struct nbw *w, int *rc)
{
    const struct shmc__cx *x = &w->x;
    struct shmc__coll *co = x->co;
    struct shmc__lane *l = &co->lane[SHMC_LANE_NB];
    for (;;) {
        size_t len = shmc__chunk(w->b.count, w->e, w->per);
        if (!w->posted) {
            uint64_t r = shmc__wsync_next(l);
            if (len)
                shmc__wround_put(&w->b, r, w->e, len);
            shmc__wsync_post(co, l, r, shmc__wsync_tag(x->hash), &w->look);
            w->posted = 1;
        }
        if (!shmc__wsync_look(&w->look))
            return 0;
        if ((*rc = shmc__onestep_world_outcome(x, &w->look)) != SHMC_OK)
            return 1;
        if (len)
            shmc__wround_take(&w->b, w->look.want, w->e, len);
        w->posted = 0;
        w->e += len;
        if (w->e >= w->b.count)
            return 1;
    }
}

/* The driven request's hint (p2p.h): a call by rounds, the staging buffers or the direct
 * all-reduce, first in the queue with a round entered, waits for the ranks not yet in it,
 * as the blocking rounds' wait does. */
static int far(void *arg, uint32_t cpu)
{
    struct nbw *w = arg;
    struct shmc__wsync_look *look = NULL;
    if (shmc__list_first(&w->x.co->nbw) != &w->link)
        return 0;
    if (w->how == BY_ROUNDS && w->posted)
        look = &w->look;
    else if (w->how == BY_STAGE && w->st.phase)
        look = &w->st.look;
    else if (w->how == BY_DIRECT && w->dr.phase >= 1 && w->dr.phase <= 3)
        look = &w->dr.look;
    return look && shmc__wsync_far(look, cpu);
}

/* A round where some rank's call went by schedule, another's not (odd_sched, wsync.h):
 * the schedule waits for messages nobody will send, and its sends for receivers that
 * will never post, so this rank quits the world's collectives, declining the schedule's
 * messages (p2p/quit.c), and the schedule's rank fails on seeing it quit. A mismatch among
 * rounds alone leaves the world in step (a rank gone has made every rank quit already,
 * wsync.c). rc: the call's outcome, returned. */
static int quit_if_split(const struct shmc__cx *x, int rc, const struct shmc__wsync_look *seen)
{
    if (rc == SHMC_ERR_MISMATCH && seen->odd_sched)
        shmc__cx_quit(x, rc);
    return rc;
}

/* The driven request's poll (p2p.h): only the first queued call moves. */
static int poll(void *arg, int *err)
{
    struct nbw *w = arg;
    struct shmc__coll *co = w->x.co;
    if (shmc__list_first(&co->nbw) != &w->link)
        return 0;
    co->lane[SHMC_LANE_NB].moving = w->seq; /* (what its rounds' looks say: wsync.h) */
    int rc = SHMC_OK, over;
    if (w->how == BY_SLOT || w->how == BY_SLOT_GATE) {
        /* (an error has made this rank quit already: nbslot.c) */
        if (!shmc__nbs_step(&w->sl, &rc))
            return 0;
        goto ended;
    }
    if (w->how == BY_STAGE || w->how == BY_DIRECT) {
        over = w->how == BY_STAGE ? shmc__stage_step(&w->st, &rc) : shmc__direct_step(&w->dr, &rc);
        if (over && (w->how == BY_STAGE ? rc == SHMC_STAGE_REFUSED : rc == SHMC_DIRECT_REFUSED)) {
            /* Every rank learnt it in the same round: all go on by rounds. */
            w->how = BY_ROUNDS;
            rc = SHMC_OK;
            over = by_rounds(w, &rc);
        }
    } else {
        over = by_rounds(w, &rc);
    }
    if (!over)
        return 0;
    const struct shmc__wsync_look *seen = w->how == BY_STAGE    ? &w->st.look
                                          : w->how == BY_DIRECT ? &w->dr.look
                                                                : &w->look;
    quit_if_split(&w->x, rc, seen);
ended:
    shmc__list_remove(&w->link);
    struct shmc__link *next = shmc__list_first(&co->nbw);
    if (next)
        shmc__driven_resume(co->p2p, shmc__link_entry(next, struct nbw, link)->req);
    *err = rc;
    nbw_put(w);
    return 1;
}

/* What a wait on one call of the lane alone publishes (p2p/incall.h), for the hang report
 * to name the call: numbered apart from the schedules' calls in the same context (LANE_CALL,
 * a bit their numbers never have: coll/sched.h) and marked as a round's, so that no
 * member's comparison of calls ever takes it up (the lane's rounds compare the calls
 * themselves, and its slots' gates the members' words). Nothing where SHMC_CHECK=0 left
 * the call without words. */
#define LANE_CALL (SHMC_SCHED_BLOCKING >> 1)
static_assert(!(LANE_CALL & (SHMC_SCHED_BLOCKING | SHMC_SCHED_NUMBER)),
              "a lane call's number is never a schedule's");
static int lane_call(const struct shmc__cx *x, uint64_t seq, struct shmc__incall *out)
{
    return shmc__sched_incall(x->c, LANE_CALL | ((uint32_t)seq & SHMC_SCHED_NUMBER), 1, x->call,
                              out);
}

static int call(void *arg, struct shmc__incall *out)
{
    const struct nbw *w = arg;
    if (!lane_call(&w->x, w->seq, out))
        return 0;
    /* (a call through the slots, whose members' same call may have run as a schedule, with
     * another count: shmc__slot_nb_crossed) */
    if (w->how == BY_SLOT)
        shmc__slot_nb_looks(out, w->x.co, w->sl.stamp, 0);
    return 1;
}

static const struct shmc__driven_ops driven = {poll, far, call};

static int lean_settle(void);

/* Puts call x in the queue of the lane as w, run `how` over the buffers of b (b.coll;
 * b.x is set here) with x's words and hash as they are, its driven request in *req.
 * SHMC_OK, or SHMC_ERR_NOMEM (w freed). */
static int enqueue(struct nbw *w, const struct shmc__cx *x, int how, const struct shmc__wround *b,
                   struct shmc__request **req)
{
    struct shmc__coll *co = x->co;
    w->x = *x;
    w->x.nb = NULL;
    w->how = how;
    w->b = *b;
    w->b.x = &w->x;
    w->per = b->coll == SHMC_C_BARRIER ? 1 : shmc__wround_elems(b->coll, x);
    w->seq = 0;
    w->e = 0;
    w->posted = 0;
    int rc = shmc__post_driven(co->p2p, &driven, w, x->c, 0, req);
    if (rc != SHMC_OK) {
        free(w);
        return rc;
    }
    w->req = *req;
    if (!shmc__list_empty(&co->nbw))
        shmc__driven_park(w->req); /* (a call ahead of it: resumed once that one ends) */
    shmc__userop_hold(x->op, 1);   /* the program may free it before the call ends */
    shmc__list_push(&co->nbw, &w->link);
    return SHMC_OK;
}

/* Queues call x on the lane as w (enqueue): the call's words (what, count) go with its
 * rounds when the mismatch check is on. SHMC_OK, SHMC_ERR_NOMEM, or the world's failure. */
static int queue(const struct shmc__cx *x, int how, const struct shmc__wround *b, unsigned what,
                 size_t count, struct shmc__request **req, struct nbw **out)
{
    struct shmc__coll *co = x->co;
    *req = NULL;
    if (x->c->quit) /* (this rank quits in turn, as a schedule's start does) */
        return shmc__cx_failed(x);
    int rc = lean_settle();
    if (rc != SHMC_OK)
        return rc;
    struct nbw *w = nbw_get();
    if (!w)
        return SHMC_ERR_NOMEM;
    if ((rc = enqueue(w, x, how, b, req)) != SHMC_OK)
        return rc;
    if (co->check)
        w->x.hash = shmc__call_words_hash(what, x, count, 1, w->x.call);
    *out = w;
    return SHMC_OK;
}

/* A call of one round started while the lane is idle (nothing queued) is
 * not queued: its round is entered at once, and the call ends in its start where every
 * rank had entered it already (this rank came last), or else its driven request looks at
 * that round alone (lean_poll). The queue's entry, its record's fill and its polls were a
 * third of a small call's instructions, and at 2 ranks each rank's instructions between
 * two calls, not the line's round trip alone, set the pace of calls made back to back
 * (bench/coll_bench --nonblocking). A call that must follow it on the lane (a queued one,
 * a slots' gate) makes it an ordinary queued call first (lean_settle), so that the lane
 * keeps the order of the calls. */
static struct {
    struct shmc__request *req; /* in flight: its driven request; NULL: none */
    struct shmc__cx x;
    struct shmc__wround b; /* (b.x is &x) */
    struct shmc__wsync_look look;
} lean;

/* Is the world's lane idle: nothing queued, no lean call in flight? */
static int lane_idle(const struct shmc__coll *co)
{
    return !lean.req && shmc__list_empty(&co->nbw);
}

/* The lean call's round is over: its outcome, and with it the result taken from the round
 * (as by_rounds and poll do for a queued call). */
static int lean_end(void)
{
    int rc = shmc__onestep_world_outcome(&lean.x, &lean.look);
    if (rc == SHMC_OK && lean.b.count)
        shmc__wround_take(&lean.b, lean.look.want, 0, lean.b.count);
    return quit_if_split(&lean.x, rc, &lean.look);
}

static int lean_poll(void *arg, int *err)
{
    (void)arg;
    if (!shmc__wsync_look(&lean.look))
        return 0;
    *err = lean_end();
    lean.req = NULL;
    shmc__userop_hold(lean.x.op, -1);
    return 1;
}

static int lean_far(void *arg, uint32_t cpu)
{
    (void)arg;
    return shmc__wsync_far(&lean.look, cpu);
}

static int lean_call(void *arg, struct shmc__incall *out)
{
    (void)arg;
    return lane_call(&lean.x, lean.x.co->lane[SHMC_LANE_NB].moving, out);
}

static const struct shmc__driven_ops lean_ops = {lean_poll, lean_far, lean_call};

/* The lean call in flight, if any, made the queue's first call, its request polled as that
 * call's from now on. SHMC_OK, or SHMC_ERR_NOMEM (it stays lean: the caller fails). */
static int lean_settle(void)
{
    if (!lean.req)
        return SHMC_OK;
    struct nbw *w = nbw_get();
    if (!w)
        return SHMC_ERR_NOMEM;
    w->x = lean.x;
    w->how = BY_ROUNDS;
    w->b = lean.b;
    w->b.x = &w->x;
    w->per = lean.b.count ? lean.b.count : 1; /* (its one round carried all of it) */
    w->e = 0;
    w->posted = 1;
    w->look = lean.look;
    w->seq = lean.look.call;
    w->req = lean.req;
    shmc__driven_retarget(w->req, &driven, w); /* (the op's hold goes with it) */
    shmc__list_push(&lean.x.co->nbw, &w->link);
    lean.req = NULL;
    return SHMC_OK;
}

/* A lean call's step while its start lingers (linger.h). */
static int lean_step(void *arg)
{
    return shmc__wsync_look(arg) ? SHMC_LINGER_OVER : SHMC_LINGER_WAIT;
}

/* Starts call x of one round on the idle lane (as above) as *x->nb. What the call keeps
 * in `lean` is written after the round is entered, and only where it is not over: the
 * ranks waiting for this one go on meanwhile. A call over at once has no request of its
 * own (shmc__req_done): making and freeing one were a large part of the instructions of
 * a small call made by the rank that comes last (bench/path_cost.sh counts them). The
 * memory of one is made sure of before the round is entered, which there is no leaving. */
static int lean_start(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf,
                      size_t count)
{
    struct shmc__coll *co = x->co;
    struct shmc__lane *l = &co->lane[SHMC_LANE_NB];
    struct shmc__request *r;
    int rc = shmc__post_driven_ready(co->p2p, x->c);
    if (rc != SHMC_OK)
        return rc;
    uint64_t call[2] = {0, 0};
    uint64_t hash = co->check ? shmc__call_words_hash((unsigned)coll, x, count, 1, call) : 0;
    struct shmc__wround b = {.coll = coll,
                             .lane = SHMC_LANE_NB,
                             .x = x,
                             .sbuf = sbuf,
                             .rbuf = rbuf,
                             .count = coll == SHMC_C_BARRIER ? 0 : count};
    uint64_t round = shmc__wsync_next(l);
    if (b.count)
        shmc__wround_put(&b, round, 0, b.count);
    l->moving = shmc__nbw_lane_call(co, 0);
    shmc__wsync_post(co, l, round, shmc__wsync_tag(hash), &lean.look);
    if (b.count && shmc__wround_has_own(coll))
        shmc__wround_own(&b, 0, b.count);
    int over = shmc__wsync_look(&lean.look) || shmc__linger(co, lean_step, &lean.look, 0);
    if (over && lean.look.odd < 0 && lean.look.err == SHMC_OK) {
        if (b.count)
            shmc__wround_take(&b, round, 0, b.count);
        *x->nb = &shmc__req_done;
        return SHMC_OK;
    }
    shmc__post_driven(co->p2p, &lean_ops, NULL, x->c, 0, &r); /* (cannot fail: ready) */
    *x->nb = r;
    lean.x = *x;
    lean.x.nb = NULL;
    if (co->check) {
        lean.x.call[0] = call[0];
        lean.x.call[1] = call[1];
        lean.x.hash = hash;
    }
    lean.b = b;
    lean.b.x = &lean.x;
    if (over) {
        shmc__req_complete(&co->p2p->reqs, r, lean_end());
        return SHMC_OK;
    }
    shmc__userop_hold(x->op, 1); /* the program may free it before the call ends */
    lean.req = r;
    return SHMC_OK;
}

/* May call x (of count elements) run lean: by rounds, in one, on the idle lane? (An
 * all-reduce goes by rounds only where one takes it: lane_way.) */
static int lean_fits(int how, int coll, const struct shmc__cx *x, size_t count)
{
    return how == BY_ROUNDS && lane_idle(x->co) && !x->c->quit &&
           (coll == SHMC_C_BARRIER || coll == SHMC_C_ALLREDUCE ||
            count <= shmc__wround_elems(coll, x));
}

/* The slots' gates first in the queue looked at again, each ended whose publication all
 * have read (nbslot.h). A gate's request is detached, so nothing else moves it but
 * progress, and a rank whose calls end in their start (a root whose blocks went eagerly)
 * does not run progress between them: it queued a gate per call, thousands in a few
 * milliseconds, and a call that came after them waited for every one of them in turn.
 * Looked at here, on every start, the gates keep pace with the calls, and the lane is idle
 * again (its lean form taken) once the other ranks have caught up. */
static void gates_catch_up(struct shmc__coll *co)
{
    struct shmc__link *f;
    while ((f = shmc__list_first(&co->nbw))) {
        struct nbw *w = shmc__link_entry(f, struct nbw, link);
        struct shmc__request *r = w->req;
        int err;
        if (w->how != BY_SLOT_GATE || !poll(w, &err))
            return;
        shmc__req_complete(&co->p2p->reqs, r, err); /* (as progress ends a detached one) */
        shmc__req_free(&co->p2p->reqs, r);
    }
}

/* A queued call lingered over (linger.h): its poll, its outcome in err. */
struct queued {
    struct nbw *w;
    int err;
};

/* What a lingered-over step of the lane says (linger.h): over, or the lane's round moved
 * on from `round` (it was before the step), or nothing new. */
static int lane_step(const struct shmc__coll *co, uint64_t round, int over)
{
    if (over)
        return SHMC_LINGER_OVER;
    return co->lane[SHMC_LANE_NB].round != round ? SHMC_LINGER_MOVED : SHMC_LINGER_WAIT;
}

static int queued_step(void *arg)
{
    struct queued *q = arg;
    const struct shmc__coll *co = q->w->x.co;
    uint64_t round = co->lane[SHMC_LANE_NB].round;
    return lane_step(co, round, poll(q->w, &q->err));
}

/* A staged call on the idle lane while its start lingers (linger.h). */
struct staged {
    struct shmc__stage_run *st;
    int rc;
};

static int staged_step(void *arg)
{
    struct staged *t = arg;
    const struct shmc__coll *co = t->st->x->co;
    uint64_t round = co->lane[SHMC_LANE_NB].round;
    return lane_step(co, round, shmc__stage_step(t->st, &t->rc));
}

/* Starts call x by the staging buffers (stream: written past the caches) on the idle
 * lane: it runs in its start, lingered over as the first queued call is, and one over by
 * then takes neither a queue entry nor a request (shmc__req_done), whose making, polls and
 * wait put such a call of a few KiB well behind the blocking one (the commit that made
 * this has the figures); one not over is queued as it stands, its rounds entered. The
 * memory of both is made sure of before its first round, which there is no leaving. */
static int stage_start(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf,
                       size_t count, int stream)
{
    struct shmc__coll *co = x->co;
    int rc = nbw_ready();
    if (rc != SHMC_OK || (rc = shmc__post_driven_ready(co->p2p, x->c)) != SHMC_OK)
        return rc;
    struct shmc__cx sx = *x;
    sx.nb = NULL;
    if (co->check)
        sx.hash = shmc__call_words_hash((unsigned)coll, x, count, 1, sx.call);
    struct shmc__stage_run st = {
        .x = &sx, .in = sbuf, .out = rbuf, .count = count, .stream = stream};
    uint64_t seq = shmc__nbw_lane_call(co, 0);
    co->lane[SHMC_LANE_NB].moving = seq; /* (as poll sets it for a queued call) */
    struct staged t = {&st, SHMC_OK};
    int over = shmc__stage_step(&st, &t.rc) || shmc__linger(co, staged_step, &t, 0);
    struct shmc__request *r;
    if (over && t.rc != SHMC_STAGE_REFUSED) {
        quit_if_split(&sx, t.rc, &st.look);
        if (t.rc == SHMC_OK) {
            *x->nb = &shmc__req_done;
            return SHMC_OK;
        }
        /* (cannot fail: ready; complete at once, its ops are never called) */
        shmc__post_driven(co->p2p, &lean_ops, NULL, x->c, 0, &r);
        shmc__req_complete(&co->p2p->reqs, r, t.rc);
        *x->nb = r;
        return SHMC_OK;
    }
    struct shmc__wround b = {
        .coll = coll, .sbuf = sbuf, .rbuf = rbuf, .count = count, .lane = SHMC_LANE_NB};
    struct nbw *w = nbw_get();
    enqueue(w, &sx, BY_STAGE, &b, x->nb); /* (cannot fail: both ready) */
    w->seq = seq;
    w->st = st;
    w->st.x = &w->x;
    /* Refused the buffers, as every rank learnt in the same round: by rounds, as poll
     * goes on after it, lingered over as the first queued call is. */
    if (over) {
        w->how = BY_ROUNDS;
        struct queued q = {w, SHMC_OK};
        if (poll(w, &q.err) || shmc__linger(co, queued_step, &q, 0))
            shmc__req_complete(&co->p2p->reqs, *x->nb, q.err);
    }
    return SHMC_OK;
}

int shmc__nbw_start(int how, int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf,
                    size_t count)
{
    if (!shmc__list_empty(&x->co->nbw))
        gates_catch_up(x->co);
    if (lean_fits(how, coll, x, count))
        return lean_start(coll, x, sbuf, rbuf, count);
    if ((how == BY_STAGE || how == BY_STREAM) && lane_idle(x->co) && !x->c->quit)
        return stage_start(coll, x, sbuf, rbuf, count, how == BY_STREAM);
    int first = shmc__list_empty(&x->co->nbw) && !lean.req;
    struct nbw *w;
    struct shmc__wround b = {.coll = coll,
                             .sbuf = sbuf,
                             .rbuf = rbuf,
                             .count = coll == SHMC_C_BARRIER ? 0 : count,
                             .lane = SHMC_LANE_NB};
    int stream = how == BY_STREAM;
    if (stream)
        how = BY_STAGE;
    int rc = queue(x, how, &b, (unsigned)coll, count, x->nb, &w);
    if (rc != SHMC_OK)
        return rc;
    if (how != BY_SLOT)
        w->seq = shmc__nbw_lane_call(x->co, 0);
    if (how == BY_STAGE)
        w->st = (struct shmc__stage_run){
            .x = &w->x, .in = sbuf, .out = rbuf, .count = count, .stream = stream};
    if (how == BY_SLOT)
        shmc__nbs_begin(&w->sl, &w->b, 0);
    if (how == BY_DIRECT)
        w->dr = (struct shmc__direct_run){.x = &w->x, .in = sbuf, .out = rbuf, .count = count};
    /* What it can do now: its first round entered, if no call is ahead of it; and, first
     * on the lane, as much more as lingering finds. */
    struct shmc__request *r = *x->nb;
    struct queued q = {w, SHMC_OK};
    if (poll(w, &q.err) || (first && shmc__linger(x->co, queued_step, &q, 0)))
        shmc__req_complete(&x->co->p2p->reqs, r, q.err);
    return SHMC_OK;
}

int shmc__nbw_barrier(const struct shmc__cx *x)
{
    return shmc__nbw_start(BY_ROUNDS, SHMC_C_BARRIER, x, NULL, NULL, 1);
}

int shmc__nbw_gate_queued(const struct shmc__cx *x, int coll, size_t count)
{
    if (!shmc__list_empty(&x->co->nbw))
        gates_catch_up(x->co);
    if (!shmc__nbs_rooted(coll, x)) {
        shmc__nbw_lane_call(x->co, 1);
        return SHMC_OK;
    }
    struct nbw *w;
    struct shmc__request *r;
    struct shmc__wround gate = {.coll = coll, .lane = SHMC_LANE_NB};
    int rc = queue(x, BY_SLOT_GATE, &gate, (unsigned)coll, count, &r, &w);
    if (rc != SHMC_OK)
        return rc;
    shmc__nbs_begin(&w->sl, &w->b, 1);
    r->detached = 1;
    int err;
    if (poll(w, &err)) {
        /* Ended at once, outside progress: its request is freed here. */
        shmc__req_unlink(r);
        shmc__req_free(&x->co->p2p->reqs, r);
    }
    return SHMC_OK;
}

void shmc__nbw_release(struct shmc__coll *co)
{
    if (lean.req) { /* (its request went with p2p's) */
        lean.req = NULL;
        shmc__userop_hold(lean.x.op, -1);
    }
    struct shmc__link *l, *tmp;
    struct shmc__lane *lane = &co->lane[SHMC_LANE_NB];
    free(lane->direct_mem);
    lane->direct_mem = NULL;
    lane->direct_cap = 0;
    if (!co->nbw.next)
        return;
    shmc__list_each(&co->nbw, l, tmp)
    {
        struct nbw *w = shmc__link_entry(l, struct nbw, link);
        shmc__list_remove(l); /* (a gate's request went with p2p's, which ended first) */
        shmc__userop_hold(w->x.op, -1);
        free(w);
    }
    while (nspare)
        free(spare[--nspare]);
}
