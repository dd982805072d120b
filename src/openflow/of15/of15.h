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
//     the ONF extension's copy-field at 1.3/1.4 (experimenter 0x4f4e4600,
//     exp_type 3200: the same fields, 32 bytes instead of 24), which the 1.3
//     codec decodes into the model's copy-field action; the deprecated meter
//     instruction (6) is OFPBIC_UNKNOWN_INST, the stat trigger (7)
//     OFPBIC_UNSUP_INST;
//   - packet-out: in_port inside a match (only in_port is accepted there);
//   - flow-removed, flow desc replies (OFPMP_FLOW_DESC) and aggregate replies:
//     the counters are OXS TLVs in an ofp_stats (duration, idle_time,
//     flow_count, packet_count, byte_count), instructions.cpp/stats.cpp;
//     idle_time has no place in 1.4's wire: it travels beside it (Extras)
//     into the model's FlowStats/FlowRemoved and back;
//   - OFPMP_FLOW_STATS (17): its request is the flow desc request; its reply's
//     entries (no cookie, timeouts, flags, instructions) become 1.4 flow stats
//     entries with those zero, the model's FlowStatsReply::stats_only set;
//   - group-mod and group desc: 1.5's buckets (bucket_id, properties weight /
//     watch_port / watch_group), command_bucket_id; bucket ids, the
//     command_bucket_id and INSERT_BUCKET / REMOVE_BUCKET (a modify on 1.4's
//     wire) travel beside the translation (Extras) into the model's GroupMod
//     and Bucket::bucket_id; group properties are OFPBPC_BAD_TYPE;
//     the group desc request's group_id and the port desc request's port_no
//     (only OFPG_ALL / OFPP_ANY are served: OFPBRC_BAD_MULTIPART otherwise);
//   - meter features: 1.5's `features` word (none: 0);
//   - flow monitor replies: the full updates' instructions, as a flow-mod's
//     (monitor.cpp); the request is 1.4's;
//   - table features replies: every table also lists OFPTFPT_PACKET_TYPES
//     (Ethernet only); the 1.5 properties a reply carries are kept as bytes;
//   - bundles: OFPBF_TIME (scheduled commit) is OFPBFC_SCHED_NOT_SUPPORTED;
//     a bundled or request-forwarded inner message is translated too;
//   - controller status (OFPT_CONTROLLER_STATUS 35, OFPMP_CONTROLLER_STATUS
//     18) has no 1.4 form: read and written directly (controller_status.cpp);
//     BUNDLE_FEATURES (19) is OFPBRC_BAD_MULTIPART;
//   - set-async and get-async reply: the controller status masks
//     (OFPACPT_CONT_STATUS_SLAVE 14 / _MASTER 15) travel beside the 1.4 wire
//     (Extras) into the model's AsyncConfig::controller_status_mask (async.cpp);
//     1.5's flow stats masks (12 / 13) are OFPBPC_BAD_TYPE, as at 1.4.
// The match's new OXM fields (tcp_flags 42, actset_output 43, packet_type 44)
// need no translation: the match keeps unknown basic fields as TLVs and oxm.cpp
// knows their lengths.
//
// Invariants. Translation never reads past the message and fails with the
// spec's error type/code and the offset in the 1.5 message. A 1.5 message in
// the canonical form this codec writes round-trips byte for byte: OXS fields
// in ascending field order (flow desc, flow stats and flow-removed: duration,
// idle_time when the model has it, packet_count, byte_count; aggregate:
// flow_count, packet_count, byte_count),
// bucket ids as the model has them (0, 1, 2... for buckets without one), bucket
// properties weight (select groups), then watch_port and watch_group when not
// ANY, command_bucket_id as the model has it,
// packet-out matches holding in_port alone. Fields the model has no place for
// (a flow stats entry's reason) are dropped when decoding.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/bytes.h"
#include "core/result.h"
#include "openflow/errors.h"
#include "openflow/message.h"

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
inline constexpr uint16_t kAsyncContStatusSlave = 14;     // OFPACPT_CONT_STATUS_SLAVE
inline constexpr uint16_t kAsyncContStatusMaster = 15;    // OFPACPT_CONT_STATUS_MASTER

// OXS fields (ofp_oxs_ofb_stat_fields).
enum class Oxs : uint8_t { kDuration = 0, kIdleTime = 1, kFlowCount = 3, kPacketCount = 4, kByteCount = 5 };

// The counters of one ofp_stats; `has` bit n = OXS field n present.
struct Stats {
  uint32_t duration_sec = 0, duration_nsec = 0;
  uint32_t idle_sec = 0, idle_nsec = 0;
  uint32_t flow_count = 0;
  uint64_t packet_count = 0, byte_count = 0;
  uint8_t has = 0;
  bool has_idle() const { return has & (1u << uint8_t(Oxs::kIdleTime)); }
};

