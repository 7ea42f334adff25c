/*
 * Buffered sends: MPI_Buffer_attach gives a buffer; MPI_Bsend packs its message into a
 * free range of it (the message's bytes plus MPI_BSEND_OVERHEAD) and starts a send from
 * there, so the call returns at once. Ranges come back when their sends complete, found
 * on the next buffered send, at MPI_Buffer_detach (which waits for them all) and at
 * MPI_Finalize.
 */
#include "mpi_impl.h"

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct range {
    size_t off, len;
    shmc_request *r;
};

static char *buf;
static size_t size;
static struct range *ranges; /* in use, sorted by offset */
static int nranges, cap;

static void reap(int block)
{
    int k = 0;
    for (int i = 0; i < nranges; i++) {
        int done = 1;
        if (ranges[i].r) {
            if (block)
                shmc_wait(&ranges[i].r, NULL);
            else
                shmc_test(&ranges[i].r, &done, NULL);
        }
        if (!done)
            ranges[k++] = ranges[i];
    }
    nranges = k;
}

/* The offset of a free range of len bytes (first fit), or -1. */
static long find(size_t len)
{
    size_t at = 0;
    for (int i = 0; i <= nranges; i++) {
        size_t end = i < nranges ? ranges[i].off : size;
        if (end >= at && end - at >= len)
            return (long)at;
        if (i < nranges)
            at = ranges[i].off + ranges[i].len;
    }
    return -1;
}

static int attach(void *buffer, MPI_Count sz, const char *fn)
{
    int rc = shmc_mpi__check_running();
    shmc_mpi__lock();
    if (rc == MPI_SUCCESS && buf)
        rc = shmc_mpi__err(MPI_ERR_BUFFER, "a buffer is attached already (detach it first)");
    if (rc == MPI_SUCCESS && (sz < 0 || (!buffer && sz > 0)))
        rc = shmc_mpi__err(MPI_ERR_BUFFER, "the buffer is NULL or its size %lld is negative", sz);
    if (rc == MPI_SUCCESS) {
        buf = buffer ? buffer : (char *)&size; /* a zero-size buffer is attached all the same */
        size = (size_t)sz;
    }
    shmc_mpi__unlock();
    return rc == MPI_SUCCESS ? rc : shmc_mpi__raise(MPI_COMM_WORLD, rc, fn);
}

int PMPI_Buffer_attach(void *buffer, int sz)
{
    return attach(buffer, sz, __func__);
}
SHMC_MPI_ALIAS(Buffer_attach);

int PMPI_Buffer_attach_c(void *buffer, MPI_Count sz)
{
    return attach(buffer, sz, __func__);
}
SHMC_MPI_ALIAS(Buffer_attach_c);

/* Detaches the buffer, its size in *sz; *sz_int too where the caller wants an int, which
 * must hold it. */
static int detach(void *buffer_addr, MPI_Count *sz, int *sz_int, const char *fn)
{
    if (!buffer_addr || (!sz && !sz_int))
        return shmc_mpi__raise(MPI_COMM_WORLD,
                               shmc_mpi__err(MPI_ERR_ARG, "buffer_addr or size is NULL"), fn);
    shmc_mpi__lock();
    if (!buf) {
        shmc_mpi__unlock();
        return shmc_mpi__raise(MPI_COMM_WORLD,
                               shmc_mpi__err(MPI_ERR_BUFFER, "no buffer is attached"), fn);
    }
    /* MPI: detaching waits until the buffered messages have gone. With other threads
     * about, the lock is let go between looks, so that they go on meanwhile. */
    if (!shmc_mpi__mt)
        reap(1);
    for (reap(0); nranges > 0; reap(0)) {
        shmc_mpi__unlock();
        sched_yield();
        shmc_mpi__lock();
    }
    void *p = buf == (char *)&size ? NULL : buf;
    memcpy(buffer_addr, &p, sizeof p);
    if (sz)
        *sz = (MPI_Count)size;
    else /* attached by the int call, or by the _c call within an int's range */
        *sz_int = size > INT32_MAX ? INT32_MAX : (int)size;
    buf = NULL;
    size = 0;
    shmc_mpi__unlock();
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *sz)
{
    return detach(buffer_addr, NULL, sz, __func__);
}
SHMC_MPI_ALIAS(Buffer_detach);

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *sz)
{
    return detach(buffer_addr, sz, NULL, __func__);
}
SHMC_MPI_ALIAS(Buffer_detach_c);

static int start(const struct shmc_mpi_call *kk, const void *data, MPI_Count count,
                 const struct shmc_mpi_type *t, size_t bytes, int dest, int tag);

int shmc_mpi__bsend_start(const void *data, MPI_Count count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm, const char *fn)
{
    struct shmc_mpi_call k;
    const struct shmc_mpi_type *t;
    size_t bytes;
    int rc = shmc_mpi__call_p2p(comm, fn, &k);
    if (rc)
        return rc;
    if ((rc = shmc_mpi__peer(k.c, dest, &dest)) == MPI_SUCCESS)
        rc = shmc_mpi__buffer_arg(data, count, type, &t, &bytes);
    if (rc != MPI_SUCCESS)
        return shmc_mpi__call_rc(&k, rc);
    /* The buffer's ranges are the lock's; the send itself does not wait. */
    shmc_mpi__lock();
    rc = start(&k, data, count, t, bytes, dest, tag);
    shmc_mpi__unlock();
    return rc;
}

static int start(const struct shmc_mpi_call *kk, const void *data, MPI_Count count,
                 const struct shmc_mpi_type *t, size_t bytes, int dest, int tag)
{
    struct shmc_mpi_call k = *kk;
    if (!buf)
        return shmc_mpi__call_rc(
            &k, shmc_mpi__err(MPI_ERR_BUFFER, "no buffer is attached (MPI_Buffer_attach)"));
    if (nranges == cap) {
        int n = cap ? 2 * cap : 16;
        struct range *r = realloc(ranges, (size_t)n * sizeof *r);
        if (!r)
            return shmc_mpi__call_rc(&k, shmc_mpi__err(MPI_ERR_NO_MEM, "a buffered send"));
        ranges = r;
        cap = n;
    }
    reap(0);
    size_t len = bytes + MPI_BSEND_OVERHEAD;
    long off = find(len);
    if (off < 0)
        return shmc_mpi__call_rc(&k, shmc_mpi__err(MPI_ERR_BUFFER,
                                                   "the attached buffer (%zu bytes) has no room "
                                                   "for %zu more (the message and "
                                                   "MPI_BSEND_OVERHEAD)",
                                                   size, len));
    shmc_mpi__pack(data, (size_t)count, t, buf + off);
    shmc_request *r = NULL;
    int err = shmc_isend(buf + off, bytes, SHMC_UINT8, dest, tag, k.c->c, &r);
    if (err != SHMC_OK)
        return shmc_mpi__call_err(&k, err);
    int i = nranges;
    while (i > 0 && ranges[i - 1].off > (size_t)off) {
        ranges[i] = ranges[i - 1];
        i--;
    }
    ranges[i] = (struct range){(size_t)off, len, r};
    nranges++;
    return MPI_SUCCESS;
}

void shmc_mpi__bsend_end(void)
{
    reap(1);
    free(ranges);
    ranges = NULL;
    nranges = cap = 0;
    buf = NULL;
    size = 0;
}
