/*
 * Rendezvous for messages above the eager limit.
 *
 *   sender                              receiver
 *   RTS {bytes, addr, cookie, flags} -> (matches a receive)
 *                                        single copy: the transport's get from addr,
 *                                        in pieces, then
 *                                   <-  FIN {cookie}                 send completes
 *                                        otherwise:
 *                                   <-  CTS {recv cookie, bytes}
 *   DATA {offset, bytes...} ...      ->  copied into the receive buffer
 *   (send completes when the last DATA record is in the ring)
 *
 * The sender offers single copy (flag in the RTS) when SHMC_SINGLE_COPY allows it and
 * the message is at least SHMC_SINGLE_COPY_MIN bytes; the receiver uses it unless the
 * kernel has refused it before for that peer (EPERM under Yama ptrace_scope, seccomp,
 * ENOSYS), in which case it falls back to CTS for this and later messages. Only the
 * receiver ever reads another process's memory, and only the bytes the sender offered.
 *
 * Device buffers (device/device.h). A sender's device buffer always goes by rendezvous, with
 * SHMC_RTS_DEVICE and the buffer's IPC description after the RTS; the receiver maps it
 * (once per allocation: device/memkind.c keeps it), starts one copy on its own stream into its
 * buffer, whichever kind that is, polls it from progress, and sends FIN when it is done.
 * process_vm_readv cannot write device memory, so a receiver's device buffer takes single
 * copy through a host bounce buffer of one piece (4 MiB, made at the first need): each
 * piece is read into it and copied to the device before the next. Below the eager limit,
 * or without single copy, the message arrives eagerly or as DATA records, which the
 * backend copies in.
 */
#include "p2p/rndv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/copy.h"
#include "base/log.h"
#include "base/memcheck.h"
#include "p2p/coop.h"
#include "p2p/outq.h"

#define CMA_PIECE (4u << 20) /* bytes per single-copy call, so progress stays responsive */
/* The same while this rank is itself sending to the peer it reads from (an exchange: both
 * read each other's messages at once). build/bench/measure --tests bibw on an Intel Xeon
 * (family 6 model 207), pieces of 128 KiB to 4 MiB alternated: 512 KiB moved 1.5-1.9 times
 * the bytes of 4 MiB pieces at 4 and 16 MiB; a lone message (a broadcast's, 4-16 MiB)
 * went a tenth slower in the smaller pieces, so they are for exchanges only. */
#define CMA_PIECE_EXCHANGE (512u << 10)

/* Where single copy into device memory lands first (one piece); NULL until needed. */
static uint8_t *get_bounce(struct shmc__p2p *p)
{
    if (!p->bounce)
        p->bounce = malloc(CMA_PIECE);
    return p->bounce;
}

void shmc__rndv_release(struct shmc__p2p *p)
{
    free(p->bounce);
    p->bounce = NULL;
}

static void complete(struct shmc__p2p *p, struct shmc__request *r, int err)
{
    shmc__req_complete(&p->reqs, r, err);
}

/* The RTS of a device buffer: no single copy, the buffer's IPC description instead. If
 * the backend cannot describe it (memory made without IPC support), a plain RTS: the
 * receiver then asks for DATA records, which the backend copies into the mailbox. */
static int put_rts_dev(struct shmc__ep *ep, struct shmc__request *s)
{
    struct shmc__rts rts = {
        .bytes = s->bytes, .cookie = shmc__req_cookie(s), .flags = SHMC_RTS_DEVICE};
    struct shmc__ipc ipc;
    uint32_t len = (uint32_t)(sizeof rts + sizeof ipc);
    if (shmc__dev_export(s->buf, &ipc) != SHMC_OK) {
        SHMC_INFO("sending device buffer %p through the mailbox instead", s->buf);
        rts.flags = 0;
        len = (uint32_t)sizeof rts;
    }
    uint8_t *dst = shmc__ring_reserve(&ep->out, len);
    if (!dst)
        return 0;
    if (s->queue == SHMC_Q_MATCH)
        shmc__req_unlink(s);
    memcpy(dst, &rts, sizeof rts);
    if (len > sizeof rts)
        memcpy(dst + sizeof rts, &ipc, sizeof ipc);
    shmc__ring_commit(&ep->out, SHMC_REC_RTS, (uint32_t)s->tag | (uint64_t)s->ctx << 32, len);
    shmc__ep_notify(ep);
    s->proto = SHMC_P_RTS;
    return 1;
}

