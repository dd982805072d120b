// Versioned tuple-space-search classifier (design notes in classifier.h).
#include "datapath/classifier.h"

#include <algorithm>
#include <cstring>
#include <map>

namespace flowlab::dp {
namespace {

uint64_t entry_hash(const FlowEntry* e) { return hash_mix(0, reinterpret_cast<uintptr_t>(e)); }

}  // namespace

// 56 bytes (64 with malloc's header): one per flow.
struct Classifier::Rule {
  uint32_t hash = 0;  // the low half of hash_of(): slot arrays stay below 2^32 slots
  uint16_t priority = 0;
  FlowEntryPtr entry;
  uint64_t added = 0;
  std::atomic<uint64_t> removed{kNever};
  std::atomic<Rule*> next{nullptr};  // same match, lower or equal priority
  Subtable* st = nullptr;
};

struct Classifier::Slots {
  explicit Slots(size_t n) : at(n) {}
  std::vector<std::atomic<Rule*>> at;  // nullptr: empty; &Subtable::tombstone: chain gone
};

struct Classifier::Subtable {
  std::vector<uint8_t> words;        // indices of non-zero mask words
  std::vector<uint64_t> mask_words;  // the mask at those indices
  std::atomic<Slots*> slots{nullptr};
  Rule tombstone;
  // Writer only.
  std::unique_ptr<Slots> owned;
  size_t used = 0;    // slots holding a chain or a tombstone
  size_t chains = 0;  // slots holding a chain
  size_t linked = 0;  // rules linked, deleted or not
  std::map<uint16_t, uint32_t> live_priorities;

