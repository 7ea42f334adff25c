/*
 * What every public collective does before and after its algorithm: the argument checks,
 * a call's memory kind, the common start (the call's words, SHMC_CHECK's agreement) and
 * the common tail. Shared by collectives.c and vcollectives.c.
 */
#ifndef SHMC_COLL_ENTRY_H
#define SHMC_COLL_ENTRY_H

#include <stdint.h>

#include "base/log.h"
#include "base/userop.h"
#include "coll/callword.h"
#include "coll/check.h"
#include "coll/dispatch.h"
#include "coll/nbc.h"
#include "coll/nbcomm.h"
#include "coll/nbworld.h"

/* ---- checks -------------------------------------------------------------------------- */

/* How many blocks of count elements a call's largest buffer holds. */
enum { NO_DATA, ONE_BLOCK, BLOCK_PER_RANK };

/* Fills x for a call on the communicator handle h; checks it, the dtype and that the
 * largest buffer's count elements per block fit in size_t. */
static inline int setup(struct shmc__cx *x, shmc_comm *h, size_t count, int blocks, shmc_dtype dt)
{
    struct shmc__comm *comm;
    int rc = shmc__coll_lookup(h, &comm);
    if (rc != SHMC_OK)
        return rc;
    size_t es = shmc__dtype_size(dt);
    size_t nblocks = blocks == BLOCK_PER_RANK ? (size_t)comm->size : blocks == ONE_BLOCK;
    if (!es || (nblocks && count > SIZE_MAX / es / nblocks))
        return SHMC_ERR_ARG;
    shmc__cx_init(x, &shmc__coll, comm, dt);
    return shmc__job_ok(shmc__coll.p2p);
}

/* The memory kind of the call on this rank, from the buffers it uses (NULL and
 * SHMC_IN_PLACE where it uses none): both of one kind, or SHMC_ERR_ARG. */
static inline int set_kind(struct shmc__cx *x, const void *a, const void *b)
{
    int da = a && a != SHMC_IN_PLACE && shmc__mk_dev(a);
    int db = b && b != SHMC_IN_PLACE && shmc__mk_dev(b);
    if (a && a != SHMC_IN_PLACE && b && b != SHMC_IN_PLACE && da != db) {
        SHMC_ERROR("a collective's send and receive buffers must both be host memory or both "
                   "device memory; copy one of them first");
        return SHMC_ERR_ARG;
    }
    x->dev = da || db;
    if (x->dev && shmc__op_user(x->op)) {
        SHMC_ERROR("a user-defined op runs on the host: reduce device buffers with a built-in "
                   "op, or copy them to host memory first");
        return SHMC_ERR_ARG;
    }
    return SHMC_OK;
}

static inline int check_root(struct shmc__cx *x, int root)
{
    x->root = root;
    return root >= 0 && root < x->n ? SHMC_OK : SHMC_ERR_RANK;
}

static inline int check_op(struct shmc__cx *x, shmc_op op)
{
    x->op = op;
    return shmc__reduce_check(x->dt, op);
}

/* Send and receive buffers that share a byte, where the call uses both (the in-place
 * forms are the way to reuse a buffer). */
static inline int check_apart(const void *sbuf, size_t sbytes, const void *rbuf, size_t rbytes)
{
    if (sbuf == SHMC_IN_PLACE || rbuf == SHMC_IN_PLACE)
        return SHMC_OK;
    return shmc__overlap(sbuf, sbytes, rbuf, rbytes) ? SHMC_ERR_ARG : SHMC_OK;
}

/* ---- the common start and tail ------------------------------------------------------ */

/* The call starts on every member alike: its words (w) ride in every synchronisation of
 * it unless SHMC_CHECK=0 (callword.h), and SHMC_CHECK=1 also agrees on them before
 * anything runs (check.c). The caller then runs the call unless this failed, and leaves it
 * (shmc__cx_leave) either way. Inlined: left to the compiler, it became a call of its own
 * on every blocking collective's path once a user op's words took a branch (22
 * instructions more, bench/path_cost.sh). */
__attribute__((always_inline)) static inline int start(int coll, struct shmc__cx *x, size_t count,
                                                       const uint64_t w[2])
{
    shmc__cx_enter(x, w);
    return x->co->check == SHMC_CHECK_FULL ? shmc__coll_check(coll, x, count) : SHMC_OK;
}

/* After the call's arguments are checked: one more member-wide check that the call is
 * alive (after a failure part-way, here or on a member, every collective fails: cx.h),
 * the start (its words w, SHMC_CHECK), the algorithm, and the outcome (cx.h); returns
 * from the enclosing function. A macro because the algorithm must run between the start
 * and the leaving, whatever its arguments. SHMC_CX_RUN works the words out from x and
 * count; a call whose words are a constant (the barrier's) gives them. */
