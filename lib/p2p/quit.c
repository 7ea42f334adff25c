/*
 * Quitting a collective context: the failure protocol's point-to-point half.
 *
 * A member that cannot finish a collective (a member it needs is gone, a copy failed, the
 * message it got has the wrong size) cannot simply return: the others would wait for
 * messages it will never send, and the offers (RTS) it made or declined to match would
 * leave their senders, or itself, not knowing whether a peer still reads its buffer. So
 * it quits the communicator's collective context:
 *
 *   1. it publishes the context in its control block (shm/job.h, shmc__job_quit) and
 *      wakes everyone: a member waiting in the collective finds it when the epoch moves
 *      (shmc__quit_scan) and fails the same way, quitting in turn;
 *   2. it fails the requests on the context that no peer is working on yet (receives
 *      still posted, sends whose record is not written: progress.c, doomed()), declines
 *      every offer waiting unmatched with a FIN carrying the error (the sender then knows
 *      nobody will read its buffer), drops eager messages, and declines every later
 *      offer on the context when it arrives (shmc__quit_inbound);
 *   3. it waits for its requests that a peer is working on (a copy in either direction,
 *      an offer not yet answered) to end, which they do, since the peer either matches
 *      them or declines them when it quits (coll/xfer.c);
 *   4. as the collective returns it marks the quit settled (shm/job.h,
 *      shmc__job_quit_settle): a member's request that waits for this rank to act (an
 *      offer that reached its ring after it quit, data it will not send) fails then
 *      (progress.c, quit_request), without waiting for this rank's next call.
 *
 * Only after 3 does the collective return, so no peer reads or writes this rank's buffers
 * after it returned. The context stays quit: every later collective on the communicator
 * fails at its start (and declines what arrives), since the members are out of step.
 * Messages this rank sent before quitting are still delivered: the peers read a quitter's
 * ring to the end before they fail a receive from it.
 */
#include "p2p/quit.h"

#include <stdlib.h>

#include "base/log.h"
#include "p2p/match.h"
#include "p2p/outq.h"

int shmc__quit_publish(struct shmc__p2p *p, struct shmc__comm *c, int err)
{
    if (c->quit_self)
        return 0;
    uint32_t ctx = c->ctx + 1;
    c->quit_self = 1;
    if (!c->quit)
        c->quit = err;
    p->quit_err[p->nquit % SHMC_QUIT_WORDS] = err;
    p->quit_ctx[p->nquit++ % SHMC_QUIT_WORDS] = ctx;
    shmc__job_quit(p->arena, (unsigned)p->rank, ctx, err);
    return 1;
}

/* The error with which this rank quit ctx, or 0. */
static int quit_here(const struct shmc__p2p *p, uint32_t ctx)
{
    unsigned n = p->nquit < SHMC_QUIT_WORDS ? p->nquit : SHMC_QUIT_WORDS;
    for (unsigned i = 0; i < n; i++)
        if (p->quit_ctx[i] == SHMC_CTX_COLL_OF(ctx))
            return p->quit_err[i];
    return 0;
}

/* A FIN with -err for the sender's request `cookie`; mem (a malloc'd block at least as
 * large as a struct shmc__ctrl) holds it if it must wait for ring space, and is freed
 * otherwise. */
static void decline(struct shmc__p2p *p, int peer, uint64_t cookie, int err, void *mem)
{
    if (!p->peers[peer].ep.gone && !p->peers[peer].ep.broken)
        shmc__outq_ctrl_in(p, peer, mem, SHMC_REC_FIN, cookie, (uint64_t) - (int64_t)err, 0);
    else
        free(mem);
}

void shmc__quit_decline(struct shmc__p2p *p, uint32_t ctx, int err)
{
    struct shmc__unexp *u;
    while ((u = shmc__unexp_take_ctx(&p->match, ctx))) {
        if (u->kind == SHMC_REC_RTS)
            decline(p, u->src, u->cookie, err, u);
        else
            free(u);
    }
}

