/*
 * The rooted nonblocking collectives through the world's nonblocking lane's slots, or on
 * another communicator through its slot entry (nbcomm.c) (nbslot.h; slot.c has the
 * protocol). A call is one publication on every rank that puts:
 *
 *   broadcast: the root puts the vector for all members, which take it from its slot;
 *   gather:    every other member puts its block for the root, which takes them;
 *   reduce:    every other member puts its vector, and the root combines them with its
 *              own in rank order, left to right, as the blocking slots do; its own
 *              from its input, but from its slot where it is in place and rank 0's turn
 *              would write over it first (shmc__own_part, cx.h).
 *
 * And on another communicator than the world, where every member publishes for every
 * other (everyone_kind()): an all-reduce's vector, which each combines in rank order; the n
 * blocks of a reduce-scatter, whose own block each combines so; an all-gather's block;
 * an all-to-all's n blocks, whose own block each takes.
 *
 * A rank that puts first waits, without blocking, until its slot has room (slot.c: the
 * readers of what lies in the half or halves it takes are done with it); one that takes
 * waits for the publications it needs, and marks each done as soon as it has read it.
 * Neither waits for a member it takes nothing from: the root of a broadcast ends on
 * publishing, as the blocking call's does. Every publication carries the call's words,
 * which a reader compares with its own (a mismatch: SHMC_ERR_MISMATCH, said, and this
 * rank quits the communicator's collectives, so that the others stop too).
 *
 * The gate of such a call that runs as a schedule (another count) publishes and waits the
 * same way without data, so that a member whose same call went through the slots meets its
 * words rather than waiting for ever, and this rank meets the member's.
 */
#include "coll/nbslot.h"

#include "base/copy.h"
#include "base/reduction.h"
#include "coll/algos.h"
#include "coll/slot.h"

int shmc__nbs_rooted(int coll, const struct shmc__cx *x)
{
    return x->n >= SHMC_NBS_RANKS_MIN &&
           (coll == SHMC_C_BROADCAST || coll == SHMC_C_REDUCE || coll == SHMC_C_GATHER);
}

/* The call's data that the root sends or takes: a broadcast's vector, the n vectors of a
 * reduce or blocks of a gather. */
static size_t whole(int coll, const struct shmc__cx *x, size_t count)
{
    return (coll == SHMC_C_BROADCAST ? 1 : (size_t)x->n) * count * x->es;
}

int shmc__nbs_takes(int coll, const struct shmc__cx *x, size_t count)
{
    /* One publication: a rank's block or vector. */
    return whole(coll, x, count) > SHMC_NBS_MIN && count <= SHMC_SLOT_BYTES / x->es;
}

int shmc__nbs_gated(int coll, const struct shmc__cx *x, size_t count)
{
    return whole(coll, x, count) > SHMC_NBS_MIN;
}

/* Is coll one whose every member publishes its input for every other and takes its part of
 * theirs (an all-reduce, reduce-scatter, all-gather or all-to-all)? */
static int everyone_kind(int coll)
{
    return coll == SHMC_C_ALLREDUCE || coll == SHMC_C_REDUCE_SCATTER || coll == SHMC_C_ALLGATHER ||
           coll == SHMC_C_ALLTOALL;
}

int shmc__nbs_everyone(int coll, const struct shmc__cx *x, size_t count)
{
    if (x->n < SHMC_NBS_RANKS_MIN || !count)
        return 0;
    switch (coll) {
    case SHMC_C_ALLREDUCE:
        return count <= SHMC_SHM_ONE_PHASE_MAX / x->es;
    case SHMC_C_ALLGATHER:
        return count <= SHMC_SLOT_BYTES / x->es;
    case SHMC_C_REDUCE_SCATTER:
    case SHMC_C_ALLTOALL:
        return count <= SHMC_SLOT_BYTES / ((size_t)x->n * x->es);
    default:
        return 0;
    }
}

/* The bytes of a publication: the n blocks of a reduce-scatter or all-to-all (member d's
 * at d blocks), else the call's count. */
