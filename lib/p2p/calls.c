/*
 * The public point-to-point calls: argument checks, then requests started by post.c and
 * waited for by wait.c. A blocking send of an eager message that fits the mailbox is
 * written straight into it with no request at all (outq.c), and a blocking receive while
 * nothing else is pending reads the one peer's mailbox itself: that is the whole cost of
 * a small message. The process's state, shmc__p2p, is defined here.
 */
#include <stdlib.h>
#include <string.h>

#include "base/copy.h"
#include "p2p/args.h"
#include "p2p/inbox.h"
#include "p2p/outq.h"
#include "p2p/progress.h"
#include "p2p/take.h"

struct shmc__p2p shmc__p2p;

static const shmc_status empty_status = {SHMC_ANY_SOURCE, SHMC_ANY_TAG, 0, SHMC_OK};

/* ---- public API ------------------------------------------------------------------------- */

enum { RECV, SEND, SSEND, SEND_NOW, RECV_NOW };

/* isend, isend_now, issend and irecv: the same checks (a receive may name any source and
 * any tag), then a request posted in the one direction (isend_now: none if the send is
 * complete as it starts). */
static inline __attribute__((always_inline)) int start_call(int mode, void *buf, size_t count,
                                                            shmc_dtype dtype, int peer, int tag,
                                                            shmc_comm *comm, shmc_request **req,
                                                            shmc_status *status)
{
    struct shmc__p2p *p = &shmc__p2p;
    const struct shmc__comm *c;
    size_t bytes, es;
    int w, rc;
    int recv = mode == RECV || mode == RECV_NOW;
    if (req)
        *req = NULL;
    if ((rc = shmc__check_buf(p, comm, &c, buf, count, dtype, &bytes, &es)) ||
        (rc = shmc__check_tag(tag, recv)) || (rc = shmc__check_peer(c, peer, recv, &w))) {
        if (rc != SHMC__NULL_PEER)
            return rc;
        w = SHMC_PROC_NULL;
    }
    if (!req)
        return SHMC_ERR_ARG;
    if ((rc = shmc__job_ok(p)))
        return rc;
    struct shmc__request *r;
    if (mode == SEND_NOW) {
        /* Complete as it starts: no request, *req stays NULL. */
        if (w == SHMC_PROC_NULL)
            return SHMC_OK;
        int dev = shmc__mk_dev(buf);
        if (shmc__send_now(p, buf, bytes, dev, w, tag, c->ctx))
            return SHMC_OK;
        rc = shmc__post_send(p, buf, bytes, es, w, tag, c->ctx, c, dev, &r);
    } else if (mode == RECV_NOW) {
        /* Complete as it starts if the message is first in its sender's mailbox and no
         * posted receive or unexpected message could come before it (take.h). Not after
         * another that found nothing, with no progress pass between (now_dry, p2p.h). */
        if (w == SHMC_PROC_NULL) {
            shmc__null_status(status);
            return SHMC_OK;
        }
        int dev = shmc__mk_dev(buf);
        if (w != SHMC_ANY && w != p->rank && !p->now_dry && !p->match.nunexp &&
            !p->peers[w].ep.broken && !dev &&
            /* Receives posted before this one first take what arrived for them (the work a
             * wait would do, done while the sender is still sending); what is first then is
             * no posted receive's. */
            (shmc__list_empty(&p->match.posted) || shmc__inbox_drain_matched(p, w)) &&
            (rc = shmc__take_eager(p, buf, bytes, es, w, tag, c->ctx, peer, 0, status)) != 1)
            return rc;
        p->now_dry = 1;
        rc = shmc__post_recv(p, buf, bytes, es, w, tag, c->ctx, c, dev, &r);
    } else if (w == SHMC_PROC_NULL)
        rc = shmc__post_null(p, !recv, es, tag, c, &r);
    else if (mode == RECV)
        rc = shmc__post_recv(p, buf, bytes, es, w, tag, c->ctx, c, -1, &r);
    else if (mode == SEND)
        rc = shmc__post_send(p, buf, bytes, es, w, tag, c->ctx, c, -1, &r);
    else
        rc = shmc__post_ssend(p, buf, bytes, es, w, tag, c->ctx, c, &r);
    if (rc == SHMC_OK)
        *req = shmc__req_handle(r);
    return rc;
}

