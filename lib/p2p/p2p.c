/*
 * The layer's start and end (p2p.h). shmc__p2p_init connects every peer and waits until
 * the job has assembled; shmc__p2p_finalize delivers what this process still owes its
 * peers and releases everything. Called by shmc_init and shmc_finalize (boot/).
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "p2p/coop.h"
#include "p2p/outq.h"
#include "p2p/p2p.h"

#include "base/config.h"
#include "base/machine.h"
#include "p2p/progress.h"
#include "p2p/rndv.h"

/* The largest DATA record of a stream: a 64 KiB ring's quarter, as when the streams were
 * measured; from larger rings a larger chunk would only delay the receiver's first copy. */
#define SHMC_STREAM_CHUNK_MAX ((16u << 10) - 16u)

/* The waits' budgets (base/config.h: SHMC_SPIN_AUTO_OWN ...): polls before yielding and
 * yields before sleeping, chosen with make bench-compare and bench/osu_compare.sh at 2 and
 * 4 ranks. Where ranks outnumber CPUs a waiter yields longer before sleeping: a sleeper
 * needs a wake-up and a context switch to go on, and at 4 ranks on 2 CPUs some runs of a
 * collective then took several times as long as others (bench/osu_compare.sh at 4 ranks,
 * round against round); its yields are a few milliseconds where other ranks want the CPU
 * (the scheduler runs them between our yields) and about one where none does. There too a
 * waiter spins a few microseconds while what it waits for runs on other CPUs
 * (doorbell.h), as a rank with a CPU of its own spins its long budget anyway. Only where
 * every rank has a CPU do waits spin longer after slow wake-ups (wait.c): on a shared
 * host both ranks of a pair slept in every call while wake-ups took up to a few
 * milliseconds (docs/design.md, "Waiting"); where ranks share CPUs spinning only delays
 * the peer. */

/* The eager limit and the size from which both sides copy a message (coop.h), where
 * SHMC_EAGER_LIMIT leaves them to the library. A message below the eager limit crosses
 * between the cores twice, through the mailbox, one copy after the other; a single copy
 * crosses once, after a system call and a round trip. On AMD's CPUs the mailbox was the
 * faster up to 32 KiB; on Intel's (the Xeons of family 6 models 167 and 207) single copy
 * was from 16 KiB, both sides copying, in latency and two-way bandwidth (one-way
 * bandwidth at 16 KiB fell, to about Open MPI's): docs/design.md, "Message protocols",
 * has the measurements. Not where ranks share CPUs: a send by single copy waits for its
 * receiver to be scheduled, where the mailbox lets it go on. A smaller eager limit also
 * buffers less of a send whose receive is not yet posted: 8 KiB there (Open MPI's
 * shared-memory transport: 4 KiB). Where the job began with its CPUs far apart (the
 * arena's round trip at or above SHMC_FAR_NS), each line of a mailbox that the sender has
 * just written costs the receiver a slow round trip, and the receiver's single copy
 * reading the sender's buffer was two to three times as fast from 16 to 32 KiB on an AMD
 * EPYC: there too the eager limit is 8 KiB, while both sides copy from 64 KiB as before
 * (the sender's half, written into the far receiver's buffer, was no faster than the
 * mailbox). The state is the one the job began in, as the collectives' rules take it. */
#define COOP_MIN_INTEL ((size_t)16 << 10)

static void choose_limits(struct shmc__p2p *p, const struct shmc__p2p_params *c)
{
    int oversubscribed = p->size > shmc__job_cpus();
    int intel_own = c->maker == SHMC_MAKER_INTEL && !oversubscribed;
    int small = intel_own || (c->far && !oversubscribed);
    p->far = c->far;
    p->eager_limit = c->eager_limit != (size_t)~0ull ? c->eager_limit
                     : small                         ? (size_t)SHMC_EAGER_AUTO_SMALL
                                                     : (size_t)SHMC_EAGER_AUTO;
    p->coop_min = intel_own ? COOP_MIN_INTEL : SHMC_COOP_MIN;
    p->single_copy_min = c->single_copy_min != (size_t)~0ull
                             ? c->single_copy_min
                             : shmc__single_copy_min_auto(c->sc_cost_pct, c->far);
    p->chunk = 0;
    for (int q = 0; q < p->size; q++) {
        if (q == p->rank)
            continue;
        uint32_t maxp = p->peers[q].ep.out.max_payload;
        /* A ring holds at least 8 messages at the eager limit, so a window of them streams
         * (osu_bw's window of 64 under bench/osu_compare.sh): 64 KiB rings keep the 8 KiB
         * limit. An
         * eighth of a ring is always below a record's largest payload (a quarter, less
         * the header). */
        if (p->eager_limit > p->peers[q].ep.out.size / 8)
            p->eager_limit = p->peers[q].ep.out.size / 8;
        /* DATA records carry an 8-byte offset. */
        p->chunk = (maxp < SHMC_STREAM_CHUNK_MAX ? maxp : SHMC_STREAM_CHUNK_MAX) - 8;
        break;
    }
    p->spin =
        c->spin != ~0u ? c->spin : (oversubscribed ? SHMC_SPIN_AUTO_SHARED : SHMC_SPIN_AUTO_OWN);
    p->yield = c->yield != ~0u ? c->yield
                               : (oversubscribed ? SHMC_YIELD_AUTO_SHARED : SHMC_YIELD_AUTO_OWN);
    unsigned far = c->spin_elsewhere_us != ~0u ? c->spin_elsewhere_us
                   : oversubscribed            ? SHMC_SPIN_ELSEWHERE_AUTO_SHARED_US
                                               : SHMC_SPIN_ELSEWHERE_AUTO_OWN_US;
    p->spin_elsewhere_ns = (uint64_t)far * 1000u;
    unsigned more = c->spin_more_us != ~0u ? c->spin_more_us
                    : oversubscribed       ? SHMC_SPIN_MORE_AUTO_SHARED_US
                                           : SHMC_SPIN_MORE_AUTO_OWN_US;
    p->spin_more_max_ns = (uint64_t)more * 1000u;
    p->spin_more_ns = 0;
}

