/*
 * The arena: one POSIX shared-memory object per job holding a header, one control block
 * per rank and one ring mailbox per ordered pair of ranks. Everything in it is addressed
 * by offsets from its base (each process maps it at its own address).
 *
 *   offset 0            header (one page): magic, version, sizes and offsets; job state
 *   cb_off              nranks control blocks, cb_stride bytes each
 *   ring_off            nranks*(nranks-1) rings, ring_stride bytes each; the ring from i
 *                       to j is number i*(nranks-1) + (j < i ? j : j - 1)
 *   coll_off            SHMC_LANES * nranks collective slots (struct shmc__slot +
 *                       SHMC_SLOT_BYTES of data each), the staging areas of the
 *                       shared-memory collectives: lane 0's slots of every rank (the
 *                       blocking calls'), then lane 1's (the world's nonblocking calls');
 *                       where they are follows from the fields above (nothing stored)
 *   wsync_off           SHMC_LANES * nranks world-sync blocks (two parts each: a round
 *                       word and a half of SHMC_WSYNC_BYTES), for the world's one-step
 *                       collectives: lane 0's blocks of every rank, then lane 1's (a line
 *                       larger: its calls' word),
 *                       wsync_bytes in all; also derived from the fields above
 *   xdesc_off           nranks tables of SHMC_XDESC_COUNT copy descriptors (struct
 *                       shmc__xdesc), for large messages that both sides copy (p2p/coop.c)
 *   stage_off           nranks sets of 2 * SHMC_LANES staging buffers of stage_bytes each
 *                       (page-aligned, plain data), a pair per lane, for the world's staged
 *                       all-reduce (coll/stage.c); the
 *                       size follows from the rank count (shmc__stage_bytes_for); not
 *                       reserved at creation (shmc__arena_stage_reserve)
 *   entry_off           nranks sets of SHMC_SLOT_ENTRIES collective slots (coll_stride
 *                       each), a rank's set together: the slot entries that communicators
 *                       other than the world take for their nonblocking calls
 *                       (coll/nbcomm.c); not reserved at creation either, each rank's set
 *                       at its first use (shmc__arena_entries_reserve)
 *
 * This header is the shared-memory ABI: the layout and every structure other processes
 * read. The protocols over them belong to the layers that use them: the rings to
 * transport/ring.h, the copy descriptors to p2p/coop.c, the slots and world-sync blocks
 * to coll/slot.c and coll/wsync.c, the staging buffers to coll/stage.c; the job state (states,
 * epoch, abort) to shm/job.h.
 *
 * Concurrency contract: the immutable part of the header is written by the creator
 * before it publishes `magic` with a release store (R0); attachers read `magic` with an
 * acquire load (A0) before trusting any other field. The job-state words are atomics
 * whose users say what they pair with.
 */
#ifndef SHMC_ARENA_H
#define SHMC_ARENA_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "base/atomics.h"
#include "base/machine.h"

#define SHMC_ARENA_MAGIC 0x31304d4d4f434d53ull /* "SMCOMM01" little-endian */
#define SHMC_ARENA_VERSION 19u
#define SHMC_MAX_RANKS 256u
#define SHMC_RING_MIN 4096u
#define SHMC_RING_MAX (16u << 20)
/* The default ring size (shmc__ring_bytes_for): the larger of two choices. The first
 * fits all rings into SHMC_RING_BUDGET_LARGE with rings up to SHMC_RING_DEFAULT_LARGE
 * (1 MiB at up to 4 ranks, 256 KiB at 8): a window of eager messages then fits a ring and
 * streams at the copy's speed. The second, the older rule, keeps 64 KiB rings up to 32
 * ranks within SHMC_RING_BUDGET. */
