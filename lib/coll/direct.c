/*
 * The direct all-reduce of the world communicator: every rank reads its peers' inputs
 * in place and writes its results straight into their receive buffers with the
 * transport's single copy (get and put: process_vm_readv/writev in shared memory), so no
 * data waits for a partner to be scheduled.
 *
 *   round r1  publish {sbuf, rbuf, count, dtype, op, can read and write every peer,
 *             our span of pieces}; wait for everyone
 *             claim pieces of PIECE bytes (a vector of one is cut into MIN_PIECES),
 *             our span's from the front, then, once it is empty, other ranks' from the
 *             back of theirs; for each, read the piece of every
 *             rank's input (our own in place), combine them left to right into the
 *             piece of our receive buffer, write it into every peer's receive buffer,
 *             and note it in our piece map
 *   round r2  publish {status, piece map, whether a write failed}; wait: every piece is
 *             in every buffer, and nobody writes into ours any more; return
 *   (only if some rank could not write a piece, or may not write at all:)
 *             read every piece we did not combine from the rank that did
 *   round r3  publish {status}; wait: nobody reads our rbuf any more, we may return
 *
 * The rounds are the world-sync rounds of coll/wsync.c, so each is one store and n - 1
 * loads; what a rank publishes goes in its half (round & 1), which is safe to reuse two
 * rounds later for the reasons given there. R7/A7 (wsync.c) publish the addresses before
 * anyone reads or writes through them, and each rank's pieces, map and flags before
 * anyone relies on them. A rank's span of pieces lives in its r1 half, written before it
 * enters r1 (so R7 publishes it) and narrowed with compare-and-swaps until round r2, long
 * before the rank writes that half again in r3.
 *
 * Writing into a peer's buffer in place is safe: piece k of any rank's input is read
 * only by the rank that combines piece k, and it writes the result there only after.
 *
 * Why this beats the ring when ranks share cores: the ring makes 2 (n - 1) steps, each
 * waiting for one neighbour to be scheduled with the data it needs; here a rank waits
 * twice, and between the waits it does work whenever the scheduler runs it. Helping with
 * other ranks' spans means that the ranks of a core that the scheduler favours take more
 * of the work, instead of waiting for the others; starting with our own span, from its
 * front, keeps most pieces with their owner in long runs, which the reading fallback
 * fetches in one call each. Writing a finished piece while it is in our cache was faster
 * than each rank reading it later (coll_bench --algo each). The bytes moved are the ring's:
 * every piece of every input is read once by the rank that combines it, and every rank
 * receives the (n - 1)/n of the result it did not make.
 *
 * Every rank decides the same way whether to go on: the first round carries each rank's
 * count, dtype and op (a difference is SHMC_ERR_MISMATCH everywhere) and whether it has
 * read from every peer with single copy before and would move its pieces by single copy
 * (SHMC_SINGLE_COPY_MIN: by_single_copy). If any rank has not, the ranks that
 * lack the proof read one byte from each unproven peer now (so the next call can go
 * direct) and everyone falls back to `shm` for this call, which combines in the same
 * order, so that the result has the same bits either way. A read that fails later
 * (a peer gone, a bad buffer) is reported in the next round, so that every rank returns
 * an error instead of waiting for the failed one. A write the kernel refuses (a policy
 * that allows process_vm_readv only) stops that rank's writing, and round r2 tells every
 * rank to read what it misses; that peer is then not written into again.
 *
 * The reduction order is rank order 0, 1, ..., n - 1 for every element, the order of
 * `shm`, whoever combines the piece. Other communicators than the world have no
 * world-sync rounds and use `shm` itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/copy.h"
#include "base/log.h"
#include "base/memcheck.h"
#include "coll/algos.h"
#include "coll/nbworld.h"
#include "coll/onestep.h"
#include "coll/scratch.h"
#include "coll/wsync.h"

/* Bytes combined per read: the piece of the peer's input read, our own and the result
 * stay in a core's L2 (1 or 2 MiB on the x86 servers measured), and each costs 2 (n - 1)
 * system calls: pieces of 64 KiB were slower from 1 MiB up at 2 ranks on an Intel Xeon
 * (SHMC_ALGO_ALLREDUCE=direct build/bench/coll_bench). */
