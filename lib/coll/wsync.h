/*
 * The world communicator's one-step rounds (wsync.c).
 */
#ifndef SHMC_WSYNC_H
#define SHMC_WSYNC_H

#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"

/* The next round of lane l (every world collective that uses rounds takes one of its
 * kind's lane). */
static inline uint64_t shmc__wsync_next(struct shmc__lane *l)
{
    return ++l->round;
}

/* The blocking collectives' lane. */
static inline struct shmc__lane *shmc__wsync_blk(struct shmc__coll *co)
{
    return &co->lane[SHMC_LANE_BLOCKING];
}

/* Where a round's input of `bytes` in all starts in its half:
 * - up to SHMC_WSYNC_IN_LINE bytes, in the round word's line (a reader that has loaded
 *   the word has it too);
 * - up to SHMC_WSYNC_SHIFT_MIN, at the next line boundary: a copy from a page-aligned
 *   buffer into a half 8 bytes past one had each load wait for the stores just made at
 *   its page offset, and far the lines came one at a time;
 * - from SHMC_WSYNC_SHIFT_MIN, past that boundary by the writer's source's page offset
 *   modulo a line (its shift, which its entry stores in the word's line, unused by data
 *   then): the writer's copy then keeps its page offsets whatever the buffer's, and so
 *   does a reader's into a buffer at the same offset (the same allocator's, most often).
 *   From the boundary, buffers at page offset 16 (glibc's for large blocks) made the
 *   writer's copy meet that distance; below SHMC_WSYNC_SHIFT_MIN the shift gained
 *   nothing and its line more cost the smallest calls (the commits that placed the data
 *   have the figures).
 * Every member computes the same from the same call and the writer's shift. */
#define SHMC_WSYNC_IN_LINE (SHMC_CACHELINE - offsetof(struct shmc__wsync, data))
#define SHMC_WSYNC_SHIFT_MIN 4096u
static_assert(SHMC_WSYNC_IN_LINE >= 1, "the shift fits in the word's line");
static_assert(2 * SHMC_CACHELINE - 1 + SHMC_WSYNC_BYTES <=
                  (offsetof(struct shmc__wsync, data) + SHMC_WSYNC_BYTES + 2 * SHMC_CACHELINE - 1) /
                      SHMC_CACHELINE * SHMC_CACHELINE,
              "a half's data shifted by up to a line past the word's line still fits its part "
              "(shmc__wsync_part)");

/* Where this rank writes its input of `bytes` in all, copied from src, for round r of
 * lane l, which it enters next. The shift is stored by the entry (shmc__wsync_post), just
 * before the round's word, and only when it changes: the others wait on that line, and a
 * store into it before the copy took it from them once more. */
static inline uint8_t *shmc__wsync_mine(struct shmc__lane *l, uint64_t r, size_t bytes,
                                        const void *src)
{
    uint8_t *d = shmc__wsync_data(l->wsync, (unsigned)(r & 1));
    if (bytes <= SHMC_WSYNC_IN_LINE)
        return d;
    if (bytes < SHMC_WSYNC_SHIFT_MIN) {
        l->ahead_round = r;
        l->ahead_off = 0;
        l->ahead_len = bytes;
        return d + SHMC_WSYNC_IN_LINE;
    }
    l->shift_round = r;
    l->shift = (unsigned)((uintptr_t)src & (SHMC_CACHELINE - 1));
    return d + SHMC_WSYNC_IN_LINE + l->shift;
}

/* After shmc__wsync_mine for round r: of each other rank's input, this rank takes only
 * the `len` bytes at `off` (a block of its own in a call that puts one for each rank). */
static inline void shmc__wsync_takes(struct shmc__lane *l, uint64_t r, size_t off, size_t len)
{
    if (l->ahead_round == r) {
        l->ahead_off = off;
        l->ahead_len = len;
    }
}

/* World rank q's block of lane l (as shmc__arena_wsync gives it). */
static inline struct shmc__wsync *shmc__wsync_of(const struct shmc__lane *l, int q)
{
    return (struct shmc__wsync *)(void *)(l->blocks + (uint64_t)q * l->stride);
}

/* This rank's input for round r of lane l that starts in the word's line and is written
 * in place there (a struct of at most SHMC_WSYNC_IN_LINE bytes, which may run on into the
 * lines after it: direct.c's map of pieces), and world rank q's. */
static inline uint8_t *shmc__wsync_line(const struct shmc__lane *l, uint64_t r)
{
    return shmc__wsync_data(l->wsync, (unsigned)(r & 1));
}
static inline uint8_t *shmc__wsync_line_of(const struct shmc__lane *l, int q, uint64_t r)
{
    return shmc__wsync_data(shmc__wsync_of(l, q), (unsigned)(r & 1));
}

/* (shmc__wsync_theirs where rank q's shift is not the one it used last: noted.) */
uint8_t *shmc__wsync_shift_changed(struct shmc__lane *l, int q, uint8_t *d, unsigned shift);

/* Where world rank q's input of `bytes` for round r of lane l is, once q has entered r;
 * this rank's own too, once it has entered. Ours from what we chose (the word's line is
 * the others' while they wait: a load from it went to their CPU and back). Theirs at the
 * shift q used last in this lane, checked against the one it stored (masked, so that a
 * scribbled one still points inside the part): an address computed from a load of the
 * word's line waits for that line, where loads at an address known before were under
 * way while it came. */
