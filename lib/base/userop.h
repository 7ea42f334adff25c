/*
 * User-defined reductions (shmc_op_create): a process-wide table of functions, and the
 * three combines of base/reduction.h done through them. Ops are process-local values
 * SHMC__OP_USER0 + slot; ranks that make their ops in the same order get the same values.
 */
#ifndef SHMC_USEROP_H
#define SHMC_USEROP_H

#include <stddef.h>

#include "shmcomm.h"

#define SHMC__OP_USER0 64

/* Is op in the range of user ops (alive or not)? */
static inline int shmc__op_user(shmc_op op)
{
    return (unsigned)op - SHMC__OP_USER0 < SHMC_OP_USER_MAX;
}

/* SHMC_OK if op is a user op alive now and dt a dtype (any, opaque ones included). */
int shmc__userop_check(shmc_dtype dt, shmc_op op);
int shmc__userop_commutes(shmc_op op);
/* A call that combines with user op op after it returns (a nonblocking collective) holds
 * it (delta 1) until it ends (-1): shmc_op_free meanwhile refuses it to new calls and
 * frees it with the last hold. Nothing for a built-in op, tested here: the calls' own
 * ops are nearly all built-in, and a call of this for each start and end of a small
 * nonblocking collective was instructions for nothing (bench/path_cost.sh). */
void shmc__userop_hold_user(shmc_op op, int delta);
static inline void shmc__userop_hold(shmc_op op, int delta)
{
    if (shmc__op_user(op))
        shmc__userop_hold_user(op, delta);
}

/* Does op commute? Built-in ops do; a user op as it was made. */
static inline int shmc__op_commutes(shmc_op op)
{
    return !shmc__op_user(op) || shmc__userop_commutes(op);
}
/* acc = acc OP in (SHMC_ACC_LEFT) or in OP acc (SHMC_ACC_RIGHT), n elements. */
void shmc__userop_reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order);
/* out = a OP b. */
void shmc__userop_into(void *out, const void *a, const void *b, size_t n, shmc_dtype dt,
                       shmc_op op);

#endif /* SHMC_USEROP_H */