#define PIECE (256u << 10)
/* A vector of one piece is cut into this many (whole pages), so that more than one core
 * works on it. Only then: cutting 128 and 256 KiB into more pieces was slower at 8 and 16
 * ranks (each piece costs 2 (n - 1) system calls; SHMC_ALGO_ALLREDUCE=direct shmrun -n N
 * build/bench/measure --tests allreduce). */
#define MIN_PIECES 4u

struct pub {
    uint64_t src, dst, count;
    shmc_atomic_u64 span; /* round r1: pieces of our block not yet claimed, first << 32 | end */
    uint32_t dt, op;
    int32_t status;    /* rounds 2 and 3: SHMC_OK or this rank's error */
    uint32_t can;      /* round 1: CAN_READ and CAN_WRITE, for every peer */
    uint32_t unpushed; /* round 2: a piece of ours could not be written into some peer */
    uint32_t pad;
    /* round 2: the map of pieces this rank combined follows, one bit each */
};

enum { CAN_READ = 1, CAN_WRITE = 2 };

static_assert(sizeof(struct pub) % sizeof(uint64_t) == 0, "the piece map is word-aligned");
static_assert(sizeof(struct pub) <= SHMC_WSYNC_IN_LINE, "a publication starts in the word's line");
#define MAP_WORDS ((SHMC_WSYNC_BYTES - sizeof(struct pub)) / sizeof(uint64_t))
#define MAX_PIECES (MAP_WORDS * 64)

/* Our and world rank q's publication in round `round` of lane `lane` (the blocking
 * call's, or the nonblocking one's: shmc__direct_step). */
static struct pub *my_pub(const struct shmc__coll *co, unsigned lane, uint64_t round)
{
    return (struct pub *)(void *)shmc__wsync_line(&co->lane[lane], round);
}

static struct pub *peer_pub(const struct shmc__coll *co, unsigned lane, int q, uint64_t round)
{
    return (struct pub *)(void *)shmc__wsync_line_of(&co->lane[lane], q, round);
}

static uint64_t *pub_map(struct pub *p)
{
    return (uint64_t *)(p + 1);
}

static int map_has(const uint64_t *map, size_t k)
{
    return (int)((map[k / 64] >> (k % 64)) & 1);
}

/* Reads n bytes at remote in world rank q into dst. Returns 0 or an errno. */
static int read_peer(const struct shmc__coll *co, int q, void *dst, uint64_t remote, size_t n)
{
    int e = 0;
    shmc__ep_get(shmc__peer_ep(co->p2p, q), dst, remote, n, &e);
    return e;
}

static int read_error(int q, int e)
{
    if (e == ESRCH)
        return SHMC_ERR_PEER_DEAD;
    SHMC_ERROR("all-reduce: reading rank %d's buffer failed: %s (are its buffers valid?)", q,
               strerror(e));
    return SHMC_ERR_ARG;
}

/* Would this process read and write peers in pieces of `bytes` by single copy? Not below
 * the size from which its messages go so (SHMC_SINGLE_COPY_MIN): where single copy
 * measured slower than the mailboxes' two copies, reading and writing peers in place is
 * as slow, and `shm` combines the vector instead (docs/collectives.md, "The direct
 * all-reduce"). The pieces are what each system call moves (PIECE bytes at most). */
static int by_single_copy(const struct shmc__coll *co, size_t bytes)
{
    return shmc__p2p_single_copy(co->p2p) && bytes >= co->p2p->single_copy_min;
}

/* Has this process read from every peer before (SHMC_SC_PROVEN), and would it move
 * pieces of `bytes` by single copy? */
