// Tuple-space-search classifier (design notes in classifier.h).
#include "datapath/classifier.h"

#include <algorithm>
#include <map>

namespace flowlab::dp {

Classifier Classifier::build(std::vector<FlowEntryPtr> entries) {
  Classifier c;
  // Group by mask.
  std::map<std::vector<uint64_t>, std::vector<const FlowEntry*>> by_mask;
  for (const FlowEntryPtr& e : entries) {
    std::vector<uint64_t> m(kFlowKeyWords);
    for (size_t i = 0; i < kFlowKeyWords; ++i) m[i] = key_word(e->key.mask, i);
    by_mask[m].push_back(e.get());
  }
  for (auto& [mask, flows] : by_mask) {
    Subtable st;
    for (size_t i = 0; i < kFlowKeyWords; ++i)
      if (mask[i]) {
        st.words.push_back(uint8_t(i));
        st.mask_words.push_back(mask[i]);
      }
    // Highest priority first so equal values keep the best flow.
    std::sort(flows.begin(), flows.end(),
              [](const FlowEntry* a, const FlowEntry* b) { return a->priority > b->priority; });
    st.max_priority = flows.front()->priority;
    size_t cap = 8;
    while (cap < flows.size() * 2) cap <<= 1;
    st.slots.assign(cap, 0);
    const size_t nw = st.words.size();
    for (const FlowEntry* f : flows) {
      uint64_t h = 0;
      for (size_t j = 0; j < nw; ++j) h = hash_mix(h, key_word(f->key.value, st.words[j]));
      size_t pos = h & (cap - 1);
      bool dup = false;
      while (st.slots[pos]) {
        const Subtable::Rule& r = st.rules[st.slots[pos] - 1];
        if (r.hash == h &&
            std::equal(st.values.begin() + (st.slots[pos] - 1) * nw, st.values.begin() + st.slots[pos] * nw,
                       st.words.begin(),
                       [&](uint64_t v, uint8_t w) { return v == key_word(f->key.value, w); })) {
          dup = true;  // same match, lower priority: shadowed inside this subtable
          break;
        }
        pos = (pos + 1) & (cap - 1);
      }
      if (dup) continue;
      st.rules.push_back({h, f});
      for (size_t j = 0; j < nw; ++j) st.values.push_back(key_word(f->key.value, st.words[j]));
      st.slots[pos] = uint32_t(st.rules.size());
    }
    c.subtables_.push_back(std::move(st));
  }
  std::stable_sort(c.subtables_.begin(), c.subtables_.end(),
                   [](const Subtable& a, const Subtable& b) { return a.max_priority > b.max_priority; });
  c.entries_ = std::move(entries);
  return c;
}

const FlowEntry* Classifier::lookup(const FlowKey& k) const {
  const FlowEntry* best = nullptr;
  uint64_t masked[kFlowKeyWords];
  for (const Subtable& st : subtables_) {
    if (best && best->priority >= st.max_priority) break;
    const size_t nw = st.words.size();
    uint64_t h = 0;
    for (size_t j = 0; j < nw; ++j) {
      masked[j] = key_word(k, st.words[j]) & st.mask_words[j];
      h = hash_mix(h, masked[j]);
    }
    const size_t cap_mask = st.slots.size() - 1;
    for (size_t pos = h & cap_mask;; pos = (pos + 1) & cap_mask) {
      uint32_t s = st.slots[pos];
      if (!s) break;
      const Subtable::Rule& r = st.rules[s - 1];
      if (r.hash != h) continue;
      const uint64_t* v = st.values.data() + (s - 1) * nw;
      bool eq = true;
      for (size_t j = 0; j < nw && eq; ++j) eq = v[j] == masked[j];
      if (!eq) continue;
      if (!best || r.entry->priority > best->priority) best = r.entry;
      break;
    }
  }
  return best;
}

}  // namespace flowlab::dp