static int shmc_isend_call(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                           shmc_comm *comm, shmc_request **req)
{
    return start_call(SEND, (void *)(uintptr_t)buf, count, dtype, dst, tag, comm, req, NULL);
}

static int shmc_isend_now_call(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                               shmc_comm *comm, shmc_request **req)
{
    return start_call(SEND_NOW, (void *)(uintptr_t)buf, count, dtype, dst, tag, comm, req, NULL);
}

static int shmc_irecv_now_call(void *buf, size_t count, shmc_dtype dtype, int src, int tag,
                               shmc_comm *comm, shmc_request **req, shmc_status *status)
{
    return start_call(RECV_NOW, buf, count, dtype, src, tag, comm, req, status);
}

static int shmc_issend_call(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                            shmc_comm *comm, shmc_request **req)
{
    return start_call(SSEND, (void *)(uintptr_t)buf, count, dtype, dst, tag, comm, req, NULL);
}

static int shmc_irecv_call(void *buf, size_t count, shmc_dtype dtype, int src, int tag,
                           shmc_comm *comm, shmc_request **req)
{
    return start_call(RECV, buf, count, dtype, src, tag, comm, req, NULL);
}

/* A synchronous send: an issend, waited for. */
static int shmc_ssend_call(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                           shmc_comm *comm)
{
    struct shmc__p2p *p = &shmc__p2p;
    shmc_request *h;
    int rc = start_call(SSEND, (void *)(uintptr_t)buf, count, dtype, dst, tag, comm, &h, NULL);
    return rc != SHMC_OK ? rc : shmc__finish(p, shmc__req_from_handle(&p->reqs, h), NULL);
}

static int shmc_send_call(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                          shmc_comm *comm)
{
    struct shmc__p2p *p = &shmc__p2p;
    const struct shmc__comm *c;
    size_t bytes, es;
    int w, rc;
    if ((rc = shmc__check_buf(p, comm, &c, buf, count, dtype, &bytes, &es)) ||
        (rc = shmc__check_tag(tag, 0)) || (rc = shmc__check_peer(c, dst, 0, &w)) ||
        (rc = shmc__job_ok(p)))
        return rc == SHMC__NULL_PEER ? SHMC_OK : rc;
    /* Fast path: straight into the mailbox, no request (as isend_now's, written out here:
     * through start_call the 8-byte send cost 292 instructions instead of 238). */
    int dev = shmc__mk_dev(buf);
    if (shmc__send_now(p, buf, bytes, dev, w, tag, c->ctx))
        return SHMC_OK;
    struct shmc__request *s;
    if ((rc = shmc__post_send(p, buf, bytes, es, w, tag, c->ctx, c, dev, &s)) != SHMC_OK)
        return rc;
    return shmc__finish(p, s, NULL);
}

static int shmc_recv_call(void *buf, size_t count, shmc_dtype dtype, int src, int tag,
                          shmc_comm *comm, shmc_status *status)
{
    struct shmc__p2p *p = &shmc__p2p;
    const struct shmc__comm *c;
    size_t bytes, es;
    int w, rc;
    if ((rc = shmc__check_buf(p, comm, &c, buf, count, dtype, &bytes, &es)) ||
        (rc = shmc__check_tag(tag, 1)) || (rc = shmc__check_peer(c, src, 1, &w)) ||
        (rc = shmc__job_ok(p))) {
        if (rc != SHMC__NULL_PEER)
            return rc;
        shmc__null_status(status);
        return SHMC_OK;
    }
    int dev = shmc__mk_dev(buf);
    /* Nothing else pending: the one peer's mailbox read here (take.h), spinning no longer
     * than the wait policy would (64 polls when ranks share CPUs). */
    if (w != SHMC_ANY && shmc__take_may(p, w, dev) &&
        (rc = shmc__take_eager(p, buf, bytes, es, w, tag, c->ctx, src, shmc__take_spins(p),
                               status)) != 1)
        return rc;
    struct shmc__request *r;
    if ((rc = shmc__post_recv(p, buf, bytes, es, w, tag, c->ctx, c, dev, &r)) != SHMC_OK)
        return rc;
    return shmc__finish(p, r, status);
}

