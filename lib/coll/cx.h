/*
 * One collective call: its context, the local copies and reductions it makes on host or
 * device memory, the arithmetic of blocks and virtual ranks, and the descriptor every
 * algorithm is known by (dispatch.c picks one per call).
 */
#ifndef SHMC_CX_H
#define SHMC_CX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/dtype.h"
#include "base/log.h"
#include "base/reduction.h"
#include "coll/coll.h"
#include "device/device.h"

/* One collective call. */
struct shmc__cx {
    struct shmc__coll *co;
    struct shmc__comm *c;
    struct shmc__coll_comm *cc; /* c's collective state */
    int n, me;                  /* size of and rank in c */
    uint32_t ctx;               /* c->ctx + 1 */
    uint32_t armed;             /* the time-out it armed the deadline with (callword.h) */
    size_t es;                  /* bytes per element */
    shmc_dtype dt;
    shmc_op op;
    int root;         /* rooted collectives; a reduce-scatterv's: its counts' digest, for its words
                       * (vcollectives.c); 0 otherwise */
    int dev;          /* the buffers are device memory: copies, reductions and scratch on the
                       * device, and only the mailbox algorithms (dispatch.c) */
    uint64_t call[2]; /* what the caller asked for (callword.h), carried by every
                       * synchronisation of the call so that members that differ find
                       * out; 0, 0: nothing (SHMC_CHECK=0) */
    uint64_t hash;    /* shmc__call_hash(call): its messages' tag, the world rounds' */
    uint32_t first;   /* the communicator's round its first slot publication takes: which
                       * call a publication was for (coll/slot.c) */
    /* A nonblocking call (shmc_iallreduce ...): where its request goes; NULL for a
     * blocking one. The public calls share their checks and run a schedule (nbc.h). */
    struct shmc__request **nb;
    int own; /* nb is shmc__coll_own: a blocking call run as a schedule (entry.h) */
    /* A nonblocking call run as a schedule that could have gone through the slots: its
     * stamp there (shmc__nbs_mark), which its schedule's waits look up (sched.c); 0: none. */
    uint64_t slot_stamp;
};

/* An algorithm. run: the call on every member. Buffers are resolved by collectives.c: sbuf is
 * never SHMC_IN_PLACE here (in-place calls pass the receive buffer, or NULL where the
 * rank's own data is already in place, as each family says in algos.h); count is in
 * elements of x->dt and never 0; the root is x->root. scratch_need: the most of each
 * scratch buffer any member may borrow in this call, whoever is root (the same on every
 * member, scratch.c); NULL for an algorithm that borrows none. */
