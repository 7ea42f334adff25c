/*
 * The nonblocking collectives' algorithms (nbc.h): schedules of messages and local work.
 */
#include "coll/nbc.h"

#include <stdint.h>
#include <stdlib.h>

#include "base/dtype.h"
#include "base/log.h"
#include "base/userop.h"
#include "coll/algos.h"
#include "coll/dispatch.h"
#include "coll/sched.h"

/* A call of shmc__nbc_run, as its schedule's key is made from it. */
struct call {
    int coll;
    const struct shmc__cx *x;
    const void *sbuf;
    void *rbuf;
    size_t count;
};

/* The call shmc__nbc_run is building a schedule for, if any: the schedule started by go()
 * is kept under its key to run again (sched.h). The key is made only then, or where a
 * schedule is kept that it may match: most small calls end in their start without one
 * (shmc__sched_one), and their key's making and look were a tenth of such a start
 * (bench/path_cost.sh). */
static const struct call *building;

static void key_of(const struct call *b, struct shmc__sched_key *k)
{
    const struct shmc__cx *x = b->x;
    *k = (struct shmc__sched_key){.c = x->c,
                                  .uid = x->c->uid,
                                  .coll = b->coll,
                                  .root = x->root,
                                  .own = x->own,
                                  .forced = x->co->algo[b->coll],
                                  .commutes = shmc__op_commutes(x->op),
                                  .dt = x->dt,
                                  .op = x->op,
                                  .count = b->count,
                                  .es = x->es,
                                  .sbuf = b->sbuf,
                                  .rbuf = b->rbuf};
}

/* Starts s, or reports that it could not be made. */
static int go(struct shmc__sched *s, struct shmc__request **req)
{
    *req = NULL;
    if (s && building) {
        struct shmc__sched_key k;
        key_of(building, &k);
        shmc__sched_keep(s, &k);
    }
    return s ? shmc__sched_start(s, req) : SHMC_ERR_NOMEM;
}

/* Does call x exchange its blocks, sb bytes out and rb in, by shmc__sched_swap (2 ranks,
 * blocks that it takes in its start)? */
static int swaps(const struct shmc__cx *x, size_t sb, size_t rb)
{
    return x->n == 2 && sb <= SHMC_SWAP_NOW_MAX && rb <= SHMC_SWAP_NOW_MAX;
}

int shmc__nbc_barrier(const struct shmc__cx *x, struct shmc__request **req)
{
    if (x->n == 2)
        return shmc__sched_swap(x, &(struct shmc__swap){.peer = 1 - x->me}, req);
    struct shmc__sched *s = shmc__sched_new(x, 0);
    for (int k = 1; s && k < x->n; k <<= 1) {
        shmc__sched_send(s, NULL, 0, (x->me + k) % x->n);
        shmc__sched_recv(s, NULL, 0, (x->me - k + x->n) % x->n);
        shmc__sched_round(s);
    }
    return go(s, req);
}

/* The binomial tree's steps of a broadcast of bytes at buf from root (ranks relative to
 * it): receive from the parent, then send to the children, largest subtree first. */
static void bcast_steps(struct shmc__sched *s, const struct shmc__cx *x, void *buf, size_t bytes,
                        int root)
{
    int n = x->n, vr = (x->me - root + n) % n, low = vr & -vr, top = 1;
    while (top < n)
        top <<= 1;
    if (vr) {
        shmc__sched_recv(s, buf, bytes, (vr - low + root) % n);
        shmc__sched_round(s);
    }
    for (int mask = (vr ? low : top) >> 1; mask > 0; mask >>= 1)
        if (vr + mask < n)
            shmc__sched_send(s, buf, bytes, (vr + mask + root) % n);
    shmc__sched_round(s);
}

/* Other than 2 ranks: the binomial tree, or the root sending to each member where the
 * blocking call does (dispatch.c: no member waits for a forwarder to be scheduled,
 * flat.c). Out of line for shmc__nbc_bcast's sake (flat.c, shmc__bcast_direct, says why). */
static __attribute__((noinline)) int bcast_more(const struct shmc__cx *x, void *buf, size_t count,
                                                struct shmc__request **req)
{
    size_t bytes = count * x->es;
    int n = x->n, vr = (x->me - x->root + n) % n;
    /* One message here: a leaf's (every member's but the root's when direct) */
    int direct = shmc__coll_pick(SHMC_C_BROADCAST, x, bytes) == SHMC_A_DIRECT;
    if (vr && (direct || vr & 1 || vr == n - 1))
        return shmc__sched_one(x, 0, buf, bytes, direct ? x->root : (vr - (vr & -vr) + x->root) % n,
                               req);
    if (direct) /* (the root: a leaf's is one message, above) */
        return shmc__sched_root_sends(x, buf, bytes, NULL, NULL, NULL, NULL, 0, req);
    struct shmc__sched *s = shmc__sched_new(x, 0);
    if (s)
        bcast_steps(s, x, buf, bytes, x->root);
    return go(s, req);
}

int shmc__nbc_bcast(const struct shmc__cx *x, void *buf, size_t count, struct shmc__request **req)
{
    /* At 2 ranks one message each way: its start is reached by a jump. */
    if (x->n == 2)
        return shmc__sched_one(x, x->me == x->root, buf, count * x->es, 1 - x->me, req);
    return bcast_more(x, buf, count, req);
}

/* The steps of a reduction of count elements into rank 0's acc; own is this rank's input
 * where it is, tmp receives. The partial is own itself until the first block arrives: that
 * one is received into acc and own joins it on the left, so the input is never copied
 * first, and a rank that only sends sends it from where it is (own may be acc: in place).
 * Returns with acc holding, on rank 0, the whole reduction (AVG's division not made). */
