/*
 * Memory kinds (device.h): the choice of device backend, the cheap host test in front of
 * its pointer query, and the cache of peers' buffers opened through IPC handles.
 *
 * Telling a host buffer from a device one costs the backend a driver call (hundreds of
 * nanoseconds for CUDA), more than a whole small message. Most small-message buffers lie
 * in the executable's image, the brk heap or the calling thread's stack, where no device
 * memory can be; those are answered with two comparisons and never reach the backend.
 *
 * Opening a peer's handle costs tens of microseconds and maps the allocation, so each is
 * opened once and kept: the key is the peer, the allocation's base in the peer and the
 * buffer id its driver gave it. A peer that frees an allocation and makes another can get
 * the same address back, with another id; any entry of that peer whose range overlaps a
 * newly seen allocation is stale (the peer's live allocations never overlap) and is
 * closed, which also lets the peer's driver release the memory it still pinned.
 */
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "device/backend.h"

int shmc__mk_on = -1; /* -1: not set up yet (the built-in backend, on first use) */
static uint64_t dev_opens, dev_cache_hits;

static const struct shmc__devops *ops;

#ifdef __GLIBC__
extern void *__curbrk; /* glibc's current break: what sbrk(0) returns, without the call */
#define BRK_END() ((uintptr_t)__curbrk)
#else
#define BRK_END() ((uintptr_t)sbrk(0))
#endif

/* Where no device memory can be: from the executable's lowest address to the end of the
 * brk heap (read per call: it grows), and the stack of the thread that set us up. */
static uintptr_t image_lo, stack_lo, stack_hi;

static int first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    uintptr_t lo = UINTPTR_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD &&
            info->dlpi_addr + info->dlpi_phdr[i].p_vaddr < lo)
            lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
    *(uintptr_t *)arg = lo;
    return 1; /* the first object is the executable */
}

static void find_host_ranges(void)
{
    uintptr_t lo = UINTPTR_MAX;
    dl_iterate_phdr(first_object, &lo);
    /* Only if the heap lies above the image, as Linux lays out every process. */
    image_lo = lo < (uintptr_t)sbrk(0) ? lo : UINTPTR_MAX;
    pthread_attr_t a;
    void *addr;
    size_t len;
    stack_lo = stack_hi = 0;
    if (pthread_getattr_np(pthread_self(), &a) == 0) {
        if (pthread_attr_getstack(&a, &addr, &len) == 0) {
            stack_lo = (uintptr_t)addr;
            stack_hi = stack_lo + len;
        }
        pthread_attr_destroy(&a);
    }
}

void shmc__mk_setup(int enabled, int fake, unsigned fake_gpus)
{
    ops = fake ? shmc__devops_fake(fake == SHMC_FAKE_NOIPC, fake_gpus) : shmc__devops_native();
    shmc__mk_on = (enabled || fake) && ops->is_dev != NULL; /* fake wins over SHMC_CUDA=0 */
    find_host_ranges();
}

static const struct shmc__devops *backend(void)
{
    if (!ops)
        shmc__mk_setup(1, 0, 0);
    return ops;
}

int shmc__mk_classify(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    if (shmc__mk_on < 0) {
        backend();
        if (!shmc__mk_on)
            return 0;
    }
    if ((a >= image_lo && a < BRK_END()) || (a >= stack_lo && a < stack_hi))
        return 0;
    return ops->is_dev(p);
}

int shmc__dev_probe(char *why, size_t len)
{
    return backend()->probe(why, len);
}

const char *shmc__dev_backend(void)
{
    return backend()->name;
}

void *shmc__dev_malloc(size_t bytes)
{
    return backend()->alloc(bytes);
}

void shmc__dev_free(void *p)
{
    if (p)
        backend()->release(p);
}

int shmc__dev_copy(void *dst, const void *src, size_t bytes)
{
    return bytes ? backend()->copy(dst, src, bytes) : SHMC_OK;
}

int shmc__dev_copy_start(void *dst, const void *src, size_t bytes, int *token)
{
    return backend()->copy_start(dst, src, bytes, token);
}

