// Translation of OFPT_ERROR type/code between the model's OF1.3 numbering and the
// OpenFlow 1.0 wire numbering.
//
// OF1.0 has six error types: 0 HELLO_FAILED, 1 BAD_REQUEST, 2 BAD_ACTION,
// 3 FLOW_MOD_FAILED, 4 PORT_MOD_FAILED, 5 QUEUE_OP_FAILED. Codes 0..8 of
// BAD_REQUEST and BAD_ACTION and all codes of HELLO_FAILED and QUEUE_OP_FAILED
// share their meaning and number with OF1.3. FLOW_MOD_FAILED is renumbered, and
// what OF1.0 lacks (match, instruction, group, meter, table, role errors) maps to
// the nearest OF1.0 error: a bad match or an unusable request becomes a
// BAD_REQUEST, a bad instruction a BAD_ACTION, a message kind OF1.0 does not have
// BAD_REQUEST/BAD_TYPE. The mapping back is exact where OF1.0 has the same error.
#include "openflow/errors.h"

namespace flowlab::of {
namespace {

// OF1.0 wire numbering.
enum : uint16_t {
  k10HelloFailed = 0,
  k10BadRequest = 1,
  k10BadAction = 2,
  k10FlowModFailed = 3,
  k10PortModFailed = 4,
  k10QueueOpFailed = 5,
};
enum : uint16_t {
  k10BrcBadVersion = 0,
  k10BrcBadType = 1,
  k10BrcBadStat = 2,
  k10BrcBadVendor = 3,
  k10BrcBadSubtype = 4,
  k10BrcEperm = 5,
  k10BrcBadLen = 6,
  k10BrcBufferEmpty = 7,
  k10BrcBufferUnknown = 8,
};
enum : uint16_t {
  k10BacBadType = 0,
  k10BacBadLen = 1,
  k10BacBadVendor = 2,
  k10BacBadVendorType = 3,
  k10BacBadOutPort = 4,
  k10BacBadArgument = 5,
  k10BacEperm = 6,
  k10BacTooMany = 7,
  k10BacBadQueue = 8,
};
enum : uint16_t {
  k10FmfAllTablesFull = 0,
  k10FmfOverlap = 1,
  k10FmfEperm = 2,
  k10FmfBadEmergTimeout = 3,
  k10FmfBadCommand = 4,
  k10FmfUnsupported = 5,
};
enum : uint16_t { k10PmfBadPort = 0, k10PmfBadHwAddr = 1 };

struct Wire {
  uint16_t type;
  uint16_t code;
};

Wire bad_request(uint16_t code) { return {k10BadRequest, code}; }
Wire bad_action(uint16_t code) { return {k10BadAction, code}; }

Wire map_bad_request(BadRequestCode c) {
  switch (c) {
    case BadRequestCode::kBadVersion:
      return bad_request(k10BrcBadVersion);
    case BadRequestCode::kBadType:
      return bad_request(k10BrcBadType);
    case BadRequestCode::kBadMultipart:
      return bad_request(k10BrcBadStat);
    case BadRequestCode::kBadExperimenter:
      return bad_request(k10BrcBadVendor);
    case BadRequestCode::kBadExpType:
      return bad_request(k10BrcBadSubtype);
    case BadRequestCode::kEperm:
      return bad_request(k10BrcEperm);
    case BadRequestCode::kBadLen:
      return bad_request(k10BrcBadLen);
    case BadRequestCode::kBufferEmpty:
      return bad_request(k10BrcBufferEmpty);
    case BadRequestCode::kBufferUnknown:
      return bad_request(k10BrcBufferUnknown);
    case BadRequestCode::kBadTableId:
      return bad_request(k10BrcBadStat);
    case BadRequestCode::kIsSlave:
    case BadRequestCode::kBadPort:
    case BadRequestCode::kBadPacket:
      return bad_request(k10BrcEperm);
    case BadRequestCode::kMultipartBufferOverflow:
      return bad_request(k10BrcBadStat);
  }
  return bad_request(k10BrcEperm);
}

Wire map_bad_action(BadActionCode c) {
  switch (c) {
    case BadActionCode::kBadType:
      return bad_action(k10BacBadType);
    case BadActionCode::kBadLen:
      return bad_action(k10BacBadLen);
    case BadActionCode::kBadExperimenter:
      return bad_action(k10BacBadVendor);
    case BadActionCode::kBadExpType:
      return bad_action(k10BacBadVendorType);
    case BadActionCode::kBadOutPort:
      return bad_action(k10BacBadOutPort);
    case BadActionCode::kBadArgument:
      return bad_action(k10BacBadArgument);
    case BadActionCode::kEperm:
      return bad_action(k10BacEperm);
    case BadActionCode::kTooMany:
      return bad_action(k10BacTooMany);
    case BadActionCode::kBadQueue:
      return bad_action(k10BacBadQueue);
    case BadActionCode::kBadOutGroup:
      return bad_action(k10BacBadOutPort);
    case BadActionCode::kMatchInconsistent:
      return bad_action(k10BacBadArgument);
    // OF1.0's FLOW_MOD_FAILED/UNSUPPORTED is exactly "cannot process actions in this order".
    case BadActionCode::kUnsupportedOrder:
      return {k10FlowModFailed, k10FmfUnsupported};
    case BadActionCode::kBadTag:
      return bad_action(k10BacBadArgument);
    case BadActionCode::kBadSetType:
      return bad_action(k10BacBadType);
    case BadActionCode::kBadSetLen:
      return bad_action(k10BacBadLen);
    case BadActionCode::kBadSetArgument:
      return bad_action(k10BacBadArgument);
  }
  return bad_action(k10BacBadArgument);
}

Wire map_bad_instruction(BadInstructionCode c) {
  switch (c) {
    case BadInstructionCode::kUnknownInst:
    case BadInstructionCode::kUnsupInst:
      return bad_action(k10BacBadType);
    case BadInstructionCode::kBadTableId:
    case BadInstructionCode::kUnsupMetadata:
    case BadInstructionCode::kUnsupMetadataMask:
      return bad_action(k10BacBadArgument);
    case BadInstructionCode::kBadExperimenter:
      return bad_action(k10BacBadVendor);
    case BadInstructionCode::kBadExpType:
      return bad_action(k10BacBadVendorType);
    case BadInstructionCode::kBadLen:
      return bad_action(k10BacBadLen);
    case BadInstructionCode::kEperm:
      return bad_action(k10BacEperm);
  }
  return bad_action(k10BacBadArgument);
}

// OF1.0 reports match problems as request errors: a bad length as BAD_LEN, the
// rest (bad field, value, mask, prerequisite...) as a refused request (EPERM).
Wire map_bad_match(BadMatchCode c) {
  if (c == BadMatchCode::kBadLen) return bad_request(k10BrcBadLen);
  return bad_request(k10BrcEperm);
}

Wire map_flow_mod_failed(FlowModFailedCode c) {
  switch (c) {
    case FlowModFailedCode::kUnknown:
      return {k10FlowModFailed, k10FmfEperm};
    case FlowModFailedCode::kTableFull:
      return {k10FlowModFailed, k10FmfAllTablesFull};
    case FlowModFailedCode::kBadTableId:
      return {k10FlowModFailed, k10FmfEperm};
    case FlowModFailedCode::kOverlap:
      return {k10FlowModFailed, k10FmfOverlap};
    case FlowModFailedCode::kEperm:
      return {k10FlowModFailed, k10FmfEperm};
    case FlowModFailedCode::kBadTimeout:
      return {k10FlowModFailed, k10FmfBadEmergTimeout};
    case FlowModFailedCode::kBadCommand:
      return {k10FlowModFailed, k10FmfBadCommand};
    case FlowModFailedCode::kBadFlags:
      return {k10FlowModFailed, k10FmfEperm};
  }
  return {k10FlowModFailed, k10FmfEperm};
}

Wire map_port_mod_failed(PortModFailedCode c) {
  switch (c) {
    case PortModFailedCode::kBadHwAddr:
      return {k10PortModFailed, k10PmfBadHwAddr};
    case PortModFailedCode::kBadPort:
    case PortModFailedCode::kBadConfig:
    case PortModFailedCode::kBadAdvertise:
      return {k10PortModFailed, k10PmfBadPort};
    case PortModFailedCode::kEperm:
      return bad_request(k10BrcEperm);
  }
  return {k10PortModFailed, k10PmfBadPort};
}

// Errors of message kinds OF1.0 does not have: a length problem stays a length
// problem, a permission problem a permission problem, anything else means the
// request kind is not supported.
Wire map_missing_kind(uint16_t code, bool has_len, uint16_t len_code, bool has_eperm, uint16_t eperm_code) {
  if (has_len && code == len_code) return bad_request(k10BrcBadLen);
  if (has_eperm && code == eperm_code) return bad_request(k10BrcEperm);
  return bad_request(k10BrcBadType);
}

}  // namespace

void error_to_of10(ErrorType t, uint16_t code, uint16_t& wire_type, uint16_t& wire_code) {
  Wire w{k10BadRequest, k10BrcEperm};
  switch (t) {
    case ErrorType::kHelloFailed:
      w = {k10HelloFailed, code <= 1 ? code : uint16_t{0}};
      break;
    case ErrorType::kBadRequest:
      w = map_bad_request(static_cast<BadRequestCode>(code));
      break;
    case ErrorType::kBadAction:
      w = map_bad_action(static_cast<BadActionCode>(code));
      break;
    case ErrorType::kBadInstruction:
      w = map_bad_instruction(static_cast<BadInstructionCode>(code));
      break;
    case ErrorType::kBadMatch:
      w = map_bad_match(static_cast<BadMatchCode>(code));
      break;
    case ErrorType::kFlowModFailed:
      w = map_flow_mod_failed(static_cast<FlowModFailedCode>(code));
      break;
    case ErrorType::kGroupModFailed:
      w = map_missing_kind(code, false, 0, true, static_cast<uint16_t>(GroupModFailedCode::kEperm));
      break;
    case ErrorType::kPortModFailed:
      w = map_port_mod_failed(static_cast<PortModFailedCode>(code));
      break;
    case ErrorType::kTableModFailed:
      w = map_missing_kind(code, false, 0, true, static_cast<uint16_t>(TableModFailedCode::kEperm));
      break;
    case ErrorType::kQueueOpFailed:
      w = {k10QueueOpFailed, code <= 2 ? code : uint16_t{2}};
      break;
    case ErrorType::kSwitchConfigFailed:
      w = map_missing_kind(code, true, static_cast<uint16_t>(SwitchConfigFailedCode::kBadLen), true,
                           static_cast<uint16_t>(SwitchConfigFailedCode::kEperm));
      if (w.code == k10BrcBadType) w.code = k10BrcEperm;  // set-config exists in 1.0
      break;
    case ErrorType::kRoleRequestFailed:
    case ErrorType::kMeterModFailed:
    case ErrorType::kBadProperty:  // OF1.4 kinds: never from a 1.0 request
    case ErrorType::kAsyncConfigFailed:
    case ErrorType::kFlowMonitorFailed:
    case ErrorType::kBundleFailed:
      w = bad_request(k10BrcBadType);
      break;
    case ErrorType::kTableFeaturesFailed:
      w = map_missing_kind(code, true, static_cast<uint16_t>(TableFeaturesFailedCode::kBadLen), true,
                           static_cast<uint16_t>(TableFeaturesFailedCode::kEperm));
      if (w.code == k10BrcBadType) w.code = k10BrcBadStat;  // a multipart kind 1.0 lacks
      break;
    case ErrorType::kExperimenter:
      w = bad_request(k10BrcBadVendor);
      break;
  }
  wire_type = w.type;
  wire_code = w.code;
}

void error_from_of10(uint16_t wire_type, uint16_t wire_code, ErrorType& t, uint16_t& code) {
  code = wire_code;  // same number unless renumbered below
  switch (wire_type) {
    case k10HelloFailed:
      t = ErrorType::kHelloFailed;
      return;
    case k10BadRequest:
      t = ErrorType::kBadRequest;
      return;  // BAD_STAT(2) == BAD_MULTIPART(2)
    case k10BadAction:
      t = ErrorType::kBadAction;
      return;
    case k10FlowModFailed:
      t = ErrorType::kFlowModFailed;
      switch (wire_code) {
        case k10FmfAllTablesFull:
          code = static_cast<uint16_t>(FlowModFailedCode::kTableFull);
          return;
        case k10FmfOverlap:
          code = static_cast<uint16_t>(FlowModFailedCode::kOverlap);
          return;
        case k10FmfEperm:
          code = static_cast<uint16_t>(FlowModFailedCode::kEperm);
          return;
        case k10FmfBadEmergTimeout:
          code = static_cast<uint16_t>(FlowModFailedCode::kBadTimeout);
          return;
        case k10FmfBadCommand:
          code = static_cast<uint16_t>(FlowModFailedCode::kBadCommand);
          return;
        case k10FmfUnsupported:
          t = ErrorType::kBadAction;
          code = static_cast<uint16_t>(BadActionCode::kUnsupportedOrder);
          return;
        default:
          code = static_cast<uint16_t>(FlowModFailedCode::kUnknown);
          return;
      }
    case k10PortModFailed:
      t = ErrorType::kPortModFailed;
      return;  // BAD_PORT, BAD_HW_ADDR same
    case k10QueueOpFailed:
      t = ErrorType::kQueueOpFailed;
      return;
    default:
      // Not an OF1.0 type (e.g. a vendor's private error type): keep it visible as an
      // experimenter error carrying the wire code.
      t = ErrorType::kExperimenter;
      return;
  }
}

}  // namespace flowlab::of
