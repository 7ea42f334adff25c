/*
 * The hang report: for every rank, what it is blocked on inside shmcomm (operation, peer,
 * tag, communicator, bytes, for how long), read from the blk_* fields of its control
 * block, then the wait-for cycles among the ranks and the ranks that wait for a peer that
 * has already left. shmrun prints it when --timeout expires, before ending the job, and
 * on SIGUSR1, without stopping anything; a rank prints it under SHMC_TIMEOUT when no
 * rank has made progress for that long (p2p/wait.c), and then aborts the job.
 *
 * The fields are diagnostics, written with relaxed stores on a rank's slow path (after
 * its spin, set_blocked in p2p/wait.c): a rank that moves on while we read may show
 * a mix of two waits. A report is a snapshot, not a proof; a cycle it names is one that
 * held for as long as the ranks in it had been blocked.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/atomics.h"
#include "base/callword.h"
#include "base/clock.h"
#include "shm/hang.h"

struct blk {
    unsigned op, state;
    int peer; /* a rank of the job, or -1 (any, or none) */
    int tag;
    uint32_t ctx;
    uint64_t bytes, since_ns;
    uint64_t call_w[2]; /* the collective call it waits in, where it published one; else 0 */
    char run; /* the process's state letter in /proc (R, S, T, ...), 0 unknown */
};

/* Stopped: it cannot run until someone sends SIGCONT, whatever it was doing. */
static int stopped(const struct blk *b)
{
    return b->run == 'T' || b->run == 't';
}

/* Rank r's control block, and with proc also its process's state (a read of /proc; the
 * pid is the caller's own copy, arena.h, never shared memory's). */
static struct blk read_blk(const struct shmc__arena *a, int n, int r, int proc)
{
    const struct shmc__rank_cb *cb = shmc__arena_cb(a, (unsigned)r);
    struct blk b;
    b.run = proc ? shmc__proc_state(a->pids[r]) : 0;
    /* Relaxed: diagnostics only (see above). */
    b.state = shmc__load_relaxed32(&cb->state);
    b.op = shmc__load_relaxed32(&cb->blk_op);
    uint32_t peer = shmc__load_relaxed32(&cb->blk_peer);
    b.peer = peer < (uint32_t)n ? (int)peer : -1;
    b.tag = (int)shmc__load_relaxed32(&cb->blk_tag);
    b.ctx = shmc__load_relaxed32(&cb->blk_ctx);
    b.bytes = shmc__load_relaxed64(&cb->blk_bytes);
    b.since_ns = shmc__load_relaxed64(&cb->blk_since_ns);
    /* The call it waits in (p2p/incall.c), read as its members read it: A12 pairs with R12
     * there; words read while call_at moved are another call's, and dropped. */
    uint64_t at = shmc__load_acquire64(&cb->call_at);
    b.call_w[0] = shmc__load_relaxed64(&cb->call_w[0]);
    b.call_w[1] = shmc__load_relaxed64(&cb->call_w[1]);
    atomic_thread_fence(memory_order_acquire);
    if (!at || shmc__load_relaxed64(&cb->call_at) != at)
        b.call_w[0] = b.call_w[1] = 0;
    return b;
}

static const char *size_text(uint64_t b, char *buf, size_t len)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    uint64_t whole = b;
    while (whole >= 1024 && whole % 1024 == 0 && u < 4) {
        whole /= 1024;
        u++;
    }
    if (whole < 1024 || u == 4) {
        snprintf(buf, len, "%llu %s", (unsigned long long)whole, unit[u]);
        return buf;
    }
    double v = (double)b;
    for (u = 0; v >= 1024 && u < 4; u++)
        v /= 1024;
    snprintf(buf, len, "%.1f %s", v, unit[u]);
    return buf;
}

/* The kind of collective call a blocked rank waits in: a collective's own wait, by the
 * tag it publishes (arena.h), or one of its messages, by their context and tag. */
