/*
 * One collective call of any kind, with its inputs made and its result checked byte for
 * byte against the serial reference (coll_ref.h): check_coll.c runs them as a matrix,
 * check_stress.c in random order on several communicators with point-to-point traffic in
 * flight. A wrong byte fails the test (shmct_fail) with the call's description.
 */
#ifndef SHMC_TEST_COLL_CALL_H
#define SHMC_TEST_COLL_CALL_H

#include <stdlib.h>
#include <string.h>

#include "coll_ref.h"
#include "config.h"
#include "harness.h"

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
    shmc_dtype dt;
    shmc_op op;
    size_t count;
};

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
    const void *sb = in;
    if (k->inplace) {
        memcpy(out, in, in_elems * es);
        sb = SHMC_IN_PLACE;
    }
    switch (coll) {
    case SHMC_C_REDUCE:
        T_OK(shmc_reduce(sb, out, cnt, k->dt, k->op, k->root, k->c));
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
        T_OK(shmc_allreduce(sb, out, cnt, k->dt, k->op, k->c));
        ref_range(k, 0, cnt, want);
        expect_bytes(out, want, cnt * es, "allreduce", k->algo, k->dt, k->op, cnt, -1, k->inplace);
        break;
    case SHMC_C_REDUCE_SCATTER:
        T_OK(shmc_reduce_scatter(sb, out, cnt, k->dt, k->op, k->c));
        ref_range(k, (size_t)k->me * cnt, cnt, want);
        expect_bytes(out, want, cnt * es, "reduce_scatter", k->algo, k->dt, k->op, cnt, -1,
                     k->inplace);
        break;
    }
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
    switch (coll) {
    case SHMC_C_BROADCAST:
        if (me == root)
            shmct_fill(rbuf, b, seed(root, -1, cnt));
        T_OK(shmc_broadcast(rbuf, cnt, k->dt, root, k->c));
        shmct_fill(want, b, seed(root, -1, cnt));
        expect_bytes(rbuf, want, b, "broadcast", k->algo, k->dt, -1, cnt, root, 0);
        break;
    case SHMC_C_GATHER:
    case SHMC_C_ALLGATHER: {
        int all = coll == SHMC_C_ALLGATHER, inpl = k->inplace && (all || me == root);
        shmct_fill(sbuf, b, seed(me, -1, cnt));
        if (inpl)
            memcpy(rbuf + (size_t)me * b, sbuf, b);
        const void *sb = inpl ? SHMC_IN_PLACE : sbuf;
        if (all)
            T_OK(shmc_allgather(sb, rbuf, cnt, k->dt, k->c));
        else
            T_OK(shmc_gather(sb, rbuf, cnt, k->dt, root, k->c));
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
        T_OK(shmc_scatter(sbuf, inpl ? SHMC_IN_PLACE : rbuf, cnt, k->dt, root, k->c));
        shmct_fill(want, b, seed(root, me, cnt));
        expect_bytes(inpl ? sbuf + (size_t)me * b : rbuf, want, b, "scatter", k->algo, k->dt, -1,
                     cnt, root, inpl);
        break;
    }
    case SHMC_C_ALLTOALL: {
        for (int d = 0; d < k->n; d++)
            shmct_fill(sbuf + (size_t)d * b, b, seed(me, d, cnt));
        const void *sb = sbuf;
        if (k->inplace) {
            memcpy(rbuf, sbuf, n * b);
            sb = SHMC_IN_PLACE;
        }
        T_OK(shmc_alltoall(sb, rbuf, cnt, k->dt, k->c));
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
