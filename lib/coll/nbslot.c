/*
 * The world's rooted nonblocking collectives through the nonblocking lane's slots
 * (nbslot.h; slot.c has the protocol). A call is one publication on every rank that puts:
 *
 *   broadcast: the root puts the vector for all members, which take it from its slot;
 *   gather:    every other member puts its block for the root, which takes them;
 *   reduce:    every member puts its vector (the root's for itself, so that an in-place
 *              root reads its input from there), and the root combines them in rank
 *              order, left to right, as the blocking slots do.
 *
 * A rank that puts first waits, without blocking, until the readers of its last
 * publication are done with it; one that takes waits for the publications it needs, and
 * marks each done as soon as it has read it. Neither waits for a member it takes nothing from: the root of
 * a broadcast ends on publishing, as the blocking call's does. Every publication carries
 * the call's words, which a reader compares with its own (a mismatch: SHMC_ERR_MISMATCH,
 * said, and this rank quits the world's collectives, so that the others stop too).
 *
 * The gate of such a call that runs as a schedule (another count) publishes and waits the
 * same way without data, so that a member whose same call went through the slots meets its
 * words rather than waiting for ever, and this rank meets the member's.
 */
#include "coll/nbslot.h"

#include "base/copy.h"
#include "base/reduction.h"
#include "coll/slot.h"

int shmc__nbs_rooted(int coll, const struct shmc__cx *x)
{
    return x->n > 2 &&
           (coll == SHMC_C_BROADCAST || coll == SHMC_C_REDUCE || coll == SHMC_C_GATHER);
}

/* The call's data: the vector of a broadcast or reduce, all n blocks of a gather. */
static size_t whole(int coll, const struct shmc__cx *x, size_t count)
{
    return (coll == SHMC_C_GATHER ? (size_t)x->n : 1) * count * x->es;
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

/* Does the call's data flow to the root (a gather, a reduce), rather than from it (a
 * broadcast)? */
static int to_root(const struct shmc__wround *b)
{
    return b->coll != SHMC_C_BROADCAST;
}

/* Does this rank put a publication, and for whom (a comm rank, or -1: every other)? */
static int putter(const struct shmc__wround *b)
{
    int root = b->x->root, me = b->x->me;
    return b->coll == SHMC_C_REDUCE || (to_root(b) ? me != root : me == root);
}

static int reader(const struct shmc__wround *b)
{
    return to_root(b) ? b->x->root : -1;
}

/* Does this rank take anything (the root's own block of a gather included)? */
static int taker(const struct shmc__wround *b)
{
    return (b->x->me == b->x->root) == to_root(b);
}

/* Does this rank take from member q's publication? */
static int takes_from(const struct shmc__wround *b, int q)
{
    int root = b->x->root, me = b->x->me;
    return to_root(b) ? me == root && q != me : me != root && q == root;
}

/* A broadcast's vector, a gather's block or a reduce's vector into this rank's slot. */
static void put(const struct shmc__wround *b, uint8_t *mine)
{
    shmc__copy(mine, to_root(b) ? b->sbuf : b->rbuf, b->count * b->x->es);
}

/* This rank's part from member q's publication (q == me: its own part of a gather or
 * reduce), seen already with the call's words. A reduce combines in rank order, q after q,
 * left to right. */
static void take_part(const struct shmc__wround *b, int q, const uint8_t *mine)
{
    const struct shmc__cx *x = b->x;
    size_t bytes = b->count * x->es;
    switch (b->coll) {
    case SHMC_C_BROADCAST:
        if (q == x->root)
            shmc__copy(b->rbuf, shmc__slot_nb_theirs(x, q), bytes);
        break;
    case SHMC_C_GATHER:
        if (q != x->me)
            shmc__copy(b->rbuf + (size_t)q * bytes, shmc__slot_nb_theirs(x, q), bytes);
        else if (b->sbuf) /* (NULL: in place) */
            shmc__copy(b->rbuf + (size_t)q * bytes, b->sbuf, bytes);
        break;
    default: { /* SHMC_C_REDUCE */
        const uint8_t *in = q == x->me ? mine : shmc__slot_nb_theirs(x, q);
        if (q == 0)
            shmc__copy(b->rbuf, in, bytes);
        else
            shmc__reduce(b->rbuf, in, b->count, x->dt, x->op, SHMC_ACC_LEFT);
        if (q == x->n - 1)
            shmc__reduce_finish(b->rbuf, b->count, x->dt, x->op, x->n);
        break;
    }
    }
}

void shmc__nbs_begin(struct shmc__nbs *s, const struct shmc__wround *b, int gate)
{
    *s = (struct shmc__nbs){.b = b, .stamp = shmc__slot_nb_next(b->x), .gate = gate};
}

/* The call's error: this rank quits the world's collectives (slot.c's blocking waits do
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
    uint8_t *mine = NULL;
    int err = SHMC_OK;
    *rc = SHMC_OK;
    if (!s->put) {
        if (putter(b)) {
            if (!shmc__slot_nb_acquire(x, &mine, &err))
                return 0;
            if (err != SHMC_OK)
                return failed(s, rc, err);
            if (!s->gate)
                put(b, mine);
            shmc__slot_nb_publish(x, s->stamp, reader(b));
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
            take_part(b, q, shmc__slot_nb_mine(x));
        if (from)
            shmc__slot_nb_done(x, q);
    }
    return 1;
}
