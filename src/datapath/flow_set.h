// FlowSet: the agent's master copy of one flow table: the flows in the order
// they were added (the order dump-flows shows), indexed by (priority, match)
// (core/hash_index.h: a miss, the usual case of an add, reads one slot) so
// that an add, a strict modify and a strict delete find their flow in O(1)
// instead of scanning the table. Non-strict modify/delete, flow stats and
// expiry still walk the list (they select by a filter, not by identity).
// Agent thread only, under DatapathImpl::mu; forwarding threads never see it.
#pragma once

#include <list>

#include "core/hash_index.h"
#include "datapath/classifier.h"
#include "datapath/flow_entry.h"

namespace flowlab::dp {

class FlowSet {
 public:
  using List = std::list<FlowEntryPtr>;
  using iterator = List::iterator;
  using const_iterator = List::const_iterator;

  size_t size() const { return list_.size(); }
  bool empty() const { return list_.empty(); }
  iterator begin() { return list_.begin(); }
  iterator end() { return list_.end(); }
  const_iterator begin() const { return list_.begin(); }
  const_iterator end() const { return list_.end(); }

  // The hash the index files a flow under: its priority and match (the
  // words its mask sets, with their places; the value is 0 elsewhere).
  static uint64_t hash_of(uint16_t priority, const FlowKey& value, const FlowKey& mask) {
    uint64_t h = priority;
    for (size_t i = 0; i < kFlowKeyWords; ++i) {
      if (const uint64_t m = key_word(mask, i)) {
        h = hash_mix(h, m + i);
        h = hash_mix(h, key_word(value, i));
      }
    }
    return h;
  }
  static uint64_t hash_of(const FlowEntry& e) { return hash_of(e.priority, e.key.value, *e.key.mask); }

  // The flow with exactly this priority and match, end() when none.
  iterator find(uint16_t priority, const MaskedKey& k) { return find(priority, k.value, k.mask); }
  iterator find(uint16_t priority, const StoredKey& k) { return find(priority, k.value, *k.mask); }
  iterator find(uint16_t priority, const FlowKey& value, const FlowKey& mask) {
    return find(priority, value, mask, hash_of(priority, value, mask));
  }
  // The same with the hash known (hash_of).
  iterator find(uint16_t priority, const FlowKey& value, const FlowKey& mask, uint64_t hash) {
    iterator* it = index_.find(hash, [&](iterator i) {
      const FlowEntry& e = **i;
      return e.priority == priority && e.key.value == value && *e.key.mask == mask;
    });
    return it ? *it : list_.end();
  }
  void push_back(FlowEntryPtr e) { insert(list_.end(), std::move(e)); }
  // Before `pos` (a bundle's undo puts a deleted flow back where it was).
  iterator insert(iterator pos, FlowEntryPtr e) {
    const uint64_t h = hash_of(*e);
    return insert(pos, std::move(e), h);
  }
  iterator insert(iterator pos, FlowEntryPtr e, uint64_t hash) {
    auto it = list_.insert(pos, std::move(e));
    index_.insert(hash, it);
    return it;
  }
  // Same priority and match as the flow at `it` (a modify or a re-add).
  void replace(iterator it, FlowEntryPtr e) { *it = std::move(e); }
  iterator erase(iterator it) {
    index_.erase(hash_of(**it), [&](iterator i) { return i == it; });
    return list_.erase(it);
  }
  // Starts loading what find(.., hash) reads first.
  void prefetch(uint64_t hash) const { index_.prefetch(hash); }

 private:
  List list_;
  HashIndex<iterator> index_;  // hash_of(priority, match) -> the flow in list_
};

}  // namespace flowlab::dp
