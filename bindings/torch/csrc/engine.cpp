#include "engine.h"

#include <c10/util/Exception.h>

#include <cstdlib>

namespace shmct
{

Engine::Engine()
{
    const char *w = std::getenv("SHMC_TORCH_WORKER");
    worker_only_ = w && std::string(w) == "all";
    worker_async_ = worker_only_ || (w && std::string(w) == "async");
}

Engine &Engine::get()
{
    // Never destroyed: a joinable std::thread destroyed at exit would end the process.
    static Engine *e = new Engine();
    return *e;
}

void Engine::start_locked()
{
    if (!worker_.joinable()) {
        stop_ = false;
        worker_ = std::thread([this] { loop(); });
    }
}

void Engine::submit(const std::shared_ptr<Op> &op)
{
    std::lock_guard<std::mutex> lk(mu_);
    start_locked();
    q_.push_back(op);
    work_.notify_one();
}

// Runs op with the lock released; the result and the future are published under it.
void Engine::run_locked(std::unique_lock<std::mutex> &lk, std::shared_ptr<Op> op)
{
    running_ = true;
    op->state = 1;
    lk.unlock();
    std::string why;
    int rc;
    try {
        rc = op->fn(why);
    } catch (const std::exception &e) {
        rc = -1;
        why = e.what();
    }
    op->fn = nullptr; // lets go of the tensors the call held
    lk.lock();
    op->rc = rc;
    op->why = why;
    op->state = 2;
    running_ = false;
    auto fut = op->fut;
    if (fut)
        op->fut_marked = true;
    done_.notify_all();
    work_.notify_one();
    if (fut) {
        // Callbacks of the future run here: not under the lock, they may issue more calls.
        lk.unlock();
        if (rc == 0)
            fut->markCompleted(c10::IValue(op->outputs));
        else
            fut->setError(std::make_exception_ptr(std::runtime_error(why)));
        lk.lock();
    }
}

// Drops this thread's reference to op with the lock let go: if it is the last (the
// program dropped its Work), the op's tensors go with it, and a tensor whose Python object
// torch keeps alive for C++ takes the GIL to free it, which a Python thread holding the GIL
// while it waits for this lock would never give.
void Engine::let_go(std::unique_lock<std::mutex> &lk, std::shared_ptr<Op> &op)
{
    lk.unlock();
    op.reset();
    lk.lock();
}

void Engine::loop()
{
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
        if (!running_ && !q_.empty()) {
            auto op = q_.front();
            q_.pop_front();
            run_locked(lk, op);
            let_go(lk, op);
            continue;
        }
        if (stop_ && q_.empty() && !running_)
            return;
        work_.wait(lk);
    }
}

// With the lock held: runs queued operations in this thread, in order, until `until`
// holds, waiting while another thread runs one (only waiting if !steal).
template <class Until>
void Engine::serve_locked(std::unique_lock<std::mutex> &lk, Until until, bool steal)
{
    while (!until()) {
        if (steal && !running_ && !q_.empty()) {
            auto next = q_.front();
            q_.pop_front();
            run_locked(lk, next);
            let_go(lk, next);
        } else {
            done_.wait(lk);
        }
    }
}

void Engine::wait(const std::shared_ptr<Op> &op)
{
    std::unique_lock<std::mutex> lk(mu_);
    serve_locked(
        lk, [&] { return op->state == 2; }, !worker_only_);
}

void Engine::drain()
{
    std::unique_lock<std::mutex> lk(mu_);
    serve_locked(
        lk, [&] { return !running_ && q_.empty(); }, true);
}

void Engine::run_inline(const std::shared_ptr<Op> &op)
{
    std::unique_lock<std::mutex> lk(mu_);
    serve_locked(
        lk, [&] { return !running_ && q_.empty(); }, true);
    run_locked(lk, op);
}

bool Engine::done(const std::shared_ptr<Op> &op)
{
    std::lock_guard<std::mutex> lk(mu_);
    return op->state == 2;
}

c10::intrusive_ptr<c10::ivalue::Future> Engine::future(const std::shared_ptr<Op> &op)
{
    std::unique_lock<std::mutex> lk(mu_);
    if (!op->fut)
        op->fut =
            c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()));
    auto fut = op->fut;
    if (op->state == 2 && !op->fut_marked) {
        op->fut_marked = true;
        lk.unlock();
        if (op->rc == 0)
            fut->markCompleted(c10::IValue(op->outputs));
        else
            fut->setError(std::make_exception_ptr(std::runtime_error(op->why)));
    }
    return fut;
}

void Engine::stop()
{
    std::thread t;
    {
        std::lock_guard<std::mutex> lk(mu_);
        stop_ = true;
        work_.notify_all();
        t = std::move(worker_);
    }
    if (t.joinable())
        t.join();
}

} // namespace shmct
