/*
 * The wait loop: progress until the caller's condition holds, spinning, then yielding,
 * then sleeping on the doorbell (shm/doorbell.h), while watching the job: an abort, or a
 * peer gone, fails the requests that depend on it (progress.c). Under SHMC_TIMEOUT a rank
 * that finds the whole job blocked that long reports what every rank waits for and ends
 * the job.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "p2p/incall.h"
#include "p2p/p2p.h"
#include "p2p/progress.h"
#include "shm/hang.h"

struct blk {
    unsigned op;
    int peer;
    int tag;
    uint32_t ctx;
    uint64_t bytes;
};

static void set_blocked(struct shmc__p2p *p, const struct blk *b)
{
    struct shmc__rank_cb *me = p->me;
    /* Relaxed: diagnostics only, read by hang reports. */
    shmc__store_relaxed32(&me->blk_peer, (uint32_t)b->peer);
    shmc__store_relaxed32(&me->blk_tag, (uint32_t)b->tag);
    shmc__store_relaxed32(&me->blk_ctx, b->ctx);
    shmc__store_relaxed64(&me->blk_bytes, b->bytes);
    shmc__store_relaxed64(&me->blk_since_ns, shmc__now_ns());
    shmc__store_relaxed32(&me->blk_op, b->op);
    shmc__incall_publish(p);
}

/* The spin-instead-of-yield stage of a wait (doorbell.h): allowed once per wait, for
 * p->spin_elsewhere_ns from its first use. */
struct spin_far {
    int (*elsewhere)(void *, uint32_t);
    void *arg;
    uint32_t cpu;      /* 1 + our CPU, as last published */
    unsigned polls;    /* since the clock was last read */
    uint64_t deadline; /* 0: not started */
    int spent;
    int polling; /* SHMC_CPU_POLLING is published */
};

static int spin_far(struct shmc__p2p *p, struct spin_far *f)
{
    if (f->spent || !f->elsewhere || !p->spin_elsewhere_ns)
        return 0;
    if (!f->elsewhere(f->arg, f->cpu))
        goto stop;
    /* The clock every 64 polls: a poll is far cheaper than reading it. */
    if (!f->deadline) {
        f->deadline = shmc__now_ns() + p->spin_elsewhere_ns;
        f->polling = 1;
        shmc__cpu_publish(p->me, 1);
    } else if (++f->polls >= 64) {
        f->polls = 0;
        if (shmc__now_ns() >= f->deadline) {
            f->spent = 1;
            goto stop;
        }
    }
    return 1;
stop:
    if (f->polling) {
        f->polling = 0;
        f->cpu = shmc__cpu_publish(p->me, 0);
    }
    return 0;
}

/* The job's shared memory holds what no rank writes: every peer is treated as broken, so
 * every wait ends with SHMC_ERR_CORRUPT and nothing more is read from the arena. */
static void arena_corrupt(struct shmc__p2p *p, const char *what)
{
    if (p->arena_corrupt)
        return;
    p->arena_corrupt = 1;
    SHMC_ERROR("%s: the job's shared memory was overwritten (by a process outside shmcomm?); "
               "every operation with another rank now fails with SHMC_ERR_CORRUPT",
               what);
    for (int q = 0; q < p->size; q++)
        if (q != p->rank)
            shmc__peer_broken(p, q, NULL); /* said once, above */
}

/* After a sleep slice: our own control block must still hold what we wrote (our pid, our
 * state, what we wait for). If it does not, none of the arena can be trusted, and the
 * wait would otherwise last for ever (a zeroed arena looks like a job with nothing to
 * do). Only this rank writes these words. */
static void self_check(struct shmc__p2p *p, unsigned op)
{
    const struct shmc__rank_cb *me = p->me;
    uint32_t pid = shmc__load_relaxed32(&me->pid), st = shmc__load_relaxed32(&me->state);
    uint32_t bop = shmc__load_relaxed32(&me->blk_op);
    uint32_t want = p->phase == SHMC_P2P_FINALIZING ? SHMC_RANK_FINALIZING : SHMC_RANK_RUNNING;
    /* With several threads waiting, blk_op is whichever wrote it last. */
    if (p->arena_corrupt ||
        (pid == (uint32_t)p->arena->pids[p->rank] && st == want && (bop == op || shmc__multi)))
        return;
    char what[160];
    snprintf(what, sizeof what,
             "rank %d's control block reads pid %u, state %u, waiting on %u, where it wrote %d, "
             "%u, %u",
             p->rank, pid, st, bop, (int)p->arena->pids[p->rank], want, op);
    arena_corrupt(p, what);
}

