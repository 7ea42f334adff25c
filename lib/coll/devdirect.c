/*
 * All-reduce of device buffers in one pass (the device form of SHMC_A_DIRECT): every
 * rank maps every other member's send and receive buffers through IPC handles, and one
 * kernel per rank combines its block of all n inputs in rank order 0, 1, ..., n-1 (as
 * the shm algorithms do) and writes the result into that block of all n outputs. Each
 * byte of input is read once and each byte of output written once, which is what moving
 * the job's data at device bandwidth costs; a ring reads and writes each rank's data
 * about 2.6 times over (copies through scratch, then reductions), and when several ranks
 * share a GPU they share its bandwidth too.
 *
 *   1. Each rank describes its two buffers (shmc__dev_export) and the members all-gather
 *      the descriptions with a word saying whether that worked.
 *   2. Each rank opens the others' (cached: the second call with the same buffers pays
 *      nothing) and the members agree, in one small all-reduce, that all could. Passing
 *      it also means every member has entered the call: its input is ready (calls are
 *      synchronous) and its output may be written.
 *   3. The kernel (shmc__dev_reduce_fold) runs and is waited for, then a barrier: once
 *      past it every block of this rank's output has been written.
 * If any member could not describe or open a buffer (memory without IPC, GPUs without
 * peer access), all of them learn it at the same step and run the ring instead. In place
 * is safe: rank r reads and writes only block r of each buffer, each element read before
 * it is written.
 */
#include "../log.h"
#include "coll.h"

/* Members the kernel takes at most; beyond, api.c picks the ring. */
#define MAX_MEMBERS SHMC_DEV_FOLD_MAX

struct desc {
    struct shmc__ipc buf[2]; /* send, receive */
    uint64_t ok;
};

/* The host all-reduce and barrier of the agreement steps: words on the host. */
static int host_coll(const struct shmc__cx *x, int coll, const void *s, void *r, size_t count,
                     shmc_dtype dt, shmc_op op)
{
    struct shmc__cx y = *x;
    y.dev = 0;
    y.dt = dt;
    y.es = shmc__dtype_size(dt);
    y.op = op;
    y.root = 0;
    size_t bytes = coll == SHMC_C_ALLGATHER ? count * y.es * (size_t)x->n : count * y.es;
    return shmc__coll_run(coll, &y, s, r, count, bytes);
}

static int fall_back(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    size_t need[SHMC_NSCRATCH];
    shmc__coll_need(SHMC_C_ALLREDUCE, SHMC_A_RING, x, count, need);
    int rc = shmc__scratch_prepare(x, need);
    return rc != SHMC_OK ? rc : shmc__allreduce_ring(x, sbuf, rbuf, count);
}

SHMC_COLL_FN(shmc__allreduce_devdirect)
{
    int n = x->n, me = x->me, rc;
    if (n > MAX_MEMBERS)
        return fall_back(x, sbuf, rbuf, count);
    struct desc all[MAX_MEMBERS], mine;
    memset(&mine, 0, sizeof mine);
    mine.ok = shmc__dev_export(sbuf, &mine.buf[0]) == SHMC_OK &&
              shmc__dev_export(rbuf, &mine.buf[1]) == SHMC_OK;
    if ((rc = host_coll(x, SHMC_C_ALLGATHER, &mine, all, sizeof mine, SHMC_UINT8, SHMC_SUM)))
        return rc;
    const void *ins[MAX_MEMBERS] = {NULL};
    void *outs[MAX_MEMBERS] = {NULL};
    uint32_t failed = 0;
    for (int q = 0; q < n; q++) {
        /* A description read from a peer: both buffers must hold the call's count. */
        size_t need = count * x->es;
        if (!all[q].ok || all[q].buf[0].size - all[q].buf[0].offset < need ||
            all[q].buf[1].size - all[q].buf[1].offset < need) {
            failed = 1;
            continue;
        }
        if (q == me) {
            ins[q] = sbuf;
            outs[q] = rbuf;
            continue;
        }
        const void *at[2] = {NULL, NULL};
        int wq = shmc__comm_world_rank(x->c, q);
        if (shmc__dev_import(wq, &all[q].buf[0], &at[0]) != SHMC_OK ||
            shmc__dev_import(wq, &all[q].buf[1], &at[1]) != SHMC_OK) {
            failed = 1;
            continue;
        }
        ins[q] = at[0];
        outs[q] = (void *)(uintptr_t)at[1];
    }
    uint32_t any = 0;
    if ((rc = host_coll(x, SHMC_C_ALLREDUCE, &failed, &any, 1, SHMC_UINT32, SHMC_MAX)))
        return rc;
    if (any) {
        SHMC_INFO("device all-reduce: a member cannot map the others' buffers; using the ring");
        return fall_back(x, sbuf, rbuf, count);
    }
    size_t off, len, es = x->es;
    shmc__block(count, n, me, &off, &len);
    for (int q = 0; q < n; q++) {
        ins[q] = (const uint8_t *)ins[q] + off * es;
        outs[q] = (uint8_t *)outs[q] + off * es;
    }
    int krc = shmc__dev_reduce_fold(ins, n, outs, n, len, x->dt, x->op);
    /* The barrier either way: the others are writing into our output. */
    rc = host_coll(x, SHMC_C_BARRIER, NULL, NULL, 1, SHMC_UINT8, SHMC_SUM);
    return krc != SHMC_OK ? krc : rc;
}