#define SHMC_RING_DEFAULT_LARGE (1u << 20)
#define SHMC_RING_BUDGET_LARGE (16ull << 20)
#define SHMC_RING_DEFAULT_MAX (64u << 10)
#define SHMC_RING_DEFAULT_MIN (8u << 10)
#define SHMC_RING_BUDGET (64ull << 20)  /* all rings together, before the minimum applies */
#define SHMC_STAGE_MAX (1u << 20)       /* bytes of one staging buffer, at most */
#define SHMC_STAGE_MIN (32u << 10)      /* and at least */
#define SHMC_STAGE_BUDGET (16ull << 20) /* all staging buffers together, above the minimum */

/* Rank states (shmc__rank_cb.state). */
enum {
    SHMC_RANK_EMPTY = 0,      /* not attached yet */
    SHMC_RANK_RUNNING = 1,    /* attached, inside the job */
    SHMC_RANK_FINALIZING = 2, /* in shmc_finalize: will post no more receives */
    SHMC_RANK_FINALIZED = 3,  /* left the job cleanly */
    SHMC_RANK_DEAD = 4,       /* exited or was killed without finalizing */
};

/* Context ids come in groups of SHMC_CTX_GROUP per communicator, in the order
 * communicators are made (p2p/comm.h says what each of a group is for): the group's
 * number, ctx / SHMC_CTX_GROUP, is what hang reports call it ("communicator #N"). */
#define SHMC_CTX_GROUP 4u
/* The contexts of a group, by offset: the blocking collectives' messages, the nonblocking
 * collectives' (and the schedules of blocking calls that run by messages), so that a hang
 * report tells a rank waiting in a collective from one waiting for a message. */
#define SHMC_CTX_COLL 1u
#define SHMC_CTX_NBC 2u

/* What a rank is blocked on (shmc__rank_cb.blk_op), for hang reports. */
enum {
    SHMC_BLK_NONE = 0,
    SHMC_BLK_SEND = 1, /* same values as the request kinds */
    SHMC_BLK_RECV = 2,
    SHMC_BLK_FINALIZE = 3, /* delivering what it owes before leaving */
    SHMC_BLK_COLL = 4,     /* a collective: a peer's slot or its readers, or a schedule */
    SHMC_BLK_WIN = 5,      /* a window's lock (rma/) */
    SHMC_BLK_LAST = SHMC_BLK_WIN
};

/* The tag a rank blocked on SHMC_BLK_COLL publishes: SHMC_ANY (-1) in a blocking call's
 * shared-memory step; else the number of its call among its kind on its communicator, with
 * SHMC_BLK_COLL_BLOCKING set for a blocking call's (the schedules' tags: coll/sched.h).
 * A message of a schedule carries the same bits in its tag. */
#define SHMC_BLK_COLL_BLOCKING (1u << 30)

/* Header flags. */
#define SHMC_ARENA_F_FENCED_WAKE 1u /* membarrier unavailable: senders must fence */

struct shmc__arena_hdr {
    /* Line 0: immutable once magic is published. */
    shmc_atomic_u64 magic; /* R0: published last by the creator */
    uint32_t version;
    uint32_t nranks;
    uint64_t total_size;
    uint64_t cb_off;
    uint64_t cb_stride;
    uint64_t ring_off;
    uint64_t ring_stride;
    uint32_t ring_bytes;
    uint32_t flags;
    /* Line 1: creator identity, and what it measured (immutable). */
    SHMC_ALIGNED_LINE uint64_t nonce; /* random per job */
    int32_t creator_pid;
    uint32_t creator_uid;
    int32_t launcher_pid; /* shmrun's pid, or 0 when embedded */
    /* A cache line's round trip between the job's CPUs, in ns, as the creator found it
     * (shmc__pair_measure), 0 unknown: one figure every rank reads, so that all find
     * the same machine class for the dispatch rules (coll/rules.h). */
    uint32_t line_rtt_ns;
    /* A single copy's time over a plain copy's between the same CPUs, in percent, as the
     * creator found it (base/machine.h), 0 unknown: the point-to-point protocol sizes
     * follow it (p2p/p2p.c). */
    uint32_t sc_cost_pct;
    uint64_t creator_start; /* creator's start time (clock ticks since boot), vs pid reuse */
    /* Line 2: job state. */
    SHMC_ALIGNED_LINE shmc_atomic_u32 abort; /* 0, or SHMC_ABORT_FLAG | exit code */
    shmc_atomic_u32 abort_rank;
    shmc_atomic_u32 epoch;    /* bumped after any rank's state changes */
    shmc_atomic_u32 attached; /* ranks attached so far (embedded unlink) */
};

