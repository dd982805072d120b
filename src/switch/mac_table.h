// MacTable: the MAC-learning table of fail-standalone mode.
//
// While fail-mode is standalone and no controller is connected, the switch
// behaves as a learning bridge: the forwarding threads learn source MAC ->
// input port and send to the learned port, or flood. Many threads read and
// write at once without locks: each slot is one atomic 64-bit word holding
// (MAC << 16 | port), so a reader sees a whole entry or none. A MAC hashes to
// a 4-slot bucket; a new MAC replaces the first slot of its bucket when full
// (no aging beyond replacement; a moved host is re-learned from its next packet).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>

namespace flowlab::sw {

class MacTable {
 public:
  static constexpr size_t kBuckets = 4096;
  static constexpr size_t kWays = 4;
  static constexpr uint32_t kUnknown = 0;

  MacTable() : slots_(std::make_unique<std::atomic<uint64_t>[]>(kBuckets * kWays)) { clear(); }

  void learn(uint64_t mac, uint32_t port) {
    if (port == 0 || port > 0xffff || (mac >> 40) & 1) return;  // multicast source: ignore
    uint64_t word = mac << 16 | port;
    std::atomic<uint64_t>* b = bucket(mac);
    for (size_t i = 0; i < kWays; ++i) {
      uint64_t cur = b[i].load(std::memory_order_relaxed);
      if (cur >> 16 == mac || cur == 0) {
        if (cur != word) b[i].store(word, std::memory_order_relaxed);
        return;
      }
    }
    b[mac % kWays].store(word, std::memory_order_relaxed);
  }
  // Learned port or kUnknown.
  uint32_t lookup(uint64_t mac) const {
    const std::atomic<uint64_t>* b = bucket(mac);
    for (size_t i = 0; i < kWays; ++i) {
      uint64_t cur = b[i].load(std::memory_order_relaxed);
      if (cur != 0 && cur >> 16 == mac) return uint32_t(cur & 0xffff);
    }
    return kUnknown;
  }
  void forget_port(uint32_t port) {
    for (size_t i = 0; i < kBuckets * kWays; ++i)
      if ((slots_[i].load(std::memory_order_relaxed) & 0xffff) == port)
        slots_[i].store(0, std::memory_order_relaxed);
  }
  void clear() {
    for (size_t i = 0; i < kBuckets * kWays; ++i) slots_[i].store(0, std::memory_order_relaxed);
  }

 private:
  std::atomic<uint64_t>* bucket(uint64_t mac) const {
    uint64_t h = mac * 0x9e3779b97f4a7c15ull;
    return &slots_[(h >> 40) % kBuckets * kWays];
  }
  std::unique_ptr<std::atomic<uint64_t>[]> slots_;
};

}  // namespace flowlab::sw
