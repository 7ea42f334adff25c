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
 *
 * When ranks outnumber CPUs, yielding is right only if a rank we wait for needs our CPU.
 * Each waiting rank therefore publishes the CPU it runs on (`cpu` in its control block);
 * a waiter whose awaited ranks all last ran on other CPUs spins for a bounded time
 * instead of handing its CPU to a neighbour that may itself only be waiting (which costs
 * a context switch each way). The CPU is a hint, possibly stale after a
 * migration: a wrong guess costs at most that bounded spin (docs/design.md, Waiting).
 */
#ifndef SHMC_DOORBELL_H
#define SHMC_DOORBELL_H

#include <sched.h>
#include <stdint.h>

#include "base/atomics.h"
#include "shm/arena.h"

#define SHMC_SLEEP_SLICE_MS 50u

/* Does this kernel offer MEMBARRIER_CMD_GLOBAL_EXPEDITED? Asked by whoever creates the
 * arena: if not, every rank must fence on both sides (SHMC_ARENA_F_FENCED_WAKE). */
int shmc__membarrier_available(void);

/* Registers this process for membarrier. Returns 1 if the asymmetric protocol can be used
 * by this process, 0 if it must fence on both sides. */
int shmc__wait_register(void);

/* Registers this process for shmc__membarrier_private; 1 if it can use it. */
int shmc__membarrier_private_register(void);
/* Makes every running thread of this process (only) run a full barrier, as the sleep
 * protocol above does across processes. 0, or -1 if this process could not register or
 * the call failed. */
int shmc__membarrier_private(void);

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

/* The same, leaving the sleeping flag up: for a process whose other threads may still be
 * asleep on the doorbell (the last one out clears it with shmc__sleep_cancel). */
void shmc__sleep_wait(struct shmc__rank_cb *me, uint32_t seen, unsigned timeout_ms);

void shmc__sleep_cancel(struct shmc__rank_cb *me);

/* The cpu word: 1 + the CPU, and this bit while the rank polls instead of yielding. */
#define SHMC_CPU_POLLING 0x80000000u

/* Publishes the CPU this rank runs on now and whether it keeps polling there; returns
 * 1 + the CPU, 0 if unknown. */
static inline uint32_t shmc__cpu_publish(struct shmc__rank_cb *me, int polling)
{
    int c = sched_getcpu();
    uint32_t v = c >= 0 ? (uint32_t)c + 1u : 0u;
    uint32_t w = v | (polling ? SHMC_CPU_POLLING : 0u);
    /* Relaxed: a scheduling hint; nothing is published with it. */
    if (shmc__load_relaxed32(&me->cpu) != w)
        shmc__store_relaxed32(&me->cpu, w);
    return v;
}

/* Did the rank owning cb last wait on a CPU other than `mine` (1 + CPU)? Unknown on
 * either side counts as "no", so that the waiter yields as it would without the hint. */
static inline int shmc__runs_elsewhere(const struct shmc__rank_cb *cb, uint32_t mine)
{
    /* Relaxed: a hint. */
    uint32_t c = shmc__load_relaxed32(&cb->cpu) & ~SHMC_CPU_POLLING;
    return mine && c && c != mine;
}

/* Is the rank owning cb on its CPU now: outside any wait, or polling in one? A rank that
 * yields or sleeps may be waiting for a rank that needs our CPU. */
static inline int shmc__runs_now(const struct shmc__rank_cb *cb)
{
    /* Relaxed: hints. */
    return shmc__load_relaxed32(&cb->blk_op) == SHMC_BLK_NONE ||
           (shmc__load_relaxed32(&cb->cpu) & SHMC_CPU_POLLING);
}

#endif /* SHMC_DOORBELL_H */
