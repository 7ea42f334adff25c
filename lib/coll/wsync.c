/*
 * The world communicator's one-step rounds through the world-sync blocks (shm/arena.h):
 * each rank publishes the number of the round it entered, with its input in data half
 * (round & 1), and waits until every other rank has entered the same round. A barrier
 * is exactly that; onestep.c builds the world's small exchanges on it, and direct.c its
 * rounds.
 *
 *   rank                                   every other rank
 *   write input to half (r & 1)            wait round >= r          (A7)
 *   round = r                  (R7)        read half (r & 1)
 *
 * R7 pairs with A7: the input is visible before the round number that announces it.
 *
 * Why no reader ever acknowledges (the slots' R6/A6 is not needed): a rank writes half
 * (r & 1) again in round r + 2 only after finishing round r + 1, that is after seeing
 * every other rank enter round r + 1, which each did only after finishing round r and
 * so its reads of round r's halves. Round numbers only grow and only world collectives
 * count them, and every rank calls those in the same order, so ">=" comparisons between
 * ranks' counters are exact. This is why these blocks serve the world communicator only:
 * with several communicators sharing one counter, a rank could not tell from another's
 * counter which communicator's round it had finished. The world has two sets of blocks,
 * its lanes (coll.h): the blocking collectives' and the nonblocking ones', each with a
 * counter of its own and the same protocol.
 *
 * The cost is one store and one line read per other rank, with no read-modify-write and
 * no second synchronisation; ranks that sleep are woken after the store (shm/doorbell.h).
 */
#include "coll/wsync.h"

#include "p2p/incall.h"
#include "p2p/quit.h"
#include "shm/doorbell.h"
#include "shm/job.h"

/* The word of rank block o (of either lane) for round r (the part of r's parity). */
static inline shmc_atomic_u64 *word(struct shmc__wsync *o, uint64_t r)
{
    return &shmc__wsync_half(o, (unsigned)(r & 1))->round;
}

/* Will rank q never enter: has it left or broken, or has a rank quit the world's
 * collectives (p2p/quit.c)? Sets w->err then. */
static int never_enters(struct shmc__wsync_look *w, int q)
{
    struct shmc__p2p *p = w->co->p2p;
    /* An aborted job: nothing fails a round's wait for it (it has no messages), and a
     * rank that leaves with the abort is no dead peer (p2p/progress.c). */
    if (shmc__job_aborted(p->arena)) {
        w->err = SHMC_ERR_ABORTED;
        return 1;
    }
    if (shmc__peers_any_gone(p) && (w->err = shmc__peer_lost(p, q)) != SHMC_OK)
        return 1;
    if (p->comms.world.quit) {
        w->err = p->comms.world.quit;
        return 1;
    }
    return 0;
}

/* Do this rank and the rank of block o disagree on which of the nonblocking lane's calls
 * that both have started ran as schedules (their words of calls, shm/arena.h)? Then they
 * made different calls there, one of which went by the lane's rounds and the other by
 * messages: neither meets the other, and the schedule would wait for ever. Only the last
 * SHMC_WSYNC_CALLS_BITS calls of each are known: a rank that has started that many more
 * than the other cannot tell (docs/collectives.md). */
static int split_calls(const struct shmc__wsync_look *w, struct shmc__wsync *o)
{
    /* (acquire: the word is one store of its rank's; nothing else is read by it; relaxed:
     * our own word, which only we write) */
    uint64_t c = shmc__load_acquire64(shmc__wsync_calls(o));
    uint64_t me = shmc__load_relaxed64(shmc__wsync_calls(w->co->lane[w->lane].wsync));
    uint64_t theirs = c >> SHMC_WSYNC_CALLS_BITS, ours = me >> SHMC_WSYNC_CALLS_BITS;
    uint64_t both = theirs < ours ? theirs : ours;
    uint64_t st = theirs - both, so = ours - both, skip = st > so ? st : so;
    if (!both || skip >= SHMC_WSYNC_CALLS_BITS)
        return 0;
    uint64_t m = ((uint64_t)1 << (SHMC_WSYNC_CALLS_BITS - skip)) - 1;
    return ((c >> st) & m) != ((me >> so) & m);
}

