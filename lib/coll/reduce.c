/*
 * Reduce and all-reduce algorithms. Reduction orders (what makes results reproducible:
 * the same inputs, rank count and algorithm give the same bits on every run, and an
 * all-reduce gives the same bits on every rank):
 *   tree (reduce, root r): binomial over virtual ranks v = (rank - r) mod n; a node
 *         combines its own partial (lower v) on the left with each child's (higher v) on
 *         the right, children in increasing distance. All-reduce: the tree reduce to
 *         rank 0, then a broadcast of its bits.
 *   ring: reduce-scatter round the ring: block b is combined in the order
 *         b+1, b+2, ..., b (mod n), left to right, then the finished blocks are
 *         gathered (reduce) or passed round (all-reduce).
 *   rd (all-reduce): recursive doubling; with n not a power of two, the first
 *         2(n - 2^k) ranks fold in pairs first. Each exchange combines the lower ranks'
 *         partial on the left, so every rank evaluates the same expression tree.
 *   shm: ranks publish their inputs in their slots and the result is combined in rank
 *         order 0, 1, ..., n-1 left to right (by the root; by every rank for small data
 *         or 2 ranks; block by block by the block's owner for larger data).
 * AVG divides once, by whoever finishes an element, before the result is copied on.
 */
#include <string.h>

#include "base/copy.h"
#include "coll/algos.h"
#include "coll/local.h"
#include "coll/onestep.h"
#include "coll/scratch.h"
#include "coll/slot.h"
#include "coll/wround.h"
#include "coll/xfer.h"

/* ---- tree ------------------------------------------------------------------------------ */

/* The root of 2 ranks: one message in, the root's input on the left (it is virtual rank
 * 0). A function of its own, without the loop's many live values: its frame is a few
 * stores on a small call's path, which back to back far set its pace (flat.c,
 * shmc__bcast_direct). */
static __attribute__((noinline)) int pair_root(const struct shmc__cx *x, const void *sbuf,
                                               void *rbuf, size_t count)
{
    size_t bytes = count * x->es;
    int rc, other = 1 - x->me;
    if (rbuf != sbuf) {
        rc = shmc__cx_recv_kept(x, rbuf, bytes, other);
        rc = rc != SHMC_OK ? rc : shmc__cx_reduce(x, rbuf, sbuf, count, SHMC_ACC_RIGHT);
    } else {
        uint8_t *in = shmc__cx_scratch(x, 1, bytes);
        if (!in)
            return SHMC_ERR_NOMEM;
        rc = shmc__cx_recv_kept(x, in, bytes, other);
        rc = rc != SHMC_OK ? rc : shmc__cx_reduce(x, rbuf, in, count, SHMC_ACC_LEFT);
    }
    return rc != SHMC_OK ? rc : shmc__cx_finish(x, rbuf, count);
}

/* The binomial tree of more ranks. */
static __attribute__((noinline)) int tree(const struct shmc__cx *x, const void *sbuf, void *rbuf,
                                          size_t count)
{
    int root = x->root;
    int n = x->n, v = shmc__vrank(x->me, root, n), rc, mask;
    size_t bytes = count * x->es;
    uint8_t *acc = NULL, *tmp = NULL;
    for (mask = 1; mask < n; mask <<= 1) {
        if (v & mask)
            return shmc__cx_send(x, acc ? acc : sbuf, bytes, shmc__rrank(v - mask, root, n));
        if (v + mask >= n)
            continue;
        int first = !acc;
        if (first) {
            acc = v == 0 ? rbuf : shmc__cx_scratch(x, 0, bytes);
            tmp = shmc__cx_scratch(x, 1, bytes);
            if (!acc || !tmp)
                return SHMC_ERR_NOMEM;
        }
        /* The first partial is received straight into acc, which our own input then joins
         * on the left (unless in place, where acc holds the input already): one buffer
         * fewer through the cache than receiving it aside and combining both into acc. */
        int into = first && acc != sbuf;
        if ((rc = shmc__cx_recv_kept(x, into ? acc : tmp, bytes, shmc__rrank(v + mask, root, n))) !=
            SHMC_OK)
            return rc;
        rc = into ? shmc__cx_reduce(x, acc, sbuf, count, SHMC_ACC_RIGHT)
                  : shmc__cx_reduce(x, acc, tmp, count, SHMC_ACC_LEFT);
        if (rc != SHMC_OK)
            return rc;
    }
    /* Only the root gets here (with n == 1 it never received: copy its own input). */
    if (!acc && rbuf != sbuf && (rc = shmc__cx_copy(x, rbuf, sbuf, bytes)) != SHMC_OK)
        return rc;
    return shmc__cx_finish(x, rbuf, count);
}

