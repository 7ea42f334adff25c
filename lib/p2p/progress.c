/*
 * The progress engine. Everything moves inside library calls: shmc__progress drains
 * every incoming mailbox (inbox.c) and pushes whatever outgoing work waited for ring
 * space; shmc__check_job fails the requests that can no longer complete, when the job is
 * aborted or a peer is gone or broken. The wait loop (wait.c) calls both until the
 * caller's condition holds.
 */
#include "p2p/progress.h"

#include <stdio.h>

#include "base/clock.h"
#include "p2p/coop.h"
#include "p2p/inbox.h"
#include "p2p/outq.h"
#include "p2p/quit.h"
#include "p2p/rndv.h"
#include "shm/doorbell.h"

/* ---- outgoing ------------------------------------------------------------------------ */

static int push_out(struct shmc__p2p *p, int peer)
{
    struct shmc__peer *pe = &p->peers[peer];
    /* Control records first: each one unblocks a transfer on the other side. */
    int made = shmc__outq_flush_ctrl(p, peer);
    /* Then matching records, strictly in order (non-overtaking). */
    struct shmc__request *s;
    while ((s = shmc__req_first(&pe->matchq))) {
        if (s->proto == SHMC_P_EAGER) {
            if (!shmc__outq_eager(&pe->ep, s->buf, s->bytes, s->tag, s->ctx))
                break;
            shmc__req_complete(&p->reqs, s, SHMC_OK); /* which takes it off the queue */
        } else if (!shmc__rndv_put_rts(p, peer, s)) { /* which takes s off the queue */
            break;
        }
        made++;
    }
    made += shmc__rndv_push_streams(p, peer);
    if (pe->ep.out.corrupt && !pe->ep.broken) {
        char what[96];
        snprintf(what, sizeof what, "the mailbox to rank %d shows an impossible read position",
                 peer);
        shmc__peer_broken(p, peer, what);
    }
    shmc__outq_busy(p, peer);
    return made;
}

/* The driven requests' polls (request.h), each once; those that end complete. A poll
 * posts and tests, and the posting may come back here through nothing but this flag's
 * test. */
static int drive(struct shmc__p2p *p)
{
    int made = 0;
    p->driving = 1;
    struct shmc__link *l, *tmp;
    shmc__list_each(&p->driven, l, tmp)
    {
        struct shmc__request *r = shmc__link_entry(l, struct shmc__request, link);
        int err = SHMC_OK;
        if (r->ops->poll(r->poll_arg, &err)) {
            shmc__req_complete(&p->reqs, r, err);
            /* Nobody waits for a detached request: its end is no progress a wait needs
             * to see (it would keep a waiter spinning on cores others need). */
            if (r->detached)
                shmc__req_free(&p->reqs, r);
            else
                made++;
        }
    }
    p->driving = 0;
    return made;
}

int shmc__progress(struct shmc__p2p *p)
{
    int made = 0;
    p->now_dry = 0; /* this pass looks: the next shmc_irecv_now may look again */
    /* Transports whose mailboxes the peer cannot read move their records first (none of
     * the shared-memory transport's: then this is one test). */
    for (int q = 0; p->pumped && q < p->size; q++)
        if (q != p->rank && p->peers[q].ep.ops->progress)
            made += p->peers[q].ep.ops->progress(&p->peers[q].ep);
    for (int q = 0; q < p->size; q++)
        if (q != p->rank)
            made += shmc__inbox_drain(p, q);
    if (p->out_busy_count)
        for (int q = 0; q < p->size; q++)
            if (p->peers[q].out_busy)
                made += push_out(p, q);
    if (!shmc__list_empty(&p->cma_active))
        made += shmc__rndv_progress_cma(p);
    if (!shmc__list_empty(&p->coop.sends))
        made += shmc__coop_progress(p);
    if (!shmc__list_empty(&p->dev_active))
        made += shmc__rndv_progress_dev(p);
    if (!shmc__list_empty(&p->driven) && !p->driving)
        made += drive(p);
    return made;
}

/* ---- failures ------------------------------------------------------------------------ */

void shmc__peers_refresh(struct shmc__p2p *p, int probe)
{
    for (int q = 0; q < p->size; q++) {
        if (q == p->rank || !shmc__ep_refresh(&p->tp, &p->peers[q].ep, probe))
            continue;
        /* In an aborted job the ranks that leave are ending with it: what waits for them
         * ends with SHMC_ERR_ABORTED (shmc__check_job), not as if a peer had died. Read
         * after the state, since shmc_abort writes the abort word before its rank's. */
        if (shmc__job_aborted(p->arena))
            return;
        p->ngone++;
        shmc__quit_member_gone(p, q);
        /* A death we found ourselves: look at the pending requests again. */
        if (probe)
            p->recheck = 1;
    }
}