/* The most lines of a rank's input asked for ahead of its entry: asking for the first
 * lines of a longer input made the call slower, perhaps as the requests took lines from
 * the writer while it still copied into them (the commit that made this has the
 * figures). */
#define AHEAD_MAX 8u

static int all_entered(void *arg)
{
    struct shmc__wsync_look *w = arg;
    struct shmc__coll *co = w->co;
    int end = w->upto ? w->upto : co->size;
    if (w->err != SHMC_OK) /* (a look that found a rank that never enters is over) */
        return 1;
    for (; w->next < end; w->next++) {
        if (w->next == co->rank)
            continue;
        struct shmc__wsync *o = shmc__wsync_of(&co->lane[w->lane], w->next);
        /* A7 pairs with R7: that rank's input for this round is visible. */
        uint64_t v = shmc__load_acquire64(word(o, w->want));
        if ((v & SHMC_WSYNC_ROUND_MASK) < w->want) {
            /* The lines of its input that we take, past the word's, asked for while we
             * wait: loaded only once the word is seen, they cost a trip between the CPUs
             * more (a prefetch reads nothing, so the acquire above still orders the
             * loads that do). */
            if (w->ahead) {
                const uint8_t *d = shmc__wsync_data(o, (unsigned)(w->want & 1)) +
                                   SHMC_WSYNC_IN_LINE + (size_t)w->ahead_from * SHMC_CACHELINE;
                for (unsigned i = 0; i < w->ahead; i++)
                    __builtin_prefetch(d + (size_t)i * SHMC_CACHELINE);
            }
            /* A rank short of a round of the nonblocking lane may be behind, or may have
             * run this call as a schedule: asked only every SHMC_WSYNC_CALLS_EVERY looks,
             * since its word of calls is written at each of its calls, and read at every
             * look it would move between the CPUs for nothing while that rank catches up. */
            if (!w->call || ++w->misses % SHMC_WSYNC_CALLS_EVERY || !split_calls(w, o))
                break;
            if (w->odd < 0)
                w->odd = w->next;
            w->odd_sched = 1;
            w->next = co->size; /* (over: the call ends with SHMC_ERR_MISMATCH) */
            return 1;
        }
        /* Its call's hash came with the round number (this word is this round's until
         * we have entered the next one). A rank whose round here is of another call may
         * have run this one as a schedule before it. */
        if (w->tag && (v & ~SHMC_WSYNC_ROUND_MASK) != w->tag) {
            if (w->odd < 0)
                w->odd = w->next;
            if (w->call && split_calls(w, o))
                w->odd_sched = 1;
        }
    }
    return w->next >= end || never_enters(w, w->next);
}

/* Gives up a world collective with err (p2p/quit.c). */
static int quit_world(struct shmc__coll *co, int err)
{
    if (err != SHMC_OK)
        shmc__p2p_quit(co->p2p, &co->p2p->comms.world, err);
    return err;
}

/* Every rank not yet in the round last ran on another CPU than ours. Such a rank needs
 * only to be scheduled there (if it waits, it waits for the round before, which is
 * complete), so yielding ours would only run a neighbour that may be waiting too. */
int shmc__wsync_far(void *arg, uint32_t cpu)
{
    struct shmc__wsync_look *w = arg;
    struct shmc__coll *co = w->co;
    for (int q = w->next; q < co->size; q++) {
        if (q == co->rank)
            continue;
        struct shmc__wsync *o = shmc__wsync_of(&co->lane[w->lane], q);
        /* Relaxed: only a hint; all_entered takes the acquire. */
        if ((shmc__load_relaxed64(word(o, w->want)) & SHMC_WSYNC_ROUND_MASK) < w->want &&
            !shmc__runs_elsewhere(shmc__arena_cb(co->arena, (unsigned)q), cpu))
            return 0;
    }
    return 1;
}

