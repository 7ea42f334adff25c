#include "hosts.h"

#include <ATen/ATen.h>
#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <mutex>
#include <numeric>
#include <optional>
#include <utility>

#include "backend.h"
#include "exchange.h"
#include "shmcomm.h"
#include "tensors.h"
#include "work.h"

namespace shmct
{

namespace
{
using WorkPtr = c10::intrusive_ptr<c10d::Work>;

// Large tensors cross hosts in pieces of this many bytes, a piece's steps overlapping its
// neighbours' (allreduce_flat).
constexpr int64_t kPiece = 4 << 20;

// Pieces of an all-reduce above this many bytes cross hosts by gloo's ring, which sends
// both ways at once, smaller ones by the leaders' exchange (exchange.h), which sends fewer
// messages.
constexpr int64_t kExchangeMax = 1 << 20;

// Waits for a step's work (gloo's, or one of the host's group, already complete).
void finish(const WorkPtr &w)
{
    if (w)
        w->wait();
}

// A contiguous stand-in for t whose bytes the engine moves whatever t's dtype (gloo has
// no int16 or unsigned types beyond uint8, shmc has them all): t itself when it is
// contiguous, else a copy that back() copies into t.
struct Bytes {
    at::Tensor user, buf;
    explicit Bytes(const at::Tensor &t) : user(t), buf(t.is_contiguous() ? t : t.contiguous())
    {
    }
    at::Tensor view() const
    {
        return buf.reshape({-1}).view(at::kByte);
    }
    void back()
    {
        if (!buf.is_same(user))
            user.copy_(buf);
    }
};

std::vector<Bytes> bytes_of_all(const std::vector<at::Tensor> &ts)
{
    std::vector<Bytes> b;
    b.reserve(ts.size());
    for (const auto &t : ts)
        b.emplace_back(t);
    return b;
}

std::vector<at::Tensor> views(const std::vector<Bytes> &bs)
{
    std::vector<at::Tensor> v;
    v.reserve(bs.size());
    for (const auto &b : bs)
        v.push_back(b.view());
    return v;
}

void backs(std::vector<Bytes> &bs)
{
    for (auto &b : bs)
        b.back();
}

// Does the engine's all-reduce (gloo's for CPU tensors, NCCL's for CUDA ones) combine
// dtype with op as shmc does? Else the leaders exchange. (NCCL has no bitwise ops.)
bool engine_reduces(at::ScalarType dt, c10d::ReduceOp::RedOpType op, bool cuda)
{
    bool fp = dt == at::kFloat || dt == at::kDouble || dt == at::kHalf || dt == at::kBFloat16;
    bool in = dt == at::kChar || dt == at::kByte || dt == at::kInt || dt == at::kLong;
    bool arith = op == c10d::ReduceOp::SUM || op == c10d::ReduceOp::PRODUCT ||
                 op == c10d::ReduceOp::MIN || op == c10d::ReduceOp::MAX;
    bool bitwise =
        op == c10d::ReduceOp::BAND || op == c10d::ReduceOp::BOR || op == c10d::ReduceOp::BXOR;
    return (fp && arith) || (in && (arith || (bitwise && !cuda)));
}
} // namespace

ProcessGroupHosts::ProcessGroupHosts(c10::intrusive_ptr<c10d::Backend> local, Engines cpu,
                                     Engines cuda, int rank, int size,
                                     std::vector<std::vector<int64_t>> hosts,
                                     std::chrono::milliseconds timeout, std::string group)
    : c10d::Backend(rank, size), local_(std::move(local)), cpu_(std::move(cpu)),
      cuda_(std::move(cuda)), hosts_(std::move(hosts)), host_of_(size, -1), local_of_(size, -1),
      group_(std::move(group))
{
    for (size_t h = 0; h < hosts_.size(); h++)
        for (size_t i = 0; i < hosts_[h].size(); i++) {
            int64_t r = hosts_[h][i];
            TORCH_CHECK(r >= 0 && r < size && host_of_[r] < 0, "shmc: group '", group_, "': host ",
                        h, " lists rank ", r, ", which is out of range or listed twice");
            host_of_[r] = (int)h;
            local_of_[r] = (int)i;
        }
    for (int r = 0; r < size; r++)
        TORCH_CHECK(host_of_[r] >= 0, "shmc: group '", group_, "': rank ", r, " is on no host");
    host_ = host_of_[rank];
    alone_ = true;
    for (const auto &h : hosts_)
        alone_ = alone_ && h.size() == 1;
    in_order_ = true;
    for (int r = 0; r < size; r++)
        in_order_ = in_order_ &&
                    (size_t)host_of_[r] * hosts_[0].size() + local_of_[r] == (size_t)r &&
                    hosts_[host_of_[r]].size() == hosts_[0].size();
    bool leads = local_of_[rank] == 0;
    TORCH_CHECK(cpu_.all && leads == (bool)cpu_.leaders &&
                    (!cuda_.all || leads == (bool)cuda_.leaders),
                "shmc: group '", group_,
                "': the group of all ranks is made on every rank, the leaders' group by each "
                "host's first rank and by no other");
    setTimeout(timeout);
}

ProcessGroupHosts::~ProcessGroupHosts()
{
    try {
        shutdown();
    } catch (...) {
    }
}

std::string ProcessGroupHosts::where() const
{
    return where_of(getRank(), getSize(), group_) + " (host " + std::to_string(host_) + " of " +
           std::to_string(hosts_.size()) + ")";
}

template <class F> void ProcessGroupHosts::run(const char *what, F &&f)
{
    seq_++;
    try {
        f();
    } catch (const c10::Error &e) {
        TORCH_CHECK(false, "shmc: ", what, " on ", where(),
                    " failed: ", e.what_without_backtrace());
    } catch (const std::exception &e) { // (gloo's own, from its works' waits)
        TORCH_CHECK(false, "shmc: ", what, " on ", where(), " failed: ", e.what());
    }
}

namespace
{
// A work's future. On CUDA it names the device, so that torch orders what reads the value
// (then() callbacks, other streams) after the stream that completed it.
c10::intrusive_ptr<c10::ivalue::Future> future_on(const at::Device &d)
{
    auto type = c10::ListType::create(c10::TensorType::get());
    if (d.is_cuda())
        return c10::make_intrusive<c10::ivalue::Future>(type, std::vector<c10::Device>{d});
    return c10::make_intrusive<c10::ivalue::Future>(type);
}

// A queued operation's work: its future, completed by the worker with the outputs or the
// error, which wait raises.
class QueuedWork : public c10d::Work
{
  public:
    QueuedWork(c10::intrusive_ptr<c10::ivalue::Future> fut, std::vector<at::Tensor> outputs)
        : fut_(std::move(fut)), outputs_(std::move(outputs))
    {
    }
    bool isCompleted() override
    {
        return fut_->completed();
    }
    bool isSuccess() const override
    {
        return fut_->completed() && !fut_->hasError();
    }
    std::vector<at::Tensor> result() override
    {
        return outputs_;
    }
    bool wait(std::chrono::milliseconds) override
    {
        fut_->wait();
        fut_->value(); // (raises the operation's error)
        return true;
    }
    c10::intrusive_ptr<c10::ivalue::Future> getFuture() override
    {
        return fut_;
    }