struct shmc__coll_algo {
    int (*run)(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
    void (*scratch_need)(const struct shmc__cx *x, size_t count, size_t need[SHMC_NSCRATCH]);
    /* 1: every need is at most the call's bytes, as shmc__coll_run is given them (a test
     * checks it: check_scratch), so that a host call no larger than what every member
     * holds from shmc_init skips the agreement without working its needs out. */
    int within_bytes;
};

/* A call on communicator c of elements of dt (op SUM and root 0 until set). */
static inline void shmc__cx_init(struct shmc__cx *x, struct shmc__coll *co, struct shmc__comm *c,
                                 shmc_dtype dt)
{
    x->co = co;
    x->c = c;
    x->cc = shmc__coll_comm(c);
    x->n = c->size;
    x->me = c->rank;
    x->ctx = c->ctx + 1;
    x->armed = 0;
    x->es = shmc__dtype_size(dt);
    x->dt = dt;
    x->op = SHMC_SUM;
    x->root = 0;
    x->dev = 0;
    x->call[0] = x->call[1] = 0;
    x->hash = 0;
    x->first = x->cc->round + 1u;
    x->nb = NULL;
    x->own = 0;
    x->slot_stamp = 0;
}

/* This rank gives up the call with err: it quits the communicator's collectives
 * (p2p/quit.c has the protocol), so that every member waiting in the call stops too, and
 * the requests of the call that no peer works on fail. Returns err. The caller waits for
 * its other requests to end before it returns (xfer.c). */
static inline int shmc__cx_quit(const struct shmc__cx *x, int err)
{
    if (err != SHMC_OK)
        shmc__p2p_quit(x->co->p2p, x->c, err);
    return err;
}

/* This rank cannot take part in a call of c's collectives that the members started too
 * (a member quit already, or its memory ran short as the call began): it quits c's
 * collectives and, having posted nothing for the call, settles the quit at once, so that
 * the members end the call with an error rather than wait for its messages (p2p/quit.c).
 * Out of memory, it says so: the members' error names only a member gone. A communicator
 * of one has nobody waiting: it stays usable. Returns err. */
static inline int shmc__cx_drop(struct shmc__p2p *p, struct shmc__comm *c, int err)
{
    if (err == SHMC_OK || c->size == 1)
        return err;
    if (err == SHMC_ERR_NOMEM && !c->quit_self) {
        char where[64];
        shmc__comm_where(c, where, sizeof where);
        SHMC_ERROR("out of memory as a collective started on %s: this rank leaves its "
                   "collectives, and the members' calls on it end with SHMC_ERR_PEER_DEAD; "
                   "free memory and go on with another communicator",
                   where);
    }
    shmc__p2p_quit(p, c, err);
    shmc__p2p_quit_settle(p, c);
    return err;
}

/* A collective that failed part-way (a member gone, a mailbox broken, a copy failed, a
 * message of the wrong size) leaves the members out of step: some returned early, others
 * are still inside. This rank quits the communicator's collectives, which tells the
 * others, and from then on every collective on it fails at its start (collectives.c,
 * split.c), rather than meeting that call's leftovers (which would read as a mismatch, or
 * wait forever). Errors every member returns at the same step leave it in step: the
 * scratch agreement's SHMC_ERR_NOMEM and the checks' SHMC_ERR_MISMATCH (a mismatch that
 * only one member saw has quit already, in xfer.c). A member gone after doing its part of
 * a call (a gather's sender, say) fails nothing. Point-to-point on the communicator still
 * works between the members that remain. */
static inline int shmc__cx_outcome(const struct shmc__cx *x, int rc)
{
    if (rc != SHMC_ERR_NOMEM && rc != SHMC_ERR_MISMATCH)
        shmc__cx_quit(x, rc);
    return rc;
}

/* This rank's own arguments disagree with themselves (a block it sends itself is not the
 * size it receives, its count is not what the counts array gives it): it quits, as a
 * mismatch seen in a message does (xfer.c), so that no member waits for its blocks. */
static inline int shmc__cx_own_mismatch(const struct shmc__cx *x)
{
    return shmc__cx_quit(x, SHMC_ERR_MISMATCH);
}

/* The error every collective on x's communicator fails with at its start, after a
 * failure of this rank or of a member (it quits too, so those waiting for it stop, and
 * having no request on the communicator it has left the call at once), or SHMC_OK. */
static inline int shmc__cx_failed(const struct shmc__cx *x)
{
    return x->c->quit ? shmc__cx_drop(x->co->p2p, x->c, x->c->quit) : SHMC_OK;
}

/* Is x on the world communicator (which alone has the one-step rounds of wsync.c)? */
static inline int shmc__cx_world(const struct shmc__cx *x)
{
    return x->c->uid == 1;
}

/* The same call as a host call of count words of dt combined with op, rooted at 0: the
 * context of the small agreements that collectives make among their members. */
static inline struct shmc__cx shmc__cx_host(const struct shmc__cx *x, shmc_dtype dt, shmc_op op)
{
    struct shmc__cx y = *x;
    y.dev = 0;
    y.dt = dt;
    y.es = shmc__dtype_size(dt);
    y.op = op;
    y.root = 0;
    return y;
}

/* The same call with another root (for algorithms built from rooted ones). */
static inline struct shmc__cx shmc__cx_rooted(const struct shmc__cx *x, int root)
{
    struct shmc__cx y = *x;
    y.root = root;
    return y;
}

/* Local reductions and copies of one call: local.h. */

/* The last step of a reduction of `ranks` inputs (AVG divides by it) over n elements. */
static inline int shmc__cx_finish_over(const struct shmc__cx *x, void *buf, size_t n, int ranks)
{
    if (x->dev)
        return shmc__dev_reduce_finish(buf, n, x->dt, x->op, ranks);
    shmc__reduce_finish(buf, n, x->dt, x->op, ranks);
    return SHMC_OK;
}

/* The same over every member's input. */
static inline int shmc__cx_finish(const struct shmc__cx *x, void *buf, size_t n)
{
    return shmc__cx_finish_over(x, buf, n, x->n);
}

/* Elements in and offset of block i when count elements are split over n ranks: the
 * first count % n blocks get one element more. */
static inline void shmc__block(size_t count, int n, int i, size_t *off, size_t *len)
{
    size_t base = count / (size_t)n, rem = count % (size_t)n, ui = (size_t)i;
    *len = base + (ui < rem);
    *off = ui * base + (ui < rem ? ui : rem);
}

/* Where a combination in rank order into out (bytes long) reads this rank's own part:
 * its input `in`, unless the input overlaps out and this rank's turn comes after rank 0's
 * part has been written over it (in place), then the copy it shared (`staged`: its half
 * or slot). A part another rank has just read from the shared copy came slower to the
 * rank that wrote it than its input from its own memory (the commit that made this has
 * the figures). The combination skips rank 0's copy where its source is out already. */
static inline const uint8_t *shmc__own_part(const struct shmc__cx *x, const void *in,
                                            const uint8_t *staged, const void *out, size_t bytes)
{
    const uint8_t *i = in, *o = out;
    return x->me > 0 && i < o + bytes && o < i + bytes ? staged : i;
}

/* b + off bytes, where b is NULL when a call has no data (off then 0; NULL + 0 is
 * undefined behaviour in C). */
static inline const void *shmc__at(const void *b, size_t off)
{
    return off ? (const char *)b + off : b;
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

/* Blocks in virtual rank v's binomial subtree: v .. v + min(lowbit(v), n - v) - 1 (the
 * root: all). */
static inline int shmc__subtree(int v, int n)
{
    if (v == 0)
        return n;
    int low = v & -v;
    return low < n - v ? low : n - v;
}

#endif /* SHMC_CX_H */
