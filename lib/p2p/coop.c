/*
 * Large single-copy messages copied by both sides at once. A receiver pulling a large
 * message with process_vm_readv is bound by what one core can copy, while the sender's
 * core sits in shmc_send or shmc_wait with nothing to do. For messages of at least
 * SHMC_COOP_MIN the sender names one of its copy descriptors (arena.h) in the RTS; the
 * receiver arms it with its buffer's address, and from then on both claim ranges of the
 * message and copy them: the receiver reading from the sender, the sender writing into
 * the receiver, both through the transport's single copy (transport.h: get and put). Neither side
 * ever waits for the other to start: a sender that is not in the library simply claims nothing and
 * the receiver copies all.
 *
 *   sender                                   receiver
 *   fill entry, RTS {.., COOP | i << 8}  ->  (matches)
 *                                            raddr, total; armed = 1       (R8)
 *   armed?                        (A8)
 *   claim = fetch_add(next)                  claim = fetch_add(next)
 *   writev the claimed range                 readv the claimed range
 *   done += len                   (R9)       done += len                   (R9)
 *   done == total? (A9)                      done == total?                (A9)
 *   the send is complete                     the receive is complete;
 *                                            released = 1                  (R11)
 *   released? (A11): the entry is free
 *
 * R8 pairs with A8: raddr and total are written before the sender sees the entry armed.
 * R9 pairs with A9, both ways: each side's copies are finished before the other sees
 * them counted, so the receiver sees all bytes in its buffer and the sender knows that
 * its buffer is no longer read (the claims' fetch-adds are acq_rel for the same reason).
 * No FIN travels: each side sees the end in the entry itself, which saves the sender a
 * pass through the mailbox before its send completes (build/bench/measure --tests
 * latency at 64 KiB). The send
 * completes before the receiver is done with the entry, so the entry is held until the
 * receiver releases `released` after its last access (R11, A11), or dies.
 * A sender whose writev fails stops helping: it stores the range it could not copy in
 * redo_off/redo_len and releases `quit` (R10); the receiver acquires it (A10) and copies
 * that range itself. A receiver whose readv fails first claims everything not yet
 * claimed, so that the sender claims no more, and waits until the sender's ranges are
 * counted in done (or it quit, or left): only then may the receive return, since the
 * sender writes into the receive buffer. It then releases the entry and sends a FIN
 * with the error, which fails the send.
 *
 * A kept receive (shmc__post_recv_kept: a reduction's input, which the receiver reads
 * right after) of at most kept_max bytes is copied by the receiver alone. The half the
 * sender writes lands in the sender's cache, and the receiver's next pass over the buffer
 * fetches it from there, line by line: in a 2-rank reduce that took longer than the second
 * core saved, while the receiver's own copy leaves the whole input in its cache. Above an
 * eighth of the level-2 cache (the input, the receiver's own data and the result no
 * longer stay there) the two cores' copy won again (coll_bench --coll reduce --algo tree
 * at each size, on an Intel Xeon); 256 KiB where the cache's size is unknown.
 *
 * The receiver arms an entry only once single copy from that sender has worked before
 * (SHMC_SC_PROVEN), so that a kernel refusing it is found on a message it can still
 * stream through the mailbox instead.
 */
#include "p2p/coop.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "base/machine.h"

static struct shmc__xdesc *entry(const struct shmc__p2p *p, int owner, int i)
{
    return shmc__arena_xdesc(p->arena, (unsigned)owner, (unsigned)i);
}

/* Bytes per claim: a few claims per message so that both sides share the work, large
 * enough that a system call's fixed cost stays small beside the copy: an eighth of the
 * message, at least 64 KiB and at most 1 MiB, except that a message of less than 128 KiB
 * is split in two, so that the sender can take one part (build/bench/measure --tests
 * latency,bw from 64 KiB). */
#define COOP_CLAIM_MIN (64u << 10)

/* What a kept receive copies alone where the level-2 cache's size is unknown (above). */
#define KEPT_MAX_UNKNOWN (256u << 10)

static uint64_t claim_bytes(uint64_t total)
{
    uint64_t floor = total / 2 < COOP_CLAIM_MIN ? total / 2 : COOP_CLAIM_MIN;
    uint64_t c = total / 8;
    c = c < floor ? floor : c > (1u << 20) ? (1u << 20) : c;
    return (c + 4095) & ~(uint64_t)4095;
}