static size_t pub_bytes(const struct shmc__wround *b)
{
    int n_blocks = b->coll == SHMC_C_REDUCE_SCATTER || b->coll == SHMC_C_ALLTOALL;
    return (n_blocks ? (size_t)b->x->n : 1) * b->count * b->x->es;
}

/* Does the call's data flow to the root (a gather, a reduce), rather than from it (a
 * broadcast)? */
static int to_root(const struct shmc__wround *b)
{
    return b->coll != SHMC_C_BROADCAST;
}

/* Does the root of a reduce stage its input in its slot (in place, after rank 0's turn)? */
static int stages(const struct shmc__wround *b, size_t bytes)
{
    return b->coll == SHMC_C_REDUCE && b->x->me == b->x->root && bytes &&
           !shmc__own_part(b->x, b->sbuf, NULL, b->rbuf, bytes);
}

/* Does this rank put a publication (for whom: reader)? `bytes`: of the publication. */
static int putter(const struct shmc__wround *b, size_t bytes)
{
    int root = b->x->root, me = b->x->me;
    return everyone_kind(b->coll) || (to_root(b) ? me != root : me == root) || stages(b, bytes);
}

static int reader(const struct shmc__wround *b)
{
    return !everyone_kind(b->coll) && to_root(b) ? b->x->root : -1;
}

/* Does this rank take anything (the root's own block of a gather included)? */
static int taker(const struct shmc__wround *b)
{
    return everyone_kind(b->coll) || (b->x->me == b->x->root) == to_root(b);
}

/* Does this rank take from member q's publication? */
static int takes_from(const struct shmc__wround *b, int q)
{
    int root = b->x->root, me = b->x->me;
    if (everyone_kind(b->coll))
        return q != me;
    return to_root(b) ? me == root && q != me : me != root && q == root;
}

/* A broadcast's vector, a gather's or all-gather's block, a reduce's or all-reduce's vector,
 * or a reduce-scatter's or all-to-all's n blocks into this rank's slot (before anything is
 * written to rbuf, which may be the input: in place). */
static void put(const struct shmc__wround *b, uint8_t *mine)
{
    const uint8_t *from = b->sbuf;
    if (b->coll == SHMC_C_BROADCAST)
        from = b->rbuf;
    else if (b->coll == SHMC_C_ALLGATHER && !from) /* (in place: its block in rbuf) */
        from = b->rbuf + (size_t)b->x->me * b->count * b->x->es;
    else if (b->coll == SHMC_C_ALLTOALL && from == (const uint8_t *)SHMC_IN_PLACE)
        from = b->rbuf;
    shmc__copy(mine, from, pub_bytes(b));
}

/* This rank's part from member q's publication `stamp` (q == me: its own part of a gather
 * or reduce: a reduce's from its slot at mine where it staged it there, else from its
 * input; of an all-reduce, reduce-scatter or all-to-all, from its publication at mine; of
 * an all-gather, from its input), seen already with the call's words. The reductions
 * combine in rank order, q after q, left to right. */
