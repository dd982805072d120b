// OpenFlow 1.0 hello elements and queue-config reply bodies.
//
// An OF1.0 hello is formally empty, but peers that speak newer versions may add
// OF1.3-style hello elements (a version bitmap); they are parsed the same way.
// Queue properties: OF1.0 defines only min-rate (16 bytes); other property types
// are kept with their payload as opaque bytes.
#include <fmt/format.h>

#include <algorithm>

#include "openflow/of10/wire.h"

namespace flowlab::of::of10 {
namespace {

constexpr uint16_t kQueuePropMinRate = 1;

}  // namespace

Result<std::vector<HelloElement>, OfError> decode_hello_elements(ByteReader& r) {
  std::vector<HelloElement> out;
  while (!r.empty()) {
    const size_t at = r.offset();
    HelloElement e;
    uint16_t len = 0;
    if (!r.u16(e.type) || !r.u16(len))
      return unexpected(err_at(BadRequestCode::kBadLen, at, "hello element header truncated"));
    if (len < 4 || size_t{len} - 4 > r.remaining())
      return unexpected(err_at(BadRequestCode::kBadLen, at,
                               fmt::format("hello element length {} (needs 4..{})", len, r.remaining() + 4)));
    ByteSpan payload;
    r.bytes(len - 4, payload);
    if (e.type == static_cast<uint16_t>(HelloElemType::kVersionBitmap) && payload.size() % 4 == 0) {
      for (size_t i = 0; i < payload.size(); i += 4) e.bitmaps.push_back(load_be32(&payload[i]));
    } else {
      e.data.assign(payload.begin(), payload.end());
    }
    // Elements are padded to 8 bytes; tolerate a missing pad after the last one.
    const size_t pad = (8 - len % 8) % 8;
    r.skip(std::min(pad, r.remaining()));
    out.push_back(std::move(e));
  }
  return out;
}

void encode_hello_elements(const std::vector<HelloElement>& elems, ByteWriter& w) {
  for (const HelloElement& e : elems) {
    const size_t start = w.size();
    w.u16(e.type);
    w.u16(0);
    if (e.type == static_cast<uint16_t>(HelloElemType::kVersionBitmap) && e.data.empty()) {
      for (uint32_t b : e.bitmaps) w.u32(b);
    } else {
      w.bytes(e.data);
    }
    w.patch_u16(start + 2, static_cast<uint16_t>(w.size() - start));
    w.pad_to(start, 8);
  }
}

Result<QueueGetConfigReply, OfError> decode_queue_config_reply(ByteReader& r) {
  if (r.remaining() < 8) return unexpected(truncated(r, "queue_get_config_reply", 8));
  QueueGetConfigReply q;
  uint16_t port = 0;
  r.u16(port);
  r.skip(6);
  q.port = widen_port(port);
  while (!r.empty()) {
    const size_t at = r.offset();
    if (r.remaining() < 8) return unexpected(truncated(r, "ofp_packet_queue", 8));
    PacketQueue pq;
    uint16_t len = 0;
    r.u32(pq.queue_id);
    r.u16(len);
    r.skip(2);
    if (len < 8 || size_t{len} - 8 > r.remaining())
      return unexpected(
          err_at(BadRequestCode::kBadLen, at,
                 fmt::format("ofp_packet_queue length {} (needs 8..{})", len, r.remaining() + 8)));
    const size_t end = at + len;
    while (r.offset() < end) {
      const size_t pat = r.offset();
      if (end - pat < 8)
        return unexpected(err_at(BadRequestCode::kBadLen, pat, "queue property header truncated"));
      QueueProperty p;
      uint16_t ptype = 0, plen = 0;
      r.u16(ptype);
      r.u16(plen);
      r.skip(4);
      if (plen < 8 || plen > end - pat || (ptype == kQueuePropMinRate && plen != 16))
        return unexpected(err_at(BadRequestCode::kBadLen, pat,
                                 fmt::format("queue property type {} has length {}", ptype, plen)));
      p.type = static_cast<QueuePropType>(ptype);
      if (ptype == kQueuePropMinRate) {
        r.u16(p.rate);
        r.skip(6);
      } else {
        ByteSpan rest;
        r.bytes(plen - 8, rest);
        p.data.assign(rest.begin(), rest.end());
      }
      pq.properties.push_back(std::move(p));
    }
    q.queues.push_back(std::move(pq));
  }
  return q;
}

EncodeStatus encode_queue_config_reply(const QueueGetConfigReply& q, ByteWriter& w) {
  FLOWLAB_ASSIGN_OR_RETURN(uint16_t port, narrow_port_or_error(q.port, "queue config"));
  w.u16(port);
  w.zeros(6);
  for (const PacketQueue& pq : q.queues) {
    const size_t start = w.size();
    w.u32(pq.queue_id);
    w.u16(0);
    w.zeros(2);
    for (const QueueProperty& p : pq.properties) {
      const auto ptype = static_cast<uint16_t>(p.type);
      w.u16(ptype);
      if (ptype == kQueuePropMinRate) {
        w.u16(16);
        w.zeros(4);
        w.u16(p.rate);
        w.zeros(6);
      } else {
        w.u16(static_cast<uint16_t>(8 + p.data.size()));
        w.zeros(4);
        w.bytes(p.data);
      }
    }
    w.patch_u16(start + 4, static_cast<uint16_t>(w.size() - start));
  }
  return {};
}

}  // namespace flowlab::of::of10
