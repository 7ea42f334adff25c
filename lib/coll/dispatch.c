/*
 * Choosing an algorithm for a call, and running it: SHMC_ALGO_<NAME> when set (or
 * shmc_config_set), otherwise the first of the dispatch rules that matches the call
 * (lib/coll/dispatch.rules, rules.h), whose crossover points come from bench/coll_bench
 * (docs/collectives.md). Every rank derives the same choice from the same arguments,
 * rank count and configuration.
 *
 * Device buffers: a call's buffers are all host or all device memory, on every member
 * (as NCCL and torch.distributed ask), so every member also derives the same choice for
 * a device call: an algorithm that takes device buffers (base/algos.h), one over the
 * mailboxes, whose messages travel GPU to GPU through IPC handles (p2p/rndv.c) and whose
 * local copies, reductions and scratch the device backend does, or the one-kernel
 * all-reduce (devdirect.c). The slot algorithms stage through host memory and are never
 * used for device buffers, even when SHMC_ALGO_* asks for them: the rules choose then.
 */
#include "coll/dispatch.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/userop.h"
#include "coll/algos.h"
#include "coll/local.h"
#include "coll/scratch.h"

/* The dispatch rules for calls on n ranks, the world or not (world non-zero), made when
 * first asked for and kept in co->steps; NULL if out of memory. Safe from any thread. */
static const struct shmc__steps *steps_of(struct shmc__coll *co, int n, int world)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    if (n < 1 || n > co->size)
        return NULL;
    struct shmc__steps **at = &co->steps[(world ? co->size + 1 : 0) + n];
    pthread_mutex_lock(&lock);
    if (!*at) {
        size_t rules = 0;
        for (int c = 0; c < SHMC_C_COUNT; c++)
            rules += co->rules.count[c];
        struct shmc__steps *s = malloc(sizeof *s + rules * sizeof s->step[0]);
        struct shmc__where w = {n,         world, co->shared_cpus, co->far_machine, 0,
                                co->maker, co->family};
        if (s)
            shmc__steps_build(&co->rules, &w, s);
        *at = s;
    }
    const struct shmc__steps *s = *at;
    pthread_mutex_unlock(&lock);
    return s;
}

/* The rules of host calls on x's communicator, made at its first call (every member finds
 * the same); NULL without memory. */
static inline const struct shmc__steps *host_steps(const struct shmc__cx *x)
{
    struct shmc__coll_comm *cc = shmc__coll_comm(x->c);
    return cc->steps ? cc->steps : (cc->steps = steps_of(x->co, x->n, shmc__cx_world(x)));
}

static inline int pick(int coll, const struct shmc__cx *x, size_t bytes)
{
    int forced = x->co->algo[coll];
    if (forced != SHMC_A_AUTO && (!x->dev || shmc__algo_device(forced)))
        return forced;
    const struct shmc__steps *s = x->dev ? NULL : host_steps(x);
    if (s)
        return shmc__steps_pick(s, coll, bytes);
    /* A device call (it costs microseconds: the rules themselves, not steps kept for it),
     * or no memory for the steps. */
    struct shmc__where w = {x->n,   shmc__cx_world(x), x->co->shared_cpus, x->co->far_machine,
                            x->dev, x->co->maker, x->co->family};
    return shmc__rules_pick(&x->co->rules, coll, &w, bytes);
}

/* Every implemented (collective, algorithm), from the list shmc__algo_valid() reads too
 * (base/algos.h). */
#define DESCRIPTOR(coll, algo, stem) [SHMC_C_##coll][SHMC_A_##algo] = &shmc__##stem##_algo,
static const struct shmc__coll_algo *const algorithms[SHMC_C_COUNT][SHMC_A_COUNT] = {
    SHMC_IMPLEMENTED(DESCRIPTOR)};
#undef DESCRIPTOR

const struct shmc__coll_algo *shmc__coll_algo(int coll, int algo, int dev)
{
    if (coll < 0 || coll >= SHMC_C_COUNT || algo <= SHMC_A_AUTO || algo >= SHMC_A_COUNT)
        return NULL;
    /* The direct all-reduce of device buffers maps every member's buffers (devdirect.c). */
    if (dev && coll == SHMC_C_ALLREDUCE && algo == SHMC_A_DIRECT)
        return &shmc__allreduce_devdirect_algo;
    return algorithms[coll][algo];
}

