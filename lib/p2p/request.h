/*
 * Requests: one pending send or receive, from its post to its completion. They come
 * from slabs that live until shmc_finalize; a table indexes them, so a cookie that a peer
 * quotes back, or a handle a caller holds, is checked against the table and never
 * dereferenced into freed memory. A cookie is gen << 32 | slot; a slot's gen changes each
 * time it is freed, so a late or forged cookie finds nothing instead of the wrong request.
 *
 * A request is on at most one list at a time, through `link`, and `queue` says which.
 * Completing it takes it off that list; where leaving a list means more (a copy
 * descriptor to give back, coop.c; a device copy to wait for, rndv.c), the list's owner
 * does that first.
 */
#ifndef SHMC_REQUEST_H
#define SHMC_REQUEST_H

#include <stddef.h>
#include <stdint.h>

#include "base/list.h"
#include "p2p/comm.h"
#include "shm/arena.h"

/* A driven request is one operation made of others, which a function of the layer above
 * moves along from progress (post.c, shmc__post_driven): a nonblocking collective. */
enum {
    SHMC_REQ_SEND = SHMC_BLK_SEND,
    SHMC_REQ_RECV = SHMC_BLK_RECV,
    SHMC_REQ_DRIVEN = SHMC_BLK_COLL
};

enum {
    SHMC_RS_FREE = 0,
    SHMC_RS_ACTIVE = 1,
    SHMC_RS_DONE = 2,
};

/* How a request's data moves, and where it stands. */
enum {
    SHMC_P_NONE = 0,
    SHMC_P_EAGER,   /* send: one EAGER record (maybe waiting for ring space) */
    SHMC_P_RTS,     /* send: RTS queued or sent, waiting for CTS or FIN */
    SHMC_P_STREAM,  /* send: streaming DATA records after CTS */
    SHMC_P_SELF,    /* send to oneself, waiting for the matching receive */
    SHMC_P_POSTED,  /* recv: in the posted queue */
    SHMC_P_CMA,     /* recv: pulling with single copy */
    SHMC_P_DATA,    /* recv: CTS sent, DATA records arriving */
    SHMC_P_DEVCOPY, /* recv: copying from a peer's device buffer (device/device.h) */
};

/* Which list a request is on (at most one), and whose it is. */
enum {
    SHMC_Q_NONE = 0,
    SHMC_Q_POSTED, /* match.c: receives waiting for a message */
    SHMC_Q_MATCH,  /* outq.c: a peer's EAGER/RTS sends waiting for ring space */
    SHMC_Q_STREAM, /* rndv.c: a peer's sends streaming DATA records */
    SHMC_Q_CMA,    /* rndv.c: receives copying with single copy */
    SHMC_Q_COOP,   /* coop.c: sends with a copy descriptor */
    SHMC_Q_DEV,    /* rndv.c: receives copying from a peer's device buffer */
    SHMC_Q_DRIVEN  /* progress.c: driven requests, until their poll says they are done */
};

/* A control record (CTS/FIN) that did not fit in the ring yet. Each receive has one
 * inside it, so queueing its CTS or FIN needs no memory (a receive never has two queued:
 * its FIN follows data that its CTS, once in the ring, asked for). */
struct shmc__ctrl {
    struct shmc__link link;
    struct shmc__request *owner; /* the request it is part of, or NULL if allocated */
    unsigned kind;
    uint64_t w1;
    uint64_t a, b;
};

/* What moves a driven request (post.c), one table per kind of caller: poll(arg, &err)
 * moves it along without waiting and returns 1 once it has ended (err: how), 0 while it
 * goes on; far(arg, cpu), the wait's hint (wait.c, spin_far; NULL: none), says whether
 * every rank it waits for now runs on another CPU than cpu, where a blocking call's wait
 * spins rather than yield (shm/doorbell.h). */
struct shmc__incall;
struct shmc__driven_ops {
    int (*poll)(void *arg, int *err);
    int (*far)(void *arg, uint32_t cpu);
    /* Optional: the collective call the request runs, for a wait on it alone to publish
     * (incall.h); 1 where *out was filled. */
    int (*call)(void *arg, struct shmc__incall *out);
};

struct shmc__request {
    uint8_t kind;
    uint8_t state;
    uint8_t proto;
    uint8_t queue;
    uint8_t listed;   /* named once already in the shmc_waitall being checked */
    uint8_t spare;    /* one of the collectives' reserve: freed back to it */
    uint8_t dev;      /* buf is device memory: never memcpy'd, never single copy */
    uint8_t waited;   /* a wait of this rank includes it now (wait.c) */
    uint8_t detached; /* a driven request nobody holds: freed by progress once it ends */
    uint8_t kept;     /* recv: the receiver reads buf next (shmc__post_recv_kept) */
    int err;
    uint32_t idx; /* slot in the request table; with gen, the cookie peers quote */
    uint32_t gen;
    struct shmc__link link;          /* on the list `queue` names */
    struct shmc__request *free_next; /* on a free list */

    /* What the caller asked for. */
    void *buf;     /* receive buffer, or the send buffer (const in spirit) */
    size_t bytes;  /* capacity (recv) or message size (send) */
    size_t elsize; /* element size of the caller's dtype */
    int peer;      /* world rank, or SHMC_ANY for a receive from any source */
    int tag;       /* or SHMC_ANY */
    uint32_t ctx;
    const struct shmc__comm *comm;

