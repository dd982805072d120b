// OpenFlow 1.0 stats request/reply bodies <-> model multipart bodies.
//
// OF1.0 has desc, flow, aggregate, table, port, queue and vendor stats, numbered
// like the OF1.3 multipart types they become. The reader is positioned after the
// 12-byte stats header (type and flags are read here); every body must fill the
// message exactly. Multipart kinds OF1.0 lacks (groups, meters, table features,
// port desc) are encode errors.
#include <fmt/format.h>

#include "openflow/of10/wire.h"

namespace flowlab::of::of10 {
namespace {

constexpr size_t kDescLen = 1056;
constexpr size_t kFlowStatsFixed = 88;
constexpr size_t kTableStatsLen = 64;
constexpr size_t kPortStatsLen = 104;
constexpr size_t kQueueStatsLen = 32;

OfError bad_len(const ByteReader& r, std::string msg) {
  return OfError::make(BadRequestCode::kBadLen, std::move(msg), r.offset());
}

// Checks that the rest of the message is exactly `n` bytes.
std::optional<OfError> need_exact(const ByteReader& r, std::string_view what, size_t n) {
  if (r.remaining() == n) return std::nullopt;
  return bad_len(r, fmt::format("{} body must be {} bytes, not {}", what, n, r.remaining()));
}

// Checks that the rest of the message is a whole number of `n`-byte entries.
std::optional<OfError> need_multiple(const ByteReader& r, std::string_view what, size_t n) {
  if (r.remaining() % n == 0) return std::nullopt;
  return bad_len(r, fmt::format("{} body of {} bytes is not a multiple of {}", what, r.remaining(), n));
}

Result<FlowStatsRequest, OfError> decode_flow_request(ByteReader& r, std::string_view what) {
  if (auto e = need_exact(r, what, kMatchLen + 4)) return unexpected(*e);
  FlowStatsRequest q;
  FLOWLAB_ASSIGN_OR_RETURN(q.match, decode_match(r));
  uint16_t out_port = 0;
  r.u8(q.table_id);
  r.skip(1);
  r.u16(out_port);
  q.out_port = widen_port(out_port);
  return q;
}

Result<ExperimenterMultipart, OfError> decode_vendor(ByteReader& r) {
  if (r.remaining() < 4) return unexpected(truncated(r, "vendor stats", 4));
  ExperimenterMultipart v;
  r.u32(v.experimenter);
  ByteSpan rest = r.rest();
  v.data.assign(rest.begin(), rest.end());
  r.skip(rest.size());
  return v;
}

Result<FlowStats, OfError> decode_flow_stats(ByteReader& r) {
  const size_t at = r.offset();
  if (r.remaining() < kFlowStatsFixed) return unexpected(truncated(r, "ofp_flow_stats", kFlowStatsFixed));
  uint16_t len = 0;
  r.u16(len);
  if (len < kFlowStatsFixed || len > r.remaining() + 2)
    return unexpected(err_at(
        BadRequestCode::kBadLen, at,
        fmt::format("ofp_flow_stats length {} (needs {}..{})", len, kFlowStatsFixed, r.remaining() + 2)));
  FlowStats s;
  r.u8(s.table_id);
  r.skip(1);
  FLOWLAB_ASSIGN_OR_RETURN(s.match, decode_match(r));
  r.u32(s.duration_sec);
  r.u32(s.duration_nsec);
  r.u16(s.priority);
  r.u16(s.idle_timeout);
  r.u16(s.hard_timeout);
  r.skip(6);
  r.u64(s.cookie);
  r.u64(s.packet_count);
  r.u64(s.byte_count);
  FLOWLAB_ASSIGN_OR_RETURN(ActionList actions, decode_actions(r, len - kFlowStatsFixed));
  s.instructions = instructions_from(std::move(actions));
  return s;
}

}  // namespace

Result<MultipartRequest, OfError> decode_stats_request(ByteReader& r) {
  const size_t at = r.offset();
  uint16_t type = 0;
  MultipartRequest m;
  if (!r.u16(type) || !r.u16(m.flags)) return unexpected(truncated(r, "stats request header", 4));
  switch (static_cast<StatsType>(type)) {
    case StatsType::kDesc:
      if (auto e = need_exact(r, "desc stats request", 0)) return unexpected(*e);
      m.body = DescRequest{};
      return m;
    case StatsType::kFlow: {
      FLOWLAB_ASSIGN_OR_RETURN(m.body, decode_flow_request(r, "flow stats request"));
      return m;
    }
    case StatsType::kAggregate: {
      FLOWLAB_ASSIGN_OR_RETURN(FlowStatsRequest q, decode_flow_request(r, "aggregate stats request"));
      AggregateStatsRequest a;
      static_cast<FlowStatsRequest&>(a) = std::move(q);
      m.body = std::move(a);
      return m;
    }
    case StatsType::kTable:
      if (auto e = need_exact(r, "table stats request", 0)) return unexpected(*e);
      m.body = TableStatsRequest{};
      return m;
    case StatsType::kPort: {
      if (auto e = need_exact(r, "port stats request", 8)) return unexpected(*e);
      uint16_t port = 0;
      r.u16(port);
      r.skip(6);
      m.body = PortStatsRequest{widen_port(port)};
      return m;
    }
    case StatsType::kQueue: {
      if (auto e = need_exact(r, "queue stats request", 8)) return unexpected(*e);
      uint16_t port = 0;
      QueueStatsRequest q;
      r.u16(port);
      r.skip(2);
      r.u32(q.queue_id);
      q.port_no = widen_port(port);
      m.body = q;
      return m;
    }
    case StatsType::kVendor: {
      FLOWLAB_ASSIGN_OR_RETURN(m.body, decode_vendor(r));
      return m;
    }
  }
  return unexpected(
      err_at(BadRequestCode::kBadMultipart, at, fmt::format("unknown OF1.0 stats type {}", type)));
}

Result<MultipartReply, OfError> decode_stats_reply(ByteReader& r) {
  const size_t at = r.offset();
  uint16_t type = 0;
  MultipartReply m;
  if (!r.u16(type) || !r.u16(m.flags)) return unexpected(truncated(r, "stats reply header", 4));
  switch (static_cast<StatsType>(type)) {
    case StatsType::kDesc: {
      if (auto e = need_exact(r, "desc stats reply", kDescLen)) return unexpected(*e);
      DescReply d;
      r.str(256, d.mfr_desc);
      r.str(256, d.hw_desc);
      r.str(256, d.sw_desc);
      r.str(32, d.serial_num);
      r.str(256, d.dp_desc);
      m.body = std::move(d);
      return m;
    }
    case StatsType::kFlow: {
      FlowStatsReply f;
      while (!r.empty()) {
        FLOWLAB_ASSIGN_OR_RETURN(FlowStats s, decode_flow_stats(r));
        f.stats.push_back(std::move(s));
      }
      m.body = std::move(f);
      return m;
    }
    case StatsType::kAggregate: {
      if (auto e = need_exact(r, "aggregate stats reply", 24)) return unexpected(*e);
      AggregateStatsReply a;
      r.u64(a.packet_count);
      r.u64(a.byte_count);
      r.u32(a.flow_count);
      r.skip(4);
      m.body = a;
      return m;
    }
    case StatsType::kTable: {
      if (auto e = need_multiple(r, "table stats reply", kTableStatsLen)) return unexpected(*e);
      TableStatsReply t;
      while (!r.empty()) {
        TableStats s;
        r.u8(s.table_id);
        r.skip(3);
        r.str(32, s.name);
        r.u32(s.wildcards);
        r.u32(s.max_entries);
        r.u32(s.active_count);
        r.u64(s.lookup_count);
        r.u64(s.matched_count);
        t.stats.push_back(std::move(s));
      }
      m.body = std::move(t);
      return m;
    }
    case StatsType::kPort: {
      if (auto e = need_multiple(r, "port stats reply", kPortStatsLen)) return unexpected(*e);
      PortStatsReply p;
      while (!r.empty()) {
        PortStats s;
        uint16_t port = 0;
        r.u16(port);
        r.skip(6);
        s.port_no = widen_port(port);
        for (uint64_t* c :
             {&s.rx_packets, &s.tx_packets, &s.rx_bytes, &s.tx_bytes, &s.rx_dropped, &s.tx_dropped,
              &s.rx_errors, &s.tx_errors, &s.rx_frame_err, &s.rx_over_err, &s.rx_crc_err, &s.collisions})
          r.u64(*c);
        p.stats.push_back(s);
      }
      m.body = std::move(p);
      return m;
    }
    case StatsType::kQueue: {
      if (auto e = need_multiple(r, "queue stats reply", kQueueStatsLen)) return unexpected(*e);
      QueueStatsReply q;
      while (!r.empty()) {
        QueueStats s;
        uint16_t port = 0;
        r.u16(port);
        r.skip(2);
        s.port_no = widen_port(port);
        r.u32(s.queue_id);
        r.u64(s.tx_bytes);
        r.u64(s.tx_packets);
        r.u64(s.tx_errors);
        q.stats.push_back(s);
      }
      m.body = std::move(q);
      return m;
    }
    case StatsType::kVendor: {
      FLOWLAB_ASSIGN_OR_RETURN(m.body, decode_vendor(r));
      return m;
    }
  }
  return unexpected(
      err_at(BadRequestCode::kBadMultipart, at, fmt::format("unknown OF1.0 stats type {}", type)));
}

namespace {

EncodeStatus unsupported_kind(MultipartType t) {
  return unexpected(
      OfError::make(BadRequestCode::kBadMultipart,
                    fmt::format("OF1.0 has no multipart/stats type {} (groups, meters, table features and "
                                "port desc are OF1.3 only)",
                                static_cast<uint16_t>(t))));
}

EncodeStatus encode_flow_request(const FlowStatsRequest& q, ByteWriter& w) {
  if (q.cookie != 0 || q.cookie_mask != 0)
    return unexpected(
        OfError::make(BadRequestCode::kBadMultipart, "OF1.0 flow stats requests cannot filter on cookies"));
  if (q.out_group != group::kAny)
    return unexpected(
        OfError::make(BadRequestCode::kBadMultipart, "OF1.0 flow stats requests cannot filter on out_group"));
  FLOWLAB_TRY(encode_match(q.match, w));
  FLOWLAB_ASSIGN_OR_RETURN(uint16_t out_port, narrow_port_or_error(q.out_port, "out_port"));
  w.u8(q.table_id);
  w.zeros(1);
  w.u16(out_port);
  return {};
}

EncodeStatus encode_vendor(const ExperimenterMultipart& v, ByteWriter& w) {
  if (v.exp_type != 0)
    return unexpected(
        OfError::make(BadRequestCode::kBadExpType, "OF1.0 vendor stats have no exp_type; put it in data"));
  w.u32(v.experimenter);
  w.bytes(v.data);
  return {};
}

EncodeStatus encode_flow_stats(const FlowStats& s, ByteWriter& w) {
  // s.flags (e.g. SEND_FLOW_REM of the entry) are not carried: OF1.0's
  // ofp_flow_stats has no field for them, and refusing made a switch's whole
  // flow-stats reply fail for any flow added with flags.
  FLOWLAB_ASSIGN_OR_RETURN(const ActionList* actions, actions_of(s.instructions, "flow stats"));
  const size_t start = w.size();
  w.u16(0);  // length, patched below
  w.u8(s.table_id);
  w.zeros(1);
  FLOWLAB_TRY(encode_match(s.match, w));
  w.u32(s.duration_sec);
  w.u32(s.duration_nsec);
  w.u16(s.priority);
  w.u16(s.idle_timeout);
  w.u16(s.hard_timeout);
  w.zeros(6);
  w.u64(s.cookie);
  w.u64(s.packet_count);
  w.u64(s.byte_count);
  FLOWLAB_TRY(encode_actions(*actions, w));
  const size_t len = w.size() - start;
  if (len > 0xffff)
    return unexpected(OfError::make(BadRequestCode::kBadLen, "ofp_flow_stats longer than 65535"));
  w.patch_u16(start, static_cast<uint16_t>(len));
  return {};
}

}  // namespace

EncodeStatus encode_stats_request(const MultipartRequest& m, ByteWriter& w) {
  const MultipartType t = multipart_type(m.body);
  w.u16(static_cast<uint16_t>(t));
  w.u16(m.flags);
  return std::visit(
      [&](const auto& b) -> EncodeStatus {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, DescRequest> || std::is_same_v<B, TableStatsRequest>) {
          return {};
        } else if constexpr (std::is_same_v<B, FlowStatsRequest> ||
                             std::is_same_v<B, AggregateStatsRequest>) {
          return encode_flow_request(b, w);
        } else if constexpr (std::is_same_v<B, PortStatsRequest>) {
          FLOWLAB_ASSIGN_OR_RETURN(uint16_t port, narrow_port_or_error(b.port_no, "port stats"));
          w.u16(port);
          w.zeros(6);
          return {};
        } else if constexpr (std::is_same_v<B, QueueStatsRequest>) {
          FLOWLAB_ASSIGN_OR_RETURN(uint16_t port, narrow_port_or_error(b.port_no, "queue stats"));
          w.u16(port);
          w.zeros(2);
          w.u32(b.queue_id);
          return {};
        } else if constexpr (std::is_same_v<B, ExperimenterMultipart>) {
          return encode_vendor(b, w);
        } else {
          return unsupported_kind(t);
        }
      },
      m.body);
}

