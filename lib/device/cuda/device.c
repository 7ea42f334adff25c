/*
 * The CUDA device backend (device/backend.h). Compiled only when the build found the CUDA
 * Toolkit; the runtime is linked statically, and it opens the driver (libcuda.so.1)
 * itself at its first call, so a machine without a driver or a GPU gets an error from
 * that call, which the probe turns into a reason.
 *
 * Pointer queries go to the driver directly (cuPointerGetAttributes, found with dlsym),
 * and only once the process has loaded it: a process that never touched CUDA has no
 * device memory, and asking the runtime would initialise it (and create a context) in
 * every host-only job. Whether the driver is loaded is learnt from the dynamic loader's
 * count of objects added, which changes only when something is loaded.
 *
 * Copies and reductions run on the library's own non-blocking stream, so they neither
 * wait for nor delay the caller's work on other streams; every call is synchronous with
 * respect to the host (the caller synchronises the stream that wrote a buffer before
 * passing it), except the receiver's copies, which progress polls through events.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/log.h"
#include "device/backend.h"
#include "device/cuda/kernels.h"

static int probed = -1; /* -1: not asked yet; then 0 or 1 */
static char reason[256];

static int cuda_probe(char *why, size_t len)
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

/* A failed CUDA call: logged with its name, and SHMC_ERR_CUDA. */
static int cuda_failed(const char *what, cudaError_t e)
{
    SHMC_ERROR("%s failed: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
    return SHMC_ERR_CUDA;
}

/* ---- pointer queries ------------------------------------------------------------------- */

typedef CUresult (*getattrs_fn)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);
static getattrs_fn getattrs;
static unsigned long long adds_seen = ~0ull;

static int count_adds(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    *(unsigned long long *)arg = info->dlpi_adds;
    return 1;
}

/* Whether to look at the loader again: once per tick of the coarse clock, which is
 * cheaper to read than asking the loader or reading the fine clock. A device
 * pointer exists only once the driver is loaded and initialised and has made a context
 * and an allocation, which takes tens of milliseconds at the least; so a look happens
 * between the driver's load and the first device pointer anyone could pass. */
static int tick_passed(void)
{
    static struct timespec seen = {-1, 0};
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
    if (t.tv_sec == seen.tv_sec && t.tv_nsec == seen.tv_nsec)
        return 0;
    seen = t;
    return 1;
}

/* The driver's query, once the process has loaded the driver. */
static getattrs_fn driver_query(void)
{
    if (getattrs)
        return getattrs;
    if (!tick_passed())
        return NULL;
    unsigned long long adds = 0;
    dl_iterate_phdr(count_adds, &adds);
    if (adds == adds_seen)
        return NULL;
    adds_seen = adds;
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (h) /* kept open: the query is used from now on */
        getattrs = (getattrs_fn)(uintptr_t)dlsym(h, "cuPointerGetAttributes");
    return getattrs;
}

static int cuda_is_dev(const void *p)
{
    getattrs_fn q = driver_query();
    if (!q)
        return 0;
    unsigned type = 0, managed = 0;
    CUpointer_attribute what[2] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   CU_POINTER_ATTRIBUTE_IS_MANAGED};
    void *into[2] = {&type, &managed};
    /* Memory of no context reads as host: the query then fails or leaves type 0. */
    return q(2, what, into, (CUdeviceptr)(uintptr_t)p) == CUDA_SUCCESS &&
           type == CU_MEMORYTYPE_DEVICE && !managed;
}

/* ---- memory, copies, reductions -------------------------------------------------------- */

static void *cuda_alloc(size_t bytes)
{
    void *p = NULL;
    if (!cuda_probe(NULL, 0))
        return NULL;
    cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        cuda_failed("cudaMalloc", e);
        return NULL;
    }
    return p;
}

static void cuda_release(void *p)
{
    cudaFree(p);
}

static cudaStream_t stream;

static int get_stream(void)
{
    if (stream)
        return SHMC_OK;
    if (!cuda_probe(NULL, 0))
        return SHMC_ERR_CUDA;
    cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    return e == cudaSuccess ? SHMC_OK : cuda_failed("cudaStreamCreateWithFlags", e);
}

