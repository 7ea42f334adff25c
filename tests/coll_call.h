/*
 * One collective call of any kind, with its inputs made and its result checked byte for
 * byte against the serial reference (coll_ref.h): coll/check_coll.c runs them as a
 * matrix, stress.h in random order on several communicators with point-to-point traffic
 * in flight, device/check_device.c on device buffers. A wrong byte fails the test
 * (shmct_fail) with the call's description.
 *
 * The collectives and their algorithms are named here as the public configuration names
 * them (SHMC_ALGO_<NAME>=<algorithm>, docs/collectives.md), and an algorithm is forced
 * through shmc_config_set, so these tests use the public API alone.
 *
 * With k->dev the call gets device twins of its buffers, made by call_dev (a device test
 * sets it: only tests/device may reach the device layer's memory): the host buffers are
 * prepared and checked as always, and copied to and from the device around the call.
 */
#ifndef SHMC_TEST_COLL_CALL_H
#define SHMC_TEST_COLL_CALL_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_ref.h"
#include "harness.h"

enum {
    C_BARRIER,
    C_BROADCAST,
    C_REDUCE,
    C_ALLREDUCE,
    C_GATHER,
    C_ALLGATHER,
    C_SCATTER,
    C_REDUCE_SCATTER,
    C_ALLTOALL,
    C_COUNT
};

static const char *const coll_names[C_COUNT] = {
    "barrier",   "broadcast", "reduce",         "allreduce", "gather",
    "allgather", "scatter",   "reduce_scatter", "alltoall",
};

/* Each collective's algorithms, as docs/collectives.md lists them (NULL-terminated). */
static const char *const coll_algos[C_COUNT][8] = {
    [C_BARRIER] = {"tree", "ring", "shm", "rd"},
    [C_BROADCAST] = {"tree", "ring", "shm", "direct"},
    [C_REDUCE] = {"tree", "ring", "shm", "direct"},
    [C_ALLREDUCE] = {"tree", "ring", "shm", "rd", "direct", "stage", "stream"},
    [C_GATHER] = {"tree", "ring", "shm", "direct"},
    [C_ALLGATHER] = {"tree", "ring", "shm"},
    [C_SCATTER] = {"tree", "ring", "shm", "direct"},
    [C_REDUCE_SCATTER] = {"tree", "ring", "shm"},
    [C_ALLTOALL] = {"tree", "ring", "shm", "direct"},
};

/* Forces collective coll's algorithm in this rank ("auto": the library's choice). Every
 * member of the communicator must force the same before the call. */
static inline void set_algo(int coll, const char *algo)
{
    char var[64];
    size_t k = (size_t)snprintf(var, sizeof var, "SHMC_ALGO_");
    for (const char *c = coll_names[coll]; *c && k + 1 < sizeof var; c++)
        var[k++] = (char)toupper((unsigned char)*c);
    var[k] = '\0';
    T_OK(shmc_config_set(var, algo));
}

/* Device memory for the twins of k->dev calls; NULL outside tests/device. */
struct call_mem {
    void *(*alloc)(size_t bytes);
    void (*release)(void *p);
    int (*copy)(void *dst, const void *src, size_t bytes);
};
static const struct call_mem *call_dev;

static inline void expect_bytes(const void *got, const void *want, size_t bytes, const char *what,
                                const char *algo, shmc_dtype dt, int op, size_t count, int root,
                                int inplace)
{
    if (memcmp(got, want, bytes) == 0)
        return;
    size_t b = 0;
    while (((const uint8_t *)got)[b] == ((const uint8_t *)want)[b])
        b++;
    shmct_fail(__FILE__, __LINE__, what,
               "%s wrong at byte %zu of %zu: algo %s dtype %d op %d count %zu root %d "
               "in-place %d",
               what, b, bytes, algo, (int)dt, op, count, root, inplace);
}

/* ---- one call of each collective, checked ------------------------------------------- */

struct call {
    shmc_comm *c;
    int me, n, root, inplace;
    const char *algo; /* for messages: the algorithm forced, or "auto" */
    int dev;          /* device twins of the buffers (call_dev) */
    shmc_dtype dt;
    shmc_op op;
    size_t count;
};

/* The buffer the call uses for host buffer h of bytes: h itself, or with k->dev a device
 * copy of it. */
static inline void *twin(const struct call *k, void *h, size_t bytes)
{
    if (!k->dev)
        return h;
    T_ASSERT(call_dev, "a device call outside tests/device");
    void *d = call_dev->alloc(bytes ? bytes : 1);
    T_ASSERT(d, "no device memory for %zu bytes", bytes);
    T_OK(call_dev->copy(d, h, bytes));
    return d;
}

