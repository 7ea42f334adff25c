/*
 * Making communicators: split and create_group, collectives over the parent.
 *
 * Identity: every communicator gets a uid that its members agree on at creation, the
 * largest "next uid" among the parent's ranks (one one-step all-reduce, onestep.c). Each
 * process's next uid then moves past it, so no two communicators that share a member
 * ever have the same uid, even after frees. Contexts follow from the uid (p2p/comm.h), so
 * messages of a freed communicator can never match a later one's, and slot stamps
 * (slot.c) of a freed communicator never pass for a later one's. Nothing is allocated in
 * the arena: creating and freeing communicators costs process memory only, returned at
 * free (shmc_comm_free, p2p/calls.c). The new communicator's memory is taken before the
 * members agree (p2p/comm.c reserves it), so nothing can fail on one member after the
 * others made theirs.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/callword.h"
#include "coll/cx.h"
#include "coll/nbc.h"
#include "coll/onestep.h"
#include "coll/sched.h"

/* The parent communicator a handle names, for a call `what` on it (context in *x; the
 * caller leaves the call, callword.h, if this succeeds). */
static int parent(const shmc_comm *h, unsigned what, struct shmc__cx *x)
{
    struct shmc__comm *c;
    int rc = shmc__coll_lookup(h, &c);
    if (rc != SHMC_OK)
        return rc;
    shmc__cx_init(x, &shmc__coll, c, SHMC_UINT32);
    rc = shmc__job_ok(x->co->p2p);
    if (rc == SHMC_OK && (rc = shmc__cx_failed(x)) == SHMC_OK) {
        const uint64_t w[2] = {0, shmc__call_word1(what, 0, 0, 0, 0)};
        shmc__cx_enter(x, w);
    }
    return rc;
}

/* Agrees on a uid over the parent, and on whether every rank could go on: local is this
 * rank's SHMC_OK, SHMC_ERR_ARG (its arguments) or SHMC_ERR_NOMEM (it could not get the
 * memory for the new communicator). Every rank returns the same: NOMEM if any rank ran
 * out of memory, else ARG if any rank's arguments were bad, so that no communicator
 * exists on some members only. */
static int agree(const struct shmc__cx *x, int local, uint32_t *uid)
{
    struct shmc__p2p *p = x->co->p2p;
    struct shmc__cx y = shmc__cx_host(x, SHMC_UINT32, SHMC_MAX);
    uint32_t v[2] = {shmc__comm_uid_next(p), local == SHMC_ERR_NOMEM ? 2u
                                             : local != SHMC_OK      ? 1u
                                                                     : 0u};
    int rc = shmc__cx_outcome(x, shmc__onestep_allreduce(&y, v, v, 2));
    if (rc != SHMC_OK)
        return rc;
    if (v[1])
        return v[1] == 2 ? SHMC_ERR_NOMEM : SHMC_ERR_ARG;
    if (v[0] > SHMC_MAX_UID)
        return SHMC_ERR_LIMIT;
    *uid = v[0];
    shmc__comm_uid_seen(p, v[0]);
    return SHMC_OK;
}

struct split_entry {
    int32_t color, key;
};

static int by_key_then_rank(const void *a, const void *b)
{
    const int *x = a, *y = b; /* {key, parent rank} */
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int shmc_comm_split_call(shmc_comm *comm, int color, int key, shmc_comm **out)
{
    struct shmc__cx x;
    int rc = parent(comm, SHMC_CALL_SPLIT, &x);
    if (out)
        *out = NULL;
    if (rc != SHMC_OK)
        return rc;
    struct shmc__p2p *p = x.co->p2p;
    int n = x.n;
    struct shmc__comm *fresh = NULL;
    struct split_entry *all = malloc((size_t)n * sizeof *all);
    int *sorted = malloc((size_t)n * 2 * sizeof *sorted);
    int *members = malloc((size_t)n * sizeof *members);
    int local = all && sorted && members && (color < 0 || (fresh = shmc__comm_reserve(p, n)))
                    ? SHMC_OK
                    : SHMC_ERR_NOMEM;
    if (!out)
        local = local == SHMC_OK ? SHMC_ERR_ARG : local;
    /* Every rank takes part, whatever its own trouble, so that none is left waiting; the
     * worst trouble is then every rank's result. */
    uint32_t uid;
    if ((rc = agree(&x, local, &uid)) != SHMC_OK)
        goto done;
    struct split_entry mine = {color < 0 ? -1 : color, key};
    if ((rc = shmc__cx_outcome(&x, shmc__onestep_allgather(&x, &mine, all, sizeof mine))) !=
            SHMC_OK ||
        color < 0)
        goto done;
    int m = 0, me = -1;
    for (int r = 0; r < n; r++) {
        if (all[r].color == color) {
            sorted[2 * m] = all[r].key;
            sorted[2 * m + 1] = r;
            m++;
        }
    }
    qsort(sorted, (size_t)m, 2 * sizeof *sorted, by_key_then_rank);
    for (int i = 0; i < m; i++) {
        members[i] = sorted[2 * i + 1];
        if (members[i] == x.me)
            me = i;
    }
    *out = shmc__comm_install(p, fresh, x.c, members, m, me, uid);
    fresh = NULL;
done:
    shmc__comm_unreserve(p, fresh);
    free(all);
    free(sorted);
    free(members);
    return shmc__cx_leave(&x, rc);
}

static int shmc_comm_create_group_call(shmc_comm *comm, const int *ranks, int n, shmc_comm **out)
{
    struct shmc__cx x;
    int rc = parent(comm, SHMC_CALL_CREATE_GROUP, &x);
    if (out)
        *out = NULL;
    if (rc != SHMC_OK)
        return rc;
    struct shmc__p2p *p = x.co->p2p;
    /* Checked locally, agreed collectively: a bad list, or no memory, fails on every rank. */
    int valid = out != NULL && n >= 0 && n <= x.n && (ranks || n == 0);
    int me = -1;
    char *seen = calloc((size_t)x.n, 1);
    struct shmc__comm *fresh = NULL;
    int local = seen ? SHMC_OK : SHMC_ERR_NOMEM;
    for (int i = 0; seen && valid && i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= x.n || seen[ranks[i]]) {
            valid = 0;
            break;
        }
        seen[ranks[i]] = 1;
        if (ranks[i] == x.me)
            me = i;
    }
    free(seen);
    if (local == SHMC_OK && valid && me >= 0 && !(fresh = shmc__comm_reserve(p, n)))
        local = SHMC_ERR_NOMEM;
    if (local == SHMC_OK && !valid)
        local = SHMC_ERR_ARG;
    uint32_t uid;
    if ((rc = agree(&x, local, &uid)) == SHMC_OK && me >= 0) {
        *out = shmc__comm_install(p, fresh, x.c, ranks, n, me, uid);
        fresh = NULL;
    }
    shmc__comm_unreserve(p, fresh);
    return shmc__cx_leave(&x, rc);
}

