/*
 * Layer p2p: point-to-point messaging between the ranks of a job.
 *
 * Owns: communicators' handle table and rank maps (comm.h, comm.c), requests
 * (request.c), matching (match.c), the outgoing queues (outq.c), rendezvous and single
 * copy (rndv.c), copies made by both sides (coop.c), delivery of matched messages
 * (deliver.c), the one switch over record kinds (inbox.c), progress and failure
 * detection (progress.c), the wait loop (wait.c), posting (post.c), its own start and end
 * (p2p.c), and the public point-to-point and communicator calls (calls.c; probes in
 * probe.c, calls on arrays of requests in sets.c).
 * May call: base, shm, transport, device. The layers above (coll, boot) reach its state
 * only through the functions below, with the struct shmc__p2p they are given.
 *
 * Files call one way within the layer too, each only files before it: request, match,
 * outq, coop, rndv, deliver, inbox, progress, wait, post, comm, p2p, calls, probe, sets.
 *
 * Single-threaded: calls into the library must not overlap (shmcomm.h). Only the arena is
 * shared between processes, through the atomics of the layers below.
 */
#ifndef SHMC_P2P_H
#define SHMC_P2P_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "base/clock.h"
#include "base/list.h"
#include "p2p/comm.h"
#include "p2p/match.h"
#include "p2p/request.h"
#include "shm/arena.h"
#include "shm/job.h"
#include "transport/transport.h"

/* The sends that offered a copy descriptor, and our table's bookkeeping (coop.c). */
struct shmc__coop {
    struct shmc__link sends;    /* as SHMC_Q_COOP, until complete */
    uint64_t free;              /* entries not in use (bit i: entry i) */
    uint64_t held;              /* sends complete, receiver not yet done with the entry */
    uint64_t offers;            /* descriptors offered so far (shmc_stat) */
    uint64_t accepted;          /* as receiver: offers taken, the sender copying too */
    size_t kept_max;            /* a kept receive of at most this many bytes copies alone */
    int peer[SHMC_XDESC_COUNT]; /* the receiver of each entry */
};

/* The collective call this rank is in, set by the collectives for its length
 * (incall.h): published when the rank blocks, so that members blocked too can tell
 * whether they wait in the same call. */
struct shmc__coll; /* (coll/coll.h: opaque here) */
struct shmc__incall {
    struct shmc__comm *c; /* NULL: in none */
    uint32_t ctx;         /* the context of the calls seq numbers (never 0: a collective's) */
    uint32_t seq;         /* its number among those calls */
    int round;            /* waiting in a one-step round (coll/onestep.c) */
    uint64_t w[2];        /* its words (base/callword.h) */
    /* Optional, the collective layer's: a look of its own for members whose same call went
     * another way, run where the members' calls are compared (shmc__incall_scan) with this
     * record, which holds all it reads (the call may have ended and its memory gone while
     * a wait for it and others goes on); 1 where it found one (it has said so and quit the
     * communicator's collectives). */
    int (*crossed)(const struct shmc__incall *ic);
    struct shmc__coll *coll; /* ... the collective layer's state (opaque here) */
    uint64_t stamp;          /* ... the call's stamp in the slots */
    int sched;               /* ... and whether it ran as a schedule */
};

/* A peer: its endpoint, and what waits to be written to it, in order. */
struct shmc__peer {
    struct shmc__ep ep;
    struct shmc__link matchq;  /* EAGER/RTS sends waiting for ring space (outq.c) */
    struct shmc__link streams; /* sends streaming DATA records (rndv.c) */
    struct shmc__link ctrl;    /* control records waiting for ring space (outq.c) */
    int out_busy; /* 1 while any of the three is non-empty (or was, until the next push) */
    uint64_t quit_seen[SHMC_QUIT_WORDS]; /* its quit words as last read (quit.c) */
    uint64_t unknown_cookie; /* the last unknown request its records named, plus 1 (0: none;
                              * rndv.c) */
};

enum { SHMC_P2P_OFF = 0, SHMC_P2P_READY = 1, SHMC_P2P_FINALIZING = 2 };

