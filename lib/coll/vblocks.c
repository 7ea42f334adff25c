/*
 * The v-collectives: blocks of each rank's own size (gatherv, scatterv, allgatherv) and
 * reduce-scatter with uneven parts. Every block moves once, straight from its sender to
 * its receiver through the mailboxes, with the exact size the arrays give (another size is
 * SHMC_ERR_MISMATCH, xfer.c). None borrows scratch except reduce_scatterv, whose need
 * (the largest part, twice) is the same on every member, since every member holds the
 * same counts.
 *   gatherv, scatterv: the root posts a request per peer (its local block copied while
 *             they fly); the others send or receive one message.
 *   allgatherv: up to SMALL bytes in all, every rank sends its block to every other at
 *             once (one step); above, round the ring: in step s each rank passes on the
 *             block it received in step s - 1 (n - 1 steps, no rank sends more than the
 *             total once).
 *   reduce_scatterv: every rank sends part d to rank d, which combines the parts it
 *             receives in rank order 0, 1, ..., n - 1 (left to right), so any op,
 *             commutative or not, and the same bits on every run.
 */
#include "coll/algos.h"
#include "coll/local.h"
#include "coll/scratch.h"
#include "coll/xfer.h"

/* allgatherv's one-step form up to this many bytes in all. */
#define SMALL ((size_t)16 << 10)

/* The root's side of gatherv (gather 1) and scatterv: a request per peer r, a receive
 * into or a send from block r of big, then its own block (own_bytes, 0 in place) copied
 * between own and block root while they fly. */
static int root_side(const struct shmc__cx *x, uint8_t *big, const size_t *counts,
                     const size_t *displs, int gather, void *own, size_t own_bytes)
{
    size_t es = x->es, nreq = 0;
    struct shmc__request *reqs[SHMC_MAX_RANKS];
    for (int r = 0; r < x->n; r++) {
        if (r == x->me)
            continue;
        uint8_t *b = big + displs[r] * es;
        int rc = gather ? shmc__cx_irecv(x, b, counts[r] * es, r, &reqs[nreq])
                        : shmc__cx_isend(x, b, counts[r] * es, r, &reqs[nreq]);
        if (rc != SHMC_OK) {
            shmc__cx_cancel(x, nreq, reqs);
            return rc;
        }
        nreq++;
    }
    uint8_t *mine = big + displs[x->me] * es;
    return gather ? shmc__cx_copy_waitall(x, mine, own, own_bytes, nreq, reqs)
                  : shmc__cx_copy_waitall(x, own, mine, own_bytes, nreq, reqs);
}

int shmc__gatherv_direct(const struct shmc__cx *x, const void *sbuf, size_t scount, void *rbuf,
                         const size_t *rcounts, const size_t *displs)
{
    if (x->me != x->root)
        return shmc__cx_send(x, sbuf, scount * x->es, x->root);
    if (sbuf && scount != rcounts[x->me])
        return shmc__cx_own_mismatch(x);
    /* sbuf is only read: root_side copies it into rbuf. */
    return root_side(x, rbuf, rcounts, displs, 1, (void *)sbuf, sbuf ? scount * x->es : 0);
}

int shmc__scatterv_direct(const struct shmc__cx *x, const void *sbuf, const size_t *scounts,
                          const size_t *displs, void *rbuf, size_t rcount)
{
    if (x->me != x->root)
        return shmc__cx_recv(x, rbuf, rcount * x->es, x->root);
    if (rbuf && rcount != scounts[x->me])
        return shmc__cx_own_mismatch(x);
    /* sbuf is only read: scattering, root_side sends from it and copies out of it. */
    return root_side(x, (uint8_t *)sbuf, scounts, displs, 0, rbuf, rbuf ? rcount * x->es : 0);
}

/* Every block to every rank at once: n - 1 receives and n - 1 sends posted, then the
 * own block copied while they fly. */
static int allgatherv_onestep(const struct shmc__cx *x, const void *own, uint8_t *r,
                              const size_t *rcounts, const size_t *displs)
{
    int n = x->n, me = x->me;
    size_t es = x->es, nreq = 0;
    const void *mine = own ? own : r + displs[me] * es;
    struct shmc__request *reqs[2 * SHMC_MAX_RANKS];
    for (int k = 1; k < n; k++) {
        int src = (me - k + n) % n, dst = (me + k) % n;
        int rc = shmc__cx_irecv(x, r + displs[src] * es, rcounts[src] * es, src, &reqs[nreq]);
        if (rc == SHMC_OK) {
            nreq++;
            rc = shmc__cx_isend(x, mine, rcounts[me] * es, dst, &reqs[nreq]);
        }
        if (rc != SHMC_OK) {
            shmc__cx_cancel(x, nreq, reqs);
            return rc;
        }
        nreq++;
    }
    return shmc__cx_copy_waitall(x, r + displs[me] * es, own, own ? rcounts[me] * es : 0, nreq,
                                 reqs);
}

