/*
 * The other ranks as this process sees them: ring endpoints, and whether each is still
 * in the job. A rank's state lives in its control block; it changes its own state
 * (running, finalizing, finalized), and a rank found dead is marked by whoever notices
 * first: shmrun when it reaps the process, or any waiting rank whose liveness probe
 * fails (this is what covers torchrun and mpirun, which do not know our arena).
 * Every state change is followed by an epoch bump (R4) that waiting ranks poll (A4).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "log.h"
#include "wait.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

int shmc__peers_setup(void)
{
    struct shmc__global *g = &shmc__g;
    uint32_t rb = g->arena.hdr->ring_bytes;
    g->peers = calloc((size_t)g->size, sizeof *g->peers);
    if (!g->peers)
        return SHMC_ERR_NOMEM;
    for (int p = 0; p < g->size; p++) {
        struct shmc__peer *pe = &g->peers[p];
        pe->cb = shmc__arena_cb(&g->arena, (unsigned)p);
        pe->pidfd = -1;
        pe->cma = 1;
        pe->coop = 1;
        if (p == g->rank)
            continue;
        shmc__ring_prod_init(&pe->out, shmc__arena_ring(&g->arena, (unsigned)g->rank, (unsigned)p),
                             rb);
        shmc__ring_cons_init(&pe->in, shmc__arena_ring(&g->arena, (unsigned)p, (unsigned)g->rank),
                             rb);
    }
    return SHMC_OK;
}

void shmc__peers_teardown(void)
{
    struct shmc__global *g = &shmc__g;
    if (!g->peers)
        return;
    for (int p = 0; p < g->size; p++) {
        struct shmc__peer *pe = &g->peers[p];
        while (pe->ctrl_head) {
            struct shmc__ctrl *c = pe->ctrl_head;
            pe->ctrl_head = c->next;
            shmc__ctrl_done(c);
        }
        if (pe->pidfd >= 0)
            close(pe->pidfd);
    }
    free(g->peers);
    g->peers = NULL;
}

/* Is the process still there? A zombie counts as gone (pidfd reports exit, not reaping). */
static int process_alive(struct shmc__peer *pe, pid_t pid)
{
    if (pe->pidfd < 0) {
        long fd = syscall(SYS_pidfd_open, pid, 0);
        if (fd < 0 && errno == ESRCH)
            return 0;
        if (fd >= 0)
            pe->pidfd = (int)fd;
    }
    if (pe->pidfd >= 0) {
        struct pollfd pfd = {.fd = pe->pidfd, .events = POLLIN};
        return poll(&pfd, 1, 0) == 0;
    }
    return !(kill(pid, 0) != 0 && errno == ESRCH);
}

void shmc__peers_refresh(int probe_liveness)
{
    struct shmc__global *g = &shmc__g;
    for (int p = 0; p < g->size; p++) {
        struct shmc__peer *pe = &g->peers[p];
        if (p == g->rank || pe->gone)
            continue;
        /* A4 (also taken in shmc__check_job): the state read is current as of the epoch. */
        uint32_t st = shmc__load_acquire32(&pe->cb->state);
        if (st == SHMC_RANK_FINALIZED || st == SHMC_RANK_DEAD) {
            pe->gone = 1;
            g->ngone++;
            continue;
        }
        if (!probe_liveness || st == SHMC_RANK_EMPTY)
            continue;
        pid_t pid = (pid_t)shmc__load_relaxed32(&pe->cb->pid);
        if (!pid || process_alive(pe, pid))
            continue;
        /* Only one observer marks it; everyone learns through the epoch. */
        if (shmc__cas32(&pe->cb->state, &st, SHMC_RANK_DEAD)) {
            SHMC_INFO("rank %d (pid %d) is gone without finalizing", p, (int)pid);
            shmc__fetch_add32(&g->arena.hdr->epoch, 1); /* R4 */
            shmc__wake_all();
        }
        pe->gone = 1;
        g->ngone++;
        g->recheck = 1;
    }
}

void shmc__mark_state(int state)
{
    struct shmc__global *g = &shmc__g;
    /* R4 pairs with A4: the new state is visible to whoever sees the new epoch. */
    shmc__store_release32(&g->me->state, (uint32_t)state);
    shmc__fetch_add32(&g->arena.hdr->epoch, 1);
    shmc__wake_all();
}

void shmc__wake_all(void)
{
    struct shmc__global *g = &shmc__g;
    /* Slow path: a full fence, then wake whoever may be asleep (wait.h). */
    shmc__fence_seq_cst();
    for (int p = 0; p < g->size; p++) {
        struct shmc__rank_cb *cb = shmc__arena_cb(&g->arena, (unsigned)p);
        if (p != g->rank && shmc__load_relaxed32(&cb->sleeping))
            shmc__doorbell_ring(cb);
    }
}
