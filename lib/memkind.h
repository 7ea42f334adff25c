/*
 * Memory kinds: where a buffer lives, and the device backend that handles the buffers
 * that are not host memory. The rest of the library asks here and never names CUDA.
 *
 * The backend is a table of functions (devops.h): lib/cuda/ when the build found the CUDA
 * Toolkit (make CUDA=auto|1), lib/nocuda.c otherwise, or, when SHMC_FAKE_DEVICE=1, the
 * test backend of lib/fakedev.c, whose "device memory" is host memory that only the
 * backend may touch (so that the device paths run, and are checked, on machines without
 * a GPU). This file's functions dispatch to it and keep what is the same for every
 * backend: the cheap host test in front of the pointer query, and the cache of buffers
 * imported from peers.
 *
 * The CUDA backend is linked with the CUDA runtime statically, so one libshmcomm runs on
 * machines with and without a GPU or driver: without them the probe says why, and host
 * buffers are unaffected. Single-threaded, like the library (shmcomm.h).
 */
#ifndef SHMC_MEMKIND_H
#define SHMC_MEMKIND_H

#include <stddef.h>
#include <stdint.h>

#include "shmcomm.h"

/* What an exporter sends so that a peer can map its device buffer: the backend's opaque
 * handle of the allocation, where the allocation starts and how long it is in the
 * exporter's address space, the buffer id the driver gave it (a freed and re-made
 * allocation at the same address gets another), and the message's offset in it. */
#define SHMC_IPC_HANDLE_BYTES 64
struct shmc__ipc {
    uint8_t handle[SHMC_IPC_HANDLE_BYTES];
    uint64_t base;
    uint64_t size;
    uint64_t id;
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
 * (whatever enabled says), none if enabled is 0, otherwise the one built in. Before
 * shmc_init, the built-in one. */
void shmc__mk_setup(int enabled, int fake);
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
/* Closes what was imported from peer (it left). */
void shmc__dev_forget(int peer);
/* Imports that had to open a handle, and those the cache answered (tests, benchmarks). */
extern uint64_t shmc__dev_opens, shmc__dev_cache_hits;

#endif /* SHMC_MEMKIND_H */
