/*
 * A window's accesses (shmcomm.h): copies into and out of its parts, which lie in the
 * shared mapping (loads and stores) or, for shmc_win_create's windows, in each member's
 * own memory (single copy, transport.h: process_vm_readv/writev); and the accumulates,
 * each of which holds its target's lock of accumulates while it reads, combines and
 * writes back, so accumulates to one member (compare-and-swap included) are atomic against
 * each other, as MPI asks per element, here per call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/copy.h"
#include "base/dtype.h"
#include "base/log.h"
#include "base/reduction.h"
#include "base/userop.h"
#include "p2p/p2p.h"
#include "rma/win.h"

/* Copies bytes between buf and member rank's part at byte offset at (in range): into the
 * part (write) or out of it. */
static int copy_failed(struct shmc_win *w, int rank, int write, int err);

static int copy_at(struct shmc_win *w, int rank, size_t at, void *buf, size_t bytes, int write)
{
    if (!bytes)
        return SHMC_OK;
    const struct shmc__win_rec *r = &w->rec[rank];
    char *p = r->remote ? (char *)(uintptr_t)(r->addr + at) : w->map + r->off + at;
    if (!r->remote || rank == w->me) {
        if (shmc__overlap(p, bytes, buf, bytes))
            memmove(write ? p : buf, write ? buf : p, bytes); /* (buf lies in the window) */
        else
            shmc__copy(write ? p : buf, write ? buf : p, bytes);
        return SHMC_OK;
    }
    int err = 0;
    struct shmc__ep *ep = &shmc__p2p.peers[w->world[rank]].ep;
    uint64_t done = write ? shmc__ep_put(ep, buf, (uint64_t)(uintptr_t)p, bytes, &err)
                          : shmc__ep_get(ep, buf, (uint64_t)(uintptr_t)p, bytes, &err);
    return done == bytes ? SHMC_OK : copy_failed(w, rank, write, err);
}

/* A single copy to or from member rank's memory that stopped at errno err. */
static int copy_failed(struct shmc_win *w, int rank, int write, int err)
{
    int rc;
    if ((rc = shmc__peer_lost(&shmc__p2p, w->world[rank])) != SHMC_OK)
        return rc;
    SHMC_ERROR("a window access by single copy %s rank %d's memory failed: %s%s",
               write ? "into" : "from", rank, strerror(err ? err : EIO),
               err == EPERM ? " (the kernel refuses to let this process read or write another's "
                              "memory: kernel.yama.ptrace_scope; windows on memory the library "
                              "allocates need no such permission)"
                            : "");
    return err == EFAULT ? SHMC_ERR_ARG : SHMC_ERR_SYS;
}

/* The same at displacement disp, checked against the part's end. */
static int part_copy(struct shmc_win *w, int rank, size_t disp, void *buf, size_t bytes, int write)
{
    size_t at;
    int rc = shmc__win_range(w, rank, disp, bytes, &at);
    return rc != SHMC_OK ? rc : copy_at(w, rank, at, buf, bytes, write);
}

/* ---- scattered blocks ------------------------------------------------------------------ */

/* Checks every block of an access at displacement disp of member rank's part, before
 * anything is touched: each must lie in the part. *total: their bytes together. */
static int blocks_check(const struct shmc_win *w, int rank, size_t disp, const shmc_block *b,
                        size_t n, size_t *total)
{
    size_t base;
    *total = 0;
    if ((n && !b) || shmc__win_range(w, rank, disp, 0, &base) != SHMC_OK)
        return SHMC_ERR_ARG;
    size_t size = w->rec[rank].bytes;
    for (size_t i = 0; i < n; i++) {
        /* (the magnitude of a negative offset, computed without overflow) */
        size_t mag = b[i].off < 0 ? (size_t)0 - (size_t)b[i].off : (size_t)b[i].off;
        if (b[i].off < 0 ? mag > base : mag > size - base)
            return SHMC_ERR_ARG;
        size_t at = b[i].off < 0 ? base - mag : base + mag;
        if (b[i].len > size - at || __builtin_add_overflow(*total, b[i].len, total))
            return SHMC_ERR_ARG;
    }
    return SHMC_OK;
}

