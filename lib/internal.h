/*
 * The process-private state of the library: communicators, requests, per-peer endpoints
 * and queues, and the one global that ties them together.
 *
 * Concurrency contract: the library is serialised (shmcomm.h), so nothing here is
 * protected by a lock; only what lives in the arena is shared, through atomics.
 */
#ifndef SHMC_INTERNAL_H
#define SHMC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "config.h"
#include "memkind.h"
#include "ring.h"
#include "shmcomm.h"

#define SHMC_ANY (-1)

/* Bytes per element, or 0 for a value that is not a shmc_dtype. Inline because every
 * message asks; shmc_dtype_size is the exported wrapper. */
static inline size_t shmc__dtype_size(shmc_dtype dt)
{
    static const uint8_t sizes[] = {
        [SHMC_INT8] = 1,    [SHMC_UINT8] = 1,   [SHMC_INT32] = 4,   [SHMC_UINT32] = 4,
        [SHMC_INT64] = 8,   [SHMC_UINT64] = 8,  [SHMC_FLOAT16] = 2, [SHMC_BFLOAT16] = 2,
        [SHMC_FLOAT32] = 4, [SHMC_FLOAT64] = 8,
    };
    return (unsigned)dt < sizeof sizes ? sizes[dt] : 0;
}

/* True if the byte ranges [a, a + na) and [b, b + nb) share a byte. */
static inline int shmc__overlap(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return na && nb && x < y + nb && y < x + na;
}

/* ---- communicators ------------------------------------------------------------------ */

/* Scratch buffers the collectives borrow (coll/scratch.c); the last one holds the input
 * of an in-place all-to-all. */
#define SHMC_NSCRATCH 4
#define SHMC_SCRATCH_INPLACE 3

struct shmc__comm {
    uint32_t slot; /* its entry in the handle table (shmc__comm_get) */
    uint32_t ctx; /* point-to-point context id; ctx + 1 is the collectives' */
    int rank;
    int size;
    int *world_of;  /* comm rank -> world rank; NULL for the world itself. One allocation
                     * holds both maps: local_of points into it */
    int *local_of;  /* world rank -> comm rank or -1; NULL for the world itself */
    uint32_t uid;   /* agreed by the members at creation; never reused by any of them */
    uint32_t round; /* shared-memory collective rounds so far (coll/slot.c) */
    int coll_err;   /* a collective failed for a dead or broken member: all will (api.c) */
    size_t scratch_mark[SHMC_NSCRATCH];  /* scratch the members agreed to hold (scratch.c) */
    size_t dscratch_mark[SHMC_NSCRATCH]; /* the same, of device scratch */
    struct shmc__comm *next, *prev; /* every communicator but the world (freed at finalize) */
};

/* Context ids follow from uids: 2 (uid - 1) for point-to-point, one more for the
 * collectives; the world has uid 1 and contexts 0 and 1. */
#define SHMC_MAX_UID 0x7fffffffu
#define SHMC_CTX_IS_COLL(ctx) ((ctx)&1u)

static inline int shmc__comm_world_rank(const struct shmc__comm *c, int r)
{
    return c->world_of ? c->world_of[r] : r;
}

static inline int shmc__comm_local_rank(const struct shmc__comm *c, int w)
{
    return c->local_of ? c->local_of[w] : w;
}

/* ---- requests ----------------------------------------------------------------------- */

enum { SHMC_REQ_SEND = SHMC_BLK_SEND, SHMC_REQ_RECV = SHMC_BLK_RECV };

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
    SHMC_P_CMA,     /* recv: pulling with process_vm_readv */
    SHMC_P_DATA,    /* recv: CTS sent, DATA records arriving */
    SHMC_P_DEVCOPY, /* recv: copying from a peer's device buffer (memkind.h) */
};

/* A control record (CTS/FIN) that did not fit in the ring yet. Each receive has one
 * inside it, so queueing its CTS or FIN needs no memory (a receive never has two queued:
 * its FIN follows data that its CTS, once in the ring, asked for). */
struct shmc__ctrl {
    struct shmc__ctrl *next;
    struct shmc__request *owner; /* the request it is part of, or NULL if allocated */
    unsigned kind;
    uint64_t w1;
    uint64_t a, b;
};

