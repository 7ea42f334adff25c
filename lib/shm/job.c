/*
 * Rank states, the epoch and the abort word (job.h). Every function here is a slow path:
 * it runs when a rank starts, leaves or dies, or when the job ends.
 */
#include "shm/job.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "shm/doorbell.h"
#include "shm/fdpass.h"
#include "shmcomm.h"

/* Wakes every rank but me that may be asleep: a full fence, then the doorbells of those
 * whose sleeping flag is up (doorbell.h). */
static void wake_all(struct shmc__arena *a, unsigned me)
{
    shmc__fence_seq_cst();
    for (unsigned p = 0; p < a->lay.nranks; p++) {
        struct shmc__rank_cb *cb = shmc__arena_cb(a, p);
        if (p != me && shmc__load_relaxed32(&cb->sleeping))
            shmc__doorbell_ring(cb);
    }
}

void shmc__job_set_state(struct shmc__arena *a, unsigned me, uint32_t state)
{
    /* R4 pairs with A4: the new state is visible to whoever sees the new epoch. */
    shmc__store_release32(&shmc__arena_cb(a, me)->state, state);
    shmc__fetch_add32(&a->hdr->epoch, 1);
    wake_all(a, me);
}

int shmc__job_claim_dead(struct shmc__arena *a, unsigned me, unsigned r, uint32_t seen)
{
    /* Only one observer marks it; everyone learns through the epoch. */
    if (!shmc__cas32(&shmc__arena_cb(a, r)->state, &seen, SHMC_RANK_DEAD))
        return 0;
    shmc__fetch_add32(&a->hdr->epoch, 1); /* R4 */
    wake_all(a, me);
    return 1;
}

/* Bumps the epoch (R4: states written before it are visible to whoever sees it) and
 * wakes every rank, including any still waiting for the others to attach. */
