/*
 * The parts of a world call's rounds, collective by collective (wround.h).
 * Combinations run in rank order from rank 0's part (shmc__reduce with the accumulator on
 * the left), as the one-step all-reduce and the slots combine, so any op, commutative or
 * not, gives the same bits on every member.
 */
#include "coll/wround.h"

#include "base/copy.h"
#include "coll/onestep.h"
#include "coll/wsync.h"

static struct shmc__lane *lane(const struct shmc__wround *b)
{
    return &b->x->co->lane[b->lane];
}

/* Does the call put one chunk per rank into a half (rather than one for all)? */
static int per_rank(int coll)
{
    return coll == SHMC_C_SCATTER || coll == SHMC_C_ALLTOALL || coll == SHMC_C_REDUCE_SCATTER;
}

/* The bytes a round of chunks of `bytes` puts into a half (wsync.h places them by it). */
static size_t half_bytes(const struct shmc__wround *b, size_t bytes)
{
    return per_rank(b->coll) ? (size_t)b->x->n * bytes : bytes;
}

/* Rank q's data in its half of round r, of chunks of `bytes`. */
static const uint8_t *theirs(const struct shmc__wround *b, int q, uint64_t r, size_t bytes)
{
    return shmc__wsync_theirs(b->x->co, lane(b), q, r, half_bytes(b, bytes));
}

/* The same once rank q has entered round r: NULL where the round failed first (b->look:
 * the blocking call's round, waited for rank by rank; NULL: every rank is in already). */
static inline __attribute__((always_inline)) const uint8_t *got(const struct shmc__wround *b, int q,
                                                                uint64_t r, size_t bytes)
{
    if (b->look && !shmc__wsync_wait_rank(b->look, q))
        return NULL;
    return theirs(b, q, r, bytes);
}

size_t shmc__wround_elems(int coll, const struct shmc__cx *x)
{
    /* (a shift for the usual power-of-two elements: a division is most of this call) */
    size_t es = x->es, half = SHMC_WSYNC_BYTES,
           fit = (es & (es - 1)) ? half / es : half >> __builtin_ctzl(es);
    return per_rank(coll) ? fit / (size_t)x->n : fit;
}

/* Element i of block q of a buffer of n blocks of count. */
static size_t at(const struct shmc__wround *b, int q, size_t i)
{
    return ((size_t)q * b->count + i) * b->x->es;
}

/* The input of an all-to-all or reduce-scatter: sbuf, or in place rbuf. */
static const uint8_t *src(const struct shmc__wround *b)
{
    return (const void *)b->sbuf == SHMC_IN_PLACE ? b->rbuf : b->sbuf;
}

/* This rank's own block of an all-gather or gather: sbuf, or in place in rbuf. */
static const uint8_t *own(const struct shmc__wround *b)
{
    return b->sbuf ? b->sbuf : b->rbuf + at(b, b->x->me, 0);
}

/* out = the chunks at offset `off` of every rank's half, combined in rank order, this
 * rank's from `own` where it may (onestep.h). */
static void combine(const struct shmc__wround *b, uint64_t r, size_t off, const uint8_t *own,
                    uint8_t *out, size_t len)
{
    shmc__onestep_world_combine(b->x, lane(b), r, half_bytes(b, len * b->x->es), off, own, out, len,
                                b->look);
}

/* Where put copies the chunk at element e from (of block 0, for the calls that put one
 * for each rank; block q lies q blocks further): the half's data takes its place modulo a
 * line (wsync.h). NULL where this rank puts nothing. */