/* ---- shmc_comm_idup ----------------------------------------------------------------------
 * The members agree on the uid and on whether each could reserve the new communicator by
 * a nonblocking all-reduce (MAX) of their next uid and trouble; the new one is installed
 * when it ends. Each member's next uid moves past its own proposal at the start, so that
 * a communicator made meanwhile (whose agreed uid is the largest of proposals each larger
 * than this call's) never gets the same uid. */
struct idup {
    struct shmc__p2p *p;
    struct shmc__comm *parent, *fresh;
    uint32_t v[2], agreed[2];
    int *members;
    shmc_comm **out;
};

static int idup_install(void *arg)
{
    struct idup *d = arg;
    if (d->agreed[1])
        return d->agreed[1] == 2 ? SHMC_ERR_NOMEM : SHMC_ERR_ARG;
    if (d->agreed[0] > SHMC_MAX_UID)
        return SHMC_ERR_LIMIT;
    shmc__comm_uid_seen(d->p, d->agreed[0]);
    *d->out = shmc__comm_install(d->p, d->fresh, d->parent, d->members, d->parent->size,
                                 d->parent->rank, d->agreed[0]);
    d->fresh = NULL;
    return SHMC_OK;
}

static void idup_end(void *arg, int err)
{
    struct idup *d = arg;
    (void)err;
    shmc__comm_unreserve(d->p, d->fresh);
    free(d->members);
    free(d);
}

static int shmc_comm_idup_call(shmc_comm *comm, shmc_comm **out, struct shmc__request **req)
{
    struct shmc__comm *c;
    int rc = shmc__coll_lookup(comm, &c);
    if (rc != SHMC_OK)
        return rc;
    if (!out)
        return SHMC_ERR_ARG;
    *out = NULL;
    struct shmc__p2p *p = shmc__coll.p2p;
    struct shmc__cx x;
    shmc__cx_init(&x, &shmc__coll, c, SHMC_UINT32);
    x.op = SHMC_MAX;
    struct idup *d = calloc(1, sizeof *d);
    if (!d)
        return SHMC_ERR_NOMEM; /* (on this rank alone: before anything is agreed) */
    d->p = p;
    d->parent = c;
    d->out = out;
    d->members = malloc((size_t)c->size * sizeof *d->members);
    d->fresh = d->members ? shmc__comm_reserve(p, c->size) : NULL;
    for (int i = 0; d->members && i < c->size; i++)
        d->members[i] = i;
    d->v[0] = shmc__comm_uid_next(p);
    d->v[1] = d->fresh ? 0u : 2u;
    shmc__comm_uid_seen(p, d->v[0]);
    struct shmc__sched *s = shmc__sched_new(&x, 2 * 2 * sizeof(uint32_t));
    if (!s) {
        idup_end(d, SHMC_ERR_NOMEM);
        return SHMC_ERR_NOMEM;
    }
    shmc__sched_on_end(s, idup_end, d);
    rc = shmc__nbc_reduce_steps_into(s, &x, d->v, d->agreed, 2);
    if (rc == SHMC_OK) {
        shmc__sched_call(s, idup_install, d);
        rc = shmc__sched_start(s, req); /* (on failure, the schedule's end frees d) */
    }
    return rc;
}

/* ---- the public entry points: one call at a time per process (shmcomm.h, Threads) ---- */

SHMC_API int shmc_comm_split(shmc_comm *comm, int color, int key, shmc_comm **out)
{
    SHMC_GUARDED_COLL(shmc_comm_split_call(comm, color, key, out));
}

SHMC_API int shmc_comm_create_group(shmc_comm *comm, const int *ranks, int n, shmc_comm **out)
{
    SHMC_GUARDED_COLL(shmc_comm_create_group_call(comm, ranks, n, out));
}

static int nb_handle(int rc, struct shmc__request *const *r, shmc_request **req)
{
    *req = rc == SHMC_OK && *r ? shmc__req_handle(*r) : NULL;
    return rc;
}

SHMC_API int shmc_comm_idup(shmc_comm *comm, shmc_comm **out, shmc_request **req)
{
    if (!req)
        return SHMC_ERR_ARG;
    *req = NULL;
    struct shmc__request *r = NULL;
    SHMC_GUARDED(&shmc__p2p, nb_handle(shmc_comm_idup_call(comm, out, &r), &r, req));
}
