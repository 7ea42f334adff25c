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
 * `stream` is the same with every write into the staging buffers a streaming one
 * (base/copy.h), bypassing the writer's cache: our copied-in blocks, and our combined
 * block, combined into our output first and copied from there. When the host runs the two
 * vCPUs far apart (docs/collectives.md, the "machine" column), a block read from the
 * other core's cache came slower than from memory, and 2-rank all-reduces of 1 to 16 MiB
 * took about two thirds of `stage`'s time; near, the shared cache serves a block faster
 * than memory, and `stage` wins (coll_bench --algo each in each state).
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
#include "coll/nbworld.h"
#include "coll/onestep.h"
#include "coll/wsync.h"

/* What round ra of a call's first chunk carries. */
struct pub {
    uint64_t count;
    uint32_t dt, op;
    uint32_t ready; /* this rank's staging buffers are reserved (shm/arena.h) */
};
static_assert(sizeof(struct pub) <= SHMC_WSYNC_IN_LINE, "a publication sits in the word's line");

/* Block d of a chunk of len elements: whole cache lines, so that vector loops start
 * aligned wherever the buffers are. */
static void stage_block(size_t len, size_t es, int n, int d, size_t *off, size_t *blen)
{
    size_t unit = es < 64 ? 64 / es : 1, units = (len + unit - 1) / unit;
    size_t a = units * (size_t)d / (size_t)n * unit, b = units * (size_t)(d + 1) / (size_t)n * unit;
    *off = a < len ? a : len;
    *blen = (b < len ? b : len) - *off;
}

/* What round ra of chunk `first` carries, written into this rank's half of round r of
 * lane l. */
static void stage_pub(const struct shmc__cx *x, const struct shmc__lane *l, uint64_t r,
                      size_t count, int first)
{
    struct pub *p = (struct pub *)(void *)shmc__wsync_line(l, r);
    if (first)
        *p = (struct pub){count, (uint32_t)x->dt, (uint32_t)x->op, l->stage_mine > 0};
}

/* After round r of a call's first chunk: compares every rank's arguments and learns, the
 * first time, whether every rank could reserve its buffers of lane l (l->stage). */
