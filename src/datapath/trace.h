// Trace: what the pipeline would do with one packet, step by step, without
// doing it (`flowlab ofctl trace`, the switch's trace experimenter message).
//
// Idea. trace_packet() walks the snapshot a ForwardingContext pins, as the
// pipeline does (pipeline.cpp): the classifier lookup of each table, the
// flow's meter, apply-actions run on a copy of the packet (set-field and
// push/pop change what later tables match: actions.h's apply_header_action),
// write/clear-actions into the same ActionSet, write-metadata, goto-table,
// and at the end the action set in the spec's order (ActionSet::for_each).
// Groups choose their buckets as the pipeline does (groups.h: liveness,
// select_bucket over select_hash). Instead of sending, it records: the
// outputs (FLOOD, ALL and NORMAL expanded to the PortView's ports), packets
// for the controller, the meters named and the drop and its reason.
//
// Egress (OF1.5). With a first egress table set, each output to a port an
// ingress table makes runs the egress tables as the pipeline does (a copy of
// the packet, actset_output that port, the action set holding only that
// output): the output's TraceEgress records those tables and where the copy
// leaves (delivered) or why it does not (dropped).
//
// Read-only. No flow, table, group, meter or datapath counter moves, no
// meter is charged (the meter is named, its verdict is not known), nothing
// is output or sent up, the context's flow cache is not used.
//
// Fast path. With `fast_path_ports` given, the trace also asks
// decide_for_fast_path() (same snapshot) whether the kernel could cache the
// packet's flow: cacheable or not. That is the datapath's side only: the
// kernel's own key extraction (kernel/cache_key.h) may still refuse a frame.
//
// Cost. One classifier lookup per table, a copy of the packet per bucket that
// modifies; allocation is fine (control path, agent thread).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "datapath/datapath.h"

namespace flowlab::dp {

// A group the packet went through and the buckets it ran.
struct TraceGroup {
  uint32_t group_id = 0;
  of::GroupType type = of::GroupType::kAll;
  bool exists = true;
  std::vector<uint32_t> buckets;  // indexes of the buckets run
  size_t n_buckets = 0;
};

// One table the packet was looked up in.
struct TraceTable {
  uint8_t table_id = 0;
  bool matched = false;
  // The flow matched (when matched).
  uint16_t priority = 0;
  uint64_t cookie = 0;
  of::Match match;
  of::InstructionList instructions;
  uint32_t meter_id = 0;  // named by the flow (0: none); not charged
  bool meter_exists = false;
  std::vector<TraceGroup> groups;  // run by its apply-actions
  of::ActionList action_set;       // the action set after this table, in execution order
  int goto_table = -1;
};

struct TraceEgress;

// Where a copy of the packet would go.
struct TraceOutput {
  uint32_t port = 0;  // a port number, of::port::kLocal or of::port::kController
  uint32_t queue_id = 0;
  std::string via;  // "table 0 apply-actions", "action set", "group 1 bucket 0", "FLOOD", ...
  // kController: the packet-in reason and bytes asked for.
  of::PacketInReason reason = of::PacketInReason::kAction;
  uint16_t max_len = 0;
  std::shared_ptr<const TraceEgress> egress;  // the egress tables this output ran (OF1.5), or null
};

// The egress tables one output ran: actset_output is `port`.
struct TraceEgress {
  uint32_t port = 0;
  std::vector<TraceTable> tables;
  std::vector<TraceGroup> set_groups;  // run by the egress action set
  std::vector<TraceOutput> outputs;    // where copies leave the switch from the egress tables
  std::vector<std::string> notes;
  std::string drop_reason;  // when no copy leaves by `port`
  bool delivered() const {
    for (const TraceOutput& o : outputs)
      if (o.port == port) return true;
    return false;
  }
};

struct Trace {
  enum class FastPath : uint8_t { kNotAsked, kCacheable, kNotCacheable };
  uint32_t in_port = 0;
  size_t packet_len = 0;
  uint64_t version = 0;  // the snapshot traced
  std::vector<TraceTable> tables;
  std::vector<TraceGroup> set_groups;  // run by the final action set
  std::vector<TraceOutput> outputs;
  std::vector<std::string> notes;  // things skipped on the way (output to in_port, missing group, ...)
  std::string drop_reason;         // set when nothing is output
  FastPath fast_path = FastPath::kNotAsked;
};

// Traces pkt (pkt.in_port set) through the snapshot ctx pins. ctx is only
// used for its pin (its counters and cache are not touched). With
// fast_path_ports, fills Trace::fast_path (see above).
Trace trace_packet(ForwardingContext& ctx, const Packet& pkt,
                   const std::function<bool(uint32_t)>* fast_path_ports = nullptr);

// Human text, one block per table, then the final outputs or the drop; an
// output that ran egress tables is followed by them, indented, and its verdict.
std::string format_trace_text(const Trace& t);
// The same as one JSON object (docs/SWITCH.md, "Trace").
std::string format_trace_json(const Trace& t);

}  // namespace flowlab::dp
