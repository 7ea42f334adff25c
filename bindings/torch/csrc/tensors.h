// Tensors as the C library takes them: dtype and reduction op, contiguous host memory.
#pragma once

#include <ATen/ATen.h>
#include <torch/csrc/distributed/c10d/Types.hpp>

#include <string>
#include <vector>

#include "shmcomm.h"

namespace shmct
{

// The library's dtype for a tensor's, or throws naming the dtype. Complex tensors go as
// pairs of their real type (callers view them as real first).
shmc_dtype dtype_of(const at::Tensor &t, const char *what);

// Checks what every operation needs of a tensor: defined, dense, on the CPU or a CUDA
// device (the library's device path: shmcomm.h), a dtype the library has. Throws with
// what.
void check_tensor(const at::Tensor &t, const char *what);

// The CUDA device of the first CUDA tensor in ts, or the CPU.
at::Device device_of(const std::vector<at::Tensor> &ts);

// For a CUDA device: waits until what this thread queued on its current stream of d is
// done (the library reads and writes device buffers only when they are ready, and its
// calls are synchronous with the host). Nothing for the CPU. Through torch's device-
// generic stream interface, so this extension needs no CUDA to build: a torch with CUDA
// supplies it at run time.
void device_ready(const at::Device &d);

// The library's op for a torch reduction on dtype dt; PREMUL_SUM is SUM (the caller
// scales first). Throws where the pair has no meaning (AVG of integers, bitwise ops of
// floating point, anything but SUM/AVG/PREMUL_SUM of complex).
shmc_op op_of(const c10d::ReduceOp &op, const at::Tensor &t, const char *what);

// A contiguous tensor with t's data, real-valued if t is complex (view_as_real): t itself
// when it already is one.
at::Tensor flat_view(const at::Tensor &t);

// Copies buf, a contiguous tensor in the library's form (real pairs for a complex user),
// into user, whatever user's shape and strides.
void copy_into(at::Tensor &user, const at::Tensor &buf);

// Copies flat's outs.size() equal blocks, in order, into outs (copy_into each).
void copy_blocks(const std::vector<at::Tensor> &outs, const at::Tensor &flat);

// t scaled by a PREMUL_SUM's factor (a copy), or t for other ops.
at::Tensor premul(const at::Tensor &t, const c10d::ReduceOp &op);

size_t bytes_of(const at::Tensor &t);

} // namespace shmct