/* Which intrusive list a request is on (at most one). */
enum {
    SHMC_Q_NONE = 0,
    SHMC_Q_POSTED,
    SHMC_Q_MATCH,
    SHMC_Q_STREAM,
    SHMC_Q_CMA,
    SHMC_Q_COOP,
    SHMC_Q_DEV
};

struct shmc__request {
    uint8_t kind;
    uint8_t state;
    uint8_t proto;
    uint8_t queue;
    uint8_t listed; /* named once already in the shmc_waitall being checked */
    uint8_t spare;  /* one of the collectives' reserve (request.c): freed back to it */
    uint8_t dev;    /* buf is device memory (memkind.h): never memcpy'd, never single copy */
    int err;
    uint32_t idx; /* slot in the request table; with gen, the cookie peers quote */
    uint32_t gen;
    struct shmc__request *next;

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
    int xdesc; /* copy descriptor (coop.c): ours (send) or the sender's (recv); -1 none */
    int dev_token; /* recv: the device copy in flight (shmc__dev_copy_poll) */
    /* Receive side of a copy descriptor (coop.c): bytes we claimed, bytes we counted in
     * done, and the error of a failed copy of ours (0 while none). */
    uint64_t coop_mine, coop_counted;
    int coop_err;
    struct shmc__request *self_peer; /* the other half of a message to oneself */

    /* Its control record while queued for ring space (shmc__send_ctrl). A request freed
     * meanwhile goes back to the free list only once the record is sent. */
    struct shmc__ctrl ctrl;
    uint8_t ctrl_queued;
    uint8_t free_when_sent;
};

static inline uint64_t shmc__req_cookie(const struct shmc__request *r)
{
    return ((uint64_t)r->gen << 32) | r->idx;
}

/* ---- per-peer state ----------------------------------------------------------------- */

/* A FIFO of requests linked through ->next. */
struct shmc__reqq {
    struct shmc__request *head;
    struct shmc__request *tail;
};

struct shmc__peer {
    struct shmc__ring_prod out; /* us -> peer */
    struct shmc__ring_cons in;  /* peer -> us */
    struct shmc__rank_cb *cb;
    struct shmc__reqq matchq;  /* EAGER/RTS sends waiting for ring space, in order */
    struct shmc__reqq streams; /* sends streaming DATA records */
    struct shmc__ctrl *ctrl_head, *ctrl_tail;
    int out_busy; /* 1 while any of the three queues above is non-empty */
    int cma;      /* single copy from this peer: 1 allowed, 0 refused by the kernel */
    int coop;     /* we may write into this peer (coop.c): 1 until the kernel refuses */
    int broken;   /* its ring held an invalid record: no more reads from it */
    int gone;     /* it finalized or died; learned from its control block */
    int pidfd;    /* for liveness checks when no launcher watches; -1 if none */
};

/* ---- the process --------------------------------------------------------------------- */

enum { SHMC_ST_UNINIT = 0, SHMC_ST_READY = 1, SHMC_ST_FINALIZING = 2, SHMC_ST_DONE = 3 };

enum {
    SHMC_BOOT_SHMRUN = 1,
    SHMC_BOOT_TORCHRUN,
    SHMC_BOOT_OMPI,
    SHMC_BOOT_MPICH,
    SHMC_BOOT_SINGLETON,
};

struct shmc__global {
    int state;
    int boot_mode;
    int rank;
    int size;
    int local_rank; /* LOCAL_RANK or its launcher's equivalent: picks the GPU */
    int fenced; /* senders must fence before checking `sleeping` (wait.h) */
    struct shmc__config cfg;
    struct shmc__arena arena;
    struct shmc__rank_cb *me;
    struct shmc__peer *peers; /* [size]; peers[rank] unused */
    size_t eager_limit;       /* effective: min(config, what one record can carry) */
    size_t chunk;             /* payload bytes of one DATA record */
    unsigned spin, yield;     /* wait policy (wait.h) */
    uint64_t spin_elsewhere_ns; /* spin this long, not yield, while peers run elsewhere */
    uint32_t epoch_seen;      /* hdr->epoch when we last refreshed peer states */
    int recheck;              /* re-examine pending requests (a peer broke) */
    int ngone;                /* peers known to be gone */
    int out_busy_count;       /* peers with out_busy set */
    int cma_self;             /* process_vm_readv works at all in this process */