static int all_others_gone(const struct shmc__p2p *p)
{
    for (int q = 0; q < p->size; q++)
        if (q != p->rank && !p->peers[q].ep.gone && !p->peers[q].ep.broken)
            return 0;
    /* Not gone while any of them left messages we have not read. */
    for (int q = 0; q < p->size; q++)
        if (q != p->rank && !p->peers[q].ep.broken && !shmc__ring_empty(&p->peers[q].ep.in))
            return 0;
    return 1;
}

int shmc__source_lost(const struct shmc__p2p *p, int q)
{
    if (q == SHMC_ANY)
        return all_others_gone(p) ? SHMC_ERR_PEER_DEAD : SHMC_OK;
    if (q == p->rank)
        return SHMC_OK;
    const struct shmc__ep *ep = &p->peers[q].ep;
    if (ep->broken)
        return SHMC_ERR_CORRUPT;
    return ep->gone && shmc__ring_empty(&ep->in) ? SHMC_ERR_PEER_DEAD : SHMC_OK;
}

/* Can request r no longer complete? Returns the error to fail it with, or SHMC_OK. */
static int doomed(const struct shmc__p2p *p, const struct shmc__request *r)
{
    int q = r->kind == SHMC_REQ_RECV && r->proto != SHMC_P_POSTED ? r->src : r->peer;

    /* From any source, with every other rank gone: only this rank could still send it,
     * and it cannot while it waits for it. Not before: a receive posted, then a message
     * to oneself, is how a rank talks to itself (test_p2p_self). */
    if (q == SHMC_ANY && !r->waited)
        return SHMC_OK;
    /* Everything the peer wrote before leaving is read before we give up on it (its
     * mailbox must be empty): a message for a receive, the FIN or CTS that completes a
     * send. So is the count in a copy descriptor that completes one (coop.c): a send's,
     * or a receive's whose sender counted the last bytes (its send completed then, and it
     * may have left before our next step saw the count: tests/unit/check_coopleave.c).
     * A copy from its device buffer runs to the end: the mapping keeps that memory alive
     * after its owner is gone. */
    int err = shmc__source_lost(p, q);
    if (err == SHMC_ERR_PEER_DEAD && q != SHMC_ANY &&
        (shmc__coop_counted(p, r) || r->proto == SHMC_P_DEVCOPY))
        return SHMC_OK;
    return err;
}

void shmc__p2p_cancel(struct shmc__p2p *p, struct shmc__request *r, int err)
{
    if (r->state != SHMC_RS_ACTIVE)
        return;
    if (r->proto == SHMC_P_SELF)
        shmc__unexp_drop_self(&p->match, r);
    switch (r->queue) {
    case SHMC_Q_COOP:
        shmc__coop_dequeue(p, r);
        break;
    case SHMC_Q_DEV:
        shmc__rndv_abandon_dev(r);
        break;
    default:
        break; /* completing takes it off any other list; push_out recounts out_busy */
    }
    shmc__req_complete(&p->reqs, r, err);
}

/* Does r wait for its peer to act (answer an offer, take streamed data, send the data a
 * CTS asked for), rather than for a copy this rank makes itself? */
static int waits_for_peer(const struct shmc__request *r)
{
    return r->proto == SHMC_P_RTS || r->proto == SHMC_P_STREAM || r->proto == SHMC_P_DATA;
}

/* A request of a collective that this rank or a member quit (quit.c): one that no peer
 * works on yet fails now (a receive still posted, a send whose record is not written, a
 * message to oneself; nobody reads or writes its buffer); a single-copy receive stops
 * copying (rndv.c: letting it finish made survivors of 16 MiB collectives take up to
 * 1.7 s to return). One that waits for a peer which has left the call it quit in fails
 * too: that peer reads and writes none of our buffers any more and may not call the
 * library again for a long time, so the answer could come from its next call only (a
 * survivor waited for another survivor's next call that way). Unless both sides' copies
 * counted every byte (coop.c): then the message arrived. The others run to their end,
 * or fail as doomed() says. Returns 1 if r is no longer pending. */
