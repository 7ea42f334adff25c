/*
 * The thread rule's state (p2p.h, "Serialised use" and SHMC_THREAD_MULTIPLE): which thread
 * is inside a call, the process-wide lock of the multiple mode, and the error for a call
 * that overlaps another. Calls nothing of its layer, so every file of it may use these.
 */
#include <stdatomic.h>

#include "base/log.h"
#include "p2p/p2p.h"

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
