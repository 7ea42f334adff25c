/*
 * The test backend (SHMC_FAKE_DEVICE=1): device memory, IPC handles and copies imitated
 * with host memory, so that every device path of the library (classification, export and
 * import through the cache, the device protocol, the collectives' device mode) runs and
 * is checked by make check on machines without a GPU. Never faster or more useful than
 * host memory; documented as a testing aid only (docs/design.md).
 *
 * Like real device memory, a fake allocation cannot be touched by the CPU: it is mapped
 * PROT_NONE, and only this backend's copies and reductions open it for the moment they
 * run. A library path that used memcpy or process_vm_readv on a device buffer would crash
 * or fail here exactly as it would on a GPU. Allocations are memfds, so a peer can map
 * one (the "IPC handle" names the exporter's pid and descriptor, opened through /proc);
 * every allocation gets a new buffer id, as the CUDA driver gives.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/log.h"
#include "base/reduction.h"
#include "device/backend.h"

#define MAX_REGIONS 4096

static struct region {
    uint8_t *base;
    size_t size;
    int fd; /* ours: the memfd; imported: -1 */
    uint64_t id;
} regions[MAX_REGIONS];
static int nregions;
static uint64_t next_id = 1;

struct fake_handle {
    int32_t pid;
    int32_t fd;
};

static struct region *find(const void *p)
{
    for (int i = 0; i < nregions; i++)
        if ((const uint8_t *)p >= regions[i].base &&
            (const uint8_t *)p < regions[i].base + regions[i].size)
            return &regions[i];
    return NULL;
}

static int add(uint8_t *base, size_t size, int fd, uint64_t id)
{
    if (nregions == MAX_REGIONS)
        return 0;
    regions[nregions++] = (struct region){base, size, fd, id};
    return 1;
}

static void forget(struct region *r)
{
    *r = regions[--nregions];
}

/* Opens the fake allocation holding [p, p + n) to the CPU, if p is one: 1 if it did,
 * 0 if p is host memory, -1 if the range runs past its allocation. */
static int open_rw(const void *p, size_t n)
{
    struct region *r = find(p);
    if (!r)
        return 0;
    if (n > (size_t)(r->base + r->size - (const uint8_t *)p))
        return -1;
    mprotect(r->base, r->size, PROT_READ | PROT_WRITE);
    return 1;
}

static void close_rw(const void *p)
{
    struct region *r = find(p);
    if (r)
        mprotect(r->base, r->size, PROT_NONE);
}

static int fake_probe(char *why, size_t len)
{
    (void)why;
    (void)len;
    return 1;
}

static int fake_is_dev(const void *p)
{
    return find(p) != NULL;
}

static void *fake_alloc(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t size = (bytes + page - 1) / page * page;
    if (!size)
        size = page;
    int fd = memfd_create("shmc-fakedev", MFD_CLOEXEC);
    if (fd < 0)
        return NULL;
    void *p = MAP_FAILED;
    if (ftruncate(fd, (off_t)size) == 0)
        p = mmap(NULL, size, PROT_NONE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED || !add(p, size, fd, next_id++)) {
        if (p != MAP_FAILED)
            munmap(p, size);
        close(fd);
        return NULL;
    }
    return p;
}

static void fake_release(void *p)
{
    struct region *r = find(p);
    if (!r || r->fd < 0 || r->base != p)
        return;
    munmap(r->base, r->size);
    close(r->fd);
    forget(r);
}

static int fake_copy(void *dst, const void *src, size_t bytes)
{
    int d = open_rw(dst, bytes), s = open_rw(src, bytes);
    if (d < 0 || s < 0) {
        close_rw(dst);
        close_rw(src);
        SHMC_ERROR("fake device copy of %zu bytes runs past an allocation", bytes);
        return SHMC_ERR_CUDA;
    }
    memmove(dst, src, bytes);
    close_rw(dst);
    close_rw(src);
    return SHMC_OK;
}

static int fake_copy_start(void *dst, const void *src, size_t bytes, int *token)
{
    *token = 0;
    return fake_copy(dst, src, bytes);
}

static int fake_copy_poll(int token)
{
    (void)token;
    return 1;
}

/* As a kernel: both operands must be device memory. */
static int fake_reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order)
{
    size_t bytes = n * shmc_dtype_size(dt);
    if (shmc__reduce_check(dt, op) != SHMC_OK)
        return SHMC_ERR_ARG;
    if (open_rw(acc, bytes) != 1 || open_rw(in, bytes) != 1) {
        close_rw(acc);
        SHMC_ERROR("fake device reduction given host memory (a kernel would fault)");
        return SHMC_ERR_CUDA;
    }
    shmc__reduce(acc, in, n, dt, op, order);
    close_rw(acc);
    close_rw(in);
    return SHMC_OK;
}

