/*
 * The shared staging slots: two per rank in the arena (arena.h), one per lane: the blocking
 * collectives' on any communicator, and the world's nonblocking calls' (nbslot.c, which
 * take the same steps without waiting, in the order of those calls); and each rank's slot
 * entries, each one communicator's other than the world for its nonblocking calls
 * (nbcomm.c), as the world's. Each is written only by its owner and read by the members of
 * whatever communicator the owner publishes for.
 *
 * A publication is a round of one communicator. Its stamp is the communicator's uid
 * (high 32 bits) and round number (low 32 bits); every member counts rounds the same
 * way, whether or not it publishes in a given round, so a reader knows the exact stamp
 * it waits for. Uids are never reused by any member (split.c), so a stamp left over
 * from a freed communicator can never pass for a new one's.
 *
 * Reuse: the owner remembers which ranks its publication is for (struct shmc__slot_own's
 * readers) and its stamp; each reader stores that stamp into its own word of the slot's
 * `done` array when it no longer needs the data. The owner writes a part of its slot again
 * only when every reader's word holds that part's last stamp or a later one the owner
 * published, which it usually does by the next collective, so the wait costs a load per
 * reader. A reader that has left the job (finalized, died) is excused: it reads nothing
 * any more, so overwriting is safe, and a member that left after doing its part of a
 * collective (reading what it needed) must not fail the others' next one. (A count of
 * reads, as before, could not tell a reader that left after reading from one that left
 * before.) A reader's done covers everything the owner published since it last acquired
 * its slot (the two-phase all-reduce publishes twice).
 *
 *   owner                               reader
 *   wait stamp <= done[r] <= last,      wait stamp >= expected   (A5)
 *        all r                   (A6)
 *   write data                          read data
 *   stamp = s                (R5)       done[me] = stamp         (R6)
 *
 * Beside its call words a publication names which call of the communicator made it (its
 * place: blk_place, or a nonblocking call's stamp): a reader waits for a stamp or a later
 * one, so where the owner made another call in that round and published nothing there, a
 * later publication would otherwise pass for the one waited for (other_place).
 *
 * The nonblocking slots, and the blocking one where the job shares CPUs, hold two
 * publications at once, one in each half of the data (the half of its stamp's parity; one
 * of more than a half takes both), each with its own call words
 * (shm/arena.h) and readers: with more ranks than CPUs, an owner that had to wait for its
 * readers before each publication handed its CPU over at every call, and a switch between
 * ranks costs more than the call; with two, a member publishes the next call's part while
 * the root still reads the last. A reader stores the stamp it read, not the slot's (which
 * may be the next publication's): it reads each owner's publications in the order of the
 * calls, so its word only grows, and covers every earlier one. The blocking lane's slot
 * takes two halves only where the job shares CPUs (halves(), below; else one publication,
 * all of it, at a time), and serves every communicator of its owner, where a reader's word
 * holds one communicator's stamps: a publication for another communicator than the last
 * waits for the readers of both halves. Its stamps count the communicator's rounds, which
 * the owner may sit out, so one half can keep an old publication while the other moves on:
 * one whose round lies 2^31 or more behind the new one's is waited for too, so that the
 * readers' words, compared modulo 2^32 (done_since), still tell.
 *
 * R5 pairs with A5: the data is visible before the stamp that announces it.
 * R6 pairs with A6: the reader's loads of the data are done before the owner's next
 * stores to it. Waiters sleep on their doorbell; each side notifies the other after
 * publishing (shm/doorbell.h), and every wait watches the job and the peers it depends on.
 */
#include "coll/slot.h"

#include <string.h>

#include "base/copy.h"
#include "base/log.h"
#include "coll/callword.h"
#include "p2p/quit.h"
#include "shm/doorbell.h"
#include "shm/job.h"

static struct shmc__slot *slot_of(const struct shmc__cx *x, unsigned lane, int r)
{
    return shmc__arena_slot(x->co->arena, lane, (unsigned)shmc__comm_world_rank(x->c, r));
}

/* Every this many rounds of a communicator each member brings its blocking slot's stamp up
 * to the last round, where its last publication there was for that communicator. */
#define STAMP_REFRESH ((uint32_t)1 << 30)

