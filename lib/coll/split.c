/*
 * Making communicators: split, create_group and idup, collectives over the parent.
 *
 * Identity: every communicator gets a uid that its members agree on at creation, the
 * largest of their proposals (p2p.h, shmc__comm_uid_propose: no two proposals anywhere in
 * the job are equal), exchanged by messages (agree, below) so that makings from several
 * threads at once never wait for each other. So no two communicators ever have the same uid, even
 * after frees, or when makings on different parents overlap in different orders.
 * Contexts follow from the uid (p2p/comm.h), so messages of a freed communicator can
 * never match a later one's, and slot stamps (slot.c) of a freed communicator never pass
 * for a later one's. Nothing is allocated in the arena for one: creating and freeing
 * communicators costs process memory only, returned at free (shmc_comm_free,
 * p2p/calls.c); one of more than two ranks borrows one of the members' slot entries, a
 * fixed set in the arena, where every member offers one (nbcomm.h), which the members
 * agree on with the rest. The new communicator's memory is taken before the members agree
 * (p2p/comm.c reserves it), so nothing can fail on one member after the others made
 * theirs.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/cx.h"
#include "coll/nbc.h"
#include "coll/nbcomm.h"
#include "coll/sched.h"

/* The parent communicator a handle names (context in *x), alive. */
static int parent(const shmc_comm *h, struct shmc__cx *x)
{
    struct shmc__comm *c;
    int rc = shmc__coll_lookup(h, &c);
    if (rc != SHMC_OK)
        return rc;
    shmc__cx_init(x, &shmc__coll, c, SHMC_UINT8);
    rc = shmc__job_ok(x->co->p2p);
    return rc == SHMC_OK ? shmc__cx_failed(x) : rc;
}

/* What each member brings to a making. */
struct offer {
    uint32_t uid;       /* its proposal (shmc__comm_uid_propose) */
    uint32_t trouble;   /* 0; 1: its arguments are bad; 2: no memory for the new communicator */
    uint32_t threads;   /* 1: it may call from several threads at once (SHMC_THREAD_MULTIPLE) */
    int32_t color, key; /* split's */
    uint32_t entries;   /* the slot entries it offers (nbcomm.h) */
};

/* Folds member offer t into the verdict v: the largest uid, the worst trouble, and whether
 * any member may call from several threads at once. */
static void fold(struct offer *v, const struct offer *t)
{
    v->uid = t->uid > v->uid ? t->uid : v->uid;
    v->trouble = t->trouble > v->trouble ? t->trouble : v->trouble;
    v->threads |= t->threads;
}

/* One offer to or from comm rank q of x on x's nonblocking context under tag, waited for;
 * a received one of another size is another call's (SHMC_ERR_MISMATCH). The messages are
 * eager: a send is done at once, and a receive still waiting when the communicator's bound
 * passes is only posted, nobody writing into it, so it is taken back. */
static int one(const struct shmc__cx *x, int send, struct offer *o, int q, int tag)
{
    struct shmc__p2p *p = x->co->p2p;
    struct shmc__request *r;
    int w = shmc__comm_world_rank(x->c, q);
    uint32_t ctx = x->c->ctx + SHMC_CTX_NBC;
    /* one byte more than an offer: a longer message is found, not cut */
    int rc = send ? shmc__post_send(p, o, sizeof *o, 1, w, tag, ctx, x->c, 0, &r)
                  : shmc__post_recv(p, o, sizeof *o + 1, 1, w, tag, ctx, x->c, 0, &r);
    if (rc != SHMC_OK)
        return rc;
    if (shmc__wait_requests(p, 1, &r) == SHMC_ERR_TIMEOUT)
        shmc__p2p_cancel(p, r, SHMC_ERR_TIMEOUT);
    shmc_status st;
    rc = shmc__finish(p, r, &st);
    if (!send && (rc == SHMC_OK || rc == SHMC_ERR_TRUNCATE) && st.count != sizeof *o)
        rc = SHMC_ERR_MISMATCH;
    return rc;
}

/* This rank's offer (local: SHMC_OK, SHMC_ERR_ARG for its arguments or SHMC_ERR_NOMEM)
 * to every member and every member's to it, into all[q] unless all is NULL; then the
 * agreement: every rank returns the same, NOMEM if any rank ran out of memory, else ARG
 * if any rank's arguments were bad, so that no communicator exists on some members only;
 * *uid and *threads as agreed.
 *
 * The messages travel on the parent's nonblocking context under the number of its next
 * blocking call run by messages, which every member takes alike (sched.h), so they never
 * meet those of a collective in flight; each rank sends first (each send ends at once) and
 * then receives. No memory is needed, so a member out of it still takes part, and no
 * collective lock is held, so makings from several threads at once, on different parents
 * in any order on each rank, never wait for each other. */
