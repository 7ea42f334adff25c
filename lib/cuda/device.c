/*
 * The CUDA device backend (memkind.h): which devices this process can use. Compiled
 * only when the build found the CUDA Toolkit; the runtime is linked statically, and it
 * opens the driver (libcuda.so.1) itself at its first call, so a machine without a
 * driver or a GPU gets an error from that call, which the probe turns into a reason.
 */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>

#include "../log.h"
#include "../memkind.h"
#include "kernels.h"

static int probed = -1; /* -1: not asked yet; then 0 or 1 */
static char reason[256];

int shmc__dev_probe(char *why, size_t len)
{
    if (probed < 0) {
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
        if (e == cudaErrorInsufficientDriver && !driver)
            snprintf(reason, sizeof reason,
                     "no CUDA driver is installed (libcuda.so.1 could "
                     "not be loaded)");
        else if (e != cudaSuccess)
            snprintf(reason, sizeof reason, "no usable CUDA driver or device: %s (%s)",
                     cudaGetErrorString(e), cudaGetErrorName(e));
        else if (n == 0)
            snprintf(reason, sizeof reason, "the CUDA driver sees no device");
        if (driver)
            dlclose(driver);
        probed = e == cudaSuccess && n > 0;
    }
    if (!probed && why && len)
        snprintf(why, len, "%s", reason);
    return probed;
}

const char *shmc__dev_backend(void)
{
    return "cuda";
}

/* A failed CUDA call: logged with its name, and SHMC_ERR_CUDA. */
static int cuda_failed(const char *what, cudaError_t e)
{
    SHMC_ERROR("%s failed: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    return SHMC_ERR_CUDA;
}

void *shmc__dev_malloc(size_t bytes)
{
    void *p = NULL;
    if (!shmc__dev_probe(NULL, 0))
        return NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        cuda_failed("cudaMalloc", e);
        return NULL;
    }
    return p;
}

void shmc__dev_free(void *p)
{
    if (p)
        cudaFree(p);
}

int shmc__dev_copy(void *dst, const void *src, size_t bytes)
{
    if (!shmc__dev_probe(NULL, 0))
        return SHMC_ERR_CUDA;
    cudaError_t e = cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
    return e == cudaSuccess ? SHMC_OK : cuda_failed("cudaMemcpy", e);
}

/* Waits for what was enqueued on the default stream; the launch's own error first. */
static int finish(int rc)
{
    if (rc != SHMC_OK)
        return rc;
    cudaError_t e = cudaStreamSynchronize(0);
    return e == cudaSuccess ? SHMC_OK : cuda_failed("a reduction kernel", e);
}

int shmc__dev_reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order)
{
    if (!shmc__dev_probe(NULL, 0))
        return SHMC_ERR_CUDA;
    return finish(shmc__cuda_reduce(acc, in, n, dt, op, order, 0));
}

int shmc__dev_reduce_finish(void *buf, size_t n, shmc_dtype dt, shmc_op op, int nranks)
{
    if (!shmc__dev_probe(NULL, 0))
        return SHMC_ERR_CUDA;
    return finish(shmc__cuda_reduce_finish(buf, n, dt, op, nranks, 0));
}
