/*
 * The device backend as a table of functions, which memkind.c dispatches to: the native
 * one (cuda/device.c, or none.c in a build without CUDA) and the stand-in (fake.c). Only
 * memkind.c calls these; everything else asks device.h.
 */
#ifndef SHMC_BACKEND_H
#define SHMC_BACKEND_H

#include "device/device.h"

struct shmc__devops {
    const char *name;
    int (*probe)(char *why, size_t len);
    /* p is not in the executable's image, the brk heap or this thread's stack. */
    int (*is_dev)(const void *p);
    void *(*alloc)(size_t bytes);
    void (*release)(void *p);
    int (*copy)(void *dst, const void *src, size_t bytes);
    int (*copy_start)(void *dst, const void *src, size_t bytes, int *token);
    int (*copy_poll)(int token);
    int (*reduce)(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order);
    int (*reduce_finish)(void *buf, size_t n, shmc_dtype dt, shmc_op op, int nranks);
    int (*reduce_fold)(const void *const *ins, int nin, void *const *outs, int nout, size_t n,
                       shmc_dtype dt, shmc_op op);
    /* Fills out->handle, base, size, id and gpu (memkind.c adds the offset). */
    int (*export_buf)(const void *p, struct shmc__ipc *out);
    /* Maps a peer's allocation; *base is where its first byte is here. */
    int (*open)(const struct shmc__ipc *h, void **base);
    void (*close)(void *base, size_t size);
    /* Makes device local_rank % (devices visible) current; its number in *device. */
    int (*select)(int local_rank, int *device);
};

/* The stand-in backend; no_ipc: it refuses to describe buffers for peers, as CUDA does
 * for memory made without IPC support (SHMC_FAKE_DEVICE=noipc); gpus: its memory is on
 * GPU 1 + SHMC_RANK % gpus (SHMC_FAKE_DEVICE=gpus:K), or, with 0, all on one GPU. */
const struct shmc__devops *shmc__devops_fake(int no_ipc, unsigned gpus);

/* The backend built in: CUDA, or the one of a build without it. */
const struct shmc__devops *shmc__devops_native(void);

#endif /* SHMC_BACKEND_H */