#define SHMC_ABORT_FLAG 0x80000000u

/* The per-rank control block. Line 0 is read by every sender on every message (the
 * `sleeping` flag) and so is written only on slow paths. */
#define SHMC_QUIT_WORDS 8
struct shmc__rank_cb {
    SHMC_ALIGNED_LINE shmc_atomic_u32 pid;
    shmc_atomic_u32 state;
    shmc_atomic_u32 sleeping; /* 1 while the rank may be in futex wait on its doorbell */
    uint32_t pad0;
    /* Bit q: rank q found what it shares with this rank corrupt and stopped talking to it
     * (shm/job.h, shmc__job_cut). Set rarely, read when the epoch moves. */
    shmc_atomic_u64 cut[SHMC_MAX_RANKS / 64];
    /* The digest of the rank's dispatch rules and forced algorithms (coll/rules.h),
     * written once, before the rank counts itself attached (boot/launch.c, R14), read by
     * every rank once all have attached (coll/coll.c, A14). */
    shmc_atomic_u64 rules;
    shmc_atomic_u32 cpus; /* the CPUs it may run on (shmc__job_cpus), published likewise */
    /* Line 1: the doorbell futex word, bumped by whoever wakes the rank. */
    SHMC_ALIGNED_LINE shmc_atomic_u32 doorbell;
    /* Line 2: what the rank is blocked on, for hang reports and for waiters deciding
     * whether to yield (written on the slow path, away from the lines wakers read). */
    SHMC_ALIGNED_LINE shmc_atomic_u32 blk_op;
    shmc_atomic_u32 cpu; /* 1 + the CPU it last waited on, 0 unknown; bit 31: polling */
    shmc_atomic_u32 blk_peer;
    shmc_atomic_u32 blk_tag;
    shmc_atomic_u32 blk_ctx;
    shmc_atomic_u64 blk_bytes;
    shmc_atomic_u64 blk_since_ns;
    /* The collective call the rank is blocked in (p2p/incall.c), for members that wait
     * too to compare with theirs: call_at is its collective context << 32 | the number
     * of the call on that communicator (bit 31: a one-step round, which compares calls
     * itself), 0 while not blocked in one; call_w the call's words (base/callword.h).
     * call_at is released after call_w, so a reader that sees it the same before and
     * after reading call_w has read the words of that call. */
    shmc_atomic_u64 call_at;
    shmc_atomic_u64 call_w[2];
    /* Line 3: the collective contexts this rank has quit (shm/job.h, shmc__job_quit): each
     * word ctx | -error << 32 | settled << 40 (shmc__job_quit_settle), 0 while unused,
     * reused round-robin. Written rarely, by the
     * rank alone, read by the others when the epoch moves. */
    SHMC_ALIGNED_LINE shmc_atomic_u64 quit[SHMC_QUIT_WORDS];
};

/* A rank's collective slot (coll/slot.c): the owner writes data, then publishes
 * `stamp` with release; each reader adds 1 to `reads` (release) when it no longer needs
 * the data, and the owner waits for the count it expects (acquire) before writing again.
 * The data follows `stamp` directly, so a small payload shares its cache line. */
#define SHMC_SLOT_BYTES (64u << 10)
#define SHMC_SLOT_WORDS 3u /* a publication's: the call's two words and its place */
struct shmc__slot {
    /* Readers' words: world rank w stores into done[w] the stamp it has finished
     * reading (per reader, not a count, so the owner can tell which readers are missing
     * and excuse those that have left; a stamp, not a bit, so the owner never writes
     * here and nothing needs clearing). */
    SHMC_ALIGNED_LINE shmc_atomic_u64 done[SHMC_MAX_RANKS];
    SHMC_ALIGNED_LINE shmc_atomic_u64 stamp; /* owner's line; data starts right after */
    /* The words of the call this publication is for (base/callword.h) and, third, which
     * call of the owner's it is (coll/slot.c), written before the stamp: a reader
     * compares them with its own call's. */
    shmc_atomic_u64 call[SHMC_SLOT_WORDS];
};

