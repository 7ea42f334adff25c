/*
 * The job state in the arena: each rank's state in its control block, the epoch that
 * announces state changes, and the abort word. Whoever changes a state bumps the epoch
 * with release (R4) and wakes the ranks that may sleep; waiting ranks poll the epoch with
 * acquire (A4, p2p/progress.c) and then re-read the states.
 *
 * Callers: a rank about itself (running, finalizing, finalized, aborting), any rank that
 * finds a peer's process gone (transport/shm.c), and a supervisor (shmrun, the test
 * harness) that reaps a rank or ends the job.
 */
#ifndef SHMC_JOB_H
#define SHMC_JOB_H

#include <stdint.h>

#include "base/atomics.h"
#include "shm/arena.h"

/* Rank me sets its own state (R4), bumps the epoch and wakes the others that sleep. */
void shmc__job_set_state(struct shmc__arena *a, unsigned me, uint32_t state);

/* Rank me found rank r's process gone while r's state was still `seen`: marks it dead
 * unless someone else changed the state first (a compare-and-swap), and if so announces
 * it. Returns 1 if this call marked it. */
int shmc__job_claim_dead(struct shmc__arena *a, unsigned me, unsigned r, uint32_t seen);

/* For a supervisor (shmrun, the test harness): rank r's process has ended; unless it
 * finalized, mark it dead and wake every rank so waits on it fail. */
void shmc__job_mark_dead(struct shmc__arena *a, unsigned r);

/* For a supervisor: did rank r leave the job cleanly (shmc_finalize done)? */
int shmc__job_finalized(const struct shmc__arena *a, unsigned r);

/* For a supervisor: marks the job aborted with an exit code and wakes every rank.
 * Returns 1 if this call set the abort word, 0 if a rank's shmc_abort had already. */
int shmc__job_abort(struct shmc__arena *a, int code);

/* For rank me ending the job itself (shmc_abort, SHMC_TIMEOUT): sets the abort word with
 * its code (unless set already) and its rank, marks itself dead, and, when no launcher
 * supervises the job (stop_peers), sends SIGTERM to every rank still in it. The caller
 * exits next. Returns the exit code to use (1 to 255). */
int shmc__job_abort_from(struct shmc__arena *a, unsigned me, int code, int stop_peers);

/* Waits until every rank of the job has attached (the attach count), or fails: a rank
 * died first (SHMC_ERR_PEER_DEAD), the job was aborted, or timeout_s passed
 * (SHMC_ERR_TIMEOUT, naming the missing ranks). Meanwhile, if this rank hands out the
 * arena (a->serve_fd, fdpass.h), it serves every rank that asks, and closes the socket
 * once all have attached. */
int shmc__job_wait_attached(struct shmc__arena *a, unsigned timeout_s);

/* Rank me tells rank peer that it found what they share corrupt and will not talk to it
 * again: sets me's bit in peer's cut words, bumps the epoch (R4) and wakes peer, which
 * then stops waiting for me (p2p/progress.c). Without it a peer we gave up on waits for
 * us until a time-out. */
void shmc__job_cut(struct shmc__arena *a, unsigned me, unsigned peer);

/* Has rank peer cut rank me off? */
int shmc__job_cut_by(const struct shmc__arena *a, unsigned me, unsigned peer);

/* Rank me has quit the collective context ctx (odd) of a communicator, failing with err:
 * it will neither read nor write any member's memory for it again, nor send on it.
 * Publishes ctx and err in one of me's quit words (release), bumps the epoch (R4) and
 * wakes the sleepers, so that members waiting for me in a collective stop (p2p/quit.c).
 * Once per context; the oldest of SHMC_QUIT_WORDS is overwritten. */
void shmc__job_quit(struct shmc__arena *a, unsigned me, uint32_t ctx, int err);

/* Rank me has left the call in which it quit ctx: none of its reads or writes of a
 * member's buffers on ctx is still running, and it will start none. Sets the quit word's
 * settled bit (release), bumps the epoch (R4) and wakes the sleepers, so that a member
 * whose offer me never answered stops waiting for an answer (p2p/quit.c). */
void shmc__job_quit_settle(struct shmc__arena *a, unsigned me, uint32_t ctx);

/* A quit word's bit that says its rank has left the call (shmc__job_quit_settle). */
#define SHMC_QUIT_SETTLED (1ull << 40)

/* Rank r's quit word i (0: unused), as published. A4 taken by the caller (the epoch that
 * announced it), or acquire here when read without: each word is read with acquire. */
static inline uint64_t shmc__job_quit_word(const struct shmc__arena *a, unsigned r, unsigned i)
{
    /* A13 pairs with R13 (shmc__job_quit, shmc__job_quit_settle). */
    return shmc__load_acquire64(&shmc__arena_cb(a, r)->quit[i]);
}

/* Has rank r quit context ctx? Its error (negative), or 0. */
int shmc__job_quit_of(const struct shmc__arena *a, unsigned r, uint32_t ctx);

/* Has rank r left the call in which it quit ctx (shmc__job_quit_settle)? */
int shmc__job_quit_settled(const struct shmc__arena *a, unsigned r, uint32_t ctx);

/* Has the job been aborted? Relaxed: the abort word carries no data; it only says stop. */
static inline int shmc__job_aborted(const struct shmc__arena *a)
{
    return shmc__load_relaxed32(&a->hdr->abort) != 0;
}

#endif /* SHMC_JOB_H */