static int quit_request(struct shmc__p2p *p, struct shmc__request *r)
{
    if (!SHMC_CTX_IS_COLL(r->ctx) || !r->comm || !r->comm->quit)
        return 0;
    int q = r->kind == SHMC_REQ_RECV ? r->src : r->peer;
    if (r->proto == SHMC_P_POSTED || r->proto == SHMC_P_SELF || r->queue == SHMC_Q_MATCH)
        shmc__p2p_cancel(p, r, r->comm->quit);
    else if (waits_for_peer(r) && q >= 0 && q != p->rank && !shmc__coop_counted(p, r) &&
             shmc__job_quit_settled(p->arena, (unsigned)q, SHMC_CTX_COLL_OF(r->ctx)))
        shmc__p2p_cancel(p, r, r->comm->quit);
    else
        shmc__rndv_abandon(p, r, r->comm->quit); /* nothing unless copying */
    return r->state != SHMC_RS_ACTIVE;
}

static void fail_requests(struct shmc__p2p *p, int abort)
{
    for (uint32_t i = 0; i < p->reqs.n; i++) {
        struct shmc__request *r = p->reqs.table[i];
        /* A driven request ends when its poll says so: its parts fail here (and one that
         * waits on shared memory alone sees the abort itself: coll/wsync.c, slot.c). */
        if (r->state != SHMC_RS_ACTIVE || r->kind == SHMC_REQ_DRIVEN)
            continue;
        if (!abort && quit_request(p, r))
            continue;
        int err = abort ? SHMC_ERR_ABORTED : doomed(p, r);
        if (err != SHMC_OK)
            shmc__p2p_cancel(p, r, err);
    }
}

/* Peers that found what we share corrupt and stopped talking to us (shm/job.h): we stop
 * waiting for them too. */
static void read_cuts(struct shmc__p2p *p)
{
    for (int q = 0; q < p->size; q++) {
        if (q == p->rank || p->peers[q].ep.broken ||
            !shmc__job_cut_by(p->arena, (unsigned)p->rank, (unsigned)q))
            continue;
        char what[96];
        snprintf(what, sizeof what, "rank %d stopped talking to this rank (see its message)", q);
        shmc__peer_broken(p, q, what);
    }
}

int shmc__check_job(struct shmc__p2p *p)
{
    struct shmc__arena_hdr *h = p->arena->hdr;
    if (shmc__job_aborted(p->arena)) {
        fail_requests(p, 1);
        return SHMC_ERR_ABORTED;
    }
    /* A4 pairs with R4 (shm/job.c): states are current. */
    uint32_t ep = shmc__load_acquire32(&h->epoch);
    if (ep == p->epoch_seen && !p->recheck)
        return SHMC_OK;
    p->epoch_seen = ep;
    p->recheck = 0;
    shmc__peers_refresh(p, 0);
    if (shmc__job_aborted(p->arena)) { /* (aborted since the look above: see refresh) */
        fail_requests(p, 1);
        return SHMC_ERR_ABORTED;
    }
    read_cuts(p);
    shmc__quit_scan(p);
    fail_requests(p, 0);
    return 1;
}

void shmc__test_look(struct shmc__p2p *p)
{
    shmc__progress(p);
    shmc__check_job(p);
    if (++p->test_looks % 64)
        return;
    uint64_t now = shmc__now_ns();
    if (now - p->tests_probed_ns < (uint64_t)SHMC_SLEEP_SLICE_MS * 1000000u)
        return;
    p->tests_probed_ns = now;
    shmc__peers_refresh(p, 1);
    shmc__check_job(p);
}

void shmc__p2p_quit(struct shmc__p2p *p, struct shmc__comm *c, int err)
{
    if (err == SHMC_ERR_ABORTED)
        return;
    uint32_t ctx = c->ctx + SHMC_CTX_COLL, nbc = c->ctx + SHMC_CTX_NBC;
    shmc__quit_publish(p, c, err);
    for (uint32_t i = 0; i < p->reqs.n; i++) {
        struct shmc__request *r = p->reqs.table[i];
        if (r->state == SHMC_RS_ACTIVE && (r->ctx == ctx || r->ctx == nbc))
            quit_request(p, r);
    }
    shmc__quit_decline(p, ctx, c->quit);
    shmc__quit_decline(p, nbc, c->quit);
}

void shmc__p2p_quit_settle(struct shmc__p2p *p, struct shmc__comm *c)
{
    if (!c->quit_self || c->quit_settled)
        return;
    c->quit_settled = 1;
    shmc__job_quit_settle(p->arena, (unsigned)p->rank, c->ctx + 1);
}