static const uint8_t *put_src(const struct shmc__wround *b, size_t e)
{
    const struct shmc__cx *x = b->x;
    switch (b->coll) {
    case SHMC_C_BROADCAST:
        return x->me == x->root ? b->rbuf + e * x->es : NULL;
    case SHMC_C_REDUCE:
    case SHMC_C_ALLREDUCE:
        return b->sbuf + e * x->es;
    case SHMC_C_GATHER:
        return x->me != x->root ? b->sbuf + e * x->es : NULL;
    case SHMC_C_ALLGATHER:
        return own(b) + e * x->es;
    case SHMC_C_SCATTER:
        return x->me == x->root ? b->sbuf + at(b, 0, e) : NULL;
    case SHMC_C_ALLTOALL:
    case SHMC_C_REDUCE_SCATTER:
        return src(b) + at(b, 0, e);
    default: /* a barrier: no data */
        return NULL;
    }
}

/* Does this rank take nothing from the others' halves (the root of a broadcast or a
 * scatter, a member of a reduce or a gather other than its root)? */
static int takes_none(const struct shmc__wround *b)
{
    int root = b->x->me == b->x->root;
    switch (b->coll) {
    case SHMC_C_BROADCAST:
    case SHMC_C_SCATTER:
        return root;
    case SHMC_C_REDUCE:
    case SHMC_C_GATHER:
        return !root;
    default:
        return 0;
    }
}

void shmc__wround_put(const struct shmc__wround *b, uint64_t r, size_t e, size_t len)
{
    const struct shmc__cx *x = b->x;
    size_t bytes = len * x->es;
    const uint8_t *from = put_src(b, e);
    uint8_t *mine = shmc__wsync_mine(lane(b), r, half_bytes(b, bytes), from);
    if (takes_none(b))
        shmc__wsync_takes(lane(b), r, 0, 0);
    else if (per_rank(b->coll))
        shmc__wsync_takes(lane(b), r, (size_t)x->me * bytes, bytes);
    if (!from)
        return;
    if (!per_rank(b->coll)) {
        /* Only a reduce's root reads the halves, and its own part from its input where it
         * may (shmc__own_part, which says NULL where the half must hold it). */
        if (b->coll == SHMC_C_REDUCE && x->me == x->root &&
            shmc__own_part(x, from, NULL, b->rbuf + e * x->es, bytes))
            return;
        shmc__copy(mine, from, bytes);
        return;
    }
    /* Of the calls that put a block for each rank, this rank's own block stays out of its
     * half: nobody reads it there (take copies it from the input, and a reduce-scatter's
     * combination reads it from there too: its output, block 0's chunk, never overlaps
     * another rank's own block, and rank 0's own block is its output in place). */
    for (int q = 0; q < x->n; q++)
        if (q != x->me)
            shmc__copy(mine + (size_t)q * bytes, from + at(b, q, 0), bytes);
}

/* take's part that needs no round (shmc__wround_own). */
static inline __attribute__((always_inline)) void own_block(const struct shmc__wround *b, size_t e,
                                                            size_t len)
{
    const struct shmc__cx *x = b->x;
    size_t bytes = len * x->es, es = x->es;
    int me = x->me;
    switch (b->coll) {
    case SHMC_C_GATHER:
        if (me == x->root && b->sbuf) /* (NULL: in place) */
            shmc__copy(b->rbuf + at(b, me, e), b->sbuf + e * es, bytes);
        break;
    case SHMC_C_ALLGATHER:
        if (b->sbuf)
            shmc__copy(b->rbuf + at(b, me, e), b->sbuf + e * es, bytes);
        break;
    case SHMC_C_SCATTER:
        if (me == x->root && b->rbuf)
            shmc__copy(b->rbuf + e * es, b->sbuf + at(b, me, e), bytes);
        break;
    case SHMC_C_ALLTOALL:
        if (src(b) != b->rbuf) /* (in place, our block is there already) */
            shmc__copy(b->rbuf + at(b, me, e), src(b) + at(b, me, e), bytes);
        break;
    default:
        break;
    }
}

/* Every other rank's chunk of `bytes` at byte `off` of its data in round r, to its
 * block's place in the result; stops where the round failed first. */
