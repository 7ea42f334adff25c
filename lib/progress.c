/*
 * The progress engine. Everything moves inside library calls: shmc__progress drains
 * every incoming ring (matching messages, buffering unexpected ones, acting on control
 * records) and pushes whatever outgoing work waited for ring space; the wait loop calls it
 * until the caller's condition holds, spinning, then yielding, then sleeping on the
 * doorbell (wait.h), and fails requests when the job is aborted or a peer is gone.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hang.h"
#include "internal.h"
#include "log.h"
#include "wait.h"

#define DRAIN_BUDGET 64 /* records per ring per pass, so one busy peer cannot starve others */

/* ---- outgoing ------------------------------------------------------------------------ */

void shmc__peer_out_busy(int p)
{
    struct shmc__peer *pe = &shmc__g.peers[p];
    int busy = pe->matchq.head || pe->streams.head || pe->ctrl_head;
    if (busy != pe->out_busy) {
        shmc__g.out_busy_count += busy ? 1 : -1;
        pe->out_busy = busy;
    }
}

int shmc__try_eager(int p, const void *buf, size_t bytes, int tag, uint32_t ctx)
{
    struct shmc__peer *pe = &shmc__g.peers[p];
    uint8_t *dst = shmc__ring_reserve(&pe->out, (uint32_t)bytes);
    if (!dst)
        return 0;
    if (bytes)
        memcpy(dst, buf, bytes);
    shmc__ring_commit(&pe->out, SHMC_REC_EAGER, (uint32_t)tag | (uint64_t)ctx << 32,
                      (uint32_t)bytes);
    shmc__notify(pe->cb, shmc__g.fenced);
    return 1;
}

static int put_ctrl(struct shmc__peer *pe, unsigned kind, uint64_t w1, uint64_t a, uint64_t b)
{
    uint64_t pl[2] = {a, b};
    uint8_t *dst = shmc__ring_reserve(&pe->out, sizeof pl);
    if (!dst)
        return 0;
    memcpy(dst, pl, sizeof pl);
    shmc__ring_commit(&pe->out, kind, w1, sizeof pl);
    shmc__notify(pe->cb, shmc__g.fenced);
    return 1;
}

int shmc__send_ctrl(int p, struct shmc__request *r, unsigned kind, uint64_t w1, uint64_t a,
                    uint64_t b)
{
    struct shmc__peer *pe = &shmc__g.peers[p];
    if (!pe->ctrl_head && put_ctrl(pe, kind, w1, a, b))
        return SHMC_OK;
    struct shmc__ctrl *c;
    if (!r->ctrl_queued) {
        c = &r->ctrl;
        r->ctrl_queued = 1;
    } else if (!(c = malloc(sizeof *c))) { /* not expected: see struct shmc__ctrl */
        return SHMC_ERR_NOMEM;
    }
    *c = (struct shmc__ctrl){
        .owner = c == &r->ctrl ? r : NULL, .kind = kind, .w1 = w1, .a = a, .b = b};
    if (pe->ctrl_tail)
        pe->ctrl_tail->next = c;
    else
        pe->ctrl_head = c;
    pe->ctrl_tail = c;
    shmc__peer_out_busy(p);
    return SHMC_OK;
}

void shmc__queue_send(int p, struct shmc__request *s)
{
    shmc__reqq_push(&shmc__g.peers[p].matchq, s, SHMC_Q_MATCH);
    shmc__peer_out_busy(p);
}

