/*
 * What kind of machine this is, for a file of measurements made on one: the CPU model
 * (/proc/cpuinfo's first "model name") and the number of CPUs online.
 */
#ifndef SHMC_MACHINE_H
#define SHMC_MACHINE_H

#include <stddef.h>

/* "AMD EPYC 9B45, 2 CPUs" into out; "unknown CPU, N CPUs" where the model is not known. */
void shmc__machine_desc(char *out, size_t len);

/* CPUs this job may run on: shmrun says (SHMC_CPUS: it bound each rank to one core);
 * otherwise this process's affinity mask, which other launchers leave wide. */
int shmc__job_cpus(void);

#endif /* SHMC_MACHINE_H */