/* SHMC_TIMEOUT: when every rank still in the job has been blocked in shmcomm that long
 * (or is stopped), the lowest blocked one says what each waits for and aborts the job;
 * the others then see the abort. Looked at after each sleep slice, since a stuck rank
 * ends up sleeping. blocked_ns is how long this rank has been waiting by its own clock:
 * once that passes the time-out and the control blocks hold what no rank writes, the wait
 * ends as corrupt rather than trusting them for ever. */
static void hang_check(struct shmc__p2p *p, uint64_t blocked_ns)
{
    uint64_t t = (uint64_t)p->hang_timeout_s * 1000000000u;
    int who = shmc__hang_reporter(p->arena, p->size, t, shmc__now_ns());
    if (who == -2 && blocked_ns >= t)
        arena_corrupt(p, "SHMC_TIMEOUT passed and the ranks' control blocks hold values no "
                         "rank writes");
    if (who != p->rank)
        return;
    /* A rank that aborted (our reporter, say) sets the abort word before its state says
     * it left: having read the states, a job being ended is not reported twice. */
    atomic_thread_fence(memory_order_acquire);
    if (shmc__job_aborted(p->arena))
        return;
    fprintf(stderr,
            "shmcomm: rank %d: no rank has made progress for %u s (SHMC_TIMEOUT); ending the "
            "job\n",
            p->rank, p->hang_timeout_s);
    shmc__hang_report(p->arena, p->size, NULL, stderr, "shmcomm: ");
    fflush(NULL);
    _exit(shmc__job_abort_from(p->arena, (unsigned)p->rank, 124, !p->supervised));
}

/* Waits until done(arg) holds, making progress. Returns SHMC_OK, or SHMC_ERR_ABORTED if
 * the job was aborted while waiting (requests have been failed by then). `far` may say
 * when to spin rather than yield (doorbell.h). */
/* Threads of this process in the sleep below (more than one only under
 * SHMC_THREAD_MULTIPLE). Changed only with the call lock held, or by the one thread in a
 * serialised process. */
static unsigned sleepers;

/* Spinning past the spin budget, up to p->spin_more_max_ns (SHMC_SPIN_MORE). Waking a
 * sleeping rank takes the kernel, and on a shared host the hypervisor, from tens of
 * microseconds to milliseconds; once one wake-up outlasted a rank's spinning, both ranks
 * of a pair could sleep in every call after it, each waiting for the other's slow
 * wake-up, for as long as wake-ups stayed slow (docs/design.md, "Waiting"). A wait that
 * slept and ended within the bound of its spin running out (its extra spin included)
 * makes the waits after it spin twice that long before yielding (at most the bound), so
 * that they catch the answer instead of sleeping; one that ended
 * later (a peer computing) sets the extra spin back to none. Not with
 * SHMC_THREAD_MULTIPLE: a spinning thread takes the call lock again after every poll, and
 * would keep the process's other threads out of the library. */
uint64_t shmc__spin_more_next(uint64_t cur, int slept, uint64_t waited_ns, uint64_t max_ns)
{
    if (!slept)
        return cur;
    if (waited_ns >= max_ns)
        return 0;
    return 2 * waited_ns < max_ns ? 2 * waited_ns : max_ns;
}

static int wait_until(struct shmc__p2p *p, int (*done)(void *), void *arg, const struct blk *b,
                      struct spin_far *far)
{
    unsigned idle = 0;
    int blocked = 0, slept = 0;
    uint64_t since = 0; /* when we started to block, by our own clock */
    int rc = SHMC_OK;
    const int multi = shmc__multi;
    unsigned more_polls = 0;
    uint64_t more = multi ? 0 : p->spin_more_ns; /* the extra spin, until spent */

    /* With peers gone, what we wait for may already be impossible: look once. */
    if (p->ngone)
        p->recheck = 1;