int shmc__rndv_put_rts(struct shmc__p2p *p, int peer, struct shmc__request *s)
{
    struct shmc__ep *ep = &p->peers[peer].ep;
    if (s->dev)
        return put_rts_dev(ep, s);
    struct shmc__rts rts = {
        .bytes = s->bytes,
        .addr = (uint64_t)(uintptr_t)s->buf,
        .cookie = shmc__req_cookie(s),
        .flags = shmc__p2p_offers_single_copy(p, peer, s->bytes) ? SHMC_RTS_SINGLE_COPY : 0,
    };
    uint8_t *dst = shmc__ring_reserve(&ep->out, sizeof rts);
    if (!dst)
        return 0;
    /* A queued send (always the queue's head: RTSs go out in order) leaves the queue
     * before it may join the copy descriptors' list, because a request links into one
     * queue at a time: joining first would cut off the sends queued behind it. */
    if (s->queue == SHMC_Q_MATCH)
        shmc__req_unlink(s);
    if (rts.flags & SHMC_RTS_SINGLE_COPY)
        rts.flags |= shmc__coop_offer(p, s);
    memcpy(dst, &rts, sizeof rts);
    shmc__ring_commit(&ep->out, SHMC_REC_RTS, (uint32_t)s->tag | (uint64_t)s->ctx << 32,
                      sizeof rts);
    shmc__ep_notify(ep);
    s->proto = SHMC_P_RTS;
    return 1;
}

int shmc__rndv_start_send(struct shmc__p2p *p, struct shmc__request *s)
{
    s->proto = SHMC_P_RTS;
    if (shmc__list_empty(&p->peers[s->peer].matchq) && shmc__rndv_put_rts(p, s->peer, s))
        return SHMC_OK;
    shmc__outq_send(p, s->peer, s);
    return SHMC_OK;
}

static void ask_for_data(struct shmc__p2p *p, struct shmc__request *r)
{
    r->proto = SHMC_P_DATA;
    r->xfer_done = 0;
    int rc = shmc__outq_ctrl(p, r->src, r, SHMC_REC_CTS, r->peer_cookie, shmc__req_cookie(r),
                             r->xfer_bytes);
    if (rc != SHMC_OK)
        complete(p, r, rc);
}

static void finish_recv(struct shmc__p2p *p, struct shmc__request *r)
{
    int rc = shmc__outq_ctrl(p, r->src, r, SHMC_REC_FIN, r->peer_cookie, 0, 0);
    complete(p, r, rc);
}

/* The receive failed with err: tell the sender (its send fails too) and complete. */
static void fail_recv(struct shmc__p2p *p, struct shmc__request *r, int err)
{
    shmc__outq_ctrl(p, r->src, r, SHMC_REC_FIN, r->peer_cookie, (uint64_t)(-err), 0);
    complete(p, r, err);
}

/* Starts the copy out of the sender's device buffer (described by ipc). If it cannot be
 * mapped here (GPUs without peer access, no device in this process), the sender streams
 * it through the mailbox instead. */
static void dev_start(struct shmc__p2p *p, struct shmc__request *r, const struct shmc__ipc *ipc)
{
    const void *from;
    if (ipc->size < ipc->offset || ipc->size - ipc->offset < r->msg_bytes) {
        SHMC_ERROR("rank %d described a device message beyond its allocation", r->src);
        fail_recv(p, r, SHMC_ERR_CORRUPT);
        return;
    }
    if (shmc__dev_import(r->src, ipc, &from) != SHMC_OK) {
        SHMC_INFO("cannot map rank %d's device buffer; it comes through the mailbox", r->src);
        ask_for_data(p, r);
        return;
    }
    int rc = shmc__dev_copy_start(r->buf, from, r->xfer_bytes, &r->dev_token);
    if (rc != SHMC_OK) {
        fail_recv(p, r, rc);
        return;
    }
    r->proto = SHMC_P_DEVCOPY;
    shmc__req_enqueue(&p->dev_active, r, SHMC_Q_DEV);
}

