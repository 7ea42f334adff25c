/*
 * The thread rule's state (p2p.h, "Serialised use" and SHMC_THREAD_MULTIPLE): which thread
 * is inside a call, the process-wide lock of the multiple mode, and the error for a call
 * that overlaps another. Calls nothing of its layer, so every file of it may use these.
 */
#include <stdatomic.h>

#include "base/log.h"
#include "p2p/p2p.h"
#include "shm/doorbell.h"

_Thread_local uint64_t shmc__deadline;
int shmc__multi;
pthread_mutex_t shmc__big = PTHREAD_MUTEX_INITIALIZER;

int shmc__call_overlap(void)
{
    static _Atomic int said; /* once per process: a program that overlaps does it often */
    if (!atomic_exchange(&said, 1))
        SHMC_ERROR("two threads called shmcomm at once: calls must not overlap (one at a time per "
                   "process, from any thread; shmcomm.h, Threads)");
    return SHMC_ERR_THREAD;
}

int shmc__call_claim(struct shmc__p2p *p, uintptr_t me)
{
    int none = 0;
    /* Acquire: what the previous caller did is visible to this one (it released in_call
     * or, the owner, owner_busy: read below after the membarrier). */
    if (!atomic_compare_exchange_strong_explicit(&p->in_call, &none, 1, memory_order_acquire,
                                                 memory_order_relaxed))
        return shmc__call_overlap();
    uintptr_t o = atomic_load_explicit(&p->owner, memory_order_relaxed);
    if (o == 0) {
        /* The first call: nobody enters without a CAS yet, so this thread may become the
         * one that does, if an owner can be revoked later. */
        if (p->owner_ok)
            atomic_store_explicit(&p->owner, me, memory_order_relaxed);
    } else if (o != SHMC__OWNER_NONE && o != me) {
        /* The owner may be entering: after the barrier, either its owner_busy is seen
         * here or it sees in_call (p2p.h, "Serialised use"). Acquire pairs with the
         * owner's release of owner_busy as it leaves. The barrier interrupts only this
         * process's threads, so a program that keeps overlapping its calls pays for its
         * retries alone. */
        if (shmc__membarrier_private() != 0 ||
            atomic_load_explicit(&p->owner_busy, memory_order_acquire)) {
            atomic_store_explicit(&p->in_call, 0, memory_order_release);
            return shmc__call_overlap();
        }
        /* Relaxed: published by the release of in_call as this call leaves. */
        atomic_store_explicit(&p->owner, SHMC__OWNER_NONE, memory_order_relaxed);
    }
    return SHMC__ENTERED_CAS;
}
