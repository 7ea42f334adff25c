/*
 * The CUDA device backend (memkind.h): which devices this process can use. Compiled
 * only when the build found the CUDA Toolkit; the runtime is linked statically, and it
 * opens the driver (libcuda.so.1) itself at its first call, so a machine without a
 * driver or a GPU gets an error from that call, which the probe turns into a reason.
 */
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>

#include "../memkind.h"

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
