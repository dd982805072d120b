// WorkerPool (see worker_pool.h).
#include "rest/worker_pool.h"

namespace flowlab::rest {

void WorkerPool::post(std::function<void()> job) {
  std::lock_guard lock(mu_);
  if (stopping_) return;
  jobs_.push_back(std::move(job));
  // An idle thread counts until it wakes: a job beyond those gets a new thread.
  if (jobs_.size() > idle_ && threads_.size() < max_threads_) threads_.emplace_back([this] { run(); });
  wake_.notify_one();
}

void WorkerPool::run() {
  std::unique_lock lock(mu_);
  for (;;) {
    ++idle_;
    wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
    --idle_;
    if (stopping_) return;
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    job = nullptr;  // what the job holds goes before the next wait
    lock.lock();
  }
}

void WorkerPool::stop() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    dropped.swap(jobs_);
  }
  wake_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

size_t WorkerPool::threads() const {
  std::lock_guard lock(mu_);
  return threads_.size();
}

}  // namespace flowlab::rest