static inline __attribute__((always_inline)) void
take_each(const struct shmc__wround *b, uint64_t r, size_t e, size_t bytes, size_t off)
{
    for (int q = 0; q < b->x->n; q++) {
        const uint8_t *from;
        if (q == b->x->me)
            continue;
        if (!(from = got(b, q, r, bytes)))
            return;
        shmc__copy(b->rbuf + at(b, q, e), from + off, bytes);
    }
}

void shmc__wround_take(const struct shmc__wround *b, uint64_t r, size_t e, size_t len)
{
    const struct shmc__cx *x = b->x;
    size_t bytes = len * x->es, es = x->es;
    int me = x->me, root = x->root;
    const uint8_t *from;
    if (!b->own_early && shmc__wround_has_own(b->coll))
        own_block(b, e, len);
    switch (b->coll) {
    case SHMC_C_BROADCAST:
        if (me != root && (from = got(b, root, r, bytes)))
            shmc__copy(b->rbuf + e * es, from, bytes);
        break;
    case SHMC_C_REDUCE:
        if (me == root)
            combine(b, r, 0, b->sbuf + e * es, b->rbuf + e * es, len);
        break;
    case SHMC_C_ALLREDUCE:
        combine(b, r, 0, b->sbuf + e * es, b->rbuf + e * es, len);
        break;
    case SHMC_C_GATHER:
        if (me == root)
            take_each(b, r, e, bytes, 0);
        break;
    case SHMC_C_ALLGATHER:
        take_each(b, r, e, bytes, 0);
        break;
    case SHMC_C_SCATTER:
        if (me != root && (from = got(b, root, r, bytes)))
            shmc__copy(b->rbuf + e * es, from + (size_t)me * bytes, bytes);
        break;
    case SHMC_C_ALLTOALL:
        take_each(b, r, e, bytes, (size_t)me * bytes);
        break;
    case SHMC_C_REDUCE_SCATTER:
        combine(b, r, (size_t)me * bytes, src(b) + at(b, me, e), b->rbuf + e * es, len);
        break;
    default:
        break;
    }
}

void shmc__wround_own(struct shmc__wround *b, size_t e, size_t len)
{
    own_block(b, e, len);
    b->own_early = 1;
}

int shmc__wround_blocking(int coll, const struct shmc__cx *x, size_t count)
{
    if (x->n < 2 || !shmc__cx_world(x))
        return 0;
    if (coll != SHMC_C_ALLTOALL)
        return count <= shmc__wround_elems(coll, x);
    /* (a product, not two divisions; count first, so that it cannot overflow: es is at most
     * SHMC_DTYPE_BYTES_MAX and n SHMC_MAX_RANKS) */
    return count <= SHMC_ONESTEP_MAX && count * x->es * (size_t)x->n <= SHMC_ONESTEP_MAX;
}

int shmc__wround_pass(const struct shmc__cx *x)
{
    if (x->n < 2 || !shmc__cx_world(x))
        return SHMC_OK;
    return shmc__onestep_world_enter(x, shmc__wsync_next(shmc__wsync_blk(x->co)), 0);
}

int shmc__wround_run(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    struct shmc__wround b = {.coll = coll,
                             .x = x,
                             .sbuf = sbuf,
                             .rbuf = rbuf,
                             .count = count,
                             .lane = SHMC_LANE_BLOCKING};
    uint64_t r = shmc__wsync_next(lane(&b));
    struct shmc__wsync_look w;
    shmc__wround_put(&b, r, 0, count);
    shmc__onestep_world_post(x, r, &w);
    /* (as the nonblocking call's one round does, while the others enter) */
    if (shmc__wround_has_own(coll))
        shmc__wround_own(&b, 0, count);
    /* Each rank's part taken as soon as that rank is in, as the slots' readers take theirs:
     * a reduce's root combines rank 0's part, a gather's root copies it, while the others
     * still write. The wait that follows ends the round; where it fails, what take wrote
     * is no result. */
    b.look = &w;
    shmc__wround_take(&b, r, 0, count);
    return shmc__onestep_world_wait(x, &w, 0);
}
