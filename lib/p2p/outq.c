/*
 * The outgoing queues (outq.h). Control records go before everything else queued for a
 * peer, since each unblocks a transfer on the other side; sends go strictly in order.
 */
#include "p2p/outq.h"

#include <stdlib.h>
#include <string.h>

#include "base/copy.h"

int shmc__outq_eager(struct shmc__ep *ep, const void *buf, size_t bytes, int tag, uint32_t ctx)
{
    uint8_t *dst = shmc__ring_reserve(&ep->out, (uint32_t)bytes);
    if (!dst)
        return 0;
    if (bytes)
        shmc__copy(dst, buf, bytes);
    shmc__ring_commit(&ep->out, SHMC_REC_EAGER, (uint32_t)tag | (uint64_t)ctx << 32,
                      (uint32_t)bytes);
    shmc__ep_notify(ep);
    return 1;
}

static int put_ctrl(struct shmc__ep *ep, unsigned kind, uint64_t w1, uint64_t a, uint64_t b)
{
    uint64_t pl[2] = {a, b};
    uint8_t *dst = shmc__ring_reserve(&ep->out, sizeof pl);
    if (!dst)
        return 0;
    memcpy(dst, pl, sizeof pl);
    shmc__ring_commit(&ep->out, kind, w1, sizeof pl);
    shmc__ep_notify(ep);
    return 1;
}

void shmc__outq_busy(struct shmc__p2p *p, int peer)
{
    struct shmc__peer *pe = &p->peers[peer];
    int busy = !shmc__list_empty(&pe->matchq) || !shmc__list_empty(&pe->streams) ||
               !shmc__list_empty(&pe->ctrl);
    if (busy != pe->out_busy) {
        p->out_busy_count += busy ? 1 : -1;
        pe->out_busy = busy;
    }
}

/* Writes the record now if nothing is queued before it and the ring has room (1), or 0. */
static int put_now(struct shmc__p2p *p, int peer, unsigned kind, uint64_t w1, uint64_t a,
                   uint64_t b)
{
    struct shmc__peer *pe = &p->peers[peer];
    return shmc__list_empty(&pe->ctrl) && put_ctrl(&pe->ep, kind, w1, a, b);
}

/* Queues the record in c (part of request owner, or, with owner NULL, freed once sent). */
static void queue(struct shmc__p2p *p, int peer, struct shmc__ctrl *c, struct shmc__request *owner,
                  unsigned kind, uint64_t w1, uint64_t a, uint64_t b)
{
    *c = (struct shmc__ctrl){.owner = owner, .kind = kind, .w1 = w1, .a = a, .b = b};
    shmc__list_push(&p->peers[peer].ctrl, &c->link);
    shmc__outq_busy(p, peer);
}

int shmc__outq_ctrl(struct shmc__p2p *p, int peer, struct shmc__request *r, unsigned kind,
                    uint64_t w1, uint64_t a, uint64_t b)
{
    if (put_now(p, peer, kind, w1, a, b))
        return SHMC_OK;
    if (!r->ctrl_queued) {
        r->ctrl_queued = 1;
        queue(p, peer, &r->ctrl, r, kind, w1, a, b);
        return SHMC_OK;
    }
    struct shmc__ctrl *c = malloc(sizeof *c); /* not expected: see struct shmc__ctrl */
    if (!c)
        return SHMC_ERR_NOMEM;
    queue(p, peer, c, NULL, kind, w1, a, b);
    return SHMC_OK;
}

void shmc__outq_ctrl_in(struct shmc__p2p *p, int peer, void *mem, unsigned kind, uint64_t w1,
                        uint64_t a, uint64_t b)
{
    if (put_now(p, peer, kind, w1, a, b))
        free(mem);
    else
        queue(p, peer, mem, NULL, kind, w1, a, b);
}

void shmc__outq_send(struct shmc__p2p *p, int peer, struct shmc__request *s)
{
    shmc__req_enqueue(&p->peers[peer].matchq, s, SHMC_Q_MATCH);
    shmc__outq_busy(p, peer);
}

int shmc__outq_flush_ctrl(struct shmc__p2p *p, int peer)
{
    struct shmc__peer *pe = &p->peers[peer];
    struct shmc__link *l;
    int made = 0;
    while ((l = shmc__list_first(&pe->ctrl))) {
        struct shmc__ctrl *c = shmc__link_entry(l, struct shmc__ctrl, link);
        if (!put_ctrl(&pe->ep, c->kind, c->w1, c->a, c->b))
            break;
        shmc__list_remove(l);
        shmc__ctrl_done(&p->reqs, c);
        made++;
    }
    return made;
}

void shmc__outq_discard(struct shmc__p2p *p, int peer)
{
    struct shmc__link *l;
    while ((l = shmc__list_first(&p->peers[peer].ctrl))) {
        shmc__list_remove(l);
        shmc__ctrl_done(&p->reqs, shmc__link_entry(l, struct shmc__ctrl, link));
    }
}
