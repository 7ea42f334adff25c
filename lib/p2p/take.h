/*
 * Taking an eager message straight out of one peer's mailbox, with no request: the blocking
 * receive while nothing else is pending (calls.c, after a short spin) and shmc_irecv_now
 * once the posted receives have taken what arrived for them (no spin). The caller has made
 * sure that no posted receive and no unexpected message could come before this one, and
 * that the first record is no posted receive's; that record is then either
 * this receive's message or not taken at all, so the general engine, which takes over in
 * that case, sees the same records in the same order and matching is unchanged.
 */
#ifndef SHMC_TAKE_H
#define SHMC_TAKE_H

#include <stddef.h>
#include <stdint.h>

#include "base/copy.h"
#include "p2p/p2p.h"

/* Polls of the one ring before a blocking receive falls back to the general engine: long
 * enough for a ping-pong reply, short enough that other peers are not kept waiting; never
 * more than the wait policy would spin (SHMC_SPIN: SHMC_SPIN_AUTO_SHARED polls by default when
 * ranks share CPUs). */
#define SHMC_TAKE_SPIN 512

static inline unsigned shmc__take_spins(const struct shmc__p2p *p)
{
    return p->spin < SHMC_TAKE_SPIN ? p->spin : SHMC_TAKE_SPIN;
}

/* What every take needs of world rank w: another rank, no send queued (which only the
 * general engine moves), the mailbox whole. */
static inline int shmc__take_peer_ok(const struct shmc__p2p *p, int w)
{
    return w >= 0 && w != p->rank && !p->out_busy_count && !p->peers[w].ep.broken;
}

/* May a receive from world rank w take its message straight from w's mailbox (dev: into
 * device memory)? Only while nothing else is pending: no request active (so no receive
 * posted before it), no unexpected message kept, no send queued (which only the general
 * engine moves), the mailbox whole. */
static inline int shmc__take_may(const struct shmc__p2p *p, int w, int dev)
{
    return !p->reqs.active && !p->match.nunexp && !dev && shmc__take_peer_ok(p, w);
}

/* Entries of each matching queue shmc__take_may_tagged looks through: a program's few
 * receives posted for later, without a cost that grows with a long queue. */
#define SHMC_TAKE_LOOK 8

/* The same for a receive with an exact tag on ctx (a nonblocking collective's message),
 * while other requests may be active: no posted receive could take a message from w with
 * that tag on ctx, and no message from w waits on ctx among the unexpected ones, found
 * within SHMC_TAKE_LOOK entries of each queue (longer queues: no). */
static inline int shmc__take_may_tagged(const struct shmc__p2p *p, int w, int tag, uint32_t ctx)
{
    if (!shmc__take_peer_ok(p, w))
        return 0;
    const struct shmc__link *head = &p->match.posted, *l = head->next;
    for (int k = 0; l != head; l = l->next, k++) {
        const struct shmc__request *r = shmc__link_entry(l, struct shmc__request, link);
        if (k == SHMC_TAKE_LOOK || shmc__match_accepts(r->peer, r->tag, r->ctx, w, tag, ctx))
            return 0;
    }
    head = &p->match.unexp_of[w];
    l = head->next;
    for (int k = 0; l != head; l = l->next, k++) {
        const struct shmc__unexp *u = shmc__link_entry(l, struct shmc__unexp, link);
        if (k == SHMC_TAKE_LOOK || u->ctx == ctx) /* (w's own queue) */
            return 0;
    }
    return 1;
}

/* Receives into buf (bytes, elements of es) the first record of world rank w's ring if it is
 * an eager message of ctx that tag accepts, polling up to spins times for one to arrive;
 * src is the sender's rank as the status gives it. Returns SHMC_OK or SHMC_ERR_TRUNCATE with
 * *status filled (may be NULL), or 1 when nothing was taken. Always inlined: the blocking
 * receive's instruction count (bench/path_cost) rose by 30 when the compiler made it a call. */
__attribute__((always_inline)) static inline int
shmc__take_eager(struct shmc__p2p *p, void *buf, size_t bytes, size_t es, int w, int tag,
                 uint32_t ctx, int src, unsigned spins, shmc_status *status)
{
    struct shmc__ep *ep = &p->peers[w].ep;
    struct shmc__rec_view v;
    for (unsigned n = 0;; n++) {
        int rc = shmc__ring_peek(&ep->in, &v);
        if (rc > 0)
            break;
        if (rc < 0 || n >= spins)
            return 1;
        shmc__cpu_relax();
    }
    int mtag = (int)(uint32_t)v.w1;
    if (v.kind != SHMC_REC_EAGER || (uint32_t)(v.w1 >> 32) != ctx || mtag < 0 ||
        !shmc__tag_accepts(tag, mtag))
        return 1;
    int err = v.len > bytes ? SHMC_ERR_TRUNCATE : SHMC_OK;
    size_t n = v.len <= bytes ? v.len : bytes;
    if (n)
        shmc__copy(buf, v.payload, n);
    if (status)
        *status = (shmc_status){src, mtag, v.len / es, err};
    shmc__ring_consume(&ep->in, &v);
    /* The producer may be waiting for the space. */
    if (shmc__ring_publish(&ep->in))
        shmc__ep_notify(ep);
    return err;
}

#endif /* SHMC_TAKE_H */
