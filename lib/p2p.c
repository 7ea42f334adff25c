/*
 * The point-to-point API: argument checks, then requests handed to the matching engine
 * (match.c), the eager path (progress.c) or rendezvous (rndv.c). A blocking send of an
 * eager message that fits the mailbox is written straight into it with no request at all;
 * that is the whole cost of a small send.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "log.h"
#include "wait.h"

static const shmc_status empty_status = {SHMC_ANY_SOURCE, SHMC_ANY_TAG, 0, SHMC_OK};

/* Checks the library's state and the communicator handle h, and the buffer; fills *c. */
static int check_buf(const shmc_comm *h, const struct shmc__comm **c, const void *buf, size_t count,
                     shmc_dtype dt, size_t *bytes, size_t *elsize)
{
    if (shmc__g.state != SHMC_ST_READY)
        return SHMC_ERR_NOT_INIT;
    if (!(*c = shmc__comm_get(h)))
        return SHMC_ERR_ARG;
    size_t es = shmc__dtype_size(dt);
    if (!es || count > SIZE_MAX / es || (!buf && count))
        return SHMC_ERR_ARG;
    *bytes = count * es;
    *elsize = es;
    return SHMC_OK;
}

static int check_peer(const struct shmc__comm *c, int r, int any_ok, int *world)
{
    if (any_ok && r == SHMC_ANY_SOURCE) {
        *world = SHMC_ANY;
        return SHMC_OK;
    }
    if (r < 0 || r >= c->size)
        return SHMC_ERR_RANK;
    *world = shmc__comm_world_rank(c, r);
    return SHMC_OK;
}

static int check_tag(int tag, int any_ok)
{
    return (tag >= 0 || (any_ok && tag == SHMC_ANY_TAG)) ? SHMC_OK : SHMC_ERR_TAG;
}

/* ---- internal entry points (also used by the collectives) -------------------------------- */

int shmc__post_send(const void *buf, size_t bytes, size_t elsize, int wdst, int tag, uint32_t ctx,
                    const struct shmc__comm *c, int dev, struct shmc__request **out)
{
    struct shmc__global *g = &shmc__g;
    struct shmc__request *s = shmc__req_alloc(SHMC_CTX_IS_COLL(ctx));
    *out = NULL;
    if (!s)
        return SHMC_ERR_NOMEM;
    s->kind = SHMC_REQ_SEND;
    s->buf = (void *)(uintptr_t)buf;
    s->bytes = bytes;
    s->elsize = elsize;
    s->peer = wdst;
    s->tag = tag;
    s->ctx = ctx;
    s->comm = c;
    s->dev = bytes && (dev >= 0 ? dev : shmc__mk_dev(buf));
    *out = s;

    if (wdst == g->rank) {
        struct shmc__request *r = shmc__match_posted(wdst, tag, ctx);
        if (r) {
            shmc__self_deliver(r, s);
        } else if (bytes <= g->eager_limit && !s->dev) {
            int rc = shmc__unexp_add_eager(wdst, tag, ctx, buf, bytes);
            shmc__req_complete(s, rc);
        } else {
            s->proto = SHMC_P_SELF;
            int rc = shmc__unexp_add_self(s);
            if (rc != SHMC_OK)
                shmc__req_complete(s, rc);
        }
        return SHMC_OK;
    }
    if (g->peers[wdst].gone || g->peers[wdst].broken) {
        shmc__req_complete(s, g->peers[wdst].broken ? SHMC_ERR_CORRUPT : SHMC_ERR_PEER_DEAD);
        return SHMC_OK;
    }
    if (bytes <= g->eager_limit && !s->dev) {
        s->proto = SHMC_P_EAGER;
        if (!g->peers[wdst].matchq.head && shmc__try_eager(wdst, buf, bytes, tag, ctx))
            shmc__req_complete(s, SHMC_OK);
        else
            shmc__queue_send(wdst, s);
        return SHMC_OK;
    }
    return shmc__rndv_start_send(s);
}

