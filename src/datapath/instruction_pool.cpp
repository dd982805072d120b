// InstructionPool (see instruction_pool.h).
#include "datapath/instruction_pool.h"

#include <algorithm>

#include "datapath/classifier.h"

namespace flowlab::dp {
namespace {

uint64_t hash_bytes(uint64_t h, const Bytes& b) {
  h = hash_mix(h, b.size());
  for (uint8_t x : b) h = hash_mix(h, x);
  return h;
}

uint64_t hash_action(uint64_t h, const of::Action& a) {
  h = hash_mix(h, uint64_t(a.type) << 48 | uint64_t(a.max_len) << 32 | a.port);
  h = hash_mix(h, uint64_t(a.ethertype) << 40 | uint64_t(a.ttl) << 32 | a.queue_id);
  h = hash_mix(h, uint64_t(a.group_id) << 32 | a.experimenter);
  h = hash_mix(h, uint64_t(a.field.oxm_class) << 16 | uint64_t(a.field.field) << 8 | a.field.has_mask);
  h = hash_bytes(h, a.field.value);
  h = hash_bytes(h, a.field.mask);
  return hash_bytes(h, a.data);
}

}  // namespace

uint64_t InstructionPool::hash_of(const of::InstructionList& l) {
  uint64_t h = l.size();
  for (const of::Instruction& in : l) {
    h = hash_mix(h, uint64_t(in.type) << 8 | in.table_id);
    h = hash_mix(h, in.metadata);
    h = hash_mix(h, in.metadata_mask);
    h = hash_mix(h, uint64_t(in.meter_id) << 32 | in.experimenter);
    h = hash_bytes(h, in.data);
    h = hash_mix(h, in.actions.size());
    for (const of::Action& a : in.actions) h = hash_action(h, a);
  }
  return h;
}

SharedInstructions InstructionPool::intern(const of::InstructionList& l) { return find_or_add(l); }
SharedInstructions InstructionPool::intern(of::InstructionList&& l) { return find_or_add(std::move(l)); }

template <typename List>
SharedInstructions InstructionPool::find_or_add(List&& l) {
  if (last_ && *last_ == l) return last_;  // a run of one action list
  const uint64_t h = hash_of(l);
  auto [first, end] = pool_.equal_range(h);
  for (auto it = first; it != end; ++it)
    if (*it->second == l) return last_ = it->second;
  if (pool_.size() >= sweep_at_) {
    // use_count() only falls behind our back (entries released by other
    // threads); 1 means the pool holds the last reference, and only we hand out new ones.
    for (auto it = pool_.begin(); it != pool_.end();)
      it = it->second.use_count() == 1 && it->second != last_ ? pool_.erase(it) : std::next(it);
    sweep_at_ = std::max<size_t>(64, pool_.size() * 2);
  }
  auto shared = std::make_shared<const of::InstructionList>(std::forward<List>(l));
  pool_.emplace(h, shared);
  return last_ = shared;
}

}  // namespace flowlab::dp
