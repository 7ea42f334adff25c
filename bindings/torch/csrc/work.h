// The Work objects torch gets back: a queued collective's (engine.h), an asynchronous
// collective's on host tensors and a point-to-point operation's (requests of the C
// library).
#pragma once

#include <torch/csrc/distributed/c10d/Work.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine.h"
#include "shmcomm.h"

namespace shmct
{

// Tests req until it ends (its result, status filled) or `end` passes (SHMC_ERR_TIMEOUT,
// req still pending), sleeping 50 us between looks: the waits that have their own
// deadline (Work.wait with a timeout, monitored_barrier).
int test_until(shmc_request **req, std::chrono::steady_clock::time_point end, shmc_status *st);

// One library call of a collective, split where its nonblocking form needs it: start
// issues the call (the blocking form when req is NULL, else the nonblocking one, its
// request in *req) and finish, where there is one, copies the result into the caller's
// tensors once the call has ended well. Both hold what the call reads and writes.
struct Step {
    std::function<int(shmc_request **req)> start;
    std::function<void()> finish;
};
using Steps = std::vector<Step>;

// Requests whose owner stops waiting before they end keep `keep` (their buffer) alive
// here (adopt; NULL req is nothing); reap_orphans lets go of those that ended, and
// drop_orphans of all, once shmc_finalize has ended or cancelled every request. `done`,
// where given, is called with the request's result when it ends (not after
// drop_orphans).
void adopt(shmc_request *req, at::Tensor keep);
void adopt(shmc_request *req, std::shared_ptr<const void> keep,
           std::function<void(int rc)> done = nullptr);
void reap_orphans();
void drop_orphans();

// Runs job (a wait for a work whose future was asked for) on the completer thread, in
// the order given; stop_completer runs what is queued, then ends the thread (before the
// library is finalized).
void complete_later(std::function<void()> job);
void stop_completer();

class CollWork : public c10d::Work
{
  public:
    CollWork(std::shared_ptr<Op> op, c10d::OpType type, const char *profile);
    bool isCompleted() override;
    bool isSuccess() const override;
    std::exception_ptr exception() const override;
    bool wait(std::chrono::milliseconds timeout) override;
    std::vector<at::Tensor> result() override
    {
        return op_->outputs;
    }
    c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

  private:
    std::shared_ptr<Op> op_;
};

// A Work over requests of the C library: its outcome (set by the subclass's finish,
// under mu_), and its future, completed once, with mu_ let go (its callbacks may take the
// GIL or call the work), by the thread that sees the end, or by the completer thread that
// getFuture asks to wait for it.
class LibWork : public c10d::Work
{
  public:
    LibWork(c10d::OpType type, const char *profile) : c10d::Work(-1, type, profile)
    {
    }
    bool isSuccess() const override;
    std::exception_ptr exception() const override;
    c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

  protected:
    // Completes the future if the work is done and someone asked for it; lets go of lk.
    void settle_future(std::unique_lock<std::mutex> &lk);
    // After the subclass's wait: completes the future, then throws the failure if any.
    void settle_and_check(std::unique_lock<std::mutex> &lk);
    mutable std::mutex mu_;
    std::atomic<bool> done_{false};
    int rc_ = 0;
    std::string why_;

  private:
    c10::intrusive_ptr<c10::ivalue::Future> fut_;
    bool fut_marked_ = false;
};

// An asynchronous collective on host tensors: the library's nonblocking collectives,
// one request per step, which every call of the process moves along (so collectives of
// several groups may be in flight in any order). The steps' results are copied into the
// caller's tensors by whichever thread sees the last request end.
class ReqWork : public LibWork
{
  public:
    // Why a failure happened: the operation, its bytes, where (ProcessGroupShmc::where)
    // and the group's timeout, composed into a message only if one is needed.
    struct What {
        const char *op;
        size_t bytes;
        std::string where;
        std::chrono::milliseconds timeout;
    };
    ReqWork(std::vector<shmc_request *> reqs, Steps steps, std::vector<at::Tensor> outputs,
            What what);
    ~ReqWork() override;
    bool isCompleted() override;
    bool wait(std::chrono::milliseconds timeout) override;
    std::vector<at::Tensor> result() override
    {
        return outputs_;
    }

  private:
    // Moves the pending requests along until all ended, one failed or `end` passed;
    // with `look_only`, one test of each and no more. kPending (work.cpp) if some remain.
    int advance_locked(bool look_only, std::chrono::steady_clock::time_point end);
    void finish_locked(int rc);
    std::vector<shmc_request *> reqs_; // NULL once ended
    size_t next_ = 0;                  // reqs_ before it have ended well
    std::shared_ptr<Steps> steps_;
    std::vector<at::Tensor> outputs_;
    What what_;
};

class P2PWork : public LibWork
{
  public:
    // What a message about the transfer names; composed only when one is needed.
    struct Where {
        int rank, size, peer, tag;
        std::string group; // short: no allocation for torch's names ("0", "1", ...)
    };
    // req: the library's request for the transfer of t (from or to user, which t is a
    // contiguous stand-in for, copied back after a receive).
    P2PWork(shmc_request *req, at::Tensor t, at::Tensor user, bool recv, Where where);
    ~P2PWork() override;
    bool isCompleted() override;
    bool wait(std::chrono::milliseconds timeout) override;
    int sourceRank() const override;
    std::vector<at::Tensor> result() override
    {
        return {user_};
    }

  private:
    void finish_locked(int rc, const shmc_status &st);
    shmc_request *req_;
    at::Tensor t_, user_;
    bool recv_;
    std::string describe() const;
    int src_ = -1;
    Where where_;
};

} // namespace shmct
