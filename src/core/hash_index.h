// HashIndex<V>: an open-addressing index from a 64-bit hash to small values
// (iterators, pointers), for tables of millions of entries that are mostly
// probed for keys they do not hold (a flow table's add looks up the flow it
// might replace).
//
// Idea. Each slot holds the full hash next to its value, so a probe compares
// hashes in the slot array and touches an entry (through the caller's
// predicate) only when they are equal: a lookup that misses costs one cache
// line of slots, not a chain of nodes. The caller owns the keys; the index
// only finds values by hash and predicate. Linear probing, capacity a power
// of two, load at most 1/2; erase shifts the following slots back, so there
// are no tombstones and a probe ends at the first empty slot.
//
// Costs: find/insert/erase O(1) expected; growth doubles and reinserts every
// slot (amortised O(1) per insert); memory 2 to 4 slots of 8 + sizeof(V)
// bytes per entry. Hash 0 marks an empty slot, so a hash of 0 is stored as
// 1 (slot_hash). Not thread-safe; values are moved when the array grows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace flowlab {

template <typename V>
class HashIndex {
 public:
  size_t size() const { return size_; }

  // The value of the first entry with this hash for which pred(value) holds, nullptr when none.
  template <typename Pred>
  V* find(uint64_t hash, Pred&& pred) {
    if (slots_.empty()) return nullptr;
    const uint64_t h = slot_hash(hash);
    for (size_t i = h & mask_;; i = (i + 1) & mask_) {
      Slot& s = slots_[i];
      if (s.hash == 0) return nullptr;
      if (s.hash == h && pred(s.value)) return &s.value;
    }
  }

  void insert(uint64_t hash, V value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    const uint64_t h = slot_hash(hash);
    size_t i = h & mask_;
    while (slots_[i].hash != 0) i = (i + 1) & mask_;
    slots_[i] = Slot{h, std::move(value)};
    ++size_;
  }

  // Removes the first entry with this hash for which pred(value) holds; false when none.
  template <typename Pred>
  bool erase(uint64_t hash, Pred&& pred) {
    return take(hash, std::forward<Pred>(pred)).has_value();
  }
  // The same, handing the value out.
  template <typename Pred>
  std::optional<V> take(uint64_t hash, Pred&& pred) {
    if (slots_.empty()) return std::nullopt;
    const uint64_t h = slot_hash(hash);
    size_t i = h & mask_;
    for (;; i = (i + 1) & mask_) {
      if (slots_[i].hash == 0) return std::nullopt;
      if (slots_[i].hash == h && pred(slots_[i].value)) break;
    }
    std::optional<V> out(std::move(slots_[i].value));
    // Backward shift: move later slots of the run into the hole when their
    // home position does not lie cyclically in (hole, slot].
    for (size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      if (slots_[j].hash == 0) break;
      const size_t home = slots_[j].hash & mask_;
      const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (stays) continue;
      slots_[i] = std::move(slots_[j]);
      i = j;
    }
    slots_[i] = Slot{};
    --size_;
    return out;
  }

  // Starts loading the slot a lookup of `hash` reads first (a batch of
  // inserts prefetches a few ahead of the one it makes).
  void prefetch(uint64_t hash) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[slot_hash(hash) & mask_]);
  }

  void clear() {
    slots_.clear();
    mask_ = 0;
    size_ = 0;
  }

 private:
  struct Slot {
    uint64_t hash = 0;  // 0: empty
    V value{};
  };

  static uint64_t slot_hash(uint64_t h) { return h == 0 ? 1 : h; }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const size_t cap = old.empty() ? 16 : old.size() * 2;
    slots_ = std::vector<Slot>(cap);
    mask_ = cap - 1;
    for (Slot& s : old) {
      if (s.hash == 0) continue;
      size_t i = s.hash & mask_;
      while (slots_[i].hash != 0) i = (i + 1) & mask_;
      slots_[i] = std::move(s);
    }
  }

  std::vector<Slot> slots_;
  size_t mask_ = 0;
  size_t size_ = 0;
};

}  // namespace flowlab
