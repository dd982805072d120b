// The OpenFlow 1.5 codec (wire version 6).
//
// Idea. OpenFlow 1.5 keeps most of 1.4's wire and changes a handful of
// structures. This codec translates wire to wire: a 1.5 message becomes the
// 1.4 message that means the same (version 5), decoded by the 1.4 codec into
// the shared model (version kOf15); encoding runs the other way (1.4 codec,
// then 1.4 wire to 1.5 wire). What 1.5 changed, translated here:
//   - actions: OFPAT_METER (29) replaces the meter instruction. A meter action
//     first in an apply-actions list is 1.3's meter instruction (the pipeline
//     meters before the actions, the order OVS uses too); a meter action
//     anywhere else is OFPBAC_UNSUPPORTED_ORDER. OFPAT_COPY_FIELD (28) is
//     refused (OFPBAC_BAD_TYPE: the pipeline has no copy-field); the
//     deprecated meter instruction (6) is OFPBIC_UNKNOWN_INST, the stat
//     trigger (7) OFPBIC_UNSUP_INST;
//   - packet-out: in_port inside a match (only in_port is accepted there);
//   - flow-removed, flow desc replies (OFPMP_FLOW_DESC) and aggregate replies:
//     the counters are OXS TLVs in an ofp_stats (duration, idle_time,
//     flow_count, packet_count, byte_count), instructions.cpp/stats.cpp;
//   - group-mod and group desc: 1.5's buckets (bucket_id, properties weight /
//     watch_port / watch_group), command_bucket_id; INSERT_BUCKET and
//     REMOVE_BUCKET are OFPGMFC_BAD_COMMAND, group properties OFPBPC_BAD_TYPE;
//     the group desc request's group_id and the port desc request's port_no
//     (only OFPG_ALL / OFPP_ANY are served: OFPBRC_BAD_MULTIPART otherwise);
//   - meter features: 1.5's `features` word (none: 0);
//   - flow monitor replies: the full updates' instructions, as a flow-mod's
//     (monitor.cpp); the request is 1.4's;
//   - table features replies: every table also lists OFPTFPT_PACKET_TYPES
//     (Ethernet only); the 1.5 properties a reply carries are kept as bytes;
//   - bundles: OFPBF_TIME (scheduled commit) is OFPBFC_SCHED_NOT_SUPPORTED;
//     a bundled or request-forwarded inner message is translated too;
//   - multiparts 1.5 added (OFPMP_FLOW_STATS 17, CONTROLLER_STATUS 18,
//     BUNDLE_FEATURES 19) are OFPBRC_BAD_MULTIPART; OFPT_CONTROLLER_STATUS
//     (35) is OFPBRC_BAD_TYPE (the 1.4 codec's answer to unknown types).
// The match's new OXM fields (tcp_flags 42, actset_output 43, packet_type 44)
// need no translation: the match keeps unknown basic fields as TLVs and oxm.cpp
// knows their lengths.
//
// Invariants. Translation never reads past the message and fails with the
// spec's error type/code and the offset in the 1.5 message. A 1.5 message in
// the canonical form this codec writes round-trips byte for byte: OXS fields
// in ascending field order (flow desc and flow-removed: duration,
// packet_count, byte_count; aggregate: flow_count, packet_count, byte_count),
// bucket ids 0, 1, 2..., bucket properties weight (select groups), then
// watch_port and watch_group when not ANY, command_bucket_id OFPG_BUCKET_ALL,
// packet-out matches holding in_port alone. Fields the model has no place for
// (idle_time, bucket ids) are dropped when decoding.
#pragma once

#include <cstdint>

#include "core/bytes.h"
#include "core/result.h"
#include "openflow/errors.h"

namespace flowlab::of::of15 {

inline constexpr uint16_t kActionCopyField = 28;
inline constexpr uint16_t kActionMeter = 29;
inline constexpr uint16_t kInstructionMeter = 6;  // 1.3's; deprecated at 1.5
inline constexpr uint16_t kInstructionStatTrigger = 7;
inline constexpr uint16_t kBundleFlagTime = 1u << 2;      // OFPBF_TIME
inline constexpr uint16_t kBundleSchedNotSupported = 16;  // OFPBFC_SCHED_NOT_SUPPORTED
inline constexpr uint32_t kBucketAll = 0xffffffff;        // OFPG_BUCKET_ALL
inline constexpr uint32_t kBucketMax = 0xffffff00;        // OFPG_BUCKET_MAX
inline constexpr uint16_t kOxsClassBasic = 0x8002;        // OFPXSC_OPENFLOW_BASIC

// OXS fields (ofp_oxs_ofb_stat_fields).
enum class Oxs : uint8_t { kDuration = 0, kIdleTime = 1, kFlowCount = 3, kPacketCount = 4, kByteCount = 5 };

// The counters of one ofp_stats; `has` bit n = OXS field n present.
struct Stats {
  uint32_t duration_sec = 0, duration_nsec = 0;
  uint32_t flow_count = 0;
  uint64_t packet_count = 0, byte_count = 0;
  uint8_t has = 0;
};

// 1.5 wire -> the 1.4 wire of the same message.
Result<Bytes, OfError> to_of14_wire(ByteSpan wire);
// 1.4 wire (version 5) -> 1.5 wire.
Result<Bytes, OfError> to_of15_wire(ByteSpan wire);

// ---- instructions.cpp: action and instruction lists (base = offset in the message) ----
Result<Bytes, OfError> instructions_to14(ByteSpan instrs, size_t base);
Bytes instructions_to15(ByteSpan instrs);
// An action list where a meter action is not allowed (packet-out, buckets, write-actions).
BasicStatus<OfError> check_actions(ByteSpan actions, size_t base, bool meter_first_ok);

// ---- stats.cpp: ofp_stats and the messages that carry it ----
// Decodes the ofp_stats at `at`; `used` is its padded length.
Result<Stats, OfError> decode_stats(ByteSpan wire, size_t at, size_t& used);
// Writes `s` with the fields in `fields` (ascending), padded to 8.
void encode_stats(const Stats& s, std::initializer_list<Oxs> fields, ByteWriter& w);
Result<Bytes, OfError> flow_removed_to14(ByteSpan wire);
Result<Bytes, OfError> flow_removed_to15(ByteSpan wire);
Result<Bytes, OfError> flow_desc_to14(ByteSpan wire);
Result<Bytes, OfError> flow_desc_to15(ByteSpan wire);
Result<Bytes, OfError> aggregate_to14(ByteSpan wire);
Result<Bytes, OfError> aggregate_to15(ByteSpan wire);

// ---- monitor.cpp: flow monitor replies (the full updates' instructions) ----
Result<Bytes, OfError> flow_monitor_reply_to14(ByteSpan wire);
Result<Bytes, OfError> flow_monitor_reply_to15(ByteSpan wire);

// ---- groups.cpp: group-mod and group desc ----
Result<Bytes, OfError> group_mod_to14(ByteSpan wire);
Result<Bytes, OfError> group_mod_to15(ByteSpan wire);
Result<Bytes, OfError> group_desc_to14(ByteSpan wire);
Result<Bytes, OfError> group_desc_to15(ByteSpan wire);

}  // namespace flowlab::of::of15