static int can_read_all(const struct shmc__coll *co, size_t bytes)
{
    if (!by_single_copy(co, bytes))
        return 0;
    for (int q = 0; q < co->size; q++)
        if (q != co->rank && shmc__peer_ep(co->p2p, q)->sc != SHMC_SC_PROVEN)
            return 0;
    return 1;
}

/* May we write into every peer (no refusal seen)? */
static int can_write_all(const struct shmc__coll *co)
{
    for (int q = 0; q < co->size; q++)
        if (q != co->rank && !shmc__peer_ep(co->p2p, q)->put_ok)
            return 0;
    return 1;
}

/* One byte from every peer not yet proven, so that the next call in pieces of `bytes`
 * knows. */
static void probe_peers(const struct shmc__coll *co, unsigned lane, uint64_t round, size_t bytes)
{
    if (!by_single_copy(co, bytes))
        return;
    for (int q = 0; q < co->size; q++) {
        struct shmc__ep *ep = shmc__peer_ep(co->p2p, q);
        if (q == co->rank || ep->sc != SHMC_SC_ALLOWED)
            continue;
        uint8_t b;
        int e = read_peer(co, q, &b, peer_pub(co, lane, q, round)->src, 1);
        if (!e)
            ep->sc = SHMC_SC_PROVEN;
        else if (e == EPERM || e == EACCES || e == ENOSYS)
            ep->sc = SHMC_SC_REFUSED;
    }
}

/* The peers' buffers, kept from round r1 (whose halves are reused from round r3), the
 * lane of the rounds, and the staging buffers of a piece each. */
struct bufs {
    uint64_t *src, *dst;
    int push;     /* write finished pieces into the peers (everyone may) */
    int unpushed; /* a write failed: stop pushing, let the peers read */
    unsigned lane;
    uint8_t *stage, *tmp;
};

/* Takes one piece of rank q's block: the first if we are q, the last if we help. Returns
 * the piece, or -1 when none is left. */
static int64_t claim(const struct shmc__coll *co, unsigned lane, int q, int own, uint64_t r1)
{
    shmc_atomic_u64 *span = &peer_pub(co, lane, q, r1)->span;
    uint64_t v = shmc__load_relaxed64(span);
    for (;;) {
        uint64_t first = v >> 32, end = v & 0xffffffffu;
        if (first >= end)
            return -1;
        uint64_t nv = own ? (first + 1) << 32 | end : first << 32 | (end - 1);
        if (shmc__cas64(span, &v, nv))
            return (int64_t)(own ? first : end - 1);
    }
}

/* Writes a finished piece into every peer's receive buffer, while it is still in our
 * cache. A peer the kernel does not let us write into gets nothing more from us in
 * this call (b->unpushed); it then reads what it misses after round 2. */
static void push_piece(const struct shmc__cx *x, struct bufs *b, uint8_t *piece, size_t off,
                       size_t bytes)
{
    for (int j = 1; j < x->n && !b->unpushed; j++) {
        int q = (x->me + j) % x->n, err = 0;
        struct shmc__ep *ep = shmc__peer_ep(x->co->p2p, q);
        if (shmc__ep_put(ep, piece, b->dst[q] + off, bytes, &err) < bytes) {
            SHMC_INFO("all-reduce: writing into rank %d failed (%s); it reads instead", q,
                      strerror(err));
            if (err == EPERM || err == EACCES || err == ENOSYS)
                ep->put_ok = 0;
            b->unpushed = 1;
        }
    }
}

/* Combines pieces of step elements into out, noting each in map: those of our own block
 * from its front, then those the other ranks have not reached, from the back of theirs. */