/* Round the ring, each block straight into its place in r. */
static int allgatherv_ring(const struct shmc__cx *x, const void *own, uint8_t *r,
                           const size_t *rcounts, const size_t *displs)
{
    int n = x->n, me = x->me, next = (me + 1) % n, prev = (me + n - 1) % n;
    size_t es = x->es;
    if (own)
        SHMC_CX_COPY(x, r + displs[me] * es, own, rcounts[me] * es);
    for (int s = 0; s < n - 1; s++) {
        int sb = (me - s + n) % n, rb = (me - s - 1 + n) % n;
        int rc = shmc__cx_sendrecv(x, r + displs[sb] * es, rcounts[sb] * es, next,
                                   r + displs[rb] * es, rcounts[rb] * es, prev);
        if (rc != SHMC_OK)
            return rc;
    }
    return SHMC_OK;
}

int shmc__allgatherv(const struct shmc__cx *x, const void *sbuf, size_t scount, void *rbuf,
                     const size_t *rcounts, const size_t *displs)
{
    if (sbuf && scount != rcounts[x->me])
        return shmc__cx_own_mismatch(x);
    size_t total = 0;
    for (int r = 0; r < x->n; r++)
        total += rcounts[r]; /* the caller checked that the blocks' extent fits */
    if (total * x->es <= SMALL)
        return allgatherv_onestep(x, sbuf, rbuf, rcounts, displs);
    return allgatherv_ring(x, sbuf, rbuf, rcounts, displs);
}

/* Receives part me from rank p into buf (or takes its own from s), and combines it into
 * acc: the first part copied, the others on the right. */
static int take_part(const struct shmc__cx *x, int p, const uint8_t *own, uint8_t *acc,
                     uint8_t *tmp, size_t len)
{
    size_t bytes = len * x->es;
    if (p == x->me) {
        if (p == 0)
            return shmc__cx_copy(x, acc, own, bytes);
        return shmc__cx_reduce(x, acc, own, len, SHMC_ACC_LEFT);
    }
    int rc = shmc__cx_recv(x, p == 0 ? acc : tmp, bytes, p);
    if (rc != SHMC_OK || p == 0)
        return rc;
    return shmc__cx_reduce(x, acc, tmp, len, SHMC_ACC_LEFT);
}

int shmc__reduce_scatterv_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf,
                                 const size_t *rcounts)
{
    int n = x->n, me = x->me;
    size_t es = x->es, off[SHMC_MAX_RANKS], at = 0, most = 0;
    for (int r = 0; r < n; r++) {
        off[r] = at;
        at += rcounts[r];
        most = rcounts[r] > most ? rcounts[r] : most;
    }
    size_t need[SHMC_NSCRATCH] = {most * es, most * es};
    int rc = shmc__scratch_prepare(x, need);
    if (rc != SHMC_OK)
        return rc;
    uint8_t *acc = shmc__cx_scratch(x, 0, most * es), *tmp = shmc__cx_scratch(x, 1, most * es);
    size_t len = rcounts[me];
    struct shmc__request *reqs[SHMC_MAX_RANKS];
    size_t nreq = 0;
    /* A part that is empty goes as no message between two ranks other than rank 0: every
     * member holds the same counts, so both sides pass over it (a reduce-scatter of fewer
     * elements than ranks, as OSU's smallest, leaves most parts empty, whose messages each
     * cost a wait for a rank's turn on a CPU where ranks share them). Rank 0 and every
     * other rank exchange their parts, empty or not: so every member waits for rank 0 and
     * rank 0 for every member, and members whose counts differ meet a block of another
     * size, another digest in its tag (vcollectives.c, counts_word), or each other's call
     * while both are blocked in it (p2p/incall.h), rather than one leaving the call while
     * another waits for it. */
    for (int k = 1; k < n && rc == SHMC_OK; k++) {
        int d = (me + k) % n;
        if ((rcounts[d] || d == 0 || me == 0) &&
            (rc = shmc__cx_isend(x, shmc__at(sbuf, off[d] * es), rcounts[d] * es, d,
                                 &reqs[nreq])) == SHMC_OK)
            nreq++;
    }
    for (int p = 0; p < n && rc == SHMC_OK; p++)
        if (len || me == 0 || p == 0)
            rc = take_part(x, p, shmc__at(sbuf, off[me] * es), acc, tmp, len);
    if (rc != SHMC_OK) {
        shmc__cx_cancel(x, nreq, reqs);
        return rc;
    }
    if ((rc = shmc__cx_finish(x, acc, len)) != SHMC_OK) {
        shmc__cx_cancel(x, nreq, reqs);
        return shmc__cx_quit(x, rc);
    }
    /* The sends read sbuf, which in place is rbuf: the result goes there once they end. */
    if ((rc = shmc__cx_waitall(x, nreq, reqs)) != SHMC_OK)
        return rc;
    return shmc__cx_copy(x, rbuf, acc, len * es);
}
