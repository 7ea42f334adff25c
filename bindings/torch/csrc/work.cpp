#include "work.h"

#include <c10/util/Exception.h>

#include <atomic>
#include <list>
#include <thread>

#include "backend.h"
#include "tensors.h"

namespace shmct
{

// ---- a queued collective ---------------------------------------------------------------

CollWork::CollWork(std::shared_ptr<Op> op, c10d::OpType type, const char *profile)
    : c10d::Work(-1, type, profile), op_(std::move(op))
{
}

bool CollWork::isCompleted()
{
    return Engine::get().done(op_);
}

bool CollWork::isSuccess() const
{
    return Engine::get().done(op_) && op_->rc == 0;
}

std::exception_ptr CollWork::exception() const
{
    if (!Engine::get().done(op_) || op_->rc == 0)
        return nullptr;
    return std::make_exception_ptr(std::runtime_error(op_->why));
}

bool CollWork::wait(std::chrono::milliseconds timeout)
{
    (void)timeout; // the group's timeout bounds the library's waits (shmc_comm_set_timeout)
    Engine::get().wait(op_);
    TORCH_CHECK(op_->rc == 0, op_->why);
    return true;
}

c10::intrusive_ptr<c10::ivalue::Future> CollWork::getFuture()
{
    return Engine::get().future(op_);
}

// ---- point-to-point ----------------------------------------------------------------------

// Requests whose Work was dropped before they ended: their tensors stay alive here until
// the library is done with them (a fire-and-forget isend is common in torch programs).
struct Orphan {
    shmc_request *req;
    at::Tensor t;
};
static std::mutex orphans_mu;
static std::list<Orphan> orphans;
static std::atomic<bool> any_orphans{false}; // a look without the lock on every call

void drop_orphans()
{
    std::lock_guard<std::mutex> lk(orphans_mu);
    orphans.clear();
    any_orphans = false;
}

void reap_orphans()
{
    if (!any_orphans.load(std::memory_order_relaxed))
        return;
    std::lock_guard<std::mutex> lk(orphans_mu);
    for (auto it = orphans.begin(); it != orphans.end();) {
        int done = 0;
        int rc = shmc_test(&it->req, &done, nullptr);
        if (done || rc != SHMC_OK)
            it = orphans.erase(it);
        else
            ++it;
    }
    any_orphans = !orphans.empty();
}

int test_until(shmc_request **req, std::chrono::steady_clock::time_point end, shmc_status *st)
{
    for (;;) {
        int done = 0;
        int rc = shmc_test(req, &done, st);
        if (done || rc != SHMC_OK)
            return rc;
        if (std::chrono::steady_clock::now() >= end)
            return SHMC_ERR_TIMEOUT;
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

void adopt(shmc_request *req, at::Tensor keep)
{
    if (!req)
        return;
    std::lock_guard<std::mutex> lk(orphans_mu);
    orphans.push_back({req, std::move(keep)});
    any_orphans = true;
}

P2PWork::P2PWork(shmc_request *req, at::Tensor t, at::Tensor user, bool recv, Where where)
    : c10d::Work(-1, recv ? c10d::OpType::RECV : c10d::OpType::SEND), req_(req), t_(std::move(t)),
      user_(std::move(user)), recv_(recv), where_(std::move(where))
{
}

P2PWork::~P2PWork()
{
    if (!done_ && req_)
        adopt(req_, t_);
}

std::string P2PWork::describe() const
{
    return p2p_describe(!recv_, bytes_of(user_), where_.peer, where_.tag,
                        where_of(where_.rank, where_.size, where_.group));
}

void P2PWork::finish_locked(int rc, const shmc_status &st)
{
    done_ = true;
    req_ = nullptr;
    rc_ = rc;
    src_ = st.source;
    if (rc != SHMC_OK)
        why_ = describe() + ": " + shmc_strerror(rc);
    else if (recv_ && !t_.is_same(user_))
        copy_into(user_, t_);
    if (fut_) {
        if (rc == SHMC_OK)
            fut_->markCompleted(c10::IValue(std::vector<at::Tensor>{user_}));
        else
            fut_->setError(std::make_exception_ptr(std::runtime_error(why_)));
    }
}

bool P2PWork::isCompleted()
{
    std::lock_guard<std::mutex> lk(mu_);
    if (!done_) {
        int done = 0;
        shmc_status st{};
        int rc = shmc_test(&req_, &done, &st);
        if (done || rc != SHMC_OK)
            finish_locked(rc, st);
    }
    return done_;
}

bool P2PWork::isSuccess() const
{
    std::lock_guard<std::mutex> lk(mu_);
    return done_ && rc_ == SHMC_OK;
}

std::exception_ptr P2PWork::exception() const
{
    std::lock_guard<std::mutex> lk(mu_);
    if (!done_ || rc_ == SHMC_OK)
        return nullptr;
    return std::make_exception_ptr(std::runtime_error(why_));
}

bool P2PWork::wait(std::chrono::milliseconds timeout)
{
    std::lock_guard<std::mutex> lk(mu_);
    if (!done_) {
        shmc_status st{};
        if (timeout == kNoTimeout || timeout.count() <= 0) {
            int rc = shmc_wait(&req_, &st);
            // The group's timeout passed: the request stays pending (the tensor with it).
            TORCH_CHECK(rc != SHMC_ERR_TIMEOUT, describe(),
                        ": did not complete within the "
                        "group's timeout (",
                        shmc_strerror(rc), ")");
            finish_locked(rc, st);
        } else {
            int rc = test_until(&req_, std::chrono::steady_clock::now() + timeout, &st);
            TORCH_CHECK(rc != SHMC_ERR_TIMEOUT, describe(), ": did not complete within ",
                        timeout.count(), " ms");
            finish_locked(rc, st);
        }
    }
    TORCH_CHECK(rc_ == SHMC_OK, why_);
    return true;
}

int P2PWork::sourceRank() const
{
    std::lock_guard<std::mutex> lk(mu_);
    TORCH_CHECK(done_, "shmc: sourceRank() of a receive that has not completed");
    return src_;
}

c10::intrusive_ptr<c10::ivalue::Future> P2PWork::getFuture()
{
    std::unique_lock<std::mutex> lk(mu_);
    if (fut_)
        return fut_;
    fut_ = c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()));
    auto fut = fut_;
    if (done_) {
        if (rc_ == SHMC_OK)
            fut->markCompleted(c10::IValue(std::vector<at::Tensor>{user_}));
        else
            fut->setError(std::make_exception_ptr(std::runtime_error(why_)));
        return fut;
    }
    lk.unlock();
    // Someone must finish the transfer for the future to complete: a thread of its own,
    // not the engine's (a queued wait could stand before the collective a peer needs).
    auto self = c10::intrusive_ptr<P2PWork>::reclaim_copy(this);
    std::thread([self] {
        try {
            self->wait(kNoTimeout);
        } catch (...) {
        }
    }).detach();
    return fut;
}

} // namespace shmct