/* A non-commutative user op runs only where every element is combined in rank order
 * (docs/collectives.md): never round a ring, and a reduce tree only when rooted at 0
 * (its order is then 0, 1, ..., n - 1); shm, whose order is the ranks', replaces them. */
static int in_order(int coll, const struct shmc__cx *x, int algo)
{
    if (shmc__op_commutes(x->op))
        return algo;
    if (algo == SHMC_A_RING || (coll == SHMC_C_REDUCE && algo == SHMC_A_TREE && x->root != 0))
        return SHMC_A_SHM;
    return algo;
}

/* The choice, inlined into shmc__coll_run: a call of its own cost every collective a
 * frame on its path (flat.c, shmc__bcast_direct, says why stores count). */
static inline __attribute__((always_inline)) int choose(int coll, const struct shmc__cx *x,
                                                        size_t bytes)
{
    return in_order(coll, x, pick(coll, x, bytes));
}

int shmc__coll_pick(int coll, const struct shmc__cx *x, size_t bytes)
{
    return choose(coll, x, bytes);
}

int shmc__coll_rule(int coll, const struct shmc__cx *x, size_t bytes)
{
    return pick(coll, x, bytes);
}

int shmc__coll_rule_ever(int coll, const struct shmc__cx *x, int algo)
{
    int forced = x->co->algo[coll];
    if (forced != SHMC_A_AUTO)
        return forced == algo;
    const struct shmc__steps *s = host_steps(x);
    return s ? shmc__steps_ever(s, coll, algo) : 1; /* (no memory: a maybe, dispatch.h) */
}

/* The barrier is the call made most often with nothing in it, and the choice of its
 * algorithm (the rules' lookup, the descriptor, the scratch check) was a good part of its
 * instructions and of its time near (the commit that made this has the figures):
 * the rules' choice is made at a communicator's first barrier and kept (they do not change
 * while the library runs); one forced by SHMC_ALGO_BARRIER, which shmc_config_set may
 * change at any time, is read at every call. */
int shmc__coll_barrier_algo(const struct shmc__cx *x)
{
    int algo = x->co->algo[SHMC_C_BARRIER];
    if (algo == SHMC_A_AUTO) {
        struct shmc__coll_comm *cc = shmc__coll_comm(x->c);
        if (!cc->barrier)
            cc->barrier = (uint8_t)(shmc__coll_pick(SHMC_C_BARRIER, x, 0) + 1);
        algo = cc->barrier - 1;
    }
    return algo;
}

int shmc__coll_barrier(const struct shmc__cx *x)
{
    return algorithms[SHMC_C_BARRIER][shmc__coll_barrier_algo(x)]->run(x, NULL, NULL, 1);
}

/* Memory first (scratch.c), agreed by all members, then the algorithm, whose requests
 * come from the reserve (p2p/request.c tells them by their context). An in-place
 * all-to-all sends from a copy of rbuf in the last scratch buffer, since every block is
 * both sent and overwritten. Most small calls borrow nothing: an algorithm that never
 * borrows has no scratch_need, and that one test is all they pay (computing every call's
 * needs cost instructions that a barrier's time would show: bench/path_cost.sh); nor do
 * those that borrow within what every member holds from the start (shmc__scratch_held),
 * whose needs' array and the agreement's frame were stores on a small call's path. */
int shmc__coll_run(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count,
                   size_t bytes)
{
    const struct shmc__coll_algo *a = shmc__coll_algo(coll, choose(coll, x, bytes), x->dev);
    int rc;
    if ((a->scratch_need || sbuf == SHMC_IN_PLACE) && !shmc__scratch_held(x, a, bytes)) {
        size_t need[SHMC_NSCRATCH] = {0};
        if (a->scratch_need)
            a->scratch_need(x, count, need);
        if (sbuf == SHMC_IN_PLACE)
            need[SHMC_SCRATCH_INPLACE] = bytes;
        if ((rc = shmc__scratch_prepare(x, need)) != SHMC_OK)
            return rc;
    }
    if (sbuf == SHMC_IN_PLACE) {
        void *copy = shmc__cx_scratch(x, SHMC_SCRATCH_INPLACE, bytes);
        SHMC_CX_COPY(x, copy, rbuf, bytes);
        sbuf = copy;
    }
    return a->run(x, sbuf, rbuf, count);
}
