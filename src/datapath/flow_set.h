// FlowSet: the agent's master copy of one flow table: the flows in the order
// they were added (the order dump-flows shows), indexed by (priority, match)
// so that an add, a strict modify and a strict delete find their flow in O(1)
// instead of scanning the table. Non-strict modify/delete, flow stats and
// expiry still walk the list (they select by a filter, not by identity).
// Agent thread only, under DatapathImpl::mu; forwarding threads never see it.
#pragma once

#include <list>
#include <unordered_map>

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

  // The flow with exactly this priority and match, end() when none.
  iterator find(uint16_t priority, const MaskedKey& k) { return find(priority, k.value, k.mask); }
  iterator find(uint16_t priority, const StoredKey& k) { return find(priority, k.value, *k.mask); }
  iterator find(uint16_t priority, const FlowKey& value, const FlowKey& mask) {
    auto [a, b] = index_.equal_range(hash(priority, value, mask));
    for (auto it = a; it != b; ++it) {
      const FlowEntry& e = **it->second;
      if (e.priority == priority && e.key.value == value && *e.key.mask == mask) return it->second;
    }
    return list_.end();
  }
  void push_back(FlowEntryPtr e) { insert(list_.end(), std::move(e)); }
  // Before `pos` (a bundle's undo puts a deleted flow back where it was).
  iterator insert(iterator pos, FlowEntryPtr e) {
    const uint64_t h = hash(e->priority, e->key.value, *e->key.mask);
    auto it = list_.insert(pos, std::move(e));
    index_.emplace(h, it);
    return it;
  }
  // Same priority and match as the flow at `it` (a modify or a re-add).
  void replace(iterator it, FlowEntryPtr e) { *it = std::move(e); }
  iterator erase(iterator it) {
    auto [a, b] = index_.equal_range(hash((*it)->priority, (*it)->key.value, *(*it)->key.mask));
    for (auto i = a; i != b; ++i)
      if (i->second == it) {
        index_.erase(i);
        break;
      }
    return list_.erase(it);
  }

 private:
  static uint64_t hash(uint16_t priority, const FlowKey& value, const FlowKey& mask) {
    uint64_t h = priority;
    for (size_t i = 0; i < kFlowKeyWords; ++i) {
      h = hash_mix(h, key_word(value, i));
      h = hash_mix(h, key_word(mask, i));
    }
    return h;
  }

  List list_;
  std::unordered_multimap<uint64_t, iterator> index_;
};

}  // namespace flowlab::dp