/* How many collective slots each rank keeps for communicators other than the world, each
 * taken by one communicator at a time for its nonblocking calls (coll/nbcomm.c). A few:
 * programs make their calls on a handful of communicators (a duplicate of the world, a
 * framework's groups), and each entry is a slot of SHMC_SLOT_BYTES per rank. */
#define SHMC_SLOT_ENTRIES 4u

/* The world's lanes of rounds and staging buffers (coll/wsync.h): the blocking
 * collectives' and the nonblocking ones', which each rank takes in two orders of their own. */
#define SHMC_LANES 2u

/* A rank's world-sync block of one lane (coll/wsync.c): two parts, one per parity of the
 * round, each a round word and right after it, in the same line, that parity's data half.
 * The word counts the one-step collectives of the world communicator this rank has
 * entered, published with release once its input for that round is in the half of the
 * round's parity (round & 1), so that a small input travels with the word that announces
 * it: a rank waiting for the round gets both in one line transfer (the slots' stamp and
 * data are placed so too). Only the owner writes; every other rank of the world reads. */
/* The halves of both lanes are this large: the nonblocking lane's calls of equal blocks
 * run in as many rounds as their data needs (coll/nbworld.h), each a synchronisation of
 * every rank, so fewer, larger rounds are faster; the blocking lane's reduce-scatter goes
 * in one round as far as one carries it (coll/wround.h), and its one-step exchanges take
 * at most SHMC_ONESTEP_MAX (coll/onestep.h). Pages of a half no call reaches are never
 * touched. */
#define SHMC_WSYNC_BYTES (32u << 10)
struct shmc__wsync {
    /* Bits 0-39 the last round of this part's parity the rank entered; bits 40-63 a hash
     * of the call it was for, bit 40 marking a schedule's gate (coll/wsync.h), published
     * by the same store, or 0. One word per parity, so that a rank already in round r + 1
     * still shows round r's hash to a rank that has not looked yet (it writes that word
     * again only in r + 2). */
    SHMC_ALIGNED_LINE shmc_atomic_u64 round;
    uint8_t data[]; /* the half: SHMC_WSYNC_BYTES bytes, 8-byte aligned */
};
#define SHMC_WSYNC_ROUND_MASK ((1ull << 40) - 1)

/* A copy descriptor (p2p/coop.c): a large single-copy message that the receiver reads
 * with process_vm_readv and the sender, while it waits, writes with process_vm_writev.
 * The sender owns its table and fills `total`, the counters, `armed` = 0 and `released`
 * = 0 before it sends the RTS naming the entry; the receiver writes `raddr` and `total`
 * and releases `armed`; then both claim byte ranges with fetch-add on `next` and add what
 * they copied to `done`. A sender that stops helping leaves its unfinished range in
 * redo_off/len. The receiver releases `released` once it will touch the entry no more. */
#define SHMC_XDESC_COUNT 64
struct shmc__xdesc {
    SHMC_ALIGNED_LINE shmc_atomic_u64 next; /* bytes claimed, by either side */
    shmc_atomic_u64 done;                   /* bytes copied, by either side */
    uint64_t raddr;                         /* the receive buffer, in the receiver's space */
    uint64_t total;                         /* bytes to move (the receiver may shorten it) */
    uint64_t redo_off;                      /* a range the sender claimed but did not copy */
    uint64_t redo_len;
    shmc_atomic_u32 armed;    /* R8: raddr, total and check are set */
    shmc_atomic_u32 quit;     /* R10: the sender stopped helping; redo_* are set */
    shmc_atomic_u32 released; /* R11: the receiver is done with the entry */
    uint32_t check;           /* shmc__xdesc_check(nonce, raddr, total), by the receiver */
};

