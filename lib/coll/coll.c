/*
 * The collectives' state (coll.h): made at shmc_init, once the job has assembled, and
 * released at shmc_finalize.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"

#include "base/log.h"
#include "base/machine.h"
#include "coll/cx.h"
#include "coll/nbcomm.h"
#include "coll/nbworld.h"
#include "coll/onestep.h"
#include "coll/sched.h"
#include "coll/scratch.h"

struct shmc__coll shmc__coll;
pthread_mutex_t shmc__coll_lock = PTHREAD_MUTEX_INITIALIZER;
_Thread_local struct shmc__request *shmc__coll_own;
_Thread_local int shmc__coll_owning;
int shmc__coll_owners;

void shmc__coll_configure(struct shmc__coll *co, const struct shmc__config *cfg)
{
    memcpy(co->algo, cfg->algo, sizeof co->algo);
    co->check = cfg->check;
    co->overlap = cfg->coll_overlap;
}

/* Every rank chooses as every other one does only if all hold the same rules and forced
 * algorithms: each published the digest of its own when it attached (boot/launch.c), so
 * once all have attached, each compares theirs with its own, and a difference fails
 * shmc_init on every rank alike. */
static int same_rules(const struct shmc__arena *a, int size, uint64_t mine)
{
    for (int r = 0; r < size; r++) {
        /* A14 (p2p_start's wait for the attach count) pairs with R14 (launch.c). */
        uint64_t theirs = shmc__load_relaxed64(&shmc__arena_cb(a, (unsigned)r)->rules);
        if (theirs != mine) {
            SHMC_ERROR("rank %d's dispatch rules or SHMC_ALGO_* differ from this rank's: give "
                       "every rank the same SHMC_TUNING_FILE (or the same user's tuned "
                       "rules: HOME, XDG_CACHE_HOME), SHMC_FAR_NS and SHMC_ALGO_*",
                       r);
            return SHMC_ERR_MISMATCH;
        }
    }
    return SHMC_OK;
}

int shmc__coll_init(struct shmc__coll *co, struct shmc__p2p *p2p, const struct shmc__config *cfg,
                    const struct shmc__rules *rules, uint64_t digest)
{
    memset(co, 0, sizeof *co);
    shmc__list_init(&co->nbw);
    shmc__list_init(&co->entry_live);
    shmc__coll_configure(co, cfg);
    co->arena = p2p->arena;
    co->rank = p2p->rank;
    co->size = p2p->size;
    for (unsigned l = 0; l < SHMC_LANES; l++)
        co->own[l].slot = shmc__arena_slot(co->arena, l, (unsigned)co->rank);
    for (unsigned i = 0; i < SHMC_SLOT_ENTRIES; i++)
        co->entry_own[i].slot = shmc__arena_entry(co->arena, (unsigned)co->rank, i);
    for (unsigned l = 0; l < SHMC_LANES; l++)
        co->lane[l] =
            (struct shmc__lane){.id = l,
                                .wsync = shmc__arena_wsync(co->arena, l, (unsigned)co->rank),
                                .blocks = (uint8_t *)shmc__arena_wsync(co->arena, l, 0),
                                .stride = shmc__wsync_stride(l),
                                .shift_seen = co->shift_seen[l]};
    int rc = same_rules(co->arena, co->size, digest);
    if (rc != SHMC_OK)
        return rc;
    /* The job shares CPUs when it has more ranks than any rank may run on: from what every
     * rank published as it attached (A14), so that every rank finds the same. */
    uint32_t most = 1;
    for (int r = 0; r < co->size; r++) {
        uint32_t c = shmc__load_relaxed32(&shmc__arena_cb(co->arena, (unsigned)r)->cpus);
        most = c > most ? c : most;
    }
    co->shared_cpus = (uint32_t)co->size > most;
    co->far_machine = p2p->far; /* (read once, at init: boot/init.c) */
    co->maker = cfg->cpu_maker; /* (read once, at init: boot/init.c) */
    co->family = cfg->cpu_family;
    co->rules = *rules;
    co->steps = calloc(2 * ((size_t)co->size + 1), sizeof *co->steps);
    if (!co->steps)
        return SHMC_ERR_NOMEM;
    /* What no collective may allocate once its data moves: scratch.c's first buffers,
     * and the requests of its messages (p2p/request.c, the reserve). */
    rc = shmc__scratch_init(co);
    if (rc == SHMC_OK &&
        (rc = shmc__req_reserve(&p2p->reqs, 4u * (uint32_t)co->size + 8u)) != SHMC_OK)
        shmc__scratch_release(co);
    if (rc != SHMC_OK)
        return rc;
    co->p2p = p2p; /* set last: the public calls treat it as "ready" */
    return SHMC_OK;
}

