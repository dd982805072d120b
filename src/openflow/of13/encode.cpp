// OpenFlow 1.3 encoder: writes the header, then each message body in its OF1.3
// layout (the inverse of decode_of13 in codec_of13.cpp), then patches the length.
#include <fmt/format.h>

#include "openflow/of13/wire.h"

namespace flowlab::of {
namespace {

void encode_hello(const Hello& h, ByteWriter& w) {
  for (const HelloElement& el : h.elements) {
    size_t start = w.size();
    w.u16(el.type);
    w.u16(0);
    if (el.type == static_cast<uint16_t>(HelloElemType::kVersionBitmap) && el.data.empty()) {
      for (uint32_t bm : el.bitmaps) w.u32(bm);
    } else {
      w.bytes(el.data);
    }
    w.patch_u16(start + 2, uint16_t(w.size() - start));
    w.pad_to(start, 8);
  }
}

void encode_queue_config_reply(const QueueGetConfigReply& q, ByteWriter& w) {
  w.u32(q.port);
  w.zeros(4);
  for (const PacketQueue& pq : q.queues) {
    size_t start = w.size();
    w.u32(pq.queue_id);
    w.u32(pq.port);
    w.u16(0);
    w.zeros(6);
    for (const QueueProperty& p : pq.properties) {
      size_t pstart = w.size();
      w.u16(static_cast<uint16_t>(p.type));
      w.u16(0);
      w.zeros(4);
      if (p.type == QueuePropType::kMinRate || p.type == QueuePropType::kMaxRate) {
        w.u16(p.rate);
        w.zeros(6);
      } else if (p.type == QueuePropType::kExperimenter) {
        w.u32(p.experimenter);
        w.zeros(4);
        w.bytes(p.data);
      } else {
        w.bytes(p.data);
      }
      w.patch_u16(pstart + 2, uint16_t(w.size() - pstart));
    }
    w.patch_u16(start + 8, uint16_t(w.size() - start));
  }
}

void write_async(const AsyncConfig& a, ByteWriter& w) {
  for (const auto* arr : {&a.packet_in_mask, &a.port_status_mask, &a.flow_removed_mask})
    for (uint32_t v : *arr) w.u32(v);
}

void write_port_mod(const PortMod& p, ByteWriter& w) {
  w.u32(p.port_no);
  w.zeros(4);
  w.bytes(p.hw_addr.b.data(), 6);
  w.zeros(2);
  w.u32(p.config);
  w.u32(p.mask);
  w.u32(p.advertise);
  w.zeros(4);
}

BasicStatus<OfError> encode_body(const MessageBody& body, ByteWriter& w) {
  return std::visit(
      [&](const auto& b) -> BasicStatus<OfError> {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, Hello>) {
          encode_hello(b, w);
        } else if constexpr (std::is_same_v<T, ErrorMsg>) {
          w.u16(b.type);
          w.u16(b.code);
          if (b.type == static_cast<uint16_t>(ErrorType::kExperimenter)) w.u32(b.experimenter);
          w.bytes(b.data);
        } else if constexpr (std::is_same_v<T, EchoRequest> || std::is_same_v<T, EchoReply>) {
          w.bytes(b.data);
        } else if constexpr (std::is_same_v<T, ExperimenterMsg>) {
          w.u32(b.experimenter);
          w.u32(b.exp_type);
          w.bytes(b.data);
        } else if constexpr (std::is_same_v<T, FeaturesReply>) {
          w.u64(b.datapath_id);
          w.u32(b.n_buffers);
          w.u8(b.n_tables);
          w.u8(b.auxiliary_id);
          w.zeros(2);
          w.u32(b.capabilities);
          w.u32(b.reserved);
        } else if constexpr (std::is_same_v<T, GetConfigReply> || std::is_same_v<T, SetConfig>) {
          w.u16(b.flags);
          w.u16(b.miss_send_len);
        } else if constexpr (std::is_same_v<T, PacketIn>) {
          w.u32(b.buffer_id);
          w.u16(b.total_len);
          w.u8(b.reason);
          w.u8(b.table_id);
          w.u64(b.cookie);
          of13::encode_match(b.match, w);
          w.zeros(2);
          w.bytes(b.data);
        } else if constexpr (std::is_same_v<T, FlowRemoved>) {
          w.u64(b.cookie);
          w.u16(b.priority);
          w.u8(b.reason);
          w.u8(b.table_id);
          w.u32(b.duration_sec);
          w.u32(b.duration_nsec);
          w.u16(b.idle_timeout);
          w.u16(b.hard_timeout);
          w.u64(b.packet_count);
          w.u64(b.byte_count);
          of13::encode_match(b.match, w);
        } else if constexpr (std::is_same_v<T, PortStatus>) {
          w.u8(b.reason);
          w.zeros(7);
          of13::encode_port(b.desc, w);
        } else if constexpr (std::is_same_v<T, PacketOut>) {
          w.u32(b.buffer_id);
          w.u32(b.in_port);
          size_t len_at = w.size();
          w.u16(0);
          w.zeros(6);
          FLOWLAB_TRY(of13::encode_actions(b.actions, w));
          size_t alen = w.size() - len_at - 8;
          if (alen > 0xffff)
            return unexpected(OfError::make(BadRequestCode::kBadLen, "packet_out: actions too long"));
          w.patch_u16(len_at, uint16_t(alen));
          w.bytes(b.data);
        } else if constexpr (std::is_same_v<T, FlowMod>) {
          if (b.importance)
            return unexpected(OfError::make(BadRequestCode::kBadVersion, "importance needs OpenFlow 1.4"));
          w.u64(b.cookie);
          w.u64(b.cookie_mask);
          w.u8(b.table_id);
          w.u8(static_cast<uint8_t>(b.command));
          w.u16(b.idle_timeout);
          w.u16(b.hard_timeout);
          w.u16(b.priority);
          w.u32(b.buffer_id);
          w.u32(b.out_port);
          w.u32(b.out_group);
          w.u16(b.flags);
          w.zeros(2);
          of13::encode_match(b.match, w);
          FLOWLAB_TRY(of13::encode_instructions(b.instructions, w));
        } else if constexpr (std::is_same_v<T, GroupMod>) {
          if (b.command > GroupModCommand::kDelete)
            return unexpected(
                OfError::make(GroupModFailedCode::kBadCommand, "insert/remove bucket needs OpenFlow 1.5"));
          w.u16(static_cast<uint16_t>(b.command));
          w.u8(static_cast<uint8_t>(b.type));
          w.zeros(1);
          w.u32(b.group_id);
          FLOWLAB_TRY(of13::encode_buckets(b.buckets, w));
        } else if constexpr (std::is_same_v<T, PortMod>) {
          write_port_mod(b, w);
        } else if constexpr (std::is_same_v<T, TableMod>) {
          w.u8(b.table_id);
          w.zeros(3);
          w.u32(b.config);
        } else if constexpr (std::is_same_v<T, MultipartRequest>) {
          FLOWLAB_TRY(of13::encode_multipart_request(b, w));
        } else if constexpr (std::is_same_v<T, MultipartReply>) {
          FLOWLAB_TRY(of13::encode_multipart_reply(b, w));
        } else if constexpr (std::is_same_v<T, QueueGetConfigRequest>) {
          w.u32(b.port);
          w.zeros(4);
        } else if constexpr (std::is_same_v<T, QueueGetConfigReply>) {
          encode_queue_config_reply(b, w);
        } else if constexpr (std::is_same_v<T, RoleRequest> || std::is_same_v<T, RoleReply>) {
          w.u32(static_cast<uint32_t>(b.role));
          w.zeros(4);
          w.u64(b.generation_id);
        } else if constexpr (std::is_same_v<T, GetAsyncReply> || std::is_same_v<T, SetAsync>) {
          write_async(b, w);
        } else if constexpr (std::is_same_v<T, MeterMod>) {
          w.u16(static_cast<uint16_t>(b.command));
          w.u16(b.flags);
          w.u32(b.meter_id);
          FLOWLAB_TRY(of13::encode_bands(b.bands, w));
        } else if constexpr (std::is_same_v<T, RoleStatus> || std::is_same_v<T, TableStatus> ||
                             std::is_same_v<T, RequestForward>) {
          return unexpected(OfError::make(BadRequestCode::kBadType, "an OpenFlow 1.4 message"));
        } else if constexpr (std::is_same_v<T, ControllerStatus>) {
          return unexpected(OfError::make(BadRequestCode::kBadType, "an OpenFlow 1.5 message"));
        }
        // Header-only messages (features/config/async requests, barriers) have no body.
        return {};
      },
      body);
}

}  // namespace

BasicStatus<OfError> encode_of13_to(const Message& msg, Bytes& out) {
  const size_t start = out.size();
  ByteWriter w(out);
  w.u8(kOf13);
  w.u8(static_cast<uint8_t>(msg.type()));
  w.u16(0);
  w.u32(msg.xid);
  auto st = encode_body(msg.body, w);
  if (!st.ok()) {
    out.resize(start);
    OfError e = st.error();
    e.message = fmt::format("{}: {}", to_string(msg.type()), e.message);
    return unexpected(std::move(e));
  }
  const size_t len = out.size() - start;
  if (len > kMaxMessageLen) {
    out.resize(start);
    return unexpected(OfError::make(
        BadRequestCode::kBadLen,
        fmt::format("{}: {} bytes exceed the 65535-byte message limit", to_string(msg.type()), len)));
  }
  w.patch_u16(start + 2, uint16_t(len));
  return {};
}

Result<Bytes, OfError> encode_of13(const Message& msg) {
  Bytes out;
  out.reserve(256);
  FLOWLAB_TRY(encode_of13_to(msg, out));
  return out;
}

}  // namespace flowlab::of