static void reduce_steps(struct shmc__sched *s, const struct shmc__cx *x, void *acc,
                         const void *own, void *tmp, size_t count)
{
    size_t bytes = count * x->es;
    const void *part = own;
    for (int mask = 1; mask < x->n; mask <<= 1) {
        if (x->me & mask) {
            shmc__sched_send(s, part, bytes, x->me - mask);
            shmc__sched_round(s);
            return;
        }
        if (x->me + mask < x->n) {
            int first = part != acc;
            shmc__sched_recv_kept(s, first ? acc : tmp, bytes, x->me + mask);
            shmc__sched_round(s);
            if (first)
                shmc__sched_reduce(s, acc, own, count, SHMC_ACC_RIGHT);
            else
                shmc__sched_reduce(s, acc, tmp, count, SHMC_ACC_LEFT);
            part = acc;
        }
    }
    if (part != acc) /* (a rank that neither sent nor received: the one of a single rank) */
        shmc__sched_copy(s, acc, part, bytes);
}

/* All-reduce by recursive doubling (n a power of two): at step k each rank swaps its
 * partial with rank me ^ 2^k and combines the two, the lower ranks' block on the left,
 * so every rank holds the rank-ordered combination of its 2^(k+1) ranks; log2 n rounds
 * of one message each way, against twice that for the tree and broadcast. Unless in
 * place, the first round sends the input from where it is and receives the peer's into
 * rbuf, which the input then joins on its side: the input is not copied first, and at
 * 2 ranks the call needs no memory of its own. */
static int allreduce_rd(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count,
                        struct shmc__request **req)
{
    size_t bytes = count * x->es;
    int apart = sbuf != rbuf;
    struct shmc__sched *s = shmc__sched_new(x, apart && x->n == 2 ? 0 : bytes);
    if (!s)
        return go(s, req);
    void *tmp = shmc__sched_tmp(s);
    for (int mask = 1; mask < x->n; mask <<= 1) {
        int peer = x->me ^ mask, first = mask == 1 && apart, low = peer < x->me;
        shmc__sched_send(s, first ? sbuf : rbuf, bytes, peer);
        shmc__sched_recv_kept(s, first ? rbuf : tmp, bytes, peer);
        shmc__sched_round(s);
        if (first) /* (rbuf holds the peer's block, sbuf ours) */
            shmc__sched_reduce(s, rbuf, sbuf, count, low ? SHMC_ACC_LEFT : SHMC_ACC_RIGHT);
        else
            shmc__sched_reduce(s, rbuf, tmp, count, low ? SHMC_ACC_RIGHT : SHMC_ACC_LEFT);
    }
    shmc__sched_finish(s, rbuf, count, x->n);
    return go(s, req);
}

/* The reduce-scatter of a ring, as the blocking ring's (reduce.c): n - 1 steps over the
 * blocks at off[b], len[b] elements of src, block b starting at rank b + 1 and ending
 * complete at rank b, each rank's input on the right of the partial it receives (the
 * blocking ring's order, docs/collectives.md). Step k sends block me - k - 1 (the input's
 * at the first step, then the partial the step before completed) and receives the partial
 * of block me - k - 2 into part[k & 1], or at the last step into out (NULL: out lies in
 * src, which that step still reads), then combines it with the input's; so nothing copies
 * the input first. Each step's block moves in pieces of at most SHMC_RING_PIECE bytes, a
 * round each, so that what a round receives is still in the cache when the next round
 * combines it; every rank takes as many rounds as the longest block needs, so each pair
 * exchanges as many messages (a shorter block's last ones empty). Returns where block me
 * ends up. */
static char *ring_rs_steps(struct shmc__sched *s, const struct shmc__cx *x, const char *src,
                           char *out, char *const part[2], const size_t *off, const size_t *len)
{
    int n = x->n, me = x->me, right = (me + 1) % n, left = (me - 1 + n) % n;
    size_t es = x->es, piece = shmc__ring_piece(x->es), most = 0;
    for (int b = 0; b < n; b++)
        most = len[b] > most ? len[b] : most;
    const char *send = NULL;
    char *in = NULL;
    for (int k = 0; k < n - 1; k++) {
        int o = (me - k - 1 + 2 * n) % n, i = (me - k - 2 + 2 * n) % n;
        if (k == 0)
            send = src + off[o] * es;
        in = k == n - 2 && out ? out : part[k & 1];
        for (size_t at = 0; at < most; at += piece) {
            size_t sl = at < len[o] ? shmc__chunk(len[o], at, piece) : 0;
            size_t rl = at < len[i] ? shmc__chunk(len[i], at, piece) : 0;
            shmc__sched_send(s, send + at * es, sl * es, right);
            shmc__sched_recv_kept(s, in + at * es, rl * es, left);
            shmc__sched_round(s);
            shmc__sched_reduce(s, in + at * es, src + (off[i] + at) * es, rl, SHMC_ACC_LEFT);
        }
        send = in;
    }
    return in;
}

/* The memory of the partials a ring reduce-scatter (ring_rs_steps) receives into, for blocks
 * of at most `most` elements: a block for each step that does not receive into out, two at
 * most (they alternate). */
static size_t ring_parts(const struct shmc__cx *x, size_t most, int into_out)
{
    int steps = x->n - 1 - (into_out ? 1 : 0);
    return (size_t)(steps < 2 ? steps : 2) * most * x->es;
}

/* Their places in s's own memory, blocks of `bytes` (NULL where s has none: no step
 * receives into them then). */
