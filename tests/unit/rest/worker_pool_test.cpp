// WorkerPool: no thread until a job comes, a thread per job that finds none idle
// up to the bound, jobs past it wait (in order), stop() waits for the jobs
// running and drops those not begun.
#include "rest/worker_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <vector>

namespace flowlab::rest {
namespace {

TEST(WorkerPool, GrowsToItsBoundThenQueues) {
  std::promise<void> open;
  std::shared_future<void> gate = open.get_future().share();
  std::atomic<int> blocked{0};
  std::mutex mu;
  std::vector<int> order;
  // Made after what its jobs use, so it is stopped (its threads joined) before
  // those go: a thread the gate let through may still be inside gate.wait()
  // when the other has run all three jobs.
  WorkerPool pool(2);
  EXPECT_EQ(pool.threads(), 0u);
  for (int i = 0; i < 2; ++i)
    pool.post([&] {
      ++blocked;
      gate.wait();
    });
  for (int i = 0; i < 3; ++i)
    pool.post([&, i] {
      std::lock_guard lock(mu);
      order.push_back(i);
    });
  auto end = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (blocked < 2 && std::chrono::steady_clock::now() < end) std::this_thread::yield();
  EXPECT_EQ(blocked, 2);
  EXPECT_EQ(pool.threads(), 2u);
  {
    std::lock_guard lock(mu);
    EXPECT_TRUE(order.empty()) << "both threads are blocked: the three wait";
  }
  open.set_value();
  while (std::chrono::steady_clock::now() < end) {
    std::lock_guard lock(mu);
    if (order.size() == 3) break;
  }
  std::lock_guard lock(mu);
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
}

TEST(WorkerPool, OneThreadRunsTheJobsInTheOrderPosted) {
  std::vector<int> order;
  {
    std::promise<void> done;  // before the pool: set_value may still run as the test wakes
    WorkerPool pool(1);
    for (int i = 0; i < 5; ++i) pool.post([&order, i] { order.push_back(i); });
    pool.post([&] { done.set_value(); });
    EXPECT_EQ(done.get_future().wait_for(std::chrono::seconds(3)), std::future_status::ready);
    EXPECT_EQ(pool.threads(), 1u);
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(WorkerPool, StopWaitsForTheRunningJobAndDropsTheQueued) {
  WorkerPool pool(1);
  std::atomic<bool> started{false}, finished{false}, queued_ran{false};
  pool.post([&] {
    started = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    finished = true;
  });
  pool.post([&] { queued_ran = true; });
  while (!started) std::this_thread::yield();
  pool.stop();
  EXPECT_TRUE(finished);
  EXPECT_FALSE(queued_ran);
  pool.post([&] { queued_ran = true; });  // after stop: dropped
  pool.stop();
  EXPECT_FALSE(queued_ran);
}

}  // namespace
}  // namespace flowlab::rest