static int combine_pieces(const struct shmc__cx *x, struct bufs *b, const uint8_t *in, uint8_t *out,
                          size_t count, size_t step, uint64_t r1, uint64_t *map)
{
    size_t es = x->es, npieces = (count + step - 1) / step;
    uint8_t *stage = b->stage, *tmp = b->tmp;
    for (int i = 0; i < x->n; i++) {
        int owner = (x->me + i) % x->n;
        int64_t k;
        while ((k = claim(x->co, b->lane, owner, i == 0, r1)) >= 0) {
            if ((uint64_t)k >= npieces) { /* the span lives in shared memory: check it */
                SHMC_ERROR("all-reduce: rank %d's span names piece %lld of %zu", owner,
                           (long long)k, npieces);
                return SHMC_ERR_CORRUPT;
            }
            size_t e = (size_t)k * step, len = shmc__chunk(count, e, step), bytes = len * es;
            /* Combine straight into out, except in place, where out is our own input,
             * which must stay intact until its turn in the rank order comes. */
            uint8_t *acc = in == out ? stage : out + e * es;
            /* Rank 0's input when it is ours (read into acc otherwise): combined with
             * rank 1's in one pass, not copied into acc first. */
            const uint8_t *first = NULL;
            for (int q = 0; q < x->n; q++) {
                const uint8_t *src = in + e * es;
                if (q != x->me) {
                    uint8_t *to = q ? tmp : acc;
                    int rc = read_peer(x->co, q, to, b->src[q] + e * es, bytes);
                    if (rc)
                        return read_error(q, rc);
                    src = to;
                }
                if (q == 0) {
                    first = src == acc ? NULL : src;
                } else if (first) {
                    shmc__reduce_into(acc, first, src, len, x->dt, x->op);
                    first = NULL;
                } else {
                    shmc__reduce(acc, src, len, x->dt, x->op, SHMC_ACC_LEFT);
                }
            }
            shmc__reduce_finish(acc, len, x->dt, x->op, x->n);
            if (acc != out + e * es)
                shmc__copy(out + e * es, acc, bytes);
            if (b->push)
                push_piece(x, b, out + e * es, e * es, bytes);
            map[k / 64] |= 1ull << (k % 64);
            x->co->direct_helped += i != 0;
        }
    }
    return SHMC_OK;
}

/* Copies every piece we did not combine from the rank that did (round r2's maps), a run
 * of consecutive pieces of one rank in one read. */
static int gather_pieces(const struct shmc__cx *x, const struct bufs *b, uint8_t *out, size_t count,
                         size_t step, uint64_t r2)
{
    size_t es = x->es, npieces = (count + step - 1) / step;
    const uint64_t *mine = pub_map(my_pub(x->co, b->lane, r2));
    int owner = -1;
    size_t run = 0; /* first piece of the current run of owner's pieces */
    for (size_t k = 0; k <= npieces; k++) {
        int who = -1;
        if (k < npieces && !map_has(mine, k))
            for (int q = 0; q < x->n && who < 0; q++)
                if (q != x->me && map_has(pub_map(peer_pub(x->co, b->lane, q, r2)), k))
                    who = q;
        if (k < npieces && !map_has(mine, k) && who < 0) {
            SHMC_ERROR("all-reduce: no rank combined piece %zu", k);
            return SHMC_ERR_CORRUPT;
        }
        if (who == owner)
            continue;
        if (owner >= 0) {
            size_t e = run * step, len = shmc__chunk(count, e, (k - run) * step);
            int rc = read_peer(x->co, owner, out + e * es, b->dst[owner] + e * es, len * es);
            if (rc)
                return read_error(owner, rc);
        }
        owner = who;
        run = k;
    }
    return SHMC_OK;
}

/* The first error any rank reported in round r (every rank finds the same). */
static int first_status(const struct shmc__coll *co, unsigned lane, uint64_t r)
{
    for (int q = 0; q < co->size; q++) {
        int s = peer_pub(co, lane, q, r)->status;
        if (s != SHMC_OK)
            return s;
    }
    return SHMC_OK;
}

/* Publishes status in a new round, waits for every rank, and returns the first error any
 * rank reported (every rank computes the same answer). */
static int agree(const struct shmc__cx *x, int status, uint64_t *round)
{
    struct shmc__coll *co = x->co;
    uint64_t r = shmc__wsync_next(shmc__wsync_blk(co));
    my_pub(co, SHMC_LANE_BLOCKING, r)->status = status;
    int rc = shmc__onestep_world_enter(x, r, 1);
    if (rc != SHMC_OK)
        return rc;
    *round = r;
    return first_status(co, SHMC_LANE_BLOCKING, r);
}

