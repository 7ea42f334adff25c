/*
 * The staged all-reduce of the world communicator: every rank owns two staging buffers
 * in the arena (shm/arena.h, stage_bytes each), and the vector goes through them a
 * chunk of stage_bytes at a time, each chunk cut into n blocks (whole cache lines), block
 * d combined by rank d:
 *
 *   copy in   the chunk's blocks of our input that others combine into our buffer b
 *   round ra  (the first chunk's also carries count, dtype and op, compared by all)
 *   combine   our block from every rank's buffer b (our own straight from our input), in
 *             rank order, into our block of buffer b; then copy it into our output
 *   round rb
 *   copy out  every other rank's block from its buffer b into our output
 *
 * b alternates from chunk to chunk (co->stage_seq counts the chunks of every call; all
 * ranks count alike, since the world's all-reduces run in the same order everywhere).
 * Why two buffers are enough, with no other signal: a rank writes its buffer b again two
 * chunks later, after round ra of the chunk in between, which every rank enters only once
 * it has finished the copy-out of the chunk before, the last reading of that buffer. The
 * rounds are the world-sync rounds (coll/wsync.c): each is one store and n - 1 loads, and
 * R7/A7 there publish what a rank wrote into its buffer before the round to every rank
 * that passes the round: the copied-in blocks at ra, the combined block at rb.
 *
 * Why it exists: `direct` reads and writes the peers with process_vm_readv/writev, and
 * at 1 MiB a fifth of its time went to pinning the pages it touches; `shm`'s 64 KiB slots
 * make the ranks meet twice per 64 KiB. Here everything is a plain load or store on memory
 * mapped once, and the ranks meet twice per chunk of up to 1 MiB (smaller chunks were
 * slower: a block freshly written by another core comes slower from that core's cache
 * than from the shared L3 it has been pushed to by then: coll_bench --algo each, with
 * the chunk changed). Each rank
 * moves (n - 1)/n of the vector in, combines 1/n of it from n sources, and moves (n -
 * 1)/n out: the ring's bytes, with two meetings per chunk instead of 2 (n - 1) steps.
 *
 * The buffers are reserved in the arena object (posix_fallocate) by their owner at its
 * first call, not at creation (that lengthened every job's start); the first
 * round carries whether that worked, and if any rank's did not, every rank falls back to
 * `shm` for that call and all later ones (co->stage), having written nothing that
 * another reads.
 *
 * The reduction order is rank order 0, 1, ..., n - 1 for every element, the order of
 * `shm` and `direct`: the same bits whichever runs. Nothing is written outside our own
 * output and our own buffers, so a failed round returns at once (no rank writes into
 * another's memory, unlike direct.c). The buffers hold data only: bytes scribbled over
 * them make a wrong sum, never a wrong address. Other communicators than the world have
 * no world-sync rounds and use `shm`.
 */
#include <string.h>

#include "base/copy.h"
#include "base/log.h"
#include "coll/algos.h"
#include "coll/onestep.h"
#include "coll/wsync.h"

/* What round ra of a call's first chunk carries. */
struct pub {
    uint64_t count;
    uint32_t dt, op;
    uint32_t ready; /* this rank's staging buffers are reserved (shm/arena.h) */
};

/* Block d of a chunk of len elements: whole cache lines, so that vector loops start
 * aligned wherever the buffers are. */
static void stage_block(size_t len, size_t es, int n, int d, size_t *off, size_t *blen)
{
    size_t unit = es < 64 ? 64 / es : 1, units = (len + unit - 1) / unit;
    size_t a = units * (size_t)d / (size_t)n * unit, b = units * (size_t)(d + 1) / (size_t)n * unit;
    *off = a < len ? a : len;
    *blen = (b < len ? b : len) - *off;
}

/* Enters a new world round; for the first chunk it compares every rank's arguments and
 * learns, the first time, whether every rank could reserve its buffers (co->stage). */
