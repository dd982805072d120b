// OpenFlow 1.0 codec (wire version 0x01): whole messages <-> the shared model.
//
// decode_of10() checks the header (version, length == buffer size), then
// decodes the body with one ByteReader over the whole message, so every error
// carries the absolute byte offset of the problem. Fixed-size messages must
// have exactly their size. encode_of10() writes the header with a placeholder
// length, the body, then patches the length. Sub-structures live in
// of10_match.cpp (ofp_match), of10_actions.cpp (actions, ports) and
// of10_stats.cpp (stats bodies); the queue-config and hello bodies are here.
#include "openflow/codec.h"

#include <fmt/format.h>

#include "openflow/of10/names.h"
#include "openflow/of10/wire.h"

namespace flowlab::of {
namespace of10 {
namespace {

// A body that must be exactly `n` bytes long.
std::optional<OfError> need_body(const ByteReader& r, std::string_view what, size_t n) {
  if (r.remaining() == n) return std::nullopt;
  return OfError::make(BadRequestCode::kBadLen,
                       fmt::format("{} body must be {} bytes, not {}", what, n, r.remaining()), r.offset());
}

// A body of at least `n` bytes.
std::optional<OfError> need_min(const ByteReader& r, std::string_view what, size_t n) {
  if (r.remaining() >= n) return std::nullopt;
  return OfError::make(BadRequestCode::kBadLen,
                       fmt::format("{} body needs at least {} bytes, has {}", what, n, r.remaining()),
                       r.offset());
}

Bytes take_rest(ByteReader& r) {
  ByteSpan rest = r.rest();
  r.skip(rest.size());
  return Bytes(rest.begin(), rest.end());
}

#define OF10_NEED(check)                                      \
  do {                                                        \
    if (auto e_ = (check)) return unexpected(std::move(*e_)); \
  } while (0)

Result<MessageBody, OfError> decode_body(Type type, ByteReader& r) {
  switch (type) {
    case Type::kHello: {
      FLOWLAB_ASSIGN_OR_RETURN(auto elems, decode_hello_elements(r));
      return MessageBody(Hello{std::move(elems)});
    }
    case Type::kError: {
      OF10_NEED(need_min(r, "error", 4));
      ErrorMsg e;
      r.u16(e.type);
      r.u16(e.code);
      e.data = take_rest(r);
      return MessageBody(std::move(e));
    }
    case Type::kEchoRequest:
      return MessageBody(EchoRequest{take_rest(r)});
    case Type::kEchoReply:
      return MessageBody(EchoReply{take_rest(r)});
    case Type::kVendor: {
      OF10_NEED(need_min(r, "vendor", 4));
      ExperimenterMsg v;
      r.u32(v.experimenter);
      v.data = take_rest(r);
      return MessageBody(std::move(v));
    }
    case Type::kFeaturesRequest:
      OF10_NEED(need_body(r, "features_request", 0));
      return MessageBody(FeaturesRequest{});
    case Type::kFeaturesReply: {
      OF10_NEED(need_min(r, "features_reply", 24));
      FeaturesReply f;
      r.u64(f.datapath_id);
      r.u32(f.n_buffers);
      r.u8(f.n_tables);
      r.skip(3);
      r.u32(f.capabilities);
      r.u32(f.reserved);
      if (r.remaining() % kPhyPortLen != 0)
        return unexpected(
            OfError::make(BadRequestCode::kBadLen,
                          fmt::format("features_reply port list of {} bytes is not a multiple of {}",
                                      r.remaining(), kPhyPortLen),
                          r.offset()));
      while (!r.empty()) {
        FLOWLAB_ASSIGN_OR_RETURN(PortDesc p, decode_phy_port(r));
        f.ports.push_back(std::move(p));
      }
      return MessageBody(std::move(f));
    }
    case Type::kGetConfigRequest:
      OF10_NEED(need_body(r, "get_config_request", 0));
      return MessageBody(GetConfigRequest{});
    case Type::kGetConfigReply:
    case Type::kSetConfig: {
      OF10_NEED(need_body(r, "switch config", 4));
      SwitchConfig c;
      r.u16(c.flags);
      r.u16(c.miss_send_len);
      if (type == Type::kSetConfig) return MessageBody(SetConfig{c});
      return MessageBody(GetConfigReply{c});
    }
    case Type::kPacketIn: {
      OF10_NEED(need_min(r, "packet_in", 10));
      PacketIn p;
      uint16_t in_port = 0;
      r.u32(p.buffer_id);
      r.u16(p.total_len);
      r.u16(in_port);
      r.u8(p.reason);
      r.skip(1);
      p.match.add(OxmField::basic(OxmId::kInPort, widen_port(in_port)));
      p.data = take_rest(r);
      return MessageBody(std::move(p));
    }
    case Type::kFlowRemoved: {
      OF10_NEED(need_body(r, "flow_removed", kMatchLen + 40));
      FlowRemoved f;
      FLOWLAB_ASSIGN_OR_RETURN(f.match, decode_match(r));
      r.u64(f.cookie);
      r.u16(f.priority);
      r.u8(f.reason);
      r.skip(1);
      r.u32(f.duration_sec);
      r.u32(f.duration_nsec);
      r.u16(f.idle_timeout);
      r.skip(2);
      r.u64(f.packet_count);
      r.u64(f.byte_count);
      return MessageBody(std::move(f));
    }
    case Type::kPortStatus: {
      OF10_NEED(need_body(r, "port_status", 8 + kPhyPortLen));
      PortStatus p;
      r.u8(p.reason);
      r.skip(7);
      FLOWLAB_ASSIGN_OR_RETURN(p.desc, decode_phy_port(r));
      return MessageBody(std::move(p));
    }
    case Type::kPacketOut: {
      OF10_NEED(need_min(r, "packet_out", 8));
      PacketOut p;
      uint16_t in_port = 0, actions_len = 0;
      r.u32(p.buffer_id);
      r.u16(in_port);
      r.u16(actions_len);
      p.in_port = widen_port(in_port);
      if (actions_len > r.remaining())
        return unexpected(OfError::make(
            BadRequestCode::kBadLen,
            fmt::format("packet_out actions_len {} exceeds the {} bytes left", actions_len, r.remaining()),
            r.offset() - 2));
      FLOWLAB_ASSIGN_OR_RETURN(p.actions, decode_actions(r, actions_len));
      p.data = take_rest(r);
      return MessageBody(std::move(p));
    }
    case Type::kFlowMod: {
      OF10_NEED(need_min(r, "flow_mod", kMatchLen + 24));
      FlowMod f;
      FLOWLAB_ASSIGN_OR_RETURN(f.match, decode_match(r));
      uint16_t command = 0, out_port = 0;
      r.u64(f.cookie);
      const size_t command_at = r.offset();
      r.u16(command);
      r.u16(f.idle_timeout);
      r.u16(f.hard_timeout);
      r.u16(f.priority);
      r.u32(f.buffer_id);
      r.u16(out_port);
      r.u16(f.flags);
      if (command > static_cast<uint16_t>(FlowModCommand::kDeleteStrict))
        return unexpected(err_at(FlowModFailedCode::kBadCommand, command_at,
                                 fmt::format("flow_mod command {} unknown", command)));
      f.command = static_cast<FlowModCommand>(command);
      f.out_port = widen_port(out_port);
      FLOWLAB_ASSIGN_OR_RETURN(ActionList actions, decode_actions(r, r.remaining()));
      f.instructions = instructions_from(std::move(actions));
      return MessageBody(std::move(f));
    }
    case Type::kPortMod: {
      OF10_NEED(need_body(r, "port_mod", 24));
      PortMod p;
      uint16_t port = 0;
      r.u16(port);
      r.copy(p.hw_addr.b.data(), 6);
      r.u32(p.config);
      r.u32(p.mask);
      r.u32(p.advertise);
      r.skip(4);
      p.port_no = widen_port(port);
      p.advertise = features_from_of10(p.advertise);
      return MessageBody(p);
    }
    case Type::kStatsRequest: {
      FLOWLAB_ASSIGN_OR_RETURN(MultipartRequest m, decode_stats_request(r));
      return MessageBody(std::move(m));
    }
    case Type::kStatsReply: {
      FLOWLAB_ASSIGN_OR_RETURN(MultipartReply m, decode_stats_reply(r));
      return MessageBody(std::move(m));
    }
    case Type::kBarrierRequest:
      OF10_NEED(need_body(r, "barrier_request", 0));
      return MessageBody(BarrierRequest{});
    case Type::kBarrierReply:
      OF10_NEED(need_body(r, "barrier_reply", 0));
      return MessageBody(BarrierReply{});
    case Type::kQueueGetConfigRequest: {
      OF10_NEED(need_body(r, "queue_get_config_request", 4));
      uint16_t port = 0;
      r.u16(port);
      r.skip(2);
      return MessageBody(QueueGetConfigRequest{widen_port(port)});
    }
    case Type::kQueueGetConfigReply: {
      FLOWLAB_ASSIGN_OR_RETURN(QueueGetConfigReply q, decode_queue_config_reply(r));
      return MessageBody(std::move(q));
    }
  }
  return unexpected(
      OfError::make(BadRequestCode::kBadType, fmt::format("unknown OF1.0 message type {}", int(type)), 1));
}

EncodeStatus cannot_express(MsgType t) {
  return unexpected(
      OfError::make(BadRequestCode::kBadType, fmt::format("OF1.0 has no {} message", to_string(t))));
}

EncodeStatus encode_flow_mod(const FlowMod& f, ByteWriter& w) {
  const bool del = f.command == FlowModCommand::kDelete || f.command == FlowModCommand::kDeleteStrict;
  if (f.table_id != 0 && !(del && f.table_id == table::kAll))
    return unexpected(
        OfError::make(FlowModFailedCode::kBadTableId, fmt::format("OF1.0 flow_mod has one table; table_id {} "
                                                                  "cannot be expressed",
                                                                  f.table_id)));
  if (f.cookie_mask != 0)
    return unexpected(
        OfError::make(FlowModFailedCode::kBadFlags, "OF1.0 flow_mod cannot filter on a cookie mask"));
  // OF1.0 knows SEND_FLOW_REM, CHECK_OVERLAP and EMERG (bit 2, OF1.3's RESET_COUNTS).
  if (f.flags & ~uint16_t{0x7})
    return unexpected(OfError::make(FlowModFailedCode::kBadFlags,
                                    fmt::format("OF1.0 flow_mod flags 0x{:x} include bits OF1.0 lacks "
                                                "(no_pkt_counts/no_byt_counts)",
                                                f.flags)));
  if (f.out_group != group::kAny)
    return unexpected(
        OfError::make(FlowModFailedCode::kBadFlags, "OF1.0 flow_mod cannot filter on out_group"));
  FLOWLAB_ASSIGN_OR_RETURN(const ActionList* actions, actions_of(f.instructions, "flow_mod"));
  FLOWLAB_ASSIGN_OR_RETURN(uint16_t out_port, narrow_port_or_error(f.out_port, "flow_mod out_port"));
  FLOWLAB_TRY(encode_match(f.match, w));
  w.u64(f.cookie);
  w.u16(static_cast<uint16_t>(f.command));
  w.u16(f.idle_timeout);
  w.u16(f.hard_timeout);
  w.u16(f.priority);
  w.u32(f.buffer_id);
  w.u16(out_port);
  w.u16(f.flags);
  return encode_actions(*actions, w);
}

EncodeStatus encode_body(const Message& msg, Type& type, ByteWriter& w) {
  return std::visit(
      [&](const auto& b) -> EncodeStatus {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, Hello>) {
          type = Type::kHello;
          encode_hello_elements(b.elements, w);
        } else if constexpr (std::is_same_v<B, ErrorMsg>) {
          type = Type::kError;
          w.u16(b.type);
          w.u16(b.code);
          w.bytes(b.data);
        } else if constexpr (std::is_same_v<B, EchoRequest>) {
          type = Type::kEchoRequest;
          w.bytes(b.data);
        } else if constexpr (std::is_same_v<B, EchoReply>) {
          type = Type::kEchoReply;
          w.bytes(b.data);
        } else if constexpr (std::is_same_v<B, ExperimenterMsg>) {
          type = Type::kVendor;
          if (b.exp_type != 0)
            return unexpected(OfError::make(BadRequestCode::kBadExpType,
                                            "OF1.0 vendor messages have no exp_type; put it in data"));
          w.u32(b.experimenter);
          w.bytes(b.data);
        } else if constexpr (std::is_same_v<B, FeaturesRequest>) {
          type = Type::kFeaturesRequest;
        } else if constexpr (std::is_same_v<B, FeaturesReply>) {
          type = Type::kFeaturesReply;
          w.u64(b.datapath_id);
          w.u32(b.n_buffers);
          w.u8(b.n_tables);
          w.zeros(3);
          w.u32(b.capabilities);
          w.u32(b.reserved);
          for (const PortDesc& p : b.ports) FLOWLAB_TRY(encode_phy_port(p, w));
        } else if constexpr (std::is_same_v<B, GetConfigRequest>) {
          type = Type::kGetConfigRequest;
        } else if constexpr (std::is_same_v<B, GetConfigReply> || std::is_same_v<B, SetConfig>) {
          type = std::is_same_v<B, SetConfig> ? Type::kSetConfig : Type::kGetConfigReply;
          w.u16(b.flags);
          w.u16(b.miss_send_len);
        } else if constexpr (std::is_same_v<B, PacketIn>) {
          type = Type::kPacketIn;
          const OxmField* in = b.match.find(OxmId::kInPort);
          FLOWLAB_ASSIGN_OR_RETURN(
              uint16_t in_port, narrow_port_or_error(in ? static_cast<uint32_t>(in->value_u64()) : port::kAny,
                                                     "packet_in in_port"));
          w.u32(b.buffer_id);
          w.u16(b.total_len);
          w.u16(in_port);
          w.u8(b.reason);
          w.zeros(1);
          w.bytes(b.data);
        } else if constexpr (std::is_same_v<B, FlowRemoved>) {
          type = Type::kFlowRemoved;
          FLOWLAB_TRY(encode_match(b.match, w));
          w.u64(b.cookie);
          w.u16(b.priority);
          w.u8(b.reason);
          w.zeros(1);
          w.u32(b.duration_sec);
          w.u32(b.duration_nsec);
          w.u16(b.idle_timeout);
          w.zeros(2);
          w.u64(b.packet_count);
          w.u64(b.byte_count);
        } else if constexpr (std::is_same_v<B, PortStatus>) {
          type = Type::kPortStatus;
          w.u8(b.reason);
          w.zeros(7);
          FLOWLAB_TRY(encode_phy_port(b.desc, w));
        } else if constexpr (std::is_same_v<B, PacketOut>) {
          type = Type::kPacketOut;
          FLOWLAB_ASSIGN_OR_RETURN(uint16_t in_port, narrow_port_or_error(b.in_port, "packet_out in_port"));
          w.u32(b.buffer_id);
          w.u16(in_port);
          const size_t len_at = w.size();
          w.u16(0);
          FLOWLAB_TRY(encode_actions(b.actions, w));
          const size_t actions_len = w.size() - len_at - 2;
          if (actions_len > 0xffff)
            return unexpected(OfError::make(BadRequestCode::kBadLen, "packet_out actions too long"));
          w.patch_u16(len_at, static_cast<uint16_t>(actions_len));
          w.bytes(b.data);
        } else if constexpr (std::is_same_v<B, FlowMod>) {
          type = Type::kFlowMod;
          FLOWLAB_TRY(encode_flow_mod(b, w));
        } else if constexpr (std::is_same_v<B, PortMod>) {
          type = Type::kPortMod;
          FLOWLAB_ASSIGN_OR_RETURN(uint16_t port, narrow_port_or_error(b.port_no, "port_mod"));
          w.u16(port);
          w.bytes(b.hw_addr.b.data(), 6);
          w.u32(b.config);
          w.u32(b.mask);
          w.u32(features_to_of10(b.advertise));
          w.zeros(4);
        } else if constexpr (std::is_same_v<B, MultipartRequest>) {
          type = Type::kStatsRequest;
          FLOWLAB_TRY(encode_stats_request(b, w));
        } else if constexpr (std::is_same_v<B, MultipartReply>) {
          type = Type::kStatsReply;
          FLOWLAB_TRY(encode_stats_reply(b, w));
        } else if constexpr (std::is_same_v<B, BarrierRequest>) {
          type = Type::kBarrierRequest;
        } else if constexpr (std::is_same_v<B, BarrierReply>) {
          type = Type::kBarrierReply;
        } else if constexpr (std::is_same_v<B, QueueGetConfigRequest>) {
          type = Type::kQueueGetConfigRequest;
          FLOWLAB_ASSIGN_OR_RETURN(uint16_t port, narrow_port_or_error(b.port, "queue_get_config"));
          w.u16(port);
          w.zeros(2);
        } else if constexpr (std::is_same_v<B, QueueGetConfigReply>) {
          type = Type::kQueueGetConfigReply;
          FLOWLAB_TRY(encode_queue_config_reply(b, w));
        } else {
          // group/table/meter mod, role, async config: OF1.3 only.
          return cannot_express(msg.type());
        }
        return {};
      },
      msg.body);
}

}  // namespace

const char* type_name(uint8_t type) {
  static constexpr const char* kNames[] = {"OFPT_HELLO",
                                           "OFPT_ERROR",
                                           "OFPT_ECHO_REQUEST",
                                           "OFPT_ECHO_REPLY",
                                           "OFPT_VENDOR",
                                           "OFPT_FEATURES_REQUEST",
                                           "OFPT_FEATURES_REPLY",
                                           "OFPT_GET_CONFIG_REQUEST",
                                           "OFPT_GET_CONFIG_REPLY",
                                           "OFPT_SET_CONFIG",
                                           "OFPT_PACKET_IN",
                                           "OFPT_FLOW_REMOVED",
                                           "OFPT_PORT_STATUS",
                                           "OFPT_PACKET_OUT",
                                           "OFPT_FLOW_MOD",
                                           "OFPT_PORT_MOD",
                                           "OFPT_STATS_REQUEST",
                                           "OFPT_STATS_REPLY",
                                           "OFPT_BARRIER_REQUEST",
                                           "OFPT_BARRIER_REPLY",
                                           "OFPT_QUEUE_GET_CONFIG_REQUEST",
                                           "OFPT_QUEUE_GET_CONFIG_REPLY"};
  const auto i = static_cast<size_t>(type);
  return i < std::size(kNames) ? kNames[i] : nullptr;
}
}  // namespace of10

