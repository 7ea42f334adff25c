/*
 * Layer boot: joining a job and leaving it.
 *
 * Owns: which launcher started this process and where the arena comes from (launch.c:
 * shmrun's descriptor, or a name every rank of a torchrun/mpirun job derives alike); the
 * order in which shmc_init brings up the layers below and shmc_finalize takes them down;
 * shmc_abort; the configuration as loaded, and the public calls that reach every layer
 * (shmc_config_set, shmc_stat, shmc_device_select) (init.c).
 * May call: every layer below. Nothing calls it.
 */
#ifndef SHMC_BOOT_H
#define SHMC_BOOT_H

#include "base/config.h"
#include "coll/rules.h"
#include "shm/arena.h"

enum { SHMC_ST_UNINIT = 0, SHMC_ST_READY = 1, SHMC_ST_FINALIZING = 2, SHMC_ST_DONE = 3 };

enum {
    SHMC_BOOT_SHMRUN = 1,
    SHMC_BOOT_TORCHRUN,
    SHMC_BOOT_OMPI,
    SHMC_BOOT_MPICH,
    SHMC_BOOT_SINGLETON,
    SHMC_BOOT_JOIN, /* shmc_init_join: rank, size and key given by the caller */
};

/* What shmc_init_join was given; NULL for shmc_init (the environment says). */
struct shmc__join {
    int rank, size;
    const char *key;
};

struct shmc__boot {
    int state; /* SHMC_ST_* */
    int mode;  /* SHMC_BOOT_*: the launcher */
    int rank, size;
    int local_rank; /* LOCAL_RANK or its launcher's equivalent: picks the GPU */
    struct shmc__config cfg;
    struct shmc__rules rules; /* the dispatch rules cfg names (coll/rules.h) */
    uint64_t rules_digest;    /* theirs and cfg's forced algorithms' (shmc__rules_digest) */
    struct shmc__arena arena;
};

/* launch.c: finds the launcher (or takes the caller's join), the rank and the arena
 * (attached or created), and claims the rank in it. again: this process was in a job
 * before (shmc_finalize), which is refused under shmrun, whose one arena it has left. On
 * failure nothing is left mapped or named. */
int shmc__boot_launch(struct shmc__boot *b, const struct shmc__join *join, int again);

/* launch.c: is key usable as a job key (1..SHMC_JOB_KEY_MAX characters of A-Z a-z 0-9 and
 * . _ : -)? */
int shmc__job_key_valid(const char *key);

#endif /* SHMC_BOOT_H */