/* Moves the blocks (checked) between buf, where they lie back to back, and the part: in
 * another process's memory, many blocks per single copy. */
static int blocks_move(struct shmc_win *w, int rank, size_t disp, const shmc_block *b, size_t n,
                       char *buf, int write)
{
    enum { BATCH = 256 };
    const struct shmc__win_rec *r = &w->rec[rank];
    size_t base = disp * (size_t)r->disp_unit;
    int far = r->remote && rank != w->me;
    struct shmc__rblock rb[BATCH];
    size_t k = 0, bytes = 0;
    for (size_t i = 0; i < n; i++) {
        size_t mag = b[i].off < 0 ? (size_t)0 - (size_t)b[i].off : (size_t)b[i].off;
        size_t at = b[i].off < 0 ? base - mag : base + mag;
        if (!far) {
            int rc = copy_at(w, rank, at, buf, b[i].len, write);
            if (rc != SHMC_OK)
                return rc;
            buf += b[i].len;
            continue;
        }
        rb[k++] = (struct shmc__rblock){r->addr + at, b[i].len};
        bytes += b[i].len;
        if (k < BATCH && i + 1 < n)
            continue;
        int err = 0;
        struct shmc__ep *ep = &shmc__p2p.peers[w->world[rank]].ep;
        if (shmc__ep_copyv(ep, write, buf, rb, k, &err) != bytes)
            return copy_failed(w, rank, write, err);
        buf += bytes;
        k = bytes = 0;
    }
    return SHMC_OK;
}

static int putv_call(const void *src, const shmc_block *b, size_t n, int rank, size_t disp,
                     struct shmc_win *w, int write)
{
    size_t total;
    if (!shmc__win_ok(w) || blocks_check(w, rank, disp, b, n, &total) != SHMC_OK || (total && !src))
        return SHMC_ERR_ARG;
    return blocks_move(w, rank, disp, b, n, (char *)(uintptr_t)src, write);
}

SHMC_API int shmc_putv(const void *src, const shmc_block *blocks, size_t n, int rank, size_t disp,
                       shmc_win *win)
{
    SHMC_GUARDED(&shmc__p2p, putv_call(src, blocks, n, rank, disp, win, 1));
}

SHMC_API int shmc_getv(void *dst, const shmc_block *blocks, size_t n, int rank, size_t disp,
                       shmc_win *win)
{
    SHMC_GUARDED(&shmc__p2p, putv_call(dst, blocks, n, rank, disp, win, 0));
}

static int put_call(const void *src, size_t bytes, int rank, size_t disp, struct shmc_win *w)
{
    if (!shmc__win_ok(w) || (bytes && !src))
        return SHMC_ERR_ARG;
    return part_copy(w, rank, disp, (void *)(uintptr_t)src, bytes, 1);
}

SHMC_API int shmc_put(const void *src, size_t bytes, int rank, size_t disp, shmc_win *win)
{
    SHMC_GUARDED(&shmc__p2p, put_call(src, bytes, rank, disp, win));
}

static int get_call(void *dst, size_t bytes, int rank, size_t disp, struct shmc_win *w)
{
    if (!shmc__win_ok(w) || (bytes && !dst))
        return SHMC_ERR_ARG;
    return part_copy(w, rank, disp, dst, bytes, 0);
}

SHMC_API int shmc_get(void *dst, size_t bytes, int rank, size_t disp, shmc_win *win)
{
    SHMC_GUARDED(&shmc__p2p, get_call(dst, bytes, rank, disp, win));
}

/* ---- accumulates ----------------------------------------------------------------------- */

struct acc {
    shmc_atomic_u32 *word;
    uint32_t owner;
    int got; /* taken: asked again (a caller other than wait.c may), it still says yes */
};

