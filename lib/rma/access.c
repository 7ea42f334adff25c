/*
 * A window's accesses (shmcomm.h): copies into and out of the mapping, and the
 * accumulates, each of which holds its target's lock of accumulates while it reads and
 * combines, so accumulates to one member (compare-and-swap included) are atomic against
 * each other, as MPI asks per element, here per call.
 */
#include <string.h>

#include "base/dtype.h"
#include "base/reduction.h"
#include "base/userop.h"
#include "p2p/p2p.h"
#include "rma/win.h"

SHMC_API int shmc_put(const void *src, size_t bytes, int rank, size_t disp, shmc_win *win)
{
    char *at;
    if (!shmc__win_ok(win) || (bytes && !src) || !(at = shmc__win_at(win, rank, disp, bytes)))
        return SHMC_ERR_ARG;
    memmove(at, src, bytes); /* (the origin buffer may lie in the window too) */
    return SHMC_OK;
}

SHMC_API int shmc_get(void *dst, size_t bytes, int rank, size_t disp, shmc_win *win)
{
    char *at;
    if (!shmc__win_ok(win) || (bytes && !dst) || !(at = shmc__win_at(win, rank, disp, bytes)))
        return SHMC_ERR_ARG;
    memmove(dst, at, bytes);
    return SHMC_OK;
}

/* ---- accumulates ----------------------------------------------------------------------- */

struct acc {
    shmc_atomic_u32 *word;
    uint32_t owner;
};

static int try_acc(void *arg)
{
    struct acc *k = arg;
    uint32_t v = 0;
    return shmc__cas32(k->word, &v, k->owner);
}

/* Takes member rank's lock of accumulates: what the last holder combined is seen here. */
static int acc_take(struct shmc_win *w, int rank)
{
    struct acc k = {&w->rec[rank].acc, (uint32_t)w->world[w->me] + 1};
    return try_acc(&k) ? SHMC_OK : shmc__win_wait(w, try_acc, &k);
}

static void acc_give(struct shmc_win *w, int rank)
{
    shmc__store_release32(&w->rec[rank].acc, 0);
}

/* Does op combine dtype in an accumulate? The built-in ops but AVG, ops made with
 * shmc_op_create, SHMC_REPLACE, and for a get_accumulate (reads) SHMC_NO_OP. */
static int acc_op_ok(shmc_dtype dtype, shmc_op op, int reads)
{
    if (!shmc__dtype_size(dtype))
        return 0;
    if (op == SHMC_REPLACE || (reads && op == SHMC_NO_OP))
        return 1;
    if (shmc__op_user(op))
        return shmc__userop_check(dtype, op) == SHMC_OK;
    return op != SHMC_AVG && shmc__reduce_check(dtype, op) == SHMC_OK;
}

/* result (if not NULL) gets the target's count elements, which then become target OP src. */
static int acc_call(const void *src, void *result, size_t count, shmc_dtype dtype, shmc_op op,
                    int rank, size_t disp, struct shmc_win *w)
{
    size_t es = shmc__dtype_size(dtype), bytes;
    char *at;
    if (!shmc__win_ok(w) || !acc_op_ok(dtype, op, result != NULL) ||
        __builtin_mul_overflow(count, es, &bytes) || !(at = shmc__win_at(w, rank, disp, bytes)) ||
        (bytes && op != SHMC_NO_OP && !src))
        return SHMC_ERR_ARG;
    if (!count)
        return SHMC_OK;
    int rc = acc_take(w, rank);
    if (rc != SHMC_OK)
        return rc;
    if (result)
        memcpy(result, at, bytes);
    if (op == SHMC_REPLACE)
        memmove(at, src, bytes);
    else if (shmc__op_user(op))
        shmc__userop_reduce(at, src, count, dtype, op, SHMC_ACC_LEFT);
    else if (op != SHMC_NO_OP)
        shmc__reduce(at, src, count, dtype, op, SHMC_ACC_LEFT);
    acc_give(w, rank);
    return SHMC_OK;
}

SHMC_API int shmc_accumulate(const void *src, size_t count, shmc_dtype dtype, shmc_op op, int rank,
                             size_t disp, shmc_win *win)
{
    SHMC_GUARDED(&shmc__p2p, acc_call(src, NULL, count, dtype, op, rank, disp, win));
}

SHMC_API int shmc_get_accumulate(const void *src, void *result, size_t count, shmc_dtype dtype,
                                 shmc_op op, int rank, size_t disp, shmc_win *win)
{
    if (!result && count)
        return SHMC_ERR_ARG;
    SHMC_GUARDED(&shmc__p2p, acc_call(src, result, count, dtype, op, rank, disp, win));
}

static int cas_call(const void *value, const void *compare, void *result, shmc_dtype dtype,
                    int rank, size_t disp, struct shmc_win *w)
{
    size_t es = shmc__dtype_size(dtype);
    char *at;
    if (!shmc__win_ok(w) || !es || !value || !compare || !result ||
        !(at = shmc__win_at(w, rank, disp, es)))
        return SHMC_ERR_ARG;
    int rc = acc_take(w, rank);
    if (rc != SHMC_OK)
        return rc;
    char old[SHMC_DTYPE_BYTES_MAX];
    memcpy(old, at, es);
    if (!memcmp(old, compare, es))
        memcpy(at, value, es);
    acc_give(w, rank);
    memcpy(result, old, es);
    return SHMC_OK;
}

SHMC_API int shmc_compare_and_swap(const void *value, const void *compare, void *result,
                                   shmc_dtype dtype, int rank, size_t disp, shmc_win *win)
{
    SHMC_GUARDED(&shmc__p2p, cas_call(value, compare, result, dtype, rank, disp, win));
}