/* The check word of an armed copy descriptor: the sender writes into the receiver's
 * memory at raddr only if it matches, so bytes scribbled over the entry are caught (all
 * but one in 2^32) instead of aiming the write somewhere else. The key is the job's nonce
 * as each rank copied it at attach. A process that forges entries on purpose is not
 * stopped by this; it could as well write into the ranks with ptrace. */
static inline uint32_t shmc__xdesc_check(uint64_t nonce, uint64_t raddr, uint64_t total)
{
    uint64_t x = nonce ^ raddr ^ (total * 0x9e3779b97f4a7c15ull);
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    return (uint32_t)x;
}

/* A ring's two index lines; the data (ring_bytes) follows at +2 lines. */
struct shmc__ring_ctrl {
    SHMC_ALIGNED_LINE shmc_atomic_u64 head; /* producer's line: bytes ever written */
    SHMC_ALIGNED_LINE shmc_atomic_u64 tail; /* consumer's line: bytes ever consumed */
};

static_assert(sizeof(struct shmc__arena_hdr) == 3 * SHMC_CACHELINE, "header is 3 lines");
static_assert(sizeof(struct shmc__rank_cb) == 4 * SHMC_CACHELINE, "control block: 4 lines");
static_assert(sizeof(struct shmc__ring_ctrl) == 2 * SHMC_CACHELINE, "ring control: 2 lines");
static_assert(sizeof(struct shmc__slot) == SHMC_MAX_RANKS * 8 + SHMC_CACHELINE,
              "slot header: a word per possible reader, then the owner's line");
static_assert(offsetof(struct shmc__wsync, data) == 8, "a half starts in its word's line");
static_assert(sizeof(struct shmc__xdesc) == SHMC_CACHELINE, "copy descriptor: 1 line");
static_assert(_Alignof(struct shmc__rank_cb) == SHMC_CACHELINE, "cb is line aligned");

/* The computed layout for a number of ranks. */
struct shmc__layout {
    uint32_t nranks;
    uint32_t ring_bytes;
    uint64_t cb_off, cb_stride;
    uint64_t ring_off, ring_stride;
    uint64_t coll_off, coll_stride;
    uint64_t wsync_off, wsync_bytes; /* the lanes' blocks, lane 0's first */
    uint64_t xdesc_off, xdesc_stride;
    uint64_t stage_off, stage_bytes; /* a rank's buffers: 2 * SHMC_LANES * stage_bytes apart */
    uint64_t entry_off;              /* a rank's slot entries: SHMC_SLOT_ENTRIES slots apart */
    uint64_t total_size;
};

/* A process's view of a mapped arena. The layout and flags are this process's own copy,
 * made when it created the arena or validated it at attach: nothing after that re-reads
 * the header's immutable part, so bytes scribbled over the header later cannot move an
 * address this process computes (docs/reliability.md, Hostile memory). The same holds
 * for the peers' process ids, copied once every rank has attached (shm/job.c). */
struct shmc__arena {
    uint8_t *base;
    size_t size;
    int fd;
    int serve_fd;                /* the socket that hands fd to the other ranks until all attached
                                  * (fdpass.h, shmc__job_wait_attached), or -1 */
    int named;                   /* the arena has a name in /dev/shm until every rank attached */
    struct shmc__arena_hdr *hdr; /* for the job-state words only (job.h) */
    struct shmc__layout lay;
    uint32_t flags;
    uint64_t nonce;
    int32_t creator_pid;          /* who made the arena, as validated at attach */
    uint64_t creator_start;       /* its start time, against pid reuse */
    uint32_t line_rtt_ns;         /* the header's, as validated at attach */
    uint32_t sc_cost_pct;         /* likewise */
    int32_t pids[SHMC_MAX_RANKS]; /* each rank's pid; 0 until the job is assembled */
    unsigned quit_next;           /* this rank's next quit word to fill (job.c) */
    char name[64];
};