/* A reader takes an owner's stamp as reached when it lies at most 2^31 rounds behind the
 * owner's (stamp_reached): one the owner published long ago for this communicator and then
 * sat out 2^31 rounds would pass for the one the reader waits for, and its stale data be
 * read. So at every STAMP_REFRESH-th round a member whose stamp is still this
 * communicator's moves it to the round before: no reader waits for that round from it
 * unless it published there (its stamp then said so already), and what it published
 * before is still there for the readers that have yet to see it, who find the stamp past
 * theirs. Its words and data stay as they were. */
static void refresh(const struct shmc__cx *x)
{
    shmc_atomic_u64 *st = &x->co->own[SHMC_LANE_BLOCKING].slot->stamp;
    uint64_t s = shmc__load_relaxed64(st);
    if ((s >> 32) == x->c->uid)
        shmc__store_release64(st, (s & ~(uint64_t)UINT32_MAX) | (uint32_t)(x->cc->round - 1u));
}

uint64_t shmc__slot_next(const struct shmc__cx *x)
{
    if (++x->cc->round == 0)
        x->cc->round_wraps++;
    if (!(x->cc->round % STAMP_REFRESH))
        refresh(x);
    return ((uint64_t)x->c->uid << 32) | x->cc->round;
}

/* x's communicator's rounds so far, wraps included: where its latest stamp lies. */
static uint64_t rounds(const struct shmc__cx *x)
{
    return (uint64_t)x->cc->round_wraps << 32 | x->cc->round;
}

/* Has an owner's stamp s reached `want`: the same communicator (high half), this round or
 * a later one (low half, modulo 2^32)? */
static int stamp_reached(uint64_t s, uint64_t want)
{
    return (s >> 32) == (want >> 32) && (int32_t)((uint32_t)s - (uint32_t)want) >= 0;
}

struct slot_wait {
    const struct shmc__cx *x;
    const struct shmc__slot_own *own; /* our slot, whose readers we wait for */
    unsigned part;                    /* ... of that part of its data */
    shmc_atomic_u64 *stamp;           /* waiting for a stamp, or (NULL) for our readers */
    uint64_t want;
    int peer; /* the comm rank we depend on */
    int err;
};

/* Is a reader's done word d one of our publications from `stamp` to our last (o->last),
 * the same communicator's? Not one further back, whose low half a wrap of 2^32 rounds
 * could carry past stamp's: a word that a reader of only some publications last wrote
 * long ago. */
static int done_since(const struct shmc__slot_own *o, uint64_t d, uint64_t stamp)
{
    return (d >> 32) == (stamp >> 32) &&
           (uint32_t)d - (uint32_t)stamp <= (uint32_t)o->last - (uint32_t)stamp;
}

/* Has every reader of our last publication in part `part` of the data finished with it,
 * left the job, or quit the communicator it was for (p2p/quit.c: a member publishes that
 * only once it reads no more)? */
static int readers_done(const struct shmc__coll *co, const struct shmc__slot_own *o, unsigned part)
{
    uint64_t stamp = o->stamp[part];
    uint32_t ctx = SHMC_CTX_OF_UID(stamp >> 32) + 1;
    for (unsigned i = 0; i < SHMC_MAX_RANKS / 64; i++) {
        for (uint64_t want = o->readers[part][i]; want; want &= want - 1) {
            unsigned r = i * 64 + (unsigned)__builtin_ctzll(want);
            /* A6 pairs with R6: this reader's loads are done before we write again. */
            if (done_since(o, shmc__load_acquire64(&o->slot->done[r]), stamp))
                continue;
            if (shmc__peer_lost(co->p2p, (int)r) == SHMC_OK && !shmc__quit_by(co->p2p, (int)r, ctx))
                return 0;
        }
    }
    return 1;
}

/* Is the job aborted (w->err set then)? Nothing fails a wait on a slot for it, and a rank
 * that leaves with the abort is no dead peer (p2p/progress.c). */
static int aborted(struct slot_wait *w)
{
    if (!shmc__job_aborted(w->x->co->arena))
        return 0;
    w->err = SHMC_ERR_ABORTED;
    return 1;
}