/* What shmc__p2p_init needs from the configuration. */
struct shmc__p2p_params {
    size_t eager_limit;
    int single_copy;
    size_t single_copy_min;
    unsigned spin, yield, spin_elsewhere_us, spin_more_us; /* ~0u: automatic */
    unsigned hang_timeout_s;
    int supervised; /* a launcher watches the ranks and ends the job */
    int maker;      /* the CPUs' maker (base/machine.h): the automatic protocol sizes */
    int far;        /* the job's first two CPUs ran far apart as it began (likewise) */
    unsigned sc_cost_pct; /* a single copy's cost against a plain copy's (likewise; 0 unknown) */
};

struct shmc__p2p {
    int phase; /* SHMC_P2P_* */
    int rank, size;
    int supervised;
    struct shmc__arena *arena;
    struct shmc__rank_cb *me;
    struct shmc__tp tp;
    struct shmc__peer *peers; /* [size]; peers[rank] unused */

    /* Settings, fixed at init but single_copy (shmc_config_set). */
    size_t eager_limit; /* effective: min(config, what one record can carry) */
    size_t coop_min;    /* a single copy from this size is copied by both sides (coop.h) */
    size_t chunk;       /* payload bytes of one DATA record */
    int single_copy;
    int far; /* the job's first two CPUs ran far apart as it began (params) */
    size_t single_copy_min;
    unsigned spin, yield;       /* wait policy (shm/doorbell.h) */
    uint64_t spin_elsewhere_ns; /* spin this long, not yield, while peers run elsewhere */
    uint64_t spin_more_max_ns;  /* spin longer after slow wake-ups, up to this (wait.c) */
    uint64_t spin_more_ns;      /* how much longer, now (wait.c) */
    unsigned hang_timeout_s;    /* SHMC_TIMEOUT */

    /* What this process knows of the job. */
    uint32_t epoch_seen; /* hdr->epoch when we last refreshed peer states */
    int recheck;         /* re-examine pending requests (a peer broke) */
    int ngone;           /* peers known to be gone or broken */
    int arena_corrupt;   /* our own control block was overwritten: every peer is broken */
    /* Collective contexts this rank quit, the last SHMC_QUIT_WORDS (quit.c), their
     * errors, how many it quit in all, and how many quits of peers it has seen. */
    uint32_t quit_ctx[SHMC_QUIT_WORDS];
    int quit_err[SHMC_QUIT_WORDS];
    unsigned nquit, quits_seen;
    uint64_t slices_slept;      /* sleeps that ran a full slice, nobody waking us (shmc_stat) */
    unsigned test_looks;        /* tests that found requests pending (shmc__test_look) */
    uint64_t tests_probed_ns;   /* when such a test last looked for unannounced deaths */
    struct shmc__incall incall; /* the collective call this rank is in (incall.h) */
    /* The thread rule (SHMC_GUARDED, below): in_call is 1 while a thread that entered by
     * compare-and-swap is inside a public call; owner is the one thread that enters
     * without one (0: none chosen yet; SHMC__OWNER_NONE: none ever again), and owner_busy
     * is 1 while it is inside. owner_ok: this process can revoke an owner (membarrier). */
    _Atomic int in_call;
    _Atomic int owner_busy;
    _Atomic uintptr_t owner;
    int owner_ok;
    int out_busy_count; /* peers with out_busy set */
    /* A shmc_irecv_now found no message to take since the last progress pass: the next
     * ones post without looking. A look at a mailbox the peer is writing moves the line
     * both ways, and a run of receives posted before the sends (a halo exchange,
     * osu_bibw) would look once per receive; the pass that a wait or test makes looks
     * for them all. */
    int now_dry;
    int pumped;         /* some endpoint's transport moves records in progress */

    struct shmc__reqs reqs;
    struct shmc__match match;
    struct shmc__comms comms;
    struct shmc__coop coop;
    struct shmc__link cma_active; /* receives copying with single copy (rndv.c) */
    struct shmc__link dev_active; /* receives copying from a peer's device buffer (rndv.c) */
    struct shmc__link driven;     /* driven requests not yet ended (progress.c) */
    int driving;                  /* progress is inside a driven request's poll */
    uint8_t *bounce;              /* single copy into device memory lands here (rndv.c) */
};

