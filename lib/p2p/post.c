/*
 * Starting a send or a receive (p2p.h): a request handed to the eager path (outq.c),
 * rendezvous (rndv.c), or, for a receive, to a message already waiting (deliver.c) or
 * the posted queue (match.c). The public calls (calls.c) and the collectives' messages
 * (coll/xfer.c) both start here.
 */
#include "p2p/deliver.h"
#include "p2p/outq.h"
#include "p2p/p2p.h"
#include "p2p/rndv.h"

/* A request for one message, its call's arguments filled in; NULL when none is left.
 * dev < 0: the buffer's memory kind is looked up here. */
static inline struct shmc__request *start(struct shmc__p2p *p, uint8_t kind, void *buf,
                                          size_t bytes, size_t elsize, int peer, int tag,
                                          uint32_t ctx, const struct shmc__comm *c, int dev)
{
    struct shmc__request *q = shmc__req_alloc(&p->reqs, SHMC_CTX_IS_COLL(ctx));
    if (!q)
        return NULL;
    q->kind = kind;
    q->buf = buf;
    q->bytes = bytes;
    q->elsize = elsize;
    q->peer = peer;
    q->tag = tag;
    q->ctx = ctx;
    q->comm = c;
    q->dev = bytes && (dev >= 0 ? dev : shmc__mk_dev(buf));
    return q;
}

/* A send, eager where it may be (sync 0), or by rendezvous whatever its size (sync 1: a
 * synchronous send, which completes only when the receive that matched it answers, FIN
 * or CTS, or, to oneself, when a receive takes it). Inline: each caller passes a
 * constant. */
static inline int post_send(struct shmc__p2p *p, const void *buf, size_t bytes, size_t elsize,
                            int wdst, int tag, uint32_t ctx, const struct shmc__comm *c, int dev,
                            int sync, struct shmc__request **out)
{
    struct shmc__request *s =
        start(p, SHMC_REQ_SEND, (void *)(uintptr_t)buf, bytes, elsize, wdst, tag, ctx, c, dev);
    *out = s;
    if (!s)
        return SHMC_ERR_NOMEM;
    int eager = !sync && bytes <= p->eager_limit && !s->dev;

    if (wdst == p->rank) {
        struct shmc__request *r = shmc__match_posted(&p->match, wdst, tag, ctx);
        if (r) {
            shmc__deliver_self(p, r, s);
        } else if (eager) {
            int rc = shmc__unexp_add_eager(&p->match, wdst, tag, ctx, buf, bytes);
            shmc__req_complete(&p->reqs, s, rc);
        } else {
            s->proto = SHMC_P_SELF;
            int rc = shmc__unexp_add_self(&p->match, s);
            if (rc != SHMC_OK)
                shmc__req_complete(&p->reqs, s, rc);
        }
        return SHMC_OK;
    }
    int lost = shmc__peer_lost(p, wdst);
    if (lost != SHMC_OK) {
        shmc__req_complete(&p->reqs, s, lost);
        return SHMC_OK;
    }
    if (eager) {
        struct shmc__peer *pe = &p->peers[wdst];
        s->proto = SHMC_P_EAGER;
        if (shmc__list_empty(&pe->matchq) && shmc__outq_eager(&pe->ep, buf, bytes, tag, ctx))
            shmc__req_complete(&p->reqs, s, SHMC_OK);
        else
            shmc__outq_send(p, wdst, s);
        return SHMC_OK;
    }
    return shmc__rndv_start_send(p, s);
}

int shmc__post_send(struct shmc__p2p *p, const void *buf, size_t bytes, size_t elsize, int wdst,
                    int tag, uint32_t ctx, const struct shmc__comm *c, int dev,
                    struct shmc__request **out)
{
    return post_send(p, buf, bytes, elsize, wdst, tag, ctx, c, dev, 0, out);
}

int shmc__post_ssend(struct shmc__p2p *p, const void *buf, size_t bytes, size_t elsize, int wdst,
                     int tag, uint32_t ctx, const struct shmc__comm *c, struct shmc__request **out)
{
    return post_send(p, buf, bytes, elsize, wdst, tag, ctx, c, -1, 1, out);
}