static int stage_round(const struct shmc__cx *x, size_t count, int first)
{
    struct shmc__coll *co = x->co;
    uint64_t r = shmc__wsync_next(co);
    struct pub *p = (struct pub *)(void *)shmc__wsync_mine(co, r);
    if (first)
        *p = (struct pub){count, (uint32_t)x->dt, (uint32_t)x->op, co->stage_mine > 0};
    int rc = shmc__onestep_world_enter(x, r, 0);
    if (rc != SHMC_OK || !first)
        return rc;
    int all_ready = 1;
    for (int q = 0; q < x->n; q++) {
        const struct pub *o = (const struct pub *)(const void *)shmc__wsync_theirs(co, q, r);
        if (o->count != count || o->dt != p->dt || o->op != p->op) {
            SHMC_ERROR("all-reduce arguments differ: rank %d passed count %llu dtype %u op %u, "
                       "rank %d count %zu dtype %u op %u; every rank must pass the same",
                       q, (unsigned long long)o->count, o->dt, o->op, x->me, count, p->dt, p->op);
            return SHMC_ERR_MISMATCH;
        }
        all_ready &= o->ready != 0;
    }
    /* Every rank computes the same from the same round: all use the buffers from now
     * on, or none ever will (stage_seq may then differ between ranks: never used again). */
    if (co->stage == 0)
        co->stage = all_ready ? 1 : -1;
    return SHMC_OK;
}

/* Our block (boff, blen) of a chunk whose input is cin, combined in rank order into dst
 * (our buffer's block); every other rank's part comes from its buffer b. n >= 2. */
static void combine_block(const struct shmc__cx *x, const uint8_t *cin, unsigned b, size_t boff,
                          size_t blen, uint8_t *dst)
{
    const struct shmc__arena *a = x->co->arena;
    size_t at = boff * x->es;
#define SRC(q) ((q) == x->me ? cin + at : shmc__arena_stage(a, (unsigned)(q), b) + at)
    shmc__reduce_into(dst, SRC(0), SRC(1), blen, x->dt, x->op);
    for (int q = 2; q < x->n; q++)
        shmc__reduce(dst, SRC(q), blen, x->dt, x->op, SHMC_ACC_LEFT);
#undef SRC
    shmc__reduce_finish(dst, blen, x->dt, x->op, x->n);
}

int shmc__allreduce_stage(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    struct shmc__coll *co = x->co;
    if (!shmc__cx_world(x) || x->n < 2 || co->stage < 0)
        return shmc__allreduce_shm(x, sbuf, rbuf, count);
    /* The first call reserves our buffers (creation does not); the first round tells
     * whether every rank could. */
    if (co->stage_mine == 0)
        co->stage_mine = shmc__arena_stage_reserve(co->arena, (unsigned)x->me) == SHMC_OK ? 1 : -1;
    int rc;
    if (co->stage == 0 && co->stage_mine < 0) {
        /* Our buffers are not ours to write: say so in the first round, and all fall back. */
        if ((rc = stage_round(x, count, 1)) != SHMC_OK)
            return rc;
        return shmc__allreduce_shm(x, sbuf, rbuf, count);
    }
    const struct shmc__arena *a = co->arena;
    const uint8_t *in = sbuf;
    uint8_t *out = rbuf;
    size_t es = x->es, chunk = a->lay.stage_bytes / es;
    for (size_t e = 0; e < count; e += chunk) {
        size_t len = shmc__chunk(count, e, chunk), off, blen;
        unsigned b = (unsigned)(co->stage_seq++ & 1);
        uint8_t *mine = shmc__arena_stage(a, (unsigned)x->me, b);
        const uint8_t *cin = in + e * es;
        uint8_t *cout = out + e * es;
        for (int d = 0; d < x->n; d++) {
            stage_block(len, es, x->n, d, &off, &blen);
            if (d != x->me)
                shmc__copy(mine + off * es, cin + off * es, blen * es);
        }
        if ((rc = stage_round(x, count, e == 0)) != SHMC_OK)
            return rc;
        if (co->stage < 0) /* some rank could not reserve: nobody read our copies */
            return shmc__allreduce_shm(x, sbuf, rbuf, count);
        stage_block(len, es, x->n, x->me, &off, &blen);
        combine_block(x, cin, b, off, blen, mine + off * es);
        /* In place, our input block is read above, before this overwrites it. */
        shmc__copy(cout + off * es, mine + off * es, blen * es);
        if ((rc = stage_round(x, count, 0)) != SHMC_OK)
            return rc;
        for (int d = 0; d < x->n; d++) {
            stage_block(len, es, x->n, d, &off, &blen);
            if (d != x->me)
                shmc__copy(cout + off * es, shmc__arena_stage(a, (unsigned)d, b) + off * es,
                           blen * es);
        }
    }
    co->staged++;
    return SHMC_OK;
}

const struct shmc__coll_algo shmc__allreduce_stage_algo = {"stage", shmc__allreduce_stage, NULL};