#define SHMC_CX_RUN_WORDS(coll, x, count, w, algorithm)                                            \
    do {                                                                                           \
        int cx_run_rc_ = shmc__cx_failed(x);                                                       \
        if (cx_run_rc_ != SHMC_OK)                                                                 \
            return cx_run_rc_;                                                                     \
        shmc__coll_lock_take();                                                                    \
        cx_run_rc_ = start((coll), (x), (count), (w));                                             \
        if (cx_run_rc_ == SHMC_OK)                                                                 \
            cx_run_rc_ = (algorithm);                                                              \
        cx_run_rc_ = shmc__cx_leave((x), shmc__cx_outcome((x), cx_run_rc_));                       \
        shmc__coll_lock_give();                                                                    \
        return cx_run_rc_;                                                                         \
    } while (0)
#define SHMC_CX_RUN(coll, x, count, algorithm)                                                     \
    do {                                                                                           \
        uint64_t cx_run_w_[2];                                                                     \
        shmc__call_words((unsigned)(coll), (x), (count), cx_run_w_);                               \
        SHMC_CX_RUN_WORDS(coll, x, count, cx_run_w_, algorithm);                                   \
    } while (0)

/* Does call x run as a schedule? A nonblocking call does (its buffers checked into *rc,
 * shmc__nbc_host); so does a blocking one with host buffers on several ranks of a
 * communicator whose blocking collectives run as schedules (struct shmc__coll_comm),
 * which takes shmc__coll_own as its request for SHMC_COLL_GUARDED to wait for. Either
 * fails at once where a member quit the communicator's collectives, and this rank quits
 * them too, as SHMC_CX_RUN's check does: a member's offer that reached this rank for the
 * call (a schedule's rendezvous send) is declined then, where a start that only returned
 * the error left it unanswered, and its sender waiting for ever. */
static inline int by_schedule(struct shmc__cx *x, int *rc)
{
    if (x->nb) {
        *rc = shmc__nbc_host(x);
        if (*rc == SHMC_OK)
            *rc = shmc__cx_failed(x);
        return 1;
    }
    if (!x->cc->sched || x->dev || x->n == 1)
        return 0;
    x->nb = &shmc__coll_own;
    x->own = 1;
    shmc__coll_owning = 1;
    /* (relaxed: only this thread's own read of it in shmc__nbc_wait_own must see it) */
    __atomic_fetch_add(&shmc__coll_owners, 1, __ATOMIC_RELAXED);
    x->co->scheduled++;
    *rc = shmc__cx_failed(x);
    return 1;
}

/* A call that runs as a schedule (by_schedule): unless SHMC_CHECK=0, its words (what,
 * count: those its blocking form carries, start) and their hash, which its messages' tags
 * carry (coll/sched.h), so that a member whose call differs is found by its messages, and
 * a gate on the world's lane (nbworld.h) too. */
static inline void schedule_words(struct shmc__cx *x, unsigned what, size_t count)
{
    if (x->co->check)
        x->hash = shmc__call_words_hash(what, x, count, !x->own, x->call);
}

/* by_schedule for a call that, going by a schedule, goes by one of messages whatever its
 * size (the v-forms, the scans, the all-to-allv), with its words (schedule_words). */
static inline int by_schedule_words(struct shmc__cx *x, unsigned what, size_t count, int *rc)
{
    if (!by_schedule(x, rc))
        return 0;
    schedule_words(x, what, count);
    return 1;
}

/* What the start of a call run as a schedule (by_schedule) returns, rc: where it ran out
 * of memory (its schedule, a request, its blocks' table), on this rank alone, this rank
 * drops out of the communicator's collectives (shmc__cx_drop), since the members started
 * the same call and would wait for its messages for ever. */
static inline int sched_began(const struct shmc__cx *x, int rc)
{
    return rc == SHMC_ERR_NOMEM ? shmc__cx_drop(x->co->p2p, x->c, rc) : rc;
}

/* The body of a blocking collective's public entry point: the call, and then, if it
 * started a schedule of its own (by_schedule), the wait for it. Only shmc__big is held,
 * so that a schedule waited for here lets collectives on other communicators run meanwhile;
 * the algorithms of the shared slots take shmc__coll_lock themselves (SHMC_CX_RUN). */
#define SHMC_COLL_GUARDED(call) SHMC_GUARDED(&shmc__p2p, shmc__nbc_wait_own((call)))

/* The common tail of every collective once its arguments are checked and resolved: with
 * SHMC_CHECK, the check that every member made the same call (check.c); nothing to do
 * for count 0; a local copy for one rank (whatever the collective, the result is then
 * the rank's own count elements); otherwise the chosen algorithm (dispatch.c). bytes is
 * what the choice sizes by: each rank's whole buffer, the vector of broadcast, reduce and
 * all-reduce, all n blocks of the others (as bench/coll_bench measures it). */