static void announce(struct shmc__arena *a)
{
    struct shmc__arena_hdr *h = a->hdr;
    shmc__fetch_add32(&h->epoch, 1);
    for (unsigned r = 0; r < a->lay.nranks; r++)
        shmc__doorbell_ring(shmc__arena_cb(a, r));
    syscall(SYS_futex, &h->attached, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void shmc__job_mark_dead(struct shmc__arena *a, unsigned r)
{
    struct shmc__rank_cb *cb = shmc__arena_cb(a, r);
    uint32_t st = shmc__load_acquire32(&cb->state);
    if (st == SHMC_RANK_FINALIZED || st == SHMC_RANK_DEAD)
        return;
    shmc__store_release32(&cb->state, SHMC_RANK_DEAD); /* R4, published by announce */
    announce(a);
}

int shmc__job_finalized(const struct shmc__arena *a, unsigned r)
{
    return shmc__load_acquire32(&shmc__arena_cb(a, r)->state) == SHMC_RANK_FINALIZED;
}

static uint32_t abort_word(int code)
{
    return SHMC_ABORT_FLAG | (uint32_t)((code & 255) ? (code & 255) : 1);
}

int shmc__job_abort(struct shmc__arena *a, int code)
{
    uint32_t none = 0;
    int set = shmc__cas32(&a->hdr->abort, &none, abort_word(code));
    announce(a);
    return set;
}

int shmc__job_abort_from(struct shmc__arena *a, unsigned me, int code, int stop_peers)
{
    struct shmc__arena_hdr *h = a->hdr;
    uint32_t none = 0, word = abort_word(code);
    if (shmc__cas32(&h->abort, &none, word))
        shmc__store_relaxed32(&h->abort_rank, me);
    shmc__job_set_state(a, me, SHMC_RANK_DEAD);
    /* Without a launcher nobody else ends the job: stop the peers ourselves. The pids are
     * our own copy (arena.h), never what shared memory says now: a scribbled pid must not
     * make us signal a stranger. */
    for (unsigned p = 0; stop_peers && p < a->lay.nranks; p++) {
        const struct shmc__rank_cb *cb = shmc__arena_cb(a, p);
        pid_t pid = a->pids[p];
        uint32_t st = shmc__load_acquire32(&cb->state);
        if (p != me && pid > 0 && st != SHMC_RANK_FINALIZED && st != SHMC_RANK_DEAD) {
            kill(pid, SIGTERM);
            kill(pid, SIGCONT); /* a stopped rank acts on SIGTERM only once it runs */
        }
    }
    return (int)(word & 255);
}

/* Is a process gone? A pid reused since is told apart by its start time, where known. */
static int process_gone(int pid, uint64_t start)
{
    if (pid <= 0)
        return 0;
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return 1;
    uint64_t now = start ? shmc__proc_start_time(pid) : 0;
    return start && now && now != start;
}

/* While the job assembles: has the process that created the arena, or a rank that has
 * joined, ended? Then the job will never be complete: say who, at once, rather than at
 * SHMC_ATTACH_TIMEOUT. The pids of joined ranks are read from their control blocks (only
 * to probe them; the copy used later is taken once all have joined). */
static int assembly_failed(const struct shmc__arena *a, unsigned size, int report)
{
    if (a->creator_pid != (int32_t)getpid() && process_gone(a->creator_pid, a->creator_start)) {
        if (report)
            SHMC_ERROR("the process that created the job's shared memory (pid %d, local rank 0) "
                       "ended before every rank had joined; the job cannot start",
                       (int)a->creator_pid);
        return SHMC_ERR_PEER_DEAD;
    }
    for (unsigned p = 0; p < size; p++) {
        const struct shmc__rank_cb *cb = shmc__arena_cb(a, p);
        uint32_t pid = shmc__load_relaxed32(&cb->pid);
        int dead = shmc__load_acquire32(&cb->state) == SHMC_RANK_DEAD;
        if (!dead && !(pid && pid <= INT32_MAX && process_gone((int)pid, 0)))
            continue;
        if (report && pid)
            SHMC_ERROR("rank %u (pid %u) joined the job but ended before every rank had "
                       "joined; the job cannot start",
                       p, pid);
        else if (report)
            SHMC_ERROR("rank %u ended before it joined the job", p);
        return SHMC_ERR_PEER_DEAD;
    }
    return SHMC_OK;
}

/* Serves the ranks that asked for the arena since the last look; while some have not
 * been served yet, waits up to 50 ms for the next to ask (a poll on the socket) and
 * returns 1, else returns 0 without waiting. */
static int serve(struct shmc__arena *a, unsigned *served, unsigned size)
{
    if (a->serve_fd < 0)
        return 0;
    *served += (unsigned)shmc__fdpass_serve(a->serve_fd, a->fd);
    if (*served + 1 >= size)
        return 0; /* then the attach count's futex, below, says when they are done */
    struct pollfd pf = {.fd = a->serve_fd, .events = POLLIN};
    poll(&pf, 1, 50);
    return 1;
}

int shmc__job_wait_attached(struct shmc__arena *a, unsigned timeout_s)
{
    struct shmc__arena_hdr *h = a->hdr;
    unsigned size = a->lay.nranks, served = 0;
    uint64_t deadline = shmc__now_ns() + (uint64_t)timeout_s * 1000000000ull;
    for (;;) {
        /* Acquire: pairs with the attach counter's fetch_add; claimed pids are visible. */
        uint32_t n = shmc__load_acquire32(&h->attached);
        if (n >= size) {
            if (a->serve_fd >= 0) { /* nobody else will ask */
                close(a->serve_fd);
                a->serve_fd = -1;
            }
            /* Every rank claimed its control block with its pid before counting itself:
             * copy them now, once (arena.h). */
            for (unsigned p = 0; p < size; p++)
                a->pids[p] = (int32_t)shmc__load_relaxed32(&shmc__arena_cb(a, p)->pid);
            return SHMC_OK;
        }
        if (shmc__job_aborted(a))
            return SHMC_ERR_ABORTED;
        /* A rank that ended after the count was read may have been a fast one leaving a
         * job that had just assembled: look at the count again before blaming it. */
        if (assembly_failed(a, size, 0) != SHMC_OK && shmc__load_acquire32(&h->attached) < size)
            return assembly_failed(a, size, 1);
        if (shmc__now_ns() > deadline) {
            char missing[256] = "";
            size_t len = 0;
            for (unsigned p = 0; p < size && len + 12 < sizeof missing; p++)
                if (!shmc__load_relaxed32(&shmc__arena_cb(a, p)->pid))
                    len += (size_t)snprintf(missing + len, sizeof missing - len, " %u", p);
            SHMC_ERROR("only %u of %u ranks joined within %u s (SHMC_ATTACH_TIMEOUT); "
                       "missing:%s",
                       n, size, timeout_s, missing);
            return SHMC_ERR_TIMEOUT;
        }
        if (serve(a, &served, size))
            continue;
        struct timespec ts = {.tv_sec = 0, .tv_nsec = 50 * 1000000L};
        syscall(SYS_futex, &h->attached, FUTEX_WAIT, n, &ts, NULL, 0);
    }
}

void shmc__job_cut(struct shmc__arena *a, unsigned me, unsigned peer)
{
    struct shmc__rank_cb *cb = shmc__arena_cb(a, peer);
    /* Release (and R4 below): whoever sees the new epoch and reads the word sees the bit. */
    shmc__fetch_or64(&cb->cut[me / 64], 1ull << (me % 64));
    shmc__fetch_add32(&a->hdr->epoch, 1); /* R4 */
    shmc__doorbell_ring(cb);
}

int shmc__job_cut_by(const struct shmc__arena *a, unsigned me, unsigned peer)
{
    const struct shmc__rank_cb *cb = shmc__arena_cb(a, me);
    /* A4 taken by the caller: the bit is as current as the epoch it saw. */
    return (int)((shmc__load_relaxed64(&cb->cut[peer / 64]) >> (peer % 64)) & 1);
}

void shmc__job_quit(struct shmc__arena *a, unsigned me, uint32_t ctx, int err)
{
    struct shmc__rank_cb *cb = shmc__arena_cb(a, me);
    uint64_t w = (uint64_t)ctx | (uint64_t)(uint8_t)-err << 32;
    /* R13 (and R4 below): whoever sees the new epoch and reads the word sees it. */
    shmc__store_release64(&cb->quit[a->quit_next++ % SHMC_QUIT_WORDS], w);
    shmc__fetch_add32(&a->hdr->epoch, 1); /* R4 */
    wake_all(a, me);
}

/* Rank r's quit word for ctx, and its index in *at; 0 if r has not quit ctx. */
static uint64_t quit_word_of(const struct shmc__arena *a, unsigned r, uint32_t ctx, unsigned *at)
{
    for (unsigned i = 0; i < SHMC_QUIT_WORDS; i++) {
        uint64_t w = shmc__job_quit_word(a, r, i);
        if (w && (uint32_t)w == ctx) {
            *at = i;
            return w;
        }
    }
    return 0;
}

void shmc__job_quit_settle(struct shmc__arena *a, unsigned me, uint32_t ctx)
{
    unsigned i;
    uint64_t w = quit_word_of(a, me, ctx, &i);
    if (!w || (w & SHMC_QUIT_SETTLED))
        return;
    /* R13 (and R4 below): this rank's copies to and from the members' buffers are over
     * before anyone sees the bit. */
    shmc__store_release64(&shmc__arena_cb(a, me)->quit[i], w | SHMC_QUIT_SETTLED);
    shmc__fetch_add32(&a->hdr->epoch, 1); /* R4 */
    wake_all(a, me);
}

int shmc__job_quit_settled(const struct shmc__arena *a, unsigned r, uint32_t ctx)
{
    unsigned i;
    return (quit_word_of(a, r, ctx, &i) & SHMC_QUIT_SETTLED) != 0;
}

int shmc__job_quit_of(const struct shmc__arena *a, unsigned r, uint32_t ctx)
{
    unsigned i;
    return -(int)(uint8_t)(quit_word_of(a, r, ctx, &i) >> 32);
}