int shmc__rndv_progress_dev(struct shmc__p2p *p)
{
    int made = 0;
    struct shmc__link *l, *tmp;
    shmc__list_each(&p->dev_active, l, tmp)
    {
        struct shmc__request *r = shmc__link_entry(l, struct shmc__request, link);
        int st = shmc__dev_copy_poll(r->dev_token);
        if (st == 0)
            continue;
        shmc__req_unlink(r);
        r->dev_token = -1;
        if (st < 0)
            fail_recv(p, r, st);
        else
            finish_recv(p, r);
        made++;
    }
    return made;
}

void shmc__rndv_abandon_dev(struct shmc__request *r)
{
    /* The copy still writes into the buffer: it ends before the caller has it back. */
    while (shmc__dev_copy_poll(r->dev_token) == 0)
        shmc__cpu_relax();
    r->dev_token = -1;
    shmc__req_unlink(r);
}

void shmc__rndv_matched(struct shmc__p2p *p, struct shmc__request *r, int src, int tag,
                        const struct shmc__rts *rts, const struct shmc__ipc *ipc)
{
    const struct shmc__ep *ep = &p->peers[src].ep;
    r->src = src;
    r->msg_tag = tag;
    r->msg_bytes = (size_t)rts->bytes;
    r->peer_cookie = rts->cookie;
    r->remote_addr = rts->addr;
    r->xfer_bytes = rts->bytes < r->bytes ? (size_t)rts->bytes : r->bytes;
    r->xfer_done = 0;
    if (rts->bytes > r->bytes)
        r->err = SHMC_ERR_TRUNCATE;

    if (r->xfer_bytes == 0) {
        finish_recv(p, r);
    } else if (ipc) {
        dev_start(p, r, ipc);
    } else if ((rts->flags & SHMC_RTS_SINGLE_COPY) && p->single_copy && ep->sc != SHMC_SC_REFUSED &&
               (!r->dev || get_bounce(p))) {
        r->proto = SHMC_P_CMA;
        /* Both sides copy what the sender offered (from p->coop_min, coop.h): a large message,
         * one of several in flight (each side then takes whole messages), or a lone one
         * split in halves while the sender's core is idle. Not when we are sending to
         * it too (an exchange, as in a pairwise step or osu_bibw), at any size: its core
         * then copies our message, and sharing each message between two busy cores
         * only adds claims and cache traffic (osu_bibw under bench/osu_compare.sh). Nor
         * for a kept receive that fits the cache (coop.c). */
        if (!r->dev && shmc__coop_usable(p, src, rts->flags) && !shmc__coop_sending_to(p, src) &&
            !(r->kept && r->xfer_bytes <= p->coop.kept_max)) {
            r->xdesc = (int)((rts->flags >> 8) & 0xff);
            p->coop.accepted++;
        }
        shmc__req_enqueue(&p->cma_active, r, SHMC_Q_CMA);
    } else {
        ask_for_data(p, r);
    }
}

/* A single-copy read that cannot be retried or switched to the mailbox: fail the
 * receive, and tell the sender we are done with its buffer either way. */
static int read_failed(struct shmc__p2p *p, struct shmc__request *r, int e)
{
    if (r->xdesc >= 0)
        shmc__coop_release(p, r);
    if (e == ECANCELED) { /* given up (shmc__rndv_abandon) */
        fail_recv(p, r, r->comm && r->comm->quit ? r->comm->quit : SHMC_ERR_PEER_DEAD);
        return 1;
    }
    if (e == ESRCH) {
        complete(p, r, SHMC_ERR_PEER_DEAD);
        return 1;
    }
    SHMC_ERROR("reading from rank %d failed: %s (is its send buffer, or the receive buffer, "
               "valid?)",
               r->src, strerror(e));
    fail_recv(p, r, SHMC_ERR_ARG);
    return 1;
}

/* One claim of a transfer both sides copy (coop.c). Returns 1 if anything happened.
 * The end needs no FIN: the sender sees it in the copy descriptor. */
static int coop_step(struct shmc__p2p *p, struct shmc__request *r)
{
    int e, st = shmc__coop_recv_step(p, r, &e);
    if (st == 2) {
        shmc__mark_defined(r->buf, r->xfer_bytes); /* the sender wrote part (memcheck.h) */
        complete(p, r, SHMC_OK);                   /* which takes it off cma_active */
        return 1;
    }
    return st >= 0 ? st : read_failed(p, r, e);
}

