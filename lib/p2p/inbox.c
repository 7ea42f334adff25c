/*
 * Incoming records (inbox.h). Messages (EAGER, RTS) go to the oldest posted receive
 * that accepts them, or to the unexpected queue; control records (CTS, DATA, FIN) go to
 * the rendezvous request they name.
 */
#include "p2p/inbox.h"

#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "p2p/deliver.h"
#include "p2p/quit.h"
#include "p2p/rndv.h"

#define DRAIN_BUDGET 64 /* records per ring per pass, so one busy peer cannot starve others */

static void peer_broken(struct shmc__p2p *p, int peer)
{
    char what[96];
    snprintf(what, sizeof what, "the mailbox from rank %d holds an invalid record at byte %llu",
             peer, (unsigned long long)p->peers[peer].ep.in.tail);
    shmc__peer_broken(p, peer, what);
}

/* Acts on one record. Returns 0 if it could not be taken now (out of memory for an
 * unexpected message, or, with matched_only, a message no posted receive takes) and must
 * stay in the ring, 1 otherwise, -1 if it is invalid. */
static int handle(struct shmc__p2p *p, int peer, const struct shmc__rec_view *v, int matched_only)
{
    int tag = (int)(uint32_t)v->w1;
    uint32_t ctx = (uint32_t)(v->w1 >> 32);
    struct shmc__request *r;

    switch (v->kind) {
    case SHMC_REC_EAGER:
        if (tag < 0)
            return -1;
        if ((r = shmc__match_posted(&p->match, peer, tag, ctx))) {
            shmc__deliver_eager(p, r, peer, tag, v->payload, v->len);
            return 1;
        }
        if (matched_only)
            return 0;
        if (p->nquit && shmc__quit_inbound(p, peer, SHMC_REC_EAGER, ctx, NULL))
            return 1;
        return shmc__unexp_add_eager(&p->match, peer, tag, ctx, v->payload, v->len) == SHMC_OK;
    case SHMC_REC_RTS: {
        struct shmc__rts rts;
        struct shmc__ipc ipc, *dev = NULL;
        if (tag < 0 || v->len < sizeof rts)
            return -1;
        memcpy(&rts, v->payload, sizeof rts);
        if (rts.flags & SHMC_RTS_DEVICE) {
            if (v->len != sizeof rts + sizeof ipc)
                return -1;
            memcpy(&ipc, v->payload + sizeof rts, sizeof ipc);
            dev = &ipc;
        } else if (v->len != sizeof rts) {
            return -1;
        }
        if ((r = shmc__match_posted(&p->match, peer, tag, ctx))) {
            shmc__rndv_matched(p, r, peer, tag, &rts, dev);
            return 1;
        }
        if (matched_only)
            return 0;
        if (p->nquit && shmc__quit_inbound(p, peer, SHMC_REC_RTS, ctx, &rts))
            return 1;
        return shmc__unexp_add_rts(&p->match, peer, tag, ctx, &rts, dev) == SHMC_OK;
    }
    case SHMC_REC_CTS:
        shmc__rndv_on_cts(p, peer, v->w1, v->payload, v->len);
        return 1;
    case SHMC_REC_DATA:
        shmc__rndv_on_data(p, peer, v->w1, v->payload, v->len);
        return 1;
    case SHMC_REC_FIN:
        shmc__rndv_on_fin(p, peer, v->w1, v->payload, v->len);
        return 1;
    default:
        return -1; /* a kind the ring carries but this protocol does not have */
    }
}

/* Handles up to DRAIN_BUDGET records from peer; *left (may be NULL) is set to 1 if it
 * stopped at a record it left in the ring (no memory for it, or, with matched_only, no
 * posted receive takes it). Returns how many it handled. */
static int drain(struct shmc__p2p *p, int peer, int matched_only, int *left)
{
    struct shmc__ep *ep = &p->peers[peer].ep;
    struct shmc__rec_view v;
    int n = 0;

    if (ep->broken)
        return 0;
    while (n < DRAIN_BUDGET) {
        int rc = shmc__ring_peek(&ep->in, &v);
        if (rc == 0)
            break;
        if (rc > 0)
            rc = handle(p, peer, &v, matched_only);
        if (rc < 0) {
            peer_broken(p, peer);
            break;
        }
        if (rc == 0) {
            /* out of memory, or unmatched: leave the record for a later pass */
            if (left)
                *left = 1;
            break;
        }
        shmc__ring_consume(&ep->in, &v);
        n++;
    }
    /* The producer may be waiting for the space we just freed. */
    if (shmc__ring_publish(&ep->in))
        shmc__ep_notify(ep);
    return n;
}

int shmc__inbox_drain(struct shmc__p2p *p, int peer)
{
    return drain(p, peer, 0, NULL);
}

int shmc__inbox_drain_matched(struct shmc__p2p *p, int peer)
{
    int left = 0;
    if (drain(p, peer, 1, &left) >= DRAIN_BUDGET)
        return 0; /* matched ones may be left behind */
    /* Stopped at a message no posted receive takes: it stays first in the ring, ahead of
     * anything that arrives later. Stopped at an empty ring: a message arriving from now
     * on belongs to a receive still posted, if there is one. */
    return left || shmc__list_empty(&p->match.posted);
}
