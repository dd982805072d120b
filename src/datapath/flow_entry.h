// FlowEntry: one installed flow. Immutable once published (match, priority,
// instructions decoded for the pipeline); its counters live in a separate
// FlowCounters block that forwarding threads bump with relaxed atomics and that
// survives a modify (the new FlowEntry shares the old counters).
//
// Memory (a million flows): the match as the flow-mod gave it is packed
// inline (PackedMatch), the instruction list is shared with every flow that
// has an equal one (InstructionPool), and the compiled key's mask is shared
// per table (StoredKey): the entry is one heap block, its counters another.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "datapath/instruction_pool.h"
#include "datapath/match_key.h"
#include "datapath/packed_match.h"
#include "openflow/message.h"

namespace flowlab::dp {

struct FlowCounters {
  std::atomic<uint64_t> packets{0};
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> last_used_ns{0};
};

struct FlowEntry {
  // Small members first, decoded ones among them, so that none pads (a
  // million entries: every 8 bytes here is 8 MB).
  uint8_t table_id = 0;
  bool clear_actions = false;  // decoded
  uint16_t priority = 0;
  uint16_t flags = 0;
  uint16_t idle_timeout = 0, hard_timeout = 0;
  uint16_t importance = 0;      // OF1.4: kept and reported, a modify leaves it
  bool write_metadata = false;  // decoded
  bool table_miss = false;      // priority 0, empty match: packet-ins say "no match"
  uint32_t meter_id = 0;        // decoded; 0: none
  int goto_table = -1;          // decoded
  uint64_t cookie = 0;
  uint64_t created_ns = 0;
  PackedMatch match;  // match.unpack(): the of::Match
  StoredKey key;
  SharedInstructions insts;  // nullptr: none (instructions() is empty)
  std::shared_ptr<FlowCounters> counters;

  // Decoded instructions (pointers into `insts`; set by decode(), as are the
  // members marked so above).
  const of::ActionList* apply = nullptr;
  const of::ActionList* write = nullptr;
  uint64_t metadata = 0, metadata_mask = 0;

  FlowEntry() = default;
  FlowEntry(const FlowEntry&) = delete;
  FlowEntry& operator=(const FlowEntry&) = delete;

  // A new entry equal to this one but for its instructions and counters (a
  // modify; a bundle's undo puts back a copy), decoded. Not a copy
  // constructor: the decoded pointers must point into the copy's instructions.
  std::shared_ptr<FlowEntry> copy_with(SharedInstructions with_instructions,
                                       std::shared_ptr<FlowCounters> with_counters) const {
    auto c = std::make_shared<FlowEntry>();
    c->table_id = table_id;
    c->priority = priority;
    c->cookie = cookie;
    c->flags = flags;
    c->idle_timeout = idle_timeout;
    c->hard_timeout = hard_timeout;
    c->importance = importance;
    c->created_ns = created_ns;
    c->match = match;
    c->key = key;
    c->insts = std::move(with_instructions);
    c->counters = std::move(with_counters);
    c->decode();
    return c;
  }

  const of::InstructionList& instructions() const { return insts ? *insts : no_instructions(); }

  void decode() {
    for (const of::Instruction& in : instructions()) {
      switch (in.type) {
        case of::InstructionType::kMeter:
          meter_id = in.meter_id;
          break;
        case of::InstructionType::kApplyActions:
          apply = &in.actions;
          break;
        case of::InstructionType::kClearActions:
          clear_actions = true;
          break;
        case of::InstructionType::kWriteActions:
          write = &in.actions;
          break;
        case of::InstructionType::kWriteMetadata:
          write_metadata = true;
          metadata = in.metadata;
          metadata_mask = in.metadata_mask;
          break;
        case of::InstructionType::kGotoTable:
          goto_table = in.table_id;
          break;
        default:
          break;
      }
    }
    table_miss = priority == 0 && match.empty();
  }
  // Whether any output action (in apply/write actions) sends to `port`.
  bool outputs_to(uint32_t port) const {
    for (const of::Instruction& in : instructions())
      for (const of::Action& a : in.actions)
        if (a.type == of::ActionType::kOutput && a.port == port) return true;
    return false;
  }
  bool uses_group(uint32_t group) const {
    for (const of::Instruction& in : instructions())
      for (const of::Action& a : in.actions)
        if (a.type == of::ActionType::kGroup && a.group_id == group) return true;
    return false;
  }

 private:
  static const of::InstructionList& no_instructions() {
    static const of::InstructionList none;
    return none;
  }
};

using FlowEntryPtr = std::shared_ptr<const FlowEntry>;

}  // namespace flowlab::dp
