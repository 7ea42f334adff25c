/*
 * A nonblocking collective's start that looks again before it returns (linger.c): where
 * the other members started the same call as this rank did, their part is on its way, and
 * a call that ends in its start costs what the blocking call does.
 */
#ifndef SHMC_LINGER_H
#define SHMC_LINGER_H

#include <stdint.h>

#include "coll/cx.h"

/* What a step of a lingered-over call says: over, nothing new, or moved on (a round
 * entered: the span starts again). */
enum { SHMC_LINGER_WAIT = 0, SHMC_LINGER_OVER = 1, SHMC_LINGER_MOVED = 2 };

/* Moves a call on by step(arg) for up to SHMC_LINGER_RTTS round trips of a cache line
 * between the job's CPUs, and more_ns more, since it last moved, unless recent lingers
 * found nothing (then it skips some calls: linger.c). 1 once step said SHMC_LINGER_OVER,
 * 0 if it did not. */
int shmc__linger(const struct shmc__coll *co, int (*step)(void *arg), void *arg,
                 uint64_t more_ns);

/* The speed, in bytes per nanosecond, at which a lingering receive takes its sender to
 * copy a message into the mailbox (more_ns: a block's bytes over it): slower than a copy
 * between CPUs near each other, so that a block sent as the receiver started arrives
 * within it there. */
#define SHMC_LINGER_COPY_BPNS 8u
/* ...of a block up to this many bytes: a larger one (an eager limit raised by the
 * program) lingers no longer than this one. */
#define SHMC_LINGER_COPY_MAX ((size_t)32 << 10)

#endif /* SHMC_LINGER_H */