/* The process's point-to-point state: made by shmc_init (boot/), reached by the public
 * calls of calls.c, and passed to everything else. */
extern struct shmc__p2p shmc__p2p;

/* ---- for the layers above ---------------------------------------------------------- */

/* p2p.c: sets up world rank `rank` of `size` on arena a: connects every peer. Then
 * shmc__p2p_start marks this rank running and waits until every rank has attached. */
int shmc__p2p_init(struct shmc__p2p *p, struct shmc__arena *a, int rank, int size,
                   const struct shmc__p2p_params *params);
int shmc__p2p_start(struct shmc__p2p *p, unsigned attach_timeout_s);
/* Delivers what this process still owes its peers, marks it finalized, releases all. */
int shmc__p2p_finalize(struct shmc__p2p *p);
/* Releases all after a failed init, marking this rank dead. */
void shmc__p2p_fail(struct shmc__p2p *p);

/* SHMC_SINGLE_COPY set at run time (shmc_config_set): offer and use single copy, or not. */
static inline void shmc__p2p_set_single_copy(struct shmc__p2p *p, int on)
{
    p->single_copy = on;
}
/* calls.c: this layer's counters for shmc_stat; 1 if name is one of them (*v set). */
int shmc__p2p_stat(const struct shmc__p2p *p, const char *name, uint64_t *v);

/* progress.c: the cheap per-call look at the job, on every public call: abort, or peers
 * that changed state. Relaxed loads: both words are triggers; shmc__check_job takes the
 * acquire (A4) when they moved. */
int shmc__check_job(struct shmc__p2p *p);
/* progress.c: a test's look (shmc_test, shmc_testall, shmc_testany): progress and the
 * job's state, and about once a sleep slice (SHMC_SLEEP_SLICE_MS) a probe for peers that
 * died unannounced, as a sleeping wait makes after each slice: a program that polls with
 * tests never sleeps in the library, and without a launcher (shmc_init_join) nobody else
 * announces a death. Most calls read no clock. */
void shmc__test_look(struct shmc__p2p *p);
static inline int shmc__job_ok(struct shmc__p2p *p)
{
    const struct shmc__arena_hdr *h = p->arena->hdr;
    if (shmc__load_relaxed32(&h->abort) || shmc__load_relaxed32(&h->epoch) != p->epoch_seen)
        return shmc__check_job(p) == SHMC_ERR_ABORTED ? SHMC_ERR_ABORTED : SHMC_OK;
    return SHMC_OK;
}
/* progress.c: this rank quits comm c's collectives with err (quit.c has the protocol):
 * tells the members, fails the requests on them that no peer works on, declines waiting
 * offers. The caller then waits for its other requests on them to end. Nothing for
 * SHMC_ERR_ABORTED: the whole job is ending, and every wait ends with it. */
void shmc__p2p_quit(struct shmc__p2p *p, struct shmc__comm *c, int err);
/* progress.c: the collective in which this rank quit c's collectives returns: every
 * request it had on them has ended. Tells the members (shmc__job_quit_settle), so that
 * one whose offer this rank never answered stops waiting for an answer. Nothing if this
 * rank did not quit them, or told them already. */
void shmc__p2p_quit_settle(struct shmc__p2p *p, struct shmc__comm *c);
/* Takes a request that will not complete by itself off whatever it waits in, and
 * completes it with err (a failed collective's messages; a receive whose send failed). */
