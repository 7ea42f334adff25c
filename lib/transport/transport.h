/*
 * Layer transport: how records and bytes reach a peer.
 *
 * Owns: the endpoint to each peer (struct shmc__ep): two record mailboxes, ep->out to the
 * peer and ep->in from it (ring.h: what is committed to one end is peeked at the other,
 * in order, never lost, never reordered); whether the peer is still in the job; and
 * single copy, moving bytes between this process's memory and the peer's in one copy.
 * May call: base, shm.
 *
 * Each endpoint is served by a transport, a table of functions chosen per peer when the
 * endpoint is connected (as NCCL's struct ncclTransport, or Open MPI's single-copy
 * framework, for the copies). The point-to-point layer above speaks only in records and
 * in ep->ops calls, so a second transport (a network engine for ranks on another
 * machine, say) is a new table and a new entry in transport.c's list: it gives its
 * endpoints mailboxes of its own and moves their records in `progress`, and the layers
 * above do not change. The table is not on the small-message path: records go through
 * the endpoint's mailboxes inline (ring.h), for every transport alike, which is what
 * keeps a small message free of indirect calls.
 *
 * Single-threaded, like the library: an endpoint belongs to the process that connected it.
 */
#ifndef SHMC_TRANSPORT_H
#define SHMC_TRANSPORT_H

#include <errno.h>
#include <stdint.h>

#include "shm/arena.h"
#include "shm/doorbell.h"
#include "shmcomm.h"
#include "transport/ring.h"

/* Single copy from a peer: refused by the kernel (or off), allowed but not yet seen to
 * work, or proven by a copy that worked (p2p/coop.c and coll/direct.c rely on proof). */
enum { SHMC_SC_REFUSED = 0, SHMC_SC_ALLOWED = 1, SHMC_SC_PROVEN = 2 };

struct shmc__transport;

/* This process's side of the transports: what every endpoint is connected from. */
struct shmc__tp {
    struct shmc__arena *arena;
    int rank, size; /* world rank and size */
    int fenced;     /* senders fence before checking `sleeping` (doorbell.h) */
    int cma_self;   /* process_vm_readv works at all in this process */
};

/* One peer, as this process reaches it. The mailboxes come first: they are what every
 * message touches. */
struct shmc__ep {
    struct shmc__ring_prod out; /* records to the peer */
    struct shmc__ring_cons in;  /* records from the peer */
    struct shmc__rank_cb *cb;   /* the peer's control block: its state, its doorbell */
    int fenced;                 /* copy of the process's wake-up mode (doorbell.h) */
    int peer;                   /* its world rank */
    int gone;                   /* it finalized or died (shmc__ep_refresh) */
    int broken;                 /* its mailbox held an invalid record: never read again */
    int sc;                     /* single copy from it: SHMC_SC_* */
    int put_ok;                 /* we may write into it with single copy (until refused) */
    int pidfd;                  /* its process, for liveness without a launcher; -1 none */
    const int32_t *arena_pids;  /* the job's pids, once assembled (shm/arena.h) */
    const struct shmc__transport *ops;
};

/* A block of a peer's memory, for a scattered single copy. */
struct shmc__rblock {
    uint64_t addr, len;
};

