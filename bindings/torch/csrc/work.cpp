#include "work.h"

#include <c10/util/Exception.h>

#include <atomic>
#include <condition_variable>
#include <deque>
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
    std::shared_ptr<const void> hold;
    std::function<void(int)> done;
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
    std::vector<Orphan> ended; // their `done` runs outside the lock
    {
        std::lock_guard<std::mutex> lk(orphans_mu);
        for (auto it = orphans.begin(); it != orphans.end();) {
            int done = 0;
            int rc = shmc_test(&it->req, &done, nullptr);
            if (done || rc != SHMC_OK) {
                if (it->done)
                    it->done(rc);
                ended.push_back(std::move(*it));
                it = orphans.erase(it);
            } else {
                ++it;
            }
        }
        any_orphans = !orphans.empty();
    }
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
    orphans.push_back({req, std::move(keep), nullptr, nullptr});
    any_orphans = true;
}

void adopt(shmc_request *req, std::shared_ptr<const void> keep, std::function<void(int)> done)
{
    if (!req)
        return;
    std::lock_guard<std::mutex> lk(orphans_mu);
    orphans.push_back({req, at::Tensor(), std::move(keep), std::move(done)});
    any_orphans = true;
}

// ---- the completer: the thread that finishes works whose futures were asked for ------------

// One thread, started on first use: each job waits for one work, in the order the futures
// were asked for (every wait moves all of the process's requests along, so an earlier
// one that ends later only delays the marking of the later futures). Not the engine's
// worker, whose queued collectives could stand before one a peer needs first; not a
// thread per future, which costs its start on every call and could still be inside the
// library when it is finalized.
namespace
{
struct Completer {
    std::mutex mu;
    std::condition_variable cv;
    std::deque<std::function<void()>> jobs;
    std::thread th;
    bool stop = false;

    void loop()
    {
        std::unique_lock<std::mutex> lk(mu);
        for (;;) {
            if (!jobs.empty()) {
                auto job = std::move(jobs.front());
                jobs.pop_front();
                lk.unlock();
                job();
                // Let go of the work with the lock let go: its tensors may need the GIL
                // (engine.cpp, Engine::let_go).
                job = nullptr;
                lk.lock();
                continue;
            }
            if (stop)
                return;
            cv.wait(lk);
        }
    }
};
// Never destroyed: a joinable std::thread destroyed at exit would end the process.
Completer &completer()
{
    static Completer *c = new Completer();
    return *c;
}
} // namespace

void complete_later(std::function<void()> job)
{
    Completer &c = completer();
    std::lock_guard<std::mutex> lk(c.mu);
    if (!c.th.joinable()) {
        c.stop = false;
        c.th = std::thread([&c] { c.loop(); });
    }
    c.jobs.push_back(std::move(job));
    c.cv.notify_one();
}

void stop_completer()
{
    Completer &c = completer();
    std::thread t;
    {
        std::lock_guard<std::mutex> lk(c.mu);
        c.stop = true;
        c.cv.notify_one();
        t = std::move(c.th);
    }
    if (t.joinable())
        t.join();
}

// ---- a Work over requests of the library ----------------------------------------------------

void LibWork::settle_future(std::unique_lock<std::mutex> &lk)
{
    if (!done_ || !fut_ || fut_marked_)
        return;
    fut_marked_ = true;
    auto fut = fut_;
    int rc = rc_;
    std::string why = why_;
    lk.unlock();
    if (rc == SHMC_OK)
        fut->markCompleted(c10::IValue(result()));
    else
        fut->setError(std::make_exception_ptr(std::runtime_error(why)));
}

void LibWork::settle_and_check(std::unique_lock<std::mutex> &lk)
{
    int rc = rc_;
    std::string why = why_;
    settle_future(lk);
    TORCH_CHECK(rc == SHMC_OK, why);
}

bool LibWork::isSuccess() const
{
    std::lock_guard<std::mutex> lk(mu_);
    return done_ && rc_ == SHMC_OK;
}

std::exception_ptr LibWork::exception() const
{
    std::lock_guard<std::mutex> lk(mu_);
    if (!done_ || rc_ == SHMC_OK)
        return nullptr;
    return std::make_exception_ptr(std::runtime_error(why_));
}

c10::intrusive_ptr<c10::ivalue::Future> LibWork::getFuture()
{
    std::unique_lock<std::mutex> lk(mu_);
    if (fut_)
        return fut_;
    fut_ = c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()));
    auto fut = fut_;
    if (done_) {
        settle_future(lk);
        return fut;
    }
    lk.unlock();
    // Someone must see the requests end for the future to complete: the completer.
    auto self = c10::intrusive_ptr<LibWork>::reclaim_copy(this);
    complete_later([self] {
        try {
            self->wait(kNoTimeout);
        } catch (...) {
        }
    });
    return fut;
}

// ---- an asynchronous collective on host tensors -------------------------------------------

ReqWork::ReqWork(std::vector<shmc_request *> reqs, Steps steps, std::vector<at::Tensor> outputs,
                 What what)
    : LibWork(c10d::OpType::UNKNOWN, what.op), reqs_(std::move(reqs)),
      steps_(std::make_shared<Steps>(std::move(steps))), outputs_(std::move(outputs)),
      what_(std::move(what))
{
}