static inline int run(int coll, struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count,
                      size_t bytes)
{
    int rc;
    if (by_schedule(x, &rc)) {
        if (rc != SHMC_OK)
            return rc;
        /* The world's lane, and a communicator's slot entry, take nonblocking calls in the
         * order started: not a blocking call's own schedule, nor a persistent collective
         * (shmc_coll_as). */
        int own = x->own || shmc__coll_as_get() >= 0;
        int how = own ? 0 : shmc__nbw_takes(coll, x, count, bytes);
        if (how > 0)
            return sched_began(x, shmc__nbw_start(how, coll, x, sbuf, rbuf, count));
        if (!own && shmc__nbcomm_takes(coll, x, count, bytes))
            return sched_began(x, shmc__nbcomm_start(coll, x, sbuf, rbuf, count));
        schedule_words(x, (unsigned)coll, count);
        if (how == SHMC_NBW_GATED && (rc = shmc__nbw_gate(x, coll, count)) != SHMC_OK)
            return sched_began(x, rc);
        /* (a gate took its stamp: nbslot.h) */
        if (!own && how != SHMC_NBW_GATED)
            x->slot_stamp = shmc__nbs_mark(coll, x);
        return sched_began(x, shmc__nbc_run(coll, x, sbuf, rbuf, count));
    }
    if (x->n == 1) {
        if (count && sbuf && rbuf && sbuf != rbuf)
            return shmc__copy_kind(rbuf, sbuf, count * x->es, x->dev);
        return SHMC_OK;
    }
    SHMC_CX_RUN(coll, x, count,
                count ? shmc__coll_run(coll, x, sbuf, rbuf, count, bytes) : SHMC_OK);
}

/* The arguments of a call that combines count elements of every rank's sendbuf into
 * recvbuf (all-reduce, scan, exscan): checked, the in-place form resolved (*sbuf becomes
 * rbuf), the memory kind set. */
static inline int vector_args(struct shmc__cx *x, shmc_comm *comm, const void **sbuf, void *rbuf,
                              size_t count, shmc_dtype dtype, shmc_op op)
{
    int rc = setup(x, comm, count, ONE_BLOCK, dtype);
    if (rc != SHMC_OK || (rc = check_op(x, op)) != SHMC_OK ||
        (rc = check_apart(*sbuf, count * x->es, rbuf, count * x->es)) != SHMC_OK)
        return rc;
    if (*sbuf == SHMC_IN_PLACE)
        *sbuf = rbuf;
    if (count && (!*sbuf || !rbuf || rbuf == SHMC_IN_PLACE))
        return SHMC_ERR_ARG;
    return count ? set_kind(x, *sbuf, rbuf) : SHMC_OK;
}

/* The extent, in elements, of n blocks at displs with counts: the largest displs[i] +
 * counts[i], or SIZE_MAX when one overflows. */
static inline size_t extent(int n, const size_t *counts, const size_t *displs)
{
    size_t end = 0;
    for (int i = 0; i < n; i++) {
        if (counts[i] > SIZE_MAX - displs[i])
            return SIZE_MAX;
        if (counts[i] && displs[i] + counts[i] > end)
            end = displs[i] + counts[i];
    }
    return end;
}

/* ---- the nonblocking entry points --------------------------------------------------- */

/* The handle of the request a nonblocking call made (*r), once it returned rc. A failure
 * that the other members caused (a different call, a member gone, the job aborted, the
 * communicator's time-out) is the call's outcome, which its wait or test returns, as one
 * found a moment later would be: whether the start already sees it depends only on who
 * came first (a schedule's gate meets a different call at once). The call's own faults
 * (its arguments, memory) are returned at once. */
static inline int nb_handle(int rc, struct shmc__request *const *r, shmc_request **req)
{
    if (rc == SHMC_ERR_MISMATCH || rc == SHMC_ERR_PEER_DEAD || rc == SHMC_ERR_ABORTED ||
        rc == SHMC_ERR_TIMEOUT) {
        struct shmc__request *ended = *r ? NULL : shmc__req_ended(&shmc__p2p.reqs, rc);
        if (ended) {
            *req = shmc__req_handle(ended);
            return SHMC_OK;
        }
    }
    *req = rc == SHMC_OK && *r ? shmc__req_handle(*r) : NULL;
    return rc;
}

/* A nonblocking call's public entry: call, given &nb_r_ as its request's place, runs
 * under the process's call guard alone (not the blocking collectives' lock: several may
 * be in flight, from several threads), and its handle goes to *req. */
#define SHMC_NB_GUARDED(req, call)                                                                 \
    do {                                                                                           \
        if (!(req))                                                                                \
            return SHMC_ERR_ARG;                                                                   \
        *(req) = NULL;                                                                             \
        struct shmc__request *nb_r_ = NULL;                                                        \
        SHMC_GUARDED(&shmc__p2p, nb_handle((call), &nb_r_, (req)));                                \
    } while (0)

#endif /* SHMC_COLL_ENTRY_H */