/* The live request behind the caller's handle h, in *r. */
static int check_req(struct shmc__p2p *p, const shmc_request *h, struct shmc__request **r)
{
    if (p->phase != SHMC_P2P_READY)
        return SHMC_ERR_NOT_INIT;
    *r = shmc__req_from_handle(&p->reqs, h);
    return *r ? SHMC_OK : SHMC_ERR_ARG;
}

static int shmc_wait_call(shmc_request **req, shmc_status *status)
{
    struct shmc__p2p *p = &shmc__p2p;
    struct shmc__request *r;
    /* The library's state first, whatever the arguments (the order docs/reliability.md's
     * table gives). */
    if (p->phase != SHMC_P2P_READY)
        return SHMC_ERR_NOT_INIT;
    if (!req)
        return SHMC_ERR_ARG;
    if (!*req) {
        if (status)
            *status = empty_status;
        return SHMC_OK;
    }
    int rc = check_req(p, *req, &r);
    if (rc != SHMC_OK)
        return rc;
    /* Its communicator's time-out: the request stays pending if it passes. */
    if (r->comm && r->comm->timeout_ms && r->state == SHMC_RS_ACTIVE) {
        shmc__deadline_arm(r->comm->timeout_ms);
        rc = shmc__wait_requests(p, 1, &r);
        shmc__deadline = 0;
        if (rc == SHMC_ERR_TIMEOUT)
            return SHMC_ERR_TIMEOUT;
    }
    rc = shmc__finish(p, r, status);
    *req = NULL;
    return rc;
}

static int shmc_test_call(shmc_request **req, int *done, shmc_status *status)
{
    struct shmc__p2p *p = &shmc__p2p;
    struct shmc__request *r;
    if (p->phase != SHMC_P2P_READY)
        return SHMC_ERR_NOT_INIT;
    if (!req || !done)
        return SHMC_ERR_ARG;
    *done = 0;
    if (!*req) {
        *done = 1;
        if (status)
            *status = empty_status;
        return SHMC_OK;
    }
    int rc = check_req(p, *req, &r);
    if (rc != SHMC_OK)
        return rc;
    if (r->state == SHMC_RS_ACTIVE) {
        shmc__test_look(p);
        if (r->state == SHMC_RS_ACTIVE)
            return SHMC_OK;
    }
    *done = 1;
    rc = shmc__finish(p, r, status);
    *req = NULL;
    return rc;
}

static int shmc_sendrecv_call(const void *sbuf, size_t scount, int dst, int stag, void *rbuf,
                              size_t rcount, int src, int rtag, shmc_dtype dtype, shmc_comm *comm,
                              shmc_status *status)
{
    struct shmc__p2p *p = &shmc__p2p;
    const struct shmc__comm *c;
    size_t sbytes, rbytes, es;
    int wd = 0, ws = 0, rc, nd, ns;
    if ((rc = shmc__check_buf(p, comm, &c, sbuf, scount, dtype, &sbytes, &es)) ||
        (rc = shmc__check_buf(p, comm, &c, rbuf, rcount, dtype, &rbytes, &es)) ||
        (rc = shmc__check_tag(stag, 0)) || (rc = shmc__check_tag(rtag, 1)))
        return rc;
    /* Either side may be SHMC_PROC_NULL: that half is then done at once. */
    if ((nd = shmc__check_peer(c, dst, 0, &wd)) < 0)
        return nd;
    if ((ns = shmc__check_peer(c, src, 1, &ws)) < 0)
        return ns;
    if (shmc__overlap(sbuf, sbytes, rbuf, rbytes))
        return SHMC_ERR_ARG;
    if ((rc = shmc__job_ok(p)))
        return rc;
    struct shmc__request *rr, *sr;
    rc = ns ? shmc__post_null(p, 0, es, rtag, c, &rr)
            : shmc__post_recv(p, rbuf, rbytes, es, ws, rtag, c->ctx, c, -1, &rr);
    if (rc != SHMC_OK)
        return rc;
    rc = nd ? shmc__post_null(p, 1, es, stag, c, &sr)
            : shmc__post_send(p, sbuf, sbytes, es, wd, stag, c->ctx, c, -1, &sr);
    if (rc != SHMC_OK) {
        shmc__p2p_cancel(p, rr, rc);
        shmc__req_free(&p->reqs, rr);
        return rc;
    }
    struct shmc__request *both[2] = {rr, sr};
    shmc__wait_requests(p, 2, both);
    int rerr = shmc__finish(p, rr, status);
    int serr = shmc__finish(p, sr, NULL);
    return rerr != SHMC_OK ? rerr : serr;
}