void shmc__p2p_cancel(struct shmc__p2p *p, struct shmc__request *r, int err);
/* Serialised use (shmcomm.h, Threads): one call into the library at a time per process.
 * Every public entry point but shmc_init and shmc_abort runs inside SHMC_GUARDED, which
 * fails a call that finds another thread inside with SHMC_ERR_THREAD before it touches
 * anything. A plain load-then-store was not enough: two threads sending as fast as they
 * could both got in often enough to corrupt a mailbox within a second (tests/robustness/
 * check_threads.c).
 *
 * A compare-and-swap on every call was enough, but a locked instruction waits for the
 * call's earlier stores to reach the peer's lines (the last message's record), which
 * showed in the small-message rate. Most programs call from one thread, so that thread
 * enters without one, in a handshake made asymmetric as the doorbell's is
 * (shm/doorbell.h):
 *
 *   owner (the first thread to call)          any other thread
 *   owner_busy = 1                            CAS in_call 0 -> 1, else overlap
 *   compiler barrier   <- no CPU fence        if there is an owner:
 *   if (in_call || owner != me)                   membarrier(PRIVATE_EXPEDITED)
 *       owner_busy = 0, take the other path       if (owner_busy) in_call = 0, overlap
 *                                                 owner = NONE (all CAS from now on)
 *                                             (no owner yet: the caller becomes it)
 *
 * The membarrier supplies the owner's missing store->load fence: either the owner's
 * store comes before the barrier and the other thread sees it, or its loads come after
 * and see in_call. Only one thread is ever the owner until shmc_finalize, so owner_busy
 * has one writer. Without membarrier nobody becomes the owner. bench/path_cost.sh counts
 * the instructions; leaving is a plain release store either way. */
#define SHMC__OWNER_NONE ((uintptr_t)1)
enum { SHMC__ENTERED_OWNER, SHMC__ENTERED_CAS }; /* how a call got in (>= 0; errors < 0) */

/* The calling thread's identity: its thread pointer, which no two live threads share (one
 * register read on x86-64 and AArch64, written out because compilers disagree on which
 * targets have __builtin_thread_pointer; pthread_self returns the same elsewhere). */
static inline uintptr_t shmc__thread_self(void)
{
    uintptr_t tp;
#if defined(__x86_64__) && defined(__GNUC__)
    __asm__("mov %%fs:0, %0" : "=r"(tp));
#elif defined(__aarch64__) && defined(__GNUC__)
    __asm__("mrs %0, tpidr_el0" : "=r"(tp));
#else
    tp = (uintptr_t)pthread_self();
#endif
    return tp;
}

/* When the wait of this thread's current call gives up with SHMC_ERR_TIMEOUT (by
 * shmc__now_ns), or 0 for never. The calls that honour a communicator's time-out arm it
 * (shmc__deadline_arm) where their waiting starts and set it back to 0 where it ends
 * (shmc__deadline_disarm: a collective's enter and leave, coll/callword.h; shmc_wait,
 * shmc_waitall and shmc_comm_create_members), so no other call meets it and none pays for
 * it. The first wait that passes it returns SHMC_ERR_TIMEOUT and disarms it, so that what
 * the call then waits for to end cleanly (requests a peer is working on) is waited for in
 * full. */
extern _Thread_local uint64_t shmc__deadline;

/* Arms it for a call on a communicator of time-out timeout_ms, and disarm, given the same
 * value, sets it back. Without a time-out (0) both leave it alone: it is 0 outside the
 * calls that arm it, and every access to thread-local storage from a shared library, as
 * programs and bindings use this one, is a call (__tls_get_addr: docs/design.md, Threads),
 * which the calls without a time-out, nearly all, need not pay. */
