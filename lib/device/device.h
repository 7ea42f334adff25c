/*
 * Layer device: memory kinds, and the device backend that handles the buffers that are
 * not host memory. The rest of the library asks here and never names CUDA.
 *
 * Owns: telling a host buffer from a device one (memkind.c: a cheap host test in front of
 * the backend's pointer query), the cache of peers' buffers opened through IPC handles,
 * the library's device copies, reductions and allocations, and the backend table
 * (backend.h): cuda/ when the build found the CUDA Toolkit (make CUDA=auto|1), none.c
 * otherwise, or, with SHMC_FAKE_DEVICE=1, the stand-in of fake.c, whose "device memory"
 * is host memory that only the backend may touch (so that the device paths run, and are
 * checked, on machines without a GPU).
 * May call: base. It needs nothing of the job: a peer is a number its callers give.
 *
 * The CUDA backend is linked with the CUDA runtime statically, so one libshmcomm runs on
 * machines with and without a GPU or driver: without them the probe says why, and host
 * buffers are unaffected. Single-threaded, like the library (shmcomm.h).
 */
#ifndef SHMC_DEVICE_H
#define SHMC_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "base/copy.h"
#include "shmcomm.h"

/* What an exporter sends so that a peer can map its device buffer: the backend's opaque
 * handle of the allocation, where the allocation starts and how long it is in the
 * exporter's address space, the buffer id the driver gave it (a freed and re-made
 * allocation at the same address gets another), the GPU that holds it (a hash of the
 * device's UUID, the same in every process whatever devices each sees; 0: not known),
 * and the message's offset in it. */
#define SHMC_IPC_HANDLE_BYTES 64
struct shmc__ipc {
    uint8_t handle[SHMC_IPC_HANDLE_BYTES];
    uint64_t base;
    uint64_t size;
    uint64_t id;
    uint64_t gpu;
    uint64_t offset;
};

/* Non-zero while a device backend may report device memory (it is built, or faked, and
 * SHMC_CUDA is not 0). Host-only jobs pay one load and branch per buffer. */
extern int shmc__mk_on;
int shmc__mk_classify(const void *p);

/* Is p device memory (to be moved by the device backend, never by memcpy)? Host,
 * pinned host and managed memory all read as host. */
static inline int shmc__mk_dev(const void *p)
{
    return shmc__mk_on && p && shmc__mk_classify(p);
}

/* Chooses the backend from the configuration (shmc_init): the fake one if fake is set
 * (whatever enabled says; SHMC_FAKE_NOIPC: one whose memory cannot be shared), none if
 * enabled is 0, otherwise the one built in. Before shmc_init, the built-in one. */
void shmc__mk_setup(int enabled, int fake, unsigned fake_gpus);
/* Closes every imported buffer (shmc_finalize). */
void shmc__mk_teardown(void);

/* Can this process use a device? 1 if so; otherwise 0 with the reason in why (a
 * sentence for a person: no driver, no device, or a build without CUDA). Asks the
 * driver the first time only; cheap afterwards. */
int shmc__dev_probe(char *why, size_t len);

/* The name of the backend in use: "cuda", "fake" or "none". */
const char *shmc__dev_backend(void);

/* Device memory on the current device, and copies in any direction (host or device at
 * either end); synchronous. NULL or SHMC_ERR_CUDA when no device can be used. */
void *shmc__dev_malloc(size_t bytes);
void shmc__dev_free(void *p);
int shmc__dev_copy(void *dst, const void *src, size_t bytes);

/* Copies n bytes: memcpy, or the backend's copy when dev says either side is device
 * memory (the callers know: mailbox and slot memory is host memory, and a request or a
 * collective call knows its buffers' kind). */
static inline int shmc__copy_kind(void *dst, const void *src, size_t n, int dev)
{
    if (dev)
        return shmc__dev_copy(dst, src, n);
    shmc__copy(dst, src, n);
    return SHMC_OK;
}

/* An asynchronous copy on the library's own stream: *token to poll with
 * shmc__dev_copy_poll, which returns 1 once the bytes are in place (the token is then
 * released), 0 while they are not, or SHMC_ERR_CUDA. */
int shmc__dev_copy_start(void *dst, const void *src, size_t bytes, int *token);
int shmc__dev_copy_poll(int token);

/* shmc__reduce and shmc__reduce_finish (reduce.h) on device memory, with the same
 * results bit for bit; synchronous. SHMC_OK, SHMC_ERR_ARG or SHMC_ERR_CUDA. */
int shmc__dev_reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order);
int shmc__dev_reduce_finish(void *buf, size_t n, shmc_dtype dt, shmc_op op, int nranks);

/* n elements of ins[0] OP ins[1] OP ... OP ins[nin - 1] in that order (as the host's
 * rank-order reductions, bit for bit), AVG-divided by nin, written to every one of
 * outs[0 .. nout - 1]; inputs and outputs may be peers' imported buffers, and an output
 * may be an input. At most SHMC_DEV_FOLD_MAX of each; synchronous. */
#define SHMC_DEV_FOLD_MAX 16
int shmc__dev_reduce_fold(const void *const *ins, int nin, void *const *outs, int nout, size_t n,
                          shmc_dtype dt, shmc_op op);

/* Describes the device buffer at p for a peer. SHMC_OK or SHMC_ERR_CUDA (memory the
 * backend cannot export, such as some virtual-memory-managed allocations). */
int shmc__dev_export(const void *p, struct shmc__ipc *out);
/* The address, in this process, of the bytes world rank peer exported at h. Opened
 * once per allocation and kept (keyed by peer, base and buffer id); an entry whose
 * range overlaps a new allocation of the same peer is stale (the peer freed it) and is
 * closed. SHMC_OK, SHMC_ERR_CORRUPT (offset beyond the allocation) or SHMC_ERR_CUDA. */
int shmc__dev_import(int peer, const struct shmc__ipc *h, const void **at);
/* Makes the device of LOCAL_RANK local_rank current (local_rank modulo the devices this
 * process sees) and says which. SHMC_OK or SHMC_ERR_CUDA, with the reason logged. */
int shmc__dev_select(int local_rank, int *device);
/* Closes what was imported from peer (it left), or from every peer (-1). */
void shmc__dev_forget(int peer);
/* Imports that had to open a handle, and those the cache answered (shmc_stat). */
void shmc__dev_counts(uint64_t *opens, uint64_t *hits);

#endif /* SHMC_DEVICE_H */
