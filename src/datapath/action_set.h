// ActionSet: the OF1.3 action set a packet collects through write-actions
// instructions, run once when the pipeline ends, in the spec's order (5.10):
// copy TTL in, pops, push MPLS, push PBB, push VLAN, copy TTL out, TTL
// decrements and sets, set-fields, set-queue, then group or output.
// Holds pointers into the flows' action lists (the pinned snapshot keeps them alive).
#pragma once

#include <array>
#include <cstdint>

#include "openflow/message.h"

namespace flowlab::dp {

// The OF1.3 action set: at most one action of each kind, one set-field per field.
struct ActionSet {
  using ActionType = of::ActionType;

  const of::Action* copy_ttl_in = nullptr;
  const of::Action* pop_vlan = nullptr;
  const of::Action* pop_mpls = nullptr;
  const of::Action* pop_pbb = nullptr;
  const of::Action* push_mpls = nullptr;
  const of::Action* push_pbb = nullptr;
  const of::Action* push_vlan = nullptr;
  const of::Action* copy_ttl_out = nullptr;
  const of::Action* dec_mpls_ttl = nullptr;
  const of::Action* dec_nw_ttl = nullptr;
  const of::Action* set_mpls_ttl = nullptr;
  const of::Action* set_nw_ttl = nullptr;
  const of::Action* set_queue = nullptr;
  const of::Action* group = nullptr;
  const of::Action* output = nullptr;
  std::array<const of::Action*, of::kNumBasicOxm> set_field{};
  uint64_t set_mask = 0;
  bool used = false;

  // Runs the set in the spec's order (5.10), each action through
  // run(const of::Action&) -> bool, false when the packet is gone (an invalid
  // TTL): then the rest is not run and this returns false. A group replaces
  // the output. The pipeline executes the set this way, the trace lists it.
  template <typename Run>
  bool for_each(Run&& run) const {
    auto one = [&](const of::Action* a) { return !a || run(*a); };
    if (!one(copy_ttl_in) || !one(pop_vlan) || !one(pop_mpls) || !one(pop_pbb) || !one(push_mpls) ||
        !one(push_pbb) || !one(push_vlan) || !one(copy_ttl_out) || !one(dec_mpls_ttl) || !one(dec_nw_ttl) ||
        !one(set_mpls_ttl) || !one(set_nw_ttl))
      return false;
    for (uint64_t m = set_mask; m; m &= m - 1)
      if (!one(set_field[size_t(__builtin_ctzll(m))])) return false;
    one(set_queue);
    if (group) return one(group);
    return one(output);
  }

  void clear() {
    if (used) *this = ActionSet{};
  }
  void write(const of::ActionList& list) {
    for (const of::Action& a : list) {
      used = true;
      switch (a.type) {
        case ActionType::kCopyTtlIn:
          copy_ttl_in = &a;
          break;
        case ActionType::kPopVlan:
          pop_vlan = &a;
          break;
        case ActionType::kPopMpls:
          pop_mpls = &a;
          break;
        case ActionType::kPushMpls:
          push_mpls = &a;
          break;
        case ActionType::kPopPbb:
          pop_pbb = &a;
          break;
        case ActionType::kPushPbb:
          push_pbb = &a;
          break;
        case ActionType::kPushVlan:
          push_vlan = &a;
          break;
        case ActionType::kCopyTtlOut:
          copy_ttl_out = &a;
          break;
        case ActionType::kDecMplsTtl:
          dec_mpls_ttl = &a;
          break;
        case ActionType::kDecNwTtl:
          dec_nw_ttl = &a;
          break;
        case ActionType::kSetMplsTtl:
          set_mpls_ttl = &a;
          break;
        case ActionType::kSetNwTtl:
          set_nw_ttl = &a;
          break;
        case ActionType::kSetQueue:
          set_queue = &a;
          break;
        case ActionType::kGroup:
          group = &a;
          break;
        case ActionType::kOutput:
        case ActionType::kEnqueue:
          output = &a;
          break;
        case ActionType::kSetField:
          if (a.field.is_basic() && a.field.field < of::kNumBasicOxm) {
            set_field[a.field.field] = &a;
            set_mask |= uint64_t{1} << a.field.field;
          } else if (of::onf_pbb_uca_as_basic(a.field)) {  // EXT-256 pbb_uca (rare: not the fast path)
            const auto i = size_t(of::OxmId::kPbbUca);
            set_field[i] = &a;
            set_mask |= uint64_t{1} << i;
          }
          break;
        default:
          break;
      }
    }
  }
};

}  // namespace flowlab::dp