/* After the call: the device twin's bytes back into h, and the twin freed. */
static inline void untwin(const struct call *k, void *h, void *d, size_t bytes)
{
    if (!k->dev)
        return;
    T_OK(call_dev->copy(h, d, bytes));
    call_dev->release(d);
}

/* The expected reduction of elements [first, first + count) into out. */
static inline void ref_range(const struct call *k, size_t first, size_t count, void *out)
{
    for (size_t i = 0; i < count; i++)
        cr_ref(k->dt, k->op, k->n, first + i, out, i);
}

static inline void run_reduce_family(int coll, const struct call *k)
{
    size_t es = shmc_dtype_size(k->dt), cnt = k->count, n = (size_t)k->n;
    size_t in_elems = coll == C_REDUCE_SCATTER ? n * cnt : cnt;
    uint8_t *in = shmct_xmalloc(in_elems * es), *out = shmct_xmalloc(in_elems * es);
    uint8_t *want = shmct_xmalloc(in_elems * es);
    cr_fill(k->dt, k->op, k->me, in, 0, in_elems);
    memset(out, 0xa5, in_elems * es);
    if (k->inplace)
        memcpy(out, in, in_elems * es);
    uint8_t *din = twin(k, in, in_elems * es), *dout = twin(k, out, in_elems * es);
    const void *sb = k->inplace ? SHMC_IN_PLACE : din;
    switch (coll) {
    case C_REDUCE:
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
    case C_ALLREDUCE:
        T_OK(shmc_allreduce(sb, dout, cnt, k->dt, k->op, k->c));
        untwin(k, out, dout, in_elems * es);
        ref_range(k, 0, cnt, want);
        expect_bytes(out, want, cnt * es, "allreduce", k->algo, k->dt, k->op, cnt, -1, k->inplace);
        break;
    case C_REDUCE_SCATTER:
        T_OK(shmc_reduce_scatter(sb, dout, cnt, k->dt, k->op, k->c));
        untwin(k, out, dout, in_elems * es);
        ref_range(k, (size_t)k->me * cnt, cnt, want);
        expect_bytes(out, want, cnt * es, "reduce_scatter", k->algo, k->dt, k->op, cnt, -1,
                     k->inplace);
        break;
    }
    if (din != in) /* the input twin: only freed */
        call_dev->release(din);
    free(in);
    free(out);
    free(want);
}

/* Block of rank src meant for rank dst (dst = -1: the same for everyone). */
static inline uint64_t seed(int src, int dst, size_t count)
{
    return ((uint64_t)(src + 1) << 48) ^ ((uint64_t)(dst + 2) << 32) ^ count;
}

static inline void run_move_family(int coll, const struct call *k)
{
    size_t es = shmc_dtype_size(k->dt), cnt = k->count, n = (size_t)k->n, b = cnt * es;
    uint8_t *sbuf = shmct_xmalloc(n * b), *rbuf = shmct_xmalloc(n * b),
            *want = shmct_xmalloc(n * b);
    int me = k->me, root = k->root;
    memset(rbuf, 0xa5, n * b);
    uint8_t *ds = NULL, *dr = NULL;
    switch (coll) {
    case C_BROADCAST:
        if (me == root)
            shmct_fill(rbuf, b, seed(root, -1, cnt));
        dr = twin(k, rbuf, b);
        T_OK(shmc_broadcast(dr, cnt, k->dt, root, k->c));
        untwin(k, rbuf, dr, b);
        shmct_fill(want, b, seed(root, -1, cnt));
        expect_bytes(rbuf, want, b, "broadcast", k->algo, k->dt, -1, cnt, root, 0);
        break;
    case C_GATHER:
    case C_ALLGATHER: {
        int all = coll == C_ALLGATHER, inpl = k->inplace && (all || me == root);
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
    case C_SCATTER: {
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
    case C_ALLTOALL: {
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
    return coll == C_REDUCE || coll == C_ALLREDUCE || coll == C_REDUCE_SCATTER;
}

static inline int has_root(int coll)
{
    return coll == C_BROADCAST || coll == C_REDUCE || coll == C_GATHER || coll == C_SCATTER;
}

static inline void one_call(int coll, struct call *k)
{
    if (is_reduction(coll))
        run_reduce_family(coll, k);
    else
        run_move_family(coll, k);
}

#endif /* SHMC_TEST_COLL_CALL_H */
