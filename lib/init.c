/*
 * The library's lifecycle: shmc_init joins the job (bootstrap.c finds it), sets up the
 * endpoints and waits until every rank has attached; shmc_finalize delivers what this
 * process still owes its peers and releases everything; shmc_abort ends the job.
 * Called from one thread (serialised contract, shmcomm.h).
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "internal.h"
#include "log.h"
#include "memkind.h"
#include "wait.h"

struct shmc__global shmc__g;

/* Spin budgets (polls before yielding) chosen with bench/ (docs/performance.md). */
#define SPIN_DEDICATED 20000u
#define SPIN_OVERSUBSCRIBED 1u
/* Microseconds a waiter spins while what it waits for runs on other CPUs (wait.h); only
 * when oversubscribed, as a dedicated rank spins SPIN_DEDICATED polls anyway. */
#define SPIN_ELSEWHERE_US 20u

static int probe_single_copy(void)
{
    uint64_t src = 0x5348434d434d41ull, dst = 0;
    struct iovec l = {.iov_base = &dst, .iov_len = sizeof dst};
    struct iovec r = {.iov_base = &src, .iov_len = sizeof src};
    return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)sizeof dst && dst == src;
}

/* CPUs this job may run on: shmrun says (it bound each rank to one core); otherwise our
 * affinity mask, which other launchers leave wide. */