int shmc__dev_copy_poll(int token)
{
    return backend()->copy_poll(token);
}

int shmc__dev_reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order)
{
    if (!n)
        return SHMC_OK;
    return backend()->reduce(acc, in, n, dt, op, order);
}

int shmc__dev_reduce_finish(void *buf, size_t n, shmc_dtype dt, shmc_op op, int nranks)
{
    if (!n)
        return SHMC_OK;
    return backend()->reduce_finish(buf, n, dt, op, nranks);
}

int shmc__dev_reduce_fold(const void *const *ins, int nin, void *const *outs, int nout, size_t n,
                          shmc_dtype dt, shmc_op op)
{
    if (nin < 1 || nin > SHMC_DEV_FOLD_MAX || nout < 0 || nout > SHMC_DEV_FOLD_MAX)
        return SHMC_ERR_ARG;
    if (!n || !nout)
        return SHMC_OK;
    return backend()->reduce_fold(ins, nin, outs, nout, n, dt, op);
}

int shmc__dev_export(const void *p, struct shmc__ipc *out)
{
    memset(out, 0, sizeof *out);
    int rc = backend()->export_buf(p, out);
    if (rc == SHMC_OK)
        out->offset = (uint64_t)(uintptr_t)p - out->base;
    return rc;
}

int shmc__dev_select(int local_rank, int *device)
{
    return backend()->select(local_rank, device);
}

/* ---- the import cache ------------------------------------------------------------------ */

/* Entries for all peers together: a job has few large buffers per pair. Beyond this many
 * the least recently used is closed (and reopened if it comes back). */
#define CACHE_ENTRIES 128

static struct entry {
    int peer; /* -1: free */
    uint64_t base, size, id;
    void *local;
    uint64_t used; /* clock of the last hit, for eviction */
} cache[CACHE_ENTRIES];
static uint64_t clock_now;
static int cache_ready;

static void drop(struct entry *e)
{
    ops->close(e->local, (size_t)e->size);
    e->peer = -1;
}

int shmc__dev_import(int peer, const struct shmc__ipc *h, const void **at)
{
    const struct shmc__devops *o = backend();
    if (!cache_ready) {
        for (int i = 0; i < CACHE_ENTRIES; i++)
            cache[i].peer = -1;
        cache_ready = 1;
    }
    if (h->offset > h->size || h->base + h->size < h->base) {
        SHMC_ERROR("rank %d described a device buffer that does not fit its allocation", peer);
        return SHMC_ERR_CORRUPT;
    }
    for (int i = 0; i < CACHE_ENTRIES; i++) {
        struct entry *e = &cache[i];
        if (e->peer != peer)
            continue;
        if (e->base == h->base && e->id == h->id && e->size == h->size) {
            e->used = ++clock_now;
            dev_cache_hits++;
            *at = (const uint8_t *)e->local + h->offset;
            return SHMC_OK;
        }
        if (e->base < h->base + h->size && h->base < e->base + e->size)
            drop(e); /* the peer freed it: its live allocations never overlap */
    }
    struct entry *victim = &cache[0];
    for (int i = 0; i < CACHE_ENTRIES && victim->peer >= 0; i++)
        if (cache[i].peer < 0 || cache[i].used < victim->used)
            victim = &cache[i];
    if (victim->peer >= 0)
        drop(victim);
    void *local = NULL;
    int rc = o->open(h, &local);
    if (rc != SHMC_OK)
        return rc;
    dev_opens++;
    *victim = (struct entry){peer, h->base, h->size, h->id, local, ++clock_now};
    *at = (const uint8_t *)local + h->offset;
    return SHMC_OK;
}

void shmc__dev_forget(int peer)
{
    if (!cache_ready)
        return;
    for (int i = 0; i < CACHE_ENTRIES; i++)
        if (cache[i].peer >= 0 && (peer < 0 || cache[i].peer == peer))
            drop(&cache[i]);
}

void shmc__mk_teardown(void)
{
    shmc__dev_forget(-1);
}

void shmc__dev_counts(uint64_t *opens, uint64_t *hits)
{
    *opens = dev_opens;
    *hits = dev_cache_hits;
}
