// OpenFlow 1.3 codec: header checks and the per-message body layouts.
//
// decode_of13() checks the 8-byte header (version 4, length == buffer size,
// known type), then decodes the body from a Cursor whose offsets count from
// the message start. Fixed-size bodies must have exactly their size; lists and
// TLVs (matches, actions, instructions, buckets, bands, multipart bodies,
// table-features properties) live in of13_*.cpp. The encoder is of13_encode.cpp.
#include <fmt/format.h>

#include "openflow/of13/wire.h"

namespace flowlab::of {
namespace {

using of13::Cursor;

Bytes rest_bytes(const Cursor& c) {
  ByteSpan s = c.rest();
  return Bytes(s.begin(), s.end());
}

OfError body_len_error(const Cursor& c, MsgType t, size_t want) {
  return OfError::make(BadRequestCode::kBadLen,
                       fmt::format("{}: body is {} bytes, expected {}", to_string(t), c.remaining(), want),
                       c.at());
}

Result<Hello, OfError> decode_hello(Cursor& c) {
  Hello h;
  while (!c.empty()) {
    size_t start = c.at();
    uint16_t type = 0, len = 0;
    if (!c.r().u16(type) || !c.r().u16(len) || len < 4 || len - 4u > c.remaining())
      return unexpected(
          OfError::make(BadRequestCode::kBadLen, fmt::format("hello element length {}", len), start));
    Cursor b = c.take(len - 4u);
    c.r().skip(std::min(of13::pad8(len), c.remaining()));
    HelloElement el;
    el.type = type;
    if (type == static_cast<uint16_t>(HelloElemType::kVersionBitmap) && b.remaining() % 4 == 0) {
      while (!b.empty()) {
        uint32_t bm = 0;
        b.r().u32(bm);
        el.bitmaps.push_back(bm);
      }
    } else {
      el.data = rest_bytes(b);
    }
    h.elements.push_back(std::move(el));
  }
  return h;
}

Result<QueueGetConfigReply, OfError> decode_queue_config_reply(Cursor& c) {
  QueueGetConfigReply q;
  c.r().u32(q.port);
  c.r().skip(4);
  while (!c.empty()) {
    size_t start = c.at();
    PacketQueue pq;
    uint16_t len = 0;
    if (c.remaining() < 16 || !c.r().u32(pq.queue_id) || !c.r().u32(pq.port) || !c.r().u16(len) || len < 16 ||
        len - 10u > c.remaining())
      return unexpected(
          OfError::make(BadRequestCode::kBadLen, fmt::format("packet queue length {}", len), start));
    Cursor b = c.take(len - 10u);
    b.r().skip(6);
    while (!b.empty()) {
      size_t pstart = b.at();
      uint16_t type = 0, plen = 0;
      if (b.remaining() < 8 || !b.r().u16(type) || !b.r().u16(plen) || plen < 8 || plen - 4u > b.remaining())
        return unexpected(
            OfError::make(BadRequestCode::kBadLen, fmt::format("queue property length {}", plen), pstart));
      Cursor p = b.take(plen - 4u);
      p.r().skip(4);
      QueueProperty prop;
      prop.type = static_cast<QueuePropType>(type);
      if (prop.type == QueuePropType::kMinRate || prop.type == QueuePropType::kMaxRate) {
        if (plen != 16)
          return unexpected(
              OfError::make(BadRequestCode::kBadLen, fmt::format("rate property length {}", plen), pstart));
        p.r().u16(prop.rate);
      } else if (prop.type == QueuePropType::kExperimenter) {
        if (plen < 16)
          return unexpected(
              OfError::make(BadRequestCode::kBadLen, "experimenter queue property too short", pstart));
        p.r().u32(prop.experimenter);
        p.r().skip(4);
        prop.data = rest_bytes(p);
      } else {
        prop.data = rest_bytes(p);
      }
      pq.properties.push_back(std::move(prop));
    }
    q.queues.push_back(std::move(pq));
  }
  return q;
}

void read_async(ByteReader& r, AsyncConfig& a) {
  for (auto* arr : {&a.packet_in_mask, &a.port_status_mask, &a.flow_removed_mask})
    for (uint32_t& v : *arr) r.u32(v);
}
// Fixed body sizes (-1 = variable, at least the value in min_body()).
int fixed_body(MsgType t) {
  switch (t) {
    case MsgType::kFeaturesRequest:
    case MsgType::kGetConfigRequest:
    case MsgType::kBarrierRequest:
    case MsgType::kBarrierReply:
    case MsgType::kGetAsyncRequest:
      return 0;
    case MsgType::kFeaturesReply:
      return 24;
    case MsgType::kGetConfigReply:
    case MsgType::kSetConfig:
      return 4;
    case MsgType::kPortStatus:
      return 72;
    case MsgType::kPortMod:
      return 32;
    case MsgType::kTableMod:
      return 8;
    case MsgType::kQueueGetConfigRequest:
      return 8;
    case MsgType::kRoleRequest:
    case MsgType::kRoleReply:
      return 16;
    case MsgType::kGetAsyncReply:
    case MsgType::kSetAsync:
      return 24;
    default:
      return -1;
  }
}

size_t min_body(MsgType t) {
  switch (t) {
    case MsgType::kError:
      return 4;
    case MsgType::kExperimenter:
      return 8;
    case MsgType::kPacketIn:
      return 16 + 8 + 2;
    case MsgType::kFlowRemoved:
      return 40 + 8;
    case MsgType::kPacketOut:
      return 16;
    case MsgType::kFlowMod:
      return 40 + 8;
    case MsgType::kGroupMod:
      return 8;
    case MsgType::kQueueGetConfigReply:
      return 8;
    case MsgType::kMeterMod:
      return 8;
    default:
      return 0;
  }
}

Result<MessageBody, OfError> decode_body(MsgType t, Cursor& c) {
  ByteReader& r = c.r();
  switch (t) {
    case MsgType::kHello: {
      FLOWLAB_ASSIGN_OR_RETURN(Hello h, decode_hello(c));
      return MessageBody(std::move(h));
    }
    case MsgType::kError: {
      ErrorMsg e;
      r.u16(e.type);
      r.u16(e.code);
      if (e.type == static_cast<uint16_t>(ErrorType::kExperimenter) && !r.u32(e.experimenter))
        return unexpected(of13::short_error(c, "experimenter error", 4));
      e.data = rest_bytes(c);
      return MessageBody(std::move(e));
    }
    case MsgType::kEchoRequest:
      return MessageBody(EchoRequest{rest_bytes(c)});
    case MsgType::kEchoReply:
      return MessageBody(EchoReply{rest_bytes(c)});
    case MsgType::kExperimenter: {
      ExperimenterMsg e;
      r.u32(e.experimenter);
      r.u32(e.exp_type);
      e.data = rest_bytes(c);
      return MessageBody(std::move(e));
    }
    case MsgType::kFeaturesRequest:
      return MessageBody(FeaturesRequest{});
    case MsgType::kFeaturesReply: {
      FeaturesReply f;
      r.u64(f.datapath_id);
      r.u32(f.n_buffers);
      r.u8(f.n_tables);
      r.u8(f.auxiliary_id);
      r.skip(2);
      r.u32(f.capabilities);
      r.u32(f.reserved);
      return MessageBody(std::move(f));
    }
    case MsgType::kGetConfigRequest:
      return MessageBody(GetConfigRequest{});
    case MsgType::kGetConfigReply: {
      GetConfigReply g;
      r.u16(g.flags);
      r.u16(g.miss_send_len);
      return MessageBody(g);
    }
    case MsgType::kSetConfig: {
      SetConfig g;
      r.u16(g.flags);
      r.u16(g.miss_send_len);
      return MessageBody(g);
    }
    case MsgType::kPacketIn: {
      PacketIn p;
      r.u32(p.buffer_id);
      r.u16(p.total_len);
      r.u8(p.reason);
      r.u8(p.table_id);
      r.u64(p.cookie);
      FLOWLAB_ASSIGN_OR_RETURN(p.match, of13::decode_match(c));
      if (!r.skip(2)) return unexpected(of13::short_error(c, "packet_in padding", 2));
      p.data = rest_bytes(c);
      return MessageBody(std::move(p));
    }
    case MsgType::kFlowRemoved: {
      FlowRemoved f;
      r.u64(f.cookie);
      r.u16(f.priority);
      r.u8(f.reason);
      r.u8(f.table_id);
      r.u32(f.duration_sec);
      r.u32(f.duration_nsec);
      r.u16(f.idle_timeout);
      r.u16(f.hard_timeout);
      r.u64(f.packet_count);
      r.u64(f.byte_count);
      FLOWLAB_ASSIGN_OR_RETURN(f.match, of13::decode_match(c));
      if (!c.empty()) return unexpected(body_len_error(c, t, 0));
      return MessageBody(std::move(f));
    }
    case MsgType::kPortStatus: {
      PortStatus p;
      r.u8(p.reason);
      r.skip(7);
      FLOWLAB_ASSIGN_OR_RETURN(p.desc, of13::decode_port(c));
      return MessageBody(std::move(p));
    }
    case MsgType::kPacketOut: {
      PacketOut p;
      uint16_t actions_len = 0;
      r.u32(p.buffer_id);
      r.u32(p.in_port);
      r.u16(actions_len);
      r.skip(6);
      if (actions_len > c.remaining())
        return unexpected(OfError::make(
            BadRequestCode::kBadLen,
            fmt::format("packet_out: actions_len {} > {} bytes left", actions_len, c.remaining()),
            c.at() - 8));
      FLOWLAB_ASSIGN_OR_RETURN(p.actions, of13::decode_actions(c.take(actions_len)));
      p.data = rest_bytes(c);
      return MessageBody(std::move(p));
    }
    case MsgType::kFlowMod: {
      FlowMod f;
      uint8_t cmd = 0;
      r.u64(f.cookie);
      r.u64(f.cookie_mask);
      r.u8(f.table_id);
      r.u8(cmd);
      r.u16(f.idle_timeout);
      r.u16(f.hard_timeout);
      r.u16(f.priority);
      r.u32(f.buffer_id);
      r.u32(f.out_port);
      r.u32(f.out_group);
      r.u16(f.flags);
      r.skip(2);
      f.command = static_cast<FlowModCommand>(cmd);
      FLOWLAB_ASSIGN_OR_RETURN(f.match, of13::decode_match(c));
      FLOWLAB_ASSIGN_OR_RETURN(f.instructions, of13::decode_instructions(c.take(c.remaining())));
      return MessageBody(std::move(f));
    }
    case MsgType::kGroupMod: {
      GroupMod g;
      uint16_t cmd = 0;
      uint8_t type = 0;
      r.u16(cmd);
      r.u8(type);
      r.skip(1);
      r.u32(g.group_id);
      if (cmd > uint16_t(GroupModCommand::kDelete))  // insert/remove bucket are OpenFlow 1.5's
        return unexpected(OfError::make(GroupModFailedCode::kBadCommand,
                                        fmt::format("group_mod: unknown command {}", cmd), kHeaderLen));
      g.command = static_cast<GroupModCommand>(cmd);
      g.type = static_cast<GroupType>(type);
      FLOWLAB_ASSIGN_OR_RETURN(g.buckets, of13::decode_buckets(c.take(c.remaining())));
      return MessageBody(std::move(g));
    }
    case MsgType::kPortMod: {
      PortMod p;
      r.u32(p.port_no);
      r.skip(4);
      r.copy(p.hw_addr.b.data(), 6);
      r.skip(2);
      r.u32(p.config);
      r.u32(p.mask);
      r.u32(p.advertise);
      return MessageBody(p);
    }
    case MsgType::kTableMod: {
      TableMod m;
      r.u8(m.table_id);
      r.skip(3);
      r.u32(m.config);
      return MessageBody(m);
    }
    case MsgType::kMultipartRequest: {
      FLOWLAB_ASSIGN_OR_RETURN(MultipartRequest m, of13::decode_multipart_request(c));
      return MessageBody(std::move(m));
    }
    case MsgType::kMultipartReply: {
      FLOWLAB_ASSIGN_OR_RETURN(MultipartReply m, of13::decode_multipart_reply(c));
      return MessageBody(std::move(m));
    }
    case MsgType::kBarrierRequest:
      return MessageBody(BarrierRequest{});
    case MsgType::kBarrierReply:
      return MessageBody(BarrierReply{});
    case MsgType::kQueueGetConfigRequest: {
      QueueGetConfigRequest q;
      r.u32(q.port);
      return MessageBody(q);
    }
    case MsgType::kQueueGetConfigReply: {
      FLOWLAB_ASSIGN_OR_RETURN(QueueGetConfigReply q, decode_queue_config_reply(c));
      return MessageBody(std::move(q));
    }
    case MsgType::kRoleRequest:
    case MsgType::kRoleReply: {
      Role role;
      uint32_t v = 0;
      r.u32(v);
      r.skip(4);
      r.u64(role.generation_id);
      role.role = static_cast<ControllerRole>(v);
      if (t == MsgType::kRoleRequest) return MessageBody(RoleRequest{role});
      return MessageBody(RoleReply{role});
    }
    case MsgType::kGetAsyncRequest:
      return MessageBody(GetAsyncRequest{});
    case MsgType::kGetAsyncReply: {
      GetAsyncReply a;
      read_async(r, a);
      return MessageBody(a);
    }
    case MsgType::kSetAsync: {
      SetAsync a;
      read_async(r, a);
      return MessageBody(a);
    }
    case MsgType::kMeterMod: {
      MeterMod m;
      uint16_t cmd = 0;
      r.u16(cmd);
      r.u16(m.flags);
      r.u32(m.meter_id);
      m.command = static_cast<MeterModCommand>(cmd);
      FLOWLAB_ASSIGN_OR_RETURN(m.bands, of13::decode_bands(c.take(c.remaining())));
      return MessageBody(std::move(m));
    }
    case MsgType::kRoleStatus:  // OF1.4 (of14/), refused above by type
    case MsgType::kTableStatus:
    case MsgType::kRequestForward:
    case MsgType::kControllerStatus:  // OF1.5 (of15/)
      break;
  }
  return unexpected(OfError::make(BadRequestCode::kBadType, "unknown message type", 1));
}

}  // namespace

Result<Message, OfError> decode_of13(ByteSpan wire) {
  if (wire.size() < kHeaderLen)
    return unexpected(
        OfError::make(BadRequestCode::kBadLen, "message shorter than the 8-byte OpenFlow header"));
  if (wire[0] != kOf13)
    return unexpected(
        OfError::make(BadRequestCode::kBadVersion, fmt::format("version {} is not OF1.3", wire[0])));
  uint16_t len = load_be16(&wire[2]);
  if (len != wire.size())
    return unexpected(OfError::make(BadRequestCode::kBadLen,
                                    fmt::format("header length {} != message size {}", len, wire.size()), 2));
  Message msg;
  msg.version = kOf13;
  msg.xid = load_be32(&wire[4]);
  uint8_t type = wire[1];
  if (type > static_cast<uint8_t>(MsgType::kMeterMod))
    return unexpected(
        OfError::make(BadRequestCode::kBadType, fmt::format("unknown message type {}", type), 1));
  auto t = static_cast<MsgType>(type);
  Cursor c(wire.subspan(kHeaderLen), kHeaderLen);
  int fixed = fixed_body(t);
  if (fixed >= 0 && c.remaining() != size_t(fixed)) return unexpected(body_len_error(c, t, size_t(fixed)));
  if (fixed < 0 && c.remaining() < min_body(t)) return unexpected(body_len_error(c, t, min_body(t)));
  auto body = decode_body(t, c);
  if (!body.ok()) {
    OfError e = std::move(body.error());
    e.message = fmt::format("{}: {}", to_string(t), e.message);
    return unexpected(std::move(e));
  }
  msg.body = std::move(*body);
  return msg;
}

}  // namespace flowlab::of
