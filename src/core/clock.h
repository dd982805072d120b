// Clocks: monotonic nanoseconds for counters, timeouts and latency histograms.
#pragma once

#include <chrono>
#include <cstdint>

namespace flowlab {

inline uint64_t monotonic_ns() {
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

}  // namespace flowlab