/* The binomial reduce towards root. At the root the result is left in rbuf; elsewhere
 * rbuf is untouched. Each way is a tail call from here: no frame of this one. */
int shmc__reduce_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    if (x->n != 2)
        return tree(x, sbuf, rbuf, count);
    if (x->me != x->root)
        return shmc__cx_send(x, sbuf, count * x->es, x->root);
    return pair_root(x, sbuf, rbuf, count);
}

int shmc__allreduce_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    struct shmc__cx y = shmc__cx_rooted(x, 0);
    int rc = shmc__reduce_tree(&y, sbuf, rbuf, count);
    return rc != SHMC_OK ? rc : shmc__bcast_tree(&y, NULL, rbuf, count);
}

/* ---- ring ------------------------------------------------------------------------------ */

/* Reduce-scatter round the ring. In step s a rank sends the partial of block
 * me - s - 1 (its own input at step 0) and receives the partial of block me - s - 2, to
 * which it adds its own input on the right. Partials live in two scratch blocks that
 * alternate, so the input is read once and never copied; the last step lands in out. */
int shmc__ring_reduce_scatter(const struct shmc__cx *x, const uint8_t *src, uint8_t *out,
                              size_t count)
{
    int n = x->n, me = x->me;
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    size_t off, len, roff, rlen, es = x->es, maxb = (count / (size_t)n + 1) * es;
    uint8_t *part[2] = {shmc__cx_scratch(x, 1, maxb), shmc__cx_scratch(x, 2, maxb)};
    const uint8_t *send = NULL;
    uintptr_t o = (uintptr_t)out, lo = (uintptr_t)src;
    int inside = o >= lo && o < lo + count * es;
    if (!part[0] || !part[1])
        return SHMC_ERR_NOMEM;
    /* Elements a piece carries: every pair exchanges as many pieces at each step, the
     * longest block's number (a shorter block's last piece is empty). */
    size_t piece = x->dev ? count : shmc__ring_piece(es), most;
    shmc__block(count, n, 0, &off, &most); /* block 0: the longest */
    for (int s = 0; s < n - 1; s++) {
        int sb = ((me - s - 1) % n + n) % n, rb = ((me - s - 2) % n + 2 * n) % n;
        shmc__block(count, n, sb, &off, &len);
        shmc__block(count, n, rb, &roff, &rlen);
        if (s == 0)
            send = src + off * es;
        /* The last partial is block me: straight into out, unless out lies inside the
         * input (in place), which this step may still read or send. */
        int last = s == n - 2, direct = last && !inside;
        uint8_t *in = direct ? out : part[s & 1];
        for (size_t at = 0; at < most; at += piece) {
            size_t sl = at < len ? shmc__chunk(len, at, piece) : 0;
            size_t rl = at < rlen ? shmc__chunk(rlen, at, piece) : 0;
            int rc =
                shmc__cx_sendrecv(x, send + at * es, sl * es, next, in + at * es, rl * es, prev);
            /* The incoming partial covers the earlier ranks of this block's order. */
            if (rc != SHMC_OK ||
                (rl && (rc = shmc__cx_reduce(x, in + at * es, src + (roff + at) * es, rl,
                                             SHMC_ACC_LEFT)) != SHMC_OK))
                return rc;
        }
        if (last && !direct) {
            int rc = shmc__cx_copy(x, out, in, rlen * es);
            if (rc != SHMC_OK)
                return rc;
        }
        send = in;
    }
    return SHMC_OK;
}

/* All-gather round the ring in place: rank r starts with block r of w, or, with own, has
 * it there: the first step sends it from own and copies it into w meanwhile, so that
 * the peer's single copy does not read lines this rank has just written (xfer.h). */