// Dropped before it ended: the requests go on as orphans, holding the steps' tensors, and
// the last to end well copies the results out, as a wait would have.
ReqWork::~ReqWork()
{
    if (done_)
        return;
    struct Left {
        std::shared_ptr<Steps> steps;
        size_t pending = 0;
        int rc = SHMC_OK;
    };
    auto left = std::make_shared<Left>();
    left->steps = steps_;
    for (size_t i = next_; i < reqs_.size(); i++)
        if (reqs_[i])
            left->pending++;
    for (size_t i = next_; i < reqs_.size(); i++) {
        if (!reqs_[i])
            continue;
        adopt(reqs_[i], left, [left](int rc) {
            if (left->rc == SHMC_OK)
                left->rc = rc;
            if (--left->pending == 0 && left->rc == SHMC_OK)
                for (const Step &s : *left->steps)
                    if (s.finish)
                        s.finish();
        });
    }
}

// What advance_locked returns while a request is still pending: not a library code (those
// are SHMC_OK and negative), so that a collective that ended with SHMC_ERR_TIMEOUT (the
// group's time-out) is not taken for one still running.
static constexpr int kPending = 1;

int ReqWork::advance_locked(bool look_only, std::chrono::steady_clock::time_point end)
{
    bool forever = end == std::chrono::steady_clock::time_point::max();
    while (next_ < reqs_.size()) {
        int rc;
        if (forever && !look_only) {
            rc = shmc_wait(&reqs_[next_], nullptr);
        } else if (look_only) {
            int done = 0;
            rc = shmc_test(&reqs_[next_], &done, nullptr);
            if (rc == SHMC_OK && !done)
                return kPending;
        } else {
            rc = test_until(&reqs_[next_], end, nullptr);
        }
        if (rc == SHMC_ERR_TIMEOUT && reqs_[next_])
            return kPending; // a later wait goes on with it
        reqs_[next_] = nullptr;
        next_++;
        if (rc != SHMC_OK)
            return rc;
    }
    return SHMC_OK;
}

void ReqWork::finish_locked(int rc)
{
    rc_ = rc;
    if (rc == SHMC_OK) {
        for (const Step &s : *steps_)
            if (s.finish)
                s.finish();
    } else {
        why_ = failure(what_.op, what_.bytes, what_.where, rc, what_.timeout);
        // The steps after a failed one may never end: they go on as orphans.
        for (size_t i = next_; i < reqs_.size(); i++)
            adopt(reqs_[i], steps_);
        reqs_.clear();
        next_ = 0;
    }
    done_ = true;
}

bool ReqWork::isCompleted()
{
    // A thread inside wait holds the lock while the library waits: not done yet, then.
    std::unique_lock<std::mutex> lk(mu_, std::try_to_lock);
    if (!lk.owns_lock() || done_)
        return done_;
    int rc = advance_locked(true, std::chrono::steady_clock::time_point::max());
    if (rc != kPending)
        finish_locked(rc);
    settle_future(lk);
    return done_;
}

bool ReqWork::wait(std::chrono::milliseconds timeout)
{
    std::unique_lock<std::mutex> lk(mu_);
    if (!done_) {
        // Without a timeout of its own, or with one no shorter than the group's, the
        // group's bounds the library's waits (shmc_comm_set_timeout): the collective then
        // ends with SHMC_ERR_TIMEOUT. A shorter one is the caller's, looked at between
        // tests, and leaves the collective pending.
        bool forever = timeout == kNoTimeout || timeout.count() <= 0 ||
                       (what_.timeout.count() > 0 && timeout >= what_.timeout);
        auto end = forever ? std::chrono::steady_clock::time_point::max()
                           : std::chrono::steady_clock::now() + timeout;
        int rc = advance_locked(false, end);
        if (rc == kPending && forever)
            rc = SHMC_ERR_TIMEOUT; // the group's time-out, the request left pending
        // The caller's own timeout passed: the collective stays pending, for a later wait.
        TORCH_CHECK(rc != kPending, "shmc: ", what_.op, " of ", what_.bytes, " bytes on ",
                    what_.where, ": did not complete within ", timeout.count(), " ms");
        finish_locked(rc);
    }
    settle_and_check(lk);
    return true;
}

P2PWork::P2PWork(shmc_request *req, at::Tensor t, at::Tensor user, bool recv, Where where)
    : LibWork(recv ? c10d::OpType::RECV : c10d::OpType::SEND, nullptr), req_(req), t_(std::move(t)),
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
}

bool P2PWork::isCompleted()
{
    std::unique_lock<std::mutex> lk(mu_, std::try_to_lock);
    if (!lk.owns_lock()) // another thread is inside wait: not done yet, then
        return false;
    if (!done_) {
        int done = 0;
        shmc_status st{};
        int rc = shmc_test(&req_, &done, &st);
        if (done || rc != SHMC_OK)
            finish_locked(rc, st);
    }
    bool d = done_;
    settle_future(lk);
    return d;
}

bool P2PWork::wait(std::chrono::milliseconds timeout)
{
    std::unique_lock<std::mutex> lk(mu_);
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
    settle_and_check(lk);
    return true;
}

int P2PWork::sourceRank() const
{
    std::lock_guard<std::mutex> lk(mu_);
    TORCH_CHECK(done_, "shmc: sourceRank() of a receive that has not completed");
    return src_;
}

} // namespace shmct
