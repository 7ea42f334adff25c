/*
 * One collective call of any kind, with its inputs made and its result checked byte for
 * byte against the serial reference (coll_ref.h): check_coll.c runs them as a matrix,
 * check_stress.c in random order on several communicators with point-to-point traffic in
 * flight, check_device.c on device buffers. A wrong byte fails the test (shmct_fail)
 * with the call's description.
 *
 * With k->dev the call gets device twins of its buffers (memkind.h): the host buffers are
 * prepared and checked as always, and copied to and from the device around the call.
 */
#ifndef SHMC_TEST_COLL_CALL_H
#define SHMC_TEST_COLL_CALL_H

#include <stdlib.h>
#include <string.h>

#include "coll_ref.h"
#include "config.h"
#include "harness.h"
#include "memkind.h"

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    T_ASSERT(p, "out of memory for %zu bytes", n);
    return p;
}

static void expect_bytes(const void *got, const void *want, size_t bytes, const char *what,
                         int algo, shmc_dtype dt, int op, size_t count, int root, int inplace)
{
    if (memcmp(got, want, bytes) == 0)
        return;
    size_t b = 0;
    while (((const uint8_t *)got)[b] == ((const uint8_t *)want)[b])
        b++;
    shmct_fail(__FILE__, __LINE__, what,
               "%s wrong at byte %zu of %zu: algo %s dtype %d op %d count %zu root %d "
               "in-place %d",
               what, b, bytes, shmc__algo_names[algo], (int)dt, op, count, root, inplace);
}

/* ---- one call of each collective, checked ------------------------------------------- */

struct call {
    shmc_comm *c;
    int me, n, algo, root, inplace;
    int dev; /* device twins of the buffers */
    shmc_dtype dt;
    shmc_op op;
    size_t count;
};

/* The buffer the call uses for host buffer h of bytes: h itself, or with k->dev a device
 * copy of it. */
static void *twin(const struct call *k, void *h, size_t bytes)
{
    if (!k->dev)
        return h;
    void *d = shmc__dev_malloc(bytes ? bytes : 1);
    T_ASSERT(d, "no device memory for %zu bytes", bytes);
    T_OK(shmc__dev_copy(d, h, bytes));
    return d;
}

/* After the call: the device twin's bytes back into h, and the twin freed. */
static void untwin(const struct call *k, void *h, void *d, size_t bytes)
{
    if (!k->dev)
        return;
    T_OK(shmc__dev_copy(h, d, bytes));
    shmc__dev_free(d);
}

/* The expected reduction of elements [first, first + count) into out. */
static void ref_range(const struct call *k, size_t first, size_t count, void *out)
{
    for (size_t i = 0; i < count; i++)
        cr_ref(k->dt, k->op, k->n, first + i, out, i);
}

static void run_reduce_family(int coll, const struct call *k)
{
    size_t es = shmc_dtype_size(k->dt), cnt = k->count, n = (size_t)k->n;
    size_t in_elems = coll == SHMC_C_REDUCE_SCATTER ? n * cnt : cnt;
    uint8_t *in = xmalloc(in_elems * es), *out = xmalloc(in_elems * es);
    uint8_t *want = xmalloc(in_elems * es);
    cr_fill(k->dt, k->op, k->me, in, 0, in_elems);
    memset(out, 0xa5, in_elems * es);
    if (k->inplace)
        memcpy(out, in, in_elems * es);
    uint8_t *din = twin(k, in, in_elems * es), *dout = twin(k, out, in_elems * es);
    const void *sb = k->inplace ? SHMC_IN_PLACE : din;
    switch (coll) {
    case SHMC_C_REDUCE:
        T_OK(shmc_reduce(sb, dout, cnt, k->dt, k->op, k->root, k->c));
        untwin(k, out, dout, in_elems * es);
        if (k->me == k->root) {
            ref_range(k, 0, cnt, want);
            expect_bytes(out, want, cnt * es, "reduce", k->algo, k->dt, k->op, cnt, k->root,
                         k->inplace);
        } else if (k->inplace) {
            expect_bytes(out, in, cnt * es, "reduce non-root buffer", k->algo, k->dt, k->op, cnt,
                         k->root, k->inplace);
        }
        break;
    case SHMC_C_ALLREDUCE:
        T_OK(shmc_allreduce(sb, dout, cnt, k->dt, k->op, k->c));
        untwin(k, out, dout, in_elems * es);
        ref_range(k, 0, cnt, want);
        expect_bytes(out, want, cnt * es, "allreduce", k->algo, k->dt, k->op, cnt, -1, k->inplace);
        break;
    case SHMC_C_REDUCE_SCATTER:
        T_OK(shmc_reduce_scatter(sb, dout, cnt, k->dt, k->op, k->c));
        untwin(k, out, dout, in_elems * es);
        ref_range(k, (size_t)k->me * cnt, cnt, want);
        expect_bytes(out, want, cnt * es, "reduce_scatter", k->algo, k->dt, k->op, cnt, -1,
                     k->inplace);
        break;
    }
    if (din != in) /* the input twin: only freed */
        shmc__dev_free(din);
    free(in);
    free(out);
    free(want);
}