/* Elements per piece, which the staging buffers hold. */
static size_t direct_step(size_t count, size_t es)
{
    size_t step = PIECE / es;
    if (count / step >= MAX_PIECES) /* past MAX_PIECES pieces they grow to fit the map */
        step = count / (MAX_PIECES - 1);
    if (count <= step) { /* one piece, which one rank would combine alone: cut it */
        size_t page = 4096 / es;
        step = ((count + MIN_PIECES - 1) / MIN_PIECES + page - 1) / page * page;
    }
    return step;
}

/* The staging buffers, and the peers' addresses; taken (early, scratch.h) before the
 * call's own agreement on whether to read as well. */
static void direct_need(const struct shmc__cx *x, size_t count, size_t need[SHMC_NSCRATCH])
{
    need[0] = need[1] = direct_step(count, x->es) * x->es;
    need[2] = 2 * (size_t)x->n * sizeof(uint64_t);
}

/* Our round r1 of lane `lane`: the buffers, the call, our span of pieces, and whether we
 * can read (readable) and write every peer. Published by R7 when the round is entered. */
static void publish(const struct shmc__cx *x, unsigned lane, uint64_t r1, const uint8_t *in,
                    uint8_t *out, size_t count, size_t npieces, int readable)
{
    struct pub *p = my_pub(x->co, lane, r1);
    p->src = (uintptr_t)in;
    p->dst = (uintptr_t)out;
    p->count = count;
    p->dt = (uint32_t)x->dt;
    p->op = (uint32_t)x->op;
    p->status = SHMC_OK;
    uint64_t first = npieces * (size_t)x->me / (size_t)x->n;
    uint64_t end = npieces * (size_t)(x->me + 1) / (size_t)x->n;
    shmc__store_relaxed64(&p->span, first << 32 | end);
    p->can = (readable ? CAN_READ : 0u) | (readable && can_write_all(x->co) ? CAN_WRITE : 0u);
}

/* Once every rank has entered r1: SHMC_ERR_MISMATCH where the calls differ, else SHMC_OK
 * and *all_can, whether every rank can read every other, with b->push and, where all
 * can, b's addresses set. */
static int entered(const struct shmc__cx *x, uint64_t r1, size_t count, struct bufs *b,
                   int *all_can)
{
    const struct pub *p = my_pub(x->co, b->lane, r1);
    int all_write = 1;
    *all_can = 1;
    for (int q = 0; q < x->n; q++) {
        const struct pub *o = peer_pub(x->co, b->lane, q, r1);
        if (o->count != count || o->dt != p->dt || o->op != p->op) {
            SHMC_ERROR("all-reduce arguments differ: rank %d passed count %llu dtype %u op %u, "
                       "rank %d count %zu dtype %u op %u; every rank must pass the same",
                       q, (unsigned long long)o->count, o->dt, o->op, x->me, count, p->dt, p->op);
            return SHMC_ERR_MISMATCH;
        }
        *all_can &= (o->can & CAN_READ) != 0;
        all_write &= (o->can & CAN_WRITE) != 0;
    }
    b->push = all_write;
    b->unpushed = 0;
    for (int q = 0; q < x->n && *all_can; q++) {
        b->src[q] = peer_pub(x->co, b->lane, q, r1)->src;
        b->dst[q] = peer_pub(x->co, b->lane, q, r1)->dst;
    }
    return SHMC_OK;
}

/* Our pieces combined, with round r1 + 1's half (free: everyone has entered r1, so
 * finished reading r1 - 1) holding our map of them and whether a write failed; our status
 * goes there too. */
