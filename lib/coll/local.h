/*
 * A collective's local work on this rank (copies and reductions of its buffers), in
 * pieces between which the rank looks at the job (local.c).
 */
#ifndef SHMC_COLL_LOCAL_H
#define SHMC_COLL_LOCAL_H

#include <stddef.h>

#include "coll/cx.h"

/* Bytes of local work between two looks at the job: a look is two loads, a piece a copy
 * of this many bytes, so looking costs nothing and a death is seen within one piece
 * (tests/robustness/check_survivors measures how soon). */
#define SHMC_CX_PIECE ((size_t)1 << 20)

/* dst = src (n bytes) in the call's memory kind. SHMC_OK, the copy's error, or, when the
 * job changed meanwhile so that the call cannot finish (a member died or quit the
 * communicator's collectives, the job was aborted), that error, with this rank quit:
 * the rest is not copied. */
int shmc__cx_copy(const struct shmc__cx *x, void *dst, const void *src, size_t n);

/* acc = acc OP in over n elements of the call's dtype and op (order: base/reduction.h),
 * on the host or the device; stops as shmc__cx_copy does. */
int shmc__cx_reduce(const struct shmc__cx *x, void *acc, const void *in, size_t n, int order);

/* out = a OP b (a the left operand): the first combine of a reduction, one pass instead of
 * a copy of a into out and a second pass; out must not overlap a or b. */
int shmc__cx_reduce_into(const struct shmc__cx *x, void *out, const void *a, const void *b,
                         size_t n);

/* A local copy of the call's memory kind, as a statement that returns its error from the
 * enclosing function. */
#define SHMC_CX_COPY(x, dst, src, n)                                                               \
    do {                                                                                           \
        int cx_rc_ = shmc__cx_copy((x), (dst), (src), (n));                                        \
        if (cx_rc_ != SHMC_OK)                                                                     \
            return cx_rc_;                                                                         \
    } while (0)

#endif /* SHMC_COLL_LOCAL_H */