  private:
    c10::intrusive_ptr<c10::ivalue::Future> fut_;
    std::vector<at::Tensor> outputs_;
};
} // namespace

const ProcessGroupHosts::Engines &ProcessGroupHosts::engines(const at::Device &d) const
{
    if (!d.is_cuda())
        return cpu_;
    TORCH_CHECK(cuda_.all, "shmc: CUDA tensors on a group across hosts cross hosts through "
                           "torch's NCCL, which this torch lacks: copy them to the CPU, or use a "
                           "torch built with NCCL");
    return cuda_;
}

template <class F>
c10::intrusive_ptr<c10d::Work> ProcessGroupHosts::queue(const char *what, bool async,
                                                        std::vector<at::Tensor> outputs, F body)
{
    at::Device device = device_of(outputs);
    return queue_on(device, what, async, std::move(outputs), std::move(body));
}

template <class F>
c10::intrusive_ptr<c10d::Work> ProcessGroupHosts::queue_on(at::Device device, const char *what,
                                                           bool async,
                                                           std::vector<at::Tensor> outputs, F body)
{
    TORCH_CHECK(local_, "shmc: ", what, " on group '", group_, "', which was shut down");
    engines(device); // (refuses CUDA where there is no NCCL, before anything is queued)
    // What the caller queued on its stream for the tensors is done before the worker,
    // on a stream of its own, reads them (as for one host: backend.cpp).
    device_ready(device);
    auto fut = future_on(device);
    auto job = [this, what, fut, outputs, body, device]() mutable {
        try {
            // CUDA: the engines' steps queue on this thread's current stream of the
            // tensors' device; the work completes once they are done, so that a wait
            // returns with the bytes in place, as on one host.
            std::optional<c10::DeviceGuard> guard;
            if (device.is_cuda())
                guard.emplace(device);
            run(what, body);
            device_ready(device);
            fut->markCompleted(c10::IValue(outputs));
        } catch (...) {
            fut->setError(std::current_exception());
        }
    };
    auto w = c10::make_intrusive<QueuedWork>(fut, outputs);
    bool inline_ = false;
    {
        std::lock_guard<std::mutex> lk(qmu_);
        // A blocking operation with nothing queued before it runs in the caller's thread,
        // the worker held off meanwhile: no hand-over to the worker and back, whose
        // wake-ups cost more than the operation's own steps between hosts.
        if (!async && jobs_.empty() && !running_) {
            running_ = inline_ = true;
        } else {
            if (!worker_.joinable())
                worker_ = std::thread([this] { serve(); });
            jobs_.push_back(std::move(job));
        }
    }
    if (inline_) {
        job();
        {
            std::lock_guard<std::mutex> lk(qmu_);
            running_ = false;
        }
        qcv_.notify_one();
        idle_.notify_all();
    } else {
        qcv_.notify_one();
    }
    if (!async)
        w->wait(kNoTimeout);
    return w;
}

void ProcessGroupHosts::serve()
{
    for (;;) {
        std::function<void()> job;
        {
            std::unique_lock<std::mutex> lk(qmu_);
            qcv_.wait(lk, [this] { return !running_ && (stopping_ || !jobs_.empty()); });
            if (jobs_.empty())
                return;
            job = std::move(jobs_.front());
            jobs_.pop_front();
            running_ = true;
        }
        job();
        {
            std::lock_guard<std::mutex> lk(qmu_);
            running_ = false;
        }
        idle_.notify_all();
    }
}

void ProcessGroupHosts::drain()
{
    std::unique_lock<std::mutex> lk(qmu_);
    idle_.wait(lk, [this] { return jobs_.empty() && !running_; });
}

void ProcessGroupHosts::stop()
{
    {
        std::lock_guard<std::mutex> lk(qmu_);
        stopping_ = true;
    }
    qcv_.notify_all();
    if (worker_.joinable())
        worker_.join();
}

void ProcessGroupHosts::setTimeout(std::chrono::milliseconds timeout)
{
    for (auto *b : {&local_, &cpu_.leaders, &cpu_.all, &cuda_.leaders, &cuda_.all})
        if (*b)
            (*b)->setTimeout(timeout);
}

void ProcessGroupHosts::shutdown()
{
    stop();
    for (auto *b : {&cpu_.leaders, &cpu_.all, &cuda_.leaders, &cuda_.all, &local_})
        if (*b) {
            (*b)->shutdown();
            b->reset();
        }
}

// ---- by host --------------------------------------------------------------------------------

// The host's steps: blocking calls of its group (asyncOp false: the options' default is
// true), root its leader unless said; nothing where the host has one rank.
void ProcessGroupHosts::host_bcast(at::Tensor t, int root)
{
    if (hosts_[host_].size() == 1)
        return;
    std::vector<at::Tensor> v{t};
    c10d::BroadcastOptions o;
    o.rootRank = root;
    o.asyncOp = false;
    finish(local_->broadcast(v, o));
}

void ProcessGroupHosts::host_reduce(at::Tensor t, const c10d::ReduceOp &op)
{
    if (hosts_[host_].size() == 1)
        return;
    std::vector<at::Tensor> v{t};
    c10d::ReduceOptions o;
    o.rootRank = 0;
    o.reduceOp = op;
    o.asyncOp = false;
    finish(local_->reduce(v, o));
}

void ProcessGroupHosts::allreduce_flat(at::Tensor t, c10d::ReduceOp op)
{
    at::Tensor flat = t.view({-1});
    int64_t es = flat.element_size(), n = flat.numel();
    // In pieces where hosts have steps of their own to overlap with the leaders'; where
    // every host has one rank, whole.
    int64_t per =
        alone_ ? std::max<int64_t>(n, 1) : std::max<int64_t>(1, kPiece / std::max<int64_t>(es, 1));
    int nh = (int)hosts_.size();
    shmc_dtype dt = dtype_of(flat, "all_reduce");
    shmc_op sop = op_of(op, flat, "all_reduce");
    bool cuda = flat.is_cuda();
    const Engines &e = engines(flat.device());
    // Among the leaders, a piece takes the engine's all-reduce where it combines this dtype
    // with this op: gloo's ring for large CPU pieces, NCCL's for every CUDA piece. Else the
    // leaders' exchange over gloo, a CUDA piece staged through host memory (the exchange
    // combines on the host).
    bool engine_can = engine_reduces(flat.scalar_type(), op.op_, cuda);
    // Each piece: reduced within the host onto its leader, combined among the leaders,
    // broadcast within the host; the leaders' first step of a piece travels while the
    // host reduces the next.
    struct Pending {
        at::Tensor piece, staged;
        WorkPtr ring;
        std::optional<LeaderExchange> ex;
    };
    std::optional<Pending> prev;
    auto land = [&](Pending &p) {
        finish(p.ring);
        if (p.ex)
            p.ex->finish();
        if (p.staged.defined())
            p.piece.copy_(p.staged);
        host_bcast(p.piece);
    };
    for (int64_t off = 0; off == 0 || off < n; off += per) {
        Pending p;
        p.piece = flat.narrow(0, off, std::min(per, n - off));
        host_reduce(p.piece, op);
        bool large = p.piece.numel() * es > kExchangeMax;
        if (e.leaders && engine_can && (large || cuda)) {
            std::vector<at::Tensor> v{p.piece};
            c10d::AllreduceOptions a;
            a.reduceOp = op;
            p.ring = e.leaders->allreduce(v, a);
        } else if (e.leaders) {
            if (cuda)
                p.staged = p.piece.cpu();
            // Tags count the group's exchanges, so that a message left posted by an
            // operation that failed cannot match one of a later operation.
            int tag = (int)(tags_++ & 0x3fffffff);
            p.ex.emplace(*cpu_.leaders, host_, nh, cuda ? p.staged : p.piece, tag, dt, sop);
            p.ex->start();
        }
        if (prev)
            land(*prev);
        prev = std::move(p);
    }
    land(*prev);
}

void ProcessGroupHosts::allreduce_user(at::Tensor &t, const c10d::ReduceOp &op, const char *what)
{
    check_tensor(t, what);
    op_of(op, t, what); // (throws for pairs that have no meaning)
    bool avg = op.op_ == c10d::ReduceOp::AVG, pre = op.op_ == c10d::ReduceOp::PREMUL_SUM;
    c10d::ReduceOp sum(c10d::ReduceOp::SUM);
    at::Tensor work = pre ? flat_view(premul(t, op)) : flat_view(t);
    allreduce_flat(work, avg || pre ? sum : op);
    if (avg)
        work.div_(getSize());
    if (!work.is_same(t))
        copy_into(t, work);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHosts::allreduce(std::vector<at::Tensor> &tensors,
                                                            const c10d::AllreduceOptions &opts)
{
    TORCH_CHECK(tensors.size() == 1, "shmc: all_reduce takes one tensor");
    return queue("all_reduce", opts.asyncOp, tensors,
                 [=, this]() mutable { allreduce_user(tensors[0], opts.reduceOp, "all_reduce"); });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHosts::allreduce_coalesced(std::vector<at::Tensor> &tensors,
                                       const c10d::AllreduceCoalescedOptions &opts)
{
    return queue("all_reduce_coalesced", opts.asyncOp, tensors, [=, this]() mutable {
        for (auto &t : tensors)
            allreduce_user(t, opts.reduceOp, "all_reduce_coalesced");
    });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHosts::reduce(std::vector<at::Tensor> &tensors,
                                                         const c10d::ReduceOptions &opts)
{
    TORCH_CHECK(tensors.size() == 1, "shmc: reduce takes one tensor");
    TORCH_CHECK(opts.rootRank >= 0 && opts.rootRank < getSize(), "shmc: reduce: root ",
                opts.rootRank, " is not a rank of the group");
    // The all-reduce's steps on a copy, kept at the root alone: the other ranks' tensors
    // stay as they were, as on one host.
    return queue("reduce", opts.asyncOp, tensors, [=, this]() mutable {
        at::Tensor t = tensors[0].clone();
        allreduce_user(t, opts.reduceOp, "reduce");
        if (getRank() == (int)opts.rootRank)
            tensors[0].copy_(t);
    });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHosts::broadcast(std::vector<at::Tensor> &tensors,
                                                            const c10d::BroadcastOptions &opts)
{
    TORCH_CHECK(tensors.size() == 1, "shmc: broadcast takes one tensor");
    int root = (int)opts.rootRank;
    TORCH_CHECK(root >= 0 && root < getSize(), "shmc: broadcast: root ", root,
                " is not a rank of the group");
    return queue("broadcast", opts.asyncOp, tensors, [=, this]() mutable {
        check_tensor(tensors[0], "broadcast");
        Bytes b(tensors[0]);
        int hr = host_of_[root];
        // On the root's host, from the root (its leader has it then); among the leaders
        // from that host's; on the other hosts, from their leader.
        if (host_ == hr && local_of_[root] != 0)
            host_bcast(b.view(), local_of_[root]);
        if (auto &leaders = engines(b.buf.device()).leaders) {
            std::vector<at::Tensor> v{b.view()};
            c10d::BroadcastOptions o;
            o.rootRank = hr;
            finish(leaders->broadcast(v, o));
        }
        if (host_ != hr || local_of_[root] == 0)
            host_bcast(b.view());
        b.back();
    });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHosts::barrier(const c10d::BarrierOptions &opts)
{
    c10d::BarrierOptions here = opts;
    here.asyncOp = false;
    return queue("barrier", opts.asyncOp, {}, [=, this]() mutable {
        finish(local_->barrier(here));
        if (cpu_.leaders)
            finish(cpu_.leaders->barrier(opts));
        finish(local_->barrier(here));
    });
}

// By host: the host's blocks gathered onto its leader (shared memory), the leaders' parts
// exchanged (gloo; a part holds as many blocks as the largest host has ranks, so that
// hosts of different sizes send parts of one size), the whole broadcast within the host;
// each rank then takes every rank's block from its host's part. The network carries one
// part per host instead of one block per rank.
void ProcessGroupHosts::gather_bytes(at::Tensor out, at::Tensor in)
{
    int64_t b = in.numel(), nh = (int64_t)hosts_.size(), most = 0;
    for (const auto &h : hosts_)
        most = std::max<int64_t>(most, (int64_t)h.size());
    int64_t mine = (int64_t)hosts_[host_].size();
    // Where the hosts hold equal runs of consecutive ranks (torchrun's layout), the parts
    // in host order are the output in rank order: gathered there, nothing is copied after.
    at::Tensor parts = in_order_ ? out : at::empty({nh * most * b}, in.options());
    at::Tensor part = parts.narrow(0, host_ * most * b, most * b);
    c10d::GatherOptions g;
    g.rootRank = 0;
    g.asyncOp = false;
    std::vector<at::Tensor> iv{in};
    std::vector<std::vector<at::Tensor>> ov;
    if (local_of_[getRank()] == 0) {
        ov.emplace_back();
        for (int64_t i = 0; i < mine; i++)
            ov[0].push_back(part.narrow(0, i * b, b));
    }
    if (!alone_) // (else each host's part is its one rank's input)
        finish(local_->gather(ov, iv, g));
    if (auto &leaders = engines(in.device()).leaders) {
        std::vector<std::vector<at::Tensor>> lo(1);
        for (int64_t h = 0; h < nh; h++)
            lo[0].push_back(parts.narrow(0, h * most * b, most * b));
        // (gloo's input may not lie within its output: an in-place all_gather's does)
        at::Tensor mine_part = alone_ ? in : part;
        std::vector<at::Tensor> li{mine_part.is_alias_of(parts) ? mine_part.clone() : mine_part};
        finish(leaders->allgather(lo, li, c10d::AllgatherOptions()));
    }
    host_bcast(parts);
    for (int r = 0; r < getSize() && !in_order_; r++)
        out.narrow(0, r * b, b).copy_(parts.narrow(0, (host_of_[r] * most + local_of_[r]) * b, b));
}

void ProcessGroupHosts::gather_list(std::vector<at::Tensor> outs, at::Tensor input)
{
    TORCH_CHECK((int)outs.size() == getSize(), "all_gather takes one output tensor per rank");
    Bytes in(input);
    at::Tensor i = in.view(), all = at::empty({i.numel() * getSize()}, i.options());
    for (const auto &t : outs)
        TORCH_CHECK((int64_t)t.numel() * t.element_size() == i.numel(),
                    "an output holds another number of bytes than the input");
    gather_bytes(all, i);
    for (int r = 0; r < getSize(); r++) {
        Bytes o(outs[r]);
        o.view().copy_(all.narrow(0, r * i.numel(), i.numel()));
        o.back();
    }
}

void ProcessGroupHosts::gather_into(at::Tensor output, at::Tensor input)
{
    Bytes out(output), in(input);
    at::Tensor o = out.view(), i = in.view();
    TORCH_CHECK(o.numel() == i.numel() * getSize(), "output holds ", o.numel(),
                " bytes, not the group's ", getSize(), " x ", i.numel());
    gather_bytes(o, i);
    out.back();
}

void ProcessGroupHosts::scatter_reduced(at::Tensor output, at::Tensor all, const c10d::ReduceOp &op,
                                        const char *what)
{
    TORCH_CHECK(all.numel() == output.numel() * getSize(), "input holds ", all.numel(),
                " elements, not the group's ", getSize(), " x ", output.numel());
    allreduce_user(all, op, what);
    output.copy_(all.narrow(0, output.numel() * getRank(), output.numel()).view(output.sizes()));
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHosts::allgather(std::vector<std::vector<at::Tensor>> &outputs,
                             std::vector<at::Tensor> &inputs, const c10d::AllgatherOptions &opts)
{
    TORCH_CHECK(inputs.size() == 1 && outputs.size() == 1, "shmc: all_gather takes one tensor");
    return queue("all_gather", opts.asyncOp, outputs[0],
                 [=, this]() mutable { gather_list(outputs[0], inputs[0]); });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHosts::_allgather_base(at::Tensor &output, at::Tensor &input,
                                   const c10d::AllgatherOptions &opts)
{
    return queue("all_gather_into_tensor", opts.asyncOp, {output},
                 [=, this]() mutable { gather_into(output, input); });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHosts::allgather_coalesced(std::vector<std::vector<at::Tensor>> &outputs,
                                       std::vector<at::Tensor> &inputs,
                                       const c10d::AllgatherOptions &opts)
{
    TORCH_CHECK(outputs.size() == inputs.size(), "shmc: all_gather_coalesced: ", outputs.size(),
                " output lists for ", inputs.size(), " inputs");
    std::vector<at::Tensor> flat;
    for (const auto &o : outputs)
        flat.insert(flat.end(), o.begin(), o.end());
    return queue("all_gather_coalesced", opts.asyncOp, flat, [=, this]() mutable {
        for (size_t k = 0; k < inputs.size(); k++)
            gather_list(outputs[k], inputs[k]);
    });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHosts::allgather_into_tensor_coalesced(std::vector<at::Tensor> &outputs,
                                                   std::vector<at::Tensor> &inputs,
                                                   const c10d::AllgatherOptions &opts)
{
    TORCH_CHECK(outputs.size() == inputs.size(),
                "shmc: all_gather_into_tensor_coalesced: ", outputs.size(), " outputs for ",
                inputs.size(), " inputs");
    return queue("all_gather_into_tensor_coalesced", opts.asyncOp, outputs, [=, this]() mutable {
        for (size_t k = 0; k < inputs.size(); k++)
            gather_into(outputs[k], inputs[k]);
    });
}

// ---- through the group of all ranks ---------------------------------------------------------

c10::intrusive_ptr<c10d::Work>
ProcessGroupHosts::gather(std::vector<std::vector<at::Tensor>> &outputs,
                          std::vector<at::Tensor> &inputs, const c10d::GatherOptions &opts)
{
    TORCH_CHECK(inputs.size() == 1, "shmc: gather takes one tensor");
    std::vector<at::Tensor> got = outputs.empty() ? std::vector<at::Tensor>() : outputs[0];
    // (A rank other than the root has no outputs: the inputs tell the device.)
    return queue_on(device_of(inputs), "gather", opts.asyncOp, got, [=, this]() mutable {
        auto in = bytes_of_all(inputs);
        std::vector<std::vector<at::Tensor>> ov;
        std::vector<Bytes> out;
        if (!outputs.empty()) {
            out = bytes_of_all(outputs[0]);
            ov.push_back(views(out));
        }
        auto iv = views(in);
        finish(engines(inputs[0].device()).all->gather(ov, iv, opts));
        backs(out);
    });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHosts::scatter(std::vector<at::Tensor> &outputs,
                           std::vector<std::vector<at::Tensor>> &inputs,
                           const c10d::ScatterOptions &opts)
{
    TORCH_CHECK(outputs.size() == 1, "shmc: scatter takes one tensor");
    return queue("scatter", opts.asyncOp, outputs, [=, this]() mutable {
        auto out = bytes_of_all(outputs);
        std::vector<std::vector<at::Tensor>> iv;
        std::vector<Bytes> in;
        if (!inputs.empty()) {
            in = bytes_of_all(inputs[0]);
            iv.push_back(views(in));
        }
        auto ov = views(out);
        finish(engines(outputs[0].device()).all->scatter(ov, iv, opts));
        backs(out);
    });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHosts::reduce_scatter(std::vector<at::Tensor> &outputs,
                                  std::vector<std::vector<at::Tensor>> &inputs,
                                  const c10d::ReduceScatterOptions &opts)
{
    TORCH_CHECK(outputs.size() == 1 && inputs.size() == 1 && (int)inputs[0].size() == getSize(),
                "shmc: reduce_scatter takes one output and one input per rank");
    return queue("reduce_scatter", opts.asyncOp, outputs, [=, this]() mutable {
        std::vector<at::Tensor> flat;
        for (const auto &t : inputs[0])
            flat.push_back(t.reshape({-1}));
        scatter_reduced(outputs[0], at::cat(flat), opts.reduceOp, "reduce_scatter");
    });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHosts::_reduce_scatter_base(at::Tensor &output, at::Tensor &input,
                                        const c10d::ReduceScatterOptions &opts)
{
    return queue("reduce_scatter_tensor", opts.asyncOp, {output}, [=, this]() mutable {
        scatter_reduced(output, input.reshape({-1}).clone(), opts.reduceOp,
                        "reduce_scatter_tensor");
    });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupHosts::reduce_scatter_tensor_coalesced(std::vector<at::Tensor> &outputs,
                                                   std::vector<at::Tensor> &inputs,
                                                   const c10d::ReduceScatterOptions &opts)
{
    TORCH_CHECK(outputs.size() == inputs.size(),
                "shmc: reduce_scatter_tensor_coalesced: ", outputs.size(), " outputs for ",
                inputs.size(), " inputs");
    return queue("reduce_scatter_tensor_coalesced", opts.asyncOp, outputs, [=, this]() mutable {
        for (size_t k = 0; k < inputs.size(); k++)
            scatter_reduced(outputs[k], inputs[k].reshape({-1}).clone(), opts.reduceOp,
                            "reduce_scatter_tensor_coalesced");
    });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHosts::alltoall_base(at::Tensor &output,
                                                                at::Tensor &input,
                                                                std::vector<int64_t> &output_splits,
                                                                std::vector<int64_t> &input_splits,
                                                                const c10d::AllToAllOptions &opts)
{
    return queue("all_to_all_single", opts.asyncOp, {output}, [=, this]() mutable {
        Bytes out(output), in(input);
        // The splits count rows of dim 0; gloo moves bytes, so they count each row's bytes.
        auto rows = [](const at::Tensor &t, std::vector<int64_t> s, int n) {
            int64_t row = t.dim() && t.size(0) ? t.numel() / t.size(0) * t.element_size() : 0;
            if (s.empty()) {
                TORCH_CHECK(t.dim() && t.size(0) % n == 0, "a tensor of ", t.dim() ? t.size(0) : 0,
                            " rows does not split evenly among ", n, " ranks");
                s.assign(n, t.size(0) / n);
            }
            for (auto &x : s)
                x *= row;
            return s;
        };
        std::vector<int64_t> os = rows(output, output_splits, getSize()),
                             is = rows(input, input_splits, getSize());
        at::Tensor o = out.view(), i = in.view();
        finish(engines(o.device()).all->alltoall_base(o, i, os, is, opts));
        out.back();
    });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHosts::alltoall(std::vector<at::Tensor> &outputs,
                                                           std::vector<at::Tensor> &inputs,
                                                           const c10d::AllToAllOptions &opts)
{
    TORCH_CHECK((int)outputs.size() == getSize() && (int)inputs.size() == getSize(),
                "shmc: all_to_all takes one input and one output tensor per rank");
    return queue("all_to_all", opts.asyncOp, outputs, [=, this]() mutable {
        std::vector<at::Tensor> ib;
        std::vector<int64_t> is, os;
        for (const auto &t : inputs) {
            ib.push_back(t.contiguous().reshape({-1}).view(at::kByte));
            is.push_back(ib.back().numel());
        }
        for (const auto &t : outputs)
            os.push_back((int64_t)t.numel() * t.element_size());
        at::Tensor i = at::cat(ib),
                   o = at::empty({std::accumulate(os.begin(), os.end(), (int64_t)0)}, i.options());
        {
            std::vector<int64_t> osc = os, isc = is; // (gloo's work takes them over)
            finish(engines(o.device()).all->alltoall_base(o, i, osc, isc, opts));
        }
        int64_t at_ = 0;
        for (size_t r = 0; r < outputs.size(); r++) {
            Bytes b(outputs[r]);
            b.view().copy_(o.narrow(0, at_, os[r]));
            b.back();
            at_ += os[r];
        }
    });
}

void ProcessGroupHosts::monitoredBarrier(const c10d::BarrierOptions &opts, bool wait_all_ranks)
{
    queue("monitored_barrier", false, {},
          [=, this]() mutable { cpu_.all->monitoredBarrier(opts, wait_all_ranks); });
}

// A transfer through the group of all ranks: gloo's work on the tensor's contiguous
// stand-in, copied into the tensor (when it is not that tensor) by the first wait that
// sees it end. gloo's point-to-point works have no future; this one's is completed by the
// completer thread (work.h), as the one-host backend's are.
class TransferWork : public c10d::Work
{
  public:
    TransferWork(WorkPtr inner, Bytes b) : inner_(std::move(inner)), b_(std::move(b))
    {
    }
    bool isCompleted() override
    {
        return inner_->isCompleted();
    }
    bool isSuccess() const override
    {
        return inner_->isSuccess();
    }
    int sourceRank() const override
    {
        return inner_->sourceRank();
    }
    std::vector<at::Tensor> result() override
    {
        return {b_.user};
    }
    bool wait(std::chrono::milliseconds timeout) override
    {
        bool ok = inner_->wait(timeout);
        std::lock_guard<std::mutex> lk(mu_);
        if (!copied_) {
            b_.back();
            // On CUDA, NCCL's wait only made this thread's stream wait: the bytes are in
            // place once it has run, as a wait on one host promises.
            device_ready(b_.user.device());
            copied_ = true;
        }
        return ok;
    }
    c10::intrusive_ptr<c10::ivalue::Future> getFuture() override
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (!fut_) {
            fut_ = future_on(b_.user.device());
            auto self = c10::intrusive_ptr<TransferWork>::reclaim_copy(this);
            complete_later([self] {
                try {
                    self->wait(kNoTimeout);
                    self->fut_->markCompleted(c10::IValue(std::vector<at::Tensor>{self->b_.user}));
                } catch (...) {
                    self->fut_->setError(std::current_exception());
                }
            });
        }
        return fut_;
    }

  private:
    WorkPtr inner_;
    Bytes b_;
    std::mutex mu_;
    bool copied_ = false;
    c10::intrusive_ptr<c10::ivalue::Future> fut_;
};

template <class F> static WorkPtr transfer(std::vector<at::Tensor> &tensors, F &&start)
{
    TORCH_CHECK(tensors.size() == 1, "shmc: send and recv take one tensor");
    Bytes b(tensors[0]);
    std::vector<at::Tensor> v{b.view()};
    WorkPtr w = start(v);
    return c10::make_intrusive<TransferWork>(std::move(w), std::move(b));
}

template <class F>
c10::intrusive_ptr<c10d::Work> ProcessGroupHosts::p2p(const char *what,
                                                      std::vector<at::Tensor> &tensors, F &&start)
{
    TORCH_CHECK(local_, "shmc: ", what, " on group '", group_, "', which was shut down");
    TORCH_CHECK(tensors.size() == 1, "shmc: send and recv take one tensor");
    if (tensors[0].is_cuda()) {
        // NCCL's group of all ranks also runs the worker's gather, scatter and all-to-all:
        // every rank must hand NCCL its operations in one order, from one thread at a time.
        engines(tensors[0].device());
        drain();
        device_ready(tensors[0].device());
    }
    seq_++;
    return transfer(tensors, std::forward<F>(start));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHosts::send(std::vector<at::Tensor> &tensors, int dst,
                                                       int tag)
{
    return p2p("send", tensors, [&](std::vector<at::Tensor> &v) {
        return engines(v[0].device()).all->send(v, dst, tag);
    });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHosts::recv(std::vector<at::Tensor> &tensors, int src,
                                                       int tag)
{
    return p2p("recv", tensors, [&](std::vector<at::Tensor> &v) {
        return engines(v[0].device()).all->recv(v, src, tag);
    });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupHosts::recvAnysource(std::vector<at::Tensor> &tensors,
                                                                int tag)
{
    return p2p("recv", tensors, [&](std::vector<at::Tensor> &v) {
        return engines(v[0].device()).all->recvAnysource(v, tag);
    });
}

} // namespace shmct
