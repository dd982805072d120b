// OpenFlow error types and codes (OF1.3 numbering), one enum class per type,
// each with a to-string used in logs and `flowlab ofctl` output.
//
// OfError is the error value of every decoder and of every switch-side check:
// it carries the OFPT_ERROR type/code to answer with, the byte offset where the
// problem was found (when decoding), and a message a user can act on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace flowlab::of {

enum class ErrorType : uint16_t {
  kHelloFailed = 0,
  kBadRequest = 1,
  kBadAction = 2,
  kBadInstruction = 3,
  kBadMatch = 4,
  kFlowModFailed = 5,
  kGroupModFailed = 6,
  kPortModFailed = 7,
  kTableModFailed = 8,
  kQueueOpFailed = 9,
  kSwitchConfigFailed = 10,
  kRoleRequestFailed = 11,
  kMeterModFailed = 12,
  kTableFeaturesFailed = 13,
  kBadProperty = 14,  // OF1.4
  kAsyncConfigFailed = 15,
  kFlowMonitorFailed = 16,
  kBundleFailed = 17,
  kExperimenter = 0xffff,
};

enum class HelloFailedCode : uint16_t { kIncompatible = 0, kEperm = 1 };
enum class BadRequestCode : uint16_t {
  kBadVersion = 0,
  kBadType = 1,
  kBadMultipart = 2,
  kBadExperimenter = 3,
  kBadExpType = 4,
  kEperm = 5,
  kBadLen = 6,
  kBufferEmpty = 7,
  kBufferUnknown = 8,
  kBadTableId = 9,
  kIsSlave = 10,
  kBadPort = 11,
  kBadPacket = 12,
  kMultipartBufferOverflow = 13,
};
enum class BadActionCode : uint16_t {
  kBadType = 0,
  kBadLen = 1,
  kBadExperimenter = 2,
  kBadExpType = 3,
  kBadOutPort = 4,
  kBadArgument = 5,
  kEperm = 6,
  kTooMany = 7,
  kBadQueue = 8,
  kBadOutGroup = 9,
  kMatchInconsistent = 10,
  kUnsupportedOrder = 11,
  kBadTag = 12,
  kBadSetType = 13,
  kBadSetLen = 14,
  kBadSetArgument = 15,
};
enum class BadInstructionCode : uint16_t {
  kUnknownInst = 0,
  kUnsupInst = 1,
  kBadTableId = 2,
  kUnsupMetadata = 3,
  kUnsupMetadataMask = 4,
  kBadExperimenter = 5,
  kBadExpType = 6,
  kBadLen = 7,
  kEperm = 8,
};
enum class BadMatchCode : uint16_t {
  kBadType = 0,
  kBadLen = 1,
  kBadTag = 2,
  kBadDlAddrMask = 3,
  kBadNwAddrMask = 4,
  kBadWildcards = 5,
  kBadField = 6,
  kBadValue = 7,
  kBadMask = 8,
  kBadPrereq = 9,
  kDupField = 10,
  kEperm = 11,
};
enum class FlowModFailedCode : uint16_t {
  kUnknown = 0,
  kTableFull = 1,
  kBadTableId = 2,
  kOverlap = 3,
  kEperm = 4,
  kBadTimeout = 5,
  kBadCommand = 6,
  kBadFlags = 7,
};
enum class GroupModFailedCode : uint16_t {
  kGroupExists = 0,
  kInvalidGroup = 1,
  kWeightUnsupported = 2,
  kOutOfGroups = 3,
  kOutOfBuckets = 4,
  kChainingUnsupported = 5,
  kWatchUnsupported = 6,
  kLoop = 7,
  kUnknownGroup = 8,
  kChainedGroup = 9,
  kBadType = 10,
  kBadCommand = 11,
  kBadBucket = 12,
  kBadWatch = 13,
  kEperm = 14,
  kUnknownBucket = 15,  // OF1.5
  kBucketExists = 16,   // OF1.5
};
enum class PortModFailedCode : uint16_t {
  kBadPort = 0,
  kBadHwAddr = 1,
  kBadConfig = 2,
  kBadAdvertise = 3,
  kEperm = 4
};
enum class TableModFailedCode : uint16_t { kBadTable = 0, kBadConfig = 1, kEperm = 2 };
enum class QueueOpFailedCode : uint16_t { kBadPort = 0, kBadQueue = 1, kEperm = 2 };
enum class SwitchConfigFailedCode : uint16_t { kBadFlags = 0, kBadLen = 1, kEperm = 2 };
enum class RoleRequestFailedCode : uint16_t { kStale = 0, kUnsup = 1, kBadRole = 2 };
enum class MeterModFailedCode : uint16_t {
  kUnknown = 0,
  kMeterExists = 1,
  kInvalidMeter = 2,
  kUnknownMeter = 3,
  kBadCommand = 4,
  kBadFlags = 5,
  kBadRate = 6,
  kBadBurst = 7,
  kBadBand = 8,
  kBadBandValue = 9,
  kOutOfMeters = 10,
  kOutOfBands = 11,
};
// OF1.4 OFPET_FLOW_MONITOR_FAILED.
enum class FlowMonitorFailedCode : uint16_t {
  kUnknown = 0,
  kMonitorExists = 1,
  kInvalidMonitor = 2,
  kUnknownMonitor = 3,
  kBadCommand = 4,
  kBadFlags = 5,
  kBadTableId = 6,
  kBadOut = 7,
};
enum class TableFeaturesFailedCode : uint16_t {
  kBadTable = 0,
  kBadMetadata = 1,
  kBadType = 2,
  kBadLen = 3,
  kBadArgument = 4,
  kEperm = 5,
  // OF1.5
  kBadCapa = 6,
  kBadMaxEnt = 7,
  kBadFeatures = 8,
  kBadCommand = 9,
  kTooMany = 10,
};

