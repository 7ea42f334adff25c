/*
 * Memory kinds: where a buffer lives, and the device backend that handles the buffers
 * that are not host memory. The rest of the library asks here and never names CUDA: the
 * backend is lib/cuda/ when the build found the CUDA Toolkit (make CUDA=auto|1), and
 * lib/nocuda.c otherwise, which says that no buffer is device memory.
 *
 * The backend is linked with the CUDA runtime statically, so one libshmcomm runs on
 * machines with and without a GPU or driver: without them the probe says why, and host
 * buffers are unaffected.
 */
#ifndef SHMC_MEMKIND_H
#define SHMC_MEMKIND_H

#include <stddef.h>

#include "shmcomm.h"

/* Can this process use a CUDA device? 1 if so; otherwise 0 with the reason in why (a
 * sentence for a person: no driver, no device, or a build without CUDA). Asks the
 * driver the first time only; cheap afterwards. */
int shmc__dev_probe(char *why, size_t len);

/* The name of the backend built in: "cuda" or "none". */
const char *shmc__dev_backend(void);

/* Device memory on the current device, and copies in any direction (host or device at
 * either end); synchronous. NULL or SHMC_ERR_CUDA when no device can be used. */
void *shmc__dev_malloc(size_t bytes);
void shmc__dev_free(void *p);
int shmc__dev_copy(void *dst, const void *src, size_t bytes);

/* shmc__reduce and shmc__reduce_finish (reduce.h) on device memory, with the same
 * results bit for bit; synchronous. SHMC_OK, SHMC_ERR_ARG or SHMC_ERR_CUDA. */
int shmc__dev_reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order);
int shmc__dev_reduce_finish(void *buf, size_t n, shmc_dtype dt, shmc_op op, int nranks);

#endif /* SHMC_MEMKIND_H */