static void teardown(struct shmc__p2p *p)
{
    if (p->peers) {
        for (int q = 0; q < p->size; q++) {
            if (q == p->rank)
                continue;
            /* First: queued control records may live inside requests. */
            shmc__outq_discard(p, q);
            shmc__ep_disconnect(&p->peers[q].ep);
        }
        free(p->peers);
    }
    shmc__reqs_release(&p->reqs);
    shmc__comms_release(p);
    shmc__unexp_free_all(&p->match);
    shmc__rndv_release(p);
    memset(p, 0, sizeof *p);
}

/* Jobs this process joined (shmc_finalize, then init again): handles of requests and
 * communicators start at a new generation in each, so one kept from a job the process
 * left never names something of the next. */
static uint32_t joins;

int shmc__p2p_init(struct shmc__p2p *p, struct shmc__arena *a, int rank, int size,
                   const struct shmc__p2p_params *params)
{
    memset(p, 0, sizeof *p);
    const uint32_t gen0 = 1u + (joins++ << 16); /* odd: never 0 */
    p->reqs.gen0 = gen0;
    p->rank = rank;
    p->size = size;
    p->arena = a;
    p->me = shmc__arena_cb(a, (unsigned)rank);
    p->supervised = params->supervised;
    p->single_copy = params->single_copy;
    p->hang_timeout_s = params->hang_timeout_s;
    shmc__match_init(&p->match);
    shmc__coop_init(&p->coop);
    shmc__list_init(&p->cma_active);
    shmc__list_init(&p->driven);
    shmc__list_init(&p->dev_active);
    p->owner_ok = shmc__membarrier_private_register();
    int fenced = !shmc__wait_register() || (a->flags & SHMC_ARENA_F_FENCED_WAKE);
    shmc__tp_init(&p->tp, a, rank, size, fenced, params->single_copy);

    p->peers = calloc((size_t)size, sizeof *p->peers);
    if (!p->peers)
        return SHMC_ERR_NOMEM;
    for (int q = 0; q < size; q++) {
        struct shmc__peer *pe = &p->peers[q];
        shmc__list_init(&pe->matchq);
        shmc__list_init(&pe->streams);
        shmc__list_init(&pe->ctrl);
        if (q == rank)
            continue;
        int rc = shmc__ep_connect(&p->tp, &pe->ep, q);
        if (rc != SHMC_OK)
            return rc;
        p->pumped |= pe->ep.ops->progress != NULL;
    }
    choose_limits(p, params);
    return shmc__comms_init(p, gen0);
}

int shmc__p2p_start(struct shmc__p2p *p, unsigned attach_timeout_s)
{
    shmc__job_set_state(p->arena, (unsigned)p->rank, SHMC_RANK_RUNNING);
    int rc = shmc__job_wait_attached(p->arena, attach_timeout_s);
    if (rc != SHMC_OK)
        return rc;
    p->epoch_seen = shmc__load_acquire32(&p->arena->hdr->epoch); /* A4 */
    shmc__peers_refresh(p, 0);
    /* The epoch read above may already count events made by ranks that started sooner:
     * a quit, a cut (with two cores, a rank can start seconds after the others, who may
     * meanwhile have failed a collective it will join). The first look at the job
     * (shmc__check_job) reads them all, whatever the epoch says. */
    p->recheck = 1;
    p->phase = SHMC_P2P_READY;
    return SHMC_OK;
}

void shmc__p2p_fail(struct shmc__p2p *p)
{
    if (p->arena)
        shmc__job_set_state(p->arena, (unsigned)p->rank, SHMC_RANK_DEAD);
    teardown(p);
}

/* Does this process still owe a peer something it can deliver? */
static int obligations_met(void *arg)
{
    const struct shmc__p2p *p = arg;
    for (int q = 0; q < p->size; q++) {
        const struct shmc__peer *pe = &p->peers[q];
        if (q != p->rank && !shmc__list_empty(&pe->ctrl) && !pe->ep.gone && !pe->ep.broken)
            return 0;
    }
    for (uint32_t i = 0; i < p->reqs.n; i++) {
        const struct shmc__request *r = p->reqs.table[i];
        if (r->state != SHMC_RS_ACTIVE || r->kind != SHMC_REQ_SEND || r->peer == p->rank)
            continue;
        const struct shmc__ep *ep = &p->peers[r->peer].ep;
        if (ep->gone || ep->broken)
            continue;
        /* A peer that is finalizing posts no more receives: an unmatched RTS to it can
         * never complete, so we do not wait for it. */
        if (r->proto == SHMC_P_RTS && shmc__load_acquire32(&ep->cb->state) >= SHMC_RANK_FINALIZING)
            continue;
        return 0;
    }
    return 1;
}

int shmc__p2p_finalize(struct shmc__p2p *p)
{
    p->phase = SHMC_P2P_FINALIZING;
    shmc__job_set_state(p->arena, (unsigned)p->rank, SHMC_RANK_FINALIZING);
    int rc = shmc__wait_pred(p, obligations_met, NULL, p, SHMC_BLK_FINALIZE, 0);
    if (shmc__job_aborted(p->arena))
        rc = SHMC_ERR_ABORTED;
    shmc__job_set_state(p->arena, (unsigned)p->rank, SHMC_RANK_FINALIZED);
    teardown(p);
    return rc;
}
