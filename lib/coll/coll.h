/*
 * Layer coll: the collectives.
 *
 * Owns: the building blocks every algorithm is written with (cx.h: one call's context;
 * xfer.c: messages on a communicator's collective context; slot.c: the shared staging
 * slots; wsync.c: the world's one-step rounds; onestep.c: small exchanges among all
 * members in one step, which every agreement uses; scratch.c: borrowed buffers, agreed
 * before data moves); one file per algorithm family (barrier.c, bcast.c, reduce.c,
 * gather.c, reduce_scatter.c, alltoall.c, direct.c, devdirect.c), each exporting named
 * functions and one const descriptor per algorithm (algos.h); the choice of algorithm and
 * the dispatch (dispatch.c); the SHMC_CHECK agreement on the call (check.c); split and
 * create_group (split.c); the public collective calls (collectives.c); its own state (coll.c).
 * May call: base, shm, transport, device, p2p.
 *
 * Every algorithm is collective: all members of the communicator call it with the same
 * arguments (count, dtype, op, root) and the same algorithm, which they all derive from
 * those arguments and the same configuration. Their messages travel on the communicator's
 * collective context (ctx + 1), so they never match user traffic, and between one pair on
 * one communicator they arrive in the order they were sent, so successive collectives
 * never mix. Like the rest of the library, single-threaded.
 */
#ifndef SHMC_COLL_H
#define SHMC_COLL_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "base/list.h"
#include "coll/rules.h"
#include "p2p/p2p.h"
#include "shm/arena.h"

/* Scratch buffers the collectives borrow (scratch.c); the last one holds the input of an
 * in-place all-to-all. */
#define SHMC_NSCRATCH 4
#define SHMC_SCRATCH_INPLACE 3

/* How many sizes of each collective the world keeps the nonblocking way of (lane_last
 * below): two, for programs that alternate two calls of one collective (a scalar and a
 * vector, a framework's buckets of two sizes), which missed at every call where one size
 * was kept (the commit that made it two has the figures). */
#define SHMC_LANE_LAST 2

/* The collectives' state of one communicator, kept in the space p2p reserves for it in
 * struct shmc__comm (ext): zero when the communicator is made. */
struct shmc__coll_comm {
    uint32_t round;            /* shared-memory collective rounds so far (slot.c) */
    uint32_t round_wraps;      /* ... and how often that count went round 2^32 */
    uint32_t calls;            /* collective calls so far (callword.h) */
    uint32_t nbc_calls;        /* nonblocking collective calls so far (sched.c) */
    uint32_t persistent_calls; /* persistent collectives made so far (sched.c) */
    uint32_t blk_calls;        /* blocking calls run by messages so far (sched.c) */
    /* Its blocking collectives on host memory run as schedules (entry.h): a member could
     * call from several threads at once when it was made (split.c), so collectives on
     * other communicators may run beside them, in any order on each member. */
    uint8_t sched;
    /* Its barrier's algorithm by the rules (SHMC_A_*) plus one (dispatch.c), once known,
     * else 0: a barrier carries nothing the choice could depend on. */
    uint8_t barrier;
    /* The world: the collectives (a bit by SHMC_C_*) whose nonblocking calls were found to
     * take the lane at no count while no algorithm is forced (nbworld.h), so that their
     * starts skip the rules' look. */
    uint16_t lane_none;
    /* Its slot entry (shm/arena.h), agreed at its making (nbcomm.c): the index plus one, 0
     * without one. */
    uint8_t entry;
    size_t scratch_mark[SHMC_NSCRATCH];  /* scratch the members agreed to hold (scratch.c) */
    size_t dscratch_mark[SHMC_NSCRATCH]; /* the same, of device scratch */
    const struct shmc__steps *steps;     /* the dispatch rules for it (dispatch.c), once known */
    /* Its nonblocking calls through its slot entry, in the order they were made
     * (nbcomm.c); set up with the entry. */
    struct shmc__link nbq;
};
static_assert(SHMC_C_COUNT <= 16, "a collective's bit fits lane_none");
static_assert(sizeof(struct shmc__coll_comm) <= sizeof(((struct shmc__comm *)0)->ext),
              "the collectives' per-communicator state fits the space p2p keeps for it");