static void combine_all(const struct shmc__cx *x, struct bufs *b, const uint8_t *in, uint8_t *out,
                        size_t count, size_t step, uint64_t r1)
{
    struct pub *p2 = my_pub(x->co, b->lane, r1 + 1);
    uint64_t *map = pub_map(p2);
    memset(map, 0, ((count + step - 1) / step + 63) / 64 * sizeof *map);
    p2->status = combine_pieces(x, b, in, out, count, step, r1, map);
    p2->unpushed = (uint32_t)(!b->push || b->unpushed);
}

/* After round r2: has every piece reached every buffer (no rank failed to write one)? */
static int all_pushed(const struct shmc__coll *co, unsigned lane, uint64_t r2)
{
    for (int q = 0; q < co->size; q++)
        if (peer_pub(co, lane, q, r2)->unpushed)
            return 0;
    return 1;
}

int shmc__allreduce_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    struct shmc__coll *co = x->co;
    if (!shmc__cx_world(x))
        return shmc__allreduce_shm(x, sbuf, rbuf, count);
    const uint8_t *in = sbuf;
    uint8_t *out = rbuf;
    size_t es = x->es, step = direct_step(count, es);
    size_t npieces = (count + step - 1) / step;

    uint64_t r1 = shmc__wsync_next(shmc__wsync_blk(co));
    /* Without memory for the staging buffers we say we cannot read: all take shm. (None
     * is asked for where this rank cannot read anyway.) */
    int may = can_read_all(co, step * es), all_can;
    uint64_t *kept = may ? shmc__cx_scratch_early(x, 2, 2 * (size_t)x->n * sizeof *kept) : NULL;
    struct bufs b = {.lane = SHMC_LANE_BLOCKING,
                     .stage = may ? shmc__cx_scratch_early(x, 0, step * es) : NULL,
                     .tmp = may ? shmc__cx_scratch_early(x, 1, step * es) : NULL};
    int readable = may && kept && b.stage && b.tmp;
    publish(x, SHMC_LANE_BLOCKING, r1, in, out, count, npieces, readable);
    int rc = shmc__onestep_world_enter(x, r1, 1);
    if (rc != SHMC_OK)
        return rc;
    b.src = kept;
    b.dst = kept ? kept + x->n : NULL;
    if ((rc = entered(x, r1, count, &b, &all_can)) != SHMC_OK)
        return rc;
    if (!all_can) {
        probe_peers(co, SHMC_LANE_BLOCKING, r1, step * es);
        return shmc__allreduce_shm(x, sbuf, rbuf, count);
    }
    combine_all(x, &b, in, out, count, step, r1);
    uint64_t r2 = shmc__wsync_next(shmc__wsync_blk(co)), r3;
    if ((rc = shmc__onestep_world_enter(x, r2, 1)) != SHMC_OK ||
        (rc = first_status(co, SHMC_LANE_BLOCKING, r2)) != SHMC_OK)
        return rc;
    /* Every piece is in every buffer unless some rank could not write it: then all read
     * what they miss (the same decision everywhere, from the same flags). */
    /* Peers wrote their pieces into out (base/memcheck.h). */
    shmc__mark_defined(out, count * x->es);
    if (all_pushed(co, SHMC_LANE_BLOCKING, r2))
        return SHMC_OK;
    return agree(x, gather_pieces(x, &b, out, count, step, r2), &r3);
}

/* ---- the same in steps on the nonblocking lane (nbworld.c) -------------------------- */

/* The call's memory on the lane, kept for the next (one call at a time runs there): the
 * peers' addresses, then the staging buffers of a piece each. NULL without memory. */
static uint8_t *nb_memory(const struct shmc__cx *x, struct shmc__lane *l, size_t step)
{
    size_t need = 2 * (size_t)x->n * sizeof(uint64_t) + 2 * step * x->es;
    if (l->direct_cap < need) {
        free(l->direct_mem);
        l->direct_cap = 0;
        if (!(l->direct_mem = malloc(need)))
            return NULL;
        l->direct_cap = need;
    }
    return l->direct_mem;
}