EncodeStatus encode_stats_reply(const MultipartReply& m, ByteWriter& w) {
  const MultipartType t = multipart_type(m.body);
  w.u16(static_cast<uint16_t>(t));
  w.u16(m.flags);
  return std::visit(
      [&](const auto& b) -> EncodeStatus {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, DescReply>) {
          w.str(b.mfr_desc, 256);
          w.str(b.hw_desc, 256);
          w.str(b.sw_desc, 256);
          w.str(b.serial_num, 32);
          w.str(b.dp_desc, 256);
          return {};
        } else if constexpr (std::is_same_v<B, FlowStatsReply>) {
          for (const FlowStats& s : b.stats) FLOWLAB_TRY(encode_flow_stats(s, w));
          return {};
        } else if constexpr (std::is_same_v<B, AggregateStatsReply>) {
          w.u64(b.packet_count);
          w.u64(b.byte_count);
          w.u32(b.flow_count);
          w.zeros(4);
          return {};
        } else if constexpr (std::is_same_v<B, TableStatsReply>) {
          for (const TableStats& s : b.stats) {
            w.u8(s.table_id);
            w.zeros(3);
            w.str(s.name, 32);
            w.u32(s.wildcards);
            w.u32(s.max_entries);
            w.u32(s.active_count);
            w.u64(s.lookup_count);
            w.u64(s.matched_count);
          }
          return {};
        } else if constexpr (std::is_same_v<B, PortStatsReply>) {
          for (const PortStats& s : b.stats) {
            FLOWLAB_ASSIGN_OR_RETURN(uint16_t port, narrow_port_or_error(s.port_no, "port stats"));
            w.u16(port);
            w.zeros(6);
            for (uint64_t c :
                 {s.rx_packets, s.tx_packets, s.rx_bytes, s.tx_bytes, s.rx_dropped, s.tx_dropped, s.rx_errors,
                  s.tx_errors, s.rx_frame_err, s.rx_over_err, s.rx_crc_err, s.collisions})
              w.u64(c);
          }
          return {};
        } else if constexpr (std::is_same_v<B, QueueStatsReply>) {
          for (const QueueStats& s : b.stats) {
            FLOWLAB_ASSIGN_OR_RETURN(uint16_t port, narrow_port_or_error(s.port_no, "queue stats"));
            w.u16(port);
            w.zeros(2);
            w.u32(s.queue_id);
            w.u64(s.tx_bytes);
            w.u64(s.tx_packets);
            w.u64(s.tx_errors);
          }
          return {};
        } else if constexpr (std::is_same_v<B, ExperimenterMultipart>) {
          return encode_vendor(b, w);
        } else {
          return unsupported_kind(t);
        }
      },
      m.body);
}

}  // namespace flowlab::of::of10
