// Multipart (OF1.0: stats) request and reply bodies, and the multipart
// request and reply messages that carry one of them (openflow/message.h).
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
#include "openflow/parts.h"

namespace flowlab::of {

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

}  // namespace flowlab::of