static void take_part(const struct shmc__wround *b, int q, uint64_t stamp, const uint8_t *mine)
{
    const struct shmc__cx *x = b->x;
    size_t bytes = b->count * x->es;
    switch (b->coll) {
    case SHMC_C_ALLREDUCE:
    case SHMC_C_REDUCE_SCATTER: {
        /* (the vector, or this rank's block of the n) */
        size_t off = b->coll == SHMC_C_REDUCE_SCATTER ? (size_t)x->me * bytes : 0;
        const uint8_t *in =
            (q != x->me ? shmc__slot_nb_theirs(x, q, stamp, pub_bytes(b)) : mine) + off;
        if (q == 0)
            shmc__copy(b->rbuf, in, bytes);
        else
            shmc__reduce(b->rbuf, in, b->count, x->dt, x->op, SHMC_ACC_LEFT);
        if (q == x->n - 1)
            shmc__reduce_finish(b->rbuf, b->count, x->dt, x->op, x->n);
        break;
    }
    case SHMC_C_ALLTOALL: /* (this rank's own block from its publication: in place too) */
        shmc__copy(b->rbuf + (size_t)q * bytes,
                   (q != x->me ? shmc__slot_nb_theirs(x, q, stamp, pub_bytes(b)) : mine) +
                       (size_t)x->me * bytes,
                   bytes);
        break;
    case SHMC_C_BROADCAST:
        if (q == x->root)
            shmc__copy(b->rbuf, shmc__slot_nb_theirs(x, q, stamp, bytes), bytes);
        break;
    case SHMC_C_GATHER:
    case SHMC_C_ALLGATHER: /* (a gather's root; every member of an all-gather) */
        if (q != x->me)
            shmc__copy(b->rbuf + (size_t)q * bytes, shmc__slot_nb_theirs(x, q, stamp, bytes),
                       bytes);
        else if (b->sbuf) /* (NULL: in place) */
            shmc__copy(b->rbuf + (size_t)q * bytes, b->sbuf, bytes);
        break;
    default: { /* SHMC_C_REDUCE */
        const uint8_t *in = q != x->me ? shmc__slot_nb_theirs(x, q, stamp, bytes)
                            : mine     ? mine
                                       : b->sbuf;
        if (q == 0) {
            if (in != b->rbuf) /* (not an in-place root 0's own) */
                shmc__copy(b->rbuf, in, bytes);
        } else {
            shmc__reduce(b->rbuf, in, b->count, x->dt, x->op, SHMC_ACC_LEFT);
        }
        if (q == x->n - 1)
            shmc__reduce_finish(b->rbuf, b->count, x->dt, x->op, x->n);
        break;
    }
    }
}

void shmc__nbs_begin(struct shmc__nbs *s, const struct shmc__wround *b, int gate)
{
    *s = (struct shmc__nbs){.b = b, .stamp = shmc__slot_nb_next(b->x, gate), .gate = gate};
}

uint64_t shmc__nbs_mark(int coll, const struct shmc__cx *x)
{
    if (!shmc__nbs_rooted(coll, x)) {
        /* (the world runs the rest by its rounds; a communicator without an entry has no
         * slots) */
        if (!x->cc->entry || x->n < SHMC_NBS_RANKS_MIN || !everyone_kind(coll))
            return 0;
    } else if (!x->cc->entry && !shmc__cx_world(x)) {
        return 0;
    }
    return shmc__slot_nb_next(x, 1);
}

/* The call's error: this rank quits the communicator's collectives (slot.c's blocking waits do
 * the same), so that the members waiting for it stop. */
static int failed(const struct shmc__nbs *s, int *rc, int err)
{
    *rc = shmc__cx_quit(s->b->x, err);
    return 1;
}

int shmc__nbs_step(struct shmc__nbs *s, int *rc)
{
    const struct shmc__wround *b = s->b;
    const struct shmc__cx *x = b->x;
    /* (a gate publishes the call's words alone) */
    size_t bytes = s->gate ? 0 : pub_bytes(b);
    int err = SHMC_OK;
    *rc = SHMC_OK;
    if (!s->put) {
        if (putter(b, bytes)) {
            if (!shmc__slot_nb_acquire(x, s->stamp, bytes, &s->mine, &err))
                return 0;
            if (err != SHMC_OK)
                return failed(s, rc, err);
            if (!s->gate)
                put(b, s->mine);
            shmc__slot_nb_publish(x, s->stamp, bytes, reader(b));
        }
        s->put = 1;
    }
    /* Each publication read as soon as it is there and handed back at once, so that its
     * owner may write its next one while this rank waits for the others' (as the blocking
     * gather's root does). */
    for (; s->q < x->n; s->q++) {
        int q = s->q, from = takes_from(b, q);
        if (from) {
            if (!shmc__slot_nb_wait(x, q, s->stamp, &err))
                return 0;
            if (err != SHMC_OK)
                return failed(s, rc, err);
        } else if (q != x->me || !taker(b)) {
            continue;
        }
        if (!s->gate)
            take_part(b, q, s->stamp, s->mine);
        if (from)
            shmc__slot_nb_done(x, q, s->stamp);
    }
    return 1;
}