static inline struct shmc__coll_comm *shmc__coll_comm(struct shmc__comm *c)
{
    return (struct shmc__coll_comm *)(void *)c->ext;
}

/* One lane of the world's one-step rounds and staging buffers (shm/arena.h): the blocking
 * collectives take one, the nonblocking ones (nbworld.c) the other, so that each kind
 * numbers its rounds in the order of its own calls. Every member makes each kind's calls
 * in one order, but may interleave the two kinds otherwise than the others: Open MPI and
 * MPICH number them apart too, and programs rely on it (mpi4py's tests: one rank starts
 * an MPIX_Comm_iagree before a barrier that the others enter first). */
enum { SHMC_LANE_BLOCKING = 0, SHMC_LANE_NB = 1 };
struct shmc__lane {
    unsigned id;               /* SHMC_LANE_* */
    struct shmc__wsync *wsync; /* this rank's block (wsync.c) */
    /* Every world rank's block of the lane, world rank q's at blocks + q * stride: the
     * arena's layout (shm/arena.h, shmc__arena_wsync) worked out once, where each look at
     * another rank's word or input worked it out again (shmc__wsync_of). */
    uint8_t *blocks;
    uint64_t stride;
    uint64_t round;            /* the rounds this rank has entered */
    /* The nonblocking lane: the number (nbworld.h, shmc__nbw_lane_call) of the call whose rounds
     * move now, which its rounds' looks carry (wsync.h); 0: none. */
    uint64_t moving;
    /* The round whose input shmc__wsync_mine placed past the word's line, and its shift,
     * for its entry to store beside the round's word (coll/wsync.h); 0: none. And 1 +
     * the shift last stored in each part, 0 where unknown (an input in the word's line
     * has been there since). */
    uint64_t shift_round;
    unsigned shift;
    unsigned shift_stored[2];
    uint8_t *shift_seen; /* each world rank's last shift, as read (shmc__coll's, below) */
    /* The round whose input shmc__wsync_mine placed from the line after the word's, and
     * the bytes of each other rank's input this rank takes there (from ahead_off on), for
     * its look to ask for their lines ahead (coll/wsync.h); 0: none. */
    uint64_t ahead_round;
    size_t ahead_off, ahead_len;
    uint64_t stage_seq;        /* chunks of the staged all-reduce so far: their buffer (stage.c) */
    int stage_mine;            /* our staging buffers: 0 not reserved yet, 1 reserved, -1 refused */
    int stage;                 /* every rank's reserved: 0 not known yet, 1 yes, -1 no (stage.c) */
    void *direct_mem;          /* the direct all-reduce's memory, kept (direct.c) */
    size_t direct_cap;
};

/* One of this rank's collective slots (slot.c): the blocking calls' (any communicator), or
 * the world's nonblocking calls' (nbslot.c), or a slot entry's. Per half of its data (the
 * blocking lane uses the first alone where the job has a CPU for each rank: slot.c): the
 * stamp of the last publication there, and the world ranks that may still owe reads of it. */
struct shmc__slot_own {
    struct shmc__slot *slot;
    uint64_t readers[2][SHMC_MAX_RANKS / 64];
    uint64_t stamp[2];
    uint64_t last;  /* the stamp of our last publication, in whichever part */
    /* The blocking lane's: the communicator's round count, wraps included, at each part's
     * last publication (slot.c: its age, which the stamp's 32 bits cannot tell). */
    uint64_t at[2];
    uint32_t round; /* the nonblocking lane's publications so far (its stamps' low half) */
};

