/*
 * The device backend of a build without CUDA (backend.h): no buffer is device memory, and
 * whatever asks for a device is told how to get one.
 */
#include <stdio.h>

#include "base/log.h"
#include "device/backend.h"

static int none_probe(char *why, size_t len)
{
    if (why && len)
        snprintf(why, len,
                 "this libshmcomm was built without CUDA (build with make CUDA=1 "
                 "where the CUDA Toolkit is installed)");
    return 0;
}

static void *none_alloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}

static void none_release(void *p)
{
    (void)p;
}

static int none_copy(void *dst, const void *src, size_t bytes)
{
    (void)dst;
    (void)src;
    (void)bytes;
    return SHMC_ERR_CUDA;
}

static int none_copy_start(void *dst, const void *src, size_t bytes, int *token)
{
    *token = -1;
    return none_copy(dst, src, bytes);
}

static int none_copy_poll(int token)
{
    (void)token;
    return SHMC_ERR_CUDA;
}

static int none_reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order)
{
    (void)acc;
    (void)in;
    (void)n;
    (void)dt;
    (void)op;
    (void)order;
    return SHMC_ERR_CUDA;
}

static int none_reduce_finish(void *buf, size_t n, shmc_dtype dt, shmc_op op, int nranks)
{
    (void)buf;
    (void)n;
    (void)dt;
    (void)op;
    (void)nranks;
    return SHMC_ERR_CUDA;
}

static int none_fold(const void *const *ins, int nin, void *const *outs, int nout, size_t n,
                     shmc_dtype dt, shmc_op op)
{
    (void)ins;
    (void)nin;
    (void)outs;
    (void)nout;
    (void)n;
    (void)dt;
    (void)op;
    return SHMC_ERR_CUDA;
}

static int none_export(const void *p, struct shmc__ipc *out)
{
    (void)p;
    (void)out;
    return SHMC_ERR_CUDA;
}

static int none_open(const struct shmc__ipc *h, void **base)
{
    (void)h;
    *base = NULL;
    return SHMC_ERR_CUDA;
}

static void none_close(void *base, size_t size)
{
    (void)base;
    (void)size;
}

static int none_select(int local_rank, int *device)
{
    char why[256];
    (void)local_rank;
    *device = -1;
    none_probe(why, sizeof why);
    SHMC_ERROR("no CUDA device to select: %s", why);
    return SHMC_ERR_CUDA;
}

static const struct shmc__devops none_ops = {
    .name = "none",
    .probe = none_probe,
    .is_dev = NULL, /* nothing is device memory: memkind.c never asks */
    .alloc = none_alloc,
    .release = none_release,
    .copy = none_copy,
    .copy_start = none_copy_start,
    .copy_poll = none_copy_poll,
    .reduce = none_reduce,
    .reduce_finish = none_reduce_finish,
    .reduce_fold = none_fold,
    .export_buf = none_export,
    .open = none_open,
    .close = none_close,
    .select = none_select,
};

const struct shmc__devops *shmc__devops_native(void)
{
    return &none_ops;
}