/* Ring data bytes per pair for n ranks: requested if non-zero, else the largest power
 * of two from 8 KiB to 64 KiB whose rings together fit SHMC_RING_BUDGET (never below
 * 8 KiB). Formula in docs/design.md. */
uint32_t shmc__ring_bytes_for(unsigned nranks, size_t requested);

/* Bytes of each staging buffer for n ranks: the largest power of two from SHMC_STAGE_MIN
 * to SHMC_STAGE_MAX whose 2 n buffers fit SHMC_STAGE_BUDGET (never below the minimum). */
uint32_t shmc__stage_bytes_for(unsigned nranks);

/* Fills *l for nranks ranks. Returns SHMC_OK or SHMC_ERR_LIMIT / SHMC_ERR_ARG. */
int shmc__arena_layout(unsigned nranks, size_t ring_bytes_req, struct shmc__layout *l);

/* Is /dev/shm<name> something no shmcomm job of this user made: not a regular file, or
 * another user's, or open to others (mode beyond 0600)? 1 and a description in why
 * ("a FIFO owned by uid 1001 with mode 0666") if so; 0 if it is not there or could be
 * ours. Such an object is never opened, used or removed. */
int shmc__arena_foreign(const char *name, char *why, size_t len);

/* Is the arena object called name a leftover: made by a job whose creator is gone, or
 * never finished and older than a few seconds? 1 yes, 0 no (a running job's), -1 it
 * cannot be opened. Used before replacing it, and by shmrun --cleanup. */
int shmc__arena_leftover(const char *name);
/* 1 if the object on fd is a complete arena (magic set), 0 if not (yet); sets
 * *creator_alive. */
int shmc__arena_peek_ready(int fd, int *creator_alive);

/* Creates a new arena object named name (O_CREAT|O_EXCL, mode 0600), reserves its memory
 * up front and initialises it. With unlink_now the name is removed at once and the arena
 * lives on through the open fd (shmrun passes it to the ranks). On a too-small /dev/shm
 * returns SHMC_ERR_NOSHM after logging the size needed and the size free. The fd is
 * opened close-on-exec; a launcher clears that flag in the child that must inherit it.
 * memfd (only with unlink_now, since nothing can then attach by name): 1 makes the
 * arena an anonymous memory file (memfd_create), outside /dev/shm and its size limit,
 * which the ranks get as an inherited descriptor (shmrun) or through a socket
 * (fdpass.h). pc: what the creator measured (shmc__pair_cost), or NULL: not known.
 */
int shmc__arena_create(struct shmc__arena *a, const char *name, const struct shmc__layout *l,
                       int unlink_now, int launcher_pid, int memfd,
                       const struct shmc__pair_cost *pc);

/* Maps the arena open on fd and checks owner, mode, size, magic, version, rank count and
 * every offset. Returns SHMC_OK, SHMC_ERR_CORRUPT (with a logged reason) or SHMC_ERR_SYS.
 * Does not take ownership of fd on failure. */
int shmc__arena_attach_fd(struct shmc__arena *a, int fd, unsigned expect_nranks);

/* Unmaps and closes. Safe on a zeroed struct. */
void shmc__arena_detach(struct shmc__arena *a);

/* A name no other job or user can already hold: /shmc-<uid>-<pid>-<random>. */
int shmc__arena_unique_name(char *buf, size_t len);

/* Start time of a process in clock ticks since boot (from /proc), or 0 if unknown. */
uint64_t shmc__proc_start_time(int pid);

/* The kernel's state letter for a process (/proc/PID/stat: R running or runnable, S/D
 * waiting, T stopped by a signal, t by a debugger, Z exited), or 0 if it cannot be read. */
char shmc__proc_state(int pid);

/* Is the process that created this arena still running? */
int shmc__arena_creator_alive(const struct shmc__arena_hdr *h);

/* Free bytes in /dev/shm, or (size_t)-1 if unknown. */
size_t shmc__shm_free_bytes(void);

/* The number of ranks the arena was made for (this process's copy). */
static inline unsigned shmc__arena_nranks(const struct shmc__arena *a)
{
    return a->lay.nranks;
}

