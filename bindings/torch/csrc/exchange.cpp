#include "exchange.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <utility>

namespace shmct
{

LeaderExchange::LeaderExchange(c10d::Backend &leaders, int host, int nhosts, at::Tensor piece,
                               int tag, shmc_dtype dt, shmc_op op)
    : leaders_(&leaders), piece_(piece), cur_(piece), tmp_(at::empty_like(piece)), tag_(tag),
      dt_(dt), op_(op)
{
    int p2 = 1;
    while (p2 * 2 <= nhosts)
        p2 *= 2;
    if (host >= p2) {
        // Its part to h - p2, the result back (which replaces the part).
        acts_ = {{kSend, host - p2}, {kRecv, host - p2}, {kTake, 0}};
        return;
    }
    if (host + p2 < nhosts)
        acts_.insert(acts_.end(), {{kRecv, host + p2}, {kCombineLeft, 0}});
    for (int d = 1; d < p2; d *= 2) {
        int peer = host ^ d;
        if ((host & d) == 0) // the lower block: sends first, its value the left operand
            acts_.insert(acts_.end(), {{kSend, peer}, {kRecv, peer}, {kCombineLeft, 0}});
        else
            acts_.insert(acts_.end(), {{kRecv, peer}, {kSend, peer}, {kCombineRight, 0}});
    }
    if (host + p2 < nhosts)
        acts_.push_back({kSend, host + p2});
}

c10::intrusive_ptr<c10d::Work> LeaderExchange::post(const Act &a)
{
    // Byte views: gloo moves the bytes, whatever the dtype.
    std::vector<at::Tensor> v{(a.kind == kSend ? cur_ : tmp_).view({-1}).view(at::kByte)};
    return a.kind == kSend ? leaders_->send(v, a.peer, tag_) : leaders_->recv(v, a.peer, tag_);
}

void LeaderExchange::combine(bool left)
{
    // inout = in OP inout. With this leader's value on the left the result lands in tmp,
    // which becomes the current value.
    const at::Tensor &in = left ? cur_ : tmp_;
    at::Tensor &inout = left ? tmp_ : cur_;
    int rc = shmc_reduce_local(in.data_ptr(), inout.data_ptr(), (size_t)in.numel(), dt_, op_);
    TORCH_CHECK(rc == SHMC_OK, "combining the hosts' parts: ", shmc_strerror(rc));
    if (left)
        std::swap(cur_, tmp_);
}

void LeaderExchange::start()
{
    if (!acts_.empty()) // (none where there is one host)
        first_ = post(acts_[0]);
}

void LeaderExchange::finish()
{
    for (size_t i = 0; i < acts_.size(); i++) {
        const Act &a = acts_[i];
        if (a.kind == kSend || a.kind == kRecv) {
            auto w = i == 0 ? std::move(first_) : post(a);
            w->wait();
        } else if (a.kind == kTake) {
            std::swap(cur_, tmp_);
        } else {
            combine(a.kind == kCombineLeft);
        }
    }
    if (!cur_.is_same(piece_))
        piece_.copy_(cur_);
}

} // namespace shmct
