// OpenFlow 1.4 queue description (OFPMP_QUEUE_DESC, 15): the request's port and
// queue, the reply's ofp_queue_desc entries and their properties (layouts in of14.h).
#include <fmt/format.h>

#include "openflow/of14/of14.h"
#include "openflow/of14/wire.h"

namespace flowlab::of::of14 {
namespace {

constexpr size_t kRequestBodyLen = 8;  // ofp_queue_desc_request: port_no, queue_id
constexpr size_t kQueueDescLen = 16;   // ofp_queue_desc without properties
constexpr size_t kRatePropLen = 8;     // ofp_queue_desc_prop_min_rate / max_rate
constexpr size_t kExpPropLen = 12;     // ofp_queue_desc_prop_experimenter without data

OfError queue_prop_error(uint16_t code, std::string msg, size_t at) {
  return OfError{static_cast<ErrorType>(kErrBadProperty), code, at, std::move(msg)};
}

// The properties of the entry whose property list starts at `at`.
Result<std::vector<QueueProperty>, OfError> decode_queue_props(ByteSpan wire, size_t at, size_t end) {
  std::vector<QueueProperty> props;
  std::string why;
  if (!properties_ok(wire.subspan(at, end - at), why))
    return unexpected(queue_prop_error(1 /* OFPBPC_BAD_LEN */, "ofp_queue_desc: " + why, at));
  for (size_t o = at; o < end;) {
    const uint16_t type = load_be16(&wire[o]);
    const uint16_t len = load_be16(&wire[o + 2]);
    QueueProperty p;
    p.type = QueuePropType(type);
    if (p.type == QueuePropType::kMinRate || p.type == QueuePropType::kMaxRate) {
      if (len != kRatePropLen)
        return unexpected(queue_prop_error(
            1, fmt::format("ofp_queue_desc: rate property length {} != {}", len, kRatePropLen), o));
      p.rate = load_be16(&wire[o + 4]);
    } else if (p.type == QueuePropType::kExperimenter) {
      if (len < kExpPropLen)
        return unexpected(queue_prop_error(
            1, fmt::format("ofp_queue_desc: experimenter property length {} < {}", len, kExpPropLen), o));
      p.experimenter = load_be32(&wire[o + 4]);
      p.exp_type = load_be32(&wire[o + 8]);
      p.data.assign(wire.begin() + long(o + kExpPropLen), wire.begin() + long(o + len));
    } else {
      return unexpected(
          queue_prop_error(0 /* OFPBPC_BAD_TYPE */,
                           fmt::format("ofp_queue_desc: property type {} is not a queue's", type), o));
    }
    props.push_back(std::move(p));
    o += (size_t(len) + 7) / 8 * 8;
  }
  return props;
}

}  // namespace

Result<QueueDescRequest, OfError> decode_queue_desc_request(ByteSpan wire) {
  if (wire.size() != kMultipartBodyOff + kRequestBodyLen)
    return unexpected(bad_len(fmt::format("queue_desc request: {} body bytes, it has 8 (port_no, queue_id)",
                                          wire.size() - std::min(wire.size(), kMultipartBodyOff)),
                              kMultipartBodyOff));
  return QueueDescRequest{load_be32(&wire[kMultipartBodyOff]), load_be32(&wire[kMultipartBodyOff + 4])};
}

void encode_queue_desc_request(const QueueDescRequest& r, Bytes& out) {
  ByteWriter w(out);
  w.u32(r.port_no);
  w.u32(r.queue_id);
}

Result<QueueDescReply, OfError> decode_queue_desc_reply(ByteSpan wire) {
  QueueDescReply r;
  for (size_t at = kMultipartBodyOff; at < wire.size();) {
    if (wire.size() - at < kQueueDescLen)
      return unexpected(bad_len(
          fmt::format("ofp_queue_desc: need {} bytes, have {}", kQueueDescLen, wire.size() - at), at));
    const uint16_t len = load_be16(&wire[at + 8]);
    if (len < kQueueDescLen || len > wire.size() - at || len % 8)
      return unexpected(
          bad_len(fmt::format("ofp_queue_desc: length {} (at least {}, a multiple of 8, at most {})", len,
                              kQueueDescLen, wire.size() - at),
                  at + 8));
    QueueDesc q;
    q.port_no = load_be32(&wire[at]);
    q.queue_id = load_be32(&wire[at + 4]);
    FLOWLAB_ASSIGN_OR_RETURN(q.properties, decode_queue_props(wire, at + kQueueDescLen, at + len));
    r.queues.push_back(std::move(q));
    at += len;
  }
  return r;
}

BasicStatus<OfError> encode_queue_desc_reply(const QueueDescReply& r, Bytes& out) {
  ByteWriter w(out);
  for (const QueueDesc& q : r.queues) {
    const size_t start = w.size();
    w.u32(q.port_no);
    w.u32(q.queue_id);
    w.u16(0);  // length, below
    w.zeros(6);
    for (const QueueProperty& p : q.properties) {
      w.u16(uint16_t(p.type));
      if (p.type == QueuePropType::kMinRate || p.type == QueuePropType::kMaxRate) {
        w.u16(uint16_t(kRatePropLen));
        w.u16(p.rate);
        w.zeros(2);
      } else if (p.type == QueuePropType::kExperimenter) {
        const size_t len = kExpPropLen + p.data.size();
        if (len > 0xffff) return unexpected(bad_len("ofp_queue_desc: experimenter property too long", 0));
        w.u16(uint16_t(len));
        w.u32(p.experimenter);
        w.u32(p.exp_type);
        w.bytes(p.data);
        w.zeros((8 - len % 8) % 8);
      } else {
        return unexpected(queue_prop_error(
            0, fmt::format("ofp_queue_desc: property type {} is not a queue's", uint16_t(p.type)), 0));
      }
    }
    if (w.size() - start > 0xffff) return unexpected(bad_len("ofp_queue_desc longer than 65535 bytes", 0));
    w.patch_u16(start + 8, uint16_t(w.size() - start));
  }
  return {};
}

}  // namespace flowlab::of::of14
