/*
 * The shared-memory transport: every peer on this machine. Its mailboxes are the rings of
 * the arena (one per ordered pair), which both sides map, so nothing needs moving in
 * progress; liveness is the peer's state in its control block, and, for launchers that
 * do not watch our ranks (torchrun, mpirun), a look at its process through a pidfd; single
 * copy is process_vm_readv/writev (cma.c).
 *
 * A peer found dead is marked by whoever notices first: shmrun when it reaps the process,
 * or any rank whose probe finds it gone (shm/job.c announces it through the epoch).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/log.h"
#include "shm/job.h"
#include "transport/transport.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

static int shm_reaches(const struct shmc__tp *t, int peer)
{
    return peer >= 0 && peer < t->size && peer != t->rank;
}

static int shm_connect(const struct shmc__tp *t, struct shmc__ep *ep, int peer)
{
    ep->arena_pids = t->arena->pids;
    uint32_t rb = t->arena->lay.ring_bytes;
    shmc__ring_prod_init(&ep->out, shmc__arena_ring(t->arena, (unsigned)t->rank, (unsigned)peer),
                         rb);
    shmc__ring_cons_init(&ep->in, shmc__arena_ring(t->arena, (unsigned)peer, (unsigned)t->rank),
                         rb);
    return SHMC_OK;
}

static void shm_disconnect(struct shmc__ep *ep)
{
    if (ep->pidfd >= 0)
        close(ep->pidfd);
    ep->pidfd = -1;
}

/* Is the process still there? A zombie counts as gone (pidfd reports exit, not reaping). */
static int process_alive(struct shmc__ep *ep, pid_t pid)
{
    if (ep->pidfd < 0) {
        long fd = syscall(SYS_pidfd_open, pid, 0);
        if (fd < 0 && errno == ESRCH)
            return 0;
        if (fd >= 0)
            ep->pidfd = (int)fd;
    }
    if (ep->pidfd >= 0) {
        struct pollfd pfd = {.fd = ep->pidfd, .events = POLLIN};
        return poll(&pfd, 1, 0) == 0;
    }
    return !(kill(pid, 0) != 0 && errno == ESRCH);
}

static int shm_left(const struct shmc__tp *t, struct shmc__ep *ep, int probe)
{
    /* A4 (also taken in p2p/progress.c): the state read is current as of the epoch. */
    uint32_t st = shmc__load_acquire32(&ep->cb->state);
    if (st == SHMC_RANK_FINALIZED || st == SHMC_RANK_DEAD)
        return 1;
    if (st > SHMC_RANK_DEAD) {
        /* No rank writes this: its control block was overwritten. Nothing it publishes
         * can be trusted any more; treat it as gone (once). */
        if (!ep->gone)
            SHMC_ERROR("rank %d's control block holds state %u, which no rank writes: shared "
                       "memory was overwritten; treating rank %d as gone",
                       ep->peer, st, ep->peer);
        return 1;
    }
    if (!probe || st == SHMC_RANK_EMPTY)
        return 0;
    pid_t pid = t->arena->pids[ep->peer];
    if (pid <= 0 || process_alive(ep, pid))
        return 0;
    if (shmc__job_claim_dead(t->arena, (unsigned)t->rank, (unsigned)ep->peer, st))
        SHMC_INFO("rank %d (pid %d) is gone without finalizing", ep->peer, (int)pid);
    return 1;
}

/* The peer's pid, as copied when the job was assembled (shm/arena.h). */
static int pid_of(const struct shmc__ep *ep)
{
    return ep->arena_pids[ep->peer];
}

static uint64_t shm_get(struct shmc__ep *ep, void *local, uint64_t remote, uint64_t len, int *err)
{
    return shmc__cma_copy(pid_of(ep), 0, local, remote, len, err);
}

static uint64_t shm_put(struct shmc__ep *ep, const void *local, uint64_t remote, uint64_t len,
                        int *err)
{
    return shmc__cma_copy(pid_of(ep), 1, (void *)(uintptr_t)local, remote, len, err);
}

static uint64_t shm_copyv(struct shmc__ep *ep, int write, void *local,
                          const struct shmc__rblock *blocks, size_t n, int *err)
{
    return shmc__cma_copyv(pid_of(ep), write, local, blocks, n, err);
}

const struct shmc__transport shmc__transport_shm = {
    .name = "shm",
    .reaches = shm_reaches,
    .connect = shm_connect,
    .disconnect = shm_disconnect,
    .progress = NULL, /* both sides map the rings */
    .left = shm_left,
    .get = shm_get,
    .put = shm_put,
    .copyv = shm_copyv,
};
