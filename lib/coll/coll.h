/*
 * The collectives' internal interface: one call's context, the point-to-point helpers
 * the mailbox algorithms are written with, the shared-memory slot protocol, and the
 * algorithm entry points that coll/api.c dispatches to.
 *
 * Every algorithm is collective: all members of the communicator call it with the same
 * arguments (count, dtype, op, root) and the same algorithm, which they all derive from
 * those arguments and the same SHMC_ALGO_* environment. Their messages travel on the
 * communicator's collective context (ctx + 1), so they never match user traffic, and
 * between one pair on one communicator they arrive in the order they were sent, so
 * successive collectives never mix. Like the rest of the library, single-threaded.
 */
#ifndef SHMC_COLL_H
#define SHMC_COLL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../internal.h"
#include "../memkind.h"
#include "../reduce.h"

/* One collective call. */
struct shmc__cx {
    struct shmc__comm *c;
    int n, me;    /* size of and rank in c */
    uint32_t ctx; /* c->ctx + 1 */
    size_t es;    /* bytes per element */
    shmc_dtype dt;
    shmc_op op;
    int root; /* rooted collectives; 0 otherwise */
    int dev;  /* the buffers are device memory: copies, reductions and scratch on the
               * device, and only the mailbox algorithms (api.c's pick) */
};

/* Local copies and reductions of one call, on the host or the device (x->dev). */
static inline int shmc__cx_copy(const struct shmc__cx *x, void *dst, const void *src, size_t n)
{
    if (x->dev)
        return shmc__dev_copy(dst, src, n);
    memcpy(dst, src, n);
    return SHMC_OK;
}

/* shmc__cx_copy as a statement that returns its error from the enclosing function. */
#define SHMC_CX_COPY(x, dst, src, n)                                                               \
    do {                                                                                           \
        int cx_rc_ = shmc__cx_copy((x), (dst), (src), (n));                                        \
        if (cx_rc_ != SHMC_OK)                                                                     \
            return cx_rc_;                                                                         \
    } while (0)

static inline int shmc__cx_reduce(const struct shmc__cx *x, void *acc, const void *in, size_t n,
                                  int order)
{
    if (x->dev)
        return shmc__dev_reduce(acc, in, n, x->dt, x->op, order);
    shmc__reduce(acc, in, n, x->dt, x->op, order);
    return SHMC_OK;
}

static inline int shmc__cx_finish(const struct shmc__cx *x, void *buf, size_t n)
{
    if (x->dev)
        return shmc__dev_reduce_finish(buf, n, x->dt, x->op, x->n);
    shmc__reduce_finish(buf, n, x->dt, x->op, x->n);
    return SHMC_OK;
}

/* The same call with another root (for algorithms built from rooted ones). */
static inline struct shmc__cx shmc__cx_rooted(const struct shmc__cx *x, int root)
{
    struct shmc__cx y = *x;
    y.root = root;
    return y;
}

/* Elements in and offset of block i when count elements are split over n ranks: the
 * first count % n blocks get one element more. */
static inline void shmc__block(size_t count, int n, int i, size_t *off, size_t *len)
{
    size_t base = count / (size_t)n, rem = count % (size_t)n, ui = (size_t)i;
    *len = base + (ui < rem);
    *off = ui * base + (ui < rem ? ui : rem);
}

/* Elements (or bytes) in the chunk that starts at off: at most max, and what is left. */
static inline size_t shmc__chunk(size_t total, size_t off, size_t max)
{
    return total - off < max ? total - off : max;
}

/* Comm rank r shifted so that `root` is 0 (the virtual rank of binomial trees). */
static inline int shmc__vrank(int r, int root, int n)
{
    return (r - root + n) % n;
}

static inline int shmc__rrank(int v, int root, int n)
{
    return (v + root) % n;
}

/* ---- coll/xfer.c: messages on the collective context ------------------------------- */

/* Start a send of `bytes` to, or a receive of exactly `bytes` from, comm rank peer. */
int shmc__cx_isend(const struct shmc__cx *x, const void *buf, size_t bytes, int dst,
                   struct shmc__request **req);
int shmc__cx_irecv(const struct shmc__cx *x, void *buf, size_t bytes, int src,
                   struct shmc__request **req);