static inline uint8_t *shmc__wsync_theirs(const struct shmc__coll *co, struct shmc__lane *l, int q,
                                          uint64_t r, size_t bytes)
{
    uint8_t *d = shmc__wsync_line_of(l, q, r);
    if (bytes <= SHMC_WSYNC_IN_LINE)
        return d;
    if (bytes < SHMC_WSYNC_SHIFT_MIN)
        return d + SHMC_WSYNC_IN_LINE;
    if (q == co->rank)
        return d + SHMC_WSYNC_IN_LINE + (l->shift_round == r ? l->shift : 0);
    unsigned seen = l->shift_seen[q], shift = d[0] & (SHMC_CACHELINE - 1);
    uint8_t *at = d + SHMC_WSYNC_IN_LINE + seen;
    /* (hidden from the compiler, which would otherwise compute it from the loaded shift
     * once the two compare equal) */
    __asm__("" : "+r"(at));
    if (__builtin_expect(shift != seen, 0))
        return shmc__wsync_shift_changed(l, q, d, shift);
    return at;
}

/* What a world round carries of a call with hash h (base/callword.h): bits 40-63, never
 * all 0 for a call; 0 for none (SHMC_CHECK=0). */
static inline uint64_t shmc__wsync_tag(uint64_t h)
{
    uint64_t t = h & ~SHMC_WSYNC_ROUND_MASK;
    return t || !h ? t : SHMC_WSYNC_ROUND_MASK + 1;
}

/* Enters world round r of the blocking lane (this rank's input for it already in its
 * half), publishing tag (shmc__wsync_tag) with the round number, and waits until every
 * other rank has entered it, comparing each one's tag, as it is seen to enter, with ours:
 * *odd is the first rank whose tag differs, or -1. SHMC_OK, or the error of a rank that
 * left first. */
int shmc__wsync_enter_call(struct shmc__coll *co, uint64_t r, uint64_t tag, int *odd);

/* A world round entered without waiting (the nonblocking collectives, nbworld.c): post
 * publishes this rank's entry as shmc__wsync_enter_call does and readies w; look says
 * whether the round is over: every other rank entered it (w->odd as *odd above), or one
 * never will (w->err set; this rank has quit the world's collectives then). */
struct shmc__wsync_look {
    struct shmc__coll *co;
    unsigned lane;
    uint64_t want;
    int next; /* the first rank not yet seen at `want` */
    int upto; /* (shmc__wsync_wait_rank's bound while it waits; 0: every rank) */
    int err;
    uint64_t tag; /* our call's hash in bits 40-63, to compare with each rank's; 0: none */
    int odd;      /* the first rank whose hash differs, or -1 */
    /* The nonblocking lane: the number of the call the round is for (lane->moving when
     * posted; 0: none), and the looks that found rank `next` short of it. A rank whose
     * same call runs as a schedule (it never enters the round) is found by its word of
     * calls (shm/arena.h), read every SHMC_WSYNC_CALLS_EVERY such looks: odd is that
     * rank then, with odd_sched set, and the round counts as over; odd_sched is set too
     * where a rank whose call differs entered the round after running an earlier call
     * as a schedule that this rank ran by rounds. */
    uint64_t call;
    unsigned misses;
    int odd_sched;
    /* The lines of each other rank's input that this rank takes, counted from the line
     * after the word's: ahead of them from ahead_from (0: none; wsync.c). */
    unsigned ahead_from, ahead;
};
#define SHMC_WSYNC_CALLS_EVERY 32u
void shmc__wsync_post(struct shmc__coll *co, struct shmc__lane *l, uint64_t r, uint64_t tag,
                      struct shmc__wsync_look *w);
int shmc__wsync_look(struct shmc__wsync_look *w);
/* Waits until the round a post of the blocking lane readied w for is over: what
 * shmc__wsync_enter_call does after its post, for a call that has work of its own to do
 * between the two (onestep.h). */
int shmc__wsync_wait(struct shmc__wsync_look *w, int *odd);
/* Part of that wait: until world rank q, and every rank before it, has entered w's round
 * (those ranks' inputs are visible then), for a call that takes each rank's part as soon
 * as it is in, as the slots' readers do (a reduce's root combines rank 0's part while
 * rank 1 still writes its own). 1 when they have, with calls like ours; 0 when the round
 * failed or a rank's call differs: the caller stops taking, and shmc__wsync_wait, which
 * ends the round in every case, says how. */
int shmc__wsync_wait_rank(struct shmc__wsync_look *w, int q);
/* Has every rank not yet in w's round last run on another CPU than cpu (1 + CPU)? A
 * wait for the round spins rather than yield then (shm/doorbell.h). w: the look. */
int shmc__wsync_far(void *w, uint32_t cpu);
/* The same round entered as a barrier released by world rank 0: every other rank
 * publishes its entry and waits for rank 0 alone, which publishes its own only once it
 * has seen all of them. Rank 0 leaves first, so a rooted collective from it that follows
 * (a broadcast, a scatter) is under way before the others arrive, and they wait on one
 * line instead of n - 1 (docs/collectives.md says when this form is used). The tags are
 * compared by every member as in shmc__wsync_enter_call. */
int shmc__wsync_enter_released(struct shmc__coll *co, uint64_t r, uint64_t tag, int *odd);
/* After round r failed (a rank left or quit before entering it, and this rank has quit):
 * waits until every other rank has entered r, left the job or quit the world's
 * collectives, which each does only once it has stopped touching other ranks' buffers
 * for the call (direct.c writes into them). */
int shmc__wsync_settle(struct shmc__coll *co, uint64_t r);
/* The same question for round r of lane `lane`, without waiting: 1 once every other rank
 * has entered r, left the job or quit the world's collectives. */
int shmc__wsync_settled(struct shmc__coll *co, unsigned lane, uint64_t r);

#endif /* SHMC_WSYNC_H */