    for (;;) {
        if (done(arg))
            break;
        if (shmc__progress(p)) {
            idle = 0;
            /* A single copy of megabytes makes progress for a long time: look at the job
             * meanwhile, or a peer's failure waits for its end. */
            if ((!shmc__list_empty(&p->cma_active) || !shmc__list_empty(&p->coop.sends)) &&
                shmc__check_job(p) == SHMC_ERR_ABORTED) {
                rc = SHMC_ERR_ABORTED;
                break;
            }
            continue;
        }
        int jc = shmc__check_job(p);
        if (jc == SHMC_ERR_ABORTED) {
            rc = SHMC_ERR_ABORTED;
            break;
        }
        if (jc)
            continue;
        if (++idle <= p->spin) {
            shmc__pause_begin(multi);
            shmc__cpu_relax();
            shmc__pause_end(multi);
            continue;
        }
        if (!blocked) {
            set_blocked(p, b);
            since = shmc__now_ns();
            far->cpu = shmc__cpu_publish(p->me, 0);
            blocked = 1;
        }
        if (shmc__deadline && shmc__now_ns() >= shmc__deadline) {
            shmc__deadline = 0; /* once: see p2p.h */
            rc = SHMC_ERR_TIMEOUT;
            break;
        }
        if (more) { /* (the clock read every 64 polls, as spin_far does) */
            if ((++more_polls & 63) || shmc__now_ns() - since < more) {
                idle = p->spin; /* (the yields come after it) */
                shmc__cpu_relax();
                continue;
            }
            more = 0;
        }
        if (idle <= p->spin + p->yield) {
            if (spin_far(p, far)) {
                idle--; /* spinning does not use up the yields */
                shmc__pause_begin(multi);
                shmc__cpu_relax();
                shmc__pause_end(multi);
                continue;
            }
            shmc__pause_begin(multi);
            sched_yield();
            shmc__pause_end(multi);
            far->cpu = shmc__cpu_publish(p->me, 0);
            continue;
        }
        sleepers++;
        uint32_t seen = shmc__sleep_prepare(p->me, p->tp.fenced);
        /* Re-check after announcing the sleep: anything published before a waker could
         * see our flag is found here (doorbell.h). A yes from done() ends the wait here:
         * it is not asked again, since a predicate may take what it found (a window's
         * lock) and would then answer no. */
        int now_done = done(arg);
        if (now_done || shmc__progress(p) || shmc__check_job(p)) {
            if (!--sleepers)
                shmc__sleep_cancel(p->me);
            if (now_done)
                break;
            idle = 0;
            continue;
        }
        uint64_t t0 = shmc__now_ns();
        slept = 1;
        shmc__pause_begin(multi);
        shmc__sleep_wait(p->me, seen, SHMC_SLEEP_SLICE_MS);
        shmc__pause_end(multi);
        /* The sleeping flag stays up while another thread of ours still sleeps. */
        if (!--sleepers)
            shmc__sleep_cancel(p->me);
        /* A full slice with no wake-up: look for peers that died unannounced. */
        uint64_t t1 = shmc__now_ns();
        if (t1 - t0 >= (uint64_t)SHMC_SLEEP_SLICE_MS * 900000u) {
            p->slices_slept++;
            shmc__peers_refresh(p, 1);
            self_check(p, b->op);
            /* Nobody woke us: a member in another call may be waiting for us. */
            shmc__incall_scan(p);
        }
        if (p->hang_timeout_s)
            hang_check(p, t1 - since);
        far->cpu = shmc__cpu_publish(p->me, 0);
        idle = p->spin; /* woken: yield once more before sleeping again */
    }
    if (blocked) {
        shmc__store_relaxed32(&p->me->blk_op, SHMC_BLK_NONE);
        shmc__incall_clear(p);
        if (p->spin_more_max_ns && !multi)
            p->spin_more_ns = shmc__spin_more_next(p->spin_more_ns, slept, shmc__now_ns() - since,
                                                   p->spin_more_max_ns);
    }
    if (far->polling)
        shmc__cpu_publish(p->me, 0);
    return rc;
}