/* The process's collectives. */
struct shmc__coll {
    struct shmc__p2p *p2p;
    struct shmc__arena *arena;
    int rank, size;             /* in the world */
    uint8_t algo[SHMC_C_COUNT]; /* SHMC_ALGO_<NAME>: forced algorithm, or SHMC_A_AUTO */
    struct shmc__rules rules;   /* which algorithm a host call takes otherwise (rules.h) */
    /* The rules for each communicator size, world or not: [world][n], made when first
     * asked for (dispatch.c), then unchanged until shmc_finalize. */
    struct shmc__steps **steps;
    int shared_cpus; /* the job has more ranks than CPUs (every rank finds the same) */
    int far_machine; /* its first two CPUs ran far apart when the job began (likewise) */
    int maker;       /* who made the CPUs (SHMC_MAKER_*: the same on every rank) */
    unsigned family; /* their family (base/machine.h; likewise) */
    int check;       /* SHMC_CHECK: members agree on each call first */
    int overlap;     /* SHMC_COLL_OVERLAP */

    /* This rank's collective slots (slot.c), one per lane (shm/arena.h). */
    struct shmc__slot_own own[SHMC_LANES];
    /* Its slot entries (shm/arena.h, nbcomm.c): each one's slot, and the uid of the
     * communicator that took it last (0: none yet); whether they are reserved (0: not
     * yet, 1: yes, -1: refused, so never offered). */
    struct shmc__slot_own entry_own[SHMC_SLOT_ENTRIES];
    uint32_t entry_uid[SHMC_SLOT_ENTRIES];
    int entries;
    /* The entries offered by makings in flight (several threads may make communicators
     * at once): never offered twice. And the calls through entries in flight, on every
     * communicator: what finalize frees, p2p having freed the communicators (and their
     * queues' heads) first. */
    uint32_t entry_offered;
    struct shmc__link entry_live;

    /* The world's lanes of rounds and staging buffers (wsync.h): the blocking
     * collectives' and the nonblocking ones'. */
    struct shmc__lane lane[SHMC_LANES];
    /* The world's nonblocking calls on their lane, in the order they were made
     * (nbworld.c). */
    struct shmc__link nbw;
    /* The ways (nbworld.c's BY_*, 0: a schedule) of the world's last SHMC_LANE_LAST
     * nonblocking calls of each collective whose way the lane's rules worked out (each of
     * another size), with a built-in op and host buffers while no algorithm was forced, and
     * those calls' bytes and element size (es 0: none yet), the latest worked out first
     * (a call answered from them moves nothing): the way of every such call with those
     * (nbworld.h, shmc__nbw_takes). */
    struct shmc__lane_last {
        size_t bytes, es;
        int how;
    } lane_last[SHMC_C_COUNT][SHMC_LANE_LAST];

    /* Scratch buffers (scratch.c): [0] host, [1] device. */
    struct {
        void *p;
        size_t cap;
    } scratch[2][SHMC_NSCRATCH];

    /* Counters (shmc_stat). */
    uint64_t scratch_late;  /* scratch allocated inside a collective: a bug (scratch.c) */
    uint64_t direct_helped; /* pieces of the direct all-reduce combined for others */
    uint64_t staged;        /* all-reduces that went through the staging buffers */
    uint64_t scheduled;     /* blocking collectives run as schedules (entry.h) */
    uint64_t shm_barriers;  /* barriers run by the shared-memory rounds (barrier.c) */
    uint64_t lane_ways;     /* world nonblocking calls whose way the rules worked out */
    uint64_t entry_calls;   /* nonblocking calls through a communicator's slot entry */

    /* The lanes' shift_seen (out of the lanes' hot fields). */
    uint8_t shift_seen[SHMC_LANES][SHMC_MAX_RANKS];
};

/* The process's collectives: made by shmc_init (boot/), reached by the public calls of
 * collectives.c and split.c, and passed to everything else through the call's context. */
extern struct shmc__coll shmc__coll;

/* SHMC_THREAD_MULTIPLE: one collective algorithm of the shared slots and scratch buffers
 * at a time per process. It holds this for its whole length (shmc__coll_lock_take) and
 * keeps it while its waits let go of shmc__big (p2p.h), since its scratch buffers and
 * this rank's slot serve one collective at a time. Schedules (sched.c) never take it. */
extern pthread_mutex_t shmc__coll_lock;