Result<Message, OfError> decode_of10(ByteSpan wire) {
  using namespace of10;
  if (wire.size() < kHeaderLen)
    return unexpected(
        OfError::make(BadRequestCode::kBadLen, fmt::format("OF1.0 message of {} bytes is shorter than the "
                                                           "8-byte header",
                                                           wire.size())));
  ByteReader r(wire);
  uint8_t version = 0, type = 0;
  uint16_t length = 0;
  Message msg;
  r.u8(version);
  r.u8(type);
  r.u16(length);
  r.u32(msg.xid);
  msg.version = kOf10;
  if (version != kOf10)
    return unexpected(OfError::make(BadRequestCode::kBadVersion,
                                    fmt::format("version 0x{:02x} given to the OF1.0 decoder", version)));
  if (length != wire.size())
    return unexpected(OfError::make(
        BadRequestCode::kBadLen,
        fmt::format("OF1.0 header length {} but the message has {} bytes", length, wire.size()), 2));
  if (type > static_cast<uint8_t>(Type::kQueueGetConfigReply))
    return unexpected(
        OfError::make(BadRequestCode::kBadType, fmt::format("unknown OF1.0 message type {}", type), 1));
  auto body = decode_body(static_cast<Type>(type), r);
  if (!body.ok()) {
    OfError e = std::move(body.error());
    e.message = fmt::format("{}: {}", type_name(type), e.message);
    return unexpected(std::move(e));
  }
  if (!r.empty())
    return unexpected(OfError::make(
        BadRequestCode::kBadLen,
        fmt::format("{}: {} trailing bytes after the body", type_name(type), r.remaining()), r.offset()));
  msg.body = std::move(*body);
  return msg;
}

