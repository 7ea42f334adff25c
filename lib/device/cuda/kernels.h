/*
 * Reduction kernels on device memory (reduce.cu), with the host kernels'
 * semantics (base/reduction.h) bit for bit: the same orders, integer wrap-around through
 * unsigned twins, NaN-propagating MIN and MAX, float16 and bfloat16 combined in float32
 * and rounded back after every combine with the same rounding code, AVG combined as SUM
 * and divided once by shmc__cuda_reduce_finish. Both enqueue on `stream` and return at
 * once: SHMC_OK, SHMC_ERR_ARG for a dtype and op that do not go together, or
 * SHMC_ERR_CUDA if the launch failed.
 */
#ifndef SHMC_CUDA_KERNELS_H
#define SHMC_CUDA_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "shmcomm.h"

#ifdef __cplusplus
extern "C" {
#endif

int shmc__cuda_reduce(void *acc, const void *in, size_t n, shmc_dtype dt, shmc_op op, int order,
                      cudaStream_t stream);
int shmc__cuda_reduce_finish(void *buf, size_t n, shmc_dtype dt, shmc_op op, int nranks,
                             cudaStream_t stream);

/* n elements of ins[0] OP ins[1] OP ... OP ins[nin - 1], left to right (the host's rank
 * order, rounded after every combine as the host does), AVG-divided by nin, stored into
 * each of outs[0 .. nout - 1]. At most SHMC_CUDA_FOLD_MAX of each; any pointer may be
 * another process's buffer mapped through IPC. An output may be an input (each element is
 * read before it is written). */
#define SHMC_CUDA_FOLD_MAX 16
int shmc__cuda_reduce_fold(const void *const *ins, int nin, void *const *outs, int nout, size_t n,
                           shmc_dtype dt, shmc_op op, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* SHMC_CUDA_KERNELS_H */
