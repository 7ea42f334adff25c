/*
 * The library's lifecycle, in the order of the layers: shmc_init loads the configuration
 * (base), chooses the device backend (device), joins the job and its arena (launch.c,
 * shm), connects every peer and waits until all have attached (p2p, transport), then
 * makes what the collectives need (coll). shmc_finalize delivers what this process still
 * owes its peers and takes everything down in the opposite order; shmc_abort ends the
 * job. Also the public calls that reach every layer: shmc_config_set, shmc_stat and
 * shmc_device_select. Called from one thread (serialised contract, shmcomm.h).
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/log.h"
#include "boot/boot.h"
#include "coll/coll.h"
#include "coll/sched.h"
#include "device/device.h"
#include "p2p/p2p.h"
#include "shm/job.h"

static struct shmc__boot boot;
static int thread_level; /* SHMC_THREAD_*, while initialised */
static int left_a_job;   /* shmc_finalize ran: a new init must make a new arena */

/* shmc_init_join's arguments, checked before anything is made. */
static int join_valid(const struct shmc__join *j, int level)
{
    if (level != SHMC_THREAD_SERIALIZED && level != SHMC_THREAD_MULTIPLE)
        return SHMC_ERR_ARG;
    if (j->size < 1 || j->rank < 0 || j->rank >= j->size) {
        SHMC_ERROR("shmc_init_join: rank %d of %d ranks: the rank must be 0..size-1", j->rank,
                   j->size);
        return SHMC_ERR_ARG;
    }
    if (!j->key || !shmc__job_key_valid(j->key)) {
        SHMC_ERROR("shmc_init_join: the job key must be 1 to %d characters of letters, digits "
                   "and . _ : - (shmc_job_key makes one)",
                   SHMC_JOB_KEY_MAX);
        return SHMC_ERR_ARG;
    }
    if ((unsigned)j->size > SHMC_MAX_RANKS) {
        SHMC_ERROR("shmc_init_join: %d ranks; shmcomm supports at most %u", j->size,
                   SHMC_MAX_RANKS);
        return SHMC_ERR_LIMIT;
    }
    return SHMC_OK;
}

static int init_at(int level, shmc_comm **world, const struct shmc__join *join)
{
    struct shmc__boot *b = &boot;
    struct shmc__p2p *p = &shmc__p2p;
    int rc;

    if (b->state != SHMC_ST_UNINIT && b->state != SHMC_ST_DONE)
        return SHMC_ERR_STATE; /* *world untouched: a second call must not clear it */
    shmc_comm *kept = world ? *world : NULL;
    if (world)
        *world = NULL;
    if (join && (rc = join_valid(join, level)) != SHMC_OK)
        return rc;
    if ((rc = shmc__config_load(&b->cfg)) != SHMC_OK ||
        (rc = shmc__rules_load(&b->rules, b->cfg.tuning_file)) != SHMC_OK)
        return rc;
    /* The maker, read here once: the digest holds it and the collectives choose by it. */
    b->cfg.cpu_maker = shmc__cpu_maker(b->cfg.cpu_maker);
    b->cfg.cpu_family = shmc__cpu_family(b->cfg.cpu_family);
    b->rules_digest = shmc__rules_digest(&b->rules, b->cfg.algo, b->cfg.far_ns,
                                         b->cfg.cpu_maker, b->cfg.cpu_family);
    shmc__mk_setup(b->cfg.cuda, b->cfg.fake_device, b->cfg.fake_gpus);
    if ((rc = shmc__boot_launch(b, join, left_a_job)) != SHMC_OK)
        goto fail_boot;

    const struct shmc__p2p_params params = {
        .eager_limit = b->cfg.eager_limit,
        .single_copy = b->cfg.single_copy,
        .single_copy_min = b->cfg.single_copy_min,
        .spin = b->cfg.spin,
        .yield = b->cfg.yield,
        .spin_elsewhere_us = b->cfg.spin_elsewhere_us,
        .spin_more_us = b->cfg.spin_more_us,
        .hang_timeout_s = b->cfg.hang_timeout_s,
        .supervised = b->mode == SHMC_BOOT_SHMRUN,
        .maker = b->cfg.cpu_maker,
        /* Far or near from the one round trip the arena's creator measured and every rank
         * read at attach, against a bound that every rank's digest holds (same_rules):
         * the protocol sizes and the collectives' rules both take it from here. */
        .far = b->arena.line_rtt_ns >= b->cfg.far_ns,
        .sc_cost_pct = b->arena.sc_cost_pct,
    };
    if ((rc = shmc__p2p_init(p, &b->arena, b->rank, b->size, &params)) != SHMC_OK ||
        (rc = shmc__p2p_start(p, b->cfg.attach_timeout_s)) != SHMC_OK ||
        (rc = shmc__coll_init(&shmc__coll, p, &b->cfg, &b->rules, b->rules_digest)) != SHMC_OK)
        goto fail_p2p;
    b->state = SHMC_ST_READY;
    thread_level = level > b->cfg.threads ? level : b->cfg.threads;
    /* Read by every call's guard from now on (p2p.h); set before any call can be made. */
    shmc__multi = thread_level == SHMC_THREAD_MULTIPLE;
    if (world)
        *world = shmc__comm_handle(&p->comms, &p->comms.world);
    return SHMC_OK;

fail_p2p:
    shmc__p2p_fail(p);
    /* Under another launcher with SHMC_MEMFD=0 the segment still has a name until every
     * rank attached; this job will not assemble now, so do not leave it in /dev/shm. */
    if (b->arena.named && b->arena.name[0])
        shm_unlink(b->arena.name);
    shmc__arena_detach(&b->arena);
fail_boot:
    if (rc == SHMC_ERR_STATE && world)
        *world = kept; /* refused as a second init (shmrun's job again): untouched */
    memset(b, 0, sizeof *b);
    b->state = left_a_job ? SHMC_ST_DONE : SHMC_ST_UNINIT;
    shmc__log_rank = -1;
    return rc;
}