static inline void shmc__deadline_arm(uint32_t timeout_ms)
{
    if (timeout_ms)
        shmc__deadline = shmc__now_ns() + (uint64_t)timeout_ms * 1000000u;
}
static inline void shmc__deadline_disarm(uint32_t timeout_ms)
{
    if (timeout_ms)
        shmc__deadline = 0;
}
int shmc__call_overlap(void);
/* The other path of the handshake above (guard.c): SHMC__ENTERED_CAS or SHMC_ERR_THREAD. */
int shmc__call_claim(struct shmc__p2p *p, uintptr_t me);
static inline int shmc__call_enter(struct shmc__p2p *p)
{
    uintptr_t me = shmc__thread_self();
    if (atomic_load_explicit(&p->owner, memory_order_relaxed) == me) {
        /* Its own flag: set, this thread is inside already (a call from a user's
         * reduction operator or a signal handler), which is an overlap too. */
        if (atomic_load_explicit(&p->owner_busy, memory_order_relaxed))
            return shmc__call_overlap();
        atomic_store_explicit(&p->owner_busy, 1, memory_order_relaxed);
        /* The store above and the loads below in program order on the CPU too: a thread
         * that claims runs membarrier between its CAS and its look at owner_busy. */
        atomic_signal_fence(memory_order_seq_cst);
        /* Acquire pairs with the release in shmc__call_leave of a call that entered by
         * CAS: reading its 0, this thread sees the owner it set (NONE after a revoke). */
        if (!atomic_load_explicit(&p->in_call, memory_order_acquire) &&
            atomic_load_explicit(&p->owner, memory_order_relaxed) == me)
            return SHMC__ENTERED_OWNER;
        atomic_store_explicit(&p->owner_busy, 0, memory_order_relaxed);
    }
    return shmc__call_claim(p, me);
}
static inline int shmc__call_leave(struct shmc__p2p *p, int entered, int rc)
{
    /* Release: a call's effects are complete before the next thread may enter (it
     * acquires in_call by CAS, or owner_busy after its membarrier). shmc_finalize clears
     * the whole state under us: 0 is fine. */
    if (entered == SHMC__ENTERED_OWNER)
        atomic_store_explicit(&p->owner_busy, 0, memory_order_release);
    else
        atomic_store_explicit(&p->in_call, 0, memory_order_release);
    return rc;
}
/* SHMC_THREAD_MULTIPLE (shmcomm.h): set by shmc_init_thread, cleared by shmc_finalize.
 * Then every call holds shmc__big instead of claiming in_call, and a waiting call lets
 * go of it while it pauses (wait.c). Process-wide, outside struct shmc__p2p, which
 * shmc_finalize clears while holding the lock. */
extern int shmc__multi;
extern pthread_mutex_t shmc__big;

/* Entering and leaving a public call: under SHMC_THREAD_MULTIPLE (m) the call takes extra
 * (the collective lock, or NULL) and then shmc__big; otherwise it enters g (NULL before
 * shmc_init). shmc__guard_in returns how the call got in (SHMC__ENTERED_*, passed to
 * shmc__guard_out) or an error. */
static inline int shmc__guard_in(struct shmc__p2p *g, int m, pthread_mutex_t *extra)
{
    if (m) {
        if (extra)
            pthread_mutex_lock(extra);
        pthread_mutex_lock(&shmc__big);
        return SHMC__ENTERED_CAS;
    }
    return g ? shmc__call_enter(g) : SHMC__ENTERED_CAS;
}
static inline int shmc__guard_out(struct shmc__p2p *g, int m, pthread_mutex_t *extra, int entered,
                                  int rc)
{
    if (m) {
        pthread_mutex_unlock(&shmc__big);
        if (extra)
            pthread_mutex_unlock(extra);
        return rc;
    }
    return g ? shmc__call_leave(g, entered, rc) : rc;
}

/* The body of a public entry point. `call` appears once, so that the compiler inlines it
 * as before the guard existed. */
#define SHMC_GUARDED_WITH(p, extra, call)                                                          \
    do {                                                                                           \
        struct shmc__p2p *g_ = (p);                                                                \
        int m_ = shmc__multi;                                                                      \
        int e_ = shmc__guard_in(g_, m_, (extra));                                                  \
        if (e_ < 0)                                                                                \
            return e_;                                                                             \
        return shmc__guard_out(g_, m_, (extra), e_, (call));                                       \
    } while (0)
#define SHMC_GUARDED(p, call) SHMC_GUARDED_WITH(p, NULL, call)

/* Around a pause in a wait (a spin, a yield, a sleep): other threads may call meanwhile.
 * multi is shmc__multi as the wait read it once (a global load per spin costs on the
 * serialised path). */
static inline void shmc__pause_begin(int multi)
{
    if (multi)
        pthread_mutex_unlock(&shmc__big);
}
static inline void shmc__pause_end(int multi)
{
    if (multi)
        pthread_mutex_lock(&shmc__big);
}

