/*
 * Where each rank runs: a plan made once from sysfs or the hwloc topology (cores or NUMA nodes
 * the job may use, handed out round-robin), applied in each child before exec.
 */
#ifndef SHMRUN_BIND_H
#define SHMRUN_BIND_H

#include <hwloc.h>
#include <stddef.h>

#include "options.h"

struct shmrun_bind_plan;

/* Builds the plan. Returns NULL (with a warning printed) if the topology cannot be read;
 * the job then runs unbound. */
struct shmrun_bind_plan *shmrun_bind_plan(enum shmrun_bind mode, int nranks);

/* Number of processing units the job may use (for SHMC_CPUS). */
int shmrun_bind_pus(const struct shmrun_bind_plan *p);

/* Number of binding targets (cores or NUMA nodes); 0 when unbound. */
int shmrun_bind_targets(const struct shmrun_bind_plan *p);

/* Binds the calling process as rank r. Returns 0, or -1 with errno. */
int shmrun_bind_apply(const struct shmrun_bind_plan *p, int r);

/* "core L#1 (PU 1)" or "not bound". */
void shmrun_bind_describe(const struct shmrun_bind_plan *p, int r, char *buf, size_t len);

/* The PUs (OS indexes) rank r is bound to, into set. Returns 0, or -1 when unbound. */
int shmrun_bind_pus_of(const struct shmrun_bind_plan *p, int r, hwloc_bitmap_t set);

void shmrun_bind_free(struct shmrun_bind_plan *p);

#endif /* SHMRUN_BIND_H */
