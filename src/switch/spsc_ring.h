// SpscRing: a bounded single-producer / single-consumer queue without locks.
//
// Each forwarding thread owns one ring towards the OpenFlow agent (packets to
// the controller) so the producer never waits: try_push() fails when the ring
// is full and the caller counts the drop. Capacity is rounded up to a power of
// two; head/tail are free-running counters on separate cache lines.
// Cost: one acquire load and one release store per push and per pop.
#pragma once

#include <atomic>
#include <bit>
#include <cstddef>
#include <optional>
#include <vector>

namespace flowlab::sw {

template <typename T>
class SpscRing {
 public:
  explicit SpscRing(size_t capacity)
      : slots_(std::bit_ceil(capacity < 2 ? size_t(2) : capacity)), mask_(slots_.size() - 1) {}
  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  // Producer side. False when full (the item is left untouched).
  bool try_push(T& item) {
    size_t t = tail_.load(std::memory_order_relaxed);
    if (t - head_cache_ >= slots_.size()) {
      head_cache_ = head_.load(std::memory_order_acquire);
      if (t - head_cache_ >= slots_.size()) return false;
    }
    slots_[t & mask_] = std::move(item);
    tail_.store(t + 1, std::memory_order_release);
    return true;
  }

  // Consumer side.
  std::optional<T> try_pop() {
    size_t h = head_.load(std::memory_order_relaxed);
    if (h == tail_.load(std::memory_order_acquire)) return std::nullopt;
    std::optional<T> v(std::move(slots_[h & mask_]));
    slots_[h & mask_] = T{};
    head_.store(h + 1, std::memory_order_release);
    return v;
  }

  size_t capacity() const { return slots_.size(); }
  size_t size_approx() const {
    return tail_.load(std::memory_order_acquire) - head_.load(std::memory_order_acquire);
  }

 private:
  std::vector<T> slots_;
  size_t mask_;
  alignas(64) std::atomic<size_t> head_{0};
  alignas(64) std::atomic<size_t> tail_{0};
  size_t head_cache_ = 0;  // producer's last view of head_
};

}  // namespace flowlab::sw
