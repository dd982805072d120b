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
// The parts messages are built of (actions, instructions, port descriptions,
// buckets, bands, table features) are in parts.h; multipart bodies in
// multipart.h.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "core/bytes.h"
#include "openflow/constants.h"
#include "openflow/multipart.h"
#include "openflow/oxm.h"
#include "openflow/parts.h"
#include "packet/addr.h"

namespace flowlab::of {

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
struct TableMod {
  uint8_t table_id = 0;
  uint32_t config = 0;
  std::optional<uint32_t> eviction_flags;  // OF1.4 property; absent at 1.3
  std::optional<TableVacancy> vacancy;     // OF1.4 property; absent at 1.3
  bool operator==(const TableMod&) const = default;
};

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