/* Waits for what was enqueued on our stream; the launch's own error first. */
static int finish(int rc)
{
    if (rc != SHMC_OK)
        return rc;
    cudaError_t e = cudaStreamSynchronize(stream);
    return e == cudaSuccess ? SHMC_OK : cuda_failed("a copy or reduction on the device", e);
}

static int cuda_copy(void *dst, const void *src, size_t bytes)
{
    int rc = get_stream();
    if (rc != SHMC_OK)
        return rc;
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream);
    return finish(e == cudaSuccess ? SHMC_OK : cuda_failed("cudaMemcpyAsync", e));
}

/* Events of copies in flight: a bit per event, set while in use. */
#define NEVENTS 64
static cudaEvent_t events[NEVENTS];
static uint64_t events_busy;

static int cuda_copy_start(void *dst, const void *src, size_t bytes, int *token)
{
    int rc = get_stream();
    *token = -1;
    if (rc != SHMC_OK)
        return rc;
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream);
    if (e != cudaSuccess)
        return cuda_failed("cudaMemcpyAsync", e);
    int i = events_busy == ~0ull ? -1 : __builtin_ctzll(~events_busy);
    if (i >= 0 && !events[i] &&
        cudaEventCreateWithFlags(&events[i], cudaEventDisableTiming) != cudaSuccess)
        i = -1;
    if (i < 0 || cudaEventRecord(events[i], stream) != cudaSuccess)
        return finish(SHMC_OK); /* no event to poll: wait here instead */
    events_busy |= 1ull << i;
    *token = i;
    return SHMC_OK;
}

static int cuda_copy_poll(int token)
{
    if (token < 0)
        return 1;
    cudaError_t e = cudaEventQuery(events[token]);
    if (e == cudaErrorNotReady)
        return 0;
    events_busy &= ~(1ull << token);
    return e == cudaSuccess ? 1 : cuda_failed("a copy from a peer's device buffer", e);
}

static int cuda_reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order)
{
    int rc = get_stream();
    return rc != SHMC_OK ? rc : finish(shmc__cuda_reduce(acc, in, n, dt, op, order, stream));
}

static int cuda_reduce_finish(void *buf, size_t n, shmc_dtype dt, shmc_op op, int nranks)
{
    int rc = get_stream();
    return rc != SHMC_OK ? rc : finish(shmc__cuda_reduce_finish(buf, n, dt, op, nranks, stream));
}

static int cuda_fold(const void *const *ins, int nin, void *const *outs, int nout, size_t n,
                     shmc_dtype dt, shmc_op op)
{
    int rc = get_stream();
    return rc != SHMC_OK ? rc
                         : finish(shmc__cuda_reduce_fold(ins, nin, outs, nout, n, dt, op, stream));
}

_Static_assert(SHMC_CUDA_FOLD_MAX == SHMC_DEV_FOLD_MAX, "one limit");

/* ---- IPC ------------------------------------------------------------------------------- */

_Static_assert(sizeof(cudaIpcMemHandle_t) <= SHMC_IPC_HANDLE_BYTES, "IPC handle fits");

/* Which GPU device ordinal `ord` of this process is, the same in every process: a hash
 * of its UUID (ordinals depend on CUDA_VISIBLE_DEVICES), never 0; asked once per ordinal.
 * 0 if the runtime cannot say. */
static uint64_t gpu_of(int ord)
{
    static uint64_t known[64];
    if (ord < 0 || ord >= 64)
        return 0;
    if (!known[ord]) {
        struct cudaDeviceProp prop;
        if (cudaGetDeviceProperties(&prop, ord) != cudaSuccess)
            return 0;
        uint64_t h = 1469598103934665603ull; /* FNV-1a */
        for (size_t i = 0; i < sizeof prop.uuid.bytes; i++)
            h = (h ^ (uint8_t)prop.uuid.bytes[i]) * 1099511628211ull;
        known[ord] = h | 1;
    }
    return known[ord];
}