/* One piece of one single-copy transfer. Returns 1 if bytes moved. */
static int cma_step(struct shmc__p2p *p, struct shmc__request *r)
{
    if (r->xdesc >= 0)
        return coop_step(p, r);
    struct shmc__ep *ep = &p->peers[r->src].ep;
    size_t left = r->xfer_bytes - r->xfer_done;
    size_t piece = left > CMA_PIECE_EXCHANGE && !r->dev && shmc__coop_sending_to(p, r->src)
                       ? CMA_PIECE_EXCHANGE
                       : CMA_PIECE;
    size_t n = left < piece ? left : piece;
    uint8_t *to = (uint8_t *)r->buf + r->xfer_done;
    int e;
    uint64_t got = shmc__ep_get(ep, r->dev ? p->bounce : to, r->remote_addr + r->xfer_done, n, &e);
    if (got > 0) {
        int rc = r->dev ? shmc__dev_copy(to, p->bounce, (size_t)got) : SHMC_OK;
        if (rc != SHMC_OK) {
            fail_recv(p, r, rc);
            return 1;
        }
        r->xfer_done += (size_t)got;
        ep->sc = SHMC_SC_PROVEN; /* later messages may be copied by both (coop.c) */
        if (r->xfer_done == r->xfer_bytes) {
            shmc__req_unlink(r);
            finish_recv(p, r);
        }
        return 1; /* a shortfall's error, if it lasts, is met on the next step */
    }
    switch (e ? e : EFAULT) {
    case ENOMEM:
        return 0; /* try again on the next pass */
    case EPERM:
    case EACCES:
    case ENOSYS:
        SHMC_INFO("single copy from rank %d refused by the kernel (%s); using the mailbox", r->src,
                  strerror(e));
        ep->sc = SHMC_SC_REFUSED;
        shmc__req_unlink(r);
        ask_for_data(p, r);
        return 1;
    default:
        return read_failed(p, r, e ? e : EFAULT);
    }
}

void shmc__rndv_abandon(struct shmc__p2p *p, struct shmc__request *r, int err)
{
    if (r->kind != SHMC_REQ_RECV || r->queue != SHMC_Q_CMA)
        return;
    if (r->xdesc >= 0)
        shmc__coop_abandon(p, r); /* the sender may be writing into our buffer */
    else
        fail_recv(p, r, err); /* we only read: stop now, the FIN frees the sender */
}

int shmc__rndv_progress_cma(struct shmc__p2p *p)
{
    int made = 0;
    struct shmc__link *l, *tmp;
    shmc__list_each(&p->cma_active, l, tmp) made +=
        cma_step(p, shmc__link_entry(l, struct shmc__request, link));
    return made;
}

int shmc__rndv_push_streams(struct shmc__p2p *p, int peer)
{
    struct shmc__peer *pe = &p->peers[peer];
    struct shmc__request *s;
    int made = 0;

    while ((s = shmc__req_first(&pe->streams))) {
        while (s->xfer_done < s->xfer_bytes) {
            size_t left = s->xfer_bytes - s->xfer_done;
            uint32_t n = (uint32_t)(left < p->chunk ? left : p->chunk);
            uint8_t *dst = shmc__ring_reserve(&pe->ep.out, n + 8);
            if (!dst)
                goto out;
            uint64_t off = s->xfer_done;
            memcpy(dst, &off, sizeof off);
            if (!s->dev)
                shmc__copy(dst + 8, (const uint8_t *)s->buf + off, n);
            else if (shmc__dev_copy(dst + 8, (const uint8_t *)s->buf + off, n) != SHMC_OK)
                s->err = SHMC_ERR_CUDA; /* the record is reserved: it goes, the send fails */
            shmc__ring_commit(&pe->ep.out, SHMC_REC_DATA, s->peer_cookie, n + 8);
            s->xfer_done += n;
            made++;
        }
        complete(p, s, s->err); /* which takes it off the stream queue */
    }
out:
    if (made)
        shmc__ep_notify(&pe->ep);
    return made;
}