static int slot_ready(void *arg)
{
    struct slot_wait *w = arg;
    struct shmc__p2p *p = w->x->co->p2p;
    if (!w->stamp) {
        if (readers_done(w->x->co, w->own, w->part))
            return 1;
        /* A member quit the call (a mismatch found, say): we need not write any more.
         * (A reader that never reads, as when members disagreed on a root, would
         * otherwise keep us here.) */
        if (w->x->c->quit) {
            w->err = w->x->c->quit;
            return 1;
        }
        return aborted(w);
    }
    /* A5 pairs with R5: the owner's data is visible once its stamp is. */
    if (stamp_reached(shmc__load_acquire64(w->stamp), w->want))
        return 1;
    /* A member quit the call (p2p/quit.c): the owner may never publish. */
    if (w->x->c->quit) {
        w->err = w->x->c->quit;
        return 1;
    }
    if (aborted(w))
        return 1;
    /* The owner, gone without publishing what we wait for? */
    if (!shmc__peers_any_gone(p))
        return 0;
    w->err = shmc__peer_lost(p, shmc__comm_world_rank(w->x->c, w->peer));
    return w->err != SHMC_OK;
}

static int slot_block(struct slot_wait *w)
{
    if (slot_ready(w))
        return shmc__cx_quit(w->x, w->err);
    int rc = shmc__wait_pred(w->x->co->p2p, slot_ready, NULL, w, SHMC_BLK_COLL, w->x->c->ctx);
    return shmc__cx_quit(w->x, rc != SHMC_OK ? rc : w->err);
}

/* Do x's blocking publications take two halves (slot.c's header)? Where the job shares
 * CPUs: there an owner that waits for its readers hands its CPU over, which costs more than
 * the call; with a CPU for each rank the one publication measured as fast or faster, its
 * data and words beginning in the line of its stamp (shm/arena.h), which a reader of a
 * small call gets in one transfer with it (the commit that made this has the figures). A
 * fact of the job, the same on every rank, and not of the call: a member whose call
 * differs still finds the owner's words where the owner wrote them. */
static int halves(const struct shmc__cx *x)
{
    return x->co->shared_cpus;
}

/* The parts of the data that a publication of `bytes` with `stamp` takes in a slot of two
 * halves (a mask), as its owner and its readers work it out: the half of the stamp's
 * parity, or both for more than a half. And where it lies in the slot's data. */
static unsigned two_parts(uint64_t stamp, size_t bytes)
{
    return bytes > SHMC_SLOT_BYTES / 2 ? 3u : 1u << (stamp & 1);
}
static size_t parts_off(unsigned parts)
{
    return parts == 2u ? SHMC_SLOT_BYTES / 2 : 0;
}

/* A blocking publication's parts: two_parts with halves, else the first. */
static unsigned blk_parts(const struct shmc__cx *x, uint64_t stamp, size_t bytes)
{
    return halves(x) ? two_parts(stamp, bytes) : 1u;
}

/* A blocking publication's call words: with halves, those of the stamp's parity, whatever
 * its size. */
static shmc_atomic_u64 *blk_call(const struct shmc__cx *x, struct shmc__slot *s, uint64_t stamp)
{
    return shmc__slot_call(s, halves(x) ? (unsigned)(stamp & 1) : 0u);
}

/* Does part `part` of o's slot owe no reader anything? */
static int readers_none(const struct shmc__slot_own *o, unsigned part)
{
    for (unsigned i = 0; i < SHMC_MAX_RANKS / 64; i++)
        if (o->readers[part][i])
            return 0;
    return 1;
}