/* Waits for n requests (NULL entries skipped), frees them and sets them NULL. A receive
 * whose message had another size is SHMC_ERR_MISMATCH. Returns the first error. */
int shmc__cx_waitall(size_t n, struct shmc__request **reqs);
/* Drops requests that could not all be started (a failed post): nothing waits for them. */
void shmc__cx_cancel(size_t n, struct shmc__request **reqs);
int shmc__cx_send(const struct shmc__cx *x, const void *buf, size_t bytes, int dst);
int shmc__cx_recv(const struct shmc__cx *x, void *buf, size_t bytes, int src);
/* Either side may be skipped with a peer of -1. */
int shmc__cx_sendrecv(const struct shmc__cx *x, const void *sbuf, size_t sbytes, int dst,
                      void *rbuf, size_t rbytes, int src);

/* ---- coll/scratch.c: buffers the algorithms borrow ---------------------------------- */

/* Scratch buffer `which` (0 to SHMC_NSCRATCH - 1) of at least bytes, kept between calls.
 * Within what shmc__scratch_prepare made ready for the running call it never allocates;
 * beyond, it allocates and counts a late growth in shmc__g.scratch_late (a bug). */
void *shmc__cx_scratch(const struct shmc__cx *x, int which, size_t bytes);
/* The same, for an algorithm that agrees with the other members on the outcome before
 * it moves data (coll/direct.c): NULL when out of memory, never counted late. */
void *shmc__cx_scratch_early(const struct shmc__cx *x, int which, size_t bytes);
/* The most of each buffer any member may ask for in this call (the same on all); 0 if
 * the algorithm borrows none (need is then all 0), whatever the call. Bit a of
 * shmc__coll_borrows[coll] is set where algorithm a borrows (from shmc__scratch_init). */
extern uint16_t shmc__coll_borrows[SHMC_C_COUNT];
int shmc__coll_need(int coll, int algo, const struct shmc__cx *x, size_t count,
                    size_t need[SHMC_NSCRATCH]);
/* Collective: makes every member's buffers hold need, agreeing first if that is more
 * than the communicator's members already hold; SHMC_ERR_NOMEM on every member if any
 * could not, before any data moved. */
int shmc__scratch_prepare(const struct shmc__cx *x, const size_t need[SHMC_NSCRATCH]);
/* coll/direct.c: elements per piece, which its staging buffers hold. */
size_t shmc__direct_step(size_t count, size_t es);

/* ---- coll/wsync.c: one-step collectives of the world communicator ------------------ */

/* May x use the world-sync blocks? (The world communicator only.) */
static inline int shmc__wsync_ok(const struct shmc__cx *x)
{
    return x->c == &shmc__g.world;
}
/* Enters world round r (g->wround, already advanced; this rank's input for it already in
 * its half r & 1) and waits until every other rank has entered it. */
int shmc__wsync_enter(uint64_t r);
int shmc__wsync_barrier(const struct shmc__cx *x);

/* api.c: the chosen algorithm of a collective, with no checks (bytes: what the choice is
 * sized by, as in api.c's pick). check.c: SHMC_CHECK's agreement on the call. */
int shmc__coll_run(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count,
                   size_t bytes);
int shmc__coll_check(int coll, const struct shmc__cx *x, size_t count);
/* count * es <= SHMC_WSYNC_BYTES. */
int shmc__wsync_allreduce(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);

/* ---- coll/slot.c: the shared staging slots ------------------------------------------ */

/* The stamp of the communicator's next round: uid in the high half, round in the low. */
uint64_t shmc__slot_next(struct shmc__comm *c);
/* Waits until every reader of what this rank published before has finished with it; then
 * returns this rank's slot data (SHMC_SLOT_BYTES) for writing. */
int shmc__slot_acquire(const struct shmc__cx *x, uint8_t **data);
/* Publishes this rank's slot with `stamp`, to be read by one comm rank (reader) or by
 * every other member (-1); each calls shmc__slot_done once. */
void shmc__slot_publish(const struct shmc__cx *x, uint64_t stamp, int reader);
/* Waits until comm rank owner has published `stamp` (or a later round of this
 * communicator) and returns its slot data. */
int shmc__slot_wait(const struct shmc__cx *x, int owner, uint64_t stamp, const uint8_t **data);
/* This rank is done reading owner's slot for one publication. */
void shmc__slot_done(const struct shmc__cx *x, int owner);