/* Marks world rank w's endpoint broken, once, logging what was found (`what`, or NULL if
 * the caller said it): shared memory with it holds what no rank writes. Its requests then fail with
 * SHMC_ERR_CORRUPT (progress.c) and nothing more is read from its mailboxes. */
static inline void shmc__peer_broken(struct shmc__p2p *p, int w, const char *what)
{
    if (!shmc__ep_break(&p->peers[w].ep, what))
        return;
    p->ngone++; /* the collectives' waits look at lost peers only when this is non-zero */
    p->recheck = 1;
    shmc__job_cut(p->arena, (unsigned)p->rank, (unsigned)w); /* so it stops waiting for us */
}

/* Has world rank w left the job, or broken its mailbox? The error that means, or SHMC_OK. */
static inline int shmc__peer_lost(const struct shmc__p2p *p, int w)
{
    const struct shmc__ep *ep = &p->peers[w].ep;
    return ep->broken ? SHMC_ERR_CORRUPT : ep->gone ? SHMC_ERR_PEER_DEAD : SHMC_OK;
}

/* Has any peer left the job? (A cheap test before looking at one.) */
static inline int shmc__peers_any_gone(const struct shmc__p2p *p)
{
    return p->ngone != 0;
}
/* The endpoint to world rank w, for the transport's single copy (transport.h). */
static inline struct shmc__ep *shmc__peer_ep(struct shmc__p2p *p, int w)
{
    return &p->peers[w].ep;
}
/* May this process use single copy at all (SHMC_SINGLE_COPY, and the kernel allows it)? */
static inline int shmc__p2p_single_copy(const struct shmc__p2p *p)
{
    return p->single_copy && p->tp.cma_self;
}
/* Does a rendezvous of `bytes` to world rank w offer its receiver a single copy (rndv.c):
 * single copy on, not refused by w before, and the message at least SHMC_SINGLE_COPY_MIN? */
static inline int shmc__p2p_offers_single_copy(const struct shmc__p2p *p, int w, size_t bytes)
{
    return p->single_copy && p->peers[w].ep.sc != SHMC_SC_REFUSED && bytes >= p->single_copy_min;
}
/* Wakes world rank w if it may be asleep, after publishing what it waits for. */
static inline void shmc__peer_notify(struct shmc__p2p *p, int w)
{
    shmc__ep_notify(&p->peers[w].ep);
}

/* post.c: a send or receive on context ctx of communicator c, from and to world ranks.
 * dev: the buffer is device memory (1) or host memory (0), as the caller knows, or -1 to
 * ask device.h. */
int shmc__post_send(struct shmc__p2p *p, const void *buf, size_t bytes, size_t elsize, int wdst,
                    int tag, uint32_t ctx, const struct shmc__comm *c, int dev,
                    struct shmc__request **out);
int shmc__post_recv(struct shmc__p2p *p, void *buf, size_t bytes, size_t elsize, int wsrc, int tag,
                    uint32_t ctx, const struct shmc__comm *c, int dev, struct shmc__request **out);
/* A receive whose data the receiver reads right after it lands (a reduction's input):
 * up to the coop's kept_max the sender does not help copy it (coop.c says why). */
int shmc__post_recv_kept(struct shmc__p2p *p, void *buf, size_t bytes, size_t elsize, int wsrc,
                         int tag, uint32_t ctx, const struct shmc__comm *c, int dev,
                         struct shmc__request **out);
/* A synchronous send: by rendezvous whatever its size (or, to oneself, waiting for the
 * receive), so that it completes only once a receive has matched it. */
int shmc__post_ssend(struct shmc__p2p *p, const void *buf, size_t bytes, size_t elsize, int wdst,
                     int tag, uint32_t ctx, const struct shmc__comm *c, struct shmc__request **out);
/* A receive of message u, which a matched probe claimed (match.h): u is delivered into
 * the new request and freed; on failure (SHMC_ERR_NOMEM) it stays claimed. */
