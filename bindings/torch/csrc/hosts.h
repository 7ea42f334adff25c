// ProcessGroupHosts: a "shmc" group whose ranks are on several hosts.
//
// shmcomm_torch's creator (__init__.py) finds each rank's host through the group's store
// (shmc_machine_id) and, when there are several, makes three groups from that store under
// prefixes of its own: the ranks of this host, an ordinary ProcessGroupShmc (one shmcomm
// job per host); the host leaders (each host's lowest group rank), on torch's gloo; and all
// the group's ranks, on gloo too; where torch has NCCL and a GPU, the same two groups again
// on NCCL, for CUDA tensors. No network code of ours: what crosses hosts goes through
// torch's engines.
//
// all_reduce, reduce, reduce_scatter, all_gather and broadcast go by host: within the host
// through shared memory, among the leaders through gloo, large reductions in pieces whose
// steps overlap; barrier likewise. The rest (gather, scatter, all_to_all, send and recv)
// moves bytes through the group of all ranks. Collectives run on the group's worker thread in
// the order issued, so that an asynchronous one (DDP's buckets) overlaps the caller's
// computation, as gloo's do; send and recv are gloo's own.
#pragma once

#include <torch/csrc/distributed/c10d/Backend.hpp>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace shmct
{

class ProcessGroupHosts : public c10d::Backend
{
  public:
    // The engines that cross hosts for one kind of tensor: the hosts' leaders (null on a
    // rank that does not lead its host) and all the group's ranks; for CUDA tensors both
    // null where torch has no NCCL.
    struct Engines {
        c10::intrusive_ptr<c10d::Backend> leaders, all;
    };
    // hosts: the group ranks of each host, each list in rank order, hosts in the order of
    // their lowest rank. cpu: gloo's groups; cuda: NCCL's.
    ProcessGroupHosts(c10::intrusive_ptr<c10d::Backend> local, Engines cpu, Engines cuda, int rank,
                      int size, std::vector<std::vector<int64_t>> hosts,
                      std::chrono::milliseconds timeout, std::string group);
    ~ProcessGroupHosts() override;

    const std::string getBackendName() const override
    {
        return "shmc";
    }
    void setTimeout(std::chrono::milliseconds timeout) override;
    void shutdown() override;
    void abort() override
    {
        shutdown();
    }

    c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor> &tensors,
                                             const c10d::BroadcastOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor> &tensors,
                                             const c10d::AllreduceOptions &opts) override;
    c10::intrusive_ptr<c10d::Work>
    allreduce_coalesced(std::vector<at::Tensor> &tensors,
                        const c10d::AllreduceCoalescedOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor> &tensors,
                                          const c10d::ReduceOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>> &outputs,
                                             std::vector<at::Tensor> &inputs,
                                             const c10d::AllgatherOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor &output, at::Tensor &input,
                                                   const c10d::AllgatherOptions &opts) override;
    c10::intrusive_ptr<c10d::Work>
    allgather_coalesced(std::vector<std::vector<at::Tensor>> &outputs,
                        std::vector<at::Tensor> &inputs,
                        const c10d::AllgatherOptions &opts) override;
    c10::intrusive_ptr<c10d::Work>
    allgather_into_tensor_coalesced(std::vector<at::Tensor> &outputs,
                                    std::vector<at::Tensor> &inputs,
                                    const c10d::AllgatherOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>> &outputs,
                                          std::vector<at::Tensor> &inputs,
                                          const c10d::GatherOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor> &outputs,
                                           std::vector<std::vector<at::Tensor>> &inputs,
                                           const c10d::ScatterOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor> &outputs,
                                                  std::vector<std::vector<at::Tensor>> &inputs,
                                                  const c10d::ReduceScatterOptions &opts) override;
    c10::intrusive_ptr<c10d::Work>
    _reduce_scatter_base(at::Tensor &output, at::Tensor &input,
                         const c10d::ReduceScatterOptions &opts) override;
    c10::intrusive_ptr<c10d::Work>
    reduce_scatter_tensor_coalesced(std::vector<at::Tensor> &outputs,
                                    std::vector<at::Tensor> &inputs,
                                    const c10d::ReduceScatterOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor &output, at::Tensor &input,
                                                 std::vector<int64_t> &output_splits,
                                                 std::vector<int64_t> &input_splits,
                                                 const c10d::AllToAllOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor> &outputs,
                                            std::vector<at::Tensor> &inputs,
                                            const c10d::AllToAllOptions &opts) override;
    c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions &opts) override;
    void monitoredBarrier(const c10d::BarrierOptions &opts, bool wait_all_ranks) override;
    c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor> &tensors, int dst,
                                        int tag) override;
    c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor> &tensors, int src,
                                        int tag) override;
    c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor> &tensors,
                                                 int tag) override;
    void setSequenceNumberForGroup() override
    {
        seq_ = 0;
    }
    uint64_t getSequenceNumberForGroup() override
    {
        return seq_;
    }

  private:
    // t (contiguous, real-valued) combined with op over the group, in place: by host.
    void allreduce_flat(at::Tensor t, c10d::ReduceOp op);
    // The whole operation in place on the user's tensor t (checks, PREMUL_SUM, AVG).
    void allreduce_user(at::Tensor &t, const c10d::ReduceOp &op, const char *what);
    // The host's broadcast from its rank root, and its reduce onto its leader: blocking.
    void host_bcast(at::Tensor t, int root = 0);
    void host_reduce(at::Tensor t, const c10d::ReduceOp &op);
    // All ranks' b bytes of in into out (b x size bytes), by host.
    void gather_bytes(at::Tensor out, at::Tensor in);
    // The bodies that coalesced forms repeat: an all_gather into a list, into one tensor,
    // and a reduce_scatter into output by an all-reduce of `all`, the whole input as a
    // tensor of the call's own (it is overwritten).
    void gather_list(std::vector<at::Tensor> outs, at::Tensor input);
    void gather_into(at::Tensor output, at::Tensor input);
    void scatter_reduced(at::Tensor output, at::Tensor all, const c10d::ReduceOp &op,
                         const char *what);
    // Runs one operation of the group: counts it, and turns a failure of a part into an
    // error that names the operation and where it ran.
    template <class F> void run(const char *what, F &&f);
    // Queues operation `what` (body) for the group's worker thread, which runs the
    // group's operations one at a time in the order queued (as every rank issues them):
    // the caller computes meanwhile, as with gloo's own threads. Its work completes with
    // outputs; a blocking one (async false) is waited for here, raising its error.
    template <class F>
    c10::intrusive_ptr<c10d::Work> queue(const char *what, bool async,
                                         std::vector<at::Tensor> outputs, F body);
    // The same, for tensors on device (queue takes the outputs' device).
    template <class F>
    c10::intrusive_ptr<c10d::Work> queue_on(at::Device device, const char *what, bool async,
                                            std::vector<at::Tensor> outputs, F body);
    // The engines for tensors on d; throws for CUDA where there is no NCCL.
    const Engines &engines(const at::Device &d) const;
    // A send or receive through the group of all ranks (start issues it on gloo).
    template <class F>
    c10::intrusive_ptr<c10d::Work> p2p(const char *what, std::vector<at::Tensor> &tensors,
                                       F &&start);
    void serve(); // the worker's loop
    void drain(); // waits until the worker has run everything queued
    void stop();  // ends the worker once what is queued has run
    std::string where() const;

    c10::intrusive_ptr<c10d::Backend> local_; // null once shut down, as are the engines
    Engines cpu_, cuda_;
    std::vector<std::vector<int64_t>> hosts_;
    std::vector<int> host_of_;  // group rank -> host
    std::vector<int> local_of_; // group rank -> rank within its host
    int host_ = 0;              // this rank's host
    bool in_order_ = false;     // hosts hold equal runs of consecutive ranks
    bool alone_ = false;        // every host has one rank of the group
    std::string group_;
    std::atomic<uint64_t> seq_{0};
    std::thread worker_;
    std::mutex qmu_;
    std::condition_variable qcv_, idle_;
    std::deque<std::function<void()>> jobs_;
    bool stopping_ = false, running_ = false;
    uint64_t tags_ = 0; // the leaders' exchanges so far (their gloo tags)
};

} // namespace shmct