void shmc__coop_init(struct shmc__coop *c)
{
    shmc__list_init(&c->sends);
    c->free = ~0ull; /* SHMC_XDESC_COUNT == 64 entries */
    c->held = 0;
    c->offers = 0;
    c->accepted = 0;
    size_t l2 = shmc__cache_l2();
    c->kept_max = l2 ? l2 / 8 : KEPT_MAX_UNKNOWN;
}

/* Held entries whose receiver is done with them, or died, are free again. */
static void reclaim(struct shmc__p2p *p)
{
    struct shmc__coop *co = &p->coop;
    for (uint64_t held = co->held; held; held &= held - 1) {
        int i = __builtin_ctzll(held);
        /* A11 pairs with R11 (shmc__coop_release): the receiver no longer touches it. */
        if (shmc__load_acquire32(&entry(p, p->rank, i)->released) ||
            p->peers[co->peer[i]].ep.gone) {
            co->held &= ~(1ull << i);
            co->free |= 1ull << i;
        }
    }
}

uint32_t shmc__coop_offer(struct shmc__p2p *p, struct shmc__request *s)
{
    struct shmc__coop *co = &p->coop;
    if (s->bytes < p->coop_min || !p->peers[s->peer].ep.put_ok || !p->single_copy)
        return 0;
    if (!co->free)
        reclaim(p);
    if (!co->free)
        return 0;
    int i = __builtin_ctzll(co->free);
    co->free &= ~(1ull << i);
    struct shmc__xdesc *d = entry(p, p->rank, i);
    /* Relaxed and plain: the RTS naming this entry is published with release (R1) and the
     * receiver reads the entry only after acquiring that record (A1). */
    shmc__store_relaxed64(&d->next, 0);
    shmc__store_relaxed64(&d->done, 0);
    shmc__store_relaxed32(&d->armed, 0);
    shmc__store_relaxed32(&d->quit, 0);
    shmc__store_relaxed32(&d->released, 0);
    d->total = s->bytes;
    d->redo_len = 0;
    co->peer[i] = s->peer;
    co->offers++;
    s->xdesc = i;
    shmc__req_enqueue(&co->sends, s, SHMC_Q_COOP);
    return SHMC_RTS_COOP | (uint32_t)i << 8;
}

/* The send leaves the list. An entry the receiver armed stays held until the receiver
 * releases it (a send may fail while the receiver is still at it: a broken mailbox, say);
 * one it never armed is free at once (a FIN or CTS completed the send). */
void shmc__coop_dequeue(struct shmc__p2p *p, struct shmc__request *s)
{
    struct shmc__coop *co = &p->coop;
    struct shmc__xdesc *d = entry(p, p->rank, s->xdesc);
    shmc__req_unlink(s);
    /* A11 pairs with R11 (shmc__coop_release). Relaxed armed: it publishes nothing read
     * here. */
    if (shmc__load_relaxed32(&d->armed) && !shmc__load_acquire32(&d->released))
        co->held |= 1ull << s->xdesc;
    else
        co->free |= 1ull << s->xdesc;
    s->xdesc = -1;
}

int shmc__coop_counted(const struct shmc__p2p *p, const struct shmc__request *r)
{
    if (r->xdesc < 0)
        return 0;
    if (r->queue == SHMC_Q_COOP) { /* our send: the entry is ours */
        const struct shmc__xdesc *d = entry(p, p->rank, r->xdesc);
        /* A8 pairs with R8: total is the receiver's. A9 with R9: the count is final. */
        return shmc__load_acquire32(&d->armed) && shmc__load_acquire64(&d->done) == d->total;
    }
    if (r->kind != SHMC_REQ_RECV || r->queue != SHMC_Q_CMA)
        return 0;
    /* Our receive: the entry is the sender's, in the arena, which outlives its owner. A9
     * pairs with R9: every range is in our buffer. */
    return shmc__load_acquire64(&entry(p, r->src, r->xdesc)->done) == r->xfer_bytes;
}

/* Every byte is in the receive buffer and the receiver reads ours no more. The entry is
 * held even if the receiver released it already: it is taken back when the free ones run
 * out, the same way every time. */
static void send_done(struct shmc__p2p *p, struct shmc__request *s)
{
    shmc__req_unlink(s);
    p->coop.held |= 1ull << s->xdesc;
    s->xdesc = -1;
    shmc__req_complete(&p->reqs, s, SHMC_OK);
}

