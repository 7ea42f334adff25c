/*
 * The algorithms, family by family: named functions with the run signature of struct
 * shmc__coll_algo (cx.h), and one const descriptor each, which dispatch.c's tables name.
 * Reduction orders, and why each algorithm exists, are at the top of each family's file.
 */
#ifndef SHMC_ALGOS_H
#define SHMC_ALGOS_H

#include <stddef.h>

#include "coll/cx.h"

/* barrier.c. No buffers. */
int shmc__barrier_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__barrier_tree_algo;
int shmc__barrier_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__barrier_ring_algo;
int shmc__barrier_rd(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__barrier_rd_algo;
int shmc__barrier_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__barrier_shm_algo;

/* bcast.c. The buffer is rbuf; sbuf is unused. */
int shmc__bcast_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__bcast_tree_algo;
int shmc__bcast_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__bcast_ring_algo;
int shmc__bcast_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__bcast_shm_algo;

/* reduce.c. Reduce: rbuf is significant at the root only; sbuf may equal rbuf (in
 * place). All-reduce: sbuf may equal rbuf. */
int shmc__reduce_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__reduce_tree_algo;
int shmc__reduce_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__reduce_ring_algo;
int shmc__reduce_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__reduce_shm_algo;
int shmc__allreduce_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__allreduce_tree_algo;
int shmc__allreduce_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__allreduce_ring_algo;
int shmc__allreduce_rd(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__allreduce_rd_algo;
int shmc__allreduce_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
/* Up to this many bytes per chunk every rank of shmc__allreduce_shm combines every input
 * itself: one synchronisation instead of two. */
#define SHMC_SHM_ONE_PHASE_MAX (16u << 10)
extern const struct shmc__coll_algo shmc__allreduce_shm_algo;
/* Ring building blocks (blocks as shmc__block splits count). Reduce-scatter of src (this
 * rank's full input, count elements): afterwards out holds the reduced block `me` (not yet
 * AVG-finished); out may be src's block `me` (in place); src is not written otherwise.
 * Each step's block of host memory moves in pieces of at most SHMC_RING_PIECE bytes, each
 * combined as soon as it arrived, while it is still in the cache and while the peer sends
 * the next (the blocking ring and the schedules' alike, nbc.c); a device buffer's block
 * moves whole (each piece would cost a device copy and its synchronisation). */
#define SHMC_RING_PIECE ((size_t)32 << 10)
/* Elements of es bytes in a piece: SHMC_RING_PIECE bytes, at least one element. */
static inline size_t shmc__ring_piece(size_t es)
{
    return SHMC_RING_PIECE / es ? SHMC_RING_PIECE / es : 1;
}
int shmc__ring_reduce_scatter(const struct shmc__cx *x, const uint8_t *src, uint8_t *out,
                              size_t count);
/* All-gather in place in w: rank r starts with block r (or its bytes at own, not NULL)
 * and ends with all of them. */
int shmc__ring_allgather(const struct shmc__cx *x, uint8_t *w, size_t count, const uint8_t *own);
/* What the ring all-reduce borrows (devdirect.c falls back to it). */
void shmc__allreduce_ring_need(const struct shmc__cx *x, size_t count, size_t need[SHMC_NSCRATCH]);

/* flat.c: the rooted collectives in one step, every rank dealing with the root alone
 * (buffers as for the other algorithms of each collective). */
int shmc__bcast_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__bcast_direct_algo;
int shmc__scatter_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__scatter_direct_algo;
int shmc__gather_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__gather_direct_algo;
int shmc__reduce_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__reduce_direct_algo;

/* direct.c. All-reduce reading and writing peers' buffers in place; the world
 * communicator only (elsewhere it is shm: same order, same bits). */
int shmc__allreduce_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__allreduce_direct_algo;
/* stage.c. All-reduce through the arena's staging buffers; the world communicator only
 * (elsewhere it is shm: same order, same bits). */
int shmc__allreduce_stage(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__allreduce_stage_algo;
/* The same, every write into the staging buffers a streaming one (base/copy.h). */
int shmc__allreduce_stream(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__allreduce_stream_algo;
/* devdirect.c. All-reduce of device buffers: every member's mapped, one kernel each. */
int shmc__allreduce_devdirect(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__allreduce_devdirect_algo;

/* gather.c. Gather: count per rank; sbuf NULL at the root: its block is already in rbuf.
 * All-gather: sbuf NULL: this rank's block is already in rbuf. Scatter: rbuf NULL at the
 * root: it keeps its block in sbuf. */
int shmc__gather_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__gather_tree_algo;
int shmc__gather_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__gather_ring_algo;
int shmc__gather_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__gather_shm_algo;
int shmc__allgather_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__allgather_tree_algo;
int shmc__allgather_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__allgather_ring_algo;
int shmc__allgather_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__allgather_shm_algo;
int shmc__scatter_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__scatter_tree_algo;
int shmc__scatter_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__scatter_ring_algo;
int shmc__scatter_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__scatter_shm_algo;

/* reduce_scatter.c. sbuf holds n * count elements; rbuf receives this rank's count (it
 * may be sbuf itself for in place: the result replaces the first block). */
int shmc__reduce_scatter_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__reduce_scatter_tree_algo;
int shmc__reduce_scatter_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__reduce_scatter_ring_algo;
int shmc__reduce_scatter_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__reduce_scatter_shm_algo;

/* alltoall.c. count per destination; sbuf and rbuf do not overlap. */
int shmc__alltoall_tree(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__alltoall_tree_algo;
int shmc__alltoall_ring(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__alltoall_ring_algo;
int shmc__alltoall_shm(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__alltoall_shm_algo;
int shmc__alltoall_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count);
extern const struct shmc__coll_algo shmc__alltoall_direct_algo;
/* alltoall.c: all-to-all with each rank's own counts and displacements (elements), by
 * pairwise exchange; a block whose size the two ranks disagree on is SHMC_ERR_MISMATCH. */
int shmc__alltoallv_pairwise(const struct shmc__cx *x, const void *sbuf, const size_t *scounts,
                             const size_t *sdispls, void *rbuf, const size_t *rcounts,
                             const size_t *rdispls);

/* vblocks.c: the v-collectives (counts and displacements in elements). A NULL sbuf (at
 * the root for gatherv) means this rank's block is already in place; a NULL rbuf at the
 * root of scatterv, that it keeps its block. reduce_scatterv: sbuf holds every part in
 * rank order, rbuf receives part me (it may be sbuf: in place). */
int shmc__gatherv_direct(const struct shmc__cx *x, const void *sbuf, size_t scount, void *rbuf,
                         const size_t *rcounts, const size_t *displs);
int shmc__scatterv_direct(const struct shmc__cx *x, const void *sbuf, const size_t *scounts,
                          const size_t *displs, void *rbuf, size_t rcount);
int shmc__allgatherv(const struct shmc__cx *x, const void *sbuf, size_t scount, void *rbuf,
                     const size_t *rcounts, const size_t *displs);
int shmc__reduce_scatterv_direct(const struct shmc__cx *x, const void *sbuf, void *rbuf,
                                 const size_t *rcounts);
/* scan.c: scan (exclusive 0) or exscan (1) of count elements; sbuf may be rbuf. */
int shmc__scan_rd(const struct shmc__cx *x, const void *sbuf, void *rbuf, size_t count,
                  int exclusive);

#endif /* SHMC_ALGOS_H */
