// Classifier: tuple-space search over the flows of one table, changed in place
// by the agent while forwarding threads look up in it, without either waiting.
//
// Idea. Flows with the same mask (the same "tuple" of matched bits) live in one
// subtable: an open-addressing hash table keyed by the masked packet key. A
// lookup probes each subtable once with (packet key & subtable mask). Subtables
// are visited in order of their highest priority; once the best match found so
// far has a priority >= the next subtable's maximum, no later subtable can win
// and the search stops (early exit). Flows with the same mask and value (same
// match, different priorities) hang off one slot as a chain, highest first.
//
// Versions. Every rule carries the table version it appears at (`added`) and
// the version it disappears at (`removed`, "never" until deleted). A change is
// made at the next, unpublished version: readers pinned at an older version
// skip new rules and still see deleted ones, so a batch of packets sees exactly
// one version and never a half-applied change. publish() hands out a View (the
// subtables in priority order for that version; rebuilt only when a subtable
// appears, empties or changes its top priority) and the datapath bumps the
// version. Deleted rules stay linked until no reader is older than their
// `removed`; unlinked rules and replaced slot arrays are freed once every
// reader that could still be walking them has finished its batch (reclaim(),
// fed the oldest version a reader has announced; see datapath_impl.h).
//
// Invariants. Only one thread (the agent, under the datapath mutex) calls the
// writer side. Readers only load: slot arrays, chain links and `removed` are
// atomics stored with release after the rule they point at is complete. A
// View's maximum priority per subtable bounds every rule visible at its version.
//
// Costs (n flows, t distinct masks, w = mask words actually set, <= 20):
//   lookup   O(t * w) worst case, usually far less with early exit; no allocation.
//   insert   O(w) amortised (hash, probe, link; the slot array doubles at 50 % load);
//            a batch prefetches ahead (prefetch) and passes hashes computed earlier.
//   remove   O(1) to mark, O(w) to unlink later.
//   publish  O(t log t) when the subtable order changed, O(1) otherwise.
//   memory   per flow one Rule (56 bytes) and one owner-map entry; slots <= 4 per flow.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <limits>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/hash_index.h"
#include "datapath/flow_entry.h"

namespace flowlab::dp {

class Classifier {
 public:
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
  struct Subtable;

  // The subtables to visit for one published version, highest priority first.
  class View {
   public:
    // Highest-priority flow visible at `version` that matches k, nullptr when none.
    const FlowEntry* lookup(const FlowKey& k, uint64_t version) const;
    size_t subtable_count() const { return order_.size(); }
    // The union of the subtables' masks: every bit a lookup in this view can
    // read (a kernel cache entry keyed on these bits is exact; megaflow).
    const FlowKey& fields_read() const { return fields_read_; }

   private:
    friend class Classifier;
    FlowKey fields_read_{};
    struct Ref {
      std::shared_ptr<const Subtable> st;
      uint16_t max_priority = 0;
    };
    std::vector<Ref> order_;
  };

  Classifier();
  ~Classifier();
  Classifier(Classifier&&) noexcept;
  Classifier& operator=(Classifier&&) noexcept;
  Classifier(const Classifier&) = delete;
  Classifier& operator=(const Classifier&) = delete;

  // ---- writer side (one thread) ----
  // `e` becomes visible to readers at `version` and later.
  void insert(FlowEntryPtr e, uint64_t version);
  // The same with e's hash known (hash_of(e.key.value, *e.key.mask)).
  void insert(FlowEntryPtr e, uint64_t version, uint64_t hash);
  // The hash a rule of this match is filed under in its subtable.
  static uint64_t hash_of(const FlowKey& value, const FlowKey& mask);
  // Starts loading what an insert of entry `e` (this mask and hash) reads
  // first, when its subtable is the one the last insert used: a batch of
  // inserts prefetches the slots (stage 0) some inserts ahead, then the
  // rules those slots hold (stage 1, the slots being loaded by then) nearer.
  void prefetch(const FlowEntry* e, const FlowKey* mask, uint64_t hash, int stage) const;
  // `e` (inserted earlier) is invisible from `version` on. False when unknown.
  bool remove(const FlowEntry& e, uint64_t version);
  // The view readers at `version` (and later, until the next change) use.
  std::shared_ptr<const View> publish();
  // Unlinks deleted rules no reader can see any more and frees what no reader
  // can be walking. `oldest_reader`: the oldest version a reader in a batch has
  // announced (kNever when none); `published`: the newest published version.
  // Call with the first before a memory fence and again after (datapath.cpp).
  void unlink_invisible(uint64_t oldest_reader, uint64_t published);
  void free_unreachable(uint64_t oldest_reader);
  bool has_garbage() const { return !removed_.empty() || !garbage_.empty(); }

  size_t size() const { return live_; }  // flows not deleted
  size_t subtable_count() const;         // subtables holding live flows

  // ---- tests and benchmarks ----
  // A classifier holding `entries` at version 1, and a lookup in its latest view.
  static Classifier build(const std::vector<FlowEntryPtr>& entries);
  const FlowEntry* lookup(const FlowKey& k) const;

 private:
  struct Rule;
  struct Slots;
  struct Garbage {
    uint64_t tag = 0;  // the published version when it was unlinked
    std::unique_ptr<Rule> rule;
    std::unique_ptr<Slots> slots;
    ~Garbage();
    Garbage(uint64_t t, std::unique_ptr<Rule> r, std::unique_ptr<Slots> s);
    Garbage(Garbage&&) noexcept;
    Garbage& operator=(Garbage&&) noexcept;
  };
  struct MaskHash {
    size_t operator()(const FlowKey& m) const;
  };

  Subtable& subtable_for(const FlowKey& mask);
  void unlink(Rule& r, uint64_t tag);

  std::unordered_map<FlowKey, std::shared_ptr<Subtable>, MaskHash> by_mask_;
  // The subtable of the last insert, by its flow's mask (shared, so it cannot
  // die and another mask be born at its address); reset when a subtable goes.
  std::shared_ptr<const FlowKey> last_mask_;
  Subtable* last_subtable_ = nullptr;
  HashIndex<std::unique_ptr<Rule>> rules_;  // owner of linked rules, by their entry's address
  std::vector<Rule*> removed_;              // marked deleted, still linked
  std::deque<Garbage> garbage_;             // unlinked, in tag order
  std::shared_ptr<const View> view_;
  bool order_dirty_ = true;
  size_t live_ = 0;
};

// 64-bit mixing hash step shared by the classifier and the flow cache.
inline uint64_t hash_mix(uint64_t h, uint64_t v) {
  h ^= v * 0x9e3779b97f4a7c15ull;
  h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 32);
}

}  // namespace flowlab::dp
