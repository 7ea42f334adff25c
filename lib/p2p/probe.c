/*
 * Probes (shmc_probe, shmc_iprobe): progress drains the mailboxes into the unexpected
 * queue, and the oldest message there that a receive with the same source and tag would
 * take is the answer. It stays queued, so the next such receive gets exactly that
 * message: messages of one sender reach the queue in order, after any older ones.
 *
 * Matched probes (shmc_mprobe, shmc_improbe) take that message off the queue onto the
 * matching engine's claimed list, and its address is the caller's handle: shmc_mrecv and
 * shmc_imrecv accept a handle only if it is on that list, so a stale or forged one is an
 * error, never a wild pointer followed.
 */
#include "p2p/args.h"
#include "p2p/progress.h"

struct probe {
    struct shmc__p2p *p;
    int src; /* world rank or SHMC_ANY */
    int tag;
    uint32_t ctx;
    const struct shmc__unexp *found;
    int err; /* the message can no longer come */
};

static int probe_done(void *arg)
{
    struct probe *q = arg;
    q->found = shmc__match_peek(&q->p->match, q->src, q->tag, q->ctx);
    if (!q->found && q->p->ngone)
        q->err = shmc__source_lost(q->p, q->src);
    return q->found || q->err;
}

static void probe_status(const struct shmc__comm *c, const struct shmc__unexp *u, size_t es,
                         shmc_status *st)
{
    if (st)
        *st = (shmc_status){shmc__comm_local_rank(c, u->src), u->tag, u->bytes / es, SHMC_OK};
}

/* matched: a matched probe, whose handle goes to *msg. */
static int probe_call(int src, int tag, shmc_dtype dtype, shmc_comm *comm, int *flag,
                      shmc_status *status, int wait, int matched, shmc_message **msg)
{
    struct shmc__p2p *p = &shmc__p2p;
    const struct shmc__comm *c;
    size_t bytes, es;
    int w, rc;
    if (flag)
        *flag = 0;
    if (msg)
        *msg = NULL;
    /* A buffer of no elements: the checks of a receive but the buffer's. */
    if ((rc = shmc__check_buf(p, comm, &c, NULL, 0, dtype, &bytes, &es)) ||
        (rc = shmc__check_tag(tag, 1)) || (rc = shmc__check_peer(c, src, 1, &w))) {
        if (rc != SHMC__NULL_PEER || (matched && !msg))
            return rc != SHMC__NULL_PEER ? rc : SHMC_ERR_ARG;
        if (flag)
            *flag = 1;
        shmc__null_status(status);
        return SHMC_OK;
    }
    if ((!wait && !flag) || (matched && !msg))
        return SHMC_ERR_ARG;
    if ((rc = shmc__job_ok(p)))
        return rc;
    struct probe q = {p, w, tag, c->ctx, NULL, SHMC_OK};
    shmc__progress(p);
    shmc__check_job(p);
    if (!probe_done(&q) && wait) {
        if (p->ngone)
            p->recheck = 1;
        uint32_t bound = c->timeout_ms;
        shmc__deadline_arm(bound);
        rc = shmc__wait_pred(p, probe_done, NULL, &q, SHMC_BLK_RECV, c->ctx);
        shmc__deadline_disarm(bound);
        if (rc != SHMC_OK)
            return rc;
    }
    if (q.found) {
        if (flag)
            *flag = 1;
        probe_status(c, q.found, es, status);
        /* The message found is the oldest one the probe accepts, so the claim takes it. */
        if (msg)
            *msg = (shmc_message *)shmc__match_claim(&p->match, w, tag, c->ctx, comm);
        return SHMC_OK;
    }
    return q.err;
}

SHMC_API int shmc_probe(int src, int tag, shmc_dtype dtype, shmc_comm *comm, shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, probe_call(src, tag, dtype, comm, NULL, status, 1, 0, NULL));
}

SHMC_API int shmc_iprobe(int src, int tag, shmc_dtype dtype, shmc_comm *comm, int *flag,
                         shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, probe_call(src, tag, dtype, comm, flag, status, 0, 0, NULL));
}

SHMC_API int shmc_mprobe(int src, int tag, shmc_dtype dtype, shmc_comm *comm, shmc_message **msg,
                         shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, probe_call(src, tag, dtype, comm, NULL, status, 1, 1, msg));
}

SHMC_API int shmc_improbe(int src, int tag, shmc_dtype dtype, shmc_comm *comm, int *flag,
                          shmc_message **msg, shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, probe_call(src, tag, dtype, comm, flag, status, 0, 1, msg));
}

/* shmc_mrecv (nonblocking 0: received here) and shmc_imrecv (started, its request in
 * *req). */
static int mrecv_call(void *buf, size_t count, shmc_dtype dtype, shmc_message **msg,
                      int nonblocking, shmc_request **req, shmc_status *status)
{
    struct shmc__p2p *p = &shmc__p2p;
    if (p->phase != SHMC_P2P_READY)
        return SHMC_ERR_NOT_INIT;
    if (!msg || (nonblocking && !req))
        return SHMC_ERR_ARG;
    if (req)
        *req = NULL;
    if (!*msg) { /* the message of SHMC_PROC_NULL */
        shmc__null_status(status);
        return SHMC_OK;
    }
    struct shmc__unexp *u = (struct shmc__unexp *)*msg;
    if (!shmc__match_is_claimed(&p->match, u))
        return SHMC_ERR_ARG;
    const struct shmc__comm *c;
    size_t bytes, es;
    int rc = shmc__check_buf(p, u->owner, &c, buf, count, dtype, &bytes, &es);
    if (rc != SHMC_OK)
        return rc;
    struct shmc__request *r;
    if ((rc = shmc__post_claimed(p, buf, bytes, es, u, c, shmc__mk_dev(buf), &r)) != SHMC_OK)
        return rc;
    *msg = NULL;
    if (nonblocking) {
        *req = shmc__req_handle(r);
        return SHMC_OK;
    }
    return shmc__finish(p, r, status);
}

SHMC_API int shmc_mrecv(void *buf, size_t count, shmc_dtype dtype, shmc_message **msg,
                        shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, mrecv_call(buf, count, dtype, msg, 0, NULL, status));
}

SHMC_API int shmc_imrecv(void *buf, size_t count, shmc_dtype dtype, shmc_message **msg,
                         shmc_request **req)
{
    SHMC_GUARDED(&shmc__p2p, mrecv_call(buf, count, dtype, msg, 1, req, NULL));
}