int shmc__slot_acquire(const struct shmc__cx *x, uint64_t stamp, size_t bytes, uint8_t **data)
{
    struct shmc__slot_own *o = &x->co->own[SHMC_LANE_BLOCKING];
    unsigned parts = blk_parts(x, stamp, bytes), waits = parts;
    /* For another communicator than the last publication's, both parts: a reader's done
     * word covers the publications of one communicator at a time (done_since), so the
     * other part's readers must be done before its publication's readers may store the
     * new one's stamps. (Its readers cleared then, an old stamp left there is never
     * waited for again.) */
    if ((o->last >> 32) != (stamp >> 32))
        waits = 3u;
    /* And with halves the other part, where what it holds for its readers lies 2^31 rounds
     * or more behind (slot.c's header; counted with the wraps, which the stamps' 32 bits
     * lose). */
    unsigned other = 3u & ~parts; /* (one part's bit, or none: its index is other - 1) */
    if (other && halves(x) && rounds(x) - o->at[other - 1] >= (uint64_t)1 << 31 &&
        !readers_none(o, other - 1))
        waits = 3u;
    *data = shmc__slot_data(o->slot) + parts_off(parts);
    for (unsigned part = 0; part < 2; part++) {
        if (!(waits >> part & 1))
            continue;
        struct slot_wait w = {.x = x, .own = o, .part = part, .peer = -1};
        int rc = slot_block(&w);
        if (rc != SHMC_OK)
            return rc;
        memset(o->readers[part], 0, sizeof o->readers[part]);
    }
    return SHMC_OK;
}

/* Publishes o's slot with `stamp`, x's call words and its place at `call`, for one comm
 * rank or every other member (reader -1): the parts of the data in mask `parts` hold it. */
static void publish(const struct shmc__cx *x, struct shmc__slot_own *o, shmc_atomic_u64 *call,
                    uint64_t stamp, uint64_t place, int reader, unsigned parts)
{
    shmc__store_relaxed64(&call[0], x->call[0]);
    shmc__store_relaxed64(&call[1], x->call[1]);
    shmc__store_relaxed64(&call[2], place);
    /* R5 pairs with A5 (slot_ready): the data and the call are written before the stamp. */
    shmc__store_release64(&o->slot->stamp, stamp);
    o->last = stamp;
    /* (the readers into the first part it takes; into the second too where it takes both,
     * which their acquisition had cleared alike) */
    uint64_t *mask = o->readers[parts & 1 ? 0 : 1];
    for (int r = 0; r < x->n; r++) {
        if (r == x->me || (reader >= 0 && r != reader))
            continue;
        int w = shmc__comm_world_rank(x->c, r);
        mask[w / 64] |= 1ull << (w % 64);
        shmc__peer_notify(x->co->p2p, w);
    }
    if (parts & 1)
        o->stamp[0] = stamp;
    if (parts & 2)
        o->stamp[1] = stamp;
    if (parts == 3)
        memcpy(o->readers[1], o->readers[0], sizeof o->readers[1]);
}

/* Which call of its communicator a blocking publication is for: the uid (as its stamp's
 * high half) and the round of the call's first publication. Not the stamp: a call may
 * publish twice before its readers read (the two-phase all-reduce), and without halves
 * its second publication's words then stand for both. */
static uint64_t blk_place(const struct shmc__cx *x)
{
    return (uint64_t)x->c->uid << 32 | x->first;
}

/* Was owner's publication that a wait reached, whose words' place is `place`, for the
 * call it waited in (want)? Not where the owner made another call in that round,
 * publishing nothing there, and a later publication (of a call the owner made after) or
 * an earlier one (left in the half the round's parity names) reached the wait: with
 * SHMC_CHECK, says so (1). */
static int other_place(const struct shmc__cx *x, int owner, uint64_t place, uint64_t want)
{
    if (place == want || !x->co->check)
        return 0;
    SHMC_CX_MISMATCH(x,
                     "; rank %d published nothing for this call (it made another: another "
                     "collective or root, say; SHMC_CHECK=1 says which)",
                     owner);
    return 1;
}

void shmc__slot_publish(const struct shmc__cx *x, uint64_t stamp, size_t bytes, int reader)
{
    struct shmc__slot_own *o = &x->co->own[SHMC_LANE_BLOCKING];
    unsigned parts = blk_parts(x, stamp, bytes);
    publish(x, o, blk_call(x, o->slot, stamp), stamp, blk_place(x), reader, parts);
    for (unsigned part = 0; halves(x) && part < 2; part++)
        if (parts >> part & 1)
            o->at[part] = rounds(x);
}

