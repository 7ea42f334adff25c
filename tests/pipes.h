/*
 * Pipes between two ranks of a test job, made before the job forks: a rank says "the
 * message is in your mailbox" without any shmcomm call, which would move the message out
 * of the mailbox (a probe or a barrier drains it) when the test is about what a call does
 * with a message still there.
 */
#ifndef SHMC_TEST_PIPES_H
#define SHMC_TEST_PIPES_H

#include <poll.h>
#include <unistd.h>

#include "harness.h"

struct shmct_pipes {
    int to1[2]; /* rank 0 -> rank 1 */
    int to0[2]; /* rank 1 -> rank 0 */
};

static inline void shmct_signal(int fd)
{
    char c = 1;
    T_ASSERT(write(fd, &c, 1) == 1, "pipe write");
}

/* Bounded, so that a rank whose peer failed (and will never signal) fails too, saying so,
 * instead of sitting in read() until the suite's time-out. */
static inline void shmct_await(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    T_ASSERT(poll(&p, 1, 20000) == 1, "the other rank did not signal within 20 s");
    char c;
    T_ASSERT(read(fd, &c, 1) == 1, "pipe read");
}

/* shmct_run_opts with the pipes as fn's arg; returns its result (-1: no pipes). */
static inline int shmct_run_piped(int n, shmct_fn fn, const struct shmct_opts *o)
{
    struct shmct_pipes p;
    if (pipe(p.to1) != 0)
        return -1;
    if (pipe(p.to0) != 0) {
        close(p.to1[0]);
        close(p.to1[1]);
        return -1;
    }
    int rc = shmct_run_opts(n, fn, &p, o);
    close(p.to1[0]);
    close(p.to1[1]);
    close(p.to0[0]);
    close(p.to0[1]);
    return rc;
}

#endif /* SHMC_TEST_PIPES_H */
