// Clocks: monotonic nanoseconds for counters, timeouts and latency histograms;
// a thread's CPU time for what a step cost.
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>

namespace flowlab {

inline uint64_t monotonic_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

// Seconds since `t0`, a monotonic_ns() reading.
inline double seconds_since(uint64_t t0) { return double(monotonic_ns() - t0) / 1e9; }

// CPU time the calling thread has used (what a step cost, whatever else the
// machine ran meanwhile).
inline uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
}

}  // namespace flowlab
