// The Work objects torch gets back: a queued collective's (engine.h) and a point-to-point
// operation's (a request of the C library).
#pragma once

#include <torch/csrc/distributed/c10d/Work.hpp>

#include <memory>
#include <mutex>
#include <string>

#include "engine.h"
#include "shmcomm.h"

namespace shmct {

class CollWork : public c10d::Work {
 public:
  CollWork(std::shared_ptr<Op> op, c10d::OpType type, const char* profile);
  bool isCompleted() override;
  bool isSuccess() const override;
  std::exception_ptr exception() const override;
  bool wait(std::chrono::milliseconds timeout) override;
  std::vector<at::Tensor> result() override { return op_->outputs; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

 private:
  std::shared_ptr<Op> op_;
};

class P2PWork : public c10d::Work {
 public:
  // req: the library's request for the transfer of t (from or to user, which t is a
  // contiguous stand-in for, copied back after a receive); describe: for messages.
  P2PWork(shmc_request* req, at::Tensor t, at::Tensor user, bool recv, std::string describe);
  ~P2PWork() override;
  bool isCompleted() override;
  bool isSuccess() const override;
  std::exception_ptr exception() const override;
  bool wait(std::chrono::milliseconds timeout) override;
  int sourceRank() const override;
  std::vector<at::Tensor> result() override { return {user_}; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;

 private:
  void finish_locked(int rc, const shmc_status& st);
  mutable std::mutex mu_;
  shmc_request* req_;
  at::Tensor t_, user_;
  bool recv_, done_ = false;
  int rc_ = 0, src_ = -1;
  std::string describe_, why_;
  c10::intrusive_ptr<c10::ivalue::Future> fut_;
};

} // namespace shmct
