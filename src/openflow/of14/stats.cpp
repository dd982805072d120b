// OpenFlow 1.4 port and queue stats replies: 1.3's entries behind a length,
// with property lists (ports: the ethernet property holds the error counters).
#include <fmt/format.h>

#include "openflow/of14/of14.h"
#include "openflow/of14/wire.h"

namespace flowlab::of::of14 {
namespace {

constexpr size_t kBodyOff = 16;        // header 8 + multipart type, flags, pad
constexpr size_t kPortStatsLen = 80;   // ofp_port_stats without properties
constexpr size_t kEthStatsLen = 40;    // ofp_port_stats_prop_ethernet
constexpr size_t kQueueStatsLen = 48;  // ofp_queue_stats without properties
constexpr uint16_t kPropEthernet = 0;  // OFPPSPT_ETHERNET

// The entry at `at`: its length, checked against `min` and what is left.
Result<uint16_t, OfError> entry_len(ByteSpan wire, size_t at, size_t min, const char* what) {
  if (wire.size() - at < min)
    return unexpected(bad_len(fmt::format("{}: need {} bytes, have {}", what, min, wire.size() - at), at));
  const uint16_t len = load_be16(&wire[at]);
  if (len < min || len > wire.size() - at || len % 8)
    return unexpected(bad_len(fmt::format("{}: length {} (at least {}, a multiple of 8, at most {})", what,
                                          len, min, wire.size() - at),
                              at));
  return len;
}

}  // namespace

Result<PortStatsReply, OfError> decode_port_stats(ByteSpan wire, uint16_t flags) {
  PortStatsReply r;
  r.flags = flags;
  for (size_t at = kBodyOff; at < wire.size();) {
    auto len = entry_len(wire, at, kPortStatsLen, "ofp_port_stats");
    if (!len.ok()) return unexpected(std::move(len.error()));
    ByteReader rd(wire.subspan(at, *len));
    PortStats s;
    rd.skip(4);
    rd.u32(s.port_no);
    rd.u32(s.duration_sec);
    rd.u32(s.duration_nsec);
    for (uint64_t* v : {&s.rx_packets, &s.tx_packets, &s.rx_bytes, &s.tx_bytes, &s.rx_dropped, &s.tx_dropped,
                        &s.rx_errors, &s.tx_errors})
      rd.u64(*v);
    const ByteSpan props = wire.subspan(at + kPortStatsLen, *len - kPortStatsLen);
    std::string why;
    if (!properties_ok(props, why))
      return unexpected(
          OfError{static_cast<ErrorType>(kErrBadProperty), 1, at + kPortStatsLen, "ofp_port_stats: " + why});
    for (size_t o = 0; o < props.size(); o += (size_t(load_be16(&props[o + 2])) + 7) / 8 * 8) {
      if (load_be16(&props[o]) != kPropEthernet) continue;
      if (load_be16(&props[o + 2]) != kEthStatsLen)
        return unexpected(OfError{static_cast<ErrorType>(kErrBadProperty), 1, at + kPortStatsLen + o,
                                  fmt::format("ofp_port_stats: ethernet property length {} != {}",
                                              load_be16(&props[o + 2]), kEthStatsLen)});
      ByteReader e(props.subspan(o + 8, kEthStatsLen - 8));
      e.u64(s.rx_frame_err);
      e.u64(s.rx_over_err);
      e.u64(s.rx_crc_err);
      e.u64(s.collisions);
    }
    r.stats.push_back(s);
    at += *len;
  }
  return r;
}

void encode_port_stats(const PortStatsReply& r, Bytes& out) {
  ByteWriter w(out);
  for (const PortStats& s : r.stats) {
    w.u16(uint16_t(kPortStatsLen + kEthStatsLen));
    w.zeros(2);
    w.u32(s.port_no);
    w.u32(s.duration_sec);
    w.u32(s.duration_nsec);
    for (uint64_t v : {s.rx_packets, s.tx_packets, s.rx_bytes, s.tx_bytes, s.rx_dropped, s.tx_dropped,
                       s.rx_errors, s.tx_errors})
      w.u64(v);
    w.u16(kPropEthernet);
    w.u16(uint16_t(kEthStatsLen));
    w.zeros(4);
    for (uint64_t v : {s.rx_frame_err, s.rx_over_err, s.rx_crc_err, s.collisions}) w.u64(v);
  }
}

Result<QueueStatsReply, OfError> decode_queue_stats(ByteSpan wire, uint16_t flags) {
  QueueStatsReply r;
  r.flags = flags;
  for (size_t at = kBodyOff; at < wire.size();) {
    auto len = entry_len(wire, at, kQueueStatsLen, "ofp_queue_stats");
    if (!len.ok()) return unexpected(std::move(len.error()));
    std::string why;
    if (!properties_ok(wire.subspan(at + kQueueStatsLen, *len - kQueueStatsLen), why))
      return unexpected(OfError{static_cast<ErrorType>(kErrBadProperty), 1, at + kQueueStatsLen,
                                "ofp_queue_stats: " + why});
    ByteReader rd(wire.subspan(at, kQueueStatsLen));
    QueueStats s;
    rd.skip(8);
    rd.u32(s.port_no);
    rd.u32(s.queue_id);
    rd.u64(s.tx_bytes);
    rd.u64(s.tx_packets);
    rd.u64(s.tx_errors);
    rd.u32(s.duration_sec);
    rd.u32(s.duration_nsec);
    r.stats.push_back(s);
    at += *len;
  }
  return r;
}

void encode_queue_stats(const QueueStatsReply& r, Bytes& out) {
  ByteWriter w(out);
  for (const QueueStats& s : r.stats) {
    w.u16(uint16_t(kQueueStatsLen));
    w.zeros(6);
    w.u32(s.port_no);
    w.u32(s.queue_id);
    w.u64(s.tx_bytes);
    w.u64(s.tx_packets);
    w.u64(s.tx_errors);
    w.u32(s.duration_sec);
    w.u32(s.duration_nsec);
  }
}

}  // namespace flowlab::of::of14
