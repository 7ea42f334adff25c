/*
 * The matching engine's queues: posted receives and unexpected messages, both in arrival
 * order, so that MPI's rules hold: a message matches the oldest posted receive that
 * accepts it, a receive takes the oldest unexpected message it accepts, and since each
 * peer's ring is read in order, messages from one sender on one communicator never
 * overtake each other. Delivering a matched message is deliver.c's.
 *
 * Each unexpected message is on two queues: all of them in arrival order, and its sender's
 * own. A receive from one rank looks at that rank's queue alone, never past the messages
 * of the others: members running ahead of a root (a gather back to back) leave it a
 * backlog from each, which progress drains one mailbox at a time, and a walk past it at
 * every receive would grow with their lead. A receive from any rank, a probe of any and
 * the queries by context look at the queue of all, whose first entry is then the one
 * they mostly want.
 */
#ifndef SHMC_MATCH_H
#define SHMC_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "base/list.h"
#include "device/device.h"
#include "p2p/records.h"
#include "p2p/request.h"
#include "shm/arena.h"

/* An unexpected message: arrived before any receive matched it. */
struct shmc__unexp {
    struct shmc__link link; /* on its sender's queue (or, claimed, on the claimed list) */
    struct shmc__link all;  /* on the queue of all */
    int src;                /* world rank */
    int tag;
    uint32_t ctx;
    unsigned kind;                   /* SHMC_REC_EAGER or SHMC_REC_RTS, or 0 for self rndv */
    size_t bytes;                    /* message size */
    uint64_t cookie;                 /* RTS: the sender's request */
    uint64_t addr;                   /* RTS: sender's buffer, if it offers single copy */
    uint32_t flags;                  /* RTS flags */
    struct shmc__ipc *ipc;           /* RTS of a device buffer: in data[] */
    struct shmc__request *self_send; /* large message to oneself */
    shmc_comm *owner;                /* claimed by a matched probe: on this communicator */
    uint8_t data[];                  /* EAGER payload */
};

struct shmc__match {
    struct shmc__link posted;                /* receives, as SHMC_Q_POSTED */
    struct shmc__link unexp;                 /* struct shmc__unexp, by `all`, in arrival order */
    struct shmc__link unexp_of[SHMC_MAX_RANKS]; /* ...by `link`, each sender's (world rank) */
    uint64_t nunexp;
    /* Messages a matched probe took off the unexpected queue (shmc_mprobe): no receive
     * but the one given the message handle may have them. */
    struct shmc__link claimed;
};

/* The bits of a tag that a loose receive (shmc__tag_loose) compares. The collectives'
 * schedules put the number of their call there and a hash of its words in the others
 * (coll/sched.c), so that a message of a member whose call differs is still taken by the
 * receive of the call of that number, and found to differ, rather than left unmatched. */
#define SHMC_TAG_LOOSE_BITS ((1u << 30) | ((1u << 20) - 1u))

/* A receive's tag that accepts any message whose tag agrees with t on the loose bits (a
 * negative value below SHMC_ANY, which no message's tag is). */
static inline int shmc__tag_loose(int t)
{
    return SHMC_ANY - 1 - (int)((uint32_t)t & SHMC_TAG_LOOSE_BITS);
}

/* The tag bits a receive's tag asks for: those of a loose one, or the tag itself (what a
 * hang report names). */
static inline int shmc__tag_shown(int want_tag)
{
    return want_tag < SHMC_ANY ? SHMC_ANY - 1 - want_tag : want_tag;
}

/* Does a receive's tag (a tag, SHMC_ANY, or a loose one) accept a message's tag? */
static inline int shmc__tag_accepts(int want_tag, int tag)
{
    return want_tag == tag || want_tag == SHMC_ANY ||
           (want_tag < SHMC_ANY && tag >= 0 &&
            (int)((uint32_t)tag & SHMC_TAG_LOOSE_BITS) == SHMC_ANY - 1 - want_tag);
}

/* Does a receive of (want_src, want_tag, want_ctx) accept a message (src, tag, ctx)? */
static inline int shmc__match_accepts(int want_src, int want_tag, uint32_t want_ctx, int src,
                                      int tag, uint32_t ctx)
{
    return want_ctx == ctx && (want_src == SHMC_ANY || want_src == src) &&
           shmc__tag_accepts(want_tag, tag);
}

void shmc__match_init(struct shmc__match *m);
/* The oldest unexpected message a receive (src, tag, ctx) accepts, left on the queue
 * (a probe's answer), or NULL. */
const struct shmc__unexp *shmc__match_peek(const struct shmc__match *m, int src, int tag,
                                           uint32_t ctx);
/* The oldest unexpected message a receive (src, tag, ctx) accepts, moved to the claimed
 * list for owner, or NULL. */
struct shmc__unexp *shmc__match_claim(struct shmc__match *m, int src, int tag, uint32_t ctx,
                                      shmc_comm *owner);
/* Whether u is a claimed message (a handle's validity), and taking it off that list. */
int shmc__match_is_claimed(const struct shmc__match *m, const struct shmc__unexp *u);
void shmc__match_unclaim(struct shmc__unexp *u);
/* Appends receive r to the posted queue. */
void shmc__match_post(struct shmc__match *m, struct shmc__request *r);
/* The oldest posted receive that accepts a message (src, tag, ctx), taken off the queue. */
struct shmc__request *shmc__match_posted(struct shmc__match *m, int src, int tag, uint32_t ctx);
/* The oldest unexpected message a receive (src, tag, ctx) accepts, taken off the queue;
 * the caller frees it. Inline: with none queued, as where receives are posted ahead of
 * their messages, the answer costs no call. */
struct shmc__unexp *shmc__match_unexp_take(struct shmc__match *m, int src, int tag, uint32_t ctx);
static inline struct shmc__unexp *shmc__match_unexp(struct shmc__match *m, int src, int tag,
                                                    uint32_t ctx)
{
    return m->nunexp ? shmc__match_unexp_take(m, src, tag, ctx) : NULL;
}
int shmc__unexp_add_eager(struct shmc__match *m, int src, int tag, uint32_t ctx, const void *data,
                          size_t len);
int shmc__unexp_add_rts(struct shmc__match *m, int src, int tag, uint32_t ctx,
                        const struct shmc__rts *rts, const struct shmc__ipc *ipc);
int shmc__unexp_add_self(struct shmc__match *m, struct shmc__request *send);
void shmc__unexp_drop_self(struct shmc__match *m, const struct shmc__request *send);
/* The oldest message (EAGER or RTS, not a message to oneself) waiting on ctx, taken off
 * the queue; the caller frees it. NULL if none. */
struct shmc__unexp *shmc__unexp_take_ctx(struct shmc__match *m, uint32_t ctx);
/* Forgets eager messages nobody received on a context that is going away. */
void shmc__unexp_drop_ctx(struct shmc__match *m, uint32_t ctx);
void shmc__unexp_free_all(struct shmc__match *m);

#endif /* SHMC_MATCH_H */