/* ---- coll/reduce.c: ring building blocks (blocks as shmc__block splits count) ----- */

/* Reduce-scatter of src (this rank's full input, count elements): afterwards out holds
 * the reduced block `me` (not yet AVG-finished). out may be src's block `me` (in place);
 * src is not written otherwise. */
int shmc__ring_reduce_scatter(const struct shmc__cx *x, const uint8_t *src, uint8_t *out,
                              size_t count);
/* All-gather in place in w: rank r starts with block r and ends with all of them. */
int shmc__ring_allgather(const struct shmc__cx *x, uint8_t *w, size_t count);

/* ---- the algorithms ------------------------------------------------------------------ */
/* Every algorithm has this signature, so coll/api.c picks one from a table. Buffers are
 * resolved by coll/api.c: sbuf is never SHMC_IN_PLACE here (in-place calls pass the
 * receive buffer, or NULL where the rank's own data is already in place, as each family
 * says below). count is in elements of x->dt and never 0; the root is x->root. */
typedef int (*shmc__coll_fn)(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);

#define SHMC_COLL_FN(name)                                                                         \
    int name(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)

/* Barrier: no buffers. */
SHMC_COLL_FN(shmc__barrier_tree);
SHMC_COLL_FN(shmc__barrier_ring);
SHMC_COLL_FN(shmc__barrier_rd);
SHMC_COLL_FN(shmc__barrier_shm);

/* Broadcast: the buffer is rbuf; sbuf is unused. */
SHMC_COLL_FN(shmc__bcast_tree);
SHMC_COLL_FN(shmc__bcast_ring);
SHMC_COLL_FN(shmc__bcast_shm);

/* Reduce: rbuf is significant at the root only; sbuf may equal rbuf (in place). */
SHMC_COLL_FN(shmc__reduce_tree);
SHMC_COLL_FN(shmc__reduce_ring);
SHMC_COLL_FN(shmc__reduce_shm);

/* All-reduce: sbuf may equal rbuf (in place). */
SHMC_COLL_FN(shmc__allreduce_tree);
SHMC_COLL_FN(shmc__allreduce_ring);
SHMC_COLL_FN(shmc__allreduce_rd);
SHMC_COLL_FN(shmc__allreduce_shm);
/* World communicator only; elsewhere it is shm (same order, same bits). */
SHMC_COLL_FN(shmc__allreduce_direct);
/* Device buffers (coll/devdirect.c): every member's buffers mapped, one kernel each. */
SHMC_COLL_FN(shmc__allreduce_devdirect);
/* Tests only: run after the first round of each direct all-reduce; pieces this process
 * combined for other ranks. */
extern void (*shmc__direct_hook)(void);
extern uint64_t shmc__direct_helped;

/* Gather: count per rank; sbuf NULL at the root: its block is already in rbuf. */
SHMC_COLL_FN(shmc__gather_tree);
SHMC_COLL_FN(shmc__gather_ring);
SHMC_COLL_FN(shmc__gather_shm);

/* All-gather: sbuf NULL: this rank's block is already in rbuf. */
SHMC_COLL_FN(shmc__allgather_tree);
SHMC_COLL_FN(shmc__allgather_ring);
SHMC_COLL_FN(shmc__allgather_shm);

/* Scatter: rbuf NULL at the root: it keeps its block in sbuf. */
SHMC_COLL_FN(shmc__scatter_tree);
SHMC_COLL_FN(shmc__scatter_ring);
SHMC_COLL_FN(shmc__scatter_shm);

/* Reduce-scatter: sbuf holds n * count elements; rbuf receives this rank's count (it
 * may be sbuf itself for in place: the result replaces the first block). */
SHMC_COLL_FN(shmc__reduce_scatter_tree);
SHMC_COLL_FN(shmc__reduce_scatter_ring);
SHMC_COLL_FN(shmc__reduce_scatter_shm);

/* All-to-all: count per destination; sbuf and rbuf do not overlap. */
SHMC_COLL_FN(shmc__alltoall_tree);
SHMC_COLL_FN(shmc__alltoall_ring);
SHMC_COLL_FN(shmc__alltoall_shm);

#endif /* SHMC_COLL_H */