enum { NOT_COLL, BLOCKING, NONBLOCKING };
static int coll_kind(const struct blk *b)
{
    unsigned off = b->ctx % SHMC_CTX_GROUP;
    int blocking_tag = b->tag >= 0 && ((uint32_t)b->tag & SHMC_BLK_COLL_BLOCKING);
    if (b->op == SHMC_BLK_COLL)
        return b->tag < 0 || blocking_tag ? BLOCKING : NONBLOCKING;
    if (b->op != SHMC_BLK_SEND && b->op != SHMC_BLK_RECV)
        return NOT_COLL;
    if (off == SHMC_CTX_COLL)
        return BLOCKING;
    if (off == SHMC_CTX_NBC)
        return blocking_tag ? BLOCKING : NONBLOCKING;
    return NOT_COLL;
}

static const char *const kind_text[] = {"", "a blocking collective", "a nonblocking collective"};

/* "waits to send 64 MiB to rank 1" and the like; a collective's message says in which kind
 * of collective ("... from rank 1 in a blocking collective"). */
static const char *wait_text(const struct blk *b, char *buf, size_t len)
{
    char sz[32], who[32];
    if (b->peer >= 0)
        snprintf(who, sizeof who, "rank %d", b->peer);
    else
        snprintf(who, sizeof who, "any rank");
    size_text(b->bytes, sz, sizeof sz);
    switch (b->op) {
    case SHMC_BLK_SEND:
        snprintf(buf, len, "waits to send %s to %s%s%s", sz, who, coll_kind(b) ? " in " : "",
                 kind_text[coll_kind(b)]);
        break;
    case SHMC_BLK_RECV:
        snprintf(buf, len, "waits to receive up to %s from %s%s%s", sz, who,
                 coll_kind(b) ? " in " : "", kind_text[coll_kind(b)]);
        break;
    case SHMC_BLK_COLL:
        snprintf(buf, len, "waits in %s%s%s", kind_text[coll_kind(b)], b->peer >= 0 ? " for " : "",
                 b->peer >= 0 ? who : "");
        break;
    case SHMC_BLK_WIN:
        snprintf(buf, len, "waits for a window's lock%s%s", b->peer >= 0 ? " on " : "",
                 b->peer >= 0 ? who : "");
        break;
    case SHMC_BLK_FINALIZE:
        snprintf(buf, len, "waits in shmc_finalize to deliver what it owes%s%s",
                 b->peer >= 0 ? " to " : "", b->peer >= 0 ? who : "");
        break;
    default:
        snprintf(buf, len, "waits (operation %u)", b->op);
        break;
    }
    return buf;
}

/* Context ids come in groups, one per communicator in the order they were made
 * (arena.h): the first group is the world's. */
static const char *comm_text(uint32_t ctx, char *buf, size_t len)
{
    if (ctx / SHMC_CTX_GROUP == 0)
        snprintf(buf, len, "the world");
    else
        snprintf(buf, len, "communicator #%u", ctx / SHMC_CTX_GROUP);
    return buf;
}

static const char *state_text(unsigned s)
{
    switch (s) {
    case SHMC_RANK_EMPTY:
        return "not attached yet";
    case SHMC_RANK_RUNNING:
        return "running";
    case SHMC_RANK_FINALIZING:
        return "finalizing";
    case SHMC_RANK_FINALIZED:
        return "finalized";
    case SHMC_RANK_DEAD:
        return "dead";
    default:
        return "in no known state (its control block was overwritten)";
    }
}

/* Waiting inside shmcomm for someone else: a stopped rank is not waiting, it is stuck. */
static int blocked(const struct blk *b)
{
    return b->op != SHMC_BLK_NONE && b->state <= SHMC_RANK_FINALIZING && !stopped(b);
}

/* A rank's process is there: the caller knows (shmrun reaps them), or its state says. */
static int running(const struct blk *b, const int *alive, int r)
{
    return alive ? alive[r] : b->state <= SHMC_RANK_FINALIZING;
}