std::string_view to_string(ErrorType t);
// "OFPBRC_BAD_LEN" style name of a code within a type (OF1.3 numbering).
std::string error_code_name(ErrorType t, uint16_t code);

template <typename Code>
constexpr ErrorType error_type_of();
template <>
constexpr ErrorType error_type_of<HelloFailedCode>() {
  return ErrorType::kHelloFailed;
}
template <>
constexpr ErrorType error_type_of<BadRequestCode>() {
  return ErrorType::kBadRequest;
}
template <>
constexpr ErrorType error_type_of<BadActionCode>() {
  return ErrorType::kBadAction;
}
template <>
constexpr ErrorType error_type_of<BadInstructionCode>() {
  return ErrorType::kBadInstruction;
}
template <>
constexpr ErrorType error_type_of<BadMatchCode>() {
  return ErrorType::kBadMatch;
}
template <>
constexpr ErrorType error_type_of<FlowModFailedCode>() {
  return ErrorType::kFlowModFailed;
}
template <>
constexpr ErrorType error_type_of<GroupModFailedCode>() {
  return ErrorType::kGroupModFailed;
}
template <>
constexpr ErrorType error_type_of<PortModFailedCode>() {
  return ErrorType::kPortModFailed;
}
template <>
constexpr ErrorType error_type_of<TableModFailedCode>() {
  return ErrorType::kTableModFailed;
}
template <>
constexpr ErrorType error_type_of<QueueOpFailedCode>() {
  return ErrorType::kQueueOpFailed;
}
template <>
constexpr ErrorType error_type_of<SwitchConfigFailedCode>() {
  return ErrorType::kSwitchConfigFailed;
}
template <>
constexpr ErrorType error_type_of<RoleRequestFailedCode>() {
  return ErrorType::kRoleRequestFailed;
}
template <>
constexpr ErrorType error_type_of<MeterModFailedCode>() {
  return ErrorType::kMeterModFailed;
}
template <>
constexpr ErrorType error_type_of<FlowMonitorFailedCode>() {
  return ErrorType::kFlowMonitorFailed;
}
template <>
constexpr ErrorType error_type_of<TableFeaturesFailedCode>() {
  return ErrorType::kTableFeaturesFailed;
}

struct OfError {
  ErrorType type = ErrorType::kBadRequest;
  uint16_t code = 0;
  size_t offset = 0;    // byte offset in the message where decoding failed
  std::string message;  // human text, e.g. "flow_mod: match length 3 < 4"

  template <typename Code>
  static OfError make(Code c, std::string msg, size_t offset = 0) {
    return OfError{error_type_of<Code>(), static_cast<uint16_t>(c), offset, std::move(msg)};
  }
  // "OFPBMC_BAD_PREREQ at offset 24: tcp_dst needs ip_proto=6"
  std::string to_string() const;
};

// Map an OF1.3 (type, code) to the OF1.0 wire numbering (types/codes OF1.0 lacks
// become the nearest OF1.0 equivalent), and back.
void error_to_of10(ErrorType t, uint16_t code, uint16_t& wire_type, uint16_t& wire_code);
void error_from_of10(uint16_t wire_type, uint16_t wire_code, ErrorType& t, uint16_t& code);

}  // namespace flowlab::of
