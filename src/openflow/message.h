// The OpenFlow message model: one set of structs for OF1.0, OF1.3 and OF1.4.
//
// Numbering is OF1.3's (types, 32-bit ports, OXM matches, instructions). OF1.0
// messages decode into the same structs: an OF1.0 flow-mod's actions become one
// apply-actions instruction, its ofp_match becomes OXM fields, its 16-bit ports
// widen (0xfff8 -> 0xfffffff8), stats become multipart. Fields OF1.0 lacks keep
// their defaults. Each message carries its wire version and xid in `Message`.
// OF1.4 (openflow/of14/) maps onto the same structs: a flow-mod's importance,
// ports' ethernet property (PortDesc's ethernet fields), set-async properties
// (AsyncConfig, with the kinds 1.4 added), role and table status; the
// standard bundle messages become the ONF extension's experimenter messages
// (openflow/of13/bundle.h), so one bundle machine serves both versions.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "core/bytes.h"
#include "openflow/constants.h"
#include "openflow/oxm.h"
#include "packet/addr.h"

namespace flowlab::of {

// ---- actions and instructions -------------------------------------------------

// Copy-field (OpenFlow 1.5 OFPAT_COPY_FIELD, the ONF extension's action 3200 at
// 1.3/1.4): n_bits bits of the field whose OXM header is `src`, from bit
// src_offset (bit 0 is the value's least significant), into `dst` from bit
// dst_offset. The headers are OXM ids: class, field, no mask, the field's length.
struct CopyField {
  uint16_t n_bits = 0;
  uint16_t src_offset = 0;
  uint16_t dst_offset = 0;
  uint32_t src = 0;
  uint32_t dst = 0;
  bool operator==(const CopyField&) const = default;
};

// One action; which fields matter depends on `type` (builders below).
struct Action {
  ActionType type = ActionType::kOutput;
  uint32_t port = 0;          // output, enqueue
  uint16_t max_len = 0;       // output (bytes to the controller)
  uint16_t ethertype = 0;     // push_vlan/mpls/pbb, pop_mpls
  uint8_t ttl = 0;            // set_mpls_ttl, set_nw_ttl
  uint32_t queue_id = 0;      // set_queue, enqueue
  uint32_t group_id = 0;      // group
  OxmField field;             // set_field (OF1.0 set_dl_src etc. map here)
  uint32_t experimenter = 0;  // experimenter / OF1.0 vendor id
  Bytes data;                 // experimenter: bytes after the experimenter id, kept opaque
  CopyField copy;             // copy_field

  static Action output(uint32_t port, uint16_t max_len = 0) {
    Action a;
    a.type = ActionType::kOutput;
    a.port = port;
    a.max_len = max_len;
    return a;
  }
  static Action set_field(OxmField f) {
    Action a;
    a.type = ActionType::kSetField;
    a.field = std::move(f);
    return a;
  }
  static Action group(uint32_t id) {
    Action a;
    a.type = ActionType::kGroup;
    a.group_id = id;
    return a;
  }
  static Action push_vlan(uint16_t ethertype = 0x8100) {
    Action a;
    a.type = ActionType::kPushVlan;
    a.ethertype = ethertype;
    return a;
  }
  static Action pop_vlan() {
    Action a;
    a.type = ActionType::kPopVlan;
    return a;
  }
  static Action push_mpls(uint16_t ethertype = 0x8847) {
    Action a;
    a.type = ActionType::kPushMpls;
    a.ethertype = ethertype;
    return a;
  }
  static Action pop_mpls(uint16_t ethertype) {
    Action a;
    a.type = ActionType::kPopMpls;
    a.ethertype = ethertype;
    return a;
  }
  static Action set_queue(uint32_t q) {
    Action a;
    a.type = ActionType::kSetQueue;
    a.queue_id = q;
    return a;
  }
  static Action set_nw_ttl(uint8_t t) {
    Action a;
    a.type = ActionType::kSetNwTtl;
    a.ttl = t;
    return a;
  }
  static Action set_mpls_ttl(uint8_t t) {
    Action a;
    a.type = ActionType::kSetMplsTtl;
    a.ttl = t;
    return a;
  }
  static Action copy_field(CopyField c) {
    Action a;
    a.type = ActionType::kCopyField;
    a.copy = c;
    return a;
  }
  static Action simple(ActionType t) {
    Action a;
    a.type = t;
    return a;
  }