  int max_priority() const { return live_priorities.empty() ? -1 : live_priorities.rbegin()->first; }
  bool same_value(const Rule& r, const FlowKey& value) const {
    for (uint8_t w : words)
      if (key_word(r.entry->key.value, w) != key_word(value, w)) return false;
    return true;
  }
  // The slot whose chain holds `value`, nullptr when none.
  std::atomic<Rule*>* find_chain(uint64_t h, const FlowKey& value, std::atomic<Rule*>** tomb) {
    Slots& s = *owned;
    const size_t cap_mask = s.at.size() - 1;
    for (size_t pos = h & cap_mask;; pos = (pos + 1) & cap_mask) {
      Rule* head = s.at[pos].load(std::memory_order_relaxed);
      if (!head) {
        if (tomb && !*tomb) *tomb = &s.at[pos];
        return nullptr;
      }
      if (head == &tombstone) {
        if (tomb && !*tomb) *tomb = &s.at[pos];
        continue;
      }
      if (head->hash == uint32_t(h) && same_value(*head, value)) return &s.at[pos];
    }
  }
};

Classifier::Garbage::Garbage(uint64_t t, std::unique_ptr<Rule> r, std::unique_ptr<Slots> s)
    : tag(t), rule(std::move(r)), slots(std::move(s)) {}
Classifier::Garbage::~Garbage() = default;
Classifier::Garbage::Garbage(Garbage&&) noexcept = default;
Classifier::Garbage& Classifier::Garbage::operator=(Garbage&&) noexcept = default;

Classifier::Classifier() = default;
Classifier::~Classifier() = default;
Classifier::Classifier(Classifier&&) noexcept = default;
Classifier& Classifier::operator=(Classifier&&) noexcept = default;

size_t Classifier::MaskHash::operator()(const FlowKey& m) const {
  uint64_t h = 0;
  for (size_t i = 0; i < kFlowKeyWords; ++i) h = hash_mix(h, key_word(m, i));
  return size_t(h);
}

Classifier::Subtable& Classifier::subtable_for(const FlowKey& mask) {
  auto& slot = by_mask_[mask];
  if (!slot) {
    slot = std::make_shared<Subtable>();
    for (size_t i = 0; i < kFlowKeyWords; ++i)
      if (uint64_t m = key_word(mask, i)) {
        slot->words.push_back(uint8_t(i));
        slot->mask_words.push_back(m);
      }
  }
  return *slot;
}

uint64_t Classifier::hash_of(const FlowKey& value, const FlowKey& mask) {
  uint64_t h = 0;  // Subtable::hash_of, over the words the mask sets
  for (size_t i = 0; i < kFlowKeyWords; ++i)
    if (key_word(mask, i)) h = hash_mix(h, key_word(value, i));
  return h;
}

void Classifier::prefetch(const FlowEntry* e, const FlowKey* mask, uint64_t hash, int stage) const {
  if (stage == 0) rules_.prefetch(entry_hash(e));
  if (!last_subtable_ || mask != last_mask_.get() || !last_subtable_->owned) return;
  const Slots& s = *last_subtable_->owned;
  const std::atomic<Rule*>& slot = s.at[hash & (s.at.size() - 1)];
  if (stage == 0) {
    __builtin_prefetch(&slot);
  } else if (const Rule* head = slot.load(std::memory_order_relaxed);
             head && head != &last_subtable_->tombstone) {
    __builtin_prefetch(head);
  }
}

void Classifier::insert(FlowEntryPtr e, uint64_t version) {
  const uint64_t h = hash_of(e->key.value, *e->key.mask);
  insert(std::move(e), version, h);
}

void Classifier::insert(FlowEntryPtr e, uint64_t version, uint64_t hash) {
  static_assert(sizeof(void*) != 8 || sizeof(Rule) <= 56, "a rule per flow: keep it small");
  if (e->key.mask != last_mask_) {
    last_subtable_ = &subtable_for(*e->key.mask);
    last_mask_ = e->key.mask;
  }
  Subtable& st = *last_subtable_;
  auto owned = std::make_unique<Rule>();
  Rule* r = owned.get();
  r->hash = uint32_t(hash);
  r->priority = e->priority;
  r->added = version;
  r->st = &st;
  r->entry = std::move(e);

  // Keep the load <= 50 % (tombstones count): rebuild into a bigger array first.
  if (!st.owned || (st.used + 1) * 2 > st.owned->at.size()) {
    size_t cap = 8;
    while (cap < (st.chains + 1) * 4) cap <<= 1;
    auto fresh = std::make_unique<Slots>(cap);
    if (st.owned) {
      for (auto& a : st.owned->at) {
        Rule* head = a.load(std::memory_order_relaxed);
        if (!head || head == &st.tombstone) continue;
        size_t pos = head->hash & (cap - 1);
        while (fresh->at[pos].load(std::memory_order_relaxed)) pos = (pos + 1) & (cap - 1);
        fresh->at[pos].store(head, std::memory_order_relaxed);
      }
    }
    st.used = st.chains;
    st.slots.store(fresh.get(), std::memory_order_release);
    // Readers of the published version may still be probing the old array.
    if (st.owned) garbage_.emplace_back(version - 1, nullptr, std::move(st.owned));
    st.owned = std::move(fresh);
  }

  std::atomic<Rule*>* free_slot = nullptr;
  if (std::atomic<Rule*>* chain = st.find_chain(r->hash, r->entry->key.value, &free_slot)) {
    std::atomic<Rule*>* link = chain;
    for (Rule* c = link->load(std::memory_order_relaxed); c && c->priority > r->priority;
         c = link->load(std::memory_order_relaxed))
      link = &c->next;
    r->next.store(link->load(std::memory_order_relaxed), std::memory_order_relaxed);
    link->store(r, std::memory_order_release);
  } else {
    if (!free_slot->load(std::memory_order_relaxed)) ++st.used;
    free_slot->store(r, std::memory_order_release);
    ++st.chains;
  }
  ++st.linked;
  const int old_max = st.max_priority();
  ++st.live_priorities[r->priority];
  if (st.max_priority() != old_max) order_dirty_ = true;
  ++live_;
  const FlowEntry* key = r->entry.get();
  rules_.insert(entry_hash(key), std::move(owned));
}

bool Classifier::remove(const FlowEntry& e, uint64_t version) {
  auto* owned =
      rules_.find(entry_hash(&e), [&](const std::unique_ptr<Rule>& r) { return r->entry.get() == &e; });
  if (!owned) return false;
  Rule& r = **owned;
  if (r.removed.load(std::memory_order_relaxed) != kNever) return false;
  r.removed.store(version, std::memory_order_release);
  removed_.push_back(&r);
  Subtable& st = *r.st;
  const int old_max = st.max_priority();
  auto p = st.live_priorities.find(r.priority);
  if (--p->second == 0) st.live_priorities.erase(p);
  if (st.max_priority() != old_max) order_dirty_ = true;
  --live_;
  return true;
}

void Classifier::unlink(Rule& r, uint64_t tag) {
  Subtable& st = *r.st;
  std::atomic<Rule*>* chain = st.find_chain(r.hash, r.entry->key.value, nullptr);
  std::atomic<Rule*>* link = chain;
  while (link->load(std::memory_order_relaxed) != &r) link = &link->load(std::memory_order_relaxed)->next;
  Rule* next = r.next.load(std::memory_order_relaxed);
  if (link == chain && !next) {
    link->store(&st.tombstone, std::memory_order_release);
    --st.chains;
  } else {
    link->store(next, std::memory_order_release);  // r keeps pointing on: a reader on r walks on
  }
  const FlowEntry* e = r.entry.get();
  auto owned =
      rules_.take(entry_hash(e), [&](const std::unique_ptr<Rule>& x) { return x->entry.get() == e; });
  garbage_.emplace_back(tag, std::move(*owned), nullptr);
  if (--st.linked == 0) {
    // Empty: views that still list it keep it alive; a later flow with this mask starts afresh.
    const FlowKey mask = *garbage_.back().rule->entry->key.mask;
    if (last_subtable_ == &st) {
      last_subtable_ = nullptr;
      last_mask_.reset();
    }
    by_mask_.erase(mask);
  }
}

void Classifier::unlink_invisible(uint64_t oldest_reader, uint64_t published) {
  const uint64_t bound = std::min(oldest_reader, published);
  size_t kept = 0;
  for (Rule* r : removed_) {
    if (r->removed.load(std::memory_order_relaxed) <= bound)
      unlink(*r, published);
    else
      removed_[kept++] = r;
  }
  removed_.resize(kept);
}

void Classifier::free_unreachable(uint64_t oldest_reader) {
  while (!garbage_.empty() && garbage_.front().tag < oldest_reader) garbage_.pop_front();
}

std::shared_ptr<const Classifier::View> Classifier::publish() {
  if (view_ && !order_dirty_) return view_;
  auto v = std::make_shared<View>();
  for (const auto& [mask, st] : by_mask_)
    if (!st->live_priorities.empty()) {
      v->order_.push_back({st, uint16_t(st->max_priority())});
      for (size_t j = 0; j < st->words.size(); ++j) {
        uint64_t w;
        std::memcpy(&w, reinterpret_cast<const uint8_t*>(&v->fields_read_) + 8 * st->words[j], 8);
        w |= st->mask_words[j];
        std::memcpy(reinterpret_cast<uint8_t*>(&v->fields_read_) + 8 * st->words[j], &w, 8);
      }
    }
  std::stable_sort(v->order_.begin(), v->order_.end(),
                   [](const View::Ref& a, const View::Ref& b) { return a.max_priority > b.max_priority; });
  view_ = std::move(v);
  order_dirty_ = false;
  return view_;
}

size_t Classifier::subtable_count() const {
  size_t n = 0;
  for (const auto& kv : by_mask_) n += !kv.second->live_priorities.empty();
  return n;
}

Classifier Classifier::build(const std::vector<FlowEntryPtr>& entries) {
  Classifier c;
  for (const FlowEntryPtr& e : entries) c.insert(e, 1);
  c.publish();
  return c;
}

const FlowEntry* Classifier::lookup(const FlowKey& k) const {
  return view_ ? view_->lookup(k, kNever - 1) : nullptr;
}

const FlowEntry* Classifier::View::lookup(const FlowKey& k, uint64_t version) const {
  const FlowEntry* best = nullptr;
  int best_priority = -1;
  uint64_t masked[kFlowKeyWords];
  for (const Ref& ref : order_) {
    if (best_priority >= int(ref.max_priority)) break;
    const Subtable& st = *ref.st;
    const size_t nw = st.words.size();
    uint64_t h = 0;
    for (size_t j = 0; j < nw; ++j) {
      masked[j] = key_word(k, st.words[j]) & st.mask_words[j];
      h = hash_mix(h, masked[j]);
    }
    const Slots* s = st.slots.load(std::memory_order_acquire);
    if (!s) continue;
    const size_t cap_mask = s->at.size() - 1;
    for (size_t pos = h & cap_mask;; pos = (pos + 1) & cap_mask) {
      const Rule* r = s->at[pos].load(std::memory_order_acquire);
      if (!r) break;
      if (r == &st.tombstone || r->hash != uint32_t(h)) continue;
      bool eq = true;
      for (size_t j = 0; j < nw && eq; ++j) eq = key_word(r->entry->key.value, st.words[j]) == masked[j];
      if (!eq) continue;
      for (; r; r = r->next.load(std::memory_order_acquire)) {
        if (r->added > version || version >= r->removed.load(std::memory_order_acquire)) continue;
        if (r->priority > best_priority) {
          best = r->entry.get();
          best_priority = r->priority;
        }
        break;
      }
      break;
    }
  }
  return best;
}

}  // namespace flowlab::dp