    /* What happened. */
    int src;          /* world rank the message came from (recv) */
    int msg_tag;      /* the message's tag (recv) */
    size_t msg_bytes; /* the message's size as sent */

    /* Rendezvous. */
    uint64_t peer_cookie; /* the other side's request (CTS/DATA/FIN routing) */
    uint64_t remote_addr; /* sender's buffer in its address space (single copy) */
    size_t xfer_bytes;    /* bytes to move: min(message, capacity) */
    size_t xfer_done;
    int xdesc;     /* copy descriptor (coop.c): ours (send) or the sender's (recv); -1 none */
    int dev_token; /* recv: the device copy in flight (shmc__dev_copy_poll) */
    /* Receive side of a copy descriptor (coop.c): bytes we claimed, bytes we counted in
     * done, and the error of a failed copy of ours (0 while none). */
    uint64_t coop_mine, coop_counted;
    int coop_err;
    struct shmc__request *self_peer; /* the other half of a message to oneself */

    /* A driven request's mover and its argument (post.c, struct shmc__driven_ops). */
    const struct shmc__driven_ops *ops;
    void *poll_arg;

    /* Its control record while queued for ring space (outq.c). A request freed meanwhile
     * goes back to the free list only once the record is sent. */
    struct shmc__ctrl ctrl;
    uint8_t ctrl_queued;
    uint8_t free_when_sent;
};

/* The request behind SHMC_REQUEST_COMPLETE (shmcomm.h): complete, a driven request's status,
 * never freed, never on a list. Only read: many handles name it, from any thread. */
extern struct shmc__request shmc__req_done;

/* The request table and its free lists. */
struct shmc__reqs {
    struct shmc__request **table;
    uint32_t n, cap;
    struct shmc__request *free;
    /* Requests kept for the collectives' messages, so that a collective never needs
     * memory once its data moves: nspare of them, those not in use on `spare`. */
    struct shmc__request *spare;
    uint32_t nspare;
    uint32_t active;
    uint32_t gen0; /* first gen of new slots: odd, different in every job joined (p2p.c) */
};

static inline uint64_t shmc__req_cookie(const struct shmc__request *r)
{
    return ((uint64_t)r->gen << 32) | r->idx;
}

/* coll: for a collective's message, from the reserve while it lasts. NULL: no memory. */
struct shmc__request *shmc__req_alloc(struct shmc__reqs *t, int coll);
/* A driven request, from the reserve, complete with err as it is made (a nonblocking
 * collective whose start found the members' failure): its status is a driven request's
 * (any source and tag, no elements), as SHMC_REQUEST_COMPLETE's. NULL: no memory. */
struct shmc__request *shmc__req_ended(struct shmc__reqs *t, int err);
/* Makes sure the next shmc__req_alloc(t, coll) cannot fail (for a caller that must not fail
 * once it has begun): SHMC_OK, or SHMC_ERR_NOMEM / SHMC_ERR_LIMIT. Inline: a small
 * nonblocking collective asks on every start. */
int shmc__req_grow(struct shmc__reqs *t);
static inline int shmc__req_ready(struct shmc__reqs *t, int coll)
{
    return (coll && t->spare) || t->free ? SHMC_OK : shmc__req_grow(t);
}
int shmc__req_reserve(struct shmc__reqs *t, uint32_t k); /* SHMC_OK or SHMC_ERR_NOMEM */
void shmc__req_free(struct shmc__reqs *t, struct shmc__request *r);
/* Frees every slab (finalize). */
void shmc__reqs_release(struct shmc__reqs *t);
/* The active request of that kind a peer's cookie names, or NULL. */
struct shmc__request *shmc__req_lookup(const struct shmc__reqs *t, uint64_t cookie, int kind);
/* What the caller holds as a shmc_request * is the request's cookie, not its address, so
 * a handle kept after its request completed (and the slot possibly reused), or one that
 * was never a request, is recognised instead of dereferenced. gen is never 0, so a handle
 * is never NULL. Inline: every nonblocking start and every isend and irecv that posts
 * makes one (bench/path_cost.sh counts what a call of its own cost them). */
static_assert(sizeof(uintptr_t) >= sizeof(uint64_t), "a request handle holds a 64-bit cookie");
static inline shmc_request *shmc__req_handle(const struct shmc__request *r)
{
    return (shmc_request *)(uintptr_t)shmc__req_cookie(r);
}
/* The live request a handle names, or NULL for a completed, freed or invented one. */
struct shmc__request *shmc__req_from_handle(const struct shmc__reqs *t, const shmc_request *h);
/* Marks r done with err (the first error sticks; a truncation gives way to a failure)
 * and takes it off its list. */
void shmc__req_complete(struct shmc__reqs *t, struct shmc__request *r, int err);
/* Puts r on list head as `which`; takes it off its list. */
void shmc__req_enqueue(struct shmc__link *head, struct shmc__request *r, int which);
void shmc__req_unlink(struct shmc__request *r);
/* The first request on list head, or NULL. */
struct shmc__request *shmc__req_first(const struct shmc__link *head);
/* A queued control record left its queue (sent, or its peer's queue was discarded). */
void shmc__ctrl_done(struct shmc__reqs *t, struct shmc__ctrl *c);
void shmc__req_fill_status(const struct shmc__request *r, shmc_status *st);

#endif /* SHMC_REQUEST_H */