/* b over the lane's memory (nb_memory), for steps after the first. */
static struct bufs nb_bufs(const struct shmc__cx *x, struct shmc__lane *l, size_t step)
{
    uint64_t *a = l->direct_mem;
    uint8_t *st = (uint8_t *)(a + 2 * (size_t)x->n);
    return (struct bufs){
        .src = a, .dst = a + x->n, .lane = SHMC_LANE_NB, .stage = st, .tmp = st + step * x->es};
}

/* Where the round d looks at stands: 0 while it waits, for the round or, after one that
 * failed (a rank gone or quit), until no rank can still write into our buffers (as
 * shmc__wsync_settle waits); else 1, with *rc SHMC_OK to go on or the call's error. */
static int looked(struct shmc__direct_run *d, int *rc)
{
    if (d->phase != SHMC_DIRECT_SETTLING && !shmc__wsync_look(&d->look))
        return 0;
    if (d->look.err != SHMC_OK) {
        d->phase = SHMC_DIRECT_SETTLING;
        if (!shmc__wsync_settled(d->x->co, SHMC_LANE_NB, d->look.want))
            return 0;
        *rc = d->look.err;
        return 1;
    }
    *rc = shmc__onestep_world_outcome(d->x, &d->look);
    return 1;
}

int shmc__direct_step(struct shmc__direct_run *d, int *rc)
{
    const struct shmc__cx *x = d->x;
    struct shmc__coll *co = x->co;
    struct shmc__lane *l = &co->lane[SHMC_LANE_NB];
    size_t es = x->es, step = direct_step(d->count, es);
    uint64_t tag = shmc__wsync_tag(x->hash), r = d->look.want; /* the round entered last */
    struct bufs b;
    int all_can, st;
    switch (d->phase) {
    case 0: {
        int readable = can_read_all(co, step * es) && nb_memory(x, l, step);
        r = shmc__wsync_next(l);
        publish(x, SHMC_LANE_NB, r, d->in, d->out, d->count, (d->count + step - 1) / step,
                readable);
        shmc__wsync_post(co, l, r, tag, &d->look);
        d->phase = 1;
    }
        /* fall through */
    case 1: /* round r1 entered */
        if (!looked(d, rc))
            return 0;
        if (*rc != SHMC_OK)
            return 1;
        b = l->direct_mem ? nb_bufs(x, l, step) : (struct bufs){.lane = SHMC_LANE_NB};
        if ((*rc = entered(x, r, d->count, &b, &all_can)) != SHMC_OK)
            return 1;
        if (!all_can) {
            probe_peers(co, SHMC_LANE_NB, r, step * es);
            *rc = SHMC_DIRECT_REFUSED;
            return 1;
        }
        combine_all(x, &b, d->in, d->out, d->count, step, r);
        r = shmc__wsync_next(l);
        shmc__wsync_post(co, l, r, tag, &d->look);
        d->phase = 2;
        /* fall through */
    case 2: /* round r2 entered */
        if (!looked(d, rc))
            return 0;
        if (*rc != SHMC_OK || (*rc = first_status(co, SHMC_LANE_NB, r)) != SHMC_OK)
            return 1;
        shmc__mark_defined(d->out, d->count * es);
        if (all_pushed(co, SHMC_LANE_NB, r))
            return 1;
        b = nb_bufs(x, l, step);
        st = gather_pieces(x, &b, d->out, d->count, step, r);
        r = shmc__wsync_next(l);
        my_pub(co, SHMC_LANE_NB, r)->status = st;
        shmc__wsync_post(co, l, r, tag, &d->look);
        d->phase = 3;
        /* fall through */
    case 3: /* round r3 entered */
        if (!looked(d, rc))
            return 0;
        if (*rc == SHMC_OK)
            *rc = first_status(co, SHMC_LANE_NB, r);
        return 1;
    default: /* SHMC_DIRECT_SETTLING */
        return looked(d, rc);
    }
}

const struct shmc__coll_algo shmc__allreduce_direct_algo = {shmc__allreduce_direct, direct_need};
