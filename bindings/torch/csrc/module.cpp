// The Python module shmcomm_torch._C: makes the backend for torch's plugin registry.
#include <torch/extension.h>

#include "backend.h"
#include "hosts.h"

static c10::intrusive_ptr<c10d::Backend> create(const c10::intrusive_ptr<c10d::Store> &store,
                                                int rank, int size, int64_t timeout_ms,
                                                const std::string &group,
                                                const std::vector<int64_t> &global_ranks)
{
    return c10::make_intrusive<shmct::ProcessGroupShmc>(
        store, rank, size, std::chrono::milliseconds(timeout_ms), group, global_ranks);
}

using OptBackend = std::optional<c10::intrusive_ptr<c10d::Backend>>;

// A group across hosts (hosts.h): this host's group, gloo's groups of the leaders (None
// where this rank does not lead its host) and of all ranks, NCCL's (None without NCCL),
// each host's group ranks.
static c10::intrusive_ptr<c10d::Backend>
create_hosts(const c10::intrusive_ptr<c10d::Backend> &local, const OptBackend &leaders,
             const c10::intrusive_ptr<c10d::Backend> &all, const OptBackend &cuda_leaders,
             const OptBackend &cuda_all, int rank, int size,
             const std::vector<std::vector<int64_t>> &hosts, int64_t timeout_ms,
             const std::string &group)
{
    auto get = [](const OptBackend &b) { return b ? *b : c10::intrusive_ptr<c10d::Backend>(); };
    return c10::make_intrusive<shmct::ProcessGroupHosts>(
        local, shmct::ProcessGroupHosts::Engines{get(leaders), all},
        shmct::ProcessGroupHosts::Engines{get(cuda_leaders), get(cuda_all)}, rank, size, hosts,
        std::chrono::milliseconds(timeout_ms), group);
}

static std::string machine_id()
{
    char id[SHMC_MACHINE_ID_LEN];
    int rc = shmc_machine_id(id, sizeof id);
    TORCH_CHECK(rc == SHMC_OK, "shmc: reading this machine's id: ", shmc_strerror(rc));
    return id;
}

// The group's backend when it is shmc's, of either kind.
static c10d::Backend *shmc_backend(const c10::intrusive_ptr<c10d::Backend> &backend,
                                   const char *what)
{
    c10d::Backend *b = backend.get();
    TORCH_CHECK(dynamic_cast<shmct::ProcessGroupShmc *>(b) ||
                    dynamic_cast<shmct::ProcessGroupHosts *>(b),
                "shmc: ", what, " of a group whose backend is not shmc");
    return b;
}

static void monitored_barrier(const c10::intrusive_ptr<c10d::Backend> &backend, int64_t timeout_ms,
                              bool wait_all_ranks)
{
    c10d::Backend *pg = shmc_backend(backend, "monitored_barrier");
    c10d::BarrierOptions opts;
    opts.timeout = std::chrono::milliseconds(timeout_ms);
    pg->monitoredBarrier(opts, wait_all_ranks);
}

// A blocking all-reduce on the group's backend that skips torch.distributed's dispatch
// (shmcomm_torch.inference_all_reduce): the same operation as the backend's allreduce, in
// the same order with the group's other calls, errors raised the same way.
static void all_reduce(const c10::intrusive_ptr<c10d::Backend> &backend, at::Tensor &t,
                       const c10d::ReduceOp &op)
{
    c10d::Backend *pg = shmc_backend(backend, "inference_all_reduce");
    std::vector<at::Tensor> ts{t};
    c10d::AllreduceOptions opts;
    opts.reduceOp = op;
    opts.asyncOp = false; // torch's default is true, which would queue it for the worker
    pg->allreduce(ts, opts)->wait();
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.doc() = "torch.distributed backend 'shmc' over the shmcomm shared-memory library";
    m.def("create", &create, py::call_guard<py::gil_scoped_release>(),
          "Makes the backend of one process group (torch calls it through the registry).");
    m.def("create_hosts", &create_hosts, py::call_guard<py::gil_scoped_release>(),
          "Makes the backend of a group whose ranks are on several hosts.");
    m.def("machine_id", &machine_id,
          "What shmc_machine_id says of this process: equal for processes of one host.");
    m.def("monitored_barrier", &monitored_barrier, py::call_guard<py::gil_scoped_release>());
    m.def("all_reduce", &all_reduce, py::call_guard<py::gil_scoped_release>());
    m.def("version", [] { return std::string(shmc_version()); });
}