struct shmc__transport {
    const char *name;
    /* Can this transport reach world rank peer? */
    int (*reaches)(const struct shmc__tp *t, int peer);
    /* Makes ep the endpoint to world rank peer. SHMC_OK or an error. */
    int (*connect)(const struct shmc__tp *t, struct shmc__ep *ep, int peer);
    void (*disconnect)(struct shmc__ep *ep);
    /* Moves records between ep's mailboxes and the peer, for a transport whose mailboxes
     * the peer cannot read itself; returns how many moved. NULL where the mailboxes are
     * shared with the peer, as they are in shared memory. */
    int (*progress)(struct shmc__ep *ep);
    /* Has the peer left the job (finalized or died)? With probe, also whether its
     * process still exists (a system call), marking it dead if not. 1 if it left. */
    int (*left)(const struct shmc__tp *t, struct shmc__ep *ep, int probe);
    /* Single copy of len bytes from the peer's address remote into local (get), or from
     * local into the peer's memory (put), retrying interrupted and partial copies.
     * Returns the bytes copied; when fewer than len, *err is the errno that stopped it.
     * NULL where the transport cannot. */
    uint64_t (*get)(struct shmc__ep *ep, void *local, uint64_t remote, uint64_t len, int *err);
    uint64_t (*put)(struct shmc__ep *ep, const void *local, uint64_t remote, uint64_t len,
                    int *err);
    /* The same for n blocks of the peer's memory at once, local holding their bytes back
     * to back: many blocks per system call. NULL where the transport cannot. */
    uint64_t (*copyv)(struct shmc__ep *ep, int write, void *local,
                      const struct shmc__rblock *blocks, size_t n, int *err);
};

extern const struct shmc__transport shmc__transport_shm;

/* Sets up this process's side: probes single copy if want_single_copy. */
void shmc__tp_init(struct shmc__tp *t, struct shmc__arena *a, int rank, int size, int fenced,
                   int want_single_copy);

/* Connects ep to world rank peer through the first transport that reaches it. */
int shmc__ep_connect(const struct shmc__tp *t, struct shmc__ep *ep, int peer);
void shmc__ep_disconnect(struct shmc__ep *ep);

/* Marks ep broken (once; returns 1 then), logging `what` was found in shared memory
 * (NULL: the caller has said it already). */
int shmc__ep_break(struct shmc__ep *ep, const char *what);

/* Looks whether ep's peer has left (probe: also at its process). Returns 1 if it is
 * newly gone; ep->gone is then set. */
int shmc__ep_refresh(const struct shmc__tp *t, struct shmc__ep *ep, int probe);

/* Wakes the peer if it may be asleep; call after publishing what it waits for. */
static inline void shmc__ep_notify(struct shmc__ep *ep)
{
    shmc__notify(ep->cb, ep->fenced);
}

/* Single copy through ep's transport (see the table). */
static inline uint64_t shmc__ep_get(struct shmc__ep *ep, void *local, uint64_t remote, uint64_t len,
                                    int *err)
{
    if (!ep->ops->get) {
        *err = ENOSYS;
        return 0;
    }
    return ep->ops->get(ep, local, remote, len, err);
}

static inline uint64_t shmc__ep_put(struct shmc__ep *ep, const void *local, uint64_t remote,
                                    uint64_t len, int *err)
{
    if (!ep->ops->put) {
        *err = ENOSYS;
        return 0;
    }
    return ep->ops->put(ep, local, remote, len, err);
}

/* Scattered single copy through ep's transport (see the table). */
static inline uint64_t shmc__ep_copyv(struct shmc__ep *ep, int write, void *local,
                                      const struct shmc__rblock *blocks, size_t n, int *err)
{
    if (!ep->ops->copyv) {
        *err = ENOSYS;
        return 0;
    }
    return ep->ops->copyv(ep, write, local, blocks, n, err);
}

/* process_vm_readv/writev (cma.c): does it work in this process at all? */
int shmc__cma_probe(void);
/* Copies len bytes between local and remote in process pid (write: into pid), retrying
 * interrupted and partial calls. Returns the bytes copied; *err is the errno of a
 * failure. */
uint64_t shmc__cma_copy(int pid, int write, void *local, uint64_t remote, uint64_t len, int *err);
/* The same for n remote blocks, local holding their bytes back to back: up to IOV_MAX
 * blocks per system call. */
uint64_t shmc__cma_copyv(int pid, int write, void *local, const struct shmc__rblock *b, size_t n,
                         int *err);

#endif /* SHMC_TRANSPORT_H */