int shmc__post_recv(void *buf, size_t bytes, size_t elsize, int wsrc, int tag, uint32_t ctx,
                    const struct shmc__comm *c, int dev, struct shmc__request **out)
{
    struct shmc__request *r = shmc__req_alloc(SHMC_CTX_IS_COLL(ctx));
    *out = NULL;
    if (!r)
        return SHMC_ERR_NOMEM;
    r->kind = SHMC_REQ_RECV;
    r->buf = buf;
    r->bytes = bytes;
    r->elsize = elsize;
    r->peer = wsrc;
    r->tag = tag;
    r->ctx = ctx;
    r->comm = c;
    r->dev = bytes && (dev >= 0 ? dev : shmc__mk_dev(buf));
    *out = r;

    /* Anything already in the mailboxes must be seen first, or the order breaks. */
    struct shmc__unexp *u = shmc__match_unexp(wsrc, tag, ctx);
    if (u) {
        shmc__recv_take_unexp(r, u);
        return SHMC_OK;
    }
    r->proto = SHMC_P_POSTED;
    shmc__reqq_push(&shmc__g.posted, r, SHMC_Q_POSTED);
    return SHMC_OK;
}

/* Waits for r, fills status, frees r; returns its result. */
int shmc__finish(struct shmc__request *r, shmc_status *status)
{
    if (r->state == SHMC_RS_ACTIVE)
        shmc__wait_requests(1, &r);
    shmc__req_fill_status(r, status);
    int err = r->err;
    shmc__req_free(r);
    return err;
}

/* ---- public API ------------------------------------------------------------------------- */

SHMC_API int shmc_isend(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                        shmc_comm *comm, shmc_request **req)
{
    const struct shmc__comm *c;
    size_t bytes, es;
    int w, rc;
    if (req)
        *req = NULL;
    if ((rc = check_buf(comm, &c, buf, count, dtype, &bytes, &es)) ||
        (rc = check_peer(c, dst, 0, &w)) || (rc = check_tag(tag, 0)))
        return rc;
    if (!req)
        return SHMC_ERR_ARG;
    if ((rc = shmc__job_ok()))
        return rc;
    struct shmc__request *s;
    if ((rc = shmc__post_send(buf, bytes, es, w, tag, c->ctx, c, -1, &s)) == SHMC_OK)
        *req = shmc__req_handle(s);
    return rc;
}

SHMC_API int shmc_irecv(void *buf, size_t count, shmc_dtype dtype, int src, int tag,
                        shmc_comm *comm, shmc_request **req)
{
    const struct shmc__comm *c;
    size_t bytes, es;
    int w, rc;
    if (req)
        *req = NULL;
    if ((rc = check_buf(comm, &c, buf, count, dtype, &bytes, &es)) ||
        (rc = check_peer(c, src, 1, &w)) || (rc = check_tag(tag, 1)))
        return rc;
    if (!req)
        return SHMC_ERR_ARG;
    if ((rc = shmc__job_ok()))
        return rc;
    struct shmc__request *r;
    if ((rc = shmc__post_recv(buf, bytes, es, w, tag, c->ctx, c, -1, &r)) == SHMC_OK)
        *req = shmc__req_handle(r);
    return rc;
}

SHMC_API int shmc_send(const void *buf, size_t count, shmc_dtype dtype, int dst, int tag,
                       shmc_comm *comm)
{
    struct shmc__global *g = &shmc__g;
    const struct shmc__comm *c;
    size_t bytes, es;
    int w, rc;
    if ((rc = check_buf(comm, &c, buf, count, dtype, &bytes, &es)) ||
        (rc = check_peer(c, dst, 0, &w)) || (rc = check_tag(tag, 0)) || (rc = shmc__job_ok()))
        return rc;
    /* Fast path: straight into the mailbox, no request. */
    int dev = shmc__mk_dev(buf);
    if (w != g->rank && bytes <= g->eager_limit && !dev) {
        struct shmc__peer *pe = &g->peers[w];
        if (!pe->matchq.head && !pe->gone && !pe->broken &&
            shmc__try_eager(w, buf, bytes, tag, c->ctx))
            return SHMC_OK;
    }
    struct shmc__request *s;
    if ((rc = shmc__post_send(buf, bytes, es, w, tag, c->ctx, c, dev, &s)) != SHMC_OK)
        return rc;
    return shmc__finish(s, NULL);
}