    struct shmc__comm world;
    struct shmc__comm *comms; /* communicators made by split or create_group */
    uint32_t next_uid;       /* larger than every uid this process has seen */

    /* This rank's collective slot (coll/slot.c). */
    struct shmc__slot *slot;
    uint64_t slot_readers[SHMC_MAX_RANKS / 64]; /* world ranks that may still owe reads */
    uint64_t slot_stamp;                        /* of our last publication */

    /* This rank's world-sync block and the rounds it has entered (coll/wsync.c). */
    struct shmc__wsync *wsync;
    uint64_t wround;

    /* Matching. */
    struct shmc__reqq posted;
    struct shmc__unexp *unexp_head, *unexp_tail;
    struct shmc__reqq cma_active;
    struct shmc__reqq dev_active; /* receives copying from a peer's device buffer */
    struct shmc__reqq coop_sends; /* sends with a copy descriptor, until complete */
    uint64_t xdesc_free;          /* our copy descriptors not in use (bit i: entry i) */
    uint64_t xdesc_held;          /* sends complete, receiver not yet done with the entry */
    uint64_t coop_offers;         /* descriptors offered so far (tests read it) */
    int xdesc_peer[SHMC_XDESC_COUNT]; /* the receiver of each entry */

    /* Requests: a table of pointers into slabs that are never freed, so a stale cookie
     * or pointer is detected, never dereferenced into freed memory. */
    struct shmc__request **reqs;
    uint32_t nreqs, reqs_cap;
    struct shmc__request *req_free;
    uint32_t active_reqs;
    /* Requests kept for the collectives' messages, so that a collective never needs
     * memory once its data moves: nspare of them, those not in use on req_spare. */
    struct shmc__request *req_spare;
    uint32_t nspare;
    uint64_t scratch_late; /* scratch allocated inside a collective: a bug (scratch.c) */

    /* The communicator handle table (shmc__comm_get): slot 0 is the world. */
    struct shmc__comm_slot *comm_slots;
    uint32_t ncomm_slots, comm_slots_cap;
};

extern struct shmc__global shmc__g;

/* What the caller holds as a shmc_comm * is gen << 32 | slot, not an address (as for
 * requests), so a freed communicator's handle, or a value that was never one, is
 * recognised instead of dereferenced. A slot's gen changes when its communicator is
 * freed. */
struct shmc__comm_slot {
    struct shmc__comm *c; /* NULL while free */
    uint32_t gen;         /* never 0, so no handle is NULL */
};

/* The communicator a handle names, or NULL. The caller has checked that the library is
 * initialised. */
static inline struct shmc__comm *shmc__comm_get(const shmc_comm *h)
{
    struct shmc__global *g = &shmc__g;
    uint64_t v = (uint64_t)(uintptr_t)h;
    uint32_t i = (uint32_t)v;
    /* The world (slot 0, never freed, so always generation 1) without a load. */
    if (v == (uint64_t)1 << 32)
        return &g->world;
    if (i >= g->ncomm_slots || g->comm_slots[i].gen != (uint32_t)(v >> 32))
        return NULL;
    return g->comm_slots[i].c;
}

static inline shmc_comm *shmc__comm_handle(const struct shmc__comm *c)
{
    return (shmc_comm *)(uintptr_t)((uint64_t)shmc__g.comm_slots[c->slot].gen << 32 | c->slot);
}

/* An unexpected message: arrived before any receive matched it. */
struct shmc__unexp {
    struct shmc__unexp *next;
    int src; /* world rank */
    int tag;
    uint32_t ctx;
    unsigned kind;                  /* SHMC_REC_EAGER or SHMC_REC_RTS, or 0 for self rndv */
    size_t bytes;                   /* message size */
    uint64_t cookie;                /* RTS: the sender's request */
    uint64_t addr;                  /* RTS: sender's buffer, if it offers single copy */
    uint32_t flags;                 /* RTS flags */
    struct shmc__ipc *ipc;          /* RTS of a device buffer: in data[] */
    struct shmc__request *self_send; /* large message to oneself */
    uint8_t data[];                 /* EAGER payload */
};

