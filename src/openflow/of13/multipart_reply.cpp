// OF1.3 multipart reply bodies (OFPT_MULTIPART_REPLY), both ways.
//
// Reply bodies are lists of stats entries. Entries with their own length field
// (flow, group, group-desc, meter, meter-config) are decoded from a cursor
// limited to that length; fixed-size entries (table, port, queue, port-desc)
// must tile the body exactly. A leftover that fits no entry is OFPBRC_BAD_LEN.
#include <fmt/format.h>

#include "openflow/of13/wire.h"

namespace flowlab::of::of13 {
namespace {

constexpr size_t kNoLen = SIZE_MAX;

// Splits a list body into elements: fixed `min_len` bytes each when `len_off` is
// kNoLen, else the u16 length at `len_off` (at least `min_len`).
template <typename T, typename F>
Result<std::vector<T>, OfError> decode_list(Cursor& c, size_t min_len, size_t len_off, std::string_view what,
                                            F&& one) {
  std::vector<T> out;
  while (!c.empty()) {
    size_t len = min_len;
    if (len_off != kNoLen) {
      if (c.remaining() < len_off + 2) return unexpected(short_error(c, what, min_len));
      len = load_be16(c.rest().data() + len_off);
    }
    if (len < min_len || len > c.remaining())
      return unexpected(OfError::make(
          BadRequestCode::kBadLen,
          fmt::format("{}: entry length {} ({} bytes left)", what, len, c.remaining()), c.at()));
    Cursor e = c.take(len);
    FLOWLAB_ASSIGN_OR_RETURN(T v, one(e));
    out.push_back(std::move(v));
  }
  return out;
}

Result<FlowStats, OfError> decode_flow_stats(Cursor& e) {
  FlowStats f;
  ByteReader& r = e.r();
  r.skip(2);
  r.u8(f.table_id);
  r.skip(1);
  r.u32(f.duration_sec);
  r.u32(f.duration_nsec);
  r.u16(f.priority);
  r.u16(f.idle_timeout);
  r.u16(f.hard_timeout);
  r.u16(f.flags);
  r.skip(4);
  r.u64(f.cookie);
  r.u64(f.packet_count);
  r.u64(f.byte_count);
  FLOWLAB_ASSIGN_OR_RETURN(f.match, decode_match(e));
  FLOWLAB_ASSIGN_OR_RETURN(f.instructions, decode_instructions(e.take(e.remaining())));
  return f;
}

Result<GroupStats, OfError> decode_group_stats(Cursor& e) {
  GroupStats g;
  ByteReader& r = e.r();
  r.skip(4);
  r.u32(g.group_id);
  r.u32(g.ref_count);
  r.skip(4);
  r.u64(g.packet_count);
  r.u64(g.byte_count);
  r.u32(g.duration_sec);
  r.u32(g.duration_nsec);
  if (e.remaining() % 16 != 0) return unexpected(bad_len(e, "group stats bucket counters"));
  while (!e.empty()) {
    BucketCounter b;
    r.u64(b.packet_count);
    r.u64(b.byte_count);
    g.buckets.push_back(b);
  }
  return g;
}

Result<GroupDesc, OfError> decode_group_desc(Cursor& e) {
  GroupDesc g;
  uint8_t type = 0;
  e.r().skip(2);
  e.r().u8(type);
  e.r().skip(1);
  e.r().u32(g.group_id);
  g.type = static_cast<GroupType>(type);
  FLOWLAB_ASSIGN_OR_RETURN(g.buckets, decode_buckets(e.take(e.remaining())));
  return g;
}

Result<MeterStats, OfError> decode_meter_stats(Cursor& e) {
  MeterStats m;
  ByteReader& r = e.r();
  r.u32(m.meter_id);
  r.skip(2 + 6);
  r.u32(m.flow_count);
  r.u64(m.packet_in_count);
  r.u64(m.byte_in_count);
  r.u32(m.duration_sec);
  r.u32(m.duration_nsec);
  if (e.remaining() % 16 != 0) return unexpected(bad_len(e, "meter band stats"));
  while (!e.empty()) {
    MeterBandStats b;
    r.u64(b.packet_band_count);
    r.u64(b.byte_band_count);
    m.bands.push_back(b);
  }
  return m;
}

Result<MeterConfig, OfError> decode_meter_config(Cursor& e) {
  MeterConfig m;
  e.r().skip(2);
  e.r().u16(m.flags);
  e.r().u32(m.meter_id);
  FLOWLAB_ASSIGN_OR_RETURN(m.bands, decode_bands(e.take(e.remaining())));
  return m;
}

Result<TableStats, OfError> decode_table_stats(Cursor& e) {
  TableStats t;
  e.r().u8(t.table_id);
  e.r().skip(3);
  e.r().u32(t.active_count);
  e.r().u64(t.lookup_count);
  e.r().u64(t.matched_count);
  return t;
}

Result<PortStats, OfError> decode_port_stats(Cursor& e) {
  PortStats p;
  ByteReader& r = e.r();
  r.u32(p.port_no);
  r.skip(4);
  for (uint64_t* v :
       {&p.rx_packets, &p.tx_packets, &p.rx_bytes, &p.tx_bytes, &p.rx_dropped, &p.tx_dropped, &p.rx_errors,
        &p.tx_errors, &p.rx_frame_err, &p.rx_over_err, &p.rx_crc_err, &p.collisions})
    r.u64(*v);
  r.u32(p.duration_sec);
  r.u32(p.duration_nsec);
  return p;
}

void encode_port_stats(const PortStats& p, ByteWriter& w) {
  w.u32(p.port_no);
  w.zeros(4);
  for (uint64_t v : {p.rx_packets, p.tx_packets, p.rx_bytes, p.tx_bytes, p.rx_dropped, p.tx_dropped,
                     p.rx_errors, p.tx_errors, p.rx_frame_err, p.rx_over_err, p.rx_crc_err, p.collisions})
    w.u64(v);
  w.u32(p.duration_sec);
  w.u32(p.duration_nsec);
}

Result<QueueStats, OfError> decode_queue_stats(Cursor& e) {
  QueueStats q;
  ByteReader& r = e.r();
  r.u32(q.port_no);
  r.u32(q.queue_id);
  r.u64(q.tx_bytes);
  r.u64(q.tx_packets);
  r.u64(q.tx_errors);
  r.u32(q.duration_sec);
  r.u32(q.duration_nsec);
  return q;
}

// Patches the u16 length of the entry that started at `start`.
BasicStatus<OfError> patch_len(ByteWriter& w, size_t start, size_t at) {
  if (w.size() - start > 0xffff)
    return unexpected(OfError::make(BadRequestCode::kBadLen, "stats entry too long"));
  w.patch_u16(at, uint16_t(w.size() - start));
  return {};
}

}  // namespace

Result<MultipartReply, OfError> decode_multipart_reply(Cursor& c) {
  if (c.remaining() < 8) return unexpected(short_error(c, "multipart reply header", 8));
  size_t start = c.at();
  uint16_t type = 0;
  MultipartReply m;
  c.r().u16(type);
  c.r().u16(m.flags);
  c.r().skip(4);
  switch (static_cast<MultipartType>(type)) {
    case MultipartType::kDesc: {
      if (c.remaining() != 1056) return unexpected(bad_len(c, "desc reply"));
      DescReply d;
      c.r().str(256, d.mfr_desc);
      c.r().str(256, d.hw_desc);
      c.r().str(256, d.sw_desc);
      c.r().str(32, d.serial_num);
      c.r().str(256, d.dp_desc);
      m.body = std::move(d);
      return m;
    }
    case MultipartType::kFlow: {
      FLOWLAB_ASSIGN_OR_RETURN(auto v, decode_list<FlowStats>(c, 56, 0, "flow stats", decode_flow_stats));
      m.body = FlowStatsReply{std::move(v)};
      return m;
    }
    case MultipartType::kAggregate: {
      if (c.remaining() != 24) return unexpected(bad_len(c, "aggregate stats reply"));
      AggregateStatsReply a;
      c.r().u64(a.packet_count);
      c.r().u64(a.byte_count);
      c.r().u32(a.flow_count);
      m.body = a;
      return m;
    }
    case MultipartType::kTable: {
      FLOWLAB_ASSIGN_OR_RETURN(auto v,
                               decode_list<TableStats>(c, 24, kNoLen, "table stats", decode_table_stats));
      m.body = TableStatsReply{std::move(v)};
      return m;
    }
    case MultipartType::kPortStats: {
      FLOWLAB_ASSIGN_OR_RETURN(auto v,
                               decode_list<PortStats>(c, 112, kNoLen, "port stats", decode_port_stats));
      m.body = PortStatsReply{std::move(v)};
      return m;
    }
    case MultipartType::kQueue: {
      FLOWLAB_ASSIGN_OR_RETURN(auto v,
                               decode_list<QueueStats>(c, 40, kNoLen, "queue stats", decode_queue_stats));
      m.body = QueueStatsReply{std::move(v)};
      return m;
    }
    case MultipartType::kGroup: {
      FLOWLAB_ASSIGN_OR_RETURN(auto v, decode_list<GroupStats>(c, 40, 0, "group stats", decode_group_stats));
      m.body = GroupStatsReply{std::move(v)};
      return m;
    }
    case MultipartType::kGroupDesc: {
      FLOWLAB_ASSIGN_OR_RETURN(auto v, decode_list<GroupDesc>(c, 8, 0, "group desc", decode_group_desc));
      m.body = GroupDescReply{std::move(v)};
      return m;
    }
    case MultipartType::kGroupFeatures: {
      if (c.remaining() != 40) return unexpected(bad_len(c, "group features reply"));
      GroupFeaturesReply g;
      c.r().u32(g.types);
      c.r().u32(g.capabilities);
      for (auto& x : g.max_groups) c.r().u32(x);
      for (auto& x : g.actions) c.r().u32(x);
      m.body = g;
      return m;
    }
    case MultipartType::kMeter: {
      FLOWLAB_ASSIGN_OR_RETURN(auto v, decode_list<MeterStats>(c, 40, 4, "meter stats", decode_meter_stats));
      m.body = MeterStatsReply{std::move(v)};
      return m;
    }
    case MultipartType::kMeterConfig: {
      FLOWLAB_ASSIGN_OR_RETURN(auto v,
                               decode_list<MeterConfig>(c, 8, 0, "meter config", decode_meter_config));
      m.body = MeterConfigReply{std::move(v)};
      return m;
    }
    case MultipartType::kMeterFeatures: {
      if (c.remaining() != 16) return unexpected(bad_len(c, "meter features reply"));
      MeterFeaturesReply f;
      c.r().u32(f.max_meter);
      c.r().u32(f.band_types);
      c.r().u32(f.capabilities);
      c.r().u8(f.max_bands);
      c.r().u8(f.max_color);
      m.body = f;
      return m;
    }
    case MultipartType::kTableFeatures: {
      FLOWLAB_ASSIGN_OR_RETURN(auto v, decode_table_features(c.take(c.remaining())));
      m.body = TableFeaturesReply{std::move(v)};
      return m;
    }
    case MultipartType::kPortDesc: {
      FLOWLAB_ASSIGN_OR_RETURN(auto v, decode_list<PortDesc>(c, 64, kNoLen, "port desc", decode_port));
      m.body = PortDescReply{std::move(v)};
      return m;
    }
    case MultipartType::kControllerStatus:  // OF1.5 (of15/): unknown below it
      break;
    case MultipartType::kExperimenter: {
      if (c.remaining() < 8) return unexpected(short_error(c, "experimenter multipart", 8));
      ExperimenterMultipart e;
      c.r().u32(e.experimenter);
      c.r().u32(e.exp_type);
      ByteSpan rest = c.rest();
      e.data.assign(rest.begin(), rest.end());
      m.body = std::move(e);
      return m;
    }
  }
  return unexpected(
      OfError::make(BadRequestCode::kBadMultipart, fmt::format("unknown multipart type {}", type), start));
}

BasicStatus<OfError> encode_multipart_reply(const MultipartReply& m, ByteWriter& w) {
  if (std::holds_alternative<FlowMonitorReply>(m.body))
    return unexpected(OfError::make(BadRequestCode::kBadMultipart, "flow monitoring needs OpenFlow 1.4"));
  if (std::holds_alternative<ControllerStatusReply>(m.body))
    return unexpected(OfError::make(BadRequestCode::kBadMultipart, "controller status needs OpenFlow 1.5"));
  if (std::holds_alternative<QueueDescReply>(m.body))
    return unexpected(OfError::make(BadRequestCode::kBadMultipart, "queue description needs OpenFlow 1.4"));
  w.u16(static_cast<uint16_t>(multipart_type(m.body)));
  w.u16(m.flags);
  w.zeros(4);
  return std::visit(
      [&](const auto& b) -> BasicStatus<OfError> {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, DescReply>) {
          w.str(b.mfr_desc, 256);
          w.str(b.hw_desc, 256);
          w.str(b.sw_desc, 256);
          w.str(b.serial_num, 32);
          w.str(b.dp_desc, 256);
        } else if constexpr (std::is_same_v<T, FlowStatsReply>) {
          for (const FlowStats& f : b.stats) {
            size_t start = w.size();
            w.u16(0);
            w.u8(f.table_id);
            w.zeros(1);
            w.u32(f.duration_sec);
            w.u32(f.duration_nsec);
            w.u16(f.priority);
            w.u16(f.idle_timeout);
            w.u16(f.hard_timeout);
            w.u16(f.flags);
            w.zeros(4);
            w.u64(f.cookie);
            w.u64(f.packet_count);
            w.u64(f.byte_count);
            encode_match(f.match, w);
            FLOWLAB_TRY(encode_instructions(f.instructions, w));
            FLOWLAB_TRY(patch_len(w, start, start));
          }
        } else if constexpr (std::is_same_v<T, AggregateStatsReply>) {
          w.u64(b.packet_count);
          w.u64(b.byte_count);
          w.u32(b.flow_count);
          w.zeros(4);
        } else if constexpr (std::is_same_v<T, TableStatsReply>) {
          for (const TableStats& t : b.stats) {
            w.u8(t.table_id);
            w.zeros(3);
            w.u32(t.active_count);
            w.u64(t.lookup_count);
            w.u64(t.matched_count);
          }
        } else if constexpr (std::is_same_v<T, PortStatsReply>) {
          for (const PortStats& p : b.stats) encode_port_stats(p, w);
        } else if constexpr (std::is_same_v<T, QueueStatsReply>) {
          for (const QueueStats& q : b.stats) {
            w.u32(q.port_no);
            w.u32(q.queue_id);
            w.u64(q.tx_bytes);
            w.u64(q.tx_packets);
            w.u64(q.tx_errors);
            w.u32(q.duration_sec);
            w.u32(q.duration_nsec);
          }
        } else if constexpr (std::is_same_v<T, GroupStatsReply>) {
          for (const GroupStats& g : b.stats) {
            size_t start = w.size();
            w.u16(0);
            w.zeros(2);
            w.u32(g.group_id);
            w.u32(g.ref_count);
            w.zeros(4);
            w.u64(g.packet_count);
            w.u64(g.byte_count);
            w.u32(g.duration_sec);
            w.u32(g.duration_nsec);
            for (const BucketCounter& c : g.buckets) {
              w.u64(c.packet_count);
              w.u64(c.byte_count);
            }
            FLOWLAB_TRY(patch_len(w, start, start));
          }
        } else if constexpr (std::is_same_v<T, GroupDescReply>) {
          for (const GroupDesc& g : b.groups) {
            size_t start = w.size();
            w.u16(0);
            w.u8(static_cast<uint8_t>(g.type));
            w.zeros(1);
            w.u32(g.group_id);
            FLOWLAB_TRY(encode_buckets(g.buckets, w));
            FLOWLAB_TRY(patch_len(w, start, start));
          }
        } else if constexpr (std::is_same_v<T, GroupFeaturesReply>) {
          w.u32(b.types);
          w.u32(b.capabilities);
          for (uint32_t x : b.max_groups) w.u32(x);
          for (uint32_t x : b.actions) w.u32(x);
        } else if constexpr (std::is_same_v<T, MeterStatsReply>) {
          for (const MeterStats& s : b.stats) {
            size_t start = w.size();
            w.u32(s.meter_id);
            w.u16(0);
            w.zeros(6);
            w.u32(s.flow_count);
            w.u64(s.packet_in_count);
            w.u64(s.byte_in_count);
            w.u32(s.duration_sec);
            w.u32(s.duration_nsec);
            for (const MeterBandStats& x : s.bands) {
              w.u64(x.packet_band_count);
              w.u64(x.byte_band_count);
            }
            FLOWLAB_TRY(patch_len(w, start, start + 4));
          }
        } else if constexpr (std::is_same_v<T, MeterConfigReply>) {
          for (const MeterConfig& s : b.configs) {
            size_t start = w.size();
            w.u16(0);
            w.u16(s.flags);
            w.u32(s.meter_id);
            FLOWLAB_TRY(encode_bands(s.bands, w));
            FLOWLAB_TRY(patch_len(w, start, start));
          }
        } else if constexpr (std::is_same_v<T, MeterFeaturesReply>) {
          w.u32(b.max_meter);
          w.u32(b.band_types);
          w.u32(b.capabilities);
          w.u8(b.max_bands);
          w.u8(b.max_color);
          w.zeros(2);
        } else if constexpr (std::is_same_v<T, TableFeaturesReply>) {
          encode_table_features(b.tables, w);
        } else if constexpr (std::is_same_v<T, PortDescReply>) {
          for (const PortDesc& p : b.ports) encode_port(p, w);
        } else if constexpr (std::is_same_v<T, ExperimenterMultipart>) {
          w.u32(b.experimenter);
          w.u32(b.exp_type);
          w.bytes(b.data);
        }
        return {};
      },
      m.body);
}

}  // namespace flowlab::of::of13