/* ---- communicators ------------------------------------------------------------------- */

static int comm_ok(struct shmc__p2p *p, const shmc_comm *h, const struct shmc__comm **c)
{
    if (p->phase != SHMC_P2P_READY && p->phase != SHMC_P2P_FINALIZING)
        return SHMC_ERR_NOT_INIT;
    *c = shmc__comm_get(&p->comms, h);
    return *c ? SHMC_OK : SHMC_ERR_ARG;
}

static int shmc_comm_rank_call(const shmc_comm *comm)
{
    const struct shmc__comm *c;
    int rc = comm_ok(&shmc__p2p, comm, &c);
    return rc != SHMC_OK ? rc : c->rank;
}

static int shmc_comm_size_call(const shmc_comm *comm)
{
    const struct shmc__comm *c;
    int rc = comm_ok(&shmc__p2p, comm, &c);
    return rc != SHMC_OK ? rc : c->size;
}

static int shmc_comm_set_timeout_call(shmc_comm *comm, unsigned ms)
{
    struct shmc__p2p *p = &shmc__p2p;
    if (p->phase != SHMC_P2P_READY)
        return SHMC_ERR_NOT_INIT;
    struct shmc__comm *c = shmc__comm_get(&p->comms, comm);
    if (!c)
        return SHMC_ERR_ARG;
    c->timeout_ms = ms;
    return SHMC_OK;
}

static int shmc_comm_id_call(const shmc_comm *comm)
{
    const struct shmc__comm *c;
    int rc = comm_ok(&shmc__p2p, comm, &c);
    /* The number hang reports give it (shm/hang.c: "communicator #N"). */
    return rc != SHMC_OK ? rc : (int)(c->ctx / SHMC_CTX_GROUP);
}

static int shmc_comm_free_call(shmc_comm **comm)
{
    struct shmc__p2p *p = &shmc__p2p;
    if (p->phase != SHMC_P2P_READY)
        return SHMC_ERR_NOT_INIT;
    struct shmc__comm *c = comm ? shmc__comm_get(&p->comms, *comm) : NULL;
    if (!c || c == &p->comms.world)
        return SHMC_ERR_ARG;
    int rc = shmc__comm_remove(p, c);
    if (rc == SHMC_OK)
        *comm = NULL;
    return rc;
}

/* ---- counters ------------------------------------------------------------------------ */

int shmc__p2p_stat(const struct shmc__p2p *p, const char *name, uint64_t *v)
{
    if (!strcmp(name, "requests_active")) {
        *v = p->reqs.active;
    } else if (!strcmp(name, "comms")) {
        *v = p->comms.alive;
    } else if (!strcmp(name, "unexpected_messages")) {
        *v = p->match.nunexp;
    } else if (!strcmp(name, "single_copy")) {
        *v = (uint64_t)shmc__p2p_single_copy(p);
    } else if (!strcmp(name, "single_copy_min")) {
        *v = (uint64_t)p->single_copy_min;
    } else if (!strcmp(name, "single_copy_proven")) {
        *v = 0;
        for (int q = 0; q < p->size; q++)
            *v += q != p->rank && p->peers[q].ep.sc == SHMC_SC_PROVEN;
    } else if (!strcmp(name, "coop_offers")) {
        *v = p->coop.offers;
    } else if (!strcmp(name, "coop_accepted")) {
        *v = p->coop.accepted;
    } else if (!strcmp(name, "slices_slept")) {
        *v = p->slices_slept;
    } else {
        return 0;
    }
    return 1;
}

/* ---- the public entry points: one call at a time per process (shmcomm.h, Threads) ---- */

SHMC_API int shmc_isend(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                        shmc_comm *comm, shmc_request **req)
{
    SHMC_GUARDED(&shmc__p2p, shmc_isend_call(buf, count, dtype, dst, tag, comm, req));
}