static int fake_reduce_finish(void *buf, size_t n, shmc_dtype dt, shmc_op op, int nranks)
{
    if (shmc__reduce_check(dt, op) != SHMC_OK)
        return SHMC_ERR_ARG;
    if (open_rw(buf, n * shmc_dtype_size(dt)) != 1) {
        SHMC_ERROR("fake device reduction given host memory (a kernel would fault)");
        return SHMC_ERR_CUDA;
    }
    shmc__reduce_finish(buf, n, dt, op, nranks);
    close_rw(buf);
    return SHMC_OK;
}

static int fake_fold(const void *const *ins, int nin, void *const *outs, int nout, size_t n,
                     shmc_dtype dt, shmc_op op)
{
    size_t bytes = n * shmc_dtype_size(dt);
    uint8_t *acc = malloc(bytes);
    int rc = acc ? SHMC_OK : SHMC_ERR_NOMEM;
    for (int q = 0; q < nin && rc == SHMC_OK; q++) {
        if (open_rw(ins[q], bytes) != 1) {
            SHMC_ERROR("fake device reduction given host memory (a kernel would fault)");
            rc = SHMC_ERR_CUDA;
            break;
        }
        if (q == 0)
            memcpy(acc, ins[q], bytes);
        else
            shmc__reduce(acc, ins[q], n, dt, op, SHMC_ACC_LEFT);
        close_rw(ins[q]);
    }
    if (rc == SHMC_OK)
        shmc__reduce_finish(acc, n, dt, op, nin);
    for (int q = 0; q < nout && rc == SHMC_OK; q++) {
        if (open_rw(outs[q], bytes) != 1) {
            SHMC_ERROR("fake device reduction given host memory (a kernel would fault)");
            rc = SHMC_ERR_CUDA;
            break;
        }
        memcpy(outs[q], acc, bytes);
        close_rw(outs[q]);
    }
    free(acc);
    return rc;
}

static int no_ipc;      /* SHMC_FAKE_DEVICE=noipc */
static uint64_t my_gpu; /* what export says holds our memory: 1 + SHMC_RANK % gpus */

static int fake_export(const void *p, struct shmc__ipc *out)
{
    struct region *r = find(p);
    if (no_ipc) {
        SHMC_ERROR("fake device: %p cannot be shared (as memory made without IPC support)", p);
        return SHMC_ERR_CUDA;
    }
    if (!r || r->fd < 0) {
        SHMC_ERROR("fake device: %p is not an allocation of this process", p);
        return SHMC_ERR_CUDA;
    }
    struct fake_handle h = {(int32_t)getpid(), r->fd};
    memcpy(out->handle, &h, sizeof h);
    out->base = (uint64_t)(uintptr_t)r->base;
    out->size = r->size;
    out->id = r->id;
    out->gpu = my_gpu;
    return SHMC_OK;
}

static int fake_open(const struct shmc__ipc *h, void **base)
{
    struct fake_handle fh;
    char path[64];
    memcpy(&fh, h->handle, sizeof fh);
    if (fh.pid == (int32_t)getpid()) {
        SHMC_ERROR("fake device: a process cannot open its own handle (nor can CUDA's)");
        return SHMC_ERR_CUDA;
    }
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)fh.pid, (int)fh.fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        SHMC_ERROR("fake device: cannot open %s", path);
        return SHMC_ERR_CUDA;
    }
    void *p = mmap(NULL, (size_t)h->size, PROT_NONE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED || !add(p, (size_t)h->size, -1, h->id)) {
        if (p != MAP_FAILED)
            munmap(p, (size_t)h->size);
        return SHMC_ERR_CUDA;
    }
    *base = p;
    return SHMC_OK;
}

static void fake_close(void *base, size_t size)
{
    struct region *r = find(base);
    if (r && r->fd < 0) {
        munmap(base, size);
        forget(r);
    }
}

static int fake_select(int local_rank, int *device)
{
    (void)local_rank;
    *device = 0; /* one fake device */
    return SHMC_OK;
}

static const struct shmc__devops fake_ops = {
    .name = "fake",
    .probe = fake_probe,
    .is_dev = fake_is_dev,
    .alloc = fake_alloc,
    .release = fake_release,
    .copy = fake_copy,
    .copy_start = fake_copy_start,
    .copy_poll = fake_copy_poll,
    .reduce = fake_reduce,
    .reduce_finish = fake_reduce_finish,
    .reduce_fold = fake_fold,
    .export_buf = fake_export,
    .open = fake_open,
    .close = fake_close,
    .select = fake_select,
};

const struct shmc__devops *shmc__devops_fake(int refuse_ipc, unsigned gpus)
{
    no_ipc = refuse_ipc;
    const char *r = getenv("SHMC_RANK");
    my_gpu = 1 + (gpus && r ? (uint64_t)strtoul(r, NULL, 10) % gpus : 0);
    return &fake_ops;
}