static int job_cpus(void)
{
    const char *s = getenv("SHMC_CPUS");
    if (s && atoi(s) > 0)
        return atoi(s);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static void choose_limits(struct shmc__global *g)
{
    g->eager_limit = g->cfg.eager_limit;
    g->chunk = 0;
    for (int p = 0; p < g->size; p++) {
        if (p == g->rank)
            continue;
        uint32_t maxp = g->peers[p].out.max_payload;
        if (g->eager_limit > maxp)
            g->eager_limit = maxp;
        g->chunk = maxp - 8; /* DATA records carry an 8-byte offset */
        break;
    }
    int oversubscribed = g->size > job_cpus();
    g->spin =
        g->cfg.spin != ~0u ? g->cfg.spin : (oversubscribed ? SPIN_OVERSUBSCRIBED : SPIN_DEDICATED);
    g->yield = g->cfg.yield;
    unsigned far = g->cfg.spin_elsewhere_us != ~0u ? g->cfg.spin_elsewhere_us
                                                   : (oversubscribed ? SPIN_ELSEWHERE_US : 0u);
    g->spin_elsewhere_ns = (uint64_t)far * 1000u;
}

static void free_requests(struct shmc__global *g)
{
    for (uint32_t i = 0; i < g->nreqs; i += 64)
        free(g->reqs[i]); /* each slab of 64 starts at a multiple of 64 */
    free(g->reqs);
    g->reqs = NULL;
    g->nreqs = g->reqs_cap = 0;
}

SHMC_API int shmc_init(shmc_comm **world)
{
    struct shmc__global *g = &shmc__g;
    int rc;

    if (g->state != SHMC_ST_UNINIT)
        return SHMC_ERR_STATE; /* *world untouched: a second call must not clear it */
    if (world)
        *world = NULL;
    if ((rc = shmc__config_load(&g->cfg)) != SHMC_OK)
        return rc;
    shmc__mk_setup(g->cfg.cuda, g->cfg.fake_device);
    if ((rc = shmc__bootstrap(g)) != SHMC_OK)
        goto fail_boot;

    g->fenced = !shmc__wait_register() || (g->arena.hdr->flags & SHMC_ARENA_F_FENCED_WAKE);
    g->me = shmc__arena_cb(&g->arena, (unsigned)g->rank);
    if ((rc = shmc__peers_setup()) != SHMC_OK)
        goto fail_arena;
    g->cma_self = g->cfg.single_copy && probe_single_copy();
    if (g->cfg.single_copy && !g->cma_self)
        SHMC_INFO("process_vm_readv is not available (%s): large messages go through the "
                  "mailboxes",
                  strerror(errno));
    choose_limits(g);

    shmc__mark_state(SHMC_RANK_RUNNING);
    if ((rc = shmc__wait_attached(g)) != SHMC_OK)
        goto fail_peers;
    g->epoch_seen = shmc__load_acquire32(&g->arena.hdr->epoch); /* A4 */
    shmc__peers_refresh(0);

    g->world = (struct shmc__comm){.ctx = 0, .rank = g->rank, .size = g->size, .uid = 1};
    if ((rc = shmc__comm_ids_init(g)) != SHMC_OK)
        goto fail_peers;
    /* What the collectives need before they may start (coll/scratch.c, request.c). */
    if ((rc = shmc__scratch_init()) != SHMC_OK ||
        (rc = shmc__req_reserve(4u * (uint32_t)g->size + 8u)) != SHMC_OK)
        goto fail_memory;
    g->slot = shmc__arena_slot(&g->arena, (unsigned)g->rank);
    g->wsync = shmc__arena_wsync(&g->arena, (unsigned)g->rank);
    g->wround = 0;
    g->xdesc_free = ~0ull; /* SHMC_XDESC_COUNT == 64 entries */
    g->state = SHMC_ST_READY;
    if (world)
        *world = shmc__comm_handle(&g->world);
    return SHMC_OK;

fail_memory:
    free_requests(g);
    shmc__coll_release();
    shmc__comm_release_all();
fail_peers:
    shmc__mark_state(SHMC_RANK_DEAD);
    shmc__peers_teardown();
fail_arena:
    /* Under another launcher the segment still has a name until every rank attached;
     * this job will not assemble now, so do not leave it in /dev/shm. */
    if (g->boot_mode != SHMC_BOOT_SHMRUN && g->arena.name[0])
        shm_unlink(g->arena.name);
    shmc__arena_detach(&g->arena);
fail_boot:
    memset(g, 0, sizeof *g);
    shmc__log_rank = -1;
    return rc;
}

/* ---- finalize -------------------------------------------------------------------------- */

/* Does this process still owe a peer something it can deliver? */
static int obligations_met(void *arg)
{
    (void)arg;
    struct shmc__global *g = &shmc__g;
    for (int p = 0; p < g->size; p++) {
        const struct shmc__peer *pe = &g->peers[p];
        if (p != g->rank && pe->ctrl_head && !pe->gone && !pe->broken)
            return 0;
    }
    for (uint32_t i = 0; i < g->nreqs; i++) {
        const struct shmc__request *r = g->reqs[i];
        if (r->state != SHMC_RS_ACTIVE || r->kind != SHMC_REQ_SEND || r->peer == g->rank)
            continue;
        const struct shmc__peer *pe = &g->peers[r->peer];
        if (pe->gone || pe->broken)
            continue;
        /* A peer that is finalizing posts no more receives: an unmatched RTS to it can
         * never complete, so we do not wait for it. */
        if (r->proto == SHMC_P_RTS && shmc__load_acquire32(&pe->cb->state) >= SHMC_RANK_FINALIZING)
            continue;
        return 0;
    }
    return 1;
}

static void release_all(void)
{
    struct shmc__global *g = &shmc__g;
    /* First: control records still queued may live inside requests. */
    shmc__peers_teardown();
    free_requests(g);
    shmc__comm_release_all();
    shmc__coll_release();
    shmc__unexp_free_all();
    shmc__rndv_release();
    shmc__mk_teardown();
    shmc__arena_detach(&g->arena);
    memset(g, 0, sizeof *g);
    g->state = SHMC_ST_DONE;
    shmc__log_rank = -1;
}

SHMC_API int shmc_finalize(void)
{
    struct shmc__global *g = &shmc__g;
    if (g->state != SHMC_ST_READY)
        return SHMC_ERR_NOT_INIT;
    g->state = SHMC_ST_FINALIZING;
    shmc__mark_state(SHMC_RANK_FINALIZING);
    int rc = shmc__wait_pred(obligations_met, NULL, SHMC_BLK_FINALIZE);
    /* Relaxed: a trigger only. */
    if (shmc__load_relaxed32(&g->arena.hdr->abort))
        rc = SHMC_ERR_ABORTED;
    shmc__mark_state(SHMC_RANK_FINALIZED);
    release_all();
    return rc;
}

/* ---- abort ----------------------------------------------------------------------------- */

SHMC_API void shmc_abort(int exit_code)
{
    struct shmc__global *g = &shmc__g;
    int ec = exit_code & 255;
    if (ec == 0)
        ec = 1;
    fflush(NULL);
    if (g->state == SHMC_ST_READY || g->state == SHMC_ST_FINALIZING) {
        struct shmc__arena_hdr *h = g->arena.hdr;
        uint32_t none = 0;
        if (shmc__cas32(&h->abort, &none, SHMC_ABORT_FLAG | (uint32_t)ec))
            shmc__store_relaxed32(&h->abort_rank, (uint32_t)g->rank);
        shmc__mark_state(SHMC_RANK_DEAD);
        /* Without shmrun nobody else ends the job: stop the peers ourselves. */
        if (g->boot_mode != SHMC_BOOT_SHMRUN) {
            for (int p = 0; p < g->size; p++) {
                pid_t pid = (pid_t)shmc__load_relaxed32(&g->peers[p].cb->pid);
                if (p != g->rank && pid > 0 && !g->peers[p].gone)
                    kill(pid, SIGTERM);
            }
        }
    }
    _exit(ec);
}

/* ---- small queries --------------------------------------------------------------------- */

static int comm_ok(const shmc_comm *h, const struct shmc__comm **c)
{
    if (shmc__g.state != SHMC_ST_READY && shmc__g.state != SHMC_ST_FINALIZING)
        return SHMC_ERR_NOT_INIT;
    *c = shmc__comm_get(h);
    return *c ? SHMC_OK : SHMC_ERR_ARG;
}

SHMC_API int shmc_comm_rank(const shmc_comm *comm)
{
    const struct shmc__comm *c;
    int rc = comm_ok(comm, &c);
    return rc != SHMC_OK ? rc : c->rank;
}

SHMC_API int shmc_comm_size(const shmc_comm *comm)
{
    const struct shmc__comm *c;
    int rc = comm_ok(comm, &c);
    return rc != SHMC_OK ? rc : c->size;
}

SHMC_API size_t shmc_dtype_size(shmc_dtype dtype)
{
    return shmc__dtype_size(dtype);
}
