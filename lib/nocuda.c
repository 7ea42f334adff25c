/*
 * The device backend of a build without CUDA (memkind.h): no buffer is device memory.
 */
#include <stdio.h>

#include "memkind.h"

int shmc__dev_probe(char *why, size_t len)
{
    if (why && len)
        snprintf(why, len,
                 "this libshmcomm was built without CUDA (build with make CUDA=1 "
                 "where the CUDA Toolkit is installed)");
    return 0;
}

const char *shmc__dev_backend(void)
{
    return "none";
}

void *shmc__dev_malloc(size_t bytes)
{
    (void)bytes;
    return NULL;
}

void shmc__dev_free(void *p)
{
    (void)p;
}

int shmc__dev_copy(void *dst, const void *src, size_t bytes)
{
    (void)dst;
    (void)src;
    (void)bytes;
    return SHMC_ERR_CUDA;
}

int shmc__dev_reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order)
{
    (void)acc;
    (void)in;
    (void)n;
    (void)dt;
    (void)op;
    (void)order;
    return SHMC_ERR_CUDA;
}

int shmc__dev_reduce_finish(void *buf, size_t n, shmc_dtype dt, shmc_op op, int nranks)
{
    (void)buf;
    (void)n;
    (void)dt;
    (void)op;
    (void)nranks;
    return SHMC_ERR_CUDA;
}
