/*
 * Helper processes of the bench tools die with the process that forked them: a parent
 * killed by SIGPIPE (its output piped into `head`, say) or by a timeout must not leave
 * helpers spinning on the CPUs, where they would slow every later measurement.
 */
#ifndef SHMC_BENCH_CHILD_H
#define SHMC_BENCH_CHILD_H

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Call first thing in the child, with the parent's pid taken before fork(). */
static inline void bench_die_with_parent(pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* The parent may have died before prctl took effect. */
    if (getppid() != parent)
        _exit(1);
}

#endif /* SHMC_BENCH_CHILD_H */
