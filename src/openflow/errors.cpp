// Names of OpenFlow error types and codes (OF1.3 numbering, as the spec and
// ovs-ofctl spell them) and OfError's one-line description.
#include "openflow/errors.h"

#include <fmt/format.h>

#include <array>
#include <span>

namespace flowlab::of {
namespace {

constexpr std::array<std::string_view, 2> kHelloFailed = {"OFPHFC_INCOMPATIBLE", "OFPHFC_EPERM"};
constexpr std::array<std::string_view, 14> kBadRequest = {
    "OFPBRC_BAD_VERSION",    "OFPBRC_BAD_TYPE",
    "OFPBRC_BAD_MULTIPART",  "OFPBRC_BAD_EXPERIMENTER",
    "OFPBRC_BAD_EXP_TYPE",   "OFPBRC_EPERM",
    "OFPBRC_BAD_LEN",        "OFPBRC_BUFFER_EMPTY",
    "OFPBRC_BUFFER_UNKNOWN", "OFPBRC_BAD_TABLE_ID",
    "OFPBRC_IS_SLAVE",       "OFPBRC_BAD_PORT",
    "OFPBRC_BAD_PACKET",     "OFPBRC_MULTIPART_BUFFER_OVERFLOW"};
constexpr std::array<std::string_view, 16> kBadAction = {"OFPBAC_BAD_TYPE",
                                                         "OFPBAC_BAD_LEN",
                                                         "OFPBAC_BAD_EXPERIMENTER",
                                                         "OFPBAC_BAD_EXP_TYPE",
                                                         "OFPBAC_BAD_OUT_PORT",
                                                         "OFPBAC_BAD_ARGUMENT",
                                                         "OFPBAC_EPERM",
                                                         "OFPBAC_TOO_MANY",
                                                         "OFPBAC_BAD_QUEUE",
                                                         "OFPBAC_BAD_OUT_GROUP",
                                                         "OFPBAC_MATCH_INCONSISTENT",
                                                         "OFPBAC_UNSUPPORTED_ORDER",
                                                         "OFPBAC_BAD_TAG",
                                                         "OFPBAC_BAD_SET_TYPE",
                                                         "OFPBAC_BAD_SET_LEN",
                                                         "OFPBAC_BAD_SET_ARGUMENT"};
constexpr std::array<std::string_view, 9> kBadInstruction = {"OFPBIC_UNKNOWN_INST",
                                                             "OFPBIC_UNSUP_INST",
                                                             "OFPBIC_BAD_TABLE_ID",
                                                             "OFPBIC_UNSUP_METADATA",
                                                             "OFPBIC_UNSUP_METADATA_MASK",
                                                             "OFPBIC_BAD_EXPERIMENTER",
                                                             "OFPBIC_BAD_EXP_TYPE",
                                                             "OFPBIC_BAD_LEN",
                                                             "OFPBIC_EPERM"};
constexpr std::array<std::string_view, 12> kBadMatch = {
    "OFPBMC_BAD_TYPE",         "OFPBMC_BAD_LEN",       "OFPBMC_BAD_TAG",   "OFPBMC_BAD_DL_ADDR_MASK",
    "OFPBMC_BAD_NW_ADDR_MASK", "OFPBMC_BAD_WILDCARDS", "OFPBMC_BAD_FIELD", "OFPBMC_BAD_VALUE",
    "OFPBMC_BAD_MASK",         "OFPBMC_BAD_PREREQ",    "OFPBMC_DUP_FIELD", "OFPBMC_EPERM"};
constexpr std::array<std::string_view, 8> kFlowModFailed = {
    "OFPFMFC_UNKNOWN", "OFPFMFC_TABLE_FULL",  "OFPFMFC_BAD_TABLE_ID", "OFPFMFC_OVERLAP",
    "OFPFMFC_EPERM",   "OFPFMFC_BAD_TIMEOUT", "OFPFMFC_BAD_COMMAND",  "OFPFMFC_BAD_FLAGS"};
constexpr std::array<std::string_view, 17> kGroupModFailed = {
    "OFPGMFC_GROUP_EXISTS",      "OFPGMFC_INVALID_GROUP",  "OFPGMFC_WEIGHT_UNSUPPORTED",
    "OFPGMFC_OUT_OF_GROUPS",     "OFPGMFC_OUT_OF_BUCKETS", "OFPGMFC_CHAINING_UNSUPPORTED",
    "OFPGMFC_WATCH_UNSUPPORTED", "OFPGMFC_LOOP",           "OFPGMFC_UNKNOWN_GROUP",
    "OFPGMFC_CHAINED_GROUP",     "OFPGMFC_BAD_TYPE",       "OFPGMFC_BAD_COMMAND",
    "OFPGMFC_BAD_BUCKET",        "OFPGMFC_BAD_WATCH",      "OFPGMFC_EPERM",
    "OFPGMFC_UNKNOWN_BUCKET",    "OFPGMFC_BUCKET_EXISTS"};
constexpr std::array<std::string_view, 5> kPortModFailed = {"OFPPMFC_BAD_PORT", "OFPPMFC_BAD_HW_ADDR",
                                                            "OFPPMFC_BAD_CONFIG", "OFPPMFC_BAD_ADVERTISE",
                                                            "OFPPMFC_EPERM"};
constexpr std::array<std::string_view, 3> kTableModFailed = {"OFPTMFC_BAD_TABLE", "OFPTMFC_BAD_CONFIG",
                                                             "OFPTMFC_EPERM"};
constexpr std::array<std::string_view, 3> kQueueOpFailed = {"OFPQOFC_BAD_PORT", "OFPQOFC_BAD_QUEUE",
                                                            "OFPQOFC_EPERM"};
constexpr std::array<std::string_view, 3> kSwitchConfigFailed = {"OFPSCFC_BAD_FLAGS", "OFPSCFC_BAD_LEN",
                                                                 "OFPSCFC_EPERM"};
constexpr std::array<std::string_view, 3> kRoleRequestFailed = {"OFPRRFC_STALE", "OFPRRFC_UNSUP",
                                                                "OFPRRFC_BAD_ROLE"};
constexpr std::array<std::string_view, 12> kMeterModFailed = {
    "OFPMMFC_UNKNOWN",     "OFPMMFC_METER_EXISTS",   "OFPMMFC_INVALID_METER", "OFPMMFC_UNKNOWN_METER",
    "OFPMMFC_BAD_COMMAND", "OFPMMFC_BAD_FLAGS",      "OFPMMFC_BAD_RATE",      "OFPMMFC_BAD_BURST",
    "OFPMMFC_BAD_BAND",    "OFPMMFC_BAD_BAND_VALUE", "OFPMMFC_OUT_OF_METERS", "OFPMMFC_OUT_OF_BANDS"};
constexpr std::array<std::string_view, 11> kTableFeaturesFailed = {
    "OFPTFFC_BAD_TABLE",    "OFPTFFC_BAD_METADATA", "OFPTFFC_BAD_TYPE", "OFPTFFC_BAD_LEN",
    "OFPTFFC_BAD_ARGUMENT", "OFPTFFC_EPERM",        "OFPTFFC_BAD_CAPA", "OFPTFFC_BAD_MAX_ENT",
    "OFPTFFC_BAD_FEATURES", "OFPTFFC_BAD_COMMAND",  "OFPTFFC_TOO_MANY"};

// OF1.4
constexpr std::array<std::string_view, 9> kBadProperty = {
    "OFPBPC_BAD_TYPE",     "OFPBPC_BAD_LEN",       "OFPBPC_BAD_VALUE",
    "OFPBPC_TOO_MANY",     "OFPBPC_DUP_TYPE",      "OFPBPC_BAD_EXPERIMENTER",
    "OFPBPC_BAD_EXP_TYPE", "OFPBPC_BAD_EXP_VALUE", "OFPBPC_EPERM"};
constexpr std::array<std::string_view, 8> kFlowMonitorFailed = {
    "OFPMOFC_UNKNOWN",     "OFPMOFC_MONITOR_EXISTS", "OFPMOFC_INVALID_MONITOR", "OFPMOFC_UNKNOWN_MONITOR",
    "OFPMOFC_BAD_COMMAND", "OFPMOFC_BAD_FLAGS",      "OFPMOFC_BAD_TABLE_ID",    "OFPMOFC_BAD_OUT"};
constexpr std::array<std::string_view, 16> kBundleFailed = {
    "OFPBFC_UNKNOWN",       "OFPBFC_EPERM",          "OFPBFC_BAD_ID",    "OFPBFC_BUNDLE_EXIST",
    "OFPBFC_BUNDLE_CLOSED", "OFPBFC_OUT_OF_BUNDLES", "OFPBFC_BAD_TYPE",  "OFPBFC_BAD_FLAGS",
    "OFPBFC_MSG_BAD_LEN",   "OFPBFC_MSG_BAD_XID",    "OFPBFC_MSG_UNSUP", "OFPBFC_MSG_CONFLICT",
    "OFPBFC_MSG_TOO_MANY",  "OFPBFC_MSG_FAILED",     "OFPBFC_TIMEOUT",   "OFPBFC_BUNDLE_IN_PROGRESS"};

std::span<const std::string_view> code_names(ErrorType t) {
  switch (t) {
    case ErrorType::kHelloFailed:
      return kHelloFailed;
    case ErrorType::kBadRequest:
      return kBadRequest;
    case ErrorType::kBadAction:
      return kBadAction;
    case ErrorType::kBadInstruction:
      return kBadInstruction;
    case ErrorType::kBadMatch:
      return kBadMatch;
    case ErrorType::kFlowModFailed:
      return kFlowModFailed;
    case ErrorType::kGroupModFailed:
      return kGroupModFailed;
    case ErrorType::kPortModFailed:
      return kPortModFailed;
    case ErrorType::kTableModFailed:
      return kTableModFailed;
    case ErrorType::kQueueOpFailed:
      return kQueueOpFailed;
    case ErrorType::kSwitchConfigFailed:
      return kSwitchConfigFailed;
    case ErrorType::kRoleRequestFailed:
      return kRoleRequestFailed;
    case ErrorType::kMeterModFailed:
      return kMeterModFailed;
    case ErrorType::kTableFeaturesFailed:
      return kTableFeaturesFailed;
    case ErrorType::kBadProperty:
      return kBadProperty;
    case ErrorType::kBundleFailed:
      return kBundleFailed;
    case ErrorType::kFlowMonitorFailed:
      return kFlowMonitorFailed;
    case ErrorType::kAsyncConfigFailed:
    case ErrorType::kExperimenter:
      break;
  }
  return {};
}

}  // namespace

std::string_view to_string(ErrorType t) {
  switch (t) {
    case ErrorType::kHelloFailed:
      return "OFPET_HELLO_FAILED";
    case ErrorType::kBadRequest:
      return "OFPET_BAD_REQUEST";
    case ErrorType::kBadAction:
      return "OFPET_BAD_ACTION";
    case ErrorType::kBadInstruction:
      return "OFPET_BAD_INSTRUCTION";
    case ErrorType::kBadMatch:
      return "OFPET_BAD_MATCH";
    case ErrorType::kFlowModFailed:
      return "OFPET_FLOW_MOD_FAILED";
    case ErrorType::kGroupModFailed:
      return "OFPET_GROUP_MOD_FAILED";
    case ErrorType::kPortModFailed:
      return "OFPET_PORT_MOD_FAILED";
    case ErrorType::kTableModFailed:
      return "OFPET_TABLE_MOD_FAILED";
    case ErrorType::kQueueOpFailed:
      return "OFPET_QUEUE_OP_FAILED";
    case ErrorType::kSwitchConfigFailed:
      return "OFPET_SWITCH_CONFIG_FAILED";
    case ErrorType::kRoleRequestFailed:
      return "OFPET_ROLE_REQUEST_FAILED";
    case ErrorType::kMeterModFailed:
      return "OFPET_METER_MOD_FAILED";
    case ErrorType::kTableFeaturesFailed:
      return "OFPET_TABLE_FEATURES_FAILED";
    case ErrorType::kBadProperty:
      return "OFPET_BAD_PROPERTY";
    case ErrorType::kAsyncConfigFailed:
      return "OFPET_ASYNC_CONFIG_FAILED";
    case ErrorType::kFlowMonitorFailed:
      return "OFPET_FLOW_MONITOR_FAILED";
    case ErrorType::kBundleFailed:
      return "OFPET_BUNDLE_FAILED";
    case ErrorType::kExperimenter:
      return "OFPET_EXPERIMENTER";
  }
  return "OFPET_UNKNOWN";
}

std::string error_code_name(ErrorType t, uint16_t code) {
  auto names = code_names(t);
  if (code < names.size()) return std::string(names[code]);
  return fmt::format("{}({})", to_string(t), code);
}

std::string OfError::to_string() const {
  std::string s = error_code_name(type, code);
  s += fmt::format(" at offset {}", offset);
  if (!message.empty()) {
    s += ": ";
    s += message;
  }
  return s;
}

}  // namespace flowlab::of
