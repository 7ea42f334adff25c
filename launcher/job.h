/*
 * A running shmrun job: the arena it made, its ranks, and the supervisor's state.
 * Single-threaded: everything happens in shmrun's main loop.
 */
#ifndef SHMRUN_JOB_H
#define SHMRUN_JOB_H

#include <stdint.h>
#include <sys/types.h>

#include "bind.h"
#include "options.h"
#include "output.h"
#include "shm/arena.h"

#define SHMRUN_GRACE_MS 1000u /* after a failure, before SIGTERM to the rest */
#define SHMRUN_KILL_MS 2000u  /* after SIGTERM, before SIGKILL */

struct shmrun_rank {
    pid_t pid;
    int running;
    int status; /* from waitpid */
    struct shmrun_stream out, err;
};

struct shmrun_job {
    const struct shmrun_opts *o;
    struct shmc__arena arena;
    struct shmrun_bind_plan *bind;
    int n;
    struct shmrun_rank *ranks;
    int nrunning;
    int sigfd;
    sigset_t oldmask;

    int aborting;    /* a rank failed or the timeout expired: the job is ending */
    int set_abort;   /* shmrun, not a rank's shmc_abort, set the arena's abort word */
    int exit_status; /* shmrun's exit status */
    int timed_out;
    int interrupts;      /* SIGINT/SIGTERM/SIGHUP received */
    uint64_t timeout_at; /* monotonic ns, 0 = none */
    uint64_t term_at;    /* when to send SIGTERM to the remaining ranks, 0 = not set */
    uint64_t kill_at;    /* when to send SIGKILL, 0 = not set */
    int master_port;     /* MASTER_PORT for torch's env:// rendezvous, chosen once */
};

/* spawn.c: starts rank r. Returns 0 or -1 (message printed). */
int shmrun_spawn(struct shmrun_job *j, int r);

/* supervise.c: runs until every rank has ended; returns shmrun's exit status. */
int shmrun_supervise(struct shmrun_job *j);

#endif /* SHMRUN_JOB_H */
