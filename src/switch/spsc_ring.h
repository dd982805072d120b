// SpscRing: a bounded single-producer / single-consumer queue without locks.
//
// Each forwarding thread owns one ring towards the OpenFlow agent (packets to
// the controller) so the producer never waits: try_push() fails when the ring
// is full and the caller counts the drop. Capacity is rounded up to a power of
// two; head/tail are free-running counters on separate cache lines.
// Cost: one acquire load and one release store per push and per pop.
// Memory: the slots are an anonymous mapping, each slot constructed by its
// first push: a ring costs the pages its traffic touched, not its capacity
// (a switch host's idle switches held 4096 zeroed slots per forwarding thread).
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <new>
#include <optional>

namespace flowlab::sw {

template <typename T>
class SpscRing {
 public:
  explicit SpscRing(size_t capacity)
      : cap_(std::bit_ceil(capacity < 2 ? size_t(2) : capacity)), mask_(cap_ - 1) {
    void* p = ::mmap(nullptr, cap_ * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    slots_ = static_cast<T*>(p);
  }
  ~SpscRing() {
    size_t built = std::min(tail_.load(std::memory_order_relaxed), cap_);
    for (size_t i = 0; i < built; ++i) slots_[i].~T();
    ::munmap(slots_, cap_ * sizeof(T));
  }
  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  // Producer side. False when full (the item is left untouched).
  bool try_push(T& item) {
    size_t t = tail_.load(std::memory_order_relaxed);
    if (t - head_cache_ >= cap_) {
      head_cache_ = head_.load(std::memory_order_acquire);
      if (t - head_cache_ >= cap_) return false;
    }
    if (t < cap_)
      new (&slots_[t]) T(std::move(item));  // the slot's first use
    else
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

  size_t capacity() const { return cap_; }
  size_t size_approx() const {
    return tail_.load(std::memory_order_acquire) - head_.load(std::memory_order_acquire);
  }

 private:
  size_t cap_;
  size_t mask_;
  T* slots_ = nullptr;
  alignas(64) std::atomic<size_t> head_{0};
  alignas(64) std::atomic<size_t> tail_{0};
  size_t head_cache_ = 0;  // producer's last view of head_
};

}  // namespace flowlab::sw
