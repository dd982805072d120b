// Bundles: a group of flow-mods applied all together or not at all.
//
// OF1.3 has no bundles; Open vSwitch speaks the ONF extension for OF1.3
// (experimenter 0x4F4E4600, ONFT_BUNDLE_CONTROL 2300, ONFT_BUNDLE_ADD_MESSAGE
// 2301), whose bodies have the layout of OF1.4's OFPT_BUNDLE_CONTROL and
// OFPT_BUNDLE_ADD_MESSAGE after the 16-byte experimenter header:
//   control: bundle_id u32, type u16 (BundleCtrlType), flags u16, properties
//   add:     bundle_id u32, pad u16, flags u16, one whole OpenFlow message
//            (header included, its length from its header), then properties
//            from the next 8-byte boundary
// Properties are TLVs (type u16, length u16, padded to 8); they are kept as
// opaque bytes. Errors about bundles go out as experimenter errors: type
// 0xffff, exp_code 2300 + the OFPBFC_* code, experimenter 0x4F4E4600 (OVS's
// numbering of the ONF extension).
//
// These functions only translate between the ExperimenterMsg the OF1.3 codec
// decodes and these structs; what a switch does with a bundle is
// switch/agent_bundle.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/bytes.h"
#include "core/result.h"
#include "openflow/message.h"

namespace flowlab::of {

inline constexpr uint32_t kOnfExperimenter = 0x4F4E4600;
inline constexpr uint32_t kOnfBundleControl = 2300;
inline constexpr uint32_t kOnfBundleAdd = 2301;
inline constexpr uint16_t kOnfBundleErrorBase = 2300;

enum class BundleCtrlType : uint16_t {
  kOpenRequest = 0,
  kOpenReply = 1,
  kCloseRequest = 2,
  kCloseReply = 3,
  kCommitRequest = 4,
  kCommitReply = 5,
  kDiscardRequest = 6,
  kDiscardReply = 7,
};
std::string_view to_string(BundleCtrlType t);

namespace bundle_flags {
inline constexpr uint16_t kAtomic = 1;
inline constexpr uint16_t kOrdered = 2;
inline constexpr uint16_t kAll = kAtomic | kOrdered;
}  // namespace bundle_flags

enum class BundleFailedCode : uint16_t {
  kUnknown = 0,
  kEperm = 1,
  kBadId = 2,
  kBundleExist = 3,
  kBundleClosed = 4,
  kOutOfBundles = 5,
  kBadType = 6,
  kBadFlags = 7,
  kMsgBadLen = 8,
  kMsgBadXid = 9,
  kMsgUnsup = 10,
  kMsgConflict = 11,
  kMsgTooMany = 12,
  kMsgFailed = 13,
  kTimeout = 14,
  kBundleInProgress = 15,
};
std::string_view to_string(BundleFailedCode c);  // "OFPBFC_BAD_ID"

struct BundleControl {
  uint32_t bundle_id = 0;
  BundleCtrlType type = BundleCtrlType::kOpenRequest;
  uint16_t flags = 0;
  Bytes properties;
  bool operator==(const BundleControl&) const = default;
};

struct BundleAdd {
  uint32_t bundle_id = 0;
  uint16_t flags = 0;
  Bytes message;  // the inner OpenFlow message, header included
  Bytes properties;
  bool operator==(const BundleAdd&) const = default;
};

// The same, its inner message and properties left where they are (in the
// ExperimenterMsg decoded, which must outlive it).
struct BundleAddView {
  uint32_t bundle_id = 0;
  uint16_t flags = 0;
  ByteSpan message;
  ByteSpan properties;
};

// A bundle message that cannot be decoded: the code to answer with and why.
struct BundleError {
  BundleFailedCode code = BundleFailedCode::kUnknown;
  std::string message;
};

bool is_bundle_control(const ExperimenterMsg& e);
bool is_bundle_add(const ExperimenterMsg& e);

Result<BundleControl, BundleError> decode_bundle_control(const ExperimenterMsg& e);
Result<BundleAdd, BundleError> decode_bundle_add(const ExperimenterMsg& e);
Result<BundleAddView, BundleError> decode_bundle_add_view(const ExperimenterMsg& e);
ExperimenterMsg encode_bundle_add(const BundleAdd& a);
ExperimenterMsg encode_bundle_control(const BundleControl& c);
// Appends a whole OF1.3 bundle-add message carrying `inner` to `out` (for an
// OF1.4 `inner`, 1.4's standard OFPT_BUNDLE_ADD_MESSAGE):
// `inner` is encoded in place (no copy), its xid is the add's, and there are
// no properties. On an error `out` is left as it was.
BasicStatus<OfError> encode_bundle_add_to(uint32_t bundle_id, uint16_t flags, const Message& inner,
                                          Bytes& out);
// The same for an inner message already encoded (OF1.3 or OF1.4): copied, its xid set to `xid`.
BasicStatus<OfError> encode_bundle_add_wire_to(uint32_t bundle_id, uint16_t flags, uint32_t xid,
                                               ByteSpan inner, Bytes& out);

// The OF1.3 experimenter error answering `request` (its xid, its first 64 bytes as data).
Message make_bundle_error(BundleFailedCode code, ByteSpan request);
// The code of an experimenter error that is a bundle error; false otherwise.
bool bundle_error_code(const ErrorMsg& e, BundleFailedCode& code);

}  // namespace flowlab::of