/* Said once for each run of records naming one unknown request: a stream's records for a
 * receive that ended (failed, or its memory overwritten) come by the dozen, and a
 * message each would bury whatever the program says next. (A new run each message, as a
 * program that goes on after such failures makes, is bounded as every repeated error is:
 * base/log.c.) */
static void protocol_error(struct shmc__p2p *p, int peer, const char *what, uint64_t cookie)
{
    /* While finalizing, records for receives we cancelled are expected. */
    if (p->phase == SHMC_P2P_FINALIZING || p->peers[peer].unknown_cookie == cookie + 1)
        return;
    p->peers[peer].unknown_cookie = cookie + 1;
    SHMC_ERROR("rank %d sent a %s record for unknown request %#llx; ignored (and any more of "
               "its records for that request)",
               peer, what, (unsigned long long)cookie);
}

void shmc__rndv_on_cts(struct shmc__p2p *p, int peer, uint64_t w1, const uint8_t *payload,
                       uint32_t len)
{
    struct shmc__cts cts;
    struct shmc__request *s = shmc__req_lookup(&p->reqs, w1, SHMC_REQ_SEND);
    if (!s || s->proto != SHMC_P_RTS || s->peer != peer || len != sizeof cts) {
        protocol_error(p, peer, "CTS", w1);
        return;
    }
    memcpy(&cts, payload, sizeof cts);
    if (cts.bytes > s->bytes) {
        protocol_error(p, peer, "CTS (size)", w1);
        return;
    }
    if (s->queue == SHMC_Q_COOP) /* the receiver streams instead: the entry is ours again */
        shmc__coop_dequeue(p, s);
    s->peer_cookie = cts.recv_cookie;
    s->xfer_bytes = (size_t)cts.bytes;
    s->xfer_done = 0;
    s->proto = SHMC_P_STREAM;
    shmc__req_enqueue(&p->peers[peer].streams, s, SHMC_Q_STREAM);
    shmc__outq_busy(p, peer);
}

void shmc__rndv_on_data(struct shmc__p2p *p, int peer, uint64_t w1, const uint8_t *payload,
                        uint32_t len)
{
    uint64_t off;
    struct shmc__request *r = shmc__req_lookup(&p->reqs, w1, SHMC_REQ_RECV);
    if (!r || r->proto != SHMC_P_DATA || r->src != peer || len < sizeof off) {
        protocol_error(p, peer, "DATA", w1);
        return;
    }
    memcpy(&off, payload, sizeof off);
    size_t n = len - sizeof off;
    if (off != r->xfer_done || n > r->xfer_bytes - r->xfer_done) {
        SHMC_ERROR("rank %d sent data out of order or beyond the message; receive failed", peer);
        complete(p, r, SHMC_ERR_CORRUPT);
        return;
    }
    int rc = shmc__copy_kind((uint8_t *)r->buf + off, payload + sizeof off, n, r->dev);
    if (rc != SHMC_OK) {
        complete(p, r, rc); /* later DATA records for it are then ignored */
        return;
    }
    r->xfer_done += n;
    if (r->xfer_done == r->xfer_bytes)
        complete(p, r, SHMC_OK);
}

void shmc__rndv_on_fin(struct shmc__p2p *p, int peer, uint64_t w1, const uint8_t *payload,
                       uint32_t len)
{
    struct shmc__request *s = shmc__req_lookup(&p->reqs, w1, SHMC_REQ_SEND);
    if (!s || s->proto != SHMC_P_RTS || s->peer != peer) {
        protocol_error(p, peer, "FIN", w1);
        return;
    }
    /* The first word is 0, or minus the error with which the receiver gave up (its
     * copy failed): the message was not delivered, so the send fails too. Read from the
     * ring: anything but a known error code reads as SHMC_ERR_ARG. */
    uint64_t a = 0;
    if (len >= sizeof a)
        memcpy(&a, payload, sizeof a);
    int err = SHMC_OK;
    if (a) {
        int64_t e = -(int64_t)a;
        err = e < 0 && e >= SHMC_ERR_LIMIT ? (int)e : SHMC_ERR_ARG;
    }
    /* A receiver that took single copy without the descriptor we offered: ours again. */
    if (s->queue == SHMC_Q_COOP)
        shmc__coop_dequeue(p, s);
    complete(p, s, err);
}
