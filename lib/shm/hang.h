/*
 * Hang reports (hang.c), shared by shmrun and the library.
 */
#ifndef SHMC_HANG_H
#define SHMC_HANG_H

#include <stdint.h>
#include <stdio.h>

#include "shm/arena.h"

/* Prints what each of the n ranks of arena a is blocked on, then the wait-for cycles
 * and the ranks waiting for one that left, each line starting with prefix. alive[r]
 * says whether rank r's process runs; NULL: judge by the ranks' states. */
void shmc__hang_report(const struct shmc__arena *a, int n, const int *alive, FILE *f,
                       const char *prefix);

/* For SHMC_TIMEOUT: if every rank still in the job has been blocked in shmcomm for at
 * least timeout_ns at time now, or is stopped (SIGSTOP, a debugger: /proc says so),
 * returns the lowest of the blocked ones (the one to report); -1 if any rank is not
 * blocked, or not for that long; -2 if a control block holds values no rank writes
 * (its shared memory was overwritten). */
int shmc__hang_reporter(const struct shmc__arena *a, int n, uint64_t timeout_ns, uint64_t now);

#endif /* SHMC_HANG_H */