struct reqset {
    struct shmc__p2p *p;
    size_t n;
    struct shmc__request *const *reqs;
    int stop_on_error; /* done as soon as one failed (shmc__wait_requests_exact) */
    int want_tag;      /* with stop_on_error: the tag receives must get, or SHMC_ANY */
    int err;           /* the first failure seen, with stop_on_error */
    int any;           /* done as soon as one is no longer pending (shmc__wait_any) */
    size_t from;       /* waiting for all: those before it are known to be over */
};

int shmc__req_other_call(const struct shmc__request *r, int want_tag)
{
    return r->kind == SHMC_REQ_RECV && r->state != SHMC_RS_ACTIVE &&
           (r->err == SHMC_ERR_TRUNCATE ||
            (r->err == SHMC_OK &&
             (r->msg_bytes != r->bytes || (want_tag != SHMC_ANY && r->msg_tag != want_tag))));
}

static int reqs_done(void *arg)
{
    struct reqset *s = arg;
    /* Waiting for all, with nothing to learn from the ended ones: a request that ended
     * never becomes pending again, so each look starts at the first one not yet seen
     * ended and stops at the first still pending (a window of receives completes in
     * order: one comparison a look, instead of one a request). */
    if (!s->any && !s->stop_on_error) {
        for (; s->from < s->n; s->from++) {
            const struct shmc__request *r = s->reqs[s->from];
            if (r && r->state == SHMC_RS_ACTIVE)
                return 0;
        }
        return 1;
    }
    int all = 1;
    for (size_t i = 0; i < s->n; i++) {
        const struct shmc__request *r = s->reqs[i];
        if (!r)
            continue;
        if (r->state == SHMC_RS_ACTIVE)
            all = 0;
        else if (s->any)
            return 1;
        else if (s->stop_on_error && !s->err)
            s->err = shmc__req_other_call(r, s->want_tag) ? SHMC_ERR_MISMATCH : r->err;
    }
    return all || s->err;
}

/* Every peer a wait still depends on runs on another CPU, and is on it now rather than
 * waiting in turn (perhaps for a rank that needs our CPU); a driven request's hint says
 * so for the ranks it waits for. */
int shmc__reqs_far(const struct shmc__p2p *p, size_t n, struct shmc__request *const *reqs,
                   uint32_t cpu)
{
    for (size_t i = 0; i < n; i++) {
        const struct shmc__request *r = reqs[i];
        if (!r || r->state != SHMC_RS_ACTIVE)
            continue;
        if (r->kind == SHMC_REQ_DRIVEN) {
            if (!r->ops->far || !r->ops->far(r->poll_arg, cpu))
                return 0;
            continue;
        }
        if (r->peer < 0 || r->peer == p->rank)
            return 0;
        const struct shmc__rank_cb *cb = p->peers[r->peer].ep.cb;
        if (!shmc__runs_elsewhere(cb, cpu) || !shmc__runs_now(cb))
            return 0;
    }
    return 1;
}

static int reqs_far(void *arg, uint32_t cpu)
{
    const struct reqset *s = arg;
    return shmc__reqs_far(s->p, s->n, s->reqs, cpu);
}

/* A driven request polled once, outside progress (none inside a driven poll). */
static inline void poll_driven(struct shmc__p2p *p, struct shmc__request *r)
{
    int err = SHMC_OK;
    if (r && r->state == SHMC_RS_ACTIVE && r->kind == SHMC_REQ_DRIVEN && !p->driving &&
        r->ops->poll(r->poll_arg, &err))
        shmc__req_complete(&p->reqs, r, err);
}

/* The wait of a set is over: none of its requests is waited for any more. */
static void unmark(size_t n, struct shmc__request *const *reqs)
{
    for (size_t i = 0; i < n; i++) /* (only where set: shmc__req_done is never written) */
        if (reqs[i] && reqs[i]->waited)
            reqs[i]->waited = 0;
}

/* How wait_set waits (flags): WS_STOP done at the first failure, WS_ANY done at the first
 * no longer pending, WS_POLLED the caller has just polled the set's driven requests
 * (shmc__finish_wait: polling them again before progress only adds to a schedule's wait). */
enum { WS_STOP = 1, WS_ANY = 2, WS_POLLED = 4 };

