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

/* Can this process use a CUDA device? 1 if so; otherwise 0 with the reason in why (a
 * sentence for a person: no driver, no device, or a build without CUDA). Asks the
 * driver the first time only; cheap afterwards. */
int shmc__dev_probe(char *why, size_t len);

/* The name of the backend built in: "cuda" or "none". */
const char *shmc__dev_backend(void);

#endif /* SHMC_MEMKIND_H */
