#include "tensors.h"

#include <c10/core/impl/VirtualGuardImpl.h>

#include <c10/util/Exception.h>

namespace shmct
{

shmc_dtype dtype_of(const at::Tensor &t, const char *what)
{
    switch (t.scalar_type()) {
    case at::kFloat:
        return SHMC_FLOAT32;
    case at::kDouble:
        return SHMC_FLOAT64;
    case at::kHalf:
        return SHMC_FLOAT16;
    case at::kBFloat16:
        return SHMC_BFLOAT16;
    case at::kChar:
        return SHMC_INT8;
    case at::kByte:
        return SHMC_UINT8;
    case at::kShort:
        return SHMC_INT16;
    case at::kInt:
        return SHMC_INT32;
    case at::kLong:
        return SHMC_INT64;
    case at::kBool:
        return SHMC_BOOL;
    case at::kUInt16:
        return SHMC_UINT16;
    case at::kUInt32:
        return SHMC_UINT32;
    case at::kUInt64:
        return SHMC_UINT64;
    case at::kComplexFloat:
        return SHMC_FLOAT32;
    case at::kComplexDouble:
        return SHMC_FLOAT64;
    default:
        TORCH_CHECK(false, "shmc: ", what, ": tensors of dtype ", t.scalar_type(),
                    " are not supported (float32/64, float16, bfloat16, int8/16/32/64, "
                    "uint8/16/32/64, bool and complex64/128 are)");
    }
}

void check_tensor(const at::Tensor &t, const char *what)
{
    TORCH_CHECK(t.defined(), "shmc: ", what, ": undefined tensor");
    TORCH_CHECK(t.layout() == at::kStrided, "shmc: ", what,
                ": only dense tensors are supported, not ", t.layout());
    TORCH_CHECK(t.device().is_cpu() || t.device().is_cuda(), "shmc: ", what, ": the tensor is on ",
                t.device(), "; shmcomm_torch moves CPU and CUDA tensors (copy it to one of those)");
    (void)dtype_of(t, what);
}

at::Device device_of(const std::vector<at::Tensor> &ts)
{
    for (const auto &t : ts)
        if (t.defined() && t.is_cuda())
            return t.device();
    return at::Device(at::kCPU);
}

void device_ready(const at::Device &d)
{
    if (!d.is_cuda())
        return;
    c10::impl::VirtualGuardImpl impl(d.type());
    impl.getStream(d).synchronize();
}

shmc_op op_of(const c10d::ReduceOp &op, const at::Tensor &t, const char *what)
{
    bool fp = at::isFloatingType(t.scalar_type());
    bool cx = at::isComplexType(t.scalar_type());
    bool integral = !fp && !cx;
    switch (op.op_) {
    case c10d::ReduceOp::SUM:
        return SHMC_SUM;
    case c10d::ReduceOp::PREMUL_SUM:
        TORCH_CHECK(!integral, "shmc: ", what,
                    ": PREMUL_SUM needs a floating-point or complex "
                    "tensor, not ",
                    t.scalar_type());
        return SHMC_SUM;
    case c10d::ReduceOp::AVG:
        TORCH_CHECK(!integral, "shmc: ", what,
                    ": ReduceOp.AVG needs a floating-point or "
                    "complex tensor, not ",
                    t.scalar_type());
        return SHMC_AVG;
    default:
        break;
    }
    TORCH_CHECK(!cx, "shmc: ", what, ": complex tensors reduce with SUM, AVG or PREMUL_SUM only");
    switch (op.op_) {
    case c10d::ReduceOp::PRODUCT:
        return SHMC_PROD;
    case c10d::ReduceOp::MIN:
        return SHMC_MIN;
    case c10d::ReduceOp::MAX:
        return SHMC_MAX;
    case c10d::ReduceOp::BAND:
    case c10d::ReduceOp::BOR:
    case c10d::ReduceOp::BXOR:
        TORCH_CHECK(integral, "shmc: ", what,
                    ": bitwise reductions need integer or bool "
                    "tensors, not ",
                    t.scalar_type());
        return op.op_ == c10d::ReduceOp::BAND  ? SHMC_BAND
               : op.op_ == c10d::ReduceOp::BOR ? SHMC_BOR
                                               : SHMC_BXOR;
    default:
        TORCH_CHECK(false, "shmc: ", what, ": unknown reduction op ", (int)op.op_);
    }
}

at::Tensor flat_view(const at::Tensor &t)
{
    at::Tensor c = t.is_contiguous() ? t : t.contiguous();
    return at::isComplexType(c.scalar_type()) ? at::view_as_real(c) : c;
}

void copy_into(at::Tensor &user, const at::Tensor &buf)
{
    at::Tensor b =
        at::isComplexType(user.scalar_type()) ? at::view_as_complex(buf.view({-1, 2})) : buf;
    user.copy_(b.view(user.sizes()));
}

void copy_blocks(const std::vector<at::Tensor> &outs, const at::Tensor &flat)
{
    auto blocks = flat.chunk((int64_t)outs.size());
    for (size_t i = 0; i < outs.size(); i++) {
        at::Tensor o = outs[i];
        copy_into(o, blocks[i]);
    }
}

at::Tensor premul(const at::Tensor &t, const c10d::ReduceOp &op)
{
    if (op.op_ != c10d::ReduceOp::PREMUL_SUM)
        return t;
    TORCH_CHECK(op.supplement_.defined(), "shmc: PREMUL_SUM without a factor");
    auto *s = dynamic_cast<c10d::NCCLPreMulSumSupplement *>(op.supplement_.get());
    TORCH_CHECK(s, "shmc: PREMUL_SUM's factor has an unknown form");
    if (s->tensor_factor.defined())
        return (t * s->tensor_factor.to(t.device())).to(t.scalar_type());
    return (t * s->double_factor).to(t.scalar_type());
}

size_t bytes_of(const at::Tensor &t)
{
    return (size_t)t.numel() * t.element_size();
}

} // namespace shmct
