// The ONF bundle extension for OF1.3: bodies of ONFT_BUNDLE_CONTROL and
// ONFT_BUNDLE_ADD_MESSAGE (layout in bundle.h).
#include "openflow/of13/bundle.h"

#include <fmt/format.h>

#include <algorithm>

#include "openflow/codec.h"

namespace flowlab::of {
namespace {

Unexpected<BundleError> bad(BundleFailedCode c, std::string msg) {
  return unexpected(BundleError{c, std::move(msg)});
}

// Properties: TLVs of at least 4 bytes, each padded to 8 (the last one may end unpadded).
bool properties_ok(ByteSpan p, std::string& why) {
  size_t at = 0;
  while (at < p.size()) {
    if (p.size() - at < 4) {
      why = fmt::format("property at byte {} is shorter than its 4-byte header", at);
      return false;
    }
    const uint16_t len = load_be16(&p[at + 2]);
    if (len < 4 || len > p.size() - at) {
      why = fmt::format("property at byte {} has length {} ({} bytes left)", at, len, p.size() - at);
      return false;
    }
    at += std::min<size_t>((len + 7u) & ~size_t(7), p.size() - at);
  }
  return true;
}

}  // namespace

std::string_view to_string(BundleCtrlType t) {
  switch (t) {
    case BundleCtrlType::kOpenRequest:
      return "OPEN_REQUEST";
    case BundleCtrlType::kOpenReply:
      return "OPEN_REPLY";
    case BundleCtrlType::kCloseRequest:
      return "CLOSE_REQUEST";
    case BundleCtrlType::kCloseReply:
      return "CLOSE_REPLY";
    case BundleCtrlType::kCommitRequest:
      return "COMMIT_REQUEST";
    case BundleCtrlType::kCommitReply:
      return "COMMIT_REPLY";
    case BundleCtrlType::kDiscardRequest:
      return "DISCARD_REQUEST";
    case BundleCtrlType::kDiscardReply:
      return "DISCARD_REPLY";
  }
  return "UNKNOWN";
}

std::string_view to_string(BundleFailedCode c) {
  static constexpr std::string_view kNames[] = {
      "OFPBFC_UNKNOWN",       "OFPBFC_EPERM",          "OFPBFC_BAD_ID",    "OFPBFC_BUNDLE_EXIST",
      "OFPBFC_BUNDLE_CLOSED", "OFPBFC_OUT_OF_BUNDLES", "OFPBFC_BAD_TYPE",  "OFPBFC_BAD_FLAGS",
      "OFPBFC_MSG_BAD_LEN",   "OFPBFC_MSG_BAD_XID",    "OFPBFC_MSG_UNSUP", "OFPBFC_MSG_CONFLICT",
      "OFPBFC_MSG_TOO_MANY",  "OFPBFC_MSG_FAILED",     "OFPBFC_TIMEOUT",   "OFPBFC_BUNDLE_IN_PROGRESS"};
  const auto i = static_cast<size_t>(c);
  return i < std::size(kNames) ? kNames[i] : "OFPBFC_(unknown code)";
}

bool is_bundle_control(const ExperimenterMsg& e) {
  return e.experimenter == kOnfExperimenter && e.exp_type == kOnfBundleControl;
}
bool is_bundle_add(const ExperimenterMsg& e) {
  return e.experimenter == kOnfExperimenter && e.exp_type == kOnfBundleAdd;
}

Result<BundleControl, BundleError> decode_bundle_control(const ExperimenterMsg& e) {
  if (!is_bundle_control(e)) return bad(BundleFailedCode::kUnknown, "not an ONF bundle control message");
  ByteReader r(e.data);
  BundleControl c;
  uint16_t type = 0;
  if (!r.u32(c.bundle_id) || !r.u16(type) || !r.u16(c.flags))
    return bad(BundleFailedCode::kMsgBadLen,
               fmt::format("bundle control body is {} bytes, at least 8 expected", e.data.size()));
  if (type > static_cast<uint16_t>(BundleCtrlType::kDiscardReply))
    return bad(BundleFailedCode::kBadType, fmt::format("bundle control type {} is unknown", type));
  c.type = static_cast<BundleCtrlType>(type);
  if (c.flags & ~bundle_flags::kAll)
    return bad(BundleFailedCode::kBadFlags, fmt::format("bundle flags {:#x} has unknown bits", c.flags));
  ByteSpan props = r.rest();
  std::string why;
  if (!properties_ok(props, why)) return bad(BundleFailedCode::kMsgBadLen, "bundle control: " + why);
  c.properties.assign(props.begin(), props.end());
  return c;
}

Result<BundleAddView, BundleError> decode_bundle_add_view(const ExperimenterMsg& e) {
  if (!is_bundle_add(e)) return bad(BundleFailedCode::kUnknown, "not an ONF bundle add message");
  ByteReader r(e.data);
  BundleAddView a;
  if (!r.u32(a.bundle_id) || !r.skip(2) || !r.u16(a.flags))
    return bad(BundleFailedCode::kMsgBadLen,
               fmt::format("bundle add body is {} bytes, at least 8 expected", e.data.size()));
  if (a.flags & ~bundle_flags::kAll)
    return bad(BundleFailedCode::kBadFlags, fmt::format("bundle flags {:#x} has unknown bits", a.flags));
  ByteSpan rest = r.rest();
  if (rest.size() < kHeaderLen)
    return bad(
        BundleFailedCode::kMsgBadLen,
        fmt::format("bundle add: {} bytes left for the inner message, its header needs 8", rest.size()));
  const uint16_t len = load_be16(&rest[2]);
  if (len < kHeaderLen || len > rest.size())
    return bad(
        BundleFailedCode::kMsgBadLen,
        fmt::format("bundle add: inner message length {} (header 8, {} bytes left)", len, rest.size()));
  a.message = rest.subspan(0, len);
  const size_t pad = std::min<size_t>(((len + 7u) & ~size_t(7)) - len, rest.size() - len);
  a.properties = rest.subspan(len + pad);
  std::string why;
  if (!properties_ok(a.properties, why)) return bad(BundleFailedCode::kMsgBadLen, "bundle add: " + why);
  return a;
}

Result<BundleAdd, BundleError> decode_bundle_add(const ExperimenterMsg& e) {
  FLOWLAB_ASSIGN_OR_RETURN(BundleAddView v, decode_bundle_add_view(e));
  BundleAdd a;
  a.bundle_id = v.bundle_id;
  a.flags = v.flags;
  a.message.assign(v.message.begin(), v.message.end());
  a.properties.assign(v.properties.begin(), v.properties.end());
  return a;
}

ExperimenterMsg encode_bundle_control(const BundleControl& c) {
  ExperimenterMsg e;
  e.experimenter = kOnfExperimenter;
  e.exp_type = kOnfBundleControl;
  e.data.reserve(8 + c.properties.size());
  ByteWriter w(e.data);
  w.u32(c.bundle_id);
  w.u16(static_cast<uint16_t>(c.type));
  w.u16(c.flags);
  w.bytes(c.properties);
  return e;
}

ExperimenterMsg encode_bundle_add(const BundleAdd& a) {
  ExperimenterMsg e;
  e.experimenter = kOnfExperimenter;
  e.exp_type = kOnfBundleAdd;
  e.data.reserve(8 + a.message.size() + 8 + a.properties.size());
  ByteWriter w(e.data);
  w.u32(a.bundle_id);
  w.u16(0);
  w.u16(a.flags);
  w.bytes(a.message);
  if (!a.properties.empty()) {
    w.zeros(((a.message.size() + 7) & ~size_t(7)) - a.message.size());
    w.bytes(a.properties);
  }
  return e;
}

namespace {
// The add's header: OF1.3's experimenter message (ONF extension), or for an
// OF1.4 inner message 1.4's own OFPT_BUNDLE_ADD_MESSAGE (34), whose body is
// the same after the experimenter id and type.
void add_header(ByteWriter& w, uint8_t version, uint16_t len, uint32_t xid) {
  const bool standard = version == kOf14 || version == kOf15;
  w.u8(standard ? version : kOf13);
  w.u8(standard ? uint8_t(34) : static_cast<uint8_t>(MsgType::kExperimenter));
  w.u16(len);
  w.u32(xid);
  if (standard) return;
  w.u32(kOnfExperimenter);
  w.u32(kOnfBundleAdd);
}
}  // namespace

BasicStatus<OfError> encode_bundle_add_to(uint32_t bundle_id, uint16_t flags, const Message& inner,
                                          Bytes& out) {
  const size_t start = out.size();
  ByteWriter w(out);
  add_header(w, inner.version, 0, inner.xid);  // length patched below
  w.u32(bundle_id);
  w.u16(0);
  w.u16(flags);
  if (auto st = encode_message_to(inner, out); !st.ok()) {
    out.resize(start);
    return st;
  }
  const size_t len = out.size() - start;
  if (len > kMaxMessageLen) {
    out.resize(start);
    return unexpected(OfError::make(
        BadRequestCode::kBadLen, fmt::format("a bundle add of {} bytes exceeds the 65535-byte limit", len)));
  }
  w.patch_u16(start + 2, uint16_t(len));
  return {};
}

BasicStatus<OfError> encode_bundle_add_wire_to(uint32_t bundle_id, uint16_t flags, uint32_t xid,
                                               ByteSpan inner, Bytes& out) {
  if (inner.size() < kHeaderLen || (inner[0] != kOf13 && inner[0] != kOf14 && inner[0] != kOf15) ||
      load_be16(&inner[2]) != inner.size())
    return unexpected(OfError::make(BadRequestCode::kBadLen,
                                    "a bundled message must be one whole OF1.3, 1.4 or 1.5 message"));
  const size_t head = inner[0] == kOf13 ? 24 : 16;
  const size_t len = head + inner.size();
  if (len > kMaxMessageLen)
    return unexpected(OfError::make(
        BadRequestCode::kBadLen, fmt::format("a bundle add of {} bytes exceeds the 65535-byte limit", len)));
  const size_t start = out.size();
  ByteWriter w(out);
  add_header(w, inner[0], uint16_t(len), xid);
  w.u32(bundle_id);
  w.u16(0);
  w.u16(flags);
  w.bytes(inner);
  store_be32(&out[start + head + 4], xid);  // the inner message's xid is the add's
  return {};
}

Message make_bundle_error(BundleFailedCode code, ByteSpan request) {
  ErrorMsg e;
  e.type = static_cast<uint16_t>(ErrorType::kExperimenter);
  e.code = static_cast<uint16_t>(kOnfBundleErrorBase + static_cast<uint16_t>(code));
  e.experimenter = kOnfExperimenter;
  const size_t n = std::min<size_t>(request.size(), 64);
  e.data.assign(request.begin(), request.begin() + static_cast<std::ptrdiff_t>(n));
  const uint32_t xid = request.size() >= kHeaderLen ? load_be32(&request[4]) : 0;
  return make_message(kOf13, xid, std::move(e));
}

bool bundle_error_code(const ErrorMsg& e, BundleFailedCode& code) {
  if (e.type != static_cast<uint16_t>(ErrorType::kExperimenter) || e.experimenter != kOnfExperimenter ||
      e.code < kOnfBundleErrorBase || e.code > kOnfBundleErrorBase + 15)
    return false;
  code = static_cast<BundleFailedCode>(e.code - kOnfBundleErrorBase);
  return true;
}

}  // namespace flowlab::of
