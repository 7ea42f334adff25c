/*
 * Layer shm: the job's shared memory and what every process of the job reads in it.
 *
 * Owns: the arena, its layout and every structure in it (arena.h: the ABI), creating it
 * and attaching to it with every field validated (arena.c); the doorbells and the
 * sleep/wake handshake (doorbell.h); the job state: rank states, the epoch, the abort
 * word (job.h); the hang report read from the control blocks (hang.h).
 * May call: base. The launcher, shmrun, links only base and shm.
 */
#ifndef SHMC_SHM_H
#define SHMC_SHM_H

#include "shm/arena.h"
#include "shm/doorbell.h"
#include "shm/hang.h"
#include "shm/job.h"

#endif /* SHMC_SHM_H */
