// OpenFlow 1.5 controller status: OFPT_CONTROLLER_STATUS (35) and the
// OFPMP_CONTROLLER_STATUS (18) request and reply. 1.4's wire has no place for
// them, so unlike the rest of this codec they are read and written here
// directly, not translated. An ofp_controller_status is 16 bytes (length,
// short_id, role (32 bits), reason, channel_status, 6 pad) followed by its
// properties, each a TLV padded to 8 bytes: OFPCSPT_URI (0) the connection's
// URI as ASCII, anything else (experimenter) kept as its bytes, padded. The request
// has no body. Encoding writes the URI property first, then the others as the
// model has them.
#include <fmt/format.h>

#include "openflow/codec.h"
#include "openflow/of15/of15.h"
#include "openflow/of15/wire.h"

namespace flowlab::of::of15 {
namespace {

constexpr size_t kStatusLen = 16;
constexpr uint16_t kPropUri = 0;
constexpr uint8_t kLastReason = uint8_t(ControllerStatusReason::kExperimenter);

// One ofp_controller_status at `at` in `wire` (offsets in errors are the message's).
Result<ControllerStatusEntry, OfError> decode_entry(ByteSpan wire, size_t at, size_t& used) {
  if (wire.size() - at < kStatusLen)
    return unexpected(bad_len("controller status: entry shorter than 16 bytes", at));
  const size_t len = load_be16(&wire[at]);
  if (len < kStatusLen || len > wire.size() - at)
    return unexpected(bad_len(fmt::format("controller status: entry length {} is wrong", len), at));
  ControllerStatusEntry e;
  e.short_id = load_be16(&wire[at + 2]);
  const uint32_t role = load_be32(&wire[at + 4]);
  if (role > uint32_t(ControllerRole::kSlave))
    return unexpected(
        OfError::make(BadRequestCode::kBadType, fmt::format("controller status: role {}", role), at + 4));
  e.role = ControllerRole(role);
  if (wire[at + 8] > kLastReason)
    return unexpected(OfError::make(BadRequestCode::kBadType,
                                    fmt::format("controller status: reason {}", wire[at + 8]), at + 8));
  e.reason = ControllerStatusReason(wire[at + 8]);
  if (wire[at + 9] > uint8_t(ChannelStatus::kDown))
    return unexpected(OfError::make(
        BadRequestCode::kBadType, fmt::format("controller status: channel status {}", wire[at + 9]), at + 9));
  e.channel_status = ChannelStatus(wire[at + 9]);
  for (size_t p = at + kStatusLen; p < at + len;) {
    if (at + len - p < 4) return unexpected(bad_len("controller status: property header truncated", p));
    const uint16_t type = load_be16(&wire[p]);
    const size_t plen = load_be16(&wire[p + 2]);
    if (plen < 4 || plen > at + len - p)
      return unexpected(bad_len(fmt::format("controller status: property length {} is wrong", plen), p + 2));
    const size_t span = std::min(plen + pad8(plen), at + len - p);  // the last property's padding may be cut
    if (type == kPropUri && !e.uri) {
      e.uri = std::string(reinterpret_cast<const char*>(&wire[p + 4]), plen - 4);
    } else {  // experimenter (or any other type): kept as it came, padded
      e.other_properties.insert(e.other_properties.end(), wire.begin() + static_cast<std::ptrdiff_t>(p),
                                wire.begin() + static_cast<std::ptrdiff_t>(p + span));
      e.other_properties.resize(e.other_properties.size() + (plen + pad8(plen) - span));
    }
    p += span;
  }
  used = len;
  return e;
}

void encode_entry(const ControllerStatusEntry& e, ByteWriter& w) {
  const size_t start = w.size();
  w.u16(0);  // length, patched
  w.u16(e.short_id);
  w.u32(uint32_t(e.role));
  w.u8(uint8_t(e.reason));
  w.u8(uint8_t(e.channel_status));
  w.zeros(6);
  if (e.uri) {
    const size_t n = std::min(e.uri->size(), size_t(0xffff - 4 - 7));
    w.u16(kPropUri);
    w.u16(uint16_t(4 + n));
    w.bytes(e.uri->data(), n);
    w.zeros(pad8(4 + n));
  }
  w.bytes(e.other_properties);
  w.patch_u16(start, uint16_t(std::min<size_t>(w.size() - start, 0xffff)));
}

}  // namespace

bool is_controller_status(ByteSpan wire) {
  if (wire.size() < kHeaderLen || wire[0] != kOf15) return false;
  if (wire[1] == uint8_t(MsgType::kControllerStatus)) return true;
  return (wire[1] == uint8_t(MsgType::kMultipartRequest) || wire[1] == uint8_t(MsgType::kMultipartReply)) &&
         wire.size() >= kMultipartBodyOff &&
         load_be16(&wire[8]) == uint16_t(MultipartType::kControllerStatus);
}

Result<Message, OfError> decode_controller_status(ByteSpan wire) {
  if (load_be16(&wire[2]) != wire.size())
    return unexpected(
        bad_len(fmt::format("header length {} != message size {}", load_be16(&wire[2]), wire.size()), 2));
  Message m;
  m.version = kOf15;
  m.xid = load_be32(&wire[4]);
  size_t used = 0;
  if (wire[1] == uint8_t(MsgType::kControllerStatus)) {
    auto e = decode_entry(wire, kHeaderLen, used);
    if (!e.ok()) return unexpected(std::move(e.error()));
    if (kHeaderLen + used != wire.size())
      return unexpected(bad_len("controller status: bytes after the entry", kHeaderLen + used));
    m.body = ControllerStatus{std::move(*e)};
    return m;
  }
  const uint16_t flags = load_be16(&wire[10]);
  if (wire[1] == uint8_t(MsgType::kMultipartRequest)) {
    if (wire.size() != kMultipartBodyOff)
      return unexpected(bad_len("controller status request: has no body", kMultipartBodyOff));
    m.body = MultipartRequest{flags, ControllerStatusRequest{}};
    return m;
  }
  ControllerStatusReply r;
  for (size_t at = kMultipartBodyOff; at < wire.size(); at += used) {
    auto e = decode_entry(wire, at, used);
    if (!e.ok()) return unexpected(std::move(e.error()));
    r.controllers.push_back(std::move(*e));
  }
  m.body = MultipartReply{flags, std::move(r)};
  return m;
}

// Nullopt: not a controller status message (the translation encodes it).
std::optional<Result<Bytes, OfError>> encode_controller_status(const Message& msg) {
  Bytes out;
  ByteWriter w(out);
  w.u8(kOf15);
  if (const auto* cs = std::get_if<ControllerStatus>(&msg.body)) {
    w.u8(uint8_t(MsgType::kControllerStatus));
    w.u16(0);
    w.u32(msg.xid);
    encode_entry(cs->status, w);
    return checked(std::move(out), kOf15);
  }
  const auto* rq = std::get_if<MultipartRequest>(&msg.body);
  const auto* rp = std::get_if<MultipartReply>(&msg.body);
  const auto* reply = rp ? std::get_if<ControllerStatusReply>(&rp->body) : nullptr;
  if (!(rq && std::holds_alternative<ControllerStatusRequest>(rq->body)) && !reply) return std::nullopt;
  w.u8(uint8_t(rq ? MsgType::kMultipartRequest : MsgType::kMultipartReply));
  w.u16(0);
  w.u32(msg.xid);
  w.u16(uint16_t(MultipartType::kControllerStatus));
  w.u16(rq ? rq->flags : rp->flags);
  w.zeros(4);
  if (reply)
    for (const ControllerStatusEntry& e : reply->controllers) encode_entry(e, w);
  return checked(std::move(out), kOf15);
}

}  // namespace flowlab::of::of15
