/*
 * What this process writes to a peer's mailbox, and what waits for room in it: eager
 * messages, control records (CTS, FIN), and sends whose EAGER or RTS record must follow
 * earlier ones to keep the order. The queued sends' RTS records are written by rndv.c,
 * and progress.c pushes every queue when the ring has room.
 */
#ifndef SHMC_OUTQ_H
#define SHMC_OUTQ_H

#include <stddef.h>
#include <stdint.h>

#include "p2p/p2p.h"

/* Writes an EAGER record of bytes from buf to ep's peer and wakes it. Returns 1, or 0 if
 * the ring has no room now. */
int shmc__outq_eager(struct shmc__ep *ep, const void *buf, size_t bytes, int tag, uint32_t ctx);
/* A send (of host memory: dev 0) to world rank wdst written straight into its mailbox, with no
 * request, where it may be: eager-sized, nothing queued to that peer before it, the peer
 * connected and the mailbox with room. Returns 1 if sent, 0 if the caller must post it
 * (shmc__post_send), which then keeps the order. Inline: the blocking send's fast path
 * (calls.c) and the collectives' sends (coll/xfer.c) count its instructions. */
static inline int shmc__send_now(struct shmc__p2p *p, const void *buf, size_t bytes, int dev,
                                 int wdst, int tag, uint32_t ctx)
{
    if (wdst == p->rank || bytes > p->eager_limit || dev)
        return 0;
    struct shmc__peer *pe = &p->peers[wdst];
    return shmc__list_empty(&pe->matchq) && !pe->ep.gone && !pe->ep.broken &&
           shmc__outq_eager(&pe->ep, buf, bytes, tag, ctx);
}
/* Has world rank w yet to read what this rank sent it (records in its mailbox it has not
 * read, or sends still queued here)? A hint: the reader may read them the next moment. */
static inline int shmc__send_behind(const struct shmc__p2p *p, int w)
{
    const struct shmc__peer *pe = &p->peers[w];
    return !shmc__list_empty(&pe->matchq) || shmc__ring_unread(&pe->ep.out);
}
/* Sends a CTS or FIN for request r to world rank peer, or queues it until the ring has
 * room (in r itself: no memory needed). SHMC_OK, or SHMC_ERR_NOMEM (not expected: see
 * struct shmc__ctrl). */
int shmc__outq_ctrl(struct shmc__p2p *p, int peer, struct shmc__request *r, unsigned kind,
                    uint64_t w1, uint64_t a, uint64_t b);
/* The same without a request, for a FIN declining an offer: mem, a malloc'd block at
 * least as large as a struct shmc__ctrl, holds the record if it must wait for ring space
 * (and is freed once it is written), and is freed at once otherwise. */
void shmc__outq_ctrl_in(struct shmc__p2p *p, int peer, void *mem, unsigned kind, uint64_t w1,
                        uint64_t a, uint64_t b);
/* Queues send s behind the others to its peer (its record goes when they have). */
void shmc__outq_send(struct shmc__p2p *p, int peer, struct shmc__request *s);
/* Writes queued control records while the ring has room; returns how many. */
int shmc__outq_flush_ctrl(struct shmc__p2p *p, int peer);
/* Recounts whether anything waits for peer (out_busy, out_busy_count). */
void shmc__outq_busy(struct shmc__p2p *p, int peer);
/* Forgets peer's queued control records (finalize). */
void shmc__outq_discard(struct shmc__p2p *p, int peer);

#endif /* SHMC_OUTQ_H */
