/*
 * Large single-copy messages copied by both sides at once. A receiver pulling a large
 * message with process_vm_readv is bound by what one core can copy, while the sender's
 * core sits in shmc_send or shmc_wait with nothing to do. For messages of at least
 * SHMC_COOP_MIN the sender names one of its copy descriptors (arena.h) in the RTS; the
 * receiver arms it with its buffer's address, and from then on both claim ranges of the
 * message and copy them: the receiver reading from the sender, the sender writing into
 * the receiver (process_vm_writev). Neither side ever waits for the other to start: a
 * sender that is not in the library simply claims nothing and the receiver copies all.
 *
 *   sender                                   receiver
 *   fill entry, RTS {.., COOP | i << 8}  ->  (matches)
 *                                            raddr, total; armed = 1       (R8)
 *   armed?                        (A8)
 *   claim = fetch_add(next)                  claim = fetch_add(next)
 *   writev the claimed range                 readv the claimed range
 *   done += len                   (R9)       done += len
 *                                            done == total?                (A9)
 *                                        <-  FIN (the sender's buffer is free again)
 *
 * R8 pairs with A8: raddr and total are written before the sender sees the entry armed.
 * R9 pairs with A9: the sender's writes into the receive buffer are finished before the
 * receiver sees them counted (the claims' fetch-adds are acq_rel for the same reason).
 * A sender whose writev fails stops helping: it stores the range it could not copy in
 * redo_off/redo_len and releases `quit` (R10); the receiver acquires it (A10) and copies
 * that range itself. The entry is the sender's again when the FIN arrives or the send
 * fails; the receiver touches it only before it sends the FIN.
 *
 * The receiver arms an entry only once single copy from that sender has worked before
 * (peer cma == 2), so that a kernel refusing process_vm_readv is found on a message it
 * can still stream through the mailbox instead.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "internal.h"
#include "log.h"
#include "wait.h"

static struct shmc__xdesc *entry(int owner, int i)
{
    return shmc__arena_xdesc(&shmc__g.arena, (unsigned)owner, (unsigned)i);
}

/* Bytes per claim: a few claims per message so that both sides share the work, large
 * enough that a system call's fixed cost stays small beside the copy: an eighth of the
 * message, at least 64 KiB and at most 1 MiB, except that a message of less than 128 KiB
 * is split in two, so that the sender can take one part (docs/performance.md). */
#define COOP_CLAIM_MIN (64u << 10)

static uint64_t claim_bytes(uint64_t total)
{
    uint64_t floor = total / 2 < COOP_CLAIM_MIN ? total / 2 : COOP_CLAIM_MIN;
    uint64_t c = total / 8;
    c = c < floor ? floor : c > (1u << 20) ? (1u << 20) : c;
    return (c + 4095) & ~(uint64_t)4095;
}

static pid_t pid_of(int p)
{
    /* Relaxed: the pid was published before the peer's first record (A1 covers it). */
    return (pid_t)shmc__load_relaxed32(&shmc__g.peers[p].cb->pid);
}

uint64_t shmc__cma_copy(int p, int write, uint8_t *local, uint64_t remote, uint64_t len,
                        int *err)
{
    uint64_t got = 0;
    *err = 0;
    while (got < len) {
        struct iovec l = {.iov_base = local + got, .iov_len = len - got};
        struct iovec r = {.iov_base = (void *)(uintptr_t)(remote + got), .iov_len = len - got};
        ssize_t n = write ? process_vm_writev(pid_of(p), &l, 1, &r, 1, 0)
                          : process_vm_readv(pid_of(p), &l, 1, &r, 1, 0);
        if (n > 0) {
            got += (uint64_t)n;
        } else if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        } else {
            *err = n < 0 ? errno : EFAULT;
            break;
        }
    }
    return got;
}

uint32_t shmc__coop_offer(struct shmc_request *s)
{
    struct shmc__global *g = &shmc__g;
    if (s->bytes < SHMC_COOP_MIN || !g->peers[s->peer].coop || !g->xdesc_free ||
        !g->cfg.single_copy)
        return 0;
    int i = __builtin_ctzll(g->xdesc_free);
    g->xdesc_free &= ~(1ull << i);
    struct shmc__xdesc *d = entry(g->rank, i);
    /* Relaxed and plain: the RTS naming this entry is published with release (R1) and the
     * receiver reads the entry only after acquiring that record (A1). */
    shmc__store_relaxed64(&d->next, 0);
    shmc__store_relaxed64(&d->done, 0);
    shmc__store_relaxed32(&d->armed, 0);
    shmc__store_relaxed32(&d->quit, 0);
    d->total = s->bytes;
    d->redo_len = 0;
    s->xdesc = i;
    shmc__reqq_push(&g->coop_sends, s, SHMC_Q_COOP);
    return SHMC_RTS_COOP | (uint32_t)i << 8;
}