static inline struct shmc__rank_cb *shmc__arena_cb(const struct shmc__arena *a, unsigned r)
{
    return (struct shmc__rank_cb *)(a->base + a->lay.cb_off + (uint64_t)r * a->lay.cb_stride);
}

static inline struct shmc__ring_ctrl *shmc__arena_ring(const struct shmc__arena *a, unsigned from,
                                                       unsigned to)
{
    uint64_t n1 = a->lay.nranks - 1;
    uint64_t idx = (uint64_t)from * n1 + (to < from ? to : to - 1);
    return (struct shmc__ring_ctrl *)(a->base + a->lay.ring_off + idx * a->lay.ring_stride);
}

/* Collective slot of rank r in lane `lane`. */
static inline struct shmc__slot *shmc__arena_slot(const struct shmc__arena *a, unsigned lane,
                                                  unsigned r)
{
    uint64_t i = (uint64_t)lane * a->lay.nranks + r;
    return (struct shmc__slot *)(a->base + a->lay.coll_off + i * a->lay.coll_stride);
}

/* The data bytes of a slot: 8-byte aligned, right after the stamp and the call. */
static inline uint8_t *shmc__slot_data(struct shmc__slot *s)
{
    return (uint8_t *)(s->call + SHMC_SLOT_WORDS);
}

/* The call words of a slot's publications of stamp parity `parity`: a slot may hold two
 * publications at once (coll/slot.c), the odd one's words right after the data, in the
 * stride's last bytes (the data starts inside the owner's line). */
static inline shmc_atomic_u64 *shmc__slot_call(struct shmc__slot *s, unsigned parity)
{
    return parity ? (shmc_atomic_u64 *)(void *)(shmc__slot_data(s) + SHMC_SLOT_BYTES) : s->call;
}
/* The bytes from one rank's slot of a lane to the next's (the layout's coll_stride): the
 * header, the data, and a line of the owner's own after the odd publications' words. */
#define SHMC_SLOT_STRIDE (sizeof(struct shmc__slot) + SHMC_SLOT_BYTES + SHMC_CACHELINE)
static_assert(offsetof(struct shmc__slot, call) + 2 * SHMC_SLOT_WORDS * sizeof(uint64_t) +
                      SHMC_SLOT_BYTES <=
                  SHMC_SLOT_STRIDE - SHMC_CACHELINE,
              "a slot's second call words fit after its data, before its last line");
/* Which way the owner's last nonblocking calls through this slot went (coll/slot.c,
 * shmc__slot_nb_next), two words: in the stride's last line, which only the owner writes
 * and the others read only once they have slept a whole slice in a call. */
static inline shmc_atomic_u64 *shmc__slot_ways(struct shmc__slot *s)
{
    return (shmc_atomic_u64 *)(void *)((uint8_t *)s + SHMC_SLOT_STRIDE - SHMC_CACHELINE);
}

/* A part of a world-sync block (a round word and its half), in whole lines; a block is
 * two. A line more than the half needs: a round's data may start up to a line past the
 * word's line (coll/wsync.h places it). */
static inline uint64_t shmc__wsync_part(void)
{
    uint64_t b = offsetof(struct shmc__wsync, data) + (uint64_t)SHMC_WSYNC_BYTES + SHMC_CACHELINE;
    return (b + SHMC_CACHELINE - 1) / SHMC_CACHELINE * SHMC_CACHELINE;
}

/* A block: the two parts, and on the nonblocking lane the line of the rank's calls
 * (shmc__wsync_calls) after them. */
static inline uint64_t shmc__wsync_stride(unsigned lane)
{
    return 2 * shmc__wsync_part() + (lane ? SHMC_CACHELINE : 0);
}

/* Bytes of the world-sync blocks of nranks ranks in the lanes before `lane`: where that
 * lane's blocks start (SHMC_LANES: all of them). */