static int push_out(int p)
{
    struct shmc__peer *pe = &shmc__g.peers[p];
    int made = 0;

    /* Control records first: each one unblocks a transfer on the other side. */
    while (pe->ctrl_head && put_ctrl(pe, pe->ctrl_head->kind, pe->ctrl_head->w1, pe->ctrl_head->a,
                                     pe->ctrl_head->b)) {
        struct shmc__ctrl *c = pe->ctrl_head;
        pe->ctrl_head = c->next;
        if (!pe->ctrl_head)
            pe->ctrl_tail = NULL;
        shmc__ctrl_done(c);
        made++;
    }
    /* Then matching records, strictly in order (non-overtaking). */
    struct shmc__request *s;
    while ((s = pe->matchq.head)) {
        if (s->proto == SHMC_P_EAGER) {
            if (!shmc__try_eager(p, s->buf, s->bytes, s->tag, s->ctx))
                break;
            shmc__reqq_pop(&pe->matchq);
            shmc__req_complete(s, SHMC_OK);
        } else if (!shmc__rndv_put_rts(p, s)) { /* which takes s off the queue */
            break;
        }
        made++;
    }
    made += shmc__rndv_push_streams(p);
    shmc__peer_out_busy(p);
    return made;
}

/* ---- incoming ------------------------------------------------------------------------ */

static void peer_broken(int p, const struct shmc__ring_cons *c)
{
    struct shmc__peer *pe = &shmc__g.peers[p];
    if (pe->broken)
        return;
    pe->broken = 1;
    SHMC_ERROR("the mailbox from rank %d holds an invalid record at byte %llu: shared memory "
               "was corrupted; operations with rank %d fail with SHMC_ERR_CORRUPT",
               p, (unsigned long long)c->tail, p);
    /* Let the wait loops re-examine their requests. */
    shmc__g.recheck = 1;
}

/* Acts on one record. Returns 0 if it could not be taken now (out of memory for an
 * unexpected message) and must stay in the ring, 1 otherwise, -1 if it is invalid. */
static int handle(int p, const struct shmc__rec_view *v)
{
    int tag = (int)(uint32_t)v->w1;
    uint32_t ctx = (uint32_t)(v->w1 >> 32);
    struct shmc__request *r;

    switch (v->kind) {
    case SHMC_REC_EAGER:
        if (tag < 0)
            return -1;
        if ((r = shmc__match_posted(p, tag, ctx))) {
            shmc__deliver_eager(r, p, tag, v->payload, v->len);
            return 1;
        }
        return shmc__unexp_add_eager(p, tag, ctx, v->payload, v->len) == SHMC_OK;
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
        if ((r = shmc__match_posted(p, tag, ctx))) {
            shmc__rndv_matched(r, p, tag, &rts, dev);
            return 1;
        }
        return shmc__unexp_add_rts(p, tag, ctx, &rts, dev) == SHMC_OK;
    }
    case SHMC_REC_CTS:
        shmc__rndv_on_cts(p, v->w1, v->payload, v->len);
        return 1;
    case SHMC_REC_DATA:
        shmc__rndv_on_data(p, v->w1, v->payload, v->len);
        return 1;
    case SHMC_REC_FIN:
        shmc__rndv_on_fin(p, v->w1, v->payload, v->len);
        return 1;
    default:
        return -1;
    }
}

static int drain(int p)
{
    struct shmc__peer *pe = &shmc__g.peers[p];
    struct shmc__rec_view v;
    int n = 0;

    if (pe->broken)
        return 0;
    while (n < DRAIN_BUDGET) {
        int rc = shmc__ring_peek(&pe->in, &v);
        if (rc == 0)
            break;
        if (rc > 0)
            rc = handle(p, &v);
        if (rc < 0) {
            peer_broken(p, &pe->in);
            break;
        }
        if (rc == 0)
            break; /* out of memory: leave the record for a later pass */
        shmc__ring_consume(&pe->in, &v);
        n++;
    }
    /* The producer may be waiting for the space we just freed. */
    if (shmc__ring_publish(&pe->in))
        shmc__notify(pe->cb, shmc__g.fenced);
    return n;
}

