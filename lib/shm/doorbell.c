/*
 * Futex doorbells and membarrier registration (protocol in doorbell.h). The futexes live in
 * shared memory mapped by several processes, so the non-private futex operations are
 * used.
 */
#include "shm/doorbell.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int membarrier_ok;

static long sys_membarrier(int cmd)
{
    return syscall(SYS_membarrier, cmd, 0, 0);
}

int shmc__membarrier_available(void)
{
    long q = sys_membarrier(MEMBARRIER_CMD_QUERY);
    return q > 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED);
}

int shmc__wait_register(void)
{
    long q = sys_membarrier(MEMBARRIER_CMD_QUERY);
    membarrier_ok = q > 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
                    sys_membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
    return membarrier_ok;
}

static int private_ok;

int shmc__membarrier_private_register(void)
{
    long q = sys_membarrier(MEMBARRIER_CMD_QUERY);
    private_ok = q > 0 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
                 sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
    return private_ok;
}

int shmc__membarrier_private(void)
{
    return private_ok && sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0 ? 0 : -1;
}

void shmc__doorbell_ring(struct shmc__rank_cb *cb)
{
    /* R3 pairs with A3 in shmc__sleep_prepare: a sleeper that read the old value fails
     * its futex_wait at once; one already in it is woken below. */
    shmc__fetch_add32(&cb->doorbell, 1);
    syscall(SYS_futex, &cb->doorbell, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

uint32_t shmc__sleep_prepare(struct shmc__rank_cb *me, int fenced)
{
    /* A3 pairs with R3 in shmc__doorbell_ring. */
    uint32_t seen = shmc__load_acquire32(&me->doorbell);
    /* Relaxed: the barrier below orders it against the re-check that follows. */
    shmc__store_relaxed32(&me->sleeping, 1);
    if (!fenced && membarrier_ok && sys_membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0)
        return seen;
    shmc__fence_seq_cst();
    return seen;
}

void shmc__sleep_wait(struct shmc__rank_cb *me, uint32_t seen, unsigned timeout_ms)
{
    struct timespec ts = {.tv_sec = timeout_ms / 1000u,
                          .tv_nsec = (long)(timeout_ms % 1000u) * 1000000L};
    /* EAGAIN (the doorbell already moved), EINTR and ETIMEDOUT all mean "look again". */
    syscall(SYS_futex, &me->doorbell, FUTEX_WAIT, seen, &ts, NULL, 0);
}

void shmc__sleep(struct shmc__rank_cb *me, uint32_t seen, unsigned timeout_ms)
{
    shmc__sleep_wait(me, seen, timeout_ms);
    shmc__store_relaxed32(&me->sleeping, 0);
}

void shmc__sleep_cancel(struct shmc__rank_cb *me)
{
    shmc__store_relaxed32(&me->sleeping, 0);
}