static void ring_parts_at(struct shmc__sched *s, size_t bytes, char *part[2])
{
    part[0] = shmc__sched_tmp(s);
    part[1] = part[0] ? part[0] + bytes : NULL;
}

/* All-reduce by a ring: the reduce-scatter above over shmc__block's blocks, block me into
 * its place in rbuf, then an all-gather of the blocks in n - 1 rounds. Each rank sends and
 * receives 2 (n - 1) / n of the vector, against log2 n of it by recursive doubling: the
 * large calls' algorithm, for ops that commute (block b is not combined in rank order). */
static int allreduce_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count,
                          struct shmc__request **req)
{
    int n = x->n, me = x->me, right = (me + 1) % n, left = (me - 1 + n) % n;
    size_t es = x->es, *off = malloc(2 * (size_t)n * sizeof *off), *len = off + n;
    if (!off)
        return go(NULL, req);
    for (int b = 0; b < n; b++)
        shmc__block(count, n, b, &off[b], &len[b]);
    char *r = rbuf, *mine = r + off[me] * es;
    /* In place, block me's last partial must not land on the input it is combined with. */
    int into = !shmc__overlap(mine, len[me] * es, sbuf, count * es);
    size_t most = len[0] * es; /* block 0: the longest */
    struct shmc__sched *s = shmc__sched_new(x, ring_parts(x, len[0], into));
    if (s) {
        char *part[2];
        ring_parts_at(s, most, part);
        char *got = ring_rs_steps(s, x, sbuf, into ? mine : NULL, part, off, len);
        if (got != mine)
            shmc__sched_copy(s, mine, got, len[me] * es);
        shmc__sched_finish(s, mine, len[me], n);
        for (int k = 0; k < n - 1; k++) {
            int o = (me - k + n) % n, i = (me - k - 1 + n) % n;
            shmc__sched_send(s, r + off[o] * es, len[o] * es, right);
            shmc__sched_recv_kept(s, r + off[i] * es, len[i] * es, left);
            shmc__sched_round(s);
        }
    }
    free(off);
    return go(s, req);
}

/* Does all-reduce x of count elements go by the ring? Where the op commutes and every rank
 * has a block: where the blocking call's rule takes the ring, not where it takes recursive
 * doubling (a power-of-two n) or either on device buffers, and else from
 * SHMC_NBC_RING_MIN. */
static int by_ring(const struct shmc__cx *x, size_t count)
{
    size_t bytes = count * x->es;
    if (x->n < 2 || count < (size_t)x->n || !shmc__op_commutes(x->op))
        return 0;
    int algo = x->dev ? SHMC_A_AUTO : shmc__coll_pick(SHMC_C_ALLREDUCE, x, bytes);
    if (algo == SHMC_A_RING)
        return 1;
    if (algo == SHMC_A_RD && !(x->n & (x->n - 1)))
        return 0;
    return x->n == 2 ? bytes > SHMC_NBC_RING_MIN : bytes >= SHMC_NBC_RING_MIN;
}

/* The reduction but a leaf's one send (shmc__nbc_reduce): the all-reduce, the root's
 * part, an inner rank's of the tree. */
static __attribute__((noinline)) int reduce_more(const struct shmc__cx *x, const void *sbuf,
                                                 void *rbuf, size_t count, int all,
                                                 struct shmc__request **req)
{
    size_t bytes = count * x->es;
    if (all && swaps(x, bytes, bytes)) {
        /* recursive doubling's one exchange; in place, the peer's block received beside
         * the input */
        int low = x->me == 1, apart = sbuf != rbuf;
        _Alignas(max_align_t) char spare[SHMC_SWAP_NOW_MAX];
        struct shmc__swap w = {.sbuf = sbuf,
                               .sbytes = bytes,
                               .rbuf = apart ? rbuf : NULL,
                               .rbytes = bytes,
                               .spare = spare,
                               .peer = 1 - x->me,
                               .kept = 1,
                               .reduce = 1,
                               .order = low == apart ? SHMC_ACC_LEFT : SHMC_ACC_RIGHT,
                               .acc = rbuf,
                               .in = apart ? sbuf : NULL,
                               .out = rbuf,
                               .count = count};
        return shmc__sched_swap(x, &w, req);
    }
    if (all && by_ring(x, count))
        return allreduce_ring(x, sbuf, rbuf, count, req);
    if (all && x->n > 1 && !(x->n & (x->n - 1)))
        return allreduce_rd(x, sbuf, rbuf, count, req);
    int root = all ? 0 : x->root, zero_acc = x->me == 0 && root == 0;
    /* Rank 0 reduces into rbuf when the result stays there; the others (and rank 0 for
     * another root) into memory of the call's own; an odd rank, whose part of the tree is
     * to send its input (reduce_steps), sends it from where it is. */
    int leaf = x->me & 1;
    /* At 2 ranks the root's message, received into rbuf, then its input combined with it
     * in rank order (the tree's result: rank 0's on the left) */
    if (x->n == 2 && !all) {
        int peer = 1 - x->me;
        if (sbuf != rbuf)
            return shmc__sched_one_reduce(x, rbuf, sbuf, count, peer, 2,
                                          x->me == 0 ? SHMC_ACC_RIGHT : SHMC_ACC_LEFT, req);
        /* In place: the peer's input received beside it */
        struct shmc__sched *s = shmc__sched_new(x, bytes);
        if (s) {
            void *tmp = shmc__sched_tmp(s);
            shmc__sched_recv(s, tmp, bytes, peer);
            shmc__sched_round(s);
            shmc__sched_reduce(s, rbuf, tmp, count, x->me == 0 ? SHMC_ACC_LEFT : SHMC_ACC_RIGHT);
            shmc__sched_finish(s, rbuf, count, 2);
        }
        return go(s, req);
    }
    struct shmc__sched *s = shmc__sched_new(x, leaf ? 0 : zero_acc ? bytes : 2 * bytes);
    if (!s)
        return go(s, req);
    char *mem = shmc__sched_tmp(s);
    void *acc = leaf ? (void *)sbuf : zero_acc ? rbuf : mem;
    void *tmp = leaf ? NULL : zero_acc ? mem : mem + bytes;
    reduce_steps(s, x, acc, sbuf, tmp, count);
    if (x->me == 0)
        shmc__sched_finish(s, acc, count, x->n);
    if (all) {
        bcast_steps(s, x, x->me == 0 ? acc : rbuf, bytes, 0);
    } else if (root != 0) {
        if (x->me == 0)
            shmc__sched_send(s, acc, bytes, root);
        if (x->me == root)
            shmc__sched_recv(s, rbuf, bytes, 0);
    }
    return go(s, req);
}

