#include "backend.h"

#include <algorithm>

#include <c10/core/DeviceGuard.h>
#include <c10/util/Exception.h>

#include <mutex>
#include <numeric>
#include <thread>

#include "engine.h"
#include "tensors.h"
#include "work.h"

namespace shmct
{

// ---- the job: one per process, shared by every group ------------------------------------

namespace
{
struct Job {
    std::mutex mu;
    shmc_comm *world = nullptr;
    int groups = 0;                   // live groups; the last one to go finalizes
    std::vector<int64_t> world_ranks; // the global rank of each world rank
    int joins = 0;                    // jobs this process joined: names the store's key
};
Job job;

std::string text(const std::vector<uint8_t> &v)
{
    return std::string(v.begin(), v.end());
}

int tag_of(const std::string &group)
{
    uint32_t h = 2166136261u;
    for (unsigned char c : group)
        h = (h ^ c) * 16777619u;
    return (int)(h & 0x7fffffff);
}
} // namespace

std::string failure(const std::string &what, size_t bytes, const std::string &where, int rc,
                    std::chrono::milliseconds timeout)
{
    std::string s = "shmc: " + what + " of " + std::to_string(bytes) + " bytes on " + where;
    if (rc == SHMC_ERR_TIMEOUT)
        return s + " did not complete within the group's timeout of " +
               std::to_string(timeout.count()) + " ms: another rank did not reach it (or died)";
    return s + " failed: " + shmc_strerror(rc);
}

std::string where_of(int rank, int size, const std::string &group)
{
    return "rank " + std::to_string(rank) + " of " + std::to_string(size) + " of group '" + group +
           "'";
}

std::string p2p_describe(bool send, size_t bytes, int peer, int tag, const std::string &where)
{
    return std::string("shmc: ") + (send ? "send" : "recv") + " of " + std::to_string(bytes) +
           " bytes " + (send ? "to" : "from") + " " +
           (peer == SHMC_ANY_SOURCE ? std::string("any rank") : "rank " + std::to_string(peer)) +
           " (tag " + std::to_string(tag) + ") on " + where;
}

std::string ProcessGroupShmc::where() const
{
    return where_of(getRank(), getSize(), group_);
}

ProcessGroupShmc::ProcessGroupShmc(const c10::intrusive_ptr<c10d::Store> &store, int rank, int size,
                                   std::chrono::milliseconds timeout, std::string group,
                                   std::vector<int64_t> global_ranks)
    : c10d::Backend(rank, size), timeout_(timeout), group_(std::move(group))
{
    std::lock_guard<std::mutex> lk(job.mu);
    if (global_ranks.empty()) {
        global_ranks.resize(size);
        std::iota(global_ranks.begin(), global_ranks.end(), 0);
    }
    TORCH_CHECK((int)global_ranks.size() == size, "shmc: group '", group_, "' has ", size,
                " ranks but lists ", global_ranks.size());
    if (!job.world) {
        // The first group joins a job of its own ranks, which share this host (the creator,
        // shmcomm_torch's _create, groups a group's ranks by host first); group rank 0 makes
        // the key and publishes it.
        std::string name = "shmc/" + std::to_string(job.joins) + "/key", key;
        if (rank == 0) {
            char k[SHMC_JOB_KEY_LEN];
            int rc = shmc_job_key(k, sizeof k);
            TORCH_CHECK(rc == SHMC_OK, "shmc: making a job key: ", shmc_strerror(rc));
            key = k;
            store->set(name, std::vector<uint8_t>(key.begin(), key.end()));
        } else {
            key = text(store->get(name));
        }
        int rc = shmc_init_join(rank, size, key.c_str(), SHMC_THREAD_MULTIPLE, &job.world);
        TORCH_CHECK(rc == SHMC_OK, "shmc: rank ", rank, " of ", size,
                    " could not join the job: ", shmc_strerror(rc),
                    " (the library's message above says more)");
        // The engine runs this process's collectives one at a time (engine.h), so the
        // groups it makes keep the shared-memory algorithms (docs/collectives.md, Threads).
        rc = shmc_config_set("SHMC_COLL_OVERLAP", "0");
        TORCH_CHECK(rc == SHMC_OK, "shmc: setting SHMC_COLL_OVERLAP: ", shmc_strerror(rc));
        job.joins++;
        job.world_ranks = global_ranks;
        comm_ = job.world;
        world_ = true;
    } else {
        std::vector<int> members;
        for (int64_t g : global_ranks) {
            auto it = std::find(job.world_ranks.begin(), job.world_ranks.end(), g);
            TORCH_CHECK(it != job.world_ranks.end(), "shmc: group '", group_,
                        "' holds global rank ", g,
                        ", which is not in this process's first shmc group; every shmc group "
                        "must be made of ranks of the first (the default group)");
            members.push_back((int)(it - job.world_ranks.begin()));
        }
        auto op = std::make_shared<Op>();
        shmc_comm *out = nullptr;
        shmc_comm *world = job.world;
        int tag = tag_of(group_);
        op->fn = [&](std::string &) {
            return shmc_comm_create_members(world, members.data(), (int)members.size(), tag, &out);
        };
        Engine::get().run_inline(op);
        TORCH_CHECK(op->rc == SHMC_OK, "shmc: making group '", group_, "' on rank ", rank, ": ",
                    shmc_strerror(op->rc));
        comm_ = out;
    }
    job.groups++;
    setTimeout(timeout);
}

ProcessGroupShmc::~ProcessGroupShmc()
{
    try {
        shutdown();
    } catch (...) {
    }
}

void ProcessGroupShmc::setTimeout(std::chrono::milliseconds timeout)
{
    timeout_ = timeout;
    if (comm_) {
        long long ms = timeout.count();
        shmc_comm_set_timeout(comm_, ms <= 0 ? 0u : ms > 0xffffffffLL ? 0xffffffffu : (unsigned)ms);
    }
}

void ProcessGroupShmc::shutdown()
{
    if (!comm_)
        return;
    Engine::get().drain();
    stop_completer(); // its waits may be on this group's requests
    std::lock_guard<std::mutex> lk(job.mu);
    if (!world_)
        shmc_comm_free(&comm_);
    comm_ = nullptr;
    if (--job.groups == 0) {
        Engine::get().stop();
        shmc_finalize();
        drop_orphans();
        job.world = nullptr;
    }
}

// ---- how operations run ------------------------------------------------------------------

// The steps as one blocking call: each issued and finished before the next.
static std::function<int()> blocking(Steps steps)
{
    return [steps = std::move(steps)] {
        for (const Step &s : steps) {
            int rc = s.start(nullptr);
            if (rc != SHMC_OK)
                return rc;
            if (s.finish)
                s.finish();
        }
        return (int)SHMC_OK;
    };
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmc::collective(const char *what, size_t bytes,
                                                            bool async,
                                                            std::vector<at::Tensor> outputs,
                                                            Steps steps,
                                                            std::optional<at::Device> dev)
{
    TORCH_CHECK(comm_, "shmc: ", what, " on group '", group_, "', which was shut down");
    seq_++;
    reap_orphans();
    at::Device device = dev ? *dev : device_of(outputs);
    if (async && !device.is_cuda() && !Engine::get().worker_async())
        return nonblocking(what, bytes, std::move(outputs), std::move(steps));
    // The library takes device buffers only once they are ready: what this thread queued
    // for them (the caller's kernels, and our staging copies) must be done first.
    device_ready(device);
    auto op = std::make_shared<Op>();
    op->outputs = std::move(outputs);
    // The message is composed only if the call fails: what is a literal, the rest is small.
    auto timeout = timeout_;
    int rank = getRank(), size = getSize();
    op->fn = [call = blocking(std::move(steps)), what, bytes, rank, size, group = group_, timeout,
              device](std::string &why) {
        int rc;
        if (device.is_cuda()) {
            // The worker thread's current device is not the caller's; the copies back
            // into the user's tensors go on this thread's stream, done before we return.
            c10::DeviceGuard guard(device);
            rc = call();
            device_ready(device);
        } else {
            rc = call();
        }
        if (rc != SHMC_OK)
            why = failure(what, bytes, where_of(rank, size, group), rc, timeout);
        return rc;
    };
    if (async || Engine::get().worker_only())
        Engine::get().submit(op);
    else
        Engine::get().run_inline(op);
    return c10::make_intrusive<CollWork>(op, c10d::OpType::UNKNOWN, what);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmc::nonblocking(const char *what, size_t bytes,
                                                             std::vector<at::Tensor> outputs,
                                                             Steps steps)
{
    // Every rank issues a group's collectives in one order: what this process queued for
    // the worker before this call is issued first.
    Engine::get().drain();
    std::vector<shmc_request *> reqs(steps.size(), nullptr);
    int rc = SHMC_OK;
    size_t started = 0;
    while (started < steps.size() && (rc = steps[started].start(&reqs[started])) == SHMC_OK)
        started++;
    if (rc != SHMC_OK) {
        // The steps already issued are collectives the other ranks take part in: they
        // run to their end, holding their tensors, while this call reports the failure.
        auto hold = std::make_shared<Steps>(std::move(steps));
        for (size_t i = 0; i < started; i++)
            adopt(reqs[i], hold);
        TORCH_CHECK(false, failure(what, bytes, where(), rc, timeout_));
    }
    return c10::make_intrusive<ReqWork>(std::move(reqs), std::move(steps), std::move(outputs),
                                        ReqWork::What{what, bytes, where(), timeout_});
}

// The tensor the library reads and writes for t: t, or a contiguous (real-valued) copy
// that `back` copies into t after the call.
struct Staged {
    at::Tensor user, buf;
    explicit Staged(const at::Tensor &t) : user(t), buf(flat_view(t))
    {
    }
    void *ptr() const
    {
        return buf.data_ptr();
    }
    size_t count() const
    {
        return (size_t)buf.numel();
    }
    void back() const
    {
        if (buf.data_ptr() != user.data_ptr() || !user.is_contiguous()) {
            at::Tensor u = user;
            copy_into(u, buf);
        }
    }
};

static void one_tensor(const std::vector<at::Tensor> &ts, const char *what)
{
    TORCH_CHECK(ts.size() == 1, "shmc: ", what, " takes one tensor per call, not ", ts.size());
    check_tensor(ts[0], what);
}

static void same_kind(const at::Tensor &a, const at::Tensor &b, const char *what)
{
    TORCH_CHECK(a.scalar_type() == b.scalar_type(), "shmc: ", what, ": tensors of dtypes ",
                a.scalar_type(), " and ", b.scalar_type(), " (they must be the same)");
}

// The list of one tensor per rank that all_gather, gather, scatter and reduce_scatter
// take (NULL: none given): n tensors we take, each of ref's dtype and number of elements.
// role says what the list holds ("output"), other what ref is, where where it is needed.
static void one_per_rank(const std::vector<at::Tensor> *list, int n, const at::Tensor &ref,
                         const char *what, const char *role, const char *other,
                         const char *where = "")
{
    TORCH_CHECK(list && (int)list->size() == n, "shmc: ", what, " needs a list of ", n, " ", role,
                " tensors", where);
    for (const auto &t : *list) {
        check_tensor(t, what);
        same_kind(t, ref, what);
        TORCH_CHECK(t.numel() == ref.numel(), "shmc: ", what, ": an ", role, " of ", t.numel(),
                    " elements for an ", other, " of ", ref.numel());
    }
}

// ---- the collectives -----------------------------------------------------------------------

c10::intrusive_ptr<c10d::Work> ProcessGroupShmc::broadcast(std::vector<at::Tensor> &tensors,
                                                           const c10d::BroadcastOptions &opts)
{
    one_tensor(tensors, "broadcast");
    TORCH_CHECK(opts.rootRank >= 0 && opts.rootRank < getSize(), "shmc: broadcast: root ",
                opts.rootRank, " is not a rank of the group (0..", getSize() - 1, ")");
    Staged s(tensors[0]);
    shmc_comm *c = comm_;
    int root = (int)opts.rootRank;
    shmc_dtype dt = dtype_of(s.buf, "broadcast");
    Step step{[s, c, root, dt](shmc_request **r) {
                  return r ? shmc_ibroadcast(s.ptr(), s.count(), dt, root, c, r)
                           : shmc_broadcast(s.ptr(), s.count(), dt, root, c);
              },
              [s] { s.back(); }};
    return collective("broadcast", bytes_of(s.user), opts.asyncOp, tensors, {step});
}

Step ProcessGroupShmc::allreduce_step(const at::Tensor &t, const c10d::ReduceOp &rop,
                                      const char *what)
{
    check_tensor(t, what);
    shmc_op op = op_of(rop, t, what);
    at::Tensor in = premul(t, rop);
    Staged s(t);
    at::Tensor src = in.is_same(t) ? at::Tensor() : flat_view(in);
    shmc_comm *c = comm_;
    shmc_dtype dt = dtype_of(s.buf, what);
    return {[s, src, c, dt, op](shmc_request **r) {
                const void *in = src.defined() ? src.data_ptr() : SHMC_IN_PLACE;
                return r ? shmc_iallreduce(in, s.ptr(), s.count(), dt, op, c, r)
                         : shmc_allreduce(in, s.ptr(), s.count(), dt, op, c);
            },
            [s] { s.back(); }};
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmc::allreduce(std::vector<at::Tensor> &tensors,
                                                           const c10d::AllreduceOptions &opts)
{
    one_tensor(tensors, "all_reduce");
    return collective("all_reduce", bytes_of(tensors[0]), opts.asyncOp, tensors,
                      {allreduce_step(tensors[0], opts.reduceOp, "all_reduce")});
}

// A coalesced operation over pairs (outputs[i], inputs[i]): call_of(i) for each, in order,
// as one operation; its bytes are each pair's larger tensor (the gathered output, the
// input to scatter).
c10::intrusive_ptr<c10d::Work>
ProcessGroupShmc::coalesced_pairs(const char *what, std::vector<at::Tensor> &outputs,
                                  std::vector<at::Tensor> &inputs, bool async,
                                  const std::function<Step(size_t)> &step_of)
{
    TORCH_CHECK(outputs.size() == inputs.size(), "shmc: ", what, ": ", outputs.size(),
                " outputs for ", inputs.size(), " inputs");
    Steps steps;
    size_t bytes = 0;
    for (size_t i = 0; i < inputs.size(); i++) {
        steps.push_back(step_of(i));
        bytes += std::max(bytes_of(outputs[i]), bytes_of(inputs[i]));
    }
    return collective(what, bytes, async, outputs, std::move(steps));
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupShmc::allreduce_coalesced(std::vector<at::Tensor> &tensors,
                                      const c10d::AllreduceCoalescedOptions &opts)
{
    Steps steps;
    size_t bytes = 0;
    for (auto &t : tensors) {
        steps.push_back(allreduce_step(t, opts.reduceOp, "all_reduce_coalesced"));
        bytes += bytes_of(t);
    }
    return collective("all_reduce_coalesced", bytes, opts.asyncOp, tensors, std::move(steps));
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmc::reduce(std::vector<at::Tensor> &tensors,
                                                        const c10d::ReduceOptions &opts)
{
    one_tensor(tensors, "reduce");
    TORCH_CHECK(opts.rootRank >= 0 && opts.rootRank < getSize(), "shmc: reduce: root ",
                opts.rootRank, " is not a rank of the group");
    shmc_op op = op_of(opts.reduceOp, tensors[0], "reduce");
    at::Tensor in = flat_view(premul(tensors[0], opts.reduceOp));
    Staged s(tensors[0]);
    // The root's result replaces its input where that is the tensor's own memory (in place,
    // as MPI_Reduce allows); a scaled input (PREMUL_SUM) is a tensor of its own.
    bool root_here = getRank() == opts.rootRank;
    bool in_place = root_here && in.data_ptr() == s.buf.data_ptr();
    shmc_comm *c = comm_;
    int root = (int)opts.rootRank;
    shmc_dtype dt = dtype_of(s.buf, "reduce");
    Step step{[s, in, in_place, root_here, c, dt, op, root](shmc_request **r) {
                  const void *i = in_place ? SHMC_IN_PLACE : in.data_ptr();
                  void *o = root_here ? s.ptr() : nullptr;
                  return r ? shmc_ireduce(i, o, s.count(), dt, op, root, c, r)
                           : shmc_reduce(i, o, s.count(), dt, op, root, c);
              },
              [s, root_here] {
                  if (root_here)
                      s.back();
              }};
    return collective("reduce", bytes_of(s.user), opts.asyncOp, tensors, {step});
}

// Gathers every rank's input into one flat tensor of size x its elements, then copies
// the blocks into the caller's list of outputs.
Step ProcessGroupShmc::allgather_step(const std::vector<at::Tensor> &outs, const at::Tensor &input)
{
    check_tensor(input, "all_gather");
    one_per_rank(&outs, getSize(), input, "all_gather", "output", "input");
    at::Tensor in = flat_view(input);
    int n = getSize();
    at::Tensor flat = at::empty({(int64_t)n * in.numel()}, in.options());
    shmc_comm *c = comm_;
    shmc_dtype dt = dtype_of(in, "all_gather");
    return {[in, flat, c, dt](shmc_request **r) {
                size_t k = (size_t)in.numel();
                return r ? shmc_iallgather(in.data_ptr(), flat.data_ptr(), k, dt, c, r)
                         : shmc_allgather(in.data_ptr(), flat.data_ptr(), k, dt, c);
            },
            [flat, outs] { copy_blocks(outs, flat); }};
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupShmc::allgather(std::vector<std::vector<at::Tensor>> &outputs,
                            std::vector<at::Tensor> &inputs, const c10d::AllgatherOptions &opts)
{
    one_tensor(inputs, "all_gather");
    TORCH_CHECK(outputs.size() == 1, "shmc: all_gather takes one list of outputs per call, not ",
                outputs.size());
    return collective("all_gather", bytes_of(inputs[0]) * getSize(), opts.asyncOp, outputs[0],
                      {allgather_step(outputs[0], inputs[0])});
}

Step ProcessGroupShmc::allgather_base_step(const at::Tensor &output, const at::Tensor &input)
{
    check_tensor(output, "all_gather_into_tensor");
    check_tensor(input, "all_gather_into_tensor");
    same_kind(output, input, "all_gather_into_tensor");
    TORCH_CHECK(output.numel() == input.numel() * getSize(),
                "shmc: all_gather_into_tensor: the output holds ", output.numel(),
                " elements, not ", getSize(), " x ", input.numel());
    at::Tensor in = flat_view(input);
    Staged s(output);
    shmc_comm *c = comm_;
    shmc_dtype dt = dtype_of(in, "all_gather_into_tensor");
    return {[in, s, c, dt](shmc_request **r) {
                size_t k = (size_t)in.numel();
                return r ? shmc_iallgather(in.data_ptr(), s.ptr(), k, dt, c, r)
                         : shmc_allgather(in.data_ptr(), s.ptr(), k, dt, c);
            },
            [s] { s.back(); }};
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmc::_allgather_base(at::Tensor &output,
                                                                 at::Tensor &input,
                                                                 const c10d::AllgatherOptions &opts)
{
    return collective("all_gather_into_tensor", bytes_of(output), opts.asyncOp, {output},
                      {allgather_base_step(output, input)});
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupShmc::allgather_coalesced(std::vector<std::vector<at::Tensor>> &outputs,
                                      std::vector<at::Tensor> &inputs,
                                      const c10d::AllgatherOptions &opts)
{
    TORCH_CHECK(outputs.size() == inputs.size(), "shmc: all_gather_coalesced: ", outputs.size(),
                " output lists for ", inputs.size(), " inputs");
    Steps steps;
    std::vector<at::Tensor> outs;
    size_t bytes = 0;
    for (size_t i = 0; i < inputs.size(); i++) {
        steps.push_back(allgather_step(outputs[i], inputs[i]));
        outs.insert(outs.end(), outputs[i].begin(), outputs[i].end());
        bytes += bytes_of(inputs[i]) * getSize();
    }
    return collective("all_gather_coalesced", bytes, opts.asyncOp, outs, std::move(steps));
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupShmc::allgather_into_tensor_coalesced(std::vector<at::Tensor> &outputs,
                                                  std::vector<at::Tensor> &inputs,
                                                  const c10d::AllgatherOptions &opts)
{
    return coalesced_pairs("all_gather_into_tensor_coalesced", outputs, inputs, opts.asyncOp,
                           [&](size_t i) { return allgather_base_step(outputs[i], inputs[i]); });
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupShmc::gather(std::vector<std::vector<at::Tensor>> &outputs,
                         std::vector<at::Tensor> &inputs, const c10d::GatherOptions &opts)
{
    one_tensor(inputs, "gather");
    int n = getSize(), root = (int)opts.rootRank;
    TORCH_CHECK(root >= 0 && root < n, "shmc: gather: root ", root, " is not a rank of the group");
    bool me = getRank() == root;
    std::vector<at::Tensor> outs;
    if (me) {
        one_per_rank(outputs.size() == 1 ? &outputs[0] : nullptr, n, inputs[0], "gather", "output",
                     "input", " on the root");
        outs = outputs[0];
    } else {
        TORCH_CHECK(outputs.empty() || outputs[0].empty(),
                    "shmc: gather: only the root passes output tensors");
    }
    at::Tensor in = flat_view(inputs[0]);
    at::Tensor flat = me ? at::empty({(int64_t)n * in.numel()}, in.options()) : at::Tensor();
    shmc_comm *c = comm_;
    shmc_dtype dt = dtype_of(in, "gather");
    Step step{[in, flat, c, dt, root](shmc_request **r) {
                  void *f = flat.defined() ? flat.data_ptr() : nullptr;
                  size_t k = (size_t)in.numel();
                  return r ? shmc_igather(in.data_ptr(), f, k, dt, root, c, r)
                           : shmc_gather(in.data_ptr(), f, k, dt, root, c);
              },
              [flat, outs] {
                  if (flat.defined())
                      copy_blocks(outs, flat);
              }};
    return collective("gather", bytes_of(inputs[0]), opts.asyncOp, outs, {step}, in.device());
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupShmc::scatter(std::vector<at::Tensor> &outputs,
                          std::vector<std::vector<at::Tensor>> &inputs,
                          const c10d::ScatterOptions &opts)
{
    one_tensor(outputs, "scatter");
    int n = getSize(), root = (int)opts.rootRank;
    TORCH_CHECK(root >= 0 && root < n, "shmc: scatter: root ", root, " is not a rank of the group");
    at::Tensor flat;
    if (getRank() == root) {
        one_per_rank(inputs.size() == 1 ? &inputs[0] : nullptr, n, outputs[0], "scatter", "input",
                     "output", " on the root");
        std::vector<at::Tensor> parts;
        for (auto &t : inputs[0])
            parts.push_back(flat_view(t).reshape({-1}));
        flat = at::cat(parts);
    } else {
        TORCH_CHECK(inputs.empty() || inputs[0].empty(),
                    "shmc: scatter: only the root passes input tensors");
    }
    Staged s(outputs[0]);
    shmc_comm *c = comm_;
    shmc_dtype dt = dtype_of(s.buf, "scatter");
    Step step{[flat, s, c, dt, root](shmc_request **r) {
                  const void *f = flat.defined() ? flat.data_ptr() : nullptr;
                  return r ? shmc_iscatter(f, s.ptr(), s.count(), dt, root, c, r)
                           : shmc_scatter(f, s.ptr(), s.count(), dt, root, c);
              },
              [s] { s.back(); }};
    return collective("scatter", bytes_of(outputs[0]), opts.asyncOp, outputs, {step});
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupShmc::reduce_scatter(std::vector<at::Tensor> &outputs,
                                 std::vector<std::vector<at::Tensor>> &inputs,
                                 const c10d::ReduceScatterOptions &opts)
{
    one_tensor(outputs, "reduce_scatter");
    int n = getSize();
    one_per_rank(inputs.size() == 1 ? &inputs[0] : nullptr, n, outputs[0], "reduce_scatter",
                 "input", "output");
    std::vector<at::Tensor> parts;
    for (auto &t : inputs[0])
        parts.push_back(flat_view(premul(t, opts.reduceOp)).reshape({-1}));
    shmc_op op = op_of(opts.reduceOp, outputs[0], "reduce_scatter");
    at::Tensor flat = at::cat(parts);
    Staged s(outputs[0]);
    shmc_comm *c = comm_;
    shmc_dtype dt = dtype_of(s.buf, "reduce_scatter");
    Step step{[flat, s, c, dt, op](shmc_request **r) {
                  return r ? shmc_ireduce_scatter(flat.data_ptr(), s.ptr(), s.count(), dt, op, c, r)
                           : shmc_reduce_scatter(flat.data_ptr(), s.ptr(), s.count(), dt, op, c);
              },
              [s] { s.back(); }};
    return collective("reduce_scatter", bytes_of(outputs[0]) * n, opts.asyncOp, outputs, {step});
}

Step ProcessGroupShmc::reduce_scatter_base_step(const at::Tensor &output, const at::Tensor &input,
                                                const c10d::ReduceOp &rop)
{
    check_tensor(output, "reduce_scatter_tensor");
    check_tensor(input, "reduce_scatter_tensor");
    same_kind(output, input, "reduce_scatter_tensor");
    TORCH_CHECK(input.numel() == output.numel() * getSize(),
                "shmc: reduce_scatter_tensor: the input holds ", input.numel(), " elements, not ",
                getSize(), " x ", output.numel());
    shmc_op op = op_of(rop, output, "reduce_scatter_tensor");
    at::Tensor in = flat_view(premul(input, rop));
    Staged s(output);
    if (in.data_ptr() == s.buf.data_ptr())
        in = in.clone();
    shmc_comm *c = comm_;
    shmc_dtype dt = dtype_of(s.buf, "reduce_scatter_tensor");
    return {[in, s, c, dt, op](shmc_request **r) {
                return r ? shmc_ireduce_scatter(in.data_ptr(), s.ptr(), s.count(), dt, op, c, r)
                         : shmc_reduce_scatter(in.data_ptr(), s.ptr(), s.count(), dt, op, c);
            },
            [s] { s.back(); }};
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupShmc::_reduce_scatter_base(at::Tensor &output, at::Tensor &input,
                                       const c10d::ReduceScatterOptions &opts)
{
    return collective("reduce_scatter_tensor", bytes_of(input), opts.asyncOp, {output},
                      {reduce_scatter_base_step(output, input, opts.reduceOp)});
}

c10::intrusive_ptr<c10d::Work>
ProcessGroupShmc::reduce_scatter_tensor_coalesced(std::vector<at::Tensor> &outputs,
                                                  std::vector<at::Tensor> &inputs,
                                                  const c10d::ReduceScatterOptions &opts)
{
    return coalesced_pairs(
        "reduce_scatter_tensor_coalesced", outputs, inputs, opts.asyncOp,
        [&](size_t i) { return reduce_scatter_base_step(outputs[i], inputs[i], opts.reduceOp); });
}

// Element counts of splits of t's first dimension: rows x the elements of a row.
static std::vector<size_t> counts_of(const at::Tensor &t, const std::vector<int64_t> &splits, int n,
                                     const char *side)
{
    std::vector<size_t> counts(n);
    int64_t rows = t.dim() ? t.size(0) : 1, row = rows ? t.numel() / rows : 0;
    if (at::isComplexType(t.scalar_type()))
        row *= 2;
    if (splits.empty()) {
        TORCH_CHECK(rows % n == 0, "shmc: all_to_all_single: the ", side, " tensor's ", rows,
                    " rows do not split evenly among ", n, " ranks (pass split sizes)");
        for (auto &c : counts)
            c = (size_t)(rows / n * row);
        return counts;
    }
    TORCH_CHECK((int)splits.size() == n, "shmc: all_to_all_single: ", splits.size(), " ", side,
                " split sizes for ", n, " ranks");
    int64_t sum = 0;
    for (int i = 0; i < n; i++) {
        TORCH_CHECK(splits[i] >= 0, "shmc: all_to_all_single: a negative ", side, " split size");
        sum += splits[i];
        counts[i] = (size_t)(splits[i] * row);
    }
    TORCH_CHECK(sum == rows, "shmc: all_to_all_single: ", side, " split sizes add up to ", sum,
                " rows, but the tensor has ", rows);
    return counts;
}

static std::vector<size_t> displs_of(const std::vector<size_t> &counts)
{
    std::vector<size_t> d(counts.size());
    size_t at = 0;
    for (size_t i = 0; i < counts.size(); i++) {
        d[i] = at;
        at += counts[i];
    }
    return d;
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmc::alltoall_base(at::Tensor &output,
                                                               at::Tensor &input,
                                                               std::vector<int64_t> &output_splits,
                                                               std::vector<int64_t> &input_splits,
                                                               const c10d::AllToAllOptions &opts)
{
    check_tensor(output, "all_to_all_single");
    check_tensor(input, "all_to_all_single");
    same_kind(output, input, "all_to_all_single");
    int n = getSize();
    auto sc = counts_of(input, input_splits, n, "input");
    auto rc_ = counts_of(output, output_splits, n, "output");
    auto sd = displs_of(sc), rd = displs_of(rc_);
    at::Tensor in = flat_view(input);
    Staged s(output);
    if (in.numel() && in.data_ptr() == s.buf.data_ptr())
        in = in.clone();
    shmc_comm *c = comm_;
    shmc_dtype dt = dtype_of(s.buf, "all_to_all_single");
    // The counts live in the step, which outlives a nonblocking call's request.
    auto counts = std::make_shared<std::vector<std::vector<size_t>>>(
        std::vector<std::vector<size_t>>{sc, sd, rc_, rd});
    Step step{[in, s, counts, c, dt](shmc_request **r) {
                  const auto &k = *counts;
                  return r ? shmc_ialltoallv(in.data_ptr(), k[0].data(), k[1].data(), s.ptr(),
                                             k[2].data(), k[3].data(), dt, c, r)
                           : shmc_alltoallv(in.data_ptr(), k[0].data(), k[1].data(), s.ptr(),
                                            k[2].data(), k[3].data(), dt, c);
              },
              [s] { s.back(); }};
    return collective("all_to_all_single", bytes_of(input), opts.asyncOp, {output}, {step});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmc::alltoall(std::vector<at::Tensor> &outputs,
                                                          std::vector<at::Tensor> &inputs,
                                                          const c10d::AllToAllOptions &opts)
{
    int n = getSize();
    TORCH_CHECK((int)outputs.size() == n && (int)inputs.size() == n, "shmc: all_to_all needs ", n,
                " input and ", n, " output tensors");
    std::vector<size_t> sc(n), rcn(n);
    std::vector<at::Tensor> parts;
    for (int i = 0; i < n; i++) {
        check_tensor(inputs[i], "all_to_all");
        check_tensor(outputs[i], "all_to_all");
        same_kind(inputs[i], inputs[0], "all_to_all");
        same_kind(outputs[i], inputs[0], "all_to_all");
        parts.push_back(flat_view(inputs[i]).reshape({-1}));
        sc[i] = (size_t)parts.back().numel();
        rcn[i] = (size_t)flat_view(outputs[i]).numel();
    }
    at::Tensor in = at::cat(parts);
    auto sd = displs_of(sc), rd = displs_of(rcn);
    at::Tensor flat = at::empty({(int64_t)(rd[n - 1] + rcn[n - 1])}, in.options());
    std::vector<at::Tensor> outs = outputs;
    shmc_comm *c = comm_;
    shmc_dtype dt = dtype_of(in, "all_to_all");
    auto counts = std::make_shared<std::vector<std::vector<size_t>>>(
        std::vector<std::vector<size_t>>{sc, sd, rcn, rd});
    Step step{[in, flat, counts, c, dt](shmc_request **r) {
                  const auto &k = *counts;
                  return r ? shmc_ialltoallv(in.data_ptr(), k[0].data(), k[1].data(),
                                             flat.data_ptr(), k[2].data(), k[3].data(), dt, c, r)
                           : shmc_alltoallv(in.data_ptr(), k[0].data(), k[1].data(),
                                            flat.data_ptr(), k[2].data(), k[3].data(), dt, c);
              },
              [flat, counts, outs] {
                  const auto &k = *counts;
                  for (size_t i = 0; i < outs.size(); i++) {
                      at::Tensor o = outs[i];
                      copy_into(o, flat.narrow(0, (int64_t)k[3][i], (int64_t)k[2][i]));
                  }
              }};
    return collective("all_to_all", (size_t)in.numel() * in.element_size(), opts.asyncOp, outs,
                      {step});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmc::barrier(const c10d::BarrierOptions &opts)
{
    shmc_comm *c = comm_;
    Step step{[c](shmc_request **r) { return r ? shmc_ibarrier(c, r) : shmc_barrier(c); }, nullptr};
    return collective("barrier", 0, opts.asyncOp, {}, {step});
}

// Every rank reports to rank 0, which answers each once all did (gloo's protocol): the
// ranks that did not report within the timeout are named.
void ProcessGroupShmc::monitoredBarrier(const c10d::BarrierOptions &opts, bool wait_all_ranks)
{
    TORCH_CHECK(comm_, "shmc: monitored_barrier on group '", group_, "', which was shut down");
    Engine::get().drain();
    auto timeout = opts.timeout.count() > 0 ? opts.timeout : timeout_;
    auto end = std::chrono::steady_clock::now() + timeout;
    const int tag = 0x7ffffff0, n = getSize(), me = getRank();
    // Requests still pending when this returns keep their buffer (orphans, work.cpp).
    at::Tensor tokens = at::zeros({n}, at::kInt);
    int *tok = tokens.data_ptr<int>();
    auto poll = [&](shmc_request **r) { return test_until(r, end, nullptr); };
    if (me != 0) {
        shmc_request *s = nullptr, *r = nullptr;
        int rc = shmc_isend(&tok[0], 1, SHMC_INT32, 0, tag, comm_, &s);
        if (rc == SHMC_OK)
            rc = shmc_irecv(&tok[1], 1, SHMC_INT32, 0, tag, comm_, &r);
        if (rc == SHMC_OK)
            rc = poll(&s);
        if (rc == SHMC_OK)
            rc = poll(&r);
        adopt(s, tokens);
        adopt(r, tokens);
        TORCH_CHECK(rc == SHMC_OK, "shmc: monitored_barrier on ", where(),
                    ": rank 0 did not answer within ", timeout.count(), " ms (", shmc_strerror(rc),
                    ")");
        return;
    }
    std::vector<shmc_request *> reqs(n, nullptr);
    for (int q = 1; q < n; q++)
        shmc_irecv(&tok[q], 1, SHMC_INT32, q, tag, comm_, &reqs[q]);
    std::vector<int> missing;
    for (int q = 1; q < n; q++) {
        if ((missing.empty() || wait_all_ranks) && poll(&reqs[q]) != SHMC_OK)
            missing.push_back(q);
        adopt(reqs[q], tokens);
    }
    TORCH_CHECK(missing.empty(), "shmc: monitored_barrier on ", where(), ": rank",
                missing.size() > 1 ? "s " : " ", c10::Join(", ", missing),
                " did not reach the barrier within ", timeout.count(), " ms");
    for (int q = 1; q < n; q++)
        shmc_send(&tok[0], 1, SHMC_INT32, q, tag, comm_);
}

// ---- point-to-point ---------------------------------------------------------------------

c10::intrusive_ptr<c10d::Work> ProcessGroupShmc::p2p(bool send, at::Tensor &t, int peer, int tag)
{
    const char *what = send ? "send" : "recv";
    TORCH_CHECK(comm_, "shmc: ", what, " on group '", group_, "', which was shut down");
    check_tensor(t, what);
    TORCH_CHECK(tag >= 0, "shmc: ", what, ": tag ", tag, " is negative");
    TORCH_CHECK(peer == SHMC_ANY_SOURCE || (peer >= 0 && peer < getSize()), "shmc: ", what,
                ": rank ", peer, " is not a rank of the group (0..", getSize() - 1, ")");
    reap_orphans();
    seq_++;
    at::Tensor buf = flat_view(t);
    shmc_dtype dt = dtype_of(buf, what);
    shmc_request *req = nullptr;
    device_ready(buf.device()); // a send reads it, a receive must not race the caller's kernels
    c10::OptionalDeviceGuard guard;
    if (buf.is_cuda())
        guard.reset_device(buf.device());
    int rc = send ? shmc_isend(buf.data_ptr(), (size_t)buf.numel(), dt, peer, tag, comm_, &req)
                  : shmc_irecv(buf.data_ptr(), (size_t)buf.numel(), dt, peer, tag, comm_, &req);
    TORCH_CHECK(rc == SHMC_OK, p2p_describe(send, bytes_of(t), peer, tag, where()), ": ",
                shmc_strerror(rc));
    return c10::make_intrusive<P2PWork>(req, buf, t, !send,
                                        P2PWork::Where{getRank(), getSize(), peer, tag, group_});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmc::send(std::vector<at::Tensor> &tensors, int dst,
                                                      int tag)
{
    one_tensor(tensors, "send");
    return p2p(true, tensors[0], dst, tag);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmc::recv(std::vector<at::Tensor> &tensors, int src,
                                                      int tag)
{
    one_tensor(tensors, "recv");
    return p2p(false, tensors[0], src, tag);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupShmc::recvAnysource(std::vector<at::Tensor> &tensors,
                                                               int tag)
{
    one_tensor(tensors, "recv");
    return p2p(false, tensors[0], SHMC_ANY_SOURCE, tag);
}

} // namespace shmct
