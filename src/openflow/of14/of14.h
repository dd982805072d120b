// The OpenFlow 1.4 codec (wire version 5).
//
// Idea. Most of OpenFlow 1.4's wire is OpenFlow 1.3's with version 5 in the
// header (hello, echo, features, config, packet-in/out, flow-removed, group
// and meter mods, barrier, role request, most multiparts): those decode into
// the shared model (of::Message, version kOf14) through the OF1.3 codec. What
// 1.4 changed or added has its own structs:
//   - flow-mod and flow stats: 1.3's, with the two padding bytes 1.4 turned
//     into `importance` (eviction) beside them;
//   - ports with properties: ofp_port is 40 bytes plus TLVs, the ethernet
//     property (type 0, 32 bytes) carrying curr/advertised/supported/peer and
//     the speeds; port-status, port-desc replies and port-mod (ethernet
//     property: advertise) use it. Other properties (optical, experimenter)
//     are kept as raw TLV bytes.
//   - role status (30), table status (31) with their raw properties;
//   - set-async and get-async reply as a property list (type, mask), 1.4's
//     role/table status and request-forward masks included;
//   - the standard bundles: OFPT_BUNDLE_CONTROL (33) and
//     OFPT_BUNDLE_ADD_MESSAGE (34), whose bodies are the ONF OF1.3
//     extension's (of13/bundle.h structs, flags ATOMIC / ORDERED).
//   - port and queue stats replies: entries with a length and properties
//     (ports: the ethernet property with the error counters), stats.cpp.
//   - request forward (32): a group-mod or meter-mod inside, kept as bytes;
//   - table-mod with its eviction and vacancy properties, the table-desc
//     multipart (14) request and reply (table.cpp).
//   - flow monitoring (multipart 16): the request and the reply's flow
//     updates (full, abbreviated, paused/resumed), monitor.cpp; they are the
//     shared model's FlowMonitorRequest / FlowMonitorReply.
//   - queue description (multipart 15): the request (port_no, queue_id) and
//     the reply's ofp_queue_desc entries with their min-rate, max-rate and
//     experimenter properties (queue.cpp); the shared model's
//     QueueDescRequest / QueueDescReply.
// 1.4 multipart types past 16 are refused with an error that names them,
// never decoded the 1.3 way. bridge.cpp maps all of it onto the shared model (codec.h's
// decode_of14/encode_of14, what decode_message uses for version 5).
//
// Invariants. decode_of14 never reads past the message; a decoded message
// re-encodes to the same bytes when the input was canonical (zero padding,
// properties in the order this codec writes them: ethernet first).
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "core/bytes.h"
#include "core/result.h"
#include "openflow/errors.h"
#include "openflow/message.h"
#include "openflow/of13/bundle.h"