/* The steps of the root of a reduction in which every member sends the root its input
 * (reduce_direct): each received into mem (n - 1 blocks of count elements), in one round,
 * then all combined in rank order into acc, the root's own input (own, copied into acc
 * while the others travel, unless it is there) in its turn: where the root is not rank 0,
 * the lower ranks' first, into rank 0's block, so that own is not overwritten before its
 * turn. */
static void direct_steps(struct shmc__sched *s, const struct shmc__cx *x, int root, void *acc,
                         const void *own, char *mem, size_t count)
{
    size_t bytes = count * x->es;
/* member q's input (q != root): the others' in rank order */
#define IN(q) (mem + (size_t)((q) < root ? (q) : (q)-1) * bytes)
    shmc__sched_copy(s, acc, own, bytes);
    for (int q = 0; q < x->n; q++)
        if (q != root)
            shmc__sched_recv_kept(s, IN(q), bytes, q);
    shmc__sched_round(s);
    if (root > 0) {
        for (int q = 1; q < root; q++)
            shmc__sched_reduce(s, IN(0), IN(q), count, SHMC_ACC_LEFT);
        shmc__sched_reduce(s, acc, IN(0), count, SHMC_ACC_RIGHT);
    }
    for (int q = root + 1; q < x->n; q++)
        shmc__sched_reduce(s, acc, IN(q), count, SHMC_ACC_LEFT);
#undef IN
}

/* The root of a reduce by direct sends: the members' inputs into memory of the call's
 * own, the result into rbuf. */
static __attribute__((noinline)) int direct_root(const struct shmc__cx *x, const void *sbuf,
                                                 void *rbuf, size_t count,
                                                 struct shmc__request **req)
{
    struct shmc__sched *s = shmc__sched_new(x, (size_t)(x->n - 1) * count * x->es);
    if (!s)
        return go(s, req);
    direct_steps(s, x, x->root, rbuf, sbuf, shmc__sched_tmp(s), count);
    shmc__sched_finish(s, rbuf, count, x->n);
    return go(s, req);
}

/* The most memory a reduce's root takes for its members' inputs (reduce_direct). */
#define DIRECT_INPUTS_MAX ((size_t)1 << 20)

/* Does a reduce of bytes go by every member sending the root its input, rather than the
 * tree? Beyond 2 ranks where the job has more ranks than CPUs and the members send their
 * inputs synchronously (SHMC_SCHED_SHARED_EAGER_MAX), as long as the root can hold them
 * all: each level of the tree is then a rendezvous that waits for two ranks' turns on a
 * CPU, and a forwarder's partial waits for its children's (the commit that made it has the
 * figures). Every member finds the same: shared_cpus is the job's. */
static int reduce_direct(const struct shmc__cx *x, size_t bytes)
{
    return x->n > 2 && x->co->shared_cpus && bytes > SHMC_SCHED_SHARED_EAGER_MAX &&
           bytes <= DIRECT_INPUTS_MAX / (size_t)(x->n - 1);
}

int shmc__nbc_reduce(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count, int all,
                     struct shmc__request **req)
{
    /* One message here, reached by a jump: a leaf's (an odd rank's part of the tree is to
     * send its input, reduce_steps, from where it is), and at 2 ranks the other rank's,
     * to the root whichever it is, and every member's where all send to the root */
    int leaf = x->me & 1, direct = !all && reduce_direct(x, count * x->es);
    if (!all && x->me != x->root && (leaf || x->n == 2 || direct))
        return shmc__sched_one(x, 1, (void *)sbuf, count * x->es,
                               leaf && !direct ? x->me - 1 : x->root, req);
    if (direct)
        return direct_root(x, sbuf, rbuf, count, req);
    return reduce_more(x, sbuf, rbuf, count, all, req);
}

/* Block q's count and displacement in elements: the tables', or, where they are NULL (a
 * call of equal blocks at 2 ranks, nbc.h), count and q count. */
static size_t blk_count(const size_t *counts, int q, size_t count)
{
    return counts ? counts[q] : count;
}

static size_t blk_displ(const size_t *displs, int q, size_t count)
{
    return displs ? displs[q] : (size_t)q * count;
}

