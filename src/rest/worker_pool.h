// WorkerPool: threads for calls that block (HttpServer's handler: RestApi waits
// on the switches), so they never run on an io thread. Threads are made when a
// job finds none idle, up to a bound; past it jobs wait in a queue, in order.
// A pool nobody posts to has no thread, so a server costs no start-up for it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace flowlab::rest {

class WorkerPool {
 public:
  explicit WorkerPool(size_t max_threads) : max_threads_(max_threads) {}
  ~WorkerPool() { stop(); }
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Runs `job` on a worker; dropped once stop() has begun.
  void post(std::function<void()> job);
  // Drops the jobs not begun, waits for those running. Idempotent.
  void stop();
  size_t threads() const;

 private:
  void run();

  const size_t max_threads_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;  // guarded by mu_
  std::vector<std::thread> threads_;        // guarded by mu_ until stop()
  size_t idle_ = 0;                         // threads waiting for a job; guarded by mu_
  bool stopping_ = false;                   // guarded by mu_
};

}  // namespace flowlab::rest