namespace flowlab::of::of14 {

enum class Type : uint8_t {
  kRoleStatus = 30,
  kTableStatus = 31,
  kRequestForward = 32,
  kBundleControl = 33,
  kBundleAddMessage = 34,
};

inline constexpr size_t kMultipartBodyOff = 16;  // header 8 + type, flags, pad

// The multipart types 1.4 added (MultipartType ends at 1.3's).
inline constexpr uint16_t kMultipartTableDesc = 14;
inline constexpr uint16_t kMultipartQueueDesc = 15;
inline constexpr uint16_t kMultipartFlowMonitor = 16;

// ofp_port_desc_prop_type, ofp_port_mod_prop_type
inline constexpr uint16_t kPortPropEthernet = 0;
inline constexpr uint16_t kPortPropOptical = 1;
// ofp_bad_property_code (error type OFPET_BAD_PROPERTY)
inline constexpr uint16_t kErrBadProperty = 14;
inline constexpr uint16_t kErrBundleFailed = 17;

// OFPT_FLOW_MOD: 1.3's body and its importance.
struct FlowMod {
  of::FlowMod mod;
  uint16_t importance = 0;
  bool operator==(const FlowMod&) const = default;
};

// OFPMP_FLOW reply: 1.3's entries, each with its importance.
struct FlowStatsReply {
  uint16_t flags = 0;
  std::vector<FlowStats> flows;
  std::vector<uint16_t> importance;  // one per entry of `flows`
  bool operator==(const FlowStatsReply&) const = default;
};

// An ofp_port of 1.4: the shared PortDesc (its ethernet fields filled from the
// ethernet property) and the properties that are not ethernet, raw.
struct Port {
  PortDesc desc;
  bool ethernet = true;  // carries the ethernet property
  Bytes other_props;     // optical / experimenter TLVs, as received
  bool operator==(const Port&) const = default;
};

struct PortStatus {
  uint8_t reason = 0;  // PortStatusReason
  Port port;
  bool operator==(const PortStatus&) const = default;
};

struct PortMod {
  of::PortMod mod;       // advertise from the ethernet property
  bool ethernet = true;  // carries the ethernet property
  Bytes other_props;     // optical / experimenter TLVs
  bool operator==(const PortMod&) const = default;
};

// OFPMP_PORT_DESC reply.
struct PortDescReply {
  uint16_t flags = 0;
  std::vector<Port> ports;
  bool operator==(const PortDescReply&) const = default;
};

// Role and table status are the shared model's (message.h).
using of::RoleStatus;
using of::RoleStatusReason;
using of::TableStatus;
using of::TableStatusReason;
// Request forward: the inner message must be a 1.4 group-mod or meter-mod
// whose length is the rest of the message.
using of::RequestForward;
using of::RequestForwardReason;

// OFPMP_PORT_STATS reply: 1.3's counters, rx_frame_err .. collisions in the
// ethernet property (the optical property, if a sender adds one, is dropped).
struct PortStatsReply {
  uint16_t flags = 0;
  std::vector<PortStats> stats;
  bool operator==(const PortStatsReply&) const = default;
};
// OFPMP_QUEUE_STATS reply: 1.3's entries with a length and properties (none kept).
struct QueueStatsReply {
  uint16_t flags = 0;
  std::vector<QueueStats> stats;
  bool operator==(const QueueStatsReply&) const = default;
};

// ofp_async_config_prop_type: an even type is the slave mask, odd the master.
enum class AsyncProp : uint16_t {
  kPacketInSlave = 0,
  kPacketInMaster = 1,
  kPortStatusSlave = 2,
  kPortStatusMaster = 3,
  kFlowRemovedSlave = 4,
  kFlowRemovedMaster = 5,
  kRoleStatusSlave = 6,
  kRoleStatusMaster = 7,
  kTableStatusSlave = 8,
  kTableStatusMaster = 9,
  kRequestForwardSlave = 10,
  kRequestForwardMaster = 11,
};
struct AsyncProperty {
  uint16_t type = 0;
  uint32_t mask = 0;
  bool operator==(const AsyncProperty&) const = default;
};
// OFPT_SET_ASYNC (28) or OFPT_GET_ASYNC_REPLY (27).
struct AsyncConfig {
  bool reply = false;  // GET_ASYNC_REPLY
  std::vector<AsyncProperty> props;
  bool operator==(const AsyncConfig&) const = default;
};
// The property list after the header of a set-async or get-async reply
// (async.cpp): a type past 11 is OFPET_BAD_PROPERTY / OFPBPC_BAD_TYPE, a
// length other than 8 OFPBPC_BAD_LEN.
Result<AsyncConfig, OfError> decode_async(ByteSpan body, bool reply);
// `base` with the properties of the three kinds OF1.3 has (packet-in, port
// status, flow removed) applied over it; the other kinds are not in the model.
of::AsyncConfig apply_async(const of::AsyncConfig& base, const AsyncConfig& props);

// Table-mod (17) with its properties (table.cpp): the shared model's, whose
// eviction_flags / vacancy are the OFPTMPT_EVICTION (2) / OFPTMPT_VACANCY (3)
// properties, each 8 bytes. OFPMP_TABLE_DESC (14) reply: ofp_table_desc
// entries (length, table_id, config, the same two properties, vacancy's
// third byte the current free share). A table status's properties are a
// table description's.
using of::TableDesc;
using of::TableMod;
using of::TableVacancy;
struct TableDescReply {
  uint16_t flags = 0;
  std::vector<TableDesc> tables;
  bool operator==(const TableDescReply&) const = default;
};

using Body = std::variant<of::Message, FlowMod, FlowStatsReply, PortStatus, PortMod, PortDescReply,
                          RoleStatus, TableStatus, AsyncConfig, BundleControl, BundleAdd, PortStatsReply,
                          QueueStatsReply, RequestForward, TableMod, TableDescReply>;

struct Message {
  uint32_t xid = 0;
  Body body;  // an of::Message here has version kOf14 and this xid
  bool operator==(const Message&) const = default;
};

Result<Message, OfError> decode_of14(ByteSpan wire);
Result<Bytes, OfError> encode_of14(const Message& msg);

// ---- the ports' wire (ports.cpp); the cursor-free helpers the codec uses ----
// Decodes one ofp_port at `at` in `wire`, its length from its own field;
// `consumed` is that length.
Result<Port, OfError> decode_port(ByteSpan wire, size_t at, size_t& consumed);
void encode_port(const Port& p, Bytes& out);
Result<PortMod, OfError> decode_port_mod(ByteSpan body, size_t at);
void encode_port_mod(const PortMod& p, Bytes& out);
// TLV properties (type, length >= 4, padded to 8): checks the list; what is
// wrong in `why`.
bool properties_ok(ByteSpan props, std::string& why);

// ---- table configuration (table.cpp) ----
// A whole table-mod message. Unknown config bits: OFPTMFC_BAD_CONFIG; a bad
// property: OFPET_BAD_PROPERTY with BAD_TYPE, BAD_LEN, BAD_VALUE (a
// threshold over 100 or down > up, unknown eviction flags), DUP_TYPE or
// BAD_EXPERIMENTER.
Result<TableMod, OfError> decode_table_mod(ByteSpan wire);
void encode_table_mod(const TableMod& tm, Bytes& out);  // the body after the header
// One ofp_table_desc at `at`; `consumed` is its length.
Result<TableDesc, OfError> decode_table_desc(ByteSpan wire, size_t at, size_t& consumed);
void encode_table_desc(const TableDesc& d, Bytes& out);
// A table description's properties alone: what a table status carries.
Bytes table_desc_properties(const TableDesc& d);

// ---- flow monitoring (monitor.cpp): whole multipart messages in, bodies after the 16-byte header out ----
// The request holds one ofp_flow_monitor_request; command and flags are kept
// as sent (the switch answers bad ones with OFPET_FLOW_MONITOR_FAILED).
Result<FlowMonitorRequest, OfError> decode_flow_monitor_request(ByteSpan wire);
void encode_flow_monitor_request(const FlowMonitorRequest& r, Bytes& out);
Result<FlowMonitorReply, OfError> decode_flow_monitor_reply(ByteSpan wire);
BasicStatus<OfError> encode_flow_monitor_reply(const FlowMonitorReply& r, Bytes& out);

// ---- queue description (queue.cpp): whole multipart messages in, bodies after the 16-byte header out ----
// A request's body is 8 bytes (else OFPBRC_BAD_LEN); a reply's property of a
// type that is not a queue's is OFPET_BAD_PROPERTY / OFPBPC_BAD_TYPE, a rate
// property that is not 8 bytes OFPBPC_BAD_LEN.
Result<QueueDescRequest, OfError> decode_queue_desc_request(ByteSpan wire);
void encode_queue_desc_request(const QueueDescRequest& r, Bytes& out);
Result<QueueDescReply, OfError> decode_queue_desc_reply(ByteSpan wire);
BasicStatus<OfError> encode_queue_desc_reply(const QueueDescReply& r, Bytes& out);

// ---- stats replies (stats.cpp): the multipart body after the 16-byte header ----
Result<PortStatsReply, OfError> decode_port_stats(ByteSpan wire, uint16_t flags);
void encode_port_stats(const PortStatsReply& r, Bytes& out);
Result<QueueStatsReply, OfError> decode_queue_stats(ByteSpan wire, uint16_t flags);
void encode_queue_stats(const QueueStatsReply& r, Bytes& out);

}  // namespace flowlab::of::of14