/* The gather's root (shmc__nbc_gatherv). */
static __attribute__((noinline)) int gatherv_root(const struct shmc__cx *x, const void *own,
                                                  size_t count, void *big, const size_t *counts,
                                                  const size_t *displs, struct shmc__request **req)
{
    char *b = big;
    if (x->n == 2) {
        int q = 1 - x->me;
        size_t es = x->es, mine = own ? blk_count(counts, x->me, count) * es : 0;
        return shmc__sched_one_copy(x, 0, b + blk_displ(displs, q, count) * es,
                                    blk_count(counts, q, count) * es, q,
                                    b + blk_displ(displs, x->me, count) * es, own, mine, req);
    }
    struct shmc__sched *s = shmc__sched_new(x, 0);
    if (!s)
        return go(s, req);
    for (int q = 0; q < x->n; q++)
        if (q != x->me)
            shmc__sched_recv(s, b + displs[q] * x->es, counts[q] * x->es, q);
    /* (its own block after the receives are posted: it is copied while they travel) */
    if (own)
        shmc__sched_copy(s, b + displs[x->me] * x->es, own, counts[x->me] * x->es);
    return go(s, req);
}

int shmc__nbc_gatherv(const struct shmc__cx *x, const void *own, size_t count, void *big,
                      const size_t *counts, const size_t *displs, struct shmc__request **req)
{
    /* A member's one message, reached by a jump. */
    if (x->me != x->root)
        return shmc__sched_one(x, 1, (void *)own, count * x->es, x->root, req);
    return gatherv_root(x, own, count, big, counts, displs, req);
}

/* A gather of equal blocks by the binomial tree, where the blocking call takes it
 * (dispatch.c's tree: small blocks, few ranks): each member receives its children's
 * subtrees at once (virtual ranks v = rank - root mod n, a subtree's blocks in that order),
 * then sends its own subtree to its parent in one message. The root's buffer holds the
 * blocks in virtual order when the root is 0; another root puts them in place at the end.
 * own is NULL at an in-place root. */
static int gather_tree(const struct shmc__cx *x, const void *own, size_t count, void *big,
                       struct shmc__request **req)
{
    int n = x->n, root = x->root, v = shmc__vrank(x->me, root, n), size = shmc__subtree(v, n);
    size_t bytes = count * x->es;
    char *b = big, *at_root = v == 0 ? b + (size_t)root * bytes : NULL;
    /* The subtree's blocks: in rbuf at root 0, in memory of the call's own elsewhere but
     * at a leaf, which sends its block from where it is. */
    int in_rbuf = v == 0 && root == 0;
    /* One message here: a leaf's (build takes this tree beyond 2 ranks only) */
    if (v && size == 1)
        return shmc__sched_one(x, 1, (void *)own, bytes, shmc__rrank(v - (v & -v), root, n), req);
    struct shmc__sched *s = shmc__sched_new(x, size > 1 && !in_rbuf ? (size_t)size * bytes : 0);
    if (!s)
        return go(s, req);
    char *sub = in_rbuf ? b : size > 1 ? shmc__sched_tmp(s) : NULL;
    if (sub)
        shmc__sched_copy(s, sub, own ? own : at_root, bytes);
    /* the children v + 2^k below size, each with its subtree */
    for (int mask = 1; mask < size; mask <<= 1)
        shmc__sched_recv(s, sub + (size_t)mask * bytes, (size_t)shmc__subtree(v + mask, n) * bytes,
                         shmc__rrank(v + mask, root, n));
    shmc__sched_round(s);
    if (v) {
        shmc__sched_send(s, sub ? sub : own, (size_t)size * bytes,
                         shmc__rrank(v - (v & -v), root, n));
    } else if (!in_rbuf) {
        /* virtual blocks 0 .. n - root - 1 are ranks root .. n - 1, the rest 0 .. root - 1 */
        shmc__sched_copy(s, at_root, sub, (size_t)(n - root) * bytes);
        shmc__sched_copy(s, b, sub + (size_t)(n - root) * bytes, (size_t)root * bytes);
    }
    return go(s, req);
}

/* The scatter's root (shmc__nbc_scatterv). */
static __attribute__((noinline)) int scatterv_root(const struct shmc__cx *x, const void *big,
                                                   const size_t *counts, const size_t *displs,
                                                   void *own, size_t count,
                                                   struct shmc__request **req)
{
    const char *b = big;
    if (x->n == 2) {
        int q = 1 - x->me;
        size_t es = x->es, mine = own ? blk_count(counts, x->me, count) * es : 0;
        return shmc__sched_one_copy(x, 1, (void *)(b + blk_displ(displs, q, count) * es),
                                    blk_count(counts, q, count) * es, q, own,
                                    b + blk_displ(displs, x->me, count) * es, mine, req);
    }
    /* (its own block after the sends: it is copied while they travel) */
    return shmc__sched_root_sends(x, b, 0, counts, displs, own, b + displs[x->me] * x->es,
                                  own ? counts[x->me] * x->es : 0, req);
}

int shmc__nbc_scatterv(const struct shmc__cx *x, const void *big, const size_t *counts,
                       const size_t *displs, void *own, size_t count, struct shmc__request **req)
{
    if (x->me != x->root)
        return shmc__sched_one(x, 0, own, count * x->es, x->root, req);
    return scatterv_root(x, big, counts, displs, own, count, req);
}