int shmc__quit_inbound(struct shmc__p2p *p, int peer, unsigned kind, uint32_t ctx,
                       const struct shmc__rts *rts)
{
    int err;
    if (!SHMC_CTX_IS_COLL(ctx) || !(err = quit_here(p, ctx)))
        return 0;
    if (kind == SHMC_REC_RTS) {
        void *mem = malloc(sizeof(struct shmc__ctrl));
        if (!mem) {
            /* Not expected (48 bytes); the offer then waits in the unexpected queue. */
            SHMC_ERROR("out of memory declining an offer from rank %d", peer);
            return 0;
        }
        decline(p, peer, rts->cookie, err, mem);
    }
    return 1;
}

/* The communicator with collective context ctx that has world rank w as a member. */
static struct shmc__comm *comm_of(struct shmc__p2p *p, uint32_t ctx, int w)
{
    struct shmc__comm *c = &p->comms.world;
    ctx = SHMC_CTX_COLL_OF(ctx);
    if (c->ctx + 1 == ctx)
        return c;
    struct shmc__link *l, *tmp;
    shmc__list_each(&p->comms.list, l, tmp)
    {
        c = shmc__link_entry(l, struct shmc__comm, link);
        if (c->ctx + 1 == ctx && shmc__comm_local_rank(c, w) >= 0)
            return c;
    }
    return NULL;
}

/* A quitter's error as its peers report it: the same where it names the cause (a time-out
 * of the communicator's bound, shmc_comm_set_timeout, is the call's for every member),
 * else a peer gone from the collective. */
static int as_seen(int err)
{
    return err == SHMC_ERR_CORRUPT || err == SHMC_ERR_MISMATCH || err == SHMC_ERR_ABORTED ||
                   err == SHMC_ERR_TIMEOUT
               ? err
               : SHMC_ERR_PEER_DEAD;
}

int shmc__quit_scan(struct shmc__p2p *p)
{
    int marked = 0;
    for (int q = 0; q < p->size; q++) {
        if (q == p->rank || p->peers[q].ep.broken)
            continue;
        for (unsigned i = 0; i < SHMC_QUIT_WORDS; i++) {
            uint64_t w = shmc__job_quit_word(p->arena, (unsigned)q, i);
            if (w == p->peers[q].quit_seen[i])
                continue;
            p->peers[q].quit_seen[i] = w;
            uint32_t ctx = (uint32_t)w;
            struct shmc__comm *c;
            if (!w || !SHMC_CTX_IS_COLL(ctx) || !(c = comm_of(p, ctx, q)))
                continue;
            p->quits_seen++;
            if (c->quit)
                continue;
            int err = -(int)(uint8_t)(w >> 32);
            c->quit = as_seen(err);
            SHMC_INFO("rank %d left a collective on communicator %u (%s)", q, c->uid,
                      shmc_strerror(err));
            marked++;
        }
    }
    return marked;
}

void shmc__quit_member_gone(struct shmc__p2p *p, int w)
{
    /* Relaxed: the caller saw the epoch (A4) that announced the state. */
    if (shmc__load_relaxed32(&p->peers[w].ep.cb->state) == SHMC_RANK_FINALIZED)
        return;
    struct shmc__comm *c = &p->comms.world;
    if (!c->quit)
        c->quit = SHMC_ERR_PEER_DEAD;
    struct shmc__link *l, *tmp;
    shmc__list_each(&p->comms.list, l, tmp)
    {
        c = shmc__link_entry(l, struct shmc__comm, link);
        if (!c->quit && shmc__comm_local_rank(c, w) >= 0)
            c->quit = SHMC_ERR_PEER_DEAD;
    }
    p->recheck = 1;
}

int shmc__quit_by(const struct shmc__p2p *p, int w, uint32_t ctx)
{
    if (!p->quits_seen)
        return 0;
    int err = shmc__job_quit_of(p->arena, (unsigned)w, ctx);
    return err ? as_seen(err) : 0;
}