  bool operator==(const Action&) const = default;
};
using ActionList = std::vector<Action>;

struct Instruction {
  InstructionType type = InstructionType::kApplyActions;
  uint8_t table_id = 0;   // goto_table
  uint64_t metadata = 0;  // write_metadata
  uint64_t metadata_mask = 0;
  ActionList actions;         // write/apply actions
  uint32_t meter_id = 0;      // meter
  uint32_t experimenter = 0;  // experimenter
  Bytes data;

  static Instruction apply(ActionList a) {
    Instruction i;
    i.type = InstructionType::kApplyActions;
    i.actions = std::move(a);
    return i;
  }
  static Instruction write(ActionList a) {
    Instruction i;
    i.type = InstructionType::kWriteActions;
    i.actions = std::move(a);
    return i;
  }
  static Instruction clear() {
    Instruction i;
    i.type = InstructionType::kClearActions;
    return i;
  }
  static Instruction goto_table(uint8_t t) {
    Instruction i;
    i.type = InstructionType::kGotoTable;
    i.table_id = t;
    return i;
  }
  static Instruction write_metadata(uint64_t md, uint64_t mask) {
    Instruction i;
    i.type = InstructionType::kWriteMetadata;
    i.metadata = md;
    i.metadata_mask = mask;
    return i;
  }
  static Instruction meter(uint32_t id) {
    Instruction i;
    i.type = InstructionType::kMeter;
    i.meter_id = id;
    return i;
  }