static int cuda_export(const void *p, struct shmc__ipc *out)
{
    getattrs_fn q = driver_query();
    CUdeviceptr base = 0;
    size_t size = 0;
    unsigned long long id = 0;
    unsigned ipc_ok = 0;
    CUpointer_attribute what[4] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                   CU_POINTER_ATTRIBUTE_RANGE_SIZE, CU_POINTER_ATTRIBUTE_BUFFER_ID,
                                   CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE};
    void *into[4] = {&base, &size, &id, &ipc_ok};
    if (!q || q(4, what, into, (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS || !base) {
        SHMC_ERROR("the CUDA driver could not describe device buffer %p", p);
        return SHMC_ERR_CUDA;
    }
    if (!ipc_ok) {
        SHMC_ERROR("device buffer %p cannot be shared with cudaIpcGetMemHandle (memory from "
                   "cuMemCreate or a pool without IPC, such as PyTorch's expandable segments); "
                   "allocate it with cudaMalloc",
                   p);
        return SHMC_ERR_CUDA;
    }
    /* The handles of the last few allocations sent from, with their GPU: a buffer sent
     * again and again (every step of a training loop) asks the driver once. The buffer id
     * tells a freed and remade allocation at the same base from the one kept. */
    static struct {
        CUdeviceptr base;
        unsigned long long id;
        uint64_t gpu;
        cudaIpcMemHandle_t h;
    } made[8];
    static unsigned next;
    int k = -1;
    for (int i = 0; i < 8 && k < 0; i++)
        if (made[i].base == base && made[i].id == id)
            k = i;
    if (k < 0) {
        k = (int)(next++ % 8);
        cudaError_t e = cudaIpcGetMemHandle(&made[k].h, (void *)(uintptr_t)base);
        if (e != cudaSuccess) {
            made[k].base = 0;
            return cuda_failed("cudaIpcGetMemHandle", e);
        }
        made[k].base = base;
        made[k].id = id;
        /* Asked apart: a driver that cannot say leaves the GPU unknown (0), which costs
         * the device all-reduce its one-runner-per-GPU plan, not the buffer its export. */
        int ord = -1;
        CUpointer_attribute which = CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL;
        void *ord_into = &ord;
        made[k].gpu = q(1, &which, &ord_into, base) == CUDA_SUCCESS ? gpu_of(ord) : 0;
    }
    memcpy(out->handle, &made[k].h, sizeof made[k].h);
    out->base = (uint64_t)base;
    out->size = size;
    out->id = id;
    out->gpu = made[k].gpu;
    return SHMC_OK;
}

static int cuda_open(const struct shmc__ipc *hd, void **base)
{
    cudaIpcMemHandle_t h;
    memcpy(&h, hd->handle, sizeof h);
    if (!cuda_probe(NULL, 0)) {
        SHMC_ERROR("a peer sent a device buffer, but this process has no CUDA device: %s", reason);
        return SHMC_ERR_CUDA;
    }
    cudaError_t e = cudaIpcOpenMemHandle(base, h, cudaIpcMemLazyEnablePeerAccess);
    return e == cudaSuccess ? SHMC_OK : cuda_failed("cudaIpcOpenMemHandle", e);
}

static void cuda_close(void *base, size_t size)
{
    (void)size;
    cudaIpcCloseMemHandle(base);
}

static int cuda_select(int local_rank, int *device)
{
    int n = 0;
    *device = -1;
    if (!cuda_probe(NULL, 0)) {
        SHMC_ERROR("no CUDA device to select: %s", reason);
        return SHMC_ERR_CUDA;
    }
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess)
        return cuda_failed("cudaGetDeviceCount", e);
    int d = local_rank % n;
    if ((e = cudaSetDevice(d)) != cudaSuccess)
        return cuda_failed("cudaSetDevice", e);
    *device = d;
    return SHMC_OK;
}

static const struct shmc__devops cuda_ops = {
    .name = "cuda",
    .probe = cuda_probe,
    .is_dev = cuda_is_dev,
    .alloc = cuda_alloc,
    .release = cuda_release,
    .copy = cuda_copy,
    .copy_start = cuda_copy_start,
    .copy_poll = cuda_copy_poll,
    .reduce = cuda_reduce,
    .reduce_finish = cuda_reduce_finish,
    .reduce_fold = cuda_fold,
    .export_buf = cuda_export,
    .open = cuda_open,
    .close = cuda_close,
    .select = cuda_select,
};

const struct shmc__devops *shmc__devops_native(void)
{
    return &cuda_ops;
}