static int agree(const struct shmc__cx *x, int local, int color, int key, uint32_t entries,
                 struct offer *all, uint32_t *uid, int *threads)
{
    struct shmc__p2p *p = x->co->p2p;
    struct offer mine = {shmc__comm_uid_propose(p),
                         local == SHMC_ERR_NOMEM ? 2u
                         : local != SHMC_OK      ? 1u
                                                 : 0u,
                         shmc__coll_threads(x->co),
                         color,
                         key,
                         entries};
    struct offer v = mine;
    int tag = shmc__sched_tag(x, 1), rc = SHMC_OK;
    if (all)
        all[x->me] = mine;
    uint32_t bound = x->c->timeout_ms;
    shmc__deadline_arm(bound); /* the agreement's waits end by then (p2p.h) */
    for (int i = 1; i < x->n && rc == SHMC_OK; i++)
        rc = one(x, 1, &mine, (x->me + i) % x->n, tag);
    for (int i = 1; i < x->n && rc == SHMC_OK; i++) {
        int q = (x->me + x->n - i) % x->n;
        struct offer t;
        if ((rc = one(x, 0, &t, q, tag)) != SHMC_OK)
            break;
        fold(&v, &t);
        if (all)
            all[q] = t;
    }
    shmc__deadline_disarm(bound);
    if (rc != SHMC_OK)
        return shmc__cx_outcome(x, rc);
    if (v.trouble)
        return v.trouble == 2 ? SHMC_ERR_NOMEM : SHMC_ERR_ARG;
    if (v.uid > SHMC_MAX_UID)
        return SHMC_ERR_LIMIT;
    *uid = v.uid;
    *threads = (int)v.threads;
    shmc__comm_uid_seen(p, v.uid);
    return SHMC_OK;
}

/* Installs the agreed communicator (fresh, reserved) of members (ranks of x's) and sets
 * how its blocking collectives run, and its slot entry: the lowest of those offered by
 * every member (all, this rank's offer included: mine). */
static shmc_comm *install(const struct shmc__cx *x, struct shmc__comm *fresh, const int *members,
                          int m, int me, uint32_t uid, int threads, const struct offer *all,
                          uint32_t mine)
{
    shmc_comm *h = shmc__comm_install(x->co->p2p, fresh, x->c, members, m, me, uid);
    shmc__coll_comm(fresh)->sched = (uint8_t)threads;
    uint32_t agreed = mine;
    for (int i = 0; i < m; i++)
        agreed &= all[members[i]].entries;
    shmc__nbcomm_take(x->co, fresh, mine, agreed);
    return h;
}

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
    int rc = parent(comm, &x);
    if (out)
        *out = NULL;
    if (rc != SHMC_OK)
        return rc;
    struct shmc__p2p *p = x.co->p2p;
    int n = x.n;
    struct shmc__comm *fresh = NULL;
    struct offer *all = malloc((size_t)n * sizeof *all);
    int *sorted = malloc((size_t)n * 2 * sizeof *sorted);
    int *members = malloc((size_t)n * sizeof *members);
    int local = all && sorted && members && (color < 0 || (fresh = shmc__comm_reserve(p, n)))
                    ? SHMC_OK
                    : SHMC_ERR_NOMEM;
    if (!out)
        local = local == SHMC_OK ? SHMC_ERR_ARG : local;
    /* Every rank takes part, whatever its own trouble, so that none is left waiting; the
     * worst trouble is then every rank's result. */
    uint32_t uid, entries = local == SHMC_OK && color >= 0 ? shmc__nbcomm_offer(x.co, n) : 0;
    int threads;
    if ((rc = agree(&x, local, color < 0 ? -1 : color, key, entries, all, &uid, &threads)) !=
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
    *out = install(&x, fresh, members, m, me, uid, threads, all, entries);
    fresh = NULL;
    entries = 0;
done:
    shmc__nbcomm_take(x.co, NULL, entries, 0);
    shmc__comm_unreserve(p, fresh);
    free(all);
    free(sorted);
    free(members);
    return rc;
}

