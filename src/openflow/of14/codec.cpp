// OpenFlow 1.4 codec: the messages 1.4 changed or added, and the delegation of
// the rest to the OF1.3 codec (design in of14.h).
#include "openflow/codec.h"

#include <fmt/format.h>

#include <optional>

#include "openflow/of14/of14.h"

namespace flowlab::of::of14 {
namespace {

constexpr size_t kFlowModImportanceOff = 46;    // header 8 + cookie..flags 38
constexpr size_t kFlowStatsImportanceOff = 20;  // in one ofp_flow_stats
constexpr size_t kRoleStatusLen = 24;
constexpr size_t kTableStatusLen = 24;  // header, reason, pad, ofp_table_desc without properties
constexpr size_t kTableDescLen = 8;

OfError err(BadRequestCode c, std::string msg, size_t at = 0) { return OfError::make(c, std::move(msg), at); }

OfError bundle_error(const BundleError& e) {
  return OfError{static_cast<ErrorType>(kErrBundleFailed), uint16_t(e.code), 8, e.message};
}

// The same message as OF1.3 bytes (version byte 4), decoded by the OF1.3 codec.
Result<of::Message, OfError> decode_as_of13(Bytes wire) {
  wire[0] = kOf13;
  auto m = decode_of13(wire);
  if (!m.ok()) return unexpected(std::move(m.error()));
  m->version = kOf14;
  return std::move(*m);
}

// The multipart types past 1.4's (1.5's among them) are not decoded by this codec.
BasicStatus<OfError> refuse_multipart(uint16_t mp) {
  if (mp > kMultipartFlowMonitor && mp != uint16_t(MultipartType::kExperimenter))
    return unexpected(err(BadRequestCode::kBadMultipart,
                          fmt::format("multipart type {} is not an OpenFlow 1.4 one", mp), 8));
  return {};
}

Result<Message, OfError> decode_multipart_reply(ByteSpan wire, uint32_t xid) {
  if (wire.size() < kMultipartBodyOff)
    return unexpected(err(BadRequestCode::kBadLen, "multipart reply: short"));
  const uint16_t mp = load_be16(&wire[8]);
  const uint16_t flags = load_be16(&wire[10]);
  if (mp == kMultipartFlowMonitor) {
    auto r = decode_flow_monitor_reply(wire);
    if (!r.ok()) return unexpected(std::move(r.error()));
    return Message{xid, make_message(kOf14, xid, MultipartReply{flags, std::move(*r)})};
  }
  if (mp == kMultipartQueueDesc) {
    auto r = decode_queue_desc_reply(wire);
    if (!r.ok()) return unexpected(std::move(r.error()));
    return Message{xid, make_message(kOf14, xid, MultipartReply{flags, std::move(*r)})};
  }
  if (mp == kMultipartTableDesc) {
    TableDescReply r;
    r.flags = flags;
    for (size_t at = kMultipartBodyOff; at < wire.size();) {
      size_t used = 0;
      auto d = decode_table_desc(wire, at, used);
      if (!d.ok()) return unexpected(std::move(d.error()));
      r.tables.push_back(*d);
      at += used;
    }
    return Message{xid, std::move(r)};
  }
  switch (MultipartType(mp)) {
    case MultipartType::kPortDesc: {
      PortDescReply r;
      r.flags = flags;
      for (size_t at = kMultipartBodyOff; at < wire.size();) {
        size_t used = 0;
        auto p = decode_port(wire, at, used);
        if (!p.ok()) return unexpected(std::move(p.error()));
        r.ports.push_back(std::move(*p));
        at += used;
      }
      return Message{xid, std::move(r)};
    }
    case MultipartType::kPortStats: {
      auto r = decode_port_stats(wire, flags);
      if (!r.ok()) return unexpected(std::move(r.error()));
      return Message{xid, std::move(*r)};
    }
    case MultipartType::kQueue: {
      auto r = decode_queue_stats(wire, flags);
      if (!r.ok()) return unexpected(std::move(r.error()));
      return Message{xid, std::move(*r)};
    }
    case MultipartType::kFlow: {
      // importance sits in 1.3's padding: read it, zero it, decode as 1.3.
      Bytes copy(wire.begin(), wire.end());
      std::vector<uint16_t> importance;
      for (size_t at = kMultipartBodyOff; at + kFlowStatsImportanceOff + 2 <= copy.size();) {
        const uint16_t len = load_be16(&copy[at]);
        if (len < kFlowStatsImportanceOff + 2 || len > copy.size() - at) break;  // the 1.3 decoder reports it
        importance.push_back(load_be16(&copy[at + kFlowStatsImportanceOff]));
        store_be16(&copy[at + kFlowStatsImportanceOff], 0);
        at += len;
      }
      auto m = decode_as_of13(std::move(copy));
      if (!m.ok()) return unexpected(std::move(m.error()));
      MultipartReply& mr = m->as<MultipartReply>();
      FlowStatsReply r;
      r.flags = mr.flags;
      r.flows = std::move(std::get<of::FlowStatsReply>(mr.body).stats);
      importance.resize(r.flows.size());
      r.importance = std::move(importance);
      return Message{xid, std::move(r)};
    }
    default:
      if (auto e = refuse_multipart(mp); !e.ok()) return unexpected(std::move(e.error()));
      break;
  }
  auto m = decode_as_of13(Bytes(wire.begin(), wire.end()));
  if (!m.ok()) return unexpected(std::move(m.error()));
  return Message{xid, std::move(*m)};
}

Result<Message, OfError> decode_multipart_request(ByteSpan wire, uint32_t xid) {
  if (wire.size() < kMultipartBodyOff)
    return unexpected(err(BadRequestCode::kBadLen, "multipart request: short"));
  const uint16_t mp = load_be16(&wire[8]);
  if (mp == kMultipartTableDesc) {
    if (wire.size() != kMultipartBodyOff)
      return unexpected(
          err(BadRequestCode::kBadLen,
              fmt::format("table_desc request: {} body bytes, it has none", wire.size() - kMultipartBodyOff),
              kMultipartBodyOff));
    of::Message m = make_message(kOf14, xid, MultipartRequest{load_be16(&wire[10]), TableDescRequest{}});
    return Message{xid, std::move(m)};
  }
  if (mp == kMultipartFlowMonitor) {
    auto r = decode_flow_monitor_request(wire);
    if (!r.ok()) return unexpected(std::move(r.error()));
    return Message{xid, make_message(kOf14, xid, MultipartRequest{load_be16(&wire[10]), std::move(*r)})};
  }
  if (mp == kMultipartQueueDesc) {
    auto r = decode_queue_desc_request(wire);
    if (!r.ok()) return unexpected(std::move(r.error()));
    return Message{xid, make_message(kOf14, xid, MultipartRequest{load_be16(&wire[10]), *r})};
  }
  if (auto e = refuse_multipart(mp); !e.ok()) return unexpected(std::move(e.error()));
  auto m = decode_as_of13(Bytes(wire.begin(), wire.end()));
  if (!m.ok()) return unexpected(std::move(m.error()));
  return Message{xid, std::move(*m)};
}

}  // namespace

Result<Message, OfError> decode_of14(ByteSpan wire) {
  if (wire.size() < kHeaderLen)
    return unexpected(err(BadRequestCode::kBadLen, "message shorter than the 8-byte OpenFlow header"));
  if (wire[0] != kOf14)
    return unexpected(err(BadRequestCode::kBadVersion, fmt::format("version {} is not OF1.4", wire[0])));
  const uint16_t len = load_be16(&wire[2]);
  if (len != wire.size())
    return unexpected(err(BadRequestCode::kBadLen,
                          fmt::format("header length {} != message size {}", len, wire.size()), 2));
  const uint32_t xid = load_be32(&wire[4]);
  const uint8_t type = wire[1];
  const ByteSpan body = wire.subspan(kHeaderLen);
  switch (type) {
    case uint8_t(MsgType::kPortStatus): {
      if (body.size() < 8) return unexpected(err(BadRequestCode::kBadLen, "port_status: short", 8));
      size_t used = 0;
      auto p = decode_port(wire, 16, used);
      if (!p.ok()) return unexpected(std::move(p.error()));
      if (16 + used != wire.size())
        return unexpected(err(BadRequestCode::kBadLen, "port_status: bytes after the port", 16 + used));
      return Message{xid, PortStatus{body[0], std::move(*p)}};
    }
    case uint8_t(MsgType::kPortMod): {
      auto m = decode_port_mod(body, 8);
      if (!m.ok()) return unexpected(std::move(m.error()));
      return Message{xid, std::move(*m)};
    }
    case uint8_t(MsgType::kMultipartReply):
      return decode_multipart_reply(wire, xid);
    case uint8_t(MsgType::kGetAsyncReply):
    case uint8_t(MsgType::kSetAsync): {
      auto a = decode_async(body, type == uint8_t(MsgType::kGetAsyncReply));
      if (!a.ok()) return unexpected(std::move(a.error()));
      return Message{xid, std::move(*a)};
    }
    case uint8_t(MsgType::kMultipartRequest):
      return decode_multipart_request(wire, xid);
    case uint8_t(MsgType::kTableMod): {
      auto tm = decode_table_mod(wire);
      if (!tm.ok()) return unexpected(std::move(tm.error()));
      return Message{xid, std::move(*tm)};
    }
    case uint8_t(MsgType::kFlowMod): {
      if (wire.size() < kFlowModImportanceOff + 2) break;  // the 1.3 decoder reports the short body
      Bytes copy(wire.begin(), wire.end());
      const uint16_t importance = load_be16(&copy[kFlowModImportanceOff]);
      store_be16(&copy[kFlowModImportanceOff], 0);
      auto m = decode_as_of13(std::move(copy));
      if (!m.ok()) return unexpected(std::move(m.error()));
      return Message{xid, FlowMod{std::move(m->as<of::FlowMod>()), importance}};
    }
    case uint8_t(Type::kRoleStatus): {
      if (wire.size() < kRoleStatusLen)
        return unexpected(err(BadRequestCode::kBadLen, "role_status: need 24 bytes", 0));
      RoleStatus r;
      r.role = ControllerRole(load_be32(&body[0]));
      r.reason = RoleStatusReason(body[4]);
      r.generation_id = load_be64(&body[8]);
      r.properties.assign(wire.begin() + kRoleStatusLen, wire.end());
      std::string why;
      if (!properties_ok(r.properties, why))
        return unexpected(
            OfError{static_cast<ErrorType>(kErrBadProperty), 1, kRoleStatusLen, "role_status: " + why});
      return Message{xid, std::move(r)};
    }
    case uint8_t(Type::kTableStatus): {
      if (wire.size() < kTableStatusLen)
        return unexpected(err(BadRequestCode::kBadLen, "table_status: need 24 bytes", 0));
      TableStatus t;
      t.reason = TableStatusReason(body[0]);
      const uint16_t dlen = load_be16(&body[8]);
      if (dlen != wire.size() - 16 || dlen < kTableDescLen)
        return unexpected(err(BadRequestCode::kBadLen,
                              fmt::format("table_status: table desc length {} != {}", dlen, wire.size() - 16),
                              16));
      t.table_id = body[10];
      t.config = load_be32(&body[12]);
      t.properties.assign(wire.begin() + kTableStatusLen, wire.end());
      std::string why;
      if (!properties_ok(t.properties, why))
        return unexpected(
            OfError{static_cast<ErrorType>(kErrBadProperty), 1, kTableStatusLen, "table_status: " + why});
      return Message{xid, std::move(t)};
    }
    case uint8_t(Type::kBundleControl):
    case uint8_t(Type::kBundleAddMessage): {
      // The body is the ONF extension's after its experimenter header.
      ExperimenterMsg e;
      e.experimenter = kOnfExperimenter;
      e.exp_type = type == uint8_t(Type::kBundleControl) ? kOnfBundleControl : kOnfBundleAdd;
      e.data.assign(body.begin(), body.end());
      if (type == uint8_t(Type::kBundleControl)) {
        auto c = decode_bundle_control(e);
        if (!c.ok()) return unexpected(bundle_error(c.error()));
        return Message{xid, std::move(*c)};
      }
      auto a = decode_bundle_add(e);
      if (!a.ok()) return unexpected(bundle_error(a.error()));
      if (a->message.size() >= kHeaderLen && a->message[0] != kOf14)
        return unexpected(OfError{static_cast<ErrorType>(kErrBundleFailed),
                                  uint16_t(BundleFailedCode::kMsgUnsup), 16,
                                  fmt::format("bundle add: inner message version {} != 5", a->message[0])});
      return Message{xid, std::move(*a)};
    }
    case uint8_t(Type::kRequestForward): {
      if (body.size() < kHeaderLen)
        return unexpected(err(BadRequestCode::kBadLen, "requestforward: no inner message", 0));
      const uint16_t inner_len = load_be16(&body[2]);
      if (inner_len != body.size())
        return unexpected(err(BadRequestCode::kBadLen,
                              fmt::format("requestforward: inner length {} != the {} bytes that follow",
                                          inner_len, body.size()),
                              kHeaderLen));
      if (body[0] != kOf14)
        return unexpected(err(BadRequestCode::kBadVersion,
                              fmt::format("requestforward: inner version {} != 5", body[0]), kHeaderLen));
      if (body[1] != uint8_t(MsgType::kGroupMod) && body[1] != uint8_t(MsgType::kMeterMod))
        return unexpected(
            err(BadRequestCode::kBadType,
                fmt::format("requestforward: inner type {} is not a group-mod or meter-mod", body[1]),
                kHeaderLen));
      return Message{xid, RequestForward{Bytes(body.begin(), body.end())}};
    }
    default:
      if (type > uint8_t(Type::kBundleAddMessage))
        return unexpected(err(BadRequestCode::kBadType, fmt::format("unknown message type {}", type), 1));
      break;
  }
  auto m = decode_as_of13(Bytes(wire.begin(), wire.end()));
  if (!m.ok()) return unexpected(std::move(m.error()));
  return Message{xid, std::move(*m)};
}

namespace {

void header(Bytes& out, uint8_t type, uint32_t xid) {
  ByteWriter w(out);
  w.u8(kOf14);
  w.u8(type);
  w.u16(0);  // length, set by finish()
  w.u32(xid);
}

Result<Bytes, OfError> finish(Bytes out) {
  if (out.size() > 0xffff) return unexpected(err(BadRequestCode::kBadLen, "message longer than 65535 bytes"));
  store_be16(&out[2], uint16_t(out.size()));
  return out;
}

// A flow monitor or queue description request or reply (1.4's own wire), or
// nullopt for any other message.
std::optional<Result<Bytes, OfError>> encode_own_multipart(const of::Message& m, uint32_t xid) {
  Bytes out;
  auto start = [&](MsgType type, uint16_t mp, uint16_t flags) {
    header(out, uint8_t(type), xid);
    ByteWriter w(out);
    w.u16(mp);
    w.u16(flags);
    w.zeros(4);
  };
  if (const auto* rq = std::get_if<MultipartRequest>(&m.body)) {
    if (const auto* fm = std::get_if<FlowMonitorRequest>(&rq->body)) {
      start(MsgType::kMultipartRequest, kMultipartFlowMonitor, rq->flags);
      encode_flow_monitor_request(*fm, out);
      return finish(std::move(out));
    }
    if (const auto* qd = std::get_if<QueueDescRequest>(&rq->body)) {
      start(MsgType::kMultipartRequest, kMultipartQueueDesc, rq->flags);
      encode_queue_desc_request(*qd, out);
      return finish(std::move(out));
    }
    return std::nullopt;
  }
  if (const auto* rp = std::get_if<MultipartReply>(&m.body)) {
    if (const auto* fm = std::get_if<FlowMonitorReply>(&rp->body)) {
      start(MsgType::kMultipartReply, kMultipartFlowMonitor, rp->flags);
      if (auto e = encode_flow_monitor_reply(*fm, out); !e.ok()) return unexpected(std::move(e.error()));
      return finish(std::move(out));
    }
    if (const auto* qd = std::get_if<QueueDescReply>(&rp->body)) {
      start(MsgType::kMultipartReply, kMultipartQueueDesc, rp->flags);
      if (auto e = encode_queue_desc_reply(*qd, out); !e.ok()) return unexpected(std::move(e.error()));
      return finish(std::move(out));
    }
  }
  return std::nullopt;
}

Result<Bytes, OfError> encode_shared(of::Message m, uint32_t xid) {
  if (auto own = encode_own_multipart(m, xid)) return std::move(*own);
  m.version = kOf13;
  m.xid = xid;
  auto wire = encode_of13(m);
  if (!wire.ok()) return unexpected(std::move(wire.error()));
  (*wire)[0] = kOf14;
  return std::move(*wire);
}

Result<Bytes, OfError> encode_flow_mod(const FlowMod& f, uint32_t xid) {
  of::FlowMod m = f.mod;
  m.importance = 0;  // written below, where 1.3 has padding
  auto wire = encode_shared(make_message(kOf13, xid, std::move(m)), xid);
  if (!wire.ok()) return wire;
  store_be16(&(*wire)[kFlowModImportanceOff], f.importance);
  return wire;
}

Result<Bytes, OfError> encode_flow_stats(const FlowStatsReply& r, uint32_t xid) {
  if (r.importance.size() != r.flows.size())
    return unexpected(err(
        BadRequestCode::kBadLen,
        fmt::format("flow stats: {} importance values for {} flows", r.importance.size(), r.flows.size())));
  MultipartReply mr;
  mr.flags = r.flags;
  mr.body = of::FlowStatsReply{r.flows};
  auto wire = encode_shared(make_message(kOf13, xid, std::move(mr)), xid);
  if (!wire.ok()) return wire;
  Bytes& b = *wire;
  size_t at = kMultipartBodyOff;
  for (uint16_t imp : r.importance) {
    store_be16(&b[at + kFlowStatsImportanceOff], imp);
    at += load_be16(&b[at]);
  }
  return wire;
}

}  // namespace

Result<Bytes, OfError> encode_of14(const Message& msg) {
  Bytes out;
  return std::visit(
      [&](const auto& b) -> Result<Bytes, OfError> {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, of::Message>) {
          return encode_shared(b, msg.xid);
        } else if constexpr (std::is_same_v<T, FlowMod>) {
          return encode_flow_mod(b, msg.xid);
        } else if constexpr (std::is_same_v<T, FlowStatsReply>) {
          return encode_flow_stats(b, msg.xid);
        } else if constexpr (std::is_same_v<T, PortStatus>) {
          header(out, uint8_t(MsgType::kPortStatus), msg.xid);
          out.push_back(b.reason);
          out.insert(out.end(), 7, 0);
          encode_port(b.port, out);
        } else if constexpr (std::is_same_v<T, PortMod>) {
          header(out, uint8_t(MsgType::kPortMod), msg.xid);
          encode_port_mod(b, out);
        } else if constexpr (std::is_same_v<T, PortDescReply>) {
          header(out, uint8_t(MsgType::kMultipartReply), msg.xid);
          ByteWriter w(out);
          w.u16(uint16_t(MultipartType::kPortDesc));
          w.u16(b.flags);
          w.zeros(4);
          for (const Port& p : b.ports) encode_port(p, out);
        } else if constexpr (std::is_same_v<T, RoleStatus>) {
          header(out, uint8_t(Type::kRoleStatus), msg.xid);
          ByteWriter w(out);
          w.u32(uint32_t(b.role));
          w.u8(uint8_t(b.reason));
          w.zeros(3);
          w.u64(b.generation_id);
          w.bytes(b.properties);
        } else if constexpr (std::is_same_v<T, TableStatus>) {
          header(out, uint8_t(Type::kTableStatus), msg.xid);
          ByteWriter w(out);
          w.u8(uint8_t(b.reason));
          w.zeros(7);
          w.u16(uint16_t(kTableDescLen + b.properties.size()));
          w.u8(b.table_id);
          w.zeros(1);
          w.u32(b.config);
          w.bytes(b.properties);
        } else if constexpr (std::is_same_v<T, TableMod>) {
          header(out, uint8_t(MsgType::kTableMod), msg.xid);
          encode_table_mod(b, out);
        } else if constexpr (std::is_same_v<T, TableDescReply>) {
          header(out, uint8_t(MsgType::kMultipartReply), msg.xid);
          ByteWriter w(out);
          w.u16(kMultipartTableDesc);
          w.u16(b.flags);
          w.zeros(4);
          for (const TableDesc& d : b.tables) encode_table_desc(d, out);
        } else if constexpr (std::is_same_v<T, RequestForward>) {
          header(out, uint8_t(Type::kRequestForward), msg.xid);
          out.insert(out.end(), b.request.begin(), b.request.end());
        } else if constexpr (std::is_same_v<T, AsyncConfig>) {
          header(out, uint8_t(b.reply ? MsgType::kGetAsyncReply : MsgType::kSetAsync), msg.xid);
          ByteWriter w(out);
          for (const AsyncProperty& p : b.props) {
            w.u16(p.type);
            w.u16(8);
            w.u32(p.mask);
          }
        } else if constexpr (std::is_same_v<T, PortStatsReply> || std::is_same_v<T, QueueStatsReply>) {
          header(out, uint8_t(MsgType::kMultipartReply), msg.xid);
          ByteWriter w(out);
          constexpr bool kPorts = std::is_same_v<T, PortStatsReply>;
          w.u16(uint16_t(kPorts ? MultipartType::kPortStats : MultipartType::kQueue));
          w.u16(b.flags);
          w.zeros(4);
          if constexpr (kPorts)
            encode_port_stats(b, out);
          else
            encode_queue_stats(b, out);
        } else if constexpr (std::is_same_v<T, BundleControl>) {
          header(out, uint8_t(Type::kBundleControl), msg.xid);
          ExperimenterMsg e = encode_bundle_control(b);
          out.insert(out.end(), e.data.begin(), e.data.end());
        } else {
          static_assert(std::is_same_v<T, BundleAdd>);
          header(out, uint8_t(Type::kBundleAddMessage), msg.xid);
          ExperimenterMsg e = encode_bundle_add(b);
          out.insert(out.end(), e.data.begin(), e.data.end());
        }
        return finish(std::move(out));
      },
      msg.body);
}

}  // namespace flowlab::of::of14