/* Payloads of control records. */
#define SHMC_RTS_SINGLE_COPY 1u
#define SHMC_RTS_COOP 2u /* copy descriptor (flags >> 8) of the sender's table, coop.c */
#define SHMC_RTS_DEVICE 4u /* the sender's buffer is device memory: a struct shmc__ipc follows */
struct shmc__rts {
    uint64_t bytes;
    uint64_t addr;
    uint64_t cookie;
    uint32_t flags;
    uint32_t pad;
};
struct shmc__cts {
    uint64_t recv_cookie;
    uint64_t bytes;
};

/* ---- request.c ------------------------------------------------------------------------ */
/* coll: for a collective's message, from the reserve (request.c) while it lasts. */
struct shmc__request *shmc__req_alloc(int coll);
int shmc__req_reserve(uint32_t k); /* SHMC_OK or SHMC_ERR_NOMEM */
void shmc__req_free(struct shmc__request *r);
struct shmc__request *shmc__req_lookup(uint64_t cookie, int kind);
/* What the caller holds as a shmc_request * is the request's cookie, not its address, so
 * a handle kept after its request completed (and the slot possibly reused), or one that
 * was never a request, is recognised instead of dereferenced. */
shmc_request *shmc__req_handle(const struct shmc__request *r);
/* The live request a handle names, or NULL for a completed, freed or invented one. */
struct shmc__request *shmc__req_from_handle(const shmc_request *h);
void shmc__req_complete(struct shmc__request *r, int err);
void shmc__reqq_push(struct shmc__reqq *q, struct shmc__request *r, int which);
struct shmc__request *shmc__reqq_pop(struct shmc__reqq *q);
void shmc__reqq_remove(struct shmc__reqq *q, struct shmc__request *r);
void shmc__req_dequeue(struct shmc__request *r);
void shmc__req_fill_status(const struct shmc__request *r, shmc_status *st);

/* ---- match.c -------------------------------------------------------------------------- */
struct shmc__request *shmc__match_posted(int src, int tag, uint32_t ctx);
struct shmc__unexp *shmc__match_unexp(int src, int tag, uint32_t ctx);
int shmc__unexp_add_eager(int src, int tag, uint32_t ctx, const void *data, size_t len);
int shmc__unexp_add_rts(int src, int tag, uint32_t ctx, const struct shmc__rts *rts,
                        const struct shmc__ipc *ipc);
int shmc__unexp_add_self(struct shmc__request *send);
void shmc__unexp_drop_self(const struct shmc__request *send);
void shmc__unexp_free_all(void);
void shmc__unexp_drop_ctx(uint32_t ctx);
void shmc__deliver_eager(struct shmc__request *r, int src, int tag, const void *data, size_t len);
void shmc__recv_take_unexp(struct shmc__request *r, struct shmc__unexp *u);

/* ---- rndv.c --------------------------------------------------------------------------- */
int shmc__rndv_start_send(struct shmc__request *s);
/* ipc: the sender's device buffer when rts->flags has SHMC_RTS_DEVICE, else NULL. */
void shmc__rndv_matched(struct shmc__request *r, int src, int tag, const struct shmc__rts *rts,
                        const struct shmc__ipc *ipc);
int shmc__rndv_progress_cma(void);
void shmc__rndv_release(void); /* the bounce buffer of single copy into device memory */
int shmc__rndv_progress_dev(void);
/* Copies n bytes into or out of a request's buffer: memcpy, or the device backend's copy
 * when dev says either side is device memory (the callers know: mailbox memory is
 * host memory, and a request knows its buffer's kind). */
int shmc__copy_kind(void *dst, const void *src, size_t n, int dev);

/* coop.c: large single-copy messages copied by both sides. */
#define SHMC_COOP_MIN (64u << 10)        /* offered from here (docs/performance.md) */
#define SHMC_COOP_SPLIT_MIN (256u << 10) /* always used from here; below, see rndv.c */
uint32_t shmc__coop_offer(struct shmc__request *s); /* RTS flag bits, 0 if not offered */
void shmc__coop_dequeue(struct shmc__request *s);
int shmc__coop_progress(void);
int shmc__coop_sending_to(int peer); /* 1 if one of our offered sends to peer is in flight */
/* Copies len bytes between local and remote in peer p (write: into p) with
 * process_vm_readv/writev, retrying interrupted and partial calls. Returns the bytes
 * copied; *err is the errno of a failure. */
uint64_t shmc__cma_copy(int p, int write, uint8_t *local, uint64_t remote, uint64_t len,
                        int *err);
