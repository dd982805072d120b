// Classifier: tuple-space search over the flows of one table.
//
// Idea. Flows with the same mask (the same "tuple" of matched bits) live in one
// subtable: a hash table keyed by the masked packet key. A lookup probes each
// subtable once with (packet key & subtable mask). Subtables are visited in
// order of their highest priority; once the best match found so far has a
// priority >= the next subtable's maximum, no later subtable can win and the
// search stops (early exit).
//
// Invariants. A Classifier is immutable after build(): forwarding threads read it
// without synchronisation while the agent builds the next one. Within a subtable
// equal masked values collapse to the highest-priority flow (a packet matching
// one matches all of them). Entries are kept alive by the shared_ptrs it holds.
//
// Costs (n flows, t distinct masks, w = mask words actually set, <= 20):
//   lookup  O(t * w) worst case, usually far less with early exit; no allocation.
//   build   O(n * w) plus sorting the subtables; done by the agent per change.
//   memory  one slot array (load <= 50%) and one value array per subtable.
#pragma once

#include <cstdint>
#include <vector>

#include "datapath/flow_entry.h"

namespace flowlab::dp {

class Classifier {
 public:
  Classifier() = default;
  static Classifier build(std::vector<FlowEntryPtr> entries);

  // Highest-priority flow matching k, nullptr when none.
  const FlowEntry* lookup(const FlowKey& k) const;

  size_t size() const { return entries_.size(); }
  size_t subtable_count() const { return subtables_.size(); }
  const std::vector<FlowEntryPtr>& entries() const { return entries_; }

 private:
  struct Subtable {
    std::vector<uint8_t> words;        // indices of non-zero mask words
    std::vector<uint64_t> mask_words;  // the mask at those indices
    uint16_t max_priority = 0;
    std::vector<uint32_t> slots;  // 0 = empty, else index+1 into rules
    struct Rule {
      uint64_t hash;
      const FlowEntry* entry;
    };
    std::vector<Rule> rules;
    std::vector<uint64_t> values;  // rules[i]'s masked words at values[i*words.size()...]
  };
  std::vector<Subtable> subtables_;
  std::vector<FlowEntryPtr> entries_;
};

// 64-bit mixing hash step shared by the classifier and the flow cache.
inline uint64_t hash_mix(uint64_t h, uint64_t v) {
  h ^= v * 0x9e3779b97f4a7c15ull;
  h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 32);
}

}  // namespace flowlab::dp