int shmc__nbc_allgatherv(const struct shmc__cx *x, const void *own, void *big, const size_t *counts,
                         const size_t *displs, struct shmc__request **req)
{
    char *b = big;
    size_t mine = counts[x->me] * x->es;
    const void *from = own ? own : b + displs[x->me] * x->es;
    int q = 1 - x->me;
    if (x->n == 2 && swaps(x, mine, counts[q] * x->es)) { /* (q: a rank at 2 only) */
        struct shmc__swap w = {.sbuf = from,
                               .sbytes = mine,
                               .rbuf = b + displs[q] * x->es,
                               .rbytes = counts[q] * x->es,
                               .peer = q,
                               .cdst = b + displs[x->me] * x->es,
                               .csrc = from,
                               .cbytes = mine};
        return shmc__sched_swap(x, &w, req);
    }
    struct shmc__sched *s = shmc__sched_new(x, 0);
    if (!s)
        return go(s, req);
    for (int k = 1; k < x->n; k++) { /* the nearest first: each peer hears from all alike */
        int to = (x->me + k) % x->n, from_q = (x->me - k + x->n) % x->n;
        shmc__sched_send(s, from, mine, to);
        shmc__sched_recv(s, b + displs[from_q] * x->es, counts[from_q] * x->es, from_q);
    }
    if (own) /* (after the messages are posted: it is copied while they travel) */
        shmc__sched_copy(s, b + displs[x->me] * x->es, own, mine);
    return go(s, req);
}

int shmc__nbc_alltoallv(const struct shmc__cx *x, const void *sbuf, const size_t *scounts,
                        const size_t *sdispls, void *rbuf, const size_t *rcounts,
                        const size_t *rdispls, struct shmc__request **req)
{
    int o = 1 - x->me;
    if (sbuf && x->n == 2 &&
        swaps(x, scounts[o] * x->es, rcounts[o] * x->es)) { /* (o: a rank at 2) */
        struct shmc__swap w = {.sbuf = (const char *)sbuf + sdispls[o] * x->es,
                               .sbytes = scounts[o] * x->es,
                               .rbuf = (char *)rbuf + rdispls[o] * x->es,
                               .rbytes = rcounts[o] * x->es,
                               .peer = o,
                               .cdst = (char *)rbuf + rdispls[x->me] * x->es,
                               .csrc = (const char *)sbuf + sdispls[x->me] * x->es,
                               .cbytes = scounts[x->me] * x->es};
        return shmc__sched_swap(x, &w, req);
    }
    size_t copy = 0; /* in place: the blocks to send, copied out before any arrives */
    if (!sbuf)
        for (int q = 0; q < x->n; q++)
            if (rcounts[q] && (rdispls[q] + rcounts[q]) * x->es > copy)
                copy = (rdispls[q] + rcounts[q]) * x->es;
    struct shmc__sched *s = shmc__sched_new(x, copy);
    if (!s)
        return go(s, req);
    const char *sb = sbuf;
    char *rb = rbuf;
    if (!sbuf) {
        sb = shmc__sched_tmp(s);
        shmc__sched_copy(s, (void *)(uintptr_t)sb, rbuf, copy);
        scounts = rcounts;
        sdispls = rdispls;
    }
    for (int k = 1; k < x->n; k++) {
        int to = (x->me + k) % x->n, from = (x->me - k + x->n) % x->n;
        shmc__sched_send(s, sb + sdispls[to] * x->es, scounts[to] * x->es, to);
        shmc__sched_recv(s, rb + rdispls[from] * x->es, rcounts[from] * x->es, from);
    }
    /* (its own block after the messages are posted: it is copied while they travel) */
    shmc__sched_copy(s, rb + rdispls[x->me] * x->es, sb + sdispls[x->me] * x->es,
                     scounts[x->me] * x->es);
    return go(s, req);
}

/* Reduce-scatter by the ring's first half, block me straight into rbuf unless rbuf lies in
 * the input: for ops that commute, from SHMC_NBC_RING_MIN bytes, and at 2 ranks at every
 * size (one exchange). */
static int reduce_scatter_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf,
                               const size_t *counts, size_t total, struct shmc__request **req)
{
    int n = x->n, me = x->me;
    size_t es = x->es, *off = malloc((size_t)n * sizeof *off), most = 0;
    if (!off)
        return go(NULL, req);
    for (int b = 0; b < n; b++) {
        off[b] = b ? off[b - 1] + counts[b - 1] : 0;
        most = counts[b] > most ? counts[b] : most;
    }
    int into = !shmc__overlap(rbuf, counts[me] * es, sbuf, total * es);
    struct shmc__sched *s = shmc__sched_new(x, ring_parts(x, most, into));
    if (s) {
        char *part[2];
        ring_parts_at(s, most * es, part);
        char *got = ring_rs_steps(s, x, sbuf, into ? rbuf : NULL, part, off, counts);
        if (got != rbuf)
            shmc__sched_copy(s, rbuf, got, counts[me] * es);
        shmc__sched_finish(s, rbuf, counts[me], n);
    }
    free(off);
    return go(s, req);
}

