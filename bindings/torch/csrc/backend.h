// ProcessGroupShmc: torch.distributed's backend "shmc" over the shmcomm C API.
//
// The first "shmc" process group a process makes joins a shmcomm job of its ranks
// (shmc_init_join, with a key that group rank 0 makes and shares through torch's store);
// that job's world is the group. Every later group is a communicator of that world made
// by its members alone (shmc_comm_create_members), as torch's new_group calls the backend
// on members only. When the last group is destroyed the library is finalized, so that
// destroy_process_group and a new init_process_group join a new job.
#pragma once

#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "shmcomm.h"
#include "work.h"

namespace shmct
{

class ProcessGroupShmc : public c10d::Backend
{
  public:
    ProcessGroupShmc(const c10::intrusive_ptr<c10d::Store> &store, int rank, int size,
                     std::chrono::milliseconds timeout, std::string group,
                     std::vector<int64_t> global_ranks);
    ~ProcessGroupShmc() override;

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
    // Sequence numbers, which TORCH_DISTRIBUTED_DEBUG=DETAIL's wrapper asks for: every
    // collective and point-to-point call issued on the group counts one.
    void setSequenceNumberForGroup() override
    {
        seq_ = 0;
    }
    uint64_t getSequenceNumberForGroup() override
    {
        return seq_;
    }
    void monitoredBarrier(const c10d::BarrierOptions &opts, bool wait_all_ranks) override;
    c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor> &tensors, int dst,
                                        int tag) override;
    c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor> &tensors, int src,
                                        int tag) override;
    c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor> &tensors,
                                                 int tag) override;

    // What an error message says the group is: "rank 1 of 4 of group 'default_pg'".
    std::string where() const;

  private:
    // One operation's checks and library call, built before anything is issued, so that
    // a coalesced list is refused whole or issued whole.
    Step allreduce_step(const at::Tensor &t, const c10d::ReduceOp &rop, const char *what);
    Step allgather_step(const std::vector<at::Tensor> &outs, const at::Tensor &input);
    Step allgather_base_step(const at::Tensor &output, const at::Tensor &input);
    Step reduce_scatter_base_step(const at::Tensor &output, const at::Tensor &input,
                                  const c10d::ReduceOp &rop);
    // Runs the steps, in order, as operation `what`. Blocking: in this thread once what
    // was queued before has run (engine.h). Asynchronous: on host tensors the library's
    // nonblocking collectives (ReqWork); on device tensors, which those do not take,
    // queued for the engine's worker. dev is the device of its tensors when no output
    // says it (a gather's non-root), else taken from the outputs.
    c10::intrusive_ptr<c10d::Work> collective(const char *what, size_t bytes, bool async,
                                              std::vector<at::Tensor> outputs, Steps steps,
                                              std::optional<at::Device> dev = std::nullopt);
    // The asynchronous form on host tensors: the library's nonblocking collectives.
    c10::intrusive_ptr<c10d::Work> nonblocking(const char *what, size_t bytes,
                                               std::vector<at::Tensor> outputs, Steps steps);
    c10::intrusive_ptr<c10d::Work> coalesced_pairs(const char *what,
                                                   std::vector<at::Tensor> &outputs,
                                                   std::vector<at::Tensor> &inputs, bool async,
                                                   const std::function<Step(size_t)> &step_of);
    c10::intrusive_ptr<c10d::Work> p2p(bool send, at::Tensor &t, int peer, int tag);

    shmc_comm *comm_ = nullptr; // NULL once shut down
    std::chrono::milliseconds timeout_;
    std::string group_;
    bool world_ = false; // this group is the job's world
    uint64_t seq_ = 0;   // calls issued (getSequenceNumberForGroup)
};

// "shmc: send of 8 bytes to rank 1 (tag 0) on rank 0 of 2 of group '0'".
std::string p2p_describe(bool send, size_t bytes, int peer, int tag, const std::string &where);
// "rank 0 of 2 of group '0'".
std::string where_of(int rank, int size, const std::string &group);

// The message of a failed call: what, how many bytes, where, the library's words.
std::string failure(const std::string &what, size_t bytes, const std::string &where, int rc,
                    std::chrono::milliseconds timeout);

} // namespace shmct