int shmc__slot_wait_call(const struct shmc__cx *x, int owner, uint64_t stamp, size_t bytes,
                         const uint8_t **data, uint64_t call[2])
{
    struct shmc__slot *s = slot_of(x, SHMC_LANE_BLOCKING, owner);
    struct slot_wait w = {.x = x, .stamp = &s->stamp, .want = stamp, .peer = owner};
    unsigned parts = blk_parts(x, stamp, bytes);
    *data = shmc__slot_data(s) + parts_off(parts);
    int rc = slot_block(&w);
    /* After A5: the words of the publication we waited for (without halves, or of a later
     * one of the same call: the two-phase all-reduce publishes twice between acquisitions;
     * with halves the owner's next publication has the other half's words). */
    shmc_atomic_u64 *c = blk_call(x, s, stamp);
    call[0] = shmc__load_relaxed64(&c[0]);
    call[1] = shmc__load_relaxed64(&c[1]);
    if (rc == SHMC_OK && other_place(x, owner, shmc__load_relaxed64(&c[2]), blk_place(x)))
        return shmc__cx_quit(x, SHMC_ERR_MISMATCH);
    return rc;
}

int shmc__slot_wait(const struct shmc__cx *x, int owner, uint64_t stamp, size_t bytes,
                    const uint8_t **data)
{
    uint64_t call[2];
    int rc = shmc__slot_wait_call(x, owner, stamp, bytes, data, call);
    if (rc != SHMC_OK || !shmc__cx_differs(x, owner, call))
        return rc;
    /* Only this rank may have seen it (the owner reads nothing of ours): quit, so that
     * every member stops. */
    return shmc__cx_quit(x, SHMC_ERR_MISMATCH);
}

struct settle_wait {
    const struct shmc__cx *x;
    uint64_t stamp;
};

/* Has every other member published `stamp` (or a later round), left the job, or quit the
 * communicator's collectives? */
static int members_settled(void *arg)
{
    const struct settle_wait *w = arg;
    const struct shmc__cx *x = w->x;
    struct shmc__p2p *p = x->co->p2p;
    uint32_t ctx = x->c->ctx + 1;
    for (int q = 0; q < x->n; q++) {
        if (q == x->me)
            continue;
        /* A5 pairs with R5: the member had done all it did before this publication. */
        if (stamp_reached(shmc__load_acquire64(&slot_of(x, SHMC_LANE_BLOCKING, q)->stamp),
                          w->stamp))
            continue;
        int wq = shmc__comm_world_rank(x->c, q);
        if (shmc__peer_lost(p, wq) == SHMC_OK && !shmc__quit_by(p, wq, ctx))
            return 0;
    }
    return 1;
}

int shmc__slot_settle(const struct shmc__cx *x, uint64_t stamp)
{
    struct settle_wait w = {x, stamp};
    if (members_settled(&w))
        return SHMC_OK;
    return shmc__wait_pred(x->co->p2p, members_settled, NULL, &w, SHMC_BLK_COLL, x->c->ctx);
}

/* Done with owner's publication `stamp` in its slot s (and every earlier one). R6 pairs
 * with A6 (readers_done): our reads of its data are finished. */
static void done(const struct shmc__cx *x, struct shmc__slot *s, int owner, uint64_t stamp)
{
    shmc__store_release64(&s->done[x->co->rank], stamp);
    shmc__peer_notify(x->co->p2p, shmc__comm_world_rank(x->c, owner));
}

void shmc__slot_done(const struct shmc__cx *x, int owner, uint64_t stamp)
{
    /* The stamp we read, not the slot's: its owner may have published its next call in the
     * other half, which we have not read. */
    done(x, slot_of(x, SHMC_LANE_BLOCKING, owner), owner, stamp);
}

/* ---- the nonblocking calls' slots: the same protocol, without waiting ------------------ */

/* Our slot for x's nonblocking calls: the world's lane's, or x's slot entry (nbcomm.c). */
static struct shmc__slot_own *nb_own(const struct shmc__cx *x)
{
    return x->cc->entry ? &x->co->entry_own[x->cc->entry - 1] : &x->co->own[SHMC_LANE_NB];
}

/* Comm rank r's slot for x's nonblocking calls. */
static struct shmc__slot *nb_slot_of(const struct shmc__cx *x, int r)
{
    unsigned w = (unsigned)shmc__comm_world_rank(x->c, r);
    return x->cc->entry ? shmc__arena_entry(x->co->arena, w, x->cc->entry - 1u)
                        : shmc__arena_slot(x->co->arena, SHMC_LANE_NB, w);
}

