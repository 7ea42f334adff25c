/*
 * Probes (shmc_probe, shmc_iprobe): progress drains the mailboxes into the unexpected
 * queue, and the oldest message there that a receive with the same source and tag would
 * take is the answer. It stays queued, so the next such receive gets exactly that
 * message: messages of one sender reach the queue in order, after any older ones.
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

static int probe_call(int src, int tag, shmc_dtype dtype, shmc_comm *comm, int *flag,
                      shmc_status *status, int wait)
{
    struct shmc__p2p *p = &shmc__p2p;
    const struct shmc__comm *c;
    size_t bytes, es;
    int w, rc;
    if (flag)
        *flag = 0;
    /* A buffer of no elements: the checks of a receive but the buffer's. */
    if ((rc = shmc__check_buf(p, comm, &c, NULL, 0, dtype, &bytes, &es)) ||
        (rc = shmc__check_tag(tag, 1)) || (rc = shmc__check_peer(c, src, 1, &w))) {
        if (rc != SHMC__NULL_PEER)
            return rc;
        if (flag)
            *flag = 1;
        shmc__null_status(status);
        return SHMC_OK;
    }
    if (!wait && !flag)
        return SHMC_ERR_ARG;
    if ((rc = shmc__job_ok(p)))
        return rc;
    struct probe q = {p, w, tag, c->ctx, NULL, SHMC_OK};
    shmc__progress(p);
    shmc__check_job(p);
    if (!probe_done(&q) && wait) {
        if (p->ngone)
            p->recheck = 1;
        shmc__deadline_arm(c->timeout_ms);
        rc = shmc__wait_pred(p, probe_done, NULL, &q, SHMC_BLK_RECV);
        shmc__deadline = 0;
        if (rc != SHMC_OK)
            return rc;
    }
    if (q.found) {
        if (flag)
            *flag = 1;
        probe_status(c, q.found, es, status);
        return SHMC_OK;
    }
    return q.err;
}

SHMC_API int shmc_probe(int src, int tag, shmc_dtype dtype, shmc_comm *comm, shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, probe_call(src, tag, dtype, comm, NULL, status, 1));
}

SHMC_API int shmc_iprobe(int src, int tag, shmc_dtype dtype, shmc_comm *comm, int *flag,
                         shmc_status *status)
{
    SHMC_GUARDED(&shmc__p2p, probe_call(src, tag, dtype, comm, flag, status, 0));
}
