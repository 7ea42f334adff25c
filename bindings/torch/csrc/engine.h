// The order in which a process runs its blocking collectives (shmcomm_torch).
//
// The C library's shared-memory collectives run one at a time per process (the backend
// keeps them on its groups with SHMC_COLL_OVERLAP=0), and every rank must meet its
// collectives in the same order. torch issues them from the program's thread, blocking or
// asynchronously; this engine keeps one queue per process, shared by every process
// group, and runs what is in it in the order it was issued: a blocking call runs in the
// caller's thread once everything before it has run; an asynchronous one that the
// library's nonblocking collectives cannot take (device tensors) is run by the engine's
// one worker thread, or by a thread that waits for it and finds it next in line (so a
// wait soon after the call costs no thread switch). Asynchronous collectives on host
// tensors and point-to-point operations do not queue: they are the library's nonblocking
// calls (backend.cpp), issued once what was queued before them has run.
#pragma once

#include <ATen/core/ivalue.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace shmct
{

struct Op {
    // Runs the library calls; returns SHMC_OK or an error code, with a message in why.
    std::function<int(std::string &why)> fn;
    std::vector<at::Tensor> outputs; // the future's value
    int state = 0;                   // 0 queued, 1 running, 2 done (under the engine's mutex)
    int rc = 0;
    std::string why;
    c10::intrusive_ptr<c10::ivalue::Future> fut; // made on demand
    bool fut_marked = false;                     // some thread has taken on completing fut
};

class Engine
{
  public:
    static Engine &get();
    // Queues op for the worker.
    void submit(const std::shared_ptr<Op> &op);
    // Runs queued operations in order, in this thread, until op is done (or waits for the
    // thread that runs it).
    void wait(const std::shared_ptr<Op> &op);
    // Runs everything queued before returning: before the library is finalized.
    void drain();
    // Runs op in this thread once everything queued before it has run: a blocking call.
    void run_inline(const std::shared_ptr<Op> &op);
    // Has op run?
    bool done(const std::shared_ptr<Op> &op);
    // The future of op, completed when op is.
    c10::intrusive_ptr<c10::ivalue::Future> future(const std::shared_ptr<Op> &op);
    // Ends the worker after the queue is empty (before the library is finalized).
    void stop();
    // SHMC_TORCH_WORKER=all: every collective runs on the worker thread and callers only
    // wait (torch's MPI backend's design), to measure it against ours (bench/torch_bench.py).
    bool worker_only() const
    {
        return worker_only_;
    }
    // SHMC_TORCH_WORKER=all or async: asynchronous collectives on host tensors run on the
    // worker thread too, not as the library's nonblocking collectives (for measuring).
    bool worker_async() const
    {
        return worker_async_;
    }

  private:
    void loop();
    void run_locked(std::unique_lock<std::mutex> &lk, std::shared_ptr<Op> op);
    void let_go(std::unique_lock<std::mutex> &lk, std::shared_ptr<Op> &op);
    void start_locked();
    template <class Until>
    void serve_locked(std::unique_lock<std::mutex> &lk, Until until, bool steal);

    std::mutex mu_;
    std::condition_variable work_, done_;
    std::deque<std::shared_ptr<Op>> q_;
    bool running_ = false; // some thread is running an operation
    bool stop_ = false;
    bool worker_only_ = false;
    bool worker_async_ = false;
    std::thread worker_;
    Engine();
};

} // namespace shmct