  bool operator==(const Instruction&) const = default;
};
using InstructionList = std::vector<Instruction>;

// ---- common structures --------------------------------------------------------

struct PortDesc {
  uint32_t port_no = 0;
  MacAddr hw_addr;
  std::string name;
  uint32_t config = 0;
  uint32_t state = 0;
  uint32_t curr = 0, advertised = 0, supported = 0, peer = 0;
  uint32_t curr_speed = 0, max_speed = 0;  // kbps; OF1.3 only
  bool operator==(const PortDesc&) const = default;
};

struct Bucket {
  uint16_t weight = 0;
  uint32_t watch_port = port::kAny;
  uint32_t watch_group = group::kAny;
  ActionList actions;
  std::optional<uint32_t> bucket_id = std::nullopt;  // OF1.5; a switch numbers buckets without one
  bool operator==(const Bucket&) const = default;
};

struct MeterBand {
  MeterBandType type = MeterBandType::kDrop;
  uint32_t rate = 0;
  uint32_t burst_size = 0;
  uint8_t prec_level = 0;     // dscp_remark
  uint32_t experimenter = 0;  // experimenter band
  Bytes data;                 // experimenter band: bytes after the experimenter id
  bool operator==(const MeterBand&) const = default;
};

struct HelloElement {
  uint16_t type = static_cast<uint16_t>(HelloElemType::kVersionBitmap);
  std::vector<uint32_t> bitmaps;  // version bitmap element
  Bytes data;                     // other element types, kept opaque
  bool operator==(const HelloElement&) const = default;
};

struct QueueProperty {
  QueuePropType type = QueuePropType::kMinRate;
  uint16_t rate = 0;  // min/max rate, 1/10 of a percent
  uint32_t experimenter = 0;
  uint32_t exp_type = 0;  // OF1.4 queue desc's experimenter property only
  Bytes data;
  bool operator==(const QueueProperty&) const = default;
};
struct PacketQueue {
  uint32_t queue_id = 0;
  uint32_t port = 0;  // OF1.3 only
  std::vector<QueueProperty> properties;
  bool operator==(const PacketQueue&) const = default;
};

struct TableFeatureProp {
  TableFeaturePropType type = TableFeaturePropType::kInstructions;
  // Instructions / actions: the type numbers; next-tables: table ids; match,
  // wildcards, set-field: the 32-bit OXM headers.
  std::vector<uint32_t> ids;
  uint32_t experimenter = 0;  // experimenter properties
  uint32_t exp_type = 0;
  Bytes data;  // experimenter payload, or raw elements that are not plain ids
  bool operator==(const TableFeatureProp&) const = default;
};
struct TableFeatures {
  uint8_t table_id = 0;
  // OF1.5 (in 1.3/1.4's padding, zero there): the request's command
  // (table_features::kReplace..) and the table's features flags (kIngressTable..).
  uint8_t command = 0;
  uint32_t features = 0;
  std::string name;
  uint64_t metadata_match = 0, metadata_write = 0;
  uint32_t config = 0;
  uint32_t max_entries = 0;
  std::vector<TableFeatureProp> properties;
  bool operator==(const TableFeatures&) const = default;
};

// ---- messages -----------------------------------------------------------------

struct Hello {
  std::vector<HelloElement> elements;
  bool operator==(const Hello&) const = default;
};
struct ErrorMsg {
  uint16_t type = 0;  // wire numbering of the message's version (0xffff: experimenter)
  uint16_t code = 0;  // experimenter: exp_type
  uint32_t experimenter = 0;
  Bytes data;  // usually the start of the offending request
  bool operator==(const ErrorMsg&) const = default;
};
struct EchoRequest {
  Bytes data;
  bool operator==(const EchoRequest&) const = default;
};
struct EchoReply {
  Bytes data;
  bool operator==(const EchoReply&) const = default;
};
struct ExperimenterMsg {
  uint32_t experimenter = 0;
  uint32_t exp_type = 0;  // OF1.3 only (OF1.0 vendor messages: all in data)
  Bytes data;
  bool operator==(const ExperimenterMsg&) const = default;
};
struct FeaturesRequest {
  bool operator==(const FeaturesRequest&) const = default;
};
struct FeaturesReply {
  uint64_t datapath_id = 0;
  uint32_t n_buffers = 0;
  uint8_t n_tables = 0;
  uint8_t auxiliary_id = 0;  // OF1.3
  uint32_t capabilities = 0;
  uint32_t reserved = 0;        // OF1.3 reserved / OF1.0 supported actions bitmap
  std::vector<PortDesc> ports;  // OF1.0 only (OF1.3: port-desc multipart)
  bool operator==(const FeaturesReply&) const = default;
};
struct GetConfigRequest {
  bool operator==(const GetConfigRequest&) const = default;
};
struct SwitchConfig {
  uint16_t flags = 0;
  uint16_t miss_send_len = 128;
  bool operator==(const SwitchConfig&) const = default;
};
struct GetConfigReply : SwitchConfig {
  bool operator==(const GetConfigReply&) const = default;
};
struct SetConfig : SwitchConfig {
  bool operator==(const SetConfig&) const = default;
};
struct PacketIn {
  uint32_t buffer_id = kNoBuffer;
  uint16_t total_len = 0;
  uint8_t reason = 0;  // PacketInReason
  uint8_t table_id = 0;
  uint64_t cookie = 0;
  Match match;  // OF1.0: in_port becomes an in_port field
  Bytes data;
  bool operator==(const PacketIn&) const = default;
};
struct FlowRemoved {
  uint64_t cookie = 0;
  uint16_t priority = 0;
  uint8_t reason = 0;  // FlowRemovedReason
  uint8_t table_id = 0;
  uint32_t duration_sec = 0, duration_nsec = 0;
  uint16_t idle_timeout = 0, hard_timeout = 0;
  uint64_t packet_count = 0, byte_count = 0;
  Match match;
  // OF1.5's OXS idle_time (how long the flow had no packet); sent at 1.5 when set.
  bool has_idle_time = false;
  uint32_t idle_sec = 0, idle_nsec = 0;
  bool operator==(const FlowRemoved&) const = default;
};
struct PortStatus {
  uint8_t reason = 0;  // PortStatusReason
  PortDesc desc;
  bool operator==(const PortStatus&) const = default;
};
struct PacketOut {
  uint32_t buffer_id = kNoBuffer;
  uint32_t in_port = port::kController;
  ActionList actions;
  Bytes data;
  bool operator==(const PacketOut&) const = default;
};
struct FlowMod {
  uint64_t cookie = 0, cookie_mask = 0;
  uint8_t table_id = 0;
  FlowModCommand command = FlowModCommand::kAdd;
  uint16_t idle_timeout = 0, hard_timeout = 0;
  uint16_t priority = 0x8000;
  uint32_t buffer_id = kNoBuffer;
  uint32_t out_port = port::kAny;
  uint32_t out_group = group::kAny;
  uint16_t flags = 0;
  Match match;
  InstructionList instructions;  // OF1.0: one apply-actions instruction
  uint16_t importance = 0;       // OF1.4 (eviction); 0 in older versions
  bool operator==(const FlowMod&) const = default;
};
struct GroupMod {
  GroupModCommand command = GroupModCommand::kAdd;
  GroupType type = GroupType::kAll;
  uint32_t group_id = 0;
  std::vector<Bucket> buckets;
  // OF1.5 insert/remove bucket: where (bucket::kFirst, kLast, kAll or a bucket id).
  uint32_t command_bucket_id = bucket::kAll;
  bool operator==(const GroupMod&) const = default;
};
struct PortMod {
  uint32_t port_no = 0;
  MacAddr hw_addr;
  uint32_t config = 0, mask = 0, advertise = 0;
  bool operator==(const PortMod&) const = default;
};
// OF1.4 table configuration: the config bits (table_config::kEviction,
// kVacancyEvents) and the properties a table-mod may carry and a table
// description always does: the eviction flags (OFPTMPT_EVICTION) and the
// vacancy thresholds (OFPTMPT_VACANCY), in percent of the table's size.
struct TableVacancy {
  uint8_t down = 0, up = 0;
  uint8_t vacancy = 0;  // the free share now: table description and status only (0 in a table-mod)
  bool operator==(const TableVacancy&) const = default;
};
struct TableMod {
  uint8_t table_id = 0;
  uint32_t config = 0;
  std::optional<uint32_t> eviction_flags;  // OF1.4 property; absent at 1.3
  std::optional<TableVacancy> vacancy;     // OF1.4 property; absent at 1.3
  bool operator==(const TableMod&) const = default;
};

// Multipart (OF1.0: stats) request bodies.
struct DescRequest {
  bool operator==(const DescRequest&) const = default;
};
struct FlowStatsRequest {
  uint8_t table_id = table::kAll;
  uint32_t out_port = port::kAny;
  uint32_t out_group = group::kAny;
  uint64_t cookie = 0, cookie_mask = 0;
  Match match;
  bool stats_only = false;  // OF1.5 OFPMP_FLOW_STATS (17) rather than OFPMP_FLOW_DESC
  bool operator==(const FlowStatsRequest&) const = default;
};
struct AggregateStatsRequest : FlowStatsRequest {
  bool operator==(const AggregateStatsRequest&) const = default;
};
struct TableStatsRequest {
  bool operator==(const TableStatsRequest&) const = default;
};
struct PortStatsRequest {
  uint32_t port_no = port::kAny;
  bool operator==(const PortStatsRequest&) const = default;
};
struct QueueStatsRequest {
  uint32_t port_no = port::kAny;
  uint32_t queue_id = 0xffffffff;  // OFPQ_ALL
  bool operator==(const QueueStatsRequest&) const = default;
};
struct GroupStatsRequest {
  uint32_t group_id = group::kAll;
  bool operator==(const GroupStatsRequest&) const = default;
};
struct GroupDescRequest {
  bool operator==(const GroupDescRequest&) const = default;
};
struct GroupFeaturesRequest {
  bool operator==(const GroupFeaturesRequest&) const = default;
};
struct MeterStatsRequest {
  uint32_t meter_id = meter::kAll;
  bool operator==(const MeterStatsRequest&) const = default;
};
struct MeterConfigRequest {
  uint32_t meter_id = meter::kAll;
  bool operator==(const MeterConfigRequest&) const = default;
};
struct MeterFeaturesRequest {
  bool operator==(const MeterFeaturesRequest&) const = default;
};
struct TableFeaturesRequest {
  std::vector<TableFeatures> tables;
  bool operator==(const TableFeaturesRequest&) const = default;
};
struct PortDescRequest {
  bool operator==(const PortDescRequest&) const = default;
};
struct TableDescRequest {  // OF1.4
  bool operator==(const TableDescRequest&) const = default;
};
// OF1.4 queue description (OFPMP_QUEUE_DESC, 15): one port's queues (or every
// port's: OFPP_ANY), one queue or all (OFPQ_ALL).
struct QueueDescRequest {
  uint32_t port_no = port::kAny;
  uint32_t queue_id = 0xffffffff;  // OFPQ_ALL
  bool operator==(const QueueDescRequest&) const = default;
};
// OF1.4 flow monitoring (OFPMP_FLOW_MONITOR, 16): a request adds, changes or
// deletes one monitor of the connection; the replies carry flow updates, the
// request's xid for the INITIAL ones, the sender's own for later ones.
namespace flow_monitor {
// ofp_flow_monitor_flags
inline constexpr uint16_t kInitial = 1 << 0;       // the flows that match now
inline constexpr uint16_t kAdd = 1 << 1;           // new matching flows
inline constexpr uint16_t kRemoved = 1 << 2;       // matching flows removed
inline constexpr uint16_t kModify = 1 << 3;        // matching flows changed
inline constexpr uint16_t kInstructions = 1 << 4;  // updates carry instructions
inline constexpr uint16_t kNoAbbrev = 1 << 5;      // own changes in full, not ABBREV
inline constexpr uint16_t kOnlyOwn = 1 << 6;       // only this connection's changes
inline constexpr uint16_t kAllFlags = 0x7f;
}  // namespace flow_monitor
enum class FlowMonitorCommand : uint8_t { kAdd = 0, kModify = 1, kDelete = 2 };
struct FlowMonitorRequest {
  uint32_t monitor_id = 0;
  uint32_t out_port = port::kAny;
  uint32_t out_group = group::kAny;
  uint16_t flags = 0;  // flow_monitor::k*
  uint8_t table_id = table::kAll;
  FlowMonitorCommand command = FlowMonitorCommand::kAdd;
  Match match;
  bool operator==(const FlowMonitorRequest&) const = default;
};
// ofp_flow_update_event
enum class FlowUpdateEvent : uint16_t {
  kInitial = 0,
  kAdded = 1,
  kRemoved = 2,
  kModified = 3,
  kAbbrev = 4,
  kPaused = 5,
  kResumed = 6,
};
// One update: ofp_flow_update_full (INITIAL .. MODIFIED), _abbrev (ABBREV:
// only `xid`, the request of this connection that made the change) or
// _paused (PAUSED, RESUMED: no fields).
struct FlowUpdate {
  FlowUpdateEvent event = FlowUpdateEvent::kAdded;
  uint8_t table_id = 0;
  uint8_t reason = 0;  // FlowRemovedReason, REMOVED only
  uint16_t idle_timeout = 0, hard_timeout = 0;
  uint16_t priority = 0;
  uint64_t cookie = 0;
  Match match;
  InstructionList instructions;  // empty without OFPFMF_INSTRUCTIONS
  uint32_t xid = 0;              // ABBREV
  bool operator==(const FlowUpdate&) const = default;
};
struct FlowMonitorReply {
  std::vector<FlowUpdate> updates;
  bool operator==(const FlowMonitorReply&) const = default;
};

// OpenFlow 1.5 controller status (ofp_controller_status): one controller
// connection of the switch, in OFPMP_CONTROLLER_STATUS replies (reason
// OFPCSR_REQUEST) and in OFPT_CONTROLLER_STATUS when a connection changes.
enum class ControllerStatusReason : uint8_t {
  kRequest = 0,
  kChannelStatus = 1,
  kRole = 2,
  kControllerAdded = 3,
  kControllerRemoved = 4,
  kShortId = 5,
  kExperimenter = 6,
};
enum class ChannelStatus : uint8_t { kUp = 0, kDown = 1 };
struct ControllerStatusEntry {
  uint16_t short_id = 0;
  ControllerRole role = ControllerRole::kEqual;
  ControllerStatusReason reason = ControllerStatusReason::kRequest;
  ChannelStatus channel_status = ChannelStatus::kUp;
  std::optional<std::string> uri;  // OFPCSPT_URI (first when encoded)
  Bytes other_properties;          // the other property TLVs (experimenter), padded, as they came
  bool operator==(const ControllerStatusEntry&) const = default;
};
struct ControllerStatusRequest {
  bool operator==(const ControllerStatusRequest&) const = default;
};
struct ControllerStatusReply {
  std::vector<ControllerStatusEntry> controllers;
  bool operator==(const ControllerStatusReply&) const = default;
};

struct ExperimenterMultipart {
  uint32_t experimenter = 0;
  uint32_t exp_type = 0;
  Bytes data;
  bool operator==(const ExperimenterMultipart&) const = default;
};

// Multipart reply bodies.
struct DescReply {
  std::string mfr_desc, hw_desc, sw_desc, serial_num, dp_desc;
  bool operator==(const DescReply&) const = default;
};
struct FlowStats {
  uint8_t table_id = 0;
  uint32_t duration_sec = 0, duration_nsec = 0;
  uint16_t priority = 0;
  uint16_t idle_timeout = 0, hard_timeout = 0;
  uint16_t flags = 0;
  uint64_t cookie = 0;
  uint64_t packet_count = 0, byte_count = 0;
  Match match;
  InstructionList instructions;
  uint16_t importance = 0;  // OF1.4
  // OF1.5's OXS idle_time (how long the flow had no packet); sent at 1.5 when set.
  bool has_idle_time = false;
  uint32_t idle_sec = 0, idle_nsec = 0;
  bool operator==(const FlowStats&) const = default;
};
struct FlowStatsReply {
  std::vector<FlowStats> stats;
  // OF1.5: the reply to OFPMP_FLOW_STATS (17): entries with the counters and
  // match only (no cookie, timeouts, flags or instructions); else OFPMP_FLOW_DESC.
  bool stats_only = false;
  bool operator==(const FlowStatsReply&) const = default;
};
struct AggregateStatsReply {
  uint64_t packet_count = 0, byte_count = 0;
  uint32_t flow_count = 0;
  bool operator==(const AggregateStatsReply&) const = default;
};
struct TableStats {
  uint8_t table_id = 0;
  uint32_t active_count = 0;
  uint64_t lookup_count = 0, matched_count = 0;
  // OF1.0 only:
  std::string name;
  uint32_t wildcards = 0, max_entries = 0;
  bool operator==(const TableStats&) const = default;
};
struct TableStatsReply {
  std::vector<TableStats> stats;
  bool operator==(const TableStatsReply&) const = default;
};
struct PortStats {
  uint32_t port_no = 0;
  uint64_t rx_packets = 0, tx_packets = 0, rx_bytes = 0, tx_bytes = 0;
  uint64_t rx_dropped = 0, tx_dropped = 0, rx_errors = 0, tx_errors = 0;
  uint64_t rx_frame_err = 0, rx_over_err = 0, rx_crc_err = 0, collisions = 0;
  uint32_t duration_sec = 0, duration_nsec = 0;  // OF1.3
  bool operator==(const PortStats&) const = default;
};
struct PortStatsReply {
  std::vector<PortStats> stats;
  bool operator==(const PortStatsReply&) const = default;
};
struct QueueStats {
  uint32_t port_no = 0, queue_id = 0;
  uint64_t tx_bytes = 0, tx_packets = 0, tx_errors = 0;
  uint32_t duration_sec = 0, duration_nsec = 0;  // OF1.3
  bool operator==(const QueueStats&) const = default;
};
struct QueueStatsReply {
  std::vector<QueueStats> stats;
  bool operator==(const QueueStatsReply&) const = default;
};
// One ofp_queue_desc (OF1.4): min-rate, max-rate, experimenter properties.
struct QueueDesc {
  uint32_t port_no = 0, queue_id = 0;
  std::vector<QueueProperty> properties;
  bool operator==(const QueueDesc&) const = default;
};
struct QueueDescReply {
  std::vector<QueueDesc> queues;
  bool operator==(const QueueDescReply&) const = default;
};
struct BucketCounter {
  uint64_t packet_count = 0, byte_count = 0;
  bool operator==(const BucketCounter&) const = default;
};
struct GroupStats {
  uint32_t group_id = 0;
  uint32_t ref_count = 0;
  uint64_t packet_count = 0, byte_count = 0;
  uint32_t duration_sec = 0, duration_nsec = 0;
  std::vector<BucketCounter> buckets;
  bool operator==(const GroupStats&) const = default;
};
struct GroupStatsReply {
  std::vector<GroupStats> stats;
  bool operator==(const GroupStatsReply&) const = default;
};
struct GroupDesc {
  GroupType type = GroupType::kAll;
  uint32_t group_id = 0;
  std::vector<Bucket> buckets;
  bool operator==(const GroupDesc&) const = default;
};
struct GroupDescReply {
  std::vector<GroupDesc> groups;
  bool operator==(const GroupDescReply&) const = default;
};
struct GroupFeaturesReply {
  uint32_t types = 0, capabilities = 0;
  std::array<uint32_t, 4> max_groups{};
  std::array<uint32_t, 4> actions{};
  bool operator==(const GroupFeaturesReply&) const = default;
};
struct MeterBandStats {
  uint64_t packet_band_count = 0, byte_band_count = 0;
  bool operator==(const MeterBandStats&) const = default;
};
struct MeterStats {
  uint32_t meter_id = 0;
  uint32_t flow_count = 0;
  uint64_t packet_in_count = 0, byte_in_count = 0;
  uint32_t duration_sec = 0, duration_nsec = 0;
  std::vector<MeterBandStats> bands;
  bool operator==(const MeterStats&) const = default;
};
struct MeterStatsReply {
  std::vector<MeterStats> stats;
  bool operator==(const MeterStatsReply&) const = default;
};
struct MeterConfig {
  uint16_t flags = 0;
  uint32_t meter_id = 0;
  std::vector<MeterBand> bands;
  bool operator==(const MeterConfig&) const = default;
};
struct MeterConfigReply {
  std::vector<MeterConfig> configs;
  bool operator==(const MeterConfigReply&) const = default;
};
struct MeterFeaturesReply {
  uint32_t max_meter = 0, band_types = 0, capabilities = 0;
  uint8_t max_bands = 0, max_color = 0;
  bool operator==(const MeterFeaturesReply&) const = default;
};
struct TableFeaturesReply {
  std::vector<TableFeatures> tables;
  bool operator==(const TableFeaturesReply&) const = default;
};
struct PortDescReply {
  std::vector<PortDesc> ports;
  bool operator==(const PortDescReply&) const = default;
};
// OF1.4 ofp_table_desc: a table's config and its properties.
struct TableDesc {
  uint8_t table_id = 0;
  uint32_t config = 0;
  std::optional<uint32_t> eviction_flags;
  std::optional<TableVacancy> vacancy;
  bool operator==(const TableDesc&) const = default;
};
struct TableDescReply {
  std::vector<TableDesc> tables;
  bool operator==(const TableDescReply&) const = default;
};

using MultipartRequestBody =
    std::variant<DescRequest, FlowStatsRequest, AggregateStatsRequest, TableStatsRequest, PortStatsRequest,
                 QueueStatsRequest, GroupStatsRequest, GroupDescRequest, GroupFeaturesRequest,
                 MeterStatsRequest, MeterConfigRequest, MeterFeaturesRequest, TableFeaturesRequest,
                 PortDescRequest, TableDescRequest, QueueDescRequest, FlowMonitorRequest,
                 ControllerStatusRequest, ExperimenterMultipart>;
using MultipartReplyBody =
    std::variant<DescReply, FlowStatsReply, AggregateStatsReply, TableStatsReply, PortStatsReply,
                 QueueStatsReply, GroupStatsReply, GroupDescReply, GroupFeaturesReply, MeterStatsReply,
                 MeterConfigReply, MeterFeaturesReply, TableFeaturesReply, PortDescReply, TableDescReply,
                 QueueDescReply, FlowMonitorReply, ControllerStatusReply, ExperimenterMultipart>;

struct MultipartRequest {
  uint16_t flags = 0;
  MultipartRequestBody body;
  bool operator==(const MultipartRequest&) const = default;
};
struct MultipartReply {
  uint16_t flags = 0;
  MultipartReplyBody body;
  bool operator==(const MultipartReply&) const = default;
};
MultipartType multipart_type(const MultipartRequestBody& b);
MultipartType multipart_type(const MultipartReplyBody& b);

struct BarrierRequest {
  bool operator==(const BarrierRequest&) const = default;
};
struct BarrierReply {
  bool operator==(const BarrierReply&) const = default;
};
struct QueueGetConfigRequest {
  uint32_t port = port::kAny;
  bool operator==(const QueueGetConfigRequest&) const = default;
};
struct QueueGetConfigReply {
  uint32_t port = 0;
  std::vector<PacketQueue> queues;
  bool operator==(const QueueGetConfigReply&) const = default;
};
struct Role {
  ControllerRole role = ControllerRole::kNoChange;
  uint64_t generation_id = 0;
  bool operator==(const Role&) const = default;
};
struct RoleRequest : Role {
  bool operator==(const RoleRequest&) const = default;
};
struct RoleReply : Role {
  bool operator==(const RoleReply&) const = default;
};
struct AsyncConfig {
  // [0] = master/equal, [1] = slave
  std::array<uint32_t, 2> packet_in_mask{}, port_status_mask{}, flow_removed_mask{};
  // OF1.4 only: role status, table status, request forward.
  std::array<uint32_t, 2> role_status_mask{}, table_status_mask{}, requestforward_mask{};
  // OF1.5 only: controller status (bit n: ControllerStatusReason n), the
  // properties OFPACPT_CONT_STATUS_SLAVE / MASTER (14 / 15).
  std::array<uint32_t, 2> controller_status_mask{};
  // OF1.4 set-async carries properties: bit n set = property type n is present
  // (type n: kind n/2, slave when n is even; 12 and 13, 1.5's flow stats, are
  // never present); the others stay as they were. OF1.3 set-async and every
  // get-async reply: all of 1.4's present (a 1.5 reply adds 14 and 15).
  uint16_t present = 0xfff;
  bool operator==(const AsyncConfig&) const = default;
};
struct GetAsyncRequest {
  bool operator==(const GetAsyncRequest&) const = default;
};
struct GetAsyncReply : AsyncConfig {
  bool operator==(const GetAsyncReply&) const = default;
};
struct SetAsync : AsyncConfig {
  bool operator==(const SetAsync&) const = default;
};
struct MeterMod {
  MeterModCommand command = MeterModCommand::kAdd;
  uint16_t flags = 0;
  uint32_t meter_id = 0;
  std::vector<MeterBand> bands;
  bool operator==(const MeterMod&) const = default;
};

// OF1.4 asynchronous messages.
enum class RoleStatusReason : uint8_t { kMasterRequest = 0, kConfig = 1, kExperimenter = 2 };
struct RoleStatus {
  ControllerRole role = ControllerRole::kEqual;
  RoleStatusReason reason = RoleStatusReason::kMasterRequest;
  uint64_t generation_id = 0;
  Bytes properties;  // raw TLVs
  bool operator==(const RoleStatus&) const = default;
};
enum class TableStatusReason : uint8_t { kVacancyDown = 3, kVacancyUp = 4 };
struct TableStatus {
  TableStatusReason reason = TableStatusReason::kVacancyDown;
  uint8_t table_id = 0;
  uint32_t config = 0;
  Bytes properties;  // eviction / vacancy TLVs of the ofp_table_desc
  bool operator==(const TableStatus&) const = default;
};
// OFPT_REQUESTFORWARD: a group-mod or meter-mod another controller sent, as a
// whole OpenFlow 1.4 message (header included) the switch applied.
enum class RequestForwardReason : uint8_t { kGroupMod = 0, kMeterMod = 1 };
struct RequestForward {
  Bytes request;
  bool operator==(const RequestForward&) const = default;
};

// OFPT_CONTROLLER_STATUS (OF1.5): a controller connection of the switch changed.
struct ControllerStatus {
  ControllerStatusEntry status;
  bool operator==(const ControllerStatus&) const = default;
};

// Alternatives are in MsgType order up to kRequestForward, then
// ControllerStatus (35); Message::type() relies on it.
using MessageBody =
    std::variant<Hello, ErrorMsg, EchoRequest, EchoReply, ExperimenterMsg, FeaturesRequest, FeaturesReply,
                 GetConfigRequest, GetConfigReply, SetConfig, PacketIn, FlowRemoved, PortStatus, PacketOut,
                 FlowMod, GroupMod, PortMod, TableMod, MultipartRequest, MultipartReply, BarrierRequest,
                 BarrierReply, QueueGetConfigRequest, QueueGetConfigReply, RoleRequest, RoleReply,
                 GetAsyncRequest, GetAsyncReply, SetAsync, MeterMod, RoleStatus, TableStatus, RequestForward,
                 ControllerStatus>;

struct Message {
  uint8_t version = kOf13;
  uint32_t xid = 0;
  MessageBody body;

  MsgType type() const {
    return body.index() == kControllerStatusIndex ? MsgType::kControllerStatus
                                                  : static_cast<MsgType>(body.index());
  }
  static constexpr size_t kControllerStatusIndex = size_t(MsgType::kRequestForward) + 1;
  template <typename T>
  bool is() const {
    return std::holds_alternative<T>(body);
  }
  template <typename T>
  T& as() {
    return std::get<T>(body);
  }
  template <typename T>
  const T& as() const {
    return std::get<T>(body);
  }
  bool operator==(const Message&) const = default;
};

template <typename T>
Message make_message(uint8_t version, uint32_t xid, T body) {
  return Message{version, xid, MessageBody(std::move(body))};
}

}  // namespace flowlab::of