int shmc__post_driven(struct shmc__p2p *p, const struct shmc__driven_ops *ops, void *arg,
                      const struct shmc__comm *c, int tag, struct shmc__request **out)
{
    struct shmc__request *r =
        start(p, SHMC_REQ_DRIVEN, NULL, 0, 1, SHMC_ANY, tag, shmc__driven_ctx(c), c, 0);
    *out = r;
    if (!r)
        return SHMC_ERR_NOMEM;
    r->ops = ops;
    r->poll_arg = arg;
    shmc__req_enqueue(&p->driven, r, SHMC_Q_DRIVEN);
    return SHMC_OK;
}

void shmc__driven_park(struct shmc__request *r)
{
    shmc__req_unlink(r);
}

void shmc__driven_resume(struct shmc__p2p *p, struct shmc__request *r)
{
    if (r->state == SHMC_RS_ACTIVE && !shmc__linked(&r->link))
        shmc__req_enqueue(&p->driven, r, SHMC_Q_DRIVEN);
}

void shmc__driven_retarget(struct shmc__request *r, const struct shmc__driven_ops *ops, void *arg)
{
    r->ops = ops;
    r->poll_arg = arg;
}

int shmc__post_null(struct shmc__p2p *p, int send, size_t elsize, int tag,
                    const struct shmc__comm *c, struct shmc__request **out)
{
    struct shmc__request *r = start(p, send ? SHMC_REQ_SEND : SHMC_REQ_RECV, NULL, 0, elsize,
                                    SHMC_PROC_NULL, tag, c->ctx, c, 0);
    *out = r;
    if (!r)
        return SHMC_ERR_NOMEM;
    r->src = SHMC_PROC_NULL;
    r->msg_tag = SHMC_ANY_TAG;
    r->msg_bytes = 0;
    shmc__req_complete(&p->reqs, r, SHMC_OK);
    return SHMC_OK;
}

static inline int post_recv(struct shmc__p2p *p, void *buf, size_t bytes, size_t elsize, int wsrc,
                            int tag, uint32_t ctx, const struct shmc__comm *c, int dev, int kept,
                            struct shmc__request **out)
{
    struct shmc__request *r = start(p, SHMC_REQ_RECV, buf, bytes, elsize, wsrc, tag, ctx, c, dev);
    *out = r;
    if (!r)
        return SHMC_ERR_NOMEM;
    r->kept = (uint8_t)kept;

    /* Anything already in the mailboxes must be seen first, or the order breaks. */
    struct shmc__unexp *u = shmc__match_unexp(&p->match, wsrc, tag, ctx);
    if (u) {
        shmc__deliver_unexp(p, r, u);
        return SHMC_OK;
    }
    r->proto = SHMC_P_POSTED;
    shmc__match_post(&p->match, r);
    return SHMC_OK;
}

int shmc__post_recv(struct shmc__p2p *p, void *buf, size_t bytes, size_t elsize, int wsrc, int tag,
                    uint32_t ctx, const struct shmc__comm *c, int dev, struct shmc__request **out)
{
    return post_recv(p, buf, bytes, elsize, wsrc, tag, ctx, c, dev, 0, out);
}

int shmc__post_recv_kept(struct shmc__p2p *p, void *buf, size_t bytes, size_t elsize, int wsrc,
                         int tag, uint32_t ctx, const struct shmc__comm *c, int dev,
                         struct shmc__request **out)
{
    return post_recv(p, buf, bytes, elsize, wsrc, tag, ctx, c, dev, 1, out);
}

int shmc__post_claimed(struct shmc__p2p *p, void *buf, size_t bytes, size_t elsize,
                       struct shmc__unexp *u, const struct shmc__comm *c, int dev,
                       struct shmc__request **out)
{
    struct shmc__request *r =
        start(p, SHMC_REQ_RECV, buf, bytes, elsize, u->src, u->tag, u->ctx, c, dev);
    *out = r;
    if (!r)
        return SHMC_ERR_NOMEM;
    shmc__match_unclaim(u);
    shmc__deliver_unexp(p, r, u);
    return SHMC_OK;
}
