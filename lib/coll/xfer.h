/*
 * Point-to-point on a communicator's collective context, for the mailbox algorithms:
 * comm ranks, exact sizes, and requests that clean up after themselves.
 */
#ifndef SHMC_XFER_H
#define SHMC_XFER_H

#include "coll/cx.h"
#include "p2p/p2p.h"

/* In an exchange, where every rank of the step sends and receives at once, a message of
 * at least SHMC_EXCHANGE_SINGLE_COPY_MIN goes by single copy (a synchronous send that its
 * receiver reads straight out of the sender's buffer) rather than eagerly through the
 * mailbox, even below the eager limit: eagerly, both ranks copy into their mailboxes and
 * out of the other's at once, each block crossing between the cores twice. Below it the
 * system call costs more than the copies it saves. Measured at 2 ranks bound, each with
 * the collective's exchanges forced either way (build/bench/measure --tests
 * allgather,alltoall,allreduce; the commit that set it has the figures): messages of 4 KiB
 * were faster eagerly, of 8 KiB and more by single copy. Not where the job's ranks share
 * CPUs: a synchronous send then waits for its receiver to be scheduled, and a schedule's
 * ring of 16 KiB messages at 4 ranks on 2 cores took 1.7 times as long (the blocking
 * calls there were level). */
#define SHMC_EXCHANGE_SINGLE_COPY_MIN ((size_t)8 << 10)
/* Does an exchange's message of `bytes` from host memory to world rank w go by single
 * copy (the rule above, where single copy is offered to w: p2p.h)? */
static inline int shmc__exchange_single_copy(const struct shmc__coll *co, int w, size_t bytes,
                                             int dev)
{
    const struct shmc__p2p *p = co->p2p;
    return !dev && bytes >= SHMC_EXCHANGE_SINGLE_COPY_MIN && !co->shared_cpus && w != p->rank &&
           shmc__p2p_single_copy(p) && shmc__p2p_offers_single_copy(p, w, bytes);
}

/* Start a send of `bytes` to, or a receive of exactly `bytes` from, comm rank peer. */
int shmc__cx_isend(const struct shmc__cx *x, const void *buf, size_t bytes, int dst,
                   struct shmc__request **req);
int shmc__cx_irecv(const struct shmc__cx *x, void *buf, size_t bytes, int src,
                   struct shmc__request **req);
/* A receive whose data this rank reads right after (a reduction's input): the sender does
 * not help copy it while it fits the cache (p2p.h, shmc__post_recv_kept). */
int shmc__cx_irecv_kept(const struct shmc__cx *x, void *buf, size_t bytes, int src,
                        struct shmc__request **req);
/* Waits for n requests (NULL entries skipped), frees them and sets them NULL. A receive
 * whose message had another size is SHMC_ERR_MISMATCH. Returns the first error. */
int shmc__cx_waitall(const struct shmc__cx *x, size_t n, struct shmc__request **reqs);
/* Starts this rank's n - 1 transfers of `bytes` each, one with every other member, from
 * the member after it round to the one before: block r at base + r * stride (stride 0:
 * the same bytes to everyone), sent to rank r or (recv) received from it. On a failed
 * post, the ones started are cancelled. */
int shmc__cx_post_all(const struct shmc__cx *x, uint8_t *base, size_t stride, size_t bytes,
                      int recv, struct shmc__request **reqs, size_t *nreq);
/* Ends requests of a call that failed (a failed post or wait): quits the call if any is
 * still pending and waits for those a peer works on (waitall's rule), then frees them. */
void shmc__cx_cancel(const struct shmc__cx *x, size_t n, struct shmc__request **reqs);
/* A local copy of the call's memory kind (bytes 0: none) made while n requests are in
 * flight, then those requests waited for (shmc__cx_waitall), even when the copy failed:
 * peers may still read or write their buffers. Returns the copy's error, else the wait's. */
int shmc__cx_copy_waitall(const struct shmc__cx *x, void *dst, const void *src, size_t bytes,
                          size_t n, struct shmc__request **reqs);
int shmc__cx_send(const struct shmc__cx *x, const void *buf, size_t bytes, int dst);
int shmc__cx_recv(const struct shmc__cx *x, void *buf, size_t bytes, int src);
int shmc__cx_recv_kept(const struct shmc__cx *x, void *buf, size_t bytes, int src);
/* Either side may be skipped with a peer of -1. */
int shmc__cx_sendrecv(const struct shmc__cx *x, const void *sbuf, size_t sbytes, int dst,
                      void *rbuf, size_t rbytes, int src);
/* The same, with a local copy (cbytes 0: none) made while the peers' transfers are in
 * flight: the rings' first step, whose own block goes into place meanwhile. The block a
 * peer reads should not be one this rank has just written: single copy then pulls each
 * line out of this core's cache (an all-gather at 2 ranks took twice as long). */
int shmc__cx_sendrecv_copy(const struct shmc__cx *x, const void *sbuf, size_t sbytes, int dst,
                           void *rbuf, size_t rbytes, int src, void *cdst, const void *csrc,
                           size_t cbytes);

#endif /* SHMC_XFER_H */