/* Is rank q blocked in a collective of kind k on the communicator of context group g? */
static int in_coll(const struct blk *b, const int *alive, int q, int k, uint32_t g)
{
    return running(&b[q], alive, q) && blocked(&b[q]) && coll_kind(&b[q]) == k &&
           b[q].ctx / SHMC_CTX_GROUP == g;
}

/* Ranks blocked in collectives of both kinds on one communicator: if they are in the same
 * call, the members made it in different forms, which never match (each kind has its own
 * numbering: coll/sched.h), and no rank can tell it from a wait for a late member. Said
 * once per communicator, at its lowest rank blocked in a blocking collective. */
static void mixed_kinds(const struct blk *b, int n, const int *alive, FILE *f, const char *prefix)
{
    for (int r = 0; r < n; r++) {
        uint32_t g = b[r].ctx / SHMC_CTX_GROUP;
        int first = in_coll(b, alive, r, BLOCKING, g), other = 0;
        for (int q = 0; q < r && first; q++)
            first = !in_coll(b, alive, q, BLOCKING, g);
        for (int q = 0; q < n && first && !other; q++)
            other = in_coll(b, alive, q, NONBLOCKING, g);
        if (!other)
            continue;
        char comm[40], who[2][256];
        int count[2] = {0, 0};
        for (int k = BLOCKING; k <= NONBLOCKING; k++) {
            size_t at = 0;
            who[k - 1][0] = 0;
            for (int q = 0; q < n; q++)
                if (in_coll(b, alive, q, k, g) && at < sizeof who[0] - 12)
                    at += (size_t)snprintf(who[k - 1] + at, sizeof who[0] - at, "%s%d",
                                           count[k - 1]++ ? ", " : "", q);
        }
        fprintf(f,
                "%son %s, %s %s %s in a blocking collective and %s %s in a nonblocking one: a "
                "blocking collective call is matched only by the same blocking call on every "
                "member, a nonblocking one by the nonblocking call\n",
                prefix, comm_text(b[r].ctx, comm, sizeof comm), count[0] > 1 ? "ranks" : "rank",
                who[0], count[0] > 1 ? "wait" : "waits", count[1] > 1 ? "ranks" : "rank", who[1]);
    }
}