void shmc__wsync_post(struct shmc__coll *co, struct shmc__lane *l, uint64_t r, uint64_t tag,
                      struct shmc__wsync_look *w)
{
    /* R7 pairs with A7 (all_entered): our input, and its shift in the word's line
     * (wsync.h), are written before the round number, which carries our call's hash (tag,
     * bits 40-63) in the same store. */
    unsigned part = (unsigned)(r & 1);
    if (l->shift_round != r) {
        l->shift_stored[part] = 0;
    } else if (l->shift_stored[part] != 1 + l->shift) {
        /* (only when it changes: even just before the round's, a store more into the
         * line the others wait on slowed small calls far; reading it back to compare
         * cost more, as the line is theirs by then) */
        shmc__wsync_data(l->wsync, part)[0] = (uint8_t)l->shift;
        l->shift_stored[part] = 1 + l->shift;
    }
    shmc__store_release64(word(l->wsync, r), r | tag);
    *w = (struct shmc__wsync_look){
        .co = co, .lane = l->id, .want = r, .tag = tag, .odd = -1, .call = l->moving};
    if (l->ahead_round == r && l->ahead_len) {
        size_t from = l->ahead_off / SHMC_CACHELINE,
               lines = (l->ahead_off + l->ahead_len - 1) / SHMC_CACHELINE + 1 - from;
        if (lines <= AHEAD_MAX) {
            w->ahead_from = (unsigned)from;
            w->ahead = (unsigned)lines;
        }
    }
    for (int q = 0; q < co->size; q++)
        if (q != co->rank)
            shmc__peer_notify(co->p2p, q);
}

uint8_t *shmc__wsync_shift_changed(struct shmc__lane *l, int q, uint8_t *d, unsigned shift)
{
    l->shift_seen[q] = (uint8_t)shift;
    return d + SHMC_WSYNC_IN_LINE + shift;
}

int shmc__wsync_look(struct shmc__wsync_look *w)
{
    if (!all_entered(w))
        return 0;
    if (w->err != SHMC_OK)
        quit_world(w->co, w->err);
    return 1;
}

/* A blocking wait of the world's rounds, as hang reports name it (a blocking collective's
 * shared-memory step on the world). */
static int wait_world(struct shmc__coll *co, int (*done)(void *),
                      int (*elsewhere)(void *, uint32_t), void *arg)
{
    return shmc__wait_pred(co->p2p, done, elsewhere, arg, SHMC_BLK_COLL,
                           co->p2p->comms.world.ctx);
}

/* Waits until all_entered(w) holds (up to w->upto, where set). Inlined: as a call of its
 * own it slowed the rank-by-rank take of a reduce's root, which checks each rank here. */
__attribute__((always_inline)) static inline int wait_entered(struct shmc__wsync_look *w)
{
    struct shmc__coll *co = w->co;
    int rc = SHMC_OK;
    if (!all_entered(w)) {
        /* Members that both wait here compare their calls here (p2p/incall.h). */
        shmc__incall_round(co->p2p, 1);
        rc = wait_world(co, all_entered, shmc__wsync_far, w);
        shmc__incall_round(co->p2p, 0);
    }
    return rc;
}

int shmc__wsync_wait(struct shmc__wsync_look *w, int *odd)
{
    struct shmc__coll *co = w->co;
    int rc = wait_entered(w);
    if (odd)
        *odd = w->odd;
    return quit_world(co, rc != SHMC_OK ? rc : w->err);
}

int shmc__wsync_wait_rank(struct shmc__wsync_look *w, int q)
{
    w->upto = q + 1;
    int rc = wait_entered(w);
    w->upto = 0;
    /* (kept, so that shmc__wsync_wait ends at once with it: a timed-out wait is not
     * waited for a second time) */
    if (rc != SHMC_OK && w->err == SHMC_OK)
        w->err = rc;
    return w->err == SHMC_OK && w->odd < 0;
}

int shmc__wsync_enter_call(struct shmc__coll *co, uint64_t r, uint64_t tag, int *odd)
{
    struct shmc__wsync_look w;
    shmc__wsync_post(co, shmc__wsync_blk(co), r, tag, &w);
    return shmc__wsync_wait(&w, odd);
}