static inline uint64_t shmc__wsync_lanes_bytes(uint32_t nranks, unsigned lane)
{
    uint64_t bytes = 0;
    for (unsigned l = 0; l < lane; l++)
        bytes += (uint64_t)nranks * shmc__wsync_stride(l);
    return bytes;
}

/* World-sync block of rank r in lane `lane` (lane 0's blocks first), its part of parity h
 * (0 or 1: a round word), and that part's data half. */
static inline struct shmc__wsync *shmc__arena_wsync(const struct shmc__arena *a, unsigned lane,
                                                    unsigned r)
{
    /* (lane 0's blocks, then lane 1's: the loop of shmc__wsync_lanes_bytes, unrolled for
     * the two lanes on every round's path) */
    static_assert(SHMC_LANES == 2, "the lanes before lane 1 are lane 0's");
    uint64_t before = lane ? (uint64_t)a->lay.nranks * shmc__wsync_stride(0) : 0;
    return (struct shmc__wsync *)(a->base + a->lay.wsync_off + before +
                                  (uint64_t)r * shmc__wsync_stride(lane));
}

static inline struct shmc__wsync *shmc__wsync_half(struct shmc__wsync *w, unsigned h)
{
    return (struct shmc__wsync *)((uint8_t *)w + h * shmc__wsync_part());
}

static inline uint8_t *shmc__wsync_data(struct shmc__wsync *w, unsigned h)
{
    return shmc__wsync_half(w, h)->data;
}

/* The word of the nonblocking lane's calls in block w of that lane (coll/nbworld.c):
 * bits 24-63 how many of the world's nonblocking calls that take the lane, or could with
 * another count, the rank has started; bit k of bits 0-23 set where the call k before the
 * last one started (k = 0: that one) runs as a schedule of messages instead. Written by
 * its rank with release at each such call; read by another only while it waits for a
 * round of the lane that this rank has not entered. */
#define SHMC_WSYNC_CALLS_BITS 24
static inline shmc_atomic_u64 *shmc__wsync_calls(struct shmc__wsync *w)
{
    return (shmc_atomic_u64 *)((uint8_t *)w + 2 * shmc__wsync_part());
}

/* Copy descriptor i of rank r. */
static inline struct shmc__xdesc *shmc__arena_xdesc(const struct shmc__arena *a, unsigned r,
                                                    unsigned i)
{
    return (struct shmc__xdesc *)(a->base + a->lay.xdesc_off) + (uint64_t)r * SHMC_XDESC_COUNT + i;
}

/* Reserves rank r's two staging buffers of lane `lane` in the object (posix_fallocate on
 * a->fd), which creation leaves unreserved: each rank calls it before it first writes
 * them, so that a full /dev/shm is an error there instead of a SIGBUS. SHMC_OK (also
 * where the file system cannot reserve), or SHMC_ERR_NOSHM / SHMC_ERR_SYS after an info
 * message. */
int shmc__arena_stage_reserve(struct shmc__arena *a, unsigned lane, unsigned r);

/* Reserves rank r's slot entries (shmc__arena_entry) as shmc__arena_stage_reserve reserves
 * its staging buffers, with the same outcomes. */
int shmc__arena_entries_reserve(struct shmc__arena *a, unsigned r);

/* Slot entry i (below SHMC_SLOT_ENTRIES) of rank r. */
static inline struct shmc__slot *shmc__arena_entry(const struct shmc__arena *a, unsigned r,
                                                   unsigned i)
{
    uint64_t k = (uint64_t)r * SHMC_SLOT_ENTRIES + i;
    return (struct shmc__slot *)(a->base + a->lay.entry_off + k * a->lay.coll_stride);
}

/* Staging buffer b (0 or 1) of rank r in lane `lane`: lay.stage_bytes bytes, page-aligned. */
static inline uint8_t *shmc__arena_stage(const struct shmc__arena *a, unsigned lane, unsigned r,
                                         unsigned b)
{
    return a->base + a->lay.stage_off +
           (((uint64_t)r * SHMC_LANES + lane) * 2 + b) * a->lay.stage_bytes;
}

#endif /* SHMC_ARENA_H */
