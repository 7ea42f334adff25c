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
#include "shm/arena.h"

enum { SHMC_ST_UNINIT = 0, SHMC_ST_READY = 1, SHMC_ST_FINALIZING = 2, SHMC_ST_DONE = 3 };

enum {
    SHMC_BOOT_SHMRUN = 1,
    SHMC_BOOT_TORCHRUN,
    SHMC_BOOT_OMPI,
    SHMC_BOOT_MPICH,
    SHMC_BOOT_SINGLETON,
};

struct shmc__boot {
    int state; /* SHMC_ST_* */
    int mode;  /* SHMC_BOOT_*: the launcher */
    int rank, size;
    int local_rank; /* LOCAL_RANK or its launcher's equivalent: picks the GPU */
    struct shmc__config cfg;
    struct shmc__arena arena;
};

/* launch.c: finds the launcher, the rank and the arena (attached or created), and claims
 * the rank in it. On failure nothing is left mapped or named. */
int shmc__boot_launch(struct shmc__boot *b);

#endif /* SHMC_BOOT_H */