static int shmc_comm_create_group_call(shmc_comm *comm, const int *ranks, int n, shmc_comm **out)
{
    struct shmc__cx x;
    int rc = parent(comm, &x);
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
    /* (the members' offers: a member's own and its entry's) */
    struct offer *all = me >= 0 ? malloc((size_t)x.n * sizeof *all) : NULL;
    if (me >= 0 && !all)
        local = SHMC_ERR_NOMEM;
    if (local == SHMC_OK && valid && me >= 0 && !(fresh = shmc__comm_reserve(p, n)))
        local = SHMC_ERR_NOMEM;
    if (local == SHMC_OK && !valid)
        local = SHMC_ERR_ARG;
    uint32_t uid, entries = local == SHMC_OK && me >= 0 ? shmc__nbcomm_offer(x.co, n) : 0;
    int threads;
    if ((rc = agree(&x, local, 0, 0, entries, all, &uid, &threads)) == SHMC_OK && me >= 0) {
        *out = install(&x, fresh, ranks, n, me, uid, threads, all, entries);
        fresh = NULL;
        entries = 0;
    }
    shmc__nbcomm_take(x.co, NULL, entries, 0);
    shmc__comm_unreserve(p, fresh);
    free(all);
    return rc;
}

/* ---- shmc_comm_idup ----------------------------------------------------------------------
 * The members agree on the uid, on whether each could reserve the new communicator, on
 * whether any may call from several threads at once and on the slot entries every member
 * offers by a nonblocking all-reduce (MAX) of their proposals, troubles, thread modes and
 * a word per entry, 1 where it is not offered; the new one is installed when it ends. */
#define IDUP_WORDS (3 + SHMC_SLOT_ENTRIES)
struct idup {
    struct shmc__p2p *p;
    struct shmc__comm *parent, *fresh;
    uint32_t v[IDUP_WORDS], agreed[IDUP_WORDS]; /* uid, trouble, threads, entries not offered */
    uint32_t entries;                           /* this rank's offer */
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
    shmc__coll_comm(d->fresh)->sched = (uint8_t)d->agreed[2];
    uint32_t agreed = 0;
    for (unsigned i = 0; i < SHMC_SLOT_ENTRIES; i++)
        agreed |= (uint32_t)!d->agreed[3 + i] << i;
    shmc__nbcomm_take(&shmc__coll, d->fresh, d->entries, agreed);
    d->entries = 0;
    d->fresh = NULL;
    return SHMC_OK;
}

static void idup_end(void *arg, int err)
{
    struct idup *d = arg;
    (void)err;
    shmc__nbcomm_take(&shmc__coll, NULL, d->entries, 0);
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
    if (!d) /* (on this rank alone: the members' agreement would wait for it) */
        return shmc__cx_drop(p, c, SHMC_ERR_NOMEM);
    d->p = p;
    d->parent = c;
    d->out = out;
    d->members = malloc((size_t)c->size * sizeof *d->members);
    d->fresh = d->members ? shmc__comm_reserve(p, c->size) : NULL;
    for (int i = 0; d->members && i < c->size; i++)
        d->members[i] = i;
    d->v[0] = shmc__comm_uid_propose(p);
    d->v[1] = d->fresh ? 0u : 2u;
    d->v[2] = (uint32_t)shmc__coll_threads(&shmc__coll);
    d->entries = d->fresh ? shmc__nbcomm_offer(&shmc__coll, c->size) : 0;
    for (unsigned i = 0; i < SHMC_SLOT_ENTRIES; i++)
        d->v[3 + i] = !(d->entries >> i & 1);
    struct shmc__sched *s = shmc__sched_new(&x, 2 * IDUP_WORDS * sizeof(uint32_t));
    if (!s) {
        idup_end(d, SHMC_ERR_NOMEM);
        return SHMC_ERR_NOMEM;
    }
    shmc__sched_on_end(s, idup_end, d);
    rc = shmc__nbc_reduce_steps_into(s, &x, d->v, d->agreed, IDUP_WORDS);
    if (rc == SHMC_OK) {
        shmc__sched_call(s, idup_install, d);
        rc = shmc__sched_start(s, req); /* (on failure, the schedule's end frees d) */
    }
    return rc;
}

/* ---- the public entry points (shmcomm.h, Threads): under shmc__big alone, since the
 * agreements are schedules ------------------------------------------------------------- */

SHMC_API int shmc_comm_split(shmc_comm *comm, int color, int key, shmc_comm **out)
{
    SHMC_GUARDED(&shmc__p2p, shmc_comm_split_call(comm, color, key, out));
}

SHMC_API int shmc_comm_create_group(shmc_comm *comm, const int *ranks, int n, shmc_comm **out)
{
    SHMC_GUARDED(&shmc__p2p, shmc_comm_create_group_call(comm, ranks, n, out));
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