// What a 1.5 message says that 1.4's wire has no place for, carried beside
// the translation between the wire and the model (decode_of15/encode_of15).
struct IdleTime {
  bool present = false;
  uint32_t sec = 0, nsec = 0;
};
struct Extras {
  std::vector<IdleTime> idle;  // OXS idle_time: of a flow-removed, or of each flow stats entry
  bool stats_only = false;     // the multipart is OFPMP_FLOW_STATS (17), not OFPMP_FLOW_DESC
  // Group-mod: its command (insert/remove bucket travel as modify at 1.4) and
  // command_bucket_id; bucket ids of the group-mod (one list) or of each group desc.
  uint16_t group_command = 0;
  uint32_t command_bucket_id = kBucketAll;
  std::vector<std::vector<std::optional<uint32_t>>> bucket_ids;
  // Set-async / get-async reply: the controller status masks, [0] slave (14), [1] master (15).
  std::array<std::optional<uint32_t>, 2> cont_status;
};

// 1.5 wire -> the 1.4 wire of the same message; `extras` (if given) gets what 1.4 cannot say.
Result<Bytes, OfError> to_of14_wire(ByteSpan wire, Extras* extras = nullptr);
// 1.4 wire (version 5) -> 1.5 wire, with `extras` (if given) put back.
Result<Bytes, OfError> to_of15_wire(ByteSpan wire, const Extras* extras = nullptr);

// ---- instructions.cpp: action and instruction lists (base = offset in the message) ----
Result<Bytes, OfError> instructions_to14(ByteSpan instrs, size_t base);
Bytes instructions_to15(ByteSpan instrs);
// An action list where a meter action is not allowed (packet-out, buckets,
// write-actions, apply-actions after its first) in 1.4's form: copy-field
// becomes the ONF extension's action 3200; a meter action is
// OFPBAC_UNSUPPORTED_ORDER. actions_to15 turns ONF copy-fields back.
Result<Bytes, OfError> actions_to14(ByteSpan actions, size_t base);
Bytes actions_to15(ByteSpan actions);

// ---- stats.cpp: ofp_stats and the messages that carry it ----
// Decodes the ofp_stats at `at`; `used` is its padded length.
Result<Stats, OfError> decode_stats(ByteSpan wire, size_t at, size_t& used);
// Writes `s` with the fields in `fields` (ascending), padded to 8.
void encode_stats(const Stats& s, std::initializer_list<Oxs> fields, ByteWriter& w);
Result<Bytes, OfError> flow_removed_to14(ByteSpan wire, Extras* extras);
Result<Bytes, OfError> flow_removed_to15(ByteSpan wire, const Extras* extras);
Result<Bytes, OfError> flow_desc_to14(ByteSpan wire, Extras* extras);
Result<Bytes, OfError> flow_desc_to15(ByteSpan wire, const Extras* extras);
// OFPMP_FLOW_STATS replies: 1.5's ofp_flow_stats entries (length, table_id,
// reason, priority, match, stats) to 1.4's flow stats entries and back.
Result<Bytes, OfError> flow_stats_to14(ByteSpan wire, Extras* extras);
Result<Bytes, OfError> flow_stats_to15(ByteSpan wire, const Extras* extras);
Result<Bytes, OfError> aggregate_to14(ByteSpan wire);
Result<Bytes, OfError> aggregate_to15(ByteSpan wire);

// ---- monitor.cpp: flow monitor replies (the full updates' instructions) ----
Result<Bytes, OfError> flow_monitor_reply_to14(ByteSpan wire);
Result<Bytes, OfError> flow_monitor_reply_to15(ByteSpan wire);

// ---- async.cpp: set-async and get-async reply (the controller status properties) ----
// In canonical form the two properties come last, slave then master.
Result<Bytes, OfError> async_to14(ByteSpan wire, Extras* extras);
Result<Bytes, OfError> async_to15(ByteSpan wire, const Extras* extras);

// ---- controller_status.cpp: OFPT_CONTROLLER_STATUS and OFPMP_CONTROLLER_STATUS ----
// Whether the 1.5 message (at least a header) is one of them; decoding it
// (the header's length is checked); encoding, nullopt when `msg` is not one.
bool is_controller_status(ByteSpan wire);
Result<Message, OfError> decode_controller_status(ByteSpan wire);
std::optional<Result<Bytes, OfError>> encode_controller_status(const Message& msg);

// ---- groups.cpp: group-mod and group desc ----
Result<Bytes, OfError> group_mod_to14(ByteSpan wire, Extras* extras);
Result<Bytes, OfError> group_mod_to15(ByteSpan wire, const Extras* extras);
Result<Bytes, OfError> group_desc_to14(ByteSpan wire, Extras* extras);
Result<Bytes, OfError> group_desc_to15(ByteSpan wire, const Extras* extras);

}  // namespace flowlab::of::of15