void shmc__hang_report(const struct shmc__arena *a, int n, const int *alive, FILE *f,
                       const char *prefix)
{
    struct blk *b = calloc((size_t)n, sizeof *b);
    int *mark = calloc((size_t)n, sizeof *mark);
    if (!b || !mark) {
        fprintf(f, "%sno hang report: out of memory\n", prefix);
        free(b);
        free(mark);
        return;
    }
    uint64_t now = shmc__now_ns();
    fprintf(f, "%swhat each rank is doing:\n", prefix);
    for (int r = 0; r < n; r++) {
        b[r] = read_blk(a, n, r, 1);
        char what[160], comm[40];
        if (!running(&b[r], alive, r))
            fprintf(f, "  rank %d: exited (%s)\n", r, state_text(b[r].state));
        else if (stopped(&b[r]))
            fprintf(f,
                    "  rank %d: STOPPED (process state %c: a SIGSTOP, SIGTSTP or a debugger)%s%s\n",
                    r, b[r].run, b[r].op != SHMC_BLK_NONE ? "; inside shmcomm it " : "",
                    b[r].op != SHMC_BLK_NONE ? wait_text(&b[r], what, sizeof what) : "");
        else if (blocked(&b[r])) {
            /* A collective's tags are the library's: wait_text says its kind instead. */
            char tag[24] = "";
            if (!coll_kind(&b[r]))
                snprintf(tag, sizeof tag, "tag %d, ", b[r].tag);
            /* The call itself, where the rank published it: which of the calls a program
             * makes is stuck, and members in different calls show it. */
            char call[176] = "";
            if (b[r].call_w[0] | b[r].call_w[1]) {
                call[0] = ':';
                call[1] = ' ';
                shmc__call_describe(b[r].call_w, call + 2, sizeof call - 2);
            }
            fprintf(f, "  rank %d: %s (%son %s)%s, for %.1f s\n", r,
                    wait_text(&b[r], what, sizeof what), tag,
                    comm_text(b[r].ctx, comm, sizeof comm), call,
                    b[r].since_ns && now > b[r].since_ns ? (double)(now - b[r].since_ns) / 1e9
                                                         : 0.0);
        } else
            fprintf(f, "  rank %d: %s, not blocked in shmcomm\n", r, state_text(b[r].state));
    }

    mixed_kinds(b, n, alive, f, prefix);

    /* Each blocked rank waits for at most one peer, so the wait-for graph has out-degree
     * one and every cycle is found by walking from each rank: mark 1 = on the current
     * walk, 2 = done. */
    int cycles = 0;
    for (int s = 0; s < n; s++) {
        int r = s;
        while (r >= 0 && !mark[r] && running(&b[r], alive, r) && blocked(&b[r])) {
            mark[r] = 1;
            r = b[r].peer;
        }
        if (r >= 0 && mark[r] == 1) {
            char what[160];
            fprintf(f, "%sdeadlock: rank %d %s", prefix, r, wait_text(&b[r], what, sizeof what));
            for (int q = b[r].peer; q != r; q = b[q].peer)
                fprintf(f, ", which %s", wait_text(&b[q], what, sizeof what));
            fprintf(f, "\n");
            cycles++;
        }
        for (r = s; r >= 0 && mark[r] == 1; r = b[r].peer)
            mark[r] = 2;
    }
    for (int r = 0; r < n; r++) {
        int p = b[r].peer;
        if (!running(&b[r], alive, r) || !blocked(&b[r]) || p < 0)
            continue;
        if (!running(&b[p], alive, p) || b[p].state >= SHMC_RANK_FINALIZED) {
            char what[160];
            fprintf(f, "%srank %d %s, which has already left the job (%s)\n", prefix, r,
                    wait_text(&b[r], what, sizeof what), state_text(b[p].state));
        }
    }
    if (!cycles)
        fprintf(f, "%sno wait-for cycle among the blocked ranks\n", prefix);
    /* The culprits: ranks that cannot run at all. */
    for (int r = 0; r < n; r++)
        if (running(&b[r], alive, r) && stopped(&b[r]))
            fprintf(f,
                    "%srank %d is stopped (pid %d): no rank can make progress with it until it "
                    "gets SIGCONT\n",
                    prefix, r, (int)a->pids[r]);
    free(b);
    free(mark);
}

int shmc__hang_reporter(const struct shmc__arena *a, int n, uint64_t timeout_ns, uint64_t now)
{
    /* Called after every sleep slice under SHMC_TIMEOUT: /proc is read only for a rank
     * that would otherwise decide (one not blocked long enough, or the candidate). */
    int reporter = -1;
    for (int r = 0; r < n; r++) {
        struct blk b = read_blk(a, n, r, 0);
        if (b.state >= SHMC_RANK_FINALIZED && b.state <= SHMC_RANK_DEAD)
            continue; /* left the job */
        if (b.state > SHMC_RANK_DEAD || b.op > SHMC_BLK_LAST ||
            (b.op != SHMC_BLK_NONE && b.since_ns > now + 1000000000ull))
            return -2; /* values no rank writes */
        int stuck = blocked(&b) && b.since_ns && now >= b.since_ns + timeout_ns;
        if (stuck && reporter >= 0)
            continue;
        b.run = shmc__proc_state(a->pids[r]);
        if (stopped(&b))
            continue; /* stuck, wherever it stopped, and unable to report */
        if (!stuck)
            return -1;
        reporter = r;
    }
    return reporter;
}
