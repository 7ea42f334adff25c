/*
 * The only place that names memory orders. Every use site says which pair it belongs to
 * (R<n> is a release, A<n> the acquire that pairs with it; docs/memory-model.md lists
 * them). Relaxed accesses are used where the value carries no data with it and a stale
 * read is harmless; each such site says why.
 *
 * Concurrency contract: these are plain C11 atomics on memory that may be shared between
 * processes (the arena). Lock-free 32- and 64-bit atomics are address-free on every
 * platform we build for, which C11 requires for cross-process use; arena.c checks it.
 */
#ifndef SHMC_ATOMICS_H
#define SHMC_ATOMICS_H

#include <stdatomic.h>
#include <stdint.h>

typedef _Atomic uint32_t shmc_atomic_u32;
typedef _Atomic uint64_t shmc_atomic_u64;

#define SHMC_CACHELINE 64
#define SHMC_ALIGNED_LINE _Alignas(SHMC_CACHELINE)

static inline uint64_t shmc__load_acquire64(const shmc_atomic_u64 *p)
{
    return atomic_load_explicit(p, memory_order_acquire);
}

static inline uint64_t shmc__load_relaxed64(const shmc_atomic_u64 *p)
{
    return atomic_load_explicit(p, memory_order_relaxed);
}

static inline void shmc__store_release64(shmc_atomic_u64 *p, uint64_t v)
{
    atomic_store_explicit(p, v, memory_order_release);
}

static inline void shmc__store_relaxed64(shmc_atomic_u64 *p, uint64_t v)
{
    atomic_store_explicit(p, v, memory_order_relaxed);
}

static inline uint32_t shmc__load_acquire32(const shmc_atomic_u32 *p)
{
    return atomic_load_explicit(p, memory_order_acquire);
}

static inline uint32_t shmc__load_relaxed32(const shmc_atomic_u32 *p)
{
    return atomic_load_explicit(p, memory_order_relaxed);
}

static inline void shmc__store_release32(shmc_atomic_u32 *p, uint32_t v)
{
    atomic_store_explicit(p, v, memory_order_release);
}

static inline void shmc__store_relaxed32(shmc_atomic_u32 *p, uint32_t v)
{
    atomic_store_explicit(p, v, memory_order_relaxed);
}

/* Read-modify-write operations: slow paths (attach, doorbells, abort) and the readers of
 * a collective slot (coll/slot.c). */
static inline uint32_t shmc__fetch_add32(shmc_atomic_u32 *p, uint32_t v)
{
    return atomic_fetch_add_explicit(p, v, memory_order_acq_rel);
}

/* Acquire and release both: a claim (coop.c) must see what earlier claims published and
 * publish what preceded it. */
static inline uint64_t shmc__fetch_add64(shmc_atomic_u64 *p, uint64_t v)
{
    return atomic_fetch_add_explicit(p, v, memory_order_acq_rel);
}

/* Sets bits: a rank cutting off a peer (shm/job.c). */
static inline uint64_t shmc__fetch_or64(shmc_atomic_u64 *p, uint64_t v)
{
    return atomic_fetch_or_explicit(p, v, memory_order_acq_rel);
}

static inline int shmc__cas32(shmc_atomic_u32 *p, uint32_t *expected, uint32_t desired)
{
    return atomic_compare_exchange_strong_explicit(p, expected, desired, memory_order_acq_rel,
                                                   memory_order_acquire);
}

static inline int shmc__cas64(shmc_atomic_u64 *p, uint64_t *expected, uint64_t desired)
{
    return atomic_compare_exchange_strong_explicit(p, expected, desired, memory_order_acq_rel,
                                                   memory_order_acquire);
}

/* A full fence, for the rare paths that need store->load ordering (Dekker-style
 * publish-then-check) and cannot use the asymmetric scheme of wait.c. */
static inline void shmc__fence_seq_cst(void)
{
    atomic_thread_fence(memory_order_seq_cst);
}

/* Stops the compiler, not the CPU, from moving memory accesses across this point. The
 * CPU side of the ordering is supplied by membarrier() on the sleeping side (wait.c). */
static inline void shmc__compiler_barrier(void)
{
    atomic_signal_fence(memory_order_seq_cst);
}

/* Tells the CPU we are spinning (saves power, frees the sibling hyperthread). */
static inline void shmc__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    shmc__compiler_barrier();
#endif
}

#endif /* SHMC_ATOMICS_H */