/* The ways line (shm/arena.h, shmc__slot_ways): word 0 the communicator's uid (high half)
 * and the stamp last taken (low half), 0 while the owner rewrites them; word 1 for that
 * stamp and the WAYS_BACK - 1 before it (bit i: i stamps back) whether the call ran as a
 * schedule (1) or through the slots (0). A slot entry's new holder (another uid) starts
 * afresh. Only the owner writes; members read them once they have slept a slice.
 *
 *   owner                                  member (shmc__slot_nb_crossed)
 *   w0 = 0; fence (release)                a = w0                        (A15)
 *   w1 = ways                              b = w1
 *   w0 = uid, stamp              (R15)     fence (acquire); a2 = w0
 *
 * R15 pairs with A15: seeing w0, the member sees the ways written before it; one that
 * finds a2 == a (and not 0) read the ways of that stamp and no later one's (a later
 * stamp's are written only after w0 went to 0). As shmc__incall_publish's words. */
#define WAYS_BACK 64u

uint64_t shmc__slot_nb_next(const struct shmc__cx *x, int sched)
{
    struct shmc__slot_own *o = nb_own(x);
    uint64_t stamp = ((uint64_t)x->c->uid << 32) | ++o->round;
    shmc_atomic_u64 *w = shmc__slot_ways(o->slot);
    uint64_t w0 = shmc__load_relaxed64(&w[0]);
    uint64_t ways = w0 && (w0 >> 32) == x->c->uid ? shmc__load_relaxed64(&w[1]) << 1 : 0;
    shmc__store_relaxed64(&w[0], 0);
    atomic_thread_fence(memory_order_release);
    shmc__store_relaxed64(&w[1], ways | (sched ? 1u : 0u));
    /* R15 pairs with A15 (shmc__slot_nb_crossed): the ways are written before this. */
    shmc__store_release64(&w[0], stamp);
    return stamp;
}

int shmc__slot_nb_crossed(const struct shmc__cx *x, uint64_t stamp, int sched)
{
    struct shmc__p2p *p = x->co->p2p;
    for (int q = 0; q < x->n; q++) {
        if (q == x->me)
            continue;
        shmc_atomic_u64 *w = shmc__slot_ways(nb_slot_of(x, q));
        /* A15 pairs with R15: the ways of that stamp are visible once it is. */
        uint64_t a = shmc__load_acquire64(&w[0]);
        uint64_t ways = shmc__load_relaxed64(&w[1]);
        atomic_thread_fence(memory_order_acquire);
        uint32_t back = (uint32_t)a - (uint32_t)stamp;
        if (!a || shmc__load_relaxed64(&w[0]) != a || (a >> 32) != (stamp >> 32) ||
            back >= WAYS_BACK || (int)(ways >> back & 1) == !!sched)
            continue;
        SHMC_CX_MISMATCH(x,
                         ", which ran %s; rank %d's same call ran %s, so it was another (another "
                         "count, say: the slots' limits are in docs/collectives.md; or "
                         "SHMC_ALGO_* set on some ranks only; SHMC_CHECK=1 says which)",
                         sched ? "as messages" : "through the slots", q,
                         sched ? "through the slots" : "as messages");
        shmc__p2p_quit(p, x->c, SHMC_ERR_MISMATCH);
        return 1;
    }
    return 0;
}

/* The look (p2p.h's struct shmc__incall, crossed) with what the wait holds: the call may
 * have ended and its memory gone. */
static int nb_look(const struct shmc__incall *ic)
{
    struct shmc__cx x;
    shmc__cx_init(&x, ic->coll, ic->c, SHMC_UINT8);
    x.call[0] = ic->w[0];
    x.call[1] = ic->w[1];
    return shmc__slot_nb_crossed(&x, ic->stamp, ic->sched);
}

void shmc__slot_nb_looks(struct shmc__incall *out, struct shmc__coll *co, uint64_t stamp, int sched)
{
    out->crossed = nb_look;
    out->coll = co;
    out->stamp = stamp;
    out->sched = sched;
}