/* Block of rank src meant for rank dst (dst = -1: the same for everyone). */
static uint64_t seed(int src, int dst, size_t count)
{
    return ((uint64_t)(src + 1) << 48) ^ ((uint64_t)(dst + 2) << 32) ^ count;
}

static void run_move_family(int coll, const struct call *k)
{
    size_t es = shmc_dtype_size(k->dt), cnt = k->count, n = (size_t)k->n, b = cnt * es;
    uint8_t *sbuf = xmalloc(n * b), *rbuf = xmalloc(n * b), *want = xmalloc(n * b);
    int me = k->me, root = k->root;
    memset(rbuf, 0xa5, n * b);
    uint8_t *ds = NULL, *dr = NULL;
    switch (coll) {
    case SHMC_C_BROADCAST:
        if (me == root)
            shmct_fill(rbuf, b, seed(root, -1, cnt));
        dr = twin(k, rbuf, b);
        T_OK(shmc_broadcast(dr, cnt, k->dt, root, k->c));
        untwin(k, rbuf, dr, b);
        shmct_fill(want, b, seed(root, -1, cnt));
        expect_bytes(rbuf, want, b, "broadcast", k->algo, k->dt, -1, cnt, root, 0);
        break;
    case SHMC_C_GATHER:
    case SHMC_C_ALLGATHER: {
        int all = coll == SHMC_C_ALLGATHER, inpl = k->inplace && (all || me == root);
        shmct_fill(sbuf, b, seed(me, -1, cnt));
        if (inpl)
            memcpy(rbuf + (size_t)me * b, sbuf, b);
        ds = twin(k, sbuf, b);
        dr = twin(k, rbuf, n * b);
        const void *sb = inpl ? SHMC_IN_PLACE : ds;
        if (all)
            T_OK(shmc_allgather(sb, dr, cnt, k->dt, k->c));
        else
            T_OK(shmc_gather(sb, dr, cnt, k->dt, root, k->c));
        untwin(k, rbuf, dr, n * b);
        untwin(k, sbuf, ds, b);
        if (all || me == root) {
            for (int r = 0; r < k->n; r++)
                shmct_fill(want + (size_t)r * b, b, seed(r, -1, cnt));
            expect_bytes(rbuf, want, n * b, all ? "allgather" : "gather", k->algo, k->dt, -1, cnt,
                         root, inpl);
        }
        break;
    }
    case SHMC_C_SCATTER: {
        int inpl = k->inplace && me == root;
        if (me == root)
            for (int r = 0; r < k->n; r++)
                shmct_fill(sbuf + (size_t)r * b, b, seed(root, r, cnt));
        ds = twin(k, sbuf, n * b);
        dr = twin(k, rbuf, b);
        T_OK(shmc_scatter(ds, inpl ? SHMC_IN_PLACE : dr, cnt, k->dt, root, k->c));
        untwin(k, rbuf, dr, b);
        untwin(k, sbuf, ds, n * b);
        shmct_fill(want, b, seed(root, me, cnt));
        expect_bytes(inpl ? sbuf + (size_t)me * b : rbuf, want, b, "scatter", k->algo, k->dt, -1,
                     cnt, root, inpl);
        break;
    }
    case SHMC_C_ALLTOALL: {
        for (int d = 0; d < k->n; d++)
            shmct_fill(sbuf + (size_t)d * b, b, seed(me, d, cnt));
        if (k->inplace)
            memcpy(rbuf, sbuf, n * b);
        ds = twin(k, sbuf, n * b);
        dr = twin(k, rbuf, n * b);
        T_OK(shmc_alltoall(k->inplace ? SHMC_IN_PLACE : ds, dr, cnt, k->dt, k->c));
        untwin(k, rbuf, dr, n * b);
        untwin(k, sbuf, ds, n * b);
        for (int s = 0; s < k->n; s++)
            shmct_fill(want + (size_t)s * b, b, seed(s, me, cnt));
        expect_bytes(rbuf, want, n * b, "alltoall", k->algo, k->dt, -1, cnt, -1, k->inplace);
        break;
    }
    }
    free(sbuf);
    free(rbuf);
    free(want);
}

static inline int is_reduction(int coll)
{
    return coll == SHMC_C_REDUCE || coll == SHMC_C_ALLREDUCE || coll == SHMC_C_REDUCE_SCATTER;
}

static inline int has_root(int coll)
{
    return coll == SHMC_C_BROADCAST || coll == SHMC_C_REDUCE || coll == SHMC_C_GATHER ||
           coll == SHMC_C_SCATTER;
}

static void one_call(int coll, struct call *k)
{
    if (is_reduction(coll))
        run_reduce_family(coll, k);
    else
        run_move_family(coll, k);
}

#endif /* SHMC_TEST_COLL_CALL_H */