int shmc__ring_allgather(const struct shmc__cx *x, uint8_t *w, size_t count, const uint8_t *own)
{
    int n = x->n, me = x->me;
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    size_t off, len, roff, rlen, es = x->es;
    if (n == 1) {
        shmc__block(count, n, me, &off, &len);
        return own ? shmc__cx_copy(x, w + off * es, own, len * es) : SHMC_OK;
    }
    for (int s = 0; s < n - 1; s++) {
        int sb = ((me - s) % n + n) % n, rb = ((me - s - 1) % n + n) % n;
        shmc__block(count, n, sb, &off, &len);
        shmc__block(count, n, rb, &roff, &rlen);
        const uint8_t *send = s == 0 && own ? own : w + off * es;
        int rc = shmc__cx_sendrecv_copy(x, send, len * es, next, w + roff * es, rlen * es, prev,
                                        w + off * es, own, send == own ? len * es : 0);
        if (rc != SHMC_OK)
            return rc;
    }
    return SHMC_OK;
}

int shmc__allreduce_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    size_t off, len, es = x->es;
    uint8_t *w = rbuf;
    shmc__block(count, x->n, x->me, &off, &len);
    int rc = shmc__ring_reduce_scatter(x, sbuf, w + off * es, count);
    if (rc != SHMC_OK || (rc = shmc__cx_finish(x, w + off * es, len)) != SHMC_OK)
        return rc;
    return shmc__ring_allgather(x, w, count, NULL);
}

int shmc__reduce_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int root = x->root;
    size_t off, len, es = x->es;
    shmc__block(count, x->n, x->me, &off, &len);
    uint8_t *mine = x->me == root ? (uint8_t *)rbuf + off * es : shmc__cx_scratch(x, 0, len * es);
    if (!mine)
        return SHMC_ERR_NOMEM;
    int rc = shmc__ring_reduce_scatter(x, sbuf, mine, count);
    if (rc != SHMC_OK || (rc = shmc__cx_finish(x, mine, len)) != SHMC_OK)
        return rc;
    if (x->me != root)
        return shmc__cx_send(x, mine, len * es, root);
    /* The root collects every other block straight into place. */
    struct shmc__request *reqs[SHMC_MAX_RANKS];
    int nreq = 0;
    for (int r = 0; r < x->n; r++) {
        if (r == root)
            continue;
        shmc__block(count, x->n, r, &off, &len);
        if ((rc = shmc__cx_irecv(x, (uint8_t *)rbuf + off * es, len * es, r, &reqs[nreq])) !=
            SHMC_OK) {
            shmc__cx_cancel(x, (size_t)nreq, reqs);
            return rc;
        }
        nreq++;
    }
    return shmc__cx_waitall(x, (size_t)nreq, reqs);
}

/* ---- recursive doubling ------------------------------------------------------------------ */

/* The partial of peer joined with ours, *cur (our own input until the first exchange,
 * acc from then on), the peer's on the left where low: exchanged (send, when not a fold
 * step in which we only receive) and combined into acc. Unless in place, the first
 * receives the peer's partial straight into acc, which our input then joins on its side,
 * as the schedule does (nbc.c): one buffer fewer through the cache than receiving it
 * aside and combining both into acc. */
static int rd_step(const struct shmc__cx *x, uint8_t *acc, const uint8_t **cur, uint8_t *tmp,
                   size_t count, int peer, int send, int low)
{
    size_t bytes = count * x->es;
    int into = *cur != acc, rc;
    uint8_t *in = into ? acc : tmp;
    rc = send ? shmc__cx_sendrecv(x, *cur, bytes, peer, in, bytes, peer)
              : shmc__cx_recv_kept(x, in, bytes, peer);
    if (rc != SHMC_OK)
        return rc;
    if (!into)
        return shmc__cx_reduce(x, acc, tmp, count, low ? SHMC_ACC_RIGHT : SHMC_ACC_LEFT);
    const uint8_t *own = *cur;
    *cur = acc;
    return shmc__cx_reduce(x, acc, own, count, low ? SHMC_ACC_LEFT : SHMC_ACC_RIGHT);
}