int shmc__progress(void)
{
    struct shmc__global *g = &shmc__g;
    int made = 0;
    for (int p = 0; p < g->size; p++)
        if (p != g->rank)
            made += drain(p);
    if (g->out_busy_count)
        for (int p = 0; p < g->size; p++)
            if (g->peers[p].out_busy)
                made += push_out(p);
    if (g->cma_active.head)
        made += shmc__rndv_progress_cma();
    if (g->coop_sends.head)
        made += shmc__coop_progress();
    if (g->dev_active.head)
        made += shmc__rndv_progress_dev();
    return made;
}

/* ---- failures ------------------------------------------------------------------------ */

static int all_others_gone(void)
{
    for (int p = 0; p < shmc__g.size; p++)
        if (p != shmc__g.rank && !shmc__g.peers[p].gone && !shmc__g.peers[p].broken)
            return 0;
    /* Not gone while any of them left messages we have not read. */
    for (int p = 0; p < shmc__g.size; p++)
        if (p != shmc__g.rank && !shmc__g.peers[p].broken &&
            !shmc__ring_empty(&shmc__g.peers[p].in))
            return 0;
    return 1;
}

/* Can request r no longer complete? Returns the error to fail it with, or SHMC_OK. */
static int doomed(const struct shmc__request *r)
{
    struct shmc__global *g = &shmc__g;
    int p = r->kind == SHMC_REQ_RECV && r->proto != SHMC_P_POSTED ? r->src : r->peer;

    if (p == SHMC_ANY)
        return all_others_gone() ? SHMC_ERR_PEER_DEAD : SHMC_OK;
    if (p == g->rank)
        return SHMC_OK;
    const struct shmc__peer *pe = &g->peers[p];
    if (pe->broken)
        return SHMC_ERR_CORRUPT;
    if (!pe->gone)
        return SHMC_OK;
    /* Everything the peer wrote before leaving is read before we give up on it: a
     * message for a receive, the FIN or CTS that completes a send, or the count in a
     * copy descriptor that completes one (coop.c). A copy from its device buffer runs to
     * the end: the mapping keeps that memory alive after its owner is gone. */
    if (!shmc__ring_empty(&pe->in) || (r->queue == SHMC_Q_COOP && shmc__coop_all_done(r)) ||
        r->proto == SHMC_P_DEVCOPY)
        return SHMC_OK;
    return SHMC_ERR_PEER_DEAD;
}

static void fail_requests(int abort)
{
    struct shmc__global *g = &shmc__g;
    for (uint32_t i = 0; i < g->nreqs; i++) {
        struct shmc__request *r = g->reqs[i];
        if (r->state != SHMC_RS_ACTIVE)
            continue;
        int err = abort ? SHMC_ERR_ABORTED : doomed(r);
        if (err == SHMC_OK)
            continue;
        if (r->proto == SHMC_P_SELF)
            shmc__unexp_drop_self(r);
        shmc__req_complete(r, err);
    }
}

int shmc__check_job(void)
{
    struct shmc__global *g = &shmc__g;
    struct shmc__arena_hdr *h = g->arena.hdr;
    /* Relaxed: the abort word carries no data; it only says "stop". */
    if (shmc__load_relaxed32(&h->abort)) {
        fail_requests(1);
        return SHMC_ERR_ABORTED;
    }
    /* A4 pairs with R4 (shmc__mark_state, the launcher): states are current. */
    uint32_t ep = shmc__load_acquire32(&h->epoch);
    if (ep == g->epoch_seen && !g->recheck)
        return SHMC_OK;
    g->epoch_seen = ep;
    g->recheck = 0;
    shmc__peers_refresh(0);
    fail_requests(0);
    return 1;
}

/* ---- waiting ------------------------------------------------------------------------- */

struct blk {
    unsigned op;
    int peer;
    int tag;
    uint32_t ctx;
    uint64_t bytes;
};