/* Polls of the one ring before a blocking receive falls back to the general engine: long
 * enough for a ping-pong reply, short enough that other peers are not kept waiting. */
#define DIRECT_SPIN 512

/* A blocking receive from one peer while nothing else is pending in this process: read
 * that peer's ring directly and, if the first record is an eager message this receive
 * accepts, copy it straight into buf with no request. Any other first record (another
 * tag, a rendezvous, control), or nothing within DIRECT_SPIN polls, returns 1 and the
 * general engine takes over; it then sees exactly the same records in the same order,
 * so matching is unchanged. Returns 1, or the receive's result. */
static int recv_direct(void *buf, size_t bytes, size_t es, int w, int tag, uint32_t ctx, int src,
                       shmc_status *status)
{
    struct shmc__peer *pe = &shmc__g.peers[w];
    struct shmc__rec_view v;
    /* Never spin longer than the wait policy would (64 polls when ranks share CPUs). */
    unsigned limit = shmc__g.spin < DIRECT_SPIN ? shmc__g.spin : DIRECT_SPIN;
    for (unsigned spins = 0;; spins++) {
        int rc = shmc__ring_peek(&pe->in, &v);
        if (rc > 0)
            break;
        if (rc < 0 || spins >= limit)
            return 1;
        shmc__cpu_relax();
    }
    int mtag = (int)(uint32_t)v.w1;
    if (v.kind != SHMC_REC_EAGER || (uint32_t)(v.w1 >> 32) != ctx || mtag < 0 ||
        (tag != SHMC_ANY_TAG && tag != mtag))
        return 1;
    int err = v.len > bytes ? SHMC_ERR_TRUNCATE : SHMC_OK;
    size_t n = v.len <= bytes ? v.len : bytes;
    if (n)
        memcpy(buf, v.payload, n);
    if (status)
        *status = (shmc_status){src, mtag, v.len / es, err};
    shmc__ring_consume(&pe->in, &v);
    /* The producer may be waiting for the space. */
    if (shmc__ring_publish(&pe->in))
        shmc__notify(pe->cb, shmc__g.fenced);
    return err;
}

SHMC_API int shmc_recv(void *buf, size_t count, shmc_dtype dtype, int src, int tag, shmc_comm *comm,
                       shmc_status *status)
{
    struct shmc__global *g = &shmc__g;
    const struct shmc__comm *c;
    size_t bytes, es;
    int w, rc;
    if ((rc = check_buf(comm, &c, buf, count, dtype, &bytes, &es)) ||
        (rc = check_peer(c, src, 1, &w)) || (rc = check_tag(tag, 1)) || (rc = shmc__job_ok()))
        return rc;
    int dev = shmc__mk_dev(buf);
    if (w != SHMC_ANY && w != g->rank && !g->active_reqs && !g->unexp_head && !g->out_busy_count &&
        !g->peers[w].broken && !dev &&
        (rc = recv_direct(buf, bytes, es, w, tag, c->ctx, src, status)) != 1)
        return rc;
    struct shmc__request *r;
    if ((rc = shmc__post_recv(buf, bytes, es, w, tag, c->ctx, c, dev, &r)) != SHMC_OK)
        return rc;
    return shmc__finish(r, status);
}

/* The live request behind the caller's handle h, in *r. */
static int check_req(const shmc_request *h, struct shmc__request **r)
{
    if (shmc__g.state != SHMC_ST_READY)
        return SHMC_ERR_NOT_INIT;
    *r = shmc__req_from_handle(h);
    return *r ? SHMC_OK : SHMC_ERR_ARG;
}

SHMC_API int shmc_wait(shmc_request **req, shmc_status *status)
{
    struct shmc__request *r;
    if (!req)
        return SHMC_ERR_ARG;
    if (!*req) {
        if (status)
            *status = empty_status;
        return SHMC_OK;
    }
    int rc = check_req(*req, &r);
    if (rc != SHMC_OK)
        return rc;
    rc = shmc__finish(r, status);
    *req = NULL;
    return rc;
}