int shmc__post_claimed(struct shmc__p2p *p, void *buf, size_t bytes, size_t elsize,
                       struct shmc__unexp *u, const struct shmc__comm *c, int dev,
                       struct shmc__request **out);
/* A driven request on communicator c (request.h): active until ops->poll(arg, &err),
 * which progress calls on every pass, returns 1; it then completes with err. poll may post
 * sends and receives and test them, and never waits. A wait on the request, or on
 * anything else, moves it along; when oversubscribed it yields the CPU at once unless
 * ops->far says the ranks it waits for run elsewhere, as a blocking call's wait for them
 * would spin. SHMC_ERR_NOMEM. A request marked detached (the caller keeps no handle) is
 * freed by progress once its poll has ended. */
int shmc__post_driven(struct shmc__p2p *p, const struct shmc__driven_ops *ops, void *arg,
                      const struct shmc__comm *c, int tag, struct shmc__request **out);
/* A driven request's context: the group's unused one, which no rule for collective
 * contexts touches: only its poll ends it (progress.c). */
static inline uint32_t shmc__driven_ctx(const struct shmc__comm *c)
{
    return c->ctx + SHMC_CTX_GROUP - 1;
}
/* Makes sure that the next shmc__post_driven on c cannot fail (for a caller that cannot
 * back out once it has begun): SHMC_OK or SHMC_ERR_NOMEM. */
static inline int shmc__post_driven_ready(struct shmc__p2p *p, const struct shmc__comm *c)
{
    int rc = shmc__req_ready(&p->reqs, SHMC_CTX_IS_COLL(shmc__driven_ctx(c)));
    return rc == SHMC_OK ? rc : SHMC_ERR_NOMEM;
}
/* A driven request that cannot move before another has ended (the world's nonblocking
 * calls queue behind the first, coll/nbworld.c) is parked: progress does not poll it
 * until its layer resumes it. Thousands may queue (the schedules' gates), and progress
 * polled every one of them on every pass. A wait on a parked request moves the others
 * along until it is resumed and ends. */
void shmc__driven_park(struct shmc__request *r);
void shmc__driven_resume(struct shmc__p2p *p, struct shmc__request *r);
/* A pending driven request handed to another poll and argument (its owner's work moved
 * into another record); it stays where it is in the driven queue. */
void shmc__driven_retarget(struct shmc__request *r, const struct shmc__driven_ops *ops, void *arg);
/* Does every pending request of reqs (NULL entries skipped) wait for ranks that run on
 * other CPUs than cpu (1 + CPU), and run now? A driven one asks its hint. */
int shmc__reqs_far(const struct shmc__p2p *p, size_t n, struct shmc__request *const *reqs,
                   uint32_t cpu);
/* A send to, or receive from, SHMC_PROC_NULL: a request complete at once, moving nothing. */
int shmc__post_null(struct shmc__p2p *p, int send, size_t elsize, int tag,
                    const struct shmc__comm *c, struct shmc__request **out);

/* wait.c: waits for every non-NULL request of reqs. Returns SHMC_OK, or
 * SHMC_ERR_ABORTED (the requests have failed by then). */
int shmc__wait_requests(struct shmc__p2p *p, size_t n, struct shmc__request *const *reqs);
/* Waits until one non-NULL request of reqs is no longer pending (at once if one is not,
 * or if none is). Returns SHMC_OK, SHMC_ERR_ABORTED or SHMC_ERR_TIMEOUT. */
int shmc__wait_any(struct shmc__p2p *p, size_t n, struct shmc__request *const *reqs);
/* The same for a collective's requests, but returns as soon as one has failed: SHMC_OK
 * once all completed without error, else the first error seen (or SHMC_ERR_ABORTED); the
 * others may still be pending then. A receive that got another size than it asked for,
 * or (want_tag not SHMC_ANY) another tag, counts as failed with SHMC_ERR_MISMATCH: the
 * message came from another call. */
int shmc__wait_requests_exact(struct shmc__p2p *p, size_t n, struct shmc__request *const *reqs,
                              int want_tag);