static void set_blocked(const struct blk *b)
{
    struct shmc__rank_cb *me = shmc__g.me;
    /* Relaxed: diagnostics only, read by hang reports. */
    shmc__store_relaxed32(&me->blk_peer, (uint32_t)b->peer);
    shmc__store_relaxed32(&me->blk_tag, (uint32_t)b->tag);
    shmc__store_relaxed32(&me->blk_ctx, b->ctx);
    shmc__store_relaxed64(&me->blk_bytes, b->bytes);
    shmc__store_relaxed64(&me->blk_since_ns, shmc__now_ns());
    shmc__store_relaxed32(&me->blk_op, b->op);
}

/* The spin-instead-of-yield stage of a wait (wait.h): allowed once per wait, for
 * g->spin_elsewhere_ns from its first use. */
struct spin_far {
    int (*elsewhere)(void *, uint32_t);
    void *arg;
    uint32_t cpu;      /* 1 + our CPU, as last published */
    unsigned polls;    /* since the clock was last read */
    uint64_t deadline; /* 0: not started */
    int spent;
    int polling; /* SHMC_CPU_POLLING is published */
};

static int spin_far(struct spin_far *f)
{
    if (f->spent || !f->elsewhere || !shmc__g.spin_elsewhere_ns)
        return 0;
    if (!f->elsewhere(f->arg, f->cpu))
        goto stop;
    /* The clock every 64 polls: a poll is far cheaper than reading it. */
    if (!f->deadline) {
        f->deadline = shmc__now_ns() + shmc__g.spin_elsewhere_ns;
        f->polling = 1;
        shmc__cpu_publish(shmc__g.me, 1);
    } else if (++f->polls >= 64) {
        f->polls = 0;
        if (shmc__now_ns() >= f->deadline) {
            f->spent = 1;
            goto stop;
        }
    }
    return 1;
stop:
    if (f->polling) {
        f->polling = 0;
        f->cpu = shmc__cpu_publish(shmc__g.me, 0);
    }
    return 0;
}

/* SHMC_TIMEOUT: when every rank still in the job has been blocked in shmcomm that long,
 * the lowest of them says what each waits for and aborts the job; the others then see
 * the abort. Looked at after each sleep slice, since a stuck rank ends up sleeping. */
static void hang_check(void)
{
    struct shmc__global *g = &shmc__g;
    uint64_t t = (uint64_t)g->cfg.hang_timeout_s * 1000000000u;
    if (shmc__hang_reporter(&g->arena, g->size, t, shmc__now_ns()) != g->rank)
        return;
    /* A rank that aborted (our reporter, say) sets the abort word before its state says
     * it left: having read the states, a job being ended is not reported twice. */
    atomic_thread_fence(memory_order_acquire);
    if (shmc__load_relaxed32(&g->arena.hdr->abort))
        return;
    fprintf(stderr,
            "shmcomm: rank %d: no rank has made progress for %u s (SHMC_TIMEOUT); ending the "
            "job\n",
            g->rank, g->cfg.hang_timeout_s);
    shmc__hang_report(&g->arena, g->size, NULL, stderr, "shmcomm: ");
    shmc_abort(124);
}

/* Waits until done(arg) holds, making progress. Returns SHMC_OK, or SHMC_ERR_ABORTED if
 * the job was aborted while waiting (requests have been failed by then). `far` may say
 * when to spin rather than yield (wait.h). */