static int shmc_finalize_call(void)
{
    struct shmc__boot *b = &boot;
    if (b->state != SHMC_ST_READY)
        return SHMC_ERR_NOT_INIT;
    b->state = SHMC_ST_FINALIZING;
    int rc = shmc__p2p_finalize(&shmc__p2p);
    shmc__coll_release(&shmc__coll);
    shmc__sched_release_spares();
    shmc__mk_teardown();
    shmc__arena_detach(&b->arena);
    memset(b, 0, sizeof *b);
    b->state = SHMC_ST_DONE;
    left_a_job = 1;
    shmc__log_rank = -1;
    /* The guard that let us in read the level already and unlocks what it locked. */
    shmc__multi = 0;
    thread_level = 0;
    return rc;
}

SHMC_API int shmc_init(shmc_comm **world)
{
    return init_at(SHMC_THREAD_SERIALIZED, world, NULL);
}

SHMC_API int shmc_init_thread(int level, shmc_comm **world)
{
    if (level != SHMC_THREAD_SERIALIZED && level != SHMC_THREAD_MULTIPLE)
        return SHMC_ERR_ARG;
    return init_at(level, world, NULL);
}

SHMC_API int shmc_init_join(int rank, int size, const char *key, int level, shmc_comm **world)
{
    const struct shmc__join j = {rank, size, key};
    return init_at(level, world, &j);
}

static int shmc_thread_level_call(void)
{
    return boot.state == SHMC_ST_READY ? thread_level : SHMC_ERR_NOT_INIT;
}

SHMC_API void shmc_abort(int exit_code)
{
    struct shmc__boot *b = &boot;
    int ec = exit_code & 255;
    if (ec == 0)
        ec = 1;
    fflush(NULL);
    /* Without shmrun nobody else ends the job: the ranks still in it are stopped too. */
    if (b->state == SHMC_ST_READY || b->state == SHMC_ST_FINALIZING)
        ec = shmc__job_abort_from(&b->arena, (unsigned)b->rank, ec, b->mode != SHMC_BOOT_SHMRUN);
    _exit(ec);
}

static int shmc_config_set_call(const char *name, const char *value)
{
    struct shmc__boot *b = &boot;
    if (b->state != SHMC_ST_READY)
        return SHMC_ERR_NOT_INIT;
    if (!name || !value)
        return SHMC_ERR_ARG;
    int rc = shmc__config_set(&b->cfg, name, value);
    if (rc != SHMC_OK)
        return rc;
    shmc__coll_configure(&shmc__coll, &b->cfg);
    shmc__p2p_set_single_copy(&shmc__p2p, b->cfg.single_copy);
    return SHMC_OK;
}

static int shmc_stat_call(const char *name, uint64_t *value)
{
    if (boot.state != SHMC_ST_READY)
        return SHMC_ERR_NOT_INIT;
    if (!name || !value)
        return SHMC_ERR_ARG;
    uint64_t opens, hits;
    shmc__dev_counts(&opens, &hits);
    if (!strcmp(name, "dev_ipc_opens"))
        *value = opens;
    else if (!strcmp(name, "arena_bytes"))
        *value = boot.arena.size;
    else if (!strcmp(name, "dev_ipc_hits"))
        *value = hits;
    else if (!strcmp(name, "line_rtt_ns"))
        *value = boot.arena.line_rtt_ns;
    else if (!strcmp(name, "single_copy_cost"))
        *value = boot.arena.sc_cost_pct;
    else if (!strcmp(name, "machine_far"))
        *value = (uint64_t)shmc__p2p.far; /* (as init_at decided it, once) */
    else if (!shmc__p2p_stat(&shmc__p2p, name, value) && !shmc__coll_stat(&shmc__coll, name, value))
        return SHMC_ERR_ARG;
    return SHMC_OK;
}

static int shmc_device_select_call(int *device)
{
    if (device)
        *device = -1;
    if (boot.state != SHMC_ST_READY)
        return SHMC_ERR_NOT_INIT;
    if (!device)
        return SHMC_ERR_ARG;
    return shmc__dev_select(boot.local_rank, device);
}

/* ---- the public entry points: one call at a time per process (shmcomm.h, Threads) ---- */

SHMC_API int shmc_finalize(void)
{
    SHMC_GUARDED(&shmc__p2p, shmc_finalize_call());
}

SHMC_API int shmc_config_set(const char *name, const char *value)
{
    SHMC_GUARDED(&shmc__p2p, shmc_config_set_call(name, value));
}

SHMC_API int shmc_stat(const char *name, uint64_t *value)
{
    SHMC_GUARDED(&shmc__p2p, shmc_stat_call(name, value));
}

SHMC_API int shmc_device_select(int *device)
{
    SHMC_GUARDED(&shmc__p2p, shmc_device_select_call(device));
}

SHMC_API int shmc_thread_level(void)
{
    SHMC_GUARDED(&shmc__p2p, shmc_thread_level_call());
}
