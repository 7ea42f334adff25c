/*
 * All-reduce of device buffers in one pass (the device form of SHMC_A_DIRECT): the
 * buffers of every member are mapped through IPC handles, and kernels combine each block
 * of all n inputs in rank order 0, 1, ..., n-1 (as the shm algorithms do) and write the
 * result into that block of all n outputs. Each byte of input is read once and each byte
 * of output written once, which is what moving the job's data at device bandwidth costs;
 * a ring reads and writes each rank's data about 2.6 times over (copies through scratch,
 * then reductions).
 *
 * Member q's block is reduced by q's runner: the lowest member whose buffers are on the
 * same GPU as q's (or q, if its GPU is not known), in one kernel over the runner's
 * consecutive blocks. With a GPU per rank every rank runs its own block, all GPUs at
 * once. Ranks sharing a GPU leave it to one process: a GPU runs one process's work at a
 * time unless MPS is running, and each switch between processes costs far more than a
 * small kernel (bench/gpu_report.sh measures both); one process's
 * kernel over all their blocks needs no switch.
 *
 *   1. Each rank describes its two buffers (shmc__dev_export, which names their GPU)
 *      and the members all-gather the descriptions with a word saying whether that
 *      worked.
 *   2. Each runner opens the others' (cached: the second call with the same buffers
 *      pays nothing) and the members agree, in one small all-reduce, that all could.
 *      Passing it also means every member has entered the call: its input is ready
 *      (calls are synchronous) and its output may be written.
 *   3. A runner's kernels (shmc__dev_reduce_fold) run and are waited for, then a
 *      barrier: once past it every block of this rank's output has been written. If
 *      the barrier fails (a member died or quit), the rank still waits until every
 *      other member has entered it, left or quit, since until then a runner's kernel
 *      may be writing into this rank's output (shmc__onestep_barrier_settled).
 * If any member could not describe or open a buffer (memory without IPC, GPUs without
 * peer access), all of them learn it at the same step and run the ring instead. The
 * agreements are one-step exchanges of host words (onestep.c). In place
 * is safe: rank r reads and writes only block r of each buffer, each element read before
 * it is written.
 */
#include "base/log.h"
#include "coll/algos.h"
#include "coll/onestep.h"
#include "coll/scratch.h"

/* Members the kernel takes at most; beyond, dispatch.c picks the ring. */
#define MAX_MEMBERS SHMC_DEV_FOLD_MAX

struct desc {
    struct shmc__ipc buf[2]; /* send, receive */
    uint64_t ok;
};
static_assert(sizeof(struct desc) <= SHMC_ONESTEP_MAX, "one member's part of an exchange");

static int fall_back(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    size_t need[SHMC_NSCRATCH] = {0};
    shmc__allreduce_ring_need(x, count, need);
    int rc = shmc__scratch_prepare(x, need);
    return rc != SHMC_OK ? rc : shmc__allreduce_ring(x, sbuf, rbuf, count);
}

/* The GPU holding both of a member's buffers; 0 when not known, or not one GPU. */
static uint64_t gpu_of(const struct desc *d)
{
    return d->buf[0].gpu == d->buf[1].gpu ? d->buf[0].gpu : 0;
}

/* Who reduces member q's block: the lowest member on q's GPU, or q where that is not
 * known. Every member computes the same from the same descriptions. */
static int runner(const struct desc *all, int q)
{
    uint64_t g = gpu_of(&all[q]);
    for (int k = 0; g && k < q; k++)
        if (gpu_of(&all[k]) == g)
            return k;
    return q;
}

/* Reduces the blocks this member runs, each run of consecutive ones in one kernel. */
static int run_blocks(const struct shmc__cx *x, const struct desc *all, const void *const *ins,
                      void *const *outs, size_t count)
{
    int n = x->n;
    size_t es = x->es;
    for (int q = 0; q < n;) {
        if (runner(all, q) != x->me) {
            q++;
            continue;
        }
        int end = q + 1;
        while (end < n && runner(all, end) == x->me)
            end++;
        size_t off, len, last_off, last_len;
        shmc__block(count, n, q, &off, &len);
        shmc__block(count, n, end - 1, &last_off, &last_len);
        const void *in[MAX_MEMBERS];
        void *out[MAX_MEMBERS];
        for (int k = 0; k < n; k++) {
            in[k] = (const uint8_t *)ins[k] + off * es;
            out[k] = (uint8_t *)outs[k] + off * es;
        }
        int rc = shmc__dev_reduce_fold(in, n, out, n, last_off + last_len - off, x->dt, x->op);
        if (rc != SHMC_OK)
            return rc;
        q = end;
    }
    return SHMC_OK;
}

int shmc__allreduce_devdirect(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count)
{
    int n = x->n, me = x->me, rc;
    if (n > MAX_MEMBERS)
        return fall_back(x, sbuf, rbuf, count);
    /* The agreements' words are on the host. */
    struct shmc__cx words = shmc__cx_host(x, SHMC_UINT32, SHMC_MAX);
    struct desc all[MAX_MEMBERS], mine;
    memset(&mine, 0, sizeof mine);
    mine.ok = shmc__dev_export(sbuf, &mine.buf[0]) == SHMC_OK &&
              shmc__dev_export(rbuf, &mine.buf[1]) == SHMC_OK;
    if ((rc = shmc__onestep_allgather(&words, &mine, all, sizeof mine)))
        return rc;
    const void *ins[MAX_MEMBERS] = {NULL};
    void *outs[MAX_MEMBERS] = {NULL};
    uint32_t failed = 0;
    int runs = 0; /* we reduce a block: we map every member's buffers */
    for (int q = 0; q < n; q++)
        runs |= all[q].ok && runner(all, q) == me;
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
        if (!runs)
            continue;
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
    if ((rc = shmc__onestep_allreduce(&words, &failed, &any, 1)))
        return rc;
    if (any) {
        SHMC_INFO("device all-reduce: a member cannot map the others' buffers; using the ring");
        return fall_back(x, sbuf, rbuf, count);
    }
    int krc = run_blocks(x, all, ins, outs, count);
    /* The barrier either way: runners are writing into our output. If it fails (a
     * member died or quit), runners still in their kernel may still be writing into it:
     * we return only once each of them has entered the barrier, left or quit. */
    rc = shmc__onestep_barrier_settled(x);
    return krc != SHMC_OK ? krc : rc;
}

/* It borrows nothing; its fallback, the ring, prepares its own. */
const struct shmc__coll_algo shmc__allreduce_devdirect_algo = {shmc__allreduce_devdirect, NULL};
