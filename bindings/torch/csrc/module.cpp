// The Python module shmcomm_torch._C: makes the backend for torch's plugin registry.
#include <torch/extension.h>

#include "backend.h"

static c10::intrusive_ptr<c10d::Backend> create(const c10::intrusive_ptr<c10d::Store> &store,
                                                int rank, int size, int64_t timeout_ms,
                                                const std::string &group,
                                                const std::vector<int64_t> &global_ranks)
{
    return c10::make_intrusive<shmct::ProcessGroupShmc>(
        store, rank, size, std::chrono::milliseconds(timeout_ms), group, global_ranks);
}

static void monitored_barrier(const c10::intrusive_ptr<c10d::Backend> &backend, int64_t timeout_ms,
                              bool wait_all_ranks)
{
    auto *pg = dynamic_cast<shmct::ProcessGroupShmc *>(backend.get());
    TORCH_CHECK(pg, "shmc: monitored_barrier of a group whose backend is not shmc");
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
    auto *pg = dynamic_cast<shmct::ProcessGroupShmc *>(backend.get());
    TORCH_CHECK(pg, "shmc: inference_all_reduce of a group whose backend is not shmc");
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
    m.def("monitored_barrier", &monitored_barrier, py::call_guard<py::gil_scoped_release>());
    m.def("all_reduce", &all_reduce, py::call_guard<py::gil_scoped_release>());
    m.def("version", [] { return std::string(shmc_version()); });
}