int shmc__coop_usable(int src, uint32_t rts_flags);
void shmc__coop_release(struct shmc__request *r);       /* recv: done with the sender's entry */
int shmc__coop_all_done(const struct shmc__request *s); /* send: every byte copied */
/* 1: copied a range, 0: waiting for the sender, 2: all copied (the entry released),
 * -1: failed (*err). */
int shmc__coop_recv_step(struct shmc__request *r, int *err);
int shmc__rndv_push_streams(int peer);
void shmc__rndv_on_cts(int peer, uint64_t w1, const uint8_t *payload, uint32_t len);
void shmc__rndv_on_data(int peer, uint64_t w1, const uint8_t *payload, uint32_t len);
void shmc__rndv_on_fin(int peer, uint64_t w1, const uint8_t *payload, uint32_t len);
void shmc__self_deliver(struct shmc__request *recv, struct shmc__request *send);

/* ---- progress.c ----------------------------------------------------------------------- */
int shmc__progress(void);
/* Sends a CTS or FIN for request r to peer, or queues it until the ring has room (in
 * r itself: no memory needed). */
int shmc__send_ctrl(int peer, struct shmc__request *r, unsigned kind, uint64_t w1, uint64_t a,
                    uint64_t b);
/* A queued control record left its queue (sent, or its peer's queue was discarded). */
void shmc__ctrl_done(struct shmc__ctrl *c);
int shmc__try_eager(int peer, const void *buf, size_t bytes, int tag, uint32_t ctx);
void shmc__queue_send(int peer, struct shmc__request *s);
void shmc__peer_out_busy(int peer);
int shmc__wait_requests(size_t n, struct shmc__request *const *reqs);
int shmc__wait_pred(int (*done)(void *), void *arg, unsigned op);
/* As shmc__wait_pred; elsewhere(arg, cpu) says whether every rank done() still waits for
 * last ran on another CPU than `cpu` (see shmc__runs_elsewhere in wait.h). */
int shmc__wait_pred_hint(int (*done)(void *), int (*elsewhere)(void *, uint32_t), void *arg,
                         unsigned op);
int shmc__rndv_put_rts(int peer, struct shmc__request *s);
int shmc__check_job(void);

/* Cheap per-call look at the job, on every public call: abort, or peers that changed
 * state. Relaxed loads: both words are triggers; shmc__check_job takes the acquire (A4)
 * when they moved. */
static inline int shmc__job_ok(void)
{
    const struct shmc__arena_hdr *h = shmc__g.arena.hdr;
    if (shmc__load_relaxed32(&h->abort) || shmc__load_relaxed32(&h->epoch) != shmc__g.epoch_seen)
        return shmc__check_job() == SHMC_ERR_ABORTED ? SHMC_ERR_ABORTED : SHMC_OK;
    return SHMC_OK;
}

/* ---- p2p.c ------------------------------------------------------------------------------ */
/* dev: the buffer is device memory (1) or host memory (0), as the caller knows, or -1 to
 * ask memkind.h. */
int shmc__post_send(const void *buf, size_t bytes, size_t elsize, int wdst, int tag, uint32_t ctx,
                    const struct shmc__comm *c, int dev, struct shmc__request **out);
int shmc__post_recv(void *buf, size_t bytes, size_t elsize, int wsrc, int tag, uint32_t ctx,
                    const struct shmc__comm *c, int dev, struct shmc__request **out);
int shmc__finish(struct shmc__request *r, shmc_status *status);

/* ---- peers.c -------------------------------------------------------------------------- */
int shmc__peers_setup(void);
void shmc__peers_teardown(void);
void shmc__peers_refresh(int probe_liveness);
void shmc__mark_state(int state);
void shmc__wake_all(void);

/* ---- coll/comm.c ---------------------------------------------------------------------- */
int shmc__comm_ids_init(struct shmc__global *g); /* SHMC_OK or SHMC_ERR_NOMEM */
void shmc__comm_release_all(void);
int shmc__scratch_init(void);  /* coll/scratch.c: SHMC_OK or SHMC_ERR_NOMEM */
void shmc__coll_release(void); /* coll/scratch.c: scratch buffers */

/* ---- bootstrap.c ---------------------------------------------------------------------- */
int shmc__bootstrap(struct shmc__global *g);
int shmc__wait_attached(struct shmc__global *g);

#endif /* SHMC_INTERNAL_H */