void shmc__coop_dequeue(struct shmc_request *s)
{
    struct shmc__global *g = &shmc__g;
    shmc__reqq_remove(&g->coop_sends, s);
    g->xdesc_free |= 1ull << s->xdesc;
    s->xdesc = -1;
}

/* The sender's part: one claim of each armed entry. */
int shmc__coop_progress(void)
{
    struct shmc__global *g = &shmc__g;
    int made = 0;
    for (struct shmc_request *s = g->coop_sends.head; s; s = s->next) {
        struct shmc__xdesc *d = entry(g->rank, s->xdesc);
        /* A8 pairs with R8 (shmc__coop_recv_step): raddr and total are valid. */
        if (!shmc__load_acquire32(&d->armed) || shmc__load_relaxed32(&d->quit))
            continue;
        uint64_t total = d->total;
        if (shmc__load_relaxed64(&d->next) >= total)
            continue;
        uint64_t c = claim_bytes(total), off = shmc__fetch_add64(&d->next, c);
        if (off >= total)
            continue;
        uint64_t len = total - off < c ? total - off : c;
        int err;
        uint64_t got = shmc__cma_copy(s->peer, 1, (uint8_t *)s->buf + off, d->raddr + off, len, &err);
        if (got < len) {
            SHMC_INFO("writing into rank %d refused by the kernel (%s); it copies alone", s->peer,
                      strerror(err));
            g->peers[s->peer].coop = 0;
            d->redo_off = off + got;
            d->redo_len = len - got;
        }
        /* R9 pairs with A9 (shmc__coop_recv_step): our writes are done before counted. */
        shmc__fetch_add64(&d->done, got);
        if (got < len)
            /* R10 pairs with A10: redo_off/len are set before quit. */
            shmc__store_release32(&d->quit, 1);
        shmc__notify(g->peers[s->peer].cb, g->fenced);
        made++;
    }
    return made;
}

int shmc__coop_sending_to(int peer)
{
    for (const struct shmc_request *s = shmc__g.coop_sends.head; s; s = s->next)
        if (s->peer == peer)
            return 1;
    return 0;
}

int shmc__coop_usable(int src, uint32_t rts_flags)
{
    return (rts_flags & SHMC_RTS_COOP) && ((rts_flags >> 8) & 0xff) < SHMC_XDESC_COUNT &&
           shmc__g.peers[src].cma == 2;
}

/* The receiver's copy of one range, counted in done. Returns 1, or -1 with *err. */
static int recv_range(struct shmc_request *r, struct shmc__xdesc *d, uint64_t off, uint64_t len,
                      int *err)
{
    if (shmc__cma_copy(r->src, 0, (uint8_t *)r->buf + off, r->remote_addr + off, len, err) < len)
        return -1;
    shmc__fetch_add64(&d->done, len);
    return 1;
}

int shmc__coop_recv_step(struct shmc_request *r, int *err)
{
    struct shmc__xdesc *d = entry(r->src, r->xdesc);
    uint64_t total = r->xfer_bytes;
    *err = 0;
    if (!r->coop_armed) {
        d->raddr = (uint64_t)(uintptr_t)r->buf;
        d->total = total;
        /* R8 pairs with A8 (shmc__coop_progress): raddr and total are set. */
        shmc__store_release32(&d->armed, 1);
        shmc__notify(shmc__g.peers[r->src].cb, shmc__g.fenced);
        r->coop_armed = 1;
    }
    uint64_t c = claim_bytes(total), off = shmc__load_relaxed64(&d->next);
    /* A message split in two: the receiver claims first, and the sender starts only once
     * it sees the entry armed, so the receiver's part is the larger (9/16), and both end
     * closer together (64 KiB latency -5 to -10%, docs/performance.md). */
    if (off == 0 && total < 2 * COOP_CLAIM_MIN)
        c = (total * 9 / 16 + 4095) & ~(uint64_t)4095;
    if (off < total && (off = shmc__fetch_add64(&d->next, c)) < total) {
        return recv_range(r, d, off, total - off < c ? total - off : c, err);
    }
    /* Everything is claimed: wait for the sender's ranges. A9 pairs with R9. */
    if (shmc__load_acquire64(&d->done) == total)
        return 2;
    /* A10 pairs with R10: the range the sender left is in redo_off/len. */
    if (shmc__load_acquire32(&d->quit) && d->redo_len) {
        uint64_t len = d->redo_len;
        d->redo_len = 0; /* ours now: the sender has stopped touching the entry */
        return recv_range(r, d, d->redo_off, len, err);
    }
    return 0;
}
