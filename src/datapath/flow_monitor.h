// Flow monitoring support (OpenFlow 1.4 OFPMP_FLOW_MONITOR): what the datapath
// records of its flow changes and how a monitor selects flows.
//
// Idea. The agent owns the monitors (they belong to connections); the
// datapath only tells it what changed. While recording is on
// (Datapath::set_record_flow_changes, which the agent turns on while any
// monitor exists), every change to the flow tables appends a FlowChange at the
// place that knows its meaning: a flow added, modified (a modify or an add
// that replaced an equal flow) or removed with its reason (delete, idle or
// hard timeout, eviction, group or meter delete). A bundle whose commit fails
// leaves no change behind (its records are dropped with its undo). The agent
// takes the records after each request (Datapath::take_flow_changes) and
// turns them into updates for the monitors whose FlowSelector picks the flow.
//
// Costs: with recording off, one branch per change; on, one shared pointer
// per change (the entry is immutable and shared, never copied).
#pragma once

#include <cstdint>
#include <memory>

#include "core/result.h"
#include "datapath/match_key.h"
#include "openflow/errors.h"
#include "openflow/message.h"

namespace flowlab::dp {

struct FlowEntry;

struct FlowChange {
  of::FlowUpdateEvent event = of::FlowUpdateEvent::kAdded;  // kAdded, kRemoved or kModified
  uint8_t reason = 0;                                       // FlowRemovedReason, removals only
  std::shared_ptr<const FlowEntry> flow;                    // the flow after (added, modified) or as removed
};

// The flows one monitor watches: its table (or all), out_port and out_group
// (ANY: any; else flows whose actions output to it / use it) and the flows its
// match covers, as a non-strict flow-stats request selects them.
class FlowSelector {
 public:
  // Errors: a match that does not compile (OFPET_BAD_MATCH codes).
  static Result<FlowSelector, of::OfError> compile(const of::FlowMonitorRequest& r);
  bool selects(const FlowEntry& e) const;

 private:
  uint8_t table_id_ = of::table::kAll;
  uint32_t out_port_ = of::port::kAny;
  uint32_t out_group_ = of::group::kAny;
  MaskedKey key_;
};

// The update a flow makes (INITIAL, ADDED, REMOVED with `reason`, MODIFIED);
// its instructions only when asked (OFPFMF_INSTRUCTIONS).
of::FlowUpdate flow_update(const FlowEntry& e, of::FlowUpdateEvent event, uint8_t reason, bool instructions);

}  // namespace flowlab::dp