static int stage_check(const struct shmc__cx *x, struct shmc__lane *l, uint64_t r, size_t count)
{
    const struct pub *p = (const struct pub *)(const void *)shmc__wsync_line(l, r);
    int all_ready = 1;
    for (int q = 0; q < x->n; q++) {
        const struct pub *o = (const struct pub *)(const void *)shmc__wsync_line_of(l, q, r);
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
    if (l->stage == 0)
        l->stage = all_ready ? 1 : -1;
    return SHMC_OK;
}

/* Enters a new round of the blocking lane; for the first chunk it compares every rank's
 * arguments and learns, the first time, whether every rank could reserve its buffers. */
static int stage_round(const struct shmc__cx *x, size_t count, int first)
{
    struct shmc__lane *l = shmc__wsync_blk(x->co);
    uint64_t r = shmc__wsync_next(l);
    stage_pub(x, l, r, count, first);
    int rc = shmc__onestep_world_enter(x, r, 0);
    return rc != SHMC_OK || !first ? rc : stage_check(x, l, r, count);
}

/* Reserves this rank's buffers of lane l at its first staged call (creation does not). */
static void stage_reserve(const struct shmc__cx *x, struct shmc__lane *l)
{
    if (l->stage_mine == 0)
        l->stage_mine =
            shmc__arena_stage_reserve(x->co->arena, l->id, (unsigned)x->me) == SHMC_OK ? 1 : -1;
}

/* The chunk's blocks of input cin (len elements) that other ranks combine, into our
 * buffer `mine`, by streaming stores if stream. */
static void copy_in(const struct shmc__cx *x, const uint8_t *cin, size_t len, uint8_t *mine,
                    int stream)
{
    size_t off, blen;
    for (int d = 0; d < x->n; d++) {
        stage_block(len, x->es, x->n, d, &off, &blen);
        if (d == x->me)
            continue;
        if (stream)
            shmc__copy_stream(mine + off * x->es, cin + off * x->es, blen * x->es);
        else
            shmc__copy(mine + off * x->es, cin + off * x->es, blen * x->es);
    }
}

/* Every other rank's combined block of the chunk, from its buffer b of lane l, into cout. */
static void copy_out(const struct shmc__cx *x, const struct shmc__lane *l, size_t len, unsigned b,
                     uint8_t *cout)
{
    const struct shmc__arena *a = x->co->arena;
    size_t off, blen, es = x->es;
    for (int d = 0; d < x->n; d++) {
        stage_block(len, es, x->n, d, &off, &blen);
        if (d != x->me)
            shmc__copy(cout + off * es, shmc__arena_stage(a, l->id, (unsigned)d, b) + off * es,
                       blen * es);
    }
}

/* Our block (boff, blen) of a chunk whose input is cin, combined in rank order into dst
 * (our buffer's block); every other rank's part comes from its buffer b of lane l. n >= 2. */
static void combine_block(const struct shmc__cx *x, const struct shmc__lane *l, const uint8_t *cin,
                          unsigned b, size_t boff, size_t blen, uint8_t *dst)
{
    const struct shmc__arena *a = x->co->arena;
    size_t at = boff * x->es;
#define SRC(q) ((q) == x->me ? cin + at : shmc__arena_stage(a, l->id, (unsigned)(q), b) + at)
    shmc__reduce_into(dst, SRC(0), SRC(1), blen, x->dt, x->op);
    for (int q = 2; q < x->n; q++)
        shmc__reduce(dst, SRC(q), blen, x->dt, x->op, SHMC_ACC_LEFT);
#undef SRC
    shmc__reduce_finish(dst, blen, x->dt, x->op, x->n);
}

/* Our block of the chunk combined into our buffer b, and copied into cout; if stream,
 * combined into cout and streamed into our buffer, unless cout is cin (an input read
 * after the first combining step would have been overwritten). */
static void combine_mine(const struct shmc__cx *x, const struct shmc__lane *l, const uint8_t *cin,
                         size_t len, unsigned b, uint8_t *cout, int stream)
{
    size_t off, blen, es = x->es;
    uint8_t *mine = shmc__arena_stage(x->co->arena, l->id, (unsigned)x->me, b);
    stage_block(len, es, x->n, x->me, &off, &blen);
    if (stream && cout != cin) {
        combine_block(x, l, cin, b, off, blen, cout + off * es);
        shmc__copy_stream(mine + off * es, cout + off * es, blen * es);
        return;
    }
    combine_block(x, l, cin, b, off, blen, mine + off * es);
    /* In place, our input block is read above, before this overwrites it. */
    shmc__copy(cout + off * es, mine + off * es, blen * es);
}

static int stage_run(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count,
                     int stream)
{
    struct shmc__coll *co = x->co;
    struct shmc__lane *l = shmc__wsync_blk(co);
    if (!shmc__cx_world(x) || x->n < 2 || l->stage < 0)
        return shmc__allreduce_shm(x, sbuf, rbuf, count);
    /* The first call reserves our buffers; the first round tells whether every rank could. */
    stage_reserve(x, l);
    int rc;
    if (l->stage == 0 && l->stage_mine < 0) {
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
        size_t len = shmc__chunk(count, e, chunk);
        unsigned b = (unsigned)(l->stage_seq++ & 1);
        const uint8_t *cin = in + e * es;
        uint8_t *cout = out + e * es;
        copy_in(x, cin, len, shmc__arena_stage(a, l->id, (unsigned)x->me, b), stream);
        if ((rc = stage_round(x, count, e == 0)) != SHMC_OK) {
            /* Members that made another call may not have counted this chunk: all take
             * the next one's buffer alike. */
            if (rc == SHMC_ERR_MISMATCH && e == 0)
                l->stage_seq--;
            return rc;
        }
        if (l->stage < 0) /* some rank could not reserve: nobody read our copies */
            return shmc__allreduce_shm(x, sbuf, rbuf, count);
        combine_mine(x, l, cin, len, b, cout, stream);
        if ((rc = stage_round(x, count, 0)) != SHMC_OK)
            return rc;
        copy_out(x, l, len, b, cout);
    }
    co->staged++;
    return SHMC_OK;
}

int shmc__allreduce_stage(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    return stage_run(x, sbuf, rbuf, count, 0);
}

int shmc__allreduce_stream(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    return stage_run(x, sbuf, rbuf, count, 1);
}

/* The same in steps on the nonblocking lane (nbworld.c): each round is posted and looked
 * at later instead of waited for; between rounds, the same work in the same order. */
int shmc__stage_step(struct shmc__stage_run *s, int *rc)
{
    const struct shmc__cx *x = s->x;
    struct shmc__coll *co = x->co;
    struct shmc__lane *l = &co->lane[SHMC_LANE_NB];
    size_t es = x->es, chunk = co->arena->lay.stage_bytes / es;
    uint64_t tag = shmc__wsync_tag(x->hash), r;
    for (;;) {
        size_t len = shmc__chunk(s->count, s->e, chunk);
        const uint8_t *cin = s->in + s->e * es;
        uint8_t *cout = s->out + s->e * es;
        switch (s->phase) {
        case 0:
            stage_reserve(x, l);
            if (l->stage < 0) {
                *rc = SHMC_STAGE_REFUSED;
                return 1;
            }
            s->b = (unsigned)(l->stage_seq++ & 1);
            if (l->stage_mine > 0) /* else only the round says so */
                copy_in(x, cin, len, shmc__arena_stage(co->arena, l->id, (unsigned)x->me, s->b),
                        s->stream);
            r = shmc__wsync_next(l);
            stage_pub(x, l, r, s->count, s->e == 0);
            shmc__wsync_post(co, l, r, tag, &s->look);
            s->phase = 1;
            /* fall through */
        case 1:
            if (!shmc__wsync_look(&s->look))
                return 0;
            if ((*rc = shmc__onestep_world_outcome(x, &s->look)) != SHMC_OK ||
                (s->e == 0 && (*rc = stage_check(x, l, s->look.want, s->count)) != SHMC_OK)) {
                /* Members that made another call may not have counted this chunk. */
                if (*rc == SHMC_ERR_MISMATCH && s->e == 0)
                    l->stage_seq--;
                return 1;
            }
            if (l->stage < 0) {
                *rc = SHMC_STAGE_REFUSED;
                return 1;
            }
            combine_mine(x, l, cin, len, s->b, cout, s->stream);
            r = shmc__wsync_next(l);
            shmc__wsync_post(co, l, r, tag, &s->look);
            s->phase = 2;
            /* fall through */
        default:
            if (!shmc__wsync_look(&s->look))
                return 0;
            if ((*rc = shmc__onestep_world_outcome(x, &s->look)) != SHMC_OK)
                return 1;
            copy_out(x, l, len, s->b, cout);
            s->e += len;
            s->phase = 0;
            if (s->e >= s->count) {
                co->staged++;
                return 1;
            }
        }
    }
}

const struct shmc__coll_algo shmc__allreduce_stage_algo = {shmc__allreduce_stage, NULL};
const struct shmc__coll_algo shmc__allreduce_stream_algo = {shmc__allreduce_stream, NULL};