/* The sender's part: one claim of each armed entry, and the end of each transfer. */
int shmc__coop_progress(struct shmc__p2p *p)
{
    int made = 0;
    struct shmc__link *l, *tmp;
    shmc__list_each(&p->coop.sends, l, tmp)
    {
        struct shmc__request *s = shmc__link_entry(l, struct shmc__request, link);
        struct shmc__ep *ep = &p->peers[s->peer].ep;
        struct shmc__xdesc *d = entry(p, p->rank, s->xdesc);
        /* A8 pairs with R8 (arm): raddr and total are valid. */
        if (!shmc__load_acquire32(&d->armed))
            continue;
        /* Read once, checked, then used: what the receiver armed, unless scribbled. */
        uint64_t total = d->total, raddr = d->raddr;
        if (total > s->bytes || d->check != shmc__xdesc_check(p->arena->nonce, raddr, total)) {
            char what[96];
            snprintf(what, sizeof what, "rank %d's copy descriptor %d fails its check", s->peer,
                     s->xdesc);
            shmc__peer_broken(p, s->peer, what);
            continue; /* the send fails as corrupt (progress.c) */
        }
        if (shmc__load_relaxed32(&d->quit) || shmc__load_relaxed64(&d->next) >= total) {
            /* A9 pairs with R9 (recv_range): the receiver has read all it claimed. */
            if (shmc__load_acquire64(&d->done) == total) {
                send_done(p, s);
                made++;
            }
            continue;
        }
        uint64_t c = claim_bytes(total), off = shmc__fetch_add64(&d->next, c);
        if (off >= total)
            continue;
        uint64_t len = total - off < c ? total - off : c;
        int err;
        uint64_t got = shmc__ep_put(ep, (const uint8_t *)s->buf + off, raddr + off, len, &err);
        if (got < len) {
            SHMC_INFO("writing into rank %d refused by the kernel (%s); it copies alone", s->peer,
                      strerror(err));
            ep->put_ok = 0;
            d->redo_off = off + got;
            d->redo_len = len - got;
        }
        /* R9 pairs with A9 (shmc__coop_recv_step): our writes are done before counted;
         * and, acquiring, the receiver's reads of our buffer are done if this ends it. */
        uint64_t was = shmc__fetch_add64(&d->done, got);
        if (got < len)
            /* R10 pairs with A10: redo_off/len are set before quit. */
            shmc__store_release32(&d->quit, 1);
        shmc__ep_notify(ep);
        made++;
        if (was + got == total)
            send_done(p, s);
    }
    return made;
}

int shmc__coop_sending_to(const struct shmc__p2p *p, int peer)
{
    const struct shmc__link *l;
    for (l = p->coop.sends.next; l != &p->coop.sends; l = l->next)
        if (shmc__link_entry(l, const struct shmc__request, link)->peer == peer)
            return 1;
    return 0;
}

int shmc__coop_usable(const struct shmc__p2p *p, int src, uint32_t rts_flags)
{
    return (rts_flags & SHMC_RTS_COOP) && ((rts_flags >> 8) & 0xff) < SHMC_XDESC_COUNT &&
           p->peers[src].ep.sc == SHMC_SC_PROVEN;
}

static void arm(struct shmc__p2p *p, struct shmc__request *r, struct shmc__xdesc *d)
{
    d->raddr = (uint64_t)(uintptr_t)r->buf;
    d->total = r->xfer_bytes;
    d->check = shmc__xdesc_check(p->arena->nonce, d->raddr, d->total);
    /* R8 pairs with A8 (shmc__coop_progress): raddr, total and check are set. */
    shmc__store_release32(&d->armed, 1);
    shmc__ep_notify(&p->peers[r->src].ep);
}

void shmc__coop_release(struct shmc__p2p *p, struct shmc__request *r)
{
    /* R11 pairs with A11 (reclaim, shmc__coop_dequeue): our last access is behind us. */
    shmc__store_release32(&entry(p, r->src, r->xdesc)->released, 1);
    r->xdesc = -1;
}

/* Ends our claims on r's message: whatever nobody claimed yet is ours, and will not be
 * copied. */
static void close_claims(struct shmc__request *r, struct shmc__xdesc *d)
{
    uint64_t rest = shmc__fetch_add64(&d->next, r->xfer_bytes);
    if (rest < r->xfer_bytes)
        r->coop_mine += r->xfer_bytes - rest;
}