SHMC_API int shmc_isend_now(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                            shmc_comm *comm, shmc_request **req)
{
    SHMC_GUARDED(&shmc__p2p, shmc_isend_now_call(buf, count, dtype, dst, tag, comm, req));
}

SHMC_API int shmc_irecv(void *buf, size_t count, shmc_dtype dtype, int src, int tag,
                        shmc_comm *comm, shmc_request **req)
{
    SHMC_GUARDED(&shmc__p2p, shmc_irecv_call(buf, count, dtype, src, tag, comm, req));
}

SHMC_API int shmc_irecv_now(void *buf, size_t count, shmc_dtype dtype, int src, int tag,
                            shmc_comm *comm, shmc_request **req, shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, shmc_irecv_now_call(buf, count, dtype, src, tag, comm, req, status));
}

SHMC_API int shmc_send(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                       shmc_comm *comm)
{
    SHMC_GUARDED(&shmc__p2p, shmc_send_call(buf, count, dtype, dst, tag, comm));
}

SHMC_API int shmc_ssend(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                        shmc_comm *comm)
{
    SHMC_GUARDED(&shmc__p2p, shmc_ssend_call(buf, count, dtype, dst, tag, comm));
}

SHMC_API int shmc_issend(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                         shmc_comm *comm, shmc_request **req)
{
    SHMC_GUARDED(&shmc__p2p, shmc_issend_call(buf, count, dtype, dst, tag, comm, req));
}

SHMC_API int shmc_recv(void *buf, size_t count, shmc_dtype dtype, int src, int tag, shmc_comm *comm,
                       shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, shmc_recv_call(buf, count, dtype, src, tag, comm, status));
}

/* A request that ended in its start (SHMC_REQUEST_COMPLETE: most small collectives) is
 * the caller's own value and reads no state but the library's phase, so its wait or test
 * ends before the call guard, which with the guarded call's frame was most of such a
 * wait's instructions (bench/path_cost.sh): the guarded calls are functions of their own
 * so that this path sets up no frame. 1 where it ended. */
static inline int ended_at_start(shmc_request **req, shmc_status *status)
{
    if (!req || *req != SHMC_REQUEST_COMPLETE || shmc__p2p.phase != SHMC_P2P_READY)
        return 0;
    if (status)
        shmc__req_fill_status(&shmc__req_done, status);
    *req = NULL;
    return 1;
}

static __attribute__((noinline)) int wait_guarded(shmc_request **req, shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, shmc_wait_call(req, status));
}

static __attribute__((noinline)) int test_guarded(shmc_request **req, int *done,
                                                  shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, shmc_test_call(req, done, status));
}

SHMC_API int shmc_wait(shmc_request **req, shmc_status *status)
{
    if (ended_at_start(req, status))
        return SHMC_OK;
    return wait_guarded(req, status);
}

SHMC_API int shmc_test(shmc_request **req, int *done, shmc_status *status)
{
    if (done && ended_at_start(req, status)) {
        *done = 1;
        return SHMC_OK;
    }
    return test_guarded(req, done, status);
}

SHMC_API int shmc_sendrecv(const void *sbuf, size_t scount, int dst, int stag, void *rbuf,
                           size_t rcount, int src, int rtag, shmc_dtype dtype, shmc_comm *comm,
                           shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, shmc_sendrecv_call(sbuf, scount, dst, stag, rbuf, rcount, src, rtag,
                                                dtype, comm, status));
}

SHMC_API int shmc_comm_rank(const shmc_comm *comm)
{
    SHMC_GUARDED(&shmc__p2p, shmc_comm_rank_call(comm));
}

SHMC_API int shmc_comm_size(const shmc_comm *comm)
{
    SHMC_GUARDED(&shmc__p2p, shmc_comm_size_call(comm));
}

SHMC_API int shmc_comm_id(const shmc_comm *comm)
{
    SHMC_GUARDED(&shmc__p2p, shmc_comm_id_call(comm));
}

SHMC_API int shmc_comm_free(shmc_comm **comm)
{
    SHMC_GUARDED(&shmc__p2p, shmc_comm_free_call(comm));
}

SHMC_API int shmc_comm_set_timeout(shmc_comm *comm, unsigned ms)
{
    SHMC_GUARDED(&shmc__p2p, shmc_comm_set_timeout_call(comm, ms));
}
