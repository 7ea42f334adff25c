/*
 * The calls on arrays of requests: shmc_waitall, shmc_waitany, shmc_testany and
 * shmc_testall. Each first turns every handle into its live request, checking all before
 * touching any, so that a bad handle (or one named twice, which would be finished twice)
 * leaves every request pending; then waits, or advances once, with the shortest time-out
 * of the requests' communicators.
 */
#include <stdlib.h>

#include "p2p/p2p.h"
#include "p2p/progress.h"

static const shmc_status empty_status = {SHMC_ANY_SOURCE, SHMC_ANY_TAG, 0, SHMC_OK};

/* The live requests behind n handles: on the stack for a few, else allocated. */
struct live {
    struct shmc__request *few[16];
    struct shmc__request **r;
    uint32_t timeout_ms; /* the shortest of their communicators' time-outs; 0 none */
};

static void live_release(struct live *l)
{
    if (l->r != l->few)
        free(l->r);
}

static int live_get(struct shmc__p2p *p, size_t n, shmc_request **reqs, struct live *l)
{
    l->r = l->few;
    l->timeout_ms = 0;
    if (n && !reqs)
        return SHMC_ERR_ARG;
    if (n > 16 && (n > SIZE_MAX / sizeof *l->r || !(l->r = malloc(n * sizeof *l->r)))) {
        l->r = l->few;
        return SHMC_ERR_NOMEM;
    }
    int rc = SHMC_OK;
    size_t i;
    for (i = 0; i < n; i++) {
        l->r[i] = reqs[i] ? shmc__req_from_handle(&p->reqs, reqs[i]) : NULL;
        if (reqs[i] && (!l->r[i] || l->r[i]->listed)) {
            rc = SHMC_ERR_ARG;
            break;
        }
        struct shmc__request *r = l->r[i];
        if (!r || r == &shmc__req_done) /* (it may be named any number of times) */
            continue;
        r->listed = 1;
        if (r->comm && r->comm->timeout_ms &&
            (!l->timeout_ms || r->comm->timeout_ms < l->timeout_ms))
            l->timeout_ms = r->comm->timeout_ms;
    }
    for (size_t j = 0; j < i; j++)
        if (l->r[j] && l->r[j]->listed)
            l->r[j]->listed = 0;
    if (rc != SHMC_OK)
        live_release(l);
    return rc;
}

/* Finishes every request (all complete), as shmc_waitall reports them. */
static int finish_all(struct shmc__p2p *p, size_t n, shmc_request **reqs, struct live *l,
                      shmc_status *statuses)
{
    int first = SHMC_OK;
    for (size_t i = 0; i < n; i++) {
        shmc_status *st = statuses ? &statuses[i] : NULL;
        if (!l->r[i]) {
            if (st)
                *st = empty_status;
            continue;
        }
        int err = shmc__finish(p, l->r[i], st);
        reqs[i] = NULL;
        if (err != SHMC_OK && first == SHMC_OK)
            first = err;
    }
    return first;
}

/* The lowest index of a request no longer pending, or SHMC_INDEX_NONE. */
static size_t first_done(size_t n, const struct live *l)
{
    for (size_t i = 0; i < n; i++)
        if (l->r[i] && l->r[i]->state != SHMC_RS_ACTIVE)
            return i;
    return SHMC_INDEX_NONE;
}

static int any_pending(size_t n, const struct live *l)
{
    for (size_t i = 0; i < n; i++)
        if (l->r[i])
            return 1;
    return 0;
}

static int shmc_waitall_call(size_t n, shmc_request **reqs, shmc_status *statuses)
{
    struct shmc__p2p *p = &shmc__p2p;
    struct live l;
    if (p->phase != SHMC_P2P_READY)
        return SHMC_ERR_NOT_INIT;
    int rc = live_get(p, n, reqs, &l);
    if (rc != SHMC_OK)
        return rc;
    /* All stay pending if the time-out passes. */
    shmc__deadline_arm(l.timeout_ms);
    rc = shmc__wait_requests(p, n, l.r);
    shmc__deadline_disarm(l.timeout_ms);
    if (rc != SHMC_ERR_TIMEOUT)
        rc = finish_all(p, n, reqs, &l, statuses);
    live_release(&l);
    return rc;
}

static int shmc_testall_call(size_t n, shmc_request **reqs, int *done, shmc_status *statuses)
{
    struct shmc__p2p *p = &shmc__p2p;
    struct live l;
    if (p->phase != SHMC_P2P_READY)
        return SHMC_ERR_NOT_INIT;
    if (!done)
        return SHMC_ERR_ARG;
    *done = 0;
    int rc = live_get(p, n, reqs, &l);
    if (rc != SHMC_OK)
        return rc;
    shmc__test_look(p);
    size_t i;
    for (i = 0; i < n && (!l.r[i] || l.r[i]->state != SHMC_RS_ACTIVE); i++)
        ;
    if (i == n) {
        *done = 1;
        rc = finish_all(p, n, reqs, &l, statuses);
    }
    live_release(&l);
    return rc;
}

/* waitany (wait) and testany (!wait). */
static int any_call(size_t n, shmc_request **reqs, size_t *index, int *done, shmc_status *status,
                    int wait)
{
    struct shmc__p2p *p = &shmc__p2p;
    struct live l;
    if (p->phase != SHMC_P2P_READY)
        return SHMC_ERR_NOT_INIT;
    if (!index || (!wait && !done))
        return SHMC_ERR_ARG;
    *index = SHMC_INDEX_NONE;
    if (done)
        *done = 0;
    int rc = live_get(p, n, reqs, &l);
    if (rc != SHMC_OK)
        return rc;
    if (!any_pending(n, &l)) {
        if (done)
            *done = 1;
        if (status)
            *status = empty_status;
        live_release(&l);
        return SHMC_OK;
    }
    if (wait) {
        shmc__deadline_arm(l.timeout_ms);
        rc = shmc__wait_any(p, n, l.r);
        shmc__deadline_disarm(l.timeout_ms);
    } else if (first_done(n, &l) == SHMC_INDEX_NONE) {
        shmc__test_look(p);
    }
    /* After an abort every request has failed with it: the first is reported. After a
     * time-out all stay pending. */
    size_t i = first_done(n, &l);
    if ((rc == SHMC_OK || rc == SHMC_ERR_ABORTED) && i != SHMC_INDEX_NONE) {
        *index = i;
        if (done)
            *done = 1;
        rc = shmc__finish(p, l.r[i], status);
        reqs[i] = NULL;
    }
    live_release(&l);
    return rc;
}

SHMC_API int shmc_waitall(size_t n, shmc_request **reqs, shmc_status *statuses)
{
    SHMC_GUARDED(&shmc__p2p, shmc_waitall_call(n, reqs, statuses));
}

SHMC_API int shmc_testall(size_t n, shmc_request **reqs, int *done, shmc_status *statuses)
{
    SHMC_GUARDED(&shmc__p2p, shmc_testall_call(n, reqs, done, statuses));
}

SHMC_API int shmc_waitany(size_t n, shmc_request **reqs, size_t *index, shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, any_call(n, reqs, index, NULL, status, 1));
}

SHMC_API int shmc_testany(size_t n, shmc_request **reqs, size_t *index, int *done,
                          shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, any_call(n, reqs, index, done, status, 0));
}