SHMC_API int shmc_test(shmc_request **req, int *done, shmc_status *status)
{
    struct shmc__request *r;
    if (!req || !done)
        return SHMC_ERR_ARG;
    *done = 0;
    if (!*req) {
        *done = 1;
        if (status)
            *status = empty_status;
        return SHMC_OK;
    }
    int rc = check_req(*req, &r);
    if (rc != SHMC_OK)
        return rc;
    if (r->state == SHMC_RS_ACTIVE) {
        shmc__progress();
        shmc__check_job();
        if (r->state == SHMC_RS_ACTIVE)
            return SHMC_OK;
    }
    *done = 1;
    rc = shmc__finish(r, status);
    *req = NULL;
    return rc;
}

SHMC_API int shmc_waitall(size_t n, shmc_request **reqs, shmc_status *statuses)
{
    if (n && !reqs)
        return SHMC_ERR_ARG;
    if (shmc__g.state != SHMC_ST_READY)
        return SHMC_ERR_NOT_INIT;
    /* The requests behind the handles: on the stack for a few, else allocated. */
    struct shmc__request *few[16] = {NULL}, **live = few;
    if (n > 16 && !(live = malloc(n * sizeof *live)))
        return SHMC_ERR_NOMEM;
    /* Every handle is checked before any is touched, so a bad one (or one named twice,
     * which would be finished twice) leaves them all pending. */
    int rc = SHMC_OK;
    size_t i;
    for (i = 0; i < n; i++) {
        live[i] = reqs[i] ? shmc__req_from_handle(reqs[i]) : NULL;
        if (reqs[i] && (!live[i] || live[i]->listed)) {
            rc = SHMC_ERR_ARG;
            break;
        }
        if (live[i])
            live[i]->listed = 1;
    }
    for (size_t j = 0; j < i; j++)
        if (live[j])
            live[j]->listed = 0;
    if (rc != SHMC_OK) {
        if (live != few)
            free(live);
        return rc;
    }
    shmc__wait_requests(n, live);
    int first = SHMC_OK;
    for (i = 0; i < n; i++) {
        shmc_status *st = statuses ? &statuses[i] : NULL;
        if (!live[i]) {
            if (st)
                *st = empty_status;
            continue;
        }
        int err = shmc__finish(live[i], st);
        reqs[i] = NULL;
        if (err != SHMC_OK && first == SHMC_OK)
            first = err;
    }
    if (live != few)
        free(live);
    return first;
}

SHMC_API int shmc_sendrecv(const void *sbuf, size_t scount, int dst, int stag, void *rbuf,
                           size_t rcount, int src, int rtag, shmc_dtype dtype, shmc_comm *comm,
                           shmc_status *status)
{
    const struct shmc__comm *c;
    size_t sbytes, rbytes, es;
    int wd, ws, rc;
    if ((rc = check_buf(comm, &c, sbuf, scount, dtype, &sbytes, &es)) ||
        (rc = check_buf(comm, &c, rbuf, rcount, dtype, &rbytes, &es)) ||
        (rc = check_peer(c, dst, 0, &wd)) || (rc = check_peer(c, src, 1, &ws)) ||
        (rc = check_tag(stag, 0)) || (rc = check_tag(rtag, 1)))
        return rc;
    if (shmc__overlap(sbuf, sbytes, rbuf, rbytes))
        return SHMC_ERR_ARG;
    if ((rc = shmc__job_ok()))
        return rc;
    struct shmc__request *rr, *sr;
    if ((rc = shmc__post_recv(rbuf, rbytes, es, ws, rtag, c->ctx, c, -1, &rr)) != SHMC_OK)
        return rc;
    if ((rc = shmc__post_send(sbuf, sbytes, es, wd, stag, c->ctx, c, -1, &sr)) != SHMC_OK) {
        shmc__req_dequeue(rr);
        shmc__req_free(rr);
        return rc;
    }
    struct shmc__request *both[2] = {rr, sr};
    shmc__wait_requests(2, both);
    int rerr = shmc__finish(rr, status);
    int serr = shmc__finish(sr, NULL);
    return rerr != SHMC_OK ? rerr : serr;
}
