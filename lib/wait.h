/*
 * Sleeping and waking across processes. A rank that has spun and yielded without
 * progress sleeps on the futex word `doorbell` in its control block; whoever publishes
 * something it may be waiting for (a record, ring space, a state change) rings it.
 *
 * The protocol is a Dekker handshake made asymmetric so the message path pays nothing:
 *
 *   sleeper                                   waker
 *   d = doorbell            (A3)              publish data (record header, tail, state)
 *   sleeping = 1                              compiler barrier   <- no CPU fence
 *   membarrier(GLOBAL_EXPEDITED)              if (sleeping)
 *   re-check for work; if any, stop               doorbell += 1  (R3); futex_wake
 *   futex_wait(doorbell, d)
 *   sleeping = 0
 *
 * membarrier() makes every running thread of every registered process execute a full
 * barrier before it returns, which supplies the waker's missing store->load fence: either
 * the waker's load of `sleeping` comes after the barrier and sees 1, or its publication
 * came before it and the sleeper's re-check sees it. Where membarrier is unavailable,
 * both sides use a seq_cst fence instead (SHMC_ARENA_F_FENCED_WAKE in the header).
 * Every futex sleep is bounded (SHMC_SLEEP_SLICE_MS) so that the waiter also notices an
 * abort or a dead peer that nobody announced.
 */
#ifndef SHMC_WAIT_H
#define SHMC_WAIT_H

#include <stdint.h>

#include "arena.h"
#include "atomics.h"

#define SHMC_SLEEP_SLICE_MS 50u

/* Does this kernel offer MEMBARRIER_CMD_GLOBAL_EXPEDITED? Asked by whoever creates the
 * arena: if not, every rank must fence on both sides (SHMC_ARENA_F_FENCED_WAKE). */
int shmc__membarrier_available(void);

/* Registers this process for membarrier. Returns 1 if the asymmetric protocol can be used
 * by this process, 0 if it must fence on both sides. */
int shmc__wait_register(void);

/* Wakes the rank owning cb, unconditionally (slow paths: abort, state changes). */
void shmc__doorbell_ring(struct shmc__rank_cb *cb);

/* Wakes the rank owning cb if it may be asleep. Call after publishing what it waits for.
 * `fenced` is this process's mode (see shmc__wait_register and the arena flag). */
static inline void shmc__notify(struct shmc__rank_cb *cb, int fenced)
{
    if (fenced)
        shmc__fence_seq_cst();
    else
        shmc__compiler_barrier();
    /* Relaxed: the ordering against our publication comes from the handshake above. */
    if (shmc__load_relaxed32(&cb->sleeping))
        shmc__doorbell_ring(cb);
}

/* First half of going to sleep: returns the doorbell value to sleep on. After it the
 * caller must re-check every condition it waits for and call shmc__sleep_cancel if any
 * holds, or shmc__sleep to block. */
uint32_t shmc__sleep_prepare(struct shmc__rank_cb *me, int fenced);

/* Blocks until the doorbell moves from `seen`, a signal, or timeout_ms. Clears the
 * sleeping flag. */
void shmc__sleep(struct shmc__rank_cb *me, uint32_t seen, unsigned timeout_ms);

void shmc__sleep_cancel(struct shmc__rank_cb *me);

/* Monotonic clock in nanoseconds. */
uint64_t shmc__now_ns(void);

#endif /* SHMC_WAIT_H */