static int wait_until(int (*done)(void *), void *arg, const struct blk *b, struct spin_far *far)
{
    struct shmc__global *g = &shmc__g;
    unsigned idle = 0;
    int blocked = 0;
    int rc = SHMC_OK;

    /* With peers gone, what we wait for may already be impossible: look once. */
    if (g->ngone)
        g->recheck = 1;

    for (;;) {
        if (done(arg))
            break;
        if (shmc__progress()) {
            idle = 0;
            continue;
        }
        int jc = shmc__check_job();
        if (jc == SHMC_ERR_ABORTED) {
            rc = SHMC_ERR_ABORTED;
            break;
        }
        if (jc)
            continue;
        if (++idle <= g->spin) {
            shmc__cpu_relax();
            continue;
        }
        if (!blocked) {
            set_blocked(b);
            far->cpu = shmc__cpu_publish(g->me, 0);
            blocked = 1;
        }
        if (idle <= g->spin + g->yield) {
            if (spin_far(far)) {
                idle--; /* spinning does not use up the yields */
                shmc__cpu_relax();
                continue;
            }
            sched_yield();
            far->cpu = shmc__cpu_publish(g->me, 0);
            continue;
        }
        uint32_t seen = shmc__sleep_prepare(g->me, g->fenced);
        /* Re-check after announcing the sleep: anything published before a waker could
         * see our flag is found here (wait.h). */
        if (done(arg) || shmc__progress() || shmc__check_job()) {
            shmc__sleep_cancel(g->me);
            idle = 0;
            continue;
        }
        uint64_t t0 = shmc__now_ns();
        shmc__sleep(g->me, seen, SHMC_SLEEP_SLICE_MS);
        /* A full slice with no wake-up: look for peers that died unannounced. */
        if (shmc__now_ns() - t0 >= (uint64_t)SHMC_SLEEP_SLICE_MS * 900000u)
            shmc__peers_refresh(1);
        if (g->cfg.hang_timeout_s)
            hang_check();
        far->cpu = shmc__cpu_publish(g->me, 0);
        idle = g->spin; /* woken: yield once more before sleeping again */
    }
    if (blocked)
        shmc__store_relaxed32(&g->me->blk_op, SHMC_BLK_NONE);
    if (far->polling)
        shmc__cpu_publish(g->me, 0);
    return rc;
}

struct reqset {
    size_t n;
    struct shmc__request *const *reqs;
};

static int reqs_done(void *arg)
{
    struct reqset *s = arg;
    for (size_t i = 0; i < s->n; i++)
        if (s->reqs[i] && s->reqs[i]->state == SHMC_RS_ACTIVE)
            return 0;
    return 1;
}

/* Every peer a point-to-point wait still depends on runs on another CPU, and is on it
 * now rather than waiting in turn (perhaps for a rank that needs our CPU). */
static int reqs_far(void *arg, uint32_t cpu)
{
    const struct reqset *s = arg;
    for (size_t i = 0; i < s->n; i++) {
        const struct shmc__request *r = s->reqs[i];
        if (!r || r->state != SHMC_RS_ACTIVE)
            continue;
        if (r->peer < 0 || r->peer == shmc__g.rank)
            return 0;
        const struct shmc__rank_cb *cb = shmc__g.peers[r->peer].cb;
        if (!shmc__runs_elsewhere(cb, cpu) || !shmc__runs_now(cb))
            return 0;
    }
    return 1;
}

int shmc__wait_requests(size_t n, struct shmc__request *const *reqs)
{
    struct reqset s = {n, reqs};
    struct blk b = {0};
    for (size_t i = 0; i < n; i++) {
        const struct shmc__request *r = reqs[i];
        if (r && r->state == SHMC_RS_ACTIVE) {
            b.op = r->kind;
            b.peer = r->peer;
            b.tag = r->tag;
            b.ctx = r->ctx;
            b.bytes = r->bytes;
            break;
        }
    }
    struct spin_far far = {.elsewhere = reqs_far, .arg = &s};
    return wait_until(reqs_done, &s, &b, &far);
}

int shmc__wait_pred_hint(int (*done)(void *), int (*elsewhere)(void *, uint32_t), void *arg,
                         unsigned op)
{
    struct blk b = {.op = op, .peer = SHMC_ANY, .tag = SHMC_ANY};
    struct spin_far far = {.elsewhere = elsewhere, .arg = arg};
    return wait_until(done, arg, &b, &far);
}

int shmc__wait_pred(int (*done)(void *), void *arg, unsigned op)
{
    return shmc__wait_pred_hint(done, NULL, arg, op);
}