/* Takes shmc__coll_lock for a caller that holds shmc__big: at once when it is free,
 * else after letting go of shmc__big, so that no thread ever waits for this lock while
 * holding the other (the holder of this one may need shmc__big to finish). */
static inline void shmc__coll_lock_take(void)
{
    if (!shmc__multi || !pthread_mutex_trylock(&shmc__coll_lock))
        return;
    pthread_mutex_unlock(&shmc__big);
    pthread_mutex_lock(&shmc__coll_lock);
    pthread_mutex_lock(&shmc__big);
}
static inline void shmc__coll_lock_give(void)
{
    if (shmc__multi)
        pthread_mutex_unlock(&shmc__coll_lock);
}

/* May this process's threads run collectives on different communicators at once? At
 * SHMC_THREAD_MULTIPLE unless SHMC_COLL_OVERLAP=0 promises otherwise: a communicator made
 * while any member may then has `sched` set (split.c, members.c). */
static inline int shmc__coll_threads(const struct shmc__coll *co)
{
    return shmc__multi && co->overlap;
}

/* The schedule a blocking collective on a communicator with `sched` set started (entry.h),
 * which its public entry point waits for; NULL otherwise. shmc__coll_owning says that this
 * thread's call went that way (set by entry.h's by_schedule, cleared by
 * shmc__nbc_wait_owned), and shmc__coll_owners counts the threads for which it is set: while
 * that is 0, as it is for every call that did not go by a schedule of its own, the public
 * entry point's wait reads no thread-local storage, whose every access from a shared
 * library is a call (__tls_get_addr). */
extern _Thread_local struct shmc__request *shmc__coll_own;
extern _Thread_local int shmc__coll_owning;
extern int shmc__coll_owners;

/* shmc_coll_as: the number the next nonblocking collective of this thread takes, or -1
 * (sched.c takes it). shmc__coll_as_set counts the threads for which it is not -1, so
 * that the nonblocking calls read thread-local storage (a call from a shared library) only
 * while some thread has set one. Relaxed: a thread reads back its own count. */
extern _Thread_local int64_t shmc__coll_as;
extern int shmc__coll_as_set;
static inline int64_t shmc__coll_as_get(void)
{
    return __atomic_load_n(&shmc__coll_as_set, __ATOMIC_RELAXED) ? shmc__coll_as : -1;
}
/* This thread's number, given up (-1 where it set none). */
static inline int64_t shmc__coll_as_take(void)
{
    int64_t as = shmc__coll_as_get();
    if (as >= 0) {
        shmc__coll_as = -1;
        __atomic_fetch_sub(&shmc__coll_as_set, 1, __ATOMIC_RELAXED);
    }
    return as;
}

/* coll.c: after shmc__p2p_start; takes what no collective may allocate later (scratch
 * and the requests of collectives' messages), and the dispatch rules (shmc__rules_load),
 * once every rank is seen to hold the same: digest (shmc__rules_digest), which each rank
 * published in its control block as it attached. SHMC_OK, SHMC_ERR_MISMATCH (said) or
 * SHMC_ERR_NOMEM. */
int shmc__coll_init(struct shmc__coll *co, struct shmc__p2p *p2p, const struct shmc__config *cfg,
                    const struct shmc__rules *rules, uint64_t digest);
void shmc__coll_release(struct shmc__coll *co);
/* Takes the settable parts of cfg (algorithms, SHMC_CHECK) from now on. */
void shmc__coll_configure(struct shmc__coll *co, const struct shmc__config *cfg);
/* For a public collective call: the communicator handle h names, in *c (the state is
 * shmc__coll). SHMC_OK, SHMC_ERR_NOT_INIT or SHMC_ERR_ARG. */
int shmc__coll_lookup(const shmc_comm *h, struct shmc__comm **c);
/* This layer's counters for shmc_stat; 1 if name is one of them (*v set). */
int shmc__coll_stat(const struct shmc__coll *co, const char *name, uint64_t *v);

#endif /* SHMC_COLL_H */