int shmc__allreduce_rd(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int n = x->n, me = x->me, rc, p = 1;
    size_t bytes = count * x->es;
    uint8_t *acc = rbuf, *tmp = shmc__cx_scratch(x, 1, bytes);
    const uint8_t *cur = sbuf;
    if (!tmp)
        return SHMC_ERR_NOMEM;
    while (p * 2 <= n)
        p *= 2;
    int rem = n - p, id;
    /* Fold: among the first 2*rem ranks, even ones hand their data to the odd one above. */
    if (me < 2 * rem) {
        if (!(me & 1)) {
            if ((rc = shmc__cx_send(x, cur, bytes, me + 1)) != SHMC_OK)
                return rc;
            return shmc__cx_recv(x, acc, bytes, me + 1);
        }
        if ((rc = rd_step(x, acc, &cur, tmp, count, me - 1, 0, 1)) != SHMC_OK)
            return rc;
        id = me / 2;
    } else {
        id = me - rem;
    }
    for (int mask = 1; mask < p; mask <<= 1) {
        int pid = id ^ mask;
        int peer = pid < rem ? pid * 2 + 1 : pid + rem;
        if ((rc = rd_step(x, acc, &cur, tmp, count, peer, 1, pid < id)) != SHMC_OK)
            return rc;
    }
    /* One rank alone combined nothing: its input is the result. */
    if (cur != acc && (rc = shmc__cx_copy(x, acc, cur, bytes)) != SHMC_OK)
        return rc;
    if ((rc = shmc__cx_finish(x, acc, count)) != SHMC_OK)
        return rc;
    if (me < 2 * rem)
        return shmc__cx_send(x, acc, bytes, me - 1);
    return SHMC_OK;
}

/* ---- shared memory ------------------------------------------------------------------------ */

int shmc__allreduce_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    size_t es = x->es, bytes = count * es;
    if (shmc__cx_world(x) && bytes <= SHMC_ONESTEP_MAX)
        return shmc__onestep_allreduce(x, sbuf, rbuf, count);
    if (shmc__wround_blocking(SHMC_C_ALLREDUCE, x, count))
        return shmc__wround_run(SHMC_C_ALLREDUCE, x, sbuf, rbuf, count);
    const uint8_t *in = sbuf;
    uint8_t *out = rbuf, *slot;
    int n = x->n, rc, one = n <= 2 || bytes <= SHMC_SHM_ONE_PHASE_MAX;
    /* Two-phase chunks use half the slot for inputs and half for finished blocks. */
    size_t chunk = (one ? SHMC_SLOT_BYTES : SHMC_SLOT_BYTES / 2) / es;

    for (size_t e = 0; e < count; e += chunk) {
        size_t len = shmc__chunk(count, e, chunk);
        uint64_t stamp = shmc__slot_next(x);
        /* (the two phases' publications take the whole slot) */
        size_t pub = one ? len * es : SHMC_SLOT_BYTES;
        if ((rc = shmc__slot_acquire(x, stamp, pub, &slot)) != SHMC_OK)
            return rc;
        shmc__copy(slot, in + e * es, len * es);
        shmc__slot_publish(x, stamp, pub, -1);
        if (one) {
            const uint8_t *own = shmc__own_part(x, in + e * es, slot, out + e * es, len * es);
            if ((rc = shmc__slot_combine(x, stamp, pub, own, 0, len, out + e * es, 1)) != SHMC_OK)
                return rc;
            shmc__reduce_finish(out + e * es, len, x->dt, x->op, n);
            continue;
        }
        /* Phase 1: combine my block of this chunk into my slot's second half. */
        size_t boff, blen, half = SHMC_SLOT_BYTES / 2;
        shmc__block(len, n, x->me, &boff, &blen);
        if ((rc = shmc__slot_combine(x, stamp, pub, in + e * es, boff, blen,
                                     slot + half + boff * es, 0)) != SHMC_OK)
            return rc;
        shmc__reduce_finish(slot + half + boff * es, blen, x->dt, x->op, n);
        uint64_t stamp2 = shmc__slot_next(x);
        shmc__slot_publish(x, stamp2, pub, -1);
        /* Phase 2: collect every block. Done with each slot only after it: a reader's
         * done covers everything its owner published since the owner last acquired. */
        for (int r = 0; r < n; r++) {
            const uint8_t *src = slot;
            if (r != x->me && (rc = shmc__slot_wait(x, r, stamp2, pub, &src)) != SHMC_OK)
                return rc;
            shmc__block(len, n, r, &boff, &blen);
            shmc__copy(out + (e + boff) * es, src + half + boff * es, blen * es);
        }
        shmc__slot_done_all(x, stamp2);
    }
    return SHMC_OK;
}