void shmc__coll_release(struct shmc__coll *co)
{
    shmc__nbw_release(co);
    shmc__nbcomm_release(co);
    shmc__scratch_release(co);
    for (size_t i = 0; co->steps && i < 2 * ((size_t)co->size + 1); i++)
        free(co->steps[i]);
    free(co->steps);
    memset(co, 0, sizeof *co);
}

int shmc__coll_lookup(const shmc_comm *h, struct shmc__comm **c)
{
    struct shmc__coll *co = &shmc__coll;
    if (!co->p2p || co->p2p->phase != SHMC_P2P_READY)
        return SHMC_ERR_NOT_INIT;
    *c = shmc__comm_get(&co->p2p->comms, h);
    return *c ? SHMC_OK : SHMC_ERR_ARG;
}

int shmc__coll_stat(const struct shmc__coll *co, const char *name, uint64_t *v)
{
    if (!strcmp(name, "coll_scratch_late"))
        *v = co->scratch_late;
    else if (!strcmp(name, "coll_direct_helped"))
        *v = co->direct_helped;
    else if (!strcmp(name, "coll_staged"))
        *v = co->staged;
    else if (!strcmp(name, "coll_scheduled"))
        *v = co->scheduled;
    else if (!strcmp(name, "coll_shm_barriers"))
        *v = co->shm_barriers;
    else if (!strcmp(name, "coll_lane_ways"))
        *v = co->lane_ways;
    else if (!strcmp(name, "coll_entry_calls"))
        *v = co->entry_calls;
    else
        return 0;
    return 1;
}

_Thread_local int64_t shmc__coll_as = -1;
int shmc__coll_as_set;

static int shmc_coll_reserve_call(shmc_comm *comm, uint32_t *n)
{
    struct shmc__comm *c;
    int rc = shmc__coll_lookup(comm, &c);
    if (rc != SHMC_OK)
        return rc;
    if (!n)
        return SHMC_ERR_ARG;
    *n = shmc__sched_reserve(shmc__coll_comm(c));
    return SHMC_OK;
}

SHMC_API int shmc_coll_reserve(shmc_comm *comm, uint32_t *n)
{
    SHMC_GUARDED(&shmc__p2p, shmc_coll_reserve_call(comm, n));
}

/* Is err one of the error codes (shmcomm.h's list)? */
static int an_error(int err)
{
    switch (err) {
#define SHMC_XX_CASE(name, value, text) case SHMC_ERR_##name:
        SHMC_ERROR_MAP(SHMC_XX_CASE)
#undef SHMC_XX_CASE
        return 1;
    default:
        return 0;
    }
}

static int shmc_coll_quit_call(shmc_comm *comm, int err)
{
    struct shmc__comm *c;
    int rc = shmc__coll_lookup(comm, &c);
    if (rc != SHMC_OK)
        return rc;
    if (!an_error(err))
        return SHMC_ERR_ARG;
    shmc__cx_drop(shmc__coll.p2p, c, err);
    return SHMC_OK;
}

SHMC_API int shmc_coll_quit(shmc_comm *comm, int err)
{
    SHMC_GUARDED(&shmc__p2p, shmc_coll_quit_call(comm, err));
}

SHMC_API void shmc_coll_as(int64_t n)
{
    int64_t was = shmc__coll_as;
    shmc__coll_as = n < 0 ? -1 : (int64_t)(uint32_t)n;
    if ((was >= 0) != (shmc__coll_as >= 0))
        __atomic_fetch_add(&shmc__coll_as_set, shmc__coll_as >= 0 ? 1 : -1, __ATOMIC_RELAXED);
}
