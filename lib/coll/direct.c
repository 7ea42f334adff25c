/*
 * The direct all-reduce of the world communicator: every rank reads its peers' buffers
 * in place with process_vm_readv, so no data waits for a partner to be scheduled.
 *
 *   round r1  publish {sbuf, rbuf, count, dtype, op, can-read-all}; wait for everyone
 *             reduce block `me`: for q = 0..n-1, read q's input block (local for q = me),
 *             combine left to right into rbuf's block `me`
 *   round r2  publish {status}; wait: every block is final
 *             copy every other rank's block of its rbuf into ours
 *   round r3  publish {status}; wait: nobody reads our rbuf any more, we may return
 *
 * The rounds are the world-sync rounds of coll/wsync.c, so each is one store and n - 1
 * loads; what a rank publishes goes in its half (round & 1), which is safe to reuse two
 * rounds later for the reasons given there. R7/A7 (wsync.c) publish the addresses before
 * anyone reads through them, and each rank's block before anyone copies it.
 *
 * Why this beats the ring when ranks share cores: the ring makes 2 (n - 1) steps, each
 * waiting for one neighbour to be scheduled with the data it needs; here a rank waits
 * only three times, and between the waits it can do all its work whenever the
 * scheduler runs it. The bytes moved are the ring's: each rank reads (n - 1)/n of the
 * vector to reduce and (n - 1)/n to gather.
 *
 * Every rank decides the same way whether to go on: the first round carries each rank's
 * count, dtype and op (a difference is SHMC_ERR_MISMATCH everywhere) and whether it has
 * read from every peer with process_vm_readv before. If any rank has not, the ranks that
 * lack the proof read one byte from each unproven peer now (so the next call can go
 * direct) and everyone falls back to `shm` for this call, which combines in the same
 * order, so that the result has the same bits either way. A read that fails later
 * (a peer gone, a bad buffer) is reported in the next round, so that every rank returns
 * an error instead of waiting for the failed one.
 *
 * The reduction order is rank order 0, 1, ..., n - 1, the order of `shm`. Other
 * communicators than the world have no world-sync rounds and use `shm` itself.
 */
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "../log.h"
#include "coll.h"

#define PIECE (64u << 10) /* bytes combined per read: the staging buffers stay in cache */

struct pub {
    uint64_t src, dst, count;
    uint32_t dt, op;
    int32_t status; /* rounds 2 and 3: SHMC_OK or this rank's error */
    uint32_t can_read;
};

static struct pub *my_pub(uint64_t round)
{
    return (struct pub *)shmc__wsync_data(shmc__g.wsync, (unsigned)(round & 1));
}

static const struct pub *peer_pub(int q, uint64_t round)
{
    struct shmc__wsync *w = shmc__arena_wsync(&shmc__g.arena, (unsigned)q);
    return (const struct pub *)shmc__wsync_data(w, (unsigned)(round & 1));
}

/* Reads n bytes at remote in rank q into dst. Returns 0 or an errno. */
static int read_peer(int q, void *dst, uint64_t remote, size_t n)
{
    /* Relaxed: the pid was published before the rank joined the job (A1 covers it). */
    pid_t pid = (pid_t)shmc__load_relaxed32(&shmc__g.peers[q].cb->pid);
    while (n) {
        struct iovec l = {.iov_base = dst, .iov_len = n};
        struct iovec r = {.iov_base = (void *)(uintptr_t)remote, .iov_len = n};
        ssize_t got = process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (got <= 0) {
            int e = got < 0 ? errno : EFAULT;
            if (e == EINTR || e == EAGAIN)
                continue;
            return e;
        }
        dst = (uint8_t *)dst + got;
        remote += (uint64_t)got;
        n -= (size_t)got;
    }
    return 0;
}

static int read_error(int q, int e)
{
    if (e == ESRCH)
        return SHMC_ERR_PEER_DEAD;
    SHMC_ERROR("all-reduce: reading rank %d's buffer failed: %s (are its buffers valid?)", q,
               strerror(e));
    return SHMC_ERR_ARG;
}

/* Has this process read from every peer before (peers[].cma == 2)? */
static int can_read_all(void)
{
    struct shmc__global *g = &shmc__g;
    if (!g->cfg.single_copy || !g->cma_self)
        return 0;
    for (int q = 0; q < g->size; q++)
        if (q != g->rank && g->peers[q].cma != 2)
            return 0;
    return 1;
}

/* One byte from every peer not yet proven, so that the next call knows. */
static void probe_peers(uint64_t round)
{
    struct shmc__global *g = &shmc__g;
    if (!g->cfg.single_copy || !g->cma_self)
        return;
    for (int q = 0; q < g->size; q++) {
        struct shmc__peer *pe = &g->peers[q];
        if (q == g->rank || pe->cma != 1)
            continue;
        uint8_t b;
        int e = read_peer(q, &b, peer_pub(q, round)->src, 1);
        if (!e)
            pe->cma = 2;
        else if (e == EPERM || e == EACCES || e == ENOSYS)
            pe->cma = 0;
    }
}