static int try_acc(void *arg)
{
    struct acc *k = arg;
    uint32_t v = 0;
    return k->got || (k->got = shmc__cas32(k->word, &v, k->owner));
}

/* Takes member rank's lock of accumulates: what the last holder combined is seen here. */
static int acc_take(struct shmc_win *w, int rank)
{
    struct acc k = {&w->rec[rank].acc, (uint32_t)w->world[w->me] + 1, 0};
    return try_acc(&k) ? SHMC_OK : shmc__win_wait(w, rank, try_acc, &k);
}

static void acc_give(struct shmc_win *w, int rank)
{
    shmc__store_release32(&w->rec[rank].acc, 0);
    shmc__win_woken(w, rank);
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

/* A remote part's bytes, copied in (acc_begin). */
static int acc_copy_in(struct shmc_win *w, int rank, size_t at, size_t bytes, char **p, char **copy)
{
    if (!(*copy = malloc(bytes ? bytes : 1)))
        return SHMC_ERR_NOMEM;
    *p = *copy;
    return copy_at(w, rank, at, *copy, bytes, 0);
}

/* The target's bytes at offset at of its part (in range) to work on under the lock: in
 * the mapping, or a copy of a remote part's (*copy, written back by acc_end). Inline:
 * the mapping is the common case, and a lone element's accumulate is a few moves. */
static inline int acc_begin(struct shmc_win *w, int rank, size_t at, size_t bytes, char **p,
                            char **copy)
{
    const struct shmc__win_rec *r = &w->rec[rank];
    *copy = NULL;
    if (!r->remote || rank == w->me) { /* (this process's memory, either way) */
        *p = r->remote ? (char *)(uintptr_t)(r->addr + at) : w->map + r->off + at;
        return SHMC_OK;
    }
    return acc_copy_in(w, rank, at, bytes, p, copy);
}

/* memcpy and memcmp of one element: its usual sizes as single moves, which a call of a
 * variable size costs several times over on a lone element's accumulate. */
static inline void elem_copy(void *d, const void *s, size_t n)
{
    switch (n) {
    case 1:
        memcpy(d, s, 1);
        break;
    case 2:
        memcpy(d, s, 2);
        break;
    case 4:
        memcpy(d, s, 4);
        break;
    case 8:
        memcpy(d, s, 8);
        break;
    default:
        memcpy(d, s, n);
    }
}

static inline int elem_same(const void *a, const void *b, size_t n)
{
    if (n == 1 || n == 2 || n == 4 || n == 8) {
        uint64_t x = 0, y = 0;
        memcpy(&x, a, n);
        memcpy(&y, b, n);
        return x == y;
    }
    return !memcmp(a, b, n);
}

static int acc_end(struct shmc_win *w, int rank, size_t at, size_t bytes, char *copy, int changed)
{
    if (!copy)
        return SHMC_OK;
    int rc = changed ? copy_at(w, rank, at, copy, bytes, 1) : SHMC_OK;
    free(copy);
    return rc;
}

/* An accumulate's work on the target's count elements at p, under its lock: result (if
 * not NULL) gets them, then they become p OP src. */
static void combine(char *p, const void *src, void *result, size_t count, shmc_dtype dtype,
                    shmc_op op)
{
    size_t bytes = count * shmc__dtype_size(dtype);
    if (result)
        elem_copy(result, p, bytes);
    if (op == SHMC_REPLACE)
        memmove(p, src, bytes); /* (src may lie in the window) */
    else if (shmc__op_user(op))
        shmc__userop_reduce(p, src, count, dtype, op, SHMC_ACC_LEFT);
    else if (op != SHMC_NO_OP)
        shmc__reduce(p, src, count, dtype, op, SHMC_ACC_LEFT);
}

/* result (if not NULL) gets the target's count elements, which then become target OP src. */
static int acc_call(const void *src, void *result, size_t count, shmc_dtype dtype, shmc_op op,
                    int rank, size_t disp, struct shmc_win *w)
{
    size_t es = shmc__dtype_size(dtype), bytes, at;
    if (!shmc__win_ok(w) || !acc_op_ok(dtype, op, result != NULL) ||
        __builtin_mul_overflow(count, es, &bytes) ||
        shmc__win_range(w, rank, disp, bytes, &at) != SHMC_OK ||
        (bytes && op != SHMC_NO_OP && !src))
        return SHMC_ERR_ARG;
    if (!count)
        return SHMC_OK;
    int rc = acc_take(w, rank);
    if (rc != SHMC_OK)
        return rc;
    char *p, *copy;
    if ((rc = acc_begin(w, rank, at, bytes, &p, &copy)) == SHMC_OK)
        combine(p, src, result, count, dtype, op);
    int end = acc_end(w, rank, at, bytes, copy, rc == SHMC_OK && op != SHMC_NO_OP);
    acc_give(w, rank);
    return rc != SHMC_OK ? rc : end;
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

/* The scattered accumulate: the blocks gathered back to back under the lock, combined as
 * count elements, and scattered back. */
static int accv_call(const void *src, void *result, size_t count, shmc_dtype dtype, shmc_op op,
                     const shmc_block *b, size_t n, int rank, size_t disp, struct shmc_win *w)
{
    size_t es = shmc__dtype_size(dtype), bytes, total;
    if (!shmc__win_ok(w) || !acc_op_ok(dtype, op, result != NULL) ||
        __builtin_mul_overflow(count, es, &bytes) ||
        blocks_check(w, rank, disp, b, n, &total) != SHMC_OK || total != bytes ||
        (bytes && op != SHMC_NO_OP && !src))
        return SHMC_ERR_ARG;
    if (!count)
        return SHMC_OK;
    char *tmp = malloc(bytes);
    if (!tmp)
        return SHMC_ERR_NOMEM;
    int rc = acc_take(w, rank);
    if (rc == SHMC_OK) {
        if ((rc = blocks_move(w, rank, disp, b, n, tmp, 0)) == SHMC_OK) {
            combine(tmp, src, result, count, dtype, op);
            if (op != SHMC_NO_OP)
                rc = blocks_move(w, rank, disp, b, n, tmp, 1);
        }
        acc_give(w, rank);
    }
    free(tmp);
    return rc;
}

SHMC_API int shmc_get_accumulatev(const void *src, void *result, size_t count, shmc_dtype dtype,
                                  shmc_op op, const shmc_block *blocks, size_t n, int rank,
                                  size_t disp, shmc_win *win)
{
    SHMC_GUARDED(&shmc__p2p, accv_call(src, result, count, dtype, op, blocks, n, rank, disp, win));
}

static int cas_call(const void *value, const void *compare, void *result, shmc_dtype dtype,
                    int rank, size_t disp, struct shmc_win *w)
{
    size_t es = shmc__dtype_size(dtype), at;
    if (!shmc__win_ok(w) || !es || !value || !compare || !result ||
        shmc__win_range(w, rank, disp, es, &at) != SHMC_OK)
        return SHMC_ERR_ARG;
    int rc = acc_take(w, rank);
    if (rc != SHMC_OK)
        return rc;
    char *p, *copy, old[SHMC_DTYPE_BYTES_MAX];
    int swap = 0;
    if ((rc = acc_begin(w, rank, at, es, &p, &copy)) == SHMC_OK) {
        elem_copy(old, p, es);
        if ((swap = elem_same(old, compare, es)))
            elem_copy(p, value, es);
    }
    int end = acc_end(w, rank, at, es, copy, rc == SHMC_OK && swap);
    acc_give(w, rank);
    if (rc == SHMC_OK)
        elem_copy(result, old, es);
    return rc != SHMC_OK ? rc : end;
}

SHMC_API int shmc_compare_and_swap(const void *value, const void *compare, void *result,
                                   shmc_dtype dtype, int rank, size_t disp, shmc_win *win)
{
    SHMC_GUARDED(&shmc__p2p, cas_call(value, compare, result, dtype, rank, disp, win));
}
