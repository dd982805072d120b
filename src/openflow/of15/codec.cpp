// OpenFlow 1.5 on the shared model: decode_of15/encode_of15 of codec.h, what
// decode_message and encode_message use for wire version 6. Each message is
// translated to 1.4's wire and back (design in of15.h); this file dispatches
// on the message type.
#include "openflow/codec.h"

#include <fmt/format.h>

#include "openflow/of15/of15.h"
#include "openflow/of15/wire.h"

namespace flowlab::of {
namespace of15 {
namespace {

constexpr size_t kFlowModMatch = 48;    // header + cookie .. importance
constexpr size_t kPacketOutMatch = 16;  // 1.5: header, buffer_id, actions_len, pad
constexpr size_t kPacketOut14Actions = 24;
constexpr size_t kBundleInner = 16;  // header, bundle_id, pad, flags
constexpr size_t kMeterFeatures14Len = 16;
constexpr uint32_t kOxmInPort = 0x80000004;
constexpr uint32_t kOxmPacketType = 0x80005804;
constexpr uint16_t kMpFlowMonitor = 16, kMpBundleFeatures = 19;  // OFPMP_FLOW_STATS is wire.h's
constexpr uint8_t kBundleControl = 33, kBundleAddMessage = 34;   // OFPT_BUNDLE_*

// The end of the ofp_match at `at` (padding included), or 0 if it does not fit.
size_t match_end(ByteSpan wire, size_t at) {
  const size_t span = match_span(wire, at);
  return span == 0 ? 0 : at + span;
}

Result<Bytes, OfError> flow_mod_to14(ByteSpan wire) {
  const size_t end = match_end(wire, kFlowModMatch);
  if (end == 0) return Bytes(wire.begin(), wire.end());  // the 1.4 decoder reports it
  auto instrs = instructions_to14(wire.subspan(end), end);
  if (!instrs.ok()) return unexpected(std::move(instrs.error()));
  Bytes out(wire.begin(), wire.begin() + static_cast<std::ptrdiff_t>(end));
  out.insert(out.end(), instrs->begin(), instrs->end());
  return out;
}

Bytes flow_mod_to15(ByteSpan wire) {
  const size_t end = match_end(wire, kFlowModMatch);
  if (end == 0) return Bytes(wire.begin(), wire.end());
  Bytes out(wire.begin(), wire.begin() + static_cast<std::ptrdiff_t>(end));
  Bytes instrs = instructions_to15(wire.subspan(end));
  out.insert(out.end(), instrs.begin(), instrs.end());
  return out;
}

Result<Bytes, OfError> packet_out_to14(ByteSpan wire) {
  const size_t end = match_end(wire, kPacketOutMatch);
  if (end == 0) return unexpected(bad_len("packet_out: match truncated", kPacketOutMatch));
  const size_t alen = load_be16(&wire[12]);
  if (alen > wire.size() - end)
    return unexpected(bad_len(fmt::format("packet_out: actions_len {} runs past the message", alen), 12));
  uint32_t in_port = port::kController;
  const size_t mlen = load_be16(&wire[kPacketOutMatch + 2]);
  if (load_be16(&wire[kPacketOutMatch]) != 1)
    return unexpected(OfError::make(BadMatchCode::kBadType, "packet_out: match type is not OFPMT_OXM", 16));
  for (size_t o = kPacketOutMatch + 4; o < kPacketOutMatch + mlen;) {
    if (kPacketOutMatch + mlen - o < 4)
      return unexpected(OfError::make(BadMatchCode::kBadLen, "OXM truncated", o));
    const uint32_t h = load_be32(&wire[o]);
    if (h != kOxmInPort)
      return unexpected(
          OfError::make(BadMatchCode::kBadField,
                        fmt::format("packet_out: match field 0x{:08x}: only in_port is supported", h), o));
    if (kPacketOutMatch + mlen - o < 8)
      return unexpected(OfError::make(BadMatchCode::kBadLen, "in_port truncated", o));
    in_port = load_be32(&wire[o + 4]);
    o += 8;
  }
  auto actions = actions_to14(wire.subspan(end, alen), end);
  if (!actions.ok()) return unexpected(std::move(actions.error()));
  if (actions->size() > 0xffff) return unexpected(bad_len("packet_out: actions too long", 12));
  Bytes out(wire.begin(), wire.begin() + kHeaderLen);
  ByteWriter w(out);
  w.u32(load_be32(&wire[8]));  // buffer_id
  w.u32(in_port);
  w.u16(uint16_t(actions->size()));
  w.zeros(6);
  w.bytes(*actions);
  w.bytes(wire.subspan(end + alen));  // the frame
  return out;
}

Result<Bytes, OfError> packet_out_to15(ByteSpan wire) {
  if (wire.size() < kPacketOut14Actions) return unexpected(bad_len("packet_out: short", 0));
  const size_t alen = load_be16(&wire[16]);
  if (alen > wire.size() - kPacketOut14Actions) return unexpected(bad_len("packet_out: actions_len", 16));
  const Bytes actions = actions_to15(wire.subspan(kPacketOut14Actions, alen));
  Bytes out(wire.begin(), wire.begin() + kHeaderLen);
  ByteWriter w(out);
  w.u32(load_be32(&wire[8]));  // buffer_id
  w.u16(uint16_t(actions.size()));
  w.zeros(2);
  w.u16(1);  // OFPMT_OXM
  w.u16(12);
  w.u32(kOxmInPort);
  w.u32(load_be32(&wire[12]));
  w.zeros(4);
  w.bytes(actions);
  w.bytes(wire.subspan(kPacketOut14Actions + alen));  // the frame
  return out;
}

Result<Bytes, OfError> multipart_request_to14(ByteSpan wire, Extras* extras) {
  if (wire.size() < kMultipartBodyOff) return Bytes(wire.begin(), wire.end());
  const uint16_t mp = load_be16(&wire[8]);
  if (mp == kMpFlowStats) {  // the flow desc request's body
    if (extras) extras->stats_only = true;
    Bytes out(wire.begin(), wire.end());
    store_be16(&out[8], uint16_t(MultipartType::kFlow));
    return out;
  }
  if (mp == kMpBundleFeatures)
    return unexpected(OfError::make(BadRequestCode::kBadMultipart,
                                    "multipart type 19 (bundle features) is not supported", 8));
  if (mp == uint16_t(MultipartType::kGroupDesc)) {
    if (wire.size() != kMultipartBodyOff + 8)
      return unexpected(
          bad_len("group desc request: body must be 8 bytes (group_id, pad)", kMultipartBodyOff));
    if (load_be32(&wire[kMultipartBodyOff]) != group::kAll)
      return unexpected(OfError::make(BadRequestCode::kBadMultipart,
                                      "group desc request: only group_id OFPG_ALL is supported",
                                      kMultipartBodyOff));
    return Bytes(wire.begin(), wire.begin() + kMultipartBodyOff);
  }
  if (mp == uint16_t(MultipartType::kPortDesc)) {
    if (wire.size() != kMultipartBodyOff + 8)
      return unexpected(bad_len("port desc request: body must be 8 bytes (port_no, pad)", kMultipartBodyOff));
    if (load_be32(&wire[kMultipartBodyOff]) != port::kAny)
      return unexpected(OfError::make(BadRequestCode::kBadMultipart,
                                      "port desc request: only port_no OFPP_ANY is supported",
                                      kMultipartBodyOff));
    return Bytes(wire.begin(), wire.begin() + kMultipartBodyOff);
  }
  return Bytes(wire.begin(), wire.end());
}

Result<Bytes, OfError> multipart_reply_to14(ByteSpan wire, Extras* extras) {
  if (wire.size() < kMultipartBodyOff) return Bytes(wire.begin(), wire.end());
  const uint16_t mp = load_be16(&wire[8]);
  if (mp == kMpFlowMonitor) return flow_monitor_reply_to14(wire);
  if (mp == kMpFlowStats) return flow_stats_to14(wire, extras);
  switch (MultipartType(mp)) {
    case MultipartType::kFlow:
      return flow_desc_to14(wire, extras);
    case MultipartType::kAggregate:
      return aggregate_to14(wire);
    case MultipartType::kGroupDesc:
      return group_desc_to14(wire, extras);
    case MultipartType::kMeterFeatures:
      if (wire.size() != kMultipartBodyOff + 24)
        return unexpected(bad_len("meter features: need 24 bytes", 16));
      return Bytes(wire.begin(), wire.begin() + kMultipartBodyOff + kMeterFeatures14Len);
    default:
      if (mp >= kMpFlowStats && mp <= kMpBundleFeatures)
        return unexpected(OfError::make(BadRequestCode::kBadMultipart,
                                        fmt::format("multipart reply type {} is not decoded", mp), 8));
      return Bytes(wire.begin(), wire.end());
  }
}

Result<Bytes, OfError> multipart_request_to15(ByteSpan wire, const Extras* extras) {
  Bytes out(wire.begin(), wire.end());
  if (extras && extras->stats_only && wire.size() >= kMultipartBodyOff &&
      load_be16(&wire[8]) == uint16_t(MultipartType::kFlow))
    store_be16(&out[8], kMpFlowStats);
  const uint16_t mp = wire.size() == kMultipartBodyOff ? load_be16(&wire[8]) : 0;
  if (mp == uint16_t(MultipartType::kGroupDesc) || mp == uint16_t(MultipartType::kPortDesc)) {
    ByteWriter w(out);  // 1.5's group_id / port_no: all
    w.u32(mp == uint16_t(MultipartType::kGroupDesc) ? group::kAll : port::kAny);
    w.zeros(4);
  }
  return out;
}

// Table features at 1.5: each table also answers OFPTFPT_PACKET_TYPES (22):
// Ethernet, packet_type (0, 0), unless the entry already has the property.
Result<Bytes, OfError> table_features_to15(ByteSpan wire) {
  constexpr size_t kTableFeaturesLen = 64;
  constexpr uint16_t kPropPacketTypes = 22;
  Bytes out(wire.begin(), wire.begin() + kMultipartBodyOff);
  ByteWriter w(out);
  for (size_t at = kMultipartBodyOff; at < wire.size();) {
    const size_t len = wire.size() - at >= 2 ? load_be16(&wire[at]) : 0;
    if (len < kTableFeaturesLen || len > wire.size() - at)
      return unexpected(bad_len("table features: entry length is wrong", at));
    bool has = false;
    for (size_t p = at + kTableFeaturesLen; p + 4 <= at + len;) {
      const size_t plen = load_be16(&wire[p + 2]);
      has |= load_be16(&wire[p]) == kPropPacketTypes;
      if (plen < 4) break;
      p += plen + pad8(plen);
    }
    const size_t start = w.size();
    w.bytes(wire.subspan(at, len));
    if (!has) {
      w.u16(kPropPacketTypes);
      w.u16(12);
      w.u32(kOxmPacketType);
      w.u32(0);  // (0, 0): Ethernet
      w.zeros(4);
      if (w.size() - start > 0xffff) return unexpected(bad_len("table features: entry too long", at));
      w.patch_u16(start, uint16_t(w.size() - start));
    }
    at += len;
  }
  return out;
}

Result<Bytes, OfError> multipart_reply_to15(ByteSpan wire, const Extras* extras) {
  if (wire.size() < kMultipartBodyOff) return Bytes(wire.begin(), wire.end());
  if (load_be16(&wire[8]) == kMpFlowMonitor) return flow_monitor_reply_to15(wire);
  switch (MultipartType(load_be16(&wire[8]))) {
    case MultipartType::kFlow:
      if (extras && extras->stats_only) return flow_stats_to15(wire, extras);
      return flow_desc_to15(wire, extras);
    case MultipartType::kAggregate:
      return aggregate_to15(wire);
    case MultipartType::kGroupDesc:
      return group_desc_to15(wire, extras);
    case MultipartType::kTableFeatures:
      return table_features_to15(wire);
    case MultipartType::kMeterFeatures: {
      Bytes out(wire.begin(), wire.end());
      out.insert(out.end(), 8, 0);  // features: none of OFPMF_ACTION_SET, ANY_POSITION, MULTI_LIST
      return out;
    }
    default:
      return Bytes(wire.begin(), wire.end());
  }
}

// Bundle control and add: OFPBF_TIME refused; an add's inner message translated by `inner`.
template <typename Inner>
Result<Bytes, OfError> bundle(ByteSpan wire, Inner inner, bool from15) {
  if (wire.size() < kBundleInner) return Bytes(wire.begin(), wire.end());  // the 1.4 decoder reports it
  if (from15 && (load_be16(&wire[14]) & kBundleFlagTime))
    return unexpected(OfError{ErrorType::kBundleFailed, kBundleSchedNotSupported, 14,
                              "bundle: scheduled commit (OFPBF_TIME) is not supported"});
  if (wire[1] != kBundleAddMessage || wire.size() < kBundleInner + kHeaderLen)
    return Bytes(wire.begin(), wire.end());
  const size_t ilen = load_be16(&wire[kBundleInner + 2]);
  if (ilen < kHeaderLen || ilen > wire.size() - kBundleInner ||
      wire[kBundleInner] != (from15 ? kOf15 : kOf14))
    return Bytes(wire.begin(), wire.end());
  auto in = inner(wire.subspan(kBundleInner, ilen));
  if (!in.ok()) {
    in.error().offset += kBundleInner;
    return unexpected(std::move(in.error()));
  }
  Bytes out(wire.begin(), wire.begin() + kBundleInner);
  out.insert(out.end(), in->begin(), in->end());
  out.insert(out.end(), wire.begin() + static_cast<std::ptrdiff_t>(kBundleInner + ilen), wire.end());
  return out;
}

template <typename Inner>
Result<Bytes, OfError> request_forward(ByteSpan wire, Inner inner, uint8_t from) {
  if (wire.size() < 2 * kHeaderLen || wire[kHeaderLen] != from) return Bytes(wire.begin(), wire.end());
  auto in = inner(wire.subspan(kHeaderLen));
  if (!in.ok()) return in;
  Bytes out(wire.begin(), wire.begin() + kHeaderLen);
  out.insert(out.end(), in->begin(), in->end());
  return out;
}

Result<Bytes, OfError> versioned(Result<Bytes, OfError> r, uint8_t version) {
  if (!r.ok()) return r;
  if (r->size() > kMaxMessageLen) return unexpected(bad_len("translated message longer than 65535 bytes", 0));
  (*r)[0] = version;
  store_be16(&(*r)[2], uint16_t(r->size()));
  return r;
}

}  // namespace

Result<Bytes, OfError> to_of14_wire(ByteSpan wire, Extras* extras) {
  if (wire.size() < kHeaderLen)
    return unexpected(bad_len("message shorter than the 8-byte OpenFlow header", 0));
  if (wire[0] != kOf15)
    return unexpected(
        OfError::make(BadRequestCode::kBadVersion, fmt::format("version {} is not OF1.5", wire[0])));
  if (load_be16(&wire[2]) != wire.size())
    return unexpected(
        bad_len(fmt::format("header length {} != message size {}", load_be16(&wire[2]), wire.size()), 2));
  if (wire[1] == kBundleControl || wire[1] == kBundleAddMessage)
    return versioned(bundle(
                         wire, [](ByteSpan w) { return to_of14_wire(w); }, true),
                     kOf14);
  switch (MsgType(wire[1])) {
    case MsgType::kFlowMod:
      return versioned(flow_mod_to14(wire), kOf14);
    case MsgType::kPacketOut:
      return versioned(packet_out_to14(wire), kOf14);
    case MsgType::kFlowRemoved:
      return flow_removed_to14(wire, extras);
    case MsgType::kGroupMod:
      return group_mod_to14(wire, extras);
    case MsgType::kSetAsync:
    case MsgType::kGetAsyncReply:
      return async_to14(wire, extras);
    case MsgType::kMultipartRequest:
      return versioned(multipart_request_to14(wire, extras), kOf14);
    case MsgType::kMultipartReply:
      return versioned(multipart_reply_to14(wire, extras), kOf14);
    case MsgType::kRequestForward:
      return versioned(request_forward(
                           wire, [](ByteSpan w) { return to_of14_wire(w); }, kOf15),
                       kOf14);
    default:
      return versioned(Bytes(wire.begin(), wire.end()), kOf14);
  }
}

Result<Bytes, OfError> to_of15_wire(ByteSpan wire, const Extras* extras) {
  if (wire.size() < kHeaderLen)
    return unexpected(bad_len("message shorter than the 8-byte OpenFlow header", 0));
  if (wire[1] == kBundleControl || wire[1] == kBundleAddMessage)
    return versioned(bundle(
                         wire, [](ByteSpan w) { return to_of15_wire(w); }, false),
                     kOf15);
  switch (MsgType(wire[1])) {
    case MsgType::kFlowMod:
      return versioned(flow_mod_to15(wire), kOf15);
    case MsgType::kPacketOut:
      return versioned(packet_out_to15(wire), kOf15);
    case MsgType::kFlowRemoved:
      return flow_removed_to15(wire, extras);
    case MsgType::kGroupMod:
      return group_mod_to15(wire, extras);
    case MsgType::kSetAsync:
    case MsgType::kGetAsyncReply:
      return async_to15(wire, extras);
    case MsgType::kMultipartRequest:
      return versioned(multipart_request_to15(wire, extras), kOf15);
    case MsgType::kMultipartReply:
      return versioned(multipart_reply_to15(wire, extras), kOf15);
    case MsgType::kRequestForward:
      return versioned(request_forward(
                           wire, [](ByteSpan w) { return to_of15_wire(w); }, kOf14),
                       kOf15);
    default:
      return versioned(Bytes(wire.begin(), wire.end()), kOf15);
  }
}

}  // namespace of15

namespace of15 {
namespace {

// What the model holds beyond 1.4's wire, for the translation to 1.5.
Extras extras_of(const Message& m) {
  Extras x;
  auto idle = [](bool present, uint32_t sec, uint32_t nsec) { return IdleTime{present, sec, nsec}; };
  if (const auto* fr = std::get_if<FlowRemoved>(&m.body)) {
    x.idle.push_back(idle(fr->has_idle_time, fr->idle_sec, fr->idle_nsec));
  } else if (const auto* rep = std::get_if<MultipartReply>(&m.body)) {
    if (const auto* fs = std::get_if<FlowStatsReply>(&rep->body)) {
      x.stats_only = fs->stats_only;
      for (const FlowStats& e : fs->stats) x.idle.push_back(idle(e.has_idle_time, e.idle_sec, e.idle_nsec));
    }
  } else if (const auto* req = std::get_if<MultipartRequest>(&m.body)) {
    if (const auto* fs = std::get_if<FlowStatsRequest>(&req->body)) x.stats_only = fs->stats_only;
  } else if (m.is<SetAsync>() || m.is<GetAsyncReply>()) {
    const AsyncConfig& a = m.is<SetAsync>() ? static_cast<const AsyncConfig&>(m.as<SetAsync>())
                                            : static_cast<const AsyncConfig&>(m.as<GetAsyncReply>());
    for (int i = 0; i < 2; ++i)  // [0] slave (type 14), [1] master (15); the model's slot 1 is slave
      if (a.present >> (kAsyncContStatusSlave + i) & 1)
        x.cont_status[size_t(i)] = a.controller_status_mask[size_t(1 - i)];
  } else if (const auto* gm = std::get_if<GroupMod>(&m.body)) {
    x.group_command = uint16_t(gm->command);
    x.command_bucket_id = gm->command_bucket_id;
    x.bucket_ids.emplace_back();
    for (const Bucket& b : gm->buckets) x.bucket_ids[0].push_back(b.bucket_id);
  }
  if (const auto* rep = std::get_if<MultipartReply>(&m.body))
    if (const auto* gd = std::get_if<GroupDescReply>(&rep->body))
      for (const GroupDesc& g : gd->groups) {
        x.bucket_ids.emplace_back();
        for (const Bucket& b : g.buckets) x.bucket_ids.back().push_back(b.bucket_id);
      }
  return x;
}

// ... and back into the decoded model.
void apply_extras(const Extras& x, Message& m) {
  auto put = [](const IdleTime& t, bool& has, uint32_t& sec, uint32_t& nsec) {
    has = t.present;
    sec = t.sec;
    nsec = t.nsec;
  };
  if (auto* fr = std::get_if<FlowRemoved>(&m.body)) {
    if (!x.idle.empty()) put(x.idle[0], fr->has_idle_time, fr->idle_sec, fr->idle_nsec);
  } else if (auto* rep = std::get_if<MultipartReply>(&m.body)) {
    if (auto* fs = std::get_if<FlowStatsReply>(&rep->body)) {
      fs->stats_only = x.stats_only;
      for (size_t i = 0; i < fs->stats.size() && i < x.idle.size(); ++i)
        put(x.idle[i], fs->stats[i].has_idle_time, fs->stats[i].idle_sec, fs->stats[i].idle_nsec);
    }
  } else if (auto* req = std::get_if<MultipartRequest>(&m.body)) {
    if (auto* fs = std::get_if<FlowStatsRequest>(&req->body)) fs->stats_only = x.stats_only;
  } else if (m.is<SetAsync>() || m.is<GetAsyncReply>()) {
    AsyncConfig& a = m.is<SetAsync>() ? static_cast<AsyncConfig&>(m.as<SetAsync>())
                                      : static_cast<AsyncConfig&>(m.as<GetAsyncReply>());
    for (int i = 0; i < 2; ++i)
      if (x.cont_status[size_t(i)]) {
        a.controller_status_mask[size_t(1 - i)] = *x.cont_status[size_t(i)];
        a.present |= uint16_t(1u << (kAsyncContStatusSlave + i));
      }
  } else if (auto* gm = std::get_if<GroupMod>(&m.body)) {
    gm->command = GroupModCommand(x.group_command);
    gm->command_bucket_id = x.command_bucket_id;
    if (!x.bucket_ids.empty())
      for (size_t i = 0; i < gm->buckets.size() && i < x.bucket_ids[0].size(); ++i)
        gm->buckets[i].bucket_id = x.bucket_ids[0][i];
  }
  if (auto* rep = std::get_if<MultipartReply>(&m.body))
    if (auto* gd = std::get_if<GroupDescReply>(&rep->body))
      for (size_t g = 0; g < gd->groups.size() && g < x.bucket_ids.size(); ++g)
        for (size_t i = 0; i < gd->groups[g].buckets.size() && i < x.bucket_ids[g].size(); ++i)
          gd->groups[g].buckets[i].bucket_id = x.bucket_ids[g][i];
}

}  // namespace
}  // namespace of15

Result<Message, OfError> decode_of15(ByteSpan wire) {
  if (of15::is_controller_status(wire)) return of15::decode_controller_status(wire);
  of15::Extras extras;
  auto w14 = of15::to_of14_wire(wire, &extras);
  if (!w14.ok()) return unexpected(std::move(w14.error()));
  auto m = decode_of14(*w14);
  if (!m.ok()) return unexpected(std::move(m.error()));
  m->version = kOf15;
  of15::apply_extras(extras, *m);
  return std::move(*m);
}

Result<Bytes, OfError> encode_of15(const Message& msg) {
  if (auto cs = of15::encode_controller_status(msg)) return std::move(*cs);
  Message m14 = msg;
  m14.version = kOf14;
  if (auto* gm = std::get_if<GroupMod>(&m14.body); gm && gm->command > GroupModCommand::kDelete)
    gm->command = GroupModCommand::kModify;  // 1.4's wire has no insert/remove: the extras say it
  auto w14 = encode_of14(m14);
  if (!w14.ok()) return unexpected(std::move(w14.error()));
  const of15::Extras extras = of15::extras_of(msg);
  return of15::to_of15_wire(*w14, &extras);
}

Result<Bytes, OfError> of15_wire_to_of14(ByteSpan wire) { return of15::to_of14_wire(wire); }
Result<Bytes, OfError> of14_wire_to_of15(ByteSpan wire) { return of15::to_of15_wire(wire); }

BasicStatus<OfError> encode_of15_to(const Message& msg, Bytes& out) {
  auto wire = encode_of15(msg);
  if (!wire.ok()) return unexpected(std::move(wire.error()));
  out.insert(out.end(), wire->begin(), wire->end());
  return {};
}

}  // namespace flowlab::of