/* Combines block `me` of every rank's input into out (count elements at element off). */
static int reduce_block(const struct shmc__cx *x, uint64_t round, const uint8_t *in, uint8_t *out,
                        size_t off, size_t len)
{
    size_t es = x->es, step = PIECE / es;
    uint8_t *stage = shmc__cx_scratch(0, PIECE), *tmp = shmc__cx_scratch(1, PIECE);
    for (size_t e = off; e < off + len; e += step) {
        size_t k = shmc__chunk(off + len, e, step), b = k * es;
        /* Combine straight into out, except in place, where out is our own input, which
         * must stay intact until its turn in the rank order comes. */
        uint8_t *acc = in == out ? stage : out + e * es;
        for (int q = 0; q < x->n; q++) {
            const uint8_t *src = in + e * es;
            if (q != x->me) {
                int rc = read_peer(q, q ? tmp : acc, peer_pub(q, round)->src + e * es, b);
                if (rc)
                    return read_error(q, rc);
                src = q ? tmp : acc;
            }
            if (q == 0) {
                if (src != acc)
                    memcpy(acc, src, b);
            } else {
                shmc__reduce(acc, src, k, x->dt, x->op, SHMC_ACC_LEFT);
            }
        }
        shmc__reduce_finish(acc, k, x->dt, x->op, x->n);
        if (acc != out + e * es)
            memcpy(out + e * es, acc, b);
    }
    return SHMC_OK;
}

/* Publishes status in a new round, waits for every rank, and returns the first error any
 * rank reported (every rank computes the same answer). */
static int agree(int status, uint64_t *round)
{
    struct shmc__global *g = &shmc__g;
    uint64_t r = ++g->wround;
    my_pub(r)->status = status;
    int rc = shmc__wsync_enter(r);
    if (rc != SHMC_OK)
        return rc;
    for (int q = 0; q < g->size; q++) {
        int s = q == g->rank ? status : peer_pub(q, r)->status;
        if (s != SHMC_OK)
            return s;
    }
    *round = r;
    return SHMC_OK;
}

SHMC_COLL_FN(shmc__allreduce_direct)
{
    struct shmc__global *g = &shmc__g;
    if (!shmc__wsync_ok(x))
        return shmc__allreduce_shm(x, sbuf, rbuf, count);
    const uint8_t *in = sbuf;
    uint8_t *out = rbuf;
    size_t es = x->es;

    uint64_t r1 = ++g->wround;
    struct pub *p = my_pub(r1);
    p->src = (uintptr_t)in;
    p->dst = (uintptr_t)out;
    p->count = count;
    p->dt = (uint32_t)x->dt;
    p->op = (uint32_t)x->op;
    /* Without memory for the staging buffers, say so in can_read: all take the ring. */
    uint64_t *dst = shmc__cx_scratch(2, (size_t)x->n * sizeof *dst);
    p->can_read = (uint32_t)(can_read_all() && dst && shmc__cx_scratch(0, PIECE) &&
                             shmc__cx_scratch(1, PIECE));
    int rc = shmc__wsync_enter(r1);
    if (rc != SHMC_OK)
        return rc;
    int all_can = 1;
    for (int q = 0; q < x->n; q++) {
        const struct pub *o = peer_pub(q, r1);
        if (dst) /* their receive buffers, read when round r3 may reuse the r1 halves */
            dst[q] = o->dst;
        if (o->count != count || o->dt != p->dt || o->op != p->op) {
            SHMC_ERROR("all-reduce arguments differ: rank %d passed count %llu dtype %u op %u, "
                       "rank %d count %zu dtype %u op %u; every rank must pass the same",
                       q, (unsigned long long)o->count, o->dt, o->op, x->me, count, p->dt, p->op);
            return SHMC_ERR_MISMATCH;
        }
        all_can &= o->can_read != 0;
    }
    if (!all_can) {
        probe_peers(r1);
        return shmc__allreduce_shm(x, sbuf, rbuf, count);
    }

    size_t off, len;
    shmc__block(count, x->n, x->me, &off, &len);
    uint64_t r2, r3;
    if ((rc = agree(reduce_block(x, r1, in, out, off, len), &r2)) != SHMC_OK)
        return rc;
    int st = SHMC_OK;
    for (int i = 1; i < x->n && st == SHMC_OK; i++) {
        int q = (x->me + i) % x->n; /* start at different ranks: spread the readers */
        shmc__block(count, x->n, q, &off, &len);
        int e = read_peer(q, out + off * es, dst[q] + off * es, len * es);
        if (e)
            st = read_error(q, e);
    }
    return agree(st, &r3);
}