/* Where a nonblocking publication of `bytes` with `stamp` lies (two_parts). */
static uint8_t *nb_data(struct shmc__slot *s, uint64_t stamp, size_t bytes)
{
    return shmc__slot_data(s) + parts_off(two_parts(stamp, bytes));
}

int shmc__slot_nb_acquire(const struct shmc__cx *x, uint64_t stamp, size_t bytes, uint8_t **data,
                          int *err)
{
    struct shmc__slot_own *o = nb_own(x);
    unsigned parts = two_parts(stamp, bytes);
    *err = SHMC_OK;
    for (unsigned part = 0; part < 2; part++) {
        struct slot_wait w = {.x = x, .own = o, .part = part, .peer = -1};
        if (!(parts >> part & 1))
            continue;
        if (!slot_ready(&w))
            return 0;
        if (w.err != SHMC_OK) {
            *err = w.err;
            return 1;
        }
    }
    for (unsigned part = 0; part < 2; part++)
        if (parts >> part & 1)
            memset(o->readers[part], 0, sizeof o->readers[part]);
    *data = nb_data(o->slot, stamp, bytes);
    return 1;
}

void shmc__slot_nb_publish(const struct shmc__cx *x, uint64_t stamp, size_t bytes, int reader)
{
    struct shmc__slot_own *o = nb_own(x);
    /* (each nonblocking call publishes once: its stamp is its place) */
    publish(x, o, shmc__slot_call(o->slot, (unsigned)(stamp & 1)), stamp, stamp, reader,
            two_parts(stamp, bytes));
}

int shmc__slot_nb_wait(const struct shmc__cx *x, int owner, uint64_t stamp, int *err)
{
    struct shmc__slot *s = nb_slot_of(x, owner);
    struct slot_wait w = {.x = x, .stamp = &s->stamp, .want = stamp, .peer = owner};
    if (!slot_ready(&w))
        return 0;
    *err = w.err;
    if (w.err == SHMC_OK) {
        /* After A5: the words of the publication we waited for (the owner's next one, if
         * it is there already, has the other parity's). */
        shmc_atomic_u64 *c = shmc__slot_call(s, (unsigned)(stamp & 1));
        uint64_t call[2] = {shmc__load_relaxed64(&c[0]), shmc__load_relaxed64(&c[1])};
        if (other_place(x, owner, shmc__load_relaxed64(&c[2]), stamp) ||
            shmc__cx_differs(x, owner, call))
            *err = SHMC_ERR_MISMATCH;
    }
    return 1;
}

int shmc__slot_nb_drained(const struct shmc__coll *co, const struct shmc__slot_own *o)
{
    return readers_done(co, o, 0) && readers_done(co, o, 1);
}

const uint8_t *shmc__slot_nb_theirs(const struct shmc__cx *x, int owner, uint64_t stamp,
                                    size_t bytes)
{
    return nb_data(nb_slot_of(x, owner), stamp, bytes);
}

void shmc__slot_nb_done(const struct shmc__cx *x, int owner, uint64_t stamp)
{
    done(x, nb_slot_of(x, owner), owner, stamp);
}

int shmc__slot_combine(const struct shmc__cx *x, uint64_t stamp, size_t bytes, const uint8_t *own,
                       size_t eoff, size_t len, uint8_t *out, int hand_back)
{
    size_t es = x->es;
    for (int r = 0; r < x->n; r++) {
        const uint8_t *src = own;
        if (r != x->me) {
            int rc = shmc__slot_wait(x, r, stamp, bytes, &src);
            if (rc != SHMC_OK)
                return rc;
        }
        src += eoff * es;
        if (r == 0) {
            if (src != out)
                shmc__copy(out, src, len * es);
        } else {
            shmc__reduce(out, src, len, x->dt, x->op, SHMC_ACC_LEFT);
        }
        if (hand_back && r != x->me)
            shmc__slot_done(x, r, stamp);
    }
    return SHMC_OK;
}

void shmc__slot_done_all(const struct shmc__cx *x, uint64_t stamp)
{
    for (int r = 0; r < x->n; r++)
        if (r != x->me)
            shmc__slot_done(x, r, stamp);
}
