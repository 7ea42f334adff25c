// The Work objects torch gets back: a queued collective's (engine.h) and a point-to-point
// operation's (a request of the C library).
#pragma once

#include <torch/csrc/distributed/c10d/Work.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "engine.h"
#include "shmcomm.h"

namespace shmct
{

// Tests req until it ends (its result, status filled) or `end` passes (SHMC_ERR_TIMEOUT,
// req still pending), sleeping 50 us between looks: the waits that have their own
// deadline (Work.wait with a timeout, monitored_barrier).
int test_until(shmc_request **req, std::chrono::steady_clock::time_point end, shmc_status *st);

// Requests whose owner stops waiting before they end keep `keep` (their buffer) alive
// here (adopt; NULL req is nothing); reap_orphans lets go of those that ended, and
// drop_orphans of all, once shmc_finalize has ended or cancelled every request.
void adopt(shmc_request *req, at::Tensor keep);
void reap_orphans();
void drop_orphans();

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

class P2PWork : public c10d::Work
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
    bool isSuccess() const override;
    std::exception_ptr exception() const override;
    bool wait(std::chrono::milliseconds timeout) override;
    int sourceRank() const override;
    std::vector<at::Tensor> result() override
    {
        return {user_};
    }
    c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

  private:
    void finish_locked(int rc, const shmc_status &st);
    mutable std::mutex mu_;
    shmc_request *req_;
    at::Tensor t_, user_;
    bool recv_, done_ = false;
    std::string describe() const;
    int rc_ = 0, src_ = -1;
    Where where_;
    std::string why_;
    c10::intrusive_ptr<c10::ivalue::Future> fut_;
};

} // namespace shmct