BasicStatus<OfError> encode_of10_to(const Message& msg, Bytes& out) {
  using namespace of10;
  const size_t start = out.size();
  ByteWriter w(out);
  w.u8(kOf10);
  w.u8(0);   // type, patched below
  w.u16(0);  // length, patched below
  w.u32(msg.xid);
  Type type = Type::kHello;
  auto st = encode_body(msg, type, w);
  if (!st.ok()) {
    out.resize(start);
    OfError e = st.error();
    e.message = fmt::format("encoding {} for OF1.0: {}", to_string(msg.type()), e.message);
    return unexpected(std::move(e));
  }
  const size_t len = out.size() - start;
  if (len > kMaxMessageLen) {
    out.resize(start);
    return unexpected(OfError::make(
        BadRequestCode::kBadLen,
        fmt::format("encoding {} for OF1.0: {} bytes exceed 65535", to_string(msg.type()), len)));
  }
  out[start + 1] = static_cast<uint8_t>(type);
  w.patch_u16(start + 2, static_cast<uint16_t>(len));
  return {};
}

Result<Bytes, OfError> encode_of10(const Message& msg) {
  Bytes out;
  out.reserve(256);
  FLOWLAB_TRY(encode_of10_to(msg, out));
  return out;
}

}  // namespace flowlab::of
