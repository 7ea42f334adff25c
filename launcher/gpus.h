/*
 * The GPUs of --report-bindings: which NVIDIA GPU each rank gets from
 * shmc_device_select (LOCAL_RANK modulo the GPUs), and whether it is near the CPUs the
 * rank is bound to.
 */
#ifndef SHMRUN_GPUS_H
#define SHMRUN_GPUS_H

#include <stdio.h>

#include "bind.h"

/* Prints the report for ranks 0 .. n-1 placed by plan (NULL: unbound) to out. */
void shmrun_gpus_report(const struct shmrun_bind_plan *plan, int n, FILE *out);

#endif /* SHMRUN_GPUS_H */