/* Has world rank 0 released round `want` (or left, or has the world quit)? */
static int released(void *arg)
{
    struct shmc__wsync_look *w = arg;
    struct shmc__coll *co = w->co;
    struct shmc__wsync *o = shmc__wsync_of(&co->lane[w->lane], 0);
    /* A8 pairs with R8: rank 0 saw every rank enter this round before releasing it. */
    return (shmc__load_acquire64(word(o, w->want)) & SHMC_WSYNC_ROUND_MASK) >= w->want ||
           never_enters(w, 0);
}

int shmc__wsync_enter_released(struct shmc__coll *co, uint64_t r, uint64_t tag, int *odd)
{
    struct shmc__wsync_look w = {
        .co = co, .lane = SHMC_LANE_BLOCKING, .want = r, .tag = tag, .odd = -1};
    int rc = SHMC_OK;
    if (co->rank == 0) {
        if (!all_entered(&w)) {
            shmc__incall_round(co->p2p, 1);
            rc = wait_world(co, all_entered, shmc__wsync_far, &w);
            shmc__incall_round(co->p2p, 0);
        }
        if (rc == SHMC_OK && w.err == SHMC_OK) {
            /* R8 pairs with A8 (released): published only now, after A7 on every rank. */
            shmc__store_release64(word(shmc__wsync_blk(co)->wsync, r), r | tag);
            for (int q = 1; q < co->size; q++)
                shmc__peer_notify(co->p2p, q);
        }
    } else {
        /* R7: as in shmc__wsync_enter_call; only rank 0 waits for it. */
        shmc__store_release64(word(shmc__wsync_blk(co)->wsync, r), r | tag);
        shmc__peer_notify(co->p2p, 0);
        if (!released(&w)) {
            /* shmc__wsync_far looks at every rank still short of r: any may hold rank 0 up. */
            shmc__incall_round(co->p2p, 1);
            rc = wait_world(co, released, shmc__wsync_far, &w);
            shmc__incall_round(co->p2p, 0);
        }
        /* Every rank has entered r (rank 0 saw each), and none can write this half again
         * before we enter r + 1, so each tag read here is its call's: comparing all of
         * them, as rank 0 did, every member finds the same difference. Relaxed: A8 came
         * after R8, which came after rank 0's A7 of each. */
        if (rc == SHMC_OK && w.err == SHMC_OK && tag) {
            for (int q = 0; q < co->size && w.odd < 0; q++) {
                if (q == co->rank)
                    continue;
                struct shmc__wsync *o = shmc__wsync_of(&co->lane[SHMC_LANE_BLOCKING], q);
                if ((shmc__load_relaxed64(word(o, r)) &
                     ~SHMC_WSYNC_ROUND_MASK) != tag)
                    w.odd = q;
            }
        }
    }
    if (odd)
        *odd = w.odd;
    return quit_world(co, rc != SHMC_OK ? rc : w.err);
}

struct settle_wait {
    struct shmc__coll *co;
    uint64_t want;
    unsigned lane;
};

/* Has every other rank entered round `want`, left the job, or quit the world's
 * collectives? Or is the job aborted: then its ranks stop where they are, and none tells
 * (as every wait, this one ends with the job). */
static int all_settled(void *arg)
{
    struct settle_wait *w = arg;
    struct shmc__coll *co = w->co;
    struct shmc__p2p *p = co->p2p;
    if (shmc__job_aborted(co->arena))
        return 1;
    for (int q = 0; q < co->size; q++) {
        if (q == co->rank)
            continue;
        struct shmc__wsync *o = shmc__wsync_of(&co->lane[w->lane], q);
        if ((shmc__load_acquire64(word(o, w->want)) & SHMC_WSYNC_ROUND_MASK) >= w->want)
            continue;
        if (shmc__peer_lost(p, q) == SHMC_OK && !shmc__quit_by(p, q, p->comms.world.ctx + 1))
            return 0;
    }
    return 1;
}

int shmc__wsync_settle(struct shmc__coll *co, uint64_t r)
{
    struct settle_wait w = {co, r, SHMC_LANE_BLOCKING};
    if (all_settled(&w))
        return SHMC_OK;
    return wait_world(co, all_settled, NULL, &w);
}

int shmc__wsync_settled(struct shmc__coll *co, unsigned lane, uint64_t r)
{
    struct settle_wait w = {co, r, lane};
    return all_settled(&w);
}
