// InstructionPool: one shared, immutable copy of each distinct instruction
// list the flows of a datapath hold. Big tables repeat a few action lists
// ("output:2" for a million host routes): each flow then holds a reference
// (16 bytes) instead of its own vectors of instructions and actions (two heap
// blocks, ~200 bytes).
//
// Lists no flow holds any more are dropped when the pool has doubled since its
// last sweep (as the classifier's masks are, DatapathImpl::stored_key). Agent
// thread only (under DatapathImpl::mu); the lists it hands out are never
// changed, so forwarding threads read them freely.
//
// Costs: intern O(size of the list) to hash and compare; the last list handed
// out is compared first (flows come in runs of one action list).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>

#include "openflow/message.h"

namespace flowlab::dp {

using SharedInstructions = std::shared_ptr<const of::InstructionList>;

class InstructionPool {
 public:
  // The pool's copy of a list equal to `l` (made from `l` when there is none).
  SharedInstructions intern(const of::InstructionList& l);
  SharedInstructions intern(of::InstructionList&& l);
  size_t size() const { return pool_.size(); }

  static uint64_t hash_of(const of::InstructionList& l);

 private:
  template <typename List>
  SharedInstructions find_or_add(List&& l);

  std::unordered_multimap<uint64_t, SharedInstructions> pool_;
  size_t sweep_at_ = 64;
  SharedInstructions last_;
};

}  // namespace flowlab::dp
