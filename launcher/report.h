/*
 * The hang report (report.c): what each rank is blocked on, and the wait-for cycles.
 */
#ifndef SHMRUN_REPORT_H
#define SHMRUN_REPORT_H

#include <stdio.h>

#include "job.h"

void shmrun_hang_report(const struct shmrun_job *j, FILE *f);

#endif /* SHMRUN_REPORT_H */
