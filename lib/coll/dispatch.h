/*
 * The choice of algorithm for a call, and running it (dispatch.c).
 */
#ifndef SHMC_DISPATCH_H
#define SHMC_DISPATCH_H

#include <stddef.h>

#include "coll/cx.h"

/* The chosen algorithm of collective coll (SHMC_C_*) for this call, with no argument
 * checks: scratch agreed first, then its run. bytes: what the choice is sized by. */
int shmc__coll_run(int coll, const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count,
                   size_t bytes);
/* shmc__coll_run for a blocking barrier: its algorithm chosen once per communicator. */
int shmc__coll_barrier(const struct shmc__cx *x);
/* That algorithm (SHMC_A_*): forced, or the rules' choice kept per communicator. */
int shmc__coll_barrier_algo(const struct shmc__cx *x);
/* The algorithm the call gets (forced by the configuration, or chosen by the rules
 * here, then kept in rank order for a non-commutative op), with no argument checks. */
int shmc__coll_pick(int coll, const struct shmc__cx *x, size_t bytes);
/* The same before a non-commutative op's exceptions: what the configuration or the rules
 * give the call, the same on every member of the communicator whatever its op. */
int shmc__coll_rule(int coll, const struct shmc__cx *x, size_t bytes);
/* Do they give algo to some call of collective coll with host buffers on x's
 * communicator, of any size? 1 also where that is not known (no memory). */
int shmc__coll_rule_ever(int coll, const struct shmc__cx *x, int algo);
/* The descriptor of algorithm algo (SHMC_A_*, not AUTO) of collective coll, for host
 * (dev 0) or device calls; NULL where there is none. */
const struct shmc__coll_algo *shmc__coll_algo(int coll, int algo, int dev);

#endif /* SHMC_DISPATCH_H */