void shmc__coop_abandon(struct shmc__p2p *p, struct shmc__request *r)
{
    if (r->coop_err)
        return;
    close_claims(r, entry(p, r->src, r->xdesc));
    r->coop_err = ECANCELED;
}

/* The receiver's copy of one range, counted in done. Returns 2 if that was the last of
 * the message (and releases the entry), 1 if not, or -1 with *err. */
static int recv_range(struct shmc__p2p *p, struct shmc__request *r, struct shmc__xdesc *d,
                      uint64_t off, uint64_t len, int *err)
{
    if (shmc__ep_get(&p->peers[r->src].ep, (uint8_t *)r->buf + off, r->remote_addr + off, len,
                     err) < len) {
        close_claims(r, d);
        r->coop_err = *err ? *err : EFAULT;
        *err = 0;
        return 1;
    }
    r->coop_counted += len;
    /* R9 pairs with A9 (shmc__coop_progress): our reads of the sender's buffer are done;
     * and, acquiring, the sender's writes are visible if this ends the message. */
    if (shmc__fetch_add64(&d->done, len) + len < r->xfer_bytes)
        return 1;
    shmc__coop_release(p, r);
    /* Our range ended the message: the sender, whose send ends when it sees that in the
     * descriptor, may be asleep waiting for it (it wakes us after each of its ranges; we
     * must wake it after the last of ours, or it sleeps out its slice). */
    shmc__ep_notify(&p->peers[r->src].ep);
    return 2;
}

/* After a failed copy of ours: are the sender's writes into our buffer over? Every range
 * it claimed (all that we did not) is counted in done, or it stopped (quit, or left). */
static int sender_finished(const struct shmc__p2p *p, const struct shmc__request *r,
                           const struct shmc__xdesc *d)
{
    /* A9 pairs with R9: its writes are done once counted. A10 pairs with R10. */
    uint64_t by_sender = shmc__load_acquire64(&d->done) - r->coop_counted;
    return by_sender >= r->xfer_bytes - r->coop_mine || shmc__load_acquire32(&d->quit) ||
           p->peers[r->src].ep.gone;
}

int shmc__coop_recv_step(struct shmc__p2p *p, struct shmc__request *r, int *err)
{
    struct shmc__xdesc *d = entry(p, r->src, r->xdesc);
    uint64_t total = r->xfer_bytes;
    *err = 0;
    /* Armed just before our first claim, not when the RTS matched: a sender that sees
     * the entry armed before we claim takes the first part, and which side copies which
     * part then changes from message to message, moving the receive buffer's lines
     * between the two caches (build/bench/measure --tests latency at 64 KiB). */
    if (r->coop_err) {
        if (!sender_finished(p, r, d))
            return 0;
        *err = r->coop_err;
        return -1;
    }
    if (!shmc__load_relaxed32(&d->armed))
        arm(p, r, d);
    uint64_t c = claim_bytes(total), off = shmc__load_relaxed64(&d->next);
    /* A message split in two: the receiver claims first, and the sender starts only once
     * it sees the entry armed, so the receiver's part is the larger (9/16), and both end
     * closer together (build/bench/measure --tests latency at 64 KiB). */
    if (off == 0 && total < 2 * COOP_CLAIM_MIN)
        c = (total * 9 / 16 + 4095) & ~(uint64_t)4095;
    if (off < total && (off = shmc__fetch_add64(&d->next, c)) < total) {
        uint64_t len = total - off < c ? total - off : c;
        r->coop_mine += len;
        return recv_range(p, r, d, off, len, err);
    }
    /* Everything is claimed: wait for the sender's ranges. A9 pairs with R9. */
    if (shmc__load_acquire64(&d->done) == total) {
        shmc__coop_release(p, r);
        return 2;
    }
    /* A10 pairs with R10: the range the sender left is in redo_off/len. */
    if (shmc__load_acquire32(&d->quit) && d->redo_len) {
        uint64_t len = d->redo_len, off2 = d->redo_off;
        d->redo_len = 0; /* ours now: the sender has stopped touching the entry */
        /* A range outside the message would have us copy past our buffer. */
        if (off2 > total || len > total - off2) {
            char what[96];
            snprintf(what, sizeof what, "rank %d's copy descriptor names bytes outside the message",
                     r->src);
            shmc__peer_broken(p, r->src, what);
            return 0; /* the receive fails as corrupt (progress.c) */
        }
        r->coop_mine += len;
        return recv_range(p, r, d, off2, len, err);
    }
    return 0;
}
