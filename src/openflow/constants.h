// OpenFlow constants shared by the model and both codecs.
//
// The in-memory model uses OpenFlow 1.3 numbering throughout (message types,
// 32-bit port numbers, OXM fields, action and instruction types). The OF1.0
// codec translates to and from its own numbering at the edge.
#pragma once

#include <cstdint>
#include <string_view>

namespace flowlab::of {

inline constexpr uint8_t kOf10 = 0x01;
inline constexpr uint8_t kOf13 = 0x04;
inline constexpr uint8_t kOf14 = 0x05;
inline constexpr uint8_t kOf15 = 0x06;
inline constexpr size_t kHeaderLen = 8;
inline constexpr size_t kMaxMessageLen = 65535;

// Message types, OF1.3 numbering.
enum class MsgType : uint8_t {
  kHello = 0,
  kError = 1,
  kEchoRequest = 2,
  kEchoReply = 3,
  kExperimenter = 4,
  kFeaturesRequest = 5,
  kFeaturesReply = 6,
  kGetConfigRequest = 7,
  kGetConfigReply = 8,
  kSetConfig = 9,
  kPacketIn = 10,
  kFlowRemoved = 11,
  kPortStatus = 12,
  kPacketOut = 13,
  kFlowMod = 14,
  kGroupMod = 15,
  kPortMod = 16,
  kTableMod = 17,
  kMultipartRequest = 18,
  kMultipartReply = 19,
  kBarrierRequest = 20,
  kBarrierReply = 21,
  kQueueGetConfigRequest = 22,
  kQueueGetConfigReply = 23,
  kRoleRequest = 24,
  kRoleReply = 25,
  kGetAsyncRequest = 26,
  kGetAsyncReply = 27,
  kSetAsync = 28,
  kMeterMod = 29,
  kRoleStatus = 30,      // OF1.4
  kTableStatus = 31,     // OF1.4
  kRequestForward = 32,  // OF1.4
  // 33 and 34 (OFPT_BUNDLE_*) are the ONF experimenter messages in the model.
  kControllerStatus = 35,  // OF1.5
};
std::string_view to_string(MsgType t);

// Reserved port numbers (32-bit, OF1.3). OF1.0 uses the low 16 bits (0xff00..).
namespace port {
inline constexpr uint32_t kMax = 0xffffff00;
inline constexpr uint32_t kUnset = 0xfffffff7;  // OF1.5: actset_output when the action set has no output
inline constexpr uint32_t kInPort = 0xfffffff8;
inline constexpr uint32_t kTable = 0xfffffff9;
inline constexpr uint32_t kNormal = 0xfffffffa;
inline constexpr uint32_t kFlood = 0xfffffffb;
inline constexpr uint32_t kAll = 0xfffffffc;
inline constexpr uint32_t kController = 0xfffffffd;
inline constexpr uint32_t kLocal = 0xfffffffe;
inline constexpr uint32_t kAny = 0xffffffff;  // OF1.0: OFPP_NONE
}  // namespace port

inline constexpr uint32_t kNoBuffer = 0xffffffff;
inline constexpr uint16_t kControllerMaxLenNoBuffer = 0xffff;

namespace group {
inline constexpr uint32_t kMax = 0xffffff00;
inline constexpr uint32_t kAll = 0xfffffffc;
inline constexpr uint32_t kAny = 0xffffffff;
}  // namespace group

// OF1.5 bucket ids (ofp_group_bucket) and command_bucket_id's reserved values.
namespace bucket {
inline constexpr uint32_t kMax = 0xffffff00;
inline constexpr uint32_t kFirst = 0xfffffffd;
inline constexpr uint32_t kLast = 0xfffffffe;
inline constexpr uint32_t kAll = 0xffffffff;
}  // namespace bucket

namespace table {
inline constexpr uint8_t kMax = 0xfe;
inline constexpr uint8_t kAll = 0xff;
}  // namespace table

// OF1.4 ofp_table_config bits and ofp_table_mod_prop_eviction_flag.
namespace table_config {
inline constexpr uint32_t kDeprecatedMask = 3;
inline constexpr uint32_t kEviction = 4;
inline constexpr uint32_t kVacancyEvents = 8;
}  // namespace table_config
// OF1.5 ofp_table_features: `features` flags and the request's `command`.
namespace table_features {
inline constexpr uint32_t kIngressTable = 1u << 0;  // OFPTFF_INGRESS_TABLE
inline constexpr uint32_t kEgressTable = 1u << 1;   // OFPTFF_EGRESS_TABLE
inline constexpr uint32_t kFirstEgress = 1u << 4;   // OFPTFF_FIRST_EGRESS
inline constexpr uint8_t kReplace = 0;              // OFPTFC_REPLACE
inline constexpr uint8_t kModify = 1;               // OFPTFC_MODIFY
inline constexpr uint8_t kEnable = 2;               // OFPTFC_ENABLE
inline constexpr uint8_t kDisable = 3;              // OFPTFC_DISABLE
}  // namespace table_features
namespace eviction_flag {
inline constexpr uint32_t kOther = 1;
inline constexpr uint32_t kImportance = 2;
inline constexpr uint32_t kLifetime = 4;
}  // namespace eviction_flag

namespace meter {
inline constexpr uint32_t kMax = 0xffff0000;
inline constexpr uint32_t kSlowpath = 0xfffffffd;
inline constexpr uint32_t kController = 0xfffffffe;
inline constexpr uint32_t kAll = 0xffffffff;
}  // namespace meter

enum class FlowModCommand : uint8_t {
  kAdd = 0,
  kModify = 1,
  kModifyStrict = 2,
  kDelete = 3,
  kDeleteStrict = 4
};
namespace flow_mod_flags {
inline constexpr uint16_t kSendFlowRem = 1 << 0;
inline constexpr uint16_t kCheckOverlap = 1 << 1;
inline constexpr uint16_t kResetCounts = 1 << 2;  // OF1.0: EMERG
inline constexpr uint16_t kNoPktCounts = 1 << 3;
inline constexpr uint16_t kNoBytCounts = 1 << 4;
}  // namespace flow_mod_flags

enum class PacketInReason : uint8_t { kNoMatch = 0, kAction = 1, kInvalidTtl = 2 };
enum class FlowRemovedReason : uint8_t {
  kIdleTimeout = 0,
  kHardTimeout = 1,
  kDelete = 2,
  kGroupDelete = 3,
  kEviction = 4,  // OF1.4
};
enum class PortStatusReason : uint8_t { kAdd = 0, kDelete = 1, kModify = 2 };

namespace port_config {
inline constexpr uint32_t kPortDown = 1 << 0;
inline constexpr uint32_t kNoRecv = 1 << 2;
inline constexpr uint32_t kNoFwd = 1 << 5;
inline constexpr uint32_t kNoPacketIn = 1 << 6;
}  // namespace port_config
namespace port_state {
inline constexpr uint32_t kLinkDown = 1 << 0;
inline constexpr uint32_t kBlocked = 1 << 1;
inline constexpr uint32_t kLive = 1 << 2;
}  // namespace port_state
namespace port_features {
inline constexpr uint32_t k10GbFd = 1 << 6;
inline constexpr uint32_t kCopper = 1 << 11;
}  // namespace port_features

namespace capabilities {
inline constexpr uint32_t kFlowStats = 1 << 0;
inline constexpr uint32_t kTableStats = 1 << 1;
inline constexpr uint32_t kPortStats = 1 << 2;
inline constexpr uint32_t kGroupStats = 1 << 3;
inline constexpr uint32_t kIpReasm = 1 << 5;
inline constexpr uint32_t kQueueStats = 1 << 6;
inline constexpr uint32_t kPortBlocked = 1 << 8;
}  // namespace capabilities

namespace config_flags {
inline constexpr uint16_t kFragNormal = 0;
inline constexpr uint16_t kFragDrop = 1;
inline constexpr uint16_t kFragReasm = 2;
inline constexpr uint16_t kFragMask = 3;
}  // namespace config_flags

// kInsertBucket and kRemoveBucket are OpenFlow 1.5's (only its codec makes them).
enum class GroupModCommand : uint16_t {
  kAdd = 0,
  kModify = 1,
  kDelete = 2,
  kInsertBucket = 3,
  kRemoveBucket = 5
};
enum class GroupType : uint8_t { kAll = 0, kSelect = 1, kIndirect = 2, kFastFailover = 3 };
enum class MeterModCommand : uint16_t { kAdd = 0, kModify = 1, kDelete = 2 };
namespace meter_flags {
inline constexpr uint16_t kKbps = 1 << 0;
inline constexpr uint16_t kPktps = 1 << 1;
inline constexpr uint16_t kBurst = 1 << 2;
inline constexpr uint16_t kStats = 1 << 3;
}  // namespace meter_flags
enum class MeterBandType : uint16_t { kDrop = 1, kDscpRemark = 2, kExperimenter = 0xffff };

enum class ControllerRole : uint32_t { kNoChange = 0, kEqual = 1, kMaster = 2, kSlave = 3 };

enum class MultipartType : uint16_t {
  kDesc = 0,
  kFlow = 1,
  kAggregate = 2,
  kTable = 3,
  kPortStats = 4,
  kQueue = 5,
  kGroup = 6,
  kGroupDesc = 7,
  kGroupFeatures = 8,
  kMeter = 9,
  kMeterConfig = 10,
  kMeterFeatures = 11,
  kTableFeatures = 12,
  kPortDesc = 13,
  kControllerStatus = 18,  // OF1.5
  kExperimenter = 0xffff,
};
inline constexpr uint16_t kMultipartMore = 1;

enum class ActionType : uint16_t {
  kOutput = 0,
  kCopyTtlOut = 11,
  kCopyTtlIn = 12,
  kSetMplsTtl = 15,
  kDecMplsTtl = 16,
  kPushVlan = 17,
  kPopVlan = 18,
  kPushMpls = 19,
  kPopMpls = 20,
  kSetQueue = 21,
  kGroup = 22,
  kSetNwTtl = 23,
  kDecNwTtl = 24,
  kSetField = 25,
  kPushPbb = 26,
  kPopPbb = 27,
  kCopyField = 28,    // OF1.5 OFPAT_COPY_FIELD; at 1.3/1.4 the ONF extension's action 3200
  kEnqueue = 0xfff0,  // model-only: OF1.0 OFPAT_ENQUEUE (port + queue)
  kExperimenter = 0xffff,
};
std::string_view to_string(ActionType t);

enum class InstructionType : uint16_t {
  kGotoTable = 1,
  kWriteMetadata = 2,
  kWriteActions = 3,
  kApplyActions = 4,
  kClearActions = 5,
  kMeter = 6,
  kExperimenter = 0xffff,
};
std::string_view to_string(InstructionType t);

enum class HelloElemType : uint16_t { kVersionBitmap = 1 };

enum class TableFeaturePropType : uint16_t {
  kInstructions = 0,
  kInstructionsMiss = 1,
  kNextTables = 2,
  kNextTablesMiss = 3,
  kWriteActions = 4,
  kWriteActionsMiss = 5,
  kApplyActions = 6,
  kApplyActionsMiss = 7,
  kMatch = 8,
  kWildcards = 10,
  kWriteSetfield = 12,
  kWriteSetfieldMiss = 13,
  kApplySetfield = 14,
  kApplySetfieldMiss = 15,
  kExperimenter = 0xfffe,
  kExperimenterMiss = 0xffff,
};

enum class QueuePropType : uint16_t { kMinRate = 1, kMaxRate = 2, kExperimenter = 0xffff };

}  // namespace flowlab::of