/* Did completed receive r get a message of another call: another size than it asked for
 * (or more), or (want_tag not SHMC_ANY) another tag? 0 for anything else. */
int shmc__req_other_call(const struct shmc__request *r, int want_tag);
/* shmc__finish of a request still pending: waits for it first (wait.c). */
int shmc__finish_wait(struct shmc__p2p *p, struct shmc__request *r, shmc_status *status);
/* shmc__finish of a request no longer pending: its status filled, r freed, its result. */
static inline int shmc__finish_ended(struct shmc__p2p *p, struct shmc__request *r,
                                     shmc_status *status)
{
    shmc__req_fill_status(r, status);
    int err = r->err;
    shmc__req_free(&p->reqs, r);
    return err;
}
/* Waits for r, fills status, frees r; returns its result. Inline: one that has ended
 * already (most of a waitall's, every one a wait finds complete) costs no call. */
static inline int shmc__finish(struct shmc__p2p *p, struct shmc__request *r, shmc_status *status)
{
    return r->state == SHMC_RS_ACTIVE ? shmc__finish_wait(p, r, status)
                                      : shmc__finish_ended(p, r, status);
}
/* The extra spin of the waits after one that blocked (wait.c): cur, the extra spin now;
 * slept, whether that wait slept; waited_ns, how long it waited past its spin budget. */
uint64_t shmc__spin_more_next(uint64_t cur, int slept, uint64_t waited_ns, uint64_t max_ns);
/* Waits until done(arg) holds, making progress, as blocked on `op` on the communicator whose
 * context group holds ctx for hang reports (a blocking collective's shared-memory step:
 * SHMC_BLK_COLL, shm/arena.h).
 * elsewhere(arg, cpu), if not NULL, says whether every rank done() still waits for last
 * ran on another CPU than `cpu` (see shmc__runs_elsewhere in shm/doorbell.h). */
int shmc__wait_pred(struct shmc__p2p *p, int (*done)(void *), int (*elsewhere)(void *, uint32_t),
                    void *arg, unsigned op, uint32_t ctx);

/* comm.c: the communicator table. */
int shmc__comms_init(struct shmc__p2p *p, uint32_t gen0);
void shmc__comms_release(struct shmc__p2p *p);
/* A communicator not yet in use, with room for maps of up to max_members members:
 * memory first, so that making it cannot fail once the members agreed. NULL: no memory. */
struct shmc__comm *shmc__comm_reserve(struct shmc__p2p *p, int max_members);
void shmc__comm_unreserve(struct shmc__p2p *p, struct shmc__comm *c);
/* Makes reserved c the communicator of m members whose rank i is parent rank
 * members[i], this process being rank me, with the members' agreed uid; returns its
 * handle. */
shmc_comm *shmc__comm_install(struct shmc__p2p *p, struct shmc__comm *c,
                              const struct shmc__comm *parent, const int *members, int m, int me,
                              uint32_t uid);
/* Frees c (not the world): SHMC_ERR_STATE while a request on it is pending. Unreceived
 * eager messages on it are dropped. */
int shmc__comm_remove(struct shmc__p2p *p, struct shmc__comm *c);
/* The uid this process proposes for a communicator it makes (the members agree on the
 * largest proposal): never one it proposed or saw before, and never one another process
 * proposes, since each proposes only uids u with (u - 2) % size == its world rank. So the
 * largest proposal among a making's members names that making alone, even when a process
 * takes part in several makings at once from threads, in whatever order the others do. */
static inline uint32_t shmc__comm_uid_propose(struct shmc__p2p *p)
{
    uint32_t n = (uint32_t)p->size, v = p->comms.next_uid;
    v += ((uint32_t)p->rank + n - (v - 2) % n) % n;
    p->comms.next_uid = v + 1;
    return v;
}
/* Notes a uid the members of a making agreed on. */
static inline void shmc__comm_uid_seen(struct shmc__p2p *p, uint32_t uid)
{
    if (uid >= p->comms.next_uid)
        p->comms.next_uid = uid + 1;
}

#endif /* SHMC_P2P_H */
