/*
 * Delivery of matched messages (deliver.h). An eager message is copied in and the
 * receive completes; a rendezvous offer starts its transfer (rndv.c); a message to
 * oneself is one copy between the two buffers.
 */
#include "p2p/deliver.h"

#include <stdlib.h>

#include "p2p/rndv.h"

void shmc__deliver_eager(struct shmc__p2p *p, struct shmc__request *r, int src, int tag,
                         const void *data, size_t len)
{
    size_t n = len <= r->bytes ? len : r->bytes;
    r->src = src;
    r->msg_tag = tag;
    r->msg_bytes = len;
    int rc = n ? shmc__copy_kind(r->buf, data, n, r->dev) : SHMC_OK;
    shmc__req_complete(&p->reqs, r,
                       rc != SHMC_OK    ? rc
                       : len > r->bytes ? SHMC_ERR_TRUNCATE
                                        : SHMC_OK);
}

void shmc__deliver_unexp(struct shmc__p2p *p, struct shmc__request *r, struct shmc__unexp *u)
{
    if (u->kind == SHMC_REC_EAGER) {
        shmc__deliver_eager(p, r, u->src, u->tag, u->data, u->bytes);
    } else if (u->kind == SHMC_REC_RTS) {
        struct shmc__rts rts = {
            .bytes = u->bytes, .addr = u->addr, .cookie = u->cookie, .flags = u->flags};
        shmc__rndv_matched(p, r, u->src, u->tag, &rts, u->ipc);
    } else {
        shmc__deliver_self(p, r, u->self_send);
    }
    free(u);
}

void shmc__deliver_self(struct shmc__p2p *p, struct shmc__request *recv, struct shmc__request *send)
{
    size_t n = send->bytes <= recv->bytes ? send->bytes : recv->bytes;
    recv->src = send->peer;
    recv->msg_tag = send->tag;
    recv->msg_bytes = send->bytes;
    int rc = n ? shmc__copy_kind(recv->buf, send->buf, n, recv->dev || send->dev) : SHMC_OK;
    shmc__req_complete(&p->reqs, recv,
                       rc != SHMC_OK               ? rc
                       : send->bytes > recv->bytes ? SHMC_ERR_TRUNCATE
                                                   : SHMC_OK);
    shmc__req_complete(&p->reqs, send, rc);
}