static int wait_set(struct shmc__p2p *p, size_t n, struct shmc__request *const *reqs, int flags,
                    int want_tag)
{
    int any = !!(flags & WS_ANY);
    struct reqset s = {p, n, reqs, !!(flags & WS_STOP), want_tag, SHMC_OK, any, 0};
    struct blk b = {0};
    int active = 0, ended = 0;
    struct shmc__request *first = NULL; /* the first still pending */
    /* The set's driven requests polled first, which is all most waits for them need (a
     * world collective whose round is over), before progress reads every mailbox; in
     * the same pass, the pending ones are marked and the first of them noted. */
    for (size_t i = 0; i < n; i++) {
        struct shmc__request *r = reqs[i];
        if (!r)
            continue;
        if (!(flags & WS_POLLED))
            poll_driven(p, r);
        if (r->state != SHMC_RS_ACTIVE) {
            ended = 1;
            continue;
        }
        if (!active++) { /* what a hang report names: the first still pending */
            first = r;
            b.op = r->kind;
            b.peer = r->peer;
            b.tag = shmc__tag_shown(r->tag);
            b.ctx = r->ctx;
            b.bytes = r->bytes;
        }
        r->waited = 1; /* doomed() (progress.c) may now fail it for want of peers */
    }
    /* Waiting for any one: one that is complete already ends it. */
    if (!active || (any && ended)) {
        unmark(n, reqs);
        reqs_done(&s);
        return any ? SHMC_OK : s.err;
    }
    struct spin_far far = {.elsewhere = reqs_far, .arg = &s};
    /* A wait whose first pending request is a collective call publishes it while blocked
     * (incall.h), as a blocking collective's does, unless this thread is in one already:
     * the call the hang report names beside that request's wait (blk above); one thread
     * only: the call published is the process's. Of several, the first may end before
     * the others: it stays published until the wait ends, as the blk fields do, which no
     * member's comparison can mistake (a call that ended matched its members' words). */
    int in_call = first->kind == SHMC_REQ_DRIVEN && first->ops->call && !shmc__multi &&
                  !p->incall.c && first->ops->call(first->poll_arg, &p->incall);
    int rc = wait_until(p, reqs_done, &s, &b, &far);
    if (in_call)
        shmc__incall_end(p);
    unmark(n, reqs);
    return rc != SHMC_OK ? rc : s.err;
}

int shmc__wait_requests(struct shmc__p2p *p, size_t n, struct shmc__request *const *reqs)
{
    return wait_set(p, n, reqs, 0, SHMC_ANY);
}

int shmc__wait_any(struct shmc__p2p *p, size_t n, struct shmc__request *const *reqs)
{
    return wait_set(p, n, reqs, WS_ANY, SHMC_ANY);
}

int shmc__wait_requests_exact(struct shmc__p2p *p, size_t n, struct shmc__request *const *reqs,
                              int want_tag)
{
    return wait_set(p, n, reqs, WS_STOP, want_tag);
}

int shmc__wait_pred(struct shmc__p2p *p, int (*done)(void *), int (*elsewhere)(void *, uint32_t),
                    void *arg, unsigned op, uint32_t ctx)
{
    struct blk b = {.op = op, .peer = SHMC_ANY, .tag = SHMC_ANY, .ctx = ctx};
    struct spin_far far = {.elsewhere = elsewhere, .arg = arg};
    return wait_until(p, done, arg, &b, &far);
}

int shmc__finish_wait(struct shmc__p2p *p, struct shmc__request *r, shmc_status *status)
{
    /* Never frees a request a peer may still fill: a wait that a call's time-out ended
     * (p2p.h, shmc__deadline) is followed by one without it. A driven request is polled
     * first: a small collective's wait needs no more where its round is over, and the
     * set's wait cost such a call a tenth of its instructions. */
    if (r->kind == SHMC_REQ_DRIVEN) {
        poll_driven(p, r);
        if (r->state == SHMC_RS_ACTIVE)
            wait_set(p, 1, &r, WS_POLLED, SHMC_ANY);
    }
    while (r->state == SHMC_RS_ACTIVE)
        shmc__wait_requests(p, 1, &r);
    return shmc__finish_ended(p, r, status);
}