int shmc__nbc_reduce_scatterv(const struct shmc__cx *x, const void *sbuf, void *rbuf,
                              const size_t *counts, struct shmc__request **req)
{
    size_t total = 0;
    for (int q = 0; q < x->n; q++)
        total += counts[q];
    size_t bytes = total * x->es;
    int o = 1 - x->me;
    if (swaps(x, bytes, bytes) && shmc__op_commutes(x->op)) {
        /* the ring's one exchange (reduce_scatter_ring); in place, this rank's part
         * received beside the input */
        size_t es = x->es, at_me = x->me ? counts[0] * es : 0, at_o = o ? counts[0] * es : 0;
        int into = !shmc__overlap(rbuf, counts[x->me] * es, sbuf, bytes);
        _Alignas(max_align_t) char spare[SHMC_SWAP_NOW_MAX];
        struct shmc__swap w = {.sbuf = shmc__at(sbuf, at_o),
                               .sbytes = counts[o] * es,
                               .rbuf = into ? rbuf : NULL,
                               .rbytes = counts[x->me] * es,
                               .spare = spare,
                               .peer = o,
                               .kept = 1,
                               .reduce = 1,
                               .order = SHMC_ACC_LEFT,
                               .in = shmc__at(sbuf, at_me),
                               .out = rbuf,
                               .count = counts[x->me]};
        return shmc__sched_swap(x, &w, req);
    }
    /* (nothing anywhere goes by the reduction to rank 0, whose messages every member meets
     * even empty: where the members' totals differ, none leaves the call while another
     * waits for it, as the ring's rounds of no pieces would) */
    if (x->n > 1 && total && (bytes >= SHMC_NBC_RING_MIN || x->n == 2) && shmc__op_commutes(x->op))
        return reduce_scatter_ring(x, sbuf, rbuf, counts, total, req);
    /* Where ranks share CPUs, as the reduce: every member's vector straight to rank 0
     * (reduce_direct), then its part back (a round later: in place, it lands on the
     * vector sent) */
    int direct = reduce_direct(x, bytes);
    if (direct && x->me) {
        struct shmc__sched *s = shmc__sched_new(x, 0);
        if (s) {
            shmc__sched_send(s, sbuf, bytes, 0);
            shmc__sched_round(s);
            shmc__sched_recv(s, rbuf, counts[x->me] * x->es, 0);
        }
        return go(s, req);
    }
    /* acc and the receiving tmp: the whole vector each (direct: the members' inputs) */
    struct shmc__sched *s = shmc__sched_new(x, direct ? (size_t)x->n * bytes : 2 * bytes);
    if (!s)
        return go(s, req);
    char *acc = shmc__sched_tmp(s), *tmp = acc + bytes;
    if (direct)
        direct_steps(s, x, 0, acc, sbuf, tmp, total);
    else
        reduce_steps(s, x, acc, sbuf, tmp, total);
    if (x->me == 0) {
        shmc__sched_finish(s, acc, total, x->n);
        size_t at = 0;
        /* Every part goes, empty or not, and every rank takes its own: members whose
         * counts differ then meet a block of another size, which their sizes compare
         * exactly, where passing over empty parts would leave it to the digest in the
         * tags (vcollectives.c), of which a schedule's tag holds 10 bits (sched.h). */
        for (int q = 0; q < x->n; at += counts[q++] * x->es)
            if (q)
                shmc__sched_send(s, acc + at, counts[q] * x->es, q);
            else
                shmc__sched_copy(s, rbuf, acc, counts[0] * x->es);
    } else {
        shmc__sched_recv(s, rbuf, counts[x->me] * x->es, 0);
    }
    return go(s, req);
}

int shmc__nbc_scan(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count, int ex,
                   struct shmc__request **req)
{
    size_t bytes = count * x->es;
    int me = x->me, last = me == x->n - 1;
    struct shmc__sched *s = shmc__sched_new(x, bytes);
    if (!s)
        return go(s, req);
    char *tmp = shmc__sched_tmp(s);
    if (!ex) {
        /* rbuf = (ranks 0 .. me - 1) OP mine; the sum goes on undivided (AVG) */
        shmc__sched_copy(s, rbuf, sbuf, bytes);
        if (me) {
            shmc__sched_recv_kept(s, tmp, bytes, me - 1);
            shmc__sched_round(s);
            shmc__sched_reduce(s, rbuf, tmp, count, SHMC_ACC_RIGHT);
        }
        if (!last) {
            shmc__sched_send(s, rbuf, bytes, me + 1);
            shmc__sched_round(s);
        }
        shmc__sched_finish(s, rbuf, count, me + 1);
        return go(s, req);
    }
    /* exscan: tmp = (ranks 0 .. me) for the next; rbuf = (ranks 0 .. me - 1) */
    shmc__sched_copy(s, tmp, sbuf, bytes); /* before rbuf, which may hold it, is written */
    if (me) {
        shmc__sched_recv(s, rbuf, bytes, me - 1);
        shmc__sched_round(s);
        if (!last)
            shmc__sched_reduce(s, tmp, rbuf, count, SHMC_ACC_RIGHT);
    }
    if (!last) {
        shmc__sched_send(s, tmp, bytes, me + 1);
        shmc__sched_round(s);
    }
    if (me)
        shmc__sched_finish(s, rbuf, count, me);
    return go(s, req);
}

int shmc__nbc_wait(struct shmc__request *r)
{
    if (r == &shmc__req_done) /* (ended in its start: no communicator to look at) */
        return SHMC_OK;
    struct shmc__p2p *p = shmc__coll.p2p;
    /* (the request sees its communicator read-only; quitting is this layer's to do) */
    struct shmc__comm *c = (struct shmc__comm *)r->comm;
    int timed_out = 0;
    if (c->timeout_ms && r->state == SHMC_RS_ACTIVE) {
        shmc__deadline_arm(c->timeout_ms);
        timed_out = shmc__wait_requests(p, 1, &r) == SHMC_ERR_TIMEOUT;
        shmc__deadline = 0;
        if (timed_out)
            shmc__p2p_quit(p, c, SHMC_ERR_TIMEOUT);
    }
    int rc = shmc__finish(p, r, NULL);
    if (c->quit)
        shmc__p2p_quit_settle(p, c);
    return timed_out ? SHMC_ERR_TIMEOUT : rc;
}

