// OpenFlow 1.4 flow monitoring on the wire (OFPMP_FLOW_MONITOR, 16): the
// request (ofp_flow_monitor_request: monitor_id, out_port, out_group, flags,
// table_id, command, then an ofp_match) and the reply's updates, each behind
// a length and an event: ofp_flow_update_full (INITIAL, ADDED, REMOVED,
// MODIFIED: table_id, reason, timeouts, priority, cookie, match,
// instructions), ofp_flow_update_abbrev (ABBREV: the xid of the change's
// request) and ofp_flow_update_paused (PAUSED, RESUMED). Matches and
// instructions are 1.3's, read and written with the OF1.3 codec's helpers.
#include <fmt/format.h>

#include "openflow/of13/wire.h"
#include "openflow/of14/of14.h"
#include "openflow/of14/wire.h"

namespace flowlab::of::of14 {
namespace {

using of13::Cursor;

constexpr size_t kRequestFixedLen = 16;  // before the match
constexpr size_t kUpdateHeaderLen = 4;   // length, event
constexpr size_t kUpdateFullFixedLen = 24;
constexpr size_t kUpdateShortLen = 8;  // abbrev, paused

Result<FlowUpdate, OfError> decode_update(Cursor c, uint16_t event) {
  FlowUpdate u;
  u.event = FlowUpdateEvent(event);
  uint16_t len = 0, ev = 0;
  c.r().u16(len);
  c.r().u16(ev);
  if (event <= uint16_t(FlowUpdateEvent::kModified)) {
    if (c.remaining() + kUpdateHeaderLen < kUpdateFullFixedLen)
      return unexpected(of13::short_error(c, "flow_update_full", kUpdateFullFixedLen - kUpdateHeaderLen));
    c.r().u8(u.table_id);
    c.r().u8(u.reason);
    c.r().u16(u.idle_timeout);
    c.r().u16(u.hard_timeout);
    c.r().u16(u.priority);
    c.r().skip(4);
    c.r().u64(u.cookie);
    FLOWLAB_ASSIGN_OR_RETURN(u.match, of13::decode_match(c));
    FLOWLAB_ASSIGN_OR_RETURN(u.instructions, of13::decode_instructions(c));
    return u;
  }
  if (event <= uint16_t(FlowUpdateEvent::kResumed)) {
    if (c.remaining() + kUpdateHeaderLen != kUpdateShortLen)
      return unexpected(bad_len(
          fmt::format("flow update event {}: length {} (it is 8)", event, c.remaining() + kUpdateHeaderLen),
          c.at()));
    if (u.event == FlowUpdateEvent::kAbbrev)
      c.r().u32(u.xid);
    else
      c.r().skip(4);
    return u;
  }
  return unexpected(OfError::make(BadRequestCode::kBadMultipart,
                                  fmt::format("flow update event {} (0..6 are defined)", event), c.at() - 2));
}

}  // namespace

Result<FlowMonitorRequest, OfError> decode_flow_monitor_request(ByteSpan wire) {
  if (wire.size() < kMultipartBodyOff + kRequestFixedLen)
    return unexpected(
        bad_len(fmt::format("flow_monitor request: {} body bytes, at least {}",
                            wire.size() - std::min(wire.size(), kMultipartBodyOff), kRequestFixedLen + 8),
                kMultipartBodyOff));
  Cursor c(wire.subspan(kMultipartBodyOff), kMultipartBodyOff);
  FlowMonitorRequest r;
  uint8_t command = 0;
  c.r().u32(r.monitor_id);
  c.r().u32(r.out_port);
  c.r().u32(r.out_group);
  c.r().u16(r.flags);
  c.r().u8(r.table_id);
  c.r().u8(command);
  r.command = FlowMonitorCommand(command);
  FLOWLAB_ASSIGN_OR_RETURN(r.match, of13::decode_match(c));
  if (!c.empty())
    return unexpected(bad_len(fmt::format("flow_monitor request: {} bytes after the match (one "
                                          "request per message)",
                                          c.remaining()),
                              c.at()));
  return r;
}

void encode_flow_monitor_request(const FlowMonitorRequest& r, Bytes& out) {
  ByteWriter w(out);
  w.u32(r.monitor_id);
  w.u32(r.out_port);
  w.u32(r.out_group);
  w.u16(r.flags);
  w.u8(r.table_id);
  w.u8(uint8_t(r.command));
  of13::encode_match(r.match, w);
}

Result<FlowMonitorReply, OfError> decode_flow_monitor_reply(ByteSpan wire) {
  FlowMonitorReply r;
  for (size_t at = kMultipartBodyOff; at < wire.size();) {
    if (wire.size() - at < kUpdateHeaderLen)
      return unexpected(
          bad_len(fmt::format("flow update: {} bytes left, its header is 4", wire.size() - at), at));
    const uint16_t len = load_be16(&wire[at]);
    const uint16_t event = load_be16(&wire[at + 2]);
    if (len < kUpdateShortLen || len % 8 || len > wire.size() - at)
      return unexpected(
          bad_len(fmt::format("flow update: length {} (a multiple of 8, at least 8, at most {})", len,
                              wire.size() - at),
                  at));
    FLOWLAB_ASSIGN_OR_RETURN(FlowUpdate u, decode_update(Cursor(wire.subspan(at, len), at), event));
    r.updates.push_back(std::move(u));
    at += len;
  }
  return r;
}

BasicStatus<OfError> encode_flow_monitor_reply(const FlowMonitorReply& r, Bytes& out) {
  ByteWriter w(out);
  for (const FlowUpdate& u : r.updates) {
    const size_t start = w.size();
    w.u16(0);  // length, below
    w.u16(uint16_t(u.event));
    if (u.event <= FlowUpdateEvent::kModified) {
      w.u8(u.table_id);
      w.u8(u.reason);
      w.u16(u.idle_timeout);
      w.u16(u.hard_timeout);
      w.u16(u.priority);
      w.zeros(4);
      w.u64(u.cookie);
      of13::encode_match(u.match, w);
      FLOWLAB_TRY(of13::encode_instructions(u.instructions, w));
    } else if (u.event == FlowUpdateEvent::kAbbrev) {
      w.u32(u.xid);
    } else if (u.event <= FlowUpdateEvent::kResumed) {
      w.zeros(4);
    } else {
      return unexpected(
          OfError::make(BadRequestCode::kBadMultipart,
                        fmt::format("flow update event {} (0..6 are defined)", uint16_t(u.event))));
    }
    if (w.size() - start > 0xffff)
      return unexpected(OfError::make(BadRequestCode::kBadLen, "flow update longer than 65535 bytes"));
    w.patch_u16(start, uint16_t(w.size() - start));
  }
  return {};
}

}  // namespace flowlab::of::of14