int shmc__reduce_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    if (shmc__wround_blocking(SHMC_C_REDUCE, x, count))
        return shmc__wround_run(SHMC_C_REDUCE, x, sbuf, rbuf, count);
    int pass = shmc__wround_pass(x);
    if (pass != SHMC_OK)
        return pass;
    int root = x->root;
    size_t es = x->es, chunk = SHMC_SLOT_BYTES / es;
    const uint8_t *in = sbuf;
    uint8_t *slot;
    int rc;
    for (size_t e = 0; e < count; e += chunk) {
        size_t len = shmc__chunk(count, e, chunk);
        uint64_t stamp = shmc__slot_next(x);
        /* The root combines its own input straight from it, but in place after rank 0's
         * turn (shmc__own_part), where it stages the input in its slot first, so that it
         * may write rbuf. (Others' rbuf may be NULL.) */
        uint8_t *out = x->me == root ? (uint8_t *)rbuf + e * es : NULL;
        const uint8_t *own = in + e * es;
        if (!out || !shmc__own_part(x, own, NULL, out, len * es)) {
            if ((rc = shmc__slot_acquire(x, stamp, len * es, &slot)) != SHMC_OK)
                return rc;
            shmc__copy(slot, own, len * es);
            own = slot;
        }
        if (x->me != root) {
            shmc__slot_publish(x, stamp, len * es, root);
            continue;
        }
        if ((rc = shmc__slot_combine(x, stamp, len * es, own, 0, len, out, 1)) != SHMC_OK)
            return rc;
        shmc__reduce_finish(out, len, x->dt, x->op, x->n);
    }
    return SHMC_OK;
}

/* ---- what each borrows, and the descriptors ----------------------------------------- */

/* reduce_tree (also under the tree all-reduce): an accumulator and an incoming block. */
static void tree_need(const struct shmc__cx *x, size_t count, size_t need[SHMC_NSCRATCH])
{
    need[0] = need[1] = count * x->es;
}

/* A ring block of count (as shmc__ring_reduce_scatter sizes it). */
static size_t ring_block(const struct shmc__cx *x, size_t count)
{
    return (count / (size_t)x->n + 1) * x->es;
}

/* This rank's reduced block, off the root, and ring_reduce_scatter's two partials. */
static void reduce_ring_need(const struct shmc__cx *x, size_t count, size_t need[SHMC_NSCRATCH])
{
    need[0] = need[1] = need[2] = ring_block(x, count);
}

void shmc__allreduce_ring_need(const struct shmc__cx *x, size_t count, size_t need[SHMC_NSCRATCH])
{
    need[1] = need[2] = ring_block(x, count);
}

static void rd_need(const struct shmc__cx *x, size_t count, size_t need[SHMC_NSCRATCH])
{
    need[1] = count * x->es;
}

const struct shmc__coll_algo shmc__reduce_tree_algo = {shmc__reduce_tree, tree_need, 1};
const struct shmc__coll_algo shmc__reduce_ring_algo = {shmc__reduce_ring, reduce_ring_need, 1};
const struct shmc__coll_algo shmc__reduce_shm_algo = {shmc__reduce_shm, NULL};
const struct shmc__coll_algo shmc__allreduce_tree_algo = {shmc__allreduce_tree, tree_need, 1};
const struct shmc__coll_algo shmc__allreduce_ring_algo = {shmc__allreduce_ring,
                                                          shmc__allreduce_ring_need, 1};
const struct shmc__coll_algo shmc__allreduce_rd_algo = {shmc__allreduce_rd, rd_need, 1};
const struct shmc__coll_algo shmc__allreduce_shm_algo = {shmc__allreduce_shm, NULL};