int shmc__nbc_wait_owned(int rc)
{
    if (!shmc__coll_owning)
        return rc; /* another thread's call went by a schedule of its own, not ours */
    shmc__coll_owning = 0;
    __atomic_fetch_sub(&shmc__coll_owners, 1, __ATOMIC_RELAXED);
    struct shmc__request *r = shmc__coll_own;
    if (!r)
        return rc;
    shmc__coll_own = NULL;
    return shmc__nbc_wait(r);
}

int shmc__nbc_host(const struct shmc__cx *x)
{
    if (!x->dev)
        return SHMC_OK;
    SHMC_ERROR("the nonblocking collectives take host memory: use the blocking call for "
               "device buffers (docs/collectives.md)");
    return SHMC_ERR_ARG;
}

/* Counts and displacements of n equal blocks of count (2 n entries), in `own` (2 x
 * OWN_BLOCKS entries) up to OWN_BLOCKS ranks, else in memory the caller frees; NULL
 * without memory. */
#define OWN_BLOCKS 16
static size_t *equal_blocks(int n, size_t count, size_t *own)
{
    size_t *a = n <= OWN_BLOCKS ? own : malloc(2 * (size_t)n * sizeof *a);
    for (int i = 0; a && i < n; i++) {
        a[i] = count;
        a[n + i] = (size_t)i * count;
    }
    return a;
}

/* The call's schedule, built (go() keeps it under `building`'s key). */
static int build(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int rc;
    struct shmc__request **req = x->nb;
    switch (coll) {
    case SHMC_C_BARRIER:
        return shmc__nbc_barrier(x, req);
    case SHMC_C_BROADCAST:
        return shmc__nbc_bcast(x, rbuf, count, req);
    case SHMC_C_REDUCE:
    case SHMC_C_ALLREDUCE:
        return shmc__nbc_reduce(x, sbuf, rbuf, count, coll == SHMC_C_ALLREDUCE, req);
    default: /* (a 2-rank gather or scatter went to its one message: shmc__nbc_run) */
        break;
    }
    size_t own[2 * OWN_BLOCKS], *a = equal_blocks(x->n, count, own);
    if (!a)
        return SHMC_ERR_NOMEM;
    const size_t *cnt = a, *dsp = a + x->n;
    switch (coll) {
    case SHMC_C_GATHER:
        rc = x->n > 2 && shmc__coll_pick(coll, x, (size_t)x->n * count * x->es) == SHMC_A_TREE
                 ? gather_tree(x, sbuf, count, rbuf, req)
                 : shmc__nbc_gatherv(x, sbuf, count, rbuf, cnt, dsp, req);
        break;
    case SHMC_C_SCATTER:
        rc = shmc__nbc_scatterv(x, sbuf, cnt, dsp, rbuf, count, req);
        break;
    case SHMC_C_ALLGATHER:
        rc = shmc__nbc_allgatherv(x, sbuf, rbuf, cnt, dsp, req);
        break;
    case SHMC_C_ALLTOALL:
        rc = shmc__nbc_alltoallv(x, sbuf == SHMC_IN_PLACE ? NULL : sbuf, cnt, dsp, rbuf, cnt, dsp,
                                 req);
        break;
    case SHMC_C_REDUCE_SCATTER:
        rc = shmc__nbc_reduce_scatterv(x, sbuf, rbuf, cnt, req);
        break;
    default:
        rc = SHMC_ERR_ARG; /* not a collective of equal blocks */
        break;
    }
    if (a != own)
        free(a);
    return rc;
}

/* The call by a schedule kept from an earlier call with the same arguments, or built
 * (shmc__nbc_run). */
static __attribute__((noinline)) int kept_or_built(int coll, const struct shmc__cx *x,
                                                   const void *sbuf, void *rbuf, size_t count)
{
    struct call b = {coll, x, sbuf, rbuf, count};
    int rc;
    if (shmc__sched_kept()) {
        struct shmc__sched_key k;
        key_of(&b, &k);
        if (shmc__sched_again(&k, x, x->nb, &rc))
            return rc;
    }
    building = &b;
    rc = build(coll, x, sbuf, rbuf, count);
    building = NULL;
    return rc;
}

int shmc__nbc_run(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    /* At 2 ranks these are one message each way (shmc__sched_one; the reduce's root's with
     * its combining, shmc__sched_one_reduce, but in place), never a schedule kept for the
     * next call, and no tables of blocks (nbc.h): straight there, without the look for a
     * kept one or the record of the building, whose stores a small call's start would
     * pay; a member's by jumps. */
    if (x->n == 2) {
        if (coll == SHMC_C_BROADCAST)
            return shmc__nbc_bcast(x, rbuf, count, x->nb);
        if (coll == SHMC_C_REDUCE && (x->me != x->root || sbuf != rbuf))
            return shmc__nbc_reduce(x, sbuf, rbuf, count, 0, x->nb);
        if (coll == SHMC_C_GATHER)
            return shmc__nbc_gatherv(x, sbuf, count, rbuf, NULL, NULL, x->nb);
        if (coll == SHMC_C_SCATTER)
            return shmc__nbc_scatterv(x, sbuf, NULL, NULL, rbuf, count, x->nb);
    }
    return kept_or_built(coll, x, sbuf, rbuf, count);
}

int shmc__nbc_reduce_steps_into(struct shmc__sched *s, const struct shmc__cx *x, const void *in,
                                void *out, size_t count)
{
    size_t bytes = count * x->es;
    /* out is every rank's accumulator: a rank's partial leaves in a round before the
     * result arrives in it */
    reduce_steps(s, x, out, in, shmc__sched_tmp(s), count);
    if (x->me == 0)
        shmc__sched_finish(s, out, count, x->n);
    bcast_steps(s, x, out, bytes, 0);
    return SHMC_OK;
}
