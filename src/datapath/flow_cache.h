// FlowCache: per-forwarding-thread exact-match cache in front of the classifier.
//
// Idea. Most packets belong to a few flows; hashing the full packet key once and
// comparing it with one cached key is cheaper than probing every subtable. Each
// entry remembers (table id, full FlowKey) -> the FlowEntry the classifier chose
// (or "no match"), tagged with the published table version it was computed at.
//
// Invariants. The cache belongs to one thread, so it needs no synchronisation.
// An entry is valid only when its version equals the version the thread has
// pinned for the current batch: any published change (flow, group or meter)
// invalidates every entry at once without touching the cache. The FlowEntry
// pointer stays valid because the pinned snapshot owns it.
//
// Costs. Lookup: one hash over the 20 key words + at most two key compares
// (2-way set associative). Insert: one entry overwrite. No allocation after
// construction; memory = entries * ~190 bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "datapath/classifier.h"

namespace flowlab::dp {

class FlowCache {
 public:
  explicit FlowCache(size_t entries) {
    size_t n = 2;
    while (n < entries) n <<= 1;
    slots_.resize(n);
  }

  static uint64_t hash(uint8_t table_id, const FlowKey& k) {
    uint64_t h = table_id;
    for (size_t i = 0; i < kFlowKeyWords; ++i) h = hash_mix(h, key_word(k, i));
    return h;
  }

  // True on a hit; *flow is then the cached result (nullptr = cached miss).
  bool find(uint64_t version, uint8_t table_id, const FlowKey& k, uint64_t h, const FlowEntry** flow) const {
    size_t base = h & (slots_.size() - 2);
    for (size_t i = base; i < base + 2; ++i) {
      const Slot& s = slots_[i];
      if (s.version == version && s.hash == h && s.table_id == table_id && s.used && s.key == k) {
        *flow = s.flow;
        return true;
      }
    }
    return false;
  }

  void insert(uint64_t version, uint8_t table_id, const FlowKey& k, uint64_t h, const FlowEntry* flow) {
    size_t base = h & (slots_.size() - 2);
    Slot* victim = &slots_[base + ((h >> 40) & 1)];
    for (size_t i = base; i < base + 2; ++i)
      if (!slots_[i].used || slots_[i].version != version) victim = &slots_[i];
    victim->version = version;
    victim->hash = h;
    victim->table_id = table_id;
    victim->used = true;
    victim->key = k;
    victim->flow = flow;
  }

  size_t capacity() const { return slots_.size(); }

 private:
  struct Slot {
    uint64_t version = 0;
    uint64_t hash = 0;
    const FlowEntry* flow = nullptr;
    uint8_t table_id = 0;
    bool used = false;
    FlowKey key{};
  };
  std::vector<Slot> slots_;
};

}  // namespace flowlab::dp
